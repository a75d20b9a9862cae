/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip6_deliver: what reaches the router over IPv6. Neighbour discovery's
 * solicitations and advertisements to nd6_in; echo requests to one of its
 * addresses answered (the reply in place: the addresses swap, the
 * pseudo-header sum stays, only the type changes in the checksum; then
 * ip6_output); the rest is the control plane's (tap_out): router
 * solicitations are answered by Linux, and the ISP's router
 * advertisements on the WAN, besides reaching Linux, teach the WAN's
 * default route when prefixes are delegated (control/wan6.c takes them
 * from here: cpe_ip6_ra_take()).
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "ip6.h"
#include "nd6_msg.h"

#define ICMP6_ECHO_REQUEST	128
#define ICMP6_ECHO_REPLY	129

enum {
	IP6_DELIVER_OUTPUT,
	IP6_DELIVER_ND,
	IP6_DELIVER_TAP,
	IP6_DELIVER_NB
};

bool
cpe_ip6_ra_take(struct cpe_ip6_deliver *c, struct cpe_ra_event *ev)
{
	if (c->nb_ra == 0)
		return false;
	*ev = c->ra[0];
	c->nb_ra--;
	memmove(c->ra, c->ra + 1, c->nb_ra * sizeof(c->ra[0]));
	return true;
}

/* An RA on the WAN: its router and lifetime for the control plane. */
static void
ra_seen(struct cpe_ip6_deliver *c, const struct rte_mbuf *m,
	const struct rte_ipv6_hdr *ip)
{
	struct cpe_ra_event *ev;

	if (!c->ra_learns)
		return;
	if (c->nb_ra == CPE_RA_EVENTS) {
		c->ra_lost++;
		return;
	}
	ev = &c->ra[c->nb_ra++];
	ev->bad = cpe_nd6_ra_check(m, &ev->lifetime) != 0;
	memcpy(ev->src, IP6_SRC(ip), 16);
}

static void
echo_reply(struct cpe_ip6_deliver *c, struct rte_ipv6_hdr *ip, uint8_t *ic)
{
	uint8_t dst[16];
	uint16_t old;

	memcpy(&old, ic, 2);
	ic[0] = ICMP6_ECHO_REPLY;
	cpe_put16(ic + 2, cpe_csum_update(cpe_get16(ic + 2),
		cpe_adj16(0, old, cpe_get16(ic))));
	memcpy(dst, IP6_DST(ip), 16);
	memcpy(IP6_DST(ip), IP6_SRC(ip), 16);
	memcpy(IP6_SRC(ip), dst, 16);
	ip->hop_limits = 64;
	c->echo_replies++;
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip6_deliver *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint8_t *ic = (uint8_t *)(ip + 1);
	struct cpe_frag_info fi;

	if ((mb->flags & CPE_MB_FIRST) &&
	    cpe_fragdp_info(c->frag, m, &fi) == 1)
		cpe_fragdp_first6(c->frag, &fi, true);
	if (ip->proto != IPPROTO_ICMPV6 || mb->tot < 8 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + 8) {
		c->punted++;
		return IP6_DELIVER_TAP;
	}
	if (ic[0] == CPE_ND_NS || ic[0] == CPE_ND_NA)
		return IP6_DELIVER_ND;
	if (ic[0] != ICMP6_ECHO_REQUEST || IP6_DST(ip)[0] == 0xff) {
		if (ic[0] == CPE_ND_RS)
			c->rs_punted++;
		else if (ic[0] == CPE_ND_RA && cpe_in(m) == c->env->wan)
			ra_seen(c, m, ip);
		c->punted++;
		return IP6_DELIVER_TAP;
	}
	echo_reply(c, ip, ic);
	return IP6_DELIVER_OUTPUT;
}

static uint16_t
ip6_deliver_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_ip6_deliver *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

/* RAs teach ::/0 when prefixes are delegated and no static one is set. */
static bool
ra_learns(const struct cpe_opts *o)
{
	bool pd = false;
	uint16_t i;

	for (i = 0; i < o->nb_routes6; i++)
		if (o->routes6[i].prefix.plen == 0)
			return false;
	for (i = 0; i < o->nb_ports; i++)
		pd |= o->ports[i].pd;
	return pd;
}

static int
ip6_deliver_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip6_deliver *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->frag = dp->frag;
	c->ra_learns = ra_learns(dp->o);
	return 0;
}

static struct rte_node_register ip6_deliver_node = {
	.name = "ip6_deliver",
	.process = ip6_deliver_process,
	.init = ip6_deliver_init,
	.fini = cpe_node_fini,
	.nb_edges = IP6_DELIVER_NB,
	.next_nodes = {
		[IP6_DELIVER_OUTPUT] = "ip6_output",
		[IP6_DELIVER_ND] = "nd6_in",
		[IP6_DELIVER_TAP] = "tap_out",
	},
};

RTE_NODE_REGISTER(ip6_deliver_node);
