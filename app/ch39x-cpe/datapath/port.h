/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_PORT_H
#define CPE_PORT_H

/*
 * The ports' nodes: what comes in (port_rx, one a DPDK port: its RX
 * burst, sorted into interfaces by VLAN), the framings that follow
 * (pppoe_in; out: pppoe_out), the way out (port_out picks an interface's
 * first step: its framing, its scheduler or its port), the schedulers
 * (qos, qos_tx) and what goes (port_tx, one a DPDK port: tags, queues,
 * bursts). A WAN's framing is a step of its own on each side, chosen per
 * interface when the graph is made: Ethernet (none), PPPoE now; raw IP
 * with a fixed peer (a modem's MBIM session) is another such pair.
 *
 * Their states, which the control plane reads (statistics) and changes
 * (a port that goes down, a re-probe) between two walks.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_graph.h>
#include <rte_mbuf.h>

#include "dp.h"
#include "iface.h"

struct cpe_fwdp;
struct cpe_ntab;

/* port_rx-K: one DPDK port's input. */
struct cpe_port_rx {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	uint16_t k;			/* phys index */
	uint16_t only;			/* its one untagged interface, or
					 * CPE_NO_IF */
	/* By interface: its framing's input node, else flow4 (eth_in
	 * without the flow cache). */
	rte_edge_t in_edge[CPE_MAX_PORTS];
	uint64_t rx;			/* frames of the port */
	uint64_t vlan_unknown;		/* a VLAN no interface has */
	uint64_t untagged_drops;	/* untagged, no untagged interface */
	uint64_t bad;			/* too short for its tag */
	uint64_t vlan_offload, vlan_sw;	/* tags the PMD, the node removed */
	uint64_t polls_skipped;		/* idle: a wake-up did not name it */
	uint64_t polls_held;		/* a full backlog holds its frames */
	uint64_t hold_since;		/* TSC of the hold's start, 0: none */
	uint64_t if_rx[CPE_MAX_PORTS], if_rx_bytes[CPE_MAX_PORTS];
};

/* port_tx-K: one DPDK port's output and its backlog. */
struct cpe_port_tx {
	struct cpe_env *env;
	struct cpe_ifaces *ifs;
	uint16_t k;
	bool tag;			/* some interface of it is tagged */
	uint16_t only;			/* its one untagged interface, or
					 * CPE_NO_IF */
	uint64_t vlan_offload, vlan_sw;	/* tags the PMD, the node inserted */
	uint64_t if_tx[CPE_MAX_PORTS], if_tx_bytes[CPE_MAX_PORTS];
	uint64_t if_tx_drops[CPE_MAX_PORTS];	/* backlog full */
	uint64_t if_down_drops[CPE_MAX_PORTS];	/* the port away */
	uint16_t nb;			/* the backlog: not taken by the PMD */
	struct rte_mbuf *q[CPE_TXQ];
	uint32_t len[CPE_TXQ];
	uint8_t ifx[CPE_TXQ];		/* their interfaces */
};

/* A port_tx's backlog to the PMD again (each loop: the PMD's queue may
 * have room now). */
void cpe_port_tx_retry(struct cpe_port_tx *t);
/* Its port went down: the backlog dropped, counted. */
void cpe_port_tx_drop(struct cpe_port_tx *t);

/* tap_out: to Linux; tap_in: from Linux (control/tap.c opens the TAPs). */
struct cpe_tap_out {
	const struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_pppoe_state *pppoe;
	const int *fd;			/* by interface, -1: none */
	uint64_t punted, punt_drops, no_tap;
};

struct cpe_tap_in {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_pppoe_state *pppoe;
	struct cpe_fwdp *fw;
	const int *fd;
	bool any;			/* some interface has a TAP */
	uint64_t next_poll;		/* TSC */
	uint64_t rx, tx, drops, nomem;
	/* One frame from Linux, up to the largest MTU the TAP takes. */
	uint8_t buf[65536];
};

/*
 * inject: a source node that puts what the control plane makes (the
 * neighbour tables' probes as they age, packets a static neighbour lets
 * go) on the way out, at the next walk.
 */
#define CPE_INJECT_MAX		(2 * CPE_NEIGH_ENTRIES)

struct cpe_inject {
	struct cpe_env *env;
	struct cpe_ntab *ntab[2];	/* ARP's and ND's out lists, drained */
	struct cpe_fragdp *frag;	/* its held later fragments, handed back */
	uint16_t nb;
	uint64_t drops;			/* the queue full */
	struct rte_mbuf *q[CPE_INJECT_MAX];
};

/* m (its output interface in m->hash.usr) out at the next walk. */
void cpe_inject_put(struct cpe_inject *in, struct rte_mbuf *m);

/* drop-<reason>: what was dropped and why (a clone of drop each). */
struct cpe_drop {
	struct cpe_env *env;
	uint64_t pkts;
};

/* The drop nodes made (control/graph.c clones drop once each). */
#define CPE_DROP_REASONS(X) \
	X(bad) X(not_ip) X(vlan) X(ttl) X(no_route) X(mtu) X(frag) X(fw) \
	X(nat) X(wan_no_addr) X(scope) X(neigh) X(pppoe) X(down) X(txq) \
	X(nomem) X(synflood)

#endif /* CPE_PORT_H */
