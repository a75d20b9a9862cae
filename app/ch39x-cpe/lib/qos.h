/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_QOS_H
#define CH39X_CPE_QOS_H

/*
 * Priority under congestion on the WAN port: the options and the packet
 * classifier (qos_class.c, no DPDK needed, so that a unit test links it
 * alone), the scheduler itself is qos.c.
 *
 * Classes are numbered from 0, the highest priority. A frame's class
 * comes from its outermost 802.1Q/802.1ad tag's PCP when that is not 0,
 * otherwise from the DSCP of its IPv4 or IPv6 header (also in a PPPoE
 * session); frames that are not IP (ARP, PPP control) go to class 0: they are few and the router stalls without
 * them.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPE_QOS_MAX_CLASSES	8
#define CPE_QOS_DEF_CLASSES	4
#define CPE_QOS_DEF_QUEUE	64	/* packets per class, FIFO */
#define CPE_QOS_DEF_FQ_QUEUE	1024	/* packets per class, flow queues */
#define CPE_QOS_MAX_QUEUE	16384
#define CPE_QOS_DEF_OVERHEAD	24	/* preamble+SFD 8, FCS 4, gap 12 */
#define CPE_QOS_MAX_OVERHEAD	256
#define CPE_QOS_MIN_RATE	64000ULL
#define CPE_QOS_MAX_RATE	10000000000ULL
/* Flow queueing (fq.c): RFC 8290's defaults. */
#define CPE_QOS_DEF_TARGET_US	5000
#define CPE_QOS_DEF_INTERVAL_US	100000
#define CPE_QOS_DEF_FLOWS	1024
#define CPE_QOS_MAX_FLOWS	65536
#define CPE_QOS_DEF_QUANTUM	1514
/*
 * The most of a stall of the forwarding loop (packets waiting) that the
 * shaper makes up after it, in time at the rate (shaper.h).
 */
#define CPE_QOS_DEF_CATCHUP_US	20000
#define CPE_QOS_MAX_CATCHUP_US	1000000

/* What the options set (control/opts_args.c calls cpe_qos_opt()). */
struct cpe_qos_cfg {
	uint64_t rate;			/* WAN shaper, bits/s; 0: off */
	uint64_t down_rate;		/* downlink (to the LAN), 0: off */
	uint32_t classes;
	uint32_t queue;			/* packets per class; 0: default */
	uint32_t overhead;		/* bytes per frame besides pkt_len */
	uint32_t catchup_us;		/* a stall made up, at most */
	bool fq;			/* flow queues + CoDel per class */
	bool ecn;			/* CoDel marks ECT packets */
	uint32_t target_us, interval_us;
	uint32_t flows;			/* flow queues per class */
	uint32_t quantum;		/* bytes per flow and round */
	int8_t dscp[64];		/* --qos-map, -1: the default */
	int8_t pcp[8];			/* --qos-pcp-map, -1: the default */
	const char *set_without_rate;	/* a --qos-* option, for the error */
};

/* The resolved tables the classifier reads. */
struct cpe_qos_map {
	uint8_t dscp[64];
	uint8_t pcp[8];
	bool pcp0_set;			/* PCP 0 mapped, not "unmarked" */
	uint8_t other;			/* not IP: ARP and the like */
};

void cpe_qos_cfg_defaults(struct cpe_qos_cfg *c);
/*
 * Whether name is one of the scheduler's options (opt_names in
 * qos_class.c); then one option: NULL when taken, else the allowed values
 * for the caller's error message.
 */
bool cpe_qos_is_opt(const char *name);
const char *cpe_qos_opt(struct cpe_qos_cfg *c, const char *name,
			const char *val);
/*
 * Cross-option checks once all are in: 0, or -EINVAL with msg filled.
 * Resolves the defaults that depend on others (the queue's).
 */
int cpe_qos_cfg_check(struct cpe_qos_cfg *c, char *msg, size_t size);
/* The default map for n classes, then the options' entries over it. */
void cpe_qos_map_build(const struct cpe_qos_cfg *c, struct cpe_qos_map *m);
/*
 * The class of an Ethernet frame (len bytes at f, the first segment);
 * tci_pcp is the PCP of a tag the port inserts (TX VLAN offload), or -1.
 */
uint8_t cpe_qos_classify(const struct cpe_qos_map *m, const uint8_t *f,
			 uint32_t len, int tci_pcp);
/*
 * The class, and the flow hash (seeded) of the same frame for the flow
 * queues: IPv4/IPv6 addresses, protocol and ports (none for fragments),
 * also under VLAN tags and in a PPPoE session; one flow per EtherType
 * for what is not IP.
 */
uint8_t cpe_qos_inspect(const struct cpe_qos_map *m, const uint8_t *f,
			uint32_t len, int tci_pcp, uint32_t seed,
			uint32_t *hash);
/*
 * CoDel's congestion signal: an ECT(0)/ECT(1) IPv4 or IPv6 packet's ECN
 * field set to CE (the IPv4 checksum updated); false, frame untouched,
 * when it is not ECN-capable or not IP (then the packet is dropped).
 */
bool cpe_qos_ecn_mark(uint8_t *f, uint32_t len);

#endif /* CH39X_CPE_QOS_H */
