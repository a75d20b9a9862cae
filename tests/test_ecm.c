/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Unit tests for the CDC-ECM helpers (lib/ch39x/ch39x_ecm.c) and the
 * shared CDC pieces they use (lib/ch39x/ch39x_cdc.c): descriptors, the
 * packet filter, notifications. Expected bytes are written out by hand from
 * §11-§15 and Linux cdc.h; inputs to parsers are
 * copied into malloc'd buffers of exactly their length.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_ecm.h"

#include "check.h"
#include "cdc_build_check.h"

/* ---- Descriptors ---- */

/*
 * An ECM function as the Linux gadget describes it (f_ecm.c), high speed:
 * config (wTotalLength 88), IAD, comm interface 0 (02/06), Header 1.10,
 * Union 0 -> 1, Ethernet (iMACAddress 4, wMaxSegmentSize 1514, no
 * filters), interrupt IN 0x81 (16 bytes, bInterval 9), data interface 1
 * alt 0 (none) and alt 1 (bulk IN 0x82, OUT 0x03, 512).
 */
static const uint8_t ecm_cfg[] = {
	0x09, 0x02, 0x58, 0x00, 0x02, 0x01, 0x00, 0xC0, 0x01,
	0x08, 0x0B, 0x00, 0x02, 0x02, 0x06, 0x00, 0x00,
	0x09, 0x04, 0x00, 0x00, 0x01, 0x02, 0x06, 0x00, 0x00,
	0x05, 0x24, 0x00, 0x10, 0x01,
	0x05, 0x24, 0x06, 0x00, 0x01,
	0x0D, 0x24, 0x0F, 0x04, 0x00, 0x00, 0x00, 0x00, 0xEA, 0x05,
	0x00, 0x00, 0x00,
	0x07, 0x05, 0x81, 0x03, 0x10, 0x00, 0x09,
	0x09, 0x04, 0x01, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00,
	0x09, 0x04, 0x01, 0x01, 0x02, 0x0A, 0x00, 0x00, 0x00,
	0x07, 0x05, 0x82, 0x02, 0x00, 0x02, 0x00,
	0x07, 0x05, 0x03, 0x02, 0x00, 0x02, 0x00,
};

static int
parse_cfg_exact(const uint8_t *v, uint32_t n, uint8_t sub,
		struct ch39x_cdc_desc *d)
{
	uint8_t *b = dup_exact(v, n);
	int r = ch39x_cdc_parse_config(b, n, sub, d);

	free(b);
	return r;
}

static void
test_descs(void)
{
	struct ch39x_cdc_desc d;
	struct ch39x_ecm_cfg c;
	uint8_t v[128];
	uint32_t cut;

	CHECK_EQ(sizeof(ecm_cfg), 88);
	CHECK_EQ(parse_cfg_exact(ecm_cfg, 88, CH39X_CDC_SUBCLASS_ECM, &d), 0);
	CHECK_EQ(d.errors, 0);
	CHECK(d.have_comm && d.have_header && d.have_union && d.have_ether);
	CHECK(!d.have_ncm);
	CHECK_EQ(d.comm_subclass, CH39X_CDC_SUBCLASS_ECM);
	CHECK_EQ(d.i_mac_address, 4);
	CHECK_EQ(d.max_segment, 1514);
	CHECK_EQ(d.intr_ep, 0x81);
	CHECK_EQ(d.data_if, 1);
	CHECK_EQ(d.data_alt, 1);
	CHECK_EQ(d.data_protocol, 0);
	CHECK_EQ(d.bulk_in, 0x82);
	CHECK_EQ(d.bulk_out, 0x03);
	CHECK(ch39x_cdc_usable(&d));
	CHECK_EQ(parse_cfg_exact(ecm_cfg, 88, CH39X_CDC_SUBCLASS_NCM, &d), 0);
	CHECK(!d.have_comm);

	/* Every truncation is walked without reading past it. */
	for (cut = 0; cut < sizeof(ecm_cfg); cut++) {
		parse_cfg_exact(ecm_cfg, cut, 0, &d);
		CHECK(!d.have_data_eps);
	}
	/* The Ethernet descriptor cut inside: walk stops, ether not seen. */
	CHECK_EQ(parse_cfg_exact(ecm_cfg, 45, 0, &d), -1);
	CHECK(d.have_union && !d.have_ether);
	CHECK_EQ(d.malformed_at, 36);

	/* ECM config from descriptors. */
	CHECK_EQ(parse_cfg_exact(ecm_cfg, 88, 0, &d), 0);
	CHECK_EQ(ch39x_ecm_cfg_init(&c, &d, false), 0);
	CHECK_EQ(c.max_frame, 1514);
	CHECK_EQ(c.in_maxp, 512);
	CHECK_EQ(c.out_maxp, 512);
	CHECK(!c.zlp);
	/* wMaxSegmentSize 1500 (an MTU): floor 1514. 9014: taken. */
	memcpy(v, ecm_cfg, 88);
	v[44] = 0xDC;
	v[45] = 0x05;
	parse_cfg_exact(v, 88, 0, &d);
	CHECK_EQ(d.max_segment, 1500);
	CHECK_EQ(ch39x_ecm_cfg_init(&c, &d, true), 0);
	CHECK_EQ(c.max_frame, 1514);
	CHECK(c.zlp);
	v[44] = 0x36;
	v[45] = 0x23;
	parse_cfg_exact(v, 88, 0, &d);
	CHECK_EQ(ch39x_ecm_cfg_init(&c, &d, false), 0);
	CHECK_EQ(c.max_frame, 9014);
	/* No data endpoints: no config. */
	parse_cfg_exact(ecm_cfg, 80, 0, &d);
	CHECK_EQ(ch39x_ecm_cfg_init(&c, &d, false), -1);
}

/* ---- RX ---- */

static void
test_rx(void)
{
	struct ch39x_ecm_cfg c = { .max_frame = 1514, .in_maxp = 512,
				   .out_maxp = 512 };
	struct ch39x_ecm_rx_stats st;
	uint32_t fl = 0;

	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 0, &fl), 0);
	CHECK_EQ(st.zero_len, 1);
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 13, &fl), 0);
	CHECK_EQ(st.runts, 1);
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 14, &fl), 1);
	CHECK_EQ(fl, 14);
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 1514, &fl), 1);
	CHECK_EQ(fl, 1514);
	/* 1514 is no multiple of 512: 1515 is oversize, not a pad. */
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 1515, &fl), 0);
	CHECK_EQ(st.oversize, 1);
	/* A padded 513 (512 + pad) is a frame of 513 as far as we know. */
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 513, &fl), 1);
	CHECK_EQ(fl, 513);
	CHECK_EQ(st.frames, 3);
	CHECK_EQ(st.frame_bytes, 14 + 1514 + 513);

	/* max_frame 1536 = 3 * 512: 1537 is 1536 plus a pad byte. */
	c.max_frame = 1536;
	memset(&st, 0, sizeof(st));
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 1537, &fl), 1);
	CHECK_EQ(fl, 1536);
	CHECK_EQ(st.pad_trimmed, 1);
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 1538, &fl), 0);
	CHECK_EQ(st.oversize, 1);
	CHECK_EQ(ch39x_ecm_rx_check(&c, &st, 0xFFFFFFFFu, &fl), 0);
	CHECK_EQ(st.oversize, 2);
}

/* ---- TX ---- */

static void
test_tx(void)
{
	struct ch39x_ecm_cfg c = { .max_frame = 1514, .in_maxp = 512,
				   .out_maxp = 512 };
	struct ch39x_ecm_tx_end e;
	uint8_t *b;

	CHECK_EQ(ch39x_ecm_tx_buf_size(&c), 1515);
	CHECK(!ch39x_ecm_tx_len_ok(&c, 13));
	CHECK(ch39x_ecm_tx_len_ok(&c, 14));
	CHECK(ch39x_ecm_tx_len_ok(&c, 1514));
	CHECK(!ch39x_ecm_tx_len_ok(&c, 1515));

	b = malloc(ch39x_ecm_tx_buf_size(&c));
	memset(b, 0xEE, ch39x_ecm_tx_buf_size(&c));
	e = ch39x_ecm_tx_finish(&c, b, 100);
	CHECK_EQ(e.len, 100);
	CHECK(!e.zlp && !e.padded);
	CHECK_EQ(b[100], 0xEE);
	/* 512 and 1024: one zero byte (usbnet default). */
	e = ch39x_ecm_tx_finish(&c, b, 512);
	CHECK_EQ(e.len, 513);
	CHECK(e.padded && !e.zlp);
	CHECK_EQ(b[512], 0x00);
	e = ch39x_ecm_tx_finish(&c, b, 1024);
	CHECK_EQ(e.len, 1025);
	CHECK_EQ(b[1024], 0x00);
	/* ZLP quirk. */
	c.zlp = true;
	b[512] = 0xEE;
	e = ch39x_ecm_tx_finish(&c, b, 512);
	CHECK_EQ(e.len, 512);
	CHECK(e.zlp && !e.padded);
	CHECK_EQ(b[512], 0xEE);
	/* Full speed: 64-byte packets. */
	c.zlp = false;
	c.out_maxp = 64;
	e = ch39x_ecm_tx_finish(&c, b, 64);
	CHECK_EQ(e.len, 65);
	e = ch39x_ecm_tx_finish(&c, b, 1472);	/* 23 * 64 */
	CHECK_EQ(e.len, 1473);
	e = ch39x_ecm_tx_finish(&c, b, 1514);
	CHECK_EQ(e.len, 1514);
	free(b);
}

/* ---- SET_ETHERNET_PACKET_FILTER ---- */

static void
test_filter(void)
{
	static const uint8_t macs[2][6] = {
		{ 0x01, 0x00, 0x5E, 0x00, 0x00, 0x01 },
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
	};
	uint8_t buf[12];

	/* Table 62: promisc 0x01, all-mc 0x02, directed 0x04, bcast 0x08,
	 * multicast 0x10. */
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 0, 0), 0x0C);
	CHECK_EQ(ch39x_cdc_packet_filter(true, false, 0, 0), 0x0D);
	CHECK_EQ(ch39x_cdc_packet_filter(false, true, 0, 0), 0x0E);
	CHECK_EQ(ch39x_cdc_packet_filter(true, true, 0, 0), 0x0F);
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 3, 0), 0x0E);
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 3, 4), 0x1C);
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 4, 4), 0x1C);
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 5, 4), 0x0E);
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 3, 0x8004), 0x1C);
	CHECK_EQ(ch39x_cdc_packet_filter(false, false, 3, 0x8000), 0x0E);
	CHECK_EQ(ch39x_cdc_packet_filter(false, true, 3, 4), 0x0E);

	CHECK_EQ(ch39x_cdc_mc_filters_build(macs, 2, buf, 12), 12);
	CHECK_MEM(buf, ((const uint8_t[]){ 0x01, 0x00, 0x5E, 0x00, 0x00,
		  0x01, 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }), 12);
	CHECK_EQ(ch39x_cdc_mc_filters_build(macs, 2, buf, 11), 0);
	CHECK_EQ(ch39x_cdc_mc_filters_build(macs, 0, buf, 12), 0);
}

/* ---- Notifications ---- */

struct notes {
	unsigned int n;
	struct ch39x_cdc_notify v[8];
};

/* Feed one transfer (exact buffer) and collect what comes out. */
static void
feed(struct ch39x_cdc_notify_parser *ps, const uint8_t *v, uint32_t len,
     struct notes *out)
{
	uint8_t *b = dup_exact(v, len);
	struct ch39x_cdc_notify n;

	out->n = 0;
	ch39x_cdc_notify_begin(ps, b, len);
	while (ch39x_cdc_notify_next(ps, &n)) {
		if (out->n < 8)
			out->v[out->n] = n;
		out->n++;
	}
	free(b);
}

static const uint8_t conn_up[8] = {
	0xA1, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
};
static const uint8_t conn_down_if1[8] = {
	0xA1, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
};
/* SPEED_CHANGE: DL 1,000,000,000 = 0x3B9ACA00, UL 100,000,000 = 0x05F5E100 */
static const uint8_t speed[16] = {
	0xA1, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00,
	0x00, 0xCA, 0x9A, 0x3B, 0x00, 0xE1, 0xF5, 0x05,
};

static void
test_notify(void)
{
	struct ch39x_cdc_notify_parser ps;
	struct notes o;
	uint8_t v[64], b[16];

	ch39x_cdc_notify_init(&ps);
	feed(&ps, conn_up, 8, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.v[0].code, CH39X_CDC_NOTIFY_NETWORK_CONNECTION);
	CHECK(o.v[0].link_up);
	CHECK_EQ(o.v[0].index, 0);
	CHECK(!o.v[0].split);
	feed(&ps, conn_down_if1, 8, &o);
	CHECK_EQ(o.n, 1);
	CHECK(!o.v[0].link_up);
	CHECK_EQ(o.v[0].index, 1);

	feed(&ps, speed, 16, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.v[0].code, CH39X_CDC_NOTIFY_SPEED_CHANGE);
	CHECK_EQ(o.v[0].length, 8);
	CHECK_EQ(o.v[0].down_bps, 1000000000);
	CHECK_EQ(o.v[0].up_bps, 100000000);

	/* Split over two 8-byte interrupt packets (full speed). */
	feed(&ps, speed, 8, &o);
	CHECK_EQ(o.n, 0);
	feed(&ps, speed + 8, 8, &o);
	CHECK_EQ(o.n, 1);
	CHECK(o.v[0].split);
	CHECK_EQ(o.v[0].down_bps, 1000000000);
	CHECK_EQ(o.v[0].up_bps, 100000000);
	CHECK_EQ(ps.stats.split, 1);
	/* Split at an odd place, then a connection behind it. */
	memcpy(v, speed + 11, 5);
	memcpy(v + 5, conn_up, 8);
	feed(&ps, speed, 11, &o);
	CHECK_EQ(o.n, 0);
	feed(&ps, v, 13, &o);
	CHECK_EQ(o.n, 2);
	CHECK_EQ(o.v[0].up_bps, 100000000);
	CHECK(o.v[1].link_up);

	/* Merged: speed, down, up in one transfer (the gadget's order). */
	memcpy(v, speed, 16);
	memcpy(v + 16, conn_down_if1, 8);
	memcpy(v + 24, conn_up, 8);
	feed(&ps, v, 32, &o);
	CHECK_EQ(o.n, 3);
	CHECK_EQ(o.v[0].code, CH39X_CDC_NOTIFY_SPEED_CHANGE);
	CHECK(!o.v[1].link_up);
	CHECK(o.v[2].link_up);

	/* Reset drops a carried half. */
	feed(&ps, speed, 8, &o);
	ch39x_cdc_notify_reset(&ps);
	feed(&ps, conn_up, 8, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.v[0].code, CH39X_CDC_NOTIFY_NETWORK_CONNECTION);

	/* Malformed. */
	ch39x_cdc_notify_init(&ps);
	feed(&ps, conn_up, 5, &o);		/* short header */
	CHECK_EQ(o.n, 0);
	CHECK_EQ(ps.stats.bad, 1);
	memcpy(v, conn_up, 8);
	v[0] = 0x21;				/* not class IN/interface */
	feed(&ps, v, 8, &o);
	CHECK_EQ(o.n, 0);
	CHECK_EQ(ps.stats.bad, 2);
	memcpy(v, speed, 12);
	v[6] = 4;				/* SPEED_CHANGE with 4 bytes */
	memcpy(v + 12, conn_up, 8);
	feed(&ps, v, 20, &o);
	CHECK_EQ(o.n, 1);		/* skipped, the next one comes */
	CHECK(o.v[0].link_up);
	CHECK_EQ(ps.stats.bad, 3);
	memcpy(v, conn_up, 8);
	v[1] = 0x01;				/* RESPONSE_AVAILABLE */
	feed(&ps, v, 8, &o);
	CHECK_EQ(o.n, 1);
	CHECK_EQ(o.v[0].code, 0x01);
	CHECK_EQ(ps.stats.other, 1);
	memcpy(v, conn_up, 8);
	v[1] = 0x20;			/* SERIAL_STATE, wLength 100 */
	v[6] = 100;
	memset(v + 8, 0, 8);
	feed(&ps, v, 16, &o);
	CHECK_EQ(o.n, 0);
	CHECK_EQ(ps.stats.truncated, 1);
	feed(&ps, conn_up, 8, &o);		/* nothing carried */
	CHECK_EQ(o.n, 1);
	CHECK(o.v[0].link_up);
	feed(&ps, v, 0, &o);
	CHECK_EQ(o.n, 0);

	/* Builders, as a device model sends them. */
	CHECK_EQ(ch39x_cdc_notify_build_connection(b, 8, 0, true), 8);
	CHECK_MEM(b, conn_up, 8);
	CHECK_EQ(ch39x_cdc_notify_build_connection(b, 8, 1, false), 8);
	CHECK_MEM(b, conn_down_if1, 8);
	CHECK_EQ(ch39x_cdc_notify_build_connection(b, 7, 0, true), 0);
	CHECK_EQ(ch39x_cdc_notify_build_speed(b, 16, 0, 1000000000,
					      100000000), 16);
	CHECK_MEM(b, speed, 16);
	CHECK_EQ(ch39x_cdc_notify_build_speed(b, 15, 0, 1, 1), 0);
}

static uint32_t
lcg(uint32_t s)
{
	return (uint32_t)(((uint64_t)s * 1103515245u + 12345u) & 0xFFFFFFFFu);
}

/* Random bytes through the notification parser: bounds only. */
static void
test_notify_fuzz(void)
{
	struct ch39x_cdc_notify_parser ps;
	struct notes o;
	uint32_t s = 99, i, k, len;
	uint8_t v[40];

	ch39x_cdc_notify_init(&ps);
	for (i = 0; i < 20000; i++) {
		s = lcg(s);
		len = (s >> 8) % sizeof(v);
		for (k = 0; k < len; k++) {
			s = lcg(s);
			v[k] = (uint8_t)(s >> 16);
		}
		if (len > 0 && (s >> 4) % 2)
			v[0] = 0xA1;
		if (len > 7 && (s >> 5) % 2)
			v[7] = 0;
		if (len > 6 && (s >> 6) % 2)
			v[6] = (uint8_t)((s >> 7) % 12);
		feed(&ps, v, len, &o);
	}
	CHECK(ps.stats.notifications > 0);
}

/* The builder, the walker's inverse (cdc_build_check.h). */
static void
test_build_config(void)
{
	check_build_config(ecm_cfg, sizeof(ecm_cfg));
}

int
main(void)
{
	test_descs();
	test_build_config();
	test_rx();
	test_tx();
	test_filter();
	test_notify();
	test_notify_fuzz();
	printf("test_ecm: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
