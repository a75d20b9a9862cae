/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_TAP_H
#define CPE_TAP_H

/*
 * The control plane's TAPs (tap.c, --tap): made, configured, closed;
 * the tap_in and tap_out nodes read and write them.
 */

#include "router.h"

int cpe_tap_setup(struct cpe_router *r);
void cpe_tap_close(struct cpe_router *r);

#endif /* CPE_TAP_H */
