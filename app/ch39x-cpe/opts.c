/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Options of ch39x-cpe, after EAL's "--", and the config file (--config):
 * one option a line, its name without the dashes, then its value, so that
 * both take exactly the same keys and give the same errors. Parsed before
 * EAL starts, so that --help and bad values need no ports; what depends on
 * the ports (whether a port exists, its MTU range) is checked in ports.c.
 * Every error names the option and the values it allows.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include "cpe.h"

#define PROG "ch39x-cpe"

enum arg { NONE, REQ };

struct opt_def {
	const char *name;
	enum arg arg;
};

static const struct opt_def opt_defs[] = {
	{ "lan", REQ }, { "wan", REQ }, { "route", REQ }, { "neigh", REQ },
	{ "mtu", REQ }, { "no-flow-cache", NONE }, { "flow-entries", REQ },
	{ "flow-timeout", REQ }, { "no-nat", NONE }, { "nat-ports", REQ },
	{ "nat-sessions", REQ }, { "tcp-timeout", REQ },
	{ "tcp-trans-timeout", REQ }, { "tcp-close-timeout", REQ },
	{ "udp-timeout", REQ }, { "icmp-timeout", REQ },
	{ "arp-timeout", REQ }, { "stats-interval", REQ },
	{ "duration", REQ }, { "json", NONE },
	{ "no-tx-csum", NONE }, { "idle", REQ }, { "idle-spin", REQ },
	{ "no-vlan-offload", NONE },
	{ "mbuf-size", REQ }, { "bench-gen", REQ }, { "config", REQ },
	{ "vdev", REQ }, { "help", NONE },
	{ "tap", REQ },
	{ "firewall", REQ }, { "fw-open", REQ }, { "fw-pinhole", REQ },
	{ "fw-states", REQ }, { "fw-forward", REQ }, { "frag-max", REQ },
	{ "synflood-protect", REQ }, { "synflood-rate", REQ },
	{ "synflood-burst", REQ }, { "synflood-budget", REQ },
	{ "tcp-syn-timeout", REQ }, { "udp-unreplied-timeout", REQ },
	{ "frag-timeout", REQ },
	{ "wan-rate", REQ }, { "down-rate", REQ }, { "wan-overhead", REQ },
	{ "qos-classes", REQ }, { "qos-queue", REQ }, { "qos-map", REQ },
	{ "qos-pcp-map", REQ },
	{ "qos-fq", REQ }, { "qos-target", REQ }, { "qos-interval", REQ },
	{ "qos-ecn", REQ }, { "qos-flows", REQ }, { "qos-quantum", REQ },
	{ "qos-catchup", REQ },
};

void
cpe_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [EAL options] -- [options]\n"
"\n"
"A dual-stack CPE router on DPDK ports: one WAN interface with NAPT for\n"
"IPv4, one or more LAN interfaces, 802.1Q sub-interfaces, a flow-cache\n"
"fast path in front of routing (LPM), ARP/ND and NAT; IPv6 routed (no\n"
"NAT) when interfaces have prefixes; an optional WAN shaper with\n"
"priority classes, a Linux control plane on TAPs, idle modes that follow\n"
"the load, and run-time routes over DPDK telemetry.\n"
"Example, two simulated CH398s whose cables end at Linux TAP interfaces:\n"
"  %s --no-huge --no-pci -m 512 -d /path/librte_net_ch39x.so \\\n"
"    --vdev net_ch39x0,wire=tap:lan0 --vdev net_ch39x1,wire=tap:wan0 -- \\\n"
"    --lan 0=192.168.1.1/24 --wan 1=203.0.113.2/24 \\\n"
"    --route default,203.0.113.1\n"
"\n"
"Options (also the keys of a --config file, without the dashes):\n"
"  --lan PORT=ADDR/LEN   a LAN port (DPDK port id) and its IPv4 address\n"
"                        or IPv6 prefix (e.g. 0=fd00:1::1/64); repeat for\n"
"                        more LAN ports, or with the same PORT for more\n"
"                        addresses (one IPv4, up to 4 IPv6 a port)\n"
"  --lan PORT=pd[:ID]    the port's IPv6 prefix: /64 number ID (default:\n"
"                        0, 1, ... in the order given) of the prefix the\n"
"                        WAN's DHCPv6 client is delegated, router address\n"
"                        ::1 (/cpe/wan/prefix6; needs the port's --tap)\n"
"  --wan PORT=ADDR/LEN   the WAN port; NAPT translates LAN sources to ADDR;\n"
"                        repeatable as --lan (IPv6 is routed, not NATed)\n"
"  --wan PORT=dhcp       its IPv4 address from a DHCP lease at run time: a\n"
"                        DHCP client on the port's --tap reports it over\n"
"                        telemetry (/cpe/wan/set; see the CPE guide)\n"
"  --wan PORT=pppoe      a PPPoE session: pppd on the port's --tap dials,\n"
"                        its ip-up hook hands the session and addresses\n"
"                        over (/cpe/wan/pppoe); IP MTU the link's - 8\n"
"                        PORT may be PORT.VLAN (VLAN 1..4094): an 802.1Q\n"
"                        sub-interface, e.g. --lan 0.10=192.168.10.1/24;\n"
"                        plain PORT is the port's untagged interface. %u\n"
"                        interfaces on at most %u DPDK ports\n"
"  --route PREFIX/LEN,GW a static route (PREFIX/LEN may be 'default'); GW\n"
"                        must be on a connected subnet. Connected routes\n"
"                        come from the port addresses. IPv6 too, e.g.\n"
"                        ::/0,2001:db8:1::1 ('default' is IPv4's)\n"
"  --neigh ADDR,MAC      a static ARP entry (never aged)\n"
"                        Routes and neighbours change at run time through\n"
"                        the telemetry commands /cpe/route/add, /cpe/routes,\n"
"                        /cpe/neigh/add, ... (dpdk-telemetry.py)\n"
"  --mtu N               MTU of every port, 68..9198 (default %u); the\n"
"                        port must accept it\n"
"  --mtu PORT=N          the MTU of one router port (repeatable)\n"
"  --no-flow-cache       slow path only: every packet is routed and NATed\n"
"  --flow-entries N      flow cache size, 1024..4194304 (default %u)\n"
"  --flow-timeout S      idle seconds before a cached flow ages out,\n"
"                        1..3600 (default %u)\n"
"  --no-nat              route LAN <-> WAN without address translation\n"
"  --nat-ports LO-HI     external ports (and ICMP ids) NAPT allocates,\n"
"                        1..65535 (default 1024-65535)\n"
"  --nat-sessions N      NAT sessions, 1024..1048576 (default %u)\n"
"  --tcp-timeout S       established TCP session idle timeout (default %u)\n"
"  --tcp-trans-timeout S TCP handshake/closing timeout (default %u)\n"
"  --tcp-close-timeout S after a RST or both FINs (default %u)\n"
"  --tcp-syn-timeout S   a handshake not completed (SYN sent, SYN+ACK\n"
"                        seen) (default %u)\n"
"  --udp-timeout S       UDP session idle timeout (default %u)\n"
"  --udp-unreplied-timeout S\n"
"                        UDP never answered (default %u)\n"
"  --icmp-timeout S      ICMP echo session idle timeout (default %u)\n"
"  --firewall on|off     the stateful firewall: LAN -> WAN accepted,\n"
"                        WAN -> LAN and WAN -> router only replies,\n"
"                        rules and essential ICMP (default on)\n"
"  --fw-open PROTO/PORT[-PORT]\n"
"                        open a router port on the WAN, PROTO tcp or udp,\n"
"                        e.g. tcp/22 (repeatable, 64 rules in all)\n"
"  --fw-pinhole PROTO/[IPV6[/PLEN]]:PORT[-PORT]\n"
"                        let the WAN open connections to a LAN host's port,\n"
"                        e.g. tcp/[2001:db8:1::10]:443 (IPv4 ADDR:PORT\n"
"                        with --no-nat)\n"
"  --fw-states N         tracked connections, 1024..4194304 (default %u)\n"
"  --synflood-protect on|off\n"
"                        limit new connections from the WAN (forwarded\n"
"                        ports, open router ports, pinholes) per second;\n"
"                        those over it are dropped before any state is\n"
"                        made (default on)\n"
"  --synflood-rate N     new connections a second, per protocol, 1..1000000\n"
"                        (default %u, as OpenWrt fw4)\n"
"  --synflood-burst N    ... in one burst, 1..1000000 (default %u)\n"
"  --synflood-budget N   TCP SYNs from the WAN a second the slow path looks\n"
"                        at, 0 (all)..10000000; beyond, dropped on arrival\n"
"                        (default %u)\n"
"  --fw-forward PROTO/PORT[-PORT]=IPV4[:PORT]\n"
"                        forward a WAN port (range) to a LAN host (DNAT,\n"
"                        with hairpin NAT), e.g. tcp/8080=192.168.1.10:80\n"
"                        (repeatable, 32 in all)\n"
"  --frag-max N          fragmented datagrams followed at once, 0 (off:\n"
"                        fragments dropped where NAT or the firewall\n"
"                        needs ports)..1048576 (default 1024)\n"
"  --frag-timeout S      a datagram's fragments followed for S seconds\n"
"                        after the last one, 1..120 (default 30)\n"
"  --arp-timeout S       ARP (and IPv6 neighbour) entry lifetime without\n"
"                        confirmation; halfway the entry is probed\n"
"                        (default %u); timeouts are\n"
"                        1..86400 seconds\n"
"  --stats-interval S    print statistics every S seconds, 0 (only at\n"
"                        exit)..3600 (default 0)\n"
"  --duration S          run S seconds then exit, 0 (until SIGINT or\n"
"                        SIGTERM)..86400 (default 0)\n"
"  --json                exit statistics as JSON on stdout\n"
"  --tap PORT=IFNAME     the control plane of router port PORT (or\n"
"                        PORT.VLAN, as --lan/--wan): a Linux\n"
"                        TAP IFNAME (1..15 characters) with the port's MAC,\n"
"                        MTU and address; traffic for the router that it\n"
"                        does not answer itself (DHCP, DNS, SSH, ...) goes\n"
"                        there, and what Linux sends there goes out of the\n"
"                        port; repeat per port (default: none, dropped)\n"

"  --idle MODE           what the forwarding loop does without packets:\n"
"                        poll (busy polling: one core at 100 %% always),\n"
"                        adaptive (after --idle-spin without a packet,\n"
"                        sleeps growing to 1 ms), interrupt (after\n"
"                        --idle-spin, waits for the ports' Rx interrupts;\n"
"                        ports without them are polled every 1 ms at most)\n"
"                        (default %s)\n"
"  --idle-spin US        microseconds without a packet before adaptive or\n"
"                        interrupt sleeps, 0..100000 (default %u)\n"
"  --no-tx-csum          compute the IPv4 header checksum of the packets\n"
"                        the router makes in software even where the port\n"
"                        offers the offload\n"
"  --no-vlan-offload     add and remove 802.1Q tags in the router even\n"
"                        where the port offers VLAN insert/strip offloads\n"
"  --mbuf-size N         mbuf data room, 1024..%u (default %u); larger\n"
"                        frames are chained (scatter)\n"
"  --bench-gen TX,RX[,FLOWS[,SIZE]]\n"
"                        benchmark: a second lcore sends FLOWS (1..65536,\n"
"                        default 256) UDP flows of SIZE-byte frames\n"
"                        (60..1514, default 64) on port TX towards the\n"
"                        first LAN port and counts what arrives on port RX\n"
"  --wan-rate RATE       shape the WAN uplink to RATE bits/s (64k..10G,\n"
"                        suffixes k, M, G, e.g. 20M) and schedule its\n"
"                        packets by class, strict priority; default: off\n"
"  --down-rate RATE      shape the downlink, what came in on the WAN and\n"
"                        leaves by a LAN port, to RATE (as --wan-rate; a\n"
"                        little below the line's rate) with the same\n"
"                        scheduler and --qos-* options; default: off\n"
"  --wan-overhead B      bytes the shaper adds to each frame, 0..256\n"
"                        (default 24: preamble, FCS, inter-frame gap)\n"
"  --qos-catchup T       the most of a stall of the forwarding loop, with\n"
"                        packets waiting, that the shaper makes up after\n"
"                        it in one burst, 0..1s (default 20ms)\n"
"  --qos-classes N       classes, 1..8 (default 4), 0 the highest\n"
"  --qos-fq on|off       in each class, flow queues with CoDel (FQ-CoDel,\n"
"                        RFC 8290; default on) or one FIFO (off)\n"
"  --qos-queue N         packets held per class, 1..16384 (default 1024\n"
"                        with --qos-fq on, 64 off); beyond it the flow\n"
"                        holding most bytes (FIFO: the newcomer) is dropped\n"
"  --qos-target T        CoDel's target delay, 100us..1s (default 5ms)\n"
"  --qos-interval T      CoDel's interval, 1ms..10s (default 100ms)\n"
"  --qos-ecn on|off      CoDel marks ECN-capable packets CE instead of\n"
"                        dropping them (default on)\n"
"  --qos-flows N         flow queues per class, 1..65536 (default 1024)\n"
"  --qos-quantum B       bytes per flow and round, 64..65535 (default 1514)\n"
"  --qos-map DSCP=CLASS[,...]\n"
"                        DSCP 0..63 or be, le, cs0..cs7, af11..af43, va,\n"
"                        ef; default: cs6, cs7, ef, va 0; cs3..cs5,\n"
"                        af3x, af4x 1; le, cs1 3; the rest 2 (classes\n"
"                        beyond --qos-classes merge into the last)\n"
"  --qos-pcp-map PCP=CLASS[,...]\n"
"                        802.1p PCP 0..7 of VLAN-tagged frames (default\n"
"                        5..7 0, 3..4 1, 2 2, 1 3; PCP 0: by DSCP unless\n"
"                        mapped here)\n"
"  --config FILE         read options from FILE: one a line, 'KEY VALUE',\n"
"                        '#' starts a comment; 'vdev DEVARGS' lines are\n"
"                        handed to EAL as --vdev\n"
"  --help                this text\n",
		prog, prog, CPE_MAX_PORTS, CPE_MAX_PHYS,
		CPE_DEF_MTU, CPE_DEF_FLOWS, CPE_DEF_FLOW_TIMEOUT,
		CPE_DEF_NAT_SESSIONS, CPE_DEF_TCP_TIMEOUT, CPE_DEF_TCP_TRANS,
		CPE_DEF_TCP_CLOSE, CPE_DEF_TCP_SYN, CPE_DEF_UDP_TIMEOUT,
		CPE_DEF_UDP_UNREPLIED, CPE_DEF_ICMP_TIMEOUT,
		CPE_FW_DEF_STATES, CPE_GUARD_DEF_RATE, CPE_GUARD_DEF_BURST,
		CPE_GUARD_DEF_BUDGET, CPE_DEF_ARP_TIMEOUT,
		cpe_idle_mode_name(CPE_DEF_IDLE),
		CPE_DEF_IDLE_SPIN_US,
		UINT16_MAX - RTE_PKTMBUF_HEADROOM,
		RTE_MBUF_DEFAULT_DATAROOM);
}

/* Where a value came from, for the error messages. */
static char where[512];

static int
bad(const char *name, const char *val, const char *allowed)
{
	fprintf(stderr, PROG ": %s--%s%s%s: allowed values are %s\n", where,
		name, val ? " " : "", val ? val : "", allowed);
	return -EINVAL;
}

int
cpe_parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}

static int
parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

static int
parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint64_t x;

	if (parse_u64(s, lo, hi, &x) != 0)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static int
parse_secs(const char *s, double lo, double hi, double *v)
{
	char *end;

	if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

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
	if (cpe_parse_ip(buf, ip) != 0 || parse_u32(slash + 1, 0, 32, &len))
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
	    parse_u32(slash + 1, 0, 128, &len) != 0)
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

/*
 * The port part of --lan/--wan ("PORT", a DPDK port id) into key;
 * same_port() tells which configured port it names. Kept apart from the
 * address part so that other port forms can be added here alone.
 */
static int
parse_port_part(const char *s, struct cpe_port_cfg *key)
{
	return cpe_parse_port_vlan(s, &key->id, &key->vlan);
}

static bool
same_port(const struct cpe_port_cfg *a, const struct cpe_port_cfg *b)
{
	return a->id == b->id && a->vlan == b->vlan;
}

/*
 * --lan/--wan PORT=ADDR/LEN: an IPv4 address (one per port) or an IPv6
 * prefix (up to CPE_MAX_IP6); the same port given again gets the next
 * address (one router port).
 */
static int
opt_port(struct cpe_opts *o, const char *name, const char *val, bool wan)
{
	struct cpe_port_cfg key, *p = NULL;
	struct cpe_ip6 a6;
	bool dhcp, pppoe, pd;
	uint32_t ip, pd_id = UINT16_MAX + 1u;
	uint8_t plen;
	char buf[80], *eq;
	uint16_t i;
	const char *allowed = wan ?
		"PORT=ADDR/LEN, PORT=dhcp or PORT=pppoe, PORT a DPDK port id "
		"0..1023 or "
		"PORT.VLAN with an 802.1Q VLAN id 1..4094, ADDR/LEN a "
		"unicast IPv4 address with a prefix length 1..30 or a global "
		"IPv6 address with a prefix length 1..128, e.g. "
		"1=203.0.113.2/24, 1.100=203.0.113.2/24, 1=dhcp, 1.7=pppoe or "
		"1=2001:db8:1::2/64" :
		"PORT=ADDR/LEN or PORT=pd[:ID], PORT a DPDK port id 0..1023 "
		"or PORT.VLAN with an 802.1Q VLAN id 1..4094, ADDR/LEN a "
		"unicast IPv4 address with a prefix length 1..30 or a global "
		"IPv6 address with a prefix length 1..128, pd a /64 of the "
		"delegated IPv6 prefix (ID its number 0..65535), e.g. "
		"0=192.168.1.1/24, 0.10=192.168.10.1/24, 0=fd00:1::1/64 or "
		"0=pd:1";

	if (strlen(val) >= sizeof(buf))
		return bad(name, val, allowed);
	strcpy(buf, val);
	eq = strchr(buf, '=');
	if (eq == NULL)
		return bad(name, val, allowed);
	*eq = '\0';
	memset(&key, 0, sizeof(key));
	if (parse_port_part(buf, &key) != 0)
		return bad(name, val, allowed);
	dhcp = wan && strcmp(eq + 1, "dhcp") == 0;
	pppoe = wan && strcmp(eq + 1, "pppoe") == 0;
	pd = !wan && strncmp(eq + 1, "pd", 2) == 0;
	if (dhcp || pppoe) {
		/* The address comes from a lease at run time (wan.c). */
	} else if (pd) {
		/* pd: the next free number (check_pd()); pd:ID that one. */
		if (eq[3] != '\0' && (eq[3] != ':' ||
				      parse_u32(eq + 4, 0, UINT16_MAX, &pd_id)))
			return bad(name, val, allowed);
	} else if (strchr(eq + 1, ':') != NULL) {
		if (parse_prefix6(eq + 1, &a6) != 0 || a6.plen < 1 ||
		    !ip6_global_unicast(a6.a))
			return bad(name, val, allowed);
	} else if (parse_prefix(eq + 1, false, &ip, &plen) != 0 ||
		   plen < 1 || plen > 30 || ip == 0 || (ip >> 28) >= 14 ||
		   (ip >> 24) == 127) {
		return bad(name, val, allowed);
	}
	for (i = 0; i < o->nb_ports; i++) {
		if (same_port(&o->ports[i], &key)) {
			if (o->ports[i].wan != wan)
				return bad(name, val, wan ?
					   "a port not already given to --lan" :
					   "a port not already given to --wan");
			p = &o->ports[i];
		} else if (wan && o->ports[i].wan) {
			return bad(name, val, "one --wan port only");
		}
	}
	if (p == NULL) {
		if (o->nb_ports == CPE_MAX_PORTS)
			return bad(name, val,
				   "at most 16 interfaces (--lan and --wan)");
		p = &o->ports[o->nb_ports++];
		*p = key;
		p->wan = wan;
	}
	if (dhcp || pppoe) {
		if (p->ip != 0 || p->dhcp || p->pppoe)
			return bad(name, val, "one IPv4 address a port: "
				   "ADDR/LEN, dhcp or pppoe, not two");
		p->dhcp = dhcp;
		p->pppoe = pppoe;
	} else if (pd) {
		if (p->pd)
			return bad(name, val, "one pd a port");
		p->pd = true;
		p->pd_id = pd_id;
	} else if (strchr(eq + 1, ':') != NULL) {
		if (p->nb_ip6 == CPE_MAX_IP6)
			return bad(name, val, "at most 4 IPv6 prefixes a port");
		p->ip6[p->nb_ip6++] = a6;
	} else {
		if (p->ip != 0 || p->dhcp || p->pppoe)
			return bad(name, val, "one IPv4 address a port (repeat "
				   "the port only with IPv6 prefixes)");
		p->ip = ip;
		p->plen = plen;
	}
	return 0;
}

/*
 * Split "FIRST,SECOND" into buf (FIRST, NUL-terminated) and *second;
 * returns 0, or the error naming what the option allows.
 */
static int
split_pair(const char *name, const char *val, const char *allowed,
	   char *buf, size_t cap, const char **second)
{
	char *comma;

	if (strlen(val) >= cap)
		return bad(name, val, allowed);
	strcpy(buf, val);
	comma = strchr(buf, ',');
	if (comma == NULL)
		return bad(name, val, allowed);
	*comma = '\0';
	*second = comma + 1;
	return 0;
}

/* An IPv6 route: PREFIX/LEN,GATEWAY, ::/0 the default. */
static int
opt_route6(struct cpe_opts *o, const char *name, const char *val,
	   const char *pfx, const char *gw)
{
	const char *allowed = "PREFIX/LEN,GATEWAY with an IPv6 prefix "
		"(LEN 0..128, ::/0 the default route) and a global unicast "
		"IPv6 gateway or a link-local one (the WAN's router), e.g. "
		"::/0,2001:db8:1::1 or ::/0,fe80::1";
	struct cpe_route6_cfg *r;
	uint8_t i, bits;

	if (o->nb_routes6 == CPE_MAX_ROUTES)
		return bad(name, val, "at most 256 IPv6 routes");
	r = &o->routes6[o->nb_routes6];
	if (parse_prefix6(pfx, &r->prefix) != 0 ||
	    inet_pton(AF_INET6, gw, r->gw) != 1 ||
	    (!ip6_global_unicast(r->gw) &&
	     !(r->gw[0] == 0xfe && (r->gw[1] & 0xc0) == 0x80)))
		return bad(name, val, allowed);
	for (i = 0; i < 16; i++) {
		bits = r->prefix.plen > i * 8 ?
			(uint8_t)RTE_MIN(8, r->prefix.plen - i * 8) : 0;
		if (r->prefix.a[i] & (uint8_t)~(0xff00 >> bits))
			return bad(name, val, "a prefix without host bits set "
				   "(PREFIX/LEN,GATEWAY)");
	}
	o->nb_routes6++;
	return 0;
}

static int
opt_route(struct cpe_opts *o, const char *name, const char *val)
{
	const char *allowed = "PREFIX/LEN,GATEWAY or default,GATEWAY, "
		"e.g. default,203.0.113.1 or 10.0.0.0/8,192.168.1.254, or "
		"an IPv6 PREFIX/LEN,GATEWAY, e.g. ::/0,2001:db8:1::1";
	struct cpe_route_cfg *r;
	const char *gw;
	char buf[128];

	if (split_pair(name, val, allowed, buf, sizeof(buf), &gw) != 0)
		return -EINVAL;
	if (strchr(buf, ':') != NULL || strchr(gw, ':') != NULL)
		return opt_route6(o, name, val, buf, gw);
	if (o->nb_routes == CPE_MAX_ROUTES)
		return bad(name, val, "at most 256 routes");
	r = &o->routes[o->nb_routes];
	if (parse_prefix(buf, true, &r->prefix, &r->plen) != 0 ||
	    cpe_parse_ip(gw, &r->gw) != 0 || r->gw == 0)
		return bad(name, val, allowed);
	if (r->plen < 32 &&
	    (r->prefix & (r->plen ? ~0u >> r->plen : ~0u)) != 0)
		return bad(name, val, "a prefix without host bits set "
			   "(PREFIX/LEN,GATEWAY)");
	o->nb_routes++;
	return 0;
}

static int
opt_neigh(struct cpe_opts *o, const char *name, const char *val)
{
	const char *allowed = "ADDR,XX:XX:XX:XX:XX:XX (a unicast MAC)";
	struct cpe_neigh_cfg *n;
	const char *mac;
	char buf[80];

	if (split_pair(name, val, allowed, buf, sizeof(buf), &mac) != 0)
		return -EINVAL;
	if (o->nb_neigh == CPE_MAX_NEIGH_STATIC)
		return bad(name, val, "at most 64 static neighbours");
	n = &o->neigh[o->nb_neigh];
	if (cpe_parse_ip(buf, &n->ip) != 0 ||
	    rte_ether_unformat_addr(mac, &n->mac) != 0 ||
	    !rte_is_valid_assigned_ether_addr(&n->mac))
		return bad(name, val, allowed);
	o->nb_neigh++;
	return 0;
}

static int
opt_gen(struct cpe_opts *o, const char *name, const char *val)
{
	const char *allowed = "TX,RX[,FLOWS[,SIZE]]: port ids 0..1023, "
		"FLOWS 1..65536, SIZE 60..1514";
	char buf[80], *f[4], *save = NULL, *t;
	uint32_t v[4] = { 0, 0, 256, 64 }, n = 0;

	if (strlen(val) >= sizeof(buf))
		return bad(name, val, allowed);
	strcpy(buf, val);
	for (t = strtok_r(buf, ",", &save); t != NULL && n < 4;
	     t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n < 2 || t != NULL ||
	    parse_u32(f[0], 0, 1023, &v[0]) || parse_u32(f[1], 0, 1023, &v[1]) ||
	    (n > 2 && parse_u32(f[2], 1, 65536, &v[2])) ||
	    (n > 3 && parse_u32(f[3], 60, 1514, &v[3])) || v[0] == v[1])
		return bad(name, val, allowed);
	o->gen.on = true;
	o->gen.tx_port = (uint16_t)v[0];
	o->gen.rx_port = (uint16_t)v[1];
	o->gen.flows = v[2];
	o->gen.frame_size = v[3];
	return 0;
}

/* --mtu PORT=N: one port's MTU (matched to --lan/--wan in check()). */
static int
opt_port_mtu(struct cpe_opts *o, const char *name, const char *val)
{
	const char *allowed = "N (68..9198, every port) or PORT=N for one "
		"router port, e.g. 1=1400";
	char buf[32], *eq;
	uint32_t id, mtu;

	if (strlen(val) >= sizeof(buf))
		return bad(name, val, allowed);
	strcpy(buf, val);
	eq = strchr(buf, '=');
	*eq = '\0';
	if (parse_u32(buf, 0, 1023, &id) != 0 ||
	    parse_u32(eq + 1, 68, 9198, &mtu) != 0)
		return bad(name, val, allowed);
	if (o->nb_port_mtu == CPE_MAX_PHYS)
		return bad(name, val, "at most 8 per-port MTUs");
	o->port_mtu[o->nb_port_mtu].id = (uint16_t)id;
	o->port_mtu[o->nb_port_mtu].mtu = mtu;
	o->nb_port_mtu++;
	return 0;
}

static int parse_file(struct cpe_opts *o, const char *path, int depth);

#define TIMEOUT(key, field) \
	else if (strcmp(name, key) == 0) { \
		if (parse_u32(val, 1, 86400, &o->field) != 0) \
			return bad(name, val, "1..86400 (seconds)"); \
	}

static int
handle(struct cpe_opts *o, const char *name, const char *val, int depth)
{
	uint32_t lo, hi;
	char *end;

	if (strcmp(name, "lan") == 0)
		return opt_port(o, name, val, false);
	if (strcmp(name, "wan") == 0)
		return opt_port(o, name, val, true);
	if (strcmp(name, "route") == 0)
		return opt_route(o, name, val);
	if (strcmp(name, "neigh") == 0)
		return opt_neigh(o, name, val);
	if (strcmp(name, "bench-gen") == 0)
		return opt_gen(o, name, val);
	if (strcmp(name, "mtu") == 0 && strchr(val, '=') != NULL)
		return opt_port_mtu(o, name, val);
	if (cpe_qos_is_opt(name)) {
		const char *allowed = cpe_qos_opt(&o->qos, name, val);

		return allowed ? bad(name, val, allowed) : 0;
	}
	if (strcmp(name, "mtu") == 0) {
		if (parse_u32(val, 68, 9198, &o->mtu) != 0)
			return bad(name, val, "68..9198, or PORT=N for one "
				   "port");
	} else if (strcmp(name, "no-flow-cache") == 0) {
		o->flow_cache = false;
	} else if (strcmp(name, "flow-entries") == 0) {
		if (parse_u32(val, 1024, 4194304, &o->flow_entries) != 0)
			return bad(name, val, "1024..4194304");
	} else if (strcmp(name, "flow-timeout") == 0) {
		if (parse_u32(val, 1, 3600, &o->flow_timeout) != 0)
			return bad(name, val, "1..3600 (seconds)");
	} else if (strcmp(name, "no-nat") == 0) {
		o->nat = false;
	} else if (strcmp(name, "nat-ports") == 0) {
		lo = (uint32_t)strtoul(val, &end, 10);
		if (!isdigit((unsigned char)val[0]) || *end != '-' ||
		    parse_u32(end + 1, 1, 65535, &hi) != 0 || lo < 1 ||
		    lo > hi)
			return bad(name, val, "LO-HI with 1 <= LO <= HI <= "
				   "65535, e.g. 1024-65535");
		o->nat_lo = (uint16_t)lo;
		o->nat_hi = (uint16_t)hi;
	} else if (strcmp(name, "nat-sessions") == 0) {
		if (parse_u32(val, 1024, 1048576, &o->nat_sessions) != 0)
			return bad(name, val, "1024..1048576");
	}
	TIMEOUT("tcp-timeout", tcp_timeout)
	TIMEOUT("tcp-trans-timeout", tcp_trans)
	TIMEOUT("tcp-close-timeout", tcp_close)
	TIMEOUT("udp-timeout", udp_timeout)
	TIMEOUT("tcp-syn-timeout", tcp_syn)
	TIMEOUT("udp-unreplied-timeout", udp_unreplied)
	TIMEOUT("icmp-timeout", icmp_timeout)
	TIMEOUT("arp-timeout", arp_timeout)
	else if (strcmp(name, "stats-interval") == 0) {
		if (parse_secs(val, 0, 3600, &o->stats_interval) != 0)
			return bad(name, val, "0..3600 (seconds, 0: only at "
				   "exit)");
	} else if (strcmp(name, "duration") == 0) {
		if (parse_secs(val, 0, 86400, &o->duration) != 0)
			return bad(name, val, "0..86400 (seconds, 0: until "
				   "SIGINT or SIGTERM)");
	} else if (strcmp(name, "json") == 0) {
		o->json = true;

	} else if (strcmp(name, "idle") == 0) {
		if (strcmp(val, "poll") == 0)
			o->idle = CPE_IDLE_POLL;
		else if (strcmp(val, "adaptive") == 0)
			o->idle = CPE_IDLE_ADAPTIVE;
		else if (strcmp(val, "interrupt") == 0)
			o->idle = CPE_IDLE_INTERRUPT;
		else
			return bad(name, val, "poll, adaptive, interrupt");
	} else if (strcmp(name, "idle-spin") == 0) {
		if (parse_u32(val, 0, 100000, &o->idle_spin_us) != 0)
			return bad(name, val, "0..100000 (microseconds)");
	} else if (strcmp(name, "no-tx-csum") == 0) {
		o->tx_csum = false;
	} else if (strcmp(name, "no-vlan-offload") == 0) {
		o->vlan_offload = false;
	} else if (strcmp(name, "mbuf-size") == 0) {
		if (parse_u32(val, 1024, UINT16_MAX - RTE_PKTMBUF_HEADROOM,
			      &o->data_room) != 0)
			return bad(name, val, "1024..65407");
	} else if (strcmp(name, "tap") == 0) {
		if (o->nb_taps == CPE_MAX_PORTS)
			return bad(name, val, "at most 8 --tap (one per port)");
		if (cpe_tap_parse(val, &o->taps[o->nb_taps]) != 0)
			return bad(name, val, "PORT=IFNAME, PORT a --lan/--wan "
				   "port id, IFNAME 1..15 characters without "
				   "'/', ':' or blanks, e.g. 0=cpe-lan");
		o->nb_taps++;
	} else if (strcmp(name, "firewall") == 0) {
		if (strcmp(val, "on") == 0)
			o->fw.on = true;
		else if (strcmp(val, "off") == 0)
			o->fw.on = false;
		else
			return bad(name, val, "on, off");
	} else if (strcmp(name, "fw-open") == 0 ||
		   strcmp(name, "fw-pinhole") == 0) {
		struct cpe_fw_rule r;
		const char *allowed;
		int id;

		allowed = cpe_fw_rule_parse(val, name[3] == 'p', &r);
		if (allowed != NULL)
			return bad(name, val, allowed);
		id = cpe_fw_rule_add(&o->fw, &r);
		if (id == -ENOSPC)
			return bad(name, val, "at most 64 --fw-open and "
				   "--fw-pinhole rules in all");
		if (id < 0)
			return bad(name, val, "a rule not given before");
	} else if (strcmp(name, "fw-forward") == 0) {
		struct cpe_fw_forward f;
		const char *allowed = cpe_fw_forward_parse(val, &f);
		int rc;

		if (allowed != NULL)
			return bad(name, val, allowed);
		rc = cpe_fw_forward_add(&o->fw, &f);
		if (rc == -ENOSPC)
			return bad(name, val, "at most 32 --fw-forward");
		if (rc != 0)
			return bad(name, val, "WAN ports not forwarded by an "
				   "earlier --fw-forward of the protocol");
	} else if (strcmp(name, "frag-max") == 0) {
		if (parse_u32(val, 0, 1048576, &o->frag_max) != 0)
			return bad(name, val, "0 (off)..1048576");
	} else if (strcmp(name, "frag-timeout") == 0) {
		if (parse_u32(val, 1, 120, &o->frag_timeout) != 0)
			return bad(name, val, "1..120 seconds");
	} else if (strcmp(name, "synflood-protect") == 0) {
		if (strcmp(val, "on") == 0)
			o->fw.syn.on = true;
		else if (strcmp(val, "off") == 0)
			o->fw.syn.on = false;
		else
			return bad(name, val, "on, off");
	} else if (strcmp(name, "synflood-rate") == 0) {
		if (parse_u32(val, 1, 1000000, &o->fw.syn.rate) != 0)
			return bad(name, val, "1..1000000 (a second)");
	} else if (strcmp(name, "synflood-burst") == 0) {
		if (parse_u32(val, 1, 1000000, &o->fw.syn.burst) != 0)
			return bad(name, val, "1..1000000");
	} else if (strcmp(name, "synflood-budget") == 0) {
		if (parse_u32(val, 0, 10000000, &o->fw.syn.budget) != 0)
			return bad(name, val, "0 (no budget)..10000000 (a "
				   "second)");
	} else if (strcmp(name, "fw-states") == 0) {
		if (parse_u32(val, 1024, 4194304, &o->fw.states) != 0)
			return bad(name, val, "1024..4194304");
	} else if (strcmp(name, "config") == 0) {
		if (depth > 0)
			return bad(name, val, "none inside a config file (no "
				   "nesting)");
		o->config = val;
		return parse_file(o, val, depth + 1);
	} else if (strcmp(name, "vdev") == 0) {
		if (depth == 0)
			return bad(name, val, "none after '--': give --vdev to "
				   "EAL, before '--' (vdev lines are for config "
				   "files)");
		if (o->nb_vdevs == CPE_MAX_PHYS)
			return bad(name, val, "at most 8 vdev lines");
		o->vdevs[o->nb_vdevs] = strdup(val);
		if (o->vdevs[o->nb_vdevs] == NULL)
			return -ENOMEM;
		o->nb_vdevs++;
	}
	return 0;
}

static const struct opt_def *
find_opt(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(opt_defs); i++)
		if (strcmp(opt_defs[i].name, name) == 0)
			return &opt_defs[i];
	return NULL;
}

static void
list_opts(char *buf, size_t size, const char *dashes)
{
	size_t i, n = 0;

	for (i = 0; i < RTE_DIM(opt_defs) && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s%s",
				      i ? ", " : "", dashes, opt_defs[i].name);
}

static int
parse_file(struct cpe_opts *o, const char *path, int depth)
{
	char line[512], *p, *key, *val, *e, keys[1024];
	const struct opt_def *d;
	unsigned int lineno = 0;
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, PROG ": --config %s: cannot open: %s\n", path,
			strerror(errno));
		return -errno;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		p = strchr(line, '#');
		if (p != NULL)
			*p = '\0';
		for (key = line; isspace((unsigned char)*key); key++)
			;
		e = key + strlen(key);
		while (e > key && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*key == '\0')
			continue;
		for (val = key; *val && !isspace((unsigned char)*val); val++)
			;
		if (*val) {
			*val++ = '\0';
			while (isspace((unsigned char)*val))
				val++;
		}
		snprintf(where, sizeof(where), "%s:%u: ", path, lineno);
		d = find_opt(key);
		if (d == NULL || strcmp(key, "help") == 0) {
			list_opts(keys, sizeof(keys), "");
			fprintf(stderr, PROG ": %sunknown key '%s'; allowed "
				"keys are: %s\n", where, key, keys);
			rc = -EINVAL;
		} else if (d->arg == REQ && *val == '\0') {
			fprintf(stderr, PROG ": %s'%s' needs a value\n", where,
				key);
			rc = -EINVAL;
		} else if (d->arg == NONE && *val != '\0') {
			fprintf(stderr, PROG ": %s'%s' takes no value\n", where,
				key);
			rc = -EINVAL;
		} else {
			/*
			 * handle() copies what must outlive the line buffer
			 * (vdev lines); nothing else keeps a file's value.
			 */
			rc = handle(o, key, val, depth);
		}
	}
	where[0] = '\0';
	fclose(f);
	return rc;
}

static void
defaults(struct cpe_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mtu = CPE_DEF_MTU;
	o->flow_cache = true;
	o->flow_entries = CPE_DEF_FLOWS;
	o->flow_timeout = CPE_DEF_FLOW_TIMEOUT;
	o->nat = true;
	o->nat_lo = 1024;
	o->nat_hi = 65535;
	o->nat_sessions = CPE_DEF_NAT_SESSIONS;
	o->tcp_timeout = CPE_DEF_TCP_TIMEOUT;
	o->tcp_trans = CPE_DEF_TCP_TRANS;
	o->tcp_close = CPE_DEF_TCP_CLOSE;
	o->udp_timeout = CPE_DEF_UDP_TIMEOUT;
	o->tcp_syn = CPE_DEF_TCP_SYN;
	o->udp_unreplied = CPE_DEF_UDP_UNREPLIED;
	o->icmp_timeout = CPE_DEF_ICMP_TIMEOUT;
	o->arp_timeout = CPE_DEF_ARP_TIMEOUT;
	o->fw.on = true;
	o->fw.states = CPE_FW_DEF_STATES;
	o->frag_max = CPE_FRAG_DEF_MAX;
	o->frag_timeout = CPE_FRAG_DEF_TIMEOUT;
	o->fw.echo_rate = CPE_FW_ECHO_RATE;
	o->fw.syn.on = true;
	o->fw.syn.rate = CPE_GUARD_DEF_RATE;
	o->fw.syn.burst = CPE_GUARD_DEF_BURST;
	o->fw.syn.budget = CPE_GUARD_DEF_BUDGET;
	o->tx_csum = true;
	o->vlan_offload = true;
	o->idle = CPE_DEF_IDLE;
	o->idle_spin_us = CPE_DEF_IDLE_SPIN_US;
	o->data_room = RTE_MBUF_DEFAULT_DATAROOM;
	cpe_qos_cfg_defaults(&o->qos);
}

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

/*
 * --lan PORT=pd: the numbers (pd alone takes the next one not given
 * explicitly, in the order of the ports), each once; a TAP on the LAN
 * (dnsmasq's advertisements) and on the WAN (the DHCPv6 client); room
 * for the delegated address beside the static ones.
 */
static int
check_pd(struct cpe_opts *o)
{
	struct cpe_port_cfg *p, *q;
	uint32_t next = 0;
	uint16_t i, j;
	int wan = -1;

	for (i = 0; i < o->nb_ports; i++)
		if (o->ports[i].wan)
			wan = i;
	for (i = 0; i < o->nb_ports; i++) {
		p = &o->ports[i];
		if (!p->pd)
			continue;
		while (p->pd_id > UINT16_MAX) {
			for (j = 0; j < o->nb_ports; j++)
				if (o->ports[j].pd && o->ports[j].pd_id == next)
					break;
			if (j == o->nb_ports)
				p->pd_id = next;
			next++;
		}
		for (j = 0; j < i; j++) {
			q = &o->ports[j];
			if (q->pd && q->pd_id == p->pd_id) {
				fprintf(stderr, PROG ": --lan %u=pd:%u: /64 "
					"number %u given to port %u already; "
					"allowed: a number per port, 0..65535\n",
					p->id, p->pd_id, p->pd_id, q->id);
				return -EINVAL;
			}
		}
		if (!has_tap(o, p)) {
			fprintf(stderr, PROG ": --lan %u=pd: the LAN's router "
				"advertisements come from its TAP; allowed: "
				"add --tap %u=IFNAME\n", p->id, p->id);
			return -EINVAL;
		}
		if (wan >= 0 && !has_tap(o, &o->ports[wan])) {
			fprintf(stderr, PROG ": --lan %u=pd: the DHCPv6 client "
				"runs on the WAN's TAP; allowed: add --tap "
				"%u=IFNAME\n", p->id, o->ports[wan].id);
			return -EINVAL;
		}
		if (p->nb_ip6 == CPE_MAX_IP6) {
			fprintf(stderr, PROG ": --lan %u=pd: the delegated "
				"prefix is one of the port's %u IPv6 prefixes; "
				"allowed: at most %u static ones beside pd\n",
				p->id, CPE_MAX_IP6, CPE_MAX_IP6 - 1);
			return -EINVAL;
		}
	}
	return 0;
}

/* Checks across options, once all are in. */
static int
check(struct cpe_opts *o)
{
	uint16_t i, lan = 0, wan = 0;
	char msg[512];

	if (cpe_qos_cfg_check(&o->qos, msg, sizeof(msg)) != 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		return -EINVAL;
	}
	for (i = 0; i < o->nb_ports; i++) {
		if (o->ports[i].wan)
			wan++;
		else
			lan++;
		if (o->gen.on && (o->ports[i].id == o->gen.tx_port ||
				  o->ports[i].id == o->gen.rx_port)) {
			fprintf(stderr, PROG ": --bench-gen: port %u is a "
				"router port; allowed values are ports not "
				"given to --lan or --wan\n", o->ports[i].id);
			return -EINVAL;
		}
	}
	for (i = 0; i < o->nb_port_mtu; i++) {
		uint16_t j;

		for (j = 0; j < o->nb_ports; j++)
			if (o->ports[j].id == o->port_mtu[i].id)
				o->ports[j].mtu = o->port_mtu[i].mtu;
		for (j = 0; j < o->nb_ports; j++)
			if (o->ports[j].id == o->port_mtu[i].id)
				break;
		if (j == o->nb_ports) {
			fprintf(stderr, PROG ": --mtu %u=%u: port %u is no "
				"router port; allowed values are ports given "
				"to --lan or --wan\n", o->port_mtu[i].id,
				o->port_mtu[i].mtu, o->port_mtu[i].id);
			return -EINVAL;
		}
	}
	for (i = 0; i < o->nb_ports; i++) {
		uint32_t mtu = o->ports[i].mtu ? o->ports[i].mtu : o->mtu;

		if ((o->ports[i].nb_ip6 || o->ports[i].pd) && mtu < 1280) {
			fprintf(stderr, PROG ": --mtu %u: port %u has IPv6 "
				"prefixes; allowed values are 1280..9198 for "
				"an IPv6 port (RFC 8200 5)\n", mtu,
				o->ports[i].id);
			return -EINVAL;
		}
		if (o->ports[i].dhcp && !has_tap(o, &o->ports[i])) {
			fprintf(stderr, PROG ": --wan %u=dhcp: the DHCP client "
				"runs on the port's TAP; allowed: add --tap "
				"%u=IFNAME\n", o->ports[i].id, o->ports[i].id);
			return -EINVAL;
		}
		if (o->ports[i].pppoe && !has_tap(o, &o->ports[i])) {
			fprintf(stderr, PROG ": --wan %u=pppoe: pppd runs on "
				"the port's TAP; allowed: add --tap %u=IFNAME\n",
				o->ports[i].id, o->ports[i].id);
			return -EINVAL;
		}
		if (o->ports[i].pppoe && mtu < 68 + CPE_PPPOE_OVERHEAD) {
			fprintf(stderr, PROG ": --mtu %u: port %u carries "
				"PPPoE (8 bytes of the link's MTU); allowed "
				"values are 76..9198 for it\n", mtu,
				o->ports[i].id);
			return -EINVAL;
		}
		if (o->ports[i].wan && o->ports[i].ip == 0 &&
		    !o->ports[i].dhcp && !o->ports[i].pppoe && o->nat) {
			fprintf(stderr, PROG ": --wan: NAPT needs an IPv4 "
				"address on the WAN port; allowed values are "
				"an IPv4 --wan PORT=ADDR/LEN, --wan PORT=dhcp, "
				"--wan PORT=pppoe, "
				"or --no-nat\n");
			return -EINVAL;
		}
	}
	if (check_taps(o) != 0 || check_pd(o) != 0)
		return -EINVAL;
	if (lan == 0 || wan == 0) {
		fprintf(stderr, PROG ": %s: the router needs one --wan "
			"PORT=ADDR/LEN and at least one --lan PORT=ADDR/LEN "
			"(got %u WAN, %u LAN)\n", lan == 0 ? "--lan" : "--wan",
			wan, lan);
		return -EINVAL;
	}
	return cpe_vlan_check(o);
}

/* 0: run; 1: --help given; <0: bad options (already reported). */
int
cpe_opts_parse(int argc, char **argv, struct cpe_opts *o)
{
	const struct opt_def *d;
	const char *name, *val;
	char keys[1024], *eq;
	int i, rc;

	defaults(o);
	for (i = 1; i < argc; i++) {
		where[0] = '\0';
		if (strncmp(argv[i], "--", 2) != 0) {
			fprintf(stderr, PROG ": unexpected argument '%s'; "
				"options start with --, see --help\n", argv[i]);
			return -EINVAL;
		}
		name = argv[i] + 2;
		val = NULL;
		eq = strchr(name, '=');
		if (eq != NULL) {
			/* --key=value: split a copy. */
			char *copy = strdup(name);

			if (copy == NULL)
				return -ENOMEM;
			copy[eq - name] = '\0';
			val = copy + (eq - name) + 1;
			name = copy;
		}
		d = find_opt(name);
		if (d == NULL) {
			list_opts(keys, sizeof(keys), "--");
			fprintf(stderr, PROG ": unknown option '--%s'; allowed "
				"options are %s (see --help)\n", name, keys);
			return -EINVAL;
		}
		if (strcmp(name, "help") == 0)
			return 1;
		if (d->arg == REQ && val == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, PROG ": --%s needs a value\n",
					name);
				return -EINVAL;
			}
			val = argv[++i];
		} else if (d->arg == NONE && val != NULL) {
			fprintf(stderr, PROG ": --%s takes no value\n", name);
			return -EINVAL;
		}
		rc = handle(o, name, val, 0);
		if (rc != 0)
			return rc;
	}
	return check(o);
}
