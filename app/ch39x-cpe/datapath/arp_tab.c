/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The IPv4 neighbours (ntab.h): learnt from ARP (RFC 826) by arp_in,
 * asked for by neigh4 (a broadcast request, holding a few packets per
 * unresolved hop), static ones from --neigh and the control plane.
 * Entries live --arp-timeout seconds after their last confirmation;
 * halfway the router asks again, unicast, so that a hop used only by the
 * fast path (which never looks here) stays fresh. A changed MAC or an
 * entry that goes away bumps the generation: cached flows carry the old
 * MAC.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>

#include "ntab.h"

struct neigh {
	uint32_t ip;			/* host order */
	struct cpe_nent n;
};

struct cpe_arp {
	struct cpe_ntab t;		/* first: the ops get it */
};

static struct neigh *
ent(const struct cpe_arp *a, uint32_t pos)
{
	return &((struct neigh *)a->t.ents)[pos];
}

/* A request for ip out of interface idx: broadcast, or to mac. */
static void
send_request(struct cpe_ntab *t, uint16_t idx, uint32_t ip,
	     const struct rte_ether_addr *to)
{
	const struct cpe_iface *p = &t->ifs->ifs[idx];
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(t->env->pool);
	if (m == NULL) {
		t->st.nomem++;
		return;
	}
	/* A new mbuf's data starts at its headroom: aligned. */
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m,
		sizeof(*eh) + sizeof(*a));
	a = (struct rte_arp_hdr *)(eh + 1);
	if (to != NULL)
		rte_ether_addr_copy(to, &eh->dst_addr);
	else
		memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	a->arp_hardware = rte_cpu_to_be_16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REQUEST);
	rte_ether_addr_copy(&p->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = p->ip_be;
	memset(&a->arp_data.arp_tha, 0, sizeof(a->arp_data.arp_tha));
	a->arp_data.arp_tip = rte_cpu_to_be_32(ip);
	t->st.probes++;
	m->port = CPE_NO_IF;
	cpe_set_out(m, idx);
	cpe_ntab_put(t, m);
}

static void
neigh_probe(struct cpe_ntab *t, uint32_t pos,
	    const struct rte_ether_addr *mac)
{
	struct neigh *e = ent((struct cpe_arp *)t, pos);

	send_request(t, e->n.port, e->ip, mac);
}

static void
neigh_del(struct cpe_ntab *t, uint32_t pos)
{
	struct neigh *e = ent((struct cpe_arp *)t, pos);

	cpe_nent_drop_queue(t, &e->n);
	rte_hash_del_key(t->h, &e->ip);
	memset(e, 0, sizeof(*e));
}

static const struct cpe_nops nops = {
	.probe = neigh_probe,
	.del = neigh_del,
};

/* --neigh: static entries, each on a subnet of an interface. */
static int
add_static(struct cpe_arp *a, const struct cpe_opts *o)
{
	const struct cpe_ifaces *ifs = a->t.ifs;
	const struct cpe_neigh_cfg *c;
	uint16_t i, j;
	int32_t pos;

	for (i = 0; i < o->nb_neigh; i++) {
		c = &o->neigh[i];
		for (j = 0; j < ifs->nb; j++)
			if (((c->ip ^ ifs->ifs[j].ip) & ifs->ifs[j].mask) == 0)
				break;
		if (j == ifs->nb) {
			fprintf(stderr, "ch39x-cpe: --neigh: %u.%u.%u.%u is on "
				"no port's subnet; allowed values are addresses "
				"of the --lan/--wan subnets\n", c->ip >> 24,
				(c->ip >> 16) & 255, (c->ip >> 8) & 255,
				c->ip & 255);
			return -EINVAL;
		}
		pos = rte_hash_add_key(a->t.h, &c->ip);
		if (pos < 0)
			return pos;
		ent(a, pos)->ip = c->ip;
		ent(a, pos)->n.port = j;
		ent(a, pos)->n.state = N_STATIC;
		ent(a, pos)->n.mac = c->mac;
	}
	return 0;
}

struct cpe_arp *
cpe_arp_create(const struct cpe_opts *o, struct cpe_env *env,
	       const struct cpe_ifaces *ifs)
{
	struct cpe_arp *a = calloc(1, sizeof(*a));

	if (a == NULL)
		return NULL;
	if (cpe_ntab_init(&a->t, "cpe_neigh", "ARP", sizeof(uint32_t),
			  sizeof(struct neigh), env, ifs, o->arp_timeout,
			  &nops) != 0 || add_static(a, o) != 0) {
		cpe_arp_free(a);
		return NULL;
	}
	return a;
}

void
cpe_arp_free(struct cpe_arp *a)
{
	if (a == NULL)
		return;
	cpe_ntab_fini(&a->t);
	free(a);
}

struct cpe_ntab *
cpe_arp_ntab(struct cpe_arp *a)
{
	return &a->t;
}

uint32_t
cpe_arp_count(const struct cpe_arp *a)
{
	return (uint32_t)rte_hash_count(a->t.h);
}

/* A new entry for ip on interface port, or NULL: the table is full. */
static struct neigh *
new_entry(struct cpe_arp *a, uint32_t ip, uint16_t port, int32_t *posp)
{
	struct neigh *e;
	int32_t pos = rte_hash_add_key(a->t.h, &ip);

	if (pos < 0)
		return NULL;
	e = ent(a, pos);
	memset(e, 0, sizeof(*e));
	e->ip = ip;
	e->n.port = port;
	e->n.created = a->t.env->now;
	*posp = pos;
	return e;
}

void
cpe_arp_learn(struct cpe_arp *a, uint16_t in, uint32_t ip,
	      const struct rte_ether_addr *mac, bool create)
{
	struct neigh *e;
	int32_t pos;

	pos = rte_hash_lookup(a->t.h, &ip);
	if (pos < 0 && (!create || new_entry(a, ip, in, &pos) == NULL))
		return;
	e = ent(a, pos);
	if (e->n.state == N_STATIC)
		return;
	if (e->n.state == N_REACHABLE &&
	    (!rte_is_same_ether_addr(&e->n.mac, mac) || e->n.port != in)) {
		a->t.st.changed++;
		a->t.env->gen++;
	}
	if (e->n.state != N_REACHABLE)
		a->t.st.learned++;
	e->n.mac = *mac;
	e->n.port = in;
	e->n.state = N_REACHABLE;
	e->n.confirmed = a->t.env->now;
	cpe_nent_flush(&a->t, &e->n);
}

int
cpe_arp_resolve(struct cpe_arp *a, uint16_t out, uint32_t ip,
		struct rte_mbuf *m, struct rte_ether_addr *mac)
{
	struct neigh *e;
	int32_t pos;

	pos = rte_hash_lookup(a->t.h, &ip);
	if (pos >= 0) {
		e = ent(a, pos);
		if ((e->n.state == N_REACHABLE || e->n.state == N_STATIC) &&
		    e->n.port == out) {
			*mac = e->n.mac;
			return 0;
		}
	} else {
		e = new_entry(a, ip, out, &pos);
		if (e == NULL) {
			a->t.st.queue_drops++;
			rte_pktmbuf_free(m);
			return -ENOSPC;
		}
		e->n.state = N_INCOMPLETE;
	}
	return cpe_nent_hold(&a->t, &e->n, (uint32_t)pos, out, m);
}

/* Called a few times a second: probe, expire, give up on silent hops. */
void
cpe_arp_age(struct cpe_arp *a)
{
	uint32_t pos;

	for (pos = 0; pos < a->t.nb; pos++)
		cpe_nent_age(&a->t, &ent(a, pos)->n, pos);
}

/*
 * A static entry for ip on router interface idx, added or replacing
 * whatever was there; packets that waited for it leave now. 0, 1 when it
 * replaced an entry, <0 when full.
 */
int
cpe_arp_static_set(struct cpe_arp *a, uint32_t ip, uint16_t idx,
		   const struct rte_ether_addr *mac)
{
	int32_t pos;
	int replaced;

	pos = rte_hash_lookup(a->t.h, &ip);
	replaced = pos >= 0;
	if (pos < 0 && new_entry(a, ip, idx, &pos) == NULL)
		return -ENOSPC;
	ent(a, pos)->ip = ip;
	cpe_nent_set_static(&a->t, &ent(a, pos)->n, idx, mac);
	return replaced;
}

/* Removes the entry for ip whatever its state: 0, or -ENOENT. */
int
cpe_arp_remove(struct cpe_arp *a, uint32_t ip)
{
	int32_t pos = rte_hash_lookup(a->t.h, &ip);

	if (pos < 0)
		return -ENOENT;
	neigh_del(&a->t, (uint32_t)pos);
	a->t.env->gen++;
	return 0;
}

void
cpe_arp_walk(const struct cpe_arp *a,
	     void (*fn)(uint32_t ip, uint16_t idx,
			const struct rte_ether_addr *mac, const char *state,
			void *arg), void *arg)
{
	const struct neigh *e;
	uint32_t pos;

	for (pos = 0; pos < a->t.nb; pos++) {
		e = ent(a, pos);
		if (e->n.state != N_FREE)
			fn(e->ip, e->n.port, &e->n.mac,
			   cpe_nent_state_name(e->n.state), arg);
	}
}

void
cpe_arp_resume(struct cpe_arp *a, uint16_t k, uint64_t shift)
{
	uint32_t pos;

	for (pos = 0; pos < a->t.nb; pos++)
		cpe_nent_resume(&a->t, &ent(a, pos)->n, k, shift);
}
