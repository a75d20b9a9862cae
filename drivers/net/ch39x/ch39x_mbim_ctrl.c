/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The MBIM device type (issue 43): an LTE/5G modem's MBIM function as an
 * Ethernet port. Its data interface is NCM's with IP session NDPs (§21),
 * brought up as cdc_mbim does through cdc_ncm (ch39x_cdc_init); the
 * application sees Ethernet frames between its MAC and a fixed peer, VLAN
 * n for session n (ch39x_mbim_eth.h); the link is session 0's connection,
 * which the port's dialer (ch39x_mbim_dial.c) makes and watches. Protocol
 * sections (§N) are those of doc/guides/nics/ch39x_protocol.rst.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <ethdev_driver.h>
#include <rte_cycles.h>
#include <rte_ether.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "ch39x_adapter.h"
#include "ch39x_cdc_ctrl.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_mbim_port.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"
#include "ch39x_xstats.h"

/* tx_hold_us's default: about the time a burst of 60-byte frames takes. */
#define CH39X_MBIM_TX_HOLD_US	500u

/*
 * The peer's fixed address: the modem as the application's neighbour
 * ("MBIM" in a locally administered unicast address). Frames from the
 * session come from it; ARP and ND for anything on the session get it.
 */
static const uint8_t mbim_peer_mac[RTE_ETHER_ADDR_LEN] = {
	0x02, 0x4d, 0x42, 0x49, 0x4d, 0x00
};

/* The longest IP datagram the function takes (its MTU at most). */
static uint32_t
mbim_max_ip(const struct ch39x_adapter *ad)
{
	return RTE_MIN(ad->dev_max_dgram,
		       ch39x_ncm_tx_max_dgram(&ad->ncm_tpl));
}

/* A frame is the datagram, its Ethernet header and a tag. */
static uint32_t
mbim_tx_max_frame(const struct ch39x_adapter *ad)
{
	return mbim_max_ip(ad) + CH39X_L2_OVERHEAD;
}

static int
mbim_rx_mode(struct ch39x_adapter *ad, bool promisc, bool allmulti)
{
	/* A session carries what is for the port: nothing to filter. */
	RTE_SET_USED(ad);
	RTE_SET_USED(promisc);
	RTE_SET_USED(allmulti);
	return 0;
}

static int
mbim_set_mac(struct ch39x_adapter *ad, const struct rte_ether_addr *mac)
{
	if (memcmp(mac->addr_bytes, mbim_peer_mac, RTE_ETHER_ADDR_LEN) == 0) {
		PMD_LOG(ERR, "%s: " RTE_ETHER_ADDR_PRT_FMT " is the modem's "
			"side of the port", ad->dev->data->name,
			RTE_ETHER_ADDR_BYTES(mac));
		return -EINVAL;
	}
	ad->mac_addr = *mac;
	if (ad->mbim != NULL)
		memcpy(ad->mbim->eth.port_mac, mac->addr_bytes,
		       RTE_ETHER_ADDR_LEN);
	return 0;
}

/*
 * The MTU is the IP datagram's: the function's wMaxSegmentSize bounds it
 * (max_mtu); the session's own MTU comes with its IP configuration, and a
 * larger one is only said.
 */
static int
mbim_mtu(struct ch39x_adapter *ad, uint16_t mtu)
{
	struct ch39x_mbim_port *m = ad->mbim;
	uint32_t smtu;

	if (m == NULL)
		return 0;
	pthread_mutex_lock(&m->lock);
	smtu = m->sess[0].st.ipcfg.v4_mtu;
	pthread_mutex_unlock(&m->lock);
	if (smtu != 0 && mtu > smtu)
		PMD_LOG(NOTICE, "%s: MTU %u is more than session 0's %u (its "
			"IP configuration)", ad->dev->data->name, mtu, smtu);
	return 0;
}

/* The link: session 0 connected, while started. */
static void
mbim_link_update(struct ch39x_adapter *ad)
{
	if (ad->mbim != NULL)
		ch39x_mbim_link_sync(ad->mbim);
	else
		ch39x_set_link(ad, false, 0);
}

/*
 * The interrupt endpoint: RESPONSE_AVAILABLE says a response or an
 * indication waits (§22); the dialer reads it.
 */
static void
mbim_notify(struct ch39x_adapter *ad, const struct ch39x_xfer *x)
{
	struct ch39x_cdc_notify n;
	bool news = false;

	if (x->status != CH39X_XFER_OK) {
		ch39x_cdc_notify_reset(&ad->notify);
		return;
	}
	ch39x_cdc_notify_begin(&ad->notify, x->buf, x->actual);
	while (ch39x_cdc_notify_next(&ad->notify, &n) == 1) {
		ad->cdc_notifications++;
		if (n.code == CH39X_CDC_NOTIFY_RESPONSE_AVAILABLE)
			news = true;
	}
	if (news && ad->mbim != NULL) {
		__atomic_fetch_add(&ad->mbim->c.notifications, 1,
				   __ATOMIC_RELAXED);
		ch39x_mbim_dialer_kick(ad->mbim);
	}
}

static int
mbim_fw_version(struct ch39x_adapter *ad, char *fw, size_t size)
{
	struct ch39x_mbim_port *m = ad->mbim;
	char firmware[CH39X_MBIM_STR_SHORT] = "";

	if (m != NULL) {
		pthread_mutex_lock(&m->lock);
		if (m->have_caps)
			snprintf(firmware, sizeof(firmware), "%s",
				 m->caps.firmware);
		pthread_mutex_unlock(&m->lock);
	}
	return snprintf(fw, size, "MBIM %x.%02x%s%s", ad->cdc.bcd_mbim >> 8,
			ad->cdc.bcd_mbim & 0xFF, firmware[0] ? ", " : "",
			firmware);
}

static void
mbim_rxq_init(struct ch39x_adapter *ad, struct ch39x_rxq *q)
{
	ch39x_ncm_rxq_init(ad, q);
	/*
	 * Each frame gets its Ethernet header before the datagram, which
	 * in the transfer buffer is the NTB's: copied, never attached.
	 */
	if (q->copybreak)
		PMD_LOG(NOTICE, "%s: rx_copybreak: an MBIM port copies every "
			"frame (each gets its Ethernet header)",
			ad->dev->data->name);
	q->copybreak = 0;
	q->mbim = ad->mbim;
}

static int
mbim_txq_init(struct ch39x_adapter *ad, struct ch39x_txq *q)
{
	int rc = ch39x_ncm_txq_init(ad, q);

	if (rc != 0)
		return rc;
	q->mbim = ad->mbim;
	q->mbim_max_ip = mbim_max_ip(ad);
	rte_spinlock_init(&q->hold_lock);
	q->hold = NULL;
	q->hold_cycles = (ad->args.tx_hold_us1 ? ad->args.tx_hold_us1 - 1u :
			  CH39X_MBIM_TX_HOLD_US) * rte_get_timer_hz() / 1000000u;
	/* One frame of a software TSO segmentation at a time. */
	q->mbim_seg = rte_malloc("ch39x_mbim_seg", mbim_tx_max_frame(ad), 64);
	return q->mbim_seg != NULL ? 0 : -ENOMEM;
}

/*
 * The RX burst, then the NTB the TX queue holds (tx_hold_us) if it is
 * due: an application polls its ports' RX whether or not it sends, so
 * a held NTB never waits for the next TX burst.
 */
static uint16_t
mbim_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb)
{
	struct ch39x_rxq *q = rxq;
	uint16_t n = ch39x_rx_burst_mbim(rxq, pkts, nb);

	if (q->ad->txq != NULL)
		ch39x_tx_mbim_flush(q->ad->txq);
	return n;
}

/* The sessions as the devargs ask for them. */
static void
mbim_sessions(struct ch39x_mbim_port *m, const struct ch39x_args *a)
{
	struct ch39x_mbim_sess *s;
	uint32_t auth, i;

	auth = a->auth ? (uint32_t)(a->auth - 1) :
		a->user[0] ? CH39X_MBIM_AUTH_CHAP : CH39X_MBIM_AUTH_NONE;
	m->nb_sess = 1u + a->nb_sessions;
	for (i = 0; i < m->nb_sess; i++) {
		s = &m->sess[i];
		memset(s, 0, sizeof(*s));
		s->cfg.session = i == 0 ? 0 : a->session_id[i - 1];
		s->vlan = (uint16_t)s->cfg.session;
		snprintf(s->cfg.apn, sizeof(s->cfg.apn), "%s",
			 i == 0 ? a->apn : a->session_apn[i - 1]);
		snprintf(s->cfg.user, sizeof(s->cfg.user), "%s", a->user);
		snprintf(s->cfg.password, sizeof(s->cfg.password), "%s",
			 a->password);
		s->cfg.auth = auth;
		s->cfg.ip_type = a->ip_type ? (uint32_t)(a->ip_type - 1) :
			CH39X_MBIM_IP_V4V6;
		s->cfg.cmd_timeout_ms = 5000;
		s->cfg.register_timeout_ms = 60000;
		s->want = !a->mbim_manual;
		s->phase = RTE_PMD_CH39X_MBIM_IDLE;
	}
}

/* The port's MBIM state, its ring of answers and its dialer; first init. */
static int
mbim_port_create(struct ch39x_adapter *ad)
{
	static uint32_t seq;
	char name[RTE_RING_NAMESIZE];
	struct ch39x_mbim_port *m;
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	int rc;

	m = rte_zmalloc("ch39x_mbim", sizeof(*m), 64);
	if (m == NULL)
		return -ENOMEM;
	m->ad = ad;
	m->manual = ad->args.mbim_manual;
	mbim_sessions(m, &ad->args);
	snprintf(name, sizeof(name), "ch39x_mbim_%u",
		 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
	m->answers = rte_ring_create(name, CH39X_MBIM_ANSWERS, SOCKET_ID_ANY,
				     RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (m->answers == NULL) {
		rte_free(m);
		return -ENOMEM;
	}
	pthread_mutex_init(&m->lock, NULL);
	/* Their waits are timed on the monotonic clock. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_cond_init(&m->changed, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m->link_lock, &ma);
	pthread_mutexattr_destroy(&ma);
	ad->mbim = m;
	rc = ch39x_mbim_dialer_start(m);
	if (rc != 0) {
		PMD_LOG(ERR, "%s: cannot start the MBIM dialer: %s",
			ad->dev->data->name, strerror(-rc));
		ad->mbim = NULL;
		rte_ring_free(m->answers);
		rte_free(m);
	}
	return rc;
}

/*
 * Probe (and reset, and the device's return): the function as cdc_mbim
 * sets it up; then its control channel is the dialer's, which opens it
 * again (MBIM OPEN) and connects the sessions.
 */
static int
mbim_init(struct ch39x_adapter *ad)
{
	struct ch39x_profile *p = &ad->prof;
	struct ch39x_mbim_port *m;
	int rc;

	rc = ch39x_cdc_init(ad);
	if (rc != 0)
		return rc;
	/* The MTU is the IP datagram's (§21). */
	p->max_mtu = (uint16_t)RTE_MIN(mbim_max_ip(ad), (uint32_t)UINT16_MAX);
	p->max_frame = p->max_mtu + CH39X_L2_OVERHEAD;
	if (ad->cdc.have_mbim_ext && ad->cdc.mbim_mtu != 0 &&
	    ad->cdc.mbim_mtu < p->max_mtu)
		PMD_LOG(INFO, "%s: the modem says MTU %u (MBIM extended "
			"descriptor)", ad->dev->data->name, ad->cdc.mbim_mtu);
	if (memcmp(ad->mac_addr.addr_bytes, mbim_peer_mac,
		   RTE_ETHER_ADDR_LEN) == 0)
		ad->mac_addr.addr_bytes[5] ^= 1;
	if (ad->mbim == NULL) {
		rc = mbim_port_create(ad);
		if (rc != 0)
			return rc;
	}
	m = ad->mbim;
	memcpy(m->eth.port_mac, ad->mac_addr.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(m->eth.peer_mac, mbim_peer_mac, RTE_ETHER_ADDR_LEN);
	m->eth.ips0_vlan = false;
	ch39x_mbim_dialer_reinit(m);
	return 0;
}

/* The port stops: no link report may follow its link going down. */
static void
mbim_stop(struct ch39x_adapter *ad)
{
	if (ad->mbim != NULL) {
		pthread_mutex_lock(&ad->mbim->link_lock);
		ad->mbim->link_up = false;
		pthread_mutex_unlock(&ad->mbim->link_lock);
	}
}

/*
 * Close: the dialer hangs the sessions up and closes the function (MBIM
 * CLOSE), then goes; the answers not taken are freed.
 */
static void
mbim_close(struct ch39x_adapter *ad)
{
	struct ch39x_mbim_port *m = ad->mbim;
	struct rte_mbuf *mb;

	if (m == NULL)
		return;
	ch39x_mbim_dialer_stop(m);
	while (rte_ring_dequeue(m->answers, (void **)&mb) == 0)
		rte_pktmbuf_free(mb);
	rte_ring_free(m->answers);
	pthread_mutex_destroy(&m->lock);
	pthread_mutex_destroy(&m->link_lock);
	pthread_cond_destroy(&m->cond);
	pthread_cond_destroy(&m->changed);
	ad->mbim = NULL;
	rte_free(m);
}

const struct ch39x_dev_ops ch39x_mbim_ops = {
	.name = "MBIM",
	.init = mbim_init,
	.rx_mode = mbim_rx_mode,
	.set_mac = mbim_set_mac,
	.mtu = mbim_mtu,
	.link_update = mbim_link_update,
	.notify = mbim_notify,
	.fw_version = mbim_fw_version,
	.tx_max_frame = mbim_tx_max_frame,
	.rxq_init = mbim_rxq_init,
	.txq_init = mbim_txq_init,
	.rx_parsed = ch39x_rx_parsed_ncm,
	.xstats = &ch39x_xs_mbim,
	.rx_burst = mbim_rx_burst,
	.tx_burst = ch39x_tx_burst_mbim,
	.stop = mbim_stop,
	.close = mbim_close,
};
