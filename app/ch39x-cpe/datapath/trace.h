/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_TRACE_H
#define CPE_TRACE_H

/*
 * The packet trace: "where did my packet go?" without a debugger. The
 * control plane (/cpe/trace,N) asks for the next N packets; port_rx marks
 * them as they arrive (an mbuf flag, a number in the private area), and
 * every node records, for each marked packet it handles, the edge it put
 * it on or what it did with it (sent, dropped, held, queued, punted,
 * answered: dp.h's cpe_kept()). /cpe/trace shows the records, the nodes
 * and edges by name. The nodes pay one test a burst while nothing is
 * traced (cpe_env.trace is NULL).
 */

#include <stdint.h>

#include <rte_graph.h>
#include <rte_mbuf.h>

#include "mb.h"

/* trace.c: the edges traced packets take, what became of those kept. */
void cpe_trace_node(struct cpe_trace *t, const struct rte_node *node,
		    void **objs, const uint16_t *next, uint16_t n);
void cpe_trace_rec(struct cpe_trace *t, const struct rte_node *node,
		   uint16_t id, uint16_t what);

/* What a node did with a packet it kept (a trace's verdict). */
enum cpe_kept {
	CPE_KEPT_SENT = 0xff00,		/* to the PMD */
	CPE_KEPT_DROPPED,		/* freed (the node names why) */
	CPE_KEPT_HELD,			/* waits for a neighbour */
	CPE_KEPT_QUEUED,		/* waits in a scheduler */
	CPE_KEPT_PUNTED,		/* to Linux, the TAP */
	CPE_KEPT_ANSWERED,		/* a reply made of it */
};

/* m's number in the trace, 0: not traced. */
static __rte_always_inline uint16_t
cpe_trace_id(const struct cpe_env *env, const struct rte_mbuf *m)
{
	return unlikely(env->trace != NULL) && (m->ol_flags & env->trace_flag) ?
		((const struct cpe_mb *)rte_mbuf_to_priv(
			(struct rte_mbuf *)(uintptr_t)m))->trace_id : 0;
}


#define CPE_TRACE_MAX_PKTS	64
#define CPE_TRACE_RECS		2048

struct cpe_trace_rec {
	uint16_t id;			/* the packet's number, 1.. */
	uint16_t edge;			/* its edge, or enum cpe_kept */
	rte_node_t node;
};

struct cpe_trace {
	uint64_t flag;			/* the ol_flags bit of a marked packet */
	uint16_t want;			/* packets still to mark */
	uint16_t next_id;
	uint32_t nb;			/* records */
	uint32_t lost;			/* records past CPE_TRACE_RECS */
	struct cpe_trace_rec rec[CPE_TRACE_RECS];
};

/* port_rx: m marked when packets are still wanted. */
static __rte_always_inline void
cpe_trace_mark(const struct cpe_env *env, struct rte_mbuf *m)
{
	struct cpe_trace *t = env->trace;

	/* The flag of an mbuf's earlier life is not this packet's. */
	m->ol_flags &= ~env->trace_flag;
	if (t->want == 0)
		return;
	t->want--;
	m->ol_flags |= env->trace_flag;
	cpe_mb(m)->trace_id = ++t->next_id;
}

/* A packet m makes (an ICMP error, a fragment) is traced as m is. */
static inline void
cpe_trace_inherit(const struct cpe_env *env, struct rte_mbuf *to,
		  struct rte_mbuf *from)
{
	if (unlikely(env->trace != NULL) && (from->ol_flags & env->trace_flag)) {
		to->ol_flags |= env->trace_flag;
		cpe_mb(to)->trace_id = cpe_mb(from)->trace_id;
	}
}

#endif /* CPE_TRACE_H */
