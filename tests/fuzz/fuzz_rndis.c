/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Fuzz the RNDIS codec of ch39x_rndis.h with what a device sends: each
 * transfer of the input is read as a control message (what
 * GET_ENCAPSULATED_RESPONSE returns) and as a bulk IN data transfer; the
 * frames the RX parser yields are then built into transfers with the TX
 * builder and parsed back, which must give the same frames.
 *
 * byte 0    bits 0-3: RX max_pkts (0: no limit); bit 4: TX zlp quirk;
 *           bits 5-7: TX PacketAlignmentFactor
 * 1-2       LE RX max_frame (0: no limit)
 * 3-4       LE the peer's MaxTransferSize for TX (times 4)
 * 5-6       LE bulk wMaxPacketSize
 * 7         TX MaxPacketsPerTransfer
 * then      transfers: LE 16-bit length, that many bytes (a short last
 *           one takes what is left)
 *
 * tests/vm replays the corpus's transfers from a device on a real bus:
 * the same layout (tests/vm/rndis_replay.c).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_rndis.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends */
#include "fuzz.h"

#define HDR 8
#define MAX_FRAMES 512

struct frame_ref {
	uint32_t off;
	uint32_t len;
};

static void
check_ctrl(const uint8_t *p, uint32_t len)
{
	struct ch39x_rndis_msg m;
	enum ch39x_rndis_bad r;
	uint32_t v;

	r = ch39x_rndis_parse_ctrl(p, len, &m);
	if (len < 8) {
		FUZZ_CHECK(r == CH39X_RNDIS_BAD_SHORT);
		return;
	}
	if (r != CH39X_RNDIS_OK)
		return;
	FUZZ_CHECK(m.length <= len && m.length >= 12);
	FUZZ_CHECK(m.type == ch39x_get_le32(p));
	if (m.buf_len) {
		FUZZ_CHECK(m.buf >= p + 8);
		FUZZ_CHECK(m.buf + m.buf_len <= p + m.length);
	} else {
		FUZZ_CHECK(m.buf == NULL);
	}
	if (ch39x_rndis_info_u32(&m, &v) == 0)
		FUZZ_CHECK(m.buf_len >= 4);
	(void)ch39x_rndis_indicate_link(&m);
	(void)ch39x_rndis_match(&m, CH39X_RNDIS_MSG_QUERY, 1);
}

/*
 * One bulk IN transfer. Yields each frame into refs (offsets into p);
 * returns their number.
 */
static uint32_t
check_rx(struct ch39x_rndis_rx *rx, const uint8_t *p, uint32_t len,
	 struct frame_ref *refs, uint32_t max_refs)
{
	struct ch39x_rndis_rx_stats before = rx->stats;
	struct ch39x_rndis_frame f;
	uint32_t n = 0, walked = 0;

	ch39x_rndis_rx_begin(rx, p, len);
	while (ch39x_rndis_rx_next(rx, &f) == 1) {
		FUZZ_CHECK(f.data == p + f.offset);
		FUZZ_CHECK(f.offset <= len && f.len <= len - f.offset);
		FUZZ_CHECK(f.len >= 14);
		if (rx->cfg.max_frame)
			FUZZ_CHECK(f.len <= rx->cfg.max_frame);
		FUZZ_CHECK(++walked <= len / CH39X_RNDIS_PACKET_LEN);
		if (n < max_refs) {
			refs[n].off = f.offset;
			refs[n].len = f.len;
			n++;
		}
	}
	FUZZ_CHECK(rx->off == len);
	FUZZ_CHECK(ch39x_rndis_rx_next(rx, &f) == 0);
	FUZZ_CHECK(rx->stats.pkts - before.pkts == walked);
	FUZZ_CHECK(rx->stats.xfers == before.xfers + 1);
	if (rx->cfg.max_pkts)
		FUZZ_CHECK(walked <= rx->cfg.max_pkts);
	/* Every message walked is a frame or one counted drop. */
	FUZZ_CHECK(rx->n <= walked + (ch39x_rndis_rx_bad(&rx->stats) -
				      ch39x_rndis_rx_bad(&before)));
	return n;
}

/* The frames through the TX builder and back: the same bytes. */
static void
check_tx(const struct ch39x_rndis_tx_cfg *c, const uint8_t *src,
	 const struct frame_ref *refs, uint32_t n)
{
	struct ch39x_rndis_rx_cfg rc = { .max_pkts = c->max_pkts };
	struct ch39x_rndis_tx_end e;
	struct ch39x_rndis_frame f;
	struct ch39x_rndis_rx rx;
	struct ch39x_rndis_tx t;
	enum ch39x_rndis_fit fit;
	uint32_t i = 0, got = 0, k;
	uint8_t *buf, *view;

	if (ch39x_rndis_tx_init(&t, c) != 0) {
		FUZZ_CHECK(c->maxp == 0 ||
			   (c->max_xfer != 0 && c->max_xfer < 58) ||
			   (c->size != 0 && c->size < 58));
		return;
	}
	FUZZ_CHECK(t.align >= 4 && (t.align & (t.align - 1)) == 0);
	buf = malloc(ch39x_rndis_tx_buf_size(&t));
	FUZZ_CHECK(buf != NULL);
	ch39x_rndis_rx_init(&rx, &rc);
	while (i < n) {
		ch39x_rndis_tx_begin(&t, buf);
		while (i < n) {
			fit = ch39x_rndis_tx_check(&t, refs[i].len);
			if (fit == CH39X_RNDIS_FIT_TOO_BIG) {
				FUZZ_CHECK(refs[i].len >
					   ch39x_rndis_tx_max_frame(&t));
				i++;
				continue;
			}
			if (fit != CH39X_RNDIS_FIT_OK)
				break;
			memcpy(ch39x_rndis_tx_add(&t, refs[i].len),
			       src + refs[i].off, refs[i].len);
			i++;
		}
		e = ch39x_rndis_tx_finish(&t);
		FUZZ_CHECK(e.len <= ch39x_rndis_tx_buf_size(&t));
		FUZZ_CHECK(!(e.zlp && e.padded));
		if (e.len == 0)
			continue;
		if (c->maxp > 1)
			FUZZ_CHECK(e.zlp || e.len % c->maxp != 0);
		/* Parse an exactly sized copy: ASan sees any overread. */
		view = fuzz_dup(buf, e.len);
		ch39x_rndis_rx_begin(&rx, view, e.len);
		for (k = 0; k < e.pkts; k++) {
			FUZZ_CHECK(ch39x_rndis_rx_next(&rx, &f) == 1);
			while (refs[got].len > ch39x_rndis_tx_max_frame(&t))
				got++;	/* refused as too big above */
			FUZZ_CHECK(f.len == refs[got].len);
			FUZZ_CHECK(memcmp(f.data, src + refs[got].off,
					  f.len) == 0);
			got++;
		}
		FUZZ_CHECK(ch39x_rndis_rx_next(&rx, &f) == 0);
		FUZZ_CHECK(ch39x_rndis_rx_bad(&rx.stats) == 0);
		free(view);
	}
	FUZZ_CHECK(t.stats.pkts == (uint64_t)got);
	free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_ref refs[MAX_FRAMES];
	struct ch39x_rndis_rx_cfg rc;
	struct ch39x_rndis_tx_cfg tc;
	struct ch39x_rndis_rx rx;
	size_t off = HDR;
	uint32_t len, n;
	uint8_t *x;

	if (size < HDR)
		return 0;
	memset(&rc, 0, sizeof(rc));
	rc.max_pkts = data[0] & 0xF;
	rc.max_frame = ch39x_get_le16(data + 1);
	memset(&tc, 0, sizeof(tc));
	tc.zlp = (data[0] & 0x10) != 0;
	tc.align_factor = data[0] >> 5;
	tc.max_xfer = 4u * ch39x_get_le16(data + 3);
	tc.maxp = ch39x_get_le16(data + 5);
	tc.max_pkts = data[7];
	ch39x_rndis_rx_init(&rx, &rc);

	while (off < size) {
		len = size - off >= 2 ? ch39x_get_le16(data + off) : 0;
		off += size - off >= 2 ? 2 : size - off;
		if (len > size - off)
			len = (uint32_t)(size - off);
		x = fuzz_dup(data + off, len);
		off += len;
		check_ctrl(x, len);
		n = check_rx(&rx, x, len, refs, MAX_FRAMES);
		check_tx(&tc, x, refs, n);
		free(x);
	}
	return 0;
}
