/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The router's life: set-up in order (the ports and their addresses, the
 * TAPs, the graph and its tables, the ports' events, the WAN's state,
 * telemetry, the benchmark's generator), the forwarding loop on the main
 * lcore, the statistics periodically and at exit, the tear-down.
 *
 * The loop walks the graph (the ports' RX bursts and everything that
 * follows, to their TX bursts), gives the ports' backlogs to the PMDs
 * again, and every millisecond does the housekeeping between two walks:
 * a slice of the tables' aging, the ports' link and removal events,
 * telemetry commands, router advertisements the WAN saw; four times a
 * second the neighbours' probes and the WAN's lifetimes. Then the idle
 * policy (idle.c) decides whether it sleeps.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_mbuf_dyn.h>

#include "addr.h"
#include "ctl.h"
#include "fragdp.h"
#include "ftab.h"
#include "fwdp.h"
#include "gen.h"
#include "graph.h"
#include "hotplug.h"
#include "idle.h"
#include "loop.h"
#include "nat.h"
#include "ntab.h"
#include "port.h"
#include "ports.h"
#include "stats.h"
#include "tap.h"
#include "wan.h"
#include "wan6.h"
#include "wan_mbim.h"

/* The tables' aging for ms milliseconds; the neighbours' at 4 Hz. */
static void
housekeeping(struct cpe_router *r, uint64_t t0, uint64_t last_hk)
{
	struct cpe_dp *dp = r->dp;
	const struct cpe_ifaces *ifs = &dp->ifs;
	uint64_t hz = dp->env.hz, ms;

	/* It keeps its pace when --idle slept through several passes. */
	ms = RTE_MIN((t0 - last_hk) / (hz / 1000), (uint64_t)CPE_AGE_PASS_MS);
	ms = RTE_MAX(ms, 1u);
	cpe_ftab_age(dp->ftab4, (uint32_t)ms);
	cpe_ftab_age(dp->ftab6, (uint32_t)ms);
	/* Sessions and the firewall's states wait for a WAN that is away. */
	if (ifs->wan < 0 || !ifs->phys[ifs->ifs[ifs->wan].phys].down) {
		cpe_nat_age(dp->nat, (uint32_t)ms);
		cpe_fwdp_age_ms(dp->fw, (uint32_t)ms);
		cpe_fragdp_age_ms(dp->frag, (uint32_t)ms);
	}
	cpe_hotplug_poll(r);
	cpe_ctl_poll(r);
	cpe_wan6_age(r);
	cpe_wan_mbim_poll(r);
	if ((t0 / (hz / 4)) != (last_hk / (hz / 4))) {
		cpe_arp_age(dp->arp);
		cpe_nd6_age(dp->nd6);
	}
}

/* What one walk cost, for the statistics' cycles per packet. */
static void
account(struct cpe_router *r, uint32_t got, uint64_t t0, uint64_t pmd0)
{
	uint64_t t1;

	r->st.loops++;
	if (!got)
		return;
	t1 = rte_rdtsc() - t0;
	r->st.busy_cycles += t1;
	r->st.busy_pkts += got;
	/* The PMDs' bursts in it, for the router's share (router.h). */
	r->st.pmd_busy_cycles += r->dp->env.pmd_cycles - pmd0;
	/*
	 * A loop longer than 50 us was preempted (by the simulated adapters'
	 * threads on a small machine): the clean figure leaves those out.
	 */
	if (t1 < r->dp->env.hz / 20000) {
		r->st.clean_cycles += t1;
		r->st.clean_pkts += got;
	} else {
		r->st.preempted_loops++;
	}
}

/*
 * One walk, the ports' backlogs, a trace's end; packets received. Not
 * inlined: scripts/bench/cpe_instr.sh counts the nodes it calls.
 */
/*
 * rte_graph_walk() as DPDK's run-to-completion model does it, with its
 * per-node statistics (rte_graph_cluster_stats) kept cheaper. DPDK's
 * builds (RTE_LIBRTE_GRAPH_STATS) read the TSC before and after every
 * node call, the source nodes' empty polls included, and a read costs
 * about 90 cycles on a virtual machine, half the flow cache's whole
 * work on a packet (doc/perf/cpe_graph.txt). Here calls and objects
 * are counted as DPDK counts them, every call; a node's cycles on its
 * first call and every CPE_WALK_SAMPLE-th (mb.h) after, counted that
 * many times: an estimate, and a node that ran shows cycles.
 */
static __rte_always_inline void
graph_walk(struct rte_graph *graph)
{
	const rte_graph_off_t *cir_start = graph->cir_start;
	const rte_node_t mask = graph->cir_mask;
	uint32_t head = graph->head;
	struct rte_node *node;
	uint64_t t;
	uint16_t rc;

	while (likely(head != graph->tail)) {
		node = RTE_PTR_ADD(graph, cir_start[(int32_t)head++]);
		RTE_ASSERT(node->fence == RTE_GRAPH_FENCE);
		rte_prefetch0(node->objs);
		if (likely(node->total_calls % CPE_WALK_SAMPLE != 0)) {
			rc = node->process(graph, node, node->objs, node->idx);
		} else {
			t = rte_rdtsc();
			rc = node->process(graph, node, node->objs, node->idx);
			node->total_cycles += (rte_rdtsc() - t) *
				CPE_WALK_SAMPLE;
		}
		node->total_calls++;
		node->total_objs += rc;
		node->idx = 0;
		head = likely((int32_t)head > 0) ? head & mask : head;
	}
	graph->tail = 0;
}

static __rte_noinline uint32_t
walk(struct cpe_router *r)
{
	struct cpe_env *env = &r->dp->env;
	uint16_t k;

	env->walk_rx = 0;
	/* The PMDs' bursts timed on one walk in CPE_WALK_SAMPLE. */
	env->sample = ++r->walks % CPE_WALK_SAMPLE == 0;
	graph_walk(r->graph);
	for (k = 0; k < r->dp->ifs.nb_phys; k++)
		cpe_port_tx_retry(r->tx[k]);
	/* All the packets a trace asked for went their way. */
	if (unlikely(env->trace != NULL) && env->trace->want == 0)
		env->trace = NULL;
	return env->walk_rx;
}

static void
forward(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	uint64_t hz = r->dp->env.hz, start = rte_rdtsc(), next_stats, next_hk;
	uint64_t end, t0, last_hk, pmd0;
	uint32_t got;

	end = o->duration > 0 ? start + (uint64_t)(o->duration * hz) :
		UINT64_MAX;
	next_stats = o->stats_interval > 0 ?
		start + (uint64_t)(o->stats_interval * hz) : UINT64_MAX;
	next_hk = start;
	last_hk = start - hz / 1000;
	r->start = start;
	cpe_idle_init(r);
	/* SIGINT and SIGTERM end an interrupt wait too. */
	if (cpe_idle_watch_fd(r, cpe_ctl_signal_fd(r)) != 0)
		fprintf(stderr, "ch39x-cpe: the signals' descriptor is not in "
			"the idle wait: SIGTERM waits for the next wake-up "
			"(at most 1 s)\n");
	while (!r->quit) {
		t0 = rte_rdtsc();
		r->dp->env.now = t0;
		pmd0 = r->dp->env.pmd_cycles;
		got = walk(r);
		account(r, got, t0, pmd0);
		if (t0 >= next_hk) {
			/* Every millisecond a slice: no pause of the loop. */
			next_hk = t0 + hz / 1000;
			housekeeping(r, t0, last_hk);
			last_hk = t0;
		}
		if (t0 >= next_stats) {
			next_stats += (uint64_t)(o->stats_interval * hz);
			cpe_stats_print(r, stdout, false,
					(double)(t0 - start) / (double)hz);
		}
		if (t0 >= end)
			break;
		cpe_idle(r, got, RTE_MIN(next_stats, end));
	}
}

static uint64_t
ns_between(const struct timespec *a, const struct timespec *b)
{
	return (uint64_t)(b->tv_sec - a->tv_sec) * 1000000000u +
		(uint64_t)b->tv_nsec - (uint64_t)a->tv_nsec;
}

/* The loop, its CPU time, the exit statistics. */
static void
run(struct cpe_router *r)
{
	struct timespec c0, c1, p0, p1;
	uint64_t t_start;
	double elapsed;

	fprintf(stderr, "ch39x-cpe: forwarding on %u ports (%s, idle %s)\n",
		r->dp->ifs.nb, r->o->flow_cache ? "flow cache on" :
		"slow path only", cpe_idle_mode_name(r->o->idle));
	t_start = rte_rdtsc();
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	forward(r);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
	/* All threads: EAL's (link polling) and the generator's. */
	r->st.process_cpu_ns = ns_between(&p0, &p1);
	elapsed = (double)(rte_rdtsc() - t_start) / (double)r->dp->env.hz;
	/* CPU time of the forwarding thread: pps per core. */
	r->st.thread_cpu_ns = ns_between(&c0, &c1);
	cpe_gen_stop(r);
	if (r->o->json)
		cpe_stats_json(r, stdout, elapsed);
	else
		cpe_stats_print(r, stdout, true, elapsed);
}

/* The trace's mbuf flag and its records. */
static int
trace_setup(struct cpe_router *r)
{
	static const struct rte_mbuf_dynflag flag = { .name = "cpe_trace" };
	int bit = rte_mbuf_dynflag_register(&flag);

	r->trace = calloc(1, sizeof(*r->trace));
	if (bit < 0 || r->trace == NULL) {
		fprintf(stderr, "ch39x-cpe: no room for the packet trace\n");
		return -ENOMEM;
	}
	r->trace->flag = 1ULL << bit;
	r->dp->env.trace_flag = r->trace->flag;
	return 0;
}

/* The telemetry commands, each file's. */
static int
commands(struct cpe_ctl *c)
{
	int rc = cpe_ctl_route_init(c);

	if (rc == 0)
		rc = cpe_ctl_show_init(c);
	if (rc == 0)
		rc = cpe_ctl_sim_init(c);
	if (rc == 0)
		rc = cpe_ctl_trace_init(c);
	if (rc == 0)
		rc = cpe_fw_ctl_init(c);
	if (rc == 0)
		rc = cpe_wan_ctl_init(c);
	return rc;
}

static int
setup(struct cpe_router *r)
{
	int rc;

	rc = cpe_idle_create(r);
	if (rc == 0)
		rc = cpe_ports_setup(r);
	if (rc == 0)
		rc = cpe_addr_setup(r);
	if (rc == 0)
		rc = cpe_tap_setup(r);
	if (rc == 0)
		rc = cpe_graph_setup(r);
	if (rc == 0)
		rc = trace_setup(r);
	if (rc == 0)
		rc = cpe_hotplug_init(r);
	if (rc == 0)
		rc = cpe_wan_create(r);
	if (rc == 0)
		rc = cpe_wan_mbim_setup(r);
	if (rc == 0)
		rc = commands(r->ctl);
	if (rc == 0)
		rc = cpe_gen_start(r);
	return rc;
}

int
cpe_router_run(struct cpe_opts *o)
{
	struct cpe_router *r = calloc(1, sizeof(*r));
	uint16_t i;
	int rc;

	if (r == NULL || (r->dp = calloc(1, sizeof(*r->dp))) == NULL) {
		free(r);
		return -ENOMEM;
	}
	r->o = o;
	r->dp->o = o;
	r->dp->env.hz = rte_get_tsc_hz();
	r->dp->env.now = rte_rdtsc();
	for (i = 0; i < CPE_MAX_PORTS; i++)
		r->dp->tap_fd[i] = -1;
	/* The mailbox first: its signalfd holds a signal of the setup. */
	rc = cpe_ctl_init(r);
	if (rc == 0)
		rc = setup(r);
	if (rc == 0)
		run(r);
	cpe_ctl_close(r);
	cpe_tap_close(r);
	cpe_hotplug_close(r);
	cpe_graph_close(r);
	cpe_ports_close(r);
	cpe_wan_mbim_free(r);
	cpe_wan_free(r);
	cpe_idle_free(r);
	free(r->trace);
	free(r->dp);
	free(r);
	return rc;
}
