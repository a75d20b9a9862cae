/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The RX queue's life cycle, on the control thread: its bulk IN transfers
 * and their buffers (the transport's, or one EAL block for zero-copy RX),
 * the zero-copy bookkeeping, binding to the port's configuration, start
 * (every transfer submitted), stop (drained) and free. The bursts that
 * run on the queue are in ch39x_rx.c.
 */

#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ch39x_adapter.h"
#include "ch39x_logs.h"
#include "ch39x_rx.h"
#include "ch39x_rxq.h"
#include "ch39x_xfer_buf.h"

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

/*
 * Buffers of size bytes for every RX transfer: the transport's (q->bufs
 * NULL) unless zero-copy RX needs IOVAs that only EAL memory has
 * (ch39x_xfer_buf.h), else one rte_malloc block. Old buffers untouched.
 */
static int
rxq_bufs_alloc(struct ch39x_rxq *q, struct ch39x_xfer *xfers, uint32_t size,
	       uint8_t **block)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	uint16_t n_usbfs, i;
	int rc = -ENOTSUP;

	*block = NULL;
	if (q->copybreak == 0 || ch39x_xfer_buf_iova_va())
		rc = ch39x_xfer_bufs_alloc(u, xfers, q->nb_xfers, size,
					   &n_usbfs);
	if (rc == 0) {
		PMD_LOG(INFO, "port %u: %u RX transfer buffers of %u bytes "
			"from the %s transport, %u in usbfs memory",
			q->port_id, q->nb_xfers, size, u->ops->name, n_usbfs);
		return 0;
	}
	if (rc != -ENOTSUP)
		return rc;
	if (q->copybreak != 0 && u != NULL && u->ops->buf_alloc != NULL)
		PMD_LOG(INFO, "port %u: IOVA-as-PA: zero-copy RX buffers from "
			"rte_malloc, not the %s transport", q->port_id,
			u->ops->name);
	*block = rte_malloc("ch39x_rx_bufs", (size_t)size * q->nb_xfers, 64);
	if (*block == NULL)
		return -ENOMEM;
	for (i = 0; i < q->nb_xfers; i++)
		xfers[i].buf = *block + (size_t)i * size;
	return 0;
}


int
ch39x_rxq_alloc(struct ch39x_adapter *ad, struct ch39x_rxq *q,
		uint16_t nb_desc)
{
	static uint32_t ring_seq;
	char name[RTE_RING_NAMESIZE];
	uint16_t i;
	int rc;

	q->nb_xfers = ch39x_nb_xfers(ad->args.rx_xfers, nb_desc,
				     ad->prof.rx_xfers, ad->prof.rx_xfer_size,
				     ad->prof.rx_xfer_size);
	q->xfers = rte_zmalloc("ch39x_rx_xfers",
			       sizeof(*q->xfers) * q->nb_xfers, 0);
	if (q->xfers == NULL)
		return -ENOMEM;
	q->copybreak = ad->args.rx_copybreak;
	/* An external buffer's length is 16 bits wide. */
	if (q->copybreak && ad->prof.rx_xfer_size > UINT16_MAX) {
		PMD_LOG(WARNING, "rx_copybreak needs xfer_size <= 65535; "
			"copying every frame");
		q->copybreak = 0;
	}
	rc = rxq_bufs_alloc(q, q->xfers, ad->prof.rx_xfer_size, &q->bufs);
	if (rc != 0)
		return rc;
	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].ep = CH39X_EP_BULK_IN;
		q->xfers[i].len = ad->prof.rx_xfer_size;
		q->xfers[i].user = q;
	}
	ch39x_rx_parser_init(&q->parser, &ad->prof);
	ch39x_rx_ol_init(q);
	if (ch39x_ops(ad)->rxq_init != NULL)
		ch39x_ops(ad)->rxq_init(ad, q);
	if (q->copybreak == 0)
		return 0;
	if (q->bufs != NULL)
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

/*
 * The RX queue as the port is configured (offloads, MTU, the pool's data
 * room), at set-up and at every start.
 */
int
ch39x_rxq_bind(struct rte_eth_dev *dev, struct ch39x_rxq *q)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	uint16_t room = (uint16_t)(rte_pktmbuf_data_room_size(q->mp) -
				   RTE_PKTMBUF_HEADROOM);

	uint64_t ol = dev->data->dev_conf.rxmode.offloads;

	q->scatter = (ol & RTE_ETH_RX_OFFLOAD_SCATTER) ||
		dev->data->scattered_rx;
	q->vlan_strip = (ol & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
	/* Stripped by the device where it can, else by the copy. */
	q->sw_vlan_strip = q->vlan_strip &&
		!(ad->caps & CH39X_CAP_VLAN_STRIP);
	q->sw_csum = ad->args.rx_csum_sw &&
		(ol & RTE_ETH_RX_OFFLOAD_CHECKSUM) != 0;
	q->max_frame = dev->data->mtu + CH39X_L2_OVERHEAD;
	q->data_room = room;
	if (q->max_frame > room && !q->scatter) {
		PMD_LOG(ERR, "%s: MTU %u makes frames of up to %u bytes, more "
			"than the %u-byte mbuf data room; enable "
			"RTE_ETH_RX_OFFLOAD_SCATTER (testpmd --enable-scatter) "
			"or use larger mbufs", dev->data->name,
			dev->data->mtu, q->max_frame, room);
		return -EINVAL;
	}
	return 0;
}

/* Control thread, queue stopped or never started. */
void
ch39x_rxq_free(struct ch39x_rxq *q)
{
	if (q == NULL)
		return;
	if (q->lent) {
		/*
		 * The application still holds mbufs that point into transfer
		 * buffers: leaking them is safe, freeing them is not.
		 */
		PMD_LOG(ERR, "port %u: %u RX transfers still lent to mbufs "
			"the application holds; their memory is not freed",
			q->port_id, q->lent);
		return;
	}
	rte_ring_free(q->returned);
	rte_free(q->shinfo);
	/* Transport buffers, one per transfer, when there is no block. */
	if (q->bufs == NULL)
		ch39x_xfer_bufs_free(q->ad->usb, q->xfers, q->nb_xfers);
	rte_free(q->xfers);
	rte_free(q->bufs);
	rte_free(q);
}

/* Give the stopped RX queue transfer buffers of size bytes. */
int
ch39x_rxq_resize(struct ch39x_adapter *ad, uint32_t size)
{
	struct ch39x_rxq *q = ad->rxq;
	struct ch39x_xfer *nx;
	uint8_t *bufs;
	uint16_t i;
	int rc;

	if (q->lent) {
		PMD_LOG(ERR, "%s: the MTU needs larger RX transfers, but the "
			"application still holds mbufs attached to the old "
			"ones (rx_copybreak); free them first",
			ad->dev->data->name);
		return -EBUSY;
	}
	/* The new buffers first: on failure the queue keeps the old ones. */
	nx = rte_zmalloc("ch39x_rx_xfers", sizeof(*nx) * q->nb_xfers, 0);
	if (nx == NULL)
		return -ENOMEM;
	rc = rxq_bufs_alloc(q, nx, size, &bufs);
	if (rc != 0) {
		rte_free(nx);
		return rc;
	}
	if (q->bufs == NULL)
		ch39x_xfer_bufs_free(ad->usb, q->xfers, q->nb_xfers);
	rte_free(q->bufs);
	q->bufs = bufs;
	if (bufs != NULL)
		q->bufs_iova = rte_malloc_virt2iova(bufs);
	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].buf = nx[i].buf;
		q->xfers[i].len = size;
	}
	rte_free(nx);
	ad->prof.rx_xfer_size = size;
	return 0;
}

/* The rearm_data of a fresh mbuf of this queue (ch39x_rxq.rearm). */
static uint64_t
rx_rearm_template(const struct ch39x_rxq *q)
{
	struct rte_mbuf m = { .nb_segs = 1 };
	uint64_t v;

	m.data_off = (uint16_t)RTE_MIN((unsigned int)RTE_PKTMBUF_HEADROOM,
				       rte_pktmbuf_data_room_size(q->mp));
	m.port = q->port_id;
	rte_mbuf_refcnt_set(&m, 1);
	memcpy(&v, (uint8_t *)&m + offsetof(struct rte_mbuf, rearm_data),
	       sizeof(v));
	return v;
}

int
ch39x_rxq_start(struct ch39x_rxq *q)
{
	struct ch39x_usb_dev *u = q->ad->usb;
	uint16_t i;
	void *p;
	int rc;

	q->rearm = rx_rearm_template(q);
	/*
	 * A pool of pinned external buffers (rte_pktmbuf_pool_create_extbuf)
	 * has every mbuf flagged external, and keeps the flag; any other
	 * pool's mbufs come with no flag.
	 */
	q->ol_rearm = (rte_pktmbuf_priv_flags(q->mp) &
		       RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) ?
		RTE_MBUF_F_EXTERNAL : 0;

	/* Transfers the application still holds come back by the ring. */
	while (q->returned && rte_ring_sc_dequeue(q->returned, &p) == 0)
		q->lent--;
	q->nb_parked = 0;	/* not in flight: submitted below */
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

/* Cancel every transfer and wait for all of them to come back. */
void
ch39x_drain_ep(struct ch39x_usb_dev *u, enum ch39x_ep ep, struct ch39x_xfer *xs,
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

	ch39x_drain_ep(q->ad->usb, CH39X_EP_BULK_IN, q->xfers, q->nb_xfers);
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
