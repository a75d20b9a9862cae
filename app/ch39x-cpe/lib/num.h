/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_NUM_H
#define CPE_NUM_H

/*
 * The options' one number parser (control/opts.c, lib/qos_opts.c): a
 * decimal number in [LO, HI] that is the whole of S. No sign, space or
 * base prefix: strtoull alone would take " 12", "-1" (as a huge number)
 * and "0x10".
 */

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

static inline int
cpe_parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

#endif /* CPE_NUM_H */
