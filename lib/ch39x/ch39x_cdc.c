/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_usbdesc.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends, inline only */

#define USB_DT_CONFIG_LEN	9
#define USB_DT_INTERFACE_LEN	9
#define USB_DT_ENDPOINT_LEN	7
#define USB_DT_IAD_LEN		8
#define USB_EP_DIR_IN		0x80
#define USB_EP_XFER_MASK	0x03
#define USB_EP_XFER_BULK	0x02
#define USB_EP_XFER_INT		0x03
#define USB_EP_MAXP_MASK	0x07FF

/* ---- Configuration descriptor walker ---- */

static bool
subclass_wanted(uint8_t sub, uint8_t want)
{
	if (want != 0)
		return sub == want;
	return sub == CH39X_CDC_SUBCLASS_NCM || sub == CH39X_CDC_SUBCLASS_ECM;
}

static void
short_desc(struct ch39x_cdc_desc *d)
{
	d->errors |= CH39X_CDC_E_SHORT_DESC;
	d->bad_descs++;
}

/* One class-specific interface descriptor of the communication interface. */
static void
parse_func_desc(const uint8_t *p, uint8_t bl, struct ch39x_cdc_desc *d)
{
	if (bl < 3) {
		short_desc(d);
		return;
	}
	switch (p[2]) {
	case CH39X_CDC_FD_HEADER:
		if (bl < CH39X_CDC_FD_HEADER_LEN) {
			short_desc(d);
		} else if (d->have_header) {
			d->errors |= CH39X_CDC_E_DUPLICATE;
		} else {
			d->have_header = true;
			d->bcd_cdc = ch39x_get_le16(p + 3);
		}
		break;
	case CH39X_CDC_FD_UNION:
		/* Linux cdc_parse_cdc_header keeps the first Union too. */
		if (bl < CH39X_CDC_FD_UNION_LEN) {
			short_desc(d);
		} else if (d->have_union) {
			d->errors |= CH39X_CDC_E_DUPLICATE;
		} else {
			d->have_union = true;
			d->union_master = p[3];
			d->union_slave = p[4];
		}
		break;
	case CH39X_CDC_FD_ETHERNET:
		if (bl < CH39X_CDC_FD_ETHERNET_LEN) {
			short_desc(d);
		} else if (d->have_ether) {
			d->errors |= CH39X_CDC_E_DUPLICATE;
		} else {
			d->have_ether = true;
			d->i_mac_address = p[3];
			d->eth_stats = ch39x_get_le32(p + 4);
			d->max_segment = ch39x_get_le16(p + 8);
			d->mc_filters = ch39x_get_le16(p + 10);
			d->power_filters = p[12];
		}
		break;
	case CH39X_CDC_FD_NCM:
		if (bl < CH39X_CDC_FD_NCM_LEN) {
			short_desc(d);
		} else if (d->have_ncm) {
			d->errors |= CH39X_CDC_E_DUPLICATE;
		} else {
			d->have_ncm = true;
			d->bcd_ncm = ch39x_get_le16(p + 3);
			d->ncm_caps = p[5];
		}
		break;
	default:
		/* Call management, MDLM, MBIM...: not ours. */
		break;
	}
}

/*
 * Pass 1: the communication interface, its functional descriptors and its
 * interrupt endpoint. Returns the offset where the walk ended (end, or
 * the offset of a malformed descriptor).
 */
static uint32_t
walk_comm(const uint8_t *blob, uint32_t end, uint8_t subclass, int want_if,
	  struct ch39x_cdc_desc *d, bool *iad_two)
{
	bool in_comm = false;
	bool have_iad = false;
	uint8_t iad_first = 0, iad_count = 0;
	uint32_t off = 0;

	while (off < end) {
		const uint8_t *p = blob + off;
		uint8_t bl = p[0];

		if (bl < 2 || bl > end - off) {
			d->errors |= CH39X_CDC_E_MALFORMED;
			d->malformed_at = off;
			return off;
		}
		switch (p[1]) {
		case CH39X_USB_DT_INTERFACE:
			in_comm = false;
			if (bl < USB_DT_INTERFACE_LEN) {
				short_desc(d);
				break;
			}
			if (d->have_comm || p[3] != 0 ||
			    p[5] != CH39X_CDC_CLASS_COMM ||
			    !subclass_wanted(p[6], subclass) ||
			    (want_if >= 0 && p[2] != want_if))
				break;
			in_comm = true;
			d->have_comm = true;
			d->comm_if = p[2];
			d->comm_subclass = p[6];
			d->comm_protocol = p[7];
			*iad_two = have_iad && iad_count == 2 &&
				   iad_first == p[2];
			break;
		case CH39X_USB_DT_IAD:
			if (bl < USB_DT_IAD_LEN) {
				short_desc(d);
				break;
			}
			have_iad = true;
			iad_first = p[2];
			iad_count = p[3];
			break;
		case CH39X_USB_DT_ENDPOINT:
			if (bl < USB_DT_ENDPOINT_LEN) {
				short_desc(d);
				break;
			}
			if (in_comm && d->intr_ep == 0 &&
			    (p[2] & USB_EP_DIR_IN) &&
			    (p[3] & USB_EP_XFER_MASK) == USB_EP_XFER_INT) {
				d->intr_ep = p[2];
				d->intr_maxp = ch39x_get_le16(p + 4) &
					       USB_EP_MAXP_MASK;
				d->intr_interval = p[6];
			}
			break;
		case CH39X_USB_DT_CS_INTERFACE:
			if (in_comm)
				parse_func_desc(p, bl, d);
			break;
		default:
			break;
		}
		off += bl;
	}
	return off;
}

/* Pass 2: the data interface alt setting with a bulk IN and a bulk OUT. */
static void
walk_data(const uint8_t *blob, uint32_t end, struct ch39x_cdc_desc *d)
{
	bool in_data = false;
	uint8_t alt = 0, proto = 0, ep_in = 0, ep_out = 0;
	uint16_t mp_in = 0, mp_out = 0;
	uint32_t off = 0;

	for (;;) {
		const uint8_t *p = blob + off;
		bool last = off >= end;

		/* Close the alt setting being collected. */
		if ((last || p[1] == CH39X_USB_DT_INTERFACE) && in_data &&
		    ep_in && ep_out && !d->have_data_eps) {
			d->have_data_eps = true;
			d->data_alt = alt;
			d->data_protocol = proto;
			d->bulk_in = ep_in;
			d->bulk_out = ep_out;
			d->bulk_in_maxp = mp_in;
			d->bulk_out_maxp = mp_out;
		}
		if (last)
			break;
		/* walk_comm checked every bLength up to end. */
		if (p[1] == CH39X_USB_DT_INTERFACE) {
			in_data = p[0] >= USB_DT_INTERFACE_LEN &&
				  p[2] == d->data_if &&
				  p[5] == CH39X_CDC_CLASS_DATA;
			if (in_data) {
				alt = p[3];
				proto = p[7];
				ep_in = ep_out = 0;
				mp_in = mp_out = 0;
			}
		} else if (p[1] == CH39X_USB_DT_ENDPOINT && in_data &&
			   p[0] >= USB_DT_ENDPOINT_LEN &&
			   (p[3] & USB_EP_XFER_MASK) == USB_EP_XFER_BULK) {
			if ((p[2] & USB_EP_DIR_IN) && ep_in == 0) {
				ep_in = p[2];
				mp_in = ch39x_get_le16(p + 4) &
					USB_EP_MAXP_MASK;
			} else if (!(p[2] & USB_EP_DIR_IN) && ep_out == 0) {
				ep_out = p[2];
				mp_out = ch39x_get_le16(p + 4) &
					 USB_EP_MAXP_MASK;
			}
		}
		off += p[0];
	}
}

/*
 * Where a walk of the blob ends: wTotalLength when the blob starts with a
 * configuration descriptor and it is the smaller (never past the blob).
 */
static uint32_t
cfg_end(const uint8_t *blob, uint32_t len, uint32_t *errors)
{
	uint16_t total;

	if (len < USB_DT_CONFIG_LEN || blob[0] < USB_DT_CONFIG_LEN ||
	    blob[1] != CH39X_USB_DT_CONFIG) {
		*errors |= CH39X_CDC_E_NO_CONFIG;
		return len;
	}
	total = ch39x_get_le16(blob + 2);
	if (total == len)
		return len;
	*errors |= CH39X_CDC_E_TOTAL_LEN;
	/* Trust the smaller of the two, never past the blob. */
	return total < len && total >= blob[0] ? total : len;
}

int
ch39x_cdc_parse_config(const uint8_t *blob, uint32_t len, uint8_t subclass,
		       struct ch39x_cdc_desc *d)
{
	return ch39x_cdc_parse_function(blob, len, subclass, -1, d);
}

int
ch39x_cdc_parse_function(const uint8_t *blob, uint32_t len, uint8_t subclass,
			 int comm_if, struct ch39x_cdc_desc *d)
{
	uint32_t end;
	bool iad_two = false;

	memset(d, 0, sizeof(*d));
	end = cfg_end(blob, len, &d->errors);

	end = walk_comm(blob, end, subclass, comm_if, d, &iad_two);

	if (d->have_union) {
		if (d->union_master != d->comm_if)
			d->errors |= CH39X_CDC_E_UNION_MASTER;
		d->have_data = true;
		d->data_if = d->union_slave;
		d->flags |= CH39X_CDC_F_DATA_FROM_UNION;
	} else if (d->have_comm && iad_two) {
		/* cdc_ncm_bind_common: "CDC Union missing - got slave
		 * from IAD"
		 */
		d->have_data = true;
		d->data_if = (uint8_t)(d->comm_if + 1);
		d->flags |= CH39X_CDC_F_DATA_FROM_IAD;
	}
	if (d->have_data)
		walk_data(blob, end, d);
	return (d->errors & CH39X_CDC_E_MALFORMED) ? -1 : 0;
}

/* ---- Configuration descriptor builder ---- */

/* The communication interface's functional descriptors, as d has them. */
static void
build_func_descs(struct ch39x_usb_cfg_builder *b,
		 const struct ch39x_cdc_desc *d)
{
	uint8_t p[CH39X_CDC_FD_ETHERNET_LEN];

	if (d->have_header) {
		p[0] = CH39X_CDC_FD_HEADER_LEN;
		p[1] = CH39X_USB_DT_CS_INTERFACE;
		p[2] = CH39X_CDC_FD_HEADER;
		ch39x_put_le16(p + 3, d->bcd_cdc);
		ch39x_usb_cfg_raw(b, p, CH39X_CDC_FD_HEADER_LEN);
	}
	if (d->have_union) {
		p[0] = CH39X_CDC_FD_UNION_LEN;
		p[1] = CH39X_USB_DT_CS_INTERFACE;
		p[2] = CH39X_CDC_FD_UNION;
		p[3] = d->union_master;
		p[4] = d->union_slave;
		ch39x_usb_cfg_raw(b, p, CH39X_CDC_FD_UNION_LEN);
	}
	if (d->have_ether) {
		p[0] = CH39X_CDC_FD_ETHERNET_LEN;
		p[1] = CH39X_USB_DT_CS_INTERFACE;
		p[2] = CH39X_CDC_FD_ETHERNET;
		p[3] = d->i_mac_address;
		ch39x_put_le32(p + 4, d->eth_stats);
		ch39x_put_le16(p + 8, d->max_segment);
		ch39x_put_le16(p + 10, d->mc_filters);
		p[12] = d->power_filters;
		ch39x_usb_cfg_raw(b, p, CH39X_CDC_FD_ETHERNET_LEN);
	}
	if (d->have_ncm) {
		p[0] = CH39X_CDC_FD_NCM_LEN;
		p[1] = CH39X_USB_DT_CS_INTERFACE;
		p[2] = CH39X_CDC_FD_NCM;
		ch39x_put_le16(p + 3, d->bcd_ncm);
		p[5] = d->ncm_caps;
		ch39x_usb_cfg_raw(b, p, CH39X_CDC_FD_NCM_LEN);
	}
}

uint32_t
ch39x_cdc_build_config(const struct ch39x_cdc_desc *d, uint8_t cfg_value,
		       bool super, uint8_t *buf, uint32_t cap)
{
	struct ch39x_usb_cfg_builder b;

	/* 500 mA: a USB 2.0 port's most; 896 mA on a SuperSpeed one. */
	ch39x_usb_cfg_begin(&b, buf, cap, super, cfg_value, super ? 896 : 500);
	ch39x_usb_cfg_iad(&b, d->comm_if, 2, CH39X_CDC_CLASS_COMM,
			  d->comm_subclass, d->comm_protocol);
	ch39x_usb_cfg_interface(&b, d->comm_if, 0, d->intr_ep ? 1 : 0,
				CH39X_CDC_CLASS_COMM, d->comm_subclass,
				d->comm_protocol);
	build_func_descs(&b, d);
	if (d->intr_ep)
		ch39x_usb_cfg_endpoint(&b, d->intr_ep, CH39X_USB_EP_INTR,
				       d->intr_maxp, d->intr_interval);
	if (d->data_alt != 0)
		ch39x_usb_cfg_interface(&b, d->data_if, 0, 0,
					CH39X_CDC_CLASS_DATA, 0,
					d->data_protocol);
	ch39x_usb_cfg_interface(&b, d->data_if, d->data_alt, 2,
				CH39X_CDC_CLASS_DATA, 0, d->data_protocol);
	ch39x_usb_cfg_endpoint(&b, d->bulk_in, CH39X_USB_EP_BULK,
			       d->bulk_in_maxp, 0);
	ch39x_usb_cfg_endpoint(&b, d->bulk_out, CH39X_USB_EP_BULK,
			       d->bulk_out_maxp, 0);
	return ch39x_usb_cfg_end(&b);
}

unsigned int
ch39x_cdc_list_functions(const uint8_t *blob, uint32_t len,
			 struct ch39x_cdc_fn *fns, unsigned int max)
{
	struct ch39x_cdc_desc d;
	unsigned int n = 0;
	uint32_t off = 0, errors = 0, end = cfg_end(blob, len, &errors);

	/* The walk's chain: what it would take as interfaces, no further. */
	while (off + 2 <= end) {
		const uint8_t *p = blob + off;

		if (p[0] < 2 || p[0] > end - off)
			break;
		if (p[1] == CH39X_USB_DT_INTERFACE &&
		    p[0] >= USB_DT_INTERFACE_LEN && p[3] == 0 &&
		    p[5] == CH39X_CDC_CLASS_COMM && subclass_wanted(p[6], 0)) {
			if (n < max) {
				ch39x_cdc_parse_function(blob, len, p[6], p[2],
							 &d);
				fns[n].comm_if = p[2];
				fns[n].subclass = p[6];
				fns[n].have_data = d.have_data;
				fns[n].data_if = d.data_if;
				fns[n].usable = ch39x_cdc_usable(&d);
			}
			n++;
		}
		off += p[0];
	}
	return n;
}

bool
ch39x_cdc_usable(const struct ch39x_cdc_desc *d)
{
	if (!d->have_comm || !d->have_data_eps || !d->have_ether)
		return false;
	if (d->comm_subclass == CH39X_CDC_SUBCLASS_NCM && !d->have_ncm)
		return false;
	return true;
}

static int
hex_val(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
ch39x_cdc_parse_mac_string(const uint8_t *desc, uint32_t len, uint8_t mac[6])
{
	uint8_t out[6];
	int i, v;

	/* bLength, bDescriptorType, then 12 UTF-16LE code units. */
	if (len < 2 + 24 || desc[0] != 2 + 24 ||
	    desc[1] != CH39X_USB_DT_STRING)
		return -1;
	for (i = 0; i < 12; i++) {
		if (desc[3 + 2 * i] != 0)
			return -1;
		v = hex_val(desc[2 + 2 * i]);
		if (v < 0)
			return -1;
		if (i & 1)
			out[i / 2] = (uint8_t)(out[i / 2] | v);
		else
			out[i / 2] = (uint8_t)(v << 4);
	}
	memcpy(mac, out, 6);
	return 0;
}

/* ---- Packet filter ---- */

uint16_t
ch39x_cdc_packet_filter(bool promisc, bool allmulti, unsigned int n_mc,
			uint16_t mc_filters)
{
	uint16_t f = CH39X_CDC_PKT_DIRECTED | CH39X_CDC_PKT_BROADCAST;

	if (promisc)
		f |= CH39X_CDC_PKT_PROMISC;
	if (allmulti)
		f |= CH39X_CDC_PKT_ALL_MULTICAST;
	else if (n_mc > 0 && n_mc <= (mc_filters & CH39X_CDC_MC_FILTERS_MASK))
		f |= CH39X_CDC_PKT_MULTICAST;
	else if (n_mc > 0)
		f |= CH39X_CDC_PKT_ALL_MULTICAST;
	return f;
}

uint32_t
ch39x_cdc_mc_filters_build(const uint8_t (*macs)[6], unsigned int n,
			   uint8_t *buf, uint32_t cap)
{
	unsigned int i;

	if (n == 0 || n > cap / 6)
		return 0;
	for (i = 0; i < n; i++)
		memcpy(buf + 6 * i, macs[i], 6);
	return 6 * n;
}

/* ---- Notifications ---- */

void
ch39x_cdc_notify_init(struct ch39x_cdc_notify_parser *ps)
{
	memset(ps, 0, sizeof(*ps));
}

void
ch39x_cdc_notify_begin(struct ch39x_cdc_notify_parser *ps, const uint8_t *buf,
		       uint32_t len)
{
	ps->buf = buf;
	ps->len = len;
	ps->off = 0;
}

void
ch39x_cdc_notify_reset(struct ch39x_cdc_notify_parser *ps)
{
	ps->carry_len = 0;
	ps->buf = NULL;
	ps->len = 0;
	ps->off = 0;
}

/* Decode one complete notification; returns 1, or 0 when it is unusable. */
static int
notify_decode(struct ch39x_cdc_notify_parser *ps, const uint8_t *p,
	      struct ch39x_cdc_notify *n)
{
	memset(n, 0, sizeof(*n));
	n->code = p[1];
	n->value = ch39x_get_le16(p + 2);
	n->index = ch39x_get_le16(p + 4);
	n->length = ch39x_get_le16(p + 6);
	switch (n->code) {
	case CH39X_CDC_NOTIFY_NETWORK_CONNECTION:
		n->link_up = n->value != 0;
		ps->stats.connection++;
		break;
	case CH39X_CDC_NOTIFY_SPEED_CHANGE:
		if (n->length < CH39X_CDC_SPEED_CHANGE_LEN) {
			ps->stats.bad++;
			return 0;
		}
		n->down_bps = ch39x_get_le32(p + CH39X_CDC_NOTIFY_HDR_LEN);
		n->up_bps = ch39x_get_le32(p + CH39X_CDC_NOTIFY_HDR_LEN + 4);
		ps->stats.speed_change++;
		break;
	default:
		ps->stats.other++;
		break;
	}
	ps->stats.notifications++;
	return 1;
}

/* Complete a carried notification from the start of this transfer. */
static int
notify_continue(struct ch39x_cdc_notify_parser *ps, struct ch39x_cdc_notify *n)
{
	uint32_t need = CH39X_CDC_NOTIFY_HDR_LEN +
			ch39x_get_le16(ps->carry + 6);
	uint32_t take = need - ps->carry_len;

	if (take > ps->len - ps->off)
		take = ps->len - ps->off;
	memcpy(ps->carry + ps->carry_len, ps->buf + ps->off, take);
	ps->carry_len += take;
	ps->off += take;
	if (ps->carry_len < need)
		return 0;
	ps->carry_len = 0;
	ps->stats.split++;
	if (!notify_decode(ps, ps->carry, n))
		return -1;
	n->split = true;
	return 1;
}

int
ch39x_cdc_notify_next(struct ch39x_cdc_notify_parser *ps,
		      struct ch39x_cdc_notify *n)
{
	while (ps->off < ps->len) {
		const uint8_t *p = ps->buf + ps->off;
		uint32_t avail = ps->len - ps->off;
		uint32_t total;
		int r;

		if (ps->carry_len) {
			r = notify_continue(ps, n);
			if (r > 0)
				return 1;
			if (r == 0)
				return 0;
			continue;
		}
		/*
		 * A transfer too short for a header, or not a class
		 * notification, cannot be resynchronised: drop the rest
		 * (Linux cdc_ncm_status ignores transfers under 8 bytes).
		 */
		if (avail < CH39X_CDC_NOTIFY_HDR_LEN ||
		    p[0] != CH39X_CDC_REQT_IN) {
			ps->stats.bad++;
			ps->off = ps->len;
			return 0;
		}
		total = CH39X_CDC_NOTIFY_HDR_LEN + ch39x_get_le16(p + 6);
		if (total > avail) {
			if (total <= CH39X_CDC_NOTIFY_CARRY_MAX) {
				memcpy(ps->carry, p, avail);
				ps->carry_len = avail;
			} else {
				ps->stats.truncated++;
			}
			ps->off = ps->len;
			return 0;
		}
		ps->off += total;
		if (notify_decode(ps, p, n))
			return 1;
	}
	return 0;
}

static void
notify_hdr(uint8_t *buf, uint8_t code, uint16_t value, uint16_t iface,
	   uint16_t length)
{
	buf[0] = CH39X_CDC_REQT_IN;
	buf[1] = code;
	ch39x_put_le16(buf + 2, value);
	ch39x_put_le16(buf + 4, iface);
	ch39x_put_le16(buf + 6, length);
}

uint32_t
ch39x_cdc_notify_build_connection(uint8_t *buf, uint32_t cap, uint16_t iface,
				  bool up)
{
	if (cap < CH39X_CDC_NOTIFY_HDR_LEN)
		return 0;
	notify_hdr(buf, CH39X_CDC_NOTIFY_NETWORK_CONNECTION, up ? 1 : 0,
		   iface, 0);
	return CH39X_CDC_NOTIFY_HDR_LEN;
}

uint32_t
ch39x_cdc_notify_build_speed(uint8_t *buf, uint32_t cap, uint16_t iface,
			     uint32_t down_bps, uint32_t up_bps)
{
	if (cap < CH39X_CDC_NOTIFY_HDR_LEN + CH39X_CDC_SPEED_CHANGE_LEN)
		return 0;
	notify_hdr(buf, CH39X_CDC_NOTIFY_SPEED_CHANGE, 0, iface,
		   CH39X_CDC_SPEED_CHANGE_LEN);
	ch39x_put_le32(buf + CH39X_CDC_NOTIFY_HDR_LEN, down_bps);
	ch39x_put_le32(buf + CH39X_CDC_NOTIFY_HDR_LEN + 4, up_bps);
	return CH39X_CDC_NOTIFY_HDR_LEN + CH39X_CDC_SPEED_CHANGE_LEN;
}
