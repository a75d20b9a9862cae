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
 * sojourn histogram and its percentiles. The overflow cases check fq.c's
 * blocks of flows (bmax, stale) against a scan of every flow's bytes in
 * order, as Linux's fq_codel_drop() does: the same flow (ties to the
 * lowest-numbered), the same packets from its head, the same counters,
 * with ties, flows emptied by dequeue, packet lengths that vary, many
 * flows and flow counts that are not powers of two, with and without the
 * caller's bulk drop.
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
#define MAXF	4096	/* most flows a case uses */

/* A test packet: which flow, its number in that flow, what befell it. */
struct tpkt {
	uint32_t flow, seq, len;
	bool ect, marked, dropped, sent;
};

static struct tpkt pk[MAXP];
static unsigned int npk;
static unsigned int ndrop;
static unsigned int ndeq;	/* packets dequeued since fresh() */
static uint64_t nbytes;		/* their bytes */
static struct tpkt *dropped[MAXP];
static uint64_t ref_b[MAXF];	/* each queue's bytes, as the test sees */
static unsigned int nbulk;	/* drop_bulk calls */
static uint32_t bulk_n;		/* packets of the last */

static void
t_drop(void *p, void *ctx)
{
	struct tpkt *t = p;

	(void)ctx;
	t->dropped = true;
	if (t->flow < MAXF)
		ref_b[t->flow] -= t->len;
	if (ndrop < MAXP)
		dropped[ndrop] = t;
	ndrop++;
}

static void
t_drop_bulk(void **p, uint32_t n, void *ctx)
{
	uint32_t i;

	nbulk++;
	bulk_n = n;
	for (i = 0; i < n; i++)
		t_drop(p[i], ctx);
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
static const struct cpe_fq_ops ops_bulk = {
	.drop = t_drop, .drop_bulk = t_drop_bulk, .mark = t_mark,
};

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
fresh_ops(struct cpe_fq *q, const struct cpe_fq_params *p,
	  const struct cpe_fq_ops *o)
{
	memset(pk, 0, sizeof(pk));
	memset(ref_b, 0, sizeof(ref_b));
	npk = 0;
	ndrop = 0;
	ndeq = 0;
	nbytes = 0;
	nbulk = 0;
	bulk_n = 0;
	CHECK(cpe_fq_init(q, p, o) == 0);
}

static void
fresh(struct cpe_fq *q, const struct cpe_fq_params *p)
{
	fresh_ops(q, p, &ops);
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
	if (flow < MAXF)
		ref_b[flow] += len;
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
		t->sent = true;
		if (t->flow < MAXF)
			ref_b[t->flow] -= len;
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

/*
 * What an overflow now should take, by the test's own count of every
 * queue's bytes: the flow a scan of all of them in order finds (the
 * first with the most), and from its head the packets that bring it to
 * half its bytes or fewer, at most CPE_FQ_DROP_BATCH (Linux's
 * fq_codel_drop()). Returns how many, the packets in want[].
 */
static unsigned int
ref_overflow(const struct cpe_fq *q, uint32_t *flow, struct tpkt **want)
{
	uint64_t max = 0, b, goal;
	unsigned int i, n = 0;
	uint32_t f, v = 0;

	for (f = 0; f < q->p.flows; f++)
		if (ref_b[f] > max) {
			max = ref_b[f];
			v = f;
		}
	*flow = v;
	b = ref_b[v];
	goal = b / 2;
	for (i = 0; i < npk && n < CPE_FQ_DROP_BATCH; i++) {
		if (pk[i].flow != v || pk[i].dropped || pk[i].sent)
			continue;
		want[n++] = &pk[i];
		b -= pk[i].len;
		if (b <= goal)
			break;
	}
	return n;
}

/* The queue's counters against the test's: bytes of every flow, held,
 * backlog. False (and a message) at the first that differs. */
static bool
same_counts(const struct cpe_fq *q)
{
	uint64_t backlog = 0;
	unsigned int i, held = 0;
	uint32_t f;

	for (f = 0; f < q->p.flows; f++) {
		if (q->bytes[f] != ref_b[f]) {
			printf("  flow %u: %u bytes, want %llu\n", f,
			       q->bytes[f], (unsigned long long)ref_b[f]);
			return false;
		}
		backlog += ref_b[f];
	}
	for (i = 0; i < npk; i++)
		held += !pk[i].dropped && !pk[i].sent;
	if (q->held != held || q->backlog != backlog) {
		printf("  held %u backlog %llu, want %u and %llu\n", q->held,
		       (unsigned long long)q->backlog, held,
		       (unsigned long long)backlog);
		return false;
	}
	return true;
}

/*
 * put() that, when it overflows, checks what went against ref_overflow():
 * which flow, which packets in which order, the counter, and with
 * drop_bulk one call for them all. False (and a message) if not so.
 */
static bool
put_checked(struct cpe_fq *q, uint32_t flow, uint32_t len, bool bulk)
{
	struct tpkt *want[CPE_FQ_DROP_BATCH];
	uint64_t over = q->st.overlimit_drops;
	unsigned int n = 0, i, d = ndrop, calls = nbulk;
	uint32_t v = 0;
	bool full = q->held == q->p.limit;

	if (full)
		n = ref_overflow(q, &v, want);
	put(q, flow, len, false, 0);
	if (!full)
		return ndrop == d;
	if (ndrop - d != n || q->st.overlimit_drops - over != n ||
	    (bulk && (nbulk != calls + 1 || bulk_n != n)) ||
	    (!bulk && nbulk != calls)) {
		printf("  packet %u: %u dropped (%u bulk calls), want %u of "
		       "flow %u\n", npk - 1, ndrop - d, nbulk - calls, n, v);
		return false;
	}
	for (i = 0; i < n && d + i < MAXP; i++)
		if (dropped[d + i] != want[i]) {
			printf("  packet %u: drop %u is packet %u of flow %u, "
			       "want %u of flow %u\n", npk - 1, i,
			       dropped[d + i]->seq, dropped[d + i]->flow,
			       want[i]->seq, v);
			return false;
		}
	return true;
}

/* Ties: the lowest-numbered of the flows with most bytes, in one block
 * (flows 33 and 40 of a block of 32) or not (2 and 1000). */
static void
case_overflow_ties(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	unsigned int i;

	p.limit = 15;
	fresh(&q, &p);
	for (i = 0; i < 3; i++) {
		put(&q, 1000, 200, false, 0);
		put(&q, 40, 200, false, 0);
		put(&q, 33, 200, false, 0);
	}
	for (i = 0; i < 6; i++)
		put(&q, 2, 100, false, 0);
	CHECK_EQ(q.held, 15);
	/* 600 bytes each: flow 2, the first, to 300 (3 of its 100s). */
	CHECK(put_checked(&q, 7, 100, false));
	CHECK_EQ(ndrop, 3);
	for (i = 0; i < ndrop; i++)
		CHECK_EQ(dropped[i]->flow, 2);
	CHECK_EQ(q.flow[2].n, 3);
	put(&q, 7, 100, false, 0);
	put(&q, 7, 100, false, 0);
	/* Then 33 before 40 (its block) and 1000: 600 to 200 bytes... */
	CHECK(put_checked(&q, 7, 100, false));
	CHECK_EQ(ndrop, 5);
	CHECK_EQ(dropped[3]->flow, 33);
	CHECK_EQ(dropped[4]->flow, 33);
	/* ...then 40 before 1000. */
	put(&q, 8, 100, false, 0);
	CHECK_EQ(q.held, q.p.limit);
	CHECK(put_checked(&q, 8, 100, false));
	CHECK_EQ(dropped[5]->flow, 40);
	CHECK_EQ(q.st.overlimit_drops, ndrop);
	CHECK(same_counts(&q));
	cpe_fq_free(&q);
}

/* Bytes, not packets: one big packet outweighs many small ones; a flow
 * of many small packets loses CPE_FQ_DROP_BATCH at most at once. */
static void
case_overflow_lengths(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	unsigned int i;

	p.limit = 11;
	fresh(&q, &p);
	for (i = 0; i < 10; i++)
		put(&q, 1, 60, false, 0);
	put(&q, 900, 1500, false, 0);
	/* 1500 in 1 packet against 600 in 10: that one, and only it. */
	CHECK(put_checked(&q, 3, 60, false));
	CHECK_EQ(ndrop, 1);
	CHECK_EQ(dropped[0]->flow, 900);
	/* Flow 1 now (600 bytes): to 300 or fewer, five of its 60s. */
	CHECK(put_checked(&q, 3, 60, false));
	CHECK_EQ(ndrop, 6);
	CHECK(same_counts(&q));
	cpe_fq_free(&q);

	/* 200 packets of 64 bytes: half would be 100 packets, a batch is
	 * CPE_FQ_DROP_BATCH (64); the next overflow takes 64 of the 136
	 * left again (its half would be 68). */
	p.limit = 200;
	fresh(&q, &p);
	for (i = 0; i < 200; i++)
		put(&q, 5, 64, false, 0);
	CHECK(put_checked(&q, 6, 64, false));
	CHECK_EQ(ndrop, CPE_FQ_DROP_BATCH);
	while (q.held < q.p.limit)
		put(&q, 6, 64, false, 0);
	CHECK(put_checked(&q, 6, 64, false));
	CHECK_EQ(ndrop, 2 * CPE_FQ_DROP_BATCH);
	CHECK_EQ(q.flow[5].n, 136 - CPE_FQ_DROP_BATCH);
	CHECK(same_counts(&q));
	cpe_fq_free(&q);
}

/*
 * A flow shrunk by dequeue stops being the fattest: the block that held
 * it at 8000 bytes (flow 4, with 5 in its block) is counted again, and
 * flow 100 of another block, smaller than 4 had been, is chosen; then
 * 4 and 5 in turn as they become the fattest. The model case has flows
 * emptied by dequeue as well.
 */
static void
case_overflow_emptied(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	unsigned int i;

	p.limit = 8;
	fresh(&q, &p);
	for (i = 0; i < 8; i++)
		put(&q, 4, 1000, false, 0);
	for (i = 0; i < 6; i++)
		CHECK(get(&q, 1) != NULL);
	CHECK_EQ(q.flow[4].n, 2);
	put(&q, 5, 1500, false, 2);
	for (i = 0; i < 5; i++)
		put(&q, 100, 500, false, 2);
	/* 4: 2000 bytes, 5: 1500, 100: 2500; three of 100's go. */
	CHECK(put_checked(&q, 6, 100, false));
	CHECK_EQ(ndrop, 3);
	CHECK_EQ(dropped[0]->flow, 100);
	put(&q, 7, 100, false, 3);
	put(&q, 7, 100, false, 3);
	/* 4 (2000) before 5 (1500) and 100 (1000): one of 4's... */
	CHECK(put_checked(&q, 7, 100, false));
	CHECK_EQ(ndrop, 4);
	CHECK_EQ(dropped[3]->flow, 4);
	/* ...then 5 (1500 against 1000 and 1000). */
	CHECK(put_checked(&q, 7, 100, false));
	CHECK_EQ(ndrop, 5);
	CHECK_EQ(dropped[4]->flow, 5);
	CHECK_EQ(q.flow[5].n, 0);
	CHECK(same_counts(&q));
	cpe_fq_free(&q);
}

/* A small deterministic generator (xorshift32): the same run always. */
static uint32_t
rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/*
 * Many overflows against the reference: flow counts of one, a few, not
 * powers of two, many; lengths from 1 to 1514 with many equal (ties);
 * a few flows hot, dequeues between arrivals emptying and shrinking
 * flows; with the per-packet and the bulk drop. Every overflow takes the
 * reference's packets and the counters agree with it throughout.
 */
static void
case_overflow_model(void)
{
	static const uint32_t nflows[] = { 1, 3, 64, 1000, 1024, 4096 };
	static const uint32_t lens[] = { 64, 64, 100, 1514, 0 };
	struct cpe_fq_params p = params();
	unsigned int c, i, bad, overflows;
	uint32_t x = 12345, flow, len;
	struct cpe_fq q;
	bool bulk;

	for (c = 0; c < 2 * sizeof(nflows) / sizeof(nflows[0]); c++) {
		bulk = c & 1;
		p.flows = nflows[c / 2];
		p.limit = 40;
		fresh_ops(&q, &p, bulk ? &ops_bulk : &ops);
		bad = 0;
		overflows = 0;
		for (i = 0; i < MAXP - 1 && bad == 0; i++) {
			/* A quarter of the arrivals in 4 hot flows. */
			flow = rnd(&x) % p.flows;
			if (rnd(&x) % 4 == 0)
				flow = flow % 4 % p.flows;
			len = lens[rnd(&x) % 5];
			if (len == 0)
				len = 1 + rnd(&x) % 1514;
			overflows += q.held == q.p.limit;
			bad += !put_checked(&q, flow, len, bulk);
			if (rnd(&x) % 3 == 0)
				(void)get(&q, 0);
			bad += !same_counts(&q);
		}
		if (bad)
			printf("  flows %u, %s drop: differs at packet %u\n",
			       p.flows, bulk ? "bulk" : "single", i);
		CHECK_EQ(bad, 0);
		/* One flow: each overflow halves all (1 000 flows: 2 400). */
		CHECK(overflows > 100);
		CHECK_EQ(q.st.overlimit_drops, ndrop);
		CHECK_EQ(q.st.codel_drops, 0);
		CHECK(bulk ? nbulk == overflows : nbulk == 0);
		cpe_fq_free(&q);
		CHECK_EQ(ndrop + ndeq, npk);
	}
}

/* Packets of 0 bytes only: no flow is fatter than another, nothing
 * can go from flow 0, the one chosen; the arrival goes instead. */
static void
case_overflow_zero_len(void)
{
	struct cpe_fq_params p = params();
	struct cpe_fq q;
	struct tpkt *t;
	unsigned int i;

	p.limit = 4;
	fresh(&q, &p);
	for (i = 0; i < 4; i++)
		put(&q, 3, 0, false, 0);
	t = put(&q, 9, 0, false, 0);
	CHECK_EQ(ndrop, 1);
	CHECK(ndrop == 1 && dropped[0] == t);
	CHECK_EQ(q.st.overlimit_drops, 1);
	CHECK_EQ(q.held, 4);
	CHECK_EQ(q.flow[9].n, 0);
	CHECK_EQ(q.flow[9].list, 0);
	CHECK(same_counts(&q));
	/* Flow 0 holding 0-byte packets is the one chosen, as before. */
	cpe_fq_free(&q);
	fresh(&q, &p);
	for (i = 0; i < 4; i++)
		put(&q, 0, 0, false, 0);
	t = put(&q, 9, 0, false, 0);
	CHECK_EQ(ndrop, 1);
	CHECK(ndrop == 1 && dropped[0]->flow == 0 && dropped[0] != t);
	CHECK_EQ(q.flow[9].n, 1);
	cpe_fq_free(&q);
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

static const struct check_case cases[] = {
	{ "drr", case_drr },
	{ "sparse", case_sparse },
	{ "codel_schedule", case_codel_schedule },
	{ "codel_leave_resume", case_codel_leave_resume },
	{ "ecn", case_ecn },
	{ "overflow", case_overflow },
	{ "overflow_ties", case_overflow_ties },
	{ "overflow_lengths", case_overflow_lengths },
	{ "overflow_emptied", case_overflow_emptied },
	{ "overflow_model", case_overflow_model },
	{ "overflow_zero_len", case_overflow_zero_len },
	{ "params", case_params },
	{ "histogram", case_histogram },
	{ "sojourn", case_sojourn },
};

int
main(void)
{
	return check_run("test_fq", cases, sizeof(cases) / sizeof(cases[0]));
}
