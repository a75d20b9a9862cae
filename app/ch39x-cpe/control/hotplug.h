/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_HOTPLUG_H
#define CPE_HOTPLUG_H

/*
 * Ports that go and return (hotplug.c): LSC and RMV events, re-probes.
 */

#include <stdint.h>

#include "router.h"

int cpe_hotplug_init(struct cpe_router *r);
void cpe_hotplug_poll(struct cpe_router *r);
void cpe_hotplug_close(struct cpe_router *r);
const char *cpe_hotplug_state(const struct cpe_router *r, uint16_t k);
uint64_t cpe_hotplug_reprobes(const struct cpe_router *r, uint16_t k);
/* Port-level counters of the hotplug (statistics). */
void cpe_hotplug_counts(const struct cpe_router *r, uint64_t *down,
			uint64_t *up, uint64_t *rmv, uint64_t *reprobes,
			uint64_t *errors, uint64_t *gave_up);

#endif /* CPE_HOTPLUG_H */
