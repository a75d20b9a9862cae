/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: probe and devargs, device programming through vendor requests
 * (following the vendor's V1.7 driver as the facts sheet describes it), and
 * the ethdev ops. The bursts are in ch39x_rxtx.c.
 */

#include <errno.h>
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

#include "ch39x_devargs.h"
#include "ch39x_ethdev.h"
#include "ch39x_libusb.h"
#include "ch39x_logs.h"
#include "rte_pmd_ch39x.h"

RTE_LOG_REGISTER_DEFAULT(ch39x_logtype, NOTICE);


#define CH39X_CTRL_TIMEOUT_MS 500
/*
 * CDC devices: the longest frame the PMD handles (MTU 9000 plus header and
 * a tag), the default NTB sizes (Linux cdc_ncm's), transfers in flight.
 */
#define CH39X_CDC_MAX_MTU	9000
#define CH39X_CDC_MAX_FRAME	(CH39X_CDC_MAX_MTU + CH39X_L2_OVERHEAD)
#define CH39X_NCM_DEF_NTB	16384
#define CH39X_NCM_NDP_ENTRIES	64
#define CH39X_NCM_RX_XFERS	16
#define CH39X_NCM_TX_XFERS	10
/* ECM moves a frame per transfer: more of them in flight (usbnet: 60). */
#define CH39X_ECM_XFERS		32

static bool
is_cdc(const struct ch39x_adapter *ad)
{
	return ad->framing != CH39X_FRAMING_VENDOR;
}

static int cdc_set_mac(struct ch39x_adapter *ad,
		       const struct rte_ether_addr *mac);

/*
 * ECM bulk IN transfers hold one frame each: sized for the longest frame
 * the MTU allows plus a padding device's extra byte, or xfer_size when
 * given. Buffers larger than that cost per transfer: on the Linux gadget
 * (dummy_hcd) 10 KiB buffers received half the frames per second of
 * 2 KiB ones.
 */
static uint32_t
ecm_rx_size(const struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t sz = RTE_ALIGN_CEIL((uint32_t)mtu + CH39X_L2_OVERHEAD + 1,
				     512u);

	if (ad->args.xfer_size)
		return ad->args.xfer_size;
	return RTE_MAX(sz, (uint32_t)CH39X_MIN_XFER_SIZE);
}

/* Give the stopped ECM RX queue transfer buffers of size bytes. */
static int
ecm_rx_resize(struct ch39x_adapter *ad, uint32_t size)
{
	struct ch39x_rxq *q = ad->rxq;
	uint8_t *bufs;
	uint16_t i;

	if (q->lent) {
		PMD_LOG(ERR, "%s: the MTU needs larger RX transfers, but the "
			"application still holds mbufs attached to the old "
			"ones (rx_copybreak); free them first",
			ad->dev->data->name);
		return -EBUSY;
	}
	bufs = rte_malloc("ch39x_rx_bufs", (size_t)size * q->nb_xfers, 64);
	if (bufs == NULL)
		return -ENOMEM;
	rte_free(q->bufs);
	q->bufs = bufs;
	q->bufs_iova = rte_malloc_virt2iova(bufs);
	for (i = 0; i < q->nb_xfers; i++) {
		q->xfers[i].buf = bufs + (size_t)i * size;
		q->xfers[i].len = size;
	}
	ad->prof.rx_xfer_size = size;
	return 0;
}

/* ---- vendor requests (sheet section 2) ---- */

static int
ctrl(struct ch39x_adapter *ad, uint8_t type, uint8_t req, uint32_t arg,
     void *data, uint16_t len)
{
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	if (ad->gone)
		return -ENODEV;
	rc = u->ops->control(u, type, req, (uint16_t)arg, (uint16_t)(arg >> 16),
			     data, len, CH39X_CTRL_TIMEOUT_MS);
	if (rc == -ENODEV)
		ad->gone = true;
	/* V1.7 treats a length mismatch as an I/O error. */
	if (rc >= 0 && rc != len)
		rc = -EIO;
	if (rc < 0) {
		ad->ctrl_errors++;
		PMD_LOG(ERR, "%s: vendor request 0x%02x (0x%08x) failed: %s",
			ad->dev->data->name, req, arg, strerror(-rc));
		return rc;
	}
	if (u->ctrl_delay_us)
		rte_delay_us_sleep(u->ctrl_delay_us);
	return 0;
}

static int
rd_reg(struct ch39x_adapter *ad, uint32_t addr, uint16_t len, uint32_t *val)
{
	uint8_t b[4] = { 0 };
	int rc = ctrl(ad, CH39X_REQT_IN, CH39X_REQ_RD_REG, addr, b, len);

	*val = rc == 0 ? ch39x_get_le32(b) : 0xFFFFFFFFu;
	return rc;
}

static int
wr_reg(struct ch39x_adapter *ad, uint32_t addr, uint16_t len, uint32_t val)
{
	uint8_t b[4];

	ch39x_put_le32(b, val);
	return ctrl(ad, CH39X_REQT_OUT, CH39X_REQ_WR_REG, addr, b, len);
}

static int
rd_phy(struct ch39x_adapter *ad, unsigned int reg, uint16_t *val)
{
	uint8_t b[2] = { 0xFF, 0xFF };
	int rc = ctrl(ad, CH39X_REQT_IN, CH39X_REQ_RD_PHY,
		      CH39X_PHY_WVALUE | ((uint32_t)reg << 16), b, 2);

	*val = ch39x_get_le16(b);
	return rc;
}

static int
wr_phy(struct ch39x_adapter *ad, unsigned int reg, uint16_t val)
{
	uint8_t b[2];

	ch39x_put_le16(b, val);
	return ctrl(ad, CH39X_REQT_OUT, CH39X_REQ_WR_PHY,
		    CH39X_PHY_WVALUE | ((uint32_t)reg << 16), b, 2);
}

/* MAC_CFG from the rx-mode path: command 0x1E on newer firmware. */
static int
wr_mac_cfg(struct ch39x_adapter *ad, uint32_t val)
{
	if (ad->maccfg_cmd)
		return ctrl(ad, CH39X_REQT_OUT, CH39X_REQ_WR_MACCFG, val,
			    NULL, 0);
	return wr_reg(ad, ad->prof.regs.mac_cfg, 4, val);
}

static int
set_mac_addr(struct ch39x_adapter *ad, const struct rte_ether_addr *a)
{
	const uint8_t *b = a->addr_bytes;
	int rc;

	/* Wire order: MAC_L has octets 0..3, MAC_H 4..5 (sheet 3). */
	rc = wr_reg(ad, ad->prof.regs.mac_l, 4, ch39x_get_le32(b));
	if (rc == 0)
		rc = wr_reg(ad, ad->prof.regs.mac_h, 4,
			    (uint32_t)b[4] | ((uint32_t)b[5] << 8));
	return rc;
}

/*
 * _ch397_set_rx_mode: hash registers, then the receive bits of MAC_CFG
 * read-modify-written with flow control on (sheet 3).
 */
/* ---- CDC class requests (NCM/ECM devices) ---- */

static const char *
cdc_req_name(uint8_t req)
{
	switch (req) {
	case CH39X_CDC_SET_ETH_MC_FILTERS: return "SET_ETHERNET_MULTICAST_FILTERS";
	case CH39X_CDC_SET_ETH_PKT_FILTER: return "SET_ETHERNET_PACKET_FILTER";
	case CH39X_CDC_GET_NTB_PARAMETERS: return "GET_NTB_PARAMETERS";
	case CH39X_CDC_SET_NET_ADDRESS: return "SET_NET_ADDRESS";
	case CH39X_CDC_SET_NTB_FORMAT: return "SET_NTB_FORMAT";
	case CH39X_CDC_SET_NTB_INPUT_SIZE: return "SET_NTB_INPUT_SIZE";
	case CH39X_CDC_GET_MAX_DATAGRAM: return "GET_MAX_DATAGRAM_SIZE";
	case CH39X_CDC_SET_MAX_DATAGRAM: return "SET_MAX_DATAGRAM_SIZE";
	default: return "class request";
	}
}

/*
 * A class request to the communication interface. Returns the bytes of
 * the data stage or a negative errno; quiet keeps an expected refusal
 * (an optional request) out of the error log.
 */
static int
cdc_req(struct ch39x_adapter *ad, uint8_t type, uint8_t req, uint16_t value,
	void *data, uint16_t len, bool quiet)
{
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	if (ad->gone)
		return -ENODEV;
	rc = u->ops->control(u, type, req, value, ad->cdc.comm_if, data, len,
			     CH39X_CTRL_TIMEOUT_MS);
	if (rc == -ENODEV)
		ad->gone = true;
	if (rc < 0) {
		ad->ctrl_errors++;
		if (!quiet)
			PMD_LOG(ERR, "%s: %s (wValue 0x%04x) failed: %s",
				ad->dev->data->name, cdc_req_name(req), value,
				strerror(-rc));
	}
	return rc;
}

/*
 * SET_ETHERNET_PACKET_FILTER, with the device's multicast filters when it
 * has enough of them. A port whose address is not the device's (no
 * SET_NET_ADDRESS) would lose its unicast frames to the DIRECTED filter:
 * it runs promiscuous instead.
 */
static int
cdc_rx_mode(struct ch39x_adapter *ad, bool promisc, bool allmulti)
{
	uint8_t buf[CH39X_MAX_MC_ADDRS * RTE_ETHER_ADDR_LEN];
	bool own = rte_is_same_ether_addr(&ad->mac_addr, &ad->dev_mac);
	uint16_t flt;
	uint32_t n;
	int rc = 0;

	flt = ch39x_cdc_packet_filter(promisc || !own, allmulti, ad->nb_mc,
				      ad->cdc.mc_filters);
	pthread_mutex_lock(&ad->ctrl_lock);
	if (flt & CH39X_CDC_PKT_MULTICAST) {
		n = ch39x_cdc_mc_filters_build((const uint8_t (*)[6])ad->mc,
					       ad->nb_mc, buf, sizeof(buf));
		rc = cdc_req(ad, CH39X_CDC_REQT_OUT,
			     CH39X_CDC_SET_ETH_MC_FILTERS, (uint16_t)ad->nb_mc,
			     buf, (uint16_t)n, false);
		if (rc < 0 && !ad->gone) {
			/* The list did not take: all multicast, as Linux. */
			flt = (uint16_t)((flt & ~CH39X_CDC_PKT_MULTICAST) |
					 CH39X_CDC_PKT_ALL_MULTICAST);
		}
	}
	rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_ETH_PKT_FILTER, flt,
		     NULL, 0, false);
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc < 0 ? rc : 0;
}

static int
program_rx_mode_as(struct ch39x_adapter *ad, bool promisc, bool allmulti)
{
	uint32_t bits, hi = 0, lo = 0, cfg;
	int rc;

	if (is_cdc(ad))
		return cdc_rx_mode(ad, promisc, allmulti);
	bits = ch39x_rx_mode_bits(promisc, allmulti, ad->nb_mc);
	if (bits & CH39X_MACCFG_RX_PLM)
		ch39x_mc_hash_regs(ad->prof.family,
				   (const uint8_t (*)[6])ad->mc, ad->nb_mc,
				   &hi, &lo);
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = wr_reg(ad, ad->prof.regs.hash_hi, 4, hi);
	if (rc == 0)
		rc = wr_reg(ad, ad->prof.regs.hash_lo, 4, lo);
	if (rc == 0)
		rc = rd_reg(ad, ad->prof.regs.mac_cfg, 4, &cfg);
	if (rc == 0) {
		cfg &= ~(CH39X_MACCFG_RX_MASK | CH39X_MACCFG_FLOWCTRL);
		cfg |= bits | CH39X_MACCFG_FLOWCTRL;
		rc = wr_mac_cfg(ad, cfg);
	}
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

static int
program_rx_mode(struct ch39x_adapter *ad)
{
	const struct rte_eth_dev_data *data = ad->dev->data;

	return program_rx_mode_as(ad, data->promiscuous, data->all_multicast);
}

/* ch398_set_mtu: the jumbo bit, always through WR_REG (sheet 7). */
static int
program_mtu(struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t cfg, want;
	int rc;

	if (ad->prof.family != CH39X_V02)
		return 0;
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = rd_reg(ad, ad->prof.regs.mac_cfg, 4, &cfg);
	if (rc == 0) {
		want = mtu >= CH39X_JUMBO_MTU_MIN ?
			(cfg | CH39X_MACCFG_RWTE) : (cfg & ~CH39X_MACCFG_RWTE);
		if (want != cfg)
			rc = wr_reg(ad, ad->prof.regs.mac_cfg, 4, want);
	}
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

static int
program_vlan_strip(struct ch39x_adapter *ad, bool on)
{
	uint32_t v;
	int rc;

	if (ad->prof.regs.misc_cfg == 0)
		return on ? -ENOTSUP : 0;
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = rd_reg(ad, ad->prof.regs.misc_cfg, 4, &v);
	if (rc == 0)
		rc = wr_reg(ad, ad->prof.regs.misc_cfg, 4,
			    on ? v | CH39X_MISCCFG_VLAN_STRIP :
			    v & ~CH39X_MISCCFG_VLAN_STRIP);
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

/* ---- link: the interrupt endpoint (sheet section 6) ---- */

static void
set_link(struct ch39x_adapter *ad, bool up, uint32_t speed)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	link.link_status = up ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN;
	link.link_speed = up ? speed : RTE_ETH_SPEED_NUM_NONE;
	link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	link.link_autoneg = RTE_ETH_LINK_AUTONEG;
	rte_eth_linkstatus_set(ad->dev, &link);
}

/*
 * The link from PHY BMSR bit 2. The speed is the last event's, or the
 * chip's fastest before any event arrived.
 */
static void
link_from_phy(struct ch39x_adapter *ad)
{
	uint32_t speed = ad->last_event.speed_mbps;
	uint16_t bmsr;

	/* A CDC device has no PHY to ask: the last notification says. */
	if (is_cdc(ad)) {
		set_link(ad, ad->cdc_link, ad->cdc_speed ? ad->cdc_speed :
			 RTE_ETH_SPEED_NUM_UNKNOWN);
		return;
	}
	pthread_mutex_lock(&ad->ctrl_lock);
	if (rd_phy(ad, CH39X_PHY_BMSR, &bmsr) != 0)
		bmsr = 0;
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (speed == 0)
		speed = ad->prof.gigabit ? RTE_ETH_SPEED_NUM_1G :
			RTE_ETH_SPEED_NUM_100M;
	set_link(ad, (bmsr & CH39X_BMSR_LINK) != 0, speed);
}

/* The link as the device reports it; LSC when it changed. */
static void
link_report(struct ch39x_adapter *ad, bool up, uint32_t speed)
{
	struct rte_eth_dev *dev = ad->dev;
	bool was_up = dev->data->dev_link.link_status;

	/* A new speed without a link change is news too. */
	if (up == was_up && (!up || speed == dev->data->dev_link.link_speed))
		return;
	ad->link_events++;
	PMD_LOG(INFO, "%s: link %s, %u Mbit/s", dev->data->name,
		up ? "up" : "down", speed);
	set_link(ad, up, speed);
	/*
	 * ch397_link_reset: rx mode at every link-up; CDC devices get their
	 * packet filter again too (some send nothing until they have it).
	 */
	if (up)
		program_rx_mode(ad);
	rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
}

/* CDC notifications: NETWORK_CONNECTION and CONNECTION_SPEED_CHANGE. */
static void
cdc_notifications(struct ch39x_adapter *ad, const struct ch39x_xfer *x)
{
	struct ch39x_cdc_notify n;

	ch39x_cdc_notify_begin(&ad->notify, x->buf, x->actual);
	while (ch39x_cdc_notify_next(&ad->notify, &n) == 1) {
		ad->cdc_notifications++;
		if (n.code == CH39X_CDC_NOTIFY_NETWORK_CONNECTION)
			ad->cdc_link = n.link_up;
		else if (n.code == CH39X_CDC_NOTIFY_SPEED_CHANGE)
			ad->cdc_speed = n.down_bps / 1000000u;
		else
			continue;
		if (ad->cdc_link)
			link_report(ad, true, ad->cdc_speed ? ad->cdc_speed :
				    RTE_ETH_SPEED_NUM_UNKNOWN);
		else
			link_report(ad, false, 0);
	}
}

static void
intr_poll(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	struct rte_eth_dev *dev = ad->dev;
	struct ch39x_xfer *x;
	struct ch39x_event ev;

	while (u->ops->poll(u, CH39X_EP_INTR_IN, &x, 1) == 1) {
		if (x->status == CH39X_XFER_NO_DEVICE) {
			ad->gone = true;
			break;
		}
		if (x->status == CH39X_XFER_OK && is_cdc(ad)) {
			cdc_notifications(ad, x);
		} else if (x->status == CH39X_XFER_OK &&
		    ch39x_event_parse(&ad->prof, x->buf, x->actual, &ev) == 0) {
			ad->last_event = ev;
			link_report(ad, ev.link_up, ev.speed_mbps);
		} else if (x->status != CH39X_XFER_CANCELLED && is_cdc(ad)) {
			ch39x_cdc_notify_reset(&ad->notify);
		}
		if (x->status != CH39X_XFER_OK &&
		    x->status != CH39X_XFER_CANCELLED)
			ad->intr_errors++;
		if (x->status == CH39X_XFER_STALL)
			u->ops->clear_halt(u, CH39X_EP_INTR_IN);
		if (x->status != CH39X_XFER_CANCELLED && ad->started &&
		    u->ops->submit(u, x) == -ENODEV)
			ad->gone = true;
	}
	/*
	 * The device left the bus (seen here, by a burst or by a request):
	 * the link is down for good and the application hears it once.
	 */
	if (ad->gone && !ad->rmv_sent) {
		ad->rmv_sent = true;
		PMD_LOG(ERR, "%s: device removed", dev->data->name);
		set_link(ad, false, 0);
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RMV, NULL);
	}
}

static void
intr_alarm(void *arg)
{
	struct ch39x_adapter *ad = arg;

	if (!ad->started)
		return;
	intr_poll(ad);
	if (ad->started && !ad->gone)
		rte_eal_alarm_set((uint64_t)ad->info.intr_interval_ms * 1000,
				  intr_alarm, ad);
}

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

static int
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
	/* In hardware on a V02, in software elsewhere (see ch39x_rxtx.c). */
	info->rx_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER |
		RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	if (p->family == CH39X_V02 || ad->args.rx_csum_sw)
		info->rx_offload_capa |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
			RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS |
		RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_TX_OFFLOAD_UDP_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
		RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	info->speed_capa = is_cdc(ad) ? RTE_ETH_LINK_SPEED_AUTONEG : p->gigabit ?
		(RTE_ETH_LINK_SPEED_10M | RTE_ETH_LINK_SPEED_100M |
		 RTE_ETH_LINK_SPEED_1G) :
		(RTE_ETH_LINK_SPEED_10M_HD | RTE_ETH_LINK_SPEED_10M |
		 RTE_ETH_LINK_SPEED_100M_HD | RTE_ETH_LINK_SPEED_100M);
	info->rx_desc_lim.nb_max = UINT16_MAX;
	info->rx_desc_lim.nb_min = 1;
	info->tx_desc_lim.nb_max = UINT16_MAX;
	info->tx_desc_lim.nb_min = 1;
	info->default_rxportconf.burst_size = 32;
	info->default_txportconf.burst_size = 32;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	return 0;
}

/* The longest frame one TX record can carry. */
static uint32_t
tx_max_frame(const struct ch39x_adapter *ad)
{
	switch (ad->framing) {
	case CH39X_FRAMING_NCM:
		return RTE_MIN(ad->dev_max_dgram,
			       ch39x_ncm_tx_max_dgram(&ad->ncm_tpl));
	case CH39X_FRAMING_ECM:
		return ad->ecm.max_frame;
	default:
		return RTE_MIN(ad->prof.max_frame,
			       ad->prof.tx_xfer_size - CH39X_HDR_LEN);
	}
}

/*
 * An NCM device may take shorter datagrams than the MTU makes (the Linux
 * 6.1 gadget drops any over 1514): say so, since those frames are dropped
 * on TX and counted in tx_invalid.
 */
static void
warn_tx_limit(struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t max = tx_max_frame(ad);

	if (ad->framing == CH39X_FRAMING_NCM &&
	    (uint32_t)mtu + RTE_ETHER_HDR_LEN > max)
		PMD_LOG(WARNING, "%s: MTU %u makes frames of %u bytes, but the "
			"NCM device takes datagrams of at most %u bytes "
			"(wMaxSegmentSize %u%s); longer frames are dropped on "
			"TX and counted in tx_invalid", ad->dev->data->name,
			mtu, mtu + RTE_ETHER_HDR_LEN, max,
			ad->cdc.max_segment,
			(ad->cdc.ncm_caps & CH39X_NCM_CAP_MAX_DATAGRAM) ?
			", negotiated with SET_MAX_DATAGRAM_SIZE" :
			", no max-datagram capability");
}

static int
rxq_bind(struct rte_eth_dev *dev, struct ch39x_rxq *q)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	uint16_t room = (uint16_t)(rte_pktmbuf_data_room_size(q->mp) -
				   RTE_PKTMBUF_HEADROOM);

	uint64_t ol = dev->data->dev_conf.rxmode.offloads;

	q->scatter = (ol & RTE_ETH_RX_OFFLOAD_SCATTER) ||
		dev->data->scattered_rx;
	q->vlan_strip = (ol & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
	/* A V02 strips in hardware; elsewhere the copy strips the tag. */
	q->sw_vlan_strip = q->vlan_strip && ad->prof.family != CH39X_V02;
	q->sw_csum = ad->args.rx_csum_sw &&
		(ol & RTE_ETH_RX_OFFLOAD_CHECKSUM) != 0;
	q->max_frame = dev->data->mtu + CH39X_L2_OVERHEAD;
	q->data_room = room;
	if (q->max_frame > room && !q->scatter) {
		PMD_LOG(ERR, "%s: MTU %u makes frames of up to %u bytes, more "
			"than the %u-byte mbuf data room; enable "
			"RTE_ETH_RX_OFFLOAD_SCATTER (testpmd --enable-scatter) "
			"or use larger mbufs", dev->data->name,
			dev->data->mtu, q->max_frame, room);
		return -EINVAL;
	}
	return 0;
}

static int
ch39x_dev_start(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	if (ad->gone)
		return -ENODEV;
	if (ad->rxq == NULL || ad->txq == NULL) {
		PMD_LOG(ERR, "%s: set up the RX and TX queue before start",
			dev->data->name);
		return -EINVAL;
	}
	rc = rxq_bind(dev, ad->rxq);
	if (rc != 0)
		return rc;
	/* The MTU grew since the RX queue was set up: larger transfers. */
	if (ad->framing == CH39X_FRAMING_ECM &&
	    ad->prof.rx_xfer_size < ecm_rx_size(ad, dev->data->mtu)) {
		rc = ecm_rx_resize(ad, ecm_rx_size(ad, dev->data->mtu));
		if (rc != 0)
			return rc;
	}
	if (ch39x_libusb_is_libusb(u)) {
		char err[256];
		uint64_t bytes = (uint64_t)ad->rxq->nb_xfers *
			ad->prof.rx_xfer_size + (uint64_t)ad->txq->nb_xfers *
			(ad->prof.tx_xfer_size + CH39X_TX_TRAILER);

		/* usbfs caps what all processes keep in flight at once. */
		if (ch39x_libusb_mem_check(u, bytes, err, sizeof(err)) != 0) {
			PMD_LOG(ERR, "%s: %s", dev->data->name, err);
			return -ENOMEM;
		}
	}
	ad->txq->max_frame = tx_max_frame(ad);
	ad->txq->mtu_frame = dev->data->mtu + CH39X_L2_OVERHEAD;
	warn_tx_limit(ad, dev->data->mtu);
	ad->txq->hw_offload = ad->prof.family == CH39X_V02;
	ad->txq->hw_tso = ad->txq->hw_offload && !ad->args.tso_sw;
	rc = program_mtu(ad, dev->data->mtu);
	if (rc == 0 && ad->prof.family == CH39X_V02)
		rc = program_vlan_strip(ad, ad->rxq->vlan_strip);
	if (rc == 0)
		rc = program_rx_mode(ad);
	if (rc != 0)
		return rc;
	set_link(ad, false, 0);
	ch39x_txq_start(ad->txq);
	rc = ch39x_rxq_start(ad->rxq);
	if (rc != 0) {
		ch39x_rxq_stop(ad->rxq);
		return rc;
	}
	/* ch397_open: the interrupt transfer goes first, carrier off. */
	ad->intr_xfer.ep = CH39X_EP_INTR_IN;
	ad->intr_xfer.buf = ad->intr_buf;
	ad->intr_xfer.len = ad->info.maxp[CH39X_EP_INTR_IN];
	if (ad->intr_xfer.len == 0 || ad->intr_xfer.len > sizeof(ad->intr_buf))
		ad->intr_xfer.len = sizeof(ad->intr_buf);
	rc = u->ops->submit(u, &ad->intr_xfer);
	if (rc != 0) {
		ch39x_rxq_stop(ad->rxq);
		return rc;
	}
	ad->started = true;
	dev->data->rx_queue_state[0] = RTE_ETH_QUEUE_STATE_STARTED;
	dev->data->tx_queue_state[0] = RTE_ETH_QUEUE_STATE_STARTED;
	/*
	 * Learn the link now: events come on changes only, so after a restart
	 * the PHY is asked, as the vendor driver does on resume (sheet 7).
	 */
	link_from_phy(ad);
	intr_poll(ad);
	rte_eal_alarm_set((uint64_t)ad->info.intr_interval_ms * 1000,
			  intr_alarm, ad);
	return 0;
}

static int
ch39x_dev_stop(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct ch39x_xfer *x;
	uint64_t deadline;

	if (!ad->started)
		return 0;
	ad->started = false;
	rte_eal_alarm_cancel(intr_alarm, ad);
	/* A real backend hands cancelled transfers back at a later poll. */
	ad->usb->ops->cancel_all(ad->usb, CH39X_EP_INTR_IN);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz();
	while (ad->intr_xfer.in_flight && rte_get_timer_cycles() < deadline)
		ad->usb->ops->poll(ad->usb, CH39X_EP_INTR_IN, &x, 1);
	ch39x_rxq_stop(ad->rxq);
	ch39x_txq_stop(ad->txq);
	set_link(ad, false, 0);
	dev->data->rx_queue_state[0] = RTE_ETH_QUEUE_STATE_STOPPED;
	dev->data->tx_queue_state[0] = RTE_ETH_QUEUE_STATE_STOPPED;
	return 0;
}

static void
rxq_free(struct ch39x_rxq *q)
{
	if (q == NULL)
		return;
	if (q->lent) {
		/*
		 * The application still holds mbufs that point into transfer
		 * buffers: leaking them is safe, freeing them is not.
		 */
		PMD_LOG(ERR, "port %u: %u RX transfers still lent to mbufs "
			"the application holds; their memory is not freed",
			q->port_id, q->lent);
		return;
	}
	rte_ring_free(q->returned);
	rte_free(q->shinfo);
	rte_free(q->xfers);
	rte_free(q->bufs);
	rte_free(q);
}

static void
txq_free(struct ch39x_txq *q)
{
	if (q == NULL)
		return;
	rte_free(q->xfers);
	rte_free(q->free);
	rte_free(q->bufs);
	rte_free(q->scratch);
	rte_free(q->ncm);
	rte_free(q);
}

static void
ch39x_rx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	(void)qid;
	rxq_free(ad->rxq);
	ad->rxq = NULL;
	if (dev->data->rx_queues != NULL)
		dev->data->rx_queues[0] = NULL;
}

static void
ch39x_tx_queue_release(struct rte_eth_dev *dev, uint16_t qid)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	(void)qid;
	txq_free(ad->txq);
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
	ch39x_dev_stop(dev);
	ch39x_rx_queue_release(dev, 0);
	ch39x_tx_queue_release(dev, 0);
	if (ad->usb != NULL) {
		ad->usb->ops->close(ad->usb);
		ad->usb = NULL;
	}
	pthread_mutex_destroy(&ad->ctrl_lock);
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

	(void)nb_desc;
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
	if (ad->framing == CH39X_FRAMING_ECM)
		ad->prof.rx_xfer_size = ecm_rx_size(ad, dev->data->mtu);
	rc = ch39x_rxq_alloc(ad, q);
	if (rc == 0)
		rc = rxq_bind(dev, q);
	if (rc != 0) {
		rxq_free(q);
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

	(void)nb_desc;
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
	q->max_frame = tx_max_frame(ad);
	q->mtu_frame = dev->data->mtu + CH39X_L2_OVERHEAD;
	rc = ch39x_txq_alloc(ad, q);
	if (rc != 0) {
		txq_free(q);
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
	/* While started, the interrupt endpoint keeps the link current. */
	if (ad->started || ad->gone)
		return 0;
	link_from_phy(ad);
	return 0;
}

/* BMCR bit 11: power the PHY down or up, which takes the link with it. */
static int
set_phy_power(struct rte_eth_dev *dev, bool on)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	uint16_t bmcr;
	int rc;

	if (is_cdc(ad)) {
		PMD_LOG(ERR, "%s: a CDC device has no request to power its "
			"PHY up or down", dev->data->name);
		return -ENOTSUP;
	}
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = rd_phy(ad, CH39X_PHY_BMCR, &bmcr);
	if (rc == 0)
		rc = wr_phy(ad, CH39X_PHY_BMCR,
			    on ? (bmcr & ~0x0800) : (bmcr | 0x0800));
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

static int
ch39x_dev_set_link_up(struct rte_eth_dev *dev)
{
	return set_phy_power(dev, true);
}

static int
ch39x_dev_set_link_down(struct rte_eth_dev *dev)
{
	return set_phy_power(dev, false);
}

/*
 * The ethdev layer records the new promiscuous or all-multicast state only
 * after the op succeeds, so each op passes the state it asks for.
 */
static int
ch39x_promisc_enable(struct rte_eth_dev *dev)
{
	return program_rx_mode_as(dev->data->dev_private, true,
				  dev->data->all_multicast);
}

static int
ch39x_promisc_disable(struct rte_eth_dev *dev)
{
	return program_rx_mode_as(dev->data->dev_private, false,
				  dev->data->all_multicast);
}

static int
ch39x_allmulti_enable(struct rte_eth_dev *dev)
{
	return program_rx_mode_as(dev->data->dev_private,
				  dev->data->promiscuous, true);
}

static int
ch39x_allmulti_disable(struct rte_eth_dev *dev)
{
	return program_rx_mode_as(dev->data->dev_private,
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
	return program_rx_mode(ad);
}

static int
ch39x_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *addr)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int rc;

	if (is_cdc(ad)) {
		rc = cdc_set_mac(ad, addr);
		if (rc == 0)
			rc = program_rx_mode(ad);
		return rc;
	}
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = set_mac_addr(ad, addr);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc == 0)
		ad->mac_addr = *addr;
	return rc;
}

static int
ch39x_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int rc;

	if (ad->started) {
		PMD_LOG(ERR, "%s: stop the port before changing the MTU",
			dev->data->name);
		return -EBUSY;
	}
	rc = program_mtu(ad, mtu);
	if (rc == 0 && ad->rxq != NULL) {
		ad->rxq->max_frame = mtu + CH39X_L2_OVERHEAD;
	}
	if (rc == 0)
		warn_tx_limit(ad, mtu);
	return rc;
}

static int
ch39x_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t size)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	int n;

	if (ad->framing == CH39X_FRAMING_NCM)
		n = snprintf(fw, size, "CDC %x.%02x NCM %x.%02x",
			     ad->cdc.bcd_cdc >> 8, ad->cdc.bcd_cdc & 0xFF,
			     ad->cdc.bcd_ncm >> 8, ad->cdc.bcd_ncm & 0xFF);
	else if (ad->framing == CH39X_FRAMING_ECM)
		n = snprintf(fw, size, "CDC %x.%02x ECM",
			     ad->cdc.bcd_cdc >> 8, ad->cdc.bcd_cdc & 0xFF);
	else
		/* The sheet does not know what the bytes mean: show them raw. */
		n = snprintf(fw, size, "%s GET_INFO %02x %02x %02x",
			     ch39x_chip_name(ad->prof.pid), ad->get_info[0],
			     ad->get_info[1], ad->get_info[2]);
	if (n < 0)
		return -EINVAL;
	return (size_t)n < size ? 0 : n + 1;
}

/* Frames and blocks the framing parser dropped as malformed. */
static uint64_t
rx_framing_errors(const struct ch39x_rxq *q)
{
	const struct ch39x_ncm_rx_stats *n = &q->ncm.stats;

	switch (q->framing) {
	case CH39X_FRAMING_NCM:
		return n->short_ntb + n->bad_nth_sig + n->bad_hdr_len +
			n->bad_block_len + n->bad_ndp_index + n->bad_ndp_len +
			n->ndp_loops + n->ndp_no_null + n->bad_dgram;
	case CH39X_FRAMING_ECM:
		return q->ecm.runts + q->ecm.oversize;
	default:
		return q->parser.stats.bad_headers;
	}
}

static int
ch39x_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	const struct ch39x_rxq *rq = ad->rxq;
	const struct ch39x_txq *tq = ad->txq;

	if (rq != NULL) {
		st->ipackets = rq->c.packets;
		st->ibytes = rq->c.bytes;
		st->ierrors = rx_framing_errors(rq) + rq->c.mtu_drops +
			rq->c.mbuf_drops + rq->c.usb_errors + rq->c.usb_stalls +
			rq->c.usb_timeouts + rq->c.usb_overflows;
		st->rx_nombuf = rq->c.nombuf;
		st->q_ipackets[0] = st->ipackets;
		st->q_ibytes[0] = st->ibytes;
	}
	if (tq != NULL) {
		st->opackets = tq->c.packets;
		st->obytes = tq->c.bytes;
		st->oerrors = tq->c.invalid + tq->c.usb_errors +
			tq->c.usb_stalls + tq->c.usb_timeouts;
		st->q_opackets[0] = st->opackets;
		st->q_obytes[0] = st->obytes;
	}
	/* Frames the chip's FIFO could not hold, from its own events. */
	st->imissed = (uint16_t)(ad->last_event.rx_overflow -
				 ad->evt_base.rx_overflow);
	return 0;
}

static int
ch39x_stats_reset(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (ad->rxq != NULL) {
		memset(&ad->rxq->c, 0, sizeof(ad->rxq->c));
		memset(&ad->rxq->parser.stats, 0,
		       sizeof(ad->rxq->parser.stats));
		memset(&ad->rxq->ncm.stats, 0, sizeof(ad->rxq->ncm.stats));
		memset(&ad->rxq->ecm, 0, sizeof(ad->rxq->ecm));
	}
	if (ad->txq != NULL) {
		memset(&ad->txq->c, 0, sizeof(ad->txq->c));
		if (ad->txq->ncm != NULL)
			memset(&ad->txq->ncm->stats, 0,
			       sizeof(ad->txq->ncm->stats));
	}
	ad->cdc_notifications = 0;
	ad->link_events = 0;
	ad->ctrl_errors = 0;
	ad->evt_base = ad->last_event;
	return 0;
}

/* ---- xstats ---- */

enum xs_src {
	XS_RX, XS_PARSER, XS_TX, XS_AD, XS_SIM, XS_CALC,
	XS_NCM_RX, XS_NCM_TX, XS_ECM_RX,
};

struct xs_def {
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	enum xs_src src;
	size_t off;
};

#define XS(n, s, t, f) { n, s, offsetof(t, f) }
static const struct xs_def xs_defs[] = {
	XS("rx_usb_xfers", XS_RX, struct ch39x_rx_counters, usb_xfers),
	XS("rx_usb_bytes", XS_RX, struct ch39x_rx_counters, usb_bytes),
	XS("rx_usb_errors", XS_RX, struct ch39x_rx_counters, usb_errors),
	XS("rx_usb_stalls", XS_RX, struct ch39x_rx_counters, usb_stalls),
	XS("rx_usb_timeouts", XS_RX, struct ch39x_rx_counters, usb_timeouts),
	XS("rx_usb_overflows", XS_RX, struct ch39x_rx_counters, usb_overflows),
	{ "rx_frames", XS_CALC, 11 },
	{ "rx_frame_bytes", XS_CALC, 12 },
	XS("rx_bad_headers", XS_PARSER, struct ch39x_rx_stats, bad_headers),
	XS("rx_straddled_records", XS_PARSER, struct ch39x_rx_stats, straddled),
	XS("rx_lost_partial_records", XS_PARSER, struct ch39x_rx_stats,
	   carry_lost),
	XS("rx_short_xfers", XS_PARSER, struct ch39x_rx_stats, short_xfers),
	XS("rx_truncated_records", XS_PARSER, struct ch39x_rx_stats, truncated),
	XS("rx_oversize_mtu_drops", XS_RX, struct ch39x_rx_counters, mtu_drops),
	XS("rx_oversize_mbuf_drops", XS_RX, struct ch39x_rx_counters,
	   mbuf_drops),
	XS("tx_usb_xfers", XS_TX, struct ch39x_tx_counters, usb_xfers),
	XS("tx_usb_bytes", XS_TX, struct ch39x_tx_counters, usb_bytes),
	XS("tx_usb_errors", XS_TX, struct ch39x_tx_counters, usb_errors),
	XS("tx_usb_stalls", XS_TX, struct ch39x_tx_counters, usb_stalls),
	XS("tx_usb_timeouts", XS_TX, struct ch39x_tx_counters, usb_timeouts),
	XS("tx_zlps", XS_TX, struct ch39x_tx_counters, zlps),
	XS("tx_ls_trailers", XS_TX, struct ch39x_tx_counters, tx_ls),
	XS("tx_invalid_length_drops", XS_TX, struct ch39x_tx_counters, invalid),
	XS("tx_ring_full", XS_TX, struct ch39x_tx_counters, full),
	XS("tx_tso_hw_frames", XS_TX, struct ch39x_tx_counters, tso_hw),
	XS("tx_tso_sw_frames", XS_TX, struct ch39x_tx_counters, tso_sw_pkts),
	XS("tx_tso_sw_segments", XS_TX, struct ch39x_tx_counters, tso_sw_segs),
	XS("tx_tso_segment_drops", XS_TX, struct ch39x_tx_counters,
	   tso_seg_drops),
	XS("tx_csum_sw", XS_TX, struct ch39x_tx_counters, csum_sw),
	XS("tx_vlan_insert_sw", XS_TX, struct ch39x_tx_counters, vlan_sw),
	XS("rx_vlan_strip_sw", XS_RX, struct ch39x_rx_counters, vlan_sw),
	XS("rx_csum_sw", XS_RX, struct ch39x_rx_counters, csum_sw),
	XS("rx_chained_frames", XS_RX, struct ch39x_rx_counters, chained),
	XS("rx_zerocopy_frames", XS_RX, struct ch39x_rx_counters, zerocopy),
	XS("link_events", XS_AD, struct ch39x_adapter, link_events),
	XS("ctrl_errors", XS_AD, struct ch39x_adapter, ctrl_errors),
	XS("intr_usb_errors", XS_AD, struct ch39x_adapter, intr_errors),
	{ "rx_framing_bytes", XS_CALC, 0 },
	{ "tx_framing_bytes", XS_CALC, 1 },
	{ "rx_frames_per_xfer_x1000", XS_CALC, 2 },
	{ "tx_frames_per_xfer_x1000", XS_CALC, 3 },
	{ "rx_usb_efficiency_permille", XS_CALC, 4 },
	{ "tx_usb_efficiency_permille", XS_CALC, 5 },
	{ "dev_rx_packets", XS_CALC, 6 },
	{ "dev_rx_overflow", XS_CALC, 7 },
	{ "dev_rx_crc_errors", XS_CALC, 8 },
	{ "dev_tx_packets", XS_CALC, 9 },
	{ "rx_xfers_lent", XS_CALC, 10 },
};

static const struct xs_def xs_sim_defs[] = {
	XS("sim_rx_filtered", XS_SIM, struct ch39x_sim_counters, rx_filtered),
	XS("sim_rx_oversize", XS_SIM, struct ch39x_sim_counters, rx_oversize),
	XS("sim_rx_link_down", XS_SIM, struct ch39x_sim_counters, rx_link_down),
	XS("sim_rx_overflow", XS_SIM, struct ch39x_sim_counters, rx_overflow),
	XS("sim_tx_bad_records", XS_SIM, struct ch39x_sim_counters,
	   tx_bad_records),
	XS("sim_tx_unterminated", XS_SIM, struct ch39x_sim_counters,
	   tx_unterminated),
	XS("sim_tx_link_down", XS_SIM, struct ch39x_sim_counters, tx_link_down),
	XS("sim_tx_wire_dropped", XS_SIM, struct ch39x_sim_counters,
	   tx_wire_dropped),
	XS("sim_tx_oversize", XS_SIM, struct ch39x_sim_counters, tx_oversize),
	XS("sim_cdc_notifications", XS_SIM, struct ch39x_sim_counters,
	   cdc_notifications),
	XS("sim_tx_tso_segments", XS_SIM, struct ch39x_sim_counters,
	   tx_tso_segments),
	XS("sim_tx_wire_frames", XS_SIM, struct ch39x_sim_counters, tx_frames),
	XS("sim_faults_injected", XS_SIM, struct ch39x_sim_counters,
	   faults_injected),
};

/* CDC-NCM: the NTB parser's and builder's counters (Linux cdc_ncm's). */
static const struct xs_def xs_ncm_defs[] = {
	XS("rx_ncm_ntbs", XS_NCM_RX, struct ch39x_ncm_rx_stats, ntbs),
	XS("rx_ncm_short_ntbs", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   short_ntb),
	XS("rx_ncm_bad_nth_signatures", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_nth_sig),
	XS("rx_ncm_bad_header_lengths", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_hdr_len),
	XS("rx_ncm_bad_block_lengths", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_block_len),
	XS("rx_ncm_bad_ndp_indexes", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_ndp_index),
	XS("rx_ncm_bad_ndp_lengths", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_ndp_len),
	XS("rx_ncm_ndps_skipped", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   ndp_sig_skipped),
	XS("rx_ncm_ndp_loops", XS_NCM_RX, struct ch39x_ncm_rx_stats, ndp_loops),
	XS("rx_ncm_ndps_unterminated", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   ndp_no_null),
	XS("rx_ncm_empty_ndps", XS_NCM_RX, struct ch39x_ncm_rx_stats, empty_ndp),
	XS("rx_ncm_bad_datagrams", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_dgram),
	XS("rx_ncm_zero_length_datagrams", XS_NCM_RX,
	   struct ch39x_ncm_rx_stats, zero_len_dgram),
	XS("rx_ncm_zero_index_datagrams", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   zero_idx_dgram),
	XS("rx_ncm_sequence_gaps", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   seq_gaps),
	XS("tx_ncm_ntbs", XS_NCM_TX, struct ch39x_ncm_tx_stats, ntbs),
	XS("tx_ncm_datagrams", XS_NCM_TX, struct ch39x_ncm_tx_stats, dgrams),
	XS("tx_ncm_overhead_bytes", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   overhead),
	XS("tx_ncm_pad_bytes", XS_NCM_TX, struct ch39x_ncm_tx_stats, pad_bytes),
	XS("tx_ncm_close_full", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_full),
	XS("tx_ncm_close_max_datagrams", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_max_dgrams),
	XS("tx_ncm_close_ndp_full", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_ndp_full),
	XS("tx_ncm_close_burst_end", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_burst),
	XS("cdc_notifications", XS_AD, struct ch39x_adapter, cdc_notifications),
};

static const struct xs_def xs_ecm_defs[] = {
	XS("rx_ecm_runts", XS_ECM_RX, struct ch39x_ecm_rx_stats, runts),
	XS("rx_ecm_oversize", XS_ECM_RX, struct ch39x_ecm_rx_stats, oversize),
	XS("rx_ecm_zero_length", XS_ECM_RX, struct ch39x_ecm_rx_stats,
	   zero_len),
	XS("rx_ecm_pad_trimmed", XS_ECM_RX, struct ch39x_ecm_rx_stats,
	   pad_trimmed),
	XS("cdc_notifications", XS_AD, struct ch39x_adapter, cdc_notifications),
};

struct xs_table {
	const struct xs_def *d;
	unsigned int n;
};

/* The tables this port shows, in order: common, framing, device model. */
static unsigned int
xs_tables(const struct ch39x_adapter *ad, struct xs_table t[3])
{
	unsigned int k = 0;

	t[k].d = xs_defs;
	t[k++].n = RTE_DIM(xs_defs);
	if (ad->framing == CH39X_FRAMING_NCM) {
		t[k].d = xs_ncm_defs;
		t[k++].n = RTE_DIM(xs_ncm_defs);
	} else if (ad->framing == CH39X_FRAMING_ECM) {
		t[k].d = xs_ecm_defs;
		t[k++].n = RTE_DIM(xs_ecm_defs);
	}
	if (ch39x_sim_is_sim(ad->usb)) {
		t[k].d = xs_sim_defs;
		t[k++].n = RTE_DIM(xs_sim_defs);
	}
	return k;
}

static unsigned int
xs_count(const struct ch39x_adapter *ad)
{
	struct xs_table t[3];
	unsigned int k = xs_tables(ad, t), n = 0, i;

	for (i = 0; i < k; i++)
		n += t[i].n;
	return n;
}

static uint64_t
ratio(uint64_t num, uint64_t den, uint64_t scale)
{
	return den ? num * scale / den : 0;
}

static uint64_t
xs_calc(const struct ch39x_adapter *ad, size_t which)
{
	const struct ch39x_rx_counters *r = &ad->rxq->c;
	const struct ch39x_tx_counters *t = &ad->txq->c;
	const struct ch39x_event *e = &ad->last_event, *b = &ad->evt_base;
	uint64_t frames, fbytes;

	ch39x_rx_parsed(ad->rxq, &frames, &fbytes);
	switch (which) {
	case 0: return r->usb_bytes - fbytes;
	case 1: return t->usb_bytes - t->rec_bytes;
	case 2: return ratio(frames, r->usb_xfers, 1000);
	case 3: return ratio(t->records, t->usb_xfers, 1000);
	case 4: return ratio(fbytes, r->usb_bytes, 1000);
	case 5: return ratio(t->rec_bytes, t->usb_bytes, 1000);
	case 6: return (uint32_t)(e->rx_packets - b->rx_packets);
	case 7: return (uint16_t)(e->rx_overflow - b->rx_overflow);
	case 8: return (uint16_t)(e->rx_crc_errors - b->rx_crc_errors);
	case 9: return (uint32_t)(e->tx_packets - b->tx_packets);
	case 11: return frames;
	case 12: return fbytes;
	default: return ad->rxq->lent;
	}
}

static int
ch39x_xstats_get_names(struct rte_eth_dev *dev,
		       struct rte_eth_xstat_name *names, unsigned int size)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	unsigned int n = xs_count(ad), i, j, k, at = 0;
	struct xs_table t[3];

	if (names == NULL || size < n)
		return (int)n;
	k = xs_tables(ad, t);
	for (i = 0; i < k; i++)
		for (j = 0; j < t[i].n; j++, at++)
			strlcpy(names[at].name, t[i].d[j].name,
				sizeof(names[at].name));
	return (int)n;
}

static int
ch39x_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		 unsigned int size)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct ch39x_sim_counters sc;
	unsigned int n = xs_count(ad), i, j, k, at = 0;
	struct xs_table t[3];
	const struct xs_def *d;
	const void *base;

	if (xs == NULL || size < n)
		return (int)n;
	if (ad->rxq == NULL || ad->txq == NULL)
		return -EINVAL;
	if (ch39x_sim_is_sim(ad->usb))
		ch39x_sim_get_counters(ad->usb, &sc);
	k = xs_tables(ad, t);
	for (i = 0; i < k; i++)
	for (j = 0; j < t[i].n; j++, at++) {
		d = &t[i].d[j];
		xs[at].id = at;
		switch (d->src) {
		case XS_RX: base = &ad->rxq->c; break;
		case XS_PARSER: base = &ad->rxq->parser.stats; break;
		case XS_TX: base = &ad->txq->c; break;
		case XS_AD: base = ad; break;
		case XS_SIM: base = &sc; break;
		case XS_NCM_RX: base = &ad->rxq->ncm.stats; break;
		case XS_NCM_TX: base = &ad->txq->ncm->stats; break;
		case XS_ECM_RX: base = &ad->rxq->ecm; break;
		default: base = NULL; break;
		}
		xs[at].value = base ? *(const uint64_t *)
			((const uint8_t *)base + d->off) : xs_calc(ad, d->off);
	}
	return (int)n;
}

static int
ch39x_dev_reset(struct rte_eth_dev *dev);

static const struct eth_dev_ops ch39x_ops = {
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
};

/* ---- CDC-NCM and CDC-ECM devices (../shared/reference/cdc-ncm-ecm.md) ---- */

/*
 * A new port address: SET_NET_ADDRESS when the NCM device offers it; else
 * the device keeps filtering for its own address and cdc_rx_mode runs it
 * promiscuous, so that frames for the new address still come in.
 */
static int
cdc_set_mac(struct ch39x_adapter *ad, const struct rte_ether_addr *mac)
{
	uint8_t b[RTE_ETHER_ADDR_LEN];
	int rc;

	if (ad->cdc.ncm_caps & CH39X_NCM_CAP_NET_ADDRESS &&
	    ad->framing == CH39X_FRAMING_NCM) {
		memcpy(b, mac->addr_bytes, sizeof(b));
		rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_NET_ADDRESS,
			     0, b, sizeof(b), false);
		if (rc < 0)
			return rc;
		ad->dev_mac = *mac;
	} else if (!rte_is_same_ether_addr(mac, &ad->dev_mac)) {
		PMD_LOG(INFO, "%s: the device cannot take a new address; it "
			"receives promiscuously for " RTE_ETHER_ADDR_PRT_FMT,
			ad->dev->data->name, RTE_ETHER_ADDR_BYTES(mac));
	}
	ad->mac_addr = *mac;
	return 0;
}

/* The device's address from its iMACAddress string descriptor. */
static int
cdc_read_mac(struct ch39x_adapter *ad, struct rte_ether_addr *mac)
{
	struct ch39x_usb_dev *u = ad->usb;
	uint8_t d[64];
	int rc;

	if (ad->cdc.i_mac_address == 0)
		return -ENOENT;
	/* GET_DESCRIPTOR(STRING), language en-US, as Linux asks. */
	rc = u->ops->control(u, 0x80, 0x06, 0x0300 | ad->cdc.i_mac_address,
			     0x0409, d, sizeof(d), CH39X_CTRL_TIMEOUT_MS);
	if (rc == -ENODEV)
		ad->gone = true;
	if (rc < 0)
		return rc;
	if (ch39x_cdc_parse_mac_string(d, (uint32_t)rc, mac->addr_bytes) != 0)
		return -EINVAL;
	return 0;
}

/*
 * NCM set-up while the data interface is at alt 0, as cdc_ncm_init does:
 * NTB parameters, the NTB format, the RX NTB size, the datagram size.
 */
static int
ncm_init(struct ch39x_adapter *ad)
{
	const char *name = ad->dev->data->name;
	uint8_t p[CH39X_NCM_NTB_PARAMS_LEN], b[8];
	struct ch39x_ncm_tx_cfg c;
	uint32_t in, seg, want, n;
	int rc, w;

	rc = cdc_req(ad, CH39X_CDC_REQT_IN, CH39X_CDC_GET_NTB_PARAMETERS, 0,
		     p, sizeof(p), false);
	if (rc < 0)
		return rc;
	w = ch39x_ncm_parse_ntb_params(p, (uint32_t)rc, &ad->ntbp);
	if (w < 0) {
		PMD_LOG(ERR, "%s: GET_NTB_PARAMETERS: %d bytes, not a usable "
			"answer (needs 28 and NTB16 or NTB32)", name, rc);
		return -EIO;
	}
	if (w != 0)
		PMD_LOG(NOTICE, "%s: NTB parameters out of spec (flags 0x%x); "
			"using corrected values", name, (unsigned int)w);
	/* NTB16 when offered; SET_NTB_FORMAT only to devices with NTB32. */
	ad->ntb32 = (ad->ntbp.formats & CH39X_NCM_FMT_NTB16_BIT) == 0;
	if (ad->ntbp.formats & CH39X_NCM_FMT_NTB32_BIT) {
		rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_NTB_FORMAT,
			     ad->ntb32 ? CH39X_NCM_FORMAT_NTB32 :
			     CH39X_NCM_FORMAT_NTB16, NULL, 0, false);
		if (rc < 0)
			return rc;
	}
	/* The RX NTB size: xfer_size, else 16 KiB, within what it allows. */
	in = ad->args.xfer_size ? ad->args.xfer_size : CH39X_NCM_DEF_NTB;
	in = RTE_MIN(in, ad->ntbp.in_max_size);
	if (!ad->ntb32)
		in = RTE_MIN(in, (uint32_t)CH39X_NCM_NTB16_MAX_SIZE);
	in = RTE_MAX(in, (uint32_t)CH39X_NCM_NTB_MIN_SIZE);
	n = ch39x_ncm_build_ntb_input_size(in, (ad->cdc.ncm_caps &
				CH39X_NCM_CAP_NTB_INPUT_8) != 0, 0, b);
	rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_NTB_INPUT_SIZE, 0,
		     b, (uint16_t)n, true);
	if (rc < 0) {
		if (ad->gone)
			return rc;
		/* It may then send NTBs as long as it said it could. */
		PMD_LOG(NOTICE, "%s: SET_NTB_INPUT_SIZE %u refused; RX "
			"transfers take dwNtbInMaxSize %u", name, in,
			ad->ntbp.in_max_size);
		in = RTE_MAX(ad->ntbp.in_max_size,
			     (uint32_t)CH39X_NCM_NTB_MIN_SIZE);
	}
	ad->ntb_in_size = in;
	/*
	 * The datagram size the device takes: negotiated when it has the
	 * capability, else wMaxSegmentSize (at least 1514: devices that
	 * report the MTU there still take full frames).
	 */
	seg = RTE_MAX((uint32_t)ad->cdc.max_segment, 1514u);
	ad->dev_max_dgram = seg;
	if (ad->cdc.ncm_caps & CH39X_NCM_CAP_MAX_DATAGRAM) {
		want = RTE_MIN(seg, (uint32_t)CH39X_CDC_MAX_FRAME);
		ch39x_put_le16(b, (uint16_t)want);
		rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_MAX_DATAGRAM,
			     0, b, 2, true);
		if (rc >= 0)
			ad->dev_max_dgram = want;
		else if (ad->gone)
			return rc;
		else if (cdc_req(ad, CH39X_CDC_REQT_IN,
				 CH39X_CDC_GET_MAX_DATAGRAM, 0, b, 2,
				 true) == 2 &&
			 ch39x_get_le16(b) >= RTE_ETHER_MIN_LEN)
			ad->dev_max_dgram = ch39x_get_le16(b);
	}
	ch39x_ncm_tx_cfg_from_params(&c, &ad->ntbp, ad->ntb32,
				     ad->info.maxp[CH39X_EP_BULK_OUT]);
	c.size = ad->args.xfer_size ? ad->args.xfer_size : CH39X_NCM_DEF_NTB;
	c.ndp_entries = CH39X_NCM_NDP_ENTRIES;
	c.max_dgram_len = RTE_MIN(ad->dev_max_dgram,
				  (uint32_t)CH39X_CDC_MAX_FRAME);
	c.ndp_at_end = ad->args.ncm_ndp_end;
	if (ch39x_ncm_tx_init(&ad->ncm_tpl, &c) != 0) {
		PMD_LOG(ERR, "%s: the NTB parameters leave no room for a "
			"datagram (dwNtbOutMaxSize %u)", name,
			ad->ntbp.out_max_size);
		return -EIO;
	}
	return 0;
}

/*
 * Probe of a CDC-NCM or CDC-ECM function: reset it (data alt 0), read its
 * address, set NCM up, then data alt 1 brings the bulk endpoints and the
 * link. The profile gets what the rest of the PMD asks of one: transfer
 * sizes and counts, MTU range, no offloads in the device.
 */
static int
cdc_init(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	const char *name = ad->dev->data->name;
	struct ch39x_profile *p = &ad->prof;
	struct rte_ether_addr mac;
	int rc;

	if (u->ops->get_cdc == NULL || u->ops->get_cdc(u, &ad->cdc) != 0 ||
	    !ch39x_cdc_usable(&ad->cdc) || ad->info.maxp[CH39X_EP_BULK_OUT] == 0) {
		PMD_LOG(ERR, "%s: the CDC function lacks what a driver needs "
			"(communication and data interfaces, Ethernet%s "
			"functional descriptor, bulk endpoints)", name,
			ad->framing == CH39X_FRAMING_NCM ? " and NCM" : "");
		return -ENOTSUP;
	}
	rc = u->ops->set_data_alt(u, 0);
	if (rc != 0) {
		PMD_LOG(ERR, "%s: cannot select data alt setting 0: %s", name,
			strerror(-rc));
		return rc;
	}
	ch39x_cdc_notify_init(&ad->notify);
	ad->cdc_link = false;
	ad->cdc_speed = 0;
	rc = cdc_read_mac(ad, &mac);
	if (rc != 0 || !rte_is_valid_assigned_ether_addr(&mac)) {
		if (ad->gone)
			return -ENODEV;
		rte_eth_random_addr(mac.addr_bytes);
		PMD_LOG(WARNING, "%s: no valid iMACAddress; using "
			RTE_ETHER_ADDR_PRT_FMT, name, RTE_ETHER_ADDR_BYTES(&mac));
	}
	ad->dev_mac = mac;
	ad->mac_addr = mac;
	if (ad->args.mac_set) {
		rc = cdc_set_mac(ad, &ad->args.mac);
		if (rc != 0)
			return rc;
	}
	memset(p, 0, sizeof(*p));
	p->family = CH39X_V01;		/* no offloads in the device */
	p->speed = (enum ch39x_usb_speed)ad->info.speed;
	p->pid = ad->info.pid;
	p->config_value = ad->info.config_value;
	p->bulk_maxp = ad->info.maxp[CH39X_EP_BULK_OUT];
	p->gigabit = ad->info.speed == CH39X_SPEED_SUPER;
	p->rx_xfers = ad->framing == CH39X_FRAMING_NCM ? CH39X_NCM_RX_XFERS :
		CH39X_ECM_XFERS;
	p->tx_xfers = ad->framing == CH39X_FRAMING_NCM ? CH39X_NCM_TX_XFERS :
		CH39X_ECM_XFERS;
	p->max_frame = CH39X_CDC_MAX_FRAME;
	p->max_mtu = CH39X_CDC_MAX_MTU;
	p->min_mtu = RTE_ETHER_MIN_MTU;
	if (ad->framing == CH39X_FRAMING_NCM) {
		rc = ncm_init(ad);
		if (rc != 0)
			return rc;
		p->rx_xfer_size = ad->ntb_in_size;
		p->tx_xfer_size = ch39x_ncm_tx_buf_size(&ad->ncm_tpl);
	} else {
		/*
		 * wMaxSegmentSize is advice: Linux usbnet sends and takes
		 * frames up to the MTU, and the Linux gadget takes jumbo
		 * frames once its own MTU allows them.
		 */
		ch39x_ecm_cfg_init(&ad->ecm, &ad->cdc, true);
		ad->ecm.max_frame = RTE_MAX(ad->ecm.max_frame,
					    (uint32_t)CH39X_CDC_MAX_FRAME);
		/* Set again for the MTU at RX queue set-up. */
		p->rx_xfer_size = ecm_rx_size(ad, RTE_ETHER_MTU);
		p->tx_xfer_size = ch39x_ecm_tx_buf_size(&ad->ecm);
	}
	if (ad->args.rx_xfers)
		p->rx_xfers = ad->args.rx_xfers;
	if (ad->args.tx_xfers)
		p->tx_xfers = ad->args.tx_xfers;
	rc = u->ops->set_data_alt(u, 1);
	if (rc != 0)
		PMD_LOG(ERR, "%s: cannot select data alt setting 1: %s", name,
			strerror(-rc));
	return rc;
}

/* ---- probe (sheet section 7, V1.7 order) ---- */

static int
hw_init(struct ch39x_adapter *ad)
{
	const struct ch39x_regs *r;
	struct rte_ether_addr mac;
	uint32_t v, lo, hi;
	uint16_t phy;
	int rc;

	ad->usb->ops->get_info(ad->usb, &ad->info);
	ad->framing = (enum ch39x_framing)ad->info.framing;
	if (is_cdc(ad))
		return cdc_init(ad);
	if (ch39x_profile_init(&ad->prof, ad->info.pid, ad->info.speed) != 0) {
		PMD_LOG(ERR, "unsupported device %04x:%04x at bus speed %u",
			ad->info.vid, ad->info.pid, ad->info.speed);
		return -ENOTSUP;
	}
	r = &ad->prof.regs;
	if (ad->info.config_value != ad->prof.config_value) {
		PMD_LOG(ERR, "%s is in configuration %u, vendor mode is %u",
			ch39x_chip_name(ad->info.pid), ad->info.config_value,
			ad->prof.config_value);
		return -ENOTSUP;
	}
	if (ad->prof.family == CH39X_V02)
		rte_delay_us_sleep(10 * 1000);
	/* Two reads of MAC_CFG 100 ms apart: V1.7's liveness check. */
	rc = rd_reg(ad, r->mac_cfg, 4, &v);
	if (rc == 0) {
		rte_delay_us_sleep(100 * 1000);
		rc = rd_reg(ad, r->mac_cfg, 4, &v);
	}
	if (rc == 0)
		rc = rd_reg(ad, r->mac_l, 4, &lo);
	if (rc == 0)
		rc = rd_reg(ad, r->mac_h, 2, &hi);
	if (rc != 0)
		return rc;
	ch39x_put_le32(mac.addr_bytes, lo);
	mac.addr_bytes[4] = (uint8_t)hi;
	mac.addr_bytes[5] = (uint8_t)(hi >> 8);
	if (ad->args.mac_set) {
		mac = ad->args.mac;
		rc = set_mac_addr(ad, &mac);
	} else if (!rte_is_valid_assigned_ether_addr(&mac)) {
		rte_eth_random_addr(mac.addr_bytes);
		PMD_LOG(WARNING, "device has no valid MAC address; using "
			RTE_ETHER_ADDR_PRT_FMT, RTE_ETHER_ADDR_BYTES(&mac));
		rc = set_mac_addr(ad, &mac);
	}
	if (rc != 0)
		return rc;
	ad->mac_addr = mac;
	if (ad->prof.family == CH39X_V02) {
		/* Advertise EEE at 100M and 1000M (PHY register 0x12). */
		rc = rd_phy(ad, CH39X_PHY_CH398_EEE_ADV, &phy);
		if (rc == 0)
			rc = wr_phy(ad, CH39X_PHY_CH398_EEE_ADV, phy | 0x3);
	}
	if (rc == 0)
		rc = ctrl(ad, CH39X_REQT_IN, CH39X_REQ_GET_INFO, 0,
			  ad->get_info, CH39X_GET_INFO_LEN);
	if (rc != 0)
		return rc;
	ad->maccfg_cmd = ad->get_info[2] >= CH39X_INFO_MACCFG_CMD_MIN;
	/* Pause and asymmetric pause in ANAR. */
	rc = rd_phy(ad, CH39X_PHY_ANAR, &phy);
	if (rc == 0)
		rc = wr_phy(ad, CH39X_PHY_ANAR, phy | 0x0C00);
	return rc;
}

/*
 * xfer_size sets the bulk IN buffer size; records longer than a buffer span
 * transfers. TX aggregates keep the chip's own limit as their ceiling, and
 * always hold one longest frame.
 */
static void
apply_sizes(struct ch39x_adapter *ad)
{
	uint32_t sz = ad->args.xfer_size;
	uint32_t one = (ad->prof.max_frame + CH39X_HDR_LEN + 3) & ~3u;

	/* CDC devices: cdc_init sized the NTBs and frames already. */
	if (sz == 0 || is_cdc(ad))
		return;
	if (sz < one)
		PMD_LOG(INFO, "xfer_size=%u is below one %u-byte record: long "
			"frames will span bulk IN transfers", sz, one);
	ad->prof.rx_xfer_size = sz;
	ad->prof.tx_xfer_size = RTE_MIN(ad->prof.tx_xfer_size,
					RTE_MAX(sz, one));
}

static void
libusb_log(void *arg, const char *msg)
{
	PMD_LOG(WARNING, "%s: %s", (const char *)arg, msg);
}

/* A real adapter through libusb (dev=, serial=, path=, proto=). */
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

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		PMD_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
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
	pthread_mutex_init(&ad->ctrl_lock, NULL);
	ad->usb = args.real ? open_real(name, &args, err, sizeof(err)) :
		ch39x_sim_open(&args.sim, err, sizeof(err));
	if (ad->usb == NULL) {
		PMD_LOG(ERR, "%s: %s", name, err);
		rc = -EINVAL;
		goto fail;
	}
	rc = hw_init(ad);
	if (rc == 0)
		apply_sizes(ad);
	if (rc != 0) {
		PMD_LOG(ERR, "%s: device initialisation failed: %s", name,
			strerror(-rc));
		goto fail;
	}
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
	dev->dev_ops = &ch39x_ops;
	dev->rx_pkt_burst = ch39x_rx_burst;
	dev->tx_pkt_burst = ch39x_tx_burst;
	dev->tx_pkt_prepare = ch39x_tx_prepare;
	rte_eth_dev_probing_finish(dev);
	PMD_LOG(INFO, "%s: %s at %s speed, %s, MAC " RTE_ETHER_ADDR_PRT_FMT,
		name, ad->framing == CH39X_FRAMING_NCM ? "CDC-NCM" :
		ad->framing == CH39X_FRAMING_ECM ? "CDC-ECM" :
		ch39x_chip_name(ad->prof.pid),
		ad->prof.speed == CH39X_SPEED_SUPER ? "super" :
		ad->prof.speed == CH39X_SPEED_HIGH ? "high" : "full",
		ad->usb->ops->name, RTE_ETHER_ADDR_BYTES(&ad->mac_addr));
	return 0;
fail:
	if (ad->usb != NULL)
		ad->usb->ops->close(ad->usb);
	pthread_mutex_destroy(&ad->ctrl_lock);
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
	rc = hw_init(ad);
	if (rc == 0)
		apply_sizes(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc == 0)
		dev->data->mac_addrs[0] = ad->mac_addr;
	return rc;
}


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
	if (dev->dev_ops != &ch39x_ops)
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

static struct rte_vdev_driver ch39x_vdev_drv = {
	.probe = ch39x_probe,
	.remove = ch39x_remove,
};

RTE_PMD_REGISTER_VDEV(net_ch39x, ch39x_vdev_drv);
RTE_PMD_REGISTER_PARAM_STRING(net_ch39x,
	"sim=ch397|ch398|ncm|ecm "
	"usb_speed=full|high|super "
	"wire=loop|pair:<name>|pcap:<in.pcap>:<out.pcap>|tap:<ifname> "
	"mac=<xx:xx:xx:xx:xx:xx> "
	"rx_xfers=<1-64> "
	"tx_xfers=<1-64> "
	"xfer_size=<2048-1048576, a multiple of 1024> "
	"tso=auto|sw "
	"rx_csum=auto|sw "
	"link_speed=10|100|1000 "
	"sim_rate=line|unlimited "
	"rx_copybreak=0|<60-9216> "
	"sim_ctrl_fail=<1-1000> "
	"dev=<vid:pid> "
	"serial=<string> "
	"path=<bus-port[.port...]> "
	"proto=auto|vendor|ncm|ecm "
	"ncm_tx_ndp=front|end "
	"sim_quirks=ndp_end|ntb32_only|no_max_datagram[+...] "
	"sim_ntb_out_max=<2048-65535> "
	"sim_max_segment=<1514-9216>");
