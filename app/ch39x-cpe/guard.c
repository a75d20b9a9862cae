/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * SYN-flood protection's pure part (guard.h): token buckets, the
 * admission of new WAN connections and the slow path's budget. No DPDK.
 */

#include <stdlib.h>
#include <string.h>

#include "guard.h"

void
cpe_tb_init(struct cpe_tb *b, uint32_t rate, uint32_t burst, uint64_t hz,
	    uint64_t now)
{
	b->per = hz / (rate ? rate : 1);
	if (b->per == 0)
		b->per = 1;
	b->cap = b->per * (burst ? burst : 1);
	b->credit = b->cap;
	b->last = now;
}

bool
cpe_tb_take(struct cpe_tb *b, uint64_t now)
{
	/* A clock that went back (another lcore's TSC) adds nothing. */
	if (now > b->last) {
		b->credit += now - b->last;
		if (b->credit > b->cap)
			b->credit = b->cap;
		b->last = now;
	}
	if (b->credit < b->per)
		return false;
	b->credit -= b->per;
	return true;
}

int
cpe_guard_init(struct cpe_guard *g, const struct cpe_guard_cfg *cfg,
	       uint64_t hz, uint64_t now)
{
	memset(g, 0, sizeof(*g));
	g->cfg = *cfg;
	g->ms_ticks = hz / 1000 ? hz / 1000 : 1;
	cpe_tb_init(&g->tcp, cfg->rate, cfg->burst, hz, now);
	cpe_tb_init(&g->udp, cfg->rate, cfg->burst, hz, now);
	cpe_tb_init(&g->retry, cfg->rate, cfg->burst, hz, now);
	/* A tenth of a second's worth in one go. */
	cpe_tb_init(&g->budget, cfg->budget,
		    cfg->budget / 10 ? cfg->budget / 10 : 1, hz, now);
	if (!cfg->on)
		return 0;
	g->seen = calloc(CPE_GUARD_SEEN, sizeof(*g->seen));
	return g->seen == NULL ? -1 : 0;
}

void
cpe_guard_free(struct cpe_guard *g)
{
	free(g->seen);
	g->seen = NULL;
}

/* 8 bytes a round (a multiply and a shift), then a final mix: the low
 * bits pick a slot, the high half is the tag. */
uint64_t
cpe_guard_hash(const void *key, size_t len)
{
	const uint8_t *p = key;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (len) {
		w = 0;
		memcpy(&w, p, len);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
	}
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

/*
 * The SYNs remembered: sets of CPE_GUARD_WAYS slots, a hash's low bits
 * pick its set; a new one takes the set's oldest slot. A flood writes a
 * slot per SYN it gets dropped: in a set of four a client's entry stays
 * until four more land in its set, not the first one (at 50000 SYNs a
 * second 93 % of them last the 2 s a retransmission may take).
 */
static struct cpe_guard_seen *
set_of(struct cpe_guard *g, uint64_t h)
{
	return &g->seen[(h & (CPE_GUARD_SEEN / CPE_GUARD_WAYS - 1)) *
			CPE_GUARD_WAYS];
}

static uint32_t
tag_of(uint64_t h)
{
	return (uint32_t)(h >> 32) | 1u;
}

/* h's slot in set s, or NULL. */
static struct cpe_guard_seen *
seen_find(struct cpe_guard_seen *s, uint64_t h)
{
	uint32_t tag = tag_of(h), i;

	for (i = 0; i < CPE_GUARD_WAYS; i++)
		if (s[i].tag == tag)
			return &s[i];
	return NULL;
}

/* Whether e (NULL: none) is a SYN dropped 0.25 to 30 s before ms. */
static bool
seen_match(const struct cpe_guard_seen *e, uint32_t ms)
{
	uint32_t age;

	if (e == NULL)
		return false;
	age = ms - e->ms;
	return age >= CPE_GUARD_RETRY_MIN_MS && age <= CPE_GUARD_RETRY_MAX_MS;
}

/* h dropped at ms: remembered in its set (e: its slot already, whose
 * first drop's time stays: a burst of copies is no retransmission). */
static void
seen_note(struct cpe_guard_seen *s, struct cpe_guard_seen *e, uint64_t h,
	  uint32_t ms)
{
	uint32_t i;

	if (e != NULL)
		return;
	e = &s[0];
	for (i = 1; i < CPE_GUARD_WAYS && e->tag != 0; i++)
		if (s[i].tag == 0 || ms - s[i].ms > ms - e->ms)
			e = &s[i];
	e->tag = tag_of(h);
	e->ms = ms;
}

static uint32_t
ms_of(const struct cpe_guard *g, uint64_t now)
{
	return (uint32_t)(now / g->ms_ticks);
}

bool
cpe_guard_admit_take(struct cpe_guard *g, uint8_t proto, uint64_t now)
{
	if (g->cfg.on && !cpe_tb_take(proto == 6 ? &g->tcp : &g->udp, now))
		return false;
	g->st.admitted += g->cfg.on;
	return true;
}

enum cpe_guard_verdict
cpe_guard_admit_over(struct cpe_guard *g, uint8_t proto, const void *key,
		     size_t len, uint64_t now)
{
	struct cpe_guard_seen *s, *e;
	uint64_t h;
	uint32_t ms;

	if (proto != 6) {
		g->st.limited_udp++;
		return CPE_GUARD_DROP;
	}
	h = cpe_guard_hash(key, len);
	s = set_of(g, h);
	e = seen_find(s, h);
	ms = ms_of(g, now);
	/* One retransmission gets in (the slot cleared), not every copy. */
	if (seen_match(e, ms) && cpe_tb_take(&g->retry, now)) {
		e->tag = 0;
		g->st.retried++;
		return CPE_GUARD_RETRY;
	}
	seen_note(s, e, h, ms);
	g->st.limited_tcp++;
	return CPE_GUARD_DROP;
}

enum cpe_guard_verdict
cpe_guard_admit(struct cpe_guard *g, uint8_t proto, const void *key,
		size_t len, uint64_t now)
{
	return cpe_guard_admit_take(g, proto, now) ? CPE_GUARD_ADMIT :
		cpe_guard_admit_over(g, proto, key, len, now);
}

bool
cpe_guard_budget_take(struct cpe_guard *g, uint64_t now)
{
	return !g->cfg.on || g->cfg.budget == 0 ||
		cpe_tb_take(&g->budget, now);
}

bool
cpe_guard_budget_over(struct cpe_guard *g, const void *key, size_t len,
		      uint64_t now)
{
	uint64_t h = cpe_guard_hash(key, len);
	struct cpe_guard_seen *s = set_of(g, h), *e = seen_find(s, h);
	uint32_t ms = ms_of(g, now);

	/* A retransmission goes on to the admission, which decides. */
	if (seen_match(e, ms))
		return true;
	seen_note(s, e, h, ms);
	g->st.budget_drops++;
	return false;
}

bool
cpe_guard_budget(struct cpe_guard *g, const void *key, size_t len,
		 uint64_t now)
{
	return cpe_guard_budget_take(g, now) ||
		cpe_guard_budget_over(g, key, len, now);
}
