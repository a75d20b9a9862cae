/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The RX data path: the per-framing RX bursts (one function each, chosen
 * at start), the bulk IN transfers put back in flight as they are read,
 * zero-copy RX, software offloads and packet types. The queue's life
 * cycle (buffers, start, stop) is in ch39x_rxq.c.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_net.h>

#include "ch39x_adapter.h"
#include "ch39x_logs.h"
#include "ch39x_mbim_eth.h"
#include "ch39x_mbim_port.h"
#include "ch39x_net.h"
#include "ch39x_rx.h"
#include "ch39x_tso.h"

static const uint64_t ip_flags[] = {
	[CH39X_CSUM_UNKNOWN] = RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN,
	[CH39X_CSUM_GOOD] = RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	[CH39X_CSUM_BAD] = RTE_MBUF_F_RX_IP_CKSUM_BAD,
};
static const uint64_t l4_flags[] = {
	[CH39X_CSUM_UNKNOWN] = RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN,
	[CH39X_CSUM_GOOD] = RTE_MBUF_F_RX_L4_CKSUM_GOOD,
	[CH39X_CSUM_BAD] = RTE_MBUF_F_RX_L4_CKSUM_BAD,
};

/*
 * The checksum flags of every cmd_1 checksum index (CH39X_RX_CSUM_IDX()),
 * from the parser's own decode table, for rx_vendor_run().
 */
void
ch39x_rx_ol_init(struct ch39x_rxq *q)
{
	unsigned int i;
	uint8_t e;

	for (i = 0; i < CH39X_RX_CSUM_TAB; i++) {
		e = q->parser.csum_tab[i];
		q->rx_ol[i] = ip_flags[e & 3u] | l4_flags[e >> 2];
	}
}

/* ---- transfers back in flight ---- */

/*
 * Put a bulk IN transfer back in flight; a gone device stops the port,
 * any other refusal parks the transfer for the next burst (counted).
 */
static void
rx_resubmit(struct ch39x_rxq *q, struct ch39x_xfer *x)
{
	int rc;

	x->len = q->ad->prof.rx_xfer_size;
	rc = q->ad->usb->ops->submit(q->ad->usb, x);
	if (likely(rc == 0))
		return;
	if (rc == -ENODEV) {
		ch39x_set_gone(q->ad, true);
		return;
	}
	q->c.submit_errors++;
	q->parked[q->nb_parked++] = x;
}

/* The parked transfers, once more each (a refusal parks it again). */
static void
rx_unpark(struct ch39x_rxq *q)
{
	struct ch39x_xfer *x[CH39X_MAX_XFERS];
	uint16_t n = q->nb_parked, i;

	memcpy(x, q->parked, n * sizeof(x[0]));
	q->nb_parked = 0;
	for (i = 0; i < n; i++)
		rx_resubmit(q, x[i]);
}

/* The parser is done with x: resubmit it, unless mbufs still point in. */
static void
rx_xfer_done(struct ch39x_rxq *q, struct ch39x_xfer *x)
{
	if (q->copybreak &&
	    rte_mbuf_ext_refcnt_update(&q->shinfo[x - q->xfers], -1) != 0) {
		q->lent++;
		return;
	}
	rx_resubmit(q, x);
}

/* Resubmit the transfers whose last attached mbuf has been freed. */
static void
rx_take_returned(struct ch39x_rxq *q)
{
	void *p[CH39X_MAX_XFERS];
	unsigned int n, i;

	n = rte_ring_sc_dequeue_burst(q->returned, p, CH39X_MAX_XFERS, NULL);
	for (i = 0; i < n; i++) {
		q->lent--;
		rx_resubmit(q, p[i]);
	}
}

/* ---- RX ---- */

static void
rx_offload_flags(struct rte_mbuf *m, const struct ch39x_rx_frame *f)
{
	m->ol_flags |= ip_flags[f->ip_csum] | l4_flags[f->l4_csum];
	if (f->vlan_stripped) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = f->vlan_tci;
	} else {
		m->vlan_tci = 0;
	}
}

/*
 * The framing hooks of the RX path, in the shape of usbnet's rx_fixup:
 * begin on a completed bulk IN transfer, then take its frames one by one.
 * fr is a constant in each of the per-framing bursts below, so every
 * switch on it folds away when the hooks are inlined: no branch on the
 * framing is left in the per-frame path.
 */
static __rte_always_inline void
rx_frames_begin(struct ch39x_rxq *q, struct ch39x_xfer *x,
		const enum ch39x_framing fr)
{
	switch (fr) {
	case CH39X_FRAMING_NCM:
	case CH39X_FRAMING_MBIM:
		ch39x_ncm_rx_begin(&q->ncm, x->buf, x->actual);
		break;
	case CH39X_FRAMING_ECM:
		q->ecm_ready = ch39x_ecm_rx_check(&q->ad->ecm, &q->ecm,
						  x->actual, &q->ecm_len) == 1;
		q->ecm_buf = x->buf;
		break;
	case CH39X_FRAMING_RNDIS:
		ch39x_rndis_rx_begin(&q->rndis, x->buf, x->actual);
		break;
	default:
		ch39x_rx_begin(&q->parser, x->buf, x->actual);
		if (x->actual < x->len)
			ch39x_rx_mark_short(&q->parser);
		break;
	}
}

/*
 * RNDIS: the port's receive filter, applied here because a device's is
 * not to be relied on (§18.5: Linux's f_rndis passes everything). The
 * filter word and the list are the control thread's; a frame racing a
 * change is judged by either state.
 */
static __rte_always_inline int
rx_rndis_next(struct ch39x_rxq *q, struct ch39x_rndis_frame *rf)
{
	const struct ch39x_adapter *ad = q->ad;
	uint32_t flt;

	while (ch39x_rndis_rx_next(&q->rndis, rf) == 1) {
		flt = __atomic_load_n(&ad->rndis.sw_filter, __ATOMIC_ACQUIRE);
		if (likely(flt & CH39X_RNDIS_PKT_PROMISCUOUS) ||
		    ch39x_rndis_filter_pass(flt, rf->data,
					    ad->mac_addr.addr_bytes,
					    (const uint8_t (*)[6])ad->mc,
					    __atomic_load_n(&ad->nb_mc,
							    __ATOMIC_RELAXED)))
			return 1;
		q->rndis_filtered++;
	}
	return 0;
}

/*
 * MBIM: the next IPv4 or IPv6 datagram of the NTB, and the Ethernet
 * header it gets (q->mbim_hdr, q->mbim_hl bytes): from the fixed peer,
 * session n tagged with VLAN n, in the header or (VLAN strip on) in the
 * mbuf. Others are dropped and counted.
 */
static __rte_always_inline int
rx_mbim_next(struct ch39x_rxq *q, struct ch39x_rx_frame *f)
{
	struct ch39x_ncm_dgram d;
	uint16_t tci;

	for (;;) {
		if (ch39x_ncm_rx_next(&q->ncm, &d) == 0)
			return 0;
		if (ch39x_mbim_eth_rx(&q->mbim->eth, d.session, d.data, d.len,
				      q->mbim_hdr, &tci) != 0)
			break;
		q->c.mbim_not_ip++;
	}
	f->data = d.data;
	f->len = d.len;
	f->info = 0;
	f->vlan_stripped = false;
	f->vlan_tci = 0;
	q->mbim_hl = RTE_ETHER_HDR_LEN;
	if (tci != 0 && q->vlan_strip) {
		f->vlan_stripped = true;
		f->vlan_tci = tci;
	} else if (tci != 0) {
		/* The tag between the addresses and the EtherType. */
		q->mbim_hdr[16] = q->mbim_hdr[12];
		q->mbim_hdr[17] = q->mbim_hdr[13];
		q->mbim_hdr[12] = 0x81;
		q->mbim_hdr[13] = 0x00;
		q->mbim_hdr[14] = (uint8_t)(tci >> 8);
		q->mbim_hdr[15] = (uint8_t)tci;
		q->mbim_hl = RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN;
	}
	f->ip_csum = CH39X_CSUM_UNKNOWN;
	f->l4_csum = CH39X_CSUM_UNKNOWN;
	f->straddled = false;
	return 1;
}

/* A CDC frame: its devices report nothing about checksums or tags. */
static __rte_always_inline void
rx_cdc_frame(struct ch39x_rx_frame *f, const uint8_t *data, uint32_t len)
{
	f->data = data;
	f->len = len;
	f->info = 0;
	f->vlan_stripped = false;
	f->ip_csum = CH39X_CSUM_UNKNOWN;
	f->l4_csum = CH39X_CSUM_UNKNOWN;
	f->straddled = false;
}

/*
 * The next frame of the transfer being read: vendor, ECM, RNDIS or MBIM
 * (NCM's come in batches, rx_ncm_run()).
 */
static __rte_always_inline int
rx_frames_next(struct ch39x_rxq *q, struct ch39x_rx_frame *f,
	       const enum ch39x_framing fr)
{
	struct ch39x_rndis_frame rf;
	struct ch39x_ncm_dgram d;

	switch (fr) {
	case CH39X_FRAMING_MBIM:
		return rx_mbim_next(q, f);
	case CH39X_FRAMING_NCM:
		if (ch39x_ncm_rx_next(&q->ncm, &d) == 0)
			return 0;
		rx_cdc_frame(f, d.data, d.len);
		return 1;
	case CH39X_FRAMING_ECM:
		if (!q->ecm_ready)
			return 0;
		q->ecm_ready = false;
		rx_cdc_frame(f, q->ecm_buf, q->ecm_len);
		return 1;
	case CH39X_FRAMING_RNDIS:
		if (rx_rndis_next(q, &rf) == 0)
			return 0;
		rx_cdc_frame(f, rf.data, rf.len);
		return 1;
	default:
		return ch39x_rx_next(&q->parser, f);
	}
}

/* What each framing's parser found and dropped, for the statistics. */
void
ch39x_rx_parsed_vendor(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p)
{
	p->frames = q->parser.stats.frames;
	p->bytes = q->parser.stats.frame_bytes;
	p->malformed = q->parser.stats.bad_headers;
}

void
ch39x_rx_parsed_ncm(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p)
{
	const struct ch39x_ncm_rx_stats *n = &q->ncm.stats;

	p->frames = n->dgrams;
	p->bytes = n->dgram_bytes;
	p->malformed = n->short_ntb + n->bad_nth_sig + n->bad_hdr_len +
		n->bad_block_len + n->bad_ndp_index + n->bad_ndp_len +
		n->ndp_loops + n->ndp_no_null + n->bad_dgram;
}

void
ch39x_rx_parsed_ecm(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p)
{
	p->frames = q->ecm.frames;
	p->bytes = q->ecm.frame_bytes;
	p->malformed = q->ecm.runts + q->ecm.oversize;
}

void
ch39x_rx_parsed_rndis(const struct ch39x_rxq *q, struct ch39x_rx_parsed *p)
{
	p->frames = q->rndis.stats.pkts;
	p->bytes = q->rndis.stats.pkt_bytes;
	p->malformed = ch39x_rndis_rx_bad(&q->rndis.stats);
}

/*
 * A bulk IN transfer failed: count why, and resubmit unless the device is
 * gone or the transfer was cancelled. A stall halts the endpoint until it
 * is cleared (usbnet does the same from its deferred work).
 */
static void
rx_xfer_failed(struct ch39x_rxq *q, struct ch39x_xfer *x)
{
	struct ch39x_usb_dev *u = q->ad->usb;

	/*
	 * A failed transfer breaks any record split over transfers, and
	 * the NTB it lost would look like a sequence gap.
	 */
	ch39x_rx_reset(&q->parser);
	ch39x_ncm_rx_reset_seq(&q->ncm);
	switch (x->status) {
	case CH39X_XFER_CANCELLED:
		return;
	case CH39X_XFER_NO_DEVICE:
		ch39x_set_gone(q->ad, true);
		return;
	case CH39X_XFER_STALL:
		q->c.usb_stalls++;
		u->ops->clear_halt(u, CH39X_EP_BULK_IN);
		break;
	case CH39X_XFER_TIMEOUT:
		q->c.usb_timeouts++;
		break;
	case CH39X_XFER_OVERFLOW:
		q->c.usb_overflows++;
		break;
	default:
		q->c.usb_errors++;
		break;
	}
	rx_resubmit(q, x);
}

/*
 * Refill the stash in bulk (raw mbufs, rte_mempool_get_bulk(): each is
 * initialised when taken, by rx_stash_take()): a full refill, or at least
 * the n mbufs a frame needs. Once every CH39X_RX_STASH mbufs, so out of
 * line.
 */
static __rte_noinline void
rx_stash_refill(struct ch39x_rxq *q, uint32_t n)
{
	uint16_t want = CH39X_RX_STASH - q->stash_n;

	if (rte_mempool_get_bulk(q->mp, (void **)(q->stash + q->stash_n),
				 want) == 0)
		q->stash_n += want;
	else if (rte_mempool_get_bulk(q->mp, (void **)(q->stash + q->stash_n),
				      n - q->stash_n) == 0)
		q->stash_n = (uint16_t)n;
}

/* Make sure the stash holds n mbufs; false: pool empty. */
static __rte_always_inline bool
rx_stash_ready(struct ch39x_rxq *q, uint32_t n)
{
	if (unlikely(q->stash_n < n))
		rx_stash_refill(q, n);
	return q->stash_n >= n;
}

/*
 * One mbuf off the stash, set as rte_pktmbuf_reset() would, without
 * touching the mbuf's second cache line: next is NULL and nb_segs and
 * refcnt are 1 for any mbuf in a pool (the rte_mbuf_raw_free() contract),
 * and tx_offload, which means nothing on a received packet, is left as
 * it was, as DPDK's vector PMDs do. data_off, refcnt, nb_segs and port in
 * one store of the queue's template (q->rearm), ol_flags in another (no
 * flag, but a pinned external buffer's). The caller sets data_len,
 * the head's pkt_len, nb_segs, packet_type and vlan_tci
 * (rx_offload_flags()); the other segments' are not read.
 */
static __rte_always_inline void
rx_mbuf_rearm(const struct ch39x_rxq *q, struct rte_mbuf *m)
{
	RTE_ASSERT(m->next == NULL && m->nb_segs == 1 &&
		   rte_mbuf_refcnt_read(m) == 1);
	*(uint64_t *)((uintptr_t)m + offsetof(struct rte_mbuf, rearm_data)) =
		q->rearm;
	m->ol_flags = q->ol_rearm;
	m->vlan_tci_outer = 0;
}

/* The stash's top mbuf, rearmed. */
static __rte_always_inline struct rte_mbuf *
rx_stash_take(struct ch39x_rxq *q)
{
	struct rte_mbuf *m = q->stash[--q->stash_n];

	/* The next one's first line, while this frame is copied. */
	if (q->stash_n)
		rte_prefetch0(q->stash[q->stash_n - 1]);
	rx_mbuf_rearm(q, m);
	return m;
}

/* Attach a frame that lies whole in transfer x as an external buffer. */
static struct rte_mbuf *
rx_attach(struct ch39x_rxq *q, struct ch39x_xfer *x,
	  const struct ch39x_rx_frame *f)
{
	struct rte_mbuf_ext_shared_info *sh = &q->shinfo[x - q->xfers];
	struct rte_mbuf *m;
	rte_iova_t iova;

	if (!rx_stash_ready(q, 1))
		return NULL;
	m = rx_stash_take(q);
	rte_mbuf_ext_refcnt_update(sh, 1);
	/* A transport buffer only with IOVA-as-VA (ch39x_xfer_buf.h). */
	iova = q->bufs != NULL ? q->bufs_iova + (size_t)(x->buf - q->bufs) :
		(rte_iova_t)(uintptr_t)x->buf;
	rte_pktmbuf_attach_extbuf(m, x->buf, iova,
				  (uint16_t)q->ad->prof.rx_xfer_size, sh);
	m->data_off = (uint16_t)(f->data - x->buf);
	m->data_len = (uint16_t)f->len;
	m->pkt_len = f->len;
	rx_offload_flags(m, f);
	q->c.zerocopy++;
	return m;
}

/*
 * Copy a frame that fits one data room into an mbuf: the common case,
 * inline in the burst. The stash template already set nb_segs to 1.
 * Returns NULL when the pool is empty (the caller counts rx_nombuf).
 */
static __rte_always_inline struct rte_mbuf *
rx_copy_one(struct ch39x_rxq *q, const struct ch39x_rx_frame *f)
{
	struct rte_mbuf *m;

	if (!rx_stash_ready(q, 1))
		return NULL;
	m = rx_stash_take(q);
	rte_memcpy(rte_pktmbuf_mtod(m, void *), f->data, f->len);
	m->data_len = (uint16_t)f->len;
	m->pkt_len = f->len;
	rx_offload_flags(m, f);
	return m;
}

/*
 * Copy a frame longer than one data room into a chain of mbufs (scatter
 * on). Returns NULL when the stash has too few mbufs (the caller counts
 * rx_nombuf).
 */
static __rte_noinline struct rte_mbuf *
rx_copy_chain(struct ch39x_rxq *q, const struct ch39x_rx_frame *f)
{
	uint32_t nseg = (f->len + q->data_room - 1) / q->data_room;
	struct rte_mbuf *head, *m, *prev = NULL;
	uint32_t off = 0, n;

	if (!rx_stash_ready(q, nseg))
		return NULL;
	head = rx_stash_take(q);
	m = head;
	for (;;) {
		n = f->len - off < q->data_room ? f->len - off : q->data_room;
		rte_memcpy(rte_pktmbuf_mtod(m, void *), f->data + off, n);
		m->data_len = (uint16_t)n;
		off += n;
		if (prev)
			prev->next = m;
		prev = m;
		if (off == f->len)
			break;
		m = rx_stash_take(q);
	}
	q->c.chained += nseg > 1;
	head->nb_segs = (uint16_t)nseg;
	head->pkt_len = f->len;
	rx_offload_flags(head, f);
	return head;
}

/*
 * Software VLAN strip. The frame lies in a buffer the queue owns (its
 * transfer buffer or the parser's carry), so the tag is removed in place by
 * moving the two addresses over it.
 */
static void
rx_sw_vlan_strip(struct ch39x_rx_frame *f)
{
	uint8_t *d = (uint8_t *)(uintptr_t)f->data;

	if (f->vlan_stripped || f->len < RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN ||
	    d[12] != 0x81 || d[13] != 0x00)
		return;
	f->vlan_tci = (uint16_t)((d[14] << 8) | d[15]);
	f->vlan_stripped = true;
	memmove(d + RTE_VLAN_HLEN, d, 2 * RTE_ETHER_ADDR_LEN);
	f->data += RTE_VLAN_HLEN;
	f->len -= RTE_VLAN_HLEN;
}

/* Software checksum verification, for chips that do not report it. */
static void
rx_sw_csum(struct ch39x_rx_frame *f)
{
	struct ch39x_hdrs h;

	f->ip_csum = CH39X_CSUM_UNKNOWN;
	f->l4_csum = CH39X_CSUM_UNKNOWN;
	if (ch39x_parse_hdrs(f->data, f->len, &h) != 0)
		return;
	if (h.ipv4)
		f->ip_csum = ch39x_ip4_csum_ok(f->data, &h) ?
			CH39X_CSUM_GOOD : CH39X_CSUM_BAD;
	if (h.l4_proto)
		f->l4_csum = ch39x_l4_csum_ok(f->data, &h) ?
			CH39X_CSUM_GOOD : CH39X_CSUM_BAD;
}

/*
 * The packet type, from the frame's first bytes, which the copy or the
 * parser has just brought into the cache: L2 (with ARP and one or two
 * tags), L3 (IPv4 with or without options, IPv6 with or without extension
 * headers) and L4. Every chip and framing gets the same answer; the
 * CH398's record header would only tell IPv4/IPv6 and TCP/UDP of the
 * frames whose checksums it checked.
 */
static const uint32_t rx_ptypes[] = {
	RTE_PTYPE_L2_ETHER, RTE_PTYPE_L2_ETHER_ARP, RTE_PTYPE_L2_ETHER_VLAN,
	RTE_PTYPE_L2_ETHER_QINQ,
	RTE_PTYPE_L3_IPV4, RTE_PTYPE_L3_IPV4_EXT, RTE_PTYPE_L3_IPV6,
	RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
	RTE_PTYPE_L4_TCP, RTE_PTYPE_L4_UDP, RTE_PTYPE_L4_ICMP,
	RTE_PTYPE_L4_SCTP, RTE_PTYPE_L4_FRAG, RTE_PTYPE_L4_NONFRAG,
	RTE_PTYPE_UNKNOWN
};

/* The list ends with RTE_PTYPE_UNKNOWN; *n counts the entries before it. */
const uint32_t *
ch39x_supported_ptypes(size_t *n)
{
	*n = RTE_DIM(rx_ptypes) - 1;
	return rx_ptypes;
}

static __rte_always_inline uint32_t
rx_l4_ptype(uint8_t proto)
{
	switch (proto) {
	case 6: return RTE_PTYPE_L4_TCP;
	case 17: return RTE_PTYPE_L4_UDP;
	case 1: case 58: return RTE_PTYPE_L4_ICMP;
	case 132: return RTE_PTYPE_L4_SCTP;
	default: return RTE_PTYPE_L4_NONFRAG;
	}
}

static __rte_always_inline uint32_t
rx_ptype(const uint8_t *d, uint32_t len)
{
	uint32_t off = RTE_ETHER_HDR_LEN, pt = RTE_PTYPE_L2_ETHER;
	uint16_t et;

	if (unlikely(len < RTE_ETHER_HDR_LEN))
		return RTE_PTYPE_UNKNOWN;
	et = (uint16_t)(d[12] << 8 | d[13]);

	if (et == RTE_ETHER_TYPE_VLAN || et == RTE_ETHER_TYPE_QINQ) {
		if (len < off + 4)
			return pt;
		pt = RTE_PTYPE_L2_ETHER_VLAN;
		et = (uint16_t)(d[off + 2] << 8 | d[off + 3]);
		off += 4;
		if (et == RTE_ETHER_TYPE_VLAN && len >= off + 4) {
			pt = RTE_PTYPE_L2_ETHER_QINQ;
			et = (uint16_t)(d[off + 2] << 8 | d[off + 3]);
			off += 4;
		}
	}
	if (et == RTE_ETHER_TYPE_IPV4 && len >= off + 20) {
		d += off;
		pt |= (d[0] & 0xF) == 5 ? RTE_PTYPE_L3_IPV4 :
			RTE_PTYPE_L3_IPV4_EXT;
		/* More fragments, or an offset: a fragment. */
		if ((d[6] & 0x3F) | d[7])
			return pt | RTE_PTYPE_L4_FRAG;
		return pt | rx_l4_ptype(d[9]);
	}
	if (et == RTE_ETHER_TYPE_IPV6 && len >= off + 40) {
		uint8_t nh = d[off + 6];

		if (nh == 0 || nh == 43 || nh == 44 || nh == 60 || nh == 51 ||
		    nh == 50 || nh == 135)
			return pt | RTE_PTYPE_L3_IPV6_EXT_UNKNOWN |
				(nh == 44 ? RTE_PTYPE_L4_FRAG : 0);
		return pt | RTE_PTYPE_L3_IPV6 | rx_l4_ptype(nh);
	}
	if (et == RTE_ETHER_TYPE_ARP && pt == RTE_PTYPE_L2_ETHER)
		return RTE_PTYPE_L2_ETHER_ARP;
	return pt;
}

/* The MTU-mismatch warning, at most once a second per queue. */
static void
rx_log_oversize(struct ch39x_rxq *q, uint64_t drops, uint32_t last_len)
{
	uint64_t now = rte_get_timer_cycles();

	if (now - q->mtu_log_tsc < rte_get_timer_hz())
		return;
	q->mtu_log_tsc = now;
	PMD_LOG(WARNING, "port %u: dropped %" PRIu64 " frames longer than the "
		"MTU allows: last frame %u bytes, this port accepts frames of "
		"up to %u bytes (MTU %u + %u bytes of Ethernet header and VLAN "
		"tag); check the MTU on both ends of the link",
		q->port_id, drops, last_len, q->max_frame,
		q->max_frame - CH39X_L2_OVERHEAD, CH39X_L2_OVERHEAD);
}

/*
 * The vendor framing's common records, straight from the transfer into
 * mbufs: what ch39x_rx_next() and the per-frame path below do for a frame
 * that needs no software work, with the cursor in registers and the
 * parser's counters added once. It stops at the first record that needs
 * more (the slow parser's cases, a frame over the MTU or one data room,
 * an empty pool), which the per-frame path then takes.
 */
static __rte_always_inline uint16_t
rx_vendor_run(struct ch39x_rxq *q, struct rte_mbuf **pkts, uint16_t n,
	      uint16_t nb, uint64_t *bytes, bool ptype)
{
	struct ch39x_rx_parser *ps = &q->parser;
	const struct ch39x_profile *p = ps->prof;
	const uint8_t *buf = ps->buf, *data;
	uint32_t off = ps->off, len = ps->len, flen, info;
	uint32_t limit = RTE_MIN(q->max_frame, (uint32_t)q->data_room);
	uint64_t frames = 0, fbytes = 0, ol;
	struct rte_mbuf *m;
	uint16_t tci;

	if (ps->carry_len != 0)
		return n;
	while (n < nb && off < len) {
		flen = ch39x_rx_rec_len(buf, off, len, p->max_frame);
		if (flen == 0 || flen > limit || !rx_stash_ready(q, 1))
			break;
		info = ch39x_rx_rec_info(p, buf + off);
		data = buf + off + CH39X_HDR_LEN;
		ol = q->rx_ol[CH39X_RX_CSUM_IDX(info)];
		tci = 0;
		if (info & CH39X_RX_VLAN) {
			ol |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
			tci = (uint16_t)(info >> 16);
		}
		m = rx_stash_take(q);
		m->ol_flags |= ol;
		m->vlan_tci = tci;
		m->data_len = (uint16_t)flen;
		m->pkt_len = flen;
		rte_memcpy(rte_pktmbuf_mtod(m, void *), data, flen);
		m->packet_type = ptype ? rx_ptype(data, flen) :
			RTE_PTYPE_UNKNOWN;
		pkts[n++] = m;
		frames++;
		fbytes += flen;
		off = ch39x_rx_rec_next(off, flen, len);
	}
	ps->off = off;
	ps->stats.frames += frames;
	ps->stats.frame_bytes += fbytes;
	*bytes += fbytes;
	return n;
}

/* What a burst counts as it goes: added to the queue's counters once. */
struct rx_tally {
	uint64_t bytes;
	uint64_t xfers;
	uint64_t xbytes;
	uint64_t mtu_drops;
	uint64_t mbuf_drops;
	uint64_t nombuf;
	uint64_t vlan_sw;
	uint32_t last_oversize;
};

/*
 * One frame through everything the queue may have to do to it: the MTU,
 * software VLAN strip and checksum, zero-copy, chains; MBIM's Ethernet
 * header (q->mbim_hdr, q->mbim_hl bytes) prepended in the headroom, and
 * none of the software work (its datagrams are IP, tags made by us).
 * Returns its mbuf, or NULL when it is dropped (counted in t). fr is a
 * constant in each caller.
 */
static __rte_always_inline struct rte_mbuf *
rx_frame(struct ch39x_rxq *q, struct ch39x_xfer *x, struct ch39x_rx_frame *f,
	 struct rx_tally *t, bool ptype, const enum ch39x_framing fr)
{
	const bool mbim = fr == CH39X_FRAMING_MBIM;
	uint32_t hl = mbim ? q->mbim_hl : 0;
	struct rte_mbuf *m;
	uint8_t *h;

	if (unlikely(f->len + hl > q->max_frame)) {
		t->mtu_drops++;
		t->last_oversize = f->len + hl;
		return NULL;
	}
	if (!mbim && q->sw_vlan_strip) {
		rx_sw_vlan_strip(f);
		t->vlan_sw += f->vlan_stripped;
	}
	if (!mbim && q->sw_csum) {
		rx_sw_csum(f);
		q->c.csum_sw++;
	}
	/*
	 * Attach long frames, but keep half of the transfers in
	 * circulation: a held mbuf pins its whole transfer, and an
	 * application holding one frame of each would starve RX.
	 */
	if (q->copybreak && f->len >= q->copybreak && !f->straddled &&
	    q->lent < q->nb_xfers / 2) {
		m = rx_attach(q, x, f);
	} else if (likely(f->len <= q->data_room)) {
		m = rx_copy_one(q, f);
	} else if (q->scatter) {
		m = rx_copy_chain(q, f);
	} else {
		t->mbuf_drops++;
		return NULL;
	}
	if (unlikely(m == NULL)) {
		t->nombuf++;
		return NULL;
	}
	if (mbim) {
		/* The headroom takes the header (RTE_PKTMBUF_HEADROOM). */
		h = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)hl);
		if (unlikely(h == NULL)) {
			rte_pktmbuf_free(m);
			t->mbuf_drops++;
			return NULL;
		}
		rte_memcpy(h, q->mbim_hdr, hl);
		m->packet_type = ptype ? rx_ptype(h, f->len + hl) :
			RTE_PTYPE_UNKNOWN;
		t->bytes += f->len + hl;
		return m;
	}
	m->packet_type = ptype ? rx_ptype(f->data, f->len) : RTE_PTYPE_UNKNOWN;
	t->bytes += f->len;
	return m;
}

/* rx_frame() of a CDC frame the fast paths below leave. */
static __rte_noinline struct rte_mbuf *
rx_cdc_frame_slow(struct ch39x_rxq *q, struct ch39x_xfer *x,
		  const uint8_t *data, uint32_t len, struct rx_tally *t,
		  bool ptype)
{
	struct ch39x_rx_frame f;

	rx_cdc_frame(&f, data, len);
	return rx_frame(q, x, &f, t, ptype, CH39X_FRAMING_NCM);
}

/*
 * Copy a frame that needs no software work and fits one data room into a
 * rearmed mbuf: a CDC frame, which says nothing about checksums or tags.
 */
static __rte_always_inline struct rte_mbuf *
rx_fill_cdc(struct rte_mbuf *m, const uint8_t *data, uint32_t len, bool ptype)
{
	m->vlan_tci = 0;
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	rte_memcpy(rte_pktmbuf_mtod(m, void *), data, len);
	m->packet_type = ptype ? rx_ptype(data, len) : RTE_PTYPE_UNKNOWN;
	return m;
}

/* rx_fill_cdc() into an mbuf of the stash (the caller made sure of one). */
static __rte_always_inline struct rte_mbuf *
rx_copy_cdc(struct ch39x_rxq *q, const uint8_t *data, uint32_t len,
	    bool ptype)
{
	return rx_fill_cdc(rx_stash_take(q), data, len, ptype);
}

/*
 * The longest frame the fast paths take: within the MTU and one data
 * room, and below rx_copybreak (longer ones are attached by rx_frame()).
 * 0 when the queue has software work to do on every frame.
 */
static __rte_always_inline uint32_t
rx_fast_limit(const struct ch39x_rxq *q)
{
	uint32_t limit = RTE_MIN(q->max_frame, (uint32_t)q->data_room);

	if (q->sw_vlan_strip || q->sw_csum)
		return 0;
	if (q->copybreak)
		limit = RTE_MIN(limit, q->copybreak - 1);
	return limit;
}

/* Datagrams taken from the NCM parser at a time. */
#define CH39X_RX_RUN	64

/*
 * NCM: the transfer's datagrams in batches from the parser
 * (ch39x_ncm_rx_burst(): the NDP's entries read once, its counters added
 * per batch), each copied into an mbuf, unless it needs more
 * (rx_frame()). Returns the new n; *used_up when the NTB has no more.
 */
static __rte_always_inline uint16_t
rx_ncm_run(struct ch39x_rxq *q, struct ch39x_xfer *x, struct rte_mbuf **pkts,
	   uint16_t n, uint16_t nb, struct rx_tally *t, bool ptype,
	   uint32_t limit, bool *used_up)
{
	struct ch39x_ncm_dgram d[CH39X_RX_RUN];
	struct rte_mbuf *m, **sp;
	unsigned int k, i;
	uint32_t len;

	RTE_BUILD_BUG_ON(CH39X_RX_RUN > CH39X_RX_STASH);
	k = ch39x_ncm_rx_burst(&q->ncm, d, RTE_MIN(nb - n, CH39X_RX_RUN));
	/* The last batch of the NTB: no call more to learn it is empty. */
	*used_up = ch39x_ncm_rx_used_up(&q->ncm);
	if (k == 0) {
		*used_up = true;
		return n;
	}
	if (!rx_stash_ready(q, k))
		limit = 0;	/* rx_frame() counts what finds no mbuf */
	/* The stash's top k mbufs, taken in turn (the slow path's too). */
	sp = q->stash + q->stash_n;
	for (i = 0; i < k; i++) {
		len = d[i].len;
		if (likely(len <= limit)) {
			m = *--sp;
			if (i + 1 < k)
				rte_prefetch0(sp[-1]);
			rx_mbuf_rearm(q, m);
			pkts[n++] = rx_fill_cdc(m, d[i].data, len, ptype);
			t->bytes += len;
			continue;
		}
		q->stash_n = (uint16_t)(sp - q->stash);
		m = rx_cdc_frame_slow(q, x, d[i].data, len, t, ptype);
		sp = q->stash + q->stash_n;
		if (m != NULL)
			pkts[n++] = m;
	}
	q->stash_n = (uint16_t)(sp - q->stash);
	return n;
}

/*
 * ECM: a frame per bulk IN transfer, so the transfers are polled in
 * batches, each frame copied into an mbuf and its transfer resubmitted
 * at once; the parser's counters are added per burst. A transfer whose
 * frame needs more (a bad length, software work, zero-copy, an empty
 * pool) goes the way of the other framings (rx_frames_begin(),
 * rx_frame(), rx_xfer_done()).
 */
static __rte_always_inline uint16_t
rx_ecm_burst(struct ch39x_rxq *q, struct rte_mbuf **pkts, uint16_t nb,
	     struct rx_tally *t, bool ptype)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *xs[CH39X_RX_RUN], *x;
	uint32_t limit = RTE_MIN(rx_fast_limit(q), q->ad->ecm.max_frame);
	uint64_t frames = 0, fbytes = 0;
	unsigned int k, i, want;
	struct ch39x_rx_frame f;
	struct rte_mbuf *m;
	uint32_t len;
	uint16_t n = 0;

	while (n < nb) {
		want = RTE_MIN(nb - n, CH39X_RX_RUN);
		k = u->ops->poll(u, CH39X_EP_BULK_IN, xs, want);
		t->xfers += k;
		for (i = 0; i < k; i++) {
			x = xs[i];
			if (unlikely(x->status != CH39X_XFER_OK)) {
				rx_xfer_failed(q, x);
				continue;
			}
			len = x->actual;
			t->xbytes += len;
			if (likely(len >= CH39X_ECM_MIN_FRAME && len <= limit &&
				   rx_stash_ready(q, 1))) {
				pkts[n++] = rx_copy_cdc(q, x->buf, len, ptype);
				frames++;
				fbytes += len;
				rx_resubmit(q, x);
				continue;
			}
			rx_frames_begin(q, x, CH39X_FRAMING_ECM);
			if (q->copybreak)
				rte_mbuf_ext_refcnt_set(&q->shinfo[x - q->xfers],
							1);
			if (rx_frames_next(q, &f, CH39X_FRAMING_ECM) &&
			    (m = rx_frame(q, x, &f, t, ptype,
					   CH39X_FRAMING_ECM)) != NULL)
				pkts[n++] = m;
			rx_xfer_done(q, x);
		}
		if (k < want)
			break;
	}
	q->ecm.frames += frames;
	q->ecm.frame_bytes += fbytes;
	t->bytes += fbytes;
	return n;
}

static __rte_always_inline uint16_t
rx_burst_dev(struct ch39x_rxq *q, struct rte_mbuf **pkts, uint16_t nb,
	     const enum ch39x_framing fr)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *x = q->cur;
	struct ch39x_rx_frame f;
	struct rx_tally t = { .bytes = 0 };
	struct rte_mbuf *m;
	uint16_t n = 0;
	bool used_up;
	/* ch39x_dev_ptypes_set(): the application reads the packet type. */
	const bool ptype = !__atomic_load_n(&q->ad->rx_ptype_off,
					    __ATOMIC_RELAXED);
	/* Frames that need no software work (rx_vendor_run()). */
	const bool run = fr == CH39X_FRAMING_VENDOR && !q->sw_vlan_strip &&
		!q->sw_csum && q->copybreak == 0;
	const uint32_t limit = rx_fast_limit(q);

	if (q->lent)
		rx_take_returned(q);
	if (unlikely(q->nb_parked))
		rx_unpark(q);
	/* MBIM: the PMD's answers to ARP and ND come first. */
	if (fr == CH39X_FRAMING_MBIM &&
	    unlikely(!rte_ring_empty(q->mbim->answers))) {
		n = (uint16_t)rte_ring_sc_dequeue_burst(q->mbim->answers,
							(void **)pkts, nb, NULL);
		q->c.mbim_answers += n;
		for (uint16_t i = 0; i < n; i++)
			t.bytes += pkts[i]->pkt_len;
	}
	if (fr == CH39X_FRAMING_ECM) {
		n = rx_ecm_burst(q, pkts, nb, &t, ptype);
		goto out;
	}
	while (n < nb) {
		if (x == NULL) {
			if (u->ops->poll(u, CH39X_EP_BULK_IN, &x, 1) == 0)
				break;
			t.xfers++;
			if (unlikely(x->status != CH39X_XFER_OK)) {
				rx_xfer_failed(q, x);
				x = NULL;
				continue;
			}
			t.xbytes += x->actual;
			rx_frames_begin(q, x, fr);
			/* The parser's own hold while it reads the transfer. */
			if (q->copybreak)
				rte_mbuf_ext_refcnt_set(
					&q->shinfo[x - q->xfers], 1);
		}
		if (fr == CH39X_FRAMING_NCM) {
			used_up = false;
			n = rx_ncm_run(q, x, pkts, n, nb, &t, ptype, limit,
				       &used_up);
			if (used_up) {
				rx_xfer_done(q, x);
				x = NULL;
			}
			continue;
		}
		if (run) {
			n = rx_vendor_run(q, pkts, n, nb, &t.bytes, ptype);
			if (n == nb)
				break;
		}
		if (rx_frames_next(q, &f, fr) == 0) {
			rx_xfer_done(q, x);
			x = NULL;
			continue;
		}
		m = rx_frame(q, x, &f, &t, ptype, fr);
		if (m != NULL)
			pkts[n++] = m;
	}
	q->cur = x;
out:
	q->c.packets += n;
	q->c.bytes += t.bytes;
	q->c.usb_xfers += t.xfers;
	q->c.usb_bytes += t.xbytes;
	if (unlikely(t.mtu_drops | t.mbuf_drops | t.nombuf | t.vlan_sw)) {
		q->c.mtu_drops += t.mtu_drops;
		q->c.vlan_sw += t.vlan_sw;
		if (t.mtu_drops)
			rx_log_oversize(q, q->c.mtu_drops, t.last_oversize);
		q->c.mbuf_drops += t.mbuf_drops;
		q->c.nombuf += t.nombuf;
	}
	return n;
}

static __rte_always_inline uint16_t
rx_burst(struct ch39x_rxq *q, struct rte_mbuf **pkts, uint16_t nb,
	 const enum ch39x_framing fr)
{
	uint16_t n;

	/* The device is gone and the port waits for it: nothing comes. */
	if (unlikely(!ch39x_burst_enter(&q->busy, q->ad)))
		return 0;
	n = rx_burst_dev(q, pkts, nb, fr);
	ch39x_burst_leave(&q->busy);
	return n;
}

uint16_t
ch39x_rx_burst_vendor(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	return rx_burst(rxq, pkts, nb, CH39X_FRAMING_VENDOR);
}

uint16_t
ch39x_rx_burst_ncm(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	return rx_burst(rxq, pkts, nb, CH39X_FRAMING_NCM);
}

uint16_t
ch39x_rx_burst_ecm(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	return rx_burst(rxq, pkts, nb, CH39X_FRAMING_ECM);
}

uint16_t
ch39x_rx_burst_rndis(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	return rx_burst(rxq, pkts, nb, CH39X_FRAMING_RNDIS);
}

uint16_t
ch39x_rx_burst_mbim(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	return rx_burst(rxq, pkts, nb, CH39X_FRAMING_MBIM);
}
