/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_NAT_H
#define CPE_NAT_H

/*
 * NAPT on the WAN port for TCP, UDP and ICMP echo: the sessions' table,
 * owned by the NAT nodes (nat4_in before the route, nat4_out after it),
 * made by control/graph.c, aged and flushed by the control plane.
 *
 * A session is found by two rte_hash tables: "out" by the LAN side's
 * 5-tuple (LAN address and port, remote address and port), "in" by the
 * 5-tuple of the replies as they reach the WAN address. External ports
 * (ICMP: echo ids) are unique per protocol, the LAN port kept when free
 * (as Linux does), otherwise the next free one of --nat-ports. Mapping is
 * endpoint-independent (RFC 4787 REQ-1, RFC 5382 REQ-1): a third table,
 * "map", gives the LAN address and port's external port to every session
 * it opens, whatever the remote end; the port is freed with the last of
 * them (refs). Sessions time out per protocol and TCP state: enough
 * state to close flows (handshake, established, FIN seen, closed after
 * RST or both FINs). ICMP errors about a session's packets are
 * translated back, outer and quoted headers both (nat_icmp.c).
 *
 * Port forwards (--fw-forward, DNAT, nat_fwd.c): a WAN packet to a
 * forwarded port of the WAN address that has no session makes one, as if
 * the LAN host had connected out from its port (so its replies take the
 * ordinary path), the forwarded port as the external one. Forwarded ports
 * are reserved for good: no dynamic mapping takes them. Hairpin: a LAN
 * host that uses the WAN address and a forwarded port reaches the LAN host
 * behind it with its source rewritten to the router's address on that
 * host's LAN (so the replies come back through the router, RFC 4787
 * REQ-9, RFC 5382 REQ-8); such a session's external side is (router LAN
 * address, a dynamic port) and its replies are looked up on the LAN side.
 *
 * Under a flood: a forwarded connection is made only when the guard
 * admits it (--synflood-rate); a full table makes room by evict.h's
 * policy (cpe_nat_make_room: the forwards' handshakes and unanswered UDP
 * first, assured sessions last, the LAN's never for the WAN's), and a
 * handshake or an unanswered UDP session times out sooner
 * (--tcp-syn-timeout, --udp-unreplied-timeout).
 *
 * A session's cached flows (ftab.h) go with it; a hit of one keeps it
 * alive (cpe_nat_touch()).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_hash.h>
#include <rte_mbuf.h>

#include "dp.h"
#include "evict.h"
#include "guard.h"
#include "ftab.h"
#include "iface.h"

struct cpe_nat_key {
	uint32_t a, b;			/* network order */
	uint16_t pa, pb;
	uint8_t proto;
	uint8_t pad[3];
};

struct cpe_nat_sess {
	struct cpe_nat_key out, in;
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

struct cpe_nat_stats {
	uint64_t created, expired, full, unsupported, icmp_err_xlated;
	/* Sessions pushed out of a full table, by evict.h's class, and
	 * new ones from the WAN refused (a table full of assured ones). */
	uint64_t evicted[CPE_EV_NB], full_refused;
};

struct cpe_nat {
	struct rte_hash *h_out, *h_in, *h_map;
	struct cpe_nat_sess *sess;
	uint32_t nb_sess;
	uint32_t nb_sess_max;		/* --nat-sessions */
	uint32_t age_cursor;
	uint32_t evict_cursor;		/* cpe_nat_make_room()'s scan */
	uint16_t lo, hi;		/* --nat-ports */
	uint64_t to_tcp, to_trans, to_close, to_udp, to_icmp;	/* TSC */
	uint64_t to_syn, to_udp_unreplied;			/* TSC */
	/* SYN-flood protection (the firewall's, guard_dp.h): a forward's
	 * new connection is admitted by it; NULL: no limit. */
	struct cpe_guard *guard;
	/* Sessions using each external port, per protocol (TCP, UDP, ICMP). */
	uint32_t *port_refs[3];
	/* Bitmaps of external ports in use: TCP, UDP, ICMP. */
	uint64_t ports_used[3][65536 / 64];
	uint32_t port_cursor[3];
	struct cpe_fw_cfg *fwd;		/* --fw-forward (their hit counters) */
	const struct cpe_env *env;
	const struct cpe_ifaces *ifs;
	struct cpe_ftab *ftab;		/* IPv4 flow cache, NULL: off */
	struct cpe_nat_stats st;
};

/* The table for o's --nat-* options; NULL (with rte_errno) when no memory. */
struct cpe_nat *cpe_nat_create(const struct cpe_opts *o,
			       struct cpe_fw_cfg *fwd,
			       const struct cpe_env *env,
			       const struct cpe_ifaces *ifs,
			       struct cpe_ftab *ftab);
void cpe_nat_free(struct cpe_nat *n);
uint32_t cpe_nat_in_use(const struct cpe_nat *n);
void cpe_nat_age(struct cpe_nat *n, uint32_t ms);
/* Every session deleted (the WAN address changed): how many. */
uint32_t cpe_nat_flush(struct cpe_nat *n);
/* The WAN was down shift TSC cycles: the sessions' ages resume. */
void cpe_nat_resume(struct cpe_nat *n, uint64_t shift);
bool cpe_nat_sess_cacheable(const struct cpe_nat *n, uint32_t sess);
void cpe_nat_link_flow(struct cpe_nat *n, uint32_t sess, int dir,
		       int32_t pos);

static inline void
cpe_nat_touch(struct cpe_nat *n, uint32_t sess)
{
	n->sess[sess].last = n->env->now;
}

/*
 * Out: a LAN->WAN IPv4 packet (l4, l4_len bytes of it): finds or makes its
 * session, mb's sip..dport and sess set. 0, -ENOTSUP (not NAT-able) or
 * -ENOSPC (full), counted.
 */
int cpe_nat_out(struct cpe_nat *n, struct rte_mbuf *m, struct cpe_mb *mb,
		const uint8_t *l4, uint32_t l4_len);
/* In: a WAN packet to the WAN address; 0 and mb set when mapped. */
int cpe_nat_in_lookup(struct cpe_nat *n, struct rte_mbuf *m,
		      struct cpe_mb *mb, const uint8_t *l4, uint32_t l4_len);

/* --- nat.c's internals, for nat_fwd.c and nat_icmp.c ----------------- */
enum { CPE_NAT_T_NONE, CPE_NAT_T_SYN, CPE_NAT_T_EST, CPE_NAT_T_FIN,
       CPE_NAT_T_CLOSE };
int cpe_nat_proto_idx(uint8_t proto);
void cpe_nat_port_set(struct cpe_nat *n, int pi, uint16_t p, bool on);
uint16_t cpe_nat_port_alloc(struct cpe_nat *n, int pi, uint16_t want);
int32_t cpe_nat_sess_add(struct cpe_nat *n, const struct cpe_nat_key *out,
			 const struct cpe_nat_key *in, uint16_t ext,
			 const uint8_t *l4);
void cpe_nat_tcp_track(struct cpe_nat_sess *s, uint8_t flags, int dir);
/*
 * Room for a new session (from the WAN: from_wan) when all --nat-sessions
 * are in use: an expired one, else the least valuable of a scan goes
 * (evict.h). 0, or -ENOSPC (refused, counted).
 */
int cpe_nat_make_room(struct cpe_nat *n, bool from_wan);
int cpe_nat_l4_ports(uint8_t proto, const uint8_t *l4, uint32_t len,
		     uint16_t *sp, uint16_t *dp, bool echo_req);

/* --- nat_fwd.c: port forwards and hairpin NAT ------------------------- */

/* Checks --fw-forward's targets and reserves their ports: 0 or -EINVAL
 * (reported). */
int cpe_nat_forward_setup(struct cpe_nat *n, bool nat_on);
/* A WAN packet to a forwarded port opens a session: 0 and mb set as
 * cpe_nat_in_lookup(); -ENOENT: not a forward; -EBUSY: a new connection
 * the guard or a full table refused, drop it. */
int cpe_nat_forward_in(struct cpe_nat *n, struct rte_mbuf *m,
		       struct cpe_mb *mb, const uint8_t *l4, uint32_t l4_len);
/* A LAN packet to the WAN address and a forwarded port: 0 and mb set. */
int cpe_nat_hairpin(struct cpe_nat *n, struct rte_mbuf *m, struct cpe_mb *mb,
		    const uint8_t *l4, uint32_t l4_len);

/* --- nat_icmp.c -------------------------------------------------------- */

/* An ICMP error about a session's packet, translated in place: 0, or
 * <0 (not a session's, malformed). */
int cpe_nat_icmp_error(struct cpe_nat *n, struct rte_mbuf *m, bool from_wan);

#endif /* CPE_NAT_H */
