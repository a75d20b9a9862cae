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
 *
 * The parser is fw_parse.c, the rules' and forwards' text fw_text.c.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "fw_bits.h"

#define FW_WAYS		8
#define TCP_FIN		0x01
#define TCP_SYN		0x02
#define TCP_RST		0x04
#define TCP_ACK		0x10

enum { T_NONE, T_SYN_SENT, T_SYN_RECV, T_EST, T_FIN, T_CLOSE };

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
		fw->unlink(fw, i, c);
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
