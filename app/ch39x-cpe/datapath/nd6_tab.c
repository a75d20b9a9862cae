/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The IPv6 neighbours (RFC 4861; ntab.h), the counterpart of arp_tab.c:
 * learnt from solicitations and advertisements that carry a link-layer
 * address option (nd6_in), asked for by nd6 with solicitations to their
 * solicited-node group (holding a few packets per unresolved hop).
 * Entries live --arp-timeout seconds after their last confirmation;
 * halfway the router asks again, unicast. A changed MAC or an entry that
 * goes away bumps the generation: cached flows carry the old MAC.
 * Entries are keyed by (address, interface): link-local addresses are
 * only unique on their link. Static entries (control plane, at run time)
 * are never aged nor changed by what the link says.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "nd6_msg.h"
#include "ntab.h"

struct nkey {
	uint8_t a[16];
	uint16_t port;			/* router interface */
	uint16_t pad;
};

/* n.port is k.port: the state machine reads it there. */
struct neigh6 {
	struct nkey k;
	struct cpe_nent n;
};

struct cpe_nd6 {
	struct cpe_ntab t;		/* first: the ops get it */
};

static struct neigh6 *
ent(const struct cpe_nd6 *d, uint32_t pos)
{
	return &((struct neigh6 *)d->t.ents)[pos];
}

void
cpe_nd6_solicited(const uint8_t *a, uint8_t *grp, struct rte_ether_addr *mac)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					 0, 0, 0, 1, 0xff };

	memcpy(grp, pfx, sizeof(pfx));
	memcpy(grp + 13, a + 13, 3);
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], grp + 12, 4);
}

struct rte_mbuf *
cpe_nd6_msg(struct cpe_env *env, const struct cpe_iface *p, uint16_t idx,
	    uint8_t type, uint8_t flags, const uint8_t *src,
	    const uint8_t *dst, const struct rte_ether_addr *dmac,
	    const uint8_t *target)
{
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint8_t *ic;

	m = rte_pktmbuf_alloc(env->pool);
	if (m == NULL)
		return NULL;
	/* A new mbuf's data starts at its headroom: aligned. */
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m,
		sizeof(*eh) + sizeof(*ip) + CPE_ND_LEN);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	ic = (uint8_t *)(ip + 1);
	rte_ether_addr_copy(dmac, &eh->dst_addr);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(CPE_ND_LEN);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;		/* RFC 4861 7.1: never forwarded */
	memcpy(IP6_SRC(ip), src, 16);
	memcpy(IP6_DST(ip), dst, 16);
	memset(ic, 0, CPE_ND_LEN);
	ic[0] = type;
	ic[4] = flags;
	memcpy(ic + 8, target, 16);
	ic[24] = type == CPE_ND_NS ? CPE_ND_OPT_SLLA : CPE_ND_OPT_TLLA;
	ic[25] = 1;			/* 8 bytes */
	memcpy(ic + 26, &p->mac, RTE_ETHER_ADDR_LEN);
	cpe_put16(ic + 2, rte_ipv6_udptcp_cksum(ip, ic));
	m->port = CPE_NO_IF;
	cpe_set_out(m, idx);
	return m;
}

/* A solicitation for entry pos's address: multicast when mac is NULL. */
static void
neigh_probe(struct cpe_ntab *t, uint32_t pos, const struct rte_ether_addr *mac)
{
	const struct neigh6 *e = ent((struct cpe_nd6 *)t, pos);
	uint16_t idx = e->k.port;
	const struct cpe_iface *p = &t->ifs->ifs[idx];
	struct rte_ether_addr dmac;
	struct rte_mbuf *m;
	uint8_t grp[16];

	if (mac != NULL) {
		m = cpe_nd6_msg(t->env, p, idx, CPE_ND_NS, 0, p->ll6, e->k.a,
				mac, e->k.a);
	} else {
		cpe_nd6_solicited(e->k.a, grp, &dmac);
		m = cpe_nd6_msg(t->env, p, idx, CPE_ND_NS, 0, p->ll6, grp,
				&dmac, e->k.a);
	}
	if (m == NULL) {
		t->st.nomem++;
		return;
	}
	t->st.probes++;
	cpe_ntab_put(t, m);
}

static void
neigh_del(struct cpe_ntab *t, uint32_t pos)
{
	struct neigh6 *e = ent((struct cpe_nd6 *)t, pos);

	cpe_nent_drop_queue(t, &e->n);
	rte_hash_del_key(t->h, &e->k);
	memset(e, 0, sizeof(*e));
}

static const struct cpe_nops nops = {
	.probe = neigh_probe,
	.del = neigh_del,
};

struct cpe_nd6 *
cpe_nd6_create(struct cpe_env *env, const struct cpe_ifaces *ifs,
	       uint32_t timeout_s)
{
	struct cpe_nd6 *d = calloc(1, sizeof(*d));

	if (d == NULL)
		return NULL;
	if (cpe_ntab_init(&d->t, "cpe_nd6", "IPv6 neighbour",
			  sizeof(struct nkey), sizeof(struct neigh6), env, ifs,
			  timeout_s, &nops) != 0) {
		cpe_nd6_free(d);
		return NULL;
	}
	return d;
}

void
cpe_nd6_free(struct cpe_nd6 *d)
{
	if (d == NULL)
		return;
	cpe_ntab_fini(&d->t);
	free(d);
}

struct cpe_ntab *
cpe_nd6_ntab(struct cpe_nd6 *d)
{
	return &d->t;
}

uint32_t
cpe_nd6_count(const struct cpe_nd6 *d)
{
	return d == NULL ? 0 : (uint32_t)rte_hash_count(d->t.h);
}

static void
make_key(struct nkey *k, uint16_t port, const uint8_t *a)
{
	memcpy(k->a, a, 16);
	k->port = port;
	k->pad = 0;
}

/* A new entry for k, or NULL: the table is full. */
static struct neigh6 *
new_entry(struct cpe_nd6 *d, const struct nkey *k, int32_t *posp)
{
	struct neigh6 *e;
	int32_t pos = rte_hash_add_key(d->t.h, k);

	if (pos < 0)
		return NULL;
	e = ent(d, pos);
	memset(e, 0, sizeof(*e));
	e->k = *k;
	e->n.port = k->port;
	e->n.created = d->t.env->now;
	*posp = pos;
	return e;
}

void
cpe_nd6_learn(struct cpe_nd6 *d, uint16_t in, const uint8_t *a,
	      const struct rte_ether_addr *mac, bool create, bool override,
	      bool confirm)
{
	struct neigh6 *e;
	struct nkey k;
	int32_t pos;

	make_key(&k, in, a);
	pos = rte_hash_lookup(d->t.h, &k);
	if (pos < 0 && (!create || new_entry(d, &k, &pos) == NULL))
		return;
	e = ent(d, pos);
	if (e->n.state == N_STATIC)
		return;
	if (e->n.state == N_REACHABLE &&
	    !rte_is_same_ether_addr(&e->n.mac, mac)) {
		if (!override)
			return;	/* RFC 4861 7.2.5: keep the known MAC */
		d->t.st.changed++;
		d->t.env->gen++;
		confirm = true;
	}
	if (e->n.state != N_REACHABLE)
		d->t.st.learned++;
	e->n.mac = *mac;
	e->n.state = N_REACHABLE;
	if (confirm || e->n.confirmed == 0)
		e->n.confirmed = d->t.env->now;
	cpe_nent_flush(&d->t, &e->n);
}

void
cpe_nd6_confirm(struct cpe_nd6 *d, uint16_t in, const uint8_t *a)
{
	struct nkey k;
	int32_t pos;

	make_key(&k, in, a);
	pos = rte_hash_lookup(d->t.h, &k);
	if (pos >= 0 && ent(d, pos)->n.state == N_REACHABLE)
		ent(d, pos)->n.confirmed = d->t.env->now;
}

int
cpe_nd6_resolve(struct cpe_nd6 *d, uint16_t out, const uint8_t *ip,
		struct rte_mbuf *m, struct rte_ether_addr *mac)
{
	struct neigh6 *e;
	struct nkey k;
	int32_t pos;

	make_key(&k, out, ip);
	pos = rte_hash_lookup(d->t.h, &k);
	if (pos >= 0 && (ent(d, pos)->n.state == N_REACHABLE ||
			 ent(d, pos)->n.state == N_STATIC)) {
		*mac = ent(d, pos)->n.mac;
		return 0;
	}
	if (pos < 0) {
		e = new_entry(d, &k, &pos);
		if (e == NULL) {
			d->t.st.queue_drops++;
			rte_pktmbuf_free(m);
			return -ENOSPC;
		}
		e->n.state = N_INCOMPLETE;
	}
	/* Keyed by interface too: an entry found here is out's, incomplete. */
	return cpe_nent_hold(&d->t, &ent(d, pos)->n, (uint32_t)pos, out, m);
}

void
cpe_nd6_age(struct cpe_nd6 *d)
{
	uint32_t pos;

	for (pos = 0; d != NULL && pos < d->t.nb; pos++)
		cpe_nent_age(&d->t, &ent(d, pos)->n, pos);
}

int
cpe_nd6_static_set(struct cpe_nd6 *d, const uint8_t *a, uint16_t idx,
		   const struct rte_ether_addr *mac)
{
	struct nkey k;
	int32_t pos;
	int replaced;

	if (d == NULL)
		return -ENODEV;
	make_key(&k, idx, a);
	pos = rte_hash_lookup(d->t.h, &k);
	replaced = pos >= 0;
	if (pos < 0 && new_entry(d, &k, &pos) == NULL)
		return -ENOSPC;
	cpe_nent_set_static(&d->t, &ent(d, pos)->n, idx, mac);
	return replaced;
}

/* Removes a's entries (on any interface) whatever their state. */
int
cpe_nd6_remove(struct cpe_nd6 *d, const uint8_t *a)
{
	uint32_t pos;
	int rc = -ENOENT;

	for (pos = 0; d != NULL && pos < d->t.nb; pos++)
		if (ent(d, pos)->n.state != N_FREE &&
		    memcmp(ent(d, pos)->k.a, a, 16) == 0) {
			neigh_del(&d->t, pos);
			rc = 0;
		}
	if (rc == 0)
		d->t.env->gen++;
	return rc;
}

void
cpe_nd6_walk(const struct cpe_nd6 *d,
	     void (*fn)(const uint8_t *a, uint16_t idx,
			const struct rte_ether_addr *mac, const char *state,
			void *arg), void *arg)
{
	const struct neigh6 *e;
	uint32_t pos;

	for (pos = 0; d != NULL && pos < d->t.nb; pos++) {
		e = ent(d, pos);
		if (e->n.state != N_FREE)
			fn(e->k.a, e->k.port, &e->n.mac,
			   cpe_nent_state_name(e->n.state), arg);
	}
}

void
cpe_nd6_resume(struct cpe_nd6 *d, uint16_t k, uint64_t shift)
{
	uint32_t pos;

	for (pos = 0; d != NULL && pos < d->t.nb; pos++)
		cpe_nent_resume(&d->t, &ent(d, pos)->n, k, shift);
}
