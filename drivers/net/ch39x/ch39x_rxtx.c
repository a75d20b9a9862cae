/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#include <inttypes.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_net.h>

#include "ch39x_ethdev.h"
#include "ch39x_logs.h"
#include "ch39x_net.h"
#include "ch39x_tso.h"

/* ---- queues: transfer buffers ---- */

/*
 * The last mbuf attached to a lent transfer was freed, on whatever thread
 * freed it: hand the transfer back to the RX lcore, which resubmits it.
 */
static void
rx_xfer_returned(void *addr, void *opaque)
{
	struct ch39x_xfer *x = opaque;
	struct ch39x_rxq *q = x->user;

	RTE_SET_USED(addr);
	rte_ring_mp_enqueue(q->returned, x);
}

int
ch39x_rxq_alloc(struct ch39x_adapter *ad, struct ch39x_rxq *q,
		uint16_t nb_desc)
{
	static uint32_t ring_seq;
	char name[RTE_RING_NAMESIZE];
	uint16_t i;

	q->nb_xfers = ch39x_nb_xfers(ad->args.rx_xfers, nb_desc,
				     ad->prof.rx_xfers, ad->prof.rx_xfer_size);
	q->xfers = rte_zmalloc("ch39x_rx_xfers",
			       sizeof(*q->xfers) * q->nb_xfers, 0);
	q->bufs = rte_malloc("ch39x_rx_bufs",
			     (size_t)ad->prof.rx_xfer_size * q->nb_xfers, 64);
	if (q->xfers == NULL || q->bufs == NULL)
		return -ENOMEM;
	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].ep = CH39X_EP_BULK_IN;
		q->xfers[i].buf = q->bufs + (size_t)i * ad->prof.rx_xfer_size;
		q->xfers[i].len = ad->prof.rx_xfer_size;
		q->xfers[i].user = q;
	}
	ch39x_rx_parser_init(&q->parser, &ad->prof);
	if (ch39x_ops(ad)->rxq_init != NULL)
		ch39x_ops(ad)->rxq_init(ad, q);
	q->copybreak = ad->args.rx_copybreak;
	/* An external buffer's length is 16 bits wide. */
	if (q->copybreak && ad->prof.rx_xfer_size > UINT16_MAX) {
		PMD_LOG(WARNING, "rx_copybreak needs xfer_size <= 65535; "
			"copying every frame");
		q->copybreak = 0;
	}
	if (q->copybreak == 0)
		return 0;
	q->bufs_iova = rte_malloc_virt2iova(q->bufs);
	q->shinfo = rte_zmalloc("ch39x_rx_shinfo",
				sizeof(*q->shinfo) * q->nb_xfers, 0);
	snprintf(name, sizeof(name), "ch39x_lent_%u_%u", q->port_id,
		 __atomic_fetch_add(&ring_seq, 1, __ATOMIC_RELAXED));
	q->returned = rte_ring_create(name, q->nb_xfers,
				      SOCKET_ID_ANY, RING_F_SC_DEQ |
				      RING_F_EXACT_SZ);
	if (q->shinfo == NULL || q->returned == NULL)
		return -ENOMEM;
	for (i = 0; i < q->nb_xfers; i++) {
		q->shinfo[i].free_cb = rx_xfer_returned;
		q->shinfo[i].fcb_opaque = &q->xfers[i];
		rte_mbuf_ext_refcnt_set(&q->shinfo[i], 0);
	}
	return 0;
}

/* Give the stopped RX queue transfer buffers of size bytes. */
int
ch39x_rxq_resize(struct ch39x_adapter *ad, uint32_t size)
{
	struct ch39x_rxq *q = ad->rxq;
	uint8_t *bufs;
	uint16_t i;

	if (q->lent) {
		PMD_LOG(ERR, "%s: the MTU needs larger RX transfers, but the "
			"application still holds mbufs attached to the old "
			"ones (rx_copybreak); free them first",
			ad->dev->data->name);
		return -EBUSY;
	}
	bufs = rte_malloc("ch39x_rx_bufs", (size_t)size * q->nb_xfers, 64);
	if (bufs == NULL)
		return -ENOMEM;
	rte_free(q->bufs);
	q->bufs = bufs;
	q->bufs_iova = rte_malloc_virt2iova(bufs);
	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].buf = bufs + (size_t)i * size;
		q->xfers[i].len = size;
	}
	ad->prof.rx_xfer_size = size;
	return 0;
}

int
ch39x_rxq_start(struct ch39x_rxq *q)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	uint16_t i;
	void *p;
	int rc;

	/* Transfers the application still holds come back by the ring. */
	while (q->returned && rte_ring_sc_dequeue(q->returned, &p) == 0)
		q->lent--;
	for (i = 0; i < q->nb_xfers; i++) {
		if (q->copybreak &&
		    rte_mbuf_ext_refcnt_read(&q->shinfo[i]) != 0)
			continue;
		q->xfers[i].len = q->ad->prof.rx_xfer_size;
		rc = u->ops->submit(u, &q->xfers[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* Put a bulk IN transfer back in flight; a gone device stops the port. */
static void
rx_resubmit(struct ch39x_rxq *q, struct ch39x_xfer *x)
{
	x->len = q->ad->prof.rx_xfer_size;
	if (q->ad->usb->ops->submit(q->ad->usb, x) == -ENODEV)
		q->ad->gone = true;
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

/* Cancel every transfer and wait for all of them to come back. */
static void
drain_ep(struct ch39x_usb_dev *u, enum ch39x_ep ep, struct ch39x_xfer *xs,
	 uint16_t n)
{
	struct ch39x_xfer *done[CH39X_MAX_XFERS];
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	uint16_t i, busy;

	u->ops->cancel_all(u, ep);
	do {
		u->ops->poll(u, ep, done, CH39X_MAX_XFERS);
		busy = 0;
		for (i = 0; i < n; i++)
			busy += xs[i].in_flight;
	} while (busy && rte_get_timer_cycles() < deadline);
	if (busy)
		PMD_LOG(ERR, "%u transfers did not complete after cancel", busy);
}

void
ch39x_rxq_stop(struct ch39x_rxq *q)
{
	void *p;

	drain_ep(q->ad->usb, CH39X_EP_BULK_IN, q->xfers, q->nb_xfers);
	/* Drop the parser's hold on the transfer it was reading. */
	if (q->cur != NULL && q->copybreak &&
	    rte_mbuf_ext_refcnt_update(&q->shinfo[q->cur - q->xfers], -1) != 0)
		q->lent++;
	while (q->returned && rte_ring_sc_dequeue(q->returned, &p) == 0)
		q->lent--;
	q->cur = NULL;
	ch39x_rx_reset(&q->parser);
	ch39x_ncm_rx_reset_seq(&q->ncm);
	q->ecm_ready = false;
	if (q->stash_n) {
		/* Raw mbufs, as they came (rx_stash_ready()). */
		rte_mempool_put_bulk(q->mp, (void **)q->stash, q->stash_n);
		q->stash_n = 0;
	}
}

int
ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q,
		uint16_t nb_desc)
{
	uint32_t bsz = ad->prof.tx_xfer_size + CH39X_TX_TRAILER;
	uint16_t i;

	q->nb_xfers = ch39x_nb_xfers(ad->args.tx_xfers, nb_desc,
				     ad->prof.tx_xfers, ad->prof.tx_xfer_size);
	q->xfers = rte_zmalloc("ch39x_tx_xfers",
			       sizeof(*q->xfers) * q->nb_xfers, 0);
	q->free = rte_zmalloc("ch39x_tx_free",
			      sizeof(*q->free) * q->nb_xfers, 0);
	q->bufs = rte_malloc("ch39x_tx_bufs", (size_t)bsz * q->nb_xfers, 64);
	q->scratch = rte_malloc("ch39x_tso_scratch", CH39X_TSO_MAX_LEN, 64);
	if (q->xfers == NULL || q->free == NULL || q->bufs == NULL ||
	    q->scratch == NULL)
		return -ENOMEM;
	if (ch39x_ops(ad)->txq_init != NULL && ch39x_ops(ad)->txq_init(ad, q) != 0)
		return -ENOMEM;
	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].ep = CH39X_EP_BULK_OUT;
		q->xfers[i].buf = q->bufs + (size_t)i * bsz;
	}
	ch39x_txq_start(q);
	return 0;
}

void
ch39x_txq_start(struct ch39x_txq *q)
{
	uint16_t i;

	for (i = 0; i < q->nb_xfers; i++)
		q->free[i] = &q->xfers[i];
	q->nb_free = q->nb_xfers;
}

void
ch39x_txq_stop(struct ch39x_txq *q)
{
	drain_ep(q->ad->usb, CH39X_EP_BULK_OUT, q->xfers, q->nb_xfers);
	ch39x_txq_start(q);
}

/* ---- RX ---- */

static void
rx_offload_flags(struct rte_mbuf *m, const struct ch39x_rx_frame *f)
{
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

	m->ol_flags |= ip_flags[f->ip_csum] | l4_flags[f->l4_csum];
	if (f->vlan_stripped) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = f->vlan_tci;
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
		ch39x_ncm_rx_begin(&q->ncm, x->buf, x->actual);
		break;
	case CH39X_FRAMING_ECM:
		q->ecm_ready = ch39x_ecm_rx_check(&q->ad->ecm, &q->ecm,
						  x->actual, &q->ecm_len) == 1;
		q->ecm_buf = x->buf;
		break;
	default:
		ch39x_rx_begin(&q->parser, x->buf, x->actual);
		if (x->actual < x->len)
			ch39x_rx_mark_short(&q->parser);
		break;
	}
}

static __rte_always_inline int
rx_frames_next(struct ch39x_rxq *q, struct ch39x_rx_frame *f,
	       const enum ch39x_framing fr)
{
	struct ch39x_ncm_dgram d;

	switch (fr) {
	case CH39X_FRAMING_NCM:
		if (ch39x_ncm_rx_next(&q->ncm, &d) == 0)
			return 0;
		f->data = d.data;
		f->len = d.len;
		break;
	case CH39X_FRAMING_ECM:
		if (!q->ecm_ready)
			return 0;
		q->ecm_ready = false;
		f->data = q->ecm_buf;
		f->len = q->ecm_len;
		break;
	default:
		return ch39x_rx_next(&q->parser, f);
	}
	/* CDC devices report nothing about checksums or tags. */
	f->info = 0;
	f->vlan_stripped = false;
	f->ip_csum = CH39X_CSUM_UNKNOWN;
	f->l4_csum = CH39X_CSUM_UNKNOWN;
	f->straddled = false;
	return 1;
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
		q->ad->gone = true;
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
 * Make sure the stash holds n mbufs, refilling it in bulk; false: pool
 * empty. The stash holds raw mbufs (rte_mempool_get_bulk()): each is
 * initialised when taken, by rx_stash_take().
 */
static inline bool
rx_stash_ready(struct ch39x_rxq *q, uint32_t n)
{
	if (q->stash_n < n) {
		uint16_t want = CH39X_RX_STASH - q->stash_n;

		/* A full refill, or at least what this frame needs. */
		if (rte_mempool_get_bulk(q->mp, (void **)(q->stash +
							 q->stash_n),
					 want) == 0)
			q->stash_n += want;
		else if (rte_mempool_get_bulk(q->mp, (void **)(q->stash +
							      q->stash_n),
					      n - q->stash_n) == 0)
			q->stash_n = (uint16_t)n;
	}
	return q->stash_n >= n;
}

/*
 * One mbuf off the stash, set as rte_pktmbuf_reset() would, without
 * touching the mbuf's second cache line: next is NULL and nb_segs and
 * refcnt are 1 for any mbuf in a pool (the rte_mbuf_raw_free() contract),
 * and tx_offload, which means nothing on a received packet, is left as
 * it was, as DPDK's vector PMDs do. The profile showed those stores, each
 * a cache miss, as the largest item of the PMD's RX cost. The caller sets
 * data_len, and the head's pkt_len, nb_segs and port.
 */
static __rte_always_inline struct rte_mbuf *
rx_stash_take(struct ch39x_rxq *q)
{
	struct rte_mbuf *m = q->stash[--q->stash_n];

	/* The next one's first line, while this frame is copied. */
	if (q->stash_n)
		rte_prefetch0(q->stash[q->stash_n - 1]);
	RTE_ASSERT(m->next == NULL && m->nb_segs == 1 &&
		   rte_mbuf_refcnt_read(m) == 1);
	rte_pktmbuf_reset_headroom(m);
	m->port = RTE_MBUF_PORT_INVALID;
	m->pkt_len = 0;
	m->ol_flags &= RTE_MBUF_F_EXTERNAL;
	m->packet_type = 0;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
	return m;
}

/* Attach a frame that lies whole in transfer x as an external buffer. */
static struct rte_mbuf *
rx_attach(struct ch39x_rxq *q, struct ch39x_xfer *x,
	  const struct ch39x_rx_frame *f)
{
	struct rte_mbuf_ext_shared_info *sh = &q->shinfo[x - q->xfers];
	size_t off = (size_t)(x->buf - q->bufs);
	struct rte_mbuf *m;

	if (!rx_stash_ready(q, 1))
		return NULL;
	m = rx_stash_take(q);
	rte_mbuf_ext_refcnt_update(sh, 1);
	rte_pktmbuf_attach_extbuf(m, x->buf, q->bufs_iova + off,
				  (uint16_t)q->ad->prof.rx_xfer_size, sh);
	m->data_off = (uint16_t)(f->data - x->buf);
	m->data_len = (uint16_t)f->len;
	m->pkt_len = f->len;
	m->port = q->port_id;
	rx_offload_flags(m, f);
	q->c.zerocopy++;
	return m;
}

/*
 * Copy one frame into an mbuf, or a chain of them when scatter is on and
 * the frame is longer than one data room. Returns NULL when the stash has
 * too few mbufs (the caller counts rx_nombuf).
 */
static struct rte_mbuf *
rx_copy(struct ch39x_rxq *q, const struct ch39x_rx_frame *f)
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
	head->port = q->port_id;
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

const uint32_t *
ch39x_supported_ptypes(void)
{
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

static __rte_always_inline uint16_t
rx_burst(struct ch39x_rxq *q, struct rte_mbuf **pkts, uint16_t nb,
	 const enum ch39x_framing fr)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *x = q->cur;
	struct ch39x_rx_frame f;
	struct rte_mbuf *m;
	uint64_t bytes = 0, xfers = 0, xbytes = 0;
	uint64_t mtu_drops = 0, mbuf_drops = 0, nombuf = 0, vlan_sw = 0;
	uint32_t last_oversize = 0;
	uint16_t n = 0;

	if (q->lent)
		rx_take_returned(q);
	while (n < nb) {
		if (x == NULL) {
			if (u->ops->poll(u, CH39X_EP_BULK_IN, &x, 1) == 0)
				break;
			xfers++;
			if (unlikely(x->status != CH39X_XFER_OK)) {
				rx_xfer_failed(q, x);
				x = NULL;
				continue;
			}
			xbytes += x->actual;
			rx_frames_begin(q, x, fr);
			/* The parser's own hold while it reads the transfer. */
			if (q->copybreak)
				rte_mbuf_ext_refcnt_set(
					&q->shinfo[x - q->xfers], 1);
		}
		if (rx_frames_next(q, &f, fr) == 0) {
			rx_xfer_done(q, x);
			x = NULL;
			continue;
		}
		if (unlikely(f.len > q->max_frame)) {
			mtu_drops++;
			last_oversize = f.len;
			continue;
		}
		if (q->sw_vlan_strip) {
			rx_sw_vlan_strip(&f);
			vlan_sw += f.vlan_stripped;
		}
		if (q->sw_csum) {
			rx_sw_csum(&f);
			q->c.csum_sw++;
		}
		/*
		 * Attach long frames, but keep half of the transfers in
		 * circulation: a held mbuf pins its whole transfer, and an
		 * application holding one frame of each would starve RX.
		 */
		if (q->copybreak && f.len >= q->copybreak && !f.straddled &&
		    q->lent < q->nb_xfers / 2) {
			m = rx_attach(q, x, &f);
		} else if (unlikely(f.len > q->data_room && !q->scatter)) {
			mbuf_drops++;
			continue;
		} else {
			m = rx_copy(q, &f);
		}
		if (unlikely(m == NULL)) {
			nombuf++;
			continue;
		}
		m->packet_type = rx_ptype(f.data, f.len);
		bytes += f.len;
		pkts[n++] = m;
	}
	q->cur = x;
	q->c.packets += n;
	q->c.bytes += bytes;
	q->c.usb_xfers += xfers;
	q->c.usb_bytes += xbytes;
	q->c.mtu_drops += mtu_drops;
	q->c.vlan_sw += vlan_sw;
	if (unlikely(mtu_drops))
		rx_log_oversize(q, q->c.mtu_drops, last_oversize);
	q->c.mbuf_drops += mbuf_drops;
	q->c.nombuf += nombuf;
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

/* ---- TX ---- */

/* The aggregate being filled during one burst. */
struct tx_state {
	struct ch39x_xfer *x;
	struct ch39x_tx_agg a;
	uint64_t xfers;
	uint64_t xbytes;
};

/*
 * The framing hooks of the TX path, in the shape of usbnet's tx_fixup:
 * start a transfer, ask whether a frame fits, reserve its bytes, close
 * the transfer. Vendor records aggregate, NCM datagrams go into an NTB,
 * ECM sends a frame per transfer. st->a counts frames and bytes for all.
 */
static __rte_always_inline void
tx_begin(struct ch39x_txq *q, struct tx_state *st, const enum ch39x_framing fr)
{
	ch39x_tx_agg_init(&st->a, st->x->buf);
	if (fr == CH39X_FRAMING_NCM)
		ch39x_ncm_tx_begin(q->ncm, st->x->buf);
}

static __rte_always_inline bool
tx_fits(struct ch39x_txq *q, struct tx_state *st, uint32_t len,
	const enum ch39x_framing fr)
{
	switch (fr) {
	case CH39X_FRAMING_NCM:
		return ch39x_ncm_tx_fits(q->ncm, len);
	case CH39X_FRAMING_ECM:
		return st->a.frames == 0;
	default:
		return ch39x_tx_agg_fits(&q->ad->prof, &st->a, len);
	}
}

static __rte_always_inline uint8_t *
tx_add(struct ch39x_txq *q, struct tx_state *st, const struct ch39x_tx_desc *d,
       const enum ch39x_framing fr)
{
	switch (fr) {
	case CH39X_FRAMING_NCM:
		st->a.frames++;
		st->a.frame_bytes += d->len;
		return ch39x_ncm_tx_add(q->ncm, d->len);
	case CH39X_FRAMING_ECM:
		st->a.frames = 1;
		st->a.frame_bytes = d->len;
		st->a.len = d->len;
		return st->x->buf;
	default:
		return ch39x_tx_agg_add(&q->ad->prof, &st->a, d);
	}
}

static __rte_always_inline struct ch39x_tx_end
tx_finish(struct ch39x_txq *q, struct tx_state *st, const enum ch39x_framing fr)
{
	struct ch39x_tx_end e = { 0, false, false };
	struct ch39x_ncm_tx_end ne;
	struct ch39x_ecm_tx_end ee;

	switch (fr) {
	case CH39X_FRAMING_NCM:
		ne = ch39x_ncm_tx_finish(q->ncm);
		e.len = ne.len;
		e.zlp = ne.zlp;
		break;
	case CH39X_FRAMING_ECM:
		ee = ch39x_ecm_tx_finish(&q->ad->ecm, st->x->buf, st->a.len);
		e.len = ee.len;
		e.zlp = ee.zlp;
		break;
	default:
		e = ch39x_tx_agg_finish(&q->ad->prof, &st->a);
		break;
	}
	return e;
}

static __rte_always_inline void
tx_submit(struct ch39x_txq *q, struct tx_state *st, const enum ch39x_framing fr)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_tx_end e = tx_finish(q, st, fr);
	struct ch39x_xfer *x = st->x;
	int rc;

	st->x = NULL;
	x->len = e.len;
	x->zlp = e.zlp;
	q->c.zlps += e.zlp;
	q->c.tx_ls += e.tx_ls;
	rc = u->ops->submit(u, x);
	if (unlikely(rc != 0)) {
		/* The aggregate's frames are lost, and counted. */
		q->c.usb_errors++;
		q->free[q->nb_free++] = x;
		if (rc == -ENODEV)
			q->ad->gone = true;
		return;
	}
	st->xfers++;
	st->xbytes += e.len;
	q->c.records += st->a.frames;
	q->c.rec_bytes += st->a.frame_bytes;
}

/* Recycle the transfers the device has finished with. */
static unsigned int
tx_reap(struct ch39x_txq *q)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *done[CH39X_MAX_XFERS];
	unsigned int k, i;

	k = u->ops->poll(u, CH39X_EP_BULK_OUT, done, CH39X_MAX_XFERS);
	for (i = 0; i < k; i++) {
		/* The frames of a failed transfer are lost: counted. */
		switch (done[i]->status) {
		case CH39X_XFER_OK:
		case CH39X_XFER_CANCELLED:
			break;
		case CH39X_XFER_STALL:
			q->c.usb_stalls++;
			u->ops->clear_halt(u, CH39X_EP_BULK_OUT);
			break;
		case CH39X_XFER_TIMEOUT:
			q->c.usb_timeouts++;
			break;
		case CH39X_XFER_NO_DEVICE:
			q->ad->gone = true;
			/* fall through */
		default:
			q->c.usb_errors++;
			break;
		}
		q->free[q->nb_free++] = done[i];
	}
	return k;
}

/*
 * Make room for a len-byte frame: close the current transfer when the
 * frame does not fit, and take a free one. Returns false when none is free.
 */
static __rte_always_inline bool
tx_room(struct ch39x_txq *q, struct tx_state *st, uint32_t len,
	const enum ch39x_framing fr)
{
	if (st->x != NULL && !tx_fits(q, st, len, fr))
		tx_submit(q, st, fr);
	if (st->x == NULL) {
		if (q->nb_free == 0 && tx_reap(q) == 0)
			return false;
		st->x = q->free[--q->nb_free];
		tx_begin(q, st, fr);
	}
	return true;
}

/* Frames of seg bytes one empty transfer takes, at least. */
static __rte_always_inline uint32_t
tx_per_xfer(const struct ch39x_txq *q, uint32_t seg,
	    const enum ch39x_framing fr)
{
	const struct ch39x_profile *p = &q->ad->prof;
	const struct ch39x_ncm_tx *t = q->ncm;
	uint32_t rec, per, over;

	switch (fr) {
	case CH39X_FRAMING_ECM:
		return 1;
	case CH39X_FRAMING_NCM:
		/*
		 * A lower bound: NTH, NDP header and entries at their NTB32
		 * sizes, and each datagram padded by a whole divisor.
		 */
		over = 16 + 16 + 8u * (t->max_entries + 1u) + t->divisor;
		per = t->limit > over ? (t->limit - over) / (seg + t->divisor) :
			0;
		if (t->dev_max_dgrams && per > t->dev_max_dgrams)
			per = t->dev_max_dgrams;
		per = RTE_MIN(per, (uint32_t)t->max_entries);
		return RTE_MAX(per, 1u);
	default:
		rec = (CH39X_HDR_LEN + seg + 3) & ~3u;
		return p->one_frame_per_xfer ? 1 : p->tx_xfer_size / rec;
	}
}

/*
 * Whether nseg records of at most seg bytes fit in the current transfer
 * and the free ones, so that a super-frame is never half sent.
 */
static __rte_always_inline bool
tx_capacity(const struct ch39x_txq *q, const struct tx_state *st,
	    uint32_t nseg, uint32_t seg, const enum ch39x_framing fr)
{
	const struct ch39x_profile *p = &q->ad->prof;
	uint32_t rec = (CH39X_HDR_LEN + seg + 3) & ~3u;
	uint64_t n = (uint64_t)q->nb_free * tx_per_xfer(q, seg, fr);

	if (st->x != NULL && fr == CH39X_FRAMING_VENDOR &&
	    !p->one_frame_per_xfer &&
	    p->tx_xfer_size - st->a.len >= CH39X_TX_MIN_ROOM)
		n += (p->tx_xfer_size - st->a.len) / rec;
	return n >= nseg;
}

/* Transfers that nseg records of seg bytes fill when all start empty. */
static __rte_always_inline uint32_t
tx_xfers_needed(const struct ch39x_txq *q, uint32_t nseg, uint32_t seg,
		const enum ch39x_framing fr)
{
	uint32_t per = tx_per_xfer(q, seg, fr);

	return (nseg + per - 1) / per;
}

/* Gather a (possibly chained) mbuf into a flat buffer. */
static void
tx_gather(uint8_t *dst, const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next) {
		rte_memcpy(dst, rte_pktmbuf_mtod(m, const void *), m->data_len);
		dst += m->data_len;
	}
}

/* Insert an 802.1Q tag into a frame whose bytes start 4 bytes in. */
static void
sw_vlan_insert(uint8_t *dst, uint16_t tci)
{
	memmove(dst, dst + RTE_VLAN_HLEN, 2 * RTE_ETHER_ADDR_LEN);
	dst[12] = 0x81;
	dst[13] = 0x00;
	dst[14] = (uint8_t)(tci >> 8);
	dst[15] = (uint8_t)tci;
}

/* The checksums an mbuf asks for, computed in place over a flat frame. */
static void
sw_csum(uint8_t *f, uint32_t len, uint64_t ol)
{
	struct ch39x_hdrs h;
	uint64_t l4 = ol & RTE_MBUF_F_TX_L4_MASK;

	if (ch39x_parse_hdrs(f, len, &h) != 0)
		return;
	if ((ol & RTE_MBUF_F_TX_IP_CKSUM) && h.ipv4)
		ch39x_ip4_csum_set(f, &h);
	if ((l4 == RTE_MBUF_F_TX_TCP_CKSUM && h.l4_proto == CH39X_IPPROTO_TCP) ||
	    (l4 == RTE_MBUF_F_TX_UDP_CKSUM && h.l4_proto == CH39X_IPPROTO_UDP))
		ch39x_l4_csum_set(f, &h);
}

static bool
hw_tso_ok(const struct ch39x_txq *q, const struct rte_mbuf *m)
{
	uint32_t hdr = m->l2_len + m->l3_len + m->l4_len;

	/* The chip's limits (§5): TCPHO, MSS, one record per transfer. */
	return q->hw_tso && hdr <= CH39X_TSO_TCPHO_MAX &&
		m->tso_segsz <= CH39X_TSO_MSS_MAX &&
		m->pkt_len + CH39X_HDR_LEN <= q->ad->prof.tx_xfer_size &&
		(m->ol_flags & (RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6));
}

/* Software TSO: every segment becomes a record. 0, or -1: no room. */
static __rte_always_inline int
tx_tso_sw(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf *m,
	  const enum ch39x_framing fr)
{
	bool vlan = m->ol_flags & RTE_MBUF_F_TX_VLAN;
	uint32_t vl = vlan ? RTE_VLAN_HLEN : 0, len;
	struct ch39x_tx_desc d;
	const uint8_t *flat;
	struct ch39x_tso t;
	uint32_t seg;
	uint8_t *dst;
	int nseg;

	if (m->pkt_len > CH39X_TSO_MAX_LEN) {
		q->c.invalid++;
		return 0;
	}
	if (m->nb_segs == 1) {
		flat = rte_pktmbuf_mtod(m, const uint8_t *);
	} else {
		tx_gather(q->scratch, m);
		flat = q->scratch;
	}
	nseg = ch39x_tso_init(&t, flat, m->pkt_len, m->l2_len, m->l3_len,
			      m->l4_len, m->tso_segsz);
	if (nseg < 0 || ch39x_tso_next_len(&t) + vl > q->max_frame) {
		q->c.invalid++;
		return 0;
	}
	/*
	 * Wait (backpressure) until every segment has room, unless the
	 * super-frame needs more transfers than the queue has: then it goes
	 * out as transfers complete, and what finds no room is dropped.
	 */
	seg = ch39x_tso_next_len(&t) + vl;
	if (tx_xfers_needed(q, (uint32_t)nseg, seg, fr) <= q->nb_xfers &&
	    !tx_capacity(q, st, (uint32_t)nseg, seg, fr) &&
	    (tx_reap(q) == 0 || !tx_capacity(q, st, (uint32_t)nseg, seg, fr)))
		return -1;
	memset(&d, 0, sizeof(d));
	while ((len = ch39x_tso_next_len(&t)) != 0) {
		d.len = len + vl;
		if (!tx_room(q, st, d.len, fr)) {
			q->c.tso_seg_drops += t.nseg - t.idx;
			break;
		}
		dst = tx_add(q, st, &d, fr);
		ch39x_tso_emit(&t, dst + vl);
		if (vlan)
			sw_vlan_insert(dst, m->vlan_tci);
		q->c.packets++;
		q->c.bytes += d.len;
	}
	q->c.tso_sw_pkts++;
	q->c.tso_sw_segs += t.idx;
	return 0;
}

/* The descriptor of a frame the chip finishes itself (TSO, csum, tag). */
static __rte_always_inline void
tx_hw_desc(const struct ch39x_txq *q, const struct rte_mbuf *m,
	   struct ch39x_tx_desc *d)
{
	uint64_t ol = m->ol_flags;

	if (q->hw_vlan && (ol & RTE_MBUF_F_TX_VLAN)) {
		d->vlan_insert = true;
		d->vlan_tci = m->vlan_tci;
	}
	if (ol & RTE_MBUF_F_TX_TCP_SEG) {
		/* Only when hw_tso_ok(): the chip segments it (§5). */
		d->tso4 = (ol & RTE_MBUF_F_TX_IPV4) != 0;
		d->tso6 = !d->tso4;
		d->tcpho = (uint8_t)(m->l2_len + m->l3_len + m->l4_len);
		d->mss = m->tso_segsz;
	} else if (q->hw_csum) {
		d->csum_ip4 = (ol & RTE_MBUF_F_TX_IP_CKSUM) != 0;
		d->csum_tcp = (ol & RTE_MBUF_F_TX_L4_MASK) ==
			RTE_MBUF_F_TX_TCP_CKSUM;
		d->csum_udp = (ol & RTE_MBUF_F_TX_L4_MASK) ==
			RTE_MBUF_F_TX_UDP_CKSUM;
	}
}

/*
 * Count what the chip puts on the wire for a super-frame it segments, as
 * software TSO does: every segment repeats the headers.
 */
static void
tx_count_hw_tso(struct ch39x_txq *q, const struct ch39x_tx_desc *d,
		uint32_t len, uint16_t mss)
{
	uint32_t hdr = d->tcpho, pay = len - hdr;
	uint32_t nseg = pay ? (pay + mss - 1) / mss : 1;
	uint32_t vl = d->vlan_insert ? RTE_VLAN_HLEN : 0;

	q->c.tso_hw++;
	q->c.packets += nseg;
	q->c.bytes += len + (nseg - 1) * hdr + nseg * vl;
}

/* One mbuf into the aggregate. 0: consumed; -1: no room, not consumed. */
static __rte_always_inline int
tx_one(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf *m,
       const enum ch39x_framing fr)
{
	uint64_t ol = m->ol_flags;
	bool vlan_sw = (ol & RTE_MBUF_F_TX_VLAN) && !q->hw_vlan;
	/* The tag makes every frame on the wire 4 bytes longer. */
	uint32_t vl = (ol & RTE_MBUF_F_TX_VLAN) ? RTE_VLAN_HLEN : 0;
	struct ch39x_tx_desc d;
	uint32_t len = m->pkt_len;
	uint8_t *dst;

	if (ol & RTE_MBUF_F_TX_TCP_SEG) {
		if (!hw_tso_ok(q, m))
			return tx_tso_sw(q, st, m, fr);
		if ((uint32_t)(m->l2_len + m->l3_len + m->l4_len + m->tso_segsz) +
		    vl > q->max_frame || m->tso_segsz == 0) {
			q->c.invalid++;
			return 0;
		}
	} else if (unlikely(len < RTE_ETHER_HDR_LEN ||
			    len + vl > q->max_frame)) {
		q->c.invalid++;
		return 0;
	}
	memset(&d, 0, sizeof(d));
	d.len = len + (vlan_sw ? RTE_VLAN_HLEN : 0);
	tx_hw_desc(q, m, &d);
	if (!tx_room(q, st, d.len, fr))
		return -1;
	dst = tx_add(q, st, &d, fr);
	if (vlan_sw) {
		tx_gather(dst + RTE_VLAN_HLEN, m);
		sw_vlan_insert(dst, m->vlan_tci);
		q->c.vlan_sw++;
	} else {
		tx_gather(dst, m);
	}
	if (d.tso6) {
		/* ch398 TSO: the driver zeroes the IPv6 payload length. */
		dst[m->l2_len + 4] = 0;
		dst[m->l2_len + 5] = 0;
	}
	if (!q->hw_csum && (ol & (RTE_MBUF_F_TX_IP_CKSUM |
				  RTE_MBUF_F_TX_L4_MASK))) {
		sw_csum(dst, d.len, ol);
		q->c.csum_sw++;
	}
	if (d.tso4 || d.tso6) {
		tx_count_hw_tso(q, &d, len, m->tso_segsz);
		return 0;
	}
	q->c.packets++;
	q->c.bytes += d.len;
	return 0;
}

static __rte_always_inline uint16_t
tx_burst(struct ch39x_txq *q, struct rte_mbuf **pkts, uint16_t nb,
	 const enum ch39x_framing fr)
{
	struct tx_state st = { .x = NULL };
	uint16_t n;

	tx_reap(q);
	for (n = 0; n < nb; n++) {
		if (tx_one(q, &st, pkts[n], fr) != 0) {
			q->c.full++;
			break;
		}
	}
	if (st.x != NULL)
		tx_submit(q, &st, fr);
	rte_pktmbuf_free_bulk(pkts, n);
	q->c.usb_xfers += st.xfers;
	q->c.usb_bytes += st.xbytes;
	return n;
}

uint16_t
ch39x_tx_burst_vendor(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	return tx_burst(txq, pkts, nb, CH39X_FRAMING_VENDOR);
}

uint16_t
ch39x_tx_burst_ncm(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	return tx_burst(txq, pkts, nb, CH39X_FRAMING_NCM);
}

uint16_t
ch39x_tx_burst_ecm(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	return tx_burst(txq, pkts, nb, CH39X_FRAMING_ECM);
}

uint16_t
ch39x_tx_prepare(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ch39x_txq *q = txq;
	struct rte_mbuf *m;
	uint16_t i;
	int rc;

	for (i = 0; i < nb; i++) {
		m = pkts[i];
		if ((m->ol_flags & ~CH39X_TX_OFFLOAD_FLAGS) ||
		    (m->ol_flags & RTE_MBUF_F_TX_L4_MASK) ==
		    RTE_MBUF_F_TX_SCTP_CKSUM) {
			rte_errno = ENOTSUP;
			return i;
		}
		if (m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) {
			/* Every segment must fit the port's MTU. */
			if (m->tso_segsz == 0 || m->l4_len < 20 ||
			    m->pkt_len > CH39X_TSO_MAX_LEN ||
			    (uint32_t)(m->l2_len + m->l3_len + m->l4_len + m->tso_segsz) >
			    q->mtu_frame) {
				rte_errno = EINVAL;
				return i;
			}
		} else if (m->pkt_len > q->max_frame) {
			rte_errno = EINVAL;
			return i;
		}
		rc = rte_validate_tx_offload(m);
		if (rc == 0)
			rc = rte_net_intel_cksum_prepare(m);
		if (rc != 0) {
			rte_errno = -rc;
			return i;
		}
	}
	return i;
}
