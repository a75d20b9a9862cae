/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The CDC-NCM and CDC-ECM device types: class requests to the
 * communication interface, NCM's NTB negotiation as Linux cdc_ncm does it,
 * and the notifications of the interrupt endpoint. The MBIM device type
 * (ch39x_mbim_ctrl.c) brings its function up here too: its data interface
 * is NCM's, with IP session NDPs (§21), set up as cdc_mbim does through
 * cdc_ncm. Protocol sections (§N) are those of
 * doc/guides/nics/ch39x_protocol.rst.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "ch39x_adapter.h"
#include "ch39x_cdc_ctrl.h"
#include "ch39x_ctrl.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"
#include "ch39x_xstats.h"

/*
 * The longest frame the PMD handles on a CDC device (MTU 9000 plus header
 * and a tag), the default NTB sizes (Linux cdc_ncm's), transfers in flight.
 */
#define CH39X_CDC_MAX_MTU	9000
#define CH39X_CDC_MAX_FRAME	(CH39X_CDC_MAX_MTU + CH39X_L2_OVERHEAD)
#define CH39X_NCM_DEF_NTB	16384
#define CH39X_NCM_NDP_ENTRIES	64
/*
 * MBIM's small IP datagrams (no Ethernet header, 4-byte alignment): a
 * 16 KiB NTB holds a few hundred; 128 pointers (Linux stops at 40) so
 * that an NTB the TX queue holds open (tx_hold_us) fills further. The
 * device's wNtbOutMaxDatagrams still bounds it.
 */
#define CH39X_MBIM_NDP_ENTRIES	128
#define CH39X_NCM_RX_XFERS	16
#define CH39X_NCM_TX_XFERS	32
/* ECM moves a frame per transfer: more of them in flight (usbnet: 60). */
#define CH39X_ECM_XFERS		128

static bool
is_ncm(const struct ch39x_adapter *ad)
{
	return ad->framing == CH39X_FRAMING_NCM;
}

static bool
is_mbim(const struct ch39x_adapter *ad)
{
	return ad->framing == CH39X_FRAMING_MBIM;
}

/* NTBs on the data interface: NCM, and MBIM's IP sessions. */
static bool
uses_ntb(const struct ch39x_adapter *ad)
{
	return is_ncm(ad) || is_mbim(ad);
}

/* bmNetworkCapabilities: MBIM's descriptor has NCM's bits (§22). */
static uint8_t
net_caps(const struct ch39x_adapter *ad)
{
	return is_mbim(ad) ? ad->cdc.mbim_caps : ad->cdc.ncm_caps;
}

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
	return ch39x_control(ad, type, req, value, ad->cdc.comm_if, data, len,
			     cdc_req_name(req), quiet);
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
		if (rc < 0 && !ch39x_is_gone(ad)) {
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

/*
 * A new port address: SET_NET_ADDRESS when the NCM device offers it; else
 * the device keeps filtering for its own address and cdc_rx_mode runs it
 * promiscuous, so that frames for the new address still come in.
 */
static int
cdc_write_mac(struct ch39x_adapter *ad, const struct rte_ether_addr *mac)
{
	uint8_t b[RTE_ETHER_ADDR_LEN];
	int rc;

	if (ad->cdc.ncm_caps & CH39X_NCM_CAP_NET_ADDRESS && is_ncm(ad)) {
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

static int
cdc_set_mac(struct ch39x_adapter *ad, const struct rte_ether_addr *mac)
{
	int rc = cdc_write_mac(ad, mac);

	/* The filter follows the address (promiscuous for a foreign one). */
	return rc == 0 ? ch39x_program_rx_mode(ad) : rc;
}

/* The device's address from its iMACAddress string descriptor. */
static int
cdc_read_mac(struct ch39x_adapter *ad, struct rte_ether_addr *mac)
{
	uint8_t d[64];
	int rc;

	if (ad->cdc.i_mac_address == 0)
		return -ENOENT;
	/* GET_DESCRIPTOR(STRING), language en-US, as Linux asks. */
	rc = ch39x_control(ad, 0x80, 0x06, 0x0300 | ad->cdc.i_mac_address,
			   0x0409, d, sizeof(d), "GET_DESCRIPTOR(iMACAddress)",
			   true);
	if (rc < 0)
		return rc;
	if (ch39x_cdc_parse_mac_string(d, (uint32_t)rc, mac->addr_bytes) != 0)
		return -EINVAL;
	return 0;
}

/* A CDC device has no MTU request; NCM may take shorter datagrams. */
static int
ecm_mtu(struct ch39x_adapter *ad, uint16_t mtu)
{
	RTE_SET_USED(ad);
	RTE_SET_USED(mtu);
	return 0;
}

static uint32_t
ncm_tx_max_frame(const struct ch39x_adapter *ad)
{
	return RTE_MIN(ad->dev_max_dgram, ch39x_ncm_tx_max_dgram(&ad->ncm_tpl));
}

/*
 * An NCM device may take shorter datagrams than the MTU makes (the Linux
 * 6.1 gadget drops any over 1514): say so, since those frames are dropped
 * on TX and counted in tx_invalid.
 */
static int
ncm_mtu(struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t max = ncm_tx_max_frame(ad);

	if ((uint32_t)mtu + RTE_ETHER_HDR_LEN > max)
		PMD_LOG(WARNING, "%s: MTU %u makes frames of %u bytes, but the "
			"NCM device takes datagrams of at most %u bytes "
			"(wMaxSegmentSize %u%s); longer frames are dropped on "
			"TX and counted in tx_invalid", ad->dev->data->name,
			mtu, mtu + RTE_ETHER_HDR_LEN, max,
			ad->cdc.max_segment,
			(ad->cdc.ncm_caps & CH39X_NCM_CAP_MAX_DATAGRAM) ?
			", negotiated with SET_MAX_DATAGRAM_SIZE" :
			", no max-datagram capability");
	return 0;
}

/* A CDC device has no PHY to ask: the last notification says. */
static void
cdc_link_update(struct ch39x_adapter *ad)
{
	ch39x_set_link(ad, ad->cdc_link, ad->cdc_speed ? ad->cdc_speed :
		       RTE_ETH_SPEED_NUM_UNKNOWN);
}

/*
 * CDC notifications (§12): NETWORK_CONNECTION and
 * CONNECTION_SPEED_CHANGE. A failed transfer loses any notification split
 * over it.
 */
static void
cdc_notify(struct ch39x_adapter *ad, const struct ch39x_xfer *x)
{
	struct ch39x_cdc_notify n;

	if (x->status != CH39X_XFER_OK) {
		ch39x_cdc_notify_reset(&ad->notify);
		return;
	}
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
			ch39x_link_report(ad, true, ad->cdc_speed ?
					  ad->cdc_speed :
					  RTE_ETH_SPEED_NUM_UNKNOWN);
		else
			ch39x_link_report(ad, false, 0);
	}
}

static int
ncm_fw_version(struct ch39x_adapter *ad, char *fw, size_t size)
{
	return snprintf(fw, size, "CDC %x.%02x NCM %x.%02x",
			ad->cdc.bcd_cdc >> 8, ad->cdc.bcd_cdc & 0xFF,
			ad->cdc.bcd_ncm >> 8, ad->cdc.bcd_ncm & 0xFF);
}

static int
ecm_fw_version(struct ch39x_adapter *ad, char *fw, size_t size)
{
	return snprintf(fw, size, "CDC %x.%02x ECM",
			ad->cdc.bcd_cdc >> 8, ad->cdc.bcd_cdc & 0xFF);
}

static uint32_t
ecm_tx_max_frame(const struct ch39x_adapter *ad)
{
	return ad->ecm.max_frame;
}

/*
 * ECM bulk IN transfers hold one frame each: sized for the longest frame
 * the MTU allows plus a padding device's extra byte, or xfer_size when
 * given. Buffers larger than that cost per transfer: on the Linux gadget
 * (dummy_hcd) 10 KiB buffers received half the frames per second of
 * 2 KiB ones.
 */
static uint32_t
ecm_rx_xfer_size(const struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t sz = RTE_ALIGN_CEIL((uint32_t)mtu + CH39X_L2_OVERHEAD + 1,
				     512u);

	if (ad->args.xfer_size)
		return ad->args.xfer_size;
	return RTE_MAX(sz, (uint32_t)CH39X_MIN_XFER_SIZE);
}

void
ch39x_ncm_rxq_init(struct ch39x_adapter *ad, struct ch39x_rxq *q)
{
	struct ch39x_ncm_rx_cfg c;

	memset(&c, 0, sizeof(c));
	c.ntb32 = ad->ntb32;
	c.max_ntb = ad->ntb_in_size;
	c.ips = is_mbim(ad);
	ch39x_ncm_rx_init(&q->ncm, &c);
}

int
ch39x_ncm_txq_init(struct ch39x_adapter *ad, struct ch39x_txq *q)
{
	q->ncm = rte_malloc("ch39x_ncm_tx", sizeof(*q->ncm), 64);
	if (q->ncm == NULL)
		return -ENOMEM;
	*q->ncm = ad->ncm_tpl;
	return 0;
}

/* GET_NTB_PARAMETERS and SET_NTB_FORMAT: NTB16 when offered. */
static int
ncm_ntb_format(struct ch39x_adapter *ad)
{
	uint8_t p[CH39X_NCM_NTB_PARAMS_LEN];
	const char *name = ad->dev->data->name;
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
	/* SET_NTB_FORMAT only to devices that have NTB32 too. */
	ad->ntb32 = (ad->ntbp.formats & CH39X_NCM_FMT_NTB16_BIT) == 0;
	if (ad->ntbp.formats & CH39X_NCM_FMT_NTB32_BIT) {
		rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_NTB_FORMAT,
			     ad->ntb32 ? CH39X_NCM_FORMAT_NTB32 :
			     CH39X_NCM_FORMAT_NTB16, NULL, 0, false);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The RX NTB size: xfer_size, else 16 KiB, within what it allows. */
static int
ncm_input_size(struct ch39x_adapter *ad)
{
	uint32_t in, n;
	uint8_t b[8];
	int rc;

	in = ad->args.xfer_size ? ad->args.xfer_size : CH39X_NCM_DEF_NTB;
	in = RTE_MIN(in, ad->ntbp.in_max_size);
	if (!ad->ntb32)
		in = RTE_MIN(in, (uint32_t)CH39X_NCM_NTB16_MAX_SIZE);
	in = RTE_MAX(in, (uint32_t)CH39X_NCM_NTB_MIN_SIZE);
	n = ch39x_ncm_build_ntb_input_size(in, (net_caps(ad) &
				CH39X_NCM_CAP_NTB_INPUT_8) != 0, 0, b);
	rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_NTB_INPUT_SIZE, 0,
		     b, (uint16_t)n, true);
	if (rc < 0) {
		if (ch39x_is_gone(ad))
			return rc;
		/* It may then send NTBs as long as it said it could. */
		PMD_LOG(NOTICE, "%s: SET_NTB_INPUT_SIZE %u refused; RX "
			"transfers take dwNtbInMaxSize %u", ad->dev->data->name,
			in, ad->ntbp.in_max_size);
		in = RTE_MAX(ad->ntbp.in_max_size,
			     (uint32_t)CH39X_NCM_NTB_MIN_SIZE);
	}
	ad->ntb_in_size = in;
	return 0;
}

/*
 * The datagram size the device takes: negotiated when it has the
 * capability, else wMaxSegmentSize (at least 1514: devices that report
 * the MTU there still take full frames). MBIM: the MBIM descriptor's
 * wMaxSegmentSize, an IP datagram's (cdc_mbim takes it as it is).
 */
static int
ncm_max_datagram(struct ch39x_adapter *ad)
{
	uint32_t seg, want;
	uint8_t b[2];
	int rc;

	if (is_mbim(ad))
		seg = RTE_MAX((uint32_t)ad->cdc.mbim_max_segment,
			      (uint32_t)RTE_ETHER_MIN_MTU);
	else
		seg = RTE_MAX((uint32_t)ad->cdc.max_segment, 1514u);
	ad->dev_max_dgram = seg;
	if ((net_caps(ad) & CH39X_NCM_CAP_MAX_DATAGRAM) == 0)
		return 0;
	want = RTE_MIN(seg, (uint32_t)CH39X_CDC_MAX_FRAME);
	ch39x_put_le16(b, (uint16_t)want);
	rc = cdc_req(ad, CH39X_CDC_REQT_OUT, CH39X_CDC_SET_MAX_DATAGRAM, 0, b, 2,
		     true);
	if (rc >= 0)
		ad->dev_max_dgram = want;
	else if (ch39x_is_gone(ad))
		return rc;
	else if (cdc_req(ad, CH39X_CDC_REQT_IN, CH39X_CDC_GET_MAX_DATAGRAM, 0,
			 b, 2, true) == 2 &&
		 ch39x_get_le16(b) >= RTE_ETHER_MIN_LEN)
		ad->dev_max_dgram = ch39x_get_le16(b);
	return 0;
}

/*
 * NCM set-up while the data interface is at alt 0, as cdc_ncm_init does:
 * NTB parameters, the NTB format, the RX NTB size, the datagram size.
 */
static int
ncm_setup(struct ch39x_adapter *ad)
{
	struct ch39x_ncm_tx_cfg c;
	int rc;

	rc = ncm_ntb_format(ad);
	if (rc == 0)
		rc = ncm_input_size(ad);
	if (rc == 0)
		rc = ncm_max_datagram(ad);
	if (rc != 0)
		return rc;
	ch39x_ncm_tx_cfg_from_params(&c, &ad->ntbp, ad->ntb32,
				     ad->info.maxp[CH39X_EP_BULK_OUT]);
	c.size = ad->args.xfer_size ? ad->args.xfer_size : CH39X_NCM_DEF_NTB;
	c.ndp_entries = is_mbim(ad) ? CH39X_MBIM_NDP_ENTRIES :
		CH39X_NCM_NDP_ENTRIES;
	c.max_dgram_len = RTE_MIN(ad->dev_max_dgram,
				  (uint32_t)CH39X_CDC_MAX_FRAME);
	c.ndp_at_end = ad->args.ncm_ndp_end;
	c.ips = is_mbim(ad);
	if (ch39x_ncm_tx_init(&ad->ncm_tpl, &c) != 0) {
		PMD_LOG(ERR, "%s: the NTB parameters leave no room for a "
			"datagram (dwNtbOutMaxSize %u)", ad->dev->data->name,
			ad->ntbp.out_max_size);
		return -EIO;
	}
	ad->prof.rx_xfer_size = ad->ntb_in_size;
	ad->prof.tx_xfer_size = ch39x_ncm_tx_buf_size(&ad->ncm_tpl);
	ad->prof.rx_xfers = CH39X_NCM_RX_XFERS;
	ad->prof.tx_xfers = CH39X_NCM_TX_XFERS;
	return 0;
}

/*
 * wMaxSegmentSize is advice: Linux usbnet sends and takes frames up to
 * the MTU, and the Linux gadget takes jumbo frames once its own MTU
 * allows them.
 */
static int
ecm_setup(struct ch39x_adapter *ad)
{
	ch39x_ecm_cfg_init(&ad->ecm, &ad->cdc, true);
	ad->ecm.max_frame = RTE_MAX(ad->ecm.max_frame,
				    (uint32_t)CH39X_CDC_MAX_FRAME);
	/* Set again for the MTU at RX queue set-up. */
	ad->prof.rx_xfer_size = ecm_rx_xfer_size(ad, RTE_ETHER_MTU);
	ad->prof.tx_xfer_size = ch39x_ecm_tx_buf_size(&ad->ecm);
	ad->prof.rx_xfers = CH39X_ECM_XFERS;
	ad->prof.tx_xfers = CH39X_ECM_XFERS;
	return 0;
}

/* The profile's fields a CDC device has: no offloads in the device. */
static void
cdc_profile(struct ch39x_adapter *ad)
{
	struct ch39x_profile *p = &ad->prof;

	memset(p, 0, sizeof(*p));
	p->speed = (enum ch39x_usb_speed)ad->info.speed;
	p->pid = ad->info.pid;
	p->config_value = ad->info.config_value;
	p->bulk_maxp = ad->info.maxp[CH39X_EP_BULK_OUT];
	p->gigabit = ad->info.speed == CH39X_SPEED_SUPER;
	p->max_frame = CH39X_CDC_MAX_FRAME;
	p->max_mtu = CH39X_CDC_MAX_MTU;
	p->min_mtu = RTE_ETHER_MIN_MTU;
	ad->caps = 0;
	ad->speed_capa = RTE_ETH_LINK_SPEED_AUTONEG;
}

/*
 * The address: iMACAddress, else random; then the devargs' one. An MBIM
 * function has none (it carries IP): a random one, as cdc_mbim's netdev.
 */
static int
cdc_init_mac(struct ch39x_adapter *ad)
{
	struct rte_ether_addr mac;
	int rc;

	rc = is_mbim(ad) ? -ENOENT : cdc_read_mac(ad, &mac);
	if (rc != 0 || !rte_is_valid_assigned_ether_addr(&mac)) {
		if (ch39x_is_gone(ad))
			return -ENODEV;
		rte_eth_random_addr(mac.addr_bytes);
		if (!is_mbim(ad))
			PMD_LOG(WARNING, "%s: no valid iMACAddress; using "
				RTE_ETHER_ADDR_PRT_FMT, ad->dev->data->name,
				RTE_ETHER_ADDR_BYTES(&mac));
	}
	ad->dev_mac = mac;
	ad->mac_addr = mac;
	return ad->args.mac_set ? cdc_write_mac(ad, &ad->args.mac) : 0;
}

/*
 * Probe of a CDC-NCM, CDC-ECM or MBIM function: reset it (data alt 0),
 * read its address, set the NTBs up (NCM, MBIM), then data alt 1 brings
 * the bulk endpoints and the link.
 */
int
ch39x_cdc_init(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	const char *name = ad->dev->data->name;
	int rc;

	if (u->ops->get_cdc == NULL || u->ops->get_cdc(u, &ad->cdc) != 0 ||
	    !ch39x_cdc_usable(&ad->cdc) || ad->info.maxp[CH39X_EP_BULK_OUT] == 0) {
		PMD_LOG(ERR, "%s: the CDC function lacks what a driver needs "
			"(communication and data interfaces, %s functional "
			"descriptor, bulk endpoints)", name,
			is_mbim(ad) ? "MBIM" : is_ncm(ad) ? "Ethernet and NCM" :
			"Ethernet");
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
	rc = cdc_init_mac(ad);
	if (rc != 0)
		return rc;
	cdc_profile(ad);
	rc = uses_ntb(ad) ? ncm_setup(ad) : ecm_setup(ad);
	if (rc != 0)
		return rc;
	rc = u->ops->set_data_alt(u, 1);
	if (rc != 0)
		PMD_LOG(ERR, "%s: cannot select data alt setting 1: %s", name,
			strerror(-rc));
	return rc;
}

const struct ch39x_dev_ops ch39x_ncm_ops = {
	.name = "CDC-NCM",
	.init = ch39x_cdc_init,
	.rx_mode = cdc_rx_mode,
	.set_mac = cdc_set_mac,
	.mtu = ncm_mtu,
	.link_update = cdc_link_update,
	.notify = cdc_notify,
	.fw_version = ncm_fw_version,
	.tx_max_frame = ncm_tx_max_frame,
	.rxq_init = ch39x_ncm_rxq_init,
	.txq_init = ch39x_ncm_txq_init,
	.rx_parsed = ch39x_rx_parsed_ncm,
	.xstats = &ch39x_xs_ncm,
	.rx_burst = ch39x_rx_burst_ncm,
	.tx_burst = ch39x_tx_burst_ncm,
};

const struct ch39x_dev_ops ch39x_ecm_ops = {
	.name = "CDC-ECM",
	.init = ch39x_cdc_init,
	.rx_mode = cdc_rx_mode,
	.set_mac = cdc_set_mac,
	.mtu = ecm_mtu,
	.link_update = cdc_link_update,
	.notify = cdc_notify,
	.fw_version = ecm_fw_version,
	.tx_max_frame = ecm_tx_max_frame,
	.rx_xfer_size = ecm_rx_xfer_size,
	.rx_parsed = ch39x_rx_parsed_ecm,
	.xstats = &ch39x_xs_ecm,
	.rx_burst = ch39x_rx_burst_ecm,
	.tx_burst = ch39x_tx_burst_ecm,
};
