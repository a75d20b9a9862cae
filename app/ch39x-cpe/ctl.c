/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Run-time changes without a restart: routes and static neighbours, as
 * DPDK telemetry commands on EAL's socket (dpdk-telemetry.py, or any
 * SOCK_SEQPACKET client of /var/run/dpdk/<file-prefix>/dpdk_telemetry.v2).
 * Parameters follow the command after a comma:
 *
 *   /cpe/route/add,PREFIX/LEN,GATEWAY   add, or replace the gateway
 *   /cpe/route/del,PREFIX/LEN           static routes only ("default",
 *                                       "::/0": the default routes)
 *   /cpe/routes
 *   /cpe/neigh/add,ADDR,MAC             a static entry, replacing any
 *   /cpe/neigh/del,ADDR                 static or learnt
 *   /cpe/neighs
 *   /cpe/stats
 *   /cpe/ports                          DPDK ports: up, down, reprobing
 *                                       (hotplug.c)
 *   /cpe/sim/unplug,PORT                a simulated net_ch39x adapter
 *   /cpe/sim/replug,PORT                off its USB bus and back (tests)
 *
 * Other files register their own commands and hand them to the same
 * mailbox with cpe_ctl_call(): /cpe/fw/... (fw_ctl.c), /cpe/wan...
 * (wan.c).
 *
 * Telemetry callbacks run on EAL's telemetry threads (one per client)
 * while the forwarding lcore owns the route table, the neighbour table
 * and the flow cache without locks. So a callback only parses; the
 * command goes through a one-slot mailbox that the forwarding loop
 * services in its housekeeping (cpe_ctl_poll(), every millisecond; a
 * sleeping loop is woken by cpe_idle_kick()), and the callback waits for
 * the result. Every change bumps cpe.gen (in
 * route.c and neigh.c): cached flows carrying the old next hop or MAC are
 * dropped on their next packet, as when ARP sees a MAC change.
 *
 * Both families: an address's family picks route.c/neigh.c or
 * route6.c/nd6.c; the listings show IPv4 entries, then IPv6 ones.
 *
 * /cpe/sim/unplug and /cpe/sim/replug: rte_pmd_ch39x_sim_unplug() and
 * _replug() of the net_ch39x PMD, so that a test can pull a port's
 * simulated adapter from outside the process. The PMD is a plugin (-d,
 * or EAL's plugin directory) and any other PMD may drive the ports: the
 * functions are looked up at run time, and a port that is no simulated
 * ch39x adapter gets -ENOTSUP.
 */

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <rte_telemetry.h>

#include "cpe.h"
#include "rte_pmd_ch39x.h"

/*
 * How long a client waits for the forwarding loop. It polls every
 * millisecond while it runs; a sleep-on-idle mode of the loop must wake
 * well within this (and should: packets wait as long). Past it the reply
 * is "router busy" and the command is withdrawn, not run later.
 */
#define CTL_WAIT_MS		2000
#define CTL_LIST_MAX		256	/* entries in one listing */
#define CTL_ALLOWED_MAX		32	/* in an error's "allowed" */
#define CTL_PFX6_LEN		(INET6_ADDRSTRLEN + 4)	/* ADDR/LEN */

enum ctl_op {
	OP_ROUTE_ADD, OP_ROUTE_DEL, OP_ROUTES,
	OP_NEIGH_ADD, OP_NEIGH_DEL, OP_NEIGHS, OP_STATS,
	OP_PORTS, OP_SIM_UNPLUG, OP_SIM_REPLUG,
	OP_CALL,
};

struct ctl_addr {
	int af;				/* AF_INET or AF_INET6 */
	uint32_t v4;			/* host order */
	uint8_t v6[16];
};

struct ctl_cmd {
	enum ctl_op op;
	struct ctl_addr dst;		/* route prefix or neighbour */
	uint8_t plen;
	struct ctl_addr gw;
	struct rte_ether_addr mac;
	uint16_t port;			/* DPDK port id (/cpe/sim/...) */
	cpe_ctl_fn fn;			/* OP_CALL: fn(arg, d) */
	uint8_t arg[CPE_CTL_ARG_MAX];
};

/* The mailbox: the telemetry thread posts, the forwarding lcore runs. */
enum { BOX_IDLE, BOX_POSTED, BOX_TAKEN, BOX_DONE };

static struct {
	uint32_t state;			/* __atomic: the hand-over */
	struct ctl_cmd cmd;
	struct rte_tel_data *d;
} box;
/* One command at a time, whatever the number of telemetry clients. */
static pthread_mutex_t box_lock = PTHREAD_MUTEX_INITIALIZER;
/* Counted on telemetry threads, folded into cpe.st by the lcore. */
static uint64_t bad_requests;

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
static const char *const sim_allowed =
	"PORT, a DPDK port id of the router, e.g. 1";

/* --- replies ---------------------------------------------------------- */

static void
fmt_v4(char *buf, size_t cap, uint32_t ip)
{
	snprintf(buf, cap, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255,
		 (ip >> 8) & 255, ip & 255);
}

/* As ip(8) prints them: lower case. */
static void
fmt_mac(char *buf, size_t cap, const struct rte_ether_addr *mac)
{
	const uint8_t *b = mac->addr_bytes;

	snprintf(buf, cap, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2],
		 b[3], b[4], b[5]);
}

static void
fmt_prefix(char *buf, size_t cap, uint32_t ip, uint8_t plen)
{
	char a[16];

	fmt_v4(a, sizeof(a), ip);
	snprintf(buf, cap, "%s/%u", a, plen);
}

static void
fmt_prefix6(char *buf, size_t cap, const uint8_t *a, uint8_t plen)
{
	char s[INET6_ADDRSTRLEN];

	cpe_ip6_fmt(s, sizeof(s), a);
	snprintf(buf, cap, "%s/%u", s, plen);
}

static bool
is_zero6(const uint8_t *a)
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* An error reply: what is wrong, and what is allowed instead. */
static int
reply_error(struct rte_tel_data *d, const char *err, const char *allowed)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", err);
	if (allowed != NULL)
		rte_tel_data_add_dict_string(d, "allowed", allowed);
	return 0;
}

/* A bad request, answered on the telemetry thread. */
int
cpe_ctl_bad(struct rte_tel_data *d, const char *cmd, const char *params,
	  const char *allowed)
{
	char err[RTE_TEL_MAX_STRING_LEN];

	__atomic_fetch_add(&bad_requests, 1, __ATOMIC_RELAXED);
	snprintf(err, sizeof(err), "%s: bad parameters '%.60s'", cmd,
		 params != NULL ? params : "");
	return reply_error(d, err, allowed);
}

/* An error whose allowed values are a list (an array of strings). */
static struct rte_tel_data *
error_with_list(struct rte_tel_data *d, const char *err)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	cpe.st.ctl_errors++;
	reply_error(d, err, NULL);
	if (a != NULL) {
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		if (rte_tel_data_add_dict_container(d, "allowed", a, 0) != 0) {
			rte_tel_data_free(a);
			a = NULL;
		}
	}
	return a;
}

/* --- parsing (telemetry thread: no router state) ----------------------- */

static int
parse_addr(const char *s, struct ctl_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (strchr(s, ':') != NULL) {
		a->af = AF_INET6;
		return inet_pton(AF_INET6, s, a->v6) == 1 ? 0 : -EINVAL;
	}
	a->af = AF_INET;
	return cpe_parse_ip(s, &a->v4);
}

/* PREFIX/LEN (no host bits) or "default". */
static int
parse_prefix(const char *s, struct ctl_addr *a, uint8_t *plen)
{
	char buf[64], *slash, *end;
	unsigned long len;
	uint32_t i, max;

	if (strcmp(s, "default") == 0) {
		memset(a, 0, sizeof(*a));
		a->af = AF_INET;
		*plen = 0;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash == NULL || slash[1] < '0' || slash[1] > '9')
		return -EINVAL;
	*slash = '\0';
	if (parse_addr(buf, a) != 0)
		return -EINVAL;
	max = a->af == AF_INET ? 32 : 128;
	len = strtoul(slash + 1, &end, 10);
	if (*end != '\0' || len > max)
		return -EINVAL;
	*plen = (uint8_t)len;
	if (a->af == AF_INET)
		return len < 32 && (a->v4 & (~0u >> len)) != 0 ? -EINVAL : 0;
	for (i = len; i < 128; i++)
		if (a->v6[i / 8] & (0x80 >> (i % 8)))
			return -EINVAL;
	return 0;
}

/* --- the mailbox ------------------------------------------------------ */

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Hands c to the forwarding lcore and waits for its reply in d. */
static int
submit(const struct ctl_cmd *c, struct rte_tel_data *d)
{
	const struct timespec pause = { .tv_nsec = 200000 };
	uint64_t deadline;
	uint32_t st, posted;

	pthread_mutex_lock(&box_lock);
	box.cmd = *c;
	box.d = d;
	__atomic_store_n(&box.state, BOX_POSTED, __ATOMIC_RELEASE);
	cpe_idle_kick();	/* the loop may be asleep (--idle interrupt) */
	deadline = now_ms() + CTL_WAIT_MS;
	while ((st = __atomic_load_n(&box.state, __ATOMIC_ACQUIRE)) !=
	       BOX_DONE) {
		posted = BOX_POSTED;
		/* Withdrawn only if not taken: then d is still ours. */
		if (st == BOX_POSTED && now_ms() >= deadline &&
		    __atomic_compare_exchange_n(&box.state, &posted, BOX_IDLE,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			pthread_mutex_unlock(&box_lock);
			__atomic_fetch_add(&bad_requests, 1, __ATOMIC_RELAXED);
			return reply_error(d, "router busy: the forwarding "
					   "loop did not take the command "
					   "within 2 s",
					   "try again");
		}
		nanosleep(&pause, NULL);
	}
	__atomic_store_n(&box.state, BOX_IDLE, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&box_lock);
	return 0;
}

/* --- execution (forwarding lcore) -------------------------------------- */

/* The router port whose subnet holds a (not the router itself), or -1. */
static int
port_of(const struct ctl_addr *a)
{
	const struct cpe_port *p;
	uint32_t ip = a->v4;
	uint16_t i;

	for (i = 0; i < cpe.nb_ports; i++) {
		p = &cpe.ports[i];
		if (((ip ^ p->ip) & p->mask) == 0 && ip != p->ip &&
		    (ip & ~p->mask) != 0 && (ip & ~p->mask) != ~p->mask)
			return i;
	}
	return -1;
}

static void
list_subnets(struct rte_tel_data *a)
{
	const struct cpe_port *p;
	char buf[24];
	uint16_t i;

	for (i = 0; a != NULL && i < cpe.nb_ports; i++) {
		p = &cpe.ports[i];
		fmt_prefix(buf, sizeof(buf), p->ip & p->mask,
			   (uint8_t)__builtin_popcount(p->mask));
		rte_tel_data_add_array_string(a, buf);
	}
}

/*
 * The router port whose IPv6 prefix holds a (not the router itself), or
 * -1: a connected route's next hop is the destination itself.
 */
static int
port_of6(const struct ctl_addr *a)
{
	/* Neighbours: link-local ones are the link's own business. */
	if (a->v6[0] == 0xfe && (a->v6[1] & 0xc0) == 0x80)
		return -1;
	return cpe_ip6_gw_port(a->v6);
}

/* A gateway: also a link-local one, the WAN's router. */
static int
gw_port6(const struct ctl_addr *a)
{
	return cpe_ip6_gw_port(a->v6);
}

static void
list_subnets6(struct rte_tel_data *a)
{
	const struct cpe_ip6 *p;
	char buf[CTL_PFX6_LEN];
	uint8_t pfx[16], j;
	uint16_t i;

	for (i = 0; a != NULL && i < cpe.nb_ports; i++) {
		for (j = 0; j < cpe.ports[i].nb_ip6; j++) {
			p = &cpe.ports[i].ip6[j];
			cpe_ip6_prefix_of(pfx, p->a, p->plen);
			fmt_prefix6(buf, sizeof(buf), pfx, p->plen);
			rte_tel_data_add_array_string(a, buf);
		}
	}
}

struct list_ctx {
	struct rte_tel_data *a;
	uint32_t count, shown, max;
	bool static_only;
};

/*
 * One route of a listing, its prefix and gateway (NULL: connected)
 * already text, so that both families' walks share the layout.
 */
static void
route_show(struct list_ctx *l, const char *p, const char *gw, uint16_t out)
{
	char buf[RTE_TEL_MAX_STRING_LEN];

	if (l->static_only && gw == NULL)
		return;
	l->count++;
	if (l->a == NULL || l->shown == l->max)
		return;
	if (gw == NULL)
		snprintf(buf, sizeof(buf), "%s connected port %u", p,
			 cpe.ports[out].id);
	else
		snprintf(buf, sizeof(buf), "%s via %s port %u", p, gw,
			 cpe.ports[out].id);
	/* Prefixes only: the allowed values of /cpe/route/del. */
	rte_tel_data_add_array_string(l->a, l->static_only ? p : buf);
	l->shown++;
}

static void
route_line(const struct cpe_route_cfg *r, uint16_t out, void *arg)
{
	char p[24], gw[16];

	fmt_prefix(p, sizeof(p), r->prefix, r->plen);
	fmt_v4(gw, sizeof(gw), r->gw);
	route_show(arg, p, r->gw == 0 ? NULL : gw, out);
}

static void
route6_line(const struct cpe_route6_cfg *r, uint16_t out, void *arg)
{
	char p[CTL_PFX6_LEN], gw[INET6_ADDRSTRLEN];

	fmt_prefix6(p, sizeof(p), r->prefix.a, r->prefix.plen);
	cpe_ip6_fmt(gw, sizeof(gw), r->gw);
	route_show(arg, p, is_zero6(r->gw) ? NULL : gw, out);
}

/* One neighbour of a listing, as route_show() for routes. */
static void
neigh_show(struct list_ctx *l, const char *a, uint16_t idx,
	   const struct rte_ether_addr *mac, const char *state)
{
	char buf[RTE_TEL_MAX_STRING_LEN], m[RTE_ETHER_ADDR_FMT_SIZE];

	l->count++;
	if (l->a == NULL || l->shown == l->max)
		return;
	fmt_mac(m, sizeof(m), mac);
	snprintf(buf, sizeof(buf), "%s lladdr %s port %u %s", a, m,
		 cpe.ports[idx].id, state);
	/* Addresses only: the allowed values of /cpe/neigh/del. */
	rte_tel_data_add_array_string(l->a, l->static_only ? a : buf);
	l->shown++;
}

static void
neigh_line(uint32_t ip, uint16_t idx, const struct rte_ether_addr *mac,
	   const char *state, void *arg)
{
	char a[16];

	fmt_v4(a, sizeof(a), ip);
	neigh_show(arg, a, idx, mac, state);
}

static void
neigh6_line(const uint8_t *ip, uint16_t idx, const struct rte_ether_addr *mac,
	    const char *state, void *arg)
{
	char a[INET6_ADDRSTRLEN];

	cpe_ip6_fmt(a, sizeof(a), ip);
	neigh_show(arg, a, idx, mac, state);
}

/* --- the families: route.c/neigh.c or route6.c/nd6.c ------------------- */

static void
fmt_addr4(char *buf, size_t cap, const struct ctl_addr *a)
{
	fmt_v4(buf, cap, a->v4);
}

static int
route_get4(const struct ctl_addr *dst, uint8_t plen, bool *connected)
{
	uint32_t gw;
	int rc = cpe_route_get(dst->v4, plen, &gw);

	*connected = rc == 0 && gw == 0;
	return rc;
}

static int
route_add4(const struct ctl_addr *dst, uint8_t plen,
	   const struct ctl_addr *gw, uint16_t out)
{
	return cpe_route_add(dst->v4, plen, gw->v4, out);
}

static int
route_del4(const struct ctl_addr *dst, uint8_t plen)
{
	return cpe_route_del(dst->v4, plen);
}

static void
route_walk4(struct list_ctx *l)
{
	cpe_route_walk(route_line, l);
}

static int
neigh_set4(const struct ctl_addr *a, uint16_t out,
	   const struct rte_ether_addr *mac)
{
	return cpe_neigh_static_set(a->v4, out, mac);
}

static int
neigh_del4(const struct ctl_addr *a)
{
	return cpe_neigh_remove(a->v4);
}

static void
neigh_walk4(struct list_ctx *l)
{
	cpe_neigh_walk(neigh_line, l);
}

static void
fmt_addr6(char *buf, size_t cap, const struct ctl_addr *a)
{
	cpe_ip6_fmt(buf, cap, a->v6);
}

static int
route_get6(const struct ctl_addr *dst, uint8_t plen, bool *connected)
{
	uint8_t gw[16];
	int rc = cpe_route6_get(dst->v6, plen, gw);

	*connected = rc == 0 && is_zero6(gw);
	return rc;
}

static int
route_add6(const struct ctl_addr *dst, uint8_t plen,
	   const struct ctl_addr *gw, uint16_t out)
{
	return cpe_route6_add(dst->v6, plen, gw->v6, out);
}

static int
route_del6(const struct ctl_addr *dst, uint8_t plen)
{
	return cpe_route6_del(dst->v6, plen);
}

static void
route_walk6(struct list_ctx *l)
{
	cpe_route6_walk(route6_line, l);
}

static int
neigh_set6(const struct ctl_addr *a, uint16_t out,
	   const struct rte_ether_addr *mac)
{
	return cpe_nd6_static_set(a->v6, out, mac);
}

static int
neigh_del6(const struct ctl_addr *a)
{
	return cpe_nd6_remove(a->v6);
}

static void
neigh_walk6(struct list_ctx *l)
{
	cpe_nd6_walk(neigh6_line, l);
}

/*
 * What differs between the families, so that one handler per command
 * serves both and their replies, errors and counters cannot drift apart.
 * The "off" texts differ because IPv4 also refuses a subnet's network
 * and broadcast addresses.
 */
struct ctl_family {
	size_t addr_len;		/* an address's text, with its NUL */
	const char *gw_off;		/* why a gateway is on no port */
	const char *addr_off;		/* why a neighbour is on no port */
	void (*fmt)(char *buf, size_t cap, const struct ctl_addr *a);
	int (*port_of)(const struct ctl_addr *a);
	int (*gw_port)(const struct ctl_addr *a);	/* a route's */
	void (*subnets)(struct rte_tel_data *a);
	/* 0 if the prefix has a route, *connected if without gateway */
	int (*route_get)(const struct ctl_addr *dst, uint8_t plen,
			 bool *connected);
	int (*route_add)(const struct ctl_addr *dst, uint8_t plen,
			 const struct ctl_addr *gw, uint16_t out);
	int (*route_del)(const struct ctl_addr *dst, uint8_t plen);
	void (*route_walk)(struct list_ctx *l);
	/* 1 if it replaced an entry, 0 if new, < 0 if the table is full */
	int (*neigh_set)(const struct ctl_addr *a, uint16_t out,
			 const struct rte_ether_addr *mac);
	int (*neigh_del)(const struct ctl_addr *a);
	void (*neigh_walk)(struct list_ctx *l);
};

static const struct ctl_family family4 = {
	.addr_len = 16,
	.gw_off = "is on no port's subnet (or is the router, or a "
		  "subnet's network/broadcast address)",
	.addr_off = "is on no port's subnet (or is the router, or a "
		    "network/broadcast address)",
	.fmt = fmt_addr4,
	.port_of = port_of,
	.gw_port = port_of,
	.subnets = list_subnets,
	.route_get = route_get4,
	.route_add = route_add4,
	.route_del = route_del4,
	.route_walk = route_walk4,
	.neigh_set = neigh_set4,
	.neigh_del = neigh_del4,
	.neigh_walk = neigh_walk4,
};

static const struct ctl_family family6 = {
	.addr_len = INET6_ADDRSTRLEN,
	.gw_off = "is on no port's IPv6 prefix (or is the router); "
		  "link-local ones are the WAN's",
	.addr_off = "is on no port's IPv6 prefix (or is the router)",
	.fmt = fmt_addr6,
	.port_of = port_of6,
	.gw_port = gw_port6,
	.subnets = list_subnets6,
	.route_get = route_get6,
	.route_add = route_add6,
	.route_del = route_del6,
	.route_walk = route_walk6,
	.neigh_set = neigh_set6,
	.neigh_del = neigh_del6,
	.neigh_walk = neigh_walk6,
};

/* Listings show IPv4 entries, then IPv6 ones. */
static const struct ctl_family *const families[] = { &family4, &family6 };

/* --- the commands ------------------------------------------------------- */

/* ADDR/LEN, from the family's text of the address. */
static void
fmt_pfx(const struct ctl_family *f, char *buf, size_t cap,
	const struct ctl_addr *a, uint8_t plen)
{
	char s[INET6_ADDRSTRLEN];

	f->fmt(s, f->addr_len, a);
	snprintf(buf, cap, "%s/%u", s, plen);
}

static void
route_add(const struct ctl_family *f, const struct ctl_cmd *c,
	  struct rte_tel_data *d)
{
	char err[RTE_TEL_MAX_STRING_LEN], p[CTL_PFX6_LEN];
	char gw[INET6_ADDRSTRLEN];
	int port, rc, replaced;
	bool connected;

	fmt_pfx(f, p, sizeof(p), &c->dst, c->plen);
	f->fmt(gw, f->addr_len, &c->gw);
	port = f->gw_port(&c->gw);
	if (port < 0) {
		snprintf(err, sizeof(err), "gateway %s %s", gw, f->gw_off);
		f->subnets(error_with_list(d, err));
		return;
	}
	replaced = f->route_get(&c->dst, c->plen, &connected) == 0;
	if (connected) {
		snprintf(err, sizeof(err), "%s is a connected route: it "
			 "cannot be replaced; allowed: other prefixes", p);
		cpe.st.ctl_errors++;
		reply_error(d, err, NULL);
		return;
	}
	rc = f->route_add(&c->dst, c->plen, &c->gw, (uint16_t)port);
	if (rc != 0) {
		snprintf(err, sizeof(err), "cannot add %s: %s", p,
			 rc == -ENOSPC ? "the route table is full" :
			 strerror(-rc));
		cpe.st.ctl_errors++;
		reply_error(d, err, "delete a static route first "
			    "(/cpe/route/del)");
		return;
	}
	cpe.st.ctl_route_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "route", p);
	rte_tel_data_add_dict_string(d, "gateway", gw);
	rte_tel_data_add_dict_int(d, "port", cpe.ports[port].id);
	rte_tel_data_add_dict_int(d, "replaced", replaced);
	cpe_tel_u64(d, "generation", cpe.gen);
	cpe_fw_tel(d);
}

static void
route_del(const struct ctl_family *f, const struct ctl_cmd *c,
	  struct rte_tel_data *d)
{
	struct list_ctx l = { .max = CTL_ALLOWED_MAX, .static_only = true };
	char err[RTE_TEL_MAX_STRING_LEN], p[CTL_PFX6_LEN];
	bool connected;
	int rc;

	fmt_pfx(f, p, sizeof(p), &c->dst, c->plen);
	rc = f->route_get(&c->dst, c->plen, &connected);
	if (rc != 0 || connected) {
		snprintf(err, sizeof(err), rc != 0 ? "no route %s" :
			 "%s is a connected route: it cannot be deleted", p);
		/* The allowed values: this family's static routes. */
		l.a = error_with_list(d, err);
		f->route_walk(&l);
		return;
	}
	rc = f->route_del(&c->dst, c->plen);
	if (rc != 0) {
		snprintf(err, sizeof(err), "cannot delete %s: %s", p,
			 strerror(-rc));
		cpe.st.ctl_errors++;
		reply_error(d, err, NULL);
		return;
	}
	cpe.st.ctl_route_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "deleted", p);
	cpe_tel_u64(d, "generation", cpe.gen);
	cpe_fw_tel(d);
}

static void
neigh_add(const struct ctl_family *f, const struct ctl_cmd *c,
	  struct rte_tel_data *d)
{
	char err[RTE_TEL_MAX_STRING_LEN], a[INET6_ADDRSTRLEN];
	char m[RTE_ETHER_ADDR_FMT_SIZE];
	int port, rc;

	f->fmt(a, f->addr_len, &c->dst);
	port = f->port_of(&c->dst);
	if (port < 0) {
		snprintf(err, sizeof(err), "%s %s", a, f->addr_off);
		f->subnets(error_with_list(d, err));
		return;
	}
	rc = f->neigh_set(&c->dst, (uint16_t)port, &c->mac);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot add %s: the neighbour table "
			 "is full", a);
		cpe.st.ctl_errors++;
		reply_error(d, err, "delete a neighbour first "
			    "(/cpe/neigh/del)");
		return;
	}
	cpe.st.ctl_neigh_changes++;
	fmt_mac(m, sizeof(m), &c->mac);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "neigh", a);
	rte_tel_data_add_dict_string(d, "mac", m);
	rte_tel_data_add_dict_int(d, "port", cpe.ports[port].id);
	rte_tel_data_add_dict_int(d, "replaced", rc);
	cpe_tel_u64(d, "generation", cpe.gen);
	cpe_fw_tel(d);
}

static void
neigh_del(const struct ctl_family *f, const struct ctl_cmd *c,
	  struct rte_tel_data *d)
{
	struct list_ctx l = { .max = CTL_ALLOWED_MAX, .static_only = true };
	char err[RTE_TEL_MAX_STRING_LEN], a[INET6_ADDRSTRLEN];

	f->fmt(a, f->addr_len, &c->dst);
	if (f->neigh_del(&c->dst) != 0) {
		snprintf(err, sizeof(err), "no neighbour %s", a);
		/* The allowed values: this family's neighbours. */
		l.a = error_with_list(d, err);
		f->neigh_walk(&l);
		return;
	}
	cpe.st.ctl_neigh_changes++;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "deleted", a);
	cpe_tel_u64(d, "generation", cpe.gen);
	cpe_fw_tel(d);
}

/* A listing: {"count": N, "shown": M, KEY: [lines]}. */
static struct rte_tel_data *
list_start(struct rte_tel_data *d, const char *key)
{
	struct rte_tel_data *a = rte_tel_data_alloc();

	rte_tel_data_start_dict(d);
	if (a == NULL)
		return NULL;
	rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
	if (rte_tel_data_add_dict_container(d, key, a, 0) != 0) {
		rte_tel_data_free(a);
		return NULL;
	}
	return a;
}

static void
list_end(struct rte_tel_data *d, const struct list_ctx *l)
{
	rte_tel_data_add_dict_int(d, "count", (int)l->count);
	rte_tel_data_add_dict_int(d, "shown", (int)l->shown);
}

static void
routes(struct rte_tel_data *d)
{
	struct list_ctx l = { .max = CTL_LIST_MAX };
	unsigned int i;

	l.a = list_start(d, "routes");
	for (i = 0; i < RTE_DIM(families); i++)
		families[i]->route_walk(&l);
	list_end(d, &l);
}

static void
neighs(struct rte_tel_data *d)
{
	struct list_ctx l = { .max = CTL_LIST_MAX };
	unsigned int i;

	l.a = list_start(d, "neighs");
	for (i = 0; i < RTE_DIM(families); i++)
		families[i]->neigh_walk(&l);
	list_end(d, &l);
}

static void
stats(struct rte_tel_data *d)
{
	const struct cpe_stats *s = &cpe.st;
	uint64_t rx = 0, tx = 0, down = 0;
	uint16_t i;

	for (i = 0; i < cpe.nb_ports; i++) {
		rx += s->port[i].rx;
		tx += s->port[i].tx;
		down += s->port[i].down_drops;
	}
	rte_tel_data_start_dict(d);
	cpe_tel_u64(d, "rx", rx);
	cpe_tel_u64(d, "tx", tx);
	cpe_tel_u64(d, "fast_hits", s->fast_hits);
	cpe_tel_u64(d, "fast_hits6", s->v6.fast_hits);
	cpe_tel_u64(d, "fast_misses", s->fast_misses);
	cpe_tel_u64(d, "fast_stale", s->fast_stale);
	cpe_tel_u64(d, "flow_invalidated", s->flow_invalidated);
	cpe_tel_u64(d, "flow_down_invalidated", s->flow_down_invalidated);
	cpe_tel_u64(d, "flow_evictions", s->flow_evictions);
	cpe_tel_u64(d, "flows", cpe_flow_count());
	cpe_tel_u64(d, "slow_pkts", s->slow_pkts);
	cpe_tel_u64(d, "nat_sessions", cpe_nat_in_use());
	cpe_tel_u64(d, "nat_expired", s->nat_expired);
	cpe_tel_u64(d, "nat_full", s->nat_full);
	cpe_tel_u64(d, "nat_full_refused", s->nat_full_refused);
	cpe_evict_tel(d, "nat", s->nat_evicted);
	cpe_tel_u64(d, "arp_expired", s->arp_expired);
	cpe_tel_u64(d, "nd_expired", s->v6.nd_expired);
	cpe_tel_u64(d, "neighbours", cpe_neigh_count());
	cpe_tel_u64(d, "neighbours6", cpe_nd6_count());
	cpe_tel_u64(d, "drop_no_route", s->drop_no_route);
	cpe_tel_u64(d, "icmp_unreach", s->icmp_unreach);
	cpe_tel_u64(d, "ctl_cmds", s->ctl_cmds);
	cpe_tel_u64(d, "ctl_errors", s->ctl_errors);
	cpe_tel_u64(d, "ctl_route_changes",
				  s->ctl_route_changes);
	cpe_tel_u64(d, "ctl_neigh_changes",
				  s->ctl_neigh_changes);
	cpe_tel_u64(d, "ctl_fw_changes", s->ctl_fw_changes);
	cpe_tel_u64(d, "down_drops", down);
	cpe_tel_u64(d, "port_down_events", s->port_down_events);
	cpe_tel_u64(d, "port_up_events", s->port_up_events);
	cpe_tel_u64(d, "port_rmv_events", s->port_rmv_events);
	cpe_tel_u64(d, "port_reprobes", s->port_reprobes);
	cpe_tel_u64(d, "port_reprobe_errors", s->port_reprobe_errors);
	cpe_tel_u64(d, "port_reprobe_gave_up", s->port_reprobe_gave_up);
	cpe_tel_u64(d, "generation", cpe.gen);
	cpe_fw_tel(d);
}

/* What a DPDK port's interfaces could not send while it was away. */
static uint64_t
down_drops(uint16_t k)
{
	uint64_t n = 0;
	uint16_t i;

	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe.ports[i].phys == k)
			n += cpe.st.port[i].down_drops;
	return n;
}

/* "PORT lan|wan STATE reprobes N down_drops N", per DPDK port. */
static void
ports(struct rte_tel_data *d)
{
	struct list_ctx l = { .max = CTL_LIST_MAX };
	char buf[RTE_TEL_MAX_STRING_LEN];
	uint16_t k, i;

	l.a = list_start(d, "ports");
	for (k = 0; k < cpe.nb_phys; k++) {
		for (i = 0; i < cpe.nb_ports; i++)
			if (cpe.ports[i].phys == k)
				break;
		snprintf(buf, sizeof(buf), "%u %s %s reprobes %" PRIu64
			 " down_drops %" PRIu64, cpe.phys[k].id,
			 cpe.ports[i].wan ? "wan" : "lan", cpe_hotplug_state(k),
			 cpe_hotplug_reprobes(k), down_drops(k));
		l.count++;
		if (l.a != NULL && l.shown < l.max) {
			rte_tel_data_add_array_string(l.a, buf);
			l.shown++;
		}
	}
	list_end(d, &l);
}

/* --- the simulated adapter (tests) ------------------------------------ */

#define SO_NAMES_MAX		256

struct so_names {
	char *name[SO_NAMES_MAX];
	unsigned int n;
};

static int
so_name(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct so_names *s = arg;

	RTE_SET_USED(size);
	if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0' &&
	    s->n < SO_NAMES_MAX)
		s->name[s->n++] = strdup(info->dlpi_name);
	return 0;
}

/*
 * A function of the loaded net_ch39x PMD, or NULL. EAL opens plugins
 * without RTLD_GLOBAL: each loaded object is asked (after the walk, which
 * holds the loader's lock).
 */
static void *
pmd_sym(const char *fn)
{
	struct so_names s = { .n = 0 };
	void *sym = dlsym(RTLD_DEFAULT, fn), *h;
	unsigned int i;

	if (sym != NULL)
		return sym;
	dl_iterate_phdr(so_name, &s);
	for (i = 0; i < s.n; i++) {
		h = s.name[i] != NULL && sym == NULL ?
			dlopen(s.name[i], RTLD_NOW | RTLD_NOLOAD) : NULL;
		if (h != NULL) {
			/* EAL's own handle keeps the object loaded. */
			sym = dlsym(h, fn);
			dlclose(h);
		}
		free(s.name[i]);
	}
	return sym;
}

static void
sim(const struct ctl_cmd *c, struct rte_tel_data *d)
{
	static int (*unplug)(uint16_t);
	static int (*replug)(uint16_t, enum rte_pmd_ch39x_replug);
	char err[RTE_TEL_MAX_STRING_LEN], buf[8];
	struct rte_tel_data *a;
	const bool up = c->op == OP_SIM_REPLUG;
	uint16_t k;
	int rc;

	for (k = 0; k < cpe.nb_phys; k++)
		if (cpe.phys[k].id == c->port)
			break;
	if (k == cpe.nb_phys) {
		snprintf(err, sizeof(err), "port %u is not one of the router's",
			 c->port);
		a = error_with_list(d, err);
		for (k = 0; a != NULL && k < cpe.nb_phys; k++) {
			snprintf(buf, sizeof(buf), "%u", cpe.phys[k].id);
			rte_tel_data_add_array_string(a, buf);
		}
		return;
	}
	if (unplug == NULL)
		unplug = (int (*)(uint16_t))pmd_sym("rte_pmd_ch39x_sim_unplug");
	if (replug == NULL)
		replug = (int (*)(uint16_t, enum rte_pmd_ch39x_replug))
			pmd_sym("rte_pmd_ch39x_sim_replug");
	if (cpe.phys[k].gone)
		rc = -ENODEV;
	else if ((up ? (void *)replug : (void *)unplug) == NULL)
		rc = -ENOTSUP;
	else
		rc = up ? replug(c->port, RTE_PMD_CH39X_REPLUG_SAME) :
			unplug(c->port);
	if (rc != 0) {
		snprintf(err, sizeof(err), "port %u: %s failed: %s (%d)%s",
			 c->port, up ? "replug" : "unplug", strerror(-rc), rc,
			 rc == -ENOTSUP ? ": not a simulated net_ch39x adapter "
			 "(or no net_ch39x PMD loaded)" :
			 rc == -ENODEV ? ": the port is removed, being probed "
			 "again" :
			 rc == -EINVAL && up ? ": not unplugged" : "");
		cpe.st.ctl_errors++;
		reply_error(d, err, rc == -EINVAL && up ?
			    "/cpe/sim/unplug,PORT first" : NULL);
		return;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", c->port);
	rte_tel_data_add_dict_string(d, up ? "replugged" : "unplugged",
				     "simulated adapter");
}

static void
execute(const struct ctl_cmd *c, struct rte_tel_data *d)
{
	const struct ctl_family *f = c->dst.af == AF_INET6 ? &family6 :
				     &family4;

	cpe.st.ctl_cmds++;
	switch (c->op) {
	case OP_ROUTE_ADD:
		route_add(f, c, d);
		break;
	case OP_ROUTE_DEL:
		route_del(f, c, d);
		break;
	case OP_ROUTES:
		routes(d);
		break;
	case OP_NEIGH_ADD:
		neigh_add(f, c, d);
		break;
	case OP_NEIGH_DEL:
		neigh_del(f, c, d);
		break;
	case OP_NEIGHS:
		neighs(d);
		break;
	case OP_STATS:
		stats(d);
		break;
	case OP_PORTS:
		ports(d);
		break;
	case OP_SIM_UNPLUG:
	case OP_SIM_REPLUG:
		sim(c, d);
		break;
	case OP_CALL:
		c->fn(c->arg, d);
		break;
	}
}

void
cpe_ctl_poll(void)
{
	uint32_t posted = BOX_POSTED;

	if (__atomic_load_n(&bad_requests, __ATOMIC_RELAXED) != 0)
		cpe.st.ctl_errors += __atomic_exchange_n(&bad_requests, 0,
							  __ATOMIC_RELAXED);
	if (__atomic_load_n(&box.state, __ATOMIC_RELAXED) != BOX_POSTED ||
	    !__atomic_compare_exchange_n(&box.state, &posted, BOX_TAKEN,
					 false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	execute(&box.cmd, box.d);
	__atomic_store_n(&box.state, BOX_DONE, __ATOMIC_RELEASE);
}

/* --- telemetry callbacks (telemetry threads) --------------------------- */

static int
tel_route_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ctl_cmd c = { .op = OP_ROUTE_ADD };
	char buf[128], *f[2];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2 ||
	    parse_prefix(f[0], &c.dst, &c.plen) != 0 ||
	    parse_addr(f[1], &c.gw) != 0)
		return cpe_ctl_bad(d, cmd, params, route_add_allowed);
	/* "default": the default route of the gateway's family. */
	if (strcmp(f[0], "default") == 0)
		c.dst.af = c.gw.af;
	if (c.dst.af != c.gw.af)
		return cpe_ctl_bad(d, cmd, params, route_add_allowed);
	return submit(&c, d);
}

static int
tel_route_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ctl_cmd c = { .op = OP_ROUTE_DEL };
	char buf[128], *f[1];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    parse_prefix(f[0], &c.dst, &c.plen) != 0)
		return cpe_ctl_bad(d, cmd, params, route_del_allowed);
	return submit(&c, d);
}

static int
tel_neigh_add(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ctl_cmd c = { .op = OP_NEIGH_ADD };
	char buf[128], *f[2];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 2) != 2 ||
	    parse_addr(f[0], &c.dst) != 0 ||
	    rte_ether_unformat_addr(f[1], &c.mac) != 0 ||
	    !rte_is_valid_assigned_ether_addr(&c.mac))
		return cpe_ctl_bad(d, cmd, params, neigh_add_allowed);
	return submit(&c, d);
}

static int
tel_neigh_del(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ctl_cmd c = { .op = OP_NEIGH_DEL };
	char buf[128], *f[1];

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    parse_addr(f[0], &c.dst) != 0)
		return cpe_ctl_bad(d, cmd, params, neigh_del_allowed);
	return submit(&c, d);
}

/* The listings take no parameters. */
static int
tel_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ctl_cmd c = { .dst.af = AF_INET };

	if (params != NULL && params[0] != '\0')
		return cpe_ctl_bad(d, cmd, params, "no parameters");
	if (strcmp(cmd, "/cpe/routes") == 0)
		c.op = OP_ROUTES;
	else if (strcmp(cmd, "/cpe/neighs") == 0)
		c.op = OP_NEIGHS;
	else if (strcmp(cmd, "/cpe/ports") == 0)
		c.op = OP_PORTS;
	else
		c.op = OP_STATS;
	return submit(&c, d);
}

/* /cpe/sim/unplug,PORT and /cpe/sim/replug,PORT */
static int
tel_sim(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ctl_cmd c = { .dst.af = AF_INET };
	char buf[16], *f[1], *end;
	unsigned long id;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 || f[0][0] < '0' ||
	    f[0][0] > '9')
		return cpe_ctl_bad(d, cmd, params, sim_allowed);
	id = strtoul(f[0], &end, 10);
	if (*end != '\0' || id >= RTE_MAX_ETHPORTS)
		return cpe_ctl_bad(d, cmd, params, sim_allowed);
	c.port = (uint16_t)id;
	c.op = strcmp(cmd, "/cpe/sim/replug") == 0 ? OP_SIM_REPLUG :
		OP_SIM_UNPLUG;
	return submit(&c, d);
}

int
cpe_ctl_call(cpe_ctl_fn fn, const void *arg, size_t len,
	     struct rte_tel_data *d)
{
	struct ctl_cmd c = { .op = OP_CALL, .dst.af = AF_INET, .fn = fn };

	if (len > sizeof(c.arg))
		return -EINVAL;
	if (len)
		memcpy(c.arg, arg, len);
	return submit(&c, d);
}

void
cpe_ctl_error(struct rte_tel_data *d, const char *err, const char *allowed)
{
	cpe.st.ctl_errors++;
	reply_error(d, err, allowed);
}

int
cpe_ctl_register(const struct cpe_ctl_cmd *cmds, unsigned int n)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		rc = rte_telemetry_register_cmd(cmds[i].cmd, cmds[i].fn,
						cmds[i].help);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: cannot register the "
				"telemetry command %s: %s\n", cmds[i].cmd,
				strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int
cpe_ctl_init(void)
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
		{ "/cpe/stats", tel_list, "The router's main counters. No "
		  "parameters" },
		{ "/cpe/ports", tel_list, "The DPDK ports: up, down, "
		  "reprobing or failed. No parameters" },
		{ "/cpe/sim/unplug", tel_sim, "Takes a simulated net_ch39x "
		  "adapter off its USB bus. Parameters: PORT" },
		{ "/cpe/sim/replug", tel_sim, "Puts an unplugged simulated "
		  "net_ch39x adapter back. Parameters: PORT" },
	};
	int rc = cpe_ctl_register(cmds, RTE_DIM(cmds));

	if (rc == 0)
		rc = cpe_fw_ctl_init();
	if (rc == 0)
		rc = cpe_wan_ctl_init();
	if (rc == 0)
		rc = cpe_wan6_ctl_init();
	return rc;
}
