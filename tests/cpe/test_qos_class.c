/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of ch39x-cpe's WAN classifier and scheduler options
 * (app/ch39x-cpe/qos_class.c), over frames written out byte by byte:
 * IPv4 TOS, IPv6 traffic class, 802.1Q and 802.1ad tags (PCP), a tag the
 * port inserts (TX VLAN offload), PPPoE sessions, ARP, and every truncation of each frame
 * (exact-size heap copies, so that AddressSanitizer sees an overread).
 * Then the option parser: rates, DSCP names, maps, the cross checks.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos.h"

#include "check.h"

#define MACS	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, \
		0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb
#define V4(tos)	0x08, 0x00, 0x45, (tos), 0x00, 0x54, 0, 0, 0x40, 0, 64, 1
/* Version 6, traffic class tc, flow label 0x12345. */
#define V6(tc)	0x86, 0xdd, 0x60 | ((tc) >> 4), (((tc) & 0x0f) << 4) | 0x01, \
		0x23, 0x45, 0, 8, 58, 64
#define TAG(tpid, pcp, vid) (tpid) >> 8, (tpid) & 0xff, \
		((pcp) << 5) | ((vid) >> 8), (vid) & 0xff

/* The class of a frame, classified from an exact-size copy. */
static unsigned int
cls_of(const struct cpe_qos_map *m, const uint8_t *f, size_t len, int pcp)
{
	uint8_t *p = dup_exact(f, len);
	unsigned int c = cpe_qos_classify(m, p, (uint32_t)len, pcp);

	free(p);
	return c;
}

#define CLS(m, f, pcp) cls_of((m), (f), sizeof(f), (pcp))

static void
build(struct cpe_qos_cfg *c, struct cpe_qos_map *m, unsigned int classes)
{
	cpe_qos_cfg_defaults(c);
	c->classes = classes;
	cpe_qos_map_build(c, m);
}

static const uint8_t v4_ef[] = { MACS, V4(0xb8), 10, 0, 0, 1 };
static const uint8_t v4_ef_ecn[] = { MACS, V4(0xbb), 10, 0, 0, 1 };
static const uint8_t v4_be[] = { MACS, V4(0x00), 10, 0, 0, 1 };
static const uint8_t v4_cs1[] = { MACS, V4(0x20), 10, 0, 0, 1 };
static const uint8_t v4_le[] = { MACS, V4(0x04), 10, 0, 0, 1 };
static const uint8_t v4_af41[] = { MACS, V4(0x88), 10, 0, 0, 1 };
static const uint8_t v4_cs6[] = { MACS, V4(0xc0), 10, 0, 0, 1 };
static const uint8_t v4_af11[] = { MACS, V4(0x28), 10, 0, 0, 1 };
static const uint8_t v4_bad_ver[] = { MACS, 0x08, 0x00, 0x65, 0xb8, 0, 0 };
static const uint8_t v6_ef[] = { MACS, V6(0xb8), 0x20, 0x01 };
static const uint8_t v6_be[] = { MACS, V6(0x00), 0x20, 0x01 };
static const uint8_t v6_cs1[] = { MACS, V6(0x20), 0x20, 0x01 };
static const uint8_t v6_af41_ecn[] = { MACS, V6(0x89), 0x20, 0x01 };
static const uint8_t v6_bad_ver[] = { MACS, 0x86, 0xdd, 0x4b, 0x80, 0, 0 };
static const uint8_t q_p5_be[] = { MACS, TAG(0x8100, 5, 7), V4(0x00) };
static const uint8_t q_p1_ef[] = { MACS, TAG(0x8100, 1, 7), V4(0xb8) };
static const uint8_t q_p0_ef[] = { MACS, TAG(0x8100, 0, 7), V4(0xb8) };
static const uint8_t q_p0_v6ef[] = { MACS, TAG(0x8100, 0, 4094), V6(0xb8) };
static const uint8_t q_p4_v6be[] = { MACS, TAG(0x8100, 4, 100), V6(0x00) };
static const uint8_t qinq_p6_p1[] = { MACS, TAG(0x88a8, 6, 10),
	TAG(0x8100, 1, 20), V4(0x00) };
static const uint8_t qinq_p0_p1_ef[] = { MACS, TAG(0x88a8, 0, 10),
	TAG(0x8100, 1, 20), V4(0xb8) };
static const uint8_t three_tags[] = { MACS, TAG(0x8100, 0, 1),
	TAG(0x8100, 0, 2), TAG(0x8100, 0, 3), V4(0x00) };
static const uint8_t arp[] = { MACS, 0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1 };
static const uint8_t q_arp[] = { MACS, TAG(0x8100, 0, 7), 0x08, 0x06, 0, 1 };
/* PPPoE session (RFC 2516): ver/type, code, session, length, protocol. */
#define PPPOE(proto) 0x88, 0x64, 0x11, 0x00, 0x12, 0x34, 0x00, 0x40, \
		(proto) >> 8, (proto) & 0xff
static const uint8_t pppoe_v4_ef[] = { MACS, PPPOE(0x0021), 0x45, 0xb8, 0 };
static const uint8_t pppoe_v4_be[] = { MACS, PPPOE(0x0021), 0x45, 0x00, 0 };
static const uint8_t pppoe_v6_cs1[] = { MACS, PPPOE(0x0057), 0x62, 0x00, 0 };
static const uint8_t pppoe_lcp[] = { MACS, PPPOE(0xc021), 0x01, 0x01, 0 };
static const uint8_t q_pppoe_v4_be[] = { MACS, TAG(0x8100, 0, 7),
	PPPOE(0x0021), 0x45, 0x00, 0 };

static void
test_default_map(void)
{
	struct cpe_qos_cfg c;
	struct cpe_qos_map m;

	build(&c, &m, 4);
	/* IPv4: DSCP is TOS >> 2, the ECN bits do not count. */
	CHECK_EQ(CLS(&m, v4_ef, -1), 0);
	CHECK_EQ(CLS(&m, v4_ef_ecn, -1), 0);
	CHECK_EQ(CLS(&m, v4_cs6, -1), 0);
	CHECK_EQ(CLS(&m, v4_af41, -1), 1);
	CHECK_EQ(CLS(&m, v4_be, -1), 2);
	CHECK_EQ(CLS(&m, v4_af11, -1), 2);
	CHECK_EQ(CLS(&m, v4_cs1, -1), 3);
	CHECK_EQ(CLS(&m, v4_le, -1), 3);
	/* IPv6: the traffic class spans bytes 0 and 1. */
	CHECK_EQ(CLS(&m, v6_ef, -1), 0);
	CHECK_EQ(CLS(&m, v6_be, -1), 2);
	CHECK_EQ(CLS(&m, v6_cs1, -1), 3);
	CHECK_EQ(CLS(&m, v6_af41_ecn, -1), 1);
	/* The version nibble must match the ethertype: else best effort. */
	CHECK_EQ(CLS(&m, v4_bad_ver, -1), 2);
	CHECK_EQ(CLS(&m, v6_bad_ver, -1), 2);
	/* Tags: a PCP other than 0 decides; 0 leaves it to the DSCP. */
	CHECK_EQ(CLS(&m, q_p5_be, -1), 0);
	CHECK_EQ(CLS(&m, q_p1_ef, -1), 3);
	CHECK_EQ(CLS(&m, q_p0_ef, -1), 0);
	CHECK_EQ(CLS(&m, q_p0_v6ef, -1), 0);
	CHECK_EQ(CLS(&m, q_p4_v6be, -1), 1);
	/* 802.1ad: the outer tag's PCP, which the next hop reads. */
	CHECK_EQ(CLS(&m, qinq_p6_p1, -1), 0);
	CHECK_EQ(CLS(&m, qinq_p0_p1_ef, -1), 0);
	/* More than two tags: not looked into, not IP. */
	CHECK_EQ(CLS(&m, three_tags, -1), 0);
	/* Not IP (ARP): class 0. */
	CHECK_EQ(CLS(&m, arp, -1), 0);
	CHECK_EQ(CLS(&m, q_arp, -1), 0);
	/* PPPoE sessions: the IP inside; PPP control (LCP) as not IP. */
	CHECK_EQ(CLS(&m, pppoe_v4_ef, -1), 0);
	CHECK_EQ(CLS(&m, pppoe_v4_be, -1), 2);
	CHECK_EQ(CLS(&m, pppoe_v6_cs1, -1), 3);
	CHECK_EQ(CLS(&m, pppoe_lcp, -1), 0);
	CHECK_EQ(CLS(&m, q_pppoe_v4_be, -1), 2);
	/* A tag the port inserts: its PCP, before the frame's own. */
	CHECK_EQ(CLS(&m, v4_ef, 1), 3);
	CHECK_EQ(CLS(&m, v4_be, 6), 0);
	CHECK_EQ(CLS(&m, v4_ef, 0), 0);
	CHECK_EQ(CLS(&m, q_p5_be, 1), 3);
}

static void
test_fewer_classes(void)
{
	struct cpe_qos_cfg c;
	struct cpe_qos_map m;
	unsigned int d, p;

	build(&c, &m, 2);
	CHECK_EQ(CLS(&m, v4_ef, -1), 0);
	CHECK_EQ(CLS(&m, v4_af41, -1), 1);
	CHECK_EQ(CLS(&m, v4_be, -1), 1);
	CHECK_EQ(CLS(&m, v4_cs1, -1), 1);
	CHECK_EQ(CLS(&m, q_p1_ef, -1), 1);
	build(&c, &m, 3);
	CHECK_EQ(CLS(&m, v4_af41, -1), 1);
	CHECK_EQ(CLS(&m, v4_cs1, -1), 2);
	CHECK_EQ(CLS(&m, v6_be, -1), 2);
	build(&c, &m, 1);
	for (d = 0; d < 64; d++)
		CHECK_EQ(m.dscp[d], 0);
	for (p = 0; p < 8; p++)
		CHECK_EQ(m.pcp[p], 0);
	/* Eight classes: the default uses four of them. */
	build(&c, &m, 8);
	for (d = 0; d < 64; d++)
		CHECK(m.dscp[d] < 4);
}

static void
test_user_map(void)
{
	struct cpe_qos_cfg c;
	struct cpe_qos_map m;
	char msg[256];

	cpe_qos_cfg_defaults(&c);
	CHECK(cpe_qos_opt(&c, "wan-rate", "20M") == NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "ef=1,0=0,af11=3") == NULL);
	CHECK(cpe_qos_opt(&c, "qos-pcp-map", "0=3,5=2") == NULL);
	CHECK_EQ(cpe_qos_cfg_check(&c, msg, sizeof(msg)), 0);
	cpe_qos_map_build(&c, &m);
	CHECK_EQ(CLS(&m, v4_ef, -1), 1);
	CHECK_EQ(CLS(&m, v4_be, -1), 0);
	CHECK_EQ(CLS(&m, v4_af11, -1), 3);
	CHECK_EQ(CLS(&m, v4_af41, -1), 1);
	CHECK_EQ(CLS(&m, q_p5_be, -1), 2);
	/* PCP 0 mapped explicitly: no longer "unmarked". */
	CHECK_EQ(CLS(&m, q_p0_ef, -1), 3);
	CHECK_EQ(CLS(&m, v4_ef, 0), 3);
	/* Untagged frames are not affected by the PCP map. */
	CHECK_EQ(CLS(&m, v6_ef, -1), 1);
	/* Later entries override earlier ones, across options too. */
	CHECK(cpe_qos_opt(&c, "qos-map", "46=0") == NULL);
	cpe_qos_map_build(&c, &m);
	CHECK_EQ(CLS(&m, v4_ef, -1), 0);
}

/* Every prefix of each frame: in range, no overread, and the cut rules. */
static void
test_truncated(void)
{
	static const struct {
		const uint8_t *f;
		size_t len;
	} frames[] = {
		{ v4_ef, sizeof(v4_ef) }, { v6_ef, sizeof(v6_ef) },
		{ q_p0_v6ef, sizeof(q_p0_v6ef) },
		{ qinq_p0_p1_ef, sizeof(qinq_p0_p1_ef) },
		{ three_tags, sizeof(three_tags) }, { arp, sizeof(arp) },
		{ q_pppoe_v4_be, sizeof(q_pppoe_v4_be) },
	};
	struct cpe_qos_cfg c;
	struct cpe_qos_map m;
	unsigned int i, bad = 0;
	size_t n;

	build(&c, &m, 4);
	for (i = 0; i < sizeof(frames) / sizeof(frames[0]); i++)
		for (n = 0; n <= frames[i].len; n++)
			if (cls_of(&m, frames[i].f, n, -1) >= 4)
				bad++;
	CHECK_EQ(bad, 0);
	/* No L2 header: not IP. */
	CHECK_EQ(cls_of(&m, v4_ef, 0, -1), 0);
	CHECK_EQ(cls_of(&m, v4_ef, 13, -1), 0);
	/* IPv4 ethertype, TOS byte missing: best effort, not EF. */
	CHECK_EQ(cls_of(&m, v4_ef, 14, -1), 2);
	CHECK_EQ(cls_of(&m, v4_ef, 15, -1), 2);
	CHECK_EQ(cls_of(&m, v4_ef, 16, -1), 0);
	CHECK_EQ(cls_of(&m, v6_ef, 15, -1), 2);
	CHECK_EQ(cls_of(&m, v6_ef, 16, -1), 0);
	/* A tag cut short: not IP; the inner type cut: not IP either. */
	CHECK_EQ(cls_of(&m, q_p5_be, 15, -1), 0);
	CHECK_EQ(cls_of(&m, q_p1_ef, 17, -1), 0);
	/* Tag whole, PCP 1 decides without the IP header. */
	CHECK_EQ(cls_of(&m, q_p1_ef, 18, -1), 3);
	/* PCP 0, IP header missing: best effort. */
	CHECK_EQ(cls_of(&m, q_p0_v6ef, 18, -1), 2);
	CHECK_EQ(cls_of(&m, q_p0_v6ef, 20, -1), 0);
	CHECK_EQ(cls_of(&m, qinq_p0_p1_ef, 21, -1), 0);
	CHECK_EQ(cls_of(&m, qinq_p0_p1_ef, 23, -1), 2);
	CHECK_EQ(cls_of(&m, qinq_p0_p1_ef, 24, -1), 0);
	/* PPPoE: the PPP protocol cut is not IP; the IP header cut is BE. */
	CHECK_EQ(cls_of(&m, pppoe_v4_be, 21, -1), 0);
	CHECK_EQ(cls_of(&m, pppoe_v4_ef, 22, -1), 2);
	CHECK_EQ(cls_of(&m, pppoe_v4_ef, 23, -1), 2);
	CHECK_EQ(cls_of(&m, pppoe_v4_ef, 24, -1), 0);
}

static void
test_options(void)
{
	struct cpe_qos_cfg c;
	char msg[256];
	int8_t before[64];

	cpe_qos_cfg_defaults(&c);
	CHECK_EQ(c.rate, 0);
	CHECK_EQ(c.classes, CPE_QOS_DEF_CLASSES);
	CHECK_EQ(c.queue, 0);	/* resolved by the check, per mode */
	CHECK(c.fq && c.ecn);
	CHECK_EQ(c.overhead, CPE_QOS_DEF_OVERHEAD);
	CHECK(cpe_qos_opt(&c, "wan-rate", "20M") == NULL);
	CHECK_EQ(c.rate, 20000000);
	CHECK(cpe_qos_opt(&c, "wan-rate", "1.5G") == NULL);
	CHECK_EQ(c.rate, 1500000000);
	CHECK(cpe_qos_opt(&c, "wan-rate", "64k") == NULL);
	CHECK_EQ(c.rate, 64000);
	CHECK(cpe_qos_opt(&c, "wan-rate", "10G") == NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "250000") == NULL);
	CHECK_EQ(c.rate, 250000);
	CHECK(cpe_qos_opt(&c, "wan-rate", "63k") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "10.1G") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "20m") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "M") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "-5M") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-rate", "20Mx") != NULL);
	CHECK_EQ(c.rate, 250000);
	CHECK(cpe_qos_opt(&c, "qos-classes", "0") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-classes", "9") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-classes", "3") == NULL);
	CHECK_EQ(c.classes, 3);
	CHECK(cpe_qos_opt(&c, "qos-queue", "16385") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-queue", "16384") == NULL);
	CHECK(cpe_qos_opt(&c, "qos-queue", "1") == NULL);
	CHECK(cpe_qos_opt(&c, "wan-overhead", "257") != NULL);
	CHECK(cpe_qos_opt(&c, "wan-overhead", "0") == NULL);
	CHECK_EQ(c.overhead, 0);
	/* DSCP names. */
	CHECK(cpe_qos_opt(&c, "qos-map", "af11=0,cs7=1,va=2,le=2,af43=1")
	      == NULL);
	CHECK_EQ(c.dscp[10], 0);
	CHECK_EQ(c.dscp[56], 1);
	CHECK_EQ(c.dscp[44], 2);
	CHECK_EQ(c.dscp[1], 2);
	CHECK_EQ(c.dscp[38], 1);
	/* A bad entry leaves the map as it was, good entries included. */
	memcpy(before, c.dscp, sizeof(before));
	CHECK(cpe_qos_opt(&c, "qos-map", "ef=0,af14=1") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "cs8=1") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "64=1") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "ef=8") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "ef") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "ef=1,") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", ",ef=1") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "ef=0,,be=1") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-map", "") != NULL);
	CHECK(memcmp(before, c.dscp, sizeof(before)) == 0);
	CHECK(cpe_qos_opt(&c, "qos-pcp-map", "8=1") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-pcp-map", "7=2") == NULL);
	CHECK_EQ(c.pcp[7], 2);
	CHECK_EQ(cpe_qos_cfg_check(&c, msg, sizeof(msg)), 0);
	/* A class beyond --qos-classes, whatever the order of options. */
	CHECK(cpe_qos_opt(&c, "qos-classes", "2") == NULL);
	CHECK_EQ(cpe_qos_cfg_check(&c, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "allowed classes are 0..1") != NULL);
	/* Scheduler options without the shaper. */
	cpe_qos_cfg_defaults(&c);
	CHECK_EQ(cpe_qos_cfg_check(&c, msg, sizeof(msg)), 0);
	CHECK(cpe_qos_opt(&c, "qos-queue", "10") == NULL);
	CHECK_EQ(cpe_qos_cfg_check(&c, msg, sizeof(msg)), -EINVAL);
	CHECK(strstr(msg, "--qos-queue") != NULL &&
	      strstr(msg, "--wan-rate") != NULL);
	CHECK(cpe_qos_is_opt("wan-rate") && cpe_qos_is_opt("qos-pcp-map"));
	CHECK(!cpe_qos_is_opt("wan") && !cpe_qos_is_opt("qos-"));
}

/* IPv4 UDP 10.0.0.1:1000 -> 10.0.0.2:53, TOS tos, fragment field frag. */
#define V4UDP(tos, frag) 0x08, 0x00, 0x45, (tos), 0x00, 0x20, 0x12, 0x34, \
		(frag) >> 8, (frag) & 0xff, 64, 17, 0x00, 0x00, \
		10, 0, 0, 1, 10, 0, 0, 2
#define UDP(sp, dp) (sp) >> 8, (sp) & 0xff, (dp) >> 8, (dp) & 0xff, \
		0, 12, 0, 0
/* IPv6 UDP 2001:db8::1 -> 2001:db8::2, traffic class tc. */
#define V6UDP(tc) 0x86, 0xdd, 0x60 | ((tc) >> 4), ((tc) & 0x0f) << 4, \
		0, 0, 0, 8, 17, 64, \
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, \
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2

static uint32_t
hash_of(const struct cpe_qos_map *m, const uint8_t *f, size_t len,
	uint32_t seed, unsigned int *cls)
{
	uint8_t *p = dup_exact(f, len);
	uint32_t h = 0;

	*cls = cpe_qos_inspect(m, p, (uint32_t)len, -1, seed, &h);
	free(p);
	return h;
}

#define HASH(m, f, seed, cls) hash_of((m), (f), sizeof(f), (seed), (cls))

/* The 16-bit one's complement sum of an IPv4 header: 0xffff when valid. */
static uint16_t
v4_sum(const uint8_t *ip)
{
	uint32_t s = 0;
	unsigned int i;

	for (i = 0; i < 20; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static void
set_v4_csum(uint8_t *ip)
{
	uint16_t c;

	ip[10] = ip[11] = 0;
	c = (uint16_t)~v4_sum(ip);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
}

static void
test_flow_hash(void)
{
	static const uint8_t a[] = { MACS, V4UDP(0, 0), UDP(1000, 53) };
	static const uint8_t a_ef[] = { MACS, V4UDP(0xb8, 0), UDP(1000, 53) };
	static const uint8_t b[] = { MACS, V4UDP(0, 0), UDP(1001, 53) };
	static const uint8_t a_tag[] = { MACS, TAG(0x8100, 0, 7),
		V4UDP(0, 0), UDP(1000, 53) };
	static const uint8_t a_ppp[] = { MACS, PPPOE(0x0021),
		0x45, 0, 0x00, 0x20, 0x12, 0x34, 0, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2, UDP(1000, 53) };
	/* First and later fragments of one datagram: one flow. */
	static const uint8_t f1[] = { MACS, V4UDP(0, 0x2000), UDP(1000, 53) };
	static const uint8_t f2[] = { MACS, V4UDP(0, 0x0010), 1, 2, 3, 4,
		5, 6, 7, 8 };
	static const uint8_t f3[] = { MACS, V4UDP(0, 0x0010), 9, 9, 9, 9,
		5, 6, 7, 8 };
	static const uint8_t v6a[] = { MACS, V6UDP(0), UDP(1000, 53) };
	static const uint8_t v6b[] = { MACS, V6UDP(0), UDP(1000, 54) };
	static const uint8_t v6a_ppp[] = { MACS, PPPOE(0x0057),
		0x60, 0, 0, 0, 0, 8, 17, 64,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		UDP(1000, 53) };
	static const uint8_t arp_a[] = { MACS, 0x08, 0x06, 0, 1, 8, 0, 6, 4 };
	static const uint8_t arp2[] = { MACS, 0x08, 0x06, 0, 1, 8, 0, 6, 4,
		0, 2 };
	struct cpe_qos_cfg c;
	struct cpe_qos_map m;
	unsigned int cls, cls2;
	uint32_t h;
	size_t len;

	build(&c, &m, 4);
	h = HASH(&m, a, 1, &cls);
	CHECK_EQ(cls, 2);
	/* The DSCP picks the class, not the flow. */
	CHECK_EQ(HASH(&m, a_ef, 1, &cls), h);
	CHECK_EQ(cls, 0);
	CHECK(HASH(&m, b, 1, &cls) != h);
	CHECK(HASH(&m, a, 2, &cls) != h);	/* seeded */
	CHECK_EQ(HASH(&m, a_tag, 1, &cls), h);
	CHECK_EQ(HASH(&m, a_ppp, 1, &cls), h);
	CHECK_EQ(HASH(&m, f2, 1, &cls), HASH(&m, f3, 1, &cls2));
	CHECK_EQ(HASH(&m, f1, 1, &cls), HASH(&m, f2, 1, &cls2));
	h = HASH(&m, v6a, 1, &cls);
	CHECK_EQ(cls, 2);
	CHECK(HASH(&m, v6b, 1, &cls) != h);
	CHECK_EQ(HASH(&m, v6a_ppp, 1, &cls), h);
	CHECK_EQ(HASH(&m, arp_a, 1, &cls), HASH(&m, arp2, 1, &cls2));
	CHECK_EQ(cls, 0);
	/* Every truncation: no overread (exact copies), a class and a hash
	 * all the same. */
	for (len = 0; len < sizeof(a_ppp); len++)
		(void)hash_of(&m, a_ppp, len, 1, &cls);
	for (len = 0; len < sizeof(v6a); len++)
		(void)hash_of(&m, v6a, len, 1, &cls);
}

static bool
mark_of(uint8_t *f, size_t len)
{
	uint8_t *p = dup_exact(f, len);
	bool r = cpe_qos_ecn_mark(p, (uint32_t)len);

	memcpy(f, p, len);
	free(p);
	return r;
}

static void
test_ecn_mark(void)
{
	uint8_t not_ect[] = { MACS, V4UDP(0xb8, 0), UDP(1, 2) };
	uint8_t ect0[] = { MACS, V4UDP(0x02, 0), UDP(1, 2) };
	uint8_t ect1[] = { MACS, TAG(0x8100, 3, 9), V4UDP(0xb9, 0x4000),
		UDP(1, 2) };
	uint8_t v6_ect1[] = { MACS, V6UDP(0x01), UDP(1, 2) };
	uint8_t v6_not[] = { MACS, V6UDP(0xb8), UDP(1, 2) };
	uint8_t ppp_ect0[] = { MACS, PPPOE(0x0021),
		0x45, 0x02, 0x00, 0x20, 0x12, 0x34, 0, 0, 64, 17, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2, UDP(1, 2) };
	uint8_t copy[sizeof(ppp_ect0)];
	unsigned int off, i;
	size_t len;

	set_v4_csum(not_ect + 14);
	set_v4_csum(ect0 + 14);
	set_v4_csum(ect1 + 18);
	set_v4_csum(ppp_ect0 + 22);
	memcpy(copy, not_ect, sizeof(not_ect));
	CHECK(!mark_of(not_ect, sizeof(not_ect)));
	CHECK_MEM(not_ect, copy, sizeof(not_ect));
	CHECK(mark_of(ect0, sizeof(ect0)));
	CHECK_EQ(ect0[15], 0x03);
	CHECK_EQ(v4_sum(ect0 + 14), 0xffff);
	CHECK(mark_of(ect1, sizeof(ect1)));
	CHECK_EQ(ect1[19], 0xbb);	/* DSCP kept, CE */
	CHECK_EQ(v4_sum(ect1 + 18), 0xffff);
	CHECK(mark_of(ppp_ect0, sizeof(ppp_ect0)));
	CHECK_EQ(ppp_ect0[23], 0x03);
	CHECK_EQ(v4_sum(ppp_ect0 + 22), 0xffff);
	/* IPv6: ECN is bits 5..4 of the second byte. */
	CHECK(mark_of(v6_ect1, sizeof(v6_ect1)));
	CHECK_EQ(v6_ect1[15] & 0x30, 0x30);
	CHECK_EQ(v6_ect1[14], 0x60);
	CHECK(!mark_of(v6_not, sizeof(v6_not)));
	/* Every checksum byte value survives the incremental update. */
	for (i = 0; i < 256; i++) {
		uint8_t f[] = { MACS, V4UDP(0x01, 0), UDP(1, 2) };

		f[14 + 8] = (uint8_t)i;	/* TTL: another checksum */
		set_v4_csum(f + 14);
		CHECK(mark_of(f, sizeof(f)) && v4_sum(f + 14) == 0xffff);
	}
	/* Truncated: never marked, never written past the end. */
	for (off = 0; off < 14 + 20; off++) {
		uint8_t f[] = { MACS, V4UDP(0x02, 0), UDP(1, 2) };

		len = off;
		CHECK(!mark_of(f, len));
	}
}

static void
test_fq_options(void)
{
	struct cpe_qos_cfg c;
	char msg[256];

	cpe_qos_cfg_defaults(&c);
	CHECK(cpe_qos_opt(&c, "wan-rate", "20M") == NULL);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) == 0);
	CHECK_EQ(c.queue, CPE_QOS_DEF_FQ_QUEUE);
	CHECK_EQ(c.target_us, 5000);
	CHECK_EQ(c.interval_us, 100000);
	CHECK(cpe_qos_opt(&c, "qos-fq", "yes") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-fq", "off") == NULL);
	CHECK(!c.fq);
	c.queue = 0;
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) == 0);
	CHECK_EQ(c.queue, CPE_QOS_DEF_QUEUE);
	CHECK(cpe_qos_opt(&c, "qos-target", "10ms") == NULL);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) != 0);
	CHECK(strstr(msg, "--qos-target") && strstr(msg, "--qos-fq on"));
	CHECK(cpe_qos_opt(&c, "qos-fq", "on") == NULL);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) == 0);
	CHECK_EQ(c.target_us, 10000);
	CHECK(cpe_qos_opt(&c, "qos-target", "500us") == NULL);
	CHECK_EQ(c.target_us, 500);
	CHECK(cpe_qos_opt(&c, "qos-target", "0.5ms") == NULL);
	CHECK_EQ(c.target_us, 500);
	CHECK(cpe_qos_opt(&c, "qos-target", "5") != NULL);	/* no unit */
	CHECK(cpe_qos_opt(&c, "qos-target", "99us") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-target", "2s") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-interval", "1s") == NULL);
	CHECK_EQ(c.interval_us, 1000000);
	CHECK(cpe_qos_opt(&c, "qos-interval", "11s") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-interval", "400us") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-target", "200ms") == NULL);
	CHECK(cpe_qos_opt(&c, "qos-interval", "100ms") == NULL);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) != 0);
	CHECK(strstr(msg, "--qos-interval") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-target", "5ms") == NULL);
	CHECK(cpe_qos_opt(&c, "qos-flows", "0") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-flows", "65537") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-flows", "64") == NULL);
	CHECK_EQ(c.flows, 64);
	CHECK(cpe_qos_opt(&c, "qos-quantum", "63") != NULL);
	CHECK(cpe_qos_opt(&c, "qos-quantum", "300") == NULL);
	CHECK_EQ(c.quantum, 300);
	CHECK(cpe_qos_opt(&c, "qos-ecn", "off") == NULL);
	CHECK(!c.ecn);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) == 0);
	CHECK(cpe_qos_is_opt("qos-fq") && cpe_qos_is_opt("qos-quantum"));
	/* The shaper's catch-up: a time, 0 (none) to 1 s. */
	CHECK_EQ(c.catchup_us, CPE_QOS_DEF_CATCHUP_US);
	CHECK(cpe_qos_is_opt("qos-catchup"));
	CHECK(cpe_qos_opt(&c, "qos-catchup", "0us") == NULL);
	CHECK_EQ(c.catchup_us, 0);
	CHECK(cpe_qos_opt(&c, "qos-catchup", "50ms") == NULL);
	CHECK_EQ(c.catchup_us, 50000);
	CHECK(cpe_qos_opt(&c, "qos-catchup", "20") != NULL);	/* no unit */
	CHECK(cpe_qos_opt(&c, "qos-catchup", "2s") != NULL);
	CHECK_EQ(c.catchup_us, 50000);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) == 0);
	/* Without the shaper: the first flow-queue option named. */
	cpe_qos_cfg_defaults(&c);
	CHECK(cpe_qos_opt(&c, "qos-ecn", "off") == NULL);
	CHECK(cpe_qos_cfg_check(&c, msg, sizeof(msg)) != 0);
	CHECK(strstr(msg, "--qos-ecn") && strstr(msg, "--wan-rate"));
}

int
main(void)
{
	test_default_map();
	test_fewer_classes();
	test_user_map();
	test_truncated();
	test_options();
	test_flow_hash();
	test_ecn_mark();
	test_fq_options();
	printf("test_qos_class: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
