/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the CDC-ECM framing rules of ch39x_ecm.h: the RX length check of
 * each bulk IN transfer and the TX short-packet rule, over arbitrary
 * lengths and configurations, and the two against each other (what one
 * side sends, the other side takes as the same frame).
 *
 * byte 0   bit 0: configuration from descriptors (ch39x_ecm_cfg_init),
 *          else raw; bit 1: zlp quirk
 * raw:     1-4 LE max_frame, 5-6 LE in_maxp, 7-8 LE out_maxp
 * descr.:  1 bit 0 have_ether, bit 1 have_data_eps; 2-3 LE
 *          wMaxSegmentSize, 4-5 LE bulk IN and 6-7 LE bulk OUT
 *          wMaxPacketSize; 8 unused
 * then     4 bytes LE per length (at most 64), v:
 *          bits 31-30 = 2: max_frame + (int8_t)(v & 0xFF)
 *          bits 31-30 = 3: out_maxp * (bits 8-23) + (int8_t)(v & 0xFF)
 *          else:           v
 *          (all modulo 2^32)
 *
 * Each TX frame is in an exactly sized heap buffer of its length plus the
 * pad byte, so ASan sees any write past that byte.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_ecm.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends */
#include "fuzz.h"

#define HDR 9
#define MAX_LENS 64
/* Longest frame the harness allocates for the TX rule. */
#define MAX_TX_ALLOC (128u * 1024u)
/* Frame bytes before the pad byte checked to be left alone. */
#define TAIL 64u

static void
check_rx(const struct ch39x_ecm_cfg *c, struct ch39x_ecm_rx_stats *st,
	 uint32_t xl)
{
	struct ch39x_ecm_rx_stats want = *st;
	uint32_t flen = 0xDEADBEEF, expect = 0;
	int r, er = 1;

	if (xl == 0) {
		want.zero_len++;
		er = 0;
	} else if (xl < CH39X_ECM_MIN_FRAME) {
		want.runts++;
		er = 0;
	} else if (xl <= c->max_frame) {
		expect = xl;
	} else if ((uint64_t)xl == (uint64_t)c->max_frame + 1 &&
		   c->in_maxp != 0 && c->max_frame % c->in_maxp == 0) {
		/* The pad byte of a max_frame frame, a packet multiple. */
		want.pad_trimmed++;
		expect = c->max_frame;
	} else {
		want.oversize++;
		er = 0;
	}
	if (er) {
		want.frames++;
		want.frame_bytes += expect;
	}
	r = ch39x_ecm_rx_check(c, st, xl, &flen);
	FUZZ_CHECK(r == er);
	FUZZ_CHECK(memcmp(&want, st, sizeof(want)) == 0);
	if (r) {
		FUZZ_CHECK(flen == expect);
		FUZZ_CHECK(flen <= xl && flen <= c->max_frame);
		if (c->max_frame >= CH39X_ECM_MIN_FRAME)
			FUZZ_CHECK(flen >= CH39X_ECM_MIN_FRAME);
	} else {
		FUZZ_CHECK(flen == 0xDEADBEEF);	/* untouched */
	}
}

/*
 * The TX rule for a frame of len bytes, and what a peer whose bulk IN
 * packets are our bulk OUT packets makes of the transfer.
 */
static void
check_tx(const struct ch39x_ecm_cfg *c, uint32_t len)
{
	struct ch39x_ecm_rx_stats st;
	struct ch39x_ecm_cfg peer;
	struct ch39x_ecm_tx_end e;
	bool mult = len != 0 && c->out_maxp != 0 && len % c->out_maxp == 0;
	uint32_t i, head, flen = 0;
	uint8_t *buf;

	FUZZ_CHECK(ch39x_ecm_tx_len_ok(c, len) ==
		   (len >= CH39X_ECM_MIN_FRAME && len <= c->max_frame));
	if (len > MAX_TX_ALLOC)
		return;
	buf = malloc((size_t)len + 1);
	FUZZ_CHECK(buf != NULL);
	/* The frame's last bytes are what a stray write would hit. */
	head = len > TAIL ? len - TAIL : 0;
	for (i = head; i < len; i++)
		buf[i] = (uint8_t)(i * 7u + 1u);
	buf[len] = 0xEE;
	e = ch39x_ecm_tx_finish(c, buf, len);
	FUZZ_CHECK(!(e.zlp && e.padded));
	FUZZ_CHECK(e.zlp == (mult && c->zlp));
	FUZZ_CHECK(e.padded == (mult && !c->zlp));
	FUZZ_CHECK(e.len == len + (e.padded ? 1u : 0u));
	/* The frame is left alone; the pad byte is zero, else untouched. */
	for (i = head; i < len; i++)
		FUZZ_CHECK(buf[i] == (uint8_t)(i * 7u + 1u));
	FUZZ_CHECK(buf[len] == (e.padded ? 0 : 0xEE));
	/* Either way, what goes on the bus is not a packet multiple. */
	if (c->out_maxp != 0 && !e.zlp && e.len != 0 && c->out_maxp > 1)
		FUZZ_CHECK(e.len % c->out_maxp != 0);

	if (ch39x_ecm_tx_len_ok(c, len)) {
		peer = *c;
		peer.in_maxp = c->out_maxp;
		memset(&st, 0, sizeof(st));
		FUZZ_CHECK(ch39x_ecm_rx_check(&peer, &st, e.len, &flen) == 1);
		/* The same frame; a shorter padded one keeps its pad byte. */
		if (e.padded && len < c->max_frame)
			FUZZ_CHECK(flen == len + 1);
		else
			FUZZ_CHECK(flen == len);
		FUZZ_CHECK(st.pad_trimmed == (e.padded &&
					      len == c->max_frame));
	}
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_ecm_rx_stats st;
	struct ch39x_cdc_desc d;
	struct ch39x_ecm_cfg c;
	const uint8_t *p;
	unsigned int k;
	uint32_t v, len;
	int r;

	if (size < HDR)
		return 0;
	if (data[0] & 1) {
		memset(&d, 0, sizeof(d));
		d.have_ether = data[1] & 1;
		d.have_data_eps = (data[1] & 2) != 0;
		d.max_segment = ch39x_get_le16(data + 2);
		d.bulk_in_maxp = ch39x_get_le16(data + 4);
		d.bulk_out_maxp = ch39x_get_le16(data + 6);
		memset(&c, 0xA5, sizeof(c));
		r = ch39x_ecm_cfg_init(&c, &d, data[0] & 2);
		FUZZ_CHECK(r == (d.have_data_eps && d.bulk_in_maxp &&
				 d.bulk_out_maxp ? 0 : -1));
		FUZZ_CHECK(c.max_frame == (d.have_ether && d.max_segment >
					   CH39X_ECM_MIN_SEGMENT ?
					   d.max_segment :
					   CH39X_ECM_MIN_SEGMENT));
		FUZZ_CHECK(c.zlp == ((data[0] & 2) != 0));
		if (r != 0)
			return 0;
		FUZZ_CHECK(c.in_maxp == d.bulk_in_maxp &&
			   c.out_maxp == d.bulk_out_maxp);
	} else {
		memset(&c, 0, sizeof(c));
		c.max_frame = ch39x_get_le32(data + 1);
		c.in_maxp = ch39x_get_le16(data + 5);
		c.out_maxp = ch39x_get_le16(data + 7);
		c.zlp = (data[0] & 2) != 0;
	}
	/* Room for the longest frame and its pad byte (no wrap at 2^32). */
	if (c.max_frame < UINT32_MAX)
		FUZZ_CHECK(ch39x_ecm_tx_buf_size(&c) == c.max_frame + 1);

	memset(&st, 0, sizeof(st));
	for (p = data + HDR, k = 0; data + size - p >= 4 && k < MAX_LENS;
	     p += 4, k++) {
		v = ch39x_get_le32(p);
		switch (v >> 30) {
		case 2:
			len = c.max_frame + (uint32_t)(int32_t)(int8_t)v;
			break;
		case 3:
			len = (uint32_t)c.out_maxp * ((v >> 8) & 0xFFFFu) +
			      (uint32_t)(int32_t)(int8_t)v;
			break;
		default:
			len = v;
			break;
		}
		check_rx(&c, &st, len);
		check_tx(&c, len);
	}
	return 0;
}
