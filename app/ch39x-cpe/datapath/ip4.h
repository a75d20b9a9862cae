/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_IP4_H
#define CPE_IP4_H

/*
 * The slow path's IPv4 nodes and their states (which the control plane
 * reads for the statistics). What a packet that the flow cache did not
 * take goes through:
 *
 *   eth_in ----> arp_in (ARP: learnt, answered, punted)
 *     |
 *     v
 *   ip4_input (checks, source validation) --> ip4_frag (fragments)
 *     |                \                          |
 *     |                 `--> ip4_local --> nat4_in (replies, forwards)
 *     v                        |              |
 *   ip4_route (TTL, route) <---+--------------'
 *     |      \                 v
 *     |       `-> firewall -> ip4_deliver (echo, punt)
 *     v
 *   nat4_out (NAPT) -> ip4_rewrite (MTU, MSS, rewrite) -> neigh4
 *                          |                               |
 *                    ip4_fragment                   flow4_learn
 *                                                          |
 *                                                      port_out
 *
 * with icmp4_error (errors, from the router's address) and ip4_output
 * (the router's own packets: routed, resolved) on the side. The graph
 * as registered: doc/guides/architecture.rst.
 */

#include <stdbool.h>
#include <stdint.h>

#include "dp.h"
#include "iface.h"

struct cpe_arp;
struct cpe_fragdp;
struct cpe_fwdp;
struct cpe_nat;
struct cpe_rt4;

/* What the ICMP error node sends (cpe_mb.why). */
enum {
	CPE_ICMP4_TTL = 1,		/* time exceeded */
	CPE_ICMP4_UNREACH,		/* net unreachable */
	CPE_ICMP4_FRAG_NEEDED,		/* fragmentation needed (mb->mtu) */
};

struct cpe_eth_in {
	struct cpe_env *env;
	bool v6_on;
	uint64_t pkts, bad, not_ip;
};

struct cpe_arp_in {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_arp *arp;
	uint64_t replies, bad;
};

struct cpe_ip4_input {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fwdp *fw;
	bool nat_on;
	uint64_t pkts, bad;
	uint64_t nat_no_mapping;	/* WAN, not the router's: no session */
};

struct cpe_ip4_frag {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fragdp *frag;
	struct cpe_fwdp *fw;
	bool nat_on;
	uint64_t drop_ttl, drop_mtu, nat_no_mapping;
};

struct cpe_ip4_route {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_rt4 *rt;
	bool nat_on;
	uint64_t drop_ttl, drop_no_route;
};

struct cpe_nat4_out {
	struct cpe_env *env;
	struct cpe_ifaces *ifs;
	struct cpe_nat *nat;
	struct cpe_fragdp *frag;
	uint64_t no_mapping, no_first, wan_no_addr;
};

struct cpe_ip4_rewrite {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fragdp *frag;
	uint64_t drop_mtu;
};

struct cpe_ip4_deliver {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_fragdp *frag;
	uint64_t echo_replies;
};

struct cpe_icmp4_error {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	uint64_t ttl, unreach, frag_needed, nomem;
};

struct cpe_ip4_output {
	struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_rt4 *rt;
	uint64_t no_route;
};

#endif /* CPE_IP4_H */
