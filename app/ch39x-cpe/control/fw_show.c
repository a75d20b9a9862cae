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
cpe_fw_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_fw_cfg *c = &r->o->fw;
	const struct cpe_fwdp *f = r->dp->fw;
	char name[64];
	int i;

	cpe_tel_u64(d, "fw_on", f->on);
	for (i = 0; i < c->nb_fwd; i++) {
		snprintf(name, sizeof(name), "fw_forward_%d_hits", i + 1);
		cpe_tel_u64(d, name, c->fwd[i].hits);
		snprintf(name, sizeof(name), "fw_forward_%d_hairpin", i + 1);
		cpe_tel_u64(d, name, c->fwd[i].hairpin);
	}
	if (!f->on)
		return;
	cpe_tel_u64(d, "fw_states", f->fw.in_use);
	cpe_tel_u64(d, "fw_created", f->fw.st.created);
	cpe_tel_u64(d, "fw_expired", f->fw.st.expired);
	cpe_tel_u64(d, "fw_evicted", f->fw.st.evicted);
	for (i = 1; i < CPE_FW_NB_REASONS; i++) {
		snprintf(name, sizeof(name), "fw_drop_%s",
			 cpe_fw_reason_name(i));
		cpe_tel_u64(d, name, f->fw.st.drops[i]);
	}
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

	for (i = 0; i < c->nb_fwd; i++)
		fprintf(f, "  port forward %s: hits %" PRIu64 " hairpin %"
			PRIu64 "\n", c->fwd[i].text, c->fwd[i].hits,
			c->fwd[i].hairpin);
	if (!fw->on) {
		fprintf(f, "  firewall: off\n");
		return;
	}
	fprintf(f, "  firewall: states %u of %u created %" PRIu64
		" expired %" PRIu64 " evicted %" PRIu64 " accepted_state %"
		PRIu64 " accepted_icmp %" PRIu64 "\n", fw->fw.in_use,
		fw->fw.mask + 1, s->created, s->expired, s->evicted,
		s->accepted_state, s->accepted_icmp);
	fprintf(f, "  firewall drops:");
	for (k = 1; k < CPE_FW_NB_REASONS; k++)
		fprintf(f, " %s %" PRIu64, cpe_fw_reason_name(k),
			s->drops[k]);
	fprintf(f, "\n");
	for (i = 0; i < c->nb_rules; i++)
		fprintf(f, "  firewall rule %u %s %s: hits %" PRIu64 "\n",
			c->rules[i].id, cpe_fw_rule_kind(&c->rules[i]),
			c->rules[i].text, c->rules[i].hits);
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
		", \"accepted_icmp\": %" PRIu64 ", \"drops\": {",
		fw->fw.in_use, fw->fw.mask + 1, s->created, s->expired,
		s->evicted, s->accepted_state, s->accepted_icmp);
	for (k = 1; k < CPE_FW_NB_REASONS; k++)
		fprintf(f, "%s\"%s\": %" PRIu64, k > 1 ? ", " : "",
			cpe_fw_reason_name(k), s->drops[k]);
	fprintf(f, "}, \"rules\": [");
	for (i = 0; i < c->nb_rules; i++)
		fprintf(f, "%s{\"id\": %u, \"kind\": \"%s\", "
			"\"rule\": \"%s\", \"hits\": %" PRIu64 "}",
			i ? ", " : "", c->rules[i].id,
			cpe_fw_rule_kind(&c->rules[i]), c->rules[i].text,
			c->rules[i].hits);
	fprintf(f, "]");
}

void
cpe_fw_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_fwdp *fw = r->dp->fw;
	const struct cpe_fw_cfg *c = &r->o->fw;
	uint16_t i;

	fprintf(f, "  \"firewall\": {\"on\": %s, \"forwards\": [",
		fw->on ? "true" : "false");
	for (i = 0; i < c->nb_fwd; i++)
		fprintf(f, "%s{\"rule\": \"%s\", \"hits\": %" PRIu64
			", \"hairpin\": %" PRIu64 "}", i ? ", " : "",
			c->fwd[i].text, c->fwd[i].hits, c->fwd[i].hairpin);
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
