/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_WAN_H
#define CPE_WAN_H

/*
 * The WAN's IPv4 address at run time (wan.c): a DHCP lease's or PPP's,
 * with its connected and default routes; NAT's sessions follow it. And
 * what /cpe/wan, the statistics' line and the exit JSON show of the
 * WAN, its IPv6 and its PPPoE session included.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

int cpe_wan_create(struct cpe_router *r);
void cpe_wan_free(struct cpe_router *r);
/*
 * The address: a DHCP lease's on its subnet (plen 1..30, the gateway on
 * it) or PPP's (plen 32, the peer anywhere but the address). 0, or
 * -EINVAL and *err what is allowed.
 */
int cpe_wan_set4(struct cpe_router *r, uint32_t ip, uint8_t plen,
		 uint32_t gw, const char **err);
/* The lease or the session gone. */
void cpe_wan_clear4(struct cpe_router *r);
/* "static", "dhcp", "pppoe", "mbim" or "none". */
const char *cpe_wan_mode(const struct cpe_router *r);
/* /cpe/wan's reply (also that of the commands that change the WAN). */
void cpe_wan_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_wan_print(struct cpe_router *r, FILE *f);
void cpe_wan_json(struct cpe_router *r, FILE *f);

#endif /* CPE_WAN_H */
