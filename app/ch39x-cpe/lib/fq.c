/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * FQ-CoDel for one class of the WAN scheduler (fq.h says what; this is
 * how). It follows RFC 8290 section 4 and RFC 8289's pseudocode:
 *
 * - A flow that gets a packet while in no list joins the tail of the new
 *   list with a quantum of credit: a sparse flow (a ping, DNS, a game's
 *   updates) is served before every bulk flow. A flow that spends its
 *   credit moves to the old list's tail with a fresh quantum; a new flow
 *   that empties moves to the old list (so that a flow cannot stay new by
 *   sending one packet per round), an old one that empties leaves.
 * - CoDel runs at dequeue on the chosen flow: a packet whose sojourn is
 *   below target, or a class holding no more than an MTU, resets it;
 *   delay above target for a whole interval enters the dropping state,
 *   which takes one packet (ECN mark or drop) and then the next ones at
 *   interval / sqrt(count) apart until the delay is below target again.
 *   Re-entering soon after leaving resumes near the old count (RFC 8289's
 *   "count - lastcount", within 16 intervals, as Linux does).
 * - Overflow (limit packets held) drops from the head of the flow with the
 *   most bytes, up to half its bytes or CPE_FQ_DROP_BATCH packets at once,
 *   as Linux's fq_codel_drop(). Linux finds that flow by reading every
 *   flow's bytes; here the flows' blocks keep their maxima (fq.h, bmax),
 *   so that a search reads the blocks' maxima, recounts the few blocks
 *   whose maximum went down since, and reads one block: about 3 square
 *   roots of the flows instead of all (1024 flows: ~100 reads, not 1024).
 *   Under a flood that search comes every few arrivals.
 *
 * Entries live in one array with a free list: no allocation per packet.
 */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fq.h"

enum { FQ_NONE, FQ_NEW, FQ_OLD };

/* Blocks of 2^(bits / 2) flows, bits those of the flows' number: as
 * many blocks as flows in one, give or take a factor of two. */
static uint32_t
block_shift(uint32_t flows)
{
	uint32_t bits = 0;

	while (bits < 32 && (1ULL << bits) < flows)
		bits++;
	return bits / 2;
}

static uint32_t
stale_words(const struct cpe_fq *q)
{
	return (q->blocks + 63) / 64;
}

int
cpe_fq_init(struct cpe_fq *q, const struct cpe_fq_params *p,
	    const struct cpe_fq_ops *ops)
{
	uint32_t i;

	memset(q, 0, sizeof(*q));
	if (p->flows == 0 || p->limit == 0 || p->quantum == 0 ||
	    p->interval == 0 || p->ticks_per_us == 0 || ops->drop == NULL)
		return -EINVAL;
	q->p = *p;
	q->ops = *ops;
	/* Turns of one dequeue: every flow refilled and moved, twice. */
	q->rounds = 2 * p->flows + 2;
	/* A multiplication per packet instead of a 64-bit division. */
	q->us_mult = (1ULL << 32) / p->ticks_per_us;
	q->flow = calloc(p->flows, sizeof(q->flow[0]));
	q->ent = calloc(p->limit, sizeof(q->ent[0]));
	q->bshift = block_shift(p->flows);
	q->blocks = ((p->flows - 1) >> q->bshift) + 1;
	q->bytes = calloc(p->flows, sizeof(q->bytes[0]));
	q->bmax = calloc(q->blocks, sizeof(q->bmax[0]));
	q->stale = calloc(stale_words(q), sizeof(q->stale[0]));
	if (q->flow == NULL || q->bytes == NULL || q->ent == NULL ||
	    q->bmax == NULL || q->stale == NULL) {
		cpe_fq_free(q);
		return -ENOMEM;
	}
	for (i = 0; i < p->flows; i++)
		q->flow[i].head = q->flow[i].tail = CPE_FQ_NIL;
	for (i = 0; i < p->limit; i++)
		q->ent[i].next = i + 1 < p->limit ? i + 1 : CPE_FQ_NIL;
	q->free = 0;
	q->newl.head = q->newl.tail = CPE_FQ_NIL;
	q->oldl.head = q->oldl.tail = CPE_FQ_NIL;
	return 0;
}

/* Flow fi grew by len bytes: its block's maximum follows. */
static inline void
bytes_add(struct cpe_fq *q, uint32_t fi, uint32_t len)
{
	uint32_t b = q->bytes[fi] + len, bi = fi >> q->bshift;

	q->bytes[fi] = b;
	if (b > q->bmax[bi])
		q->bmax[bi] = b;
}

/*
 * Flow fi shrank by len bytes. Below its block's maximum, another flow
 * holds that maximum still; at it, the block may have no flow at its
 * maximum any more: the next search recounts it.
 */
static inline void
bytes_sub(struct cpe_fq *q, uint32_t fi, uint32_t len)
{
	uint32_t bi = fi >> q->bshift;

	if (q->bytes[fi] == q->bmax[bi])
		q->stale[bi / 64] |= 1ULL << (bi % 64);
	q->bytes[fi] -= len;
}

/* The head packet of flow f out of its queue (f not empty). */
static struct cpe_fq_ent *
flow_pop(struct cpe_fq *q, struct cpe_fq_flow *f)
{
	uint32_t i = f->head;
	struct cpe_fq_ent *e = &q->ent[i];

	f->head = e->next;
	if (f->head == CPE_FQ_NIL)
		f->tail = CPE_FQ_NIL;
	f->n--;
	bytes_sub(q, (uint32_t)(f - q->flow), e->len);
	q->held--;
	q->backlog -= e->len;
	e->next = q->free;
	q->free = i;
	return e;
}

void
cpe_fq_free(struct cpe_fq *q)
{
	uint32_t i;

	for (i = 0; q->flow != NULL && q->ent != NULL && i < q->p.flows; i++)
		while (q->flow[i].n)
			q->ops.drop(flow_pop(q, &q->flow[i])->pkt, q->ops.ctx);
	free(q->flow);
	free(q->bytes);
	free(q->ent);
	free(q->bmax);
	free(q->stale);
	q->flow = NULL;
	q->bytes = NULL;
	q->ent = NULL;
	q->bmax = NULL;
	q->stale = NULL;
}

static void
list_push(struct cpe_fq *q, struct cpe_fq_list *l, uint32_t fi, uint8_t id)
{
	struct cpe_fq_flow *f = &q->flow[fi];

	f->next = CPE_FQ_NIL;
	f->list = id;
	if (l->tail == CPE_FQ_NIL)
		l->head = fi;
	else
		q->flow[l->tail].next = fi;
	l->tail = fi;
	l->n++;
}

static uint32_t
list_pop(struct cpe_fq *q, struct cpe_fq_list *l)
{
	uint32_t fi = l->head;

	l->head = q->flow[fi].next;
	if (l->head == CPE_FQ_NIL)
		l->tail = CPE_FQ_NIL;
	l->n--;
	q->flow[fi].list = FQ_NONE;
	return fi;
}

/* The first flow of block bi and the one after its last. */
static void
block_range(const struct cpe_fq *q, uint32_t bi, uint32_t *from,
	    uint32_t *to)
{
	*from = bi << q->bshift;
	*to = *from + (1U << q->bshift);
	if (*to > q->p.flows)
		*to = q->p.flows;
}

/* Block bi's most bytes, read from its flows. */
static uint32_t
block_max(const struct cpe_fq *q, uint32_t bi)
{
	uint32_t i, to, max = 0;

	for (block_range(q, bi, &i, &to); i < to; i++)
		max = q->bytes[i] > max ? q->bytes[i] : max;
	return max;
}

/*
 * The flow holding most bytes, the lowest-numbered of those holding as
 * many: the flow a scan of every flow in order finds (Linux's). With
 * the stale blocks recounted every bmax[] is exact, the first block
 * with the largest holds that flow, and it holds a flow at its maximum.
 */
static uint32_t
fattest(struct cpe_fq *q)
{
	uint32_t w, bi, best = 0, max, i, to;
	uint64_t s;

	for (w = 0; w < stale_words(q); w++) {
		for (s = q->stale[w]; s != 0; s &= s - 1) {
			bi = w * 64 + (uint32_t)__builtin_ctzll(s);
			q->bmax[bi] = block_max(q, bi);
		}
		q->stale[w] = 0;
	}
	for (bi = 1, max = q->bmax[0]; bi < q->blocks; bi++)
		if (q->bmax[bi] > max) {
			max = q->bmax[bi];
			best = bi;
		}
	for (block_range(q, best, &i, &to); i < to; i++)
		if (q->bytes[i] == max)
			return i;
	return 0;	/* not reached: max is one of the block's flows' */
}

/*
 * Memory full: packets from the head of the flow holding most bytes,
 * until it holds half or CPE_FQ_DROP_BATCH went. The dropped entries
 * are a chain from the flow's head: they go to the free list at once
 * and the counters change once; the packets are freed in one call when
 * the caller can (they are cold: drop_bulk fetches them together).
 */
static void
drop_fattest(struct cpe_fq *q)
{
	void *gone[CPE_FQ_DROP_BATCH];
	uint32_t fi = fattest(q), bytes, goal, n = 0, at, last, i;
	struct cpe_fq_flow *fat = &q->flow[fi];
	const struct cpe_fq_ent *e;

	if (fat->n == 0)
		return;
	bytes = q->bytes[fi];
	goal = bytes / 2;
	at = fat->head;
	do {
		e = &q->ent[at];
		gone[n++] = e->pkt;
		bytes -= e->len;
		last = at;
		at = e->next;
	} while (at != CPE_FQ_NIL && bytes > goal && n < CPE_FQ_DROP_BATCH);
	q->ent[last].next = q->free;
	q->free = fat->head;
	fat->head = at;
	if (at == CPE_FQ_NIL)
		fat->tail = CPE_FQ_NIL;
	fat->n -= n;
	q->held -= n;
	q->backlog -= q->bytes[fi] - bytes;
	bytes_sub(q, fi, q->bytes[fi] - bytes);
	q->st.overlimit_drops += n;
	if (q->ops.drop_bulk != NULL) {
		q->ops.drop_bulk(gone, n, q->ops.ctx);
		return;
	}
	for (i = 0; i < n; i++)
		q->ops.drop(gone[i], q->ops.ctx);
}

void
cpe_fq_enqueue(struct cpe_fq *q, void *pkt, uint32_t len, uint32_t hash,
	       uint64_t now)
{
	/* hash * flows / 2^32: a multiplication, not a division. */
	uint32_t fi = cpe_fq_flow_of(q, hash), ei;
	struct cpe_fq_flow *f = &q->flow[fi];
	struct cpe_fq_ent *e;

	if (q->free == CPE_FQ_NIL) {
		drop_fattest(q);
		/* Nothing went (every packet held is of 0 bytes): this
		 * one does, rather than take an entry there is not. */
		if (q->free == CPE_FQ_NIL) {
			q->ops.drop(pkt, q->ops.ctx);
			q->st.overlimit_drops++;
			return;
		}
	}
	ei = q->free;
	e = &q->ent[ei];
	q->free = e->next;
	e->pkt = pkt;
	e->t = now;
	e->len = len;
	e->next = CPE_FQ_NIL;
	if (f->tail == CPE_FQ_NIL)
		f->head = ei;
	else
		q->ent[f->tail].next = ei;
	f->tail = ei;
	f->n++;
	bytes_add(q, fi, len);
	q->held++;
	q->backlog += len;
	if (f->list == FQ_NONE) {
		list_push(q, &q->newl, fi, FQ_NEW);
		f->deficit = (int32_t)q->p.quantum;
		q->st.new_flows++;
	}
}

/* RFC 8289's control law: the next drop interval / sqrt(count) later. */
static uint64_t
control_law(uint64_t t, uint64_t interval, uint32_t count)
{
	return t + (uint64_t)((double)interval / sqrt((double)count));
}

/*
 * Whether the head packet e (NULL: the flow is empty) has been above
 * target for an interval. Resets the state when it is below.
 */
static bool
should_drop(struct cpe_fq *q, struct cpe_fq_codel *cd,
	    const struct cpe_fq_ent *e, uint64_t now)
{
	if (e == NULL) {
		cd->first_above = 0;
		return false;
	}
	if (now - e->t < q->p.target || q->backlog <= q->p.mtu) {
		cd->first_above = 0;
		return false;
	}
	if (cd->first_above == 0) {
		cd->first_above = now + q->p.interval;
		return false;
	}
	return now >= cd->first_above;
}

static struct cpe_fq_ent *
head_pop(struct cpe_fq *q, struct cpe_fq_flow *f)
{
	return f->n ? flow_pop(q, f) : NULL;
}

/* Mark e (true) or drop it (false), as CoDel's signal to its sender. */
static bool
signal(struct cpe_fq *q, const struct cpe_fq_ent *e)
{
	if (q->p.ecn && q->ops.mark != NULL &&
	    q->ops.mark(e->pkt, q->ops.ctx)) {
		q->st.ecn_marks++;
		return true;
	}
	q->ops.drop(e->pkt, q->ops.ctx);
	q->st.codel_drops++;
	return false;
}

/* RFC 8289's dequeue on flow f: the packet to send, or NULL. */
static struct cpe_fq_ent *
codel_dequeue(struct cpe_fq *q, struct cpe_fq_flow *f, uint64_t now)
{
	struct cpe_fq_codel *cd = &f->cd;
	struct cpe_fq_ent *e = head_pop(q, f);
	bool drop = should_drop(q, cd, e, now);
	uint32_t delta;

	if (e == NULL) {
		cd->dropping = false;
		return NULL;
	}
	if (cd->dropping) {
		if (!drop) {
			cd->dropping = false;
			return e;
		}
		while (cd->dropping && now >= cd->drop_next) {
			cd->count++;
			if (signal(q, e)) {
				cd->drop_next = control_law(cd->drop_next,
					q->p.interval, cd->count);
				return e;
			}
			e = head_pop(q, f);
			if (!should_drop(q, cd, e, now))
				cd->dropping = false;
			else
				cd->drop_next = control_law(cd->drop_next,
					q->p.interval, cd->count);
		}
		return e;
	}
	if (drop) {
		if (!signal(q, e)) {
			e = head_pop(q, f);
			(void)should_drop(q, cd, e, now);
		}
		cd->dropping = true;
		delta = cd->count - cd->lastcount;
		cd->count = 1;
		/* Back soon after leaving: resume near the old rate. */
		if (delta > 1 && (int64_t)(now - cd->drop_next) <
		    (int64_t)(16 * q->p.interval))
			cd->count = delta;
		cd->lastcount = cd->count;
		cd->drop_next = control_law(now, q->p.interval, cd->count);
	}
	return e;
}

static void
account(struct cpe_fq *q, const struct cpe_fq_ent *e, uint64_t now)
{
	q->st.hist[cpe_fq_hist_bucket(((now - e->t) * q->us_mult) >> 32)]++;
}

void *
cpe_fq_dequeue(struct cpe_fq *q, uint64_t now, uint32_t *len)
{
	struct cpe_fq_list *l;
	struct cpe_fq_flow *f;
	struct cpe_fq_ent *e;
	uint32_t fi, rounds = q->rounds;

	/* Each turn either sends, or moves or retires a flow: bounded. */
	while (rounds-- > 0) {
		l = q->newl.n ? &q->newl : q->oldl.n ? &q->oldl : NULL;
		if (l == NULL)
			return NULL;
		fi = l->head;
		f = &q->flow[fi];
		if (f->deficit <= 0) {
			f->deficit += (int32_t)q->p.quantum;
			list_push(q, &q->oldl, list_pop(q, l), FQ_OLD);
			continue;
		}
		/* Empty (a sparse flow served last turn): CoDel's reset. */
		if (f->n == 0) {
			f->cd.first_above = 0;
			f->cd.dropping = false;
			e = NULL;
		} else {
			e = codel_dequeue(q, f, now);
		}
		if (e == NULL) {
			/* Empty: a new flow goes on to the old list, so
			 * that it cannot stay sparse by sending in bursts
			 * of one. */
			list_pop(q, l);
			if (l == &q->newl && q->oldl.n)
				list_push(q, &q->oldl, fi, FQ_OLD);
			continue;
		}
		f->deficit -= (int32_t)e->len;
		account(q, e, now);
		*len = e->len;
		return e->pkt;
	}
	return NULL;
}

unsigned int
cpe_fq_hist_bucket(uint64_t us)
{
	unsigned int k, b;

	if (us < 4)
		return (unsigned int)us;
	k = 63 - (unsigned int)__builtin_clzll(us);
	b = 4 + 4 * (k - 2) + (unsigned int)((us >> (k - 2)) & 3);
	return b < CPE_FQ_HIST ? b : CPE_FQ_HIST - 1;
}

uint64_t
cpe_fq_hist_upper(unsigned int b)
{
	unsigned int k, sub;

	if (b < 4)
		return b;
	k = (b - 4) / 4 + 2;
	sub = (b - 4) % 4;
	return ((uint64_t)(5 + sub) << (k - 2)) - 1;
}

uint64_t
cpe_fq_hist_pct(const uint64_t *hist, double p)
{
	uint64_t total = 0, run = 0, want;
	unsigned int b;

	for (b = 0; b < CPE_FQ_HIST; b++)
		total += hist[b];
	if (total == 0)
		return 0;
	want = (uint64_t)ceil((double)total * p / 100.0);
	if (want == 0)
		want = 1;
	for (b = 0; b < CPE_FQ_HIST; b++) {
		run += hist[b];
		if (run >= want)
			return cpe_fq_hist_upper(b);
	}
	return cpe_fq_hist_upper(CPE_FQ_HIST - 1);
}
