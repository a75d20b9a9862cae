/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the TCP segmentation of ch39x_tso.h with arbitrary super-frames and
 * header lengths, as an application (software TSO) or a host driving the
 * simulated CH398 (hardware TSO) may hand them over.
 *
 * Input layout:
 *   byte 0     bit 0: take the header lengths from ch39x_parse_hdrs when it
 *              finds TCP, instead of bytes 1-3
 *   bytes 1-3  l2_len, l3_len, l4_len
 *   bytes 4-5  mss, little endian
 *   rest       the super-frame, copied into an exactly sized buffer
 *
 * Every segment is emitted into its own exactly sized buffer.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_net.h"
#include "ch39x_tso.h"
#include "fuzz.h"

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		((uint32_t)p[2] << 8) | p[3];
}

/* One emitted segment against the super-frame it was cut from. */
static void
check_segment(const struct ch39x_tso *t, const uint8_t *frame,
	      const uint8_t *seg, uint32_t seg_len, uint32_t idx)
{
	uint32_t hdr = t->hdr_len, pay = seg_len - hdr, off = idx * t->mss;
	const uint8_t *ip = seg + t->l2_len, *tcp = ip + t->l3_len;
	const uint8_t *oip = frame + t->l2_len, *otcp = oip + t->l3_len;
	bool first = idx == 0, last = idx + 1 == t->nseg;
	uint8_t flags = otcp[13];
	struct ch39x_hdrs h;

	/* L2 untouched, payload is the right slice of the super-frame. */
	FUZZ_CHECK(memcmp(seg, frame, t->l2_len) == 0);
	FUZZ_CHECK(memcmp(seg + hdr, frame + hdr + off, pay) == 0);
	/* TCP: sequence advanced by the payload before, flags per segment. */
	FUZZ_CHECK(rd32(tcp + 4) == rd32(otcp + 4) + off);
	FUZZ_CHECK(memcmp(tcp, otcp, 4) == 0);
	FUZZ_CHECK(memcmp(tcp + 8, otcp + 8, 5) == 0);
	if (!last)
		flags &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (!first)
		flags &= (uint8_t)~TCP_CWR;
	FUZZ_CHECK(tcp[13] == flags);
	FUZZ_CHECK(memcmp(tcp + 14, otcp + 14, 2) == 0);
	FUZZ_CHECK(memcmp(tcp + 18, otcp + 18, t->l4_len - 18u) == 0);
	/* IP: only the length, the IPv4 ID and checksum change. */
	if (t->ipv4) {
		FUZZ_CHECK(memcmp(ip, oip, 2) == 0);
		FUZZ_CHECK(rd16(ip + 2) ==
			   (uint16_t)(t->l3_len + t->l4_len + pay));
		FUZZ_CHECK(rd16(ip + 4) == (uint16_t)(rd16(oip + 4) + idx));
		FUZZ_CHECK(memcmp(ip + 6, oip + 6, 4) == 0);
		FUZZ_CHECK(memcmp(ip + 12, oip + 12, t->l3_len - 12u) == 0);
	} else {
		FUZZ_CHECK(memcmp(ip, oip, 4) == 0);
		FUZZ_CHECK(rd16(ip + 4) == (uint16_t)(t->l4_len + pay));
		FUZZ_CHECK(memcmp(ip + 6, oip + 6, t->l3_len - 6u) == 0);
	}
	/* Both checksums are right for the segment as sent. */
	memset(&h, 0, sizeof(h));
	h.l2_len = t->l2_len;
	h.l3_len = t->l3_len;
	h.l4_len = t->l4_len;
	h.l4_proto = CH39X_IPPROTO_TCP;
	h.ipv4 = t->ipv4;
	h.ipv6 = !t->ipv4;
	h.l4_total = t->l4_len + pay;
	if (t->ipv4)
		FUZZ_CHECK(ch39x_ip4_csum_ok(seg, &h));
	FUZZ_CHECK(ch39x_l4_csum_ok(seg, &h));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint16_t l2, l3, l4, mss;
	uint32_t len, hdr, seg_len, idx = 0;
	uint64_t payload = 0;
	struct ch39x_hdrs h;
	struct ch39x_tso t;
	uint8_t *frame, *seg;
	int n;

	if (size < 6 || size - 6 > UINT32_MAX)
		return 0;
	l2 = data[1];
	l3 = data[2];
	l4 = data[3];
	mss = (uint16_t)(data[4] | (data[5] << 8));
	len = (uint32_t)(size - 6);
	frame = fuzz_dup(data + 6, len);
	if ((data[0] & 1) && ch39x_parse_hdrs(frame, len, &h) == 0 &&
	    h.l4_proto == CH39X_IPPROTO_TCP) {
		l2 = h.l2_len;
		l3 = h.l3_len;
		l4 = h.l4_len;
	}

	n = ch39x_tso_init(&t, frame, len, l2, l3, l4, mss);
	hdr = (uint32_t)l2 + l3 + l4;
	if (n < 0) {
		FUZZ_CHECK(n == -1);
		FUZZ_CHECK(ch39x_tso_next_len(&t) == 0);
		free(frame);
		return 0;
	}
	FUZZ_CHECK(mss != 0);
	FUZZ_CHECK(hdr <= len && hdr <= CH39X_TSO_MAX_HDRS);
	FUZZ_CHECK(t.hdr_len == hdr);
	FUZZ_CHECK(n >= 1 && (uint32_t)n == t.nseg);
	FUZZ_CHECK((uint64_t)n == (len == hdr ? 1 :
				   ((uint64_t)len - hdr + mss - 1) / mss));

	while ((seg_len = ch39x_tso_next_len(&t)) != 0) {
		FUZZ_CHECK(idx < (uint32_t)n);
		FUZZ_CHECK(seg_len >= hdr);
		FUZZ_CHECK(seg_len <= hdr + (uint32_t)mss);
		/* Every segment but the last carries a full mss. */
		if (idx + 1 < (uint32_t)n)
			FUZZ_CHECK(seg_len == hdr + (uint32_t)mss);
		seg = malloc(seg_len);
		FUZZ_CHECK(seg != NULL);
		ch39x_tso_emit(&t, seg);
		FUZZ_CHECK(t.idx == idx + 1);
		check_segment(&t, frame, seg, seg_len, idx);
		payload += seg_len - hdr;
		free(seg);
		idx++;
	}
	FUZZ_CHECK(idx == (uint32_t)n);
	FUZZ_CHECK(payload == (uint64_t)len - hdr);
	FUZZ_CHECK(ch39x_tso_next_len(&t) == 0);
	free(frame);
	return 0;
}
