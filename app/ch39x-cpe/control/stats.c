/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The router's figures gathered from the nodes' and the tables' states
 * (stats.h). A node that is not in the graph (IPv6 off, no PPPoE) counts
 * nothing: its state reads as zeros.
 */

#include <string.h>

#include "fragdp.h"
#include "ftab.h"
#include "flow.h"
#include "ip4.h"
#include "ip6.h"
#include "nat.h"
#include "ntab.h"
#include "port.h"
#include "gen.h"
#include "hotplug.h"
#include "stats.h"

/* A node's state, or zeros when the graph has no such node. */
static const void *
state(const char *name)
{
	static const uint64_t zero[64];
	const void *p = cpe_node_state_of(name);

	return p != NULL ? p : zero;
}

#define ST(type, name) ((const struct type *)state(name))

/* The ports' nodes: per interface and per DPDK port. */
static void
ports(struct cpe_router *r, struct cpe_stats *s)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_port_rx *rx;
	const struct cpe_port_tx *tx;
	uint16_t k, i;

	for (k = 0; k < ifs->nb_phys; k++) {
		rx = r->rx[k];
		tx = r->tx[k];
		s->phys[k].rx = rx->rx;
		s->phys[k].vlan_unknown = rx->vlan_unknown;
		s->phys[k].untagged_drops = rx->untagged_drops;
		s->phys[k].polls_skipped = rx->polls_skipped;
		s->phys[k].polls_held = rx->polls_held;
		s->idle_polls_skipped += rx->polls_skipped;
		s->vlan_rx_offload += rx->vlan_offload;
		s->vlan_rx_sw += rx->vlan_sw;
		s->vlan_tx_offload += tx->vlan_offload;
		s->vlan_tx_sw += tx->vlan_sw;
		s->drop_bad += rx->bad;
		for (i = 0; i < ifs->nb; i++) {
			s->port[i].rx += rx->if_rx[i];
			s->port[i].rx_bytes += rx->if_rx_bytes[i];
			s->port[i].tx += tx->if_tx[i];
			s->port[i].tx_bytes += tx->if_tx_bytes[i];
			s->port[i].tx_drops += tx->if_tx_drops[i];
			s->port[i].down_drops += tx->if_down_drops[i];
		}
	}
}

static void
flows(struct cpe_router *r, struct cpe_stats *s)
{
	const struct cpe_flow_node *f4 = ST(cpe_flow_node, "flow4");
	const struct cpe_flow_node *f6 = ST(cpe_flow_node, "flow6");
	const struct cpe_ftab *t[2] = { r->dp->ftab4, r->dp->ftab6 };
	int i;

	s->fast_hits = f4->hits + f6->hits;
	s->fast_misses = f4->misses;
	s->fast_stale = f4->stale + f6->stale;
	for (i = 0; i < 2; i++) {
		if (t[i] == NULL)
			continue;
		s->flow_installs += t[i]->st.installs;
		s->flow_evictions += t[i]->st.evictions;
		s->flow_full += t[i]->st.full;
		s->flow_invalidated += t[i]->st.invalidated;
		s->flow_down_invalidated += t[i]->st.down_invalidated;
	}
	s->flows = cpe_ftab_count(r->dp->ftab4);
	s->v6.fast_hits = f6->hits;
	s->v6.flows = cpe_ftab_count(r->dp->ftab6);
	if (r->dp->ftab6 != NULL) {
		s->v6.flow_installs = r->dp->ftab6->st.installs;
		s->v6.flow_evictions = r->dp->ftab6->st.evictions;
	}
	s->slow_pkts = ST(cpe_eth_in, "eth_in")->pkts;
}

static void
nat(struct cpe_router *r, struct cpe_stats *s)
{
	const struct cpe_nat *n = r->dp->nat;

	s->nat_sessions = cpe_nat_in_use(n);
	s->nat_created = n->st.created;
	s->nat_expired = n->st.expired;
	s->nat_full = n->st.full;
	s->nat_unsupported = n->st.unsupported;
	s->nat_icmp_err_xlated = n->st.icmp_err_xlated;
	s->nat_full_refused = n->st.full_refused;
	memcpy(s->nat_evicted, n->st.evicted, sizeof(s->nat_evicted));
	s->nat_no_mapping = ST(cpe_ip4_input, "ip4_input")->nat_no_mapping +
		ST(cpe_ip4_frag, "ip4_frag")->nat_no_mapping +
		ST(cpe_nat4_out, "nat4_out")->no_mapping;
	s->wan_no_addr = ST(cpe_nat4_out, "nat4_out")->wan_no_addr;
}

static void
neighbours(struct cpe_router *r, struct cpe_stats *s)
{
	const struct cpe_ntab *a = cpe_arp_ntab(r->dp->arp);
	const struct cpe_nstats zero = { 0 };
	const struct cpe_nstats *n6 = r->dp->nd6 != NULL ?
		&cpe_nd6_ntab(r->dp->nd6)->st : &zero;
	const struct cpe_nd6_in *ni = ST(cpe_nd6_in, "nd6_in");

	s->neighbours = cpe_arp_count(r->dp->arp);
	s->arp_req_sent = a->st.probes;
	s->arp_replies_sent = ST(cpe_arp_in, "arp_in")->replies;
	s->arp_learned = a->st.learned;
	s->arp_changed = a->st.changed;
	s->arp_expired = a->st.expired;
	s->neigh_queued = a->st.queued;
	s->neigh_queue_drops = a->st.queue_drops;
	s->v6.neighbours = cpe_nd6_count(r->dp->nd6);
	s->v6.ns_sent = n6->probes;
	s->v6.na_sent = ni->na_sent;
	s->v6.ns_rcvd = ni->ns_rcvd;
	s->v6.na_rcvd = ni->na_rcvd;
	s->v6.nd_learned = n6->learned;
	s->v6.nd_changed = n6->changed;
	s->v6.nd_expired = n6->expired;
	s->v6.nd_queued = n6->queued;
	s->v6.nd_queue_drops = n6->queue_drops;
	s->v6.nd_bad = ni->bad;
	s->drop_nomem += a->st.nomem + n6->nomem + ni->nomem;
}

/* IPv4's ICMP and drops, by the nodes that decide them. */
static void
ip4(struct cpe_router *r, struct cpe_stats *s)
{
	const struct cpe_icmp4_error *ie = ST(cpe_icmp4_error, "icmp4_error");
	const struct cpe_ip4_route *rt = ST(cpe_ip4_route, "ip4_route");
	const struct cpe_ip4_frag *fr = ST(cpe_ip4_frag, "ip4_frag");
	const struct cpe_eth_in *eth = ST(cpe_eth_in, "eth_in");

	s->icmp_ttl = ie->ttl;
	s->icmp_unreach = ie->unreach;
	s->icmp_frag_needed = ie->frag_needed;
	s->icmp_echo_replies = ST(cpe_ip4_deliver, "ip4_deliver")->echo_replies;
	s->drop_ttl = rt->drop_ttl + fr->drop_ttl;
	s->drop_no_route = rt->drop_no_route +
		ST(cpe_ip4_output, "ip4_output")->no_route;
	s->drop_mtu = ST(cpe_ip4_rewrite, "ip4_rewrite")->drop_mtu +
		fr->drop_mtu;
	s->drop_bad += eth->bad + ST(cpe_ip4_input, "ip4_input")->bad +
		ST(cpe_arp_in, "arp_in")->bad;
	s->drop_frag = r->dp->frag->st.bad_off +
		ST(cpe_nat4_out, "nat4_out")->no_first;
	s->drop_not_ip = eth->not_ip;
	s->drop_nomem += ie->nomem;
}

static void
ip6(struct cpe_stats *s)
{
	const struct cpe_ip6_input *in = ST(cpe_ip6_input, "ip6_input");
	const struct cpe_ip6_route *rt = ST(cpe_ip6_route, "ip6_route");
	const struct cpe_ip6_output *out = ST(cpe_ip6_output, "ip6_output");
	const struct cpe_ip6_deliver *dl = ST(cpe_ip6_deliver, "ip6_deliver");
	const struct cpe_icmp6_error *ie = ST(cpe_icmp6_error, "icmp6_error");

	s->v6.rx = in->rx;
	s->v6.fwd = ST(cpe_ip6_rewrite, "ip6_rewrite")->fwd;
	s->v6.icmp_time_exceeded = ie->time_exceeded;
	s->v6.icmp_unreach = ie->unreach;
	s->v6.icmp_too_big = ie->too_big;
	s->v6.icmp_suppressed = ie->suppressed;
	s->v6.icmp_echo_replies = dl->echo_replies;
	s->v6.drop_hop_limit = rt->drop_hop_limit;
	s->v6.drop_no_route = rt->drop_no_route + out->drop_no_route;
	s->v6.drop_mtu = rt->drop_mtu + out->drop_mtu;
	s->v6.drop_bad = in->bad;
	s->v6.drop_scope = in->scope;
	s->v6.punted = dl->punted;
	s->v6.rs_punted = dl->rs_punted;
	s->drop_nomem += ie->nomem;
}

static void
tap(struct cpe_stats *s)
{
	const struct cpe_tap_out *o = ST(cpe_tap_out, "tap_out");
	const struct cpe_tap_in *i = ST(cpe_tap_in, "tap_in");

	s->punted = o->punted;
	s->punt_drops = o->punt_drops;
	s->drop_local = o->no_tap;
	s->tap_rx = i->rx;
	s->tap_tx = i->tx;
	s->tap_drops = i->drops;
	s->drop_nomem += i->nomem;
}

void
cpe_stats_gather(struct cpe_router *r, struct cpe_stats *s)
{
	memset(s, 0, sizeof(*s));
	ports(r, s);
	flows(r, s);
	nat(r, s);
	neighbours(r, s);
	ip4(r, s);
	ip6(s);
	tap(s);
	cpe_hotplug_counts(r, &s->port_down_events, &s->port_up_events,
			   &s->port_rmv_events, &s->port_reprobes,
			   &s->port_reprobe_errors, &s->port_reprobe_gave_up);
	cpe_gen_counts(r, &s->gen_tx, &s->gen_rx);
}
