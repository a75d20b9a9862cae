/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_LINK_H
#define CH39X_LINK_H

/*
 * ch39x_link.c: control requests, the link, the device's presence; the
 * alarms run on EAL's interrupt thread.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ch39x_adapter.h"

/*
 * Removal while the port is not started (ch39x_link.c): how often the
 * device is asked whether it is still there, and how: a standard
 * GET_STATUS request to the device (bmRequestType 0x80, bRequest 0).
 */
#define CH39X_PRESENCE_MS	100
/*
 * Looking for a completed interrupt transfer (link events): at most this
 * long after the device answered (ch39x_link.c, intr_poll_us()).
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
#define CH39X_PRESENCE_REQ_TYPE	0x80
#define CH39X_PRESENCE_REQ	0x00
#define CH39X_PRESENCE_TIMEOUT_MS 500

#define CH39X_CTRL_TIMEOUT_MS 500

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

int ch39x_control(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
		  uint16_t value, uint16_t index, void *data, uint16_t len,
		  const char *what, bool quiet);
void ch39x_set_link(struct ch39x_adapter *ad, bool up, uint32_t speed);
void ch39x_link_report(struct ch39x_adapter *ad, bool up, uint32_t speed);
void ch39x_rmv_notify(struct ch39x_adapter *ad);
void ch39x_intr_poll(struct ch39x_adapter *ad);
void ch39x_intr_reaped(void *arg);
void ch39x_intr_alarm_fast(struct ch39x_adapter *ad);
void ch39x_intr_alarm_start(struct ch39x_adapter *ad);
void ch39x_intr_alarm_stop(struct ch39x_adapter *ad);
void ch39x_presence_watch(struct ch39x_adapter *ad);
void ch39x_bus_watch(struct ch39x_adapter *ad);
void ch39x_bus_unwatch(struct ch39x_adapter *ad);
void ch39x_presence_unwatch(struct ch39x_adapter *ad);
void ch39x_reconnect_cancel(struct ch39x_adapter *ad);
bool ch39x_reconnect_on(const struct ch39x_adapter *ad);

#endif /* CH39X_LINK_H */
