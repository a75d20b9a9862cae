/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The checks across options, once all are in: what one option cannot
 * tell alone (a --tap of a port not given, the WAN's modes and their
 * TAPs, the MTUs of IPv6 and PPPoE ports, the delegated prefix's /64
 * numbers, the number of DPDK ports). Each error names the option and
 * what is allowed.
 */

#include <errno.h>
#include <string.h>

#include <stdio.h>

#include "opts_check.h"

#define PROG "ch39x-cpe"

/* --tap: a router port each, one TAP per port, distinct names. */
static bool
has_tap(const struct cpe_opts *o, const struct cpe_port_cfg *p)
{
	uint16_t i;

	for (i = 0; i < o->nb_taps; i++)
		if (o->taps[i].port == p->id && o->taps[i].vlan == p->vlan)
			return true;
	return false;
}

static int
check_taps(const struct cpe_opts *o)
{
	const struct cpe_tap_cfg *t;
	uint16_t i, j;

	for (i = 0; i < o->nb_taps; i++) {
		t = &o->taps[i];
		for (j = 0; j < o->nb_ports; j++)
			if (o->ports[j].id == t->port &&
			    o->ports[j].vlan == t->vlan)
				break;
		if (j == o->nb_ports) {
			fprintf(stderr, PROG ": --tap %u=%s: port %u is no "
				"router port; allowed values are the ports "
				"given to --lan or --wan\n", t->port, t->name,
				t->port);
			return -EINVAL;
		}
		for (j = 0; j < i; j++) {
			if ((o->taps[j].port == t->port &&
			     o->taps[j].vlan == t->vlan) ||
			    strcmp(o->taps[j].name, t->name) == 0) {
				fprintf(stderr, PROG ": --tap %u=%s: port or "
					"name already given to --tap; allowed "
					"values are one TAP per port, each "
					"with its own name\n", t->port,
					t->name);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* pd alone takes the next number not given explicitly, in port order. */
static void
pd_number(struct cpe_opts *o, struct cpe_port_cfg *p, uint32_t *next)
{
	uint16_t j;

	while (p->pd_id > UINT16_MAX) {
		for (j = 0; j < o->nb_ports; j++)
			if (o->ports[j].pd && o->ports[j].pd_id == *next)
				break;
		if (j == o->nb_ports)
			p->pd_id = *next;
		(*next)++;
	}
}

/* One pd port: its number once, its TAP and the WAN's, room for it. */
static int
check_pd_port(const struct cpe_opts *o, const struct cpe_port_cfg *p,
	      uint16_t i, int wan)
{
	const struct cpe_port_cfg *q;
	uint16_t j;

	for (j = 0; j < i; j++) {
		q = &o->ports[j];
		if (q->pd && q->pd_id == p->pd_id) {
			fprintf(stderr, PROG ": --lan %u=pd:%u: /64 number %u "
				"given to port %u already; allowed: a number "
				"per port, 0..65535\n", p->id, p->pd_id,
				p->pd_id, q->id);
			return -EINVAL;
		}
	}
	if (!has_tap(o, p)) {
		fprintf(stderr, PROG ": --lan %u=pd: the LAN's router "
			"advertisements come from its TAP; allowed: add --tap "
			"%u=IFNAME\n", p->id, p->id);
		return -EINVAL;
	}
	if (wan >= 0 && !o->ports[wan].mbim && !has_tap(o, &o->ports[wan])) {
		fprintf(stderr, PROG ": --lan %u=pd: the DHCPv6 client runs on "
			"the WAN's TAP; allowed: add --tap %u=IFNAME\n", p->id,
			o->ports[wan].id);
		return -EINVAL;
	}
	if (p->nb_ip6 == CPE_MAX_IP6) {
		fprintf(stderr, PROG ": --lan %u=pd: the delegated prefix is "
			"one of the port's %u IPv6 prefixes; allowed: at most "
			"%u static ones beside pd\n", p->id, CPE_MAX_IP6,
			CPE_MAX_IP6 - 1);
		return -EINVAL;
	}
	return 0;
}

/*
 * --lan PORT=pd: the numbers (pd alone takes the next one not given
 * explicitly, in the order of the ports), each once; a TAP on the LAN
 * (dnsmasq's advertisements) and on the WAN (the DHCPv6 client); room
 * for the delegated address beside the static ones.
 */
static int
check_pd(struct cpe_opts *o)
{
	uint32_t next = 0;
	uint16_t i;
	int wan = -1;

	for (i = 0; i < o->nb_ports; i++)
		if (o->ports[i].wan)
			wan = i;
	for (i = 0; i < o->nb_ports; i++) {
		if (!o->ports[i].pd)
			continue;
		pd_number(o, &o->ports[i], &next);
		if (check_pd_port(o, &o->ports[i], i, wan) != 0)
			return -EINVAL;
	}
	return 0;
}

/* --mtu PORT=N matched to the router ports. */
static int
check_port_mtus(struct cpe_opts *o)
{
	uint16_t i, j;
	bool found;

	for (i = 0; i < o->nb_port_mtu; i++) {
		found = false;
		for (j = 0; j < o->nb_ports; j++) {
			if (o->ports[j].id == o->port_mtu[i].id) {
				o->ports[j].mtu = o->port_mtu[i].mtu;
				found = true;
			}
		}
		if (!found) {
			fprintf(stderr, PROG ": --mtu %u=%u: port %u is no "
				"router port; allowed values are ports given "
				"to --lan or --wan\n", o->port_mtu[i].id,
				o->port_mtu[i].mtu, o->port_mtu[i].id);
			return -EINVAL;
		}
	}
	return 0;
}

/* One port's MTU against its IPv6 and PPPoE, its WAN mode's TAP. */
static int
check_port(const struct cpe_opts *o, const struct cpe_port_cfg *p)
{
	uint32_t mtu = p->mtu ? p->mtu : o->mtu;

	if ((p->nb_ip6 || p->pd) && mtu < 1280) {
		fprintf(stderr, PROG ": --mtu %u: port %u has IPv6 prefixes; "
			"allowed values are 1280..9198 for an IPv6 port (RFC "
			"8200 5)\n", mtu, p->id);
		return -EINVAL;
	}
	if ((p->dhcp || p->pppoe) && !has_tap(o, p)) {
		fprintf(stderr, p->dhcp ? PROG ": --wan %u=dhcp: the DHCP "
			"client runs on the port's TAP; allowed: add --tap "
			"%u=IFNAME\n" : PROG ": --wan %u=pppoe: pppd runs on "
			"the port's TAP; allowed: add --tap %u=IFNAME\n",
			p->id, p->id);
		return -EINVAL;
	}
	if (p->pppoe && mtu < 68 + CPE_PPPOE_OVERHEAD) {
		fprintf(stderr, PROG ": --mtu %u: port %u carries PPPoE (8 "
			"bytes of the link's MTU); allowed values are 76..9198 "
			"for it\n", mtu, p->id);
		return -EINVAL;
	}
	if (p->wan && p->ip == 0 && !p->dhcp && !p->pppoe && !p->mbim &&
	    o->nat) {
		fprintf(stderr, PROG ": --wan: NAPT needs an IPv4 address on "
			"the WAN port; allowed values are an IPv4 --wan "
			"PORT=ADDR/LEN, --wan PORT=dhcp, --wan PORT=pppoe, "
			"--wan PORT=mbim, or --no-nat\n");
		return -EINVAL;
	}
	return 0;
}

/* The interfaces may share DPDK ports; the number of ports is bounded. */
static int
check_phys(const struct cpe_opts *o)
{
	uint16_t i, j, n = 0;

	for (i = 0; i < o->nb_ports; i++) {
		for (j = 0; j < i; j++)
			if (o->ports[j].id == o->ports[i].id)
				break;
		if (j == i)
			n++;
	}
	if (n > CPE_MAX_PHYS) {
		fprintf(stderr, PROG ": --lan/--wan: %u DPDK ports; allowed "
			"values are interfaces on at most %u DPDK ports (%u "
			"interfaces in all, PORT.VLAN included)\n", n,
			CPE_MAX_PHYS, CPE_MAX_PORTS);
		return -EINVAL;
	}
	return 0;
}

/* No router port is the benchmark generator's. */
static int
check_gen(const struct cpe_opts *o)
{
	uint16_t i;

	for (i = 0; o->gen.on && i < o->nb_ports; i++) {
		if (o->ports[i].id == o->gen.tx_port ||
		    o->ports[i].id == o->gen.rx_port) {
			fprintf(stderr, PROG ": --bench-gen: port %u is a "
				"router port; allowed values are ports not "
				"given to --lan or --wan\n", o->ports[i].id);
			return -EINVAL;
		}
	}
	return 0;
}

/* A WAN and a LAN at least. */
static int
check_roles(const struct cpe_opts *o)
{
	uint16_t i, lan = 0, wan = 0;

	for (i = 0; i < o->nb_ports; i++) {
		if (o->ports[i].wan)
			wan++;
		else
			lan++;
	}
	if (lan == 0 || wan == 0) {
		fprintf(stderr, PROG ": %s: the router needs one --wan "
			"PORT=ADDR/LEN and at least one --lan PORT=ADDR/LEN "
			"(got %u WAN, %u LAN)\n", lan == 0 ? "--lan" : "--wan",
			wan, lan);
		return -EINVAL;
	}
	return 0;
}

int
cpe_opts_check(struct cpe_opts *o)
{
	char msg[512];
	uint16_t i;

	if (cpe_qos_cfg_check(&o->qos, msg, sizeof(msg)) != 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		return -EINVAL;
	}
	if (check_gen(o) != 0 || check_port_mtus(o) != 0)
		return -EINVAL;
	for (i = 0; i < o->nb_ports; i++)
		if (check_port(o, &o->ports[i]) != 0)
			return -EINVAL;
	if (check_taps(o) != 0 || check_pd(o) != 0)
		return -EINVAL;
	if (check_roles(o) != 0)
		return -EINVAL;
	return check_phys(o);
}
