/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_PORTS_H
#define CPE_PORTS_H

/*
 * The DPDK ports (ports.c): their queues, offloads and pool, the router
 * interfaces on them (VLANs included), their restart after a re-probe.
 */

#include <stdint.h>

#include "router.h"

int cpe_ports_setup(struct cpe_router *r);
void cpe_ports_close(struct cpe_router *r);
/* phys[k] set up again as at start (a new port id after a re-probe). */
int cpe_port_restart(struct cpe_router *r, uint16_t k);

#endif /* CPE_PORTS_H */
