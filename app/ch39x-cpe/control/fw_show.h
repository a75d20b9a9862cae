/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FW_SHOW_H
#define CPE_FW_SHOW_H

/*
 * What the firewall and the fragment tracking show (fw_show.c): their
 * counters in the statistics' text and JSON, and in telemetry replies.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

/* The firewall's counters as "fw_*" keys of a reply's dict. */
void cpe_fw_tel(struct cpe_router *r, struct rte_tel_data *d);
/* Evictions by evict.h's class, text (" evicted_CLASS N"...) or JSON
 * (", \"evicted_by_class\": {...}"); in telemetry as PREFIX_evicted_CLASS. */
void cpe_evict_print(FILE *f, const uint64_t *v, bool json);
void cpe_evict_tel(struct rte_tel_data *d, const char *prefix,
		   const uint64_t *v);
void cpe_fw_print(struct cpe_router *r, FILE *f);
void cpe_fw_json(struct cpe_router *r, FILE *f);
void cpe_frag_print(struct cpe_router *r, FILE *f);
void cpe_frag_json(struct cpe_router *r, FILE *f);

#endif /* CPE_FW_SHOW_H */
