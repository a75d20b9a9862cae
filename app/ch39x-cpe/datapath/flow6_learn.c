/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * flow6_learn: the end of a cacheable IPv6 packet's slow path, as
 * flow4_learn's: its way (MACs, output interface, firewall state) cached
 * under the key flow6 kept (ftab.h), linked to the state that ends it.
 */

#include "dpconf.h"
#include "flow.h"
#include "ftab.h"
#include "fwdp.h"

enum {
	FLOW6_LEARN_OUT,
	FLOW6_LEARN_NB
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_flow_learn *c = ctx;
	const struct cpe_mb *mb = cpe_mb(m);
	struct cpe_xlate x;
	int32_t pos;

	memset(&x, 0, sizeof(x));
	memcpy(&x.dmac, rte_pktmbuf_mtod(m, const void *),
	       2 * RTE_ETHER_ADDR_LEN);
	x.out = mb->out;
	x.mtu = c->ifs->ifs[mb->out].mtu;
	x.sess = UINT32_MAX;
	x.ct = mb->ct;
	pos = cpe_ftab_learn(c->ft, mb->key.k6, &x);
	if (pos >= 0)
		cpe_fwdp_link(c->fw, x.ct, cpe_in(m), pos);
	return FLOW6_LEARN_OUT;
}

static uint16_t
flow6_learn_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_flow_learn *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
flow6_learn_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_flow_learn *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->ft = dp->ftab6;
	c->fw = dp->fw;
	return 0;
}

static struct rte_node_register flow6_learn_node = {
	.name = "flow6_learn",
	.process = flow6_learn_process,
	.init = flow6_learn_init,
	.fini = cpe_node_fini,
	.nb_edges = FLOW6_LEARN_NB,
	.next_nodes = {
		[FLOW6_LEARN_OUT] = "port_out",
	},
};

RTE_NODE_REGISTER(flow6_learn_node);
