/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The simulated MBIM modem (lib/ch39x_sim/ch39x_sim_mbim.c, §24) driven
 * through the transport ops, without EAL: by the host's control client and
 * dialer (lib/ch39x/ch39x_mbim_ctl.c) for the control side, and with NTBs
 * built and parsed by the NCM codec for the data side, its cable paired
 * with a simulated CDC-NCM adapter that plays a host on the operator's
 * network. Expected addresses are those §24 states.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ch39x_mbim_ctl.h"
#include "ch39x_ncm.h"
#include "ch39x_nd.h"
#include "ch39x_net.h"
#include "ch39x_sim.h"

#include "check.h"

#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ })
#define CMD_MS 2000

static struct ch39x_usb_dev *
open_modem(const char *pair, uint16_t max_ctrl, uint32_t register_ms,
	   const char *apn)
{
	struct ch39x_sim_config c;
	char err[256] = "";
	struct ch39x_usb_dev *d;

	memset(&c, 0, sizeof(c));
	c.pid = CH39X_PID_CH398;
	c.speed = CH39X_SPEED_HIGH;
	c.framing = CH39X_FRAMING_MBIM;
	c.wire = pair ? CH39X_WIRE_PAIR : CH39X_WIRE_LOOP;
	if (pair)
		snprintf(c.pair_name, sizeof(c.pair_name), "%s", pair);
	c.mbim_max_ctrl = max_ctrl;
	c.mbim_register_ms = register_ms;
	if (apn)
		snprintf(c.mbim_apn, sizeof(c.mbim_apn), "%s", apn);
	d = ch39x_sim_open(&c, err, sizeof(err));
	if (d == NULL)
		printf("ch39x_sim_open: %s\n", err);
	return d;
}

static struct ch39x_usb_dev *
open_ncm(const char *pair, const uint8_t mac[6])
{
	struct ch39x_sim_config c;
	char err[256] = "";

	memset(&c, 0, sizeof(c));
	c.pid = CH39X_PID_CH398;
	c.speed = CH39X_SPEED_HIGH;
	c.framing = CH39X_FRAMING_NCM;
	c.wire = CH39X_WIRE_PAIR;
	snprintf(c.pair_name, sizeof(c.pair_name), "%s", pair);
	memcpy(c.mac, mac, 6);
	return ch39x_sim_open(&c, err, sizeof(err));
}

static struct ch39x_sim_mbim_state
mstate(struct ch39x_usb_dev *d)
{
	struct ch39x_sim_mbim_state st;

	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_sim_mbim_state(d, &st), 0);
	return st;
}

static struct ch39x_mbim_dial_cfg
dial_cfg(const char *apn)
{
	struct ch39x_mbim_dial_cfg c;

	memset(&c, 0, sizeof(c));
	snprintf(c.apn, sizeof(c.apn), "%s", apn);
	c.ip_type = CH39X_MBIM_IP_V4V6;
	c.cmd_timeout_ms = CMD_MS;
	c.register_timeout_ms = 5000;
	return c;
}

/* ---- Descriptors and raw control ---- */

static void
test_descs_raw(void)
{
	struct ch39x_usb_dev *d = open_modem(NULL, 0, 0, NULL);
	struct ch39x_usb_info info;
	struct ch39x_cdc_desc cdc;
	struct ch39x_mbim_msg m;
	uint8_t b[4096];
	int n;

	if (!d) {
		CHECK(0);
		return;
	}
	CHECK_EQ(d->ops->get_info(d, &info), 0);
	CHECK_EQ(info.framing, CH39X_FRAMING_MBIM);
	CHECK_EQ(d->ops->get_cdc(d, &cdc), 0);
	CHECK_EQ(cdc.comm_subclass, CH39X_CDC_SUBCLASS_MBIM);
	CHECK(cdc.have_mbim && !cdc.have_ether && !cdc.have_ncm);
	CHECK_EQ(cdc.mbim_max_ctrl, 4096);
	CHECK_EQ(cdc.mbim_max_segment, 2048);
	CHECK_EQ(cdc.mbim_mtu, 1500);
	CHECK_EQ(cdc.data_protocol, CH39X_CDC_MBIM_PROTO_NTB);
	CHECK(ch39x_cdc_usable(&cdc));

	/* Nothing waits: an empty answer. */
	CHECK_EQ(d->ops->control(d, 0xA1, 0x01, 0, 0, b, 4096, 500), 0);
	/* A COMMAND before OPEN: FUNCTION_ERROR NOT_OPENED, same tid. */
	n = (int)ch39x_mbim_build_command(b, sizeof(b), 41,
					  ch39x_mbim_uuid_basic_connect, 1, 0,
					  NULL, 0);
	CHECK_EQ(d->ops->control(d, 0x21, 0x00, 0, 0, b, (uint16_t)n, 500),
		 n);
	n = d->ops->control(d, 0xA1, 0x01, 0, 0, b, 4096, 500);
	CHECK_EQ(n, 16);
	CHECK_EQ(ch39x_mbim_parse(b, (uint32_t)n, &m), 0);
	CHECK_EQ(m.type, CH39X_MBIM_FUNCTION_ERROR_MSG);
	CHECK_EQ(m.tid, 41);
	CHECK_EQ(m.status, CH39X_MBIM_ERR_NOT_OPENED);
	/* Longer than wMaxControlMessage: the request stalls. */
	CHECK_EQ(d->ops->control(d, 0x21, 0x00, 0, 0, b, 4097, 500), -EPIPE);
	/* The wrong interface, and an NTB request answered as NCM's. */
	CHECK_EQ(d->ops->control(d, 0xA1, 0x01, 0, 1, b, 64, 500), -EPIPE);
	CHECK_EQ(d->ops->control(d, 0xA1, 0x80, 0, 0, b, 28, 500), 28);
	CHECK_EQ(b[2], 3);		/* NTB16 and NTB32 */
	d->ops->close(d);
}

/* ---- The interrupt endpoint's notifications ---- */

static unsigned int
notifications(struct ch39x_usb_dev *d)
{
	struct ch39x_xfer x, *done[1];
	uint8_t b[16];
	unsigned int n = 0, k;

	for (k = 0; k < 64; k++) {
		memset(&x, 0, sizeof(x));
		x.ep = CH39X_EP_INTR_IN;
		x.buf = b;
		x.len = sizeof(b);
		if (d->ops->submit(d, &x) != 0)
			break;
		if (d->ops->poll(d, CH39X_EP_INTR_IN, done, 1) == 0) {
			d->ops->cancel_all(d, CH39X_EP_INTR_IN);
			d->ops->poll(d, CH39X_EP_INTR_IN, done, 1);
			break;
		}
		CHECK_EQ(x.status, CH39X_XFER_OK);
		CHECK_EQ(x.actual, 8);
		CHECK_MEM(b, BYTES(0xA1, 0x01, 0, 0, 0, 0, 0, 0), 8);
		n++;
	}
	return n;
}

/* ---- The dialer against the modem ---- */

static void
test_dial(void)
{
	struct ch39x_usb_dev *d = open_modem(NULL, 0, 100, "internet");
	struct ch39x_mbim_dial_cfg cfg = dial_cfg("Internet");
	struct ch39x_sim_mbim_state ms;
	struct ch39x_mbim_dial_state st;
	struct ch39x_mbim_ctl c;
	const struct ch39x_mbim_ipcfg *ip = &st.ipcfg;
	uint32_t status, len;
	uint8_t buf[256];

	if (!d) {
		CHECK(0);
		return;
	}
	CHECK_EQ(ch39x_mbim_ctl_init(&c, d, 0, 4096), 0);
	CHECK_EQ(ch39x_mbim_ctl_open(&c, CMD_MS), 0);
	CHECK(c.open);
	/* OPEN_DONE was announced on the interrupt endpoint. */
	CHECK_EQ(notifications(d), 1);
	ms = mstate(d);
	CHECK(ms.open);
	CHECK_EQ(ms.register_state, CH39X_MBIM_REGISTER_SEARCHING);

	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	if (c.err[0])
		printf("dial: %s\n", c.err);
	CHECK_EQ(st.caps.max_sessions, 4);
	CHECK(strncmp(st.caps.firmware, "ch39x-sim", 9) == 0);
	CHECK_EQ(st.ready_state, CH39X_MBIM_READY_INITIALIZED);
	CHECK_EQ(st.register_state, CH39X_MBIM_REGISTER_HOME);
	CHECK(strcmp(st.provider, "ch39x sim") == 0);
	CHECK_EQ(st.packet_state, CH39X_MBIM_PACKET_ATTACHED);
	/* The attach's announced speeds and the signal (§24). */
	CHECK_EQ(st.up_bps, 50000000);
	CHECK_EQ(st.down_bps, 150000000);
	CHECK_EQ(st.rssi, 20);
	CHECK_EQ(st.activation, CH39X_MBIM_ACTIVATED);
	CHECK_EQ(st.ip_type, CH39X_MBIM_IP_V4V6);
	CHECK(ch39x_mbim_dial_up(&st));
	/* §24's session 0. */
	CHECK_EQ(ip->n_v4, 1);
	CHECK_MEM(ip->v4[0].addr, BYTES(100, 64, 39, 2), 4);
	CHECK_EQ(ip->v4[0].prefix_len, 30);
	CHECK(ip->have_v4_gw);
	CHECK_MEM(ip->v4_gw, BYTES(100, 64, 39, 1), 4);
	CHECK_EQ(ip->n_v4_dns, 1);
	CHECK_MEM(ip->v4_dns[0], BYTES(198, 51, 100, 1), 4);
	CHECK_EQ(ip->v4_mtu, 1500);
	CHECK_EQ(ip->n_v6, 1);
	CHECK_MEM(ip->v6[0].addr, BYTES(0x20, 0x01, 0x0d, 0xb8, 0, 0x39, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 2), 16);
	CHECK_EQ(ip->v6[0].prefix_len, 64);
	CHECK_MEM(ip->v6_gw, BYTES(0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 1), 16);
	ms = mstate(d);
	CHECK_EQ(ms.active, 1);
	/* Registration and attach came as indications while waiting. */
	CHECK(c.st.indications >= 2);
	CHECK_EQ(c.st.stray, 0);
	CHECK_EQ(c.st.function_errors, 0);

	/* Dialing again: the session stays (activating it again is no-op). */
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	CHECK_EQ(mstate(d).active, 1);

	/* Unknown CIDs and services: NoDeviceSupport. */
	CHECK_EQ(ch39x_mbim_ctl_command(&c, 99, CH39X_MBIM_QUERY, NULL, 0,
					buf, sizeof(buf), &len, &status,
					CMD_MS), 0);
	CHECK_EQ(status, CH39X_MBIM_STATUS_NO_DEVICE_SUPPORT);
	CHECK_EQ(len, 0);
	/* IP configuration of a session never activated. */
	len = ch39x_mbim_u32_build(buf, sizeof(buf), 2);
	CHECK_EQ(ch39x_mbim_ctl_command(&c, CH39X_MBIM_CID_IP_CONFIGURATION,
					CH39X_MBIM_QUERY, buf, len, buf,
					sizeof(buf), &len, &status, CMD_MS), 0);
	CHECK_EQ(status, CH39X_MBIM_STATUS_CONTEXT_NOT_ACTIVATED);

	/* Hang up: the session goes. */
	CHECK_EQ(ch39x_mbim_hangup(&c, &cfg, &st), 0);
	CHECK_EQ(mstate(d).active, 0);
	CHECK(!ch39x_mbim_dial_up(&st));
	CHECK_EQ(ch39x_mbim_ctl_close(&c, CMD_MS), 0);
	CHECK(!mstate(d).open);
	ch39x_mbim_ctl_fini(&c);
	d->ops->close(d);
}

/* A 64-byte control pipe: every long message in fragments, both ways. */
static void
test_fragments(void)
{
	struct ch39x_usb_dev *d = open_modem(NULL, 64, 0, NULL);
	struct ch39x_mbim_dial_cfg cfg = dial_cfg("");
	struct ch39x_sim_mbim_state ms;
	struct ch39x_mbim_dial_state st;
	struct ch39x_mbim_ctl c;

	if (!d) {
		CHECK(0);
		return;
	}
	/* A 100-character APN: the CONNECT is 48 + 60 + 200 bytes. */
	memset(cfg.apn, 'a', CH39X_MBIM_APN_MAX);
	cfg.apn[CH39X_MBIM_APN_MAX] = '\0';
	strcpy(cfg.user, "someone");
	strcpy(cfg.password, "secret");
	cfg.auth = CH39X_MBIM_AUTH_CHAP;
	CHECK_EQ(ch39x_mbim_ctl_init(&c, d, 0, 64), 0);
	CHECK_EQ(ch39x_mbim_ctl_open(&c, CMD_MS), 0);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	CHECK(ch39x_mbim_dial_up(&st));
	CHECK_MEM(st.ipcfg.v4[0].addr, BYTES(100, 64, 39, 2), 4);
	ms = mstate(d);
	CHECK_EQ(ms.max_ctrl, 64);
	CHECK(ms.fragments_in > ms.messages_in);
	CHECK(c.st.fragments_in > c.st.done);
	CHECK_EQ(ms.function_errors, 0);
	CHECK_EQ(c.st.host_errors, 0);
	ch39x_mbim_ctl_fini(&c);
	d->ops->close(d);
}

/* Refusals, with the words that name the fix. */
static void
test_refusals(void)
{
	struct ch39x_usb_dev *d = open_modem(NULL, 0, 0, "internet");
	struct ch39x_mbim_dial_cfg cfg = dial_cfg("other");
	struct ch39x_mbim_dial_state st;
	struct ch39x_mbim_ctl c;
	uint8_t b[64];
	uint32_t len, status;

	if (!d) {
		CHECK(0);
		return;
	}
	CHECK_EQ(ch39x_mbim_ctl_init(&c, d, 0, 4096), 0);
	/* Before OPEN: FUNCTION_ERROR. */
	CHECK_EQ(ch39x_mbim_ctl_command(&c, 1, 0, NULL, 0, b, sizeof(b), &len,
					&status, CMD_MS), -EPROTO);
	CHECK(strstr(c.err, "FUNCTION_ERROR 5") != NULL);
	CHECK_EQ(ch39x_mbim_ctl_open(&c, CMD_MS), 0);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), -EPROTO);
	CHECK(strstr(c.err, "InvalidAccessString") != NULL);
	CHECK(strstr(c.err, "apn=") != NULL);
	CHECK(!ch39x_mbim_dial_up(&st));
	CHECK_EQ(mstate(d).active, 0);
	/* The radio off: the dialer turns it on and registers. */
	len = ch39x_mbim_u32_build(b, sizeof(b), CH39X_MBIM_RADIO_OFF);
	CHECK_EQ(ch39x_mbim_ctl_command(&c, CH39X_MBIM_CID_RADIO_STATE,
					CH39X_MBIM_SET, b, len, b, sizeof(b),
					&len, &status, CMD_MS), 0);
	CHECK_EQ(status, 0);
	CHECK_EQ(mstate(d).register_state, CH39X_MBIM_REGISTER_DEREGISTERED);
	strcpy(cfg.apn, "INTERNET");
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	CHECK_EQ(mstate(d).radio, CH39X_MBIM_RADIO_ON);
	CHECK_EQ(mstate(d).active, 1);
	/* A session past MaxSessions. */
	cfg.session = 4;
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), -EINVAL);
	CHECK(strstr(c.err, "MaxSessions") != NULL);
	ch39x_mbim_ctl_fini(&c);
	d->ops->close(d);
}

/* Network events as indications, and what the dialer makes of them. */
struct ind_log {
	unsigned int n;
	uint32_t cid[16];
	const struct ch39x_mbim_dial_cfg *cfg;
	struct ch39x_mbim_dial_state *st;	/* fed when not NULL */
	unsigned int changes;			/* up <-> down */
};

static void
log_ind(void *arg, const struct ch39x_mbim_msg *m)
{
	struct ind_log *l = arg;

	if (l->n < 16)
		l->cid[l->n++] = m->cid;
	if (l->st != NULL && ch39x_mbim_dial_indication(l->cfg, l->st, m))
		l->changes++;
}

static void
test_indications(void)
{
	struct ch39x_usb_dev *d = open_modem(NULL, 0, 30, NULL);
	struct ch39x_mbim_dial_cfg cfg = dial_cfg("");
	struct ch39x_mbim_dial_state st;
	struct ch39x_mbim_ctl c;
	struct ind_log log;

	if (!d) {
		CHECK(0);
		return;
	}
	CHECK_EQ(ch39x_mbim_ctl_init(&c, d, 0, 4096), 0);
	CHECK_EQ(ch39x_mbim_ctl_open(&c, CMD_MS), 0);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	memset(&log, 0, sizeof(log));
	log.cfg = &cfg;
	log.st = &st;
	c.on_indicate = log_ind;
	c.arg = &log;
	notifications(d);

	/* The network drops session 0: a CONNECT indication, link down. */
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_DROP_SESSION, 0), 0);
	CHECK_EQ(notifications(d), 1);
	CHECK_EQ(ch39x_mbim_ctl_pump(&c), 1);
	CHECK_EQ(log.n, 1);
	CHECK_EQ(log.cid[0], CH39X_MBIM_CID_CONNECT);
	CHECK_EQ(log.changes, 1);
	CHECK(!ch39x_mbim_dial_up(&st));
	CHECK_EQ(st.activation, CH39X_MBIM_DEACTIVATED);
	CHECK_EQ(mstate(d).active, 0);
	/* A session the port does not use changes nothing. */
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_DROP_SESSION, 3), 0);
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_DROP_SESSION, 4), -1);

	/* Redial (the dialer chains to this handler), then signal, loss. */
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	CHECK(ch39x_mbim_dial_up(&st));
	log.n = 0;
	log.changes = 0;
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_SIGNAL, 7), 0);
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_SIGNAL, 40), -1);
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_LOSE_NETWORK, 0), 0);
	CHECK_EQ(ch39x_mbim_ctl_pump(&c), 4);
	/* Signal, CONNECT (session 0 down), PACKET_SERVICE, REGISTER. */
	CHECK_EQ(log.n, 4);
	CHECK_EQ(log.cid[0], CH39X_MBIM_CID_SIGNAL_STATE);
	CHECK_EQ(log.cid[1], CH39X_MBIM_CID_CONNECT);
	CHECK_EQ(log.cid[2], CH39X_MBIM_CID_PACKET_SERVICE);
	CHECK_EQ(log.cid[3], CH39X_MBIM_CID_REGISTER_STATE);
	CHECK_EQ(st.rssi, 7);
	CHECK_EQ(st.register_state, CH39X_MBIM_REGISTER_DEREGISTERED);
	CHECK_EQ(st.packet_state, CH39X_MBIM_PACKET_DETACHED);
	CHECK_EQ(log.changes, 1);
	/* No network: the dialer gives up after its wait, naming it. */
	cfg.register_timeout_ms = 100;
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), -ETIMEDOUT);
	CHECK(strstr(c.err, "not registered") != NULL);
	/* Coverage back: registered after the search, dial works. */
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_FIND_NETWORK, 0), 0);
	cfg.register_timeout_ms = 5000;
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	CHECK(ch39x_mbim_dial_up(&st));
	ch39x_mbim_ctl_fini(&c);
	d->ops->close(d);
}

/*
 * The caller's lock is held around each control transfer and free
 * between them; a cancel ends a dial waiting for the network at once.
 */
static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct lock_probe {
	pthread_mutex_t lock;
	bool cancel;
	bool stop;
	uint64_t taken;		/* times the prober got the lock */
};

static void *
lock_prober(void *arg)
{
	struct lock_probe *p = arg;
	struct timespec ts = { 0, 1000000 };

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&p->lock);
		p->taken++;
		pthread_mutex_unlock(&p->lock);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *
canceller(void *arg)
{
	struct lock_probe *p = arg;
	struct timespec ts = { 0, 200000000 };

	nanosleep(&ts, NULL);
	__atomic_store_n(&p->cancel, true, __ATOMIC_RELEASE);
	return NULL;
}

static void
test_lock_cancel(void)
{
	/* A network that takes 60 s to find. */
	struct ch39x_usb_dev *d = open_modem(NULL, 0, 60000, NULL);
	struct ch39x_mbim_dial_cfg cfg = dial_cfg("");
	struct ch39x_mbim_dial_state st;
	struct ch39x_mbim_ctl c;
	struct lock_probe p;
	pthread_t t1, t2;
	uint64_t t0;

	if (!d) {
		CHECK(0);
		return;
	}
	memset(&p, 0, sizeof(p));
	pthread_mutex_init(&p.lock, NULL);
	CHECK_EQ(ch39x_mbim_ctl_init(&c, d, 0, 4096), 0);
	c.lock = &p.lock;
	c.cancel = &p.cancel;
	CHECK_EQ(ch39x_mbim_ctl_open(&c, CMD_MS), 0);
	cfg.register_timeout_ms = 60000;
	memset(&st, 0, sizeof(st));
	CHECK_EQ(pthread_create(&t1, NULL, lock_prober, &p), 0);
	CHECK_EQ(pthread_create(&t2, NULL, canceller, &p), 0);
	t0 = mono_ms();
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), -ECANCELED);
	/* Well before the network: the cancel came after 200 ms. */
	CHECK(mono_ms() - t0 < 5000);
	CHECK(strstr(c.err, "cancelled") != NULL);
	CHECK_EQ(st.register_state, CH39X_MBIM_REGISTER_SEARCHING);
	__atomic_store_n(&p.stop, true, __ATOMIC_RELEASE);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	/* The prober got the lock while the dial waited. */
	CHECK(p.taken > 10);
	/* A cancelled client stays usable once the flag is down. */
	p.cancel = false;
	CHECK_EQ(ch39x_mbim_ctl_close(&c, CMD_MS), 0);
	ch39x_mbim_ctl_fini(&c);
	pthread_mutex_destroy(&p.lock);
	d->ops->close(d);
}

/* ---- The data path ---- */

static const uint8_t host_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x39, 0x01 };

struct xbuf {
	struct ch39x_xfer x;
	uint8_t b[32768];
};

static struct xbuf xin, xout;

/* One bulk OUT transfer of len bytes of xout.b, completed OK. */
static void
bulk_out(struct ch39x_usb_dev *d, uint32_t len)
{
	struct ch39x_xfer *done[1];

	memset(&xout.x, 0, sizeof(xout.x));
	xout.x.ep = CH39X_EP_BULK_OUT;
	xout.x.buf = xout.b;
	xout.x.len = len;
	CHECK_EQ(d->ops->submit(d, &xout.x), 0);
	CHECK_EQ(d->ops->poll(d, CH39X_EP_BULK_OUT, done, 1), 1);
	CHECK_EQ(xout.x.status, CH39X_XFER_OK);
}

/* One bulk IN transfer: its length, 0 when nothing came. */
static uint32_t
bulk_in(struct ch39x_usb_dev *d)
{
	struct ch39x_xfer *done[1];
	uint32_t got = 0;

	memset(&xin.x, 0, sizeof(xin.x));
	xin.x.ep = CH39X_EP_BULK_IN;
	xin.x.buf = xin.b;
	xin.x.len = sizeof(xin.b);
	CHECK_EQ(d->ops->submit(d, &xin.x), 0);
	if (d->ops->poll(d, CH39X_EP_BULK_IN, done, 1) == 1) {
		CHECK_EQ(xin.x.status, CH39X_XFER_OK);
		got = xin.x.actual;
	} else {
		d->ops->cancel_all(d, CH39X_EP_BULK_IN);
		d->ops->poll(d, CH39X_EP_BULK_IN, done, 1);
	}
	return got;
}

/* An NTB16 of one datagram: IPS session (ips) or NCM0, into xout.b. */
static uint32_t
ntb_one(bool ips, uint8_t session, const uint8_t *dg, uint32_t len)
{
	struct ch39x_ncm_tx_cfg c;
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;

	memset(&c, 0, sizeof(c));
	c.dev_max_size = 16384;
	c.divisor = 4;
	c.ndp_align = 4;
	c.maxp = 512;
	c.ips = ips;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	ch39x_ncm_tx_begin(&t, xout.b);
	if (ips) {
		CHECK_EQ(ch39x_ncm_tx_check_ips(&t, len, session),
			 CH39X_NCM_FIT_OK);
		memcpy(ch39x_ncm_tx_add_ips(&t, len, session), dg, len);
	} else {
		CHECK_EQ(ch39x_ncm_tx_check(&t, len), CH39X_NCM_FIT_OK);
		memcpy(ch39x_ncm_tx_add(&t, len), dg, len);
	}
	e = ch39x_ncm_tx_finish(&t);
	return e.len;
}

/* The datagrams of the NTB16 in xin.b (ips: IPS NDPs). */
static unsigned int
ntb_parse(bool ips, uint32_t len, struct ch39x_ncm_dgram *out,
	  unsigned int max)
{
	struct ch39x_ncm_rx_cfg c = { .ips = ips, .min_dgram = 1 };
	struct ch39x_ncm_rx rx;
	unsigned int n = 0;

	ch39x_ncm_rx_init(&rx, &c);
	if (ch39x_ncm_rx_begin(&rx, xin.b, len) != 0)
		return 0;
	while (n < max && ch39x_ncm_rx_next(&rx, &out[n]) == 1)
		n++;
	return n;
}

/* An IPv4/UDP packet from src to dst with n bytes of payload. */
static uint32_t
udp4(uint8_t *p, const uint8_t src[4], const uint8_t dst[4], uint32_t n)
{
	struct ch39x_hdrs h;
	uint8_t f[2048];
	uint32_t i, len = 28 + n;

	memset(f, 0, CH39X_ETH_HLEN);
	f[12] = 0x08;
	p = p ? p : f;
	memset(f + 14, 0, len);
	f[14] = 0x45;
	f[16] = (uint8_t)(len >> 8);
	f[17] = (uint8_t)len;
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, src, 4);
	memcpy(f + 30, dst, 4);
	f[34] = 0x9c;
	f[35] = 0x40;
	f[36] = 0x00;
	f[37] = 0x35;
	f[38] = (uint8_t)((8 + n) >> 8);
	f[39] = (uint8_t)(8 + n);
	for (i = 0; i < n; i++)
		f[42 + i] = (uint8_t)(i * 7 + 3);
	CHECK_EQ(ch39x_parse_hdrs(f, CH39X_ETH_HLEN + len, &h), 0);
	ch39x_ip4_csum_set(f, &h);
	ch39x_l4_csum_set(f, &h);
	memcpy(p, f + CH39X_ETH_HLEN, len);
	return len;
}

static void
test_data(void)
{
	static const uint8_t ue[4] = { 100, 64, 39, 2 };
	static const uint8_t inet[4] = { 198, 51, 100, 1 };
	struct ch39x_mbim_dial_cfg cfg = dial_cfg("");
	struct ch39x_usb_dev *d, *n;
	struct ch39x_mbim_dial_state st;
	struct ch39x_sim_mbim_state ms;
	struct ch39x_ncm_dgram dg[8];
	struct ch39x_usb_info info;
	struct ch39x_mbim_ctl c;
	struct ch39x_arp arp;
	struct ch39x_nd nd;
	uint8_t pkt[2048], fr[2048], modem_mac[6];
	uint32_t len, k, got, dl;
	unsigned int nd_n;

	d = open_modem("mbim-data", 0, 0, NULL);
	n = open_ncm("mbim-data", host_mac);
	if (!d || !n) {
		CHECK(0);
		return;
	}
	CHECK_EQ(d->ops->get_info(d, &info), 0);
	/* The modem's cable address: the simulated factory address. */
	CHECK_EQ(ch39x_mbim_ctl_init(&c, d, 0, 4096), 0);
	CHECK_EQ(ch39x_mbim_ctl_open(&c, CMD_MS), 0);
	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_mbim_dial(&c, &cfg, &st), 0);
	CHECK_EQ(d->ops->set_data_alt(d, 1), 0);
	CHECK_EQ(n->ops->set_data_alt(n, 1), 0);

	/*
	 * The activation's unsolicited RA comes first: session 0, from
	 * fe80::1, the /64 of §24.
	 */
	got = bulk_in(d);
	CHECK(got > 0);
	nd_n = ntb_parse(true, got, dg, 8);
	CHECK_EQ(nd_n, 1);
	CHECK_EQ(dg[0].session, 0);
	CHECK_EQ(ch39x_nd_parse(dg[0].data, dg[0].len, &nd), 0);
	CHECK_EQ(nd.type, CH39X_ND_RA);
	CHECK(nd.have_prefix && nd.prefix_len == 64);
	CHECK_MEM(nd.prefix, BYTES(0x20, 0x01, 0x0d, 0xb8, 0, 0x39), 6);
	CHECK_EQ(nd.mtu, 1500);
	CHECK(!nd.have_lla);

	/*
	 * Uplink: a UDP packet of the session goes out on the cable. The far
	 * end is unknown yet: an ARP request for the gateway 198.51.100.1,
	 * then the packet to the broadcast address.
	 */
	len = udp4(pkt, ue, inet, 100);
	bulk_out(d, ntb_one(true, 0, pkt, len));
	got = bulk_in(n);
	nd_n = ntb_parse(false, got, dg, 8);
	CHECK_EQ(nd_n, 2);
	CHECK_EQ(ch39x_arp_parse(dg[0].data + 14, dg[0].len - 14, &arp), 0);
	CHECK_EQ(arp.op, CH39X_ARP_REQUEST);
	CHECK_MEM(arp.spa, BYTES(198, 51, 100, 2), 4);
	CHECK_MEM(arp.tpa, inet, 4);
	memcpy(modem_mac, arp.sha, 6);
	CHECK_MEM(dg[1].data, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 6);
	CHECK_MEM(dg[1].data + 6, modem_mac, 6);
	CHECK_MEM(dg[1].data + 12, BYTES(0x08, 0x00), 2);
	CHECK_EQ(dg[1].len, 14 + len);
	CHECK_MEM(dg[1].data + 14, pkt, len);

	/* The far end answers the ARP: later packets go to it. */
	memset(&arp, 0, sizeof(arp));
	arp.op = CH39X_ARP_REPLY;
	memcpy(arp.sha, host_mac, 6);
	memcpy(arp.spa, inet, 4);
	memcpy(arp.tha, modem_mac, 6);
	memcpy(arp.tpa, BYTES(198, 51, 100, 2), 4);
	k = ch39x_arp_build(fr, sizeof(fr), modem_mac, &arp);
	bulk_out(n, ntb_one(false, 0, fr, k));
	CHECK_EQ(bulk_in(d), 0);	/* taken by the modem, not the host */
	bulk_out(d, ntb_one(true, 0, pkt, len));
	got = bulk_in(n);
	CHECK_EQ(ntb_parse(false, got, dg, 8), 1);
	CHECK_MEM(dg[0].data, host_mac, 6);

	/* The far end asks for the UE's address: the modem answers. */
	memset(&arp, 0, sizeof(arp));
	arp.op = CH39X_ARP_REQUEST;
	memcpy(arp.sha, host_mac, 6);
	memcpy(arp.spa, inet, 4);
	memcpy(arp.tpa, ue, 4);
	k = ch39x_arp_build(fr, sizeof(fr),
			    BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff), &arp);
	bulk_out(n, ntb_one(false, 0, fr, k));
	CHECK_EQ(bulk_in(d), 0);
	got = bulk_in(n);
	CHECK_EQ(ntb_parse(false, got, dg, 8), 1);
	CHECK_EQ(ch39x_arp_parse(dg[0].data + 14, dg[0].len - 14, &arp), 0);
	CHECK_EQ(arp.op, CH39X_ARP_REPLY);
	CHECK_MEM(arp.sha, modem_mac, 6);
	CHECK_MEM(arp.spa, ue, 4);

	/* Downlink: a packet for the UE arrives in session 0, unchanged. */
	dl = udp4(pkt, inet, ue, 333);
	memcpy(fr, modem_mac, 6);
	memcpy(fr + 6, host_mac, 6);
	fr[12] = 0x08;
	fr[13] = 0x00;
	memcpy(fr + 14, pkt, dl);
	bulk_out(n, ntb_one(false, 0, fr, 14 + dl));
	got = bulk_in(d);
	CHECK_EQ(ntb_parse(true, got, dg, 8), 1);
	CHECK_EQ(dg[0].session, 0);
	CHECK_EQ(dg[0].len, dl);
	CHECK_MEM(dg[0].data, pkt, dl);
	/* For an address of no session: dropped. */
	fr[14 + 19] = 9;
	bulk_out(n, ntb_one(false, 0, fr, 14 + dl));
	CHECK_EQ(bulk_in(d), 0);

	/* Uplink from a source the session was not given: dropped. */
	len = udp4(pkt, BYTES(10, 0, 0, 1), inet, 20);
	bulk_out(d, ntb_one(true, 0, pkt, len));
	/* On session 2, never activated: dropped. */
	len = udp4(pkt, ue, inet, 20);
	bulk_out(d, ntb_one(true, 2, pkt, len));
	CHECK_EQ(bulk_in(n), 0);

	/* A router solicitation from the host: an RA in session 0. */
	memset(pkt, 0, 48);
	pkt[0] = 0x60;
	pkt[5] = 8;
	pkt[6] = CH39X_IPPROTO_ICMPV6;
	pkt[7] = 255;
	memcpy(pkt + 8, BYTES(0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 2), 16);
	memcpy(pkt + 24, BYTES(0xff, 0x02, 0, 0, 0, 0, 0, 0,
			       0, 0, 0, 0, 0, 0, 0, 2), 16);
	pkt[40] = CH39X_ND_RS;
	k = ch39x_icmp6_csum(pkt, 8);
	pkt[42] = (uint8_t)(k >> 8);
	pkt[43] = (uint8_t)k;
	bulk_out(d, ntb_one(true, 0, pkt, 48));
	got = bulk_in(d);
	CHECK_EQ(ntb_parse(true, got, dg, 8), 1);
	CHECK_EQ(ch39x_nd_parse(dg[0].data, dg[0].len, &nd), 0);
	CHECK_EQ(nd.type, CH39X_ND_RA);
	CHECK_EQ(bulk_in(n), 0);	/* not on the cable */

	ms = mstate(d);
	CHECK_EQ(ms.up_packets, 2);
	CHECK_EQ(ms.up_dropped, 2);
	CHECK_EQ(ms.down_packets, 1);
	CHECK_EQ(ms.down_dropped, 1);
	CHECK_EQ(ms.local_packets, 2);
	CHECK_EQ(ms.wire_answers, 1);

	/* The session goes down: its traffic stops both ways. */
	CHECK_EQ(ch39x_sim_mbim_event(d, CH39X_SIM_MBIM_DROP_SESSION, 0), 0);
	len = udp4(pkt, ue, inet, 20);
	bulk_out(d, ntb_one(true, 0, pkt, len));
	CHECK_EQ(bulk_in(n), 0);
	fr[14 + 19] = 2;
	bulk_out(n, ntb_one(false, 0, fr, 14 + dl));
	CHECK_EQ(bulk_in(d), 0);
	ms = mstate(d);
	CHECK_EQ(ms.up_dropped, 3);
	CHECK_EQ(ms.down_dropped, 2);

	ch39x_mbim_ctl_fini(&c);
	n->ops->close(n);
	d->ops->close(d);
}

int
main(void)
{
	static const struct check_case cases[] = {
		{ "descs_raw", test_descs_raw },
		{ "dial", test_dial },
		{ "fragments", test_fragments },
		{ "refusals", test_refusals },
		{ "indications", test_indications },
		{ "lock_cancel", test_lock_cancel },
		{ "data", test_data },
	};

	return check_run("test_sim_mbim", cases,
			 sizeof(cases) / sizeof(cases[0]));
}
