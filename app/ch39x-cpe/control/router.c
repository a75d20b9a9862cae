/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The router (router.h): one, made by cpe_router_run() (loop.c); the
 * telemetry callbacks, the signal handler and the ports' event callbacks
 * that take no argument find it here.
 */

#include "router.h"

static struct cpe_router *the_router;

struct cpe_router *
cpe_router_get(void)
{
	return the_router;
}

void
cpe_router_set(struct cpe_router *r)
{
	the_router = r;
}
