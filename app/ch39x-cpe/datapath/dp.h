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
 * reaches a node's state by the node's name (dpconf.h).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "cpe_compat.h"
#include "cpe_conf.h"
#include "csum.h"
#include "mb.h"
#include "trace.h"

/* --- node state -------------------------------------------------------- */

/*
 * A node's state, size bytes zeroed, kept in its context; NULL when
 * out of memory. Freed by cpe_node_state_free() (the node's fini).
 */
void *cpe_node_state(struct rte_node *node, size_t size);
void cpe_node_state_free(struct rte_node *node);
/* A node's fini() that frees its state and nothing else. */
void cpe_node_fini(const struct rte_graph *g, struct rte_node *node);

/* A node's state for its process(). */
#define CPE_CTX(node) cpe_node_ctx(node)

/* --- handing packets on ------------------------------------------------ */

/* Packets decided at once: a node's batch is cut into pieces this big. */
#define CPE_CHUNK		64

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
