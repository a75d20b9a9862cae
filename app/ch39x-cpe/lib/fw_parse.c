/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The firewall's packet parser (fw.h: cpe_fw_parse, cpe_fw_tuple_of):
 * the tuple, the TCP flags, the ICMP type and, for an ICMP error, the
 * quoted packet's tuple, from the IP header on; every offset checked
 * against the length (the fuzzer, tests/fuzz, runs it on any bytes).
 * Pure: no DPDK.
 */

#include <string.h>

#include "fw.h"
#include "fw_bits.h"

/*
 * The L3 and L4 of a packet into t; *l4 and *l4_len past the IP headers,
 * NULL when the L4 header is not there (a later fragment).
 */
static int
parse_ip(const uint8_t *l3, uint32_t len, struct cpe_fw_tuple *t,
	 uint8_t *hop, bool *frag, const uint8_t **l4, uint32_t *l4_len)
{
	uint32_t ihl, tot, off;
	uint8_t nh;

	memset(t, 0, sizeof(*t));
	*frag = false;
	*l4 = NULL;
	*l4_len = 0;
	if (len < 20)
		return -1;
	if ((l3[0] >> 4) == 4) {
		ihl = (uint32_t)(l3[0] & 0xf) * 4;
		tot = get16(l3 + 2);
		if (ihl < 20 || tot < ihl || len < ihl)
			return -1;
		if (tot < len)
			len = tot;
		v4_mapped(t->src, l3 + 12);
		v4_mapped(t->dst, l3 + 16);
		t->proto = l3[9];
		*hop = l3[8];
		*frag = (get16(l3 + 6) & 0x3fff) != 0;
		if ((get16(l3 + 6) & 0x1fff) == 0) {
			*l4 = l3 + ihl;
			*l4_len = len - ihl;
		}
		return 0;
	}
	if ((l3[0] >> 4) != 6 || len < 40)
		return -1;
	t->v6 = 1;
	memcpy(t->src, l3 + 8, 16);
	memcpy(t->dst, l3 + 24, 16);
	*hop = l3[7];
	nh = l3[6];
	off = 40;
	/* Hop-by-hop (MLD's router alert) and destination options. */
	while ((nh == 0 || nh == 60) && off + 8 <= len) {
		nh = l3[off];
		off += ((uint32_t)l3[off + 1] + 1) * 8;
	}
	if (nh == 44 && off + 8 <= len) {
		*frag = true;
		if ((get16(l3 + off + 2) & 0xfff8) == 0) {
			nh = l3[off];
			off += 8;
		} else {
			t->proto = l3[off];
			return 0;
		}
	}
	t->proto = nh;
	if (off <= len) {
		*l4 = l3 + off;
		*l4_len = len - off;
	}
	return 0;
}

/* Ports or echo id of t from l4; false: none (not TCP/UDP/echo). */
static bool
parse_ports(struct cpe_fw_tuple *t, const uint8_t *l4, uint32_t len,
	    uint8_t *type)
{
	uint8_t icmp = t->v6 ? 58 : 1;

	if (l4 == NULL)
		return false;
	if ((t->proto == 6 || t->proto == 17) && len >= 4) {
		t->sport = get16(l4);
		t->dport = get16(l4 + 2);
		return true;
	}
	if (t->proto == icmp && len >= 8) {
		*type = l4[0];
		if (l4[0] == (t->v6 ? 128 : 8) || l4[0] == (t->v6 ? 129 : 0)) {
			t->sport = get16(l4 + 4);
			return true;
		}
	}
	return false;
}

int
cpe_fw_tuple_of(const uint8_t *l3, uint32_t len, struct cpe_fw_tuple *t)
{
	const uint8_t *l4;
	uint32_t l4_len;
	uint8_t hop, type;
	bool frag;

	if (parse_ip(l3, len, t, &hop, &frag, &l4, &l4_len) != 0)
		return -1;
	parse_ports(t, l4, l4_len, &type);
	return 0;
}

int
cpe_fw_parse(const uint8_t *l3, uint32_t len, struct cpe_fw_pkt *p)
{
	const uint8_t *l4, *q4;
	uint32_t l4_len, q4_len;
	uint8_t qhop, qtype = 0;
	bool qfrag;

	memset(p, 0, sizeof(*p));
	if (parse_ip(l3, len, &p->t, &p->hop, &p->frag, &l4, &l4_len) != 0)
		return -1;
	p->ports = parse_ports(&p->t, l4, l4_len, &p->icmp_type);
	if (l4 != NULL && p->t.proto == 6 && l4_len >= 14)
		p->tcp_flags = l4[13];
	if (l4 == NULL || p->t.proto != (p->t.v6 ? 58 : 1) || l4_len < 8)
		return 0;
	p->icmp_type = l4[0];
	p->icmp_code = l4[1];
	p->echo_req = l4[0] == (p->t.v6 ? 128 : 8);
	p->echo_rep = l4[0] == (p->t.v6 ? 129 : 0);
	if (!is_icmp_error(p->t.v6, l4[0]))
		return 0;
	/* The quoted packet: same family, its ports (8 bytes are enough). */
	if (parse_ip(l4 + 8, l4_len - 8, &p->quoted, &qhop, &qfrag, &q4,
		     &q4_len) != 0 || p->quoted.v6 != p->t.v6)
		return 0;
	if (parse_ports(&p->quoted, q4, q4_len, &qtype))
		p->icmp_err = true;
	return 0;
}
