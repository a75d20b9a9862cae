/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_LE_H
#define CH39X_LE_H

/*
 * Little-endian fields of USB headers and registers, as every codec of
 * lib/ch39x reads and writes them: one load or store where the host's
 * byte order is the wire's.
 */

#include <stdint.h>
#include <string.h>

static inline uint16_t
ch39x_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t
ch39x_get_le32(const uint8_t *p)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint32_t v;

	/* One load where the byte order is the wire's. */
	memcpy(&v, p, sizeof(v));
	return v;
#else
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
		((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
#endif
}

static inline void
ch39x_put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void
ch39x_put_le32(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(p, &v, sizeof(v));
#else
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
#endif
}

#endif /* CH39X_LE_H */
