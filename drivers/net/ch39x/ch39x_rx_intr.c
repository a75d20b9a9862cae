/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: Rx interrupts (rte_eth_dev_rx_intr_enable, intr_conf.rxq).
 * The transport's RX wake-up descriptor is the queue's event fd; arming
 * it is the transport's rx_arm. While armed, the interrupt endpoint's
 * alarm looks only seldom (ch39x_intr.c): a disarm brings its short
 * period back. The application's thread, control or RX lcore.
 */

#include <errno.h>
#include <string.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"
#include "ch39x_intr.h"
#include "ch39x_logs.h"
#include "ch39x_rx_intr.h"

/* Probe: the handle, filled at start when the application asks. */
int
ch39x_rx_intr_init(struct rte_eth_dev *dev)
{
	dev->intr_handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (dev->intr_handle == NULL)
		return -ENOMEM;
	return 0;
}

/* Close. */
void
ch39x_rx_intr_uninit(struct rte_eth_dev *dev)
{
	rte_intr_vec_list_free(dev->intr_handle);
	rte_intr_instance_free(dev->intr_handle);
	dev->intr_handle = NULL;
}

/*
 * Rx interrupts: the transport's RX wake-up descriptor as the queue's
 * event fd. EXT: EAL only waits on it; the backend clears it at disarm.
 */
int
ch39x_rx_intr_setup(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct rte_intr_handle *h = dev->intr_handle;
	struct ch39x_usb_dev *u = ad->usb;
	int fd;

	if (!dev->data->dev_conf.intr_conf.rxq)
		return 0;
	fd = u->ops->rx_wake_fd != NULL ? u->ops->rx_wake_fd(u) : -ENOTSUP;
	if (fd < 0) {
		PMD_LOG(ERR, "%s: Rx interrupts: the %s backend cannot wake "
			"a thread (%s); leave intr_conf.rxq off", dev->data->name,
			u->ops->name, strerror(-fd));
		return fd;
	}
	rte_intr_vec_list_free(h);
	if (rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_efds_index_set(h, 0, fd) != 0 ||
	    rte_intr_nb_efd_set(h, 1) != 0 ||
	    rte_intr_max_intr_set(h, 2) != 0 ||
	    rte_intr_vec_list_alloc(h, "ch39x_intr_vec", 1) != 0 ||
	    rte_intr_vec_list_index_set(h, 0, RTE_INTR_VEC_RXTX_OFFSET) != 0)
		return -ENOMEM;
	return 0;
}

/* Arm or disarm the queue's wake-up (the one RX queue: qid is 0). */
int
ch39x_rx_arm(struct rte_eth_dev *dev, bool on)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (ad->usb->ops->rx_arm == NULL)
		return -ENOTSUP;
	/* The device is gone: armed again when it is back. */
	if (ch39x_deferred(ad)) {
		ad->rx_rearm = on;
		return 0;
	}
	ad->usb->ops->rx_arm(ad->usb, on);
	__atomic_store_n(&ad->rx_armed, on, __ATOMIC_SEQ_CST);
	/* Woken: maybe by the interrupt endpoint (ch39x_intr.c). */
	if (!on && !ad->intr_hooked)
		ch39x_intr_alarm_fast(ad);
	return 0;
}

int
ch39x_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	RTE_SET_USED(qid);
	return ch39x_rx_arm(dev, true);
}

int
ch39x_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	RTE_SET_USED(qid);
	return ch39x_rx_arm(dev, false);
}
