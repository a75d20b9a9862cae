/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip6_frag: IPv6 fragments (fragdp.h), local and routed alike. Tiny,
 * malformed or overlapping ones are dropped (counted); a later fragment
 * of a datagram whose first the firewall let in passes without a verdict
 * of its own (and is never cached); a first one, or one whose first was
 * not seen, goes to the firewall, which decides, and the first's way is
 * recorded where it goes on (ip6_deliver, ip6_rewrite).
 */

#include "dpconf.h"
#include "fragdp.h"
#include "ip6.h"

enum {
	IP6_FRAG_FW,
	IP6_FRAG_DELIVER,
	IP6_FRAG_REWRITE,
	IP6_FRAG_DROP,
	IP6_FRAG_NB
};

struct ip6_frag_node {
	struct cpe_env *env;
	struct cpe_fragdp *frag;
};

static uint16_t
one(void *ctx, struct rte_mbuf *m)
{
	struct ip6_frag_node *c = ctx;
	struct cpe_mb *mb = cpe_mb(m);
	const struct cpe_frag_dec *d;
	struct cpe_frag_info fi;
	int rc = cpe_fragdp_info(c->frag, m, &fi);

	if (rc < 0)
		return IP6_FRAG_DROP;
	if (rc == 1 && fi.off != 0) {
		rc = cpe_fragdp_later(c->frag, &fi, &d);
		if (rc < 0)
			return IP6_FRAG_DROP;
		/* Its first may be in this batch, its way not kept yet. */
		if (rc == 0 && cpe_fragdp_hold(c->frag, m, true))
			return CPE_CONSUMED;
		if (rc == 1) {
			mb->flags |= CPE_MB_NOCACHE;
			return mb->flags & CPE_MB_ROUTED ? IP6_FRAG_REWRITE :
				IP6_FRAG_DELIVER;
		}
		mb->flags |= CPE_MB_LATER;
	} else if (rc == 1 && fi.more) {
		mb->flags |= CPE_MB_FIRST;
	}
	return IP6_FRAG_FW;
}

static uint16_t
ip6_frag_process(struct rte_graph *g, struct rte_node *node, void **objs,
		 uint16_t cnt)
{
	struct ip6_frag_node *c = CPE_CTX(node);

	return cpe_node_each(g, node, c->env, objs, cnt, one, c);
}

static int
ip6_frag_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct ip6_frag_node *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register ip6_frag_node = {
	.name = "ip6_frag",
	.process = ip6_frag_process,
	.init = ip6_frag_init,
	.fini = cpe_node_fini,
	.nb_edges = IP6_FRAG_NB,
	.next_nodes = {
		[IP6_FRAG_FW] = "firewall",
		[IP6_FRAG_DELIVER] = "ip6_deliver",
		[IP6_FRAG_REWRITE] = "ip6_rewrite",
		[IP6_FRAG_DROP] = "drop-frag",
	},
};

RTE_NODE_REGISTER(ip6_frag_node);
