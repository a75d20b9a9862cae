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
 * The qos node hands every WAN packet here (fast path, slow path, ARP,
 * ICMP, whatever made it); the qos_tx node, once per walk of the graph
 * whether or not it received anything, moves what the shaper allows
 * towards the port's port_tx node. Without --wan-rate none of this runs.
 *
 * Inside a class the packets wait either in one FIFO (--qos-fq off) or,
 * by default, in flow queues with CoDel (fq.c, RFC 8290): a sparse flow
 * (a game, a call, DNS, an unmarked ping) beside bulk uploads waits for
 * no backlog but its own, and CoDel keeps the bulk flows' standing queue
 * near its 5 ms target by marking (ECN) or dropping. Strict priority
 * between the classes stays: a class is served only when the ones above
 * it are empty, and the DSCP/PCP marks keep the meaning they had.
 *
 * The shaper is a token bucket (shaper.c): 2 ms at the rate, at least
 * two full frames, when nothing waits: small enough that what it
 * releases at once does not queue downstream. While packets wait, the
 * time the loop did not run (its thread preempted, a sleep that overran)
 * is credited to them up to --qos-catchup (20 ms) at the rate, so that a
 * loop that runs late makes the time up instead of losing it to the rate;
 * the long-term rate holds, a burst after a stall is at most that long
 * (shaper.h). In the QEMU guest of doc/guides/cpe.rst the loop, packets
 * waiting, did not run for 5 to 7 ms at a time on average (its vCPU
 * preempted, or busy with the guest kernel's USB transfers), and without
 * the catch-up the uplink lost that time: 30 to 60 % of 20 Mbit/s.
 *
 * The downlink (--down-rate) is a second instance of the same scheduler,
 * with the same classes, queues and options, on the same lcore: what
 * came in on the WAN and leaves by a LAN port waits in it and leaves a
 * little below the line's rate, so that the downloads' queue forms here
 * (where the flow queues keep a sparse flow apart from it) and not in the
 * ISP's equipment or in the LAN port's TX path (the PMD, USB), where the
 * replies to a LAN host's ping wait behind it; cake's ingress mode does
 * the same. One instance for all the LAN ports, not one per port: the
 * rate is the WAN line's, which all of them share. So each packet keeps
 * the interface it leaves by (in the mbuf's hash.usr, a tag DPDK leaves
 * to the application and which nothing reads after routing), and a
 * dequeue that fills one of the instance's ports' TX queues ends there.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "qos_sched.h"

#define BUCKET_US	2000	/* bucket depth in time at the rate */
#define PEND_AHEAD	4	/* tail entries fetched this far ahead */

static void fq_drain(struct cpe_qos_sched *s, uint64_t now);

uint32_t
cpe_qos_mbufs(const struct cpe_qos_cfg *c)
{
	return ((c->rate ? 1 : 0) + (c->down_rate ? 1 : 0)) * c->classes *
		c->queue;
}

static void
fq_drop(void *pkt, void *ctx __rte_unused)
{
	rte_pktmbuf_free(pkt);
}

/*
 * What an overflow took from the fattest flow's head: mbufs queued long
 * ago, out of the cache. Both of each one's lines (the free reads the
 * reference count and the next segment) are asked for at once, so that
 * the misses overlap instead of coming one free after another, and the
 * mbufs go back to their pool in one call.
 */
static void
fq_drop_bulk(void **pkts, uint32_t n, void *ctx __rte_unused)
{
	struct rte_mbuf *m[CPE_FQ_DROP_BATCH];
	uint32_t i;

	for (i = 0; i < n; i++) {
		m[i] = pkts[i];
		rte_prefetch0(m[i]);
		rte_prefetch0(RTE_PTR_ADD(m[i], RTE_CACHE_LINE_SIZE));
	}
	rte_pktmbuf_free_bulk(m, n);
}

static bool
fq_mark(void *pkt, void *ctx __rte_unused)
{
	struct rte_mbuf *m = pkt;

	return cpe_qos_ecn_mark(rte_pktmbuf_mtod(m, uint8_t *),
				rte_pktmbuf_data_len(m));
}

static int
fq_init(struct cpe_fq *q, const struct cpe_qos *qos)
{
	const struct cpe_qos_cfg *c = &qos->o->qos;
	uint64_t per_us = qos->env->hz / 1000000 ? qos->env->hz / 1000000 : 1;
	const struct cpe_fq_params p = {
		.target = c->target_us * per_us,
		.interval = c->interval_us * per_us,
		.ticks_per_us = per_us,
		.quantum = c->quantum,
		.flows = c->flows,
		.limit = c->queue,
		.mtu = qos->o->mtu + RTE_ETHER_HDR_LEN,
		.ecn = c->ecn,
	};
	const struct cpe_fq_ops ops = {
		.drop = fq_drop, .drop_bulk = fq_drop_bulk, .mark = fq_mark,
	};

	return cpe_fq_init(q, &p, &ops);
}

/*
 * The interfaces an instance sends by: the WAN for the uplink, every
 * other one for the downlink (a dequeue stops when one of them is full).
 */
static void
sched_ports(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs, bool wan)
{
	uint16_t i;

	for (i = 0; i < ifs->nb; i++)
		if (ifs->ifs[i].wan == wan)
			s->out[s->nb_out++] = i;
}

static int
sched_init(struct cpe_qos *q, struct cpe_qos_sched *s, uint64_t rate,
	   uint32_t overhead, bool wan)
{
	const struct cpe_qos_cfg *c = &q->o->qos;
	uint64_t frame, burst, catchup;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	cpe_qos_map_build(c, &s->map);
	s->nb = c->classes;
	s->cap = c->queue;
	s->overhead = overhead;
	frame = q->o->mtu + RTE_ETHER_HDR_LEN + 8 + s->overhead;
	burst = rate / 8 * BUCKET_US / 1000000;
	if (burst < 2 * frame)
		burst = 2 * frame;
	catchup = rate / 8 * c->catchup_us / 1000000;
	/* The first dequeue starts the clock. */
	cpe_shaper_init(&s->sh, rate, q->env->hz, burst, catchup);
	s->fq = c->fq;
	s->seed = (uint32_t)rte_rand();
	sched_ports(s, q->ifs, wan);
	for (i = 0; i < s->nb; i++) {
		if (s->fq ? fq_init(&s->c[i].fq, q) != 0 :
		    (s->c[i].q = calloc(s->cap, sizeof(s->c[i].q[0]))) ==
		    NULL) {
			fprintf(stderr, "ch39x-cpe: --qos-queue %u: no memory "
				"for %u classes\n", s->cap, s->nb);
			return -ENOMEM;
		}
	}
	s->on = true;
	return 0;
}

/*
 * The downlink's frames were measured on the WAN with the PPPoE session
 * header, which they no longer have on the LAN side: it is added back to
 * the overhead, as the uplink counts it (ports.c encapsulates first).
 */
static uint32_t
down_overhead(const struct cpe_qos *q)
{
	return q->o->qos.overhead +
		(q->ifs->ifs[q->ifs->wan].pppoe ? CPE_PPPOE_OVERHEAD : 0);
}

struct cpe_qos *
cpe_qos_create(const struct cpe_opts *o, const struct cpe_env *env,
	       const struct cpe_ifaces *ifs)
{
	const struct cpe_qos_cfg *c = &o->qos;
	struct cpe_qos *q = calloc(1, sizeof(*q));
	int rc = 0;

	if (q == NULL)
		return NULL;
	q->o = o;
	q->env = env;
	q->ifs = ifs;
	if (ifs->wan < 0)
		return q;
	if (c->rate != 0)
		rc = sched_init(q, &q->up, c->rate, c->overhead, true);
	if (rc == 0 && c->down_rate != 0)
		rc = sched_init(q, &q->down, c->down_rate, down_overhead(q),
				false);
	if (rc != 0) {
		cpe_qos_free(q);
		return NULL;
	}
	return q;
}

static void
sched_close(struct cpe_qos_sched *s)
{
	struct cpe_qos_class *k;
	uint32_t i;

	if (s->npend)
		fq_drain(s, 0);
	s->on = false;
	for (i = 0; i < CPE_QOS_MAX_CLASSES; i++) {
		k = &s->c[i];
		cpe_fq_free(&k->fq);
		while (k->q != NULL && k->n) {
			rte_pktmbuf_free(k->q[k->head]);
			k->head = (k->head + 1) % s->cap;
			k->n--;
		}
		free(k->q);
		k->q = NULL;
	}
	s->held = 0;
}

void
cpe_qos_free(struct cpe_qos *q)
{
	if (q == NULL)
		return;
	sched_close(&q->up);
	sched_close(&q->down);
	free(q);
}

static int
tag_pcp(const struct rte_mbuf *m)
{
	return m->ol_flags & RTE_MBUF_F_TX_VLAN ? m->vlan_tci >> 13 : -1;
}

/*
 * A packet towards its port's port_tx node, paid for from the bucket.
 * The interface is the one the qos node was given (enqueue()); a port
 * whose TX queue this fills ends the dequeue, so that no port's queue
 * overflows and the rest waits here.
 */
static inline void
out_put(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
     struct cpe_qos_class *k, struct rte_mbuf *m, struct cpe_qos_out *out)
{
	uint16_t phys = ifs->ifs[cpe_out(m)].phys;
	uint32_t len = rte_pktmbuf_pkt_len(m);

	cpe_shaper_pay(&s->sh, len + s->overhead);
	k->sent++;
	k->bytes += len;
	s->sent_to[phys]++;
	if (ifs->phys[phys].tx_backlog + s->sent_to[phys] + 1 >= CPE_TXQ ||
	    out->n + 1 >= out->cap)
		s->stop = true;
	out->pkts[out->n++] = m;
}

/*
 * Nothing waits in any class and the bucket is not negative: the packet
 * would leave at this loop's dequeue as the only one held, so it leaves
 * now, past the queues, counted in its class (sent, and 0 us in the flow
 * queues' delay histogram). The queues' bookkeeping is for packets that
 * wait; a router below its rate has none. False: it must queue.
 */
static __rte_always_inline bool
bypass(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs, uint16_t idx,
       struct rte_mbuf *m, struct cpe_qos_out *out)
{
	struct cpe_qos_class *k;

	if (s->held != 0 || !cpe_shaper_open(&s->sh) ||
	    ifs->phys[ifs->ifs[idx].phys].tx_backlog >= CPE_TXQ ||
	    out->n == out->cap)
		return false;
	k = &s->c[cpe_qos_classify(&s->map,
		rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
		tag_pcp(m))];
	k->enq++;
	k->bypassed++;
	if (s->fq)
		k->fq.st.hist[0]++;
	out_put(s, ifs, k, m, out);
	return true;
}

static void
fq_enqueue(struct cpe_qos_sched *s, struct cpe_qos_class *k, struct rte_mbuf *m,
	   uint32_t hash, uint64_t now)
{
	uint32_t before;

	k->enq++;
	before = k->fq.held;
	/* The loop's TSC, read once per round: a few us early at most. */
	cpe_fq_enqueue(&k->fq, m, rte_pktmbuf_pkt_len(m), hash, now);
	/* One in, and what overflow took out of the fattest flow. */
	k->n = k->fq.held;
	s->held = s->held + k->fq.held - before;
	if (k->n > k->qmax)
		k->qmax = k->n;
}

/*
 * The batched arrivals into their flow queues, in order. Under a flood
 * each one's flow record and tail entry were last touched hundreds of
 * packets ago: the records were asked for as the packets came
 * (fq_pend()), the tail entries are asked for PEND_AHEAD packets ahead
 * here, so that the misses overlap instead of each enqueue waiting for
 * its own.
 */
static void
fq_drain(struct cpe_qos_sched *s, uint64_t now)
{
	const struct cpe_qos_pend *a;
	uint32_t i, n = s->npend;

	for (i = 0; i < n; i++) {
		if (i + PEND_AHEAD < n) {
			a = &s->pend[i + PEND_AHEAD];
			cpe_fq_prefetch_tail(&s->c[a->cls].fq, a->hash);
		}
		a = &s->pend[i];
		fq_enqueue(s, &s->c[a->cls], a->m, a->hash, now);
	}
	s->npend = 0;
}

/*
 * An arrival for the flow queues waits in pend[] until this loop's
 * dequeue (or CPE_QOS_PEND_MAX of them): classified now, while its header is in
 * the cache, queued in order then. Nothing but this thread's dequeue
 * looks at the queues in between, so no packet is treated otherwise
 * than if it had been queued at once; one that could pass the queues
 * (bypass()) does so only when none waits here, as when none was held.
 */
static __rte_always_inline void
fq_pend(struct cpe_qos_sched *s, struct rte_mbuf *m, uint64_t now)
{
	struct cpe_qos_pend *a = &s->pend[s->npend++];

	a->m = m;
	a->cls = cpe_qos_inspect(&s->map,
		rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
		tag_pcp(m), s->seed, &a->hash);
	cpe_fq_prefetch_flow(&s->c[a->cls].fq, a->hash);
	if (s->npend == CPE_QOS_PEND_MAX)
		fq_drain(s, now);
}

static __rte_always_inline void
fifo_enqueue(struct cpe_qos_sched *s, struct rte_mbuf *m)
{
	struct cpe_qos_class *k;

	k = &s->c[cpe_qos_classify(&s->map,
		rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
		tag_pcp(m))];
	k->enq++;
	if (k->n == s->cap) {
		/* Tail drop: the queue's oldest keep their place. */
		k->drops++;
		rte_pktmbuf_free(m);
		return;
	}
	k->q[(k->head + k->n) % s->cap] = m;
	k->n++;
	s->held++;
	if (k->n > k->qmax)
		k->qmax = k->n;
}

/*
 * A packet for interface idx (in the mbuf's hash.usr until out_put()).
 * Inlined with its callees, as it was into each direction's entry
 * before: out of line they cost the uplink about 5 cycles a packet
 * (qos_cost.sh, fifo and fq at 10G).
 */
void
cpe_qos_enqueue(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
		uint16_t idx, struct rte_mbuf *m, uint64_t now,
		struct cpe_qos_out *out)
{
	cpe_set_out(m, idx);
	if (s->npend == 0 && bypass(s, ifs, idx, m, out))
		return;
	if (s->fq)
		fq_pend(s, m, now);
	else
		fifo_enqueue(s, m);
}

/* Strict priority over FIFO classes: the head of the highest non-empty. */
static void
dequeue_fifo(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
	     struct cpe_qos_out *out)
{
	struct cpe_qos_class *k;
	struct rte_mbuf *m;

	while (s->held && cpe_shaper_open(&s->sh) && !s->stop) {
		for (k = s->c; k->n == 0; k++)
			;
		m = k->q[k->head];
		k->head = (k->head + 1) % s->cap;
		k->n--;
		s->held--;
		out_put(s, ifs, k, m, out);
	}
}

/* The same over flow-queue classes; CoDel may drop all a class holds. */
static void
dequeue_fq(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
	   struct cpe_qos_out *out, uint64_t now)
{
	struct cpe_qos_class *k = s->c;
	struct rte_mbuf *m;
	uint32_t len, gone;

	while (s->held && cpe_shaper_open(&s->sh) && !s->stop) {
		while (k->n == 0)
			k++;
		m = cpe_fq_dequeue(&k->fq, now, &len);
		/* Sent or dropped, what left is accounted here. */
		gone = k->n - k->fq.held;
		s->held -= gone;
		k->n = k->fq.held;
		if (m != NULL)
			out_put(s, ifs, k, m, out);
		else if (gone == 0)
			break;	/* its round ended: the next flush goes on */
	}
}

/* One of the instance's ports has a full TX queue (PMD back-pressure). */
static bool
ports_full(const struct cpe_qos_sched *s, const struct cpe_ifaces *ifs)
{
	uint16_t i;

	for (i = 0; i < s->nb_out; i++)
		if (ifs->phys[ifs->ifs[s->out[i]].phys].tx_backlog >= CPE_TXQ)
			return true;
	return false;
}

void
cpe_qos_dequeue(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
		struct cpe_qos_out *out)
{
	uint64_t now = rte_rdtsc();
	bool work;

	if (s->npend)
		fq_drain(s, now);
	work = s->held != 0;
	cpe_shaper_refill(&s->sh, now);
	memset(s->sent_to, 0, sizeof(s->sent_to));
	/* A port's TX queue full (PMD back-pressure): the rest waits. */
	s->stop = work && (ports_full(s, ifs) || out->n == out->cap);
	if (s->fq)
		dequeue_fq(s, ifs, out, now);
	else
		dequeue_fifo(s, ifs, out);
	if (s->held && cpe_shaper_open(&s->sh))
		s->tx_full++;
	/* What is left waits until the next dequeue. */
	cpe_shaper_held(&s->sh, s->held != 0);
	/* What the dequeue side costs when it has work (once a walk). */
	if (work)
		s->deq_cycles += rte_rdtsc() - now;
}

bool
cpe_qos_pending(const struct cpe_qos *q)
{
	return q != NULL && (q->up.held | q->up.npend | q->down.held |
			     q->down.npend) != 0;
}

static uint64_t
sched_next_tsc(const struct cpe_qos_sched *s)
{
	/* Arrivals not yet queued (sent after this loop's dequeue): now. */
	if (s->npend)
		return 0;
	if (s->held == 0)
		return UINT64_MAX;
	return cpe_shaper_next(&s->sh);
}

uint64_t
cpe_qos_next_tsc(const struct cpe_qos *q)
{
	return RTE_MIN(sched_next_tsc(&q->up), sched_next_tsc(&q->down));
}

