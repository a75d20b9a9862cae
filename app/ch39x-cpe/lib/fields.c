/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* Commands' parameters, addresses and port names (fields.h). */

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <arpa/inet.h>

#include "fields.h"

int
cpe_ctl_split(const char *params, char *buf, size_t cap, char **f, int n)
{
	char *save = NULL, *t;
	int i = 0;

	if (params == NULL || params[0] == '\0' || strlen(params) >= cap)
		return -1;
	strcpy(buf, params);
	/* Exactly n fields: "a,,b" or a trailing comma are errors. */
	if (strstr(buf, ",,") != NULL || buf[0] == ',' ||
	    buf[strlen(buf) - 1] == ',')
		return -1;
	for (t = strtok_r(buf, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		if (i == n)
			return -1;
		f[i++] = t;
	}
	return i;
}

int
cpe_parse_ip(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = ntohl(a.s_addr);
	return 0;
}

/* Digits only, no sign or space, within lo..hi. */
static int
parse_num(const char *s, size_t len, uint32_t lo, uint32_t hi, uint32_t *v)
{
	size_t i;

	if (len == 0 || len > 5)
		return -EINVAL;
	*v = 0;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -EINVAL;
		*v = *v * 10 + (uint32_t)(s[i] - '0');
	}
	return *v < lo || *v > hi ? -EINVAL : 0;
}

int
cpe_parse_port_vlan(const char *s, uint16_t *id, uint16_t *vlan)
{
	const char *dot = strchr(s, '.');
	size_t plen = dot != NULL ? (size_t)(dot - s) : strlen(s);
	uint32_t p, v = 0;

	if (parse_num(s, plen, 0, 1023, &p) != 0 ||
	    (dot != NULL && parse_num(dot + 1, strlen(dot + 1), 1, 4094,
				      &v) != 0))
		return -EINVAL;
	*id = (uint16_t)p;
	*vlan = (uint16_t)v;
	return 0;
}
