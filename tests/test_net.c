/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests for the header walker and Internet checksums
 * (lib/ch39x/ch39x_net.c). Frames are written out byte by byte; checksums
 * are known values: the classic IPv4 header example (0xB861), the RFC 1071
 * numeric example, and values worked out independently of this code.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_net.h"

#include "check.h"

/* ---- Frames ---- */

#define ETH_V4	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, \
		0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0x08, 0x00
#define ETH_V6	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, \
		0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0x86, 0xDD
#define V6_ADDRS \
	0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, \
	0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02

/*
 * P1, IPv4/UDP: the classic header 4500 0073 0000 4000 4011 b861
 * c0a8 0001 c0a8 00c7 (total length 115), UDP 1234 -> 5678, length 95,
 * checksum 0xA099, then an 87-byte text payload.
 */
static const uint8_t p1_hdr[42] = {
	ETH_V4,
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xB8, 0x61, 0xC0, 0xA8, 0x00, 0x01, 0xC0, 0xA8, 0x00, 0xC7,
	0x04, 0xD2, 0x16, 0x2E, 0x00, 0x5F, 0xA0, 0x99,
};
static const char p1_pay[88] = "The quick brown fox jumps over the lazy "
	"dog; pack my box with five dozen liquor jugs!!!";
#define P1_LEN 129

/*
 * P2, IPv4/TCP with a 4-byte IP option (IHL 6, checksum 0x0773) and an
 * MSS option (data offset 6): 10.0.0.1:50000 -> 10.0.0.2:80, PSH|ACK,
 * "hello, world"; TCP checksum 0x8014.
 */
static const uint8_t p2[74] = {
	ETH_V4,
	0x46, 0x00, 0x00, 0x3C, 0x1C, 0x46, 0x40, 0x00, 0x40, 0x06,
	0x07, 0x73, 0x0A, 0x00, 0x00, 0x01, 0x0A, 0x00, 0x00, 0x02,
	0x01, 0x01, 0x01, 0x00,
	0xC3, 0x50, 0x00, 0x50, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
	0x60, 0x18, 0xFF, 0xFF, 0x80, 0x14, 0x00, 0x00,
	0x02, 0x04, 0x05, 0xB4,
	'h', 'e', 'l', 'l', 'o', ',', ' ', 'w', 'o', 'r', 'l', 'd',
};

/*
 * P3, IPv6/TCP: 2001:db8::1 -> 2001:db8::2, payload length 23, TCP
 * 32768 -> 443, data offset 5, "abc" (odd length); checksum 0xFAE1.
 */
static const uint8_t p3[77] = {
	ETH_V6,
	0x60, 0x00, 0x00, 0x00, 0x00, 0x17, 0x06, 0x40, V6_ADDRS,
	0x80, 0x00, 0x01, 0xBB, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x50, 0x18, 0x02, 0x00, 0xFA, 0xE1, 0x00, 0x00,
	'a', 'b', 'c',
};

/*
 * P4, VLAN (TCI 0x2064) IPv4/UDP: 192.0.2.1 -> 198.51.100.5, IP checksum
 * 0x3C5F, UDP 53 -> 49152 length 12 checksum 0xBBF6, "DNS!", then 10
 * bytes of non-zero Ethernet padding up to 60.
 */
static const uint8_t p4[60] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB,
	0x81, 0x00, 0x20, 0x64, 0x08, 0x00,
	0x45, 0x00, 0x00, 0x20, 0x12, 0x34, 0x00, 0x00, 0x80, 0x11,
	0x3C, 0x5F, 0xC0, 0x00, 0x02, 0x01, 0xC6, 0x33, 0x64, 0x05,
	0x00, 0x35, 0xC0, 0x00, 0x00, 0x0C, 0xBB, 0xF6,
	'D', 'N', 'S', '!',
	0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE, 0xEE,
};

/* P5, IPv6/UDP: 0x1111 -> 0x2222, length 13, "hello"; checksum 0x2D5A. */
static const uint8_t p5[67] = {
	ETH_V6,
	0x60, 0x00, 0x00, 0x00, 0x00, 0x0D, 0x11, 0x40, V6_ADDRS,
	0x11, 0x11, 0x22, 0x22, 0x00, 0x0D, 0x2D, 0x5A,
	'h', 'e', 'l', 'l', 'o',
};

/*
 * P6, IPv4/UDP whose checksum computes to 0x0000 and so is sent as
 * 0xFFFF: 10.0.0.1 -> 10.0.0.2 (IP checksum 0x66CC), UDP 7 -> 7, length
 * 10, payload 0xEBC9.
 */
static const uint8_t p6[44] = {
	ETH_V4,
	0x45, 0x00, 0x00, 0x1E, 0x00, 0x01, 0x00, 0x00, 0x40, 0x11,
	0x66, 0xCC, 0x0A, 0x00, 0x00, 0x01, 0x0A, 0x00, 0x00, 0x02,
	0x00, 0x07, 0x00, 0x07, 0x00, 0x0A, 0xFF, 0xFF, 0xEB, 0xC9,
};

static uint8_t fb[2048];

static const uint8_t *
p1(void)
{
	static uint8_t f[P1_LEN];

	memcpy(f, p1_hdr, 42);
	memcpy(f + 42, p1_pay, 87);
	return f;
}

/* Copy a frame into fb so a test can alter it. */
static uint8_t *
load(const uint8_t *f, uint32_t len)
{
	memset(fb, 0, sizeof(fb));
	memcpy(fb, f, len);
	return fb;
}

/* ---- Header parsing ---- */

struct hdr_want {
	int rc;
	uint16_t ethertype, l2, l3, l4;
	uint8_t proto;
	bool ipv4, ipv6, frag;
	uint32_t l4_total;
};

#define PARSE(f, len, ...) do {						\
	const struct hdr_want w_ = { __VA_ARGS__ };			\
	parse_check(__LINE__, (f), (len), &w_);				\
} while (0)

/*
 * Parse a copy of exactly len bytes on the heap, so that the address
 * sanitizer sees any read past the end, and compare every field.
 */
static void
parse_check(int line, const uint8_t *f, uint32_t len,
	    const struct hdr_want *w)
{
	uint8_t *c = malloc(len ? len : 1);
	struct ch39x_hdrs h;
	int rc;

	if (c == NULL)
		abort();
	memcpy(c, f, len);
	memset(&h, 0x5A, sizeof(h));
	rc = ch39x_parse_hdrs(c, len, &h);
	free(c);
	/* On -1 the contents of h are unspecified. */
	if (rc == w->rc && (rc != 0 || (h.ethertype == w->ethertype &&
	    h.l2_len == w->l2 && h.l3_len == w->l3 && h.l4_len == w->l4 &&
	    h.l4_proto == w->proto && h.ipv4 == w->ipv4 &&
	    h.ipv6 == w->ipv6 && h.fragment == w->frag &&
	    h.l4_total == w->l4_total))) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("%s:%d: parse_hdrs(len %u): rc %d type 0x%04x l2 %u l3 %u "
	       "l4 %u proto %u v4 %d v6 %d frag %d total %u; want %d 0x%04x "
	       "%u %u %u %u %d %d %d %u\n", __FILE__, line, len, rc,
	       h.ethertype, h.l2_len, h.l3_len, h.l4_len, h.l4_proto, h.ipv4,
	       h.ipv6, h.fragment, h.l4_total, w->rc, w->ethertype, w->l2,
	       w->l3, w->l4, w->proto, w->ipv4, w->ipv6, w->frag,
	       w->l4_total);
}

static void
test_parse_good(void)
{
	/* rc, ethertype, l2, l3, l4, proto, ipv4, ipv6, frag, l4_total */
	PARSE(p1(), P1_LEN, 0, 0x0800, 14, 20, 8, 17, true, false, false, 95);
	PARSE(p2, 74, 0, 0x0800, 14, 24, 24, 6, true, false, false, 36);
	PARSE(p3, 77, 0, 0x86DD, 14, 40, 20, 6, false, true, false, 23);
	PARSE(p4, 60, 0, 0x0800, 18, 20, 8, 17, true, false, false, 12);
	/* The Ethernet padding is not needed: the IP length ends at 50. */
	PARSE(p4, 50, 0, 0x0800, 18, 20, 8, 17, true, false, false, 12);
	PARSE(p5, 67, 0, 0x86DD, 14, 40, 8, 17, false, true, false, 13);
	PARSE(p6, 44, 0, 0x0800, 14, 20, 8, 17, true, false, false, 10);
}

static void
test_parse_bad(void)
{
	uint8_t *f;

	/* Too short for L2, or for the VLAN tag. */
	PARSE(p2, 0, -1, 0, 0, 0, 0, 0, false, false, false, 0);
	PARSE(p2, 13, -1, 0, 0, 0, 0, 0, false, false, false, 0);
	PARSE(p4, 17, -1, 0, 0, 0, 0, 0, false, false, false, 0);
	/* L2 only: no L3 is claimed. */
	PARSE(p2, 14, 0, 0x0800, 14, 0, 0, 0, false, false, false, 0);
	PARSE(p4, 18, 0, 0x0800, 18, 0, 0, 0, false, false, false, 0);
	PARSE(p3, 53, 0, 0x86DD, 14, 0, 0, 0, false, false, false, 0);
	/* The IPv4 total length runs past the frame (one byte short). */
	PARSE(p1(), P1_LEN - 1, 0, 0x0800, 14, 0, 0, 0, false, false, false,
	      0);
	PARSE(p4, 49, 0, 0x0800, 18, 0, 0, 0, false, false, false, 0);
	/* The IPv6 payload length runs past the frame. */
	PARSE(p3, 76, 0, 0x86DD, 14, 0, 0, 0, false, false, false, 0);

	/* ARP: L2 only. */
	f = load(p2, 74);
	f[13] = 0x06;
	PARSE(f, 74, 0, 0x0806, 14, 0, 0, 0, false, false, false, 0);
	/* Version 6 under EtherType 0x0800; IHL 4; total length 19 < IHL. */
	f = load(p2, 74);
	f[14] = 0x65;
	PARSE(f, 74, 0, 0x0800, 14, 0, 0, 0, false, false, false, 0);
	f[14] = 0x44;
	PARSE(f, 74, 0, 0x0800, 14, 0, 0, 0, false, false, false, 0);
	f[14] = 0x45;
	f[17] = 0x13;
	PARSE(f, 74, 0, 0x0800, 14, 0, 0, 0, false, false, false, 0);
	/* IHL 15 (60 bytes) with total length 60: no room for TCP. */
	f = load(p2, 74);
	f[14] = 0x4F;
	PARSE(f, 74, 0, 0x0800, 14, 60, 0, 0, true, false, false, 0);
	/* Version 4 under EtherType 0x86DD. */
	f = load(p3, 77);
	f[14] = 0x40;
	PARSE(f, 77, 0, 0x86DD, 14, 0, 0, 0, false, false, false, 0);

	/* Fragments: MF set, or a non-zero offset; DF alone is not one. */
	f = load(p1(), P1_LEN);
	f[20] = 0x20;
	PARSE(f, P1_LEN, 0, 0x0800, 14, 20, 0, 0, true, false, true, 95);
	f[20] = 0x00;
	f[21] = 0x01;
	PARSE(f, P1_LEN, 0, 0x0800, 14, 20, 0, 0, true, false, true, 95);
	f[20] = 0x40;
	f[21] = 0x00;
	PARSE(f, P1_LEN, 0, 0x0800, 14, 20, 8, 17, true, false, false, 95);
	/* ICMP (1) and an IPv6 fragment header (44): no L4. */
	f[23] = 0x01;
	PARSE(f, P1_LEN, 0, 0x0800, 14, 20, 0, 0, true, false, false, 95);
	f = load(p3, 77);
	f[20] = 44;
	PARSE(f, 77, 0, 0x86DD, 14, 40, 0, 0, false, true, false, 23);

	/* UDP with 7 L4 bytes (IP total 27). */
	f = load(p6, 44);
	f[17] = 27;
	PARSE(f, 44, 0, 0x0800, 14, 20, 0, 0, true, false, false, 7);
	/* TCP: data offset 4 (< 20 bytes), 15 (60 > 36), 19 L4 bytes. */
	f = load(p2, 74);
	f[50] = 0x40;
	PARSE(f, 74, 0, 0x0800, 14, 24, 0, 0, true, false, false, 36);
	f[50] = 0xF0;
	PARSE(f, 74, 0, 0x0800, 14, 24, 0, 0, true, false, false, 36);
	f[50] = 0x60;
	f[17] = 24 + 19;
	PARSE(f, 74, 0, 0x0800, 14, 24, 0, 0, true, false, false, 19);
	/* Data offset 9 (36) is exactly the TCP length: accepted. */
	f[17] = 0x3C;
	f[50] = 0x90;
	PARSE(f, 74, 0, 0x0800, 14, 24, 36, 6, true, false, false, 36);
}

/*
 * Every truncation of every frame, and random garbage with random
 * EtherTypes and version nibbles, parsed from exact-size heap copies:
 * the sanitizer flags any out-of-bounds read; the claimed headers must lie
 * inside the frame.
 */
static void
check_bounds(const uint8_t *f, uint32_t len, unsigned int *bad)
{
	uint8_t *c = malloc(len ? len : 1);
	struct ch39x_hdrs h;
	int rc;

	if (c == NULL)
		abort();
	memcpy(c, f, len);
	rc = ch39x_parse_hdrs(c, len, &h);
	if (rc == 0 && (h.l2_len > len ||
	    (uint32_t)h.l2_len + h.l3_len > len ||
	    (h.l4_proto && (uint32_t)h.l2_len + h.l3_len + h.l4_total > len) ||
	    h.l4_len > h.l4_total))
		(*bad)++;
	if (rc != 0 && len >= 18)
		(*bad)++;
	if (rc == 0 && h.ipv4 && h.l3_len >= 20)
		(void)ch39x_ip4_csum_ok(c, &h);
	if (rc == 0 && h.l4_proto)
		(void)ch39x_l4_csum_ok(c, &h);
	free(c);
}

static void
test_parse_bounds(void)
{
	static const uint16_t types[4] = { 0x0800, 0x86DD, 0x8100, 0x0806 };
	const uint8_t *frames[6] = { p1(), p2, p3, p4, p5, p6 };
	const uint32_t lens[6] = { P1_LEN, 74, 77, 60, 67, 44 };
	unsigned int bad = 0, i, k;
	uint32_t len, off, x = 12345;
	uint8_t g[128], *ip;
	bool v4;

	for (i = 0; i < 6; i++)
		for (len = 0; len <= lens[i]; len++)
			check_bounds(frames[i], len, &bad);
	for (i = 0; i < 40000; i++) {
		for (k = 0; k < sizeof(g); k++) {
			x = x * 1103515245u + 12345u;
			g[k] = (uint8_t)(x >> 16);
		}
		len = (x >> 8) % (sizeof(g) + 1);
		g[12] = (uint8_t)(types[i % 4] >> 8);
		g[13] = (uint8_t)types[i % 4];
		off = 14;
		if (i % 4 == 2) {	/* VLAN: an IP EtherType inside */
			g[16] = (uint8_t)(i % 8 < 4 ? 0x08 : 0x86);
			g[17] = (uint8_t)(i % 8 < 4 ? 0x00 : 0xDD);
			off = 18;
		}
		/* Mostly plausible IP: matching version, short lengths, TCP
		 * or UDP, so that the deeper checks are reached often.
		 */
		ip = g + off;
		v4 = (g[off - 2] == 0x08) != (i % 7 == 0);
		ip[0] = (uint8_t)(v4 ? 0x40 | (i % 3 ? 5 : ip[0] & 0x0F) :
				  0x60 | (ip[0] & 0x0F));
		ip[2] = 0;
		ip[4] = 0;
		ip[6] = (uint8_t)(i % 5 ? 6 : 17);
		ip[9] = (uint8_t)(i % 5 ? 6 : 17);
		if (i % 2)
			ip[6] = 0;
		check_bounds(g, len, &bad);
	}
	CHECK_EQ(bad, 0);
}

/* ---- Checksums ---- */

static void
test_csum_basic(void)
{
	/* RFC 1071 section 3: 0001 f203 f4f5 f6f7 sums to 2ddf0 -> ddf2. */
	static const uint8_t r[8] = { 0x00, 0x01, 0xF2, 0x03,
				      0xF4, 0xF5, 0xF6, 0xF7 };
	static const uint8_t odd[3] = { 0x01, 0x02, 0x03 };
	static const uint8_t ff[2] = { 0xFF, 0xFF };

	CHECK_EQ(ch39x_csum_add(0, r, 8), 0x2DDF0);
	CHECK_EQ(ch39x_csum_fold(0x2DDF0), 0xDDF2);
	CHECK_EQ(ch39x_csum_add(0, r, 0), 0);
	/* An odd final byte is the high byte of a zero-padded word. */
	CHECK_EQ(ch39x_csum_add(0, odd, 3), 0x0402);
	CHECK_EQ(ch39x_csum_add(0x10000, ff, 2), 0x1FFFF);
	CHECK_EQ(ch39x_csum_fold(0x1FFFF), 0x0001);
	CHECK_EQ(ch39x_csum_fold(0xFFFF), 0xFFFF);
	CHECK_EQ(ch39x_csum_fold(0x2FFFD), 0xFFFF);
	CHECK_EQ(ch39x_csum_fold(0), 0);
}

/* Parse f (already in fb) and fail loudly if it is not what we expect. */
static struct ch39x_hdrs
hdrs(const uint8_t *f, uint32_t len)
{
	struct ch39x_hdrs h;

	if (ch39x_parse_hdrs(f, len, &h) != 0 || !(h.ipv4 || h.ipv6)) {
		n_fail++;
		printf("%s:%d: test frame did not parse\n", __FILE__,
		       __LINE__);
	}
	return h;
}

static void
test_ip4_csum(void)
{
	struct ch39x_hdrs h;
	uint8_t *f;

	/* The classic header: 0xB861 is right; any changed byte is not. */
	f = load(p1(), P1_LEN);
	h = hdrs(f, P1_LEN);
	CHECK(ch39x_ip4_csum_ok(f, &h));
	f[22] = 0x3F;		/* TTL 64 -> 63 */
	CHECK(!ch39x_ip4_csum_ok(f, &h));
	f[22] = 0x40;
	f[33] = 0xC8;		/* destination .199 -> .200 */
	CHECK(!ch39x_ip4_csum_ok(f, &h));
	f[33] = 0xC7;
	f[25] = 0x60;		/* the checksum itself */
	CHECK(!ch39x_ip4_csum_ok(f, &h));
	/* Set from a garbage field reproduces b8 61, the rest untouched. */
	f[24] = 0xFF;
	f[25] = 0xFF;
	ch39x_ip4_csum_set(f, &h);
	CHECK_EQ(f[24], 0xB8);
	CHECK_EQ(f[25], 0x61);
	CHECK(memcmp(f, p1(), P1_LEN) == 0);
	CHECK(ch39x_ip4_csum_ok(f, &h));

	/* With a 4-byte option (IHL 6): 0x0773. */
	f = load(p2, 74);
	h = hdrs(f, 74);
	CHECK(ch39x_ip4_csum_ok(f, &h));
	f[34] = 0x02;		/* option byte */
	CHECK(!ch39x_ip4_csum_ok(f, &h));
	f[34] = 0x01;
	f[24] = 0;
	f[25] = 0;
	ch39x_ip4_csum_set(f, &h);
	CHECK_EQ(f[24], 0x07);
	CHECK_EQ(f[25], 0x73);

	/* Behind a VLAN tag: 0x3C5F at offset 28. */
	f = load(p4, 60);
	h = hdrs(f, 60);
	CHECK(ch39x_ip4_csum_ok(f, &h));
	f[28] = 0x12;
	f[29] = 0x34;
	CHECK(!ch39x_ip4_csum_ok(f, &h));
	ch39x_ip4_csum_set(f, &h);
	CHECK_EQ(f[28], 0x3C);
	CHECK_EQ(f[29], 0x5F);
	CHECK(memcmp(f, p4, 60) == 0);

	f = load(p6, 44);
	h = hdrs(f, 44);
	CHECK(ch39x_ip4_csum_ok(f, &h));
}

#define L4_CASE(f, len, off, hi, lo, poke) \
	l4_case(__LINE__, (f), (len), (off), (hi), (lo), (poke))

/*
 * A frame with a known-right L4 checksum hi:lo at offset off: accepted;
 * rejected once byte poke changes; set (from garbage, after restoring
 * poke) reproduces hi:lo and the whole original frame.
 */
static void
l4_case(int line, const uint8_t *orig, uint32_t len, uint32_t off,
	uint8_t hi, uint8_t lo, uint32_t poke)
{
	uint8_t *f = load(orig, len);
	struct ch39x_hdrs h = hdrs(f, len);
	bool ok_orig, ok_poked, ok_set;

	ok_orig = f[off] == hi && f[off + 1] == lo && ch39x_l4_csum_ok(f, &h);
	f[poke] ^= 0x01;
	ok_poked = !ch39x_l4_csum_ok(f, &h);
	f[poke] ^= 0x01;
	f[off] = 0xA5;
	f[off + 1] = 0x5A;
	ch39x_l4_csum_set(f, &h);
	ok_set = f[off] == hi && f[off + 1] == lo &&
		memcmp(f, orig, len) == 0 && ch39x_l4_csum_ok(f, &h);
	check_at(ok_orig, __FILE__, line, "known L4 checksum accepted");
	check_at(ok_poked, __FILE__, line, "corrupted frame rejected");
	check_at(ok_set, __FILE__, line, "l4_csum_set reproduces the known checksum");
}

static void
test_l4_csum(void)
{
	struct ch39x_hdrs h;
	uint8_t *f;

	/* UDP/IPv4 0xA099; poke the payload, then the source address. */
	L4_CASE(p1(), P1_LEN, 40, 0xA0, 0x99, 100);
	L4_CASE(p1(), P1_LEN, 40, 0xA0, 0x99, 29);
	L4_CASE(p1(), P1_LEN, 40, 0xA0, 0x99, P1_LEN - 1);
	/* TCP/IPv4 with options 0x8014; poke the MSS option. */
	L4_CASE(p2, 74, 54, 0x80, 0x14, 60);
	L4_CASE(p2, 74, 54, 0x80, 0x14, 73);
	/* TCP/IPv6, odd length, 0xFAE1; poke the last byte, then dst. */
	L4_CASE(p3, 77, 70, 0xFA, 0xE1, 76);
	L4_CASE(p3, 77, 70, 0xFA, 0xE1, 53);
	/* UDP/IPv4 behind VLAN, padding ignored, 0xBBF6. */
	L4_CASE(p4, 60, 44, 0xBB, 0xF6, 49);
	/* UDP/IPv6 0x2D5A. */
	L4_CASE(p5, 67, 60, 0x2D, 0x5A, 66);

	/* Ethernet padding is not summed. */
	f = load(p4, 60);
	h = hdrs(f, 60);
	f[59] = 0x01;
	CHECK(ch39x_l4_csum_ok(f, &h));

	/* A zero UDP checksum means "none" on IPv4, not on IPv6. */
	f = load(p1(), P1_LEN);
	h = hdrs(f, P1_LEN);
	f[40] = 0;
	f[41] = 0;
	CHECK(ch39x_l4_csum_ok(f, &h));
	f = load(p5, 67);
	h = hdrs(f, 67);
	f[60] = 0;
	f[61] = 0;
	CHECK(!ch39x_l4_csum_ok(f, &h));

	/* A computed UDP checksum of zero is sent as 0xFFFF (RFC 768). */
	f = load(p6, 44);
	h = hdrs(f, 44);
	CHECK(ch39x_l4_csum_ok(f, &h));
	f[40] = 0x12;
	f[41] = 0x34;
	CHECK(!ch39x_l4_csum_ok(f, &h));
	ch39x_l4_csum_set(f, &h);
	CHECK_EQ(f[40], 0xFF);
	CHECK_EQ(f[41], 0xFF);
	CHECK(ch39x_l4_csum_ok(f, &h));
}

int
main(void)
{
	test_parse_good();
	test_parse_bad();
	test_parse_bounds();
	test_csum_basic();
	test_ip4_csum();
	test_l4_csum();
	printf("test_net: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
