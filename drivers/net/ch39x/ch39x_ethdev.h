/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_ETHDEV_H
#define CH39X_ETHDEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "ch39x_cdc.h"
#include "ch39x_compat.h"
#include "ch39x_devargs.h"
#include "ch39x_ecm.h"
#include "ch39x_ncm.h"
#include "ch39x_sim.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"

#define CH39X_MAX_MC_ADDRS	64
#define CH39X_RX_STASH		64
/* Frame bytes beyond the MTU: Ethernet header and one VLAN tag. */
#define CH39X_L2_OVERHEAD	(RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
/* Longest TSO super-frame: 64 KiB of IP packet plus L2 headers. */
/*
 * How long a TX burst waits for the device to complete a transfer when a
 * super-frame is larger than the queue (ch39x_tx.c): many transfer times
 * even at USB full speed; only a device that stopped draining hits it.
 */
#define CH39X_TX_WAIT_MS	100
/*
 * Removal while the port is not started (ch39x_link.c): how often the
 * device is asked whether it is still there, and how: a standard
 * GET_STATUS request to the device (bmRequestType 0x80, bRequest 0).
 */
#define CH39X_PRESENCE_MS	100
/*
 * Looking for a completed interrupt transfer (link events): at most this
 * long after the device answered (ch39x_link.c, intr_poll_us()).
 */
#ifndef CH39X_INTR_POLL_MS
#define CH39X_INTR_POLL_MS	2
#endif
/*
 * While the application sleeps on the Rx interrupt: the wake-up
 * descriptor fires for the interrupt endpoint too, and reaping that
 * transfer (or the disarm, without the transport's intr_hook) resumes the
 * short period, so this look is only a safety net (an application that
 * polls while armed).
 */
#define CH39X_INTR_ARMED_POLL_MS 1000
#define CH39X_PRESENCE_REQ_TYPE	0x80
#define CH39X_PRESENCE_REQ	0x00
#define CH39X_PRESENCE_TIMEOUT_MS 500
#define CH39X_TSO_MAX_LEN	(65535 + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN)
#define CH39X_TX_OFFLOAD_FLAGS	(RTE_MBUF_F_TX_IP_CKSUM | \
	RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | \
	RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_VLAN)

struct ch39x_adapter;

/* Counters of the RX lcore only, read by the control thread. */
struct ch39x_rx_counters {
	uint64_t packets;
	uint64_t bytes;
	uint64_t nombuf;
	uint64_t usb_xfers;
	uint64_t usb_bytes;
	uint64_t usb_errors;	/* other transfer errors */
	uint64_t usb_stalls;	/* halted endpoint: cleared, resubmitted */
	uint64_t usb_timeouts;
	uint64_t usb_overflows;	/* babble */
	uint64_t mtu_drops;	/* longer than the port's MTU allows */
	uint64_t mbuf_drops;	/* longer than one mbuf, scatter off */
	uint64_t vlan_sw;	/* tags stripped in software */
	uint64_t csum_sw;	/* frames verified in software */
	uint64_t chained;	/* frames delivered as mbuf chains */
	uint64_t zerocopy;	/* frames attached, not copied */
	uint64_t submit_errors;	/* resubmissions the transport refused */
};

struct ch39x_rxq {
	struct ch39x_adapter *ad;
	struct rte_mempool *mp;
	uint16_t port_id;
	uint16_t queue_id;
	/* ECM: the frame of the transfer being read, if not yet taken. */
	bool ecm_ready;
	uint32_t ecm_len;
	const uint8_t *ecm_buf;
	struct ch39x_ecm_rx_stats ecm;
	struct ch39x_ncm_rx ncm;
	bool scatter;
	bool vlan_strip;		/* RTE_ETH_RX_OFFLOAD_VLAN_STRIP */
	bool sw_vlan_strip;
	bool sw_csum;			/* verify checksums in software */
	uint64_t mtu_log_tsc;		/* last oversize log, for rate limiting */
	uint32_t max_frame;		/* MTU + L2 overhead */
	uint16_t data_room;		/* per mbuf, headroom excluded */
	uint16_t nb_xfers;
	struct ch39x_xfer *xfers;
	uint8_t *bufs;
	rte_iova_t bufs_iova;
	struct ch39x_xfer *cur;		/* transfer being parsed */
	/*
	 * Zero-copy RX: frames of copybreak bytes or more are attached to
	 * their transfer buffer as external buffers; the transfer is lent to
	 * the application until the last such mbuf is freed, and comes back
	 * through the returned ring (any thread may free an mbuf).
	 */
	uint32_t copybreak;		/* 0: always copy */
	uint16_t lent;
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_ring *returned;
	/*
	 * What rte_pktmbuf_reset() would leave in the mbuf's rearm_data
	 * (data_off, refcnt 1, nb_segs 1, port), set at start: one store
	 * per mbuf, as DPDK's vector PMDs rearm theirs.
	 */
	uint64_t rearm;
	uint64_t rx_ol[CH39X_RX_CSUM_TAB];	/* rx_ol_table_init() */
	uint16_t stash_n;
	struct rte_mbuf *stash[CH39X_RX_STASH];
	/*
	 * Transfers the transport would not take back (usbfs at its memory
	 * cap: -ENOMEM), tried again at every burst instead of being lost
	 * from the ring.
	 */
	uint16_t nb_parked;
	struct ch39x_xfer *parked[CH39X_MAX_XFERS];
	bool busy;			/* in a burst (ch39x_burst_enter()) */
	struct ch39x_rx_counters c;
	struct ch39x_rx_parser parser;	/* last: holds a jumbo carry buffer */
};

struct ch39x_tx_counters {
	uint64_t packets;
	uint64_t bytes;
	uint64_t usb_xfers;
	uint64_t usb_bytes;
	/* Frames lost in failed transfers, by cause (not transfers). */
	uint64_t usb_errors;	/* other transfer errors, not submitted */
	uint64_t usb_stalls;
	uint64_t usb_timeouts;
	uint64_t zlps;
	uint64_t tx_ls;
	uint64_t invalid;	/* bad length or TSO request: dropped */
	uint64_t full;		/* bursts cut short: no free transfer */
	uint64_t records;	/* frame records put in transfers */
	uint64_t rec_bytes;	/* their frame bytes */
	uint64_t tso_hw;	/* super-frames the chip segments */
	uint64_t tso_sw_pkts;	/* super-frames segmented in software */
	uint64_t tso_sw_segs;
	uint64_t tso_seg_drops;	/* segments that found no free transfer */
	uint64_t tso_waits;	/* polls for a free transfer mid super-frame */
	uint64_t link_down;	/* frames sent while the link was down */
	uint64_t csum_sw;	/* frames checksummed in software */
	uint64_t vlan_sw;	/* tags inserted in software */
	uint64_t absent;	/* frames dropped while the device was gone */
};

struct ch39x_txq {
	struct ch39x_adapter *ad;
	uint16_t port_id;
	uint16_t queue_id;
	struct ch39x_ncm_tx *ncm;	/* NCM: the NTB builder */
	uint16_t nb_xfers;
	uint16_t nb_free;
	uint32_t max_frame;		/* longest frame on the wire */
	uint32_t mtu_frame;		/* longest frame the MTU allows */
	/* From the device type's caps at start (and tso=sw for hw_tso). */
	bool hw_csum;
	bool hw_vlan;
	bool hw_tso;
	uint8_t *scratch;		/* flat copy of a chained super-frame */
	struct ch39x_xfer *xfers;
	struct ch39x_xfer **free;	/* stack of idle transfers */
	/*
	 * Frames each in-flight transfer carries (by index in xfers), so
	 * that a failed transfer counts the frames it lost.
	 */
	uint32_t *frames;
	uint8_t *bufs;
	bool busy;			/* in a burst (ch39x_burst_enter()) */
	struct ch39x_tx_counters c;
};


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

/* One extended statistic: a counter at off in its source, or computed. */
enum ch39x_xs_src {
	CH39X_XS_RX, CH39X_XS_PARSER, CH39X_XS_TX, CH39X_XS_AD, CH39X_XS_SIM,
	CH39X_XS_CALC, CH39X_XS_NCM_RX, CH39X_XS_NCM_TX, CH39X_XS_ECM_RX,
};

struct ch39x_xs_def {
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	enum ch39x_xs_src src;
	size_t off;
};

struct ch39x_xs_table {
	const struct ch39x_xs_def *d;
	unsigned int n;
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
	bool gone;			/* the device left the bus */
	bool rmv_sent;
	/*
	 * reconnect=on (ch39x_link.c): the device is gone and the port waits
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
	struct ch39x_usb_info id;	/* who the device was at probe */
	struct ch39x_usb_info refused_id; /* the last device refused */
	uint64_t gone_tsc;		/* when it left */
	uint64_t reconnects;		/* returns the port recovered from */
	uint64_t reconnect_last_us;	/* gone to restored, the last time */
	uint64_t reconnect_refused;	/* returns as another device */
	/*
	 * presence=events: the transport's bus descriptor, watched by EAL's
	 * interrupt thread (ch39x_link.c); NULL: the presence alarm asks.
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
};

#define CH39X_CTRL_TIMEOUT_MS 500

/*
 * reconnect=on: how often the PMD looks for the device's return, and how
 * long it waits for a burst in progress to leave before it looks again.
 */
#define CH39X_RECONNECT_MS	50
/*
 * The same with the bus's events (presence=events), which start a look at
 * once when a device arrives: the periodic one is a safety net only.
 */
#define CH39X_RECONNECT_EVENTS_MS 1000
#define CH39X_RECONNECT_QUIESCE_US 200
/*
 * After the device came back but could not be taken or set up (a kernel
 * driver still binding to it, a request failing): the next try. Each try
 * opens the device again, so not every CH39X_RECONNECT_MS.
 */
#define CH39X_RECONNECT_RETRY_MS 500

/*
 * A burst begins: false when the device is gone (reconnect=on) and the
 * burst must not touch it. The store of busy and the load of absent are
 * ordered by a full fence, as the control thread's store of absent and
 * its load of busy are (ch39x_link.c): one of them sees the other.
 */
static __rte_always_inline bool
ch39x_burst_enter(bool *busy, const struct ch39x_adapter *ad)
{
	__atomic_store_n(busy, true, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (likely(!__atomic_load_n(&ad->absent, __ATOMIC_RELAXED)))
		return true;
	__atomic_store_n(busy, false, __ATOMIC_RELEASE);
	return false;
}

static __rte_always_inline void
ch39x_burst_leave(bool *busy)
{
	__atomic_store_n(busy, false, __ATOMIC_RELEASE);
}

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

/*
 * Descriptors and transfers. A USB adapter has no descriptor ring: what
 * holds frames between the wire and the application is the bulk transfer
 * buffers kept in flight. One descriptor is one full-size frame's room
 * (CH39X_DESC_BYTES) in them, so nb_desc frames need
 * ceil(nb_desc / frames per transfer) transfers, 1 to CH39X_MAX_XFERS. A
 * device that moves a frame per transfer (ECM) has one per transfer. The
 * rx_xfers and tx_xfers devargs, when given, win.
 *
 * Applications ask for 1024 to 4096 descriptors without looking, and each
 * transfer is usbfs memory, which all ports and processes share (16 MiB by
 * default): what nb_desc sets up is also capped at CH39X_DESC_MAX_BYTES of
 * buffers (buf_size bytes each, in whole pages as usbfs counts them) per
 * queue, never below
 * the default count. 2 MiB: 64 of a CH398's 32 KiB RX transfers, as
 * before the cap on transfers grew, and four ports' worth of both queues
 * in the default 16 MiB.
 */
#define CH39X_DESC_BYTES	1536
#define CH39X_DESC_MAX_BYTES	(2u << 20)
#define CH39X_XFER_PAGE		4096u

static inline uint16_t
ch39x_desc_per_xfer(uint32_t xfer_size)
{
	return (uint16_t)RTE_MAX(xfer_size / CH39X_DESC_BYTES, 1u);
}

static inline uint16_t
ch39x_nb_xfers(uint16_t forced, uint16_t nb_desc, uint16_t dflt,
	       uint32_t xfer_size, uint32_t buf_size)
{
	uint16_t per = ch39x_desc_per_xfer(xfer_size);
	uint32_t cap = CH39X_DESC_MAX_BYTES /
		RTE_ALIGN_CEIL(RTE_MAX(buf_size, 1u), CH39X_XFER_PAGE);

	if (forced)
		return forced;
	if (nb_desc == 0)
		return dflt;
	cap = RTE_MIN(RTE_MAX(cap, (uint32_t)dflt), (uint32_t)CH39X_MAX_XFERS);
	return (uint16_t)RTE_MIN((nb_desc + per - 1u) / per, cap);
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
	default:
		return &ch39x_vendor_ops;
	}
}

/* ch39x_ethdev.c: what the device types share. */
int ch39x_program_rx_mode(struct ch39x_adapter *ad);
/* Start and stop without the reconnect lock (ch39x_link.c holds it). */
int ch39x_port_start(struct rte_eth_dev *dev);
int ch39x_port_stop(struct rte_eth_dev *dev);
int ch39x_hw_init(struct ch39x_adapter *ad);
int ch39x_rx_arm(struct rte_eth_dev *dev, bool on);

/*
 * ch39x_link.c: control requests, the link, the device's presence; the
 * alarms run on EAL's interrupt thread.
 */
int ch39x_control(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
		  uint16_t value, uint16_t index, void *data, uint16_t len,
		  const char *what, bool quiet);
void ch39x_set_link(struct ch39x_adapter *ad, bool up, uint32_t speed);
void ch39x_link_report(struct ch39x_adapter *ad, bool up, uint32_t speed);
void ch39x_rmv_notify(struct ch39x_adapter *ad);
void ch39x_intr_poll(struct ch39x_adapter *ad);
void ch39x_intr_reaped(void *arg);
void ch39x_intr_alarm_fast(struct ch39x_adapter *ad);
void ch39x_intr_alarm_start(struct ch39x_adapter *ad);
void ch39x_intr_alarm_stop(struct ch39x_adapter *ad);
void ch39x_presence_watch(struct ch39x_adapter *ad);
void ch39x_bus_watch(struct ch39x_adapter *ad);
void ch39x_bus_unwatch(struct ch39x_adapter *ad);
void ch39x_presence_unwatch(struct ch39x_adapter *ad);
void ch39x_reconnect_cancel(struct ch39x_adapter *ad);
bool ch39x_reconnect_on(const struct ch39x_adapter *ad);

/* ch39x_info.c: what the port tells (primary and secondary processes). */
int ch39x_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);
int ch39x_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t size);
void ch39x_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_rxq_info *qi);
void ch39x_txq_info_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_txq_info *qi);
int ch39x_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			    struct rte_eth_burst_mode *mode);
int ch39x_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			    struct rte_eth_burst_mode *mode);
const uint32_t *ch39x_dev_supported_ptypes_get(struct rte_eth_dev *dev
					       CH39X_PTYPES_PARAM);
int ch39x_dev_ptypes_set(struct rte_eth_dev *dev, uint32_t ptype_mask);
int ch39x_flow_ctrl_get(struct rte_eth_dev *dev, struct rte_eth_fc_conf *fc);
int ch39x_flow_ctrl_set(struct rte_eth_dev *dev, struct rte_eth_fc_conf *fc);
int ch39x_priv_dump(struct rte_eth_dev *dev, FILE *f);

/* ch39x_xstats.c */
int ch39x_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st
		    CH39X_QSTATS_PARAM);
int ch39x_stats_reset(struct rte_eth_dev *dev);
int ch39x_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		     unsigned int size);
int ch39x_xstats_get_names(struct rte_eth_dev *dev,
			   struct rte_eth_xstat_name *names,
			   unsigned int size);
extern const struct ch39x_xs_table ch39x_xs_ncm;
extern const struct ch39x_xs_table ch39x_xs_ecm;

/* ch39x_rx.c and ch39x_tx.c: one RX and one TX burst per framing. */
uint16_t ch39x_rx_burst_vendor(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_rx_burst_ncm(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_rx_burst_ecm(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_vendor(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_ncm(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_ecm(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t nb);
const uint32_t *ch39x_supported_ptypes(size_t *n);
void ch39x_rx_parsed_vendor(const struct ch39x_rxq *q,
			    struct ch39x_rx_parsed *p);
void ch39x_rx_parsed_ncm(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p);
void ch39x_rx_parsed_ecm(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p);
int ch39x_rxq_alloc(struct ch39x_adapter *ad, struct ch39x_rxq *q,
		    uint16_t nb_desc);
int ch39x_rxq_resize(struct ch39x_adapter *ad, uint32_t size);
void ch39x_rxq_stop(struct ch39x_rxq *q);
int ch39x_rxq_start(struct ch39x_rxq *q);
int ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q,
		    uint16_t nb_desc);
void ch39x_txq_stop(struct ch39x_txq *q);
void ch39x_txq_start(struct ch39x_txq *q);
/* Cancel every transfer of ep and wait (bounded) until all are back. */
void ch39x_drain_ep(struct ch39x_usb_dev *u, enum ch39x_ep ep,
		    struct ch39x_xfer *xs, uint16_t n);

#endif /* CH39X_ETHDEV_H */
