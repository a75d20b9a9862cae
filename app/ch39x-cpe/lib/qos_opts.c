/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN scheduler's options (--qos-*): their parsers, defaults and the
 * check of the whole; the classifier is qos_class.c. No DPDK here: the
 * unit test (tests/cpe/test_qos_class.c) links these files alone.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num.h"
#include "qos.h"

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
	uint64_t x;
	int rc = cpe_parse_u64(s, lo, hi, &x);

	if (rc == 0)
		*v = (unsigned long)x;
	return rc;
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
