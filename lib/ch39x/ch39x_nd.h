/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_ND_H
#define CH39X_ND_H

/*
 * Address resolution where there is no link to resolve on: an MBIM
 * session carries raw IP (§21), so whoever presents it as Ethernet
 * answers ARP and IPv6 neighbour discovery itself, as Linux cdc_mbim does
 * for neighbour solicitations. The PMD answers its application's ARP
 * requests and solicitations for the session's peer; the simulated modem
 * answers the host's router solicitations with advertisements carrying
 * the session's prefix and, on its cable, ARP and solicitations for the
 * addresses it routes (§24). Pure functions over caller buffers: RFC 826
 * ARP over Ethernet and the RFC 4861 messages (RFC 8106 DNS option);
 * every length and option is checked before it is read.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CH39X_ETHERTYPE_ARP	0x0806
#define CH39X_ARP_LEN		28	/* after the Ethernet header */
#define CH39X_ARP_REQUEST	1
#define CH39X_ARP_REPLY		2
/* An ARP frame padded to Ethernet's 60-byte minimum. */
#define CH39X_ARP_FRAME_LEN	60

struct ch39x_arp {
	uint16_t op;
	uint8_t sha[6];
	uint8_t spa[4];
	uint8_t tha[6];
	uint8_t tpa[4];
};

/*
 * Parse the ARP packet at p (after the Ethernet header): Ethernet
 * hardware, IPv4 protocol, 6- and 4-byte addresses, request or reply.
 * Returns 0 or -1.
 */
int ch39x_arp_parse(const uint8_t *p, uint32_t len, struct ch39x_arp *a);
/*
 * An ARP request that someone other than its sender must answer: not an
 * address probe (sender 0.0.0.0, RFC 5227) and not an announcement
 * (sender and target the same address).
 */
bool ch39x_arp_wants_answer(const struct ch39x_arp *a);
/*
 * Write the whole Ethernet frame of an ARP message, padded to 60 bytes:
 * Ethernet destination eth_dst, source a->sha. Returns 60, or 0 when cap
 * is smaller.
 */
uint32_t ch39x_arp_build(uint8_t *frame, uint32_t cap,
			 const uint8_t eth_dst[6], const struct ch39x_arp *a);
/*
 * The reply to request req for its target, at hardware address mac:
 * sender (mac, req->tpa), target (req->sha, req->spa), to req->sha.
 */
uint32_t ch39x_arp_answer(uint8_t *frame, uint32_t cap,
			  const struct ch39x_arp *req, const uint8_t mac[6]);

/* ---- IPv6 neighbour discovery (RFC 4861) ---- */

#define CH39X_IP6_HLEN		40
#define CH39X_IPPROTO_ICMPV6	58
#define CH39X_ND_RS		133
#define CH39X_ND_RA		134
#define CH39X_ND_NS		135
#define CH39X_ND_NA		136
/* NA flags. */
#define CH39X_NA_ROUTER		0x80u
#define CH39X_NA_SOLICITED	0x40u
#define CH39X_NA_OVERRIDE	0x20u

struct ch39x_nd {
	uint8_t type;
	uint8_t src[16];	/* the IPv6 header's */
	uint8_t dst[16];
	uint8_t target[16];	/* NS, NA */
	uint8_t flags;		/* NA: R, S, O; RA: M, O */
	bool have_lla;		/* a source (NS, RS, RA) or target (NA) */
	uint8_t lla[6];		/* link-layer address option */
	uint16_t router_lifetime;	/* RA */
	bool have_prefix;	/* RA: the first prefix information option */
	uint8_t prefix_len;
	uint8_t prefix[16];
	uint32_t valid;
	uint32_t preferred;
	uint32_t mtu;		/* RA: the MTU option, 0 without */
};

/*
 * Parse an IPv6 packet (ip6: its first byte) that is a neighbour
 * discovery message: version 6, next header ICMPv6 directly, the payload
 * inside len, hop limit 255, code 0, a right ICMPv6 checksum, the
 * message's minimum length, options of non-zero length inside the
 * payload. Returns 0, or -1 for anything else (other packets included).
 */
int ch39x_nd_parse(const uint8_t *ip6, uint32_t len, struct ch39x_nd *n);

/*
 * A neighbour solicitation someone else must answer: not duplicate
 * address detection (source ::) and with a unicast source.
 */
bool ch39x_nd_ns_wants_answer(const struct ch39x_nd *n);

/*
 * Build IPv6 packets (no Ethernet header), hop limit 255, checksummed.
 * Each returns the packet's length, or 0 when cap is too small.
 *
 * The advertisement answering solicitation ns for its target: from the
 * target to the solicitation's source, flags as given (RFC 4861 7.2.4),
 * with a target link-layer option when lla is not NULL.
 */
uint32_t ch39x_nd_build_na(uint8_t *ip6, uint32_t cap,
			   const struct ch39x_nd *ns, const uint8_t *lla,
			   uint8_t flags);

struct ch39x_ra {
	uint8_t src[16];	/* the router's link-local address */
	uint8_t dst[16];	/* ff02::1, or the soliciting host */
	uint16_t lifetime;	/* router lifetime, seconds */
	uint8_t prefix[16];	/* the on-link, autonomous /prefix_len */
	uint8_t prefix_len;	/* 0: no prefix option */
	uint32_t valid;
	uint32_t preferred;
	uint32_t mtu;		/* 0: no MTU option */
	uint8_t n_dns;		/* RDNSS (RFC 8106), at most 2 */
	uint8_t dns[2][16];
	uint32_t dns_lifetime;
	const uint8_t *lla;	/* source link-layer option, or NULL */
};
uint32_t ch39x_nd_build_ra(uint8_t *ip6, uint32_t cap,
			   const struct ch39x_ra *ra);

/* The ICMPv6 checksum of the IPv6 packet at ip6 (payload len bytes). */
uint16_t ch39x_icmp6_csum(const uint8_t *ip6, uint32_t payload_len);

/* ff02::1 and the Ethernet address of an IPv6 or IPv4 multicast group. */
extern const uint8_t ch39x_ip6_all_nodes[16];
void ch39x_ip6_mcast_mac(const uint8_t ip6[16], uint8_t mac[6]);
void ch39x_ip4_mcast_mac(const uint8_t ip4[4], uint8_t mac[6]);

#endif /* CH39X_ND_H */
