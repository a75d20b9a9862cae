/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_IFACE_H
#define CPE_IFACE_H

/*
 * The router's interfaces: a DPDK port and a VLAN id each (0: the port's
 * untagged frames), their addresses, MTUs and framing, and the DPDK
 * ports under them. Part of the graph's configuration: control/ports.c
 * sets them up, the control plane changes their addresses at run time
 * (a DHCP lease, a PPPoE session, a delegated prefix), the nodes read
 * them. The PPPoE session the WAN carries is here too: pppd's hook hands
 * it over (control/wan.c), the framing nodes put it on and take it off.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "cpe_conf.h"
#include "pppoe.h"

/* A router interface. */
struct cpe_iface {
	uint16_t id;			/* its DPDK port */
	uint16_t vlan;			/* 802.1Q VLAN id, 0: untagged */
	uint16_t phys;			/* index into the phys table */
	bool wan;
	bool pppoe;			/* the WAN in a PPPoE session */
	bool ip_csum_offload;
	uint32_t ip, mask;		/* host order */
	uint32_t ip_be;
	struct rte_ether_addr mac;
	uint16_t mtu;			/* IP MTU */
	uint16_t link_mtu;		/* the DPDK port's (PPPoE: mtu + 8) */
	/* IPv6: link-local (EUI-64 of mac) and the configured prefixes. */
	uint8_t ll6[16];
	struct cpe_ip6 ip6[CPE_MAX_IP6];
	uint8_t nb_ip6;
	bool pd6;			/* ip6[nb_ip6 - 1] is delegated */
	/*
	 * Point to point (an MBIM modem's session, control/wan_mbim.c):
	 * every next hop is peer, no ARP or neighbour discovery asked.
	 */
	bool p2p;
	struct rte_ether_addr peer;
};

/* A DPDK port: polled by its port_rx node, its frames sorted by VLAN. */
struct cpe_phys {
	uint16_t id;
	bool rx_offload;		/* the PMD strips tags (VLAN_STRIP) */
	bool tx_offload;		/* the PMD inserts them (VLAN_INSERT) */
	bool tagged;			/* carries VLAN interfaces */
	/*
	 * control/hotplug.c: down (link down, or the device gone): its
	 * interfaces send nothing (port_tx drops and counts), no flow is
	 * cached out of it, its neighbours do not age. gone: removed (RMV),
	 * the port id is not to be touched until the re-probe gives it back.
	 */
	bool down;
	bool gone;
	uint16_t tx_backlog;		/* packets port_tx holds for the PMD */
	/* The DPDK ports (bit: phys index) whose frames came into that
	 * backlog since it was last empty: port_rx holds them back while it
	 * is full (cpe_phys_tx_full()). */
	uint32_t tx_from;
	uint8_t vid_if[4096];		/* VLAN id -> interface, 0: untagged */
};

#define CPE_VLAN_NONE		0xff	/* vid_if: no interface */
#define CPE_TXQ			(8 * CPE_BURST)	/* port_tx's backlog */

/*
 * A port's backlog has no room for a burst: its PMD takes nothing more
 * for now (the far side drains slower than the router brings). What the
 * ports of its tx_from would give it next would be read, routed and
 * dropped: they are not read meanwhile (port_rx), and the loop, with
 * nothing else to do, sleeps a little instead of spinning (control/idle.c).
 */
static inline bool
cpe_phys_tx_full(const struct cpe_phys *ph)
{
	return ph->tx_backlog > CPE_TXQ - CPE_BURST;
}

/*
 * The session a PPPoE WAN carries (pppd's, handed over by its hook) and
 * what the framing nodes (pppoe_in, pppoe_out) and the TAP's did with it.
 */
struct cpe_pppoe_state {
	bool up;
	struct cpe_pppoe_sess sess;
	uint8_t tmpl[CPE_PPPOE_TMPL_LEN];	/* its frames' header */
	uint64_t sessions;		/* sessions learned */
	uint64_t rx_data, tx_data;	/* IP in and out of the session */
	uint64_t rx_ctl;		/* PPP control, to pppd */
	uint64_t rx_other;		/* discovery, other sessions: to pppd */
	uint64_t rx_not_pppoe;		/* plain Ethernet, dropped */
	uint64_t rx_bad;		/* malformed session frames, dropped */
	uint64_t tx_no_session;		/* IP to the WAN without a session */
	uint64_t tx_drops;		/* no headroom, or too long */
};

struct cpe_ifaces {
	struct cpe_iface ifs[CPE_MAX_PORTS];
	uint16_t nb;
	int16_t wan;			/* index, -1: none */
	int16_t by_id[RTE_MAX_ETHPORTS];	/* port id -> first index, -1 */
	struct cpe_phys phys[CPE_MAX_PHYS];
	uint16_t nb_phys;
	struct cpe_pppoe_state pppoe;
};

/*
 * An interface's framing: what it puts around IP on its link, a step of
 * its own in the graph on each side (port.h): Ethernet (none), PPPoE
 * (pppoe_in, pppoe_out). Another (a modem's raw IP with a fixed peer)
 * is a row here and its two nodes; control/graph.c gives the nodes that
 * receive and send an edge to each framing's node, the nodes take the
 * edges of their interfaces' framings (cpe_node_out_edges()).
 */
struct cpe_framing {
	const char *name;
	const char *in_node;		/* after port_rx; NULL: none */
	const char *out_node;		/* before the scheduler and port_tx */
};

#define CPE_NB_FRAMINGS		2
extern const struct cpe_framing cpe_framings[CPE_NB_FRAMINGS];

/* Interface p's framing. */
const struct cpe_framing *cpe_if_framing(const struct cpe_iface *p);

/* DPDK port k's interface when it has one, untagged; else UINT16_MAX. */
uint16_t cpe_phys_only_if(const struct cpe_ifaces *ifs, uint16_t k);

/* "PORT" or "PORT.VLAN" of interface idx. */
const char *cpe_if_name(const struct cpe_ifaces *ifs, uint16_t idx,
			char *buf, size_t size);

/* Whether IPv4 dst (host order) is the router's, as seen from in:
 * an address of its, in's subnet broadcast, a broadcast or multicast. */
bool cpe_if_local4(const struct cpe_ifaces *ifs, uint32_t dst, uint16_t in);
bool cpe_if_bcast4(const struct cpe_ifaces *ifs, uint32_t dst, uint16_t in);
/* The LAN interface whose subnet holds a (not the router's), or -1. */
int cpe_if_lan_of(const struct cpe_ifaces *ifs, uint32_t a);

/* IPv6: an address of interface in (link-local or a prefix's). */
bool cpe_if_mine6(const struct cpe_ifaces *ifs, uint16_t in, const uint8_t *a);
/* Any of the router's global addresses, or in's link-local. */
bool cpe_if_local6(const struct cpe_ifaces *ifs, uint16_t in,
		   const uint8_t *a);

static inline bool
cpe_is_ll6(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* a/plen's prefix (host bits cleared) into pfx. */
void cpe_ip6_prefix_of(uint8_t *pfx, const uint8_t *a, uint8_t plen);
void cpe_ip6_fmt(char *buf, size_t size, const uint8_t *a);
/* fe80::/64 with the modified EUI-64 of mac (RFC 4291 2.5.1). */
void cpe_ip6_link_local(const struct rte_ether_addr *mac, uint8_t *a);

#endif /* CPE_IFACE_H */
