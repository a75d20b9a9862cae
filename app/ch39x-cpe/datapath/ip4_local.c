/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_local: a packet for one of the router's addresses. On the WAN
 * address it may be a NAT session's reply, an ICMP error about one, or a
 * connection to a forwarded port; from a LAN, with port forwards, a
 * hairpin to the WAN address or a LAN host's reply to the router's
 * address: nat4_in's. The rest, and what nat4_in does not take, is the
 * router's if the firewall's input policy lets it in (fw, then
 * ip4_deliver). A later fragment has no ports: it never goes to NAT.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "ip4.h"

enum {
	IP4_LOCAL_NAT,
	IP4_LOCAL_FW,
	IP4_LOCAL_NB
};

struct ip4_local {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	bool nat_on;			/* NAT with a WAN */
	bool forwards;			/* --fw-forward given */
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct ip4_local *c = ctx;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const struct cpe_iface *p = &c->ifs->ifs[cpe_in(m)];

	if (!c->nat_on || (cpe_mb(m)->flags & CPE_MB_LATER))
		return IP4_LOCAL_FW;
	if (p->wan)
		return ip->dst_addr == p->ip_be ? IP4_LOCAL_NAT : IP4_LOCAL_FW;
	/* Hairpin NAT: to the WAN address's forwarded ports, and the LAN
	 * host's replies to the router's LAN address.
	 */
	if (c->forwards &&
	    (ip->dst_addr == c->ifs->ifs[c->ifs->wan].ip_be ||
	     ip->dst_addr == p->ip_be))
		return IP4_LOCAL_NAT;
	return IP4_LOCAL_FW;
}

static uint16_t
ip4_local_process(struct rte_graph *g, struct rte_node *node, void **objs,
		  uint16_t cnt)
{
	struct ip4_local *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_local_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct ip4_local *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->nat_on = dp->nat_on;
	c->forwards = dp->o->fw.nb_fwd != 0;
	return 0;
}

static struct rte_node_register ip4_local_node = {
	.name = "ip4_local",
	.process = ip4_local_process,
	.init = ip4_local_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_LOCAL_NB,
	.next_nodes = {
		[IP4_LOCAL_NAT] = "nat4_in",
		[IP4_LOCAL_FW] = "firewall",
	},
};

RTE_NODE_REGISTER(ip4_local_node);
