/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_WAN_H
#define CPE_WAN_H

/*
 * The WAN's addressing at run time (wan.c: IPv4 by DHCP or PPPoE, the
 * PPPoE session; wan6.c: the delegated IPv6 prefix and the default route
 * the ISP's router advertisements teach). The control plane's state,
 * changed by telemetry commands and the housekeeping on the forwarding
 * lcore; it reaches the graph through the tables' and the interfaces'
 * control functions.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

struct cpe_wan6 {
	bool on;
	struct cpe_ip6 pfx;		/* the delegation, host bits clear */
	uint32_t preferred, valid;	/* s, as the server gave them */
	uint64_t since;			/* TSC of the last set or renewal */
	uint64_t sets, renewals, changes, clears, expired;
	uint64_t session_ends;		/* withdrawn with a PPPoE session */
	uint64_t fw_closed;		/* states of withdrawn prefixes */
	uint64_t unserved;		/* pd LANs a delegation had no /64 for */
	bool gw_on;			/* ::/0 from an RA */
	uint8_t gw[16];
	uint64_t gw_until;		/* TSC */
	uint64_t ra_rcvd, ra_bad, ra_routers, ra_expired;
};

struct cpe_wan {
	uint32_t gw;			/* the lease's gateway, host order */
	uint64_t since;			/* TSC of the last change */
	uint64_t sets, renewals, clears, nat_flushed;
	struct cpe_wan6 w6;
};

/* wan6.c: the PPPoE session ended (the IPv6 learnt over it goes). */
void cpe_wan6_session_down(struct cpe_router *r);
void cpe_wan6_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_wan6_print(struct cpe_router *r, FILE *f);
void cpe_wan6_json(struct cpe_router *r, FILE *f);

/* wan_pppoe.c: the session's framing state (the interfaces'). */
void cpe_wan_pppoe_up(struct cpe_router *r, uint16_t sid, const uint8_t *ac);
void cpe_wan_pppoe_down(struct cpe_router *r);
void cpe_wan_pppoe_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_wan_pppoe_print(struct cpe_router *r, FILE *f);
void cpe_wan_pppoe_json(struct cpe_router *r, FILE *f);

#endif /* CPE_WAN_H */
