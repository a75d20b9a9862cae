/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#include <string.h>

#include "ch39x_mbim.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends, inline only */

const uint8_t ch39x_mbim_uuid_basic_connect[CH39X_MBIM_UUID_LEN] = {
	0xa2, 0x89, 0xcc, 0x33, 0xbc, 0xbb, 0x8b, 0x4f,
	0xb6, 0xb0, 0x13, 0x3e, 0xc2, 0xaa, 0xe6, 0xdf,
};
const uint8_t ch39x_mbim_uuid_context_internet[CH39X_MBIM_UUID_LEN] = {
	0x7e, 0x5e, 0x2a, 0x7e, 0x4e, 0x6f, 0x72, 0x72,
	0x73, 0x6b, 0x65, 0x6e, 0x7e, 0x5e, 0x2a, 0x7e,
};

/* Whether [off, off + n) lies inside len bytes, free of wrap-around. */
static bool
inside(uint32_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* ---- Whole messages ---- */

int
ch39x_mbim_parse(const uint8_t *buf, uint32_t len, struct ch39x_mbim_msg *m)
{
	uint32_t fixed, info_at;

	memset(m, 0, sizeof(*m));
	if (len < CH39X_MBIM_HDR_LEN)
		return CH39X_MBIM_E_SHORT;
	m->type = ch39x_get_le32(buf);
	m->length = ch39x_get_le32(buf + 4);
	m->tid = ch39x_get_le32(buf + 8);
	if (m->length != len)
		return CH39X_MBIM_E_LENGTH;
	switch (m->type) {
	case CH39X_MBIM_OPEN_MSG:
		if (len < CH39X_MBIM_OPEN_LEN)
			return CH39X_MBIM_E_SHORT;
		m->max_ctrl = ch39x_get_le32(buf + 12);
		return 0;
	case CH39X_MBIM_CLOSE_MSG:
		return 0;
	case CH39X_MBIM_OPEN_DONE:
	case CH39X_MBIM_CLOSE_DONE:
	case CH39X_MBIM_HOST_ERROR_MSG:
	case CH39X_MBIM_FUNCTION_ERROR_MSG:
		if (len < CH39X_MBIM_STATUS_LEN)
			return CH39X_MBIM_E_SHORT;
		m->status = ch39x_get_le32(buf + 12);
		return 0;
	case CH39X_MBIM_COMMAND_MSG:
	case CH39X_MBIM_COMMAND_DONE:
		fixed = CH39X_MBIM_COMMAND_LEN;
		info_at = 44;
		break;
	case CH39X_MBIM_INDICATE_STATUS_MSG:
		fixed = CH39X_MBIM_INDICATE_LEN;
		info_at = 40;
		break;
	default:
		return CH39X_MBIM_E_TYPE;
	}
	if (len < fixed)
		return CH39X_MBIM_E_SHORT;
	if (ch39x_get_le32(buf + 12) != 1 || ch39x_get_le32(buf + 16) != 0)
		return CH39X_MBIM_E_FRAGMENT;
	memcpy(m->uuid, buf + 20, CH39X_MBIM_UUID_LEN);
	m->cid = ch39x_get_le32(buf + 36);
	if (m->type == CH39X_MBIM_COMMAND_MSG)
		m->cmd_type = ch39x_get_le32(buf + 40);
	else if (m->type == CH39X_MBIM_COMMAND_DONE)
		m->status = ch39x_get_le32(buf + 40);
	m->info_len = ch39x_get_le32(buf + info_at);
	if (m->info_len > len - fixed) {
		m->info_len = 0;
		return CH39X_MBIM_E_INFO_LEN;
	}
	m->info = m->info_len ? buf + fixed : NULL;
	return 0;
}

static void
put_hdr(uint8_t *buf, uint32_t type, uint32_t len, uint32_t tid)
{
	ch39x_put_le32(buf, type);
	ch39x_put_le32(buf + 4, len);
	ch39x_put_le32(buf + 8, tid);
}

uint32_t
ch39x_mbim_build_open(uint8_t *buf, uint32_t cap, uint32_t tid,
		      uint32_t max_ctrl)
{
	if (cap < CH39X_MBIM_OPEN_LEN)
		return 0;
	put_hdr(buf, CH39X_MBIM_OPEN_MSG, CH39X_MBIM_OPEN_LEN, tid);
	ch39x_put_le32(buf + 12, max_ctrl);
	return CH39X_MBIM_OPEN_LEN;
}

uint32_t
ch39x_mbim_build_close(uint8_t *buf, uint32_t cap, uint32_t tid)
{
	if (cap < CH39X_MBIM_CLOSE_LEN)
		return 0;
	put_hdr(buf, CH39X_MBIM_CLOSE_MSG, CH39X_MBIM_CLOSE_LEN, tid);
	return CH39X_MBIM_CLOSE_LEN;
}

uint32_t
ch39x_mbim_build_status(uint8_t *buf, uint32_t cap, uint32_t type,
			uint32_t tid, uint32_t status)
{
	if (cap < CH39X_MBIM_STATUS_LEN)
		return 0;
	put_hdr(buf, type, CH39X_MBIM_STATUS_LEN, tid);
	ch39x_put_le32(buf + 12, status);
	return CH39X_MBIM_STATUS_LEN;
}

/*
 * The fields the three fragmented types share: header, one fragment of
 * one, service and CID; word is the command type or the status (none for
 * an indication, whose buffer length follows the CID).
 */
static uint32_t
build_service_msg(uint8_t *buf, uint32_t cap, uint32_t type, uint32_t tid,
		  const uint8_t *uuid, uint32_t cid, uint32_t word,
		  const uint8_t *info, uint32_t info_len)
{
	uint32_t fixed = type == CH39X_MBIM_INDICATE_STATUS_MSG ?
		CH39X_MBIM_INDICATE_LEN : CH39X_MBIM_COMMAND_LEN;

	if (cap < fixed || info_len > cap - fixed)
		return 0;
	put_hdr(buf, type, fixed + info_len, tid);
	ch39x_put_le32(buf + 12, 1);
	ch39x_put_le32(buf + 16, 0);
	memcpy(buf + 20, uuid, CH39X_MBIM_UUID_LEN);
	ch39x_put_le32(buf + 36, cid);
	if (type != CH39X_MBIM_INDICATE_STATUS_MSG)
		ch39x_put_le32(buf + 40, word);
	ch39x_put_le32(buf + fixed - 4, info_len);
	if (info_len)
		memmove(buf + fixed, info, info_len);
	return fixed + info_len;
}

uint32_t
ch39x_mbim_build_command(uint8_t *buf, uint32_t cap, uint32_t tid,
			 const uint8_t *uuid, uint32_t cid, uint32_t cmd_type,
			 const uint8_t *info, uint32_t info_len)
{
	return build_service_msg(buf, cap, CH39X_MBIM_COMMAND_MSG, tid, uuid,
				 cid, cmd_type, info, info_len);
}

uint32_t
ch39x_mbim_build_command_done(uint8_t *buf, uint32_t cap, uint32_t tid,
			      const uint8_t *uuid, uint32_t cid,
			      uint32_t status, const uint8_t *info,
			      uint32_t info_len)
{
	return build_service_msg(buf, cap, CH39X_MBIM_COMMAND_DONE, tid, uuid,
				 cid, status, info, info_len);
}

uint32_t
ch39x_mbim_build_indicate(uint8_t *buf, uint32_t cap, const uint8_t *uuid,
			  uint32_t cid, const uint8_t *info, uint32_t info_len)
{
	return build_service_msg(buf, cap, CH39X_MBIM_INDICATE_STATUS_MSG, 0,
				 uuid, cid, 0, info, info_len);
}

/* ---- Fragments ---- */

/* A whole message of a fragmented type: its body's length, or -1. */
static int64_t
frag_body(const uint8_t *msg, uint32_t len, uint32_t max_ctrl)
{
	if (max_ctrl < CH39X_MBIM_CTRL_MIN || len < CH39X_MBIM_HDR_LEN ||
	    ch39x_get_le32(msg + 4) != len)
		return -1;
	if (!ch39x_mbim_fragmented(ch39x_get_le32(msg)))
		return len <= max_ctrl ? 0 : -1;
	if (len < CH39X_MBIM_FRAG_HDR_LEN)
		return -1;
	return len - CH39X_MBIM_FRAG_HDR_LEN;
}

uint32_t
ch39x_mbim_frag_count(const uint8_t *msg, uint32_t len, uint32_t max_ctrl)
{
	int64_t body = frag_body(msg, len, max_ctrl);
	uint32_t chunk = max_ctrl - CH39X_MBIM_FRAG_HDR_LEN;

	if (body < 0)
		return 0;
	if (len <= max_ctrl)
		return 1;
	return (uint32_t)((body + chunk - 1) / chunk);
}

uint32_t
ch39x_mbim_frag_build(const uint8_t *msg, uint32_t len, uint32_t max_ctrl,
		      uint32_t i, uint8_t *out, uint32_t cap)
{
	uint32_t n = ch39x_mbim_frag_count(msg, len, max_ctrl);
	uint32_t chunk, off, take;

	if (i >= n)
		return 0;
	if (n == 1) {
		if (cap < len)
			return 0;
		memcpy(out, msg, len);
		return len;
	}
	chunk = max_ctrl - CH39X_MBIM_FRAG_HDR_LEN;
	off = CH39X_MBIM_FRAG_HDR_LEN + i * chunk;
	take = len - off < chunk ? len - off : chunk;
	if (cap < CH39X_MBIM_FRAG_HDR_LEN + take)
		return 0;
	memcpy(out, msg, CH39X_MBIM_HDR_LEN);
	ch39x_put_le32(out + 4, CH39X_MBIM_FRAG_HDR_LEN + take);
	ch39x_put_le32(out + 12, n);
	ch39x_put_le32(out + 16, i);
	memcpy(out + CH39X_MBIM_FRAG_HDR_LEN, msg + off, take);
	return CH39X_MBIM_FRAG_HDR_LEN + take;
}

void
ch39x_mbim_reasm_init(struct ch39x_mbim_reasm *r, uint8_t *buf, uint32_t cap)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->cap = cap < CH39X_MBIM_MSG_MAX ? cap : CH39X_MBIM_MSG_MAX;
}

void
ch39x_mbim_reasm_reset(struct ch39x_mbim_reasm *r)
{
	r->active = false;
	r->len = 0;
}

static enum ch39x_mbim_reasm_rc
reasm_bad(struct ch39x_mbim_reasm *r, uint32_t *err, uint32_t code)
{
	ch39x_mbim_reasm_reset(r);
	*err = code;
	return CH39X_MBIM_REASM_BAD;
}

/* The last fragment came: the message, as if it had been sent whole. */
static enum ch39x_mbim_reasm_rc
reasm_done(struct ch39x_mbim_reasm *r, uint32_t *tid)
{
	ch39x_put_le32(r->buf + 4, r->len);
	if (ch39x_mbim_fragmented(r->type)) {
		if (r->total > 1)
			r->stats.fragmented++;
		ch39x_put_le32(r->buf + 12, 1);
		ch39x_put_le32(r->buf + 16, 0);
	}
	r->active = false;
	r->stats.messages++;
	*tid = r->tid;
	return CH39X_MBIM_REASM_DONE;
}

enum ch39x_mbim_reasm_rc
ch39x_mbim_reasm_add(struct ch39x_mbim_reasm *r, const uint8_t *frag,
		     uint32_t len, uint32_t *tid, uint32_t *err)
{
	uint32_t type, total, cur, chunk;

	*tid = len >= CH39X_MBIM_HDR_LEN ? ch39x_get_le32(frag + 8) : 0;
	*err = 0;
	if (len < CH39X_MBIM_HDR_LEN || ch39x_get_le32(frag + 4) != len) {
		r->stats.bad_header++;
		return reasm_bad(r, err, CH39X_MBIM_ERR_LENGTH_MISMATCH);
	}
	type = ch39x_get_le32(frag);
	if (!ch39x_mbim_fragmented(type)) {
		/*
		 * Not part of a fragmented message; a partial one in the
		 * buffer is dropped (a peer does not interleave them).
		 */
		if (len > r->cap) {
			r->stats.too_long++;
			*err = CH39X_MBIM_ERR_MAX_TRANSFER;
			return CH39X_MBIM_REASM_BAD;
		}
		if (r->active) {
			r->stats.abandoned++;
			r->active = false;
		}
		memcpy(r->buf, frag, len);
		r->len = len;
		r->type = type;
		r->tid = *tid;
		return reasm_done(r, tid);
	}
	if (len < CH39X_MBIM_FRAG_HDR_LEN) {
		r->stats.bad_header++;
		return reasm_bad(r, err, CH39X_MBIM_ERR_LENGTH_MISMATCH);
	}
	total = ch39x_get_le32(frag + 12);
	cur = ch39x_get_le32(frag + 16);
	if (total == 0 || cur >= total) {
		r->stats.out_of_seq++;
		return reasm_bad(r, err, CH39X_MBIM_ERR_FRAGMENT_OUT_OF_SEQUENCE);
	}
	r->stats.fragments++;
	if (cur == 0) {
		if (r->active)
			r->stats.abandoned++;
		r->active = false;
		if (len > r->cap) {
			r->stats.too_long++;
			return reasm_bad(r, err, CH39X_MBIM_ERR_MAX_TRANSFER);
		}
		memcpy(r->buf, frag, len);
		r->len = len;
		r->type = type;
		r->tid = *tid;
		r->total = total;
		r->next = 1;
		if (total == 1)
			return reasm_done(r, tid);
		r->active = true;
		return CH39X_MBIM_REASM_MORE;
	}
	if (!r->active || type != r->type || *tid != r->tid ||
	    total != r->total || cur != r->next) {
		r->stats.out_of_seq++;
		return reasm_bad(r, err, CH39X_MBIM_ERR_FRAGMENT_OUT_OF_SEQUENCE);
	}
	chunk = len - CH39X_MBIM_FRAG_HDR_LEN;
	if (chunk > r->cap - r->len) {
		r->stats.too_long++;
		return reasm_bad(r, err, CH39X_MBIM_ERR_MAX_TRANSFER);
	}
	memcpy(r->buf + r->len, frag + CH39X_MBIM_FRAG_HDR_LEN, chunk);
	r->len += chunk;
	r->next++;
	if (r->next == r->total)
		return reasm_done(r, tid);
	return CH39X_MBIM_REASM_MORE;
}

/* ---- UTF-8 and UTF-16LE ---- */

/*
 * One code point of s at *i (advanced past it), or -1 for invalid UTF-8:
 * a stray continuation byte, a truncated sequence, an overlong form, a
 * surrogate or a value past U+10FFFF.
 */
static int32_t
utf8_next(const uint8_t *s, size_t *i)
{
	static const uint32_t min[4] = { 0, 0x80, 0x800, 0x10000 };
	uint32_t cp, n, k;
	uint8_t b = s[(*i)++];

	if (b < 0x80)
		return b;
	if (b >= 0xC2 && b <= 0xDF) {
		n = 1;
		cp = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		n = 2;
		cp = b & 0x0F;
	} else if (b >= 0xF0 && b <= 0xF4) {
		n = 3;
		cp = b & 0x07;
	} else {
		return -1;
	}
	for (k = 0; k < n; k++) {
		b = s[*i];
		if ((b & 0xC0) != 0x80)
			return -1;	/* also stops at the NUL */
		cp = cp << 6 | (b & 0x3F);
		(*i)++;
	}
	if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return -1;
	return (int32_t)cp;
}

int
ch39x_mbim_utf8_to_utf16(const char *s, uint8_t *out, uint32_t cap)
{
	const uint8_t *u = (const uint8_t *)s;
	uint32_t n = 0;
	size_t i = 0;
	int32_t cp;

	while (u[i] != 0) {
		cp = utf8_next(u, &i);
		if (cp < 0)
			return -1;
		if (cp < 0x10000) {
			if (cap - n < 2)
				return -1;
			ch39x_put_le16(out + n, (uint16_t)cp);
			n += 2;
		} else {
			if (cap - n < 4)
				return -1;
			cp -= 0x10000;
			ch39x_put_le16(out + n, (uint16_t)(0xD800 | cp >> 10));
			ch39x_put_le16(out + n + 2,
				       (uint16_t)(0xDC00 | (cp & 0x3FF)));
			n += 4;
		}
		if (n > INT32_MAX - 4)
			return -1;
	}
	return (int)n;
}

/* Append code point cp to out as UTF-8; false when it does not fit. */
static bool
utf8_put(uint32_t cp, char *out, size_t cap, size_t *n)
{
	uint8_t b[4];
	size_t k;

	if (cp < 0x80) {
		b[0] = (uint8_t)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (uint8_t)(0xC0 | cp >> 6);
		b[1] = (uint8_t)(0x80 | (cp & 0x3F));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (uint8_t)(0xE0 | cp >> 12);
		b[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (uint8_t)(0x80 | (cp & 0x3F));
		k = 3;
	} else {
		b[0] = (uint8_t)(0xF0 | cp >> 18);
		b[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (uint8_t)(0x80 | (cp & 0x3F));
		k = 4;
	}
	if (cap - *n <= k)	/* and the NUL */
		return false;
	memcpy(out + *n, b, k);
	*n += k;
	return true;
}

int
ch39x_mbim_rd_string(const uint8_t *info, uint32_t len, uint32_t off,
		     char *out, size_t cap)
{
	uint32_t soff, size, i, u, u2, cp;
	size_t n = 0;

	if (cap == 0)
		return -1;
	out[0] = '\0';
	if (!inside(len, off, 8))
		return -1;
	soff = ch39x_get_le32(info + off);
	size = ch39x_get_le32(info + off + 4);
	if (size == 0)
		return 0;
	if (size % 2 != 0 || !inside(len, soff, size))
		return -1;
	for (i = 0; i < size; i += 2) {
		u = ch39x_get_le16(info + soff + i);
		if (u == 0)
			break;		/* a C string ends there */
		if (u >= 0xDC00 && u <= 0xDFFF)
			goto bad;
		cp = u;
		if (u >= 0xD800 && u <= 0xDBFF) {
			if (i + 2 >= size)
				goto bad;
			u2 = ch39x_get_le16(info + soff + i + 2);
			if (u2 < 0xDC00 || u2 > 0xDFFF)
				goto bad;
			cp = 0x10000 + ((u - 0xD800) << 10) + (u2 - 0xDC00);
			i += 2;
		}
		if (!utf8_put(cp, out, cap, &n))
			goto bad;
	}
	out[n] = '\0';
	return 0;
bad:
	out[0] = '\0';
	return -1;
}

/* ---- Information buffer writer ---- */

void
ch39x_mbim_wr_init(struct ch39x_mbim_wr *w, uint8_t *buf, uint32_t cap,
		   uint32_t fixed)
{
	w->buf = buf;
	w->cap = cap;
	w->fixed = fixed;
	w->len = fixed;
	w->overflow = fixed > cap;
	if (!w->overflow)
		memset(buf, 0, fixed);
}

void
ch39x_mbim_wr_bytes(struct ch39x_mbim_wr *w, uint32_t off, const void *p,
		    uint32_t n)
{
	if (w->overflow || !inside(w->fixed, off, n)) {
		w->overflow = true;
		return;
	}
	memcpy(w->buf + off, p, n);
}

void
ch39x_mbim_wr_u32(struct ch39x_mbim_wr *w, uint32_t off, uint32_t v)
{
	uint8_t b[4];

	ch39x_put_le32(b, v);
	ch39x_mbim_wr_bytes(w, off, b, 4);
}

void
ch39x_mbim_wr_u64(struct ch39x_mbim_wr *w, uint32_t off, uint64_t v)
{
	uint8_t b[8];

	ch39x_put_le32(b, (uint32_t)v);
	ch39x_put_le32(b + 4, (uint32_t)(v >> 32));
	ch39x_mbim_wr_bytes(w, off, b, 8);
}

/* Room for n more data bytes at a 4-byte boundary: their offset or 0. */
static uint32_t
wr_reserve(struct ch39x_mbim_wr *w, uint32_t n)
{
	uint32_t at = (w->len + 3u) & ~3u;

	if (w->overflow || at < w->len || !inside(w->cap, at, n)) {
		w->overflow = true;
		return 0;
	}
	memset(w->buf + w->len, 0, at - w->len);
	w->len = at + n;
	return at;
}

uint32_t
ch39x_mbim_wr_append(struct ch39x_mbim_wr *w, const void *p, uint32_t n)
{
	uint32_t at;

	if (n == 0)
		return 0;
	at = wr_reserve(w, n);
	if (at)
		memcpy(w->buf + at, p, n);
	return at;
}

void
ch39x_mbim_wr_string(struct ch39x_mbim_wr *w, uint32_t off, const char *utf8)
{
	uint32_t at, room;
	int n;

	if (utf8 == NULL || utf8[0] == '\0' || w->overflow) {
		ch39x_mbim_wr_u32(w, off, 0);
		ch39x_mbim_wr_u32(w, off + 4, 0);
		return;
	}
	/* Encode into the free room, then take what it used. */
	at = (w->len + 3u) & ~3u;
	if (at < w->len || at > w->cap) {
		w->overflow = true;
		return;
	}
	room = w->cap - at;
	n = ch39x_mbim_utf8_to_utf16(utf8, w->buf + at, room);
	if (n < 0) {
		w->overflow = true;
		return;
	}
	at = wr_reserve(w, (uint32_t)n);
	ch39x_mbim_wr_u32(w, off, at);
	ch39x_mbim_wr_u32(w, off + 4, (uint32_t)n);
}

uint32_t
ch39x_mbim_wr_end(const struct ch39x_mbim_wr *w)
{
	return w->overflow ? 0 : w->len;
}

/* ---- Basic Connect information buffers ---- */

/* A reader's u32 at off; the caller checked the fixed part's length. */
static uint32_t
u32_at(const uint8_t *info, uint32_t off)
{
	return ch39x_get_le32(info + off);
}

static uint64_t
u64_at(const uint8_t *info, uint32_t off)
{
	return (uint64_t)ch39x_get_le32(info + off) |
		(uint64_t)ch39x_get_le32(info + off + 4) << 32;
}

#define CAPS_FIXED	64

int
ch39x_mbim_caps_parse(const uint8_t *info, uint32_t len,
		      struct ch39x_mbim_caps *c)
{
	memset(c, 0, sizeof(*c));
	if (len < CAPS_FIXED)
		return -1;
	c->device_type = u32_at(info, 0);
	c->cellular_class = u32_at(info, 4);
	c->voice_class = u32_at(info, 8);
	c->sim_class = u32_at(info, 12);
	c->data_class = u32_at(info, 16);
	c->sms_caps = u32_at(info, 20);
	c->ctrl_caps = u32_at(info, 24);
	c->max_sessions = u32_at(info, 28);
	if (ch39x_mbim_rd_string(info, len, 32, c->custom_data_class,
				 sizeof(c->custom_data_class)) ||
	    ch39x_mbim_rd_string(info, len, 40, c->device_id,
				 sizeof(c->device_id)) ||
	    ch39x_mbim_rd_string(info, len, 48, c->firmware,
				 sizeof(c->firmware)) ||
	    ch39x_mbim_rd_string(info, len, 56, c->hardware,
				 sizeof(c->hardware))) {
		memset(c, 0, sizeof(*c));
		return -1;
	}
	return 0;
}

uint32_t
ch39x_mbim_caps_build(uint8_t *buf, uint32_t cap,
		      const struct ch39x_mbim_caps *c)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, CAPS_FIXED);
	ch39x_mbim_wr_u32(&w, 0, c->device_type);
	ch39x_mbim_wr_u32(&w, 4, c->cellular_class);
	ch39x_mbim_wr_u32(&w, 8, c->voice_class);
	ch39x_mbim_wr_u32(&w, 12, c->sim_class);
	ch39x_mbim_wr_u32(&w, 16, c->data_class);
	ch39x_mbim_wr_u32(&w, 20, c->sms_caps);
	ch39x_mbim_wr_u32(&w, 24, c->ctrl_caps);
	ch39x_mbim_wr_u32(&w, 28, c->max_sessions);
	ch39x_mbim_wr_string(&w, 32, c->custom_data_class);
	ch39x_mbim_wr_string(&w, 40, c->device_id);
	ch39x_mbim_wr_string(&w, 48, c->firmware);
	ch39x_mbim_wr_string(&w, 56, c->hardware);
	return ch39x_mbim_wr_end(&w);
}

#define SUBSCRIBER_FIXED 28

int
ch39x_mbim_subscriber_parse(const uint8_t *info, uint32_t len,
			    struct ch39x_mbim_subscriber *s)
{
	char tmp[CH39X_MBIM_STR_SHORT];
	uint32_t i, n;

	memset(s, 0, sizeof(*s));
	if (len < SUBSCRIBER_FIXED)
		return -1;
	s->ready_state = u32_at(info, 0);
	s->ready_info = u32_at(info, 20);
	n = u32_at(info, 24);
	if (!inside(len, SUBSCRIBER_FIXED, 8ull * n))
		goto bad;
	if (ch39x_mbim_rd_string(info, len, 4, s->subscriber_id,
				 sizeof(s->subscriber_id)) ||
	    ch39x_mbim_rd_string(info, len, 12, s->sim_iccid,
				 sizeof(s->sim_iccid)))
		goto bad;
	for (i = 0; i < n; i++) {
		if (ch39x_mbim_rd_string(info, len, SUBSCRIBER_FIXED + 8 * i,
					 i ? tmp : s->number,
					 i ? sizeof(tmp) : sizeof(s->number)))
			goto bad;
	}
	s->n_numbers = n;
	return 0;
bad:
	memset(s, 0, sizeof(*s));
	return -1;
}

uint32_t
ch39x_mbim_subscriber_build(uint8_t *buf, uint32_t cap,
			    const struct ch39x_mbim_subscriber *s)
{
	uint32_t n = s->number[0] != '\0' ? 1 : 0;
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, SUBSCRIBER_FIXED + 8 * n);
	ch39x_mbim_wr_u32(&w, 0, s->ready_state);
	ch39x_mbim_wr_string(&w, 4, s->subscriber_id);
	ch39x_mbim_wr_string(&w, 12, s->sim_iccid);
	ch39x_mbim_wr_u32(&w, 20, s->ready_info);
	ch39x_mbim_wr_u32(&w, 24, n);
	if (n)
		ch39x_mbim_wr_string(&w, SUBSCRIBER_FIXED, s->number);
	return ch39x_mbim_wr_end(&w);
}

int
ch39x_mbim_radio_parse(const uint8_t *info, uint32_t len,
		       struct ch39x_mbim_radio *r)
{
	memset(r, 0, sizeof(*r));
	if (len < 8)
		return -1;
	r->hw = u32_at(info, 0);
	r->sw = u32_at(info, 4);
	return 0;
}

uint32_t
ch39x_mbim_radio_build(uint8_t *buf, uint32_t cap,
		       const struct ch39x_mbim_radio *r)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, 8);
	ch39x_mbim_wr_u32(&w, 0, r->hw);
	ch39x_mbim_wr_u32(&w, 4, r->sw);
	return ch39x_mbim_wr_end(&w);
}

#define REGISTER_FIXED	48

int
ch39x_mbim_register_parse(const uint8_t *info, uint32_t len,
			  struct ch39x_mbim_register *r)
{
	memset(r, 0, sizeof(*r));
	if (len < REGISTER_FIXED)
		return -1;
	r->nw_error = u32_at(info, 0);
	r->state = u32_at(info, 4);
	r->mode = u32_at(info, 8);
	r->available_data_classes = u32_at(info, 12);
	r->cellular_class = u32_at(info, 16);
	r->flags = u32_at(info, 44);
	if (ch39x_mbim_rd_string(info, len, 20, r->provider_id,
				 sizeof(r->provider_id)) ||
	    ch39x_mbim_rd_string(info, len, 28, r->provider_name,
				 sizeof(r->provider_name)) ||
	    ch39x_mbim_rd_string(info, len, 36, r->roaming_text,
				 sizeof(r->roaming_text))) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	return 0;
}

uint32_t
ch39x_mbim_register_build(uint8_t *buf, uint32_t cap,
			  const struct ch39x_mbim_register *r)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, REGISTER_FIXED);
	ch39x_mbim_wr_u32(&w, 0, r->nw_error);
	ch39x_mbim_wr_u32(&w, 4, r->state);
	ch39x_mbim_wr_u32(&w, 8, r->mode);
	ch39x_mbim_wr_u32(&w, 12, r->available_data_classes);
	ch39x_mbim_wr_u32(&w, 16, r->cellular_class);
	ch39x_mbim_wr_string(&w, 20, r->provider_id);
	ch39x_mbim_wr_string(&w, 28, r->provider_name);
	ch39x_mbim_wr_string(&w, 36, r->roaming_text);
	ch39x_mbim_wr_u32(&w, 44, r->flags);
	return ch39x_mbim_wr_end(&w);
}

int
ch39x_mbim_register_set_parse(const uint8_t *info, uint32_t len,
			      struct ch39x_mbim_register_set *r)
{
	memset(r, 0, sizeof(*r));
	if (len < 16)
		return -1;
	r->action = u32_at(info, 8);
	r->data_class = u32_at(info, 12);
	if (ch39x_mbim_rd_string(info, len, 0, r->provider_id,
				 sizeof(r->provider_id))) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	return 0;
}

uint32_t
ch39x_mbim_register_set_build(uint8_t *buf, uint32_t cap,
			      const struct ch39x_mbim_register_set *r)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, 16);
	ch39x_mbim_wr_string(&w, 0, r->provider_id);
	ch39x_mbim_wr_u32(&w, 8, r->action);
	ch39x_mbim_wr_u32(&w, 12, r->data_class);
	return ch39x_mbim_wr_end(&w);
}

#define PACKET_FIXED	28

int
ch39x_mbim_packet_parse(const uint8_t *info, uint32_t len,
			struct ch39x_mbim_packet *p)
{
	memset(p, 0, sizeof(*p));
	if (len < PACKET_FIXED)
		return -1;
	p->nw_error = u32_at(info, 0);
	p->state = u32_at(info, 4);
	p->data_class = u32_at(info, 8);
	p->up_bps = u64_at(info, 12);
	p->down_bps = u64_at(info, 20);
	return 0;
}

uint32_t
ch39x_mbim_packet_build(uint8_t *buf, uint32_t cap,
			const struct ch39x_mbim_packet *p)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, PACKET_FIXED);
	ch39x_mbim_wr_u32(&w, 0, p->nw_error);
	ch39x_mbim_wr_u32(&w, 4, p->state);
	ch39x_mbim_wr_u32(&w, 8, p->data_class);
	ch39x_mbim_wr_u64(&w, 12, p->up_bps);
	ch39x_mbim_wr_u64(&w, 20, p->down_bps);
	return ch39x_mbim_wr_end(&w);
}

int
ch39x_mbim_signal_parse(const uint8_t *info, uint32_t len,
			struct ch39x_mbim_signal *s)
{
	memset(s, 0, sizeof(*s));
	if (len < 20)
		return -1;
	s->rssi = u32_at(info, 0);
	s->error_rate = u32_at(info, 4);
	s->interval = u32_at(info, 8);
	s->rssi_threshold = u32_at(info, 12);
	s->error_rate_threshold = u32_at(info, 16);
	return 0;
}

uint32_t
ch39x_mbim_signal_build(uint8_t *buf, uint32_t cap,
			const struct ch39x_mbim_signal *s)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, 20);
	ch39x_mbim_wr_u32(&w, 0, s->rssi);
	ch39x_mbim_wr_u32(&w, 4, s->error_rate);
	ch39x_mbim_wr_u32(&w, 8, s->interval);
	ch39x_mbim_wr_u32(&w, 12, s->rssi_threshold);
	ch39x_mbim_wr_u32(&w, 16, s->error_rate_threshold);
	return ch39x_mbim_wr_end(&w);
}

#define CONNECT_SET_FIXED 60

int
ch39x_mbim_connect_set_parse(const uint8_t *info, uint32_t len,
			     struct ch39x_mbim_connect_set *c)
{
	memset(c, 0, sizeof(*c));
	if (len < CONNECT_SET_FIXED)
		return -1;
	c->session_id = u32_at(info, 0);
	c->command = u32_at(info, 4);
	c->compression = u32_at(info, 32);
	c->auth = u32_at(info, 36);
	c->ip_type = u32_at(info, 40);
	memcpy(c->context_type, info + 44, CH39X_MBIM_UUID_LEN);
	if (ch39x_mbim_rd_string(info, len, 8, c->apn, sizeof(c->apn)) ||
	    ch39x_mbim_rd_string(info, len, 16, c->user, sizeof(c->user)) ||
	    ch39x_mbim_rd_string(info, len, 24, c->password,
				 sizeof(c->password))) {
		memset(c, 0, sizeof(*c));
		return -1;
	}
	return 0;
}

uint32_t
ch39x_mbim_connect_set_build(uint8_t *buf, uint32_t cap,
			     const struct ch39x_mbim_connect_set *c)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, CONNECT_SET_FIXED);
	ch39x_mbim_wr_u32(&w, 0, c->session_id);
	ch39x_mbim_wr_u32(&w, 4, c->command);
	ch39x_mbim_wr_string(&w, 8, c->apn);
	ch39x_mbim_wr_string(&w, 16, c->user);
	ch39x_mbim_wr_string(&w, 24, c->password);
	ch39x_mbim_wr_u32(&w, 32, c->compression);
	ch39x_mbim_wr_u32(&w, 36, c->auth);
	ch39x_mbim_wr_u32(&w, 40, c->ip_type);
	ch39x_mbim_wr_bytes(&w, 44, c->context_type, CH39X_MBIM_UUID_LEN);
	return ch39x_mbim_wr_end(&w);
}

int
ch39x_mbim_connect_parse(const uint8_t *info, uint32_t len,
			 struct ch39x_mbim_connect *c)
{
	memset(c, 0, sizeof(*c));
	if (len < CH39X_MBIM_CONNECT_INFO_LEN)
		return -1;
	c->session_id = u32_at(info, 0);
	c->state = u32_at(info, 4);
	c->voice_call_state = u32_at(info, 8);
	c->ip_type = u32_at(info, 12);
	memcpy(c->context_type, info + 16, CH39X_MBIM_UUID_LEN);
	c->nw_error = u32_at(info, 32);
	return 0;
}

uint32_t
ch39x_mbim_connect_build(uint8_t *buf, uint32_t cap,
			 const struct ch39x_mbim_connect *c)
{
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, CH39X_MBIM_CONNECT_INFO_LEN);
	ch39x_mbim_wr_u32(&w, 0, c->session_id);
	ch39x_mbim_wr_u32(&w, 4, c->state);
	ch39x_mbim_wr_u32(&w, 8, c->voice_call_state);
	ch39x_mbim_wr_u32(&w, 12, c->ip_type);
	ch39x_mbim_wr_bytes(&w, 16, c->context_type, CH39X_MBIM_UUID_LEN);
	ch39x_mbim_wr_u32(&w, 32, c->nw_error);
	return ch39x_mbim_wr_end(&w);
}

/*
 * An array of n elements of size bytes at the offset the field at
 * off_field holds: its offset, or -1 when outside the buffer. No offset
 * is looked at for an empty array.
 */
static int64_t
ipcfg_array(const uint8_t *info, uint32_t len, uint32_t off_field,
	    uint32_t n, uint32_t size)
{
	uint32_t at;

	if (n == 0)
		return 0;
	at = u32_at(info, off_field);
	if (!inside(len, at, (uint64_t)n * size))
		return -1;
	return at;
}

/* Keep at most max of n elements (the rest were checked, not kept). */
static uint32_t
kept(uint32_t n, uint32_t max)
{
	return n < max ? n : max;
}

int
ch39x_mbim_ipcfg_parse(const uint8_t *info, uint32_t len,
		       struct ch39x_mbim_ipcfg *c)
{
	int64_t a4, a6, d4, d6;
	uint32_t i, n4, n6, nd4, nd6, gw;

	memset(c, 0, sizeof(*c));
	if (len < CH39X_MBIM_IPCFG_FIXED_LEN)
		return -1;
	c->session_id = u32_at(info, 0);
	c->v4_avail = u32_at(info, 4);
	c->v6_avail = u32_at(info, 8);
	n4 = u32_at(info, 12);
	n6 = u32_at(info, 20);
	nd4 = u32_at(info, 36);
	nd6 = u32_at(info, 44);
	c->v4_mtu = u32_at(info, 52);
	c->v6_mtu = u32_at(info, 56);
	a4 = ipcfg_array(info, len, 16, n4, 8);
	a6 = ipcfg_array(info, len, 24, n6, 20);
	d4 = ipcfg_array(info, len, 40, nd4, 4);
	d6 = ipcfg_array(info, len, 48, nd6, 16);
	if (a4 < 0 || a6 < 0 || d4 < 0 || d6 < 0)
		goto bad;
	gw = u32_at(info, 28);
	if (gw != 0) {
		if (!inside(len, gw, 4))
			goto bad;
		c->have_v4_gw = true;
		memcpy(c->v4_gw, info + gw, 4);
	}
	gw = u32_at(info, 32);
	if (gw != 0) {
		if (!inside(len, gw, 16))
			goto bad;
		c->have_v6_gw = true;
		memcpy(c->v6_gw, info + gw, 16);
	}
	c->n_v4 = kept(n4, CH39X_MBIM_IPCFG_MAX_ADDR);
	for (i = 0; i < c->n_v4; i++) {
		c->v4[i].prefix_len = u32_at(info, (uint32_t)a4 + 8 * i);
		memcpy(c->v4[i].addr, info + a4 + 8 * i + 4, 4);
	}
	c->n_v6 = kept(n6, CH39X_MBIM_IPCFG_MAX_ADDR);
	for (i = 0; i < c->n_v6; i++) {
		c->v6[i].prefix_len = u32_at(info, (uint32_t)a6 + 20 * i);
		memcpy(c->v6[i].addr, info + a6 + 20 * i + 4, 16);
	}
	c->n_v4_dns = kept(nd4, CH39X_MBIM_IPCFG_MAX_DNS);
	for (i = 0; i < c->n_v4_dns; i++)
		memcpy(c->v4_dns[i], info + d4 + 4 * i, 4);
	c->n_v6_dns = kept(nd6, CH39X_MBIM_IPCFG_MAX_DNS);
	for (i = 0; i < c->n_v6_dns; i++)
		memcpy(c->v6_dns[i], info + d6 + 16 * i, 16);
	return 0;
bad:
	memset(c, 0, sizeof(*c));
	return -1;
}

uint32_t
ch39x_mbim_ipcfg_build(uint8_t *buf, uint32_t cap,
		       const struct ch39x_mbim_ipcfg *c)
{
	uint8_t e[20];
	uint32_t i, at, n;
	struct ch39x_mbim_wr w;

	ch39x_mbim_wr_init(&w, buf, cap, CH39X_MBIM_IPCFG_FIXED_LEN);
	ch39x_mbim_wr_u32(&w, 0, c->session_id);
	ch39x_mbim_wr_u32(&w, 4, c->v4_avail);
	ch39x_mbim_wr_u32(&w, 8, c->v6_avail);
	n = kept(c->n_v4, CH39X_MBIM_IPCFG_MAX_ADDR);
	ch39x_mbim_wr_u32(&w, 12, n);
	for (i = 0, at = 0; i < n; i++) {
		ch39x_put_le32(e, c->v4[i].prefix_len);
		memcpy(e + 4, c->v4[i].addr, 4);
		if (i == 0)
			at = ch39x_mbim_wr_append(&w, e, 8);
		else
			ch39x_mbim_wr_append(&w, e, 8);
	}
	ch39x_mbim_wr_u32(&w, 16, at);
	n = kept(c->n_v6, CH39X_MBIM_IPCFG_MAX_ADDR);
	ch39x_mbim_wr_u32(&w, 20, n);
	for (i = 0, at = 0; i < n; i++) {
		ch39x_put_le32(e, c->v6[i].prefix_len);
		memcpy(e + 4, c->v6[i].addr, 16);
		if (i == 0)
			at = ch39x_mbim_wr_append(&w, e, 20);
		else
			ch39x_mbim_wr_append(&w, e, 20);
	}
	ch39x_mbim_wr_u32(&w, 24, at);
	ch39x_mbim_wr_u32(&w, 28, c->have_v4_gw ?
			  ch39x_mbim_wr_append(&w, c->v4_gw, 4) : 0);
	ch39x_mbim_wr_u32(&w, 32, c->have_v6_gw ?
			  ch39x_mbim_wr_append(&w, c->v6_gw, 16) : 0);
	n = kept(c->n_v4_dns, CH39X_MBIM_IPCFG_MAX_DNS);
	ch39x_mbim_wr_u32(&w, 36, n);
	ch39x_mbim_wr_u32(&w, 40, ch39x_mbim_wr_append(&w, c->v4_dns, 4 * n));
	n = kept(c->n_v6_dns, CH39X_MBIM_IPCFG_MAX_DNS);
	ch39x_mbim_wr_u32(&w, 44, n);
	ch39x_mbim_wr_u32(&w, 48, ch39x_mbim_wr_append(&w, c->v6_dns, 16 * n));
	ch39x_mbim_wr_u32(&w, 52, c->v4_mtu);
	ch39x_mbim_wr_u32(&w, 56, c->v6_mtu);
	return ch39x_mbim_wr_end(&w);
}

uint32_t
ch39x_mbim_services_build(uint8_t *buf, uint32_t cap,
			  const struct ch39x_mbim_service *s, uint32_t n,
			  uint32_t max_dss_sessions)
{
	struct ch39x_mbim_wr w;
	uint8_t e[28];
	uint32_t i, k, at, size;

	ch39x_mbim_wr_init(&w, buf, cap, 8 + 8 * n);
	ch39x_mbim_wr_u32(&w, 0, n);
	ch39x_mbim_wr_u32(&w, 4, max_dss_sessions);
	for (i = 0; i < n && !w.overflow; i++) {
		memcpy(e, s[i].uuid, CH39X_MBIM_UUID_LEN);
		ch39x_put_le32(e + 16, s[i].dss_payload);
		ch39x_put_le32(e + 20, s[i].max_dss_instances);
		ch39x_put_le32(e + 24, s[i].n_cids);
		at = ch39x_mbim_wr_append(&w, e, sizeof(e));
		for (k = 0; k < s[i].n_cids; k++) {
			ch39x_put_le32(e, s[i].cids[k]);
			ch39x_mbim_wr_append(&w, e, 4);
		}
		size = sizeof(e) + 4 * s[i].n_cids;
		ch39x_mbim_wr_u32(&w, 8 + 8 * i, at);
		ch39x_mbim_wr_u32(&w, 12 + 8 * i, size);
	}
	return ch39x_mbim_wr_end(&w);
}

uint32_t
ch39x_mbim_u32_build(uint8_t *buf, uint32_t cap, uint32_t v)
{
	if (cap < 4)
		return 0;
	ch39x_put_le32(buf, v);
	return 4;
}

int
ch39x_mbim_u32_parse(const uint8_t *info, uint32_t len, uint32_t *v)
{
	*v = 0;
	if (len < 4)
		return -1;
	*v = u32_at(info, 0);
	return 0;
}

/* ---- Names ---- */

static const char *
name_of(const char *const *names, uint32_t n, uint32_t v)
{
	return v < n && names[v] ? names[v] : "unknown";
}

const char *
ch39x_mbim_status_name(uint32_t status)
{
	static const char *const names[] = {
		"Success", "Busy", "Failure", "SimNotInserted", "BadSim",
		"PinRequired", "PinDisabled", "NotRegistered",
		"ProvidersNotFound", "NoDeviceSupport", "ProviderNotVisible",
		"DataClassNotAvailable", "PacketServiceDetached",
		"MaxActivatedContexts", "NotInitialized",
		"VoiceCallInProgress", "ContextNotActivated",
		"ServiceNotActivated", "InvalidAccessString",
		"InvalidUserNamePwd", "RadioPowerOff", "InvalidParameters",
		"ReadFailure", "WriteFailure",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), status);
}

const char *
ch39x_mbim_register_name(uint32_t state)
{
	static const char *const names[] = {
		"unknown", "deregistered", "searching", "home", "roaming",
		"partner", "denied",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), state);
}

const char *
ch39x_mbim_packet_name(uint32_t state)
{
	static const char *const names[] = {
		"unknown", "attaching", "attached", "detaching", "detached",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), state);
}

const char *
ch39x_mbim_activation_name(uint32_t state)
{
	static const char *const names[] = {
		"unknown", "activated", "activating", "deactivated",
		"deactivating",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), state);
}

const char *
ch39x_mbim_ready_name(uint32_t state)
{
	static const char *const names[] = {
		"not-initialized", "initialized", "sim-not-inserted",
		"bad-sim", "failure", "not-activated", "device-locked",
	};

	return name_of(names, sizeof(names) / sizeof(names[0]), state);
}
