/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ch39x_cdc.h"
#include "ch39x_mbim_ctl.h"

#define CTRL_TIMEOUT_MS		500	/* one control request */
#define PUMP_MAX		64	/* responses read per pump at most */
#define WAIT_MIN_US		200
#define WAIT_MAX_US		5000
#define REGISTER_POLL_MS	500

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void
sleep_us(uint32_t us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

	nanosleep(&ts, NULL);
}

static int
fail(struct ch39x_mbim_ctl *c, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	return rc;
}

int
ch39x_mbim_ctl_init(struct ch39x_mbim_ctl *c, struct ch39x_usb_dev *usb,
		    uint16_t iface, uint32_t max_ctrl)
{
	memset(c, 0, sizeof(*c));
	if (max_ctrl < CH39X_MBIM_CTRL_MIN || max_ctrl > CH39X_MBIM_CTRL_MAX)
		return -EINVAL;
	c->usb = usb;
	c->iface = iface;
	c->max_ctrl = max_ctrl;
	c->rbuf = malloc(CH39X_MBIM_MSG_MAX);
	c->sbuf = malloc(CH39X_MBIM_MSG_MAX);
	c->xbuf = malloc(CH39X_MBIM_CTRL_MAX);
	if (c->rbuf == NULL || c->sbuf == NULL || c->xbuf == NULL) {
		ch39x_mbim_ctl_fini(c);
		return -ENOMEM;
	}
	ch39x_mbim_reasm_init(&c->reasm, c->rbuf, CH39X_MBIM_MSG_MAX);
	return 0;
}

void
ch39x_mbim_ctl_fini(struct ch39x_mbim_ctl *c)
{
	free(c->rbuf);
	free(c->sbuf);
	free(c->xbuf);
	c->rbuf = c->sbuf = c->xbuf = NULL;
}

/* One control transfer, under the caller's lock when it gave one. */
static int
ctl_xfer(struct ch39x_mbim_ctl *c, uint8_t type, uint8_t req, void *data,
	 uint16_t len)
{
	int rc;

	if (c->lock != NULL)
		pthread_mutex_lock(c->lock);
	rc = c->usb->ops->control(c->usb, type, req, 0, c->iface, data, len,
				  CTRL_TIMEOUT_MS);
	if (c->lock != NULL)
		pthread_mutex_unlock(c->lock);
	return rc;
}

static bool
cancelled(const struct ch39x_mbim_ctl *c)
{
	return c->cancel != NULL &&
		__atomic_load_n(c->cancel, __ATOMIC_ACQUIRE);
}

static uint32_t
next_tid(struct ch39x_mbim_ctl *c)
{
	if (++c->tid == 0)
		c->tid = 1;
	return c->tid;
}

/* A whole message of len bytes in c->sbuf, in fragments. */
static int
send_msg(struct ch39x_mbim_ctl *c, uint32_t len)
{
	uint32_t n = ch39x_mbim_frag_count(c->sbuf, len, c->max_ctrl), i, fl;
	int rc;

	if (n == 0)
		return fail(c, -EINVAL, "message of %u bytes not sendable", len);
	for (i = 0; i < n; i++) {
		fl = ch39x_mbim_frag_build(c->sbuf, len, c->max_ctrl, i,
					   c->xbuf, CH39X_MBIM_CTRL_MAX);
		rc = ctl_xfer(c, CH39X_CDC_REQT_OUT,
			      CH39X_CDC_SEND_ENCAPSULATED, c->xbuf,
			      (uint16_t)fl);
		if (rc < 0) {
			c->st.ctrl_errors++;
			return fail(c, rc == -ENODEV ? -ENODEV : -EIO,
				    "SEND_ENCAPSULATED_COMMAND failed: %s",
				    strerror(-rc));
		}
		c->st.fragments_out++;
	}
	return 0;
}

/* A whole message from the function. */
static void
dispatch(struct ch39x_mbim_ctl *c, const uint8_t *b, uint32_t len)
{
	struct ch39x_mbim_msg m;
	bool mine;

	if (ch39x_mbim_parse(b, len, &m) != 0) {
		c->st.stray++;
		return;
	}
	mine = m.tid != 0 && m.tid == c->want_tid && !c->got;
	switch (m.type) {
	case CH39X_MBIM_INDICATE_STATUS_MSG:
		c->st.indications++;
		if (c->on_indicate)
			c->on_indicate(c->arg, &m);
		return;
	case CH39X_MBIM_FUNCTION_ERROR_MSG:
		c->st.function_errors++;
		if (mine) {
			c->got = true;
			c->got_error = true;
			c->got_status = m.status;
		}
		return;
	case CH39X_MBIM_OPEN_DONE:
	case CH39X_MBIM_CLOSE_DONE:
	case CH39X_MBIM_COMMAND_DONE:
		if (!mine || m.type != c->want_type) {
			c->st.stray++;
			return;
		}
		c->got = true;
		c->got_status = m.status;
		c->got_len = m.info_len < c->got_cap ? m.info_len : c->got_cap;
		if (c->got_len)
			memcpy(c->got_info, m.info, c->got_len);
		return;
	default:
		c->st.stray++;
		return;
	}
}

static void
host_error(struct ch39x_mbim_ctl *c, uint32_t tid, uint32_t code)
{
	uint8_t b[CH39X_MBIM_STATUS_LEN];

	ch39x_mbim_build_status(b, sizeof(b), CH39X_MBIM_HOST_ERROR_MSG, tid,
				code);
	if (ctl_xfer(c, CH39X_CDC_REQT_OUT, CH39X_CDC_SEND_ENCAPSULATED, b,
		     sizeof(b)) >= 0)
		c->st.host_errors++;
}

int
ch39x_mbim_ctl_pump(struct ch39x_mbim_ctl *c)
{
	enum ch39x_mbim_reasm_rc r;
	uint32_t tid, err;
	int i, rc, n = 0;

	for (i = 0; i < PUMP_MAX; i++) {
		c->st.polls++;
		rc = ctl_xfer(c, CH39X_CDC_REQT_IN,
			      CH39X_CDC_GET_ENCAPSULATED, c->xbuf,
			      (uint16_t)c->max_ctrl);
		if (rc == -ENODEV)
			return fail(c, -ENODEV, "the modem left the bus");
		if (rc <= 0) {
			/* Nothing waits: empty, or a stall. */
			if (rc < 0 && rc != -EPIPE)
				c->st.ctrl_errors++;
			c->st.empty++;
			break;
		}
		c->st.fragments_in++;
		r = ch39x_mbim_reasm_add(&c->reasm, c->xbuf, (uint32_t)rc,
					 &tid, &err);
		if (r == CH39X_MBIM_REASM_DONE) {
			dispatch(c, c->rbuf, c->reasm.len);
			n++;
		} else if (r == CH39X_MBIM_REASM_BAD) {
			host_error(c, tid, err);
		}
	}
	return n;
}

/* Send the message in c->sbuf and wait for its answer of type. */
static int
transact(struct ch39x_mbim_ctl *c, uint32_t len, uint32_t tid, uint32_t type,
	 unsigned int timeout_ms, const char *what)
{
	uint64_t deadline = now_us() + (uint64_t)timeout_ms * 1000u;
	uint32_t wait = WAIT_MIN_US;
	int rc;

	c->want_tid = tid;
	c->want_type = type;
	c->got = false;
	c->got_error = false;
	rc = send_msg(c, len);
	if (rc < 0)
		goto out;
	for (;;) {
		rc = ch39x_mbim_ctl_pump(c);
		if (rc < 0)
			goto out;
		if (c->got)
			break;
		if (cancelled(c)) {
			rc = fail(c, -ECANCELED, "%s: cancelled", what);
			goto out;
		}
		if (now_us() >= deadline) {
			c->st.timeouts++;
			rc = fail(c, -ETIMEDOUT, "%s: no answer in %u ms", what,
				  timeout_ms);
			goto out;
		}
		sleep_us(wait);
		wait = wait * 2 > WAIT_MAX_US ? WAIT_MAX_US : wait * 2;
	}
	rc = 0;
	if (c->got_error)
		rc = fail(c, -EPROTO, "%s: FUNCTION_ERROR %u", what,
			  c->got_status);
out:
	c->want_tid = 0;
	return rc;
}

static int
open_close(struct ch39x_mbim_ctl *c, bool open, unsigned int timeout_ms)
{
	uint32_t tid = next_tid(c), len;
	const char *what = open ? "OPEN" : "CLOSE";
	int rc;

	len = open ? ch39x_mbim_build_open(c->sbuf, CH39X_MBIM_MSG_MAX, tid,
					   c->max_ctrl) :
		ch39x_mbim_build_close(c->sbuf, CH39X_MBIM_MSG_MAX, tid);
	c->got_cap = 0;
	rc = transact(c, len, tid, open ? CH39X_MBIM_OPEN_DONE :
		      CH39X_MBIM_CLOSE_DONE, timeout_ms, what);
	if (rc < 0)
		return rc;
	if (c->got_status != CH39X_MBIM_STATUS_SUCCESS)
		return fail(c, -EPROTO, "%s refused: %s", what,
			    ch39x_mbim_status_name(c->got_status));
	c->open = open;
	return 0;
}

int
ch39x_mbim_ctl_open(struct ch39x_mbim_ctl *c, unsigned int timeout_ms)
{
	/* Whatever was half received before is not ours. */
	ch39x_mbim_reasm_reset(&c->reasm);
	return open_close(c, true, timeout_ms);
}

int
ch39x_mbim_ctl_close(struct ch39x_mbim_ctl *c, unsigned int timeout_ms)
{
	int rc = open_close(c, false, timeout_ms);

	c->open = false;
	return rc;
}

int
ch39x_mbim_ctl_command(struct ch39x_mbim_ctl *c, uint32_t cid,
		       uint32_t cmd_type, const uint8_t *info,
		       uint32_t info_len, uint8_t *out, uint32_t cap,
		       uint32_t *out_len, uint32_t *status,
		       unsigned int timeout_ms)
{
	uint32_t tid = next_tid(c), len;
	char what[32];
	int rc;

	*out_len = 0;
	*status = CH39X_MBIM_STATUS_FAILURE;
	len = ch39x_mbim_build_command(c->sbuf, CH39X_MBIM_MSG_MAX, tid,
				       ch39x_mbim_uuid_basic_connect, cid,
				       cmd_type, info, info_len);
	if (len == 0)
		return fail(c, -EINVAL, "command %u: buffer too long", cid);
	c->got_info = out;
	c->got_cap = cap;
	c->got_len = 0;
	c->st.commands++;
	snprintf(what, sizeof(what), "command %u", cid);
	rc = transact(c, len, tid, CH39X_MBIM_COMMAND_DONE, timeout_ms, what);
	c->got_info = NULL;
	c->got_cap = 0;
	if (rc < 0)
		return rc;
	c->st.done++;
	if (c->got_status != CH39X_MBIM_STATUS_SUCCESS)
		c->st.failed++;
	*status = c->got_status;
	*out_len = c->got_len;
	return 0;
}

/* ---- The dialer ---- */

/* The dialer's own handler: keeps st and passes on to the caller's. */
struct dial_ctx {
	const struct ch39x_mbim_dial_cfg *cfg;
	struct ch39x_mbim_dial_state *st;
	ch39x_mbim_indicate_fn next;
	void *next_arg;
};

static void
dial_indicate(void *arg, const struct ch39x_mbim_msg *m)
{
	struct dial_ctx *d = arg;

	ch39x_mbim_dial_indication(d->cfg, d->st, m);
	if (d->next)
		d->next(d->next_arg, m);
}

/* A query or set whose status must be Success. */
static int
step(struct ch39x_mbim_ctl *c, struct ch39x_mbim_dial_state *st,
     const struct ch39x_mbim_dial_cfg *cfg, uint32_t cid, uint32_t type,
     const uint8_t *info, uint32_t len, uint8_t *out, uint32_t *out_len,
     const char *what)
{
	uint32_t status;
	int rc;

	rc = ch39x_mbim_ctl_command(c, cid, type, info, len, out,
				    CH39X_MBIM_MSG_MAX, out_len, &status,
				    cfg->cmd_timeout_ms);
	if (rc < 0)
		return rc;
	st->last_status = status;
	if (status != CH39X_MBIM_STATUS_SUCCESS)
		return fail(c, -EPROTO, "%s refused: %s", what,
			    ch39x_mbim_status_name(status));
	return 0;
}

static const char *
connect_hint(uint32_t status)
{
	switch (status) {
	case CH39X_MBIM_STATUS_INVALID_ACCESS_STRING:
		return " (the APN, apn=, is not one the network takes)";
	case CH39X_MBIM_STATUS_INVALID_USER_NAME_PWD:
		return " (the network wants other user=, password= or auth=)";
	case CH39X_MBIM_STATUS_NOT_REGISTERED:
		return " (no network: check the antenna and the coverage)";
	case CH39X_MBIM_STATUS_MAX_ACTIVATED_CONTEXTS:
		return " (another session holds the context: session=)";
	case CH39X_MBIM_STATUS_RADIO_POWER_OFF:
		return " (the radio is off: a hardware switch or airplane mode)";
	default:
		return "";
	}
}

static bool
is_registered(uint32_t state)
{
	return state == CH39X_MBIM_REGISTER_HOME ||
		state == CH39X_MBIM_REGISTER_ROAMING ||
		state == CH39X_MBIM_REGISTER_PARTNER;
}

static int
dial_register(struct ch39x_mbim_ctl *c, const struct ch39x_mbim_dial_cfg *cfg,
	      struct ch39x_mbim_dial_state *st, uint8_t *buf)
{
	struct ch39x_mbim_register_set rs;
	struct ch39x_mbim_register r;
	uint64_t deadline, next_query = 0;
	uint32_t len, status;
	int rc;

	rc = step(c, st, cfg, CH39X_MBIM_CID_REGISTER_STATE, CH39X_MBIM_QUERY,
		  NULL, 0, buf, &len, "REGISTER_STATE");
	if (rc < 0)
		return rc;
	if (ch39x_mbim_register_parse(buf, len, &r) != 0)
		return fail(c, -EPROTO, "REGISTER_STATE: malformed answer");
	st->register_state = r.state;
	snprintf(st->provider, sizeof(st->provider), "%s", r.provider_name);
	if (is_registered(st->register_state))
		return 0;
	if (r.state == CH39X_MBIM_REGISTER_DEREGISTERED ||
	    r.state == CH39X_MBIM_REGISTER_UNKNOWN) {
		/* Ask for automatic registration; a refusal is no error. */
		memset(&rs, 0, sizeof(rs));
		len = ch39x_mbim_register_set_build(buf, CH39X_MBIM_MSG_MAX,
						    &rs);
		rc = ch39x_mbim_ctl_command(c, CH39X_MBIM_CID_REGISTER_STATE,
					    CH39X_MBIM_SET, buf, len, buf,
					    CH39X_MBIM_MSG_MAX, &len, &status,
					    cfg->cmd_timeout_ms);
		if (rc < 0)
			return rc;
		if (status == CH39X_MBIM_STATUS_SUCCESS &&
		    ch39x_mbim_register_parse(buf, len, &r) == 0)
			st->register_state = r.state;
	}
	deadline = now_us() + (uint64_t)cfg->register_timeout_ms * 1000u;
	for (;;) {
		if (is_registered(st->register_state))
			return 0;
		if (cancelled(c))
			return fail(c, -ECANCELED, "cancelled while waiting "
				    "for the network");
		if (st->register_state == CH39X_MBIM_REGISTER_DENIED)
			return fail(c, -EACCES, "the network denies "
				    "registration (the SIM's subscription)");
		if (now_us() >= deadline)
			return fail(c, -ETIMEDOUT, "not registered after %u ms "
				    "(%s): no coverage?",
				    cfg->register_timeout_ms,
				    ch39x_mbim_register_name(
					    st->register_state));
		if (now_us() >= next_query) {
			rc = step(c, st, cfg, CH39X_MBIM_CID_REGISTER_STATE,
				  CH39X_MBIM_QUERY, NULL, 0, buf, &len,
				  "REGISTER_STATE");
			if (rc < 0)
				return rc;
			if (ch39x_mbim_register_parse(buf, len, &r) == 0) {
				st->register_state = r.state;
				snprintf(st->provider, sizeof(st->provider),
					 "%s", r.provider_name);
			}
			next_query = now_us() + REGISTER_POLL_MS * 1000u;
			continue;
		}
		rc = ch39x_mbim_ctl_pump(c);
		if (rc < 0)
			return rc;
		sleep_us(WAIT_MAX_US);
	}
}

static void
packet_update(struct ch39x_mbim_dial_state *st,
	      const struct ch39x_mbim_packet *pk)
{
	st->packet_state = pk->state;
	if (pk->state == CH39X_MBIM_PACKET_ATTACHED) {
		st->up_bps = pk->up_bps;
		st->down_bps = pk->down_bps;
	} else {
		st->up_bps = 0;
		st->down_bps = 0;
	}
}

/* The steps after OPEN; buf holds CH39X_MBIM_MSG_MAX bytes. */
static int
dial_steps(struct ch39x_mbim_ctl *c, const struct ch39x_mbim_dial_cfg *cfg,
	   struct ch39x_mbim_dial_state *st, uint8_t *buf)
{
	struct ch39x_mbim_subscriber sub;
	struct ch39x_mbim_connect_set cs;
	struct ch39x_mbim_connect conn;
	struct ch39x_mbim_packet pk;
	struct ch39x_mbim_radio radio;
	struct ch39x_mbim_ipcfg q;
	struct ch39x_mbim_signal sg;
	uint32_t len, status;
	int rc;

	rc = step(c, st, cfg, CH39X_MBIM_CID_DEVICE_CAPS, CH39X_MBIM_QUERY,
		  NULL, 0, buf, &len, "DEVICE_CAPS");
	if (rc < 0)
		return rc;
	if (ch39x_mbim_caps_parse(buf, len, &st->caps) != 0)
		return fail(c, -EPROTO, "DEVICE_CAPS: malformed answer");
	if (cfg->session >= st->caps.max_sessions)
		return fail(c, -EINVAL, "session %u: the modem has %u "
			    "(MaxSessions)", cfg->session,
			    st->caps.max_sessions);

	rc = step(c, st, cfg, CH39X_MBIM_CID_SUBSCRIBER_READY_STATUS,
		  CH39X_MBIM_QUERY, NULL, 0, buf, &len,
		  "SUBSCRIBER_READY_STATUS");
	if (rc < 0)
		return rc;
	if (ch39x_mbim_subscriber_parse(buf, len, &sub) != 0)
		return fail(c, -EPROTO, "SUBSCRIBER_READY_STATUS: malformed");
	st->ready_state = sub.ready_state;
	if (sub.ready_state != CH39X_MBIM_READY_INITIALIZED)
		return fail(c, -EACCES, "the SIM is not ready: %s%s",
			    ch39x_mbim_ready_name(sub.ready_state),
			    sub.ready_state == CH39X_MBIM_READY_DEVICE_LOCKED ?
			    " (a PIN is needed: unlock it with mbimcli "
			    "--enter-pin first)" : "");

	rc = step(c, st, cfg, CH39X_MBIM_CID_RADIO_STATE, CH39X_MBIM_QUERY,
		  NULL, 0, buf, &len, "RADIO_STATE");
	if (rc < 0)
		return rc;
	if (ch39x_mbim_radio_parse(buf, len, &radio) == 0 &&
	    radio.sw != CH39X_MBIM_RADIO_ON) {
		len = ch39x_mbim_u32_build(buf, CH39X_MBIM_MSG_MAX,
					   CH39X_MBIM_RADIO_ON);
		rc = step(c, st, cfg, CH39X_MBIM_CID_RADIO_STATE,
			  CH39X_MBIM_SET, buf, len, buf, &len,
			  "RADIO_STATE on");
		if (rc < 0)
			return rc;
	}

	rc = dial_register(c, cfg, st, buf);
	if (rc < 0)
		return rc;

	rc = step(c, st, cfg, CH39X_MBIM_CID_PACKET_SERVICE, CH39X_MBIM_QUERY,
		  NULL, 0, buf, &len, "PACKET_SERVICE");
	if (rc < 0)
		return rc;
	if (ch39x_mbim_packet_parse(buf, len, &pk) == 0)
		packet_update(st, &pk);
	if (st->packet_state != CH39X_MBIM_PACKET_ATTACHED) {
		len = ch39x_mbim_u32_build(buf, CH39X_MBIM_MSG_MAX,
					   CH39X_MBIM_PACKET_ATTACH);
		rc = step(c, st, cfg, CH39X_MBIM_CID_PACKET_SERVICE,
			  CH39X_MBIM_SET, buf, len, buf, &len,
			  "PACKET_SERVICE attach");
		if (rc < 0)
			return rc;
		if (ch39x_mbim_packet_parse(buf, len, &pk) == 0)
			packet_update(st, &pk);
	}

	memset(&cs, 0, sizeof(cs));
	cs.session_id = cfg->session;
	cs.command = CH39X_MBIM_ACTIVATE;
	cs.auth = cfg->auth;
	cs.ip_type = cfg->ip_type;
	memcpy(cs.context_type, ch39x_mbim_uuid_context_internet,
	       CH39X_MBIM_UUID_LEN);
	memcpy(cs.apn, cfg->apn, sizeof(cs.apn));
	memcpy(cs.user, cfg->user, sizeof(cs.user));
	memcpy(cs.password, cfg->password, sizeof(cs.password));
	len = ch39x_mbim_connect_set_build(buf, CH39X_MBIM_MSG_MAX, &cs);
	if (len == 0)
		return fail(c, -EINVAL, "apn/user/password not valid UTF-8");
	rc = ch39x_mbim_ctl_command(c, CH39X_MBIM_CID_CONNECT, CH39X_MBIM_SET,
				    buf, len, buf, CH39X_MBIM_MSG_MAX, &len,
				    &status, cfg->cmd_timeout_ms);
	if (rc < 0)
		return rc;
	st->last_status = status;
	if (status != CH39X_MBIM_STATUS_SUCCESS)
		return fail(c, -EPROTO, "CONNECT refused: %s%s",
			    ch39x_mbim_status_name(status),
			    connect_hint(status));
	if (ch39x_mbim_connect_parse(buf, len, &conn) != 0)
		return fail(c, -EPROTO, "CONNECT: malformed answer");
	st->nw_error = conn.nw_error;
	st->activation = conn.state;
	st->ip_type = conn.ip_type;
	if (conn.state != CH39X_MBIM_ACTIVATED)
		return fail(c, -EPROTO, "CONNECT: session %s (network error "
			    "%u)", ch39x_mbim_activation_name(conn.state),
			    conn.nw_error);

	memset(&q, 0, sizeof(q));
	q.session_id = cfg->session;
	len = ch39x_mbim_ipcfg_build(buf, CH39X_MBIM_MSG_MAX, &q);
	rc = step(c, st, cfg, CH39X_MBIM_CID_IP_CONFIGURATION,
		  CH39X_MBIM_QUERY, buf, len, buf, &len, "IP_CONFIGURATION");
	if (rc < 0)
		return rc;
	if (ch39x_mbim_ipcfg_parse(buf, len, &st->ipcfg) != 0)
		return fail(c, -EPROTO, "IP_CONFIGURATION: malformed answer");
	/* The signal, for whoever shows the session: no step of its own. */
	if (ch39x_mbim_ctl_command(c, CH39X_MBIM_CID_SIGNAL_STATE,
				   CH39X_MBIM_QUERY, NULL, 0, buf,
				   CH39X_MBIM_MSG_MAX, &len, &status,
				   cfg->cmd_timeout_ms) == 0 &&
	    status == CH39X_MBIM_STATUS_SUCCESS &&
	    ch39x_mbim_signal_parse(buf, len, &sg) == 0)
		st->rssi = sg.rssi;
	return 0;
}

int
ch39x_mbim_dial(struct ch39x_mbim_ctl *c,
		const struct ch39x_mbim_dial_cfg *cfg,
		struct ch39x_mbim_dial_state *st)
{
	struct dial_ctx d = {
		.cfg = cfg, .st = st, .next = c->on_indicate,
		.next_arg = c->arg,
	};
	uint8_t *buf = malloc(CH39X_MBIM_MSG_MAX);
	int rc;

	if (buf == NULL)
		return fail(c, -ENOMEM, "out of memory");
	c->err[0] = '\0';
	st->activation = CH39X_MBIM_DEACTIVATED;
	c->on_indicate = dial_indicate;
	c->arg = &d;
	rc = dial_steps(c, cfg, st, buf);
	c->on_indicate = d.next;
	c->arg = d.next_arg;
	free(buf);
	return rc;
}

int
ch39x_mbim_hangup(struct ch39x_mbim_ctl *c,
		  const struct ch39x_mbim_dial_cfg *cfg,
		  struct ch39x_mbim_dial_state *st)
{
	struct ch39x_mbim_connect_set cs;
	uint8_t buf[128];
	uint32_t len, status;
	int rc;

	memset(&cs, 0, sizeof(cs));
	cs.session_id = cfg->session;
	cs.command = CH39X_MBIM_DEACTIVATE;
	memcpy(cs.context_type, ch39x_mbim_uuid_context_internet,
	       CH39X_MBIM_UUID_LEN);
	len = ch39x_mbim_connect_set_build(buf, sizeof(buf), &cs);
	rc = ch39x_mbim_ctl_command(c, CH39X_MBIM_CID_CONNECT, CH39X_MBIM_SET,
				    buf, len, buf, sizeof(buf), &len, &status,
				    cfg->cmd_timeout_ms);
	if (rc < 0)
		return rc;
	st->activation = CH39X_MBIM_DEACTIVATED;
	if (status != CH39X_MBIM_STATUS_SUCCESS)
		return fail(c, -EPROTO, "CONNECT deactivate refused: %s",
			    ch39x_mbim_status_name(status));
	return 0;
}

bool
ch39x_mbim_dial_indication(const struct ch39x_mbim_dial_cfg *cfg,
			   struct ch39x_mbim_dial_state *st,
			   const struct ch39x_mbim_msg *m)
{
	bool was = ch39x_mbim_dial_up(st);
	struct ch39x_mbim_register r;
	struct ch39x_mbim_connect conn;
	struct ch39x_mbim_packet pk;
	struct ch39x_mbim_signal sg;
	struct ch39x_mbim_ipcfg ip;

	if (memcmp(m->uuid, ch39x_mbim_uuid_basic_connect,
		   CH39X_MBIM_UUID_LEN) != 0)
		return false;
	switch (m->cid) {
	case CH39X_MBIM_CID_CONNECT:
		if (ch39x_mbim_connect_parse(m->info, m->info_len, &conn) == 0 &&
		    conn.session_id == cfg->session) {
			st->activation = conn.state;
			st->nw_error = conn.nw_error;
		}
		break;
	case CH39X_MBIM_CID_REGISTER_STATE:
		if (ch39x_mbim_register_parse(m->info, m->info_len, &r) == 0) {
			st->register_state = r.state;
			snprintf(st->provider, sizeof(st->provider), "%s",
				 r.provider_name);
		}
		break;
	case CH39X_MBIM_CID_PACKET_SERVICE:
		if (ch39x_mbim_packet_parse(m->info, m->info_len, &pk) == 0)
			packet_update(st, &pk);
		break;
	case CH39X_MBIM_CID_SIGNAL_STATE:
		if (ch39x_mbim_signal_parse(m->info, m->info_len, &sg) == 0)
			st->rssi = sg.rssi;
		break;
	case CH39X_MBIM_CID_IP_CONFIGURATION:
		if (ch39x_mbim_ipcfg_parse(m->info, m->info_len, &ip) == 0 &&
		    ip.session_id == cfg->session)
			st->ipcfg = ip;
		break;
	default:
		break;
	}
	return was != ch39x_mbim_dial_up(st);
}
