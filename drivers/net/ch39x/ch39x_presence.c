/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: the device's presence. Removal in every port state: while
 * started the interrupt endpoint sees it (ch39x_intr.c); otherwise the
 * bus's events (presence=events) or the presence alarm (GET_STATUS).
 * The removal event: RMV, or with reconnect=on the wait for the device's
 * return (ch39x_reconnect.c). The control thread and EAL's interrupt
 * thread.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <ethdev_driver.h>
#include <rte_alarm.h>

#include "ch39x_adapter.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_presence.h"
#include "ch39x_reconnect.h"

/*
 * Removal while the port is not started: how often the device is asked
 * whether it is still there, and how: a standard
 * GET_STATUS request to the device (bmRequestType 0x80, bRequest 0).
 */
#define CH39X_PRESENCE_MS	100
#define CH39X_PRESENCE_REQ_TYPE	0x80
#define CH39X_PRESENCE_REQ	0x00
#define CH39X_PRESENCE_TIMEOUT_MS 500

/*
 * The device left the bus (seen by the interrupt endpoint, a burst, a
 * request or the presence alarm). With reconnect=on the port waits for
 * it (ch39x_reconnect_begin()); else the link is down for good and the
 * application hears it once, whichever thread sees it first. The RMV
 * callback comes last: the application may close the port in it.
 */
void
ch39x_rmv_notify(struct ch39x_adapter *ad)
{
	struct rte_eth_dev *dev = ad->dev;

	if (!ch39x_is_gone(ad))
		return;
	if (ch39x_reconnect_on(ad)) {
		ch39x_reconnect_begin(ad);
		return;
	}
	if (__atomic_exchange_n(&ad->rmv_sent, true, __ATOMIC_ACQ_REL))
		return;
	PMD_LOG(ERR, "%s: device removed", dev->data->name);
	ch39x_set_link(ad, false, 0);
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RMV, NULL);
}

/*
 * Whether the device is still on the bus, asked while the port is not
 * started: the simulated adapter from its unplug state, a real one with
 * a standard GET_STATUS request (USB 2.0 9.4.5: every device answers it,
 * in any configuration; -ENODEV once it is gone). A request in progress
 * on the control thread finds out by itself: the check then waits for
 * the next round rather than for the lock.
 */
static bool
device_present(struct ch39x_adapter *ad)
{
	uint8_t st[2];
	int rc;

	ad->presence_polls++;
	if (ad->is_sim)
		return !ch39x_sim_unplugged(ad->usb);
	if (pthread_mutex_trylock(&ad->ctrl_lock) != 0)
		return true;
	rc = ad->usb->ops->control(ad->usb, CH39X_PRESENCE_REQ_TYPE,
				   CH39X_PRESENCE_REQ, 0, 0, st, sizeof(st),
				   CH39X_PRESENCE_TIMEOUT_MS);
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc != -ENODEV;
}

/*
 * From probe to close (issue 14): removal seen in every port state. While
 * started the interrupt endpoint's alarm sees it within bInterval, and
 * every transfer in flight completes with an error; before the first
 * start and while stopped nothing polls the device, so this alarm asks
 * every CH39X_PRESENCE_MS. It ends at start (dev_stop sets it again: an
 * idle router would otherwise wake EAL's thread ten times a second per
 * port for nothing) and once RMV is sent.
 */
static void
presence_alarm(void *arg)
{
	struct ch39x_adapter *ad = arg;

	if (ch39x_started(ad) && !ch39x_is_gone(ad))
		return;
	if (!ch39x_is_gone(ad) && !device_present(ad))
		ch39x_set_gone(ad, true);
	if (ch39x_is_gone(ad)) {
		ch39x_rmv_notify(ad);		/* last: may close the port */
		return;
	}
	rte_eal_alarm_set(CH39X_PRESENCE_MS * 1000, presence_alarm, ad);
}

/*
 * Removal while not started is this alarm's (one chain: cancel first),
 * unless the bus's events tell (ch39x_bus_watch()).
 */
void
ch39x_presence_watch(struct ch39x_adapter *ad)
{
	rte_eal_alarm_cancel(presence_alarm, ad);
	if (ad->bus_intr == NULL)
		rte_eal_alarm_set(CH39X_PRESENCE_MS * 1000, presence_alarm,
				  ad);
}

/*
 * Waits for a running presence_alarm() unless this is inside it (close
 * from the RMV callback).
 */
void
ch39x_presence_unwatch(struct ch39x_adapter *ad)
{
	rte_eal_alarm_cancel(presence_alarm, ad);
}

/* ---- the bus's events (presence=events) ---- */

/*
 * EAL's interrupt thread, the transport's bus descriptor readable: a
 * device arrived (the port's may be back: look now, not at the next
 * round) or the port's device left (in any port state; the interrupt
 * endpoint and the bursts may not have noticed yet).
 */
static void
bus_event(void *arg)
{
	struct ch39x_adapter *ad = arg;
	unsigned int news = ad->usb->ops->bus_read(ad->usb);

	if (news == 0)
		return;
	ad->bus_events++;
	if ((news & CH39X_BUS_ARRIVED) &&
	    __atomic_load_n(&ad->absent, __ATOMIC_ACQUIRE))
		ch39x_reconnect_kick(ad);
	if (news & CH39X_BUS_GONE) {
		ch39x_set_gone(ad, true);
		ch39x_rmv_notify(ad);		/* last: may close the port */
	}
}

/*
 * Probe (primary process): the bus's events instead of the presence
 * alarm's requests, where the transport has them and presence=events.
 * Without them the alarm asks, and the log says why once.
 */
void
ch39x_bus_watch(struct ch39x_adapter *ad)
{
	const struct ch39x_usb_ops *ops = ad->usb->ops;
	const char *name = ad->dev->data->name;
	struct rte_intr_handle *ih;
	char why[256] = "";
	int fd;

	if (ad->args.presence_poll || ops->bus_fd == NULL)
		return;
	fd = ops->bus_fd(ad->usb, why, sizeof(why));
	ih = fd < 0 ? NULL :
		rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (ih != NULL && (rte_intr_fd_set(ih, fd) != 0 ||
	    rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(ih, bus_event, ad) != 0)) {
		snprintf(why, sizeof(why), "EAL would not watch its "
			 "descriptor");
		rte_intr_instance_free(ih);
		ih = NULL;
	} else if (fd >= 0 && ih == NULL) {
		snprintf(why, sizeof(why), "out of memory");
	}
	if (ih == NULL) {
		PMD_LOG(NOTICE, "%s: no device events (%s): the device is "
			"asked every %u ms whether it is there while the port "
			"is not started (presence=poll)", name, why,
			CH39X_PRESENCE_MS);
		return;
	}
	ad->bus_intr = ih;
}

static void
bus_intr_free(struct rte_intr_handle *ih, void *arg)
{
	(void)arg;
	rte_intr_instance_free(ih);
}

/*
 * Close: no bus_event() running or to come after this, except the one
 * this is called from (an RMV callback that closes the port), whose
 * source EAL removes once it returns.
 */
void
ch39x_bus_unwatch(struct ch39x_adapter *ad)
{
	struct rte_intr_handle *ih = ad->bus_intr;
	int rc;

	if (ih == NULL)
		return;
	ad->bus_intr = NULL;
	if (rte_thread_is_intr()) {
		rc = rte_intr_callback_unregister(ih, bus_event, ad);
		if (rc == -EAGAIN &&
		    rte_intr_callback_unregister_pending(ih, bus_event, ad,
							 bus_intr_free) == 0)
			return;
	} else {
		rte_intr_callback_unregister_sync(ih, bus_event, ad);
	}
	rte_intr_instance_free(ih);
}
