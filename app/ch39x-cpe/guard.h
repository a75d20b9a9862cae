/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_GUARD_H
#define CPE_GUARD_H

/*
 * SYN-flood protection's pure part (guard.c): what lets a connection
 * from the WAN make state, on a clock in ticks, without DPDK, so that
 * tests/cpe/test_guard.c runs it alone.
 *
 * - cpe_tb: a token bucket of RATE a second and BURST, in ticks (no
 *   division per packet); the firewall's echo-request limit uses it too.
 * - Admission (cpe_guard_admit): a new connection from the WAN (a TCP
 *   SYN or a UDP datagram that matches no state, to a forwarded port, an
 *   open router port or a pinhole) takes a token of its protocol's bucket
 *   (--synflood-rate, --synflood-burst; OpenWrt fw4's synflood_protect
 *   is 25 a second, bursts of 50) before any state or NAT session is
 *   made; without one it is dropped. A TCP SYN dropped so is remembered
 *   (a 64-bit hash of its tuple, in a set of 4 slots); the same SYN again
 *   0.25 to 30
 *   s later is a client's retransmission (RFC 6298's first RTO is 1 s),
 *   which a random-source flood never sends: it takes a token of a
 *   second bucket of the same size, so a real client gets in during a
 *   flood at its first retransmission, and an attacker who repeats his
 *   SYNs gets at most twice the rate.
 * - Budget (cpe_guard_budget): TCP SYNs from the WAN the slow path looks
 *   at, a second (--synflood-budget): beyond it a SYN is dropped as it
 *   arrives, before any lookup (its tuple remembered all the same, so a
 *   retransmission passes), which bounds the flood's share of the loop.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cpe_tb {
	uint64_t credit;		/* ticks, at most cap */
	uint64_t last;			/* ticks */
	uint64_t per;			/* ticks a token */
	uint64_t cap;			/* burst * per */
};

void cpe_tb_init(struct cpe_tb *b, uint32_t rate, uint32_t burst,
		 uint64_t hz, uint64_t now);
/* Whether a token was there (taken). */
bool cpe_tb_take(struct cpe_tb *b, uint64_t now);

struct cpe_guard_cfg {
	bool on;			/* --synflood-protect */
	uint32_t rate, burst;		/* new connections a second */
	uint32_t budget;		/* SYNs looked at a second, 0: all */
};
#define CPE_GUARD_DEF_RATE	25	/* as fw4's synflood_rate */
#define CPE_GUARD_DEF_BURST	50	/* as fw4's synflood_burst */
#define CPE_GUARD_DEF_BUDGET	10000
#define CPE_GUARD_SEEN		262144	/* SYNs remembered: 2 MB */
#define CPE_GUARD_WAYS		4	/* slots a set */
#define CPE_GUARD_RETRY_MIN_MS	250
#define CPE_GUARD_RETRY_MAX_MS	30000

enum cpe_guard_verdict {
	CPE_GUARD_ADMIT,		/* a token: make the state */
	CPE_GUARD_RETRY,		/* a retransmitted SYN: make it */
	CPE_GUARD_DROP,			/* over the limit */
};

struct cpe_guard_stats {
	uint64_t admitted;		/* by a token */
	uint64_t retried;		/* retransmissions let in */
	uint64_t limited_tcp, limited_udp;	/* dropped by the limit */
	uint64_t budget_drops;		/* SYNs over the budget */
};

struct cpe_guard_seen {
	uint32_t tag;			/* hash's high half, never 0 */
	uint32_t ms;			/* when, ms of the clock */
};

struct cpe_guard {
	struct cpe_guard_cfg cfg;
	struct cpe_tb tcp, udp, retry, budget;
	struct cpe_guard_seen *seen;	/* CPE_GUARD_SEEN slots */
	uint64_t ms_ticks;		/* ticks a millisecond */
	struct cpe_guard_stats st;
};

int cpe_guard_init(struct cpe_guard *g, const struct cpe_guard_cfg *cfg,
		   uint64_t hz, uint64_t now);
void cpe_guard_free(struct cpe_guard *g);
/*
 * The hash the guard remembers a SYN by, of key (len bytes). Its callers
 * pass the packet's struct cpe_fw_tuple (fw.h: IPv4 as ::ffff:a.b.c.d),
 * so that the budget (the raw packet) and the admission (NAT's or the
 * firewall's) agree on a SYN.
 */
uint64_t cpe_guard_hash(const void *key, size_t len);
/*
 * A new connection from the WAN of protocol proto (6, 17), its tuple
 * key, at now: ADMIT or RETRY (make its state) or DROP (counted). With
 * protection off: ADMIT. Hashes only over the limit.
 */
enum cpe_guard_verdict cpe_guard_admit(struct cpe_guard *g, uint8_t proto,
				       const void *key, size_t len,
				       uint64_t now);
/* A TCP SYN from the WAN (its tuple key): whether the slow path looks at
 * it (false: drop it now, counted). */
bool cpe_guard_budget(struct cpe_guard *g, const void *key, size_t len,
		      uint64_t now);
/*
 * The two halves of each, for a caller whose key costs something to
 * make (fw_glue.c builds it from the packet): the token (true: go on),
 * and only without one, the decision that needs the key.
 */
bool cpe_guard_admit_take(struct cpe_guard *g, uint8_t proto, uint64_t now);
enum cpe_guard_verdict cpe_guard_admit_over(struct cpe_guard *g,
					    uint8_t proto, const void *key,
					    size_t len, uint64_t now);
bool cpe_guard_budget_take(struct cpe_guard *g, uint64_t now);
bool cpe_guard_budget_over(struct cpe_guard *g, const void *key, size_t len,
			   uint64_t now);

#endif
