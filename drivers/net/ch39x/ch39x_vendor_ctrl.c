/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The vendor device type (CH397, CH398): registers, the PHY window and the
 * interrupt endpoint's events, programmed as the vendor's V1.7 driver does.
 * Protocol sections (§N) are those of doc/guides/nics/ch39x_protocol.rst.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ether.h>

#include "ch39x_adapter.h"
#include "ch39x_ctrl.h"
#include "ch39x_link.h"
#include "ch39x_logs.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"

/* ---- vendor requests (§2) ---- */

static const char *
vendor_req_name(uint8_t req)
{
	switch (req) {
	case CH39X_REQ_GET_INFO: return "vendor request GET_INFO";
	case CH39X_REQ_RD_REG: return "vendor request RD_REG";
	case CH39X_REQ_WR_REG: return "vendor request WR_REG";
	case CH39X_REQ_RD_PHY: return "vendor request RD_PHY";
	case CH39X_REQ_WR_PHY: return "vendor request WR_PHY";
	case CH39X_REQ_WR_MACCFG: return "vendor request WR_MACCFG";
	default: return "vendor request";
	}
}

/* arg: wValue in the low half, wIndex in the high half. */
static int
ctrl(struct ch39x_adapter *ad, uint8_t type, uint8_t req, uint32_t arg,
     void *data, uint16_t len)
{
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	rc = ch39x_control(ad, type, req, (uint16_t)arg, (uint16_t)(arg >> 16),
			   data, len, vendor_req_name(req), false);
	if (rc < 0)
		return rc;
	/* V1.7 treats a length mismatch as an I/O error. */
	if (rc != len) {
		ad->ctrl_errors++;
		PMD_LOG(ERR, "%s: %s (0x%08x) moved %d of %u bytes",
			ad->dev->data->name, vendor_req_name(req), arg, rc,
			len);
		return -EIO;
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
write_mac_addr(struct ch39x_adapter *ad, const struct rte_ether_addr *a)
{
	const uint8_t *b = a->addr_bytes;
	int rc;

	/* Wire order: MAC_L has octets 0..3, MAC_H 4..5 (§3). */
	rc = wr_reg(ad, ad->prof.regs.mac_l, 4, ch39x_get_le32(b));
	if (rc == 0)
		rc = wr_reg(ad, ad->prof.regs.mac_h, 4,
			    (uint32_t)b[4] | ((uint32_t)b[5] << 8));
	return rc;
}

static int
vendor_set_mac(struct ch39x_adapter *ad, const struct rte_ether_addr *mac)
{
	int rc;

	pthread_mutex_lock(&ad->ctrl_lock);
	rc = write_mac_addr(ad, mac);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc == 0)
		ad->mac_addr = *mac;
	return rc;
}

/*
 * _ch397_set_rx_mode: hash registers, then the receive bits of MAC_CFG
 * read-modify-written with flow control on (§3).
 */
static int
vendor_rx_mode(struct ch39x_adapter *ad, bool promisc, bool allmulti)
{
	uint32_t bits, hi = 0, lo = 0, cfg;
	int rc;

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
		cfg |= bits | (ad->pause_off ? 0 : CH39X_MACCFG_FLOWCTRL);
		rc = wr_mac_cfg(ad, cfg);
	}
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

/*
 * ch398_set_mtu: the jumbo bit, always through WR_REG (§7). The
 * CH397 has no such bit: its frames stop at 1518 bytes.
 */
static int
vendor_mtu(struct ch39x_adapter *ad, uint16_t mtu)
{
	uint32_t cfg, want;
	int rc;

	if (ad->prof.max_mtu < CH39X_JUMBO_MTU_MIN)
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
vendor_vlan_strip(struct ch39x_adapter *ad, bool on)
{
	uint32_t v;
	int rc;

	pthread_mutex_lock(&ad->ctrl_lock);
	rc = rd_reg(ad, ad->prof.regs.misc_cfg, 4, &v);
	if (rc == 0)
		rc = wr_reg(ad, ad->prof.regs.misc_cfg, 4,
			    on ? v | CH39X_MISCCFG_VLAN_STRIP :
			    v & ~CH39X_MISCCFG_VLAN_STRIP);
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

/* ---- the link: speed, duplex, autonegotiation (§2, §6, §10) ---- */

/* What a link_speeds value asks of the PHY. */
struct phy_setting {
	bool an;
	uint16_t anar;		/* 10/100 advertisement bits */
	uint16_t gbcr;		/* 1000BASE-T advertisement bits */
	uint16_t bmcr;		/* forced: speed and duplex bits */
};

static const struct {
	uint32_t rte;
	uint16_t anar;
	uint16_t gbcr;
	uint16_t bmcr;
	const char *name;
} link_modes[] = {
	{ RTE_ETH_LINK_SPEED_10M_HD, CH39X_ADV_10HALF, 0, 0, "10M half" },
	{ RTE_ETH_LINK_SPEED_10M, CH39X_ADV_10FULL, 0, CH39X_BMCR_FULLDPLX,
	  "10M full" },
	{ RTE_ETH_LINK_SPEED_100M_HD, CH39X_ADV_100HALF, 0,
	  CH39X_BMCR_SPEED100, "100M half" },
	{ RTE_ETH_LINK_SPEED_100M, CH39X_ADV_100FULL, 0,
	  CH39X_BMCR_SPEED100 | CH39X_BMCR_FULLDPLX, "100M full" },
	{ RTE_ETH_LINK_SPEED_1G, 0, CH39X_GBCR_1000FULL,
	  CH39X_BMCR_SPEED1000 | CH39X_BMCR_FULLDPLX, "1G full" },
};

static void
capa_names(uint32_t capa, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < RTE_DIM(link_modes); i++)
		if ((capa & link_modes[i].rte) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? ", " : "",
					      link_modes[i].name);
}

/*
 * RTE_ETH_LINK_SPEED_AUTONEG: advertise every mode of speed_capa. A set
 * of speeds: advertise those. FIXED with one speed: force it, except
 * 1000BASE-T, which cannot run without autonegotiation (IEEE 802.3
 * 40.5.1, master/slave): FIXED | 1G advertises 1000 full alone.
 */
static int
phy_setting_get(struct ch39x_adapter *ad, uint32_t speeds,
		struct phy_setting *ps)
{
	bool fixed = (speeds & RTE_ETH_LINK_SPEED_FIXED) != 0;
	uint32_t want = speeds & ~RTE_ETH_LINK_SPEED_FIXED;
	char capa[96];
	size_t i;

	capa_names(ad->speed_capa, capa, sizeof(capa));
	memset(ps, 0, sizeof(*ps));
	if (want == 0 && !fixed)
		want = ad->speed_capa;
	if (want == 0 || (want & ~ad->speed_capa) != 0 ||
	    (fixed && !rte_is_power_of_2(want))) {
		PMD_LOG(ERR, "%s: link_speeds 0x%x: the %s takes %s of: %s",
			ad->dev->data->name, speeds,
			ch39x_chip_name(ad->prof.pid),
			fixed ? "exactly one (FIXED)" : "any set", capa);
		return -EINVAL;
	}
	ps->an = !fixed || want == RTE_ETH_LINK_SPEED_1G;
	for (i = 0; i < RTE_DIM(link_modes); i++) {
		if (!(want & link_modes[i].rte))
			continue;
		ps->anar |= link_modes[i].anar;
		ps->gbcr |= link_modes[i].gbcr;
		ps->bmcr |= link_modes[i].bmcr;
	}
	if (fixed && ps->an)
		PMD_LOG(INFO, "%s: 1000BASE-T needs autonegotiation: "
			"advertising 1G full alone", ad->dev->data->name);
	return 0;
}

/*
 * ch397_set_speed / ch398_set_speed: ANAR's 10/100 bits replaced with
 * selector 0x0001 and the pause bits kept, 1000BASE-T control, then BMCR
 * with autonegotiation restarted; forced, BMCR's speed and duplex bits.
 * The power-down bit stays as it is (link up/down is the application's).
 * Unless always, nothing is written when the PHY already has the
 * setting, so that a port restart does not renegotiate; and AUTONEG
 * (autoneg_all) keeps the PHY's own advertisement when it holds every
 * mode of speed_capa. Under ctrl_lock.
 */
static int
phy_setting_apply(struct ch39x_adapter *ad, const struct phy_setting *ps,
		  bool autoneg_all, bool always)
{
	const uint16_t spd = CH39X_BMCR_ANENABLE | CH39X_BMCR_SPEED100 |
		CH39X_BMCR_SPEED1000 | CH39X_BMCR_FULLDPLX;
	const uint16_t g_mask = CH39X_GBCR_1000HALF | CH39X_GBCR_1000FULL;
	uint16_t bmcr, anar, gbcr = 0, nanar, ngbcr;
	bool same;
	int rc;

	rc = rd_phy(ad, CH39X_PHY_BMCR, &bmcr);
	if (rc == 0)
		rc = rd_phy(ad, CH39X_PHY_ANAR, &anar);
	if (rc == 0 && ad->prof.gigabit)
		rc = rd_phy(ad, CH39X_PHY_GBCR, &gbcr);
	if (rc != 0)
		return rc;
	if (!ps->an) {
		if ((bmcr & spd) == ps->bmcr && !always)
			return 0;
		return wr_phy(ad, CH39X_PHY_BMCR, (uint16_t)
			      ((bmcr & CH39X_BMCR_PDOWN) | ps->bmcr));
	}
	nanar = (uint16_t)((anar & ~(CH39X_ADV_ALL_10_100 | 0x001F)) |
			   ps->anar | CH39X_ADV_CSMA);
	ngbcr = (uint16_t)((gbcr & ~g_mask) | ps->gbcr);
	if (autoneg_all)
		same = (anar & ps->anar) == ps->anar &&
			(gbcr & ps->gbcr) == ps->gbcr;
	else
		same = anar == nanar && gbcr == ngbcr;
	if (same && (bmcr & CH39X_BMCR_ANENABLE) && !always)
		return 0;
	rc = wr_phy(ad, CH39X_PHY_ANAR, nanar);
	if (rc == 0 && ad->prof.gigabit)
		rc = wr_phy(ad, CH39X_PHY_GBCR, ngbcr);
	if (rc == 0)
		rc = wr_phy(ad, CH39X_PHY_BMCR, (uint16_t)
			    ((bmcr & CH39X_BMCR_PDOWN) | CH39X_BMCR_ANENABLE |
			     CH39X_BMCR_ANRESTART));
	return rc;
}

static int
vendor_link_config(struct ch39x_adapter *ad, uint32_t speeds)
{
	struct phy_setting ps;
	int rc;

	rc = phy_setting_get(ad, speeds, &ps);
	if (rc != 0)
		return rc;
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = phy_setting_apply(ad, &ps,
			       speeds == RTE_ETH_LINK_SPEED_AUTONEG, false);
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

/* Whether the configured link is forced (events do not say). */
static bool
link_is_fixed(const struct ch39x_adapter *ad)
{
	uint32_t speeds = ad->dev->data->dev_conf.link_speeds;

	return (speeds & RTE_ETH_LINK_SPEED_FIXED) &&
		(speeds & ~RTE_ETH_LINK_SPEED_FIXED) != RTE_ETH_LINK_SPEED_1G;
}

/*
 * Speed and duplex from the MII registers, as Linux's
 * mii_ethtool_get_link_ksettings (which V1.7 uses) finds them: with
 * autonegotiation the best mode of ANAR & LPA (and of 1000BASE-T control
 * & status), else BMCR's forced bits. Under ctrl_lock; 0 or an errno.
 */
static int
phy_link_read(struct ch39x_adapter *ad, bool *up, uint32_t *speed,
	      bool *full, bool *an)
{
	uint16_t bmcr, bmsr, anar = 0, lpa = 0, gbcr = 0, gbsr = 0, nego;
	int rc;

	rc = rd_phy(ad, CH39X_PHY_BMCR, &bmcr);
	if (rc == 0)
		rc = rd_phy(ad, CH39X_PHY_BMSR, &bmsr);
	if (rc != 0)
		return rc;
	*up = (bmsr & CH39X_BMSR_LINK) != 0;
	*an = (bmcr & CH39X_BMCR_ANENABLE) != 0;
	if (!*an) {
		*speed = (bmcr & CH39X_BMCR_SPEED1000) ? 1000 :
			(bmcr & CH39X_BMCR_SPEED100) ? 100 : 10;
		*full = (bmcr & CH39X_BMCR_FULLDPLX) != 0;
		return 0;
	}
	rc = rd_phy(ad, CH39X_PHY_ANAR, &anar);
	if (rc == 0)
		rc = rd_phy(ad, CH39X_PHY_LPA, &lpa);
	if (rc == 0 && ad->prof.gigabit)
		rc = rd_phy(ad, CH39X_PHY_GBCR, &gbcr);
	if (rc == 0 && ad->prof.gigabit)
		rc = rd_phy(ad, CH39X_PHY_GBSR, &gbsr);
	if (rc != 0)
		return rc;
	if ((gbcr & CH39X_GBCR_1000FULL) && (gbsr & CH39X_GBSR_1000FULL)) {
		*speed = 1000;
		*full = true;
		return 0;
	}
	if ((gbcr & CH39X_GBCR_1000HALF) && (gbsr & CH39X_GBSR_1000HALF)) {
		*speed = 1000;
		*full = false;
		return 0;
	}
	nego = anar & lpa;
	if (nego & (CH39X_ADV_100FULL | CH39X_ADV_100HALF)) {
		*speed = 100;
		*full = (nego & CH39X_ADV_100FULL) != 0;
	} else {
		*speed = 10;
		*full = (nego & CH39X_ADV_10FULL) != 0;
	}
	return 0;
}

/* The link from the PHY (not started, or at start). */
static void
vendor_link_update(struct ch39x_adapter *ad)
{
	bool up = false, full = true, an = true;
	uint32_t speed = 0;

	pthread_mutex_lock(&ad->ctrl_lock);
	if (phy_link_read(ad, &up, &speed, &full, &an) != 0)
		up = false;
	pthread_mutex_unlock(&ad->ctrl_lock);
	ad->link_half = up && !full;
	ad->link_fixed = !an;
	ch39x_set_link(ad, up, speed);
}

/* BMCR bit 11: power the PHY down or up, which takes the link with it. */
static int
vendor_link_set(struct ch39x_adapter *ad, bool up)
{
	uint16_t bmcr;
	int rc;

	pthread_mutex_lock(&ad->ctrl_lock);
	rc = rd_phy(ad, CH39X_PHY_BMCR, &bmcr);
	if (rc == 0)
		rc = wr_phy(ad, CH39X_PHY_BMCR,
			    up ? (bmcr & ~CH39X_BMCR_PDOWN) :
			    (bmcr | CH39X_BMCR_PDOWN));
	pthread_mutex_unlock(&ad->ctrl_lock);
	return rc;
}

/*
 * Pause and asymmetric pause in ANAR, as pause_off says; the partner sees
 * them at the next autonegotiation. Probe, or with ctrl_lock held.
 */
static int
write_anar_pause(struct ch39x_adapter *ad)
{
	const uint16_t bits = CH39X_ADV_PAUSE | CH39X_ADV_ASYM_PAUSE;
	uint16_t anar;
	int rc;

	rc = rd_phy(ad, CH39X_PHY_ANAR, &anar);
	if (rc == 0)
		rc = wr_phy(ad, CH39X_PHY_ANAR, ad->pause_off ?
			    (anar & ~bits) : (anar | bits));
	return rc;
}

/* Pause frames: ANAR, and MAC_CFG's FLOWCTRL_EN with the receive mode. */
static int
vendor_pause(struct ch39x_adapter *ad, bool on)
{
	bool was_off = ad->pause_off;
	int rc;

	ad->pause_off = !on;
	pthread_mutex_lock(&ad->ctrl_lock);
	rc = write_anar_pause(ad);
	pthread_mutex_unlock(&ad->ctrl_lock);
	if (rc == 0)
		rc = ch39x_program_rx_mode(ad);
	if (rc != 0)
		ad->pause_off = was_off;
	return rc;
}

/*
 * An interrupt endpoint event (§6): link, speed, duplex, counters. After
 * a link drop a CH397 gets its PHY setting again, as V1.7 does (§6).
 */
static void
vendor_notify(struct ch39x_adapter *ad, const struct ch39x_xfer *x)
{
	bool was_up = ad->dev->data->dev_link.link_status;
	struct phy_setting ps;
	struct ch39x_event ev;
	uint32_t speeds;

	if (x->status != CH39X_XFER_OK ||
	    ch39x_event_parse(&ad->prof, x->buf, x->actual, &ev) != 0)
		return;
	ad->last_event = ev;
	ad->link_half = ev.link_up && !ev.full_duplex;
	ad->link_fixed = link_is_fixed(ad);
	ch39x_link_report(ad, ev.link_up, ev.speed_mbps);
	speeds = ad->dev->data->dev_conf.link_speeds;
	if (ad->prof.family != CH39X_V01 || ev.link_up || !was_up ||
	    phy_setting_get(ad, speeds, &ps) != 0)
		return;
	pthread_mutex_lock(&ad->ctrl_lock);
	/* ch397_set_speed writes whatever the PHY holds. */
	(void)phy_setting_apply(ad, &ps, false, true);
	pthread_mutex_unlock(&ad->ctrl_lock);
}

static int
vendor_fw_version(struct ch39x_adapter *ad, char *fw, size_t size)
{
	/* What the GET_INFO bytes mean is unknown (§9): show them raw. */
	return snprintf(fw, size, "%s GET_INFO %02x %02x %02x",
			ch39x_chip_name(ad->prof.pid), ad->get_info[0],
			ad->get_info[1], ad->get_info[2]);
}

static uint32_t
vendor_tx_max_frame(const struct ch39x_adapter *ad)
{
	return RTE_MIN(ad->prof.max_frame,
		       ad->prof.tx_xfer_size - CH39X_HDR_LEN);
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

	if (sz == 0)
		return;
	if (sz < one)
		PMD_LOG(INFO, "xfer_size=%u is below one %u-byte record: long "
			"frames will span bulk IN transfers", sz, one);
	ad->prof.rx_xfer_size = sz;
	ad->prof.tx_xfer_size = RTE_MIN(ad->prof.tx_xfer_size,
					RTE_MAX(sz, one));
}

/* What the chip does itself: the CH398 (V02) offloads, the CH397 not. */
static void
vendor_caps(struct ch39x_adapter *ad)
{
	const struct ch39x_profile *p = &ad->prof;

	ad->caps = CH39X_CAP_PHY;
	if (p->family == CH39X_V02)
		ad->caps |= CH39X_CAP_TX_CSUM | CH39X_CAP_RX_CSUM |
			CH39X_CAP_TSO | CH39X_CAP_VLAN_INSERT;
	if (p->family == CH39X_V02 && p->regs.misc_cfg != 0)
		ad->caps |= CH39X_CAP_VLAN_STRIP;
	ad->speed_capa = p->gigabit ?
		(RTE_ETH_LINK_SPEED_10M | RTE_ETH_LINK_SPEED_100M |
		 RTE_ETH_LINK_SPEED_1G) :
		(RTE_ETH_LINK_SPEED_10M_HD | RTE_ETH_LINK_SPEED_10M |
		 RTE_ETH_LINK_SPEED_100M_HD | RTE_ETH_LINK_SPEED_100M);
}

/* The address the chip holds, or the one the devargs or chance give it. */
static int
vendor_init_mac(struct ch39x_adapter *ad)
{
	const struct ch39x_regs *r = &ad->prof.regs;
	struct rte_ether_addr mac;
	uint32_t lo, hi;
	int rc;

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
		rc = write_mac_addr(ad, &mac);
	} else if (!rte_is_valid_assigned_ether_addr(&mac)) {
		rte_eth_random_addr(mac.addr_bytes);
		PMD_LOG(WARNING, "device has no valid MAC address; using "
			RTE_ETHER_ADDR_PRT_FMT, RTE_ETHER_ADDR_BYTES(&mac));
		rc = write_mac_addr(ad, &mac);
	}
	if (rc == 0)
		ad->mac_addr = mac;
	return rc;
}

/* Probe and reset, in V1.7's order (§7). */
static int
vendor_init(struct ch39x_adapter *ad)
{
	uint32_t v;
	uint16_t phy;
	int rc;

	if (ch39x_profile_init(&ad->prof, ad->info.pid, ad->info.speed) != 0) {
		PMD_LOG(ERR, "unsupported device %04x:%04x at bus speed %u",
			ad->info.vid, ad->info.pid, ad->info.speed);
		return -ENOTSUP;
	}
	if (ad->info.config_value != ad->prof.config_value) {
		PMD_LOG(ERR, "%s is in configuration %u, vendor mode is %u",
			ch39x_chip_name(ad->info.pid), ad->info.config_value,
			ad->prof.config_value);
		return -ENOTSUP;
	}
	vendor_caps(ad);
	if (ad->prof.family == CH39X_V02)
		rte_delay_us_sleep(10 * 1000);
	/* Two reads of MAC_CFG 100 ms apart: V1.7's liveness check. */
	rc = rd_reg(ad, ad->prof.regs.mac_cfg, 4, &v);
	if (rc == 0) {
		rte_delay_us_sleep(100 * 1000);
		rc = rd_reg(ad, ad->prof.regs.mac_cfg, 4, &v);
	}
	if (rc == 0)
		rc = vendor_init_mac(ad);
	if (rc == 0 && ad->prof.family == CH39X_V02) {
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
	rc = write_anar_pause(ad);
	if (rc == 0)
		apply_sizes(ad);
	return rc;
}

const struct ch39x_dev_ops ch39x_vendor_ops = {
	.name = "vendor",
	.init = vendor_init,
	.rx_mode = vendor_rx_mode,
	.set_mac = vendor_set_mac,
	.mtu = vendor_mtu,
	.pause = vendor_pause,
	.vlan_strip = vendor_vlan_strip,
	.link_update = vendor_link_update,
	.link_set = vendor_link_set,
	.link_config = vendor_link_config,
	.notify = vendor_notify,
	.fw_version = vendor_fw_version,
	.tx_max_frame = vendor_tx_max_frame,
	.rx_parsed = ch39x_rx_parsed_vendor,
	.rx_burst = ch39x_rx_burst_vendor,
	.tx_burst = ch39x_tx_burst_vendor,
};
