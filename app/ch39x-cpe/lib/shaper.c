/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The WAN scheduler's token bucket (shaper.h). */

#include <stdint.h>

#include "shaper.h"

void
cpe_shaper_init(struct cpe_shaper *s, uint64_t rate, uint64_t hz,
		uint64_t depth, uint64_t catchup)
{
	/* Bucket units that leave headroom for a refill and a packet. */
	uint64_t max;

	*s = (struct cpe_shaper){ .rate = rate ? rate : 1, .cost = 8 * hz };
	if (s->cost == 0)
		s->cost = 8;
	max = (uint64_t)INT64_MAX / 4 / s->cost;
	if (catchup < depth)
		catchup = depth;
	/* 1 s at 10 Gbit/s with a 3 GHz TSC would overflow: bounded. */
	if (depth > max)
		depth = max;
	if (catchup > max)
		catchup = max;
	s->depth = (int64_t)(depth * s->cost);
	s->catchup = (int64_t)(catchup * s->cost);
	s->tokens = s->depth;
	s->depth_gap = (uint64_t)s->depth / s->rate + 1;
	s->catchup_gap = (uint64_t)s->catchup / s->rate + 1;
}

void
cpe_shaper_refill(struct cpe_shaper *s, uint64_t now)
{
	uint64_t gap, room;
	int64_t cap;

	if (!s->started) {
		s->started = true;
		s->last = now;
	}
	gap = now > s->last ? now - s->last : 0;
	s->last = now;
	cap = s->waiting ? s->catchup : s->depth;
	/* The ticks that fill the bucket to its cap (no overflow past). */
	room = s->tokens >= cap ? 0 :
		(uint64_t)(cap - s->tokens + (int64_t)s->rate - 1) / s->rate;
	if (!s->waiting) {
		/* Nothing to send in that time: nothing to make up. */
		s->empty_ticks += gap;
	} else {
		/*
		 * Packets waited while the caller's loop did not run for
		 * longer than the bucket lasts: the uplink idled. That time
		 * is theirs, up to the catch-up bound; counted, to tell a
		 * rate below the shaper's from a loop that runs late.
		 */
		if (gap > s->depth_gap) {
			s->stalls++;
			s->stall_ticks += gap - s->depth_gap;
		}
		if (gap > room)
			s->lost_ticks += gap - room;
	}
	if (gap > room)
		gap = room;
	s->tokens += (int64_t)(gap * s->rate);
	if (s->tokens > cap)
		s->tokens = cap;
}

void
cpe_shaper_held(struct cpe_shaper *s, bool held)
{
	s->waiting = held;
	/* A burst is for a backlog that waited; a new one gets depth. */
	if (!held && s->tokens > s->depth)
		s->tokens = s->depth;
}

uint64_t
cpe_shaper_next(const struct cpe_shaper *s)
{
	if (s->tokens >= 0)
		return s->last;
	/* -tokens / rate ticks after the last refill, rounded up. */
	return s->last + ((uint64_t)-s->tokens + s->rate - 1) / s->rate;
}
