/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * An ICMP error (destination unreachable, time exceeded, parameter
 * problem) about a packet of a NAT session (nat.h). From the WAN: it
 * quotes our translated packet (from the WAN address and external port),
 * so the outer destination and the quoted source go back to the LAN
 * host's. From a LAN host: it quotes a translated reply (to the LAN
 * host), so the outer source and the quoted destination become the WAN
 * address and external port. Quoted checksums are updated incrementally
 * where quoted; the ICMP checksum is computed again (errors are small, in
 * the first segment).
 */

#include <errno.h>
#include <string.h>

#include <rte_icmp.h>
#include <rte_ip.h>

#include "nat.h"

/* The quoted packet of an ICMP error: its header, L4, their lengths. */
struct quote {
	struct rte_icmp_hdr *ic;
	uint32_t len;			/* of the ICMP message */
	struct rte_ipv4_hdr *q;
	uint8_t *ql4;
	uint32_t qlen;
};

static int
quote_of(struct rte_mbuf *m, struct rte_ipv4_hdr *ip, struct quote *qt)
{
	uint32_t ihl = rte_ipv4_hdr_len(ip), tot, qihl;
	uint8_t *l4;

	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot > rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr))
		return -EINVAL;
	l4 = (uint8_t *)ip + ihl;
	qt->len = tot - ihl;
	if (qt->len < 8 + sizeof(*qt->q))
		return -EINVAL;
	qt->ic = (struct rte_icmp_hdr *)l4;
	/* l4 is 2-aligned (an IPv4 header, a multiple of 4, past one). */
	qt->q = (struct rte_ipv4_hdr *)(void *)(l4 + 8);
	qihl = rte_ipv4_hdr_len(qt->q);
	if ((qt->q->version_ihl >> 4) != 4 || qihl < 20 ||
	    qt->len < 8 + qihl + 8)
		return -EINVAL;
	qt->ql4 = (uint8_t *)qt->q + qihl;
	qt->qlen = qt->len - 8 - qihl;
	return 0;
}

/* The quoted packet's key, as the session table keys it: 0 or -ENOTSUP. */
static int
quote_key(const struct quote *qt, bool from_wan, struct cpe_nat_key *k)
{
	uint16_t sp, dp;

	memset(k, 0, sizeof(*k));
	k->proto = qt->q->next_proto_id;
	if (k->proto == IPPROTO_TCP || k->proto == IPPROTO_UDP) {
		memcpy(&sp, qt->ql4, 2);
		memcpy(&dp, qt->ql4 + 2, 2);
	} else if (k->proto == IPPROTO_ICMP &&
		   qt->ql4[0] == (from_wan ? RTE_ICMP_TYPE_ECHO_REQUEST :
				  RTE_ICMP_TYPE_ECHO_REPLY)) {
		memcpy(from_wan ? &sp : &dp, qt->ql4 + 4, 2);
		if (from_wan)
			dp = 0;
		else
			sp = 0;
	} else {
		return -ENOTSUP;
	}
	/* From the WAN: WAN addr:ext -> remote:rport; from a LAN host:
	 * remote:rport -> LAN addr:port. Either way its reverse.
	 */
	k->a = qt->q->dst_addr;
	k->b = qt->q->src_addr;
	k->pa = dp;
	k->pb = sp;
	return 0;
}

/* The quoted header's source (from WAN) or destination (from LAN). */
static void
quote_rewrite(const struct quote *qt, bool from_wan, uint8_t proto,
	      uint32_t newa, uint16_t newp)
{
	uint8_t *qa = from_wan ? (uint8_t *)qt->q + 12 : (uint8_t *)qt->q + 16;
	uint8_t *qp = proto == IPPROTO_ICMP ? qt->ql4 + 4 :
		from_wan ? qt->ql4 : qt->ql4 + 2;
	uint8_t *csum = NULL;
	uint32_t olda, adj;
	uint16_t oldp;

	memcpy(&oldp, qp, 2);
	memcpy(&olda, qa, 4);
	adj = cpe_adj32(0, olda, newa);
	qt->q->hdr_checksum = cpe_csum_update(qt->q->hdr_checksum, adj);
	if (proto == IPPROTO_UDP && qt->qlen >= 8)
		csum = qt->ql4 + 6;
	else if (proto == IPPROTO_TCP && qt->qlen >= 18)
		csum = qt->ql4 + 16;
	else if (proto == IPPROTO_ICMP)
		csum = qt->ql4 + 2;
	if (proto == IPPROTO_ICMP)
		adj = 0;	/* no pseudo-header */
	adj = cpe_adj16(adj, oldp, newp);
	if (csum != NULL && !(proto == IPPROTO_UDP && cpe_get16(csum) == 0))
		cpe_put16(csum, cpe_csum_update(cpe_get16(csum), adj));
	memcpy(qa, &newa, 4);
	memcpy(qp, &newp, 2);
}

int
cpe_nat_icmp_error(struct cpe_nat *n, struct rte_mbuf *m, bool from_wan)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_nat_sess *s;
	struct cpe_nat_key k;
	struct quote qt;
	uint32_t newa;
	uint16_t newp;
	void *data;
	int32_t pos;

	if (quote_of(m, ip, &qt) != 0)
		return -EINVAL;
	if (quote_key(&qt, from_wan, &k) != 0)
		return -ENOTSUP;
	if (from_wan) {
		if (rte_hash_lookup_data(n->h_in, &k, &data) < 0)
			return -ENOENT;
		s = &n->sess[(uintptr_t)data];
		newa = s->out.a;
		newp = s->out.pa;
		ip->hdr_checksum = cpe_csum_update(ip->hdr_checksum,
			cpe_adj32(0, ip->dst_addr, newa));
		ip->dst_addr = newa;
	} else {
		pos = rte_hash_lookup(n->h_out, &k);
		if (pos < 0)
			return -ENOENT;
		s = &n->sess[pos];
		newa = n->ifs->ifs[n->ifs->wan].ip_be;
		newp = s->ext;
		ip->hdr_checksum = cpe_csum_update(ip->hdr_checksum,
			cpe_adj32(0, ip->src_addr, newa));
		ip->src_addr = newa;
	}
	quote_rewrite(&qt, from_wan, k.proto, newa, newp);
	qt.ic->icmp_cksum = 0;
	qt.ic->icmp_cksum = (uint16_t)~rte_raw_cksum(qt.ic, qt.len);
	n->st.icmp_err_xlated++;
	return 0;
}
