/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FW_H
#define CPE_FW_H

/*
 * The firewall's pure part (fw.c): packet view, connection tracking,
 * zone policy, rules and source checks, on raw IP bytes and a clock in
 * ticks, without DPDK, so tests/cpe/test_fw.c links it alone. The glue
 * (fw_glue.c) feeds it the router's packets and addresses.
 *
 * Zones as OpenWrt's defaults: LAN -> WAN and LAN -> router accepted
 * (they create state); WAN -> LAN and WAN -> router dropped unless a
 * reply of tracked state, a rule (--fw-open, --fw-pinhole), or an
 * essential ICMP/ICMPv6 (RFC 4890): echo requests rate-limited, errors
 * only when they quote a tracked flow, neighbour discovery only with hop
 * limit 255.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "evict.h"
#include "guard.h"

/* A packet as the firewall sees it; IPv4 addresses as ::ffff:a.b.c.d. */
struct cpe_fw_tuple {
	uint8_t src[16], dst[16];
	uint16_t sport, dport;		/* host order; ICMP echo: id, 0 */
	uint8_t proto;			/* 6, 17, 1 or 58 */
	uint8_t v6;			/* 1: IPv6 */
};

struct cpe_fw_pkt {
	struct cpe_fw_tuple t;
	uint8_t tcp_flags;
	uint8_t icmp_type, icmp_code;
	uint8_t hop;			/* TTL or hop limit */
	bool ports;			/* t.sport/t.dport mean something */
	bool echo_req, echo_rep;	/* ICMP(v6) echo */
	bool icmp_err;			/* quoted is valid */
	bool frag;			/* IPv4 fragment or IPv6 ext. header */
	struct cpe_fw_tuple quoted;	/* an error's quoted packet */
};

/* Drop reasons, counted each (cpe_fw_reason_name). */
enum cpe_fw_reason {
	CPE_FW_ACCEPT = 0,
	CPE_FW_DROP_FWD_NEW,		/* WAN -> LAN without state or rule */
	CPE_FW_DROP_INPUT,		/* WAN -> router, no state or rule */
	CPE_FW_DROP_TCP_INVALID,	/* no state and not a SYN */
	CPE_FW_DROP_ICMP_ERR,		/* an error quoting no tracked flow */
	CPE_FW_DROP_ICMP_RATE,		/* echo requests over the limit */
	CPE_FW_DROP_ND_HOP,		/* ND with hop limit != 255 */
	CPE_FW_DROP_ICMP_TYPE,		/* other ICMP types from the WAN */
	CPE_FW_DROP_BOGON,		/* WAN source: bogon or router's own */
	CPE_FW_DROP_SPOOF_WAN,		/* WAN source in a LAN prefix */
	CPE_FW_DROP_SPOOF_LAN,		/* LAN source outside LAN prefixes */
	CPE_FW_DROP_FRAG,		/* WAN fragment without state */
	CPE_FW_DROP_SYNFLOOD,		/* new from the WAN, over the limit */
	CPE_FW_DROP_FULL,		/* new from the WAN, table full */
	CPE_FW_NB_REASONS
};

enum cpe_fw_dir {
	CPE_FW_LAN_WAN,			/* forward, creates state */
	CPE_FW_WAN_LAN,			/* forward, needs state or a rule */
	CPE_FW_WAN_IN,			/* to the router from the WAN */
	CPE_FW_OUT,			/* the router's own, to the WAN */
};

/* --fw-open and --fw-pinhole. */
#define CPE_FW_MAX_RULES	64
struct cpe_fw_rule {
	uint8_t proto;			/* 6 or 17 */
	bool pinhole;			/* false: a router port (input) */
	uint8_t v6;			/* pinhole: family of addr */
	uint8_t plen;			/* pinhole: prefix, as in addr */
	uint8_t addr[16];
	uint16_t lo, hi;		/* destination ports */
	uint64_t hits;
	uint64_t limited;		/* new connections over the limit */
	uint32_t id;			/* stable: 1, 2, ... never reused */
	char text[64];			/* as given, for the counters */
};

/*
 * --fw-forward: a WAN port range of the WAN address to a LAN host's
 * ports (DNAT, nat.c), one to one from its first port. IPv4 only.
 */
#define CPE_FW_MAX_FORWARDS	32
struct cpe_fw_forward {
	uint8_t proto;			/* 6 or 17 */
	uint16_t lo, hi;		/* WAN ports, host order */
	uint32_t addr;			/* the LAN host, host order */
	uint16_t to;			/* its port for lo, host order */
	uint64_t hits;			/* connections forwarded */
	uint64_t hairpin;		/* of them from the LAN */
	uint64_t limited;		/* new connections over the limit */
	char text[64];			/* as given */
};

struct cpe_fw_cfg {
	bool on;
	uint32_t states;		/* table size */
	struct cpe_fw_rule rules[CPE_FW_MAX_RULES];
	uint16_t nb_rules;
	uint32_t next_id;		/* the last id given */
	struct cpe_fw_forward fwd[CPE_FW_MAX_FORWARDS];
	uint16_t nb_fwd;
	uint32_t echo_rate;		/* echo requests per second */
	struct cpe_guard_cfg syn;	/* --synflood-* (guard.h) */
};
#define CPE_FW_DEF_STATES	65536
#define CPE_FW_ECHO_RATE	1000	/* as OpenWrt's ICMPv6 rules */
#define CPE_FW_ECHO_BURST	100

struct cpe_fw_timeouts {		/* seconds, shared with nat.c */
	uint32_t tcp_est, tcp_trans, tcp_close, udp, icmp;
	uint32_t tcp_syn;		/* handshake: SYN_SENT, SYN_RECV */
	uint32_t udp_unreplied;		/* UDP never answered */
};

/* A tracked connection; the originator's tuple is the key. */
struct cpe_fw_ct {
	struct cpe_fw_tuple k;
	uint64_t last;			/* ticks */
	int32_t flow[2];		/* flow-cache slots: orig, reply; -1 */
	uint8_t tcp;			/* enum in fw.c */
	uint8_t fin;			/* bit 0: FIN orig, bit 1: FIN reply */
	uint32_t rule;			/* id of the rule that let it in; 0 */
	bool used;
	bool seen_reply;
	bool from_wan;			/* opened by the WAN (a rule) */
};

struct cpe_fw_stats {
	uint64_t drops[CPE_FW_NB_REASONS];
	uint64_t created, expired, evicted, accepted_state;
	uint64_t accepted_icmp;
	uint64_t evicted_cls[CPE_EV_NB];	/* evicted, by class */
	uint64_t full_refused;		/* = drops[CPE_FW_DROP_FULL] */
};

struct cpe_fw {
	struct cpe_fw_ct *ct;
	uint32_t mask;			/* slots - 1, a power of two minus 1 */
	uint32_t cursor;		/* aging */
	uint32_t in_use;
	uint64_t hz;
	struct cpe_fw_timeouts to;
	struct cpe_fw_cfg *cfg;
	struct cpe_fw_stats st;
	struct cpe_tb echo;		/* echo request bucket */
	/* New connections from the WAN (guard.h); NULL: unlimited. */
	struct cpe_guard *guard;
	/* Called before a slot is reused or freed (flow-cache links). */
	void (*unlink)(uint32_t idx, const struct cpe_fw_ct *c);
};

/* Whether address a (16 bytes) is in prefix p/plen (plen 0..128). */
static inline bool
cpe_in_prefix(const uint8_t *a, const uint8_t *p, uint8_t plen)
{
	uint8_t full = plen / 8, rest = plen % 8;

	if (memcmp(a, p, full) != 0)
		return false;
	return rest == 0 ||
		((a[full] ^ p[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

/* Parses an IP packet (from its first byte); -1: not IPv4/IPv6 or short. */
int cpe_fw_parse(const uint8_t *l3, uint32_t len, struct cpe_fw_pkt *p);
/* Only its tuple (as cpe_fw_parse's p->t): the guard's key, cheaper. */
int cpe_fw_tuple_of(const uint8_t *l3, uint32_t len, struct cpe_fw_tuple *t);
int cpe_fw_init(struct cpe_fw *fw, struct cpe_fw_cfg *cfg, uint64_t hz,
		const struct cpe_fw_timeouts *to, uint64_t now);
void cpe_fw_free(struct cpe_fw *fw);
/*
 * The verdict for p in direction dir at time now: CPE_FW_ACCEPT or a
 * drop reason (counted). *ct: the tracked connection it belongs to
 * (created for LAN -> WAN and the router's own), UINT32_MAX: none;
 * *cacheable: whether the flow cache may carry this verdict (false for
 * rate-limited echo and TCP not established).
 */
enum cpe_fw_reason cpe_fw_check(struct cpe_fw *fw, const struct cpe_fw_pkt *p,
				enum cpe_fw_dir dir, uint64_t now,
				uint32_t *ct, bool *cacheable);
void cpe_fw_drop(struct cpe_fw *fw, enum cpe_fw_reason r);
void cpe_fw_touch(struct cpe_fw *fw, uint32_t ct, uint64_t now);
void cpe_fw_link_flow(struct cpe_fw *fw, uint32_t ct, int dir, int32_t pos);
/* Ages a slice of n slots. */
void cpe_fw_age(struct cpe_fw *fw, uint32_t n, uint64_t now);
/* IPv4 (::ffff:0:0/96) or IPv6 bogon sources: never from the WAN. */
bool cpe_fw_bogon(const uint8_t *a);
const char *cpe_fw_reason_name(enum cpe_fw_reason r);
/* "tcp/22", "udp/5000-5010"; pinhole "tcp/[2001:db8::10]:443",
 * "udp/[2001:db8:1::/64]:1000-2000"; NULL or the allowed forms. */
const char *cpe_fw_rule_parse(const char *val, bool pinhole,
			      struct cpe_fw_rule *r);
/*
 * Rules at run time (and from the options): add r under the next id, its
 * id or -ENOSPC (CPE_FW_MAX_RULES) or -EEXIST (the same rule is there);
 * delete by id, 0 or -ENOENT. A deleted rule's connections are closed by
 * cpe_fw_close_rule(), which returns how many it closed; rules never
 * change under a packet (both run on the forwarding lcore).
 */
int cpe_fw_rule_add(struct cpe_fw_cfg *cfg, const struct cpe_fw_rule *r);
/* "fw-open" or "fw-pinhole", as the option and the counters name it. */
const char *cpe_fw_rule_kind(const struct cpe_fw_rule *r);
/* "tcp/8080=192.168.1.10:80", "udp/5000-5010=192.168.1.10": NULL, or
 * the allowed forms. cpe_fw_forward_add: 0, -ENOSPC or -EEXIST (a WAN
 * port of f is forwarded already).
 */
const char *cpe_fw_forward_parse(const char *val, struct cpe_fw_forward *f);
int cpe_fw_forward_add(struct cpe_fw_cfg *cfg, const struct cpe_fw_forward *f);
int cpe_fw_rule_del(struct cpe_fw_cfg *cfg, uint32_t id);
uint32_t cpe_fw_close_rule(struct cpe_fw *fw, uint32_t id);
/*
 * The IPv6 connections from or to pfx/plen closed (a delegated prefix
 * withdrawn: its hosts' states are stale): how many.
 */
uint32_t cpe_fw_close_prefix(struct cpe_fw *fw, const uint8_t *pfx,
			     uint8_t plen);

#endif
