/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Statistics: per port (the router's counts and the port's own missed
 * and error counters), fast path, NAT, ARP, ICMP and drop reasons; as
 * text periodically and at exit, or as JSON at exit (--json).
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>

#include "cpe.h"

/* From gen.c, when --bench-gen runs. */
extern uint64_t cpe_gen_tx, cpe_gen_rx;

/* Tags added and removed by the PMDs and here; frames no interface took. */
static void
vlan_print(FILE *f)
{
	const struct cpe_stats *s = &cpe.st;
	uint16_t k;

	fprintf(f, "  vlan: rx_offload %" PRIu64 " rx_sw %" PRIu64
		" tx_offload %" PRIu64 " tx_sw %" PRIu64 "\n",
		s->vlan_rx_offload, s->vlan_rx_sw, s->vlan_tx_offload,
		s->vlan_tx_sw);
	for (k = 0; k < cpe.nb_phys; k++)
		fprintf(f, "  dpdk port %u: rx %" PRIu64 " vlan_unknown %"
			PRIu64 " untagged_drops %" PRIu64 " (tags: %s)\n",
			cpe.phys[k].id, s->phys[k].rx, s->phys[k].vlan_unknown,
			s->phys[k].untagged_drops, !cpe.phys[k].tagged ? "none" :
			cpe.phys[k].rx_offload && cpe.phys[k].tx_offload ?
			"offload" : "software");
}

static void
vlan_json(FILE *f)
{
	const struct cpe_stats *s = &cpe.st;
	uint16_t k;

	fprintf(f, "  \"vlan\": {\"rx_offload\": %" PRIu64 ", \"rx_sw\": %"
		PRIu64 ", \"tx_offload\": %" PRIu64 ", \"tx_sw\": %" PRIu64
		", \"phys\": [", s->vlan_rx_offload, s->vlan_rx_sw,
		s->vlan_tx_offload, s->vlan_tx_sw);
	for (k = 0; k < cpe.nb_phys; k++)
		fprintf(f, "%s\n    {\"port\": %u, \"rx\": %" PRIu64
			", \"vlan_unknown\": %" PRIu64 ", \"untagged_drops\": %"
			PRIu64 ", \"rx_offload\": %s, \"tx_offload\": %s}",
			k ? "," : "", cpe.phys[k].id, s->phys[k].rx,
			s->phys[k].vlan_unknown, s->phys[k].untagged_drops,
			cpe.phys[k].rx_offload ? "true" : "false",
			cpe.phys[k].tx_offload ? "true" : "false");
	fprintf(f, "\n  ]},\n");
}

/* IPv6 (fwd6.c, nd6.c, flow6.c): one text block, one JSON object. */
static void
print_v6(FILE *f)
{
	const struct cpe_stats6 *v = &cpe.st.v6;

	fprintf(f, "  ipv6: rx %" PRIu64 " forwarded %" PRIu64 " fast_hits %"
		PRIu64 " flows %u installs %" PRIu64 " punted %" PRIu64 " (rs %" PRIu64
		")\n", v->rx, v->fwd, v->fast_hits, cpe_flow6_count(),
		v->flow_installs, v->punted, v->rs_punted);
	fprintf(f, "  nd: neighbours %u ns_sent %" PRIu64 " na_sent %" PRIu64
		" ns_received %" PRIu64 " na_received %" PRIu64 " learned %"
		PRIu64 " changed %" PRIu64 " expired %" PRIu64 " queued %"
		PRIu64 " queue_drops %" PRIu64 " bad %" PRIu64 "\n",
		cpe_nd6_count(), v->ns_sent, v->na_sent, v->ns_rcvd,
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
json_v6(FILE *f)
{
	const struct cpe_stats6 *v = &cpe.st.v6;

	fprintf(f, "  \"ipv6\": {\"rx\": %" PRIu64 ", \"forwarded\": %"
		PRIu64 ", \"fast_hits\": %" PRIu64 ", \"flows\": %u, "
		"\"installs\": %" PRIu64 ", \"evictions\": %" PRIu64
		", \"punted\": %" PRIu64 ", \"rs_punted\": %" PRIu64 ",\n",
		v->rx, v->fwd, v->fast_hits, cpe_flow6_count(),
		v->flow_installs, v->flow_evictions, v->punted, v->rs_punted);
	fprintf(f, "    \"nd\": {\"neighbours\": %u, \"ns_sent\": %" PRIu64
		", \"na_sent\": %" PRIu64 ", \"ns_received\": %" PRIu64
		", \"na_received\": %" PRIu64 ", \"learned\": %" PRIu64
		", \"changed\": %" PRIu64 ", \"expired\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"queue_drops\": %" PRIu64
		", \"bad\": %" PRIu64 "},\n", cpe_nd6_count(), v->ns_sent,
		v->na_sent, v->ns_rcvd, v->na_rcvd, v->nd_learned,
		v->nd_changed, v->nd_expired, v->nd_queued, v->nd_queue_drops,
		v->nd_bad);
	fprintf(f, "    \"icmp\": {\"time_exceeded\": %" PRIu64
		", \"unreachable\": %" PRIu64 ", \"too_big\": %" PRIu64
		", \"echo_replies\": %" PRIu64 ", \"rate_limited\": %" PRIu64
		"},\n", v->icmp_time_exceeded, v->icmp_unreach,
		v->icmp_too_big, v->icmp_echo_replies, v->icmp_suppressed);
	fprintf(f, "    \"drops\": {\"hop_limit\": %" PRIu64
		", \"no_route\": %" PRIu64 ", \"mtu\": %" PRIu64
		", \"bad\": %" PRIu64 ", \"scope\": %" PRIu64 "}},\n",
		v->drop_hop_limit, v->drop_no_route, v->drop_mtu, v->drop_bad,
		v->drop_scope);
}

static double
cycles_per_pkt(void)
{
	return cpe.st.busy_pkts ?
		(double)cpe.st.busy_cycles / (double)cpe.st.busy_pkts : 0;
}

void
cpe_stats_print(FILE *f, bool final, double elapsed)
{
	const struct cpe_stats *s = &cpe.st;
	struct rte_eth_stats es;
	uint64_t lookups = s->fast_hits + s->fast_misses;
	char name[16];
	uint16_t i;

	fprintf(f, "ch39x-cpe: %s statistics after %.1f s (%s)\n",
		final ? "final" : "periodic", elapsed,
		cpe.o->flow_cache ? "flow cache on" : "slow path only");
	for (i = 0; i < cpe.nb_ports; i++) {
		const struct cpe_port *p = &cpe.ports[i];

		if (rte_eth_stats_get(p->id, &es) != 0)
			memset(&es, 0, sizeof(es));
		fprintf(f, "  port %s %s %u.%u.%u.%u: rx %" PRIu64 " tx %"
			PRIu64 " tx_drops %" PRIu64 " rx_missed %" PRIu64
			" rx_errors %" PRIu64 " tx_errors %" PRIu64
			" down_drops %" PRIu64 " (%s)\n",
			cpe_port_name(i, name, sizeof(name)), p->wan ? "wan" : "lan", p->ip >> 24,
			(p->ip >> 16) & 255, (p->ip >> 8) & 255, p->ip & 255,
			s->port[i].rx, s->port[i].tx, s->port[i].tx_drops,
			es.imissed, es.ierrors, es.oerrors,
			s->port[i].down_drops, cpe_hotplug_state(p->phys));
	}
	vlan_print(f);
	fprintf(f, "  fast path: hits %" PRIu64 " misses %" PRIu64
		" (hit rate %.1f %%) stale %" PRIu64 " installs %" PRIu64
		" evictions %" PRIu64 " invalidated %" PRIu64
		" down_invalidated %" PRIu64 " full %" PRIu64
		" flows %u\n", s->fast_hits, s->fast_misses,
		lookups ? 100.0 * (double)s->fast_hits / (double)lookups : 0,
		s->fast_stale, s->flow_installs, s->flow_evictions,
		s->flow_invalidated, s->flow_down_invalidated, s->flow_full,
		cpe_flow_count());
	fprintf(f, "  hotplug: down %" PRIu64 " up %" PRIu64 " removed %"
		PRIu64 " reprobes %" PRIu64 " reprobe_errors %" PRIu64
		" gave_up %" PRIu64 "\n", s->port_down_events,
		s->port_up_events, s->port_rmv_events, s->port_reprobes,
		s->port_reprobe_errors, s->port_reprobe_gave_up);
	fprintf(f, "  nat: sessions %u created %" PRIu64 " expired %" PRIu64
		" full %" PRIu64 " no_mapping %" PRIu64 " unsupported %" PRIu64
		" icmp_errors_translated %" PRIu64 " full_refused %" PRIu64,
		cpe_nat_in_use(), s->nat_created, s->nat_expired, s->nat_full,
		s->nat_no_mapping, s->nat_unsupported, s->nat_icmp_err_xlated,
		s->nat_full_refused);
	cpe_evict_print(f, s->nat_evicted, false);
	fprintf(f, "\n");
	fprintf(f, "  arp: neighbours %u requests %" PRIu64 " replies %" PRIu64
		" learned %" PRIu64 " changed %" PRIu64 " expired %" PRIu64
		" queued %" PRIu64 " queue_drops %" PRIu64 "\n",
		cpe_neigh_count(), s->arp_req_sent, s->arp_replies_sent,
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
	fprintf(f, "  ctl: commands %" PRIu64 " errors %" PRIu64
		" route_changes %" PRIu64 " neigh_changes %" PRIu64
		" fw_changes %" PRIu64 "\n", s->ctl_cmds, s->ctl_errors,
		s->ctl_route_changes, s->ctl_neigh_changes,
		s->ctl_fw_changes);
	print_v6(f);
	fprintf(f, "  control plane: punted %" PRIu64 " punt_drops %" PRIu64
		" tap_rx %" PRIu64 " tap_tx %" PRIu64 " tap_drops %" PRIu64
		"\n", s->punted, s->punt_drops, s->tap_rx, s->tap_tx,
		s->tap_drops);
	cpe_fw_print(f);
	cpe_frag_print(f);
	cpe_wan_print(f);
	cpe_qos_print(f);
	fprintf(f, "  cpu: %.1f cycles per packet in busy loops (%.1f in the "
		"router, %.1f in the PMD), generation %u\n", cycles_per_pkt(),
		s->busy_pkts ? (double)s->app_cycles / (double)s->busy_pkts : 0,
		s->busy_pkts ? (double)(s->busy_cycles - s->app_cycles) /
		(double)s->busy_pkts : 0, cpe.gen);
	cpe_idle_stats_print(f);
	if (cpe.o->gen.on)
		fprintf(f, "  bench generator: sent %" PRIu64 " received %"
			PRIu64 "\n", cpe_gen_tx, cpe_gen_rx);
	fflush(f);
}

void
cpe_stats_json(FILE *f, double elapsed)
{
	const struct cpe_stats *s = &cpe.st;
	struct rte_eth_stats es;
	uint16_t i;

	fprintf(f, "{\n  \"elapsed_s\": %.3f,\n  \"flow_cache\": %s,\n"
		"  \"ports\": [", elapsed, cpe.o->flow_cache ? "true" : "false");
	for (i = 0; i < cpe.nb_ports; i++) {
		if (rte_eth_stats_get(cpe.ports[i].id, &es) != 0)
			memset(&es, 0, sizeof(es));
		fprintf(f, "%s\n    {\"port\": %u, \"role\": \"%s\", \"rx\": %"
			PRIu64 ", \"tx\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
			", \"tx_bytes\": %" PRIu64 ", \"tx_drops\": %" PRIu64
			", \"rx_missed\": %" PRIu64 ", \"vlan\": %u"
			", \"down_drops\": %" PRIu64 ", \"state\": \"%s\"}",
			i ? "," : "",
			cpe.ports[i].id, cpe.ports[i].wan ? "wan" : "lan",
			s->port[i].rx, s->port[i].tx, s->port[i].rx_bytes,
			s->port[i].tx_bytes, s->port[i].tx_drops, es.imissed,
			cpe.ports[i].vlan, s->port[i].down_drops,
			cpe_hotplug_state(cpe.ports[i].phys));
	}
	fprintf(f, "\n  ],\n");
	vlan_json(f);
	fprintf(f, "  \"fast\": {\"hits\": %" PRIu64 ", \"misses\": %" PRIu64
		", \"stale\": %" PRIu64 ", \"installs\": %" PRIu64
		", \"evictions\": %" PRIu64 ", \"invalidated\": %" PRIu64
		", \"down_invalidated\": %" PRIu64
		", \"full\": %" PRIu64 ", \"flows\": %u},\n", s->fast_hits,
		s->fast_misses, s->fast_stale, s->flow_installs,
		s->flow_evictions, s->flow_invalidated,
		s->flow_down_invalidated, s->flow_full, cpe_flow_count());
	fprintf(f, "  \"hotplug\": {\"down\": %" PRIu64 ", \"up\": %"
		PRIu64 ", \"removed\": %" PRIu64 ", \"reprobes\": %" PRIu64
		", \"reprobe_errors\": %" PRIu64 ", \"gave_up\": %" PRIu64
		"},\n", s->port_down_events, s->port_up_events,
		s->port_rmv_events, s->port_reprobes, s->port_reprobe_errors,
		s->port_reprobe_gave_up);
	fprintf(f, "  \"nat\": {\"sessions\": %u, \"created\": %" PRIu64
		", \"expired\": %" PRIu64 ", \"full\": %" PRIu64
		", \"no_mapping\": %" PRIu64 ", \"unsupported\": %" PRIu64
		", \"icmp_errors_translated\": %" PRIu64 ", \"full_refused\": %"
		PRIu64, cpe_nat_in_use(), s->nat_created, s->nat_expired,
		s->nat_full, s->nat_no_mapping, s->nat_unsupported,
		s->nat_icmp_err_xlated, s->nat_full_refused);
	cpe_evict_print(f, s->nat_evicted, true);
	fprintf(f, "},\n");
	fprintf(f, "  \"arp\": {\"neighbours\": %u, \"requests\": %" PRIu64
		", \"replies\": %" PRIu64 ", \"learned\": %" PRIu64
		", \"changed\": %" PRIu64 ", \"expired\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"queue_drops\": %" PRIu64 "},\n",
		cpe_neigh_count(), s->arp_req_sent, s->arp_replies_sent,
		s->arp_learned, s->arp_changed, s->arp_expired,
		s->neigh_queued, s->neigh_queue_drops);
	fprintf(f, "  \"icmp\": {\"time_exceeded\": %" PRIu64
		", \"unreachable\": %" PRIu64 ", \"frag_needed\": %" PRIu64
		", \"echo_replies\": %" PRIu64 "},\n", s->icmp_ttl,
		s->icmp_unreach, s->icmp_frag_needed, s->icmp_echo_replies);
	fprintf(f, "  \"drops\": {\"ttl\": %" PRIu64 ", \"no_route\": %" PRIu64
		", \"mtu\": %" PRIu64 ", \"bad\": %" PRIu64 ", \"fragment\": %"
		PRIu64 ", \"not_ipv4\": %" PRIu64 ", \"local\": %" PRIu64
		", \"no_mbuf\": %" PRIu64 "},\n", s->drop_ttl, s->drop_no_route,
		s->drop_mtu, s->drop_bad, s->drop_frag, s->drop_not_ip,
		s->drop_local, s->drop_nomem);
	fprintf(f, "  \"ctl\": {\"commands\": %" PRIu64 ", \"errors\": %"
		PRIu64 ", \"route_changes\": %" PRIu64 ", \"neigh_changes\": %"
		PRIu64 ", \"fw_changes\": %" PRIu64 "},\n", s->ctl_cmds,
		s->ctl_errors, s->ctl_route_changes, s->ctl_neigh_changes,
		s->ctl_fw_changes);
	json_v6(f);
	fprintf(f, "  \"tap\": {\"punted\": %" PRIu64 ", \"punt_drops\": %"
		PRIu64 ", \"tap_rx\": %" PRIu64 ", \"tap_tx\": %" PRIu64
		", \"tap_drops\": %" PRIu64 "},\n", s->punted, s->punt_drops,
		s->tap_rx, s->tap_tx, s->tap_drops);
	cpe_fw_json(f);
	cpe_frag_json(f);
	cpe_wan_json(f);
	cpe_qos_json(f);
	fprintf(f, "  \"app_cycles\": %" PRIu64 ",\n  \"app_cycles_per_pkt\": "
		"%.1f,\n  \"thread_cpu_s\": %.3f,\n  \"clean_cycles_per_pkt\": %.1f,\n"
		"  \"preempted_loops\": %" PRIu64 ",\n",
		s->app_cycles,
		s->busy_pkts ? (double)s->app_cycles / (double)s->busy_pkts : 0,
		(double)s->thread_cpu_ns / 1e9, s->clean_pkts ?
		(double)s->clean_cycles / (double)s->clean_pkts : 0,
		s->preempted_loops);
	cpe_idle_stats_json(f);
	fprintf(f, "  \"slow_pkts\": %" PRIu64 ",\n  \"generation\": %u,\n"
		"  \"busy_pkts\": %" PRIu64 ",\n  \"busy_cycles\": %" PRIu64
		",\n  \"cycles_per_pkt\": %.1f,\n  \"tsc_hz\": %" PRIu64
		",\n  \"gen\": {\"tx\": %" PRIu64 ", \"rx\": %" PRIu64 "}\n}\n",
		s->slow_pkts, cpe.gen, s->busy_pkts, s->busy_cycles,
		cycles_per_pkt(), cpe.hz, cpe_gen_tx, cpe_gen_rx);
	fflush(f);
}
