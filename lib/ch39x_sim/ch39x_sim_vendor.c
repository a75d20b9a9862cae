/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated CH397/CH398 in vendor mode: the register file and the PHY
 * window behind the vendor requests, the receive path (address filter,
 * the V02 receive engine, bulk IN records), the transmit path (bulk OUT
 * records with the end-of-transfer rules, the V02 transmit engine and
 * hardware TSO) and the interrupt events. "§N" cites section N of
 * doc/guides/nics/ch39x_protocol.rst; ASSUMPTION marks what that
 * document lists as unknown (§9).
 */

#include <errno.h>
#include <string.h>

#include "ch39x_net.h"
#include "ch39x_sim_priv.h"
#include "ch39x_tso.h"
#include "ch39x_usbdesc.h"

/* ---- registers and the PHY (§2 and §3) ---- */

static uint32_t *
reg_ptr(struct sim_dev *s, uint32_t addr)
{
	const struct ch39x_regs *r = &s->prof.regs;

	if (addr == r->mac_cfg)
		return &s->mac_cfg;
	if (addr == r->hash_hi)
		return &s->hash_hi;
	if (addr == r->hash_lo)
		return &s->hash_lo;
	if (addr == r->macier)
		return &s->macier;
	if (r->misc_cfg && addr == r->misc_cfg)
		return &s->misc_cfg;
	return NULL;
}

static int
sim_rd_reg(struct sim_dev *s, uint32_t addr, uint8_t *data, uint16_t len)
{
	const struct ch39x_regs *r = &s->prof.regs;
	uint32_t *p;
	uint8_t v[4];

	if (len != 2 && len != 4)
		return -EPIPE;
	if (addr == r->mac_l) {
		memcpy(v, s->mac, 4);
	} else if (addr == r->mac_h) {
		v[0] = s->mac[4];
		v[1] = s->mac[5];
		v[2] = 0;
		v[3] = 0;
	} else {
		p = reg_ptr(s, addr);
		if (p == NULL)
			return -EPIPE;
		ch39x_put_le32(v, __atomic_load_n(p, __ATOMIC_RELAXED));
	}
	memcpy(data, v, len);
	return len;
}

static int
sim_wr_reg(struct sim_dev *s, uint32_t addr, const uint8_t *data, uint16_t len)
{
	const struct ch39x_regs *r = &s->prof.regs;
	uint32_t *p, v;

	if (len != 2 && len != 4)
		return -EPIPE;
	v = len == 4 ? ch39x_get_le32(data) : ch39x_get_le16(data);
	if (addr == r->mac_l) {
		if (len != 4)
			return -EPIPE;
		memcpy(s->mac, data, 4);
		return len;
	}
	if (addr == r->mac_h) {
		/* V1.7 writes 4 bytes (a4, a5, 0, 0), V1.3 writes 2 (§3). */
		s->mac[4] = data[0];
		s->mac[5] = data[1];
		return len;
	}
	p = reg_ptr(s, addr);
	if (p == NULL)
		return -EPIPE;
	/* V01 MACIER is 16 bits wide (§3). */
	if (addr == r->macier && s->prof.family == CH39X_V01)
		v &= 0xFFFF;
	else if (len == 2)
		v = (__atomic_load_n(p, __ATOMIC_RELAXED) & 0xFFFF0000u) | v;
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
	return len;
}

static uint8_t
info_val_l(const struct sim_dev *s)
{
	return s->prof.family == CH39X_V02 ?
		SIM_INFO_VAL_L_CH398 : SIM_INFO_VAL_L_CH397;
}

/* The power-up register file and PHY. */
void
sim_vendor_init(struct sim_dev *s)
{
	/*
	 * ASSUMPTION: power-up MAC_CFG has TX_EN and RX_EN set (§9: the
	 * driver never sets them) and passes unicast and broadcast.
	 */
	s->mac_cfg = (1u << 13) | (1u << 14) | CH39X_MACCFG_RX_PUF |
		CH39X_MACCFG_RX_PBD;
	/*
	 * ASSUMPTION: MISC_CFG powers up with bit 13 (RX VLAN strip) set:
	 * V1.7 reports the offload on by default and never writes the bit
	 * at probe (§3, §9), which is right only if the chip starts so. The
	 * PMD writes the bit at every start and does not depend on it.
	 */
	s->misc_cfg = s->prof.regs.misc_cfg ? CH39X_MISCCFG_VLAN_STRIP : 0;
	sim_phy_init(s);
}

/* ---- vendor requests (§2) ---- */

/* Device-to-host vendor requests: GET_INFO, RD_REG, RD_PHY. */
static int
vendor_control_in(struct sim_dev *s, uint8_t request, uint16_t value,
		  uint16_t index, uint8_t *buf, uint16_t length)
{
	uint32_t arg = (uint32_t)value | ((uint32_t)index << 16);

	switch (request) {
	case CH39X_REQ_GET_INFO:
		if (length != CH39X_GET_INFO_LEN)
			return -EPIPE;
		memset(buf, 0, CH39X_GET_INFO_LEN);
		/* ASSUMPTION: bytes other than 2 are unexplained (§9). */
		buf[0] = s->prof.family == CH39X_V02 ? 0x98 : 0x97;
		buf[1] = 0x01;
		buf[2] = info_val_l(s);
		return CH39X_GET_INFO_LEN;
	case CH39X_REQ_RD_REG:
		return sim_rd_reg(s, arg, buf, length);
	case CH39X_REQ_RD_PHY:
		/*
		 * PHY window: wValue 0x0740, wIndex = register (V1.7) or
		 * 0x4000 | register (V1.3); a real chip serves both (§2).
		 */
		if (value != CH39X_PHY_WVALUE || sim_phy_reg(index) < 0 ||
		    length != 2)
			return -EPIPE;
		ch39x_put_le16(buf, sim_phy_read(s, (unsigned int)
						 sim_phy_reg(index)));
		return 2;
	default:
		return -EPIPE;
	}
}

/* Host-to-device vendor requests: WR_REG, WR_PHY, WR_MACCFG, MISC_CONFIG. */
static int
vendor_control_out(struct sim_dev *s, uint8_t request, uint16_t value,
		   uint16_t index, const uint8_t *buf, uint16_t length)
{
	uint32_t arg = (uint32_t)value | ((uint32_t)index << 16);

	switch (request) {
	case CH39X_REQ_WR_REG:
		return sim_wr_reg(s, arg, buf, length);
	case CH39X_REQ_WR_PHY:
		if (value != CH39X_PHY_WVALUE || sim_phy_reg(index) < 0 ||
		    length != 2)
			return -EPIPE;
		sim_phy_write(s, (unsigned int)sim_phy_reg(index),
			      ch39x_get_le16(buf));
		return 2;
	case CH39X_REQ_WR_MACCFG:
		/*
		 * ASSUMPTION: only firmware whose GET_INFO byte 2 is at
		 * least 0x37 knows command 0x1E; older firmware stalls,
		 * which catches a host that picks the wrong path.
		 */
		if (length != 0 ||
		    info_val_l(s) < CH39X_INFO_MACCFG_CMD_MIN)
			return -EPIPE;
		__atomic_store_n(&s->mac_cfg, arg, __ATOMIC_RELAXED);
		return 0;
	case CH39X_REQ_MISC_CONFIG:
		if (length != 0)
			return -EPIPE;
		s->misc_config = value;
		return 0;
	default:
		return -EPIPE;
	}
}

static int
vendor_control(struct sim_dev *s, uint8_t req_type, uint8_t request,
	       uint16_t value, uint16_t index, uint8_t *buf, uint16_t length)
{
	if (req_type == CH39X_REQT_IN)
		return vendor_control_in(s, request, value, index, buf,
					 length);
	if (req_type == CH39X_REQT_OUT)
		return vendor_control_out(s, request, value, index, buf,
					  length);
	return -EPIPE;
}

/* ---- receive (§4) ---- */

/* The address filter of the MAC_CFG receive bits (§3). */
static bool
vendor_rx_accept(struct sim_dev *s, const uint8_t *f)
{
	uint32_t cfg = __atomic_load_n(&s->mac_cfg, __ATOMIC_RELAXED);
	unsigned int idx;
	uint32_t word;

	if (cfg & CH39X_MACCFG_RX_RA)
		return true;
	if ((f[0] & 1) == 0) {
		/* ASSUMPTION: PUF passes unicast to the station address. */
		return (cfg & CH39X_MACCFG_RX_PUF) && memcmp(f, s->mac, 6) == 0;
	}
	if (memcmp(f, "\xff\xff\xff\xff\xff\xff", 6) == 0)
		return (cfg & CH39X_MACCFG_RX_PBD) != 0;
	if (cfg & CH39X_MACCFG_RX_PAM)
		return true;
	if ((cfg & CH39X_MACCFG_RX_PLM) == 0)
		return false;
	idx = ch39x_mc_hash_index(f);
	word = __atomic_load_n(idx >= 32 ? &s->hash_hi : &s->hash_lo,
			       __ATOMIC_RELAXED);
	/* V01 stores each hash word with its 16-bit halves swapped. */
	if (s->prof.family == CH39X_V01)
		word = (word << 16) | (word >> 16);
	return (word >> (idx & 31)) & 1;
}

static uint32_t
vendor_rx_max_frame(const struct sim_dev *s)
{
	if (s->prof.family == CH39X_V01)
		return CH39X_V01_MAX_FRAME;
	if (__atomic_load_n(&s->mac_cfg, __ATOMIC_RELAXED) &
	    CH39X_MACCFG_RWTE)
		return s->prof.max_frame;
	return SIM_V02_NOJUMBO_MAX;
}

/*
 * ch39x_csum_fold(ch39x_csum_add(0, p, len)), 4 bytes at a time: the RX
 * engine checks every frame, and the byte-pair loop was a tenth of the
 * model's cost at unlimited rate (64-byte frames). The sum is taken in
 * host byte order and swapped once: one's-complement sums are byte-order
 * independent (RFC 1071, 2.B), and the fold gives 0 only for all-zero
 * data either way, so the result is the same 16-bit value.
 */
static uint16_t
sim_csum(const uint8_t *p, size_t len)
{
	uint64_t sum = 0;
	uint32_t w;
	uint16_t h;

	for (; len >= 4; p += 4, len -= 4) {
		memcpy(&w, p, 4);
		sum += w;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		sum += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* The last byte is the first of a word padded with zero. */
		h = 0;
		memcpy(&h, p, 1);
		sum += h;
	}
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint16_t)((sum >> 8) | (sum << 8));
#else
	return (uint16_t)sum;
#endif
}

/* ch39x_ip4_csum_ok() and ch39x_l4_csum_ok(), over sim_csum(). */
static bool
sim_ip4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h)
{
	return sim_csum(f + h->l2_len, h->l3_len) == 0xFFFF;
}

static bool
sim_l4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h)
{
	const uint8_t *ip = f + h->l2_len;
	const uint8_t *l4 = ip + h->l3_len;
	uint32_t sum;

	if (h->l4_proto == CH39X_IPPROTO_UDP && h->ipv4 &&
	    l4[6] == 0 && l4[7] == 0)
		return true;
	/* The pseudo-header: addresses, protocol, L4 length. */
	sum = h->ipv4 ? sim_csum(ip + 12, 8) : sim_csum(ip + 8, 32);
	sum += h->l4_proto;
	sum += h->l4_total & 0xFFFF;
	sum += h->l4_total >> 16;
	sum += sim_csum(l4, h->l4_total);
	return ch39x_csum_fold(sum) == 0xFFFF;
}

/* The V02 receive engine: VLAN strip and checksum check (§4). */
static uint32_t
rx_v02_engine(struct sim_dev *s, uint8_t *f, uint32_t *len)
{
	struct ch39x_hdrs h;
	uint32_t info = 0;

	if ((__atomic_load_n(&s->misc_cfg, __ATOMIC_RELAXED) &
	     CH39X_MISCCFG_VLAN_STRIP) && *len >= 18 &&
	    f[12] == 0x81 && f[13] == 0x00) {
		uint16_t tci = (uint16_t)((f[14] << 8) | f[15]);

		memmove(f + 12, f + 16, *len - 16);
		*len -= 4;
		info |= CH39X_RX_VLAN | ((uint32_t)tci << 16);
	}
	if (ch39x_parse_hdrs(f, *len, &h) != 0)
		return info;
	/*
	 * ASSUMPTION: the engine checks TCP and UDP over IPv4 and IPv6 without
	 * extension headers or fragments, the cases the flags can express.
	 */
	if (h.l4_proto == CH39X_IPPROTO_TCP)
		info |= h.ipv4 ? CH39X_RX_TCP4_CHK : CH39X_RX_TCP6_CHK;
	else if (h.l4_proto == CH39X_IPPROTO_UDP)
		info |= h.ipv4 ? CH39X_RX_UDP4_CHK : CH39X_RX_UDP6_CHK;
	else
		return info;
	if (h.ipv4 && !sim_ip4_csum_ok(f, &h))
		info |= CH39X_RX_IP_ERR;
	if (!sim_l4_csum_ok(f, &h))
		info |= h.l4_proto == CH39X_IPPROTO_TCP ?
			CH39X_RX_TCP_ERR : CH39X_RX_UDP_ERR;
	return info;
}

/*
 * Build the record of the next accepted frame from the cable at rec
 * (SIM_REC_ROOM bytes); returns its length, 0 when none has arrived. The
 * frame is read in place behind the header, so that a record lands in
 * its transfer with one copy, off the cable.
 */
static uint32_t
record_build(struct sim_dev *s, uint8_t *rec)
{
	uint8_t *f = rec + CH39X_HDR_LEN;
	uint32_t len, info;

	len = sim_frame_take(s, f);
	if (len == 0)
		return 0;
	info = s->prof.family == CH39X_V02 ? rx_v02_engine(s, f, &len) : 0;
	/* A stripped tag must not leave a runt record behind. */
	if (len < CH39X_MIN_FRAME) {
		memset(f + len, 0, CH39X_MIN_FRAME - len);
		len = CH39X_MIN_FRAME;
	}
	/* Record: header, frame, zero padding to 4 (§4). */
	ch39x_put_le32(rec, len);
	ch39x_put_le32(rec + 4, info);
	memset(f + len, 0, ALIGN4(CH39X_HDR_LEN + len) - CH39X_HDR_LEN - len);
	SIM_ADD(s->cnt.rx_delivered, 1);
	return ALIGN4(CH39X_HDR_LEN + len);
}

/* Take the next accepted frame from the cable into the staging record. */
static bool
stage_next(struct sim_dev *s)
{
	s->stage_len = record_build(s, s->stage);
	s->stage_off = 0;
	return s->stage_len != 0;
}

/*
 * Whether a bulk IN transfer that holds records but has room for more
 * ends now: the RX completion policy (§9.2, ASSUMPTION: the chip's is
 * unknown). Immediate (rx_hold_bytes 0): as soon as no more frames have
 * arrived. Held: once it carries rx_hold_bytes, or rx_hold_us after its
 * first record (V1.7's unused "early size" and "early time", §10).
 */
static bool
rx_release(struct sim_dev *s, const struct ch39x_xfer *x, uint64_t now)
{
	if (s->cfg.rx_hold_bytes == 0 || x->actual >= s->cfg.rx_hold_bytes)
		return true;
	if (now == 0)
		now = now_ns();
	if (s->rx_hold_start_ns == 0)
		s->rx_hold_start_ns = now;
	return now - s->rx_hold_start_ns >= s->cfg.rx_hold_us * 1000ull;
}

/*
 * Fill in-flight bulk IN transfers from the cable (RX thread). Records are
 * packed while they fit; a transfer ends short when the next record does
 * not fit, or when nothing more has arrived and the completion policy lets
 * it go (rx_release()). ASSUMPTION: a record larger than a whole empty
 * transfer is split over transfers, as V1.3 saw with 2 KiB buffers (§4);
 * with the driver's 16-32 KiB buffers this never happens.
 */
static void
vendor_rx_fill(struct sim_dev *s, uint64_t now)
{
	struct ch39x_xfer *x;
	uint32_t room, rem;

	while ((x = s->pend_head[CH39X_EP_BULK_IN]) != NULL) {
		if (s->cfg.line_rate &&
		    __atomic_load_n(s->in_free, __ATOMIC_RELAXED) > now)
			return;
		room = x->len - x->actual;
		if (s->stage_len == 0 && room >= SIM_REC_ROOM) {
			/*
			 * Room for any record: build it in the transfer
			 * itself. It fits, as it would from the stage.
			 */
			rem = record_build(s, x->buf + x->actual);
			if (rem == 0)
				break;
			x->actual += rem;
			continue;
		}
		if (s->stage_len == 0 && !stage_next(s))
			break;
		rem = s->stage_len - s->stage_off;
		if (rem <= room) {
			memcpy(x->buf + x->actual, s->stage + s->stage_off, rem);
			x->actual += rem;
			s->stage_len = 0;
			continue;
		}
		if (x->actual == 0) {
			memcpy(x->buf, s->stage + s->stage_off, room);
			x->actual = room;
			s->stage_off += room;
			if (s->stage_off == room)
				SIM_ADD(s->cnt.rx_straddled, 1);
		}
		sim_in_done(s, x, now);
	}
	x = s->pend_head[CH39X_EP_BULK_IN];
	if (x != NULL && x->actual > 0 && rx_release(s, x, now))
		sim_in_done(s, x, now);
}

/* The cmd_1 bits that make the V02 transmit engine change a frame. */
#define SIM_TX_ENGINE_BITS (CH39X_TX_CSUM_IP4 | CH39X_TX_CSUM_TCP | \
			    CH39X_TX_CSUM_UDP | CH39X_TX_VLAN)

/* The V02 transmit engine: checksum and VLAN insertion (§5). */
static uint32_t
tx_v02_engine(uint8_t *f, uint32_t len, uint32_t cmd1)
{
	struct ch39x_hdrs h;

	if (cmd1 & (CH39X_TX_CSUM_IP4 | CH39X_TX_CSUM_TCP | CH39X_TX_CSUM_UDP)) {
		if (ch39x_parse_hdrs(f, len, &h) == 0) {
			if ((cmd1 & CH39X_TX_CSUM_IP4) && h.ipv4)
				ch39x_ip4_csum_set(f, &h);
			if (((cmd1 & CH39X_TX_CSUM_TCP) &&
			     h.l4_proto == CH39X_IPPROTO_TCP) ||
			    ((cmd1 & CH39X_TX_CSUM_UDP) &&
			     h.l4_proto == CH39X_IPPROTO_UDP))
				ch39x_l4_csum_set(f, &h);
		}
	}
	if (cmd1 & CH39X_TX_VLAN) {
		uint16_t tci = (uint16_t)(cmd1 >> CH39X_TX_TCI_SHIFT);

		memmove(f + 16, f + 12, len - 12);
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
		len += 4;
	}
	return len;
}

/*
 * Hardware TSO of a V02 record (§5): TCPHO is the offset of the first
 * payload byte and MSS is in cmd_1. The headers are found the way the
 * frame itself says (VLAN tag, IPv4 IHL); the IP length fields are not
 * trusted, since the driver zeroes the IPv6 payload length.
 * ASSUMPTION: the chip recomputes both checksums from scratch and sends
 * segments that satisfy ch39x_tso.h, the same code as software TSO.
 */
static void
tx_v02_tso(struct sim_dev *s, uint32_t flen, uint32_t cmd0, uint32_t cmd1)
{
	uint32_t tcpho = cmd0 >> CH39X_TX_TCPHO_SHIFT, l2 = CH39X_ETH_HLEN, l3;
	uint16_t mss = (uint16_t)(cmd1 & CH39X_TX_MSS_MASK);
	struct ch39x_tso t;
	uint32_t len;

	if (flen > l2 + 4 && s->txf[12] == 0x81 && s->txf[13] == 0x00)
		l2 += CH39X_VLAN_HLEN;
	if (flen <= l2)
		goto bad;
	l3 = (cmd0 & CH39X_TX_TSO4) ? (uint32_t)(s->txf[l2] & 0xF) * 4 : 40;
	if (tcpho <= l2 + l3 ||
	    ch39x_tso_init(&t, s->txf, flen, (uint16_t)l2, (uint16_t)l3,
			   (uint16_t)(tcpho - l2 - l3), mss) < 0 ||
	    (bool)(cmd0 & CH39X_TX_TSO4) != t.ipv4)
		goto bad;
	while ((len = ch39x_tso_next_len(&t)) != 0) {
		if (len > CH39X_V02_MAX_FRAME)
			goto bad;
		ch39x_tso_emit(&t, s->seg);
		len = tx_v02_engine(s->seg, len, cmd1 & CH39X_TX_VLAN ?
				    (cmd1 & 0xFFFF8000u) : 0);
		SIM_ADD(s->cnt.tx_tso_segments, 1);
		sim_wire_send(s, s->seg, len);
	}
	return;
bad:
	SIM_ADD(s->cnt.tx_bad_records, 1);
}


/* Parse one bulk OUT transfer and put its frames on the cable (TX thread). */
static void
vendor_tx_parse(struct sim_dev *s, const struct ch39x_xfer *x)
{
	const struct ch39x_profile *p = &s->prof;
	uint32_t off = 0, cmd0, cmd1, flen, max;
	const uint8_t *rec;
	bool ls = false, tso;

	/*
	 * Oversize records are the host's bug: the device drops them. A TSO
	 * record may fill the whole transfer (§5).
	 */
	max = p->family == CH39X_V02 ? p->max_frame : CH39X_V01_MAX_FRAME;
	while (off + CH39X_HDR_LEN <= x->len) {
		cmd0 = ch39x_get_le32(x->buf + off);
		cmd1 = ch39x_get_le32(x->buf + off + 4);
		flen = cmd0 & CH39X_TX_LEN_MASK;
		tso = p->family == CH39X_V02 &&
			(cmd0 & (CH39X_TX_TSO4 | CH39X_TX_TSO6));
		if (flen < CH39X_ETH_HLEN ||
		    flen > (tso ? p->tx_xfer_size - CH39X_HDR_LEN : max) ||
		    flen > x->len - off - CH39X_HDR_LEN) {
			SIM_ADD(s->cnt.tx_bad_records, 1);
			return;
		}
		rec = x->buf + off + CH39X_HDR_LEN;
		off += ALIGN4(CH39X_HDR_LEN + flen);
		if (tso) {
			memcpy(s->txf, rec, flen);
			tx_v02_tso(s, flen, cmd0, cmd1);
		} else if (p->family == CH39X_V02 &&
			   (cmd1 & SIM_TX_ENGINE_BITS)) {
			/* The engine writes: work on a copy, not the host's. */
			memcpy(s->txf, rec, flen);
			flen = tx_v02_engine(s->txf, flen, cmd1);
			sim_wire_send(s, s->txf, flen);
		} else {
			sim_wire_send(s, rec, flen);
		}
		if (p->tx_ls && (cmd0 & CH39X_TX_LS)) {
			/* TX_LS: the last record, then a 4-byte trailer. */
			SIM_ADD(s->cnt.tx_ls_seen, 1);
			ls = true;
			if (off + CH39X_TX_TRAILER != x->len)
				SIM_ADD(s->cnt.tx_bad_records, 1);
			break;
		}
	}
	if (!ls && off != x->len)
		SIM_ADD(s->cnt.tx_bad_records, 1);
	if (x->zlp)
		SIM_ADD(s->cnt.tx_zlp_seen, 1);
	/*
	 * A transfer that ends on a packet boundary needs an end mark: a ZLP
	 * on V01, TX_LS at high/full speed on V02; none at SuperSpeed (§5).
	 * Without one the device cannot tell where the transfer ended.
	 */
	if (x->len % p->bulk_maxp == 0 &&
	    ((p->tx_ls && !ls) || (p->tx_zlp && !x->zlp)))
		SIM_ADD(s->cnt.tx_unterminated, 1);
}

/* ---- interrupt events (§6) ---- */

/*
 * The event of the head interrupt transfer x, when the link changed or
 * the counters moved (under s->lock).
 */
static void
vendor_intr_fill(struct sim_dev *s, struct ch39x_xfer *x)
{
	struct ch39x_event ev;
	uint64_t now, rx, tx;
	uint32_t lk;
	int link;

	/* What an event says of the link: up, duplex and speed. */
	lk = link_word(s);
	lk = (lk & SIM_LK_UP) ? lk & (SIM_LK_UP | SIM_LK_FULL |
				      (0xFFFFu << SIM_LK_SPEED_SHIFT)) : 0;
	link = (lk & SIM_LK_UP) != 0;
	rx = SIM_GET(s->cnt.rx_delivered);
	tx = SIM_GET(s->cnt.tx_frames);
	now = now_ns();
	/*
	 * ASSUMPTION: events on every link change, and when the counters
	 * moved, at most once per bInterval (§9: unknown whether periodic).
	 * The counters are cumulative and wrap at their field widths.
	 */
	if (link == s->last_link && lk == s->last_evt_link &&
	    ((rx == s->last_evt_rx && tx == s->last_evt_tx) ||
	     now - s->last_evt_ns < SIM_INTR_INTERVAL_MS * 1000000ull))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.link_up = link;
	/* A link down reports the cable's best, as before any link. */
	ev.full_duplex = link ? (lk & SIM_LK_FULL) != 0 : true;
	ev.speed_mbps = link_speed(s);
	ev.rx_packets = (uint32_t)rx;
	ev.rx_overflow = (uint16_t)SIM_GET(s->rx_ring->drops);
	ev.rx_crc_errors = 0;
	ev.tx_packets = (uint32_t)tx;
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	if (x->len < s->prof.intr_len) {
		x->actual = x->len;
		complete(s, x, CH39X_XFER_OVERFLOW);
		return;
	}
	x->actual = ch39x_event_build(&s->prof, &ev, x->buf, x->len);
	complete(s, x, CH39X_XFER_OK);
	s->last_link = link;
	s->last_evt_link = lk;
	s->last_evt_ns = now;
	s->last_evt_rx = rx;
	s->last_evt_tx = tx;
	SIM_ADD(s->cnt.events_sent, 1);
}

uint32_t
ch39x_sim_reg(struct ch39x_usb_dev *d, uint32_t addr)
{
	struct sim_dev *s = to_sim(d);
	uint8_t v[4];

	if (sim_rd_reg(s, addr, v, 4) != 4)
		return 0xFFFFFFFFu;
	return ch39x_get_le32(v);
}

/*
 * The vendor configuration (§1): one vendor-class interface with bulk IN
 * 1, bulk OUT 2 and interrupt IN 3, in the order the vendor driver takes
 * them. ASSUMPTION (§17): the chip's other configurations are not
 * modelled (the model enumerates in the vendor one), nor its class codes
 * and power figures. The interrupt endpoint's interval is the event
 * period in bInterval's units: frames at full speed, 2^(n-1) microframes
 * above.
 */
static uint32_t
vendor_config_desc(struct sim_dev *s, uint8_t *buf, uint32_t cap)
{
	bool super = s->prof.speed == CH39X_SPEED_SUPER;
	struct ch39x_usb_cfg_builder b;
	uint8_t ival = SIM_INTR_INTERVAL_MS;
	uint32_t uframes = SIM_INTR_INTERVAL_MS * 8;

	if (s->prof.speed != CH39X_SPEED_FULL)
		for (ival = 1; uframes > 1; uframes >>= 1)
			ival++;
	ch39x_usb_cfg_begin(&b, buf, cap, super, s->prof.config_value,
			    super ? 896 : 500);
	ch39x_usb_cfg_interface(&b, 0, 0, 3, 0xFF, 0, 0);
	ch39x_usb_cfg_endpoint(&b, 0x81, CH39X_USB_EP_BULK, s->prof.bulk_maxp,
			       0);
	ch39x_usb_cfg_endpoint(&b, 0x02, CH39X_USB_EP_BULK, s->prof.bulk_maxp,
			       0);
	ch39x_usb_cfg_endpoint(&b, 0x83, CH39X_USB_EP_INTR, s->prof.intr_len,
			       ival);
	return ch39x_usb_cfg_end(&b);
}

static const char *
vendor_name(const struct sim_dev *s)
{
	(void)s;
	return "vendor mode";
}

const struct sim_model sim_vendor_model = {
	.control = vendor_control,
	.rx_accept = vendor_rx_accept,
	.rx_max_frame = vendor_rx_max_frame,
	.rx_fill = vendor_rx_fill,
	.tx_parse = vendor_tx_parse,
	.intr_fill = vendor_intr_fill,
	.config_desc = vendor_config_desc,
	.name = vendor_name,
};
