/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_RT_H
#define CPE_RT_H

/*
 * The route tables, IPv4's (rt4.c) and IPv6's (rt6.c): rte_lpm and
 * rte_lpm6 give the longest matching prefix, whose next hop id indexes a
 * small table of (egress interface, gateway). The route nodes (ip4_route,
 * ip6_route) own them; the input nodes' source checks and the local
 * output nodes look up in them. Connected routes come from the interface
 * addresses, static ones from --route, and at run time from the control
 * plane (telemetry, a DHCP lease, a delegated prefix, an advertised
 * router: all on the forwarding lcore, no locking), which may replace or
 * delete them. Every change bumps the graph's generation: cached flows
 * carrying the old next hop are dropped on their next packet.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cpe_conf.h"
#include "dp.h"

struct cpe_rt4;
struct cpe_rt6;

/* NULL and rte_errno set: no memory. */
struct cpe_rt4 *cpe_rt4_create(struct cpe_env *env);
void cpe_rt4_free(struct cpe_rt4 *r);
/* Adds a route (gw 0: connected), or replaces the one for prefix/plen. */
int cpe_rt4_add(struct cpe_rt4 *r, uint32_t prefix, uint8_t plen,
		uint32_t gw, uint16_t out);
/* 0 and *gw (0: connected), or -ENOENT: no route for exactly that. */
int cpe_rt4_get(const struct cpe_rt4 *r, uint32_t prefix, uint8_t plen,
		uint32_t *gw);
int cpe_rt4_del(struct cpe_rt4 *r, uint32_t prefix, uint8_t plen);
/* 0: *out and *nexthop (host order) set; -ENOENT: no route. */
int cpe_rt4_lookup(const struct cpe_rt4 *r, uint32_t dst, uint16_t *out,
		   uint32_t *nexthop);
/* fn for every route, in table order (connected ones first). */
void cpe_rt4_walk(const struct cpe_rt4 *r,
		  void (*fn)(const struct cpe_route_cfg *rt, uint16_t out,
			     void *arg), void *arg);

struct cpe_rt6 *cpe_rt6_create(struct cpe_env *env);
void cpe_rt6_free(struct cpe_rt6 *r);
/* gw NULL: connected. */
int cpe_rt6_add(struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen,
		const uint8_t *gw, uint16_t out);
/* 0 and gw (all zero: connected), or -ENOENT. */
int cpe_rt6_get(const struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen,
		uint8_t *gw);
int cpe_rt6_del(struct cpe_rt6 *r, const uint8_t *prefix, uint8_t plen);
/* 0: *out and nexthop (16 bytes) set; -ENOENT: no route. */
int cpe_rt6_lookup(const struct cpe_rt6 *r, const uint8_t *dst,
		   uint16_t *out, uint8_t *nexthop);
void cpe_rt6_walk(const struct cpe_rt6 *r,
		  void (*fn)(const struct cpe_route6_cfg *rt, uint16_t out,
			     void *arg), void *arg);

#endif /* CPE_RT_H */
