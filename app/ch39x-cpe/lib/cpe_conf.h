/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_CONF_H
#define CPE_CONF_H

/*
 * The router's configuration: what the options say (control/opts.c
 * parses them, control/opts_table.h lists them with their defaults) and
 * the limits they are checked against. Nothing here is state.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "fields.h"
#include "fw.h"
#include "frag.h"
#include "pppoe.h"
#include "qos.h"

#define CPE_MAX_PORTS		16	/* router interfaces (VLANs included) */
#define CPE_MAX_PHYS		8	/* DPDK ports under them */
#define CPE_MAX_ROUTES		256
#define CPE_MAX_NEIGH_STATIC	64
#define CPE_BURST		32
#define CPE_NEIGH_ENTRIES	1024
#define CPE_NEIGH_QUEUE		4	/* packets held per unresolved hop */
#define CPE_DEF_MTU		1500
#define CPE_ICMP_QUOTE		576	/* RFC 1812 4.3.2.3: error size */
#define CPE_MAX_IP6		4	/* IPv6 prefixes per port */
#define CPE_ICMP6_MAX		1280	/* RFC 4443 2.4 (c): error size */

/* An IPv6 address and prefix length (fwd6.c, nd6.c, route6.c). */
struct cpe_ip6 {
	uint8_t a[16];
	uint8_t plen;
};

/* One port as configured (opts.c) and set up (ports.c). */
struct cpe_port_cfg {
	uint16_t id;
	uint16_t vlan;			/* 802.1Q VLAN id, 0: untagged */
	bool wan;
	uint32_t ip;			/* host order */
	uint8_t plen;
	bool dhcp;			/* --wan PORT=dhcp: IPv4 from a lease */
	bool pppoe;			/* --wan PORT=pppoe: from pppd */
	bool mbim;			/* --wan PORT=mbim: from the modem */
	uint32_t mtu;			/* --mtu PORT=N; 0: the global one */
	struct cpe_ip6 ip6[CPE_MAX_IP6];	/* IPv6 prefixes, --lan/--wan */
	uint8_t nb_ip6;
	bool pd;			/* --lan PORT=pd: a delegated /64 */
	uint32_t pd_id;			/* its number in the delegation */
};

struct cpe_route_cfg {
	uint32_t prefix;		/* host order */
	uint8_t plen;
	uint32_t gw;			/* 0: connected */
};

struct cpe_route6_cfg {
	struct cpe_ip6 prefix;
	uint8_t gw[16];
};

struct cpe_neigh_cfg {
	uint32_t ip;
	struct rte_ether_addr mac;
};

/* --idle: what the forwarding loop does without packets (idle.c). */
enum cpe_idle_mode {
	CPE_IDLE_POLL,			/* busy polling */
	CPE_IDLE_ADAPTIVE,		/* growing sleeps, at most 1 ms */
	CPE_IDLE_INTERRUPT,		/* Rx interrupts, else as adaptive */
};
/* --tap PORT=IFNAME: the control plane's TAP of a port (tap.c). */
struct cpe_tap_cfg {
	uint16_t port;			/* DPDK port id, as --lan/--wan */
	uint16_t vlan;			/* its 802.1Q interface, 0: untagged */
	char name[16];			/* IFNAMSIZ */
};

/* The traffic generator of the benchmark (gen.c), on its own lcore. */
struct cpe_gen_cfg {
	bool on;
	uint16_t tx_port, rx_port;
	uint32_t flows;
	uint32_t frame_size;
};

struct cpe_opts {
	struct cpe_port_cfg ports[CPE_MAX_PORTS];
	uint16_t nb_ports;
	struct cpe_route_cfg routes[CPE_MAX_ROUTES];
	uint16_t nb_routes;
	struct cpe_route6_cfg routes6[CPE_MAX_ROUTES];
	uint16_t nb_routes6;
	/* --mtu PORT=N, matched to the ports once all options are in. */
	struct { uint16_t id; uint32_t mtu; } port_mtu[CPE_MAX_PORTS];
	uint16_t nb_port_mtu;
	struct cpe_neigh_cfg neigh[CPE_MAX_NEIGH_STATIC];
	uint16_t nb_neigh;
	uint32_t mtu;
	bool flow_cache;
	uint32_t flow_entries;
	uint32_t flow_timeout;
	bool nat;
	uint16_t nat_lo, nat_hi;
	uint32_t nat_sessions;
	uint32_t tcp_timeout, tcp_trans, tcp_close, udp_timeout, icmp_timeout;
	uint32_t tcp_syn, udp_unreplied;	/* embryonic entries' timeouts */
	uint32_t arp_timeout;
	double stats_interval;		/* 0: only at exit */
	double duration;		/* 0: until a signal */
	bool json;
	bool tx_csum;			/* IPv4 header checksum offload used */
	bool vlan_offload;		/* PMD VLAN strip/insert where offered */
	enum cpe_idle_mode idle;
	uint32_t idle_spin_us;		/* --idle-spin */
	uint32_t data_room;
	struct cpe_gen_cfg gen;
	struct cpe_qos_cfg qos;		/* WAN scheduler (qos.c) */
	struct cpe_fw_cfg fw;		/* the firewall (fw.c) */
	uint32_t frag_max;		/* datagrams tracked, 0: off (frag.c) */
	uint32_t frag_timeout;		/* s */
	const char *config;		/* file the options came from, if any */
	/* --vdev lines of the config file, handed to EAL. */
	char *vdevs[CPE_MAX_PHYS];
	uint16_t nb_vdevs;
	struct cpe_tap_cfg taps[CPE_MAX_PORTS];
	uint16_t nb_taps;
};

#endif /* CPE_CONF_H */
