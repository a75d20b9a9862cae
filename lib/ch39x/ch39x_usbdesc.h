/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_USBDESC_H
#define CH39X_USBDESC_H

/*
 * USB standard descriptors as a device sends them (USB 2.0 chapter 9, USB
 * 3.2 chapter 9): the device descriptor, a configuration descriptor put
 * together a descriptor at a time, string descriptors and the BOS. The
 * device's side of what ch39x_cdc_parse_config walks: the simulated
 * adapter answers GET_DESCRIPTOR with these, so that a real host stack
 * (USB/IP to Linux, app/ch39x-usbip) can enumerate it. Pure functions over
 * buffers; nothing is written past cap.
 */

#include <stdbool.h>
#include <stdint.h>

#define CH39X_USB_DT_DEVICE		0x01
#define CH39X_USB_DT_DEVICE_QUALIFIER	0x06
#define CH39X_USB_DT_BOS		0x0F
#define CH39X_USB_DT_SS_EP_COMP		0x30
#define CH39X_USB_DT_DEVICE_LEN		18
#define CH39X_USB_DT_CONFIG_LEN		9
#define CH39X_USB_DT_INTERFACE_LEN	9
#define CH39X_USB_DT_ENDPOINT_LEN	7
#define CH39X_USB_DT_IAD_LEN		8
#define CH39X_USB_DT_SS_EP_COMP_LEN	6
/* The longest string descriptor: bLength is one byte. */
#define CH39X_USB_DT_STRING_MAX		254

/* bmAttributes of an endpoint. */
#define CH39X_USB_EP_BULK		0x02
#define CH39X_USB_EP_INTR		0x03

/* The standard requests a device answers (bRequest). */
#define CH39X_USB_REQ_GET_STATUS	0x00
#define CH39X_USB_REQ_CLEAR_FEATURE	0x01
#define CH39X_USB_REQ_SET_FEATURE	0x03
#define CH39X_USB_REQ_SET_ADDRESS	0x05
#define CH39X_USB_REQ_GET_DESCRIPTOR	0x06
#define CH39X_USB_REQ_GET_CONFIGURATION	0x08
#define CH39X_USB_REQ_SET_CONFIGURATION	0x09
#define CH39X_USB_REQ_GET_INTERFACE	0x0A
#define CH39X_USB_REQ_SET_INTERFACE	0x0B
/* bmRequestType of standard requests, by recipient. */
#define CH39X_USB_RT_STD_IN_DEV		0x80
#define CH39X_USB_RT_STD_IN_IF		0x81
#define CH39X_USB_RT_STD_IN_EP		0x82
#define CH39X_USB_RT_STD_OUT_DEV	0x00
#define CH39X_USB_RT_STD_OUT_IF		0x01
#define CH39X_USB_RT_STD_OUT_EP		0x02
/* CLEAR_FEATURE(ENDPOINT_HALT): wValue. */
#define CH39X_USB_FEAT_ENDPOINT_HALT	0x00

/* What the device descriptor says. */
struct ch39x_usb_dev_desc {
	bool super;		/* bcdUSB 3.2 and a 512-byte EP0, else 2.0/64 */
	uint8_t dev_class;
	uint8_t dev_subclass;
	uint8_t dev_protocol;
	uint16_t vid;
	uint16_t pid;
	uint16_t bcd_device;
	uint8_t i_manufacturer;
	uint8_t i_product;
	uint8_t i_serial;
	uint8_t n_configs;
};

/* Returns the descriptor's length (18), or 0 when cap is too small. */
uint32_t ch39x_usb_build_device(const struct ch39x_usb_dev_desc *d,
				uint8_t *buf, uint32_t cap);

/*
 * A configuration descriptor, one descriptor at a time: begin, then the
 * IADs, interfaces, endpoints and class-specific ones in the order they go
 * on the wire, then end, which fills in wTotalLength and bNumInterfaces
 * (the distinct interface numbers seen). A descriptor that does not fit
 * makes end return 0; nothing is written past cap.
 */
struct ch39x_usb_cfg_builder {
	uint8_t *buf;
	uint32_t cap;
	uint32_t len;
	bool full;
	bool super;		/* endpoints get SuperSpeed companions */
	uint32_t ifs_seen;	/* interface numbers 0..31, as a mask */
};

void ch39x_usb_cfg_begin(struct ch39x_usb_cfg_builder *b, uint8_t *buf,
			 uint32_t cap, bool super, uint8_t cfg_value,
			 uint16_t max_power_ma);
void ch39x_usb_cfg_iad(struct ch39x_usb_cfg_builder *b, uint8_t first,
		       uint8_t count, uint8_t cls, uint8_t sub, uint8_t proto);
void ch39x_usb_cfg_interface(struct ch39x_usb_cfg_builder *b, uint8_t num,
			     uint8_t alt, uint8_t n_eps, uint8_t cls,
			     uint8_t sub, uint8_t proto);
/*
 * An endpoint; at SuperSpeed followed by its companion (no bursts;
 * wBytesPerInterval one packet for an interrupt endpoint).
 */
void ch39x_usb_cfg_endpoint(struct ch39x_usb_cfg_builder *b, uint8_t addr,
			    uint8_t attrs, uint16_t maxp, uint8_t interval);
/* Any other descriptor (class-specific ones), as bytes: p[0] is bLength. */
void ch39x_usb_cfg_raw(struct ch39x_usb_cfg_builder *b, const uint8_t *p,
		       uint32_t n);
/* Returns wTotalLength, or 0 when something did not fit. */
uint32_t ch39x_usb_cfg_end(struct ch39x_usb_cfg_builder *b);

/*
 * A string descriptor from ASCII text (UTF-16LE, bytes above 0x7F become
 * '?'), cut at CH39X_USB_DT_STRING_MAX; index 0's language list is
 * ch39x_usb_build_langids (en-US). Return the length, or 0 when cap is too
 * small for the whole descriptor.
 */
uint32_t ch39x_usb_build_string(const char *s, uint8_t *buf, uint32_t cap);
uint32_t ch39x_usb_build_langids(uint8_t *buf, uint32_t cap);

/*
 * The BOS of a SuperSpeed device: the USB 2.0 extension (no LPM) and the
 * SuperSpeed capability (full, high and SuperSpeed; U1/U2 exit latencies
 * at the largest values the specification allows). Returns its length, or
 * 0 when cap is too small.
 */
uint32_t ch39x_usb_build_bos(uint8_t *buf, uint32_t cap);

/*
 * Answer a standard GET_DESCRIPTOR of length bytes with a whole descriptor
 * d of n bytes: what fits of it goes to buf. Returns the bytes copied.
 */
uint32_t ch39x_usb_desc_reply(const uint8_t *d, uint32_t n, uint8_t *buf,
			      uint16_t length);

#endif /* CH39X_USBDESC_H */
