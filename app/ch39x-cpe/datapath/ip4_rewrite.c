/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_rewrite: a routed packet made ready to leave. The egress MTU: over
 * it with DF set, ICMP fragmentation needed; DF clear, cut into fragments
 * (ip4_fragment). A SYN's MSS clamped to the smaller MTU of the two
 * interfaces. A first fragment's way recorded for its later ones. Then
 * the rewrite the flow cache would apply (xlate.h: TTL, NAT's addresses
 * and ports, the checksums by delta, the source MAC); the next hop's MAC
 * is neigh4's.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "ip4.h"
#include "xlate.h"

enum {
	IP4_REWRITE_NEIGH,
	IP4_REWRITE_SPLIT,
	IP4_REWRITE_ICMP,
	IP4_REWRITE_NB
};

/* The rewrite of mb's decisions, applied: as the cache would. */
static void
rewrite(const struct cpe_iface *p, struct rte_mbuf *m,
	const struct cpe_mb *mb, const struct rte_ipv4_hdr *ip)
{
	struct cpe_xlate x;
	uint16_t sp, dp;

	memset(&x, 0, sizeof(x));
	x.nat = (mb->flags & CPE_MB_NAT) != 0;
	x.sip = mb->sip;
	x.dip = mb->dip;
	x.sport = mb->sport;
	x.dport = mb->dport;
	rte_ether_addr_copy(&p->mac, &x.smac);
	sp = dp = 0;
	if (x.nat)
		cpe_xlate_ports(ip, &sp, &dp);
	cpe_xlate_prepare(&x, ip->next_proto_id, ip->src_addr, ip->dst_addr,
			  sp, dp);
	cpe_xlate_apply(m, &x);
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip4_rewrite *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct cpe_iface *p = &c->ifs->ifs[mb->out];
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct cpe_frag_info fi;
	uint32_t lim;

	if (mb->tot > p->mtu) {
		if (ip->fragment_offset &
		    rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) {
			c->drop_mtu++;
			mb->why = CPE_ICMP4_FRAG_NEEDED;
			mb->mtu = p->mtu;
			return IP4_REWRITE_ICMP;
		}
		mb->flags |= CPE_MB_SPLIT | CPE_MB_NOCACHE;
	}
	/* SYNs: the MSS the smaller MTU of the two sides allows. */
	if (ip->next_proto_id == IPPROTO_TCP && !(mb->flags & CPE_MB_FRAG)) {
		lim = RTE_MIN(c->ifs->ifs[cpe_in(m)].mtu, p->mtu) - 40u;
		cpe_fragdp_mss(c->frag, (uint8_t *)ip + rte_ipv4_hdr_len(ip),
			       mb->l4_len, lim);
	}
	if ((mb->flags & CPE_MB_FIRST) &&
	    cpe_fragdp_info(c->frag, m, &fi) == 1)
		cpe_fragdp_first4(c->frag, &fi, false, mb->out, mb->nh, mb);
	rewrite(p, m, mb, ip);
	return mb->flags & CPE_MB_SPLIT ? IP4_REWRITE_SPLIT :
		IP4_REWRITE_NEIGH;
}

static uint16_t
ip4_rewrite_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_ip4_rewrite *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_rewrite_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip4_rewrite *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register ip4_rewrite_node = {
	.name = "ip4_rewrite",
	.process = ip4_rewrite_process,
	.init = ip4_rewrite_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_REWRITE_NB,
	.next_nodes = {
		[IP4_REWRITE_NEIGH] = "neigh4",
		[IP4_REWRITE_SPLIT] = "ip4_fragment",
		[IP4_REWRITE_ICMP] = "icmp4_error",
	},
};

RTE_NODE_REGISTER(ip4_rewrite_node);
