/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_FIELDS_H
#define CH39X_CPE_FIELDS_H

/*
 * A telemetry command's parameters split at commas, for every command of
 * the router (ctl.c, fw_ctl.c, wan.c, pd6.c). Pure: no DPDK, so that the
 * parsers built on it link into the fuzzers and unit tests by themselves.
 */

#include <stddef.h>

/*
 * params copied into buf (cap bytes) and split at commas into f[0..n-1]:
 * the number of fields, or -1 when empty, too long, with an empty field
 * ("a,,b", a leading or trailing comma), or more than n fields.
 */
int cpe_ctl_split(const char *params, char *buf, size_t cap, char **f, int n);

#endif /* CH39X_CPE_FIELDS_H */
