/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The firewall's pure part (fw.h): no DPDK here, so that the unit test
 * (tests/cpe/test_fw.c) runs the state machine and the policy on crafted
 * packets.
 *
 * Connection tracking: one open-addressed table of a power-of-two number
 * of slots, a tuple hashed to a window of FW_WAYS slots; a new connection
 * takes a free or expired slot of its window, else one of the window's
 * by evict.h's policy (embryonic entries first, the WAN's before the
 * LAN's, least recently used; a connection from the WAN never pushes out
 * an assured one, it is refused): the table is bounded whatever the WAN
 * sends, and what the WAN sends never takes a working connection's
 * place. A connection from the WAN is made only when the guard admits
 * it (guard.h: --synflood-rate). The key is the originator's tuple; a
 * packet is looked up as is (orig direction) and reversed (reply). TCP
 * follows the handshake and the closing (RST, both FINs) for its
 * timeouts, as nat.c's sessions do and with the same --tcp-*-timeout
 * values.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"

#define FW_WAYS		8
#define TCP_FIN		0x01
#define TCP_SYN		0x02
#define TCP_RST		0x04
#define TCP_ACK		0x10

enum { T_NONE, T_SYN_SENT, T_SYN_RECV, T_EST, T_FIN, T_CLOSE };

static const char *const reason_names[CPE_FW_NB_REASONS] = {
	[CPE_FW_ACCEPT] = "accept",
	[CPE_FW_DROP_FWD_NEW] = "wan_to_lan_new",
	[CPE_FW_DROP_INPUT] = "wan_to_router",
	[CPE_FW_DROP_TCP_INVALID] = "tcp_no_state",
	[CPE_FW_DROP_ICMP_ERR] = "icmp_error_untracked",
	[CPE_FW_DROP_ICMP_RATE] = "icmp_echo_rate",
	[CPE_FW_DROP_ND_HOP] = "nd_hop_limit",
	[CPE_FW_DROP_ICMP_TYPE] = "icmp_type",
	[CPE_FW_DROP_BOGON] = "wan_bogon_source",
	[CPE_FW_DROP_SPOOF_WAN] = "wan_lan_source",
	[CPE_FW_DROP_SPOOF_LAN] = "lan_foreign_source",
	[CPE_FW_DROP_FRAG] = "wan_fragment",
	[CPE_FW_DROP_SYNFLOOD] = "synflood_limit",
	[CPE_FW_DROP_FULL] = "state_table_full",
};

const char *
cpe_fw_reason_name(enum cpe_fw_reason r)
{
	return r < CPE_FW_NB_REASONS ? reason_names[r] : "?";
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
v4_mapped(uint8_t *a, const uint8_t *v4)
{
	memset(a, 0, 10);
	a[10] = a[11] = 0xff;
	memcpy(a + 12, v4, 4);
}

static bool
is_icmp_error(bool v6, uint8_t type)
{
	return v6 ? type >= 1 && type <= 4 :
		type == 3 || type == 11 || type == 12;
}

/*
 * The L3 and L4 of a packet into t; *l4 and *l4_len past the IP headers,
 * NULL when the L4 header is not there (a later fragment).
 */
static int
parse_ip(const uint8_t *l3, uint32_t len, struct cpe_fw_tuple *t,
	 uint8_t *hop, bool *frag, const uint8_t **l4, uint32_t *l4_len)
{
	uint32_t ihl, tot, off;
	uint8_t nh;

	memset(t, 0, sizeof(*t));
	*frag = false;
	*l4 = NULL;
	*l4_len = 0;
	if (len < 20)
		return -1;
	if ((l3[0] >> 4) == 4) {
		ihl = (uint32_t)(l3[0] & 0xf) * 4;
		tot = get16(l3 + 2);
		if (ihl < 20 || tot < ihl || len < ihl)
			return -1;
		if (tot < len)
			len = tot;
		v4_mapped(t->src, l3 + 12);
		v4_mapped(t->dst, l3 + 16);
		t->proto = l3[9];
		*hop = l3[8];
		*frag = (get16(l3 + 6) & 0x3fff) != 0;
		if ((get16(l3 + 6) & 0x1fff) == 0) {
			*l4 = l3 + ihl;
			*l4_len = len - ihl;
		}
		return 0;
	}
	if ((l3[0] >> 4) != 6 || len < 40)
		return -1;
	t->v6 = 1;
	memcpy(t->src, l3 + 8, 16);
	memcpy(t->dst, l3 + 24, 16);
	*hop = l3[7];
	nh = l3[6];
	off = 40;
	/* Hop-by-hop (MLD's router alert) and destination options. */
	while ((nh == 0 || nh == 60) && off + 8 <= len) {
		nh = l3[off];
		off += ((uint32_t)l3[off + 1] + 1) * 8;
	}
	if (nh == 44 && off + 8 <= len) {
		*frag = true;
		if ((get16(l3 + off + 2) & 0xfff8) == 0) {
			nh = l3[off];
			off += 8;
		} else {
			t->proto = l3[off];
			return 0;
		}
	}
	t->proto = nh;
	if (off <= len) {
		*l4 = l3 + off;
		*l4_len = len - off;
	}
	return 0;
}

/* Ports or echo id of t from l4; false: none (not TCP/UDP/echo). */
static bool
parse_ports(struct cpe_fw_tuple *t, const uint8_t *l4, uint32_t len,
	    uint8_t *type)
{
	uint8_t icmp = t->v6 ? 58 : 1;

	if (l4 == NULL)
		return false;
	if ((t->proto == 6 || t->proto == 17) && len >= 4) {
		t->sport = get16(l4);
		t->dport = get16(l4 + 2);
		return true;
	}
	if (t->proto == icmp && len >= 8) {
		*type = l4[0];
		if (l4[0] == (t->v6 ? 128 : 8) || l4[0] == (t->v6 ? 129 : 0)) {
			t->sport = get16(l4 + 4);
			return true;
		}
	}
	return false;
}

int
cpe_fw_tuple_of(const uint8_t *l3, uint32_t len, struct cpe_fw_tuple *t)
{
	const uint8_t *l4;
	uint32_t l4_len;
	uint8_t hop, type;
	bool frag;

	if (parse_ip(l3, len, t, &hop, &frag, &l4, &l4_len) != 0)
		return -1;
	parse_ports(t, l4, l4_len, &type);
	return 0;
}

int
cpe_fw_parse(const uint8_t *l3, uint32_t len, struct cpe_fw_pkt *p)
{
	const uint8_t *l4, *q4;
	uint32_t l4_len, q4_len;
	uint8_t qhop, qtype = 0;
	bool qfrag;

	memset(p, 0, sizeof(*p));
	if (parse_ip(l3, len, &p->t, &p->hop, &p->frag, &l4, &l4_len) != 0)
		return -1;
	p->ports = parse_ports(&p->t, l4, l4_len, &p->icmp_type);
	if (l4 != NULL && p->t.proto == 6 && l4_len >= 14)
		p->tcp_flags = l4[13];
	if (l4 == NULL || p->t.proto != (p->t.v6 ? 58 : 1) || l4_len < 8)
		return 0;
	p->icmp_type = l4[0];
	p->icmp_code = l4[1];
	p->echo_req = l4[0] == (p->t.v6 ? 128 : 8);
	p->echo_rep = l4[0] == (p->t.v6 ? 129 : 0);
	if (!is_icmp_error(p->t.v6, l4[0]))
		return 0;
	/* The quoted packet: same family, its ports (8 bytes are enough). */
	if (parse_ip(l4 + 8, l4_len - 8, &p->quoted, &qhop, &qfrag, &q4,
		     &q4_len) != 0 || p->quoted.v6 != p->t.v6)
		return 0;
	if (parse_ports(&p->quoted, q4, q4_len, &qtype))
		p->icmp_err = true;
	return 0;
}

static uint32_t
hash_tuple(const struct cpe_fw_tuple *t)
{
	uint32_t w[10], h = 0x9e3779b9u;
	unsigned int i;

	memcpy(w, t->src, 16);
	memcpy(w + 4, t->dst, 16);
	w[8] = (uint32_t)t->sport << 16 | t->dport;
	w[9] = (uint32_t)t->proto << 8 | t->v6;
	for (i = 0; i < 10; i++) {
		h ^= w[i];
		h *= 0x85ebca6bu;
		h ^= h >> 13;
	}
	return h;
}

/* The tuple of the other direction (an echo's id stays in sport). */
static void
reverse(struct cpe_fw_tuple *r, const struct cpe_fw_tuple *t)
{
	*r = *t;
	memcpy(r->src, t->dst, 16);
	memcpy(r->dst, t->src, 16);
	if (t->proto == 6 || t->proto == 17) {
		r->sport = t->dport;
		r->dport = t->sport;
	}
}

static uint64_t
timeout_of(const struct cpe_fw *fw, const struct cpe_fw_ct *c)
{
	uint32_t t;

	if (c->k.proto == 17)
		t = c->seen_reply ? fw->to.udp : fw->to.udp_unreplied;
	else if (c->k.proto != 6)
		t = fw->to.icmp;
	else if (c->tcp == T_EST)
		t = fw->to.tcp_est;
	else if (c->tcp == T_CLOSE)
		t = fw->to.tcp_close;
	else if (c->tcp == T_SYN_SENT || c->tcp == T_SYN_RECV)
		t = fw->to.tcp_syn;
	else
		t = fw->to.tcp_trans;
	return (uint64_t)t * fw->hz;
}

static bool
expired(const struct cpe_fw *fw, const struct cpe_fw_ct *c, uint64_t now)
{
	return now - c->last > timeout_of(fw, c);
}

static void
slot_free(struct cpe_fw *fw, uint32_t i)
{
	struct cpe_fw_ct *c = &fw->ct[i];

	if (fw->unlink != NULL)
		fw->unlink(i, c);
	memset(c, 0, sizeof(*c));
	c->flow[0] = c->flow[1] = -1;
	fw->in_use--;
}

static int64_t
lookup(struct cpe_fw *fw, const struct cpe_fw_tuple *k, uint64_t now)
{
	uint32_t h = hash_tuple(k), i, s;

	for (i = 0; i < FW_WAYS; i++) {
		s = (h + i) & fw->mask;
		if (!fw->ct[s].used ||
		    memcmp(&fw->ct[s].k, k, sizeof(*k)) != 0)
			continue;
		if (expired(fw, &fw->ct[s], now)) {
			slot_free(fw, s);
			fw->st.expired++;
			return -1;
		}
		return s;
	}
	return -1;
}

/* evict.h's class of a tracked connection. */
static uint8_t
class_of(const struct cpe_fw_ct *c)
{
	bool assured = c->k.proto == 6 ? c->tcp == T_EST || c->tcp == T_FIN :
		c->seen_reply;

	return cpe_ev_class(c->from_wan, assured);
}

/* A slot for k (from the WAN: from_wan, evict.h), or -1: refused. */
static int64_t
create(struct cpe_fw *fw, const struct cpe_fw_tuple *k, uint64_t now,
       bool from_wan)
{
	uint32_t h = hash_tuple(k), i, s, victim = UINT32_MAX;
	struct cpe_ev_pick pick;
	struct cpe_fw_ct *c;

	cpe_ev_pick_init(&pick);
	for (i = 0; i < FW_WAYS; i++) {
		s = (h + i) & fw->mask;
		c = &fw->ct[s];
		if (c->used && expired(fw, c, now)) {
			slot_free(fw, s);
			fw->st.expired++;
		}
		if (!c->used) {
			victim = s;
			break;
		}
		cpe_ev_consider(&pick, s, class_of(c), c->last);
	}
	if (victim == UINT32_MAX) {
		/* The window is full: its least valuable goes, or none. */
		if (!cpe_ev_may_evict(&pick, from_wan)) {
			fw->st.full_refused++;
			return -1;
		}
		victim = pick.idx;
		slot_free(fw, victim);
		fw->st.evicted++;
		fw->st.evicted_cls[pick.cls]++;
	}
	c = &fw->ct[victim];
	c->k = *k;
	c->used = true;
	c->from_wan = from_wan;
	c->last = now;
	c->flow[0] = c->flow[1] = -1;
	fw->in_use++;
	fw->st.created++;
	return victim;
}

/* dir 0: originator's packet, 1: reply. */
static void
tcp_track(struct cpe_fw_ct *c, uint8_t flags, int dir)
{
	if (flags & TCP_RST) {
		c->tcp = T_CLOSE;
		return;
	}
	if ((flags & (TCP_SYN | TCP_ACK)) == TCP_SYN && dir == 0 &&
	    c->tcp == T_CLOSE) {
		c->tcp = T_SYN_SENT;	/* the port pair used again */
		c->fin = 0;
		return;
	}
	if (flags & TCP_FIN) {
		c->fin |= (uint8_t)(1u << dir);
		c->tcp = c->fin == 3 ? T_CLOSE : T_FIN;
		return;
	}
	if (c->tcp == T_SYN_SENT && dir == 1 &&
	    (flags & (TCP_SYN | TCP_ACK)) == (TCP_SYN | TCP_ACK))
		c->tcp = T_SYN_RECV;
	else if (c->tcp == T_SYN_RECV && dir == 0 && (flags & TCP_ACK))
		c->tcp = T_EST;
}

static void
track(struct cpe_fw_ct *c, const struct cpe_fw_pkt *p, int dir, uint64_t now)
{
	c->last = now;
	if (dir == 1)
		c->seen_reply = true;
	if (c->k.proto == 6)
		tcp_track(c, p->tcp_flags, dir);
}

static bool
is_cacheable(const struct cpe_fw_ct *c)
{
	return c->k.proto != 6 || c->tcp == T_EST;
}

/* Finds p's connection: *dir 0 as originator, 1 as reply; -1: none. */
static int64_t
find(struct cpe_fw *fw, const struct cpe_fw_tuple *t, uint64_t now, int *dir)
{
	struct cpe_fw_tuple r;
	int64_t s;

	s = lookup(fw, t, now);
	if (s >= 0) {
		*dir = 0;
		return s;
	}
	reverse(&r, t);
	*dir = 1;
	return lookup(fw, &r, now);
}

/* An ICMP error quoting a packet of a tracked connection, to its sender. */
static bool
quotes_tracked(struct cpe_fw *fw, const struct cpe_fw_pkt *p, uint64_t now)
{
	int dir;

	if (!p->icmp_err || memcmp(p->t.dst, p->quoted.src, 16) != 0)
		return false;
	return find(fw, &p->quoted, now, &dir) >= 0;
}

static struct cpe_fw_rule *
rule_match(struct cpe_fw *fw, const struct cpe_fw_pkt *p, bool pinhole)
{
	struct cpe_fw_rule *r;
	uint16_t i;

	if (!p->ports || (p->t.proto != 6 && p->t.proto != 17))
		return NULL;
	for (i = 0; i < fw->cfg->nb_rules; i++) {
		r = &fw->cfg->rules[i];
		if (r->pinhole != pinhole || r->proto != p->t.proto ||
		    p->t.dport < r->lo || p->t.dport > r->hi)
			continue;
		if (pinhole && (r->v6 != p->t.v6 ||
				!cpe_in_prefix(p->t.dst, r->addr, r->plen)))
			continue;
		return r;
	}
	return NULL;
}

static bool
is_link_local(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

void
cpe_fw_drop(struct cpe_fw *fw, enum cpe_fw_reason r)
{
	fw->st.drops[r]++;
}

static enum cpe_fw_reason
drop(struct cpe_fw *fw, enum cpe_fw_reason r)
{
	fw->st.drops[r]++;
	return r;
}

/* LAN -> WAN and the router's own: accepted, TCP/UDP/echo tracked. */
static enum cpe_fw_reason
check_out(struct cpe_fw *fw, const struct cpe_fw_pkt *p, uint64_t now,
	  uint32_t *ct, bool *cacheable)
{
	int64_t s;
	int dir;

	*cacheable = true;
	if (!p->ports || p->echo_rep)
		return CPE_FW_ACCEPT;	/* nothing to track by */
	s = find(fw, &p->t, now, &dir);
	if (s < 0) {
		if (p->t.proto == 6 && (p->tcp_flags & TCP_RST))
			return CPE_FW_ACCEPT;
		s = create(fw, &p->t, now, false);
		/* Without SYN: picked up in the middle (Linux's loose). */
		fw->ct[s].tcp = p->t.proto != 6 ? T_NONE :
			(p->tcp_flags & (TCP_SYN | TCP_ACK)) == TCP_SYN ?
			T_SYN_SENT : T_EST;
		dir = -1;
	}
	if (dir >= 0)
		track(&fw->ct[s], p, dir, now);
	*ct = (uint32_t)s;
	*cacheable = is_cacheable(&fw->ct[s]);
	return CPE_FW_ACCEPT;
}

/* ICMP(v6) from the WAN, forwarded (fwd) or to the router. */
static enum cpe_fw_reason
check_icmp_in(struct cpe_fw *fw, const struct cpe_fw_pkt *p, bool fwd,
	      uint64_t now, uint32_t *ct, bool *cacheable)
{
	uint8_t t = p->icmp_type;
	int64_t s;
	int dir;

	if (is_icmp_error(p->t.v6, t)) {
		if (!quotes_tracked(fw, p, now))
			return drop(fw, CPE_FW_DROP_ICMP_ERR);
		fw->st.accepted_icmp++;
		return CPE_FW_ACCEPT;
	}
	if (p->echo_req) {
		if (!cpe_tb_take(&fw->echo, now))
			return drop(fw, CPE_FW_DROP_ICMP_RATE);
		fw->st.accepted_icmp++;
		return CPE_FW_ACCEPT;
	}
	if (p->echo_rep) {
		s = find(fw, &p->t, now, &dir);
		if (s < 0 || dir != 1)
			return drop(fw, fwd ? CPE_FW_DROP_FWD_NEW :
				    CPE_FW_DROP_INPUT);
		track(&fw->ct[s], p, dir, now);
		*ct = (uint32_t)s;
		*cacheable = true;
		fw->st.accepted_state++;
		return CPE_FW_ACCEPT;
	}
	if (!fwd && p->t.v6) {
		/* RS, RA, NS, NA, redirect: on-link only (RFC 4861). */
		if (t >= 133 && t <= 137)
			return p->hop == 255 ? CPE_FW_ACCEPT :
				drop(fw, CPE_FW_DROP_ND_HOP);
		/* MLD queries and reports, link-local (RFC 2710, 3810). */
		if ((t == 130 || t == 131 || t == 132 || t == 143) &&
		    is_link_local(p->t.src))
			return CPE_FW_ACCEPT;
	}
	return drop(fw, CPE_FW_DROP_ICMP_TYPE);
}

/* Whether the guard lets a new connection from the WAN make state. */
static bool
admit(struct cpe_fw *fw, const struct cpe_fw_pkt *p, uint64_t now)
{
	if (fw->guard == NULL || !fw->guard->cfg.on)
		return true;
	return cpe_guard_admit(fw->guard, p->t.proto, &p->t, sizeof(p->t),
			       now) != CPE_GUARD_DROP;
}

/* From the WAN, forwarded to the LAN (fwd) or to the router. */
static enum cpe_fw_reason
check_in(struct cpe_fw *fw, const struct cpe_fw_pkt *p, bool fwd,
	 uint64_t now, uint32_t *ct, bool *cacheable)
{
	struct cpe_fw_rule *r;
	int64_t s;
	int dir;

	if (p->t.proto == (p->t.v6 ? 58 : 1) && !p->frag)
		return check_icmp_in(fw, p, fwd, now, ct, cacheable);
	if (!fwd && p->t.proto == 2)
		return CPE_FW_ACCEPT;	/* IGMP, as OpenWrt's Allow-IGMP */
	if (p->ports) {
		s = find(fw, &p->t, now, &dir);
		if (s >= 0) {
			track(&fw->ct[s], p, dir, now);
			*ct = (uint32_t)s;
			*cacheable = is_cacheable(&fw->ct[s]);
			fw->st.accepted_state++;
			return CPE_FW_ACCEPT;
		}
		r = rule_match(fw, p, fwd);
		if (r != NULL && !(p->t.proto == 6 &&
				   (p->tcp_flags & TCP_RST))) {
			if (!admit(fw, p, now)) {
				r->limited++;
				return drop(fw, CPE_FW_DROP_SYNFLOOD);
			}
			s = create(fw, &p->t, now, true);
			if (s < 0)
				return drop(fw, CPE_FW_DROP_FULL);
			r->hits++;
			fw->ct[s].rule = r->id;
			fw->ct[s].tcp = p->t.proto != 6 ? T_NONE :
				(p->tcp_flags & (TCP_SYN | TCP_ACK)) ==
				TCP_SYN ? T_SYN_SENT : T_EST;
			*ct = (uint32_t)s;
			*cacheable = is_cacheable(&fw->ct[s]);
			return CPE_FW_ACCEPT;
		}
		/* The router's DHCP clients (OpenWrt's Allow-DHCP-*). */
		if (!fwd && p->t.proto == 17 &&
		    ((!p->t.v6 && p->t.sport == 67 && p->t.dport == 68) ||
		     (p->t.v6 && p->t.dport == 546 &&
		      is_link_local(p->t.src))))
			return CPE_FW_ACCEPT;
		if (p->t.proto == 6 &&
		    (p->tcp_flags & (TCP_SYN | TCP_ACK)) != TCP_SYN)
			return drop(fw, CPE_FW_DROP_TCP_INVALID);
	} else if (p->frag) {
		return drop(fw, CPE_FW_DROP_FRAG);
	}
	return drop(fw, fwd ? CPE_FW_DROP_FWD_NEW : CPE_FW_DROP_INPUT);
}

enum cpe_fw_reason
cpe_fw_check(struct cpe_fw *fw, const struct cpe_fw_pkt *p,
	     enum cpe_fw_dir dir, uint64_t now, uint32_t *ct, bool *cacheable)
{
	*ct = UINT32_MAX;
	*cacheable = false;
	switch (dir) {
	case CPE_FW_LAN_WAN:
	case CPE_FW_OUT:
		return check_out(fw, p, now, ct, cacheable);
	case CPE_FW_WAN_LAN:
		return check_in(fw, p, true, now, ct, cacheable);
	case CPE_FW_WAN_IN:
	default:
		return check_in(fw, p, false, now, ct, cacheable);
	}
}

void
cpe_fw_touch(struct cpe_fw *fw, uint32_t ct, uint64_t now)
{
	fw->ct[ct].last = now;
}

void
cpe_fw_link_flow(struct cpe_fw *fw, uint32_t ct, int dir, int32_t pos)
{
	fw->ct[ct].flow[dir] = pos;
}

void
cpe_fw_age(struct cpe_fw *fw, uint32_t n, uint64_t now)
{
	struct cpe_fw_ct *c;

	if (fw->ct == NULL)
		return;
	while (n--) {
		fw->cursor = (fw->cursor + 1) & fw->mask;
		c = &fw->ct[fw->cursor];
		if (c->used && expired(fw, c, now)) {
			slot_free(fw, fw->cursor);
			fw->st.expired++;
		}
	}
}

int
cpe_fw_init(struct cpe_fw *fw, struct cpe_fw_cfg *cfg, uint64_t hz,
	    const struct cpe_fw_timeouts *to, uint64_t now)
{
	uint32_t n = 1, i;

	memset(fw, 0, sizeof(*fw));
	while (n < cfg->states && n < (1u << 24))
		n <<= 1;
	if (n < FW_WAYS)
		n = FW_WAYS;
	fw->ct = calloc(n, sizeof(*fw->ct));
	if (fw->ct == NULL)
		return -1;
	for (i = 0; i < n; i++)
		fw->ct[i].flow[0] = fw->ct[i].flow[1] = -1;
	fw->mask = n - 1;
	fw->hz = hz;
	fw->to = *to;
	fw->cfg = cfg;
	cpe_tb_init(&fw->echo, cfg->echo_rate, CPE_FW_ECHO_BURST, hz, now);
	return 0;
}

void
cpe_fw_free(struct cpe_fw *fw)
{
	free(fw->ct);
	fw->ct = NULL;
}

bool
cpe_fw_bogon(const uint8_t *a)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t zero[16];

	if (memcmp(a, mapped, 12) == 0) {
		/* 0/8 "this network", 127/8 loopback, 224/4 and 240/4. */
		return a[12] == 0 || a[12] == 127 || a[12] >= 224;
	}
	/* ::/96 (unspecified, loopback, compatible), ff00::/8, fec0::/10,
	 * and ::ffff:0:0/96 seen as IPv6 (the mapped test above is IPv4's).
	 */
	return memcmp(a, zero, 12) == 0 || a[0] == 0xff ||
		(a[0] == 0xfe && (a[1] & 0xc0) == 0xc0);
}

/* "22" or "5000-5010" into lo, hi. */
static int
parse_range(const char *s, uint16_t *lo, uint16_t *hi)
{
	unsigned long a, b;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	a = strtoul(s, &end, 10);
	b = a;
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		b = strtoul(end + 1, &end, 10);
	}
	if (*end != '\0' || a < 1 || b > 65535 || a > b)
		return -1;
	*lo = (uint16_t)a;
	*hi = (uint16_t)b;
	return 0;
}

static int
parse_addr(const char *s, size_t n, struct cpe_fw_rule *r)
{
	char buf[64], *slash;
	unsigned long plen;
	uint8_t a4[4];

	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	slash = strchr(buf, '/');
	if (slash != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET6, buf, r->addr) == 1) {
		r->v6 = 1;
		r->plen = 128;
	} else if (inet_pton(AF_INET, buf, a4) == 1) {
		v4_mapped(r->addr, a4);
		r->plen = 128;
	} else {
		return -1;
	}
	if (slash != NULL) {
		char *end;

		plen = strtoul(slash, &end, 10);
		if (*slash < '0' || *slash > '9' || *end != '\0' ||
		    plen > (r->v6 ? 128u : 32u))
			return -1;
		r->plen = (uint8_t)(r->v6 ? plen : 96 + plen);
	}
	return 0;
}

const char *
cpe_fw_rule_parse(const char *val, bool pinhole, struct cpe_fw_rule *r)
{
	const char *allowed = pinhole ?
		"PROTO/[IPV6[/PLEN]]:PORT[-PORT] or PROTO/IPV4[/PLEN]:PORT"
		"[-PORT], PROTO tcp or udp, e.g. tcp/[2001:db8::10]:443" :
		"PROTO/PORT[-PORT], PROTO tcp or udp, PORT 1..65535, "
		"e.g. tcp/22 or udp/5000-5010";
	const char *rest, *colon;

	memset(r, 0, sizeof(*r));
	snprintf(r->text, sizeof(r->text), "%s", val);
	if (strncmp(val, "tcp/", 4) == 0)
		r->proto = 6;
	else if (strncmp(val, "udp/", 4) == 0)
		r->proto = 17;
	else
		return allowed;
	rest = val + 4;
	r->pinhole = pinhole;
	if (!pinhole)
		return parse_range(rest, &r->lo, &r->hi) == 0 ? NULL : allowed;
	if (*rest == '[') {
		colon = strstr(rest, "]:");
		if (colon == NULL ||
		    parse_addr(rest + 1, (size_t)(colon - rest - 1), r) != 0 ||
		    !r->v6)
			return allowed;
		colon++;
	} else {
		colon = strrchr(rest, ':');
		if (colon == NULL ||
		    parse_addr(rest, (size_t)(colon - rest), r) != 0 || r->v6)
			return allowed;
	}
	return parse_range(colon + 1, &r->lo, &r->hi) == 0 ? NULL : allowed;
}

const char *
cpe_fw_rule_kind(const struct cpe_fw_rule *r)
{
	return r->pinhole ? "fw-pinhole" : "fw-open";
}

static bool
same_rule(const struct cpe_fw_rule *a, const struct cpe_fw_rule *b)
{
	return a->pinhole == b->pinhole && a->proto == b->proto &&
		a->lo == b->lo && a->hi == b->hi && a->v6 == b->v6 &&
		a->plen == b->plen && memcmp(a->addr, b->addr, 16) == 0;
}

int
cpe_fw_rule_add(struct cpe_fw_cfg *cfg, const struct cpe_fw_rule *r)
{
	struct cpe_fw_rule *n;
	uint16_t i;

	for (i = 0; i < cfg->nb_rules; i++)
		if (same_rule(&cfg->rules[i], r))
			return -EEXIST;
	if (cfg->nb_rules == CPE_FW_MAX_RULES || cfg->next_id == INT32_MAX)
		return -ENOSPC;
	n = &cfg->rules[cfg->nb_rules++];
	*n = *r;
	n->hits = 0;
	n->id = ++cfg->next_id;
	return (int)n->id;
}

int
cpe_fw_rule_del(struct cpe_fw_cfg *cfg, uint32_t id)
{
	uint16_t i;

	for (i = 0; i < cfg->nb_rules; i++)
		if (cfg->rules[i].id == id)
			break;
	if (id == 0 || i == cfg->nb_rules)
		return -ENOENT;
	/* Keeps the order: the first matching rule counts the hit. */
	memmove(&cfg->rules[i], &cfg->rules[i + 1],
		(size_t)(cfg->nb_rules - i - 1) * sizeof(cfg->rules[0]));
	cfg->nb_rules--;
	return 0;
}

uint32_t
cpe_fw_close_rule(struct cpe_fw *fw, uint32_t id)
{
	uint32_t i, n = 0;

	if (fw->ct == NULL || id == 0)
		return 0;
	/* One pass over the table: a deletion is rare, not per packet. */
	for (i = 0; i <= fw->mask; i++) {
		if (fw->ct[i].used && fw->ct[i].rule == id) {
			slot_free(fw, i);
			n++;
		}
	}
	return n;
}

uint32_t
cpe_fw_close_prefix(struct cpe_fw *fw, const uint8_t *pfx, uint8_t plen)
{
	const struct cpe_fw_ct *c;
	uint32_t i, n = 0;

	if (fw->ct == NULL)
		return 0;
	for (i = 0; i <= fw->mask; i++) {
		c = &fw->ct[i];
		if (c->used && c->k.v6 && (cpe_in_prefix(c->k.src, pfx, plen) ||
					   cpe_in_prefix(c->k.dst, pfx, plen))) {
			slot_free(fw, i);
			n++;
		}
	}
	return n;
}

const char *
cpe_fw_forward_parse(const char *val, struct cpe_fw_forward *f)
{
	static const char allowed[] = "PROTO/PORT[-PORT]=IPV4[:PORT], PROTO "
		"tcp or udp, PORT 1..65535, e.g. tcp/8080=192.168.1.10:80 or "
		"udp/5000-5010=192.168.1.10";
	char buf[sizeof(f->text)], *eq, *colon, *end;
	struct in_addr a;
	unsigned long to;
	size_t n = strlen(val);

	memset(f, 0, sizeof(*f));
	if (n >= sizeof(buf))
		return allowed;
	memcpy(f->text, val, n + 1);
	memcpy(buf, val, n + 1);
	if (strncmp(buf, "tcp/", 4) == 0)
		f->proto = 6;
	else if (strncmp(buf, "udp/", 4) == 0)
		f->proto = 17;
	else
		return allowed;
	eq = strchr(buf, '=');
	if (eq == NULL)
		return allowed;
	*eq++ = '\0';
	if (parse_range(buf + 4, &f->lo, &f->hi) != 0)
		return allowed;
	colon = strchr(eq, ':');
	if (colon != NULL)
		*colon++ = '\0';
	if (inet_pton(AF_INET, eq, &a) != 1)
		return allowed;
	f->addr = ntohl(a.s_addr);
	f->to = f->lo;
	if (colon != NULL) {
		if (*colon < '0' || *colon > '9')
			return allowed;
		to = strtoul(colon, &end, 10);
		if (*end != '\0' || to < 1 ||
		    to + (unsigned long)(f->hi - f->lo) > 65535)
			return allowed;
		f->to = (uint16_t)to;
	}
	/* A host address: not 0/8, loopback, multicast or broadcast. */
	if ((f->addr >> 24) == 0 || (f->addr >> 24) == 127 ||
	    (f->addr >> 28) >= 14)
		return allowed;
	return NULL;
}

int
cpe_fw_forward_add(struct cpe_fw_cfg *cfg, const struct cpe_fw_forward *f)
{
	const struct cpe_fw_forward *o;
	uint16_t i;

	for (i = 0; i < cfg->nb_fwd; i++) {
		o = &cfg->fwd[i];
		if (o->proto == f->proto && f->lo <= o->hi && o->lo <= f->hi)
			return -EEXIST;
	}
	if (cfg->nb_fwd == CPE_FW_MAX_FORWARDS)
		return -ENOSPC;
	cfg->fwd[cfg->nb_fwd++] = *f;
	return 0;
}
