/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * nat4_in: NAT before the route (nat.h), for what ip4_local found
 * addressed to the router that may be a session's. On the WAN address:
 * an ICMP error about a session's packet (translated back in place),
 * a session's reply, or a new connection to a forwarded port (a session
 * made for it); from a LAN: a hairpin to the WAN address's forwarded
 * ports, or a hairpin session's reply to the router's LAN address. What
 * is translated is routed by its new destination (ip4_route); the rest
 * is the router's, if the firewall lets it in. A forward's new connection
 * that the guard (--synflood-*) or a full table refuses is dropped.
 */

#include <errno.h>

#include <rte_ip.h>

#include "dpconf.h"
#include "ip4.h"
#include "nat.h"

enum {
	NAT4_IN_ROUTE,
	NAT4_IN_FW,
	NAT4_IN_DROP_SYNFLOOD,
	NAT4_IN_NB
};

struct nat4_in {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_nat *nat;
};

static bool
is_icmp_error(const struct rte_ipv4_hdr *ip, const uint8_t *l4,
	      uint32_t l4_len)
{
	return ip->next_proto_id == IPPROTO_ICMP && l4_len >= 8 &&
		(l4[0] == 3 || l4[0] == 11 || l4[0] == 12);
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct nat4_in *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const uint8_t *l4 = (const uint8_t *)ip + rte_ipv4_hdr_len(ip);
	const struct cpe_iface *p = &c->ifs->ifs[cpe_in(m)];
	int rc;

	if (p->wan && is_icmp_error(ip, l4, mb->l4_len)) {
		if (cpe_nat_icmp_error(c->nat, m, true) != 0)
			return NAT4_IN_FW;
		mb->flags |= CPE_MB_ICMP_XLATED;
		return NAT4_IN_ROUTE;
	}
	if (p->wan) {
		rc = cpe_nat_in_lookup(c->nat, m, mb, l4, mb->l4_len);
		if (rc != 0)
			rc = cpe_nat_forward_in(c->nat, m, mb, l4, mb->l4_len);
		if (rc == -EBUSY)	/* refused by the guard or a full table */
			return NAT4_IN_DROP_SYNFLOOD;
	} else {
		rc = ip->dst_addr == c->ifs->ifs[c->ifs->wan].ip_be ?
			cpe_nat_hairpin(c->nat, m, mb, l4, mb->l4_len) :
			cpe_nat_in_lookup(c->nat, m, mb, l4, mb->l4_len);
	}
	if (rc == 0) {
		mb->flags |= CPE_MB_NAT_IN;
		return NAT4_IN_ROUTE;
	}
	return NAT4_IN_FW;
}

static uint16_t
nat4_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
		uint16_t cnt)
{
	struct nat4_in *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
nat4_in_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct nat4_in *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->nat = dp->nat;
	return 0;
}

static struct rte_node_register nat4_in_node = {
	.name = "nat4_in",
	.process = nat4_in_process,
	.init = nat4_in_init,
	.fini = cpe_node_fini,
	.nb_edges = NAT4_IN_NB,
	.next_nodes = {
		[NAT4_IN_ROUTE] = "ip4_route",
		[NAT4_IN_FW] = "firewall",
		[NAT4_IN_DROP_SYNFLOOD] = "drop-synflood",
	},
};

RTE_NODE_REGISTER(nat4_in_node);
