/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The statistics as JSON at exit (--json): stats.h. */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
ports_json(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	struct rte_eth_stats es;
	uint16_t i;

	fprintf(f, "  \"ports\": [");
	for (i = 0; i < ifs->nb; i++) {
		if (rte_eth_stats_get(ifs->ifs[i].id, &es) != 0)
			memset(&es, 0, sizeof(es));
		fprintf(f, "%s\n    {\"port\": %u, \"role\": \"%s\", \"rx\": %"
			PRIu64 ", \"tx\": %" PRIu64 ", \"rx_bytes\": %" PRIu64
			", \"tx_bytes\": %" PRIu64 ", \"tx_drops\": %" PRIu64
			", \"rx_missed\": %" PRIu64 ", \"vlan\": %u"
			", \"down_drops\": %" PRIu64 ", \"state\": \"%s\"}",
			i ? "," : "", ifs->ifs[i].id,
			ifs->ifs[i].wan ? "wan" : "lan", s->port[i].rx,
			s->port[i].tx, s->port[i].rx_bytes, s->port[i].tx_bytes,
			s->port[i].tx_drops, es.imissed, ifs->ifs[i].vlan,
			s->port[i].down_drops,
			cpe_hotplug_state(r, ifs->ifs[i].phys));
	}
	fprintf(f, "\n  ],\n");
}

/*
 * The PMD's extended statistics of each port that are not zero: what a
 * port did per USB transfer (frames per transfer, transfers refused for
 * want of a free one, ...), the evidence behind a rate.
 */
static void
xstats_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	struct rte_eth_xstat_name *nm;
	struct rte_eth_xstat *xs;
	int n, k, j, c, np = 0;
	uint16_t i;

	fprintf(f, "  \"xstats\": {");
	for (i = 0; i < ifs->nb; i++) {
		n = rte_eth_xstats_get(ifs->ifs[i].id, NULL, 0);
		if (n <= 0)
			continue;
		xs = calloc((size_t)n, sizeof(*xs));
		nm = calloc((size_t)n, sizeof(*nm));
		k = xs && nm ? rte_eth_xstats_get(ifs->ifs[i].id, xs, n) : -1;
		if (k > n || (k > 0 && rte_eth_xstats_get_names(ifs->ifs[i].id,
							      nm, n) != n))
			k = -1;
		fprintf(f, "%s\n    \"%u\": {", np++ ? "," : "",
			ifs->ifs[i].id);
		for (j = 0, c = 0; j < k; j++)
			if (xs[j].value != 0 && xs[j].id < (uint64_t)n)
				fprintf(f, "%s\"%s\": %" PRIu64, c++ ? ", " : "",
					nm[xs[j].id].name, xs[j].value);
		fprintf(f, "}");
		free(xs);
		free(nm);
	}
	fprintf(f, "\n  },\n");
}

static void
vlan_json(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t k;

	fprintf(f, "  \"vlan\": {\"rx_offload\": %" PRIu64 ", \"rx_sw\": %"
		PRIu64 ", \"tx_offload\": %" PRIu64 ", \"tx_sw\": %" PRIu64
		", \"phys\": [", s->vlan_rx_offload, s->vlan_rx_sw,
		s->vlan_tx_offload, s->vlan_tx_sw);
	for (k = 0; k < ifs->nb_phys; k++)
		fprintf(f, "%s\n    {\"port\": %u, \"rx\": %" PRIu64
			", \"vlan_unknown\": %" PRIu64 ", \"untagged_drops\": %"
			PRIu64 ", \"rx_held\": %" PRIu64 ", \"rx_offload\": %s, "
			"\"tx_offload\": %s}",
			k ? "," : "", ifs->phys[k].id, s->phys[k].rx,
			s->phys[k].vlan_unknown, s->phys[k].untagged_drops,
			s->phys[k].polls_held,
			ifs->phys[k].rx_offload ? "true" : "false",
			ifs->phys[k].tx_offload ? "true" : "false");
	fprintf(f, "\n  ]},\n");
}

static void
fast_json(const struct cpe_stats *s, FILE *f)
{
	fprintf(f, "  \"fast\": {\"hits\": %" PRIu64 ", \"misses\": %" PRIu64
		", \"stale\": %" PRIu64 ", \"installs\": %" PRIu64
		", \"evictions\": %" PRIu64 ", \"invalidated\": %" PRIu64
		", \"down_invalidated\": %" PRIu64
		", \"full\": %" PRIu64 ", \"flows\": %u},\n", s->fast_hits,
		s->fast_misses, s->fast_stale, s->flow_installs,
		s->flow_evictions, s->flow_invalidated,
		s->flow_down_invalidated, s->flow_full, s->flows);
	fprintf(f, "  \"hotplug\": {\"down\": %" PRIu64 ", \"up\": %"
		PRIu64 ", \"removed\": %" PRIu64 ", \"reprobes\": %" PRIu64
		", \"reprobe_errors\": %" PRIu64 ", \"gave_up\": %" PRIu64
		"},\n", s->port_down_events, s->port_up_events,
		s->port_rmv_events, s->port_reprobes, s->port_reprobe_errors,
		s->port_reprobe_gave_up);
}

static void
ip4_json(const struct cpe_stats *s, FILE *f)
{
	fprintf(f, "  \"nat\": {\"sessions\": %u, \"created\": %" PRIu64
		", \"expired\": %" PRIu64 ", \"full\": %" PRIu64
		", \"no_mapping\": %" PRIu64 ", \"unsupported\": %" PRIu64
		", \"icmp_errors_translated\": %" PRIu64 ", \"full_refused\": %"
		PRIu64, s->nat_sessions, s->nat_created, s->nat_expired,
		s->nat_full, s->nat_no_mapping, s->nat_unsupported,
		s->nat_icmp_err_xlated, s->nat_full_refused);
	cpe_evict_print(f, s->nat_evicted, true);
	fprintf(f, "},\n");
	fprintf(f, "  \"arp\": {\"neighbours\": %u, \"requests\": %" PRIu64
		", \"replies\": %" PRIu64 ", \"learned\": %" PRIu64
		", \"changed\": %" PRIu64 ", \"expired\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"queue_drops\": %" PRIu64 "},\n",
		s->neighbours, s->arp_req_sent, s->arp_replies_sent,
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
}

static void
ip6_json(const struct cpe_stats6 *v, FILE *f)
{
	fprintf(f, "  \"ipv6\": {\"rx\": %" PRIu64 ", \"forwarded\": %"
		PRIu64 ", \"fast_hits\": %" PRIu64 ", \"flows\": %u, "
		"\"installs\": %" PRIu64 ", \"evictions\": %" PRIu64
		", \"punted\": %" PRIu64 ", \"rs_punted\": %" PRIu64 ",\n",
		v->rx, v->fwd, v->fast_hits, v->flows, v->flow_installs,
		v->flow_evictions, v->punted, v->rs_punted);
	fprintf(f, "    \"nd\": {\"neighbours\": %u, \"ns_sent\": %" PRIu64
		", \"na_sent\": %" PRIu64 ", \"ns_received\": %" PRIu64
		", \"na_received\": %" PRIu64 ", \"learned\": %" PRIu64
		", \"changed\": %" PRIu64 ", \"expired\": %" PRIu64
		", \"queued\": %" PRIu64 ", \"queue_drops\": %" PRIu64
		", \"bad\": %" PRIu64 "},\n", v->neighbours, v->ns_sent,
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

static void
ctl_json(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_loop_stats *l = &r->st;

	fprintf(f, "  \"ctl\": {\"commands\": %" PRIu64 ", \"errors\": %"
		PRIu64 ", \"route_changes\": %" PRIu64 ", \"neigh_changes\": %"
		PRIu64 ", \"fw_changes\": %" PRIu64 "},\n", l->ctl_cmds,
		l->ctl_errors, l->ctl_route_changes, l->ctl_neigh_changes,
		l->ctl_fw_changes);
	ip6_json(&s->v6, f);
	fprintf(f, "  \"tap\": {\"punted\": %" PRIu64 ", \"punt_drops\": %"
		PRIu64 ", \"tap_rx\": %" PRIu64 ", \"tap_tx\": %" PRIu64
		", \"tap_drops\": %" PRIu64 "},\n", s->punted, s->punt_drops,
		s->tap_rx, s->tap_tx, s->tap_drops);
}

static double
per_pkt(uint64_t cycles, uint64_t pkts)
{
	return pkts ? (double)cycles / (double)pkts : 0;
}

static void
cpu_json(struct cpe_router *r, const struct cpe_stats *s, FILE *f)
{
	const struct cpe_loop_stats *l = &r->st;
	uint64_t app = cpe_loop_app_cycles(l);

	fprintf(f, "  \"app_cycles\": %" PRIu64 ",\n  \"app_cycles_per_pkt\": "
		"%.1f,\n  \"thread_cpu_s\": %.3f,\n  \"clean_cycles_per_pkt\": "
		"%.1f,\n  \"preempted_loops\": %" PRIu64 ",\n", app,
		per_pkt(app, l->busy_pkts),
		(double)l->thread_cpu_ns / 1e9,
		per_pkt(l->clean_cycles, l->clean_pkts), l->preempted_loops);
	fprintf(f, "  \"idle\": {\"mode\": \"%s\", \"sleeps\": %" PRIu64
		", \"intr_waits\": %" PRIu64 ", \"intr_wakeups\": %" PRIu64
		", \"polls_skipped\": %" PRIu64 ", \"tx_waits\": %" PRIu64
		", \"asleep_s\": %.3f, \"intr_ports\": %u},\n"
		"  \"process_cpu_s\": %.3f,\n",
		cpe_idle_mode_name(r->o->idle), l->idle_sleeps,
		l->idle_intr_waits, l->idle_intr_wakeups,
		s->idle_polls_skipped, l->idle_tx_waits,
		(double)l->idle_cycles / (double)r->dp->env.hz,
		cpe_idle_intr_ports(r), (double)l->process_cpu_ns / 1e9);
}

struct nodes_ctx {
	FILE *f;
	bool first;
};

static void
node_json(void *arg, const char *name, uint64_t calls, uint64_t objs,
	  uint64_t cycles)
{
	struct nodes_ctx *c = arg;

	fprintf(c->f, "%s\n    \"%s\": {\"calls\": %" PRIu64 ", \"packets\": %"
		PRIu64 ", \"cycles\": %" PRIu64 "}", c->first ? "" : ",",
		name, calls, objs, cycles);
	c->first = false;
}

static void
nodes_json(struct cpe_router *r, FILE *f)
{
	struct nodes_ctx c = { .f = f, .first = true };

	fprintf(f, "  \"nodes\": {");
	cpe_graph_stats(r, node_json, &c);
	fprintf(f, "\n  },\n");
}

void
cpe_stats_json(struct cpe_router *r, FILE *f, double elapsed)
{
	const struct cpe_loop_stats *l = &r->st;
	struct cpe_stats s;

	cpe_stats_gather(r, &s);
	fprintf(f, "{\n  \"elapsed_s\": %.3f,\n  \"flow_cache\": %s,\n",
		elapsed, r->o->flow_cache ? "true" : "false");
	ports_json(r, &s, f);
	xstats_json(r, f);
	vlan_json(r, &s, f);
	fast_json(&s, f);
	ip4_json(&s, f);
	ctl_json(r, &s, f);
	cpe_fw_json(r, f);
	cpe_frag_json(r, f);
	cpe_wan_json(r, f);
	cpe_wan_mbim_json(r, f);
	cpe_qos_json(r->dp->qos, f);
	cpu_json(r, &s, f);
	nodes_json(r, f);
	fprintf(f, "  \"slow_pkts\": %" PRIu64 ",\n  \"generation\": %u,\n"
		"  \"busy_pkts\": %" PRIu64 ",\n  \"busy_cycles\": %" PRIu64
		",\n  \"cycles_per_pkt\": %.1f,\n  \"tsc_hz\": %" PRIu64
		",\n  \"gen\": {\"tx\": %" PRIu64 ", \"rx\": %" PRIu64 "}\n}\n",
		s.slow_pkts, r->dp->env.gen, l->busy_pkts, l->busy_cycles,
		per_pkt(l->busy_cycles, l->busy_pkts), r->dp->env.hz,
		s.gen_tx, s.gen_rx);
	fflush(f);
}
