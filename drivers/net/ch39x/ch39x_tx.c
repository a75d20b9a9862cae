/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The TX queue: bulk OUT transfers, the per-framing TX bursts (one
 * function each, chosen at start), hardware and software offloads and
 * TSO, tx_pkt_prepare.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_pause.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_net.h>

#include "ch39x_adapter.h"
#include "ch39x_logs.h"
#include "ch39x_mbim_eth.h"
#include "ch39x_mbim_port.h"
#include "ch39x_net.h"
#include "ch39x_rx.h"
#include "ch39x_rxq.h"
#include "ch39x_tso.h"
#include "ch39x_tx.h"
#include "ch39x_xfer_buf.h"

/* ---- the queue: transfer buffers ---- */

int
ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q,
		uint16_t nb_desc)
{
	uint32_t bsz = ad->prof.tx_xfer_size + CH39X_TX_TRAILER;
	uint16_t i, n_usbfs;
	int rc;

	q->nb_xfers = ch39x_nb_xfers(ad->args.tx_xfers, nb_desc,
				     ad->prof.tx_xfers, ad->prof.tx_xfer_size,
				     bsz);
	q->xfers = rte_zmalloc("ch39x_tx_xfers",
			       sizeof(*q->xfers) * q->nb_xfers, 0);
	q->free = rte_zmalloc("ch39x_tx_free",
			      sizeof(*q->free) * q->nb_xfers, 0);
	q->frames = rte_zmalloc("ch39x_tx_frames",
				sizeof(*q->frames) * q->nb_xfers, 0);
	q->scratch = rte_malloc("ch39x_tso_scratch", CH39X_TSO_MAX_LEN, 64);
	if (q->xfers == NULL || q->free == NULL || q->frames == NULL ||
	    q->scratch == NULL)
		return -ENOMEM;
	/*
	 * The transport's buffers when it has them (ch39x_xfer_buf.h: no
	 * mbuf ever points into a TX buffer, so any IOVA mode will do),
	 * else one block.
	 */
	rc = ch39x_xfer_bufs_alloc(ad->usb, q->xfers, q->nb_xfers, bsz,
				   &n_usbfs);
	if (rc == 0) {
		PMD_LOG(INFO, "port %u: %u TX transfer buffers of %u bytes "
			"from the %s transport, %u in usbfs memory",
			q->port_id, q->nb_xfers, bsz, ad->usb->ops->name,
			n_usbfs);
	} else if (rc == -ENOTSUP) {
		q->bufs = rte_malloc("ch39x_tx_bufs",
				     (size_t)bsz * q->nb_xfers, 64);
		if (q->bufs == NULL)
			return -ENOMEM;
		for (i = 0; i < q->nb_xfers; i++)
			q->xfers[i].buf = q->bufs + (size_t)i * bsz;
	} else {
		return rc;
	}
	if (ch39x_ops(ad)->txq_init != NULL && ch39x_ops(ad)->txq_init(ad, q) != 0)
		return -ENOMEM;
	for (i = 0; i < q->nb_xfers; i++)
		q->xfers[i].ep = CH39X_EP_BULK_OUT;
	ch39x_txq_start(q);
	return 0;
}

void
ch39x_txq_free(struct ch39x_txq *q)
{
	if (q == NULL)
		return;
	if (q->bufs == NULL)
		ch39x_xfer_bufs_free(q->ad->usb, q->xfers, q->nb_xfers);
	rte_free(q->xfers);
	rte_free(q->free);
	rte_free(q->frames);
	rte_free(q->bufs);
	rte_free(q->scratch);
	rte_free(q->ncm);
	rte_free(q->rndis);
	rte_free(q->mbim_seg);
	rte_free(q);
}

void
ch39x_txq_start(struct ch39x_txq *q)
{
	uint16_t i;

	for (i = 0; i < q->nb_xfers; i++)
		q->free[i] = &q->xfers[i];
	q->nb_free = q->nb_xfers;
}

static void tx_mbim_send_held(struct ch39x_txq *q);

void
ch39x_txq_stop(struct ch39x_txq *q)
{
	/* A held NTB goes before the endpoint is drained. */
	if (q->hold != NULL) {
		rte_spinlock_lock(&q->hold_lock);
		if (q->hold != NULL)
			tx_mbim_send_held(q);
		rte_spinlock_unlock(&q->hold_lock);
	}
	ch39x_drain_ep(q->ad->usb, CH39X_EP_BULK_OUT, q->xfers, q->nb_xfers);
	ch39x_txq_start(q);
}

/* ---- TX ---- */

/* The aggregate being filled during one burst. */
struct tx_state {
	struct ch39x_xfer *x;
	struct ch39x_tx_agg a;
	uint64_t packets0;	/* q->c.packets when x was begun */
	uint64_t xfers;
	uint64_t xbytes;
	uint64_t until;		/* MBIM: a resumed hold's deadline; 0: fresh */
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
	st->packets0 = q->c.packets;
	/* The NTB builder counts an NTB's datagrams and bytes itself. */
	if (fr == CH39X_FRAMING_NCM) {
		ch39x_ncm_tx_begin(q->ncm, st->x->buf);
		return;
	}
	/* MBIM's and RNDIS's frames are counted in st->a, as the vendor's. */
	ch39x_tx_agg_init(&st->a, st->x->buf);
	if (fr == CH39X_FRAMING_MBIM)
		ch39x_ncm_tx_begin(q->ncm, st->x->buf);
	else if (fr == CH39X_FRAMING_RNDIS)
		ch39x_rndis_tx_begin(q->rndis, st->x->buf);
}

static __rte_always_inline bool
tx_fits(struct ch39x_txq *q, struct tx_state *st, uint32_t len,
	const enum ch39x_framing fr)
{
	switch (fr) {
	case CH39X_FRAMING_NCM:
		return ch39x_ncm_tx_fits(q->ncm, len);
	case CH39X_FRAMING_RNDIS:
		return ch39x_rndis_tx_check(q->rndis, len) ==
			CH39X_RNDIS_FIT_OK;
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
		return ch39x_ncm_tx_add(q->ncm, d->len);
	case CH39X_FRAMING_RNDIS:
		st->a.frames++;
		st->a.frame_bytes += d->len;
		return ch39x_rndis_tx_add(q->rndis, d->len);
	case CH39X_FRAMING_ECM:
		st->a.frames = 1;
		st->a.frame_bytes = d->len;
		st->a.len = d->len;
		return st->x->buf;
	default:
		return ch39x_tx_agg_add(&q->ad->prof, &st->a, d);
	}
}

/* tx_add() for a frame with no offload or tag: the caller checked. */
static __rte_always_inline uint8_t *
tx_add_plain(struct ch39x_txq *q, struct tx_state *st, uint32_t len,
	     const enum ch39x_framing fr)
{
	struct ch39x_tx_desc d = { .len = len };

	if (fr == CH39X_FRAMING_VENDOR)
		return ch39x_tx_agg_add_plain(&st->a, len);
	return tx_add(q, st, &d, fr);
}

static __rte_always_inline struct ch39x_tx_end
tx_finish(struct ch39x_txq *q, struct tx_state *st, const enum ch39x_framing fr)
{
	struct ch39x_tx_end e = { 0, false, false };
	struct ch39x_rndis_tx_end re;
	struct ch39x_ncm_tx_end ne;
	struct ch39x_ecm_tx_end ee;

	switch (fr) {
	case CH39X_FRAMING_NCM:
	case CH39X_FRAMING_MBIM:
		ne = ch39x_ncm_tx_finish(q->ncm);
		e.len = ne.len;
		e.zlp = ne.zlp;
		break;
	case CH39X_FRAMING_RNDIS:
		re = ch39x_rndis_tx_finish(q->rndis);
		e.len = re.len;
		e.zlp = re.zlp;
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
	/* Its records and their bytes, before finish closes the NTB. */
	uint32_t recs = fr == CH39X_FRAMING_NCM ? q->ncm->n : st->a.frames;
	uint64_t rec_bytes = fr == CH39X_FRAMING_NCM ? q->ncm->payload :
		st->a.frame_bytes;
	struct ch39x_tx_end e = tx_finish(q, st, fr);
	struct ch39x_xfer *x = st->x;
	/*
	 * The frames on the wire the transfer carries: its records, a
	 * hardware TSO record counting as its segments, as in opackets.
	 */
	uint32_t frames = (uint32_t)(q->c.packets - st->packets0);
	int rc;

	st->x = NULL;
	x->len = e.len;
	x->zlp = e.zlp;
	q->c.zlps += e.zlp;
	q->c.tx_ls += e.tx_ls;
	q->frames[x - q->xfers] = frames;
	rc = u->ops->submit(u, x);
	if (unlikely(rc != 0)) {
		/* The aggregate's frames are lost, and counted. */
		q->c.usb_errors += frames;
		q->free[q->nb_free++] = x;
		if (rc == -ENODEV)
			ch39x_set_gone(q->ad, true);
		return;
	}
	st->xfers++;
	st->xbytes += e.len;
	q->c.records += recs;
	q->c.rec_bytes += rec_bytes;
}

/*
 * Recycle the transfers the device has finished with: those the transport
 * has already collected (fresh: or asking the kernel for new ones too).
 */
static unsigned int
tx_recycle(struct ch39x_txq *q, bool fresh)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *done[CH39X_MAX_XFERS];
	unsigned int k, i;

	uint32_t frames;

	if (fresh || u->ops->collect == NULL)
		k = u->ops->poll(u, CH39X_EP_BULK_OUT, done, CH39X_MAX_XFERS);
	else
		k = u->ops->collect(u, CH39X_EP_BULK_OUT, done,
				    CH39X_MAX_XFERS);
	for (i = 0; i < k; i++) {
		if (likely(done[i]->status == CH39X_XFER_OK)) {
			q->free[q->nb_free++] = done[i];
			continue;
		}
		/* The frames of a failed transfer are lost: counted, each. */
		frames = q->frames[done[i] - q->xfers];
		switch (done[i]->status) {
		case CH39X_XFER_OK:
		case CH39X_XFER_CANCELLED:
			break;
		case CH39X_XFER_STALL:
			q->c.usb_stalls += frames;
			u->ops->clear_halt(u, CH39X_EP_BULK_OUT);
			break;
		case CH39X_XFER_TIMEOUT:
			q->c.usb_timeouts += frames;
			break;
		case CH39X_XFER_NO_DEVICE:
			ch39x_set_gone(q->ad, true);
			/* fall through */
		default:
			q->c.usb_errors += frames;
			break;
		}
		q->free[q->nb_free++] = done[i];
	}
	return k;
}

static unsigned int
tx_reap(struct ch39x_txq *q)
{
	return tx_recycle(q, true);
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

/*
 * tx_room() for the rest of a super-frame that is already half in
 * transfers: wait for the device to complete one rather than drop the
 * remaining segments (issue 14: the last segment of a super-frame one
 * transfer larger than the queue was lost whenever the first transfer
 * had not completed by the time the last segment was built, which a
 * loaded machine made likely). The device drains transfers at bus speed,
 * so the wait is a few transfer times; CH39X_TX_WAIT_MS only bounds a
 * device that stopped completing them (gone, or paused by flow control
 * for good), and what is dropped then is counted.
 */
static bool
tx_room_wait(struct ch39x_txq *q, struct tx_state *st, uint32_t len,
	     const enum ch39x_framing fr)
{
	uint64_t end = 0;
	bool late;

	for (;;) {
		/*
		 * The clock is read before the try: a thread descheduled past
		 * the deadline still gets one try after it, so only a device
		 * that completed nothing for the whole wait fails it.
		 */
		late = end != 0 && rte_get_timer_cycles() >= end;
		if (tx_room(q, st, len, fr))
			return true;
		if (late || ch39x_is_gone(q->ad))
			return false;
		if (end == 0)
			end = rte_get_timer_cycles() +
				rte_get_timer_hz() * CH39X_TX_WAIT_MS / 1000;
		q->c.tso_waits++;
		rte_pause();
	}
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
	case CH39X_FRAMING_RNDIS:
		/* Header and the largest alignment gap per message. */
		per = q->rndis->limit / (CH39X_RNDIS_PACKET_LEN + seg +
					 q->rndis->align);
		per = RTE_MIN(per, q->rndis->max_pkts);
		return RTE_MAX(per, 1u);
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

/*
 * Software TSO's walker over m (gathered when in several segments): the
 * segment count, or -1 and counted invalid when m is too long for it,
 * malformed, or its first segment with extra bytes exceeds max_frame.
 */
static __rte_always_inline int
tx_tso_begin(struct ch39x_txq *q, struct rte_mbuf *m, struct ch39x_tso *t,
	     uint32_t extra)
{
	const uint8_t *flat;
	int nseg = -1;

	if (m->pkt_len <= CH39X_TSO_MAX_LEN) {
		if (m->nb_segs == 1) {
			flat = rte_pktmbuf_mtod(m, const uint8_t *);
		} else {
			tx_gather(q->scratch, m);
			flat = q->scratch;
		}
		nseg = ch39x_tso_init(t, flat, m->pkt_len, m->l2_len,
				      m->l3_len, m->l4_len, m->tso_segsz);
	}
	if (nseg < 0 || ch39x_tso_next_len(t) + extra > q->max_frame) {
		q->c.invalid++;
		return -1;
	}
	return nseg;
}

/* Software TSO: every segment becomes a record. 0, or -1: no room. */
static __rte_always_inline int
tx_tso_sw(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf *m,
	  const enum ch39x_framing fr)
{
	bool vlan = m->ol_flags & RTE_MBUF_F_TX_VLAN;
	uint32_t vl = vlan ? RTE_VLAN_HLEN : 0, len;
	struct ch39x_tx_desc d;
	struct ch39x_tso t;
	uint32_t seg;
	uint8_t *dst;
	int nseg;

	nseg = tx_tso_begin(q, m, &t, vl);
	if (nseg < 0)
		return 0;
	/*
	 * Wait (backpressure) until every segment has room, unless the
	 * super-frame needs more transfers than the queue has: then it goes
	 * out as transfers complete (tx_room_wait()).
	 */
	seg = ch39x_tso_next_len(&t) + vl;
	if (tx_xfers_needed(q, (uint32_t)nseg, seg, fr) <= q->nb_xfers &&
	    !tx_capacity(q, st, (uint32_t)nseg, seg, fr) &&
	    (tx_reap(q) == 0 || !tx_capacity(q, st, (uint32_t)nseg, seg, fr)))
		return -1;
	memset(&d, 0, sizeof(d));
	while ((len = ch39x_tso_next_len(&t)) != 0) {
		d.len = len + vl;
		if (!tx_room_wait(q, st, d.len, fr)) {
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

/* The TX flags that ask the chip or the driver for work on a frame. */
#define TX_OL_WORK (RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_VLAN | \
		    RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)

/* One mbuf into the aggregate. 0: consumed; -1: no room, not consumed. */
static __rte_always_inline int
tx_one(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf *m,
       const enum ch39x_framing fr)
{
	uint64_t ol = m->ol_flags;
	uint32_t len = m->pkt_len, vl;
	struct ch39x_tx_desc d;
	bool vlan_sw;
	uint8_t *dst;

	/*
	 * The common frame first: one segment, nothing for the chip or
	 * the driver to do on it. Its record header is the length alone.
	 */
	if (likely(!(ol & TX_OL_WORK) && m->nb_segs == 1)) {
		if (unlikely(len < RTE_ETHER_HDR_LEN || len > q->max_frame)) {
			q->c.invalid++;
			return 0;
		}
		/* NCM: into the open NTB in one step when it fits. */
		dst = NULL;
		if (fr == CH39X_FRAMING_NCM && st->x != NULL)
			dst = ch39x_ncm_tx_try_add(q->ncm, len);
		if (dst == NULL) {
			if (!tx_room(q, st, len, fr))
				return -1;
			dst = tx_add_plain(q, st, len, fr);
		}
		rte_memcpy(dst, rte_pktmbuf_mtod(m, const void *), len);
		q->c.packets++;
		q->c.bytes += len;
		return 0;
	}
	vlan_sw = (ol & RTE_MBUF_F_TX_VLAN) && !q->hw_vlan;
	/* The tag makes every frame on the wire 4 bytes longer. */
	vl = (ol & RTE_MBUF_F_TX_VLAN) ? RTE_VLAN_HLEN : 0;
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

/*
 * Free a sent burst. When every mbuf is one direct segment of the first
 * one's pool that nothing else holds, the burst goes back to the pool in
 * one rte_mempool_put_bulk(), as the mbuf fast-free offload would do on
 * the application's word, here checked mbuf by mbuf (the fields that
 * rte_pktmbuf_prefree_seg() would read). Any other burst is freed by the
 * general rules.
 */
static __rte_always_inline void
tx_free(struct rte_mbuf **pkts, uint16_t n)
{
	/* The reference count and nb_segs, side by side: both 1. */
	const uint32_t one_one = 1u | 1u << 16;
	struct rte_mempool *mp;
	struct rte_mbuf *m;
	uintptr_t odd = 0;
	uint32_t rs;
	uint16_t i;

	RTE_BUILD_BUG_ON(offsetof(struct rte_mbuf, nb_segs) !=
			 offsetof(struct rte_mbuf, refcnt) + 2);
	if (n == 0)
		return;
	mp = pkts[0]->pool;
	/* Every mbuf looked at, without a branch: what differs adds up. */
	for (i = 0; i < n; i++) {
		m = pkts[i];
		memcpy(&rs, &m->refcnt, sizeof(rs));
		odd |= ((uintptr_t)m->pool ^ (uintptr_t)mp) |
			(uintptr_t)(m->ol_flags & (RTE_MBUF_F_INDIRECT |
						   RTE_MBUF_F_EXTERNAL)) |
			(uintptr_t)(rs ^ one_one);
	}
	if (unlikely(odd != 0)) {
		rte_pktmbuf_free_bulk(pkts, n);
		return;
	}
	rte_mempool_put_bulk(mp, (void **)pkts, n);
}

/*
 * ECM: a frame per bulk OUT transfer. A plain frame (one segment, no
 * offload, no tag) is copied into a free transfer and submitted at once,
 * the short-packet rule inline, its counters added per burst; any other
 * goes through tx_one(), whose transfer is submitted before the next
 * frame so that frames leave in order. Returns the frames consumed.
 */
static __rte_always_inline uint16_t
tx_ecm_frames(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf **pkts,
	      uint16_t nb)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	const struct ch39x_ecm_cfg *c = &q->ad->ecm;
	uint64_t packets = 0, bytes = 0, xbytes = 0, zlps = 0;
	uint64_t recs = 0, rec_bytes = 0;
	struct ch39x_ecm_tx_end e;
	struct ch39x_xfer *x;
	struct rte_mbuf *m;
	uint32_t len;
	uint16_t n;
	int rc;

	for (n = 0; n < nb; n++) {
		m = pkts[n];
		len = m->pkt_len;
		if (unlikely((m->ol_flags & TX_OL_WORK) || m->nb_segs != 1 ||
			     len < RTE_ETHER_HDR_LEN || len > q->max_frame)) {
			rc = tx_one(q, st, m, CH39X_FRAMING_ECM);
			if (st->x != NULL)
				tx_submit(q, st, CH39X_FRAMING_ECM);
			if (rc != 0) {
				q->c.full++;
				break;
			}
			continue;
		}
		if (q->nb_free == 0 && tx_reap(q) == 0) {
			q->c.full++;
			break;
		}
		x = q->free[--q->nb_free];
		rte_memcpy(x->buf, rte_pktmbuf_mtod(m, const void *), len);
		x->len = len;
		x->zlp = false;
		if (unlikely(c->out_maxp == 0 || len % c->out_maxp == 0)) {
			e = ch39x_ecm_tx_finish(c, x->buf, len);
			x->len = e.len;
			x->zlp = e.zlp;
			zlps += e.zlp;
		}
		q->frames[x - q->xfers] = 1;
		packets++;
		bytes += len;
		rc = u->ops->submit(u, x);
		if (unlikely(rc != 0)) {
			/* The frame is lost, and counted. */
			q->c.usb_errors++;
			q->free[q->nb_free++] = x;
			if (rc == -ENODEV)
				ch39x_set_gone(q->ad, true);
			continue;
		}
		st->xfers++;
		xbytes += x->len;
		recs++;
		rec_bytes += len;
	}
	q->c.packets += packets;
	q->c.bytes += bytes;
	q->c.records += recs;
	q->c.rec_bytes += rec_bytes;
	st->xbytes += xbytes;
	q->c.zlps += zlps;
	return n;
}

static __rte_always_inline uint16_t
tx_burst(struct ch39x_txq *q, struct rte_mbuf **pkts, uint16_t nb,
	 const enum ch39x_framing fr)
{
	struct tx_state st = { .x = NULL };
	uint16_t n;

	/*
	 * The device is gone and the port waits for it (reconnect=on): the
	 * frames are dropped and counted, as a NIC without link drops them,
	 * so that a forwarding loop does not hold them until it returns.
	 */
	if (unlikely(!ch39x_burst_enter(&q->busy, q->ad))) {
		rte_pktmbuf_free_bulk(pkts, nb);
		q->c.absent += nb;
		return nb;
	}
	/*
	 * What the RX poll of this device already collected; the kernel is
	 * asked only when no transfer is free (tx_room()): a system call
	 * less per burst while the queue has room.
	 */
	tx_recycle(q, false);
	if (fr == CH39X_FRAMING_ECM) {
		n = tx_ecm_frames(q, &st, pkts, nb);
	} else {
		for (n = 0; n < nb; n++) {
			if (tx_one(q, &st, pkts[n], fr) != 0) {
				q->c.full++;
				break;
			}
		}
	}
	if (st.x != NULL)
		tx_submit(q, &st, fr);
	/*
	 * Frames sent while the port's link is down, as the interrupt
	 * endpoint last reported it: the device drops them. Counted, not
	 * dropped here: the link may be back before the device sees them.
	 */
	if (unlikely(!q->ad->dev->data->dev_link.link_status))
		q->c.link_down += n;
	tx_free(pkts, n);
	q->c.usb_xfers += st.xfers;
	q->c.usb_bytes += st.xbytes;
	ch39x_burst_leave(&q->busy);
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

/* ---- MBIM: Ethernet frames to IP datagrams of sessions ---- */

/*
 * Room for a datagram of len bytes of session in the NTB being filled:
 * an NTB holds one session's NDP, so another session's datagram closes
 * it. wait: for the segments of a super-frame already half sent.
 */
static bool
tx_mbim_room(struct ch39x_txq *q, struct tx_state *st, uint32_t len,
	     uint8_t session, bool wait)
{
	uint64_t end = 0;

	if (st->x != NULL &&
	    ch39x_ncm_tx_check_ips(q->ncm, len, session) != CH39X_NCM_FIT_OK)
		tx_submit(q, st, CH39X_FRAMING_MBIM);
	while (st->x == NULL) {
		if (q->nb_free != 0 || tx_reap(q) != 0) {
			st->x = q->free[--q->nb_free];
			tx_begin(q, st, CH39X_FRAMING_MBIM);
			st->until = 0;
			break;
		}
		if (!wait || ch39x_is_gone(q->ad))
			return false;
		if (end == 0)
			end = rte_get_timer_cycles() +
				rte_get_timer_hz() * CH39X_TX_WAIT_MS / 1000;
		else if (rte_get_timer_cycles() >= end)
			return false;
		q->c.tso_waits++;
		rte_pause();
	}
	return true;
}

/*
 * An ARP request or neighbour solicitation: the peer's answer goes to
 * the RX queue (the session has no link to resolve on).
 */
static void
tx_mbim_answer(struct ch39x_txq *q, const uint8_t *f, uint32_t len,
	       int32_t tci)
{
	struct ch39x_rxq *rq = q->ad->rxq;
	struct rte_mbuf *m;
	uint16_t otci = 0;
	uint32_t n;
	uint8_t *d;

	m = rq != NULL ? rte_pktmbuf_alloc(rq->mp) : NULL;
	if (m == NULL) {
		q->c.mbim_answer_drops++;
		return;
	}
	d = rte_pktmbuf_mtod(m, uint8_t *);
	n = ch39x_mbim_eth_answer(&q->mbim->eth, f, len, tci, d,
				  rte_pktmbuf_tailroom(m), &otci);
	if (n == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	m->data_len = (uint16_t)n;
	m->pkt_len = n;
	m->port = q->port_id;
	m->packet_type = d[12] == 0x08 && d[13] == 0x06 ?
		RTE_PTYPE_L2_ETHER_ARP : RTE_PTYPE_L2_ETHER |
		RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_ICMP;
	if (otci != 0 && rq->vlan_strip) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = otci;
	} else if (otci != 0) {
		/* The request's tag, inline as it came. */
		d = (uint8_t *)rte_pktmbuf_prepend(m, RTE_VLAN_HLEN);
		if (d == NULL) {
			rte_pktmbuf_free(m);
			q->c.mbim_answer_drops++;
			return;
		}
		memmove(d, d + RTE_VLAN_HLEN, 2 * RTE_ETHER_ADDR_LEN);
		d[12] = 0x81;
		d[13] = 0x00;
		d[14] = (uint8_t)(otci >> 8);
		d[15] = (uint8_t)otci;
		m->packet_type |= RTE_PTYPE_L2_ETHER_VLAN;
	}
	if (rte_ring_sp_enqueue(q->mbim->answers, m) != 0) {
		rte_pktmbuf_free(m);
		q->c.mbim_answer_drops++;
		return;
	}
	q->c.mbim_answered++;
}

/*
 * One flat Ethernet frame: its IP datagram into the NTB of its session,
 * an ARP request or NS answered, anything else dropped and counted.
 * 0: consumed; -1: no room (not consumed).
 */
static int
tx_mbim_frame(struct ch39x_txq *q, struct tx_state *st, const uint8_t *f,
	      uint32_t len, int32_t tci, bool wait)
{
	struct ch39x_mbim_tx t;
	uint8_t *dst;

	ch39x_mbim_eth_tx(&q->mbim->eth, f, len, tci, &t);
	switch (t.kind) {
	case CH39X_MBIM_TX_IP:
		break;
	case CH39X_MBIM_TX_ANSWER:
		tx_mbim_answer(q, f, len, tci);
		return 0;
	case CH39X_MBIM_TX_NOT_IP:
		q->c.mbim_not_ip++;
		return 0;
	case CH39X_MBIM_TX_BAD_VLAN:
		q->c.mbim_bad_vlan++;
		return 0;
	default:
		q->c.mbim_runt++;
		return 0;
	}
	if (unlikely(t.ip_len == 0 || t.ip_len > q->mbim_max_ip)) {
		q->c.invalid++;
		return 0;
	}
	if (!tx_mbim_room(q, st, t.ip_len, t.session, wait))
		return -1;
	dst = ch39x_ncm_tx_add_ips(q->ncm, t.ip_len, t.session);
	rte_memcpy(dst, f + t.ip_off, t.ip_len);
	st->a.frames++;
	st->a.frame_bytes += t.ip_len;
	q->c.packets++;
	q->c.bytes += len;
	return 0;
}

/* Software TSO: each segment a frame of its own. */
static int
tx_mbim_tso(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf *m,
	    int32_t tci)
{
	struct ch39x_tso t;
	uint32_t len;

	if (tx_tso_begin(q, m, &t, 0) < 0)
		return 0;
	while ((len = ch39x_tso_next_len(&t)) != 0) {
		ch39x_tso_emit(&t, q->mbim_seg);
		if (tx_mbim_frame(q, st, q->mbim_seg, len, tci, true) != 0) {
			q->c.tso_seg_drops += t.nseg - t.idx;
			break;
		}
	}
	q->c.tso_sw_pkts++;
	q->c.tso_sw_segs += t.idx;
	return 0;
}

static __rte_always_inline int
tx_mbim_one(struct ch39x_txq *q, struct tx_state *st, struct rte_mbuf *m)
{
	uint64_t ol = m->ol_flags;
	int32_t tci = (ol & RTE_MBUF_F_TX_VLAN) ? (int32_t)m->vlan_tci : -1;
	uint32_t len = m->pkt_len;

	if (unlikely(ol & RTE_MBUF_F_TX_TCP_SEG))
		return tx_mbim_tso(q, st, m, tci);
	/* The common frame: one segment, no checksum to compute. */
	if (likely(m->nb_segs == 1 &&
		   !(ol & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK))))
		return tx_mbim_frame(q, st, rte_pktmbuf_mtod(m, const uint8_t *),
				     len, tci, false);
	if (unlikely(len > q->max_frame)) {
		q->c.invalid++;
		return 0;
	}
	tx_gather(q->scratch, m);
	if (ol & (RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK)) {
		sw_csum(q->scratch, len, ol);
		q->c.csum_sw++;
	}
	return tx_mbim_frame(q, st, q->scratch, len, tci, false);
}

/*
 * NTB batching across bursts. Every OUT transfer costs the host and the
 * bus the same whatever it carries (one URB, one reply), and a router
 * hands the port a few frames per burst: while earlier transfers are
 * still in flight, sending now would only queue behind them, so the
 * burst's NTB stays open for the next bursts' datagrams, until it is
 * full, tx_hold_us has passed, or nothing is in flight any more (then it
 * leaves at the RX poll). cdc_ncm fills its NTBs behind a timer the same
 * way. With nothing in flight a burst's NTB leaves at once: a lone frame
 * waits for nobody.
 */

/* The shortest datagram: an IPv4 header. */
#define TX_MBIM_MIN_IP	20u

/* Transfers with the device (not free, not the one being filled). */
static __rte_always_inline uint32_t
tx_in_flight(const struct ch39x_txq *q)
{
	return (uint32_t)q->nb_xfers - q->nb_free - 1u;
}

/* The held NTB back into a burst's state (hold_lock held). */
static __rte_always_inline void
tx_mbim_resume(struct ch39x_txq *q, struct tx_state *st)
{
	st->x = q->hold;
	ch39x_tx_agg_init(&st->a, st->x->buf);
	st->a.frames = q->hold_frames;
	st->a.frame_bytes = q->hold_bytes;
	st->packets0 = q->hold_packets0;
	st->until = q->hold_until;
	q->hold = NULL;
}

/* Send the held NTB now (hold_lock held). */
static void
tx_mbim_send_held(struct ch39x_txq *q)
{
	struct tx_state st = { .x = NULL };

	tx_mbim_resume(q, &st);
	tx_submit(q, &st, CH39X_FRAMING_MBIM);
	q->c.usb_xfers += st.xfers;
	q->c.usb_bytes += st.xbytes;
	q->c.mbim_hold_sent++;
}

/* The burst's NTB at its end: held (see above) or sent. */
static void
tx_mbim_close(struct ch39x_txq *q, struct tx_state *st)
{
	uint64_t now;

	/* Room left for at least one more IPv4 header's datagram. */
	if (q->hold_cycles == 0 || tx_in_flight(q) == 0 ||
	    ch39x_ncm_tx_check(q->ncm, TX_MBIM_MIN_IP) != CH39X_NCM_FIT_OK) {
		tx_submit(q, st, CH39X_FRAMING_MBIM);
		return;
	}
	now = rte_get_timer_cycles();
	if (st->until != 0 && now >= st->until) {
		tx_submit(q, st, CH39X_FRAMING_MBIM);
		return;
	}
	q->hold_until = st->until != 0 ? st->until : now + q->hold_cycles;
	q->hold = st->x;
	q->hold_frames = st->a.frames;
	q->hold_bytes = st->a.frame_bytes;
	q->hold_packets0 = st->packets0;
	st->x = NULL;
	q->c.mbim_held++;
}

/*
 * From the port's RX burst: the held NTB leaves when its time has come
 * or the transfers before it are done. Skipped while a TX burst runs (it
 * decides itself).
 */
void
ch39x_tx_mbim_flush(struct ch39x_txq *q)
{
	if (likely(__atomic_load_n(&q->hold, __ATOMIC_RELAXED) == NULL) ||
	    !rte_spinlock_trylock(&q->hold_lock))
		return;
	/* busy is the TX burst's: under hold_lock, one of them has it. */
	if (!ch39x_burst_enter(&q->busy, q->ad)) {
		rte_spinlock_unlock(&q->hold_lock);
		return;
	}
	if (q->hold != NULL) {
		tx_recycle(q, false);
		/* The held one is neither free nor in flight. */
		if (q->nb_free + 1u >= q->nb_xfers ||
		    rte_get_timer_cycles() >= q->hold_until)
			tx_mbim_send_held(q);
	}
	ch39x_burst_leave(&q->busy);
	rte_spinlock_unlock(&q->hold_lock);
}

uint16_t
ch39x_tx_burst_mbim(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ch39x_txq *q = txq;
	struct tx_state st = { .x = NULL };
	uint16_t n;

	/* hold_lock first: the RX burst's flush shares busy under it. */
	rte_spinlock_lock(&q->hold_lock);
	if (unlikely(!ch39x_burst_enter(&q->busy, q->ad))) {
		rte_spinlock_unlock(&q->hold_lock);
		rte_pktmbuf_free_bulk(pkts, nb);
		q->c.absent += nb;
		return nb;
	}
	tx_recycle(q, false);
	if (q->hold != NULL)
		tx_mbim_resume(q, &st);
	for (n = 0; n < nb; n++) {
		if (tx_mbim_one(q, &st, pkts[n]) != 0) {
			q->c.full++;
			break;
		}
	}
	if (st.x != NULL)
		tx_mbim_close(q, &st);
	if (unlikely(!q->ad->dev->data->dev_link.link_status))
		q->c.link_down += n;
	tx_free(pkts, n);
	q->c.usb_xfers += st.xfers;
	q->c.usb_bytes += st.xbytes;
	ch39x_burst_leave(&q->busy);
	rte_spinlock_unlock(&q->hold_lock);
	return n;
}

uint16_t
ch39x_tx_burst_rndis(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	return tx_burst(txq, pkts, nb, CH39X_FRAMING_RNDIS);
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
