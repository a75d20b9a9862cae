/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * nd6_in: neighbour solicitations and advertisements for the router
 * (RFC 4861). A solicitation for one of the interface's addresses is
 * answered (solicited, router, override; unicast to its sender, or to
 * all nodes for a DAD probe from ::, which defends the address: RFC 4862
 * 5.4.3), and its sender learnt (nd6_tab.c); a solicitation for another
 * address is the control plane's. An advertisement only updates or
 * confirms the hops asked about or known. What the learning lets go of
 * leaves with the answers.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "ip6.h"
#include "nd6_msg.h"
#include "ntab.h"

enum {
	ND6_IN_OUT,
	ND6_IN_TAP,
	ND6_IN_NB
};

static const uint8_t all_nodes[16] = { 0xff, 2, [15] = 1 };
static const uint8_t unspec[16];

/* The answer to NS m for target (dad: to all nodes), towards out. */
static void
answer(struct rte_graph *g, struct rte_node *node, struct cpe_nd6_in *c,
       struct rte_mbuf *m, const uint8_t *target, bool dad,
       const struct rte_ether_addr *sll)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
	static const struct rte_ether_addr dmac_all = {
		{ 0x33, 0x33, 0, 0, 0, 1 } };
	uint16_t in = cpe_in(m);
	struct rte_mbuf *a;

	if (dad)
		a = cpe_nd6_msg(c->env, &c->ifs->ifs[in], in, CPE_ND_NA,
				CPE_NA_F_ROUTER | CPE_NA_F_OVERRIDE, target,
				all_nodes, &dmac_all, target);
	else
		a = cpe_nd6_msg(c->env, &c->ifs->ifs[in], in, CPE_ND_NA,
				CPE_NA_F_ROUTER | CPE_NA_F_SOLICITED |
				CPE_NA_F_OVERRIDE, target, IP6_SRC(ip),
				sll != NULL ? sll : &eh->src_addr, target);
	if (a == NULL) {
		c->nomem++;
		return;
	}
	c->na_sent++;
	a->port = m->port;
	rte_node_enqueue_x1(g, node, ND6_IN_OUT, a);
}

/* NS m: CPE_CONSUMED (answered, or bad), or the edge to the TAP. */
static uint16_t
ns_input(struct rte_graph *g, struct rte_node *node, struct cpe_nd6_in *c,
	 struct rte_mbuf *m, struct rte_ipv6_hdr *ip)
{
	const struct rte_ether_addr *sll;
	struct rte_ether_addr dmac;
	uint8_t *ic, *target, grp[16];
	uint32_t len;
	bool dad;

	c->ns_rcvd++;
	if (cpe_nd6_validate(m, ip, &ic, &len) != 0 ||
	    cpe_nd6_opts(ic, len, CPE_ND_OPT_SLLA, &sll) != 0)
		goto bad;
	target = ic + 8;
	dad = memcmp(IP6_SRC(ip), unspec, 16) == 0;
	/* From ::, only to a solicited-node group and without an SLLA. */
	cpe_nd6_solicited(target, grp, &dmac);
	if (dad && (sll != NULL || memcmp(IP6_DST(ip), grp, 16) != 0))
		goto bad;
	if (!cpe_if_mine6(c->ifs, cpe_in(m), target))
		return ND6_IN_TAP;
	if (!dad && sll != NULL && rte_is_valid_assigned_ether_addr(sll))
		cpe_nd6_learn(c->nd6, cpe_in(m), IP6_SRC(ip), sll, true, true,
			      false);
	answer(g, node, c, m, target, dad, sll);
	rte_pktmbuf_free(m);
	return CPE_CONSUMED;
bad:
	c->bad++;
	rte_pktmbuf_free(m);
	return CPE_CONSUMED;
}

static void
na_input(struct cpe_nd6_in *c, struct rte_mbuf *m, struct rte_ipv6_hdr *ip)
{
	const struct rte_ether_addr *tll;
	uint8_t *ic;
	uint32_t len;

	c->na_rcvd++;
	if (cpe_nd6_validate(m, ip, &ic, &len) != 0 ||
	    cpe_nd6_opts(ic, len, CPE_ND_OPT_TLLA, &tll) != 0 ||
	    (IP6_DST(ip)[0] == 0xff && (ic[4] & CPE_NA_F_SOLICITED))) {
		c->bad++;
	} else if (tll != NULL && rte_is_valid_assigned_ether_addr(tll)) {
		/* Only hops we asked about or know: nothing is made here. */
		cpe_nd6_learn(c->nd6, cpe_in(m), ic + 8, tll, false,
			      (ic[4] & CPE_NA_F_OVERRIDE) != 0,
			      (ic[4] & CPE_NA_F_SOLICITED) != 0);
	} else if (tll == NULL && (ic[4] & CPE_NA_F_SOLICITED)) {
		/* Without a target link-layer address an NA only confirms. */
		cpe_nd6_confirm(c->nd6, cpe_in(m), ic + 8);
	}
	rte_pktmbuf_free(m);
}

static uint16_t
nd6_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct cpe_nd6_in *c = CPE_CTX(node);
	struct cpe_ntab *t = cpe_nd6_ntab(c->nd6);
	struct rte_mbuf *m;
	struct rte_ipv6_hdr *ip;
	uint16_t i;

	for (i = 0; i < cnt; i++) {
		m = objs[i];
		ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *,
					     RTE_ETHER_HDR_LEN);
		cpe_kept(c->env, node, m, CPE_KEPT_ANSWERED);
		if (((uint8_t *)(ip + 1))[0] == CPE_ND_NS) {
			if (ns_input(g, node, c, m, ip) == ND6_IN_TAP)
				rte_node_enqueue_x1(g, node, ND6_IN_TAP, m);
		} else {
			na_input(c, m, ip);
		}
	}
	cpe_ntab_send(t, g, node, c->env, ND6_IN_OUT);
	return cnt;
}

static int
nd6_in_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_nd6_in *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->nd6 = dp->nd6;
	return 0;
}

static struct rte_node_register nd6_in_node = {
	.name = "nd6_in",
	.process = nd6_in_process,
	.init = nd6_in_init,
	.fini = cpe_node_fini,
	.nb_edges = ND6_IN_NB,
	.next_nodes = {
		[ND6_IN_OUT] = "port_out",
		[ND6_IN_TAP] = "tap_out",
	},
};

RTE_NODE_REGISTER(nd6_in_node);
