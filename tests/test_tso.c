/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The TCP segmenter (lib/ch39x/ch39x_tso.c) at its edges: payload an exact
 * multiple of the MSS, one byte over, a single segment, no payload, TCP
 * options, IPv6, a VLAN tag, flags, and headers the segmenter must refuse.
 * Expected values are computed here by hand from the input super-frame,
 * and checksums with an independent one's-complement sum.
 */

#include <stdlib.h>
#include <string.h>

#include "ch39x_tso.h"
#include "check.h"

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t
get32(const uint8_t *p)
{
	return ((uint32_t)get16(p) << 16) | get16(p + 2);
}

/* One's-complement sum, written out again so as not to trust the library. */
static uint32_t
sum16(uint32_t s, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

struct frame {
	uint8_t b[70000];
	uint32_t len;
	uint16_t l2, l3, l4;
	bool v6;
};

/*
 * A TCP super-frame: optional VLAN tag, IPv4 (ID 0x1234) or IPv6, TCP with
 * opt bytes of options, seq 1000, flags, pay payload bytes.
 */
static void
build(struct frame *f, bool v6, bool vlan, uint16_t opt, uint8_t flags,
      uint32_t pay)
{
	uint8_t *p = f->b, *ip, *tcp;
	uint32_t i;

	memset(f, 0, sizeof(*f));
	f->v6 = v6;
	memset(p, 0x02, 12);
	f->l2 = 14;
	if (vlan) {
		put16(p + 12, 0x8100);
		put16(p + 14, 0x0064);
		f->l2 = 18;
	}
	put16(p + f->l2 - 2, v6 ? 0x86DD : 0x0800);
	ip = p + f->l2;
	f->l3 = v6 ? 40 : 20;
	f->l4 = (uint16_t)(20 + opt);
	if (v6) {
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)(f->l4 + pay));
		ip[6] = 6;
		ip[7] = 64;
		for (i = 0; i < 32; i++)
			ip[8 + i] = (uint8_t)(0xFD + i);
	} else {
		ip[0] = 0x45;
		put16(ip + 2, (uint16_t)((20 + f->l4 + pay) & 0xFFFF));
		put16(ip + 4, 0x1234);
		ip[8] = 64;
		ip[9] = 6;
		ip[12] = 10; ip[15] = 1; ip[16] = 10; ip[19] = 2;
	}
	tcp = ip + f->l3;
	put16(tcp, 40000);
	put16(tcp + 2, 5201);
	put16(tcp + 4, 0);
	put16(tcp + 6, 1000);
	tcp[12] = (uint8_t)((f->l4 / 4) << 4);
	tcp[13] = flags;
	put16(tcp + 14, 65535);
	for (i = 20; i < f->l4; i++)
		tcp[i] = i == 20 ? 1 : (uint8_t)i;	/* NOP, then bytes */
	f->len = (uint32_t)f->l2 + f->l3 + f->l4 + pay;
	for (i = f->l2 + f->l3 + f->l4; i < f->len; i++)
		p[i] = (uint8_t)(i * 13 + (i >> 9));
}

/* Segment f with mss and check every segment; returns segments made. */
static uint32_t
run(const struct frame *f, uint16_t mss, uint32_t want_segs)
{
	static uint8_t seg[70000], joined[70000];
	uint32_t hdr = (uint32_t)f->l2 + f->l3 + f->l4;
	uint32_t pay = f->len - hdr, off = 0, n = 0, len, sl;
	uint8_t in_flags = f->b[f->l2 + f->l3 + 13];
	struct ch39x_tso t;
	uint8_t *ip, *tcp;
	uint32_t s;

	CHECK_EQ(ch39x_tso_init(&t, f->b, f->len, f->l2, f->l3, f->l4, mss),
		 want_segs);
	while ((len = ch39x_tso_next_len(&t)) != 0) {
		bool last = n + 1 == want_segs;

		sl = len - hdr;
		CHECK(sl <= mss);
		CHECK(sl == (last ? pay - off : mss));
		ch39x_tso_emit(&t, seg);
		ip = seg + f->l2;
		tcp = ip + f->l3;
		/* Layer 2 and the TCP options are copied as they are. */
		CHECK_MEM(seg, f->b, f->l2);
		CHECK_MEM(tcp + 20, f->b + f->l2 + f->l3 + 20, f->l4 - 20u);
		CHECK_EQ(get32(tcp + 4), 1000 + off);
		/* FIN and PSH on the last segment only, CWR on the first. */
		CHECK_EQ(tcp[13] & 0x09, last ? (in_flags & 0x09) : 0);
		CHECK_EQ(tcp[13] & 0x80, n == 0 ? (in_flags & 0x80) : 0);
		CHECK_EQ(tcp[13] & 0x76, in_flags & 0x76);
		if (f->v6) {
			CHECK_EQ(get16(ip + 4), f->l4 + sl);
			s = sum16(0, ip + 8, 32) + 6 + f->l4 + sl;
		} else {
			CHECK_EQ(get16(ip + 2), 20 + f->l4 + sl);
			CHECK_EQ(get16(ip + 4), (0x1234 + n) & 0xFFFF);
			CHECK_EQ(fold(sum16(0, ip, 20)), 0xFFFF);
			s = sum16(0, ip + 12, 8) + 6 + f->l4 + sl;
		}
		CHECK_EQ(fold(sum16(s, tcp, f->l4 + sl)), 0xFFFF);
		memcpy(joined + off, seg + hdr, sl);
		off += sl;
		n++;
	}
	CHECK_EQ(n, want_segs);
	CHECK_EQ(off, pay);
	CHECK_MEM(joined, f->b + hdr, pay);
	return n;
}

int
main(void)
{
	static struct frame f;
	uint32_t pays[] = { 1448 * 4, 1448 * 4 + 1, 1447, 1448, 1, 0,
			    65000 - 80 };
	unsigned int i, v6, vlan;

	for (v6 = 0; v6 < 2; v6++) {
		for (vlan = 0; vlan < 2; vlan++) {
			for (i = 0; i < sizeof(pays) / sizeof(pays[0]); i++) {
				uint32_t want = pays[i] == 0 ? 1 :
					(pays[i] + 1447) / 1448;

				/* ACK|PSH|FIN|CWR|ECE to watch the flags. */
				build(&f, v6, vlan, 0, 0x10 | 0x08 | 0x01 |
				      0x80 | 0x40, pays[i]);
				run(&f, 1448, want);
			}
			/* Timestamps and SACK options: 12 and 20 bytes. */
			build(&f, v6, vlan, 12, 0x18, 9000);
			run(&f, 1448, (9000 + 1447) / 1448);
			build(&f, v6, vlan, 40, 0x18, 3000);
			run(&f, 1000, 3);
		}
	}
	/* A jumbo MSS: 8960 at MTU 9000. */
	build(&f, false, false, 0, 0x18, 62720);
	run(&f, 8960, 7);

	/* Refused: not TCP, wrong lengths, MSS 0, headers past the frame. */
	{
		struct ch39x_tso t;

		build(&f, false, false, 0, 0x18, 100);
		CHECK(ch39x_tso_init(&t, f.b, f.len, 14, 20, 20, 0) < 0);
		CHECK(ch39x_tso_init(&t, f.b, f.len, 14, 24, 20, 100) < 0);
		CHECK(ch39x_tso_init(&t, f.b, f.len, 14, 20, 24, 100) < 0);
		CHECK(ch39x_tso_init(&t, f.b, 50, 14, 20, 20, 100) < 0);
		f.b[14 + 9] = 17;	/* UDP */
		CHECK(ch39x_tso_init(&t, f.b, f.len, 14, 20, 20, 100) < 0);
		build(&f, true, false, 0, 0x18, 100);
		CHECK(ch39x_tso_init(&t, f.b, f.len, 14, 20, 20, 100) < 0);
		f.b[12] = 0x08;
		f.b[13] = 0x06;	/* ARP */
		CHECK(ch39x_tso_init(&t, f.b, f.len, 14, 40, 20, 100) < 0);
	}
	printf("test_tso: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
