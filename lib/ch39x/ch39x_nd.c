/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <string.h>

#include "ch39x_nd.h"
#include "ch39x_net.h"

const uint8_t ch39x_ip6_all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t
be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* ---- ARP ---- */

int
ch39x_arp_parse(const uint8_t *p, uint32_t len, struct ch39x_arp *a)
{
	memset(a, 0, sizeof(*a));
	if (len < CH39X_ARP_LEN || be16(p) != 1 ||
	    be16(p + 2) != CH39X_ETHERTYPE_IPV4 || p[4] != 6 || p[5] != 4)
		return -1;
	a->op = be16(p + 6);
	if (a->op != CH39X_ARP_REQUEST && a->op != CH39X_ARP_REPLY) {
		a->op = 0;
		return -1;
	}
	memcpy(a->sha, p + 8, 6);
	memcpy(a->spa, p + 14, 4);
	memcpy(a->tha, p + 18, 6);
	memcpy(a->tpa, p + 24, 4);
	return 0;
}

bool
ch39x_arp_wants_answer(const struct ch39x_arp *a)
{
	static const uint8_t zero[4];

	return a->op == CH39X_ARP_REQUEST && memcmp(a->spa, zero, 4) != 0 &&
		memcmp(a->spa, a->tpa, 4) != 0;
}

uint32_t
ch39x_arp_build(uint8_t *frame, uint32_t cap, const uint8_t eth_dst[6],
		const struct ch39x_arp *a)
{
	uint8_t *p = frame + CH39X_ETH_HLEN;

	if (cap < CH39X_ARP_FRAME_LEN)
		return 0;
	memset(frame, 0, CH39X_ARP_FRAME_LEN);
	memcpy(frame, eth_dst, 6);
	memcpy(frame + 6, a->sha, 6);
	put_be16(frame + 12, CH39X_ETHERTYPE_ARP);
	put_be16(p, 1);
	put_be16(p + 2, CH39X_ETHERTYPE_IPV4);
	p[4] = 6;
	p[5] = 4;
	put_be16(p + 6, a->op);
	memcpy(p + 8, a->sha, 6);
	memcpy(p + 14, a->spa, 4);
	memcpy(p + 18, a->tha, 6);
	memcpy(p + 24, a->tpa, 4);
	return CH39X_ARP_FRAME_LEN;
}

uint32_t
ch39x_arp_answer(uint8_t *frame, uint32_t cap, const struct ch39x_arp *req,
		 const uint8_t mac[6])
{
	struct ch39x_arp r;

	r.op = CH39X_ARP_REPLY;
	memcpy(r.sha, mac, 6);
	memcpy(r.spa, req->tpa, 4);
	memcpy(r.tha, req->sha, 6);
	memcpy(r.tpa, req->spa, 4);
	return ch39x_arp_build(frame, cap, req->sha, &r);
}

/* ---- IPv6 neighbour discovery ---- */

/* The sum of the ICMPv6 pseudo header. */
static uint32_t
icmp6_pseudo(const uint8_t *ip6, uint32_t plen)
{
	uint32_t sum = ch39x_csum_add(0, ip6 + 8, 32);

	sum += plen >> 16;
	sum += plen & 0xFFFF;
	return sum + CH39X_IPPROTO_ICMPV6;
}

/* Pseudo header and payload, the checksum field as it is. */
static uint32_t
icmp6_sum(const uint8_t *ip6, uint32_t plen)
{
	return ch39x_csum_add(icmp6_pseudo(ip6, plen), ip6 + CH39X_IP6_HLEN,
			      plen);
}

uint16_t
ch39x_icmp6_csum(const uint8_t *ip6, uint32_t payload_len)
{
	const uint8_t *m = ip6 + CH39X_IP6_HLEN;
	uint32_t sum = icmp6_pseudo(ip6, payload_len);

	/* Everything but the checksum field (bytes 2 and 3). */
	sum = ch39x_csum_add(sum, m, payload_len < 2 ? payload_len : 2);
	if (payload_len > 4)
		sum = ch39x_csum_add(sum, m + 4, payload_len - 4);
	return (uint16_t)~ch39x_csum_fold(sum);
}

static bool
is_mcast6(const uint8_t a[16])
{
	return a[0] == 0xff;
}

static bool
is_unspec6(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* Walk the options from off; false when one is malformed. */
static bool
nd_options(const uint8_t *m, uint32_t plen, uint32_t off, struct ch39x_nd *n)
{
	uint8_t lla_type = n->type == CH39X_ND_NA ? 2 : 1;

	while (off < plen) {
		const uint8_t *o = m + off;
		uint32_t olen;

		if (plen - off < 2)
			return false;
		olen = (uint32_t)o[1] * 8;
		if (olen == 0 || olen > plen - off)
			return false;
		if (o[0] == lla_type && olen >= 8 && !n->have_lla) {
			n->have_lla = true;
			memcpy(n->lla, o + 2, 6);
		} else if (o[0] == 3 && n->type == CH39X_ND_RA &&
			   !n->have_prefix) {
			if (olen != 32 || o[2] > 128)
				return false;
			n->have_prefix = true;
			n->prefix_len = o[2];
			n->valid = be32(o + 4);
			n->preferred = be32(o + 8);
			memcpy(n->prefix, o + 16, 16);
		} else if (o[0] == 5 && n->type == CH39X_ND_RA) {
			if (olen != 8)
				return false;
			n->mtu = be32(o + 4);
		}
		off += olen;
	}
	return true;
}

int
ch39x_nd_parse(const uint8_t *ip6, uint32_t len, struct ch39x_nd *n)
{
	const uint8_t *m = ip6 + CH39X_IP6_HLEN;
	uint32_t plen, opts;

	memset(n, 0, sizeof(*n));
	if (len < CH39X_IP6_HLEN || (ip6[0] >> 4) != 6 ||
	    ip6[6] != CH39X_IPPROTO_ICMPV6 || ip6[7] != 255)
		return -1;
	plen = be16(ip6 + 4);
	if (plen > len - CH39X_IP6_HLEN || plen < 8 || m[1] != 0)
		return -1;
	switch (m[0]) {
	case CH39X_ND_RS:
		opts = 8;
		break;
	case CH39X_ND_RA:
		opts = 16;
		break;
	case CH39X_ND_NS:
	case CH39X_ND_NA:
		opts = 24;
		break;
	default:
		return -1;
	}
	if (plen < opts ||
	    ch39x_csum_fold(icmp6_sum(ip6, plen)) != 0xFFFF)
		return -1;
	n->type = m[0];
	memcpy(n->src, ip6 + 8, 16);
	memcpy(n->dst, ip6 + 24, 16);
	if (n->type == CH39X_ND_NS || n->type == CH39X_ND_NA) {
		memcpy(n->target, m + 8, 16);
		if (is_mcast6(n->target))
			goto bad;
		if (n->type == CH39X_ND_NA)
			n->flags = m[4] & 0xE0;
	} else if (n->type == CH39X_ND_RA) {
		n->flags = m[5];
		n->router_lifetime = be16(m + 6);
	}
	if (!nd_options(m, plen, opts, n))
		goto bad;
	return 0;
bad:
	memset(n, 0, sizeof(*n));
	return -1;
}

bool
ch39x_nd_ns_wants_answer(const struct ch39x_nd *n)
{
	return n->type == CH39X_ND_NS && !is_unspec6(n->src) &&
		!is_mcast6(n->src);
}

/* The IPv6 header of an ND message of plen bytes; hop limit 255. */
static void
ip6_hdr(uint8_t *ip6, const uint8_t src[16], const uint8_t dst[16],
	uint32_t plen)
{
	memset(ip6, 0, CH39X_IP6_HLEN);
	ip6[0] = 0x60;
	put_be16(ip6 + 4, (uint16_t)plen);
	ip6[6] = CH39X_IPPROTO_ICMPV6;
	ip6[7] = 255;
	memcpy(ip6 + 8, src, 16);
	memcpy(ip6 + 24, dst, 16);
}

static void
icmp6_finish(uint8_t *ip6, uint32_t plen)
{
	put_be16(ip6 + CH39X_IP6_HLEN + 2, ch39x_icmp6_csum(ip6, plen));
}

uint32_t
ch39x_nd_build_na(uint8_t *ip6, uint32_t cap, const struct ch39x_nd *ns,
		  const uint8_t *lla, uint8_t flags)
{
	uint32_t plen = 24 + (lla ? 8 : 0);
	uint8_t *m = ip6 + CH39X_IP6_HLEN;

	if (cap < CH39X_IP6_HLEN + plen)
		return 0;
	ip6_hdr(ip6, ns->target, ns->src, plen);
	memset(m, 0, plen);
	m[0] = CH39X_ND_NA;
	m[4] = flags & 0xE0;
	memcpy(m + 8, ns->target, 16);
	if (lla) {
		m[24] = 2;
		m[25] = 1;
		memcpy(m + 26, lla, 6);
	}
	icmp6_finish(ip6, plen);
	return CH39X_IP6_HLEN + plen;
}

uint32_t
ch39x_nd_build_ra(uint8_t *ip6, uint32_t cap, const struct ch39x_ra *ra)
{
	uint8_t n_dns = ra->n_dns > 2 ? 2 : ra->n_dns;
	uint32_t plen = 16, off, i;
	uint8_t *m = ip6 + CH39X_IP6_HLEN;

	if (ra->prefix_len)
		plen += 32;
	if (ra->mtu)
		plen += 8;
	if (n_dns)
		plen += 8 + 16u * n_dns;
	if (ra->lla)
		plen += 8;
	if (cap < CH39X_IP6_HLEN + plen || ra->prefix_len > 128)
		return 0;
	ip6_hdr(ip6, ra->src, ra->dst, plen);
	memset(m, 0, plen);
	m[0] = CH39X_ND_RA;
	m[4] = 64;			/* cur hop limit */
	put_be16(m + 6, ra->lifetime);
	off = 16;
	if (ra->prefix_len) {
		m[off] = 3;
		m[off + 1] = 4;
		m[off + 2] = ra->prefix_len;
		m[off + 3] = 0xC0;	/* on-link, autonomous */
		put_be32(m + off + 4, ra->valid);
		put_be32(m + off + 8, ra->preferred);
		memcpy(m + off + 16, ra->prefix, 16);
		off += 32;
	}
	if (ra->mtu) {
		m[off] = 5;
		m[off + 1] = 1;
		put_be32(m + off + 4, ra->mtu);
		off += 8;
	}
	if (n_dns) {
		m[off] = 25;		/* RDNSS, RFC 8106 */
		m[off + 1] = (uint8_t)(1 + 2 * n_dns);
		put_be32(m + off + 4, ra->dns_lifetime);
		for (i = 0; i < n_dns; i++)
			memcpy(m + off + 8 + 16 * i, ra->dns[i], 16);
		off += 8 + 16u * n_dns;
	}
	if (ra->lla) {
		m[off] = 1;
		m[off + 1] = 1;
		memcpy(m + off + 2, ra->lla, 6);
	}
	icmp6_finish(ip6, plen);
	return CH39X_IP6_HLEN + plen;
}

void
ch39x_ip6_mcast_mac(const uint8_t ip6[16], uint8_t mac[6])
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(mac + 2, ip6 + 12, 4);
}

void
ch39x_ip4_mcast_mac(const uint8_t ip4[4], uint8_t mac[6])
{
	mac[0] = 0x01;
	mac[1] = 0x00;
	mac[2] = 0x5e;
	mac[3] = ip4[1] & 0x7F;
	mac[4] = ip4[2];
	mac[5] = ip4[3];
}
