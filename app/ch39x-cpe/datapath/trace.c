/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The packet trace's records (trace.h), as the nodes make them. */

#include "trace.h"

void
cpe_trace_rec(struct cpe_trace *t, const struct rte_node *node, uint16_t id,
	      uint16_t edge)
{
	struct cpe_trace_rec *r;

	if (t->nb == CPE_TRACE_RECS) {
		t->lost++;
		return;
	}
	r = &t->rec[t->nb++];
	r->id = id;
	r->edge = edge;
	r->node = node->id;
}

void
cpe_trace_node(struct cpe_trace *t, const struct rte_node *node, void **objs,
	       const uint16_t *next, uint16_t n)
{
	struct rte_mbuf *m;
	uint16_t i;

	for (i = 0; i < n; i++) {
		m = objs[i];
		if (next[i] != CPE_CONSUMED && (m->ol_flags & t->flag))
			cpe_trace_rec(t, node, cpe_mb(m)->trace_id, next[i]);
	}
}
