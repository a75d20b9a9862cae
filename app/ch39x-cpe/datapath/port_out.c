/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * port_out: the way out of an interface, for what the slow path, the
 * neighbour tables, the TAPs and the control plane send (the flow caches
 * go straight to port_tx when they can). Its output interface is in
 * m->hash.usr. The interface's framing first (pppoe_out: the session
 * header), then its scheduler (qos: the WAN's uplink when --wan-rate is
 * given, and for what came in on the WAN and leaves by a LAN, the
 * downlink's with --down-rate), then its DPDK port's port_tx.
 */

#include "dpconf.h"
#include "port.h"

enum {
	PORT_OUT_QOS,
	PORT_OUT_NB	/* then port_tx-K, the framings' nodes (graph.c) */
};

struct port_out {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	bool down_on;			/* the downlink's scheduler */
	/* By interface: its framing's node, its scheduler or port_tx-K. */
	rte_edge_t out[CPE_MAX_PORTS];
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct port_out *c = ctx;
	uint16_t out = cpe_out(m);

	/* The downlink's: from the WAN to a LAN interface. */
	if (unlikely(c->down_on) && cpe_in(m) == c->env->wan &&
	    !c->ifs->ifs[out].wan)
		return PORT_OUT_QOS;
	return c->out[out];
}

static uint16_t
port_out_process(struct rte_graph *g, struct rte_node *node, void **objs,
		 uint16_t cnt)
{
	struct port_out *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
port_out_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct port_out *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->down_on = dp->down_on;
	return cpe_node_out_edges(node, dp, PORT_OUT_QOS, c->out);
}

static struct rte_node_register port_out_node = {
	.name = "port_out",
	.process = port_out_process,
	.init = port_out_init,
	.fini = cpe_node_fini,
	.nb_edges = PORT_OUT_NB,
	.next_nodes = {
		[PORT_OUT_QOS] = "qos",
	},
};

RTE_NODE_REGISTER(port_out_node);
