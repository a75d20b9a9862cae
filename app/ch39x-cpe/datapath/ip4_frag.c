/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_frag: IPv4 fragments (fragdp.h). Tiny or malformed ones are
 * dropped (counted); a later fragment of a datagram whose first went on
 * follows the first's way: to the router (tap_out), or forwarded with
 * the first's NAT addresses, next hop and output interface (cut again if
 * the output's MTU is smaller and DF is clear). A first fragment, or a
 * later one whose first was not seen, takes the plain path (ip4_local or
 * ip4_route), its way recorded there for a first.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "fwdp.h"
#include "ip4.h"

enum {
	IP4_FRAG_LOCAL,
	IP4_FRAG_ROUTE,
	IP4_FRAG_NEIGH,
	IP4_FRAG_SPLIT,
	IP4_FRAG_TAP,
	IP4_FRAG_DROP_FRAG,
	IP4_FRAG_DROP_TTL,
	IP4_FRAG_DROP_MTU,
	IP4_FRAG_DROP_NAT,
	IP4_FRAG_NB
};

/* A later fragment on its first's way: NAT's addresses, TTL, MTU. */
static uint16_t
forward(struct cpe_ip4_frag *c, const struct cpe_frag_dec *d,
	struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	const struct cpe_iface *p = &c->ifs->ifs[d->out];
	struct cpe_mb *mb = cpe_mb(m);

	if (ip->time_to_live <= 1) {
		c->drop_ttl++;
		return IP4_FRAG_DROP_TTL;
	}
	ip->time_to_live--;
	if (d->nat) {
		ip->src_addr = d->sip;
		ip->dst_addr = d->dip;
	}
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	m->ol_flags = 0;
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	mb->out = (uint8_t)d->out;
	mb->nh = d->nh;
	mb->flags |= CPE_MB_NOCACHE;
	if (rte_be_to_cpu_16(ip->total_length) <= p->mtu)
		return IP4_FRAG_NEIGH;
	if (ip->fragment_offset & rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) {
		c->drop_mtu++;
		return IP4_FRAG_DROP_MTU;
	}
	return IP4_FRAG_SPLIT;
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip4_frag *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct cpe_frag_dec *d = NULL;
	struct cpe_frag_info fi;
	uint16_t in = cpe_in(m);
	int rc;

	/* Tiny or malformed: dropped (counted). */
	rc = cpe_fragdp_info(c->frag, m, &fi);
	if (rc < 0)
		return IP4_FRAG_DROP_FRAG;
	if (rc == 0)
		mb->flags |= CPE_MB_LATER;	/* no first to follow */
	if (rc == 1 && fi.off != 0) {
		rc = cpe_fragdp_later(c->frag, &fi, &d);
		if (rc < 0)
			return IP4_FRAG_DROP_FRAG;
		/* Its first may be in this batch, its way not kept yet. */
		if (rc == 0 && cpe_fragdp_hold(c->frag, m, false))
			return CPE_CONSUMED;
		if (rc == 1)
			return d->kind == CPE_FRAG_DEC_LOCAL ? IP4_FRAG_TAP :
				forward(c, d, m);
		mb->flags |= CPE_MB_LATER;
	} else if (rc == 1) {
		mb->flags |= CPE_MB_FIRST;
	}
	if (mb->flags & CPE_MB_LOCAL)
		return IP4_FRAG_LOCAL;
	if (c->nat_on && c->ifs->ifs[in].wan) {
		/* Behind NAPT, LAN hosts are reached through sessions only. */
		c->nat_no_mapping++;
		if (c->fw->on)
			cpe_fw_drop(&c->fw->fw, CPE_FW_DROP_FWD_NEW);
		return IP4_FRAG_DROP_NAT;
	}
	return IP4_FRAG_ROUTE;
}

static uint16_t
ip4_frag_process(struct rte_graph *g, struct rte_node *node, void **objs,
		 uint16_t cnt)
{
	struct cpe_ip4_frag *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_frag_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip4_frag *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->frag = dp->frag;
	c->fw = dp->fw;
	c->nat_on = dp->nat_on;
	return 0;
}

static struct rte_node_register ip4_frag_node = {
	.name = "ip4_frag",
	.process = ip4_frag_process,
	.init = ip4_frag_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_FRAG_NB,
	.next_nodes = {
		[IP4_FRAG_LOCAL] = "ip4_local",
		[IP4_FRAG_ROUTE] = "ip4_route",
		[IP4_FRAG_NEIGH] = "neigh4",
		[IP4_FRAG_SPLIT] = "ip4_fragment",
		[IP4_FRAG_TAP] = "tap_out",
		[IP4_FRAG_DROP_FRAG] = "drop-frag",
		[IP4_FRAG_DROP_TTL] = "drop-ttl",
		[IP4_FRAG_DROP_MTU] = "drop-mtu",
		[IP4_FRAG_DROP_NAT] = "drop-nat",
	},
};

RTE_NODE_REGISTER(ip4_frag_node);
