/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <string.h>

#include "ch39x_net.h"

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

int
ch39x_parse_hdrs(const uint8_t *f, uint32_t len, struct ch39x_hdrs *h)
{
	uint32_t off = CH39X_ETH_HLEN, ip_len, ihl;
	const uint8_t *ip, *l4;

	memset(h, 0, sizeof(*h));
	if (len < CH39X_ETH_HLEN)
		return -1;
	h->ethertype = be16(f + 12);
	if (h->ethertype == CH39X_ETHERTYPE_VLAN) {
		if (len < CH39X_ETH_HLEN + CH39X_VLAN_HLEN)
			return -1;
		h->ethertype = be16(f + 16);
		off += CH39X_VLAN_HLEN;
	}
	h->l2_len = (uint16_t)off;
	ip = f + off;
	if (h->ethertype == CH39X_ETHERTYPE_IPV4) {
		if (len - off < 20 || (ip[0] >> 4) != 4)
			return 0;
		ihl = (uint32_t)(ip[0] & 0x0F) * 4;
		ip_len = be16(ip + 2);
		if (ihl < 20 || ip_len < ihl || ip_len > len - off)
			return 0;
		h->ipv4 = true;
		h->l3_len = (uint16_t)ihl;
		h->fragment = (be16(ip + 6) & 0x3FFF) != 0;
		h->l4_proto = ip[9];
		h->l4_total = ip_len - ihl;
	} else if (h->ethertype == CH39X_ETHERTYPE_IPV6) {
		if (len - off < 40 || (ip[0] >> 4) != 6)
			return 0;
		ip_len = be16(ip + 4);
		if (ip_len > len - off - 40)
			return 0;
		h->ipv6 = true;
		h->l3_len = 40;
		/* Extension headers are not walked: the L4 is unknown then. */
		h->l4_proto = ip[6];
		h->l4_total = ip_len;
	} else {
		return 0;
	}
	if (h->fragment ||
	    (h->l4_proto != CH39X_IPPROTO_TCP &&
	     h->l4_proto != CH39X_IPPROTO_UDP)) {
		h->l4_proto = 0;
		return 0;
	}
	l4 = ip + h->l3_len;
	if (h->l4_proto == CH39X_IPPROTO_UDP) {
		if (h->l4_total < 8)
			goto no_l4;
		h->l4_len = 8;
	} else {
		uint32_t doff;

		if (h->l4_total < 20)
			goto no_l4;
		doff = (uint32_t)(l4[12] >> 4) * 4;
		if (doff < 20 || doff > h->l4_total)
			goto no_l4;
		h->l4_len = (uint16_t)doff;
	}
	return 0;
no_l4:
	h->l4_proto = 0;
	return 0;
}

uint32_t
ch39x_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

uint16_t
ch39x_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t
pseudo_sum(const uint8_t *f, const struct ch39x_hdrs *h)
{
	const uint8_t *ip = f + h->l2_len;
	uint32_t sum = 0;

	if (h->ipv4)
		sum = ch39x_csum_add(sum, ip + 12, 8);
	else
		sum = ch39x_csum_add(sum, ip + 8, 32);
	sum += h->l4_proto;
	sum += h->l4_total & 0xFFFF;
	sum += h->l4_total >> 16;
	return sum;
}

bool
ch39x_ip4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h)
{
	return ch39x_csum_fold(ch39x_csum_add(0, f + h->l2_len,
					      h->l3_len)) == 0xFFFF;
}

bool
ch39x_l4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h)
{
	const uint8_t *l4 = f + h->l2_len + h->l3_len;
	uint32_t sum;

	if (h->l4_proto == CH39X_IPPROTO_UDP && h->ipv4 &&
	    l4[6] == 0 && l4[7] == 0)
		return true;
	sum = ch39x_csum_add(pseudo_sum(f, h), l4, h->l4_total);
	return ch39x_csum_fold(sum) == 0xFFFF;
}

void
ch39x_ip4_csum_set(uint8_t *f, const struct ch39x_hdrs *h)
{
	uint8_t *ip = f + h->l2_len;
	uint16_t c;

	ip[10] = 0;
	ip[11] = 0;
	c = (uint16_t)~ch39x_csum_fold(ch39x_csum_add(0, ip, h->l3_len));
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

void
ch39x_l4_csum_set(uint8_t *f, const struct ch39x_hdrs *h)
{
	uint8_t *l4 = f + h->l2_len + h->l3_len;
	uint8_t *ck = l4 + (h->l4_proto == CH39X_IPPROTO_UDP ? 6 : 16);
	uint16_t c;

	ck[0] = 0;
	ck[1] = 0;
	c = (uint16_t)~ch39x_csum_fold(ch39x_csum_add(pseudo_sum(f, h), l4,
						     h->l4_total));
	/* UDP sends a computed zero as all ones (RFC 768). */
	if (c == 0 && h->l4_proto == CH39X_IPPROTO_UDP)
		c = 0xFFFF;
	ck[0] = (uint8_t)(c >> 8);
	ck[1] = (uint8_t)c;
}
