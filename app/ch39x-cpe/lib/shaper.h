/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_SHAPER_H
#define CH39X_CPE_SHAPER_H

/*
 * The WAN scheduler's token bucket (qos.c): pure code, no DPDK, no clock.
 * Times are ticks of whatever clock the caller passes (qos.c: the TSC;
 * tests/cpe/test_shaper.c: synthetic times).
 *
 * Tokens are bits times ticks per second, so that a refill is one
 * multiplication (elapsed ticks x rate in bit/s) and a byte costs 8 x hz:
 * integers, no rounding drift. A packet may leave while the bucket is not
 * negative; its cost can take the bucket below zero, which the next
 * packets then wait for, so the rate holds on average without the head of
 * the queue having to fit.
 *
 * The bucket holds depth bytes when nothing waits: what a shaper that
 * had nothing to send may release at once. While packets wait, it may
 * hold up to catchup bytes: time in which the caller's loop did not run
 * (its thread preempted, a sleep that overran) with packets waiting is
 * credited to them, up to that bound, instead of being lost to the rate.
 * Linux's cake does the same without a bound (its next-packet time
 * advances per packet while it has a backlog and is reset to now only
 * when it empties). Over any interval the shaper releases at most
 * rate x interval + catchup bytes, so the rate holds; what leaves after a
 * stall is a burst of at most catchup bytes. The bucket goes back to
 * depth as soon as nothing waits.
 */

#include <stdbool.h>
#include <stdint.h>

struct cpe_shaper {
	uint64_t rate;		/* bit/s */
	uint64_t cost;		/* bucket units per byte: 8 x hz */
	int64_t tokens;		/* bits x hz */
	int64_t depth;		/* the bucket with nothing waiting */
	int64_t catchup;	/* and with packets waiting (>= depth) */
	uint64_t depth_gap;	/* ticks that fill an empty bucket */
	uint64_t catchup_gap;	/* ticks that fill it to catchup */
	uint64_t last;		/* of the last refill */
	bool started;		/* the first refill starts the clock */
	bool waiting;		/* packets held since the last refill */
	/* Statistics. */
	uint64_t stalls;	/* refills later than depth_gap, packets held */
	uint64_t stall_ticks;	/* their time beyond depth_gap */
	uint64_t lost_ticks;	/* beyond what fills the bucket: lost */
	uint64_t empty_ticks;	/* time with nothing waiting */
};

/*
 * rate bit/s, hz ticks per second, the bucket's depth and catch-up in
 * bytes (catchup below depth is taken as depth); full at the start.
 */
void cpe_shaper_init(struct cpe_shaper *s, uint64_t rate, uint64_t hz,
		     uint64_t depth, uint64_t catchup);
/* Tokens for the ticks since the last refill, at now. */
void cpe_shaper_refill(struct cpe_shaper *s, uint64_t now);
/*
 * After the caller's dequeue: whether packets still wait (they wait
 * through the time until the next refill). Without, the bucket goes back
 * to its depth.
 */
void cpe_shaper_held(struct cpe_shaper *s, bool held);
/* When the bucket is back at zero: the tick a packet may leave. */
uint64_t cpe_shaper_next(const struct cpe_shaper *s);

/* A packet may leave now. */
static inline bool
cpe_shaper_open(const struct cpe_shaper *s)
{
	return s->tokens >= 0;
}

/* A packet of bytes left (its length plus the link's overhead). */
static inline void
cpe_shaper_pay(struct cpe_shaper *s, uint32_t bytes)
{
	s->tokens -= (int64_t)((uint64_t)bytes * s->cost);
}

#endif /* CH39X_CPE_SHAPER_H */
