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
	PORT_OUT_PPPOE,
	PORT_OUT_QOS,
	PORT_OUT_NB		/* then port_tx-K (control/graph.c) */
};

struct port_out {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	bool up_on, down_on;		/* the schedulers */
	rte_edge_t tx[CPE_MAX_PORTS];
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct port_out *c = ctx;
	uint16_t out = cpe_out(m);
	const struct cpe_iface *p = &c->ifs->ifs[out];

	if (unlikely(p->pppoe))
		return PORT_OUT_PPPOE;
	if (unlikely(c->up_on) && p->wan)
		return PORT_OUT_QOS;
	/* The downlink's: from the WAN to a LAN interface. */
	if (unlikely(c->down_on) && !p->wan && cpe_in(m) == c->env->wan)
		return PORT_OUT_QOS;
	return c->tx[out];
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
	c->up_on = dp->ifs.wan >= 0 && dp->o->qos.rate != 0;
	c->down_on = dp->down_on;
	return cpe_node_tx_edges(node, dp, c->tx);
}

static struct rte_node_register port_out_node = {
	.name = "port_out",
	.process = port_out_process,
	.init = port_out_init,
	.fini = cpe_node_fini,
	.nb_edges = PORT_OUT_NB,
	.next_nodes = {
		[PORT_OUT_PPPOE] = "pppoe_out",
		[PORT_OUT_QOS] = "qos",
	},
};

RTE_NODE_REGISTER(port_out_node);
