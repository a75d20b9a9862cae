/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* Fragments followed by datagram: see frag.h. */

#include <stdlib.h>
#include <string.h>

#include "frag.h"

#define FRAG_WAYS	8		/* slots a key may take */

static const char *const reason_names[CPE_FRAG_NB_REASONS] = {
	[CPE_FRAG_OK] = "ok",
	[CPE_FRAG_DROP_TINY] = "tiny",
	[CPE_FRAG_DROP_MALFORMED] = "malformed",
	[CPE_FRAG_DROP_OVERLAP] = "overlap",
	[CPE_FRAG_DROP_TOO_MANY] = "too_many",
	[CPE_FRAG_DROP_NO_FIRST] = "no_first",
};

const char *
cpe_frag_reason_name(enum cpe_frag_reason r)
{
	return r < CPE_FRAG_NB_REASONS ? reason_names[r] : "?";
}

static uint32_t
get16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t
get32(const uint8_t *p)
{
	return get16(p) << 16 | get16(p + 2);
}

/* The bytes a first fragment must hold of its L4 header (RFC 1858). */
static uint32_t
l4_min(uint8_t proto)
{
	switch (proto) {
	case 6:
		return 20;
	case 17: case 1: case 58:
		return 8;
	default:
		return 1;
	}
}

static int
check(struct cpe_frag_info *fi)
{
	if (fi->off == 0 && fi->len < l4_min(fi->k.proto))
		return -CPE_FRAG_DROP_TINY;
	if (fi->more && (fi->len == 0 || (fi->len & 7) != 0))
		return -CPE_FRAG_DROP_MALFORMED;
	if (fi->off + fi->len > 65535)
		return -CPE_FRAG_DROP_MALFORMED;
	/* RFC 1858: a TCP fragment at offset 8 rewrites the flags. */
	if (fi->off == 8 && fi->k.proto == 6)
		return -CPE_FRAG_DROP_TINY;
	return 1;
}

static int
parse4(const uint8_t *l3, uint32_t len, struct cpe_frag_info *fi)
{
	uint32_t ihl = (uint32_t)(l3[0] & 0xf) * 4, tot = get16(l3 + 2);
	uint32_t fo = get16(l3 + 6);

	if ((fo & 0x3fff) == 0)
		return 0;
	if (ihl < 20 || tot < ihl || len < ihl)
		return -CPE_FRAG_DROP_MALFORMED;
	memcpy(fi->k.src, l3 + 12, 4);
	memcpy(fi->k.dst, l3 + 16, 4);
	fi->k.id = get16(l3 + 4);
	fi->k.proto = l3[9];
	fi->off = (fo & 0x1fff) * 8;
	fi->more = (fo & 0x2000) != 0;
	fi->len = tot - ihl;
	fi->l4_off = ihl;
	return check(fi);
}

static int
parse6(const uint8_t *l3, uint32_t len, struct cpe_frag_info *fi)
{
	uint32_t off = 40, end = 40 + get16(l3 + 4), fo;
	uint8_t nh = l3[6];

	if (end < len)
		len = end;
	/* Hop-by-hop, routing and destination options come first. */
	while ((nh == 0 || nh == 43 || nh == 60) && off + 8 <= len) {
		nh = l3[off];
		off += ((uint32_t)l3[off + 1] + 1) * 8;
	}
	if (nh != 44)
		return 0;
	if (off + 8 > len)
		return -CPE_FRAG_DROP_MALFORMED;
	fo = get16(l3 + off + 2);
	/* An atomic fragment (offset 0, no more) is a whole packet. */
	if ((fo & 0xfff9) == 0)
		return 0;
	fi->k.v6 = 1;
	memcpy(fi->k.src, l3 + 8, 16);
	memcpy(fi->k.dst, l3 + 24, 16);
	fi->k.id = get32(l3 + off + 4);
	fi->k.proto = l3[off];
	fi->off = fo & 0xfff8;
	fi->more = (fo & 1) != 0;
	fi->l4_off = off + 8;
	fi->len = end - (off + 8);
	return check(fi);
}

int
cpe_frag_parse(const uint8_t *l3, uint32_t len, struct cpe_frag_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	if (len >= 20 && (l3[0] >> 4) == 4)
		return parse4(l3, len, fi);
	if (len >= 40 && (l3[0] >> 4) == 6)
		return parse6(l3, len, fi);
	return 0;
}

int
cpe_frag_init(struct cpe_frag *f, uint32_t entries, uint64_t hz,
	      uint32_t timeout_s)
{
	uint32_t n = FRAG_WAYS;

	memset(f, 0, sizeof(*f));
	while (n < entries)
		n <<= 1;
	f->e = calloc(n, sizeof(*f->e));
	if (f->e == NULL)
		return -1;
	f->mask = n - 1;
	f->timeout = (uint64_t)timeout_s * hz;
	return 0;
}

void
cpe_frag_free(struct cpe_frag *f)
{
	free(f->e);
	f->e = NULL;
}

void
cpe_frag_drop(struct cpe_frag *f, enum cpe_frag_reason r)
{
	f->st.drops[r]++;
}

static uint32_t
hash_key(const struct cpe_frag_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void
slot_free(struct cpe_frag *f, struct cpe_frag_ent *e)
{
	memset(e, 0, sizeof(*e));
	f->in_use--;
}

static bool
expired(const struct cpe_frag *f, const struct cpe_frag_ent *e, uint64_t now)
{
	return now - e->last > f->timeout;
}

static struct cpe_frag_ent *
lookup(struct cpe_frag *f, const struct cpe_frag_key *k, uint64_t now)
{
	uint32_t h = hash_key(k), i;
	struct cpe_frag_ent *e;

	for (i = 0; i < FRAG_WAYS; i++) {
		e = &f->e[(h + i) & f->mask];
		if (!e->used || memcmp(&e->k, k, sizeof(*k)) != 0)
			continue;
		if (expired(f, e, now)) {
			slot_free(f, e);
			f->st.expired++;
			return NULL;
		}
		return e;
	}
	return NULL;
}

static struct cpe_frag_ent *
create(struct cpe_frag *f, const struct cpe_frag_key *k, uint64_t now)
{
	uint32_t h = hash_key(k), i;
	struct cpe_frag_ent *e, *v = NULL;

	for (i = 0; i < FRAG_WAYS; i++) {
		e = &f->e[(h + i) & f->mask];
		if (e->used && expired(f, e, now)) {
			slot_free(f, e);
			f->st.expired++;
		}
		if (!e->used) {
			v = e;
			break;
		}
		if (v == NULL || e->last < v->last)
			v = e;
	}
	if (v->used) {
		slot_free(f, v);
		f->st.evicted++;
	}
	v->k = *k;
	v->used = true;
	f->in_use++;
	return v;
}

/* Adds [lo, hi) to e: CPE_FRAG_OK, or an overlap or too many. */
static enum cpe_frag_reason
add_range(struct cpe_frag_ent *e, uint32_t lo, uint32_t hi, bool more)
{
	uint8_t i;

	for (i = 0; i < e->nb; i++)
		if (lo < e->hi[i] && e->lo[i] < hi)
			return CPE_FRAG_DROP_OVERLAP;
	/* Past the end a last fragment gave, or a second last: overlap. */
	if ((e->end && hi > e->end) || (!more && e->end))
		return CPE_FRAG_DROP_OVERLAP;
	if (e->nb == CPE_FRAG_RANGES)
		return CPE_FRAG_DROP_TOO_MANY;
	if (!more) {
		for (i = 0; i < e->nb; i++)
			if (e->hi[i] > hi)
				return CPE_FRAG_DROP_OVERLAP;
		e->end = hi;
	}
	e->lo[e->nb] = lo;
	e->hi[e->nb] = hi;
	e->nb++;
	return CPE_FRAG_OK;
}

/* Whether e's ranges cover [0, end): the datagram has passed. */
static bool
complete(const struct cpe_frag_ent *e)
{
	uint32_t sum = 0;
	uint8_t i;

	if (e->end == 0)
		return false;
	for (i = 0; i < e->nb; i++)
		sum += e->hi[i] - e->lo[i];
	return sum == e->end;	/* no overlaps: the sum is the cover */
}

void *
cpe_frag_first(struct cpe_frag *f, const struct cpe_frag_info *fi,
	       uint64_t now)
{
	struct cpe_frag_ent *e = lookup(f, &fi->k, now);

	if (e != NULL) {
		/* A second first fragment: an overlap at 0. */
		e->bad = true;
		e->last = now;
		f->st.drops[CPE_FRAG_DROP_OVERLAP]++;
		return NULL;
	}
	e = create(f, &fi->k, now);
	e->last = now;
	add_range(e, 0, fi->len, fi->more);
	f->st.first++;
	return e->data;
}

const void *
cpe_frag_later(struct cpe_frag *f, const struct cpe_frag_info *fi,
	       uint64_t now, enum cpe_frag_reason *why)
{
	struct cpe_frag_ent *e = lookup(f, &fi->k, now);
	enum cpe_frag_reason r;

	if (e == NULL) {
		/* Not counted: the caller may let it take the plain path. */
		*why = CPE_FRAG_DROP_NO_FIRST;
		return NULL;
	}
	e->last = now;
	if (e->bad) {
		r = CPE_FRAG_DROP_OVERLAP;
		goto drop;
	}
	r = add_range(e, fi->off, fi->off + fi->len, fi->more);
	if (r != CPE_FRAG_OK) {
		/* RFC 5722: the datagram is dropped, all that follows. */
		e->bad = r == CPE_FRAG_DROP_OVERLAP;
		if (r == CPE_FRAG_DROP_TOO_MANY)
			e->bad = true;
		goto drop;
	}
	f->st.later++;
	if (complete(e)) {
		/* Its data stays readable until the next call. */
		memcpy(f->done, e->data, sizeof(f->done));
		slot_free(f, e);
		f->st.done++;
		return f->done;
	}
	return e->data;
drop:
	f->st.drops[r]++;
	*why = r;
	return NULL;
}

void
cpe_frag_age(struct cpe_frag *f, uint32_t n, uint64_t now)
{
	struct cpe_frag_ent *e;

	if (f->e == NULL)
		return;
	while (n--) {
		f->cursor = (f->cursor + 1) & f->mask;
		e = &f->e[f->cursor];
		if (e->used && expired(f, e, now)) {
			slot_free(f, e);
			f->st.expired++;
		}
	}
}
