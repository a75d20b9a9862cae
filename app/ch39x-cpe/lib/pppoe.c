/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* PPPoE session frames: the pure part (pppoe.h). */

#include <string.h>

#include "pppoe.h"

#define ETH_HLEN	14
#define SESS_HLEN	(ETH_HLEN + CPE_PPPOE_HLEN)	/* 20 */

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

enum cpe_pppoe_kind
cpe_pppoe_parse(const uint8_t *f, uint32_t len,
		const struct cpe_pppoe_sess *s, bool to_ac, uint32_t *ip_len)
{
	uint16_t type, plen, proto;

	if (len < ETH_HLEN)
		return CPE_PPPOE_NONE;
	type = get16(f + 12);
	if (type == CPE_ETH_PPPOE_DISC)
		return CPE_PPPOE_DISC;
	if (type != CPE_ETH_PPPOE_SESS)
		return CPE_PPPOE_NONE;
	/* Version 1, type 1, code 0 (session data), and a protocol. */
	if (len < SESS_HLEN + 2 || f[ETH_HLEN] != 0x11 || f[ETH_HLEN + 1] != 0)
		return CPE_PPPOE_BAD;
	plen = get16(f + ETH_HLEN + 4);
	if (plen < 1 || plen > len - SESS_HLEN)
		return CPE_PPPOE_BAD;
	/* Not ours (or none yet): pppd's kernel socket sorts it out. */
	if (s == NULL || s->sid == 0 || get16(f + ETH_HLEN + 2) != s->sid ||
	    memcmp(f + (to_ac ? 0 : 6), s->ac, 6) != 0)
		return CPE_PPPOE_OTHER;
	if (plen < 2)
		return CPE_PPPOE_CTL;
	proto = get16(f + SESS_HLEN);
	if (proto != CPE_PPP_IPV4 && proto != CPE_PPP_IPV6)
		return CPE_PPPOE_CTL;
	*ip_len = (uint32_t)plen - 2;
	return proto == CPE_PPP_IPV4 ? CPE_PPPOE_IPV4 : CPE_PPPOE_IPV6;
}

bool
cpe_pppoe_ll_is_ours(const uint8_t *dst)
{
	return dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80;
}
