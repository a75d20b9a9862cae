/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * IPv6 forwarding (the slow path for EtherType 0x86DD): routed prefixes,
 * no NAT, every packet forwarded as is but for the hop limit. Header
 * checks; packets for the router (echo requests to any of its addresses
 * answered, neighbour discovery to nd6.c, the rest to the exception path,
 * cpe_punt()); the hop limit (ICMPv6 time exceeded); the route (ICMPv6
 * no route); the egress MTU (ICMPv6 packet too big: IPv6 is never
 * fragmented by routers, RFC 8200 5); the next hop's MAC (nd6.c). A
 * packet the flow cache could have taken installs it (flow6.c).
 * Link-local sources and destinations never leave their link. The
 * firewall (fw_glue.c) sees sources, what reaches the router and the
 * forwarded packets.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#include "cpe.h"

#define ICMP6_UNREACH		1
#define ICMP6_TOO_BIG		2
#define ICMP6_TIME_EXCEEDED	3
#define ICMP6_ECHO_REQUEST	128
#define ICMP6_ECHO_REPLY	129
#define ICMP6_RS		133
#define ICMP6_RA		134
#define ND_NS			135
#define ND_NA			136
/* Errors: a token bucket, RFC 4443 2.4 (f). */
#define ICMP6_RATE		1000	/* per second */
#define ICMP6_BURST		100

static bool v6_on;			/* some port has an IPv6 prefix */
static uint64_t icmp_tokens, icmp_refill;

static bool
is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

void
cpe_ip6_prefix_of(uint8_t *pfx, const uint8_t *a, uint8_t plen)
{
	uint8_t k;

	for (k = 0; k < 16; k++)
		pfx[k] = k * 8 >= plen ? 0 : k * 8 + 8 <= plen ? a[k] :
			a[k] & (uint8_t)(0xff << (8 - (plen - k * 8)));
}

void
cpe_ip6_fmt(char *buf, size_t size, const uint8_t *a)
{
	if (inet_ntop(AF_INET6, a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
}

/* An address of port in: its link-local or one of its prefixes'. */
bool
cpe_ip6_is_mine(uint16_t in, const uint8_t *a)
{
	const struct cpe_port *p = &cpe.ports[in];
	uint8_t i;

	if (memcmp(a, p->ll6, 16) == 0)
		return true;
	for (i = 0; i < p->nb_ip6; i++)
		if (memcmp(a, p->ip6[i].a, 16) == 0)
			return true;
	return false;
}

/* Any of the router's global addresses, or in's link-local. */
static bool
is_local(uint16_t in, const uint8_t *a)
{
	uint16_t i;

	if (cpe_ip6_is_mine(in, a))
		return true;
	/* In a PPPoE session: pppd's IPv6CP address (pppoe.h). */
	if (is_link_local(a))
		return cpe.ports[in].pppoe && cpe_pppoe_ll_is_ours(a);
	for (i = 0; i < cpe.nb_ports; i++)
		if (i != in && cpe_ip6_is_mine(i, a))
			return true;
	return false;
}

/*
 * The router's own packet m (IPv6 header complete, L4 checksum done):
 * link-local destinations go out where they came from (in), the rest by
 * the route.
 */
static void
send_local(struct rte_mbuf *m, uint16_t in)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
	uint8_t nh[16];
	uint16_t out;

	if (is_link_local(IP6_DST(ip))) {
		out = in;
		memcpy(nh, IP6_DST(ip), 16);
	} else if (cpe_route6_lookup(IP6_DST(ip), &out, nh) != 0) {
		cpe.st.v6.drop_no_route++;
		rte_pktmbuf_free(m);
		return;
	}
	if (rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN > cpe.ports[out].mtu) {
		cpe.st.v6.drop_mtu++;
		rte_pktmbuf_free(m);
		return;
	}
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	rte_ether_addr_copy(&cpe.ports[out].mac, &eh->src_addr);
	if (cpe_nd6_resolve(out, nh, m, &eh->dst_addr) == 0)
		cpe_tx(out, m);
}

/*
 * Our source towards dst: a global address of port in, else another
 * port's (a WAN without a prefix of its own, RFC 7084's unnumbered
 * model: the delegated LAN's), else in's link-local.
 */
static const uint8_t *
source_for(uint16_t in, const uint8_t *dst)
{
	const struct cpe_port *p = &cpe.ports[in];
	uint16_t j;
	uint8_t i;

	if (is_link_local(dst))
		return p->ll6;
	for (i = 0; i < p->nb_ip6; i++)
		if (cpe_in_prefix(dst, p->ip6[i].a, p->ip6[i].plen))
			return p->ip6[i].a;
	if (p->nb_ip6 != 0)
		return p->ip6[0].a;
	for (j = 0; j < cpe.nb_ports; j++)
		if (cpe.ports[j].nb_ip6 != 0)
			return cpe.ports[j].ip6[0].a;
	return p->ll6;
}

static bool
icmp_rate_ok(void)
{
	uint64_t per = cpe.hz / ICMP6_RATE, n;

	if (per == 0)
		per = 1;
	n = (cpe.now - icmp_refill) / per;
	if (n) {
		icmp_tokens = RTE_MIN(icmp_tokens + n, (uint64_t)ICMP6_BURST);
		icmp_refill += n * per;
	}
	if (icmp_tokens == 0) {
		cpe.st.v6.icmp_suppressed++;
		return false;
	}
	icmp_tokens--;
	return true;
}

/*
 * ICMPv6 error about m (which the caller still frees), from an address of
 * the port it came in on, quoting as much of it as fits in 1280 bytes
 * (RFC 4443 2.4). param: the MTU of packet too big.
 */
static void
icmp6_error(struct rte_mbuf *m, uint16_t in, uint8_t type, uint8_t code,
	    uint32_t param)
{
	const struct rte_ipv6_hdr *oip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t olen = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN, q;
	const uint8_t *ol4 = (const uint8_t *)(oip + 1);
	struct rte_ipv6_hdr *ip;
	const void *quoted;
	struct rte_mbuf *e;
	uint8_t *p, *ic;

	/* Never about an error, nor to a multicast or unspecified source. */
	if (IP6_SRC(oip)[0] == 0xff || IP6_DST(oip)[0] == 0xff ||
	    memcmp(IP6_SRC(oip), (const uint8_t[16]){ 0 }, 16) == 0 ||
	    (oip->proto == IPPROTO_ICMPV6 &&
	     (olen < sizeof(*oip) + 1 ||
	      rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*oip) + 1 ||
	      ol4[0] < 128)) || !icmp_rate_ok())
		return;
	e = rte_pktmbuf_alloc(cpe.pool);
	if (e == NULL) {
		cpe.st.drop_nomem++;
		return;
	}
	q = RTE_MIN(olen, (uint32_t)CPE_ICMP6_MAX - 40 - 8);
	p = (uint8_t *)rte_pktmbuf_append(e, RTE_ETHER_HDR_LEN + 40 + 8 + q);
	if (p == NULL) {
		rte_pktmbuf_free(e);
		return;
	}
	/* In a new mbuf's headroom: 2-aligned after the Ethernet header. */
	ip = (struct rte_ipv6_hdr *)(void *)(p + RTE_ETHER_HDR_LEN);
	ic = (uint8_t *)(ip + 1);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + q));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	memcpy(IP6_DST(ip), IP6_SRC(oip), 16);
	memcpy(IP6_SRC(ip), source_for(in, IP6_SRC(oip)), 16);
	ic[0] = type;
	ic[1] = code;
	ic[2] = ic[3] = 0;
	param = rte_cpu_to_be_32(param);
	memcpy(ic + 4, &param, 4);
	quoted = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, q, ic + 8);
	if (quoted != NULL && quoted != (const void *)(ic + 8))
		memcpy(ic + 8, quoted, q);
	cpe_put16(ic + 2, rte_ipv6_udptcp_cksum(ip, ic));
	if (type == ICMP6_TIME_EXCEEDED)
		cpe.st.v6.icmp_time_exceeded++;
	else if (type == ICMP6_TOO_BIG)
		cpe.st.v6.icmp_too_big++;
	else
		cpe.st.v6.icmp_unreach++;
	send_local(e, in);
}

/* For the router: echo requests and ND here, the rest punted. */
static void
local_input(uint16_t in, struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
	    uint32_t plen)
{
	uint8_t *ic = (uint8_t *)(ip + 1);
	uint8_t dst[16];
	uint16_t old;

	if (ip->proto != IPPROTO_ICMPV6 || plen < 8 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + 8) {
		cpe.st.v6.punted++;
		cpe_punt(in, m);
		return;
	}
	if (ic[0] == ND_NS || ic[0] == ND_NA) {
		cpe_nd6_input(in, m, ic[0]);
		return;
	}
	if (ic[0] != ICMP6_ECHO_REQUEST || IP6_DST(ip)[0] == 0xff) {
		/*
		 * Router solicitations: the control plane's to answer. The
		 * ISP's advertisements teach the WAN's default route here
		 * (wan6.c) and Linux's on the TAP.
		 */
		if (ic[0] == ICMP6_RS)
			cpe.st.v6.rs_punted++;
		else if (ic[0] == ICMP6_RA && in == cpe.wan)
			cpe_wan6_ra(m);
		cpe.st.v6.punted++;
		cpe_punt(in, m);
		return;
	}
	/*
	 * The reply in place: addresses swap (the pseudo-header sum stays),
	 * only the type changes in the ICMPv6 checksum.
	 */
	memcpy(&old, ic, 2);
	ic[0] = ICMP6_ECHO_REPLY;
	cpe_put16(ic + 2, cpe_csum_update(cpe_get16(ic + 2),
		cpe_adj16(0, old, cpe_get16(ic))));
	memcpy(dst, IP6_DST(ip), 16);
	memcpy(IP6_DST(ip), IP6_SRC(ip), 16);
	memcpy(IP6_SRC(ip), dst, 16);
	ip->hop_limits = 64;
	cpe.st.v6.icmp_echo_replies++;
	send_local(m, in);
}

/*
 * A fragment's way (frag_glue.c): -1 dropped (tiny, malformed, overlap:
 * counted), 1 a later fragment of a datagram whose first the firewall
 * let in (it passes without a verdict of its own), 0 the firewall decides
 * (fi->off and fi->more say whether it is a first or a later fragment;
 * both 0 when not a fragment).
 */
static int
frag_verdict(struct rte_mbuf *m, struct cpe_frag_info *fi)
{
	int rc = cpe_frag_info(m, fi);

	if (rc <= 0)
		return rc;
	return fi->off == 0 ? 0 : cpe_frag_later6(fi);
}

void
cpe_ip6_input(uint16_t in, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	uint8_t key[CPE_FLOW6_KEY_LEN], nh[16];
	struct rte_ipv6_hdr *ip;
	struct cpe_xlate x;
	struct cpe_frag_info fi;
	bool cacheable, fw_cacheable;
	uint32_t plen;
	uint16_t out;
	int fr;

	if (!v6_on) {
		/* No IPv6 prefix configured: not routed, as before. */
		cpe.st.drop_not_ip++;
		rte_pktmbuf_free(m);
		return;
	}
	cpe.st.v6.rx++;
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip))
		goto bad;
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	plen = rte_be_to_cpu_16(ip->payload_len);
	/* Jumbograms (payload length 0) are not for an Ethernet CPE. */
	if ((rte_be_to_cpu_32(ip->vtc_flow) >> 28) != 6 || plen == 0 ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + sizeof(*ip) + plen ||
	    IP6_SRC(ip)[0] == 0xff)
		goto bad;
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN + sizeof(*ip) + plen)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) -
				 RTE_ETHER_HDR_LEN - sizeof(*ip) - plen);
	/* The budget of SYNs from the WAN, before any lookup (guard.h). */
	if (cpe.ports[in].wan && !cpe_guard_syn_ok(m))
		goto drop;
	if (IP6_DST(ip)[0] == 0xff || is_local(in, IP6_DST(ip))) {
		/* Multicast: only what the router joined reaches it. */
		if (!cpe_fw_src_ok(in, true, m))
			goto drop;
		fr = frag_verdict(m, &fi);
		if (fr < 0)
			goto drop;
		if (fr == 0 && !cpe_fw_pass(in, -1, m, &x.ct, &fw_cacheable)) {
			if (fi.off != 0)
				cpe_frag_no_first();
			goto drop;
		}
		if (fr == 0 && fi.more && fi.off == 0)
			cpe_frag_first6(&fi, true);
		local_input(in, m, ip, plen);
		return;
	}
	if (is_link_local(IP6_DST(ip)) || is_link_local(IP6_SRC(ip)) ||
	    memcmp(IP6_SRC(ip), (const uint8_t[16]){ 0 }, 16) == 0) {
		/* Link scope (RFC 4291 2.5.6): not ours to forward. */
		cpe.st.v6.drop_scope++;
		goto drop;
	}
	if (!cpe_fw_src_ok(in, false, m))
		goto drop;
	cacheable = cpe.o->flow_cache && cpe_flow6_key(in, m, key) == 0;
	if (ip->hop_limits <= 1) {
		icmp6_error(m, in, ICMP6_TIME_EXCEEDED, 0, 0);
		cpe.st.v6.drop_hop_limit++;
		goto drop;
	}
	if (cpe_route6_lookup(IP6_DST(ip), &out, nh) != 0) {
		icmp6_error(m, in, ICMP6_UNREACH, 0, 0);
		cpe.st.v6.drop_no_route++;
		goto drop;
	}
	if (sizeof(*ip) + plen > cpe.ports[out].mtu) {
		icmp6_error(m, in, ICMP6_TOO_BIG, 0, cpe.ports[out].mtu);
		cpe.st.v6.drop_mtu++;
		goto drop;
	}
	memset(&x, 0, sizeof(x));
	x.sess = UINT32_MAX;
	fr = frag_verdict(m, &fi);
	if (fr < 0)
		goto drop;
	if (fr == 0 && !cpe_fw_pass(in, out, m, &x.ct, &fw_cacheable)) {
		if (fi.off != 0)
			cpe_frag_no_first();
		goto drop;
	}
	if (fr == 1)
		fw_cacheable = false;
	if (fr == 0 && fi.more && fi.off == 0)
		cpe_frag_first6(&fi, false);
	/* SYNs: the MSS the smaller MTU of the two sides allows. */
	if (ip->proto == IPPROTO_TCP && rte_pktmbuf_data_len(m) >=
	    RTE_ETHER_HDR_LEN + sizeof(*ip) + 20)
		cpe_mss_clamp((uint8_t *)(ip + 1), RTE_MIN(plen,
			(uint32_t)rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN -
			(uint32_t)sizeof(*ip)), RTE_MIN(cpe.ports[in].mtu,
			cpe.ports[out].mtu) - 60u);
	x.out = out;
	x.mtu = cpe.ports[out].mtu;
	rte_ether_addr_copy(&cpe.ports[out].mac, &x.smac);
	ip->hop_limits--;
	rte_ether_addr_copy(&x.smac, &eh->src_addr);
	cpe.st.v6.fwd++;
	if (cpe_nd6_resolve(out, nh, m, &x.dmac) != 0)
		return;		/* queued until ND answers, or dropped */
	rte_ether_addr_copy(&x.dmac, &eh->dst_addr);
	cpe_tx(out, m);
	if (cacheable && fw_cacheable)
		cpe_fw_link(x.ct, in, cpe_flow6_learn(key, &x));
	return;
bad:
	cpe.st.v6.drop_bad++;
drop:
	rte_pktmbuf_free(m);
}

/* fe80::/64 with the modified EUI-64 of the MAC (RFC 4291 2.5.1). */
static void
link_local(const struct rte_ether_addr *mac, uint8_t *a)
{
	const uint8_t *b = mac->addr_bytes;

	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = b[0] ^ 0x02;
	a[9] = b[1];
	a[10] = b[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = b[3];
	a[14] = b[4];
	a[15] = b[5];
}

/*
 * The groups a DPDK port must hear: all-nodes, all-routers (router
 * solicitations for the control plane) and the solicited-node group of
 * each address of each interface on it (its VLAN sub-interfaces share
 * the filter). Without a multicast filter, all multicast.
 */
static void
join_groups(uint16_t port_id)
{
	struct rte_ether_addr mc[2 + CPE_MAX_PORTS * (1 + CPE_MAX_IP6)];
	const struct cpe_port *p;
	uint32_t n = 0;
	uint16_t j;
	uint8_t i;

	mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } };
	mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 2 } };
	for (j = 0; j < cpe.nb_ports; j++) {
		p = &cpe.ports[j];
		if (p->id != port_id)
			continue;
		mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0xff,
			p->ll6[13], p->ll6[14], p->ll6[15] } };
		for (i = 0; i < p->nb_ip6; i++)
			mc[n++] = (struct rte_ether_addr){ { 0x33, 0x33, 0xff,
				p->ip6[i].a[13], p->ip6[i].a[14],
				p->ip6[i].a[15] } };
	}
	if (rte_eth_dev_set_mc_addr_list(port_id, mc, n) != 0 &&
	    rte_eth_allmulticast_enable(port_id) != 0)
		fprintf(stderr, "ch39x-cpe: port %u: neither a multicast "
			"filter nor all-multicast: IPv6 neighbour discovery "
			"may not hear solicitations\n", port_id);
}

/* Connected routes from the prefixes, then --route's IPv6 routes. */
static int
setup_routes(void)
{
	const struct cpe_opts *o = cpe.o;
	char pb[INET6_ADDRSTRLEN], gb[INET6_ADDRSTRLEN];
	uint8_t pfx[16];
	uint16_t i, j;
	int rc;

	rc = cpe_route6_init();
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: cannot create the IPv6 route "
			"table: %s\n", rte_strerror(rte_errno));
		return rc;
	}
	for (i = 0; i < cpe.nb_ports; i++) {
		for (j = 0; j < cpe.ports[i].nb_ip6; j++) {
			const struct cpe_ip6 *a = &cpe.ports[i].ip6[j];

			cpe_ip6_prefix_of(pfx, a->a, a->plen);
			rc = cpe_route6_add(pfx, a->plen, NULL, i);
			if (rc != 0) {
				fprintf(stderr, "ch39x-cpe: port %u: cannot "
					"add a connected IPv6 route: %s\n",
					cpe.ports[i].id, rte_strerror(-rc));
				return rc;
			}
		}
	}
	for (i = 0; i < o->nb_routes6; i++) {
		const struct cpe_route6_cfg *r = &o->routes6[i];

		rc = cpe_ip6_gw_port(r->gw);
		if (rc < 0) {
			cpe_ip6_fmt(pb, sizeof(pb), r->prefix.a);
			cpe_ip6_fmt(gb, sizeof(gb), r->gw);
			fprintf(stderr, "ch39x-cpe: --route %s/%u,%s: the "
				"gateway is on no port's prefix; allowed "
				"gateways are addresses of the --lan/--wan "
				"IPv6 prefixes, or link-local ones (on the "
				"WAN)\n", pb, r->prefix.plen, gb);
			return -EINVAL;
		}
		rc = cpe_route6_add(r->prefix.a, r->prefix.plen, r->gw,
				    (uint16_t)rc);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: --route: cannot add IPv6 "
				"route %u of %u: %s\n", i + 1, o->nb_routes6,
				rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int
cpe_ip6_setup(void)
{
	const struct cpe_opts *o = cpe.o;
	uint16_t i;
	int rc;

	for (i = 0; i < cpe.nb_ports; i++) {
		struct cpe_port *p = &cpe.ports[i];

		p->nb_ip6 = o->ports[i].nb_ip6;
		memcpy(p->ip6, o->ports[i].ip6, sizeof(p->ip6));
		link_local(&p->mac, p->ll6);
		/* A LAN waiting for its delegated prefix routes IPv6 too. */
		if (p->nb_ip6 || o->ports[i].pd)
			v6_on = true;
	}
	if (!v6_on)
		return 0;
	for (i = 0; i < cpe.nb_phys; i++)
		join_groups(cpe.phys[i].id);
	icmp_tokens = ICMP6_BURST;
	icmp_refill = cpe.now;
	rc = setup_routes();
	if (rc == 0)
		rc = cpe_nd6_init();
	if (rc == 0 && o->flow_cache && (rc = cpe_flow6_init()) != 0)
		fprintf(stderr, "ch39x-cpe: --flow-entries %u: cannot create "
			"the IPv6 flow cache: %s; give EAL more memory (-m)\n",
			o->flow_entries, rte_strerror(-rc));
	return rc;
}

/*
 * The port a gateway is reached by, or -1: the one whose prefix holds it
 * (a connected route: the next hop is the gateway itself, and not the
 * router), or for a link-local gateway the WAN (the ISP's router as its
 * advertisements name it; a LAN's routers are the LAN's own business).
 */
int
cpe_ip6_gw_port(const uint8_t *gw)
{
	uint8_t nh[16];
	uint16_t out;

	if (is_link_local(gw))
		return cpe.wan >= 0 && !cpe_ip6_is_mine(cpe.wan, gw) ?
			cpe.wan : -1;
	if (cpe_route6_lookup(gw, &out, nh) != 0 || memcmp(nh, gw, 16) != 0 ||
	    cpe_ip6_is_mine(out, gw))
		return -1;
	return out;
}

/*
 * Port idx's address from a delegated prefix (a, a /64; NULL: none any
 * more), replacing the one it had: the address is the last of the port's
 * (static ones first), with its connected route and its solicited-node
 * group. On the forwarding lcore (wan6.c, a telemetry command).
 */
int
cpe_ip6_port_pd(uint16_t idx, const uint8_t *a)
{
	struct cpe_port *p = &cpe.ports[idx];
	struct cpe_ip6 *e;
	uint8_t pfx[16];
	int rc = 0;

	if (p->pd6) {
		e = &p->ip6[p->nb_ip6 - 1];
		cpe_ip6_prefix_of(pfx, e->a, e->plen);
		cpe_route6_del(pfx, e->plen);
		p->nb_ip6--;
		p->pd6 = false;
	}
	if (a != NULL && p->nb_ip6 < CPE_MAX_IP6) {
		e = &p->ip6[p->nb_ip6];
		memcpy(e->a, a, 16);
		e->plen = 64;
		cpe_ip6_prefix_of(pfx, a, 64);
		rc = cpe_route6_add(pfx, 64, NULL, idx);
		if (rc == 0) {
			p->nb_ip6++;
			p->pd6 = true;
		}
	} else if (a != NULL) {
		rc = -ENOSPC;
	}
	join_groups(p->id);
	return rc;
}
