/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_DEV_OPS_H
#define CH39X_DEV_OPS_H

/*
 * The device type's ops (vendor CH397/CH398, CDC-NCM, CDC-ECM) and the
 * capability flags its init sets: what differs by device type, behind
 * ch39x_ops() (ch39x_adapter.h).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_ether.h>

#include "ch39x_usb.h"

struct ch39x_adapter;
struct ch39x_rxq;
struct ch39x_txq;
struct ch39x_xs_table;

/*
 * What a device type does in hardware, set by its init op. The PMD tests
 * these, never the chip family: anything without a bit is done in software.
 */
#define CH39X_CAP_TX_CSUM	(1u << 0)	/* IPv4/TCP/UDP checksums on TX */
#define CH39X_CAP_RX_CSUM	(1u << 1)	/* RX records carry checksum flags */
#define CH39X_CAP_TSO		(1u << 2)	/* TCP segmentation */
#define CH39X_CAP_VLAN_INSERT	(1u << 3)
#define CH39X_CAP_VLAN_STRIP	(1u << 4)
#define CH39X_CAP_PHY		(1u << 5)	/* a PHY the host programs */

/* Frames, frame bytes and malformed units a framing parser has seen. */
struct ch39x_rx_parsed {
	uint64_t frames;
	uint64_t bytes;
	uint64_t malformed;
};

/*
 * One device type: the vendor protocol (CH397, CH398), CDC-NCM or CDC-ECM.
 * Chosen once at probe from what the transport says the function is, in
 * the manner of Linux r8152's rtl_ops and usbnet's driver_info. Control
 * ops run on the control thread with no lock held unless said; the burst
 * functions are installed at dev_start.
 */
struct ch39x_dev_ops {
	const char *name;
	/*
	 * Probe and reset: identify the function, program it, and fill the
	 * profile (transfer sizes, MTU range), caps, speed_capa and mac_addr.
	 */
	int (*init)(struct ch39x_adapter *ad);
	/* Receive filters for this promiscuous/all-multicast state. */
	int (*rx_mode)(struct ch39x_adapter *ad, bool promisc, bool allmulti);
	/* A new port address; sets ad->mac_addr when it succeeds. */
	int (*set_mac)(struct ch39x_adapter *ad,
		       const struct rte_ether_addr *mac);
	/* The MTU into the device (stopped port). */
	int (*mtu)(struct ch39x_adapter *ad, uint16_t mtu);
	/* Pause frames on or off; NULL: the device has no control. */
	int (*pause)(struct ch39x_adapter *ad, bool on);
	/* RX VLAN stripping in the device; NULL without CAP_VLAN_STRIP. */
	int (*vlan_strip)(struct ch39x_adapter *ad, bool on);
	/* Learn the link by asking the device (not started, or at start). */
	void (*link_update)(struct ch39x_adapter *ad);
	/* Link up or down on request; NULL: the device cannot. */
	int (*link_set)(struct ch39x_adapter *ad, bool up);
	/*
	 * Speed, duplex and autonegotiation from rte_eth_conf.link_speeds,
	 * at dev_start; NULL: the device only autonegotiates.
	 */
	int (*link_config)(struct ch39x_adapter *ad, uint32_t link_speeds);
	/* A completed interrupt IN transfer (any status but cancelled). */
	void (*notify)(struct ch39x_adapter *ad, const struct ch39x_xfer *x);
	int (*fw_version)(struct ch39x_adapter *ad, char *fw, size_t size);
	/* The longest frame one TX record carries. */
	uint32_t (*tx_max_frame)(const struct ch39x_adapter *ad);
	/* RX transfer size for an MTU; NULL: the profile's, whatever it. */
	uint32_t (*rx_xfer_size)(const struct ch39x_adapter *ad, uint16_t mtu);
	/* Queue state of the framing (parsers, builders). */
	void (*rxq_init)(struct ch39x_adapter *ad, struct ch39x_rxq *q);
	int (*txq_init)(struct ch39x_adapter *ad, struct ch39x_txq *q);
	/* What the RX parser found, for stats and xstats (any thread). */
	void (*rx_parsed)(const struct ch39x_rxq *q,
			  struct ch39x_rx_parsed *p);
	/* The framing's own xstats, after the common ones. */
	const struct ch39x_xs_table *xstats;
	eth_rx_burst_t rx_burst;
	eth_tx_burst_t tx_burst;
};

extern const struct ch39x_dev_ops ch39x_vendor_ops;
extern const struct ch39x_dev_ops ch39x_ncm_ops;
extern const struct ch39x_dev_ops ch39x_ecm_ops;

#endif /* CH39X_DEV_OPS_H */
