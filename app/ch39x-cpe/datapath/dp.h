/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_DP_H
#define CPE_DP_H

/*
 * What the router's nodes share (datapath/): the graph's clock, the
 * metadata a packet carries from node to node, how a node finds its
 * state and hands its packets on. One node a file, each registered
 * with its named edges (RTE_NODE_REGISTER); control/graph.c builds the
 * graph of them.
 *
 * A node's state is its own: its init() allocates it (cpe_node_state())
 * and keeps a pointer in the node's context; what it needs of the router
 * (the interfaces, the tables it reads) it takes from the graph's
 * configuration (struct cpe_dp, filled by control/graph.c before the
 * graph is created) at that moment, and nothing else. The control plane
 * reaches a node's state by the node's name (cpe_node_state_of()).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "cpe_compat.h"
#include "cpe_conf.h"
#include "csum.h"

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
	uint64_t pmd_cycles;		/* TSC cycles in the PMDs' bursts */
	uint64_t trace_flag;		/* ol_flags bit of a traced packet */
	struct cpe_trace *trace;	/* non-NULL while packets are traced */
	struct rte_mempool *pool;
	uint16_t wan;			/* the WAN interface, CPE_NO_IF: none */
};

#define CPE_NO_IF		UINT16_MAX

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
	/* IPv4's all in the first cache line; IPv6's key spills over. */
	union {
		uint8_t k4[16];		/* flow4's key (CPE_MB_KEY4) */
		uint8_t k6[40];		/* flow6's key (CPE_MB_KEY6) */
	} key;
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
};

#define CPE_MB_PRIV_SIZE	RTE_ALIGN(sizeof(struct cpe_mb), \
					  RTE_MBUF_PRIV_ALIGN)

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

/* --- node state -------------------------------------------------------- */

/*
 * A node's state, size bytes zeroed, kept in its context; NULL when
 * out of memory. Freed by cpe_node_state_free() (the node's fini).
 */
void *cpe_node_state(struct rte_node *node, size_t size);
void cpe_node_state_free(struct rte_node *node);
/* A node's fini() that frees its state and nothing else. */
void cpe_node_fini(const struct rte_graph *g, struct rte_node *node);
/* The control plane's way to a node's state, by its name; NULL: none. */
void *cpe_node_state_of(const char *name);

/* A node's state for its process(). */
#define CPE_CTX(node) cpe_node_ctx(node)

/* --- handing packets on ------------------------------------------------ */

/* A packet the node kept, freed, held or sent: no edge. */
#define CPE_CONSUMED		UINT16_MAX
/* Packets decided at once: a node's batch is cut into pieces this big. */
#define CPE_CHUNK		64

/* trace.c: the edges traced packets take, what became of those kept. */
void cpe_trace_node(struct cpe_trace *t, const struct rte_node *node,
		    void **objs, const uint16_t *next, uint16_t n);
void cpe_trace_rec(struct cpe_trace *t, const struct rte_node *node,
		   uint16_t id, uint16_t what);

/* What a node did with a packet it kept (a trace's verdict). */
enum cpe_kept {
	CPE_KEPT_SENT = 0xff00,		/* to the PMD */
	CPE_KEPT_DROPPED,		/* freed (the node names why) */
	CPE_KEPT_HELD,			/* waits for a neighbour */
	CPE_KEPT_QUEUED,		/* waits in a scheduler */
	CPE_KEPT_PUNTED,		/* to Linux, the TAP */
	CPE_KEPT_ANSWERED,		/* a reply made of it */
};

/* m's number in the trace, 0: not traced. */
static __rte_always_inline uint16_t
cpe_trace_id(const struct cpe_env *env, const struct rte_mbuf *m)
{
	return unlikely(env->trace != NULL) && (m->ol_flags & env->trace_flag) ?
		((const struct cpe_mb *)rte_mbuf_to_priv(
			(struct rte_mbuf *)(uintptr_t)m))->trace_id : 0;
}

/* Before a node frees, holds or sends m: the trace's last word on it. */
static __rte_always_inline void
cpe_kept(const struct cpe_env *env, const struct rte_node *node,
	 struct rte_mbuf *m, uint16_t what)
{
	uint16_t id = cpe_trace_id(env, m);

	if (unlikely(id != 0))
		cpe_trace_rec(env->trace, node, id, what);
}

/*
 * objs[0..n) on their edges next[0..n) (CPE_CONSUMED: none). When they
 * all take one edge and are the node's whole stream, the stream itself
 * is handed over (no copy); else runs of one edge go in one copy each.
 */
static __rte_always_inline void
cpe_enqueue(struct rte_graph *g, struct rte_node *node,
	    const struct cpe_env *env, void **objs, const uint16_t *next,
	    uint16_t n)
{
	uint16_t i, start;

	if (unlikely(env->trace != NULL))
		cpe_trace_node(env->trace, node, objs, next, n);
	if (n == 0)
		return;
	for (i = 1; i < n && next[i] == next[0]; i++)
		;
	if (likely(i == n) && next[0] != CPE_CONSUMED &&
	    objs == node->objs && n == node->idx) {
		rte_node_next_stream_move(g, node, next[0]);
		return;
	}
	for (start = 0; start < n; start = i) {
		for (i = start + 1; i < n && next[i] == next[start]; i++)
			;
		if (next[start] != CPE_CONSUMED)
			rte_node_enqueue(g, node, next[start], &objs[start],
					 i - start);
	}
}

/*
 * A node that decides each packet alone: one(ctx, m) returns its edge
 * (or CPE_CONSUMED). Inlined with one() into the node's process().
 */
static __rte_always_inline uint16_t
cpe_node_each(struct rte_graph *g, struct rte_node *node,
	      const struct cpe_env *env, void **objs, uint16_t n,
	      uint16_t (*one)(void *ctx, struct rte_mbuf *m), void *ctx)
{
	uint16_t next[CPE_CHUNK], i, k, base;

	for (base = 0; base < n; base += k) {
		k = RTE_MIN((uint16_t)(n - base), (uint16_t)CPE_CHUNK);
		for (i = 0; i < k; i++)
			next[i] = one(ctx, objs[base + i]);
		cpe_enqueue(g, node, env, objs + base, next, k);
	}
	return n;
}

#endif /* CPE_DP_H */
