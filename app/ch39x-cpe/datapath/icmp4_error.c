/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * icmp4_error: the ICMP error a packet the router will not forward
 * deserves (time exceeded, net unreachable, fragmentation needed with the
 * next hop's MTU: cpe_mb.why), from the address of the interface it came
 * in on, quoting as much of it as fits in 576 bytes (RFC 1812 4.3.2.3);
 * never about an ICMP error, a later fragment or a non-unicast source.
 * The error goes out as the router's own (ip4_output), the packet to its
 * drop node.
 */

#include <rte_icmp.h>
#include <rte_ip.h>

#include "dpconf.h"
#include "ip4.h"
#include "trace.h"

enum {
	ICMP4_OUTPUT,
	ICMP4_DROP_TTL,
	ICMP4_DROP_NO_ROUTE,
	ICMP4_DROP_MTU,
	ICMP4_NB
};

/* Whether packet m may have an error (RFC 1812 4.3.2.7). */
static bool
deserves(const struct rte_ipv4_hdr *oip)
{
	uint32_t src = rte_be_to_cpu_32(oip->src_addr);
	const uint8_t *ol4 = (const uint8_t *)oip + rte_ipv4_hdr_len(oip);

	return !((oip->fragment_offset &
		  rte_cpu_to_be_16(RTE_IPV4_HDR_OFFSET_MASK)) ||
		 src == 0 || (src >> 28) >= 14 || (src >> 24) == 127 ||
		 (oip->next_proto_id == IPPROTO_ICMP &&
		  ol4[0] != RTE_ICMP_TYPE_ECHO_REQUEST &&
		  ol4[0] != RTE_ICMP_TYPE_ECHO_REPLY));
}

/* The error about m: a new mbuf, or NULL. */
static struct rte_mbuf *
build(struct cpe_icmp4_error *c, struct rte_mbuf *m, uint8_t type,
      uint8_t code, uint16_t mtu)
{
	const struct rte_ipv4_hdr *oip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t q = RTE_MIN(rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN,
			     (uint32_t)CPE_ICMP_QUOTE - 20 - 8);
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *ic;
	struct rte_mbuf *e;
	const void *quoted;
	uint8_t *p;

	e = rte_pktmbuf_alloc(c->env->pool);
	if (e == NULL) {
		c->nomem++;
		return NULL;
	}
	p = (uint8_t *)rte_pktmbuf_append(e, RTE_ETHER_HDR_LEN + 20 + 8 + q);
	if (p == NULL) {
		rte_pktmbuf_free(e);
		return NULL;
	}
	/* In a new mbuf's headroom: 2-aligned after the Ethernet header. */
	ip = (struct rte_ipv4_hdr *)(void *)(p + RTE_ETHER_HDR_LEN);
	ic = (struct rte_icmp_hdr *)(ip + 1);
	memset(ip, 0, 20 + 8);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + 8 + q));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_ICMP;
	ip->src_addr = c->ifs->ifs[cpe_in(m)].ip_be;
	ip->dst_addr = oip->src_addr;
	ic->icmp_type = type;
	ic->icmp_code = code;
	/* Fragmentation needed: the next-hop MTU in the low 16 bits. */
	ic->icmp_seq_nb = rte_cpu_to_be_16(mtu);
	/* A pointer into m when contiguous, else copied into ic + 1. */
	quoted = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, q, ic + 1);
	if (quoted != NULL && quoted != (const void *)(ic + 1))
		memcpy(ic + 1, quoted, q);
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, 8 + q);
	return e;
}

static uint16_t
icmp4_error_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_icmp4_error *c = CPE_CTX(node);
	static const uint8_t type[] = { 0, 11, 3, 3 }, code[] = { 0, 0, 0, 4 };
	static const uint16_t drop[] = { ICMP4_DROP_TTL, ICMP4_DROP_TTL,
		ICMP4_DROP_NO_ROUTE, ICMP4_DROP_MTU };
	uint16_t next[CPE_CHUNK], i, k, base;
	struct rte_mbuf *m, *e;
	struct cpe_mb *mb;

	for (base = 0; base < cnt; base += k) {
		k = RTE_MIN((uint16_t)(cnt - base), (uint16_t)CPE_CHUNK);
		for (i = 0; i < k; i++) {
			m = objs[base + i];
			mb = cpe_mb(m);
			next[i] = drop[mb->why];
			e = deserves(rte_pktmbuf_mtod_offset(m,
				const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN)) ?
				build(c, m, type[mb->why], code[mb->why],
				      mb->mtu) : NULL;
			if (e == NULL)
				continue;
			if (mb->why == CPE_ICMP4_TTL)
				c->ttl++;
			else if (mb->why == CPE_ICMP4_FRAG_NEEDED)
				c->frag_needed++;
			else
				c->unreach++;
			e->port = m->port;
			cpe_mb_init(e, CPE_MB_NOCACHE);
			cpe_trace_inherit(c->env, e, m);
			rte_node_enqueue_x1(g, node, ICMP4_OUTPUT, e);
		}
		cpe_enqueue(g, node, c->env, objs + base, next, k);
	}
	return cnt;
}

static int
icmp4_error_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_icmp4_error *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	return 0;
}

static struct rte_node_register icmp4_error_node = {
	.name = "icmp4_error",
	.process = icmp4_error_process,
	.init = icmp4_error_init,
	.fini = cpe_node_fini,
	.nb_edges = ICMP4_NB,
	.next_nodes = {
		[ICMP4_OUTPUT] = "ip4_output",
		[ICMP4_DROP_TTL] = "drop-ttl",
		[ICMP4_DROP_NO_ROUTE] = "drop-no_route",
		[ICMP4_DROP_MTU] = "drop-mtu",
	},
};

RTE_NODE_REGISTER(icmp4_error_node);
