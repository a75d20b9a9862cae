/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * net_ch39x: the device's presence and its link. The control request
 * helper (a request is where a gone device is often seen first), the
 * interrupt endpoint's alarm (link events, removal while started), the
 * presence alarm (removal while not started), the removal event and,
 * with reconnect=on, the wait for the device's return and the port's
 * restoration (the reconnect alarm). All of it runs on the control thread (EAL's interrupt thread for the
 * alarms, the application's for requests), except ch39x_intr_reaped(),
 * which runs on whatever thread reaped the interrupt transfer.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_alarm.h>
#include <rte_cycles.h>

#include "ch39x_adapter.h"
#include "ch39x_ethdev.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_rx.h"
#include "ch39x_rx_intr.h"
#include "ch39x_tx.h"

/*
 * One control request on the default pipe: every request of every device
 * type goes through here, so a gone device, the error counter and the log
 * line are handled once. Returns the bytes of the data stage or a negative
 * errno; quiet keeps an expected refusal (an optional request) out of the
 * log.
 */
int
ch39x_control(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
	      uint16_t value, uint16_t index, void *data, uint16_t len,
	      const char *what, bool quiet)
{
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	if (ch39x_is_gone(ad))
		return -ENODEV;
	rc = u->ops->control(u, type, req, value, index, data, len,
			     CH39X_CTRL_TIMEOUT_MS);
	if (rc == -ENODEV)
		ch39x_set_gone(ad, true);
	if (rc < 0) {
		ad->ctrl_errors++;
		if (!quiet)
			PMD_LOG(ERR, "%s: %s (request 0x%02x, wValue 0x%04x, "
				"wIndex 0x%04x) failed: %s",
				ad->dev->data->name, what, req, value, index,
				strerror(-rc));
	}
	return rc;
}

void
ch39x_set_link(struct ch39x_adapter *ad, bool up, uint32_t speed)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	link.link_status = up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
	link.link_speed = up ? speed : RTE_ETH_SPEED_NUM_NONE;
	link.link_duplex = ad->link_half ? RTE_ETH_LINK_HALF_DUPLEX :
		RTE_ETH_LINK_FULL_DUPLEX;
	link.link_autoneg = ad->link_fixed ? RTE_ETH_LINK_FIXED :
		RTE_ETH_LINK_AUTONEG;
	rte_eth_linkstatus_set(ad->dev, &link);
}

/* The link as the device reports it; LSC when it changed. */
void
ch39x_link_report(struct ch39x_adapter *ad, bool up, uint32_t speed)
{
	struct rte_eth_dev *dev = ad->dev;
	const struct rte_eth_link *l = &dev->data->dev_link;
	bool was_up = l->link_status;

	/* A new speed or duplex without a link change is news too. */
	if (up == was_up && (!up || (speed == l->link_speed &&
	    ad->link_half == (l->link_duplex == RTE_ETH_LINK_HALF_DUPLEX) &&
	    ad->link_fixed == (l->link_autoneg == RTE_ETH_LINK_FIXED))))
		return;
	ad->link_events++;
	PMD_LOG(INFO, "%s: link %s, %u Mbit/s", dev->data->name,
		up ? "up" : "down", speed);
	ch39x_set_link(ad, up, speed);
	/*
	 * ch397_link_reset: rx mode at every link-up; CDC devices get their
	 * packet filter again too (some send nothing until they have it).
	 */
	if (up)
		ch39x_program_rx_mode(ad);
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
}

/*
 * The device left the bus (seen by the interrupt endpoint, a burst, a
 * request or the presence alarm). With reconnect=on the port waits for
 * it (reconnect_begin()); else the link is down for good and the
 * application hears it once, whichever thread sees it first. The RMV
 * callback comes last: the application may close the port in it.
 */
static void reconnect_begin(struct ch39x_adapter *ad);

void
ch39x_rmv_notify(struct ch39x_adapter *ad)
{
	struct rte_eth_dev *dev = ad->dev;

	if (!ch39x_is_gone(ad))
		return;
	if (ch39x_reconnect_on(ad)) {
		reconnect_begin(ad);
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
void
ch39x_intr_reaped(void *arg)
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
 * ch39x_intr_reaped() (or, without the hook, the disarm: rx_arm()) brings the
 * short period back. Each side stores before it reads the other's flag:
 * one of them always sees the other.
 */
static void
intr_alarm_next(struct ch39x_adapter *ad)
{
	if (__atomic_load_n(&ad->rx_armed, __ATOMIC_SEQ_CST)) {
		/* Only this thread sets it: no second slow look pending. */
		rte_eal_alarm_cancel(intr_alarm_slow, ad);
		__atomic_store_n(&ad->alarm_slow, true, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&ad->rx_armed, __ATOMIC_SEQ_CST) &&
		    !__atomic_load_n(&ad->intr_news, __ATOMIC_SEQ_CST)) {
			rte_eal_alarm_set(CH39X_INTR_ARMED_POLL_MS * 1000,
					  intr_alarm_slow, ad);
			return;
		}
		/* Disarmed or news meanwhile: whoever takes the flag goes on. */
		if (!__atomic_exchange_n(&ad->alarm_slow, false,
					 __ATOMIC_SEQ_CST))
			return;
	}
	rte_eal_alarm_set(intr_poll_us(ad), intr_alarm, ad);
}

static void
intr_alarm(void *arg)
{
	struct ch39x_adapter *ad = arg;

	if (!ch39x_started(ad))
		return;
	ad->intr_polls++;
	__atomic_store_n(&ad->intr_news, false, __ATOMIC_SEQ_CST);
	ch39x_intr_poll(ad);
	/* The model's counters, where a secondary process can read them. */
	if (ad->is_sim)
		ch39x_sim_get_counters(ad->usb, &ad->sim_snap);
	if (ch39x_is_gone(ad)) {
		ch39x_rmv_notify(ad);		/* last: may close the port */
		return;
	}
	if (ch39x_started(ad))
		intr_alarm_next(ad);
}

/* The interrupt endpoint's alarm chain, from dev_start. */
void
ch39x_intr_alarm_start(struct ch39x_adapter *ad)
{
	rte_eal_alarm_set(intr_poll_us(ad), intr_alarm, ad);
}

/* No look pending or running after this (dev_stop). */
void
ch39x_intr_alarm_stop(struct ch39x_adapter *ad)
{
	rte_eal_alarm_cancel(intr_alarm, ad);
	rte_eal_alarm_cancel(intr_alarm_slow, ad);
	ad->alarm_slow = false;
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

static void reconnect_kick(struct ch39x_adapter *ad);

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
		reconnect_kick(ad);
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

/* ---- reconnect (reconnect=on) ---- */

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
static void
reconnect_begin(struct ch39x_adapter *ad)
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
	rc = ch39x_port_start(dev);
	if (rc == 0 && ad->rx_rearm)
		rc = ch39x_rx_arm(dev, true);
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
			ch39x_port_stop(dev);
		ch39x_set_gone(ad, true);
		ad->reconnect_retry_us = CH39X_RECONNECT_RETRY_MS * 1000;
		return false;
	}
	us = (rte_get_timer_cycles() - ad->gone_tsc) * 1000000 /
		rte_get_timer_hz();
	ad->reconnect_last_us = us;
	ad->reconnects++;
	if (!ch39x_started(ad))
		ch39x_presence_watch(ad);
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
			ch39x_port_stop(dev);
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
static void
reconnect_kick(struct ch39x_adapter *ad)
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
