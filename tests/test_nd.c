/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests for ARP and IPv6 neighbour discovery (lib/ch39x/ch39x_nd.c).
 * The ARP frames are written out by hand (RFC 826); the IPv6 packets are
 * those python3-scapy 2.5 builds for the same fields (its checksums are
 * the independent check), pasted as hex.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_nd.h"

#include "check.h"

#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ })

static const uint8_t mac_app[6] = { 0x02, 0, 0, 0, 0, 0x02 };
static const uint8_t mac_peer[6] = { 0x02, 0, 0, 0, 0, 0x01 };

static uint32_t
unhex(const char *h, uint8_t *out)
{
	uint32_t n = 0;

	for (; h[0] && h[1]; h += 2)
		out[n++] = (uint8_t)strtoul((char[]){ h[0], h[1], 0 }, NULL, 16);
	return n;
}

/* ---- ARP ---- */

static void
test_arp(void)
{
	/* Who has 100.64.39.1? Tell 100.64.39.2 (at 02:..:02). */
	static const uint8_t req[] = {
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x01,
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 100, 64, 39, 2,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 100, 64, 39, 1,
	};
	/* 100.64.39.1 is at 02:..:01, to 02:..:02, padded to 60. */
	static const uint8_t reply[60] = {
		0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x06,
		0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
		0x02, 0, 0, 0, 0, 0x01, 100, 64, 39, 1,
		0x02, 0, 0, 0, 0, 0x02, 100, 64, 39, 2,
	};
	struct ch39x_arp a;
	uint8_t f[64], *b;

	b = dup_exact(req, sizeof(req));
	CHECK_EQ(ch39x_arp_parse(b, sizeof(req), &a), 0);
	CHECK_EQ(a.op, CH39X_ARP_REQUEST);
	CHECK_MEM(a.sha, mac_app, 6);
	CHECK_MEM(a.tpa, BYTES(100, 64, 39, 1), 4);
	CHECK(ch39x_arp_wants_answer(&a));
	CHECK_EQ(ch39x_arp_parse(b, 27, &a), -1);
	free(b);
	CHECK_EQ(ch39x_arp_answer(f, sizeof(f), &(struct ch39x_arp){
		.op = 1, .sha = { 2, 0, 0, 0, 0, 2 }, .spa = { 100, 64, 39, 2 },
		.tpa = { 100, 64, 39, 1 } }, mac_peer), 60);
	CHECK_MEM(f, reply, 60);
	CHECK_EQ(ch39x_arp_answer(f, 59, &a, mac_peer), 0);
	/* The reply parses back; a reply wants no answer. */
	CHECK_EQ(ch39x_arp_parse(f + 14, 46, &a), 0);
	CHECK_EQ(a.op, CH39X_ARP_REPLY);
	CHECK(!ch39x_arp_wants_answer(&a));

	/* A probe (sender 0.0.0.0) and an announcement are not answered. */
	memcpy(f, req, sizeof(req));
	memset(f + 14, 0, 4);
	CHECK_EQ(ch39x_arp_parse(f, sizeof(req), &a), 0);
	CHECK(!ch39x_arp_wants_answer(&a));
	memcpy(f + 14, BYTES(100, 64, 39, 1), 4);
	CHECK_EQ(ch39x_arp_parse(f, sizeof(req), &a), 0);
	CHECK(!ch39x_arp_wants_answer(&a));
	/* Another hardware type, protocol, length or operation. */
	memcpy(f, req, sizeof(req));
	f[1] = 6;
	CHECK_EQ(ch39x_arp_parse(f, sizeof(req), &a), -1);
	memcpy(f, req, sizeof(req));
	f[2] = 0x86;
	CHECK_EQ(ch39x_arp_parse(f, sizeof(req), &a), -1);
	memcpy(f, req, sizeof(req));
	f[5] = 16;
	CHECK_EQ(ch39x_arp_parse(f, sizeof(req), &a), -1);
	memcpy(f, req, sizeof(req));
	f[7] = 3;
	CHECK_EQ(ch39x_arp_parse(f, sizeof(req), &a), -1);
}

/* ---- Neighbour solicitation and advertisement ---- */

/* fe80::2 asks ff02::1:ff00:1 for fe80::1, source lladdr 02:..:02. */
static const char ns_hex[] =
	"6000000000203afffe800000000000000000000000000002ff02000000000000"
	"00000001ff00000187007a9700000000fe800000000000000000000000000001"
	"0101020000000002";
/* fe80::1 answers fe80::2: router, solicited, override, 02:..:01. */
static const char na_hex[] =
	"6000000000203afffe800000000000000000000000000001fe80000000000000"
	"00000000000000028800981be0000000fe800000000000000000000000000001"
	"0201020000000001";

static void
test_ns_na(void)
{
	uint8_t v[128], out[128], *b;
	struct ch39x_nd n, a;
	uint32_t len, nl;

	len = unhex(ns_hex, v);
	CHECK_EQ(len, 72);
	b = dup_exact(v, len);
	CHECK_EQ(ch39x_nd_parse(b, len, &n), 0);
	CHECK_EQ(n.type, CH39X_ND_NS);
	CHECK_MEM(n.target, BYTES(0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				  0, 0, 1), 16);
	CHECK(n.have_lla);
	CHECK_MEM(n.lla, mac_app, 6);
	CHECK(ch39x_nd_ns_wants_answer(&n));
	/* Cut short, or longer than its payload says: the same. */
	CHECK_EQ(ch39x_nd_parse(b, len - 1, &a), -1);
	free(b);

	nl = ch39x_nd_build_na(out, sizeof(out), &n, mac_peer,
			       CH39X_NA_ROUTER | CH39X_NA_SOLICITED |
			       CH39X_NA_OVERRIDE);
	CHECK_EQ(nl, 72);
	CHECK_EQ(unhex(na_hex, v), 72);
	CHECK_MEM(out, v, 72);
	CHECK_EQ(ch39x_nd_build_na(out, 71, &n, mac_peer, 0), 0);
	CHECK_EQ(ch39x_nd_parse(out, nl, &a), 0);
	CHECK_EQ(a.type, CH39X_ND_NA);
	CHECK_EQ(a.flags, 0xE0);
	CHECK(a.have_lla);
	CHECK_MEM(a.lla, mac_peer, 6);
	CHECK(!ch39x_nd_ns_wants_answer(&a));
	/* Without the option: 64 bytes. */
	CHECK_EQ(ch39x_nd_build_na(out, sizeof(out), &n, NULL, 0), 64);
	CHECK_EQ(ch39x_nd_parse(out, 64, &a), 0);
	CHECK(!a.have_lla);

	/* A wrong checksum, hop limit, code; a zero-length option. */
	unhex(ns_hex, v);
	v[43] ^= 1;
	CHECK_EQ(ch39x_nd_parse(v, 72, &a), -1);
	unhex(ns_hex, v);
	v[7] = 64;
	CHECK_EQ(ch39x_nd_parse(v, 72, &a), -1);
	unhex(ns_hex, v);
	v[41] = 1;
	CHECK_EQ(ch39x_nd_parse(v, 72, &a), -1);
	/* Duplicate address detection: from ::, not answered. */
	unhex(ns_hex, v);
	memset(v + 8, 0, 16);
	memset(v + 64, 0, 8);		/* and no source lladdr (RFC 4861) */
	v[5] = 0x18;			/* payload 24 */
	v[42] = v[43] = 0;
	v[42] = (uint8_t)(ch39x_icmp6_csum(v, 24) >> 8);
	v[43] = (uint8_t)ch39x_icmp6_csum(v, 24);
	CHECK_EQ(ch39x_nd_parse(v, 64, &n), 0);
	CHECK(!ch39x_nd_ns_wants_answer(&n));
	/* A zero-length option makes the message invalid. */
	unhex(ns_hex, v);
	v[65] = 0;
	v[42] = (uint8_t)(ch39x_icmp6_csum(v, 32) >> 8);
	v[43] = (uint8_t)ch39x_icmp6_csum(v, 32);
	CHECK_EQ(ch39x_nd_parse(v, 72, &n), -1);
}

/* ---- Router solicitation and advertisement ---- */

static const char rs_hex[] =
	"6000000000083afffe800000000000000000000000000002ff02000000000000"
	"000000000000000285007d3500000000";
/*
 * fe80::1 to ff02::1: hop limit 64, lifetime 1800, prefix
 * 2001:db8:39::/64 (L, A, 86400/14400), MTU 1500, RDNSS 2001:db8:39::1
 * for 1800 s.
 */
static const char ra_hex[] =
	"6000000000503afffe800000000000000000000000000001ff02000000000000"
	"00000000000000018600e093400007080000000000000000030440c000015180"
	"000038400000000020010db800390000000000000000000005010000000005dc"
	"190300000000070820010db8003900000000000000000001";

static void
test_rs_ra(void)
{
	static const uint8_t fe80_1[16] = { 0xfe, 0x80, [15] = 1 };
	static const uint8_t pfx[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x39 };
	static const uint8_t dns[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0x39,
		[15] = 1 };
	struct ch39x_ra ra;
	struct ch39x_nd n;
	uint8_t v[160], out[160];
	uint32_t len;

	len = unhex(rs_hex, v);
	CHECK_EQ(ch39x_nd_parse(v, len, &n), 0);
	CHECK_EQ(n.type, CH39X_ND_RS);
	CHECK(!n.have_lla);

	memset(&ra, 0, sizeof(ra));
	memcpy(ra.src, fe80_1, 16);
	memcpy(ra.dst, ch39x_ip6_all_nodes, 16);
	ra.lifetime = 1800;
	memcpy(ra.prefix, pfx, 16);
	ra.prefix_len = 64;
	ra.valid = 86400;
	ra.preferred = 14400;
	ra.mtu = 1500;
	ra.n_dns = 1;
	memcpy(ra.dns[0], dns, 16);
	ra.dns_lifetime = 1800;
	len = ch39x_nd_build_ra(out, sizeof(out), &ra);
	CHECK_EQ(len, 120);
	CHECK_EQ(unhex(ra_hex, v), 120);
	CHECK_MEM(out, v, 120);
	CHECK_EQ(ch39x_nd_build_ra(out, 119, &ra), 0);
	CHECK_EQ(ch39x_nd_parse(out, len, &n), 0);
	CHECK_EQ(n.type, CH39X_ND_RA);
	CHECK_EQ(n.router_lifetime, 1800);
	CHECK(n.have_prefix);
	CHECK_EQ(n.prefix_len, 64);
	CHECK_MEM(n.prefix, pfx, 16);
	CHECK_EQ(n.valid, 86400);
	CHECK_EQ(n.mtu, 1500);
	/* With a source lladdr: 8 more bytes; parses back. */
	ra.lla = mac_peer;
	len = ch39x_nd_build_ra(out, sizeof(out), &ra);
	CHECK_EQ(len, 128);
	CHECK_EQ(ch39x_nd_parse(out, len, &n), 0);
	CHECK(n.have_lla);
	CHECK_MEM(n.lla, mac_peer, 6);
	/* A prefix option of the wrong length. */
	unhex(ra_hex, v);
	v[40 + 16 + 1] = 3;
	CHECK_EQ(ch39x_nd_parse(v, 120, &n), -1);
}

static void
test_mcast_mac(void)
{
	uint8_t mac[6];

	ch39x_ip6_mcast_mac(ch39x_ip6_all_nodes, mac);
	CHECK_MEM(mac, BYTES(0x33, 0x33, 0, 0, 0, 1), 6);
	ch39x_ip4_mcast_mac(BYTES(239, 129, 2, 3), mac);
	CHECK_MEM(mac, BYTES(0x01, 0x00, 0x5e, 0x01, 2, 3), 6);
}

int
main(void)
{
	static const struct check_case cases[] = {
		{ "arp", test_arp },
		{ "ns_na", test_ns_na },
		{ "rs_ra", test_rs_ra },
		{ "mcast_mac", test_mcast_mac },
	};

	return check_run("test_nd", cases, sizeof(cases) / sizeof(cases[0]));
}
