/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN's IPv4 address at run time, and its telemetry commands:
 *
 *   /cpe/wan                        mode, address, gateway, counters
 *   /cpe/wan/set,ADDR/LEN,GATEWAY   --wan PORT=dhcp: the lease
 *   /cpe/wan/clear                  the lease gone
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

#include "cpe.h"

static struct {
	uint32_t gw;			/* the lease's gateway, host order */
	uint64_t since;			/* TSC of the last change */
	uint64_t sets, renewals, clears, nat_flushed;
} w;

static const char *
wan_mode(void)
{
	if (cpe.wan < 0)
		return "none";
	return cpe.o->ports[cpe.wan].dhcp ? "dhcp" : "static";
}

static void
fmt4(char *b, size_t n, uint32_t a)
{
	snprintf(b, n, "%u.%u.%u.%u", a >> 24, (a >> 16) & 255,
		 (a >> 8) & 255, a & 255);
}

/* The address, its connected route and the default route gone. */
static void
drop_addr(struct cpe_port *p, struct cpe_port_cfg *c)
{
	if (p->ip == 0)
		return;
	cpe_route_del(p->ip & p->mask, c->plen);
	if (w.gw != 0)
		cpe_route_del(0, 0);
	w.nat_flushed += cpe_nat_flush();
	p->ip = 0;
	p->ip_be = 0;
	p->mask = ~0u;
	c->ip = 0;
	c->plen = 0;
	w.gw = 0;
}

static int
wan_set4(uint32_t ip, uint8_t plen, uint32_t gw, const char **err)
{
	struct cpe_port *p;
	struct cpe_port_cfg *c;
	uint32_t mask;

	if (cpe.wan < 0 || !cpe.o->ports[cpe.wan].dhcp) {
		*err = "the WAN's IPv4 address is static (--wan PORT=ADDR/LEN)";
		return -EINVAL;
	}
	mask = plen ? ~0u << (32 - plen) : 0;
	if (plen < 1 || plen > 30 || (ip & ~mask) == 0 ||
	    (ip & ~mask) == ~mask) {
		*err = "a host address with a prefix length 1..30";
		return -EINVAL;
	}
	if (gw != 0 && (((gw ^ ip) & mask) != 0 || gw == ip)) {
		*err = "a gateway on the lease's subnet, not the address";
		return -EINVAL;
	}
	p = &cpe.ports[cpe.wan];
	c = &cpe.o->ports[cpe.wan];
	/* A renewal of the same lease: nothing moves. */
	if (p->ip == ip && c->plen == plen && w.gw == gw) {
		w.renewals++;
		return 0;
	}
	drop_addr(p, c);
	p->ip = ip;
	p->ip_be = rte_cpu_to_be_32(ip);
	p->mask = mask;
	c->ip = ip;
	c->plen = plen;
	cpe_route_add(ip & mask, plen, 0, (uint16_t)cpe.wan);
	if (gw != 0)
		cpe_route_add(0, 0, gw, (uint16_t)cpe.wan);
	w.gw = gw;
	w.sets++;
	w.since = rte_rdtsc();
	return 0;
}

static void
wan_clear4(void)
{
	if (cpe.wan < 0)
		return;
	if (cpe.ports[cpe.wan].ip != 0) {
		w.clears++;
		w.since = rte_rdtsc();
	}
	drop_addr(&cpe.ports[cpe.wan], &cpe.o->ports[cpe.wan]);
}

static uint64_t
uptime_s(void)
{
	return w.since ? (rte_rdtsc() - w.since) / cpe.hz : 0;
}

static void
wan_tel(struct rte_tel_data *d)
{
	const struct cpe_port *p;
	char a[24], g[16];

	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "mode", wan_mode());
	if (cpe.wan < 0)
		return;
	p = &cpe.ports[cpe.wan];
	if (p->ip != 0) {
		fmt4(a, sizeof(a), p->ip);
		snprintf(a + strlen(a), sizeof(a) - strlen(a), "/%u",
			 cpe.o->ports[cpe.wan].plen);
		rte_tel_data_add_dict_string(d, "address", a);
	} else {
		rte_tel_data_add_dict_string(d, "address", "none");
	}
	fmt4(g, sizeof(g), w.gw);
	rte_tel_data_add_dict_string(d, "gateway", w.gw ? g : "none");
	cpe_tel_u64(d, "uptime_s", uptime_s());
	cpe_tel_u64(d, "sets", w.sets);
	cpe_tel_u64(d, "renewals", w.renewals);
	cpe_tel_u64(d, "clears", w.clears);
	cpe_tel_u64(d, "nat_flushed", w.nat_flushed);
	cpe_tel_u64(d, "no_addr_drops", cpe.st.wan_no_addr);
}

void
cpe_wan_print(FILE *f)
{
	char a[16], g[16];
	uint32_t ip = cpe.wan >= 0 ? cpe.ports[cpe.wan].ip : 0;

	fmt4(a, sizeof(a), ip);
	fmt4(g, sizeof(g), w.gw);
	fprintf(f, "  wan: mode %s address %s gateway %s sets %" PRIu64
		" renewals %" PRIu64 " clears %" PRIu64 " nat_flushed %"
		PRIu64 " no_addr_drops %" PRIu64 "\n", wan_mode(),
		ip ? a : "none", w.gw ? g : "none", w.sets, w.renewals,
		w.clears, w.nat_flushed, cpe.st.wan_no_addr);
}

void
cpe_wan_json(FILE *f)
{
	char a[16], g[16];
	uint32_t ip = cpe.wan >= 0 ? cpe.ports[cpe.wan].ip : 0;

	fmt4(a, sizeof(a), ip);
	fmt4(g, sizeof(g), w.gw);
	fprintf(f, "  \"wan\": {\"mode\": \"%s\", \"address\": \"%s\", "
		"\"prefix_len\": %u, \"gateway\": \"%s\", \"uptime_s\": %"
		PRIu64 ", \"sets\": %" PRIu64 ", \"renewals\": %" PRIu64
		", \"clears\": %" PRIu64 ", \"nat_flushed\": %" PRIu64
		", \"no_addr_drops\": %" PRIu64 "},\n", wan_mode(),
		ip ? a : "", cpe.wan >= 0 ? cpe.o->ports[cpe.wan].plen : 0,
		w.gw ? g : "", uptime_s(), w.sets, w.renewals, w.clears,
		w.nat_flushed, cpe.st.wan_no_addr);
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
show(const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	wan_tel(d);
}

static void
set(const void *arg, struct rte_tel_data *d)
{
	const struct lease *l = arg;
	const char *err = NULL;

	if (wan_set4(l->ip, l->plen, l->gw, &err) != 0) {
		cpe_ctl_error(d, "/cpe/wan/set: refused", err);
		return;
	}
	wan_tel(d);
}

static void
clear(const void *arg, struct rte_tel_data *d)
{
	RTE_SET_USED(arg);
	wan_clear4();
	wan_tel(d);
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

int
cpe_wan_ctl_init(void)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/wan", tel_plain, "The WAN's mode, IPv4 address, "
		  "gateway and lease counters. No parameters" },
		{ "/cpe/wan/set", tel_set, "The WAN's IPv4 address from a "
		  "DHCP lease (--wan PORT=dhcp). Parameters: ADDR/LEN,GATEWAY" },
		{ "/cpe/wan/clear", tel_plain, "The WAN's IPv4 address gone "
		  "(lease lost). No parameters" },
	};

	return cpe_ctl_register(cmds, RTE_DIM(cmds));
}
