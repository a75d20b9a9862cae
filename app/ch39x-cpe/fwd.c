/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The slow path: every packet the flow cache did not take. ARP; IPv4
 * checks; packets for the router (echo requests answered); replies to NAT
 * sessions on the WAN address; TTL (ICMP time exceeded); the route
 * (ICMP net unreachable); NAPT towards the WAN; the egress MTU (ICMP
 * fragmentation needed when DF is set); the next hop's MAC; the firewall
 * (fw_glue.c) on sources, on what reaches the router and on routed
 * packets. The rewrite is
 * the same cpe_xlate the fast path applies, and a packet the cache could
 * have taken installs it.
 */

#include <errno.h>
#include <string.h>

#include <rte_icmp.h>
#include <rte_ip.h>

#include "cpe.h"

/* The subnet's broadcast address of port in (none on a /32: PPP). */
static bool
is_bcast(uint32_t dst, uint16_t in)
{
	return cpe.ports[in].mask != ~0u &&
		dst == (cpe.ports[in].ip | ~cpe.ports[in].mask);
}

static bool
is_local(uint32_t dst, uint16_t in)
{
	uint16_t i;

	/* Broadcasts and multicasts (224/4) are for the control plane:
	 * never routed (RFC 1812 5.3.5).
	 */
	if (dst == 0xffffffff || (dst >> 28) == 14 || is_bcast(dst, in))
		return true;
	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe.ports[i].ip == dst)
			return true;
	return false;
}

/* A packet the router made (IPv4 header complete but its checksum). */
static void
send_local(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	uint32_t nh;
	uint16_t out;

	if (cpe_route_lookup(rte_be_to_cpu_32(ip->dst_addr), &out, &nh)) {
		cpe.st.drop_no_route++;
		rte_pktmbuf_free(m);
		return;
	}
	ip->hdr_checksum = 0;
	if (cpe.ports[out].ip_csum_offload) {
		/* The port has the offload: leave the sum to it. */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
		m->l2_len = sizeof(*eh);
		m->l3_len = rte_ipv4_hdr_len(ip);
	} else {
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	rte_ether_addr_copy(&cpe.ports[out].mac, &eh->src_addr);
	if (cpe_neigh_resolve(out, nh, m, &eh->dst_addr) == 0)
		cpe_tx(out, m);
}

/*
 * ICMP error about packet m (which the caller still frees), from the
 * address of the port it came in on, quoting as much of it as fits in
 * 576 bytes (RFC 1812).
 */
static void
icmp_error(struct rte_mbuf *m, uint16_t in, uint8_t type, uint8_t code,
	   uint16_t mtu)
{
	const struct rte_ipv4_hdr *oip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t olen = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN, q;
	uint32_t src = rte_be_to_cpu_32(oip->src_addr);
	const uint8_t *ol4 = (const uint8_t *)oip + rte_ipv4_hdr_len(oip);
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *ic;
	struct rte_mbuf *e;
	const void *quoted;
	uint8_t *p;

	/* Never about an ICMP error, a later fragment, or a non-unicast. */
	if ((oip->fragment_offset &
	     rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) ||
	    src == 0 || (src >> 28) >= 14 || (src >> 24) == 127 ||
	    (oip->next_proto_id == IPPROTO_ICMP &&
	     ol4[0] != RTE_ICMP_TYPE_ECHO_REQUEST &&
	     ol4[0] != RTE_ICMP_TYPE_ECHO_REPLY))
		return;
	e = rte_pktmbuf_alloc(cpe.pool);
	if (e == NULL) {
		cpe.st.drop_nomem++;
		return;
	}
	q = RTE_MIN(olen, (uint32_t)CPE_ICMP_QUOTE - 20 - 8);
	p = (uint8_t *)rte_pktmbuf_append(e, RTE_ETHER_HDR_LEN + 20 + 8 + q);
	if (p == NULL) {
		rte_pktmbuf_free(e);
		return;
	}
	/* In a new mbuf's headroom: 2-aligned after the Ethernet header. */
	ip = (struct rte_ipv4_hdr *)(void *)(p + RTE_ETHER_HDR_LEN);
	ic = (struct rte_icmp_hdr *)(ip + 1);
	memset(ip, 0, 20 + 8);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + 8 + q));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = cpe.ports[in].ip_be;
	ip->dst_addr = oip->src_addr;
	ic->icmp_type = type;
	ic->icmp_code = code;
	/* Fragmentation needed: the next-hop MTU in the low 16 bits. */
	ic->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	/* A pointer into m when contiguous, else copied into ic + 1. */
	quoted = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, q, ic + 1);
	if (quoted != NULL && quoted != (const void *)(ic + 1))
		memcpy(ic + 1, quoted, q);
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, 8 + q);
	if (type == 11)
		cpe.st.icmp_ttl++;
	else if (code == 4)
		cpe.st.icmp_frag_needed++;
	else
		cpe.st.icmp_unreach++;
	send_local(e);
}

static void
local_input(uint16_t in, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	    uint8_t *l4, uint32_t l4_len)
{
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)l4;
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	uint16_t old;

	RTE_SET_USED(in);
	if (ip->next_proto_id != IPPROTO_ICMP || l4_len < 8 ||
	    ic->icmp_type != RTE_ICMP_TYPE_ECHO_REQUEST ||
	    (ip->fragment_offset &
	     rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
			      RTE_IPV4_HDR_OFFSET_MASK)) ||
	    !is_local(dst, in) || dst == 0xffffffff || (dst >> 28) == 14 ||
	    is_bcast(dst, in)) {
		cpe_punt(in, m);
		return;
	}
	/* The echo reply in place: only the type word of ICMP changes. */
	memcpy(&old, ic, 2);
	ic->icmp_type = RTE_ICMP_TYPE_ECHO_REPLY;
	ic->icmp_cksum = cpe_csum_update(ic->icmp_cksum,
		cpe_adj16(0, old, cpe_get16((uint8_t *)ic)));
	ip->dst_addr = ip->src_addr;
	ip->src_addr = rte_cpu_to_be_32(dst);
	ip->time_to_live = 64;
	cpe.st.icmp_echo_replies++;
	send_local(m);
}

static bool
is_icmp_error(const struct rte_ipv4_hdr *ip, const uint8_t *l4,
	      uint32_t l4_len)
{
	return ip->next_proto_id == IPPROTO_ICMP && l4_len >= 8 &&
		(l4[0] == 3 || l4[0] == 11 || l4[0] == 12);
}

/*
 * IPv4 header checks: 0 and *ip, *tot set (Ethernet padding trimmed), or
 * -1 for a bad packet.
 */
static int
ip4_check(struct rte_mbuf *m, struct rte_ipv4_hdr **ipp, uint32_t *totp)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip);
	uint32_t tot = rte_be_to_cpu_16(ip->total_length);

	if ((ip->version_ihl >> 4) != 4 || ihl < 20 ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + ihl || tot < ihl ||
	    rte_pktmbuf_pkt_len(m) < RTE_ETHER_HDR_LEN + tot)
		return -1;
	if (!(m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_GOOD) &&
	    rte_ipv4_cksum(ip) != 0)
		return -1;
	/* Ethernet padding of short frames is not ours to forward. */
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN + tot)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) -
				 RTE_ETHER_HDR_LEN - tot);
	*ipp = ip;
	*totp = tot;
	return 0;
}

/* How a packet for one of the router's addresses goes on. */
enum local_verdict { LOCAL_DONE, LOCAL_NAT_IN, LOCAL_ICMP_XLATED };

/*
 * A packet for the router: a reply of a NAT session or an ICMP error
 * about one on the WAN address goes on (translated), the rest is the
 * router's if the firewall's input policy lets it in (consumed).
 */
static enum local_verdict
to_router(uint16_t in, struct rte_mbuf *m, struct rte_ipv4_hdr *ip,
	  uint8_t *l4, uint32_t l4_len, bool frag,
	  const struct cpe_frag_info *first, struct cpe_xlate *x)
{
	uint32_t ct;
	bool c;
	int rc;

	if (cpe.o->nat && cpe.wan >= 0 && cpe.ports[in].wan &&
	    ip->dst_addr == cpe.ports[in].ip_be && !frag) {
		if (is_icmp_error(ip, l4, l4_len)) {
			if (cpe_nat_icmp_error(m, true) == 0)
				return LOCAL_ICMP_XLATED;
		} else if (cpe_nat_in_lookup(m, x, l4, l4_len) == 0 ||
			   (rc = cpe_nat_forward_in(m, x, l4, l4_len)) == 0) {
			return LOCAL_NAT_IN;
		} else if (rc == -EBUSY) {
			/* A forward's new connection refused (guard.h). */
			rte_pktmbuf_free(m);
			return LOCAL_DONE;
		}
	} else if (cpe.o->nat && cpe.wan >= 0 && cpe.o->fw.nb_fwd && !frag &&
		   !cpe.ports[in].wan) {
		/* Hairpin NAT: to the WAN address's forwarded ports, and
		 * the LAN host's replies to the router's LAN address.
		 */
		if ((ip->dst_addr == cpe.ports[cpe.wan].ip_be &&
		     cpe_nat_hairpin(m, x, l4, l4_len) == 0) ||
		    (ip->dst_addr == cpe.ports[in].ip_be &&
		     cpe_nat_in_lookup(m, x, l4, l4_len) == 0))
			return LOCAL_NAT_IN;
	}
	if (!cpe_fw_pass(in, -1, m, &ct, &c)) {
		rte_pktmbuf_free(m);
		return LOCAL_DONE;
	}
	/* Its later fragments are the router's too (frag_glue.c). */
	if (first != NULL)
		cpe_frag_first4(first, -1, 0, NULL);
	local_input(in, m, ip, l4, l4_len);
	return LOCAL_DONE;
}

void
cpe_slow_input(uint16_t in, struct rte_mbuf *m)
{
	uint8_t key[CPE_FLOW_KEY_LEN];
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct cpe_xlate x;
	struct cpe_frag_info fi;
	uint32_t tot, l4_len, nh;
	bool frag, first = false, split = false;
	bool local, cacheable, fw_cacheable, nat_in = false;
	bool icmp_xlated = false;
	bool nat = cpe.o->nat && cpe.wan >= 0;
	enum local_verdict lv;
	uint16_t out;
	uint8_t *l4;
	int rc;

	cpe.st.slow_pkts++;
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 20)
		goto bad;
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP)) {
		cpe_arp_input(in, m);
		return;
	}
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		cpe_ip6_input(in, m);	/* fwd6.c */
		return;
	}
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
		/* The rest: not routed (see the guide). */
		cpe.st.drop_not_ip++;
		rte_pktmbuf_free(m);
		return;
	}
	if (ip4_check(m, &ip, &tot) != 0)
		goto bad;
	/* The budget of SYNs from the WAN, before any lookup (guard.h). */
	if (cpe.ports[in].wan && !cpe_guard_syn_ok(m))
		goto drop;
	cacheable = cpe.o->flow_cache && cpe_flow_key(in, m, key) == 0;
	l4 = (uint8_t *)ip + rte_ipv4_hdr_len(ip);
	l4_len = RTE_MIN(tot, (uint32_t)rte_pktmbuf_data_len(m) -
			 RTE_ETHER_HDR_LEN) - rte_ipv4_hdr_len(ip);
	frag = (ip->fragment_offset &
		rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
				 RTE_IPV4_HDR_OFFSET_MASK)) != 0;
	memset(&x, 0, sizeof(x));
	x.sess = UINT32_MAX;
	x.ct = UINT32_MAX;
	local = is_local(rte_be_to_cpu_32(ip->dst_addr), in);
	if (!cpe_fw_src_ok(in, local, m))
		goto drop;
	if (frag) {
		/* Tiny or malformed: dropped (counted); a later fragment
		 * of a datagram whose first went on: the same way.
		 */
		rc = cpe_frag_info(m, &fi);
		if (rc < 0)
			goto drop;
		if (rc == 1 && fi.off != 0 && cpe_frag_later4(in, m, &fi))
			return;
		first = rc == 1 && fi.off == 0;
	}

	if (local) {
		lv = to_router(in, m, ip, l4, l4_len, frag && !first,
			       first ? &fi : NULL, &x);
		if (lv == LOCAL_DONE)
			return;
		nat_in = lv == LOCAL_NAT_IN;
		icmp_xlated = lv == LOCAL_ICMP_XLATED;
	} else if (nat && cpe.ports[in].wan) {
		/* Behind NAPT, LAN hosts are reached through sessions only. */
		cpe.st.nat_no_mapping++;
		if (cpe_fw_on)
			cpe_fw_drop(&cpe_fw, CPE_FW_DROP_FWD_NEW);
		goto drop;
	}
	if (ip->time_to_live <= 1) {
		icmp_error(m, in, 11, 0, 0);
		cpe.st.drop_ttl++;
		goto drop;
	}
	if (cpe_route_lookup(rte_be_to_cpu_32(nat_in ? x.dip : ip->dst_addr),
			     &out, &nh) != 0) {
		icmp_error(m, in, 3, 0, 0);
		cpe.st.drop_no_route++;
		goto drop;
	}
	if (nat && !nat_in && !icmp_xlated && cpe.ports[out].wan &&
	    !cpe.ports[in].wan) {
		/* NAPT: its session is the connection's state. */
		if (is_icmp_error(ip, l4, l4_len)) {
			if (cpe_nat_icmp_error(m, false) != 0)
				goto drop_nat;
			icmp_xlated = true;
		} else if (frag && !first) {
			/* NAPT needs the ports, only in the first fragment:
			 * one not seen (or --frag-max 0), nothing to follow.
			 */
			cpe_frag_no_first();
			cpe.st.drop_frag++;
			goto drop;
		} else if (cpe.ports[out].ip == 0) {
			/* --wan PORT=dhcp before its lease: nothing to NAT to. */
			cpe.st.wan_no_addr++;
			goto drop;
		} else if (cpe_nat_out(m, &x, l4, l4_len) != 0) {
			goto drop_nat;
		}
	} else if (!nat_in && !icmp_xlated) {
		/* Routed (--no-nat, or between LANs): the zone policy. */
		if (!cpe_fw_pass(in, out, m, &x.ct, &fw_cacheable))
			goto drop;
		cacheable = cacheable && fw_cacheable;
	}
	if (tot > cpe.ports[out].mtu) {
		if (ip->fragment_offset &
		    rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) {
			icmp_error(m, in, 3, 4, cpe.ports[out].mtu);
			cpe.st.drop_mtu++;
			goto drop;
		}
		split = true;	/* DF clear: cut into fragments below */
		cacheable = false;
	}
	/* SYNs: the MSS the smaller MTU of the two sides allows. */
	if (ip->next_proto_id == IPPROTO_TCP && !frag)
		cpe_mss_clamp(l4, l4_len, RTE_MIN(cpe.ports[in].mtu,
						  cpe.ports[out].mtu) - 40u);
	if (first)
		cpe_frag_first4(&fi, out, nh, &x);
	x.out = out;
	x.mtu = cpe.ports[out].mtu;
	rte_ether_addr_copy(&cpe.ports[out].mac, &x.smac);
	cpe_xlate_prepare(m, &x);
	cpe_xlate_apply(m, &x);
	if (split) {
		cpe_frag_split4(out, nh, m);
		return;
	}
	rc = cpe_neigh_resolve(out, nh, m, &x.dmac);
	if (rc != 0)
		return;		/* queued until ARP answers, or dropped */
	rte_ether_addr_copy(&x.dmac, &eh->dst_addr);
	cpe_tx(out, m);
	if (cacheable && !icmp_xlated &&
	    (x.sess == UINT32_MAX || cpe_nat_sess_cacheable(x.sess)))
		cpe_flow_learn(in, key, &x);
	return;
drop_nat:
	cpe.st.nat_no_mapping++;
	goto drop;
bad:
	cpe.st.drop_bad++;
drop:
	rte_pktmbuf_free(m);
}
