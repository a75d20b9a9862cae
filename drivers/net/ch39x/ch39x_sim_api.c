/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: the simulated adapter's API (rte_pmd_ch39x.h), for tests and
 * demonstrations: the cable, fault injection, failing requests, unplug
 * and replug of a port's model, its transport's event rounds. Any
 * application thread; -ENOTSUP on a port that is not a simulated ch39x
 * port of the primary process.
 */

#include <errno.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"
#include "ch39x_ethdev.h"
#include "ch39x_sim.h"
#include "rte_pmd_ch39x.h"

/* The simulated device behind a ch39x port, or NULL. */
static struct ch39x_usb_dev *
sim_of(uint16_t port_id, int *rc)
{
	struct rte_eth_dev *dev;
	struct ch39x_adapter *ad;

	*rc = -ENODEV;
	if (!rte_eth_dev_is_valid_port(port_id))
		return NULL;
	dev = &rte_eth_devices[port_id];
	*rc = -ENOTSUP;
	if (!ch39x_eth_dev_is_ours(dev))
		return NULL;
	ad = dev->data->dev_private;
	if (!ch39x_sim_is_sim(ad->usb))
		return NULL;
	*rc = 0;
	return ad->usb;
}

int
rte_pmd_ch39x_sim_fault(uint16_t port_id, enum rte_pmd_ch39x_ep ep,
			enum rte_pmd_ch39x_fault fault, uint32_t count)
{
	struct ch39x_usb_dev *u;
	int rc;

	u = sim_of(port_id, &rc);
	if (u == NULL)
		return rc;
	return ch39x_sim_fault(u, (enum ch39x_ep)ep,
			       (enum ch39x_sim_fault)fault, count) == 0 ?
		0 : -EINVAL;
}

int
rte_pmd_ch39x_sim_set_cable(uint16_t port_id, int plugged)
{
	struct ch39x_usb_dev *u;
	int rc;

	u = sim_of(port_id, &rc);
	if (u != NULL)
		ch39x_sim_set_cable(u, plugged != 0);
	return rc;
}

int
rte_pmd_ch39x_sim_fail_ctrl(uint16_t port_id, uint32_t count)
{
	struct ch39x_usb_dev *u;
	int rc;

	u = sim_of(port_id, &rc);
	if (u != NULL)
		ch39x_sim_fail_ctrl(u, count);
	return rc;
}

int
rte_pmd_ch39x_sim_unplug(uint16_t port_id)
{
	struct ch39x_usb_dev *u;
	int rc;

	u = sim_of(port_id, &rc);
	if (u != NULL)
		ch39x_sim_unplug(u);
	return rc;
}

int
rte_pmd_ch39x_sim_replug(uint16_t port_id, enum rte_pmd_ch39x_replug how)
{
	struct ch39x_usb_dev *u;
	int rc;

	u = sim_of(port_id, &rc);
	if (u == NULL)
		return rc;
	return ch39x_sim_replug(u, (enum ch39x_sim_replug)how) == 0 ?
		0 : -EINVAL;
}

int
rte_pmd_ch39x_sim_event_rounds(uint16_t port_id, int on)
{
	struct ch39x_usb_dev *u;
	int rc;

	u = sim_of(port_id, &rc);
	if (u == NULL)
		return rc;
	if (rte_eth_devices[port_id].data->dev_started)
		return -EBUSY;
	ch39x_sim_set_rounds(u, on != 0);
	return 0;
}
