/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_H
#define CH39X_CPE_H

/*
 * ch39x-cpe: a dual-stack CPE router (one WAN interface with NAPT for
 * IPv4, one or more LAN interfaces, IPv6 routed) on DPDK ports, with a
 * flow-cache fast path in front of the routing/ARP/ND/NAT slow path. One
 * lcore forwards; see main.c for the loop, flow.c/flow6.c for the fast
 * path, fwd.c/fwd6.c for the slow path, fw.c/fw_glue.c for the stateful
 * firewall, vlan.c, qos.c, tap.c, idle.c and ctl.c for sub-interfaces,
 * the WAN scheduler, the control plane, the idle modes and run-time
 * commands.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_mbuf.h>
#include <rte_telemetry.h>
#include <rte_version.h>

#include "fields.h"
#include "fw.h"
#include "frag.h"
#include "pppoe.h"
#include "qos.h"

/* DPDK 24.11 renamed the ICMP types and deprecated RTE_IP_ICMP_ECHO_*. */
#ifndef RTE_ICMP_TYPE_ECHO_REQUEST
#define RTE_ICMP_TYPE_ECHO_REQUEST 8
#define RTE_ICMP_TYPE_ECHO_REPLY 0
#endif

/*
 * DPDK 24.11 made IPv6 addresses a struct rte_ipv6_addr (bytes in .a) in
 * rte_ipv6_hdr and in the rte_lpm6 calls; before, they were uint8_t[16].
 * IP6_SRC/IP6_DST give the header's address bytes, LPM6_ADDR what
 * rte_lpm6 takes, in either release.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define IP6_SRC(ip) ((ip)->src_addr.a)
#define IP6_DST(ip) ((ip)->dst_addr.a)
#define LPM6_ADDR(p) ((const struct rte_ipv6_addr *)(const void *)(p))
#else
#define IP6_SRC(ip) ((ip)->src_addr)
#define IP6_DST(ip) ((ip)->dst_addr)
#define LPM6_ADDR(p) (p)
#endif

/*
 * DPDK 23.03 added rte_tel_data_add_dict_uint, and 23.11 deprecated
 * rte_tel_data_add_dict_u64 for it.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define cpe_tel_u64 rte_tel_data_add_dict_uint
#else
#define cpe_tel_u64 rte_tel_data_add_dict_u64
#endif

#define CPE_MAX_PORTS		16	/* router interfaces (VLANs included) */
#define CPE_MAX_PHYS		8	/* DPDK ports under them */
#define CPE_MAX_ROUTES		256
#define CPE_MAX_NEIGH_STATIC	64
#define CPE_BURST		32
#define CPE_TXQ			(8 * CPE_BURST)
#define CPE_NEIGH_ENTRIES	1024
#define CPE_NEIGH_QUEUE		4	/* packets held per unresolved hop */
#define CPE_DEF_MTU		1500
#define CPE_DEF_FLOWS		65536
#define CPE_DEF_FLOW_TIMEOUT	30
#define CPE_DEF_NAT_SESSIONS	65536
#define CPE_DEF_TCP_TIMEOUT	7440	/* established: as Linux, 2 h 4 min */
#define CPE_DEF_TCP_TRANS	120	/* handshake and closing */
#define CPE_DEF_TCP_CLOSE	10	/* after RST or both FINs */
/*
 * Embryonic entries (a handshake, UDP never answered): short, so that
 * what a flood leaves goes soon (Linux: 120 s SYN_SENT, 60 s SYN_RECV,
 * 30 s unreplied UDP). A real handshake refreshes its entry with each
 * retransmission (1, 3, 7, 15 s ...).
 */
#define CPE_DEF_TCP_SYN		30
#define CPE_DEF_UDP_UNREPLIED	30
#define CPE_DEF_UDP_TIMEOUT	120
#define CPE_DEF_ICMP_TIMEOUT	30
#define CPE_DEF_ARP_TIMEOUT	60
/*
 * Aging looks at every slot of the flow and NAT tables once per this
 * many milliseconds, a slice at each housekeeping pass in proportion to
 * the time since the last: an entry lives at most its timeout plus this.
 * A fixed slice per millisecond (it was 256 slots) scanned the default
 * tables four times a second, several percent of a router's CPU at
 * moderate rates on the VM's USB stack (doc/guides/cpe.rst).
 */
#define CPE_AGE_PASS_MS		2000
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
#define CPE_DEF_IDLE		CPE_IDLE_INTERRUPT
#define CPE_DEF_IDLE_SPIN_US	50u	/* idle.c */
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

/* Counters: one set, the forwarding lcore writes them. */
struct cpe_port_stats {
	uint64_t rx, tx, tx_drops, rx_bytes, tx_bytes;
	uint64_t down_drops;		/* not sent: its DPDK port away */
};

/* Per DPDK port under the interfaces (vlan.c). */
struct cpe_phys_stats {
	uint64_t rx, vlan_unknown, untagged_drops;
};

/* IPv6 counters (fwd6.c, nd6.c, flow6.c). */
struct cpe_stats6 {
	uint64_t rx, fwd, fast_hits, flow_installs, flow_evictions;
	uint64_t ns_sent, na_sent, ns_rcvd, na_rcvd;
	uint64_t nd_learned, nd_changed, nd_expired, nd_queued, nd_queue_drops;
	uint64_t nd_bad;
	uint64_t icmp_time_exceeded, icmp_unreach, icmp_too_big;
	uint64_t icmp_echo_replies, icmp_suppressed;
	uint64_t drop_hop_limit, drop_no_route, drop_mtu, drop_bad;
	uint64_t drop_scope, punted, rs_punted;
};

struct cpe_stats {
	struct cpe_port_stats port[CPE_MAX_PORTS];
	struct cpe_phys_stats phys[CPE_MAX_PHYS];
	uint64_t vlan_rx_offload, vlan_rx_sw, vlan_tx_offload, vlan_tx_sw;
	uint64_t fast_hits, fast_misses, fast_stale, flow_installs;
	uint64_t flow_evictions, flow_full, flow_invalidated;
	uint64_t flow_down_invalidated;	/* out of a port gone down */
	uint64_t slow_pkts;
	uint64_t nat_created, nat_expired, nat_full, nat_no_mapping;
	uint64_t nat_unsupported, nat_icmp_err_xlated;
	/* Sessions pushed out of a full table, by evict.h's class, and
	 * new ones from the WAN refused (a table full of assured ones). */
	uint64_t nat_evicted[CPE_EV_NB], nat_full_refused;
	uint64_t arp_req_sent, arp_replies_sent, arp_learned, arp_changed;
	uint64_t arp_expired, neigh_queued, neigh_queue_drops;
	uint64_t icmp_ttl, icmp_unreach, icmp_frag_needed, icmp_echo_replies;
	uint64_t drop_ttl, drop_no_route, drop_mtu, drop_bad, drop_frag;
	uint64_t drop_not_ip, drop_local, drop_nomem;
	uint64_t busy_cycles, busy_pkts, loops, app_cycles, thread_cpu_ns;
	uint64_t clean_cycles, clean_pkts, preempted_loops;
	uint64_t idle_sleeps, idle_intr_waits, idle_intr_wakeups, idle_cycles;
	uint64_t idle_polls_skipped;	/* ports a wake-up did not name */
	uint64_t process_cpu_ns;
	uint64_t ctl_cmds, ctl_errors, ctl_route_changes, ctl_neigh_changes;
	uint64_t ctl_fw_changes;		/* /cpe/fw/add and /cpe/fw/del */
	uint64_t wan_no_addr;		/* to the WAN while it has no IPv4 */
	/* Ports that go and return (hotplug.c). */
	uint64_t port_down_events, port_up_events, port_rmv_events;
	uint64_t port_reprobes, port_reprobe_errors, port_reprobe_gave_up;
	struct cpe_stats6 v6;
	/* The exception path (tap.c): to Linux, and from Linux out. */
	uint64_t punted, punt_drops, tap_rx, tap_tx, tap_drops;
};

/* The fast path's cached result; the slow path fills one per packet. */
struct cpe_xlate {
	struct rte_ether_addr dmac, smac;
	uint16_t out;			/* index into the router's ports */
	uint16_t mtu;			/* egress MTU */
	bool nat;			/* rewrite addresses and ports */
	uint8_t proto;
	uint32_t sip, dip;		/* new values, network order */
	uint16_t sport, dport;		/* new values, network order */
	uint32_t ip_adj;		/* one's complement deltas, raw words */
	uint32_t l4_adj;
	uint32_t sess;			/* NAT session, UINT32_MAX: none */
	uint32_t ct;			/* firewall state, UINT32_MAX: none */
};

/* The router's state, shared by the files below. */
struct cpe_port {			/* a router interface */
	uint16_t id;			/* its DPDK port */
	uint16_t vlan;			/* 802.1Q VLAN id, 0: untagged */
	uint16_t phys;			/* index into cpe.phys */
	bool wan;
	uint32_t ip, mask;		/* host order */
	uint32_t ip_be;
	struct rte_ether_addr mac;
	uint16_t mtu;			/* IP MTU */
	uint16_t link_mtu;		/* the DPDK port's (PPPoE: mtu + 8) */
	bool pppoe;			/* the WAN in a PPPoE session */
	bool ip_csum_offload;
	/* IPv6: link-local (EUI-64 of mac) and the configured prefixes. */
	uint8_t ll6[16];
	struct cpe_ip6 ip6[CPE_MAX_IP6];
	uint8_t nb_ip6;
	bool pd6;			/* ip6[nb_ip6 - 1] is delegated */
	struct rte_mbuf *txq[CPE_TXQ];
	uint32_t txlen[CPE_TXQ];
	uint16_t nb_tx;
};

/* A DPDK port: polled once per loop, its frames demultiplexed by VLAN. */
struct cpe_phys {
	uint16_t id;
	bool rx_offload;		/* the PMD strips tags (VLAN_STRIP) */
	bool tx_offload;		/* the PMD inserts them (VLAN_INSERT) */
	bool tagged;			/* carries VLAN interfaces */
	/*
	 * hotplug.c: down (link down, or the device gone): its interfaces
	 * send nothing (cpe_tx drops and counts), no flow is cached out of
	 * it, its neighbours do not age. gone: removed (RMV), the port id
	 * is not to be touched until the re-probe gives it back.
	 */
	bool down;
	bool gone;
	uint8_t vid_if[4096];		/* VLAN id -> interface, 0: untagged */
};

#define CPE_VLAN_NONE		0xff	/* vid_if: no interface */

struct cpe {
	struct cpe_opts *o;
	struct cpe_port ports[CPE_MAX_PORTS];
	uint16_t nb_ports;
	int16_t wan;			/* index, -1: none */
	int16_t by_id[RTE_MAX_ETHPORTS];	/* port id -> first index, -1 */
	struct cpe_phys phys[CPE_MAX_PHYS];
	uint16_t nb_phys;
	struct rte_mempool *pool;
	uint64_t hz;
	uint64_t now;			/* TSC, once per loop */
	uint32_t gen;			/* bumped when routes/neighbours change */
	/*
	 * The packets in hand came in on the WAN and the downlink is shaped
	 * (--down-rate): cpe_tx() hands those for a LAN port to qos.c. Set
	 * by the loop per input burst, so that no path has to pass it on.
	 */
	bool down_in;
	struct cpe_stats st;
};

extern struct cpe cpe;
extern volatile bool cpe_quit;

/* opts.c */
int cpe_opts_parse(int argc, char **argv, struct cpe_opts *o);
void cpe_usage(FILE *f, const char *prog);
int cpe_parse_ip(const char *s, uint32_t *ip);

/* ports.c */
int cpe_ports_setup(void);
void cpe_ports_close(void);
void cpe_tx(uint16_t idx, struct rte_mbuf *m);
void cpe_tx_flush(void);
/* The TX queues of DPDK port cpe.phys[k]'s interfaces dropped, counted. */
void cpe_tx_drop_phys(uint16_t k);
/* Sets DPDK port cpe.phys[k] (a new port id after a re-probe) up as at
 * start: queues, offloads, MTU, the MAC address the router had. */
int cpe_port_restart(uint16_t k);

/* hotplug.c: LSC and RMV events, flows, neighbours, NAT, re-probe */
int cpe_hotplug_init(void);	/* after the ports */
void cpe_hotplug_poll(void);	/* forwarding loop, housekeeping */
void cpe_hotplug_close(void);
/* DPDK port cpe.phys[k]: "up", "down", "reprobing" or "failed". */
const char *cpe_hotplug_state(uint16_t k);
uint64_t cpe_hotplug_reprobes(uint16_t k);

/* route.c */
int cpe_route_init(void);
int cpe_route_add(uint32_t prefix, uint8_t plen, uint32_t gw, uint16_t out);
int cpe_route_lookup(uint32_t dst, uint16_t *out, uint32_t *nexthop);
int cpe_route_del(uint32_t prefix, uint8_t plen);
int cpe_route_get(uint32_t prefix, uint8_t plen, uint32_t *gw);
void cpe_route_walk(void (*fn)(const struct cpe_route_cfg *r, uint16_t out,
			       void *arg), void *arg);

/* neigh.c */
int cpe_neigh_init(void);
void cpe_arp_input(uint16_t in, struct rte_mbuf *m);
/* 0: MAC known (in *mac); 1: queued, resolving; <0: dropped */
int cpe_neigh_resolve(uint16_t out, uint32_t ip, struct rte_mbuf *m,
		      struct rte_ether_addr *mac);
void cpe_neigh_age(void);
uint32_t cpe_neigh_count(void);
int cpe_neigh_static_set(uint32_t ip, uint16_t idx,
			 const struct rte_ether_addr *mac);
int cpe_neigh_remove(uint32_t ip);
void cpe_neigh_walk(void (*fn)(uint32_t ip, uint16_t idx,
			       const struct rte_ether_addr *mac,
			       const char *state, void *arg), void *arg);
/* DPDK port cpe.phys[k] is back after shift TSC cycles down: its
 * entries' ages resume where they stopped. */
void cpe_neigh_resume(uint16_t k, uint64_t shift);

/* nat.c */
int cpe_nat_init(void);
uint32_t cpe_nat_in_use(void);
void cpe_nat_age(uint32_t ms);
/* Out: a LAN->WAN packet; finds or creates the session. */
int cpe_nat_out(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		uint32_t l4_len);
/* In: a WAN packet to our WAN address; 0 and x filled when mapped. */
int cpe_nat_in_lookup(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		      uint32_t l4_len);
int cpe_nat_icmp_error(struct rte_mbuf *m, bool from_wan);
/* --fw-forward (nat.c): checks and reserves the ports at start; a WAN
 * packet to a forwarded port opens a session (0: x set, as
 * cpe_nat_in_lookup); a LAN packet to the WAN address and a forwarded
 * port, hairpin NAT (0: x set). -ENOENT: not a forward; -EBUSY (forward
 * in): a new connection the guard or a full table refused, drop it.
 */
int cpe_nat_forward_setup(void);
/* Every session deleted (the WAN address changed): how many. */
uint32_t cpe_nat_flush(void);
int cpe_nat_forward_in(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		       uint32_t l4_len);
int cpe_nat_hairpin(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		    uint32_t l4_len);
bool cpe_nat_sess_cacheable(uint32_t sess);
void cpe_nat_touch(uint32_t sess);
void cpe_nat_link_flow(uint32_t sess, int dir, int32_t flow_pos);
/* The WAN was down shift TSC cycles: the sessions' ages resume. */
void cpe_nat_resume(uint64_t shift);

/* flow.c */
int cpe_flow_init(void);
void cpe_flow_input(uint16_t in, struct rte_mbuf **pkts, uint16_t n);
#define CPE_FLOW_KEY_LEN	16
void cpe_flow_learn(uint16_t in, const void *key, const struct cpe_xlate *x);
int cpe_flow_key(uint16_t in, const struct rte_mbuf *m, void *key);
void cpe_flow_del(int32_t pos);
void cpe_flow_del_sess(int32_t pos, uint32_t sess);
void cpe_flow_del_ct(int32_t pos, uint32_t ct);
void cpe_xlate_prepare(const struct rte_mbuf *m, struct cpe_xlate *x);
void cpe_flow_age(uint32_t ms);
uint32_t cpe_flow_count(void);
/* Drops the cached flows out of DPDK port cpe.phys[k]: their number. */
uint32_t cpe_flow_drop_phys(uint16_t k);
void cpe_xlate_apply(struct rte_mbuf *m, const struct cpe_xlate *x);

/* route6.c */
int cpe_route6_init(void);
int cpe_route6_add(const uint8_t *prefix, uint8_t plen, const uint8_t *gw,
		   uint16_t out);
/* 0: *out and nexthop (16 bytes) set; -ENOENT: no route. */
int cpe_route6_lookup(const uint8_t *dst, uint16_t *out, uint8_t *nexthop);
int cpe_route6_del(const uint8_t *prefix, uint8_t plen);
int cpe_route6_get(const uint8_t *prefix, uint8_t plen, uint8_t *gw);
void cpe_route6_walk(void (*fn)(const struct cpe_route6_cfg *r, uint16_t out,
				void *arg), void *arg);

/* nd6.c: neighbour discovery (RFC 4861) */
int cpe_nd6_init(void);
/* NS/NA for this port (already validated as ICMPv6); consumes m. */
void cpe_nd6_input(uint16_t in, struct rte_mbuf *m, uint8_t type);
/* 0: MAC known (in *mac); 1: queued, resolving; <0: dropped */
int cpe_nd6_resolve(uint16_t out, const uint8_t *ip, struct rte_mbuf *m,
		    struct rte_ether_addr *mac);
void cpe_nd6_age(void);
uint32_t cpe_nd6_count(void);
int cpe_nd6_static_set(const uint8_t *a, uint16_t idx,
		       const struct rte_ether_addr *mac);
int cpe_nd6_remove(const uint8_t *a);
void cpe_nd6_walk(void (*fn)(const uint8_t *a, uint16_t idx,
			     const struct rte_ether_addr *mac,
			     const char *state, void *arg), void *arg);
void cpe_nd6_resume(uint16_t k, uint64_t shift);
/*
 * A router advertisement m (RFC 4861 6.1.2: hop limit 255, a link-local
 * source, code 0, its checksum): 0 and its router lifetime (s), or -1.
 */
int cpe_nd6_ra_check(const struct rte_mbuf *m, uint16_t *lifetime);

/* fwd6.c */
int cpe_ip6_setup(void);		/* after the ports: addresses, routes */
void cpe_ip6_input(uint16_t in, struct rte_mbuf *m);
bool cpe_ip6_is_mine(uint16_t in, const uint8_t *a);
void cpe_ip6_fmt(char *buf, size_t size, const uint8_t *a);
/* a/plen's prefix (host bits cleared) into pfx. */
void cpe_ip6_prefix_of(uint8_t *pfx, const uint8_t *a, uint8_t plen);
/* The port a gateway is on (link-local: the WAN), or -1. */
int cpe_ip6_gw_port(const uint8_t *gw);
/* Port idx's delegated /64 address a (NULL: none), its route, groups. */
int cpe_ip6_port_pd(uint16_t idx, const uint8_t *a);

/* flow6.c: the IPv6 flow cache (fast path) */
int cpe_flow6_init(void);
/* true: m was forwarded from the cache (consumed). */
bool cpe_flow6_fast(uint16_t in, struct rte_mbuf *m);
int cpe_flow6_key(uint16_t in, const struct rte_mbuf *m, void *key);
/* The slot learnt, -1: none. */
int32_t cpe_flow6_learn(const void *key, const struct cpe_xlate *x);
void cpe_flow6_del_ct(int32_t pos, uint32_t ct);
void cpe_flow6_age(uint32_t ms);
uint32_t cpe_flow6_count(void);
uint32_t cpe_flow6_drop_phys(uint16_t k);
#define CPE_FLOW6_KEY_LEN	40

/* fwd.c */
void cpe_slow_input(uint16_t in, struct rte_mbuf *m);

/*
 * fw_glue.c: the firewall (fw.c) in the router. cpe_fw_pass: whether m,
 * from port in to port out (-1: the router), passes source validation
 * and the zone policy; *ct its tracked connection (UINT32_MAX: none),
 * *cacheable whether the flow cache may carry the verdict.
 */
extern struct cpe_fw cpe_fw;
extern bool cpe_fw_on;
int cpe_fw_setup(void);
void cpe_fw_close(void);
/* BCP 38 and bogons (counted); local: m is for the router. */
bool cpe_fw_src_ok(uint16_t in, bool local, const struct rte_mbuf *m);
bool cpe_fw_pass(uint16_t in, int out, const struct rte_mbuf *m,
		 uint32_t *ct, bool *cacheable);
/* The router's own packet out of port idx (from its TAP): tracked. */
void cpe_fw_out_local(uint16_t idx, const struct rte_mbuf *m);
void cpe_fw_link(uint32_t ct, uint16_t in, int32_t pos);
void cpe_fw_age_ms(uint32_t ms);
void cpe_fw_print(FILE *f);
void cpe_fw_json(FILE *f);
void cpe_fw_tel(struct rte_tel_data *d);
/*
 * SYN-flood protection (guard.h) in the router (fw_glue.c): cpe_guard_syn_ok
 * is the slow path's budget of TCP SYNs from the WAN (false: drop m now);
 * cpe_guard_new whether m, a new IPv4 connection from the WAN to a forward
 * (nat.c), may make state
 * (false: drop it; counted by the guard).
 */
extern struct cpe_guard cpe_guard;
/* Evictions by evict.h's class, text (" evicted_CLASS N"...) or JSON
 * (", \"evicted\": {...}"). */
void cpe_evict_print(FILE *f, const uint64_t *v, bool json);
void cpe_evict_tel(struct rte_tel_data *d, const char *prefix,
		   const uint64_t *v);
bool cpe_guard_syn_ok(const struct rte_mbuf *m);
bool cpe_guard_new(const struct rte_mbuf *m);
/* pppoe_glue.c: the WAN over PPPoE (--wan PORT=pppoe). */
struct cpe_pppoe_state {
	bool up;			/* a session to carry */
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
extern struct cpe_pppoe_state cpe_pppoe;
/* Frame m of PPPoE interface idx: false when consumed (to pppd or
 * dropped), true when it is now an Ethernet IPv4/IPv6 frame. */
bool cpe_pppoe_rx(uint16_t idx, struct rte_mbuf *m);
/* cpe_tx() and cpe_punt() of the PPPoE interface: IP into the session.
 * 0: m goes on; -1: it was dropped. */
int cpe_pppoe_tx_slow(struct rte_mbuf *m);
int cpe_pppoe_punt(struct rte_mbuf *m);
/* tap.c: pppd's session IP out of its frame (cpe_tx() puts it back). */
void cpe_pppoe_from_tap(struct rte_mbuf *m);

/*
 * cpe_tx() of the PPPoE interface, its common case inline (a forwarded
 * IP frame in one segment, room before it, no checksum offload asked
 * for): 8 bytes of the headroom, our address moved ahead of them, the
 * concentrator's in front, the session header (cpe_pppoe_hdr_tmpl(): the
 * session's constant bytes made when it came up, copied). Every
 * other case, and pppd's frames (PPPoE already: as they are), in
 * pppoe_glue.c.
 */
static __rte_always_inline int
cpe_pppoe_encap(struct rte_mbuf *m, uint8_t *f, uint16_t proto)
{
	uint32_t ip_len = m->pkt_len - RTE_ETHER_HDR_LEN;

	if (unlikely(!cpe_pppoe.up || m->nb_segs != 1 ||
		     rte_pktmbuf_headroom(m) < CPE_PPPOE_OVERHEAD ||
		     (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) ||
		     ip_len > 65533))
		return cpe_pppoe_tx_slow(m);
	f -= CPE_PPPOE_OVERHEAD;
	m->data_off -= CPE_PPPOE_OVERHEAD;
	m->data_len += CPE_PPPOE_OVERHEAD;
	m->pkt_len += CPE_PPPOE_OVERHEAD;
	cpe_pppoe_hdr_tmpl(f, cpe_pppoe.tmpl, f + 14, proto, ip_len);
	cpe_pppoe.tx_data++;
	return 0;
}

static inline int
cpe_pppoe_tx(struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t type;

	/* One copy of the encapsulation per protocol, its PPP one constant. */
	memcpy(&type, f + 12, 2);
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return cpe_pppoe_encap(m, f, CPE_PPP_IPV4);
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return cpe_pppoe_encap(m, f, CPE_PPP_IPV6);
	return 0;
}
/* The next hop on the PPPoE interface (no ARP/ND): 0, or -1 (freed). */
int cpe_pppoe_resolve(struct rte_mbuf *m, struct rte_ether_addr *mac);
void cpe_pppoe_up(uint16_t sid, const uint8_t ac[6]);
void cpe_pppoe_down(void);
void cpe_pppoe_tel(struct rte_tel_data *d);	/* into /cpe/wan's dict */
void cpe_pppoe_print(FILE *f);
void cpe_pppoe_json(FILE *f);

/* wan.c: the WAN's IPv4 address at run time (--wan PORT=dhcp|pppoe). */
void cpe_wan_print(FILE *f);
void cpe_wan_json(FILE *f);
void cpe_wan_tel(struct rte_tel_data *d);	/* /cpe/wan's reply */

/*
 * wan6.c: the WAN's IPv6 at run time: the prefix a DHCPv6 client is
 * delegated (/cpe/wan/prefix6) split into the --lan PORT=pd ports' /64s,
 * and the default route from the ISP's router advertisements.
 */
void cpe_wan6_ra(const struct rte_mbuf *m);	/* an RA on the WAN */
void cpe_wan6_age(void);			/* lifetimes, 4 Hz */
void cpe_wan6_session_down(void);		/* PPPoE: what it taught */
void cpe_wan6_tel(struct rte_tel_data *d);	/* into /cpe/wan's dict */
void cpe_wan6_print(FILE *f);
void cpe_wan6_json(FILE *f);			/* inside "wan" */
int cpe_wan6_ctl_init(void);

/* frag_glue.c: fragments followed by datagram, DF-clear IPv4 cut, MSS. */
int cpe_frag_setup(void);
void cpe_frag_close(void);
void cpe_frag_age_ms(uint32_t ms);
int cpe_frag_info(const struct rte_mbuf *m, struct cpe_frag_info *fi);
void cpe_frag_first4(const struct cpe_frag_info *fi, int out, uint32_t nh,
		     const struct cpe_xlate *x);
void cpe_frag_first6(const struct cpe_frag_info *fi, bool local);
int cpe_frag_later4(uint16_t in, struct rte_mbuf *m,
		    const struct cpe_frag_info *fi);
int cpe_frag_later6(const struct cpe_frag_info *fi);
void cpe_frag_no_first(void);
void cpe_frag_split4(uint16_t out, uint32_t nh, struct rte_mbuf *m);
void cpe_mss_clamp(uint8_t *tcp, uint32_t len, uint32_t limit);
void cpe_frag_print(FILE *f);
void cpe_frag_json(FILE *f);

/* tap.c: traffic for the router it does not handle itself (consumes m) */
void cpe_punt(uint16_t in, struct rte_mbuf *m);
/* As it is, not even a PPPoE interface's IP put back in its session. */
void cpe_punt_raw(uint16_t in, struct rte_mbuf *m);
int cpe_tap_parse(const char *val, struct cpe_tap_cfg *t);
int cpe_tap_init(void);		/* after the ports: creates the TAPs */
void cpe_tap_close(void);
void cpe_tap_poll(void);	/* main loop: Linux's frames out */
int cpe_tap_fd(uint16_t idx);	/* -1: port idx has no TAP */

/* vlan.c: 802.1Q sub-interfaces */
struct rte_eth_conf;
int cpe_parse_port_vlan(const char *s, uint16_t *id, uint16_t *vlan);
int cpe_vlan_check(const struct cpe_opts *o);
int cpe_vlan_setup(void);
void cpe_vlan_port_conf(uint16_t id, struct rte_eth_conf *conf);
uint16_t cpe_vlan_rx(uint16_t idx, struct rte_mbuf **pkts, uint16_t cap);
int cpe_vlan_tag(uint16_t idx, struct rte_mbuf *m);
void cpe_vlan_close(void);
const char *cpe_port_name(uint16_t idx, char *buf, size_t size);
/* idle.c: after each loop, with its packet count and next deadline */
void cpe_idle_init(void);
void cpe_idle(uint32_t got, uint64_t deadline);
/* Lowers the next wait's deadline (TSC), for this loop only. */
void cpe_idle_wake_by(uint64_t tsc);
void cpe_idle_kick(void);
/* A descriptor whose readability ends a wait (--idle interrupt); call it
 * from the forwarding thread (the epoll set is per thread). */
int cpe_idle_watch_fd(int fd);
bool cpe_idle_want_intr(uint16_t port_id);
bool cpe_idle_intr_refused(uint16_t port_id);
/* Whether this loop polls DPDK port cpe.phys[phys] (idle.c). */
bool cpe_idle_poll_port(uint16_t phys);
const char *cpe_idle_mode_name(enum cpe_idle_mode m);
void cpe_idle_stats_print(FILE *f);
void cpe_idle_stats_json(FILE *f);
/* Removes the Rx interrupt of DPDK port cpe.phys[k] from the wait, or
 * adds it back (hotplug.c, around a re-probe). */
void cpe_idle_port_detach(uint16_t k);
void cpe_idle_port_attach(uint16_t k);
/* ctl.c: run-time commands over EAL's telemetry socket */
int cpe_ctl_init(void);
void cpe_ctl_poll(void);
/*
 * For the commands of other files (fw_ctl.c, wan.c). Their telemetry
 * callbacks parse (telemetry thread, no router state) and hand fn and a
 * copy of arg (at most CPE_CTL_ARG_MAX bytes) to the forwarding lcore,
 * which calls fn(arg, d) between two bursts: cpe_ctl_call waits for it.
 * cpe_ctl_bad: a bad request's reply; cpe_ctl_error: a refused one's (on
 * the lcore); cpe_ctl_split (fields.h): params at commas into exactly n
 * fields.
 */
#define CPE_CTL_ARG_MAX		128
typedef void (*cpe_ctl_fn)(const void *arg, struct rte_tel_data *d);
struct cpe_ctl_cmd {
	const char *cmd;
	telemetry_cb fn;
	const char *help;
};
int cpe_ctl_register(const struct cpe_ctl_cmd *cmds, unsigned int n);
int cpe_ctl_call(cpe_ctl_fn fn, const void *arg, size_t len,
		 struct rte_tel_data *d);
int cpe_ctl_bad(struct rte_tel_data *d, const char *cmd, const char *params,
		const char *allowed);
void cpe_ctl_error(struct rte_tel_data *d, const char *err,
		   const char *allowed);
/* fw_ctl.c: /cpe/fw/add, /cpe/fw/del, /cpe/fw/rules; wan.c: /cpe/wan... */
int cpe_fw_ctl_init(void);
int cpe_wan_ctl_init(void);

/*
 * qos.c: the WAN scheduler, on when --wan-rate is given. cpe_tx() hands
 * it the WAN's packets, cpe_tx_flush() lets out what the shaper allows.
 * With --down-rate, a second instance does the same for what came in on
 * the WAN (cpe.down_in) and leaves by a LAN port (idx).
 *
 * A loop that sleeps when idle must not sleep through held packets:
 * while cpe_qos_pending() is true, cpe_tx_flush() must run again no later
 * than cpe_qos_next_tsc(), the TSC at which the shaper can send the next
 * packet (already past when it can send now; UINT64_MAX with nothing
 * held). A full TX queue of the port (PMD back-pressure) is not in it.
 */
extern bool cpe_qos_on;
extern bool cpe_qos_down_on;
uint32_t cpe_qos_mbufs(void);
int cpe_qos_init(void);
void cpe_qos_close(void);
void cpe_qos_enqueue(struct rte_mbuf *m);
void cpe_qos_down_enqueue(uint16_t idx, struct rte_mbuf *m);
void cpe_qos_dequeue(void);
bool cpe_qos_pending(void);
uint64_t cpe_qos_next_tsc(void);
void cpe_qos_print(FILE *f);
void cpe_qos_json(FILE *f);

/* stats.c */
void cpe_stats_print(FILE *f, bool final, double elapsed);
void cpe_stats_json(FILE *f, double elapsed);

/* gen.c */
int cpe_gen_start(void);
void cpe_gen_stop(void);

/* Checksum helpers: one's complement arithmetic on raw (memory order)
 * 16-bit words, so no byte swapping is needed anywhere (RFC 1624).
 */
static inline uint32_t
cpe_csum_fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Adds to adj the change of a 16-bit word from old to new. */
static inline uint32_t
cpe_adj16(uint32_t adj, uint16_t old, uint16_t new)
{
	return adj + (uint16_t)~old + new;
}

static inline uint32_t
cpe_adj32(uint32_t adj, uint32_t old, uint32_t new)
{
	adj = cpe_adj16(adj, (uint16_t)old, (uint16_t)new);
	return cpe_adj16(adj, (uint16_t)(old >> 16), (uint16_t)(new >> 16));
}

/* A checksum field (raw) updated by a precomputed delta. */
static inline uint16_t
cpe_csum_update(uint16_t csum, uint32_t adj)
{
	return (uint16_t)~cpe_csum_fold((uint16_t)~csum + cpe_csum_fold(adj));
}

/*
 * A 16-bit field of a packet at any alignment: a frame may start at any
 * offset of a USB transfer (zero-copy RX, NCM's datagram index), so fields
 * are read and written with memcpy, never through a uint16_t pointer
 * (-Wcast-align=strict; a fault on strict-alignment CPUs).
 */
static inline uint16_t
cpe_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
cpe_put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* Slots of an nb-slot table to age for ms milliseconds (CPE_AGE_PASS_MS). */
static inline uint32_t
cpe_age_budget(uint32_t nb, uint32_t ms)
{
	uint64_t b = ((uint64_t)nb * ms + CPE_AGE_PASS_MS - 1) /
		CPE_AGE_PASS_MS;

	return b < nb ? (uint32_t)b : nb;
}

#endif /* CH39X_CPE_H */
