/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests for the vendor-mode framing codec (lib/ch39x/ch39x_vendor.c).
 * Every expected value is written out by hand from
 * doc/guides/nics/ch39x_protocol.rst (cited "§N"); none is computed
 * with the code under test.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ch39x_vendor.h"

#include "check.h"

/*
 * Lay n records out in x as the device does: each an 8-byte header (cmd_0,
 * cmd_1, little-endian), then len pattern bytes, then zero padding to 4.
 * The arguments are n groups of (cmd_0, cmd_1, len, seed). Returns the
 * number of bytes written, which the callers check against a hand count.
 */
static uint32_t
xfer(uint8_t *x, unsigned int n, ...)
{
	uint32_t off = 0, w, len, i, k;
	uint8_t seed;
	va_list ap;

	va_start(ap, n);
	while (n--) {
		for (k = 0; k < 2; k++) {
			w = va_arg(ap, unsigned int);
			for (i = 0; i < 4; i++)
				x[off++] = (uint8_t)(w >> (8 * i));
		}
		len = va_arg(ap, unsigned int);
		seed = (uint8_t)va_arg(ap, unsigned int);
		for (i = 0; i < len; i++)
			x[off++] = pat(seed, i);
		while (off % 4)
			x[off++] = 0;
	}
	va_end(ap);
	return off;
}

static uint8_t xa[32768], xb[32768], xc[32768];
static struct ch39x_profile v01hs, v01fs, ch336, ch339, v02ss, v02hs, v02fs;

static void
prof(struct ch39x_profile *p, uint16_t pid, enum ch39x_usb_speed speed)
{
	if (ch39x_profile_init(p, pid, speed) != 0) {
		n_fail++;
		printf("%s:%d: profile 0x%04x/%d refused\n", __FILE__,
		       __LINE__, pid, (int)speed);
	}
}

/* ---- Profiles (§1, §3, §7, §8) ---- */

struct prof_want {
	uint16_t pid;
	enum ch39x_usb_speed speed;
	enum ch39x_family fam;
	uint8_t config;
	uint16_t maxp;
	bool one_frame, tx_ls, tx_zlp, gigabit;
	uint32_t tx_size;
	uint16_t tx_n;
	uint32_t rx_size;
	uint16_t rx_n;
	uint16_t max_mtu;
	uint32_t max_frame;	/* 0: not checked */
	uint16_t intr_len;
};

#define V01_P(pid, spd, maxp, one) { pid, spd, CH39X_V01, 1, maxp, one, \
	false, true, false, 4096, 10, 16384, 10, 1500, 1518, 16 }
#define V02_P(pid, spd, maxp, ls, txs, txn, rxs, rxn, mtu, mf) { pid, spd, \
	CH39X_V02, 3, maxp, false, ls, false, true, txs, txn, rxs, rxn, mtu, \
	mf, 32 }

static const struct prof_want prof_table[] = {
	V01_P(0x5394, CH39X_SPEED_HIGH, 512, true),
	V01_P(0x5394, CH39X_SPEED_FULL, 64, true),
	V01_P(0x5395, CH39X_SPEED_HIGH, 512, true),
	V01_P(0x5395, CH39X_SPEED_FULL, 64, true),
	V01_P(0x5396, CH39X_SPEED_HIGH, 512, false),
	V01_P(0x5397, CH39X_SPEED_HIGH, 512, false),
	V01_P(0x5397, CH39X_SPEED_FULL, 64, false),
	V02_P(0x5398, CH39X_SPEED_SUPER, 1024, false, 16384, 10, 32768, 16,
	      9198, 9216),
	V02_P(0x5398, CH39X_SPEED_HIGH, 512, true, 16384, 10, 32768, 10,
	      9198, 9216),
	V02_P(0x5398, CH39X_SPEED_FULL, 64, true, 8192, 4, 8192, 4, 8162, 0),
	V02_P(0xE398, CH39X_SPEED_SUPER, 1024, false, 16384, 10, 32768, 16,
	      9198, 9216),
	V02_P(0xE398, CH39X_SPEED_HIGH, 512, true, 16384, 10, 32768, 10,
	      9198, 9216),
	V02_P(0xE398, CH39X_SPEED_FULL, 64, true, 8192, 4, 8192, 4, 8162, 0),
};

static void
test_profiles(void)
{
	/* mac_cfg, mac_h, mac_l, hash_hi, hash_lo, macier, misc_cfg */
	static const uint32_t v01_regs[7] = { 0x40000700, 0x40000710,
		0x40000714, 0x40000730, 0x40000734, 0x4000073C, 0 };
	static const uint32_t v02_regs[7] = { 0x40024000, 0x40024010,
		0x40024014, 0x40024030, 0x40024034, 0x4002403C, 0x400240E8 };
	static const struct {
		uint16_t pid;
		const char *name;
	} names[6] = { { 0x5394, "CH336" }, { 0x5395, "CH339" },
		{ 0x5396, "CH396" }, { 0x5397, "CH397" }, { 0x5398, "CH398" },
		{ 0xE398, "CH9153" } };
	unsigned int fails = n_fail;
	struct ch39x_profile p;
	const uint32_t *r;
	size_t i;

	for (i = 0; i < sizeof(prof_table) / sizeof(prof_table[0]); i++) {
		const struct prof_want *w = &prof_table[i];

		if (n_fail != fails)
			printf("  (in profile entry %zu)\n", i - 1);
		fails = n_fail;
		memset(&p, 0xA5, sizeof(p));
		CHECK_EQ(ch39x_profile_init(&p, w->pid, w->speed), 0);
		CHECK_EQ(p.pid, w->pid);
		CHECK_EQ(p.speed, w->speed);
		CHECK_EQ(p.family, w->fam);
		CHECK_EQ(p.config_value, w->config);
		CHECK_EQ(p.bulk_maxp, w->maxp);
		CHECK_EQ(p.one_frame_per_xfer, w->one_frame);
		CHECK_EQ(p.tx_ls, w->tx_ls);
		CHECK_EQ(p.tx_zlp, w->tx_zlp);
		CHECK_EQ(p.gigabit, w->gigabit);
		CHECK_EQ(p.tx_xfer_size, w->tx_size);
		CHECK_EQ(p.tx_xfers, w->tx_n);
		CHECK_EQ(p.rx_xfer_size, w->rx_size);
		CHECK_EQ(p.rx_xfers, w->rx_n);
		CHECK_EQ(p.max_mtu, w->max_mtu);
		CHECK_EQ(p.min_mtu, 68);
		if (w->max_frame)
			CHECK_EQ(p.max_frame, w->max_frame);
		CHECK_EQ(p.intr_len, w->intr_len);
		CHECK_EQ(ch39x_tx_buf_size(&p), w->tx_size + 4);
		r = w->fam == CH39X_V01 ? v01_regs : v02_regs;
		CHECK_EQ(p.regs.mac_cfg, r[0]);
		CHECK_EQ(p.regs.mac_h, r[1]);
		CHECK_EQ(p.regs.mac_l, r[2]);
		CHECK_EQ(p.regs.hash_hi, r[3]);
		CHECK_EQ(p.regs.hash_lo, r[4]);
		CHECK_EQ(p.regs.macier, r[5]);
		CHECK_EQ(p.regs.misc_cfg, r[6]);
	}
	if (n_fail != fails)
		printf("  (in profile entry %zu)\n", i - 1);

	/* V01 is USB 2.0: CH397 (and kin) at SuperSpeed is refused. */
	CHECK_EQ(ch39x_profile_init(&p, 0x5397, CH39X_SPEED_SUPER), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x5394, CH39X_SPEED_SUPER), -1);
	/* Unknown PIDs, and speeds beyond SuperSpeed (super-plus). */
	CHECK_EQ(ch39x_profile_init(&p, 0x5399, CH39X_SPEED_HIGH), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x1234, CH39X_SPEED_HIGH), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x0000, CH39X_SPEED_FULL), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x5398, (enum ch39x_usb_speed)4), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0xE398, (enum ch39x_usb_speed)0), -1);

	for (i = 0; i < 6; i++)
		CHECK(strcmp(ch39x_chip_name(names[i].pid),
			     names[i].name) == 0);
	CHECK(ch39x_chip_name(0x5399) == NULL);
}

/* ---- Multicast hash and rx mode (§3) ---- */

static const uint8_t mc_macs[4][6] = {
	{ 0x01, 0x00, 0x5E, 0x00, 0x00, 0x01 },
	{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
	{ 0x01, 0x00, 0x5E, 0x7F, 0xFF, 0xFA },
	{ 0x33, 0x33, 0xFF, 0x00, 0x00, 0x01 },
};

static const struct {
	uint32_t crc;
	unsigned int idx;
	uint32_t v02_hi, v02_lo, v01_hi, v01_lo;
} mc_want[4] = {
	{ 0x264B3A01, 32, 0x00000001, 0x00000000, 0x00010000, 0x00000000 },
	{ 0xA2AA2660, 1, 0x00000000, 0x00000002, 0x00000000, 0x00020000 },
	{ 0xC0ADC38A, 20, 0x00000000, 0x00100000, 0x00000000, 0x00000010 },
	{ 0x7CAF2091, 34, 0x00000004, 0x00000000, 0x00040000, 0x00000000 },
};

static void
test_mc_hash(void)
{
	static const uint8_t check[9] = "123456789";
	uint32_t hi, lo;
	int i;

	/* The CRC-32 catalogue check value. */
	CHECK_EQ(ch39x_crc32_le(check, 9), 0xCBF43926);
	CHECK_EQ(ch39x_crc32_le(check, 0), 0x00000000);

	for (i = 0; i < 4; i++) {
		CHECK_EQ(ch39x_crc32_le(mc_macs[i], 6), mc_want[i].crc);
		CHECK_EQ(ch39x_mc_hash_index(mc_macs[i]), mc_want[i].idx);
		hi = lo = 0xDEADBEEF;
		ch39x_mc_hash_regs(CH39X_V02, &mc_macs[i], 1, &hi, &lo);
		CHECK_EQ(hi, mc_want[i].v02_hi);
		CHECK_EQ(lo, mc_want[i].v02_lo);
		hi = lo = 0xDEADBEEF;
		ch39x_mc_hash_regs(CH39X_V01, &mc_macs[i], 1, &hi, &lo);
		CHECK_EQ(hi, mc_want[i].v01_hi);
		CHECK_EQ(lo, mc_want[i].v01_lo);
	}

	/* All four: F1 = bits 0 and 2, F0 = bits 1 and 20. */
	ch39x_mc_hash_regs(CH39X_V02, mc_macs, 4, &hi, &lo);
	CHECK_EQ(hi, 0x00000005);
	CHECK_EQ(lo, 0x00100002);
	ch39x_mc_hash_regs(CH39X_V01, mc_macs, 4, &hi, &lo);
	CHECK_EQ(hi, 0x00050000);
	CHECK_EQ(lo, 0x00020010);
	/* No address: both words zero. */
	hi = lo = 0xDEADBEEF;
	ch39x_mc_hash_regs(CH39X_V01, mc_macs, 0, &hi, &lo);
	CHECK_EQ(hi, 0);
	CHECK_EQ(lo, 0);

	/* RA 0x00080000, PAM 0x00100000, PUF|PBD 0x00600000, PLM 0x00800000 */
	CHECK_EQ(ch39x_rx_mode_bits(true, false, 0), 0x00080000);
	CHECK_EQ(ch39x_rx_mode_bits(true, true, 20), 0x00080000);
	CHECK_EQ(ch39x_rx_mode_bits(false, true, 0), 0x00700000);
	CHECK_EQ(ch39x_rx_mode_bits(false, true, 3), 0x00700000);
	CHECK_EQ(ch39x_rx_mode_bits(false, false, 0), 0x00600000);
	CHECK_EQ(ch39x_rx_mode_bits(false, false, 1), 0x00E00000);
	CHECK_EQ(ch39x_rx_mode_bits(false, false, 12), 0x00E00000);
	CHECK_EQ(ch39x_rx_mode_bits(false, false, 13), 0x00700000);
}

/* ---- TX header encoder (§5) ---- */
/* ---- TX header encoder (§5) ---- */

static const struct {
	bool v02;
	struct ch39x_tx_desc d;
	uint8_t want[8];
} enc_cases[] = {
	/* V01: length only; cmd_1 is 0 whatever is asked. */
	{ false, { .len = 60 }, { 0x3C, 0, 0, 0, 0, 0, 0, 0 } },
	{ false, { .len = 1514, .csum_ip4 = true, .csum_tcp = true,
		   .csum_udp = true, .vlan_insert = true, .vlan_tci = 0x0123 },
	  { 0xEA, 0x05, 0, 0, 0, 0, 0, 0 } },
	{ false, { .len = 1514, .tso4 = true, .tcpho = 54, .mss = 1448 },
	  { 0xEA, 0x05, 0, 0, 0, 0, 0, 0 } },
	/* V02, no offload; the length field is bits 17..0. */
	{ true, { .len = 42 }, { 0x2A, 0, 0, 0, 0, 0, 0, 0 } },
	{ true, { .len = 0x12345 }, { 0x45, 0x23, 0x01, 0, 0, 0, 0, 0 } },
	/* TCP/IPv4 bits 13 + 11 = 0x2800; UDP/IPv4 13 + 12 = 0x3000. */
	{ true, { .len = 100, .csum_ip4 = true, .csum_tcp = true },
	  { 0x64, 0, 0, 0, 0x00, 0x28, 0, 0 } },
	{ true, { .len = 100, .csum_ip4 = true, .csum_udp = true },
	  { 0x64, 0, 0, 0, 0x00, 0x30, 0, 0 } },
	/* IPv6: bit 12 (UDP) or 11 (TCP) only. */
	{ true, { .len = 100, .csum_udp = true },
	  { 0x64, 0, 0, 0, 0x00, 0x10, 0, 0 } },
	{ true, { .len = 100, .csum_tcp = true },
	  { 0x64, 0, 0, 0, 0x00, 0x08, 0, 0 } },
	/* VLAN insert: bit 15, TCI 0x0123 in 31..16 -> 0x01238000. */
	{ true, { .len = 60, .vlan_insert = true, .vlan_tci = 0x0123 },
	  { 0x3C, 0, 0, 0, 0x00, 0x80, 0x23, 0x01 } },
	/* With UDP/IPv4 checksum and TCI 0xE00A -> 0xE00AB000. */
	{ true, { .len = 60, .vlan_insert = true, .vlan_tci = 0xE00A,
		  .csum_ip4 = true, .csum_udp = true },
	  { 0x3C, 0, 0, 0, 0x00, 0xB0, 0x0A, 0xE0 } },
	/* A TCI without vlan_insert is not sent. */
	{ true, { .len = 60, .vlan_tci = 0xE00A, .csum_ip4 = true,
		  .csum_udp = true },
	  { 0x3C, 0, 0, 0, 0x00, 0x30, 0, 0 } },
	/*
	 * TSO4: 9014 (0x2336) | bit 23 | TCPHO 54 (0x36) << 24 = 0x36802336,
	 * MSS 1448 = 0x5A8; no checksum bits even when asked.
	 */
	{ true, { .len = 9014, .tso4 = true, .tcpho = 54, .mss = 1448,
		  .csum_ip4 = true, .csum_tcp = true },
	  { 0x36, 0x23, 0x80, 0x36, 0xA8, 0x05, 0, 0 } },
	/* MSS 9000 and 2048 are clamped to 2047 (0x7FF); 2047 is kept. */
	{ true, { .len = 9014, .tso4 = true, .tcpho = 54, .mss = 9000 },
	  { 0x36, 0x23, 0x80, 0x36, 0xFF, 0x07, 0, 0 } },
	{ true, { .len = 9014, .tso4 = true, .tcpho = 54, .mss = 2048 },
	  { 0x36, 0x23, 0x80, 0x36, 0xFF, 0x07, 0, 0 } },
	{ true, { .len = 9014, .tso4 = true, .tcpho = 54, .mss = 2047 },
	  { 0x36, 0x23, 0x80, 0x36, 0xFF, 0x07, 0, 0 } },
	/* TSO6: 16000 (0x3E80) | bit 22 | TCPHO 74 (0x4A) << 24. */
	{ true, { .len = 16000, .tso6 = true, .tcpho = 74, .mss = 9000 },
	  { 0x80, 0x3E, 0x40, 0x4A, 0xFF, 0x07, 0, 0 } },
	/* ... with VLAN 0x0064: cmd_1 0x006487FF. */
	{ true, { .len = 16000, .tso6 = true, .tcpho = 74, .mss = 9000,
		  .csum_tcp = true, .vlan_insert = true, .vlan_tci = 0x0064 },
	  { 0x80, 0x3E, 0x40, 0x4A, 0xFF, 0x87, 0x64, 0x00 } },
	/* TCPHO 255 fills bits 31..24; MSS 1220 = 0x4C4. */
	{ true, { .len = 16000, .tso6 = true, .tcpho = 255, .mss = 1220 },
	  { 0x80, 0x3E, 0x40, 0xFF, 0xC4, 0x04, 0, 0 } },
};

static void
test_tx_encode(void)
{
	uint8_t hdr[8];
	size_t i;

	for (i = 0; i < sizeof(enc_cases) / sizeof(enc_cases[0]); i++) {
		memset(hdr, 0xCC, sizeof(hdr));
		ch39x_tx_encode(enc_cases[i].v02 ? &v02hs : &v01hs,
				&enc_cases[i].d, hdr);
		if (memcmp(hdr, enc_cases[i].want, 8) == 0) {
			n_pass++;
			continue;
		}
		n_fail++;
		printf("%s:%d: tx_encode entry %zu: got %02x %02x %02x %02x "
		       "%02x %02x %02x %02x\n", __FILE__, __LINE__, i, hdr[0],
		       hdr[1], hdr[2], hdr[3], hdr[4], hdr[5], hdr[6], hdr[7]);
	}
}

/* ---- TX aggregator (§5) ---- */

static uint8_t tbuf[16384 + 4 + 64];
static uint8_t twant[16384 + 4 + 64];
static struct ch39x_tx_agg ta;
static struct ch39x_tx_desc td;

/* Append a frame of len bytes filled with fill; returns its data offset. */
static uint32_t
agg_add(const struct ch39x_profile *p, uint32_t len, uint8_t fill)
{
	uint8_t *dst;

	td.len = len;
	CHECK(ch39x_tx_agg_fits(p, &ta, len));
	dst = ch39x_tx_agg_add(p, &ta, &td);
	memset(dst, fill, len);
	return (uint32_t)(dst - ta.buf);
}

/* Start a fresh aggregate in tbuf (pre-filled with 0xAA) of n frames. */
static void
agg_start(const struct ch39x_profile *p, const uint32_t *lens, unsigned int n)
{
	unsigned int i;

	memset(tbuf, 0xAA, sizeof(tbuf));
	memset(&td, 0, sizeof(td));
	ch39x_tx_agg_init(&ta, tbuf);
	for (i = 0; i < n; i++)
		agg_add(p, lens[i], (uint8_t)(i + 1));
}

#define TX_END(p, len, zlp, ls) tx_end(__LINE__, (p), (len), (zlp), (ls))

static void
tx_end(int line, const struct ch39x_profile *p, uint32_t len, bool zlp,
       bool ls)
{
	struct ch39x_tx_end e = ch39x_tx_agg_finish(p, &ta);

	if (e.len == len && e.zlp == zlp && e.tx_ls == ls && ta.len == len) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("%s:%d: tx end: len %u zlp %d tx_ls %d agg %u, want len %u "
	       "zlp %d tx_ls %d\n", __FILE__, line, e.len, e.zlp, e.tx_ls,
	       ta.len, len, zlp, ls);
}

static void
test_tx_agg_pack(void)
{
	static const uint32_t l3[3] = { 1514, 1514, 976 };
	static const uint32_t l4[4] = { 1514, 1514, 972, 60 };
	static const uint32_t l60[1] = { 60 };
	static const uint8_t h0[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t h1[8] = { 0x3D, 0, 0, 0, 0, 0x28, 0, 0 };
	static const uint8_t h2[8] = { 0x3E, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t h3[8] = { 0x3F, 0, 0, 0, 0, 0, 0, 0 };

	/*
	 * V02 SS, frames of 60, 61, 62, 63 bytes: records of 68, 72, 72, 72
	 * at 0, 68, 140, 212; 284 bytes, pad bytes zero (buffer was 0xAA).
	 * The second frame asks for a TCP/IPv4 checksum (cmd_1 0x2800).
	 */
	agg_start(&v02ss, NULL, 0);
	CHECK_EQ(agg_add(&v02ss, 60, 0x11), 8);
	td.csum_ip4 = td.csum_tcp = true;
	CHECK_EQ(agg_add(&v02ss, 61, 0x22), 76);
	td.csum_ip4 = td.csum_tcp = false;
	CHECK_EQ(agg_add(&v02ss, 62, 0x33), 148);
	CHECK_EQ(agg_add(&v02ss, 63, 0x44), 220);
	CHECK_EQ(ta.frames, 4);
	CHECK_EQ(ta.frame_bytes, 246);
	CHECK_EQ(ta.last_hdr, 212);
	memset(twant, 0xAA, sizeof(twant));
	memcpy(twant + 0, h0, 8);
	memset(twant + 8, 0x11, 60);
	memcpy(twant + 68, h1, 8);
	memset(twant + 76, 0x22, 61);
	memset(twant + 137, 0, 3);
	memcpy(twant + 140, h2, 8);
	memset(twant + 148, 0x33, 62);
	memset(twant + 210, 0, 2);
	memcpy(twant + 212, h3, 8);
	memset(twant + 220, 0x44, 63);
	memset(twant + 283, 0, 1);
	TX_END(&v02ss, 284, false, false);
	CHECK_MEM(tbuf, twant, 300);

	/* First frame: only the record size against tx_xfer_size counts. */
	ch39x_tx_agg_init(&ta, tbuf);
	CHECK(ch39x_tx_agg_fits(&v01hs, &ta, 4088));	/* record 4096 */
	CHECK(!ch39x_tx_agg_fits(&v01hs, &ta, 4089));	/* record 4100 */
	CHECK(ch39x_tx_agg_fits(&v02ss, &ta, 16376));
	CHECK(!ch39x_tx_agg_fits(&v02ss, &ta, 16377));

	/*
	 * The 68-byte rule on V01 (4096): 1514 + 1514 + 976 -> records
	 * 1524 + 1524 + 984 = 4032, 64 bytes left. A 42 or 56-byte frame
	 * (record 52 or 64) would fit but packing has stopped.
	 */
	agg_start(&v01hs, l3, 3);
	CHECK_EQ(ta.len, 4032);
	CHECK(!ch39x_tx_agg_fits(&v01hs, &ta, 42));
	CHECK(!ch39x_tx_agg_fits(&v01hs, &ta, 56));

	/*
	 * 1514 + 1514 + 972 -> 4028: 68 left, a 60-byte frame still goes
	 * (a 61-byte one, record 72, does not). 4096 = 8 x 512: V01 sends a
	 * ZLP and adds no trailer; the last cmd_0 has no TX_LS.
	 */
	agg_start(&v01hs, l4, 3);
	CHECK_EQ(ta.len, 4028);
	CHECK(ch39x_tx_agg_fits(&v01hs, &ta, 42));
	CHECK(!ch39x_tx_agg_fits(&v01hs, &ta, 61));
	CHECK(!ch39x_tx_agg_fits(&v01hs, &ta, 1514));
	agg_add(&v01hs, 60, 4);
	CHECK_EQ(ta.frames, 4);
	CHECK(!ch39x_tx_agg_fits(&v01hs, &ta, 42));
	TX_END(&v01hs, 4096, true, false);
	CHECK_EQ(tbuf[4028 + 2], 0x00);
	CHECK_EQ(tbuf[4096], 0xAA);

	/* CH336 / CH339: one frame per transfer; CH397 packs. */
	agg_start(&ch336, l60, 1);
	CHECK(!ch39x_tx_agg_fits(&ch336, &ta, 60));
	agg_start(&ch339, l60, 1);
	CHECK(!ch39x_tx_agg_fits(&ch339, &ta, 42));
	agg_start(&v01hs, l60, 1);
	CHECK(ch39x_tx_agg_fits(&v01hs, &ta, 60));
}

static void
test_tx_agg_end(void)
{
	static const uint32_t l504[1] = { 504 }, l56[1] = { 56 };
	static const uint32_t l60[1] = { 60 }, l1016[2] = { 1016, 1016 };
	static const uint8_t hls[8] = { 0xF8, 0x01, 0x10, 0x00,
					0x00, 0x30, 0x00, 0x00 };
	static const uint8_t h60[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t h436[8] = { 0xB4, 0x01, 0x10, 0, 0, 0, 0, 0 };
	static const uint8_t h56[8] = { 0x38, 0, 0x10, 0, 0, 0, 0, 0 };
	static const uint8_t h504[8] = { 0xF8, 0x01, 0, 0, 0, 0, 0, 0 };
	static const uint8_t h1016[8] = { 0xF8, 0x03, 0, 0, 0, 0, 0, 0 };
	static const uint8_t zero4[4] = { 0, 0, 0, 0 };

	/*
	 * V02 HS, one 504-byte frame with UDP/IPv4 checksum: record 512.
	 * cmd_0 = 504 | TX_LS = 0x001001F8, cmd_1 = 0x3000 untouched, then
	 * four zero trailer bytes: 516 bytes.
	 */
	agg_start(&v02hs, NULL, 0);
	td.csum_ip4 = td.csum_udp = true;
	agg_add(&v02hs, 504, 0x5A);
	TX_END(&v02hs, 516, false, true);
	memset(twant, 0xAA, sizeof(twant));
	memcpy(twant, hls, 8);
	memset(twant + 8, 0x5A, 504);
	memset(twant + 512, 0, 4);
	CHECK_MEM(tbuf, twant, 530);

	/*
	 * V02 HS, 60 + 436 bytes: records 68 + 444 = 512. TX_LS only in the
	 * last record (0x001001B4); the first keeps 0x0000003C.
	 */
	agg_start(&v02hs, NULL, 0);
	agg_add(&v02hs, 60, 0x61);
	agg_add(&v02hs, 436, 0x62);
	TX_END(&v02hs, 516, false, true);
	memset(twant, 0xAA, sizeof(twant));
	memcpy(twant, h60, 8);
	memset(twant + 8, 0x61, 60);
	memcpy(twant + 68, h436, 8);
	memset(twant + 76, 0x62, 436);
	memset(twant + 512, 0, 4);
	CHECK_MEM(tbuf, twant, 530);

	/* V02 HS, 1016 + 1016 bytes: 2048 = 4 x 512, TX_LS in the last. */
	agg_start(&v02hs, l1016, 2);
	TX_END(&v02hs, 2052, false, true);
	CHECK_MEM(tbuf, h1016, 8);
	CHECK_EQ(tbuf[1024 + 2], 0x10);
	CHECK_MEM(tbuf + 2048, zero4, 4);

	/* V02 HS, not a multiple of 512: nothing added. */
	agg_start(&v02hs, l60, 1);
	TX_END(&v02hs, 68, false, false);
	CHECK_MEM(tbuf, h60, 8);
	CHECK_EQ(tbuf[68], 0xAA);

	/* V02 FS counts as hs_mode: 56 bytes -> record 64 -> TX_LS. */
	agg_start(&v02fs, l56, 1);
	TX_END(&v02fs, 68, false, true);
	CHECK_MEM(tbuf, h56, 8);
	CHECK_MEM(tbuf + 64, zero4, 4);

	/* V02 SS at 1024 and at 512: neither TX_LS nor ZLP. */
	agg_start(&v02ss, l1016, 1);
	TX_END(&v02ss, 1024, false, false);
	CHECK_MEM(tbuf, h1016, 8);
	CHECK_EQ(tbuf[1024], 0xAA);
	agg_start(&v02ss, l504, 1);
	TX_END(&v02ss, 512, false, false);
	CHECK_MEM(tbuf, h504, 8);

	/* V01 HS at 512: ZLP, no TX_LS bit, no trailer. */
	agg_start(&v01hs, l504, 1);
	TX_END(&v01hs, 512, true, false);
	CHECK_MEM(tbuf, h504, 8);
	CHECK_EQ(tbuf[512], 0xAA);

	/* V01 HS, 68 bytes: no ZLP. V01 FS, 64 bytes: ZLP. */
	agg_start(&v01hs, l60, 1);
	TX_END(&v01hs, 68, false, false);
	agg_start(&v01fs, l56, 1);
	TX_END(&v01fs, 64, true, false);
	CHECK_EQ(tbuf[2], 0x00);

	/* An empty aggregate ends with nothing. */
	agg_start(&v01hs, NULL, 0);
	TX_END(&v01hs, 0, false, false);
	agg_start(&v02hs, NULL, 0);
	TX_END(&v02hs, 0, false, false);
}

/* ---- RX parser (§4) ---- */

#define UNK CH39X_CSUM_UNKNOWN
#define GOOD CH39X_CSUM_GOOD
#define BAD CH39X_CSUM_BAD

static void
test_rx_decode(void)
{
	static const struct {
		uint32_t info;
		bool vlan;
		uint16_t tci;
		enum ch39x_csum ip;
		int l4;	/* enum ch39x_csum, or -1: anything but GOOD */
	} t[] = {
		{ 0x00000000, false, 0, UNK, UNK },
		{ 0x00000001, false, 0, GOOD, GOOD },
		{ 0x00000004, false, 0, GOOD, GOOD },
		{ 0x00000002, false, 0, UNK, GOOD },
		{ 0x00000008, false, 0, UNK, GOOD },
		{ 0x00000201, false, 0, GOOD, BAD },
		{ 0x00000104, false, 0, GOOD, BAD },
		{ 0x00000202, false, 0, UNK, BAD },
		{ 0x00000108, false, 0, UNK, BAD },
		/* An error bit of the other protocol does not matter. */
		{ 0x00000204, false, 0, GOOD, GOOD },
		{ 0x00000102, false, 0, UNK, GOOD },
		/* The IPv4 header error does not matter for IPv6. */
		{ 0x00000082, false, 0, UNK, GOOD },
		{ 0x00000088, false, 0, UNK, GOOD },
		/*
		 * UDPv4/TCPv4 are good only with no IP error either
		 * (ch398_rx_cksum_offload), so the L4 verdict is not GOOD.
		 */
		{ 0x00000081, false, 0, BAD, -1 },
		{ 0x00000084, false, 0, BAD, -1 },
		/* Error bits with no checked bit: nothing known. */
		{ 0x00000380, false, 0, UNK, UNK },
		{ 0xABCD8000, true, 0xABCD, UNK, UNK },
		{ 0x00648004, true, 0x0064, GOOD, GOOD },
		{ 0xABCD0001, false, 0, GOOD, GOOD },
	};
	struct ch39x_rx_frame f;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&f, 0x5A, sizeof(f));
		ch39x_rx_decode_info(&f, t[i].info);
		if (f.info == t[i].info && f.vlan_stripped == t[i].vlan &&
		    f.vlan_tci == t[i].tci && f.ip_csum == t[i].ip &&
		    (t[i].l4 >= 0 ? f.l4_csum == (enum ch39x_csum)t[i].l4 :
		     f.l4_csum != CH39X_CSUM_GOOD)) {
			n_pass++;
			continue;
		}
		n_fail++;
		printf("%s:%d: rx_decode_info entry %zu (0x%08x): vlan %d "
		       "tci 0x%04x ip %d l4 %d, want vlan %d tci 0x%04x ip %d "
		       "l4 %s%d\n", __FILE__, __LINE__, i, t[i].info,
		       f.vlan_stripped, f.vlan_tci, f.ip_csum, f.l4_csum,
		       t[i].vlan, t[i].tci, t[i].ip, t[i].l4 < 0 ? "not " : "",
		       t[i].l4 < 0 ? CH39X_CSUM_GOOD : t[i].l4);
	}
}

static struct ch39x_rx_parser ps;
static struct ch39x_rx_frame rf;	/* the last frame RX_FRAME took */

/*
 * The parser's table decode (ch39x_rx_decode_fast(), the inline RX path)
 * against the reference ch39x_rx_decode_info() for every low half of
 * cmd_1 (all the flag bits) with two TCIs: the same frame fields.
 */
static void
test_rx_decode_fast(void)
{
	static const uint32_t tci[] = { 0, 0xABCD };
	struct ch39x_rx_frame a, b;
	uint32_t lo, info, bad = 0;
	size_t t;

	ch39x_rx_parser_init(&ps, &v02ss);
	for (t = 0; t < sizeof(tci) / sizeof(tci[0]); t++) {
		for (lo = 0; lo < 0x10000; lo++) {
			info = tci[t] << 16 | lo;
			memset(&a, 0x5A, sizeof(a));
			memset(&b, 0xA5, sizeof(b));
			ch39x_rx_decode_info(&a, info);
			ch39x_rx_decode_fast(&ps, &b, info);
			if (a.info != b.info ||
			    a.vlan_stripped != b.vlan_stripped ||
			    a.vlan_tci != b.vlan_tci ||
			    a.ip_csum != b.ip_csum || a.l4_csum != b.l4_csum) {
				if (bad++ < 3)
					printf("%s:%d: cmd_1 0x%08x: the table "
					       "decodes ip %d l4 %d vlan %d, the "
					       "reference ip %d l4 %d vlan %d\n",
					       __FILE__, __LINE__, info,
					       b.ip_csum, b.l4_csum,
					       b.vlan_stripped, a.ip_csum,
					       a.l4_csum, a.vlan_stripped);
			}
		}
	}
	CHECK_EQ(bad, 0u);
}

#define RX_FRAME(data, len, seed, strad) \
	rx_frame(__LINE__, (data), (len), (seed), (strad))
#define RX_NONE() \
	check_at(ch39x_rx_next(&ps, &rf) == 0, __FILE__, __LINE__, "no more frames")
#define RX_STATS(fr, by, bad, strad) do {				\
	CHECK_EQ(ps.stats.frames, fr);					\
	CHECK_EQ(ps.stats.frame_bytes, by);				\
	CHECK_EQ(ps.stats.bad_headers, bad);				\
	CHECK_EQ(ps.stats.straddled, strad);				\
} while (0)
#define RX_META(inf, vlan, tci, ip, l4) do {				\
	CHECK_EQ(rf.info, inf);						\
	CHECK_EQ(rf.vlan_stripped, vlan);				\
	CHECK_EQ(rf.vlan_tci, tci);					\
	CHECK_EQ(rf.ip_csum, ip);					\
	CHECK_EQ(rf.l4_csum, l4);					\
} while (0)

/*
 * Expect the next frame: len pattern bytes of seed, at data (NULL: any
 * place, e.g. the parser's carry), straddled or not.
 */
static void
rx_frame(int line, const uint8_t *data, uint32_t len, uint8_t seed,
	 bool strad)
{
	int r;

	memset(&rf, 0x5A, sizeof(rf));
	r = ch39x_rx_next(&ps, &rf);
	if (r == 1 && (data == NULL || rf.data == data) && rf.len == len &&
	    rf.straddled == strad && pat_ok(rf.data, len, seed)) {
		n_pass++;
		return;
	}
	n_fail++;
	if (r != 1)
		printf("%s:%d: rx_next gave %d, want a frame of %u\n",
		       __FILE__, line, r, len);
	else
		printf("%s:%d: frame %s, len %u straddled %d content %s; "
		       "want len %u straddled %d\n", __FILE__, line,
		       data == NULL || rf.data == data ? "in place" :
		       "misplaced", rf.len, rf.straddled,
		       rf.len == len && pat_ok(rf.data, len, seed) ?
		       "ok" : "wrong", len, strad);
}

static void
test_rx_records(void)
{
	uint32_t tail;

	/*
	 * V01: 60 at 0; 61 at 68 with garbage cmd_1 (ignored); 98 at 140
	 * with cmd_0 bits 31..16 set (ignored by V1.7); 246, padded 248.
	 */
	CHECK_EQ(xfer(xa, 3, 0x3C, 0, 60, 0x10, 0x3D, 0x0001800F, 61, 0x20,
		      0xABCD0062, 0, 98, 0x30), 248);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 248);
	RX_FRAME(xa + 8, 60, 0x10, false);
	RX_META(0, false, 0, UNK, UNK);
	RX_FRAME(xa + 76, 61, 0x20, false);
	RX_META(0, false, 0, UNK, UNK);
	RX_FRAME(xa + 148, 98, 0x30, false);
	RX_NONE();
	RX_NONE();
	RX_STATS(3, 219, 0, 0);

	/*
	 * V02: 60 UDP4 at 0; 65 VLAN 0x0064 + TCP4 at 68 (73 -> 76); 62 UDP4
	 * with UDP error at 144 (70 -> 72); 1514 TCP6 at 216; 1740 bytes.
	 */
	CHECK_EQ(xfer(xb, 4, 0x3C, 0x00000001, 60, 0x40,
		      0x41, 0x00648004, 65, 0x50, 0x3E, 0x00000201, 62, 0x60,
		      0x05EA, 0x00000008, 1514, 0x70), 1740);
	ch39x_rx_parser_init(&ps, &v02hs);
	ch39x_rx_begin(&ps, xb, 1740);
	RX_FRAME(xb + 8, 60, 0x40, false);
	RX_META(0x00000001, false, 0, GOOD, GOOD);
	RX_FRAME(xb + 76, 65, 0x50, false);
	RX_META(0x00648004, true, 0x0064, GOOD, GOOD);
	RX_FRAME(xb + 152, 62, 0x60, false);
	RX_META(0x00000201, false, 0, GOOD, BAD);
	RX_FRAME(xb + 224, 1514, 0x70, false);
	RX_META(0x00000008, false, 0, UNK, GOOD);
	RX_NONE();
	RX_STATS(4, 1701, 0, 0);

	/* Trailing zero bytes (4 and 7) after the last record are ignored. */
	for (tail = 4; tail <= 7; tail += 3) {
		ch39x_rx_parser_init(&ps, &v02hs);
		xfer(xa, 1, 0x3C, 0, 60, 0x01);
		memset(xa + 68, 0, tail);
		ch39x_rx_begin(&ps, xa, 68 + tail);
		RX_FRAME(xa + 8, 60, 0x01, false);
		RX_NONE();
		CHECK_EQ(xfer(xb, 1, 0x40, 0, 64, 0x02), 72);
		ch39x_rx_begin(&ps, xb, 72);
		RX_FRAME(xb + 8, 64, 0x02, false);
		RX_NONE();
		RX_STATS(2, 124, 0, 0);
	}
}

static void
test_rx_straddle(void)
{
	static uint8_t whole[3008];

	/*
	 * Two transfers, V01. T1 (176): A 60 at 0, B (141 bytes, record 149
	 * -> 152) header at 68 and its first 100 bytes. T2 (44, short but
	 * continuing): B's last 41 bytes and 3 pad bytes. T3: C 60.
	 */
	CHECK_EQ(xfer(whole, 1, 0x8D, 0, 141, 0x80), 152);
	xfer(xa, 1, 0x3C, 0, 60, 0x11);
	memcpy(xa + 68, whole, 108);
	memcpy(xb, whole + 108, 44);
	xfer(xc, 1, 0x3C, 0, 60, 0x12);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 176);
	RX_FRAME(xa + 8, 60, 0x11, false);
	RX_NONE();
	ch39x_rx_begin(&ps, xb, 44);
	RX_FRAME(NULL, 141, 0x80, true);
	RX_META(0, false, 0, UNK, UNK);
	RX_NONE();
	CHECK_EQ(ps.stats.short_xfers, 0);
	ch39x_rx_begin(&ps, xc, 68);
	RX_FRAME(xc + 8, 60, 0x12, false);
	RX_NONE();
	RX_STATS(3, 261, 0, 1);

	/*
	 * Three transfers, V02 SS. B = 3000 bytes (0x0BB8), cmd_1 VLAN
	 * 0x2005 + TCP4 checked = 0x20058004. T1: header + 992 bytes (1000);
	 * T2: the next 1000; T3: the last 1008 (3008 is aligned) then C 60
	 * with UDP6 checked: 1076 bytes.
	 */
	CHECK_EQ(xfer(whole, 1, 0x0BB8, 0x20058004, 3000, 0x90), 3008);
	memcpy(xa, whole, 1000);
	memcpy(xb, whole + 1000, 1000);
	memcpy(xc, whole + 2000, 1008);
	xfer(xc + 1008, 1, 0x3C, 0x00000002, 60, 0x91);
	ch39x_rx_parser_init(&ps, &v02ss);
	ch39x_rx_begin(&ps, xa, 1000);
	RX_NONE();
	ch39x_rx_begin(&ps, xb, 1000);
	RX_NONE();
	RX_STATS(0, 0, 0, 0);
	/* Scribble over T1 and T2: the carry must not point into them. */
	memset(xa, 0x77, 1000);
	memset(xb, 0x77, 1000);
	ch39x_rx_begin(&ps, xc, 1076);
	RX_FRAME(NULL, 3000, 0x90, true);
	RX_META(0x20058004, true, 0x2005, GOOD, GOOD);
	RX_FRAME(xc + 1016, 60, 0x91, false);
	RX_META(0x00000002, false, 0, UNK, GOOD);
	RX_NONE();
	RX_STATS(2, 3060, 0, 1);

	/*
	 * The header split between cmd_0 and cmd_1, V01. T1 (72): A 60, then
	 * cmd_0 of B (101 bytes). T2 (180): B's cmd_1 (ignored on V01), its
	 * 101 bytes and 3 pad bytes (record 109 -> 112), then C 61 at 108.
	 */
	CHECK_EQ(xfer(whole, 1, 0x65, 0xDDCCBBAA, 101, 0xA0), 112);
	xfer(xa, 1, 0x3C, 0, 60, 0x13);
	memcpy(xa + 68, whole, 4);
	memcpy(xb, whole + 4, 108);
	xfer(xb + 108, 1, 0x3D, 0, 61, 0xA1);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 72);
	RX_FRAME(xa + 8, 60, 0x13, false);
	RX_NONE();
	ch39x_rx_begin(&ps, xb, 180);
	RX_FRAME(NULL, 101, 0xA0, true);
	RX_META(0, false, 0, UNK, UNK);
	RX_FRAME(xb + 116, 61, 0xA1, false);
	RX_NONE();
	RX_STATS(3, 222, 0, 1);

	/*
	 * The header split inside cmd_1, V02 HS. B = 200 bytes, cmd_1 =
	 * 0x00648001 (VLAN 0x0064, UDP4 checked). T1 (74): A 60 then 6
	 * header bytes; T2 (202): the last 2 header bytes and the frame.
	 */
	CHECK_EQ(xfer(whole, 1, 0xC8, 0x00648001, 200, 0xB0), 208);
	xfer(xa, 1, 0x3C, 0, 60, 0x14);
	memcpy(xa + 68, whole, 6);
	memcpy(xb, whole + 6, 202);
	ch39x_rx_parser_init(&ps, &v02hs);
	ch39x_rx_begin(&ps, xa, 74);
	RX_FRAME(xa + 8, 60, 0x14, false);
	RX_NONE();
	ch39x_rx_begin(&ps, xb, 202);
	RX_FRAME(NULL, 200, 0xB0, true);
	RX_META(0x00648001, true, 0x0064, GOOD, GOOD);
	RX_NONE();
	RX_STATS(2, 260, 0, 1);
}

static void
test_rx_errors(void)
{
	/*
	 * Length 59 (< 60) at 68: bad header; the valid record after it at
	 * 136 is dropped with the rest of T1. T2 parses from offset 0.
	 */
	CHECK_EQ(xfer(xa, 3, 0x3C, 0, 60, 0x21, 0x3B, 0, 59, 0x22,
		      0x3C, 0, 60, 0x23), 204);
	CHECK_EQ(xfer(xb, 2, 0x3C, 0, 60, 0x24, 0x3D, 0, 61, 0x25), 140);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 204);
	RX_FRAME(xa + 8, 60, 0x21, false);
	RX_NONE();
	RX_NONE();
	RX_STATS(1, 60, 1, 0);
	ch39x_rx_begin(&ps, xb, 140);
	RX_FRAME(xb + 8, 60, 0x24, false);
	RX_FRAME(xb + 76, 61, 0x25, false);
	RX_NONE();
	RX_STATS(3, 181, 1, 0);

	/* V01: 1519 (0x05EF) is over 1518 and bad; 1518 (0x05EE) is fine. */
	CHECK_EQ(xfer(xa, 2, 0x05EF, 0, 1519, 0x26, 0x3C, 0, 60, 0x27), 1596);
	CHECK_EQ(xfer(xb, 1, 0x05EE, 0, 1518, 0x28), 1528);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 1596);
	RX_NONE();
	RX_STATS(0, 0, 1, 0);
	ch39x_rx_begin(&ps, xb, 1528);
	RX_FRAME(xb + 8, 1518, 0x28, false);
	RX_NONE();
	RX_STATS(1, 1518, 1, 0);

	/* V02: 9217 (0x2401) bad, 9216 (0x2400) fine. */
	CHECK_EQ(xfer(xa, 1, 0x2401, 0, 9217, 0x29), 9228);
	CHECK_EQ(xfer(xb, 1, 0x2400, 0, 9216, 0x2A), 9224);
	ch39x_rx_parser_init(&ps, &v02ss);
	ch39x_rx_begin(&ps, xa, 9228);
	RX_NONE();
	ch39x_rx_begin(&ps, xb, 9224);
	RX_FRAME(xb + 8, 9216, 0x2A, false);
	RX_NONE();
	RX_STATS(1, 9216, 1, 0);

	/*
	 * A header split across transfers with length 20 (0x14): found bad
	 * once complete in T2, the rest of T2 is dropped; T3 parses.
	 */
	xfer(xa, 1, 0x3C, 0, 60, 0x2B);
	xfer(xa + 68, 1, 0x14, 0, 0, 0);
	memset(xb, 0, 4);
	xfer(xb + 4, 1, 0x3C, 0, 60, 0x2C);
	xfer(xc, 1, 0x3C, 0, 60, 0x2D);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 72);
	RX_FRAME(xa + 8, 60, 0x2B, false);
	RX_NONE();
	ch39x_rx_begin(&ps, xb, 72);
	RX_NONE();
	RX_STATS(1, 60, 1, 0);
	ch39x_rx_begin(&ps, xc, 68);
	RX_FRAME(xc + 8, 60, 0x2D, false);
	RX_STATS(2, 120, 1, 0);

	/* Short transfers: 67 bytes with no carry is skipped; 68 is parsed. */
	ch39x_rx_parser_init(&ps, &v01hs);
	xfer(xa, 1, 0x3C, 0, 60, 0x2E);
	ch39x_rx_begin(&ps, xa, 67);
	RX_NONE();
	CHECK_EQ(ps.stats.short_xfers, 1);
	ch39x_rx_begin(&ps, xa, 1);
	RX_NONE();
	CHECK_EQ(ps.stats.short_xfers, 2);
	ch39x_rx_reset(&ps);
	CHECK_EQ(ps.stats.carry_lost, 0);	/* nothing was carried */
	ch39x_rx_begin(&ps, xa, 68);
	RX_FRAME(xa + 8, 60, 0x2E, false);
	RX_NONE();
	CHECK_EQ(ps.stats.short_xfers, 2);
	RX_STATS(1, 60, 0, 0);

	/*
	 * ch39x_rx_reset with a carry: T1 holds the header and 92 of 200
	 * bytes; reset counts carry_lost and T2 starts afresh.
	 */
	xfer(xa, 1, 0xC8, 0, 200, 0x2F);
	xfer(xb, 1, 0x3D, 0, 61, 0x30);
	ch39x_rx_parser_init(&ps, &v01hs);
	ch39x_rx_begin(&ps, xa, 100);
	RX_NONE();
	ch39x_rx_reset(&ps);
	CHECK_EQ(ps.stats.carry_lost, 1);
	ch39x_rx_reset(&ps);
	CHECK_EQ(ps.stats.carry_lost, 1);
	ch39x_rx_begin(&ps, xb, 72);
	RX_FRAME(xb + 8, 61, 0x30, false);
	RX_NONE();
	RX_STATS(1, 61, 0, 0);
	CHECK_EQ(ps.stats.short_xfers, 0);
}

/* ---- Interrupt events (§6) ---- */

static struct ch39x_event ev;

#define EVT(p, b, len, up, mbps, fd) \
	evt(__LINE__, (p), (b), (len), (up), (mbps), (fd))
#define EVT_CNT(rx, ovf, crc, tx) do {					\
	CHECK_EQ(ev.rx_packets, rx);					\
	CHECK_EQ(ev.rx_overflow, ovf);					\
	CHECK_EQ(ev.rx_crc_errors, crc);				\
	CHECK_EQ(ev.tx_packets, tx);					\
} while (0)

/* Parse an event that must be accepted, and check its link fields. */
static void
evt(int line, const struct ch39x_profile *p, const uint8_t *b, uint32_t len,
    bool up, uint32_t mbps, bool fd)
{
	int rc;

	memset(&ev, 0x5A, sizeof(ev));
	rc = ch39x_event_parse(p, b, len, &ev);
	if (rc == 0 && ev.link_up == up && ev.speed_mbps == mbps &&
	    ev.full_duplex == fd) {
		n_pass++;
		return;
	}
	n_fail++;
	printf("%s:%d: event_parse rc %d link %d speed %u fd %d, want 0 %d "
	       "%u %d\n", __FILE__, line, rc, ev.link_up, ev.speed_mbps,
	       ev.full_duplex, up, mbps, fd);
}

static void
test_events(void)
{
	/* V01: link up + full duplex (0x41), 100M; rx 10, 2, 3, tx. */
	static const uint8_t e1[16] = { 0x41, 0, 0, 0, 0x0A, 0, 0, 0,
		0x02, 0x00, 0x03, 0x00, 0x78, 0x56, 0x34, 0x12 };
	/* V02: link, bit 7 and bit 4 (1000M wins), FD; reserved set. */
	static const uint8_t e3[32] = { 0xD1, 0, 0, 0, 0x10, 0x20, 0x30, 0x40,
		0x05, 0x00, 0x06, 0x00, 0x11, 0x22, 0x33, 0x44,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
	/* V02 build of {up, 1000, FD, 0x01020304, 0x0506, 0x0708, ...}. */
	static const uint8_t e4[32] = { 0x51, 0, 0, 0, 0x04, 0x03, 0x02, 0x01,
		0x06, 0x05, 0x08, 0x07, 0x0C, 0x0B, 0x0A, 0x09 };
	/* V01 build of {up, 10, HD, 7, 1, 2, 9}. */
	static const uint8_t e5[16] = { 0xC0, 0, 0, 0, 0x07, 0, 0, 0,
		0x01, 0, 0x02, 0, 0x09, 0, 0, 0 };
	struct ch39x_event in;
	uint8_t b[40];

	EVT(&v01hs, e1, 16, true, 100, true);
	EVT_CNT(10, 2, 3, 0x12345678);
	memcpy(b, e1, 16);
	b[0] = 0xC0;	/* link up, bit 7: 10M, half duplex */
	b[8] = 0x34;
	b[9] = 0x12;
	b[11] = 0xAB;
	EVT(&v01hs, b, 16, true, 10, false);
	EVT_CNT(10, 0x1234, 0xAB03, 0x12345678);
	b[0] = 0x50;	/* bit 4 means nothing on V01 */
	EVT(&v01hs, b, 16, true, 100, false);
	b[0] = 0x00;
	EVT(&v01hs, b, 16, false, 100, false);
	EVT(&v01hs, e3, 32, true, 10, true);	/* longer is fine */

	/* Too short: V01 < 16, V02 < 32 (a V01-sized event too). */
	CHECK_EQ(ch39x_event_parse(&v01hs, e1, 15, &ev), -1);
	CHECK_EQ(ch39x_event_parse(&v01hs, e1, 0, &ev), -1);
	CHECK_EQ(ch39x_event_parse(&v02ss, e3, 31, &ev), -1);
	CHECK_EQ(ch39x_event_parse(&v02ss, e3, 16, &ev), -1);

	EVT(&v02ss, e3, 32, true, 1000, true);
	EVT_CNT(0x40302010, 5, 6, 0x44332211);
	memcpy(b, e3, 32);
	b[0] = 0xC1;
	EVT(&v02ss, b, 32, true, 10, true);
	b[0] = 0x41;
	EVT(&v02ss, b, 32, true, 100, true);
	b[0] = 0x10;
	EVT(&v02ss, b, 32, false, 1000, false);

	/* Build: byte-exact, then parse back. */
	memset(&in, 0, sizeof(in));
	in.link_up = true;
	in.speed_mbps = 1000;
	in.full_duplex = true;
	in.rx_packets = 0x01020304;
	in.rx_overflow = 0x0506;
	in.rx_crc_errors = 0x0708;
	in.tx_packets = 0x090A0B0C;
	memset(b, 0xEE, sizeof(b));
	CHECK_EQ(ch39x_event_build(&v02ss, &in, b, sizeof(b)), 32);
	CHECK_MEM(b, e4, 32);
	CHECK_EQ(b[32], 0xEE);
	EVT(&v02ss, b, 32, true, 1000, true);
	EVT_CNT(0x01020304, 0x0506, 0x0708, 0x090A0B0C);
	CHECK_EQ(ch39x_event_build(&v02ss, &in, b, 31), 0);

	memset(&in, 0, sizeof(in));
	in.link_up = true;
	in.speed_mbps = 10;
	in.rx_packets = 7;
	in.rx_overflow = 1;
	in.rx_crc_errors = 2;
	in.tx_packets = 9;
	memset(b, 0xEE, sizeof(b));
	CHECK_EQ(ch39x_event_build(&v01hs, &in, b, sizeof(b)), 16);
	CHECK_MEM(b, e5, 16);
	CHECK_EQ(b[16], 0xEE);
	EVT(&v01hs, b, 16, true, 10, false);
	EVT_CNT(7, 1, 2, 9);
	CHECK_EQ(ch39x_event_build(&v01hs, &in, b, 15), 0);

	/* V01 link down, 100M full duplex: link_stat 0x01. */
	memset(&in, 0, sizeof(in));
	in.speed_mbps = 100;
	in.full_duplex = true;
	CHECK_EQ(ch39x_event_build(&v01hs, &in, b, 16), 16);
	CHECK_EQ(b[0], 0x01);
	EVT(&v01hs, b, 16, false, 100, true);
}

int
main(void)
{
	prof(&v01hs, 0x5397, CH39X_SPEED_HIGH);
	prof(&v01fs, 0x5396, CH39X_SPEED_FULL);
	prof(&ch336, 0x5394, CH39X_SPEED_HIGH);
	prof(&ch339, 0x5395, CH39X_SPEED_FULL);
	prof(&v02ss, 0x5398, CH39X_SPEED_SUPER);
	prof(&v02hs, 0x5398, CH39X_SPEED_HIGH);
	prof(&v02fs, 0xE398, CH39X_SPEED_FULL);
	test_profiles();
	test_mc_hash();
	test_tx_encode();
	test_tx_agg_pack();
	test_tx_agg_end();
	test_rx_decode();
	test_rx_decode_fast();
	test_rx_records();
	test_rx_straddle();
	test_rx_errors();
	test_events();
	printf("test_vendor: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
