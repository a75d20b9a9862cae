/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_MBIM_PORT_H
#define CH39X_MBIM_PORT_H

/*
 * An MBIM port (issue 43): a modem's MBIM function shown as an Ethernet
 * port with a fixed peer (ch39x_mbim_eth.h), its sessions brought up by
 * the port's dialer thread (ch39x_mbim_dial.c) and seen through the
 * private API and telemetry (ch39x_mbim_api.c). The device type's ops are
 * in ch39x_mbim_ctrl.c. Protocol sections (§N) are those of
 * doc/guides/nics/ch39x_protocol.rst.
 *
 * Threads: the dialer owns the MBIM control client and the dial states
 * (t_*); what others read (the sessions' published copies, requests) is
 * under lock; the bursts read eth and answers only. link_lock orders the
 * dialer's link reports against the port's stop (recursive: an LSC
 * callback may stop the port).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_ring.h>

#include "ch39x_compat.h"
#include "ch39x_mbim_ctl.h"
#include "ch39x_mbim_eth.h"
#include "rte_pmd_ch39x.h"

struct ch39x_adapter;

#define CH39X_MBIM_MAX_SESSIONS	RTE_PMD_CH39X_MBIM_SESSIONS
/* ARP replies and neighbour advertisements waiting for the RX burst. */
#define CH39X_MBIM_ANSWERS	64

/* One session: what was asked for, and what the dialer last published. */
struct ch39x_mbim_sess {
	struct ch39x_mbim_dial_cfg cfg;	/* session id, APN, credentials */
	uint16_t vlan;			/* 0: untagged (session 0) */
	bool want;			/* connect: asked (auto, or the API) */
	uint32_t want_seq;		/* bumped by each API request */
	uint32_t done_seq;		/* the request the dialer last took */
	enum rte_pmd_ch39x_mbim_phase phase;
	struct ch39x_mbim_dial_state st;
	char err[160];
	uint64_t dials;
	uint64_t dial_failures;
	uint64_t drops;
};

/* The dialer's own state of a session (its thread only). */
struct ch39x_mbim_tsess {
	struct ch39x_mbim_dial_state st;
	enum rte_pmd_ch39x_mbim_phase phase;	/* as last published */
	bool up;
	uint32_t backoff_ms;
	uint64_t next_try_us;
};

/* Counters of the control path, published by the dialer. */
struct ch39x_mbim_counters {
	uint64_t opens;			/* MBIM OPEN done */
	uint64_t open_failures;
	uint64_t notifications;		/* RESPONSE_AVAILABLE seen */
	uint64_t commands;
	uint64_t commands_failed;	/* a status other than Success */
	uint64_t indications;
	uint64_t timeouts;
	uint64_t function_errors;
	uint64_t fragments_in;
	uint64_t fragments_out;
	uint64_t dials;
	uint64_t dial_failures;
	uint64_t session_drops;
};

struct ch39x_mbim_port {
	struct ch39x_adapter *ad;
	/* The bursts': MACs and the VLAN mapping, the answers' ring. */
	struct ch39x_mbim_eth eth;
	struct rte_ring *answers;
	bool manual;			/* connect=manual */

	pthread_mutex_t lock;
	pthread_cond_t cond;		/* requests, RESPONSE_AVAILABLE, quit */
	pthread_cond_t changed;		/* a session was published */
	pthread_mutex_t link_lock;	/* recursive */
	ch39x_thread_t thread;
	bool running;
	bool quit;			/* close */
	bool cancel;			/* the control client's waits end */
	bool kick;			/* news: look now */
	uint32_t gen;			/* the device type's inits */
	uint32_t nb_sess;
	struct ch39x_mbim_sess sess[CH39X_MBIM_MAX_SESSIONS];
	struct ch39x_mbim_caps caps;	/* once opened */
	bool have_caps;
	char open_err[192];
	struct ch39x_mbim_counters c;

	/* The dialer's (its thread only). */
	struct ch39x_mbim_ctl ctl;
	bool ctl_ready;
	bool opened;
	uint32_t seen_gen;
	uint32_t open_backoff_ms;
	uint64_t next_open_us;
	uint64_t next_pump_us;
	struct ch39x_mbim_tsess t[CH39X_MBIM_MAX_SESSIONS];
	bool t_dirty;			/* an indication changed a session */
	bool link_up;			/* as last reported */
};

/* ch39x_mbim_dial.c: the dialer thread of a port. */
int ch39x_mbim_dialer_start(struct ch39x_mbim_port *m);
void ch39x_mbim_dialer_stop(struct ch39x_mbim_port *m);
/* Look now (a RESPONSE_AVAILABLE, a request). Any thread. */
void ch39x_mbim_dialer_kick(struct ch39x_mbim_port *m);
/* The function was set up again (probe, reconnect, reset): OPEN again. */
void ch39x_mbim_dialer_reinit(struct ch39x_mbim_port *m);
/* The port's link from session 0 (start, stop). */
void ch39x_mbim_link_sync(struct ch39x_mbim_port *m);
/* The session of index i (published copy) under m->lock. */
int ch39x_mbim_find_session(const struct ch39x_mbim_port *m,
			    uint32_t session);

#endif /* CH39X_MBIM_PORT_H */
