/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <string.h>

#include "ch39x_net.h"
#include "ch39x_tso.h"

#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t
rd32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		((uint32_t)p[2] << 8) | p[3];
}

static void
wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)(v >> 16));
	wr16(p + 2, (uint16_t)v);
}

int
ch39x_tso_init(struct ch39x_tso *t, const uint8_t *frame, uint32_t len,
	       uint16_t l2_len, uint16_t l3_len, uint16_t l4_len, uint16_t mss)
{
	uint32_t hdr = (uint32_t)l2_len + l3_len + l4_len, et_off;
	const uint8_t *ip;
	uint16_t et;

	memset(t, 0, sizeof(*t));
	if (mss == 0 || l2_len < CH39X_ETH_HLEN || l3_len < 20 ||
	    l4_len < 20 || l4_len > 60 || hdr > CH39X_TSO_MAX_HDRS ||
	    hdr > len)
		return -1;
	/* The EtherType right before L3, past any VLAN tags. */
	et_off = (uint32_t)l2_len - 2;
	et = rd16(frame + et_off);
	ip = frame + l2_len;
	if (et == CH39X_ETHERTYPE_IPV4 && (ip[0] >> 4) == 4 &&
	    (uint32_t)(ip[0] & 0xF) * 4 == l3_len && ip[9] == CH39X_IPPROTO_TCP)
		t->ipv4 = true;
	else if (et == CH39X_ETHERTYPE_IPV6 && (ip[0] >> 4) == 6 &&
		 l3_len == 40 && ip[6] == CH39X_IPPROTO_TCP)
		t->ipv4 = false;
	else
		return -1;
	if ((uint32_t)(frame[l2_len + l3_len + 12] >> 4) * 4 != l4_len)
		return -1;
	t->frame = frame;
	t->len = len;
	t->hdr_len = (uint16_t)hdr;
	t->l2_len = l2_len;
	t->l3_len = l3_len;
	t->l4_len = l4_len;
	t->mss = mss;
	t->nseg = len == hdr ? 1 : (len - hdr + mss - 1) / mss;
	return (int)t->nseg;
}

uint32_t
ch39x_tso_next_len(const struct ch39x_tso *t)
{
	uint32_t off, pay;

	if (t->idx >= t->nseg)
		return 0;
	off = t->idx * t->mss;
	pay = t->len - t->hdr_len - off;
	if (pay > t->mss)
		pay = t->mss;
	return t->hdr_len + pay;
}

void
ch39x_tso_emit(struct ch39x_tso *t, uint8_t *dst)
{
	uint32_t seg_len = ch39x_tso_next_len(t);
	uint32_t off = t->idx * t->mss;
	uint32_t pay = seg_len - t->hdr_len;
	uint8_t *ip = dst + t->l2_len;
	uint8_t *tcp = ip + t->l3_len;
	bool first = t->idx == 0, last = t->idx + 1 == t->nseg;
	struct ch39x_hdrs h;

	memcpy(dst, t->frame, t->hdr_len);
	memcpy(dst + t->hdr_len, t->frame + t->hdr_len + off, pay);
	if (t->ipv4) {
		wr16(ip + 2, (uint16_t)(t->l3_len + t->l4_len + pay));
		wr16(ip + 4, (uint16_t)(rd16(ip + 4) + t->idx));
	} else {
		wr16(ip + 4, (uint16_t)(t->l4_len + pay));
	}
	wr32(tcp + 4, rd32(tcp + 4) + off);
	if (!last)
		tcp[13] &= (uint8_t)~(TCP_FIN | TCP_PSH);
	if (!first)
		tcp[13] &= (uint8_t)~TCP_CWR;

	memset(&h, 0, sizeof(h));
	h.l2_len = t->l2_len;
	h.l3_len = t->l3_len;
	h.l4_len = t->l4_len;
	h.l4_proto = CH39X_IPPROTO_TCP;
	h.ipv4 = t->ipv4;
	h.ipv6 = !t->ipv4;
	h.l4_total = t->l4_len + pay;
	if (t->ipv4)
		ch39x_ip4_csum_set(dst, &h);
	ch39x_l4_csum_set(dst, &h);
	t->idx++;
}
