/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_QOS_SCHED_H
#define CPE_QOS_SCHED_H

/*
 * The WAN schedulers (--wan-rate, --down-rate): priority under
 * congestion. The qos node hands them the packets for a shaped
 * interface (the uplink's: the WAN's; the downlink's: what came in on the
 * WAN and leaves by a LAN interface), the qos_tx node (a source: every
 * walk) lets out what their shapers allow towards the ports' port_tx
 * nodes. The lib's pure parts do the work: the classifier
 * (qos_class.c), the flow queues with CoDel (fq.c), the token bucket
 * (shaper.c).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "dp.h"
#include "fq.h"
#include "iface.h"
#include "qos.h"
#include "shaper.h"

#define CPE_QOS_PEND_MAX	(2 * CPE_BURST)	/* fq: arrivals batched */

/* An arrival for the flow queues, classified and hashed (fq_pend()). */
struct cpe_qos_pend {
	struct rte_mbuf *m;
	uint32_t hash;
	uint8_t cls;
};

struct cpe_qos_class {
	struct rte_mbuf **q;	/* FIFO: ring of cap packets */
	uint32_t head, n;	/* n: packets held, in either mode */
	uint64_t enq, sent, drops, bytes, qmax;
	uint64_t bypassed;	/* sent without waiting (bypass()) */
	struct cpe_fq fq;	/* flow queues (cpe_qos_sched.fq) */
};

/* One scheduler: the uplink's (WAN egress) or the downlink's. */
struct cpe_qos_sched {
	struct cpe_qos_map map;
	uint32_t nb, cap, overhead;
	struct cpe_shaper sh;	/* TSC ticks */
	uint32_t held;		/* packets in all classes */
	uint64_t tx_full;	/* dequeues a port's full TX queue cut */
	uint64_t deq_cycles;	/* TSC cycles in cpe_qos_dequeue() */
	bool on;
	bool fq;		/* flow queues, else a FIFO per class */
	bool stop;		/* an output port's TX queue full: no more */
	uint32_t seed;		/* of the flow hash: not guessable outside */
	uint32_t npend;		/* in pend[], not yet in their classes */
	uint16_t nb_out;	/* the interfaces it sends by */
	uint16_t out[CPE_MAX_PORTS];
	uint16_t sent_to[CPE_MAX_PHYS];	/* this dequeue, per DPDK port */
	struct cpe_qos_pend pend[CPE_QOS_PEND_MAX];
	struct cpe_qos_class c[CPE_QOS_MAX_CLASSES];
};

struct cpe_qos {
	struct cpe_qos_sched up, down;
	const struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_opts *o;
};

/* Where a scheduler puts what leaves (the output interface in
 * m->hash.usr), at most cap packets. */
struct cpe_qos_out {
	struct rte_mbuf **pkts;
	uint16_t n, cap;
};

/* The mbufs the schedulers may hold, for the pool's size. */
uint32_t cpe_qos_mbufs(const struct cpe_qos_cfg *c);
/* The schedulers of o (either or both off); NULL: no memory (reported). */
struct cpe_qos *cpe_qos_create(const struct cpe_opts *o,
			       const struct cpe_env *env,
			       const struct cpe_ifaces *ifs);
/* What they hold freed. */
void cpe_qos_free(struct cpe_qos *q);
/* m for interface idx, into scheduler s; or at once into out when
 * nothing waits (bypass). */
void cpe_qos_enqueue(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
		     uint16_t idx, struct rte_mbuf *m, uint64_t now,
		     struct cpe_qos_out *out);
/* What the shaper of s lets out now, into out. */
void cpe_qos_dequeue(struct cpe_qos_sched *s, const struct cpe_ifaces *ifs,
		     struct cpe_qos_out *out);
/*
 * A loop that sleeps when idle must not sleep through held packets:
 * while cpe_qos_pending() is true, qos_tx must run again no later than
 * cpe_qos_next_tsc(), the TSC at which a shaper can send the next
 * packet (already past when it can send now; UINT64_MAX with nothing
 * held). A full TX queue of a port (PMD back-pressure) is not in it.
 */
bool cpe_qos_pending(const struct cpe_qos *q);
uint64_t cpe_qos_next_tsc(const struct cpe_qos *q);
/* qos_show.c: the statistics lines and the exit JSON's objects. */
void cpe_qos_print(const struct cpe_qos *q, FILE *f);
void cpe_qos_json(const struct cpe_qos *q, FILE *f);

#endif /* CPE_QOS_SCHED_H */
