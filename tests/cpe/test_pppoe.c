/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of the PPPoE session codec (app/ch39x-cpe/pppoe.c) over
 * frames written out byte by byte: IPv4 and IPv6 of our session (the IP
 * length from PPPoE's length, padding after it), PPP control, discovery,
 * another session id or concentrator, no session yet, malformed headers
 * (version, code, length beyond the frame, no protocol), every truncation
 * of each frame from exact-size heap copies (AddressSanitizer sees an
 * overread); and the header the encapsulation writes, parsed back.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pppoe.h"

#include "check.h"

#define DST	0x02, 0x00, 0x00, 0x00, 0x00, 0x01
#define AC	0x52, 0x54, 0x00, 0x12, 0x34, 0x56
/* 0x8864, ver/type 0x11, code 0, session 0x1234, length len. */
#define SESS(len) 0x88, 0x64, 0x11, 0x00, 0x12, 0x34, (len) >> 8, (len) & 255
#define IP4HDR	0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0, \
		10, 0, 0, 1, 10, 0, 0, 2

static const struct cpe_pppoe_sess ours = {
	.sid = 0x1234, .ac = { AC },
};

/* An IPv4 header of 20 bytes, PPPoE length 22, 4 bytes of padding. */
static const uint8_t v4[] = { DST, AC, SESS(22), 0x00, 0x21, IP4HDR,
			      0, 0, 0, 0 };
/* The same from pppd to the concentrator (the addresses swapped). */
static const uint8_t v4_out[] = { AC, DST, SESS(22), 0x00, 0x21, IP4HDR,
				  0, 0, 0, 0 };
static const uint8_t v6[] = { DST, AC, SESS(42), 0x00, 0x57, 0x60, 0, 0, 0,
			      0, 0, 59, 64, 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 1, 0xfe, 0x80, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
static const uint8_t lcp[] = { DST, AC, SESS(10), 0xc0, 0x21, 9, 1, 0, 8,
			       1, 2, 3, 4 };
static const uint8_t padt[] = { DST, AC, 0x88, 0x63, 0x11, 0xa7, 0x12,
				0x34, 0, 0 };
static const uint8_t plain[] = { DST, AC, 0x08, 0x00, IP4HDR };
static const uint8_t bad_ver[] = { DST, AC, 0x88, 0x64, 0x21, 0, 0x12,
				   0x34, 0, 22, 0x00, 0x21, IP4HDR };
static const uint8_t bad_code[] = { DST, AC, 0x88, 0x64, 0x11, 0x09, 0x12,
				    0x34, 0, 22, 0x00, 0x21, IP4HDR };
/* PPPoE's length one beyond what the frame holds. */
static const uint8_t too_long[] = { DST, AC, SESS(23), 0x00, 0x21,
				    IP4HDR };
static const uint8_t zero_len[] = { DST, AC, SESS(0), 0x00, 0x21, IP4HDR };
/* A 1-byte (compressed) protocol: control, for pppd. */
static const uint8_t one_byte[] = { DST, AC, SESS(1), 0x21, 0, 0, 0 };

static enum cpe_pppoe_kind
parse_dir(const uint8_t *f, size_t len, const struct cpe_pppoe_sess *s,
	  bool to_ac, uint32_t *ip_len)
{
	uint8_t *p = dup_exact(f, len);
	enum cpe_pppoe_kind k = cpe_pppoe_parse(p, (uint32_t)len, s, to_ac,
						ip_len);

	free(p);
	return k;
}

static enum cpe_pppoe_kind
parse(const uint8_t *f, size_t len, const struct cpe_pppoe_sess *s,
      uint32_t *ip_len)
{
	return parse_dir(f, len, s, false, ip_len);
}

#define KIND(f, s) parse((f), sizeof(f), (s), &ip_len)

static void
test_kinds(void)
{
	struct cpe_pppoe_sess other = ours;
	uint32_t ip_len = 0;

	CHECK_EQ(KIND(v4, &ours), CPE_PPPOE_IPV4);
	CHECK_EQ(ip_len, 20);	/* not the 4 bytes of padding */
	CHECK_EQ(KIND(v6, &ours), CPE_PPPOE_IPV6);
	CHECK_EQ(ip_len, 40);
	CHECK_EQ(KIND(lcp, &ours), CPE_PPPOE_CTL);
	CHECK_EQ(KIND(one_byte, &ours), CPE_PPPOE_CTL);
	CHECK_EQ(KIND(padt, &ours), CPE_PPPOE_DISC);
	CHECK_EQ(KIND(plain, &ours), CPE_PPPOE_NONE);
	CHECK_EQ(KIND(bad_ver, &ours), CPE_PPPOE_BAD);
	CHECK_EQ(KIND(bad_code, &ours), CPE_PPPOE_BAD);
	CHECK_EQ(KIND(too_long, &ours), CPE_PPPOE_BAD);
	CHECK_EQ(KIND(zero_len, &ours), CPE_PPPOE_BAD);
	/* No session yet, another id, another concentrator: pppd's. */
	CHECK_EQ(KIND(v4, NULL), CPE_PPPOE_OTHER);
	other.sid = 0;
	CHECK_EQ(KIND(v4, &other), CPE_PPPOE_OTHER);
	other.sid = 0x1235;
	CHECK_EQ(KIND(v4, &other), CPE_PPPOE_OTHER);
	other = ours;
	other.ac[5] ^= 1;
	CHECK_EQ(KIND(v4, &other), CPE_PPPOE_OTHER);
	CHECK_EQ(KIND(lcp, &other), CPE_PPPOE_OTHER);
	/* pppd's own, to the concentrator: the peer is the destination. */
	CHECK_EQ(parse_dir(v4, sizeof(v4), &ours, true, &ip_len),
		 CPE_PPPOE_OTHER);
	CHECK_EQ(parse_dir(v4_out, sizeof(v4_out), &ours, true, &ip_len),
		 CPE_PPPOE_IPV4);
	CHECK_EQ(ip_len, 20);
	CHECK_EQ(parse_dir(v4_out, sizeof(v4_out), &ours, false, &ip_len),
		 CPE_PPPOE_OTHER);
}

/* Every prefix of each frame: a verdict, no overread, IP within it. */
static void
test_truncated(void)
{
	static const struct { const uint8_t *f; size_t len; } fr[] = {
		{ v4, sizeof(v4) }, { v6, sizeof(v6) }, { lcp, sizeof(lcp) },
		{ padt, sizeof(padt) }, { one_byte, sizeof(one_byte) },
	};
	enum cpe_pppoe_kind k;
	uint32_t ip_len;
	size_t i, n;
	unsigned int bad = 0;

	for (i = 0; i < sizeof(fr) / sizeof(fr[0]); i++) {
		for (n = 0; n < fr[i].len; n++) {
			ip_len = UINT32_MAX;
			k = parse(fr[i].f, n, &ours, &ip_len);
			if ((k == CPE_PPPOE_IPV4 || k == CPE_PPPOE_IPV6) &&
			    22 + ip_len > n)
				bad++;
			/* Cut inside the session header: malformed. */
			if (n >= 14 && n < 22 && fr[i].f[13] == 0x64 &&
			    k != CPE_PPPOE_BAD)
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	/* The IPv4 frame without its padding is still whole. */
	CHECK_EQ(parse(v4, sizeof(v4) - 4, &ours, &ip_len), CPE_PPPOE_IPV4);
	CHECK_EQ(parse(v4, sizeof(v4) - 5, &ours, &ip_len), CPE_PPPOE_BAD);
}

/* The header encapsulation writes, byte for byte, and parsed back. */
static void
test_hdr(void)
{
	static const uint8_t want[] = { 0x88, 0x64, 0x11, 0x00, 0x12, 0x34,
					0x05, 0xd6, 0x00, 0x21 };
	uint8_t f[14 + 8 + 1492];
	uint32_t ip_len = 0;

	memset(f, 0xee, sizeof(f));
	memcpy(f, (const uint8_t[]){ DST, AC }, 12);
	/* A full 1492-byte packet: PPPoE's length 1494 (0x5d6). */
	cpe_pppoe_hdr(f + 12, 0x1234, CPE_PPP_IPV4, 1492);
	CHECK_MEM(f + 12, want, sizeof(want));
	CHECK_EQ(f[22], 0xee);
	f[22] = 0x45;
	CHECK_EQ(parse(f, sizeof(f), &ours, &ip_len), CPE_PPPOE_IPV4);
	CHECK_EQ(ip_len, 1492);
	cpe_pppoe_hdr(f + 12, 0x1234, CPE_PPP_IPV6, 40);
	CHECK_EQ(f[20], 0x00);
	CHECK_EQ(f[21], 0x57);
	CHECK_EQ(parse(f, 22 + 40, &ours, &ip_len), CPE_PPPOE_IPV6);
	CHECK_EQ(ip_len, 40);
}

/*
 * The forwarding path's header from the session's template: the same
 * bytes as the concentrator's MAC, the source and cpe_pppoe_hdr()'s,
 * with the source read from inside the header written (as cpe_tx() has
 * it: 8 bytes into the headroom, the source 14 bytes after the start).
 */
static void
test_hdr_tmpl(void)
{
	static const uint16_t sids[] = { 0x0001, 0x1234, 0xff00, 0xffff };
	static const uint32_t lens[] = { 0, 20, 46, 255, 256, 1492, 65533 };
	static const uint16_t protos[] = { CPE_PPP_IPV4, CPE_PPP_IPV6 };
	static const uint8_t ac[6] = { AC }, src[6] = { DST };
	uint8_t t[CPE_PPPOE_TMPL_LEN], want[24], f[24];
	unsigned int diff = 0;
	size_t i, j, k;

	cpe_pppoe_tmpl(t, ac, 0x1234);
	CHECK_MEM(t, ((const uint8_t[]){ AC, 0, 0, 0, 0, 0, 0, 0x88, 0x64,
					 0x11, 0x00, 0x12, 0x34 }), 18);
	for (i = 0; i < sizeof(sids) / sizeof(sids[0]); i++) {
		cpe_pppoe_tmpl(t, ac, sids[i]);
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			for (k = 0; k < 2; k++) {
				memset(want, 0xee, sizeof(want));
				memcpy(want, ac, 6);
				memcpy(want + 6, src, 6);
				cpe_pppoe_hdr(want + 12, sids[i], protos[k],
					      lens[j]);
				/* The frame 8 bytes in: its source at 14. */
				memset(f, 0xee, sizeof(f));
				memset(f + 8, 0x55, 6);
				memcpy(f + 14, src, 6);
				cpe_pppoe_hdr_tmpl(f, t, f + 14, protos[k],
						   lens[j]);
				diff += memcmp(f, want, sizeof(f)) != 0;
			}
		}
	}
	CHECK_EQ(diff, 0);
}

/* Which link-local destinations in the session are the router's. */
static void
test_ll_ours(void)
{
	static const struct {
		uint8_t a[16];
		bool ours;
	} c[] = {
		/* IPv6CP's: any interface identifier (RFC 5072 4.1). */
		{ { 0xfe, 0x80, [15] = 1 }, true },
		{ { 0xfe, 0x80, [8] = 0x9c, 0x21, 0x5e, 0xaa, 0x01, 0x02,
		    0x03, 0x04 }, true },
		/* The whole of fe80::/10. */
		{ { 0xfe, 0xbf, [15] = 1 }, true },
		/* Not link-local: site-local, multicast, global, ::. */
		{ { 0xfe, 0xc0, [15] = 1 }, false },
		{ { 0xfe, 0x7f, [15] = 1 }, false },
		{ { 0xff, 0x02, [15] = 1 }, false },
		{ { 0xff, 0x02, [11] = 1, 0xff, 0, 0, 1 }, false },
		{ { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 }, false },
		{ { 0 }, false },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		CHECK_EQ(cpe_pppoe_ll_is_ours(c[i].a), c[i].ours);
}

int
main(void)
{
	test_kinds();
	test_truncated();
	test_hdr();
	test_hdr_tmpl();
	test_ll_ours();
	printf("test_pppoe: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
