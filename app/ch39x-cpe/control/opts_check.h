/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_OPTS_CHECK_H
#define CPE_OPTS_CHECK_H

/* The checks across options once all are in (opts_check.c). */

#include "cpe_conf.h"

/* 0, or -EINVAL (reported: the option and the allowed values). */
int cpe_opts_check(struct cpe_opts *o);

#endif /* CPE_OPTS_CHECK_H */
