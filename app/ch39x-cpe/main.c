/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ch39x-cpe: EAL options, "--", then the router's (opts.c).
 *
 * The options are parsed before EAL, so that --help and bad values need
 * no device, and so that a config file's vdev lines become EAL --vdev
 * arguments. Then: ports (ports.c), routes, neighbours, NAT and the flow
 * cache; the forwarding loop on the main lcore (an optional benchmark
 * generator on the next one), which also handles the ports' link and
 * removal events (hotplug.c); statistics periodically and at exit.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "cpe.h"
#include "opts.h"

struct cpe cpe;
volatile bool cpe_quit;

static void
on_signal(int sig)
{
	RTE_SET_USED(sig);
	cpe_quit = true;
	cpe_idle_kick();
}

/* Routes: connected ones from the ports, then --route. */
static int
setup_routes(void)
{
	const struct cpe_opts *o = cpe.o;
	uint32_t nh;
	uint16_t i, out;
	int rc;

	rc = cpe_route_init();
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: cannot create the route table: "
			"%s\n", rte_strerror(rte_errno));
		return rc;
	}
	for (i = 0; i < cpe.nb_ports; i++) {
		const struct cpe_port *p = &cpe.ports[i];

		if (p->ip == 0)
			continue;	/* an IPv6-only port */
		rc = cpe_route_add(p->ip & p->mask, o->ports[i].plen, 0, i);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: port %u: cannot add its "
				"connected route: %s\n", p->id, rte_strerror(-rc));
			return rc;
		}
	}
	for (i = 0; i < o->nb_routes; i++) {
		const struct cpe_route_cfg *r = &o->routes[i];

		/* The gateway must be on a connected subnet. */
		if (cpe_route_lookup(r->gw, &out, &nh) != 0 || nh != r->gw) {
			fprintf(stderr, "ch39x-cpe: --route %u.%u.%u.%u/%u,"
				"%u.%u.%u.%u: the gateway is on no port's "
				"subnet; allowed gateways are addresses of the "
				"--lan/--wan subnets\n", r->prefix >> 24,
				(r->prefix >> 16) & 255, (r->prefix >> 8) & 255,
				r->prefix & 255, r->plen, r->gw >> 24,
				(r->gw >> 16) & 255, (r->gw >> 8) & 255,
				r->gw & 255);
			return -EINVAL;
		}
		rc = cpe_route_add(r->prefix, r->plen, r->gw, out);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: --route: cannot add route "
				"%u of %u: %s\n", i + 1, o->nb_routes,
				rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void
forward(void)
{
	const struct cpe_opts *o = cpe.o;
	struct rte_mbuf *pkts[CPE_BURST];
	uint64_t start = rte_rdtsc(), next_stats, next_hk, end, t0, t1;
	uint64_t last_hk, ms;
	uint32_t got, j;
	uint16_t i, n;

	end = o->duration > 0 ? start + (uint64_t)(o->duration * cpe.hz) :
		UINT64_MAX;
	next_stats = o->stats_interval > 0 ?
		start + (uint64_t)(o->stats_interval * cpe.hz) : UINT64_MAX;
	next_hk = start;
	last_hk = start - cpe.hz / 1000;
	cpe_idle_init();
	/* What Linux writes to a TAP ends an interrupt wait too. */
	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe_tap_fd(i) >= 0 && cpe_idle_watch_fd(cpe_tap_fd(i)) != 0)
			fprintf(stderr, "ch39x-cpe: TAP of port %u: not in the "
				"idle wait; Linux's frames wait for the next "
				"wake-up (at most 1 s)\n", cpe.ports[i].id);
	while (!cpe_quit) {
		t0 = rte_rdtsc();
		cpe.now = t0;
		got = 0;
		for (i = 0; i < cpe.nb_ports; i++) {
			/* Each DPDK port polled once, sorted by VLAN. */
			n = cpe_vlan_rx(i, pkts, CPE_BURST);
			if (n == 0)
				continue;
			got += n;
			cpe.st.port[i].rx += n;
			for (j = 0; j < n; j++)
				cpe.st.port[i].rx_bytes +=
					rte_pktmbuf_pkt_len(pkts[j]);
			t1 = rte_rdtsc();
			cpe.down_in = cpe_qos_down_on && i == cpe.wan;
			if (o->flow_cache) {
				cpe_flow_input(i, pkts, n);
			} else {
				for (j = 0; j < n; j++)
					cpe_slow_input(i, pkts[j]);
			}
			/* The router's own work, without the PMD's bursts. */
			cpe.st.app_cycles += rte_rdtsc() - t1;
		}
		/* Linux's frames (TAP) and timers' are the router's own. */
		cpe.down_in = false;
		cpe_tap_poll();
		cpe_tx_flush();
		cpe.st.loops++;
		if (got) {
			/* The cost per packet of loops that had work. */
			t1 = rte_rdtsc() - t0;
			cpe.st.busy_cycles += t1;
			cpe.st.busy_pkts += got;
			/*
			 * A loop longer than 50 us was preempted (by the
			 * simulated adapters' threads on a small machine):
			 * the clean figure leaves those out.
			 */
			if (t1 < cpe.hz / 20000) {
				cpe.st.clean_cycles += t1;
				cpe.st.clean_pkts += got;
			} else {
				cpe.st.preempted_loops++;
			}
		}
		if (t0 >= next_hk) {
			/* Every millisecond a slice: no pause of the loop. */
			next_hk = t0 + cpe.hz / 1000;
			/*
			 * Aging for the milliseconds since the last pass: it
			 * keeps its pace when --idle slept through several.
			 */
			ms = RTE_MIN((t0 - last_hk) / (cpe.hz / 1000),
				     (uint64_t)CPE_AGE_PASS_MS);
			ms = RTE_MAX(ms, 1u);
			cpe_flow_age((uint32_t)ms);
			cpe_flow6_age((uint32_t)ms);
			/*
			 * Sessions and the firewall's states wait for a WAN
			 * that is away (hotplug.c).
			 */
			if (cpe.wan < 0 ||
			    !cpe.phys[cpe.ports[cpe.wan].phys].down) {
				cpe_nat_age((uint32_t)ms);
				cpe_fw_age_ms((uint32_t)ms);
				cpe_frag_age_ms((uint32_t)ms);
			}
			cpe_hotplug_poll();
			cpe_ctl_poll();
			if ((t0 / (cpe.hz / 4)) != (last_hk / (cpe.hz / 4))) {
				cpe_neigh_age();
				cpe_nd6_age();
				cpe_wan6_age();
			}
			last_hk = t0;
		}
		if (t0 >= next_stats) {
			next_stats += (uint64_t)(o->stats_interval * cpe.hz);
			cpe_stats_print(stdout, false,
					(double)(t0 - start) / (double)cpe.hz);
		}
		if (t0 >= end)
			break;
		cpe_idle(got, RTE_MIN(next_stats, end));
	}
}

/* EAL's argument array and the config file's vdev copies, at exit. */
static void
free_args(char **eal_argv, struct cpe_opts *o)
{
	cpe_opts_free(o);
	free(eal_argv);
}

int
main(int argc, char **argv)
{
	static struct cpe_opts opts;
	char **eal_argv, *dashes;
	int sep, rc, eal_argc, i;
	struct timespec c0, c1, p0, p1;
	uint64_t t_start;
	double elapsed;

	for (sep = 1; sep < argc; sep++)
		if (strcmp(argv[sep], "--") == 0)
			break;
	if (sep == argc && argc > 1 && (strcmp(argv[1], "--help") == 0 ||
					strcmp(argv[1], "-h") == 0)) {
		cpe_usage(stdout, argv[0]);
		return 0;
	}
	if (sep < argc) {
		dashes = argv[sep];
		argv[sep] = argv[0];
		rc = cpe_opts_parse(argc - sep, argv + sep, &opts);
		argv[sep] = dashes;
	} else {
		rc = cpe_opts_parse(1, argv, &opts);
	}
	if (rc == 1) {
		cpe_usage(stdout, argv[0]);
		return 0;
	}
	if (rc == 2) {
		cpe_opts_rst(stdout);
		return 0;
	}
	if (rc != 0)
		return 2;
	cpe.o = &opts;

	/* EAL's arguments, then the config file's vdev lines. */
	eal_argv = calloc((size_t)sep + 2u * opts.nb_vdevs + 1, sizeof(char *));
	if (eal_argv == NULL)
		return 1;
	for (eal_argc = 0; eal_argc < sep; eal_argc++)
		eal_argv[eal_argc] = argv[eal_argc];
	for (i = 0; i < opts.nb_vdevs; i++) {
		eal_argv[eal_argc++] = (char *)(uintptr_t)"--vdev";
		eal_argv[eal_argc++] = opts.vdevs[i];
	}
	rte_openlog_stream(stderr);
	rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0) {
		fprintf(stderr, "ch39x-cpe: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		free_args(eal_argv, &opts);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	cpe.hz = rte_get_tsc_hz();
	cpe.now = rte_rdtsc();

	rc = cpe_ports_setup();
	if (rc == 0)
		rc = cpe_qos_init();
	if (rc == 0)
		rc = setup_routes();
	if (rc == 0)
		rc = cpe_neigh_init();
	if (rc == 0)
		rc = cpe_ip6_setup();	/* addresses, routes, ND, IPv6 flows */
	if (rc == 0 && (rc = cpe_nat_init()) != 0)
		fprintf(stderr, "ch39x-cpe: --nat-sessions %u: cannot create "
			"the NAT tables: %s; give EAL more memory (-m)\n",
			opts.nat_sessions, rte_strerror(-rc));
	if (rc == 0)
		rc = cpe_nat_forward_setup();
	if (rc == 0 && opts.flow_cache && (rc = cpe_flow_init()) != 0)
		fprintf(stderr, "ch39x-cpe: --flow-entries %u: cannot create "
			"the flow cache: %s; give EAL more memory (-m)\n",
			opts.flow_entries, rte_strerror(-rc));
	if (rc == 0)
		rc = cpe_hotplug_init();
	if (rc == 0)
		rc = cpe_fw_setup();
	if (rc == 0)
		rc = cpe_frag_setup();
	if (rc == 0)
		rc = cpe_ctl_init();
	if (rc == 0)
		rc = cpe_tap_init();
	if (rc == 0)
		rc = cpe_gen_start();
	if (rc == 0) {
		fprintf(stderr, "ch39x-cpe: forwarding on %u ports (%s, "
			"idle %s)\n", cpe.nb_ports, opts.flow_cache ?
			"flow cache on" : "slow path only",
			cpe_idle_mode_name(opts.idle));
		t_start = rte_rdtsc();
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p0);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
		forward();
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p1);
		/* All threads: EAL's (link polling) and the generator's. */
		cpe.st.process_cpu_ns = (uint64_t)(p1.tv_sec - p0.tv_sec) *
			1000000000u + (uint64_t)p1.tv_nsec -
			(uint64_t)p0.tv_nsec;
		elapsed = (double)(rte_rdtsc() - t_start) / (double)cpe.hz;
		/* CPU time of the forwarding thread: pps per core. */
		cpe.st.thread_cpu_ns = (uint64_t)(c1.tv_sec - c0.tv_sec) *
			1000000000u + (uint64_t)c1.tv_nsec -
			(uint64_t)c0.tv_nsec;
		cpe_gen_stop();
		if (opts.json)
			cpe_stats_json(stdout, elapsed);
		else
			cpe_stats_print(stdout, true, elapsed);
	}
	cpe_tap_close();
	cpe_fw_close();
	cpe_frag_close();
	cpe_hotplug_close();
	cpe_ports_close();
	rte_eal_cleanup();
	free_args(eal_argv, &opts);
	return rc == 0 ? 0 : 1;
}
