/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz what ch39x_cdc.h parses from an untrusted CDC-ECM/NCM device: the
 * configuration descriptor walker, the iMACAddress string and the
 * interrupt IN notifications.
 *
 * Byte 0 bits 0-1 choose the mode.
 *
 * 0, descriptors: byte 1 chooses the subclass asked for (0: either, 1:
 *    NCM, 2: ECM, else byte 1 itself); the rest is the configuration blob.
 *    Everything reported must come from a descriptor of the walked chain,
 *    inside the blob, and the same blob must give the same result.
 * 1, MAC string: the rest is the string descriptor.
 * 2, raw notifications:
 *    byte 1   bits 0-2: number of transfers - 1 (1..8); bit 7: forget the
 *             carry (ch39x_cdc_notify_reset) before transfer bits 4-6
 *    then     2 bytes LE per transfer but the last: its length, taken
 *             modulo (bytes left + 1)
 *    rest     the transfers' bytes; the last gets what is left
 * 3, well-formed notifications: a stream of valid notifications, cut into
 *    transfers anywhere but inside an 8-byte header (the one place the
 *    parser cannot resynchronise), must come out exactly, in order.
 *    byte 1   bits 0-3: number of notifications - 1 (1..16), bits 4-6:
 *             number of cuts (0..7)
 *    then     per notification: a kind byte (bits 0-1: 0 connection,
 *             1 speed change, 2 response available, 3 another code from
 *             bits 2-7 with bits 2-5 bytes of data, at most 8) and 8 bytes
 *             of values
 *    then     2 bytes LE per cut: its place, taken modulo what is left
 *
 * Every blob and transfer is an exactly sized heap copy.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_ecm.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends */
#include "fuzz.h"

#define MAX_XFERS 8
#define WF_MAX 16
#define WF_MAX_CUTS 7

/* ---- Configuration descriptors ---- */

/* The descriptor chain as the walker must see it. */
struct chain {
	uint32_t end;		/* where the walk must stop */
	bool malformed;
	uint32_t n;
	uint32_t *off;		/* bLength >= 2: at most len / 2 of them */
};

static void
walk_chain(const uint8_t *b, uint32_t len, struct chain *c, uint32_t *errors)
{
	uint32_t end = len, off = 0;

	*errors = 0;
	if (len >= 9 && b[0] >= 9 && b[1] == CH39X_USB_DT_CONFIG) {
		uint16_t total = ch39x_get_le16(b + 2);

		if (total != len) {
			*errors |= CH39X_CDC_E_TOTAL_LEN;
			if (total < len && total >= b[0])
				end = total;
		}
	} else {
		*errors |= CH39X_CDC_E_NO_CONFIG;
	}
	c->n = 0;
	c->malformed = false;
	while (off < end) {
		if (b[off] < 2 || b[off] > end - off) {
			c->malformed = true;
			break;
		}
		FUZZ_CHECK(c->n < len / 2 + 1);
		c->off[c->n++] = off;
		off += b[off];
	}
	c->end = off;
	if (c->malformed)
		*errors |= CH39X_CDC_E_MALFORMED;
}

static bool
subclass_ok(uint8_t sub, uint8_t want)
{
	return want ? sub == want : (sub == CH39X_CDC_SUBCLASS_NCM ||
				     sub == CH39X_CDC_SUBCLASS_ECM);
}

/* Index in the chain of the communication interface the walker must pick. */
static int
find_comm(const uint8_t *b, const struct chain *c, uint8_t want)
{
	uint32_t i;

	for (i = 0; i < c->n; i++) {
		const uint8_t *p = b + c->off[i];

		if (p[1] == CH39X_USB_DT_INTERFACE && p[0] >= 9 && p[3] == 0 &&
		    p[5] == CH39X_CDC_CLASS_COMM && subclass_ok(p[6], want))
			return (int)i;
	}
	return -1;
}

/* Index of the next interface descriptor after i, or c->n. */
static uint32_t
next_if(const uint8_t *b, const struct chain *c, uint32_t i)
{
	for (i++; i < c->n; i++)
		if (b[c->off[i] + 1] == CH39X_USB_DT_INTERFACE)
			return i;
	return c->n;
}

/* Whether an endpoint descriptor in [from, to) of the chain matches. */
static bool
has_ep(const uint8_t *b, const struct chain *c, uint32_t from, uint32_t to,
       uint8_t addr, uint8_t type, uint16_t maxp)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		const uint8_t *p = b + c->off[i];

		if (p[1] == CH39X_USB_DT_ENDPOINT && p[0] >= 7 &&
		    p[2] == addr && (p[3] & 3) == type &&
		    (ch39x_get_le16(p + 4) & 0x7FF) == maxp)
			return true;
	}
	return false;
}

/* Whether a functional descriptor of that subtype is in [from, to). */
static const uint8_t *
find_fd(const uint8_t *b, const struct chain *c, uint32_t from, uint32_t to,
	uint8_t subtype, uint8_t min_len)
{
	uint32_t i;

	for (i = from; i < to; i++) {
		const uint8_t *p = b + c->off[i];

		if (p[1] == CH39X_USB_DT_CS_INTERFACE && p[0] >= min_len &&
		    p[2] == subtype)
			return p;
	}
	return NULL;
}

/*
 * A composite device's network functions: as many as the chain has NCM or
 * ECM communication interfaces at alt 0, each found again by its number
 * and subclass with the same verdict.
 */
static void
check_functions(const uint8_t *b, uint32_t len, const struct chain *c)
{
	struct ch39x_cdc_fn fns[8];
	struct ch39x_cdc_desc d;
	unsigned int n, i, k = 0;
	const uint8_t *p;

	for (i = 0; i < c->n; i++) {
		p = b + c->off[i];
		if (p[1] == CH39X_USB_DT_INTERFACE && p[0] >= 9 && p[3] == 0 &&
		    p[5] == CH39X_CDC_CLASS_COMM &&
		    (p[6] == CH39X_CDC_SUBCLASS_NCM ||
		     p[6] == CH39X_CDC_SUBCLASS_ECM))
			k++;
	}
	n = ch39x_cdc_list_functions(b, len, fns, 8);
	FUZZ_CHECK(n == k);
	for (i = 0; i < n && i < 8; i++) {
		ch39x_cdc_parse_function(b, len, fns[i].subclass,
					 fns[i].comm_if, &d);
		FUZZ_CHECK(d.have_comm && d.comm_if == fns[i].comm_if &&
			   d.comm_subclass == fns[i].subclass);
		FUZZ_CHECK(fns[i].usable == ch39x_cdc_usable(&d));
		FUZZ_CHECK(fns[i].have_data == d.have_data);
		if (d.have_data)
			FUZZ_CHECK(fns[i].data_if == d.data_if);
	}
}

static void
run_config(const uint8_t *data, size_t size)
{
	static const uint8_t subs[3] = { 0, CH39X_CDC_SUBCLASS_NCM,
					 CH39X_CDC_SUBCLASS_ECM };
	uint8_t want = data[1] < 3 ? subs[data[1]] : data[1];
	uint32_t len = (uint32_t)(size - 2), errors, i, from, to;
	struct ch39x_cdc_desc d, d2;
	struct ch39x_ecm_cfg ec;
	const uint8_t *p;
	struct chain *c;
	uint8_t *b;
	int r, ci;

	if (len == 0) {
		/* Nothing to read: no configuration, nothing found. */
		r = ch39x_cdc_parse_config(data, 0, want, &d);
		FUZZ_CHECK(r == 0 && d.errors == CH39X_CDC_E_NO_CONFIG &&
			   !d.have_comm && !d.have_data);
		return;
	}
	b = fuzz_dup(data + 2, len);
	c = malloc(sizeof(*c));
	FUZZ_CHECK(c != NULL);
	c->off = malloc((len / 2 + 1) * sizeof(c->off[0]));
	FUZZ_CHECK(c->off != NULL);
	memset(&d, 0xA5, sizeof(d));
	r = ch39x_cdc_parse_config(b, len, want, &d);

	/* Deterministic, whatever *d held before. */
	memset(&d2, 0x5A, sizeof(d2));
	FUZZ_CHECK(ch39x_cdc_parse_config(b, len, want, &d2) == r);
	FUZZ_CHECK(memcmp(&d, &d2, sizeof(d)) == 0);

	walk_chain(b, len, c, &errors);
	FUZZ_CHECK(r == (c->malformed ? -1 : 0));
	FUZZ_CHECK((d.errors & (CH39X_CDC_E_MALFORMED | CH39X_CDC_E_TOTAL_LEN |
				CH39X_CDC_E_NO_CONFIG)) == errors);
	if (c->malformed)
		FUZZ_CHECK(d.malformed_at == c->end && d.malformed_at < len);
	else
		FUZZ_CHECK(d.malformed_at == 0);
	FUZZ_CHECK(d.bad_descs <= c->n);
	FUZZ_CHECK((d.bad_descs != 0) ==
		   ((d.errors & CH39X_CDC_E_SHORT_DESC) != 0));

	/* The communication interface: the first of the wanted subclass. */
	ci = find_comm(b, c, want);
	FUZZ_CHECK(d.have_comm == (ci >= 0));
	if (ci < 0) {
		FUZZ_CHECK(!d.have_header && !d.have_union && !d.have_ether &&
			   !d.have_ncm && d.intr_ep == 0 &&
			   !(d.flags & CH39X_CDC_F_DATA_FROM_IAD));
		goto data;
	}
	p = b + c->off[ci];
	FUZZ_CHECK(d.comm_if == p[2] && d.comm_subclass == p[6] &&
		   d.comm_protocol == p[7]);
	from = (uint32_t)ci + 1;
	to = next_if(b, c, (uint32_t)ci);
	/* Everything found belongs to it: between it and the next one. */
	if (d.intr_ep != 0)
		FUZZ_CHECK((d.intr_ep & 0x80) &&
			   has_ep(b, c, from, to, d.intr_ep, 3, d.intr_maxp));
	if (d.have_header) {
		p = find_fd(b, c, from, to, CH39X_CDC_FD_HEADER,
			    CH39X_CDC_FD_HEADER_LEN);
		FUZZ_CHECK(p != NULL && d.bcd_cdc == ch39x_get_le16(p + 3));
	} else {
		FUZZ_CHECK(find_fd(b, c, from, to, CH39X_CDC_FD_HEADER,
				   CH39X_CDC_FD_HEADER_LEN) == NULL);
	}
	if (d.have_union) {
		p = find_fd(b, c, from, to, CH39X_CDC_FD_UNION,
			    CH39X_CDC_FD_UNION_LEN);
		FUZZ_CHECK(p != NULL && d.union_master == p[3] &&
			   d.union_slave == p[4]);
		FUZZ_CHECK(((d.errors & CH39X_CDC_E_UNION_MASTER) != 0) ==
			   (d.union_master != d.comm_if));
	} else {
		FUZZ_CHECK(find_fd(b, c, from, to, CH39X_CDC_FD_UNION,
				   CH39X_CDC_FD_UNION_LEN) == NULL);
	}
	if (d.have_ether) {
		p = find_fd(b, c, from, to, CH39X_CDC_FD_ETHERNET,
			    CH39X_CDC_FD_ETHERNET_LEN);
		FUZZ_CHECK(p != NULL && d.i_mac_address == p[3] &&
			   d.eth_stats == ch39x_get_le32(p + 4) &&
			   d.max_segment == ch39x_get_le16(p + 8) &&
			   d.mc_filters == ch39x_get_le16(p + 10) &&
			   d.power_filters == p[12]);
	} else {
		FUZZ_CHECK(find_fd(b, c, from, to, CH39X_CDC_FD_ETHERNET,
				   CH39X_CDC_FD_ETHERNET_LEN) == NULL);
	}
	if (d.have_ncm) {
		p = find_fd(b, c, from, to, CH39X_CDC_FD_NCM,
			    CH39X_CDC_FD_NCM_LEN);
		FUZZ_CHECK(p != NULL && d.bcd_ncm == ch39x_get_le16(p + 3) &&
			   d.ncm_caps == p[5]);
	} else {
		FUZZ_CHECK(find_fd(b, c, from, to, CH39X_CDC_FD_NCM,
				   CH39X_CDC_FD_NCM_LEN) == NULL);
	}

data:
	/* Where the data interface number came from. */
	FUZZ_CHECK(((d.flags & CH39X_CDC_F_DATA_FROM_UNION) != 0) ==
		   d.have_union);
	if (d.flags & CH39X_CDC_F_DATA_FROM_IAD)
		FUZZ_CHECK(!d.have_union && d.have_comm &&
			   d.data_if == (uint8_t)(d.comm_if + 1));
	FUZZ_CHECK(d.have_data == (d.have_union ||
				   (d.flags & CH39X_CDC_F_DATA_FROM_IAD)));
	if (d.have_union)
		FUZZ_CHECK(d.data_if == d.union_slave);
	if (!d.have_data)
		FUZZ_CHECK(!d.have_data_eps);
	if (d.have_data_eps) {
		bool found = false;

		/* An alt setting of the data interface holds both. */
		FUZZ_CHECK((d.bulk_in & 0x80) && !(d.bulk_out & 0x80));
		FUZZ_CHECK(d.bulk_in_maxp <= 0x7FF && d.bulk_out_maxp <= 0x7FF);
		for (i = 0; i < c->n && !found; i++) {
			p = b + c->off[i];
			if (p[1] != CH39X_USB_DT_INTERFACE || p[0] < 9 ||
			    p[2] != d.data_if || p[3] != d.data_alt ||
			    p[5] != CH39X_CDC_CLASS_DATA ||
			    p[7] != d.data_protocol)
				continue;
			to = next_if(b, c, i);
			found = has_ep(b, c, i + 1, to, d.bulk_in, 2,
				       d.bulk_in_maxp) &&
				has_ep(b, c, i + 1, to, d.bulk_out, 2,
				       d.bulk_out_maxp);
		}
		FUZZ_CHECK(found);
	}

	FUZZ_CHECK(ch39x_cdc_usable(&d) ==
		   (d.have_comm && d.have_data_eps && d.have_ether &&
		    (d.comm_subclass != CH39X_CDC_SUBCLASS_NCM || d.have_ncm)));
	/* What ECM makes of it. */
	r = ch39x_ecm_cfg_init(&ec, &d, data[0] & 4);
	FUZZ_CHECK(r == (d.have_data_eps && d.bulk_in_maxp &&
			 d.bulk_out_maxp ? 0 : -1));
	FUZZ_CHECK(ec.max_frame >= CH39X_ECM_MIN_SEGMENT);
	FUZZ_CHECK(ec.max_frame == (d.have_ether && d.max_segment >
				    CH39X_ECM_MIN_SEGMENT ? d.max_segment :
				    CH39X_ECM_MIN_SEGMENT));
	if (r == 0)
		FUZZ_CHECK(ec.in_maxp == d.bulk_in_maxp &&
			   ec.out_maxp == d.bulk_out_maxp);
	check_functions(b, len, c);
	free(c->off);
	free(c);
	free(b);
}

/* ---- MAC string ---- */

static int
hexv(uint8_t ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void
run_mac(const uint8_t *data, size_t size)
{
	uint32_t len = (uint32_t)(size - 1), i;
	uint8_t mac[6], want[6];
	bool ok;
	uint8_t *b;
	int r;

	if (len == 0) {
		memset(mac, 0xA5, sizeof(mac));
		FUZZ_CHECK(ch39x_cdc_parse_mac_string(data, 0, mac) == -1);
		return;
	}
	b = fuzz_dup(data + 1, len);
	memset(mac, 0xA5, sizeof(mac));
	r = ch39x_cdc_parse_mac_string(b, len, mac);
	/* bLength 26, type 3, exactly 12 hex digits in UTF-16LE. */
	ok = len >= 26 && b[0] == 26 && b[1] == CH39X_USB_DT_STRING;
	memset(want, 0, sizeof(want));
	for (i = 0; ok && i < 12; i++) {
		int v = hexv(b[2 + 2 * i]);

		if (v < 0 || b[3 + 2 * i] != 0)
			ok = false;
		else
			want[i / 2] = (uint8_t)(want[i / 2] |
						(i & 1 ? v : v << 4));
	}
	FUZZ_CHECK(r == (ok ? 0 : -1));
	if (ok) {
		FUZZ_CHECK(memcmp(mac, want, 6) == 0);
	} else {
		/* Untouched on failure. */
		for (i = 0; i < 6; i++)
			FUZZ_CHECK(mac[i] == 0xA5);
	}
	free(b);
}

/* ---- Notifications ---- */

struct ntally {
	uint64_t yielded, split;
};

/* A yielded notification agrees with the 8 + wLength bytes at p. */
static void
check_notify(const uint8_t *p, const struct ch39x_cdc_notify *n)
{
	FUZZ_CHECK(p[0] == CH39X_CDC_REQT_IN);
	FUZZ_CHECK(n->code == p[1]);
	FUZZ_CHECK(n->value == ch39x_get_le16(p + 2));
	FUZZ_CHECK(n->index == ch39x_get_le16(p + 4));
	FUZZ_CHECK(n->length == ch39x_get_le16(p + 6));
	FUZZ_CHECK(n->link_up == (n->code ==
				  CH39X_CDC_NOTIFY_NETWORK_CONNECTION &&
				  n->value != 0));
	if (n->code == CH39X_CDC_NOTIFY_SPEED_CHANGE) {
		FUZZ_CHECK(n->length >= CH39X_CDC_SPEED_CHANGE_LEN);
		FUZZ_CHECK(n->down_bps == ch39x_get_le32(p + 8));
		FUZZ_CHECK(n->up_bps == ch39x_get_le32(p + 12));
	} else {
		FUZZ_CHECK(n->down_bps == 0 && n->up_bps == 0);
	}
}

static void
check_nstats(const struct ch39x_cdc_notify_parser *ps, const struct ntally *t)
{
	const struct ch39x_cdc_notify_stats *s = &ps->stats;

	FUZZ_CHECK(s->notifications == t->yielded);
	FUZZ_CHECK(s->connection + s->speed_change + s->other ==
		   s->notifications);
	FUZZ_CHECK(s->split >= t->split);
	FUZZ_CHECK(ps->off <= ps->len);
	FUZZ_CHECK(ps->carry_len < CH39X_CDC_NOTIFY_CARRY_MAX);
}

/* Drain one transfer; the bytes of each notification yielded are checked. */
static unsigned int
drain(struct ch39x_cdc_notify_parser *ps, const uint8_t *xb, uint32_t xl,
      struct ntally *t, struct ch39x_cdc_notify *out, unsigned int max)
{
	struct ch39x_cdc_notify_stats before;
	struct ch39x_cdc_notify n;
	unsigned int got = 0, k;
	uint32_t prev = ps->off, total;

	while (ch39x_cdc_notify_next(ps, &n) == 1) {
		total = CH39X_CDC_NOTIFY_HDR_LEN + n.length;
		if (n.split) {
			/* Completed in the carry, from this transfer's start. */
			FUZZ_CHECK(total <= CH39X_CDC_NOTIFY_CARRY_MAX);
			FUZZ_CHECK(prev == 0 && ps->off > 0 &&
				   ps->off < total);
			check_notify(ps->carry, &n);
			t->split++;
		} else {
			/* In place, in the bytes just used up. */
			FUZZ_CHECK(ps->off >= total &&
				   ps->off - total >= prev);
			check_notify(xb + ps->off - total, &n);
		}
		t->yielded++;
		check_nstats(ps, t);
		if (got < max)
			out[got] = n;
		got++;
		/* Each uses up at least one byte of the transfer. */
		FUZZ_CHECK(ps->off > prev && got <= xl);
		prev = ps->off;
	}
	/* The transfer is used up, and stays so. */
	FUZZ_CHECK(ps->off == ps->len && ps->len == xl);
	before = ps->stats;
	for (k = 0; k < 3; k++)
		FUZZ_CHECK(ch39x_cdc_notify_next(ps, &n) == 0);
	FUZZ_CHECK(memcmp(&before, &ps->stats, sizeof(before)) == 0);
	check_nstats(ps, t);
	return got;
}

static void
run_notify_raw(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 2, *end = data + size;
	unsigned int nx = (data[1] & 7u) + 1, i;
	unsigned int reset_at = (data[1] & 0x80) ? (data[1] >> 4) & 7u :
			       MAX_XFERS;
	struct ch39x_cdc_notify_parser *ps;
	struct ch39x_cdc_notify n;
	uint32_t lens[MAX_XFERS];
	struct ntally t;
	size_t left;
	uint8_t *xb;

	if ((size_t)(end - p) < 2u * (nx - 1))
		return;
	left = (size_t)(end - p) - 2u * (nx - 1);
	for (i = 0; i + 1 < nx; i++) {
		lens[i] = (uint32_t)(ch39x_get_le16(p) % (left + 1));
		left -= lens[i];
		p += 2;
	}
	lens[nx - 1] = (uint32_t)left;

	ps = malloc(sizeof(*ps));
	FUZZ_CHECK(ps != NULL);
	ch39x_cdc_notify_init(ps);
	memset(&t, 0, sizeof(t));
	check_nstats(ps, &t);
	for (i = 0; i < nx; i++) {
		if (i == reset_at) {
			ch39x_cdc_notify_reset(ps);
			FUZZ_CHECK(ps->carry_len == 0);
			FUZZ_CHECK(ch39x_cdc_notify_next(ps, &n) == 0);
		}
		xb = fuzz_dup(p, lens[i]);
		p += lens[i];
		ch39x_cdc_notify_begin(ps, xb, lens[i]);
		drain(ps, xb, lens[i], &t, &n, 0);
		free(xb);
	}
	FUZZ_CHECK(p == end);
	free(ps);
}

struct wf_note {
	uint8_t bytes[CH39X_CDC_NOTIFY_CARRY_MAX];
	uint32_t len;
	uint32_t start;		/* in the stream */
	bool split;		/* a cut falls inside it */
};

static void
run_notify_wf(const uint8_t *data, size_t size)
{
	unsigned int nn = (data[1] & 15u) + 1, ncut = (data[1] >> 4) & 7u;
	const uint8_t *p = data + 2, *end = data + size;
	struct ch39x_cdc_notify got[WF_MAX + 1];
	struct ch39x_cdc_notify_parser *ps;
	uint32_t cuts[WF_MAX_CUTS + 2], total = 0, pos, i, j, k = 0, g;
	struct wf_note *w;
	struct ntally t;
	uint8_t *stream, *xb;

	if ((size_t)(end - p) < 9u * nn + 2u * ncut)
		return;
	w = calloc(nn, sizeof(*w));
	FUZZ_CHECK(w != NULL);
	for (i = 0; i < nn; i++, p += 9) {
		uint8_t kind = p[0], *b = w[i].bytes;
		uint16_t dlen = 0;

		b[0] = CH39X_CDC_REQT_IN;
		ch39x_put_le16(b + 2, ch39x_get_le16(p + 1));	/* wValue */
		ch39x_put_le16(b + 4, ch39x_get_le16(p + 3));	/* wIndex */
		switch (kind & 3) {
		case 0:
			b[1] = CH39X_CDC_NOTIFY_NETWORK_CONNECTION;
			b[2] &= 1;
			b[3] = 0;
			break;
		case 1:
			b[1] = CH39X_CDC_NOTIFY_SPEED_CHANGE;
			b[2] = b[3] = 0;
			dlen = CH39X_CDC_SPEED_CHANGE_LEN;
			memcpy(b + 8, p + 1, 8);
			break;
		case 2:
			b[1] = CH39X_CDC_NOTIFY_RESPONSE_AVAILABLE;
			b[2] = b[3] = 0;
			break;
		default:
			b[1] = (uint8_t)(kind >> 2);
			if (b[1] == CH39X_CDC_NOTIFY_SPEED_CHANGE)
				b[1] = 0x3F;
			dlen = (uint16_t)((kind >> 2) & 15u);
			if (dlen > 8)
				dlen = 8;
			memcpy(b + 8, p + 1, dlen);
			break;
		}
		ch39x_put_le16(b + 6, dlen);
		w[i].len = CH39X_CDC_NOTIFY_HDR_LEN + dlen;
		w[i].start = total;
		total += w[i].len;
	}
	stream = malloc(total);
	FUZZ_CHECK(stream != NULL);
	for (i = 0; i < nn; i++)
		memcpy(stream + w[i].start, w[i].bytes, w[i].len);

	/* Cuts, in order, never inside a header. */
	cuts[0] = 0;
	for (i = 1; i <= ncut; i++, p += 2) {
		pos = cuts[i - 1] + ch39x_get_le16(p) %
			(total - cuts[i - 1] + 1);
		for (j = 0; j < nn; j++)
			if (pos > w[j].start &&
			    pos < w[j].start + CH39X_CDC_NOTIFY_HDR_LEN)
				pos = w[j].start;
		FUZZ_CHECK(pos >= cuts[i - 1]);
		cuts[i] = pos;
		for (j = 0; j < nn; j++)
			if (pos > w[j].start && pos < w[j].start + w[j].len)
				w[j].split = true;
	}
	cuts[ncut + 1] = total;

	ps = malloc(sizeof(*ps));
	FUZZ_CHECK(ps != NULL);
	ch39x_cdc_notify_init(ps);
	memset(&t, 0, sizeof(t));
	for (i = 0; i <= ncut; i++) {
		uint32_t xl = cuts[i + 1] - cuts[i];

		xb = fuzz_dup(stream + cuts[i], xl);
		ch39x_cdc_notify_begin(ps, xb, xl);
		g = drain(ps, xb, xl, &t, got, WF_MAX + 1);
		FUZZ_CHECK(g <= nn - k);
		for (j = 0; j < g; j++, k++) {
			FUZZ_CHECK(k < nn);
			check_notify(w[k].bytes, &got[j]);
			FUZZ_CHECK(got[j].split == w[k].split);
		}
		free(xb);
	}
	/* All came out; nothing bad, nothing carried. */
	FUZZ_CHECK(k == nn);
	FUZZ_CHECK(ps->stats.bad == 0 && ps->stats.truncated == 0);
	FUZZ_CHECK(ps->carry_len == 0);
	free(ps);
	free(stream);
	free(w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	switch (data[0] & 3) {
	case 0:
		run_config(data, size);
		break;
	case 1:
		run_mac(data, size);
		break;
	case 2:
		run_notify_raw(data, size);
		break;
	default:
		run_notify_wf(data, size);
		break;
	}
	return 0;
}
