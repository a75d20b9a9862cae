/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FLOW_TAB_H
#define CPE_FLOW_TAB_H

/*
 * The flow-cache table flow.c (IPv4) and flow6.c (IPv6) share: an rte_hash
 * of keys, one entry per hash slot, learning, deletion and the aging
 * cursor. Each family keeps its key and its fast path; its entries start
 * with struct cpe_fent and hold the key at key_off.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_hash.h>

#include "cpe.h"

struct cpe_fent {
	struct cpe_xlate x;
	uint64_t last;
	uint32_t gen;
	bool used;
};

struct cpe_ftab {
	struct rte_hash *h;		/* NULL: the family is off */
	void *ents;
	size_t esz;			/* entry size */
	size_t key_off;			/* of the key in an entry */
	uint32_t key_len;
	uint32_t nb;
	uint32_t cursor;		/* of the aging walk */
};

static inline struct cpe_fent *
cpe_ftab_at(const struct cpe_ftab *t, uint32_t pos)
{
	/* Aligned: calloc'ed, and cpe_ftab_create takes only an esz that is
	 * a multiple of the entry's alignment.
	 */
	return (struct cpe_fent *)(void *)((char *)t->ents +
					  (size_t)pos * t->esz);
}

int cpe_ftab_create(struct cpe_ftab *t, const char *name, uint32_t key_len,
		    size_t esz, size_t key_off);
uint32_t cpe_ftab_count(const struct cpe_ftab *t);
void cpe_ftab_del(struct cpe_ftab *t, uint32_t pos);
int32_t cpe_ftab_learn(struct cpe_ftab *t, const void *key,
		       const struct cpe_xlate *x);
uint32_t cpe_ftab_age(struct cpe_ftab *t, uint32_t ms);
uint32_t cpe_ftab_drop_phys(struct cpe_ftab *t, uint16_t k);

#endif
