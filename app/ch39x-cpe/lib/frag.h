/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FRAG_H
#define CPE_FRAG_H

/*
 * Fragments followed by datagram (frag.c, pure: no DPDK, a clock in
 * ticks; tests/cpe/test_frag.c links it alone). The router does not
 * reassemble: the first fragment (offset 0, it carries the ports) takes
 * the ordinary path (NAT, firewall, route) and its decision is kept under
 * the datagram's key (addresses, protocol, identification); the later
 * fragments of the datagram follow that decision. Every fragment's byte
 * range is kept (up to CPE_FRAG_RANGES): an overlap drops the rest of the
 * datagram (RFC 5722 for IPv6, RFC 1858's attacks for IPv4), and tiny or
 * malformed fragments are refused before that (cpe_frag_parse). The table
 * is bounded and open-addressed, entries time out (--frag-timeout) or
 * are evicted, least recently used first, and counted.
 *
 * Not done, on purpose: later fragments that come before the first are
 * dropped (no_first), not held; a reordering path loses that datagram.
 */

#include <stdbool.h>
#include <stdint.h>

#define CPE_FRAG_RANGES		16	/* fragments of one datagram */
#define CPE_FRAG_DATA		32	/* the caller's per datagram */
#define CPE_FRAG_DEF_MAX	1024
#define CPE_FRAG_DEF_TIMEOUT	30	/* s, as Linux's ipfrag_time */

struct cpe_frag_key {
	uint8_t src[16], dst[16];	/* IPv4 in the first 4 bytes */
	uint32_t id;
	uint8_t proto;
	uint8_t v6;
	uint8_t pad[2];
};

/* A fragment as cpe_frag_parse sees it. */
struct cpe_frag_info {
	struct cpe_frag_key k;
	uint32_t off;			/* its payload's offset, bytes */
	uint32_t len;			/* its payload's length */
	uint32_t l4_off;		/* from the IP header: the payload */
	bool more;			/* MF / M flag */
};

enum cpe_frag_reason {
	CPE_FRAG_OK = 0,
	CPE_FRAG_DROP_TINY,		/* first without its L4 header */
	CPE_FRAG_DROP_MALFORMED,	/* not 8-byte units, past 64 KiB */
	CPE_FRAG_DROP_OVERLAP,		/* overlaps an earlier fragment */
	CPE_FRAG_DROP_TOO_MANY,		/* over CPE_FRAG_RANGES */
	CPE_FRAG_DROP_NO_FIRST,		/* no first fragment (yet) */
	CPE_FRAG_NB_REASONS
};

struct cpe_frag_ent {
	struct cpe_frag_key k;
	uint64_t last;			/* ticks */
	bool used;
	bool bad;			/* an overlap: the rest dropped */
	uint8_t nb;			/* ranges */
	uint32_t end;			/* the last fragment's end, 0: unseen */
	uint32_t lo[CPE_FRAG_RANGES], hi[CPE_FRAG_RANGES];
	uint8_t data[CPE_FRAG_DATA];
};

struct cpe_frag_stats {
	uint64_t first, later, done, expired, evicted;
	uint64_t drops[CPE_FRAG_NB_REASONS];
};

struct cpe_frag {
	struct cpe_frag_ent *e;
	uint32_t mask;
	uint32_t in_use;
	uint64_t timeout;		/* ticks */
	uint32_t cursor;		/* ageing */
	uint8_t done[CPE_FRAG_DATA];	/* a completed datagram's data */
	struct cpe_frag_stats st;
};

/*
 * The fragment of an IP packet (from its first byte, len bytes there):
 * 1 and *fi for a fragment, 0 not a fragment, or -reason (tiny,
 * malformed; counted by the caller with cpe_frag_drop).
 */
int cpe_frag_parse(const uint8_t *l3, uint32_t len, struct cpe_frag_info *fi);
int cpe_frag_init(struct cpe_frag *f, uint32_t entries, uint64_t hz,
		  uint32_t timeout_s);
void cpe_frag_free(struct cpe_frag *f);
/* A first fragment that went on: its entry's data to fill, or NULL (an
 * overlap with what was seen: counted, the datagram refused).
 */
void *cpe_frag_first(struct cpe_frag *f, const struct cpe_frag_info *fi,
		     uint64_t now);
/* A later fragment: the first's data, or NULL and *why (counted, but
 * for no_first: the caller counts that when it drops the fragment).
 */
const void *cpe_frag_later(struct cpe_frag *f, const struct cpe_frag_info *fi,
			   uint64_t now, enum cpe_frag_reason *why);
void cpe_frag_drop(struct cpe_frag *f, enum cpe_frag_reason r);
void cpe_frag_age(struct cpe_frag *f, uint32_t n, uint64_t now);
const char *cpe_frag_reason_name(enum cpe_frag_reason r);

#endif
