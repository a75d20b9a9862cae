/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_MBIM_CTL_H
#define CH39X_MBIM_CTL_H

/*
 * The host's side of MBIM control over the USB transport (ch39x_usb.h):
 * messages out in SEND_ENCAPSULATED_COMMAND (cut into fragments of the
 * function's wMaxControlMessage), responses and indications in with
 * GET_ENCAPSULATED_RESPONSE, put back together (§22); and the dialer, the
 * sequence that takes a modem from power-up to an activated session with
 * its IP configuration (§23). No EAL: the PMD's control path runs it on
 * its own thread, the tests against the simulated modem.
 *
 * The host asks for responses when the function signals one
 * (RESPONSE_AVAILABLE, ch39x_mbim_ctl_pump()) and, while it waits for a
 * command's answer, by itself every few milliseconds, so that commands
 * work before anyone reads the interrupt endpoint (probe time); an empty
 * answer or a stall means nothing waits.
 *
 * Threads: one at a time per client; control requests only. With lock
 * set, each control transfer holds it (the PMD's lock of the control
 * pipe, which its other requests take too): a dial that waits seconds for
 * the network never holds it for longer than one transfer. With cancel
 * set, every wait ends soon after *cancel turns true (-ECANCELED).
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ch39x_mbim.h"
#include "ch39x_usb.h"

struct ch39x_mbim_ctl_stats {
	uint64_t commands;		/* COMMANDs sent */
	uint64_t done;			/* their COMMAND_DONEs */
	uint64_t failed;		/* of them with a status not Success */
	uint64_t indications;
	uint64_t fragments_out;
	uint64_t fragments_in;
	uint64_t timeouts;		/* no answer in time */
	uint64_t function_errors;	/* FUNCTION_ERROR received */
	uint64_t host_errors;		/* HOST_ERROR sent */
	uint64_t stray;			/* answers no one waited for */
	uint64_t polls;			/* GET_ENCAPSULATED_RESPONSE asked */
	uint64_t empty;			/* of them with nothing */
	uint64_t ctrl_errors;		/* control requests that failed */
};

/* What an indication says, for the caller's handler. */
typedef void (*ch39x_mbim_indicate_fn)(void *arg,
				       const struct ch39x_mbim_msg *m);

struct ch39x_mbim_ctl {
	struct ch39x_usb_dev *usb;
	uint16_t iface;			/* communication interface */
	uint32_t max_ctrl;		/* wMaxControlMessage */
	uint32_t tid;			/* the last transaction id used */
	bool open;
	pthread_mutex_t *lock;		/* NULL: the caller serialises */
	const bool *cancel;		/* NULL: never */
	ch39x_mbim_indicate_fn on_indicate;
	void *arg;
	struct ch39x_mbim_ctl_stats st;
	/* The answer waited for. */
	uint32_t want_tid;
	uint32_t want_type;
	bool got;
	bool got_error;			/* FUNCTION_ERROR for it */
	uint32_t got_status;		/* or its error code */
	uint8_t *got_info;		/* the caller's */
	uint32_t got_cap;
	uint32_t got_len;		/* its information buffer's bytes */
	struct ch39x_mbim_reasm reasm;
	uint8_t *rbuf;			/* reassembly, CH39X_MBIM_MSG_MAX */
	uint8_t *sbuf;			/* a whole message out */
	uint8_t *xbuf;			/* one control transfer */
	char err[160];			/* why the last call failed */
};

/*
 * Set up for the function at iface of usb, whose MBIM descriptor says
 * wMaxControlMessage max_ctrl (64..4096). Returns 0 or -ENOMEM/-EINVAL.
 */
int ch39x_mbim_ctl_init(struct ch39x_mbim_ctl *c, struct ch39x_usb_dev *usb,
			uint16_t iface, uint32_t max_ctrl);
void ch39x_mbim_ctl_fini(struct ch39x_mbim_ctl *c);

/*
 * OPEN (with MaxControlTransfer max_ctrl) and CLOSE. Each returns 0, or a
 * negative errno with c->err saying why: -ETIMEDOUT (no answer),
 * -EPROTO (a status not Success, or FUNCTION_ERROR), -ENODEV (gone),
 * -ECANCELED (*cancel).
 */
int ch39x_mbim_ctl_open(struct ch39x_mbim_ctl *c, unsigned int timeout_ms);
int ch39x_mbim_ctl_close(struct ch39x_mbim_ctl *c, unsigned int timeout_ms);

/*
 * One Basic Connect command: query or set cid with the information buffer
 * info, and wait for its COMMAND_DONE. Returns 0 with its status in
 * *status and its information buffer in out (*out_len bytes; what does
 * not fit is cut), or a negative errno as above. Indications that come
 * meanwhile go to the handler.
 */
int ch39x_mbim_ctl_command(struct ch39x_mbim_ctl *c, uint32_t cid,
			   uint32_t cmd_type, const uint8_t *info,
			   uint32_t info_len, uint8_t *out, uint32_t cap,
			   uint32_t *out_len, uint32_t *status,
			   unsigned int timeout_ms);

/*
 * Read every response that waits (after RESPONSE_AVAILABLE, or now and
 * then): indications to the handler, late answers counted. Returns the
 * messages read, or a negative errno (-ENODEV).
 */
int ch39x_mbim_ctl_pump(struct ch39x_mbim_ctl *c);

/* ---- The dialer ---- */

struct ch39x_mbim_dial_cfg {
	uint32_t session;		/* IP session (0: the port's) */
	char apn[CH39X_MBIM_STR_LONG];
	char user[CH39X_MBIM_STR_LONG];
	char password[CH39X_MBIM_STR_LONG];
	uint32_t auth;			/* CH39X_MBIM_AUTH_* */
	uint32_t ip_type;		/* CH39X_MBIM_IP_* */
	unsigned int cmd_timeout_ms;	/* each command */
	unsigned int register_timeout_ms;	/* waiting for the network */
};

/* What the dialer learnt; the IP configuration once connected. */
struct ch39x_mbim_dial_state {
	struct ch39x_mbim_caps caps;
	uint32_t ready_state;
	uint32_t register_state;
	uint32_t packet_state;
	uint32_t activation;		/* CH39X_MBIM_ACTIVATED when up */
	uint32_t ip_type;		/* granted */
	uint32_t nw_error;
	uint32_t rssi;
	uint64_t up_bps;		/* packet service's announced speeds */
	uint64_t down_bps;
	char provider[CH39X_MBIM_STR_SHORT];
	struct ch39x_mbim_ipcfg ipcfg;
	uint32_t last_status;		/* of the command that failed */
};

/*
 * From an open function to an activated session: device caps, subscriber
 * ready (a SIM that is not ready is an error naming the state), radio
 * on, registration (asking for automatic registration, then waiting for
 * it, REGISTER_STATE indications or queries every 500 ms, at most
 * register_timeout_ms), packet service attach, CONNECT with the APN and
 * credentials, IP_CONFIGURATION. Returns 0, or a negative errno with
 * c->err naming the step and the modem's status (e.g. "CONNECT refused:
 * InvalidAccessString (the APN apn=... is not the network's)").
 */
int ch39x_mbim_dial(struct ch39x_mbim_ctl *c,
		    const struct ch39x_mbim_dial_cfg *cfg,
		    struct ch39x_mbim_dial_state *st);
/* Deactivate the session (CONNECT set, deactivate). */
int ch39x_mbim_hangup(struct ch39x_mbim_ctl *c,
		      const struct ch39x_mbim_dial_cfg *cfg,
		      struct ch39x_mbim_dial_state *st);

/*
 * Update st from an indication (CONNECT of cfg's session, REGISTER_STATE,
 * PACKET_SERVICE, SIGNAL_STATE, IP_CONFIGURATION). Returns true when the
 * session's being up changed.
 */
bool ch39x_mbim_dial_indication(const struct ch39x_mbim_dial_cfg *cfg,
				struct ch39x_mbim_dial_state *st,
				const struct ch39x_mbim_msg *m);

/* Whether the session is up: activated and registered. */
static inline bool
ch39x_mbim_dial_up(const struct ch39x_mbim_dial_state *st)
{
	return st->activation == CH39X_MBIM_ACTIVATED &&
		(st->register_state == CH39X_MBIM_REGISTER_HOME ||
		 st->register_state == CH39X_MBIM_REGISTER_ROAMING ||
		 st->register_state == CH39X_MBIM_REGISTER_PARTNER);
}

#endif /* CH39X_MBIM_CTL_H */
