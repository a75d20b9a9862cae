/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated adapter's cable: the frame ring between the two ends, the
 * far ends (loop, pair, pcap files, a TAP interface), the link state, and
 * the time frames take on the cable and transfers on the USB bus at line
 * rate. The only part of the model that uses libpcap.
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <unistd.h>

#include "ch39x_sim_priv.h"

static struct sim_ring *
ring_new(void)
{
	struct sim_ring *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->buf = malloc(SIM_RING_SIZE);
	if (r->buf == NULL) {
		free(r);
		return NULL;
	}
	r->size = SIM_RING_SIZE;
	r->wake_fd = -1;
	return r;
}

static void
ring_free(struct sim_ring *r)
{
	if (r != NULL)
		free(r->buf);
	free(r);
}

static void
ring_write(struct sim_ring *r, uint64_t pos, const void *src, uint32_t n)
{
	uint32_t at = (uint32_t)(pos & (r->size - 1));
	uint32_t first = r->size - at < n ? r->size - at : n;

	memcpy(r->buf + at, src, first);
	memcpy(r->buf, (const uint8_t *)src + first, n - first);
}

static void
ring_read(const struct sim_ring *r, uint64_t pos, void *dst, uint32_t n)
{
	uint32_t at = (uint32_t)(pos & (r->size - 1));
	uint32_t first = r->size - at < n ? r->size - at : n;

	memcpy(dst, r->buf + at, first);
	memcpy((uint8_t *)dst + first, r->buf, n - first);
}

/* A ring record: length, arrival time, then the frame padded to 4. */
#define RING_HDR 12

static int
ring_push(struct sim_ring *r, const uint8_t *f, uint32_t len, uint64_t ts)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint32_t need = RING_HDR + ALIGN4(len);
	uint32_t at = (uint32_t)(head & (r->size - 1));

	if (r->size - (head - tail) < need) {
		SIM_ADD(r->drops, 1);
		return -1;
	}
	if (at + need <= r->size) {
		/*
		 * The usual case, a record that does not wrap: fixed-size
		 * header stores and one copy, instead of two copies per
		 * field (this runs once per frame at unlimited rate).
		 */
		memcpy(r->buf + at, &len, 4);
		memcpy(r->buf + at + 4, &ts, 8);
		memcpy(r->buf + at + RING_HDR, f, len);
	} else {
		ring_write(r, head, &len, 4);
		ring_write(r, head + 4, &ts, 8);
		ring_write(r, head + RING_HDR, f, len);
	}
	__atomic_store_n(&r->head, head + need, __ATOMIC_RELEASE);
	sim_wake_pushed(r);
	return 0;
}

/*
 * Pop one frame that has arrived by now_ns into dst (cap bytes); returns
 * its length, 0 when none has. A frame longer than cap is consumed but not
 * copied: the caller sees its length and drops it as oversize.
 */
static uint32_t
ring_pop(struct sim_ring *r, uint8_t *dst, uint32_t cap, uint64_t now_ns)
{
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint32_t at = (uint32_t)(tail & (r->size - 1));
	uint64_t ts;
	uint32_t len;

	if (head == tail)
		return 0;
	/* As in ring_push: fixed-size reads unless the record wraps. */
	if (at + RING_HDR <= r->size) {
		memcpy(&ts, r->buf + at + 4, 8);
		if (ts > now_ns)
			return 0;
		memcpy(&len, r->buf + at, 4);
	} else {
		ring_read(r, tail + 4, &ts, 8);
		if (ts > now_ns)
			return 0;
		ring_read(r, tail, &len, 4);
	}
	if (len <= cap) {
		if (at + RING_HDR + len <= r->size)
			memcpy(dst, r->buf + at + RING_HDR, len);
		else
			ring_read(r, tail + RING_HDR, dst, len);
	}
	__atomic_store_n(&r->tail, tail + RING_HDR + ALIGN4(len),
			 __ATOMIC_RELEASE);
	return len;
}

/* ---- pairs: two adapters cabled together by name ---- */

static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_pair *pairs;

/* ---- the link ---- */

/* Both ends of a pair negotiate again (under pairs_lock). */
/*
 * The resolved link of s. A change wakes a consumer armed for Rx
 * interrupts, as the chip's interrupt transfer completing wakes a real
 * host's waiter (ch39x_usb_ops.rx_wake_fd): the PMD looks for the event
 * after the disarm that follows.
 */
static void
link_store(struct sim_dev *s, uint32_t lk)
{
	if (__atomic_exchange_n(&s->link, lk, __ATOMIC_RELAXED) != lk &&
	    s->rx_ring != NULL)
		sim_wake_pushed(s->rx_ring);
}

static void
pair_resolve(struct sim_pair *p)
{
	uint32_t lk;
	int i;

	for (i = 0; i < 2; i++) {
		if (p->dev[i] == NULL)
			continue;
		lk = p->dev[1 - i] == NULL ? 0 :
			sim_link_resolve(&p->adv[i], &p->adv[1 - i], i == 0);
		link_store(p->dev[i], lk);
	}
}

/*
 * Negotiate the link again after a cable or PHY change of s (under
 * s->lock). A pair's two ends see each other's offer; a loop cable makes
 * the adapter its own partner; the far end of a pcap or TAP cable is a
 * generic PHY.
 */
void
sim_update_up(struct sim_dev *s)
{
	struct sim_phy_adv me, far;

	sim_phy_adv(s, &me);
	if (s->pair != NULL) {
		pthread_mutex_lock(&pairs_lock);
		s->pair->adv[s->side] = me;
		pair_resolve(s->pair);
		pthread_mutex_unlock(&pairs_lock);
		return;
	}
	if (s->cfg.wire == CH39X_WIRE_LOOP)
		far = me;
	else
		sim_phy_generic_partner(me.cap_mbps, &far);
	link_store(s, sim_link_resolve(&me, &far, true));
}

bool
ch39x_sim_link(struct ch39x_usb_dev *d)
{
	return link_up(to_sim(d));
}

void
ch39x_sim_set_cable(struct ch39x_usb_dev *d, bool plugged)
{
	struct sim_dev *s = to_sim(d);

	pthread_mutex_lock(&s->lock);
	/* A PHY negotiates afresh when the cable comes back. */
	if (plugged && !s->cable)
		sim_phy_an_restart(s);
	s->cable = plugged;
	sim_update_up(s);
	pthread_mutex_unlock(&s->lock);
}

/* ---- timing ---- */

/*
 * Time a frame takes on the cable, preamble, FCS and gap included, at the
 * speed the link negotiated.
 */
static uint64_t
wire_ns(const struct sim_dev *s, uint32_t len)
{
	return (uint64_t)(len + CH39X_WIRE_OVERHEAD) * 8000u / link_speed(s);
}

/* Time the bus needs for a transfer's payload. */
uint64_t
sim_usb_ns(const struct sim_dev *s, uint32_t bytes)
{
	return (uint64_t)bytes * 8 * 1000000000ull / s->usb_bps;
}

/*
 * Occupy the bus for dur from max(now, when it is free); returns when the
 * transfer is done. The RX and TX lcores may share a USB 2.0 bus, so the
 * time stamp moves with compare-and-swap.
 */
uint64_t
sim_bus_reserve(uint64_t *free_ns, uint64_t now, uint64_t dur)
{
	uint64_t cur = __atomic_load_n(free_ns, __ATOMIC_RELAXED), done;

	do {
		done = (cur > now ? cur : now) + dur;
	} while (!__atomic_compare_exchange_n(free_ns, &cur, done, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return done;
}

/*
 * When a bulk OUT transfer completes at line rate: after the bus has
 * carried it, and not before the chip's TX FIFO has room for it.
 * ASSUMPTION: a 64 KiB TX FIFO (the chip's is unknown).
 */
void
sim_out_timing(struct sim_dev *s, struct ch39x_xfer *x)
{
	uint64_t now = now_ns(), fifo_ns = wire_ns(s, 65536) -
		wire_ns(s, 0);
	uint64_t done = sim_bus_reserve(s->out_free, now, sim_usb_ns(s, x->len));

	if (s->wire_free_ns > done + fifo_ns)
		done = s->wire_free_ns - fifo_ns;
	if (done > __atomic_load_n(s->out_free, __ATOMIC_RELAXED))
		__atomic_store_n(s->out_free, done, __ATOMIC_RELAXED);
	s->tx_start_ns = done;
	x->backend_ns = done;
}

/* ---- the cable side ---- */

/*
 * Put a frame on the cable. f is only read: it may be the host's bulk OUT
 * buffer itself, which the device must not write.
 */
void
sim_wire_send(struct sim_dev *s, const uint8_t *f, uint32_t len)
{
	uint8_t runt[CH39X_MIN_FRAME];
	uint64_t ts = 0;

	/* A MAC pads runts to the 60-byte minimum on the wire. */
	if (len < CH39X_MIN_FRAME) {
		memcpy(runt, f, len);
		memset(runt + len, 0, CH39X_MIN_FRAME - len);
		f = runt;
		len = CH39X_MIN_FRAME;
	}
	if (!link_up(s)) {
		SIM_ADD(s->cnt.tx_link_down, 1);
		return;
	}
	SIM_ADD(s->cnt.tx_frames, 1);
	if (s->cfg.line_rate) {
		uint64_t start = s->tx_start_ns > s->wire_free_ns ?
			s->tx_start_ns : s->wire_free_ns;

		ts = start + wire_ns(s, len);
		s->wire_free_ns = ts;
	}
	if (s->tx_ring != NULL) {
		ring_push(s->tx_ring, f, len, ts);
	} else if (s->pcap_out != NULL) {
		struct pcap_pkthdr h;

		gettimeofday(&h.ts, NULL);
		h.caplen = len;
		h.len = len;
		pcap_dump((u_char *)s->pcap_out, &h, f);
		/*
		 * Flushed at once, as net_pcap flushes each burst: a process
		 * killed, or one that never closes its ports (DPDK's skeleton
		 * example, OVS on SIGTERM), still leaves every frame it sent
		 * in the file. The transfer that carried it is the burst.
		 */
		pcap_dump_flush(s->pcap_out);
	} else if (s->tap_fd >= 0) {
		/*
		 * The kernel takes the frame at once or drops it (its queue
		 * full): that is the far end's loss, as on a real cable.
		 */
		if (write(s->tap_fd, f, len) != (ssize_t)len)
			SIM_ADD(s->cnt.tx_wire_dropped, 1);
	}
}

/*
 * Next frame from the cable into buf (room for CH39X_V02_MAX_FRAME + 1
 * bytes); returns its length or 0.
 */
static uint32_t
wire_recv(struct sim_dev *s, uint8_t *buf)
{
	uint32_t len = ring_pop(s->rx_ring, buf, CH39X_V02_MAX_FRAME,
				s->cfg.line_rate ? now_ns() : UINT64_MAX);

	if (len == 0 && s->pcap_in != NULL) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(s->pcap_in, &h, &data);

		if (rc == 1 && h->caplen > 0) {
			len = h->caplen > CH39X_V02_MAX_FRAME ?
				CH39X_V02_MAX_FRAME + 1 : h->caplen;
			memcpy(buf, data, len > CH39X_V02_MAX_FRAME ? 0 : len);
		} else if (rc != 1) {
			pcap_close(s->pcap_in);
			s->pcap_in = NULL;
		}
	} else if (len == 0 && s->tap_fd >= 0) {
		ssize_t n = read(s->tap_fd, buf, CH39X_V02_MAX_FRAME + 1);

		/* A frame longer than the buffer arrives cut: it is oversize. */
		len = n > 0 ? (uint32_t)n : 0;
	}
	return len;
}

/*
 * Say why a frame from the cable vanished: an oversize one is only counted
 * (rx_oversize), which leaves a user replaying a pcap of jumbo or TSO-sized
 * frames with no clue. The simulator has no EAL, so the line goes to
 * stderr, where EAL logs too; at most one a second for the whole process,
 * with the number held back since the last.
 */
static void
log_oversize(const struct sim_dev *s, uint32_t len, uint32_t max)
{
	static uint64_t next_ns;
	static uint64_t held;
	uint64_t now = now_ns();
	uint64_t next = __atomic_load_n(&next_ns, __ATOMIC_RELAXED);
	uint64_t n;

	if (now < next ||
	    !__atomic_compare_exchange_n(&next_ns, &next, now + 1000000000ULL,
					 false, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED)) {
		__atomic_add_fetch(&held, 1, __ATOMIC_RELAXED);
		return;
	}
	n = __atomic_exchange_n(&held, 0, __ATOMIC_RELAXED);
	fprintf(stderr, "ch39x_sim %s: dropped a %s%u-byte frame from %s%s: "
		"the adapter receives at most %u bytes now (jumbo frames need "
		"a larger MTU where the chip has them; counted in the "
		"sim_rx_oversize xstat)",
		s->cfg.serial, len > CH39X_V02_MAX_FRAME ? "over " : "",
		len > CH39X_V02_MAX_FRAME ? CH39X_V02_MAX_FRAME : len,
		s->pcap_in != NULL ? "the pcap file " : "the cable",
		s->pcap_in != NULL ? s->cfg.pcap_in : "", max);
	if (n > 0)
		fprintf(stderr, "; %" PRIu64 " more since the last such line",
			n);
	fputc('\n', stderr);
}

/*
 * Take the next accepted frame from the cable into buf (room for
 * CH39X_V02_MAX_FRAME + 1 bytes); returns its length, 0 when none has
 * arrived.
 */
uint32_t
sim_frame_take(struct sim_dev *s, uint8_t *buf)
{
	uint32_t len;
	bool up;

	for (;;) {
		len = wire_recv(s, buf);
		if (len == 0)
			return 0;
		SIM_ADD(s->cnt.wire_rx_frames, 1);
		up = link_up(s);
		if (!up) {
			SIM_ADD(s->cnt.rx_link_down, 1);
			continue;
		}
		/* The cable carries no runts: the sender's MAC pads them. */
		if (len < CH39X_MIN_FRAME) {
			memset(buf + len, 0, CH39X_MIN_FRAME - len);
			len = CH39X_MIN_FRAME;
		}
		if (len > s->model->rx_max_frame(s)) {
			SIM_ADD(s->cnt.rx_oversize, 1);
			log_oversize(s, len, s->model->rx_max_frame(s));
			continue;
		}
		if (!s->model->rx_accept(s, buf)) {
			SIM_ADD(s->cnt.rx_filtered, 1);
			continue;
		}
		return len;
	}
}

int
ch39x_sim_inject(struct ch39x_usb_dev *d, const uint8_t *frame, uint32_t len)
{
	return ring_push(to_sim(d)->rx_ring, frame, len, 0);
}

static int
pair_attach(struct sim_dev *s, char *err, size_t errlen)
{
	struct sim_pair *p;
	int rc = 0;

	pthread_mutex_lock(&pairs_lock);
	for (p = pairs; p; p = p->next)
		if (strcmp(p->name, s->cfg.pair_name) == 0)
			break;
	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL || (p->ring[0] = ring_new()) == NULL ||
		    (p->ring[1] = ring_new()) == NULL) {
			if (p)
				ring_free(p->ring[0]);
			free(p);
			snprintf(err, errlen, "out of memory for pair %s",
				 s->cfg.pair_name);
			rc = -1;
			goto out;
		}
		snprintf(p->name, sizeof(p->name), "%s", s->cfg.pair_name);
		p->next = pairs;
		pairs = p;
	}
	if (p->present[0] && p->present[1]) {
		snprintf(err, errlen,
			 "wire=pair:%s already cables two adapters together",
			 s->cfg.pair_name);
		rc = -1;
		goto out;
	}
	s->side = p->present[0] ? 1 : 0;
	p->present[s->side] = true;
	/* Not on the cable until ch39x_sim_open() negotiates. */
	memset(&p->adv[s->side], 0, sizeof(p->adv[s->side]));
	p->dev[s->side] = s;
	s->pair = p;
	s->rx_ring = p->ring[s->side];
	s->tx_ring = p->ring[1 - s->side];
out:
	pthread_mutex_unlock(&pairs_lock);
	return rc;
}

static void
pair_detach(struct sim_dev *s)
{
	struct sim_pair *p = s->pair, **pp;

	if (p == NULL)
		return;
	pthread_mutex_lock(&pairs_lock);
	__atomic_store_n(&p->present[s->side], false, __ATOMIC_RELAXED);
	/* The far end loses its partner. */
	memset(&p->adv[s->side], 0, sizeof(p->adv[s->side]));
	p->dev[s->side] = NULL;
	pair_resolve(p);
	if (!p->present[0] && !p->present[1]) {
		for (pp = &pairs; *pp; pp = &(*pp)->next) {
			if (*pp == p) {
				*pp = p->next;
				break;
			}
		}
		ring_free(p->ring[0]);
		ring_free(p->ring[1]);
		free(p);
	}
	pthread_mutex_unlock(&pairs_lock);
	s->pair = NULL;
}

/*
 * Open (creating when absent) the TAP interface name, without packet
 * information headers and non-blocking, so that the RX thread's poll never
 * waits. The interface lives while the descriptor is open unless it was
 * made persistent beforehand (ip tuntap add).
 */
static int
tap_open(const char *name, char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "wire=tap:%s: cannot open /dev/net/tun: %s",
			 name, strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errlen, "wire=tap:%s: TUNSETIFF failed: %s%s",
			 name, strerror(errno), errno == EPERM ?
			 " (needs CAP_NET_ADMIN)" : "");
		close(fd);
		return -1;
	}
	return fd;
}

/* Connect the far end of the cable that the configuration names. */
int
sim_wire_open(struct sim_dev *s, char *err, size_t errlen)
{
	const struct ch39x_sim_config *cfg = &s->cfg;
	char pe[PCAP_ERRBUF_SIZE];

	switch (cfg->wire) {
	case CH39X_WIRE_LOOP:
		s->own_ring = ring_new();
		s->rx_ring = s->own_ring;
		s->tx_ring = s->own_ring;
		break;
	case CH39X_WIRE_PAIR:
		if (pair_attach(s, err, errlen) != 0)
			return -1;
		break;
	case CH39X_WIRE_PCAP:
		s->own_ring = ring_new();
		s->rx_ring = s->own_ring;
		if (cfg->pcap_in[0]) {
			s->pcap_in = pcap_open_offline(cfg->pcap_in, pe);
			if (s->pcap_in == NULL) {
				snprintf(err, errlen, "wire=pcap: cannot read %s: %s",
					 cfg->pcap_in, pe);
				return -1;
			}
		}
		if (cfg->pcap_out[0]) {
			s->pcap_dead = pcap_open_dead(DLT_EN10MB, 65535);
			if (s->pcap_dead)
				s->pcap_out = pcap_dump_open(s->pcap_dead,
							     cfg->pcap_out);
			if (s->pcap_out == NULL) {
				snprintf(err, errlen, "wire=pcap: cannot write %s: %s",
					 cfg->pcap_out, s->pcap_dead ?
					 pcap_geterr(s->pcap_dead) : "no memory");
				return -1;
			}
		}
		break;
	case CH39X_WIRE_TAP:
		s->own_ring = ring_new();
		s->rx_ring = s->own_ring;
		s->tap_fd = tap_open(cfg->tap_name, err, errlen);
		if (s->tap_fd < 0)
			return -1;
		break;
	}
	if (s->rx_ring == NULL) {
		snprintf(err, errlen, "out of memory for the cable");
		return -1;
	}
	return 0;
}

/* Release what sim_wire_open() got, also after it failed half way. */
void
sim_wire_close(struct sim_dev *s)
{
	pair_detach(s);
	ring_free(s->own_ring);
	if (s->pcap_in)
		pcap_close(s->pcap_in);
	if (s->pcap_out)
		pcap_dump_close(s->pcap_out);
	if (s->pcap_dead)
		pcap_close(s->pcap_dead);
	if (s->tap_fd >= 0)
		close(s->tap_fd);
}
