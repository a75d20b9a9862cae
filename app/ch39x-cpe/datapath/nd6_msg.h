/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_ND6_MSG_H
#define CPE_ND6_MSG_H

/*
 * IPv6 neighbour discovery's messages (RFC 4861): the checks every NS,
 * NA and RA must pass, their options (nd6_msg.c), for the nodes that
 * take them in (nd6_in, ip6_deliver) and the table that sends them
 * (nd6_tab.c).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#define CPE_ND_RS		133
#define CPE_ND_RA		134
#define CPE_ND_NS		135
#define CPE_ND_NA		136
#define CPE_ND_OPT_SLLA		1
#define CPE_ND_OPT_TLLA		2
#define CPE_NA_F_ROUTER		0x80
#define CPE_NA_F_SOLICITED	0x40
#define CPE_NA_F_OVERRIDE	0x20
#define CPE_ND_LEN		(8 + 16 + 8)	/* NS/NA, one link-layer option */

/* The checks of RFC 4861 7.1.1 and 7.1.2 both NS and NA share: 0 and the
 * message (len bytes at *icp), or -1. */
int cpe_nd6_validate(struct rte_mbuf *m, struct rte_ipv6_hdr *ip,
		     uint8_t **icp, uint32_t *lenp);
/* An NS/NA's options: every one within the message and non-zero in
 * length; *lla the link-layer address option of type want. -1: bad. */
int cpe_nd6_opts(const uint8_t *ic, uint32_t len, uint8_t want,
		 const struct rte_ether_addr **lla);
/*
 * A router advertisement m (RFC 4861 6.1.2: hop limit 255, a link-local
 * source, code 0, its checksum): 0 and its router lifetime (s), or -1.
 */
int cpe_nd6_ra_check(const struct rte_mbuf *m, uint16_t *lifetime);

#endif /* CPE_ND6_MSG_H */
