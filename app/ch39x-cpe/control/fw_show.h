/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_FW_SHOW_H
#define CPE_FW_SHOW_H

/*
 * What the firewall and the fragment tracking show (fw_show.c): their
 * counters in the statistics' text and JSON, and in telemetry replies.
 */

#include <stdio.h>

#include <rte_telemetry.h>

#include "router.h"

/* The firewall's counters as "fw_*" keys of a reply's dict. */
void cpe_fw_tel(struct cpe_router *r, struct rte_tel_data *d);
void cpe_fw_print(struct cpe_router *r, FILE *f);
void cpe_fw_json(struct cpe_router *r, FILE *f);
void cpe_frag_print(struct cpe_router *r, FILE *f);
void cpe_frag_json(struct cpe_router *r, FILE *f);

#endif /* CPE_FW_SHOW_H */
