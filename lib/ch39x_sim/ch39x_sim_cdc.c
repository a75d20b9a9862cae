/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The simulated adapter as a CDC-NCM or CDC-ECM function (a CH398 in its
 * NCM configuration, or any NCM/ECM NIC): descriptors, class requests,
 * bulk IN NTBs or frames, bulk OUT parsing and notifications (CDC 1.2,
 * NCM 1.0; §11-§15). The NTB requests and the NTB engines serve the MBIM
 * modem (ch39x_sim_mbim.c) as well: its data moves in the same NTBs.
 */

#include <errno.h>
#include <string.h>

#include "ch39x_net.h"
#include "ch39x_sim_priv.h"

/* ---- class requests ---- */

/* GET_DESCRIPTOR(STRING) of the iMACAddress (ch39x_sim_desc.c: 0-3). */
static int
cdc_string(struct sim_dev *s, uint8_t idx, uint8_t *buf, uint16_t length)
{
	static const char hex[] = "0123456789ABCDEF";
	uint8_t d[2 + 24];
	uint32_t n, i;

	if (idx == CH39X_SIM_CDC_MAC_STRING) {
		d[0] = sizeof(d);
		d[1] = CH39X_USB_DT_STRING;
		for (i = 0; i < 12; i++) {
			d[2 + 2 * i] = (uint8_t)hex[(s->mac[i / 2] >>
						     (i & 1 ? 0 : 4)) & 0xF];
			d[3 + 2 * i] = 0;
		}
		n = sizeof(d);
	} else {
		return -EPIPE;
	}
	n = n < length ? n : length;
	memcpy(buf, d, n);
	return (int)n;
}

/* The CDC model's NCM IN builder, after the host chose format and size. */
static void
cdc_ntx_setup(struct sim_dev *s)
{
	struct ch39x_ncm_tx_cfg c;

	memset(&c, 0, sizeof(c));
	c.ntb32 = s->ntb32;
	c.dev_max_size = s->ntb_in_size;
	c.size = s->ntb_in_size;
	c.divisor = s->ntbp.in_divisor;
	c.remainder = s->ntbp.in_remainder;
	c.ndp_align = s->ntbp.in_alignment;
	c.ndp_entries = 64;
	c.maxp = s->prof.bulk_maxp;
	c.max_dgram_len = s->cdc.max_segment > s->max_dgram ?
		s->cdc.max_segment : s->max_dgram;
	c.ndp_at_end = (s->cfg.ncm_quirks & CH39X_SIM_NCM_NDP_END) != 0;
	c.ips = s->cfg.framing == CH39X_FRAMING_MBIM;
	ch39x_ncm_tx_init(&s->ntx, &c);
}

/* Back to the power-up state: alt 0 and the default NTB settings. */
static void
cdc_reset_function(struct sim_dev *s)
{
	struct ch39x_ncm_rx_cfg rc;

	s->data_alt = 0;
	s->ntb32 = (s->ntbp.formats & CH39X_NCM_FMT_NTB16_BIT) == 0;
	s->ntb_in_size = s->ntbp.in_max_size;
	s->frame_held = false;
	s->conn_pending = false;
	s->last_link = -1;
	memset(&rc, 0, sizeof(rc));
	rc.ntb32 = s->ntb32;
	rc.ips = s->cfg.framing == CH39X_FRAMING_MBIM;
	rc.max_ntb = s->ntbp.out_max_size;
	ch39x_ncm_rx_init(&s->nrx, &rc);
	cdc_ntx_setup(s);
}

/* Whether the function moves NTBs: NCM, and MBIM (§21). */
static bool
is_ncm(const struct sim_dev *s)
{
	return s->cfg.framing == CH39X_FRAMING_NCM ||
		s->cfg.framing == CH39X_FRAMING_MBIM;
}

static int
cdc_control(struct sim_dev *s, uint8_t req_type, uint8_t request,
	    uint16_t value, uint16_t index, uint8_t *buf, uint16_t length)
{
	/* Standard GET_DESCRIPTOR(STRING), device recipient. */
	if (req_type == 0x80 && request == 0x06 && (value >> 8) == 0x03)
		return cdc_string(s, (uint8_t)value, buf, length);
	if ((req_type != CH39X_CDC_REQT_IN && req_type != CH39X_CDC_REQT_OUT) ||
	    index != s->cdc.comm_if)
		return -EPIPE;
	switch (request) {
	case CH39X_CDC_SET_ETH_PKT_FILTER:
		if (length != 0)
			return -EPIPE;
		__atomic_store_n(&s->pkt_filter, value, __ATOMIC_RELAXED);
		return 0;
	case CH39X_CDC_SET_ETH_MC_FILTERS:
		if (value > CH39X_SIM_CDC_MC_FILTERS || length != value * 6u)
			return -EPIPE;
		memcpy(s->mc, buf, length);
		__atomic_store_n(&s->n_mc, value, __ATOMIC_RELAXED);
		return length;
	default:
		break;
	}
	if (!is_ncm(s))
		return -EPIPE;
	return sim_ntb_request(s, req_type, request, value, buf, length);
}

int
sim_ntb_request(struct sim_dev *s, uint8_t req_type, uint8_t request,
		uint16_t value, uint8_t *buf, uint16_t length)
{
	uint8_t p[CH39X_NCM_NTB_PARAMS_LEN];
	uint32_t v;

	switch (request) {
	case CH39X_CDC_GET_NTB_PARAMETERS:
		if (req_type != CH39X_CDC_REQT_IN)
			return -EPIPE;
		ch39x_ncm_build_ntb_params(&s->ntbp, p);
		v = length < sizeof(p) ? length : sizeof(p);
		memcpy(buf, p, v);
		return (int)v;
	case CH39X_CDC_GET_NTB_FORMAT:
		if (length != 2)
			return -EPIPE;
		ch39x_put_le16(buf, s->ntb32);
		return 2;
	case CH39X_CDC_SET_NTB_FORMAT:
		/* Only while the data interface is at alt 0 (NCM 6.2.5). */
		if (length != 0 || value > 1 || s->data_alt != 0 ||
		    !(s->ntbp.formats & (value ? CH39X_NCM_FMT_NTB32_BIT :
					 CH39X_NCM_FMT_NTB16_BIT)))
			return -EPIPE;
		s->ntb32 = value == 1;
		s->nrx.cfg.ntb32 = s->ntb32;
		cdc_ntx_setup(s);
		return 0;
	case CH39X_CDC_GET_NTB_INPUT_SIZE:
		if (length != 4)
			return -EPIPE;
		ch39x_put_le32(buf, s->ntb_in_size);
		return 4;
	case CH39X_CDC_SET_NTB_INPUT_SIZE:
		/* 4 bytes, or 8 with wNtbInMaxDatagrams (not offered here). */
		if (length != 4)
			return -EPIPE;
		v = ch39x_get_le32(buf);
		if (v < CH39X_NCM_NTB_MIN_SIZE || v > s->ntbp.in_max_size)
			return -EPIPE;
		s->ntb_in_size = v;
		cdc_ntx_setup(s);
		return 4;
	case CH39X_CDC_GET_MAX_DATAGRAM:
	case CH39X_CDC_SET_MAX_DATAGRAM:
		if (!(s->cdc.ncm_caps & CH39X_NCM_CAP_MAX_DATAGRAM) ||
		    length != 2)
			return -EPIPE;
		if (request == CH39X_CDC_GET_MAX_DATAGRAM) {
			ch39x_put_le16(buf, s->max_dgram);
			return 2;
		}
		v = ch39x_get_le16(buf);
		if (v < CH39X_NCM_ETH_HLEN || v > s->cdc.max_segment)
			return -EPIPE;
		__atomic_store_n(&s->max_dgram, (uint16_t)v, __ATOMIC_RELAXED);
		cdc_ntx_setup(s);
		return 2;
	default:
		return -EPIPE;
	}
}

/* ---- receive ---- */

/* The CDC models' filter: SET_ETHERNET_PACKET_FILTER and the MC list. */
static bool
cdc_rx_accept(struct sim_dev *s, const uint8_t *f)
{
	uint16_t flt = __atomic_load_n(&s->pkt_filter, __ATOMIC_RELAXED);
	uint16_t i, n;

	if (flt & CH39X_CDC_PKT_PROMISC)
		return true;
	if ((f[0] & 1) == 0)
		return (flt & CH39X_CDC_PKT_DIRECTED) &&
			memcmp(f, s->mac, 6) == 0;
	if (memcmp(f, "\xff\xff\xff\xff\xff\xff", 6) == 0)
		return (flt & CH39X_CDC_PKT_BROADCAST) != 0;
	if (flt & CH39X_CDC_PKT_ALL_MULTICAST)
		return true;
	if ((flt & CH39X_CDC_PKT_MULTICAST) == 0)
		return false;
	n = __atomic_load_n(&s->n_mc, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		if (memcmp(f, s->mc[i], 6) == 0)
			return true;
	return false;
}

/*
 * ASSUMPTION: a CDC adapter receives frames up to wMaxSegmentSize or the
 * negotiated datagram size, whichever is larger.
 */
static uint32_t
cdc_rx_max_frame(const struct sim_dev *s)
{
	return s->cdc.max_segment > s->max_dgram ?
		s->cdc.max_segment : s->max_dgram;
}

/* An Ethernet function's datagrams: the cable's frames. */
static uint32_t
cdc_take(struct sim_dev *s, uint8_t *buf, uint8_t *session)
{
	*session = 0;
	return sim_frame_take(s, buf);
}

/*
 * CDC models: each bulk IN transfer carries one NTB (NCM, MBIM) or one
 * frame (ECM). An NTB closes when the next datagram does not fit (or is
 * another session's) or nothing more has arrived; a datagram that did
 * not fit waits in s->frame for the next. A buffer shorter than what the
 * device sends is babble (overflow). take gives the next datagram.
 */
void
sim_ntb_fill(struct sim_dev *s, uint64_t now, sim_take_fn take)
{
	struct ch39x_ncm_tx_end e;
	enum ch39x_ncm_fit fit;
	struct ch39x_xfer *x;
	uint32_t len;

	while ((x = s->pend_head[CH39X_EP_BULK_IN]) != NULL) {
		if (s->cfg.line_rate &&
		    __atomic_load_n(s->in_free, __ATOMIC_RELAXED) > now)
			return;
		if (!s->frame_held) {
			len = take(s, s->frame, &s->held_session);
			if (len == 0)
				return;
			s->held_len = len;
			s->frame_held = true;
		}
		if (!is_ncm(s)) {
			if (x->len < s->held_len) {
				memcpy(x->buf, s->frame, x->len);
				x->actual = x->len;
				s->frame_held = false;
				q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
				complete(s, x, CH39X_XFER_OVERFLOW);
				continue;
			}
			memcpy(x->buf, s->frame, s->held_len);
			x->actual = s->held_len;
			s->frame_held = false;
			SIM_ADD(s->cnt.rx_delivered, 1);
			sim_in_done(s, x, now);
			continue;
		}
		/*
		 * An NTB, its pad byte included, never exceeds the input
		 * size the host set; a smaller buffer would take babble.
		 */
		if (x->len < s->ntb_in_size) {
			sim_in_babble(s, x);
			continue;
		}
		ch39x_ncm_tx_begin(&s->ntx, x->buf);
		while (s->frame_held) {
			fit = ch39x_ncm_tx_check_ips(&s->ntx, s->held_len,
						     s->held_session);
			if (fit == CH39X_NCM_FIT_TOO_BIG ||
			    fit == CH39X_NCM_FIT_BAD_LEN) {
				SIM_ADD(s->cnt.rx_oversize, 1);
			} else if (fit != CH39X_NCM_FIT_OK) {
				break;
			} else {
				memcpy(ch39x_ncm_tx_add_ips(&s->ntx,
							    s->held_len,
							    s->held_session),
				       s->frame, s->held_len);
				SIM_ADD(s->cnt.rx_delivered, 1);
			}
			s->frame_held = false;
			len = take(s, s->frame, &s->held_session);
			if (len != 0) {
				s->held_len = len;
				s->frame_held = true;
			}
		}
		e = ch39x_ncm_tx_finish(&s->ntx);
		if (e.len == 0)
			return;
		x->actual = e.len;
		sim_in_done(s, x, now);
	}
}

static void
cdc_rx_fill(struct sim_dev *s, uint64_t now)
{
	sim_ntb_fill(s, now, cdc_take);
}

/* ---- transmit ---- */

/* The NCM parser's counters of bad NTBs, NDPs and entries. */
static uint64_t
ncm_bad(const struct ch39x_ncm_rx_stats *st)
{
	return st->short_ntb + st->bad_nth_sig + st->bad_hdr_len +
		st->bad_block_len + st->bad_ndp_index + st->bad_ndp_len +
		st->ndp_loops + st->ndp_no_null + st->bad_dgram;
}

/*
 * The datagrams of one bulk OUT NTB, each to out (a session's for MBIM).
 * Datagrams longer than the device takes are dropped, as the Linux NCM
 * gadget does ("Bad dgram length"), and counted, as are bad NTBs.
 */
void
sim_ntb_parse(struct sim_dev *s, const struct ch39x_xfer *x, uint32_t max,
	      sim_out_fn out)
{
	struct ch39x_ncm_dgram d;
	uint64_t bad;

	bad = ncm_bad(&s->nrx.stats);
	if (ch39x_ncm_rx_begin(&s->nrx, x->buf, x->len) == 0) {
		while (ch39x_ncm_rx_next(&s->nrx, &d) == 1) {
			if (d.len > max) {
				SIM_ADD(s->cnt.tx_oversize, 1);
				continue;
			}
			out(s, d.data, d.len, d.session);
		}
	}
	SIM_ADD(s->cnt.tx_bad_records, ncm_bad(&s->nrx.stats) - bad);
	if (x->zlp)
		SIM_ADD(s->cnt.tx_zlp_seen, 1);
}

static void
cdc_out(struct sim_dev *s, const uint8_t *d, uint32_t len, uint8_t session)
{
	(void)session;
	sim_wire_send(s, d, len);
}

/* CDC models' bulk OUT: an NTB of datagrams (NCM) or one frame (ECM). */
static void
cdc_tx_parse(struct sim_dev *s, const struct ch39x_xfer *x)
{
	uint32_t max = is_ncm(s) ? __atomic_load_n(&s->max_dgram,
						   __ATOMIC_RELAXED) :
		s->cdc.max_segment;

	if (!is_ncm(s)) {
		if (x->len < CH39X_ETH_HLEN)
			SIM_ADD(s->cnt.tx_bad_records, 1);
		else if (x->len > max)
			SIM_ADD(s->cnt.tx_oversize, 1);
		else
			sim_wire_send(s, x->buf, x->len);
		if (x->zlp)
			SIM_ADD(s->cnt.tx_zlp_seen, 1);
		return;
	}
	sim_ntb_parse(s, x, max, cdc_out);
}

/* ---- notifications ---- */


/*
 * CDC notifications on link changes, while the data interface is at alt
 * 1: going up, SPEED_CHANGE then NETWORK_CONNECTION(1), as the Linux
 * gadget sends them; going down, NETWORK_CONNECTION(0). A new speed while
 * up (the far end renegotiated) is sent the same way as going up.
 */
static void
cdc_intr_fill(struct sim_dev *s, struct ch39x_xfer *x)
{
	int link = link_up(s);
	uint32_t n, bps;

	if (s->data_alt == 0)
		return;
	if (s->conn_pending) {
		n = ch39x_cdc_notify_build_connection(x->buf, x->len,
						      s->cdc.comm_if, true);
		s->conn_pending = false;
		s->last_link = 1;
	} else if (link != s->last_link ||
		   (link && link_speed(s) != s->last_evt_link)) {
		bps = link_speed(s) * 1000000u;
		if (link) {
			s->last_evt_link = link_speed(s);
			n = ch39x_cdc_notify_build_speed(x->buf, x->len,
							 s->cdc.comm_if, bps,
							 bps);
			s->conn_pending = true;
		} else {
			n = ch39x_cdc_notify_build_connection(x->buf, x->len,
							      s->cdc.comm_if,
							      false);
			s->last_link = 0;
		}
	} else {
		return;
	}
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	if (n == 0) {
		x->actual = x->len;
		complete(s, x, CH39X_XFER_OVERFLOW);
		return;
	}
	x->actual = n;
	complete(s, x, CH39X_XFER_OK);
	SIM_ADD(s->cnt.cdc_notifications, 1);
}

/* ---- the data interface and the function's set-up ---- */

int
sim_get_cdc(struct ch39x_usb_dev *d, struct ch39x_cdc_desc *cdc)
{
	struct sim_dev *s = to_sim(d);

	if (s->cfg.framing == CH39X_FRAMING_VENDOR)
		return -ENOTSUP;
	*cdc = s->cdc;
	return 0;
}

int
sim_set_data_alt(struct ch39x_usb_dev *d, uint8_t alt)
{
	struct sim_dev *s = to_sim(d);

	if (s->cfg.framing == CH39X_FRAMING_VENDOR)
		return -ENOTSUP;
	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
	if (alt > 1)
		return -EINVAL;
	/* RNDIS: one alt setting, the bulk pair in it (§18.1): nothing. */
	if (s->cfg.framing == CH39X_FRAMING_RNDIS)
		return 0;
	if (s->pend_head[CH39X_EP_BULK_IN] || s->pend_head[CH39X_EP_BULK_OUT])
		return -EBUSY;
	pthread_mutex_lock(&s->lock);
	if (alt == 0) {
		cdc_reset_function(s);
	} else if (s->data_alt == 0) {
		s->data_alt = 1;
		s->last_link = -1;	/* tell the host the link state */
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/*
 * The CDC models' descriptors and NTB parameters. ASSUMPTION: the values
 * of the Linux 6.1 NCM/ECM gadget (§16),
 * except the multicast filters (16 perfect ones) and, unless the quirk
 * says otherwise, the max-datagram capability.
 */
void
sim_cdc_init(struct sim_dev *s)
{
	struct ch39x_cdc_desc *c = &s->cdc;
	bool mbim = s->cfg.framing == CH39X_FRAMING_MBIM;
	bool ncm = s->cfg.framing == CH39X_FRAMING_NCM;

	memset(c, 0, sizeof(*c));
	c->have_comm = true;
	c->comm_if = 0;
	c->comm_class = CH39X_CDC_CLASS_COMM;
	c->comm_subclass = mbim ? CH39X_CDC_SUBCLASS_MBIM :
		ncm ? CH39X_CDC_SUBCLASS_NCM : CH39X_CDC_SUBCLASS_ECM;
	c->intr_ep = 0x83;
	c->intr_maxp = CH39X_SIM_CDC_INTR_MAXP;
	c->intr_interval = 4;
	c->have_header = true;
	c->bcd_cdc = 0x0110;
	c->have_union = true;
	c->union_master = 0;
	c->union_slave = 1;
	c->have_ether = true;
	c->i_mac_address = CH39X_SIM_CDC_MAC_STRING;
	c->max_segment = s->cfg.cdc_max_segment ? s->cfg.cdc_max_segment :
		1514;
	c->mc_filters = CH39X_SIM_CDC_MC_FILTERS;
	/* As the walker finds them: ECM has no NCM descriptor. */
	c->have_ncm = ncm;
	c->bcd_ncm = ncm ? 0x0100 : 0;
	c->ncm_caps = !ncm ? 0 : CH39X_NCM_CAP_ETH_FILTER |
		((s->cfg.ncm_quirks & CH39X_SIM_NCM_NO_MAX_DGRAM) ? 0 :
		 CH39X_NCM_CAP_MAX_DATAGRAM);
	c->have_data = true;
	c->data_if = 1;
	c->have_data_eps = true;
	c->data_alt = 1;
	c->data_protocol = mbim ? CH39X_CDC_MBIM_PROTO_NTB :
		ncm ? CH39X_CDC_NCM_PROTO_NTB : 0;
	c->bulk_in = 0x81;
	c->bulk_out = 0x02;
	c->bulk_in_maxp = s->prof.bulk_maxp;
	c->bulk_out_maxp = s->prof.bulk_maxp;
	c->flags = CH39X_CDC_F_DATA_FROM_UNION;

	memset(&s->ntbp, 0, sizeof(s->ntbp));
	s->ntbp.length = CH39X_NCM_NTB_PARAMS_LEN;
	s->ntbp.formats = (s->cfg.ncm_quirks & CH39X_SIM_NCM_NTB32_ONLY) ?
		CH39X_NCM_FMT_NTB32_BIT :
		(CH39X_NCM_FMT_NTB16_BIT | CH39X_NCM_FMT_NTB32_BIT);
	s->ntbp.in_max_size = s->cfg.ncm_in_max ? s->cfg.ncm_in_max :
		SIM_NCM_NTB_MAX;
	s->ntbp.in_divisor = 4;
	s->ntbp.in_alignment = 4;
	s->ntbp.out_max_size = s->cfg.ncm_out_max ? s->cfg.ncm_out_max :
		SIM_NCM_NTB_MAX;
	s->ntbp.out_divisor = 4;
	s->ntbp.out_alignment = 4;
	s->max_dgram = c->max_segment;
	if (mbim)
		sim_mbim_desc(s);
	/* ASSUMPTION: power-up filter passes directed, broadcast, multicast. */
	s->pkt_filter = CH39X_CDC_PKT_DIRECTED | CH39X_CDC_PKT_BROADCAST |
		CH39X_CDC_PKT_ALL_MULTICAST;
	cdc_reset_function(s);
}

/* The function's configuration descriptor, from its walked form. */
static uint32_t
cdc_config_desc(struct sim_dev *s, uint8_t *buf, uint32_t cap)
{
	return ch39x_cdc_build_config(&s->cdc, SIM_CDC_CONFIG,
				      s->prof.speed == CH39X_SPEED_SUPER, buf,
				      cap);
}

static const char *
cdc_name(const struct sim_dev *s)
{
	return is_ncm(s) ? "CDC-NCM" : "CDC-ECM";
}

/*
 * ASSUMPTION (§17): a composite-style device descriptor (class 0xEF,
 * subclass 2, protocol 1: "see the IADs"), as Linux's configfs gadgets
 * with an NCM or ECM function enumerate.
 */
const struct sim_model sim_cdc_model = {
	.control = cdc_control,
	.rx_accept = cdc_rx_accept,
	.rx_max_frame = cdc_rx_max_frame,
	.rx_fill = cdc_rx_fill,
	.tx_parse = cdc_tx_parse,
	.intr_fill = cdc_intr_fill,
	.config_desc = cdc_config_desc,
	.dev_class = 0xEF,
	.dev_subclass = 0x02,
	.dev_protocol = 0x01,
	.name = cdc_name,
};
