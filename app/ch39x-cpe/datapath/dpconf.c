/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The graph's configuration, the way to a node's state by its name, a
 * node's edges by the names of their ends (dpconf.h).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dpconf.h"

static struct cpe_dp *the_dp;

void
cpe_dp_set(struct cpe_dp *dp)
{
	the_dp = dp;
}

struct cpe_dp *
cpe_dp_conf(void)
{
	return the_dp;
}

void *
cpe_node_state_of(const char *name)
{
	struct rte_node *node = rte_graph_node_get_by_name(CPE_GRAPH_NAME,
							   name);

	return node == NULL ? NULL : cpe_node_ctx(node);
}

rte_edge_t
cpe_node_edge_of(const struct rte_node *node, const char *name)
{
	rte_edge_t i;

	/*
	 * The fast path's pointers to the next nodes, filled before the
	 * nodes' init() (which runs under the graph library's lock: no
	 * rte_node_edge_get() there).
	 */
	for (i = 0; i < node->nb_edges; i++)
		if (strcmp(node->nodes[i]->name, name) == 0)
			return i;
	return RTE_EDGE_ID_INVALID;
}

int
cpe_node_tx_edges(const struct rte_node *node, const struct cpe_dp *dp,
		  rte_edge_t *tx)
{
	char name[RTE_NODE_NAMESIZE];
	uint16_t i;

	for (i = 0; i < dp->ifs.nb; i++) {
		snprintf(name, sizeof(name), "port_tx-%u", dp->ifs.ifs[i].phys);
		tx[i] = cpe_node_edge_of(node, name);
		if (tx[i] == RTE_EDGE_ID_INVALID)
			return -ENOENT;
	}
	return 0;
}

int
cpe_node_out_edges(const struct rte_node *node, const struct cpe_dp *dp,
		   rte_edge_t port_out, rte_edge_t *out)
{
	bool up_shaped = dp->o->qos.rate != 0;
	const struct cpe_framing *f;
	uint16_t i;

	if (cpe_node_tx_edges(node, dp, out) != 0)
		return -ENOENT;
	for (i = 0; i < dp->ifs.nb; i++) {
		f = cpe_if_framing(&dp->ifs.ifs[i]);
		if (f->out_node != NULL)
			out[i] = cpe_node_edge_of(node, f->out_node);
		else if (up_shaped && dp->ifs.ifs[i].wan)
			out[i] = port_out;
		if (out[i] == RTE_EDGE_ID_INVALID)
			return -ENOENT;
	}
	return 0;
}

int
cpe_node_in_edges(const struct rte_node *node, const struct cpe_dp *dp,
		  rte_edge_t plain, rte_edge_t *in)
{
	const struct cpe_framing *f;
	uint16_t i;

	for (i = 0; i < dp->ifs.nb; i++) {
		f = cpe_if_framing(&dp->ifs.ifs[i]);
		in[i] = f->in_node != NULL ?
			cpe_node_edge_of(node, f->in_node) : plain;
		if (in[i] == RTE_EDGE_ID_INVALID)
			return -ENOENT;
	}
	return 0;
}
