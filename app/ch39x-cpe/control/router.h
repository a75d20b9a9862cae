/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_ROUTER_H
#define CPE_ROUTER_H

/*
 * The control plane (control/): the options, the ports and their
 * addresses, the graph made of the data path's nodes (datapath/), the
 * loop that walks it on the forwarding lcore and does the housekeeping
 * between two walks (aging, ports that come and go, telemetry commands,
 * the idle policy), the WAN's addressing, the statistics. It reaches the
 * data path only through the nodes' control functions and the tables'
 * (the datapath's headers), between two walks, on the same lcore: no locking.
 *
 * struct cpe_router is the router: the configuration, the graph and the
 * control plane's own state. One exists, made by cpe_router_run()
 * (loop.c) and handed to every function as an argument; the telemetry
 * callbacks reach the loop through ctl.c's mailbox only (their argument
 * from DPDK 24.11; before, which passes none, ctl.c's pointer to it);
 * SIGINT and SIGTERM through a signalfd the loop reads (ctl.h).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_graph.h>
#include <rte_telemetry.h>

#include "cpe_conf.h"
#include "dpconf.h"
#include "trace.h"

struct cpe_ctl;
struct cpe_hotplug;
struct cpe_idle;
struct cpe_wan;
struct cpe_gen;
struct cpe_port_rx;
struct cpe_port_tx;
struct cpe_inject;
struct cpe_ip6_deliver;

/* What the forwarding loop measures of itself. */
struct cpe_loop_stats {
	uint64_t loops, busy_cycles, busy_pkts;
	uint64_t pmd_busy_cycles;	/* estimate: cpe_loop_app_cycles() */
	uint64_t clean_cycles, clean_pkts, preempted_loops;
	uint64_t thread_cpu_ns, process_cpu_ns;
	uint64_t ctl_cmds, ctl_errors;
	uint64_t ctl_route_changes, ctl_neigh_changes, ctl_fw_changes;
	uint64_t idle_sleeps, idle_intr_waits, idle_intr_wakeups;
	uint64_t idle_tx_waits;		/* sleeps on a full backlog */
	uint64_t idle_cycles;
};

/*
 * The router's share of the busy walks: their time but for the PMDs'
 * bursts. The bursts are timed on one walk in CPE_WALK_SAMPLE and counted
 * that many times, so on a router that moves few packets a slow sampled
 * burst can outweigh the walks it stands for: no share then, not a
 * difference that wraps.
 */
static inline uint64_t
cpe_loop_app_cycles(const struct cpe_loop_stats *l)
{
	return l->busy_cycles > l->pmd_busy_cycles ?
		l->busy_cycles - l->pmd_busy_cycles : 0;
}

struct cpe_router {
	struct cpe_opts *o;		/* the configuration */
	struct cpe_dp *dp;		/* the graph's */
	struct rte_graph *graph;
	uint32_t walks;			/* loop.c's walk(): its count */
	struct rte_graph_cluster_stats *gstats;
	void (*stat_fn)(void *arg, const char *name, uint64_t calls,
			uint64_t objs, uint64_t cycles);
	void *stat_arg;			/* cpe_graph_stats()'s */
	volatile bool quit;
	uint64_t start;			/* TSC at the first walk */
	struct cpe_loop_stats st;
	struct cpe_ctl *ctl;
	struct cpe_idle *idle;
	struct cpe_hotplug *hp;
	struct cpe_wan *wan;
	struct cpe_gen *gen;
	struct cpe_trace *trace;
	/* The nodes the loop and the statistics ask between walks. */
	struct cpe_port_rx *rx[CPE_MAX_PHYS];
	struct cpe_port_tx *tx[CPE_MAX_PHYS];
	struct cpe_inject *inject;
	struct cpe_ip6_deliver *ip6_deliver;
};

#endif /* CPE_ROUTER_H */
