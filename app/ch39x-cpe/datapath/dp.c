/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The nodes' states (dp.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>

#include "dp.h"

void *
cpe_node_state(struct rte_node *node, size_t size)
{
	void *p = rte_zmalloc(node->name, size, RTE_CACHE_LINE_SIZE);

	cpe_node_ctx_set(node, p);
	return p;
}

void
cpe_node_state_free(struct rte_node *node)
{
	rte_free(cpe_node_ctx(node));
	cpe_node_ctx_set(node, NULL);
}

void
cpe_node_fini(const struct rte_graph *g, struct rte_node *node)
{
	RTE_SET_USED(g);
	cpe_node_state_free(node);
}

