/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The graph: the tables the nodes own and share (made here from the
 * options, before the nodes' init() takes them from the graph's
 * configuration), the clones of the nodes that exist once per DPDK port
 * (port_rx-K, port_tx-K) and per drop reason (drop-<reason>), the edges
 * to the ports' port_tx-K of the nodes that send, and the graph itself:
 * the ports' port_rx sources, and tap_in, inject and qos_tx when there is
 * work for them; every node reachable from them is in it. The per-node
 * statistics come from rte_graph_cluster_stats.
 */

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>

#include "fragdp.h"
#include "ftab.h"
#include "fwdp.h"
#include "graph.h"
#include "ip6.h"
#include "nat.h"
#include "ntab.h"
#include "port.h"
#include "qos_sched.h"
#include "router.h"
#include "rt.h"

/* The nodes that send out of the interfaces: port_tx-K edges each. */
static const char *const senders[] = {
	"flow4", "flow6", "port_out", "pppoe_out", "qos", "qos_tx",
};

/* Those before the framings' output nodes: an edge to each (iface.h). */
static const char *const framed[] = { "flow4", "flow6", "port_out" };

#define DROP_NAME(r) #r,
static const char *const drop_reasons[] = { CPE_DROP_REASONS(DROP_NAME) };
#undef DROP_NAME

static int
no_memory(const char *opt, uint32_t n, const char *what)
{
	fprintf(stderr, "ch39x-cpe: --%s %u: cannot create %s: %s; give EAL "
		"more memory (-m)\n", opt, n, what, rte_strerror(rte_errno));
	return -ENOMEM;
}

/* The flow caches, NAT, the neighbours, the firewall, fragments, QoS. */
static int
tables(struct cpe_router *r)
{
	struct cpe_opts *o = r->o;
	struct cpe_dp *dp = r->dp;

	dp->nat_on = o->nat && dp->ifs.wan >= 0;
	dp->down_on = dp->ifs.wan >= 0 && o->qos.down_rate != 0;
	dp->qos = cpe_qos_create(o, &dp->env, &dp->ifs);
	dp->arp = cpe_arp_create(o, &dp->env, &dp->ifs);
	if (dp->qos == NULL || dp->arp == NULL)
		return -ENOMEM;
	if (dp->v6_on && (dp->nd6 = cpe_nd6_create(&dp->env, &dp->ifs,
						   o->arp_timeout)) == NULL)
		return -ENOMEM;
	if (o->flow_cache && (dp->ftab4 = cpe_ftab_create(false,
	    o->flow_entries, o->flow_timeout, &dp->env, &dp->ifs)) == NULL)
		return no_memory("flow-entries", o->flow_entries,
				 "the flow cache");
	if (o->flow_cache && dp->v6_on && (dp->ftab6 = cpe_ftab_create(true,
	    o->flow_entries, o->flow_timeout, &dp->env, &dp->ifs)) == NULL)
		return no_memory("flow-entries", o->flow_entries,
				 "the IPv6 flow cache");
	dp->nat = cpe_nat_create(o, &o->fw, &dp->env, &dp->ifs, dp->ftab4);
	if (dp->nat == NULL)
		return no_memory("nat-sessions", o->nat_sessions,
				 "the NAT tables");
	if (cpe_nat_forward_setup(dp->nat, o->nat) != 0)
		return -EINVAL;
	dp->fw = cpe_fwdp_create(o, &dp->env, &dp->ifs, dp->rt4, dp->rt6,
				 dp->ftab4, dp->ftab6);
	dp->frag = cpe_fragdp_create(o->frag_max, o->frag_timeout, &dp->env);
	if (dp->fw == NULL || dp->frag == NULL)
		return -ENOMEM;
	/* The forwards' admission: the firewall's guard (guard_dp.h). */
	if (dp->fw->guard_on)
		dp->nat->guard = &dp->fw->guard;
	return 0;
}

/* A clone of base named base-suffix (made once: clones stay). */
static rte_node_t
node_clone(const char *base, const char *suffix)
{
	char name[RTE_NODE_NAMESIZE];
	rte_node_t id;

	snprintf(name, sizeof(name), "%s-%s", base, suffix);
	id = rte_node_from_name(name);
	if (id != RTE_NODE_ID_INVALID)
		return id;
	return rte_node_clone(rte_node_from_name(base), suffix);
}

/* port_rx's edges to the framings' input nodes, the senders' before
 * them to their output nodes (before port_rx is cloned). */
static int
framing_edges(void)
{
	const char *in[CPE_NB_FRAMINGS], *out[CPE_NB_FRAMINGS];
	uint16_t nin = 0, nout = 0, i;

	for (i = 0; i < CPE_NB_FRAMINGS; i++) {
		if (cpe_framings[i].in_node != NULL)
			in[nin++] = cpe_framings[i].in_node;
		if (cpe_framings[i].out_node != NULL)
			out[nout++] = cpe_framings[i].out_node;
	}
	if (rte_node_edge_update(rte_node_from_name("port_rx"),
				 RTE_EDGE_ID_INVALID, in, nin) ==
	    RTE_EDGE_ID_INVALID)
		return -EINVAL;
	for (i = 0; i < RTE_DIM(framed); i++)
		if (rte_node_edge_update(rte_node_from_name(framed[i]),
					 RTE_EDGE_ID_INVALID, out, nout) ==
		    RTE_EDGE_ID_INVALID)
			return -EINVAL;
	return 0;
}

/*
 * port_rx-K and port_tx-K for DPDK ports 0..n-1 (named K, or "K" itself
 * for the drawing), drop-<reason>, and the senders' edges to port_tx-K.
 */
static int
nodes(uint16_t n, const char *sym, rte_node_t *rx, rte_node_t *tx)
{
	char *names[CPE_MAX_PHYS], buf[CPE_MAX_PHYS][RTE_NODE_NAMESIZE];
	char k[8];
	uint16_t i;

	if (framing_edges() != 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (sym != NULL)
			snprintf(k, sizeof(k), "%s", sym);
		else
			snprintf(k, sizeof(k), "%u", i);
		rx[i] = node_clone("port_rx", k);
		tx[i] = node_clone("port_tx", k);
		if (rx[i] == RTE_NODE_ID_INVALID ||
		    tx[i] == RTE_NODE_ID_INVALID)
			return -ENOMEM;
		snprintf(buf[i], sizeof(buf[i]), "port_tx-%s", k);
		names[i] = buf[i];
	}
	for (i = 0; i < RTE_DIM(drop_reasons); i++)
		if (node_clone("drop", drop_reasons[i]) == RTE_NODE_ID_INVALID)
			return -ENOMEM;
	for (i = 0; i < RTE_DIM(senders); i++)
		if (rte_node_edge_update(rte_node_from_name(senders[i]),
					 RTE_EDGE_ID_INVALID,
					 (const char **)names, n) ==
		    RTE_EDGE_ID_INVALID)
			return -EINVAL;
	return 0;
}

static int
stats_cb(bool first, bool last, void *cookie,
	 const struct rte_graph_cluster_node_stats *st)
{
	struct cpe_router *r = cookie;

	RTE_SET_USED(first);
	RTE_SET_USED(last);
	r->stat_fn(r->stat_arg, st->name, st->calls, st->objs, st->cycles);
	return 0;
}

void
cpe_graph_stats(struct cpe_router *r, cpe_node_stat_fn fn, void *arg)
{
	if (r->gstats == NULL)
		return;
	r->stat_fn = fn;
	r->stat_arg = arg;
	rte_graph_cluster_stats_get(r->gstats, false);
}

/* The graph of the ports' sources and what else has work; its stats. */
static int
make(struct cpe_router *r)
{
	const char *pats[4] = { "port_rx-*", "inject" };
	const char *gpat[] = { CPE_GRAPH_NAME };
	struct rte_graph_param prm = {
		.socket_id = (int)rte_socket_id(),
		.node_patterns = pats,
		.nb_node_patterns = 2,
	};
	struct rte_graph_cluster_stats_param sp = {
		.socket_id = (int)rte_socket_id(), .fn = stats_cb,
		.cookie = r, .nb_graph_patterns = 1, .graph_patterns = gpat,
	};
	bool taps = false;
	uint16_t i;

	for (i = 0; i < r->dp->ifs.nb; i++)
		taps |= r->dp->tap_fd[i] >= 0;
	if (taps)
		pats[prm.nb_node_patterns++] = "tap_in";
	if (r->dp->qos->up.on || r->dp->qos->down.on)
		pats[prm.nb_node_patterns++] = "qos_tx";
	r->dp->graph_id = rte_graph_create(CPE_GRAPH_NAME, &prm);
	if (r->dp->graph_id == RTE_GRAPH_ID_INVALID) {
		fprintf(stderr, "ch39x-cpe: cannot create the graph of nodes: "
			"%s\n", rte_strerror(rte_errno));
		return -rte_errno;
	}
	r->graph = r->dp->graph = rte_graph_lookup(CPE_GRAPH_NAME);
	r->gstats = rte_graph_cluster_stats_create(&sp);
	return r->gstats == NULL ? -ENOMEM : 0;
}

/* The states the loop and the statistics ask between walks. */
static void
states(struct cpe_router *r)
{
	char name[RTE_NODE_NAMESIZE];
	uint16_t k;

	for (k = 0; k < r->dp->ifs.nb_phys; k++) {
		snprintf(name, sizeof(name), "port_rx-%u", k);
		r->rx[k] = cpe_node_state_of(name);
		snprintf(name, sizeof(name), "port_tx-%u", k);
		r->tx[k] = cpe_node_state_of(name);
	}
	r->inject = cpe_node_state_of("inject");
	r->ip6_deliver = cpe_node_state_of("ip6_deliver");
}

int
cpe_graph_setup(struct cpe_router *r)
{
	int rc;

	cpe_dp_set(r->dp);
	rc = tables(r);
	if (rc == 0)
		rc = nodes(r->dp->ifs.nb_phys, NULL, r->dp->rx_node,
			   r->dp->tx_node);
	if (rc == 0)
		rc = make(r);
	if (rc == 0)
		states(r);
	return rc;
}

void
cpe_graph_close(struct cpe_router *r)
{
	struct cpe_dp *dp = r->dp;

	if (r->gstats != NULL)
		rte_graph_cluster_stats_destroy(r->gstats);
	r->gstats = NULL;
	if (r->graph != NULL)
		rte_graph_destroy(dp->graph_id);
	r->graph = NULL;
	cpe_dp_set(NULL);	/* the router frees dp next (loop.c) */
	cpe_qos_free(dp->qos);
	cpe_fragdp_free(dp->frag);
	cpe_fwdp_free(dp->fw);
	cpe_nat_free(dp->nat);
	cpe_ftab_free(dp->ftab6);
	cpe_ftab_free(dp->ftab4);
	cpe_nd6_free(dp->nd6);
	cpe_arp_free(dp->arp);
	cpe_rt6_free(dp->rt6);
	cpe_rt4_free(dp->rt4);
}

/* Whether node name is in the drawing (the clones' bases are not). */
static bool
drawn(const char *name)
{
	return strcmp(name, "port_rx") != 0 && strcmp(name, "port_tx") != 0 &&
		strcmp(name, "drop") != 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(rte_node_id_to_name(*(const rte_node_t *)a),
		      rte_node_id_to_name(*(const rte_node_t *)b));
}

/* Node id's edges, as DOT. */
static void
dot_node(FILE *f, rte_node_t id)
{
	char *next[RTE_GRAPH_BURST_SIZE];
	const char *name = rte_node_id_to_name(id);
	rte_edge_t e, nb;

	nb = (rte_edge_t)(rte_node_edge_get(id, NULL) / sizeof(char *));
	if (nb > RTE_DIM(next))
		return;
	rte_node_edge_get(id, next);
	fprintf(f, "\t\"%s\";\n", name);
	for (e = 0; e < nb; e++)
		fprintf(f, "\t\"%s\" -> \"%s\" [label=\"%u\"];\n", name,
			next[e], e);
}

void
cpe_graph_dot(FILE *f)
{
	rte_node_t rx[1], tx[1], id, n, ids[256];
	const char *name;
	unsigned int k = 0, i;

	if (nodes(1, "K", rx, tx) != 0)
		return;
	/* 22.11 returns the number of nodes, 25.11 the highest id: asking
	 * one id past either is harmless (no node, NULL). */
	n = rte_node_max_count();
	for (id = 0; id <= n && k < RTE_DIM(ids); id++) {
		name = rte_node_id_to_name(id);
		if (name != NULL && drawn(name))
			ids[k++] = id;
	}
	qsort(ids, k, sizeof(ids[0]), by_name);
	fprintf(f, "digraph cpe {\n\trankdir=LR;\n");
	for (i = 0; i < k; i++)
		dot_node(f, ids[i]);
	fprintf(f, "}\n");
}
