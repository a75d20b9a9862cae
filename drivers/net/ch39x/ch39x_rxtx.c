/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ch39x_ethdev.h"
#include "ch39x_logs.h"

/* ---- queues: transfer buffers ---- */

int
ch39x_rxq_alloc(struct ch39x_adapter *ad, struct ch39x_rxq *q)
{
	uint16_t i;

	q->nb_xfers = ad->args.rx_xfers ? ad->args.rx_xfers : ad->prof.rx_xfers;
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
	}
	ch39x_rx_parser_init(&q->parser, &ad->prof);
	return 0;
}

int
ch39x_rxq_start(struct ch39x_rxq *q)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	uint16_t i;
	int rc;

	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].len = q->ad->prof.rx_xfer_size;
		rc = u->ops->submit(u, &q->xfers[i]);
		if (rc != 0)
			return rc;
	}
	return 0;
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
	drain_ep(q->ad->usb, CH39X_EP_BULK_IN, q->xfers, q->nb_xfers);
	q->cur = NULL;
	ch39x_rx_reset(&q->parser);
	if (q->stash_n) {
		rte_pktmbuf_free_bulk(q->stash, q->stash_n);
		q->stash_n = 0;
	}
}

int
ch39x_txq_alloc(struct ch39x_adapter *ad, struct ch39x_txq *q)
{
	uint32_t bsz = ad->prof.tx_xfer_size + CH39X_TX_TRAILER;
	uint16_t i;

	q->nb_xfers = ad->args.tx_xfers ? ad->args.tx_xfers : ad->prof.tx_xfers;
	q->xfers = rte_zmalloc("ch39x_tx_xfers",
			       sizeof(*q->xfers) * q->nb_xfers, 0);
	q->free = rte_zmalloc("ch39x_tx_free",
			      sizeof(*q->free) * q->nb_xfers, 0);
	q->bufs = rte_malloc("ch39x_tx_bufs", (size_t)bsz * q->nb_xfers, 64);
	if (q->xfers == NULL || q->free == NULL || q->bufs == NULL)
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

	m->ol_flags = ip_flags[f->ip_csum] | l4_flags[f->l4_csum];
	if (f->vlan_stripped) {
		m->ol_flags |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = f->vlan_tci;
	}
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

	if (q->stash_n < nseg) {
		uint16_t want = CH39X_RX_STASH - q->stash_n;

		if (rte_pktmbuf_alloc_bulk(q->mp, q->stash + q->stash_n,
					   want) == 0)
			q->stash_n += want;
		if (q->stash_n < nseg)
			return NULL;
	}
	head = q->stash[--q->stash_n];
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
		m = q->stash[--q->stash_n];
	}
	head->nb_segs = (uint16_t)nseg;
	head->pkt_len = f->len;
	head->port = q->port_id;
	rx_offload_flags(head, f);
	return head;
}

uint16_t
ch39x_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ch39x_rxq *q = rxq;
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *x = q->cur;
	struct ch39x_rx_frame f;
	struct rte_mbuf *m;
	uint64_t bytes = 0, xfers = 0, xbytes = 0, errs = 0;
	uint64_t mtu_drops = 0, mbuf_drops = 0, nombuf = 0;
	uint16_t n = 0;

	while (n < nb) {
		if (x == NULL) {
			if (u->ops->poll(u, CH39X_EP_BULK_IN, &x, 1) == 0)
				break;
			xfers++;
			if (x->status != CH39X_XFER_OK) {
				errs++;
				/* A failed transfer breaks any split record. */
				ch39x_rx_reset(&q->parser);
				if (x->status != CH39X_XFER_NO_DEVICE &&
				    x->status != CH39X_XFER_CANCELLED)
					u->ops->submit(u, x);
				x = NULL;
				continue;
			}
			xbytes += x->actual;
			ch39x_rx_begin(&q->parser, x->buf, x->actual);
		}
		if (ch39x_rx_next(&q->parser, &f) == 0) {
			x->len = q->ad->prof.rx_xfer_size;
			u->ops->submit(u, x);
			x = NULL;
			continue;
		}
		if (unlikely(f.len > q->max_frame)) {
			mtu_drops++;
			PMD_RX_LOG(DEBUG, "%u-byte frame over the %u-byte limit",
				   f.len, q->max_frame);
			continue;
		}
		if (unlikely(f.len > q->data_room && !q->scatter)) {
			mbuf_drops++;
			continue;
		}
		m = rx_copy(q, &f);
		if (unlikely(m == NULL)) {
			nombuf++;
			continue;
		}
		bytes += f.len;
		pkts[n++] = m;
	}
	q->cur = x;
	q->c.packets += n;
	q->c.bytes += bytes;
	q->c.usb_xfers += xfers;
	q->c.usb_bytes += xbytes;
	q->c.usb_errors += errs;
	q->c.mtu_drops += mtu_drops;
	q->c.mbuf_drops += mbuf_drops;
	q->c.nombuf += nombuf;
	return n;
}

/* ---- TX ---- */

static void
tx_submit(struct ch39x_txq *q, struct ch39x_xfer *x, struct ch39x_tx_agg *a,
	  uint64_t *xfers, uint64_t *xbytes)
{
	const struct ch39x_profile *p = &q->ad->prof;
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_tx_end e = ch39x_tx_agg_finish(p, a);

	x->len = e.len;
	x->zlp = e.zlp;
	q->c.zlps += e.zlp;
	q->c.tx_ls += e.tx_ls;
	if (u->ops->submit(u, x) != 0) {
		q->c.usb_errors++;
		q->free[q->nb_free++] = x;
		return;
	}
	(*xfers)++;
	*xbytes += e.len;
}

/* Gather a (possibly chained) mbuf into the transfer buffer. */
static void
tx_gather(uint8_t *dst, const struct rte_mbuf *m)
{
	for (; m != NULL; m = m->next) {
		rte_memcpy(dst, rte_pktmbuf_mtod(m, const void *), m->data_len);
		dst += m->data_len;
	}
}

uint16_t
ch39x_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ch39x_txq *q = txq;
	const struct ch39x_profile *p = &q->ad->prof;
	struct ch39x_usb_dev *u = q->ad->usb;
	struct ch39x_xfer *done[CH39X_MAX_XFERS];
	struct ch39x_xfer *x = NULL;
	struct ch39x_tx_desc d;
	struct ch39x_tx_agg a;
	uint64_t bytes = 0, xfers = 0, xbytes = 0, invalid = 0, sent = 0;
	unsigned int k, i;
	uint16_t n;
	uint32_t len;

	/* Recycle the transfers the device has finished with. */
	k = u->ops->poll(u, CH39X_EP_BULK_OUT, done, CH39X_MAX_XFERS);
	for (i = 0; i < k; i++) {
		if (done[i]->status != CH39X_XFER_OK)
			q->c.usb_errors++;
		q->free[q->nb_free++] = done[i];
	}

	memset(&d, 0, sizeof(d));
	for (n = 0; n < nb; n++) {
		len = pkts[n]->pkt_len;
		if (unlikely(len < RTE_ETHER_HDR_LEN || len > q->max_frame)) {
			invalid++;
			continue;
		}
		if (x != NULL && !ch39x_tx_agg_fits(p, &a, len)) {
			tx_submit(q, x, &a, &xfers, &xbytes);
			x = NULL;
		}
		if (x == NULL) {
			if (q->nb_free == 0) {
				q->c.full++;
				break;
			}
			x = q->free[--q->nb_free];
			ch39x_tx_agg_init(&a, x->buf);
		}
		d.len = len;
		tx_gather(ch39x_tx_agg_add(p, &a, &d), pkts[n]);
		bytes += len;
		sent++;
	}
	if (x != NULL)
		tx_submit(q, x, &a, &xfers, &xbytes);
	rte_pktmbuf_free_bulk(pkts, n);
	q->c.packets += sent;
	q->c.bytes += bytes;
	q->c.invalid += invalid;
	q->c.usb_xfers += xfers;
	q->c.usb_bytes += xbytes;
	return n;
}
