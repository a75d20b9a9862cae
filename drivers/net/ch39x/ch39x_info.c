/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * What a port tells about itself: device info and descriptor limits,
 * queue info and burst modes, packet types, firmware version, flow
 * control and the private dump. Primary and secondary processes both
 * call these (ch39x_ethdev.c's two ops tables): they read the shared
 * port data only, never the USB device.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"
#include "ch39x_info.h"
#include "ch39x_logs.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"
#include "ch39x_xstats.h"

/* The RX transfer size a queue set up at this MTU gets. */
static uint32_t
rx_xfer_size_at(const struct ch39x_adapter *ad, uint16_t mtu)
{
	const struct ch39x_dev_ops *ops = ch39x_ops(ad);

	return ops->rx_xfer_size != NULL ? ops->rx_xfer_size(ad, mtu) :
		ad->prof.rx_xfer_size;
}

/*
 * Descriptor limits and defaults, in frames (see ch39x_nb_xfers()). Any
 * count is accepted, as applications ask for 1024 to 4096 without looking;
 * what CH39X_MAX_XFERS transfers, or 2 MiB of them, hold is the most a
 * queue gets, and rxq/txq info reports what it got.
 */
static void
desc_limits(const struct ch39x_adapter *ad, uint16_t mtu,
	    struct rte_eth_dev_info *info)
{
	uint16_t rx_per = ch39x_desc_per_xfer(rx_xfer_size_at(ad, mtu));
	uint16_t tx_per = ch39x_desc_per_xfer(ad->prof.tx_xfer_size);
	uint16_t rx_n = ad->args.rx_xfers ? ad->args.rx_xfers :
		ad->prof.rx_xfers;
	uint16_t tx_n = ad->args.tx_xfers ? ad->args.tx_xfers :
		ad->prof.tx_xfers;

	info->rx_desc_lim.nb_min = 1;
	info->rx_desc_lim.nb_align = 1;
	info->rx_desc_lim.nb_max = UINT16_MAX;
	info->tx_desc_lim.nb_min = 1;
	info->tx_desc_lim.nb_align = 1;
	info->tx_desc_lim.nb_max = UINT16_MAX;
	info->default_rxportconf.ring_size = (uint16_t)(rx_per * rx_n);
	info->default_txportconf.ring_size = (uint16_t)(tx_per * tx_n);
}

int
ch39x_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	const struct ch39x_profile *p = &ad->prof;

	info->max_mac_addrs = 1;
	info->max_rx_queues = 1;
	info->max_tx_queues = 1;
	info->max_rx_pktlen = p->max_mtu + CH39X_L2_OVERHEAD;
	info->min_mtu = p->min_mtu;
	info->max_mtu = p->max_mtu;
	info->min_rx_bufsize = 64;
	/* In the device where its caps say, in software elsewhere. */
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER |
		RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	if ((ad->caps & CH39X_CAP_RX_CSUM) || ad->args.rx_csum_sw)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
			RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
		RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
		RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	info->speed_capa = ad->speed_capa;
	desc_limits(ad, dev->data->mtu, info);
	info->default_rxportconf.burst_size = 32;
	info->default_txportconf.burst_size = 32;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	return 0;
}

int
ch39x_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t size)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int n = ch39x_ops(ad)->fw_version(ad, fw, size);

	if (n < 0)
		return -EINVAL;
	return (size_t)n < size ? 0 : n + 1;
}

void
ch39x_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		   struct rte_eth_rxq_info *qi)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	const struct ch39x_rxq *q = ad->rxq;

	RTE_SET_USED(qid);
	qi->mp = q->mp;
	qi->scattered_rx = q->scatter;
	qi->nb_desc = (uint16_t)(q->nb_xfers *
				 ch39x_desc_per_xfer(ad->prof.rx_xfer_size));
	qi->rx_buf_size = q->data_room;
	qi->conf.rx_free_thresh = 0;
	qi->conf.offloads = dev->data->dev_conf.rxmode.offloads;
}

void
ch39x_txq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		   struct rte_eth_txq_info *qi)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	const struct ch39x_txq *q = ad->txq;

	RTE_SET_USED(qid);
	qi->nb_desc = (uint16_t)(q->nb_xfers *
				 ch39x_desc_per_xfer(ad->prof.tx_xfer_size));
	qi->conf.offloads = dev->data->dev_conf.txmode.offloads;
}

/* What one burst moves: frames in bulk transfers of the framing. */
static int
burst_mode(const struct ch39x_adapter *ad, bool rx,
	   struct rte_eth_burst_mode *mode)
{
	static const char *const how[] = {
		[CH39X_FRAMING_VENDOR] = "vendor records",
		[CH39X_FRAMING_NCM] = "CDC-NCM NTBs",
		[CH39X_FRAMING_ECM] = "CDC-ECM frames",
	};
	uint32_t size = rx ? ad->prof.rx_xfer_size : ad->prof.tx_xfer_size;
	uint16_t n = rx ? ad->rxq->nb_xfers : ad->txq->nb_xfers;

	mode->flags = 0;
	snprintf(mode->info, sizeof(mode->info),
		 "Scalar, %s in %u bulk %s transfers of %u bytes%s",
		 how[ad->framing], n, rx ? "IN" : "OUT", size,
		 rx && ad->rxq->copybreak ? ", zero-copy" : "");
	return 0;
}

int
ch39x_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_burst_mode *mode)
{
	RTE_SET_USED(qid);
	return burst_mode(dev->data->dev_private, true, mode);
}

int
ch39x_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_burst_mode *mode)
{
	RTE_SET_USED(qid);
	return burst_mode(dev->data->dev_private, false, mode);
}

const uint32_t *
ch39x_dev_supported_ptypes_get(struct rte_eth_dev *dev CH39X_PTYPES_PARAM)
{
	size_t n;
	const uint32_t *list = ch39x_supported_ptypes(&n);

	RTE_SET_USED(dev);
	CH39X_PTYPES_COUNT(n);
	return list;
}

/*
 * rte_eth_dev_set_ptypes(): the packet type is a software parse of each
 * frame's headers, so an application that does not read it (a mask of 0,
 * RTE_PTYPE_UNKNOWN: testpmd asks for that at every port start) saves it;
 * any other mask turns it back on, for every type the PMD knows (ethdev
 * allows a PMD to report more than asked). Read by the RX queue once per
 * burst: it may change while the port runs.
 */
int
ch39x_dev_ptypes_set(struct rte_eth_dev *dev, uint32_t ptype_mask)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	__atomic_store_n(&ad->rx_ptype_off, ptype_mask == 0, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Pause frames: the vendor chips have one MAC_CFG bit for both directions
 * (and advertise pause in ANAR), so the modes are FULL and NONE. CDC
 * devices have no request for it.
 */
int
ch39x_flow_ctrl_get(struct rte_eth_dev *dev, struct rte_eth_fc_conf *fc)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (ch39x_ops(ad)->pause == NULL)
		return -ENOTSUP;
	memset(fc, 0, sizeof(*fc));
	fc->mode = ad->pause_off ? RTE_ETH_FC_NONE : RTE_ETH_FC_FULL;
	fc->autoneg = 1;
	return 0;
}

int
ch39x_flow_ctrl_set(struct rte_eth_dev *dev, struct rte_eth_fc_conf *fc)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (ch39x_ops(ad)->pause == NULL) {
		PMD_LOG(ERR, "%s: a %s device has no request for pause frames",
			dev->data->name, ch39x_ops(ad)->name);
		return -ENOTSUP;
	}
	if (fc->mode != RTE_ETH_FC_FULL && fc->mode != RTE_ETH_FC_NONE) {
		PMD_LOG(ERR, "%s: pause frames are on or off in both "
			"directions (one MAC_CFG bit): mode full or none",
			dev->data->name);
		return -ENOTSUP;
	}
	/* The device is gone: applied when it is back (ch39x_reconnect.c). */
	if (ch39x_deferred(ad)) {
		ad->pause_off = fc->mode != RTE_ETH_FC_FULL;
		return 0;
	}
	return ch39x_ops(ad)->pause(ad, fc->mode == RTE_ETH_FC_FULL);
}

/* rte_eth_dev_priv_dump (telemetry /ethdev/dump_priv): state and xstats. */
int
ch39x_priv_dump(struct rte_eth_dev *dev, FILE *f)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	int n, i;

	fprintf(f, "%s: %s over %s, %s, caps 0x%x, %s%s\n", dev->data->name,
		ch39x_ops(ad)->name, ad->is_sim ? "the simulated adapter" :
		"libusb", ch39x_started(ad) ? "started" : "stopped", ad->caps,
		ch39x_is_gone(ad) ? "removed" : "present",
		ad->pause_off ? ", pause off" : "");
	fprintf(f, "  usb %04x:%04x config %u speed %u, interrupt every %u "
		"ms, link events %" PRIu64 ", control errors %" PRIu64 "\n",
		ad->info.vid, ad->info.pid, ad->info.config_value,
		ad->info.speed, ad->info.intr_interval_ms, ad->link_events,
		ad->ctrl_errors);
	if (ad->rxq != NULL)
		fprintf(f, "  rx: %u transfers of %u bytes, current %s, %u "
			"lent, %u mbufs stashed\n", ad->rxq->nb_xfers,
			ad->prof.rx_xfer_size, ad->rxq->cur ? "parsing" :
			"none", ad->rxq->lent, ad->rxq->stash_n);
	if (ad->txq != NULL)
		fprintf(f, "  tx: %u transfers of %u bytes, %u free\n",
			ad->txq->nb_xfers, ad->prof.tx_xfer_size,
			ad->txq->nb_free);
	n = ch39x_xstats_get_names(dev, NULL, 0);
	names = calloc((size_t)n, sizeof(*names));
	xs = calloc((size_t)n, sizeof(*xs));
	if (names != NULL && xs != NULL &&
	    ch39x_xstats_get_names(dev, names, (unsigned int)n) == n &&
	    ch39x_xstats_get(dev, xs, (unsigned int)n) == n)
		for (i = 0; i < n; i++)
			fprintf(f, "  %s: %" PRIu64 "\n", names[i].name,
				xs[i].value);
	free(names);
	free(xs);
	return 0;
}
