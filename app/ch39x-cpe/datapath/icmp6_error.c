/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * icmp6_error: the ICMPv6 error a packet the router will not forward
 * deserves (time exceeded, no route, packet too big with the MTU:
 * cpe_mb.why), from an address of the interface it came in on, quoting
 * as much of it as fits in 1280 bytes (RFC 4443 2.4), rate limited by a
 * token bucket (2.4 (f)); never about an error, nor to a multicast or
 * unspecified source. The error goes out as the router's own
 * (ip6_output), the packet to its drop node.
 */

#include <rte_cycles.h>
#include <rte_ip.h>

#include "dpconf.h"
#include "ip6.h"
#include "trace.h"

#define ICMP6_RATE		1000	/* per second */
#define ICMP6_BURST		100

enum {
	ICMP6_OUTPUT,
	ICMP6_DROP_TTL,
	ICMP6_DROP_NO_ROUTE,
	ICMP6_DROP_MTU,
	ICMP6_NB
};

static const uint8_t unspec[16];

static bool
rate_ok(struct cpe_icmp6_error *c)
{
	uint64_t per = c->env->hz / ICMP6_RATE, n;

	if (per == 0)
		per = 1;
	n = (c->env->now - c->refill) / per;
	if (n) {
		c->tokens = RTE_MIN(c->tokens + n, (uint64_t)ICMP6_BURST);
		c->refill += n * per;
	}
	if (c->tokens == 0) {
		c->suppressed++;
		return false;
	}
	c->tokens--;
	return true;
}

/*
 * Our source towards dst: a global address of interface in, else another
 * interface's (a WAN without a prefix of its own, RFC 7084's unnumbered
 * model: the delegated LAN's), else in's link-local.
 */
static const uint8_t *
source_for(const struct cpe_ifaces *ifs, uint16_t in, const uint8_t *dst)
{
	const struct cpe_iface *p = &ifs->ifs[in];
	uint16_t j;
	uint8_t i;

	if (cpe_is_ll6(dst))
		return p->ll6;
	for (i = 0; i < p->nb_ip6; i++)
		if (cpe_in_prefix(dst, p->ip6[i].a, p->ip6[i].plen))
			return p->ip6[i].a;
	if (p->nb_ip6 != 0)
		return p->ip6[0].a;
	for (j = 0; j < ifs->nb; j++)
		if (ifs->ifs[j].nb_ip6 != 0)
			return ifs->ifs[j].ip6[0].a;
	return p->ll6;
}

/* Whether m may have an error (and the bucket lets one go). */
static bool
deserves(struct cpe_icmp6_error *c, const struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *oip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t olen = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	const uint8_t *ol4 = (const uint8_t *)(oip + 1);

	return !(IP6_SRC(oip)[0] == 0xff || IP6_DST(oip)[0] == 0xff ||
		 memcmp(IP6_SRC(oip), unspec, 16) == 0 ||
		 (oip->proto == IPPROTO_ICMPV6 &&
		  (olen < sizeof(*oip) + 1 ||
		   rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN +
		   sizeof(*oip) + 1 || ol4[0] < 128))) && rate_ok(c);
}

/* The error about m: a new mbuf, or NULL. */
static struct rte_mbuf *
build(struct cpe_icmp6_error *c, struct rte_mbuf *m, uint8_t type,
      uint32_t param)
{
	const struct rte_ipv6_hdr *oip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t q = RTE_MIN(rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN,
			     (uint32_t)CPE_ICMP6_MAX - 40 - 8);
	struct rte_ipv6_hdr *ip;
	const void *quoted;
	struct rte_mbuf *e;
	uint8_t *p, *ic;

	e = rte_pktmbuf_alloc(c->env->pool);
	if (e == NULL) {
		c->nomem++;
		return NULL;
	}
	p = (uint8_t *)rte_pktmbuf_append(e, RTE_ETHER_HDR_LEN + 40 + 8 + q);
	if (p == NULL) {
		rte_pktmbuf_free(e);
		return NULL;
	}
	/* In a new mbuf's headroom: 2-aligned after the Ethernet header. */
	ip = (struct rte_ipv6_hdr *)(void *)(p + RTE_ETHER_HDR_LEN);
	ic = (uint8_t *)(ip + 1);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(8 + q));
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 64;
	memcpy(IP6_DST(ip), IP6_SRC(oip), 16);
	memcpy(IP6_SRC(ip), source_for(c->ifs, cpe_in(m), IP6_SRC(oip)), 16);
	ic[0] = type;
	ic[1] = 0;
	ic[2] = ic[3] = 0;
	param = rte_cpu_to_be_32(param);
	memcpy(ic + 4, &param, 4);
	quoted = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN, q, ic + 8);
	if (quoted != NULL && quoted != (const void *)(ic + 8))
		memcpy(ic + 8, quoted, q);
	cpe_put16(ic + 2, rte_ipv6_udptcp_cksum(ip, ic));
	return e;
}

/* m's error, if it deserves one, towards ip6_output. */
static void
error(struct rte_graph *g, struct rte_node *node, struct cpe_icmp6_error *c,
      struct rte_mbuf *m)
{
	static const uint8_t type[] = { 0, 3, 1, 2 };
	struct cpe_mb *mb = cpe_mb(m);
	struct rte_mbuf *e;

	if (!deserves(c, m))
		return;
	e = build(c, m, type[mb->why],
		  mb->why == CPE_ICMP6_TOO_BIG ? mb->mtu : 0);
	if (e == NULL)
		return;
	if (mb->why == CPE_ICMP6_TIME)
		c->time_exceeded++;
	else if (mb->why == CPE_ICMP6_TOO_BIG)
		c->too_big++;
	else
		c->unreach++;
	e->port = m->port;
	cpe_mb_init(e, CPE_MB_NOCACHE);
	cpe_trace_inherit(c->env, e, m);
	rte_node_enqueue_x1(g, node, ICMP6_OUTPUT, e);
}

static uint16_t
icmp6_error_process(struct rte_graph *g, struct rte_node *node, void **objs,
		    uint16_t cnt)
{
	struct cpe_icmp6_error *c = CPE_CTX(node);
	static const uint16_t drop[] = { ICMP6_DROP_TTL, ICMP6_DROP_TTL,
		ICMP6_DROP_NO_ROUTE, ICMP6_DROP_MTU };
	uint16_t next[CPE_CHUNK], i, k, base;

	for (base = 0; base < cnt; base += k) {
		k = RTE_MIN((uint16_t)(cnt - base), (uint16_t)CPE_CHUNK);
		for (i = 0; i < k; i++) {
			error(g, node, c, objs[base + i]);
			next[i] = drop[cpe_mb(objs[base + i])->why];
		}
		cpe_enqueue(g, node, c->env, objs + base, next, k);
	}
	return cnt;
}

static int
icmp6_error_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_icmp6_error *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->tokens = ICMP6_BURST;
	c->refill = dp->env.now;
	return 0;
}

static struct rte_node_register icmp6_error_node = {
	.name = "icmp6_error",
	.process = icmp6_error_process,
	.init = icmp6_error_init,
	.fini = cpe_node_fini,
	.nb_edges = ICMP6_NB,
	.next_nodes = {
		[ICMP6_OUTPUT] = "ip6_output",
		[ICMP6_DROP_TTL] = "drop-ttl",
		[ICMP6_DROP_NO_ROUTE] = "drop-no_route",
		[ICMP6_DROP_MTU] = "drop-mtu",
	},
};

RTE_NODE_REGISTER(icmp6_error_node);
