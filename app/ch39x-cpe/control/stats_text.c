/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The statistics as text, periodically (--stats-interval) and at exit:
 * per port (the router's counts and the port's own missed and error
 * counters), fast path, NAT, ARP, ICMP and drop reasons, IPv6, the
 * control plane's, the firewall, fragments, the WAN, QoS, the CPU.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>

#include "fw_show.h"
#include "graph.h"
#include "hotplug.h"
#include "idle.h"
#include "qos_sched.h"
#include "stats.h"
#include "wan.h"
#include "wan_mbim.h"

static void
ports_print(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	struct rte_eth_stats es;
	char name[16];
	uint16_t i;

	for (i = 0; i < ifs->nb; i++) {
		const struct cpe_iface *p = &ifs->ifs[i];

		if (rte_eth_stats_get(p->id, &es) != 0)
			memset(&es, 0, sizeof(es));
		fprintf(f, "  port %s %s %u.%u.%u.%u: rx %" PRIu64 " tx %"
			PRIu64 " tx_drops %" PRIu64 " rx_missed %" PRIu64
			" rx_errors %" PRIu64 " tx_errors %" PRIu64
			" down_drops %" PRIu64 " (%s)\n",
			cpe_if_name(ifs, i, name, sizeof(name)),
			p->wan ? "wan" : "lan", p->ip >> 24,
			(p->ip >> 16) & 255, (p->ip >> 8) & 255, p->ip & 255,
			s->port[i].rx, s->port[i].tx, s->port[i].tx_drops,
			es.imissed, es.ierrors, es.oerrors,
			s->port[i].down_drops, cpe_hotplug_state(r, p->phys));
	}
}

/* Tags added and removed by the PMDs and here; frames no interface took. */
static void
vlan_print(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t k;

	fprintf(f, "  vlan: rx_offload %" PRIu64 " rx_sw %" PRIu64
		" tx_offload %" PRIu64 " tx_sw %" PRIu64 "\n",
		s->vlan_rx_offload, s->vlan_rx_sw, s->vlan_tx_offload,
		s->vlan_tx_sw);
	for (k = 0; k < ifs->nb_phys; k++)
		fprintf(f, "  dpdk port %u: rx %" PRIu64 " vlan_unknown %"
			PRIu64 " untagged_drops %" PRIu64 " held %" PRIu64
			" (tags: %s)\n",
			ifs->phys[k].id, s->phys[k].rx, s->phys[k].vlan_unknown,
			s->phys[k].untagged_drops, s->phys[k].polls_held,
			!ifs->phys[k].tagged ?
			"none" : ifs->phys[k].rx_offload &&
			ifs->phys[k].tx_offload ? "offload" : "software");
}

static void
fast_print(const struct cpe_stats *s, FILE *f)
{
	uint64_t lookups = s->fast_hits + s->fast_misses;

	fprintf(f, "  fast path: hits %" PRIu64 " misses %" PRIu64
		" (hit rate %.1f %%) stale %" PRIu64 " installs %" PRIu64
		" evictions %" PRIu64 " invalidated %" PRIu64
		" down_invalidated %" PRIu64 " full %" PRIu64
		" flows %u\n", s->fast_hits, s->fast_misses,
		lookups ? 100.0 * (double)s->fast_hits / (double)lookups : 0,
		s->fast_stale, s->flow_installs, s->flow_evictions,
		s->flow_invalidated, s->flow_down_invalidated, s->flow_full,
		s->flows);
	fprintf(f, "  hotplug: down %" PRIu64 " up %" PRIu64 " removed %"
		PRIu64 " reprobes %" PRIu64 " reprobe_errors %" PRIu64
		" gave_up %" PRIu64 "\n", s->port_down_events,
		s->port_up_events, s->port_rmv_events, s->port_reprobes,
		s->port_reprobe_errors, s->port_reprobe_gave_up);
}

static void
ip4_print(const struct cpe_stats *s, FILE *f)
{
	fprintf(f, "  nat: sessions %u created %" PRIu64 " expired %" PRIu64
		" full %" PRIu64 " no_mapping %" PRIu64 " unsupported %" PRIu64
		" icmp_errors_translated %" PRIu64 " full_refused %" PRIu64,
		s->nat_sessions, s->nat_created, s->nat_expired, s->nat_full,
		s->nat_no_mapping, s->nat_unsupported, s->nat_icmp_err_xlated,
		s->nat_full_refused);
	cpe_evict_print(f, s->nat_evicted, false);
	fprintf(f, "\n");
	fprintf(f, "  arp: neighbours %u requests %" PRIu64 " replies %" PRIu64
		" learned %" PRIu64 " changed %" PRIu64 " expired %" PRIu64
		" queued %" PRIu64 " queue_drops %" PRIu64 "\n",
		s->neighbours, s->arp_req_sent, s->arp_replies_sent,
		s->arp_learned, s->arp_changed, s->arp_expired,
		s->neigh_queued, s->neigh_queue_drops);
	fprintf(f, "  icmp sent: time_exceeded %" PRIu64 " unreachable %"
		PRIu64 " frag_needed %" PRIu64 " echo_replies %" PRIu64 "\n",
		s->icmp_ttl, s->icmp_unreach, s->icmp_frag_needed,
		s->icmp_echo_replies);
	fprintf(f, "  drops: ttl %" PRIu64 " no_route %" PRIu64 " mtu %" PRIu64
		" bad %" PRIu64 " fragment %" PRIu64 " not_ipv4 %" PRIu64
		" local %" PRIu64 " no_mbuf %" PRIu64 "\n", s->drop_ttl,
		s->drop_no_route, s->drop_mtu, s->drop_bad, s->drop_frag,
		s->drop_not_ip, s->drop_local, s->drop_nomem);
}

static void
ip6_print(const struct cpe_stats6 *v, FILE *f)
{
	fprintf(f, "  ipv6: rx %" PRIu64 " forwarded %" PRIu64 " fast_hits %"
		PRIu64 " flows %u installs %" PRIu64 " punted %" PRIu64
		" (rs %" PRIu64 ")\n", v->rx, v->fwd, v->fast_hits, v->flows,
		v->flow_installs, v->punted, v->rs_punted);
	fprintf(f, "  nd: neighbours %u ns_sent %" PRIu64 " na_sent %" PRIu64
		" ns_received %" PRIu64 " na_received %" PRIu64 " learned %"
		PRIu64 " changed %" PRIu64 " expired %" PRIu64 " queued %"
		PRIu64 " queue_drops %" PRIu64 " bad %" PRIu64 "\n",
		v->neighbours, v->ns_sent, v->na_sent, v->ns_rcvd,
		v->na_rcvd, v->nd_learned, v->nd_changed, v->nd_expired,
		v->nd_queued, v->nd_queue_drops, v->nd_bad);
	fprintf(f, "  icmp6 sent: time_exceeded %" PRIu64 " unreachable %"
		PRIu64 " too_big %" PRIu64 " echo_replies %" PRIu64
		" rate_limited %" PRIu64 "\n", v->icmp_time_exceeded,
		v->icmp_unreach, v->icmp_too_big, v->icmp_echo_replies,
		v->icmp_suppressed);
	fprintf(f, "  ipv6 drops: hop_limit %" PRIu64 " no_route %" PRIu64
		" mtu %" PRIu64 " bad %" PRIu64 " scope %" PRIu64 "\n",
		v->drop_hop_limit, v->drop_no_route, v->drop_mtu, v->drop_bad,
		v->drop_scope);
}

static void
ctl_print(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_loop_stats *l = &r->st;

	fprintf(f, "  ctl: commands %" PRIu64 " errors %" PRIu64
		" route_changes %" PRIu64 " neigh_changes %" PRIu64
		" fw_changes %" PRIu64 "\n", l->ctl_cmds, l->ctl_errors,
		l->ctl_route_changes, l->ctl_neigh_changes,
		l->ctl_fw_changes);
	ip6_print(&s->v6, f);
	fprintf(f, "  control plane: punted %" PRIu64 " punt_drops %" PRIu64
		" tap_rx %" PRIu64 " tap_tx %" PRIu64 " tap_drops %" PRIu64
		"\n", s->punted, s->punt_drops, s->tap_rx, s->tap_tx,
		s->tap_drops);
}

static double
per_pkt(uint64_t cycles, uint64_t pkts)
{
	return pkts ? (double)cycles / (double)pkts : 0;
}

static void
idle_print(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_loop_stats *l = &r->st;
	struct timespec t, p;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p);
	fprintf(f, "  idle (%s): sleeps %" PRIu64 " interrupt waits %" PRIu64
		" woken by frames %" PRIu64 " (polls of other ports skipped %"
		PRIu64 ") TX waits %" PRIu64 " asleep %.3f s, ports with Rx "
		"interrupts %u of %u; CPU since start: forwarding thread "
		"%.3f s, process %.3f s\n", cpe_idle_mode_name(r->o->idle),
		l->idle_sleeps, l->idle_intr_waits, l->idle_intr_wakeups,
		s->idle_polls_skipped, l->idle_tx_waits,
		(double)l->idle_cycles / (double)r->dp->env.hz,
		cpe_idle_intr_ports(r), r->dp->ifs.nb_phys,
		(double)t.tv_sec + (double)t.tv_nsec / 1e9,
		(double)p.tv_sec + (double)p.tv_nsec / 1e9);
}

/* Per node: calls, packets, cycles per packet. */
static void
node_line(void *arg, const char *name, uint64_t calls, uint64_t objs,
	  uint64_t cycles)
{
	FILE *f = arg;

	if (objs == 0)
		return;
	fprintf(f, "  node %s: calls %" PRIu64 " packets %" PRIu64
		" cycles/packet %.1f\n", name, calls, objs,
		per_pkt(cycles, objs));
}

void
cpe_stats_print(struct cpe_router *r, FILE *f, bool final, double elapsed)
{
	const struct cpe_loop_stats *l = &r->st;
	struct cpe_stats s;

	cpe_stats_gather(r, &s);
	fprintf(f, "ch39x-cpe: %s statistics after %.1f s (%s)\n",
		final ? "final" : "periodic", elapsed,
		r->o->flow_cache ? "flow cache on" : "slow path only");
	ports_print(r, &s, f);
	vlan_print(r, &s, f);
	fast_print(&s, f);
	ip4_print(&s, f);
	ctl_print(r, &s, f);
	cpe_fw_print(r, f);
	cpe_frag_print(r, f);
	cpe_wan_print(r, f);
	cpe_wan_mbim_print(r, f);
	cpe_qos_print(r->dp->qos, f);
	fprintf(f, "  cpu: %.1f cycles per packet in busy loops (%.1f in the "
		"router, %.1f in the PMD), generation %u\n",
		per_pkt(l->busy_cycles, l->busy_pkts),
		per_pkt(cpe_loop_app_cycles(l), l->busy_pkts),
		per_pkt(l->busy_cycles - cpe_loop_app_cycles(l), l->busy_pkts),
		r->dp->env.gen);
	idle_print(r, &s, f);
	if (final)
		cpe_graph_stats(r, node_line, f);
	if (r->o->gen.on)
		fprintf(f, "  bench generator: sent %" PRIu64 " received %"
			PRIu64 "\n", s.gen_tx, s.gen_rx);
	fflush(f);
}
