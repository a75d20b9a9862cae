/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Priority under congestion on the WAN port (--wan-rate): the WAN's
 * packets wait in one bounded FIFO per class (tail drop, counted per
 * class) and leave under a token-bucket shaper at the configured rate,
 * always from the highest-priority class that holds a packet (strict
 * priority). The shaper makes the router the bottleneck of the uplink,
 * so the queue forms here, where the classes are, and not in the
 * adapter, the modem or the ISP's equipment, where EF waits behind bulk.
 *
 * cpe_tx() hands every WAN packet here (fast path, slow path, ARP, ICMP,
 * whatever made it); cpe_tx_flush(), once per loop of the forwarding
 * lcore whether or not it received anything, moves what the shaper allows
 * into the port's TX queue. Without --wan-rate none of this runs.
 *
 * Tokens are counted in bits times TSC cycles per second, so that a
 * refill is one multiplication (elapsed cycles x rate in bit/s) and a
 * packet costs (length + overhead) x 8 x hz: integers, no rounding drift.
 * The bucket holds 2 ms at the rate, at least two full frames: enough to
 * ride out a loop the scheduler preempted, small enough that what it
 * releases at once does not queue downstream. A packet may leave when
 * the bucket is not negative; its cost can take the bucket below zero,
 * which the next packets then wait for, so the rate holds on average
 * without the head of the queue having to fit.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "cpe.h"

#define BUCKET_US	2000	/* bucket depth in time at the rate */

struct qos_class {
	struct rte_mbuf **q;	/* ring of cap packets */
	uint32_t head, n;
	uint64_t enq, sent, drops, bytes, qmax;
};

static struct {
	struct cpe_qos_map map;
	uint32_t nb, cap, overhead;
	uint64_t rate;		/* bits/s */
	uint64_t cost;		/* bucket units per byte: 8 * hz */
	int64_t tokens;		/* bits x hz */
	int64_t depth;
	uint64_t last;		/* TSC of the last refill */
	uint64_t max_gap;	/* cycles that fill an empty bucket */
	uint32_t held;		/* packets in all classes */
	uint64_t stalls;	/* refills that overflowed with packets held */
	uint64_t stall_cycles;	/* the time those lost, beyond the bucket */
	uint64_t tx_full;	/* dequeues the port's full TX queue cut */
	struct qos_class c[CPE_QOS_MAX_CLASSES];
} qos;

bool cpe_qos_on;

uint32_t
cpe_qos_mbufs(void)
{
	const struct cpe_qos_cfg *c = &cpe.o->qos;

	return c->rate ? c->classes * c->queue : 0;
}

int
cpe_qos_init(void)
{
	const struct cpe_qos_cfg *c = &cpe.o->qos;
	uint64_t frame, burst;
	uint32_t i;

	if (c->rate == 0 || cpe.wan < 0)
		return 0;
	memset(&qos, 0, sizeof(qos));
	cpe_qos_map_build(c, &qos.map);
	qos.nb = c->classes;
	qos.cap = c->queue;
	qos.overhead = c->overhead;
	qos.rate = c->rate;
	qos.cost = 8 * cpe.hz;
	frame = cpe.o->mtu + RTE_ETHER_HDR_LEN + 8 + qos.overhead;
	burst = c->rate / 8 * BUCKET_US / 1000000;
	if (burst < 2 * frame)
		burst = 2 * frame;
	qos.depth = (int64_t)(burst * qos.cost);
	qos.tokens = qos.depth;
	qos.max_gap = (uint64_t)qos.depth / qos.rate + 1;
	qos.last = 0;	/* the first dequeue starts the clock */
	for (i = 0; i < qos.nb; i++) {
		qos.c[i].q = calloc(qos.cap, sizeof(qos.c[i].q[0]));
		if (qos.c[i].q == NULL) {
			fprintf(stderr, "ch39x-cpe: --qos-queue %u: no memory "
				"for %u classes\n", qos.cap, qos.nb);
			cpe_qos_close();
			return -ENOMEM;
		}
	}
	cpe_qos_on = true;
	return 0;
}

void
cpe_qos_close(void)
{
	struct qos_class *k;
	uint32_t i;

	cpe_qos_on = false;
	for (i = 0; i < CPE_QOS_MAX_CLASSES; i++) {
		k = &qos.c[i];
		while (k->n) {
			rte_pktmbuf_free(k->q[k->head]);
			k->head = (k->head + 1) % qos.cap;
			k->n--;
		}
		free(k->q);
		k->q = NULL;
	}
	qos.held = 0;
}

static uint8_t
classify(const struct rte_mbuf *m)
{
	int pcp = -1;

	if (m->ol_flags & RTE_MBUF_F_TX_VLAN)
		pcp = m->vlan_tci >> 13;
	return cpe_qos_classify(&qos.map, rte_pktmbuf_mtod(m, const uint8_t *),
				rte_pktmbuf_data_len(m), pcp);
}

void
cpe_qos_enqueue(struct rte_mbuf *m)
{
	struct qos_class *k = &qos.c[classify(m)];

	k->enq++;
	if (k->n == qos.cap) {
		/* Tail drop: the queue's oldest keep their place. */
		k->drops++;
		rte_pktmbuf_free(m);
		return;
	}
	k->q[(k->head + k->n) % qos.cap] = m;
	k->n++;
	qos.held++;
	if (k->n > k->qmax)
		k->qmax = k->n;
}

static void
refill(uint64_t now)
{
	uint64_t gap;

	if (unlikely(qos.last == 0))
		qos.last = now;
	gap = now - qos.last;
	if (gap > qos.max_gap) {
		/*
		 * The loop did not run for longer than the bucket lasts (the
		 * thread was preempted): with packets waiting, the uplink
		 * idled and that time is lost to them. Counted, to tell a
		 * rate below --wan-rate from a shaper that runs slow.
		 */
		if (qos.held) {
			qos.stalls++;
			qos.stall_cycles += gap - qos.max_gap;
		}
		gap = qos.max_gap;
	}
	qos.last = now;
	qos.tokens += (int64_t)(gap * qos.rate);
	if (qos.tokens > qos.depth)
		qos.tokens = qos.depth;
}

void
cpe_qos_dequeue(void)
{
	struct cpe_port *p = &cpe.ports[cpe.wan];
	struct qos_class *k;
	struct rte_mbuf *m;
	uint32_t len;

	refill(rte_rdtsc());
	/* The port's TX queue full (PMD back-pressure): the rest waits. */
	while (qos.held && qos.tokens >= 0 && p->nb_tx < CPE_TXQ) {
		for (k = qos.c; k->n == 0; k++)
			;
		m = k->q[k->head];
		k->head = (k->head + 1) % qos.cap;
		k->n--;
		qos.held--;
		len = rte_pktmbuf_pkt_len(m);
		qos.tokens -= (int64_t)((len + qos.overhead) * qos.cost);
		k->sent++;
		k->bytes += len;
		p->txlen[p->nb_tx] = len;
		p->txq[p->nb_tx++] = m;
	}
	if (qos.held && qos.tokens >= 0)
		qos.tx_full++;
}

bool
cpe_qos_pending(void)
{
	return qos.held != 0;
}

uint64_t
cpe_qos_next_tsc(void)
{
	if (qos.held == 0)
		return UINT64_MAX;
	if (qos.tokens >= 0)
		return qos.last;
	/* Bucket back at zero: -tokens / rate cycles after the refill. */
	return qos.last + ((uint64_t)-qos.tokens + qos.rate - 1) / qos.rate;
}

static double
stall_ms(void)
{
	return cpe.hz ? (double)qos.stall_cycles * 1e3 / (double)cpe.hz : 0;
}

void
cpe_qos_print(FILE *f)
{
	const struct qos_class *k;
	uint32_t i;

	if (!cpe_qos_on)
		return;
	fprintf(f, "  qos wan: rate %" PRIu64 " bit/s overhead %u B queue %u "
		"packets/class held %u stalls %" PRIu64 " (%.1f ms) tx_full %"
		PRIu64 "\n", qos.rate, qos.overhead, qos.cap, qos.held,
		qos.stalls, stall_ms(), qos.tx_full);
	for (i = 0; i < qos.nb; i++) {
		k = &qos.c[i];
		fprintf(f, "    class %u: enqueued %" PRIu64 " sent %" PRIu64
			" dropped %" PRIu64 " bytes %" PRIu64 " queue_max %"
			PRIu64 "\n", i, k->enq, k->sent, k->drops, k->bytes,
			k->qmax);
	}
}

void
cpe_qos_json(FILE *f)
{
	const struct qos_class *k;
	uint32_t i;

	fprintf(f, "  \"qos\": {\"rate_bps\": %" PRIu64 ", \"overhead\": %u, "
		"\"queue\": %u, \"held\": %u, \"stalls\": %" PRIu64
		", \"stall_ms\": %.1f, \"tx_full\": %" PRIu64
		", \"classes\": [", cpe_qos_on ? qos.rate : 0, qos.overhead,
		qos.cap, qos.held, qos.stalls, stall_ms(), qos.tx_full);
	for (i = 0; cpe_qos_on && i < qos.nb; i++) {
		k = &qos.c[i];
		fprintf(f, "%s\n    {\"class\": %u, \"enqueued\": %" PRIu64
			", \"sent\": %" PRIu64 ", \"dropped\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"queue_max\": %" PRIu64 "}",
			i ? "," : "", i, k->enq, k->sent, k->drops, k->bytes,
			k->qmax);
	}
	fprintf(f, "%s]},\n", cpe_qos_on && qos.nb ? "\n  " : "");
}
