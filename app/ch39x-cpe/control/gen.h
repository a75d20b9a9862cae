/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_GEN_H
#define CPE_GEN_H

/*
 * The benchmark's traffic (gen.c, --bench-gen), on its own lcore.
 */

#include <stdint.h>

#include "router.h"

int cpe_gen_start(struct cpe_router *r);
void cpe_gen_stop(struct cpe_router *r);
void cpe_gen_counts(const struct cpe_router *r, uint64_t *tx, uint64_t *rx);

#endif /* CPE_GEN_H */
