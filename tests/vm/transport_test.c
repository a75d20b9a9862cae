/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb transport against real Linux USB gadgets (f_ncm, f_ecm on
 * dummy_hcd, in the VM that tests/vm/run.sh boots). Everything goes
 * through ch39x_libusb_open and the transport ops, with the library's own
 * codecs doing the framing, as the PMD will:
 * selection by vid:pid, path, serial and class, and the errors that list
 * what was found; descriptors and the MAC string read over EP0; NCM
 * GET_NTB_PARAMETERS; the data alt setting; notifications on the
 * interrupt endpoint; ARP and ICMP echo with the gadget's kernel over bulk
 * OUT/IN; transfers that are exact multiples of wMaxPacketSize (ZLP);
 * real stalls (SET_FEATURE(ENDPOINT_HALT)) and clear_halt; cancel_all;
 * the usbfs memory cap; RX, TX and interrupt endpoints polled from three
 * threads; the configuration switch of a two-configuration gadget.
 *
 * Usage: transport_test --speed high|super --results FILE
 *          --gadget NAME,VID:PID,SERIAL,PATH,PROTO,GADGET_IP,HOST_IP,HOST_MAC
 *          ... [--vendor NAME,VID:PID,SERIAL,PATH] [--bursts N]
 * PROTO is ncm or ecm; two gadgets may share a device (VID:PID and path)
 * with different PROTOs: an opening switches configuration when needed,
 * and close switches back (kernel_driver=restore).
 * Prints "PASS name: detail" / "FAIL name: detail" lines (also to FILE);
 * exits 1 when any failed.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "ch39x_cdc.h"
#include "ch39x_ecm.h"
#include "ch39x_libusb.h"
#include "ch39x_ncm.h"
#include "ch39x_net.h"
#include "ch39x_vendor.h"

#define MAX_GADGETS	8
#define N_RX		4
#define N_TX		4
#define N_INTR		2
#define ECM_RX_SIZE	2048
#define NCM_RX_SIZE	16384
#define ICMP_ID		0x3939
#define BURST_PINGS	100
#define USBFS_MB	"/sys/module/usbcore/parameters/usbfs_memory_mb"

struct gadget {
	char name[32];
	uint16_t vid;
	uint16_t pid;
	char serial[64];
	char path[CH39X_LIBUSB_PATH_MAX];
	unsigned int proto;
	uint8_t gip[4];
	uint8_t hip[4];
	uint8_t hmac[6];
};

static struct gadget gadgets[MAX_GADGETS];
static int n_gadgets;
static const char *want_speed = "high";
/* --bursts N: the threaded burst N times per function (flakes' hunting) */
static unsigned int n_bursts = 1;
static FILE *results;
static int n_pass, n_fail;
static uint64_t t_start;

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void
pause_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000L };

	nanosleep(&ts, NULL);
}

static void
result(bool ok, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
result(bool ok, const char *name, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (ok)
		n_pass++;
	else
		n_fail++;
	printf("%s %s: %s [t=%.2fs]\n", ok ? "PASS" : "FAIL", name, detail,
	       (double)(now_ms() - t_start) / 1000.0);
	if (results != NULL) {
		fprintf(results, "%s %s: %s\n", ok ? "PASS" : "FAIL", name,
			detail);
		fflush(results);
	}
	fflush(stdout);
}

/*
 * Messages the backend logs at run time: problems kept for the memory-cap
 * test, hand-overs with the kernel counted for the vendor gadget's.
 */
static char last_log[512];
static unsigned int n_log_taken, n_log_restored, n_log_kept;

static void
log_cb(void *arg, const char *msg)
{
	(void)arg;
	printf("  [backend] %s\n", msg);
	if (strstr(msg, "taken from kernel driver") != NULL)
		n_log_taken++;
	else if (strstr(msg, "restored (the backend had switched") != NULL)
		n_log_restored++;
	else if (strstr(msg, "kernel_driver=keep: left in configuration"))
		n_log_kept++;
	else if (strstr(msg, "switched from configuration") == NULL &&
		 strstr(msg, "given back to kernel driver") == NULL)
		snprintf(last_log, sizeof(last_log), "%s", msg);
}

/* An attribute of a USB device in sysfs as a number; -1 when unreadable. */
static int
sysfs_attr(const char *path, const char *attr)
{
	char p[256];
	FILE *f;
	int v = -1;

	snprintf(p, sizeof(p), "/sys/bus/usb/devices/%s/%s", path, attr);
	f = fopen(p, "r");
	if (f == NULL)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static void
sel_init(struct ch39x_libusb_sel *s)
{
	memset(s, 0, sizeof(*s));
	s->log = log_cb;
}

/* ---- frames ---- */

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static uint32_t
build_arp(uint8_t *f, const uint8_t smac[6], const uint8_t sip[4],
	  const uint8_t dmac[6], const uint8_t tip[4], uint16_t op)
{
	memcpy(f, op == 1 ? bcast : dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x06;
	f[14] = 0x00; f[15] = 0x01;	/* Ethernet */
	f[16] = 0x08; f[17] = 0x00;	/* IPv4 */
	f[18] = 6; f[19] = 4;
	f[20] = 0; f[21] = (uint8_t)op;
	memcpy(f + 22, smac, 6);
	memcpy(f + 28, sip, 4);
	memcpy(f + 32, op == 1 ? (const uint8_t *)"\0\0\0\0\0\0" : dmac, 6);
	memcpy(f + 38, tip, 4);
	return 42;
}

static uint32_t
build_echo(uint8_t *f, const uint8_t smac[6], const uint8_t dmac[6],
	   const uint8_t sip[4], const uint8_t dip[4], uint16_t seq,
	   uint32_t payload)
{
	struct ch39x_hdrs h;
	uint32_t i, ip_len = 20 + 8 + payload;
	uint8_t *ip = f + 14, *icmp = f + 34;

	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = (uint8_t)(ip_len >> 8);
	ip[3] = (uint8_t)ip_len;
	ip[4] = (uint8_t)(seq >> 8);
	ip[5] = (uint8_t)seq;
	ip[8] = 64;
	ip[9] = 1;	/* ICMP */
	memcpy(ip + 12, sip, 4);
	memcpy(ip + 16, dip, 4);
	icmp[0] = 8;	/* echo request */
	icmp[1] = 0;
	icmp[2] = icmp[3] = 0;
	icmp[4] = ICMP_ID >> 8;
	icmp[5] = ICMP_ID & 0xff;
	icmp[6] = (uint8_t)(seq >> 8);
	icmp[7] = (uint8_t)seq;
	for (i = 0; i < payload; i++)
		icmp[8 + i] = (uint8_t)(i * 7 + seq);
	i = (uint16_t)~ch39x_csum_fold(ch39x_csum_add(0, icmp, 8 + payload));
	icmp[2] = (uint8_t)(i >> 8);
	icmp[3] = (uint8_t)i;
	if (ch39x_parse_hdrs(f, 14 + ip_len, &h) == 0)
		ch39x_ip4_csum_set(f, &h);
	return 14 + ip_len;
}

/* ---- one opened CDC function ---- */

struct fn {
	const struct gadget *g;
	struct ch39x_usb_dev *d;
	const struct ch39x_usb_ops *ops;
	struct ch39x_usb_info info;
	struct ch39x_cdc_desc cdc;
	bool ncm;
	char tag[48];
	/* Framing. */
	struct ch39x_ncm_ntb_params np;
	struct ch39x_ncm_tx_cfg ncfg;
	struct ch39x_ncm_tx ntx;
	struct ch39x_ncm_rx nrx;
	struct ch39x_ecm_cfg ecfg;
	struct ch39x_ecm_rx_stats est;
	/* Transfers. */
	struct ch39x_xfer rx[N_RX];
	struct ch39x_xfer tx[N_TX];
	struct ch39x_xfer intr[N_INTR];
	uint32_t rx_size;
	uint32_t tx_size;
	struct ch39x_cdc_notify_parser np_parser;
	/* What was seen. */
	uint8_t gmac[6];
	bool have_gmac;
	bool link_up;
	uint32_t n_notify;
	uint32_t n_conn;
	uint32_t n_speed;
	uint32_t down_bps;
	char notify_seq[256];
	uint32_t arp_answered;
	uint32_t rx_xfers;
	uint32_t last_rx_actual;
	uint32_t stalls_seen;
	bool no_end_mark;	/* ECM: send multiples bare (test only) */
	uint32_t intr_polled;	/* interrupt transfers pump_intr took */
	uint32_t intr_hooked;	/* intr_hook calls */
};

/* ch39x_usb_ops.intr_hook: called as libusb reaps an interrupt transfer. */
static void
count_intr(void *arg)
{
	struct fn *f = arg;

	__atomic_fetch_add(&f->intr_hooked, 1, __ATOMIC_RELAXED);
}

static const char *
status_name(enum ch39x_xfer_status s)
{
	static const char *n[] = { "OK", "ERROR", "STALL", "TIMEOUT",
				   "OVERFLOW", "CANCELLED", "NO_DEVICE" };

	return (unsigned int)s < 7 ? n[s] : "?";
}

static void
record_notify(struct fn *f, const uint8_t *buf, uint32_t len)
{
	struct ch39x_cdc_notify n;
	size_t off = strlen(f->notify_seq);

	ch39x_cdc_notify_begin(&f->np_parser, buf, len);
	while (ch39x_cdc_notify_next(&f->np_parser, &n) == 1) {
		f->n_notify++;
		if (n.code == CH39X_CDC_NOTIFY_NETWORK_CONNECTION) {
			f->n_conn++;
			f->link_up = n.link_up;
			off += (size_t)snprintf(f->notify_seq + off,
				sizeof(f->notify_seq) - off, "%sCONNECTION(%d)",
				off ? "," : "", n.link_up);
		} else if (n.code == CH39X_CDC_NOTIFY_SPEED_CHANGE) {
			f->n_speed++;
			f->down_bps = n.down_bps;
			off += (size_t)snprintf(f->notify_seq + off,
				sizeof(f->notify_seq) - off,
				"%sSPEED_CHANGE(%u/%u)", off ? "," : "",
				n.down_bps, n.up_bps);
		} else {
			off += (size_t)snprintf(f->notify_seq + off,
				sizeof(f->notify_seq) - off, "%s0x%02x",
				off ? "," : "", n.code);
		}
		if (off >= sizeof(f->notify_seq))
			off = sizeof(f->notify_seq) - 1;
	}
}

/* Reap interrupt transfers and resubmit them (control thread). */
static void
pump_intr(struct fn *f)
{
	struct ch39x_xfer *x;

	while (f->ops->poll(f->d, CH39X_EP_INTR_IN, &x, 1) == 1) {
		f->intr_polled++;
		if (x->status == CH39X_XFER_OK)
			record_notify(f, x->buf, x->actual);
		if (x->status == CH39X_XFER_OK)
			f->ops->submit(f->d, x);
	}
}

typedef bool (*frame_fn)(struct fn *f, const uint8_t *fr, uint32_t len,
			 void *arg);

/* One frame into the first TX transfer, through the codec. */
static int
tx_prepare(struct fn *f, const uint8_t *fr, uint32_t len, bool zlp_mode)
{
	struct ch39x_xfer *x = &f->tx[0];

	if (f->ncm) {
		struct ch39x_ncm_tx_end end;
		struct ch39x_ncm_tx *t = &f->ntx;
		uint8_t *p;

		t->zlp = zlp_mode;
		ch39x_ncm_tx_begin(t, x->buf);
		if (ch39x_ncm_tx_check(t, len) != CH39X_NCM_FIT_OK)
			return -E2BIG;
		p = ch39x_ncm_tx_add(t, len);
		memcpy(p, fr, len);
		end = ch39x_ncm_tx_finish(t);
		x->len = end.len;
		x->zlp = end.zlp;
	} else {
		struct ch39x_ecm_tx_end end;

		f->ecfg.zlp = zlp_mode;
		memcpy(x->buf, fr, len);
		end = ch39x_ecm_tx_finish(&f->ecfg, x->buf, len);
		x->len = end.len;
		x->zlp = end.zlp;
		if (f->no_end_mark) {
			/* The negative control: neither ZLP nor pad byte. */
			x->len = len;
			x->zlp = false;
		}
	}
	return 0;
}

/* Send one frame on bulk OUT through the codec and wait for it to go. */
static int
send_frame(struct fn *f, const uint8_t *fr, uint32_t len, bool zlp_mode,
	   uint32_t *xfer_len, bool *xfer_zlp)
{
	struct ch39x_xfer *x = &f->tx[0], *done;
	uint64_t deadline;
	int r;

	r = tx_prepare(f, fr, len, zlp_mode);
	if (r != 0)
		return r;
	if (xfer_len)
		*xfer_len = x->len;
	if (xfer_zlp)
		*xfer_zlp = x->zlp;
	r = f->ops->submit(f->d, x);
	if (r != 0)
		return r;
	deadline = now_ms() + 2000;
	while (now_ms() < deadline) {
		if (f->ops->poll(f->d, CH39X_EP_BULK_OUT, &done, 1) == 1)
			return done->status == CH39X_XFER_OK ? 0 :
				-(int)(100 + done->status);
		pause_us(200);
	}
	f->ops->cancel_all(f->d, CH39X_EP_BULK_OUT);
	deadline = now_ms() + 1000;
	while (x->in_flight && now_ms() < deadline)
		f->ops->poll(f->d, CH39X_EP_BULK_OUT, &done, 1);
	return -ETIMEDOUT;
}

/* Frames of one completed bulk IN transfer, through the codec. */
static bool
deliver(struct fn *f, struct ch39x_xfer *x, frame_fn cb, void *arg)
{
	struct ch39x_ncm_dgram dg;
	uint32_t flen;
	bool hit = false;

	f->rx_xfers++;
	f->last_rx_actual = x->actual;
	if (f->ncm) {
		if (ch39x_ncm_rx_begin(&f->nrx, x->buf, x->actual) != 0)
			return false;
		while (ch39x_ncm_rx_next(&f->nrx, &dg) == 1)
			if (cb(f, dg.data, dg.len, arg))
				hit = true;
	} else if (ch39x_ecm_rx_check(&f->ecfg, &f->est, x->actual,
				      &flen) == 1) {
		hit = cb(f, x->buf, flen, arg);
	}
	return hit;
}

/* Answer the gadget's ARP requests for our address (it may ask). */
static bool
maybe_answer_arp(struct fn *f, const uint8_t *fr, uint32_t len)
{
	uint8_t reply[64];

	if (len < 42 || fr[12] != 0x08 || fr[13] != 0x06 || fr[21] != 1 ||
	    memcmp(fr + 38, f->g->hip, 4) != 0)
		return false;
	build_arp(reply, f->g->hmac, f->g->hip, fr + 22, fr + 28, 2);
	if (send_frame(f, reply, 42, false, NULL, NULL) == 0)
		f->arp_answered++;
	return true;
}

/*
 * Poll bulk IN (and the interrupt endpoint) until cb accepts a frame or
 * timeout_ms pass; resubmits every IN transfer that completes normally.
 */
static bool
wait_frame(struct fn *f, unsigned int timeout_ms, frame_fn cb, void *arg)
{
	uint64_t deadline = now_ms() + timeout_ms;
	struct ch39x_xfer *done[N_RX];
	unsigned int n, i;
	bool hit = false;

	while (!hit && now_ms() < deadline) {
		n = f->ops->poll(f->d, CH39X_EP_BULK_IN, done, N_RX);
		for (i = 0; i < n; i++) {
			if (done[i]->status == CH39X_XFER_OK &&
			    deliver(f, done[i], cb, arg))
				hit = true;
			if (done[i]->status == CH39X_XFER_STALL)
				f->stalls_seen++;
			if (done[i]->status == CH39X_XFER_OK)
				f->ops->submit(f->d, done[i]);
		}
		pump_intr(f);
		if (n == 0)
			pause_us(300);
	}
	return hit;
}

static bool
on_arp_reply(struct fn *f, const uint8_t *fr, uint32_t len, void *arg)
{
	(void)arg;
	if (maybe_answer_arp(f, fr, len))
		return false;
	if (len < 42 || fr[12] != 0x08 || fr[13] != 0x06 || fr[21] != 2 ||
	    memcmp(fr + 28, f->g->gip, 4) != 0)
		return false;
	memcpy(f->gmac, fr + 22, 6);
	f->have_gmac = true;
	return true;
}

struct echo_want {
	uint16_t seq;
	uint32_t payload;
	uint32_t frame_len;	/* seen */
	bool payload_ok;
};

static bool
is_echo_reply(const uint8_t *fr, uint32_t len, uint16_t *seq)
{
	if (len < 42 || fr[12] != 0x08 || fr[13] != 0x00 || fr[23] != 1 ||
	    fr[34] != 0 || fr[38] != (ICMP_ID >> 8) ||
	    fr[39] != (ICMP_ID & 0xff))
		return false;
	*seq = (uint16_t)(fr[40] << 8 | fr[41]);
	return true;
}

static bool
on_echo_reply(struct fn *f, const uint8_t *fr, uint32_t len, void *arg)
{
	struct echo_want *w = arg;
	uint16_t seq;
	uint32_t i;

	if (maybe_answer_arp(f, fr, len) || !is_echo_reply(fr, len, &seq) ||
	    seq != w->seq)
		return false;
	w->frame_len = len;
	w->payload_ok = len >= 42 + w->payload;
	for (i = 0; w->payload_ok && i < w->payload; i++)
		if (fr[42 + i] != (uint8_t)(i * 7 + seq))
			w->payload_ok = false;
	return true;
}

/*
 * Rx interrupts on real USB (the PMD's rx_queue_intr_enable/disable and
 * the queue's event fd): five echo round trips, each reply taken the way
 * l3fwd-power or ch39x-cpe takes frames when idle: arm, poll once (the
 * transport skips that poll's event round, rx_arm having just reaped),
 * sleep in epoll on rx_wake_fd, disarm, poll. A reply that completed
 * before the arming must make the descriptor readable at once, one that
 * completes during the sleep must end it; none may be lost.
 */
/* An edge-triggered epoll set holding the wake-up descriptor, or -1. */
static int
wake_epoll(struct fn *f)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int fd, ep = -1;

	fd = f->ops->rx_wake_fd != NULL ? f->ops->rx_wake_fd(f->d) : -ENOTSUP;
	if (fd >= 0)
		ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
		result(false, f->tag, "rx_wake_fd: %d, epoll %d", fd, ep);
		if (ep >= 0)
			close(ep);
		return -1;
	}
	return ep;
}

static void
test_rx_wake(struct fn *f, uint16_t *seq)
{
	struct epoll_event ev;
	struct ch39x_xfer *done[N_RX];
	unsigned int got = 0, wakes = 0, slept = 0, timeouts = 0, k, i, n;
	uint64_t t0, end;
	uint8_t fr[128];
	uint32_t len;
	int ep, ms;

	ep = wake_epoll(f);
	if (ep < 0)
		return;
	for (k = 0; k < 5; k++) {
		struct echo_want w = { .seq = *seq, .payload = 32 };
		bool hit = false;

		len = build_echo(fr, f->g->hmac, f->gmac, f->g->hip, f->g->gip,
				 (*seq)++, 32);
		if (send_frame(f, fr, len, false, NULL, NULL) != 0)
			break;
		end = now_ms() + 3000;
		while (!hit && now_ms() < end) {
			f->ops->rx_arm(f->d, true);
			n = f->ops->poll(f->d, CH39X_EP_BULK_IN, done, N_RX);
			if (n == 0) {
				t0 = now_ms();
				ms = end > t0 ? (int)(end - t0) : 0;
				if (epoll_wait(ep, &ev, 1, ms) == 1) {
					wakes++;
					slept += now_ms() > t0;
				} else {
					timeouts++;
				}
			}
			f->ops->rx_arm(f->d, false);
			if (n == 0)
				n = f->ops->poll(f->d, CH39X_EP_BULK_IN, done,
						 N_RX);
			for (i = 0; i < n; i++) {
				if (done[i]->status == CH39X_XFER_OK &&
				    deliver(f, done[i], on_echo_reply, &w))
					hit = true;
				if (done[i]->status == CH39X_XFER_OK)
					f->ops->submit(f->d, done[i]);
			}
			pump_intr(f);
		}
		got += hit && w.payload_ok;
	}
	close(ep);
	result(got == 5 && timeouts == 0, f->tag, "Rx wake-ups: %u of 5 echo "
	       "replies taken by arm, poll, epoll on rx_wake_fd, disarm, poll "
	       "(%u wake-ups, %u after a wait; %u waits ran out, 0 allowed)",
	       got, wakes, slept, timeouts);
}

/*
 * The reply finishes after the last poll and before the arming, and no
 * poll or arm reaps it: the backend, which skips its own reap at arming
 * when a bulk IN poll made one since the disarm, must still wake the
 * sleeper (the finished URB is an edge on the descriptor). Then collect:
 * bulk OUT's finished transfer only once a poll has reaped it.
 */
static void
test_rx_wake_late(struct fn *f, uint16_t *seq)
{
	struct echo_want w = { .seq = *seq, .payload = 32 };
	struct ch39x_xfer *done[N_RX], *out = NULL;
	unsigned int i, n, rp = 0, before = 0, after = 0;
	struct epoll_event ev;
	uint64_t t0, waited = 0;
	uint8_t fr[128];
	uint32_t len;
	int ep, woke = 0, r;

	if (f->ops->collect == NULL) {
		result(false, f->tag, "the libusb backend has no collect op");
		return;
	}
	ep = wake_epoll(f);
	if (ep < 0)
		return;
	/* A bulk IN poll since the disarm, as an application makes. */
	f->ops->rx_arm(f->d, false);
	while ((n = f->ops->poll(f->d, CH39X_EP_BULK_IN, done, N_RX)) != 0)
		for (i = 0; i < n; i++)
			if (done[i]->status == CH39X_XFER_OK)
				f->ops->submit(f->d, done[i]);
	len = build_echo(fr, f->g->hmac, f->gmac, f->g->hip, f->g->gip,
			 (*seq)++, 32);
	r = tx_prepare(f, fr, len, false);
	if (r == 0)
		r = f->ops->submit(f->d, &f->tx[0]);
	if (r == 0) {
		/* The request goes and the reply comes back: nobody reaps. */
		pause_us(300 * 1000);
		f->ops->rx_arm(f->d, true);
		rp = f->ops->poll(f->d, CH39X_EP_BULK_IN, done, N_RX);
		t0 = now_ms();
		if (rp == 0)
			woke = epoll_wait(ep, &ev, 1, 2000);
		waited = now_ms() - t0;
		f->ops->rx_arm(f->d, false);
		before = f->ops->collect(f->d, CH39X_EP_BULK_OUT, &out, 1);
		wait_frame(f, 3000, on_echo_reply, &w);
		after = f->ops->collect(f->d, CH39X_EP_BULK_OUT, &out, 1);
		/* Not collected: taken back here, for the tests after. */
		for (t0 = now_ms(); f->tx[0].in_flight && now_ms() < t0 + 2000;)
			f->ops->poll(f->d, CH39X_EP_BULK_OUT, &out, 1);
	}
	close(ep);
	result(r == 0 && rp == 0 && woke == 1 && waited < 500 && w.payload_ok,
	       f->tag, "Rx wake-up for a reply that finished before the "
	       "arming and was not reaped: epoll %d after %" PRIu64 " ms "
	       "(1 within 500 ms wanted; re-poll took %u), reply %s (submit "
	       "%d)", woke, waited, rp, w.payload_ok ? "taken" : "lost", r);
	result(r == 0 && before == 0 && after == 1 && out == &f->tx[0], f->tag,
	       "collect: bulk OUT's finished transfer %u before a poll "
	       "reaped it, %u after (0 and 1 wanted)", before, after);
}

/* One ICMP echo round trip; returns whether the right reply came. */
static bool
ping(struct fn *f, uint16_t seq, uint32_t payload, bool zlp_mode,
     uint32_t *xfer_len, bool *xfer_zlp, uint32_t *reply_len, int *send_rc)
{
	struct echo_want w = { .seq = seq, .payload = payload };
	uint8_t fr[1600];
	uint32_t len;
	int r;

	len = build_echo(fr, f->g->hmac, f->gmac, f->g->hip, f->g->gip, seq,
			 payload);
	r = send_frame(f, fr, len, zlp_mode, xfer_len, xfer_zlp);
	if (send_rc)
		*send_rc = r;
	if (r != 0)
		return false;
	if (!wait_frame(f, 3000, on_echo_reply, &w))
		return false;
	if (reply_len)
		*reply_len = w.frame_len;
	return w.payload_ok;
}

/*
 * The ready set spares empty event rounds: while nothing finishes, a bulk
 * IN poll after a round that completed nothing is one epoll_wait (no libusb
 * round: its poll of every descriptor and its clock read). A reply that
 * then finishes must still be reaped by the next poll.
 */
static void
test_ready_gate(struct fn *f, uint16_t *seq)
{
	struct ch39x_libusb_events e0, e1, e2;
	struct ch39x_xfer *done[N_RX];
	unsigned int i, n, taken = 0;
	bool ok;
	int r = 0;

	ch39x_libusb_event_stats(f->d, &e0);
	for (i = 0; i < 200; i++) {
		n = f->ops->poll(f->d, CH39X_EP_BULK_IN, done, N_RX);
		taken += n;
		while (n-- > 0)
			if (done[n]->status == CH39X_XFER_OK)
				f->ops->submit(f->d, done[n]);
		pause_us(1000);
	}
	ch39x_libusb_event_stats(f->d, &e1);
	ok = ping(f, (*seq)++, 56, false, NULL, NULL, NULL, &r);
	ch39x_libusb_event_stats(f->d, &e2);
	/*
	 * Each unsolicited frame costs one round and the round after it;
	 * one round in every 64 looks is made anyway (LU_SPARE_MAX).
	 */
	result(e1.spared - e0.spared >= 150 &&
	       e1.rounds - e0.rounds <= 5 + 2 * taken, f->tag,
	       "ready set, 200 bulk IN polls with nothing sent: %" PRIu64
	       " looks spared a libusb round, %" PRIu64 " rounds made, %u "
	       "unsolicited transfers (>= 150 spared, <= %u rounds wanted)",
	       e1.spared - e0.spared, e1.rounds - e0.rounds, taken,
	       5 + 2 * taken);
	result(ok && e2.rounds > e1.rounds && e2.completed > e1.completed,
	       f->tag, "ready set: the echo reply after them is reaped (%s; "
	       "%" PRIu64 " rounds, %" PRIu64 " completions; send rc=%d)",
	       ok ? "taken" : "lost", e2.rounds - e1.rounds,
	       e2.completed - e1.completed, r);
}

static int
submit_rx_all(struct fn *f)
{
	int i, r;

	for (i = 0; i < N_RX; i++) {
		if (f->rx[i].in_flight)
			continue;
		f->rx[i].len = f->rx_size;
		r = f->ops->submit(f->d, &f->rx[i]);
		if (r != 0)
			return r;
	}
	return 0;
}

/* Cancel an endpoint and wait until every transfer is back. */
static int
drain(struct fn *f, enum ch39x_ep ep, struct ch39x_xfer *xs, int n,
      unsigned int *cancelled, unsigned int *other)
{
	struct ch39x_xfer *done[8];
	uint64_t deadline = now_ms() + 2000;
	unsigned int k, j;
	int busy, i;

	f->ops->cancel_all(f->d, ep);
	do {
		k = f->ops->poll(f->d, ep, done, 8);
		for (j = 0; j < k; j++) {
			if (done[j]->status == CH39X_XFER_CANCELLED)
				(*cancelled)++;
			else
				(*other)++;
		}
		busy = 0;
		for (i = 0; i < n; i++)
			busy += xs[i].in_flight;
		if (busy && k == 0)
			pause_us(500);
	} while (busy && now_ms() < deadline);
	return busy;
}

static void
fn_free_bufs(struct fn *f)
{
	int i;

	for (i = 0; i < N_RX; i++)
		ch39x_libusb_buf_free(f->d, f->rx[i].buf);
	for (i = 0; i < N_TX; i++)
		ch39x_libusb_buf_free(f->d, f->tx[i].buf);
	for (i = 0; i < N_INTR; i++)
		ch39x_libusb_buf_free(f->d, f->intr[i].buf);
}

static bool
fn_alloc_bufs(struct fn *f)
{
	int i;

	for (i = 0; i < N_RX; i++) {
		f->rx[i].ep = CH39X_EP_BULK_IN;
		f->rx[i].buf = ch39x_libusb_buf_alloc(f->d, f->rx_size);
		f->rx[i].len = f->rx_size;
		if (f->rx[i].buf == NULL)
			return false;
	}
	for (i = 0; i < N_TX; i++) {
		f->tx[i].ep = CH39X_EP_BULK_OUT;
		f->tx[i].buf = ch39x_libusb_buf_alloc(f->d, f->tx_size);
		if (f->tx[i].buf == NULL)
			return false;
	}
	for (i = 0; i < N_INTR; i++) {
		f->intr[i].ep = CH39X_EP_INTR_IN;
		/* Exactly wMaxPacketSize, or notifications merge (FINDINGS). */
		f->intr[i].len = f->info.maxp[CH39X_EP_INTR_IN];
		f->intr[i].buf = ch39x_libusb_buf_alloc(f->d, f->intr[i].len);
		if (f->intr[i].buf == NULL)
			return false;
	}
	return true;
}

static int get_descriptor(struct fn *f, uint8_t type, uint8_t idx,
			  uint16_t lang, uint8_t *buf, uint16_t len);

/* ---- the threaded burst ---- */

struct burst {
	struct fn *f;
	volatile bool stop;
	uint32_t sent;
	uint32_t tx_errors;
	uint32_t replies;
	uint32_t rx_errors;
	uint32_t arp_requests;		/* the gadget asking for our address */
	uint32_t other_frames;
	uint64_t last_reply_ms;
	uint8_t seen[BURST_PINGS];
};

/*
 * What the gadget's side saw of a burst (its kernel runs in this guest):
 * the gadget netdev's counters (found by the gadget's address), the
 * kernel's ICMP echo counters and its neighbour entry for our address.
 */
struct gside {
	char ifname[IF_NAMESIZE];
	uint64_t rx_packets, tx_packets, rx_dropped, tx_dropped, rx_errors,
		 tx_errors;
	uint64_t in_echos, out_echo_reps;
	char arp[32];			/* flags of /proc/net/arp's line */
};

static uint64_t
read_u64(const char *path)
{
	unsigned long long v = 0;
	FILE *fp = fopen(path, "r");

	if (fp != NULL) {
		if (fscanf(fp, "%llu", &v) != 1)
			v = 0;
		fclose(fp);
	}
	return v;
}

/* Icmp: InEchos and OutEchoReps of /proc/net/snmp. */
static void
icmp_echo_counters(uint64_t *in_echos, uint64_t *out_reps)
{
	char names[1024], vals[1024], *sn, *sv, *n, *v;
	FILE *fp = fopen("/proc/net/snmp", "r");

	*in_echos = *out_reps = 0;
	if (fp == NULL)
		return;
	while (fgets(names, sizeof(names), fp) != NULL &&
	       fgets(vals, sizeof(vals), fp) != NULL) {
		if (strncmp(names, "Icmp:", 5) != 0)
			continue;
		n = strtok_r(names, " \n", &sn);
		v = strtok_r(vals, " \n", &sv);
		while ((n = strtok_r(NULL, " \n", &sn)) != NULL &&
		       (v = strtok_r(NULL, " \n", &sv)) != NULL) {
			if (strcmp(n, "InEchos") == 0)
				*in_echos = strtoull(v, NULL, 10);
			else if (strcmp(n, "OutEchoReps") == 0)
				*out_reps = strtoull(v, NULL, 10);
		}
		break;
	}
	fclose(fp);
}

static void
gside_read(const struct fn *f, struct gside *g)
{
	struct ifaddrs *ifa, *i;
	char path[128], line[256], ip[16], want[16];
	FILE *fp;

	memset(g, 0, sizeof(*g));
	snprintf(want, sizeof(want), "%u.%u.%u.%u", f->g->hip[0],
		 f->g->hip[1], f->g->hip[2], f->g->hip[3]);
	if (getifaddrs(&ifa) == 0) {
		for (i = ifa; i != NULL; i = i->ifa_next)
			if (i->ifa_addr != NULL &&
			    i->ifa_addr->sa_family == AF_INET &&
			    memcmp(&((struct sockaddr_in *)(void *)
				     i->ifa_addr)->sin_addr, f->g->gip,
				   4) == 0)
				snprintf(g->ifname, sizeof(g->ifname), "%s",
					 i->ifa_name);
		freeifaddrs(ifa);
	}
	icmp_echo_counters(&g->in_echos, &g->out_echo_reps);
	snprintf(g->arp, sizeof(g->arp), "none");
	fp = fopen("/proc/net/arp", "r");
	while (fp != NULL && fgets(line, sizeof(line), fp) != NULL) {
		unsigned int flags;

		if (sscanf(line, "%15s %*s %x", ip, &flags) == 2 &&
		    strcmp(ip, want) == 0)
			snprintf(g->arp, sizeof(g->arp), "0x%x", flags);
	}
	if (fp != NULL)
		fclose(fp);
	if (g->ifname[0] == '\0')
		return;
#define GS(field) \
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/" #field, \
		 g->ifname); \
	g->field = read_u64(path)
	GS(rx_packets);
	GS(tx_packets);
	GS(rx_dropped);
	GS(tx_dropped);
	GS(rx_errors);
	GS(tx_errors);
#undef GS
}

static bool
on_burst_frame(struct fn *f, const uint8_t *fr, uint32_t len, void *arg)
{
	struct burst *b = arg;
	uint16_t seq;

	if (len >= 42 && fr[12] == 0x08 && fr[13] == 0x06 && fr[21] == 1 &&
	    memcmp(fr + 38, f->g->hip, 4) == 0) {
		b->arp_requests++;
		return false;
	}
	if (!is_echo_reply(fr, len, &seq) || seq < 1000 ||
	    seq >= 1000 + BURST_PINGS) {
		b->other_frames++;
		return false;
	}
	if (!b->seen[seq - 1000]) {
		b->seen[seq - 1000] = 1;
		b->last_reply_ms = now_ms();
		__atomic_add_fetch(&b->replies, 1, __ATOMIC_RELAXED);
	}
	return true;
}

/* The RX lcore: bulk IN only. */
static void *
burst_rx(void *arg)
{
	struct burst *b = arg;
	struct fn *f = b->f;
	struct ch39x_xfer *done[N_RX];
	unsigned int n, i;

	while (!b->stop) {
		n = f->ops->poll(f->d, CH39X_EP_BULK_IN, done, N_RX);
		for (i = 0; i < n; i++) {
			if (done[i]->status != CH39X_XFER_OK) {
				b->rx_errors++;
				continue;
			}
			deliver(f, done[i], on_burst_frame, b);
			if (f->ops->submit(f->d, done[i]) != 0)
				b->rx_errors++;
		}
		if (n == 0)
			pause_us(100);
	}
	return NULL;
}

/* The TX lcore: bulk OUT only, up to N_TX transfers in flight. */
static void *
burst_tx(void *arg)
{
	struct burst *b = arg;
	struct fn *f = b->f;
	struct ch39x_xfer *done[N_TX], *x;
	struct ch39x_ncm_tx t = f->ntx;
	bool busy[N_TX] = { false };
	uint8_t fr[256];
	unsigned int n, i;
	uint32_t len;
	int k;

	while (!b->stop) {
		n = f->ops->poll(f->d, CH39X_EP_BULK_OUT, done, N_TX);
		for (i = 0; i < n; i++) {
			if (done[i]->status != CH39X_XFER_OK)
				b->tx_errors++;
			busy[done[i] - f->tx] = false;
		}
		for (k = 0; k < N_TX && b->sent < BURST_PINGS; k++) {
			if (busy[k])
				continue;
			x = &f->tx[k];
			len = build_echo(fr, f->g->hmac, f->gmac, f->g->hip,
					 f->g->gip, (uint16_t)(1000 + b->sent),
					 64);
			if (f->ncm) {
				struct ch39x_ncm_tx_end end;

				t.zlp = false;
				ch39x_ncm_tx_begin(&t, x->buf);
				memcpy(ch39x_ncm_tx_add(&t, len), fr, len);
				end = ch39x_ncm_tx_finish(&t);
				x->len = end.len;
				x->zlp = end.zlp;
			} else {
				memcpy(x->buf, fr, len);
				x->len = len;
				x->zlp = false;
			}
			if (f->ops->submit(f->d, x) != 0) {
				b->tx_errors++;
				break;
			}
			busy[k] = true;
			b->sent++;
		}
		if (n == 0)
			pause_us(100);
	}
	/* Leave the OUT endpoint idle for the owner that comes next. */
	for (k = 0; k < N_TX; k++) {
		uint64_t deadline = now_ms() + 1000;

		while (f->tx[k].in_flight && now_ms() < deadline)
			if (f->ops->poll(f->d, CH39X_EP_BULK_OUT, done,
					 N_TX) == 0)
				pause_us(200);
	}
	f->ntx.seq = t.seq;
	return NULL;
}

static void
test_burst(struct fn *f)
{
	struct burst b;
	struct gside g0, g1;
	pthread_t rx, tx;
	uint64_t t0, deadline;
	uint32_t ctrl_ok = 0, ctrl_n = 0, k;
	uint8_t dd[18];
	char miss[128] = "";
	size_t mo = 0;

	gside_read(f, &g0);
	t0 = now_ms();
	deadline = t0 + 15000;
	memset(&b, 0, sizeof(b));
	b.f = f;
	pthread_create(&rx, NULL, burst_rx, &b);
	pthread_create(&tx, NULL, burst_tx, &b);
	/*
	 * This thread is the control thread: it owns the interrupt endpoint
	 * and sends synchronous control requests meanwhile, as the PMD's
	 * alarm and ethdev ops do; libusb then handles events here too.
	 */
	while (now_ms() < deadline &&
	       __atomic_load_n(&b.replies, __ATOMIC_RELAXED) < BURST_PINGS) {
		pump_intr(f);
		ctrl_n++;
		if (get_descriptor(f, 1, 0, 0, dd, sizeof(dd)) == 18 &&
		    dd[1] == 1)
			ctrl_ok++;
		pause_us(1000);
	}
	b.stop = true;
	pthread_join(tx, NULL);
	pthread_join(rx, NULL);
	gside_read(f, &g1);
	for (k = 0; k < BURST_PINGS && mo < sizeof(miss); k++)
		if (!b.seen[k])
			mo += (size_t)snprintf(miss + mo, sizeof(miss) - mo,
					       " %u", 1000 + k);
	result(b.replies == BURST_PINGS && b.tx_errors == 0 &&
	       b.rx_errors == 0 && ctrl_ok == ctrl_n, f->tag,
	       "threads: RX lcore, TX lcore (%d in flight) and control "
	       "thread polling their own endpoints: %u/%u echo replies in "
	       "%" PRIu64 " ms, tx_errors=%u rx_errors=%u; %u/%u control "
	       "requests meanwhile", N_TX, b.replies, b.sent,
	       (b.replies == BURST_PINGS ? b.last_reply_ms : now_ms()) - t0,
	       b.tx_errors, b.rx_errors, ctrl_ok, ctrl_n);
	/*
	 * Where a lost echo went: into the gadget's netdev (rx_packets),
	 * its stack (InEchos), out as a reply (OutEchoReps, tx_packets),
	 * or not, and whether the gadget asked for our address meanwhile
	 * (its neighbour entry's flags: 0x2 complete, 0x0 incomplete).
	 */
	if (b.replies != BURST_PINGS)
		printf("  %s: burst lost%s; last reply at %" PRIu64 " ms; "
		       "gadget %s: rx_packets +%" PRIu64 " tx_packets +%"
		       PRIu64 " rx_dropped +%" PRIu64 " tx_dropped +%" PRIu64
		       " rx_errors +%" PRIu64 " tx_errors +%" PRIu64 "; "
		       "kernel InEchos +%" PRIu64 " OutEchoReps +%" PRIu64
		       "; ARP requests for us %u, other frames %u, "
		       "neighbour flags %s -> %s\n", f->tag, miss,
		       b.last_reply_ms ? b.last_reply_ms - t0 : 0,
		       g1.ifname[0] ? g1.ifname : "?",
		       g1.rx_packets - g0.rx_packets,
		       g1.tx_packets - g0.tx_packets,
		       g1.rx_dropped - g0.rx_dropped,
		       g1.tx_dropped - g0.tx_dropped,
		       g1.rx_errors - g0.rx_errors,
		       g1.tx_errors - g0.tx_errors,
		       g1.in_echos - g0.in_echos,
		       g1.out_echo_reps - g0.out_echo_reps, b.arp_requests,
		       b.other_frames, g0.arp, g1.arp);
}

/* ---- control requests ---- */

static int
get_descriptor(struct fn *f, uint8_t type, uint8_t idx, uint16_t lang,
	       uint8_t *buf, uint16_t len)
{
	return f->ops->control(f->d, 0x80, 6, (uint16_t)(type << 8 | idx),
			       lang, buf, len, 1000);
}

static void
test_descriptors(struct fn *f)
{
	struct ch39x_cdc_desc mine;
	uint8_t hdr[9], blob[1024], str[64], mac[6];
	uint16_t total;
	int r, cfg_idx = f->info.config_value == 2 ? 1 : 0;

	/* Our gadgets number their configurations 1..n in order. */
	r = get_descriptor(f, CH39X_USB_DT_CONFIG, (uint8_t)cfg_idx, 0, hdr,
			   sizeof(hdr));
	total = r == 9 ? (uint16_t)(hdr[2] | hdr[3] << 8) : 0;
	if (total > sizeof(blob))
		total = 0;
	if (total)
		r = get_descriptor(f, CH39X_USB_DT_CONFIG, (uint8_t)cfg_idx, 0,
				   blob, total);
	if (total == 0 || r != total) {
		result(false, f->tag, "descriptors: GET_DESCRIPTOR(config) "
		       "over ops->control: rc=%d total=%u", r, total);
		return;
	}
	ch39x_cdc_parse_config(blob, total, f->ncm ? CH39X_CDC_SUBCLASS_NCM :
			       CH39X_CDC_SUBCLASS_ECM, &mine);
	result(ch39x_cdc_usable(&mine) && mine.errors == 0 &&
	       mine.comm_if == f->cdc.comm_if &&
	       mine.data_if == f->cdc.data_if &&
	       mine.bulk_in == f->cdc.bulk_in &&
	       mine.bulk_out == f->cdc.bulk_out &&
	       mine.intr_ep == f->cdc.intr_ep &&
	       hdr[5] == f->info.config_value, f->tag,
	       "descriptors: %u-byte configuration %u over ops->control, "
	       "walked: comm if %u (intr 0x%02x maxp %u bInterval %u), data "
	       "if %u alt %u (in 0x%02x/%u out 0x%02x/%u), "
	       "wMaxSegmentSize %u, errors 0x%x; same as the backend's",
	       total, hdr[5], mine.comm_if, mine.intr_ep, mine.intr_maxp,
	       mine.intr_interval, mine.data_if, mine.data_alt, mine.bulk_in,
	       mine.bulk_in_maxp, mine.bulk_out, mine.bulk_out_maxp,
	       mine.max_segment, mine.errors);
	if (f->ncm)
		result(mine.max_segment == 1514 && mine.bcd_ncm == 0x0100 &&
		       mine.ncm_caps == 0x11, f->tag,
		       "NCM functional descriptor: bcdNcmVersion %x.%02x, "
		       "bmNetworkCapabilities 0x%02x, wMaxSegmentSize %u "
		       "(FINDINGS: 1.00, 0x11, 1514)", mine.bcd_ncm >> 8,
		       mine.bcd_ncm & 0xff, mine.ncm_caps, mine.max_segment);
	r = get_descriptor(f, CH39X_USB_DT_STRING, mine.i_mac_address, 0x0409,
			   str, sizeof(str));
	if (r > 0 && ch39x_cdc_parse_mac_string(str, (uint32_t)r, mac) == 0)
		result(memcmp(mac, f->g->hmac, 6) == 0, f->tag,
		       "iMACAddress (string %u): %02x:%02x:%02x:%02x:%02x:%02x "
		       "(the gadget's host_addr)", mine.i_mac_address, mac[0],
		       mac[1], mac[2], mac[3], mac[4], mac[5]);
	else
		result(false, f->tag, "iMACAddress string %u: rc=%d",
		       mine.i_mac_address, r);
}

static bool
test_ncm_params(struct fn *f)
{
	uint8_t buf[32], in[8];
	const struct ch39x_ncm_ntb_params *p = &f->np;
	uint16_t ifn = f->cdc.comm_if;
	int r, pw, r2, r3, r4, r5;

	r = f->ops->control(f->d, CH39X_CDC_REQT_IN,
			    CH39X_CDC_GET_NTB_PARAMETERS, 0, ifn, buf,
			    CH39X_NCM_NTB_PARAMS_LEN, 1000);
	pw = r > 0 ? ch39x_ncm_parse_ntb_params(buf, (uint32_t)r, &f->np) :
		-1;
	result(r == CH39X_NCM_NTB_PARAMS_LEN && pw == 0 &&
	       p->formats == 0x0003 && p->in_max_size == 16384 &&
	       p->in_divisor == 4 && p->in_remainder == 0 &&
	       p->in_alignment == 4 && p->out_max_size == 16384 &&
	       p->out_divisor == 4 && p->out_remainder == 0 &&
	       p->out_alignment == 4 && p->out_max_datagrams == 0, f->tag,
	       "GET_NTB_PARAMETERS: rc=%d warnings=%d formats 0x%04x, IN max "
	       "%u div %u rem %u align %u, OUT max %u div %u rem %u align %u "
	       "max dgrams %u (FINDINGS: 0x0003, 16384/4/0/4 both ways, 0)",
	       r, pw, p->formats, p->in_max_size, p->in_divisor,
	       p->in_remainder, p->in_alignment, p->out_max_size,
	       p->out_divisor, p->out_remainder, p->out_alignment,
	       p->out_max_datagrams);
	if (pw < 0)
		return false;
	/* Alt 0 is where the format may be set (cdc-ncm-ecm.md). */
	r2 = f->ops->control(f->d, CH39X_CDC_REQT_OUT,
			     CH39X_CDC_SET_NTB_FORMAT, CH39X_NCM_FORMAT_NTB16,
			     ifn, NULL, 0, 1000);
	r3 = f->ops->control(f->d, CH39X_CDC_REQT_IN, CH39X_CDC_GET_NTB_FORMAT,
			     0, ifn, buf, 2, 1000);
	ch39x_ncm_build_ntb_input_size(NCM_RX_SIZE, false, 0, in);
	r4 = f->ops->control(f->d, CH39X_CDC_REQT_OUT,
			     CH39X_CDC_SET_NTB_INPUT_SIZE, 0, ifn, in, 4,
			     1000);
	r5 = f->ops->control(f->d, CH39X_CDC_REQT_IN,
			     CH39X_CDC_GET_NTB_INPUT_SIZE, 0, ifn, buf + 4, 4,
			     1000);
	result(r2 == 0 && r3 == 2 && buf[0] == 0 && buf[1] == 0 && r4 == 4 &&
	       r5 == 4 && (buf[4] | buf[5] << 8 | buf[6] << 16) ==
	       NCM_RX_SIZE, f->tag,
	       "SET_NTB_FORMAT(NTB16) rc=%d, GET_NTB_FORMAT rc=%d -> %u, "
	       "SET_NTB_INPUT_SIZE(%u) rc=%d, GET_NTB_INPUT_SIZE rc=%d -> %u",
	       r2, r3, buf[0] | buf[1] << 8, NCM_RX_SIZE, r4, r5,
	       buf[4] | buf[5] << 8 | buf[6] << 16 | (uint32_t)buf[7] << 24);
	/* bmNetworkCapabilities 0x11 has no bit 3: the request stalls. */
	r = f->ops->control(f->d, CH39X_CDC_REQT_IN, CH39X_CDC_GET_MAX_DATAGRAM,
			    0, ifn, buf, 2, 1000);
	result(r == -EPIPE, f->tag, "GET_MAX_DATAGRAM_SIZE without the "
	       "capability: rc=%d (%s), a control stall maps to -EPIPE", r,
	       strerror(-r));
	return true;
}

/* SET_FEATURE(ENDPOINT_HALT): dummy_hcd halts the endpoint for real. */
static int
halt_ep(struct fn *f, uint8_t addr)
{
	return f->ops->control(f->d, 0x02, 0x03, 0, addr, NULL, 0, 1000);
}

static void
test_stall(struct fn *f, uint16_t *seq)
{
	struct ch39x_xfer *x = &f->tx[1], *done;
	unsigned int cancelled = 0, other = 0;
	uint64_t deadline;
	enum ch39x_xfer_status st = CH39X_XFER_ERROR;
	int r, rc, busy;
	bool got;

	/* Bulk OUT. */
	r = halt_ep(f, f->cdc.bulk_out);
	x->len = 60;
	memset(x->buf, 0, 60);
	x->zlp = false;
	rc = f->ops->submit(f->d, x);
	deadline = now_ms() + 2000;
	while (rc == 0 && now_ms() < deadline) {
		if (f->ops->poll(f->d, CH39X_EP_BULK_OUT, &done, 1) == 1) {
			st = done->status;
			break;
		}
		pause_us(200);
	}
	rc = f->ops->clear_halt(f->d, CH39X_EP_BULK_OUT);
	got = ping(f, (*seq)++, 56, false, NULL, NULL, NULL, NULL);
	result(r == 0 && st == CH39X_XFER_STALL && rc == 0 && got, f->tag,
	       "bulk OUT halted (SET_FEATURE rc=%d): transfer completed %s; "
	       "clear_halt rc=%d; echo afterwards %s", r, status_name(st), rc,
	       got ? "answered" : "LOST");

	/* Bulk IN: every transfer in flight completes STALL. */
	f->stalls_seen = 0;
	r = halt_ep(f, f->cdc.bulk_in);
	deadline = now_ms() + 2000;
	while (now_ms() < deadline) {
		struct ch39x_xfer *d2[N_RX];
		unsigned int n = f->ops->poll(f->d, CH39X_EP_BULK_IN, d2, N_RX),
			i;

		for (i = 0; i < n; i++) {
			if (d2[i]->status == CH39X_XFER_STALL)
				f->stalls_seen++;
			else if (d2[i]->status == CH39X_XFER_OK)
				f->ops->submit(f->d, d2[i]);
		}
		if (f->stalls_seen > 0)
			break;
		pause_us(300);
	}
	/* The rest may still be queued behind the halt: take them back. */
	busy = drain(f, CH39X_EP_BULK_IN, f->rx, N_RX, &cancelled, &other);
	rc = f->ops->clear_halt(f->d, CH39X_EP_BULK_IN);
	submit_rx_all(f);
	got = ping(f, (*seq)++, 56, false, NULL, NULL, NULL, NULL);
	result(r == 0 && f->stalls_seen >= 1 && busy == 0 && rc == 0 && got,
	       f->tag, "bulk IN halted (SET_FEATURE rc=%d): %u transfer(s) "
	       "completed STALL, the rest came back %u CANCELLED + %u "
	       "otherwise; clear_halt rc=%d; echo afterwards %s", r,
	       f->stalls_seen, cancelled, other, rc,
	       got ? "answered" : "LOST");
}

/* Find the datagram length that makes an NTB an exact multiple of maxp. */
static uint32_t
ncm_zlp_dgram_len(struct fn *f, uint32_t *ntb_len)
{
	static uint8_t scratch[20000];
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end end;
	struct ch39x_ncm_tx_cfg c = f->ncfg;
	uint32_t len;

	c.zlp = true;
	if (ch39x_ncm_tx_init(&t, &c) != 0)
		return 0;
	for (len = 100; len <= 1514; len++) {
		ch39x_ncm_tx_begin(&t, scratch);
		ch39x_ncm_tx_add(&t, len);
		end = ch39x_ncm_tx_finish(&t);
		if (end.zlp && end.len % f->info.maxp[CH39X_EP_BULK_OUT] == 0) {
			*ntb_len = end.len;
			return len;
		}
	}
	return 0;
}

static void
test_zlp(struct fn *f, uint16_t *seq)
{
	uint32_t maxp = f->info.maxp[CH39X_EP_BULK_OUT], flen, xlen = 0,
		rlen = 0, ntb = 0;
	bool zlp = false, got;
	int rc = 0;

	if (f->ncm) {
		flen = ncm_zlp_dgram_len(f, &ntb);
		if (flen == 0) {
			result(false, f->tag, "ZLP: no datagram length gives an "
			       "NTB of a multiple of %u", maxp);
			return;
		}
	} else {
		flen = 1024;	/* 2 x 512 at high speed, 1 x 1024 at super */
	}
	got = ping(f, (*seq)++, flen - 42, true, &xlen, &zlp, &rlen, &rc);
	result(got && zlp && xlen % maxp == 0, f->tag,
	       "ZLP OUT: %u-byte frame in a %u-byte transfer (%u x %u) "
	       "ended by a zero-length packet (ADD_ZERO_PACKET): echo %s "
	       "(send rc=%d)", flen, xlen, xlen / maxp, maxp,
	       got ? "answered" : "LOST", rc);
	if (!f->ncm)
		result(got && f->last_rx_actual == rlen &&
		       rlen % f->info.maxp[CH39X_EP_BULK_IN] == 0, f->tag,
		       "ZLP IN: the %u-byte reply came in a transfer of %u "
		       "bytes into a %u-byte buffer: the gadget's ZLP ended "
		       "it", rlen, f->last_rx_actual, f->rx_size);
	if (!f->ncm) {
		/*
		 * The control experiment: the same frame with no end mark sits
		 * in the device, which cannot tell that it ended, until the
		 * next transfer ends the request; the two arrive as one frame
		 * (the echo, with the ARP request as trailing bytes).
		 */
		struct echo_want w = { .seq = *seq, .payload = flen - 42 };
		uint8_t fr[1600], arp[64];
		bool early, late = false;
		int r1, r2 = -1;

		build_echo(fr, f->g->hmac, f->gmac, f->g->hip, f->g->gip,
			   (*seq)++, flen - 42);
		f->no_end_mark = true;
		r1 = send_frame(f, fr, flen, false, &xlen, &zlp);
		f->no_end_mark = false;
		early = r1 == 0 && wait_frame(f, 500, on_echo_reply, &w);
		if (r1 == 0 && !early) {
			build_arp(arp, f->g->hmac, f->g->hip, NULL, f->g->gip, 1);
			r2 = send_frame(f, arp, 42, false, NULL, NULL);
			late = r2 == 0 && wait_frame(f, 3000, on_echo_reply, &w);
		}
		result(r1 == 0 && !early && late, f->tag,
		       "control: the %u-byte frame sent bare (no ZLP, no pad) "
		       "got %s in 500 ms, and %s after the next (42-byte) "
		       "transfer ended the device's request", xlen,
		       early ? "a reply" : "no reply",
		       late ? "its reply came" : "still no reply");
	}
	/* The other way to end a multiple: one pad byte instead (usbnet). */
	got = ping(f, (*seq)++, flen - 42, false, &xlen, &zlp, &rlen, &rc);
	result(got && !zlp && xlen % maxp == 1, f->tag,
	       "pad byte instead of ZLP: %u-byte transfer, echo %s", xlen,
	       got ? "answered" : "LOST");
}

static void
test_cancel(struct fn *f)
{
	unsigned int cancelled = 0, other = 0, ic = 0, io = 0;
	int busy, ibusy, i;

	submit_rx_all(f);
	busy = drain(f, CH39X_EP_BULK_IN, f->rx, N_RX, &cancelled, &other);
	ibusy = drain(f, CH39X_EP_INTR_IN, f->intr, N_INTR, &ic, &io);
	for (i = 0; i < N_RX; i++)
		busy += f->rx[i].in_flight;
	result(busy == 0 && ibusy == 0 && cancelled + other == N_RX &&
	       cancelled >= 1 && ic + io == N_INTR, f->tag,
	       "cancel_all: bulk IN %u/%d came back CANCELLED (%u otherwise), "
	       "interrupt IN %u/%d CANCELLED (%u otherwise); none left in "
	       "flight", cancelled, N_RX, other, ic, N_INTR, io);
}

static void
test_mem(struct fn *f)
{
	struct ch39x_libusb_mem m;
	char err[512];
	int r1, r2;

	ch39x_libusb_mem_stats(f->d, &m);
	r1 = ch39x_libusb_mem_check(f->d, 64 * 1024, err, sizeof(err));
	r2 = ch39x_libusb_mem_check(f->d, m.limit ? m.limit : 1ull << 40,
				    err, sizeof(err));
	result(r1 == 0 && (m.limit == 0 || (r2 == -ENOMEM &&
	       strstr(err, "usbfs_memory_mb") != NULL)), f->tag,
	       "buffers: %" PRIu64 " usbfs (dev_mem, %" PRIu64 " bytes) + %"
	       PRIu64 " heap; cap %" PRIu64 " MiB; mem_check(64K)=%d, "
	       "mem_check(cap)=%d \"%.60s...\"", m.devmem_bufs, m.devmem,
	       m.heap_bufs, m.limit >> 20, r1, r2, err);
}

static void
run_function(const struct gadget *g)
{
	struct ch39x_libusb_sel sel;
	struct fn *f = calloc(1, sizeof(*f));
	char err[4096], desc[160];
	uint16_t seq = 1;
	uint64_t t0 = now_ms(), deadline;
	int r, i, expect_speed;
	bool ok;

	if (f == NULL)
		return;
	f->g = g;
	f->ncm = g->proto == CH39X_LIBUSB_NCM;
	snprintf(f->tag, sizeof(f->tag), "%s", g->name);
	sel_init(&sel);
	sel.vid = g->vid;
	sel.pid = g->pid;
	sel.protos = g->proto;
	f->d = ch39x_libusb_open(&sel, err, sizeof(err));
	if (f->d == NULL) {
		result(false, f->tag, "open %04x:%04x %s: %s", g->vid, g->pid,
		       g->proto == CH39X_LIBUSB_NCM ? "ncm" : "ecm", err);
		free(f);
		return;
	}
	f->ops = f->d->ops;
	f->ops->get_info(f->d, &f->info);
	ch39x_libusb_get_cdc(f->d, &f->cdc);
	ch39x_libusb_describe(f->d, desc, sizeof(desc));
	expect_speed = strcmp(want_speed, "super") == 0 ? CH39X_SPEED_SUPER :
		CH39X_SPEED_HIGH;
	result(ch39x_libusb_is_libusb(f->d) &&
	       ch39x_libusb_proto(f->d) == g->proto &&
	       f->info.vid == g->vid && f->info.pid == g->pid &&
	       strcmp(f->info.serial, g->serial) == 0 &&
	       f->info.speed == expect_speed &&
	       f->info.maxp[CH39X_EP_BULK_IN] ==
	       (expect_speed == CH39X_SPEED_SUPER ? 1024 : 512) &&
	       f->info.maxp[CH39X_EP_INTR_IN] == 16 &&
	       f->info.intr_interval_ms == 32 &&
	       f->d->ctrl_delay_us == 0, f->tag,
	       "open by vid:pid+class in %" PRIu64 " ms: %s; get_info: bcdDevice "
	       "%04x, maxp in/out/intr %u/%u/%u, bInterval %u ms", now_ms() - t0,
	       desc, f->info.bcd_device, f->info.maxp[0], f->info.maxp[1],
	       f->info.maxp[2], f->info.intr_interval_ms);
	test_descriptors(f);
	if (f->ncm) {
		f->rx_size = NCM_RX_SIZE;
		if (!test_ncm_params(f))
			goto out;
		ch39x_ncm_tx_cfg_from_params(&f->ncfg, &f->np, false,
					     f->info.maxp[CH39X_EP_BULK_OUT]);
		if (ch39x_ncm_tx_init(&f->ntx, &f->ncfg) != 0) {
			result(false, f->tag, "ch39x_ncm_tx_init refused the "
			       "parameters");
			goto out;
		}
		f->tx_size = ch39x_ncm_tx_buf_size(&f->ntx);
		ch39x_ncm_rx_init(&f->nrx, &(struct ch39x_ncm_rx_cfg){
			.ntb32 = false, .max_ntb = NCM_RX_SIZE });
	} else {
		f->rx_size = ECM_RX_SIZE;
		ch39x_ecm_cfg_init(&f->ecfg, &f->cdc, false);
		f->tx_size = ch39x_ecm_tx_buf_size(&f->ecfg);
	}
	if (!fn_alloc_bufs(f)) {
		result(false, f->tag, "buffer allocation failed");
		goto out;
	}
	ch39x_cdc_notify_init(&f->np_parser);
	if (f->ops->intr_hook != NULL)
		f->ops->intr_hook(f->d, count_intr, f);
	for (i = 0; i < N_INTR; i++)
		f->ops->submit(f->d, &f->intr[i]);
	/* Before alt 1 the bulk endpoints do not exist. */
	f->rx[0].len = f->rx_size;
	r = f->ops->submit(f->d, &f->rx[0]);
	result(r == -ENOTCONN, f->tag, "bulk submit at data alt 0: rc=%d "
	       "(-ENOTCONN expected)", r);
	if (r == 0) {
		unsigned int c = 0, o = 0;

		drain(f, CH39X_EP_BULK_IN, f->rx, 1, &c, &o);
	}
	r = ch39x_libusb_set_data_alt(f->d, 1);
	deadline = now_ms() + 3000;
	while (!f->link_up && now_ms() < deadline) {
		pump_intr(f);
		pause_us(500);
	}
	/* The speed notification that follows a connection, if due. */
	deadline = now_ms() + 300;
	while (now_ms() < deadline) {
		pump_intr(f);
		pause_us(500);
	}
	result(r == 0 && f->link_up && f->n_speed >= 1 && f->down_bps > 0,
	       f->tag, "set_data_alt(1) rc=%d; notifications: %s", r,
	       f->notify_seq);
	/*
	 * Every interrupt transfer libusb reaped, on whatever thread, called
	 * the hook once as it was queued (the PMD's link events while the
	 * application sleeps rely on it): at least as many calls as
	 * transfers taken, and no more than those plus the ones in flight.
	 */
	{
		uint32_t h = __atomic_load_n(&f->intr_hooked,
					     __ATOMIC_RELAXED);

		result(f->ops->intr_hook != NULL && f->intr_polled >= 2 &&
		       h >= f->intr_polled && h <= f->intr_polled + N_INTR,
		       f->tag, "intr_hook: %u calls for %u interrupt "
		       "transfers taken", h, f->intr_polled);
	}
	/* Directed + broadcast, as Linux usbnet_cdc_update_filter. */
	r = f->ops->control(f->d, CH39X_CDC_REQT_OUT,
			    CH39X_CDC_SET_ETH_PKT_FILTER,
			    ch39x_cdc_packet_filter(false, false, 0, 0),
			    f->cdc.comm_if, NULL, 0, 1000);
	result(r == 0, f->tag, "SET_ETHERNET_PACKET_FILTER(0x%02x) rc=%d",
	       ch39x_cdc_packet_filter(false, false, 0, 0), r);
	r = submit_rx_all(f);
	{
		uint8_t fr[64];

		build_arp(fr, g->hmac, g->hip, NULL, g->gip, 1);
		t0 = now_ms();
		r = r ? r : send_frame(f, fr, 42, false, NULL, NULL);
		ok = r == 0 && wait_frame(f, 3000, on_arp_reply, NULL);
		result(ok, f->tag, "ARP who-has %u.%u.%u.%u on bulk OUT "
		       "(rc=%d): %s%02x:%02x:%02x:%02x:%02x:%02x in %" PRIu64
		       " ms", g->gip[0], g->gip[1], g->gip[2], g->gip[3], r,
		       ok ? "reply on bulk IN, is-at " : "no reply ",
		       f->gmac[0], f->gmac[1], f->gmac[2], f->gmac[3],
		       f->gmac[4], f->gmac[5], now_ms() - t0);
	}
	if (!ok)
		goto stop;
	t0 = now_ms();
	ok = ping(f, seq++, 56, false, NULL, NULL, NULL, &r);
	result(ok, f->tag, "ICMP echo to %u.%u.%u.%u: %s in %" PRIu64 " ms "
	       "(send rc=%d)", g->gip[0], g->gip[1], g->gip[2], g->gip[3],
	       ok ? "reply with the same payload" : "no reply",
	       now_ms() - t0, r);
	test_rx_wake(f, &seq);
	test_rx_wake_late(f, &seq);
	test_ready_gate(f, &seq);
	test_zlp(f, &seq);
	test_stall(f, &seq);
	for (i = 0; i < (int)n_bursts; i++)
		test_burst(f);
	test_mem(f);
	if (f->ncm)
		result(f->nrx.stats.bad_nth_sig == 0 &&
		       f->nrx.stats.bad_block_len == 0 &&
		       f->nrx.stats.bad_dgram == 0, f->tag,
		       "NCM RX parser over %" PRIu64 " NTBs, %" PRIu64
		       " datagrams: no bad NTH/block/datagram; TX %" PRIu64
		       " NTBs", f->nrx.stats.ntbs, f->nrx.stats.dgrams,
		       f->ntx.stats.ntbs);
stop:
	test_cancel(f);
	r = ch39x_libusb_set_data_alt(f->d, 0);
	result(r == 0, f->tag, "set_data_alt(0) rc=%d", r);
out:
	fn_free_bufs(f);
	t0 = now_ms();
	f->ops->close(f->d);
	result(true, f->tag, "closed in %" PRIu64 " ms", now_ms() - t0);
	free(f);
}

/* ---- selection ---- */

static const struct gadget *
find_gadget(const char *name)
{
	int i;

	for (i = 0; i < n_gadgets; i++)
		if (strcmp(gadgets[i].name, name) == 0)
			return &gadgets[i];
	return NULL;
}

static void
try_open(const char *name, struct ch39x_libusb_sel *sel, bool expect_ok,
	 const char *must1, const char *must2, const char *must3)
{
	char err[4096], desc[160];
	struct ch39x_usb_dev *d;
	uint64_t t0 = now_ms();
	bool ok;

	err[0] = '\0';
	d = ch39x_libusb_open(sel, err, sizeof(err));
	if (d != NULL) {
		ch39x_libusb_describe(d, desc, sizeof(desc));
		d->ops->close(d);
		ok = expect_ok && (must1 == NULL || strstr(desc, must1));
		result(ok, name, "opened %s in %" PRIu64 " ms", desc,
		       now_ms() - t0);
		return;
	}
	ok = !expect_ok && (must1 == NULL || strstr(err, must1)) &&
		(must2 == NULL || strstr(err, must2)) &&
		(must3 == NULL || strstr(err, must3));
	result(ok, name, "refused: %s", err);
}

static void
test_selection(void)
{
	const struct gadget *ncm = find_gadget("ncm"), *ecm = find_gadget("ecm");
	struct ch39x_libusb_sel s;
	char want[96];

	if (ncm == NULL || ecm == NULL) {
		result(false, "select", "gadgets ncm and ecm not given");
		return;
	}
	sel_init(&s);
	s.vid = ncm->vid;
	s.pid = ncm->pid;
	snprintf(want, sizeof(want), "path=%s ncm", ncm->path);
	try_open("select-vidpid-ncm", &s, true, want, NULL, NULL);
	sel_init(&s);
	s.vid = ecm->vid;
	s.pid = ecm->pid;
	snprintf(want, sizeof(want), "path=%s ecm", ecm->path);
	try_open("select-vidpid-ecm", &s, true, want, NULL, NULL);
	sel_init(&s);
	s.path = ncm->path;
	snprintf(want, sizeof(want), "%04x:%04x", ncm->vid, ncm->pid);
	try_open("select-path-ncm", &s, true, want, NULL, NULL);
	sel_init(&s);
	s.path = ecm->path;
	snprintf(want, sizeof(want), "%04x:%04x", ecm->vid, ecm->pid);
	try_open("select-path-ecm", &s, true, want, NULL, NULL);
	sel_init(&s);
	s.serial = ecm->serial;
	snprintf(want, sizeof(want), "serial=%s", ecm->serial);
	try_open("select-serial", &s, true, want, NULL, NULL);
	sel_init(&s);
	s.protos = CH39X_LIBUSB_ECM;
	s.vid = ncm->vid;
	s.pid = ncm->pid;
	try_open("select-wrong-class", &s, false, "no USB device matches",
		 "cfg1*:ncm", NULL);
	sel_init(&s);
	s.protos = CH39X_LIBUSB_CDC;
	snprintf(want, sizeof(want), "path=%s", ncm->path);
	{
		char want2[64];

		snprintf(want2, sizeof(want2), "path=%s", ecm->path);
		try_open("select-class-ambiguous", &s, false,
			 "USB devices match", want, want2);
	}
	sel_init(&s);
	s.vid = ncm->vid;
	s.pid = ncm->pid;
	s.protos = CH39X_LIBUSB_VENDOR;
	try_open("select-vendor-none", &s, false, "no USB device matches",
		 "class=vendor", "1209:0001");
	sel_init(&s);
	s.vid = CH39X_VID;
	s.pid = CH39X_PID_CH397;
	try_open("select-absent", &s, false, "1a86:5397", "found", NULL);
	sel_init(&s);
	s.path = "1-";
	try_open("select-bad-path", &s, false, "expected bus-port", NULL,
		 NULL);
	sel_init(&s);
	s.pid = 1;
	try_open("select-pid-alone", &s, false, "vendor ID", NULL, NULL);
	{
		uint16_t v = 0, p = 0;
		unsigned int m = 0;
		bool ok = ch39x_libusb_parse_vid_pid("1a86:5398", &v, &p) == 0 &&
			v == 0x1a86 && p == 0x5398 &&
			ch39x_libusb_parse_vid_pid("1a86:*", &v, &p) == 0 &&
			p == 0 &&
			ch39x_libusb_parse_vid_pid("1a86", &v, &p) != 0 &&
			ch39x_libusb_parse_vid_pid("x:1", &v, &p) != 0 &&
			ch39x_libusb_parse_protos("ncm+ecm", &m) == 0 &&
			m == CH39X_LIBUSB_CDC &&
			ch39x_libusb_parse_protos("vendor", &m) == 0 &&
			m == CH39X_LIBUSB_VENDOR &&
			ch39x_libusb_parse_protos("ncm+", &m) != 0 &&
			ch39x_libusb_parse_protos("rndis", &m) == 0 &&
			m == CH39X_LIBUSB_RNDIS &&
			ch39x_libusb_parse_protos("ncm+x", &m) != 0;

		result(ok, "parse-helpers", "vid:pid and protocol strings");
	}
}

/*
 * The usbfs memory cap, for real: lower usbcore.usbfs_memory_mb in this
 * (throwaway) guest, open, and submit heap-buffer transfers until the
 * backend refuses with the cap named.
 */
static void
test_usbfs_cap(const struct gadget *g)
{
	struct ch39x_libusb_sel s;
	struct ch39x_usb_dev *d;
	struct ch39x_libusb_mem m1 = { 0 }, m2 = { 0 };
	struct ch39x_xfer x[6];
	char err[2048], old[32] = "", cap_log[512] = "", heap_log[512] = "";
	unsigned int c = 0, o = 0;
	int i, r = 0, refused_at = -1;
	uint8_t *b[4] = { NULL };
	bool heap_ok = false;
	FILE *fp;

	fp = fopen(USBFS_MB, "r");
	if (fp == NULL || fgets(old, sizeof(old), fp) == NULL) {
		if (fp)
			fclose(fp);
		result(false, "usbfs-cap", "cannot read %s", USBFS_MB);
		return;
	}
	fclose(fp);
	fp = fopen(USBFS_MB, "w");
	if (fp == NULL) {
		result(false, "usbfs-cap", "cannot write %s", USBFS_MB);
		return;
	}
	fputs("1\n", fp);
	fclose(fp);
	sel_init(&s);
	s.vid = g->vid;
	s.pid = g->pid;
	s.protos = g->proto;
	d = ch39x_libusb_open(&s, err, sizeof(err));
	memset(x, 0, sizeof(x));
	last_log[0] = '\0';
	if (d != NULL && ch39x_libusb_set_data_alt(d, 1) == 0) {
		for (i = 0; i < 6; i++) {
			x[i].ep = CH39X_EP_BULK_IN;
			x[i].len = 256 * 1024;
			x[i].buf = malloc(x[i].len);
			r = d->ops->submit(d, &x[i]);
			if (r != 0) {
				refused_at = i;
				break;
			}
		}
		{
			struct fn tmp;

			memset(&tmp, 0, sizeof(tmp));
			tmp.d = d;
			tmp.ops = d->ops;
			drain(&tmp, CH39X_EP_BULK_IN, x, 6, &c, &o);
		}
		snprintf(cap_log, sizeof(cap_log), "%s", last_log);
		/*
		 * Past the cap a transfer buffer comes from the heap, said
		 * once: three 256 KiB usbfs buffers fit in 1 MiB, a 512 KiB
		 * one does not.
		 */
		last_log[0] = '\0';
		for (i = 0; i < 3; i++)
			b[i] = ch39x_libusb_buf_alloc(d, 256 * 1024);
		ch39x_libusb_mem_stats(d, &m1);
		b[3] = ch39x_libusb_buf_alloc(d, 512 * 1024);
		ch39x_libusb_mem_stats(d, &m2);
		snprintf(heap_log, sizeof(heap_log), "%s", last_log);
		heap_ok = b[0] != NULL && b[1] != NULL && b[2] != NULL &&
			b[3] != NULL && m1.devmem_bufs == 3 &&
			m1.heap_bufs == 0 && m2.devmem_bufs == 3 &&
			m2.heap_bufs == 1 &&
			strstr(heap_log, "from the heap") != NULL &&
			strstr(heap_log, "usbfs_memory_mb") != NULL;
		if (b[3] != NULL)
			memset(b[3], 0xa5, 512 * 1024);
		for (i = 0; i < 4; i++)
			if (b[i] != NULL)
				ch39x_libusb_buf_free(d, b[i]);
		ch39x_libusb_set_data_alt(d, 0);
	}
	if (d != NULL)
		d->ops->close(d);
	for (i = 0; i < 6; i++)
		free(x[i].buf);
	fp = fopen(USBFS_MB, "w");
	if (fp != NULL) {
		fputs(old, fp);
		fclose(fp);
	}
	/*
	 * 1 MiB holds three 256 KiB transfers with their kernel overhead
	 * (devio.c counts the URB and its bookkeeping too), not four.
	 */
	result(d != NULL && refused_at == 3 && r == -ENOMEM &&
	       strstr(cap_log, "usbfs_memory_mb=1 ") != NULL, "usbfs-cap",
	       "usbfs_memory_mb=1: three 256 KiB heap transfers in flight, "
	       "the fourth refused rc=%d (index %d), logged \"%.100s...\"; "
	       "%u came back cancelled", r, refused_at, cap_log, c);
	result(heap_ok, "usbfs-cap-heap",
	       "usbfs_memory_mb=1: buffers 256 KiB x 3 then 512 KiB: %" PRIu64
	       " usbfs + %" PRIu64 " heap, then %" PRIu64 " + %" PRIu64
	       ", logged \"%.120s\"", m1.devmem_bufs, m1.heap_bufs,
	       m2.devmem_bufs, m2.heap_bufs, heap_log);
}

/* ---- vendor mode, on a SourceSink function with a CH398's IDs ---- */

struct vendor_dev {
	char name[32];
	uint16_t vid;
	uint16_t pid;
	char serial[64];
	char path[CH39X_LIBUSB_PATH_MAX];
};

static struct vendor_dev vendor;
static bool have_vendor;

/* Wait for one transfer of ep to come back; its status, or -1. */
static int
wait_one(struct ch39x_usb_dev *d, enum ch39x_ep ep, struct ch39x_xfer **x)
{
	uint64_t deadline = now_ms() + 2000;

	while (now_ms() < deadline) {
		if (d->ops->poll(d, ep, x, 1) == 1)
			return (int)(*x)->status;
		pause_us(300);
	}
	return -1;
}

/* f_sourcesink pattern 1: byte i of a request is (i % maxp) % 63. */
static bool
pattern_ok(const uint8_t *b, uint32_t len, uint32_t maxp)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (b[i] != (uint8_t)((i % maxp) % 63))
			return false;
	return true;
}

static void
run_vendor(const struct vendor_dev *v)
{
	const char *tag = v->name;
	struct ch39x_libusb_sel sel;
	struct ch39x_usb_info info;
	struct ch39x_usb_dev *d;
	struct ch39x_xfer in[2], out, intr, *x;
	unsigned int c = 0, o = 0, maxp;
	char err[4096], desc[160];
	uint8_t gi[8];
	uint64_t t0 = now_ms();
	int r, st1, st2, st3, i, in_ok = 0;
	bool want_ss = strcmp(want_speed, "super") == 0;
	unsigned int restored0 = n_log_restored, kept0 = n_log_kept;

	sel_init(&sel);
	sel.vid = v->vid;
	sel.pid = v->pid;
	d = ch39x_libusb_open(&sel, err, sizeof(err));
	if (d == NULL) {
		result(false, tag, "open %04x:%04x: %s", v->vid, v->pid, err);
		return;
	}
	d->ops->get_info(d, &info);
	ch39x_libusb_describe(d, desc, sizeof(desc));
	result(ch39x_libusb_proto(d) == CH39X_LIBUSB_VENDOR &&
	       info.config_value == 3 && d->ctrl_delay_us == 3000 &&
	       info.maxp[CH39X_EP_BULK_IN] == (want_ss ? 1024 : 512) &&
	       info.maxp[CH39X_EP_BULK_OUT] == (want_ss ? 1024 : 512) &&
	       info.maxp[CH39X_EP_INTR_IN] == 16 &&
	       info.intr_interval_ms == 32 &&
	       strcmp(info.serial, v->serial) == 0, tag,
	       "open by vid:pid, any class, in %" PRIu64 " ms: %s (vendor "
	       "before the ECM of the same configuration; switched from "
	       "configuration 1, device found again at its path); maxp "
	       "in/out/intr %u/%u/%u, bInterval %u ms, ctrl_delay_us %u",
	       now_ms() - t0, desc, info.maxp[0], info.maxp[1], info.maxp[2],
	       info.intr_interval_ms, d->ctrl_delay_us);
	r = d->ops->control(d, CH39X_REQT_IN, CH39X_REQ_GET_INFO, 0, 0, gi,
			    CH39X_GET_INFO_LEN, 1000);
	result(r == -EPIPE, tag, "GET_INFO to a device that does not speak "
	       "the vendor protocol: rc=%d (stall -> -EPIPE)", r);
	maxp = info.maxp[CH39X_EP_BULK_IN];
	memset(in, 0, sizeof(in));
	memset(&out, 0, sizeof(out));
	memset(&intr, 0, sizeof(intr));
	for (i = 0; i < 2; i++) {
		in[i].ep = CH39X_EP_BULK_IN;
		in[i].len = 4096;	/* the source's bulk_buflen */
		in[i].buf = ch39x_libusb_buf_alloc(d, 4096);
	}
	out.ep = CH39X_EP_BULK_OUT;
	out.buf = ch39x_libusb_buf_alloc(d, 4096);
	intr.ep = CH39X_EP_INTR_IN;
	intr.len = info.maxp[CH39X_EP_INTR_IN];
	intr.buf = ch39x_libusb_buf_alloc(d, intr.len);
	if (!in[0].buf || !in[1].buf || !out.buf || !intr.buf) {
		result(false, tag, "buffer allocation failed");
		goto close;
	}
	for (i = 0; i < 2; i++)
		if (d->ops->submit(d, &in[i]) != 0)
			in_ok--;
	for (i = 0; i < 2; i++)
		if (wait_one(d, CH39X_EP_BULK_IN, &x) == CH39X_XFER_OK &&
		    x->actual == 4096 && pattern_ok(x->buf, x->actual, maxp))
			in_ok++;
	result(in_ok == 2, tag, "bulk IN: %d/2 transfers of 4096 bytes "
	       "with the source's pattern", in_ok);
	for (i = 0; i < 4096; i++)
		out.buf[i] = (uint8_t)((i % maxp) % 63);
	out.len = 4096;
	st1 = d->ops->submit(d, &out) ? -1 :
		wait_one(d, CH39X_EP_BULK_OUT, &x);
	/* A wrong byte: the sink takes the transfer, then halts. */
	out.buf[100] ^= 0xff;
	st2 = d->ops->submit(d, &out) ? -1 :
		wait_one(d, CH39X_EP_BULK_OUT, &x);
	out.buf[100] ^= 0xff;
	st3 = d->ops->submit(d, &out) ? -1 :
		wait_one(d, CH39X_EP_BULK_OUT, &x);
	r = d->ops->clear_halt(d, CH39X_EP_BULK_OUT);
	i = d->ops->submit(d, &out) ? -1 :
		wait_one(d, CH39X_EP_BULK_OUT, &x);
	result(st1 == CH39X_XFER_OK && st2 == CH39X_XFER_OK &&
	       st3 == CH39X_XFER_STALL && r == 0 && i == CH39X_XFER_OK, tag,
	       "bulk OUT: good data %s; a bad byte %s, and the device halted "
	       "the endpoint: next transfer %s; clear_halt rc=%d; then %s",
	       st1 >= 0 ? status_name(st1) : "lost",
	       st2 >= 0 ? status_name(st2) : "lost",
	       st3 >= 0 ? status_name(st3) : "lost", r,
	       i >= 0 ? status_name(i) : "lost");
	/*
	 * The ECM function may hold a notification from when cdc_ether had
	 * it: take what is pending, then cancel the transfer left waiting.
	 */
	r = d->ops->submit(d, &intr);
	{
		uint64_t deadline = now_ms() + 300;
		unsigned int pending = 0;
		struct fn tmp;

		while (r == 0 && now_ms() < deadline) {
			if (d->ops->poll(d, CH39X_EP_INTR_IN, &x, 1) == 1) {
				pending++;
				r = d->ops->submit(d, &intr);
			}
			pause_us(500);
		}
		memset(&tmp, 0, sizeof(tmp));
		tmp.d = d;
		tmp.ops = d->ops;
		i = drain(&tmp, CH39X_EP_INTR_IN, &intr, 1, &c, &o);
		result(r == 0 && i == 0 && c == 1, tag, "interrupt IN (the ECM "
		       "function's, first in the configuration): %u pending "
		       "notification(s) read, then cancel_all -> %u CANCELLED, "
		       "%u otherwise", pending, c, o);
	}
close:
	for (i = 0; i < 2; i++)
		ch39x_libusb_buf_free(d, in[i].buf);
	ch39x_libusb_buf_free(d, out.buf);
	ch39x_libusb_buf_free(d, intr.buf);
	d->ops->close(d);
	r = sysfs_attr(v->path, "bConfigurationValue");
	result(r == 1 && n_log_restored == restored0 + 1, "vendor-restore",
	       "after close: configuration %d (1 expected: the one the kernel "
	       "had, restored), %u restore log line(s), %u interface(s) "
	       "logged as taken from a kernel driver so far", r,
	       n_log_restored - restored0, n_log_taken);
	/* Back in configuration 1: the vendor class alone picks it again. */
	sel_init(&sel);
	sel.protos = CH39X_LIBUSB_VENDOR;
	try_open("select-class-vendor", &sel, true, "vendor config=3", NULL,
		 NULL);
	/*
	 * kernel_driver=keep: configuration 3 stays, and the interfaces taken
	 * stay without their driver; guest.sh checks sysfs and hands the
	 * device back with ch39x-usb unbind.
	 */
	sel_init(&sel);
	sel.vid = v->vid;
	sel.pid = v->pid;
	sel.keep_kernel_driver = true;
	d = ch39x_libusb_open(&sel, err, sizeof(err));
	if (d == NULL) {
		result(false, "vendor-keep", "open: %s", err);
		return;
	}
	d->ops->close(d);
	r = sysfs_attr(v->path, "bConfigurationValue");
	result(r == 3 && n_log_kept == kept0 + 1, "vendor-keep",
	       "kernel_driver=keep: configuration %d after close (3 expected: "
	       "left as used), %u keep log line(s)", r, n_log_kept - kept0);
}

static int
parse_vendor(char *s)
{
	struct vendor_dev *v = &vendor;
	char *f[4], *save = NULL;
	int n = 0;

	for (char *t = strtok_r(s, ",", &save); t && n < 4;
	     t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n != 4 || ch39x_libusb_parse_vid_pid(f[1], &v->vid, &v->pid))
		return -1;
	snprintf(v->name, sizeof(v->name), "%s", f[0]);
	snprintf(v->serial, sizeof(v->serial), "%s", f[2]);
	snprintf(v->path, sizeof(v->path), "%s", f[3]);
	have_vendor = true;
	return 0;
}

static int
parse_ip(const char *s, uint8_t ip[4])
{
	return inet_pton(AF_INET, s, ip) == 1 ? 0 : -1;
}

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int v[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4],
		   &v[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)v[i];
	return 0;
}

static int
parse_gadget(char *s)
{
	struct gadget *g = &gadgets[n_gadgets];
	char *f[8], *save = NULL;
	int n = 0;

	if (n_gadgets == MAX_GADGETS)
		return -1;
	for (char *t = strtok_r(s, ",", &save); t && n < 8;
	     t = strtok_r(NULL, ",", &save))
		f[n++] = t;
	if (n != 8 || ch39x_libusb_parse_vid_pid(f[1], &g->vid, &g->pid) ||
	    ch39x_libusb_parse_protos(f[4], &g->proto) ||
	    (g->proto != CH39X_LIBUSB_NCM && g->proto != CH39X_LIBUSB_ECM) ||
	    parse_ip(f[5], g->gip) || parse_ip(f[6], g->hip) ||
	    parse_mac(f[7], g->hmac))
		return -1;
	snprintf(g->name, sizeof(g->name), "%s", f[0]);
	snprintf(g->serial, sizeof(g->serial), "%s", f[2]);
	snprintf(g->path, sizeof(g->path), "%s", f[3]);
	n_gadgets++;
	return 0;
}

int
main(int argc, char **argv)
{
	int i;

	t_start = now_ms();
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--speed") == 0 && i + 1 < argc) {
			want_speed = argv[++i];
		} else if (strcmp(argv[i], "--bursts") == 0 && i + 1 < argc) {
			n_bursts = (unsigned int)strtoul(argv[++i], NULL, 10);
		} else if (strcmp(argv[i], "--results") == 0 && i + 1 < argc) {
			results = fopen(argv[++i], "a");
		} else if (strcmp(argv[i], "--vendor") == 0 && i + 1 < argc) {
			if (parse_vendor(argv[++i]) != 0) {
				fprintf(stderr, "bad --vendor %s\n", argv[i]);
				return 2;
			}
		} else if (strcmp(argv[i], "--gadget") == 0 && i + 1 < argc) {
			if (parse_gadget(argv[++i]) != 0) {
				fprintf(stderr, "bad --gadget %s\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: %s --speed high|super --results "
				"FILE --gadget NAME,VID:PID,SERIAL,PATH,PROTO,"
				"GADGET_IP,HOST_IP,HOST_MAC ...\n", argv[0]);
			return 2;
		}
	}
	test_selection();
	for (i = 0; i < n_gadgets; i++)
		run_function(&gadgets[i]);
	if (have_vendor)
		run_vendor(&vendor);
	if (find_gadget("ecm") != NULL)
		test_usbfs_cap(find_gadget("ecm"));
	printf("transport_test: %d passed, %d failed in %.1f s\n", n_pass,
	       n_fail, (double)(now_ms() - t_start) / 1000.0);
	if (results != NULL)
		fclose(results);
	return n_fail ? 1 : 0;
}
