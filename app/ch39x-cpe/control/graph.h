/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_GRAPH_H
#define CPE_GRAPH_H

/*
 * The graph (graph.c): the tables, the nodes' clones and edges, the
 * graph of the nodes, its per-node statistics and its drawing.
 */

#include <stdint.h>
#include <stdio.h>

#include "router.h"

int cpe_graph_setup(struct cpe_router *r);
void cpe_graph_close(struct cpe_router *r);
/* The registered nodes and their edges, as DOT (the architecture
 * guide's drawing; no EAL needed). */
void cpe_graph_dot(FILE *f);
/* Per node: calls, objects, cycles (rte_graph_cluster_stats). */
typedef void (*cpe_node_stat_fn)(void *arg, const char *name, uint64_t calls,
				 uint64_t objs, uint64_t cycles);
void cpe_graph_stats(struct cpe_router *r, cpe_node_stat_fn fn, void *arg);

#endif /* CPE_GRAPH_H */
