/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests for the vendor-mode framing codec (lib/ch39x/ch39x_vendor.c).
 * Every expected value is written out by hand from
 * shared/reference/ch39x-vendor-protocol.md (the "sheet"); none is computed
 * with the code under test.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ch39x_vendor.h"

static unsigned int n_pass;
static unsigned int n_fail;

#define CHECK(cond) do {						\
	if (cond) {							\
		n_pass++;						\
	} else {							\
		n_fail++;						\
		printf("%s:%d: CHECK failed: %s\n",			\
		       __FILE__, __LINE__, #cond);			\
	}								\
} while (0)

#define CHECK_EQ(got, want) do {					\
	unsigned long long g_ = (unsigned long long)(got);		\
	unsigned long long w_ = (unsigned long long)(want);		\
	if (g_ == w_) {							\
		n_pass++;						\
	} else {							\
		n_fail++;						\
		printf("%s:%d: CHECK_EQ failed: %s == %s "		\
		       "(got 0x%llx, want 0x%llx)\n", __FILE__,	\
		       __LINE__, #got, #want, g_, w_);			\
	}								\
} while (0)

#define CHECK_MEM(got, want, n) \
	check_mem(__FILE__, __LINE__, #got, (got), (want), (n))

static void
check_mem(const char *file, int line, const char *what, const uint8_t *got,
	  const uint8_t *want, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			n_fail++;
			printf("%s:%d: CHECK_MEM failed: %s differs at byte "
			       "%zu (got 0x%02x, want 0x%02x)\n", file, line,
			       what, i, got[i], want[i]);
			return;
		}
	}
	n_pass++;
}

/* A byte pattern that differs across records and across 256-byte steps. */
static uint8_t
pat(uint8_t seed, uint32_t i)
{
	return (uint8_t)(seed + i * 7u + (i >> 8));
}

static void
pat_fill(uint8_t *d, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		d[i] = pat(seed, i);
}

static bool
pat_ok(const uint8_t *d, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (d[i] != pat(seed, i))
			return false;
	return true;
}

/* Write a record: the 8 header bytes as given, then len pattern bytes. */
static void
put_rec(uint8_t *x, const uint8_t hdr[8], uint32_t len, uint8_t seed)
{
	memcpy(x, hdr, 8);
	pat_fill(x + 8, len, seed);
}

static uint8_t xa[32768], xb[32768], xc[32768];
static struct ch39x_rx_parser ps;

static struct ch39x_profile
prof(uint16_t pid, enum ch39x_usb_speed speed)
{
	struct ch39x_profile p;

	if (ch39x_profile_init(&p, pid, speed) != 0) {
		n_fail++;
		printf("%s:%d: profile 0x%04x/%d refused\n", __FILE__,
		       __LINE__, pid, (int)speed);
	}
	return p;
}

/* ---- Profiles (sheet sections 1, 3, 7, 8) ---- */

struct prof_want {
	uint16_t pid;
	enum ch39x_usb_speed speed;
	enum ch39x_family fam;
	uint8_t config;
	uint16_t maxp;
	bool one_frame;
	bool tx_ls;
	bool tx_zlp;
	bool gigabit;
	uint32_t tx_size;
	uint16_t tx_n;
	uint32_t rx_size;
	uint16_t rx_n;
	uint16_t max_mtu;
	uint32_t max_frame;	/* 0: not checked */
	uint16_t intr_len;
};

static const struct prof_want prof_table[] = {
	{ 0x5394, CH39X_SPEED_HIGH, CH39X_V01, 1, 512, true, false, true,
	  false, 4096, 10, 16384, 10, 1500, 1518, 16 },
	{ 0x5394, CH39X_SPEED_FULL, CH39X_V01, 1, 64, true, false, true,
	  false, 4096, 10, 16384, 10, 1500, 1518, 16 },
	{ 0x5395, CH39X_SPEED_HIGH, CH39X_V01, 1, 512, true, false, true,
	  false, 4096, 10, 16384, 10, 1500, 1518, 16 },
	{ 0x5396, CH39X_SPEED_HIGH, CH39X_V01, 1, 512, false, false, true,
	  false, 4096, 10, 16384, 10, 1500, 1518, 16 },
	{ 0x5397, CH39X_SPEED_HIGH, CH39X_V01, 1, 512, false, false, true,
	  false, 4096, 10, 16384, 10, 1500, 1518, 16 },
	{ 0x5397, CH39X_SPEED_FULL, CH39X_V01, 1, 64, false, false, true,
	  false, 4096, 10, 16384, 10, 1500, 1518, 16 },
	{ 0x5398, CH39X_SPEED_SUPER, CH39X_V02, 3, 1024, false, false, false,
	  true, 16384, 10, 32768, 16, 9198, 9216, 32 },
	{ 0x5398, CH39X_SPEED_HIGH, CH39X_V02, 3, 512, false, true, false,
	  true, 16384, 10, 32768, 10, 9198, 9216, 32 },
	{ 0x5398, CH39X_SPEED_FULL, CH39X_V02, 3, 64, false, true, false,
	  true, 8192, 4, 8192, 4, 8162, 0, 32 },
	{ 0xE398, CH39X_SPEED_SUPER, CH39X_V02, 3, 1024, false, false, false,
	  true, 16384, 10, 32768, 16, 9198, 9216, 32 },
	{ 0xE398, CH39X_SPEED_HIGH, CH39X_V02, 3, 512, false, true, false,
	  true, 16384, 10, 32768, 10, 9198, 9216, 32 },
	{ 0xE398, CH39X_SPEED_FULL, CH39X_V02, 3, 64, false, true, false,
	  true, 8192, 4, 8192, 4, 8162, 0, 32 },
};

static void
test_profiles(void)
{
	struct ch39x_profile p;
	size_t i;

	for (i = 0; i < sizeof(prof_table) / sizeof(prof_table[0]); i++) {
		const struct prof_want *w = &prof_table[i];

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
		if (w->fam == CH39X_V01) {
			CHECK_EQ(p.regs.mac_cfg, 0x40000700);
			CHECK_EQ(p.regs.mac_h, 0x40000710);
			CHECK_EQ(p.regs.mac_l, 0x40000714);
			CHECK_EQ(p.regs.hash_hi, 0x40000730);
			CHECK_EQ(p.regs.hash_lo, 0x40000734);
			CHECK_EQ(p.regs.macier, 0x4000073C);
			CHECK_EQ(p.regs.misc_cfg, 0);
		} else {
			CHECK_EQ(p.regs.mac_cfg, 0x40024000);
			CHECK_EQ(p.regs.mac_h, 0x40024010);
			CHECK_EQ(p.regs.mac_l, 0x40024014);
			CHECK_EQ(p.regs.hash_hi, 0x40024030);
			CHECK_EQ(p.regs.hash_lo, 0x40024034);
			CHECK_EQ(p.regs.macier, 0x4002403C);
			CHECK_EQ(p.regs.misc_cfg, 0x400240E8);
		}
	}

	/* V01 is USB 2.0: CH397 (and kin) at SuperSpeed is refused. */
	CHECK_EQ(ch39x_profile_init(&p, 0x5397, CH39X_SPEED_SUPER), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x5394, CH39X_SPEED_SUPER), -1);
	/* Unknown PIDs, and speeds beyond SuperSpeed (super-plus). */
	CHECK_EQ(ch39x_profile_init(&p, 0x5399, CH39X_SPEED_HIGH), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x1234, CH39X_SPEED_HIGH), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x0000, CH39X_SPEED_FULL), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0x5398, (enum ch39x_usb_speed)4), -1);
	CHECK_EQ(ch39x_profile_init(&p, 0xE398, (enum ch39x_usb_speed)0), -1);

	CHECK(strcmp(ch39x_chip_name(0x5394), "CH336") == 0);
	CHECK(strcmp(ch39x_chip_name(0x5395), "CH339") == 0);
	CHECK(strcmp(ch39x_chip_name(0x5396), "CH396") == 0);
	CHECK(strcmp(ch39x_chip_name(0x5397), "CH397") == 0);
	CHECK(strcmp(ch39x_chip_name(0x5398), "CH398") == 0);
	CHECK(strcmp(ch39x_chip_name(0xE398), "CH9153") == 0);
	CHECK(ch39x_chip_name(0x5399) == NULL);
}

/* ---- Multicast hash and rx mode (sheet section 3) ---- */

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

/* ---- TX header encoder (sheet section 5) ---- */

static void
enc_check(const char *file, int line, const struct ch39x_profile *p,
	  const struct ch39x_tx_desc *d, const uint8_t want[8])
{
	uint8_t hdr[8];

	memset(hdr, 0xCC, sizeof(hdr));
	ch39x_tx_encode(p, d, hdr);
	check_mem(file, line, "ch39x_tx_encode", hdr, want, 8);
}

#define ENC(p, d, ...) do {						\
	static const uint8_t w_[8] = { __VA_ARGS__ };			\
	enc_check(__FILE__, __LINE__, (p), (d), w_);			\
} while (0)

static void
test_tx_encode(void)
{
	struct ch39x_profile v01 = prof(0x5397, CH39X_SPEED_HIGH);
	struct ch39x_profile v02 = prof(0x5398, CH39X_SPEED_HIGH);
	struct ch39x_tx_desc d;

	/* V01: length only; cmd_1 stays 0 whatever is asked. */
	memset(&d, 0, sizeof(d));
	d.len = 60;
	ENC(&v01, &d, 0x3C, 0, 0, 0, 0, 0, 0, 0);
	d.len = 1514;
	d.csum_ip4 = d.csum_tcp = d.csum_udp = true;
	d.vlan_insert = true;
	d.vlan_tci = 0x0123;
	ENC(&v01, &d, 0xEA, 0x05, 0, 0, 0, 0, 0, 0);
	d.tso4 = true;
	d.tcpho = 54;
	d.mss = 1448;
	ENC(&v01, &d, 0xEA, 0x05, 0, 0, 0, 0, 0, 0);

	/* V02, no offload; length uses bits 17..0. */
	memset(&d, 0, sizeof(d));
	d.len = 42;
	ENC(&v02, &d, 0x2A, 0, 0, 0, 0, 0, 0, 0);
	d.len = 0x12345;
	ENC(&v02, &d, 0x45, 0x23, 0x01, 0, 0, 0, 0, 0);

	/* TCP/IPv4: bits 13 + 11 = 0x2800. */
	memset(&d, 0, sizeof(d));
	d.len = 100;
	d.csum_ip4 = d.csum_tcp = true;
	ENC(&v02, &d, 0x64, 0, 0, 0, 0x00, 0x28, 0, 0);
	/* UDP/IPv4: bits 13 + 12 = 0x3000. */
	d.csum_tcp = false;
	d.csum_udp = true;
	ENC(&v02, &d, 0x64, 0, 0, 0, 0x00, 0x30, 0, 0);
	/* UDP/IPv6: bit 12 only. */
	d.csum_ip4 = false;
	ENC(&v02, &d, 0x64, 0, 0, 0, 0x00, 0x10, 0, 0);
	/* TCP/IPv6: bit 11 only. */
	d.csum_udp = false;
	d.csum_tcp = true;
	ENC(&v02, &d, 0x64, 0, 0, 0, 0x00, 0x08, 0, 0);

	/* VLAN insert: bit 15, TCI 0x0123 in 31..16 -> 0x01238000. */
	memset(&d, 0, sizeof(d));
	d.len = 60;
	d.vlan_insert = true;
	d.vlan_tci = 0x0123;
	ENC(&v02, &d, 0x3C, 0, 0, 0, 0x00, 0x80, 0x23, 0x01);
	/* With UDP/IPv4 checksum and TCI 0xE00A -> 0xE00AB000. */
	d.vlan_tci = 0xE00A;
	d.csum_ip4 = d.csum_udp = true;
	ENC(&v02, &d, 0x3C, 0, 0, 0, 0x00, 0xB0, 0x0A, 0xE0);
	/* A TCI without vlan_insert is not sent. */
	d.vlan_insert = false;
	ENC(&v02, &d, 0x3C, 0, 0, 0, 0x00, 0x30, 0, 0);

	/*
	 * TSO4: len 9014 (0x2336) | bit 23 | TCPHO 54 (0x36) << 24
	 * = 0x36802336; MSS 1448 = 0x5A8; no checksum bits even if asked.
	 */
	memset(&d, 0, sizeof(d));
	d.len = 9014;
	d.tso4 = true;
	d.tcpho = 54;
	d.mss = 1448;
	d.csum_ip4 = d.csum_tcp = true;
	ENC(&v02, &d, 0x36, 0x23, 0x80, 0x36, 0xA8, 0x05, 0, 0);
	/* MSS 9000 is clamped to 2047 (0x7FF). */
	d.mss = 9000;
	ENC(&v02, &d, 0x36, 0x23, 0x80, 0x36, 0xFF, 0x07, 0, 0);
	/* MSS exactly 2047 kept; 2048 clamped. */
	d.mss = 2047;
	ENC(&v02, &d, 0x36, 0x23, 0x80, 0x36, 0xFF, 0x07, 0, 0);
	d.mss = 2048;
	ENC(&v02, &d, 0x36, 0x23, 0x80, 0x36, 0xFF, 0x07, 0, 0);

	/*
	 * TSO6: len 16000 (0x3E80) | bit 22 | TCPHO 74 (0x4A) << 24
	 * = 0x4A403E80; MSS 9000 -> 0x7FF; VLAN 0x0064 -> 0x006487FF.
	 */
	memset(&d, 0, sizeof(d));
	d.len = 16000;
	d.tso6 = true;
	d.tcpho = 74;
	d.mss = 9000;
	ENC(&v02, &d, 0x80, 0x3E, 0x40, 0x4A, 0xFF, 0x07, 0, 0);
	d.vlan_insert = true;
	d.vlan_tci = 0x0064;
	d.csum_tcp = true;
	ENC(&v02, &d, 0x80, 0x3E, 0x40, 0x4A, 0xFF, 0x87, 0x64, 0x00);
	/* TCPHO 255 fills bits 31..24. */
	d.tcpho = 255;
	d.mss = 1220;	/* 0x4C4 */
	d.vlan_insert = false;
	ENC(&v02, &d, 0x80, 0x3E, 0x40, 0xFF, 0xC4, 0x04, 0, 0);
}

/* ---- TX aggregator (sheet section 5) ---- */

static uint8_t tbuf[16384 + 4 + 64];
static uint8_t twant[16384 + 4 + 64];

/* Append a frame of len bytes filled with fill; returns its data offset. */
static uint32_t
agg_add(const struct ch39x_profile *p, struct ch39x_tx_agg *a,
	struct ch39x_tx_desc *d, uint32_t len, uint8_t fill)
{
	uint8_t *dst;

	d->len = len;
	CHECK(ch39x_tx_agg_fits(p, a, len));
	dst = ch39x_tx_agg_add(p, a, d);
	memset(dst, fill, len);
	return (uint32_t)(dst - a->buf);
}

static void
test_tx_agg_pack(void)
{
	struct ch39x_profile ss = prof(0x5398, CH39X_SPEED_SUPER);
	struct ch39x_profile v01 = prof(0x5397, CH39X_SPEED_HIGH);
	struct ch39x_profile ch336 = prof(0x5394, CH39X_SPEED_HIGH);
	struct ch39x_profile ch339 = prof(0x5395, CH39X_SPEED_FULL);
	struct ch39x_tx_desc d;
	struct ch39x_tx_agg a;
	struct ch39x_tx_end e;

	/*
	 * V02 SS, frames of 60, 61, 62, 63 bytes: records of 68, 72, 72, 72
	 * at 0, 68, 140, 212; 284 bytes, pad bytes zero (buffer was 0xAA).
	 * The second frame asks for a TCP/IPv4 checksum (cmd_1 0x2800).
	 */
	memset(tbuf, 0xAA, sizeof(tbuf));
	memset(twant, 0xAA, sizeof(twant));
	memset(&d, 0, sizeof(d));
	ch39x_tx_agg_init(&a, tbuf);
	CHECK_EQ(agg_add(&ss, &a, &d, 60, 0x11), 8);
	d.csum_ip4 = d.csum_tcp = true;
	CHECK_EQ(agg_add(&ss, &a, &d, 61, 0x22), 76);
	d.csum_ip4 = d.csum_tcp = false;
	CHECK_EQ(agg_add(&ss, &a, &d, 62, 0x33), 148);
	CHECK_EQ(agg_add(&ss, &a, &d, 63, 0x44), 220);
	CHECK_EQ(a.len, 284);
	CHECK_EQ(a.frames, 4);
	CHECK_EQ(a.frame_bytes, 246);
	CHECK_EQ(a.last_hdr, 212);
	{
		static const uint8_t h0[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h1[8] = { 0x3D, 0, 0, 0, 0, 0x28, 0, 0 };
		static const uint8_t h2[8] = { 0x3E, 0, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h3[8] = { 0x3F, 0, 0, 0, 0, 0, 0, 0 };

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
	}
	e = ch39x_tx_agg_finish(&ss, &a);
	CHECK_EQ(e.len, 284);
	CHECK(!e.zlp);
	CHECK(!e.tx_ls);
	CHECK_MEM(tbuf, twant, 300);

	/* First frame: only the record size against tx_xfer_size counts. */
	ch39x_tx_agg_init(&a, tbuf);
	CHECK(ch39x_tx_agg_fits(&v01, &a, 4088));	/* record 4096 */
	CHECK(!ch39x_tx_agg_fits(&v01, &a, 4089));	/* record 4100 */
	CHECK(ch39x_tx_agg_fits(&ss, &a, 16376));
	CHECK(!ch39x_tx_agg_fits(&ss, &a, 16377));

	/*
	 * The 68-byte rule on V01 (4096): 1514 + 1514 + 976 -> records
	 * 1524 + 1524 + 984 = 4032, 64 bytes left. A 42 or 56-byte frame
	 * (record 52 or 64) would fit but packing has stopped.
	 */
	memset(&d, 0, sizeof(d));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01, &a, &d, 1514, 1);
	agg_add(&v01, &a, &d, 1514, 2);
	agg_add(&v01, &a, &d, 976, 3);
	CHECK_EQ(a.len, 4032);
	CHECK(!ch39x_tx_agg_fits(&v01, &a, 42));
	CHECK(!ch39x_tx_agg_fits(&v01, &a, 56));

	/* 1514 + 1514 + 972 -> 4028: 68 left, a 60-byte frame still goes. */
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01, &a, &d, 1514, 1);
	agg_add(&v01, &a, &d, 1514, 2);
	agg_add(&v01, &a, &d, 972, 3);
	CHECK_EQ(a.len, 4028);
	CHECK(ch39x_tx_agg_fits(&v01, &a, 42));
	CHECK(!ch39x_tx_agg_fits(&v01, &a, 61));	/* record 72 > 68 */
	CHECK(!ch39x_tx_agg_fits(&v01, &a, 1514));
	agg_add(&v01, &a, &d, 60, 4);
	CHECK_EQ(a.len, 4096);
	CHECK_EQ(a.frames, 4);
	CHECK(!ch39x_tx_agg_fits(&v01, &a, 42));

	/* CH336 / CH339: one frame per transfer; CH397 packs. */
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&ch336, &a, &d, 60, 5);
	CHECK(!ch39x_tx_agg_fits(&ch336, &a, 60));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&ch339, &a, &d, 60, 5);
	CHECK(!ch39x_tx_agg_fits(&ch339, &a, 42));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01, &a, &d, 60, 5);
	CHECK(ch39x_tx_agg_fits(&v01, &a, 60));
}

static void
test_tx_agg_end(void)
{
	struct ch39x_profile hs = prof(0x5398, CH39X_SPEED_HIGH);
	struct ch39x_profile fs = prof(0xE398, CH39X_SPEED_FULL);
	struct ch39x_profile ss = prof(0x5398, CH39X_SPEED_SUPER);
	struct ch39x_profile v01 = prof(0x5397, CH39X_SPEED_HIGH);
	struct ch39x_profile v01fs = prof(0x5396, CH39X_SPEED_FULL);
	struct ch39x_tx_desc d;
	struct ch39x_tx_agg a;
	struct ch39x_tx_end e;

	/*
	 * V02 HS, one 504-byte frame with UDP/IPv4 checksum: record 512.
	 * cmd_0 = 504 | TX_LS = 0x001001F8, cmd_1 = 0x3000 untouched, then
	 * four zero trailer bytes: 516 bytes.
	 */
	memset(tbuf, 0xAA, sizeof(tbuf));
	memset(twant, 0xAA, sizeof(twant));
	memset(&d, 0, sizeof(d));
	d.csum_ip4 = d.csum_udp = true;
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&hs, &a, &d, 504, 0x5A);
	e = ch39x_tx_agg_finish(&hs, &a);
	CHECK_EQ(e.len, 516);
	CHECK(e.tx_ls);
	CHECK(!e.zlp);
	CHECK_EQ(a.len, 516);
	{
		static const uint8_t h[8] = { 0xF8, 0x01, 0x10, 0x00,
					      0x00, 0x30, 0x00, 0x00 };

		memcpy(twant, h, 8);
		memset(twant + 8, 0x5A, 504);
		memset(twant + 512, 0, 4);
	}
	CHECK_MEM(tbuf, twant, 530);

	/*
	 * V02 HS, 60 + 436 bytes: records 68 + 444 = 512. TX_LS only in the
	 * last record (0x001001B4); the first keeps 0x0000003C.
	 */
	memset(tbuf, 0xAA, sizeof(tbuf));
	memset(twant, 0xAA, sizeof(twant));
	memset(&d, 0, sizeof(d));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&hs, &a, &d, 60, 0x61);
	agg_add(&hs, &a, &d, 436, 0x62);
	e = ch39x_tx_agg_finish(&hs, &a);
	CHECK_EQ(e.len, 516);
	CHECK(e.tx_ls);
	CHECK(!e.zlp);
	{
		static const uint8_t h0[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h1[8] = { 0xB4, 0x01, 0x10, 0, 0, 0, 0, 0 };

		memcpy(twant, h0, 8);
		memset(twant + 8, 0x61, 60);
		memcpy(twant + 68, h1, 8);
		memset(twant + 76, 0x62, 436);
		memset(twant + 512, 0, 4);
	}
	CHECK_MEM(tbuf, twant, 530);

	/* V02 HS, 1016 + 1016 bytes: 2048 = 4 x 512, still TX_LS. */
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&hs, &a, &d, 1016, 0x63);
	agg_add(&hs, &a, &d, 1016, 0x64);
	e = ch39x_tx_agg_finish(&hs, &a);
	CHECK_EQ(e.len, 2052);
	CHECK(e.tx_ls);
	CHECK_EQ(tbuf[2], 0x00);	/* first cmd_0 0x000003F8 */
	CHECK_EQ(tbuf[1024 + 2], 0x10);	/* last cmd_0 0x001003F8 */

	/* V02 HS, not a multiple of 512: nothing added. */
	memset(tbuf, 0xAA, sizeof(tbuf));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&hs, &a, &d, 60, 0x65);
	e = ch39x_tx_agg_finish(&hs, &a);
	CHECK_EQ(e.len, 68);
	CHECK(!e.tx_ls);
	CHECK(!e.zlp);
	CHECK_EQ(tbuf[2], 0x00);
	CHECK_EQ(tbuf[68], 0xAA);

	/* V02 FS counts as hs_mode: 56 bytes -> record 64 -> TX_LS. */
	memset(tbuf, 0xAA, sizeof(tbuf));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&fs, &a, &d, 56, 0x66);
	e = ch39x_tx_agg_finish(&fs, &a);
	CHECK_EQ(e.len, 68);
	CHECK(e.tx_ls);
	CHECK(!e.zlp);
	{
		static const uint8_t h[8] = { 0x38, 0, 0x10, 0, 0, 0, 0, 0 };
		static const uint8_t z[4] = { 0, 0, 0, 0 };

		CHECK_MEM(tbuf, h, 8);
		CHECK_MEM(tbuf + 64, z, 4);
	}

	/* V02 SS at 1024 and at 512: neither TX_LS nor ZLP. */
	memset(tbuf, 0xAA, sizeof(tbuf));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&ss, &a, &d, 1016, 0x67);
	e = ch39x_tx_agg_finish(&ss, &a);
	CHECK_EQ(e.len, 1024);
	CHECK(!e.tx_ls);
	CHECK(!e.zlp);
	CHECK_EQ(tbuf[0], 0xF8);
	CHECK_EQ(tbuf[1], 0x03);
	CHECK_EQ(tbuf[2], 0x00);
	CHECK_EQ(tbuf[1024], 0xAA);
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&ss, &a, &d, 504, 0x68);
	e = ch39x_tx_agg_finish(&ss, &a);
	CHECK_EQ(e.len, 512);
	CHECK(!e.tx_ls);
	CHECK(!e.zlp);

	/* V01 HS at 512: ZLP, no TX_LS bit, no trailer. */
	memset(tbuf, 0xAA, sizeof(tbuf));
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01, &a, &d, 504, 0x69);
	e = ch39x_tx_agg_finish(&v01, &a);
	CHECK_EQ(e.len, 512);
	CHECK(e.zlp);
	CHECK(!e.tx_ls);
	{
		static const uint8_t h[8] = { 0xF8, 0x01, 0, 0, 0, 0, 0, 0 };

		CHECK_MEM(tbuf, h, 8);
	}
	CHECK_EQ(tbuf[512], 0xAA);

	/* V01 full transfer of 4096 (see the 68-byte rule test): ZLP. */
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01, &a, &d, 1514, 1);
	agg_add(&v01, &a, &d, 1514, 2);
	agg_add(&v01, &a, &d, 972, 3);
	agg_add(&v01, &a, &d, 60, 4);
	memset(tbuf + 4096, 0xAA, 4);
	e = ch39x_tx_agg_finish(&v01, &a);
	CHECK_EQ(e.len, 4096);
	CHECK(e.zlp);
	CHECK(!e.tx_ls);
	CHECK_EQ(tbuf[4096], 0xAA);
	CHECK_EQ(tbuf[4028 + 2], 0x00);

	/* V01 HS, 68 bytes: no ZLP. V01 FS, 64 bytes: ZLP. */
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01, &a, &d, 60, 0x6A);
	e = ch39x_tx_agg_finish(&v01, &a);
	CHECK_EQ(e.len, 68);
	CHECK(!e.zlp);
	ch39x_tx_agg_init(&a, tbuf);
	agg_add(&v01fs, &a, &d, 56, 0x6B);
	e = ch39x_tx_agg_finish(&v01fs, &a);
	CHECK_EQ(e.len, 64);
	CHECK(e.zlp);
	CHECK(!e.tx_ls);

	/* An empty aggregate ends with nothing. */
	ch39x_tx_agg_init(&a, tbuf);
	e = ch39x_tx_agg_finish(&v01, &a);
	CHECK_EQ(e.len, 0);
	CHECK(!e.zlp);
	e = ch39x_tx_agg_finish(&hs, &a);
	CHECK_EQ(e.len, 0);
	CHECK(!e.tx_ls);
}

/* ---- RX parser (sheet section 4) ---- */

static void
test_rx_decode(void)
{
	static const struct {
		uint32_t info;
		bool vlan;
		uint16_t tci;
		enum ch39x_csum ip;
		int l4;	/* an enum ch39x_csum, or -1: anything but GOOD */
	} t[] = {
		{ 0x00000000, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_UNKNOWN },
		{ 0x00000001, false, 0, CH39X_CSUM_GOOD, CH39X_CSUM_GOOD },
		{ 0x00000004, false, 0, CH39X_CSUM_GOOD, CH39X_CSUM_GOOD },
		{ 0x00000002, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_GOOD },
		{ 0x00000008, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_GOOD },
		{ 0x00000201, false, 0, CH39X_CSUM_GOOD, CH39X_CSUM_BAD },
		{ 0x00000104, false, 0, CH39X_CSUM_GOOD, CH39X_CSUM_BAD },
		{ 0x00000202, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_BAD },
		{ 0x00000108, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_BAD },
		/* An error bit of the other protocol does not matter. */
		{ 0x00000204, false, 0, CH39X_CSUM_GOOD, CH39X_CSUM_GOOD },
		{ 0x00000102, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_GOOD },
		/* The IPv4 header error does not matter for IPv6. */
		{ 0x00000082, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_GOOD },
		{ 0x00000088, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_GOOD },
		/*
		 * UDPv4/TCPv4 are good only with no IP error either
		 * (ch398_rx_cksum_offload), so the L4 verdict is not GOOD.
		 */
		{ 0x00000081, false, 0, CH39X_CSUM_BAD, -1 },
		{ 0x00000084, false, 0, CH39X_CSUM_BAD, -1 },
		/* Error bits with no checked bit: nothing known. */
		{ 0x00000380, false, 0, CH39X_CSUM_UNKNOWN, CH39X_CSUM_UNKNOWN },
		{ 0xABCD8000, true, 0xABCD, CH39X_CSUM_UNKNOWN,
		  CH39X_CSUM_UNKNOWN },
		{ 0x00648004, true, 0x0064, CH39X_CSUM_GOOD, CH39X_CSUM_GOOD },
		{ 0xABCD0001, false, 0, CH39X_CSUM_GOOD, CH39X_CSUM_GOOD },
	};
	struct ch39x_rx_frame f;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		memset(&f, 0x5A, sizeof(f));
		ch39x_rx_decode_info(&f, t[i].info);
		if (f.info != t[i].info || f.vlan_stripped != t[i].vlan ||
		    f.vlan_tci != t[i].tci || f.ip_csum != t[i].ip ||
		    (t[i].l4 >= 0 ? f.l4_csum != (enum ch39x_csum)t[i].l4 :
		     f.l4_csum == CH39X_CSUM_GOOD)) {
			n_fail++;
			printf("%s:%d: rx_decode_info entry %zu (0x%08x): "
			       "vlan %d tci 0x%04x ip %d l4 %d, want vlan %d "
			       "tci 0x%04x ip %d l4 %s%d\n", __FILE__,
			       __LINE__, i, t[i].info, f.vlan_stripped, f.vlan_tci,
			       f.ip_csum, f.l4_csum, t[i].vlan, t[i].tci,
			       t[i].ip, t[i].l4 < 0 ? "not " : "",
			       t[i].l4 < 0 ? CH39X_CSUM_GOOD : t[i].l4);
		} else {
			n_pass++;
		}
	}
}

static void
rx_feed(const uint8_t *buf, uint32_t len)
{
	ch39x_rx_begin(&ps, buf, len);
}

static void
test_rx_records(void)
{
	struct ch39x_profile v01 = prof(0x5397, CH39X_SPEED_HIGH);
	struct ch39x_profile v02 = prof(0x5398, CH39X_SPEED_HIGH);
	struct ch39x_rx_frame f;

	/*
	 * V01: 60 bytes at 0, 61 at 68 (cmd_1 garbage, ignored), 98 at 140
	 * with bits 31..16 of cmd_0 set (ignored); 140 + 8 + 98 = 246,
	 * padded transfer 248.
	 */
	{
		static const uint8_t h0[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h1[8] = { 0x3D, 0, 0, 0,
					       0x0F, 0x80, 0x01, 0x00 };
		static const uint8_t h2[8] = { 0x62, 0x00, 0xCD, 0xAB,
					       0, 0, 0, 0 };

		memset(xa, 0xEE, 300);
		put_rec(xa + 0, h0, 60, 0x10);
		put_rec(xa + 68, h1, 61, 0x20);
		put_rec(xa + 140, h2, 98, 0x30);
		xa[246] = xa[247] = 0;
	}
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 248);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xa + 8);
	CHECK_EQ(f.len, 60);
	CHECK(pat_ok(f.data, 60, 0x10));
	CHECK(!f.straddled);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xa + 76);
	CHECK_EQ(f.len, 61);
	CHECK(pat_ok(f.data, 61, 0x20));
	CHECK_EQ(f.info, 0);
	CHECK(!f.vlan_stripped);
	CHECK_EQ(f.vlan_tci, 0);
	CHECK_EQ(f.ip_csum, CH39X_CSUM_UNKNOWN);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_UNKNOWN);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xa + 148);
	CHECK_EQ(f.len, 98);
	CHECK(pat_ok(f.data, 98, 0x30));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.frames, 3);
	CHECK_EQ(ps.stats.frame_bytes, 219);
	CHECK_EQ(ps.stats.bad_headers, 0);
	CHECK_EQ(ps.stats.straddled, 0);

	/*
	 * V02: 60 UDP4 at 0; 65 VLAN 0x0064 + TCP4 at 68 (73 -> 76);
	 * 62 UDP4 with UDP error at 144 (70 -> 72); 1514 TCP6 at 216;
	 * 216 + 1522 = 1738 -> transfer 1740.
	 */
	{
		static const uint8_t h0[8] = { 0x3C, 0, 0, 0, 0x01, 0, 0, 0 };
		static const uint8_t h1[8] = { 0x41, 0, 0, 0,
					       0x04, 0x80, 0x64, 0x00 };
		static const uint8_t h2[8] = { 0x3E, 0, 0, 0, 0x01, 0x02, 0, 0 };
		static const uint8_t h3[8] = { 0xEA, 0x05, 0, 0,
					       0x08, 0, 0, 0 };

		memset(xb, 0, 1740);
		put_rec(xb + 0, h0, 60, 0x40);
		put_rec(xb + 68, h1, 65, 0x50);
		put_rec(xb + 144, h2, 62, 0x60);
		put_rec(xb + 216, h3, 1514, 0x70);
	}
	ch39x_rx_parser_init(&ps, &v02);
	rx_feed(xb, 1740);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 8);
	CHECK_EQ(f.len, 60);
	CHECK_EQ(f.info, 0x00000001);
	CHECK(!f.vlan_stripped);
	CHECK_EQ(f.ip_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 76);
	CHECK_EQ(f.len, 65);
	CHECK(pat_ok(f.data, 65, 0x50));
	CHECK(f.vlan_stripped);
	CHECK_EQ(f.vlan_tci, 0x0064);
	CHECK_EQ(f.ip_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 152);
	CHECK_EQ(f.len, 62);
	CHECK(pat_ok(f.data, 62, 0x60));
	CHECK_EQ(f.ip_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_BAD);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 224);
	CHECK_EQ(f.len, 1514);
	CHECK(pat_ok(f.data, 1514, 0x70));
	CHECK(!f.vlan_stripped);
	CHECK_EQ(f.ip_csum, CH39X_CSUM_UNKNOWN);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_GOOD);
	CHECK(!f.straddled);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.frames, 4);
	CHECK_EQ(ps.stats.frame_bytes, 1701);

	/* Trailing zero bytes (4 and 7) after the last record are ignored. */
	{
		static const uint8_t h[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h2[8] = { 0x40, 0, 0, 0, 0, 0, 0, 0 };
		uint32_t tail;

		for (tail = 4; tail <= 7; tail += 3) {
			ch39x_rx_parser_init(&ps, &v02);
			memset(xa, 0, 80);
			put_rec(xa, h, 60, 0x01);
			rx_feed(xa, 68 + tail);
			CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
			CHECK_EQ(f.len, 60);
			CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
			put_rec(xb, h2, 64, 0x02);
			rx_feed(xb, 72);
			CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
			CHECK(f.data == xb + 8);
			CHECK_EQ(f.len, 64);
			CHECK(!f.straddled);
			CHECK(pat_ok(f.data, 64, 0x02));
			CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
			CHECK_EQ(ps.stats.bad_headers, 0);
			CHECK_EQ(ps.stats.straddled, 0);
			CHECK_EQ(ps.stats.frames, 2);
		}
	}
}

static void
test_rx_straddle(void)
{
	struct ch39x_profile v01 = prof(0x5397, CH39X_SPEED_HIGH);
	struct ch39x_profile v02 = prof(0x5398, CH39X_SPEED_HIGH);
	struct ch39x_profile ss = prof(0xE398, CH39X_SPEED_SUPER);
	static const uint8_t h60[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
	struct ch39x_rx_frame f;

	/*
	 * Two transfers, V01. T1 (176): A 60 at 0, B (141 bytes, record 149
	 * -> 152) header at 68 and its first 100 bytes. T2 (44, short but
	 * continuing): B's last 41 bytes and 3 pad bytes. T3: C 60.
	 */
	{
		static const uint8_t hb[8] = { 0x8D, 0, 0, 0, 0, 0, 0, 0 };

		put_rec(xc, hb, 141, 0x80);	/* the whole record, split below */
		put_rec(xa, h60, 60, 0x11);
		memcpy(xa + 68, xc, 108);
		memcpy(xb, xc + 108, 41);
		memset(xb + 41, 0, 3);
	}
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 176);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(f.len, 60);
	CHECK(pat_ok(f.data, 60, 0x11));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	rx_feed(xb, 44);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(f.len, 141);
	CHECK(f.straddled);
	CHECK(pat_ok(f.data, 141, 0x80));
	CHECK_EQ(f.info, 0);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.short_xfers, 0);
	CHECK_EQ(ps.stats.straddled, 1);
	put_rec(xc, h60, 60, 0x12);
	rx_feed(xc, 68);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xc + 8);
	CHECK(!f.straddled);
	CHECK(pat_ok(f.data, 60, 0x12));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.frames, 3);
	CHECK_EQ(ps.stats.frame_bytes, 261);
	CHECK_EQ(ps.stats.straddled, 1);
	CHECK_EQ(ps.stats.bad_headers, 0);

	/*
	 * Three transfers, V02 SS. B = 3000 bytes (0x0BB8), cmd_1 VLAN
	 * 0x2005 + TCP4 checked = 0x20058004. T1: header + 992 bytes (1000);
	 * T2: the next 1000; T3: the last 1008 (3008 is aligned) then C 60
	 * with UDP6 checked: 1076 bytes.
	 */
	{
		static const uint8_t hb[8] = { 0xB8, 0x0B, 0, 0,
					       0x04, 0x80, 0x05, 0x20 };
		static const uint8_t hc[8] = { 0x3C, 0, 0, 0, 0x02, 0, 0, 0 };
		static uint8_t whole[3008];

		put_rec(whole, hb, 3000, 0x90);
		memcpy(xa, whole, 1000);
		memcpy(xb, whole + 1000, 1000);
		memcpy(xc, whole + 2000, 1008);
		put_rec(xc + 1008, hc, 60, 0x91);
	}
	ch39x_rx_parser_init(&ps, &ss);
	rx_feed(xa, 1000);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	rx_feed(xb, 1000);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.frames, 0);
	/* Scribble over T1 and T2: the carry must not point into them. */
	memset(xa, 0x77, 1000);
	memset(xb, 0x77, 1000);
	rx_feed(xc, 1076);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(f.len, 3000);
	CHECK(f.straddled);
	CHECK(pat_ok(f.data, 3000, 0x90));
	CHECK_EQ(f.info, 0x20058004);
	CHECK(f.vlan_stripped);
	CHECK_EQ(f.vlan_tci, 0x2005);
	CHECK_EQ(f.ip_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xc + 1016);
	CHECK_EQ(f.len, 60);
	CHECK(!f.straddled);
	CHECK(pat_ok(f.data, 60, 0x91));
	CHECK_EQ(f.ip_csum, CH39X_CSUM_UNKNOWN);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.straddled, 1);
	CHECK_EQ(ps.stats.frames, 2);
	CHECK_EQ(ps.stats.frame_bytes, 3060);

	/*
	 * The header split between cmd_0 and cmd_1, V01. T1 (72): A 60, then
	 * cmd_0 of B (100 bytes). T2 (176): B's cmd_1 (ignored on V01), its
	 * 100 bytes (108 aligned), then C 61 (69 -> 72).
	 */
	{
		static const uint8_t hb[8] = { 0x64, 0, 0, 0,
					       0xAA, 0xBB, 0xCC, 0xDD };
		static const uint8_t hc[8] = { 0x3D, 0, 0, 0, 0, 0, 0, 0 };

		put_rec(xc, hb, 100, 0xA0);
		put_rec(xa, h60, 60, 0x13);
		memcpy(xa + 68, xc, 4);
		memcpy(xb, xc + 4, 104);
		put_rec(xb + 104, hc, 61, 0xA1);
		memset(xb + 173, 0, 3);
	}
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 72);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(pat_ok(f.data, 60, 0x13));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	rx_feed(xb, 176);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(f.len, 100);
	CHECK(f.straddled);
	CHECK(pat_ok(f.data, 100, 0xA0));
	CHECK_EQ(f.info, 0);
	CHECK(!f.vlan_stripped);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 112);
	CHECK_EQ(f.len, 61);
	CHECK(!f.straddled);
	CHECK(pat_ok(f.data, 61, 0xA1));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.straddled, 1);
	CHECK_EQ(ps.stats.frames, 3);
	CHECK_EQ(ps.stats.bad_headers, 0);

	/*
	 * The header split inside cmd_1, V02 HS. B = 200 bytes, cmd_1 =
	 * 0x00648001 (VLAN 0x0064, UDP4 checked). T1 (74): A 60 then 6
	 * header bytes; T2 (202): the last 2 header bytes and the frame.
	 */
	{
		static const uint8_t hb[8] = { 0xC8, 0, 0, 0,
					       0x01, 0x80, 0x64, 0x00 };

		put_rec(xc, hb, 200, 0xB0);
		put_rec(xa, h60, 60, 0x14);
		memcpy(xa + 68, xc, 6);
		memcpy(xb, xc + 6, 202);
	}
	ch39x_rx_parser_init(&ps, &v02);
	rx_feed(xa, 74);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	rx_feed(xb, 202);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(f.len, 200);
	CHECK(f.straddled);
	CHECK(pat_ok(f.data, 200, 0xB0));
	CHECK(f.vlan_stripped);
	CHECK_EQ(f.vlan_tci, 0x0064);
	CHECK_EQ(f.ip_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(f.l4_csum, CH39X_CSUM_GOOD);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.straddled, 1);
	CHECK_EQ(ps.stats.frames, 2);
}

static void
test_rx_errors(void)
{
	struct ch39x_profile v01 = prof(0x5396, CH39X_SPEED_HIGH);
	struct ch39x_profile ss = prof(0x5398, CH39X_SPEED_SUPER);
	static const uint8_t h60[8] = { 0x3C, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t h61[8] = { 0x3D, 0, 0, 0, 0, 0, 0, 0 };
	struct ch39x_rx_frame f;

	/*
	 * Length 59 (< 60) at 68: bad header; the valid record after it at
	 * 136 is dropped with the rest of T1. T2 parses from offset 0.
	 */
	{
		static const uint8_t h59[8] = { 0x3B, 0, 0, 0, 0, 0, 0, 0 };

		put_rec(xa, h60, 60, 0x21);
		put_rec(xa + 68, h59, 59, 0x22);
		xa[135] = 0;
		put_rec(xa + 136, h60, 60, 0x23);
		put_rec(xb, h60, 60, 0x24);
		put_rec(xb + 68, h61, 61, 0x25);
		memset(xb + 137, 0, 3);
	}
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 204);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(pat_ok(f.data, 60, 0x21));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.bad_headers, 1);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	rx_feed(xb, 140);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 8);
	CHECK(pat_ok(f.data, 60, 0x24));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 76);
	CHECK_EQ(f.len, 61);
	CHECK(pat_ok(f.data, 61, 0x25));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.bad_headers, 1);
	CHECK_EQ(ps.stats.frames, 3);

	/* V01 1519 (0x05EF) is over 1518: bad; 1518 (0x05EE) is fine. */
	{
		static const uint8_t h1519[8] = { 0xEF, 0x05, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h1518[8] = { 0xEE, 0x05, 0, 0, 0, 0, 0, 0 };

		put_rec(xa, h1519, 1519, 0x26);
		xa[1527] = 0;
		put_rec(xa + 1528, h60, 60, 0x27);
		put_rec(xb, h1518, 1518, 0x28);
		memset(xb + 1526, 0, 2);
	}
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 1596);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.bad_headers, 1);
	CHECK_EQ(ps.stats.frames, 0);
	rx_feed(xb, 1528);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 8);
	CHECK_EQ(f.len, 1518);
	CHECK(pat_ok(f.data, 1518, 0x28));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.bad_headers, 1);

	/* V02: 9217 (0x2401) bad, 9216 (0x2400) fine. */
	{
		static const uint8_t h9217[8] = { 0x01, 0x24, 0, 0, 0, 0, 0, 0 };
		static const uint8_t h9216[8] = { 0x00, 0x24, 0, 0, 0, 0, 0, 0 };

		put_rec(xa, h9217, 9217, 0x29);
		memset(xa + 9225, 0, 3);
		put_rec(xb, h9216, 9216, 0x2A);
	}
	ch39x_rx_parser_init(&ps, &ss);
	rx_feed(xa, 9228);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.bad_headers, 1);
	rx_feed(xb, 9224);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(f.len, 9216);
	CHECK(pat_ok(f.data, 9216, 0x2A));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);

	/*
	 * A header split across transfers with length 20 (0x14): found bad
	 * once complete in T2, the rest of T2 is dropped; T3 parses.
	 */
	put_rec(xa, h60, 60, 0x2B);
	xa[68] = 0x14;
	xa[69] = xa[70] = xa[71] = 0;
	memset(xb, 0, 100);
	put_rec(xb + 4, h60, 60, 0x2C);
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 72);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	rx_feed(xb, 72);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.bad_headers, 1);
	put_rec(xc, h60, 60, 0x2D);
	rx_feed(xc, 68);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xc + 8);
	CHECK(!f.straddled);
	CHECK(pat_ok(f.data, 60, 0x2D));
	CHECK_EQ(ps.stats.frames, 2);
	CHECK_EQ(ps.stats.straddled, 0);

	/* Short transfers: 67 bytes with no carry is skipped; 68 is parsed. */
	ch39x_rx_parser_init(&ps, &v01);
	put_rec(xa, h60, 60, 0x2E);
	rx_feed(xa, 67);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.short_xfers, 1);
	rx_feed(xa, 1);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.short_xfers, 2);
	ch39x_rx_reset(&ps);
	CHECK_EQ(ps.stats.carry_lost, 0);	/* nothing was carried */
	rx_feed(xa, 68);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xa + 8);
	CHECK(!f.straddled);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.short_xfers, 2);
	CHECK_EQ(ps.stats.frames, 1);
	CHECK_EQ(ps.stats.bad_headers, 0);

	/*
	 * ch39x_rx_reset with a carry: T1 holds the header and 92 of 200
	 * bytes; reset counts carry_lost and T2 starts afresh.
	 */
	{
		static const uint8_t h200[8] = { 0xC8, 0, 0, 0, 0, 0, 0, 0 };

		put_rec(xa, h200, 200, 0x2F);
	}
	ch39x_rx_parser_init(&ps, &v01);
	rx_feed(xa, 100);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	ch39x_rx_reset(&ps);
	CHECK_EQ(ps.stats.carry_lost, 1);
	ch39x_rx_reset(&ps);
	CHECK_EQ(ps.stats.carry_lost, 1);
	put_rec(xb, h61, 61, 0x30);
	memset(xb + 69, 0, 3);
	rx_feed(xb, 72);
	CHECK_EQ(ch39x_rx_next(&ps, &f), 1);
	CHECK(f.data == xb + 8);
	CHECK_EQ(f.len, 61);
	CHECK(!f.straddled);
	CHECK(pat_ok(f.data, 61, 0x30));
	CHECK_EQ(ch39x_rx_next(&ps, &f), 0);
	CHECK_EQ(ps.stats.straddled, 0);
	CHECK_EQ(ps.stats.frames, 1);
}

/* ---- Interrupt events (sheet section 6) ---- */

static void
test_events(void)
{
	struct ch39x_profile v01 = prof(0x5397, CH39X_SPEED_HIGH);
	struct ch39x_profile v02 = prof(0x5398, CH39X_SPEED_SUPER);
	struct ch39x_event ev, back;
	uint8_t b[40];

	/* V01: link up + full duplex (0x41) at 100M, counters. */
	static const uint8_t e1[16] = {
		0x41, 0, 0, 0, 0x0A, 0, 0, 0, 0x02, 0x00, 0x03, 0x00,
		0x78, 0x56, 0x34, 0x12,
	};
	/* V01: link up, bit 7 (10M), half duplex; large counters. */
	static const uint8_t e2[16] = {
		0xC0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x34, 0x12, 0xCD, 0xAB,
		0x01, 0, 0, 0,
	};
	/* V02: link, bit 7 and bit 4 (1000M wins), FD; reserved set. */
	static const uint8_t e3[32] = {
		0xD1, 0, 0, 0, 0x10, 0x20, 0x30, 0x40, 0x05, 0x00, 0x06, 0x00,
		0x11, 0x22, 0x33, 0x44,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
	};
	/* V02 build of {up, 1000, FD, 0x01020304, 0x0506, 0x0708, ...}. */
	static const uint8_t e4[32] = {
		0x51, 0, 0, 0, 0x04, 0x03, 0x02, 0x01, 0x06, 0x05, 0x08, 0x07,
		0x0C, 0x0B, 0x0A, 0x09,
	};
	/* V01 build of {up, 10, HD, 7, 1, 2, 9}. */
	static const uint8_t e5[16] = {
		0xC0, 0, 0, 0, 0x07, 0, 0, 0, 0x01, 0, 0x02, 0, 0x09, 0, 0, 0,
	};

	memset(&ev, 0x5A, sizeof(ev));
	CHECK_EQ(ch39x_event_parse(&v01, e1, 16, &ev), 0);
	CHECK(ev.link_up);
	CHECK(ev.full_duplex);
	CHECK_EQ(ev.speed_mbps, 100);
	CHECK_EQ(ev.rx_packets, 10);
	CHECK_EQ(ev.rx_overflow, 2);
	CHECK_EQ(ev.rx_crc_errors, 3);
	CHECK_EQ(ev.tx_packets, 0x12345678);

	CHECK_EQ(ch39x_event_parse(&v01, e2, 16, &ev), 0);
	CHECK(ev.link_up);
	CHECK(!ev.full_duplex);
	CHECK_EQ(ev.speed_mbps, 10);
	CHECK_EQ(ev.rx_packets, 0xFFFFFFFF);
	CHECK_EQ(ev.rx_overflow, 0x1234);
	CHECK_EQ(ev.rx_crc_errors, 0xABCD);
	CHECK_EQ(ev.tx_packets, 1);

	/* V01 ignores bit 4; link down with no bits set. */
	memcpy(b, e1, 16);
	b[0] = 0x50;
	CHECK_EQ(ch39x_event_parse(&v01, b, 16, &ev), 0);
	CHECK(ev.link_up);
	CHECK_EQ(ev.speed_mbps, 100);
	CHECK(!ev.full_duplex);
	b[0] = 0x00;
	CHECK_EQ(ch39x_event_parse(&v01, b, 16, &ev), 0);
	CHECK(!ev.link_up);

	/* Too short: V01 < 16, V02 < 32 (a V01-sized event too). */
	CHECK_EQ(ch39x_event_parse(&v01, e1, 15, &ev), -1);
	CHECK_EQ(ch39x_event_parse(&v01, e1, 0, &ev), -1);
	CHECK_EQ(ch39x_event_parse(&v01, e3, 32, &ev), 0);
	CHECK_EQ(ch39x_event_parse(&v02, e3, 31, &ev), -1);
	CHECK_EQ(ch39x_event_parse(&v02, e3, 16, &ev), -1);

	CHECK_EQ(ch39x_event_parse(&v02, e3, 32, &ev), 0);
	CHECK(ev.link_up);
	CHECK(ev.full_duplex);
	CHECK_EQ(ev.speed_mbps, 1000);
	CHECK_EQ(ev.rx_packets, 0x40302010);
	CHECK_EQ(ev.rx_overflow, 5);
	CHECK_EQ(ev.rx_crc_errors, 6);
	CHECK_EQ(ev.tx_packets, 0x44332211);
	memcpy(b, e3, 32);
	b[0] = 0xC1;	/* bit 7 alone: 10M */
	CHECK_EQ(ch39x_event_parse(&v02, b, 32, &ev), 0);
	CHECK_EQ(ev.speed_mbps, 10);
	b[0] = 0x41;	/* neither: 100M */
	CHECK_EQ(ch39x_event_parse(&v02, b, 32, &ev), 0);
	CHECK_EQ(ev.speed_mbps, 100);
	b[0] = 0x10;	/* 1000M, link down, half duplex */
	CHECK_EQ(ch39x_event_parse(&v02, b, 32, &ev), 0);
	CHECK(!ev.link_up);
	CHECK(!ev.full_duplex);
	CHECK_EQ(ev.speed_mbps, 1000);

	/* Build: byte-exact, then parse back. */
	memset(&ev, 0, sizeof(ev));
	ev.link_up = true;
	ev.speed_mbps = 1000;
	ev.full_duplex = true;
	ev.rx_packets = 0x01020304;
	ev.rx_overflow = 0x0506;
	ev.rx_crc_errors = 0x0708;
	ev.tx_packets = 0x090A0B0C;
	memset(b, 0xEE, sizeof(b));
	CHECK_EQ(ch39x_event_build(&v02, &ev, b, sizeof(b)), 32);
	CHECK_MEM(b, e4, 32);
	CHECK_EQ(b[32], 0xEE);
	memset(&back, 0x5A, sizeof(back));
	CHECK_EQ(ch39x_event_parse(&v02, b, 32, &back), 0);
	CHECK(back.link_up && back.full_duplex);
	CHECK_EQ(back.speed_mbps, 1000);
	CHECK_EQ(back.rx_packets, 0x01020304);
	CHECK_EQ(back.rx_overflow, 0x0506);
	CHECK_EQ(back.rx_crc_errors, 0x0708);
	CHECK_EQ(back.tx_packets, 0x090A0B0C);
	CHECK_EQ(ch39x_event_build(&v02, &ev, b, 31), 0);

	memset(&ev, 0, sizeof(ev));
	ev.link_up = true;
	ev.speed_mbps = 10;
	ev.rx_packets = 7;
	ev.rx_overflow = 1;
	ev.rx_crc_errors = 2;
	ev.tx_packets = 9;
	memset(b, 0xEE, sizeof(b));
	CHECK_EQ(ch39x_event_build(&v01, &ev, b, sizeof(b)), 16);
	CHECK_MEM(b, e5, 16);
	CHECK_EQ(b[16], 0xEE);
	CHECK_EQ(ch39x_event_parse(&v01, b, 16, &back), 0);
	CHECK(back.link_up);
	CHECK(!back.full_duplex);
	CHECK_EQ(back.speed_mbps, 10);
	CHECK_EQ(back.rx_packets, 7);
	CHECK_EQ(back.rx_overflow, 1);
	CHECK_EQ(back.rx_crc_errors, 2);
	CHECK_EQ(back.tx_packets, 9);
	CHECK_EQ(ch39x_event_build(&v01, &ev, b, 15), 0);

	/* V01 link down, 100M full duplex: link_stat 0x01. */
	memset(&ev, 0, sizeof(ev));
	ev.speed_mbps = 100;
	ev.full_duplex = true;
	CHECK_EQ(ch39x_event_build(&v01, &ev, b, 16), 16);
	CHECK_EQ(b[0], 0x01);
	CHECK_EQ(ch39x_event_parse(&v01, b, 16, &back), 0);
	CHECK(!back.link_up);
	CHECK(back.full_duplex);
	CHECK_EQ(back.speed_mbps, 100);
}

int
main(void)
{
	test_profiles();
	test_mc_hash();
	test_tx_encode();
	test_tx_agg_pack();
	test_tx_agg_end();
	test_rx_decode();
	test_rx_records();
	test_rx_straddle();
	test_rx_errors();
	test_events();
	printf("test_vendor: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
