/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: the interrupt IN endpoint. Its transfer is submitted at
 * start and stays submitted; an EAL alarm hands each completion to the
 * device type's notify op (link events) and sees removal while the port
 * is started. Where the transport calls intr_reaped() as it reaps the
 * transfer (libusb), the alarm is event-driven: the application's own
 * polls or its Rx interrupt wake-up reap it, and intr_reaped() brings the
 * alarm at once; the alarm then only looks seldom, as a safety net. It
 * looks every CH39X_INTR_POLL_MS only while no other thread reaps (the
 * port started but nobody polls it) or without the hook (the simulated
 * adapter). EAL's interrupt thread, except intr_reaped(), which runs on
 * whatever thread reaped the transfer.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_alarm.h>
#include <rte_cycles.h>

#include "ch39x_adapter.h"
#include "ch39x_intr.h"
#include "ch39x_presence.h"
#include "ch39x_rx.h"

/*
 * Looking for a completed interrupt transfer (link events): at most this
 * long after the device answered (intr_poll_us()).
 */
#ifndef CH39X_INTR_POLL_MS
#define CH39X_INTR_POLL_MS	2
#endif
/*
 * While the application sleeps on the Rx interrupt: the wake-up
 * descriptor fires for the interrupt endpoint too, and reaping that
 * transfer (or the disarm, without the transport's intr_hook) resumes the
 * short period, so this look is only a safety net (an application that
 * polls while armed).
 */
#define CH39X_INTR_ARMED_POLL_MS 1000
/*
 * While another thread reaps the device's transfers (the application
 * polls: the transport's event_rounds moved since the last look) and
 * the transport calls intr_reaped() for the interrupt transfer: the news
 * comes by that call, and this look is the safety net that notices when
 * the application stops polling (then the short period resumes) and
 * runs the device type's tick (RNDIS's KEEPALIVE after 5 s of silence).
 * 500 looks a second were 8-24 % of a vCPU beside an RNDIS router's
 * flood in the VM (doc/perf/cpe_rndis_wan.txt).
 */
#ifndef CH39X_INTR_WATCH_MS
#define CH39X_INTR_WATCH_MS	100
#endif

void
ch39x_intr_poll(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	struct ch39x_xfer *x;

	while (u->ops->poll(u, CH39X_EP_INTR_IN, &x, 1) == 1) {
		if (x->status == CH39X_XFER_NO_DEVICE) {
			ch39x_set_gone(ad, true);
			break;
		}
		if (x->status != CH39X_XFER_CANCELLED)
			ch39x_ops(ad)->notify(ad, x);
		if (x->status != CH39X_XFER_OK &&
		    x->status != CH39X_XFER_CANCELLED)
			ad->intr_errors++;
		if (x->status == CH39X_XFER_STALL)
			u->ops->clear_halt(u, CH39X_EP_INTR_IN);
		if (x->status != CH39X_XFER_CANCELLED && ch39x_started(ad) &&
		    u->ops->submit(u, x) == -ENODEV)
			ch39x_set_gone(ad, true);
	}
	if (ch39x_ops(ad)->tick != NULL && ch39x_started(ad) &&
	    !ch39x_is_gone(ad))
		ch39x_ops(ad)->tick(ad);
}

/*
 * How often the alarm looks for a completed interrupt transfer. The host
 * controller polls the endpoint every bInterval and completes the transfer
 * as soon as the device answers; looking only every bInterval as well
 * would add up to a second interval before the link drop is known (a
 * bonding failover loses line rate for that long, issue 14). So the PMD
 * looks every CH39X_INTR_POLL_MS, and the chip's interval is what is left.
 */
static uint64_t
intr_poll_us(const struct ch39x_adapter *ad)
{
	uint32_t ms = ad->info.intr_interval_ms;

	if (ms == 0 || ms > CH39X_INTR_POLL_MS)
		ms = CH39X_INTR_POLL_MS;
	return (uint64_t)ms * 1000;
}

static void intr_alarm(void *arg);

/* The slow look while armed; a disarm since then took the chain back. */
static void
intr_alarm_slow(void *arg)
{
	struct ch39x_adapter *ad = arg;

	if (__atomic_exchange_n(&ad->alarm_slow, false, __ATOMIC_SEQ_CST))
		intr_alarm(ad);
}

/* Back to the short period, when the slow look is what is pending. */
void
ch39x_intr_alarm_fast(struct ch39x_adapter *ad)
{
	if (__atomic_exchange_n(&ad->alarm_slow, false, __ATOMIC_SEQ_CST))
		rte_eal_alarm_set(intr_poll_us(ad), intr_alarm, ad);
}

/*
 * An interrupt transfer was reaped, on whatever thread did (the
 * application's poll or arm, usually): its event is looked at soon.
 */
static void
intr_reaped(void *arg)
{
	struct ch39x_adapter *ad = arg;

	__atomic_store_n(&ad->intr_news, true, __ATOMIC_SEQ_CST);
	ch39x_intr_alarm_fast(ad);
}

/*
 * The next look. While the application sleeps on the Rx interrupt the
 * short period would be most of an idle router's CPU (500 wake-ups a
 * second per port, doc/guides/cpe.rst), and it is not needed: the
 * transport's wake-up descriptor fires for a finished interrupt transfer
 * too (ch39x_usb_ops.rx_wake_fd), the woken application reaps it, and
 * intr_reaped() (or, without the hook, the disarm: ch39x_rx_arm()) brings the
 * short period back. While the application polls (reaped_elsewhere) and
 * the hook is there, its polls reap the transfer and intr_reaped() brings
 * the alarm: the slow look is CH39X_INTR_WATCH_MS. Each side stores
 * before it reads the other's flag: one of them always sees the other.
 */
static void
intr_alarm_next(struct ch39x_adapter *ad, bool reaped_elsewhere)
{
	bool armed = __atomic_load_n(&ad->rx_armed, __ATOMIC_SEQ_CST);
	uint64_t slow_us;

	if (armed || (reaped_elsewhere && ad->intr_hooked)) {
		slow_us = armed ? CH39X_INTR_ARMED_POLL_MS * 1000 :
			CH39X_INTR_WATCH_MS * 1000;
		/* Only this thread sets it: no second slow look pending. */
		rte_eal_alarm_cancel(intr_alarm_slow, ad);
		__atomic_store_n(&ad->alarm_slow, true, __ATOMIC_SEQ_CST);
		if ((!armed ||
		     __atomic_load_n(&ad->rx_armed, __ATOMIC_SEQ_CST)) &&
		    !__atomic_load_n(&ad->intr_news, __ATOMIC_SEQ_CST)) {
			rte_eal_alarm_set(slow_us, intr_alarm_slow, ad);
			return;
		}
		/* Disarmed or news meanwhile: whoever takes the flag goes on. */
		if (!__atomic_exchange_n(&ad->alarm_slow, false,
					 __ATOMIC_SEQ_CST))
			return;
	}
	rte_eal_alarm_set(intr_poll_us(ad), intr_alarm, ad);
}

/*
 * Whether another thread looked for the device's finished transfers
 * since the alarm's last look (then its looks reap the interrupt
 * transfer too); and the count as of now, for the next look. An RX
 * burst that takes transfers already reaped is such a look as well: the
 * transport makes no round while the queue still holds finished ones,
 * and makes one as soon as it has taken them. Under a flood the RX queue
 * is never empty for long, so rounds alone left the alarm at the short
 * period (hundreds of EAL thread wake-ups a second, each contending for
 * libusb's event lock with the lcore; doc/perf/rndis_fwd.txt).
 */
static bool
intr_reaped_elsewhere(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	uint64_t n, taken;

	if (u->ops->event_rounds == NULL)
		return false;
	n = u->ops->event_rounds(u);
	taken = ad->rxq != NULL ?
		__atomic_load_n(&ad->rxq->c.usb_xfers, __ATOMIC_RELAXED) : 0;
	if (n == ad->intr_rounds && taken == ad->intr_rx_taken)
		return false;
	ad->intr_rounds = n;
	ad->intr_rx_taken = taken;
	return true;
}

static void
intr_alarm(void *arg)
{
	struct ch39x_adapter *ad = arg;
	bool elsewhere;

	if (!ch39x_started(ad))
		return;
	ad->intr_polls++;
	__atomic_store_n(&ad->intr_news, false, __ATOMIC_SEQ_CST);
	elsewhere = intr_reaped_elsewhere(ad);
	ch39x_intr_poll(ad);
	/* Not this look's own rounds: the next look compares from here. */
	if (ad->usb->ops->event_rounds != NULL)
		ad->intr_rounds = ad->usb->ops->event_rounds(ad->usb);
	/* The model's counters, where a secondary process can read them. */
	if (ad->is_sim)
		ch39x_sim_get_counters(ad->usb, &ad->sim_snap);
	if (ch39x_is_gone(ad)) {
		ch39x_rmv_notify(ad);		/* last: may close the port */
		return;
	}
	if (ch39x_started(ad))
		intr_alarm_next(ad, elsewhere);
}

/*
 * Start: the transport's reaping hook and the interrupt transfer (the
 * first transfer of the port, as ch397_open submits it, carrier off).
 */
int
ch39x_intr_submit(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	if (u->ops->intr_hook != NULL) {
		u->ops->intr_hook(u, intr_reaped, ad);
		ad->intr_hooked = true;
	}
	ad->intr_xfer.ep = CH39X_EP_INTR_IN;
	ad->intr_xfer.buf = ad->intr_buf;
	ad->intr_xfer.len = ad->info.maxp[CH39X_EP_INTR_IN];
	if (ad->intr_xfer.len == 0 || ad->intr_xfer.len > sizeof(ad->intr_buf))
		ad->intr_xfer.len = sizeof(ad->intr_buf);
	rc = u->ops->submit(u, &ad->intr_xfer);
	if (rc != 0)
		return rc;
	ad->rx_armed = false;
	ad->alarm_slow = false;
	ad->intr_news = false;
	ad->intr_rounds = u->ops->event_rounds != NULL ?
		u->ops->event_rounds(u) : 0;
	ad->intr_rx_taken = ad->rxq != NULL ? ad->rxq->c.usb_xfers : 0;
	return 0;
}

/* The interrupt endpoint's alarm chain, from dev_start. */
void
ch39x_intr_alarm_start(struct ch39x_adapter *ad)
{
	rte_eal_alarm_set(intr_poll_us(ad), intr_alarm, ad);
}

/*
 * Stop: no look pending or running after this, and the interrupt
 * transfer back (a real backend hands cancelled transfers back at a
 * later poll; a second at most).
 */
void
ch39x_intr_stop(struct ch39x_adapter *ad)
{
	struct ch39x_xfer *x;
	uint64_t deadline;

	rte_eal_alarm_cancel(intr_alarm, ad);
	rte_eal_alarm_cancel(intr_alarm_slow, ad);
	ad->alarm_slow = false;
	ad->usb->ops->cancel_all(ad->usb, CH39X_EP_INTR_IN);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	while (ad->intr_xfer.in_flight && rte_get_timer_cycles() < deadline)
		ad->usb->ops->poll(ad->usb, CH39X_EP_INTR_IN, &x, 1);
}
