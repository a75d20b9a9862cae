/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The RNDIS device type: encapsulated control messages (INITIALIZE,
 * QUERY, SET, KEEPALIVE, RESET, HALT) with RESPONSE_AVAILABLE on the
 * interrupt endpoint, as Linux rndis_host exchanges them, the receive
 * filter and the multicast list, link and speed from the device's
 * indications and queries. Protocol sections (§N) are those of
 * doc/guides/nics/ch39x_protocol.rst.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>

#include "ch39x_adapter.h"
#include "ch39x_ctrl.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"
#include "ch39x_xstats.h"

/* The longest frame, as CDC devices; RX transfers; transfers in flight. */
#define RN_MAX_MTU	9000
#define RN_MAX_FRAME	(RN_MAX_MTU + CH39X_L2_OVERHEAD)
#define RN_DEF_XFER	16384
#define RN_RX_XFERS	16
#define RN_TX_XFERS	32
/* Answers read while waiting for one completion (Linux: 10, 20 ms apart). */
#define RN_TRIES	10
#define RN_RETRY_US	20000
/* A KEEPALIVE after this much silence on the control channel. */
#define RN_KEEPALIVE_S	5

static const char *
rn_msg_name(uint32_t type)
{
	switch (type) {
	case CH39X_RNDIS_MSG_INIT: return "INITIALIZE";
	case CH39X_RNDIS_MSG_QUERY: return "QUERY";
	case CH39X_RNDIS_MSG_SET: return "SET";
	case CH39X_RNDIS_MSG_RESET: return "RESET";
	case CH39X_RNDIS_MSG_KEEPALIVE: return "KEEPALIVE";
	case CH39X_RNDIS_MSG_HALT: return "HALT";
	default: return "message";
	}
}

static int
rn_send(struct ch39x_adapter *ad, const uint8_t *msg, uint32_t len)
{
	return ch39x_control(ad, CH39X_CDC_REQT_OUT,
			     CH39X_RNDIS_SEND_ENCAPSULATED, 0, ad->cdc.comm_if,
			     (void *)(uintptr_t)msg, (uint16_t)len,
			     "SEND_ENCAPSULATED_COMMAND", false);
}

/*
 * One answer into ad->rndis.resp; its length, or a negative errno. A
 * stall is the device's "nothing queued" (f_rndis stalls a read of its
 * empty queue, as the reading of every notification ends): counted in
 * empty_stalls, not as a failed request (ctrl_errors).
 */
static int
rn_get(struct ch39x_adapter *ad)
{
	int rc;

	rc = ch39x_control_may_stall(ad, CH39X_CDC_REQT_IN,
				     CH39X_RNDIS_GET_ENCAPSULATED, 0,
				     ad->cdc.comm_if, ad->rndis.resp,
				     sizeof(ad->rndis.resp),
				     "GET_ENCAPSULATED_RESPONSE");
	if (rc == -EPIPE)
		ad->rndis.st.empty_stalls++;
	return rc;
}

static void rn_link_query(struct ch39x_adapter *ad);

/*
 * What is not the awaited completion: an indication (link), the device's
 * keepalive (answered), anything else counted and dropped (§18.2).
 */
static void
rn_other(struct ch39x_adapter *ad, const struct ch39x_rndis_msg *m,
	 enum ch39x_rndis_match k)
{
	struct ch39x_rndis_ctrl_stats *st = &ad->rndis.st;
	uint8_t b[CH39X_RNDIS_KEEPALIVE_C_LEN];
	uint32_t n;

	switch (k) {
	case CH39X_RNDIS_INDICATION:
		st->indications++;
		switch (ch39x_rndis_indicate_link(m)) {
		case CH39X_RNDIS_LINK_UP:
			ad->rndis.link = true;
			ad->rndis.speed_query = true;
			break;
		case CH39X_RNDIS_LINK_DOWN:
			ad->rndis.link = false;
			ch39x_link_report(ad, false, 0);
			break;
		case CH39X_RNDIS_LINK_SPEED:
			ad->rndis.speed_query = true;
			break;
		default:
			break;
		}
		break;
	case CH39X_RNDIS_DEV_KEEPALIVE:
		st->dev_keepalives++;
		n = ch39x_rndis_build_status_c(b, sizeof(b),
					       CH39X_RNDIS_MSG_KEEPALIVE_C,
					       m->req_id,
					       CH39X_RNDIS_STATUS_SUCCESS);
		rn_send(ad, b, n);
		break;
	default:
		st->stale++;
		break;
	}
}

/*
 * One request and its completion, under ctrl_lock: send, then read
 * answers until the completion comes (RN_TRIES, RN_RETRY_US apart when
 * the device has nothing yet). Returns 0 with *m the completion (status
 * success), -EIO for another status, -ETIMEDOUT, or the control error.
 */
static int
rn_command(struct ch39x_adapter *ad, uint8_t *msg, uint32_t len,
	   struct ch39x_rndis_msg *m)
{
	struct ch39x_rndis_ctrl_stats *st = &ad->rndis.st;
	uint32_t type = ch39x_get_le32(msg), id = 0;
	enum ch39x_rndis_match k;
	unsigned int i;
	int rc;

	if (type != CH39X_RNDIS_MSG_RESET && type != CH39X_RNDIS_MSG_HALT) {
		id = ++ad->rndis.req_id;
		if (id == 0)
			id = ++ad->rndis.req_id;
		ch39x_put_le32(msg + 8, id);
	}
	ad->rndis.last_ctrl_tsc = rte_get_timer_cycles();
	rc = rn_send(ad, msg, len);
	if (rc < 0 || type == CH39X_RNDIS_MSG_HALT)
		return rc < 0 ? rc : 0;
	for (i = 0; i < RN_TRIES; i++) {
		rc = rn_get(ad);
		if (rc < 0) {
			if (ch39x_is_gone(ad))
				return -ENODEV;
			/* Nothing yet (a stall): wait, ask again. */
			rte_delay_us_sleep(RN_RETRY_US);
			continue;
		}
		if (ch39x_rndis_parse_ctrl(ad->rndis.resp, (uint32_t)rc, m) !=
		    CH39X_RNDIS_OK) {
			st->bad_responses++;
			continue;
		}
		st->responses++;
		k = ch39x_rndis_match(m, type, id);
		if (k != CH39X_RNDIS_MATCH) {
			rn_other(ad, m, k);
			continue;
		}
		if (m->type == CH39X_RNDIS_MSG_RESET_C ||
		    m->status == CH39X_RNDIS_STATUS_SUCCESS)
			return 0;
		st->failed++;
		return -EIO;
	}
	st->timeouts++;
	PMD_LOG(ERR, "%s: RNDIS %s: no completion after %u answers",
		ad->dev->data->name, rn_msg_name(type), RN_TRIES);
	return -ETIMEDOUT;
}

static int
rn_query(struct ch39x_adapter *ad, uint32_t oid, uint32_t in_len,
	 struct ch39x_rndis_msg *m)
{
	uint8_t b[CH39X_RNDIS_QUERY_LEN + 64];
	uint32_t n = ch39x_rndis_build_query(b, sizeof(b), 0, oid, in_len);

	return rn_command(ad, b, n, m);
}

static int
rn_query_u32(struct ch39x_adapter *ad, uint32_t oid, uint32_t *v)
{
	struct ch39x_rndis_msg m;
	int rc = rn_query(ad, oid, 0, &m);

	if (rc == 0 && ch39x_rndis_info_u32(&m, v) != 0)
		rc = -EIO;
	return rc;
}

static int
rn_set(struct ch39x_adapter *ad, uint32_t oid, const void *data, uint32_t len)
{
	uint8_t b[CH39X_RNDIS_SET_LEN + CH39X_RNDIS_MC_MAX * 6];
	struct ch39x_rndis_msg m;
	uint32_t n = ch39x_rndis_build_set(b, sizeof(b), 0, oid, data, len);

	if (n == 0)
		return -EINVAL;
	return rn_command(ad, b, n, &m);
}

/* MEDIA_CONNECT_STATUS and LINK_SPEED (§18.4). */
static void
rn_link_query(struct ch39x_adapter *ad)
{
	uint32_t v;

	if (rn_query_u32(ad, CH39X_RNDIS_OID_GEN_MEDIA_CONNECT_STATUS, &v) == 0)
		ad->rndis.link = v == CH39X_RNDIS_MEDIA_CONNECTED;
	if (rn_query_u32(ad, CH39X_RNDIS_OID_GEN_LINK_SPEED, &v) == 0)
		ad->rndis.speed = ch39x_rndis_speed_mbps(v);
	ad->rndis.speed_query = false;
}

static uint32_t
rn_speed(const struct ch39x_adapter *ad)
{
	return ad->rndis.speed ? ad->rndis.speed : RTE_ETH_SPEED_NUM_UNKNOWN;
}

static void
rndis_link_update(struct ch39x_adapter *ad)
{
	pthread_mutex_lock(&ad->ctrl_lock);
	rn_link_query(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	ch39x_set_link(ad, ad->rndis.link, rn_speed(ad));
}

/*
 * RESPONSE_AVAILABLE (the interrupt endpoint's 8 bytes): read what the
 * device has, unasked: indications, its keepalive (§18.2, §18.4).
 */
static void
rndis_notify(struct ch39x_adapter *ad, const struct ch39x_xfer *x)
{
	struct ch39x_rndis_msg m;
	bool was = ad->rndis.link;
	unsigned int i;
	int rc;

	if (x->status != CH39X_XFER_OK || x->actual < CH39X_RNDIS_NOTIFY_LEN ||
	    ch39x_get_le32(x->buf) != CH39X_RNDIS_NOTIFY_RESPONSE) {
		if (x->status == CH39X_XFER_OK)
			ad->rndis.st.bad_notifications++;
		return;
	}
	ad->rndis.st.notifications++;
	pthread_mutex_lock(&ad->ctrl_lock);
	for (i = 0; i < RN_TRIES; i++) {
		rc = rn_get(ad);
		if (rc < 0)
			break;
		if (ch39x_rndis_parse_ctrl(ad->rndis.resp, (uint32_t)rc, &m) !=
		    CH39X_RNDIS_OK) {
			ad->rndis.st.bad_responses++;
			continue;
		}
		ad->rndis.st.responses++;
		rn_other(ad, &m, ch39x_rndis_match(&m, 0, 0));
	}
	if (ad->rndis.speed_query)
		rn_link_query(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (ad->rndis.link && (!was || ad->rndis.speed))
		ch39x_link_report(ad, true, rn_speed(ad));
}

/*
 * KEEPALIVE after RN_KEEPALIVE_S of silence on the control channel, as
 * the specification asks of a host; a device that does not complete it
 * is RESET and its filter and list sent again (AddressingReset).
 */
static void
rndis_tick(struct ch39x_adapter *ad)
{
	uint64_t now = rte_get_timer_cycles();
	uint8_t b[CH39X_RNDIS_RESET_LEN];
	struct ch39x_rndis_msg m;
	uint32_t n;
	int rc;

	if (now - ad->rndis.last_ctrl_tsc <
	    (uint64_t)RN_KEEPALIVE_S * rte_get_timer_hz())
		return;
	if (pthread_mutex_trylock(&ad->ctrl_lock) != 0)
		return;		/* a request is under way: not idle */
	ad->rndis.st.keepalives++;
	n = ch39x_rndis_build_keepalive(b, sizeof(b), 0);
	rc = rn_command(ad, b, n, &m);
	if (rc != 0 && !ch39x_is_gone(ad)) {
		PMD_LOG(WARNING, "%s: RNDIS KEEPALIVE not completed (%s): "
			"RESET", ad->dev->data->name, strerror(-rc));
		ad->rndis.st.resets++;
		n = ch39x_rndis_build_reset(b, sizeof(b));
		rc = rn_command(ad, b, n, &m);
	} else {
		rc = 1;
	}
	pthread_mutex_unlock(&ad->ctrl_lock);
	/* The device forgot what it was told: say it again. */
	if (rc == 0)
		ch39x_program_rx_mode(ad);
}

/*
 * The receive filter (§18.5): directed and broadcast, the list when the
 * device's holds it, else all multicast; promiscuous for an address that
 * is not the device's (it cannot be told another). The device's filter
 * is not to be relied on (f_rndis passes everything): the RX burst
 * applies the same one in software (rx_rndis_filtered).
 */
static int
rndis_rx_mode(struct ch39x_adapter *ad, bool promisc, bool allmulti)
{
	bool own = rte_is_same_ether_addr(&ad->mac_addr, &ad->dev_mac);
	uint32_t flt, sw;
	uint8_t v[4];
	int rc = 0;

	flt = ch39x_rndis_packet_filter(promisc || !own, allmulti, ad->nb_mc,
					ad->rndis.max_list);
	sw = ch39x_rndis_packet_filter(promisc, allmulti, ad->nb_mc,
				       CH39X_MAX_MC_ADDRS);
	pthread_mutex_lock(&ad->ctrl_lock);
	if (flt & CH39X_RNDIS_PKT_MULTICAST) {
		rc = rn_set(ad, CH39X_RNDIS_OID_802_3_MULTICAST_LIST, ad->mc,
			    6u * ad->nb_mc);
		if (rc < 0 && !ch39x_is_gone(ad))
			flt = (flt & ~CH39X_RNDIS_PKT_MULTICAST) |
				CH39X_RNDIS_PKT_ALL_MULTICAST;
	}
	ch39x_put_le32(v, flt);
	rc = rn_set(ad, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER, v, 4);
	if (rc == 0)
		ad->rndis.filter = flt;
	/* What the bursts check, read there without the lock. */
	__atomic_store_n(&ad->rndis.sw_filter, sw, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc < 0 ? rc : 0;
}

static int
rndis_set_mac(struct ch39x_adapter *ad, const struct rte_ether_addr *mac)
{
	if (!rte_is_same_ether_addr(mac, &ad->dev_mac))
		PMD_LOG(INFO, "%s: an RNDIS device keeps its own address; it "
			"receives promiscuously for " RTE_ETHER_ADDR_PRT_FMT
			" and the PMD filters", ad->dev->data->name,
			RTE_ETHER_ADDR_BYTES(mac));
	ad->mac_addr = *mac;
	return ch39x_program_rx_mode(ad);
}

static uint32_t
rndis_tx_max_frame(const struct ch39x_adapter *ad)
{
	return RTE_MIN(ch39x_rndis_tx_max_frame(&ad->rndis.tx_tpl),
		       (uint32_t)RN_MAX_FRAME);
}

/* The device takes frames up to its MaxTransferSize less a header. */
static int
rndis_mtu(struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t max = rndis_tx_max_frame(ad);

	if ((uint32_t)mtu + RTE_ETHER_HDR_LEN > max)
		PMD_LOG(WARNING, "%s: MTU %u makes frames of %u bytes, but the "
			"RNDIS device takes messages of at most %u bytes "
			"(MaxTransferSize %u); longer frames are dropped on TX "
			"and counted in tx_invalid", ad->dev->data->name, mtu,
			mtu + RTE_ETHER_HDR_LEN, max, ad->rndis.max_xfer);
	return 0;
}

/* Short: testpmd shows what fits 32 bytes (ETHDEV_FWVERS_LEN). */
static int
rndis_fw_version(struct ch39x_adapter *ad, char *fw, size_t size)
{
	return snprintf(fw, size, "RNDIS %u.%u %u pkts/%u B",
			ad->rndis.major, ad->rndis.minor, ad->rndis.max_pkts,
			ad->rndis.max_xfer);
}

static void
rndis_rxq_init(struct ch39x_adapter *ad, struct ch39x_rxq *q)
{
	struct ch39x_rndis_rx_cfg c = { .max_frame = RN_MAX_FRAME };

	RTE_SET_USED(ad);
	ch39x_rndis_rx_init(&q->rndis, &c);
	q->rndis_filtered = 0;
}

static int
rndis_txq_init(struct ch39x_adapter *ad, struct ch39x_txq *q)
{
	q->rndis = rte_malloc("ch39x_rndis_tx", sizeof(*q->rndis), 64);
	if (q->rndis == NULL)
		return -ENOMEM;
	*q->rndis = ad->rndis.tx_tpl;
	return 0;
}

/* The address: OID_802_3_PERMANENT_ADDRESS, else random; then the devarg. */
static int
rndis_init_mac(struct ch39x_adapter *ad)
{
	struct ch39x_rndis_msg m;
	struct rte_ether_addr mac;
	int rc;

	/* Linux asks with a 48-byte buffer: some devices want one. */
	rc = rn_query(ad, CH39X_RNDIS_OID_802_3_PERMANENT_ADDRESS, 48, &m);
	if (rc == 0 && m.buf_len == RTE_ETHER_ADDR_LEN)
		memcpy(mac.addr_bytes, m.buf, RTE_ETHER_ADDR_LEN);
	if (rc != 0 || m.buf_len != RTE_ETHER_ADDR_LEN ||
	    !rte_is_valid_assigned_ether_addr(&mac)) {
		if (ch39x_is_gone(ad))
			return -ENODEV;
		rte_eth_random_addr(mac.addr_bytes);
		PMD_LOG(WARNING, "%s: no valid permanent address from the "
			"RNDIS device; using " RTE_ETHER_ADDR_PRT_FMT,
			ad->dev->data->name, RTE_ETHER_ADDR_BYTES(&mac));
	}
	ad->dev_mac = mac;
	ad->mac_addr = ad->args.mac_set ? ad->args.mac : mac;
	return 0;
}

/* INITIALIZE: what the device takes per transfer (§18.2, §18.6). */
static int
rndis_initialize(struct ch39x_adapter *ad, uint32_t rx_size)
{
	const char *name = ad->dev->data->name;
	struct ch39x_rndis_tx_cfg tc;
	struct ch39x_rndis_msg m;
	uint8_t b[CH39X_RNDIS_INIT_LEN];
	uint32_t n;
	int rc;

	n = ch39x_rndis_build_init(b, sizeof(b), 0, rx_size);
	rc = rn_command(ad, b, n, &m);
	if (rc != 0) {
		PMD_LOG(ERR, "%s: RNDIS INITIALIZE failed: %s", name,
			strerror(-rc));
		return rc;
	}
	ad->rndis.major = m.init.major;
	ad->rndis.minor = m.init.minor;
	ad->rndis.max_pkts = m.init.max_pkts ? m.init.max_pkts : 1;
	ad->rndis.max_xfer = m.init.max_xfer;
	ad->rndis.align_factor = m.init.align_factor;
	if (m.init.medium != CH39X_RNDIS_MEDIUM_802_3)
		PMD_LOG(WARNING, "%s: RNDIS medium %u is not 802.3; frames "
			"are taken as Ethernet", name, m.init.medium);
	memset(&tc, 0, sizeof(tc));
	tc.max_xfer = m.init.max_xfer;
	tc.max_pkts = m.init.max_pkts;
	tc.align_factor = m.init.align_factor;
	tc.size = ad->args.xfer_size;
	tc.maxp = ad->info.maxp[CH39X_EP_BULK_OUT];
	if (ch39x_rndis_tx_init(&ad->rndis.tx_tpl, &tc) != 0) {
		PMD_LOG(ERR, "%s: the RNDIS device takes transfers of %u "
			"bytes: no room for a frame", name, m.init.max_xfer);
		return -EIO;
	}
	return 0;
}

/* Probe: INITIALIZE, the address, the list size, the link (§18). */
static int
rndis_init(struct ch39x_adapter *ad)
{
	struct ch39x_usb_dev *u = ad->usb;
	const char *name = ad->dev->data->name;
	struct ch39x_profile *p = &ad->prof;
	uint32_t rx_size, v;
	int rc;

	if (u->ops->get_cdc == NULL || u->ops->get_cdc(u, &ad->cdc) != 0 ||
	    !ch39x_cdc_usable(&ad->cdc) ||
	    ad->info.maxp[CH39X_EP_BULK_OUT] == 0) {
		PMD_LOG(ERR, "%s: the RNDIS function lacks what a driver needs "
			"(control and data interfaces, bulk endpoints)", name);
		return -ENOTSUP;
	}
	memset(&ad->rndis, 0, offsetof(struct ch39x_rndis_dev, resp));
	rx_size = ad->args.xfer_size ? ad->args.xfer_size : RN_DEF_XFER;
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = rndis_initialize(ad, rx_size);
	if (rc == 0)
		rc = rndis_init_mac(ad);
	if (rc == 0 && rn_query_u32(ad, CH39X_RNDIS_OID_802_3_MAXIMUM_LIST_SIZE,
				    &v) == 0)
		ad->rndis.max_list = RTE_MIN(v, (uint32_t)CH39X_MAX_MC_ADDRS);
	if (rc == 0)
		rn_link_query(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc != 0)
		return rc;
	memset(p, 0, sizeof(*p));
	p->speed = (enum ch39x_usb_speed)ad->info.speed;
	p->pid = ad->info.pid;
	p->config_value = ad->info.config_value;
	p->bulk_maxp = ad->info.maxp[CH39X_EP_BULK_OUT];
	p->gigabit = ad->info.speed == CH39X_SPEED_SUPER;
	p->max_frame = rndis_tx_max_frame(ad);
	p->max_mtu = (uint16_t)RTE_MIN((uint32_t)RN_MAX_MTU,
				       p->max_frame - CH39X_L2_OVERHEAD);
	p->min_mtu = RTE_ETHER_MIN_MTU;
	p->rx_xfer_size = rx_size;
	p->tx_xfer_size = ch39x_rndis_tx_buf_size(&ad->rndis.tx_tpl);
	p->rx_xfers = RN_RX_XFERS;
	p->tx_xfers = RN_TX_XFERS;
	ad->caps = 0;
	ad->speed_capa = RTE_ETH_LINK_SPEED_AUTONEG;
	PMD_LOG(INFO, "%s: RNDIS %u.%u: %u packets / %u bytes per transfer, "
		"alignment 2^%u, multicast list %u, link %s %u Mbit/s", name,
		ad->rndis.major, ad->rndis.minor, ad->rndis.max_pkts,
		ad->rndis.max_xfer, ad->rndis.align_factor, ad->rndis.max_list,
		ad->rndis.link ? "up" : "down", ad->rndis.speed);
	return 0;
}

const struct ch39x_dev_ops ch39x_rndis_ops = {
	.name = "RNDIS",
	.init = rndis_init,
	.rx_mode = rndis_rx_mode,
	.set_mac = rndis_set_mac,
	.mtu = rndis_mtu,
	.link_update = rndis_link_update,
	.notify = rndis_notify,
	.tick = rndis_tick,
	.fw_version = rndis_fw_version,
	.tx_max_frame = rndis_tx_max_frame,
	.rxq_init = rndis_rxq_init,
	.txq_init = rndis_txq_init,
	.rx_parsed = ch39x_rx_parsed_rndis,
	.xstats = &ch39x_xs_rndis,
	.rx_burst = ch39x_rx_burst_rndis,
	.tx_burst = ch39x_tx_burst_rndis,
};
