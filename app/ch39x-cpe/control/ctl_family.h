/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_CTL_FAMILY_H
#define CPE_CTL_FAMILY_H

/*
 * Routes and static neighbours at run time, both families: an address's
 * family picks the IPv4 tables (rt4, ARP) or the IPv6 ones (rt6, ND);
 * the listings show IPv4 entries, then IPv6 ones. What differs between
 * the families is a struct ctl_family (ctl_family.c), so that one handler
 * per command (ctl_route.c) serves both and their replies, errors and
 * counters cannot drift apart. Every change bumps the graph's generation
 * (in the tables): cached flows carrying the old next hop or MAC are
 * dropped on their next packet.
 */

#include <stdbool.h>
#include <stdint.h>

#include <arpa/inet.h>

#include <rte_ether.h>
#include <rte_telemetry.h>

#include "ctl.h"

#define CTL_ALLOWED_MAX		32	/* in an error's "allowed" */
#define CTL_PFX6_LEN		(INET6_ADDRSTRLEN + 4)	/* ADDR/LEN */

struct ctl_addr {
	int af;				/* AF_INET or AF_INET6 */
	uint32_t v4;			/* host order */
	uint8_t v6[16];
};

/* A route or neighbour command's parameters. */
struct ctl_rn {
	struct ctl_addr dst;		/* route prefix or neighbour */
	uint8_t plen;
	struct ctl_addr gw;
	struct rte_ether_addr mac;
};

struct list_ctx {
	const struct cpe_router *r;
	struct rte_tel_data *a;
	uint32_t count, shown, max;
	bool static_only;
};

struct ctl_family {
	size_t addr_len;		/* an address's text, with its NUL */
	const char *gw_off;		/* why a gateway is on no port */
	const char *addr_off;		/* why a neighbour is on no port */
	void (*fmt)(char *buf, size_t cap, const struct ctl_addr *a);
	int (*port_of)(const struct cpe_router *r, const struct ctl_addr *a);
	int (*gw_port)(const struct cpe_router *r, const struct ctl_addr *a);
	void (*subnets)(const struct cpe_router *r, struct rte_tel_data *a);
	/* 0 if the prefix has a route, *connected if without gateway */
	int (*route_get)(const struct cpe_router *r,
			 const struct ctl_addr *dst, uint8_t plen,
			 bool *connected);
	int (*route_add)(struct cpe_router *r, const struct ctl_addr *dst,
			 uint8_t plen, const struct ctl_addr *gw,
			 uint16_t out);
	int (*route_del)(struct cpe_router *r, const struct ctl_addr *dst,
			 uint8_t plen);
	void (*route_walk)(struct list_ctx *l);
	/* 1 if it replaced an entry, 0 if new, < 0 if the table is full */
	int (*neigh_set)(struct cpe_router *r, const struct ctl_addr *a,
			 uint16_t out, const struct rte_ether_addr *mac);
	int (*neigh_del)(struct cpe_router *r, const struct ctl_addr *a);
	void (*neigh_walk)(struct list_ctx *l);
};

/* ctl_family.c */
const struct ctl_family *cpe_ctl_family(int af);
void cpe_ctl_fmt_mac(char *buf, size_t cap, const struct rte_ether_addr *mac);
int cpe_ctl_parse_addr(const char *s, struct ctl_addr *a);
/* PREFIX/LEN (no host bits) or "default". */
int cpe_ctl_parse_prefix(const char *s, struct ctl_addr *a, uint8_t *plen);

#endif /* CPE_CTL_FAMILY_H */
