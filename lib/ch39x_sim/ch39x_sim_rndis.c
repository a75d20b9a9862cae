/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The simulated adapter as an RNDIS function (a phone's USB tethering, an
 * LTE dongle, the Linux f_rndis gadget): its descriptors, the control
 * messages of SEND_ENCAPSULATED_COMMAND / GET_ENCAPSULATED_RESPONSE with
 * RESPONSE_AVAILABLE on the interrupt endpoint, the packet filter and the
 * multicast list, indications on link changes, and data messages several
 * to a bulk transfer (§18; what it assumes where devices differ, §20).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_net.h"
#include "ch39x_rndis.h"
#include "ch39x_sim_priv.h"
#include "ch39x_usbdesc.h"

/* Responses waiting for GET_ENCAPSULATED_RESPONSE (f_rndis: a list). */
#define RN_RESP_SLOTS	8
/* ASSUMPTION (§20): what the model says in INITIALIZE's reply. */
#define RN_MAX_PKTS	16
#define RN_MAX_XFER	16384
#define RN_ALIGN_FACTOR	3
/* The single quirk: Linux f_rndis at MTU 1500 (§19). */
#define RN_GADGET_MAX_XFER 1580
#define RN_MC_MAX	CH39X_SIM_CDC_MC_FILTERS
/* The host's MaxTransferSize is believed between these. */
#define RN_HOST_XFER_MIN 2048
#define RN_HOST_XFER_MAX 65536

enum rn_state { RN_UNINIT = 0, RN_INIT, RN_DATA };

struct rn_resp {
	uint32_t len;
	uint8_t buf[CH39X_RNDIS_RESP_MAX];
};

struct sim_rndis {
	enum rn_state state;
	uint32_t host_max_xfer;		/* INITIALIZE's MaxTransferSize */
	uint32_t max_pkts;		/* what INIT_C says */
	uint32_t max_xfer;
	uint32_t filter;		/* OID_GEN_CURRENT_PACKET_FILTER */
	uint32_t n_mc;
	uint8_t mc[RN_MC_MAX][6];
	int reported_link;		/* -1: nothing told yet */
	uint32_t reported_mbps;
	/* Responses: a ring; notifications owed for them. */
	uint32_t head, count;
	uint32_t notify_owed;
	struct rn_resp resp[RN_RESP_SLOTS];
	struct ch39x_rndis_tx tx;	/* builds bulk IN transfers */
	struct ch39x_rndis_rx rx;	/* parses bulk OUT transfers */
};

static struct sim_rndis *
rn_of(const struct sim_dev *s)
{
	return s->rndis;
}

static bool
rn_single(const struct sim_dev *s)
{
	return (s->cfg.ncm_quirks & CH39X_SIM_RNDIS_SINGLE) != 0;
}

/* ---- responses ---- */

/* Queue a response and owe a notification; a full queue drops it. */
static uint8_t *
rn_resp_slot(struct sim_dev *s)
{
	struct sim_rndis *r = rn_of(s);
	struct rn_resp *p;

	if (r->count == RN_RESP_SLOTS) {
		SIM_ADD(s->cnt.rndis_resp_dropped, 1);
		return NULL;
	}
	p = &r->resp[(r->head + r->count) % RN_RESP_SLOTS];
	return p->buf;
}

static void
rn_resp_commit(struct sim_dev *s, uint32_t len)
{
	struct sim_rndis *r = rn_of(s);

	if (len == 0)
		return;
	r->resp[(r->head + r->count) % RN_RESP_SLOTS].len = len;
	r->count++;
	r->notify_owed++;
}

static void
rn_resp_drain(struct sim_rndis *r)
{
	r->head = 0;
	r->count = 0;
	r->notify_owed = 0;
}

/* The link as the host is told it. */
static uint32_t
rn_speed_100bps(const struct sim_dev *s)
{
	return link_up(s) ? link_speed(s) * 10000u : 0;
}

/* ---- requests ---- */

static uint32_t
rn_query_value(struct sim_dev *s, uint32_t oid, uint8_t *v)
{
	struct sim_rndis *r = rn_of(s);
	static const uint32_t oids[] = {
		CH39X_RNDIS_OID_GEN_SUPPORTED_LIST,
		CH39X_RNDIS_OID_GEN_MAXIMUM_FRAME_SIZE,
		CH39X_RNDIS_OID_GEN_LINK_SPEED,
		CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
		CH39X_RNDIS_OID_GEN_MAXIMUM_TOTAL_SIZE,
		CH39X_RNDIS_OID_GEN_MEDIA_CONNECT_STATUS,
		CH39X_RNDIS_OID_GEN_PHYSICAL_MEDIUM,
		CH39X_RNDIS_OID_GEN_XMIT_OK,
		CH39X_RNDIS_OID_GEN_RCV_OK,
		CH39X_RNDIS_OID_802_3_PERMANENT_ADDRESS,
		CH39X_RNDIS_OID_802_3_CURRENT_ADDRESS,
		CH39X_RNDIS_OID_802_3_MULTICAST_LIST,
		CH39X_RNDIS_OID_802_3_MAXIMUM_LIST_SIZE,
	};
	uint32_t i, u;

	switch (oid) {
	case CH39X_RNDIS_OID_GEN_SUPPORTED_LIST:
		for (i = 0; i < sizeof(oids) / sizeof(oids[0]); i++)
			ch39x_put_le32(v + 4 * i, oids[i]);
		return sizeof(oids);
	case CH39X_RNDIS_OID_802_3_PERMANENT_ADDRESS:
		memcpy(v, s->factory_mac, 6);
		return 6;
	case CH39X_RNDIS_OID_802_3_CURRENT_ADDRESS:
		memcpy(v, s->mac, 6);
		return 6;
	case CH39X_RNDIS_OID_802_3_MULTICAST_LIST:
		memcpy(v, r->mc, 6u * r->n_mc);
		return 6u * r->n_mc;
	case CH39X_RNDIS_OID_GEN_MAXIMUM_FRAME_SIZE:
		u = s->cdc.max_segment - CH39X_ETH_HLEN;
		break;
	case CH39X_RNDIS_OID_GEN_MAXIMUM_TOTAL_SIZE:
		u = s->cdc.max_segment + CH39X_RNDIS_PACKET_LEN;
		break;
	case CH39X_RNDIS_OID_GEN_LINK_SPEED:
		u = rn_speed_100bps(s);
		break;
	case CH39X_RNDIS_OID_GEN_MEDIA_CONNECT_STATUS:
		u = link_up(s) ? CH39X_RNDIS_MEDIA_CONNECTED :
			CH39X_RNDIS_MEDIA_DISCONNECTED;
		/* The host asked: later changes are news again. */
		r->reported_link = link_up(s);
		r->reported_mbps = link_up(s) ? link_speed(s) : 0;
		break;
	case CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER:
		u = r->filter;
		break;
	case CH39X_RNDIS_OID_GEN_PHYSICAL_MEDIUM:
		u = 0;		/* unspecified: not a wireless LAN */
		break;
	case CH39X_RNDIS_OID_GEN_XMIT_OK:
		u = (uint32_t)SIM_GET(s->cnt.rx_delivered);
		break;
	case CH39X_RNDIS_OID_GEN_RCV_OK:
		u = (uint32_t)SIM_GET(s->cnt.tx_frames);
		break;
	case CH39X_RNDIS_OID_802_3_MAXIMUM_LIST_SIZE:
		u = RN_MC_MAX;
		break;
	default:
		return UINT32_MAX;
	}
	ch39x_put_le32(v, u);
	return 4;
}

/* SET: the filter (non-zero starts the data, 0 stops it) and the list. */
static uint32_t
rn_set(struct sim_dev *s, const struct ch39x_rndis_msg *m)
{
	struct sim_rndis *r = rn_of(s);

	switch (m->oid) {
	case CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER:
		if (m->buf_len != 4)
			return CH39X_RNDIS_STATUS_INVALID_DATA;
		__atomic_store_n(&r->filter, ch39x_get_le32(m->buf),
				 __ATOMIC_RELAXED);
		__atomic_store_n(&r->state, r->filter ? RN_DATA : RN_INIT,
				 __ATOMIC_RELEASE);
		return CH39X_RNDIS_STATUS_SUCCESS;
	case CH39X_RNDIS_OID_802_3_MULTICAST_LIST:
		if (m->buf_len % 6 != 0 || m->buf_len / 6 > RN_MC_MAX)
			return CH39X_RNDIS_STATUS_INVALID_DATA;
		if (m->buf_len)
			memcpy(r->mc, m->buf, m->buf_len);
		__atomic_store_n(&r->n_mc, m->buf_len / 6, __ATOMIC_RELAXED);
		return CH39X_RNDIS_STATUS_SUCCESS;
	default:
		return CH39X_RNDIS_STATUS_NOT_SUPPORTED;
	}
}

/* The data path's builder and parser for what INIT settled. */
static void
rn_data_setup(struct sim_dev *s)
{
	struct sim_rndis *r = rn_of(s);
	struct ch39x_rndis_tx_cfg tc;
	struct ch39x_rndis_rx_cfg rc;

	memset(&tc, 0, sizeof(tc));
	tc.max_xfer = r->host_max_xfer;
	tc.max_pkts = r->max_pkts;
	tc.align_factor = rn_single(s) ? 0 : RN_ALIGN_FACTOR;
	tc.maxp = s->prof.bulk_maxp;
	/*
	 * A ZLP after a packet multiple, as u_ether sends on a controller
	 * that can (Linux rndis_host counts a pad byte as a bad message).
	 */
	tc.zlp = true;
	ch39x_rndis_tx_init(&r->tx, &tc);
	memset(&rc, 0, sizeof(rc));
	rc.max_frame = s->cdc.max_segment;
	rc.max_pkts = r->max_pkts;
	ch39x_rndis_rx_init(&r->rx, &rc);
}

/* Filter and list forgotten: the data stops until the host sets them. */
static void
rn_forget(struct sim_rndis *r, enum rn_state st)
{
	rn_resp_drain(r);
	__atomic_store_n(&r->filter, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->n_mc, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->state, st, __ATOMIC_RELEASE);
}

/* INITIALIZE starts over, as after a HALT. */
static uint32_t
rn_init_msg(struct sim_dev *s, const struct ch39x_rndis_msg *m)
{
	struct sim_rndis *r = rn_of(s);
	struct ch39x_rndis_init_c c;
	uint32_t host = m->init.max_xfer;

	rn_forget(r, RN_INIT);
	if (host < RN_HOST_XFER_MIN)
		host = RN_HOST_XFER_MIN;
	if (host > RN_HOST_XFER_MAX)
		host = RN_HOST_XFER_MAX;
	r->host_max_xfer = host;
	/* The host asks for the link next: nothing owed until then. */
	r->reported_link = link_up(s);
	r->reported_mbps = link_up(s) ? link_speed(s) : 0;
	rn_data_setup(s);
	memset(&c, 0, sizeof(c));
	c.status = CH39X_RNDIS_STATUS_SUCCESS;
	c.major = CH39X_RNDIS_MAJOR;
	c.minor = CH39X_RNDIS_MINOR;
	c.device_flags = CH39X_RNDIS_DF_CONNECTIONLESS;
	c.medium = CH39X_RNDIS_MEDIUM_802_3;
	c.max_pkts = r->max_pkts;
	c.max_xfer = r->max_xfer;
	c.align_factor = rn_single(s) ? 0 : RN_ALIGN_FACTOR;
	return ch39x_rndis_build_init_c(rn_resp_slot(s), CH39X_RNDIS_RESP_MAX,
					m->req_id, &c);
}

/* One encapsulated command (under s->lock). */
static void
rn_command(struct sim_dev *s, const uint8_t *buf, uint16_t len)
{
	struct sim_rndis *r = rn_of(s);
	uint8_t v[CH39X_RNDIS_RESP_MAX - CH39X_RNDIS_QUERY_C_LEN];
	struct ch39x_rndis_msg m;
	uint32_t n, st;
	uint8_t *out;

	if (ch39x_rndis_parse_ctrl(buf, len, &m) != CH39X_RNDIS_OK ||
	    ch39x_rndis_request_of(m.type) != 0 ||
	    m.type == CH39X_RNDIS_MSG_INDICATE) {
		/* f_rndis answers nothing to what it cannot parse. */
		SIM_ADD(s->cnt.rndis_bad_msgs, 1);
		return;
	}
	switch (m.type) {
	case CH39X_RNDIS_MSG_HALT:
		rn_forget(r, RN_UNINIT);
		return;
	case CH39X_RNDIS_MSG_INIT:
		rn_resp_commit(s, rn_init_msg(s, &m));
		return;
	case CH39X_RNDIS_MSG_RESET:
		/*
		 * ASSUMPTION (§20): a reset forgets the filter and the list
		 * (AddressingReset 1 asks the host to send them again), so
		 * the data stops until it does. f_rndis keeps both.
		 */
		rn_forget(r, RN_INIT);
		rn_resp_commit(s, ch39x_rndis_build_reset_c(rn_resp_slot(s),
				CH39X_RNDIS_RESP_MAX,
				CH39X_RNDIS_STATUS_SUCCESS, true));
		return;
	default:
		break;
	}
	out = rn_resp_slot(s);
	if (out == NULL)
		return;
	switch (m.type) {
	case CH39X_RNDIS_MSG_QUERY:
		n = rn_query_value(s, m.oid, v);
		st = n == UINT32_MAX ? CH39X_RNDIS_STATUS_NOT_SUPPORTED :
			CH39X_RNDIS_STATUS_SUCCESS;
		n = ch39x_rndis_build_query_c(out, CH39X_RNDIS_RESP_MAX,
					      m.req_id, st, v,
					      n == UINT32_MAX ? 0 : n);
		break;
	case CH39X_RNDIS_MSG_SET:
		n = ch39x_rndis_build_status_c(out, CH39X_RNDIS_RESP_MAX,
					       CH39X_RNDIS_MSG_SET_C, m.req_id,
					       rn_set(s, &m));
		break;
	case CH39X_RNDIS_MSG_KEEPALIVE:
		n = ch39x_rndis_build_status_c(out, CH39X_RNDIS_RESP_MAX,
					       CH39X_RNDIS_MSG_KEEPALIVE_C,
					       m.req_id,
					       CH39X_RNDIS_STATUS_SUCCESS);
		break;
	default:
		SIM_ADD(s->cnt.rndis_bad_msgs, 1);
		return;
	}
	rn_resp_commit(s, n);
}

/* GET_ENCAPSULATED_RESPONSE: the oldest response, or a stall (f_rndis). */
static int
rn_response(struct sim_dev *s, uint8_t *buf, uint16_t length)
{
	struct sim_rndis *r = rn_of(s);
	struct rn_resp *p;

	if (r->count == 0)
		return -EPIPE;
	p = &r->resp[r->head];
	r->head = (r->head + 1) % RN_RESP_SLOTS;
	r->count--;
	/*
	 * f_rndis queues the whole response whatever wLength says: a host
	 * that asks for less gets babble, and the response is lost.
	 */
	if (p->len > length) {
		SIM_ADD(s->cnt.rndis_resp_dropped, 1);
		return -EOVERFLOW;
	}
	memcpy(buf, p->buf, p->len);
	SIM_ADD(s->cnt.rndis_responses, 1);
	return (int)p->len;
}

static int
rndis_control(struct sim_dev *s, uint8_t req_type, uint8_t request,
	      uint16_t value, uint16_t index, uint8_t *buf, uint16_t length)
{
	if ((req_type != CH39X_CDC_REQT_IN && req_type != CH39X_CDC_REQT_OUT) ||
	    index != s->cdc.comm_if || value != 0)
		return -EPIPE;
	if (req_type == CH39X_CDC_REQT_OUT &&
	    request == CH39X_RNDIS_SEND_ENCAPSULATED) {
		rn_command(s, buf, length);
		return length;
	}
	if (req_type == CH39X_CDC_REQT_IN &&
	    request == CH39X_RNDIS_GET_ENCAPSULATED)
		return rn_response(s, buf, length);
	return -EPIPE;
}

/* ---- receive (bulk IN) ---- */

static bool
rndis_rx_accept(struct sim_dev *s, const uint8_t *f)
{
	struct sim_rndis *r = rn_of(s);

	return ch39x_rndis_filter_pass(__atomic_load_n(&r->filter,
						       __ATOMIC_RELAXED),
				       f, s->mac, (const uint8_t (*)[6])r->mc,
				       __atomic_load_n(&r->n_mc,
						       __ATOMIC_RELAXED));
}

static uint32_t
rndis_rx_max_frame(const struct sim_dev *s)
{
	return s->cdc.max_segment;
}

/*
 * Bulk IN: as many messages as the host's MaxTransferSize and the model's
 * packet count allow, while the filter is set (f_rndis: data flows in
 * RNDIS_DATA_INITIALIZED only). A frame that did not fit waits in
 * s->frame for the next transfer.
 */
static void
rndis_rx_fill(struct sim_dev *s, uint64_t now)
{
	struct sim_rndis *r = rn_of(s);
	struct ch39x_rndis_tx_end e;
	enum ch39x_rndis_fit fit;
	struct ch39x_xfer *x;

	if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != RN_DATA)
		return;
	while ((x = s->pend_head[CH39X_EP_BULK_IN]) != NULL) {
		if (s->cfg.line_rate &&
		    __atomic_load_n(s->in_free, __ATOMIC_RELAXED) > now)
			return;
		if (!sim_hold_frame(s))
			return;
		/* The host said it takes host_max_xfer. */
		if (x->len < ch39x_rndis_tx_buf_size(&r->tx)) {
			sim_in_babble(s, x);
			continue;
		}
		ch39x_rndis_tx_begin(&r->tx, x->buf);
		while (s->frame_held) {
			fit = ch39x_rndis_tx_check(&r->tx, s->held_len);
			if (fit == CH39X_RNDIS_FIT_TOO_BIG ||
			    fit == CH39X_RNDIS_FIT_BAD_LEN) {
				SIM_ADD(s->cnt.rx_oversize, 1);
			} else if (fit != CH39X_RNDIS_FIT_OK) {
				break;
			} else {
				memcpy(ch39x_rndis_tx_add(&r->tx, s->held_len),
				       s->frame, s->held_len);
				SIM_ADD(s->cnt.rx_delivered, 1);
			}
			s->frame_held = false;
			sim_hold_frame(s);
		}
		e = ch39x_rndis_tx_finish(&r->tx);
		if (e.len == 0)
			return;
		x->actual = e.len;
		/*
		 * A packet multiple ends with a ZLP, unless it fills the
		 * host's MaxTransferSize (the host's transfer is then full).
		 * x->zlp tells a bus (tests/vm's FunctionFS program).
		 */
		x->zlp = e.zlp && e.len < r->host_max_xfer;
		sim_in_done(s, x, now);
	}
}

/* ---- transmit (bulk OUT) ---- */

static void
rndis_tx_parse(struct sim_dev *s, const struct ch39x_xfer *x)
{
	struct sim_rndis *r = rn_of(s);
	struct ch39x_rndis_frame f;
	uint64_t bad = ch39x_rndis_rx_bad(&r->rx.stats);
	uint64_t big = r->rx.stats.oversize;

	if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == RN_UNINIT) {
		SIM_ADD(s->cnt.tx_bad_records, 1);
		return;
	}
	ch39x_rndis_rx_begin(&r->rx, x->buf, x->len);
	while (ch39x_rndis_rx_next(&r->rx, &f) == 1)
		sim_wire_send(s, f.data, f.len);
	SIM_ADD(s->cnt.tx_oversize, r->rx.stats.oversize - big);
	SIM_ADD(s->cnt.tx_bad_records, ch39x_rndis_rx_bad(&r->rx.stats) - bad -
		(r->rx.stats.oversize - big));
	if (x->zlp)
		SIM_ADD(s->cnt.tx_zlp_seen, 1);
}

/* ---- notifications and indications ---- */

/*
 * A link change while initialised becomes an indication (f_rndis:
 * rndis_signal_connect/disconnect); a new speed while up one of
 * LINK_SPEED_CHANGE (ASSUMPTION, §20). Each response owes the host a
 * RESPONSE_AVAILABLE notification on the interrupt endpoint.
 */
static void
rndis_intr_fill(struct sim_dev *s, struct ch39x_xfer *x)
{
	struct sim_rndis *r = rn_of(s);
	int link = link_up(s);
	uint32_t st = 0, n;
	uint8_t *out;

	if (r->state != RN_UNINIT && r->reported_link >= 0) {
		if (link != r->reported_link)
			st = link ? CH39X_RNDIS_STATUS_MEDIA_CONNECT :
				CH39X_RNDIS_STATUS_MEDIA_DISCONNECT;
		else if (link && link_speed(s) != r->reported_mbps)
			st = CH39X_RNDIS_STATUS_LINK_SPEED_CHANGE;
		if (st != 0 && (out = rn_resp_slot(s)) != NULL) {
			rn_resp_commit(s, ch39x_rndis_build_indicate(out,
					CH39X_RNDIS_RESP_MAX, st, NULL, 0));
			r->reported_link = link;
			r->reported_mbps = link ? link_speed(s) : 0;
		}
	}
	if (r->notify_owed == 0)
		return;
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	n = ch39x_rndis_build_notify(x->buf, x->len);
	if (n == 0) {
		x->actual = x->len;
		complete(s, x, CH39X_XFER_OVERFLOW);
		return;
	}
	r->notify_owed--;
	x->actual = n;
	complete(s, x, CH39X_XFER_OK);
	SIM_ADD(s->cnt.cdc_notifications, 1);
}

/* ---- set-up ---- */

/*
 * The function's descriptors, walked: f_rndis's (02/02/FF, Header, Call
 * Management, ACM, Union; an 8-byte interrupt endpoint; the data
 * interface's bulk pair at alt setting 0), or Android's class triple
 * with the wireless quirk.
 */
void
sim_rndis_init(struct sim_dev *s)
{
	struct ch39x_cdc_desc *c = &s->cdc;
	struct sim_rndis *r = s->rndis;
	bool wireless = (s->cfg.ncm_quirks & CH39X_SIM_RNDIS_WIRELESS) != 0;

	memset(c, 0, sizeof(*c));
	c->have_comm = true;
	c->comm_if = 0;
	c->comm_class = wireless ? CH39X_RNDIS_CLASS_WIRELESS :
		CH39X_RNDIS_CLASS_COMM;
	c->comm_subclass = wireless ? CH39X_RNDIS_SUBCLASS_RF :
		CH39X_RNDIS_SUBCLASS_ACM;
	c->comm_protocol = wireless ? CH39X_RNDIS_PROTO_RNDIS :
		CH39X_RNDIS_PROTO_VENDOR;
	c->intr_ep = 0x83;
	c->intr_maxp = CH39X_RNDIS_NOTIFY_LEN;
	c->intr_interval = 4;
	c->have_header = true;
	c->bcd_cdc = 0x0110;
	c->have_union = true;
	c->union_master = 0;
	c->union_slave = 1;
	/* The longest frame: wMaxSegmentSize's devarg, as the CDC models. */
	c->max_segment = s->cfg.cdc_max_segment ? s->cfg.cdc_max_segment :
		1514;
	c->have_data = true;
	c->data_if = 1;
	c->have_data_eps = true;
	c->data_alt = 0;
	c->bulk_in = 0x81;
	c->bulk_out = 0x02;
	c->bulk_in_maxp = s->prof.bulk_maxp;
	c->bulk_out_maxp = s->prof.bulk_maxp;
	c->flags = CH39X_CDC_F_DATA_FROM_UNION;

	/* The bulk endpoints exist at alt 0: always there. */
	s->data_alt = 1;
	s->frame_held = false;
	memset(r, 0, sizeof(*r));
	r->reported_link = -1;
	r->max_pkts = rn_single(s) ? 1 : RN_MAX_PKTS;
	r->max_xfer = rn_single(s) ? RN_GADGET_MAX_XFER : RN_MAX_XFER;
	/* Room for the longest frame, as f_rndis adds 22 to its MTU's. */
	if (c->max_segment + CH39X_RNDIS_PACKET_LEN + 22u > r->max_xfer)
		r->max_xfer = c->max_segment + CH39X_RNDIS_PACKET_LEN + 22u;
	r->host_max_xfer = RN_HOST_XFER_MIN;
	rn_data_setup(s);
}

int
sim_rndis_alloc(struct sim_dev *s)
{
	s->rndis = calloc(1, sizeof(*s->rndis));
	return s->rndis ? 0 : -1;
}

void
sim_rndis_free(struct sim_dev *s)
{
	free(s->rndis);
	s->rndis = NULL;
}

/*
 * The configuration descriptor, as f_rndis's (§19): an IAD, the control
 * interface with Header (CDC 1.10), Call Management (no capabilities,
 * data interface 1), ACM (bmCapabilities 0: Linux refuses an RNDIS
 * function with ACM capabilities) and Union, the interrupt endpoint; the
 * data interface with the bulk pair at alt setting 0.
 */
static uint32_t
rndis_config_desc(struct sim_dev *s, uint8_t *buf, uint32_t cap)
{
	const struct ch39x_cdc_desc *c = &s->cdc;
	bool super = s->prof.speed == CH39X_SPEED_SUPER;
	struct ch39x_usb_cfg_builder b;
	const uint8_t hdr[] = { 5, CH39X_USB_DT_CS_INTERFACE, 0x00, 0x10, 0x01 };
	const uint8_t cm[] = { 5, CH39X_USB_DT_CS_INTERFACE, 0x01, 0x00,
			       c->data_if };
	const uint8_t acm[] = { 4, CH39X_USB_DT_CS_INTERFACE, 0x02, 0x00 };
	const uint8_t un[] = { 5, CH39X_USB_DT_CS_INTERFACE, 0x06, c->comm_if,
			       c->data_if };

	ch39x_usb_cfg_begin(&b, buf, cap, super, SIM_CDC_CONFIG,
			    super ? 896 : 500);
	ch39x_usb_cfg_iad(&b, c->comm_if, 2, c->comm_class, c->comm_subclass,
			  c->comm_protocol);
	ch39x_usb_cfg_interface(&b, c->comm_if, 0, 1, c->comm_class,
				c->comm_subclass, c->comm_protocol);
	ch39x_usb_cfg_raw(&b, hdr, sizeof(hdr));
	ch39x_usb_cfg_raw(&b, cm, sizeof(cm));
	ch39x_usb_cfg_raw(&b, acm, sizeof(acm));
	ch39x_usb_cfg_raw(&b, un, sizeof(un));
	ch39x_usb_cfg_endpoint(&b, c->intr_ep, CH39X_USB_EP_INTR, c->intr_maxp,
			       c->intr_interval);
	ch39x_usb_cfg_interface(&b, c->data_if, 0, 2, CH39X_CDC_CLASS_DATA, 0,
				0);
	ch39x_usb_cfg_endpoint(&b, c->bulk_in, CH39X_USB_EP_BULK,
			       c->bulk_in_maxp, 0);
	ch39x_usb_cfg_endpoint(&b, c->bulk_out, CH39X_USB_EP_BULK,
			       c->bulk_out_maxp, 0);
	return ch39x_usb_cfg_end(&b);
}

static const char *
rndis_name(const struct sim_dev *s)
{
	(void)s;
	return "RNDIS";
}

/* ASSUMPTION (§20): the device descriptor of a configfs gadget (IADs). */
const struct sim_model sim_rndis_model = {
	.control = rndis_control,
	.rx_accept = rndis_rx_accept,
	.rx_max_frame = rndis_rx_max_frame,
	.rx_fill = rndis_rx_fill,
	.tx_parse = rndis_tx_parse,
	.intr_fill = rndis_intr_fill,
	.config_desc = rndis_config_desc,
	.dev_class = 0xEF,
	.dev_subclass = 0x02,
	.dev_protocol = 0x01,
	.name = rndis_name,
};
