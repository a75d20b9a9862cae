/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FW_BITS_H
#define CPE_FW_BITS_H

/*
 * Byte helpers the firewall's files share (fw.c, fw_parse.c,
 * fw_text.c); private to lib/fw*.c.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
v4_mapped(uint8_t *a, const uint8_t *v4)
{
	memset(a, 0, 10);
	a[10] = a[11] = 0xff;
	memcpy(a + 12, v4, 4);
}

static inline bool
is_icmp_error(bool v6, uint8_t type)
{
	return v6 ? type >= 1 && type <= 4 :
		type == 3 || type == 11 || type == 12;
}

#endif /* CPE_FW_BITS_H */
