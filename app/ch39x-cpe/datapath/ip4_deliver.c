/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_deliver: what the firewall let in to the router. Echo requests to
 * one of its unicast addresses are answered here (the reply in place,
 * then ip4_output); the rest is the control plane's (tap_out). A first
 * fragment's later ones are the router's too (fragdp.h).
 */

#include <rte_icmp.h>
#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "ip4.h"

enum {
	IP4_DELIVER_OUTPUT,
	IP4_DELIVER_TAP,
	IP4_DELIVER_NB
};

/* The echo reply in place: only the type word of ICMP changes. */
static void
echo_reply(struct cpe_ip4_deliver *c, struct rte_ipv4_hdr *ip,
	   struct rte_icmp_hdr *ic)
{
	uint32_t dst = ip->dst_addr;
	uint16_t old;

	memcpy(&old, ic, 2);
	ic->icmp_type = RTE_ICMP_TYPE_ECHO_REPLY;
	ic->icmp_cksum = cpe_csum_update(ic->icmp_cksum,
		cpe_adj16(0, old, cpe_get16((uint8_t *)ic)));
	ip->dst_addr = ip->src_addr;
	ip->src_addr = dst;
	ip->time_to_live = 64;
	c->echo_replies++;
}

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct cpe_ip4_deliver *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct rte_icmp_hdr *ic = (struct rte_icmp_hdr *)(void *)
		((uint8_t *)ip + rte_ipv4_hdr_len(ip));
	uint32_t dst = rte_be_to_cpu_32(ip->dst_addr);
	uint16_t in = cpe_in(m);
	struct cpe_frag_info fi;

	if ((mb->flags & CPE_MB_FIRST) &&
	    cpe_fragdp_info(c->frag, m, &fi) == 1)
		cpe_fragdp_first4(c->frag, &fi, true, 0, 0, NULL);
	if (ip->next_proto_id != IPPROTO_ICMP || mb->l4_len < 8 ||
	    ic->icmp_type != RTE_ICMP_TYPE_ECHO_REQUEST ||
	    (mb->flags & CPE_MB_FRAG) || dst == 0xffffffff ||
	    (dst >> 28) == 14 || cpe_if_bcast4(c->ifs, dst, in) ||
	    !cpe_if_local4(c->ifs, dst, in))
		return IP4_DELIVER_TAP;
	echo_reply(c, ip, ic);
	return IP4_DELIVER_OUTPUT;
}

static uint16_t
ip4_deliver_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_ip4_deliver *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip4_deliver_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_ip4_deliver *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register ip4_deliver_node = {
	.name = "ip4_deliver",
	.process = ip4_deliver_process,
	.init = ip4_deliver_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_DELIVER_NB,
	.next_nodes = {
		[IP4_DELIVER_OUTPUT] = "ip4_output",
		[IP4_DELIVER_TAP] = "tap_out",
	},
};

RTE_NODE_REGISTER(ip4_deliver_node);
