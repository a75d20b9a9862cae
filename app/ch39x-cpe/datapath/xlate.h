/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_XLATE_H
#define CPE_XLATE_H

/*
 * What forwarding a packet does to it, as the flow cache keeps it: the
 * MACs, the output interface and its MTU, NAT's new addresses and ports
 * with the checksum deltas computed once (RFC 1624), the NAT session and
 * firewall state it belongs to. The slow path makes one per packet
 * (ip4_rewrite, ip6_rewrite), the learning nodes cache it, flow4/flow6
 * apply it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "cpe_compat.h"
#include "csum.h"

struct cpe_xlate {
	struct rte_ether_addr dmac, smac;
	uint16_t out;			/* the interface it leaves by */
	uint16_t mtu;			/* egress MTU */
	bool nat;			/* rewrite addresses and ports */
	uint8_t proto;
	uint32_t sip, dip;		/* new values, network order */
	uint16_t sport, dport;		/* new values, network order */
	uint32_t ip_adj;		/* one's complement deltas, raw words */
	uint32_t l4_adj;
	uint32_t sess;			/* NAT session, UINT32_MAX: none */
	uint32_t ct;			/* firewall state, UINT32_MAX: none */
};

/*
 * The deltas of x's rewrite against the IPv4 header ip (its TTL still to
 * go down by one, the addresses and ports at sip..dport still the old
 * ones: a packet before cpe_xlate_apply(), or a flow's key).
 */
static inline void
cpe_xlate_prepare(struct cpe_xlate *x, uint8_t proto, uint32_t sip,
		  uint32_t dip, uint16_t sp, uint16_t dp)
{
	uint32_t a = 0;

	/* TTL - 1: the TTL/protocol word drops by 0x0100 (network order). */
	x->ip_adj = (uint16_t)~rte_cpu_to_be_16(0x0100);
	x->l4_adj = 0;
	x->proto = proto;
	if (!x->nat)
		return;
	a = cpe_adj32(a, sip, x->sip);
	a = cpe_adj32(a, dip, x->dip);
	x->ip_adj += a;
	if (proto == IPPROTO_ICMP)
		x->l4_adj = cpe_adj16(0, sp, x->sport);
	else
		x->l4_adj = cpe_adj16(cpe_adj16(a, sp, x->sport), dp,
				      x->dport);
}

/* The ports (ICMP: the echo id in sp) of the IPv4 packet at ip. */
static inline void
cpe_xlate_ports(const struct rte_ipv4_hdr *ip, uint16_t *sp, uint16_t *dp)
{
	const uint8_t *l4 = (const uint8_t *)ip + rte_ipv4_hdr_len(ip);

	if (ip->next_proto_id == IPPROTO_ICMP) {
		memcpy(sp, l4 + 4, 2);
		*dp = 0;
	} else {
		memcpy(sp, l4, 2);
		memcpy(dp, l4 + 2, 2);
	}
}

static __rte_always_inline void
cpe_xlate_apply(struct rte_mbuf *m, const struct cpe_xlate *x)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	uint8_t *l4 = (uint8_t *)ip + rte_ipv4_hdr_len(ip);
	uint16_t csum;

	/* dmac and smac sit together in both: one 12-byte copy. */
	memcpy(eh, &x->dmac, 2 * RTE_ETHER_ADDR_LEN);
	ip->time_to_live--;
	ip->hdr_checksum = cpe_csum_update(ip->hdr_checksum, x->ip_adj);
	if (!x->nat)
		return;
	ip->src_addr = x->sip;
	ip->dst_addr = x->dip;
	switch (x->proto) {
	case IPPROTO_TCP:
		memcpy(l4, &x->sport, 2);
		memcpy(l4 + 2, &x->dport, 2);
		cpe_put16(l4 + 16, cpe_csum_update(cpe_get16(l4 + 16),
						   x->l4_adj));
		break;
	case IPPROTO_UDP:
		memcpy(l4, &x->sport, 2);
		memcpy(l4 + 2, &x->dport, 2);
		csum = cpe_get16(l4 + 6);
		/* 0: sent without checksum; a computed 0 is sent as ~0. */
		if (csum != 0) {
			csum = cpe_csum_update(csum, x->l4_adj);
			cpe_put16(l4 + 6, csum == 0 ? 0xffff : csum);
		}
		break;
	case IPPROTO_ICMP:
		memcpy(l4 + 4, &x->sport, 2);
		cpe_put16(l4 + 2, cpe_csum_update(cpe_get16(l4 + 2),
						  x->l4_adj));
		break;
	}
}

#endif /* CPE_XLATE_H */
