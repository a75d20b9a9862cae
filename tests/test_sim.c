/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Tests of the simulated CH397/CH398 (lib/ch39x_sim/), driven only
 * through the transport ops of ch39x_usb.h and the test hooks of
 * ch39x_sim.h. Every expected value is written out by hand from
 * doc/guides/nics/ch39x_protocol.rst (cited "§N"); records are
 * built and parsed by hand, and checksums are computed by this file's own
 * code, not the library's.
 */

#include <errno.h>
#include <pcap/pcap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch39x_sim.h"

#define PID_CH397	0x5397
#define PID_CH398	0x5398
/* MAC_CFG addresses; the other registers are at fixed offsets (§3). */
#define V01		0x40000700u
#define V02		0x40024000u
#define R_MAC_H		0x10
#define R_MAC_L		0x14
#define R_HASH_HI	0x30
#define R_HASH_LO	0x34
#define R_MACIER	0x3C
#define V02_MISC_CFG	0x400240E8u
#define RWTE		(1u << 12)
#define RX_RA		(1u << 19)
#define RX_PAM		(1u << 20)
#define RX_PUF		(1u << 21)
#define RX_PBD		(1u << 22)
#define RX_PLM		(1u << 23)
#define SS		CH39X_SPEED_SUPER
#define HS		CH39X_SPEED_HIGH
#define DIM(a)		(sizeof(a) / sizeof((a)[0]))

#include "check.h"

/* ---- bytes (big-endian; little-endian from ch39x_vendor.h) ---- */

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* ---- devices and control requests ---- */

static struct ch39x_usb_dev *
open_cfg(const struct ch39x_sim_config *c)
{
	char err[256] = "";
	struct ch39x_usb_dev *d = ch39x_sim_open(c, err, sizeof(err));

	if (d == NULL)
		printf("ch39x_sim_open: %s\n", err);
	return d;
}

static struct ch39x_usb_dev *
open_dev(uint16_t pid, enum ch39x_usb_speed sp, enum ch39x_wire_kind w,
	 const char *pair, const uint8_t *mac)
{
	struct ch39x_sim_config c;

	memset(&c, 0, sizeof(c));
	c.pid = pid;
	c.speed = sp;
	c.wire = w;
	if (pair != NULL)
		snprintf(c.pair_name, sizeof(c.pair_name), "%s", pair);
	if (mac != NULL)
		memcpy(c.mac, mac, 6);
	return open_cfg(&c);
}

/* Open a device into d, or fail a check and leave the test. */
#define OPEN_OR_RETURN(d, ...) do {				\
	(d) = open_dev(__VA_ARGS__);				\
	check_at((d) != NULL, __FILE__, __LINE__, "device opened");	\
	if ((d) == NULL)					\
		return;						\
} while (0)

static void
close_dev(struct ch39x_usb_dev *d)
{
	if (d != NULL)
		d->ops->close(d);
}

static struct ch39x_sim_counters
counters(struct ch39x_usb_dev *d)
{
	struct ch39x_sim_counters c;

	ch39x_sim_get_counters(d, &c);
	return c;
}

static int
ctl(struct ch39x_usb_dev *d, uint8_t rt, uint8_t req, uint16_t val,
    uint16_t idx, void *data, uint16_t len)
{
	return d->ops->control(d, rt, req, val, idx, data, len, 500);
}

/* RD_REG / WR_REG: wValue = address bits 15..0, wIndex = 31..16. */
static int
rd_reg(struct ch39x_usb_dev *d, uint32_t addr, uint8_t *b, uint16_t len)
{
	return ctl(d, 0xC0, 0x11, (uint16_t)addr, (uint16_t)(addr >> 16), b,
		   len);
}

static int
wr_reg(struct ch39x_usb_dev *d, uint32_t addr, uint8_t *b, uint16_t len)
{
	return ctl(d, 0x40, 0x12, (uint16_t)addr, (uint16_t)(addr >> 16), b,
		   len);
}

static uint32_t
rd32(struct ch39x_usb_dev *d, uint32_t addr)
{
	uint8_t b[4];

	return rd_reg(d, addr, b, 4) == 4 ? ch39x_get_le32(b) : 0xDEADBEEFu;
}

static int
wr32(struct ch39x_usb_dev *d, uint32_t addr, uint32_t v)
{
	uint8_t b[4];

	ch39x_put_le32(b, v);
	return wr_reg(d, addr, b, 4);
}

/* PHY window: wValue 0x0740, wIndex = register (§2). -1 on a stall. */
static int
rd_phy(struct ch39x_usb_dev *d, uint16_t reg)
{
	uint8_t b[2];

	if (ctl(d, 0xC0, 0x15, 0x0740, reg, b, 2) != 2)
		return -1;
	return b[0] | (b[1] << 8);
}

static int
wr_phy(struct ch39x_usb_dev *d, uint16_t reg, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	return ctl(d, 0x40, 0x16, 0x0740, reg, b, 2);
}

/* BMSR bit 2: 1 link, 0 no link, -1 the read failed. */
static int
bmsr_link(struct ch39x_usb_dev *d)
{
	int v = rd_phy(d, 1);

	return v < 0 ? -1 : (v >> 2) & 1;
}

/* Read-modify-write the MAC_CFG receive bits 19..23 with WR_REG. */
static void
set_rx_mode(struct ch39x_usb_dev *d, uint32_t base, uint32_t bits)
{
	uint32_t v = rd32(d, base);

	CHECK_EQ(wr32(d, base, (v & ~0x00F80000u) | bits), 4);
	CHECK_EQ(ch39x_sim_reg(d, base) & 0x00F80000u, bits);
}

static void
set_jumbo(struct ch39x_usb_dev *d, bool on)
{
	uint32_t v = rd32(d, V02);

	CHECK_EQ(wr32(d, V02, on ? v | RWTE : v & ~RWTE), 4);
}

static void
get_mac(struct ch39x_usb_dev *d, uint32_t base, uint8_t mac[6])
{
	CHECK_EQ(rd_reg(d, base + R_MAC_L, mac, 4), 4);
	CHECK_EQ(rd_reg(d, base + R_MAC_H, mac + 4, 2), 2);
}

/* ---- frames ---- */

static const uint8_t bcast[6] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF };
static const uint8_t src_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0xAA };
static const uint8_t foreign[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x99 };
static const uint8_t mc1[6] = { 0x01, 0x00, 0x5E, 0x00, 0x00, 0x01 };
static const uint8_t mc2[6] = { 0x01, 0x00, 0x5E, 0x00, 0x00, 0x02 };
static const uint8_t zeros[64];

#define FMAX 10000
static uint8_t fr[12][FMAX + 64];

/* A frame of len bytes to dst with a byte pattern; 64 zero bytes follow. */
static uint32_t
mk_frame(uint8_t *f, const uint8_t *dst, uint16_t type, uint32_t len,
	 uint8_t seed)
{
	uint32_t i;

	memset(f, 0, len + 64);
	memcpy(f, dst, 6);
	memcpy(f + 6, src_mac, 6);
	put_be16(f + 12, type);
	for (i = 14; i < len; i++)
		f[i] = (uint8_t)(seed + i * 7u + (i >> 8));
	return len;
}

/* dst = src with an 802.1Q tag (TPID 0x8100, tci) after the addresses. */
static uint32_t
add_tag(uint8_t *dst, const uint8_t *src, uint32_t len, uint16_t tci)
{
	memset(dst, 0, len + 4 + 64);
	memcpy(dst, src, 12);
	put_be16(dst + 12, 0x8100);
	put_be16(dst + 14, tci);
	memcpy(dst + 16, src + 12, len - 12);
	return len + 4;
}

/* Internet checksum, written here so that it checks the library's. */
static uint32_t
sum16(uint32_t s, const uint8_t *p, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)((p[i] << 8) | p[i + 1]);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t
fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xFFFF) + (s >> 16);
	return (uint16_t)s;
}

/* The IPv4 pseudo-header sum of an IPv4 header with a 20-byte IHL. */
static uint32_t
pseudo(const uint8_t *ip)
{
	return sum16(0, ip + 12, 8) + ip[9] + (uint32_t)(be16(ip + 2) - 20);
}

static uint8_t *
l4_ck(uint8_t *ip)
{
	return ip + 20 + (ip[9] == 17 ? 6 : 16);
}

static bool
ip_ok(const uint8_t *ip)
{
	return fold(sum16(0, ip, 20)) == 0xFFFF;
}

static bool
l4_ok(const uint8_t *ip)
{
	return fold(sum16(pseudo(ip), ip + 20, be16(ip + 2) - 20)) == 0xFFFF;
}

static void
zero_csums(uint8_t *f)
{
	f[14 + 10] = 0;
	f[14 + 11] = 0;
	memset(l4_ck(f + 14), 0, 2);
}

/* Broadcast Ethernet + IPv4 + UDP (17) or TCP (6) + pay bytes. */
static uint32_t
mk_ip4(uint8_t *f, uint8_t proto, uint32_t pay, bool csum)
{
	uint32_t hl = proto == 17 ? 8 : 20, l4len = hl + pay, i;
	uint8_t *ip = f + 14, *l4 = ip + 20;
	uint16_t c;

	memset(f, 0, 34 + l4len + 64);
	memcpy(f, bcast, 6);
	memcpy(f + 6, src_mac, 6);
	put_be16(f + 12, 0x0800);
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(20 + l4len));
	put_be16(ip + 4, 0x1234);
	ip[6] = 0x40;		/* DF: not a fragment */
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, "\xC0\xA8\x01\x01\xC0\xA8\x01\x02", 8);
	put_be16(l4, 40000);
	put_be16(l4 + 2, proto == 17 ? 5000 : 80);
	if (proto == 17) {
		put_be16(l4 + 4, (uint16_t)l4len);
	} else {
		memcpy(l4 + 4, "\x01\x02\x03\x04\x00\x00\x00\x00", 8);
		l4[12] = 0x50;
		l4[13] = 0x18;
		put_be16(l4 + 14, 0xFFFF);
	}
	for (i = 0; i < pay; i++)
		l4[hl + i] = (uint8_t)(0x30 + i * 3);
	if (csum) {
		c = (uint16_t)~fold(sum16(0, ip, 20));
		put_be16(ip + 10, c);
		c = (uint16_t)~fold(sum16(pseudo(ip), l4, l4len));
		put_be16(l4_ck(ip), c == 0 && proto == 17 ? 0xFFFF : c);
	}
	return 34 + l4len;
}

/* ---- bulk OUT: records built by hand (§5) ---- */

static uint8_t txbuf[20000];
static uint32_t txlen;

static void
tx_add(uint32_t flags0, uint32_t cmd1, const uint8_t *f, uint32_t flen)
{
	ch39x_put_le32(txbuf + txlen, flen | flags0);
	ch39x_put_le32(txbuf + txlen + 4, cmd1);
	memcpy(txbuf + txlen + 8, f, flen);
	txlen += 8 + flen;
	while (txlen & 3)
		txbuf[txlen++] = 0;
}

#define TX_SEND(d, zlp) tx_send(__LINE__, (d), (zlp))
static void
tx_send(int line, struct ch39x_usb_dev *d, bool zlp)
{
	struct ch39x_xfer x, *done[2];
	unsigned int n;

	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_OUT;
	x.buf = txbuf;
	x.len = txlen;
	x.zlp = zlp;
	check_eq_at(__FILE__, line, "bulk OUT submit", d->ops->submit(d, &x), 0);
	n = d->ops->poll(d, CH39X_EP_BULK_OUT, done, 2);
	check_eq_at(__FILE__, line, "bulk OUT completions", n, 1);
	check_at(n == 1 && done[0] == &x && x.status == CH39X_XFER_OK &&
		 x.actual == txlen && !x.in_flight, __FILE__, line,
		 "bulk OUT transfer completed whole");
	txlen = 0;
}

/* ---- bulk IN: records parsed by hand (§4) ---- */

#define RX_N 6
#define RX_SZ 32768
static uint8_t rx_mem[RX_N][RX_SZ];
static struct ch39x_xfer rx_x[RX_N];

/*
 * Submit n bulk IN transfers of size bytes and poll once; returns how many
 * completed (rx_x[0..], which must be in submission order). The others are
 * cancelled and reaped.
 */
#define RX_RUN(d, n, sz) rx_run(__LINE__, (d), (n), (sz))
static unsigned int
rx_run(int line, struct ch39x_usb_dev *d, unsigned int n, uint32_t size)
{
	struct ch39x_xfer *done[RX_N];
	unsigned int i, got, k;

	for (i = 0; i < n; i++) {
		memset(&rx_x[i], 0, sizeof(rx_x[i]));
		memset(rx_mem[i], 0xEE, size);
		rx_x[i].ep = CH39X_EP_BULK_IN;
		rx_x[i].buf = rx_mem[i];
		rx_x[i].len = size;
		check_eq_at(__FILE__, line, "bulk IN submit",
			    d->ops->submit(d, &rx_x[i]), 0);
	}
	got = d->ops->poll(d, CH39X_EP_BULK_IN, done, RX_N);
	for (i = 0; i < got; i++)
		check_at(done[i] == &rx_x[i] &&
			 rx_x[i].status == CH39X_XFER_OK &&
			 rx_x[i].actual > 0 && rx_x[i].actual <= size &&
			 !rx_x[i].in_flight, __FILE__, line,
			 "bulk IN transfer completed OK, in order");
	d->ops->cancel_all(d, CH39X_EP_BULK_IN);
	k = d->ops->poll(d, CH39X_EP_BULK_IN, done, RX_N);
	check_eq_at(__FILE__, line, "bulk IN transfers all returned", got + k, n);
	for (i = 0; i < k; i++)
		check_at(done[i]->status == CH39X_XFER_CANCELLED, __FILE__, line,
			 "left-over bulk IN transfer cancelled");
	return got;
}

struct rec {
	uint32_t off;
	uint32_t cmd0;
	uint32_t cmd1;
	const uint8_t *data;
};

/* Split completed transfer i into records; they must fill it exactly. */
#define RECS(i, r) parse_recs(__LINE__, (i), (r), DIM(r))
static unsigned int
parse_recs(int line, unsigned int i, struct rec *r, unsigned int max)
{
	const uint8_t *b = rx_mem[i];
	uint32_t n = rx_x[i].actual, off = 0, flen;
	unsigned int k = 0;

	memset(r, 0, max * sizeof(*r));
	while (off + 8 <= n && k < max) {
		r[k].off = off;
		r[k].cmd0 = ch39x_get_le32(b + off);
		r[k].cmd1 = ch39x_get_le32(b + off + 4);
		r[k].data = b + off + 8;
		flen = r[k].cmd0 & 0xFFFF;
		if (off + 8 + flen > n)
			break;
		k++;
		/* The next header starts at the next multiple of 4. */
		off = (off + 8 + flen + 3) & ~3u;
	}
	check_eq_at(__FILE__, line, "records end at the transfer's end", off, n);
	return k;
}

/* One 16 KiB bulk IN transfer must come back holding exactly n records. */
#define RX1(d, r, n) rx_one(__LINE__, (d), (r), DIM(r), (n))
static void
rx_one(int line, struct ch39x_usb_dev *d, struct rec *r, unsigned int max,
       unsigned int n)
{
	check_eq_at(__FILE__, line, "bulk IN transfers completed",
		    rx_run(line, d, 1, 16384), 1);
	check_eq_at(__FILE__, line, "records in the transfer",
		    parse_recs(line, 0, r, max), n);
}

#define CHECK_REC(r, want, len, cmd1) \
	check_rec(__LINE__, (r), (want), (len), (cmd1))
static void
check_rec(int line, const struct rec *r, const uint8_t *want, uint32_t len,
	  uint32_t cmd1)
{
	check_eq_at(__FILE__, line, "record offset % 4", r->off % 4, 0);
	check_eq_at(__FILE__, line, "record cmd_0 (length)", r->cmd0, len);
	check_eq_at(__FILE__, line, "record cmd_1", r->cmd1, cmd1);
	if (r->cmd0 == len && r->data != NULL)
		check_mem_at(__FILE__, line, "record frame", r->data, want, len);
}

/* ---- interrupt IN ---- */

static uint8_t ibuf[64];
static struct ch39x_xfer ix;

/*
 * Submit one interrupt IN transfer of len bytes and poll once. Returns the
 * event's link_stat word; -2 when it completed with an error (ix.status);
 * -1 when nothing came (the transfer is then cancelled and reaped).
 */
#define INTR_EV(d, len) intr_once(__LINE__, (d), (len))
static long
intr_once(int line, struct ch39x_usb_dev *d, uint32_t len)
{
	struct ch39x_xfer *done[2];
	unsigned int n;

	memset(&ix, 0, sizeof(ix));
	memset(ibuf, 0xEE, sizeof(ibuf));
	ix.ep = CH39X_EP_INTR_IN;
	ix.buf = ibuf;
	ix.len = len;
	check_eq_at(__FILE__, line, "interrupt submit", d->ops->submit(d, &ix), 0);
	n = d->ops->poll(d, CH39X_EP_INTR_IN, done, 2);
	if (n == 0) {
		d->ops->cancel_all(d, CH39X_EP_INTR_IN);
		n = d->ops->poll(d, CH39X_EP_INTR_IN, done, 2);
		check_at(n == 1 && done[0] == &ix &&
			 ix.status == CH39X_XFER_CANCELLED, __FILE__, line,
			 "idle interrupt transfer cancelled");
		return -1;
	}
	check_at(n == 1 && done[0] == &ix && !ix.in_flight, __FILE__, line,
		 "one interrupt completion");
	return ix.status == CH39X_XFER_OK ? (long)ch39x_get_le32(ibuf) : -2;
}

/* ---- tests ---- */

static void
test_info(void)
{
	static const struct {
		uint16_t pid;
		enum ch39x_usb_speed speed;
		uint8_t config;
		uint16_t maxp;
		uint16_t evt;
	} w[] = {
		{ 0x5397, HS, 1, 512, 16 },
		{ 0x5397, CH39X_SPEED_FULL, 1, 64, 16 },
		{ 0x5398, SS, 3, 1024, 32 },
		{ 0x5398, HS, 3, 512, 32 },
		{ 0xE398, SS, 3, 1024, 32 },
	};
	struct ch39x_usb_info info;
	struct ch39x_usb_dev *d;
	unsigned int i;

	for (i = 0; i < DIM(w); i++) {
		d = open_dev(w[i].pid, w[i].speed, CH39X_WIRE_LOOP, NULL, NULL);
		CHECK(d != NULL);
		if (d == NULL)
			continue;
		CHECK(ch39x_sim_is_sim(d));
		memset(&info, 0xA5, sizeof(info));
		CHECK_EQ(d->ops->get_info(d, &info), 0);
		CHECK_EQ(info.vid, 0x1A86);
		CHECK_EQ(info.pid, w[i].pid);
		CHECK_EQ(info.config_value, w[i].config);
		CHECK_EQ(info.speed, w[i].speed);
		CHECK_EQ(info.maxp[CH39X_EP_BULK_IN], w[i].maxp);
		CHECK_EQ(info.maxp[CH39X_EP_BULK_OUT], w[i].maxp);
		/* The host reads events into a wMaxPacketSize buffer. */
		CHECK(info.maxp[CH39X_EP_INTR_IN] >= w[i].evt);
		CHECK(info.intr_interval_ms > 0);
		CHECK(info.serial[0] != '\0');
		close_dev(d);
	}
}

static void
test_ctrl(uint16_t pid, enum ch39x_usb_speed sp)
{
	static const uint8_t mac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	bool v2 = pid == PID_CH398;
	uint32_t base = v2 ? V02 : V01;
	uint16_t hi = v2 ? 0x4002 : 0x4000;
	struct ch39x_sim_counters c0, c1;
	struct ch39x_usb_dev *d;
	unsigned int stalls;
	uint8_t b[8];
	int bmcr;

	OPEN_OR_RETURN(d, pid, sp, CH39X_WIRE_LOOP, NULL, mac);

	/* GET_INFO: 8 bytes, byte 2 selects the 0x1E path (§2). */
	memset(b, 0, sizeof(b));
	CHECK_EQ(ctl(d, 0xC0, 0x10, 0, 0, b, 8), 8);
	CHECK(v2 ? b[2] >= 0x37 : b[2] < 0x37);

	/* MAC address in wire order: MAC_L octets 0-3, MAC_H 4-5 (§3). */
	memset(b, 0, sizeof(b));
	CHECK_EQ(ctl(d, 0xC0, 0x11, v2 ? 0x4014 : 0x0714, hi, b, 4), 4);
	CHECK_MEM(b, "\x00\x11\x22\x33", 4);
	memset(b, 0, sizeof(b));
	CHECK_EQ(ctl(d, 0xC0, 0x11, v2 ? 0x4010 : 0x0710, hi, b, 2), 2);
	CHECK_MEM(b, "\x44\x55", 2);
	/* V1.7 writes MAC_L with 4 bytes and MAC_H with 4 (a4, a5, 0, 0). */
	memcpy(b, "\x02\xAA\xBB\xCC", 4);
	CHECK_EQ(ctl(d, 0x40, 0x12, v2 ? 0x4014 : 0x0714, hi, b, 4), 4);
	memcpy(b, "\xDD\xEE\x00\x00", 4);
	CHECK_EQ(ctl(d, 0x40, 0x12, v2 ? 0x4010 : 0x0710, hi, b, 4), 4);
	CHECK_EQ(ch39x_sim_reg(d, base + R_MAC_L), 0xCCBBAA02u);
	CHECK_EQ(ch39x_sim_reg(d, base + R_MAC_H) & 0xFFFF, 0xEEDD);
	memset(b, 0, sizeof(b));
	CHECK_EQ(rd_reg(d, base + R_MAC_L, b, 4), 4);
	CHECK_MEM(b, "\x02\xAA\xBB\xCC", 4);
	CHECK_EQ(rd_reg(d, base + R_MAC_H, b, 2), 2);
	CHECK_MEM(b, "\xDD\xEE", 2);
	/* V1.3 writes MAC_H with 2 bytes. */
	memcpy(b, "\x12\x34", 2);
	CHECK_EQ(wr_reg(d, base + R_MAC_H, b, 2), 2);
	memset(b, 0, sizeof(b));
	CHECK_EQ(rd_reg(d, base + R_MAC_H, b, 2), 2);
	CHECK_MEM(b, "\x12\x34", 2);

	/* Hash registers, little-endian. */
	CHECK_EQ(wr32(d, base + R_HASH_HI, 0x80000001u), 4);
	CHECK_EQ(wr32(d, base + R_HASH_LO, 0x00100000u), 4);
	CHECK_EQ(rd_reg(d, base + R_HASH_HI, b, 4), 4);
	CHECK_MEM(b, "\x01\x00\x00\x80", 4);
	CHECK_EQ(rd32(d, base + R_HASH_LO), 0x00100000u);
	CHECK_EQ(ch39x_sim_reg(d, base + R_HASH_HI), 0x80000001u);

	/* MACIER: 16 bits on V01, 32 on V02. */
	CHECK_EQ(wr32(d, base + R_MACIER, 0xFFFFFFFFu), 4);
	CHECK_EQ(rd32(d, base + R_MACIER), v2 ? 0xFFFFFFFFu : 0x0000FFFFu);
	if (!v2) {
		memcpy(b, "\x00\x0C", 2);	/* bits 10 and 11 */
		CHECK_EQ(wr_reg(d, base + R_MACIER, b, 2), 2);
		CHECK_EQ(rd32(d, base + R_MACIER), 0x0C00);
	} else {
		CHECK_EQ(wr32(d, V02_MISC_CFG, 1u << 13), 4);
		CHECK_EQ(rd32(d, V02_MISC_CFG), 1u << 13);
	}

	/* Every one of these stalls and is counted. */
#define STALL(e) do { CHECK_EQ((e), -EPIPE); stalls++; } while (0)
	c0 = counters(d);
	stalls = 0;
	/* An address in neither map, and the other family's MAC_L. */
	STALL(rd_reg(d, base + 0x04, b, 4));
	STALL(wr32(d, base + 0x04, 1));
	STALL(rd_reg(d, v2 ? 0x40000714u : 0x40024014u, b, 4));
	if (!v2)
		STALL(wr32(d, V02_MISC_CFG, 1u << 13));
	/* Wrong bmRequestType: RD_REG as OUT, to the interface, WR_REG as IN. */
	STALL(ctl(d, 0x40, 0x11, (uint16_t)base, hi, b, 4));
	STALL(ctl(d, 0xC1, 0x11, (uint16_t)base, hi, b, 4));
	STALL(ctl(d, 0xC0, 0x12, (uint16_t)base, hi, b, 4));
	STALL(ctl(d, 0x80, 0x10, 0, 0, b, 8));
	/* Wrong wLength. */
	STALL(ctl(d, 0xC0, 0x10, 0, 0, b, 4));
	STALL(rd_reg(d, base + R_MAC_L, b, 3));
	STALL(ctl(d, 0xC0, 0x15, 0x0740, 1, b, 4));
	STALL(ctl(d, 0x40, 0x1E, 0x0800, 0x0060, b, 4));
	/* The PHY window is wValue 0x0740 and registers 0-31 only. */
	STALL(ctl(d, 0xC0, 0x15, 0x0741, 1, b, 2));
	STALL(ctl(d, 0xC0, 0x15, 0x0740, 32, b, 2));
	/* Unknown request. */
	STALL(ctl(d, 0xC0, 0x7F, 0, 0, b, 4));
#undef STALL
	c1 = counters(d);
	CHECK_EQ(c1.ctrl_stalls - c0.ctrl_stalls, stalls);
	CHECK_EQ(c1.ctrl_requests - c0.ctrl_requests, stalls);

	/* PHY: BMSR bit 2 follows the link; BMCR bit 11 powers down. */
	CHECK_EQ(bmsr_link(d), 1);
	bmcr = rd_phy(d, 0);
	CHECK(bmcr >= 0 && (bmcr & 0x0800) == 0);
	CHECK_EQ(wr_phy(d, 0, (uint16_t)(bmcr | 0x0800)), 2);
	CHECK(!ch39x_sim_link(d));
	CHECK_EQ(bmsr_link(d), 0);
	CHECK_EQ(rd_phy(d, 0) & 0x0800, 0x0800);
	CHECK_EQ(wr_phy(d, 0, (uint16_t)(bmcr & ~0x0800)), 2);
	CHECK(ch39x_sim_link(d));
	CHECK_EQ(bmsr_link(d), 1);
	/* ANAR |= pause + asymmetric pause (§7 step 9). */
	CHECK_EQ(wr_phy(d, 4, 0x0DE1), 2);
	CHECK_EQ(rd_phy(d, 4), 0x0DE1);

	/* Command 0x1E: MAC_CFG = wValue | wIndex << 16, no data stage. */
	CHECK_EQ(wr32(d, base, 0x00006000u), 4);
	if (v2) {
		CHECK_EQ(ctl(d, 0x40, 0x1E, 0x0800, 0x0060, NULL, 0), 0);
		CHECK_EQ(rd32(d, base), 0x00600800u);
		CHECK_EQ(ch39x_sim_reg(d, base), 0x00600800u);
	} else {
		CHECK_EQ(ctl(d, 0x40, 0x1E, 0x0800, 0x0060, NULL, 0), -EPIPE);
		CHECK_EQ(rd32(d, base), 0x00006000u);
	}
	close_dev(d);
}

static void
test_events(uint16_t pid, enum ch39x_usb_speed sp)
{
	bool v2 = pid == PID_CH398;
	uint32_t elen = v2 ? 32 : 16;
	struct ch39x_usb_dev *d;
	long st;

	OPEN_OR_RETURN(d, pid, sp, CH39X_WIRE_LOOP, NULL, NULL);
	st = INTR_EV(d, elen);
	CHECK(st >= 0);
	CHECK_EQ(ix.actual, elen);
	CHECK_EQ(st & 0x40, 0x40);		/* link up */
	CHECK_EQ(st & 0x80, 0);			/* not 10M */
	CHECK_EQ(st & 0x10, v2 ? 0x10 : 0);	/* 1000M on CH398 only */
	if (v2)
		CHECK_EQ(st & 0x01, 0x01);	/* CH398 is full duplex only */
	/* Fresh counters, and V02's four reserved words, are zero. */
	CHECK_MEM(ibuf + 4, zeros, elen - 4);
	CHECK_EQ(ibuf[elen], 0xEE);
	/* Nothing more until something changes. */
	CHECK_EQ(INTR_EV(d, elen), -1);
	CHECK_EQ(INTR_EV(d, elen), -1);
	ch39x_sim_set_cable(d, false);
	CHECK(!ch39x_sim_link(d));
	st = INTR_EV(d, elen);
	CHECK(st >= 0);
	CHECK_EQ(st & 0x40, 0);
	CHECK_EQ(INTR_EV(d, elen), -1);
	/* A transfer shorter than the event babbles; the event is not lost. */
	ch39x_sim_set_cable(d, true);
	CHECK_EQ(INTR_EV(d, 8), -2);
	CHECK_EQ(ix.status, CH39X_XFER_OVERFLOW);
	st = INTR_EV(d, elen);
	CHECK(st >= 0 && (st & 0x40));
	CHECK_EQ(counters(d).events_sent, 3);
	close_dev(d);
}

static void
test_pair_link(void)
{
	struct ch39x_usb_dev *a, *b = NULL;
	uint64_t down;
	long st;
	int bmcr;

	OPEN_OR_RETURN(a, PID_CH398, SS, CH39X_WIRE_PAIR, "phy", NULL);
	CHECK(!ch39x_sim_link(a));	/* no peer yet */
	b = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "phy", NULL);
	CHECK(b != NULL);
	if (b == NULL)
		goto out;
	CHECK(ch39x_sim_link(a) && ch39x_sim_link(b));
	st = INTR_EV(b, 32);
	CHECK(st >= 0 && (st & 0x40));
	/* Powering down one PHY takes the link down at both ends. */
	bmcr = rd_phy(a, 0);
	CHECK(bmcr >= 0);
	CHECK_EQ(wr_phy(a, 0, (uint16_t)(bmcr | 0x0800)), 2);
	CHECK(!ch39x_sim_link(a) && !ch39x_sim_link(b));
	CHECK_EQ(bmsr_link(a), 0);
	CHECK_EQ(bmsr_link(b), 0);
	st = INTR_EV(b, 32);
	CHECK(st >= 0 && (st & 0x40) == 0);
	CHECK_EQ(wr_phy(a, 0, (uint16_t)(bmcr & ~0x0800)), 2);
	CHECK(ch39x_sim_link(a) && ch39x_sim_link(b));
	CHECK_EQ(bmsr_link(b), 1);
	st = INTR_EV(b, 32);
	CHECK(st >= 0 && (st & 0x40));
	/* So does pulling one cable; frames sent meanwhile are lost. */
	ch39x_sim_set_cable(b, false);
	CHECK(!ch39x_sim_link(a));
	CHECK_EQ(bmsr_link(a), 0);
	down = counters(a).tx_link_down;
	tx_add(0, 0, fr[0], mk_frame(fr[0], bcast, 0x88B5, 64, 1));
	TX_SEND(a, false);
	CHECK_EQ(counters(a).tx_link_down - down, 1);
	ch39x_sim_set_cable(b, true);
	CHECK(ch39x_sim_link(a));
out:
	close_dev(b);
	close_dev(a);
}

static void
test_filter_v02(void)
{
	struct ch39x_sim_counters ca, c0, c1;
	struct ch39x_usb_dev *a, *b = NULL;
	uint8_t mb[6];
	struct rec r[8];
	uint32_t len[6];
	unsigned int i;

	a = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "flt", NULL);
	b = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "flt", NULL);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	get_mac(b, V02, mb);
	CHECK_EQ(mb[0] & 1, 0);
	set_rx_mode(b, V02, RX_PUF | RX_PBD);
	len[0] = mk_frame(fr[0], mb, 0x88B5, 100, 1);
	len[1] = mk_frame(fr[1], foreign, 0x88B5, 80, 2);
	len[2] = mk_frame(fr[2], bcast, 0x88B5, 42, 3);
	len[3] = mk_frame(fr[3], mb, 0x88B5, 61, 4);
	len[4] = mk_frame(fr[4], mc1, 0x88B5, 70, 5);
	len[5] = mk_frame(fr[5], mc2, 0x88B5, 70, 6);
	ca = counters(a);
	c0 = counters(b);
	for (i = 0; i < 5; i++)
		tx_add(0, 0, fr[i], len[i]);
	TX_SEND(a, false);
	CHECK_EQ(counters(a).tx_frames - ca.tx_frames, 5);
	/* PUF|PBD: own unicast and broadcast, aggregated in one transfer. */
	CHECK_EQ(RX_RUN(b, 2, 16384), 1);
	CHECK_EQ(rx_x[0].actual, 108 + 68 + 72);
	CHECK_EQ(RECS(0, r), 3);
	CHECK_REC(&r[0], fr[0], 100, 0);
	CHECK_EQ(r[1].off, 108);
	CHECK_REC(&r[1], fr[2], 60, 0);	/* 42 bytes padded with zeros */
	CHECK_EQ(r[2].off, 176);
	CHECK_REC(&r[2], fr[3], 61, 0);
	c1 = counters(b);
	CHECK_EQ(c1.wire_rx_frames - c0.wire_rx_frames, 5);
	CHECK_EQ(c1.rx_filtered - c0.rx_filtered, 2);
	CHECK_EQ(c1.rx_delivered - c0.rx_delivered, 3);

	/* RA: everything. */
	set_rx_mode(b, V02, RX_RA);
	tx_add(0, 0, fr[1], len[1]);
	tx_add(0, 0, fr[5], len[5]);
	TX_SEND(a, false);
	RX1(b, r, 2);
	CHECK_REC(&r[0], fr[1], 80, 0);
	CHECK_REC(&r[1], fr[5], 70, 0);

	/* PLM, hash of 01:00:5E:00:00:01 (index 32: V02 HASH_HI = 1). */
	set_rx_mode(b, V02, RX_PUF | RX_PBD | RX_PLM);
	CHECK_EQ(wr32(b, V02 + R_HASH_HI, 1), 4);
	CHECK_EQ(wr32(b, V02 + R_HASH_LO, 0), 4);
	c0 = counters(b);
	tx_add(0, 0, fr[4], len[4]);
	tx_add(0, 0, fr[5], len[5]);
	TX_SEND(a, false);
	RX1(b, r, 1);
	CHECK_REC(&r[0], fr[4], 70, 0);
	CHECK_EQ(counters(b).rx_filtered - c0.rx_filtered, 1);
	/* PAM: every multicast. */
	set_rx_mode(b, V02, RX_PUF | RX_PBD | RX_PLM | RX_PAM);
	tx_add(0, 0, fr[5], len[5]);
	TX_SEND(a, false);
	RX1(b, r, 1);
	CHECK_REC(&r[0], fr[5], 70, 0);
out:
	close_dev(b);
	close_dev(a);
}

static void
test_filter_v01(void)
{
	struct ch39x_usb_dev *a, *b = NULL;
	uint64_t filtered;
	struct rec r[4];

	a = open_dev(PID_CH397, HS, CH39X_WIRE_PAIR, "flt1", NULL);
	b = open_dev(PID_CH397, HS, CH39X_WIRE_PAIR, "flt1", NULL);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	/* V01 stores each hash word with its halves swapped: HI = 00010000. */
	set_rx_mode(b, V01, RX_PUF | RX_PBD | RX_PLM);
	CHECK_EQ(wr32(b, V01 + R_HASH_HI, 0x00010000u), 4);
	CHECK_EQ(wr32(b, V01 + R_HASH_LO, 0), 4);
	filtered = counters(b).rx_filtered;
	tx_add(0, 0, fr[0], mk_frame(fr[0], mc1, 0x88B5, 90, 7));
	tx_add(0, 0, fr[1], mk_frame(fr[1], mc2, 0x88B5, 90, 8));
	TX_SEND(a, false);
	RX1(b, r, 1);
	CHECK_REC(&r[0], fr[0], 90, 0);
	CHECK_EQ(counters(b).rx_filtered - filtered, 1);
	/* Unswapped, bit 0 of HI is index 48: 01:00:5E:00:00:01 is dropped. */
	CHECK_EQ(wr32(b, V01 + R_HASH_HI, 1), 4);
	tx_add(0, 0, fr[0], 90);
	TX_SEND(a, false);
	CHECK_EQ(RX_RUN(b, 1, 16384), 0);
	CHECK_EQ(counters(b).rx_filtered - filtered, 2);
out:
	close_dev(b);
	close_dev(a);
}

static void
test_oversize(void)
{
	struct ch39x_sim_counters c0, c1;
	struct ch39x_usb_dev *d;
	unsigned int got;
	struct rec r[4];

	OPEN_OR_RETURN(d, PID_CH398, SS, CH39X_WIRE_LOOP, NULL, NULL);
	set_rx_mode(d, V02, RX_PUF | RX_PBD);
	set_jumbo(d, false);
	mk_frame(fr[0], bcast, 0x88B5, 3000, 9);
	c0 = counters(d);
	tx_add(0, 0, fr[0], 3000);
	TX_SEND(d, false);
	CHECK_EQ(RX_RUN(d, 1, 16384), 0);
	CHECK_EQ(counters(d).rx_oversize - c0.rx_oversize, 1);
	set_jumbo(d, true);
	tx_add(0, 0, fr[0], 3000);
	TX_SEND(d, false);
	RX1(d, r, 1);
	CHECK_REC(&r[0], fr[0], 3000, 0);
	/* 9216 bytes is V02's longest frame (§4). */
	mk_frame(fr[1], bcast, 0x88B5, 9216, 10);
	CHECK_EQ(ch39x_sim_inject(d, fr[1], 9216), 0);
	RX1(d, r, 1);
	CHECK_REC(&r[0], fr[1], 9216, 0);
	/*
	 * Longer is oversize even with jumbo on, and is counted as such; the
	 * frame behind it still comes in the same poll.
	 */
	mk_frame(fr[1], bcast, 0x88B5, 9300, 10);
	mk_frame(fr[2], bcast, 0x88B5, 100, 11);
	c0 = counters(d);
	CHECK_EQ(ch39x_sim_inject(d, fr[1], 9300), 0);
	CHECK_EQ(ch39x_sim_inject(d, fr[2], 100), 0);
	got = RX_RUN(d, 1, 16384);
	check_eq_at(__FILE__, __LINE__, "the frame behind a 9300-byte one comes in "
		    "the same poll", got, 1);
	if (got == 0)
		got = RX_RUN(d, 1, 16384);
	if (got == 1 && RECS(0, r) == 1)
		CHECK_REC(&r[0], fr[2], 100, 0);
	c1 = counters(d);
	CHECK_EQ(c1.wire_rx_frames - c0.wire_rx_frames, 2);
	check_eq_at(__FILE__, __LINE__, "a 9300-byte frame counts in rx_oversize",
		    c1.rx_oversize - c0.rx_oversize, 1);
	close_dev(d);

	/* V01: 1518 bytes at most. */
	OPEN_OR_RETURN(d, PID_CH397, HS, CH39X_WIRE_LOOP, NULL, NULL);
	set_rx_mode(d, V01, RX_PUF | RX_PBD);
	c0 = counters(d);
	CHECK_EQ(ch39x_sim_inject(d, fr[0], mk_frame(fr[0], bcast, 0x88B5,
						     1600, 12)), 0);
	CHECK_EQ(RX_RUN(d, 1, 16384), 0);
	CHECK_EQ(counters(d).rx_oversize - c0.rx_oversize, 1);
	CHECK_EQ(ch39x_sim_inject(d, fr[0], mk_frame(fr[0], bcast, 0x88B5,
						     1518, 13)), 0);
	RX1(d, r, 1);
	CHECK_REC(&r[0], fr[0], 1518, 0);
	close_dev(d);
}

static void
test_straddle(void)
{
	static uint8_t joined[3 * 2048], want[5008];
	struct ch39x_usb_dev *d;
	uint64_t straddled;

	OPEN_OR_RETURN(d, PID_CH398, SS, CH39X_WIRE_LOOP, NULL, NULL);
	set_rx_mode(d, V02, RX_PUF | RX_PBD);
	set_jumbo(d, true);
	mk_frame(fr[0], bcast, 0x88B5, 5000, 14);
	ch39x_put_le32(want, 5000);
	ch39x_put_le32(want + 4, 0);
	memcpy(want + 8, fr[0], 5000);
	straddled = counters(d).rx_straddled;
	tx_add(0, 0, fr[0], 5000);
	TX_SEND(d, false);
	/* 5008 record bytes = 2048 + 2048 + 912. */
	CHECK_EQ(RX_RUN(d, 4, 2048), 3);
	CHECK_EQ(rx_x[0].actual, 2048);
	CHECK_EQ(rx_x[1].actual, 2048);
	CHECK_EQ(rx_x[2].actual, 912);
	memcpy(joined, rx_mem[0], 2048);
	memcpy(joined + 2048, rx_mem[1], 2048);
	memcpy(joined + 4096, rx_mem[2], 912);
	CHECK_MEM(joined, want, 5008);
	CHECK_EQ(counters(d).rx_straddled - straddled, 1);
	close_dev(d);
}

/*
 * End-of-transfer rules (§5): V02 at high speed marks a 512-multiple
 * with TX_LS in the last record plus a 4-byte trailer, V01 with a ZLP, V02
 * at SuperSpeed with nothing, even at a multiple of 1024.
 */
static void
test_tx_end(void)
{
	static const struct {
		uint16_t pid;
		enum ch39x_usb_speed speed;
		uint32_t flen;
		bool ls, zlp;
		uint32_t xlen;
		unsigned int unterminated, ls_seen, zlp_seen;
	} w[] = {
		{ PID_CH398, HS, 504, false, false, 512, 1, 0, 0 },
		{ PID_CH398, HS, 504, true, false, 516, 0, 1, 0 },
		{ PID_CH398, HS, 500, false, false, 508, 0, 0, 0 },
		{ PID_CH397, HS, 504, false, false, 512, 1, 0, 0 },
		{ PID_CH397, HS, 504, false, true, 512, 0, 0, 1 },
		{ PID_CH398, SS, 1016, false, false, 1024, 0, 0, 0 },
	};
	struct ch39x_sim_counters c0, c1;
	struct ch39x_usb_dev *d;
	unsigned int i;

	for (i = 0; i < DIM(w); i++) {
		OPEN_OR_RETURN(d, w[i].pid, w[i].speed, CH39X_WIRE_LOOP, NULL,
			       NULL);
		c0 = counters(d);
		tx_add(w[i].ls ? 1u << 20 : 0, 0, fr[0],
		       mk_frame(fr[0], bcast, 0x88B5, w[i].flen, 15));
		if (w[i].ls) {
			memset(txbuf + txlen, 0, 4);	/* the trailer */
			txlen += 4;
		}
		CHECK_EQ(txlen, w[i].xlen);
		TX_SEND(d, w[i].zlp);
		c1 = counters(d);
		CHECK_EQ(c1.tx_unterminated - c0.tx_unterminated,
			 w[i].unterminated);
		CHECK_EQ(c1.tx_ls_seen - c0.tx_ls_seen, w[i].ls_seen);
		CHECK_EQ(c1.tx_zlp_seen - c0.tx_zlp_seen, w[i].zlp_seen);
		CHECK_EQ(c1.tx_bad_records - c0.tx_bad_records, 0);
		CHECK_EQ(c1.tx_frames - c0.tx_frames, 1);
		/* A record longer than its transfer is malformed, not sent. */
		ch39x_put_le32(txbuf, 2000);
		ch39x_put_le32(txbuf + 4, 0);
		memcpy(txbuf + 8, fr[0], 56);
		txlen = 64;
		TX_SEND(d, false);
		c0 = counters(d);
		CHECK_EQ(c0.tx_bad_records - c1.tx_bad_records, 1);
		CHECK_EQ(c0.tx_frames - c1.tx_frames, 0);
		close_dev(d);
	}
}

static void
test_rx_engine(void)
{
	struct ch39x_usb_dev *d;
	uint32_t ul, tl;
	struct rec r[8];

	OPEN_OR_RETURN(d, PID_CH398, SS, CH39X_WIRE_LOOP, NULL, NULL);
	set_rx_mode(d, V02, RX_RA);
	CHECK_EQ(wr32(d, V02_MISC_CFG, 1u << 13), 4);
	ul = mk_ip4(fr[0], 17, 30, true);
	tl = mk_ip4(fr[1], 6, 26, true);
	CHECK(ip_ok(fr[0] + 14) && l4_ok(fr[0] + 14));
	CHECK(ip_ok(fr[1] + 14) && l4_ok(fr[1] + 14));
	/* Tagged non-IP frame: stripped, TCI in cmd_1 bits 31..16. */
	mk_frame(fr[2], bcast, 0x88B5, 96, 21);
	CHECK_EQ(ch39x_sim_inject(d, fr[3], add_tag(fr[3], fr[2], 96, 0x6123)),
		 0);
	/* UDP/IPv4 good; bad UDP checksum (payload corrupted); bad IP. */
	CHECK_EQ(ch39x_sim_inject(d, fr[0], ul), 0);
	memcpy(fr[4], fr[0], ul);
	fr[4][14 + 20 + 8 + 3] ^= 0xFF;
	CHECK_EQ(ch39x_sim_inject(d, fr[4], ul), 0);
	memcpy(fr[5], fr[0], ul);
	fr[5][14 + 10] ^= 0x01;
	CHECK_EQ(ch39x_sim_inject(d, fr[5], ul), 0);
	/* TCP/IPv4 good; tagged UDP good. */
	CHECK_EQ(ch39x_sim_inject(d, fr[1], tl), 0);
	CHECK_EQ(ch39x_sim_inject(d, fr[6], add_tag(fr[6], fr[0], ul, 7)), 0);
	/*
	 * A minimum-size tagged frame: 56 bytes once stripped. V1.7 takes a
	 * record under 60 bytes as a bad header and drops the rest of the
	 * transfer (§4), so the device must pad it back to 60.
	 */
	mk_frame(fr[7], bcast, 0x88B5, 56, 22);
	CHECK_EQ(ch39x_sim_inject(d, fr[8], add_tag(fr[8], fr[7], 56, 0x0ABC)),
		 0);
	RX1(d, r, 7);
	CHECK_REC(&r[0], fr[2], 96, 0x61238000u);
	CHECK_REC(&r[1], fr[0], ul, 0x00000001u);
	CHECK_REC(&r[2], fr[4], ul, 0x00000201u);
	CHECK_REC(&r[3], fr[5], ul, 0x00000081u);
	CHECK_REC(&r[4], fr[1], tl, 0x00000004u);
	CHECK_REC(&r[5], fr[0], ul, 0x00078001u);
	CHECK_REC(&r[6], fr[7], 60, 0x0ABC8000u);
	/* Strip off: the tag stays in the frame. */
	CHECK_EQ(wr32(d, V02_MISC_CFG, 0), 4);
	CHECK_EQ(ch39x_sim_inject(d, fr[3], 100), 0);
	RX1(d, r, 1);
	CHECK_REC(&r[0], fr[3], 100, 0);
	close_dev(d);
}

static void
test_tx_engine(void)
{
	struct ch39x_usb_dev *a, *b = NULL;
	uint32_t ul, tl;
	struct rec r[8];

	a = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "txe", NULL);
	b = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "txe", NULL);
	CHECK(a != NULL && b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	set_rx_mode(b, V02, RX_RA);
	/* The receiver keeps tags: MISC_CFG powers up stripping (§9.2). */
	CHECK_EQ(rd32(b, V02_MISC_CFG), 1u << 13);
	CHECK_EQ(wr32(b, V02_MISC_CFG, 0), 4);
	/* cmd_1 bit 15 + TCI: tag inserted on the wire. */
	mk_frame(fr[0], bcast, 0x88B5, 80, 31);
	add_tag(fr[1], fr[0], 80, 0x0064);
	tx_add(0, 0x00648000u, fr[0], 80);
	/* UDP and TCP sent with zero checksums, bits 13 + 12 / 13 + 11. */
	ul = mk_ip4(fr[2], 17, 30, true);
	memcpy(fr[3], fr[2], ul);
	zero_csums(fr[3]);
	tx_add(0, (1u << 13) | (1u << 12), fr[3], ul);
	tl = mk_ip4(fr[4], 6, 26, true);
	memcpy(fr[5], fr[4], tl);
	zero_csums(fr[5]);
	tx_add(0, (1u << 13) | (1u << 11), fr[5], tl);
	/* TCP with the pseudo-header seed the Linux stack leaves (§5). */
	memcpy(fr[6], fr[5], tl);
	put_be16(l4_ck(fr[6] + 14), fold(pseudo(fr[6] + 14)));
	tx_add(0, (1u << 13) | (1u << 11), fr[6], tl);
	/* No offload bits: sent as it is. */
	tx_add(0, 0, fr[3], ul);
	/* Tag and checksums together. */
	add_tag(fr[7], fr[2], ul, 0x2005);
	tx_add(0, 0x20058000u | (1u << 13) | (1u << 12), fr[3], ul);
	TX_SEND(a, false);
	RX1(b, r, 6);
	CHECK_REC(&r[0], fr[1], 84, 0);
	CHECK_EQ(be16(r[0].data + 12), 0x8100);
	CHECK_EQ(be16(r[0].data + 14), 0x0064);
	CHECK_REC(&r[1], fr[2], ul, 0x00000001u);
	if (r[1].data != NULL)
		CHECK(ip_ok(r[1].data + 14) && l4_ok(r[1].data + 14));
	CHECK_REC(&r[2], fr[4], tl, 0x00000004u);
	CHECK_REC(&r[3], fr[4], tl, 0x00000004u);
	/* IP checksum 0 is wrong; UDP checksum 0 means none. */
	CHECK_REC(&r[4], fr[3], ul, 0x00000081u);
	CHECK_REC(&r[5], fr[7], ul + 4, 0x00000001u);
out:
	close_dev(b);
	close_dev(a);
}

static void
test_loop(void)
{
	struct ch39x_sim_counters c0, c1;
	struct ch39x_usb_dev *d;
	uint8_t mac[6];
	struct rec r[4];

	OPEN_OR_RETURN(d, PID_CH397, HS, CH39X_WIRE_LOOP, NULL, NULL);
	get_mac(d, V01, mac);
	set_rx_mode(d, V01, RX_PUF | RX_PBD);
	c0 = counters(d);
	tx_add(0, 0, fr[0], mk_frame(fr[0], bcast, 0x88B5, 70, 41));
	tx_add(0, 0, fr[1], mk_frame(fr[1], mac, 0x88B5, 200, 42));
	TX_SEND(d, false);
	RX1(d, r, 2);
	CHECK_REC(&r[0], fr[0], 70, 0);
	CHECK_REC(&r[1], fr[1], 200, 0);
	c1 = counters(d);
	CHECK_EQ(c1.tx_frames - c0.tx_frames, 2);
	CHECK_EQ(c1.rx_delivered - c0.rx_delivered, 2);
	close_dev(d);
}

static void
write_pcap(const char *path, const unsigned int *idx, const uint32_t *len,
	   unsigned int n)
{
	struct pcap_pkthdr h;
	pcap_dumper_t *dp;
	unsigned int i;
	pcap_t *p;

	p = pcap_open_dead(DLT_EN10MB, 65535);
	dp = p ? pcap_dump_open(p, path) : NULL;
	CHECK(dp != NULL);
	for (i = 0; dp != NULL && i < n; i++) {
		memset(&h, 0, sizeof(h));
		h.caplen = len[i];
		h.len = len[i];
		pcap_dump((u_char *)dp, &h, fr[idx[i]]);
	}
	if (dp != NULL)
		pcap_dump_close(dp);
	if (p != NULL)
		pcap_close(p);
}

static void
test_pcap(void)
{
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const unsigned int idx[4] = { 0, 1, 2, 3 };
	static const uint32_t len[4] = { 60, 150, 80, 1000 };
	char dir[] = "/tmp/test_sim.XXXXXX", err[PCAP_ERRBUF_SIZE];
	struct ch39x_sim_config c;
	struct pcap_pkthdr *h;
	const u_char *data;
	struct ch39x_usb_dev *d;
	uint64_t filtered;
	struct rec r[4];
	pcap_t *p;

	if (mkdtemp(dir) == NULL) {
		CHECK(!"mkdtemp");
		return;
	}
	memset(&c, 0, sizeof(c));
	c.pid = PID_CH398;
	c.speed = HS;
	c.wire = CH39X_WIRE_PCAP;
	memcpy(c.mac, mac, 6);
	snprintf(c.pcap_in, sizeof(c.pcap_in), "%s/in.pcap", dir);
	snprintf(c.pcap_out, sizeof(c.pcap_out), "%s/out.pcap", dir);
	mk_frame(fr[0], bcast, 0x88B5, 60, 51);
	mk_frame(fr[1], mac, 0x88B5, 150, 52);
	mk_frame(fr[2], foreign, 0x88B5, 80, 53);
	mk_frame(fr[3], bcast, 0x88B5, 1000, 54);
	write_pcap(c.pcap_in, idx, len, 4);
	d = open_cfg(&c);
	CHECK(d != NULL);
	if (d == NULL)
		goto out;
	set_rx_mode(d, V02, RX_PUF | RX_PBD);
	filtered = counters(d).rx_filtered;
	RX1(d, r, 3);
	CHECK_REC(&r[0], fr[0], 60, 0);
	CHECK_REC(&r[1], fr[1], 150, 0);
	CHECK_REC(&r[2], fr[3], 1000, 0);
	CHECK_EQ(counters(d).rx_filtered - filtered, 1);
	/* Sent frames go to the OUT file, runts padded to 60. */
	tx_add(0, 0, fr[4], mk_frame(fr[4], foreign, 0x0806, 42, 55));
	tx_add(0, 0, fr[5], mk_frame(fr[5], bcast, 0x88B5, 300, 56));
	TX_SEND(d, false);
	CHECK_EQ(counters(d).tx_frames, 2);
	close_dev(d);
	p = pcap_open_offline(c.pcap_out, err);
	CHECK(p != NULL);
	if (p == NULL)
		goto out;
	CHECK_EQ(pcap_next_ex(p, &h, &data), 1);
	CHECK_EQ(h->caplen, 60);
	CHECK_MEM(data, fr[4], 60);
	CHECK_EQ(pcap_next_ex(p, &h, &data), 1);
	CHECK_EQ(h->caplen, 300);
	CHECK_MEM(data, fr[5], 300);
	CHECK_EQ(pcap_next_ex(p, &h, &data), PCAP_ERROR_BREAK);
	pcap_close(p);
out:
	unlink(c.pcap_in);
	unlink(c.pcap_out);
	CHECK_EQ(rmdir(dir), 0);
}

static void
test_open_errors(void)
{
	struct ch39x_usb_dev *a, *b, *x;
	struct ch39x_sim_config c;
	char err[256];

	a = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "full", NULL);
	b = open_dev(PID_CH397, HS, CH39X_WIRE_PAIR, "full", NULL);
	CHECK(a != NULL && b != NULL);
	memset(&c, 0, sizeof(c));
	c.pid = PID_CH398;
	c.speed = SS;
	c.wire = CH39X_WIRE_PAIR;
	snprintf(c.pair_name, sizeof(c.pair_name), "full");
	err[0] = '\0';
	x = ch39x_sim_open(&c, err, sizeof(err));
	CHECK(x == NULL);
	CHECK(strstr(err, "pair") != NULL && strstr(err, "full") != NULL);
	close_dev(x);
	/* A closed end frees its place; the newcomer is cabled to b. */
	close_dev(a);
	CHECK(b == NULL || !ch39x_sim_link(b));
	x = ch39x_sim_open(&c, err, sizeof(err));
	CHECK(x != NULL);
	CHECK(x != NULL && b != NULL && ch39x_sim_link(x) && ch39x_sim_link(b));
	close_dev(x);
	close_dev(b);
	/* CH397 is a USB 2.0 part. */
	c.pid = PID_CH397;
	c.wire = CH39X_WIRE_LOOP;
	err[0] = '\0';
	x = ch39x_sim_open(&c, err, sizeof(err));
	CHECK(x == NULL && err[0] != '\0');
	close_dev(x);
	c.pid = 0x1234;
	c.speed = HS;
	x = ch39x_sim_open(&c, err, sizeof(err));
	CHECK(x == NULL);
	close_dev(x);
	c.pid = PID_CH398;
	c.wire = CH39X_WIRE_PCAP;
	snprintf(c.pcap_in, sizeof(c.pcap_in), "/nonexistent/in.pcap");
	err[0] = '\0';
	x = ch39x_sim_open(&c, err, sizeof(err));
	CHECK(x == NULL && strstr(err, "/nonexistent/in.pcap") != NULL);
	close_dev(x);
}

static void
test_cancel(void)
{
	struct ch39x_xfer *done[4];
	struct ch39x_usb_dev *d;
	unsigned int i, n;
	struct rec r[2];

	OPEN_OR_RETURN(d, PID_CH398, SS, CH39X_WIRE_LOOP, NULL, NULL);
	set_rx_mode(d, V02, RX_PUF | RX_PBD);
	for (i = 0; i < 3; i++) {
		memset(&rx_x[i], 0, sizeof(rx_x[i]));
		rx_x[i].ep = CH39X_EP_BULK_IN;
		rx_x[i].buf = rx_mem[i];
		rx_x[i].len = 2048;
		CHECK_EQ(d->ops->submit(d, &rx_x[i]), 0);
	}
	CHECK_EQ(d->ops->submit(d, &rx_x[0]), -EINVAL);	/* in flight */
	CHECK_EQ(d->ops->poll(d, CH39X_EP_BULK_IN, done, 4), 0);
	d->ops->cancel_all(d, CH39X_EP_BULK_IN);
	n = d->ops->poll(d, CH39X_EP_BULK_IN, done, 4);
	CHECK_EQ(n, 3);
	for (i = 0; i < n; i++)
		CHECK(done[i] == &rx_x[i] &&
		      rx_x[i].status == CH39X_XFER_CANCELLED &&
		      !rx_x[i].in_flight);
	CHECK_EQ(d->ops->poll(d, CH39X_EP_BULK_IN, done, 4), 0);
	/* A record split over transfers is lost with them. */
	set_jumbo(d, true);
	tx_add(0, 0, fr[0], mk_frame(fr[0], bcast, 0x88B5, 5000, 61));
	TX_SEND(d, false);
	CHECK_EQ(RX_RUN(d, 1, 2048), 1);
	CHECK_EQ(rx_x[0].actual, 2048);
	/* The next transfer starts with the next frame's header. */
	tx_add(0, 0, fr[1], mk_frame(fr[1], bcast, 0x88B5, 100, 62));
	TX_SEND(d, false);
	CHECK_EQ(RX_RUN(d, 1, 2048), 1);
	CHECK_EQ(RECS(0, r), 1);
	CHECK_REC(&r[0], fr[1], 100, 0);
	close_dev(d);
}

/* ---- the PHY (§2, §9.2) ---- */

/* V1.3's PHY window: wIndex 0x4000 | register (§2). */
static int
rd_phy13(struct ch39x_usb_dev *d, uint16_t reg)
{
	uint8_t b[2];

	if (ctl(d, 0xC0, 0x15, 0x0740, (uint16_t)(0x4000 | reg), b, 2) != 2)
		return -1;
	return b[0] | (b[1] << 8);
}

static int
wr_phy13(struct ch39x_usb_dev *d, uint16_t reg, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	return ctl(d, 0x40, 0x16, 0x0740, (uint16_t)(0x4000 | reg), b, 2);
}

/* The link an event reports: -1 none, else up | full << 1 | mbps << 8. */
static long
ev_link(int line, struct ch39x_usb_dev *d, uint32_t elen)
{
	long st = intr_once(line, d, elen);

	if (st < 0)
		return st;
	return (st & 0x40 ? 1 : 0) | (st & 0x01 ? 2 : 0) |
		(long)((st & 0x10) ? 1000 : (st & 0x80) ? 10 : 100) << 8;
}
#define EV_LINK(d, elen) ev_link(__LINE__, (d), (elen))
#define LK(up, full, mbps) ((long)(up) | ((full) ? 2 : 0) | (long)(mbps) << 8)

/* Both window forms reach the same registers, for reads and writes. */
static void
test_phy_window(uint16_t pid, enum ch39x_usb_speed sp)
{
	struct ch39x_usb_dev *d;
	unsigned int r;
	uint8_t b[2];

	OPEN_OR_RETURN(d, pid, sp, CH39X_WIRE_LOOP, NULL, NULL);
	for (r = 0; r < 32; r++)
		if (r != 13 && r != 14)	/* windows with state of their own */
			CHECK_EQ(rd_phy13(d, (uint16_t)r), rd_phy(d, (uint16_t)r));
	CHECK_EQ(wr_phy13(d, 4, 0x0DE1), 2);
	CHECK_EQ(rd_phy(d, 4), 0x0DE1);
	CHECK_EQ(wr_phy(d, 4, 0x01E1), 2);
	CHECK_EQ(rd_phy13(d, 4), 0x01E1);
	/* BMCR through V1.3's form: power down takes the link. */
	CHECK_EQ(wr_phy13(d, 0, (uint16_t)(rd_phy(d, 0) | 0x0800)), 2);
	CHECK(!ch39x_sim_link(d));
	CHECK_EQ(wr_phy13(d, 0, (uint16_t)(rd_phy(d, 0) & ~0x0800)), 2);
	CHECK(ch39x_sim_link(d));
	/* Anything else stalls: register 32, other high bits, wValue. */
	CHECK_EQ(ctl(d, 0xC0, 0x15, 0x0740, 0x4020, b, 2), -EPIPE);
	CHECK_EQ(ctl(d, 0xC0, 0x15, 0x0740, 0x8001, b, 2), -EPIPE);
	CHECK_EQ(ctl(d, 0xC0, 0x15, 0x0740, 0x4001 | 0x0100, b, 2), -EPIPE);
	CHECK_EQ(ctl(d, 0x40, 0x16, 0x0740, 0x4020, b, 2), -EPIPE);
	CHECK_EQ(ctl(d, 0x40, 0x16, 0x0744, 0x4001, b, 2), -EPIPE);
	close_dev(d);
}

/*
 * Every register V1.7 reads, on a loop cable (the adapter is its own link
 * partner) at power-up, then after a new advertisement.
 */
static void
test_phy_regs_ch398(void)
{
	struct ch39x_usb_dev *d;

	OPEN_OR_RETURN(d, PID_CH398, SS, CH39X_WIRE_LOOP, NULL, NULL);
	CHECK_EQ(rd_phy(d, 0), 0x1140);		/* AN, 1000 full */
	CHECK_EQ(rd_phy(d, 1), 0x796D);		/* + ESTATEN, AN done, link */
	CHECK_EQ(rd_phy(d, 2), 0x1A86);
	CHECK_EQ(rd_phy(d, 3), 0x0398);
	CHECK_EQ(rd_phy(d, 4), 0x01E1);
	/* The partner's base page: 10/100 both duplexes, ACK, next page. */
	CHECK_EQ(rd_phy(d, 5), 0xC1E1);
	CHECK_EQ(rd_phy(d, 6), 0x000F);
	CHECK_EQ(rd_phy(d, 9), 0x0200);
	/* Partner 1000 full, both receivers OK, master. */
	CHECK_EQ(rd_phy(d, 10), 0x7800);
	CHECK_EQ(rd_phy(d, 15), 0x3000);
	CHECK_EQ(EV_LINK(d, 32), LK(1, 1, 1000));
	/* BMSR, LPA, ANER, GBSR, ESTATUS are read-only. */
	CHECK_EQ(wr_phy(d, 1, 0), 2);
	CHECK_EQ(wr_phy(d, 5, 0), 2);
	CHECK_EQ(wr_phy(d, 10, 0), 2);
	CHECK_EQ(rd_phy(d, 1), 0x796D);
	CHECK_EQ(rd_phy(d, 5), 0xC1E1);
	CHECK_EQ(rd_phy(d, 10), 0x7800);
	/* EEE (§2): 0x10 capability, 0x12 advertisement, extended 0x00DB. */
	CHECK_EQ(rd_phy(d, 0x10), 0x0003);
	CHECK_EQ(rd_phy(d, 0x12), 0);
	CHECK_EQ(wr_phy(d, 0x0E, 0x00DB), 2);
	CHECK_EQ(rd_phy(d, 0x0E), 0x00DB);
	CHECK_EQ(rd_phy(d, 0x0D), 0);		/* partner advertises none */
	CHECK_EQ(wr_phy(d, 0x12, 0x0003), 2);	/* V1.7's init */
	CHECK_EQ(rd_phy(d, 0x12), 0x0003);
	CHECK_EQ(rd_phy(d, 0x0D), 0x0006);	/* 100TX and 1000T EEE */
	CHECK_EQ(wr_phy(d, 0x10, 0), 2);
	CHECK_EQ(rd_phy(d, 0x10), 0x0003);	/* read-only */
	/* Another extended register reads 0. */
	CHECK_EQ(wr_phy(d, 0x0E, 0x00DA), 2);
	CHECK_EQ(rd_phy(d, 0x0D), 0);
	/*
	 * ch398_set_speed: a new advertisement counts once autonegotiation
	 * restarts, not before.
	 */
	CHECK_EQ(wr_phy(d, 4, 0x0D01), 2);	/* 100 full, pause */
	CHECK_EQ(wr_phy(d, 9, 0x0000), 2);
	CHECK_EQ(rd_phy(d, 5), 0xC1E1);		/* still the old one */
	CHECK_EQ(EV_LINK(d, 32), -1);
	CHECK_EQ(wr_phy(d, 0, 0x1200), 2);	/* AN + restart */
	CHECK_EQ(rd_phy(d, 0), 0x1000);		/* restart self-clears */
	CHECK_EQ(rd_phy(d, 5), 0x4D01);
	CHECK_EQ(rd_phy(d, 6), 0x0007);		/* no next page from it */
	CHECK_EQ(rd_phy(d, 10), 0);
	CHECK_EQ(EV_LINK(d, 32), LK(1, 1, 100));
	/* Nothing in common with itself but 10 half. */
	CHECK_EQ(wr_phy(d, 4, 0x0021), 2);
	CHECK_EQ(wr_phy(d, 0, 0x1200), 2);
	CHECK_EQ(rd_phy(d, 5), 0x4021);
	CHECK_EQ(EV_LINK(d, 32), LK(1, 0, 10));
	/* Forced 1000BASE-T does not link (it needs autonegotiation). */
	CHECK_EQ(wr_phy(d, 0, 0x0140), 2);
	CHECK(!ch39x_sim_link(d));
	CHECK_EQ(rd_phy(d, 1), 0x7949);
	CHECK_EQ(rd_phy(d, 5), 0);
	CHECK_EQ(EV_LINK(d, 32), LK(0, 1, 1000));
	/* Forced 100 full against itself. */
	CHECK_EQ(wr_phy(d, 0, 0x2100), 2);
	CHECK_EQ(rd_phy(d, 1), 0x794D);		/* link, no AN complete */
	CHECK_EQ(rd_phy(d, 5), 0);
	CHECK_EQ(rd_phy(d, 6), 0x0004);
	CHECK_EQ(rd_phy(d, 10), 0);
	CHECK_EQ(EV_LINK(d, 32), LK(1, 1, 100));
	/* Reset: every register back to power-up, self-clearing. */
	CHECK_EQ(wr_phy(d, 0, 0x8000), 2);
	CHECK_EQ(rd_phy(d, 0), 0x1140);
	CHECK_EQ(rd_phy(d, 4), 0x01E1);
	CHECK_EQ(rd_phy(d, 9), 0x0200);
	CHECK_EQ(rd_phy(d, 0x12), 0);
	CHECK_EQ(EV_LINK(d, 32), LK(1, 1, 1000));
	/* Power-up MISC_CFG strips VLAN tags (§9.2). */
	CHECK_EQ(rd32(d, V02_MISC_CFG), 1u << 13);
	close_dev(d);
}

static void
test_phy_regs_ch397(void)
{
	struct ch39x_usb_dev *d;

	OPEN_OR_RETURN(d, PID_CH397, HS, CH39X_WIRE_LOOP, NULL, NULL);
	CHECK_EQ(rd_phy(d, 0), 0x3100);		/* AN, 100 full */
	CHECK_EQ(rd_phy(d, 1), 0x786D);
	CHECK_EQ(rd_phy(d, 3), 0x0397);
	CHECK_EQ(rd_phy(d, 5), 0x41E1);
	CHECK_EQ(rd_phy(d, 6), 0x0003);
	/* No 1000BASE-T registers on a 10/100 PHY. */
	CHECK_EQ(rd_phy(d, 9), 0);
	CHECK_EQ(wr_phy(d, 9, 0x0200), 2);
	CHECK_EQ(rd_phy(d, 9), 0);
	CHECK_EQ(rd_phy(d, 10), 0);
	CHECK_EQ(rd_phy(d, 15), 0);
	CHECK_EQ(EV_LINK(d, 16), LK(1, 1, 100));
	/*
	 * MMD through registers 13/14 (22.2.4.3.11): EEE capability (3.20),
	 * advertisement (7.60), link partner (7.61).
	 */
	CHECK_EQ(wr_phy(d, 13, 3), 2);
	CHECK_EQ(wr_phy(d, 14, 20), 2);
	CHECK_EQ(wr_phy(d, 13, 0x4003), 2);
	CHECK_EQ(rd_phy(d, 14), 0x0002);
	CHECK_EQ(wr_phy(d, 13, 7), 2);
	CHECK_EQ(wr_phy(d, 14, 61), 2);
	CHECK_EQ(wr_phy(d, 13, 0x4007), 2);
	CHECK_EQ(rd_phy(d, 14), 0);		/* partner: no EEE yet */
	CHECK_EQ(wr_phy(d, 13, 7), 2);
	CHECK_EQ(wr_phy(d, 14, 60), 2);
	CHECK_EQ(rd_phy(d, 14), 60);		/* the address reads back */
	CHECK_EQ(wr_phy(d, 13, 0x4007), 2);
	CHECK_EQ(wr_phy(d, 14, 0x0002), 2);
	CHECK_EQ(rd_phy(d, 14), 0x0002);
	CHECK_EQ(wr_phy(d, 13, 7), 2);
	CHECK_EQ(wr_phy(d, 14, 61), 2);
	CHECK_EQ(wr_phy(d, 13, 0x4007), 2);
	CHECK_EQ(rd_phy(d, 14), 0x0002);	/* itself, on the loop */
	/* Page 4 register 0x10 bit 13: 10M EEE; page 0 again after. */
	CHECK_EQ(rd_phy(d, 0x10), 0);
	CHECK_EQ(wr_phy(d, 0x1F, 4), 2);
	CHECK_EQ(rd_phy(d, 0x1F), 4);
	CHECK_EQ(rd_phy(d, 0x10), 0x2000);
	CHECK_EQ(wr_phy(d, 0x1F, 0), 2);
	CHECK_EQ(rd_phy(d, 0x10), 0);
	/* Forced 10 half: the event says 10M, half duplex. */
	CHECK_EQ(wr_phy(d, 0, 0x0000), 2);
	CHECK_EQ(EV_LINK(d, 16), LK(1, 0, 10));
	CHECK_EQ(rd_phy(d, 1), 0x7849 | 0x04);
	/* Forced 1000 does not exist on this PHY. */
	CHECK_EQ(wr_phy(d, 0, 0x0140), 2);
	CHECK(!ch39x_sim_link(d));
	close_dev(d);
}

/*
 * Autonegotiation between the two ends of a pair: the highest common
 * mode; parallel detection to half duplex; no link between mismatched
 * forced ends; the far end's registers agree (§9.2).
 */
static void
test_phy_pair(void)
{
	struct ch39x_usb_dev *a, *b = NULL;

	OPEN_OR_RETURN(a, PID_CH398, SS, CH39X_WIRE_PAIR, "an", NULL);
	b = open_dev(PID_CH398, SS, CH39X_WIRE_PAIR, "an", NULL);
	CHECK(b != NULL);
	if (b == NULL)
		goto out;
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 1000));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 1, 1000));
	/* One master, one slave. */
	CHECK_EQ(rd_phy(a, 10), 0x7800);
	CHECK_EQ(rd_phy(b, 10), 0x3800);
	/* a advertises 10/100 only: 100 full at both ends. */
	CHECK_EQ(wr_phy(a, 9, 0), 2);
	CHECK_EQ(wr_phy(a, 0, 0x1200), 2);
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 100));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 1, 100));
	CHECK_EQ(rd_phy(b, 5), 0x41E1);		/* no next page */
	CHECK_EQ(rd_phy(b, 10), 0);
	CHECK_EQ(rd_phy(a, 10), 0x0800);	/* b still offers 1000 */
	/* a forced 100 full: b finds 100 by parallel detection, half. */
	CHECK_EQ(wr_phy(a, 0, 0x2100), 2);
	CHECK_EQ(EV_LINK(a, 32), -1);		/* a: still 100 full */
	CHECK(ch39x_sim_link(a));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 0, 100));
	CHECK_EQ(rd_phy(b, 1), 0x796D);		/* AN complete, by PD */
	CHECK_EQ(rd_phy(b, 5), 0x0080);		/* 100 half, no ACK */
	CHECK_EQ(rd_phy(b, 6), 0x0004);		/* partner not AN-able */
	CHECK_EQ(rd_phy(a, 1), 0x794D);
	CHECK_EQ(rd_phy(a, 5), 0);
	/* b no longer advertises 100: parallel detection fails. */
	CHECK_EQ(wr_phy(b, 4, 0x0061), 2);
	CHECK_EQ(wr_phy(b, 0, 0x1200), 2);
	CHECK(!ch39x_sim_link(a) && !ch39x_sim_link(b));
	CHECK_EQ(EV_LINK(a, 32) & 1, 0);
	CHECK_EQ(EV_LINK(b, 32) & 1, 0);
	/* b forced 10 full against a forced 100: no link. */
	CHECK_EQ(wr_phy(b, 0, 0x0100), 2);
	CHECK(!ch39x_sim_link(a) && !ch39x_sim_link(b));
	CHECK_EQ(rd_phy(a, 1) & 0x04, 0);
	/* Both forced 100, one half one full: a duplex mismatch links. */
	CHECK_EQ(wr_phy(b, 0, 0x2000), 2);
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 100));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 0, 100));
	/* Both autonegotiate again (b's ANAR as written: 10 only). */
	CHECK_EQ(wr_phy(a, 4, 0x01E1), 2);
	CHECK_EQ(wr_phy(a, 0, 0x1200), 2);
	CHECK_EQ(wr_phy(b, 0, 0x1200), 2);
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 10));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 1, 10));
	/* A flap: link and registers follow the cable. */
	ch39x_sim_set_cable(b, false);
	CHECK_EQ(rd_phy(a, 1) & 0x24, 0);
	CHECK_EQ(rd_phy(a, 5), 0);
	CHECK_EQ(EV_LINK(a, 32) & 1, 0);
	ch39x_sim_set_cable(b, true);
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 10));
	CHECK_EQ(rd_phy(a, 5), 0xC061);		/* b still offers 1000 */
	/* b's PHY reset: all modes again, 1000 full. */
	CHECK_EQ(wr_phy(b, 0, 0x8000), 2);
	CHECK_EQ(wr_phy(a, 9, 0x0200), 2);
	CHECK_EQ(wr_phy(a, 0, 0x1200), 2);
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 1000));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 1, 1000));
	/* The far end leaves: no link. */
	close_dev(b);
	b = NULL;
	CHECK(!ch39x_sim_link(a));
	CHECK_EQ(rd_phy(a, 1) & 0x04, 0);
out:
	close_dev(b);
	close_dev(a);
}

/* The cable's speed (link_speed) caps the negotiation; EEE reaches b. */
static void
test_phy_cable(void)
{
	struct ch39x_usb_dev *a, *b = NULL;
	struct ch39x_sim_config c;

	memset(&c, 0, sizeof(c));
	c.pid = PID_CH398;
	c.speed = SS;
	c.wire = CH39X_WIRE_PAIR;
	snprintf(c.pair_name, sizeof(c.pair_name), "cab");
	c.link_mbps = 100;
	a = open_cfg(&c);
	CHECK(a != NULL);
	c.link_mbps = 0;
	b = open_cfg(&c);
	CHECK(b != NULL);
	if (a == NULL || b == NULL)
		goto out;
	CHECK_EQ(EV_LINK(a, 32), LK(1, 1, 100));
	CHECK_EQ(EV_LINK(b, 32), LK(1, 1, 100));
	CHECK_EQ(rd_phy(b, 5), 0x41E1);
	CHECK_EQ(rd_phy(b, 10), 0);
	CHECK_EQ(wr_phy(a, 0x12, 0x0001), 2);	/* EEE at 100M */
	CHECK_EQ(wr_phy(b, 0x0E, 0x00DB), 2);
	CHECK_EQ(rd_phy(b, 0x0D), 0x0002);
	/* A CH397 on the same kind of cable: 100 full. */
	close_dev(b);
	c.pid = PID_CH397;
	c.speed = HS;
	b = open_cfg(&c);
	CHECK(b != NULL);
	if (b == NULL)
		goto out;
	CHECK_EQ(EV_LINK(b, 16), LK(1, 1, 100));
	/* The 100M cable carries no 1000BASE-T pages. */
	CHECK_EQ(rd_phy(b, 5), 0x41E1);
out:
	close_dev(b);
	close_dev(a);
}

/*
 * The RX completion policy (§9.2): a held bulk IN transfer ends when it
 * carries rx_hold_bytes, rx_hold_us after its first record, or when the
 * next record does not fit; never while it is below all three.
 */
static unsigned int
rx_poll_one(struct ch39x_usb_dev *d)
{
	struct ch39x_xfer *done[2];

	return d->ops->poll(d, CH39X_EP_BULK_IN, done, 2);
}

static void
rx_submit(struct ch39x_usb_dev *d, uint32_t size)
{
	memset(&rx_x[0], 0, sizeof(rx_x[0]));
	rx_x[0].ep = CH39X_EP_BULK_IN;
	rx_x[0].buf = rx_mem[0];
	rx_x[0].len = size;
	CHECK_EQ(d->ops->submit(d, &rx_x[0]), 0);
}

#define HOLD_US 50000

static uint64_t
mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void
test_rx_hold(void)
{
	struct ch39x_sim_config c;
	struct ch39x_usb_dev *d;
	struct rec r[64];
	uint64_t t0, after = 0;
	unsigned int i, n;
	uint32_t len;

	memset(&c, 0, sizeof(c));
	c.pid = PID_CH398;
	c.speed = SS;
	c.wire = CH39X_WIRE_LOOP;
	c.rx_hold_bytes = 4096;
	c.rx_hold_us = HOLD_US;
	d = open_cfg(&c);
	CHECK(d != NULL);
	if (d == NULL)
		return;
	set_rx_mode(d, V02, RX_PUF | RX_PBD);
	len = mk_frame(fr[0], bcast, 0x88B5, 100, 3);
	/* By size: 3 records (324 bytes) wait, 43 (4644) go. */
	rx_submit(d, 16384);
	for (i = 0; i < 3; i++)
		CHECK_EQ(ch39x_sim_inject(d, fr[0], len), 0);
	CHECK_EQ(rx_poll_one(d), 0);
	CHECK_EQ(rx_poll_one(d), 0);
	for (i = 0; i < 40; i++)
		CHECK_EQ(ch39x_sim_inject(d, fr[0], len), 0);
	CHECK_EQ(rx_poll_one(d), 1);
	CHECK_EQ(rx_x[0].actual, 43 * 108);
	CHECK_EQ(RECS(0, r), 43);
	/*
	 * By time: one record waits rx_hold_us, then goes alone. Polled
	 * until it goes (5 s at most), the clock read around each poll: a
	 * busy machine may run a poll late, never early, so the check is
	 * that the poll that let it go ended after the hold had passed
	 * (counted from before the inject), and that it went at all.
	 */
	rx_submit(d, 16384);
	t0 = mono_us();
	CHECK_EQ(ch39x_sim_inject(d, fr[0], len), 0);
	for (n = 0; n == 0 && mono_us() - t0 < 5000000; ) {
		n = rx_poll_one(d);
		after = mono_us();
		if (n == 0)
			usleep(2000);
	}
	CHECK_EQ(n, 1);
	CHECK(after - t0 >= HOLD_US);
	CHECK_EQ(RECS(0, r), 1);
	/* Full: the 19th record does not fit a 2048-byte transfer. */
	rx_submit(d, 2048);
	for (i = 0; i < 19; i++)
		CHECK_EQ(ch39x_sim_inject(d, fr[0], len), 0);
	CHECK_EQ(rx_poll_one(d), 1);
	CHECK_EQ(RECS(0, r), 18);
	/* The 19th starts the next transfer, and its clock anew. */
	rx_submit(d, 2048);
	CHECK_EQ(rx_poll_one(d), 0);
	d->ops->cancel_all(d, CH39X_EP_BULK_IN);
	CHECK_EQ(rx_poll_one(d), 1);
	CHECK_EQ(rx_x[0].status, CH39X_XFER_CANCELLED);
	close_dev(d);
}

/* GET_DESCRIPTOR(type, index) through the model's control op. */
static int
get_desc(struct ch39x_usb_dev *d, uint8_t type, uint8_t idx, uint16_t lang,
	 uint8_t *buf, uint16_t len)
{
	return d->ops->control(d, 0x80, 0x06, (uint16_t)(type << 8 | idx),
			       lang, buf, len, 1000);
}

/*
 * The standard descriptors a host enumerates with (§17): the device
 * descriptor with the identity get_info gives, one configuration whose
 * endpoints are the transport's, strings 0-3, the BOS at SuperSpeed only;
 * a CDC function's configuration walks to exactly what get_cdc says.
 */
static void
test_descriptors(void)
{
	static const struct {
		uint16_t pid;
		enum ch39x_usb_speed speed;
		enum ch39x_framing framing;
	} w[] = {
		{ PID_CH397, HS, CH39X_FRAMING_VENDOR },
		{ PID_CH398, SS, CH39X_FRAMING_VENDOR },
		{ PID_CH398, SS, CH39X_FRAMING_NCM },
		{ PID_CH398, HS, CH39X_FRAMING_ECM },
	};
	struct ch39x_cdc_desc cdc, walked;
	struct ch39x_sim_config c;
	struct ch39x_usb_info info;
	struct ch39x_usb_dev *d;
	uint8_t b[512];
	unsigned int i;
	int n;

	for (i = 0; i < DIM(w); i++) {
		memset(&c, 0, sizeof(c));
		c.pid = w[i].pid;
		c.speed = w[i].speed;
		c.framing = w[i].framing;
		d = open_cfg(&c);
		CHECK(d != NULL);
		if (d == NULL)
			continue;
		CHECK_EQ(d->ops->get_info(d, &info), 0);
		n = get_desc(d, 0x01, 0, 0, b, 64);
		CHECK_EQ(n, 18);
		CHECK_EQ(b[1], 0x01);
		CHECK_EQ(ch39x_get_le16(b + 2), w[i].speed == SS ? 0x0300 : 0x0200);
		CHECK_EQ(b[7], w[i].speed == SS ? 9 : 64);
		CHECK_EQ(ch39x_get_le16(b + 8), 0x1A86);
		CHECK_EQ(ch39x_get_le16(b + 10), w[i].pid);
		CHECK_EQ(b[17], 1);
		/* The first 8 bytes, as a host asks for bMaxPacketSize0. */
		CHECK_EQ(get_desc(d, 0x01, 0, 0, b, 8), 8);
		/* The configuration: its header first, then all of it. */
		CHECK_EQ(get_desc(d, 0x02, 0, 0, b, 9), 9);
		n = get_desc(d, 0x02, 0, 0, b, sizeof(b));
		CHECK(n > 9);
		CHECK_EQ(ch39x_get_le16(b + 2), n);
		CHECK_EQ(b[5], info.config_value);
		CHECK_EQ(get_desc(d, 0x02, 1, 0, b, sizeof(b)), -EPIPE);
		if (w[i].framing != CH39X_FRAMING_VENDOR) {
			CHECK_EQ(d->ops->get_cdc(d, &cdc), 0);
			CHECK_EQ(ch39x_cdc_parse_config(b, (uint32_t)n, 0,
							&walked), 0);
			CHECK_EQ(walked.errors, 0);
			CHECK(ch39x_cdc_usable(&walked));
			CHECK_MEM(&walked, &cdc, sizeof(cdc));
		} else {
			/* One vendor interface: bulk IN, bulk OUT, intr IN. */
			CHECK_EQ(b[4], 1);
			CHECK_EQ(b[9 + 5], 0xFF);
			CHECK_EQ(b[18 + 2], 0x81);
			CHECK_EQ(ch39x_get_le16(b + 18 + 4),
				 info.maxp[CH39X_EP_BULK_IN]);
		}
		/* Strings: languages, then the serial number get_info has. */
		CHECK_EQ(get_desc(d, 0x03, 0, 0, b, sizeof(b)), 4);
		CHECK_EQ(ch39x_get_le16(b + 2), 0x0409);
		n = get_desc(d, 0x03, 3, 0x0409, b, sizeof(b));
		CHECK_EQ(n, 2 + 2 * (int)strlen(info.serial));
		CHECK_EQ(b[2], (uint8_t)info.serial[0]);
		CHECK(get_desc(d, 0x03, 2, 0x0409, b, sizeof(b)) > 2);
		CHECK_EQ(get_desc(d, 0x03, 3, 0x0407, b, sizeof(b)), -EPIPE);
		n = get_desc(d, 0x0F, 0, 0, b, sizeof(b));
		if (w[i].speed == SS) {
			CHECK_EQ(n, 22);
			CHECK_EQ(ch39x_get_le16(b + 2), 22);
		} else {
			CHECK_EQ(n, -EPIPE);
		}
		/* A device qualifier: the model runs at one speed. */
		CHECK_EQ(get_desc(d, 0x06, 0, 0, b, sizeof(b)), -EPIPE);
		close_dev(d);
	}
}

int
main(void)
{
	test_info();
	test_descriptors();
	test_ctrl(PID_CH397, HS);
	test_ctrl(PID_CH398, SS);
	test_events(PID_CH397, HS);
	test_events(PID_CH398, SS);
	test_pair_link();
	test_phy_window(PID_CH397, HS);
	test_phy_window(PID_CH398, SS);
	test_phy_regs_ch398();
	test_phy_regs_ch397();
	test_phy_pair();
	test_phy_cable();
	test_rx_hold();
	test_filter_v02();
	test_filter_v01();
	test_oversize();
	test_straddle();
	test_tx_end();
	test_rx_engine();
	test_tx_engine();
	test_loop();
	test_pcap();
	test_open_errors();
	test_cancel();
	printf("test_sim: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
