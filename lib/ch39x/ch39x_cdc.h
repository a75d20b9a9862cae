/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_CDC_H
#define CH39X_CDC_H

/*
 * What CDC-ECM and CDC-NCM share: class codes and requests, a walker over
 * a raw configuration descriptor that finds the communication interface,
 * its functional descriptors and the data interface's endpoints, the
 * iMACAddress string, SET_ETHERNET_PACKET_FILTER bits and the interrupt
 * endpoint notifications. Pure functions over buffers, like
 * ch39x_vendor.h; every length a device sends is checked before use.
 *
 * Facts: §11-§15, checked against Linux
 * include/uapi/linux/usb/cdc.h, drivers/net/usb/usbnet.c, cdc_ether.c,
 * cdc_ncm.c and drivers/usb/core/message.c (cdc_parse_cdc_header).
 */

#include <stdbool.h>
#include <stdint.h>

/* Interface classes and subclasses. */
#define CH39X_CDC_CLASS_COMM		0x02
#define CH39X_CDC_CLASS_DATA		0x0A
#define CH39X_CDC_SUBCLASS_ECM		0x06
#define CH39X_CDC_SUBCLASS_NCM		0x0D
#define CH39X_CDC_SUBCLASS_MBIM		0x0E
#define CH39X_CDC_NCM_PROTO_NTB		0x01	/* NCM data if */

/* Standard descriptor types. */
#define CH39X_USB_DT_CONFIG		0x02
#define CH39X_USB_DT_STRING		0x03
#define CH39X_USB_DT_INTERFACE		0x04
#define CH39X_USB_DT_ENDPOINT		0x05
#define CH39X_USB_DT_IAD		0x0B
#define CH39X_USB_DT_CS_INTERFACE	0x24

/* Functional descriptor subtypes and their minimum bLength. */
#define CH39X_CDC_FD_HEADER		0x00
#define CH39X_CDC_FD_UNION		0x06
#define CH39X_CDC_FD_ETHERNET		0x0F
#define CH39X_CDC_FD_NCM		0x1A
#define CH39X_CDC_FD_HEADER_LEN		5
#define CH39X_CDC_FD_UNION_LEN		5
#define CH39X_CDC_FD_ETHERNET_LEN	13
#define CH39X_CDC_FD_NCM_LEN		6

/* bmNetworkCapabilities of the NCM functional descriptor. */
#define CH39X_NCM_CAP_ETH_FILTER	(1u << 0)
#define CH39X_NCM_CAP_NET_ADDRESS	(1u << 1)
#define CH39X_NCM_CAP_ENCAP_CMD		(1u << 2)
#define CH39X_NCM_CAP_MAX_DATAGRAM	(1u << 3)
#define CH39X_NCM_CAP_CRC_MODE		(1u << 4)
#define CH39X_NCM_CAP_NTB_INPUT_8	(1u << 5)

/* Class requests; interface recipient, wIndex = communication interface. */
#define CH39X_CDC_REQT_OUT		0x21
#define CH39X_CDC_REQT_IN		0xA1
#define CH39X_CDC_SET_ETH_MC_FILTERS	0x40
#define CH39X_CDC_SET_ETH_PKT_FILTER	0x43
#define CH39X_CDC_GET_ETH_STATISTIC	0x44
#define CH39X_CDC_GET_NTB_PARAMETERS	0x80
#define CH39X_CDC_GET_NET_ADDRESS	0x81
#define CH39X_CDC_SET_NET_ADDRESS	0x82
#define CH39X_CDC_GET_NTB_FORMAT	0x83
#define CH39X_CDC_SET_NTB_FORMAT	0x84
#define CH39X_CDC_GET_NTB_INPUT_SIZE	0x85
#define CH39X_CDC_SET_NTB_INPUT_SIZE	0x86
#define CH39X_CDC_GET_MAX_DATAGRAM	0x87
#define CH39X_CDC_SET_MAX_DATAGRAM	0x88
#define CH39X_CDC_GET_CRC_MODE		0x89
#define CH39X_CDC_SET_CRC_MODE		0x8A

/* SET_ETHERNET_PACKET_FILTER wValue bits (CDC table 62). */
#define CH39X_CDC_PKT_PROMISC		(1u << 0)
#define CH39X_CDC_PKT_ALL_MULTICAST	(1u << 1)
#define CH39X_CDC_PKT_DIRECTED		(1u << 2)
#define CH39X_CDC_PKT_BROADCAST		(1u << 3)
#define CH39X_CDC_PKT_MULTICAST		(1u << 4) /* by the list */

/* wNumberMCFilters: bits 14..0 count, bit 15 set = imperfect (hashed). */
#define CH39X_CDC_MC_FILTERS_MASK	0x7FFFu
#define CH39X_CDC_MC_FILTERS_HASHED	0x8000u

/* ---- Configuration descriptor walker ---- */

/*
 * Problems found in a configuration blob (struct ch39x_cdc_desc.errors):
 * MALFORMED	bLength < 2 or past the end; the walk stopped there
 * TOTAL_LEN	wTotalLength differs from the blob length
 * SHORT_DESC	a descriptor shorter than its type needs, ignored
 * DUPLICATE	a second functional descriptor of a kind, ignored
 * UNION_MASTER	the Union's master is not the communication interface
 * NO_CONFIG	the blob does not start with a configuration descriptor
 */
#define CH39X_CDC_E_MALFORMED	(1u << 0)
#define CH39X_CDC_E_TOTAL_LEN	(1u << 1)
#define CH39X_CDC_E_SHORT_DESC	(1u << 2)
#define CH39X_CDC_E_DUPLICATE	(1u << 3)
#define CH39X_CDC_E_UNION_MASTER (1u << 4)
#define CH39X_CDC_E_NO_CONFIG	(1u << 5)

/*
 * Where the data interface number came from (struct ch39x_cdc_desc.flags):
 * the Union, or with no Union an IAD of two interfaces (Linux's fallback).
 */
#define CH39X_CDC_F_DATA_FROM_UNION (1u << 0)
#define CH39X_CDC_F_DATA_FROM_IAD   (1u << 1)

struct ch39x_cdc_desc {
	/* Communication interface (alt 0) and its interrupt IN endpoint. */
	bool have_comm;
	uint8_t comm_if;
	uint8_t comm_subclass;
	uint8_t comm_protocol;
	uint8_t intr_ep;		/* 0 when none */
	uint16_t intr_maxp;
	uint8_t intr_interval;

	bool have_header;
	uint16_t bcd_cdc;

	bool have_union;
	uint8_t union_master;
	uint8_t union_slave;		/* bSlaveInterface0 */

	bool have_ether;
	uint8_t i_mac_address;		/* string index */
	uint32_t eth_stats;		/* bmEthernetStatistics */
	uint16_t max_segment;		/* wMaxSegmentSize */
	uint16_t mc_filters;		/* wNumberMCFilters, raw */
	uint8_t power_filters;

	bool have_ncm;
	uint16_t bcd_ncm;
	uint8_t ncm_caps;		/* bmNetworkCapabilities */

	/* Data interface: the alt setting with one bulk IN and one bulk OUT. */
	bool have_data;			/* data interface number known */
	uint8_t data_if;
	bool have_data_eps;
	uint8_t data_alt;
	uint8_t data_protocol;
	uint8_t bulk_in;
	uint8_t bulk_out;
	uint16_t bulk_in_maxp;
	uint16_t bulk_out_maxp;

	uint32_t errors;		/* CH39X_CDC_E_* */
	uint32_t flags;			/* CH39X_CDC_F_* */
	uint32_t bad_descs;		/* ignored as too short */
	uint32_t malformed_at;		/* offset of E_MALFORMED one */
};

/*
 * Walk a configuration descriptor (as GET_DESCRIPTOR(CONFIGURATION)
 * returns it, wTotalLength bytes) and fill *d for the first CDC
 * communication interface of the given subclass (CH39X_CDC_SUBCLASS_NCM or
 * _ECM; 0 takes the first of either). Functional descriptors count only
 * between that interface's descriptor and the next interface descriptor.
 * Returns 0 when the whole blob was walked, -1 when a malformed descriptor
 * stopped the walk (what was found before it is kept); problems are in
 * d->errors either way. Whether the function is usable is the caller's
 * call: at least have_comm, have_data_eps and, for NCM, have_ncm.
 */
int ch39x_cdc_parse_config(const uint8_t *blob, uint32_t len, uint8_t subclass,
			   struct ch39x_cdc_desc *d);

/*
 * The same walk for one function of a composite device (a modem's NCM
 * beside its serial ports, a dock's NCM and ECM side by side): the
 * communication interface whose bInterfaceNumber is comm_if (-1: the
 * first, as ch39x_cdc_parse_config).
 */
int ch39x_cdc_parse_function(const uint8_t *blob, uint32_t len,
			     uint8_t subclass, int comm_if,
			     struct ch39x_cdc_desc *d);

/*
 * A configuration's network functions: the communication interfaces of
 * subclass NCM or ECM (alt 0), in descriptor order, each with the data
 * interface its walk finds. The interfaces of other functions (ACM serial
 * ports, mass storage, ...) are not theirs.
 */
struct ch39x_cdc_fn {
	uint8_t comm_if;
	uint8_t subclass;	/* CH39X_CDC_SUBCLASS_NCM or _ECM */
	bool have_data;
	uint8_t data_if;
	bool usable;		/* ch39x_cdc_usable() of its walk */
};

/*
 * Fills up to max of them; returns how many the configuration has (more
 * than max when fns was too small). Every length is checked, as in the
 * walk.
 */
unsigned int ch39x_cdc_list_functions(const uint8_t *blob, uint32_t len,
				      struct ch39x_cdc_fn *fns,
				      unsigned int max);

/*
 * The walker's inverse, a device's side: the configuration descriptor of
 * the CDC-NCM/ECM function d describes, as the simulated adapter sends it.
 * An IAD over the two interfaces; the communication interface (class,
 * subclass and protocol of d) with the Header, Union, Ethernet and, with
 * have_ncm, NCM functional descriptors and its interrupt IN endpoint; the
 * data interface's alt 0 without endpoints and alt d->data_alt with the
 * bulk pair (data_alt 0: the pair at alt 0, no other alt). super adds the
 * SuperSpeed endpoint companions. Returns wTotalLength, or 0 when cap is
 * too small.
 */
uint32_t ch39x_cdc_build_config(const struct ch39x_cdc_desc *d,
				uint8_t cfg_value, bool super, uint8_t *buf,
				uint32_t cap);

/*
 * Whether the walked function has what a driver needs, as Linux binds:
 * the communication interface, a data alt setting with both bulk
 * endpoints, the Ethernet functional descriptor, and for NCM the NCM
 * functional descriptor (cdc_ncm_bind_common).
 */
bool ch39x_cdc_usable(const struct ch39x_cdc_desc *d);

/*
 * Parse the iMACAddress string descriptor as GET_DESCRIPTOR(STRING) returns
 * it (bLength, bDescriptorType 3, UTF-16LE): exactly 12 hex digits, as
 * Linux usbnet_get_ethernet_addr requires. Returns 0 or -1.
 */
int ch39x_cdc_parse_mac_string(const uint8_t *desc, uint32_t len,
			       uint8_t mac[6]);

/* ---- SET_ETHERNET_PACKET_FILTER and multicast filters ---- */

/*
 * wValue for SET_ETHERNET_PACKET_FILTER. Directed and broadcast are always
 * on (Linux usbnet_cdc_update_filter). A multicast list uses the device's
 * filters (CH39X_CDC_PKT_MULTICAST, then send SET_ETHERNET_MULTICAST_FILTERS)
 * when it has enough of them (wNumberMCFilters), else all-multicast, which
 * is what Linux always does for a list.
 */
uint16_t ch39x_cdc_packet_filter(bool promisc, bool allmulti,
				 unsigned int n_mc, uint16_t mc_filters);
/*
 * Data stage of SET_ETHERNET_MULTICAST_FILTERS (wValue = n): the addresses
 * back to back. Returns its length, or 0 when cap is too small.
 */
uint32_t ch39x_cdc_mc_filters_build(const uint8_t (*macs)[6], unsigned int n,
				    uint8_t *buf, uint32_t cap);

/* ---- Notifications (interrupt IN) ---- */

#define CH39X_CDC_NOTIFY_HDR_LEN	8
#define CH39X_CDC_NOTIFY_NETWORK_CONNECTION 0x00
#define CH39X_CDC_NOTIFY_RESPONSE_AVAILABLE 0x01
#define CH39X_CDC_NOTIFY_SPEED_CHANGE	0x2A
#define CH39X_CDC_SPEED_CHANGE_LEN	8	/* DLBitRate, ULBitRate */
/* Longest notification kept across two interrupt transfers. */
#define CH39X_CDC_NOTIFY_CARRY_MAX	(CH39X_CDC_NOTIFY_HDR_LEN + 8)

struct ch39x_cdc_notify {
	uint8_t code;		/* bNotificationCode */
	uint16_t value;		/* wValue */
	uint16_t index;		/* wIndex: the interface */
	uint16_t length;	/* wLength */
	bool link_up;		/* NETWORK_CONNECTION */
	uint32_t down_bps;	/* SPEED_CHANGE: downlink (bulk IN) */
	uint32_t up_bps;	/* SPEED_CHANGE: uplink (bulk OUT) */
	bool split;		/* completed from a second transfer */
};

struct ch39x_cdc_notify_stats {
	uint64_t notifications;	/* yielded */
	uint64_t connection;
	uint64_t speed_change;
	uint64_t other;		/* well-formed, code not interpreted */
	uint64_t bad;		/* not bmRequestType 0xA1, bad wLength */
	uint64_t split;		/* completed from the next transfer */
	uint64_t truncated;	/* too long to carry: rest dropped */
};

/*
 * Notification parser over interrupt IN transfers. A notification whose
 * data does not fit in its transfer (SPEED_CHANGE split over two 8-byte
 * packets, as Linux cdc_ncm_status handles with EVENT_STS_SPLIT) is carried
 * and completed from the start of the next transfer. Several notifications
 * in one transfer are yielded in turn.
 */
struct ch39x_cdc_notify_parser {
	const uint8_t *buf;
	uint32_t len;
	uint32_t off;
	uint32_t carry_len;
	struct ch39x_cdc_notify_stats stats;
	uint8_t carry[CH39X_CDC_NOTIFY_CARRY_MAX];
};

void ch39x_cdc_notify_init(struct ch39x_cdc_notify_parser *ps);
void ch39x_cdc_notify_begin(struct ch39x_cdc_notify_parser *ps,
			    const uint8_t *buf, uint32_t len);
/* Returns 1 and fills *n, or 0 when the transfer is used up. */
int ch39x_cdc_notify_next(struct ch39x_cdc_notify_parser *ps,
			  struct ch39x_cdc_notify *n);
/* Forget a carried partial notification (stop, or a failed transfer). */
void ch39x_cdc_notify_reset(struct ch39x_cdc_notify_parser *ps);

/* Build notifications as a device sends them; return their length or 0. */
uint32_t ch39x_cdc_notify_build_connection(uint8_t *buf, uint32_t cap,
					   uint16_t iface, bool up);
uint32_t ch39x_cdc_notify_build_speed(uint8_t *buf, uint32_t cap,
				      uint16_t iface, uint32_t down_bps,
				      uint32_t up_bps);

#endif /* CH39X_CDC_H */
