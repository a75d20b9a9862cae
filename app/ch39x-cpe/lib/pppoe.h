/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_PPPOE_H
#define CH39X_CPE_PPPOE_H

/*
 * PPPoE (RFC 2516) session frames on the WAN: what a received frame is,
 * and the 8 bytes that make an IP packet a session frame. Pure functions
 * over buffers (no DPDK): pppoe_glue.c uses them on mbufs, the unit test
 * and the fuzzer on byte arrays.
 *
 *   Ethernet: dst(6) src(6) type 0x8864 (session) or 0x8863 (discovery)
 *   PPPoE:    ver/type 0x11, code 0x00, session id (2), length (2)
 *   PPP:      protocol (2): 0x0021 IPv4, 0x0057 IPv6, the rest control
 *             (LCP 0xc021, PAP 0xc023, CHAP 0xc223, IPCP 0x8021,
 *             IPv6CP 0x8057, ...); then the payload
 *
 * PPPoE's length counts the PPP protocol and payload, not the Ethernet
 * padding after them. The protocol is never compressed on PPPoE (RFC
 * 2516 7: PFC not recommended; Linux pppd's rp-pppoe plugin refuses it):
 * a 1-byte protocol is control traffic, for pppd to judge.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define CPE_ETH_PPPOE_DISC	0x8863
#define CPE_ETH_PPPOE_SESS	0x8864
#define CPE_PPPOE_HLEN		6	/* ver/type, code, session, length */
#define CPE_PPPOE_OVERHEAD	8	/* that and the PPP protocol */
#define CPE_PPP_IPV4		0x0021
#define CPE_PPP_IPV6		0x0057

/* What a frame from the WAN is (cpe_pppoe_parse). */
enum cpe_pppoe_kind {
	CPE_PPPOE_NONE,		/* not PPPoE (another ethertype) */
	CPE_PPPOE_DISC,		/* discovery: PADO, PADS, PADT, ... */
	CPE_PPPOE_IPV4,		/* our session, an IPv4 packet */
	CPE_PPPOE_IPV6,		/* our session, an IPv6 packet */
	CPE_PPPOE_CTL,		/* our session, PPP control (LCP, ...) */
	CPE_PPPOE_OTHER,	/* a session frame of another session/peer */
	CPE_PPPOE_BAD,		/* malformed session frame */
};

/* The session the router carries: id and the concentrator's MAC. */
struct cpe_pppoe_sess {
	uint16_t sid;		/* host order; 0 is no session (RFC 2516) */
	uint8_t ac[6];
};

/*
 * What the untagged Ethernet frame f of len bytes is for session s (NULL
 * or sid 0: none yet, every session frame is OTHER), the concentrator
 * its source (from the WAN) or, with to_ac, its destination (pppd's
 * frames from the TAP). For IPV4/IPV6, *ip_len is the IP packet's
 * length per PPPoE's length field (it starts at f + 22; the frame may be
 * longer by padding).
 */
enum cpe_pppoe_kind cpe_pppoe_parse(const uint8_t *f, uint32_t len,
				    const struct cpe_pppoe_sess *s, bool to_ac,
				    uint32_t *ip_len);

/*
 * The 8 bytes after the MAC addresses' 12 that carry an IP packet of
 * ip_len bytes in session sid: type 0x8864, the PPPoE header and the PPP
 * protocol (CPE_PPP_IPV4 or CPE_PPP_IPV6). h points at the Ethernet
 * type field; it gets 2 + 8 bytes. ip_len at most 65533. Inline: the
 * forwarding path's cpe_tx() writes every session header with it.
 */
static inline void
cpe_pppoe_hdr(uint8_t *h, uint16_t sid, uint16_t proto, uint32_t ip_len)
{
	uint16_t len = (uint16_t)(ip_len + 2);

	h[0] = CPE_ETH_PPPOE_SESS >> 8;
	h[1] = CPE_ETH_PPPOE_SESS & 0xff;
	h[2] = 0x11;
	h[3] = 0;
	h[4] = (uint8_t)(sid >> 8);
	h[5] = (uint8_t)sid;
	h[6] = (uint8_t)(len >> 8);
	h[7] = (uint8_t)len;
	h[8] = (uint8_t)(proto >> 8);
	h[9] = (uint8_t)proto;
}

/* cpe_pppoe_tmpl()'s length. */
#define CPE_PPPOE_TMPL_LEN	18

/*
 * The bytes of a session frame's header that the session decides: the
 * concentrator's MAC, 6 bytes for the source (written over per frame),
 * type 0x8864, ver/type, code and the session id. Made once when the
 * session comes up, so that the forwarding path copies them in two moves
 * (cpe_pppoe_hdr_tmpl()) rather than writing each per frame.
 */
static inline void
cpe_pppoe_tmpl(uint8_t t[CPE_PPPOE_TMPL_LEN], const uint8_t ac[6],
	       uint16_t sid)
{
	memcpy(t, ac, 6);
	memset(t + 6, 0, 6);
	t[12] = CPE_ETH_PPPOE_SESS >> 8;
	t[13] = CPE_ETH_PPPOE_SESS & 0xff;
	t[14] = 0x11;
	t[15] = 0;
	t[16] = (uint8_t)(sid >> 8);
	t[17] = (uint8_t)sid;
}

/*
 * The 22 bytes before an IP packet of ip_len bytes in the session of
 * template t (cpe_pppoe_tmpl()), at h: the concentrator's MAC, src (6
 * bytes, which may lie inside those 22: read first), then
 * cpe_pppoe_hdr()'s 10 bytes. proto is CPE_PPP_IPV4 or CPE_PPP_IPV6 (one
 * byte each: the caller has told the two apart).
 */
static inline void
cpe_pppoe_hdr_tmpl(uint8_t *h, const uint8_t t[CPE_PPPOE_TMPL_LEN],
		   const uint8_t *src, uint16_t proto, uint32_t ip_len)
{
	uint16_t len = (uint16_t)(ip_len + 2), s2;
	uint32_t s4;

	/* The source in two words (an array would be kept on the stack). */
	memcpy(&s4, src, 4);
	memcpy(&s2, src + 4, 2);
	memcpy(h, t, 16);
	memcpy(h + 6, &s4, 4);
	memcpy(h + 10, &s2, 2);
	memcpy(h + 16, t + 16, 2);
	h[18] = (uint8_t)(len >> 8);
	h[19] = (uint8_t)len;
	h[20] = 0;
	h[21] = (uint8_t)proto;
}

/*
 * Whether IPv6 destination dst (16 bytes) of a packet that came in our
 * session is the router's though none of its addresses: a link-local
 * unicast one (fe80::/10). IPv6CP (RFC 5072) gives pppd's interface its
 * link-local address from an interface identifier the two ends agree
 * on, which the router never learns; a PPP link has two ends, so such a
 * destination can only be this one (DHCPv6's replies to pppd's address,
 * the concentrator's echo requests). Multicast is decided elsewhere.
 */
bool cpe_pppoe_ll_is_ours(const uint8_t *dst);

#endif
