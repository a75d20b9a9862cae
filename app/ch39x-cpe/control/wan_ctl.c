/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN's telemetry commands, parsed on the telemetry thread, run on
 * the forwarding lcore (ctl.h):
 *
 *   /cpe/wan                        mode, addresses, gateways, counters
 *   /cpe/wan/set,ADDR/LEN,GATEWAY   --wan PORT=dhcp: the lease
 *   /cpe/wan/pppoe,SID,ACMAC,LOCAL,PEER
 *                                   --wan PORT=pppoe: the session (id,
 *                                   the concentrator's MAC) and IPCP's
 *                                   addresses (usertools/ch39x-cpe-pppoe)
 *   /cpe/wan/clear                  the lease or the session gone
 *   /cpe/wan/prefix6,PREFIX/LEN,PREFERRED,VALID
 *                                   a delegated prefix (or its renewal)
 *   /cpe/wan/prefix6/clear[,PREFIX/LEN]
 *                                   withdrawn (that one)
 *
 * Each replies as /cpe/wan does, the change made (wan.c, wan6.c,
 * wan_pppoe.c).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_telemetry.h>

#include "ctl.h"
#include "pd6.h"
#include "wan.h"
#include "wan6.h"
#include "wan_mbim.h"
#include "wan_pppoe.h"

static const char *const set_allowed =
	"ADDR/LEN,GATEWAY (IPv4; GATEWAY 0.0.0.0: none), e.g. "
	"203.0.113.7/24,203.0.113.1";

struct lease {
	uint32_t ip, gw;		/* host order */
	uint8_t plen;
};

/* The WAN's state; an MBIM session's beside it (wan_mbim sits above
 * wan: it sets the address through it). */
static void
wan_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	cpe_wan_tel(r, d);
	cpe_wan_mbim_tel(r, d);
}

static void
show(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	wan_tel(r, d);
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
	if (cpe_wan_set4(r, l->ip, l->plen, l->gw, &err) != 0) {
		cpe_ctl_error(r, d, "/cpe/wan/set: refused", err);
		return;
	}
	wan_tel(r, d);
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
	if (cpe_wan_set4(r, ss->l.ip, 32, ss->l.gw, &err) != 0) {
		cpe_ctl_error(r, d, "/cpe/wan/pppoe: refused", err);
		return;
	}
	cpe_wan_pppoe_up(r, ss->sid, ss->ac);
	wan_tel(r, d);
}

static void
clear(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	cpe_wan_clear4(r);
	wan_tel(r, d);
}

/* /cpe/wan and /cpe/wan/clear: no parameters. */
static int
tel_plain(const char *cmd, const char *params, void *box,
	  struct rte_tel_data *d)
{
	if (params != NULL && params[0] != '\0')
		return cpe_ctl_bad(box, d, cmd, params, "no parameters");
	return cpe_ctl_call(box, strcmp(cmd, "/cpe/wan") == 0 ? show : clear,
			    NULL, 0, d);
}

/* /cpe/wan/set,ADDR/LEN,GATEWAY */
static int
tel_set(const char *cmd, const char *params, void *box,
	struct rte_tel_data *d)
{
	struct lease l = { 0 };
	char buf[64], *f[2], *slash, *end;
	unsigned long len;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2)
		return cpe_ctl_bad(box, d, cmd, params, set_allowed);
	slash = strchr(f[0], '/');
	if (slash == NULL || slash[1] < '0' || slash[1] > '9')
		return cpe_ctl_bad(box, d, cmd, params, set_allowed);
	*slash = '\0';
	len = strtoul(slash + 1, &end, 10);
	if (*end != '\0' || len < 1 || len > 30 ||
	    cpe_parse_ip(f[0], &l.ip) != 0 || cpe_parse_ip(f[1], &l.gw) != 0)
		return cpe_ctl_bad(box, d, cmd, params, set_allowed);
	l.plen = (uint8_t)len;
	return cpe_ctl_call(box, set, &l, sizeof(l), d);
}

static const char *const pppoe_allowed =
	"SID,ACMAC,LOCAL,PEER: the session id 1..65534 (decimal or 0x hex), "
	"the concentrator's MAC, IPCP's local and peer IPv4 addresses, e.g. "
	"0x12,52:54:00:12:34:56,100.64.0.10,100.64.0.1";

/* /cpe/wan/pppoe,SID,ACMAC,LOCAL,PEER */
static int
tel_pppoe(const char *cmd, const char *params, void *box,
	  struct rte_tel_data *d)
{
	struct session ss = { 0 };
	struct rte_ether_addr ac;
	char buf[96], *f[4], *end;
	unsigned long sid;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 4) != 4)
		return cpe_ctl_bad(box, d, cmd, params, pppoe_allowed);
	sid = strtoul(f[0], &end, 0);
	if (f[0][0] < '0' || f[0][0] > '9' || *end != '\0' || sid < 1 ||
	    sid > 65534 || rte_ether_unformat_addr(f[1], &ac) != 0 ||
	    !rte_is_unicast_ether_addr(&ac) || rte_is_zero_ether_addr(&ac) ||
	    cpe_parse_ip(f[2], &ss.l.ip) != 0 ||
	    cpe_parse_ip(f[3], &ss.l.gw) != 0 || ss.l.gw == 0)
		return cpe_ctl_bad(box, d, cmd, params, pppoe_allowed);
	ss.sid = (uint16_t)sid;
	memcpy(ss.ac, ac.addr_bytes, sizeof(ss.ac));
	ss.l.plen = 32;
	return cpe_ctl_call(box, set_pppoe, &ss, sizeof(ss), d);
}

/* Under RTE_TEL_MAX_STRING_LEN, as telemetry's strings must be. */
static const char *const prefix6_allowed =
	"PREFIX/LEN,PREFERRED,VALID: LEN 1..64 of 2000::/3, lifetimes in s, "
	"PREFERRED <= VALID, e.g. 2001:db8:100::/56,3600,7200";

struct deleg {
	struct cpe_ip6 pfx;
	uint32_t preferred, valid;
};

static void
set6(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct deleg *g = arg;

	if (!cpe_wan6_any_pd(r)) {
		cpe_ctl_error(r, d, "/cpe/wan/prefix6: refused", "no LAN "
			      "takes a delegated prefix: --lan PORT=pd[:ID]");
		return;
	}
	cpe_wan6_delegate(r, &g->pfx, g->preferred, g->valid);
	wan_tel(r, d);
}

static void
clear6(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct deleg *g = arg;

	cpe_wan6_withdraw(r, &g->pfx);
	wan_tel(r, d);
}

/* Parsed parameters (pd6.c) as the forwarding lcore's delegation. */
static void
deleg_of(const struct cpe_pd6 *p, struct deleg *g)
{
	memcpy(g->pfx.a, p->a, sizeof(g->pfx.a));
	g->pfx.plen = p->plen;
	g->preferred = p->preferred;
	g->valid = p->valid;
}

/* /cpe/wan/prefix6,PREFIX/LEN,PREFERRED,VALID */
static int
tel_prefix6(const char *cmd, const char *params, void *box,
	    struct rte_tel_data *d)
{
	struct deleg g = { 0 };
	struct cpe_pd6 p;

	if (cpe_pd6_parse(params, &p) != 0)
		return cpe_ctl_bad(box, d, cmd, params, prefix6_allowed);
	deleg_of(&p, &g);
	return cpe_ctl_call(box, set6, &g, sizeof(g), d);
}

/* /cpe/wan/prefix6/clear[,PREFIX/LEN] */
static int
tel_clear(const char *cmd, const char *params, void *box,
	  struct rte_tel_data *d)
{
	struct deleg g = { 0 };
	struct cpe_pd6 p;

	if (cpe_pd6_parse_clear(params, &p) != 0)
		return cpe_ctl_bad(box, d, cmd, params, "nothing (the current "
				   "prefix) or PREFIX/LEN, only while current");
	deleg_of(&p, &g);
	return cpe_ctl_call(box, clear6, &g, sizeof(g), d);
}

int
cpe_wan_ctl_init(struct cpe_ctl *c)
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
		{ "/cpe/wan/prefix6", tel_prefix6, "The WAN's delegated "
		  "IPv6 prefix, a /64 to each --lan PORT=pd. Parameters: "
		  "PREFIX/LEN,PREFERRED,VALID" },
		{ "/cpe/wan/prefix6/clear", tel_clear, "The delegated IPv6 "
		  "prefix withdrawn. Parameters: none or PREFIX/LEN" },
	};

	return cpe_ctl_register(c, cmds, RTE_DIM(cmds));
}
