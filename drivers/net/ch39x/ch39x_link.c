/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: the link as the application sees it (rte_eth_link, LSC
 * events), set from what the device type learns (its link_update and
 * notify ops), at start and stop, and at removal. The control thread or
 * EAL's interrupt thread (the alarms).
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"
#include "ch39x_ctrl.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"

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
