/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * inject: a source that puts on the way out (port_out) what was made
 * outside the graph's walk: the neighbour tables' probes as the control
 * plane ages them, packets a static neighbour lets go, anything the
 * control plane hands over (cpe_inject_put()). At the next walk: the
 * control plane runs between walks, on the same lcore.
 */

#include <string.h>

#include "dpconf.h"
#include "fragdp.h"
#include "ntab.h"
#include "port.h"

enum {
	INJECT_OUT,
	INJECT_FRAG4,
	INJECT_FRAG6,
	INJECT_NB
};

void
cpe_inject_put(struct cpe_inject *c, struct rte_mbuf *m)
{
	if (c->nb == CPE_INJECT_MAX) {
		c->drops++;
		rte_pktmbuf_free(m);
		return;
	}
	c->q[c->nb++] = m;
}

/* What a neighbour table let go of outside the walk. */
static void
from_ntab(struct cpe_inject *c, struct cpe_ntab *t)
{
	struct rte_mbuf *pkts[CPE_BURST];
	uint16_t n, i;

	while ((n = cpe_ntab_take(t, pkts, CPE_BURST)) != 0)
		for (i = 0; i < n; i++)
			cpe_inject_put(c, pkts[i]);
}

/* The later fragments fragdp.h held: back to ip4_frag, ip6_frag. */
static uint16_t
held(struct cpe_inject *c, struct rte_mbuf **objs, uint16_t *next,
     uint16_t at)
{
	uint16_t k, i, n = 0;
	int v;

	for (v = 0; c->frag != NULL && v < 2; v++) {
		k = cpe_fragdp_take(c->frag, v, objs + at + n, CPE_FRAG_HOLD);
		for (i = 0; i < k; i++)
			next[at + n + i] = v ? INJECT_FRAG6 : INJECT_FRAG4;
		n += k;
	}
	return n;
}

static uint16_t
inject_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct cpe_inject *c = CPE_CTX(node);
	uint16_t next[CPE_BURST * 8], n = 0, i;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	for (i = 0; i < RTE_DIM(c->ntab); i++)
		if (c->ntab[i] != NULL && c->ntab[i]->nb_out)
			from_ntab(c, c->ntab[i]);
	if (c->nb == 0 && (c->frag == NULL || (c->frag->nb_held[0] == 0 &&
					       c->frag->nb_held[1] == 0)))
		return 0;
	n = RTE_MIN(c->nb, (uint16_t)(RTE_DIM(next) - 2 * CPE_FRAG_HOLD));
	memcpy(node->objs, c->q, n * sizeof(c->q[0]));
	c->nb -= n;
	memmove(c->q, c->q + n, c->nb * sizeof(c->q[0]));
	for (i = 0; i < n; i++)
		next[i] = INJECT_OUT;
	n += held(c, (struct rte_mbuf **)node->objs, next, n);
	node->idx = n;
	cpe_enqueue(g, node, c->env, node->objs, next, n);
	return n;
}

static int
inject_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_inject *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->frag = dp->frag;
	c->ntab[0] = cpe_arp_ntab(dp->arp);
	c->ntab[1] = dp->nd6 != NULL ? cpe_nd6_ntab(dp->nd6) : NULL;
	return 0;
}

static void
inject_fini(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_inject *c = CPE_CTX(node);

	RTE_SET_USED(g);
	if (c != NULL && c->nb)
		rte_pktmbuf_free_bulk(c->q, c->nb);
	cpe_node_state_free(node);
}

static struct rte_node_register inject_node = {
	.name = "inject",
	.flags = RTE_NODE_SOURCE_F,
	.process = inject_process,
	.init = inject_init,
	.fini = inject_fini,
	.nb_edges = INJECT_NB,
	.next_nodes = {
		[INJECT_OUT] = "port_out",
		[INJECT_FRAG4] = "ip4_frag",
		[INJECT_FRAG6] = "ip6_frag",
	},
};

RTE_NODE_REGISTER(inject_node);
