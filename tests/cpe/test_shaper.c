/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of the WAN scheduler's token bucket (app/ch39x-cpe/shaper.c)
 * on synthetic times: no clock, no DPDK. A tick is a microsecond (hz 1e6)
 * and the rate 8 Mbit/s, one byte a tick, so that bytes and ticks read
 * alike. Named cases, each from a fresh bucket: the depth an idle shaper
 * releases, the rate of a backlog served every few ticks, a stall with
 * packets waiting made up to the catch-up bound and no further, a pause
 * with nothing waiting not made up, the bucket back at its depth when the
 * queue empties, the next-packet time, catch-up below the depth (none),
 * and on a random schedule of loop gaps and stalls: never more than
 * rate x time + catch-up + one packet, and nothing lost while no gap
 * passes the bound.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "shaper.h"

#include "check.h"

#define HZ	1000000ULL	/* ticks per second: microseconds */
#define RATE	8000000ULL	/* bit/s: one byte per tick */
#define DEPTH	2000ULL		/* bytes: 2 ms */
#define CATCHUP	20000ULL	/* bytes: 20 ms */
#define PKT	1000u		/* bytes per packet */

static struct cpe_shaper s;

static void
fresh(uint64_t depth, uint64_t catchup, uint64_t t0)
{
	cpe_shaper_init(&s, RATE, HZ, depth, catchup);
	cpe_shaper_refill(&s, t0);
}

/* One dequeue at now: PKT-byte packets while open, up to max; bytes. */
static uint64_t
drain(uint64_t now, uint32_t max, bool backlog_after)
{
	uint64_t b = 0;
	uint32_t n = 0;

	cpe_shaper_refill(&s, now);
	while (n < max && cpe_shaper_open(&s)) {
		cpe_shaper_pay(&s, PKT);
		b += PKT;
		n++;
	}
	cpe_shaper_held(&s, backlog_after);
	return b;
}

/* Full at the start: depth bytes, and one more packet into the red. */
static void
case_depth(void)
{
	fresh(DEPTH, CATCHUP, 100);
	CHECK_EQ(drain(100, 100, true), DEPTH + PKT);
	CHECK(!cpe_shaper_open(&s));
	/* 1000 bytes in debt: open 1000 ticks later, not before. */
	CHECK_EQ(cpe_shaper_next(&s), 100 + PKT);
	CHECK_EQ(drain(100 + PKT - 1, 100, true), 0);
	CHECK_EQ(drain(100 + PKT, 100, true), PKT);
	CHECK_EQ(s.stalls, 0);
	CHECK_EQ(s.empty_ticks, 0);
}

/* Served every 10 ticks for a second: the rate, give or take a bucket. */
static void
case_rate(void)
{
	uint64_t t, sent = 0;

	fresh(DEPTH, CATCHUP, 0);
	for (t = 0; t <= HZ; t += 10)
		sent += drain(t, 100, true);
	CHECK(sent >= HZ - PKT && sent <= HZ + DEPTH + PKT);
	CHECK_EQ(s.stalls, 0);
	CHECK_EQ(s.lost_ticks, 0);
}

/* A 10 ms stall with packets waiting: made up at once after it. */
static void
case_stall_made_up(void)
{
	uint64_t t, sent = 0;

	fresh(DEPTH, CATCHUP, 0);
	for (t = 0; t <= 100000; t += 10)
		sent += drain(t, 100, true);
	/* 10000 ticks without a dequeue, then 10000 bytes and the debt. */
	sent += drain(110000, 100, true);
	CHECK_EQ(s.stalls, 1);
	CHECK_EQ(s.stall_ticks, 10000 - s.depth_gap);
	CHECK_EQ(s.lost_ticks, 0);
	for (t = 110010; t <= 200000; t += 10)
		sent += drain(t, 100, true);
	/* As if the loop had run: the rate over the 200 ms. */
	CHECK(sent >= 200000 - PKT && sent <= 200000 + DEPTH + PKT);
}

/* A 50 ms stall: 20 ms made up, 30 ms lost and counted. */
static void
case_stall_bounded(void)
{
	uint64_t b;

	fresh(DEPTH, CATCHUP, 0);
	CHECK_EQ(drain(0, 100, true), DEPTH + PKT);
	b = drain(50000, 1000, true);
	/* Made up: catch-up bytes (the debt was paid in the 50 ms). */
	CHECK(b >= CATCHUP && b <= CATCHUP + PKT);
	CHECK_EQ(s.stalls, 1);
	CHECK_EQ(s.stall_ticks, 50000 - s.depth_gap);
	/* The catch-up, and the 1000 bytes of debt paid first. */
	CHECK_EQ(s.lost_ticks, 50000 - (CATCHUP + PKT));
	CHECK(!cpe_shaper_open(&s));
}

/* Nothing waiting through a pause: the bucket's depth, no more. */
static void
case_empty_pause(void)
{
	fresh(DEPTH, CATCHUP, 0);
	CHECK_EQ(drain(0, 100, false), DEPTH + PKT);
	CHECK_EQ(drain(50000, 1000, true), DEPTH + PKT);
	CHECK_EQ(s.stalls, 0);
	CHECK_EQ(s.lost_ticks, 0);
	CHECK_EQ(s.empty_ticks, 50000);
}

/* Packets waited through a stall, fewer than the credit: back to depth. */
static void
case_empty_after_burst(void)
{
	fresh(DEPTH, CATCHUP, 0);
	CHECK_EQ(drain(0, 100, true), DEPTH + PKT);
	/* 15 ms credited, 3 packets sent, the queue empty. */
	CHECK_EQ(drain(15000, 3, false), 3 * PKT);
	CHECK(s.tokens == s.depth);
	/* A new backlog 1 tick later starts from the depth. */
	CHECK_EQ(drain(15001, 100, true), DEPTH + PKT);
}

/* Catch-up below the depth is the depth: a stall is lost past it. */
static void
case_no_catchup(void)
{
	fresh(DEPTH, 0, 0);
	CHECK(s.catchup == s.depth);
	CHECK_EQ(drain(0, 100, true), DEPTH + PKT);
	CHECK_EQ(drain(10000, 100, true), DEPTH + PKT);
	CHECK_EQ(s.stalls, 1);
	CHECK_EQ(s.lost_ticks, 10000 - (DEPTH + PKT));
}

/* The next-packet time, also from a bucket that is open. */
static void
case_next(void)
{
	fresh(DEPTH, CATCHUP, 7);
	CHECK_EQ(cpe_shaper_next(&s), 7);
	cpe_shaper_pay(&s, 2 * DEPTH + 1);	/* DEPTH + 1 in debt */
	CHECK_EQ(cpe_shaper_next(&s), 7 + DEPTH + 1);
	cpe_shaper_refill(&s, 7 + DEPTH);
	CHECK(!cpe_shaper_open(&s));
	CHECK_EQ(cpe_shaper_next(&s), 7 + DEPTH + 1);
	cpe_shaper_refill(&s, 7 + DEPTH + 1);
	CHECK(cpe_shaper_open(&s));
	/* A clock that went back adds nothing. */
	cpe_shaper_refill(&s, 5);
	CHECK(s.tokens == 0);
}

/* 1 s of catch-up at 10 Gbit/s on a 3 GHz TSC: no overflow, bounded. */
static void
case_large(void)
{
	cpe_shaper_init(&s, 10000000000ULL, 3000000000ULL, 2500000,
			1250000000ULL);
	CHECK(s.catchup > 0 && s.catchup >= s.depth && s.tokens == s.depth);
	cpe_shaper_refill(&s, 1);
	cpe_shaper_held(&s, true);
	cpe_shaper_pay(&s, 1514);
	/* A stall of 10 s: the bucket at its bound, positive. */
	cpe_shaper_refill(&s, 30000000001ULL);
	CHECK(s.tokens == s.catchup);
	CHECK(cpe_shaper_open(&s));
	CHECK(s.lost_ticks > 0);
}

static uint32_t rnd_state = 12345;

static uint32_t
rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

#define WIN	256	/* dequeues the window check looks back */

/*
 * Loops 1 to 100 ticks apart with stalls of up to max_stall ticks, the
 * queue sometimes empty: no more than the depth, the rate since the start
 * and a packet; in any window of up to WIN dequeues, no more than the
 * rate over it plus the catch-up and a packet (the burst after a stall);
 * and with every stall within the bound and a backlog all along, nothing
 * lost.
 */
static void
random_schedule(uint64_t max_stall, bool always_backlog)
{
	static uint64_t wt[WIN], ws[WIN];	/* time, bytes before it */
	uint64_t t = 0, sent = 0, bad_hi = 0, bad_win = 0;
	bool backlog = true;
	int i, j, k;

	fresh(DEPTH, CATCHUP, 0);
	for (i = 0; i < 200000; i++) {
		if (rnd() % 100 == 0)
			t += rnd() % max_stall;
		else
			t += 1 + rnd() % 100;
		if (!always_backlog && rnd() % 50 == 0)
			backlog = !backlog;
		wt[i % WIN] = t;
		ws[i % WIN] = sent;
		sent += drain(t, backlog ? 1000 : 0, backlog);
		if (sent > t + DEPTH + PKT)
			bad_hi++;
		/* From the dequeue at wt[k] to this one's, both included. */
		for (j = 0; j < WIN && j <= i; j++) {
			k = (i - j) % WIN;
			if (sent - ws[k] > t - wt[k] + CATCHUP + PKT)
				bad_win++;
		}
	}
	CHECK_EQ(bad_hi, 0);
	CHECK_EQ(bad_win, 0);
	if (always_backlog && max_stall <= s.catchup_gap) {
		CHECK_EQ(s.lost_ticks, 0);
		CHECK(sent + CATCHUP + PKT >= t);
	}
	if (max_stall > s.catchup_gap)
		CHECK(s.lost_ticks > 0);
	printf("  schedule up to %llu ticks%s: %llu ticks, %llu bytes, "
	       "stalls %llu, lost %llu ticks, empty %llu ticks\n",
	       (unsigned long long)max_stall,
	       always_backlog ? ", backlogged" : "",
	       (unsigned long long)t, (unsigned long long)sent,
	       (unsigned long long)s.stalls, (unsigned long long)s.lost_ticks,
	       (unsigned long long)s.empty_ticks);
}

static void
case_random(void)
{
	random_schedule(15000, true);
	random_schedule(60000, true);
	random_schedule(60000, false);
}

static const struct check_case cases[] = {
	{ "depth", case_depth },
	{ "rate", case_rate },
	{ "stall_made_up", case_stall_made_up },
	{ "stall_bounded", case_stall_bounded },
	{ "empty_pause", case_empty_pause },
	{ "empty_after_burst", case_empty_after_burst },
	{ "no_catchup", case_no_catchup },
	{ "next", case_next },
	{ "large", case_large },
	{ "random", case_random },
};

int
main(void)
{
	return check_run("test_shaper", cases, sizeof(cases) / sizeof(cases[0]));
}
