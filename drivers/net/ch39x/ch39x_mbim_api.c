/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: an MBIM port's sessions seen from outside the PMD: the
 * private API (rte_pmd_ch39x_mbim_*, rte_pmd_ch39x_sim_mbim_event) and
 * the telemetry commands /ch39x/mbim and /ch39x/mbim,PORT[,SESSION],
 * which usertools/ch39x-cpe-mbim reads. Any application thread; the
 * dialer (ch39x_mbim_dial.c) does the work.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ethdev_driver.h>
#include <rte_telemetry.h>

#include "ch39x_adapter.h"
#include "ch39x_compat.h"
#include "ch39x_ethdev.h"
#include "ch39x_mbim_port.h"
#include "ch39x_sim.h"
#include "rte_pmd_ch39x.h"

/* The MBIM state of a ch39x port of this process, or NULL. */
static struct ch39x_mbim_port *
mbim_of(uint16_t port_id, int *rc)
{
	struct rte_eth_dev *dev;
	struct ch39x_adapter *ad;

	*rc = -ENODEV;
	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	*rc = -ENOTSUP;
	if (!ch39x_eth_dev_is_ours(dev))
		return NULL;
	ad = dev->data->dev_private;
	if (ad->framing != CH39X_FRAMING_MBIM || ad->mbim == NULL)
		return NULL;
	*rc = 0;
	return ad->mbim;
}

static void
ip_out(struct rte_pmd_ch39x_mbim_ip *o, const struct ch39x_mbim_ipcfg *c,
       bool v6)
{
	uint32_t i, n = v6 ? c->n_v6_dns : c->n_v4_dns;
	size_t al = v6 ? 16 : 4;

	memset(o, 0, sizeof(*o));
	if (v6 ? c->n_v6 == 0 : c->n_v4 == 0)
		return;
	o->valid = 1;
	if (v6) {
		memcpy(o->addr, c->v6[0].addr, 16);
		o->prefix_len = (uint8_t)c->v6[0].prefix_len;
		o->has_gateway = c->have_v6_gw;
		memcpy(o->gateway, c->v6_gw, 16);
		o->mtu = c->v6_mtu;
	} else {
		memcpy(o->addr, c->v4[0].addr, 4);
		o->prefix_len = (uint8_t)c->v4[0].prefix_len;
		o->has_gateway = c->have_v4_gw;
		memcpy(o->gateway, c->v4_gw, 4);
		o->mtu = c->v4_mtu;
	}
	n = RTE_MIN(n, (uint32_t)RTE_DIM(o->dns));
	for (i = 0; i < n; i++)
		memcpy(o->dns[i], v6 ? c->v6_dns[i] : c->v4_dns[i], al);
	o->nb_dns = (uint8_t)n;
}

/* Session index i as the API shows it; m->lock held. */
static void
info_fill(const struct ch39x_mbim_port *m, uint32_t i,
	  struct rte_pmd_ch39x_mbim_info *info)
{
	const struct ch39x_mbim_sess *s = &m->sess[i];
	const struct ch39x_mbim_dial_state *st = &s->st;
	bool conn = s->phase == RTE_PMD_CH39X_MBIM_CONNECTED;

	memset(info, 0, sizeof(*info));
	info->session = s->cfg.session;
	info->vlan_id = s->vlan;
	info->phase = (uint16_t)s->phase;
	snprintf(info->apn, sizeof(info->apn), "%s", s->cfg.apn);
	memcpy(info->peer_mac, m->eth.peer_mac, sizeof(info->peer_mac));
	snprintf(info->error, sizeof(info->error), "%s", s->err);
	snprintf(info->provider, sizeof(info->provider), "%s", st->provider);
	if (m->have_caps) {
		snprintf(info->device_id, sizeof(info->device_id), "%s",
			 m->caps.device_id);
		snprintf(info->firmware, sizeof(info->firmware), "%s",
			 m->caps.firmware);
		info->max_sessions = m->caps.max_sessions;
	}
	info->register_state = st->register_state;
	info->packet_state = st->packet_state;
	info->activation = conn ? st->activation : CH39X_MBIM_DEACTIVATED;
	info->ip_type = st->ip_type;
	info->rssi = st->rssi;
	info->nw_error = st->nw_error;
	info->up_bps = st->up_bps;
	info->down_bps = st->down_bps;
	info->dials = s->dials;
	info->dial_failures = s->dial_failures;
	info->drops = s->drops;
	if (conn) {
		ip_out(&info->ipv4, &st->ipcfg, false);
		ip_out(&info->ipv6, &st->ipcfg, true);
	}
}

int
rte_pmd_ch39x_mbim_info_get(uint16_t port_id, uint32_t session,
			    struct rte_pmd_ch39x_mbim_info *info)
{
	struct ch39x_mbim_port *m;
	int rc, i;

	m = mbim_of(port_id, &rc);
	if (m == NULL)
		return rc;
	if (info == NULL)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	i = ch39x_mbim_find_session(m, session);
	if (i >= 0)
		info_fill(m, (uint32_t)i, info);
	pthread_mutex_unlock(&m->lock);
	return i >= 0 ? 0 : -EINVAL;
}

/* Wait (m->lock held) until session i's phase is want, at most ms. */
static int
wait_phase(struct ch39x_mbim_port *m, uint32_t i,
	   enum rte_pmd_ch39x_mbim_phase want, uint32_t ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	while (m->sess[i].phase != want)
		if (pthread_cond_timedwait(&m->changed, &m->lock, &ts) != 0)
			return m->sess[i].phase == want ? 0 : -ETIMEDOUT;
	return 0;
}

static int
request(uint16_t port_id, uint32_t session, bool up, uint32_t timeout_ms)
{
	struct ch39x_mbim_port *m;
	int rc, i;

	m = mbim_of(port_id, &rc);
	if (m == NULL)
		return rc;
	pthread_mutex_lock(&m->lock);
	i = ch39x_mbim_find_session(m, session);
	if (i < 0) {
		pthread_mutex_unlock(&m->lock);
		return -EINVAL;
	}
	m->sess[i].want = up;
	m->sess[i].want_seq++;
	m->kick = true;
	pthread_cond_signal(&m->cond);
	rc = 0;
	if (timeout_ms != 0)
		rc = wait_phase(m, (uint32_t)i, up ?
				RTE_PMD_CH39X_MBIM_CONNECTED :
				RTE_PMD_CH39X_MBIM_IDLE, timeout_ms);
	pthread_mutex_unlock(&m->lock);
	return rc;
}

int
rte_pmd_ch39x_mbim_connect(uint16_t port_id, uint32_t session,
			   uint32_t timeout_ms)
{
	return request(port_id, session, true, timeout_ms);
}

int
rte_pmd_ch39x_mbim_disconnect(uint16_t port_id, uint32_t session,
			      uint32_t timeout_ms)
{
	return request(port_id, session, false, timeout_ms);
}

int
rte_pmd_ch39x_sim_mbim_event(uint16_t port_id,
			     enum rte_pmd_ch39x_sim_mbim_event ev,
			     uint32_t arg)
{
	struct ch39x_mbim_port *m;
	int rc;

	m = mbim_of(port_id, &rc);
	if (m == NULL)
		return rc;
	if (!ch39x_sim_is_sim(m->ad->usb))
		return -ENOTSUP;
	switch (ev) {
	case RTE_PMD_CH39X_SIM_MBIM_LOSE_NETWORK:
		rc = ch39x_sim_mbim_event(m->ad->usb,
					  CH39X_SIM_MBIM_LOSE_NETWORK, arg);
		break;
	case RTE_PMD_CH39X_SIM_MBIM_FIND_NETWORK:
		rc = ch39x_sim_mbim_event(m->ad->usb,
					  CH39X_SIM_MBIM_FIND_NETWORK, arg);
		break;
	case RTE_PMD_CH39X_SIM_MBIM_DROP_SESSION:
		rc = ch39x_sim_mbim_event(m->ad->usb,
					  CH39X_SIM_MBIM_DROP_SESSION, arg);
		break;
	case RTE_PMD_CH39X_SIM_MBIM_SIGNAL:
		rc = ch39x_sim_mbim_event(m->ad->usb, CH39X_SIM_MBIM_SIGNAL,
					  arg);
		break;
	default:
		return -EINVAL;
	}
	return rc == 0 ? 0 : -EINVAL;
}

/* ---- telemetry ---- */

static const char *
phase_name(uint16_t p)
{
	switch (p) {
	case RTE_PMD_CH39X_MBIM_IDLE: return "idle";
	case RTE_PMD_CH39X_MBIM_OPENING: return "opening";
	case RTE_PMD_CH39X_MBIM_DIALING: return "dialing";
	case RTE_PMD_CH39X_MBIM_CONNECTED: return "connected";
	case RTE_PMD_CH39X_MBIM_FAILED: return "failed";
	case RTE_PMD_CH39X_MBIM_GONE: return "gone";
	default: return "?";
	}
}

static const char *
register_word(uint32_t s)
{
	static const char *const w[] = { "unknown", "deregistered",
		"searching", "home", "roaming", "partner", "denied" };

	return s < RTE_DIM(w) ? w[s] : "?";
}

static const char *
packet_word(uint32_t s)
{
	static const char *const w[] = { "unknown", "attaching", "attached",
		"detaching", "detached" };

	return s < RTE_DIM(w) ? w[s] : "?";
}

static void
addr_str(char *b, size_t n, const uint8_t *a, bool v6)
{
	if (inet_ntop(v6 ? AF_INET6 : AF_INET, a, b, (socklen_t)n) == NULL)
		snprintf(b, n, "?");
}

/* "ipv4" {address, gateway, mtu} and "ipv4_dns" [...]; the same for v6. */
static void
tel_ip(struct rte_tel_data *d, const struct rte_pmd_ch39x_mbim_ip *ip,
       bool v6)
{
	struct rte_tel_data *o, *dns;
	char b[64], a[48];
	uint32_t i;

	if (!ip->valid)
		return;
	o = rte_tel_data_alloc();
	dns = rte_tel_data_alloc();
	if (o == NULL || dns == NULL) {
		rte_tel_data_free(o);
		rte_tel_data_free(dns);
		return;
	}
	rte_tel_data_start_dict(o);
	addr_str(a, sizeof(a), ip->addr, v6);
	snprintf(b, sizeof(b), "%s/%u", a, ip->prefix_len);
	rte_tel_data_add_dict_string(o, "address", b);
	if (ip->has_gateway) {
		addr_str(a, sizeof(a), ip->gateway, v6);
		rte_tel_data_add_dict_string(o, "gateway", a);
	}
	CH39X_TEL_U64(o, "mtu", ip->mtu);
	rte_tel_data_start_array(dns, RTE_TEL_STRING_VAL);
	for (i = 0; i < ip->nb_dns; i++) {
		addr_str(a, sizeof(a), ip->dns[i], v6);
		rte_tel_data_add_array_string(dns, a);
	}
	if (rte_tel_data_add_dict_container(d, v6 ? "ipv6" : "ipv4", o, 0))
		rte_tel_data_free(o);
	if (rte_tel_data_add_dict_container(d, v6 ? "ipv6_dns" : "ipv4_dns",
					    dns, 0))
		rte_tel_data_free(dns);
}

/* /ch39x/mbim: the MBIM ports; /ch39x/mbim,PORT[,SESSION]: a session. */
static int
tel_mbim(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_pmd_ch39x_mbim_info in;
	unsigned long port, session = 0;
	uint16_t p;
	char *end;
	int rc;

	RTE_SET_USED(cmd);
	if (params == NULL || params[0] == '\0') {
		struct rte_tel_data *ports = rte_tel_data_alloc();

		if (ports == NULL)
			return -ENOMEM;
		rte_tel_data_start_dict(d);
		rte_tel_data_start_array(ports, RTE_TEL_INT_VAL);
		RTE_ETH_FOREACH_DEV(p)
			if (mbim_of(p, &rc) != NULL)
				rte_tel_data_add_array_int(ports, p);
		if (rte_tel_data_add_dict_container(d, "ports", ports, 0))
			rte_tel_data_free(ports);
		return 0;
	}
	port = strtoul(params, &end, 10);
	if (end == params || port > UINT16_MAX)
		return -EINVAL;
	if (*end == ',') {
		const char *s = end + 1;

		session = strtoul(s, &end, 10);
		if (end == s || session > UINT32_MAX)
			return -EINVAL;
	}
	if (*end != '\0')
		return -EINVAL;
	rc = rte_pmd_ch39x_mbim_info_get((uint16_t)port, (uint32_t)session,
					 &in);
	if (rc != 0)
		return rc;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", (int)port);
	CH39X_TEL_U64(d, "session", in.session);
	CH39X_TEL_U64(d, "vlan", in.vlan_id);
	rte_tel_data_add_dict_string(d, "state", phase_name(in.phase));
	rte_tel_data_add_dict_string(d, "last_error", in.error);
	rte_tel_data_add_dict_string(d, "apn", in.apn);
	rte_tel_data_add_dict_string(d, "register",
				     register_word(in.register_state));
	rte_tel_data_add_dict_string(d, "provider", in.provider);
	rte_tel_data_add_dict_string(d, "packet",
				     packet_word(in.packet_state));
	CH39X_TEL_U64(d, "rssi", in.rssi);
	CH39X_TEL_U64(d, "up_bps", in.up_bps);
	CH39X_TEL_U64(d, "down_bps", in.down_bps);
	rte_tel_data_add_dict_string(d, "device_id", in.device_id);
	rte_tel_data_add_dict_string(d, "firmware", in.firmware);
	CH39X_TEL_U64(d, "dials", in.dials);
	CH39X_TEL_U64(d, "dial_failures", in.dial_failures);
	CH39X_TEL_U64(d, "drops", in.drops);
	tel_ip(d, &in.ipv4, false);
	tel_ip(d, &in.ipv6, true);
	return 0;
}

RTE_INIT(ch39x_mbim_telemetry)
{
	rte_telemetry_register_cmd("/ch39x/mbim", tel_mbim,
		"The MBIM ports (no parameter), or a session's state and IP "
		"configuration. Parameters: int port_id[,int session]");
}
