/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The simulated adapter as an LTE/5G modem's MBIM function (§21-§24): the
 * control messages in encapsulated commands and responses (OPEN/CLOSE,
 * fragments both ways, Basic Connect), a network it registers and
 * attaches to, IP sessions activated with CONNECT, and their data routed
 * between the NTBs and the cable, which plays the operator's network: the
 * modem is a router there, with its own addresses, answering ARP and
 * neighbour solicitations for them and for the sessions' addresses.
 * Every behaviour the MBIM specification leaves to the device is an
 * ASSUMPTION of §24.
 *
 * Threads: control requests, the interrupt endpoint and network events
 * run under s->lock; bulk IN (downlink) and bulk OUT (uplink) each on
 * their own thread. They share the sessions' state (atomics; a
 * session's addresses never change), the cable (wire_lock: both
 * directions send on it, answers to ARP from the downlink side) and the
 * modem's own packets into the sessions (local_lock).
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ch39x_mbim.h"
#include "ch39x_nd.h"
#include "ch39x_net.h"
#include "ch39x_sim_priv.h"

#include "ch39x_sim_mbim_priv.h"

/* ---- Control: the queue of fragments for the host ---- */

static void
queue_msg(struct sim_dev *s, const uint8_t *msg, uint32_t len)
{
	struct sim_mbim *m = s->mbim;
	uint32_t n = ch39x_mbim_frag_count(msg, len, m->max_ctrl), i;
	struct mbim_frag *f;

	for (i = 0; i < n; i++) {
		if (m->q_n == MBIM_QUEUE) {
			ST_ADD(m, queue_drops, 1);
			return;
		}
		f = &m->q[(m->q_head + m->q_n) % MBIM_QUEUE];
		f->len = (uint16_t)ch39x_mbim_frag_build(msg, len, m->max_ctrl,
							 i, f->b,
							 sizeof(f->b));
		m->q_n++;
		m->notify++;
		ST_ADD(m, fragments_out, 1);
	}
}

static void
send_done(struct sim_dev *s, uint32_t tid, uint32_t cid, uint32_t status,
	  const uint8_t *info, uint32_t info_len)
{
	struct sim_mbim *m = s->mbim;
	uint32_t len;

	if (status != CH39X_MBIM_STATUS_SUCCESS)
		info_len = 0;
	len = ch39x_mbim_build_command_done(m->out, sizeof(m->out), tid,
					    ch39x_mbim_uuid_basic_connect, cid,
					    status, info, info_len);
	if (len)
		queue_msg(s, m->out, len);
}

/* An indication, while the host has the function open. */
static void
indicate(struct sim_dev *s, uint32_t cid, const uint8_t *info, uint32_t len)
{
	struct sim_mbim *m = s->mbim;
	uint32_t n;

	if (!m->open || len == 0)
		return;
	n = ch39x_mbim_build_indicate(m->out, sizeof(m->out),
				      ch39x_mbim_uuid_basic_connect, cid,
				      info, len);
	if (n) {
		queue_msg(s, m->out, n);
		ST_ADD(m, indications, 1);
	}
}

static void
send_status(struct sim_dev *s, uint32_t type, uint32_t tid, uint32_t status)
{
	uint8_t b[CH39X_MBIM_STATUS_LEN];

	ch39x_mbim_build_status(b, sizeof(b), type, tid, status);
	queue_msg(s, b, sizeof(b));
	if (type == CH39X_MBIM_FUNCTION_ERROR_MSG)
		ST_ADD(s->mbim, function_errors, 1);
}

/* ---- The modem's own packets into a session ---- */

void
sim_mbim_local_push(struct sim_dev *s, uint8_t session, const uint8_t *p,
	   uint32_t len)
{
	struct sim_mbim *m = s->mbim;
	struct mbim_local *l;

	if (len == 0 || len > MBIM_LOCAL_LEN)
		return;
	pthread_mutex_lock(&m->local_lock);
	if (m->l_n < MBIM_LOCAL) {
		l = &m->local[(m->l_head + m->l_n) % MBIM_LOCAL];
		l->session = session;
		l->len = (uint16_t)len;
		memcpy(l->b, p, len);
		m->l_n++;
		__atomic_store_n(&s->local_pending, m->l_n, __ATOMIC_RELEASE);
		ST_ADD(m, local_packets, 1);
	}
	pthread_mutex_unlock(&m->local_lock);
	sim_wake_pushed(s->rx_ring);
}

uint32_t
sim_mbim_local_pop(struct sim_dev *s, uint8_t *buf, uint8_t *session)
{
	struct sim_mbim *m = s->mbim;
	struct mbim_local *l;
	uint32_t len = 0;

	if (__atomic_load_n(&s->local_pending, __ATOMIC_ACQUIRE) == 0)
		return 0;
	pthread_mutex_lock(&m->local_lock);
	if (m->l_n > 0) {
		l = &m->local[m->l_head];
		*session = l->session;
		len = l->len;
		memcpy(buf, l->b, len);
		m->l_head = (m->l_head + 1) % MBIM_LOCAL;
		m->l_n--;
		__atomic_store_n(&s->local_pending, m->l_n, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&m->local_lock);
	return len;
}

/*
 * A router advertisement into session n: the /64, the MTU and the DNS
 * server, from fe80::1 to dst (ff02::1 unsolicited, or the soliciting
 * host).
 */
void
sim_mbim_send_ra(struct sim_dev *s, uint32_t n, const uint8_t dst[16])
{
	uint8_t b[MBIM_LOCAL_LEN];
	struct ch39x_ra ra;
	uint32_t len;

	memset(&ra, 0, sizeof(ra));
	memcpy(ra.src, sess_ll6, 16);
	memcpy(ra.dst, dst, 16);
	ra.lifetime = MBIM_RA_LIFETIME;
	sess_ip6(n, ra.prefix, 0);
	ra.prefix_len = 64;
	ra.valid = MBIM_PREFIX_VALID;
	ra.preferred = MBIM_PREFIX_PREFERRED;
	ra.mtu = MBIM_MTU;
	ra.n_dns = 1;
	memcpy(ra.dns[0], wire_gw6, 16);
	ra.dns_lifetime = MBIM_RA_LIFETIME;
	len = ch39x_nd_build_ra(b, sizeof(b), &ra);
	sim_mbim_local_push(s, (uint8_t)n, b, len);
}

/* ---- The modem's state machine (under s->lock) ---- */

static uint32_t
build_register(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_register r;

	memset(&r, 0, sizeof(r));
	r.state = m->reg;
	r.mode = CH39X_MBIM_REGISTER_MODE_AUTOMATIC;
	if (m->reg == CH39X_MBIM_REGISTER_HOME) {
		r.available_data_classes = CH39X_MBIM_DATA_CLASS_LTE |
			CH39X_MBIM_DATA_CLASS_5G_NSA;
		r.cellular_class = CH39X_MBIM_CELLULAR_CLASS_GSM;
		strcpy(r.provider_id, "00101");
		strcpy(r.provider_name, "ch39x sim");
	}
	return ch39x_mbim_register_build(m->info, sizeof(m->info), &r);
}

static void
ind_register(struct sim_dev *s)
{
	indicate(s, CH39X_MBIM_CID_REGISTER_STATE, s->mbim->info,
		 build_register(s));
}

static uint32_t
build_packet(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_packet p;

	memset(&p, 0, sizeof(p));
	p.state = m->packet;
	if (m->packet == CH39X_MBIM_PACKET_ATTACHED) {
		p.data_class = CH39X_MBIM_DATA_CLASS_LTE;
		/* ASSUMPTION: what an LTE cat 4 modem reports. */
		p.up_bps = 50000000;
		p.down_bps = 150000000;
	}
	return ch39x_mbim_packet_build(m->info, sizeof(m->info), &p);
}

static uint32_t
build_connect(struct sim_dev *s, uint32_t n)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_connect c;

	memset(&c, 0, sizeof(c));
	c.session_id = n;
	if (sess_active(m, n)) {
		c.state = CH39X_MBIM_ACTIVATED;
		c.ip_type = sess_type(m, n);
		memcpy(c.context_type, ch39x_mbim_uuid_context_internet, 16);
	} else {
		c.state = CH39X_MBIM_DEACTIVATED;
	}
	return ch39x_mbim_connect_build(m->info, sizeof(m->info), &c);
}

static void
set_packet(struct sim_dev *s, uint32_t state)
{
	struct sim_mbim *m = s->mbim;

	if (m->packet == state)
		return;
	m->packet = state;
	indicate(s, CH39X_MBIM_CID_PACKET_SERVICE, m->info, build_packet(s));
}

static void
deactivate(struct sim_dev *s, uint32_t n, bool tell)
{
	struct sim_mbim *m = s->mbim;

	if (!sess_active(m, n))
		return;
	__atomic_fetch_and(&m->active, ~(1u << n), __ATOMIC_RELEASE);
	if (tell)
		indicate(s, CH39X_MBIM_CID_CONNECT, m->info,
			 build_connect(s, n));
}

/* Coverage lost (radio off, or the network): everything goes down. */
static void
lose_network(struct sim_dev *s, uint32_t reg)
{
	struct sim_mbim *m = s->mbim;
	uint32_t n;

	for (n = 0; n < MBIM_SESSIONS; n++)
		deactivate(s, n, true);
	set_packet(s, CH39X_MBIM_PACKET_DETACHED);
	if (m->reg != reg) {
		m->reg = reg;
		ind_register(s);
	}
}

static void
start_search(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;

	m->reg = CH39X_MBIM_REGISTER_SEARCHING;
	m->reg_at = now_ns() + (uint64_t)s->cfg.mbim_register_ms * 1000000u;
}

/*
 * Time passes: a search ends in registration and, LTE's combined attach
 * (ASSUMPTION), packet service attached.
 */
static void
tick(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;

	if (m->radio != CH39X_MBIM_RADIO_ON || !m->coverage ||
	    m->reg != CH39X_MBIM_REGISTER_SEARCHING || now_ns() < m->reg_at)
		return;
	m->reg = CH39X_MBIM_REGISTER_HOME;
	ind_register(s);
	set_packet(s, CH39X_MBIM_PACKET_ATTACHED);
}

static bool
registered(const struct sim_mbim *m)
{
	return m->reg == CH39X_MBIM_REGISTER_HOME ||
		m->reg == CH39X_MBIM_REGISTER_ROAMING;
}

/* ---- Commands (under s->lock) ---- */

static uint32_t
cmd_caps(struct sim_dev *s)
{
	struct ch39x_mbim_caps c;

	memset(&c, 0, sizeof(c));
	c.device_type = CH39X_MBIM_DEVICE_TYPE_REMOVABLE;
	c.cellular_class = CH39X_MBIM_CELLULAR_CLASS_GSM;
	c.voice_class = 1;		/* no voice */
	c.sim_class = CH39X_MBIM_SIM_CLASS_REMOVABLE;
	c.data_class = CH39X_MBIM_DATA_CLASS_UMTS | CH39X_MBIM_DATA_CLASS_LTE |
		CH39X_MBIM_DATA_CLASS_5G_NSA | CH39X_MBIM_DATA_CLASS_5G_SA;
	c.max_sessions = MBIM_SESSIONS;
	strcpy(c.device_id, "860039000000391");	/* an IMEI */
	strcpy(c.firmware, "ch39x-sim MBIM 1.0");
	snprintf(c.hardware, sizeof(c.hardware), "ch39x-sim %.40s",
		 s->id_serial);
	return ch39x_mbim_caps_build(s->mbim->info, sizeof(s->mbim->info),
				     &c);
}

static uint32_t
cmd_subscriber(struct sim_dev *s)
{
	struct ch39x_mbim_subscriber sub;

	memset(&sub, 0, sizeof(sub));
	sub.ready_state = CH39X_MBIM_READY_INITIALIZED;
	strcpy(sub.subscriber_id, "001010000000039");
	strcpy(sub.sim_iccid, "89001010000000000391");
	strcpy(sub.number, "+15550100039");
	return ch39x_mbim_subscriber_build(s->mbim->info,
					   sizeof(s->mbim->info), &sub);
}

static uint32_t
cmd_radio(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
	  uint32_t *status)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_radio r;
	uint32_t v;

	if (msg->cmd_type == CH39X_MBIM_SET) {
		if (ch39x_mbim_u32_parse(msg->info, msg->info_len, &v) != 0 ||
		    v > CH39X_MBIM_RADIO_ON) {
			*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
			return 0;
		}
		if (v != m->radio) {
			m->radio = v;
			if (v == CH39X_MBIM_RADIO_ON) {
				start_search(s);
				ind_register(s);
				tick(s);
			} else {
				lose_network(s, CH39X_MBIM_REGISTER_DEREGISTERED);
			}
		}
	}
	r.hw = CH39X_MBIM_RADIO_ON;
	r.sw = m->radio;
	return ch39x_mbim_radio_build(m->info, sizeof(m->info), &r);
}

static uint32_t
cmd_register(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
	     uint32_t *status)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_register_set rs;

	if (msg->cmd_type == CH39X_MBIM_SET) {
		if (ch39x_mbim_register_set_parse(msg->info, msg->info_len,
						  &rs) != 0) {
			*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
			return 0;
		}
		/* ASSUMPTION: automatic only; a manual choice is refused. */
		if (rs.action != CH39X_MBIM_REGISTER_ACTION_AUTOMATIC) {
			*status = CH39X_MBIM_STATUS_NO_DEVICE_SUPPORT;
			return 0;
		}
		if (m->radio != CH39X_MBIM_RADIO_ON) {
			*status = CH39X_MBIM_STATUS_RADIO_POWER_OFF;
			return 0;
		}
		if (m->reg == CH39X_MBIM_REGISTER_DEREGISTERED) {
			start_search(s);
			tick(s);
		}
	}
	return build_register(s);
}

static uint32_t
cmd_packet(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
	   uint32_t *status)
{
	struct sim_mbim *m = s->mbim;
	uint32_t v, n;

	if (msg->cmd_type == CH39X_MBIM_SET) {
		if (ch39x_mbim_u32_parse(msg->info, msg->info_len, &v) != 0 ||
		    v > CH39X_MBIM_PACKET_DETACH) {
			*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
			return 0;
		}
		if (m->radio != CH39X_MBIM_RADIO_ON) {
			*status = CH39X_MBIM_STATUS_RADIO_POWER_OFF;
			return 0;
		}
		if (v == CH39X_MBIM_PACKET_ATTACH) {
			if (!registered(m)) {
				*status = CH39X_MBIM_STATUS_NOT_REGISTERED;
				return 0;
			}
			m->packet = CH39X_MBIM_PACKET_ATTACHED;
		} else {
			for (n = 0; n < MBIM_SESSIONS; n++)
				deactivate(s, n, true);
			m->packet = CH39X_MBIM_PACKET_DETACHED;
		}
	}
	return build_packet(s);
}

static uint32_t
cmd_signal(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
	   uint32_t *status)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_signal sg;

	if (msg->cmd_type == CH39X_MBIM_SET) {
		/* The set's three fields are the response's last three. */
		if (msg->info_len < 12) {
			*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
			return 0;
		}
		m->signal_interval = ch39x_get_le32(msg->info);
	}
	memset(&sg, 0, sizeof(sg));
	sg.rssi = m->rssi;
	sg.error_rate = 99;
	sg.interval = m->signal_interval;
	return ch39x_mbim_signal_build(m->info, sizeof(m->info), &sg);
}

/* Whether the credentials the network wants were given. */
static bool
creds_ok(const struct sim_dev *s, const struct ch39x_mbim_connect_set *c)
{
	if (s->cfg.mbim_user[0] == '\0' && s->cfg.mbim_password[0] == '\0')
		return true;
	return c->auth != CH39X_MBIM_AUTH_NONE &&
		strcmp(c->user, s->cfg.mbim_user) == 0 &&
		strcmp(c->password, s->cfg.mbim_password) == 0;
}

static uint32_t
cmd_connect_set(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
		uint32_t *status)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_connect_set c;
	uint32_t type;

	if (ch39x_mbim_connect_set_parse(msg->info, msg->info_len, &c) != 0 ||
	    c.session_id >= MBIM_SESSIONS ||
	    c.command > CH39X_MBIM_ACTIVATE ||
	    c.ip_type > CH39X_MBIM_IP_V4_AND_V6) {
		*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
		return 0;
	}
	if (c.command == CH39X_MBIM_DEACTIVATE) {
		deactivate(s, c.session_id, false);
		return build_connect(s, c.session_id);
	}
	if (m->radio != CH39X_MBIM_RADIO_ON) {
		*status = CH39X_MBIM_STATUS_RADIO_POWER_OFF;
		return 0;
	}
	if (!registered(m)) {
		*status = CH39X_MBIM_STATUS_NOT_REGISTERED;
		return 0;
	}
	if (s->cfg.mbim_apn[0] != '\0' &&
	    strcasecmp(c.apn, s->cfg.mbim_apn) != 0) {
		*status = CH39X_MBIM_STATUS_INVALID_ACCESS_STRING;
		return 0;
	}
	if (!creds_ok(s, &c)) {
		*status = CH39X_MBIM_STATUS_INVALID_USER_NAME_PWD;
		return 0;
	}
	/* ASSUMPTION: activating an active session again changes nothing. */
	if (sess_active(m, c.session_id))
		return build_connect(s, c.session_id);
	/* ASSUMPTION: a CONNECT attaches first, as LTE modems do. */
	set_packet(s, CH39X_MBIM_PACKET_ATTACHED);
	type = c.ip_type == CH39X_MBIM_IP_V4 ? CH39X_MBIM_IP_V4 :
		c.ip_type == CH39X_MBIM_IP_V6 ? CH39X_MBIM_IP_V6 :
		CH39X_MBIM_IP_V4V6;
	__atomic_store_n(&m->ip_type[c.session_id], type, __ATOMIC_RELAXED);
	__atomic_fetch_or(&m->active, 1u << c.session_id, __ATOMIC_RELEASE);
	/* The network advertises the session's prefix at once. */
	if (has_v6(type))
		sim_mbim_send_ra(s, c.session_id, ch39x_ip6_all_nodes);
	return build_connect(s, c.session_id);
}

static uint32_t
cmd_connect(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
	    uint32_t *status)
{
	uint32_t n;

	if (msg->cmd_type == CH39X_MBIM_SET)
		return cmd_connect_set(s, msg, status);
	if (ch39x_mbim_u32_parse(msg->info, msg->info_len, &n) != 0 ||
	    n >= MBIM_SESSIONS) {
		*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
		return 0;
	}
	return build_connect(s, n);
}

static uint32_t
cmd_ipcfg(struct sim_dev *s, const struct ch39x_mbim_msg *msg,
	  uint32_t *status)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_ipcfg c;
	uint32_t n, type, all = CH39X_MBIM_IPCFG_ADDRESS |
		CH39X_MBIM_IPCFG_GATEWAY | CH39X_MBIM_IPCFG_DNS |
		CH39X_MBIM_IPCFG_MTU;

	if (ch39x_mbim_u32_parse(msg->info, msg->info_len, &n) != 0 ||
	    n >= MBIM_SESSIONS || msg->cmd_type != CH39X_MBIM_QUERY) {
		*status = CH39X_MBIM_STATUS_INVALID_PARAMETERS;
		return 0;
	}
	if (!sess_active(m, n)) {
		*status = CH39X_MBIM_STATUS_CONTEXT_NOT_ACTIVATED;
		return 0;
	}
	type = sess_type(m, n);
	memset(&c, 0, sizeof(c));
	c.session_id = n;
	if (has_v4(type)) {
		c.v4_avail = all;
		c.n_v4 = 1;
		c.v4[0].prefix_len = 30;
		sess_ip4(n, c.v4[0].addr, 2);
		c.have_v4_gw = true;
		sess_ip4(n, c.v4_gw, 1);
		c.n_v4_dns = 1;
		memcpy(c.v4_dns[0], wire_gw4, 4);
		c.v4_mtu = MBIM_MTU;
	}
	if (has_v6(type)) {
		c.v6_avail = all;
		c.n_v6 = 1;
		c.v6[0].prefix_len = 64;
		sess_ip6(n, c.v6[0].addr, 2);
		c.have_v6_gw = true;
		memcpy(c.v6_gw, sess_ll6, 16);
		c.n_v6_dns = 1;
		memcpy(c.v6_dns[0], wire_gw6, 16);
		c.v6_mtu = MBIM_MTU;
	}
	return ch39x_mbim_ipcfg_build(m->info, sizeof(m->info), &c);
}

static uint32_t
cmd_services(struct sim_dev *s)
{
	static const uint32_t cids[] = {
		CH39X_MBIM_CID_DEVICE_CAPS,
		CH39X_MBIM_CID_SUBSCRIBER_READY_STATUS,
		CH39X_MBIM_CID_RADIO_STATE, CH39X_MBIM_CID_PIN,
		CH39X_MBIM_CID_REGISTER_STATE, CH39X_MBIM_CID_PACKET_SERVICE,
		CH39X_MBIM_CID_SIGNAL_STATE, CH39X_MBIM_CID_CONNECT,
		CH39X_MBIM_CID_IP_CONFIGURATION,
		CH39X_MBIM_CID_DEVICE_SERVICES,
	};
	const struct ch39x_mbim_service svc = {
		.uuid = ch39x_mbim_uuid_basic_connect, .cids = cids,
		.n_cids = sizeof(cids) / sizeof(cids[0]),
	};

	return ch39x_mbim_services_build(s->mbim->info, sizeof(s->mbim->info),
					 &svc, 1, 0);
}

/* PIN: none asked (type none, state unlocked, no attempts). */
static uint32_t
cmd_pin(struct sim_dev *s)
{
	memset(s->mbim->info, 0, 12);
	return 12;
}

static void
on_command(struct sim_dev *s, const struct ch39x_mbim_msg *msg)
{
	struct sim_mbim *m = s->mbim;
	uint32_t status = CH39X_MBIM_STATUS_SUCCESS, len = 0;
	bool query = msg->cmd_type == CH39X_MBIM_QUERY;

	ST_ADD(m, commands, 1);
	if (memcmp(msg->uuid, ch39x_mbim_uuid_basic_connect, 16) != 0 ||
	    msg->cmd_type > CH39X_MBIM_SET) {
		send_done(s, msg->tid, msg->cid,
			  CH39X_MBIM_STATUS_NO_DEVICE_SUPPORT, NULL, 0);
		return;
	}
	switch (msg->cid) {
	case CH39X_MBIM_CID_DEVICE_CAPS:
		len = query ? cmd_caps(s) : 0;
		break;
	case CH39X_MBIM_CID_SUBSCRIBER_READY_STATUS:
		len = query ? cmd_subscriber(s) : 0;
		break;
	case CH39X_MBIM_CID_RADIO_STATE:
		len = cmd_radio(s, msg, &status);
		break;
	case CH39X_MBIM_CID_PIN:
		len = query ? cmd_pin(s) : 0;
		break;
	case CH39X_MBIM_CID_REGISTER_STATE:
		len = cmd_register(s, msg, &status);
		break;
	case CH39X_MBIM_CID_PACKET_SERVICE:
		len = cmd_packet(s, msg, &status);
		break;
	case CH39X_MBIM_CID_SIGNAL_STATE:
		len = cmd_signal(s, msg, &status);
		break;
	case CH39X_MBIM_CID_CONNECT:
		len = cmd_connect(s, msg, &status);
		break;
	case CH39X_MBIM_CID_IP_CONFIGURATION:
		len = cmd_ipcfg(s, msg, &status);
		break;
	case CH39X_MBIM_CID_DEVICE_SERVICES:
		len = query ? cmd_services(s) : 0;
		break;
	default:
		break;
	}
	if (status == CH39X_MBIM_STATUS_SUCCESS && len == 0)
		status = CH39X_MBIM_STATUS_NO_DEVICE_SUPPORT;
	send_done(s, msg->tid, msg->cid, status, m->info, len);
}

/* One whole message from the host. */
static void
on_message(struct sim_dev *s, const uint8_t *b, uint32_t len)
{
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_msg msg;
	uint32_t max;

	ST_ADD(m, messages_in, 1);
	if (ch39x_mbim_parse(b, len, &msg) != 0) {
		send_status(s, CH39X_MBIM_FUNCTION_ERROR_MSG,
			    len >= 12 ? ch39x_get_le32(b + 8) : 0,
			    CH39X_MBIM_ERR_LENGTH_MISMATCH);
		return;
	}
	switch (msg.type) {
	case CH39X_MBIM_OPEN_MSG:
		/*
		 * Our fragments: at most what the host takes and what we
		 * declared. ASSUMPTION: an OPEN while open is taken again,
		 * the sessions kept (as after a host's restart).
		 */
		max = msg.max_ctrl < s->cdc.mbim_max_ctrl ? msg.max_ctrl :
			s->cdc.mbim_max_ctrl;
		if (max < CH39X_MBIM_CTRL_MIN) {
			send_status(s, CH39X_MBIM_OPEN_DONE, msg.tid,
				    CH39X_MBIM_STATUS_INVALID_PARAMETERS);
			return;
		}
		m->max_ctrl = max;
		m->open = true;
		send_status(s, CH39X_MBIM_OPEN_DONE, msg.tid,
			    CH39X_MBIM_STATUS_SUCCESS);
		return;
	case CH39X_MBIM_CLOSE_MSG:
		/* ASSUMPTION: the network side stays as it is (§24). */
		send_status(s, CH39X_MBIM_CLOSE_DONE, msg.tid,
			    CH39X_MBIM_STATUS_SUCCESS);
		m->open = false;
		return;
	case CH39X_MBIM_COMMAND_MSG:
		if (!m->open) {
			send_status(s, CH39X_MBIM_FUNCTION_ERROR_MSG, msg.tid,
				    CH39X_MBIM_ERR_NOT_OPENED);
			return;
		}
		on_command(s, &msg);
		return;
	case CH39X_MBIM_HOST_ERROR_MSG:
		ST_ADD(m, host_errors, 1);
		return;
	default:
		/* Messages only a function sends. */
		send_status(s, CH39X_MBIM_FUNCTION_ERROR_MSG, msg.tid,
			    CH39X_MBIM_ERR_UNKNOWN);
		return;
	}
}

/* SEND_ENCAPSULATED_COMMAND: one control transfer, a message or part. */
static int
encapsulated_in(struct sim_dev *s, const uint8_t *buf, uint16_t length)
{
	struct sim_mbim *m = s->mbim;
	enum ch39x_mbim_reasm_rc rc;
	uint32_t tid, err;

	if (length > s->cdc.mbim_max_ctrl)
		return -EPIPE;
	ST_ADD(m, fragments_in, 1);
	rc = ch39x_mbim_reasm_add(&m->reasm, buf, length, &tid, &err);
	if (rc == CH39X_MBIM_REASM_DONE)
		on_message(s, m->in, m->reasm.len);
	else if (rc == CH39X_MBIM_REASM_BAD)
		send_status(s, CH39X_MBIM_FUNCTION_ERROR_MSG, tid, err);
	return length;
}

/*
 * GET_ENCAPSULATED_RESPONSE: the oldest fragment, or an empty data stage
 * when nothing waits. A buffer too small for it stalls the request and
 * keeps the fragment (cdc-wdm always asks wMaxControlMessage).
 */
static int
encapsulated_out(struct sim_dev *s, uint8_t *buf, uint16_t length)
{
	struct sim_mbim *m = s->mbim;
	struct mbim_frag *f;
	uint16_t n;

	if (m->q_n == 0)
		return 0;
	f = &m->q[m->q_head];
	if (f->len > length)
		return -EPIPE;
	n = f->len;
	memcpy(buf, f->b, n);
	m->q_head = (m->q_head + 1) % MBIM_QUEUE;
	m->q_n--;
	return n;
}

static void
reset_control(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;

	m->open = false;
	m->max_ctrl = s->cdc.mbim_max_ctrl;
	m->q_n = 0;
	m->notify = 0;
	ch39x_mbim_reasm_reset(&m->reasm);
}

static int
mbim_control(struct sim_dev *s, uint8_t req_type, uint8_t request,
	     uint16_t value, uint16_t index, uint8_t *buf, uint16_t length)
{
	if ((req_type != CH39X_CDC_REQT_IN && req_type != CH39X_CDC_REQT_OUT) ||
	    index != s->cdc.comm_if)
		return -EPIPE;
	tick(s);
	switch (request) {
	case CH39X_CDC_SEND_ENCAPSULATED:
		if (req_type != CH39X_CDC_REQT_OUT)
			return -EPIPE;
		return encapsulated_in(s, buf, length);
	case CH39X_CDC_GET_ENCAPSULATED:
		if (req_type != CH39X_CDC_REQT_IN)
			return -EPIPE;
		return encapsulated_out(s, buf, length);
	case CH39X_MBIM_RESET_FUNCTION:
		if (req_type != CH39X_CDC_REQT_OUT || length != 0)
			return -EPIPE;
		reset_control(s);
		return 0;
	default:
		return sim_ntb_request(s, req_type, request, value, buf,
				       length);
	}
}

/* ---- The interrupt endpoint: RESPONSE_AVAILABLE ---- */

static void
mbim_intr_fill(struct sim_dev *s, struct ch39x_xfer *x)
{
	struct sim_mbim *m = s->mbim;
	uint32_t n;

	tick(s);
	if (m->notify == 0)
		return;
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	n = ch39x_cdc_notify_build_response(x->buf, x->len, s->cdc.comm_if);
	if (n == 0) {
		x->actual = x->len;
		complete(s, x, CH39X_XFER_OVERFLOW);
		return;
	}
	m->notify--;
	x->actual = n;
	complete(s, x, CH39X_XFER_OK);
	SIM_ADD(s->cnt.cdc_notifications, 1);
}

/* ---- Set-up, events ---- */

void
sim_mbim_desc(struct sim_dev *s)
{
	struct ch39x_cdc_desc *c = &s->cdc;

	/* No Ethernet descriptor: its fields stay as a walk leaves them. */
	c->have_ether = false;
	c->i_mac_address = 0;
	c->max_segment = 0;
	c->mc_filters = 0;
	c->have_ncm = false;
	c->have_mbim = true;
	c->bcd_mbim = 0x0100;
	c->mbim_max_ctrl = s->cfg.mbim_max_ctrl ? s->cfg.mbim_max_ctrl :
		CH39X_MBIM_CTRL_MAX;
	/* ASSUMPTION: 16 packet filters of 128 bytes, as modems declare. */
	c->mbim_filters = 16;
	c->mbim_filter_size = 128;
	c->mbim_max_segment = MBIM_MAX_SEGMENT;
	c->mbim_caps = 0;
	c->have_mbim_ext = true;
	c->bcd_mbim_ext = 0x0100;
	c->mbim_max_outstanding = 1;
	c->mbim_mtu = MBIM_MTU;
	s->max_dgram = MBIM_MAX_SEGMENT;
}

/* Power-up: radio on, searching (or registered), nothing open. */
void
sim_mbim_power_on(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;

	reset_control(s);
	__atomic_store_n(&m->active, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&m->peer, 0, __ATOMIC_RELAXED);
	m->radio = CH39X_MBIM_RADIO_ON;
	m->coverage = true;
	m->packet = CH39X_MBIM_PACKET_DETACHED;
	m->rssi = MBIM_RSSI;
	m->signal_interval = 0;
	start_search(s);
	tick(s);
	pthread_mutex_lock(&m->local_lock);
	m->l_n = 0;
	__atomic_store_n(&s->local_pending, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&m->local_lock);
}

int
sim_mbim_open(struct sim_dev *s)
{
	struct sim_mbim *m = calloc(1, sizeof(*m));

	if (m == NULL)
		return -1;
	s->mbim = m;
	pthread_mutex_init(&m->wire_lock, NULL);
	pthread_mutex_init(&m->local_lock, NULL);
	ch39x_mbim_reasm_init(&m->reasm, m->in, sizeof(m->in));
	/* The descriptors come with sim_cdc_init, after this. */
	sim_mbim_desc(s);
	sim_mbim_power_on(s);
	return 0;
}

void
sim_mbim_close(struct sim_dev *s)
{
	struct sim_mbim *m = s->mbim;

	if (m == NULL)
		return;
	pthread_mutex_destroy(&m->wire_lock);
	pthread_mutex_destroy(&m->local_lock);
	free(m);
	s->mbim = NULL;
}

int
ch39x_sim_mbim_event(struct ch39x_usb_dev *d, enum ch39x_sim_mbim_event ev,
		     uint32_t arg)
{
	struct sim_dev *s = to_sim(d);
	struct sim_mbim *m = s->mbim;
	struct ch39x_mbim_signal sg;
	int rc = 0;

	if (!ch39x_sim_is_sim(d) || m == NULL)
		return -1;
	pthread_mutex_lock(&s->lock);
	switch (ev) {
	case CH39X_SIM_MBIM_LOSE_NETWORK:
		m->coverage = false;
		lose_network(s, CH39X_MBIM_REGISTER_DEREGISTERED);
		break;
	case CH39X_SIM_MBIM_FIND_NETWORK:
		m->coverage = true;
		if (m->radio == CH39X_MBIM_RADIO_ON && !registered(m)) {
			start_search(s);
			ind_register(s);
			tick(s);
		}
		break;
	case CH39X_SIM_MBIM_DROP_SESSION:
		if (arg >= MBIM_SESSIONS)
			rc = -1;
		else
			deactivate(s, arg, true);
		break;
	case CH39X_SIM_MBIM_SIGNAL:
		if (arg > 31 && arg != 99) {
			rc = -1;
			break;
		}
		m->rssi = arg;
		memset(&sg, 0, sizeof(sg));
		sg.rssi = arg;
		sg.error_rate = 99;
		sg.interval = m->signal_interval;
		indicate(s, CH39X_MBIM_CID_SIGNAL_STATE, m->info,
			 ch39x_mbim_signal_build(m->info, sizeof(m->info),
						 &sg));
		break;
	default:
		rc = -1;
		break;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

int
ch39x_sim_mbim_state(struct ch39x_usb_dev *d, struct ch39x_sim_mbim_state *st)
{
	struct sim_dev *s = to_sim(d);
	struct sim_mbim *m = s->mbim;

	if (!ch39x_sim_is_sim(d) || m == NULL)
		return -1;
	pthread_mutex_lock(&s->lock);
	tick(s);
	memset(st, 0, sizeof(*st));
	st->messages_in = SIM_GET(m->st.messages_in);
	st->fragments_in = SIM_GET(m->st.fragments_in);
	st->fragments_out = SIM_GET(m->st.fragments_out);
	st->commands = SIM_GET(m->st.commands);
	st->indications = SIM_GET(m->st.indications);
	st->function_errors = SIM_GET(m->st.function_errors);
	st->host_errors = SIM_GET(m->st.host_errors);
	st->queue_drops = SIM_GET(m->st.queue_drops);
	st->up_packets = SIM_GET(m->st.up_packets);
	st->up_dropped = SIM_GET(m->st.up_dropped);
	st->down_packets = SIM_GET(m->st.down_packets);
	st->down_dropped = SIM_GET(m->st.down_dropped);
	st->local_packets = SIM_GET(m->st.local_packets);
	st->wire_answers = SIM_GET(m->st.wire_answers);
	st->open = m->open;
	st->radio = m->radio;
	st->register_state = m->reg;
	st->packet_state = m->packet;
	st->active = __atomic_load_n(&m->active, __ATOMIC_ACQUIRE);
	st->max_ctrl = m->max_ctrl;
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* The function's configuration descriptor, from its walked form. */
static uint32_t
mbim_config_desc(struct sim_dev *s, uint8_t *buf, uint32_t cap)
{
	return ch39x_cdc_build_config(&s->cdc, SIM_CDC_CONFIG,
				      s->prof.speed == CH39X_SPEED_SUPER, buf,
				      cap);
}

static const char *
mbim_name(const struct sim_dev *s)
{
	(void)s;
	return "MBIM modem";
}

/*
 * ASSUMPTION (§24): a composite-style device descriptor (class 0xEF,
 * subclass 2, protocol 1: "see the IADs"), as the NCM and ECM models and
 * as modems with several functions enumerate.
 */
const struct sim_model sim_mbim_model = {
	.control = mbim_control,
	.rx_accept = sim_mbim_rx_accept,
	.rx_max_frame = sim_mbim_rx_max_frame,
	.rx_fill = sim_mbim_rx_fill,
	.tx_parse = sim_mbim_tx_parse,
	.intr_fill = mbim_intr_fill,
	.config_desc = mbim_config_desc,
	.dev_class = 0xEF,
	.dev_subclass = 0x02,
	.dev_protocol = 0x01,
	.name = mbim_name,
};
