/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* What the nodes and the control plane ask of the interfaces (iface.h). */

#include <string.h>

#include <arpa/inet.h>

#include "iface.h"

const struct cpe_framing cpe_framings[CPE_NB_FRAMINGS] = {
	{ .name = "ethernet" },
	{ .name = "pppoe", .in_node = "pppoe_in", .out_node = "pppoe_out" },
};

const struct cpe_framing *
cpe_if_framing(const struct cpe_iface *p)
{
	return &cpe_framings[p->pppoe ? 1 : 0];
}

const char *
cpe_if_name(const struct cpe_ifaces *ifs, uint16_t idx, char *buf,
	    size_t size)
{
	const struct cpe_iface *p = &ifs->ifs[idx];

	if (p->vlan)
		snprintf(buf, size, "%u.%u", p->id, p->vlan);
	else
		snprintf(buf, size, "%u", p->id);
	return buf;
}

/* The subnet's broadcast address of interface in (none on a /32: PPP). */
bool
cpe_if_bcast4(const struct cpe_ifaces *ifs, uint32_t dst, uint16_t in)
{
	const struct cpe_iface *p = &ifs->ifs[in];

	return p->mask != ~0u && dst == (p->ip | ~p->mask);
}

bool
cpe_if_local4(const struct cpe_ifaces *ifs, uint32_t dst, uint16_t in)
{
	uint16_t i;

	/* Broadcasts and multicasts (224/4) are for the control plane:
	 * never routed (RFC 1812 5.3.5).
	 */
	if (dst == 0xffffffff || (dst >> 28) == 14 ||
	    cpe_if_bcast4(ifs, dst, in))
		return true;
	for (i = 0; i < ifs->nb; i++)
		if (ifs->ifs[i].ip == dst)
			return true;
	return false;
}

int
cpe_if_lan_of(const struct cpe_ifaces *ifs, uint32_t a)
{
	const struct cpe_iface *p;
	uint16_t i;

	for (i = 0; i < ifs->nb; i++) {
		p = &ifs->ifs[i];
		if (!p->wan && p->ip != 0 && p->ip != a &&
		    ((a ^ p->ip) & p->mask) == 0)
			return i;
	}
	return -1;
}

bool
cpe_if_mine6(const struct cpe_ifaces *ifs, uint16_t in, const uint8_t *a)
{
	const struct cpe_iface *p = &ifs->ifs[in];
	uint8_t i;

	if (memcmp(a, p->ll6, 16) == 0)
		return true;
	for (i = 0; i < p->nb_ip6; i++)
		if (memcmp(a, p->ip6[i].a, 16) == 0)
			return true;
	return false;
}

bool
cpe_if_local6(const struct cpe_ifaces *ifs, uint16_t in, const uint8_t *a)
{
	uint16_t i;

	if (cpe_if_mine6(ifs, in, a))
		return true;
	/* In a PPPoE session: pppd's IPv6CP address (pppoe.h). */
	if (cpe_is_ll6(a))
		return ifs->ifs[in].pppoe && cpe_pppoe_ll_is_ours(a);
	for (i = 0; i < ifs->nb; i++)
		if (i != in && cpe_if_mine6(ifs, i, a))
			return true;
	return false;
}

void
cpe_ip6_prefix_of(uint8_t *pfx, const uint8_t *a, uint8_t plen)
{
	uint8_t k;

	for (k = 0; k < 16; k++)
		pfx[k] = k * 8 >= plen ? 0 : k * 8 + 8 <= plen ? a[k] :
			a[k] & (uint8_t)(0xff << (8 - (plen - k * 8)));
}

void
cpe_ip6_fmt(char *buf, size_t size, const uint8_t *a)
{
	if (inet_ntop(AF_INET6, a, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
}

void
cpe_ip6_link_local(const struct rte_ether_addr *mac, uint8_t *a)
{
	const uint8_t *b = mac->addr_bytes;

	memset(a, 0, 16);
	a[0] = 0xfe;
	a[1] = 0x80;
	a[8] = b[0] ^ 0x02;
	a[9] = b[1];
	a[10] = b[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = b[3];
	a[14] = b[4];
	a[15] = b[5];
}

uint16_t
cpe_phys_only_if(const struct cpe_ifaces *ifs, uint16_t k)
{
	uint16_t i, only = UINT16_MAX;

	for (i = 0; i < ifs->nb; i++) {
		if (ifs->ifs[i].phys != k)
			continue;
		if (only != UINT16_MAX || ifs->ifs[i].vlan != 0)
			return UINT16_MAX;
		only = i;
	}
	return only;
}
