/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * port_rx-K: DPDK port K's RX burst (a source: every walk), its frames
 * sorted into the router's interfaces by VLAN (802.1Q sub-interfaces: a
 * router interface is a DPDK port and a VLAN id, 0 its untagged frames).
 * Tags are removed here: by the PMD where it offers VLAN_STRIP (and
 * --no-vlan-offload is not given), else in software. An interface's IP
 * MTU excludes the tag: frames are 4 bytes longer on the cable. A frame
 * goes on with its interface in m->port: to its framing's input node
 * (pppoe_in), or to the flow cache (flow4; eth_in without one).
 *
 * Back-pressure: while a port's backlog that this port's frames went to
 * has no room for a burst (cpe_phys_tx_full(): its device drains slower
 * than this one brings), this port is not read. Its frames wait in the
 * device and the kernel, where a flood is dropped for free, instead of
 * being read, routed and dropped at the full backlog, and the CPU that
 * would cost is left to whatever drains (with a USB device emulated or
 * served on the same cores, that is the far side). A held port is read
 * at least every HOLD_MAX_US all the same: its traffic to other ports
 * and to Linux moves, slowly, while a stuck device's backlog stays full.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "dpconf.h"
#include "port.h"
#include "trace.h"

#define VID_MASK	0x0fff
#define HOLD_MAX_US	1000u

enum {
	PORT_RX_FLOW4,
	PORT_RX_ETH,
	PORT_RX_DROP_VLAN,
	PORT_RX_DROP_BAD,
	PORT_RX_NB		/* then the framings' input nodes (graph.c) */
};

/* A tag the PMD did not strip, removed: the interface, or CPE_VLAN_NONE
 * (bad: too short for the tag). */
static uint16_t
untag_sw(struct cpe_port_rx *c, const struct cpe_phys *ph, struct rte_mbuf *m,
	 uint16_t *vid, bool *bad)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	const struct rte_vlan_hdr *vh;
	uint16_t to;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN ||
	    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN))
		return ph->vid_if[0];
	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*vh)) {
		*bad = true;
		return CPE_VLAN_NONE;
	}
	vh = (const struct rte_vlan_hdr *)(eh + 1);
	*vid = rte_be_to_cpu_16(vh->vlan_tci) & VID_MASK;
	to = ph->vid_if[*vid];
	if (to != CPE_VLAN_NONE) {
		/* The addresses move over the tag. */
		memmove((uint8_t *)eh + sizeof(*vh), eh,
			2 * RTE_ETHER_ADDR_LEN);
		rte_pktmbuf_adj(m, sizeof(*vh));
		c->vlan_sw++;
	}
	return to;
}

/* The interface of a received frame, its tag removed, and its edge. */
static __rte_always_inline uint16_t
classify(struct cpe_port_rx *c, const struct cpe_phys *ph,
	 struct rte_mbuf *m)
{
	uint16_t vid = 0, to;
	bool bad = false;

	if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {
		vid = m->vlan_tci & VID_MASK;
		to = ph->vid_if[vid];
		if (to != CPE_VLAN_NONE)
			c->vlan_offload++;
	} else {
		to = untag_sw(c, ph, m, &vid, &bad);
	}
	if (unlikely(to == CPE_VLAN_NONE)) {
		if (bad) {
			c->bad++;
			return PORT_RX_DROP_BAD;
		}
		/* VLAN 0 (priority tag) belongs to the untagged interface. */
		if (vid != 0)
			c->vlan_unknown++;
		else
			c->untagged_drops++;
		return PORT_RX_DROP_VLAN;
	}
	m->port = to;
	c->if_rx[to]++;
	c->if_rx_bytes[to] += rte_pktmbuf_pkt_len(m);
	if (unlikely(c->env->trace != NULL))
		cpe_trace_mark(c->env, m);
	return c->in_edge[to];
}

/*
 * A port of one untagged interface (c->only) whose burst has no tag, no
 * runt and no trace: the burst to that interface at once; false, and
 * nothing done, otherwise.
 */
static __rte_always_inline bool
all_plain(struct rte_graph *g, struct rte_node *node, struct cpe_port_rx *c,
	  uint16_t n)
{
	void **objs = node->objs;
	const uint16_t vlan_be = rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN);
	const struct rte_ether_hdr *eh;
	struct rte_mbuf *m;
	uint64_t bytes = 0;
	uint16_t i;

	if (unlikely(c->env->trace != NULL))
		return false;
	for (i = 0; i < n; i++) {
		m = objs[i];
		eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		if (unlikely((m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) ||
			     rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN ||
			     eh->ether_type == vlan_be))
			return false;
		bytes += rte_pktmbuf_pkt_len(m);
		/* (classify() sets it again if the burst goes that way.) */
		m->port = c->only;
	}
	c->if_rx[c->only] += n;
	c->if_rx_bytes[c->only] += bytes;
	rte_node_next_stream_move(g, node, c->in_edge[c->only]);
	return true;
}

/*
 * The frames of a burst to their interfaces and on. Not inlined: the
 * router's work on what it received, apart from the polls (which
 * scripts/bench/cpe_instr.sh leaves out, as the PMD's RX).
 */
static __rte_noinline void
port_rx_got(struct rte_graph *g, struct rte_node *node,
	    struct cpe_port_rx *c, uint16_t n)
{
	const struct cpe_phys *ph = &c->ifs->phys[c->k];
	uint16_t next[CPE_BURST], i;

	node->idx = n;
	c->env->walk_rx += n;
	c->rx += n;
	if (likely(c->only != CPE_NO_IF) && all_plain(g, node, c, n))
		return;
	for (i = 0; i < n; i++)
		next[i] = classify(c, ph, node->objs[i]);
	cpe_enqueue(g, node, c->env, node->objs, next, n);
}

/* Whether a full backlog holds this port's frames back now (counted). */
static bool
held(struct cpe_port_rx *c)
{
	const struct cpe_ifaces *ifs = c->ifs;
	uint64_t now;
	uint16_t j;

	for (j = 0; j < ifs->nb_phys; j++)
		if (cpe_phys_tx_full(&ifs->phys[j]) &&
		    ((ifs->phys[j].tx_from >> c->k) & 1))
			break;
	if (j == ifs->nb_phys) {
		c->hold_since = 0;
		return false;
	}
	now = rte_rdtsc();
	if (c->hold_since == 0)
		c->hold_since = now;
	else if (now - c->hold_since >= c->env->hz * HOLD_MAX_US / 1000000) {
		c->hold_since = now;	/* one read, then held again */
		return false;
	}
	c->polls_held++;
	return true;
}

static uint16_t
port_rx_process(struct rte_graph *g, struct rte_node *node, void **objs,
		uint16_t cnt)
{
	struct cpe_port_rx *c = CPE_CTX(node);
	const struct cpe_phys *ph = &c->ifs->phys[c->k];
	struct cpe_env *env = c->env;
	uint16_t n;
	uint64_t t0;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	/* Removed (RMV): its port id is no port until the re-probe. */
	if (unlikely(ph->gone))
		return 0;
	if (!((env->poll_mask >> c->k) & 1)) {
		c->polls_skipped++;
		return 0;
	}
	if (unlikely(held(c)))
		return 0;
	if (unlikely(env->sample)) {
		t0 = rte_rdtsc();
		n = rte_eth_rx_burst(ph->id, 0, (struct rte_mbuf **)node->objs,
				     CPE_BURST);
		env->pmd_cycles += (rte_rdtsc() - t0) * CPE_WALK_SAMPLE;
	} else {
		n = rte_eth_rx_burst(ph->id, 0, (struct rte_mbuf **)node->objs,
				     CPE_BURST);
	}
	if (n == 0)
		return 0;
	port_rx_got(g, node, c, n);
	return n;
}

static int
port_rx_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_port_rx *c;
	uint16_t k;
	int rc;

	RTE_SET_USED(g);
	rc = cpe_dp_phys_of(dp, dp->rx_node, node->id);
	if (rc < 0)
		return rc;
	k = (uint16_t)rc;
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->k = k;
	c->only = cpe_phys_only_if(&dp->ifs, k);
	return cpe_node_in_edges(node, dp, dp->ftab4 != NULL ? PORT_RX_FLOW4 :
				 PORT_RX_ETH, c->in_edge);
}

static struct rte_node_register port_rx_node = {
	.name = "port_rx",
	.flags = RTE_NODE_SOURCE_F,
	.process = port_rx_process,
	.init = port_rx_init,
	.fini = cpe_node_fini,
	.nb_edges = PORT_RX_NB,
	.next_nodes = {
		[PORT_RX_FLOW4] = "flow4",
		[PORT_RX_ETH] = "eth_in",
		[PORT_RX_DROP_VLAN] = "drop-vlan",
		[PORT_RX_DROP_BAD] = "drop-bad",
	},
};

RTE_NODE_REGISTER(port_rx_node);
