/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_STATS_H
#define CPE_STATS_H

/*
 * The statistics, gathered from the nodes' and the tables' states
 * (stats.c) into the router's figures as they were named before the
 * graph (text: stats_text.c, JSON at exit: stats_json.c, /cpe/stats:
 * ctl_show.c), and per node: calls, packets and cycles of each
 * (rte_graph_cluster_stats, graph.h), in the text at exit, the JSON and
 * /cpe/stats.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "router.h"

struct cpe_port_stats {
	uint64_t rx, tx, tx_drops, rx_bytes, tx_bytes;
	uint64_t down_drops;		/* not sent: its DPDK port away */
};

/* Per DPDK port under the interfaces. */
struct cpe_phys_stats {
	uint64_t rx, vlan_unknown, untagged_drops, polls_skipped;
	uint64_t polls_held;		/* not read: a full backlog */
};

struct cpe_stats6 {
	uint64_t rx, fwd, fast_hits, flow_installs, flow_evictions;
	uint64_t ns_sent, na_sent, ns_rcvd, na_rcvd;
	uint64_t nd_learned, nd_changed, nd_expired, nd_queued, nd_queue_drops;
	uint64_t nd_bad;
	uint64_t icmp_time_exceeded, icmp_unreach, icmp_too_big;
	uint64_t icmp_echo_replies, icmp_suppressed;
	uint64_t drop_hop_limit, drop_no_route, drop_mtu, drop_bad;
	uint64_t drop_scope, punted, rs_punted;
	uint32_t flows, neighbours;
};

struct cpe_stats {
	struct cpe_port_stats port[CPE_MAX_PORTS];
	struct cpe_phys_stats phys[CPE_MAX_PHYS];
	uint64_t vlan_rx_offload, vlan_rx_sw, vlan_tx_offload, vlan_tx_sw;
	uint64_t fast_hits, fast_misses, fast_stale, flow_installs;
	uint64_t flow_evictions, flow_full, flow_invalidated;
	uint64_t flow_down_invalidated;	/* out of a port gone down */
	uint64_t slow_pkts;
	uint64_t nat_created, nat_expired, nat_full, nat_no_mapping;
	uint64_t nat_unsupported, nat_icmp_err_xlated;
	uint64_t nat_evicted[CPE_EV_NB], nat_full_refused;
	uint64_t arp_req_sent, arp_replies_sent, arp_learned, arp_changed;
	uint64_t arp_expired, neigh_queued, neigh_queue_drops;
	uint64_t icmp_ttl, icmp_unreach, icmp_frag_needed, icmp_echo_replies;
	uint64_t drop_ttl, drop_no_route, drop_mtu, drop_bad, drop_frag;
	uint64_t drop_not_ip, drop_local, drop_nomem;
	uint64_t idle_polls_skipped;	/* ports a wake-up did not name */
	uint64_t wan_no_addr;		/* to the WAN while it has no IPv4 */
	uint64_t port_down_events, port_up_events, port_rmv_events;
	uint64_t port_reprobes, port_reprobe_errors, port_reprobe_gave_up;
	uint64_t punted, punt_drops, tap_rx, tap_tx, tap_drops;
	uint64_t gen_tx, gen_rx;	/* --bench-gen */
	uint32_t flows, nat_sessions, neighbours;
	struct cpe_stats6 v6;
};

/* stats.c */
void cpe_stats_gather(struct cpe_router *r, struct cpe_stats *s);

/* stats_text.c: text periodically and at exit (final: the nodes' too). */
void cpe_stats_print(struct cpe_router *r, FILE *f, bool final,
		     double elapsed);
/* stats_json.c: JSON at exit (--json), the nodes' figures in it. */
void cpe_stats_json(struct cpe_router *r, FILE *f, double elapsed);

#endif /* CPE_STATS_H */
