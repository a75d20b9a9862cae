/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The parsers of the options whose value is more than a number or a
 * switch (the OPT_FN rows of opts_table.h): ports and their addresses,
 * routes, neighbours, the firewall's rules, the scheduler's options, the
 * config file. Each error names the option and what it allows.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "fields.h"
#include "opts.h"

#define bad cpe_opt_bad

/* "ADDR/LEN" (or "default" when allowed) into host-order prefix. */
static int
parse_prefix(const char *s, bool dflt, uint32_t *ip, uint8_t *plen)
{
	char buf[64], *slash;
	uint32_t len;

	if (dflt && strcmp(s, "default") == 0) {
		*ip = 0;
		*plen = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	if (cpe_parse_ip(buf, ip) != 0 ||
	    cpe_opt_u32(slash + 1, 0, 32, &len))
		return -EINVAL;
	*plen = (uint8_t)len;
	return 0;
}

/* "ADDR/LEN", an IPv6 prefix, into p (plen 1..128 checked by callers). */
static int
parse_prefix6(const char *s, struct cpe_ip6 *p)
{
	char buf[64], *slash;
	uint32_t len;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL)
		return -EINVAL;
	*slash = '\0';
	if (inet_pton(AF_INET6, buf, p->a) != 1 ||
	    cpe_opt_u32(slash + 1, 0, 128, &len) != 0)
		return -EINVAL;
	p->plen = (uint8_t)len;
	return 0;
}

/* Global unicast: not ::, ::1, multicast, link-local or IPv4-mapped. */
static bool
ip6_global_unicast(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	uint8_t i, nz = 0;

	for (i = 0; i < 15; i++)
		nz |= a[i];
	if (nz == 0 && a[15] <= 1)
		return false;
	return a[0] != 0xff && !(a[0] == 0xfe && (a[1] & 0xc0) == 0x80) &&
		memcmp(a, mapped, sizeof(mapped)) != 0;
}

/* What --lan/--wan PORT=... asks for, before it is matched to a port. */
struct port_arg {
	struct cpe_port_cfg key;	/* id and vlan */
	bool dhcp, pppoe, mbim, pd;
	uint32_t ip, pd_id;
	uint8_t plen;
	bool v6;
	struct cpe_ip6 a6;
};

static const char *const lan_allowed =
	"PORT=ADDR/LEN or PORT=pd[:ID], PORT a DPDK port id 0..1023 "
	"or PORT.VLAN with an 802.1Q VLAN id 1..4094, ADDR/LEN a "
	"unicast IPv4 address with a prefix length 1..30 or a global "
	"IPv6 address with a prefix length 1..128, pd a /64 of the "
	"delegated IPv6 prefix (ID its number 0..65535), e.g. "
	"0=192.168.1.1/24, 0.10=192.168.10.1/24, 0=fd00:1::1/64 or "
	"0=pd:1";
static const char *const wan_allowed =
	"PORT=ADDR/LEN, PORT=dhcp, PORT=pppoe or PORT=mbim, PORT a DPDK "
	"port id "
	"0..1023 or "
	"PORT.VLAN with an 802.1Q VLAN id 1..4094, ADDR/LEN a "
	"unicast IPv4 address with a prefix length 1..30 or a global "
	"IPv6 address with a prefix length 1..128, e.g. "
	"1=203.0.113.2/24, 1.100=203.0.113.2/24, 1=dhcp, 1.7=pppoe or "
	"1=2001:db8:1::2/64";

/* The address part of PORT=... (after the '='): 0 or -EINVAL. */
static int
parse_addr_part(const char *s, bool wan, struct port_arg *a)
{
	a->dhcp = wan && strcmp(s, "dhcp") == 0;
	a->pppoe = wan && strcmp(s, "pppoe") == 0;
	a->mbim = wan && strcmp(s, "mbim") == 0;
	a->pd = !wan && strncmp(s, "pd", 2) == 0;
	a->pd_id = UINT16_MAX + 1u;
	if (a->dhcp || a->pppoe || a->mbim)
		return 0;	/* the address comes at run time (wan.c) */
	if (a->pd)		/* pd: the next free number; pd:ID that one */
		return s[2] != '\0' && (s[2] != ':' ||
			cpe_opt_u32(s + 3, 0, UINT16_MAX, &a->pd_id)) ?
			-EINVAL : 0;
	if (strchr(s, ':') != NULL) {
		a->v6 = true;
		return parse_prefix6(s, &a->a6) != 0 || a->a6.plen < 1 ||
			!ip6_global_unicast(a->a6.a) ? -EINVAL : 0;
	}
	return parse_prefix(s, false, &a->ip, &a->plen) != 0 ||
		a->plen < 1 || a->plen > 30 || a->ip == 0 ||
		(a->ip >> 28) >= 14 || (a->ip >> 24) == 127 ? -EINVAL : 0;
}

/* The configured port a names, a new one, or NULL (reported). */
static struct cpe_port_cfg *
port_for(struct cpe_opts *o, const struct cpe_opt_at *at, const char *val,
	 bool wan, const struct port_arg *a)
{
	struct cpe_port_cfg *p = NULL;
	uint16_t i;

	for (i = 0; i < o->nb_ports; i++) {
		if (o->ports[i].id == a->key.id &&
		    o->ports[i].vlan == a->key.vlan) {
			if (o->ports[i].wan != wan) {
				bad(at, val, wan ?
				    "a port not already given to --lan" :
				    "a port not already given to --wan");
				return NULL;
			}
			p = &o->ports[i];
		} else if (wan && o->ports[i].wan) {
			bad(at, val, "one --wan port only");
			return NULL;
		}
	}
	if (p != NULL)
		return p;
	if (o->nb_ports == CPE_MAX_PORTS) {
		bad(at, val, "at most 16 interfaces (--lan and --wan)");
		return NULL;
	}
	p = &o->ports[o->nb_ports++];
	*p = a->key;
	p->wan = wan;
	return p;
}

/* a's address onto port p: one IPv4 (static, dhcp or pppoe), IPv6s. */
static int
port_apply(struct cpe_port_cfg *p, const struct cpe_opt_at *at, const char *val,
	   const struct port_arg *a)
{
	if (a->dhcp || a->pppoe || a->mbim) {
		if (p->ip != 0 || p->dhcp || p->pppoe || p->mbim)
			return bad(at, val, "one IPv4 address a port: "
				   "ADDR/LEN, dhcp, pppoe or mbim, not two");
		p->dhcp = a->dhcp;
		p->pppoe = a->pppoe;
		p->mbim = a->mbim;
	} else if (a->pd) {
		if (p->pd)
			return bad(at, val, "one pd a port");
		p->pd = true;
		p->pd_id = a->pd_id;
	} else if (a->v6) {
		if (p->nb_ip6 == CPE_MAX_IP6)
			return bad(at, val, "at most 4 IPv6 prefixes a port");
		p->ip6[p->nb_ip6++] = a->a6;
	} else {
		if (p->ip != 0 || p->dhcp || p->pppoe || p->mbim)
			return bad(at, val, "one IPv4 address a port (repeat "
				   "the port only with IPv6 prefixes)");
		p->ip = a->ip;
		p->plen = a->plen;
	}
	return 0;
}

/*
 * --lan/--wan PORT=ADDR/LEN: an IPv4 address (one per port) or an IPv6
 * prefix (up to CPE_MAX_IP6); the same port given again gets the next
 * address (one router port).
 */
static int
opt_port(struct cpe_opts *o, const struct cpe_opt_at *at, const char *val,
	 bool wan)
{
	const char *allowed = wan ? wan_allowed : lan_allowed;
	struct cpe_port_cfg *p;
	struct port_arg a;
	char buf[80], *eq;

	memset(&a, 0, sizeof(a));
	if (strlen(val) >= sizeof(buf))
		return bad(at, val, allowed);
	strcpy(buf, val);
	eq = strchr(buf, '=');
	if (eq == NULL)
		return bad(at, val, allowed);
	*eq = '\0';
	if (cpe_parse_port_vlan(buf, &a.key.id, &a.key.vlan) != 0 ||
	    parse_addr_part(eq + 1, wan, &a) != 0)
		return bad(at, val, allowed);
	p = port_for(o, at, val, wan, &a);
	return p == NULL ? -EINVAL : port_apply(p, at, val, &a);
}

int
opt_lan(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	const struct cpe_opt_at *at)
{
	RTE_SET_USED(d);
	return opt_port(o, at, val, false);
}

int
opt_wan(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	const struct cpe_opt_at *at)
{
	RTE_SET_USED(d);
	return opt_port(o, at, val, true);
}

/*
 * Split "FIRST,SECOND" into buf (FIRST, NUL-terminated) and *second;
 * returns 0, or the error naming what the option allows.
 */
static int
split_pair(const struct cpe_opt_at *at, const char *val, const char *allowed,
	   char *buf, size_t cap, const char **second)
{
	char *comma;

	if (strlen(val) >= cap)
		return bad(at, val, allowed);
	strcpy(buf, val);
	comma = strchr(buf, ',');
	if (comma == NULL)
		return bad(at, val, allowed);
	*comma = '\0';
	*second = comma + 1;
	return 0;
}

/* An IPv6 route: PREFIX/LEN,GATEWAY, ::/0 the default. */
static int
opt_route6(struct cpe_opts *o, const struct cpe_opt_at *at, const char *val,
	   const char *pfx, const char *gw)
{
	const char *allowed = "PREFIX/LEN,GATEWAY with an IPv6 prefix "
		"(LEN 0..128, ::/0 the default route) and a global unicast "
		"IPv6 gateway or a link-local one (the WAN's router), e.g. "
		"::/0,2001:db8:1::1 or ::/0,fe80::1";
	struct cpe_route6_cfg *r;
	uint8_t i, bits;

	if (o->nb_routes6 == CPE_MAX_ROUTES)
		return bad(at, val, "at most 256 IPv6 routes");
	r = &o->routes6[o->nb_routes6];
	if (parse_prefix6(pfx, &r->prefix) != 0 ||
	    inet_pton(AF_INET6, gw, r->gw) != 1 ||
	    (!ip6_global_unicast(r->gw) &&
	     !(r->gw[0] == 0xfe && (r->gw[1] & 0xc0) == 0x80)))
		return bad(at, val, allowed);
	for (i = 0; i < 16; i++) {
		bits = r->prefix.plen > i * 8 ?
			(uint8_t)RTE_MIN(8, r->prefix.plen - i * 8) : 0;
		if (r->prefix.a[i] & (uint8_t)~(0xff00 >> bits))
			return bad(at, val, "a prefix without host bits set "
				   "(PREFIX/LEN,GATEWAY)");
	}
	o->nb_routes6++;
	return 0;
}

int
opt_route(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	  const struct cpe_opt_at *at)
{
	const char *allowed = "PREFIX/LEN,GATEWAY or default,GATEWAY, "
		"e.g. default,203.0.113.1 or 10.0.0.0/8,192.168.1.254, or "
		"an IPv6 PREFIX/LEN,GATEWAY, e.g. ::/0,2001:db8:1::1";
	struct cpe_route_cfg *r;
	const char *gw;
	char buf[128];

	RTE_SET_USED(d);
	if (split_pair(at, val, allowed, buf, sizeof(buf), &gw) != 0)
		return -EINVAL;
	if (strchr(buf, ':') != NULL || strchr(gw, ':') != NULL)
		return opt_route6(o, at, val, buf, gw);
	if (o->nb_routes == CPE_MAX_ROUTES)
		return bad(at, val, "at most 256 routes");
	r = &o->routes[o->nb_routes];
	if (parse_prefix(buf, true, &r->prefix, &r->plen) != 0 ||
	    cpe_parse_ip(gw, &r->gw) != 0 || r->gw == 0)
		return bad(at, val, allowed);
	if (r->plen < 32 &&
	    (r->prefix & (r->plen ? ~0u >> r->plen : ~0u)) != 0)
		return bad(at, val, "a prefix without host bits set "
			   "(PREFIX/LEN,GATEWAY)");
	o->nb_routes++;
	return 0;
}

int
opt_neigh(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	  const struct cpe_opt_at *at)
{
	const char *allowed = "ADDR,XX:XX:XX:XX:XX:XX (a unicast MAC)";
	struct cpe_neigh_cfg *n;
	const char *mac;
	char buf[80];

	RTE_SET_USED(d);
	if (split_pair(at, val, allowed, buf, sizeof(buf), &mac) != 0)
		return -EINVAL;
	if (o->nb_neigh == CPE_MAX_NEIGH_STATIC)
		return bad(at, val, "at most 64 static neighbours");
	n = &o->neigh[o->nb_neigh];
	if (cpe_parse_ip(buf, &n->ip) != 0 ||
	    rte_ether_unformat_addr(mac, &n->mac) != 0 ||
	    !rte_is_valid_assigned_ether_addr(&n->mac))
		return bad(at, val, allowed);
	o->nb_neigh++;
	return 0;
}

/* --mtu N, or PORT=N: one port's (matched to --lan/--wan in the checks). */
int
opt_mtu(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	const struct cpe_opt_at *at)
{
	const char *allowed = "N (68..9198, every port) or PORT=N for one "
		"router port, e.g. 1=1400";
	char buf[32], *eq;
	uint32_t id, mtu;

	RTE_SET_USED(d);
	if (strchr(val, '=') == NULL) {
		if (cpe_opt_u32(val, 68, 9198, &o->mtu) != 0)
			return bad(at, val, "68..9198, or PORT=N for one "
				   "port");
		return 0;
	}
	if (strlen(val) >= sizeof(buf))
		return bad(at, val, allowed);
	strcpy(buf, val);
	eq = strchr(buf, '=');
	*eq = '\0';
	if (cpe_opt_u32(buf, 0, 1023, &id) != 0 ||
	    cpe_opt_u32(eq + 1, 68, 9198, &mtu) != 0)
		return bad(at, val, allowed);
	if (o->nb_port_mtu == CPE_MAX_PHYS)
		return bad(at, val, "at most 8 per-port MTUs");
	o->port_mtu[o->nb_port_mtu].id = (uint16_t)id;
	o->port_mtu[o->nb_port_mtu].mtu = mtu;
	o->nb_port_mtu++;
	return 0;
}

int
opt_nat_ports(struct cpe_opts *o, const struct cpe_opt_def *d,
	      const char *val, const struct cpe_opt_at *at)
{
	uint32_t lo, hi;
	char *end;

	RTE_SET_USED(d);
	lo = (uint32_t)strtoul(val, &end, 10);
	if (!isdigit((unsigned char)val[0]) || *end != '-' ||
	    cpe_opt_u32(end + 1, 1, 65535, &hi) != 0 || lo < 1 || lo > hi)
		return bad(at, val, "LO-HI with 1 <= LO <= HI <= 65535, "
			   "e.g. 1024-65535");
	o->nat_lo = (uint16_t)lo;
	o->nat_hi = (uint16_t)hi;
	return 0;
}

/* --fw-open and --fw-pinhole: a rule each, ids in the order given. */
int
opt_fw_rule(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	    const struct cpe_opt_at *at)
{
	struct cpe_fw_rule r;
	const char *allowed;
	int id;

	allowed = cpe_fw_rule_parse(val, d->name[3] == 'p', &r);
	if (allowed != NULL)
		return bad(at, val, allowed);
	id = cpe_fw_rule_add(&o->fw, &r);
	if (id == -ENOSPC)
		return bad(at, val, "at most 64 --fw-open and "
			   "--fw-pinhole rules in all");
	if (id < 0)
		return bad(at, val, "a rule not given before");
	return 0;
}

int
opt_fw_forward(struct cpe_opts *o, const struct cpe_opt_def *d,
	       const char *val, const struct cpe_opt_at *at)
{
	struct cpe_fw_forward f;
	const char *allowed = cpe_fw_forward_parse(val, &f);
	int rc;

	RTE_SET_USED(d);
	if (allowed != NULL)
		return bad(at, val, allowed);
	rc = cpe_fw_forward_add(&o->fw, &f);
	if (rc == -ENOSPC)
		return bad(at, val, "at most 32 --fw-forward");
	if (rc != 0)
		return bad(at, val, "WAN ports not forwarded by an "
			   "earlier --fw-forward of the protocol");
	return 0;
}

/* "PORT=IFNAME" of --tap: 0, or -EINVAL. */
static int
tap_parse(const char *val, struct cpe_tap_cfg *t)
{
	const char *eq = strchr(val, '=');
	char num[16];
	size_t len;

	if (eq == NULL || eq == val || (size_t)(eq - val) >= sizeof(num))
		return -EINVAL;
	memcpy(num, val, (size_t)(eq - val));
	num[eq - val] = '\0';
	/* PORT or PORT.VLAN, as --lan/--wan name interfaces. */
	if (cpe_parse_port_vlan(num, &t->port, &t->vlan) != 0)
		return -EINVAL;
	/* What the kernel takes as an interface name (dev_valid_name). */
	len = strlen(eq + 1);
	if (len == 0 || len >= sizeof(t->name) || strcmp(eq + 1, ".") == 0 ||
	    strcmp(eq + 1, "..") == 0 || strpbrk(eq + 1, "/: \t\n") != NULL)
		return -EINVAL;
	memcpy(t->name, eq + 1, len + 1);
	return 0;
}

int
opt_tap(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	const struct cpe_opt_at *at)
{
	RTE_SET_USED(d);
	if (o->nb_taps == CPE_MAX_PORTS)
		return bad(at, val, "at most 8 --tap (one per port)");
	if (tap_parse(val, &o->taps[o->nb_taps]) != 0)
		return bad(at, val, "PORT=IFNAME, PORT a --lan/--wan port "
			   "id, IFNAME 1..15 characters without '/', ':' or "
			   "blanks, e.g. 0=cpe-lan");
	o->nb_taps++;
	return 0;
}

int
opt_idle(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	 const struct cpe_opt_at *at)
{
	RTE_SET_USED(d);
	if (strcmp(val, "poll") == 0)
		o->idle = CPE_IDLE_POLL;
	else if (strcmp(val, "adaptive") == 0)
		o->idle = CPE_IDLE_ADAPTIVE;
	else if (strcmp(val, "interrupt") == 0)
		o->idle = CPE_IDLE_INTERRUPT;
	else
		return bad(at, val, "poll, adaptive, interrupt");
	return 0;
}

int
opt_gen(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	const struct cpe_opt_at *at)
{
	const char *allowed = "TX,RX[,FLOWS[,SIZE]]: port ids 0..1023, "
		"FLOWS 1..65536, SIZE 60..1514";
	char buf[80], *f[4], *save = NULL, *t;
	uint32_t v[4] = { 0, 0, 256, 64 }, n = 0;

	RTE_SET_USED(d);
	if (strlen(val) >= sizeof(buf))
		return bad(at, val, allowed);
	strcpy(buf, val);
	for (t = strtok_r(buf, ",", &save); t != NULL && n < 4;
	     t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n < 2 || t != NULL ||
	    cpe_opt_u32(f[0], 0, 1023, &v[0]) ||
	    cpe_opt_u32(f[1], 0, 1023, &v[1]) ||
	    (n > 2 && cpe_opt_u32(f[2], 1, 65536, &v[2])) ||
	    (n > 3 && cpe_opt_u32(f[3], 60, 1514, &v[3])) || v[0] == v[1])
		return bad(at, val, allowed);
	o->gen.on = true;
	o->gen.tx_port = (uint16_t)v[0];
	o->gen.rx_port = (uint16_t)v[1];
	o->gen.flows = v[2];
	o->gen.frame_size = v[3];
	return 0;
}

/* The scheduler's options: qos_class.c parses them. */
int
opt_qos(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	const struct cpe_opt_at *at)
{
	const char *allowed = cpe_qos_opt(&o->qos, d->name, val);

	return allowed != NULL ? bad(at, val, allowed) : 0;
}

int
opt_config(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	   const struct cpe_opt_at *at)
{
	RTE_SET_USED(d);
	if (at->depth > 0)
		return bad(at, val, "none inside a config file (no "
			   "nesting)");
	o->config = val;
	return cpe_opts_file(o, val, at->depth + 1);
}

int
opt_vdev(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
	 const struct cpe_opt_at *at)
{
	RTE_SET_USED(d);
	if (at->depth == 0)
		return bad(at, val, "none after '--': give --vdev to EAL, "
			   "before '--' (vdev lines are for config files)");
	if (o->nb_vdevs == CPE_MAX_PHYS)
		return bad(at, val, "at most 8 vdev lines");
	o->vdevs[o->nb_vdevs] = strdup(val);
	if (o->vdevs[o->nb_vdevs] == NULL)
		return -ENOMEM;
	o->nb_vdevs++;
	return 0;
}
