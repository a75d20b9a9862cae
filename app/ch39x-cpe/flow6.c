/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The IPv6 fast path: a flow cache of its own, keyed by the 5-tuple and
 * the ingress port, next to flow.c's IPv4 one. A separate table rather
 * than one wider key: the IPv4 key stays 16 bytes (hash and compare of
 * the common case untouched) and the IPv6 entries need no NAT state. A
 * hit rewrites the MACs and decrements the hop limit (IPv6 has no header
 * checksum, and no NAT: nothing else changes). What the cache does not
 * take goes to fwd6.c: extension headers, hop limit about to expire,
 * packets over the egress MTU (packet too big), anything but TCP, UDP and
 * ICMPv6 echo. Entries follow flow.c's rules: they age out after
 * --flow-timeout idle seconds, and cpe.gen retires them all when a route
 * or a neighbour (MAC change included) changes.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "cpe.h"
#include "flow_tab.h"

struct flow6_key {
	uint8_t sip[16], dip[16];
	uint16_t sport, dport;		/* ICMPv6 echo: id, 0 */
	uint8_t proto;
	uint8_t port;			/* ingress, router port index */
	uint8_t icmp_type;
	uint8_t pad;
};

struct flow6 {
	struct cpe_fent h;
	struct flow6_key key;
};

static struct cpe_ftab ft;
static struct flow6 *flows;		/* ft.ents */

int
cpe_flow6_init(void)
{
	int ret;

	RTE_BUILD_BUG_ON(sizeof(struct flow6_key) != CPE_FLOW6_KEY_LEN);
	ret = cpe_ftab_create(&ft, "cpe_flows6", sizeof(struct flow6_key),
			      sizeof(struct flow6),
			      offsetof(struct flow6, key));
	flows = ft.ents;
	return ret;
}

uint32_t
cpe_flow6_count(void)
{
	return cpe_ftab_count(&ft);
}

uint32_t
cpe_flow6_drop_phys(uint16_t k)
{
	return cpe_ftab_drop_phys(&ft, k);
}

/* The key of an IPv6 packet the fast path may take, or -1. */
int
cpe_flow6_key(uint16_t in, const struct rte_mbuf *m, void *key)
{
	const struct rte_ether_hdr *eh;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *l4;
	struct flow6_key *k = key;

	/* The first segment holds the headers (and 8 bytes of L4). */
	if (rte_pktmbuf_data_len(m) < 14 + 40 + 8)
		return -1;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return -1;
	ip = (const struct rte_ipv6_hdr *)(eh + 1);
	if ((ip->vtc_flow & rte_cpu_to_be_32(0xf0000000)) !=
	    rte_cpu_to_be_32(0x60000000) || ip->hop_limits <= 1 ||
	    rte_be_to_cpu_16(ip->payload_len) < 8 ||
	    rte_pktmbuf_pkt_len(m) != 14 + 40 +
	    (uint32_t)rte_be_to_cpu_16(ip->payload_len))
		return -1;
	l4 = (const uint8_t *)(ip + 1);
	memcpy(k->sip, IP6_SRC(ip), 16);
	memcpy(k->dip, IP6_DST(ip), 16);
	k->proto = ip->proto;
	k->port = (uint8_t)in;
	k->pad = 0;
	k->icmp_type = 0;
	switch (ip->proto) {
	case IPPROTO_TCP:
		/* SYN, FIN and RST to the slow path: the firewall's state. */
		if (l4[13] & (RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG |
			      RTE_TCP_RST_FLAG))
			return -1;
		/* fall through */
	case IPPROTO_UDP:
		memcpy(&k->sport, l4, 2);
		memcpy(&k->dport, l4 + 2, 2);
		return 0;
	case IPPROTO_ICMPV6:
		if (l4[0] != 128 && l4[0] != 129)	/* echo only */
			return -1;
		k->icmp_type = l4[0];
		memcpy(&k->sport, l4 + 4, 2);
		k->dport = 0;
		return 0;
	default:
		return -1;
	}
}

int32_t
cpe_flow6_learn(const void *key, const struct cpe_xlate *x)
{
	int32_t pos;

	if (ft.h == NULL)
		return -1;
	pos = cpe_ftab_learn(&ft, key, x);
	if (pos >= 0)
		cpe.st.v6.flow_installs++;
	return pos;
}

void
cpe_flow6_del_ct(int32_t pos, uint32_t ct)
{
	struct cpe_fent *e;

	if (ft.h == NULL)
		return;
	e = cpe_ftab_at(&ft, (uint32_t)pos);
	if (e->used && e->x.ct == ct) {
		cpe_ftab_del(&ft, (uint32_t)pos);
		cpe.st.flow_invalidated++;
	}
}

/*
 * One lookup per packet (not flow.c's bulk): IPv6 packets reach here
 * only when the IPv4 key refused them, in arrival order.
 */
bool
cpe_flow6_fast(uint16_t in, struct rte_mbuf *m)
{
	struct flow6_key k;
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	struct flow6 *f;
	int32_t pos;

	if (ft.h == NULL || cpe_flow6_key(in, m, &k) != 0)
		return false;
	pos = rte_hash_lookup(ft.h, &k);
	if (pos < 0)
		return false;
	f = &flows[pos];
	if (f->h.gen != cpe.gen) {
		cpe.st.fast_stale++;
		cpe_ftab_del(&ft, (uint32_t)pos);
		return false;
	}
	if (rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN > f->h.x.mtu)
		return false;
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	memcpy(eh, &f->h.x.dmac, 2 * RTE_ETHER_ADDR_LEN);
	ip->hop_limits--;
	f->h.last = cpe.now;
	if (f->h.x.ct != UINT32_MAX)
		cpe_fw_touch(&cpe_fw, f->h.x.ct, cpe.now);
	cpe.st.fast_hits++;
	cpe.st.v6.fast_hits++;
	cpe_tx(f->h.x.out, m);
	return true;
}

/* The slice of the table for ms milliseconds: idle and stale go. */
void
cpe_flow6_age(uint32_t ms)
{
	cpe.st.v6.flow_evictions += cpe_ftab_age(&ft, ms);
}
