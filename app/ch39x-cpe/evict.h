/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_EVICT_H
#define CPE_EVICT_H

/*
 * Which entry of a full state table goes for a new one: the policy the
 * firewall's states (fw.c) and NAT's sessions (nat.c) share, pure.
 *
 * As Linux's conntrack early drop: entries not yet assured go first, the
 * ones the WAN opened before the LAN's; assured ones (TCP established,
 * UDP and ICMP answered) last, the LAN's very last; least recently used
 * first within a class. A connection from the WAN may only push out an
 * entry not yet assured: when a table is full of assured ones it is
 * refused (as conntrack drops the packet), so unsolicited traffic never
 * takes the place of a working connection. A connection from the LAN is
 * never refused: it takes the least valuable entry there is.
 */

#include <stdbool.h>
#include <stdint.h>

enum cpe_ev_class {
	CPE_EV_EMBRYONIC_WAN,		/* from the WAN, not assured */
	CPE_EV_EMBRYONIC_LAN,		/* from the LAN, not assured */
	CPE_EV_ASSURED_WAN,		/* from the WAN, assured */
	CPE_EV_ASSURED_LAN,		/* from the LAN, assured */
	CPE_EV_NB
};

static inline uint8_t
cpe_ev_class(bool from_wan, bool assured)
{
	return (uint8_t)(assured ? (from_wan ? CPE_EV_ASSURED_WAN :
				    CPE_EV_ASSURED_LAN) :
			 (from_wan ? CPE_EV_EMBRYONIC_WAN :
			  CPE_EV_EMBRYONIC_LAN));
}

/* The candidate a scan keeps: the lowest class, then the oldest. */
struct cpe_ev_pick {
	uint32_t idx;
	uint8_t cls;			/* CPE_EV_NB: none yet */
	uint64_t last;
};

static inline void
cpe_ev_pick_init(struct cpe_ev_pick *p)
{
	p->idx = UINT32_MAX;
	p->cls = CPE_EV_NB;
	p->last = UINT64_MAX;
}

static inline void
cpe_ev_consider(struct cpe_ev_pick *p, uint32_t idx, uint8_t cls,
		uint64_t last)
{
	if (cls < p->cls || (cls == p->cls && last < p->last)) {
		p->idx = idx;
		p->cls = cls;
		p->last = last;
	}
}

/* Whether a new connection (from the WAN: from_wan) may push out the
 * entry p holds. */
static inline bool
cpe_ev_may_evict(const struct cpe_ev_pick *p, bool from_wan)
{
	return p->cls < CPE_EV_NB &&
		(!from_wan || p->cls <= CPE_EV_EMBRYONIC_LAN);
}

static inline const char *
cpe_ev_class_name(unsigned int c)
{
	static const char *const names[CPE_EV_NB] = {
		"embryonic_wan", "embryonic_lan", "assured_wan",
		"assured_lan",
	};

	return c < CPE_EV_NB ? names[c] : "?";
}

#endif
