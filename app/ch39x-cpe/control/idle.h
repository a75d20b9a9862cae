/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_IDLE_H
#define CPE_IDLE_H

/*
 * What the loop does without packets (idle.c, --idle): poll, sleep
 * adaptively, or wait for the ports' Rx interrupts and the TAPs.
 */

#include <stdbool.h>
#include <stdint.h>

#include "router.h"

int cpe_idle_create(struct cpe_router *r);
void cpe_idle_free(struct cpe_router *r);
void cpe_idle_init(struct cpe_router *r);	/* the forwarding thread */
void cpe_idle(struct cpe_router *r, uint32_t got, uint64_t deadline);
void cpe_idle_wake_by(struct cpe_router *r, uint64_t tsc);
void cpe_idle_kick(struct cpe_router *r);	/* any thread */
int cpe_idle_watch_fd(struct cpe_router *r, int fd);
bool cpe_idle_want_intr(const struct cpe_router *r, uint16_t port_id);
bool cpe_idle_intr_refused(struct cpe_router *r, uint16_t port_id);
const char *cpe_idle_mode_name(enum cpe_idle_mode m);
void cpe_idle_port_detach(struct cpe_router *r, uint16_t k);
void cpe_idle_port_attach(struct cpe_router *r, uint16_t k);
uint16_t cpe_idle_intr_ports(const struct cpe_router *r);

#endif /* CPE_IDLE_H */
