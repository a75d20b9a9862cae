/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_NEIGH_SM_H
#define CPE_NEIGH_SM_H

/*
 * The neighbour state machine ARP (neigh.c) and IPv6 ND (nd6.c) share:
 * incomplete -> reachable -> probed halfway to expiry -> gone, with a few
 * packets held per unresolved hop and a hop given up after 3 s. Each
 * family keeps its own key, table and packets; it embeds struct cpe_nent
 * in its entries and names its probe, delete and counters in cpe_nops.
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_mbuf.h>

#include "cpe.h"

enum { N_FREE, N_INCOMPLETE, N_REACHABLE, N_STATIC };

struct cpe_nent {
	uint16_t port;			/* router port index */
	uint8_t state;
	uint8_t nq;
	struct rte_ether_addr mac;
	uint64_t confirmed;		/* TSC of the last word from it */
	uint64_t created;
	uint64_t sent;			/* TSC of our last request */
	struct rte_mbuf *q[CPE_NEIGH_QUEUE];
};

struct cpe_nops {
	/* Ask for entry pos: broadcast/multicast when mac is NULL. */
	void (*probe)(uint32_t pos, const struct rte_ether_addr *mac);
	/* Drop entry pos: its queue, its key, its slot. */
	void (*del)(uint32_t pos);
	uint64_t *queued;
	uint64_t *queue_drops;
	uint64_t *expired;
};

int cpe_ntab_create(const char *name, const char *what, uint32_t key_len,
		    size_t esz, struct rte_hash **tbl, void **ents,
		    uint32_t *nb);
void cpe_nent_drop_queue(struct cpe_nent *e, const struct cpe_nops *o);
void cpe_nent_flush(struct cpe_nent *e);
int cpe_nent_hold(struct cpe_nent *e, uint32_t pos, uint16_t out,
		  struct rte_mbuf *m, const struct cpe_nops *o);
void cpe_nent_age(struct cpe_nent *e, uint32_t pos, uint64_t timeout,
		  const struct cpe_nops *o);
void cpe_nent_set_static(struct cpe_nent *e, uint16_t idx,
			 const struct rte_ether_addr *mac,
			 const struct cpe_nops *o);
void cpe_nent_resume(struct cpe_nent *e, uint16_t k, uint64_t shift);
const char *cpe_nent_state_name(uint8_t state);

#endif
