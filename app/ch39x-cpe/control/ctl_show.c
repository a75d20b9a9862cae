/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * What the router shows over telemetry:
 *
 *   /cpe/stats    its main counters, and per node the packets it handled
 *                 ("nodes") and the TSC cycles it took ("node_cycles")
 *   /cpe/ports    the DPDK ports: up, down, reprobing or failed
 *   /cpe/nodes    per node: calls, packets, cycles (the graph's stats)
 *
 * Telemetry takes only letters, digits, '_' and '/' in a dict's keys: a
 * clone's name (port_rx-0, drop-no_route) is shown with '_' for its '-'
 * (port_rx_0, drop_no_route); the exit JSON and /cpe/trace keep the
 * node's own name.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "fw_show.h"
#include "graph.h"
#include "hotplug.h"
#include "stats.h"

static void
counters(struct cpe_router *r, const struct cpe_stats *s,
	 struct rte_tel_data *d)
{
	const struct cpe_loop_stats *l = &r->st;
	uint64_t rx = 0, tx = 0, down = 0;
	uint16_t i;

	for (i = 0; i < r->dp->ifs.nb; i++) {
		rx += s->port[i].rx;
		tx += s->port[i].tx;
		down += s->port[i].down_drops;
	}
	cpe_tel_u64(d, "rx", rx);
	cpe_tel_u64(d, "tx", tx);
	cpe_tel_u64(d, "fast_hits", s->fast_hits);
	cpe_tel_u64(d, "fast_hits6", s->v6.fast_hits);
	cpe_tel_u64(d, "fast_misses", s->fast_misses);
	cpe_tel_u64(d, "fast_stale", s->fast_stale);
	cpe_tel_u64(d, "flow_invalidated", s->flow_invalidated);
	cpe_tel_u64(d, "flow_down_invalidated", s->flow_down_invalidated);
	cpe_tel_u64(d, "flow_evictions", s->flow_evictions);
	cpe_tel_u64(d, "flows", s->flows);
	cpe_tel_u64(d, "slow_pkts", s->slow_pkts);
	cpe_tel_u64(d, "nat_sessions", s->nat_sessions);
	cpe_tel_u64(d, "nat_expired", s->nat_expired);
	cpe_tel_u64(d, "nat_full", s->nat_full);
	cpe_tel_u64(d, "nat_full_refused", s->nat_full_refused);
	cpe_evict_tel(d, "nat", s->nat_evicted);
	cpe_tel_u64(d, "arp_expired", s->arp_expired);
	cpe_tel_u64(d, "nd_expired", s->v6.nd_expired);
	cpe_tel_u64(d, "neighbours", s->neighbours);
	cpe_tel_u64(d, "neighbours6", s->v6.neighbours);
	cpe_tel_u64(d, "drop_no_route", s->drop_no_route);
	cpe_tel_u64(d, "icmp_unreach", s->icmp_unreach);
	cpe_tel_u64(d, "ctl_cmds", l->ctl_cmds);
	cpe_tel_u64(d, "ctl_errors", l->ctl_errors);
	cpe_tel_u64(d, "ctl_route_changes", l->ctl_route_changes);
	cpe_tel_u64(d, "ctl_neigh_changes", l->ctl_neigh_changes);
	cpe_tel_u64(d, "ctl_fw_changes", l->ctl_fw_changes);
	cpe_tel_u64(d, "down_drops", down);
	cpe_tel_u64(d, "port_down_events", s->port_down_events);
	cpe_tel_u64(d, "port_up_events", s->port_up_events);
	cpe_tel_u64(d, "port_rmv_events", s->port_rmv_events);
	cpe_tel_u64(d, "port_reprobes", s->port_reprobes);
	cpe_tel_u64(d, "port_reprobe_errors", s->port_reprobe_errors);
	cpe_tel_u64(d, "port_reprobe_gave_up", s->port_reprobe_gave_up);
	cpe_tel_u64(d, "generation", r->dp->env.gen);
}

/* Node name as a telemetry key (see above). */
static const char *
tel_key(const char *name, char *key, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size && name[i] != '\0'; i++)
		key[i] = name[i] == '-' ? '_' : name[i];
	key[i] = '\0';
	return key;
}

/* Two dicts filled from the graph's stats: packets and cycles by node. */
struct node_dicts {
	struct rte_tel_data *pkts, *cycles;
};

static void
node_counts(void *arg, const char *name, uint64_t calls, uint64_t objs,
	    uint64_t cycles)
{
	struct node_dicts *n = arg;
	char key[RTE_NODE_NAMESIZE];

	RTE_SET_USED(calls);
	cpe_tel_u64(n->pkts, tel_key(name, key, sizeof(key)), objs);
	cpe_tel_u64(n->cycles, key, cycles);
}

/* c (an allocated dict) into d at key, or freed. */
static void
add_dict(struct rte_tel_data *d, const char *key, struct rte_tel_data *c)
{
	if (c != NULL && rte_tel_data_add_dict_container(d, key, c, 0) != 0)
		rte_tel_data_free(c);
}

static void
stats(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	struct node_dicts n = {
		.pkts = rte_tel_data_alloc(), .cycles = rte_tel_data_alloc(),
	};
	struct cpe_stats s;

	RTE_SET_USED(arg);
	cpe_stats_gather(r, &s);
	rte_tel_data_start_dict(d);
	counters(r, &s, d);
	cpe_fw_tel(r, d);
	if (n.pkts != NULL && n.cycles != NULL) {
		rte_tel_data_start_dict(n.pkts);
		rte_tel_data_start_dict(n.cycles);
		cpe_graph_stats(r, node_counts, &n);
	}
	add_dict(d, "nodes", n.pkts);
	add_dict(d, "node_cycles", n.cycles);
}

/* What a DPDK port's interfaces could not send while it was away. */
static uint64_t
down_drops(const struct cpe_router *r, const struct cpe_stats *s, uint16_t k)
{
	uint64_t n = 0;
	uint16_t i;

	for (i = 0; i < r->dp->ifs.nb; i++)
		if (r->dp->ifs.ifs[i].phys == k)
			n += s->port[i].down_drops;
	return n;
}

/* "PORT lan|wan STATE reprobes N down_drops N", per DPDK port. */
static void
ports(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	char buf[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *a;
	struct cpe_stats s;
	uint16_t k, i, shown = 0;

	RTE_SET_USED(arg);
	cpe_stats_gather(r, &s);
	a = cpe_ctl_list_start(d, "ports");
	for (k = 0; k < ifs->nb_phys; k++) {
		for (i = 0; i < ifs->nb; i++)
			if (ifs->ifs[i].phys == k)
				break;
		snprintf(buf, sizeof(buf), "%u %s %s reprobes %" PRIu64
			 " down_drops %" PRIu64, ifs->phys[k].id,
			 ifs->ifs[i].wan ? "wan" : "lan",
			 cpe_hotplug_state(r, k), cpe_hotplug_reprobes(r, k),
			 down_drops(r, &s, k));
		if (a != NULL && shown < CPE_CTL_LIST_MAX) {
			rte_tel_data_add_array_string(a, buf);
			shown++;
		}
	}
	rte_tel_data_add_dict_int(d, "count", ifs->nb_phys);
	rte_tel_data_add_dict_int(d, "shown", shown);
}

/* One node's {calls, packets, cycles} into the reply. */
static void
node_entry(void *arg, const char *name, uint64_t calls, uint64_t objs,
	   uint64_t cycles)
{
	struct rte_tel_data *d = arg, *e = rte_tel_data_alloc();
	char key[RTE_NODE_NAMESIZE];

	if (e == NULL)
		return;
	rte_tel_data_start_dict(e);
	cpe_tel_u64(e, "calls", calls);
	cpe_tel_u64(e, "packets", objs);
	cpe_tel_u64(e, "cycles", cycles);
	add_dict(d, tel_key(name, key, sizeof(key)), e);
}

static void
nodes(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	rte_tel_data_start_dict(d);
	cpe_graph_stats(r, node_entry, d);
}

static int
tel_show(const char *cmd, const char *params, void *box,
	 struct rte_tel_data *d)
{
	cpe_ctl_fn fn = stats;

	if (cpe_ctl_no_params(box, d, cmd, params) != 0)
		return 0;
	if (strcmp(cmd, "/cpe/ports") == 0)
		fn = ports;
	else if (strcmp(cmd, "/cpe/nodes") == 0)
		fn = nodes;
	return cpe_ctl_call(box, fn, NULL, 0, d);
}

int
cpe_ctl_show_init(struct cpe_ctl *c)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/stats", tel_show, "The router's main counters, and "
		  "packets and cycles per node. No parameters" },
		{ "/cpe/ports", tel_show, "The DPDK ports: up, down, "
		  "reprobing or failed. No parameters" },
		{ "/cpe/nodes", tel_show, "Per node of the graph: calls, "
		  "packets, TSC cycles. No parameters" },
	};

	return cpe_ctl_register(c, cmds, RTE_DIM(cmds));
}
