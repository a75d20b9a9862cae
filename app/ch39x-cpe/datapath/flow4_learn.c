/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * flow4_learn: the end of a cacheable packet's slow path. What the
 * finished packet carries (its key from flow4, its output interface, NAT
 * session and firewall state in its metadata; its MACs, addresses and
 * ports as they now are) is cached for its flow (ftab.h), with the
 * checksum deltas from the key's old values to the new ones, and linked
 * to the session and state that end it. A TCP session not yet
 * established is not cached: NAT follows its state on the slow path.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "flow.h"
#include "ftab.h"
#include "fwdp.h"
#include "nat.h"

enum {
	FLOW4_LEARN_OUT,
	FLOW4_LEARN_NB
};

/* The rewrite m went through, from key k to what m is now. */
static void
xlate_of(struct cpe_flow_learn *c, struct rte_mbuf *m,
	 const struct cpe_mb *mb, const struct cpe_flow4_key *k,
	 struct cpe_xlate *x)
{
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);

	memset(x, 0, sizeof(*x));
	memcpy(&x->dmac, eh, 2 * RTE_ETHER_ADDR_LEN);
	x->out = mb->out;
	x->mtu = c->ifs->ifs[mb->out].mtu;
	x->sess = mb->sess;
	x->ct = mb->ct;
	x->nat = (mb->flags & CPE_MB_NAT) != 0;
	if (x->nat) {
		x->sip = ip->src_addr;
		x->dip = ip->dst_addr;
		cpe_xlate_ports(ip, &x->sport, &x->dport);
	}
	cpe_xlate_prepare(x, k->proto, k->sip, k->dip, k->sport, k->dport);
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_flow_learn *c = ctx;
	const struct cpe_mb *mb = cpe_mb(m);
	const struct cpe_flow4_key *k = (const void *)mb->key.k4;
	uint16_t in = cpe_in(m);
	struct cpe_xlate x;
	int32_t pos;

	if (mb->sess != UINT32_MAX && !cpe_nat_sess_cacheable(c->nat, mb->sess))
		return FLOW4_LEARN_OUT;
	xlate_of(c, m, mb, k, &x);
	pos = cpe_ftab_learn(c->ft, k, &x);
	if (pos < 0)
		return FLOW4_LEARN_OUT;
	if (x.sess != UINT32_MAX)
		cpe_nat_link_flow(c->nat, x.sess, c->ifs->ifs[in].wan, pos);
	cpe_fwdp_link(c->fw, x.ct, in, pos);
	return FLOW4_LEARN_OUT;
}

static uint16_t
flow4_learn_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_flow_learn *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
flow4_learn_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_flow_learn *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->ft = dp->ftab4;
	c->nat = dp->nat;
	c->fw = dp->fw;
	return 0;
}

static struct rte_node_register flow4_learn_node = {
	.name = "flow4_learn",
	.process = flow4_learn_process,
	.init = flow4_learn_init,
	.fini = cpe_node_fini,
	.nb_edges = FLOW4_LEARN_NB,
	.next_nodes = {
		[FLOW4_LEARN_OUT] = "port_out",
	},
};

RTE_NODE_REGISTER(flow4_learn_node);
