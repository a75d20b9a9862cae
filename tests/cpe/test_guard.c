/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of ch39x-cpe's SYN-flood guard (app/ch39x-cpe/guard.c) on a
 * synthetic clock, without EAL: the token bucket's rate, burst and
 * catch-up; the admission of new WAN connections (burst, then the rate,
 * per protocol; a random-source flood held to it); a retransmitted SYN's
 * second chance (after 0.25 s, before 30 s, once, its own bucket; none
 * for UDP; remembered through a flood's writes); the slow path's SYN
 * budget (drops counted, a retransmission let through to the
 * admission); and protection off.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guard.h"

#include "check.h"

#define HZ	1000000u	/* ticks per second: microseconds */

struct key {
	uint32_t src, dst;
	uint16_t sp, dp;
};

static struct key
key_of(uint32_t i)
{
	struct key k = { .src = 0x0a000000u + i, .dst = 0xcb007102u,
			 .sp = (uint16_t)(1024 + i), .dp = 8080 };

	return k;
}

static enum cpe_guard_verdict
admit(struct cpe_guard *g, uint8_t proto, uint32_t i, uint64_t now)
{
	struct key k = key_of(i);

	return cpe_guard_admit(g, proto, &k, sizeof(k), now);
}

static void
test_tb(void)
{
	struct cpe_tb b;
	uint64_t now = 5 * HZ;
	uint32_t n = 0, i;

	cpe_tb_init(&b, 25, 50, HZ, now);
	/* The burst at once, then nothing. */
	for (i = 0; i < 100; i++)
		n += cpe_tb_take(&b, now);
	CHECK_EQ(n, 50);
	/* 25 a second: 40 ms a token. */
	CHECK(!cpe_tb_take(&b, now + 39999));
	CHECK(cpe_tb_take(&b, now + 40000));
	CHECK(!cpe_tb_take(&b, now + 40001));
	/* Over 10 s, taken every 1 ms: 250 (+ 1 of the 40 ms). */
	n = 0;
	for (i = 1; i <= 10000; i++)
		n += cpe_tb_take(&b, now + 40000 + (uint64_t)i * 1000);
	CHECK(n >= 249 && n <= 251);
	/* An idle minute gives the burst back, not 1500 tokens. */
	now += 70 * (uint64_t)HZ;
	n = 0;
	for (i = 0; i < 1000; i++)
		n += cpe_tb_take(&b, now);
	CHECK_EQ(n, 50);
	/* A clock that went back gives nothing and takes nothing. */
	CHECK(!cpe_tb_take(&b, now - HZ));
	CHECK(cpe_tb_take(&b, now + 40000));
}

static void
setup(struct cpe_guard *g, bool on, uint32_t budget, uint64_t now)
{
	struct cpe_guard_cfg c = { .on = on, .rate = 25, .burst = 50,
				   .budget = budget };

	cpe_guard_free(g);
	CHECK_EQ(cpe_guard_init(g, &c, HZ, now), 0);
}

static void
test_admit(void)
{
	struct cpe_guard g = { 0 };
	uint64_t now = 10 * (uint64_t)HZ, t;
	uint32_t i, ok = 0, ok_udp = 0;

	setup(&g, true, 0, now);
	/*
	 * A random-source flood of 10 s at 20000 SYNs a second (one every
	 * 50 us, each tuple new): the burst, then 25 a second.
	 */
	for (i = 0, t = now; i < 200000; i++, t += 50)
		ok += admit(&g, 6, i, t) != CPE_GUARD_DROP;
	CHECK(ok >= 50 + 249 && ok <= 50 + 251);
	CHECK_EQ(g.st.admitted, ok);
	CHECK_EQ(g.st.retried, 0);
	CHECK_EQ(g.st.limited_tcp, 200000 - ok);
	/* UDP has its own bucket: full while TCP's is empty. */
	for (i = 0; i < 100; i++)
		ok_udp += admit(&g, 17, 1000000 + i, t) == CPE_GUARD_ADMIT;
	CHECK_EQ(ok_udp, 50);
	CHECK_EQ(g.st.limited_udp, 50);
	cpe_guard_free(&g);
}

/* The flood's SYNs at t, new tuples each: the TCP bucket empty after. */
static uint32_t flood_id = 100000000;

static void
drain(struct cpe_guard *g, uint8_t proto, uint64_t t)
{
	uint32_t i;

	for (i = 0; i < 60; i++)
		admit(g, proto, flood_id++, t);
}

/* During a flood, a real client's SYN again 1 s later gets in. */
static void
test_retry(void)
{
	struct cpe_guard g = { 0 };
	uint64_t now = 10 * (uint64_t)HZ, t;
	uint32_t i, client = 7777777, in = 0;

	setup(&g, true, 0, now);
	drain(&g, 6, now);
	CHECK_EQ(admit(&g, 6, client, now), CPE_GUARD_DROP);
	/* A copy at once is no retransmission (under 0.25 s). */
	drain(&g, 6, now + 100000);
	CHECK_EQ(admit(&g, 6, client, now + 100000), CPE_GUARD_DROP);
	/* The flood goes on (every 1 ms, other tuples). */
	for (t = now + 100000; t < now + HZ; t += 1000)
		admit(&g, 6, flood_id++, t);
	/* 1 s after the first: in, from the retry bucket. */
	drain(&g, 6, now + HZ);
	CHECK_EQ(admit(&g, 6, client, now + HZ), CPE_GUARD_RETRY);
	CHECK_EQ(g.st.retried, 1);
	/* Once: its next copy is remembered anew. */
	CHECK_EQ(admit(&g, 6, client, now + HZ + 1), CPE_GUARD_DROP);
	/* Remembered for 30 s at most. */
	drain(&g, 6, now + 2 * (uint64_t)HZ);
	CHECK_EQ(admit(&g, 6, 5555, now + 2 * (uint64_t)HZ), CPE_GUARD_DROP);
	drain(&g, 6, now + 33 * (uint64_t)HZ);
	CHECK_EQ(admit(&g, 6, 5555, now + 33 * (uint64_t)HZ),
		 CPE_GUARD_DROP);
	CHECK_EQ(g.st.retried, 1);
	/* UDP datagrams get no second chance (nothing resends them). */
	drain(&g, 17, now + 34 * (uint64_t)HZ);
	CHECK_EQ(admit(&g, 17, 4243, now + 34 * (uint64_t)HZ),
		 CPE_GUARD_DROP);
	drain(&g, 17, now + 35 * (uint64_t)HZ);
	CHECK_EQ(admit(&g, 17, 4243, now + 35 * (uint64_t)HZ),
		 CPE_GUARD_DROP);
	CHECK_EQ(g.st.retried, 1);
	/*
	 * An attacker who sends each SYN twice, 0.3 s apart: the retry
	 * bucket holds him to its own rate (burst, then 25 a second).
	 */
	now += 100 * (uint64_t)HZ;
	for (i = 0; i < 200; i++)
		admit(&g, 6, 2000000 + i, now);
	for (i = 0; i < 200; i++)
		in += admit(&g, 6, 2000000 + i, now + 300000) ==
			CPE_GUARD_RETRY;
	CHECK(in >= 50 && in <= 58);
	cpe_guard_free(&g);
}

/*
 * The memory of dropped SYNs under a flood: 100 clients' SYNs dropped,
 * then 50000 SYNs a second of a random-source flood for 1 s (each one
 * remembered too), then the clients' retransmissions: the flood's
 * writes do not push them out (sets of 4: nearly all are found; one
 * slot each would keep 83 % of them).
 */
static void
test_memory(void)
{
	struct cpe_guard_cfg c = { .on = true, .rate = 1000, .burst = 1000 };
	struct cpe_guard g = { 0 };
	uint64_t now = 10 * (uint64_t)HZ, t;
	uint32_t i, in = 0;

	CHECK_EQ(cpe_guard_init(&g, &c, HZ, now), 0);
	for (i = 0; i < 2000; i++)
		admit(&g, 6, flood_id++, now);
	for (i = 0; i < 100; i++)
		CHECK_EQ(admit(&g, 6, 50000000 + i, now), CPE_GUARD_DROP);
	for (t = now; t < now + HZ; t += 20)
		admit(&g, 6, flood_id++, t);
	for (i = 0; i < 100; i++)
		in += admit(&g, 6, 50000000 + i, now + HZ) == CPE_GUARD_RETRY;
	CHECK(in >= 97);
	cpe_guard_free(&g);
}

static void
test_budget(void)
{
	struct cpe_guard g = { 0 };
	uint64_t now = 10 * (uint64_t)HZ, t;
	struct key k;
	uint32_t i, pass = 0;

	setup(&g, true, 10000, now);
	/* 100000 a second for 1 s: the budget's 10000 (+ a tenth). */
	for (i = 0, t = now; i < 100000; i++, t += 10) {
		k = key_of(i);
		pass += cpe_guard_budget(&g, &k, sizeof(k), t);
	}
	CHECK(pass >= 10900 && pass <= 11100);
	CHECK_EQ(g.st.budget_drops, 100000 - pass);
	/* A SYN the budget dropped, sent again 1 s later, passes the
	 * budget (whatever its tokens) and gets in as a retry. */
	for (i = 0; i < 2000; i++) {
		k = key_of(i);
		cpe_guard_budget(&g, &k, sizeof(k), t);
	}
	k = key_of(99999);
	for (i = 0; i < 20000; i++) {
		struct key o = key_of(200000 + i);

		cpe_guard_budget(&g, &o, sizeof(o), t + HZ);
	}
	CHECK(cpe_guard_budget(&g, &k, sizeof(k), t + HZ));
	for (i = 0; i < 100; i++)
		admit(&g, 6, 300000 + i, t + HZ);
	CHECK_EQ(cpe_guard_admit(&g, 6, &k, sizeof(k), t + HZ),
		 CPE_GUARD_RETRY);
	/* Budget 0: no budget. */
	setup(&g, true, 0, now);
	for (i = 0; i < 100000; i++) {
		k = key_of(i);
		CHECK(cpe_guard_budget(&g, &k, sizeof(k), now));
	}
	CHECK_EQ(g.st.budget_drops, 0);
	cpe_guard_free(&g);
}

static void
test_off(void)
{
	struct cpe_guard g = { 0 };
	uint64_t now = HZ;
	struct key k;
	uint32_t i;

	setup(&g, false, 10, now);
	CHECK(g.seen == NULL);	/* nothing allocated */
	for (i = 0; i < 10000; i++) {
		k = key_of(i);
		CHECK_EQ(admit(&g, 6, i, now), CPE_GUARD_ADMIT);
		CHECK(cpe_guard_budget(&g, &k, sizeof(k), now));
	}
	CHECK_EQ(g.st.limited_tcp + g.st.budget_drops, 0);
	cpe_guard_free(&g);
}

static void
test_hash(void)
{
	struct key a = key_of(1), b = key_of(1);
	uint32_t i, lo[16] = { 0 };

	CHECK_EQ(cpe_guard_hash(&a, sizeof(a)), cpe_guard_hash(&b, sizeof(b)));
	b.sp++;
	CHECK(cpe_guard_hash(&a, sizeof(a)) != cpe_guard_hash(&b, sizeof(b)));
	/* Sequential tuples spread over the slots (low bits). */
	for (i = 0; i < 16000; i++) {
		a = key_of(i);
		lo[cpe_guard_hash(&a, sizeof(a)) & 15]++;
	}
	for (i = 0; i < 16; i++)
		CHECK(lo[i] > 800 && lo[i] < 1200);
}

int
main(void)
{
	test_tb();
	test_admit();
	test_retry();
	test_memory();
	test_budget();
	test_off();
	test_hash();
	printf("test_guard: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
