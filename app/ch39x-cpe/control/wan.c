/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN's IPv4 address at run time, and its telemetry commands:
 *
 *   /cpe/wan                        mode, address, gateway, counters
 *   /cpe/wan/set,ADDR/LEN,GATEWAY   --wan PORT=dhcp: the lease
 *   /cpe/wan/pppoe,SID,ACMAC,LOCAL,PEER
 *                                   --wan PORT=pppoe: the session (id,
 *                                   the concentrator's MAC) and IPCP's
 *                                   addresses (usertools/ch39x-cpe-pppoe)
 *   /cpe/wan/clear                  the lease or the session gone
 *   (IPv6: wan6.c's /cpe/wan/prefix6, shown in /cpe/wan too)
 *
 * With --wan PORT=dhcp the router
 * starts without one: a DHCP client on the WAN's TAP (Linux, the control
 * plane) gets the lease and its hook (usertools/ch39x-cpe-udhcpc) reports
 * it over telemetry, /cpe/wan/set,ADDR/LEN,GATEWAY, and /cpe/wan/clear
 * when it is gone. Here, on the forwarding lcore (ctl.c's mailbox): the
 * port's address and connected route, the default route through the
 * lease's gateway, and NAT: its sessions all carry the old address, so
 * they are flushed (counted) when it changes; the flow cache follows the
 * generation that the route change bumps. Until an address is there,
 * what goes to the WAN through NAT is dropped (wan_no_addr).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_telemetry.h>

#include "ctl.h"
#include "ip4.h"
#include "nat.h"
#include "rt.h"
#include "wan.h"

static const char *
wan_mode(const struct cpe_router *r)
{
	int16_t wan = r->dp->ifs.wan;

	if (wan < 0)
		return "none";
	if (r->o->ports[wan].pppoe)
		return "pppoe";
	return r->o->ports[wan].dhcp ? "dhcp" : "static";
}

/* What NAT dropped for want of the WAN's address (nat4_out). */
static uint64_t
no_addr_drops(void)
{
	const struct cpe_nat4_out *n = cpe_node_state_of("nat4_out");

	return n != NULL ? n->wan_no_addr : 0;
}

static void
fmt4(char *b, size_t n, uint32_t a)
{
	snprintf(b, n, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
		 (a >> 8) & 255, a & 255);
}

/* The address, its connected route and the default route gone. */
static void
drop_addr(struct cpe_router *r, struct cpe_iface *p, struct cpe_port_cfg *c)
{
	struct cpe_wan *w = r->wan;

	if (p->ip == 0)
		return;
	cpe_rt4_del(r->dp->rt4, p->ip & p->mask, c->plen);
	if (w->gw != 0)
		cpe_rt4_del(r->dp->rt4, 0, 0);
	w->nat_flushed += cpe_nat_flush(r->dp->nat);
	p->ip = 0;
	p->ip_be = 0;
	p->mask = ~0u;
	c->ip = 0;
	c->plen = 0;
	w->gw = 0;
}

/*
 * The address: a DHCP lease's on its subnet (plen 1..30, the gateway on
 * it), or PPP's (plen 32, the peer anywhere but the address: the link
 * is point to point, its next hop the concentrator).
 */
static int
wan_set4(struct cpe_router *r, uint32_t ip, uint8_t plen, uint32_t gw,
	 const char **err)
{
	struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	struct cpe_iface *p;
	struct cpe_port_cfg *c;
	uint32_t mask;

	if (plen == 32) {
		if (ip == 0 || (ip >> 28) >= 14 || (ip >> 24) == 127 ||
		    gw == ip) {
			*err = "a unicast local address, the peer another";
			return -EINVAL;
		}
		mask = ~0u;
	} else {
		mask = plen ? ~0u << (32 - plen) : 0;
		if (plen < 1 || plen > 30 || (ip & ~mask) == 0 ||
		    (ip & ~mask) == ~mask) {
			*err = "a host address with a prefix length 1..30";
			return -EINVAL;
		}
		if (gw != 0 && (((gw ^ ip) & mask) != 0 || gw == ip)) {
			*err = "a gateway on the lease's subnet, not the "
				"address";
			return -EINVAL;
		}
	}
	p = &r->dp->ifs.ifs[wan];
	c = &r->o->ports[wan];
	/* A renewal of the same lease: nothing moves. */
	if (p->ip == ip && c->plen == plen && w->gw == gw) {
		w->renewals++;
		return 0;
	}
	drop_addr(r, p, c);
	p->ip = ip;
	p->ip_be = rte_cpu_to_be_32(ip);
	p->mask = mask;
	c->ip = ip;
	c->plen = plen;
	cpe_rt4_add(r->dp->rt4, ip & mask, plen, 0, (uint16_t)wan);
	if (gw != 0)
		cpe_rt4_add(r->dp->rt4, 0, 0, gw, (uint16_t)wan);
	w->gw = gw;
	w->sets++;
	w->since = rte_rdtsc();
	return 0;
}

static void
wan_clear4(struct cpe_router *r)
{
	int16_t wan = r->dp->ifs.wan;

	if (wan < 0)
		return;
	cpe_wan_pppoe_down(r);
	if (r->dp->ifs.ifs[wan].ip != 0) {
		r->wan->clears++;
		r->wan->since = rte_rdtsc();
	}
	drop_addr(r, &r->dp->ifs.ifs[wan], &r->o->ports[wan]);
}

static uint64_t
uptime_s(const struct cpe_router *r)
{
	return r->wan->since ?
		(rte_rdtsc() - r->wan->since) / r->dp->env.hz : 0;
}

void
cpe_wan_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	const struct cpe_iface *p;
	char a[24], g[16];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", wan_mode(r));
	if (wan < 0)
		return;
	p = &r->dp->ifs.ifs[wan];
	if (p->ip != 0) {
		fmt4(a, sizeof(a), p->ip);
		snprintf(a + strlen(a), sizeof(a) - strlen(a), "/%u",
			 r->o->ports[wan].plen);
		rte_tel_data_add_dict_string(d, "address", a);
	} else {
		rte_tel_data_add_dict_string(d, "address", "none");
	}
	fmt4(g, sizeof(g), w->gw);
	rte_tel_data_add_dict_string(d, "gateway", w->gw ? g : "none");
	cpe_tel_u64(d, "uptime_s", uptime_s(r));
	cpe_tel_u64(d, "sets", w->sets);
	cpe_tel_u64(d, "renewals", w->renewals);
	cpe_tel_u64(d, "clears", w->clears);
	cpe_tel_u64(d, "nat_flushed", w->nat_flushed);
	cpe_tel_u64(d, "no_addr_drops", no_addr_drops());
	if (r->o->ports[wan].pppoe)
		cpe_wan_pppoe_tel(r, d);
	cpe_wan6_tel(r, d);
}

void
cpe_wan_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	uint32_t ip = wan >= 0 ? r->dp->ifs.ifs[wan].ip : 0;
	char a[16], g[16];

	fmt4(a, sizeof(a), ip);
	fmt4(g, sizeof(g), w->gw);
	fprintf(f, "  wan: mode %s address %s gateway %s sets %" PRIu64
		" renewals %" PRIu64 " clears %" PRIu64 " nat_flushed %"
		PRIu64 " no_addr_drops %" PRIu64 "\n", wan_mode(r),
		ip ? a : "none", w->gw ? g : "none", w->sets, w->renewals,
		w->clears, w->nat_flushed, no_addr_drops());
	if (wan >= 0 && r->o->ports[wan].pppoe)
		cpe_wan_pppoe_print(r, f);
	cpe_wan6_print(r, f);
}

void
cpe_wan_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan *w = r->wan;
	int16_t wan = r->dp->ifs.wan;
	uint32_t ip = wan >= 0 ? r->dp->ifs.ifs[wan].ip : 0;
	char a[16], g[16];

	fmt4(a, sizeof(a), ip);
	fmt4(g, sizeof(g), w->gw);
	fprintf(f, "  \"wan\": {\"mode\": \"%s\", \"address\": \"%s\", "
		"\"prefix_len\": %u, \"gateway\": \"%s\", \"uptime_s\": %"
		PRIu64 ", \"sets\": %" PRIu64 ", \"renewals\": %" PRIu64
		", \"clears\": %" PRIu64 ", \"nat_flushed\": %" PRIu64
		", \"no_addr_drops\": %" PRIu64 ", ", wan_mode(r),
		ip ? a : "", wan >= 0 ? r->o->ports[wan].plen : 0,
		w->gw ? g : "", uptime_s(r), w->sets, w->renewals, w->clears,
		w->nat_flushed, no_addr_drops());
	cpe_wan6_json(r, f);
	fprintf(f, "},\n");
	if (wan >= 0 && r->o->ports[wan].pppoe)
		cpe_wan_pppoe_json(r, f);
}

/* --- telemetry: parsed on its thread, run on the forwarding lcore ----- */

static const char *const set_allowed =
	"ADDR/LEN,GATEWAY (IPv4; GATEWAY 0.0.0.0: none), e.g. "
	"203.0.113.7/24,203.0.113.1";

struct lease {
	uint32_t ip, gw;		/* host order */
	uint8_t plen;
};

static void
show(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	cpe_wan_tel(r, d);
}

static void
set(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct lease *l = arg;
	int16_t wan = r->dp->ifs.wan;
	const char *err = NULL;

	if (wan < 0 || !r->o->ports[wan].dhcp) {
		cpe_ctl_error(r, d, "/cpe/wan/set: refused", wan >= 0 &&
			      r->o->ports[wan].pppoe ?
			      "the WAN is PPPoE: /cpe/wan/pppoe" :
			      "the WAN's IPv4 address is static "
			      "(--wan PORT=ADDR/LEN)");
		return;
	}
	if (wan_set4(r, l->ip, l->plen, l->gw, &err) != 0) {
		cpe_ctl_error(r, d, "/cpe/wan/set: refused", err);
		return;
	}
	cpe_wan_tel(r, d);
}

struct session {
	struct lease l;
	uint16_t sid;
	uint8_t ac[6];
};

static void
set_pppoe(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct session *ss = arg;
	int16_t wan = r->dp->ifs.wan;
	const char *err = NULL;

	if (wan < 0 || !r->o->ports[wan].pppoe) {
		cpe_ctl_error(r, d, "/cpe/wan/pppoe: refused",
			      "the WAN is not PPPoE (--wan PORT=pppoe)");
		return;
	}
	if (wan_set4(r, ss->l.ip, 32, ss->l.gw, &err) != 0) {
		cpe_ctl_error(r, d, "/cpe/wan/pppoe: refused", err);
		return;
	}
	cpe_wan_pppoe_up(r, ss->sid, ss->ac);
	cpe_wan_tel(r, d);
}

static void
clear(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	wan_clear4(r);
	cpe_wan_tel(r, d);
}

/* /cpe/wan and /cpe/wan/clear: no parameters. */
static int
tel_plain(const char *cmd, const char *params, struct rte_tel_data *d)
{
	if (params != NULL && params[0] != '\0')
		return cpe_ctl_bad(d, cmd, params, "no parameters");
	return cpe_ctl_call(strcmp(cmd, "/cpe/wan") == 0 ? show : clear,
			    NULL, 0, d);
}

/* /cpe/wan/set,ADDR/LEN,GATEWAY */
static int
tel_set(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct lease l = { 0 };
	char buf[64], *f[2], *slash, *end;
	unsigned long len;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2)
		return cpe_ctl_bad(d, cmd, params, set_allowed);
	slash = strchr(f[0], '/');
	if (slash == NULL || slash[1] < '0' || slash[1] > '9')
		return cpe_ctl_bad(d, cmd, params, set_allowed);
	*slash = '\0';
	len = strtoul(slash + 1, &end, 10);
	if (*end != '\0' || len < 1 || len > 30 ||
	    cpe_parse_ip(f[0], &l.ip) != 0 || cpe_parse_ip(f[1], &l.gw) != 0)
		return cpe_ctl_bad(d, cmd, params, set_allowed);
	l.plen = (uint8_t)len;
	return cpe_ctl_call(set, &l, sizeof(l), d);
}

static const char *const pppoe_allowed =
	"SID,ACMAC,LOCAL,PEER: the session id 1..65534 (decimal or 0x hex), "
	"the concentrator's MAC, IPCP's local and peer IPv4 addresses, e.g. "
	"0x12,52:54:00:12:34:56,100.64.0.10,100.64.0.1";

/* /cpe/wan/pppoe,SID,ACMAC,LOCAL,PEER */
static int
tel_pppoe(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct session ss = { 0 };
	struct rte_ether_addr ac;
	char buf[96], *f[4], *end;
	unsigned long sid;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 4) != 4)
		return cpe_ctl_bad(d, cmd, params, pppoe_allowed);
	sid = strtoul(f[0], &end, 0);
	if (f[0][0] < '0' || f[0][0] > '9' || *end != '\0' || sid < 1 ||
	    sid > 65534 || rte_ether_unformat_addr(f[1], &ac) != 0 ||
	    !rte_is_unicast_ether_addr(&ac) || rte_is_zero_ether_addr(&ac) ||
	    cpe_parse_ip(f[2], &ss.l.ip) != 0 ||
	    cpe_parse_ip(f[3], &ss.l.gw) != 0 || ss.l.gw == 0)
		return cpe_ctl_bad(d, cmd, params, pppoe_allowed);
	ss.sid = (uint16_t)sid;
	memcpy(ss.ac, ac.addr_bytes, sizeof(ss.ac));
	ss.l.plen = 32;
	return cpe_ctl_call(set_pppoe, &ss, sizeof(ss), d);
}

int
cpe_wan_ctl_init(void)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/wan", tel_plain, "The WAN's mode, IPv4 address, "
		  "gateway and lease counters. No parameters" },
		{ "/cpe/wan/set", tel_set, "The WAN's IPv4 address from a "
		  "DHCP lease (--wan PORT=dhcp). Parameters: ADDR/LEN,GATEWAY" },
		{ "/cpe/wan/pppoe", tel_pppoe, "The WAN's PPPoE session and "
		  "IPv4 addresses (--wan PORT=pppoe, pppd's ip-up). "
		  "Parameters: SID,ACMAC,LOCAL,PEER" },
		{ "/cpe/wan/clear", tel_plain, "The WAN's IPv4 address gone "
		  "(lease lost, PPPoE session ended). No parameters" },
	};

	return cpe_ctl_register(cmds, RTE_DIM(cmds));
}

int
cpe_wan_create(struct cpe_router *r)
{
	r->wan = calloc(1, sizeof(*r->wan));
	return r->wan == NULL ? -ENOMEM : 0;
}

void
cpe_wan_free(struct cpe_router *r)
{
	free(r->wan);
	r->wan = NULL;
}
