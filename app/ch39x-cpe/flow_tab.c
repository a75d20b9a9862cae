/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The table half of the flow caches (flow_tab.h): one copy, so that both
 * families age, count and evict alike.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>

#include "flow_tab.h"

/* --flow-entries keys (CRC hash: the keys are short and fixed). */
int
cpe_ftab_create(struct cpe_ftab *t, const char *name, uint32_t key_len,
		size_t esz, size_t key_off)
{
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = cpe.o->flow_entries,
		.key_len = key_len,
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};

	if (esz < sizeof(struct cpe_fent) ||
	    esz % _Alignof(struct cpe_fent) != 0)
		return -EINVAL;
	t->h = rte_hash_create(&hp);
	if (t->h == NULL)
		return -ENOMEM;
	t->esz = esz;
	t->key_off = key_off;
	t->key_len = key_len;
	t->nb = (uint32_t)rte_hash_max_key_id(t->h) + 1;
	t->ents = calloc(t->nb, esz);
	return t->ents == NULL ? -ENOMEM : 0;
}

uint32_t
cpe_ftab_count(const struct cpe_ftab *t)
{
	return t->h == NULL ? 0 : (uint32_t)rte_hash_count(t->h);
}

void
cpe_ftab_del(struct cpe_ftab *t, uint32_t pos)
{
	struct cpe_fent *f = cpe_ftab_at(t, pos);

	if (!f->used)
		return;
	rte_hash_del_key(t->h, (char *)f + t->key_off);
	f->used = false;
}

/* The slot of the new entry, or <0 (counted) when the table is full. */
int32_t
cpe_ftab_learn(struct cpe_ftab *t, const void *key, const struct cpe_xlate *x)
{
	struct cpe_fent *f;
	int32_t pos;

	/* Nothing leaves a port that is down: no flow out of it either. */
	if (unlikely(cpe.phys[cpe.ports[x->out].phys].down))
		return -ENETDOWN;
	pos = rte_hash_add_key(t->h, key);
	if (pos < 0) {
		cpe.st.flow_full++;
		return pos;
	}
	f = cpe_ftab_at(t, (uint32_t)pos);
	f->x = *x;
	memcpy((char *)f + t->key_off, key, t->key_len);
	f->gen = cpe.gen;
	f->last = cpe.now;
	f->used = true;
	cpe.st.flow_installs++;
	return pos;
}

/*
 * The slice of the table for ms milliseconds (cpe_age_budget()), so that
 * housekeeping stays short: idle and stale entries go. The number evicted.
 */
uint32_t
cpe_ftab_age(struct cpe_ftab *t, uint32_t ms)
{
	uint64_t timeout = (uint64_t)cpe.o->flow_timeout * cpe.hz;
	uint32_t budget = cpe_age_budget(t->nb, ms);
	struct cpe_fent *f;
	uint32_t n = 0;

	while (budget--) {
		if (++t->cursor >= t->nb)
			t->cursor = 0;
		f = cpe_ftab_at(t, t->cursor);
		if (!f->used)
			continue;
		if (cpe.now - f->last > timeout || f->gen != cpe.gen) {
			cpe_ftab_del(t, t->cursor);
			cpe.st.flow_evictions++;
			n++;
		}
	}
	return n;
}

/*
 * Deletes the entries out of DPDK port cpe.phys[k] (any of its
 * interfaces), once, when it goes down (hotplug.c): their packets take
 * the slow path, which keeps routes, neighbours and NAT sessions. The
 * number deleted.
 */
uint32_t
cpe_ftab_drop_phys(struct cpe_ftab *t, uint16_t k)
{
	struct cpe_fent *f;
	uint32_t pos, n = 0;

	if (t->h == NULL)
		return 0;
	for (pos = 0; pos < t->nb; pos++) {
		f = cpe_ftab_at(t, pos);
		if (f->used && cpe.ports[f->x.out].phys == k) {
			cpe_ftab_del(t, pos);
			n++;
		}
	}
	return n;
}
