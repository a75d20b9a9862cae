/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The fast path: a flow cache (rte_hash) keyed by the 5-tuple and the
 * ingress port. A hit applies the slow path's cached result (egress port,
 * MACs, NAT rewrite, TTL) with checksum deltas computed once at learning
 * (RFC 1624), so a hit costs one bulk hash lookup and a few stores: no
 * route, ARP or NAT lookup. What the cache cannot take goes to the slow
 * path: fragments, IP options, TTL about to expire, TCP SYN/FIN/RST (the
 * NAT follows the TCP state there), packets over the egress MTU (ICMP
 * fragmentation needed), anything but TCP, UDP and ICMP echo. Entries age
 * out after --flow-timeout idle seconds, and a generation number retires
 * them all when a route or a neighbour changes; an expiring NAT session
 * deletes its own two entries; a port that goes down deletes those out
 * of it (hotplug.c), and none is learnt out of it while it is down.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "cpe.h"
#include "flow_tab.h"

struct flow_key {
	uint32_t sip, dip;		/* network order */
	uint16_t sport, dport;		/* ICMP: echo id, 0 */
	uint8_t proto;
	uint8_t port;			/* ingress, router port index */
	uint8_t icmp_type;
	uint8_t pad;
};

struct flow {
	struct cpe_fent h;
	struct flow_key key;
};

static struct cpe_ftab ft;
static struct flow *flows;		/* ft.ents */

int
cpe_flow_init(void)
{
	int ret;

	RTE_BUILD_BUG_ON(sizeof(struct flow_key) != CPE_FLOW_KEY_LEN);
	ret = cpe_ftab_create(&ft, "cpe_flows", sizeof(struct flow_key),
			      sizeof(struct flow), offsetof(struct flow, key));
	flows = ft.ents;
	return ret;
}

uint32_t
cpe_flow_count(void)
{
	return cpe_ftab_count(&ft);
}

uint32_t
cpe_flow_drop_phys(uint16_t k)
{
	return cpe_ftab_drop_phys(&ft, k);
}

void
cpe_flow_del(int32_t pos)
{
	cpe_ftab_del(&ft, (uint32_t)pos);
}

void
cpe_flow_del_sess(int32_t pos, uint32_t sess)
{
	/* The slot may hold another flow by now. */
	if (flows != NULL && flows[pos].h.used &&
	    flows[pos].h.x.sess == sess) {
		cpe_flow_del(pos);
		cpe.st.flow_invalidated++;
	}
}

void
cpe_flow_del_ct(int32_t pos, uint32_t ct)
{
	/* The slot may hold another flow by now. */
	if (flows != NULL && flows[pos].h.used && flows[pos].h.x.ct == ct) {
		cpe_flow_del(pos);
		cpe.st.flow_invalidated++;
	}
}

/*
 * The key of a packet the fast path may take, or -1. Only the first
 * segment is read: headers are there whatever the MTU.
 */
int
cpe_flow_key(uint16_t in, const struct rte_mbuf *m, void *key)
{
	const struct rte_ether_hdr *eh;
	const struct rte_ipv4_hdr *ip;
	const uint8_t *l4;
	struct flow_key *k = key;

	if (rte_pktmbuf_data_len(m) < 14 + 20 + 20)
		return -1;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -1;
	ip = (const struct rte_ipv4_hdr *)(eh + 1);
	if (ip->version_ihl != RTE_IPV4_VHL_DEF || ip->time_to_live <= 1 ||
	    (ip->fragment_offset &
	     rte_cpu_to_be_16(RTE_IPV4_HDR_MF_FLAG |
			      RTE_IPV4_HDR_OFFSET_MASK)))
		return -1;
	l4 = (const uint8_t *)(ip + 1);
	k->sip = ip->src_addr;
	k->dip = ip->dst_addr;
	k->proto = ip->next_proto_id;
	k->port = (uint8_t)in;
	k->pad = 0;
	k->icmp_type = 0;
	switch (ip->next_proto_id) {
	case IPPROTO_TCP:
		if (l4[13] & (RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG |
			      RTE_TCP_RST_FLAG))
			return -1;
		/* fall through */
	case IPPROTO_UDP:
		memcpy(&k->sport, l4, 2);
		memcpy(&k->dport, l4 + 2, 2);
		return 0;
	case IPPROTO_ICMP:
		if (l4[0] != RTE_ICMP_TYPE_ECHO_REQUEST &&
		    l4[0] != RTE_ICMP_TYPE_ECHO_REPLY)
			return -1;
		k->icmp_type = l4[0];
		memcpy(&k->sport, l4 + 4, 2);
		k->dport = 0;
		return 0;
	default:
		return -1;
	}
}

/* The deltas of x's rewrite against this packet's current headers. */
void
cpe_xlate_prepare(const struct rte_mbuf *m, struct cpe_xlate *x)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	const uint8_t *l4 = (const uint8_t *)ip + rte_ipv4_hdr_len(ip);
	uint16_t sp, dp;
	uint32_t a = 0;

	/* TTL - 1: the TTL/protocol word drops by 0x0100 (network order). */
	x->ip_adj = (uint16_t)~rte_cpu_to_be_16(0x0100);
	x->l4_adj = 0;
	x->proto = ip->next_proto_id;
	if (!x->nat)
		return;
	a = cpe_adj32(a, ip->src_addr, x->sip);
	a = cpe_adj32(a, ip->dst_addr, x->dip);
	x->ip_adj += a;
	if (x->proto == IPPROTO_ICMP) {
		memcpy(&sp, l4 + 4, 2);
		x->l4_adj = cpe_adj16(0, sp, x->sport);
	} else {
		memcpy(&sp, l4, 2);
		memcpy(&dp, l4 + 2, 2);
		x->l4_adj = cpe_adj16(cpe_adj16(a, sp, x->sport), dp,
				      x->dport);
	}
}

void
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
		cpe_put16(l4 + 16, cpe_csum_update(cpe_get16(l4 + 16), x->l4_adj));
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
		cpe_put16(l4 + 2, cpe_csum_update(cpe_get16(l4 + 2), x->l4_adj));
		break;
	}
}

void
cpe_flow_learn(uint16_t in, const void *key, const struct cpe_xlate *x)
{
	int32_t pos;

	pos = cpe_ftab_learn(&ft, key, x);
	if (pos < 0)
		return;
	if (x->sess != UINT32_MAX)
		cpe_nat_link_flow(x->sess, cpe.ports[in].wan, pos);
	cpe_fw_link(x->ct, in, pos);
}

/*
 * The keys of a burst into keys, kp (those to look up: the number
 * returned) and at (each packet's place in kp, -1 none). With prefetch,
 * each frame's headroom line asked for too: in the same pass, not a
 * second one over the burst; a constant at each call, so that the plain
 * path's copy has no test of it.
 */
static __rte_always_inline uint16_t
burst_keys(uint16_t in, struct rte_mbuf **pkts, uint16_t n,
	   struct flow_key *keys, const void **kp, int32_t *at, bool prefetch)
{
	uint16_t i, nk = 0;

	for (i = 0; i < n; i++) {
		if (prefetch)
			rte_prefetch0(rte_pktmbuf_mtod_offset(pkts[i],
				char *, -CPE_PPPOE_OVERHEAD));
		at[i] = -1;
		if (cpe_flow_key(in, pkts[i], &keys[i]) == 0) {
			at[i] = nk;
			kp[nk++] = &keys[i];
		}
	}
	return nk;
}

void
cpe_flow_input(uint16_t in, struct rte_mbuf **pkts, uint16_t n)
{
	struct flow_key keys[CPE_BURST];
	const void *kp[CPE_BURST];
	int32_t pos[CPE_BURST], at[CPE_BURST];
	uint16_t i, nk;
	struct rte_mbuf *m;
	struct flow *f;

	/*
	 * Towards a PPPoE WAN the session header goes into the headroom,
	 * the cache line before the frame, which nothing has touched since
	 * the mbuf was made: asked for now, it is there when cpe_tx() needs
	 * it (a miss per packet otherwise, a fifth of the forwarding cost).
	 */
	if (unlikely(cpe.wan >= 0 && cpe.ports[cpe.wan].pppoe) &&
	    !cpe.ports[in].wan)
		nk = burst_keys(in, pkts, n, keys, kp, at, true);
	else
		nk = burst_keys(in, pkts, n, keys, kp, at, false);
	if (nk)
		rte_hash_lookup_bulk(ft.h, kp, nk, pos);
	/* In arrival order, hits and misses alike, so no flow reorders. */
	for (i = 0; i < n; i++) {
		m = pkts[i];
		if (at[i] < 0 || pos[at[i]] < 0)
			goto slow;
		f = &flows[pos[at[i]]];
		if (f->h.gen != cpe.gen) {
			/* A route or neighbour changed since it was learnt. */
			cpe.st.fast_stale++;
			cpe_flow_del(pos[at[i]]);
			goto slow;
		}
		if (rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN > f->h.x.mtu)
			goto slow;
		cpe_xlate_apply(m, &f->h.x);
		f->h.last = cpe.now;
		if (f->h.x.sess != UINT32_MAX)
			cpe_nat_touch(f->h.x.sess);
		else if (f->h.x.ct != UINT32_MAX)
			cpe_fw_touch(&cpe_fw, f->h.x.ct, cpe.now);
		cpe.st.fast_hits++;
		cpe_tx(f->h.x.out, m);
		continue;
slow:
		/* IPv6: its own table (flow6.c). */
		if (at[i] < 0 && cpe_flow6_fast(in, m))
			continue;
		cpe.st.fast_misses++;
		cpe_slow_input(in, m);
	}
}

/* The slice of the table for ms milliseconds: idle and stale go. */
void
cpe_flow_age(uint32_t ms)
{
	cpe_ftab_age(&ft, ms);
}
