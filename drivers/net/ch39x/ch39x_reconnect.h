/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_RECONNECT_H
#define CH39X_RECONNECT_H

/* reconnect=on: the wait for the device's return (ch39x_reconnect.c). */

#include <stdbool.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"

/*
 * What the reconnect does to the port, set at probe by ch39x_ethdev.c
 * (ad->port_ops): its start and stop and what else is above this file,
 * reached through the table, never by name. EAL's interrupt thread,
 * rc_lock held.
 */
struct ch39x_port_ops {
	/* Start and stop without the reconnect lock (the caller holds it). */
	int (*start)(struct rte_eth_dev *dev);
	int (*stop)(struct rte_eth_dev *dev);
	/* The Rx interrupt armed again, as the application left it. */
	int (*rx_arm)(struct rte_eth_dev *dev, bool on);
	/* The device is back and the port stopped: removal watched again. */
	void (*watch)(struct ch39x_adapter *ad);
};

bool ch39x_reconnect_on(const struct ch39x_adapter *ad);
/* The device is gone: the port waits for it (once per absence). */
void ch39x_reconnect_begin(struct ch39x_adapter *ad);
/* A device arrived: look now. */
void ch39x_reconnect_kick(struct ch39x_adapter *ad);
void ch39x_reconnect_cancel(struct ch39x_adapter *ad);

#endif /* CH39X_RECONNECT_H */
