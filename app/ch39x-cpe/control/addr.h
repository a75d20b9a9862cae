/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_ADDR_H
#define CPE_ADDR_H

/*
 * The interfaces' addresses (addr.c): IPv4 routes from the options,
 * IPv6 addresses, groups and routes, a delegated prefix's /64 on a LAN.
 */

#include <stdint.h>

#include "router.h"

int cpe_addr_setup(struct cpe_router *r);
/* The interface an IPv6 gateway is on (link-local: the WAN), or -1. */
int cpe_addr_gw6_port(const struct cpe_router *r, const uint8_t *gw);
/* Interface idx's delegated /64 address a (NULL: none), its route and
 * groups. */
int cpe_addr_port_pd(struct cpe_router *r, uint16_t idx, const uint8_t *a);

#endif /* CPE_ADDR_H */
