/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_IP6_H
#define CPE_IP6_H

/*
 * The slow path's IPv6 nodes and their states: routed prefixes, no NAT,
 * every packet forwarded as is but for the hop limit.
 *
 *   ip6_input (checks, scope, source validation)
 *     |      \
 *     |       `-----------------------------.
 *     v                                      v
 *   ip6_route (hop limit, route, MTU) -> ip6_frag -> fw -> ip6_deliver
 *     |                                        \          (echo, ND, RA,
 *   icmp6_error -> ip6_output                   v           punt)
 *                                   ip6_rewrite -> nd6 -> flow6_learn
 *                                                    |
 *                                                port_out
 *
 * Link-local sources and destinations never leave their link; IPv6 is
 * never fragmented by routers (RFC 8200 5): packet too big instead.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dp.h"
#include "iface.h"

struct cpe_fragdp;
struct cpe_fwdp;
struct cpe_nd6;
struct cpe_rt6;

/* What icmp6_error sends (cpe_mb.why). */
enum {
	CPE_ICMP6_TIME = 1,		/* time exceeded */
	CPE_ICMP6_UNREACH,		/* no route */
	CPE_ICMP6_TOO_BIG,		/* packet too big (mb->mtu) */
};

struct cpe_ip6_input {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fwdp *fw;
	uint64_t rx, bad, scope;
};

struct cpe_ip6_route {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_rt6 *rt;
	uint64_t drop_hop_limit, drop_no_route, drop_mtu;
};

struct cpe_ip6_rewrite {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fragdp *frag;
	uint64_t fwd;
};

/* A router advertisement on the WAN, for the control plane (wan6.c). */
struct cpe_ra_event {
	uint8_t src[16];		/* the advertising router */
	uint16_t lifetime;		/* s, 0: it withdraws */
	bool bad;			/* failed RFC 4861 6.1.2's checks */
};

#define CPE_RA_EVENTS		16

struct cpe_ip6_deliver {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fragdp *frag;
	bool ra_learns;			/* the WAN's RAs teach ::/0 */
	uint64_t punted, rs_punted, echo_replies, ra_lost;
	uint16_t nb_ra;
	struct cpe_ra_event ra[CPE_RA_EVENTS];
};

/* The control plane takes the RAs seen: true and *ev while there is one. */
bool cpe_ip6_ra_take(struct cpe_ip6_deliver *c, struct cpe_ra_event *ev);

struct cpe_nd6_in {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_nd6 *nd6;
	uint64_t ns_rcvd, na_rcvd, na_sent, bad, nomem;
};

struct cpe_icmp6_error {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	uint64_t tokens, refill;	/* RFC 4443 2.4 (f): rate limited */
	uint64_t time_exceeded, unreach, too_big, suppressed, nomem;
};

struct cpe_ip6_output {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_rt6 *rt;
	uint64_t drop_no_route, drop_mtu;
};

#endif /* CPE_IP6_H */
