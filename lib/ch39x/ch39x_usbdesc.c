/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * USB standard descriptors as a device sends them. Layouts: USB 2.0
 * tables 9-8 (device), 9-10 (configuration), 9-12 (interface), 9-13
 * (endpoint), 9-15/9-16 (string), the IAD ECN; USB 3.2 tables 9-12 (BOS),
 * 9-14 (USB 2.0 extension), 9-15 (SuperSpeed capability), 9-27 (endpoint
 * companion).
 */

#include <string.h>

#include "ch39x_usbdesc.h"
#include "ch39x_vendor.h"	/* ch39x_put_le16(), inline only */

#define USB_DT_STRING		0x03
#define USB_DT_INTERFACE	0x04
#define USB_DT_ENDPOINT		0x05
#define USB_DT_IAD		0x0B
#define USB_DT_DEVICE_CAP	0x10
#define USB_CAP_USB20_EXT	0x02
#define USB_CAP_SS_USB		0x03
#define USB_BOS_LEN		5
#define USB_CAP_USB20_EXT_LEN	7
#define USB_CAP_SS_USB_LEN	10
/* bmAttributes of a configuration: bit 7 is reserved and set. */
#define USB_CFG_ATT_ONE		0x80

uint32_t
ch39x_usb_build_device(const struct ch39x_usb_dev_desc *d, uint8_t *buf,
		       uint32_t cap)
{
	uint8_t *p = buf;

	if (cap < CH39X_USB_DT_DEVICE_LEN)
		return 0;
	p[0] = CH39X_USB_DT_DEVICE_LEN;
	p[1] = CH39X_USB_DT_DEVICE;
	/* bcdUSB; bMaxPacketSize0 is 512 bytes (2^9) at SuperSpeed. */
	ch39x_put_le16(p + 2, d->super ? 0x0300 : 0x0200);
	p[4] = d->dev_class;
	p[5] = d->dev_subclass;
	p[6] = d->dev_protocol;
	p[7] = d->super ? 9 : 64;
	ch39x_put_le16(p + 8, d->vid);
	ch39x_put_le16(p + 10, d->pid);
	ch39x_put_le16(p + 12, d->bcd_device);
	p[14] = d->i_manufacturer;
	p[15] = d->i_product;
	p[16] = d->i_serial;
	p[17] = d->n_configs;
	return CH39X_USB_DT_DEVICE_LEN;
}

/* Room for n more bytes, or NULL (and full) when there is none. */
static uint8_t *
cfg_put(struct ch39x_usb_cfg_builder *b, uint32_t n)
{
	uint8_t *p;

	if (b->full || n > b->cap - b->len) {
		b->full = true;
		return NULL;
	}
	p = b->buf + b->len;
	b->len += n;
	return p;
}

void
ch39x_usb_cfg_begin(struct ch39x_usb_cfg_builder *b, uint8_t *buf,
		    uint32_t cap, bool super, uint8_t cfg_value,
		    uint16_t max_power_ma)
{
	uint8_t *p;

	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->cap = cap;
	b->super = super;
	p = cfg_put(b, CH39X_USB_DT_CONFIG_LEN);
	if (p == NULL)
		return;
	p[0] = CH39X_USB_DT_CONFIG_LEN;
	p[1] = 0x02;		/* CONFIGURATION */
	p[2] = p[3] = 0;	/* wTotalLength: at the end */
	p[4] = 0;		/* bNumInterfaces: at the end */
	p[5] = cfg_value;
	p[6] = 0;		/* iConfiguration */
	p[7] = USB_CFG_ATT_ONE;	/* bus powered, no remote wake-up */
	/* bMaxPower: units of 2 mA, of 8 mA at SuperSpeed. */
	p[8] = (uint8_t)(super ? max_power_ma / 8u : max_power_ma / 2u);
}

void
ch39x_usb_cfg_iad(struct ch39x_usb_cfg_builder *b, uint8_t first,
		  uint8_t count, uint8_t cls, uint8_t sub, uint8_t proto)
{
	uint8_t *p = cfg_put(b, CH39X_USB_DT_IAD_LEN);

	if (p == NULL)
		return;
	p[0] = CH39X_USB_DT_IAD_LEN;
	p[1] = USB_DT_IAD;
	p[2] = first;
	p[3] = count;
	p[4] = cls;
	p[5] = sub;
	p[6] = proto;
	p[7] = 0;		/* iFunction */
}

void
ch39x_usb_cfg_interface(struct ch39x_usb_cfg_builder *b, uint8_t num,
			uint8_t alt, uint8_t n_eps, uint8_t cls, uint8_t sub,
			uint8_t proto)
{
	uint8_t *p = cfg_put(b, CH39X_USB_DT_INTERFACE_LEN);

	if (p == NULL)
		return;
	p[0] = CH39X_USB_DT_INTERFACE_LEN;
	p[1] = USB_DT_INTERFACE;
	p[2] = num;
	p[3] = alt;
	p[4] = n_eps;
	p[5] = cls;
	p[6] = sub;
	p[7] = proto;
	p[8] = 0;		/* iInterface */
	if (num < 32)
		b->ifs_seen |= 1u << num;
}

void
ch39x_usb_cfg_endpoint(struct ch39x_usb_cfg_builder *b, uint8_t addr,
		       uint8_t attrs, uint16_t maxp, uint8_t interval)
{
	uint8_t *p = cfg_put(b, CH39X_USB_DT_ENDPOINT_LEN);

	if (p == NULL)
		return;
	p[0] = CH39X_USB_DT_ENDPOINT_LEN;
	p[1] = USB_DT_ENDPOINT;
	p[2] = addr;
	p[3] = attrs;
	ch39x_put_le16(p + 4, maxp);
	p[6] = interval;
	if (!b->super)
		return;
	p = cfg_put(b, CH39X_USB_DT_SS_EP_COMP_LEN);
	if (p == NULL)
		return;
	p[0] = CH39X_USB_DT_SS_EP_COMP_LEN;
	p[1] = CH39X_USB_DT_SS_EP_COMP;
	p[2] = 0;		/* bMaxBurst: one packet */
	p[3] = 0;		/* bmAttributes: no streams, no Mult */
	/* wBytesPerInterval: periodic endpoints only. */
	ch39x_put_le16(p + 4, (attrs & 0x03) == CH39X_USB_EP_INTR ? maxp : 0);
}

void
ch39x_usb_cfg_raw(struct ch39x_usb_cfg_builder *b, const uint8_t *d,
		  uint32_t n)
{
	uint8_t *p = cfg_put(b, n);

	if (p != NULL)
		memcpy(p, d, n);
}

uint32_t
ch39x_usb_cfg_end(struct ch39x_usb_cfg_builder *b)
{
	uint32_t n = 0, m;

	/* wTotalLength is 16 bits. */
	if (b->full || b->len > 0xFFFFu)
		return 0;
	for (m = b->ifs_seen; m != 0; m &= m - 1)
		n++;
	ch39x_put_le16(b->buf + 2, (uint16_t)b->len);
	b->buf[4] = (uint8_t)n;
	return b->len;
}

uint32_t
ch39x_usb_build_string(const char *s, uint8_t *buf, uint32_t cap)
{
	size_t n = strlen(s);
	uint32_t len, i;

	if (n > (CH39X_USB_DT_STRING_MAX - 2) / 2)
		n = (CH39X_USB_DT_STRING_MAX - 2) / 2;
	len = 2 + 2 * (uint32_t)n;
	if (cap < len)
		return 0;
	buf[0] = (uint8_t)len;
	buf[1] = USB_DT_STRING;
	for (i = 0; i < n; i++) {
		uint8_t c = (uint8_t)s[i];

		buf[2 + 2 * i] = c < 0x80 ? c : '?';
		buf[3 + 2 * i] = 0;
	}
	return len;
}

uint32_t
ch39x_usb_build_langids(uint8_t *buf, uint32_t cap)
{
	if (cap < 4)
		return 0;
	buf[0] = 4;
	buf[1] = USB_DT_STRING;
	ch39x_put_le16(buf + 2, 0x0409);	/* en-US */
	return 4;
}

uint32_t
ch39x_usb_build_bos(uint8_t *buf, uint32_t cap)
{
	const uint32_t len = USB_BOS_LEN + USB_CAP_USB20_EXT_LEN +
		USB_CAP_SS_USB_LEN;
	uint8_t *p = buf;

	if (cap < len)
		return 0;
	p[0] = USB_BOS_LEN;
	p[1] = CH39X_USB_DT_BOS;
	ch39x_put_le16(p + 2, (uint16_t)len);
	p[4] = 2;			/* bNumDeviceCaps */
	p += USB_BOS_LEN;
	p[0] = USB_CAP_USB20_EXT_LEN;
	p[1] = USB_DT_DEVICE_CAP;
	p[2] = USB_CAP_USB20_EXT;
	ch39x_put_le32(p + 3, 0);	/* bmAttributes: no LPM */
	p += USB_CAP_USB20_EXT_LEN;
	p[0] = USB_CAP_SS_USB_LEN;
	p[1] = USB_DT_DEVICE_CAP;
	p[2] = USB_CAP_SS_USB;
	p[3] = 0;			/* bmAttributes: no LTM */
	ch39x_put_le16(p + 4, 0x000E);	/* full, high, SuperSpeed */
	p[6] = 1;			/* bFunctionalitySupport: full */
	p[7] = 0x0A;			/* bU1DevExitLat: 10 us at most */
	ch39x_put_le16(p + 8, 0x07FF);	/* wU2DevExitLat: 2047 us at most */
	return len;
}

uint32_t
ch39x_usb_desc_reply(const uint8_t *d, uint32_t n, uint8_t *buf,
		     uint16_t length)
{
	uint32_t k = n < length ? n : length;

	memcpy(buf, d, k);
	return k;
}
