/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * CPU that follows the load (--idle): what the forwarding loop does when
 * a loop found no packet. loop.c calls cpe_idle() once at the end of
 * every loop with the number of packets received and the earliest time
 * the loop must run anyway (statistics, the end of --duration).
 *
 *   poll       busy polling, as before: lowest latency, one core at 100 %
 *              whatever the load.
 *   adaptive   after --idle-spin without a packet, sleeps of growing
 *              length (IDLE_SLEEP_MIN_US doubling up to IDLE_SLEEP_MAX_US),
 *              back to polling at the first packet. Any PMD.
 *   interrupt  after --idle-spin without a packet, the ports' Rx
 *              interrupts are armed (as DPDK's l3fwd-power does), the
 *              ports polled once more (a frame that came between the last
 *              poll and the arming), then the thread waits in epoll until
 *              a port has a frame or the next deadline; interrupts are
 *              disarmed on wake. Ports whose PMD has no Rx interrupts are
 *              still served: the wait is then bounded by IDLE_SLEEP_MAX_US,
 *              as adaptive.
 *
 * In adaptive and interrupt modes, a loop that received nothing while a
 * port's backlog has no room for a burst (cpe_phys_tx_full(): the ports
 * whose frames go there are not read meanwhile, datapath/port_rx.c)
 * sleeps too, as adaptive does (IDLE_SLEEP_MIN_US doubling up to
 * IDLE_SLEEP_MAX_US), instead of retrying that backlog at full speed: the
 * PMD's ring is full behind it, so the link has at least a ring of frames
 * to send meanwhile, and the CPU is left to whatever drains it.
 *
 * The deadline of a wait is the earliest of: the caller's (statistics,
 * --duration), a QoS shaper's next release (cpe_qos_next_tsc() when
 * cpe_qos_pending(), datapath/qos_sched.h),
 * what other parts asked with cpe_idle_wake_by(), and IDLE_WAIT_MAX_MS,
 * which bounds how late housekeeping (aging, ARP probes) runs while
 * nothing arrives. Descriptors that should end a wait (a TAP) are added
 * with cpe_idle_watch_fd() (a TAP, the signals' signalfd); other threads
 * end it with cpe_idle_kick().
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>

#include "idle.h"
#include "qos_sched.h"
#include "router.h"

/*
 * Polling goes on --idle-spin microseconds (CPE_DEF_IDLE_SPIN_US) after
 * the last packet before any sleep: frames that come closer than this
 * never pay a wake-up; an idle router decides within that time.
 */
/*
 * Adaptive sleeps: the first is short (the next frame is likely near),
 * the longest 1 ms: the first frame after a pause waits at most that
 * long, and the Rx ring (512 descriptors) holds a millisecond of
 * 1500-byte frames at several Gbit/s; 1000 wake-ups a second cost well
 * under 1 % of a core, and longer sleeps would save little more. nanosleep
 * adds the thread's timer slack (50 us by default) to each.
 */
#define IDLE_SLEEP_MIN_US	16u
#define IDLE_SLEEP_MAX_US	1000u
/*
 * The longest interrupt wait: housekeeping (aging, neighbour probes) runs
 * at least this often while nothing arrives. Each wake-up of an idle
 * router costs CPU (doc/guides/cpe.rst), and what cannot wait that long
 * ends the wait itself: frames, TAP writes, the shaper's and the
 * statistics' deadlines, a telemetry command and SIGTERM
 * (cpe_idle_kick()).
 */
#define IDLE_WAIT_MAX_MS	1000u
#define IDLE_MAX_FDS		(CPE_MAX_PORTS + 4)

enum idle_state { BUSY, ARMED };

struct cpe_idle {
	enum idle_state state;
	uint64_t last_work;		/* TSC of the last loop with packets */
	uint64_t wake_by;		/* cpe_idle_wake_by(), this loop */
	uint32_t sleep_us;		/* next adaptive sleep */
	uint32_t tx_sleep_us;		/* next sleep on a full backlog */
	uint64_t spin_tsc;		/* --idle-spin in TSC cycles */
	bool intr[CPE_MAX_PORTS];	/* port index: Rx interrupt in epoll */
	bool no_intr[RTE_MAX_ETHPORTS];	/* port id: start refused them */
	uint16_t nb_intr;		/* ports with interrupts */
	struct rte_epoll_event fd_ev[IDLE_MAX_FDS];
	uint16_t nb_fds;
	/* An eventfd in the wait's epoll set, or -1 (atomic: any thread
	 * reads it). */
	int kick_fd;
};


const char *
cpe_idle_mode_name(enum cpe_idle_mode m)
{
	switch (m) {
	case CPE_IDLE_POLL:
		return "poll";
	case CPE_IDLE_ADAPTIVE:
		return "adaptive";
	case CPE_IDLE_INTERRUPT:
		return "interrupt";
	}
	return "?";
}

int
cpe_idle_create(struct cpe_router *r)
{
	r->idle = calloc(1, sizeof(*r->idle));
	if (r->idle == NULL)
		return -ENOMEM;
	r->idle->wake_by = UINT64_MAX;
	r->idle->kick_fd = -1;
	r->dp->env.poll_mask = UINT32_MAX;
	return 0;
}

/* After the loop, once no thread can kick (cpe_ctl_close()). */
void
cpe_idle_free(struct cpe_router *r)
{
	if (r->idle == NULL)
		return;
	if (r->idle->kick_fd >= 0)
		close(r->idle->kick_fd);
	free(r->idle);
	r->idle = NULL;
}

/* Whether a port's start asks it for Rx interrupts (router ports). */
bool
cpe_idle_want_intr(const struct cpe_router *r, uint16_t port_id)
{
	const struct cpe_opts *o = r->o;
	uint16_t i;

	if (o->idle != CPE_IDLE_INTERRUPT || r->idle->no_intr[port_id])
		return false;
	for (i = 0; i < o->nb_ports; i++)
		if (o->ports[i].id == port_id)
			return true;
	return false;
}

bool
cpe_idle_intr_refused(struct cpe_router *r, uint16_t port_id)
{
	if (!cpe_idle_want_intr(r, port_id))
		return false;
	r->idle->no_intr[port_id] = true;
	fprintf(stderr, "ch39x-cpe: --idle interrupt: port %u refused Rx "
		"interrupts; starting it without them (it is polled at least "
		"every %u us while idle)\n", port_id, IDLE_SLEEP_MAX_US);
	return true;
}

void
cpe_idle_wake_by(struct cpe_router *r, uint64_t tsc)
{
	if (tsc < r->idle->wake_by)
		r->idle->wake_by = tsc;
}

int
cpe_idle_watch_fd(struct cpe_router *r, int fd)
{
	struct cpe_idle *d = r->idle;
	struct rte_epoll_event *ev;
	int rc;

	if (r->o->idle != CPE_IDLE_INTERRUPT)
		return 0;
	if (d->nb_fds == IDLE_MAX_FDS)
		return -ENOSPC;
	ev = &d->fd_ev[d->nb_fds];
	memset(ev, 0, sizeof(*ev));
	ev->epdata.event = EPOLLIN | EPOLLET;
	rc = rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, fd, ev);
	if (rc == 0)
		d->nb_fds++;
	return rc;
}

/*
 * Any thread (an eventfd write, async-signal-safe too): ends
 * the forwarding thread's interrupt wait, or its next one. Edge-triggered:
 * every write is an event, the counter is never read.
 */
void
cpe_idle_kick(struct cpe_router *r)
{
	int fd = r == NULL || r->idle == NULL ? -1 :
		__atomic_load_n(&r->idle->kick_fd, __ATOMIC_ACQUIRE);

	if (fd >= 0 && eventfd_write(fd, 1) != 0)
		return;	/* a full counter: a wake-up is pending anyway */
}

static void
kick_init(struct cpe_router *r)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd >= 0 && cpe_idle_watch_fd(r, fd) == 0) {
		__atomic_store_n(&r->idle->kick_fd, fd, __ATOMIC_RELEASE);
		return;
	}
	fprintf(stderr, "ch39x-cpe: --idle interrupt: no wake-up descriptor "
		"(%s); telemetry commands and SIGTERM wait for the next "
		"wake-up (at most %u ms)\n", strerror(errno),
		IDLE_WAIT_MAX_MS);
	if (fd >= 0)
		close(fd);
}

/* DPDK port k's Rx interrupt into the thread's wait: 0 or <0. */
static int
intr_add(struct cpe_router *r, uint16_t k)
{
	uint16_t id = r->dp->ifs.phys[k].id;
	int rc;

	/* k + 1: descriptors of cpe_idle_watch_fd() carry 0. */
	rc = rte_eth_dev_rx_intr_ctl_q(id, 0, RTE_EPOLL_PER_THREAD,
				       RTE_INTR_EVENT_ADD,
				       (void *)(uintptr_t)(k + 1));
	if (rc != 0)
		return rc;
	r->idle->intr[k] = true;
	r->idle->nb_intr++;
	return 0;
}

/* The forwarding thread, before its first loop: the per-thread epoll. */
void
cpe_idle_init(struct cpe_router *r)
{
	struct cpe_idle *d = r->idle;
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t i;
	int rc;

	d->last_work = rte_rdtsc();
	d->sleep_us = IDLE_SLEEP_MIN_US;
	d->tx_sleep_us = IDLE_SLEEP_MIN_US;
	d->spin_tsc = r->dp->env.hz * r->o->idle_spin_us / 1000000;
	if (r->o->idle != CPE_IDLE_INTERRUPT)
		return;
	kick_init(r);
	/* What Linux writes to a TAP ends an interrupt wait too. */
	for (i = 0; i < ifs->nb; i++)
		if (r->dp->tap_fd[i] >= 0 &&
		    cpe_idle_watch_fd(r, r->dp->tap_fd[i]) != 0)
			fprintf(stderr, "ch39x-cpe: TAP of port %u: not in the "
				"idle wait; Linux's frames wait for the next "
				"wake-up (at most 1 s)\n", ifs->ifs[i].id);
	/* Per DPDK port: its VLAN interfaces share one RX queue. */
	for (i = 0; i < ifs->nb_phys; i++) {
		if (d->no_intr[ifs->phys[i].id])
			continue;
		rc = intr_add(r, i);
		if (rc != 0)
			fprintf(stderr, "ch39x-cpe: --idle interrupt: port %u "
				"has no Rx interrupt (%s); it is polled at "
				"least every %u us while idle\n",
				ifs->phys[i].id, rte_strerror(-rc),
				IDLE_SLEEP_MAX_US);
	}
}

/*
 * Around a re-probe (hotplug.c, on the forwarding thread): the removed
 * port's queue leaves the epoll set before its port is closed (EAL's
 * event record lives in the port's interrupt handle), and the new port's
 * joins it once started, under the same tag.
 */
void
cpe_idle_port_detach(struct cpe_router *r, uint16_t k)
{
	if (!r->idle->intr[k])
		return;
	rte_eth_dev_rx_intr_ctl_q(r->dp->ifs.phys[k].id, 0,
				  RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_DEL,
				  NULL);
	r->idle->intr[k] = false;
	r->idle->nb_intr--;
}

void
cpe_idle_port_attach(struct cpe_router *r, uint16_t k)
{
	uint16_t id = r->dp->ifs.phys[k].id;
	int rc;

	if (r->o->idle != CPE_IDLE_INTERRUPT || r->idle->intr[k] ||
	    r->idle->no_intr[id])
		return;
	rc = intr_add(r, k);
	if (rc != 0)
		fprintf(stderr, "ch39x-cpe: --idle interrupt: port %u has no "
			"Rx interrupt after its re-probe (%s); it is polled at "
			"least every %u us while idle\n", id, rte_strerror(-rc),
			IDLE_SLEEP_MAX_US);
}

uint16_t
cpe_idle_intr_ports(const struct cpe_router *r)
{
	return r->idle->nb_intr;
}

static void
arm(struct cpe_router *r, bool on)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t i;

	for (i = 0; i < ifs->nb_phys; i++) {
		if (!r->idle->intr[i])
			continue;
		if (on)
			rte_eth_dev_rx_intr_enable(ifs->phys[i].id, 0);
		else
			rte_eth_dev_rx_intr_disable(ifs->phys[i].id, 0);
	}
}

/*
 * The DPDK ports (bit: phys index) the next walk polls: after a wake-up
 * by Rx interrupts alone, only those that fired (a poll of the others
 * would be a system call that finds nothing: whatever finishes there
 * later fires too, and the walk after polls all); all when anything
 * else woke it.
 */
static uint32_t
woken_ports(const struct cpe_router *r, const struct rte_epoll_event *ev,
	    int n)
{
	uint32_t mask = 0;
	uintptr_t d;
	int k;

	for (k = 0; k < n; k++) {
		d = (uintptr_t)ev[k].epdata.data;
		if (d == 0 || d > r->dp->ifs.nb_phys)
			return UINT32_MAX;
		mask |= 1u << (d - 1);
	}
	return n > 0 ? mask : UINT32_MAX;
}

/* Whether the loop has work that is not waiting for a packet. */
static bool
pending(const struct cpe_router *r, uint32_t got)
{
	uint16_t k;

	if (got)
		return true;
	/* TX the PMD did not take yet: retried every loop. */
	for (k = 0; k < r->dp->ifs.nb_phys; k++)
		if (r->dp->ifs.phys[k].tx_backlog)
			return true;
	return false;
}

/* Whether some port's backlog has no room for a burst. */
static bool
tx_full(const struct cpe_router *r)
{
	uint16_t k;

	for (k = 0; k < r->dp->ifs.nb_phys; k++)
		if (cpe_phys_tx_full(&r->dp->ifs.phys[k]))
			return true;
	return false;
}

/* Microseconds until the deadline, at most cap; 0 when it is due. */
static uint64_t
until_us(const struct cpe_router *r, uint64_t now, uint64_t deadline,
	 uint64_t cap)
{
	uint64_t us;

	if (deadline <= now)
		return 0;
	us = (deadline - now) * 1000000 / r->dp->env.hz;
	return RTE_MIN(us, cap);
}

static void
sleep_us(struct cpe_router *r, uint64_t us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};
	uint64_t t0 = rte_rdtsc();

	nanosleep(&ts, NULL);
	r->st.idle_sleeps++;
	r->st.idle_cycles += rte_rdtsc() - t0;
}

static void
adaptive(struct cpe_router *r, uint64_t now, uint64_t deadline)
{
	uint64_t us = until_us(r, now, deadline, r->idle->sleep_us);

	if (us == 0)
		return;
	sleep_us(r, us);
	r->idle->sleep_us = RTE_MIN(r->idle->sleep_us * 2, IDLE_SLEEP_MAX_US);
}

/* Nothing came and a backlog is full: a sleep while its device drains. */
static void
tx_wait(struct cpe_router *r, uint64_t now, uint64_t deadline)
{
	struct cpe_idle *d = r->idle;
	uint64_t us = until_us(r, now, deadline, d->tx_sleep_us);

	/* Work is waiting: no spin before the next sleep of the idle kind. */
	d->last_work = now;
	d->sleep_us = IDLE_SLEEP_MIN_US;
	if (d->state == ARMED) {
		arm(r, false);
		d->state = BUSY;
	}
	if (us == 0)
		return;
	sleep_us(r, us);
	r->st.idle_tx_waits++;
	d->tx_sleep_us = RTE_MIN(d->tx_sleep_us * 2, IDLE_SLEEP_MAX_US);
}

/* Armed, and the re-poll found nothing: wait for a frame or the deadline. */
static void
intr_wait(struct cpe_router *r, uint64_t now, uint64_t deadline)
{
	struct rte_epoll_event ev[CPE_MAX_PORTS + IDLE_MAX_FDS];
	struct cpe_idle *d = r->idle;
	uint64_t cap, us, t0;
	int n;

	/* A polled port bounds the wait as adaptive does. */
	cap = d->nb_intr == r->dp->ifs.nb_phys ? IDLE_WAIT_MAX_MS * 1000u :
		IDLE_SLEEP_MAX_US;
	us = until_us(r, now, deadline, cap);
	if (us == 0)
		return;
	if (d->nb_intr == 0 || us < 1000) {
		/* epoll counts milliseconds: shorter waits sleep. */
		sleep_us(r, us);
		return;
	}
	t0 = rte_rdtsc();
	n = rte_epoll_wait_interruptible(RTE_EPOLL_PER_THREAD, ev,
					 (int)RTE_DIM(ev), (int)(us / 1000));
	r->st.idle_cycles += rte_rdtsc() - t0;
	r->st.idle_intr_waits++;
	if (n > 0)
		r->st.idle_intr_wakeups++;
	r->dp->env.poll_mask = woken_ports(r, ev, n);
}

/* The earliest time the loop must run: the caller's, the shaper's. */
static uint64_t
deadline_of(struct cpe_router *r, uint64_t deadline)
{
	deadline = RTE_MIN(deadline, r->idle->wake_by);
	r->idle->wake_by = UINT64_MAX;
	if (cpe_qos_pending(r->dp->qos))
		deadline = RTE_MIN(deadline, cpe_qos_next_tsc(r->dp->qos));
	return deadline;
}

void
cpe_idle(struct cpe_router *r, uint32_t got, uint64_t deadline)
{
	const enum cpe_idle_mode mode = r->o->idle;
	struct cpe_idle *d = r->idle;
	uint64_t now;

	if (mode == CPE_IDLE_POLL)
		return;
	r->dp->env.poll_mask = UINT32_MAX;	/* one loop only */
	now = rte_rdtsc();
	deadline = deadline_of(r, deadline);
	if (!got && tx_full(r)) {
		tx_wait(r, now, deadline);
		return;
	}
	d->tx_sleep_us = IDLE_SLEEP_MIN_US;
	if (pending(r, got)) {
		d->last_work = now;
		d->sleep_us = IDLE_SLEEP_MIN_US;
		if (d->state == ARMED) {
			/* The re-poll after arming found frames. */
			arm(r, false);
			d->state = BUSY;
		}
		return;
	}
	if (now - d->last_work < d->spin_tsc)
		return;
	if (mode == CPE_IDLE_ADAPTIVE) {
		adaptive(r, now, deadline);
		return;
	}
	if (d->state == BUSY && d->nb_intr) {
		/* Arm, then poll once more before sleeping: no lost frame. */
		arm(r, true);
		d->state = ARMED;
		return;
	}
	intr_wait(r, now, deadline);
	if (d->state == ARMED) {
		arm(r, false);
		d->state = BUSY;
	}
	/*
	 * Woken: one poll, and when it is empty, straight back to sleep
	 * (after the re-poll that arming takes), without a new spin.
	 */
}
