/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * pppoe_out: the PPPoE WAN's output framing (pppoe_dp.h): every IPv4 and
 * IPv6 frame into the session, to the concentrator (its 8 bytes count for
 * the shaper: the scheduler comes after); pppd's own frames, PPPoE
 * already, as they are. Without a session IP cannot leave: dropped,
 * counted.
 */

#include "dpconf.h"
#include "pppoe_dp.h"

enum {
	PPPOE_OUT_QOS,
	PPPOE_OUT_NB		/* then port_tx-K (control/graph.c) */
};

struct pppoe_out {
	struct cpe_env *env;
	struct cpe_pppoe_state *s;
	rte_edge_t wan_next;		/* the WAN's qos or port_tx-K */
};

/* Any batch: each packet on its own, traced. */
static void
each(struct rte_graph *g, struct rte_node *node, struct pppoe_out *c,
     void **objs, uint16_t cnt)
{
	uint16_t next[CPE_CHUNK], i, k, base, id;
	struct rte_mbuf *m;

	for (base = 0; base < cnt; base += k) {
		k = RTE_MIN((uint16_t)(cnt - base), (uint16_t)CPE_CHUNK);
		for (i = 0; i < k; i++) {
			m = objs[base + i];
			/* A failed encapsulation frees m: its number first. */
			id = cpe_trace_id(c->env, m);
			next[i] = cpe_pppoe_tx(c->s, m) == 0 ? c->wan_next :
				CPE_CONSUMED;
			if (unlikely(id != 0) && next[i] == CPE_CONSUMED)
				cpe_trace_rec(c->env->trace, node, id,
					      CPE_KEPT_DROPPED);
		}
		cpe_enqueue(g, node, c->env, objs + base, next, k);
	}
}

/*
 * Everything here leaves by the WAN (the session's interface): the
 * packets encapsulated in place and the batch handed on whole, unless
 * one failed (freed: the rest go on one by one) or a trace runs.
 */
static uint16_t
pppoe_out_process(struct rte_graph *g, struct rte_node *node, void **objs,
		  uint16_t cnt)
{
	struct pppoe_out *c = CPE_CTX(node);
	uint16_t i;

	if (unlikely(c->env->trace != NULL)) {
		each(g, node, c, objs, cnt);
		return cnt;
	}
	i = cpe_pppoe_encap_burst(c->s, objs, cnt);
	if (likely(i == cnt)) {
		rte_node_next_stream_move(g, node, c->wan_next);
		return cnt;
	}
	/* Those before objs[i] go; it and those after it one by one. */
	if (i > 0)
		rte_node_enqueue(g, node, c->wan_next, objs, i);
	each(g, node, c, objs + i, cnt - i);
	return cnt;
}

static int
pppoe_out_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	rte_edge_t next[CPE_MAX_PORTS];
	struct pppoe_out *c;
	int rc;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->s = &dp->ifs.pppoe;
	rc = cpe_node_tx_edges(node, dp, next);
	if (rc != 0 || dp->ifs.wan < 0)
		return rc;
	c->wan_next = dp->o->qos.rate != 0 ? PPPOE_OUT_QOS :
		next[dp->ifs.wan];
	return 0;
}

static struct rte_node_register pppoe_out_node = {
	.name = "pppoe_out",
	.process = pppoe_out_process,
	.init = pppoe_out_init,
	.fini = cpe_node_fini,
	.nb_edges = PPPOE_OUT_NB,
	.next_nodes = {
		[PPPOE_OUT_QOS] = "qos",
	},
};

RTE_NODE_REGISTER(pppoe_out_node);
