/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN scheduler's classifier: which class a frame goes to, read from
 * the frame's own bytes (outermost VLAN tag's PCP, the IPv4 TOS or the
 * IPv6 traffic class, also inside a PPPoE session), so that it works
 * whichever path made the frame (fast path, slow path, ICMP and ARP the
 * router sends, IPv6, VLAN sub-interfaces) and needs nothing from them;
 * the flow hash and ECN marking of the fair queues. The options are
 * qos_opts.c. No DPDK here: the unit test (tests/cpe/test_qos_class.c)
 * links these files alone.
 */

#include <stdio.h>
#include <string.h>

#include "qos.h"

#define ETH_HLEN	14
#define VLAN_HLEN	4
#define MAX_TAGS	2	/* 802.1ad outer and 802.1Q inner */
#define PPPOE_HLEN	6	/* RFC 2516 session header */

/*
 * The default of four classes (RFC 4594 service classes, 802.1Q-2018
 * table I-2 for the PCPs): 0 network control and real time (CS6, CS7,
 * EF, VOICE-ADMIT; PCP 5..7), 1 video and signalling (CS3..CS5,
 * AF3x, AF4x; PCP 3, 4), 2 best effort (the rest; PCP 0, 2), 3 lower
 * effort (LE, CS1; PCP 1). Fewer classes merge the lowest ones.
 */
static uint8_t
dscp_default(unsigned int d)
{
	switch (d) {
	case 48: case 56: case 46: case 44:
		return 0;
	case 40: case 32: case 34: case 36: case 38: case 24: case 26:
	case 28: case 30:
		return 1;
	case 1: case 8:
		return 3;
	default:
		return 2;
	}
}

static const uint8_t pcp_default[8] = { 2, 3, 2, 1, 1, 0, 0, 0 };

static uint8_t
clamp(unsigned int cls, unsigned int n)
{
	return (uint8_t)(cls < n ? cls : n - 1);
}

void
cpe_qos_map_build(const struct cpe_qos_cfg *c, struct cpe_qos_map *m)
{
	unsigned int i, n = c->classes ? c->classes : 1;

	for (i = 0; i < 64; i++)
		m->dscp[i] = c->dscp[i] >= 0 ? (uint8_t)c->dscp[i] :
			clamp(dscp_default(i), n);
	for (i = 0; i < 8; i++)
		m->pcp[i] = c->pcp[i] >= 0 ? (uint8_t)c->pcp[i] :
			clamp(pcp_default[i], n);
	/* PCP 0 is "not marked" unless a --qos-pcp-map entry says more. */
	m->pcp0_set = c->pcp[0] >= 0;
	m->other = 0;
}

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * Where a frame's L3 header is: past the VLAN tags (the outermost one's
 * PCP kept, tci_pcp first) and a PPPoE session header. cut says where a
 * truncated frame ended, type is 0x0800, 0x86dd or another EtherType.
 */
enum { CUT_NONE, CUT_TAGS, CUT_PPPOE };

struct l3_at {
	uint32_t off;
	uint16_t type;
	int pcp;
	int cut;
};

static inline __attribute__((always_inline)) struct l3_at
l3_find(const uint8_t *f, uint32_t len, int tci_pcp)
{
	struct l3_at w = { .off = 12, .pcp = tci_pcp, .cut = CUT_NONE };
	int tags = 0;

	if (len < ETH_HLEN) {
		w.cut = CUT_TAGS;
		return w;
	}
	w.type = be16(f + w.off);
	while ((w.type == 0x8100 || w.type == 0x88a8) && tags < MAX_TAGS) {
		if (w.off + 2 + VLAN_HLEN > len) {
			w.cut = CUT_TAGS;
			return w;
		}
		/* The outermost tag is the one the next hop reads. */
		if (w.pcp < 0)
			w.pcp = f[w.off + 2] >> 5;
		w.off += VLAN_HLEN;
		w.type = be16(f + w.off);
		tags++;
	}
	if (w.type == 0x8864) {
		/* PPPoE session: 6 bytes, then the PPP protocol. */
		if (w.off + 2 + PPPOE_HLEN + 2 > len) {
			w.cut = CUT_PPPOE;
			return w;
		}
		w.off += PPPOE_HLEN + 2;
		w.type = be16(f + w.off);
		w.type = w.type == 0x0021 ? 0x0800 :
			w.type == 0x0057 ? 0x86dd : 0;
	}
	w.off += 2;	/* the L3 header */
	return w;
}

static inline __attribute__((always_inline)) uint8_t
class_of(const struct cpe_qos_map *m, const uint8_t *f, uint32_t len,
	 const struct l3_at *w)
{
	uint32_t off = w->off;

	if (w->cut == CUT_TAGS)
		return m->other;
	if (w->pcp > 0 || (w->pcp == 0 && m->pcp0_set))
		return m->pcp[w->pcp & 7];
	if (w->cut == CUT_PPPOE)
		return m->other;
	if (w->type == 0x0800) {
		if (off + 2 > len || (f[off] >> 4) != 4)
			return m->dscp[0];
		return m->dscp[f[off + 1] >> 2];
	}
	if (w->type == 0x86dd) {
		if (off + 2 > len || (f[off] >> 4) != 6)
			return m->dscp[0];
		/* Traffic class: the low nibble of byte 0, high of byte 1. */
		return m->dscp[((f[off] & 0x0f) << 2) | (f[off + 1] >> 6)];
	}
	return m->other;
}

uint8_t
cpe_qos_classify(const struct cpe_qos_map *m, const uint8_t *f,
		 uint32_t len, int tci_pcp)
{
	struct l3_at w = l3_find(f, len, tci_pcp);

	return class_of(m, f, len, &w);
}

/* Unaligned loads in host order: the hash needs no byte order. */
static uint64_t
ld64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t
ld32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#define K1	0x9e3779b97f4a7c15ULL	/* odd: multiplying is a bijection */
#define K2	0xc2b2ae3d27d4eb4fULL

/* splitmix64's finalizer, folded to 32 bits: every input bit counts. */
static uint32_t
fin64(uint64_t h)
{
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* Protocols whose first 4 bytes are the source and destination ports. */
static bool
has_ports(uint8_t proto)
{
	return proto == 6 || proto == 17 || proto == 132 || proto == 136;
}

/*
 * The flow hash of an IP packet at f + off: addresses, protocol and, for
 * TCP/UDP/SCTP/UDP-Lite that is not a fragment, the ports; fragments of
 * one datagram stay in one flow. A multiply-xor chain seeded per process
 * and a finalizer: a few instructions, not a keyed PRF (the seed only
 * keeps outsiders from aiming at one queue by chance).
 */
static bool
hash_v4(const uint8_t *f, uint32_t len, uint32_t off, uint64_t seed,
	uint32_t *h)
{
	uint32_t ihl, ports = 0;
	uint8_t proto;

	if (off + 20 > len || (f[off] >> 4) != 4)
		return false;
	ihl = (uint32_t)(f[off] & 0x0f) * 4;
	proto = f[off + 9];
	/* MF set or an offset: no ports in this fragment, or not all. */
	if ((be16(f + off + 6) & 0x3fff) == 0 && has_ports(proto) &&
	    ihl >= 20 && off + ihl + 4 <= len)
		ports = ld32(f + off + ihl);
	/* Source and destination address: 8 adjacent bytes. */
	*h = fin64((ld64(f + off + 12) ^ seed) * K1 +
		   ((uint64_t)ports << 8 | proto));
	return true;
}

static bool
hash_v6(const uint8_t *f, uint32_t len, uint32_t off, uint64_t seed,
	uint32_t *h)
{
	uint64_t x = seed;
	uint32_t ports = 0;
	unsigned int i;
	uint8_t nh;

	if (off + 40 > len || (f[off] >> 4) != 6)
		return false;
	for (i = 8; i < 40; i += 8)
		x = (x ^ ld64(f + off + i)) * K2;
	/* Ports only right after the fixed header (no extension walk). */
	nh = f[off + 6];
	if (has_ports(nh) && off + 44 <= len)
		ports = ld32(f + off + 40);
	*h = fin64(x * K1 + ((uint64_t)ports << 8 | nh));
	return true;
}

uint8_t
cpe_qos_inspect(const struct cpe_qos_map *m, const uint8_t *f, uint32_t len,
		int tci_pcp, uint32_t seed, uint32_t *hash)
{
	struct l3_at w = l3_find(f, len, tci_pcp);
	uint64_t s = (uint64_t)seed * K2;

	if (w.cut != CUT_NONE ||
	    !(w.type == 0x0800 ? hash_v4(f, len, w.off, s, hash) :
	      w.type == 0x86dd ? hash_v6(f, len, w.off, s, hash) : false))
		/* Not IP or cut: one flow per EtherType (ARP, PPP control). */
		*hash = fin64(s + w.type);
	return class_of(m, f, len, &w);
}

/* RFC 1624 eqn. 3: the checksum after a 16-bit word went from old to new. */
static uint16_t
csum_update(uint16_t sum, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~sum + (uint32_t)(uint16_t)~old + new;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

bool
cpe_qos_ecn_mark(uint8_t *f, uint32_t len)
{
	struct l3_at w = l3_find(f, len, -1);
	uint32_t off = w.off;
	uint16_t old, sum;

	if (w.cut != CUT_NONE)
		return false;
	if (w.type == 0x0800) {
		if (off + 20 > len || (f[off] >> 4) != 4 ||
		    (f[off + 1] & 3) == 0)
			return false;
		/* Not-ECT (0) is dropped; ECT(0), ECT(1) and CE become CE. */
		old = be16(f + off);
		f[off + 1] |= 3;
		sum = csum_update(be16(f + off + 10), old, be16(f + off));
		f[off + 10] = (uint8_t)(sum >> 8);
		f[off + 11] = (uint8_t)sum;
		return true;
	}
	if (w.type == 0x86dd) {
		/* The ECN field: bits 5..4 of byte 1 (traffic class 1..0). */
		if (off + 40 > len || (f[off] >> 4) != 6 ||
		    (f[off + 1] & 0x30) == 0)
			return false;
		f[off + 1] |= 0x30;
		return true;
	}
	return false;
}
