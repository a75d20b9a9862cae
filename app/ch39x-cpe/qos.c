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
 * dequeue that fills one of the instance's ports' TX queue ends there.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "cpe.h"
#include "fq.h"
#include "shaper.h"

#define BUCKET_US	2000	/* bucket depth in time at the rate */
#define PEND_MAX	(2 * CPE_BURST)	/* flow queues: arrivals batched */
#define PEND_AHEAD	4	/* tail entries fetched this far ahead */

/* An arrival for the flow queues, classified and hashed (fq_pend()). */
struct qos_pend {
	struct rte_mbuf *m;
	uint32_t hash;
	uint8_t cls;
};

struct qos_class {
	struct rte_mbuf **q;	/* FIFO: ring of cap packets */
	uint32_t head, n;	/* n: packets held, in either mode */
	uint64_t enq, sent, drops, bytes, qmax;
	uint64_t bypassed;	/* sent without waiting (bypass()) */
	struct cpe_fq fq;	/* flow queues (qos_sched.fq) */
};

/* One scheduler: the uplink's (WAN egress) or the downlink's. */
struct qos_sched {
	struct cpe_qos_map map;
	uint32_t nb, cap, overhead;
	struct cpe_shaper sh;	/* TSC ticks */
	uint32_t held;		/* packets in all classes */
	uint64_t tx_full;	/* dequeues the port's full TX queue cut */
	uint64_t deq_cycles;	/* TSC cycles in sched_dequeue() */
	bool on;
	bool fq;		/* flow queues, else a FIFO per class */
	bool stop;		/* an output port's TX queue full: no more */
	uint32_t seed;		/* of the flow hash: not guessable outside */
	uint32_t npend;		/* in pend[], not yet in their classes */
	uint16_t nb_out;	/* the interfaces it sends by */
	uint16_t out[CPE_MAX_PORTS];
	struct qos_pend pend[PEND_MAX];
	struct qos_class c[CPE_QOS_MAX_CLASSES];
};

static struct qos_sched up, down;

bool cpe_qos_on;
bool cpe_qos_down_on;

static void fq_drain(struct qos_sched *s);

uint32_t
cpe_qos_mbufs(void)
{
	const struct cpe_qos_cfg *c = &cpe.o->qos;

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
fq_init(struct cpe_fq *q, const struct cpe_qos_cfg *c)
{
	uint64_t per_us = cpe.hz / 1000000 ? cpe.hz / 1000000 : 1;
	const struct cpe_fq_params p = {
		.target = c->target_us * per_us,
		.interval = c->interval_us * per_us,
		.ticks_per_us = per_us,
		.quantum = c->quantum,
		.flows = c->flows,
		.limit = c->queue,
		.mtu = cpe.o->mtu + RTE_ETHER_HDR_LEN,
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
sched_ports(struct qos_sched *s, bool wan)
{
	uint16_t i;

	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe.ports[i].wan == wan)
			s->out[s->nb_out++] = i;
}

static int
sched_init(struct qos_sched *s, uint64_t rate, uint32_t overhead, bool wan)
{
	const struct cpe_qos_cfg *c = &cpe.o->qos;
	uint64_t frame, burst, catchup;
	uint32_t i;

	memset(s, 0, sizeof(*s));
	cpe_qos_map_build(c, &s->map);
	s->nb = c->classes;
	s->cap = c->queue;
	s->overhead = overhead;
	frame = cpe.o->mtu + RTE_ETHER_HDR_LEN + 8 + s->overhead;
	burst = rate / 8 * BUCKET_US / 1000000;
	if (burst < 2 * frame)
		burst = 2 * frame;
	catchup = rate / 8 * c->catchup_us / 1000000;
	/* The first dequeue starts the clock. */
	cpe_shaper_init(&s->sh, rate, cpe.hz, burst, catchup);
	s->fq = c->fq;
	s->seed = (uint32_t)rte_rand();
	sched_ports(s, wan);
	for (i = 0; i < s->nb; i++) {
		if (s->fq ? fq_init(&s->c[i].fq, c) != 0 :
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
down_overhead(void)
{
	return cpe.o->qos.overhead +
		(cpe.ports[cpe.wan].pppoe ? CPE_PPPOE_OVERHEAD : 0);
}

int
cpe_qos_init(void)
{
	const struct cpe_qos_cfg *c = &cpe.o->qos;
	int rc = 0;

	if (cpe.wan < 0)
		return 0;
	if (c->rate != 0)
		rc = sched_init(&up, c->rate, c->overhead, true);
	if (rc == 0 && c->down_rate != 0)
		rc = sched_init(&down, c->down_rate, down_overhead(), false);
	if (rc != 0) {
		cpe_qos_close();
		return rc;
	}
	cpe_qos_on = up.on;
	cpe_qos_down_on = down.on;
	return 0;
}

static void
sched_close(struct qos_sched *s)
{
	struct qos_class *k;
	uint32_t i;

	if (s->npend)
		fq_drain(s);
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
cpe_qos_close(void)
{
	cpe_qos_on = false;
	cpe_qos_down_on = false;
	sched_close(&up);
	sched_close(&down);
}

static int
tag_pcp(const struct rte_mbuf *m)
{
	return m->ol_flags & RTE_MBUF_F_TX_VLAN ? m->vlan_tci >> 13 : -1;
}

/*
 * A packet into its port's TX queue, paid for from the bucket. The port
 * is the one cpe_tx() was given (enqueue()); one it fills ends the
 * dequeue, so that no port's queue overflows and the rest waits here.
 */
static inline void
send(struct qos_sched *s, struct qos_class *k, struct rte_mbuf *m)
{
	uint16_t idx = (uint16_t)m->hash.usr;
	struct cpe_port *p = &cpe.ports[idx];
	uint32_t len = rte_pktmbuf_pkt_len(m);

	cpe_shaper_pay(&s->sh, len + s->overhead);
	k->sent++;
	k->bytes += len;
	if (p->nb_tx + 1 >= CPE_TXQ)
		s->stop = true;
	p->txlen[p->nb_tx] = len;
	/* Tagged on the way out, as cpe_tx() does for unshaped ports: the
	 * classes saw the untagged frame (bytes counted without the tag).
	 */
	if (p->vlan && cpe_vlan_tag(idx, m) != 0)
		return;
	p->txq[p->nb_tx++] = m;
}

/*
 * Nothing waits in any class and the bucket is not negative: the packet
 * would leave at this loop's dequeue as the only one held, so it leaves
 * now, past the queues, counted in its class (sent, and 0 us in the flow
 * queues' delay histogram). The queues' bookkeeping is for packets that
 * wait; a router below its rate has none. False: it must queue.
 */
static __rte_always_inline bool
bypass(struct qos_sched *s, uint16_t idx, struct rte_mbuf *m)
{
	struct qos_class *k;

	if (s->held != 0 || !cpe_shaper_open(&s->sh) ||
	    cpe.ports[idx].nb_tx >= CPE_TXQ)
		return false;
	k = &s->c[cpe_qos_classify(&s->map,
		rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
		tag_pcp(m))];
	k->enq++;
	k->bypassed++;
	if (s->fq)
		k->fq.st.hist[0]++;
	send(s, k, m);
	return true;
}

static void
fq_enqueue(struct qos_sched *s, struct qos_class *k, struct rte_mbuf *m,
	   uint32_t hash)
{
	uint32_t before;

	k->enq++;
	before = k->fq.held;
	/* The loop's TSC, read once per round: a few us early at most. */
	cpe_fq_enqueue(&k->fq, m, rte_pktmbuf_pkt_len(m), hash, cpe.now);
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
fq_drain(struct qos_sched *s)
{
	const struct qos_pend *a;
	uint32_t i, n = s->npend;

	for (i = 0; i < n; i++) {
		if (i + PEND_AHEAD < n) {
			a = &s->pend[i + PEND_AHEAD];
			cpe_fq_prefetch_tail(&s->c[a->cls].fq, a->hash);
		}
		a = &s->pend[i];
		fq_enqueue(s, &s->c[a->cls], a->m, a->hash);
	}
	s->npend = 0;
}

/*
 * An arrival for the flow queues waits in pend[] until this loop's
 * dequeue (or PEND_MAX of them): classified now, while its header is in
 * the cache, queued in order then. Nothing but this thread's dequeue
 * looks at the queues in between, so no packet is treated otherwise
 * than if it had been queued at once; one that could pass the queues
 * (bypass()) does so only when none waits here, as when none was held.
 */
static __rte_always_inline void
fq_pend(struct qos_sched *s, struct rte_mbuf *m)
{
	struct qos_pend *a = &s->pend[s->npend++];

	a->m = m;
	a->cls = cpe_qos_inspect(&s->map,
		rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
		tag_pcp(m), s->seed, &a->hash);
	cpe_fq_prefetch_flow(&s->c[a->cls].fq, a->hash);
	if (s->npend == PEND_MAX)
		fq_drain(s);
}

static __rte_always_inline void
fifo_enqueue(struct qos_sched *s, struct rte_mbuf *m)
{
	struct qos_class *k;

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
 * A packet for interface idx; the mbuf keeps idx until send(). Inlined
 * with its callees into each direction's entry, as the one entry was
 * before: out of line they cost the uplink about 5 cycles a packet
 * (qos_cost.sh, fifo and fq at 10G).
 */
static __rte_always_inline void
enqueue(struct qos_sched *s, uint16_t idx, struct rte_mbuf *m)
{
	m->hash.usr = idx;
	if (s->npend == 0 && bypass(s, idx, m))
		return;
	if (s->fq)
		fq_pend(s, m);
	else
		fifo_enqueue(s, m);
}

void
cpe_qos_enqueue(struct rte_mbuf *m)
{
	enqueue(&up, (uint16_t)cpe.wan, m);
}

void
cpe_qos_down_enqueue(uint16_t idx, struct rte_mbuf *m)
{
	enqueue(&down, idx, m);
}

/* Strict priority over FIFO classes: the head of the highest non-empty. */
static void
dequeue_fifo(struct qos_sched *s)
{
	struct qos_class *k;
	struct rte_mbuf *m;

	while (s->held && cpe_shaper_open(&s->sh) && !s->stop) {
		for (k = s->c; k->n == 0; k++)
			;
		m = k->q[k->head];
		k->head = (k->head + 1) % s->cap;
		k->n--;
		s->held--;
		send(s, k, m);
	}
}

/* The same over flow-queue classes; CoDel may drop all a class holds. */
static void
dequeue_fq(struct qos_sched *s, uint64_t now)
{
	struct qos_class *k = s->c;
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
			send(s, k, m);
		else if (gone == 0)
			break;	/* its round ended: the next flush goes on */
	}
}

/* One of the instance's ports has a full TX queue (PMD back-pressure). */
static bool
ports_full(const struct qos_sched *s)
{
	uint16_t i;

	for (i = 0; i < s->nb_out; i++)
		if (cpe.ports[s->out[i]].nb_tx >= CPE_TXQ)
			return true;
	return false;
}

static void
sched_dequeue(struct qos_sched *s)
{
	uint64_t now = rte_rdtsc();
	bool work;

	if (s->npend)
		fq_drain(s);
	work = s->held != 0;
	cpe_shaper_refill(&s->sh, now);
	/* A port's TX queue full (PMD back-pressure): the rest waits. */
	s->stop = work && ports_full(s);
	if (s->fq)
		dequeue_fq(s, now);
	else
		dequeue_fifo(s);
	if (s->held && cpe_shaper_open(&s->sh))
		s->tx_full++;
	/* What is left waits until the next dequeue. */
	cpe_shaper_held(&s->sh, s->held != 0);
	/* What the dequeue side costs when it has work (once a loop). */
	if (work)
		s->deq_cycles += rte_rdtsc() - now;
}

void
cpe_qos_dequeue(void)
{
	if (up.on)
		sched_dequeue(&up);
	if (down.on)
		sched_dequeue(&down);
}

bool
cpe_qos_pending(void)
{
	return (up.held | up.npend | down.held | down.npend) != 0;
}

static uint64_t
sched_next_tsc(const struct qos_sched *s)
{
	/* Arrivals not yet queued (sent after this loop's dequeue): now. */
	if (s->npend)
		return 0;
	if (s->held == 0)
		return UINT64_MAX;
	return cpe_shaper_next(&s->sh);
}

uint64_t
cpe_qos_next_tsc(void)
{
	return RTE_MIN(sched_next_tsc(&up), sched_next_tsc(&down));
}

static double
ms_of(uint64_t ticks)
{
	return cpe.hz ? (double)ticks * 1e3 / (double)cpe.hz : 0;
}

/* What the statistics show of a class, or of all (class -1). */
struct qos_fig {
	uint64_t enq, sent, bytes, qmax, drops, bypassed;
	uint64_t codel, ecn, over, new_flows;
	uint32_t sparse, bulk;
	uint64_t hist[CPE_FQ_HIST];
};

static void
fig_add(struct qos_fig *g, const struct qos_sched *s,
	const struct qos_class *k)
{
	const struct cpe_fq_stats *st = &k->fq.st;
	unsigned int b;

	g->enq += k->enq;
	g->sent += k->sent;
	g->bypassed += k->bypassed;
	g->bytes += k->bytes;
	g->qmax = RTE_MAX(g->qmax, k->qmax);
	if (!s->fq) {
		g->drops += k->drops;
		return;
	}
	g->codel += st->codel_drops;
	g->ecn += st->ecn_marks;
	g->over += st->overlimit_drops;
	g->drops += st->codel_drops + st->overlimit_drops;
	g->new_flows += st->new_flows;
	g->sparse += cpe_fq_sparse(&k->fq);
	g->bulk += cpe_fq_bulk(&k->fq);
	for (b = 0; b < CPE_FQ_HIST; b++)
		g->hist[b] += st->hist[b];
}

static void
fig_of(struct qos_fig *g, const struct qos_sched *s, int cls)
{
	uint32_t i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < s->nb; i++)
		if (cls < 0 || (uint32_t)cls == i)
			fig_add(g, s, &s->c[i]);
}

static void
fig_print(FILE *f, const struct qos_sched *s, const struct qos_fig *g)
{
	fprintf(f, "enqueued %" PRIu64 " sent %" PRIu64 " bypassed %" PRIu64
		" dropped %" PRIu64 " bytes %" PRIu64 " queue_max %" PRIu64,
		g->enq, g->sent, g->bypassed, g->drops, g->bytes, g->qmax);
	if (s->fq)
		fprintf(f, " flows sparse %u bulk %u new %" PRIu64 " codel_drops %"
			PRIu64 " ecn_marks %" PRIu64 " overlimit_drops %" PRIu64
			" delay_us p50 %" PRIu64 " p90 %" PRIu64 " p99 %" PRIu64,
			g->sparse, g->bulk, g->new_flows, g->codel, g->ecn,
			g->over, cpe_fq_hist_pct(g->hist, 50),
			cpe_fq_hist_pct(g->hist, 90),
			cpe_fq_hist_pct(g->hist, 99));
	fputc('\n', f);
}

static void
fig_json(FILE *f, const struct qos_sched *s, const struct qos_fig *g)
{
	fprintf(f, "\"enqueued\": %" PRIu64 ", \"sent\": %" PRIu64
		", \"bypassed\": %" PRIu64 ", \"dropped\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"queue_max\": %" PRIu64, g->enq,
		g->sent, g->bypassed, g->drops, g->bytes, g->qmax);
	if (s->fq)
		fprintf(f, ", \"flows_sparse\": %u, \"flows_bulk\": %u"
			", \"new_flows\": %" PRIu64 ", \"codel_drops\": %"
			PRIu64 ", \"ecn_marks\": %" PRIu64
			", \"overlimit_drops\": %" PRIu64 ", \"delay_us\": "
			"{\"p50\": %" PRIu64 ", \"p90\": %" PRIu64
			", \"p99\": %" PRIu64 "}", g->sparse, g->bulk,
			g->new_flows, g->codel, g->ecn, g->over,
			cpe_fq_hist_pct(g->hist, 50),
			cpe_fq_hist_pct(g->hist, 90),
			cpe_fq_hist_pct(g->hist, 99));
}

static const char *
mode_name(const struct qos_sched *s)
{
	return s->fq ? "fq_codel" : "fifo";
}

static void
sched_print(FILE *f, const struct qos_sched *s, const char *name)
{
	struct qos_fig g;
	uint32_t i;

	if (!s->on)
		return;
	fprintf(f, "  qos %s: rate %" PRIu64 " bit/s overhead %u B %s queue %u "
		"packets/class held %u stalls %" PRIu64 " (%.1f ms, lost %.1f "
		"ms) empty %.1f ms tx_full %" PRIu64 "\n", name, s->sh.rate,
		s->overhead, mode_name(s), s->cap, s->held, s->sh.stalls,
		ms_of(s->sh.stall_ticks), ms_of(s->sh.lost_ticks),
		ms_of(s->sh.empty_ticks), s->tx_full);
	for (i = 0; i < s->nb; i++) {
		fig_of(&g, s, (int)i);
		fprintf(f, "    class %u: ", i);
		fig_print(f, s, &g);
	}
	fig_of(&g, s, -1);
	fprintf(f, "    total: ");
	fig_print(f, s, &g);
}

void
cpe_qos_print(FILE *f)
{
	sched_print(f, &up, "wan");
	sched_print(f, &down, "down");
}

/* "key": {...}, the same figures for either instance (off: rate 0). */
static void
sched_json(FILE *f, const struct qos_sched *s, const char *key)
{
	struct qos_fig g;
	uint32_t i;

	fprintf(f, "  \"%s\": {\"rate_bps\": %" PRIu64 ", \"overhead\": %u, "
		"\"mode\": \"%s\", \"queue\": %u, \"held\": %u, "
		"\"stalls\": %" PRIu64 ", \"stall_ms\": %.1f, \"lost_ms\": "
		"%.1f, \"empty_ms\": %.1f, \"tx_full\": %" PRIu64
		", \"dequeue_cycles\": %" PRIu64, key,
		s->on ? s->sh.rate : 0, s->overhead,
		s->on ? mode_name(s) : "off", s->cap, s->held,
		s->sh.stalls, ms_of(s->sh.stall_ticks),
		ms_of(s->sh.lost_ticks), ms_of(s->sh.empty_ticks),
		s->tx_full, s->deq_cycles);
	if (s->on) {
		fig_of(&g, s, -1);
		fprintf(f, ", \"total\": {");
		fig_json(f, s, &g);
		fprintf(f, "}");
	}
	fprintf(f, ", \"classes\": [");
	for (i = 0; s->on && i < s->nb; i++) {
		fig_of(&g, s, (int)i);
		fprintf(f, "%s\n    {\"class\": %u, ", i ? "," : "", i);
		fig_json(f, s, &g);
		fprintf(f, "}");
	}
	fprintf(f, "%s]},\n", s->on && s->nb ? "\n  " : "");
}

void
cpe_qos_json(FILE *f)
{
	sched_json(f, &up, "qos");
	sched_json(f, &down, "qos_down");
}
