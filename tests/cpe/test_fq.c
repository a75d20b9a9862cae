/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of the WAN scheduler's flow queues (app/ch39x-cpe/fq.c,
 * RFC 8290 FQ-CoDel) on synthetic arrival and departure times: no clock,
 * no DPDK, nothing that depends on the machine's speed. Times are
 * microseconds (ticks_per_us 1). Named cases, each from a fresh queue:
 * DRR between bulk flows, sparse-flow priority and its loss, CoDel's drop
 * schedule (interval / sqrt(count)), leaving and re-entering the dropping
 * state, ECN marks instead of drops, overflow from the fattest flow, the
 * sojourn histogram and its percentiles.
 */

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fq.h"

#include "check.h"

#define MAXP	4096

/* A test packet: which flow, its number in that flow, what befell it. */
struct tpkt {
	uint32_t flow, seq, len;
	bool ect, marked, dropped;
};

static struct tpkt pk[MAXP];
static unsigned int npk;
static unsigned int ndrop;
static unsigned int ndeq;	/* packets dequeued since fresh() */
static uint64_t nbytes;		/* their bytes */
static struct tpkt *dropped[MAXP];

static void
t_drop(void *p, void *ctx)
{
	struct tpkt *t = p;

	(void)ctx;
	t->dropped = true;
	if (ndrop < MAXP)
		dropped[ndrop] = t;
	ndrop++;
}

static bool
t_mark(void *p, void *ctx)
{
	struct tpkt *t = p;

	(void)ctx;
	if (!t->ect)
		return false;
	t->marked = true;
	return true;
}

static const struct cpe_fq_ops ops = { .drop = t_drop, .mark = t_mark };

static struct cpe_fq_params
params(void)
{
	struct cpe_fq_params p = {
		.target = 5000, .interval = 100000, .ticks_per_us = 1,
		.quantum = 1514, .flows = 1024, .limit = 1024, .mtu = 1514,
		.ecn = true,
	};

	return p;
}

static void
fresh(struct cpe_fq *q, const struct cpe_fq_params *p)
{
	memset(pk, 0, sizeof(pk));
	npk = 0;
	ndrop = 0;
	ndeq = 0;
	nbytes = 0;
	CHECK(cpe_fq_init(q, p, &ops) == 0);
}

/* The hash that fq.c maps to queue flow (hash * flows / 2^32). */
static uint32_t
hash_for(const struct cpe_fq *q, uint32_t flow)
{
	return (uint32_t)((((uint64_t)flow << 32) + q->p.flows - 1) /
			  q->p.flows);
}

/* Flow numbers name their queues (flows > every flow used). */
static struct tpkt *
put(struct cpe_fq *q, uint32_t flow, uint32_t len, bool ect, uint64_t now)
{
	struct tpkt *t = &pk[npk++];
	static uint32_t seq[64];

	if (npk == 1)
		memset(seq, 0, sizeof(seq));
	t->flow = flow;
	t->seq = seq[flow % 64]++;
	t->len = len;
	t->ect = ect;
	cpe_fq_enqueue(q, t, len, hash_for(q, flow), now);
	return t;
}

static struct tpkt *
get(struct cpe_fq *q, uint64_t now)
{
	uint32_t len = 0;
	struct tpkt *t = cpe_fq_dequeue(q, now, &len);

	if (t != NULL) {
		CHECK_EQ(len, t->len);
		ndeq++;
		nbytes += len;
	}
	return t;
}

/* Two bulk flows of full frames: one quantum (one frame) each in turn. */
static void
case_drr(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	struct tpkt *t;
	unsigned int i, from[2] = { 0, 0 }, alternations = 0, last = 9;

	fresh(&q, &p);
	for (i = 0; i < 20; i++) {
		put(&q, 1, 1514, false, 0);
		put(&q, 2, 1514, false, 0);
	}
	/* Small packets of a third flow: a quantum covers five. */
	for (i = 0; i < 10; i++)
		put(&q, 3, 300, false, 0);
	CHECK_EQ(q.held, 50);
	for (i = 0; i < 50; i++) {
		t = get(&q, 10);	/* sojourn below target: no CoDel */
		CHECK(t != NULL);
		if (t == NULL)
			break;
		if (t->flow < 3) {
			from[t->flow - 1]++;
			alternations += last != t->flow;
			last = t->flow;
		}
	}
	CHECK_EQ(from[0], 20);
	CHECK_EQ(from[1], 20);
	/* Flows 1 and 2 alternate except where flow 3 took its turns. */
	CHECK(alternations >= 38);
	CHECK(get(&q, 10) == NULL);
	CHECK_EQ(ndeq, 50);
	CHECK_EQ(q.st.codel_drops + q.st.overlimit_drops, 0);
	cpe_fq_free(&q);
}

/* A sparse flow's packet goes before the bulk backlog, once it is new. */
static void
case_sparse(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	struct tpkt *t, *s;
	unsigned int i;

	fresh(&q, &p);
	for (i = 0; i < 30; i++) {
		put(&q, 1, 1514, false, 0);
		put(&q, 2, 1514, false, 0);
	}
	/* Serve a while: both bulk flows spend their first quantum and move
	 * to the old list. */
	for (i = 0; i < 6; i++)
		CHECK(get(&q, 10) != NULL);
	CHECK_EQ(cpe_fq_sparse(&q), 0);
	CHECK_EQ(cpe_fq_bulk(&q), 2);
	s = put(&q, 7, 100, false, 20);
	CHECK_EQ(cpe_fq_sparse(&q), 1);
	t = get(&q, 30);
	CHECK(t == s);
	CHECK_EQ(q.st.new_flows, 3);
	/* Found empty on its next turn, a new flow joins the old list's
	 * tail (RFC 8290 4.2), not the sparse list again. */
	t = get(&q, 40);
	CHECK(t != NULL && t->flow != 7);
	CHECK_EQ(cpe_fq_sparse(&q), 0);
	CHECK_EQ(cpe_fq_bulk(&q), 3);
	/* Its turn in the old list passes with nothing: it leaves. */
	for (i = 0; i < 8 && q.flow[7].list != 0; i++)
		CHECK(get(&q, 50) != NULL);
	CHECK(i < 8);
	CHECK_EQ(cpe_fq_bulk(&q), 2);
	/* Back: new again, first again. */
	s = put(&q, 7, 100, false, 60);
	CHECK(get(&q, 60) == s);
	CHECK_EQ(q.st.new_flows, 4);

	/* A flow that keeps sending more than a quantum is not sparse: with
	 * its credit spent it goes behind the bulk flows. */
	for (i = 0; i < 3; i++)
		put(&q, 9, 1514, false, 70);
	t = get(&q, 70);
	CHECK(t != NULL && t->flow == 9);
	t = get(&q, 70);
	CHECK(t != NULL && t->flow != 9);
	cpe_fq_free(&q);
}

/*
 * One bulk flow whose sojourn stays above target: nothing happens for an
 * interval, then drops (ECN off: non-ECT) at interval / sqrt(count).
 */
static void
case_codel_schedule(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	uint64_t now, drop_at[8];
	unsigned int i, seen = 0, last = 0;
	struct tpkt *t;

	p.limit = 4096;
	fresh(&q, &p);
	/* A standing queue: 2000 packets in at 0, one out every ms. */
	for (i = 0; i < 2000; i++)
		put(&q, 1, 1000, false, 0);
	for (now = 10000; now < 700000 && seen < 8; now += 1000) {
		t = get(&q, now);
		CHECK(t != NULL);
		if (ndrop != last) {
			/* One drop per dequeue at this pace. */
			CHECK_EQ(ndrop - last, 1);
			drop_at[seen++] = now;
			last = ndrop;
		}
	}
	CHECK_EQ(seen, 8);
	/* The first signal one interval after delay went above target. */
	CHECK_EQ(drop_at[0], 10000 + 100000);
	/* Then the control law: the n-th gap is interval / sqrt(n) (the
	 * count after the n-th signal), rounded up to the 1 ms dequeue
	 * pace: 100, 70.7, 57.7, 50, ... ms, each within a ms. */
	for (i = 1; i < seen; i++) {
		double want = 100000.0 / sqrt((double)i);
		double gap = (double)(drop_at[i] - drop_at[i - 1]);

		CHECK(gap >= want - 1000 && gap <= want + 1000);
	}
	CHECK_EQ(q.st.codel_drops, 8);
	CHECK_EQ(q.st.ecn_marks, 0);
	/* Dropped ones are the oldest: the flow's head. */
	CHECK(dropped[0]->seq < dropped[1]->seq);
	cpe_fq_free(&q);
	CHECK_EQ(ndrop, 2000 - ndeq);
}

/* Delay back under target leaves the dropping state; soon back above,
 * the count resumes from where it was (count - lastcount, RFC 8289). */
static void
case_codel_leave_resume(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	struct cpe_fq_codel *cd;
	uint32_t count, lastcount;
	unsigned int i, before;
	uint64_t now, t0;

	fresh(&q, &p);
	cd = &q.flow[1].cd;
	for (i = 0; i < 600; i++)
		put(&q, 1, 1000, false, 0);
	for (now = 10000; now <= 400000; now += 1000)
		(void)get(&q, now);
	CHECK(cd->dropping);
	count = cd->count;
	lastcount = cd->lastcount;
	CHECK(count >= 4 && lastcount == 1);
	/* A packet with no delay: below target, the state is left. */
	while (q.held)
		(void)get(&q, now);
	put(&q, 1, 1000, false, now);
	put(&q, 1, 1000, false, now);
	CHECK(get(&q, now + 100) != NULL);
	CHECK(!cd->dropping);
	(void)get(&q, now + 100);
	/* A standing queue again, a little later: the first signal of
	 * the new episode starts at count - lastcount, not at 1. */
	t0 = now + 1000;
	for (i = 0; i < 400; i++)
		put(&q, 1, 1000, false, t0);
	before = ndrop;
	for (now = t0 + 10000; now < t0 + 300000 && ndrop == before;
	     now += 1000)
		(void)get(&q, now);
	CHECK(ndrop == before + 1);
	CHECK(cd->dropping);
	CHECK_EQ(cd->count, count - lastcount);
	cpe_fq_free(&q);
}

/* ECN: ECT packets are marked and sent where non-ECT ones are dropped. */
static void
case_ecn(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	struct tpkt *t;
	uint64_t now;
	unsigned int i, marked_sent = 0;

	fresh(&q, &p);
	for (i = 0; i < 600; i++)
		put(&q, 1, 1000, true, 0);
	for (now = 10000; now < 400000; now += 1000) {
		t = get(&q, now);
		if (t != NULL && t->marked)
			marked_sent++;
	}
	CHECK(q.st.ecn_marks >= 5);
	CHECK_EQ(marked_sent, q.st.ecn_marks);
	CHECK_EQ(q.st.codel_drops, 0);
	CHECK_EQ(ndrop, 0);
	cpe_fq_free(&q);

	/* The same with --qos-ecn off: drops, no marks. */
	p.ecn = false;
	fresh(&q, &p);
	for (i = 0; i < 600; i++)
		put(&q, 1, 1000, true, 0);
	for (now = 10000; now < 400000; now += 1000)
		(void)get(&q, now);
	CHECK_EQ(q.st.ecn_marks, 0);
	CHECK(q.st.codel_drops >= 5);
	cpe_fq_free(&q);
}

/* Memory full: the fattest flow loses its oldest, up to half its bytes. */
static void
case_overflow(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	unsigned int i;

	p.limit = 16;
	fresh(&q, &p);
	for (i = 0; i < 12; i++)
		put(&q, 1, 1000, false, 0);
	for (i = 0; i < 4; i++)
		put(&q, 2, 1000, false, 0);
	CHECK_EQ(q.held, 16);
	put(&q, 3, 100, false, 1);
	/* Flow 1 held 12000 bytes: half of them, its six oldest, went. */
	CHECK_EQ(q.st.overlimit_drops, 6);
	CHECK_EQ(ndrop, 6);
	for (i = 0; i < 6 && i < ndrop; i++) {
		CHECK_EQ(dropped[i]->flow, 1);
		CHECK_EQ(dropped[i]->seq, i);
	}
	CHECK_EQ(q.held, 11);
	CHECK_EQ(q.flow[2].n, 4);
	CHECK_EQ(q.flow[3].n, 1);
	cpe_fq_free(&q);
	/* Free dropped what it still held. */
	CHECK_EQ(ndrop, 17);
}

/* Hashes spread over the queues by their top bits; bad parameters. */
static void
case_params(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	struct tpkt *t;

	p.flows = 4;
	fresh(&q, &p);
	t = &pk[npk++];
	t->len = 100;
	cpe_fq_enqueue(&q, t, 100, 0xbfffffff, 0);	/* 3/4 - 1: queue 2 */
	CHECK_EQ(q.flow[2].n, 1);
	CHECK(get(&q, 1) == t);
	cpe_fq_enqueue(&q, t, 100, 0xffffffff, 2);
	CHECK_EQ(q.flow[3].n, 1);
	CHECK(get(&q, 3) == t);
	cpe_fq_free(&q);
	p = params();
	p.flows = 0;
	CHECK(cpe_fq_init(&q, &p, &ops) != 0);
	p = params();
	p.limit = 0;
	CHECK(cpe_fq_init(&q, &p, &ops) != 0);
}

static void
case_histogram(void)
{
	uint64_t h[CPE_FQ_HIST];
	uint64_t v;
	unsigned int b, i;

	/* Every value falls in a bucket whose upper bound is >= it and at
	 * most 25 % above it. */
	for (v = 0; v < (1u << 22); v = v < 64 ? v + 1 : v * 9 / 8) {
		b = cpe_fq_hist_bucket(v);
		CHECK(cpe_fq_hist_upper(b) >= v);
		CHECK(cpe_fq_hist_upper(b) <= v + v / 4 + 1);
		if (b > 0)
			CHECK(cpe_fq_hist_upper(b - 1) < v);
	}
	CHECK_EQ(cpe_fq_hist_bucket(UINT64_MAX), CPE_FQ_HIST - 1);
	memset(h, 0, sizeof(h));
	CHECK_EQ(cpe_fq_hist_pct(h, 50), 0);
	/* 90 samples at 1 ms, 9 at 20 ms, 1 at 200 ms. */
	for (i = 0; i < 90; i++)
		h[cpe_fq_hist_bucket(1000)]++;
	for (i = 0; i < 9; i++)
		h[cpe_fq_hist_bucket(20000)]++;
	h[cpe_fq_hist_bucket(200000)]++;
	CHECK_EQ(cpe_fq_hist_pct(h, 50),
		 cpe_fq_hist_upper(cpe_fq_hist_bucket(1000)));
	CHECK_EQ(cpe_fq_hist_pct(h, 90),
		 cpe_fq_hist_upper(cpe_fq_hist_bucket(1000)));
	CHECK_EQ(cpe_fq_hist_pct(h, 99),
		 cpe_fq_hist_upper(cpe_fq_hist_bucket(20000)));
	CHECK_EQ(cpe_fq_hist_pct(h, 100),
		 cpe_fq_hist_upper(cpe_fq_hist_bucket(200000)));
}

/* What a dequeue records: the sojourn of each packet sent. */
static void
case_sojourn(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	unsigned int i;

	fresh(&q, &p);
	for (i = 0; i < 10; i++)
		put(&q, 1, 100, false, 0);
	for (i = 0; i < 10; i++)
		CHECK(get(&q, 3000) != NULL);
	CHECK_EQ(q.st.hist[cpe_fq_hist_bucket(3000)], 10);
	CHECK_EQ(cpe_fq_hist_pct(q.st.hist, 99),
		 cpe_fq_hist_upper(cpe_fq_hist_bucket(3000)));
	CHECK_EQ(nbytes, 1000);
	cpe_fq_free(&q);
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "drr", case_drr },
	{ "sparse", case_sparse },
	{ "codel_schedule", case_codel_schedule },
	{ "codel_leave_resume", case_codel_leave_resume },
	{ "ecn", case_ecn },
	{ "overflow", case_overflow },
	{ "params", case_params },
	{ "histogram", case_histogram },
	{ "sojourn", case_sojourn },
};

int
main(void)
{
	unsigned int i, before;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		before = n_fail;
		cases[i].fn();
		printf("%s: %s\n", cases[i].name,
		       n_fail == before ? "ok" : "FAILED");
	}
	printf("test_fq: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
