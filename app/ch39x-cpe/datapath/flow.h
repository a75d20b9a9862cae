/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FLOW_H
#define CPE_FLOW_H

/*
 * The flow cache's nodes: flow4 and flow6 (the fast path: a hit is
 * rewritten and sent, a miss goes to the slow path with its key kept),
 * flow4_learn and flow6_learn (at the end of a packet's slow path: the
 * way it went, cached for its flow). Their tables: ftab.h.
 */

#include <stdint.h>

#include <rte_graph.h>

#include "dp.h"
#include "iface.h"

struct cpe_ftab;
struct cpe_fwdp;
struct cpe_nat;

/* flow4, flow6: what the fast path did. */
struct cpe_flow_node {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_ftab *ft;
	struct cpe_nat *nat;		/* flow4: NULL without NAT */
	struct cpe_fwdp *fw;
	bool pppoe_wan;			/* flow4: headroom asked for early */
	bool ft6_on;			/* flow4: IPv6 to flow6 */
	bool down_on;			/* the downlink is shaped */
	uint64_t hits, misses, stale;
	/* A hit's way out, per output interface (control/graph.c adds the
	 * port_tx-K edges): its port_tx, or port_out for a framing or a
	 * scheduler. */
	rte_edge_t out_edge[CPE_MAX_PORTS];
};

/* flow4_learn, flow6_learn. */
struct cpe_flow_learn {
	const struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_ftab *ft;
	struct cpe_nat *nat;
	struct cpe_fwdp *fw;
};

#endif /* CPE_FLOW_H */
