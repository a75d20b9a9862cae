/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_WAN6_H
#define CPE_WAN6_H

/*
 * The WAN's IPv6 (wan6.c): a delegated prefix split onto the pd LANs,
 * the default route from the WAN's router advertisements, both with
 * their lifetimes.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

/* Some LAN takes a delegated prefix (--lan PORT=pd). */
bool cpe_wan6_any_pd(const struct cpe_router *r);
/* Delegation pfx (host bits clear) with its lifetimes (s): a renewal of
 * the current one, or a new one in its place. */
void cpe_wan6_delegate(struct cpe_router *r, const struct cpe_ip6 *pfx,
		       uint32_t preferred, uint32_t valid);
/* Delegation pfx withdrawn while it is the current one (plen 0: the
 * current one, whatever it is). */
void cpe_wan6_withdraw(struct cpe_router *r, const struct cpe_ip6 *pfx);
/* The PPPoE session ended: the IPv6 learnt over it goes. */
void cpe_wan6_session_down(struct cpe_router *r);
/* The RAs seen, the lifetimes (every housekeeping pass). */
void cpe_wan6_age(struct cpe_router *r);
/* Its keys in /cpe/wan's reply, its line, its JSON object's members. */
void cpe_wan6_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_wan6_print(struct cpe_router *r, FILE *f);
void cpe_wan6_json(struct cpe_router *r, FILE *f);

#endif /* CPE_WAN6_H */
