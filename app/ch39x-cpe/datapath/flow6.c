/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * flow6: the IPv6 fast path, a flow cache of its own (ftab.h) keyed by
 * the 5-tuple and the ingress interface, next to flow4's. A separate
 * table rather than one wider key: the IPv4 key stays 16 bytes (hash and
 * compare of the common case untouched) and the IPv6 entries need no NAT
 * state. A hit rewrites the MACs and decrements the hop limit (IPv6 has
 * no header checksum, and no NAT: nothing else changes). What the cache
 * does not take goes to ip6_input, its key kept for flow6_learn:
 * extension headers, hop limit about to expire, packets over the egress
 * MTU (packet too big), anything but TCP, UDP and ICMPv6 echo. One lookup
 * per packet (not flow4's bulk): IPv6 packets reach here only when flow4
 * refused them.
 */

#include <rte_hash.h>

#include "dpconf.h"
#include "flow.h"
#include "ftab.h"
#include "fwdp.h"

enum {
	FLOW6_IP6,
	FLOW6_PORT_OUT,
	FLOW6_NB		/* then port_tx-K (control/graph.c) */
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_flow_node *c = ctx;
	struct cpe_flow6_key k;
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	struct cpe_flow6 *f;
	int32_t pos;
	uint16_t out;

	if (cpe_flow6_key(m, &k) != 0) {
		c->misses++;
		cpe_mb_init(m, 0);
		return FLOW6_IP6;
	}
	pos = rte_hash_lookup(c->ft->h, &k);
	f = pos >= 0 ? (struct cpe_flow6 *)(void *)cpe_ftab_at(c->ft, pos) :
		NULL;
	if (f != NULL && f->h.gen != c->env->gen) {
		c->stale++;
		cpe_ftab_del(c->ft, (uint32_t)pos);
		f = NULL;
	}
	if (f == NULL || rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN >
	    f->h.x.mtu) {
		c->misses++;
		memcpy(cpe_mb_init(m, CPE_MB_KEY6)->key.k6, &k, sizeof(k));
		return FLOW6_IP6;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	memcpy(eh, &f->h.x.dmac, 2 * RTE_ETHER_ADDR_LEN);
	ip->hop_limits--;
	f->h.last = c->env->now;
	if (f->h.x.ct != UINT32_MAX)
		cpe_fw_touch(&c->fw->fw, f->h.x.ct, c->env->now);
	c->hits++;
	out = f->h.x.out;
	cpe_set_out(m, out);
	if (unlikely(c->down_on) && cpe_in(m) == c->env->wan &&
	    !c->ifs->ifs[out].wan)
		return FLOW6_PORT_OUT;
	return c->out_edge[out];
}

static uint16_t
flow6_process(struct rte_graph *g, struct rte_node *node, void **objs,
	      uint16_t cnt)
{
	struct cpe_flow_node *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
flow6_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_flow_node *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->ft = dp->ftab6;
	c->fw = dp->fw;
	c->down_on = dp->down_on;
	return cpe_node_out_edges(node, dp, FLOW6_PORT_OUT, c->out_edge);
}

static struct rte_node_register flow6_node = {
	.name = "flow6",
	.process = flow6_process,
	.init = flow6_init,
	.fini = cpe_node_fini,
	.nb_edges = FLOW6_NB,
	.next_nodes = {
		[FLOW6_IP6] = "ip6_input",
		[FLOW6_PORT_OUT] = "port_out",
	},
};

RTE_NODE_REGISTER(flow6_node);
