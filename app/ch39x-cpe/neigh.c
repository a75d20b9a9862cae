/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ARP: answers for the router's addresses, resolves next hops (holding a
 * few packets per unresolved hop, dropping the rest), learns from requests
 * aimed at us and updates known entries from any ARP (RFC 826). Entries
 * live --arp-timeout seconds after their last confirmation; halfway the
 * router asks again, unicast, so that a hop used only by the fast path
 * (which never looks here) stays fresh. A changed MAC or an entry that
 * goes away bumps the generation: cached flows carry the old MAC.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_hash.h>

#include "cpe.h"
#include "neigh_sm.h"

struct neigh {
	uint32_t ip;			/* host order */
	struct cpe_nent n;
};

static struct rte_hash *tbl;
static struct neigh *ents;
static uint32_t nb_ents;

static void
send_request(uint16_t idx, uint32_t ip, const struct rte_ether_addr *to)
{
	struct cpe_port *p = &cpe.ports[idx];
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(cpe.pool);
	if (m == NULL) {
		cpe.st.drop_nomem++;
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
	cpe.st.arp_req_sent++;
	cpe_tx(idx, m);
}

static void
neigh_probe(uint32_t pos, const struct rte_ether_addr *mac)
{
	send_request(ents[pos].n.port, ents[pos].ip, mac);
}

static void neigh_del(uint32_t pos);

static const struct cpe_nops nops = {
	.probe = neigh_probe,
	.del = neigh_del,
	.queued = &cpe.st.neigh_queued,
	.queue_drops = &cpe.st.neigh_queue_drops,
	.expired = &cpe.st.arp_expired,
};

int
cpe_neigh_init(void)
{
	uint16_t i, j;
	int32_t pos;
	int ret;

	ret = cpe_ntab_create("cpe_neigh", "ARP", sizeof(uint32_t),
			      sizeof(*ents), &tbl, (void **)&ents, &nb_ents);
	if (ret != 0)
		return ret;
	for (i = 0; i < cpe.o->nb_neigh; i++) {
		const struct cpe_neigh_cfg *c = &cpe.o->neigh[i];

		for (j = 0; j < cpe.nb_ports; j++)
			if (((c->ip ^ cpe.ports[j].ip) &
			     cpe.ports[j].mask) == 0)
				break;
		if (j == cpe.nb_ports) {
			fprintf(stderr, "ch39x-cpe: --neigh: %u.%u.%u.%u is on "
				"no port's subnet; allowed values are addresses "
				"of the --lan/--wan subnets\n", c->ip >> 24,
				(c->ip >> 16) & 255, (c->ip >> 8) & 255,
				c->ip & 255);
			return -EINVAL;
		}
		pos = rte_hash_add_key(tbl, &c->ip);
		if (pos < 0)
			return pos;
		ents[pos].ip = c->ip;
		ents[pos].n.port = j;
		ents[pos].n.state = N_STATIC;
		ents[pos].n.mac = c->mac;
	}
	return 0;
}

uint32_t
cpe_neigh_count(void)
{
	return (uint32_t)rte_hash_count(tbl);
}

static void
neigh_del(uint32_t pos)
{
	struct neigh *e = &ents[pos];

	cpe_nent_drop_queue(&e->n, &nops);
	rte_hash_del_key(tbl, &e->ip);
	memset(e, 0, sizeof(*e));
}

static void
learn(uint16_t in, uint32_t ip, const struct rte_ether_addr *mac, bool create)
{
	struct neigh *e;
	int32_t pos;

	pos = rte_hash_lookup(tbl, &ip);
	if (pos < 0) {
		if (!create)
			return;
		pos = rte_hash_add_key(tbl, &ip);
		if (pos < 0)
			return;
		e = &ents[pos];
		memset(e, 0, sizeof(*e));
		e->ip = ip;
		e->n.port = in;
		e->n.created = cpe.now;
	}
	e = &ents[pos];
	if (e->n.state == N_STATIC)
		return;
	if (e->n.state == N_REACHABLE &&
	    (!rte_is_same_ether_addr(&e->n.mac, mac) || e->n.port != in)) {
		cpe.st.arp_changed++;
		cpe.gen++;
	}
	if (e->n.state != N_REACHABLE)
		cpe.st.arp_learned++;
	e->n.mac = *mac;
	e->n.port = in;
	e->n.state = N_REACHABLE;
	e->n.confirmed = cpe.now;
	cpe_nent_flush(&e->n);
}

void
cpe_arp_input(uint16_t in, struct rte_mbuf *m)
{
	struct cpe_port *p = &cpe.ports[in];
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;
	uint32_t sip, tip;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*a)) {
		cpe.st.drop_bad++;
		goto drop;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	a = (struct rte_arp_hdr *)(eh + 1);
	if (a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    a->arp_hlen != 6 || a->arp_plen != 4) {
		cpe.st.drop_bad++;
		goto drop;
	}
	sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	/* Only neighbours on this port's subnet; a probe (sip 0) teaches
	 * nothing.
	 */
	if (sip != 0 && ((sip ^ p->ip) & p->mask) == 0 && sip != p->ip &&
	    rte_is_valid_assigned_ether_addr(&a->arp_data.arp_sha))
		learn(in, sip, &a->arp_data.arp_sha, tip == p->ip);
	if (a->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    tip != p->ip) {
		/* Replies (to Linux's own requests too) and requests for
		 * others: the control plane's, if the port has one (tap.c).
		 */
		cpe_punt(in, m);
		return;
	}
	/* A reply in place. */
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	rte_ether_addr_copy(&a->arp_data.arp_sha, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = a->arp_data.arp_sip;
	rte_ether_addr_copy(&p->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = p->ip_be;
	rte_ether_addr_copy(&eh->src_addr, &eh->dst_addr);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	cpe.st.arp_replies_sent++;
	cpe_tx(in, m);
	return;
drop:
	rte_pktmbuf_free(m);
}

int
cpe_neigh_resolve(uint16_t out, uint32_t ip, struct rte_mbuf *m,
		  struct rte_ether_addr *mac)
{
	struct neigh *e;
	int32_t pos;

	if (unlikely(cpe.ports[out].pppoe))
		return cpe_pppoe_resolve(m, mac);
	pos = rte_hash_lookup(tbl, &ip);
	if (pos >= 0 && (ents[pos].n.state == N_REACHABLE ||
			 ents[pos].n.state == N_STATIC) &&
	    ents[pos].n.port == out) {
		*mac = ents[pos].n.mac;
		return 0;
	}
	if (pos < 0) {
		pos = rte_hash_add_key(tbl, &ip);
		if (pos < 0) {
			cpe.st.neigh_queue_drops++;
			rte_pktmbuf_free(m);
			return -ENOSPC;
		}
		e = &ents[pos];
		memset(e, 0, sizeof(*e));
		e->ip = ip;
		e->n.port = out;
		e->n.state = N_INCOMPLETE;
		e->n.created = cpe.now;
	}
	return cpe_nent_hold(&ents[pos].n, (uint32_t)pos, out, m, &nops);
}

/* Called a few times a second: probe, expire, give up on silent hops. */
void
cpe_neigh_age(void)
{
	uint64_t timeout = cpe.o->arp_timeout * cpe.hz;
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++)
		cpe_nent_age(&ents[pos].n, pos, timeout, &nops);
}

/*
 * Run-time changes (ctl.c, on the forwarding lcore): a static entry for ip
 * on router port idx, added or replacing whatever was there; packets that
 * waited for it leave now. 0, 1 when it replaced an entry, <0 when full.
 */
int
cpe_neigh_static_set(uint32_t ip, uint16_t idx,
		     const struct rte_ether_addr *mac)
{
	int32_t pos;
	int replaced;

	pos = rte_hash_lookup(tbl, &ip);
	replaced = pos >= 0;
	if (pos < 0) {
		pos = rte_hash_add_key(tbl, &ip);
		if (pos < 0)
			return pos;
		memset(&ents[pos], 0, sizeof(ents[pos]));
		ents[pos].n.created = cpe.now;
	}
	ents[pos].ip = ip;
	cpe_nent_set_static(&ents[pos].n, idx, mac, &nops);
	return replaced;
}

/* Removes the entry for ip whatever its state: 0, or -ENOENT. */
int
cpe_neigh_remove(uint32_t ip)
{
	int32_t pos = rte_hash_lookup(tbl, &ip);

	if (pos < 0)
		return -ENOENT;
	neigh_del((uint32_t)pos);
	cpe.gen++;
	return 0;
}

/* Calls fn for every entry, in table order; state as text. */
void
cpe_neigh_walk(void (*fn)(uint32_t ip, uint16_t idx,
			  const struct rte_ether_addr *mac, const char *state,
			  void *arg), void *arg)
{
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++)
		if (ents[pos].n.state != N_FREE)
			fn(ents[pos].ip, ents[pos].n.port, &ents[pos].n.mac,
			   cpe_nent_state_name(ents[pos].n.state), arg);
}

/* DPDK port cpe.phys[k] is back (hotplug.c): ages resume. */
void
cpe_neigh_resume(uint16_t k, uint64_t shift)
{
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++)
		cpe_nent_resume(&ents[pos].n, k, shift);
}
