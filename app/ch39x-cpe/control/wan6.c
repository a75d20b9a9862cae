/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN's IPv6 at run time, RFC 7084's WAN side without a static
 * address or prefix: a DHCPv6 client on the WAN's TAP (Linux, the control
 * plane: usertools/ch39x-cpe-dhclient6 under ISC dhclient -6 -P) is
 * delegated a prefix and hands it over,
 *
 *   /cpe/wan/prefix6,PREFIX/LEN,PREFERRED,VALID   delegated (or renewed)
 *   /cpe/wan/prefix6/clear[,PREFIX/LEN]           withdrawn (that one)
 *
 * and the router splits it: --lan PORT=pd[:ID] gets /64 number ID with
 * the router's address ::1 in it (the reply lists them for the hook,
 * which puts them on the LAN TAPs for dnsmasq's advertisements), its
 * connected route and solicited-node group. A different prefix replaces
 * the old one: the old /64s and routes go first, then the firewall's
 * states from or to the old prefix (its hosts' connections cannot go on:
 * the ISP routes it elsewhere now); the route changes bump the flow
 * cache's generation; the LAN source check follows the routes by itself
 * (a source in the old prefix routes to the WAN now: spoof_lan). The
 * valid lifetime runs out here too, should the client die.
 *
 * The default route: DHCPv6 has none, the ISP's router advertisements
 * give it (RFC 8415 1.2). An RA on the WAN with a router lifetime makes
 * its link-local source the gateway of ::/0 for that long (the last
 * advertising router: a CPE's WAN link has one); lifetime 0 withdraws
 * it. Only when some LAN is pd and no static ::/0 route was given. All
 * of it runs on the forwarding lcore (the RAs ip6_deliver saw, taken in
 * the housekeeping; commands from ctl.c's mailbox): no locking.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_telemetry.h>

#include "addr.h"
#include "fwdp.h"
#include "ip6.h"
#include "rt.h"
#include "wan6.h"
#include "wan_state.h"

#define LIFE_INFINITE	UINT32_MAX	/* RFC 8415 7.7 */

static const uint8_t zero6[16];

bool
cpe_wan6_any_pd(const struct cpe_router *r)
{
	uint16_t i;

	for (i = 0; i < r->dp->ifs.nb; i++)
		if (r->o->ports[i].pd)
			return true;
	return false;
}

/*
 * The router's address in /64 number id of delegation d (::1), false
 * when d has no such /64 (a /60 has 16: ids 0..15).
 */
static bool
lan_addr(const struct cpe_ip6 *d, uint32_t id, uint8_t *a)
{
	uint64_t hi;

	if (d->plen == 64 ? id != 0 : (uint64_t)id >> (64 - d->plen) != 0)
		return false;
	memcpy(&hi, d->a, 8);
	hi = rte_cpu_to_be_64(rte_be_to_cpu_64(hi) | id);
	memset(a, 0, 16);
	memcpy(a, &hi, 8);
	a[15] = 1;
	return true;
}

/* The delegation's /64s onto the pd LANs. */
static void
pd_apply(struct cpe_router *r)
{
	struct cpe_wan6 *w6 = &r->wan->w6;
	uint8_t a[16];
	uint16_t i;

	for (i = 0; i < r->dp->ifs.nb; i++) {
		if (!r->o->ports[i].pd)
			continue;
		if (!lan_addr(&w6->pfx, r->o->ports[i].pd_id, a) ||
		    cpe_addr_port_pd(r, i, a) != 0)
			w6->unserved++;
	}
}

/* The /64s gone from the LANs, the prefix's tracked connections too. */
static void
pd_withdraw(struct cpe_router *r)
{
	struct cpe_wan6 *w6 = &r->wan->w6;
	uint16_t i;

	if (!w6->on)
		return;
	for (i = 0; i < r->dp->ifs.nb; i++)
		if (r->o->ports[i].pd)
			cpe_addr_port_pd(r, i, NULL);
	w6->fw_closed += cpe_fwdp_close_prefix(r->dp->fw, w6->pfx.a,
					       w6->pfx.plen);
	w6->on = false;
}

static void
gw_drop(struct cpe_router *r)
{
	struct cpe_wan6 *w6 = &r->wan->w6;

	if (!w6->gw_on)
		return;
	cpe_rt6_del(r->dp->rt6, zero6, 0);
	w6->gw_on = false;
}

/* An RA the WAN saw (ip6_deliver: only when RAs teach ::/0). */
static void
ra(struct cpe_router *r, const struct cpe_ra_event *ev)
{
	struct cpe_wan6 *w6 = &r->wan->w6;

	if (ev->bad) {
		w6->ra_bad++;
		return;
	}
	w6->ra_rcvd++;
	if (ev->lifetime == 0) {
		if (w6->gw_on && memcmp(w6->gw, ev->src, 16) == 0)
			gw_drop(r);
		return;
	}
	/* The same router again only extends: no route change, no flush. */
	if (!w6->gw_on || memcmp(w6->gw, ev->src, 16) != 0) {
		if (cpe_rt6_add(r->dp->rt6, zero6, 0, ev->src,
				(uint16_t)r->dp->ifs.wan) != 0)
			return;
		memcpy(w6->gw, ev->src, 16);
		w6->gw_on = true;
		w6->ra_routers++;
	}
	w6->gw_until = r->dp->env.now + (uint64_t)ev->lifetime *
		r->dp->env.hz;
}

/*
 * The PPPoE session ended (pppd's ip-down, /cpe/wan/clear): the IPv6
 * learnt over it goes too. The default route's next hop was the
 * concentrator's link-local address in that session, and the ISP routes
 * the delegation to the session: neither holds in the next one, whose
 * RA and DHCPv6 exchange teach them again (ch39x-cpe-pppoe's ipv6-up
 * starts the client on pppd's interface).
 */
void
cpe_wan6_session_down(struct cpe_router *r)
{
	gw_drop(r);
	if (r->wan->w6.on) {
		pd_withdraw(r);
		r->wan->w6.session_ends++;
	}
}

static uint64_t
age_s(const struct cpe_router *r)
{
	const struct cpe_wan6 *w6 = &r->wan->w6;

	return w6->on ? (rte_rdtsc() - w6->since) / r->dp->env.hz : 0;
}

void
cpe_wan6_age(struct cpe_router *r)
{
	struct cpe_wan6 *w6 = &r->wan->w6;
	struct cpe_ra_event ev;

	while (r->ip6_deliver != NULL && cpe_ip6_ra_take(r->ip6_deliver, &ev))
		ra(r, &ev);
	if (w6->gw_on && r->dp->env.now >= w6->gw_until) {
		gw_drop(r);
		w6->ra_expired++;
	}
	if (w6->on && w6->valid != LIFE_INFINITE && age_s(r) >= w6->valid) {
		pd_withdraw(r);
		w6->expired++;
	}
}

/* "TAP=ADDR/64" of pd LAN port idx into b, false when it has none. */
static bool
lan_text(const struct cpe_router *r, uint16_t idx, char *b, size_t n)
{
	const struct cpe_iface *p = &r->dp->ifs.ifs[idx];
	const struct cpe_opts *o = r->o;
	const char *tap = "?";
	char a[INET6_ADDRSTRLEN];
	uint16_t j;

	if (!p->pd6)
		return false;
	for (j = 0; j < o->nb_taps; j++)
		if (o->taps[j].port == p->id && o->taps[j].vlan == p->vlan)
			tap = o->taps[j].name;
	cpe_ip6_fmt(a, sizeof(a), p->ip6[p->nb_ip6 - 1].a);
	snprintf(b, n, "%s=%s/64", tap, a);
	return true;
}

static void
pfx_text(const struct cpe_wan6 *w6, char *b, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (!w6->on) {
		snprintf(b, n, "none");
		return;
	}
	cpe_ip6_fmt(a, sizeof(a), w6->pfx.a);
	snprintf(b, n, "%s/%u", a, w6->pfx.plen);
}

static void
gw_text(const struct cpe_wan6 *w6, char *b, size_t n)
{
	if (w6->gw_on)
		cpe_ip6_fmt(b, n, w6->gw);
	else
		snprintf(b, n, "none");
}

static uint64_t
gw_life_s(const struct cpe_router *r)
{
	const struct cpe_wan6 *w6 = &r->wan->w6;
	uint64_t now = rte_rdtsc();

	return w6->gw_on && w6->gw_until > now ?
		(w6->gw_until - now) / r->dp->env.hz : 0;
}

/* The counters, by name, for the three outputs alike. */
#define W6_PD_COUNTERS(X) \
	X(sets) X(renewals) X(changes) X(clears) X(expired) X(fw_closed) \
	X(unserved) X(session_ends)
#define W6_RA_COUNTERS(X) \
	X(ra_rcvd) X(ra_bad) X(ra_routers) X(ra_expired)

void
cpe_wan6_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	struct rte_tel_data *lan = rte_tel_data_alloc();
	const struct cpe_wan6 *w6 = &r->wan->w6;
	char b[RTE_TEL_MAX_STRING_LEN];
	uint16_t i;

	pfx_text(w6, b, sizeof(b));
	rte_tel_data_add_dict_string(d, "prefix6", b);
	cpe_tel_u64(d, "prefix6_preferred_s", w6->on ? w6->preferred : 0);
	cpe_tel_u64(d, "prefix6_valid_s", w6->on ? w6->valid : 0);
	cpe_tel_u64(d, "prefix6_age_s", age_s(r));
	if (lan != NULL) {
		rte_tel_data_start_array(lan, RTE_TEL_STRING_VAL);
		for (i = 0; i < r->dp->ifs.nb; i++)
			if (lan_text(r, i, b, sizeof(b)))
				rte_tel_data_add_array_string(lan, b);
		if (rte_tel_data_add_dict_container(d, "lan6", lan, 0) != 0)
			rte_tel_data_free(lan);
	}
	gw_text(w6, b, sizeof(b));
	rte_tel_data_add_dict_string(d, "gateway6", b);
	cpe_tel_u64(d, "gateway6_lifetime_s", gw_life_s(r));
#define X(n) cpe_tel_u64(d, "prefix6_" #n, w6->n);
	W6_PD_COUNTERS(X)
#undef X
#define X(n) cpe_tel_u64(d, #n, w6->n);
	W6_RA_COUNTERS(X)
#undef X
}

void
cpe_wan6_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan6 *w6 = &r->wan->w6;
	char p[64], g[INET6_ADDRSTRLEN];

	if (!cpe_wan6_any_pd(r))
		return;
	pfx_text(w6, p, sizeof(p));
	gw_text(w6, g, sizeof(g));
	fprintf(f, "  wan6: prefix %s age %" PRIu64 " s gateway %s", p,
		age_s(r), g);
#define X(n) fprintf(f, " " #n " %" PRIu64, w6->n);
	W6_PD_COUNTERS(X) W6_RA_COUNTERS(X)
#undef X
	fprintf(f, "\n");
}

void
cpe_wan6_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan6 *w6 = &r->wan->w6;
	char b[RTE_TEL_MAX_STRING_LEN];
	uint16_t i;
	bool first = true;

	pfx_text(w6, b, sizeof(b));
	fprintf(f, "\"ipv6\": {\"prefix\": \"%s\", \"preferred_s\": %u, "
		"\"valid_s\": %u, \"age_s\": %" PRIu64 ", \"lan\": [", b,
		w6->on ? w6->preferred : 0, w6->on ? w6->valid : 0, age_s(r));
	for (i = 0; i < r->dp->ifs.nb; i++) {
		if (!lan_text(r, i, b, sizeof(b)))
			continue;
		fprintf(f, "%s\"%s\"", first ? "" : ", ", b);
		first = false;
	}
	gw_text(w6, b, sizeof(b));
	fprintf(f, "], \"gateway\": \"%s\", \"gateway_lifetime_s\": %" PRIu64,
		b, gw_life_s(r));
#define X(n) fprintf(f, ", \"" #n "\": %" PRIu64, w6->n);
	W6_PD_COUNTERS(X) W6_RA_COUNTERS(X)
#undef X
	fprintf(f, "}");
}

void
cpe_wan6_delegate(struct cpe_router *r, const struct cpe_ip6 *pfx,
		  uint32_t preferred, uint32_t valid)
{
	struct cpe_wan6 *w6 = &r->wan->w6;

	if (w6->on && w6->pfx.plen == pfx->plen &&
	    memcmp(w6->pfx.a, pfx->a, 16) == 0) {
		w6->renewals++;
	} else {
		if (w6->on) {
			pd_withdraw(r);
			w6->changes++;
		}
		w6->pfx = *pfx;
		w6->on = true;
		w6->sets++;
		pd_apply(r);
	}
	w6->preferred = preferred;
	w6->valid = valid;
	w6->since = rte_rdtsc();
}

/*
 * A named prefix is withdrawn only while it is the current one: dhclient
 * reports the old prefix expired (lifetimes 0 in the server's reply)
 * after the new one is bound.
 */
void
cpe_wan6_withdraw(struct cpe_router *r, const struct cpe_ip6 *pfx)
{
	struct cpe_wan6 *w6 = &r->wan->w6;

	if (w6->on && (pfx->plen == 0 || (w6->pfx.plen == pfx->plen &&
	    memcmp(w6->pfx.a, pfx->a, 16) == 0))) {
		w6->clears++;
		pd_withdraw(r);
	}
}
