/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip6_input: the IPv6 header's checks (version, lengths, no jumbograms:
 * not for an Ethernet CPE; a multicast source is no source; padding
 * trimmed), whether the packet is the router's (one of its addresses, a
 * multicast group: only what it joined reaches it) or to be routed, and
 * its source (BCP 38: fwdp.h). Link scope (RFC 4291 2.5.6) is not the
 * router's to forward.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fwdp.h"
#include "guard_dp.h"
#include "ip6.h"

enum {
	IP6_IN_LOCAL,
	IP6_IN_ROUTE,
	IP6_IN_DROP_BAD,
	IP6_IN_DROP_SCOPE,
	IP6_IN_DROP_FW,
	IP6_IN_DROP_SYNFLOOD,
	IP6_IN_NB
};

static const uint8_t unspec[16];

/* 0 and *ipp (padding trimmed, the payload's length in mb), or -1. */
static int
check(struct rte_mbuf *m, struct cpe_mb *mb, struct rte_ipv6_hdr **ipp)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t plen;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip))
		return -1;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6 || plen == 0 ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + plen ||
	    IP6_SRC(ip)[0] == 0xff)
		return -1;
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN + sizeof(*ip) + plen)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) -
				 RTE_ETHER_HDR_LEN - sizeof(*ip) - plen);
	mb->tot = (uint16_t)plen;
	*ipp = ip;
	return 0;
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip6_input *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	uint16_t in = cpe_in(m);
	struct rte_ipv6_hdr *ip;

	c->rx++;
	if (check(m, mb, &ip) != 0) {
		c->bad++;
		return IP6_IN_DROP_BAD;
	}
	/* The budget of SYNs from the WAN, before any lookup (guard_dp.h). */
	if (c->ifs->ifs[in].wan && c->fw->guard_on &&
	    !cpe_guard_syn_ok(&c->fw->guard, m, c->env->now))
		return IP6_IN_DROP_SYNFLOOD;
	if (IP6_DST(ip)[0] == 0xff || cpe_if_local6(c->ifs, in, IP6_DST(ip))) {
		mb->flags |= CPE_MB_LOCAL;
		if (cpe_fwdp_src6(c->fw, in, true, m) != CPE_FW_ACCEPT)
			return IP6_IN_DROP_FW;
		return IP6_IN_LOCAL;
	}
	if (cpe_is_ll6(IP6_DST(ip)) || cpe_is_ll6(IP6_SRC(ip)) ||
	    memcmp(IP6_SRC(ip), unspec, 16) == 0) {
		c->scope++;
		return IP6_IN_DROP_SCOPE;
	}
	if (cpe_fwdp_src6(c->fw, in, false, m) != CPE_FW_ACCEPT)
		return IP6_IN_DROP_FW;
	return IP6_IN_ROUTE;
}

static uint16_t
ip6_input_process(struct rte_graph *g, struct rte_node *node, void **objs,
		  uint16_t cnt)
{
	struct cpe_ip6_input *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip6_input_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip6_input *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->fw = dp->fw;
	return 0;
}

static struct rte_node_register ip6_input_node = {
	.name = "ip6_input",
	.process = ip6_input_process,
	.init = ip6_input_init,
	.fini = cpe_node_fini,
	.nb_edges = IP6_IN_NB,
	.next_nodes = {
		[IP6_IN_LOCAL] = "ip6_frag",
		[IP6_IN_ROUTE] = "ip6_route",
		[IP6_IN_DROP_BAD] = "drop-bad",
		[IP6_IN_DROP_SCOPE] = "drop-scope",
		[IP6_IN_DROP_FW] = "drop-fw",
		[IP6_IN_DROP_SYNFLOOD] = "drop-synflood",
	},
};

RTE_NODE_REGISTER(ip6_input_node);
