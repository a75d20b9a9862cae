/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CPE_FIELDS_H
#define CH39X_CPE_FIELDS_H

/*
 * The text the router takes from options and telemetry commands: a
 * command's parameters split at commas (ctl.c, fw_ctl.c, wan.c, pd6.c),
 * an IPv4 address, a PORT[.VLAN]. Pure: no DPDK, so that the parsers
 * built on it link into the fuzzers and unit tests by themselves.
 */

#include <stddef.h>
#include <stdint.h>

/*
 * params copied into buf (cap bytes) and split at commas into f[0..n-1]:
 * the number of fields, or -1 when empty, too long, with an empty field
 * ("a,,b", a leading or trailing comma), or more than n fields.
 */
int cpe_ctl_split(const char *params, char *buf, size_t cap, char **f, int n);

/* A dotted IPv4 address into host order: 0, or -EINVAL. */
int cpe_parse_ip(const char *s, uint32_t *ip);

/* "PORT" or "PORT.VLAN": a DPDK port id 0..1023, a VLAN id 1..4094 (0
 * when none): 0, or -EINVAL. */
int cpe_parse_port_vlan(const char *s, uint16_t *id, uint16_t *vlan);

#endif /* CH39X_CPE_FIELDS_H */
