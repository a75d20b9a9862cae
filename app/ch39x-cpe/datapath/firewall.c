/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * firewall: the firewall's zone policy (fwdp.h, lib/fw.c), for both families:
 * what reaches the router (its input: from ip4_local, nat4_in, ip6_frag)
 * and what is routed between LANs or, without NAT, to and from the WAN
 * (from ip4_route, ip6_frag). Zones as OpenWrt's defaults: LAN -> WAN
 * and LAN -> router accepted (they create state), WAN -> LAN and WAN ->
 * router only replies of tracked state, rules and essential ICMP. The
 * accepted go on with their tracked state (and whether the flow cache may
 * carry the verdict): to the router (ip4_deliver, ip6_deliver), or on
 * their way out (ip4_rewrite, ip6_rewrite).
 */

#include "dpconf.h"
#include "fragdp.h"
#include "fwdp.h"

enum {
	FW_DELIVER4,
	FW_DELIVER6,
	FW_REWRITE4,
	FW_REWRITE6,
	FW_DROP,
	FW_NB
};

struct firewall {
	struct cpe_env *env;
	struct cpe_fwdp *fw;
	struct cpe_fragdp *frag;
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct firewall *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	bool v6 = eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	bool routed = mb->flags & CPE_MB_ROUTED, cacheable;

	if (!cpe_fwdp_pass(c->fw, cpe_in(m), routed ? mb->out : -1, m,
			   &mb->ct, &cacheable)) {
		/* IPv6: a later fragment whose first was not let in. */
		if (v6 && (mb->flags & CPE_MB_LATER))
			cpe_fragdp_no_first(c->frag);
		return FW_DROP;
	}
	if (!cacheable)
		mb->flags |= CPE_MB_NOCACHE;
	if (routed)
		return v6 ? FW_REWRITE6 : FW_REWRITE4;
	return v6 ? FW_DELIVER6 : FW_DELIVER4;
}

static uint16_t
firewall_process(struct rte_graph *g, struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct firewall *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
firewall_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct firewall *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->fw = dp->fw;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register firewall_node = {
	.name = "firewall",
	.process = firewall_process,
	.init = firewall_init,
	.fini = cpe_node_fini,
	.nb_edges = FW_NB,
	.next_nodes = {
		[FW_DELIVER4] = "ip4_deliver",
		[FW_DELIVER6] = "ip6_deliver",
		[FW_REWRITE4] = "ip4_rewrite",
		[FW_REWRITE6] = "ip6_rewrite",
		[FW_DROP] = "drop-fw",
	},
};

RTE_NODE_REGISTER(firewall_node);
