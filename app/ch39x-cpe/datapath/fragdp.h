/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FRAGDP_H
#define CPE_FRAGDP_H

/*
 * Fragments in the graph (lib/frag.c is the pure tracker): the decision
 * of a datagram's first fragment kept for its later ones (IPv4: the
 * output interface, next hop and NAT addresses; IPv6: accepted by the
 * firewall), and TCP's MSS clamped to the path's MTU on SYNs. The
 * fragment nodes (ip4_frag, ip6_frag) own the table; the nodes where a
 * first fragment's way is decided record it (ip4_deliver, ip4_rewrite,
 * ip6_frag); the control plane ages it.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"
#include "frag.h"

/* What a first fragment decided, in its entry's data. */
enum { CPE_FRAG_DEC_FWD = 1, CPE_FRAG_DEC_LOCAL };
struct cpe_frag_dec {
	uint8_t kind;
	uint8_t nat;
	uint16_t out;
	uint32_t nh;			/* IPv4 next hop, host order */
	uint32_t sip, dip;		/* NAT's new addresses (network) */
};

struct cpe_fragdp_stats {
	uint64_t split_pkts, split_frags, split_drops, mss_clamped;
	uint64_t bad_off;		/* bad fragments with --frag-max 0 */
};

/*
 * Later fragments that came before their first's way was kept: the first
 * and its later fragments often arrive in one burst, and a node handles
 * its whole batch before the first reaches the node that keeps its way
 * (ip4_rewrite, ip4_deliver, ...). Such a fragment is held once, and the
 * inject node hands it back to ip4_frag / ip6_frag on the next walk.
 */
#define CPE_FRAG_HOLD		64

struct cpe_fragdp {
	struct cpe_frag tab;
	bool on;
	struct rte_mbuf *held[2][CPE_FRAG_HOLD];	/* IPv4, IPv6 */
	uint16_t nb_held[2];
	const struct cpe_env *env;
	struct cpe_fragdp_stats st;
};

/* --frag-max (0: off) and --frag-timeout; NULL: no memory (reported). */
struct cpe_fragdp *cpe_fragdp_create(uint32_t max, uint32_t timeout_s,
				     const struct cpe_env *env);
void cpe_fragdp_free(struct cpe_fragdp *f);
/* A later fragment (of IPv6: v6) held until the next walk: false when
 * it was held once already or the hold is full (the caller drops it). */
bool cpe_fragdp_hold(struct cpe_fragdp *f, struct rte_mbuf *m, bool v6);
/* The held fragments of a family, into pkts (at most max): how many. */
uint16_t cpe_fragdp_take(struct cpe_fragdp *f, bool v6,
			 struct rte_mbuf **pkts, uint16_t max);
void cpe_fragdp_age_ms(struct cpe_fragdp *f, uint32_t ms);
/* m's fragment (as cpe_frag_parse(), after the Ethernet header):
 * 1 and *fi, 0 not one, <0 bad (counted). */
int cpe_fragdp_info(struct cpe_fragdp *f, const struct rte_mbuf *m,
		    struct cpe_frag_info *fi);
/* The first fragment fi went on: to interface out by nh (IPv4, NAT's
 * addresses from mb), or to the router (local). */
void cpe_fragdp_first4(struct cpe_fragdp *f, const struct cpe_frag_info *fi,
		       bool local, uint16_t out, uint32_t nh,
		       const struct cpe_mb *mb);
void cpe_fragdp_first6(struct cpe_fragdp *f, const struct cpe_frag_info *fi,
		       bool local);
/*
 * A later fragment: 1 and *d when the first's decision takes it, 0 when
 * no first was seen (the plain path decides), -1 dropped (counted).
 */
int cpe_fragdp_later(struct cpe_fragdp *f, const struct cpe_frag_info *fi,
		     const struct cpe_frag_dec **d);
/* A later fragment without its first dropped: counted. */
void cpe_fragdp_no_first(struct cpe_fragdp *f);
/* TCP's MSS option of a SYN (len bytes at tcp) clamped to limit. */
void cpe_fragdp_mss(struct cpe_fragdp *f, uint8_t *tcp, uint32_t len,
		    uint32_t limit);

#endif /* CPE_FRAGDP_H */
