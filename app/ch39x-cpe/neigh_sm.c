/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * What ARP and IPv6 ND do alike with a neighbour entry (neigh_sm.h):
 * one copy, so that the two families keep the same timings.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>
#include <rte_jhash.h>

#include "neigh_sm.h"

/* A table of CPE_NEIGH_ENTRIES keys and its entries, one per slot. */
int
cpe_ntab_create(const char *name, const char *what, uint32_t key_len,
		size_t esz, struct rte_hash **tbl, void **ents, uint32_t *nb)
{
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = CPE_NEIGH_ENTRIES,
		.key_len = key_len,
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
	};

	*tbl = rte_hash_create(&hp);
	if (*tbl == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create the %s table: %s\n",
			what, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	*nb = (uint32_t)rte_hash_max_key_id(*tbl) + 1;
	*ents = calloc(*nb, esz);
	return *ents == NULL ? -ENOMEM : 0;
}

void
cpe_nent_drop_queue(struct cpe_nent *e, const struct cpe_nops *o)
{
	if (e->nq) {
		rte_pktmbuf_free_bulk(e->q, e->nq);
		*o->queue_drops += e->nq;
		e->nq = 0;
	}
}

/* The MAC is known: send what waited for it. */
void
cpe_nent_flush(struct cpe_nent *e)
{
	struct cpe_port *p = &cpe.ports[e->port];
	struct rte_ether_hdr *eh;
	uint8_t i;

	for (i = 0; i < e->nq; i++) {
		eh = rte_pktmbuf_mtod(e->q[i], struct rte_ether_hdr *);
		rte_ether_addr_copy(&e->mac, &eh->dst_addr);
		rte_ether_addr_copy(&p->mac, &eh->src_addr);
		cpe_tx(e->port, e->q[i]);
	}
	e->nq = 0;
}

/*
 * m waits for entry pos (its MAC unknown, or known on another port than
 * the route says: then ask again). One request a second at most. 1.
 */
int
cpe_nent_hold(struct cpe_nent *e, uint32_t pos, uint16_t out,
	      struct rte_mbuf *m, const struct cpe_nops *o)
{
	if (e->state != N_INCOMPLETE) {
		e->state = N_INCOMPLETE;
		e->port = out;
		e->created = cpe.now;
	}
	if (e->nq == CPE_NEIGH_QUEUE) {
		(*o->queue_drops)++;
		rte_pktmbuf_free(m);
	} else {
		e->q[e->nq++] = m;
		(*o->queued)++;
	}
	if (e->sent == 0 || cpe.now - e->sent > cpe.hz) {
		e->sent = cpe.now;
		o->probe(pos, NULL);
	}
	return 1;
}

/*
 * One entry's share of the aging walk: an unresolved hop is given up
 * after 3 s; a known one is asked again, unicast, halfway to its expiry
 * (the fast path never looks here, so use alone does not keep it fresh).
 */
void
cpe_nent_age(struct cpe_nent *e, uint32_t pos, uint64_t timeout,
	     const struct cpe_nops *o)
{
	/*
	 * Its port is down (hotplug.c): a known hop's clock stops, and no
	 * probe goes out (it could not); cpe_nent_resume() at the return.
	 */
	if (e->state == N_REACHABLE &&
	    unlikely(cpe.phys[cpe.ports[e->port].phys].down))
		return;
	switch (e->state) {
	case N_INCOMPLETE:
		if (cpe.now - e->created > 3 * cpe.hz) {
			o->del(pos);
		} else if (cpe.now - e->sent > cpe.hz) {
			e->sent = cpe.now;
			o->probe(pos, NULL);
		}
		break;
	case N_REACHABLE:
		if (cpe.now - e->confirmed > timeout) {
			(*o->expired)++;
			o->del(pos);
			/* Cached flows carry its MAC. */
			cpe.gen++;
		} else if (cpe.now - e->confirmed > timeout / 2 &&
			   cpe.now - e->sent > cpe.hz) {
			e->sent = cpe.now;
			o->probe(pos, &e->mac);
		}
		break;
	default:
		break;
	}
}

/*
 * Run-time changes (ctl.c): e becomes static, mac on router port idx;
 * packets that waited for it leave now.
 */
void
cpe_nent_set_static(struct cpe_nent *e, uint16_t idx,
		    const struct rte_ether_addr *mac, const struct cpe_nops *o)
{
	e->mac = *mac;
	e->state = N_STATIC;
	/* Queued for the port the route named then: not ours now. */
	if (e->port != idx)
		cpe_nent_drop_queue(e, o);
	e->port = idx;
	cpe_nent_flush(e);
	/* Cached flows may carry the MAC this replaces. */
	cpe.gen++;
}

/*
 * DPDK port k is back after shift TSC cycles down: a known hop on it
 * keeps the lifetime it had at the removal (a probe halfway confirms it,
 * as for any entry), rather than expiring for the time it could not
 * answer.
 */
void
cpe_nent_resume(struct cpe_nent *e, uint16_t k, uint64_t shift)
{
	if (e->state != N_REACHABLE || cpe.ports[e->port].phys != k)
		return;
	e->confirmed = RTE_MIN(e->confirmed + shift, cpe.now);
	e->sent = 0;
}

/* The state as the control socket shows it. */
const char *
cpe_nent_state_name(uint8_t state)
{
	static const char *const names[] = {
		[N_FREE] = "free", [N_INCOMPLETE] = "incomplete",
		[N_REACHABLE] = "reachable", [N_STATIC] = "static",
	};

	return names[state];
}
