/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_TX_H
#define CH39X_TX_H

/* The TX queue and the TX bursts (ch39x_tx.c). */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "ch39x_ncm.h"
#include "ch39x_queue.h"
#include "ch39x_usb.h"

/*
 * How long a TX burst waits for the device to complete a transfer when a
 * super-frame is larger than the queue (ch39x_tx.c): many transfer times
 * even at USB full speed; only a device that stopped draining hits it.
 */
#define CH39X_TX_WAIT_MS	100
/* Longest TSO super-frame: 64 KiB of IP packet plus L2 headers. */
#define CH39X_TSO_MAX_LEN	(65535 + RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN)
#define CH39X_TX_OFFLOAD_FLAGS	(RTE_MBUF_F_TX_IP_CKSUM | \
	RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | \
	RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_VLAN)

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

uint16_t ch39x_tx_burst_vendor(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_ncm(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_ecm(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t nb);
int ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q,
		    uint16_t nb_desc);
void ch39x_txq_free(struct ch39x_txq *q);
void ch39x_txq_stop(struct ch39x_txq *q);
void ch39x_txq_start(struct ch39x_txq *q);

#endif /* CH39X_TX_H */
