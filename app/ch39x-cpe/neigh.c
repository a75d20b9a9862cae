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
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_jhash.h>

#include "cpe.h"

enum { N_FREE, N_INCOMPLETE, N_REACHABLE, N_STATIC };

struct neigh {
	uint32_t ip;			/* host order */
	uint16_t port;			/* router port index */
	uint8_t state;
	uint8_t nq;
	struct rte_ether_addr mac;
	uint64_t confirmed;		/* TSC of the last ARP from it */
	uint64_t created;
	uint64_t sent;			/* TSC of our last request */
	struct rte_mbuf *q[CPE_NEIGH_QUEUE];
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
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
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

int
cpe_neigh_init(void)
{
	struct rte_hash_parameters hp = {
		.name = "cpe_neigh",
		.entries = CPE_NEIGH_ENTRIES,
		.key_len = sizeof(uint32_t),
		.hash_func = rte_jhash,
		.socket_id = SOCKET_ID_ANY,
	};
	uint16_t i, j;
	int32_t pos;

	tbl = rte_hash_create(&hp);
	if (tbl == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create the ARP table: %s\n",
			rte_strerror(rte_errno));
		return -ENOMEM;
	}
	nb_ents = (uint32_t)rte_hash_max_key_id(tbl) + 1;
	ents = calloc(nb_ents, sizeof(*ents));
	if (ents == NULL)
		return -ENOMEM;
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
		ents[pos].port = j;
		ents[pos].state = N_STATIC;
		ents[pos].mac = c->mac;
	}
	return 0;
}

uint32_t
cpe_neigh_count(void)
{
	return (uint32_t)rte_hash_count(tbl);
}

static void
neigh_del(int32_t pos)
{
	struct neigh *e = &ents[pos];

	if (e->nq) {
		rte_pktmbuf_free_bulk(e->q, e->nq);
		cpe.st.neigh_queue_drops += e->nq;
	}
	rte_hash_del_key(tbl, &e->ip);
	memset(e, 0, sizeof(*e));
}

/* The MAC is known: send what waited for it. */
static void
neigh_flush(struct neigh *e)
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
		e->port = in;
		e->created = cpe.now;
	}
	e = &ents[pos];
	if (e->state == N_STATIC)
		return;
	if (e->state == N_REACHABLE &&
	    (!rte_is_same_ether_addr(&e->mac, mac) || e->port != in)) {
		cpe.st.arp_changed++;
		cpe.gen++;
	}
	if (e->state != N_REACHABLE)
		cpe.st.arp_learned++;
	e->mac = *mac;
	e->port = in;
	e->state = N_REACHABLE;
	e->confirmed = cpe.now;
	neigh_flush(e);
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

	pos = rte_hash_lookup(tbl, &ip);
	if (pos >= 0 && (ents[pos].state == N_REACHABLE ||
			 ents[pos].state == N_STATIC) &&
	    ents[pos].port == out) {
		*mac = ents[pos].mac;
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
		e->port = out;
		e->state = N_INCOMPLETE;
		e->created = cpe.now;
	}
	e = &ents[pos];
	if (e->state != N_INCOMPLETE) {
		/* Known on another port than the route says: ask again. */
		e->state = N_INCOMPLETE;
		e->port = out;
		e->created = cpe.now;
	}
	if (e->nq == CPE_NEIGH_QUEUE) {
		cpe.st.neigh_queue_drops++;
		rte_pktmbuf_free(m);
	} else {
		e->q[e->nq++] = m;
		cpe.st.neigh_queued++;
	}
	if (e->sent == 0 || cpe.now - e->sent > cpe.hz) {
		e->sent = cpe.now;
		send_request(out, ip, NULL);
	}
	return 1;
}

/* Called a few times a second: probe, expire, give up on silent hops. */
void
cpe_neigh_age(void)
{
	uint64_t timeout = cpe.o->arp_timeout * cpe.hz;
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++) {
		struct neigh *e = &ents[pos];

		switch (e->state) {
		case N_INCOMPLETE:
			if (cpe.now - e->created > 3 * cpe.hz) {
				neigh_del((int32_t)pos);
			} else if (cpe.now - e->sent > cpe.hz) {
				e->sent = cpe.now;
				send_request(e->port, e->ip, NULL);
			}
			break;
		case N_REACHABLE:
			if (cpe.now - e->confirmed > timeout) {
				cpe.st.arp_expired++;
				neigh_del((int32_t)pos);
				cpe.gen++;
			} else if (cpe.now - e->confirmed > timeout / 2 &&
				   cpe.now - e->sent > cpe.hz) {
				e->sent = cpe.now;
				send_request(e->port, e->ip, &e->mac);
			}
			break;
		default:
			break;
		}
	}
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
	struct neigh *e;
	int32_t pos;
	int replaced;

	pos = rte_hash_lookup(tbl, &ip);
	replaced = pos >= 0;
	if (pos < 0) {
		pos = rte_hash_add_key(tbl, &ip);
		if (pos < 0)
			return pos;
		memset(&ents[pos], 0, sizeof(ents[pos]));
		ents[pos].created = cpe.now;
	}
	e = &ents[pos];
	e->ip = ip;
	e->mac = *mac;
	e->state = N_STATIC;
	if (e->port != idx && e->nq) {
		/* Queued for the port the route named then: not ours now. */
		rte_pktmbuf_free_bulk(e->q, e->nq);
		cpe.st.neigh_queue_drops += e->nq;
		e->nq = 0;
	}
	e->port = idx;
	neigh_flush(e);
	/* Cached flows may carry the MAC this replaces. */
	cpe.gen++;
	return replaced;
}

/* Removes the entry for ip whatever its state: 0, or -ENOENT. */
int
cpe_neigh_remove(uint32_t ip)
{
	int32_t pos = rte_hash_lookup(tbl, &ip);

	if (pos < 0)
		return -ENOENT;
	neigh_del(pos);
	cpe.gen++;
	return 0;
}

/* Calls fn for every entry, in table order; state as text. */
void
cpe_neigh_walk(void (*fn)(uint32_t ip, uint16_t idx,
			  const struct rte_ether_addr *mac, const char *state,
			  void *arg), void *arg)
{
	static const char *const names[] = {
		[N_FREE] = "free", [N_INCOMPLETE] = "incomplete",
		[N_REACHABLE] = "reachable", [N_STATIC] = "static",
	};
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++)
		if (ents[pos].state != N_FREE)
			fn(ents[pos].ip, ents[pos].port, &ents[pos].mac,
			   names[ents[pos].state], arg);
}
