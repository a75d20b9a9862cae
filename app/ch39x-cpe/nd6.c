/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * IPv6 neighbour discovery (RFC 4861), the counterpart of neigh.c's ARP:
 * answers neighbour solicitations for the port's addresses (unicast,
 * solicited-node multicast, and DAD probes from ::), resolves next hops
 * with solicitations to their solicited-node group (holding a few packets
 * per unresolved hop), learns from solicitations and advertisements that
 * carry a link-layer address option. Entries live --arp-timeout seconds
 * after their last confirmation; halfway the router asks again, unicast.
 * A changed MAC or an entry that goes away bumps cpe.gen: cached flows
 * carry the old MAC. Entries are keyed by (address, port): link-local
 * addresses are only unique on their link. Static entries (ctl.c, at run
 * time) are never aged nor changed by what the link says.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_ip.h>

#include "cpe.h"
#include "neigh_sm.h"

#define ND_NS		135
#define ND_NA		136
#define ND_OPT_SLLA	1
#define ND_OPT_TLLA	2
#define NA_F_ROUTER	0x80
#define NA_F_SOLICITED	0x40
#define NA_F_OVERRIDE	0x20
#define ND_LEN		(8 + 16 + 8)	/* NS/NA with one link-layer option */

struct nkey {
	uint8_t a[16];
	uint16_t port;			/* router port index */
	uint16_t pad;
};

/* n.port is k.port: the state machine reads it there. */
struct neigh6 {
	struct nkey k;
	struct cpe_nent n;
};

static struct rte_hash *tbl;
static struct neigh6 *ents;
static uint32_t nb_ents;

int
cpe_nd6_init(void)
{
	return cpe_ntab_create("cpe_nd6", "IPv6 neighbour",
			       sizeof(struct nkey), sizeof(*ents), &tbl,
			       (void **)&ents, &nb_ents);
}

uint32_t
cpe_nd6_count(void)
{
	return tbl == NULL ? 0 : (uint32_t)rte_hash_count(tbl);
}

/* The solicited-node group of a (ff02::1:ffXX:XXXX) and its MAC. */
static void
solicited_node(const uint8_t *a, uint8_t *grp, struct rte_ether_addr *mac)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
					 0, 0, 0, 1, 0xff };

	memcpy(grp, pfx, sizeof(pfx));
	memcpy(grp + 13, a + 13, 3);
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], grp + 12, 4);
}

/*
 * An NS or NA of ours: IPv6 header, the 24 bytes of the message and one
 * link-layer option with the port's MAC. flags: NA flags (NA only).
 */
static void
send_nd(uint16_t idx, uint8_t type, uint8_t flags, const uint8_t *src,
	const uint8_t *dst, const struct rte_ether_addr *dmac,
	const uint8_t *target)
{
	struct cpe_port *p = &cpe.ports[idx];
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	struct rte_mbuf *m;
	uint8_t *ic;

	m = rte_pktmbuf_alloc(cpe.pool);
	if (m == NULL) {
		cpe.st.drop_nomem++;
		return;
	}
	/* A new mbuf's data starts at its headroom: aligned. */
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m,
		sizeof(*eh) + sizeof(*ip) + ND_LEN);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	ic = (uint8_t *)(ip + 1);
	rte_ether_addr_copy(dmac, &eh->dst_addr);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(ND_LEN);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;		/* RFC 4861 7.1: never forwarded */
	memcpy(IP6_SRC(ip), src, 16);
	memcpy(IP6_DST(ip), dst, 16);
	memset(ic, 0, ND_LEN);
	ic[0] = type;
	ic[4] = flags;
	memcpy(ic + 8, target, 16);
	ic[24] = type == ND_NS ? ND_OPT_SLLA : ND_OPT_TLLA;
	ic[25] = 1;			/* 8 bytes */
	memcpy(ic + 26, &p->mac, RTE_ETHER_ADDR_LEN);
	cpe_put16(ic + 2, rte_ipv6_udptcp_cksum(ip, ic));
	if (type == ND_NS)
		cpe.st.v6.ns_sent++;
	else
		cpe.st.v6.na_sent++;
	cpe_tx(idx, m);
}

/* A solicitation for target: multicast when mac is NULL, else a probe. */
static void
send_ns(uint16_t idx, const uint8_t *target, const struct rte_ether_addr *mac)
{
	struct rte_ether_addr dmac;
	uint8_t grp[16];

	if (mac != NULL) {
		send_nd(idx, ND_NS, 0, cpe.ports[idx].ll6, target, mac, target);
		return;
	}
	solicited_node(target, grp, &dmac);
	send_nd(idx, ND_NS, 0, cpe.ports[idx].ll6, grp, &dmac, target);
}

static void
neigh_probe(uint32_t pos, const struct rte_ether_addr *mac)
{
	send_ns(ents[pos].k.port, ents[pos].k.a, mac);
}

static void neigh_del(uint32_t pos);

static const struct cpe_nops nops = {
	.probe = neigh_probe,
	.del = neigh_del,
	.queued = &cpe.st.v6.nd_queued,
	.queue_drops = &cpe.st.v6.nd_queue_drops,
	.expired = &cpe.st.v6.nd_expired,
};

static void
neigh_del(uint32_t pos)
{
	struct neigh6 *e = &ents[pos];

	cpe_nent_drop_queue(&e->n, &nops);
	rte_hash_del_key(tbl, &e->k);
	memset(e, 0, sizeof(*e));
}

static void
make_key(struct nkey *k, uint16_t port, const uint8_t *a)
{
	memcpy(k->a, a, 16);
	k->port = port;
	k->pad = 0;
}

/*
 * What a neighbour said about itself (an NS with its source link-layer
 * address) or an advertisement (override: it may replace a known MAC).
 */
static void
learn(uint16_t in, const uint8_t *a, const struct rte_ether_addr *mac,
      bool create, bool override, bool confirm)
{
	struct neigh6 *e;
	struct nkey k;
	int32_t pos;

	make_key(&k, in, a);
	pos = rte_hash_lookup(tbl, &k);
	if (pos < 0) {
		if (!create)
			return;
		pos = rte_hash_add_key(tbl, &k);
		if (pos < 0)
			return;
		e = &ents[pos];
		memset(e, 0, sizeof(*e));
		e->k = k;
		e->n.port = in;
		e->n.created = cpe.now;
	}
	e = &ents[pos];
	if (e->n.state == N_STATIC)
		return;
	if (e->n.state == N_REACHABLE &&
	    !rte_is_same_ether_addr(&e->n.mac, mac)) {
		if (!override)
			return;	/* RFC 4861 7.2.5: keep the known MAC */
		cpe.st.v6.nd_changed++;
		cpe.gen++;
		confirm = true;
	}
	if (e->n.state != N_REACHABLE)
		cpe.st.v6.nd_learned++;
	e->n.mac = *mac;
	e->n.state = N_REACHABLE;
	if (confirm || e->n.confirmed == 0)
		e->n.confirmed = cpe.now;
	cpe_nent_flush(&e->n);
}

/* A solicited NA without a link-layer option: the known MAC still works. */
static void
confirm_only(uint16_t in, const uint8_t *a)
{
	struct nkey k;
	int32_t pos;

	make_key(&k, in, a);
	pos = rte_hash_lookup(tbl, &k);
	if (pos >= 0 && ents[pos].n.state == N_REACHABLE)
		ents[pos].n.confirmed = cpe.now;
}

static bool
is_unspecified(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/*
 * The options of an NS/NA (after its 24 bytes): every one within the
 * message and non-zero in length (RFC 4861 7.1.1); *lla the link-layer
 * address option of type want, if any. -1: malformed.
 */
static int
parse_opts(const uint8_t *ic, uint32_t len, uint8_t want,
	   const struct rte_ether_addr **lla)
{
	uint32_t off = 24, olen;

	*lla = NULL;
	while (off < len) {
		if (len - off < 2)
			return -1;
		olen = ic[off + 1] * 8u;
		if (olen == 0 || olen > len - off)
			return -1;
		if (ic[off] == want && olen >= 8)
			/* As 2-aligned as the frame's own Ethernet addresses
			 * (options are 8-byte units after a 24-byte header).
			 */
			*lla = (const struct rte_ether_addr *)(const void *)
				(ic + off + 2);
		off += olen;
	}
	return 0;
}

/* The ICMPv6 checksum over the pseudo-header and the message. */
static bool
cksum_ok(const struct rte_ipv6_hdr *ip, const uint8_t *ic, uint32_t len)
{
	uint32_t sum = rte_ipv6_phdr_cksum(ip, 0);

	sum += rte_raw_cksum(ic, len);
	return cpe_csum_fold(sum) == 0xffff;
}

/* The checks of RFC 4861 7.1.1 and 7.1.2 both messages share. */
static int
validate(struct rte_mbuf *m, struct rte_ipv6_hdr *ip, uint8_t **icp,
	 uint32_t *lenp)
{
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	uint8_t *ic = (uint8_t *)(ip + 1);

	/* Only the first segment is read: ND messages are small. */
	if (ip->hop_limits != 255 || ip->proto != IPPROTO_ICMPV6 ||
	    len < 24 || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN +
	    sizeof(*ip) + len || ic[1] != 0 || ic[8] == 0xff ||
	    !cksum_ok(ip, ic, len))
		return -1;
	*icp = ic;
	*lenp = len;
	return 0;
}

int
cpe_nd6_ra_check(const struct rte_mbuf *m, uint16_t *lifetime)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	const uint8_t *ic = (const uint8_t *)(ip + 1);

	/* 16 bytes of message; only the first segment is read. */
	if (ip->hop_limits != 255 || ip->proto != IPPROTO_ICMPV6 ||
	    len < 16 || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN +
	    sizeof(*ip) + len || ic[1] != 0 || IP6_SRC(ip)[0] != 0xfe ||
	    (IP6_SRC(ip)[1] & 0xc0) != 0x80 || !cksum_ok(ip, ic, len))
		return -1;
	*lifetime = rte_be_to_cpu_16(cpe_get16(ic + 6));
	return 0;
}

static void
ns_input(uint16_t in, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eh + 1);
	static const uint8_t all_nodes[16] = { 0xff, 2, [15] = 1 };
	const struct rte_ether_addr *sll;
	struct rte_ether_addr dmac;
	uint8_t *ic, *target, grp[16];
	uint32_t len;
	bool dad;

	cpe.st.v6.ns_rcvd++;
	if (validate(m, ip, &ic, &len) != 0 ||
	    parse_opts(ic, len, ND_OPT_SLLA, &sll) != 0)
		goto bad;
	target = ic + 8;
	dad = is_unspecified(IP6_SRC(ip));
	/* From ::, only to a solicited-node group and without an SLLA. */
	solicited_node(target, grp, &dmac);
	if (dad && (sll != NULL || memcmp(IP6_DST(ip), grp, 16) != 0))
		goto bad;
	if (!cpe_ip6_is_mine(in, target)) {
		cpe_punt(in, m);
		return;
	}
	if (!dad && sll != NULL && rte_is_valid_assigned_ether_addr(sll))
		learn(in, IP6_SRC(ip), sll, true, true, false);
	if (dad) {
		/* Someone probes our address: defend it (RFC 4862 5.4.3). */
		dmac = (struct rte_ether_addr){ { 0x33, 0x33, 0, 0, 0, 1 } };
		send_nd(in, ND_NA, NA_F_ROUTER | NA_F_OVERRIDE, target,
			all_nodes, &dmac, target);
	} else {
		send_nd(in, ND_NA, NA_F_ROUTER | NA_F_SOLICITED |
			NA_F_OVERRIDE, target, IP6_SRC(ip),
			sll != NULL ? sll : &eh->src_addr, target);
	}
	rte_pktmbuf_free(m);
	return;
bad:
	cpe.st.v6.nd_bad++;
	rte_pktmbuf_free(m);
}

static void
na_input(uint16_t in, struct rte_mbuf *m)
{
	struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	const struct rte_ether_addr *tll;
	uint8_t *ic;
	uint32_t len;

	cpe.st.v6.na_rcvd++;
	if (validate(m, ip, &ic, &len) != 0 ||
	    parse_opts(ic, len, ND_OPT_TLLA, &tll) != 0 ||
	    (IP6_DST(ip)[0] == 0xff && (ic[4] & NA_F_SOLICITED))) {
		cpe.st.v6.nd_bad++;
		rte_pktmbuf_free(m);
		return;
	}
	/*
	 * Only hops we asked about or know (learn() creates nothing here);
	 * without a target link-layer address an NA only confirms.
	 */
	if (tll != NULL && rte_is_valid_assigned_ether_addr(tll))
		learn(in, ic + 8, tll, false, (ic[4] & NA_F_OVERRIDE) != 0,
		      (ic[4] & NA_F_SOLICITED) != 0);
	else if (tll == NULL && (ic[4] & NA_F_SOLICITED))
		confirm_only(in, ic + 8);
	rte_pktmbuf_free(m);
}

void
cpe_nd6_input(uint16_t in, struct rte_mbuf *m, uint8_t type)
{
	if (type == ND_NS)
		ns_input(in, m);
	else
		na_input(in, m);
}

int
cpe_nd6_resolve(uint16_t out, const uint8_t *ip, struct rte_mbuf *m,
		struct rte_ether_addr *mac)
{
	struct neigh6 *e;
	struct nkey k;
	int32_t pos;

	if (unlikely(cpe.ports[out].pppoe))
		return cpe_pppoe_resolve(m, mac);
	make_key(&k, out, ip);
	pos = rte_hash_lookup(tbl, &k);
	if (pos >= 0 && (ents[pos].n.state == N_REACHABLE ||
			 ents[pos].n.state == N_STATIC)) {
		*mac = ents[pos].n.mac;
		return 0;
	}
	if (pos < 0) {
		pos = rte_hash_add_key(tbl, &k);
		if (pos < 0) {
			cpe.st.v6.nd_queue_drops++;
			rte_pktmbuf_free(m);
			return -ENOSPC;
		}
		e = &ents[pos];
		memset(e, 0, sizeof(*e));
		e->k = k;
		e->n.port = out;
		e->n.state = N_INCOMPLETE;
		e->n.created = cpe.now;
	}
	/* Keyed by port too: an entry found here is out's, incomplete. */
	return cpe_nent_hold(&ents[pos].n, (uint32_t)pos, out, m, &nops);
}

/* Called a few times a second: probe, expire, give up on silent hops. */
void
cpe_nd6_age(void)
{
	uint64_t timeout = cpe.o->arp_timeout * cpe.hz;
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++)
		cpe_nent_age(&ents[pos].n, pos, timeout, &nops);
}

/*
 * Run-time changes (ctl.c, on the forwarding lcore): a static entry for a
 * on router port idx, added or replacing whatever was there; packets that
 * waited for it leave now. 0, 1 when it replaced an entry, <0 when full.
 */
int
cpe_nd6_static_set(const uint8_t *a, uint16_t idx,
		   const struct rte_ether_addr *mac)
{
	struct nkey k;
	int32_t pos;
	int replaced;

	if (tbl == NULL)
		return -ENODEV;
	make_key(&k, idx, a);
	pos = rte_hash_lookup(tbl, &k);
	replaced = pos >= 0;
	if (pos < 0) {
		pos = rte_hash_add_key(tbl, &k);
		if (pos < 0)
			return pos;
		memset(&ents[pos], 0, sizeof(ents[pos]));
		ents[pos].k = k;
		ents[pos].n.port = idx;
		ents[pos].n.created = cpe.now;
	}
	cpe_nent_set_static(&ents[pos].n, idx, mac, &nops);
	return replaced;
}

/* Removes a's entries (on any port) whatever their state: 0, or -ENOENT. */
int
cpe_nd6_remove(const uint8_t *a)
{
	uint32_t pos;
	int rc = -ENOENT;

	for (pos = 0; ents != NULL && pos < nb_ents; pos++)
		if (ents[pos].n.state != N_FREE &&
		    memcmp(ents[pos].k.a, a, 16) == 0) {
			neigh_del(pos);
			rc = 0;
		}
	if (rc == 0)
		cpe.gen++;
	return rc;
}

/* Calls fn for every entry, in table order; state as text. */
void
cpe_nd6_walk(void (*fn)(const uint8_t *a, uint16_t idx,
			const struct rte_ether_addr *mac, const char *state,
			void *arg), void *arg)
{
	uint32_t pos;

	for (pos = 0; ents != NULL && pos < nb_ents; pos++)
		if (ents[pos].n.state != N_FREE)
			fn(ents[pos].k.a, ents[pos].k.port, &ents[pos].n.mac,
			   cpe_nent_state_name(ents[pos].n.state), arg);
}

/* DPDK port cpe.phys[k] is back (hotplug.c): ages resume. */
void
cpe_nd6_resume(uint16_t k, uint64_t shift)
{
	uint32_t pos;

	for (pos = 0; pos < nb_ents; pos++)
		cpe_nent_resume(&ents[pos].n, k, shift);
}
