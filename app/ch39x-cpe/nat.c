/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * NAPT on the WAN port for TCP, UDP and ICMP echo. A session is found by
 * two rte_hash tables: "out" by the LAN side's 5-tuple (LAN address and
 * port, remote address and port), "in" by the 5-tuple of the replies as
 * they reach the WAN address. External ports (ICMP: echo ids) are unique
 * per protocol, the LAN port kept when free (as Linux does), otherwise the
 * next free one of --nat-ports. Mapping is endpoint-independent (RFC 4787
 * REQ-1, RFC 5382 REQ-1): a third table, "map", gives the LAN address and
 * port's external port to every session it opens, whatever the remote
 * end; the port is freed with the last of them (refs). Sessions time out per protocol and TCP
 * state: enough state to close flows (handshake, established, FIN seen,
 * closed after RST or both FINs). ICMP errors about a session's packets
 * are translated back, outer and quoted headers both.
 *
 * Port forwards (--fw-forward, DNAT): a WAN packet to a forwarded port of
 * the WAN address that has no session makes one, as if the LAN host had
 * connected out from its port (so its replies take the ordinary path),
 * the forwarded port as the external one. Forwarded ports are reserved
 * for good: no dynamic mapping takes them. Hairpin: a LAN host that uses
 * the WAN address and a forwarded port reaches the LAN host behind it
 * with its source rewritten to the router's address on that host's LAN
 * (so the replies come back through the router, RFC 4787 REQ-9, RFC 5382
 * REQ-8); such a session's external side is (router LAN address, a
 * dynamic port) and its replies are looked up on the LAN side.
 *
 * Under a flood: a forwarded connection is made only when the guard
 * admits it (guard.h, --synflood-rate); a full table makes room by
 * evict.h's policy (make_room: the forwards' handshakes and unanswered
 * UDP first, assured sessions last, the LAN's never for the WAN's), and
 * a handshake or an unanswered UDP session times out sooner
 * (--tcp-syn-timeout, --udp-unreplied-timeout).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "cpe.h"

struct nat_key {
	uint32_t a, b;			/* network order */
	uint16_t pa, pb;
	uint8_t proto;
	uint8_t pad[3];
};

enum { T_NONE, T_SYN, T_EST, T_FIN, T_CLOSE };

struct sess {
	struct nat_key out, in;
	uint64_t last;			/* TSC */
	int32_t flow[2];		/* cached flows: out, in; -1 none */
	uint16_t ext;			/* network order */
	uint8_t tcp;
	uint8_t fin;			/* bit 0: FIN out, bit 1: FIN in */
	uint8_t seen;			/* bit 0: a packet out, bit 1: in */
	bool used;
	bool fwd;			/* ext is a forwarded port: kept */
	bool hairpin;			/* LAN -> WAN address -> LAN */
};

static struct rte_hash *h_out, *h_in, *h_map;

/* "map": a LAN address and port (ICMP: echo id) of a protocol. */
struct map_key {
	uint32_t a;			/* network order */
	uint16_t pa;
	uint8_t proto;
	uint8_t pad;
};
/* Sessions using each external port, per protocol (TCP, UDP, ICMP). */
static uint32_t *port_refs[3];
static struct sess *sess;
static uint32_t nb_sess;
static uint32_t age_cursor;
static uint32_t evict_cursor;		/* make_room's scan */
/* Sessions make_room looks at for the one to push out. */
#define NAT_EVICT_SCAN	64
/* Bitmaps of external ports in use: TCP, UDP, ICMP. */
static uint64_t ports_used[3][65536 / 64];
static uint32_t port_cursor[3];

static int
proto_idx(uint8_t proto)
{
	return proto == IPPROTO_TCP ? 0 : proto == IPPROTO_UDP ? 1 : 2;
}

static bool
port_busy(int pi, uint16_t p)
{
	return ports_used[pi][p >> 6] & (1ull << (p & 63));
}

static void
port_set(int pi, uint16_t p, bool on)
{
	if (on)
		ports_used[pi][p >> 6] |= 1ull << (p & 63);
	else
		ports_used[pi][p >> 6] &= ~(1ull << (p & 63));
}

/* Host order in, host order out; 0: none free. */
static uint16_t
port_alloc(int pi, uint16_t want)
{
	uint32_t lo = cpe.o->nat_lo, hi = cpe.o->nat_hi, n = hi - lo + 1, i;
	uint32_t p;

	if (want >= lo && want <= hi && !port_busy(pi, want)) {
		port_set(pi, want, true);
		return want;
	}
	for (i = 0; i < n; i++) {
		p = lo + (port_cursor[pi] + i) % n;
		if (!port_busy(pi, (uint16_t)p)) {
			port_cursor[pi] = p - lo + 1;
			port_set(pi, (uint16_t)p, true);
			return (uint16_t)p;
		}
	}
	return 0;
}

static void
map_key_of(const struct nat_key *out, struct map_key *mk)
{
	memset(mk, 0, sizeof(*mk));
	mk->a = out->a;
	mk->pa = out->pa;
	mk->proto = out->proto;
}

/*
 * The external port of out's LAN address and port (host order): the one
 * its mapping has, else a new one and its mapping (the LAN port kept when
 * free). 0: none free. A session holds a reference (port_unref).
 */
static uint16_t
map_get(const struct nat_key *out)
{
	int pi = proto_idx(out->proto);
	struct map_key mk;
	uint16_t ext;
	void *data;

	map_key_of(out, &mk);
	if (rte_hash_lookup_data(h_map, &mk, &data) >= 0) {
		ext = (uint16_t)(uintptr_t)data;
	} else {
		ext = port_alloc(pi, rte_be_to_cpu_16(out->pa));
		if (ext == 0)
			return 0;
		if (rte_hash_add_key_data(h_map, &mk,
					  (void *)(uintptr_t)ext) != 0) {
			port_set(pi, ext, false);
			return 0;
		}
	}
	port_refs[pi][ext]++;
	return ext;
}

/* A session's reference to its external port gone: the last frees it
 * (and its mapping, unless a hairpin session's: those have none).
 */
static void
port_unref(const struct sess *s)
{
	int pi = proto_idx(s->out.proto);
	uint16_t ext = rte_be_to_cpu_16(s->ext);
	struct map_key mk;

	if (port_refs[pi][ext] > 0 && --port_refs[pi][ext] > 0)
		return;
	port_set(pi, ext, false);
	if (!s->hairpin) {
		map_key_of(&s->out, &mk);
		rte_hash_del_key(h_map, &mk);
	}
}

int
cpe_nat_init(void)
{
	int i;
	/* Extendable buckets: an add fails only when all --nat-sessions
	 * are in use (make_room's cue), never on a crowded bucket first. */
	struct rte_hash_parameters hp = {
		.entries = cpe.o->nat_sessions,
		.key_len = sizeof(struct nat_key),
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};

	hp.name = "cpe_nat_out";
	h_out = rte_hash_create(&hp);
	hp.name = "cpe_nat_in";
	h_in = rte_hash_create(&hp);
	hp.name = "cpe_nat_map";
	hp.key_len = sizeof(struct map_key);
	h_map = rte_hash_create(&hp);
	if (h_out == NULL || h_in == NULL || h_map == NULL)
		return -ENOMEM;
	for (i = 0; i < 3; i++) {
		port_refs[i] = calloc(65536, sizeof(port_refs[i][0]));
		if (port_refs[i] == NULL)
			return -ENOMEM;
	}
	nb_sess = (uint32_t)rte_hash_max_key_id(h_out) + 1;
	sess = calloc(nb_sess, sizeof(*sess));
	return sess == NULL ? -ENOMEM : 0;
}

/* The LAN port whose subnet holds a (not one of the router's), or -1. */
static int
lan_of(uint32_t a)
{
	uint16_t i;

	for (i = 0; i < cpe.nb_ports; i++)
		if (!cpe.ports[i].wan && cpe.ports[i].ip != 0 &&
		    cpe.ports[i].ip != a &&
		    ((a ^ cpe.ports[i].ip) & cpe.ports[i].mask) == 0)
			return i;
	return -1;
}

int
cpe_nat_forward_setup(void)
{
	const struct cpe_fw_cfg *c = &cpe.o->fw;
	uint32_t p;
	uint16_t i;

	if (c->nb_fwd == 0)
		return 0;
	if (!cpe.o->nat || cpe.wan < 0) {
		fprintf(stderr, "ch39x-cpe: --fw-forward %s: port forwards "
			"need NAT on a --wan port (not --no-nat)\n",
			c->fwd[0].text);
		return -EINVAL;
	}
	for (i = 0; i < c->nb_fwd; i++) {
		if (lan_of(c->fwd[i].addr) < 0) {
			fprintf(stderr, "ch39x-cpe: --fw-forward %s: the "
				"address is on no --lan subnet (or is the "
				"router's); allowed: a LAN host's address\n",
				c->fwd[i].text);
			return -EINVAL;
		}
		for (p = c->fwd[i].lo; p <= c->fwd[i].hi; p++)
			port_set(proto_idx(c->fwd[i].proto), (uint16_t)p,
				 true);
	}
	return 0;
}

uint32_t
cpe_nat_in_use(void)
{
	return h_out == NULL ? 0 : (uint32_t)rte_hash_count(h_out);
}

static uint64_t
timeout_of(const struct sess *s)
{
	const struct cpe_opts *o = cpe.o;
	uint32_t t;

	if (s->out.proto == IPPROTO_UDP)
		t = s->seen == 3 ? o->udp_timeout : o->udp_unreplied;
	else if (s->out.proto == IPPROTO_ICMP)
		t = o->icmp_timeout;
	else if (s->tcp == T_EST)
		t = o->tcp_timeout;
	else if (s->tcp == T_CLOSE)
		t = o->tcp_close;
	else if (s->tcp == T_SYN)
		t = o->tcp_syn;
	else
		t = o->tcp_trans;
	return (uint64_t)t * cpe.hz;
}

static void
sess_del(uint32_t i)
{
	struct sess *s = &sess[i];

	/* The fast path must not rewrite with a mapping that is gone. */
	if (s->flow[0] >= 0)
		cpe_flow_del_sess(s->flow[0], i);
	if (s->flow[1] >= 0)
		cpe_flow_del_sess(s->flow[1], i);
	rte_hash_del_key(h_in, &s->in);
	rte_hash_del_key(h_out, &s->out);
	if (!s->fwd)
		port_unref(s);
	memset(s, 0, sizeof(*s));
}

uint32_t
cpe_nat_flush(void)
{
	uint32_t i, n = 0;

	for (i = 0; sess != NULL && i < nb_sess; i++) {
		if (!sess[i].used)
			continue;
		sess_del(i);
		n++;
	}
	return n;
}

/* evict.h's class: a forward's session is the WAN's. */
static uint8_t
class_of(const struct sess *s)
{
	bool assured = s->out.proto == IPPROTO_TCP ?
		s->tcp == T_EST || s->tcp == T_FIN : s->seen == 3;

	return cpe_ev_class(s->fwd, assured);
}

/*
 * Room for a new session (from the WAN: from_wan) when all --nat-sessions
 * are in use: an expired one found on the way, else the least valuable of
 * NAT_EVICT_SCAN sessions (the scan goes round the table, so the oldest
 * come first) goes (evict.h). 0, or -ENOSPC (refused, counted).
 */
static int
make_room(bool from_wan)
{
	struct cpe_ev_pick pick;
	struct sess *s;
	uint32_t i, n = 0;

	if (cpe_nat_in_use() < cpe.o->nat_sessions)
		return 0;
	cpe_ev_pick_init(&pick);
	for (i = 0; i < nb_sess && n < NAT_EVICT_SCAN &&
		     pick.cls != CPE_EV_EMBRYONIC_WAN; i++) {
		if (++evict_cursor >= nb_sess)
			evict_cursor = 0;
		s = &sess[evict_cursor];
		if (!s->used)
			continue;
		if (cpe.now - s->last > timeout_of(s)) {
			sess_del(evict_cursor);
			cpe.st.nat_expired++;
			return 0;
		}
		cpe_ev_consider(&pick, evict_cursor, class_of(s), s->last);
		n++;
	}
	if (!cpe_ev_may_evict(&pick, from_wan)) {
		cpe.st.nat_full_refused++;
		return -ENOSPC;
	}
	sess_del(pick.idx);
	cpe.st.nat_evicted[pick.cls]++;
	return 0;
}

void
cpe_nat_age(uint32_t ms)
{
	uint32_t budget = cpe_age_budget(nb_sess, ms);
	struct sess *s;

	while (budget--) {
		if (++age_cursor >= nb_sess)
			age_cursor = 0;
		s = &sess[age_cursor];
		if (s->used && cpe.now - s->last > timeout_of(s)) {
			sess_del(age_cursor);
			cpe.st.nat_expired++;
		}
	}
}

/*
 * The WAN port was down for shift TSC cycles (hotplug.c): no session
 * aged meanwhile (main.c does not age them while it is down), and each
 * keeps the time it had left, so that a flow whose packets could not
 * pass finds its mapping (its external port) again.
 */
void
cpe_nat_resume(uint64_t shift)
{
	uint32_t i;

	for (i = 0; i < nb_sess; i++)
		if (sess[i].used)
			sess[i].last = RTE_MIN(sess[i].last + shift, cpe.now);
}

bool
cpe_nat_sess_cacheable(uint32_t i)
{
	return sess[i].out.proto != IPPROTO_TCP || sess[i].tcp == T_EST;
}

void
cpe_nat_touch(uint32_t i)
{
	sess[i].last = cpe.now;
}

void
cpe_nat_link_flow(uint32_t i, int dir, int32_t pos)
{
	sess[i].flow[dir] = pos;
}

/* dir 0: LAN -> WAN, 1: WAN -> LAN. */
static void
tcp_track(struct sess *s, uint8_t flags, int dir)
{
	if (flags & RTE_TCP_RST_FLAG) {
		s->tcp = T_CLOSE;
		return;
	}
	if ((flags & RTE_TCP_SYN_FLAG) && dir == 0 &&
	    !(flags & RTE_TCP_ACK_FLAG) && s->tcp == T_CLOSE) {
		/* The port pair is used again. */
		s->tcp = T_SYN;
		s->fin = 0;
		return;
	}
	if (flags & RTE_TCP_FIN_FLAG) {
		s->fin |= 1u << dir;
		s->tcp = s->fin == 3 ? T_CLOSE : T_FIN;
		return;
	}
	if (s->tcp == T_SYN && dir == 1 && (flags & RTE_TCP_ACK_FLAG))
		s->tcp = T_EST;
}

/* Ports (or the echo id) of an L4 header; -1 if not NAT-able. */
static int
l4_ports(uint8_t proto, const uint8_t *l4, uint32_t len, uint16_t *sp,
	 uint16_t *dp, bool echo_req)
{
	if (proto == IPPROTO_TCP || proto == IPPROTO_UDP) {
		if (len < 8)
			return -1;
		memcpy(sp, l4, 2);
		memcpy(dp, l4 + 2, 2);
		return 0;
	}
	if (proto == IPPROTO_ICMP && len >= 8 &&
	    l4[0] == (echo_req ? RTE_ICMP_TYPE_ECHO_REQUEST :
		      RTE_ICMP_TYPE_ECHO_REPLY)) {
		memcpy(sp, l4 + 4, 2);
		*dp = 0;
		return 0;
	}
	return -1;
}

/* A session of keys out and in, external port ext; its index or <0. */
static int32_t
sess_add(const struct nat_key *out, const struct nat_key *in, uint16_t ext,
	 const uint8_t *l4)
{
	struct sess *s;
	int32_t pos;

	/* The same LAN side in use (add would return its slot). */
	if (rte_hash_lookup(h_out, out) >= 0)
		return -EEXIST;
	pos = rte_hash_add_key(h_out, out);
	if (pos < 0)
		return pos;
	s = &sess[pos];
	memset(s, 0, sizeof(*s));
	s->out = *out;
	s->in = *in;
	s->ext = ext;
	s->flow[0] = s->flow[1] = -1;
	if (rte_hash_add_key_data(h_in, in, (void *)(uintptr_t)pos) != 0) {
		rte_hash_del_key(h_out, out);
		return -ENOSPC;
	}
	s->used = true;
	s->tcp = out->proto != IPPROTO_TCP ? T_NONE :
		(l4[13] & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) ==
		RTE_TCP_SYN_FLAG ? T_SYN : T_EST;
	cpe.st.nat_created++;
	return pos;
}

int
cpe_nat_out(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
	    uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_port *wan = &cpe.ports[cpe.wan];
	struct nat_key k;
	struct sess *s;
	uint16_t sp, dp, ext;
	int32_t pos;
	struct sess t;

	memset(&k, 0, sizeof(k));
	if (l4_ports(ip->next_proto_id, l4, l4_len, &sp, &dp, true) != 0) {
		cpe.st.nat_unsupported++;
		return -ENOTSUP;
	}
	k.a = ip->src_addr;
	k.b = ip->dst_addr;
	k.pa = sp;
	k.pb = dp;
	k.proto = ip->next_proto_id;
	pos = rte_hash_lookup(h_out, &k);
	if (pos < 0) {
		if (make_room(false) != 0) {
			cpe.st.nat_full++;
			return -ENOSPC;
		}
		ext = map_get(&k);
		if (ext == 0) {
			cpe.st.nat_full++;
			return -ENOSPC;
		}
		memset(&t, 0, sizeof(t));
		t.out = k;
		t.ext = rte_cpu_to_be_16(ext);
		t.in.a = k.b;
		t.in.b = wan->ip_be;
		t.in.pa = k.proto == IPPROTO_ICMP ? 0 : dp;
		t.in.pb = t.ext;
		t.in.proto = k.proto;
		pos = sess_add(&k, &t.in, t.ext, l4);
		if (pos < 0) {
			port_unref(&t);
			cpe.st.nat_full++;
			return -ENOSPC;
		}
	}
	s = &sess[pos];
	if (k.proto == IPPROTO_TCP)
		tcp_track(s, l4[13], 0);
	s->last = cpe.now;
	s->seen |= 1;
	x->nat = true;
	x->sip = wan->ip_be;
	x->dip = ip->dst_addr;
	x->sport = s->ext;
	x->dport = dp;
	x->sess = (uint32_t)pos;
	return 0;
}

int
cpe_nat_in_lookup(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		  uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct nat_key k;
	struct sess *s;
	uint16_t sp, dp;
	void *data;

	memset(&k, 0, sizeof(k));
	if (l4_ports(ip->next_proto_id, l4, l4_len, &sp, &dp, false) != 0)
		return -ENOENT;
	k.a = ip->src_addr;
	k.b = ip->dst_addr;
	k.proto = ip->next_proto_id;
	if (k.proto == IPPROTO_ICMP) {
		k.pa = 0;
		k.pb = sp;
	} else {
		k.pa = sp;
		k.pb = dp;
	}
	if (rte_hash_lookup_data(h_in, &k, &data) < 0)
		return -ENOENT;
	s = &sess[(uintptr_t)data];
	if (k.proto == IPPROTO_TCP)
		tcp_track(s, l4[13], 1);
	s->last = cpe.now;
	s->seen |= 2;
	x->nat = true;
	x->sip = ip->src_addr;
	x->dip = s->out.a;
	/* ICMP: the echo id lives in sport for both directions. */
	x->sport = k.proto == IPPROTO_ICMP ? s->out.pa : sp;
	x->dport = k.proto == IPPROTO_ICMP ? 0 : s->out.pa;
	if (s->hairpin) {
		/* From the WAN address and port the LAN host used. */
		x->sip = s->out.b;
		x->sport = s->out.pb;
	}
	x->sess = (uint32_t)(uintptr_t)data;
	return 0;
}

static const struct cpe_fw_forward *
forward_of(uint8_t proto, uint16_t port)
{
	const struct cpe_fw_cfg *c = &cpe.o->fw;
	uint16_t i;

	for (i = 0; i < c->nb_fwd; i++)
		if (c->fwd[i].proto == proto && port >= c->fwd[i].lo &&
		    port <= c->fwd[i].hi)
			return &c->fwd[i];
	return NULL;
}


/* A TCP or UDP packet's ports, when there are forwards: 0 or -ENOENT. */
static int
forward_ports(const struct rte_ipv4_hdr *ip, const uint8_t *l4,
	      uint32_t l4_len, uint16_t *sp, uint16_t *dp)
{
	if (cpe.o->fw.nb_fwd == 0 || (ip->next_proto_id != IPPROTO_TCP &&
				      ip->next_proto_id != IPPROTO_UDP))
		return -ENOENT;
	return l4_ports(ip->next_proto_id, l4, l4_len, sp, dp, false) != 0 ?
		-ENOENT : 0;
}

/* The LAN host and its port for WAN port dp (network order) of f. */
static void
forward_target(const struct cpe_fw_forward *f, uint16_t dp, uint32_t *a,
	       uint16_t *p)
{
	*a = rte_cpu_to_be_32(f->addr);
	*p = rte_cpu_to_be_16((uint16_t)(f->to + rte_be_to_cpu_16(dp) -
					 f->lo));
}

int
cpe_nat_forward_in(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		   uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_fw_forward *f;
	struct nat_key out, in;
	uint16_t sp, dp;
	int32_t pos;

	if (forward_ports(ip, l4, l4_len, &sp, &dp) != 0)
		return -ENOENT;
	f = (struct cpe_fw_forward *)(uintptr_t)
		forward_of(ip->next_proto_id, rte_be_to_cpu_16(dp));
	if (f == NULL)
		return -ENOENT;
	/* Only a TCP SYN opens a forwarded connection. */
	if (ip->next_proto_id == IPPROTO_TCP &&
	    (l4[13] & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG))
	    != RTE_TCP_SYN_FLAG)
		return -ENOENT;
	memset(&out, 0, sizeof(out));
	memset(&in, 0, sizeof(in));
	forward_target(f, dp, &out.a, &out.pa);
	out.b = ip->src_addr;
	out.pb = sp;
	out.proto = ip->next_proto_id;
	in.a = ip->src_addr;
	in.b = ip->dst_addr;
	in.pa = sp;
	in.pb = dp;
	in.proto = out.proto;
	/* Made only when the guard admits it, and room made for it. */
	if (!cpe_guard_new(m)) {
		f->limited++;
		return -EBUSY;
	}
	if (make_room(true) != 0) {
		cpe.st.nat_full++;
		return -EBUSY;
	}
	pos = sess_add(&out, &in, dp, l4);
	if (pos < 0) {
		cpe.st.nat_full++;
		return -EBUSY;
	}
	sess[pos].fwd = true;
	f->hits++;
	return cpe_nat_in_lookup(m, x, l4, l4_len);
}

int
cpe_nat_hairpin(struct rte_mbuf *m, struct cpe_xlate *x, uint8_t *l4,
		uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_fw_forward *f;
	struct nat_key out, in;
	struct sess *s;
	uint16_t sp, dp, ext;
	int32_t pos;
	int lan, pi;

	if (forward_ports(ip, l4, l4_len, &sp, &dp) != 0)
		return -ENOENT;
	memset(&out, 0, sizeof(out));
	out.a = ip->src_addr;
	out.b = ip->dst_addr;
	out.pa = sp;
	out.pb = dp;
	out.proto = ip->next_proto_id;
	pos = rte_hash_lookup(h_out, &out);
	if (pos < 0) {
		f = (struct cpe_fw_forward *)(uintptr_t)
			forward_of(out.proto, rte_be_to_cpu_16(dp));
		if (f == NULL)
			return -ENOENT;
		lan = lan_of(f->addr);
		if (lan < 0)
			return -ENOENT;
		if (make_room(false) != 0) {
			cpe.st.nat_full++;
			return -ENOSPC;
		}
		pi = proto_idx(out.proto);
		/* Its own port: no mapping (the source is rewritten to
		 * the router's LAN address, not the WAN's).
		 */
		ext = port_alloc(pi, rte_be_to_cpu_16(sp));
		if (ext == 0) {
			cpe.st.nat_full++;
			return -ENOSPC;
		}
		port_refs[pi][ext] = 1;
		memset(&in, 0, sizeof(in));
		forward_target(f, dp, &in.a, &in.pa);
		in.b = cpe.ports[lan].ip_be;
		in.pb = rte_cpu_to_be_16(ext);
		in.proto = out.proto;
		pos = sess_add(&out, &in, in.pb, l4);
		if (pos < 0) {
			port_refs[pi][ext] = 0;
			port_set(pi, ext, false);
			cpe.st.nat_full++;
			return -ENOSPC;
		}
		sess[pos].hairpin = true;
		f->hits++;
		f->hairpin++;
	}
	s = &sess[pos];
	if (!s->hairpin)
		return -ENOENT;
	if (out.proto == IPPROTO_TCP)
		tcp_track(s, l4[13], 0);
	s->last = cpe.now;
	s->seen |= 1;
	x->nat = true;
	x->sip = s->in.b;
	x->sport = s->ext;
	x->dip = s->in.a;
	x->dport = s->in.pa;
	x->sess = (uint32_t)pos;
	return 0;
}

/*
 * An ICMP error (destination unreachable, time exceeded, parameter
 * problem) about a packet of a session. From the WAN: it quotes our
 * translated packet (from the WAN address and external port), so the
 * outer destination and the quoted source go back to the LAN host's. From
 * a LAN host: it quotes a translated reply (to the LAN host), so the outer
 * source and the quoted destination become the WAN address and external
 * port. Quoted checksums are updated incrementally where quoted; the ICMP
 * checksum is computed again (errors are small, in the first segment).
 */
int
cpe_nat_icmp_error(struct rte_mbuf *m, bool from_wan)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	uint32_t ihl = rte_ipv4_hdr_len(ip), tot, len, qihl, qlen, adj;
	struct rte_icmp_hdr *ic;
	struct rte_ipv4_hdr *q;
	uint8_t *ql4, *l4;
	struct nat_key k;
	uint16_t sp, dp, newp;
	uint8_t *csum;
	uint32_t newa;
	struct sess *s;
	void *data;
	int32_t pos;

	tot = rte_be_to_cpu_16(ip->total_length);
	if (tot > rte_pktmbuf_data_len(m) - sizeof(struct rte_ether_hdr))
		return -EINVAL;
	l4 = (uint8_t *)ip + ihl;
	len = tot - ihl;
	if (len < 8 + sizeof(*q))
		return -EINVAL;
	ic = (struct rte_icmp_hdr *)l4;
	/* l4 is 2-aligned (an IPv4 header, a multiple of 4, past one). */
	q = (struct rte_ipv4_hdr *)(void *)(l4 + 8);
	qihl = rte_ipv4_hdr_len(q);
	if ((q->version_ihl >> 4) != 4 || qihl < 20 || len < 8 + qihl + 8)
		return -EINVAL;
	ql4 = (uint8_t *)q + qihl;
	qlen = len - 8 - qihl;
	memset(&k, 0, sizeof(k));
	k.proto = q->next_proto_id;
	if (k.proto == IPPROTO_TCP || k.proto == IPPROTO_UDP) {
		memcpy(&sp, ql4, 2);
		memcpy(&dp, ql4 + 2, 2);
	} else if (k.proto == IPPROTO_ICMP &&
		   ql4[0] == (from_wan ? RTE_ICMP_TYPE_ECHO_REQUEST :
			      RTE_ICMP_TYPE_ECHO_REPLY)) {
		memcpy(from_wan ? &sp : &dp, ql4 + 4, 2);
		if (from_wan)
			dp = 0;
		else
			sp = 0;
	} else {
		return -ENOTSUP;
	}
	if (from_wan) {
		/* Quoted: WAN addr:ext -> remote:rport. */
		k.a = q->dst_addr;
		k.b = q->src_addr;
		k.pa = dp;
		k.pb = sp;
		if (rte_hash_lookup_data(h_in, &k, &data) < 0)
			return -ENOENT;
		s = &sess[(uintptr_t)data];
		newa = s->out.a;
		newp = s->out.pa;
		ip->hdr_checksum = cpe_csum_update(ip->hdr_checksum,
			cpe_adj32(0, ip->dst_addr, newa));
		ip->dst_addr = newa;
	} else {
		/* Quoted: remote:rport -> LAN addr:port. */
		k.a = q->dst_addr;
		k.b = q->src_addr;
		k.pa = dp;
		k.pb = sp;
		pos = rte_hash_lookup(h_out, &k);
		if (pos < 0)
			return -ENOENT;
		s = &sess[pos];
		newa = cpe.ports[cpe.wan].ip_be;
		newp = s->ext;
		ip->hdr_checksum = cpe_csum_update(ip->hdr_checksum,
			cpe_adj32(0, ip->src_addr, newa));
		ip->src_addr = newa;
	}
	/* The quoted header: source (from WAN) or destination (from LAN). */
	{
		uint8_t *qa = from_wan ? (uint8_t *)q + 12 :
			(uint8_t *)q + 16;
		uint8_t *qp = k.proto == IPPROTO_ICMP ? ql4 + 4 :
			from_wan ? ql4 : ql4 + 2;
		uint16_t oldp;
		uint32_t olda;

		memcpy(&oldp, qp, 2);
		memcpy(&olda, qa, 4);
		adj = cpe_adj32(0, olda, newa);
		q->hdr_checksum = cpe_csum_update(q->hdr_checksum, adj);
		csum = NULL;
		if (k.proto == IPPROTO_UDP && qlen >= 8)
			csum = ql4 + 6;
		else if (k.proto == IPPROTO_TCP && qlen >= 18)
			csum = ql4 + 16;
		else if (k.proto == IPPROTO_ICMP)
			csum = ql4 + 2;
		if (k.proto == IPPROTO_ICMP)
			adj = 0;	/* no pseudo-header */
		adj = cpe_adj16(adj, oldp, newp);
		if (csum != NULL &&
		    !(k.proto == IPPROTO_UDP && cpe_get16(csum) == 0))
			cpe_put16(csum, cpe_csum_update(cpe_get16(csum), adj));
		memcpy(qa, &newa, 4);
		memcpy(qp, &newp, 2);
	}
	ic->icmp_cksum = 0;
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, len);
	cpe.st.nat_icmp_err_xlated++;
	return 0;
}
