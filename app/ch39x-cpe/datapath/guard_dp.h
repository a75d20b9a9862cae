/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_GUARD_DP_H
#define CPE_GUARD_DP_H

/*
 * SYN-flood protection (lib/guard.h) over packets: the budget of TCP SYNs
 * from the WAN that the input nodes (ip4_input, ip6_input) let on, and
 * the admission of a port forward's new connection (nat_fwd.c). One
 * guard, owned by the firewall (fwdp.h: the firewall's own admission
 * of rules and pinholes is in lib/fw.c), set up with or without the
 * firewall (the forwards use it). Token first: the packet's tuple, the
 * guard's key, is built only when the bucket is empty.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "fw.h"
#include "guard.h"

/*
 * A TCP SYN (no ACK, no RST) by its first bytes: IPv4 (not a later
 * fragment) or IPv6 without extension headers; the callers checked the
 * IP header's length.
 */
static inline bool
cpe_guard_is_syn(const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    RTE_ETHER_HDR_LEN);
	uint32_t len = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, off;

	if ((l3[0] >> 4) == 4) {
		off = (uint32_t)(l3[0] & 0xf) * 4;
		if (l3[9] != IPPROTO_TCP || (l3[6] & 0x1f) != 0 || l3[7] != 0)
			return false;
	} else {
		off = 40;
		if (l3[6] != IPPROTO_TCP)
			return false;
	}
	return off + 14 <= len && (l3[off + 13] & (RTE_TCP_SYN_FLAG |
		RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG)) == RTE_TCP_SYN_FLAG;
}

/* m's tuple as the firewall's (the key the budget and admission share). */
static inline int
cpe_guard_tuple_of(const struct rte_mbuf *m, struct cpe_fw_tuple *t)
{
	return cpe_fw_tuple_of(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						       RTE_ETHER_HDR_LEN),
			       rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, t);
}

/* The budget: false, drop m (a SYN from the WAN over it; counted). */
static inline bool
cpe_guard_syn_ok(struct cpe_guard *g, const struct rte_mbuf *m, uint64_t now)
{
	struct cpe_fw_tuple t;

	if (!cpe_guard_is_syn(m) || cpe_guard_budget_take(g, now) ||
	    cpe_guard_tuple_of(m, &t) != 0)
		return true;
	return cpe_guard_budget_over(g, &t, sizeof(t), now);
}

/* Whether m, a new IPv4 connection from the WAN, may make state (false:
 * drop it; counted by the guard). */
static inline bool
cpe_guard_new(struct cpe_guard *g, const struct rte_mbuf *m, uint64_t now)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);
	struct cpe_fw_tuple t;

	if (cpe_guard_admit_take(g, ip->next_proto_id, now) ||
	    cpe_guard_tuple_of(m, &t) != 0)
		return true;
	return cpe_guard_admit_over(g, t.proto, &t, sizeof(t), now) !=
		CPE_GUARD_DROP;
}

#endif /* CPE_GUARD_DP_H */
