/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ch39x-usbip: the simulated adapter (lib/ch39x_sim) served as USB devices
 * over USB/IP, so that a Linux host's own drivers take the model: the
 * usbip tool attaches a device to vhci-hcd, which sends this server the
 * URBs of cdc_ncm, cdc_ether or whichever driver binds. Each --dev names a
 * bus ID and the model's devargs (the PMD's simulated-adapter keys: sim=,
 * usb_speed=, wire=, sim_quirks=, ...), so that every personality the sim
 * has is served the same way.
 *
 *   ch39x-usbip [--listen ADDR:PORT] [--stats FILE] [--ready FILE]
 *               --dev BUSID=DEVARGS [--dev ...]
 *
 *   --dev 1-1=sim=ncm,wire=tap:usbsim0,usb_speed=super
 *
 * One thread: an epoll loop over the listening socket, the clients and
 * the models' RX wake-ups. SIGUSR1 writes the counters to the stats file;
 * SIGTERM and SIGINT write them and exit.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ch39x_devargs.h"
#include "dev.h"
#include "usbip.h"

/* The PMD registers it; the devargs parser logs with it (to stderr). */
int ch39x_logtype;

#define MAX_DEVS	8
#define MAX_CONNS	16
/* A client that does not take a reply within this long is dropped. */
#define SEND_TIMEOUT_MS	5000
#define RBUF_MIN	65536

struct conn {
	int fd;
	uint8_t *rbuf;
	uint32_t rlen;
	uint32_t rcap;
	struct uip_dev *dev;	/* once imported */
};

static struct uip_dev *devs[MAX_DEVS];
static unsigned int n_devs;
static struct conn conns[MAX_CONNS];
static int ep_fd = -1;
static const char *stats_path;

static void
logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
logmsg(const char *fmt, ...)
{
	va_list ap;

	fputs("ch39x-usbip: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- options ---- */

static void
usage(FILE *f)
{
	fprintf(f, "usage: ch39x-usbip [--listen ADDR:PORT] [--stats FILE] "
		"[--ready FILE] --dev BUSID=DEVARGS [--dev ...]\n"
		"  BUSID    the device's USB/IP bus ID, e.g. 1-1 (usbip attach "
		"-b BUSID)\n"
		"  DEVARGS  the simulated adapter's devargs: " CH39X_DEVARGS_KEYS
		"\n           (only those of the simulated device), e.g. "
		"sim=ncm,wire=tap:usbsim0\n"
		"  --listen default 127.0.0.1:%u\n", USBIP_PORT);
}

static bool
busid_ok(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n >= USBIP_BUSID_LEN)
		return false;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		      s[i] == '.' || s[i] == ':'))
			return false;
	return true;
}

/*
 * Only the keys that describe the simulated device: the PMD's others
 * (rx_xfers, dev=, ...) mean nothing to a device on a bus.
 */
static int
check_sim_keys(const char *busid, const char *params)
{
	const char *item = params, *end, *eq;
	unsigned int i;
	size_t len;

	for (; *item != '\0'; item = *end ? end + 1 : end) {
		end = item + strcspn(item, ",");
		eq = memchr(item, '=', (size_t)(end - item));
		len = (size_t)((eq != NULL ? eq : end) - item);
		for (i = 0; i < CH39X_DA_COUNT; i++)
			if (strlen(ch39x_devargs[i].key) == len &&
			    strncmp(ch39x_devargs[i].key, item, len) == 0)
				break;
		if (i < CH39X_DA_COUNT &&
		    !(ch39x_devargs[i].flags & CH39X_DA_SIM) &&
		    i != CH39X_DA_mac) {
			logmsg("--dev %s: %.*s is the PMD's, not the simulated "
			       "device's", busid, (int)len, item);
			return -1;
		}
	}
	return 0;
}

static int
add_dev(const char *spec)
{
	const char *eq = strchr(spec, '=');
	struct ch39x_args a;
	char busid[USBIP_BUSID_LEN], err[256], name[64];
	struct uip_dev *d;
	unsigned int i;

	if (eq == NULL || !busid_ok(spec, (size_t)(eq - spec))) {
		logmsg("--dev %s: expected BUSID=DEVARGS with a bus ID of "
		       "digits, '-', '.' and ':' (up to 31), e.g. 1-1=sim=ncm",
		       spec);
		return -1;
	}
	snprintf(busid, sizeof(busid), "%.*s", (int)(eq - spec), spec);
	for (i = 0; i < n_devs; i++)
		if (strcmp(uip_dev_busid(devs[i]), busid) == 0) {
			logmsg("--dev %s: bus ID %s given twice", spec, busid);
			return -1;
		}
	if (n_devs == MAX_DEVS) {
		logmsg("--dev %s: %d devices at most", spec, MAX_DEVS);
		return -1;
	}
	snprintf(name, sizeof(name), "--dev %s", busid);
	if (check_sim_keys(busid, eq + 1) != 0 ||
	    ch39x_parse_devargs(name, eq + 1, &a) != 0)
		return -1;
	/*
	 * The USB/IP link is the bus and keeps its own time: the model's
	 * line-rate timing only when asked for.
	 */
	if (strstr(eq + 1, "sim_rate=") == NULL)
		a.sim.line_rate = false;
	if (a.mac_set)
		memcpy(a.sim.mac, a.mac.addr_bytes, 6);
	d = uip_dev_open(busid, &a.sim, err, sizeof(err));
	if (d == NULL) {
		logmsg("--dev %s: %s", spec, err);
		return -1;
	}
	devs[n_devs++] = d;
	return 0;
}

static int
listen_on(const char *spec)
{
	char host[64];
	const char *colon = strrchr(spec, ':');
	struct sockaddr_in sa;
	unsigned long port = USBIP_PORT;
	int fd, one = 1;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	snprintf(host, sizeof(host), "%s", spec);
	if (colon != NULL) {
		char *end;

		port = strtoul(colon + 1, &end, 10);
		if (*end != '\0' || port == 0 || port > 65535) {
			logmsg("--listen %s: bad port", spec);
			return -1;
		}
		host[colon - spec < (long)sizeof(host) ?
		     colon - spec : (long)sizeof(host) - 1] = '\0';
	}
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
		logmsg("--listen %s: expected an IPv4 address and a port", spec);
		return -1;
	}
	sa.sin_port = htons((uint16_t)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(fd, 8) != 0) {
		logmsg("--listen %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* ---- counters ---- */

static void
write_stats(void)
{
	char tmp[4096];
	unsigned int i;
	FILE *f;

	if (stats_path == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_path);
	f = fopen(tmp, "w");
	if (f == NULL) {
		logmsg("stats %s: %s", tmp, strerror(errno));
		return;
	}
	for (i = 0; i < n_devs; i++)
		uip_dev_stats(devs[i], f);
	if (fclose(f) != 0 || rename(tmp, stats_path) != 0)
		logmsg("stats %s: %s", stats_path, strerror(errno));
}

/* ---- clients ---- */

/* Write all of an iovec, waiting (bounded) while the socket is full. */
static int
write_all(int fd, struct iovec *iov, int n)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	ssize_t w;

	while (n > 0) {
		w = writev(fd, iov, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			if (poll(&p, 1, SEND_TIMEOUT_MS) != 1)
				return -1;
			continue;
		}
		if (w < 0)
			return -1;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int
conn_send(void *arg, const uint8_t hdr[USBIP_HDR_LEN], const uint8_t *data,
	  uint32_t len)
{
	struct conn *c = arg;
	struct iovec iov[2] = {
		{ .iov_base = (void *)(uintptr_t)hdr, .iov_len = USBIP_HDR_LEN },
		{ .iov_base = (void *)(uintptr_t)data, .iov_len = len },
	};

	return write_all(c->fd, iov, len ? 2 : 1);
}

static void
conn_close(struct conn *c, const char *why)
{
	if (c->dev != NULL) {
		logmsg("%s: client gone (%s); the device is detached",
		       uip_dev_busid(c->dev), why);
		uip_dev_detach(c->dev);
	}
	epoll_ctl(ep_fd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->rbuf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

static void
conn_accept(int lfd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, i, one = 1;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS && conns[i].fd >= 0; i++)
		;
	if (i == MAX_CONNS) {
		logmsg("%d clients at once at most: one refused", MAX_CONNS);
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	conns[i].fd = fd;
	ev.data.u32 = (uint32_t)i + 1;
	epoll_ctl(ep_fd, EPOLL_CTL_ADD, fd, &ev);
}

static struct uip_dev *
dev_by_busid(const char *busid)
{
	unsigned int i;

	for (i = 0; i < n_devs; i++)
		if (strcmp(uip_dev_busid(devs[i]), busid) == 0)
			return devs[i];
	return NULL;
}

/* One operation request; -1 closes the connection. */
static int
conn_op(struct conn *c, const struct usbip_op_req *r)
{
	struct usbip_exported ex[MAX_DEVS];
	uint8_t rep[USBIP_OP_HDR_LEN + 4 + MAX_DEVS *
		    (USBIP_DEV_LEN + USBIP_MAX_IFS * USBIP_IF_LEN)];
	struct iovec iov;
	struct uip_dev *d;
	unsigned int i;
	uint32_t n;

	if (r->code == USBIP_OP_REQ_DEVLIST) {
		for (i = 0; i < n_devs; i++)
			uip_dev_exported(devs[i], &ex[i]);
		n = usbip_build_rep_devlist(ex, n_devs, rep, sizeof(rep));
		iov.iov_base = rep;
		iov.iov_len = n;
		write_all(c->fd, &iov, 1);
		return -1;	/* a list ends the connection */
	}
	d = dev_by_busid(r->busid);
	if (d == NULL || uip_dev_attached(d)) {
		logmsg("import of %s refused: %s", r->busid,
		       d == NULL ? "no such bus ID" : "already attached");
		n = usbip_build_rep_import(NULL, rep, sizeof(rep));
	} else {
		uip_dev_exported(d, &ex[0]);
		n = usbip_build_rep_import(&ex[0], rep, sizeof(rep));
	}
	iov.iov_base = rep;
	iov.iov_len = n;
	if (write_all(c->fd, &iov, 1) != 0 || d == NULL ||
	    uip_dev_attached(d))
		return -1;
	c->dev = d;
	uip_dev_attach(d, conn_send, c);
	logmsg("%s: imported", r->busid);
	return 0;
}

/*
 * The complete messages in the connection's buffer. Returns -1 to close
 * it (a malformed message, a refused request, a send failure).
 */
static int
conn_process(struct conn *c)
{
	struct usbip_op_req r;
	struct usbip_cmd cmd;
	uint32_t off = 0;
	int n;

	while (off < c->rlen) {
		if (c->dev == NULL) {
			n = usbip_op_parse(c->rbuf + off, c->rlen - off, &r);
			if (n < 0) {
				logmsg("operation request refused: %s",
				       strerror(-n));
				return -1;
			}
			if (n == 0)
				break;
			off += (uint32_t)n;
			if (conn_op(c, &r) != 0)
				return -1;
			continue;
		}
		n = usbip_cmd_parse(c->rbuf + off, c->rlen - off, &cmd);
		if (n < 0) {
			logmsg("%s: command refused: %s", uip_dev_busid(c->dev),
			       usbip_bad_str(n));
			return -1;
		}
		if (n == 0)
			break;
		if (uip_dev_command(c->dev, &cmd,
				    c->rbuf + off + USBIP_HDR_LEN) != 0)
			return -1;
		off += (uint32_t)n;
	}
	memmove(c->rbuf, c->rbuf + off, c->rlen - off);
	c->rlen -= off;
	return 0;
}

static void
conn_read(struct conn *c)
{
	uint32_t want;
	ssize_t r;

	for (;;) {
		/* Room for the longest message: a header and 1 MiB of data. */
		want = c->rlen + RBUF_MIN;
		if (want > USBIP_HDR_LEN + USBIP_MAX_XFER + RBUF_MIN)
			want = USBIP_HDR_LEN + USBIP_MAX_XFER + RBUF_MIN;
		if (c->rcap < want) {
			uint8_t *p = realloc(c->rbuf, want);

			if (p == NULL) {
				conn_close(c, "out of memory");
				return;
			}
			c->rbuf = p;
			c->rcap = want;
		}
		r = read(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0) {
			conn_close(c, r == 0 ? "end of stream" :
				   strerror(errno));
			return;
		}
		c->rlen += (uint32_t)r;
		if (conn_process(c) != 0) {
			conn_close(c, "request refused or reply not taken");
			return;
		}
	}
}

/* ---- the loop ---- */

static int
service_all(void)
{
	unsigned int i;
	int j, given = 0, r;

	for (i = 0; i < n_devs; i++) {
		if (!uip_dev_attached(devs[i]))
			continue;
		r = uip_dev_service(devs[i]);
		if (r >= 0) {
			given += r;
			continue;
		}
		for (j = 0; j < MAX_CONNS; j++)
			if (conns[j].fd >= 0 && conns[j].dev == devs[i])
				conn_close(&conns[j], "reply not taken");
	}
	return given;
}

static int
wait_ms(void)
{
	unsigned int i;
	int t, best = -1;

	for (i = 0; i < n_devs; i++) {
		if (!uip_dev_attached(devs[i]))
			continue;
		t = uip_dev_timeout_ms(devs[i]);
		if (t >= 0 && (best < 0 || t < best))
			best = t;
	}
	return best;
}

static int
run(int lfd, int sfd)
{
	struct epoll_event ev = { .events = EPOLLIN }, evs[32];
	struct signalfd_siginfo si;
	unsigned int i;
	int n, k, fd, timeout = -1;

	ev.data.u32 = 0;
	epoll_ctl(ep_fd, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.u32 = 0x10000;
	epoll_ctl(ep_fd, EPOLL_CTL_ADD, sfd, &ev);
	for (i = 0; i < n_devs; i++) {
		fd = uip_dev_wake_fd(devs[i]);
		if (fd < 0)
			continue;
		/* Edge: woken by news, not by a TAP that stays readable. */
		ev.events = EPOLLIN | EPOLLET;
		ev.data.u32 = 0x20000 + i;
		epoll_ctl(ep_fd, EPOLL_CTL_ADD, fd, &ev);
	}
	for (;;) {
		for (i = 0; i < n_devs; i++)
			uip_dev_arm(devs[i], true);
		n = epoll_wait(ep_fd, evs, 32, timeout);
		for (i = 0; i < n_devs; i++)
			uip_dev_arm(devs[i], false);
		if (n < 0 && errno != EINTR) {
			logmsg("epoll_wait: %s", strerror(errno));
			return 1;
		}
		for (k = 0; k < n; k++) {
			uint32_t tag = evs[k].data.u32;

			if (tag == 0) {
				conn_accept(lfd);
			} else if (tag == 0x10000) {
				if (read(sfd, &si, sizeof(si)) != sizeof(si))
					continue;
				write_stats();
				if (si.ssi_signo != SIGUSR1)
					return 0;
			} else if (tag < 0x10000 && conns[tag - 1].fd >= 0) {
				conn_read(&conns[tag - 1]);
			}
		}
		/* Service until the models have nothing more to give back. */
		timeout = service_all() > 0 ? 0 : wait_ms();
	}
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "dev", required_argument, NULL, 'd' },
		{ "stats", required_argument, NULL, 's' },
		{ "ready", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *listen_spec = "127.0.0.1:3240", *ready = NULL;
	sigset_t sigs;
	int o, lfd, sfd, rc, i;
	unsigned int k;
	FILE *f;

	for (i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;
	while ((o = getopt_long(argc, argv, "l:d:s:r:h", opts, NULL)) != -1) {
		switch (o) {
		case 'l':
			listen_spec = optarg;
			break;
		case 'd':
			if (add_dev(optarg) != 0)
				return 2;
			break;
		case 's':
			stats_path = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || n_devs == 0) {
		usage(stderr);
		return 2;
	}
	/* A client that goes away mid-reply is an error to handle, not a kill. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGUSR1);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	lfd = listen_on(listen_spec);
	ep_fd = epoll_create1(EPOLL_CLOEXEC);
	if (sfd < 0 || lfd < 0 || ep_fd < 0)
		return 1;
	for (k = 0; k < n_devs; k++) {
		struct usbip_exported e;

		uip_dev_exported(devs[k], &e);
		logmsg("%s: %04x:%04x, %u interfaces, speed %u", e.busid, e.vid,
		       e.pid, e.n_ifs, e.speed);
	}
	if (ready != NULL) {
		f = fopen(ready, "w");
		if (f != NULL)
			fclose(f);
	}
	rc = run(lfd, sfd);
	for (i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0)
			conn_close(&conns[i], "server stops");
	for (k = 0; k < n_devs; k++)
		uip_dev_close(devs[k]);
	close(lfd);
	close(sfd);
	close(ep_fd);
	return rc;
}
