/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated adapter's PHY: the IEEE 802.3 clause 22 registers behind
 * the PHY window (§2), the MMD window of the CH397 and the extended window
 * of the CH398, and autonegotiation between the two ends of the cable.
 * "§N" cites section N of doc/guides/nics/ch39x_protocol.rst; ASSUMPTION
 * marks what that document lists as unknown (§9).
 *
 * Registers are answered from two sources: what the host wrote (BMCR,
 * ANAR, 1000BASE-T control, the EEE advertisement) and the link that
 * sim_link_resolve() found for the cable (BMSR, LPA, ANER, 1000BASE-T
 * status, the partner's EEE ability), so that a driver which derives the
 * speed from the registers (Linux's mii_ethtool_get_link_ksettings, as
 * V1.7 does) sees the link the cable really has.
 */

#include <string.h>

#include "ch39x_sim_priv.h"

/*
 * ASSUMPTION: the PHY identifiers are unknown; the model answers WCH's
 * USB vendor ID and the chip's number so that a reader can tell it.
 */
#define SIM_PHYID1		0x1A86
#define SIM_PHYID2_CH397	0x0397
#define SIM_PHYID2_CH398	0x0398
/* BMSR without its link and autonegotiation-complete bits. */
#define SIM_BMSR_10_100		0x7849	/* 10/100 HD+FD, MF preamble, AN, ext */
#define SIM_BMSR_ESTATEN	0x0100	/* extended status (1000BASE-T) */
#define SIM_ESTATUS_1000T	0x3000	/* 1000BASE-T FD and HD */
/*
 * ASSUMPTION: the CH398's register 0x10 reads 0x0003, EEE at both 100M and
 * 1000M (§2 and §10 disagree on which bit is which; both set fits both).
 */
#define SIM_CH398_EEE_CAP	0x0003
/* ASSUMPTION: the CH397's page 4 register 0x10 has bit 13 (10M EEE) set. */
#define SIM_CH397_PAGE4_EEE	0x2000

/* The register number of a PHY window wIndex (§2), or -1. */
int
sim_phy_reg(uint16_t windex)
{
	if (windex <= 31)
		return windex;				/* V1.7 */
	if ((windex & ~0x1Fu) == CH39X_PHY_WINDEX_V13)
		return windex & 0x1F;			/* V1.3 */
	return -1;
}

/* The power-up PHY. */
void
sim_phy_init(struct sim_dev *s)
{
	bool g = s->prof.gigabit;

	memset(s->phy, 0, sizeof(s->phy));
	/* Autonegotiation on; the speed bits show the best forced mode. */
	s->phy[CH39X_PHY_BMCR] = g ? 0x1140 : 0x3100;
	s->phy[CH39X_PHY_ANAR] = CH39X_ADV_ALL_10_100 | CH39X_ADV_CSMA;
	s->phy[CH39X_PHY_GBCR] = g ? CH39X_GBCR_1000FULL : 0;
	s->an_anar = s->phy[CH39X_PHY_ANAR];
	s->an_gbcr = s->phy[CH39X_PHY_GBCR];
	s->phy_page = 0;
	s->mmd_ctrl = 0;
	memset(s->mmd_addr, 0, sizeof(s->mmd_addr));
	s->mmd_eee_adv = 0;
	s->ext_addr = 0;
}

/* A new autonegotiation: the advertisement as the registers hold it now. */
void
sim_phy_an_restart(struct sim_dev *s)
{
	s->an_anar = s->phy[CH39X_PHY_ANAR];
	s->an_gbcr = s->prof.gigabit ? s->phy[CH39X_PHY_GBCR] : 0;
}

static uint8_t
anar_modes(uint16_t anar, uint16_t gbcr)
{
	uint8_t m = 0;

	if (anar & CH39X_ADV_10HALF)
		m |= SIM_M10H;
	if (anar & CH39X_ADV_10FULL)
		m |= SIM_M10F;
	if (anar & CH39X_ADV_100HALF)
		m |= SIM_M100H;
	if (anar & CH39X_ADV_100FULL)
		m |= SIM_M100F;
	if (gbcr & CH39X_GBCR_1000HALF)
		m |= SIM_M1000H;
	if (gbcr & CH39X_GBCR_1000FULL)
		m |= SIM_M1000F;
	return m;
}

/* The one mode BMCR forces, or 0 for the reserved speed code. */
static uint8_t
bmcr_mode(uint16_t bmcr, bool gigabit)
{
	bool full = bmcr & CH39X_BMCR_FULLDPLX;

	switch (bmcr & (CH39X_BMCR_SPEED100 | CH39X_BMCR_SPEED1000)) {
	case 0:
		return full ? SIM_M10F : SIM_M10H;
	case CH39X_BMCR_SPEED100:
		return full ? SIM_M100F : SIM_M100H;
	case CH39X_BMCR_SPEED1000:
		if (!gigabit)
			return 0;
		return full ? SIM_M1000F : SIM_M1000H;
	default:
		return 0;
	}
}

/* What this end offers the cable now (under s->lock). */
void
sim_phy_adv(const struct sim_dev *s, struct sim_phy_adv *a)
{
	uint16_t bmcr = s->phy[CH39X_PHY_BMCR];

	memset(a, 0, sizeof(*a));
	a->on = s->cable && phy_on(s) &&
		!__atomic_load_n(&s->unplugged, __ATOMIC_RELAXED);
	a->an = (bmcr & CH39X_BMCR_ANENABLE) != 0;
	a->modes = a->an ? anar_modes(s->an_anar, s->an_gbcr) :
		bmcr_mode(bmcr, s->prof.gigabit);
	a->pause = (uint8_t)((s->an_anar >> 10) & 3);
	if (s->prof.family == CH39X_V02) {
		uint16_t e = s->phy[CH39X_PHY_CH398_EEE_ADV];

		a->eee = (uint8_t)(((e & 1) ? CH39X_EEE_100TX : 0) |
				   ((e & 2) ? CH39X_EEE_1000T : 0));
	} else {
		a->eee = (uint8_t)(s->mmd_eee_adv & CH39X_EEE_100TX);
	}
	a->cap_mbps = (uint16_t)s->cfg.link_mbps;
}

/*
 * The far end of a pcap or TAP cable, or of a plugged cable without an
 * adapter model behind it. ASSUMPTION: a common gigabit PHY that
 * autonegotiates every mode up to the cable's speed, both pause bits and
 * EEE.
 */
void
sim_phy_generic_partner(uint16_t cap_mbps, struct sim_phy_adv *a)
{
	memset(a, 0, sizeof(*a));
	a->on = true;
	a->an = true;
	a->modes = SIM_M10H | SIM_M10F | SIM_M100H | SIM_M100F |
		SIM_M1000H | SIM_M1000F;
	a->pause = 3;
	a->eee = CH39X_EEE_100TX | CH39X_EEE_1000T;
	a->cap_mbps = cap_mbps;
}

static uint32_t
mode_speed(uint8_t m)
{
	if (m & (SIM_M1000H | SIM_M1000F))
		return 1000;
	if (m & (SIM_M100H | SIM_M100F))
		return 100;
	return 10;
}

static bool
mode_full(uint8_t m)
{
	return (m & (SIM_M10F | SIM_M100F | SIM_M1000F)) != 0;
}

/* The modes a cable of cap Mbit/s carries. */
static uint8_t
cap_modes(uint32_t cap)
{
	if (cap >= 1000)
		return 0x3F;
	if (cap >= 100)
		return SIM_M10H | SIM_M10F | SIM_M100H | SIM_M100F;
	return SIM_M10H | SIM_M10F;
}

/* The highest common mode: the bits are in IEEE 802.3 Annex 28B order. */
static uint8_t
best_mode(uint8_t m)
{
	int i;

	for (i = 5; i >= 0; i--)
		if (m & (1u << i))
			return (uint8_t)(1u << i);
	return 0;
}

static uint32_t
link_word_make(uint8_t mode, uint32_t flags)
{
	flags |= SIM_LK_UP | (mode_full(mode) ? SIM_LK_FULL : 0);
	return flags | (mode_speed(mode) << SIM_LK_SPEED_SHIFT);
}

/*
 * The link end a sees with partner b on the cable, as real PHYs resolve
 * it:
 * - both autonegotiate: the highest mode both advertise (IEEE 802.3
 *   28B.3), none in common: no link;
 * - a autonegotiates, b is forced: a finds b's speed by parallel
 *   detection (28.2.3.1) when it advertises that speed, and runs it at
 *   HALF duplex, whatever b's duplex; 1000BASE-T cannot be detected that
 *   way (40.5.1 needs autonegotiation for master/slave), so no link;
 * - a is forced, b autonegotiates: the mirror image, a at its forced
 *   mode;
 * - both forced: a link when the speeds agree (each end keeps its own
 *   duplex, so a duplex mismatch is possible, as on real cables), none
 *   otherwise; forced 1000 never links.
 * The cable carries modes up to the slower end's cap_mbps (the devarg
 * link_speed).
 */
uint32_t
sim_link_resolve(const struct sim_phy_adv *a, const struct sim_phy_adv *b,
		 bool master)
{
	uint8_t cm = cap_modes(a->cap_mbps < b->cap_mbps ? a->cap_mbps :
			       b->cap_mbps);
	uint8_t m, half, lp;
	uint32_t flags;

	if (!a->on || !b->on)
		return 0;
	if (a->an && b->an) {
		m = best_mode(a->modes & b->modes & cm);
		if (m == 0)
			return 0;
		lp = b->modes & cm;
		flags = SIM_LK_ANC | SIM_LK_LP_AN |
			((uint32_t)b->pause << SIM_LK_LP_PAUSE_SHIFT) |
			((uint32_t)b->eee << SIM_LK_LP_EEE_SHIFT) |
			((uint32_t)lp << SIM_LK_LP_MODES_SHIFT);
		if (mode_speed(m) == 1000 && master)
			flags |= SIM_LK_MASTER;
		return link_word_make(m, flags);
	}
	m = a->an ? b->modes : a->modes;
	if (m == 0 || (m & cm) == 0 || mode_speed(m) == 1000)
		return 0;
	/* The half-duplex mode of the forced end's speed. */
	half = m & (SIM_M10H | SIM_M10F) ? SIM_M10H : SIM_M100H;
	if (a->an) {
		/* Parallel detection needs the speed in a's advertisement. */
		if ((a->modes & (half | (uint8_t)(half << 1))) == 0)
			return 0;
		return link_word_make(half, SIM_LK_ANC |
				      ((uint32_t)half << SIM_LK_LP_MODES_SHIFT));
	}
	if (b->an) {
		if ((b->modes & (half | (uint8_t)(half << 1))) == 0)
			return 0;
		return link_word_make(a->modes, 0);
	}
	if (mode_speed(a->modes) != mode_speed(b->modes))
		return 0;
	return link_word_make(a->modes, 0);
}

/* ---- the registers ---- */

static uint16_t
bmsr_read(const struct sim_dev *s, uint32_t lk)
{
	uint16_t v = SIM_BMSR_10_100;

	if (s->prof.gigabit)
		v |= SIM_BMSR_ESTATEN;
	if (lk & SIM_LK_UP)
		v |= CH39X_BMSR_LINK;
	if ((lk & SIM_LK_UP) && (lk & SIM_LK_ANC) &&
	    (s->phy[CH39X_PHY_BMCR] & CH39X_BMCR_ANENABLE))
		v |= CH39X_BMSR_ANEGCOMPLETE;
	return v;
}

/* LPA: the partner's base page, or the mode parallel detection found. */
static uint16_t
lpa_read(const struct sim_dev *s, uint32_t lk)
{
	uint8_t lp = (uint8_t)((lk >> SIM_LK_LP_MODES_SHIFT) & 0x3F);
	uint16_t v = 0;

	if (!(lk & SIM_LK_UP) || !(lk & SIM_LK_ANC) ||
	    !(s->phy[CH39X_PHY_BMCR] & CH39X_BMCR_ANENABLE))
		return 0;
	if (lp & SIM_M10H)
		v |= CH39X_ADV_10HALF;
	if (lp & SIM_M10F)
		v |= CH39X_ADV_10FULL;
	if (lp & SIM_M100H)
		v |= CH39X_ADV_100HALF;
	if (lp & SIM_M100F)
		v |= CH39X_ADV_100FULL;
	if (!(lk & SIM_LK_LP_AN))
		return v;
	v |= CH39X_ADV_CSMA | CH39X_LPA_ACK |
		(uint16_t)(((lk >> SIM_LK_LP_PAUSE_SHIFT) & 3) << 10);
	/* 1000BASE-T abilities travel in next pages. */
	if (lp & (SIM_M1000H | SIM_M1000F))
		v |= CH39X_ADV_NPAGE;
	return v;
}

static uint16_t
aner_read(const struct sim_dev *s, uint32_t lk)
{
	uint16_t v = s->prof.gigabit ? CH39X_ANER_NP_ABLE : 0;
	uint8_t lp = (uint8_t)((lk >> SIM_LK_LP_MODES_SHIFT) & 0x3F);

	if ((lk & SIM_LK_UP) && (lk & SIM_LK_LP_AN) &&
	    (s->phy[CH39X_PHY_BMCR] & CH39X_BMCR_ANENABLE)) {
		v |= CH39X_ANER_LP_AN_ABLE | CH39X_ANER_PAGE_RX;
		if (lp & (SIM_M1000H | SIM_M1000F))
			v |= CH39X_ANER_LP_NP_ABLE;
	}
	return v;
}

static uint16_t
gbsr_read(const struct sim_dev *s, uint32_t lk)
{
	uint8_t lp = (uint8_t)((lk >> SIM_LK_LP_MODES_SHIFT) & 0x3F);
	uint16_t v = 0;

	if (!s->prof.gigabit || !(lk & SIM_LK_UP) || !(lk & SIM_LK_LP_AN) ||
	    !(s->phy[CH39X_PHY_BMCR] & CH39X_BMCR_ANENABLE))
		return 0;
	if (lp & SIM_M1000H)
		v |= CH39X_GBSR_1000HALF;
	if (lp & SIM_M1000F)
		v |= CH39X_GBSR_1000FULL;
	if ((lk >> SIM_LK_SPEED_SHIFT) == 1000)
		v |= CH39X_GBSR_LOCAL_OK | CH39X_GBSR_REMOTE_OK |
			((lk & SIM_LK_MASTER) ? CH39X_GBSR_MASTER : 0);
	return v;
}

/* The partner's EEE ability in the MMD 7.61 layout, once negotiated. */
static uint16_t
lp_eee(const struct sim_dev *s, uint32_t lk)
{
	if (!(lk & SIM_LK_UP) || !(lk & SIM_LK_LP_AN) ||
	    !(s->phy[CH39X_PHY_BMCR] & CH39X_BMCR_ANENABLE))
		return 0;
	return (uint16_t)((lk >> SIM_LK_LP_EEE_SHIFT) & 7);
}

/* An MMD register of the CH397 (IEEE 802.3 45.2.3.9, 45.2.7.13-14). */
static uint16_t
mmd_read(const struct sim_dev *s, unsigned int devad, uint16_t reg,
	 uint32_t lk)
{
	if (devad == CH39X_MMD_PCS && reg == CH39X_MMD_PCS_EEE_CAP)
		return CH39X_EEE_100TX;
	if (devad == CH39X_MMD_AN && reg == CH39X_MMD_AN_EEE_ADV)
		return s->mmd_eee_adv;
	if (devad == CH39X_MMD_AN && reg == CH39X_MMD_AN_EEE_LPABLE)
		return lp_eee(s, lk) & CH39X_EEE_100TX;
	return 0;
}

static void
mmd_write(struct sim_dev *s, unsigned int devad, uint16_t reg, uint16_t v)
{
	if (devad == CH39X_MMD_AN && reg == CH39X_MMD_AN_EEE_ADV) {
		s->mmd_eee_adv = v & CH39X_EEE_100TX;
		sim_update_up(s);
	}
}

/* A CH398 extended register (window: address in 0x0E, data in 0x0D). */
static uint16_t
ext_read(const struct sim_dev *s, uint16_t addr, uint32_t lk)
{
	if (addr == CH39X_PHY_CH398_EXT_LP_EEE)
		return lp_eee(s, lk);
	return 0;
}

/*
 * Registers 13 and 14: on the CH397 the standard MMD access (22.2.4.3.11:
 * the MMD in 13, then its register address in 14, then 13 with function
 * "data" and the data in 14); on the CH398 the vendor's extended window
 * (§2: the address written to 0x0E, the data read from 0x0D).
 */
static bool
window_read(struct sim_dev *s, unsigned int reg, uint32_t lk, uint16_t *v)
{
	unsigned int devad = s->mmd_ctrl & CH39X_MMD_DEVAD_MASK;

	if (reg != CH39X_PHY_MMD_CTRL && reg != CH39X_PHY_MMD_DATA)
		return false;
	if (s->prof.family == CH39X_V02) {
		*v = reg == CH39X_PHY_MMD_DATA ? s->ext_addr :
			ext_read(s, s->ext_addr, lk);
		return true;
	}
	if (reg == CH39X_PHY_MMD_CTRL)
		*v = s->mmd_ctrl;
	else if (s->mmd_ctrl & 0xC000)
		*v = mmd_read(s, devad, s->mmd_addr[devad], lk);
	else
		*v = s->mmd_addr[devad];
	return true;
}

static bool
window_write(struct sim_dev *s, unsigned int reg, uint16_t v)
{
	unsigned int devad = s->mmd_ctrl & CH39X_MMD_DEVAD_MASK;

	if (reg != CH39X_PHY_MMD_CTRL && reg != CH39X_PHY_MMD_DATA)
		return false;
	if (s->prof.family == CH39X_V02) {
		if (reg == CH39X_PHY_MMD_DATA)
			s->ext_addr = v;
		return true;	/* the extended registers modelled are read-only */
	}
	if (reg == CH39X_PHY_MMD_CTRL) {
		s->mmd_ctrl = v;
	} else if (s->mmd_ctrl & 0xC000) {
		mmd_write(s, devad, s->mmd_addr[devad], v);
		/* Functions 10 and 11 increment the address after data. */
		if (s->mmd_ctrl & 0x8000)
			s->mmd_addr[devad]++;
	} else {
		s->mmd_addr[devad] = v;
	}
	return true;
}

/* A PHY register through the window (under s->lock). */
uint16_t
sim_phy_read(struct sim_dev *s, unsigned int reg)
{
	uint32_t lk = link_word(s);
	bool g = s->prof.gigabit;
	uint16_t v;

	if (window_read(s, reg, lk, &v))
		return v;
	switch (reg) {
	case CH39X_PHY_BMSR:
		return bmsr_read(s, lk);
	case CH39X_PHY_PHYID1:
		return SIM_PHYID1;
	case CH39X_PHY_PHYID2:
		return g ? SIM_PHYID2_CH398 : SIM_PHYID2_CH397;
	case CH39X_PHY_LPA:
		return lpa_read(s, lk);
	case CH39X_PHY_ANER:
		return aner_read(s, lk);
	case CH39X_PHY_GBCR:
		return g ? s->phy[reg] : 0;
	case CH39X_PHY_GBSR:
		return gbsr_read(s, lk);
	case CH39X_PHY_ESTATUS:
		return g ? SIM_ESTATUS_1000T : 0;
	case CH39X_PHY_CH398_EEE_CAP:
		if (s->prof.family == CH39X_V02)
			return SIM_CH398_EEE_CAP;
		return s->phy_page == 4 ? SIM_CH397_PAGE4_EEE : s->phy[reg];
	case CH39X_PHY_CH397_PAGE:
		return s->prof.family == CH39X_V01 ? s->phy_page : s->phy[reg];
	default:
		return s->phy[reg];
	}
}

static void
bmcr_write(struct sim_dev *s, uint16_t v)
{
	uint16_t old = s->phy[CH39X_PHY_BMCR];

	if (v & CH39X_BMCR_RESET) {
		/* Every register back to its power-up value; self-clears. */
		sim_phy_init(s);
		v = s->phy[CH39X_PHY_BMCR];
	}
	/* The restart bit self-clears at once: negotiation is instant. */
	__atomic_store_n(&s->phy[CH39X_PHY_BMCR],
			 (uint16_t)(v & ~(CH39X_BMCR_RESET |
					  CH39X_BMCR_ANRESTART)),
			 __ATOMIC_RELAXED);
	/*
	 * A new negotiation takes the advertisement written since the last
	 * one: on a restart, when autonegotiation is switched on, and when
	 * the PHY comes out of power down or isolation.
	 */
	if ((v & CH39X_BMCR_ANRESTART) ||
	    ((v & CH39X_BMCR_ANENABLE) && !(old & CH39X_BMCR_ANENABLE)) ||
	    ((old & (CH39X_BMCR_PDOWN | CH39X_BMCR_ISOLATE)) &&
	     !(v & (CH39X_BMCR_PDOWN | CH39X_BMCR_ISOLATE))))
		sim_phy_an_restart(s);
	sim_update_up(s);
}

/* A PHY register through the window (under s->lock). */
void
sim_phy_write(struct sim_dev *s, unsigned int reg, uint16_t v)
{
	if (window_write(s, reg, v))
		return;
	switch (reg) {
	case CH39X_PHY_BMCR:
		bmcr_write(s, v);
		return;
	case CH39X_PHY_BMSR:
	case CH39X_PHY_PHYID1:
	case CH39X_PHY_PHYID2:
	case CH39X_PHY_LPA:
	case CH39X_PHY_ANER:
	case CH39X_PHY_GBSR:
	case CH39X_PHY_ESTATUS:
		return;		/* read-only */
	case CH39X_PHY_GBCR:
		if (s->prof.gigabit)
			s->phy[reg] = v;
		return;		/* no such register on a 10/100 PHY */
	case CH39X_PHY_CH398_EEE_CAP:
		if (s->prof.family == CH39X_V02 || s->phy_page == 4)
			return;	/* read-only */
		break;
	case CH39X_PHY_CH397_PAGE:
		if (s->prof.family == CH39X_V01) {
			s->phy_page = v;
			return;
		}
		break;
	case CH39X_PHY_CH398_EEE_ADV:
		if (s->prof.family == CH39X_V02) {
			s->phy[reg] = v;
			/* ASSUMPTION: EEE abilities reach the partner at once. */
			sim_update_up(s);
			return;
		}
		break;
	default:
		break;
	}
	s->phy[reg] = v;
}
