/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_ECM_H
#define CH39X_ECM_H

/*
 * CDC-ECM framing: one Ethernet frame per bulk transfer, no header. What is
 * left to check is the frame length and the short-packet rule. Descriptors,
 * the MAC string, SET_ETHERNET_PACKET_FILTER and the notifications
 * (NETWORK_CONNECTION, CONNECTION_SPEED_CHANGE) are shared with NCM in
 * ch39x_cdc.h.
 *
 * Facts: §11-§15, Linux drivers/net/usb/usbnet.c
 * (usbnet_start_xmit padding), cdc_ether.c, and the gadget's u_ether.c.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ch39x_cdc.h"

#define CH39X_ECM_MIN_FRAME	14	/* an Ethernet header */
/*
 * Floor for wMaxSegmentSize: devices that report the MTU (1500) instead of
 * the frame size still send 1514-byte frames; Linux cdc_ncm clamps its
 * datagram size to at least 1514 as well.
 */
#define CH39X_ECM_MIN_SEGMENT	1514

struct ch39x_ecm_cfg {
	uint32_t max_frame;	/* longest frame, no FCS */
	uint16_t in_maxp;	/* bulk IN wMaxPacketSize */
	uint16_t out_maxp;	/* bulk OUT wMaxPacketSize */
	bool zlp;		/* quirk: ZLP instead of a pad byte on TX */
};

/*
 * Fill a config from the walked descriptors: max_frame from
 * wMaxSegmentSize (at least 1514), the bulk endpoints' packet sizes.
 * Returns 0, or -1 when the data endpoints are unknown.
 */
int ch39x_ecm_cfg_init(struct ch39x_ecm_cfg *c, const struct ch39x_cdc_desc *d,
		       bool zlp);

struct ch39x_ecm_rx_stats {
	uint64_t frames;
	uint64_t frame_bytes;
	uint64_t runts;		/* 1..13 bytes */
	uint64_t oversize;	/* longer than max_frame */
	uint64_t zero_len;	/* a ZLP read as a transfer of its own */
	uint64_t pad_trimmed;	/* max_frame + 1 from a padding device */
};

/*
 * Check one completed bulk IN transfer of xfer_len bytes. Returns 1 with
 * *frame_len set, or 0 when it carries no frame (counted). A device that
 * pads instead of sending a ZLP (the Linux gadget without zlp, usbnet on
 * a host) sends max_frame + 1 bytes for a max_frame frame that is a
 * multiple of wMaxPacketSize: that byte is trimmed. Shorter padded frames
 * keep the byte, as any Ethernet receiver ignores trailing padding.
 */
int ch39x_ecm_rx_check(const struct ch39x_ecm_cfg *c,
		       struct ch39x_ecm_rx_stats *st, uint32_t xfer_len,
		       uint32_t *frame_len);

/* Whether a frame may be sent: 14..max_frame bytes. */
bool ch39x_ecm_tx_len_ok(const struct ch39x_ecm_cfg *c, uint32_t len);
/* Bytes a TX buffer needs: max_frame plus the pad byte. */
uint32_t ch39x_ecm_tx_buf_size(const struct ch39x_ecm_cfg *c);

struct ch39x_ecm_tx_end {
	uint32_t len;		/* bytes to send */
	bool zlp;		/* then a zero-length packet */
	bool padded;		/* one zero byte appended */
};

/*
 * The short-packet rule for a frame of len bytes in buf: a multiple of
 * wMaxPacketSize gets a ZLP (zlp quirk) or one zero byte written at
 * buf[len] (usbnet_start_xmit without FLAG_SEND_ZLP, the default).
 */
struct ch39x_ecm_tx_end ch39x_ecm_tx_finish(const struct ch39x_ecm_cfg *c,
					    uint8_t *buf, uint32_t len);

#endif /* CH39X_ECM_H */
