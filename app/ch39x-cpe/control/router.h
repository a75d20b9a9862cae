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
 * control plane's own state. One exists, made by main(); the telemetry
 * callbacks, the signal handler and the ports' event callbacks that
 * take no argument find it through cpe_router_get().
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
	uint64_t loops, busy_cycles, busy_pkts, app_cycles;
	uint64_t clean_cycles, clean_pkts, preempted_loops;
	uint64_t thread_cpu_ns, process_cpu_ns;
	uint64_t ctl_cmds, ctl_errors;
	uint64_t ctl_route_changes, ctl_neigh_changes, ctl_fw_changes;
	uint64_t idle_sleeps, idle_intr_waits, idle_intr_wakeups;
	uint64_t idle_cycles;
};

struct cpe_router {
	struct cpe_opts *o;		/* the configuration */
	struct cpe_dp *dp;		/* the graph's */
	struct rte_graph *graph;
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

struct cpe_router *cpe_router_get(void);
/* main(): the router of options o, run until a signal or --duration;
 * 0, or what failed (reported). */
int cpe_router_run(struct cpe_opts *o);

/* ports.c: the DPDK ports, their queues and the interfaces on them. */
int cpe_ports_setup(struct cpe_router *r);
void cpe_ports_close(struct cpe_router *r);
/* phys[k] set up again as at start (a new port id after a re-probe). */
int cpe_port_restart(struct cpe_router *r, uint16_t k);

/* addr.c: routes and IPv6 addresses from the options. */
int cpe_addr_setup(struct cpe_router *r);
/* The interface an IPv6 gateway is on (link-local: the WAN), or -1. */
int cpe_addr_gw6_port(const struct cpe_router *r, const uint8_t *gw);
/* Interface idx's delegated /64 address a (NULL: none), its route and
 * groups. */
int cpe_addr_port_pd(struct cpe_router *r, uint16_t idx, const uint8_t *a);

/* graph.c: the tables, the nodes' clones and edges, the graph. */
int cpe_graph_setup(struct cpe_router *r);
void cpe_graph_close(struct cpe_router *r);
/* The registered nodes and their edges, as DOT (the architecture
 * guide's drawing; no EAL needed). */
void cpe_graph_dot(FILE *f);
/* Per node: calls, objects, cycles (rte_graph_cluster_stats). */
typedef void (*cpe_node_stat_fn)(void *arg, const char *name, uint64_t calls,
				 uint64_t objs, uint64_t cycles);
void cpe_graph_stats(struct cpe_router *r, cpe_node_stat_fn fn, void *arg);

/* tap.c: the control plane's TAPs (--tap). */
int cpe_tap_setup(struct cpe_router *r);
void cpe_tap_close(struct cpe_router *r);

/* hotplug.c: LSC and RMV events, re-probes. */
int cpe_hotplug_init(struct cpe_router *r);
void cpe_hotplug_poll(struct cpe_router *r);
void cpe_hotplug_close(struct cpe_router *r);
const char *cpe_hotplug_state(const struct cpe_router *r, uint16_t k);
uint64_t cpe_hotplug_reprobes(const struct cpe_router *r, uint16_t k);
/* Port-level counters of the hotplug (statistics). */
void cpe_hotplug_counts(const struct cpe_router *r, uint64_t *down,
			uint64_t *up, uint64_t *rmv, uint64_t *reprobes,
			uint64_t *errors, uint64_t *gave_up);

/* idle.c: what the loop does without packets (--idle). */
int cpe_idle_create(struct cpe_router *r);
void cpe_idle_init(struct cpe_router *r);	/* the forwarding thread */
void cpe_idle(struct cpe_router *r, uint32_t got, uint64_t deadline);
void cpe_idle_wake_by(struct cpe_router *r, uint64_t tsc);
void cpe_idle_kick(struct cpe_router *r);	/* any thread, signals */
int cpe_idle_watch_fd(struct cpe_router *r, int fd);
bool cpe_idle_want_intr(const struct cpe_router *r, uint16_t port_id);
bool cpe_idle_intr_refused(struct cpe_router *r, uint16_t port_id);
const char *cpe_idle_mode_name(enum cpe_idle_mode m);
void cpe_idle_port_detach(struct cpe_router *r, uint16_t k);
void cpe_idle_port_attach(struct cpe_router *r, uint16_t k);
uint16_t cpe_idle_intr_ports(const struct cpe_router *r);

/* gen.c: the benchmark's traffic (--bench-gen), on its own lcore. */
int cpe_gen_start(struct cpe_router *r);
void cpe_gen_stop(struct cpe_router *r);
void cpe_gen_counts(const struct cpe_router *r, uint64_t *tx, uint64_t *rx);

/* stats.c: text periodically and at exit, JSON at exit (--json). */
void cpe_stats_print(struct cpe_router *r, FILE *f, bool final,
		     double elapsed);
void cpe_stats_json(struct cpe_router *r, FILE *f, double elapsed);

/* wan.c, wan6.c: the WAN's addresses at run time. */
int cpe_wan_create(struct cpe_router *r);
void cpe_wan_free(struct cpe_router *r);
void cpe_wan6_age(struct cpe_router *r);	/* lifetimes, RAs, 4 Hz */
void cpe_wan_print(struct cpe_router *r, FILE *f);
void cpe_wan_json(struct cpe_router *r, FILE *f);

/* ctl.c and the commands' files: telemetry. */
int cpe_ctl_init(struct cpe_router *r);
void cpe_ctl_poll(struct cpe_router *r);
void cpe_ctl_close(struct cpe_router *r);

#endif /* CPE_ROUTER_H */
