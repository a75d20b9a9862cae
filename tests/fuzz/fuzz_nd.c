/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz ARP and IPv6 neighbour discovery (ch39x_nd.h) with packets from an
 * application or a cable, and the answers built to them.
 *
 * Byte 0 bits 0-1 choose the mode.
 * 0, ARP: the rest is an ARP packet (after the Ethernet header). A request
 *    that wants an answer gets one, which must parse back as the reply to
 *    it.
 * 1, ND: the rest is an IPv6 packet. What parses must lie inside it; a
 *    solicitation that wants an answer gets an advertisement (with and
 *    without the link-layer option), which must parse back.
 * 2, RA: the rest gives the fields of a router advertisement (prefix,
 *    lengths, lifetimes, MTU, DNS servers); the built packet must parse
 *    back with them.
 * 3, an MBIM port as Ethernet (ch39x_mbim_eth.h): byte 1 bit 0: session 0
 *    tagged 4094; bit 1: an mbuf VLAN tag (bytes 2-3); the rest a frame
 *    the application sends, classified (an IP datagram must lie inside,
 *    an answer must parse as the reply) and, as a datagram from the modem,
 *    given its Ethernet header.
 *
 * Every input is an exactly sized heap copy.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_mbim_eth.h"
#include "ch39x_nd.h"
#include "fuzz.h"

static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x01 };

static void
run_arp(const uint8_t *b, uint32_t len)
{
	struct ch39x_arp a, r;
	uint8_t f[64];

	if (ch39x_arp_parse(b, len, &a) != 0) {
		FUZZ_CHECK(a.op == 0);
		return;
	}
	FUZZ_CHECK(len >= CH39X_ARP_LEN);
	FUZZ_CHECK(a.op == CH39X_ARP_REQUEST || a.op == CH39X_ARP_REPLY);
	if (!ch39x_arp_wants_answer(&a))
		return;
	FUZZ_CHECK(ch39x_arp_answer(f, sizeof(f), &a, mac) == 60);
	FUZZ_CHECK(memcmp(f, a.sha, 6) == 0 && memcmp(f + 6, mac, 6) == 0);
	FUZZ_CHECK(ch39x_arp_parse(f + 14, 46, &r) == 0);
	FUZZ_CHECK(r.op == CH39X_ARP_REPLY && memcmp(r.spa, a.tpa, 4) == 0 &&
		   memcmp(r.tpa, a.spa, 4) == 0 && memcmp(r.sha, mac, 6) == 0 &&
		   memcmp(r.tha, a.sha, 6) == 0);
}

static void
run_nd(const uint8_t *b, uint32_t len)
{
	struct ch39x_nd n, a;
	uint8_t out[128];
	uint32_t nl;

	if (ch39x_nd_parse(b, len, &n) != 0) {
		FUZZ_CHECK(n.type == 0);
		return;
	}
	FUZZ_CHECK(len >= CH39X_IP6_HLEN + 8);
	FUZZ_CHECK(n.type >= CH39X_ND_RS && n.type <= CH39X_ND_NA);
	FUZZ_CHECK(n.prefix_len <= 128);
	FUZZ_CHECK(memcmp(n.src, b + 8, 16) == 0);
	if (!ch39x_nd_ns_wants_answer(&n))
		return;
	nl = ch39x_nd_build_na(out, sizeof(out), &n, mac, CH39X_NA_SOLICITED);
	FUZZ_CHECK(nl == 72);
	FUZZ_CHECK(ch39x_nd_parse(out, nl, &a) == 0);
	FUZZ_CHECK(a.type == CH39X_ND_NA && a.have_lla &&
		   memcmp(a.lla, mac, 6) == 0 &&
		   memcmp(a.target, n.target, 16) == 0 &&
		   memcmp(a.dst, n.src, 16) == 0 &&
		   a.flags == CH39X_NA_SOLICITED);
	nl = ch39x_nd_build_na(out, sizeof(out), &n, NULL, 0);
	FUZZ_CHECK(nl == 64 && ch39x_nd_parse(out, nl, &a) == 0 &&
		   !a.have_lla);
}

static void
run_ra(const uint8_t *b, uint32_t len)
{
	struct ch39x_ra ra;
	struct ch39x_nd n;
	uint8_t out[256];
	uint32_t rl;

	if (len < 80)
		return;
	memset(&ra, 0, sizeof(ra));
	memcpy(ra.src, b, 16);
	memcpy(ra.dst, b + 16, 16);
	memcpy(ra.prefix, b + 32, 16);
	memcpy(ra.dns, b + 48, 32);
	if (len > 80)
		ra.prefix_len = b[80] % 130;
	if (len > 81)
		ra.n_dns = b[81] % 4;
	if (len > 85)
		ra.mtu = (uint32_t)b[82] << 24 | (uint32_t)b[83] << 16 |
			 (uint32_t)b[84] << 8 | b[85];
	if (len > 87)
		ra.lifetime = (uint16_t)(b[86] << 8 | b[87]);
	if (len > 88 && (b[88] & 1))
		ra.lla = mac;
	rl = ch39x_nd_build_ra(out, sizeof(out), &ra);
	if (ra.prefix_len > 128) {
		FUZZ_CHECK(rl == 0);
		return;
	}
	FUZZ_CHECK(rl >= 56 && rl <= sizeof(out));
	FUZZ_CHECK(ch39x_nd_parse(out, rl, &n) == 0);
	FUZZ_CHECK(n.type == CH39X_ND_RA && n.router_lifetime == ra.lifetime &&
		   n.mtu == ra.mtu && n.have_lla == (ra.lla != NULL) &&
		   n.have_prefix == (ra.prefix_len != 0));
	if (n.have_prefix)
		FUZZ_CHECK(n.prefix_len == ra.prefix_len &&
			   memcmp(n.prefix, ra.prefix, 16) == 0);
}

static void
run_mbim_eth(const uint8_t *data, size_t size)
{
	struct ch39x_mbim_eth e = {
		.port_mac = { 0x02, 0, 0, 0, 0, 0x02 },
		.peer_mac = { 0x02, 0, 0, 0, 0, 0x01 },
	};
	struct ch39x_mbim_tx t;
	struct ch39x_arp a;
	struct ch39x_nd n;
	uint8_t out[256], hdr[14], *f;
	uint32_t len, al;
	uint16_t tci, vid;
	int32_t mtci;

	if (size < 4)
		return;
	e.ips0_vlan = data[1] & 1;
	mtci = (data[1] & 2) ? (int32_t)(data[2] << 8 | data[3]) : -1;
	len = (uint32_t)(size - 4);
	f = fuzz_dup(data + 4, len);
	ch39x_mbim_eth_tx(&e, f, len, mtci, &t);
	al = ch39x_mbim_eth_answer(&e, f, len, mtci, out, sizeof(out), &tci);
	switch (t.kind) {
	case CH39X_MBIM_TX_IP:
		FUZZ_CHECK(t.ip_off >= 14 && t.ip_len >= 20 &&
			   t.ip_off + t.ip_len <= len);
		FUZZ_CHECK((f[t.ip_off] >> 4) == 4 || (f[t.ip_off] >> 4) == 6);
		FUZZ_CHECK(al == 0);
		break;
	case CH39X_MBIM_TX_ANSWER:
		FUZZ_CHECK(al > 14);
		FUZZ_CHECK(memcmp(out + 6, e.peer_mac, 6) == 0);
		vid = tci;
		FUZZ_CHECK(vid <= CH39X_MBIM_MAX_VID ||
			   (vid == CH39X_MBIM_IPS0_VID && e.ips0_vlan));
		if (out[12] == 0x08)
			FUZZ_CHECK(ch39x_arp_parse(out + 14, al - 14, &a) == 0 &&
				   a.op == CH39X_ARP_REPLY &&
				   memcmp(a.sha, e.peer_mac, 6) == 0);
		else
			FUZZ_CHECK(ch39x_nd_parse(out + 14, al - 14, &n) == 0 &&
				   n.type == CH39X_ND_NA && n.have_lla);
		break;
	default:
		FUZZ_CHECK(al == 0);
		break;
	}
	/* The same bytes as a datagram from the modem, session byte 1. */
	if (ch39x_mbim_eth_rx(&e, data[1], f, len, hdr, &tci) != 0) {
		FUZZ_CHECK(memcmp(hdr + 6, e.peer_mac, 6) == 0);
		FUZZ_CHECK((hdr[12] == 0x08 && (f[0] >> 4) == 4) ||
			   (hdr[12] == 0x86 && (f[0] >> 4) == 6));
		FUZZ_CHECK(tci == (data[1] ? data[1] : e.ips0_vlan ?
				   CH39X_MBIM_IPS0_VID : 0));
	}
	free(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *b;

	if (size < 1)
		return 0;
	if ((data[0] & 3) == 3) {
		run_mbim_eth(data, size);
		return 0;
	}
	b = fuzz_dup(data + 1, size - 1);
	switch (data[0] & 3) {
	case 0:
		run_arp(b, (uint32_t)(size - 1));
		break;
	case 1:
		run_nd(b, (uint32_t)(size - 1));
		break;
	default:
		run_ra(b, (uint32_t)(size - 1));
		break;
	}
	free(b);
	return 0;
}
