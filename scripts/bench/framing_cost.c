/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Framing cost of the three USB framings the project codes, computed with
 * the project's own TX builders (lib/ch39x): a long stream of equal frames
 * is packed into bulk OUT transfers exactly as the PMD would, and the
 * result is counted. Pure computation, deterministic, no DPDK.
 *
 * Framings (bulk wMaxPacketSize 1024, SuperSpeed, for all):
 *   vendor       CH398 vendor mode, SuperSpeed profile (ch39x_profile_init):
 *                16384-byte TX transfers, 8-byte record header, 4-byte
 *                record alignment, packing stops under 68 bytes of room.
 *   ncm_gadget   CDC-NCM NTB16 with the Linux 6.1 gadget's NTB parameters:
 *                dwNtbOutMaxSize 16384, divisor 4, remainder 0, alignment
 *                4, no datagram limit; NDP in front with the codec's
 *                default room of 32 entries. The gadget drops host->device
 *                datagrams over 1514 bytes, so only sizes up to 1514.
 *   ncm_16k_jumbo the same NTB parameters with a device that takes
 *                datagrams up to 9014 bytes (hypothetical; not the gadget).
 *   ncm_64k_256  NTB16 at its largest (dwNtbOutMaxSize 65535) and an NDP
 *                of 256 entries (the codec's cap): the NCM ceiling.
 *   ecm          CDC-ECM, one frame per transfer, a pad byte when the
 *                length is a multiple of 1024 (usbnet default). Frames
 *                over 1514 need a device whose wMaxSegmentSize allows them
 *                (the gadget takes 9014 with its MTU raised first).
 *
 * Figures are steady state: the last, partly filled transfer of the stream
 * is left out. Output: CSV on stdout, one row per framing and frame size.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_ecm.h"
#include "ch39x_ncm.h"
#include "ch39x_vendor.h"

#define MAXP		1024
#define NFRAMES		200000u

static const uint32_t sizes[] = {
	64, 128, 256, 512, 1024, 1514, 3000, 4088, 7422, 9000,
};

struct result {
	uint64_t frames;
	uint64_t xfers;
	uint64_t usb_bytes;	/* bulk transfer bytes, ZLPs are 0 */
	uint64_t usb_packets;	/* wMaxPacketSize packets incl. ZLPs */
	uint64_t zlps;
	const char *closed_by;
};

static uint8_t buf[1 << 17];

static void
count_xfer(struct result *r, uint32_t len, bool zlp)
{
	r->xfers++;
	r->usb_bytes += len;
	r->usb_packets += (len + MAXP - 1) / MAXP + (zlp ? 1 : 0);
	r->zlps += zlp ? 1 : 0;
}

static int
run_vendor(uint32_t size, struct result *r)
{
	struct ch39x_profile prof;
	struct ch39x_tx_agg agg;
	struct ch39x_tx_desc d;
	struct ch39x_tx_end e;
	uint64_t i;

	if (ch39x_profile_init(&prof, CH39X_PID_CH398, CH39X_SPEED_SUPER) != 0)
		return -1;
	if (ch39x_tx_buf_size(&prof) > sizeof(buf) || size > prof.max_frame)
		return -1;
	memset(&d, 0, sizeof(d));
	d.len = size;
	ch39x_tx_agg_init(&agg, buf);
	for (i = 0; i < NFRAMES; i++) {
		if (!ch39x_tx_agg_fits(&prof, &agg, size)) {
			if (agg.frames == 0)
				return -1;
			e = ch39x_tx_agg_finish(&prof, &agg);
			count_xfer(r, e.len, e.zlp);
			ch39x_tx_agg_init(&agg, buf);
		}
		memset(ch39x_tx_agg_add(&prof, &agg, &d), 0xA5, size);
		r->frames++;
	}
	/* The last, partly filled transfer is left out: steady state only. */
	r->frames -= agg.frames;
	r->closed_by = "xfer_size";
	return 0;
}

static int
run_ncm(uint32_t size, uint32_t ntb_max, uint16_t entries,
	uint32_t max_dgram, struct result *r)
{
	struct ch39x_ncm_ntb_params p;
	struct ch39x_ncm_tx_cfg c;
	struct ch39x_ncm_tx_end e;
	static struct ch39x_ncm_tx t;
	uint64_t i, full = 0, ndp = 0;

	if (size > max_dgram)
		return -1;
	memset(&p, 0, sizeof(p));
	p.formats = CH39X_NCM_FMT_NTB16_BIT | CH39X_NCM_FMT_NTB32_BIT;
	p.out_max_size = ntb_max;
	p.out_divisor = 4;
	p.out_remainder = 0;
	p.out_alignment = 4;
	p.out_max_datagrams = 0;
	ch39x_ncm_tx_cfg_from_params(&c, &p, false, MAXP);
	c.size = ntb_max;
	c.ndp_entries = entries;
	c.max_dgram_len = max_dgram;
	if (ch39x_ncm_tx_init(&t, &c) != 0 ||
	    ch39x_ncm_tx_buf_size(&t) > sizeof(buf))
		return -1;
	ch39x_ncm_tx_begin(&t, buf);
	for (i = 0; i < NFRAMES; i++) {
		enum ch39x_ncm_fit f = ch39x_ncm_tx_check(&t, size);

		if (f == CH39X_NCM_FIT_TOO_BIG || f == CH39X_NCM_FIT_BAD_LEN)
			return -1;
		if (f != CH39X_NCM_FIT_OK) {
			e = ch39x_ncm_tx_finish(&t);
			count_xfer(r, e.len, e.zlp);
			full += e.reason == CH39X_NCM_CLOSE_FULL;
			ndp += e.reason == CH39X_NCM_CLOSE_NDP_FULL;
			ch39x_ncm_tx_begin(&t, buf);
		}
		memset(ch39x_ncm_tx_add(&t, size), 0xA5, size);
		r->frames++;
	}
	/* The last, partly filled NTB is left out: steady state only. */
	r->frames -= t.n;
	r->closed_by = ndp > full ? "ndp_entries" : "ntb_size";
	return 0;
}

static int
run_ecm(uint32_t size, struct result *r)
{
	struct ch39x_ecm_cfg c = {
		.max_frame = 9014, .in_maxp = MAXP, .out_maxp = MAXP,
		.zlp = false,
	};
	struct ch39x_ecm_tx_end e;
	uint64_t i;

	if (!ch39x_ecm_tx_len_ok(&c, size) ||
	    ch39x_ecm_tx_buf_size(&c) > sizeof(buf))
		return -1;
	for (i = 0; i < NFRAMES; i++) {
		memset(buf, 0xA5, size);
		e = ch39x_ecm_tx_finish(&c, buf, size);
		count_xfer(r, e.len, e.zlp);
		r->frames++;
	}
	r->closed_by = "one_frame";
	return 0;
}

int
main(void)
{
	static const char *const names[] = {
		"vendor", "ncm_gadget", "ncm_16k_jumbo", "ncm_64k_256", "ecm",
	};
	unsigned int f, s;

	printf("framing,frame_size,frames_per_xfer,usb_bytes_per_frame,"
	       "overhead_bytes_per_frame,overhead_pct,usb_packets_per_frame,"
	       "xfer_bytes,closed_by\n");
	for (f = 0; f < sizeof(names) / sizeof(names[0]); f++) {
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct result r;
			uint32_t sz = sizes[s];
			int rc;

			memset(&r, 0, sizeof(r));
			switch (f) {
			case 0: rc = run_vendor(sz, &r); break;
			case 1: rc = run_ncm(sz, 16384, 0, 1514, &r); break;
			case 2: rc = run_ncm(sz, 16384, 0, 9014, &r); break;
			case 3: rc = run_ncm(sz, 65535, 256, 9014, &r); break;
			default: rc = run_ecm(sz, &r); break;
			}
			if (rc != 0)
				continue;	/* beyond this framing's limit */
			printf("%s,%u,%.2f,%.2f,%.2f,%.2f,%.3f,%.0f,%s\n",
			       names[f], sz,
			       (double)r.frames / r.xfers,
			       (double)r.usb_bytes / r.frames,
			       (double)r.usb_bytes / r.frames - sz,
			       100.0 * ((double)r.usb_bytes / r.frames - sz) /
			       sz,
			       (double)r.usb_packets / r.frames,
			       (double)r.usb_bytes / r.xfers,
			       r.closed_by);
		}
	}
	return 0;
}
