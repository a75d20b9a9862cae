/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_TX_H
#define CH39X_TX_H

/* The TX queue and the TX bursts (ch39x_tx.c). */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>
#include <rte_spinlock.h>

#include "ch39x_ncm.h"
#include "ch39x_rndis.h"
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
	/* MBIM: frames not sent to the modem, by why. */
	uint64_t mbim_not_ip;	/* neither IPv4 nor IPv6 (nor ARP/ND) */
	uint64_t mbim_bad_vlan;	/* a tag of no session */
	uint64_t mbim_runt;	/* too short for its headers */
	uint64_t mbim_answered;	/* ARP requests, NS: answered by the PMD */
	uint64_t mbim_answer_drops; /* answers lost: no mbuf, ring full */
	uint64_t mbim_held;	/* bursts that left their NTB open */
	uint64_t mbim_hold_sent; /* held NTBs sent by the RX poll or stop */
};

struct ch39x_mbim_port;

struct ch39x_txq {
	struct ch39x_adapter *ad;
	uint16_t port_id;
	uint16_t queue_id;
	struct ch39x_rndis_tx *rndis;	/* RNDIS: the transfer builder */
	struct ch39x_ncm_tx *ncm;	/* NCM, MBIM: the NTB builder */
	/* MBIM: the Ethernet view, a segment's frame, the datagram limit. */
	struct ch39x_mbim_port *mbim;
	uint8_t *mbim_seg;
	uint32_t mbim_max_ip;
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
	/*
	 * MBIM: the NTB a burst left open for the next ones (tx_hold_us):
	 * its datagrams and their bytes, q->c.packets when it was begun,
	 * the timer cycle it leaves by. hold_lock: taken by the TX burst,
	 * and tried by the RX burst to send a hold that is due (the two
	 * queues may be polled by different lcores).
	 */
	struct ch39x_xfer *hold;
	uint32_t hold_frames;
	uint32_t hold_bytes;
	uint64_t hold_packets0;
	uint64_t hold_until;
	uint64_t hold_cycles;		/* tx_hold_us in timer cycles; 0: off */
	rte_spinlock_t hold_lock;
	struct ch39x_tx_counters c;
};

uint16_t ch39x_tx_burst_vendor(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_ncm(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_ecm(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_rndis(void *txq, struct rte_mbuf **pkts, uint16_t nb);
uint16_t ch39x_tx_burst_mbim(void *txq, struct rte_mbuf **pkts, uint16_t nb);
/*
 * From the MBIM port's RX burst (the RX lcore): the NTB the TX queue
 * holds open (tx_hold_us) leaves when it is due.
 */
void ch39x_tx_mbim_flush(struct ch39x_txq *q);
uint16_t ch39x_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t nb);
int ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q,
		    uint16_t nb_desc);
void ch39x_txq_free(struct ch39x_txq *q);
void ch39x_txq_stop(struct ch39x_txq *q);
void ch39x_txq_start(struct ch39x_txq *q);

#endif /* CH39X_TX_H */
