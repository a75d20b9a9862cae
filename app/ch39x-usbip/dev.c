/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * One exported device (dev.h): the chapter 9 state, the URBs in flight on
 * the model and their replies. Status codes are Linux's, as its host
 * controllers give back URBs (Documentation/driver-api/usb/error-codes):
 * -EPIPE for a stall, -ECONNRESET for an unlinked URB, -EREMOTEIO for a
 * short IN transfer the driver refused (URB_SHORT_NOT_OK).
 */

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_usbdesc.h"
#include "ch39x_vendor.h"
#include "dev.h"

/* Interfaces a configuration may have: bInterfaceNumber 0..31. */
#define UIP_MAX_IFS	32
/* Longest configuration descriptor read from the model. */
#define UIP_CFG_MAX	1024
/* Completions taken from the model per poll. */
#define UIP_POLL_BURST	32
/* bmRequestType: type bits, standard. */
#define RT_TYPE_MASK	0x60
#define RT_DIR_IN	0x80
/* SuperSpeed requests Linux sends while it enumerates (USB 3.2 9.4). */
#define REQ_SET_SEL		0x30
#define REQ_SET_ISOCH_DELAY	0x31

/* One URB in flight on the model. */
struct uip_urb {
	struct ch39x_xfer x;	/* x.user: this; x.buf: data */
	struct uip_urb *next;
	uint32_t seqnum;
	uint32_t flags;
	bool unlinked;		/* RET_UNLINK sent: no RET_SUBMIT */
	uint8_t data[];
};

/* One of the transport's endpoints and where it is in the descriptors. */
struct uip_ep {
	uint8_t addr;		/* 0: the configuration has none */
	uint8_t iface;
	uint8_t alt;		/* the interface's setting it exists in */
	struct uip_urb *head;	/* in flight, in submission order */
	struct uip_urb *tail;
	uint32_t n;
};

struct uip_stats {
	uint64_t attaches;
	uint64_t detaches;
	uint64_t ctrl;		/* control URBs */
	uint64_t ctrl_std;	/* of them standard requests */
	uint64_t ctrl_stalled;
	uint64_t ctrl_in_bytes;
	uint64_t ctrl_out_bytes;
	uint64_t set_config;
	uint64_t set_interface;
	uint64_t clear_halt;
	uint64_t submitted[CH39X_EP_COUNT];
	uint64_t completed[CH39X_EP_COUNT];
	uint64_t bytes[CH39X_EP_COUNT];
	uint64_t failed[CH39X_EP_COUNT];	/* given back with an error */
	uint64_t short_refused;			/* URB_SHORT_NOT_OK */
	uint64_t submit_refused;		/* the model's submit failed */
	uint64_t bad_ep;			/* no such endpoint now */
	uint64_t unlinks;
	uint64_t unlinks_late;			/* already given back */
	uint64_t resubmitted;			/* cancelled beside an unlinked one */
	uint64_t dropped_at_detach;
	/* Class and vendor requests by bRequest (the model's protocol). */
	uint32_t req[2][256];			/* [0] class, [1] vendor */
	uint32_t req_stalled[2][256];
};

struct uip_dev {
	char busid[USBIP_BUSID_LEN];
	struct ch39x_usb_dev *m;
	const struct ch39x_usb_ops *ops;
	struct ch39x_usb_info info;
	bool line_rate;
	uint8_t dev_desc[CH39X_USB_DT_DEVICE_LEN];
	uint8_t cfg[UIP_CFG_MAX];
	uint32_t cfg_len;
	uint8_t cfg_value;
	uint8_t n_alts[UIP_MAX_IFS];	/* 0: no such interface */
	uint8_t cur_alt[UIP_MAX_IFS];
	struct usbip_exported ex;
	bool configured;
	struct uip_ep ep[CH39X_EP_COUNT];
	uip_send_fn send;
	void *arg;
	struct uip_stats st;
};

/* ---- the model's identity ---- */

static int
get_desc(struct uip_dev *d, uint8_t type, uint8_t *buf, uint16_t len)
{
	return d->ops->control(d->m, CH39X_USB_RT_STD_IN_DEV,
			       CH39X_USB_REQ_GET_DESCRIPTOR,
			       (uint16_t)(type << 8), 0, buf, len, 1000);
}

/*
 * Walk the configuration: its interfaces and their settings, and the
 * transport's three endpoints (the first of each kind). The model wrote
 * it, but every length is checked all the same.
 */
static int
walk_config(struct uip_dev *d, char *err, size_t errlen)
{
	uint8_t num = 0, alt = 0, type, k;
	bool in_if = false;
	uint32_t off = 0;

	while (off + 2 <= d->cfg_len) {
		const uint8_t *p = d->cfg + off;

		if (p[0] < 2 || p[0] > d->cfg_len - off) {
			snprintf(err, errlen, "configuration descriptor: bad "
				 "bLength at byte %u", off);
			return -1;
		}
		if (p[1] == 0x04 && p[0] >= CH39X_USB_DT_INTERFACE_LEN &&
		    p[2] < UIP_MAX_IFS) {
			num = p[2];
			alt = p[3];
			in_if = true;
			if (d->n_alts[num] <= alt)
				d->n_alts[num] = (uint8_t)(alt + 1);
			if (d->ex.n_ifs < USBIP_MAX_IFS && alt == 0) {
				d->ex.ifs[d->ex.n_ifs].cls = p[5];
				d->ex.ifs[d->ex.n_ifs].sub = p[6];
				d->ex.ifs[d->ex.n_ifs].proto = p[7];
				d->ex.n_ifs++;
			}
		} else if (p[1] == 0x05 && p[0] >= CH39X_USB_DT_ENDPOINT_LEN &&
			   in_if) {
			type = p[3] & 0x03;
			if (type == CH39X_USB_EP_BULK)
				k = (p[2] & 0x80) ? CH39X_EP_BULK_IN :
					CH39X_EP_BULK_OUT;
			else if (type == CH39X_USB_EP_INTR && (p[2] & 0x80))
				k = CH39X_EP_INTR_IN;
			else
				k = CH39X_EP_COUNT;
			if (k < CH39X_EP_COUNT && d->ep[k].addr == 0) {
				d->ep[k].addr = p[2];
				d->ep[k].iface = num;
				d->ep[k].alt = alt;
			}
		}
		off += p[0];
	}
	if (d->ep[CH39X_EP_BULK_IN].addr == 0 ||
	    d->ep[CH39X_EP_BULK_OUT].addr == 0) {
		snprintf(err, errlen, "the model's configuration has no bulk "
			 "IN and OUT pair");
		return -1;
	}
	return 0;
}

static uint32_t
usbip_speed(uint8_t s)
{
	/* enum usb_device_speed: full 2, high 3, super 5. */
	return s == CH39X_SPEED_SUPER ? 5 : s == CH39X_SPEED_HIGH ? 3 : 2;
}

/* Device numbers given so far (one thread opens devices). */
static uint32_t devnums;

struct uip_dev *
uip_dev_open(const char *busid, const struct ch39x_sim_config *cfg,
	     char *err, size_t errlen)
{
	struct uip_dev *d = calloc(1, sizeof(*d));
	int n;

	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	snprintf(d->busid, sizeof(d->busid), "%s", busid);
	d->line_rate = cfg->line_rate;
	d->m = ch39x_sim_open(cfg, err, errlen);
	if (d->m == NULL)
		goto fail;
	d->ops = d->m->ops;
	if (d->ops->get_info(d->m, &d->info) != 0) {
		snprintf(err, errlen, "the model gives no identity");
		goto fail;
	}
	n = get_desc(d, CH39X_USB_DT_DEVICE, d->dev_desc, sizeof(d->dev_desc));
	if (n != CH39X_USB_DT_DEVICE_LEN) {
		snprintf(err, errlen, "GET_DESCRIPTOR(DEVICE): %d", n);
		goto fail;
	}
	n = get_desc(d, CH39X_USB_DT_CONFIG, d->cfg, sizeof(d->cfg));
	if (n < CH39X_USB_DT_CONFIG_LEN || ch39x_get_le16(d->cfg + 2) != n) {
		snprintf(err, errlen, "GET_DESCRIPTOR(CONFIGURATION): %d bytes",
			 n);
		goto fail;
	}
	d->cfg_len = (uint32_t)n;
	d->cfg_value = d->cfg[5];
	if (walk_config(d, err, errlen) != 0)
		goto fail;
	snprintf(d->ex.path, sizeof(d->ex.path), "/ch39x-usbip/%s", busid);
	snprintf(d->ex.busid, sizeof(d->ex.busid), "%s", busid);
	/* Bus 1; each device its own number, in the order opened. */
	d->ex.busnum = 1;
	d->ex.devnum = ++devnums;
	d->ex.speed = usbip_speed(d->info.speed);
	d->ex.vid = ch39x_get_le16(d->dev_desc + 8);
	d->ex.pid = ch39x_get_le16(d->dev_desc + 10);
	d->ex.bcd_device = ch39x_get_le16(d->dev_desc + 12);
	d->ex.dev_class = d->dev_desc[4];
	d->ex.dev_subclass = d->dev_desc[5];
	d->ex.dev_protocol = d->dev_desc[6];
	/* Unconfigured until the client's SET_CONFIGURATION. */
	d->ex.config_value = 0;
	d->ex.n_configs = d->dev_desc[17];
	return d;
fail:
	uip_dev_close(d);
	return NULL;
}

void
uip_dev_close(struct uip_dev *d)
{
	if (d == NULL)
		return;
	if (d->m != NULL) {
		uip_dev_detach(d);
		d->ops->close(d->m);
	}
	free(d);
}

const char *
uip_dev_busid(const struct uip_dev *d)
{
	return d->busid;
}

struct ch39x_usb_dev *
uip_dev_model(struct uip_dev *d)
{
	return d->m;
}

void
uip_dev_exported(const struct uip_dev *d, struct usbip_exported *e)
{
	*e = d->ex;
}

/* ---- URBs in flight ---- */

static struct uip_urb *
urb_of(struct ch39x_xfer *x)
{
	return x->user;
}

static void
ep_push(struct uip_ep *e, struct uip_urb *u)
{
	u->next = NULL;
	if (e->tail != NULL)
		e->tail->next = u;
	else
		e->head = u;
	e->tail = u;
	e->n++;
}

/* Take u out of its endpoint's list (the model completes in order). */
static void
ep_unlink(struct uip_ep *e, struct uip_urb *u)
{
	struct uip_urb **pp = &e->head, *prev = NULL;

	while (*pp != NULL && *pp != u) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if (*pp == NULL)
		return;
	*pp = u->next;
	if (e->tail == u)
		e->tail = prev;
	e->n--;
}

static int32_t
linux_status(enum ch39x_xfer_status s)
{
	switch (s) {
	case CH39X_XFER_OK:
		return 0;
	case CH39X_XFER_STALL:
		return -EPIPE;
	case CH39X_XFER_TIMEOUT:
		return -ETIMEDOUT;
	case CH39X_XFER_OVERFLOW:
		return -EOVERFLOW;
	case CH39X_XFER_CANCELLED:
		return -ECONNRESET;
	case CH39X_XFER_NO_DEVICE:
		return -ESHUTDOWN;
	default:
		return -EPROTO;
	}
}

static int
reply(struct uip_dev *d, uint32_t seqnum, int32_t status,
      const uint8_t *data, uint32_t len)
{
	uint8_t hdr[USBIP_HDR_LEN];

	usbip_build_ret_submit(hdr, seqnum, status, len);
	if (d->send == NULL)
		return 0;
	return d->send(d->arg, hdr, data, data != NULL ? len : 0);
}

/* RET_SUBMIT of a URB the model finished; it is freed. */
static int
give_back(struct uip_dev *d, enum ch39x_ep k, struct uip_urb *u)
{
	struct ch39x_xfer *x = &u->x;
	bool in = k != CH39X_EP_BULK_OUT;
	int32_t status = linux_status(x->status);
	uint32_t actual = x->actual <= x->len ? x->actual : x->len;
	int rc;

	d->st.completed[k]++;
	if (status == 0 && in && actual < x->len &&
	    (u->flags & USBIP_URB_SHORT_NOT_OK)) {
		status = -EREMOTEIO;
		d->st.short_refused++;
	}
	if (status != 0)
		d->st.failed[k]++;
	d->st.bytes[k] += actual;
	rc = reply(d, u->seqnum, status, in ? x->buf : NULL, actual);
	free(u);
	return rc;
}

/* Everything the model has finished on endpoint k. */
static int
drain(struct uip_dev *d, enum ch39x_ep k)
{
	struct ch39x_xfer *done[UIP_POLL_BURST];
	unsigned int n, i;
	int given = 0;

	do {
		n = d->ops->poll(d->m, k, done, UIP_POLL_BURST);
		for (i = 0; i < n; i++) {
			struct uip_urb *u = urb_of(done[i]);

			ep_unlink(&d->ep[k], u);
			if (u->unlinked) {
				free(u);
				continue;
			}
			if (give_back(d, k, u) != 0)
				return -1;
			given++;
		}
	} while (n == UIP_POLL_BURST);
	return given;
}

int
uip_dev_service(struct uip_dev *d)
{
	int k, r, given = 0;

	for (k = 0; k < CH39X_EP_COUNT; k++) {
		if (d->ep[k].n == 0)
			continue;
		r = drain(d, (enum ch39x_ep)k);
		if (r < 0)
			return -1;
		given += r;
	}
	return given;
}

/*
 * Cancel every URB of endpoint k and forget them without a reply (the
 * client is gone, or the host reset the endpoint with them in flight).
 */
static void
ep_flush(struct uip_dev *d, enum ch39x_ep k)
{
	struct ch39x_xfer *done[UIP_POLL_BURST];
	unsigned int n, i;

	if (d->ep[k].n == 0)
		return;
	d->ops->cancel_all(d->m, k);
	do {
		n = d->ops->poll(d->m, k, done, UIP_POLL_BURST);
		for (i = 0; i < n; i++) {
			ep_unlink(&d->ep[k], urb_of(done[i]));
			free(urb_of(done[i]));
			d->st.dropped_at_detach++;
		}
	} while (n != 0);
}

/* ---- attach and detach ---- */

static void
reset_function(struct uip_dev *d)
{
	int k;

	for (k = 0; k < CH39X_EP_COUNT; k++)
		ep_flush(d, (enum ch39x_ep)k);
	memset(d->cur_alt, 0, sizeof(d->cur_alt));
	/* The CDC models' reset; the vendor model has no settings. */
	if (d->ops->set_data_alt != NULL)
		(void)d->ops->set_data_alt(d->m, 0);
}

void
uip_dev_attach(struct uip_dev *d, uip_send_fn send, void *arg)
{
	d->send = send;
	d->arg = arg;
	d->configured = false;
	d->ex.config_value = 0;
	d->st.attaches++;
}

void
uip_dev_detach(struct uip_dev *d)
{
	if (d->send != NULL)
		d->st.detaches++;
	d->send = NULL;
	d->arg = NULL;
	reset_function(d);
	d->configured = false;
	d->ex.config_value = 0;
}

bool
uip_dev_attached(const struct uip_dev *d)
{
	return d->send != NULL;
}

/* ---- control transfers ---- */

/* The transport endpoint at address addr, or CH39X_EP_COUNT. */
static enum ch39x_ep
ep_at(const struct uip_dev *d, uint8_t addr)
{
	int k;

	for (k = 0; k < CH39X_EP_COUNT; k++)
		if (addr != 0 && d->ep[k].addr == addr)
			return (enum ch39x_ep)k;
	return CH39X_EP_COUNT;
}

static int
set_interface(struct uip_dev *d, uint8_t num, uint8_t alt)
{
	int k, rc;
	bool data = false;

	if (!d->configured || num >= UIP_MAX_IFS || alt >= d->n_alts[num])
		return -EPIPE;
	d->st.set_interface++;
	for (k = 0; k < CH39X_EP_COUNT; k++) {
		if (d->ep[k].addr == 0 || d->ep[k].iface != num)
			continue;
		/* Linux killed them before asking; were any left, drop them. */
		ep_flush(d, (enum ch39x_ep)k);
		data |= k != CH39X_EP_INTR_IN;
	}
	/*
	 * The interface with the bulk pair is the model's data interface;
	 * one with a single setting has nothing to change.
	 */
	if (data && d->n_alts[num] > 1) {
		rc = d->ops->set_data_alt(d->m, alt);
		if (rc != 0)
			return -EPIPE;
	}
	d->cur_alt[num] = alt;
	return 0;
}

static int
set_configuration(struct uip_dev *d, uint16_t value)
{
	if (value != 0 && value != d->cfg_value)
		return -EPIPE;
	d->st.set_config++;
	reset_function(d);
	d->configured = value != 0;
	d->ex.config_value = (uint8_t)value;
	return 0;
}

/*
 * A GET_* request's answer v of len bytes, in a data stage of n (what the
 * SETUP and the URB allow): its first bytes, as a device sends them.
 */
static int
std_answer(uint8_t *buf, uint16_t n, const uint8_t *v, uint16_t len)
{
	uint16_t k = len < n ? len : n;

	memcpy(buf, v, k);
	return k;
}

/*
 * The standard requests the device framework answers itself; -ENOENT for
 * the others (GET_DESCRIPTOR, which the model answers). Returns the bytes
 * of the data stage (at most n), or -EPIPE to stall.
 */
static int
std_request(struct uip_dev *d, const struct usbip_setup *s, uint8_t *buf,
	    uint16_t n)
{
	uint8_t v[2] = { 0, 0 };
	enum ch39x_ep k;

	switch (s->request) {
	case CH39X_USB_REQ_GET_STATUS:
		if (s->length < 2)
			return -EPIPE;
		/* Bus powered, no remote wake-up; endpoints not halted. */
		return std_answer(buf, n, v, 2);
	case CH39X_USB_REQ_CLEAR_FEATURE:
		if (s->type != CH39X_USB_RT_STD_OUT_EP)
			return 0;	/* remote wake-up, U1/U2: nothing */
		k = ep_at(d, (uint8_t)s->index);
		if (s->value != CH39X_USB_FEAT_ENDPOINT_HALT ||
		    k == CH39X_EP_COUNT)
			return -EPIPE;
		d->st.clear_halt++;
		return d->ops->clear_halt(d->m, k) == 0 ? 0 : -EPIPE;
	case CH39X_USB_REQ_SET_FEATURE:
	case CH39X_USB_REQ_SET_ADDRESS:
	case REQ_SET_SEL:
	case REQ_SET_ISOCH_DELAY:
		return 0;
	case CH39X_USB_REQ_GET_CONFIGURATION:
		if (s->length < 1)
			return -EPIPE;
		v[0] = d->configured ? d->cfg_value : 0;
		return std_answer(buf, n, v, 1);
	case CH39X_USB_REQ_SET_CONFIGURATION:
		return set_configuration(d, s->value);
	case CH39X_USB_REQ_GET_INTERFACE:
		if (s->length < 1 || s->index >= UIP_MAX_IFS ||
		    d->n_alts[s->index] == 0)
			return -EPIPE;
		v[0] = d->cur_alt[s->index];
		return std_answer(buf, n, v, 1);
	case CH39X_USB_REQ_SET_INTERFACE:
		return set_interface(d, (uint8_t)s->index, (uint8_t)s->value);
	default:
		return -ENOENT;
	}
}

/* A request for the model (class, vendor, GET_DESCRIPTOR), counted. */
static int
model_request(struct uip_dev *d, const struct usbip_setup *s, uint8_t *buf,
	      uint16_t n)
{
	int kind = (s->type & RT_TYPE_MASK) == 0x40 ? 1 : 0;
	int rc;

	if ((s->type & RT_TYPE_MASK) != 0)
		d->st.req[kind][s->request]++;
	rc = d->ops->control(d->m, s->type, s->request, s->value, s->index,
			     buf, n, 1000);
	if (rc < 0 && (s->type & RT_TYPE_MASK) != 0)
		d->st.req_stalled[kind][s->request]++;
	if (rc < 0)
		return -EPIPE;
	return rc <= n ? rc : n;
}

static int
control(struct uip_dev *d, const struct usbip_cmd *c, const uint8_t *payload)
{
	struct usbip_setup s;
	uint8_t *buf;
	uint16_t n;
	int rc;

	usbip_setup_parse(c->setup, &s);
	d->st.ctrl++;
	/*
	 * The data stage is what both the SETUP and the URB allow; OUT, no
	 * more than the peer sent (a header that says IN brings none).
	 */
	n = s.length;
	if ((s.type & RT_DIR_IN) && n > c->length)
		n = (uint16_t)c->length;
	if (!(s.type & RT_DIR_IN) && n > c->payload)
		n = (uint16_t)c->payload;
	buf = calloc(1, n ? n : 1);
	if (buf == NULL)
		return reply(d, c->seqnum, -ENOMEM, NULL, 0);
	if (!(s.type & RT_DIR_IN) && n != 0) {
		memcpy(buf, payload, n);
		d->st.ctrl_out_bytes += n;
	}
	rc = -ENOENT;
	if ((s.type & RT_TYPE_MASK) == 0) {
		d->st.ctrl_std++;
		rc = std_request(d, &s, buf, n);
	}
	if (rc == -ENOENT)
		rc = model_request(d, &s, buf, n);
	if (rc < 0) {
		d->st.ctrl_stalled++;
		free(buf);
		return reply(d, c->seqnum, -EPIPE, NULL, 0);
	}
	if (!(s.type & RT_DIR_IN)) {
		free(buf);
		return reply(d, c->seqnum, 0, NULL, n);
	}
	d->st.ctrl_in_bytes += (uint32_t)rc;
	rc = reply(d, c->seqnum, 0, buf, (uint32_t)rc);
	free(buf);
	return rc;
}

/* ---- bulk and interrupt transfers ---- */

static int
submit(struct uip_dev *d, const struct usbip_cmd *c, const uint8_t *payload)
{
	uint8_t addr = (uint8_t)(c->ep | (c->direction == USBIP_DIR_IN ?
					   0x80 : 0));
	enum ch39x_ep k = ep_at(d, addr);
	struct uip_urb *u;
	int rc;

	/* No such endpoint in the settings the host selected. */
	if (k == CH39X_EP_COUNT || !d->configured ||
	    d->cur_alt[d->ep[k].iface] != d->ep[k].alt) {
		d->st.bad_ep++;
		return reply(d, c->seqnum, -EPIPE, NULL, 0);
	}
	u = calloc(1, sizeof(*u) + (c->length ? c->length : 1));
	if (u == NULL)
		return reply(d, c->seqnum, -ENOMEM, NULL, 0);
	u->seqnum = c->seqnum;
	u->flags = c->flags;
	u->x.ep = k;
	u->x.buf = u->data;
	u->x.len = c->length;
	u->x.zlp = (c->flags & USBIP_URB_ZERO_PACKET) != 0;
	u->x.user = u;
	if (c->direction == USBIP_DIR_OUT)
		memcpy(u->data, payload, c->length);
	d->st.submitted[k]++;
	rc = d->ops->submit(d->m, &u->x);
	if (rc != 0) {
		d->st.submit_refused++;
		free(u);
		return reply(d, c->seqnum, rc, NULL, 0);
	}
	ep_push(&d->ep[k], u);
	return 0;
}

/* The URB seqnum in flight, and its endpoint; NULL when none is. */
static struct uip_urb *
find_urb(struct uip_dev *d, uint32_t seqnum, enum ch39x_ep *kp)
{
	struct uip_urb *u;
	int k;

	for (k = 0; k < CH39X_EP_COUNT; k++)
		for (u = d->ep[k].head; u != NULL; u = u->next)
			if (u->seqnum == seqnum && !u->unlinked) {
				*kp = (enum ch39x_ep)k;
				return u;
			}
	return NULL;
}

static int
unlink_reply(struct uip_dev *d, uint32_t seqnum, int32_t status)
{
	uint8_t hdr[USBIP_HDR_LEN];

	usbip_build_ret_unlink(hdr, seqnum, status);
	return d->send != NULL ? d->send(d->arg, hdr, NULL, 0) : 0;
}

/*
 * CMD_UNLINK. The transport cancels a whole endpoint: the IN URBs
 * cancelled beside the one unlinked are submitted again, in their order,
 * and those that had finished are given back as usual. An OUT URB went to
 * the model whole at submit: it is only forgotten.
 */
static int
unlink_urb(struct uip_dev *d, const struct usbip_cmd *c)
{
	struct ch39x_xfer *done[UIP_POLL_BURST];
	struct uip_urb *u, *t;
	enum ch39x_ep k = CH39X_EP_COUNT;
	int32_t status = 0;
	unsigned int n, i;

	d->st.unlinks++;
	t = find_urb(d, c->unlink_seqnum, &k);
	if (t == NULL) {
		d->st.unlinks_late++;
		return unlink_reply(d, c->seqnum, 0);
	}
	if (k == CH39X_EP_BULK_OUT) {
		t->unlinked = true;
		return unlink_reply(d, c->seqnum, -ECONNRESET);
	}
	d->ops->cancel_all(d->m, k);
	do {
		n = d->ops->poll(d->m, k, done, UIP_POLL_BURST);
		for (i = 0; i < n; i++) {
			u = urb_of(done[i]);
			ep_unlink(&d->ep[k], u);
			if (u == t && u->x.status == CH39X_XFER_CANCELLED) {
				status = -ECONNRESET;
				free(u);
			} else if (u->x.status == CH39X_XFER_CANCELLED &&
				   !u->unlinked &&
				   d->ops->submit(d->m, &u->x) == 0) {
				d->st.resubmitted++;
				ep_push(&d->ep[k], u);
			} else if (u->unlinked) {
				free(u);
			} else if (give_back(d, k, u) != 0) {
				return -1;
			}
		}
	} while (n == UIP_POLL_BURST);
	return unlink_reply(d, c->seqnum, status);
}

int
uip_dev_command(struct uip_dev *d, const struct usbip_cmd *c,
		const uint8_t *payload)
{
	if (c->command == USBIP_CMD_UNLINK)
		return unlink_urb(d, c);
	if (c->ep == 0)
		return control(d, c, payload);
	return submit(d, c, payload);
}

/* ---- the wait ---- */

int
uip_dev_wake_fd(struct uip_dev *d)
{
	int fd;

	if (d->ops->rx_wake_fd == NULL)
		return -1;
	fd = d->ops->rx_wake_fd(d->m);
	return fd >= 0 ? fd : -1;
}

void
uip_dev_arm(struct uip_dev *d, bool on)
{
	if (d->ops->rx_arm == NULL)
		return;
	if (on && d->ep[CH39X_EP_BULK_IN].n == 0 &&
	    d->ep[CH39X_EP_INTR_IN].n == 0)
		return;
	d->ops->rx_arm(d->m, on);
}

int
uip_dev_timeout_ms(const struct uip_dev *d)
{
	/* Bulk OUT completes when the model's bus time has passed. */
	if (d->ep[CH39X_EP_BULK_OUT].n != 0)
		return 1;
	/* At line rate, IN waits for the bus too, with no wake-up. */
	if (d->line_rate && d->ep[CH39X_EP_BULK_IN].n != 0)
		return 1;
	/* A notification that follows another one comes at the next poll. */
	if (d->ep[CH39X_EP_INTR_IN].n != 0 || d->ep[CH39X_EP_BULK_IN].n != 0)
		return 100;
	return -1;
}

/* ---- counters ---- */

/* The server's counters of a device, by name. */
#define ST_(f) { #f, offsetof(struct uip_stats, f) }
static const struct {
	const char *name;
	size_t off;
} st_fields[] = {
	ST_(attaches), ST_(detaches), ST_(ctrl), ST_(ctrl_std),
	ST_(ctrl_stalled), ST_(ctrl_in_bytes), ST_(ctrl_out_bytes),
	ST_(set_config), ST_(set_interface), ST_(clear_halt),
	ST_(short_refused), ST_(submit_refused), ST_(bad_ep), ST_(unlinks),
	ST_(unlinks_late), ST_(resubmitted), ST_(dropped_at_detach),
};
#undef ST_

/* The model's counters the server reports (prefix model_). */
#define MC_(f) { #f, offsetof(struct ch39x_sim_counters, f) }
static const struct {
	const char *name;
	size_t off;
} model_fields[] = {
	MC_(wire_rx_frames), MC_(rx_filtered), MC_(rx_oversize),
	MC_(rx_delivered), MC_(tx_frames), MC_(tx_bad_records),
	MC_(tx_oversize), MC_(tx_wire_dropped), MC_(tx_link_down),
	MC_(cdc_notifications), MC_(events_sent), MC_(ctrl_requests),
	MC_(ctrl_stalls),
};
#undef MC_

static uint64_t
u64_at(const void *base, size_t off)
{
	uint64_t v;

	memcpy(&v, (const char *)base + off, sizeof(v));
	return v;
}

void
uip_dev_stats(struct uip_dev *d, FILE *f)
{
	static const char *const epn[CH39X_EP_COUNT] = {
		"bulk_in", "bulk_out", "intr_in",
	};
	static const char *const kind[2] = { "class", "vendor" };
	struct ch39x_sim_counters mc;
	const struct uip_stats *s = &d->st;
	const char *b = d->busid;
	size_t i;
	int k, r;

	fprintf(f, "%s.attached=%d\n%s.configured=%d\n", b, d->send != NULL,
		b, d->configured);
	for (i = 0; i < sizeof(st_fields) / sizeof(st_fields[0]); i++)
		fprintf(f, "%s.%s=%llu\n", b, st_fields[i].name,
			(unsigned long long)u64_at(s, st_fields[i].off));
	for (k = 0; k < CH39X_EP_COUNT; k++) {
		fprintf(f, "%s.%s_submitted=%llu\n%s.%s_completed=%llu\n"
			"%s.%s_failed=%llu\n%s.%s_bytes=%llu\n%s.%s_in_flight=%u\n",
			b, epn[k], (unsigned long long)s->submitted[k],
			b, epn[k], (unsigned long long)s->completed[k],
			b, epn[k], (unsigned long long)s->failed[k],
			b, epn[k], (unsigned long long)s->bytes[k],
			b, epn[k], d->ep[k].n);
	}
	/* Class and vendor requests seen: "class_req_0x87=2". */
	for (k = 0; k < 2; k++)
		for (r = 0; r < 256; r++)
			if (s->req[k][r] != 0)
				fprintf(f, "%s.%s_req_0x%02x=%u\n%s.%s_stall_0x%02x=%u\n",
					b, kind[k], r, s->req[k][r],
					b, kind[k], r, s->req_stalled[k][r]);
	ch39x_sim_get_counters(d->m, &mc);
	for (i = 0; i < sizeof(model_fields) / sizeof(model_fields[0]); i++)
		fprintf(f, "%s.model_%s=%llu\n", b, model_fields[i].name,
			(unsigned long long)u64_at(&mc, model_fields[i].off));
}
