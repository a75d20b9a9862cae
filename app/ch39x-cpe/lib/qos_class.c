/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN scheduler's options and its classifier: which class a frame
 * goes to, read from the frame's own bytes (outermost VLAN tag's PCP, the
 * IPv4 TOS or the IPv6 traffic class, also inside a PPPoE session), so that it works whichever path
 * made the frame (fast path, slow path, ICMP and ARP the router sends,
 * IPv6, VLAN sub-interfaces) and needs nothing from them. No DPDK here: the
 * unit test (tests/cpe/test_qos_class.c) links this file alone.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qos.h"

#define ETH_HLEN	14
#define VLAN_HLEN	4
#define MAX_TAGS	2	/* 802.1ad outer and 802.1Q inner */
#define PPPOE_HLEN	6	/* RFC 2516 session header */

#define RATE_ALLOWED "a rate in bits/s, 64k..10G: digits with an " \
	"optional fraction and suffix k (1000), M or G, e.g. 20M or 1.5G"
#define MAP_ALLOWED "DSCP=CLASS[,DSCP=CLASS...], DSCP 0..63 or a name " \
	"(be, le, cs0..cs7, af11..af43, va, ef), CLASS 0..7 and below " \
	"--qos-classes"
#define PCP_ALLOWED "PCP=CLASS[,PCP=CLASS...], PCP 0..7 (802.1p), " \
	"CLASS 0..7 and below --qos-classes"

void
cpe_qos_cfg_defaults(struct cpe_qos_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->classes = CPE_QOS_DEF_CLASSES;
	c->overhead = CPE_QOS_DEF_OVERHEAD;
	c->catchup_us = CPE_QOS_DEF_CATCHUP_US;
	c->fq = true;
	c->ecn = true;
	c->target_us = CPE_QOS_DEF_TARGET_US;
	c->interval_us = CPE_QOS_DEF_INTERVAL_US;
	c->flows = CPE_QOS_DEF_FLOWS;
	c->quantum = CPE_QOS_DEF_QUANTUM;
	memset(c->dscp, -1, sizeof(c->dscp));
	memset(c->pcp, -1, sizeof(c->pcp));
}

static int
parse_uint(const char *s, unsigned long lo, unsigned long hi,
	   unsigned long *v)
{
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

/* A unit suffix and what one of it is worth. */
struct unit {
	const char *name;
	double mult;
};

static const struct unit rate_units[] = {
	{ "", 1 }, { "k", 1e3 }, { "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 },
	{ NULL, 0 },
};

/* A time needs its unit: a bare 5 could mean ms or s. */
static const struct unit time_units[] = {
	{ "us", 1 }, { "ms", 1e3 }, { "s", 1e6 }, { NULL, 0 },
};

/*
 * A number with an optional fraction and one of units' suffixes, scaled
 * and rounded: "20M", "1.5G", "64000" (bits/s), "5ms", "500us" (us).
 */
static int
parse_scaled(const char *s, const struct unit *units, double lo, double hi,
	     uint64_t *out)
{
	double v;
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno != 0)
		return -EINVAL;
	for (; units->name != NULL; units++)
		if (strcmp(end, units->name) == 0)
			break;
	if (units->name == NULL)
		return -EINVAL;
	v *= units->mult;
	if (v < lo || v > hi)
		return -EINVAL;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

static int
parse_rate(const char *s, uint64_t *bps)
{
	return parse_scaled(s, rate_units, (double)CPE_QOS_MIN_RATE,
			    (double)CPE_QOS_MAX_RATE, bps);
}

/* Microseconds, lo..hi. */
static int
parse_time(const char *s, unsigned long lo, unsigned long hi, uint32_t *us)
{
	uint64_t v;

	if (parse_scaled(s, time_units, (double)lo, (double)hi, &v) != 0)
		return -EINVAL;
	*us = (uint32_t)v;
	return 0;
}

static int
parse_onoff(const char *s, bool *v)
{
	if (s != NULL && strcmp(s, "on") == 0)
		*v = true;
	else if (s != NULL && strcmp(s, "off") == 0)
		*v = false;
	else
		return -EINVAL;
	return 0;
}

/* A DSCP by number or by its RFC 4594/8622 name. */
static int
parse_dscp(const char *s, unsigned long *d)
{
	if (strcmp(s, "be") == 0 || strcmp(s, "df") == 0) {
		*d = 0;
	} else if (strcmp(s, "le") == 0) {
		*d = 1;
	} else if (strcmp(s, "ef") == 0) {
		*d = 46;
	} else if (strcmp(s, "va") == 0) {
		*d = 44;
	} else if (strncmp(s, "cs", 2) == 0 && s[2] >= '0' && s[2] <= '7' &&
		   s[3] == '\0') {
		*d = (unsigned long)(s[2] - '0') * 8;
	} else if (strncmp(s, "af", 2) == 0 && s[2] >= '1' && s[2] <= '4' &&
		   s[3] >= '1' && s[3] <= '3' && s[4] == '\0') {
		*d = (unsigned long)(s[2] - '0') * 8 +
			(unsigned long)(s[3] - '0') * 2;
	} else {
		return parse_uint(s, 0, 63, d);
	}
	return 0;
}

/* "KEY=CLASS,...": every entry checked before any is stored. */
static int
parse_map(const char *val, bool pcp, int8_t *map)
{
	int8_t tmp[64];
	char buf[512], *tok, *save = NULL, *eq;
	unsigned long key, cls;
	size_t n = pcp ? 8 : 64;

	if (val == NULL || strlen(val) >= sizeof(buf) || val[0] == '\0')
		return -EINVAL;
	/* A trailing or doubled comma is a typo, not an empty entry. */
	if (val[0] == ',' || val[strlen(val) - 1] == ',' ||
	    strstr(val, ",,") != NULL)
		return -EINVAL;
	memcpy(tmp, map, n);
	strcpy(buf, val);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (eq == NULL)
			return -EINVAL;
		*eq = '\0';
		if ((pcp ? parse_uint(tok, 0, 7, &key) :
		     parse_dscp(tok, &key)) != 0 ||
		    parse_uint(eq + 1, 0, CPE_QOS_MAX_CLASSES - 1, &cls) != 0)
			return -EINVAL;
		tmp[key] = (int8_t)cls;
	}
	memcpy(map, tmp, n);
	return 0;
}

static const char *const opt_names[] = {
	"wan-rate", "down-rate", "wan-overhead", "qos-classes", "qos-queue", "qos-map",
	"qos-pcp-map", "qos-fq", "qos-target", "qos-interval", "qos-ecn",
	"qos-flows", "qos-quantum", "qos-catchup",
};

bool
cpe_qos_is_opt(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(opt_names) / sizeof(opt_names[0]); i++)
		if (strcmp(name, opt_names[i]) == 0)
			return true;
	return false;
}

const char *
cpe_qos_opt(struct cpe_qos_cfg *c, const char *name, const char *val)
{
	unsigned long v;

	if (strcmp(name, "wan-rate") == 0) {
		if (parse_rate(val, &c->rate) != 0)
			return RATE_ALLOWED;
		return NULL;
	}
	if (strcmp(name, "down-rate") == 0) {
		if (parse_rate(val, &c->down_rate) != 0)
			return RATE_ALLOWED;
		return NULL;
	}
	if (strcmp(name, "wan-overhead") == 0) {
		if (parse_uint(val, 0, CPE_QOS_MAX_OVERHEAD, &v) != 0)
			return "0..256 (bytes counted per frame on top of its "
				"length without FCS)";
		c->overhead = (uint32_t)v;
	} else if (strcmp(name, "qos-classes") == 0) {
		if (parse_uint(val, 1, CPE_QOS_MAX_CLASSES, &v) != 0)
			return "1..8";
		c->classes = (uint32_t)v;
	} else if (strcmp(name, "qos-queue") == 0) {
		if (parse_uint(val, 1, CPE_QOS_MAX_QUEUE, &v) != 0)
			return "1..16384 (packets per class)";
		c->queue = (uint32_t)v;
	} else if (strcmp(name, "qos-fq") == 0) {
		if (parse_onoff(val, &c->fq) != 0)
			return "on (flow queues with CoDel in each class) or "
				"off (one FIFO per class)";
	} else if (strcmp(name, "qos-ecn") == 0) {
		if (parse_onoff(val, &c->ecn) != 0)
			return "on (CoDel marks ECN-capable packets) or off "
				"(it drops them)";
	} else if (strcmp(name, "qos-target") == 0) {
		if (parse_time(val, 100, 1000000, &c->target_us) != 0)
			return "a time 100us..1s with unit us, ms or s, "
				"e.g. 5ms";
	} else if (strcmp(name, "qos-interval") == 0) {
		if (parse_time(val, 1000, 10000000, &c->interval_us) != 0)
			return "a time 1ms..10s with unit us, ms or s, "
				"e.g. 100ms";
	} else if (strcmp(name, "qos-catchup") == 0) {
		if (parse_time(val, 0, CPE_QOS_MAX_CATCHUP_US,
			       &c->catchup_us) != 0)
			return "a time 0us..1s with unit us, ms or s, "
				"e.g. 20ms (0: none)";
	} else if (strcmp(name, "qos-flows") == 0) {
		if (parse_uint(val, 1, CPE_QOS_MAX_FLOWS, &v) != 0)
			return "1..65536 (flow queues per class)";
		c->flows = (uint32_t)v;
	} else if (strcmp(name, "qos-quantum") == 0) {
		if (parse_uint(val, 64, 65535, &v) != 0)
			return "64..65535 (bytes per flow and round)";
		c->quantum = (uint32_t)v;
	} else if (strcmp(name, "qos-map") == 0) {
		if (parse_map(val, false, c->dscp) != 0)
			return MAP_ALLOWED;
	} else if (strcmp(name, "qos-pcp-map") == 0) {
		if (parse_map(val, true, c->pcp) != 0)
			return PCP_ALLOWED;
	} else {
		return "an option of the WAN scheduler (see --help)";
	}
	if (c->set_without_rate == NULL)
		c->set_without_rate = name;
	return NULL;
}

/* Flow-queue options given with --qos-fq off: a mistake, not a no-op. */
static const char *
fq_only_set(const struct cpe_qos_cfg *c)
{
	if (c->target_us != CPE_QOS_DEF_TARGET_US)
		return "qos-target";
	if (c->interval_us != CPE_QOS_DEF_INTERVAL_US)
		return "qos-interval";
	if (c->flows != CPE_QOS_DEF_FLOWS)
		return "qos-flows";
	if (c->quantum != CPE_QOS_DEF_QUANTUM)
		return "qos-quantum";
	if (!c->ecn)
		return "qos-ecn";
	return NULL;
}

int
cpe_qos_cfg_check(struct cpe_qos_cfg *c, char *msg, size_t size)
{
	const char *fq_opt;
	unsigned int i;

	if (c->rate == 0 && c->down_rate == 0 &&
	    c->set_without_rate != NULL) {
		snprintf(msg, size, "--%s: the WAN scheduler runs only under "
			 "its shaper; allowed with --wan-rate RATE or "
			 "--down-rate RATE (%s)", c->set_without_rate,
			 RATE_ALLOWED);
		return -EINVAL;
	}
	fq_opt = c->fq ? NULL : fq_only_set(c);
	if (fq_opt != NULL) {
		snprintf(msg, size, "--%s: an option of the flow queues; "
			 "allowed with --qos-fq on (the default), not with "
			 "--qos-fq off", fq_opt);
		return -EINVAL;
	}
	if (c->target_us >= c->interval_us) {
		snprintf(msg, size, "--qos-target %uus: not below --qos-interval "
			 "%uus; allowed: a target shorter than the interval "
			 "(RFC 8289: 5-10 %% of it)", c->target_us,
			 c->interval_us);
		return -EINVAL;
	}
	if (c->queue == 0)
		c->queue = c->fq ? CPE_QOS_DEF_FQ_QUEUE : CPE_QOS_DEF_QUEUE;
	for (i = 0; i < 64; i++)
		if (c->dscp[i] >= (int)c->classes) {
			snprintf(msg, size, "--qos-map %u=%d: class beyond "
				 "--qos-classes %u; allowed classes are 0..%u",
				 i, c->dscp[i], c->classes, c->classes - 1);
			return -EINVAL;
		}
	for (i = 0; i < 8; i++)
		if (c->pcp[i] >= (int)c->classes) {
			snprintf(msg, size, "--qos-pcp-map %u=%d: class beyond "
				 "--qos-classes %u; allowed classes are 0..%u",
				 i, c->pcp[i], c->classes, c->classes - 1);
			return -EINVAL;
		}
	return 0;
}

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
