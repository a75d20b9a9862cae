/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_CSUM_H
#define CPE_CSUM_H

/*
 * Checksum helpers: one's complement arithmetic on raw (memory order)
 * 16-bit words, so no byte swapping is needed anywhere (RFC 1624); and
 * the unaligned 16-bit field access every parser uses. Pure.
 */

#include <stdint.h>
#include <string.h>

static inline uint32_t
cpe_csum_fold(uint32_t s)
{
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s;
}

/* Adds to adj the change of a 16-bit word from old to new. */
static inline uint32_t
cpe_adj16(uint32_t adj, uint16_t old, uint16_t new)
{
	return adj + (uint16_t)~old + new;
}

static inline uint32_t
cpe_adj32(uint32_t adj, uint32_t old, uint32_t new)
{
	adj = cpe_adj16(adj, (uint16_t)old, (uint16_t)new);
	return cpe_adj16(adj, (uint16_t)(old >> 16), (uint16_t)(new >> 16));
}

/* A checksum field (raw) updated by a precomputed delta. */
static inline uint16_t
cpe_csum_update(uint16_t csum, uint32_t adj)
{
	return (uint16_t)~cpe_csum_fold((uint16_t)~csum + cpe_csum_fold(adj));
}

/*
 * A 16-bit field of a packet at any alignment: a frame may start at any
 * offset of a USB transfer (zero-copy RX, NCM's datagram index), so fields
 * are read and written with memcpy, never through a uint16_t pointer
 * (-Wcast-align=strict; a fault on strict-alignment CPUs).
 */
static inline uint16_t
cpe_get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
cpe_put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * Aging looks at every slot of the flow and NAT tables once per this
 * many milliseconds, a slice at each housekeeping pass in proportion to
 * the time since the last: an entry lives at most its timeout plus this.
 * A fixed slice per millisecond (it was 256 slots) scanned the default
 * tables four times a second, several percent of a router's CPU at
 * moderate rates on the VM's USB stack (doc/perf/cpe_cpu.csv).
 */
#define CPE_AGE_PASS_MS		2000

/* Slots of an nb-slot table to age for ms milliseconds. */
static inline uint32_t
cpe_age_budget(uint32_t nb, uint32_t ms)
{
	uint64_t b = ((uint64_t)nb * ms + CPE_AGE_PASS_MS - 1) /
		CPE_AGE_PASS_MS;

	return b < nb ? (uint32_t)b : nb;
}

#endif /* CPE_CSUM_H */
