/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_NET_H
#define CH39X_NET_H

/*
 * Small Ethernet/IP helpers over flat frames: header walking with every
 * offset bounds-checked, and Internet checksums. Used by the simulated
 * adapter's checksum and VLAN engines, and by software offloads.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CH39X_ETH_HLEN		14
#define CH39X_VLAN_HLEN		4
#define CH39X_ETHERTYPE_IPV4	0x0800
#define CH39X_ETHERTYPE_IPV6	0x86DD
#define CH39X_ETHERTYPE_VLAN	0x8100
#define CH39X_IPPROTO_TCP	6
#define CH39X_IPPROTO_UDP	17

/* Where the headers of a frame are; lengths are 0 when absent. */
struct ch39x_hdrs {
	uint16_t ethertype;	/* after any VLAN tag */
	uint16_t l2_len;	/* 14, or 18 with one VLAN tag */
	uint16_t l3_len;
	uint16_t l4_len;
	uint8_t l4_proto;	/* 0 when not TCP/UDP */
	bool ipv4;
	bool ipv6;
	bool fragment;
	uint32_t l4_total;	/* L4 header + payload, from the IP length */
};

/* Returns 0 and fills *h, or -1 when the frame is too short to hold L2. */
int ch39x_parse_hdrs(const uint8_t *f, uint32_t len, struct ch39x_hdrs *h);

/* One's-complement sum of a buffer added to sum (not folded). */
uint32_t ch39x_csum_add(uint32_t sum, const uint8_t *p, size_t len);
uint16_t ch39x_csum_fold(uint32_t sum);

/* Whether the IPv4 header checksum is right. */
bool ch39x_ip4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h);
/* Whether the TCP/UDP checksum is right (a zero UDPv4 checksum is). */
bool ch39x_l4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h);
/* Compute and store the IPv4 header checksum. */
void ch39x_ip4_csum_set(uint8_t *f, const struct ch39x_hdrs *h);
/* Compute and store the full TCP/UDP checksum. */
void ch39x_l4_csum_set(uint8_t *f, const struct ch39x_hdrs *h);

#endif /* CH39X_NET_H */
