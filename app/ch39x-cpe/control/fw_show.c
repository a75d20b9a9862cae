/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * What the firewall and the fragment tracking show: their counters in
 * the statistics' text and JSON (stats.h) and in telemetry replies
 * (ctl.h's cpe_fw_tel()).
 */

#include <inttypes.h>
#include <stdio.h>

#include "fragdp.h"
#include "fw_show.h"
#include "fwdp.h"

void
cpe_evict_print(FILE *f, const uint64_t *v, bool json)
{
	unsigned int c;

	fprintf(f, json ? ", \"evicted_by_class\": {" : "");
	for (c = 0; c < CPE_EV_NB; c++)
		fprintf(f, json ? "%s\"%s\": %" PRIu64 :
			"%s evicted_%s %" PRIu64,
			json && c ? ", " : "", cpe_ev_class_name(c), v[c]);
	fprintf(f, json ? "}" : "");
}

void
cpe_evict_tel(struct rte_tel_data *d, const char *prefix, const uint64_t *v)
{
	char name[64];
	unsigned int c;

	for (c = 0; c < CPE_EV_NB; c++) {
		snprintf(name, sizeof(name), "%s_evicted_%s", prefix,
			 cpe_ev_class_name(c));
		cpe_tel_u64(d, name, v[c]);
	}
}

/* The guard's counters (guard_dp.h), in telemetry. */
static void
guard_tel(const struct cpe_guard *g, struct rte_tel_data *d)
{
	cpe_tel_u64(d, "synflood_on", g->cfg.on);
	cpe_tel_u64(d, "synflood_admitted", g->st.admitted);
	cpe_tel_u64(d, "synflood_retried", g->st.retried);
	cpe_tel_u64(d, "synflood_limited_tcp", g->st.limited_tcp);
	cpe_tel_u64(d, "synflood_limited_udp", g->st.limited_udp);
	cpe_tel_u64(d, "synflood_budget_drops", g->st.budget_drops);
}

static void
guard_print(const struct cpe_guard *g, FILE *f, bool json)
{
	fprintf(f, json ? "  \"synflood\": {\"on\": %s, \"rate\": %u, "
		"\"burst\": %u, \"budget\": %u, \"admitted\": %" PRIu64
		", \"retried\": %" PRIu64 ", \"limited_tcp\": %" PRIu64
		", \"limited_udp\": %" PRIu64 ", \"budget_drops\": %" PRIu64
		"},\n" : "  synflood: %s rate %u burst %u budget %u admitted %"
		PRIu64 " retried %" PRIu64 " limited_tcp %" PRIu64
		" limited_udp %" PRIu64 " budget_drops %" PRIu64 "\n",
		g->cfg.on ? (json ? "true" : "on") : (json ? "false" : "off"),
		g->cfg.rate, g->cfg.burst, g->cfg.budget, g->st.admitted,
		g->st.retried, g->st.limited_tcp, g->st.limited_udp,
		g->st.budget_drops);
}

void
cpe_fw_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_fw_cfg *c = &r->o->fw;
	const struct cpe_fwdp *f = r->dp->fw;
	char name[64];
	int i;

	cpe_tel_u64(d, "fw_on", f->on);
	guard_tel(&f->guard, d);
	for (i = 0; i < c->nb_fwd; i++) {
		snprintf(name, sizeof(name), "fw_forward_%d_hits", i + 1);
		cpe_tel_u64(d, name, c->fwd[i].hits);
		snprintf(name, sizeof(name), "fw_forward_%d_hairpin", i + 1);
		cpe_tel_u64(d, name, c->fwd[i].hairpin);
		snprintf(name, sizeof(name), "fw_forward_%d_limited", i + 1);
		cpe_tel_u64(d, name, c->fwd[i].limited);
	}
	if (!f->on)
		return;
	cpe_tel_u64(d, "fw_states", f->fw.in_use);
	cpe_tel_u64(d, "fw_created", f->fw.st.created);
	cpe_tel_u64(d, "fw_expired", f->fw.st.expired);
	cpe_tel_u64(d, "fw_evicted", f->fw.st.evicted);
	cpe_tel_u64(d, "fw_full_refused", f->fw.st.full_refused);
	cpe_evict_tel(d, "fw", f->fw.st.evicted_cls);
	for (i = 1; i < CPE_FW_NB_REASONS; i++) {
		snprintf(name, sizeof(name), "fw_drop_%s",
			 cpe_fw_reason_name(i));
		cpe_tel_u64(d, name, f->fw.st.drops[i]);
	}
	/* A rule's limited count: /cpe/fw/rules (a telemetry dict holds 256
	 * entries: 64 rules, 32 forwards and the rest fill most of it). */
	for (i = 0; i < c->nb_rules; i++) {
		snprintf(name, sizeof(name), "fw_rule_%u_hits",
			 c->rules[i].id);
		cpe_tel_u64(d, name, c->rules[i].hits);
	}
}

void
cpe_fw_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_fwdp *fw = r->dp->fw;
	const struct cpe_fw_stats *s = &fw->fw.st;
	const struct cpe_fw_cfg *c = &r->o->fw;
	uint16_t i;
	int k;

	if (fw->guard_on)
		guard_print(&fw->guard, f, false);
	for (i = 0; i < c->nb_fwd; i++)
		fprintf(f, "  port forward %s: hits %" PRIu64 " hairpin %"
			PRIu64 " limited %" PRIu64 "\n", c->fwd[i].text,
			c->fwd[i].hits, c->fwd[i].hairpin, c->fwd[i].limited);
	if (!fw->on) {
		fprintf(f, "  firewall: off\n");
		return;
	}
	fprintf(f, "  firewall: states %u of %u created %" PRIu64
		" expired %" PRIu64 " evicted %" PRIu64 " accepted_state %"
		PRIu64 " accepted_icmp %" PRIu64 " full_refused %" PRIu64,
		fw->fw.in_use, fw->fw.mask + 1, s->created, s->expired,
		s->evicted, s->accepted_state, s->accepted_icmp,
		s->full_refused);
	cpe_evict_print(f, s->evicted_cls, false);
	fprintf(f, "\n");
	fprintf(f, "  firewall drops:");
	for (k = 1; k < CPE_FW_NB_REASONS; k++)
		fprintf(f, " %s %" PRIu64, cpe_fw_reason_name(k),
			s->drops[k]);
	fprintf(f, "\n");
	for (i = 0; i < c->nb_rules; i++)
		fprintf(f, "  firewall rule %u %s %s: hits %" PRIu64
			" limited %" PRIu64 "\n", c->rules[i].id,
			cpe_fw_rule_kind(&c->rules[i]), c->rules[i].text,
			c->rules[i].hits, c->rules[i].limited);
}

static void
fw_json_on(const struct cpe_fwdp *fw, const struct cpe_fw_cfg *c, FILE *f)
{
	const struct cpe_fw_stats *s = &fw->fw.st;
	uint16_t i;
	int k;

	fprintf(f, ", \"states\": %u, \"capacity\": %u, \"created\": %"
		PRIu64 ", \"expired\": %" PRIu64 ", \"evicted\": %"
		PRIu64 ", \"accepted_state\": %" PRIu64
		", \"accepted_icmp\": %" PRIu64 ", \"full_refused\": %"
		PRIu64, fw->fw.in_use, fw->fw.mask + 1, s->created,
		s->expired, s->evicted, s->accepted_state, s->accepted_icmp,
		s->full_refused);
	cpe_evict_print(f, s->evicted_cls, true);
	fprintf(f, ", \"drops\": {");
	for (k = 1; k < CPE_FW_NB_REASONS; k++)
		fprintf(f, "%s\"%s\": %" PRIu64, k > 1 ? ", " : "",
			cpe_fw_reason_name(k), s->drops[k]);
	fprintf(f, "}, \"rules\": [");
	for (i = 0; i < c->nb_rules; i++)
		fprintf(f, "%s{\"id\": %u, \"kind\": \"%s\", "
			"\"rule\": \"%s\", \"hits\": %" PRIu64
			", \"limited\": %" PRIu64 "}", i ? ", " : "",
			c->rules[i].id, cpe_fw_rule_kind(&c->rules[i]),
			c->rules[i].text, c->rules[i].hits,
			c->rules[i].limited);
	fprintf(f, "]");
}

void
cpe_fw_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_fwdp *fw = r->dp->fw;
	const struct cpe_fw_cfg *c = &r->o->fw;
	uint16_t i;

	if (fw->guard_on)
		guard_print(&fw->guard, f, true);
	fprintf(f, "  \"firewall\": {\"on\": %s, \"forwards\": [",
		fw->on ? "true" : "false");
	for (i = 0; i < c->nb_fwd; i++)
		fprintf(f, "%s{\"rule\": \"%s\", \"hits\": %" PRIu64
			", \"hairpin\": %" PRIu64 ", \"limited\": %" PRIu64 "}",
			i ? ", " : "", c->fwd[i].text, c->fwd[i].hits,
			c->fwd[i].hairpin, c->fwd[i].limited);
	fprintf(f, "]");
	if (fw->on)
		fw_json_on(fw, c, f);
	fprintf(f, "},\n");
}

void
cpe_frag_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_fragdp *fd = r->dp->frag;
	const struct cpe_frag_stats *s = &fd->tab.st;
	int k;

	fprintf(f, "  fragments: tracked %u first %" PRIu64 " later %" PRIu64
		" done %" PRIu64 " expired %" PRIu64 " evicted %" PRIu64,
		fd->tab.in_use, s->first, s->later, s->done, s->expired,
		s->evicted);
	for (k = 1; k < CPE_FRAG_NB_REASONS; k++)
		fprintf(f, " %s %" PRIu64, cpe_frag_reason_name(k),
			s->drops[k]);
	fprintf(f, " split %" PRIu64 " split_fragments %" PRIu64
		" split_drops %" PRIu64 " mss_clamped %" PRIu64 "\n",
		fd->st.split_pkts, fd->st.split_frags, fd->st.split_drops,
		fd->st.mss_clamped);
}

void
cpe_frag_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_fragdp *fd = r->dp->frag;
	const struct cpe_frag_stats *s = &fd->tab.st;
	int k;

	fprintf(f, "  \"fragments\": {\"on\": %s, \"tracked\": %u, \"first\": %"
		PRIu64 ", \"later\": %" PRIu64 ", \"done\": %" PRIu64
		", \"expired\": %" PRIu64 ", \"evicted\": %" PRIu64
		", \"drops\": {", fd->on ? "true" : "false", fd->tab.in_use,
		s->first, s->later, s->done, s->expired, s->evicted);
	for (k = 1; k < CPE_FRAG_NB_REASONS; k++)
		fprintf(f, "%s\"%s\": %" PRIu64, k > 1 ? ", " : "",
			cpe_frag_reason_name(k), s->drops[k]);
	fprintf(f, "}, \"split\": %" PRIu64 ", \"split_fragments\": %" PRIu64
		", \"split_drops\": %" PRIu64 ", \"mss_clamped\": %" PRIu64
		"},\n", fd->st.split_pkts, fd->st.split_frags,
		fd->st.split_drops, fd->st.mss_clamped);
}
