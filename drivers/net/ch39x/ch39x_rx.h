/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_RX_H
#define CH39X_RX_H

/* The RX queue and the RX bursts (ch39x_rx.c). */

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_mbuf.h>

#include "ch39x_dev_ops.h"
#include "ch39x_ecm.h"
#include "ch39x_ncm.h"
#include "ch39x_rndis.h"
#include "ch39x_queue.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"

#define CH39X_RX_STASH		64

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
	uint64_t mbim_not_ip;	/* MBIM: datagrams neither IPv4 nor IPv6 */
	uint64_t mbim_answers;	/* MBIM: ARP/ND answers delivered */
};

struct ch39x_mbim_port;

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
	struct ch39x_rndis_rx rndis;
	uint64_t rndis_filtered;	/* RNDIS: dropped by the port's filter */
	/* MBIM: the Ethernet view, the header of the frame being read. */
	struct ch39x_mbim_port *mbim;
	uint8_t mbim_hl;		/* 14, or 18 with the tag inline */
	uint8_t mbim_hdr[18];
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
	uint64_t ol_rearm;		/* ol_flags of a fresh mbuf */
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

uint16_t ch39x_rx_burst_vendor(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_rx_burst_ncm(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_rx_burst_ecm(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_rx_burst_rndis(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_rx_burst_mbim(void *rxq, struct rte_mbuf **pkts, uint16_t nb);
const uint32_t *ch39x_supported_ptypes(size_t *n);
void ch39x_rx_parsed_vendor(const struct ch39x_rxq *q,
			    struct ch39x_rx_parsed *p);
void ch39x_rx_parsed_ncm(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p);
void ch39x_rx_parsed_ecm(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p);
void ch39x_rx_parsed_rndis(const struct ch39x_rxq *q,
			   struct ch39x_rx_parsed *p);
/* The queue's checksum-flag table (q->rx_ol), from its parser's. */
void ch39x_rx_ol_init(struct ch39x_rxq *q);

#endif /* CH39X_RX_H */
