/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* A telemetry command's parameters split at commas (fields.h). */

#include <string.h>

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
