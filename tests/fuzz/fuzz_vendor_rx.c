/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the vendor RX record parser (ch39x_rx_* of ch39x_vendor.h) with
 * bulk IN transfers as an untrusted device may send them.
 *
 * Input layout:
 *   byte 0   bits 0-1: profile (CH397 high, CH398 super, high, full speed)
 *            bit 2: call ch39x_rx_reset before transfer (byte 1 bits 4-6)
 *   byte 1   bits 0-2: number of transfers - 1 (1..8)
 *   then     2 bytes LE per transfer but the last: its length, taken
 *            modulo (bytes left + 1)
 *   rest     the transfers' bytes, one after the other; the last transfer
 *            gets whatever is left
 *
 * Each transfer is copied into its own exactly sized heap buffer, and the
 * parser itself is heap allocated with its exact size, so ASan sees any
 * access past a transfer or past the carry buffer.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_vendor.h"
#include "fuzz.h"

#define MAX_XFERS 8

static const struct {
	uint16_t pid;
	enum ch39x_usb_speed speed;
} profiles[4] = {
	{ CH39X_PID_CH397, CH39X_SPEED_HIGH },
	{ CH39X_PID_CH398, CH39X_SPEED_SUPER },
	{ CH39X_PID_CH398, CH39X_SPEED_HIGH },
	{ CH39X_PID_CH398, CH39X_SPEED_FULL },
};

/* What the harness itself counted, to compare with the parser's stats. */
struct tally {
	uint64_t frames;
	uint64_t frame_bytes;
	uint64_t straddled;
	uint64_t carry_lost;
};

static bool
inside(const uint8_t *p, uint32_t n, const uint8_t *base, size_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;

	return a >= b && a <= b + size && n <= b + size - a;
}

static void
check_frame(const struct ch39x_rx_parser *ps,
	    const struct ch39x_profile *prof, const uint8_t *buf,
	    uint32_t len, const struct ch39x_rx_frame *f)
{
	const uint8_t *hdr;

	FUZZ_CHECK(f->data != NULL);
	FUZZ_CHECK(f->len >= CH39X_MIN_FRAME);
	FUZZ_CHECK(f->len <= prof->max_frame);
	if (f->straddled) {
		/* Reassembled: the whole record sits in the carry buffer. */
		FUZZ_CHECK(f->data == ps->carry + CH39X_HDR_LEN);
		FUZZ_CHECK(inside(f->data, f->len, ps->carry,
				  sizeof(ps->carry)));
		hdr = ps->carry;
	} else {
		/* In place: header and frame inside the current transfer. */
		FUZZ_CHECK(len >= CH39X_HDR_LEN);
		FUZZ_CHECK(inside(f->data - CH39X_HDR_LEN,
				  CH39X_HDR_LEN + f->len, buf, len));
		hdr = f->data - CH39X_HDR_LEN;
	}
	/* The length is what the record header says (bits 15..0). */
	FUZZ_CHECK((ch39x_get_le32(hdr) & 0xFFFFu) == f->len);
	if (prof->family == CH39X_V01) {
		FUZZ_CHECK(f->info == 0);
		FUZZ_CHECK(!f->vlan_stripped && f->vlan_tci == 0);
		FUZZ_CHECK(f->ip_csum == CH39X_CSUM_UNKNOWN);
		FUZZ_CHECK(f->l4_csum == CH39X_CSUM_UNKNOWN);
	} else {
		FUZZ_CHECK(f->info == ch39x_get_le32(hdr + 4));
		FUZZ_CHECK(f->vlan_stripped == ((f->info & CH39X_RX_VLAN) != 0));
		FUZZ_CHECK(f->vlan_tci ==
			   (f->vlan_stripped ? (uint16_t)(f->info >> 16) : 0));
	}
}

static void
check_stats(const struct ch39x_rx_parser *ps, const struct tally *t)
{
	FUZZ_CHECK(ps->stats.frames == t->frames);
	FUZZ_CHECK(ps->stats.frame_bytes == t->frame_bytes);
	FUZZ_CHECK(ps->stats.straddled == t->straddled);
	FUZZ_CHECK(ps->stats.carry_lost == t->carry_lost);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_profile *prof;
	struct ch39x_rx_parser *ps;
	struct ch39x_rx_stats before;
	struct ch39x_rx_frame f;
	struct tally t;
	uint32_t lens[MAX_XFERS];
	unsigned int nx, i, k, reset_at;
	const uint8_t *p, *end;
	size_t left;
	uint8_t *xb;
	uint32_t xl, n;

	if (size < 2)
		return 0;
	end = data + size;
	nx = (data[1] & 7u) + 1;
	reset_at = (data[0] & 4u) ? (data[1] >> 4) & 7u : MAX_XFERS;
	p = data + 2;
	if ((size_t)(end - p) < 2u * (nx - 1))
		return 0;
	left = (size_t)(end - p) - 2u * (nx - 1);
	for (i = 0; i + 1 < nx; i++) {
		lens[i] = (uint32_t)(ch39x_get_le16(p) % (left + 1));
		left -= lens[i];
		p += 2;
	}
	lens[nx - 1] = (uint32_t)left;

	prof = malloc(sizeof(*prof));
	ps = malloc(sizeof(*ps));
	FUZZ_CHECK(prof != NULL && ps != NULL);
	FUZZ_CHECK(ch39x_profile_init(prof, profiles[data[0] & 3u].pid,
				      profiles[data[0] & 3u].speed) == 0);
	ch39x_rx_parser_init(ps, prof);
	memset(&t, 0, sizeof(t));
	check_stats(ps, &t);

	for (i = 0; i < nx; i++) {
		xl = lens[i];
		xb = fuzz_dup(p, xl);
		p += xl;
		if (i == reset_at) {
			if (ps->carry_len != 0)
				t.carry_lost++;
			ch39x_rx_reset(ps);
			FUZZ_CHECK(ps->carry_len == 0);
			check_stats(ps, &t);
		}
		ch39x_rx_begin(ps, xb, xl);
		n = 0;
		while (ch39x_rx_next(ps, &f) == 1) {
			check_frame(ps, prof, xb, xl, &f);
			t.frames++;
			t.frame_bytes += f.len;
			t.straddled += f.straddled;
			check_stats(ps, &t);
			/*
			 * Each frame uses up at least one byte of the
			 * transfer (a whole record when not straddled).
			 */
			n++;
			FUZZ_CHECK(n <= xl);
		}
		/* Once used up, the transfer stays used up. */
		before = ps->stats;
		for (k = 0; k < 3; k++)
			FUZZ_CHECK(ch39x_rx_next(ps, &f) == 0);
		FUZZ_CHECK(memcmp(&before, &ps->stats, sizeof(before)) == 0);
		FUZZ_CHECK(ps->off >= ps->len);
		/* A carried partial record is shorter than any record. */
		FUZZ_CHECK(ps->carry_len < CH39X_HDR_LEN + prof->max_frame);
		check_stats(ps, &t);
		free(xb);
	}
	FUZZ_CHECK(p == end);
	/* Stop: a partial record still carried is lost. */
	if (ps->carry_len != 0)
		t.carry_lost++;
	ch39x_rx_reset(ps);
	check_stats(ps, &t);
	FUZZ_CHECK(ch39x_rx_next(ps, &f) == 0);
	free(ps);
	free(prof);
	return 0;
}
