/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_LOOP_H
#define CPE_LOOP_H

/*
 * The router's life (loop.c): its set-up in order, the forwarding loop
 * on the main lcore with the housekeeping between two walks of the
 * graph, the statistics, the tear-down.
 */

#include "cpe_conf.h"

/* main(): the router of options o, run until a signal or --duration;
 * 0, or what failed (reported). */
int cpe_router_run(struct cpe_opts *o);

#endif /* CPE_LOOP_H */
