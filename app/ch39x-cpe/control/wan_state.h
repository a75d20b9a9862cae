/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_WAN_STATE_H
#define CPE_WAN_STATE_H

/*
 * The WAN's addressing at run time, the control plane's state of it:
 * IPv4 by DHCP or PPPoE (wan.c), the delegated IPv6 prefix and the
 * default route the ISP's router advertisements teach (wan6.c), the
 * PPPoE session (wan_pppoe.c); changed by telemetry commands
 * (wan_ctl.c) and the housekeeping, on the forwarding lcore. It reaches
 * the graph through the tables' and the interfaces' control functions.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cpe_conf.h"

struct cpe_wan_mbim;

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
	struct cpe_wan_mbim *mbim;	/* an MBIM modem's (wan_mbim.c) */
};

#endif /* CPE_WAN_STATE_H */
