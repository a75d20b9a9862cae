/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * CPU that follows the load (--idle): what the forwarding loop does when
 * a loop found no packet. main.c calls cpe_idle() once at the end of
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
 * The deadline of a wait is the earliest of: the caller's (statistics,
 * --duration), a QoS shaper's next release (cpe_qos_next_tsc() when
 * cpe_qos_pending(), qos.c),
 * what other parts asked with cpe_idle_wake_by(), and IDLE_WAIT_MAX_MS,
 * which bounds how late housekeeping (aging, ARP probes) runs while
 * nothing arrives. Descriptors that should end a wait (a TAP) are added
 * with cpe_idle_watch_fd(); other threads and signal handlers end it with
 * cpe_idle_kick().
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
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

#include "cpe.h"

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

static struct {
	enum idle_state state;
	uint64_t last_work;		/* TSC of the last loop with packets */
	uint64_t wake_by;		/* cpe_idle_wake_by(), this loop */
	uint32_t sleep_us;		/* next adaptive sleep */
	uint64_t spin_tsc;		/* --idle-spin in TSC cycles */
	bool intr[CPE_MAX_PORTS];	/* port index: Rx interrupt in epoll */
	bool no_intr[RTE_MAX_ETHPORTS];	/* port id: start refused them */
	uint16_t nb_intr;		/* ports with interrupts */
	struct rte_epoll_event fd_ev[IDLE_MAX_FDS];
	uint16_t nb_fds;
	/*
	 * DPDK ports (bit: index in cpe.phys) the next loop polls: after a
	 * wake-up by Rx interrupts alone, only those that fired (a poll of
	 * the others would be a system call that finds nothing: whatever
	 * finishes there later fires too, and the loop after polls all).
	 */
	uint32_t poll_mask;
} idle = { .wake_by = UINT64_MAX, .poll_mask = UINT32_MAX };
/* An eventfd in the wait's epoll set, or -1 (atomic: any thread reads). */
static int kick_fd = -1;

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

/* Whether port_start() asks the port for Rx interrupts (router ports). */
bool
cpe_idle_want_intr(uint16_t port_id)
{
	const struct cpe_opts *o = cpe.o;
	uint16_t i;

	if (o->idle != CPE_IDLE_INTERRUPT || idle.no_intr[port_id])
		return false;
	for (i = 0; i < o->nb_ports; i++)
		if (o->ports[i].id == port_id)
			return true;
	return false;
}

bool
cpe_idle_intr_refused(uint16_t port_id)
{
	if (!cpe_idle_want_intr(port_id))
		return false;
	idle.no_intr[port_id] = true;
	fprintf(stderr, "ch39x-cpe: --idle interrupt: port %u refused Rx "
		"interrupts; starting it without them (it is polled at least "
		"every %u us while idle)\n", port_id, IDLE_SLEEP_MAX_US);
	return true;
}

void
cpe_idle_wake_by(uint64_t tsc)
{
	if (tsc < idle.wake_by)
		idle.wake_by = tsc;
}

int
cpe_idle_watch_fd(int fd)
{
	struct rte_epoll_event *ev;
	int rc;

	if (cpe.o->idle != CPE_IDLE_INTERRUPT)
		return 0;
	if (idle.nb_fds == IDLE_MAX_FDS)
		return -ENOSPC;
	ev = &idle.fd_ev[idle.nb_fds];
	memset(ev, 0, sizeof(*ev));
	ev->epdata.event = EPOLLIN | EPOLLET;
	rc = rte_epoll_ctl(RTE_EPOLL_PER_THREAD, EPOLL_CTL_ADD, fd, ev);
	if (rc == 0)
		idle.nb_fds++;
	return rc;
}

/*
 * Any thread, and signal handlers (write(2) is async-signal-safe): ends
 * the forwarding thread's interrupt wait, or its next one. Edge-triggered:
 * every write is an event, the counter is never read.
 */
void
cpe_idle_kick(void)
{
	int fd = __atomic_load_n(&kick_fd, __ATOMIC_ACQUIRE);

	if (fd >= 0 && eventfd_write(fd, 1) != 0)
		return;	/* a full counter: a wake-up is pending anyway */
}

static void
kick_init(void)
{
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (fd >= 0 && cpe_idle_watch_fd(fd) == 0) {
		__atomic_store_n(&kick_fd, fd, __ATOMIC_RELEASE);
		return;
	}
	fprintf(stderr, "ch39x-cpe: --idle interrupt: no wake-up descriptor "
		"(%s); telemetry commands and SIGTERM wait for the next "
		"wake-up (at most %u ms)\n", strerror(errno),
		IDLE_WAIT_MAX_MS);
	if (fd >= 0)
		close(fd);
}

/* The forwarding thread, before its first loop: the per-thread epoll. */
void
cpe_idle_init(void)
{
	uint16_t i, id;
	int rc;

	idle.last_work = rte_rdtsc();
	idle.sleep_us = IDLE_SLEEP_MIN_US;
	idle.spin_tsc = cpe.hz * cpe.o->idle_spin_us / 1000000;
	if (cpe.o->idle != CPE_IDLE_INTERRUPT)
		return;
	kick_init();
	/* Per DPDK port: its VLAN interfaces share one RX queue. */
	for (i = 0; i < cpe.nb_phys; i++) {
		id = cpe.phys[i].id;
		if (idle.no_intr[id])
			continue;
		/* i + 1: descriptors of cpe_idle_watch_fd() carry 0. */
		rc = rte_eth_dev_rx_intr_ctl_q(id, 0, RTE_EPOLL_PER_THREAD,
					       RTE_INTR_EVENT_ADD,
					       (void *)(uintptr_t)(i + 1));
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: --idle interrupt: port %u "
				"has no Rx interrupt (%s); it is polled at "
				"least every %u us while idle\n", id,
				rte_strerror(-rc), IDLE_SLEEP_MAX_US);
			continue;
		}
		idle.intr[i] = true;
		idle.nb_intr++;
	}
}

/*
 * Around a re-probe (hotplug.c, on the forwarding thread): the removed
 * port's queue leaves the epoll set before its port is closed (EAL's
 * event record lives in the port's interrupt handle), and the new port's
 * joins it once started, under the same tag.
 */
void
cpe_idle_port_detach(uint16_t k)
{
	if (!idle.intr[k])
		return;
	rte_eth_dev_rx_intr_ctl_q(cpe.phys[k].id, 0, RTE_EPOLL_PER_THREAD,
				  RTE_INTR_EVENT_DEL, NULL);
	idle.intr[k] = false;
	idle.nb_intr--;
}

void
cpe_idle_port_attach(uint16_t k)
{
	uint16_t id = cpe.phys[k].id;
	int rc;

	if (cpe.o->idle != CPE_IDLE_INTERRUPT || idle.intr[k] ||
	    idle.no_intr[id])
		return;
	rc = rte_eth_dev_rx_intr_ctl_q(id, 0, RTE_EPOLL_PER_THREAD,
				       RTE_INTR_EVENT_ADD,
				       (void *)(uintptr_t)(k + 1));
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: --idle interrupt: port %u has no "
			"Rx interrupt after its re-probe (%s); it is polled at "
			"least every %u us while idle\n", id, rte_strerror(-rc),
			IDLE_SLEEP_MAX_US);
		return;
	}
	idle.intr[k] = true;
	idle.nb_intr++;
}

static void
arm(bool on)
{
	uint16_t i;

	for (i = 0; i < cpe.nb_phys; i++) {
		if (!idle.intr[i])
			continue;
		if (on)
			rte_eth_dev_rx_intr_enable(cpe.phys[i].id, 0);
		else
			rte_eth_dev_rx_intr_disable(cpe.phys[i].id, 0);
	}
}

bool
cpe_idle_poll_port(uint16_t phys)
{
	return (idle.poll_mask >> phys) & 1;
}

/* The ports a wake-up's events name; all when anything else woke it. */
static uint32_t
woken_ports(const struct rte_epoll_event *ev, int n)
{
	uint32_t mask = 0;
	uintptr_t d;
	int k;

	for (k = 0; k < n; k++) {
		d = (uintptr_t)ev[k].epdata.data;
		if (d == 0 || d > cpe.nb_phys)
			return UINT32_MAX;
		mask |= 1u << (d - 1);
	}
	return n > 0 ? mask : UINT32_MAX;
}

/* Whether the loop has work that is not waiting for a packet. */
static bool
pending(uint32_t got)
{
	uint16_t i;

	if (got)
		return true;
	/* TX the PMD did not take yet: retried every loop. */
	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe.ports[i].nb_tx)
			return true;
	return false;
}

/* Microseconds until the deadline, at most cap; 0 when it is due. */
static uint64_t
until_us(uint64_t now, uint64_t deadline, uint64_t cap)
{
	uint64_t us;

	if (deadline <= now)
		return 0;
	us = (deadline - now) * 1000000 / cpe.hz;
	return RTE_MIN(us, cap);
}

static void
sleep_us(uint64_t us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};
	uint64_t t0 = rte_rdtsc();

	nanosleep(&ts, NULL);
	cpe.st.idle_sleeps++;
	cpe.st.idle_cycles += rte_rdtsc() - t0;
}

static void
adaptive(uint64_t now, uint64_t deadline)
{
	uint64_t us = until_us(now, deadline, idle.sleep_us);

	if (us == 0)
		return;
	sleep_us(us);
	idle.sleep_us = RTE_MIN(idle.sleep_us * 2, IDLE_SLEEP_MAX_US);
}

/* Armed, and the re-poll found nothing: wait for a frame or the deadline. */
static void
intr_wait(uint64_t now, uint64_t deadline)
{
	struct rte_epoll_event ev[CPE_MAX_PORTS + IDLE_MAX_FDS];
	uint64_t cap, us, t0;
	int n;

	/* A polled port bounds the wait as adaptive does. */
	cap = idle.nb_intr == cpe.nb_phys ? IDLE_WAIT_MAX_MS * 1000u :
		IDLE_SLEEP_MAX_US;
	us = until_us(now, deadline, cap);
	if (us == 0)
		return;
	if (idle.nb_intr == 0 || us < 1000) {
		/* epoll counts milliseconds: shorter waits sleep. */
		sleep_us(us);
		return;
	}
	t0 = rte_rdtsc();
	n = rte_epoll_wait_interruptible(RTE_EPOLL_PER_THREAD, ev,
					 (int)RTE_DIM(ev), (int)(us / 1000));
	cpe.st.idle_cycles += rte_rdtsc() - t0;
	cpe.st.idle_intr_waits++;
	if (n > 0)
		cpe.st.idle_intr_wakeups++;
	idle.poll_mask = woken_ports(ev, n);
}

void
cpe_idle(uint32_t got, uint64_t deadline)
{
	const enum cpe_idle_mode mode = cpe.o->idle;
	uint64_t now;

	if (mode == CPE_IDLE_POLL)
		return;
	idle.poll_mask = UINT32_MAX;	/* one loop only */
	now = rte_rdtsc();
	deadline = RTE_MIN(deadline, idle.wake_by);
	idle.wake_by = UINT64_MAX;
	if (cpe_qos_pending())
		deadline = RTE_MIN(deadline, cpe_qos_next_tsc());
	if (pending(got)) {
		idle.last_work = now;
		idle.sleep_us = IDLE_SLEEP_MIN_US;
		if (idle.state == ARMED) {
			/* The re-poll after arming found frames. */
			arm(false);
			idle.state = BUSY;
		}
		return;
	}
	if (now - idle.last_work < idle.spin_tsc)
		return;
	if (mode == CPE_IDLE_ADAPTIVE) {
		adaptive(now, deadline);
		return;
	}
	if (idle.state == BUSY && idle.nb_intr) {
		/* Arm, then poll once more before sleeping: no lost frame. */
		arm(true);
		idle.state = ARMED;
		return;
	}
	intr_wait(now, deadline);
	if (idle.state == ARMED) {
		arm(false);
		idle.state = BUSY;
	}
	/*
	 * Woken: one poll, and when it is empty, straight back to sleep
	 * (after the re-poll that arming takes), without a new spin.
	 */
}

void
cpe_idle_stats_print(FILE *f)
{
	const struct cpe_stats *s = &cpe.st;
	struct timespec t, p;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &p);
	fprintf(f, "  idle (%s): sleeps %" PRIu64 " interrupt waits %" PRIu64
		" woken by frames %" PRIu64 " (polls of other ports skipped %"
		PRIu64 ") asleep %.3f s, ports with Rx "
		"interrupts %u of %u; CPU since start: forwarding thread "
		"%.3f s, process %.3f s\n", cpe_idle_mode_name(cpe.o->idle),
		s->idle_sleeps, s->idle_intr_waits, s->idle_intr_wakeups,
		s->idle_polls_skipped,
		(double)s->idle_cycles / (double)cpe.hz, idle.nb_intr,
		cpe.nb_phys, (double)t.tv_sec + (double)t.tv_nsec / 1e9,
		(double)p.tv_sec + (double)p.tv_nsec / 1e9);
}

void
cpe_idle_stats_json(FILE *f)
{
	const struct cpe_stats *s = &cpe.st;

	fprintf(f, "  \"idle\": {\"mode\": \"%s\", \"sleeps\": %" PRIu64
		", \"intr_waits\": %" PRIu64 ", \"intr_wakeups\": %" PRIu64
		", \"polls_skipped\": %" PRIu64
		", \"asleep_s\": %.3f, \"intr_ports\": %u},\n"
		"  \"process_cpu_s\": %.3f,\n",
		cpe_idle_mode_name(cpe.o->idle), s->idle_sleeps,
		s->idle_intr_waits, s->idle_intr_wakeups,
		s->idle_polls_skipped,
		(double)s->idle_cycles / (double)cpe.hz, idle.nb_intr,
		(double)s->process_cpu_ns / 1e9);
}
