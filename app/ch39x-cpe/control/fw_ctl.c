/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Firewall rules at run time, over telemetry:
 *
 *   /cpe/fw/add,open,RULE       a rule as --fw-open or --fw-pinhole
 *   /cpe/fw/add,pinhole,RULE    takes it; the reply holds its id
 *   /cpe/fw/del,ID              and the connections it let in go too
 *   /cpe/fw/rules               "ID KIND RULE hits N limited M", in match
 *                               order (M: new connections over the
 *                               --synflood-rate limit)
 *
 * The callbacks parse on the telemetry thread; the change runs on the
 * forwarding lcore (cpe_ctl_call) like every packet's verdict, so a rule
 * never changes under a packet. Adding needs no flush: the flow cache
 * carries accepts only. Deleting closes the connections the rule let in
 * (their flow-cache entries go with them), as OpenWrt flushes conntrack
 * on a firewall reload: a connection must not outlive its rule.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_telemetry.h>

#include "ctl.h"
#include "fwdp.h"

static const char *const add_allowed =
	"open,PROTO/PORT[-PORT] or pinhole,PROTO/[IPV6[/PLEN]]:PORT[-PORT], "
	"PROTO tcp or udp, e.g. open,tcp/22";	/* < 128: telemetry's max */
static const char *const del_allowed =
	"ID, a rule's id from /cpe/fw/rules, e.g. 3";

static bool
fw_ctl_on(struct cpe_router *r, struct rte_tel_data *d)
{
	if (r->dp->fw->on)
		return true;
	cpe_ctl_error(r, d, "the firewall is off", "start the router with "
		      "--firewall on (the default) and a --wan port");
	return false;
}

/* --- on the forwarding lcore ------------------------------------------ */

static void
add(struct cpe_router *rt, const void *arg, struct rte_tel_data *d)
{
	const struct cpe_fw_rule *r = arg;
	char err[RTE_TEL_MAX_STRING_LEN];
	int id;

	if (!fw_ctl_on(rt, d))
		return;
	id = cpe_fwdp_rule_add(rt->dp->fw, r);
	if (id < 0) {
		snprintf(err, sizeof(err), "%s %s: %s", cpe_fw_rule_kind(r),
			 r->text, id == -EEXIST ? "the same rule is there" :
			 "the rule table is full");
		cpe_ctl_error(rt, d, err, id == -EEXIST ?
			      "a rule not in /cpe/fw/rules" :
			      "at most 64 rules: /cpe/fw/del,ID one first");
		return;
	}
	rt->st.ctl_fw_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "id", id);
	rte_tel_data_add_dict_string(d, "kind", cpe_fw_rule_kind(r));
	rte_tel_data_add_dict_string(d, "rule", r->text);
}

static void
del(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	uint32_t id = *(const uint32_t *)arg, closed = 0;
	char err[RTE_TEL_MAX_STRING_LEN];

	if (!fw_ctl_on(r, d))
		return;
	if (cpe_fwdp_rule_del(r->dp->fw, id, &closed) != 0) {
		snprintf(err, sizeof(err), "no rule with id %u", id);
		cpe_ctl_error(r, d, err, "an id of /cpe/fw/rules");
		return;
	}
	r->st.ctl_fw_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "deleted", (int)id);
	cpe_tel_u64(d, "closed", closed);
}

static void
rules(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct cpe_fw_cfg *c = &r->o->fw;
	char buf[RTE_TEL_MAX_STRING_LEN];
	struct rte_tel_data *a;
	uint16_t i;

	RTE_SET_USED(arg);
	if (!fw_ctl_on(r, d))
		return;
	rte_tel_data_start_dict(d);
	cpe_tel_u64(d, "count", c->nb_rules);
	a = rte_tel_data_alloc();
	if (a == NULL)
		return;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	for (i = 0; i < c->nb_rules; i++) {
		snprintf(buf, sizeof(buf), "%u %s %s hits %" PRIu64
			 " limited %" PRIu64, c->rules[i].id,
			 cpe_fw_rule_kind(&c->rules[i]), c->rules[i].text,
			 c->rules[i].hits, c->rules[i].limited);
		rte_tel_data_add_array_string(a, buf);
	}
	if (rte_tel_data_add_dict_container(d, "rules", a, 0) != 0)
		rte_tel_data_free(a);
}

/* --- telemetry callbacks (telemetry threads) --------------------------- */

static int
tel_add(const char *cmd, const char *params, void *box,
	struct rte_tel_data *d)
{
	struct cpe_fw_rule r;
	char buf[128], *f[2];

	RTE_BUILD_BUG_ON(sizeof(r) > CPE_CTL_ARG_MAX);
	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2 ||
	    (strcmp(f[0], "open") != 0 && strcmp(f[0], "pinhole") != 0) ||
	    cpe_fw_rule_parse(f[1], f[0][0] == 'p', &r) != NULL)
		return cpe_ctl_bad(box, d, cmd, params, add_allowed);
	return cpe_ctl_call(box, add, &r, sizeof(r), d);
}

static int
tel_del(const char *cmd, const char *params, void *box,
	struct rte_tel_data *d)
{
	char buf[16], *f[1], *end;
	unsigned long id;
	uint32_t id32;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    f[0][0] < '1' || f[0][0] > '9')
		return cpe_ctl_bad(box, d, cmd, params, del_allowed);
	id = strtoul(f[0], &end, 10);
	if (*end != '\0' || id > INT32_MAX)
		return cpe_ctl_bad(box, d, cmd, params, del_allowed);
	id32 = (uint32_t)id;
	return cpe_ctl_call(box, del, &id32, sizeof(id32), d);
}

static int
tel_rules(const char *cmd, const char *params, void *box,
	  struct rte_tel_data *d)
{
	if (cpe_ctl_no_params(box, d, cmd, params) != 0)
		return 0;
	return cpe_ctl_call(box, rules, NULL, 0, d);
}

int
cpe_fw_ctl_init(struct cpe_ctl *c)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/fw/add", tel_add, "Adds a firewall rule. "
		  "Parameters: open,PROTO/PORT[-PORT] or "
		  "pinhole,PROTO/[IPV6[/PLEN]]:PORT[-PORT]" },
		{ "/cpe/fw/del", tel_del, "Deletes a firewall rule and "
		  "closes its connections. Parameters: ID" },
		{ "/cpe/fw/rules", tel_rules, "Lists the firewall rules with "
		  "their ids, hits and new connections over the limit. No "
		  "parameters" },
	};

	return cpe_ctl_register(c, cmds, RTE_DIM(cmds));
}
