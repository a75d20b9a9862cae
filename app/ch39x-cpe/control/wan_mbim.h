/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_WAN_MBIM_H
#define CPE_WAN_MBIM_H

/*
 * An MBIM modem as the WAN (wan_mbim.c): a net_ch39x MBIM port is point
 * to point (its fixed peer the next hop, no ARP or ND); with --wan
 * PORT=mbim its session 0's IP configuration is the WAN's addressing,
 * following the connect state.
 */

#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

/* At start (after cpe_wan_create()): 0, or -EINVAL (reported) when --wan
 * PORT=mbim names a port that is not an MBIM port. */
int cpe_wan_mbim_setup(struct cpe_router *r);
/* The session's state into the WAN (every housekeeping pass; it reads the
 * PMD's a few times a second). */
void cpe_wan_mbim_poll(struct cpe_router *r);
void cpe_wan_mbim_free(struct cpe_router *r);
/* Its keys in /cpe/wan's reply, its line, its exit JSON object. */
void cpe_wan_mbim_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_wan_mbim_print(struct cpe_router *r, FILE *f);
void cpe_wan_mbim_json(struct cpe_router *r, FILE *f);

#endif /* CPE_WAN_MBIM_H */
