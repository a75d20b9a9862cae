/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_WAN_PPPOE_H
#define CPE_WAN_PPPOE_H

/*
 * The WAN's PPPoE session (wan_pppoe.c): pppd's hook hands it over, its
 * end takes it away; the pppoe_in and pppoe_out nodes apply it.
 */

#include <stdint.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

void cpe_wan_pppoe_up(struct cpe_router *r, uint16_t sid, const uint8_t *ac);
void cpe_wan_pppoe_down(struct cpe_router *r);
void cpe_wan_pppoe_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_wan_pppoe_print(struct cpe_router *r, FILE *f);
void cpe_wan_pppoe_json(struct cpe_router *r, FILE *f);

#endif /* CPE_WAN_PPPOE_H */
