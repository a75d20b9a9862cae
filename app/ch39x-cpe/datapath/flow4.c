/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * flow4: the fast path, a flow cache (ftab.h) keyed by the 5-tuple and
 * the ingress interface. A hit applies the slow path's cached result
 * (egress interface, MACs, NAT rewrite, TTL) with checksum deltas
 * computed once at learning (RFC 1624), so a hit costs one bulk hash
 * lookup and a few stores: no route, ARP or NAT lookup; the hits go out
 * in bulk, to their port's port_tx (or through port_out when their
 * interface has a framing or a scheduler). What the cache cannot take
 * goes to the slow path (ip4_input), its key kept for learning at the
 * end of it (flow4_learn): fragments, IP options, TTL about to expire,
 * TCP SYN/FIN/RST (NAT follows the TCP state there), packets over the
 * egress MTU (ICMP fragmentation needed), anything but TCP, UDP and ICMP
 * echo. IPv6 goes to its own cache (flow6), the rest to eth_in.
 *
 * The packets leave in the order they came, hits and misses alike,
 * within each way: a flow whose packets take both (a TCP FIN behind its
 * data, a packet over the MTU among smaller ones) may see those two
 * ways' packets of one burst reordered.
 */

#include <rte_hash.h>
#include <rte_prefetch.h>

#include "dpconf.h"
#include "flow.h"
#include "ftab.h"
#include "fwdp.h"
#include "nat.h"

enum {
	FLOW4_IP4,
	FLOW4_FLOW6,
	FLOW4_ETH,
	FLOW4_PORT_OUT,
	FLOW4_NB		/* then port_tx-K (control/graph.c) */
};

/*
 * The keys of n packets into keys, kp (those to look up: the number
 * returned) and at (each packet's place in kp, -1 none). With prefetch,
 * each frame's headroom line asked for too (a PPPoE WAN's session
 * header goes there, the line before the frame, which nothing has
 * touched since the mbuf was made: a miss per packet otherwise, a fifth
 * of the forwarding cost); a constant at each call, so that the plain
 * path's copy has no test of it.
 */
static __rte_always_inline uint16_t
burst_keys(struct rte_mbuf **pkts, uint16_t n, struct cpe_flow4_key *keys,
	   const void **kp, int32_t *at, bool prefetch)
{
	uint16_t i, nk = 0;

	for (i = 0; i < n; i++) {
		if (prefetch)
			rte_prefetch0(rte_pktmbuf_mtod_offset(pkts[i],
				char *, -CPE_PPPOE_OVERHEAD));
		at[i] = -1;
		if (cpe_flow4_key(pkts[i], &keys[i]) == 0) {
			at[i] = nk;
			kp[nk++] = &keys[i];
		}
	}
	return nk;
}

/* A miss: the slow path's start, the key kept when there is one. */
static uint16_t
miss(struct cpe_flow_node *c, struct rte_mbuf *m,
     const struct cpe_flow4_key *k)
{
	const struct rte_ether_hdr *eh;

	if (k != NULL) {
		c->misses++;
		memcpy(cpe_mb_init(m, CPE_MB_KEY4)->key.k4, k, sizeof(*k));
		return FLOW4_IP4;
	}
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (rte_pktmbuf_data_len(m) >= RTE_ETHER_HDR_LEN) {
		/* IPv6: its own cache (flow6) counts it. */
		if (c->ft6_on && eh->ether_type ==
		    rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
			return FLOW4_FLOW6;
		if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4)) {
			c->misses++;
			cpe_mb_init(m, 0);
			return FLOW4_IP4;
		}
	}
	c->misses++;
	return FLOW4_ETH;
}

/* A hit at f: rewritten, its states kept alive, its way out. */
static __rte_always_inline uint16_t
hit(struct cpe_flow_node *c, struct rte_mbuf *m, struct cpe_flow4 *f)
{
	uint16_t out = f->h.x.out;

	cpe_xlate_apply(m, &f->h.x);
	f->h.last = c->env->now;
	if (f->h.x.sess != UINT32_MAX)
		cpe_nat_touch(c->nat, f->h.x.sess);
	else if (f->h.x.ct != UINT32_MAX)
		cpe_fw_touch(&c->fw->fw, f->h.x.ct, c->env->now);
	c->hits++;
	cpe_set_out(m, out);
	/* The downlink's scheduler: what came in on the WAN for a LAN. */
	if (unlikely(c->down_on) && cpe_in(m) == c->env->wan &&
	    !c->ifs->ifs[out].wan)
		return FLOW4_PORT_OUT;
	return c->out_edge[out];
}

/* n (at most RTE_HASH_LOOKUP_BULK_MAX) packets, in arrival order. */
static __rte_always_inline void
chunk(struct rte_graph *g, struct rte_node *node, struct cpe_flow_node *c,
      void **objs, uint16_t n, bool prefetch)
{
	struct cpe_flow4_key keys[RTE_HASH_LOOKUP_BULK_MAX];
	const void *kp[RTE_HASH_LOOKUP_BULK_MAX];
	int32_t pos[RTE_HASH_LOOKUP_BULK_MAX], at[RTE_HASH_LOOKUP_BULK_MAX];
	uint16_t next[RTE_HASH_LOOKUP_BULK_MAX], i, nk;
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	struct cpe_flow4 *f;

	nk = burst_keys(pkts, n, keys, kp, at, prefetch);
	if (nk)
		rte_hash_lookup_bulk(c->ft->h, kp, nk, pos);
	for (i = 0; i < n; i++) {
		if (at[i] < 0) {
			next[i] = miss(c, pkts[i], NULL);
			continue;
		}
		if (pos[at[i]] < 0) {
			next[i] = miss(c, pkts[i], &keys[i]);
			continue;
		}
		f = (struct cpe_flow4 *)(void *)cpe_ftab_at(c->ft,
							    pos[at[i]]);
		if (unlikely(f->h.gen != c->env->gen)) {
			/* A route or neighbour changed since it was learnt. */
			c->stale++;
			cpe_ftab_del(c->ft, pos[at[i]]);
			next[i] = miss(c, pkts[i], &keys[i]);
		} else if (rte_pktmbuf_pkt_len(pkts[i]) - RTE_ETHER_HDR_LEN >
			   f->h.x.mtu) {
			next[i] = miss(c, pkts[i], &keys[i]);
		} else {
			next[i] = hit(c, pkts[i], f);
		}
	}
	cpe_enqueue(g, node, c->env, objs, next, n);
}

static uint16_t
flow4_process(struct rte_graph *g, struct rte_node *node, void **objs,
	      uint16_t cnt)
{
	struct cpe_flow_node *c = CPE_CTX(node);
	uint16_t base, k;

	for (base = 0; base < cnt; base += k) {
		k = RTE_MIN((uint16_t)(cnt - base),
			    (uint16_t)RTE_HASH_LOOKUP_BULK_MAX);
		if (unlikely(c->pppoe_wan))
			chunk(g, node, c, objs + base, k, true);
		else
			chunk(g, node, c, objs + base, k, false);
	}
	return cnt;
}

static int
flow4_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_flow_node *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->ft = dp->ftab4;
	c->ft6_on = dp->ftab6 != NULL;
	c->nat = dp->nat;
	c->fw = dp->fw;
	c->pppoe_wan = dp->ifs.wan >= 0 && dp->ifs.ifs[dp->ifs.wan].pppoe;
	c->down_on = dp->down_on;
	return cpe_node_out_edges(node, dp, FLOW4_PORT_OUT, c->out_edge);
}

static struct rte_node_register flow4_node = {
	.name = "flow4",
	.process = flow4_process,
	.init = flow4_init,
	.fini = cpe_node_fini,
	.nb_edges = FLOW4_NB,
	.next_nodes = {
		[FLOW4_IP4] = "ip4_input",
		[FLOW4_FLOW6] = "flow6",
		[FLOW4_ETH] = "eth_in",
		[FLOW4_PORT_OUT] = "port_out",
	},
};

RTE_NODE_REGISTER(flow4_node);
