/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_CTL_H
#define CPE_CTL_H

/*
 * Run-time commands over EAL's telemetry socket (dpdk-telemetry.py,
 * usertools/ch39x-cpe-ctl, or any SOCK_SEQPACKET client of
 * /var/run/dpdk/<file-prefix>/dpdk_telemetry.v2). Parameters follow the
 * command after a comma.
 *
 * Telemetry callbacks run on EAL's telemetry threads (one per client)
 * while the forwarding lcore owns the graph, its tables and the control
 * plane's state without locks. So a callback only parses (no router
 * state); the command, a function and a copy of its argument (at most
 * CPE_CTL_ARG_MAX bytes), goes through a one-slot mailbox that the
 * forwarding loop services in its housekeeping (cpe_ctl_poll(), every
 * millisecond; a sleeping loop is woken by cpe_idle_kick()), and the
 * callback waits for the result (cpe_ctl_call()).
 *
 * The commands: ctl_route.c (/cpe/route/..., /cpe/routes,
 * /cpe/neigh/..., /cpe/neighs), ctl_show.c (/cpe/stats, /cpe/ports,
 * /cpe/nodes), ctl_sim.c (/cpe/sim/...), trace_ctl.c (/cpe/trace), fw_ctl.c
 * (/cpe/fw/...), wan.c and wan6.c (/cpe/wan...).
 */

#include <stddef.h>

#include <rte_telemetry.h>

#include "cpe_compat.h"
#include "fields.h"
#include "router.h"

#define CPE_CTL_ARG_MAX		128
#define CPE_CTL_LIST_MAX	256	/* entries in one listing */

/* What runs on the forwarding lcore between two walks. */
typedef void (*cpe_ctl_fn)(struct cpe_router *r, const void *arg,
			   struct rte_tel_data *d);

/*
 * A command's callback, on a telemetry thread: box is the mailbox
 * (struct cpe_ctl *) to hand to cpe_ctl_call() and the replies. The type
 * of DPDK's telemetry_arg_cb (24.11), in any release.
 */
typedef int (*cpe_ctl_cb)(const char *cmd, const char *params, void *box,
			  struct rte_tel_data *d);

struct cpe_ctl_cmd {
	const char *cmd;
	cpe_ctl_cb fn;
	const char *help;
};

/* cmds (which must outlive the router: static) with the mailbox c. */
int cpe_ctl_register(struct cpe_ctl *c, const struct cpe_ctl_cmd *cmds,
		     unsigned int n);
/* fn(r, copy of arg, d) on the forwarding lcore; waits for it. */
int cpe_ctl_call(struct cpe_ctl *c, cpe_ctl_fn fn, const void *arg,
		 size_t len, struct rte_tel_data *d);
/* A bad request's reply (telemetry thread, counted). */
int cpe_ctl_bad(struct cpe_ctl *c, struct rte_tel_data *d, const char *cmd,
		const char *params, const char *allowed);
/* A refused command's reply (forwarding lcore, counted). */
void cpe_ctl_error(struct cpe_router *r, struct rte_tel_data *d,
		   const char *err, const char *allowed);
/* An error whose allowed values are a list: the list to fill, or NULL. */
struct rte_tel_data *cpe_ctl_error_list(struct cpe_router *r,
					struct rte_tel_data *d,
					const char *err);
/* A listing: {"count": N, "shown": M, KEY: [lines]}. */
struct rte_tel_data *cpe_ctl_list_start(struct rte_tel_data *d,
					const char *key);
/* A command without parameters: 0, or -EINVAL and the bad request's
 * reply in d (the callback returns 0). */
int cpe_ctl_no_params(struct cpe_ctl *c, struct rte_tel_data *d,
		      const char *cmd, const char *params);

/* The mailbox (before the commands are registered), its service
 * between two walks, its end. */
int cpe_ctl_init(struct cpe_router *r);
void cpe_ctl_poll(struct cpe_router *r);
void cpe_ctl_close(struct cpe_router *r);
/*
 * SIGINT and SIGTERM blocked in the calling thread and the threads it
 * starts after (main(), before EAL's): cpe_ctl_init() opens a signalfd
 * for them, cpe_ctl_poll() reads it and stops the loop, the idle wait
 * watches it (cpe_ctl_signal_fd(), -1 before cpe_ctl_init()). 0 or <0.
 */
int cpe_ctl_block_signals(void);
int cpe_ctl_signal_fd(const struct cpe_router *r);

/* The commands' files: each registers its commands with the mailbox
 * (loop.c calls them after cpe_ctl_init()). */
int cpe_ctl_route_init(struct cpe_ctl *c);
int cpe_ctl_show_init(struct cpe_ctl *c);
int cpe_ctl_sim_init(struct cpe_ctl *c);
int cpe_ctl_trace_init(struct cpe_ctl *c);
int cpe_fw_ctl_init(struct cpe_ctl *c);
int cpe_wan_ctl_init(struct cpe_ctl *c);

#endif /* CPE_CTL_H */
