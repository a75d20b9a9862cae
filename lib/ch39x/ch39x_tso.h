/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_TSO_H
#define CH39X_TSO_H

/*
 * TCP segmentation over a flat super-frame: the software TSO of the PMD and
 * the hardware TSO of the simulated CH398 are this same code, so both paths
 * put identical bytes on the wire.
 *
 * Each segment is correct TCP: sequence numbers advance by the payload sent
 * before it, the IPv4 ID increments per segment, the IPv4 total length or
 * IPv6 payload length is the segment's, FIN and PSH stay on the last segment
 * only, CWR on the first only, and the IPv4 header and TCP checksums are
 * computed from scratch.
 */

#include <stdbool.h>
#include <stdint.h>

#define CH39X_TSO_MAX_HDRS	(14 + 4 + 60 + 60)

struct ch39x_tso {
	const uint8_t *frame;
	uint32_t len;
	uint16_t hdr_len;	/* L2 + L3 + L4 */
	uint16_t l2_len;
	uint16_t l3_len;
	uint16_t l4_len;
	uint16_t mss;
	bool ipv4;
	uint32_t nseg;
	uint32_t idx;		/* next segment */
};

/*
 * Check a super-frame and its header lengths. Returns the number of
 * segments (at least 1), or -1 when the frame is not TCP over IPv4/IPv6
 * with those lengths, or mss is 0.
 */
int ch39x_tso_init(struct ch39x_tso *t, const uint8_t *frame, uint32_t len,
		   uint16_t l2_len, uint16_t l3_len, uint16_t l4_len,
		   uint16_t mss);
/* Bytes of the next segment, headers included; 0 when all are out. */
uint32_t ch39x_tso_next_len(const struct ch39x_tso *t);
/* Write the next segment to dst (ch39x_tso_next_len bytes) and advance. */
void ch39x_tso_emit(struct ch39x_tso *t, uint8_t *dst);

#endif /* CH39X_TSO_H */
