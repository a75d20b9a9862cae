/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * RX wake-ups of the simulated adapter, for the PMD's Rx interrupts: the
 * model has no interrupt line, so the cable's producer (the peer's TX, or
 * this device's own in a loop) writes an eventfd when it pushes a frame
 * while the consumer is armed. The eventfd sits in an epoll set with the
 * TAP, when Linux is at the far end, so the one descriptor the PMD gives
 * EAL becomes readable for either; epoll sets nest.
 */

#include <errno.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ch39x_sim_priv.h"

static void
wake(int fd)
{
	/* A full counter (never here) or a closed fd: nothing to do. */
	if (eventfd_write(fd, 1) != 0)
		return;
}

void
sim_wake_pushed(struct sim_ring *r)
{
	int fd = __atomic_load_n(&r->wake_fd, __ATOMIC_RELAXED);

	if (fd < 0)
		return;
	/*
	 * The head store must be visible before armed is read, as armed is
	 * before the head in sim_rx_arm(): one side always sees the other,
	 * so a frame pushed while the consumer arms is never slept on.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->armed, __ATOMIC_RELAXED))
		wake(fd);
}

/* Whether the consumer has anything to take (bulk IN owner's thread). */
static bool
rx_pending(struct sim_dev *s)
{
	const struct sim_ring *r = s->rx_ring;
	struct pollfd p = { .fd = s->tap_fd, .events = POLLIN };

	if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) != r->tail)
		return true;
	if (s->stage_len != 0 || s->frame_held || s->pcap_in != NULL ||
	    s->done_head[CH39X_EP_BULK_IN] != NULL ||
	    __atomic_load_n(&s->local_pending, __ATOMIC_ACQUIRE) != 0)
		return true;
	return s->tap_fd >= 0 && poll(&p, 1, 0) == 1;
}

int
sim_rx_wake_fd(struct ch39x_usb_dev *d)
{
	struct sim_dev *s = to_sim(d);
	struct epoll_event ev = { .events = EPOLLIN };

	if (s->wake_ep >= 0)
		return s->wake_ep;
	s->wake_ev = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	s->wake_ep = epoll_create1(EPOLL_CLOEXEC);
	if (s->wake_ev < 0 || s->wake_ep < 0)
		goto fail;
	ev.data.fd = s->wake_ev;
	if (epoll_ctl(s->wake_ep, EPOLL_CTL_ADD, s->wake_ev, &ev) != 0)
		goto fail;
	ev.data.fd = s->tap_fd;
	if (s->tap_fd >= 0 &&
	    epoll_ctl(s->wake_ep, EPOLL_CTL_ADD, s->tap_fd, &ev) != 0)
		goto fail;
	__atomic_store_n(&s->rx_ring->wake_fd, s->wake_ev, __ATOMIC_RELEASE);
	return s->wake_ep;
fail:
	sim_wake_close(s);
	return -errno;
}

void
sim_rx_arm(struct ch39x_usb_dev *d, bool on)
{
	struct sim_dev *s = to_sim(d);
	struct sim_ring *r = s->rx_ring;
	eventfd_t v;

	if (s->wake_ev < 0)
		return;
	if (!on) {
		__atomic_store_n(&r->armed, 0, __ATOMIC_RELAXED);
		/* Clear the signal: EAGAIN when there was none. */
		if (eventfd_read(s->wake_ev, &v) != 0)
			return;
		return;
	}
	__atomic_store_n(&r->armed, 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (rx_pending(s))
		wake(s->wake_ev);
}

void
sim_wake_close(struct sim_dev *s)
{
	/* The ring may outlive this device (a pair): it forgets the fd. */
	if (s->rx_ring != NULL) {
		__atomic_store_n(&s->rx_ring->wake_fd, -1, __ATOMIC_RELEASE);
		__atomic_store_n(&s->rx_ring->armed, 0, __ATOMIC_RELEASE);
	}
	if (s->wake_ep >= 0)
		close(s->wake_ep);
	if (s->wake_ev >= 0)
		close(s->wake_ev);
	s->wake_ep = -1;
	s->wake_ev = -1;
}
