/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_NTAB_H
#define CPE_NTAB_H

/*
 * The neighbour tables, ARP's (arp_tab.c) and IPv6 ND's (nd6_tab.c), and
 * the state machine they share (ntab.c): incomplete -> reachable ->
 * probed halfway to expiry -> gone, with a few packets held per
 * unresolved hop and a hop given up after 3 s. Each family keeps its own
 * key and packets; it embeds struct cpe_nent in its entries and names
 * its probe and delete in cpe_nops.
 *
 * The resolving nodes (neigh4, nd6) own a table; the input nodes
 * (arp_in, nd6_in) learn into it, the control plane ages it and sets
 * static entries. What a table lets go of, packets that waited for a
 * neighbour now known and the probes it asks, with their output
 * interface in m->hash.usr, waits in its out list for whoever called it
 * to send (cpe_ntab_take()): the nodes hand them on, the control plane
 * injects them (inject.c).
 */

#include <stdint.h>

#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_mbuf.h>

#include "dp.h"
#include "iface.h"

enum { N_FREE, N_INCOMPLETE, N_REACHABLE, N_STATIC };

struct cpe_nent {
	uint16_t port;			/* router interface */
	uint8_t state;
	uint8_t nq;
	struct rte_ether_addr mac;
	uint64_t confirmed;		/* TSC of the last word from it */
	uint64_t created;
	uint64_t sent;			/* TSC of our last request */
	struct rte_mbuf *q[CPE_NEIGH_QUEUE];
};

struct cpe_ntab;

struct cpe_nops {
	/* Ask for entry pos: broadcast/multicast when mac is NULL. */
	void (*probe)(struct cpe_ntab *t, uint32_t pos,
		      const struct rte_ether_addr *mac);
	/* Drop entry pos: its queue, its key, its slot. */
	void (*del)(struct cpe_ntab *t, uint32_t pos);
};

struct cpe_nstats {
	uint64_t queued, queue_drops, expired, learned, changed;
	uint64_t probes;		/* requests (NS) sent */
	uint64_t out_drops;		/* let go of with the out list full */
	uint64_t nomem;			/* no mbuf for a probe or an answer */
};

#define CPE_NTAB_OUT		(2 * CPE_NEIGH_ENTRIES)

struct cpe_ntab {
	struct rte_hash *h;
	void *ents;
	size_t esz;
	uint32_t nb;
	uint64_t timeout;		/* --arp-timeout, TSC */
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_nops *ops;
	struct cpe_nstats st;
	uint16_t nb_out;
	struct rte_mbuf *out[CPE_NTAB_OUT];
};

/* A table of CPE_NEIGH_ENTRIES keys and entries of esz bytes. */
int cpe_ntab_init(struct cpe_ntab *t, const char *name, const char *what,
		  uint32_t key_len, size_t esz, struct cpe_env *env,
		  const struct cpe_ifaces *ifs, uint32_t timeout_s,
		  const struct cpe_nops *ops);
void cpe_ntab_fini(struct cpe_ntab *t);
/* m (its output interface in hash.usr) to the out list, or freed. */
void cpe_ntab_put(struct cpe_ntab *t, struct rte_mbuf *m);
/* The out list into pkts (at most n): how many. */
uint16_t cpe_ntab_take(struct cpe_ntab *t, struct rte_mbuf **pkts,
		       uint16_t n);
/* The out list (requests asked, packets an answer let go of) on node's
 * edge (the nodes that resolve or learn neighbours: their output). */
void cpe_ntab_send(struct cpe_ntab *t, struct rte_graph *g,
		   struct rte_node *node, const struct cpe_env *env,
		   uint16_t edge);
void cpe_nent_drop_queue(struct cpe_ntab *t, struct cpe_nent *e);
void cpe_nent_flush(struct cpe_ntab *t, struct cpe_nent *e);
int cpe_nent_hold(struct cpe_ntab *t, struct cpe_nent *e, uint32_t pos,
		  uint16_t out, struct rte_mbuf *m);
void cpe_nent_age(struct cpe_ntab *t, struct cpe_nent *e, uint32_t pos);
void cpe_nent_set_static(struct cpe_ntab *t, struct cpe_nent *e,
			 uint16_t idx, const struct rte_ether_addr *mac);
void cpe_nent_resume(struct cpe_ntab *t, struct cpe_nent *e, uint16_t k,
		     uint64_t shift);
const char *cpe_nent_state_name(uint8_t state);

/* --- arp_tab.c: IPv4 neighbours ---------------------------------------- */

struct cpe_arp;

/* The table and o's --neigh entries: NULL (reported) when it cannot. */
struct cpe_arp *cpe_arp_create(const struct cpe_opts *o,
			       struct cpe_env *env,
			       const struct cpe_ifaces *ifs);
void cpe_arp_free(struct cpe_arp *a);
struct cpe_ntab *cpe_arp_ntab(struct cpe_arp *a);
uint32_t cpe_arp_count(const struct cpe_arp *a);
/* What an ARP packet from interface in says of ip (create: one aimed at
 * us may make an entry). */
void cpe_arp_learn(struct cpe_arp *a, uint16_t in, uint32_t ip,
		   const struct rte_ether_addr *mac, bool create);
/* 0: MAC known (in *mac); 1: m held, resolving; <0: m dropped. */
int cpe_arp_resolve(struct cpe_arp *a, uint16_t out, uint32_t ip,
		    struct rte_mbuf *m, struct rte_ether_addr *mac);
void cpe_arp_age(struct cpe_arp *a);
int cpe_arp_static_set(struct cpe_arp *a, uint32_t ip, uint16_t idx,
		       const struct rte_ether_addr *mac);
int cpe_arp_remove(struct cpe_arp *a, uint32_t ip);
void cpe_arp_walk(const struct cpe_arp *a,
		  void (*fn)(uint32_t ip, uint16_t idx,
			     const struct rte_ether_addr *mac,
			     const char *state, void *arg), void *arg);
void cpe_arp_resume(struct cpe_arp *a, uint16_t k, uint64_t shift);

/* --- nd6_tab.c: IPv6 neighbours (keyed by address and interface) ----- */

struct cpe_nd6;

struct cpe_nd6 *cpe_nd6_create(struct cpe_env *env,
			       const struct cpe_ifaces *ifs,
			       uint32_t timeout_s);
void cpe_nd6_free(struct cpe_nd6 *d);
struct cpe_ntab *cpe_nd6_ntab(struct cpe_nd6 *d);
uint32_t cpe_nd6_count(const struct cpe_nd6 *d);
/* What a neighbour said about itself (an NS with its link-layer
 * address) or an advertisement (override: it may replace a known MAC). */
void cpe_nd6_learn(struct cpe_nd6 *d, uint16_t in, const uint8_t *a,
		   const struct rte_ether_addr *mac, bool create,
		   bool override, bool confirm);
/* A solicited NA without a link-layer option: the known MAC still works. */
void cpe_nd6_confirm(struct cpe_nd6 *d, uint16_t in, const uint8_t *a);
int cpe_nd6_resolve(struct cpe_nd6 *d, uint16_t out, const uint8_t *ip,
		    struct rte_mbuf *m, struct rte_ether_addr *mac);
void cpe_nd6_age(struct cpe_nd6 *d);
int cpe_nd6_static_set(struct cpe_nd6 *d, const uint8_t *a, uint16_t idx,
		       const struct rte_ether_addr *mac);
int cpe_nd6_remove(struct cpe_nd6 *d, const uint8_t *a);
void cpe_nd6_walk(const struct cpe_nd6 *d,
		  void (*fn)(const uint8_t *a, uint16_t idx,
			     const struct rte_ether_addr *mac,
			     const char *state, void *arg), void *arg);
void cpe_nd6_resume(struct cpe_nd6 *d, uint16_t k, uint64_t shift);

/*
 * nd6_tab.c: an NS or NA of interface idx (type 135, 136): the IPv6
 * header, the message and one link-layer option with the interface's MAC;
 * flags: NA flags. Its output interface set; NULL: no mbuf.
 */
struct rte_mbuf *cpe_nd6_msg(struct cpe_env *env,
			     const struct cpe_iface *p, uint16_t idx,
			     uint8_t type, uint8_t flags, const uint8_t *src,
			     const uint8_t *dst,
			     const struct rte_ether_addr *dmac,
			     const uint8_t *target);
/* The solicited-node group of a (ff02::1:ffXX:XXXX) and its MAC. */
void cpe_nd6_solicited(const uint8_t *a, uint8_t *grp,
		       struct rte_ether_addr *mac);

#endif /* CPE_NTAB_H */
