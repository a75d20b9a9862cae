/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FWDP_H
#define CPE_FWDP_H

/*
 * The firewall in the graph (lib/fw.c is its pure part): the zone of
 * each packet from the interfaces' WAN flag, source validation (BCP 38)
 * against the route tables, the router's own packets to the WAN (from
 * the TAP) as tracked connections, the flow-cache entries of a tracked
 * connection deleted with it. The fw node owns it (its zone verdicts);
 * the input nodes check sources with it, the learning nodes link flows
 * to its states, the flow nodes keep them alive; the control plane ages
 * it and changes its rules.
 *
 * Where NAT is on, IPv4 forwarding between LAN and WAN keeps using NAT's
 * sessions as its state (a WAN packet without a session is never
 * forwarded); the table here tracks the IPv6 flows, the router's own
 * connections and, with --no-nat, routed IPv4.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "dp.h"
#include "fw.h"
#include "ftab.h"
#include "iface.h"
#include "rt.h"

struct cpe_fwdp {
	struct cpe_fw fw;
	bool on;
	/* SYN-flood protection (guard_dp.h): set up where there is a WAN,
	 * firewall on or off (guard_on). */
	struct cpe_guard guard;
	bool guard_on;
	const struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	const struct cpe_rt4 *rt4;
	const struct cpe_rt6 *rt6;
	struct cpe_ftab *ftab4, *ftab6;	/* NULL: the cache is off */
};

/* The firewall of o (off: on false, nothing tracked); NULL: no memory
 * (reported). */
struct cpe_fwdp *cpe_fwdp_create(struct cpe_opts *o,
				 const struct cpe_env *env,
				 const struct cpe_ifaces *ifs,
				 const struct cpe_rt4 *rt4,
				 const struct cpe_rt6 *rt6,
				 struct cpe_ftab *ftab4,
				 struct cpe_ftab *ftab6);
void cpe_fwdp_free(struct cpe_fwdp *f);
void cpe_fwdp_age_ms(struct cpe_fwdp *f, uint32_t ms);

/*
 * BCP 38 and bogons of an IPv4 source (network order) from interface in
 * (local: the packet is for the router): CPE_FW_ACCEPT or the reason,
 * counted.
 */
enum cpe_fw_reason cpe_fwdp_src4(struct cpe_fwdp *f, uint16_t in, bool local,
				 uint32_t src);
/* The same of an IPv6 packet (its IPv6 header after the Ethernet one). */
enum cpe_fw_reason cpe_fwdp_src6(struct cpe_fwdp *f, uint16_t in, bool local,
				 const struct rte_mbuf *m);
/*
 * Whether m, from interface in to out (-1: the router), passes the zone
 * policy; *ct its tracked connection (UINT32_MAX: none), *cacheable
 * whether the flow cache may carry the verdict.
 */
bool cpe_fwdp_pass(struct cpe_fwdp *f, uint16_t in, int out,
		   const struct rte_mbuf *m, uint32_t *ct, bool *cacheable);
/* The router's own packet out of interface idx (from its TAP): tracked. */
void cpe_fwdp_out_local(struct cpe_fwdp *f, uint16_t idx,
			const struct rte_mbuf *m);
/* A flow-cache entry at pos of state ct, learnt from interface in. */
void cpe_fwdp_link(struct cpe_fwdp *f, uint32_t ct, uint16_t in, int32_t pos);

/*
 * The control plane's rules (/cpe/fw/...): a rule added (its id, or
 * -EEXIST, -ENOSPC), one deleted with the connections it let in (*closed;
 * -ENOENT: no such id); -ENOTSUP while the firewall is off. The
 * connections of a withdrawn delegated prefix closed: how many.
 */
int cpe_fwdp_rule_add(struct cpe_fwdp *f, const struct cpe_fw_rule *r);
int cpe_fwdp_rule_del(struct cpe_fwdp *f, uint32_t id, uint32_t *closed);
uint32_t cpe_fwdp_close_prefix(struct cpe_fwdp *f, const uint8_t *pfx,
			       uint8_t plen);

#endif /* CPE_FWDP_H */
