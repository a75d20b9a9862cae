/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * arp_in: ARP (RFC 826). Answers requests for the interface's address
 * (in place), learns from requests aimed at us and updates known entries
 * from any ARP (arp_tab.c), which lets go of the packets that waited for
 * the neighbour. Only neighbours on the interface's subnet; a probe
 * (sender 0) teaches nothing. Replies (to Linux's own requests too) and
 * requests for others are the control plane's (tap_out).
 */

#include <rte_arp.h>

#include "dpconf.h"
#include "ip4.h"
#include "ntab.h"

enum {
	ARP_IN_OUT,
	ARP_IN_TAP,
	ARP_IN_DROP_BAD,
	ARP_IN_NB
};

/* A request for our address, answered in place. */
static void
reply(struct cpe_arp_in *c, uint16_t in, struct rte_mbuf *m)
{
	const struct cpe_iface *p = &c->ifs->ifs[in];
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eh + 1);

	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	rte_ether_addr_copy(&a->arp_data.arp_sha, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = a->arp_data.arp_sip;
	rte_ether_addr_copy(&p->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = p->ip_be;
	rte_ether_addr_copy(&eh->src_addr, &eh->dst_addr);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	c->replies++;
	cpe_set_out(m, in);
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_arp_in *c = ctx;
	uint16_t in = cpe_in(m);
	const struct cpe_iface *p = &c->ifs->ifs[in];
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;
	uint32_t sip, tip;

	if (rte_pktmbuf_data_len(m) < sizeof(*eh) + sizeof(*a)) {
		c->bad++;
		return ARP_IN_DROP_BAD;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	a = (struct rte_arp_hdr *)(eh + 1);
	if (a->arp_hardware != rte_cpu_to_be_16(RTE_ARP_HRD_ETHER) ||
	    a->arp_protocol != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
	    a->arp_hlen != 6 || a->arp_plen != 4) {
		c->bad++;
		return ARP_IN_DROP_BAD;
	}
	sip = rte_be_to_cpu_32(a->arp_data.arp_sip);
	tip = rte_be_to_cpu_32(a->arp_data.arp_tip);
	if (sip != 0 && ((sip ^ p->ip) & p->mask) == 0 && sip != p->ip &&
	    rte_is_valid_assigned_ether_addr(&a->arp_data.arp_sha))
		cpe_arp_learn(c->arp, in, sip, &a->arp_data.arp_sha,
			      tip == p->ip);
	if (a->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    tip != p->ip)
		return ARP_IN_TAP;
	reply(c, in, m);
	return ARP_IN_OUT;
}

static uint16_t
arp_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct cpe_arp_in *c = CPE_CTX(node);
	struct cpe_ntab *t = cpe_arp_ntab(c->arp);

	cpe_node_each(g, node, c->env, objs, cnt, one, c);
	/* What the learning let go of: waited for these neighbours. */
	cpe_ntab_send(t, g, node, c->env, ARP_IN_OUT);
	return cnt;
}

static int
arp_in_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_arp_in *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->arp = dp->arp;
	return 0;
}

static struct rte_node_register arp_in_node = {
	.name = "arp_in",
	.process = arp_in_process,
	.init = arp_in_init,
	.fini = cpe_node_fini,
	.nb_edges = ARP_IN_NB,
	.next_nodes = {
		[ARP_IN_OUT] = "port_out",
		[ARP_IN_TAP] = "tap_out",
		[ARP_IN_DROP_BAD] = "drop-bad",
	},
};

RTE_NODE_REGISTER(arp_in_node);
