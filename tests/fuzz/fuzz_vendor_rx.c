/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Fuzz the vendor RX record parser (ch39x_rx_* of ch39x_vendor.h) with
 * bulk IN transfers as an untrusted device may send them.
 *
 * Byte 0 bits 0-1 choose the profile (CH397 high speed, CH398 super, high,
 * full speed); byte 0 bit 3 the mode.
 *
 * Raw mode (bit 3 clear): arbitrary device bytes.
 *   byte 0   bit 2: call ch39x_rx_reset before transfer (byte 1 bits 4-6)
 *            bits 4-7: transfer i is short (ch39x_rx_mark_short) when bit
 *            4 + i % 4 is set
 *   byte 1   bits 0-2: number of transfers - 1 (1..8)
 *   then     2 bytes LE per transfer but the last: its length, taken
 *            modulo (bytes left + 1)
 *   rest     the transfers' bytes, one after the other; the last transfer
 *            gets whatever is left
 *
 * Well-formed mode (bit 3 set): a stream of valid records, cut into
 * transfers the way a device may cut it, and every record must come out
 * exactly once, in order, byte for byte.
 *   byte 0   bit 4: mark short every transfer that ends between records,
 *            as a device ends a transfer early only there
 *   byte 1   bits 0-2: number of transfers - 1 (1..8)
 *   byte 2   bits 0-3: number of records - 1 (1..16)
 *   byte 3   seed of the frame contents
 *   then     per record: 2 bytes LE frame length (taken modulo the
 *            profile's range), on V02 4 bytes LE cmd_1
 *   then     2 bytes LE per transfer but the last: its length in 4-byte
 *            units, modulo what is left
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
#define WF_MAX_RECS 16
#define ALIGN4(x) (((x) + 3u) & ~3u)

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

/* One record of the well-formed mode, at start in the stream. */
struct wf_rec {
	uint32_t start;
	uint32_t flen;
	uint32_t info;
	bool straddles;		/* header or frame crosses a transfer cut */
};

static bool
wf_at_record(const struct wf_rec *r, unsigned int n, uint32_t pos)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (r[i].start == pos)
			return true;
	return false;
}

static void
run_well_formed(const struct ch39x_profile *prof, const uint8_t *data,
		size_t size)
{
	const uint8_t *p = data + 4, *end = data + size;
	unsigned int nx = (data[1] & 7u) + 1, nrec = (data[2] & 15u) + 1;
	unsigned int i, j, k = 0, got;
	struct wf_rec rec[WF_MAX_RECS];
	uint32_t lens[MAX_XFERS], total = 0, pos, units, l;
	bool mark_short = (data[0] & 0x10) != 0;
	size_t need = (prof->family == CH39X_V02 ? 6u : 2u) * nrec +
		2u * (nx - 1);
	struct ch39x_rx_parser *ps;
	struct ch39x_rx_frame f;
	struct tally t;
	uint8_t *stream, *xb;

	if ((size_t)(end - p) < need)
		return;
	/* Records: header, frame, zero padding to 4 (§4). */
	for (i = 0; i < nrec; i++) {
		rec[i].start = total;
		rec[i].flen = CH39X_MIN_FRAME + ch39x_get_le16(p) %
			(prof->max_frame - CH39X_MIN_FRAME + 1);
		p += 2;
		rec[i].info = 0;
		if (prof->family == CH39X_V02) {
			rec[i].info = ch39x_get_le32(p);
			p += 4;
		}
		rec[i].straddles = false;
		total += ALIGN4(CH39X_HDR_LEN + rec[i].flen);
	}
	stream = calloc(1, total);
	FUZZ_CHECK(stream != NULL);
	for (i = 0; i < nrec; i++) {
		uint8_t *r = stream + rec[i].start;

		ch39x_put_le32(r, rec[i].flen);
		ch39x_put_le32(r + 4, rec[i].info);
		for (j = 0; j < rec[i].flen; j++)
			r[CH39X_HDR_LEN + j] = (uint8_t)(i * 31 + j * 7 + data[3]);
	}
	/*
	 * Cuts: at 4-byte boundaries, as records are aligned and USB packets
	 * are multiples of 4. A transfer that starts with a record holds at
	 * least a minimal record (the device splits only records larger than
	 * a whole transfer), so the parser's short-transfer rule never fires.
	 */
	pos = 0;
	for (i = 0; i + 1 < nx; i++) {
		units = (total - pos) / 4;
		l = (uint32_t)(ch39x_get_le16(p) % (units + 1)) * 4;
		p += 2;
		if (l > 0 && l < CH39X_HDR_LEN + CH39X_MIN_FRAME &&
		    wf_at_record(rec, nrec, pos))
			l = total - pos < CH39X_HDR_LEN + CH39X_MIN_FRAME ?
				total - pos : CH39X_HDR_LEN + CH39X_MIN_FRAME;
		lens[i] = l;
		pos += l;
		for (j = 0; j < nrec; j++)
			if (rec[j].start < pos &&
			    pos < rec[j].start + CH39X_HDR_LEN + rec[j].flen)
				rec[j].straddles = true;
	}
	lens[nx - 1] = total - pos;

	ps = malloc(sizeof(*ps));
	FUZZ_CHECK(ps != NULL);
	ch39x_rx_parser_init(ps, prof);
	memset(&t, 0, sizeof(t));
	pos = 0;
	for (i = 0; i < nx; i++) {
		xb = fuzz_dup(stream + pos, lens[i]);
		ch39x_rx_begin(ps, xb, lens[i]);
		if (mark_short && (pos + lens[i] == total ||
				   wf_at_record(rec, nrec, pos + lens[i])))
			ch39x_rx_mark_short(ps);
		got = 0;
		while (ch39x_rx_next(ps, &f) == 1) {
			check_frame(ps, prof, xb, lens[i], &f);
			FUZZ_CHECK(k < nrec);
			FUZZ_CHECK(f.len == rec[k].flen);
			FUZZ_CHECK(memcmp(f.data, stream + rec[k].start +
					  CH39X_HDR_LEN, f.len) == 0);
			FUZZ_CHECK(f.straddled == rec[k].straddles);
			if (prof->family == CH39X_V02)
				FUZZ_CHECK(f.info == rec[k].info);
			t.frames++;
			t.frame_bytes += f.len;
			t.straddled += f.straddled;
			check_stats(ps, &t);
			k++;
			FUZZ_CHECK(++got <= lens[i]);
		}
		FUZZ_CHECK(ch39x_rx_next(ps, &f) == 0);
		free(xb);
		pos += lens[i];
	}
	/* Every record came out, nothing was dropped or left over. */
	FUZZ_CHECK(k == nrec);
	FUZZ_CHECK(ps->stats.bad_headers == 0);
	FUZZ_CHECK(ps->stats.short_xfers == 0);
	FUZZ_CHECK(ps->stats.carry_lost == 0);
	FUZZ_CHECK(ps->stats.truncated == 0);
	FUZZ_CHECK(ps->carry_len == 0);
	free(ps);
	free(stream);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_profile *prof;
	struct ch39x_rx_parser *ps;
	struct ch39x_rx_stats before;
	struct ch39x_rx_frame f;
	struct tally t;
	uint64_t truncated;
	uint32_t lens[MAX_XFERS];
	unsigned int nx, i, k, reset_at;
	const uint8_t *p, *end;
	size_t left;
	uint8_t *xb;
	uint32_t xl, n;

	if (size < 2)
		return 0;
	if (data[0] & 8) {
		struct ch39x_profile wf;

		if (size < 4)
			return 0;
		FUZZ_CHECK(ch39x_profile_init(&wf, profiles[data[0] & 3u].pid,
					      profiles[data[0] & 3u].speed) == 0);
		run_well_formed(&wf, data, size);
		return 0;
	}
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
		if (data[0] & (0x10u << (i % 4)))
			ch39x_rx_mark_short(ps);
		truncated = ps->stats.truncated;
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
		/* A short transfer is never continued by the next one. */
		if (data[0] & (0x10u << (i % 4)))
			FUZZ_CHECK(ps->carry_len == 0);
		FUZZ_CHECK(ps->stats.truncated - truncated <= 1);
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
