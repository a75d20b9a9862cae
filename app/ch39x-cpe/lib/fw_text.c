/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The firewall's text: its rules and port forwards as the options and
 * /cpe/fw/... write them (parsed into fw.h's cpe_fw_rule and
 * cpe_fw_forward, added to and deleted from the configuration) and the
 * names of its verdicts. Pure: no DPDK.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "fw_bits.h"

static const char *const reason_names[CPE_FW_NB_REASONS] = {
	[CPE_FW_ACCEPT] = "accept",
	[CPE_FW_DROP_FWD_NEW] = "wan_to_lan_new",
	[CPE_FW_DROP_INPUT] = "wan_to_router",
	[CPE_FW_DROP_TCP_INVALID] = "tcp_no_state",
	[CPE_FW_DROP_ICMP_ERR] = "icmp_error_untracked",
	[CPE_FW_DROP_ICMP_RATE] = "icmp_echo_rate",
	[CPE_FW_DROP_ND_HOP] = "nd_hop_limit",
	[CPE_FW_DROP_ICMP_TYPE] = "icmp_type",
	[CPE_FW_DROP_BOGON] = "wan_bogon_source",
	[CPE_FW_DROP_SPOOF_WAN] = "wan_lan_source",
	[CPE_FW_DROP_SPOOF_LAN] = "lan_foreign_source",
	[CPE_FW_DROP_FRAG] = "wan_fragment",
	[CPE_FW_DROP_SYNFLOOD] = "synflood_limit",
	[CPE_FW_DROP_FULL] = "state_table_full",
};

const char *
cpe_fw_reason_name(enum cpe_fw_reason r)
{
	return r < CPE_FW_NB_REASONS ? reason_names[r] : "?";
}

static int
parse_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	unsigned long a, b;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	a = strtoul(s, &end, 10);
	b = a;
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		b = strtoul(end + 1, &end, 10);
	}
	if (*end != '\0' || a < 1 || b > 65535 || a > b)
		return -1;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

static int
parse_addr(const char *s, size_t n, struct cpe_fw_rule *r)
{
	char buf[64], *slash;
	unsigned long plen;
	uint8_t a4[4];

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET6, buf, r->addr) == 1) {
		r->v6 = 1;
		r->plen = 128;
	} else if (inet_pton(AF_INET, buf, a4) == 1) {
		v4_mapped(r->addr, a4);
		r->plen = 128;
	} else {
		return -1;
	}
	if (slash != NULL) {
		char *end;

		plen = strtoul(slash, &end, 10);
		if (*slash < '0' || *slash > '9' || *end != '\0' ||
		    plen > (r->v6 ? 128u : 32u))
			return -1;
		r->plen = (uint8_t)(r->v6 ? plen : 96 + plen);
	}
	return 0;
}

const char *
cpe_fw_rule_parse(const char *val, bool pinhole, struct cpe_fw_rule *r)
{
	const char *allowed = pinhole ?
		"PROTO/[IPV6[/PLEN]]:PORT[-PORT] or PROTO/IPV4[/PLEN]:PORT"
		"[-PORT], PROTO tcp or udp, e.g. tcp/[2001:db8::10]:443" :
		"PROTO/PORT[-PORT], PROTO tcp or udp, PORT 1..65535, "
		"e.g. tcp/22 or udp/5000-5010";
	const char *rest, *colon;

	memset(r, 0, sizeof(*r));
	snprintf(r->text, sizeof(r->text), "%s", val);
	if (strncmp(val, "tcp/", 4) == 0)
		r->proto = 6;
	else if (strncmp(val, "udp/", 4) == 0)
		r->proto = 17;
	else
		return allowed;
	rest = val + 4;
	r->pinhole = pinhole;
	if (!pinhole)
		return parse_range(rest, &r->lo, &r->hi) == 0 ? NULL : allowed;
	if (*rest == '[') {
		colon = strstr(rest, "]:");
		if (colon == NULL ||
		    parse_addr(rest + 1, (size_t)(colon - rest - 1), r) != 0 ||
		    !r->v6)
			return allowed;
		colon++;
	} else {
		colon = strrchr(rest, ':');
		if (colon == NULL ||
		    parse_addr(rest, (size_t)(colon - rest), r) != 0 || r->v6)
			return allowed;
	}
	return parse_range(colon + 1, &r->lo, &r->hi) == 0 ? NULL : allowed;
}

const char *
cpe_fw_rule_kind(const struct cpe_fw_rule *r)
{
	return r->pinhole ? "fw-pinhole" : "fw-open";
}

static bool
same_rule(const struct cpe_fw_rule *a, const struct cpe_fw_rule *b)
{
	return a->pinhole == b->pinhole && a->proto == b->proto &&
		a->lo == b->lo && a->hi == b->hi && a->v6 == b->v6 &&
		a->plen == b->plen && memcmp(a->addr, b->addr, 16) == 0;
}

int
cpe_fw_rule_add(struct cpe_fw_cfg *cfg, const struct cpe_fw_rule *r)
{
	struct cpe_fw_rule *n;
	uint16_t i;

	for (i = 0; i < cfg->nb_rules; i++)
		if (same_rule(&cfg->rules[i], r))
			return -EEXIST;
	if (cfg->nb_rules == CPE_FW_MAX_RULES || cfg->next_id == INT32_MAX)
		return -ENOSPC;
	n = &cfg->rules[cfg->nb_rules++];
	*n = *r;
	n->hits = 0;
	n->id = ++cfg->next_id;
	return (int)n->id;
}

int
cpe_fw_rule_del(struct cpe_fw_cfg *cfg, uint32_t id)
{
	uint16_t i;

	for (i = 0; i < cfg->nb_rules; i++)
		if (cfg->rules[i].id == id)
			break;
	if (id == 0 || i == cfg->nb_rules)
		return -ENOENT;
	/* Keeps the order: the first matching rule counts the hit. */
	memmove(&cfg->rules[i], &cfg->rules[i + 1],
		(size_t)(cfg->nb_rules - i - 1) * sizeof(cfg->rules[0]));
	cfg->nb_rules--;
	return 0;
}

const char *
cpe_fw_forward_parse(const char *val, struct cpe_fw_forward *f)
{
	static const char allowed[] = "PROTO/PORT[-PORT]=IPV4[:PORT], PROTO "
		"tcp or udp, PORT 1..65535, e.g. tcp/8080=192.168.1.10:80 or "
		"udp/5000-5010=192.168.1.10";
	char buf[sizeof(f->text)], *eq, *colon, *end;
	struct in_addr a;
	unsigned long to;
	size_t n = strlen(val);

	memset(f, 0, sizeof(*f));
	if (n >= sizeof(buf))
		return allowed;
	memcpy(f->text, val, n + 1);
	memcpy(buf, val, n + 1);
	if (strncmp(buf, "tcp/", 4) == 0)
		f->proto = 6;
	else if (strncmp(buf, "udp/", 4) == 0)
		f->proto = 17;
	else
		return allowed;
	eq = strchr(buf, '=');
	if (eq == NULL)
		return allowed;
	*eq++ = '\0';
	if (parse_range(buf + 4, &f->lo, &f->hi) != 0)
		return allowed;
	colon = strchr(eq, ':');
	if (colon != NULL)
		*colon++ = '\0';
	if (inet_pton(AF_INET, eq, &a) != 1)
		return allowed;
	f->addr = ntohl(a.s_addr);
	f->to = f->lo;
	if (colon != NULL) {
		if (*colon < '0' || *colon > '9')
			return allowed;
		to = strtoul(colon, &end, 10);
		if (*end != '\0' || to < 1 ||
		    to + (unsigned long)(f->hi - f->lo) > 65535)
			return allowed;
		f->to = (uint16_t)to;
	}
	/* A host address: not 0/8, loopback, multicast or broadcast. */
	if ((f->addr >> 24) == 0 || (f->addr >> 24) == 127 ||
	    (f->addr >> 28) >= 14)
		return allowed;
	return NULL;
}

int
cpe_fw_forward_add(struct cpe_fw_cfg *cfg, const struct cpe_fw_forward *f)
{
	const struct cpe_fw_forward *o;
	uint16_t i;

	for (i = 0; i < cfg->nb_fwd; i++) {
		o = &cfg->fwd[i];
		if (o->proto == f->proto && f->lo <= o->hi && o->lo <= f->hi)
			return -EEXIST;
	}
	if (cfg->nb_fwd == CPE_FW_MAX_FORWARDS)
		return -ENOSPC;
	cfg->fwd[cfg->nb_fwd++] = *f;
	return 0;
}
