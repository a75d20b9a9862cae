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
};

struct ch39x_rxq {
	struct ch39x_adapter *ad;
	struct rte_mempool *mp;
	uint16_t port_id;
	uint16_t queue_id;
	enum ch39x_framing framing;
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
	uint16_t stash_n;
	struct rte_mbuf *stash[CH39X_RX_STASH];
	struct ch39x_rx_counters c;
	struct ch39x_rx_parser parser;	/* last: holds a jumbo carry buffer */
};

struct ch39x_tx_counters {
	uint64_t packets;
	uint64_t bytes;
	uint64_t usb_xfers;
	uint64_t usb_bytes;
	uint64_t usb_errors;	/* other transfer errors */
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
	uint64_t csum_sw;	/* frames checksummed in software */
	uint64_t vlan_sw;	/* tags inserted in software */
};

struct ch39x_txq {
	struct ch39x_adapter *ad;
	uint16_t port_id;
	uint16_t queue_id;
	enum ch39x_framing framing;
	struct ch39x_ncm_tx *ncm;	/* NCM: the NTB builder */
	uint16_t nb_xfers;
	uint16_t nb_free;
	uint32_t max_frame;		/* longest frame on the wire */
	uint32_t mtu_frame;		/* longest frame the MTU allows */
	bool hw_offload;		/* chip does csum, VLAN and TSO (V02) */
	bool hw_tso;			/* ... and TSO is not forced to sw */
	uint8_t *scratch;		/* flat copy of a chained super-frame */
	struct ch39x_xfer *xfers;
	struct ch39x_xfer **free;	/* stack of idle transfers */
	uint8_t *bufs;
	struct ch39x_tx_counters c;
};


struct ch39x_adapter {
	struct rte_eth_dev *dev;
	struct ch39x_usb_dev *usb;
	struct ch39x_usb_info info;
	/* The chip's profile, with the transfer sizes the devargs chose. */
	struct ch39x_profile prof;
	struct ch39x_args args;
	pthread_mutex_t ctrl_lock;	/* one control sequence at a time */
	uint8_t get_info[CH39X_GET_INFO_LEN];
	bool maccfg_cmd;		/* firmware takes command 0x1E */
	bool started;
	bool gone;			/* the device left the bus */
	bool rmv_sent;
	struct rte_ether_addr mac_addr;
	uint8_t mc[CH39X_MAX_MC_ADDRS][RTE_ETHER_ADDR_LEN];
	uint32_t nb_mc;

	/* Interrupt endpoint, polled by an EAL alarm on the control thread. */
	struct ch39x_xfer intr_xfer;
	uint8_t intr_buf[64];
	struct ch39x_event last_event;
	uint64_t link_events;
	uint64_t ctrl_errors;
	uint64_t intr_errors;		/* failed interrupt transfers */
	struct ch39x_event evt_base;	/* device counters at stats_reset */

	struct ch39x_rxq *rxq;
	struct ch39x_txq *txq;

	/*
	 * CDC-NCM and CDC-ECM devices (framing != vendor): what the
	 * descriptors and the NTB parameters say, and what was negotiated.
	 */
	enum ch39x_framing framing;
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

uint16_t ch39x_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t nb);
int ch39x_rxq_alloc(struct ch39x_adapter *ad, struct ch39x_rxq *q);
void ch39x_rx_parsed(const struct ch39x_rxq *q, uint64_t *frames,
		     uint64_t *bytes);
void ch39x_rxq_stop(struct ch39x_rxq *q);
int ch39x_rxq_start(struct ch39x_rxq *q);
int ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q);
void ch39x_txq_stop(struct ch39x_txq *q);
void ch39x_txq_start(struct ch39x_txq *q);

#endif /* CH39X_ETHDEV_H */
