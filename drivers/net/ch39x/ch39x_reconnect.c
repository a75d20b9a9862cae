/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: reconnect=on. The device is gone and the port waits for it:
 * the bursts stop touching it, a started port is stopped, and the
 * reconnect alarm looks for the device's return (at once when the bus
 * tells of an arrival); the same device is programmed as the
 * application left the port and a started port restarted. EAL's
 * interrupt thread, under rc_lock, which start, stop and close take.
 * What it does to the port (start, stop, the Rx interrupt, the presence
 * watch) goes through the port's ops (ad->port_ops, ch39x_ethdev.c's):
 * this file sits below them and names none.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_alarm.h>
#include <rte_cycles.h>

#include "ch39x_adapter.h"
#include "ch39x_ctrl.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_reconnect.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"

/*
 * reconnect=on: how often the PMD looks for the device's return, and how
 * long it waits for a burst in progress to leave before it looks again.
 */
#define CH39X_RECONNECT_MS	50
/*
 * The same with the bus's events (presence=events), which start a look at
 * once when a device arrives: the periodic one is a safety net only.
 */
#define CH39X_RECONNECT_EVENTS_MS 1000
#define CH39X_RECONNECT_QUIESCE_US 200
/*
 * After the device came back but could not be taken or set up (a kernel
 * driver still binding to it, a request failing): the next try. Each try
 * opens the device again, so not every CH39X_RECONNECT_MS.
 */
#define CH39X_RECONNECT_RETRY_MS 500

/*
 * Whether the device's return is looked for: reconnect=on, and a
 * transport that can see one (both the simulated adapter and libusb do).
 */
bool
ch39x_reconnect_on(const struct ch39x_adapter *ad)
{
	return !ad->args.reconnect_off && ad->usb->ops->lookup != NULL;
}

static void reconnect_alarm(void *arg);

/*
 * The device is gone and the port waits for it (any control thread, or
 * dev_start): the bursts stop touching it at once, the link goes down
 * with an LSC event, and the reconnect alarm takes over. Once per
 * absence, whichever thread sees it first.
 */
void
ch39x_reconnect_begin(struct ch39x_adapter *ad)
{
	struct rte_eth_dev *dev = ad->dev;

	if (__atomic_exchange_n(&ad->absent, true, __ATOMIC_SEQ_CST))
		return;
	ad->gone_tsc = rte_get_timer_cycles();
	ad->refused_logged = false;
	PMD_LOG(WARNING, "%s: device removed; the port waits for it to "
		"return (reconnect=on)", dev->data->name);
	ch39x_link_report(ad, false, 0);
	rte_eal_alarm_set(1, reconnect_alarm, ad);
}

/* No burst is inside the device: absent is set, so none enters again. */
static bool
bursts_out(const struct ch39x_adapter *ad)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return (ad->rxq == NULL ||
		!__atomic_load_n(&ad->rxq->busy, __ATOMIC_ACQUIRE)) &&
	       (ad->txq == NULL ||
		!__atomic_load_n(&ad->txq->busy, __ATOMIC_ACQUIRE));
}

/*
 * Whether the device on the bus is the port's: the same function of the
 * same chip (VID, PID, framing) with the same serial number, as the
 * devargs' selection found it at probe. why says what differs.
 */
static const char *
framing_name(uint8_t f)
{
	switch (f) {
	case CH39X_FRAMING_VENDOR: return "the vendor function";
	case CH39X_FRAMING_NCM: return "CDC-NCM";
	case CH39X_FRAMING_ECM: return "CDC-ECM";
	default: return "no function this port may drive";
	}
}

static bool
same_device(const struct ch39x_usb_info *was, const struct ch39x_usb_info *is,
	    char *why, size_t len)
{
	if (was->vid != is->vid || was->pid != is->pid) {
		snprintf(why, len, "it is %04x:%04x, the port's was %04x:%04x",
			 is->vid, is->pid, was->vid, was->pid);
		return false;
	}
	if (was->framing != is->framing) {
		snprintf(why, len, "it offers %s, the port drove %s",
			 framing_name(is->framing), framing_name(was->framing));
		return false;
	}
	if (strncmp(was->serial, is->serial, sizeof(was->serial)) != 0) {
		snprintf(why, len, "its serial number is \"%s\", the port's "
			 "was \"%s\"", is->serial, was->serial);
		return false;
	}
	return true;
}

/*
 * The device is back and is the port's: program it as the application
 * left the port. A power-on lost all of it: hw_init reads the chip again
 * and writes the devargs' address and the pause advertisement; then the
 * application's address and receive filters (promiscuous, all-multicast,
 * the multicast list); a started port is started again, which writes the
 * link speeds, MTU, VLAN strip and filters, sets up the Rx interrupt and
 * the queues as they were configured (sizes and offloads), and learns the
 * link (LSC). Returns 0 or a negative errno (-ENODEV: gone again).
 */
static int
reconnect_restore(struct ch39x_adapter *ad)
{
	struct rte_eth_dev *dev = ad->dev;
	const struct ch39x_dev_ops *ops;
	uint32_t rx_size = ad->prof.rx_xfer_size;
	uint32_t tx_size = ad->prof.tx_xfer_size;
	int rc;

	pthread_mutex_lock(&ad->ctrl_lock);
	rc = ch39x_hw_init(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc != 0)
		return rc;
	ops = ch39x_ops(ad);
	/* The queues' transfers were made for these sizes: kept. */
	ad->prof.rx_xfer_size = rx_size;
	ad->prof.tx_xfer_size = RTE_MIN(ad->prof.tx_xfer_size, tx_size);
	if (!rte_is_same_ether_addr(&ad->mac_addr, &dev->data->mac_addrs[0]))
		rc = ops->set_mac(ad, &dev->data->mac_addrs[0]);
	if (rc == 0)
		rc = ch39x_program_rx_mode(ad);
	if (rc != 0 || !ad->resume)
		return rc;
	rc = ad->port_ops->start(dev);
	if (rc == 0 && ad->rx_rearm)
		rc = ad->port_ops->rx_arm(dev, true);
	return rc;
}

/* One look for the device's return. True: the port is back. */
static bool
reconnect_try(struct ch39x_adapter *ad)
{
	struct rte_eth_dev *dev = ad->dev;
	struct ch39x_usb_info id;
	char why[256];
	uint64_t us;
	int rc;

	if (ad->usb->ops->lookup(ad->usb, &id) != 0) {
		ad->refused_logged = false;
		ad->take_failed_logged = false;
		return false;
	}
	if (!same_device(&ad->id, &id, why, sizeof(why))) {
		/* Once per device that came: another one is news again. */
		if (ad->refused_logged &&
		    !same_device(&ad->refused_id, &id, why, sizeof(why)))
			ad->refused_logged = false;
		if (!ad->refused_logged) {
			ad->refused_id = id;
			same_device(&ad->id, &id, why, sizeof(why));
			ad->reconnect_refused++;
			PMD_LOG(ERR, "%s: a device came back in the port's place "
				"but is not the port's, refused: %s",
				dev->data->name, why);
		}
		ad->refused_logged = true;
		return false;
	}
	/* A real device is a new one to the bus: take it into the handle. */
	rc = ad->usb->ops->reattach(ad->usb, why, sizeof(why));
	if (rc != 0) {
		if (!ad->take_failed_logged)
			PMD_LOG(WARNING, "%s: the device is back but could not "
				"be taken (%s); the port tries again every "
				"%u ms", dev->data->name, why,
				CH39X_RECONNECT_RETRY_MS);
		ad->take_failed_logged = true;
		ad->reconnect_retry_us = CH39X_RECONNECT_RETRY_MS * 1000;
		return false;
	}
	ch39x_set_gone(ad, false);
	rc = reconnect_restore(ad);
	if (rc != 0) {
		/* Gone again, or it would not take the settings: again. */
		PMD_LOG(WARNING, "%s: the device returned but could not be set "
			"up again (%s); the port keeps waiting",
			dev->data->name, strerror(-rc));
		if (ch39x_started(ad))
			ad->port_ops->stop(dev);
		ch39x_set_gone(ad, true);
		ad->reconnect_retry_us = CH39X_RECONNECT_RETRY_MS * 1000;
		return false;
	}
	us = (rte_get_timer_cycles() - ad->gone_tsc) * 1000000 /
		rte_get_timer_hz();
	ad->reconnect_last_us = us;
	ad->reconnects++;
	if (!ch39x_started(ad))
		ad->port_ops->watch(ad);
	__atomic_store_n(&ad->absent, false, __ATOMIC_SEQ_CST);
	/*
	 * The restart learnt the link without an event (as any start does);
	 * the application waits for one since the removal's link down.
	 */
	if (ch39x_started(ad) && dev->data->dev_link.link_status)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	PMD_LOG(NOTICE, "%s: device back after %" PRIu64 " ms, port %s",
		dev->data->name, us / 1000,
		ch39x_started(ad) ? "restarted" : "set up (stopped)");
	return true;
}

/*
 * EAL's interrupt thread, while the device is gone: wait for the bursts
 * to leave it, stop a started port (its transfers end as "no device"),
 * then look for the device every CH39X_RECONNECT_MS.
 */
static void
reconnect_alarm(void *arg)
{
	struct ch39x_adapter *ad = arg;
	struct rte_eth_dev *dev = ad->dev;
	uint64_t next_us = (ad->bus_intr != NULL ? CH39X_RECONNECT_EVENTS_MS :
			    CH39X_RECONNECT_MS) * 1000;

	if (__atomic_load_n(&ad->closing, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&ad->rc_lock);
	if (!ad->absent) {
		pthread_mutex_unlock(&ad->rc_lock);
		return;
	}
	if (!bursts_out(ad)) {
		next_us = CH39X_RECONNECT_QUIESCE_US;
	} else {
		if (ch39x_started(ad)) {
			ad->resume = true;
			ad->rx_rearm = ad->rx_armed;
			ad->port_ops->stop(dev);
		}
		ad->reconnect_retry_us = 0;
		if (reconnect_try(ad)) {
			pthread_mutex_unlock(&ad->rc_lock);
			return;
		}
		if (ad->reconnect_retry_us != 0)
			next_us = ad->reconnect_retry_us;
	}
	pthread_mutex_unlock(&ad->rc_lock);
	rte_eal_alarm_set(next_us, reconnect_alarm, ad);
}

/*
 * A device arrived while the port waits (EAL's interrupt thread, as the
 * alarm): the next look now, if one is due at all (none while closing).
 */
void
ch39x_reconnect_kick(struct ch39x_adapter *ad)
{
	if (rte_eal_alarm_cancel(reconnect_alarm, ad) > 0)
		rte_eal_alarm_set(1, reconnect_alarm, ad);
}

/* close: no reconnect alarm pending or running after this. */
void
ch39x_reconnect_cancel(struct ch39x_adapter *ad)
{
	__atomic_store_n(&ad->closing, true, __ATOMIC_RELEASE);
	rte_eal_alarm_cancel(reconnect_alarm, ad);
}
