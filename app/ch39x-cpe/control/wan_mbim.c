/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * An MBIM modem as the WAN (wan_mbim.h). net_ch39x presents an MBIM
 * session as Ethernet with a fixed peer and answers ARP and neighbour
 * solicitations itself; the router knows the link is point to point:
 * the WAN interface's next hop is always that peer (neigh4, nd6: no
 * request ever asked), whatever the WAN's mode.
 *
 * With --wan PORT=mbim there is no DHCP: the PMD's dialer connects the
 * session (devargs apn=, connect=auto) and reads its IP configuration;
 * here, a few times a second on the forwarding lcore, the session's
 * state (rte_pmd_ch39x_mbim_info_get(), the same as the PMD's
 * /ch39x/mbim telemetry) becomes the WAN's:
 *
 *   connected: the IPv4 address, prefix and gateway (wan.c, as a DHCP
 *   lease's: NAT's address), the IPv6 /64 delegated to the pd LANs
 *   (wan6.c; RFC 7278: the operator routes the session's /64 to the
 *   modem, the WAN link needs only its link-local address); the default
 *   IPv6 route from the router advertisements in the session (wan6.c);
 *   not connected (the network ended the session, coverage lost, the
 *   modem gone): all of it withdrawn, as at the end of a PPPoE session.
 *
 * The link itself goes down and up with the session (the PMD's LSC;
 * hotplug.c stops sending out of it). The session's counters and the
 * PMD's MBIM xstats go into /cpe/wan and the exit JSON.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>

#include "pmd_sym.h"
#include "rte_pmd_ch39x.h"
#include "wan.h"
#include "wan6.h"
#include "wan_mbim.h"
#include "wan_state.h"

#define READS_HZ		10	/* the session's state read per s */
#define LIFE_INFINITE		UINT32_MAX

typedef int (*info_get_fn)(uint16_t, uint32_t,
			   struct rte_pmd_ch39x_mbim_info *);

struct cpe_wan_mbim {
	uint16_t port;			/* the WAN's DPDK port */
	uint32_t session;		/* its MBIM session */
	bool follow;			/* --wan PORT=mbim */
	info_get_fn info_get;
	struct rte_pmd_ch39x_mbim_info in;	/* the last read */
	int rc;				/* of the last read */
	uint64_t next;			/* TSC of the next read */
	bool up;			/* the session's addressing applied */
	uint32_t ip, gw;		/* applied, host order */
	uint8_t plen;
	struct cpe_ip6 pfx;		/* applied: the /64, on the pd LANs */
	uint64_t ups, downs, refused;
};

static struct cpe_wan_mbim *
mbim_of(const struct cpe_router *r)
{
	return r->wan != NULL ? r->wan->mbim : NULL;
}

static const char *
phase_name(int rc, uint16_t p)
{
	static const char *const names[] = {
		[RTE_PMD_CH39X_MBIM_IDLE] = "idle",
		[RTE_PMD_CH39X_MBIM_OPENING] = "opening",
		[RTE_PMD_CH39X_MBIM_DIALING] = "dialing",
		[RTE_PMD_CH39X_MBIM_CONNECTED] = "connected",
		[RTE_PMD_CH39X_MBIM_FAILED] = "failed",
		[RTE_PMD_CH39X_MBIM_GONE] = "gone",
	};

	if (rc != 0)
		return "unknown";
	return p < RTE_DIM(names) ? names[p] : "?";
}

/* The session, when the WAN's interface carries one: 0 untagged (or on
 * VLAN 4094, as cdc_mbim maps it), else the VLAN id's. */
static uint32_t
session_of(const struct cpe_iface *p)
{
	return p->vlan == 0 || p->vlan == 4094 ? 0 : p->vlan;
}

int
cpe_wan_mbim_setup(struct cpe_router *r)
{
	struct rte_pmd_ch39x_mbim_info in;
	struct cpe_wan_mbim *m;
	struct cpe_iface *p;
	info_get_fn fn;
	int16_t wan = r->dp->ifs.wan;
	int rc;

	if (wan < 0)
		return 0;
	p = &r->dp->ifs.ifs[wan];
	fn = (info_get_fn)cpe_pmd_sym("rte_pmd_ch39x_mbim_info_get");
	rc = fn != NULL ? fn(p->id, session_of(p), &in) : -ENOTSUP;
	if (rc != 0) {
		if (!r->o->ports[wan].mbim)
			return 0;	/* an Ethernet WAN */
		fprintf(stderr, "ch39x-cpe: --wan %u=mbim: port %u is not a "
			"net_ch39x MBIM port with session %u (%s); allowed: a "
			"port of proto=mbim (or sim=mbim), session 0 untagged "
			"or those of its sessions= as VLANs\n", p->id, p->id,
			session_of(p), strerror(-rc));
		return -EINVAL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	m->port = p->id;
	m->session = session_of(p);
	m->follow = r->o->ports[wan].mbim;
	m->info_get = fn;
	m->in = in;
	r->wan->mbim = m;
	memcpy(p->peer.addr_bytes, in.peer_mac, RTE_ETHER_ADDR_LEN);
	p->p2p = true;
	return 0;
}

void
cpe_wan_mbim_free(struct cpe_router *r)
{
	if (r->wan == NULL)
		return;
	free(r->wan->mbim);
	r->wan->mbim = NULL;
}

/* The session's IPv4 as the WAN's address (a change only). */
static void
apply4(struct cpe_router *r, struct cpe_wan_mbim *m)
{
	const struct rte_pmd_ch39x_mbim_ip *v = &m->in.ipv4;
	uint32_t ip, gw = 0;
	const char *err;

	memcpy(&ip, v->addr, 4);
	ip = rte_be_to_cpu_32(ip);
	if (v->has_gateway) {
		memcpy(&gw, v->gateway, 4);
		gw = rte_be_to_cpu_32(gw);
	}
	if (ip == m->ip && gw == m->gw && v->prefix_len == m->plen)
		return;
	m->ip = ip;
	m->gw = gw;
	m->plen = v->prefix_len;
	if (cpe_wan_set4(r, ip, v->prefix_len, gw, &err) != 0) {
		m->refused++;
		fprintf(stderr, "ch39x-cpe: MBIM session %u of port %u: IPv4 "
			"configuration refused: %s\n", m->session, m->port,
			err);
	}
}

/* The session's /64 onto the pd LANs (a change only). */
static void
apply6(struct cpe_router *r, struct cpe_wan_mbim *m)
{
	struct cpe_ip6 pfx = { .plen = 64 };

	memcpy(pfx.a, m->in.ipv6.addr, 8);
	if (m->pfx.plen == 64 && memcmp(m->pfx.a, pfx.a, 16) == 0)
		return;
	m->pfx = pfx;
	if (cpe_wan6_any_pd(r))
		cpe_wan6_delegate(r, &pfx, LIFE_INFINITE, LIFE_INFINITE);
}

/* The session ended: the addressing learnt from it goes. */
static void
withdraw(struct cpe_router *r, struct cpe_wan_mbim *m)
{
	cpe_wan_clear4(r);
	cpe_wan6_session_down(r);
	m->ip = m->gw = 0;
	m->plen = 0;
	memset(&m->pfx, 0, sizeof(m->pfx));
	m->up = false;
	m->downs++;
}

void
cpe_wan_mbim_poll(struct cpe_router *r)
{
	struct cpe_wan_mbim *m = mbim_of(r);
	bool conn;

	if (m == NULL || r->dp->env.now < m->next)
		return;
	m->next = r->dp->env.now + r->dp->env.hz / READS_HZ;
	m->rc = m->info_get(m->port, m->session, &m->in);
	if (!m->follow)
		return;
	conn = m->rc == 0 && m->in.phase == RTE_PMD_CH39X_MBIM_CONNECTED;
	if (!conn) {
		if (m->up)
			withdraw(r, m);
		return;
	}
	if (!m->up) {
		m->up = true;
		m->ups++;
	}
	if (m->in.ipv4.valid)
		apply4(r, m);
	if (m->in.ipv6.valid)
		apply6(r, m);
}

/* "ADDR/LEN" of a family of the configuration, "" when none. */
static void
ip_text(const struct rte_pmd_ch39x_mbim_ip *v, bool v6, char *b, size_t n)
{
	char a[INET6_ADDRSTRLEN];

	if (!v->valid || inet_ntop(v6 ? AF_INET6 : AF_INET, v->addr, a,
				   sizeof(a)) == NULL) {
		snprintf(b, n, "none");
		return;
	}
	snprintf(b, n, "%s/%u", a, v->prefix_len);
}

/* The DNS servers of both families, space separated. */
static void
dns_text(const struct rte_pmd_ch39x_mbim_info *in, char *b, size_t n)
{
	char a[INET6_ADDRSTRLEN];
	size_t used = 0;
	unsigned int i;

	b[0] = '\0';
	for (i = 0; i < in->ipv4.nb_dns && i < 4 && used < n; i++)
		if (inet_ntop(AF_INET, in->ipv4.dns[i], a, sizeof(a)) != NULL)
			used += (size_t)snprintf(b + used, n - used, "%s%s",
						 used ? " " : "", a);
	for (i = 0; i < in->ipv6.nb_dns && i < 4 && used < n; i++)
		if (inet_ntop(AF_INET6, in->ipv6.dns[i], a, sizeof(a)) != NULL)
			used += (size_t)snprintf(b + used, n - used, "%s%s",
						 used ? " " : "", a);
}

void
cpe_wan_mbim_tel(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_wan_mbim *m = mbim_of(r);
	char b[RTE_TEL_MAX_STRING_LEN];

	if (m == NULL)
		return;
	rte_tel_data_add_dict_string(d, "mbim_state",
				     phase_name(m->rc, m->in.phase));
	cpe_tel_u64(d, "mbim_session", m->session);
	ip_text(&m->in.ipv4, false, b, sizeof(b));
	rte_tel_data_add_dict_string(d, "mbim_ipv4", b);
	ip_text(&m->in.ipv6, true, b, sizeof(b));
	rte_tel_data_add_dict_string(d, "mbim_ipv6", b);
	dns_text(&m->in, b, sizeof(b));
	rte_tel_data_add_dict_string(d, "mbim_dns", b);
	cpe_tel_u64(d, "mbim_mtu", m->in.ipv4.mtu ? m->in.ipv4.mtu :
		    m->in.ipv6.mtu);
	cpe_tel_u64(d, "mbim_ups", m->ups);
	cpe_tel_u64(d, "mbim_downs", m->downs);
	cpe_tel_u64(d, "mbim_refused", m->refused);
	cpe_tel_u64(d, "mbim_dials", m->in.dials);
	cpe_tel_u64(d, "mbim_drops", m->in.drops);
}

void
cpe_wan_mbim_print(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan_mbim *m = mbim_of(r);
	char a4[64], a6[64];

	if (m == NULL)
		return;
	ip_text(&m->in.ipv4, false, a4, sizeof(a4));
	ip_text(&m->in.ipv6, true, a6, sizeof(a6));
	fprintf(f, "  mbim: port %u session %u %s ipv4 %s ipv6 %s ups %"
		PRIu64 " downs %" PRIu64 " dials %" PRIu64 " drops %" PRIu64
		"\n", m->port, m->session, phase_name(m->rc, m->in.phase), a4,
		a6, m->ups, m->downs, m->in.dials, m->in.drops);
}

/* The PMD's xstats of MBIM (by name) as JSON members. */
static void
xstats_json(uint16_t port, FILE *f)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	int n, i;
	bool first = true;

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n > 0) {
		names = calloc((size_t)n, sizeof(*names));
		vals = calloc((size_t)n, sizeof(*vals));
	}
	if (names == NULL || vals == NULL ||
	    rte_eth_xstats_get_names(port, names, (unsigned int)n) != n ||
	    rte_eth_xstats_get(port, vals, (unsigned int)n) != n)
		n = 0;
	for (i = 0; i < n; i++) {
		if (strstr(names[vals[i].id].name, "mbim") == NULL &&
		    strstr(names[vals[i].id].name, "ncm_bad") == NULL)
			continue;
		fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ",
			names[vals[i].id].name, vals[i].value);
		first = false;
	}
	free(names);
	free(vals);
}

/* A modem's string as a JSON string's content: printable ASCII only. */
static void
json_safe(char *s)
{
	for (; *s != '\0'; s++)
		if (*s < 0x20 || *s > 0x7e || *s == '"' || *s == '\\')
			*s = '?';
}

void
cpe_wan_mbim_json(struct cpe_router *r, FILE *f)
{
	const struct cpe_wan_mbim *m = mbim_of(r);
	struct rte_pmd_ch39x_mbim_info in;
	char a4[64], a6[64], dns[256];

	if (m == NULL)
		return;
	in = m->in;
	json_safe(in.apn);
	json_safe(in.provider);
	ip_text(&in.ipv4, false, a4, sizeof(a4));
	ip_text(&in.ipv6, true, a6, sizeof(a6));
	dns_text(&in, dns, sizeof(dns));
	fprintf(f, "  \"mbim\": {\"port\": %u, \"session\": %u, \"state\": "
		"\"%s\", \"apn\": \"%s\", \"provider\": \"%s\", \"rssi\": %u, "
		"\"ipv4\": \"%s\", \"ipv6\": \"%s\", \"dns\": \"%s\", "
		"\"follow\": %s, \"ups\": %" PRIu64 ", \"downs\": %" PRIu64
		", \"refused\": %" PRIu64 ", \"dials\": %" PRIu64
		", \"dial_failures\": %" PRIu64 ", \"drops\": %" PRIu64
		", \"xstats\": {", m->port, m->session,
		phase_name(m->rc, in.phase), in.apn, in.provider, in.rssi, a4,
		a6, dns, m->follow ? "true" : "false", m->ups, m->downs,
		m->refused, in.dials, in.dial_failures, in.drops);
	xstats_json(m->port, f);
	fprintf(f, "}},\n");
}
