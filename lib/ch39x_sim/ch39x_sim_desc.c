/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The simulated adapter's standard descriptors: what a host's USB stack
 * reads with GET_DESCRIPTOR before any driver binds (USB 2.0 §9.4.3), so
 * that the model can be put on a real bus (app/ch39x-usbip serves it to
 * Linux over USB/IP). The device descriptor and the strings are the
 * model's identity (the one a replug as another device changes); the
 * configuration descriptor is the function's (struct sim_model
 * config_desc). ASSUMPTION (§17): the strings, the
 * device class and the power figures are the model's own, not read from a
 * chip; the strings say that the device is simulated.
 */

#include <errno.h>
#include <stdio.h>

#include "ch39x_sim_priv.h"
#include "ch39x_usbdesc.h"

/* Longest descriptor the model sends: a configuration of a few functions. */
#define SIM_DESC_MAX	512

static const char *
chip(const struct sim_dev *s)
{
	const char *n = ch39x_chip_name(s->id_pid);

	return n != NULL ? n : "CH39x";
}

static uint32_t
sim_string(struct sim_dev *s, uint8_t idx, uint8_t *d, uint32_t cap)
{
	char text[96];

	switch (idx) {
	case 0:
		return ch39x_usb_build_langids(d, cap);
	case SIM_STR_MANUFACTURER:
		snprintf(text, sizeof(text), "WCH (simulated)");
		break;
	case SIM_STR_PRODUCT:
		snprintf(text, sizeof(text), "%s USB Ethernet (ch39x model, %s)",
			 chip(s), s->model->name(s));
		break;
	case SIM_STR_SERIAL:
		snprintf(text, sizeof(text), "%s", s->id_serial);
		break;
	default:
		return 0;
	}
	return ch39x_usb_build_string(text, d, cap);
}

int
sim_std_descriptor(struct sim_dev *s, uint8_t req_type, uint8_t request,
		   uint16_t value, uint16_t index, uint8_t *buf,
		   uint16_t length)
{
	struct ch39x_usb_dev_desc dd;
	uint8_t d[SIM_DESC_MAX];
	uint8_t type = (uint8_t)(value >> 8), idx = (uint8_t)value;
	bool super = s->prof.speed == CH39X_SPEED_SUPER;
	uint32_t n = 0;

	if (req_type != CH39X_USB_RT_STD_IN_DEV ||
	    request != CH39X_USB_REQ_GET_DESCRIPTOR)
		return -ENOENT;
	switch (type) {
	case CH39X_USB_DT_DEVICE:
		if (idx != 0 || index != 0)
			return -EPIPE;
		memset(&dd, 0, sizeof(dd));
		dd.super = super;
		dd.dev_class = s->model->dev_class;
		dd.dev_subclass = s->model->dev_subclass;
		dd.dev_protocol = s->model->dev_protocol;
		dd.vid = CH39X_VID;
		dd.pid = s->id_pid;
		dd.bcd_device = 0x0100;
		dd.i_manufacturer = SIM_STR_MANUFACTURER;
		dd.i_product = SIM_STR_PRODUCT;
		dd.i_serial = SIM_STR_SERIAL;
		dd.n_configs = 1;
		n = ch39x_usb_build_device(&dd, d, sizeof(d));
		break;
	case CH39X_USB_DT_CONFIG:
		/* One configuration: index 0. */
		if (idx != 0 || index != 0)
			return -EPIPE;
		n = s->model->config_desc(s, d, sizeof(d));
		break;
	case CH39X_USB_DT_BOS:
		if (!super)
			return -EPIPE;
		n = ch39x_usb_build_bos(d, sizeof(d));
		break;
	case CH39X_USB_DT_STRING:
		/* Index 0 lists the languages; the others are en-US. */
		if (idx > SIM_STR_SERIAL)
			return -ENOENT;	/* the function's own strings */
		if (idx != 0 && index != 0x0409)
			return -EPIPE;
		n = sim_string(s, idx, d, sizeof(d));
		break;
	default:
		/*
		 * DEVICE_QUALIFIER: a device that runs only at the speed it
		 * enumerated at (USB 2.0 §9.6.2) stalls it, as do other
		 * speed configurations.
		 */
		return -EPIPE;
	}
	if (n == 0)
		return -EPIPE;
	return (int)ch39x_usb_desc_reply(d, n, buf, length);
}
