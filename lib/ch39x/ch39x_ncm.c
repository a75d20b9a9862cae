/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <stddef.h>
#include <string.h>

#include "ch39x_ncm.h"

static bool
pow2_ge4(uint32_t v)
{
	return v >= CH39X_NCM_MIN_ALIGN && (v & (v - 1)) == 0;
}

static uint64_t
align_up(uint64_t x, uint32_t a)
{
	return (x + a - 1) & ~(uint64_t)(a - 1);
}

/* ---- GET_NTB_PARAMETERS ---- */

static uint32_t
check_div_rem(uint16_t div, uint16_t rem, uint32_t w_div, uint32_t w_rem)
{
	uint32_t w = 0;
	uint32_t eff = div;

	if (!pow2_ge4(div)) {
		w |= w_div;
		eff = CH39X_NCM_MIN_ALIGN;
	}
	if (rem >= eff)
		w |= w_rem;
	return w;
}

int
ch39x_ncm_parse_ntb_params(const uint8_t *buf, uint32_t len,
			   struct ch39x_ncm_ntb_params *p)
{
	uint32_t w = 0;

	memset(p, 0, sizeof(*p));
	if (len < CH39X_NCM_NTB_PARAMS_LEN)
		return -1;
	p->length = ch39x_get_le16(buf + 0);
	p->formats = ch39x_get_le16(buf + 2);
	p->in_max_size = ch39x_get_le32(buf + 4);
	p->in_divisor = ch39x_get_le16(buf + 8);
	p->in_remainder = ch39x_get_le16(buf + 10);
	p->in_alignment = ch39x_get_le16(buf + 12);
	/* buf + 14: wReserved */
	p->out_max_size = ch39x_get_le32(buf + 16);
	p->out_divisor = ch39x_get_le16(buf + 20);
	p->out_remainder = ch39x_get_le16(buf + 22);
	p->out_alignment = ch39x_get_le16(buf + 24);
	p->out_max_datagrams = ch39x_get_le16(buf + 26);

	if (p->length < CH39X_NCM_NTB_PARAMS_LEN)
		return -1;
	if (!(p->formats & (CH39X_NCM_FMT_NTB16_BIT | CH39X_NCM_FMT_NTB32_BIT)))
		return -1;
	if (p->length != CH39X_NCM_NTB_PARAMS_LEN)
		w |= CH39X_NCM_PW_LENGTH;
	if (!(p->formats & CH39X_NCM_FMT_NTB16_BIT))
		w |= CH39X_NCM_PW_NO_NTB16;
	if (p->in_max_size < CH39X_NCM_NTB_MIN_SIZE)
		w |= CH39X_NCM_PW_IN_SIZE;
	if (p->out_max_size < CH39X_NCM_NTB_MIN_SIZE)
		w |= CH39X_NCM_PW_OUT_SIZE;
	w |= check_div_rem(p->in_divisor, p->in_remainder,
			   CH39X_NCM_PW_IN_DIVISOR, CH39X_NCM_PW_IN_REM);
	w |= check_div_rem(p->out_divisor, p->out_remainder,
			   CH39X_NCM_PW_OUT_DIVISOR, CH39X_NCM_PW_OUT_REM);
	if (!pow2_ge4(p->in_alignment))
		w |= CH39X_NCM_PW_IN_ALIGN;
	if (!pow2_ge4(p->out_alignment))
		w |= CH39X_NCM_PW_OUT_ALIGN;
	return (int)w;
}

uint32_t
ch39x_ncm_build_ntb_params(const struct ch39x_ncm_ntb_params *p,
			   uint8_t buf[CH39X_NCM_NTB_PARAMS_LEN])
{
	ch39x_put_le16(buf + 0, CH39X_NCM_NTB_PARAMS_LEN);
	ch39x_put_le16(buf + 2, p->formats);
	ch39x_put_le32(buf + 4, p->in_max_size);
	ch39x_put_le16(buf + 8, p->in_divisor);
	ch39x_put_le16(buf + 10, p->in_remainder);
	ch39x_put_le16(buf + 12, p->in_alignment);
	ch39x_put_le16(buf + 14, 0);
	ch39x_put_le32(buf + 16, p->out_max_size);
	ch39x_put_le16(buf + 20, p->out_divisor);
	ch39x_put_le16(buf + 22, p->out_remainder);
	ch39x_put_le16(buf + 24, p->out_alignment);
	ch39x_put_le16(buf + 26, p->out_max_datagrams);
	return CH39X_NCM_NTB_PARAMS_LEN;
}

uint32_t
ch39x_ncm_build_ntb_input_size(uint32_t in_max, bool eight,
			       uint16_t max_datagrams, uint8_t buf[8])
{
	ch39x_put_le32(buf, in_max);
	if (!eight)
		return 4;
	ch39x_put_le16(buf + 4, max_datagrams);
	ch39x_put_le16(buf + 6, 0);
	return 8;
}

/* ---- TX ---- */

static uint32_t
tx_nth_len(const struct ch39x_ncm_tx *t)
{
	return t->ntb32 ? CH39X_NCM_NTH32_LEN : CH39X_NCM_NTH16_LEN;
}

static uint32_t
tx_ndp_hdr(const struct ch39x_ncm_tx *t)
{
	return t->ntb32 ? CH39X_NCM_NDP32_HDR_LEN : CH39X_NCM_NDP16_HDR_LEN;
}

static uint32_t
tx_dpe(const struct ch39x_ncm_tx *t)
{
	return t->ntb32 ? CH39X_NCM_DPE32_LEN : CH39X_NCM_DPE16_LEN;
}

/* Room reserved for the NDP in front: all entries plus the null one. */
static uint32_t
tx_front_ndp_size(const struct ch39x_ncm_tx *t)
{
	return tx_ndp_hdr(t) + ((uint32_t)t->max_entries + 1) * tx_dpe(t);
}

static uint32_t
tx_front_ndp_off(const struct ch39x_ncm_tx *t)
{
	return (uint32_t)align_up(tx_nth_len(t), t->ndp_align);
}

/* Bytes used by an NTB with no datagram yet. */
static uint32_t
tx_empty_len(const struct ch39x_ncm_tx *t)
{
	if (t->ndp_at_end)
		return tx_nth_len(t);
	return tx_front_ndp_off(t) + tx_front_ndp_size(t);
}

/* Whether datagram number n + 1 of len bytes fits after cur bytes. */
static bool
tx_fits_at(const struct ch39x_ncm_tx *t, uint64_t cur, uint32_t n,
	   uint32_t len)
{
	uint64_t end = ch39x_ncm_tx_dgram_start(t, cur) + len;

	if (!t->ndp_at_end)
		return end <= t->limit;
	/* The NDP follows, aligned, with n + 1 entries and the null one. */
	return align_up(end, t->ndp_align) + tx_ndp_hdr(t) +
	       (uint64_t)(n + 2) * tx_dpe(t) <= t->limit;
}

/*
 * The signature of the NDPs this builder writes; an ips builder's carries
 * the NTB's session in its high byte.
 */
static uint32_t
tx_ndp_sign(const struct ch39x_ncm_tx *t)
{
	if (t->ips)
		return (t->ntb32 ? CH39X_MBIM_NDP32_IPS_SIGN :
			CH39X_MBIM_NDP16_IPS_SIGN) | (uint32_t)t->session << 24;
	return t->ntb32 ? CH39X_NCM_NDP32_SIGN : CH39X_NCM_NDP16_SIGN;
}

void
ch39x_ncm_tx_cfg_from_params(struct ch39x_ncm_tx_cfg *c,
			     const struct ch39x_ncm_ntb_params *p, bool ntb32,
			     uint16_t maxp)
{
	memset(c, 0, sizeof(*c));
	c->ntb32 = ntb32;
	c->dev_max_size = p->out_max_size;
	c->divisor = p->out_divisor;
	c->remainder = p->out_remainder;
	c->ndp_align = p->out_alignment;
	c->max_dgrams = p->out_max_datagrams;
	c->maxp = maxp;
}

int
ch39x_ncm_tx_init(struct ch39x_ncm_tx *t, const struct ch39x_ncm_tx_cfg *c)
{
	uint32_t max_dgram = c->max_dgram_len ? c->max_dgram_len : 1514;
	uint32_t entries;

	memset(t, 0, offsetof(struct ch39x_ncm_tx, ent_idx));
	if (c->maxp == 0)
		return -1;
	t->ntb32 = c->ntb32;
	t->ndp_at_end = c->ndp_at_end;
	t->zlp = c->zlp;
	t->ips = c->ips;
	t->maxp = c->maxp;

	/*
	 * Never more than dwNtbOutMaxSize. A zero there is bogus: use the
	 * spec minimum every device must take. NTB16 lengths are 16 bits.
	 */
	t->dev_max = c->dev_max_size ? c->dev_max_size : CH39X_NCM_NTB_MIN_SIZE;
	if (!t->ntb32 && t->dev_max > CH39X_NCM_NTB16_MAX_SIZE)
		t->dev_max = CH39X_NCM_NTB16_MAX_SIZE;
	t->limit = c->size ? c->size : CH39X_NCM_TX_DEF_SIZE;
	if (t->limit > t->dev_max)
		t->limit = t->dev_max;
	if (t->limit == UINT32_MAX)
		t->limit--;		/* room for the pad byte in buf_size() */

	/* cdc_ncm_fix_modulus / cdce_ncm_init: fall back to 4 and 0. */
	t->divisor = pow2_ge4(c->divisor) && c->divisor < t->limit ?
		     c->divisor : CH39X_NCM_MIN_ALIGN;
	t->ndp_align = pow2_ge4(c->ndp_align) && c->ndp_align < t->limit ?
		       c->ndp_align : CH39X_NCM_MIN_ALIGN;
	t->dgram_rem = c->remainder < t->divisor ? c->remainder : 0;
	t->gap_store_min = t->divisor <= 8 ? 8 : UINT32_MAX;
	/*
	 * wNdpOutPayloadRemainder places the datagram's payload, the bytes
	 * after the 14-byte Ethernet header, so that the IP header lands
	 * aligned: Linux cdc_ncm_fix_modulus ("adjust TX-remainder according
	 * to NCM specification") and FreeBSD cdce_ncm_init both subtract
	 * ETH_HLEN. raw_remainder aligns the datagram start instead, and so
	 * does MBIM, whose datagrams begin with the IP header.
	 */
	if (!c->raw_remainder && !c->ips) {
		uint32_t mask = t->divisor - 1u;
		uint32_t hlen = CH39X_NCM_ETH_HLEN;

		t->dgram_rem = (uint16_t)((t->dgram_rem + t->divisor -
					   (hlen & mask)) & mask);
	}

	t->div_mask = t->divisor - 1u;
	t->rem_div = (uint32_t)t->dgram_rem + t->divisor;
	t->dev_max_dgrams = c->max_dgrams;
	entries = c->ndp_entries ? c->ndp_entries : CH39X_NCM_TX_DEF_DGRAMS;
	if (entries > CH39X_NCM_TX_MAX_DGRAMS)
		entries = CH39X_NCM_TX_MAX_DGRAMS;
	if (t->dev_max_dgrams && t->dev_max_dgrams < entries)
		entries = t->dev_max_dgrams;
	t->max_entries = (uint16_t)entries;
	/* A front NDP leaves room for one longest datagram. */
	while (!t->ndp_at_end && t->max_entries > 1 &&
	       !tx_fits_at(t, tx_empty_len(t), 0, max_dgram))
		t->max_entries--;
	if (!tx_fits_at(t, tx_empty_len(t), 0, CH39X_NCM_ETH_HLEN))
		return -1;
	t->refused = CH39X_NCM_FIT_OK;
	t->empty = tx_empty_len(t);
	t->first = (uint32_t)ch39x_ncm_tx_dgram_start(t, t->empty);
	t->max_dgram = ch39x_ncm_tx_max_dgram(t);
	t->nth_len = (uint8_t)tx_nth_len(t);
	t->ndp_hdr = (uint8_t)tx_ndp_hdr(t);
	t->dpe = (uint8_t)tx_dpe(t);
	t->nth_tpl = (uint64_t)(t->ntb32 ? CH39X_NCM_NTH32_SIGN :
				CH39X_NCM_NTH16_SIGN) |
		     (uint64_t)t->nth_len << 32;
	t->ndp_sign = tx_ndp_sign(t);
	t->ndp_room = ((uint32_t)t->max_entries + 1) * t->dpe;
	if (!t->ndp_at_end) {
		t->ndp_off = tx_front_ndp_off(t);
		t->ent_off = t->ndp_off + tx_ndp_hdr(t);
	}
	return 0;
}

uint32_t
ch39x_ncm_tx_buf_size(const struct ch39x_ncm_tx *t)
{
	return t->limit + 1;
}

uint32_t
ch39x_ncm_tx_max_dgram(const struct ch39x_ncm_tx *t)
{
	uint64_t s = ch39x_ncm_tx_dgram_start(t, tx_empty_len(t));
	uint64_t room;

	if (t->ndp_at_end) {
		uint64_t tail = tx_ndp_hdr(t) + 2ull * tx_dpe(t);

		if (tail > t->limit)
			return 0;
		/* Largest end whose aligned NDP still fits. */
		room = (t->limit - tail) & ~(uint64_t)(t->ndp_align - 1);
	} else {
		room = t->limit;
	}
	return room > s ? (uint32_t)(room - s) : 0;
}

void
ch39x_ncm_tx_begin(struct ch39x_ncm_tx *t, uint8_t *buf)
{
	t->buf = buf;
	t->n = 0;
	t->payload = 0;
	t->refused = CH39X_NCM_FIT_OK;
	t->len = t->empty;
	t->next = t->first;
	t->ent = buf + t->ent_off;
}

enum ch39x_ncm_fit
ch39x_ncm_tx_check(struct ch39x_ncm_tx *t, uint32_t len)
{
	enum ch39x_ncm_fit r;

	if (len == 0)
		return CH39X_NCM_FIT_BAD_LEN;
	/* As tx_fits_at(t, t->empty, 0, len), worked out at init. */
	if (len > t->max_dgram)
		return CH39X_NCM_FIT_TOO_BIG;
	if (t->dev_max_dgrams && t->n >= t->dev_max_dgrams)
		r = CH39X_NCM_FIT_MAX_DGRAMS;
	else if (t->n >= t->max_entries)
		r = CH39X_NCM_FIT_NDP_FULL;
	else if (!tx_fits_at(t, t->len, t->n, len))
		r = CH39X_NCM_FIT_FULL;
	else
		return CH39X_NCM_FIT_OK;
	t->refused = r;
	return r;
}

enum ch39x_ncm_fit
ch39x_ncm_tx_check_ips(struct ch39x_ncm_tx *t, uint32_t len, uint8_t session)
{
	enum ch39x_ncm_fit r = ch39x_ncm_tx_check(t, len);

	/* A datagram that never fits is dropped whatever its session. */
	if (r == CH39X_NCM_FIT_TOO_BIG || r == CH39X_NCM_FIT_BAD_LEN)
		return r;
	if (t->n > 0 && session != t->session) {
		t->refused = CH39X_NCM_FIT_SESSION;
		return CH39X_NCM_FIT_SESSION;
	}
	return r;
}

uint8_t *
ch39x_ncm_tx_add_ips(struct ch39x_ncm_tx *t, uint32_t len, uint8_t session)
{
	if (t->n == 0)
		t->session = session;
	return ch39x_ncm_tx_add(t, len);
}

uint8_t *
ch39x_ncm_tx_add_end(struct ch39x_ncm_tx *t, uint32_t len)
{
	uint32_t s = (uint32_t)ch39x_ncm_tx_dgram_start(t, t->len);

	memset(t->buf + t->len, 0, s - t->len);
	t->ent_idx[t->n] = s;
	t->ent_len[t->n] = len;
	t->n++;
	t->len = s + len;
	t->next = ch39x_ncm_tx_dgram_start(t, t->len);
	t->payload += len;
	t->refused = CH39X_NCM_FIT_OK;
	return t->buf + s;
}

/*
 * The front NDP, whose entries ch39x_ncm_tx_add() wrote: its header from
 * the init's template (NTB16: signature, wLength and a zero
 * wNextNdpIndex in two 32-bit stores), the null entry and zeros in the
 * room no datagram took, and in the NTH's padding before it (nothing else
 * of them was written since begin).
 */
static void
tx_close_front_ndp(struct ch39x_ncm_tx *t)
{
	uint8_t *p = t->buf + t->ndp_off;
	uint32_t used = (uint32_t)t->n * t->dpe;
	uint32_t sign = t->ips ? tx_ndp_sign(t) : t->ndp_sign;
	uint64_t h = (uint64_t)sign |
		     (uint64_t)(t->ndp_hdr + used + t->dpe) << 32;

	if (t->ndp_off > t->nth_len)
		memset(t->buf + t->nth_len, 0, t->ndp_off - t->nth_len);
	ch39x_put_le32(p, (uint32_t)h);
	ch39x_put_le32(p + 4, (uint32_t)(h >> 32));
	if (t->ntb32) {
		/* dwNextNdpIndex and the reserved words. */
		ch39x_put_le32(p + 8, 0);
		ch39x_put_le32(p + 12, 0);
	}
	memset(p + t->ndp_hdr + used, 0, t->ndp_room - used);
}

/* Write the NDP at off from the entries kept aside; returns its wLength. */
static uint32_t
tx_write_ndp(struct ch39x_ncm_tx *t, uint32_t off)
{
	uint8_t *p = t->buf + off;
	uint32_t dpe = tx_dpe(t);
	uint32_t ndp_len = tx_ndp_hdr(t) + ((uint32_t)t->n + 1) * dpe;
	uint32_t i;

	/* Reserved fields, next index and the null entry are zero. */
	memset(p, 0, ndp_len);
	if (t->ntb32) {
		ch39x_put_le32(p, tx_ndp_sign(t));
		ch39x_put_le16(p + 4, (uint16_t)ndp_len);
		p += CH39X_NCM_NDP32_HDR_LEN;
		for (i = 0; i < t->n; i++, p += dpe) {
			ch39x_put_le32(p, t->ent_idx[i]);
			ch39x_put_le32(p + 4, t->ent_len[i]);
		}
	} else {
		ch39x_put_le32(p, tx_ndp_sign(t));
		ch39x_put_le16(p + 4, (uint16_t)ndp_len);
		p += CH39X_NCM_NDP16_HDR_LEN;
		for (i = 0; i < t->n; i++, p += dpe) {
			ch39x_put_le16(p, (uint16_t)t->ent_idx[i]);
			ch39x_put_le16(p + 2, (uint16_t)t->ent_len[i]);
		}
	}
	return ndp_len;
}

/*
 * The close reason of an NTB refused a datagram for want of room, by the
 * refusal (ch39x_ncm_tx_check()): a table read rather than a switch, once
 * per NTB. CLOSE_BURST marks the refusals that close nothing (none, or a
 * datagram dropped whatever the NTB): the NTB's own limits then say.
 */
static const uint8_t tx_close_of_fit[] = {
	[CH39X_NCM_FIT_OK] = CH39X_NCM_CLOSE_BURST,
	[CH39X_NCM_FIT_FULL] = CH39X_NCM_CLOSE_FULL,
	[CH39X_NCM_FIT_MAX_DGRAMS] = CH39X_NCM_CLOSE_MAX_DGRAMS,
	[CH39X_NCM_FIT_NDP_FULL] = CH39X_NCM_CLOSE_NDP_FULL,
	[CH39X_NCM_FIT_TOO_BIG] = CH39X_NCM_CLOSE_BURST,
	[CH39X_NCM_FIT_BAD_LEN] = CH39X_NCM_CLOSE_BURST,
	[CH39X_NCM_FIT_SESSION] = CH39X_NCM_CLOSE_SESSION,
};

_Static_assert(sizeof(tx_close_of_fit) == CH39X_NCM_FIT_SESSION + 1,
	       "a close reason for each refusal");

/* Each close reason's counter in the stats, by its offset. */
static const uint8_t tx_close_ctr[] = {
	[CH39X_NCM_CLOSE_BURST] = offsetof(struct ch39x_ncm_tx_stats,
					   close_burst),
	[CH39X_NCM_CLOSE_FULL] = offsetof(struct ch39x_ncm_tx_stats,
					  close_full),
	[CH39X_NCM_CLOSE_MAX_DGRAMS] = offsetof(struct ch39x_ncm_tx_stats,
						close_max_dgrams),
	[CH39X_NCM_CLOSE_NDP_FULL] = offsetof(struct ch39x_ncm_tx_stats,
					      close_ndp_full),
	[CH39X_NCM_CLOSE_SESSION] = offsetof(struct ch39x_ncm_tx_stats,
					     close_session),
};
_Static_assert(sizeof(tx_close_ctr) == CH39X_NCM_CLOSE_SESSION + 1,
	       "a counter for each close reason");

struct ch39x_ncm_tx_end
ch39x_ncm_tx_finish(struct ch39x_ncm_tx *t)
{
	struct ch39x_ncm_tx_end e = { .dgrams = t->n };
	uint32_t ndp, ndp_len, len;
	uint64_t *ctr;

	if (t->n == 0)
		return e;

	/* refused holds a value of enum ch39x_ncm_fit: set only by it. */
	e.reason = tx_close_of_fit[t->refused];
	if (e.reason == CH39X_NCM_CLOSE_BURST) {
		if (t->dev_max_dgrams && t->n >= t->dev_max_dgrams)
			e.reason = CH39X_NCM_CLOSE_MAX_DGRAMS;
		else if (t->n >= t->max_entries)
			e.reason = CH39X_NCM_CLOSE_NDP_FULL;
	}

	if (t->ndp_at_end) {
		ndp = (uint32_t)align_up(t->len, t->ndp_align);
		memset(t->buf + t->len, 0, ndp - t->len);
		ndp_len = tx_write_ndp(t, ndp);
		t->len = ndp + ndp_len;
	} else {
		ndp = t->ndp_off;
		tx_close_front_ndp(t);
	}

	/*
	 * Short-packet rule: a transfer that is an exact multiple of
	 * wMaxPacketSize needs a ZLP to end it, unless it is dwNtbOutMaxSize
	 * long. Linux cdc_ncm_fill_tx_frame adds one zero byte instead
	 * ("force short packet") and counts it in wBlockLength; devices
	 * flagged FLAG_SEND_ZLP (Apple tethering, some docks) get a ZLP from
	 * usbnet instead, which is the zlp quirk here. Linux also pads NTBs
	 * longer than min_tx_pkt up to the full tx_max for some modems' DMA;
	 * that costs bandwidth and is not done here.
	 */
	len = t->len;
	if (len % t->maxp == 0 && len < t->dev_max) {
		if (t->zlp) {
			e.zlp = true;
			t->stats.zlps++;
		} else {
			t->buf[len++] = 0;	/* buf_size() keeps room */
			e.padded = true;
			t->stats.pad_bytes++;
		}
	}

	/* Signature, wHeaderLength and wSequence: the template and seq. */
	ch39x_put_le32(t->buf, (uint32_t)t->nth_tpl);
	ch39x_put_le32(t->buf + 4, (uint32_t)(t->nth_tpl >> 32) |
		       (uint32_t)t->seq << 16);
	if (t->ntb32) {
		ch39x_put_le32(t->buf + 8, len);
		ch39x_put_le32(t->buf + 12, ndp);
	} else {
		ch39x_put_le16(t->buf + 8, (uint16_t)len);
		ch39x_put_le16(t->buf + 10, (uint16_t)ndp);
	}
	t->seq = (uint16_t)(t->seq + 1u);	/* wraps to 0 */

	t->stats.ntbs++;
	t->stats.dgrams += t->n;
	t->stats.dgram_bytes += t->payload;
	t->stats.overhead += len - t->payload;
	/* An offset of a uint64_t member: aligned as the member is. */
	ctr = (void *)((uint8_t *)&t->stats + tx_close_ctr[e.reason]);
	(*ctr)++;
	e.len = len;
	t->n = 0;
	t->payload = 0;
	t->refused = CH39X_NCM_FIT_OK;
	return e;
}

/* ---- RX ---- */

void
ch39x_ncm_rx_init(struct ch39x_ncm_rx *rx, const struct ch39x_ncm_rx_cfg *cfg)
{
	memset(rx, 0, sizeof(*rx));
	rx->cfg = *cfg;
	if (rx->cfg.min_dgram == 0)
		rx->cfg.min_dgram = cfg->ips ? CH39X_MBIM_MIN_DGRAM :
			CH39X_NCM_ETH_HLEN;
}

void
ch39x_ncm_rx_reset_seq(struct ch39x_ncm_rx *rx)
{
	rx->seq_valid = false;
}

/*
 * ch39x_ncm_rx_begin() for one NTB format: n32 is a constant in each
 * caller, so the NTH's layout folds in.
 */
static inline __attribute__((always_inline)) int
rx_begin_fmt(struct ch39x_ncm_rx *rx, const uint8_t *buf, uint32_t len,
	     const bool n32)
{
	const uint32_t nth = n32 ? CH39X_NCM_NTH32_LEN : CH39X_NCM_NTH16_LEN;
	const uint32_t sig = n32 ? CH39X_NCM_NTH32_SIGN : CH39X_NCM_NTH16_SIGN;
	uint32_t block, ndp;
	uint16_t seq;

	rx->buf = buf;
	rx->block = 0;
	rx->next_ndp = 0;
	rx->in_ndp = false;
	rx->n_ndps = 0;
	if (len < nth) {
		rx->stats.short_ntb++;
		return -1;
	}
	if (ch39x_get_le32(buf) != sig) {
		rx->stats.bad_nth_sig++;
		return -1;
	}
	if (ch39x_get_le16(buf + 4) != nth) {
		rx->stats.bad_hdr_len++;
		return -1;
	}
	seq = ch39x_get_le16(buf + 6);
	if (n32) {
		block = ch39x_get_le32(buf + 8);
		ndp = ch39x_get_le32(buf + 12);
	} else {
		block = ch39x_get_le16(buf + 8);
		ndp = ch39x_get_le16(buf + 10);
	}
	/*
	 * wBlockLength 0: the NTB ends with the short packet, i.e. it is the
	 * whole transfer (NCM 1.0 3.2.1). Linux never looks at the block
	 * length except against rx_max and bounds everything by the transfer;
	 * here everything is bounded by the block, which must lie inside the
	 * transfer: a longer one means a truncated NTB, dropped whole. The
	 * same 0 rule is applied to NTB32's dwBlockLength.
	 */
	if (block == 0)
		block = len;
	if (block > len || block < nth ||
	    (rx->cfg.max_ntb && block > rx->cfg.max_ntb)) {
		rx->stats.bad_block_len++;
		return -1;
	}
	/*
	 * cdc_ncm_rx_verify_nth16: a glitch is any wSequence other than the
	 * previous one plus one, except a device that always sends 0 (the
	 * Linux gadget does). The first NTB after a reset sets the base.
	 */
	if (rx->seq_valid && seq != (uint16_t)(rx->last_seq + 1) &&
	    !(rx->last_seq == 0 && seq == 0))
		rx->stats.seq_gaps++;
	rx->last_seq = seq;
	rx->seq_valid = true;
	rx->stats.ntbs++;
	rx->stats.ntb_bytes += block;

	rx->block = block;
	rx->hdr_len = nth;
	rx->next_ndp = ndp;
	if (ndp == 0)
		rx->stats.bad_ndp_index++;	/* an NTB must have an NDP */
	return 0;
}

int
ch39x_ncm_rx_begin(struct ch39x_ncm_rx *rx, const uint8_t *buf, uint32_t len)
{
	return rx->cfg.ntb32 ? rx_begin_fmt(rx, buf, len, true) :
		rx_begin_fmt(rx, buf, len, false);
}

/* Whether an NDP of signature sig is read; sets its session (ips). */
static bool
rx_ndp_ours(struct ch39x_ncm_rx *rx, uint32_t sig, const bool n32)
{
	if (!rx->cfg.ips)
		return sig == (n32 ? CH39X_NCM_NDP32_SIGN :
			       CH39X_NCM_NDP16_SIGN);
	if ((sig & CH39X_MBIM_NDP_SIGN_MASK) != (n32 ?
	    CH39X_MBIM_NDP32_IPS_SIGN : CH39X_MBIM_NDP16_IPS_SIGN))
		return false;
	rx->session = (uint8_t)(sig >> 24);
	return true;
}

/*
 * Open the NDP at off. Returns false when the chain must end here (bad or
 * revisited NDP); true with in_ndp set, or clear for a skipped signature.
 * n32 is a constant in each caller (rx_open_ndp()): the NDP's layout
 * folds in.
 */
static inline __attribute__((always_inline)) bool
rx_open_ndp_fmt(struct ch39x_ncm_rx *rx, uint32_t off, const bool n32)
{
	uint32_t hdr = n32 ? CH39X_NCM_NDP32_HDR_LEN : CH39X_NCM_NDP16_HDR_LEN;
	uint32_t min = n32 ? CH39X_NCM_NDP32_MIN_LEN : CH39X_NCM_NDP16_MIN_LEN;
	uint32_t dpe = n32 ? CH39X_NCM_DPE32_LEN : CH39X_NCM_DPE16_LEN;
	uint32_t i, wlen;
	const uint8_t *p;

	/* NCM 1.0 3.2: a multiple of 4, not inside the NTH. */
	if (off % 4 != 0 || off < rx->hdr_len || off > rx->block ||
	    hdr > rx->block - off) {
		rx->stats.bad_ndp_index++;
		return false;
	}
	for (i = 0; i < rx->n_ndps; i++) {
		if (rx->ndps[i] == off) {
			rx->stats.ndp_loops++;
			return false;
		}
	}
	if (rx->n_ndps == CH39X_NCM_RX_MAX_NDPS) {
		rx->stats.ndp_loops++;
		return false;
	}
	rx->ndps[rx->n_ndps++] = off;

	p = rx->buf + off;
	wlen = ch39x_get_le16(p + 4);
	if (wlen < min || wlen % dpe != 0 || wlen > rx->block - off) {
		rx->stats.bad_ndp_len++;
		return false;
	}
	rx->next_ndp = n32 ? ch39x_get_le32(p + 8) : ch39x_get_le16(p + 6);
	if (!rx_ndp_ours(rx, ch39x_get_le32(p), n32)) {
		/*
		 * CRC mode is never set; MBIM's NDPs are not an NCM
		 * function's, DSS streams and NCM NDPs not an MBIM one's.
		 */
		rx->stats.ndp_sig_skipped++;
		rx->in_ndp = false;
		return true;
	}
	rx->entry = off + hdr;
	rx->entry_end = off + wlen;
	rx->in_ndp = true;
	rx->first_entry = true;
	return true;
}

static bool
rx_open_ndp(struct ch39x_ncm_rx *rx, uint32_t off)
{
	return rx->cfg.ntb32 ? rx_open_ndp_fmt(rx, off, true) :
		rx_open_ndp_fmt(rx, off, false);
}

int
ch39x_ncm_rx_next(struct ch39x_ncm_rx *rx, struct ch39x_ncm_dgram *d)
{
	bool n32 = rx->cfg.ntb32;
	uint32_t dpe = n32 ? CH39X_NCM_DPE32_LEN : CH39X_NCM_DPE16_LEN;

	for (;;) {
		uint32_t idx, len, off;
		bool first;

		if (!rx->in_ndp) {
			off = rx->next_ndp;
			rx->next_ndp = 0;
			if (off == 0 || !rx_open_ndp(rx, off))
				return 0;
			continue;
		}
		if (dpe > rx->entry_end - rx->entry) {
			/* wLength ran out before the null entry. */
			rx->stats.ndp_no_null++;
			rx->in_ndp = false;
			continue;
		}
		if (n32) {
			idx = ch39x_get_le32(rx->buf + rx->entry);
			len = ch39x_get_le32(rx->buf + rx->entry + 4);
		} else {
			idx = ch39x_get_le16(rx->buf + rx->entry);
			len = ch39x_get_le16(rx->buf + rx->entry + 2);
		}
		rx->entry += dpe;
		first = rx->first_entry;
		rx->first_entry = false;

		/*
		 * NCM 1.0 3.7 as Linux reads it: an entry with a zero index
		 * or a zero length is the null entry; the rest of the NDP is
		 * ignored. Only (0, 0) is a clean end.
		 */
		if (idx == 0 || len == 0) {
			if (idx != 0)
				rx->stats.zero_len_dgram++;
			else if (len != 0)
				rx->stats.zero_idx_dgram++;
			else if (first)
				rx->stats.empty_ndp++;
			rx->in_ndp = false;
			continue;
		}
		/*
		 * Inside the block and after the NTH; written to be free of
		 * wrap-around. Unlike Linux, which stops at the first bad
		 * entry, a bad entry is skipped and the NDP goes on.
		 * Datagrams may overlap each other or an NDP: they are only
		 * read, and every byte yielded lies inside the block.
		 */
		if (idx < rx->hdr_len || idx > rx->block ||
		    len > rx->block - idx || len < rx->cfg.min_dgram ||
		    (rx->cfg.max_dgram && len > rx->cfg.max_dgram)) {
			rx->stats.bad_dgram++;
			continue;
		}
		d->data = rx->buf + idx;
		d->len = len;
		d->offset = idx;
		d->session = rx->session;
		rx->stats.dgrams++;
		rx->stats.dgram_bytes += len;
		return 1;
	}
}

/* The datagram pointer entry at p: wDatagramIndex and wDatagramLength. */
static inline __attribute__((always_inline)) void
rx_entry_at(const uint8_t *p, uint32_t *idx, uint32_t *len, const bool n32)
{
	uint32_t w;

	if (n32) {
		*idx = ch39x_get_le32(p);
		*len = ch39x_get_le32(p + 4);
	} else {
		w = ch39x_get_le32(p);	/* both 16-bit fields at once */
		*idx = w & 0xFFFFu;
		*len = w >> 16;
	}
}

/*
 * The good datagrams of the open NDP from entry rx->entry on, into d[] (at
 * most max): each entry read in one access per field, the checks of
 * ch39x_ncm_rx_next() on it folded into three comparisons, nothing
 * written back but the cursor. Stops at the first entry that is not a
 * good datagram (null, bad, the end of wLength), which the caller's
 * ch39x_ncm_rx_next() then takes, but for the null entry that ends an
 * NDP of good ones, which it closes. n32 is a constant in each caller: the
 * entry layout folds in.
 */
static inline unsigned int
rx_good_entries(struct ch39x_ncm_rx *rx, struct ch39x_ncm_dgram *d,
		unsigned int max, uint64_t *bytes, const bool n32)
{
	const uint32_t dpe = n32 ? CH39X_NCM_DPE32_LEN : CH39X_NCM_DPE16_LEN;
	const uint8_t *b = rx->buf, *p;
	uint32_t block = rx->block, hdr = rx->hdr_len;
	uint32_t min = rx->cfg.min_dgram;
	uint32_t maxd = rx->cfg.max_dgram ? rx->cfg.max_dgram : UINT32_MAX;
	/*
	 * idx in [hdr, block] is idx - hdr <= span; len in [min, maxd] is
	 * len - min <= lspan (both unsigned: what is below wraps above).
	 */
	uint32_t span = block - hdr, lspan = maxd - min;
	uint32_t idx = 0, len = 0;
	uint64_t sum = 0;
	unsigned int n, lim, avail;

	/* entry <= entry_end always: both lie in the block, entry steps. */
	avail = (rx->entry_end - rx->entry) / dpe;
	lim = avail;
	if (lim > max)
		lim = max;
	if (maxd < min)
		lim = 0;	/* nothing is good: the slow path counts */
	p = b + rx->entry;
	for (n = 0; n < lim; n++, p += dpe) {
		rx_entry_at(p, &idx, &len, n32);
		/*
		 * min_dgram is at least 1 and the NTH is not empty: a null or
		 * half-null entry fails here too and is the slow path's.
		 */
		if (idx - hdr > span || len > block - idx || len - min > lspan)
			break;
		d[n].data = b + idx;
		d[n].len = len;
		d[n].offset = idx;
		d[n].session = rx->session;	/* of the open NDP (ips) */
		sum += len;
	}
	if (n != 0) {
		rx->entry += n * dpe;
		rx->first_entry = false;
		*bytes += sum;
		/*
		 * The batch took max with entries left inside wLength: the
		 * next one read as the loop would, so that a null one closes
		 * the NDP now, not in a call more (the next burst's, which
		 * finds the NTB used up only then: a quarter of a call per
		 * NTB of ten 1514-byte datagrams in bursts of 32).
		 */
		if (n == lim && n < avail)
			rx_entry_at(p, &idx, &len, n32);
		/*
		 * A null entry after good ones, the clean end of the NDP: closed
		 * here as ch39x_ncm_rx_next() would (nothing to count), a call
		 * less per NDP.
		 */
		if (n < avail && idx == 0 && len == 0) {
			rx->entry += dpe;
			rx->in_ndp = false;
		}
	}
	return n;
}

unsigned int
ch39x_ncm_rx_burst(struct ch39x_ncm_rx *rx, struct ch39x_ncm_dgram *d,
		   unsigned int max)
{
	const bool n32 = rx->cfg.ntb32;
	uint64_t bytes = 0;
	unsigned int n = 0, fast = 0, k;
	uint32_t off;

	while (n < max) {
		/*
		 * The next NDP, opened here as ch39x_ncm_rx_next() would, so
		 * that its first entry is read in the batch too.
		 */
		if (!rx->in_ndp) {
			off = rx->next_ndp;
			rx->next_ndp = 0;
			if (off == 0 || !(n32 ? rx_open_ndp_fmt(rx, off, true) :
					  rx_open_ndp_fmt(rx, off, false)))
				break;
			continue;
		}
		k = n32 ? rx_good_entries(rx, d + n, max - n, &bytes, true) :
			rx_good_entries(rx, d + n, max - n, &bytes, false);
		n += k;
		fast += k;
		if (n == max || !rx->in_ndp)
			continue;
		/* The entry that stopped the run: null, bad or the last. */
		if (ch39x_ncm_rx_next(rx, &d[n]) == 0)
			break;
		n++;
	}
	rx->stats.dgrams += fast;
	rx->stats.dgram_bytes += bytes;
	return n;
}
