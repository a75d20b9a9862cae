/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ip4_fragment: a DF-clear IPv4 packet over its egress MTU cut into
 * fragments of at most the MTU (RFC 791), each in an mbuf of its own with
 * the headers copied, on to the next hop (neigh4). IPv4 options would
 * have to be sorted by their copy flag: a packet with options is dropped
 * (counted, split_drops), as one whose pieces do not fit an mbuf.
 */

#include <rte_ip.h>

#include "dpconf.h"
#include "fragdp.h"
#include "trace.h"

enum {
	IP4_FRAGMENT_NEIGH,
	IP4_FRAGMENT_NB
};

struct ip4_fragment {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fragdp *frag;
};

/* The fragment of m's payload [off, off + n): a new mbuf, or NULL. */
static struct rte_mbuf *
piece(struct ip4_fragment *c, struct rte_mbuf *m, uint32_t ihl,
      uint32_t off, uint32_t n, bool more)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
	uint32_t base = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	struct rte_ipv4_hdr *fip;
	struct rte_mbuf *f;
	const void *src;
	uint8_t *p;

	f = rte_pktmbuf_alloc(c->env->pool);
	if (f == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(f, (uint16_t)(RTE_ETHER_HDR_LEN +
							ihl + n));
	/* Ethernet and IP headers, then this piece of payload, from one
	 * of m's segments or copied to p. */
	src = p == NULL ? NULL : rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN + ihl +
						  off, n,
						  p + RTE_ETHER_HDR_LEN + ihl);
	if (src == NULL) {
		rte_pktmbuf_free(f);
		return NULL;
	}
	memcpy(p, rte_pktmbuf_mtod(m, void *), RTE_ETHER_HDR_LEN + ihl);
	if (src != p + RTE_ETHER_HDR_LEN + ihl)
		memcpy(p + RTE_ETHER_HDR_LEN + ihl, src, n);
	fip = (struct rte_ipv4_hdr *)(void *)(p + RTE_ETHER_HDR_LEN);
	fip->total_length = rte_cpu_to_be_16((uint16_t)(ihl + n));
	fip->fragment_offset = rte_cpu_to_be_16((uint16_t)(((base + off) / 8) |
		((more || (fo & RTE_IPV4_HDR_MF_FLAG)) ?
		 RTE_IPV4_HDR_MF_FLAG : 0)));
	fip->hdr_checksum = 0;
	fip->hdr_checksum = rte_ipv4_cksum(fip);
	return f;
}

/* m's pieces to neigh4, m freed. */
static void
split(struct rte_graph *g, struct rte_node *node, struct ip4_fragment *c,
      struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	const struct cpe_mb *mb = cpe_mb(m);
	uint32_t ihl = rte_ipv4_hdr_len(ip), tot = rte_be_to_cpu_16(
		ip->total_length), mtu = c->ifs->ifs[mb->out].mtu, chunk, off, n;
	struct cpe_fragdp_stats *st = &c->frag->st;
	struct rte_mbuf *f;

	chunk = (mtu - ihl) & ~7u;
	if (ihl != sizeof(*ip) || mtu < ihl + 8 ||
	    RTE_ETHER_HDR_LEN + ihl + chunk >
	    (uint32_t)rte_pktmbuf_data_room_size(c->env->pool) -
	    RTE_PKTMBUF_HEADROOM) {
		st->split_drops++;
		return;
	}
	st->split_pkts++;
	for (off = 0; off < tot - ihl; off += chunk) {
		n = RTE_MIN(chunk, tot - ihl - off);
		f = piece(c, m, ihl, off, n, off + n < tot - ihl);
		if (f == NULL) {
			st->split_drops++;
			break;
		}
		st->split_frags++;
		f->port = m->port;
		cpe_mb_init(f, CPE_MB_NOCACHE)->out = mb->out;
		cpe_mb(f)->nh = mb->nh;
		cpe_trace_inherit(c->env, f, m);
		rte_node_enqueue_x1(g, node, IP4_FRAGMENT_NEIGH, f);
	}
}

static uint16_t
ip4_fragment_process(struct rte_graph *g, struct rte_node *node,
		     void **objs, uint16_t cnt)
{
	struct ip4_fragment *c = CPE_CTX(node);
	uint16_t i;

	for (i = 0; i < cnt; i++) {
		split(g, node, c, objs[i]);
		cpe_kept(c->env, node, objs[i], CPE_KEPT_DROPPED);
		rte_pktmbuf_free(objs[i]);
	}
	return cnt;
}

static int
ip4_fragment_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct ip4_fragment *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->frag = dp->frag;
	return 0;
}

static struct rte_node_register ip4_fragment_node = {
	.name = "ip4_fragment",
	.process = ip4_fragment_process,
	.init = ip4_fragment_init,
	.fini = cpe_node_fini,
	.nb_edges = IP4_FRAGMENT_NB,
	.next_nodes = {
		[IP4_FRAGMENT_NEIGH] = "neigh4",
	},
};

RTE_NODE_REGISTER(ip4_fragment_node);
