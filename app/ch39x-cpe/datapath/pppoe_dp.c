/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The PPPoE session's framing over mbufs (pppoe_dp.h). */

#include <string.h>

#include <rte_ip.h>

#include "pppoe_dp.h"

/*
 * Session frame m (an IPv4 or IPv6 kind, ip_len bytes of IP) as a plain
 * Ethernet frame: the addresses move over the 8 bytes, the IP type in
 * PPPoE's place, the padding after PPPoE's length cut.
 */
static void
decap(struct rte_mbuf *m, enum cpe_pppoe_kind k, uint32_t ip_len)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t type = rte_cpu_to_be_16(k == CPE_PPPOE_IPV4 ?
		RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);

	memmove(f + CPE_PPPOE_OVERHEAD, f, 2 * RTE_ETHER_ADDR_LEN);
	f += CPE_PPPOE_OVERHEAD;
	memcpy(f + 12, &type, 2);
	rte_pktmbuf_adj(m, CPE_PPPOE_OVERHEAD);
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN + ip_len)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) -
				 RTE_ETHER_HDR_LEN - ip_len);
	/* What the PMD read of the frame was not about the inner IP. */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK |
			 RTE_MBUF_F_RX_L4_CKSUM_MASK);
	m->packet_type = 0;
}

enum cpe_pppoe_kind
cpe_pppoe_decap(struct cpe_pppoe_state *s, struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m), ip_len = 0;
	enum cpe_pppoe_kind k;

	/* The headers must be in the first segment to be read in place. */
	if (rte_pktmbuf_data_len(m) < 22 && len > rte_pktmbuf_data_len(m))
		len = rte_pktmbuf_data_len(m);
	k = cpe_pppoe_parse(f, len, s->up ? &s->sess : NULL, false, &ip_len);
	switch (k) {
	case CPE_PPPOE_IPV4:
	case CPE_PPPOE_IPV6:
		decap(m, k, ip_len);
		s->rx_data++;
		break;
	case CPE_PPPOE_BAD:
		s->rx_bad++;
		break;
	case CPE_PPPOE_CTL:
		s->rx_ctl++;
		break;
	case CPE_PPPOE_NONE:
		s->rx_not_pppoe++;
		break;
	default:
		s->rx_other++;
		break;
	}
	return k;
}

void
cpe_pppoe_from_tap(struct cpe_pppoe_state *s, struct rte_mbuf *m)
{
	uint32_t ip_len = 0;
	enum cpe_pppoe_kind k;

	if (!s->up || rte_pktmbuf_data_len(m) < 22)
		return;
	k = cpe_pppoe_parse(rte_pktmbuf_mtod(m, uint8_t *),
			    rte_pktmbuf_pkt_len(m), &s->sess, true, &ip_len);
	if (k == CPE_PPPOE_IPV4 || k == CPE_PPPOE_IPV6)
		decap(m, k, ip_len);
}

/* The session header on IP frame m, in its headroom: 0, or -1 (freed). */
static int
encap(struct cpe_pppoe_state *s, struct rte_mbuf *m, uint16_t type_be)
{
	uint32_t ip_len = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	struct rte_ipv4_hdr *ip;
	uint8_t *f;

	f = (uint8_t *)rte_pktmbuf_prepend(m, CPE_PPPOE_OVERHEAD);
	if (f == NULL || ip_len > 65533) {
		s->tx_drops++;
		rte_pktmbuf_free(m);
		return -1;
	}
	memmove(f, f + CPE_PPPOE_OVERHEAD, 2 * RTE_ETHER_ADDR_LEN);
	cpe_pppoe_hdr(f + 12, s->sess.sid,
		      type_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ?
		      CPE_PPP_IPV4 : CPE_PPP_IPV6, ip_len);
	/*
	 * Adapters insert IPv4 checksums in frames they parse, and few
	 * parse PPPoE (the simulated CH398 does not): the sum is made here.
	 */
	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		ip = (struct rte_ipv4_hdr *)(void *)
			(f + RTE_ETHER_HDR_LEN + CPE_PPPOE_OVERHEAD);
		m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_IPV4);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	return 0;
}

int
cpe_pppoe_into(struct cpe_pppoe_state *s, struct rte_mbuf *m, bool to_ac)
{
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	uint16_t type_be = eh->ether_type;

	if (type_be != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    type_be != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return 0;
	if (!s->up) {
		/* (A punted one: decapsulated, then the session went.) */
		s->tx_no_session++;
		rte_pktmbuf_free(m);
		return -1;
	}
	if (encap(s, m, type_be) != 0)
		return -1;
	if (to_ac) {
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), s->sess.ac,
		       RTE_ETHER_ADDR_LEN);
		s->tx_data++;
	}
	return 0;
}
