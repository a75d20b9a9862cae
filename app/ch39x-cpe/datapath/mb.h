/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_MB_H
#define CPE_MB_H

/*
 * What the nodes read of the loop (struct cpe_env) and what a packet
 * carries from node to node (struct cpe_mb, its mbuf's private area):
 * the ground every node and table stands on (dp.h, trace.h).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "cpe_compat.h"
#include "cpe_conf.h"

struct cpe_trace;

/* What every node reads of the loop: its clock and the flows' epoch. */
struct cpe_env {
	uint64_t now;			/* TSC, read once per loop */
	uint64_t hz;
	/*
	 * Bumped when a route, a neighbour's MAC or the PPPoE session
	 * changes: cached flows learnt before carry a stale next hop.
	 */
	uint32_t gen;
	uint32_t poll_mask;		/* DPDK ports (phys bits) this walk polls */
	uint32_t walk_rx;		/* packets this walk received */
	/*
	 * TSC cycles in the PMDs' bursts: timed on one walk in
	 * CPE_WALK_SAMPLE (sample set), counted that many times (an
	 * estimate: a TSC read costs about 90 cycles on a virtual machine,
	 * and most polls are empty).
	 */
	uint64_t pmd_cycles;
	bool sample;			/* this walk times the bursts */
	uint64_t trace_flag;		/* ol_flags bit of a traced packet */
	struct cpe_trace *trace;	/* non-NULL while packets are traced */
	struct rte_mempool *pool;
	uint16_t wan;			/* the WAN interface, CPE_NO_IF: none */
};

#define CPE_NO_IF		UINT16_MAX

/* One walk in this many times the PMDs' bursts and the source nodes. */
#define CPE_WALK_SAMPLE		16

/* A node's verdict on a packet it kept, freed, held or sent: no edge. */
#define CPE_CONSUMED		UINT16_MAX

/*
 * The metadata of a packet on the slow path, in its mbuf's private area
 * (rte_mbuf_to_priv(): the pool is made with room for it). The fast path
 * never touches it: there the input interface is m->port (port_rx sets
 * it), the output interface m->hash.usr (whoever picks the way out).
 * The first node of the slow path sets flags, ct and sess (eth_in, or
 * flow4/flow6 on a miss, which also keep the flow's key for learning).
 */
struct cpe_mb {
	uint16_t flags;			/* CPE_MB_* */
	uint8_t out;			/* interface it leaves by */
	uint8_t why;			/* ICMP error to send (icmp_error) */
	uint16_t tot;			/* IPv4 total, IPv6 payload length */
	uint16_t l4_len;		/* L4 bytes in the first segment */
	uint16_t mtu;			/* the MTU an ICMP error names */
	uint16_t trace_id;		/* its number, while traced */
	uint32_t nh;			/* IPv4 next hop, host order */
	uint32_t ct;			/* firewall state, UINT32_MAX: none */
	uint32_t sess;			/* NAT session, UINT32_MAX: none */
	uint32_t sip, dip;		/* NAT's new addresses, network order */
	uint16_t sport, dport;		/* and ports (ICMP: echo id in sport) */
	/*
	 * IPv4's all in the first cache line; IPv6's key spills over. On 8
	 * bytes: rte_hash's CRC reads a key 8 bytes at a time.
	 */
	union {
		uint8_t k4[16];		/* flow4's key (CPE_MB_KEY4) */
		uint8_t k6[40];		/* flow6's key (CPE_MB_KEY6) */
	} __rte_aligned(8) key;
	uint8_t nh6[16];		/* IPv6 next hop */
};

enum {
	CPE_MB_KEY4 = 1 << 0,		/* key.k4 set: the flow may be learnt */
	CPE_MB_KEY6 = 1 << 1,
	CPE_MB_NOCACHE = 1 << 2,	/* not to be learnt (firewall, MTU) */
	CPE_MB_LOCAL = 1 << 3,		/* for one of the router's addresses */
	CPE_MB_FRAG = 1 << 4,		/* a fragment */
	CPE_MB_FIRST = 1 << 5,		/* its first: its way is kept */
	CPE_MB_NAT = 1 << 6,		/* sip..dport to be written */
	CPE_MB_NAT_IN = 1 << 7,		/* translated back (routed by dip) */
	CPE_MB_ICMP_XLATED = 1 << 8,	/* an ICMP error NAT translated */
	CPE_MB_RAW = 1 << 9,		/* to the TAP as it came (no PPPoE) */
	CPE_MB_SPLIT = 1 << 10,		/* over the MTU, DF clear: to cut */
	CPE_MB_LATER = 1 << 11,		/* a later fragment, its first unseen */
	CPE_MB_ROUTED = 1 << 12,	/* out and the next hop set */
	CPE_MB_HELD = 1 << 13,		/* a later fragment held once (fragdp.h) */
};

/*
 * Rounded up to whole cache lines, not only to RTE_MBUF_PRIV_ALIGN: the
 * private area lies between the mbuf and its headroom, so its size moves
 * where every frame starts. At 96 bytes a frame started 32 bytes into a
 * line and its Ethernet, IPv4 and UDP headers (42 bytes) spanned two
 * lines; whole lines keep the frame on a line's start as without a
 * private area (doc/perf/cpe_graph.txt: cycles per packet by that).
 */
#define CPE_MB_PRIV_SIZE	RTE_ALIGN(sizeof(struct cpe_mb), \
					  RTE_CACHE_LINE_SIZE)

static inline struct cpe_mb *
cpe_mb(struct rte_mbuf *m)
{
	return (struct cpe_mb *)rte_mbuf_to_priv(m);
}

/* The slow path's start: no key, no state. */
static inline struct cpe_mb *
cpe_mb_init(struct rte_mbuf *m, uint16_t flags)
{
	struct cpe_mb *mb = cpe_mb(m);

	mb->flags = flags;
	mb->ct = UINT32_MAX;
	mb->sess = UINT32_MAX;
	return mb;
}

/* The input interface (port_rx sets it), CPE_NO_IF for the router's own. */
static inline uint16_t
cpe_in(const struct rte_mbuf *m)
{
	return m->port;
}

/* The output interface, for the nodes of the way out (port_out on). */
static inline uint16_t
cpe_out(const struct rte_mbuf *m)
{
	return (uint16_t)m->hash.usr;
}

static inline void
cpe_set_out(struct rte_mbuf *m, uint16_t idx)
{
	m->hash.usr = idx;
}

#endif /* CPE_MB_H */
