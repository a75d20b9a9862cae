/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FTAB_H
#define CPE_FTAB_H

/*
 * The flow caches' tables, IPv4's (flow4) and IPv6's (flow6): an rte_hash
 * of keys, one entry per hash slot holding the cached rewrite
 * (xlate.h), learning, deletion, aging. The flow node of the family owns
 * its table (control/graph.c makes it, the node looks up in it); the
 * learning node fills it at the end of a packet's slow path, NAT and the
 * firewall delete the entries of the sessions and states they end, the
 * control plane those out of a port that went down.
 *
 * Entries age out after --flow-timeout idle seconds, and the graph's
 * generation (cpe_env.gen) retires them all when a route, a neighbour or
 * the PPPoE session changes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "dp.h"
#include "iface.h"
#include "xlate.h"

struct cpe_fent {
	struct cpe_xlate x;
	uint64_t last;
	uint32_t gen;
	bool used;
};

struct cpe_ftab_stats {
	uint64_t installs, evictions, full, invalidated;
	uint64_t down_invalidated;	/* out of a port gone down */
};

struct cpe_ftab {
	struct rte_hash *h;
	void *ents;
	size_t esz;			/* entry size */
	size_t key_off;			/* of the key in an entry */
	uint32_t key_len;
	uint32_t nb;
	uint32_t cursor;		/* of the aging walk */
	uint64_t timeout;		/* TSC */
	const struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_ftab_stats st;
};

/* The IPv4 key: 5-tuple and ingress interface. */
struct cpe_flow4_key {
	uint32_t sip, dip;		/* network order */
	uint16_t sport, dport;		/* ICMP: echo id, 0 */
	uint8_t proto;
	uint8_t port;			/* ingress interface */
	uint8_t icmp_type;
	uint8_t pad;
};

struct cpe_flow4 {
	struct cpe_fent h;
	struct cpe_flow4_key key;
};

struct cpe_flow6_key {
	uint8_t sip[16], dip[16];
	uint16_t sport, dport;		/* ICMPv6 echo: id, 0 */
	uint8_t proto;
	uint8_t port;			/* ingress interface */
	uint8_t icmp_type;
	uint8_t pad;
};

struct cpe_flow6 {
	struct cpe_fent h;
	struct cpe_flow6_key key;
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

/* --flow-entries of the IPv4 (v6 false) or IPv6 family; NULL: no memory. */
struct cpe_ftab *cpe_ftab_create(bool v6, uint32_t entries,
				 uint32_t timeout_s, const struct cpe_env *env,
				 const struct cpe_ifaces *ifs);
void cpe_ftab_free(struct cpe_ftab *t);
uint32_t cpe_ftab_count(const struct cpe_ftab *t);
void cpe_ftab_del(struct cpe_ftab *t, uint32_t pos);
/* Slot pos deleted if it still holds NAT session sess (state ct). */
void cpe_ftab_del_sess(struct cpe_ftab *t, int32_t pos, uint32_t sess);
void cpe_ftab_del_ct(struct cpe_ftab *t, int32_t pos, uint32_t ct);
/* The slot of the new entry, or <0 (counted) when the table is full. */
int32_t cpe_ftab_learn(struct cpe_ftab *t, const void *key,
		       const struct cpe_xlate *x);
/* A slice for ms milliseconds: idle and stale entries go; how many. */
uint32_t cpe_ftab_age(struct cpe_ftab *t, uint32_t ms);
/* The entries out of DPDK port phys[k] deleted: how many. */
uint32_t cpe_ftab_drop_phys(struct cpe_ftab *t, uint16_t k);

/*
 * A flow key's L4 part from l4 (l4_len bytes there) of protocol proto:
 * TCP (not SYN, FIN or RST: the slow path follows those for NAT and the
 * firewall) and UDP by their ports, an echo (types req and rep of
 * protocol icmp) by its id; -1: not for the fast path. Both families'
 * keys.
 */
static __rte_always_inline int
cpe_flow_l4_key(uint8_t proto, const uint8_t *l4, uint32_t l4_len,
		uint8_t icmp, uint8_t req, uint8_t rep, uint16_t *sport,
		uint16_t *dport, uint8_t *icmp_type)
{
	switch (proto) {
	case IPPROTO_TCP:
		if (l4_len < 20 || (l4[13] & (RTE_TCP_SYN_FLAG |
			RTE_TCP_FIN_FLAG | RTE_TCP_RST_FLAG)))
			return -1;
		/* fall through */
	case IPPROTO_UDP:
		memcpy(sport, l4, 2);
		memcpy(dport, l4 + 2, 2);
		return 0;
	default:
		if (proto != icmp || (l4[0] != req && l4[0] != rep))
			return -1;
		*icmp_type = l4[0];
		memcpy(sport, l4 + 4, 2);
		*dport = 0;
		return 0;
	}
}

/*
 * The IPv4 key of a packet the fast path may take (in m->port's
 * interface), or -1. Only the first segment is read: headers are there
 * whatever the MTU.
 */
static __rte_always_inline int
cpe_flow4_key(const struct rte_mbuf *m, struct cpe_flow4_key *k)
{
	const struct rte_ether_hdr *eh;
	const struct rte_ipv4_hdr *ip;
	const uint8_t *l4;

	if (rte_pktmbuf_data_len(m) < 14 + 20 + 20)
		return -1;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -1;
	ip = (const struct rte_ipv4_hdr *)(eh + 1);
	if (ip->version_ihl != RTE_IPV4_VHL_DEF || ip->time_to_live <= 1 ||
	    (ip->fragment_offset &
	     rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
			      RTE_IPV4_HDR_OFFSET_MASK)))
		return -1;
	l4 = (const uint8_t *)(ip + 1);
	k->sip = ip->src_addr;
	k->dip = ip->dst_addr;
	k->proto = ip->next_proto_id;
	k->port = (uint8_t)cpe_in(m);
	k->pad = 0;
	k->icmp_type = 0;
	return cpe_flow_l4_key(ip->next_proto_id, l4,
			       rte_pktmbuf_data_len(m) - 14u - 20u, IPPROTO_ICMP,
			       RTE_ICMP_TYPE_ECHO_REQUEST,
			       RTE_ICMP_TYPE_ECHO_REPLY, &k->sport, &k->dport,
			       &k->icmp_type);
}

/* The IPv6 key of a packet the fast path may take, or -1. */
int cpe_flow6_key(const struct rte_mbuf *m, struct cpe_flow6_key *k);

#endif /* CPE_FTAB_H */
