/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Fuzz the simulated adapter's bulk OUT side (tx_parse and the V02
 * checksum, VLAN and TSO engines of ch39x_sim.c) with transfers from a
 * possibly buggy or malicious host, through the transport ops only.
 *
 * Input layout:
 *   byte 0   bits 0-1: device (CH397 high, CH398 super, high, full speed)
 *            bit 2: the OUT transfer ends with a ZLP
 *            bit 3: V02 receive VLAN strip on (MISC_CFG)
 *            bit 4: jumbo receive on (MAC_CFG RWTE)
 *   rest     one bulk OUT transfer, copied into an exactly sized buffer
 *
 * The devices are opened once, with wire=loop: what the host sends comes
 * back on bulk IN, which is drained into exactly sized transfers and parsed
 * with the vendor RX parser after each input. Checked: the OUT transfer
 * completes once and whole, every frame sent is accounted for on the
 * receive side, what the device sends back parses cleanly, and on V01 (no
 * offload engines) the frames come back exactly as the records held them.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_sim.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"
#include "fuzz.h"

#define MACCFG_TX_EN	(1u << 13)
#define MACCFG_RX_EN	(1u << 14)
#define V02_NOJUMBO_MAX	(2040 + 18)
/* Bound on bulk IN transfers drained per input; far above what fits. */
#define MAX_IN_XFERS	100000
#define ALIGN4(x)	(((x) + 3u) & ~3u)

/*
 * The frames a V01 device must loop back for one OUT transfer, found by
 * this file's own reading of §5: records one after the other until
 * the first malformed one. V01 has no offload engines, so they come back
 * byte for byte, runts padded with zeros to 60 bytes.
 */
struct expect {
	const uint8_t *buf;	/* the OUT transfer */
	uint32_t off[4096];	/* frame offsets in buf */
	uint32_t len[4096];
	uint32_t n;
	uint32_t next;		/* next frame to come back */
};

struct sim_slot {
	uint16_t pid;
	enum ch39x_usb_speed speed;
	struct ch39x_usb_dev *dev;
	struct ch39x_profile prof;
};

static struct sim_slot slots[4] = {
	{ .pid = CH39X_PID_CH397, .speed = CH39X_SPEED_HIGH },
	{ .pid = CH39X_PID_CH398, .speed = CH39X_SPEED_SUPER },
	{ .pid = CH39X_PID_CH398, .speed = CH39X_SPEED_HIGH },
	{ .pid = CH39X_PID_CH398, .speed = CH39X_SPEED_FULL },
};

static struct ch39x_usb_dev *
slot_dev(struct sim_slot *sl)
{
	struct ch39x_sim_config cfg;
	char err[256];

	if (sl->dev != NULL)
		return sl->dev;
	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = sl->pid;
	cfg.speed = sl->speed;
	cfg.wire = CH39X_WIRE_LOOP;
	sl->dev = ch39x_sim_open(&cfg, err, sizeof(err));
	if (sl->dev == NULL) {
		fprintf(stderr, "ch39x_sim_open: %s\n", err);
		abort();
	}
	FUZZ_CHECK(ch39x_profile_init(&sl->prof, sl->pid, sl->speed) == 0);
	return sl->dev;
}

static void
wr_reg(struct ch39x_usb_dev *d, uint32_t addr, uint32_t v)
{
	uint8_t b[4];

	ch39x_put_le32(b, v);
	FUZZ_CHECK(d->ops->control(d, CH39X_REQT_OUT, CH39X_REQ_WR_REG,
				   (uint16_t)addr, (uint16_t)(addr >> 16),
				   b, 4, 100) == 4);
}

static bool
v01_expect(struct expect *e, const uint8_t *buf, uint32_t len)
{
	uint32_t off = 0, flen;

	e->buf = buf;
	e->n = 0;
	e->next = 0;
	while (len - off >= CH39X_HDR_LEN) {
		flen = ch39x_get_le32(buf + off) & CH39X_TX_LEN_MASK;
		if (flen < 14 || flen > CH39X_V01_MAX_FRAME ||
		    flen > len - off - CH39X_HDR_LEN)
			break;
		if (e->n == sizeof(e->off) / sizeof(e->off[0]))
			return false;	/* too many to follow: no check */
		e->off[e->n] = off + CH39X_HDR_LEN;
		e->len[e->n] = flen;
		e->n++;
		off += ALIGN4(CH39X_HDR_LEN + flen);
		if (off >= len)
			break;
	}
	return true;
}

static void
check_expected(struct expect *e, const struct ch39x_rx_frame *f)
{
	uint32_t i, k = e->next++;

	FUZZ_CHECK(k < e->n);
	FUZZ_CHECK(f->len == (e->len[k] < CH39X_MIN_FRAME ?
			      CH39X_MIN_FRAME : e->len[k]));
	FUZZ_CHECK(memcmp(f->data, e->buf + e->off[k], e->len[k]) == 0);
	for (i = e->len[k]; i < f->len; i++)
		FUZZ_CHECK(f->data[i] == 0);
}

/*
 * Drain bulk IN; returns the number of frames the RX parser found. With e,
 * they must be e's frames in order.
 */
static uint64_t
drain_in(struct ch39x_usb_dev *d, const struct ch39x_profile *prof,
	 uint32_t max_frame, struct expect *e)
{
	uint32_t size = prof->rx_xfer_size;
	struct ch39x_rx_parser *ps = malloc(sizeof(*ps));
	uint8_t *buf = malloc(size);
	struct ch39x_xfer x, *done;
	struct ch39x_rx_frame f;
	uint64_t frames = 0;
	unsigned int i;

	FUZZ_CHECK(ps != NULL && buf != NULL);
	ch39x_rx_parser_init(ps, prof);
	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_IN;
	x.buf = buf;
	for (i = 0; ; i++) {
		FUZZ_CHECK(i < MAX_IN_XFERS);
		x.len = size;
		FUZZ_CHECK(d->ops->submit(d, &x) == 0);
		if (d->ops->poll(d, CH39X_EP_BULK_IN, &done, 1) == 0) {
			/* Nothing more: take the idle transfer back. */
			d->ops->cancel_all(d, CH39X_EP_BULK_IN);
			FUZZ_CHECK(d->ops->poll(d, CH39X_EP_BULK_IN,
						&done, 1) == 1);
			FUZZ_CHECK(done == &x &&
				   x.status == CH39X_XFER_CANCELLED);
			FUZZ_CHECK(x.actual == 0 && !x.in_flight);
			break;
		}
		FUZZ_CHECK(done == &x && x.status == CH39X_XFER_OK);
		FUZZ_CHECK(x.actual > 0 && x.actual <= size && !x.in_flight);
		ch39x_rx_begin(ps, buf, x.actual);
		/* As the PMD: a transfer that ended early is short. */
		if (x.actual < size)
			ch39x_rx_mark_short(ps);
		while (ch39x_rx_next(ps, &f) == 1) {
			FUZZ_CHECK(f.len >= CH39X_MIN_FRAME);
			FUZZ_CHECK(f.len <= max_frame);
			if (e != NULL)
				check_expected(e, &f);
			frames++;
		}
	}
	/* The device only sends well-formed, complete records. */
	FUZZ_CHECK(ps->stats.bad_headers == 0);
	FUZZ_CHECK(ps->stats.short_xfers == 0);
	FUZZ_CHECK(ps->stats.truncated == 0);
	FUZZ_CHECK(ps->carry_len == 0);
	FUZZ_CHECK(ps->stats.frames == frames);
	if (e != NULL)
		FUZZ_CHECK(e->next == e->n);
	free(buf);
	free(ps);
	return frames;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct expect expect;
	struct ch39x_sim_counters c0, c1;
	const struct ch39x_profile *prof;
	struct expect *e = NULL;
	struct ch39x_xfer x, *done[4];
	struct ch39x_usb_dev *d;
	struct sim_slot *sl;
	uint32_t mac_cfg, max_frame;
	uint64_t frames;
	bool jumbo;

	if (size < 1 || size - 1 > UINT32_MAX)
		return 0;
	sl = &slots[data[0] & 3u];
	d = slot_dev(sl);
	prof = &sl->prof;
	jumbo = (data[0] & 0x10) != 0;

	/* Promiscuous, so every frame on the loop comes back. */
	mac_cfg = MACCFG_TX_EN | MACCFG_RX_EN | CH39X_MACCFG_RX_RA;
	if (jumbo)
		mac_cfg |= CH39X_MACCFG_RWTE;
	wr_reg(d, prof->regs.mac_cfg, mac_cfg);
	if (prof->family == CH39X_V02)
		wr_reg(d, prof->regs.misc_cfg, (data[0] & 8) ?
		       CH39X_MISCCFG_VLAN_STRIP : 0);
	if (prof->family == CH39X_V01)
		max_frame = CH39X_V01_MAX_FRAME;
	else
		max_frame = jumbo ? prof->max_frame : V02_NOJUMBO_MAX;

	ch39x_sim_get_counters(d, &c0);
	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_OUT;
	x.len = (uint32_t)(size - 1);
	x.buf = fuzz_dup(data + 1, x.len);
	x.zlp = (data[0] & 4) != 0;
	FUZZ_CHECK(d->ops->submit(d, &x) == 0);
	/* Submitting what is in flight is refused. */
	FUZZ_CHECK(!x.in_flight || d->ops->submit(d, &x) == -EINVAL);
	FUZZ_CHECK(d->ops->poll(d, CH39X_EP_BULK_OUT, done, 4) == 1);
	FUZZ_CHECK(done[0] == &x && x.status == CH39X_XFER_OK);
	FUZZ_CHECK(x.actual == x.len && !x.in_flight);
	FUZZ_CHECK(d->ops->poll(d, CH39X_EP_BULK_OUT, done, 4) == 0);
	if (prof->family == CH39X_V01 && v01_expect(&expect, x.buf, x.len))
		e = &expect;

	frames = drain_in(d, prof, max_frame, e);
	ch39x_sim_get_counters(d, &c1);
	free(x.buf);
	/* Sent frames either came back off the loop or overflowed its FIFO. */
	FUZZ_CHECK(c1.tx_frames - c0.tx_frames ==
		   (c1.wire_rx_frames - c0.wire_rx_frames) +
		   (c1.rx_overflow - c0.rx_overflow));
	FUZZ_CHECK(c1.wire_rx_frames - c0.wire_rx_frames ==
		   (c1.rx_delivered - c0.rx_delivered) +
		   (c1.rx_filtered - c0.rx_filtered) +
		   (c1.rx_oversize - c0.rx_oversize) +
		   (c1.rx_link_down - c0.rx_link_down));
	FUZZ_CHECK(c1.rx_filtered == c0.rx_filtered);
	FUZZ_CHECK(c1.rx_link_down == c0.rx_link_down);
	FUZZ_CHECK(c1.tx_link_down == c0.tx_link_down);
	FUZZ_CHECK(frames == c1.rx_delivered - c0.rx_delivered);
	FUZZ_CHECK(c1.tx_tso_segments - c0.tx_tso_segments <=
		   c1.tx_frames - c0.tx_frames);
	if (prof->family == CH39X_V01)
		FUZZ_CHECK(c1.tx_tso_segments == c0.tx_tso_segments);
	return 0;
}
