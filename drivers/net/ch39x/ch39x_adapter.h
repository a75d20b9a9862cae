/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_ADAPTER_H
#define CH39X_ADAPTER_H

/*
 * The port's private data (struct ch39x_adapter, dev->data->dev_private:
 * shared with secondary processes), the accessors of its flags that
 * several threads use, and its device type's ops (ch39x_ops()).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_ether.h>

#include "ch39x_cdc.h"
#include "ch39x_dev_ops.h"
#include "ch39x_devargs.h"
#include "ch39x_ecm.h"
#include "ch39x_ncm.h"
#include "ch39x_rndis.h"
#include "ch39x_sim.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"

#define CH39X_MAX_MC_ADDRS	64

struct ch39x_mbim_port;
struct ch39x_port_ops;
struct ch39x_rxq;

/* What the RNDIS control channel saw (ch39x_rndis_ctrl.c; xstats). */
struct ch39x_rndis_ctrl_stats {
	uint64_t responses;		/* answers read and parsed */
	uint64_t bad_responses;		/* answers that did not parse */
	uint64_t indications;		/* INDICATE_STATUS */
	uint64_t dev_keepalives;	/* the device's KEEPALIVE, answered */
	uint64_t stale;			/* completions of no waiting request */
	uint64_t failed;		/* completions with a failure status */
	uint64_t timeouts;		/* requests never completed */
	uint64_t notifications;		/* RESPONSE_AVAILABLE */
	uint64_t bad_notifications;	/* other interrupt transfers */
	uint64_t keepalives;		/* our KEEPALIVE, sent when idle */
	uint64_t resets;		/* RESET after a failed keepalive */
	uint64_t empty_stalls;		/* reads of an empty response queue */
};

/* An RNDIS device: what INITIALIZE and the queries said (§18). */
struct ch39x_rndis_dev {
	uint32_t req_id;		/* the last RequestId used */
	uint32_t major;
	uint32_t minor;
	uint32_t max_pkts;		/* MaxPacketsPerTransfer */
	uint32_t max_xfer;		/* MaxTransferSize */
	uint32_t align_factor;		/* PacketAlignmentFactor */
	uint32_t max_list;		/* OID_802_3_MAXIMUM_LIST_SIZE */
	uint32_t filter;		/* what the device was told */
	uint32_t sw_filter;		/* what the RX burst applies */
	uint32_t speed;			/* Mbit/s, 0: unknown */
	bool link;
	bool speed_query;		/* ask GEN_LINK_SPEED again */
	uint64_t last_ctrl_tsc;		/* the last exchange, for keepalives */
	struct ch39x_rndis_tx tx_tpl;	/* TX builder as configured */
	struct ch39x_rndis_ctrl_stats st;
	uint8_t resp[CH39X_RNDIS_RESP_MAX];	/* last: not reset at init */
};
struct ch39x_txq;

struct ch39x_adapter {
	struct rte_eth_dev *dev;
	struct ch39x_usb_dev *usb;
	struct ch39x_usb_info info;
	/*
	 * The device type, as an index: dev_private is shared with secondary
	 * processes, where a pointer into this library would not be valid.
	 */
	enum ch39x_framing framing;
	uint32_t caps;			/* CH39X_CAP_* */
	uint32_t speed_capa;		/* RTE_ETH_LINK_SPEED_* */
	/* The chip's profile, with the transfer sizes the devargs chose. */
	struct ch39x_profile prof;
	struct ch39x_args args;
	pthread_mutex_t ctrl_lock;	/* one control sequence at a time */
	uint8_t get_info[CH39X_GET_INFO_LEN];
	bool maccfg_cmd;		/* firmware takes command 0x1E */
	bool started;
	/*
	 * The application sleeps on the Rx interrupt (armed, no traffic),
	 * and the alarm looks only every CH39X_INTR_ARMED_POLL_MS (set by the
	 * alarm, taken back by the disarm: atomics, two threads).
	 */
	bool rx_armed;
	bool alarm_slow;
	/*
	 * The transport calls intr_reaped() when it reaps an interrupt
	 * transfer (ch39x_usb_ops.intr_hook): news set there, taken by the
	 * alarm. Without the hook, a disarm resumes the short period.
	 */
	bool intr_hooked;
	bool intr_news;
	/* The transport's event_rounds after the alarm's last look, and the
	 * RX queue's transfers taken by then. */
	uint64_t intr_rounds;
	uint64_t intr_rx_taken;
	bool gone;			/* the device left the bus */
	bool rmv_sent;
	/*
	 * reconnect=on (ch39x_reconnect.c): the device is gone and the port waits
	 * for it. The bursts drop while absent is set (the control thread
	 * sets and clears it, seq_cst against each queue's busy flag);
	 * resume restarts the port when the device is back, rx_rearm arms
	 * the Rx interrupt again. rc_lock (recursive) orders the reconnect
	 * alarm against start, stop and close.
	 */
	bool absent;
	bool resume;
	bool rx_rearm;
	bool refused_logged;
	bool take_failed_logged;	/* once per return */
	uint32_t reconnect_retry_us;	/* next look, after a failed take */
	bool closing;
	pthread_mutex_t rc_lock;
	/* The port's ops the reconnect calls (primary only, like usb). */
	const struct ch39x_port_ops *port_ops;
	struct ch39x_usb_info id;	/* who the device was at probe */
	struct ch39x_usb_info refused_id; /* the last device refused */
	uint64_t gone_tsc;		/* when it left */
	uint64_t reconnects;		/* returns the port recovered from */
	uint64_t reconnect_last_us;	/* gone to restored, the last time */
	uint64_t reconnect_refused;	/* returns as another device */
	/*
	 * presence=events: the transport's bus descriptor, watched by EAL's
	 * interrupt thread (ch39x_presence.c); NULL: the presence alarm asks.
	 */
	struct rte_intr_handle *bus_intr;
	uint64_t bus_events;		/* news read from it */
	uint64_t presence_polls;	/* GET_STATUS asked (presence alarm) */
	bool is_sim;			/* the simulated adapter */
	bool pause_off;			/* flow_ctrl_set mode none */
	/* rte_eth_dev_set_ptypes(RTE_PTYPE_UNKNOWN): no packet type parse */
	bool rx_ptype_off;
	struct rte_ether_addr mac_addr;
	uint8_t mc[CH39X_MAX_MC_ADDRS][RTE_ETHER_ADDR_LEN];
	uint32_t nb_mc;

	/* Interrupt endpoint, polled by an EAL alarm on the control thread. */
	struct ch39x_xfer intr_xfer;
	uint8_t intr_buf[64];
	struct ch39x_event last_event;
	/* Duplex and autonegotiation of the link, as the device type learnt. */
	bool link_half;
	bool link_fixed;
	uint64_t link_events;
	uint64_t ctrl_errors;
	uint64_t intr_errors;		/* failed interrupt transfers */
	uint64_t intr_polls;		/* looks by the alarm */
	struct ch39x_event evt_base;	/* device counters at stats_reset */

	struct ch39x_rxq *rxq;
	struct ch39x_txq *txq;
	/* The model's counters as of the last poll, for secondaries. */
	struct ch39x_sim_counters sim_snap;

	/*
	 * CDC-NCM and CDC-ECM devices: what the descriptors and the NTB
	 * parameters say, and what was negotiated.
	 */
	struct ch39x_cdc_desc cdc;
	struct ch39x_ncm_ntb_params ntbp;
	bool ntb32;
	uint32_t ntb_in_size;		/* SET_NTB_INPUT_SIZE */
	uint32_t dev_max_dgram;		/* longest datagram the device takes */
	struct ch39x_ncm_tx ncm_tpl;	/* TX builder as configured */
	struct ch39x_ecm_cfg ecm;
	struct rte_ether_addr dev_mac;	/* iMACAddress */
	struct ch39x_cdc_notify_parser notify;
	bool cdc_link;
	uint32_t cdc_speed;		/* Mbit/s, from SPEED_CHANGE */
	uint64_t cdc_notifications;
	struct ch39x_rndis_dev rndis;	/* RNDIS devices */
	/* MBIM: the sessions, their dialer, the Ethernet view (primary). */
	struct ch39x_mbim_port *mbim;
};

/*
 * gone is set by whichever thread sees the device fail (an lcore's burst,
 * EAL's alarm or interrupt thread, the control thread) and read by all; it
 * publishes nothing else, so relaxed. started is written by the control
 * thread after start has set the port up (release) and read by EAL's
 * alarm thread before it touches what start set up (acquire).
 */
static inline bool
ch39x_is_gone(const struct ch39x_adapter *ad)
{
	return __atomic_load_n(&ad->gone, __ATOMIC_RELAXED);
}

static inline void
ch39x_set_gone(struct ch39x_adapter *ad, bool gone)
{
	__atomic_store_n(&ad->gone, gone, __ATOMIC_RELAXED);
}

static inline bool
ch39x_started(const struct ch39x_adapter *ad)
{
	return __atomic_load_n(&ad->started, __ATOMIC_ACQUIRE);
}

static inline void
ch39x_set_started(struct ch39x_adapter *ad, bool started)
{
	__atomic_store_n(&ad->started, started, __ATOMIC_RELEASE);
}

/*
 * A setting the application makes while the device is gone: kept (in
 * dev->data or the adapter) and written when it is back. Not while the
 * reconnect restores the device (gone is clear then).
 */
static inline bool
ch39x_deferred(const struct ch39x_adapter *ad)
{
	return __atomic_load_n(&ad->absent, __ATOMIC_ACQUIRE) && ch39x_is_gone(ad);
}

/* The ops of a port's device type, in this process. */
static inline const struct ch39x_dev_ops *
ch39x_ops(const struct ch39x_adapter *ad)
{
	switch (ad->framing) {
	case CH39X_FRAMING_NCM:
		return &ch39x_ncm_ops;
	case CH39X_FRAMING_ECM:
		return &ch39x_ecm_ops;
	case CH39X_FRAMING_RNDIS:
		return &ch39x_rndis_ops;
	case CH39X_FRAMING_MBIM:
		return &ch39x_mbim_ops;
	default:
		return &ch39x_vendor_ops;
	}
}

#endif /* CH39X_ADAPTER_H */
