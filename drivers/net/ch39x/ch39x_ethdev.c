/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * net_ch39x: probe, the ethdev ops every device type shares, the port's
 * start and stop. Beside it: control requests (ch39x_ctrl.c), the link
 * (ch39x_link.c), the interrupt endpoint (ch39x_intr.c), the device's
 * presence and removal (ch39x_presence.c), reconnect=on
 * (ch39x_reconnect.c), Rx interrupts (ch39x_rx_intr.c) and the simulated
 * adapter's API (ch39x_sim_api.c). What differs by device type is
 * behind ch39x_ops(): ch39x_vendor_ctrl.c (CH397, CH398) and
 * ch39x_cdc_ctrl.c (CDC-NCM, CDC-ECM); the bursts are in ch39x_rx.c and
 * ch39x_tx.c, what the port reports in ch39x_info.c, statistics in
 * ch39x_xstats.c, the devargs in ch39x_devargs.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <bus_vdev_driver.h>
#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "ch39x_adapter.h"
#include "ch39x_ctrl.h"
#include "ch39x_devargs.h"
#include "ch39x_ethdev.h"
#include "ch39x_info.h"
#include "ch39x_intr.h"
#include "ch39x_libusb.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_presence.h"
#include "ch39x_reconnect.h"
#include "ch39x_rx_intr.h"
#include "ch39x_rx.h"
#include "ch39x_rxq.h"
#include "ch39x_tx.h"
#include "ch39x_xstats.h"

RTE_LOG_REGISTER_DEFAULT(ch39x_logtype, NOTICE);


/* ---- ethdev ops ---- */

static int
ch39x_dev_configure(struct rte_eth_dev *dev)
{
	struct rte_eth_dev_data *data = dev->data;

	if (data->nb_rx_queues > 1 || data->nb_tx_queues > 1) {
		PMD_LOG(ERR, "%s: one RX and one TX queue only (a USB adapter "
			"has one bulk pipe each way); asked for %u and %u",
			data->name, data->nb_rx_queues, data->nb_tx_queues);
		return -EINVAL;
	}
	return 0;
}

/* rte_eth_conf.link_speeds into the device, or refused. */
static int
link_config(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	uint32_t speeds = dev->data->dev_conf.link_speeds;

	if (ch39x_ops(ad)->link_config != NULL)
		return ch39x_ops(ad)->link_config(ad, speeds);
	if (speeds == RTE_ETH_LINK_SPEED_AUTONEG)
		return 0;
	PMD_LOG(ERR, "%s: %s devices have no PHY the host programs: "
		"link_speeds must be RTE_ETH_LINK_SPEED_AUTONEG, not 0x%x",
		dev->data->name, ch39x_ops(ad)->name, speeds);
	return -EINVAL;
}

/*
 * Start and stop without the reconnect lock: dev_start and dev_stop take
 * it; the reconnect alarm holds it and calls these through ch39x_port_ops.
 */
static int
ch39x_port_start(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	const struct ch39x_dev_ops *ops = ch39x_ops(ad);
	struct ch39x_usb_dev *u = ad->usb;
	uint32_t rx_size;
	int rc;

	if (ch39x_is_gone(ad))
		return -ENODEV;
	if (ad->rxq == NULL || ad->txq == NULL) {
		PMD_LOG(ERR, "%s: set up the RX and TX queue before start",
			dev->data->name);
		return -EINVAL;
	}
	rc = ch39x_rxq_bind(dev, ad->rxq);
	if (rc == 0)
		rc = ch39x_rx_intr_setup(dev);
	if (rc != 0)
		return rc;
	/* The MTU grew since the RX queue was set up: larger transfers. */
	rx_size = ops->rx_xfer_size != NULL ?
		ops->rx_xfer_size(ad, dev->data->mtu) : 0;
	if (ad->prof.rx_xfer_size < rx_size) {
		rc = ch39x_rxq_resize(ad, rx_size);
		if (rc != 0)
			return rc;
	}
	if (ch39x_libusb_is_libusb(u)) {
		struct ch39x_libusb_mem m;
		char err[256];
		uint64_t bytes = (uint64_t)ad->rxq->nb_xfers *
			ad->prof.rx_xfer_size + (uint64_t)ad->txq->nb_xfers *
			(ad->prof.tx_xfer_size + CH39X_TX_TRAILER);

		/*
		 * usbfs caps what all processes keep in flight at once; its
		 * own buffers were counted when allocated, not again here.
		 */
		ch39x_libusb_mem_stats(u, &m);
		bytes = bytes > m.devmem ? bytes - m.devmem : 0;
		if (ch39x_libusb_mem_check(u, bytes, err, sizeof(err)) != 0) {
			PMD_LOG(ERR, "%s: %s", dev->data->name, err);
			return -ENOMEM;
		}
	}
	ad->txq->max_frame = ops->tx_max_frame(ad);
	ad->txq->mtu_frame = dev->data->mtu + CH39X_L2_OVERHEAD;
	ad->txq->hw_csum = (ad->caps & CH39X_CAP_TX_CSUM) != 0;
	ad->txq->hw_vlan = (ad->caps & CH39X_CAP_VLAN_INSERT) != 0;
	ad->txq->hw_tso = (ad->caps & CH39X_CAP_TSO) && !ad->args.tso_sw;
	rc = link_config(dev);
	if (rc == 0)
		rc = ops->mtu(ad, dev->data->mtu);
	if (rc == 0 && (ad->caps & CH39X_CAP_VLAN_STRIP))
		rc = ops->vlan_strip(ad, ad->rxq->vlan_strip);
	if (rc == 0)
		rc = ch39x_program_rx_mode(ad);
	if (rc != 0)
		return rc;
	ch39x_set_link(ad, false, 0);
	ch39x_txq_start(ad->txq);
	rc = ch39x_rxq_start(ad->rxq);
	if (rc != 0) {
		ch39x_rxq_stop(ad->rxq);
		return rc;
	}
	rc = ch39x_intr_submit(ad);
	if (rc != 0) {
		ch39x_rxq_stop(ad->rxq);
		return rc;
	}
	ch39x_set_started(ad, true);
	/* One burst function per framing: no per-frame branch on it. */
	dev->rx_pkt_burst = ops->rx_burst;
	dev->tx_pkt_burst = ops->tx_burst;
	dev->data->rx_queue_state[0] = RTE_ETH_QUEUE_STATE_STARTED;
	dev->data->tx_queue_state[0] = RTE_ETH_QUEUE_STATE_STARTED;
	/*
	 * Learn the link now: events come on changes only, so after a restart
	 * the PHY is asked, as the vendor driver does on resume (§7).
	 */
	ops->link_update(ad);
	ch39x_intr_poll(ad);
	ch39x_rmv_notify(ad);
	ch39x_intr_alarm_start(ad);
	return 0;
}

static int
ch39x_port_stop(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (!ch39x_started(ad))
		return 0;
	ch39x_set_started(ad, false);
	if (ch39x_ops(ad)->stop != NULL)
		ch39x_ops(ad)->stop(ad);
	ch39x_intr_stop(ad);
	ch39x_rxq_stop(ad->rxq);
	ch39x_txq_stop(ad->txq);
	ch39x_set_link(ad, false, 0);
	dev->data->rx_queue_state[0] = RTE_ETH_QUEUE_STATE_STOPPED;
	dev->data->tx_queue_state[0] = RTE_ETH_QUEUE_STATE_STOPPED;
	/* Stopped: removal is the presence alarm's again. */
	ch39x_presence_watch(ad);
	return 0;
}

/*
 * Start and stop as the application sees them: while the device is gone
 * (reconnect=on) a start is only remembered, done when it is back, and a
 * stop forgets it; the reconnect alarm does its own under the same lock.
 */
static int
ch39x_dev_start(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int rc = 0;

	pthread_mutex_lock(&ad->rc_lock);
	/* Gone, and no alarm saw it yet: the wait begins here. */
	if (ch39x_is_gone(ad))
		ch39x_rmv_notify(ad);
	if (__atomic_load_n(&ad->absent, __ATOMIC_ACQUIRE))
		ad->resume = true;
	else
		rc = ch39x_port_start(dev);
	pthread_mutex_unlock(&ad->rc_lock);
	return rc;
}

static int
ch39x_dev_stop(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int rc;

	pthread_mutex_lock(&ad->rc_lock);
	ad->resume = false;
	ad->rx_rearm = false;
	rc = ch39x_port_stop(dev);
	pthread_mutex_unlock(&ad->rc_lock);
	return rc;
}

static void
ch39x_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	(void)qid;
	ch39x_rxq_free(ad->rxq);
	ad->rxq = NULL;
	if (dev->data->rx_queues != NULL)
		dev->data->rx_queues[0] = NULL;
}

static void
ch39x_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	(void)qid;
	ch39x_txq_free(ad->txq);
	ad->txq = NULL;
	if (dev->data->tx_queues != NULL)
		dev->data->tx_queues[0] = NULL;
}

static int
ch39x_dev_close(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	/* First: the reconnect alarm takes the lock the stop takes. */
	ch39x_reconnect_cancel(ad);
	ch39x_dev_stop(dev);
	/* After the stop, which sets it again. */
	ch39x_presence_unwatch(ad);
	ch39x_bus_unwatch(ad);
	if (ch39x_ops(ad)->close != NULL)
		ch39x_ops(ad)->close(ad);
	ch39x_rx_queue_release(dev, 0);
	ch39x_tx_queue_release(dev, 0);
	if (ad->usb != NULL) {
		ad->usb->ops->close(ad->usb);
		ad->usb = NULL;
	}
	ch39x_rx_intr_uninit(dev);
	pthread_mutex_destroy(&ad->ctrl_lock);
	pthread_mutex_destroy(&ad->rc_lock);
	/* The ethdev layer frees dev_private and the MAC address array. */
	return 0;
}

static int
ch39x_rx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket, const struct rte_eth_rxconf *conf,
		     struct rte_mempool *mp)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct ch39x_rxq *q;
	int rc;

	(void)conf;
	if (qid != 0)
		return -EINVAL;
	ch39x_rx_queue_release(dev, 0);
	q = rte_zmalloc_socket("ch39x_rxq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			       (int)socket);
	if (q == NULL)
		return -ENOMEM;
	q->ad = ad;
	q->mp = mp;
	q->port_id = dev->data->port_id;
	q->queue_id = qid;
	if (ch39x_ops(ad)->rx_xfer_size != NULL)
		ad->prof.rx_xfer_size = ch39x_ops(ad)->rx_xfer_size(ad,
							      dev->data->mtu);
	rc = ch39x_rxq_alloc(ad, q, nb_desc);
	if (rc == 0)
		rc = ch39x_rxq_bind(dev, q);
	if (rc != 0) {
		ch39x_rxq_free(q);
		return rc;
	}
	ad->rxq = q;
	dev->data->rx_queues[0] = q;
	return 0;
}

static int
ch39x_tx_queue_setup(struct rte_eth_dev *dev, uint16_t qid, uint16_t nb_desc,
		     unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct ch39x_txq *q;
	int rc;

	(void)conf;
	if (qid != 0)
		return -EINVAL;
	ch39x_tx_queue_release(dev, 0);
	q = rte_zmalloc_socket("ch39x_txq", sizeof(*q), RTE_CACHE_LINE_SIZE,
			       (int)socket);
	if (q == NULL)
		return -ENOMEM;
	q->ad = ad;
	q->port_id = dev->data->port_id;
	q->queue_id = qid;
	q->max_frame = ch39x_ops(ad)->tx_max_frame(ad);
	q->mtu_frame = dev->data->mtu + CH39X_L2_OVERHEAD;
	rc = ch39x_txq_alloc(ad, q, nb_desc);
	if (rc != 0) {
		ch39x_txq_free(q);
		return rc;
	}
	ad->txq = q;
	dev->data->tx_queues[0] = q;
	return 0;
}

static int
ch39x_link_update(struct rte_eth_dev *dev, int wait_to_complete)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	(void)wait_to_complete;
	/*
	 * While started, the interrupt endpoint keeps the link current; a
	 * secondary process reads what the primary last saw.
	 */
	if (ch39x_started(ad) || ch39x_is_gone(ad) ||
	    rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	ch39x_ops(ad)->link_update(ad);
	return 0;
}

/* On the vendor chips, BMCR bit 11 powers the PHY and the link. */
static int
set_link_power(struct rte_eth_dev *dev, bool up)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (ch39x_ops(ad)->link_set == NULL) {
		PMD_LOG(ERR, "%s: %s devices have no request to take their "
			"link up or down", dev->data->name, ch39x_ops(ad)->name);
		return -ENOTSUP;
	}
	return ch39x_ops(ad)->link_set(ad, up);
}

static int
ch39x_dev_set_link_up(struct rte_eth_dev *dev)
{
	return set_link_power(dev, true);
}

static int
ch39x_dev_set_link_down(struct rte_eth_dev *dev)
{
	return set_link_power(dev, false);
}

/*
 * The ethdev layer records the new promiscuous or all-multicast state only
 * after the op succeeds, so each op passes the state it asks for.
 */
static int
rx_mode_as(struct ch39x_adapter *ad, bool promisc, bool allmulti)
{
	/* The device is gone: the state is written when it is back. */
	if (ch39x_deferred(ad))
		return 0;
	return ch39x_ops(ad)->rx_mode(ad, promisc, allmulti);
}

static int
ch39x_promisc_enable(struct rte_eth_dev *dev)
{
	return rx_mode_as(dev->data->dev_private, true,
				  dev->data->all_multicast);
}

static int
ch39x_promisc_disable(struct rte_eth_dev *dev)
{
	return rx_mode_as(dev->data->dev_private, false,
				  dev->data->all_multicast);
}

static int
ch39x_allmulti_enable(struct rte_eth_dev *dev)
{
	return rx_mode_as(dev->data->dev_private,
				  dev->data->promiscuous, true);
}

static int
ch39x_allmulti_disable(struct rte_eth_dev *dev)
{
	return rx_mode_as(dev->data->dev_private,
				  dev->data->promiscuous, false);
}

static int
ch39x_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *list,
		       uint32_t n)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	uint32_t i;

	if (n > CH39X_MAX_MC_ADDRS) {
		PMD_LOG(ERR, "%s: %u multicast addresses, at most %u",
			dev->data->name, n, CH39X_MAX_MC_ADDRS);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		if (!rte_is_multicast_ether_addr(&list[i]))
			return -EINVAL;
		memcpy(ad->mc[i], list[i].addr_bytes, RTE_ETHER_ADDR_LEN);
	}
	ad->nb_mc = n;
	return ch39x_program_rx_mode(ad);
}

static int
ch39x_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	/* The device is gone: written when it is back (from dev->data). */
	if (ch39x_deferred(ad))
		return 0;
	return ch39x_ops(ad)->set_mac(ad, addr);
}

static int
ch39x_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int rc;

	if (ch39x_started(ad)) {
		PMD_LOG(ERR, "%s: stop the port before changing the MTU",
			dev->data->name);
		return -EBUSY;
	}
	/* The device is gone: the start writes it when it is back. */
	rc = ch39x_deferred(ad) ? 0 :
		ch39x_ops(ad)->mtu(ad, mtu);
	if (rc == 0 && ad->rxq != NULL)
		ad->rxq->max_frame = mtu + CH39X_L2_OVERHEAD;
	return rc;
}

static int
ch39x_dev_reset(struct rte_eth_dev *dev);

static const struct eth_dev_ops ch39x_eth_ops = {
	.dev_configure = ch39x_dev_configure,
	.dev_infos_get = ch39x_dev_infos_get,
	.dev_start = ch39x_dev_start,
	.dev_stop = ch39x_dev_stop,
	.dev_close = ch39x_dev_close,
	.dev_reset = ch39x_dev_reset,
	.dev_set_link_up = ch39x_dev_set_link_up,
	.dev_set_link_down = ch39x_dev_set_link_down,
	.rx_queue_setup = ch39x_rx_queue_setup,
	.tx_queue_setup = ch39x_tx_queue_setup,
	.rx_queue_release = ch39x_rx_queue_release,
	.tx_queue_release = ch39x_tx_queue_release,
	.link_update = ch39x_link_update,
	.promiscuous_enable = ch39x_promisc_enable,
	.promiscuous_disable = ch39x_promisc_disable,
	.allmulticast_enable = ch39x_allmulti_enable,
	.allmulticast_disable = ch39x_allmulti_disable,
	.set_mc_addr_list = ch39x_set_mc_addr_list,
	.mac_addr_set = ch39x_mac_addr_set,
	.mtu_set = ch39x_mtu_set,
	.fw_version_get = ch39x_fw_version_get,
	.stats_get = ch39x_stats_get,
	.stats_reset = ch39x_stats_reset,
	.xstats_get = ch39x_xstats_get,
	.xstats_get_names = ch39x_xstats_get_names,
	.xstats_reset = ch39x_stats_reset,
	.rxq_info_get = ch39x_rxq_info_get,
	.txq_info_get = ch39x_txq_info_get,
	.rx_burst_mode_get = ch39x_rx_burst_mode_get,
	.tx_burst_mode_get = ch39x_tx_burst_mode_get,
	.dev_supported_ptypes_get = ch39x_dev_supported_ptypes_get,
	.dev_ptypes_set = ch39x_dev_ptypes_set,
	.flow_ctrl_get = ch39x_flow_ctrl_get,
	.flow_ctrl_set = ch39x_flow_ctrl_set,
	.eth_dev_priv_dump = ch39x_priv_dump,
	.rx_queue_intr_enable = ch39x_rx_queue_intr_enable,
	.rx_queue_intr_disable = ch39x_rx_queue_intr_disable,
};

/*
 * A secondary process (dpdk-proc-info, dpdk-pdump, dpdk-dumpcap) sees the
 * port's shared data; the USB device stays with the primary, so only what
 * reads that data is offered here: no control, no bursts.
 */
static const struct eth_dev_ops ch39x_eth_ops_secondary = {
	.dev_infos_get = ch39x_dev_infos_get,
	.dev_close = ch39x_dev_close,
	.link_update = ch39x_link_update,
	.fw_version_get = ch39x_fw_version_get,
	.stats_get = ch39x_stats_get,
	.xstats_get = ch39x_xstats_get,
	.xstats_get_names = ch39x_xstats_get_names,
	.rxq_info_get = ch39x_rxq_info_get,
	.txq_info_get = ch39x_txq_info_get,
	.rx_burst_mode_get = ch39x_rx_burst_mode_get,
	.tx_burst_mode_get = ch39x_tx_burst_mode_get,
	.dev_supported_ptypes_get = ch39x_dev_supported_ptypes_get,
	.flow_ctrl_get = ch39x_flow_ctrl_get,
	.eth_dev_priv_dump = ch39x_priv_dump,
};

/* For the reconnect alarm (ch39x_reconnect.c), which sits below these. */
static const struct ch39x_port_ops ch39x_port_ops = {
	.start = ch39x_port_start,
	.stop = ch39x_port_stop,
	.rx_arm = ch39x_rx_arm,
	.watch = ch39x_presence_watch,
};

static int
probe_secondary(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev = rte_eth_dev_attach_secondary(name);

	if (dev == NULL) {
		PMD_LOG(ERR, "%s: the primary process has no such port", name);
		return -ENODEV;
	}
	dev->dev_ops = &ch39x_eth_ops_secondary;
	dev->device = &vdev->device;
	dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	rte_eth_dev_probing_finish(dev);
	return 0;
}

/* ---- probe ---- */

static void
libusb_log(void *arg, const char *msg)
{
	PMD_LOG(WARNING, "%s: %s", (const char *)arg, msg);
}

/*
 * A real adapter through libusb (dev=, serial=, path=, proto=,
 * kernel_driver=).
 */
static struct ch39x_usb_dev *
open_real(const char *name, const struct ch39x_args *a, char *err,
	  size_t errlen)
{
	struct ch39x_libusb_sel sel;
	struct ch39x_usb_dev *u;
	char desc[160];

	memset(&sel, 0, sizeof(sel));
	sel.vid = a->vid;
	sel.pid = a->pid;
	sel.serial = a->serial;
	sel.path = a->path[0] ? a->path : NULL;
	sel.protos = a->protos;
	sel.keep_kernel_driver = a->kernel_driver_keep;
	sel.has_function = a->function.set;
	sel.function = a->function.num;
	sel.log = libusb_log;
	sel.log_arg = (void *)(uintptr_t)name;
	u = ch39x_libusb_open(&sel, err, errlen);
	if (u == NULL)
		return NULL;
	ch39x_libusb_describe(u, desc, sizeof(desc));
	PMD_LOG(INFO, "%s: %s", name, desc);
	return u;
}

static int
ch39x_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct ch39x_adapter *ad;
	struct ch39x_args args;
	char err[512] = "";
	int rc;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return probe_secondary(vdev);
	rc = ch39x_parse_devargs(name, rte_vdev_device_args(vdev), &args);
	if (rc != 0) {
		PMD_LOG(ERR, "%s: invalid devargs, probe failed", name);
		return rc;
	}
	dev = rte_eth_vdev_allocate(vdev, sizeof(*ad));
	if (dev == NULL)
		return -ENOMEM;
	ad = dev->data->dev_private;
	ad->dev = dev;
	ad->args = args;
	ad->port_ops = &ch39x_port_ops;
	pthread_mutex_init(&ad->ctrl_lock, NULL);
	{
		pthread_mutexattr_t ma;

		/* Recursive: an LSC callback of the restart may stop the port. */
		pthread_mutexattr_init(&ma);
		pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
		pthread_mutex_init(&ad->rc_lock, &ma);
		pthread_mutexattr_destroy(&ma);
	}
	ad->usb = args.real ? open_real(name, &args, err, sizeof(err)) :
		ch39x_sim_open(&args.sim, err, sizeof(err));
	if (ad->usb == NULL) {
		PMD_LOG(ERR, "%s: %s", name, err);
		rc = -EINVAL;
		goto fail;
	}
	ad->is_sim = ch39x_sim_is_sim(ad->usb);
	rc = ch39x_hw_init(ad);
	if (rc != 0) {
		PMD_LOG(ERR, "%s: device initialisation failed: %s", name,
			strerror(-rc));
		goto fail;
	}
	if (ad->framing != CH39X_FRAMING_MBIM && ch39x_args_mbim_set(&args)) {
		PMD_LOG(ERR, "%s: apn, user, password, auth, ip_type, sessions "
			"and connect are for an MBIM function; this device is "
			"driven as %s", name, ch39x_ops(ad)->name);
		rc = -EINVAL;
		goto fail;
	}
	ad->id = ad->info;
	/* Owned by ethdev from here on: it frees the array at release. */
	dev->data->mac_addrs = rte_zmalloc("ch39x_mac", RTE_ETHER_ADDR_LEN, 0);
	if (dev->data->mac_addrs == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	dev->data->mac_addrs[0] = ad->mac_addr;
	dev->data->mtu = RTE_ETHER_MTU;
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC | RTE_ETH_DEV_INTR_RMV |
		RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	rc = ch39x_rx_intr_init(dev);
	if (rc != 0)
		goto fail;
	dev->dev_ops = &ch39x_eth_ops;
	dev->rx_pkt_burst = ch39x_ops(ad)->rx_burst;
	dev->tx_pkt_burst = ch39x_ops(ad)->tx_burst;
	dev->tx_pkt_prepare = ch39x_tx_prepare;
	rte_eth_dev_probing_finish(dev);
	ch39x_bus_watch(ad);		/* first: the alarm is its fallback */
	ch39x_presence_watch(ad);
	PMD_LOG(INFO, "%s: %s at %s speed, %s, MAC " RTE_ETHER_ADDR_PRT_FMT,
		name, ad->framing == CH39X_FRAMING_VENDOR ?
		ch39x_chip_name(ad->prof.pid) : ch39x_ops(ad)->name,
		ad->prof.speed == CH39X_SPEED_SUPER ? "super" :
		ad->prof.speed == CH39X_SPEED_HIGH ? "high" : "full",
		ad->usb->ops->name, RTE_ETHER_ADDR_BYTES(&ad->mac_addr));
	return 0;
fail:
	if (ad->usb != NULL && ch39x_ops(ad)->close != NULL)
		ch39x_ops(ad)->close(ad);
	if (ad->usb != NULL)
		ad->usb->ops->close(ad->usb);
	pthread_mutex_destroy(&ad->ctrl_lock);
	pthread_mutex_destroy(&ad->rc_lock);
	rte_eth_dev_release_port(dev);
	return rc;
}

static int
ch39x_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev;

	dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));
	if (dev == NULL)
		return 0;
	ch39x_dev_close(dev);
	rte_eth_dev_release_port(dev);
	return 0;
}

static int
ch39x_dev_reset(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int rc;

	ch39x_dev_stop(dev);
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = ch39x_hw_init(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc == 0)
		dev->data->mac_addrs[0] = ad->mac_addr;
	return rc;
}


/*
 * A port of this driver in this process, primary (a secondary's ports
 * have the other ops table, and no device).
 */
bool
ch39x_eth_dev_is_ours(const struct rte_eth_dev *dev)
{
	return dev->dev_ops == &ch39x_eth_ops;
}

static struct rte_vdev_driver ch39x_vdev_drv = {
	.probe = ch39x_probe,
	.remove = ch39x_remove,
};

RTE_PMD_REGISTER_VDEV(net_ch39x, ch39x_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_ch39x, CH39X_PMD_PARAMS);
