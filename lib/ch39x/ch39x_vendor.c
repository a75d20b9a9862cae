/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#include <string.h>

#include "ch39x_vendor.h"

#define ALIGN4(x) (((x) + 3u) & ~3u)

static const struct ch39x_regs ch39x_v01_regs = {
	.mac_cfg = 0x40000700, .mac_h = 0x40000710, .mac_l = 0x40000714,
	.hash_hi = 0x40000730, .hash_lo = 0x40000734, .macier = 0x4000073C,
	.misc_cfg = 0,
};

static const struct ch39x_regs ch39x_v02_regs = {
	.mac_cfg = 0x40024000, .mac_h = 0x40024010, .mac_l = 0x40024014,
	.hash_hi = 0x40024030, .hash_lo = 0x40024034, .macier = 0x4002403C,
	.misc_cfg = 0x400240E8,
};

const char *
ch39x_chip_name(uint16_t pid)
{
	switch (pid) {
	case CH39X_PID_CH336: return "CH336";
	case CH39X_PID_CH339: return "CH339";
	case CH39X_PID_CH396: return "CH396";
	case CH39X_PID_CH397: return "CH397";
	case CH39X_PID_CH398: return "CH398";
	case CH39X_PID_CH9153: return "CH9153";
	default: return NULL;
	}
}

int
ch39x_profile_init(struct ch39x_profile *p, uint16_t pid,
		   enum ch39x_usb_speed speed)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->speed = speed;
	p->min_mtu = 68;
	switch (pid) {
	case CH39X_PID_CH336:
	case CH39X_PID_CH339:
	case CH39X_PID_CH396:
	case CH39X_PID_CH397:
		/* V01 is a USB 2.0 part with one profile at every speed (8). */
		if (speed != CH39X_SPEED_HIGH && speed != CH39X_SPEED_FULL)
			return -1;
		p->family = CH39X_V01;
		p->config_value = 1;
		p->one_frame_per_xfer = pid == CH39X_PID_CH336 ||
					pid == CH39X_PID_CH339;
		p->tx_zlp = true;
		p->tx_xfer_size = 4096;
		p->rx_xfer_size = 16384;
		p->tx_xfers = 10;
		p->rx_xfers = 10;
		p->max_frame = CH39X_V01_MAX_FRAME;
		p->max_mtu = 1500;
		p->intr_len = CH39X_V01_EVT_LEN;
		p->regs = ch39x_v01_regs;
		break;
	case CH39X_PID_CH398:
	case CH39X_PID_CH9153:
		p->family = CH39X_V02;
		p->config_value = 3;
		p->gigabit = true;
		p->intr_len = CH39X_V02_EVT_LEN;
		p->regs = ch39x_v02_regs;
		p->max_frame = CH39X_V02_MAX_FRAME;
		p->max_mtu = 9198;
		switch (speed) {
		case CH39X_SPEED_SUPER:
			p->tx_xfer_size = 16384;
			p->rx_xfer_size = 32768;
			p->tx_xfers = 10;
			p->rx_xfers = 16;
			break;
		case CH39X_SPEED_HIGH:
			p->tx_ls = true;
			p->tx_xfer_size = 16384;
			p->rx_xfer_size = 32768;
			p->tx_xfers = 10;
			p->rx_xfers = 10;
			break;
		case CH39X_SPEED_FULL:
			p->tx_ls = true;
			p->tx_xfer_size = 8192;
			p->rx_xfer_size = 8192;
			p->tx_xfers = 4;
			p->rx_xfers = 4;
			/* min(9198, 8192 - 12 - 18) (§7). */
			p->max_mtu = 8162;
			break;
		default:
			return -1;
		}
		break;
	default:
		return -1;
	}
	switch (speed) {
	case CH39X_SPEED_SUPER: p->bulk_maxp = 1024; break;
	case CH39X_SPEED_HIGH: p->bulk_maxp = 512; break;
	default: p->bulk_maxp = 64; break;
	}
	return 0;
}

/* ---- RX ---- */

void
ch39x_rx_parser_init(struct ch39x_rx_parser *ps,
		     const struct ch39x_profile *prof)
{
	struct ch39x_rx_frame f;
	uint32_t i, info;

	memset(ps, 0, offsetof(struct ch39x_rx_parser, carry));
	ps->prof = prof;
	/* cmd_1's checksum bits back from the index: 0-3 and 7-9. */
	for (i = 0; i < CH39X_RX_CSUM_TAB; i++) {
		info = (i & 0xFu) | ((i & 0x70u) << 3);
		ch39x_rx_decode_info(&f, info);
		ps->csum_tab[i] = (uint8_t)(f.ip_csum | (f.l4_csum << 2));
	}
}

void
ch39x_rx_begin(struct ch39x_rx_parser *ps, const uint8_t *buf, uint32_t len)
{
	ps->buf = buf;
	ps->len = len;
	ps->off = 0;
	ps->short_xfer = false;
	/*
	 * A transfer that cannot hold even one minimal record, and that does
	 * not continue a carried one, is skipped unparsed as V1.7 does.
	 */
	if (ps->carry_len == 0 && len > 0 &&
	    len < CH39X_HDR_LEN + CH39X_MIN_FRAME) {
		ps->stats.short_xfers++;
		ps->off = len;
	}
}

void
ch39x_rx_mark_short(struct ch39x_rx_parser *ps)
{
	ps->short_xfer = true;
}

/* The transfer ends inside a record: carry it, or drop it if truncated. */
static void
rx_carry(struct ch39x_rx_parser *ps, const uint8_t *from, uint32_t n)
{
	if (ps->short_xfer) {
		ps->stats.truncated++;
		ps->carry_len = 0;
	} else {
		memcpy(ps->carry + ps->carry_len, from, n);
		ps->carry_len += n;
	}
	ps->off = ps->len;
}

void
ch39x_rx_reset(struct ch39x_rx_parser *ps)
{
	if (ps->carry_len)
		ps->stats.carry_lost++;
	ps->carry_len = 0;
	ps->buf = NULL;
	ps->len = 0;
	ps->off = 0;
}

void
ch39x_rx_decode_info(struct ch39x_rx_frame *f, uint32_t info)
{
	bool ip_err = info & CH39X_RX_IP_ERR;
	bool l4_err;

	f->info = info;
	f->vlan_stripped = (info & CH39X_RX_VLAN) != 0;
	f->vlan_tci = f->vlan_stripped ? (uint16_t)(info >> 16) : 0;
	f->ip_csum = CH39X_CSUM_UNKNOWN;
	f->l4_csum = CH39X_CSUM_UNKNOWN;
	/*
	 * ch398_rx_cksum_offload: good when a "checked" bit has no matching
	 * error, and over IPv4 no IP header error either; an IPv4 frame whose
	 * header is bad leaves its L4 checksum unverified. A set error bit
	 * next to its "checked" bit is reported as bad.
	 */
	if (info & (CH39X_RX_UDP4_CHK | CH39X_RX_TCP4_CHK))
		f->ip_csum = ip_err ? CH39X_CSUM_BAD : CH39X_CSUM_GOOD;
	if (info & (CH39X_RX_UDP4_CHK | CH39X_RX_UDP6_CHK))
		l4_err = info & CH39X_RX_UDP_ERR;
	else if (info & (CH39X_RX_TCP4_CHK | CH39X_RX_TCP6_CHK))
		l4_err = info & CH39X_RX_TCP_ERR;
	else
		return;
	if (l4_err)
		f->l4_csum = CH39X_CSUM_BAD;
	else if (!(ip_err && (info & (CH39X_RX_UDP4_CHK | CH39X_RX_TCP4_CHK))))
		f->l4_csum = CH39X_CSUM_GOOD;
}

/* Frame length from a record header, or 0 when the header is malformed. */
static uint32_t
rx_hdr_len(const struct ch39x_rx_parser *ps, const uint8_t *hdr)
{
	/* V1.7 uses bits 15..0 and ignores the rest (§4). */
	uint32_t flen = ch39x_get_le32(hdr) & 0xFFFFu;

	if (flen < CH39X_MIN_FRAME || flen > ps->prof->max_frame)
		return 0;
	return flen;
}

static void
rx_fill(const struct ch39x_rx_parser *ps, const uint8_t *rec, uint32_t flen,
	struct ch39x_rx_frame *f)
{
	f->data = rec + CH39X_HDR_LEN;
	f->len = flen;
	f->straddled = false;
	/* V01 cmd_1 carries nothing (V1.3 skips it). */
	ch39x_rx_decode_info(f, ps->prof->family == CH39X_V02 ?
			     ch39x_get_le32(rec + 4) : 0);
}

static bool
all_zero(const uint8_t *p, uint32_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* Continue a record carried from an earlier transfer. */
static int
rx_continue(struct ch39x_rx_parser *ps, struct ch39x_rx_frame *f)
{
	uint32_t avail = ps->len - ps->off;
	uint32_t take, flen, rec, pad;

	if (ps->carry_len < CH39X_HDR_LEN) {
		take = CH39X_HDR_LEN - ps->carry_len;
		if (take > avail) {
			rx_carry(ps, ps->buf + ps->off, avail);
			return 0;
		}
		memcpy(ps->carry + ps->carry_len, ps->buf + ps->off, take);
		ps->carry_len += take;
		ps->off += take;
		avail -= take;
		if (rx_hdr_len(ps, ps->carry) == 0) {
			ps->stats.bad_headers++;
			ps->carry_len = 0;
			ps->off = ps->len;
			return 0;
		}
	}
	flen = rx_hdr_len(ps, ps->carry);
	rec = CH39X_HDR_LEN + flen;
	take = rec - ps->carry_len;
	if (take > avail) {
		rx_carry(ps, ps->buf + ps->off, avail);
		return 0;
	}
	memcpy(ps->carry + ps->carry_len, ps->buf + ps->off, take);
	ps->carry_len += take;
	ps->off += take;
	/* The record's padding follows it in the stream. */
	pad = ALIGN4(rec) - rec;
	ps->off = ps->off + pad > ps->len ? ps->len : ps->off + pad;
	ps->carry_len = 0;
	rx_fill(ps, ps->carry, flen, f);
	f->straddled = true;
	ps->stats.straddled++;
	ps->stats.frames++;
	ps->stats.frame_bytes += flen;
	return 1;
}

int
ch39x_rx_next_slow(struct ch39x_rx_parser *ps, struct ch39x_rx_frame *f)
{
	uint32_t avail, flen, rec;
	const uint8_t *hdr;

	if (ps->off >= ps->len) {
		/* A short transfer with nothing in it also ends a record. */
		if (ps->short_xfer && ps->carry_len) {
			ps->stats.truncated++;
			ps->carry_len = 0;
		}
		return 0;
	}
	if (ps->carry_len)
		return rx_continue(ps, f);

	avail = ps->len - ps->off;
	hdr = ps->buf + ps->off;
	if (avail < CH39X_HDR_LEN) {
		/* Zero fill after the last record is padding, not a header. */
		if (!all_zero(hdr, avail))
			rx_carry(ps, hdr, avail);
		ps->off = ps->len;
		return 0;
	}
	flen = rx_hdr_len(ps, hdr);
	if (flen == 0) {
		/* Drop the rest; the next transfer starts with a header. */
		ps->stats.bad_headers++;
		ps->off = ps->len;
		return 0;
	}
	rec = CH39X_HDR_LEN + flen;
	if (rec > avail) {
		rx_carry(ps, hdr, avail);
		return 0;
	}
	rx_fill(ps, hdr, flen, f);
	ps->off += ALIGN4(rec);
	if (ps->off > ps->len)
		ps->off = ps->len;
	ps->stats.frames++;
	ps->stats.frame_bytes += flen;
	return 1;
}

/* ---- TX ---- */

uint32_t
ch39x_tx_buf_size(const struct ch39x_profile *p)
{
	return p->tx_xfer_size + CH39X_TX_TRAILER;
}

void
ch39x_tx_agg_init(struct ch39x_tx_agg *a, uint8_t *buf)
{
	a->buf = buf;
	a->len = 0;
	a->frames = 0;
	a->frame_bytes = 0;
	a->last_hdr = 0;
}

struct ch39x_tx_end
ch39x_tx_agg_finish(const struct ch39x_profile *p, struct ch39x_tx_agg *a)
{
	struct ch39x_tx_end e = { .len = a->len, .zlp = false, .tx_ls = false };

	if (a->len == 0 || a->len % p->bulk_maxp != 0)
		return e;
	if (p->tx_ls) {
		uint8_t *h = a->buf + a->last_hdr;

		ch39x_put_le32(h, ch39x_get_le32(h) | CH39X_TX_LS);
		memset(a->buf + a->len, 0, CH39X_TX_TRAILER);
		a->len += CH39X_TX_TRAILER;
		e.len = a->len;
		e.tx_ls = true;
	} else if (p->tx_zlp) {
		e.zlp = true;
	}
	return e;
}

/* ---- Interrupt events ---- */

int
ch39x_event_parse(const struct ch39x_profile *p, const uint8_t *buf,
		  uint32_t len, struct ch39x_event *ev)
{
	uint32_t st;

	if (len < p->intr_len)
		return -1;
	st = ch39x_get_le32(buf);
	ev->link_up = (st & CH39X_EVT_LINK_UP) != 0;
	ev->full_duplex = (st & CH39X_EVT_FULL_DUPLEX) != 0;
	if (p->family == CH39X_V02 && (st & CH39X_EVT_SPEED_1000))
		ev->speed_mbps = 1000;
	else
		ev->speed_mbps = (st & CH39X_EVT_SPEED_10) ? 10 : 100;
	ev->rx_packets = ch39x_get_le32(buf + 4);
	ev->rx_overflow = ch39x_get_le16(buf + 8);
	ev->rx_crc_errors = ch39x_get_le16(buf + 10);
	ev->tx_packets = ch39x_get_le32(buf + 12);
	return 0;
}

uint32_t
ch39x_event_build(const struct ch39x_profile *p, const struct ch39x_event *ev,
		  uint8_t *buf, uint32_t cap)
{
	uint32_t st = 0;

	if (cap < p->intr_len)
		return 0;
	memset(buf, 0, p->intr_len);
	if (ev->link_up)
		st |= CH39X_EVT_LINK_UP;
	if (ev->full_duplex)
		st |= CH39X_EVT_FULL_DUPLEX;
	if (ev->speed_mbps == 10)
		st |= CH39X_EVT_SPEED_10;
	else if (ev->speed_mbps == 1000)
		st |= CH39X_EVT_SPEED_1000;
	ch39x_put_le32(buf, st);
	ch39x_put_le32(buf + 4, ev->rx_packets);
	ch39x_put_le16(buf + 8, ev->rx_overflow);
	ch39x_put_le16(buf + 10, ev->rx_crc_errors);
	ch39x_put_le32(buf + 12, ev->tx_packets);
	return p->intr_len;
}

/* ---- Multicast hash ---- */

uint32_t
ch39x_crc32_le(const uint8_t *data, size_t len)
{
	uint32_t crc = 0xFFFFFFFFu;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= data[i];
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return crc ^ 0xFFFFFFFFu;
}

unsigned int
ch39x_mc_hash_index(const uint8_t mac[6])
{
	uint32_t c = ch39x_crc32_le(mac, 6);
	unsigned int idx = 0;
	int i;

	/* The top 6 bits of bit-reversed C are C's low 6 bits reversed. */
	for (i = 0; i < 6; i++)
		if (c & (1u << i))
			idx |= 1u << (5 - i);
	return idx;
}

static uint32_t
swap_halves(uint32_t v)
{
	return (v << 16) | (v >> 16);
}

void
ch39x_mc_hash_regs(enum ch39x_family fam, const uint8_t (*macs)[6],
		   unsigned int n, uint32_t *hash_hi, uint32_t *hash_lo)
{
	uint32_t f[2] = { 0, 0 };
	unsigned int i, idx;

	for (i = 0; i < n; i++) {
		idx = ch39x_mc_hash_index(macs[i]);
		f[idx >> 5] |= 1u << (idx & 31);
	}
	if (fam == CH39X_V01) {
		*hash_hi = swap_halves(f[1]);
		*hash_lo = swap_halves(f[0]);
	} else {
		*hash_hi = f[1];
		*hash_lo = f[0];
	}
}

uint32_t
ch39x_rx_mode_bits(bool promisc, bool allmulti, unsigned int n_mc)
{
	if (promisc)
		return CH39X_MACCFG_RX_RA;
	if (allmulti || n_mc > CH39X_MC_HASH_MAX_ADDRS)
		return CH39X_MACCFG_RX_PUF | CH39X_MACCFG_RX_PBD |
			CH39X_MACCFG_RX_PAM;
	if (n_mc > 0)
		return CH39X_MACCFG_RX_PUF | CH39X_MACCFG_RX_PBD |
			CH39X_MACCFG_RX_PLM;
	return CH39X_MACCFG_RX_PUF | CH39X_MACCFG_RX_PBD;
}
