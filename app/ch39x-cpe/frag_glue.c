/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fragments in the router (frag.c is the pure tracker): the decision of
 * a datagram's first fragment kept for its later ones (IPv4: the output
 * port, next hop and NAT addresses; IPv6: accepted by the firewall), a
 * DF-clear IPv4 packet over the egress MTU cut into fragments, and TCP's
 * MSS clamped to the path's MTU on SYNs.
 */

#include <inttypes.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "cpe.h"

static struct cpe_frag tab;
static bool frag_on;
static uint64_t split_pkts, split_frags, split_drops, mss_clamped;

/* What a first fragment decided, in its entry's data. */
enum { DEC_FWD = 1, DEC_LOCAL };
struct dec {
	uint8_t kind;
	uint8_t nat;
	uint16_t out;
	uint32_t nh;			/* IPv4 next hop, host order */
	uint32_t sip, dip;		/* NAT's new addresses (network) */
};

int
cpe_frag_setup(void)
{
	if (cpe.o->frag_max == 0)
		return 0;
	if (cpe_frag_init(&tab, cpe.o->frag_max, cpe.hz,
			  cpe.o->frag_timeout) != 0) {
		fprintf(stderr, "ch39x-cpe: --frag-max %u: cannot allocate "
			"the fragment table\n", cpe.o->frag_max);
		return -1;
	}
	frag_on = true;
	return 0;
}

void
cpe_frag_close(void)
{
	frag_on = false;
	cpe_frag_free(&tab);
}

void
cpe_frag_age_ms(uint32_t ms)
{
	if (frag_on)
		cpe_frag_age(&tab, cpe_age_budget(tab.mask + 1, ms), cpe.now);
}

int
cpe_frag_info(const struct rte_mbuf *m, struct cpe_frag_info *fi)
{
	int rc = cpe_frag_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
							 RTE_ETHER_HDR_LEN),
				rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN,
				fi);

	if (rc < 0 && frag_on)
		cpe_frag_drop(&tab, (enum cpe_frag_reason)-rc);
	else if (rc < 0)
		cpe.st.drop_frag++;
	return rc;
}

/* The first fragment of fi went on: out (-1: to the router). */
void
cpe_frag_first4(const struct cpe_frag_info *fi, int out, uint32_t nh,
		const struct cpe_xlate *x)
{
	struct dec *d;

	if (!frag_on || (d = cpe_frag_first(&tab, fi, cpe.now)) == NULL)
		return;
	memset(d, 0, sizeof(*d));
	d->kind = out < 0 ? DEC_LOCAL : DEC_FWD;
	d->out = out < 0 ? 0 : (uint16_t)out;
	d->nh = nh;
	d->nat = x != NULL && x->nat;
	if (d->nat) {
		d->sip = x->sip;
		d->dip = x->dip;
	}
}

void
cpe_frag_first6(const struct cpe_frag_info *fi, bool local)
{
	struct dec *d;

	if (!frag_on || (d = cpe_frag_first(&tab, fi, cpe.now)) == NULL)
		return;
	memset(d, 0, sizeof(*d));
	d->kind = local ? DEC_LOCAL : DEC_FWD;
}

/*
 * A later fragment: 1 when the first's decision took it (*local: it is
 * the router's; else forwarded or dropped here), 0 when no first was
 * seen (the caller's plain path decides), -1 dropped (counted).
 */
static int
later(const struct cpe_frag_info *fi, const struct dec **d)
{
	enum cpe_frag_reason why;

	if (!frag_on)
		return 0;
	*d = cpe_frag_later(&tab, fi, cpe.now, &why);
	if (*d != NULL)
		return 1;
	return why == CPE_FRAG_DROP_NO_FIRST ? 0 : -1;
}

int
cpe_frag_later6(const struct cpe_frag_info *fi)
{
	const struct dec *d = NULL;

	return later(fi, &d);
}

void
cpe_frag_no_first(void)
{
	if (frag_on)
		cpe_frag_drop(&tab, CPE_FRAG_DROP_NO_FIRST);
}

/* Out of m (from its IP header on) into fragments of at most mtu bytes,
 * each sent to dmac's next hop as cpe_tx does; m is consumed.
 */
void
cpe_frag_split4(uint16_t out, uint32_t nh, struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t ihl = rte_ipv4_hdr_len(ip), tot = rte_be_to_cpu_16(
		ip->total_length), mtu = cpe.ports[out].mtu, chunk, off, n;
	uint16_t fo = rte_be_to_cpu_16(ip->fragment_offset);
	uint32_t base = (uint32_t)(fo & RTE_IPV4_HDR_OFFSET_MASK) * 8;
	struct rte_ether_addr dmac;
	struct rte_ipv4_hdr *fip;
	struct rte_mbuf *f;
	const void *src;
	uint8_t *p;

	chunk = (mtu - ihl) & ~7u;
	/* Options would have to be sorted by their copy flag: not done. */
	if (ihl != sizeof(*ip) || mtu < ihl + 8 ||
	    RTE_ETHER_HDR_LEN + ihl + chunk >
	    (uint32_t)rte_pktmbuf_data_room_size(cpe.pool) -
	    RTE_PKTMBUF_HEADROOM) {
		split_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	split_pkts++;
	for (off = 0; off < tot - ihl; off += chunk) {
		n = RTE_MIN(chunk, tot - ihl - off);
		f = rte_pktmbuf_alloc(cpe.pool);
		if (f == NULL) {
			split_drops++;
			break;
		}
		p = (uint8_t *)rte_pktmbuf_append(f, (uint16_t)(
			RTE_ETHER_HDR_LEN + ihl + n));
		if (p == NULL) {
			rte_pktmbuf_free(f);
			split_drops++;
			break;
		}
		/* Ethernet and IP headers, then this piece of payload. */
		memcpy(p, rte_pktmbuf_mtod(m, void *), RTE_ETHER_HDR_LEN + ihl);
		/* A pointer into one of m's segments, or copied to p. */
		src = rte_pktmbuf_read(m, RTE_ETHER_HDR_LEN + ihl + off, n,
				       p + RTE_ETHER_HDR_LEN + ihl);
		if (src == NULL) {
			rte_pktmbuf_free(f);
			split_drops++;
			break;
		}
		if (src != p + RTE_ETHER_HDR_LEN + ihl)
			memcpy(p + RTE_ETHER_HDR_LEN + ihl, src, n);
		fip = (struct rte_ipv4_hdr *)(void *)(p + RTE_ETHER_HDR_LEN);
		fip->total_length = rte_cpu_to_be_16((uint16_t)(ihl + n));
		fip->fragment_offset = rte_cpu_to_be_16((uint16_t)(
			((base + off) / 8) |
			((off + n < tot - ihl || (fo & RTE_IPV4_HDR_MF_FLAG)) ?
			 RTE_IPV4_HDR_MF_FLAG : 0)));
		fip->hdr_checksum = 0;
		fip->hdr_checksum = rte_ipv4_cksum(fip);
		split_frags++;
		if (cpe_neigh_resolve(out, nh, f, &dmac) != 0)
			continue;	/* queued until ARP answers */
		rte_ether_addr_copy(&dmac, &rte_pktmbuf_mtod(f,
			struct rte_ether_hdr *)->dst_addr);
		cpe_tx(out, f);
	}
	rte_pktmbuf_free(m);
}

/* A later IPv4 fragment on its first's way: NAT's addresses, TTL, MTU. */
static void
forward4(const struct dec *d, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_ether_addr dmac;

	if (ip->time_to_live <= 1) {
		cpe.st.drop_ttl++;
		rte_pktmbuf_free(m);
		return;
	}
	ip->time_to_live--;
	if (d->nat) {
		ip->src_addr = d->sip;
		ip->dst_addr = d->dip;
	}
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	m->ol_flags = 0;
	rte_ether_addr_copy(&cpe.ports[d->out].mac, &eh->src_addr);
	if (rte_be_to_cpu_16(ip->total_length) > cpe.ports[d->out].mtu) {
		if (ip->fragment_offset &
		    rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG)) {
			cpe.st.drop_mtu++;
			rte_pktmbuf_free(m);
		} else {
			cpe_frag_split4(d->out, d->nh, m);
		}
		return;
	}
	if (cpe_neigh_resolve(d->out, d->nh, m, &dmac) != 0)
		return;
	rte_ether_addr_copy(&dmac, &eh->dst_addr);
	cpe_tx(d->out, m);
}

int
cpe_frag_later4(uint16_t in, struct rte_mbuf *m,
		const struct cpe_frag_info *fi)
{
	const struct dec *d = NULL;
	int rc = later(fi, &d);

	if (rc == 0)
		return 0;
	if (rc < 0) {
		rte_pktmbuf_free(m);
		return 1;
	}
	if (d->kind == DEC_LOCAL)
		cpe_punt(in, m);
	else
		forward4(d, m);
	return 1;
}

/*
 * TCP MSS option of a SYN clamped to limit (the MTU - 40 or 60 of the
 * smaller of the two ports), the checksum updated in place.
 */
void
cpe_mss_clamp(uint8_t *tcp, uint32_t len, uint32_t limit)
{
	uint32_t doff, i, mss, a, nw, k, adj;
	uint16_t *ck = (uint16_t *)(void *)(tcp + 16), before[2], after[2];

	if (len < 20 || !(tcp[13] & RTE_TCP_SYN_FLAG))
		return;
	doff = (uint32_t)(tcp[12] >> 4) * 4;
	if (doff < 20 || doff > len)
		return;
	for (i = 20; i < doff;) {
		if (tcp[i] == 0)
			break;			/* end of options */
		if (tcp[i] == 1) {
			i++;			/* no-op */
			continue;
		}
		if (i + 1 >= doff || tcp[i + 1] < 2 || i + tcp[i + 1] > doff)
			break;			/* malformed: left as it is */
		if (tcp[i] == 2 && tcp[i + 1] == 4) {
			mss = (uint32_t)tcp[i + 2] << 8 | tcp[i + 3];
			if (mss <= limit)
				return;
			/* The 16-bit words holding the two bytes (one or
			 * two: the option may sit at an odd offset).
			 */
			a = (i + 2) & ~1u;
			nw = a == ((i + 3) & ~1u) ? 1 : 2;
			if (a + 2 * nw > len)
				return;
			memcpy(before, tcp + a, 2 * nw);
			tcp[i + 2] = (uint8_t)(limit >> 8);
			tcp[i + 3] = (uint8_t)limit;
			memcpy(after, tcp + a, 2 * nw);
			adj = 0;
			for (k = 0; k < nw; k++)
				adj = cpe_adj16(adj, before[k], after[k]);
			*ck = cpe_csum_update(*ck, adj);
			mss_clamped++;
			return;
		}
		i += tcp[i + 1];
	}
}

static void
stats_line(FILE *f)
{
	const struct cpe_frag_stats *s = &tab.st;
	int r;

	fprintf(f, "  fragments: tracked %u first %" PRIu64 " later %" PRIu64
		" done %" PRIu64 " expired %" PRIu64 " evicted %" PRIu64,
		tab.in_use, s->first, s->later, s->done, s->expired,
		s->evicted);
	for (r = 1; r < CPE_FRAG_NB_REASONS; r++)
		fprintf(f, " %s %" PRIu64, cpe_frag_reason_name(r),
			s->drops[r]);
	fprintf(f, " split %" PRIu64 " split_fragments %" PRIu64
		" split_drops %" PRIu64 " mss_clamped %" PRIu64 "\n",
		split_pkts, split_frags, split_drops, mss_clamped);
}

void
cpe_frag_print(FILE *f)
{
	stats_line(f);
}

void
cpe_frag_json(FILE *f)
{
	const struct cpe_frag_stats *s = &tab.st;
	int r;

	fprintf(f, "  \"fragments\": {\"on\": %s, \"tracked\": %u, \"first\": %"
		PRIu64 ", \"later\": %" PRIu64 ", \"done\": %" PRIu64
		", \"expired\": %" PRIu64 ", \"evicted\": %" PRIu64
		", \"drops\": {", frag_on ? "true" : "false", tab.in_use,
		s->first, s->later, s->done, s->expired, s->evicted);
	for (r = 1; r < CPE_FRAG_NB_REASONS; r++)
		fprintf(f, "%s\"%s\": %" PRIu64, r > 1 ? ", " : "",
			cpe_frag_reason_name(r), s->drops[r]);
	fprintf(f, "}, \"split\": %" PRIu64 ", \"split_fragments\": %" PRIu64
		", \"split_drops\": %" PRIu64 ", \"mss_clamped\": %" PRIu64
		"},\n", split_pkts, split_frags, split_drops, mss_clamped);
}
