/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_DPCONF_H
#define CPE_DPCONF_H

/*
 * The graph's configuration: what control/graph.c sets up before it
 * creates the graph (the interfaces, the tables, the TAPs' descriptors)
 * and each node's init() takes what it needs from (cpe_dp_conf()). The
 * one global of the data path, with the graph itself (struct
 * cpe_dp.graph): the nodes' process() never reads it, only their own
 * state.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_graph.h>

#include "dp.h"
#include "iface.h"

struct cpe_arp;
struct cpe_fragdp;
struct cpe_ftab;
struct cpe_fwdp;
struct cpe_nat;
struct cpe_nd6;
struct cpe_qos;
struct cpe_rt4;
struct cpe_rt6;

#define CPE_GRAPH_NAME		"cpe"

struct cpe_dp {
	struct cpe_env env;
	struct cpe_ifaces ifs;
	struct cpe_opts *o;
	bool nat_on;			/* NAT with a WAN */
	bool v6_on;			/* some interface routes IPv6 */
	bool down_on;			/* the downlink is shaped */
	struct cpe_ftab *ftab4, *ftab6;	/* NULL: no flow cache */
	struct cpe_nat *nat;
	struct cpe_rt4 *rt4;
	struct cpe_rt6 *rt6;		/* NULL: no IPv6 */
	struct cpe_arp *arp;
	struct cpe_nd6 *nd6;		/* NULL: no IPv6 */
	struct cpe_fwdp *fw;
	struct cpe_fragdp *frag;
	struct cpe_qos *qos;
	int tap_fd[CPE_MAX_PORTS];	/* -1: the interface has no TAP */
	rte_node_t rx_node[CPE_MAX_PHYS];	/* port_rx-K, port_tx-K */
	rte_node_t tx_node[CPE_MAX_PHYS];
	struct rte_graph *graph;
	rte_graph_t graph_id;
};

/* Set by control/graph.c before the graph is made; read by node inits. */
void cpe_dp_set(struct cpe_dp *dp);
struct cpe_dp *cpe_dp_conf(void);

/* Which DPDK port clone id is of (ids: dp->rx_node or dp->tx_node), or
 * -ENOENT. */
static inline int
cpe_dp_phys_of(const struct cpe_dp *dp, const rte_node_t *ids, rte_node_t id)
{
	uint16_t k;

	for (k = 0; k < dp->ifs.nb_phys; k++)
		if (ids[k] == id)
			return k;
	return -ENOENT;
}

/* The control plane's way to a node's state, by its name; NULL: none. */
void *cpe_node_state_of(const char *name);

/* The edge of node named name, RTE_EDGE_ID_INVALID: none. */
rte_edge_t cpe_node_edge_of(const struct rte_node *node, const char *name);
/* The edges of a node that sends out of the interfaces: to each
 * interface's port_tx-K (into tx[], indexed by interface). */
int cpe_node_tx_edges(const struct rte_node *node, const struct cpe_dp *dp,
		      rte_edge_t *tx);
/*
 * The first step out of each interface for a node that sends (into
 * out[], by interface): its framing's output node (iface.h), else
 * port_out when its interface is shaped (which knows the schedulers),
 * else its port_tx-K.
 */
int cpe_node_out_edges(const struct rte_node *node, const struct cpe_dp *dp,
		       rte_edge_t port_out, rte_edge_t *out);
/* The first step in from each interface for a node that receives: its
 * framing's input node, else plain. */
int cpe_node_in_edges(const struct rte_node *node, const struct cpe_dp *dp,
		      rte_edge_t plain, rte_edge_t *in);

#endif /* CPE_DPCONF_H */
