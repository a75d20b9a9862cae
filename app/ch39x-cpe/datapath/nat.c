/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The NAT sessions' table (nat.h): external ports, endpoint-independent
 * mappings, sessions, their TCP state and timeouts, the out and in
 * translations.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash_crc.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "nat.h"

/* "map": a LAN address and port (ICMP: echo id) of a protocol. */
struct map_key {
	uint32_t a;			/* network order */
	uint16_t pa;
	uint8_t proto;
	uint8_t pad;
};

int
cpe_nat_proto_idx(uint8_t proto)
{
	return proto == IPPROTO_TCP ? 0 : proto == IPPROTO_UDP ? 1 : 2;
}

static bool
port_busy(const struct cpe_nat *n, int pi, uint16_t p)
{
	return n->ports_used[pi][p >> 6] & (1ull << (p & 63));
}

void
cpe_nat_port_set(struct cpe_nat *n, int pi, uint16_t p, bool on)
{
	if (on)
		n->ports_used[pi][p >> 6] |= 1ull << (p & 63);
	else
		n->ports_used[pi][p >> 6] &= ~(1ull << (p & 63));
}

/* Host order in, host order out; 0: none free. */
uint16_t
cpe_nat_port_alloc(struct cpe_nat *n, int pi, uint16_t want)
{
	uint32_t lo = n->lo, hi = n->hi, nb = hi - lo + 1, i, p;

	if (want >= lo && want <= hi && !port_busy(n, pi, want)) {
		cpe_nat_port_set(n, pi, want, true);
		return want;
	}
	for (i = 0; i < nb; i++) {
		p = lo + (n->port_cursor[pi] + i) % nb;
		if (!port_busy(n, pi, (uint16_t)p)) {
			n->port_cursor[pi] = p - lo + 1;
			cpe_nat_port_set(n, pi, (uint16_t)p, true);
			return (uint16_t)p;
		}
	}
	return 0;
}

static void
map_key_of(const struct cpe_nat_key *out, struct map_key *mk)
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
map_get(struct cpe_nat *n, const struct cpe_nat_key *out)
{
	int pi = cpe_nat_proto_idx(out->proto);
	struct map_key mk;
	uint16_t ext;
	void *data;

	map_key_of(out, &mk);
	if (rte_hash_lookup_data(n->h_map, &mk, &data) >= 0) {
		ext = (uint16_t)(uintptr_t)data;
	} else {
		ext = cpe_nat_port_alloc(n, pi, rte_be_to_cpu_16(out->pa));
		if (ext == 0)
			return 0;
		if (rte_hash_add_key_data(n->h_map, &mk,
					  (void *)(uintptr_t)ext) != 0) {
			cpe_nat_port_set(n, pi, ext, false);
			return 0;
		}
	}
	n->port_refs[pi][ext]++;
	return ext;
}

/* A session's reference to its external port gone: the last frees it
 * (and its mapping, unless a hairpin session's: those have none).
 */
static void
port_unref(struct cpe_nat *n, const struct cpe_nat_sess *s)
{
	int pi = cpe_nat_proto_idx(s->out.proto);
	uint16_t ext = rte_be_to_cpu_16(s->ext);
	struct map_key mk;

	if (n->port_refs[pi][ext] > 0 && --n->port_refs[pi][ext] > 0)
		return;
	cpe_nat_port_set(n, pi, ext, false);
	if (!s->hairpin) {
		map_key_of(&s->out, &mk);
		rte_hash_del_key(n->h_map, &mk);
	}
}

static int
nat_hashes(struct cpe_nat *n, uint32_t entries)
{
	struct rte_hash_parameters hp = {
		.entries = entries,
		.key_len = sizeof(struct cpe_nat_key),
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
		/* Extendable buckets: an add fails only when all
		 * --nat-sessions are in use (make_room's cue), never on a
		 * crowded bucket first. */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	int i;

	hp.name = "cpe_nat_out";
	n->h_out = rte_hash_create(&hp);
	hp.name = "cpe_nat_in";
	n->h_in = rte_hash_create(&hp);
	hp.name = "cpe_nat_map";
	hp.key_len = sizeof(struct map_key);
	n->h_map = rte_hash_create(&hp);
	if (n->h_out == NULL || n->h_in == NULL || n->h_map == NULL)
		return -ENOMEM;
	for (i = 0; i < 3; i++) {
		n->port_refs[i] = calloc(65536, sizeof(n->port_refs[i][0]));
		if (n->port_refs[i] == NULL)
			return -ENOMEM;
	}
	n->nb_sess = (uint32_t)rte_hash_max_key_id(n->h_out) + 1;
	n->sess = calloc(n->nb_sess, sizeof(*n->sess));
	return n->sess == NULL ? -ENOMEM : 0;
}

struct cpe_nat *
cpe_nat_create(const struct cpe_opts *o, struct cpe_fw_cfg *fwd,
	       const struct cpe_env *env, const struct cpe_ifaces *ifs,
	       struct cpe_ftab *ftab)
{
	struct cpe_nat *n = calloc(1, sizeof(*n));

	if (n == NULL)
		return NULL;
	n->lo = o->nat_lo;
	n->hi = o->nat_hi;
	n->to_tcp = (uint64_t)o->tcp_timeout * env->hz;
	n->to_trans = (uint64_t)o->tcp_trans * env->hz;
	n->to_close = (uint64_t)o->tcp_close * env->hz;
	n->to_udp = (uint64_t)o->udp_timeout * env->hz;
	n->to_icmp = (uint64_t)o->icmp_timeout * env->hz;
	n->to_syn = (uint64_t)o->tcp_syn * env->hz;
	n->to_udp_unreplied = (uint64_t)o->udp_unreplied * env->hz;
	n->fwd = fwd;
	n->env = env;
	n->ifs = ifs;
	n->ftab = ftab;
	n->nb_sess_max = o->nat_sessions;
	if (nat_hashes(n, o->nat_sessions) != 0) {
		cpe_nat_free(n);
		rte_errno = ENOMEM;
		return NULL;
	}
	return n;
}

void
cpe_nat_free(struct cpe_nat *n)
{
	int i;

	if (n == NULL)
		return;
	rte_hash_free(n->h_out);
	rte_hash_free(n->h_in);
	rte_hash_free(n->h_map);
	for (i = 0; i < 3; i++)
		free(n->port_refs[i]);
	free(n->sess);
	free(n);
}

uint32_t
cpe_nat_in_use(const struct cpe_nat *n)
{
	return n == NULL ? 0 : (uint32_t)rte_hash_count(n->h_out);
}

static uint64_t
timeout_of(const struct cpe_nat *n, const struct cpe_nat_sess *s)
{
	if (s->out.proto == IPPROTO_UDP)
		return s->seen == 3 ? n->to_udp : n->to_udp_unreplied;
	if (s->out.proto == IPPROTO_ICMP)
		return n->to_icmp;
	if (s->tcp == CPE_NAT_T_EST)
		return n->to_tcp;
	if (s->tcp == CPE_NAT_T_CLOSE)
		return n->to_close;
	if (s->tcp == CPE_NAT_T_SYN)
		return n->to_syn;
	return n->to_trans;
}

static void
sess_del(struct cpe_nat *n, uint32_t i)
{
	struct cpe_nat_sess *s = &n->sess[i];

	/* The fast path must not rewrite with a mapping that is gone. */
	if (s->flow[0] >= 0)
		cpe_ftab_del_sess(n->ftab, s->flow[0], i);
	if (s->flow[1] >= 0)
		cpe_ftab_del_sess(n->ftab, s->flow[1], i);
	rte_hash_del_key(n->h_in, &s->in);
	rte_hash_del_key(n->h_out, &s->out);
	if (!s->fwd)
		port_unref(n, s);
	memset(s, 0, sizeof(*s));
}

uint32_t
cpe_nat_flush(struct cpe_nat *n)
{
	uint32_t i, nb = 0;

	for (i = 0; n != NULL && i < n->nb_sess; i++) {
		if (!n->sess[i].used)
			continue;
		sess_del(n, i);
		nb++;
	}
	return nb;
}

void
cpe_nat_age(struct cpe_nat *n, uint32_t ms)
{
	uint32_t budget = cpe_age_budget(n->nb_sess, ms);
	struct cpe_nat_sess *s;

	while (budget--) {
		if (++n->age_cursor >= n->nb_sess)
			n->age_cursor = 0;
		s = &n->sess[n->age_cursor];
		if (s->used && n->env->now - s->last > timeout_of(n, s)) {
			sess_del(n, n->age_cursor);
			n->st.expired++;
		}
	}
}

/* Sessions cpe_nat_make_room() looks at for the one to push out. */
#define NAT_EVICT_SCAN	64

/* evict.h's class: a forward's session is the WAN's. */
static uint8_t
class_of(const struct cpe_nat_sess *s)
{
	bool assured = s->out.proto == IPPROTO_TCP ?
		s->tcp == CPE_NAT_T_EST || s->tcp == CPE_NAT_T_FIN :
		s->seen == 3;

	return cpe_ev_class(s->fwd, assured);
}

/* The scan goes round the table, so the oldest come first. */
int
cpe_nat_make_room(struct cpe_nat *n, bool from_wan)
{
	struct cpe_ev_pick pick;
	struct cpe_nat_sess *s;
	uint32_t i, k = 0;

	if (cpe_nat_in_use(n) < n->nb_sess_max)
		return 0;
	cpe_ev_pick_init(&pick);
	for (i = 0; i < n->nb_sess && k < NAT_EVICT_SCAN &&
		     pick.cls != CPE_EV_EMBRYONIC_WAN; i++) {
		if (++n->evict_cursor >= n->nb_sess)
			n->evict_cursor = 0;
		s = &n->sess[n->evict_cursor];
		if (!s->used)
			continue;
		if (n->env->now - s->last > timeout_of(n, s)) {
			sess_del(n, n->evict_cursor);
			n->st.expired++;
			return 0;
		}
		cpe_ev_consider(&pick, n->evict_cursor, class_of(s), s->last);
		k++;
	}
	if (!cpe_ev_may_evict(&pick, from_wan)) {
		n->st.full_refused++;
		return -ENOSPC;
	}
	sess_del(n, pick.idx);
	n->st.evicted[pick.cls]++;
	return 0;
}

/*
 * The WAN port was down for shift TSC cycles (control/hotplug.c): no
 * session aged meanwhile (housekeeping does not age them while it is
 * down), and each keeps the time it had left, so that a flow whose
 * packets could not pass finds its mapping (its external port) again.
 */
void
cpe_nat_resume(struct cpe_nat *n, uint64_t shift)
{
	uint32_t i;

	for (i = 0; i < n->nb_sess; i++)
		if (n->sess[i].used)
			n->sess[i].last = RTE_MIN(n->sess[i].last + shift,
						  n->env->now);
}

bool
cpe_nat_sess_cacheable(const struct cpe_nat *n, uint32_t i)
{
	return n->sess[i].out.proto != IPPROTO_TCP ||
		n->sess[i].tcp == CPE_NAT_T_EST;
}

void
cpe_nat_link_flow(struct cpe_nat *n, uint32_t i, int dir, int32_t pos)
{
	n->sess[i].flow[dir] = pos;
}

/* dir 0: LAN -> WAN, 1: WAN -> LAN. */
void
cpe_nat_tcp_track(struct cpe_nat_sess *s, uint8_t flags, int dir)
{
	if (flags & RTE_TCP_RST_FLAG) {
		s->tcp = CPE_NAT_T_CLOSE;
		return;
	}
	if ((flags & RTE_TCP_SYN_FLAG) && dir == 0 &&
	    !(flags & RTE_TCP_ACK_FLAG) && s->tcp == CPE_NAT_T_CLOSE) {
		/* The port pair is used again. */
		s->tcp = CPE_NAT_T_SYN;
		s->fin = 0;
		return;
	}
	if (flags & RTE_TCP_FIN_FLAG) {
		s->fin |= 1u << dir;
		s->tcp = s->fin == 3 ? CPE_NAT_T_CLOSE : CPE_NAT_T_FIN;
		return;
	}
	if (s->tcp == CPE_NAT_T_SYN && dir == 1 && (flags & RTE_TCP_ACK_FLAG))
		s->tcp = CPE_NAT_T_EST;
}

/* Ports (or the echo id) of an L4 header; -1 if not NAT-able. */
int
cpe_nat_l4_ports(uint8_t proto, const uint8_t *l4, uint32_t len,
		 uint16_t *sp, uint16_t *dp, bool echo_req)
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
int32_t
cpe_nat_sess_add(struct cpe_nat *n, const struct cpe_nat_key *out,
		 const struct cpe_nat_key *in, uint16_t ext, const uint8_t *l4)
{
	struct cpe_nat_sess *s;
	int32_t pos;

	/* The same LAN side in use (add would return its slot). */
	if (rte_hash_lookup(n->h_out, out) >= 0)
		return -EEXIST;
	pos = rte_hash_add_key(n->h_out, out);
	if (pos < 0)
		return pos;
	s = &n->sess[pos];
	memset(s, 0, sizeof(*s));
	s->out = *out;
	s->in = *in;
	s->ext = ext;
	s->flow[0] = s->flow[1] = -1;
	if (rte_hash_add_key_data(n->h_in, in, (void *)(uintptr_t)pos) != 0) {
		rte_hash_del_key(n->h_out, out);
		return -ENOSPC;
	}
	s->used = true;
	s->tcp = out->proto != IPPROTO_TCP ? CPE_NAT_T_NONE :
		(l4[13] & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) ==
		RTE_TCP_SYN_FLAG ? CPE_NAT_T_SYN : CPE_NAT_T_EST;
	n->st.created++;
	return pos;
}

/* A new session for out (LAN side), to the WAN address: index or <0. */
static int32_t
sess_new_out(struct cpe_nat *n, const struct cpe_nat_key *k, uint16_t dp,
	     const uint8_t *l4)
{
	struct cpe_nat_sess t;
	uint16_t ext;
	int32_t pos;

	ext = map_get(n, k);
	if (ext == 0)
		return -ENOSPC;
	memset(&t, 0, sizeof(t));
	t.out = *k;
	t.ext = rte_cpu_to_be_16(ext);
	t.in.a = k->b;
	t.in.b = n->ifs->ifs[n->ifs->wan].ip_be;
	t.in.pa = k->proto == IPPROTO_ICMP ? 0 : dp;
	t.in.pb = t.ext;
	t.in.proto = k->proto;
	pos = cpe_nat_sess_add(n, k, &t.in, t.ext, l4);
	if (pos < 0)
		port_unref(n, &t);
	return pos;
}

int
cpe_nat_out(struct cpe_nat *n, struct rte_mbuf *m, struct cpe_mb *mb,
	    const uint8_t *l4, uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_nat_sess *s;
	struct cpe_nat_key k;
	uint16_t sp, dp;
	int32_t pos;

	memset(&k, 0, sizeof(k));
	if (cpe_nat_l4_ports(ip->next_proto_id, l4, l4_len, &sp, &dp,
			     true) != 0) {
		n->st.unsupported++;
		return -ENOTSUP;
	}
	k.a = ip->src_addr;
	k.b = ip->dst_addr;
	k.pa = sp;
	k.pb = dp;
	k.proto = ip->next_proto_id;
	pos = rte_hash_lookup(n->h_out, &k);
	if (pos < 0)
		pos = cpe_nat_make_room(n, false) != 0 ? -ENOSPC :
			sess_new_out(n, &k, dp, l4);
	if (pos < 0) {
		n->st.full++;
		return -ENOSPC;
	}
	s = &n->sess[pos];
	if (k.proto == IPPROTO_TCP)
		cpe_nat_tcp_track(s, l4[13], 0);
	s->last = n->env->now;
	s->seen |= 1;
	mb->flags |= CPE_MB_NAT;
	mb->sip = n->ifs->ifs[n->ifs->wan].ip_be;
	mb->dip = ip->dst_addr;
	mb->sport = s->ext;
	mb->dport = dp;
	mb->sess = (uint32_t)pos;
	return 0;
}

int
cpe_nat_in_lookup(struct cpe_nat *n, struct rte_mbuf *m, struct cpe_mb *mb,
		  const uint8_t *l4, uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_nat_sess *s;
	struct cpe_nat_key k;
	uint16_t sp, dp;
	void *data;

	memset(&k, 0, sizeof(k));
	if (cpe_nat_l4_ports(ip->next_proto_id, l4, l4_len, &sp, &dp,
			     false) != 0)
		return -ENOENT;
	k.a = ip->src_addr;
	k.b = ip->dst_addr;
	k.proto = ip->next_proto_id;
	k.pa = k.proto == IPPROTO_ICMP ? 0 : sp;
	k.pb = k.proto == IPPROTO_ICMP ? sp : dp;
	if (rte_hash_lookup_data(n->h_in, &k, &data) < 0)
		return -ENOENT;
	s = &n->sess[(uintptr_t)data];
	if (k.proto == IPPROTO_TCP)
		cpe_nat_tcp_track(s, l4[13], 1);
	s->last = n->env->now;
	s->seen |= 2;
	mb->flags |= CPE_MB_NAT;
	mb->sip = ip->src_addr;
	mb->dip = s->out.a;
	/* ICMP: the echo id lives in sport for both directions. */
	mb->sport = k.proto == IPPROTO_ICMP ? s->out.pa : sp;
	mb->dport = k.proto == IPPROTO_ICMP ? 0 : s->out.pa;
	if (s->hairpin) {
		/* From the WAN address and port the LAN host used. */
		mb->sip = s->out.b;
		mb->sport = s->out.pb;
	}
	mb->sess = (uint32_t)(uintptr_t)data;
	return 0;
}
