/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_VENDOR_H
#define CH39X_VENDOR_H

/*
 * The WCH CH397/CH398 vendor-mode framing codec: pure functions over
 * buffers, shaped like Linux usbnet's rx_fixup/tx_fixup hooks. Every
 * constant and rule comes from doc/guides/nics/ch39x_protocol.rst
 * (cited "§N"); the section is cited next to each one.
 *
 * Nothing here knows USB transfers, threads or EAL: the PMD, the simulated
 * adapter and the unit tests all use the same code.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ch39x_le.h"

#define CH39X_VID		0x1A86

/* §1: PIDs. */
#define CH39X_PID_CH336		0x5394
#define CH39X_PID_CH339		0x5395
#define CH39X_PID_CH396		0x5396
#define CH39X_PID_CH397		0x5397
#define CH39X_PID_CH398		0x5398
#define CH39X_PID_CH9153	0xE398

/* §2: vendor requests. */
#define CH39X_REQT_IN		0xC0
#define CH39X_REQT_OUT		0x40
#define CH39X_REQ_GET_INFO	0x10
#define CH39X_REQ_RD_REG	0x11
#define CH39X_REQ_WR_REG	0x12
#define CH39X_REQ_RD_PHY	0x15
#define CH39X_REQ_WR_PHY	0x16
#define CH39X_REQ_RESET		0x18
#define CH39X_REQ_WR_MACCFG	0x1E
#define CH39X_REQ_MISC_CONFIG	0x21
#define CH39X_GET_INFO_LEN	8
/* GET_INFO byte 2 at or above this selects command 0x1E for MAC_CFG. */
#define CH39X_INFO_MACCFG_CMD_MIN 0x37
/*
 * PHY window (§2): wValue 0x0740 and wIndex = PHY register (V1.7 form), or
 * wIndex = 0x4000 | register (V1.3 form).
 */
#define CH39X_PHY_WVALUE	0x0740
#define CH39X_PHY_WINDEX_V13	0x4000

/* Standard (IEEE 802.3 clause 22) PHY registers (§2). */
#define CH39X_PHY_BMCR		0
#define CH39X_PHY_BMSR		1
#define CH39X_PHY_PHYID1	2
#define CH39X_PHY_PHYID2	3
#define CH39X_PHY_ANAR		4
#define CH39X_PHY_LPA		5
#define CH39X_PHY_ANER		6
#define CH39X_PHY_GBCR		9	/* 1000BASE-T control (V02) */
#define CH39X_PHY_GBSR		10	/* 1000BASE-T status (V02) */
#define CH39X_PHY_MMD_CTRL	13	/* 0x0D */
#define CH39X_PHY_MMD_DATA	14	/* 0x0E */
#define CH39X_PHY_ESTATUS	15
/* Vendor PHY registers (§2). */
#define CH39X_PHY_CH398_EEE_CAP	0x10	/* bits 0-1: EEE at 100M/1000M */
#define CH39X_PHY_CH398_EEE_ADV	0x12	/* bits 0-1: advertise EEE */
#define CH39X_PHY_CH397_PAGE	0x1F	/* page select, 0 or 4 */
/* CH398 extended register: link partner EEE ability, MMD 7.61 layout. */
#define CH39X_PHY_CH398_EXT_LP_EEE 0x00DB

/* BMCR bits. */
#define CH39X_BMCR_RESET	(1u << 15)
#define CH39X_BMCR_LOOPBACK	(1u << 14)
#define CH39X_BMCR_SPEED100	(1u << 13)
#define CH39X_BMCR_ANENABLE	(1u << 12)
#define CH39X_BMCR_PDOWN	(1u << 11)
#define CH39X_BMCR_ISOLATE	(1u << 10)
#define CH39X_BMCR_ANRESTART	(1u << 9)
#define CH39X_BMCR_FULLDPLX	(1u << 8)
#define CH39X_BMCR_SPEED1000	(1u << 6)
/* BMSR bits. */
#define CH39X_BMSR_ANEGCOMPLETE	(1u << 5)
#define CH39X_BMSR_LINK		(1u << 2)
/* ANAR and LPA bits. */
#define CH39X_ADV_CSMA		0x0001u	/* selector: IEEE 802.3 */
#define CH39X_ADV_10HALF	0x0020u
#define CH39X_ADV_10FULL	0x0040u
#define CH39X_ADV_100HALF	0x0080u
#define CH39X_ADV_100FULL	0x0100u
#define CH39X_ADV_ALL_10_100	0x01E0u
#define CH39X_ADV_PAUSE		0x0400u
#define CH39X_ADV_ASYM_PAUSE	0x0800u
#define CH39X_LPA_ACK		0x4000u
#define CH39X_ADV_NPAGE		0x8000u
/* GBCR and GBSR bits. */
#define CH39X_GBCR_1000HALF	0x0100u
#define CH39X_GBCR_1000FULL	0x0200u
#define CH39X_GBSR_1000HALF	0x0400u	/* partner advertises */
#define CH39X_GBSR_1000FULL	0x0800u
#define CH39X_GBSR_REMOTE_OK	0x1000u
#define CH39X_GBSR_LOCAL_OK	0x2000u
#define CH39X_GBSR_MASTER	0x4000u
/* ANER bits. */
#define CH39X_ANER_LP_AN_ABLE	0x0001u
#define CH39X_ANER_PAGE_RX	0x0002u
#define CH39X_ANER_NP_ABLE	0x0004u
#define CH39X_ANER_LP_NP_ABLE	0x0008u
/* MMD access control (register 13): function in bits 15..14. */
#define CH39X_MMD_FN_DATA	0x4000u
#define CH39X_MMD_DEVAD_MASK	0x001Fu
/* MMD 7 (autonegotiation) EEE registers, MMD 3 (PCS) EEE capability. */
#define CH39X_MMD_PCS		3
#define CH39X_MMD_PCS_EEE_CAP	20
#define CH39X_MMD_AN		7
#define CH39X_MMD_AN_EEE_ADV	60
#define CH39X_MMD_AN_EEE_LPABLE	61
#define CH39X_EEE_100TX		0x0002u	/* in all three */
#define CH39X_EEE_1000T		0x0004u

/* §3: MAC_CFG bits, same on V01 and V02. */
#define CH39X_MACCFG_FLOWCTRL	(1u << 11)
#define CH39X_MACCFG_RWTE	(1u << 12)
#define CH39X_MACCFG_RX_RA	(1u << 19)
#define CH39X_MACCFG_RX_PAM	(1u << 20)
#define CH39X_MACCFG_RX_PUF	(1u << 21)
#define CH39X_MACCFG_RX_PBD	(1u << 22)
#define CH39X_MACCFG_RX_PLM	(1u << 23)
#define CH39X_MACCFG_RX_MASK	0x00F80000u
/* MISC_CFG (V02) bit 13: strip the VLAN tag on receive. */
#define CH39X_MISCCFG_VLAN_STRIP (1u << 13)
/* More multicast addresses than this fall back to pass-all-multicast. */
#define CH39X_MC_HASH_MAX_ADDRS	12
/* V02 jumbo bit threshold: set when the MTU exceeds 2048 - 8. */
#define CH39X_JUMBO_MTU_MIN	2041

enum ch39x_family {
	CH39X_V01 = 1,	/* CH336, CH339, CH396, CH397 */
	CH39X_V02 = 2,	/* CH398, CH9153 */
};

enum ch39x_usb_speed {
	CH39X_SPEED_FULL = 1,
	CH39X_SPEED_HIGH = 2,
	CH39X_SPEED_SUPER = 3,
};

/* Register addresses of one family (§3). */
struct ch39x_regs {
	uint32_t mac_cfg;
	uint32_t mac_h;
	uint32_t mac_l;
	uint32_t hash_hi;
	uint32_t hash_lo;
	uint32_t macier;
	uint32_t misc_cfg;	/* 0 when the family has none */
};

/*
 * Everything the codec needs to know about one adapter at one bus speed:
 * the capability table of §1, §4, §5, §7 and §8, as data.
 */
struct ch39x_profile {
	enum ch39x_family family;
	enum ch39x_usb_speed speed;
	uint16_t pid;
	uint8_t config_value;		/* bConfigurationValue */
	uint16_t bulk_maxp;		/* bulk OUT wMaxPacketSize */
	bool one_frame_per_xfer;	/* CH336/CH339 TX quirk */
	bool tx_ls;			/* V02 at high/full speed */
	bool tx_zlp;			/* V01 */
	bool gigabit;			/* 10/100/1000 PHY (V02) */
	uint32_t tx_xfer_size;		/* aggregate limit, trailer excluded */
	uint32_t rx_xfer_size;
	uint16_t tx_xfers;
	uint16_t rx_xfers;
	uint32_t max_frame;		/* longest RX frame, no FCS */
	uint16_t max_mtu;
	uint16_t min_mtu;
	uint16_t intr_len;		/* bytes of an interrupt event */
	struct ch39x_regs regs;
};

/*
 * Fill a profile for a PID at a bus speed. Returns 0, or -1 when the PID is
 * not a CH39x vendor-mode part or the speed is not supported by it.
 */
int ch39x_profile_init(struct ch39x_profile *p, uint16_t pid,
		       enum ch39x_usb_speed speed);
const char *ch39x_chip_name(uint16_t pid);

/* ---- RX (bulk IN) ---- */

#define CH39X_HDR_LEN		8
#define CH39X_MIN_FRAME		60
#define CH39X_V01_MAX_FRAME	1518
#define CH39X_V02_MAX_FRAME	9216

/* cmd_1 bits of a V02 RX record (§4). */
#define CH39X_RX_UDP4_CHK	(1u << 0)
#define CH39X_RX_UDP6_CHK	(1u << 1)
#define CH39X_RX_TCP4_CHK	(1u << 2)
#define CH39X_RX_TCP6_CHK	(1u << 3)
#define CH39X_RX_IP_ERR		(1u << 7)
#define CH39X_RX_TCP_ERR	(1u << 8)
#define CH39X_RX_UDP_ERR	(1u << 9)
#define CH39X_RX_VLAN		(1u << 15)

/* What the parser says about a frame's checksums. */
enum ch39x_csum {
	CH39X_CSUM_UNKNOWN = 0,
	CH39X_CSUM_GOOD,
	CH39X_CSUM_BAD,
};

struct ch39x_rx_frame {
	const uint8_t *data;	/* valid until the next parser call */
	uint32_t len;		/* frame bytes, no FCS */
	uint32_t info;		/* raw cmd_1 (V02), 0 on V01 */
	uint16_t vlan_tci;	/* when vlan_stripped */
	bool vlan_stripped;
	enum ch39x_csum ip_csum;
	enum ch39x_csum l4_csum;
	bool straddled;		/* reassembled across transfers */
};

/*
 * The checksum bits of cmd_1 (0-3, 7, 8, 9) as an index of the parser's
 * decode table, and the table's entries: ip_csum | l4_csum << 2.
 */
#define CH39X_RX_CSUM_IDX(info)	(((info) & 0xFu) | (((info) >> 3) & 0x70u))
#define CH39X_RX_CSUM_TAB	128

struct ch39x_rx_stats {
	uint64_t frames;
	uint64_t frame_bytes;
	uint64_t bad_headers;	/* malformed length: rest of transfer dropped */
	uint64_t straddled;	/* records completed from two or more transfers */
	uint64_t carry_lost;	/* partial records abandoned */
	uint64_t short_xfers;	/* transfers with bytes but too few to parse */
	uint64_t truncated;	/* short transfers ending inside a record */
};

/*
 * The RX parser. A record that does not end inside its transfer is carried
 * into a private buffer and completed from the start of the next one, as the
 * V1.3 driver saw with small buffers (§4). A malformed header
 * drops the rest of its transfer; parsing resynchronises at offset 0 of the
 * next transfer, which is the only place a header is known to start.
 */
struct ch39x_rx_parser {
	const struct ch39x_profile *prof;
	const uint8_t *buf;
	uint32_t len;
	uint32_t off;
	uint32_t carry_len;	/* bytes held in carry */
	uint32_t carry_need;	/* total padded record bytes, 0 = unknown yet */
	bool short_xfer;	/* the transfer ended before its buffer did */
	struct ch39x_rx_stats stats;
	uint8_t csum_tab[CH39X_RX_CSUM_TAB];	/* ch39x_rx_decode_fast() */
	uint8_t carry[CH39X_HDR_LEN + CH39X_V02_MAX_FRAME + 4];
};

void ch39x_rx_parser_init(struct ch39x_rx_parser *ps,
			  const struct ch39x_profile *prof);
/* Start parsing one completed bulk IN transfer of len bytes. */
void ch39x_rx_begin(struct ch39x_rx_parser *ps, const uint8_t *buf,
		    uint32_t len);
/*
 * Say that the current transfer is short: the device ended it before the
 * buffer was full. A device only splits a record over transfers when it
 * fills one, so a short transfer that ends inside a record was truncated:
 * that record is counted and dropped instead of carried.
 */
void ch39x_rx_mark_short(struct ch39x_rx_parser *ps);
/* Forget a partial record, e.g. after a failed transfer or at stop. */
void ch39x_rx_reset(struct ch39x_rx_parser *ps);

/* Decode the V02 cmd_1 flags into a frame's checksum and VLAN fields. */
void ch39x_rx_decode_info(struct ch39x_rx_frame *f, uint32_t info);

/*
 * ch39x_rx_decode_info() by the parser's table, which
 * ch39x_rx_parser_init() filled from it: the same answer, in a few
 * instructions.
 */
static inline void
ch39x_rx_decode_fast(const struct ch39x_rx_parser *ps,
		     struct ch39x_rx_frame *f, uint32_t info)
{
	uint8_t e = ps->csum_tab[CH39X_RX_CSUM_IDX(info)];

	f->info = info;
	f->vlan_stripped = (info & CH39X_RX_VLAN) != 0;
	f->vlan_tci = f->vlan_stripped ? (uint16_t)(info >> 16) : 0;
	f->ip_csum = (enum ch39x_csum)(e & 3u);
	f->l4_csum = (enum ch39x_csum)(e >> 2);
}

/*
 * ch39x_rx_next() for all but the common record: a carried record, a bad
 * header, the end of the transfer.
 */
int ch39x_rx_next_slow(struct ch39x_rx_parser *ps, struct ch39x_rx_frame *f);

/*
 * A common record at buf[off] of a len-byte transfer, one that lies whole
 * in it with a valid length: its frame length; 0 for any other (a
 * header cut short, a bad length, a record that continues in the next
 * transfer), which only ch39x_rx_next_slow() handles.
 */
static inline uint32_t
ch39x_rx_rec_len(const uint8_t *buf, uint32_t off, uint32_t len,
		 uint32_t max_frame)
{
	uint32_t avail = len - off, flen;

	if (avail < CH39X_HDR_LEN)
		return 0;
	/* V1.7 uses bits 15..0 and ignores the rest (§4). */
	flen = ch39x_get_le32(buf + off) & 0xFFFFu;
	if (flen < CH39X_MIN_FRAME || flen > max_frame ||
	    CH39X_HDR_LEN + flen > avail)
		return 0;
	return flen;
}

/* Where the record after a common one of flen bytes at off starts. */
static inline uint32_t
ch39x_rx_rec_next(uint32_t off, uint32_t flen, uint32_t len)
{
	uint32_t rec = (CH39X_HDR_LEN + flen + 3u) & ~3u;

	/* The padding of the transfer's last record may be cut off. */
	return rec < len - off ? off + rec : len;
}

/* A common record's cmd_1: V01's carries nothing (V1.3 skips it). */
static inline uint32_t
ch39x_rx_rec_info(const struct ch39x_profile *p, const uint8_t *hdr)
{
	return p->family == CH39X_V02 ? ch39x_get_le32(hdr + 4) : 0;
}

/*
 * Yield the next frame of the current transfer: returns 1 and fills *f, or
 * 0 when the transfer is used up (its buffer may then be reused).
 *
 * Inline for the common record; every other case, and every check of
 * the slow path, in ch39x_rx_next_slow(). Both count the frame alike.
 */
static inline int
ch39x_rx_next(struct ch39x_rx_parser *ps, struct ch39x_rx_frame *f)
{
	const uint8_t *hdr;
	uint32_t flen;

	/* A carry is finished by the slow path; so is no transfer at all
	 * (buf NULL after a reset: no pointer arithmetic on it).
	 */
	if (ps->carry_len != 0 || ps->off >= ps->len)
		return ch39x_rx_next_slow(ps, f);
	flen = ch39x_rx_rec_len(ps->buf, ps->off, ps->len, ps->prof->max_frame);
	if (flen == 0)
		return ch39x_rx_next_slow(ps, f);
	hdr = ps->buf + ps->off;
	f->data = hdr + CH39X_HDR_LEN;
	f->len = flen;
	f->straddled = false;
	ch39x_rx_decode_fast(ps, f, ch39x_rx_rec_info(ps->prof, hdr));
	ps->off = ch39x_rx_rec_next(ps->off, flen, ps->len);
	ps->stats.frames++;
	ps->stats.frame_bytes += flen;
	return 1;
}

/* ---- TX (bulk OUT) ---- */

/* cmd_0 / cmd_1 bits of a TX record (§5). */
#define CH39X_TX_LEN_MASK	0x3FFFFu
#define CH39X_TX_LS		(1u << 20)
#define CH39X_TX_TSO6		(1u << 22)
#define CH39X_TX_TSO4		(1u << 23)
#define CH39X_TX_TCPHO_SHIFT	24
#define CH39X_TX_MSS_MASK	0x7FFu
#define CH39X_TX_CSUM_TCP	(1u << 11)
#define CH39X_TX_CSUM_UDP	(1u << 12)
#define CH39X_TX_CSUM_IP4	(1u << 13)
#define CH39X_TX_VLAN		(1u << 15)
#define CH39X_TX_TCI_SHIFT	16
#define CH39X_TX_TRAILER	4
/* Packing stops when fewer than this many bytes remain (§5). */
#define CH39X_TX_MIN_ROOM	68
#define CH39X_TSO_TCPHO_MAX	255
#define CH39X_TSO_MSS_MAX	2047

/* Offload requests for one TX record; ignored by V01. */
struct ch39x_tx_desc {
	uint32_t len;
	bool csum_ip4;
	bool csum_tcp;
	bool csum_udp;
	bool vlan_insert;
	uint16_t vlan_tci;
	bool tso4;
	bool tso6;
	uint8_t tcpho;
	uint16_t mss;
};

/* Encode the 8-byte record header. */
static inline void
ch39x_tx_encode(const struct ch39x_profile *p, const struct ch39x_tx_desc *d,
		uint8_t hdr[CH39X_HDR_LEN])
{
	uint32_t cmd0 = d->len & CH39X_TX_LEN_MASK;
	uint32_t cmd1 = 0;

	if (p->family == CH39X_V02) {
		if (d->tso4 || d->tso6) {
			cmd0 |= d->tso4 ? CH39X_TX_TSO4 : CH39X_TX_TSO6;
			cmd0 |= (uint32_t)d->tcpho << CH39X_TX_TCPHO_SHIFT;
			cmd1 |= d->mss > CH39X_TSO_MSS_MAX ?
				CH39X_TSO_MSS_MAX : d->mss;
		} else {
			if (d->csum_ip4)
				cmd1 |= CH39X_TX_CSUM_IP4;
			if (d->csum_tcp)
				cmd1 |= CH39X_TX_CSUM_TCP;
			if (d->csum_udp)
				cmd1 |= CH39X_TX_CSUM_UDP;
		}
		if (d->vlan_insert)
			cmd1 |= CH39X_TX_VLAN |
				((uint32_t)d->vlan_tci << CH39X_TX_TCI_SHIFT);
	}
	ch39x_put_le32(hdr, cmd0);
	ch39x_put_le32(hdr + 4, cmd1);
}

/* One transfer buffer being filled with records. */
struct ch39x_tx_agg {
	uint8_t *buf;
	uint32_t len;		/* bytes used, a multiple of 4 */
	uint32_t frames;
	uint32_t frame_bytes;
	uint32_t last_hdr;	/* offset of the last record's header */
};

/* Bytes a transfer buffer needs: the aggregate limit plus the trailer. */
uint32_t ch39x_tx_buf_size(const struct ch39x_profile *p);
void ch39x_tx_agg_init(struct ch39x_tx_agg *a, uint8_t *buf);
/* Whether a frame of len bytes may still be appended. */
static inline bool
ch39x_tx_agg_fits(const struct ch39x_profile *p, const struct ch39x_tx_agg *a,
		  uint32_t len)
{
	uint32_t rec = (CH39X_HDR_LEN + len + 3u) & ~3u;

	if (a->frames == 0)
		return rec <= p->tx_xfer_size;
	if (p->one_frame_per_xfer)
		return false;
	if (p->tx_xfer_size - a->len < CH39X_TX_MIN_ROOM)
		return false;
	return a->len + rec <= p->tx_xfer_size;
}

/*
 * Append a record header for d and return where its d->len frame bytes
 * go; the caller copies them (gathering segments as it likes), after
 * this call: the padding to 4 bytes is zeroed by one 4-byte store that may
 * cover the frame's last bytes too. The caller checks ch39x_tx_agg_fits
 * first.
 */
static inline uint8_t *
ch39x_tx_agg_add(const struct ch39x_profile *p, struct ch39x_tx_agg *a,
		 const struct ch39x_tx_desc *d)
{
	uint32_t rec = (CH39X_HDR_LEN + d->len + 3u) & ~3u;
	uint8_t *r = a->buf + a->len;

	ch39x_tx_encode(p, d, r);
	/*
	 * Zero the padding so no stale buffer bytes reach the device: the
	 * record's last 4 bytes, one store; the caller writes the frame over
	 * those that are not padding.
	 */
	if (d->len != 0)
		memset(r + rec - 4, 0, 4);
	a->last_hdr = a->len;
	a->len += rec;
	a->frames++;
	a->frame_bytes += d->len;
	return r + CH39X_HDR_LEN;
}

/*
 * ch39x_tx_agg_add() for a frame that asks nothing of the chip (no
 * offload, no tag): its header is the length and a zero cmd_1.
 */
static inline uint8_t *
ch39x_tx_agg_add_plain(struct ch39x_tx_agg *a, uint32_t len)
{
	uint32_t rec = (CH39X_HDR_LEN + len + 3u) & ~3u;
	uint8_t *r = a->buf + a->len;

	ch39x_put_le32(r, len & CH39X_TX_LEN_MASK);
	ch39x_put_le32(r + 4, 0);
	ch39x_put_le32(r + rec - 4, 0);
	a->last_hdr = a->len;
	a->len += rec;
	a->frames++;
	a->frame_bytes += len;
	return r + CH39X_HDR_LEN;
}

struct ch39x_tx_end {
	uint32_t len;		/* bytes to send */
	bool zlp;		/* send a zero-length packet after them */
	bool tx_ls;		/* TX_LS and trailer were added */
};

/* Close an aggregate with the end-of-transfer rule of its profile. */
struct ch39x_tx_end ch39x_tx_agg_finish(const struct ch39x_profile *p,
					struct ch39x_tx_agg *a);

/* ---- Interrupt events (§6) ---- */

#define CH39X_EVT_LINK_UP	(1u << 6)
#define CH39X_EVT_SPEED_10	(1u << 7)
#define CH39X_EVT_SPEED_1000	(1u << 4)
#define CH39X_EVT_FULL_DUPLEX	(1u << 0)
#define CH39X_V01_EVT_LEN	16
#define CH39X_V02_EVT_LEN	32

struct ch39x_event {
	bool link_up;
	uint32_t speed_mbps;
	bool full_duplex;
	uint32_t rx_packets;
	uint16_t rx_overflow;
	uint16_t rx_crc_errors;
	uint32_t tx_packets;
};

/* Returns 0 and fills *ev, or -1 when the event is too short to use. */
int ch39x_event_parse(const struct ch39x_profile *p, const uint8_t *buf,
		      uint32_t len, struct ch39x_event *ev);
/* Build an event as the device sends it; returns its length. */
uint32_t ch39x_event_build(const struct ch39x_profile *p,
			   const struct ch39x_event *ev, uint8_t *buf,
			   uint32_t cap);

/* ---- Multicast hash and register helpers (§3) ---- */

uint32_t ch39x_crc32_le(const uint8_t *data, size_t len);
/* Hash bucket 0..63 of a MAC address. */
unsigned int ch39x_mc_hash_index(const uint8_t mac[6]);
/* Register values HASH_HI/HASH_LO for a list of addresses, per family. */
void ch39x_mc_hash_regs(enum ch39x_family fam, const uint8_t (*macs)[6],
			unsigned int n, uint32_t *hash_hi, uint32_t *hash_lo);
/* The MAC_CFG receive-filter bits for a mode (§3, _ch397_set_rx_mode). */
uint32_t ch39x_rx_mode_bits(bool promisc, bool allmulti, unsigned int n_mc);

#endif /* CH39X_VENDOR_H */
