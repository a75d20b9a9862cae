/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * An MBIM port's dialer: one thread per port that owns the function's
 * control channel (ch39x_mbim_ctl.h). It opens the function (MBIM OPEN,
 * DEVICE_CAPS), connects every session asked for (ch39x_mbim_dial: the
 * SIM, the radio, registration, packet service, CONNECT, the IP
 * configuration), tries again after a failure (1 s, doubling up to 30 s),
 * reads indications (at RESPONSE_AVAILABLE, and every second), and turns
 * what they say into link state: session 0 connected and the port started
 * is link up. Its waits end at close (the client's cancel flag); each
 * control transfer holds the port's control lock, never a whole dial.
 * Protocol sections (§N) are those of doc/guides/nics/ch39x_protocol.rst.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <ethdev_driver.h>
#include <rte_ether.h>

#include "ch39x_adapter.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_mbim_port.h"

#define MBIM_OPEN_MS		5000	/* OPEN's answer */
#define MBIM_CLOSE_MS		1000
#define MBIM_HANGUP_MS		2000
#define MBIM_PUMP_MS		1000	/* indications without a notification */
#define MBIM_GONE_MS		200	/* looks while the modem is away */
#define MBIM_BACKOFF_MIN_MS	1000
#define MBIM_BACKOFF_MAX_MS	30000

static uint64_t
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static const char *
pname(const struct ch39x_adapter *ad)
{
	return ad->dev->data->name;
}

/* Publish session i as the dialer sees it (m->lock not held). */
static void
publish(struct ch39x_mbim_port *m, uint32_t i,
	enum rte_pmd_ch39x_mbim_phase phase, const char *err)
{
	struct ch39x_mbim_sess *s = &m->sess[i];

	m->t[i].phase = phase;
	pthread_mutex_lock(&m->lock);
	s->st = m->t[i].st;
	s->phase = phase;
	if (err != NULL)
		snprintf(s->err, sizeof(s->err), "%s", err);
	pthread_cond_broadcast(&m->changed);
	pthread_mutex_unlock(&m->lock);
}

/* The control client's counters, for xstats and telemetry. */
static void
publish_counters(struct ch39x_mbim_port *m)
{
	const struct ch39x_mbim_ctl_stats *c = &m->ctl.st;

	pthread_mutex_lock(&m->lock);
	m->c.commands = c->commands;
	m->c.commands_failed = c->failed;
	m->c.indications = c->indications;
	m->c.timeouts = c->timeouts;
	m->c.function_errors = c->function_errors;
	m->c.fragments_in = c->fragments_in;
	m->c.fragments_out = c->fragments_out;
	pthread_mutex_unlock(&m->lock);
}

/*
 * The port's link from session 0: up while it is connected and the port
 * started. quiet: set it without an LSC event (the port's start learns
 * it, as every device type's does).
 */
static void
link_sync(struct ch39x_mbim_port *m, bool quiet)
{
	struct ch39x_adapter *ad = m->ad;
	uint64_t bps;
	uint32_t speed;
	bool up;

	pthread_mutex_lock(&m->lock);
	up = m->sess[0].phase == RTE_PMD_CH39X_MBIM_CONNECTED;
	bps = m->sess[0].st.down_bps;
	pthread_mutex_unlock(&m->lock);
	speed = bps >= 1000000 ? (uint32_t)RTE_MIN(bps / 1000000,
						   (uint64_t)UINT32_MAX) :
		RTE_ETH_SPEED_NUM_UNKNOWN;
	pthread_mutex_lock(&m->link_lock);
	up = up && ch39x_started(ad) && !ch39x_is_gone(ad);
	if (quiet) {
		m->link_up = up;
		ch39x_set_link(ad, up, speed);
	} else if (up != m->link_up) {
		m->link_up = up;
		ch39x_link_report(ad, up, speed);
	}
	pthread_mutex_unlock(&m->link_lock);
}

void
ch39x_mbim_link_sync(struct ch39x_mbim_port *m)
{
	link_sync(m, true);
}

/* Indications: every session's state (registration is everyone's). */
static void
on_indicate(void *arg, const struct ch39x_mbim_msg *msg)
{
	struct ch39x_mbim_port *m = arg;
	uint32_t i;

	/* Each session's state is published again after the pump. */
	for (i = 0; i < m->nb_sess; i++)
		ch39x_mbim_dial_indication(&m->sess[i].cfg, &m->t[i].st, msg);
	m->t_dirty = true;
}

static void
log_ip(const struct ch39x_mbim_port *m, uint32_t i)
{
	const struct ch39x_mbim_ipcfg *ip = &m->t[i].st.ipcfg;
	char a4[64] = "no IPv4", a6[96] = "no IPv6";
	char g[64] = "";

	if (ip->n_v4) {
		snprintf(a4, sizeof(a4), "%u.%u.%u.%u/%u",
			 ip->v4[0].addr[0], ip->v4[0].addr[1],
			 ip->v4[0].addr[2], ip->v4[0].addr[3],
			 ip->v4[0].prefix_len);
		if (ip->have_v4_gw)
			snprintf(g, sizeof(g), " via %u.%u.%u.%u",
				 ip->v4_gw[0], ip->v4_gw[1], ip->v4_gw[2],
				 ip->v4_gw[3]);
	}
	if (ip->n_v6)
		snprintf(a6, sizeof(a6), "IPv6 /%u", ip->v6[0].prefix_len);
	PMD_LOG(INFO, "%s: MBIM session %u connected (APN \"%s\", %s): %s%s, "
		"%s, MTU %u", pname(m->ad), m->sess[i].cfg.session,
		m->sess[i].cfg.apn, m->t[i].st.provider, a4, g, a6,
		ip->v4_mtu ? ip->v4_mtu : ip->v6_mtu);
}

/* OPEN (after a CLOSE when the first is refused), then DEVICE_CAPS. */
static int
open_function(struct ch39x_mbim_port *m)
{
	struct ch39x_adapter *ad = m->ad;
	struct ch39x_mbim_caps caps;
	uint8_t info[512];
	uint32_t len, status;
	int rc;

	if (!m->ctl_ready) {
		rc = ch39x_mbim_ctl_init(&m->ctl, ad->usb, ad->cdc.comm_if,
					 RTE_MAX((uint32_t)ad->cdc.mbim_max_ctrl,
						 (uint32_t)CH39X_MBIM_CTRL_MIN));
		if (rc != 0)
			return rc;
		m->ctl.lock = &ad->ctrl_lock;
		m->ctl.cancel = &m->cancel;
		m->ctl.on_indicate = on_indicate;
		m->ctl.arg = m;
		m->ctl_ready = true;
	}
	m->ctl.iface = ad->cdc.comm_if;
	m->ctl.max_ctrl = RTE_MAX((uint32_t)ad->cdc.mbim_max_ctrl,
				  (uint32_t)CH39X_MBIM_CTRL_MIN);
	rc = ch39x_mbim_ctl_open(&m->ctl, MBIM_OPEN_MS);
	if (rc == -EPROTO || rc == -ETIMEDOUT) {
		/* A function left open by someone else (libmbim does this). */
		ch39x_mbim_ctl_close(&m->ctl, MBIM_CLOSE_MS);
		rc = ch39x_mbim_ctl_open(&m->ctl, MBIM_OPEN_MS);
	}
	if (rc != 0)
		return rc;
	rc = ch39x_mbim_ctl_command(&m->ctl, CH39X_MBIM_CID_DEVICE_CAPS,
				    CH39X_MBIM_QUERY, NULL, 0, info,
				    sizeof(info), &len, &status, MBIM_OPEN_MS);
	if (rc == 0 && status == CH39X_MBIM_STATUS_SUCCESS &&
	    ch39x_mbim_caps_parse(info, len, &caps) == 0) {
		pthread_mutex_lock(&m->lock);
		m->caps = caps;
		m->have_caps = true;
		pthread_mutex_unlock(&m->lock);
		PMD_LOG(INFO, "%s: MBIM function open: %s, firmware \"%s\", "
			"%u sessions", pname(ad), caps.device_id,
			caps.firmware, caps.max_sessions);
	}
	return rc == -ENODEV || rc == -ECANCELED ? rc : 0;
}

/* Every session down (the modem went, or was set up again). */
static void
all_down(struct ch39x_mbim_port *m, enum rte_pmd_ch39x_mbim_phase phase,
	 const char *why)
{
	uint32_t i;

	for (i = 0; i < m->nb_sess; i++) {
		m->t[i].up = false;
		m->t[i].st.activation = CH39X_MBIM_DEACTIVATED;
		m->t[i].next_try_us = 0;
		m->t[i].backoff_ms = 0;
		publish(m, i, phase, why);
	}
	link_sync(m, false);
}

static void
backoff(struct ch39x_mbim_tsess *t)
{
	t->backoff_ms = t->backoff_ms ? RTE_MIN(t->backoff_ms * 2,
						(uint32_t)MBIM_BACKOFF_MAX_MS) :
		MBIM_BACKOFF_MIN_MS;
	t->next_try_us = now_us() + (uint64_t)t->backoff_ms * 1000u;
}

static void
dial(struct ch39x_mbim_port *m, uint32_t i)
{
	struct ch39x_mbim_tsess *t = &m->t[i];
	struct ch39x_mbim_sess *s = &m->sess[i];
	char last[sizeof(s->err)];
	int rc;

	publish(m, i, RTE_PMD_CH39X_MBIM_DIALING, NULL);
	rc = ch39x_mbim_dial(&m->ctl, &s->cfg, &t->st);
	if (rc == 0) {
		t->up = true;
		t->backoff_ms = 0;
		pthread_mutex_lock(&m->lock);
		s->dials++;
		m->c.dials++;
		pthread_mutex_unlock(&m->lock);
		publish(m, i, RTE_PMD_CH39X_MBIM_CONNECTED, "");
		log_ip(m, i);
		if (i == 0)
			link_sync(m, false);
		return;
	}
	if (rc == -ECANCELED || rc == -ENODEV)
		return;
	backoff(t);
	pthread_mutex_lock(&m->lock);
	s->dial_failures++;
	m->c.dial_failures++;
	snprintf(last, sizeof(last), "%s", s->err);
	pthread_mutex_unlock(&m->lock);
	/* Said once per reason; the retries are quiet. */
	if (strcmp(last, m->ctl.err) != 0)
		PMD_LOG(WARNING, "%s: MBIM session %u: %s; trying again in %u "
			"ms", pname(m->ad), s->cfg.session, m->ctl.err,
			t->backoff_ms);
	publish(m, i, RTE_PMD_CH39X_MBIM_FAILED, m->ctl.err);
}

static void
hangup(struct ch39x_mbim_port *m, uint32_t i)
{
	struct ch39x_mbim_tsess *t = &m->t[i];

	if (ch39x_mbim_hangup(&m->ctl, &m->sess[i].cfg, &t->st) != 0)
		PMD_LOG(NOTICE, "%s: MBIM session %u: %s", pname(m->ad),
			m->sess[i].cfg.session, m->ctl.err);
	t->up = false;
	t->st.activation = CH39X_MBIM_DEACTIVATED;
	publish(m, i, RTE_PMD_CH39X_MBIM_IDLE, "");
	if (i == 0)
		link_sync(m, false);
}

/*
 * After indications: every session's state published; those they took
 * down counted and tried again after 1 s.
 */
static void
drops(struct ch39x_mbim_port *m)
{
	struct ch39x_mbim_tsess *t;
	char why[160];
	uint32_t i;

	if (!m->t_dirty)
		return;
	m->t_dirty = false;
	for (i = 0; i < m->nb_sess; i++) {
		t = &m->t[i];
		if (!t->up) {
			publish(m, i, t->phase, NULL);
			continue;
		}
		if (ch39x_mbim_dial_up(&t->st)) {
			publish(m, i, RTE_PMD_CH39X_MBIM_CONNECTED, NULL);
			continue;
		}
		t->up = false;
		t->backoff_ms = 0;
		backoff(t);
		snprintf(why, sizeof(why), "the network ended the session "
			 "(%s, %s, network error %u)",
			 ch39x_mbim_activation_name(t->st.activation),
			 ch39x_mbim_register_name(t->st.register_state),
			 t->st.nw_error);
		PMD_LOG(WARNING, "%s: MBIM session %u: %s", pname(m->ad),
			m->sess[i].cfg.session, why);
		pthread_mutex_lock(&m->lock);
		m->sess[i].drops++;
		m->c.session_drops++;
		pthread_mutex_unlock(&m->lock);
		publish(m, i, RTE_PMD_CH39X_MBIM_FAILED, why);
		if (i == 0)
			link_sync(m, false);
	}
}

/* Wait for news until deadline_us (0: MBIM_PUMP_MS), m->lock held. */
static void
wait_news(struct ch39x_mbim_port *m, uint64_t deadline_us)
{
	struct timespec ts;
	uint64_t now = now_us(), until;

	if (m->kick || m->quit)
		return;
	until = deadline_us ? deadline_us : now + MBIM_PUMP_MS * 1000u;
	if (until <= now)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	until -= now;
	ts.tv_sec += (time_t)(until / 1000000u);
	ts.tv_nsec += (long)(until % 1000000u) * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&m->cond, &m->lock, &ts);
}

/* One round: open, dial or hang up what asks for it, read indications. */
static uint64_t
round_once(struct ch39x_mbim_port *m, bool kick, const bool *want,
	   const bool *retry)
{
	struct ch39x_adapter *ad = m->ad;
	uint64_t next = 0, now;
	uint32_t i;
	int rc;

	if (!m->opened) {
		now = now_us();
		if (now < m->next_open_us)
			return m->next_open_us;
		for (i = 0; i < m->nb_sess; i++)
			if (want[i])
				publish(m, i, RTE_PMD_CH39X_MBIM_OPENING, NULL);
		rc = open_function(m);
		if (rc == 0) {
			m->opened = true;
			m->open_backoff_ms = 0;
			pthread_mutex_lock(&m->lock);
			m->c.opens++;
			m->open_err[0] = '\0';
			pthread_mutex_unlock(&m->lock);
		} else {
			if (rc == -ECANCELED || rc == -ENODEV)
				return 0;
			m->open_backoff_ms = m->open_backoff_ms ?
				RTE_MIN(m->open_backoff_ms * 2,
					(uint32_t)MBIM_BACKOFF_MAX_MS) :
				MBIM_BACKOFF_MIN_MS;
			m->next_open_us = now_us() +
				(uint64_t)m->open_backoff_ms * 1000u;
			pthread_mutex_lock(&m->lock);
			m->c.open_failures++;
			snprintf(m->open_err, sizeof(m->open_err),
				 "MBIM OPEN: %s", m->ctl.err);
			pthread_mutex_unlock(&m->lock);
			PMD_LOG(WARNING, "%s: %s; trying again in %u ms",
				pname(ad), m->open_err, m->open_backoff_ms);
			for (i = 0; i < m->nb_sess; i++)
				if (want[i])
					publish(m, i, RTE_PMD_CH39X_MBIM_FAILED,
						m->open_err);
			return m->next_open_us;
		}
	}
	for (i = 0; i < m->nb_sess && !m->quit; i++) {
		struct ch39x_mbim_tsess *t = &m->t[i];

		if (retry[i])
			t->next_try_us = 0;
		if (want[i] && !t->up && now_us() >= t->next_try_us)
			dial(m, i);
		else if (!want[i] && t->up)
			hangup(m, i);
		else if (!want[i] && t->phase != RTE_PMD_CH39X_MBIM_IDLE)
			publish(m, i, RTE_PMD_CH39X_MBIM_IDLE, "");
		if (want[i] && !t->up && (next == 0 || t->next_try_us < next))
			next = t->next_try_us;
	}
	now = now_us();
	if (kick || now >= m->next_pump_us) {
		ch39x_mbim_ctl_pump(&m->ctl);
		m->next_pump_us = now + MBIM_PUMP_MS * 1000u;
	}
	drops(m);
	publish_counters(m);
	if (next == 0 || m->next_pump_us < next)
		next = m->next_pump_us;
	return next;
}

static CH39X_THREAD_RET
dialer_main(void *arg)
{
	struct ch39x_mbim_port *m = arg;
	struct ch39x_adapter *ad = m->ad;
	bool want[CH39X_MBIM_MAX_SESSIONS], retry[CH39X_MBIM_MAX_SESSIONS];
	bool kick, gone_seen = false;
	uint64_t next = 0;
	uint32_t gen, i;

	pthread_mutex_lock(&m->lock);
	for (;;) {
		wait_news(m, next);
		if (m->quit)
			break;
		kick = m->kick;
		m->kick = false;
		gen = m->gen;
		for (i = 0; i < m->nb_sess; i++) {
			want[i] = m->sess[i].want;
			retry[i] = m->sess[i].want_seq != m->sess[i].done_seq;
			m->sess[i].done_seq = m->sess[i].want_seq;
		}
		pthread_mutex_unlock(&m->lock);
		if (ch39x_is_gone(ad)) {
			if (!gone_seen)
				all_down(m, RTE_PMD_CH39X_MBIM_GONE,
					 "the modem left the bus");
			gone_seen = true;
			m->opened = false;
			next = now_us() + MBIM_GONE_MS * 1000u;
		} else {
			if (gen != m->seen_gen || gone_seen) {
				/* Set up again: open again, dial again. */
				if (m->seen_gen != 0 || gone_seen)
					all_down(m, RTE_PMD_CH39X_MBIM_IDLE,
						 "");
				m->seen_gen = gen;
				m->opened = false;
				m->next_open_us = 0;
				m->open_backoff_ms = 0;
				gone_seen = false;
			}
			next = round_once(m, kick, want, retry);
		}
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
	/* Close: the sessions this port connected go, then the function. */
	__atomic_store_n(&m->cancel, false, __ATOMIC_RELEASE);
	if (m->opened && !ch39x_is_gone(ad)) {
		for (i = 0; i < m->nb_sess; i++)
			if (m->t[i].up)
				ch39x_mbim_hangup(&m->ctl, &m->sess[i].cfg,
						  &m->t[i].st);
		ch39x_mbim_ctl_close(&m->ctl, MBIM_CLOSE_MS);
	}
	if (m->ctl_ready)
		ch39x_mbim_ctl_fini(&m->ctl);
	m->ctl_ready = false;
	return 0;
}

int
ch39x_mbim_dialer_start(struct ch39x_mbim_port *m)
{
	char name[16];
	int rc;

	m->seen_gen = 0;
	/* On the CPUs of no lcore, as EAL's control threads. */
	snprintf(name, sizeof(name), "ch39x-mbim%hu",
		 m->ad->dev->data->port_id);
	rc = ch39x_ctrl_thread(&m->thread, name, dialer_main, m);
	if (rc != 0)
		return rc < 0 ? rc : -rc;
	m->running = true;
	return 0;
}

void
ch39x_mbim_dialer_stop(struct ch39x_mbim_port *m)
{
	if (!m->running)
		return;
	pthread_mutex_lock(&m->lock);
	m->quit = true;
	__atomic_store_n(&m->cancel, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&m->cond);
	pthread_mutex_unlock(&m->lock);
	ch39x_thread_join(m->thread);
	m->running = false;
}

void
ch39x_mbim_dialer_kick(struct ch39x_mbim_port *m)
{
	pthread_mutex_lock(&m->lock);
	m->kick = true;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

void
ch39x_mbim_dialer_reinit(struct ch39x_mbim_port *m)
{
	pthread_mutex_lock(&m->lock);
	if (++m->gen == 0)
		m->gen = 1;
	m->kick = true;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
}

int
ch39x_mbim_find_session(const struct ch39x_mbim_port *m, uint32_t session)
{
	uint32_t i;

	for (i = 0; i < m->nb_sess; i++)
		if (m->sess[i].cfg.session == session)
			return (int)i;
	return -1;
}
