/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * qos_tx: a source (every walk, packets or not) that lets out of the
 * schedulers (qos_sched.h) what their shapers allow, towards their
 * ports' port_tx; a port whose backlog is full ends a scheduler's turn.
 * In the graph only when a scheduler is on.
 */

#include "dpconf.h"
#include "port.h"
#include "qos_sched.h"

enum {
	QOS_TX_NB		/* port_tx-K only (control/graph.c) */
};

struct qos_tx {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_qos *q;
	rte_edge_t tx[CPE_MAX_PORTS];
};

static void
drain(struct rte_graph *g, struct rte_node *node, struct qos_tx *c,
      struct cpe_qos_sched *s)
{
	struct cpe_qos_out out = {
		.pkts = (struct rte_mbuf **)node->objs, .cap = CPE_BURST * 8,
	};
	uint16_t next[CPE_BURST * 8], i;

	if (!s->on)
		return;
	cpe_qos_dequeue(s, c->ifs, &out);
	for (i = 0; i < out.n; i++)
		next[i] = c->tx[cpe_out(out.pkts[i])];
	node->idx = out.n;
	cpe_enqueue(g, node, c->env, node->objs, next, out.n);
	node->idx = 0;
}

static uint16_t
qos_tx_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct qos_tx *c = CPE_CTX(node);

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	drain(g, node, c, &c->q->up);
	drain(g, node, c, &c->q->down);
	return 0;
}

static int
qos_tx_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct qos_tx *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->q = dp->qos;
	return cpe_node_tx_edges(node, dp, c->tx);
}

static struct rte_node_register qos_tx_node = {
	.name = "qos_tx",
	.flags = RTE_NODE_SOURCE_F,
	.process = qos_tx_process,
	.init = qos_tx_init,
	.fini = cpe_node_fini,
	.nb_edges = QOS_TX_NB,
};

RTE_NODE_REGISTER(qos_tx_node);
