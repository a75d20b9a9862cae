/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_FQ_H
#define CH39X_CPE_FQ_H

/*
 * Flow queueing with CoDel inside one class of the WAN scheduler (RFC
 * 8290, "FQ-CoDel"): packets hashed to a flow queue each, a deficit round
 * robin over the queues that serves new (sparse) flows first, and CoDel
 * (RFC 8289) on every queue, which marks ECN-capable packets or drops
 * from the head once the queue's delay stayed above the target for an
 * interval. When the class's packet memory is full, packets go from the
 * head of the queue holding the most bytes (the lowest-numbered of those
 * that hold as many), found through each block of flows' maximum rather
 * than by reading every flow's count (fq.c, fattest()).
 *
 * Pure code over opaque packets: no DPDK, no clock. Times are ticks of
 * whatever clock the caller passes (qos.c: the TSC; the unit test,
 * tests/cpe/test_fq.c: synthetic times), the caller frees and marks
 * packets through the callbacks. One instance per class, one thread.
 */

#include <stdbool.h>
#include <stdint.h>

#define CPE_FQ_NIL		UINT32_MAX
#define CPE_FQ_HIST		96	/* sojourn histogram buckets */
#define CPE_FQ_DROP_BATCH	64	/* most packets one overflow drops */

struct cpe_fq_params {
	uint64_t target;	/* ticks: CoDel's acceptable standing delay */
	uint64_t interval;	/* ticks: its window, about a worst RTT */
	uint64_t ticks_per_us;	/* for the sojourn histogram */
	uint32_t quantum;	/* bytes a flow may send per round */
	uint32_t flows;		/* flow queues */
	uint32_t limit;		/* packets held in all the queues */
	uint32_t mtu;		/* bytes: CoDel keeps a queue this small */
	bool ecn;		/* mark ECT packets instead of dropping */
};

/*
 * The caller's packets: drop frees one, mark sets CE (false: not ECT).
 * drop_bulk (optional) frees the n packets an overflow took, oldest
 * first, in one call: they were queued long ago and are cold in the
 * cache, which the caller can fetch all at once (NULL: drop each).
 */
struct cpe_fq_ops {
	void (*drop)(void *pkt, void *ctx);
	void (*drop_bulk)(void **pkts, uint32_t n, void *ctx);
	bool (*mark)(void *pkt, void *ctx);
	void *ctx;
};

/* What only the flow queues know (the caller counts packets and bytes). */
struct cpe_fq_stats {
	uint64_t codel_drops;	/* CoDel's drops from the head */
	uint64_t ecn_marks;	/* CoDel's CE marks instead of drops */
	uint64_t overlimit_drops; /* memory full: from the fattest flow */
	uint64_t new_flows;	/* a flow's arrivals into the sparse list */
	uint64_t hist[CPE_FQ_HIST]; /* sojourn of what left, see fq.c */
};

struct cpe_fq_ent {
	void *pkt;
	uint64_t t;		/* enqueue time */
	uint32_t len;
	uint32_t next;		/* in its flow, or in the free list */
};

/* CoDel's state of one flow queue (RFC 8289 section 5). */
struct cpe_fq_codel {
	uint64_t first_above;	/* 0: delay below target */
	uint64_t drop_next;
	uint32_t count, lastcount;
	bool dropping;
};

struct cpe_fq_flow {
	uint32_t head, tail;	/* entries; CPE_FQ_NIL when empty */
	uint32_t n;		/* packets; bytes are in cpe_fq.bytes[] */
	int32_t deficit;
	uint32_t next;		/* in the new or old list */
	uint8_t list;		/* FQ_NONE, FQ_NEW or FQ_OLD */
	struct cpe_fq_codel cd;
};

struct cpe_fq_list {
	uint32_t head, tail, n;
};

struct cpe_fq {
	struct cpe_fq_params p;
	uint64_t us_mult;	/* ticks * us_mult >> 32: microseconds */
	uint32_t rounds;	/* most turns one dequeue takes */
	struct cpe_fq_ops ops;
	struct cpe_fq_flow *flow;
	/* Each flow's bytes, apart: the overflow's scan reads 4 bytes a
	 * flow in a row instead of chasing the flows (Linux's backlogs[]). */
	uint32_t *bytes;
	/*
	 * The flows in blocks of 2^bshift (about the square root of their
	 * number): bmax[] holds each block's most bytes, raised as a flow
	 * grows; a flow at its block's maximum that shrinks sets the
	 * block's bit in stale[], and the overflow recounts such blocks
	 * before it reads bmax[]. So bmax[] never falls below a flow's
	 * bytes, and is exact once recounted.
	 */
	uint32_t *bmax;
	uint64_t *stale;	/* bitmap of blocks */
	uint32_t bshift, blocks;
	struct cpe_fq_ent *ent;
	uint32_t free;		/* first free entry */
	uint32_t held;		/* packets in all flows */
	uint64_t backlog;	/* bytes in all flows */
	struct cpe_fq_list newl, oldl;
	struct cpe_fq_stats st;
};

/* 0, -EINVAL (a parameter out of range) or -ENOMEM. */
int cpe_fq_init(struct cpe_fq *q, const struct cpe_fq_params *p,
		const struct cpe_fq_ops *ops);
/* Drops (through ops.drop) whatever is held and frees the tables. */
void cpe_fq_free(struct cpe_fq *q);
/* Queue pkt of len bytes in flow hash * flows / 2^32 at time now. */
void cpe_fq_enqueue(struct cpe_fq *q, void *pkt, uint32_t len,
		    uint32_t hash, uint64_t now);
/*
 * The next packet to send at time now (len set), or NULL: empty, or
 * CoDel dropped what was left, or (packets still held) the round over
 * the flows ended without one; the next call goes on from there.
 */
void *cpe_fq_dequeue(struct cpe_fq *q, uint64_t now, uint32_t *len);

/*
 * Hints for a caller with several packets to queue (qos.c): fetch the
 * record of the flow hash maps to early, and later (that record in the
 * cache) its tail entry, which cpe_fq_enqueue() links the packet to.
 * Under a flood both were last touched hundreds of packets ago. They
 * read nothing a later call relies on: a flow's tail may change before
 * the enqueue, which is then only slower.
 */
static inline uint32_t
cpe_fq_flow_of(const struct cpe_fq *q, uint32_t hash)
{
	return (uint32_t)(((uint64_t)hash * q->p.flows) >> 32);
}

static inline void
cpe_fq_prefetch_flow(const struct cpe_fq *q, uint32_t hash)
{
	__builtin_prefetch(&q->flow[cpe_fq_flow_of(q, hash)], 1);
}

static inline void
cpe_fq_prefetch_tail(const struct cpe_fq *q, uint32_t hash)
{
	uint32_t t = q->flow[cpe_fq_flow_of(q, hash)].tail;

	if (t != CPE_FQ_NIL)
		__builtin_prefetch(&q->ent[t], 1);
}

/* Flows in the sparse (new) and bulk (old) lists now. */
static inline uint32_t
cpe_fq_sparse(const struct cpe_fq *q)
{
	return q->newl.n;
}

static inline uint32_t
cpe_fq_bulk(const struct cpe_fq *q)
{
	return q->oldl.n;
}

/* The bucket a sojourn of us microseconds counts in, and back. */
unsigned int cpe_fq_hist_bucket(uint64_t us);
uint64_t cpe_fq_hist_upper(unsigned int b);
/* The p-th percentile (0 < p <= 100) of a histogram, in microseconds:
 * the upper bound of its bucket (at most 25 % above the true value);
 * 0 when the histogram is empty. */
uint64_t cpe_fq_hist_pct(const uint64_t *hist, double p);

#endif /* CH39X_CPE_FQ_H */
