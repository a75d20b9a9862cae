/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * What ARP and IPv6 ND do alike with a neighbour entry (ntab.h): one
 * copy, so that the two families keep the same timings.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_jhash.h>

#include "ntab.h"

int
cpe_ntab_init(struct cpe_ntab *t, const char *name, const char *what,
	      uint32_t key_len, size_t esz, struct cpe_env *env,
	      const struct cpe_ifaces *ifs, uint32_t timeout_s,
	      const struct cpe_nops *ops)
{
	struct rte_hash_parameters hp = {
		.name = name,
		.entries = CPE_NEIGH_ENTRIES,
		.key_len = key_len,
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
	};

	t->env = env;
	t->ifs = ifs;
	t->ops = ops;
	t->esz = esz;
	t->timeout = (uint64_t)timeout_s * env->hz;
	t->h = rte_hash_create(&hp);
	if (t->h == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create the %s table: %s\n",
			what, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	t->nb = (uint32_t)rte_hash_max_key_id(t->h) + 1;
	t->ents = calloc(t->nb, esz);
	return t->ents == NULL ? -ENOMEM : 0;
}

void
cpe_ntab_fini(struct cpe_ntab *t)
{
	if (t->nb_out)
		rte_pktmbuf_free_bulk(t->out, t->nb_out);
	t->nb_out = 0;
	rte_hash_free(t->h);
	free(t->ents);
}

void
cpe_ntab_put(struct cpe_ntab *t, struct rte_mbuf *m)
{
	if (unlikely(t->nb_out == CPE_NTAB_OUT)) {
		t->st.out_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	t->out[t->nb_out++] = m;
}

uint16_t
cpe_ntab_take(struct cpe_ntab *t, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k = RTE_MIN(n, t->nb_out);

	memcpy(pkts, t->out, k * sizeof(pkts[0]));
	t->nb_out -= k;
	memmove(t->out, t->out + k, t->nb_out * sizeof(t->out[0]));
	return k;
}

void
cpe_ntab_send(struct cpe_ntab *t, struct rte_graph *g, struct rte_node *node,
	      const struct cpe_env *env, uint16_t edge)
{
	struct rte_mbuf *out[CPE_BURST];
	uint16_t next[CPE_BURST], n, i;

	while ((n = cpe_ntab_take(t, out, CPE_BURST)) != 0) {
		for (i = 0; i < n; i++)
			next[i] = edge;
		cpe_enqueue(g, node, env, (void **)out, next, n);
	}
}

void
cpe_nent_drop_queue(struct cpe_ntab *t, struct cpe_nent *e)
{
	if (e->nq) {
		rte_pktmbuf_free_bulk(e->q, e->nq);
		t->st.queue_drops += e->nq;
		e->nq = 0;
	}
}

/* The MAC is known: what waited for it goes. */
void
cpe_nent_flush(struct cpe_ntab *t, struct cpe_nent *e)
{
	const struct cpe_iface *p = &t->ifs->ifs[e->port];
	struct rte_ether_hdr *eh;
	uint8_t i;

	for (i = 0; i < e->nq; i++) {
		eh = rte_pktmbuf_mtod(e->q[i], struct rte_ether_hdr *);
		rte_ether_addr_copy(&e->mac, &eh->dst_addr);
		rte_ether_addr_copy(&p->mac, &eh->src_addr);
		cpe_set_out(e->q[i], e->port);
		cpe_ntab_put(t, e->q[i]);
	}
	e->nq = 0;
}

/*
 * m waits for entry pos (its MAC unknown, or known on another interface
 * than the route says: then ask again). One request a second at most. 1.
 */
int
cpe_nent_hold(struct cpe_ntab *t, struct cpe_nent *e, uint32_t pos,
	      uint16_t out, struct rte_mbuf *m)
{
	if (e->state != N_INCOMPLETE) {
		e->state = N_INCOMPLETE;
		e->port = out;
		e->created = t->env->now;
	}
	if (e->nq == CPE_NEIGH_QUEUE) {
		t->st.queue_drops++;
		rte_pktmbuf_free(m);
	} else {
		e->q[e->nq++] = m;
		t->st.queued++;
	}
	if (e->sent == 0 || t->env->now - e->sent > t->env->hz) {
		e->sent = t->env->now;
		t->ops->probe(t, pos, NULL);
	}
	return 1;
}

/*
 * One entry's share of the aging walk: an unresolved hop is given up
 * after 3 s; a known one is asked again, unicast, halfway to its expiry
 * (the fast path never looks here, so use alone does not keep it fresh).
 */
void
cpe_nent_age(struct cpe_ntab *t, struct cpe_nent *e, uint32_t pos)
{
	const struct cpe_env *env = t->env;

	/*
	 * Its port is down (control/hotplug.c): a known hop's clock stops,
	 * and no probe goes out (it could not); cpe_nent_resume() at the
	 * return.
	 */
	if (e->state == N_REACHABLE &&
	    unlikely(t->ifs->phys[t->ifs->ifs[e->port].phys].down))
		return;
	if (e->state == N_INCOMPLETE) {
		if (env->now - e->created > 3 * env->hz) {
			t->ops->del(t, pos);
		} else if (env->now - e->sent > env->hz) {
			e->sent = env->now;
			t->ops->probe(t, pos, NULL);
		}
	} else if (e->state == N_REACHABLE) {
		if (env->now - e->confirmed > t->timeout) {
			t->st.expired++;
			t->ops->del(t, pos);
			/* Cached flows carry its MAC. */
			t->env->gen++;
		} else if (env->now - e->confirmed > t->timeout / 2 &&
			   env->now - e->sent > env->hz) {
			e->sent = env->now;
			t->ops->probe(t, pos, &e->mac);
		}
	}
}

/*
 * Run-time changes (the control plane): e becomes static, mac on router
 * interface idx; packets that waited for it leave now.
 */
void
cpe_nent_set_static(struct cpe_ntab *t, struct cpe_nent *e, uint16_t idx,
		    const struct rte_ether_addr *mac)
{
	e->mac = *mac;
	e->state = N_STATIC;
	/* Queued for the port the route named then: not ours now. */
	if (e->port != idx)
		cpe_nent_drop_queue(t, e);
	e->port = idx;
	cpe_nent_flush(t, e);
	/* Cached flows may carry the MAC this replaces. */
	t->env->gen++;
}

/*
 * DPDK port k is back after shift TSC cycles down: a known hop on it
 * keeps the lifetime it had at the removal (a probe halfway confirms it,
 * as for any entry), rather than expiring for the time it could not
 * answer.
 */
void
cpe_nent_resume(struct cpe_ntab *t, struct cpe_nent *e, uint16_t k,
		uint64_t shift)
{
	if (e->state != N_REACHABLE || t->ifs->ifs[e->port].phys != k)
		return;
	e->confirmed = RTE_MIN(e->confirmed + shift, t->env->now);
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
