/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_H
#define CH39X_CPE_H

/*
 * ch39x-cpe: an IPv4 CPE router (one WAN port with NAPT, one or more LAN
 * ports) on DPDK ports, with a flow-cache fast path in front of the
 * routing/ARP/NAT slow path. One lcore forwards; see main.c for the loop,
 * flow.c for the fast path, fwd.c for the slow path.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_mbuf.h>

#include "qos.h"

/* DPDK 24.11 renamed the ICMP types and deprecated RTE_IP_ICMP_ECHO_*. */
#ifndef RTE_ICMP_TYPE_ECHO_REQUEST
#define RTE_ICMP_TYPE_ECHO_REQUEST 8
#define RTE_ICMP_TYPE_ECHO_REPLY 0
#endif

#define CPE_MAX_PORTS		8
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
#define CPE_DEF_UDP_TIMEOUT	120
#define CPE_DEF_ICMP_TIMEOUT	30
#define CPE_DEF_ARP_TIMEOUT	60
#define CPE_ICMP_QUOTE		576	/* RFC 1812 4.3.2.3: error size */

/* One port as configured (opts.c) and set up (ports.c). */
struct cpe_port_cfg {
	uint16_t id;
	bool wan;
	uint32_t ip;			/* host order */
	uint8_t plen;
};

struct cpe_route_cfg {
	uint32_t prefix;		/* host order */
	uint8_t plen;
	uint32_t gw;			/* 0: connected */
};

struct cpe_neigh_cfg {
	uint32_t ip;
	struct rte_ether_addr mac;
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
	uint32_t arp_timeout;
	double stats_interval;		/* 0: only at exit */
	double duration;		/* 0: until a signal */
	bool json;
	bool tx_csum;			/* IPv4 header checksum offload used */
	uint32_t data_room;
	struct cpe_gen_cfg gen;
	struct cpe_qos_cfg qos;		/* WAN scheduler (qos.c) */
	const char *config;		/* file the options came from, if any */
	/* --vdev lines of the config file, handed to EAL. */
	char *vdevs[CPE_MAX_PORTS];
	uint16_t nb_vdevs;
};

/* Counters: one set, the forwarding lcore writes them. */
struct cpe_port_stats {
	uint64_t rx, tx, tx_drops, rx_bytes, tx_bytes;
};

struct cpe_stats {
	struct cpe_port_stats port[CPE_MAX_PORTS];
	uint64_t fast_hits, fast_misses, fast_stale, flow_installs;
	uint64_t flow_evictions, flow_full, flow_invalidated;
	uint64_t slow_pkts;
	uint64_t nat_created, nat_expired, nat_full, nat_no_mapping;
	uint64_t nat_unsupported, nat_icmp_err_xlated;
	uint64_t arp_req_sent, arp_replies_sent, arp_learned, arp_changed;
	uint64_t arp_expired, neigh_queued, neigh_queue_drops;
	uint64_t icmp_ttl, icmp_unreach, icmp_frag_needed, icmp_echo_replies;
	uint64_t drop_ttl, drop_no_route, drop_mtu, drop_bad, drop_frag;
	uint64_t drop_not_ip, drop_local, drop_nomem;
	uint64_t busy_cycles, busy_pkts, loops, app_cycles, thread_cpu_ns;
	uint64_t clean_cycles, clean_pkts, preempted_loops;
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
};

/* The router's state, shared by the files below. */
struct cpe_port {
	uint16_t id;
	bool wan;
	uint32_t ip, mask;		/* host order */
	uint32_t ip_be;
	struct rte_ether_addr mac;
	uint16_t mtu;
	bool ip_csum_offload;
	struct rte_mbuf *txq[CPE_TXQ];
	uint32_t txlen[CPE_TXQ];
	uint16_t nb_tx;
};

struct cpe {
	struct cpe_opts *o;
	struct cpe_port ports[CPE_MAX_PORTS];
	uint16_t nb_ports;
	int16_t wan;			/* index, -1: none */
	int16_t by_id[RTE_MAX_ETHPORTS];	/* port id -> index, -1 */
	struct rte_mempool *pool;
	uint64_t hz;
	uint64_t now;			/* TSC, once per loop */
	uint32_t gen;			/* bumped when routes/neighbours change */
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

/* route.c */
int cpe_route_init(void);
int cpe_route_add(uint32_t prefix, uint8_t plen, uint32_t gw, uint16_t out);
int cpe_route_lookup(uint32_t dst, uint16_t *out, uint32_t *nexthop);

/* neigh.c */
int cpe_neigh_init(void);
void cpe_arp_input(uint16_t in, struct rte_mbuf *m);
/* 0: MAC known (in *mac); 1: queued, resolving; <0: dropped */
int cpe_neigh_resolve(uint16_t out, uint32_t ip, struct rte_mbuf *m,
		      struct rte_ether_addr *mac);
void cpe_neigh_age(void);
uint32_t cpe_neigh_count(void);

/* nat.c */
int cpe_nat_init(void);
uint32_t cpe_nat_in_use(void);
void cpe_nat_age(uint32_t budget);
/* Out: a LAN->WAN packet; finds or creates the session. */
int cpe_nat_out(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		uint32_t l4_len);
/* In: a WAN packet to our WAN address; 0 and x filled when mapped. */
int cpe_nat_in_lookup(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		      uint32_t l4_len);
int cpe_nat_icmp_error(struct rte_mbuf *m, bool from_wan);
bool cpe_nat_sess_cacheable(uint32_t sess);
void cpe_nat_touch(uint32_t sess);
void cpe_nat_link_flow(uint32_t sess, int dir, int32_t flow_pos);

/* flow.c */
int cpe_flow_init(void);
void cpe_flow_input(uint16_t in, struct rte_mbuf **pkts, uint16_t n);
#define CPE_FLOW_KEY_LEN	16
void cpe_flow_learn(uint16_t in, const void *key, const struct cpe_xlate *x);
int cpe_flow_key(uint16_t in, const struct rte_mbuf *m, void *key);
void cpe_flow_del(int32_t pos);
void cpe_flow_del_sess(int32_t pos, uint32_t sess);
void cpe_xlate_prepare(const struct rte_mbuf *m, struct cpe_xlate *x);
void cpe_flow_age(uint32_t budget);
uint32_t cpe_flow_count(void);
void cpe_xlate_apply(struct rte_mbuf *m, const struct cpe_xlate *x);

/* fwd.c */
void cpe_slow_input(uint16_t in, struct rte_mbuf *m);

/* tap.c: traffic for the router it does not handle itself (consumes m) */
void cpe_punt(uint16_t in, struct rte_mbuf *m);

/*
 * qos.c: the WAN scheduler, on when --wan-rate is given. cpe_tx() hands
 * it the WAN's packets, cpe_tx_flush() lets out what the shaper allows.
 *
 * A loop that sleeps when idle must not sleep through held packets:
 * while cpe_qos_pending() is true, cpe_tx_flush() must run again no later
 * than cpe_qos_next_tsc(), the TSC at which the shaper can send the next
 * packet (already past when it can send now; UINT64_MAX with nothing
 * held). A full TX queue of the port (PMD back-pressure) is not in it.
 */
extern bool cpe_qos_on;
uint32_t cpe_qos_mbufs(void);
int cpe_qos_init(void);
void cpe_qos_close(void);
void cpe_qos_enqueue(struct rte_mbuf *m);
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

#endif /* CH39X_CPE_H */
