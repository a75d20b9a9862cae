/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#include <stddef.h>
#include <string.h>

#include "ch39x_rndis.h"
#include "ch39x_vendor.h"	/* ch39x_get_le32() and friends, inline only */

#define ETH_HLEN	14
/* MaxTransferSize of a device that says 0: f_rndis's at MTU 1500 (§19). */
#define DEF_XFER	1580u

bool
ch39x_rndis_is_control(uint8_t cls, uint8_t subclass, uint8_t proto)
{
	return (cls == CH39X_RNDIS_CLASS_COMM &&
		subclass == CH39X_RNDIS_SUBCLASS_ACM &&
		proto == CH39X_RNDIS_PROTO_VENDOR) ||
	       (cls == CH39X_RNDIS_CLASS_WIRELESS &&
		subclass == CH39X_RNDIS_SUBCLASS_RF &&
		proto == CH39X_RNDIS_PROTO_RNDIS);
}

/* ---- Building control messages ---- */

/* Type and MessageLength, and the message zeroed; 0 when cap is short. */
static uint32_t
msg_start(uint8_t *buf, uint32_t cap, uint32_t type, uint64_t len)
{
	if (len > cap || len > UINT32_MAX)
		return 0;
	memset(buf, 0, (size_t)len);
	ch39x_put_le32(buf, type);
	ch39x_put_le32(buf + 4, (uint32_t)len);
	return (uint32_t)len;
}

uint32_t
ch39x_rndis_build_init(uint8_t *buf, uint32_t cap, uint32_t req_id,
		       uint32_t max_xfer)
{
	if (!msg_start(buf, cap, CH39X_RNDIS_MSG_INIT, CH39X_RNDIS_INIT_LEN))
		return 0;
	ch39x_put_le32(buf + 8, req_id);
	ch39x_put_le32(buf + 12, CH39X_RNDIS_MAJOR);
	ch39x_put_le32(buf + 16, CH39X_RNDIS_MINOR);
	ch39x_put_le32(buf + 20, max_xfer);
	return CH39X_RNDIS_INIT_LEN;
}

/* QUERY and SET share a layout: OID, buffer length and offset, VC 0. */
static uint32_t
build_oid_msg(uint8_t *buf, uint32_t cap, uint32_t type, uint32_t req_id,
	      uint32_t oid, const void *data, uint32_t len)
{
	uint32_t n = msg_start(buf, cap, type,
			       (uint64_t)CH39X_RNDIS_QUERY_LEN + len);

	if (n == 0)
		return 0;
	ch39x_put_le32(buf + 8, req_id);
	ch39x_put_le32(buf + 12, oid);
	ch39x_put_le32(buf + 16, len);
	/* The buffer right after the header; 0 when there is none. */
	ch39x_put_le32(buf + 20, len ? CH39X_RNDIS_QUERY_LEN -
		       CH39X_RNDIS_OFF_BASE : 0);
	if (data != NULL && len != 0)
		memcpy(buf + CH39X_RNDIS_QUERY_LEN, data, len);
	return n;
}

uint32_t
ch39x_rndis_build_query(uint8_t *buf, uint32_t cap, uint32_t req_id,
			uint32_t oid, uint32_t in_len)
{
	return build_oid_msg(buf, cap, CH39X_RNDIS_MSG_QUERY, req_id, oid,
			     NULL, in_len);
}

uint32_t
ch39x_rndis_build_set(uint8_t *buf, uint32_t cap, uint32_t req_id,
		      uint32_t oid, const void *data, uint32_t len)
{
	return build_oid_msg(buf, cap, CH39X_RNDIS_MSG_SET, req_id, oid, data,
			     len);
}

static uint32_t
build_id_msg(uint8_t *buf, uint32_t cap, uint32_t type, uint32_t req_id)
{
	if (!msg_start(buf, cap, type, 12))
		return 0;
	ch39x_put_le32(buf + 8, req_id);
	return 12;
}

uint32_t
ch39x_rndis_build_keepalive(uint8_t *buf, uint32_t cap, uint32_t req_id)
{
	return build_id_msg(buf, cap, CH39X_RNDIS_MSG_KEEPALIVE, req_id);
}

uint32_t
ch39x_rndis_build_halt(uint8_t *buf, uint32_t cap, uint32_t req_id)
{
	return build_id_msg(buf, cap, CH39X_RNDIS_MSG_HALT, req_id);
}

uint32_t
ch39x_rndis_build_reset(uint8_t *buf, uint32_t cap)
{
	return build_id_msg(buf, cap, CH39X_RNDIS_MSG_RESET, 0);
}

uint32_t
ch39x_rndis_build_init_c(uint8_t *buf, uint32_t cap, uint32_t req_id,
			 const struct ch39x_rndis_init_c *c)
{
	if (!msg_start(buf, cap, CH39X_RNDIS_MSG_INIT_C,
		       CH39X_RNDIS_INIT_C_LEN))
		return 0;
	ch39x_put_le32(buf + 8, req_id);
	ch39x_put_le32(buf + 12, c->status);
	ch39x_put_le32(buf + 16, c->major);
	ch39x_put_le32(buf + 20, c->minor);
	ch39x_put_le32(buf + 24, c->device_flags);
	ch39x_put_le32(buf + 28, c->medium);
	ch39x_put_le32(buf + 32, c->max_pkts);
	ch39x_put_le32(buf + 36, c->max_xfer);
	ch39x_put_le32(buf + 40, c->align_factor);
	/* AFListOffset, AFListSize: 0. */
	return CH39X_RNDIS_INIT_C_LEN;
}

uint32_t
ch39x_rndis_build_query_c(uint8_t *buf, uint32_t cap, uint32_t req_id,
			  uint32_t status, const void *info, uint32_t len)
{
	uint32_t n;

	if (status != CH39X_RNDIS_STATUS_SUCCESS)
		len = 0;
	n = msg_start(buf, cap, CH39X_RNDIS_MSG_QUERY_C,
		      (uint64_t)CH39X_RNDIS_QUERY_C_LEN + len);
	if (n == 0)
		return 0;
	ch39x_put_le32(buf + 8, req_id);
	ch39x_put_le32(buf + 12, status);
	ch39x_put_le32(buf + 16, len);
	ch39x_put_le32(buf + 20, len ? CH39X_RNDIS_QUERY_C_LEN -
		       CH39X_RNDIS_OFF_BASE : 0);
	if (len)
		memcpy(buf + CH39X_RNDIS_QUERY_C_LEN, info, len);
	return n;
}

uint32_t
ch39x_rndis_build_status_c(uint8_t *buf, uint32_t cap, uint32_t type,
			   uint32_t req_id, uint32_t status)
{
	if (type != CH39X_RNDIS_MSG_SET_C && type != CH39X_RNDIS_MSG_KEEPALIVE_C)
		return 0;
	if (!msg_start(buf, cap, type, 16))
		return 0;
	ch39x_put_le32(buf + 8, req_id);
	ch39x_put_le32(buf + 12, status);
	return 16;
}

uint32_t
ch39x_rndis_build_reset_c(uint8_t *buf, uint32_t cap, uint32_t status,
			  bool addressing_reset)
{
	if (!msg_start(buf, cap, CH39X_RNDIS_MSG_RESET_C,
		       CH39X_RNDIS_RESET_C_LEN))
		return 0;
	ch39x_put_le32(buf + 8, status);
	ch39x_put_le32(buf + 12, addressing_reset ? 1 : 0);
	return CH39X_RNDIS_RESET_C_LEN;
}

uint32_t
ch39x_rndis_build_indicate(uint8_t *buf, uint32_t cap, uint32_t status,
			   const void *sbuf, uint32_t len)
{
	uint32_t n = msg_start(buf, cap, CH39X_RNDIS_MSG_INDICATE,
			       (uint64_t)CH39X_RNDIS_INDICATE_LEN + len);

	if (n == 0)
		return 0;
	ch39x_put_le32(buf + 8, status);
	ch39x_put_le32(buf + 12, len);
	ch39x_put_le32(buf + 16, len ? CH39X_RNDIS_INDICATE_LEN -
		       CH39X_RNDIS_OFF_BASE : 0);
	if (len)
		memcpy(buf + CH39X_RNDIS_INDICATE_LEN, sbuf, len);
	return n;
}

uint32_t
ch39x_rndis_build_notify(uint8_t *buf, uint32_t cap)
{
	if (cap < CH39X_RNDIS_NOTIFY_LEN)
		return 0;
	ch39x_put_le32(buf, CH39X_RNDIS_NOTIFY_RESPONSE);
	ch39x_put_le32(buf + 4, 0);
	return CH39X_RNDIS_NOTIFY_LEN;
}

/* ---- Parsing control messages ---- */

/* The fixed part of each control message; 0 for a type that is not one. */
static uint32_t
ctrl_fixed_len(uint32_t type)
{
	switch (type) {
	case CH39X_RNDIS_MSG_INIT: return CH39X_RNDIS_INIT_LEN;
	case CH39X_RNDIS_MSG_INIT_C: return CH39X_RNDIS_INIT_C_LEN;
	case CH39X_RNDIS_MSG_QUERY: return CH39X_RNDIS_QUERY_LEN;
	case CH39X_RNDIS_MSG_QUERY_C: return CH39X_RNDIS_QUERY_C_LEN;
	case CH39X_RNDIS_MSG_SET: return CH39X_RNDIS_SET_LEN;
	case CH39X_RNDIS_MSG_SET_C: return CH39X_RNDIS_SET_C_LEN;
	case CH39X_RNDIS_MSG_RESET: return CH39X_RNDIS_RESET_LEN;
	case CH39X_RNDIS_MSG_RESET_C: return CH39X_RNDIS_RESET_C_LEN;
	case CH39X_RNDIS_MSG_HALT: return CH39X_RNDIS_HALT_LEN;
	case CH39X_RNDIS_MSG_KEEPALIVE: return CH39X_RNDIS_KEEPALIVE_LEN;
	case CH39X_RNDIS_MSG_KEEPALIVE_C: return CH39X_RNDIS_KEEPALIVE_C_LEN;
	case CH39X_RNDIS_MSG_INDICATE: return CH39X_RNDIS_INDICATE_LEN;
	default: return 0;
	}
}

/*
 * The buffer of len bytes at 8 + off: inside the message (mlen bytes), as
 * Linux rndis_query checks it against its buffer. An empty one has no
 * place to check.
 */
static bool
ctrl_buffer(const uint8_t *p, uint32_t mlen, uint32_t off, uint32_t len,
	    struct ch39x_rndis_msg *m)
{
	if (len == 0) {
		m->buf = NULL;
		m->buf_len = 0;
		return true;
	}
	if ((uint64_t)CH39X_RNDIS_OFF_BASE + off + len > mlen)
		return false;
	m->buf = p + CH39X_RNDIS_OFF_BASE + off;
	m->buf_len = len;
	return true;
}

static void
parse_init_c(const uint8_t *p, struct ch39x_rndis_msg *m)
{
	struct ch39x_rndis_init_c *c = &m->init;

	m->req_id = ch39x_get_le32(p + 8);
	m->status = c->status = ch39x_get_le32(p + 12);
	c->major = ch39x_get_le32(p + 16);
	c->minor = ch39x_get_le32(p + 20);
	c->device_flags = ch39x_get_le32(p + 24);
	c->medium = ch39x_get_le32(p + 28);
	c->max_pkts = ch39x_get_le32(p + 32);
	c->max_xfer = ch39x_get_le32(p + 36);
	c->align_factor = ch39x_get_le32(p + 40);
}

enum ch39x_rndis_bad
ch39x_rndis_parse_ctrl(const uint8_t *p, uint32_t len,
		       struct ch39x_rndis_msg *m)
{
	uint32_t fixed, mlen;
	bool ok = true;

	memset(m, 0, sizeof(*m));
	if (len < 8)
		return CH39X_RNDIS_BAD_SHORT;
	m->type = ch39x_get_le32(p);
	m->length = mlen = ch39x_get_le32(p + 4);
	fixed = ctrl_fixed_len(m->type);
	if (fixed == 0)
		return CH39X_RNDIS_BAD_TYPE;
	if (mlen > len || mlen < fixed)
		return CH39X_RNDIS_BAD_LENGTH;
	switch (m->type) {
	case CH39X_RNDIS_MSG_INIT:
		m->req_id = ch39x_get_le32(p + 8);
		m->init.major = ch39x_get_le32(p + 12);
		m->init.minor = ch39x_get_le32(p + 16);
		m->init.max_xfer = ch39x_get_le32(p + 20);
		break;
	case CH39X_RNDIS_MSG_INIT_C:
		parse_init_c(p, m);
		break;
	case CH39X_RNDIS_MSG_QUERY:
	case CH39X_RNDIS_MSG_SET:
		m->req_id = ch39x_get_le32(p + 8);
		m->oid = ch39x_get_le32(p + 12);
		ok = ctrl_buffer(p, mlen, ch39x_get_le32(p + 20),
				 ch39x_get_le32(p + 16), m);
		break;
	case CH39X_RNDIS_MSG_QUERY_C:
		m->req_id = ch39x_get_le32(p + 8);
		m->status = ch39x_get_le32(p + 12);
		ok = ctrl_buffer(p, mlen, ch39x_get_le32(p + 20),
				 ch39x_get_le32(p + 16), m);
		break;
	case CH39X_RNDIS_MSG_SET_C:
	case CH39X_RNDIS_MSG_KEEPALIVE_C:
		m->req_id = ch39x_get_le32(p + 8);
		m->status = ch39x_get_le32(p + 12);
		break;
	case CH39X_RNDIS_MSG_RESET_C:
		m->status = ch39x_get_le32(p + 8);
		m->addressing_reset = ch39x_get_le32(p + 12) != 0;
		break;
	case CH39X_RNDIS_MSG_HALT:
	case CH39X_RNDIS_MSG_KEEPALIVE:
		m->req_id = ch39x_get_le32(p + 8);
		break;
	case CH39X_RNDIS_MSG_INDICATE:
		m->status = ch39x_get_le32(p + 8);
		ok = ctrl_buffer(p, mlen, ch39x_get_le32(p + 16),
				 ch39x_get_le32(p + 12), m);
		break;
	default:	/* RESET: a reserved word only */
		break;
	}
	return ok ? CH39X_RNDIS_OK : CH39X_RNDIS_BAD_BUFFER;
}

uint32_t
ch39x_rndis_request_of(uint32_t type)
{
	switch (type) {
	case CH39X_RNDIS_MSG_INIT_C:
	case CH39X_RNDIS_MSG_QUERY_C:
	case CH39X_RNDIS_MSG_SET_C:
	case CH39X_RNDIS_MSG_RESET_C:
	case CH39X_RNDIS_MSG_KEEPALIVE_C:
		return type & ~CH39X_RNDIS_MSG_CMPLT;
	default:
		return 0;
	}
}

enum ch39x_rndis_match
ch39x_rndis_match(const struct ch39x_rndis_msg *m, uint32_t req_type,
		  uint32_t req_id)
{
	uint32_t req = ch39x_rndis_request_of(m->type);

	if (m->type == CH39X_RNDIS_MSG_INDICATE)
		return CH39X_RNDIS_INDICATION;
	if (m->type == CH39X_RNDIS_MSG_KEEPALIVE)
		return CH39X_RNDIS_DEV_KEEPALIVE;
	if (req == 0)
		return CH39X_RNDIS_UNEXPECTED;
	if (req != req_type)
		return CH39X_RNDIS_STALE;
	if (req == CH39X_RNDIS_MSG_RESET || m->req_id == req_id)
		return CH39X_RNDIS_MATCH;
	return CH39X_RNDIS_STALE;
}

int
ch39x_rndis_info_u32(const struct ch39x_rndis_msg *m, uint32_t *v)
{
	if (m->buf == NULL || m->buf_len < 4)
		return -1;
	*v = ch39x_get_le32(m->buf);
	return 0;
}

/* ---- Link ---- */

enum ch39x_rndis_link_ev
ch39x_rndis_indicate_link(const struct ch39x_rndis_msg *m)
{
	if (m->type != CH39X_RNDIS_MSG_INDICATE)
		return CH39X_RNDIS_LINK_NONE;
	switch (m->status) {
	case CH39X_RNDIS_STATUS_MEDIA_CONNECT:
		return CH39X_RNDIS_LINK_UP;
	case CH39X_RNDIS_STATUS_MEDIA_DISCONNECT:
		return CH39X_RNDIS_LINK_DOWN;
	case CH39X_RNDIS_STATUS_LINK_SPEED_CHANGE:
		return CH39X_RNDIS_LINK_SPEED;
	default:
		return CH39X_RNDIS_LINK_NONE;
	}
}

uint32_t
ch39x_rndis_speed_mbps(uint32_t speed_100bps)
{
	return (uint32_t)(((uint64_t)speed_100bps + 5000u) / 10000u);
}

/* ---- Receive filter ---- */

uint32_t
ch39x_rndis_packet_filter(bool promisc, bool allmulti, unsigned int n_mc,
			  uint32_t max_list)
{
	uint32_t f = CH39X_RNDIS_PKT_DIRECTED | CH39X_RNDIS_PKT_BROADCAST;

	if (promisc)
		f |= CH39X_RNDIS_PKT_PROMISCUOUS;
	if (allmulti || (n_mc > 0 && n_mc > max_list))
		f |= CH39X_RNDIS_PKT_ALL_MULTICAST;
	else if (n_mc > 0)
		f |= CH39X_RNDIS_PKT_MULTICAST;
	return f;
}

bool
ch39x_rndis_filter_pass(uint32_t flt, const uint8_t *dst, const uint8_t mac[6],
			const uint8_t (*mc)[6], unsigned int n)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	unsigned int i;

	if (flt & CH39X_RNDIS_PKT_PROMISCUOUS)
		return true;
	if ((dst[0] & 1) == 0)
		return (flt & CH39X_RNDIS_PKT_DIRECTED) &&
			memcmp(dst, mac, 6) == 0;
	if (memcmp(dst, bcast, 6) == 0)
		return (flt & CH39X_RNDIS_PKT_BROADCAST) != 0;
	if (flt & CH39X_RNDIS_PKT_ALL_MULTICAST)
		return true;
	if ((flt & CH39X_RNDIS_PKT_MULTICAST) == 0)
		return false;
	for (i = 0; i < n; i++)
		if (memcmp(dst, mc[i], 6) == 0)
			return true;
	return false;
}

/* ---- TX ---- */

static uint64_t
align_up(uint64_t x, uint32_t a)
{
	return (x + a - 1) & ~(uint64_t)(a - 1);
}

/* Where the next message starts: the first one at 0, the others aligned. */
static uint64_t
tx_next_start(const struct ch39x_rndis_tx *t)
{
	return t->n ? align_up(t->len, t->align) : 0;
}

int
ch39x_rndis_tx_init(struct ch39x_rndis_tx *t,
		    const struct ch39x_rndis_tx_cfg *c)
{
	uint32_t dev = c->max_xfer ? c->max_xfer : DEF_XFER;
	uint32_t factor = c->align_factor;

	memset(t, 0, sizeof(*t));
	if (c->maxp == 0)
		return -1;
	t->maxp = c->maxp;
	t->zlp = c->zlp;
	t->limit = c->size && c->size < dev ? c->size : dev;
	t->max_pkts = c->max_pkts ? c->max_pkts : 1;
	if (t->max_pkts > CH39X_RNDIS_TX_MAX_PKTS)
		t->max_pkts = CH39X_RNDIS_TX_MAX_PKTS;
	/*
	 * Each message starts on 2^PacketAlignmentFactor bytes, at least 4
	 * (MessageLength counts the padding, so any device takes that).
	 */
	if (factor > CH39X_RNDIS_MAX_ALIGN_FACTOR)
		factor = CH39X_RNDIS_MAX_ALIGN_FACTOR;
	t->align = 1u << factor;
	if (t->align < 4)
		t->align = 4;
	t->refused = CH39X_RNDIS_FIT_OK;
	if ((uint64_t)CH39X_RNDIS_PACKET_LEN + ETH_HLEN > t->limit)
		return -1;
	return 0;
}

uint32_t
ch39x_rndis_tx_buf_size(const struct ch39x_rndis_tx *t)
{
	return t->limit;
}

uint32_t
ch39x_rndis_tx_max_frame(const struct ch39x_rndis_tx *t)
{
	return t->limit > CH39X_RNDIS_PACKET_LEN ?
		t->limit - CH39X_RNDIS_PACKET_LEN : 0;
}

void
ch39x_rndis_tx_begin(struct ch39x_rndis_tx *t, uint8_t *buf)
{
	t->buf = buf;
	t->len = 0;
	t->last = 0;
	t->payload = 0;
	t->n = 0;
	t->refused = CH39X_RNDIS_FIT_OK;
}

enum ch39x_rndis_fit
ch39x_rndis_tx_check(struct ch39x_rndis_tx *t, uint32_t len)
{
	enum ch39x_rndis_fit r;

	if (len == 0)
		return CH39X_RNDIS_FIT_BAD_LEN;
	if ((uint64_t)CH39X_RNDIS_PACKET_LEN + len > t->limit)
		return CH39X_RNDIS_FIT_TOO_BIG;
	if (t->n >= t->max_pkts)
		r = CH39X_RNDIS_FIT_MAX_PKTS;
	else if (tx_next_start(t) + CH39X_RNDIS_PACKET_LEN + len > t->limit)
		r = CH39X_RNDIS_FIT_FULL;
	else
		return CH39X_RNDIS_FIT_OK;
	t->refused = r;
	return r;
}

uint8_t *
ch39x_rndis_tx_add(struct ch39x_rndis_tx *t, uint32_t len)
{
	uint32_t s = (uint32_t)tx_next_start(t);
	uint8_t *h = t->buf + s;

	if (t->n) {
		/* The previous message's length takes the alignment gap. */
		memset(t->buf + t->len, 0, s - t->len);
		ch39x_put_le32(t->buf + t->last + 4, s - t->last);
	}
	memset(h, 0, CH39X_RNDIS_PACKET_LEN);
	ch39x_put_le32(h, CH39X_RNDIS_MSG_PACKET);
	ch39x_put_le32(h + 4, CH39X_RNDIS_PACKET_LEN + len);
	ch39x_put_le32(h + 8, CH39X_RNDIS_PACKET_LEN - CH39X_RNDIS_OFF_BASE);
	ch39x_put_le32(h + 12, len);
	t->last = s;
	t->len = s + CH39X_RNDIS_PACKET_LEN + len;
	t->payload += len;
	t->n++;
	t->refused = CH39X_RNDIS_FIT_OK;
	return h + CH39X_RNDIS_PACKET_LEN;
}

struct ch39x_rndis_tx_end
ch39x_rndis_tx_finish(struct ch39x_rndis_tx *t)
{
	struct ch39x_rndis_tx_end e;
	uint32_t len = t->len;

	memset(&e, 0, sizeof(e));
	e.pkts = t->n;
	if (t->n == 0)
		return e;
	e.reason = t->refused;
	if (e.reason == CH39X_RNDIS_FIT_OK && t->n >= t->max_pkts)
		e.reason = CH39X_RNDIS_FIT_MAX_PKTS;
	/*
	 * Short-packet rule: a transfer that is a multiple of wMaxPacketSize
	 * ends with one zero byte after the last message (Linux usbnet; not
	 * counted in MessageLength) or, with the zlp quirk or no room for
	 * the byte, a ZLP. Linux's gadget sizes its OUT requests past its
	 * MaxTransferSize, so even a transfer of that size needs the end
	 * mark (§19).
	 */
	if (len % t->maxp == 0) {
		if (!t->zlp && len < t->limit) {
			t->buf[len++] = 0;
			e.padded = true;
			t->stats.pad_bytes++;
		} else {
			e.zlp = true;
			t->stats.zlps++;
		}
	}
	t->stats.xfers++;
	t->stats.pkts += t->n;
	t->stats.pkt_bytes += t->payload;
	t->stats.overhead += len - t->payload;
	if (e.reason == CH39X_RNDIS_FIT_FULL)
		t->stats.close_full++;
	else if (e.reason == CH39X_RNDIS_FIT_MAX_PKTS)
		t->stats.close_max_pkts++;
	else
		t->stats.close_burst++;
	e.len = len;
	t->n = 0;
	t->len = 0;
	t->payload = 0;
	t->refused = CH39X_RNDIS_FIT_OK;
	return e;
}

/* ---- RX ---- */

void
ch39x_rndis_rx_init(struct ch39x_rndis_rx *rx,
		    const struct ch39x_rndis_rx_cfg *cfg)
{
	memset(rx, 0, sizeof(*rx));
	rx->cfg = *cfg;
}

void
ch39x_rndis_rx_begin(struct ch39x_rndis_rx *rx, const uint8_t *buf,
		     uint32_t len)
{
	rx->buf = buf;
	rx->len = len;
	rx->off = 0;
	rx->n = 0;
	rx->stats.xfers++;
}

static bool
all_zero(const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/* The tail from rx->off cannot be a message: padding or garbage. */
static int
rx_tail(struct ch39x_rndis_rx *rx, uint64_t *bad)
{
	uint32_t rem = rx->len - rx->off;

	if (all_zero(rx->buf + rx->off, rem))
		rx->stats.pad_bytes += rem;
	else
		(*bad)++;
	rx->off = rx->len;
	return 0;
}

int
ch39x_rndis_rx_next(struct ch39x_rndis_rx *rx, struct ch39x_rndis_frame *f)
{
	while (rx->off < rx->len) {
		const uint8_t *p = rx->buf + rx->off;
		uint32_t rem = rx->len - rx->off;
		uint32_t mlen, doff, dlen;

		if (rem < CH39X_RNDIS_PACKET_LEN)
			return rx_tail(rx, &rx->stats.bad_len);
		if (ch39x_get_le32(p) != CH39X_RNDIS_MSG_PACKET)
			return rx_tail(rx, &rx->stats.bad_type);
		mlen = ch39x_get_le32(p + 4);
		if (mlen < CH39X_RNDIS_PACKET_LEN || mlen > rem) {
			rx->stats.bad_len++;
			rx->off = rx->len;
			return 0;
		}
		rx->off += mlen;
		rx->n++;
		doff = ch39x_get_le32(p + 8);
		dlen = ch39x_get_le32(p + 12);
		/* OOBDataLength, PerPacketInfoLength: ignored, as Linux. */
		if (ch39x_get_le32(p + 20) != 0 || ch39x_get_le32(p + 32) != 0)
			rx->stats.ppi++;
		if ((uint64_t)CH39X_RNDIS_OFF_BASE + doff + dlen > mlen) {
			rx->stats.bad_data++;
			continue;
		}
		if (rx->cfg.max_pkts && rx->n > rx->cfg.max_pkts) {
			rx->stats.too_many++;
			continue;
		}
		if (dlen < ETH_HLEN) {
			rx->stats.runts++;
			continue;
		}
		if (rx->cfg.max_frame && dlen > rx->cfg.max_frame) {
			rx->stats.oversize++;
			continue;
		}
		f->offset = rx->off - mlen + CH39X_RNDIS_OFF_BASE + doff;
		f->data = rx->buf + f->offset;
		f->len = dlen;
		rx->stats.pkts++;
		rx->stats.pkt_bytes += dlen;
		return 1;
	}
	return 0;
}

uint64_t
ch39x_rndis_rx_bad(const struct ch39x_rndis_rx_stats *st)
{
	return st->bad_type + st->bad_len + st->bad_data + st->runts +
		st->oversize + st->too_many;
}
