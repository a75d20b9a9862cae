/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * pppoe_in: the PPPoE WAN's input framing (pppoe_dp.h). The session's
 * IPv4 and IPv6 lose their session header and go on like any Ethernet
 * frame of the WAN (to the flow cache); PPP control, discovery and other
 * sessions go to pppd on the TAP as they came; what is not PPPoE at all
 * is dropped: nobody's on this link, and Linux's TAP must not get it
 * (its IPv6 link-local address would answer the WAN past the firewall).
 */

#include "dpconf.h"
#include "pppoe_dp.h"

enum {
	PPPOE_IN_FLOW4,
	PPPOE_IN_ETH,
	PPPOE_IN_TAP,
	PPPOE_IN_DROP,
	PPPOE_IN_NB
};

struct pppoe_in {
	struct cpe_env *env;
	struct cpe_pppoe_state *s;
	uint16_t in_edge;		/* flow4 or eth_in */
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct pppoe_in *c = ctx;

	switch (cpe_pppoe_decap(c->s, m)) {
	case CPE_PPPOE_IPV4:
	case CPE_PPPOE_IPV6:
		return c->in_edge;
	case CPE_PPPOE_BAD:
	case CPE_PPPOE_NONE:
		return PPPOE_IN_DROP;
	default:
		/* PPP control, discovery, other sessions: pppd's, raw. */
		cpe_mb_init(m, CPE_MB_RAW);
		return PPPOE_IN_TAP;
	}
}

static uint16_t
pppoe_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
		 uint16_t cnt)
{
	struct pppoe_in *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
pppoe_in_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct pppoe_in *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->s = &dp->ifs.pppoe;
	c->in_edge = dp->ftab4 != NULL ? PPPOE_IN_FLOW4 : PPPOE_IN_ETH;
	return 0;
}

static struct rte_node_register pppoe_in_node = {
	.name = "pppoe_in",
	.process = pppoe_in_process,
	.init = pppoe_in_init,
	.fini = cpe_node_fini,
	.nb_edges = PPPOE_IN_NB,
	.next_nodes = {
		[PPPOE_IN_FLOW4] = "flow4",
		[PPPOE_IN_ETH] = "eth_in",
		[PPPOE_IN_TAP] = "tap_out",
		[PPPOE_IN_DROP] = "drop-pppoe",
	},
};

RTE_NODE_REGISTER(pppoe_in_node);
