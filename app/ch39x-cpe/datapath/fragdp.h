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

struct cpe_fragdp {
	struct cpe_frag tab;
	bool on;
	const struct cpe_env *env;
	struct cpe_fragdp_stats st;
};

/* --frag-max (0: off) and --frag-timeout; NULL: no memory (reported). */
struct cpe_fragdp *cpe_fragdp_create(uint32_t max, uint32_t timeout_s,
				     const struct cpe_env *env);
void cpe_fragdp_free(struct cpe_fragdp *f);
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
