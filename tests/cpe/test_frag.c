/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The fragment tracker (app/ch39x-cpe/frag.c) on crafted IPv4 and IPv6
 * fragments, without EAL: parsing (offsets, the M flag, IPv6 extension
 * headers, atomic fragments), tiny and malformed fragments, the first's
 * data for the later ones, overlaps (RFC 5722: the rest of the datagram
 * dropped), too many fragments, a later one without a first, completion,
 * timeouts, eviction in a full table, and every truncation parsed without
 * reading past the end.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "frag.h"

#include "check.h"

#define HZ	1000000ull

static uint32_t
ip4(uint8_t *b, uint16_t id, uint8_t proto, uint32_t off, bool more,
    uint32_t plen)
{
	uint16_t fo = (uint16_t)(off / 8) | (more ? 0x2000 : 0);
	uint32_t tot = 20 + plen;

	memset(b, 0, tot);
	b[0] = 0x45;
	b[2] = (uint8_t)(tot >> 8);
	b[3] = (uint8_t)tot;
	b[4] = (uint8_t)(id >> 8);
	b[5] = (uint8_t)id;
	b[6] = (uint8_t)(fo >> 8);
	b[7] = (uint8_t)fo;
	b[8] = 64;
	b[9] = proto;
	b[12] = 192, b[13] = 168, b[14] = 1, b[15] = 2;
	b[16] = 203, b[17] = 0, b[18] = 113, b[19] = 1;
	return tot;
}

/* IPv6 with a destination-options header, then the fragment header. */
static uint32_t
ip6(uint8_t *b, uint32_t id, uint8_t proto, uint32_t off, bool more,
    uint32_t plen)
{
	uint32_t pl = 8 + 8 + plen;
	uint16_t fo = (uint16_t)(off & 0xfff8) | (more ? 1 : 0);

	memset(b, 0, 40 + pl);
	b[0] = 0x60;
	b[4] = (uint8_t)(pl >> 8);
	b[5] = (uint8_t)pl;
	b[6] = 60;		/* destination options */
	b[7] = 64;
	b[8] = 0x20, b[9] = 0x01, b[10] = 0x0d, b[11] = 0xb8, b[23] = 2;
	b[24] = 0x20, b[25] = 0x01, b[26] = 0x0d, b[27] = 0xb8, b[39] = 1;
	b[40] = 44;		/* next: fragment */
	b[41] = 0;		/* 8 bytes */
	b[48] = proto;
	b[50] = (uint8_t)(fo >> 8);
	b[51] = (uint8_t)fo;
	b[52] = (uint8_t)(id >> 24);
	b[53] = (uint8_t)(id >> 16);
	b[54] = (uint8_t)(id >> 8);
	b[55] = (uint8_t)id;
	return 40 + pl;
}

static struct cpe_frag f;
static uint64_t now = 1000;

static void
test_parse(void)
{
	uint8_t b[2000];
	struct cpe_frag_info fi;
	uint32_t n;

	n = ip4(b, 7, 17, 0, false, 100);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 0);	/* not a fragment */
	n = ip4(b, 7, 17, 0, true, 1480);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	CHECK(fi.off == 0 && fi.len == 1480 && fi.more && fi.k.id == 7);
	CHECK(fi.k.proto == 17 && fi.k.v6 == 0 && fi.l4_off == 20);
	CHECK(fi.k.src[0] == 192 && fi.k.dst[3] == 1);
	n = ip4(b, 7, 17, 1480, false, 100);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	CHECK(fi.off == 1480 && fi.len == 100 && !fi.more);
	/* Tiny: a first fragment without the whole TCP header; TCP at 8. */
	n = ip4(b, 7, 6, 0, true, 16);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), -CPE_FRAG_DROP_TINY);
	n = ip4(b, 7, 6, 8, true, 16);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), -CPE_FRAG_DROP_TINY);
	n = ip4(b, 7, 17, 0, true, 8);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	n = ip4(b, 7, 17, 0, true, 4);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), -CPE_FRAG_DROP_TINY);
	/* Malformed: not in 8-byte units, past 64 KiB. */
	n = ip4(b, 7, 17, 0, true, 1481);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), -CPE_FRAG_DROP_MALFORMED);
	n = ip4(b, 7, 17, 65528, false, 100);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), -CPE_FRAG_DROP_MALFORMED);
	/* IPv6 behind a destination-options header. */
	n = ip6(b, 0x12345678, 58, 0, true, 1232);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	CHECK(fi.k.v6 == 1 && fi.k.id == 0x12345678 && fi.k.proto == 58);
	CHECK(fi.off == 0 && fi.more && fi.len == 1232 && fi.l4_off == 56);
	n = ip6(b, 1, 17, 1232, false, 40);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	CHECK(fi.off == 1232 && !fi.more && fi.len == 40);
	/* An atomic fragment is a whole packet (RFC 6946). */
	n = ip6(b, 1, 17, 0, false, 40);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 0);
	n = ip6(b, 1, 17, 0, true, 4);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), -CPE_FRAG_DROP_TINY);
}

/* The first's data for the later ones; completion frees the entry. */
static void
test_follow(int v6)
{
	uint8_t b[2000];
	struct cpe_frag_info fi;
	enum cpe_frag_reason why;
	const uint8_t *d;
	uint8_t *w;
	uint32_t n;

	CHECK_EQ(cpe_frag_init(&f, 64, HZ, 30), 0);
	n = v6 ? ip6(b, 99, 17, 0, true, 1232) : ip4(b, 99, 17, 0, true, 1480);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	w = cpe_frag_first(&f, &fi, now);
	CHECK(w != NULL);
	if (w != NULL)
		w[0] = 0xab;
	n = v6 ? ip6(b, 99, 17, 1232, true, 1232) :
		ip4(b, 99, 17, 1480, true, 1480);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	d = cpe_frag_later(&f, &fi, now, &why);
	CHECK(d != NULL && d[0] == 0xab);
	CHECK_EQ(f.in_use, 1);
	/* The same fragment again: an overlap, and the rest is dropped. */
	d = cpe_frag_later(&f, &fi, now, &why);
	CHECK(d == NULL && why == CPE_FRAG_DROP_OVERLAP);
	n = v6 ? ip6(b, 99, 17, 2464, false, 100) :
		ip4(b, 99, 17, 2960, false, 100);
	CHECK_EQ(cpe_frag_parse(b, n, &fi), 1);
	d = cpe_frag_later(&f, &fi, now, &why);
	CHECK(d == NULL && why == CPE_FRAG_DROP_OVERLAP);
	CHECK_EQ(f.st.drops[CPE_FRAG_DROP_OVERLAP], 2);

	/* Another datagram, in order: done after its last fragment. */
	n = v6 ? ip6(b, 100, 17, 0, true, 1232) : ip4(b, 100, 17, 0, true, 1480);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_first(&f, &fi, now) != NULL);
	n = v6 ? ip6(b, 100, 17, 1232, false, 8) : ip4(b, 100, 17, 1480, false, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) != NULL);
	CHECK_EQ(f.st.done, 1);
	CHECK_EQ(f.in_use, 1);		/* the bad one is left to time out */
	/* A later fragment without a first: not counted by the tracker. */
	n = v6 ? ip6(b, 101, 17, 1232, false, 8) : ip4(b, 101, 17, 1480, false, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) == NULL);
	CHECK_EQ(why, CPE_FRAG_DROP_NO_FIRST);
	CHECK_EQ(f.st.drops[CPE_FRAG_DROP_NO_FIRST], 0);
	/* A second first fragment of a datagram: an overlap at 0. */
	n = v6 ? ip6(b, 102, 17, 0, true, 1232) : ip4(b, 102, 17, 0, true, 1480);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_first(&f, &fi, now) != NULL);
	CHECK(cpe_frag_first(&f, &fi, now) == NULL);
	CHECK_EQ(f.st.drops[CPE_FRAG_DROP_OVERLAP], 3);
	cpe_frag_free(&f);
}

/* Overlaps in the middle, a second last fragment, too many pieces. */
static void
test_overlaps(void)
{
	uint8_t b[2000];
	struct cpe_frag_info fi;
	enum cpe_frag_reason why;
	uint32_t n, i;

	CHECK_EQ(cpe_frag_init(&f, 64, HZ, 30), 0);
	n = ip4(b, 5, 17, 0, true, 64);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_first(&f, &fi, now) != NULL);
	n = ip4(b, 5, 17, 128, true, 64);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) != NULL);
	/* [56, 136) overlaps both neighbours. */
	n = ip4(b, 5, 17, 56, true, 80);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) == NULL &&
	      why == CPE_FRAG_DROP_OVERLAP);
	/* Too many: 16 ranges at most. */
	n = ip4(b, 6, 17, 0, true, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_first(&f, &fi, now) != NULL);
	for (i = 1; i < CPE_FRAG_RANGES; i++) {
		n = ip4(b, 6, 17, i * 8, true, 8);
		cpe_frag_parse(b, n, &fi);
		CHECK(cpe_frag_later(&f, &fi, now, &why) != NULL);
	}
	n = ip4(b, 6, 17, CPE_FRAG_RANGES * 8, true, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) == NULL &&
	      why == CPE_FRAG_DROP_TOO_MANY);
	/* A fragment past the end a last one gave. */
	n = ip4(b, 7, 17, 0, true, 64);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_first(&f, &fi, now) != NULL);
	n = ip4(b, 7, 17, 128, false, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) != NULL);
	n = ip4(b, 7, 17, 200, true, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now, &why) == NULL &&
	      why == CPE_FRAG_DROP_OVERLAP);
	cpe_frag_free(&f);
}

/* Timeouts and a full table: bounded, evictions and expiries counted. */
static void
test_bounded(void)
{
	uint8_t b[2000];
	struct cpe_frag_info fi;
	enum cpe_frag_reason why;
	uint32_t n, i;

	CHECK_EQ(cpe_frag_init(&f, 64, HZ, 30), 0);
	for (i = 0; i < 1000; i++) {
		n = ip4(b, (uint16_t)i, 17, 0, true, 8);
		cpe_frag_parse(b, n, &fi);
		CHECK(cpe_frag_first(&f, &fi, now + i) != NULL);
	}
	CHECK(f.in_use <= 64);
	CHECK(f.st.evicted >= 1000 - 64);
	/* The newest is there; after the timeout it is gone. */
	n = ip4(b, 999, 17, 8, true, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now + 1000, &why) != NULL);
	n = ip4(b, 999, 17, 16, true, 8);
	cpe_frag_parse(b, n, &fi);
	CHECK(cpe_frag_later(&f, &fi, now + 1000 + 31 * HZ, &why) == NULL);
	CHECK_EQ(why, CPE_FRAG_DROP_NO_FIRST);
	cpe_frag_age(&f, f.mask + 1, now + 1000 + 31 * HZ);
	CHECK_EQ(f.in_use, 0);
	CHECK(f.st.expired >= 1);
	cpe_frag_free(&f);
}

/* Every truncation of fragments parses without reading past the end
 * (run under ASan in scripts/test.sh's sanitizer pass).
 */
static void
test_truncated(void)
{
	uint8_t b[200];
	struct cpe_frag_info fi;
	uint32_t n, len;
	uint8_t *c;

	n = ip6(b, 3, 17, 8, true, 64);
	for (len = 0; len <= n; len++) {
		c = malloc(len ? len : 1);
		memcpy(c, b, len);
		(void)cpe_frag_parse(c, len, &fi);
		free(c);
	}
	n = ip4(b, 3, 17, 8, true, 64);
	for (len = 0; len <= n; len++) {
		c = malloc(len ? len : 1);
		memcpy(c, b, len);
		(void)cpe_frag_parse(c, len, &fi);
		free(c);
	}
}

int
main(void)
{
	test_parse();
	test_follow(0);
	test_follow(1);
	test_overlaps();
	test_bounded();
	test_truncated();
	printf("test_frag: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
