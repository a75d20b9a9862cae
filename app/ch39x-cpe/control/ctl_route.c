/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Routes and static neighbours at run time (ctl_route.h):
 *
 *   /cpe/route/add,PREFIX/LEN,GATEWAY   adds or replaces a route
 *   /cpe/route/del,PREFIX/LEN           deletes a static route
 *   /cpe/routes                         lists them, connected ones too
 *   /cpe/neigh/add,ADDR,MAC             adds or replaces a neighbour
 *   /cpe/neigh/del,ADDR                 deletes one
 *   /cpe/neighs                         lists them
 *
 * A refused command says why and what is allowed: the gateway's or the
 * neighbour's subnets, the static routes or neighbours there are.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl_family.h"
#include "fw_show.h"

static const char *const route_add_allowed =
	"PREFIX/LEN,GATEWAY or default,GATEWAY (one family), e.g. "
	"198.51.100.0/24,203.0.113.1 or 2001:db8:99::/48,2001:db8:1::1";
static const char *const route_del_allowed =
	"PREFIX/LEN, default or ::/0, e.g. 198.51.100.0/24 or "
	"2001:db8:99::/48";
static const char *const neigh_add_allowed =
	"ADDR,XX:XX:XX:XX:XX:XX (a unicast MAC), e.g. 203.0.113.1,"
	"02:00:00:00:00:01 or 2001:db8:1::2,02:00:00:00:00:01";
static const char *const neigh_del_allowed =
	"ADDR, e.g. 203.0.113.1 or 2001:db8:1::2";

/* ADDR/LEN, from the family's text of the address. */
static void
fmt_pfx(const struct ctl_family *f, char *buf, size_t cap,
	const struct ctl_addr *a, uint8_t plen)
{
	char s[INET6_ADDRSTRLEN];

	f->fmt(s, f->addr_len, a);
	snprintf(buf, cap, "%s/%u", s, plen);
}

/* What every change's reply ends with. */
static void
changed(struct cpe_router *r, struct rte_tel_data *d)
{
	cpe_tel_u64(d, "generation", r->dp->env.gen);
	cpe_fw_tel(r, d);
}

static void
route_add(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct ctl_rn *c = arg;
	const struct ctl_family *f = cpe_ctl_family(c->dst.af);
	char err[RTE_TEL_MAX_STRING_LEN], p[CTL_PFX6_LEN];
	char gw[INET6_ADDRSTRLEN];
	int port, rc, replaced;
	bool connected;

	fmt_pfx(f, p, sizeof(p), &c->dst, c->plen);
	f->fmt(gw, f->addr_len, &c->gw);
	port = f->gw_port(r, &c->gw);
	if (port < 0) {
		snprintf(err, sizeof(err), "gateway %s %s", gw, f->gw_off);
		f->subnets(r, cpe_ctl_error_list(r, d, err));
		return;
	}
	replaced = f->route_get(r, &c->dst, c->plen, &connected) == 0;
	if (connected) {
		snprintf(err, sizeof(err), "%s is a connected route: it "
			 "cannot be replaced; allowed: other prefixes", p);
		cpe_ctl_error(r, d, err, NULL);
		return;
	}
	rc = f->route_add(r, &c->dst, c->plen, &c->gw, (uint16_t)port);
	if (rc != 0) {
		snprintf(err, sizeof(err), "cannot add %s: %s", p,
			 rc == -ENOSPC ? "the route table is full" :
			 strerror(-rc));
		cpe_ctl_error(r, d, err, "delete a static route first "
			      "(/cpe/route/del)");
		return;
	}
	r->st.ctl_route_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "route", p);
	rte_tel_data_add_dict_string(d, "gateway", gw);
	rte_tel_data_add_dict_int(d, "port", r->dp->ifs.ifs[port].id);
	rte_tel_data_add_dict_int(d, "replaced", replaced);
	changed(r, d);
}

static void
route_del(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct ctl_rn *c = arg;
	const struct ctl_family *f = cpe_ctl_family(c->dst.af);
	struct list_ctx l = { .r = r, .max = CTL_ALLOWED_MAX,
			      .static_only = true };
	char err[RTE_TEL_MAX_STRING_LEN], p[CTL_PFX6_LEN];
	bool connected;
	int rc;

	fmt_pfx(f, p, sizeof(p), &c->dst, c->plen);
	rc = f->route_get(r, &c->dst, c->plen, &connected);
	if (rc != 0 || connected) {
		snprintf(err, sizeof(err), rc != 0 ? "no route %s" :
			 "%s is a connected route: it cannot be deleted", p);
		/* The allowed values: this family's static routes. */
		l.a = cpe_ctl_error_list(r, d, err);
		f->route_walk(&l);
		return;
	}
	rc = f->route_del(r, &c->dst, c->plen);
	if (rc != 0) {
		snprintf(err, sizeof(err), "cannot delete %s: %s", p,
			 strerror(-rc));
		cpe_ctl_error(r, d, err, NULL);
		return;
	}
	r->st.ctl_route_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "deleted", p);
	changed(r, d);
}

static void
neigh_add(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct ctl_rn *c = arg;
	const struct ctl_family *f = cpe_ctl_family(c->dst.af);
	char err[RTE_TEL_MAX_STRING_LEN], a[INET6_ADDRSTRLEN];
	char m[RTE_ETHER_ADDR_FMT_SIZE];
	int port, rc;

	f->fmt(a, f->addr_len, &c->dst);
	port = f->port_of(r, &c->dst);
	if (port < 0) {
		snprintf(err, sizeof(err), "%s %s", a, f->addr_off);
		f->subnets(r, cpe_ctl_error_list(r, d, err));
		return;
	}
	rc = f->neigh_set(r, &c->dst, (uint16_t)port, &c->mac);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot add %s: the neighbour table "
			 "is full", a);
		cpe_ctl_error(r, d, err, "delete a neighbour first "
			      "(/cpe/neigh/del)");
		return;
	}
	r->st.ctl_neigh_changes++;
	cpe_ctl_fmt_mac(m, sizeof(m), &c->mac);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "neigh", a);
	rte_tel_data_add_dict_string(d, "mac", m);
	rte_tel_data_add_dict_int(d, "port", r->dp->ifs.ifs[port].id);
	rte_tel_data_add_dict_int(d, "replaced", rc);
	changed(r, d);
}

static void
neigh_del(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct ctl_rn *c = arg;
	const struct ctl_family *f = cpe_ctl_family(c->dst.af);
	struct list_ctx l = { .r = r, .max = CTL_ALLOWED_MAX,
			      .static_only = true };
	char err[RTE_TEL_MAX_STRING_LEN], a[INET6_ADDRSTRLEN];

	f->fmt(a, f->addr_len, &c->dst);
	if (f->neigh_del(r, &c->dst) != 0) {
		snprintf(err, sizeof(err), "no neighbour %s", a);
		/* The allowed values: this family's neighbours. */
		l.a = cpe_ctl_error_list(r, d, err);
		f->neigh_walk(&l);
		return;
	}
	r->st.ctl_neigh_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "deleted", a);
	changed(r, d);
}

/* Both families' entries: IPv4's, then IPv6's. */
static void
listing(struct cpe_router *r, struct rte_tel_data *d, bool routes)
{
	struct list_ctx l = { .r = r, .max = CPE_CTL_LIST_MAX };
	const struct ctl_family *f[2] = {
		cpe_ctl_family(AF_INET), cpe_ctl_family(AF_INET6),
	};
	int i;

	l.a = cpe_ctl_list_start(d, routes ? "routes" : "neighs");
	for (i = 0; i < 2; i++) {
		if (routes)
			f[i]->route_walk(&l);
		else
			f[i]->neigh_walk(&l);
	}
	rte_tel_data_add_dict_int(d, "count", (int)l.count);
	rte_tel_data_add_dict_int(d, "shown", (int)l.shown);
}

static void
routes(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	listing(r, d, true);
}

static void
neighs(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	listing(r, d, false);
}

/* --- telemetry callbacks (telemetry threads) --------------------------- */

static int
tel_route_add(const char *cmd, const char *params, void *box,
	      struct rte_tel_data *d)
{
	struct ctl_rn c = { 0 };
	char buf[128], *f[2];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2 ||
	    cpe_ctl_parse_prefix(f[0], &c.dst, &c.plen) != 0 ||
	    cpe_ctl_parse_addr(f[1], &c.gw) != 0)
		return cpe_ctl_bad(box, d, cmd, params, route_add_allowed);
	/* "default": the default route of the gateway's family. */
	if (strcmp(f[0], "default") == 0)
		c.dst.af = c.gw.af;
	if (c.dst.af != c.gw.af)
		return cpe_ctl_bad(box, d, cmd, params, route_add_allowed);
	return cpe_ctl_call(box, route_add, &c, sizeof(c), d);
}

static int
tel_route_del(const char *cmd, const char *params, void *box,
	      struct rte_tel_data *d)
{
	struct ctl_rn c = { 0 };
	char buf[128], *f[1];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    cpe_ctl_parse_prefix(f[0], &c.dst, &c.plen) != 0)
		return cpe_ctl_bad(box, d, cmd, params, route_del_allowed);
	return cpe_ctl_call(box, route_del, &c, sizeof(c), d);
}

static int
tel_neigh_add(const char *cmd, const char *params, void *box,
	      struct rte_tel_data *d)
{
	struct ctl_rn c = { 0 };
	char buf[128], *f[2];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2 ||
	    cpe_ctl_parse_addr(f[0], &c.dst) != 0 ||
	    rte_ether_unformat_addr(f[1], &c.mac) != 0 ||
	    !rte_is_valid_assigned_ether_addr(&c.mac))
		return cpe_ctl_bad(box, d, cmd, params, neigh_add_allowed);
	return cpe_ctl_call(box, neigh_add, &c, sizeof(c), d);
}

static int
tel_neigh_del(const char *cmd, const char *params, void *box,
	      struct rte_tel_data *d)
{
	struct ctl_rn c = { 0 };
	char buf[128], *f[1];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    cpe_ctl_parse_addr(f[0], &c.dst) != 0)
		return cpe_ctl_bad(box, d, cmd, params, neigh_del_allowed);
	return cpe_ctl_call(box, neigh_del, &c, sizeof(c), d);
}

/* The listings take no parameters. */
static int
tel_list(const char *cmd, const char *params, void *box,
	 struct rte_tel_data *d)
{
	if (cpe_ctl_no_params(box, d, cmd, params) != 0)
		return 0;
	return cpe_ctl_call(box,
			    strcmp(cmd, "/cpe/routes") == 0 ? routes : neighs,
			    NULL, 0, d);
}

int
cpe_ctl_route_init(struct cpe_ctl *c)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/route/add", tel_route_add, "Adds or replaces a route. "
		  "Parameters: PREFIX/LEN,GATEWAY or default,GATEWAY" },
		{ "/cpe/route/del", tel_route_del, "Deletes a static route. "
		  "Parameters: PREFIX/LEN or default" },
		{ "/cpe/routes", tel_list, "Lists the routes. No parameters" },
		{ "/cpe/neigh/add", tel_neigh_add, "Adds or replaces a static "
		  "neighbour. Parameters: ADDR,MAC" },
		{ "/cpe/neigh/del", tel_neigh_del, "Deletes a neighbour. "
		  "Parameters: ADDR" },
		{ "/cpe/neighs", tel_list, "Lists the neighbours. No "
		  "parameters" },
	};

	RTE_BUILD_BUG_ON(sizeof(struct ctl_rn) > CPE_CTL_ARG_MAX);
	return cpe_ctl_register(c, cmds, RTE_DIM(cmds));
}
