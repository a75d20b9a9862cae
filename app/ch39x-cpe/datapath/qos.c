/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * qos: a packet for a shaped interface into its scheduler (qos_sched.h):
 * the uplink's for the WAN, the downlink's for what came in on the WAN
 * and leaves by a LAN interface. A scheduler that holds nothing and whose
 * shaper is open lets it pass at once (to its port's port_tx); qos_tx
 * lets the others out at the shaper's pace.
 */

#include "dpconf.h"
#include "port.h"
#include "qos_sched.h"

enum {
	QOS_NB			/* port_tx-K only (control/graph.c) */
};

struct qos_node {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_qos *q;
	rte_edge_t tx[CPE_MAX_PORTS];
};

/* What the schedulers let pass at once, to their ports. */
static void
flush(struct rte_graph *g, struct rte_node *node, struct qos_node *c,
      struct cpe_qos_out *out)
{
	uint16_t next[CPE_CHUNK], i;

	if (out->n == 0)
		return;
	for (i = 0; i < out->n; i++)
		next[i] = c->tx[cpe_out(out->pkts[i])];
	cpe_enqueue(g, node, c->env, (void **)out->pkts, next, out->n);
	out->n = 0;
}

static uint16_t
qos_process(struct rte_graph *g, struct rte_node *node, void **objs,
	    uint16_t cnt)
{
	struct qos_node *c = CPE_CTX(node);
	struct rte_mbuf *pass[CPE_CHUNK], *m;
	struct cpe_qos_out out = { .pkts = pass, .cap = CPE_CHUNK };
	struct cpe_qos_sched *s;
	uint16_t i;

	for (i = 0; i < cnt; i++) {
		m = objs[i];
		s = c->ifs->ifs[cpe_out(m)].wan ? &c->q->up : &c->q->down;
		/* Held, or sent at once (then in pass[]: traced there). */
		cpe_kept(c->env, node, m, CPE_KEPT_QUEUED);
		cpe_qos_enqueue(s, c->ifs, cpe_out(m), m, c->env->now, &out);
		if (out.n == out.cap)
			flush(g, node, c, &out);
	}
	flush(g, node, c, &out);
	return cnt;
}

static int
qos_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct qos_node *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->q = dp->qos;
	return cpe_node_tx_edges(node, dp, c->tx);
}

static struct rte_node_register qos_node = {
	.name = "qos",
	.process = qos_process,
	.init = qos_init,
	.fini = cpe_node_fini,
	.nb_edges = QOS_NB,
};

RTE_NODE_REGISTER(qos_node);
