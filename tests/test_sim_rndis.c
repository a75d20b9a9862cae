/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The simulated adapter's RNDIS function (lib/ch39x_sim/ch39x_sim_rndis.c)
 * driven through the transport ops as a host drives it, without EAL: the
 * descriptors, the encapsulated control messages with RESPONSE_AVAILABLE,
 * the packet filter and the multicast list, indications on link changes,
 * data messages several per transfer both ways, and what it does with
 * malformed input (§18, §20).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ch39x_rndis.h"
#include "ch39x_sim.h"
#include "ch39x_vendor.h"
#include "check.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t foreign[6] = { 0x02, 0, 0, 0, 0, 0x99 };
static const uint8_t mc1[6] = { 0x01, 0x00, 0x5e, 0, 0, 1 };
static const uint8_t mc2[6] = { 0x01, 0x00, 0x5e, 0, 0, 2 };

static struct ch39x_usb_dev *
open_rndis(uint32_t quirks, enum ch39x_wire_kind wire)
{
	struct ch39x_sim_config c;
	char err[256] = "";
	struct ch39x_usb_dev *d;

	memset(&c, 0, sizeof(c));
	c.pid = CH39X_PID_CH398;
	c.speed = CH39X_SPEED_HIGH;
	c.wire = wire;
	c.framing = CH39X_FRAMING_RNDIS;
	c.ncm_quirks = quirks;
	d = ch39x_sim_open(&c, err, sizeof(err));
	if (d == NULL)
		printf("ch39x_sim_open: %s\n", err);
	return d;
}

static struct ch39x_sim_counters
counters(struct ch39x_usb_dev *d)
{
	struct ch39x_sim_counters c;

	ch39x_sim_get_counters(d, &c);
	return c;
}

/* One interrupt transfer: the notification's bytes, or -1 for none. */
static int
notify(struct ch39x_usb_dev *d)
{
	static uint8_t b[16];
	struct ch39x_xfer x, *done[2];
	unsigned int n;

	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_INTR_IN;
	x.buf = b;
	x.len = 8;
	if (d->ops->submit(d, &x) != 0)
		return -2;
	n = d->ops->poll(d, CH39X_EP_INTR_IN, done, 2);
	if (n == 0) {
		d->ops->cancel_all(d, CH39X_EP_INTR_IN);
		d->ops->poll(d, CH39X_EP_INTR_IN, done, 2);
		return -1;
	}
	if (x.status != CH39X_XFER_OK || x.actual != 8)
		return -3;
	return (int)ch39x_get_le32(b) | (ch39x_get_le32(b + 4) ? 0x100 : 0);
}

static uint8_t resp[CH39X_RNDIS_RESP_MAX];

/* Send one command; the notification and the response it brings. */
static int
command(struct ch39x_usb_dev *d, const uint8_t *msg, uint32_t len,
	struct ch39x_rndis_msg *m)
{
	int rc;

	rc = d->ops->control(d, 0x21, CH39X_RNDIS_SEND_ENCAPSULATED, 0, 0,
			     (void *)(uintptr_t)msg, (uint16_t)len, 500);
	if (rc != (int)len)
		return -100;
	if (notify(d) != CH39X_RNDIS_NOTIFY_RESPONSE)
		return -101;
	rc = d->ops->control(d, 0xA1, CH39X_RNDIS_GET_ENCAPSULATED, 0, 0, resp,
			     sizeof(resp), 500);
	if (rc < 0)
		return rc;
	return ch39x_rndis_parse_ctrl(resp, (uint32_t)rc, m) == CH39X_RNDIS_OK ?
		rc : -102;
}

static uint32_t req_id = 100;

static int
query(struct ch39x_usb_dev *d, uint32_t oid, struct ch39x_rndis_msg *m)
{
	uint8_t b[64];
	uint32_t n = ch39x_rndis_build_query(b, sizeof(b), ++req_id, oid, 0);

	return command(d, b, n, m);
}

static uint32_t
set_u32(struct ch39x_usb_dev *d, uint32_t oid, uint32_t v)
{
	struct ch39x_rndis_msg m;
	uint8_t b[64], x[4];
	uint32_t n;

	ch39x_put_le32(x, v);
	n = ch39x_rndis_build_set(b, sizeof(b), ++req_id, oid, x, 4);
	if (command(d, b, n, &m) < 0 || m.type != CH39X_RNDIS_MSG_SET_C ||
	    m.req_id != req_id)
		return 0xDEAD;
	return m.status;
}

static struct ch39x_rndis_init_c
init(struct ch39x_usb_dev *d, uint32_t host_max)
{
	struct ch39x_rndis_init_c c;
	struct ch39x_rndis_msg m;
	uint8_t b[64];
	uint32_t n = ch39x_rndis_build_init(b, sizeof(b), ++req_id, host_max);

	memset(&c, 0, sizeof(c));
	c.status = 0xDEAD;
	if (command(d, b, n, &m) == CH39X_RNDIS_INIT_C_LEN &&
	    ch39x_rndis_match(&m, CH39X_RNDIS_MSG_INIT, req_id) ==
	    CH39X_RNDIS_MATCH)
		c = m.init;
	return c;
}

static void
test_descriptors(void)
{
	struct ch39x_usb_info info;
	struct ch39x_cdc_desc cdc;
	struct ch39x_usb_dev *d = open_rndis(0, CH39X_WIRE_LOOP);

	CHECK(d != NULL);
	if (d == NULL)
		return;
	CHECK_EQ(d->ops->get_info(d, &info), 0);
	CHECK_EQ(info.framing, CH39X_FRAMING_RNDIS);
	CHECK_EQ(info.maxp[CH39X_EP_INTR_IN], 8);
	CHECK_EQ(d->ops->get_cdc(d, &cdc), 0);
	CHECK(ch39x_cdc_usable(&cdc));
	CHECK(ch39x_rndis_is_control(cdc.comm_class, cdc.comm_subclass,
				     cdc.comm_protocol));
	CHECK_EQ(cdc.comm_class, 0x02);
	CHECK_EQ(cdc.data_alt, 0);
	CHECK(!cdc.have_ether);
	/* Its configuration descriptor walks to the same function. */
	{
		static uint8_t b[512];
		struct ch39x_cdc_desc w;
		int n;

		n = d->ops->control(d, 0x80, 0x06, 0x0200, 0, b, sizeof(b),
				    500);
		CHECK(n > 9);
		CHECK_EQ(ch39x_cdc_parse_config(b, (uint32_t)n,
						CH39X_CDC_WANT_RNDIS, &w), 0);
		CHECK_EQ(w.errors, 0);
		CHECK(ch39x_cdc_usable(&w));
		CHECK(w.comm_if == cdc.comm_if && w.data_if == cdc.data_if &&
		      w.comm_class == cdc.comm_class &&
		      w.comm_protocol == cdc.comm_protocol);
		CHECK(w.intr_ep == cdc.intr_ep && w.intr_maxp == 8 &&
		      w.bulk_in == cdc.bulk_in && w.bulk_out == cdc.bulk_out &&
		      w.bulk_in_maxp == cdc.bulk_in_maxp && w.data_alt == 0);
		CHECK_EQ(w.flags, CH39X_CDC_F_DATA_FROM_UNION);
	}
	/* One alt setting, the bulk pair in it: both are no-ops. */
	CHECK_EQ(d->ops->set_data_alt(d, 0), 0);
	CHECK_EQ(d->ops->set_data_alt(d, 1), 0);
	CHECK_EQ(d->ops->set_data_alt(d, 2), -EINVAL);
	d->ops->close(d);

	d = open_rndis(CH39X_SIM_RNDIS_WIRELESS, CH39X_WIRE_LOOP);
	CHECK(d != NULL);
	if (d == NULL)
		return;
	d->ops->get_cdc(d, &cdc);
	CHECK(cdc.comm_class == 0xE0 && cdc.comm_subclass == 0x01 &&
	      cdc.comm_protocol == 0x03);
	d->ops->close(d);
}

static void
test_control(void)
{
	struct ch39x_usb_dev *d = open_rndis(0, CH39X_WIRE_LOOP);
	struct ch39x_rndis_init_c c;
	struct ch39x_rndis_msg m;
	uint8_t b[64], small[16];
	uint32_t v = 0, n;

	CHECK(d != NULL);
	if (d == NULL)
		return;
	/* Nothing to answer: a stall, and no notification. */
	CHECK_EQ(d->ops->control(d, 0xA1, 1, 0, 0, resp, sizeof(resp), 500),
		 -EPIPE);
	CHECK_EQ(notify(d), -1);
	/* Another interface, or a wValue: stalled. */
	n = ch39x_rndis_build_init(b, sizeof(b), 1, 16384);
	CHECK_EQ(d->ops->control(d, 0x21, 0, 0, 1, b, (uint16_t)n, 500),
		 -EPIPE);
	CHECK_EQ(d->ops->control(d, 0x21, 0, 1, 0, b, (uint16_t)n, 500),
		 -EPIPE);

	c = init(d, 16384);
	CHECK_EQ(c.status, 0);
	CHECK_EQ(c.major, 1);
	CHECK_EQ(c.device_flags, CH39X_RNDIS_DF_CONNECTIONLESS);
	CHECK_EQ(c.max_pkts, 16);
	CHECK_EQ(c.max_xfer, 16384);
	CHECK_EQ(c.align_factor, 3);

	CHECK(query(d, CH39X_RNDIS_OID_802_3_PERMANENT_ADDRESS, &m) > 0);
	CHECK_EQ(m.buf_len, 6);
	CHECK_EQ(query(d, CH39X_RNDIS_OID_GEN_MEDIA_CONNECT_STATUS, &m), 28);
	CHECK(ch39x_rndis_info_u32(&m, &v) == 0 &&
	      v == CH39X_RNDIS_MEDIA_CONNECTED);
	CHECK(query(d, CH39X_RNDIS_OID_GEN_LINK_SPEED, &m) > 0);
	CHECK(ch39x_rndis_info_u32(&m, &v) == 0 && v == 10000000u);
	CHECK(query(d, CH39X_RNDIS_OID_802_3_MAXIMUM_LIST_SIZE, &m) > 0);
	CHECK(ch39x_rndis_info_u32(&m, &v) == 0 && v == 16);
	CHECK(query(d, CH39X_RNDIS_OID_GEN_SUPPORTED_LIST, &m) > 0);
	CHECK_EQ(m.buf_len, 13 * 4);
	CHECK_EQ(query(d, 0x00010117, &m), 24);
	CHECK_EQ(m.status, CH39X_RNDIS_STATUS_NOT_SUPPORTED);
	CHECK_EQ(m.req_id, req_id);
	/* A filter of 2 bytes: invalid data. */
	n = ch39x_rndis_build_set(b, sizeof(b), ++req_id,
				  CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
				  "\1\0", 2);
	CHECK(command(d, b, n, &m) > 0);
	CHECK_EQ(m.status, CH39X_RNDIS_STATUS_INVALID_DATA);
	CHECK_EQ(set_u32(d, 0x00010117, 1), CH39X_RNDIS_STATUS_NOT_SUPPORTED);
	/* KEEPALIVE: answered with its id. */
	n = ch39x_rndis_build_keepalive(b, sizeof(b), 0x77);
	CHECK(command(d, b, n, &m) > 0);
	CHECK(m.type == CH39X_RNDIS_MSG_KEEPALIVE_C && m.req_id == 0x77 &&
	      m.status == 0);

	/* A host that asks for less than the response: babble, lost. */
	n = ch39x_rndis_build_query(b, sizeof(b), ++req_id,
				    CH39X_RNDIS_OID_GEN_SUPPORTED_LIST, 0);
	d->ops->control(d, 0x21, 0, 0, 0, b, (uint16_t)n, 500);
	CHECK_EQ(notify(d), 1);
	CHECK_EQ(d->ops->control(d, 0xA1, 1, 0, 0, small, sizeof(small), 500),
		 -EOVERFLOW);
	CHECK_EQ(counters(d).rndis_resp_dropped, 1);
	CHECK_EQ(d->ops->control(d, 0xA1, 1, 0, 0, resp, sizeof(resp), 500),
		 -EPIPE);

	/* Malformed commands: counted, no answer, no notification. */
	n = ch39x_rndis_build_query(b, sizeof(b), ++req_id, 1, 4);
	ch39x_put_le32(b + 16, 5);	/* buffer past the message */
	CHECK_EQ(d->ops->control(d, 0x21, 0, 0, 0, b, (uint16_t)n, 500),
		 (int)n);
	ch39x_put_le32(b, CH39X_RNDIS_MSG_SET_C);	/* a completion */
	ch39x_put_le32(b + 4, 16);
	d->ops->control(d, 0x21, 0, 0, 0, b, 16, 500);
	d->ops->control(d, 0x21, 0, 0, 0, b, 5, 500);	/* short */
	CHECK_EQ(counters(d).rndis_bad_msgs, 3);
	CHECK_EQ(notify(d), -1);

	/* Eight unread responses: the ninth is dropped. */
	for (v = 0; v < 9; v++) {
		n = ch39x_rndis_build_keepalive(b, sizeof(b), 200 + v);
		d->ops->control(d, 0x21, 0, 0, 0, b, (uint16_t)n, 500);
	}
	CHECK_EQ(counters(d).rndis_resp_dropped, 2);
	for (v = 0; v < 8; v++) {
		CHECK_EQ(notify(d), 1);
		CHECK(d->ops->control(d, 0xA1, 1, 0, 0, resp, sizeof(resp),
				      500) == 16 &&
		      ch39x_get_le32(resp + 8) == 200 + v);
	}
	CHECK_EQ(notify(d), -1);
	d->ops->close(d);
}

/* ---- data ---- */

#define XFERS 8
#define XSZ 16384
static uint8_t in_mem[XFERS][XSZ];
static struct ch39x_xfer in_x[XFERS];

/*
 * Submit n bulk IN transfers and poll; the frames that came, in order,
 * into lens/seeds (the frames' first payload byte), at most max.
 */
static unsigned int
rx_frames(struct ch39x_usb_dev *d, unsigned int n, uint32_t *lens,
	  uint8_t *first, unsigned int max, unsigned int *xfers,
	  uint32_t *max_pkts_seen)
{
	struct ch39x_rndis_rx_cfg rc = { .max_frame = 1514 };
	struct ch39x_xfer *done[XFERS];
	struct ch39x_rndis_frame f;
	struct ch39x_rndis_rx rx;
	unsigned int i, got, k = 0;
	uint32_t pk;

	ch39x_rndis_rx_init(&rx, &rc);
	for (i = 0; i < n; i++) {
		memset(&in_x[i], 0, sizeof(in_x[i]));
		in_x[i].ep = CH39X_EP_BULK_IN;
		in_x[i].buf = in_mem[i];
		in_x[i].len = XSZ;
		d->ops->submit(d, &in_x[i]);
	}
	got = d->ops->poll(d, CH39X_EP_BULK_IN, done, XFERS);
	*max_pkts_seen = 0;
	for (i = 0; i < got; i++) {
		CHECK(done[i]->status == CH39X_XFER_OK);
		ch39x_rndis_rx_begin(&rx, done[i]->buf, done[i]->actual);
		pk = 0;
		while (ch39x_rndis_rx_next(&rx, &f) == 1) {
			if (k < max) {
				lens[k] = f.len;
				first[k] = f.data[14];
			}
			k++;
			pk++;
		}
		if (pk > *max_pkts_seen)
			*max_pkts_seen = pk;
	}
	CHECK_EQ(ch39x_rndis_rx_bad(&rx.stats), 0);
	*xfers = got;
	d->ops->cancel_all(d, CH39X_EP_BULK_IN);
	d->ops->poll(d, CH39X_EP_BULK_IN, done, XFERS);
	return k;
}

static uint32_t
mk(uint8_t *f, const uint8_t *dst, uint32_t len, uint8_t seed)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0xAA };

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x88;
	f[13] = 0xB5;
	memset(f + 14, seed, len - 14);
	return len;
}

static void
test_data(void)
{
	struct ch39x_usb_dev *d = open_rndis(0, CH39X_WIRE_LOOP);
	struct ch39x_rndis_msg m;
	struct ch39x_cdc_desc cdc;
	uint8_t f[1600], mac[6], b[128], first[64];
	uint32_t lens[64], pk;
	unsigned int i, n, xf;

	CHECK(d != NULL);
	if (d == NULL)
		return;
	d->ops->get_cdc(d, &cdc);
	init(d, 16384);
	query(d, CH39X_RNDIS_OID_802_3_CURRENT_ADDRESS, &m);
	memcpy(mac, m.buf, 6);

	/* No filter yet: nothing flows. */
	ch39x_sim_inject(d, f, mk(f, mac, 60, 1));
	CHECK_EQ(rx_frames(d, 1, lens, first, 64, &xf, &pk), 0);
	CHECK_EQ(set_u32(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
			 CH39X_RNDIS_PKT_DIRECTED | CH39X_RNDIS_PKT_BROADCAST),
		 0);
	/* The waiting frame, then: own, foreign, broadcast, multicast. */
	ch39x_sim_inject(d, f, mk(f, foreign, 60, 2));
	ch39x_sim_inject(d, f, mk(f, bcast, 60, 3));
	ch39x_sim_inject(d, f, mk(f, mc1, 60, 4));
	ch39x_sim_inject(d, f, mk(f, mac, 100, 5));
	n = rx_frames(d, 1, lens, first, 64, &xf, &pk);
	CHECK_EQ(n, 3);
	CHECK(first[0] == 1 && first[1] == 3 && first[2] == 5);
	CHECK_EQ(counters(d).rx_filtered, 2);
	/* The list of one, then all multicast, then promiscuous. */
	memcpy(b, mc1, 6);
	n = ch39x_rndis_build_set(b + 16, sizeof(b) - 16, ++req_id,
				  CH39X_RNDIS_OID_802_3_MULTICAST_LIST, mc1, 6);
	CHECK(command(d, b + 16, n, &m) > 0 && m.status == 0);
	set_u32(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
		CH39X_RNDIS_PKT_DIRECTED | CH39X_RNDIS_PKT_MULTICAST);
	ch39x_sim_inject(d, f, mk(f, mc1, 60, 6));
	ch39x_sim_inject(d, f, mk(f, mc2, 60, 7));
	n = rx_frames(d, 1, lens, first, 64, &xf, &pk);
	CHECK(n == 1 && first[0] == 6);
	set_u32(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
		CH39X_RNDIS_PKT_PROMISCUOUS);
	ch39x_sim_inject(d, f, mk(f, foreign, 60, 8));
	ch39x_sim_inject(d, f, mk(f, mc2, 60, 9));
	CHECK_EQ(rx_frames(d, 1, lens, first, 64, &xf, &pk), 2);

	/* 40 full-size frames: batched by size (10 per 16 KiB, align 8). */
	for (i = 0; i < 40; i++)
		ch39x_sim_inject(d, f, mk(f, mac, 1514, (uint8_t)(10 + i)));
	n = rx_frames(d, 8, lens, first, 64, &xf, &pk);
	CHECK_EQ(n, 40);
	CHECK_EQ(xf, 4);
	CHECK_EQ(pk, 10);
	for (i = 0; i < n; i++)
		CHECK(lens[i] == 1514 && first[i] == (uint8_t)(10 + i));
	/* 40 short ones: batched by count (16 per transfer). */
	for (i = 0; i < 40; i++)
		ch39x_sim_inject(d, f, mk(f, mac, 60, (uint8_t)i));
	n = rx_frames(d, 8, lens, first, 64, &xf, &pk);
	CHECK(n == 40 && xf == 3 && pk == 16);

	/* A smaller buffer than the host said it takes: babble. */
	ch39x_sim_inject(d, f, mk(f, mac, 60, 1));
	memset(&in_x[0], 0, sizeof(in_x[0]));
	in_x[0].ep = CH39X_EP_BULK_IN;
	in_x[0].buf = in_mem[0];
	in_x[0].len = 4096;
	d->ops->submit(d, &in_x[0]);
	{
		struct ch39x_xfer *done[2];

		CHECK_EQ(d->ops->poll(d, CH39X_EP_BULK_IN, done, 2), 1);
		CHECK_EQ(in_x[0].status, CH39X_XFER_OVERFLOW);
	}
	d->ops->close(d);
}

/* Bulk OUT: several messages in one transfer, back on the loop cable. */
static void
test_tx(uint32_t quirks)
{
	struct ch39x_usb_dev *d = open_rndis(quirks, CH39X_WIRE_LOOP);
	struct ch39x_rndis_tx_cfg tc = { 0 };
	struct ch39x_rndis_init_c c;
	struct ch39x_rndis_tx_end e;
	struct ch39x_xfer x, *done[2];
	struct ch39x_rndis_tx t;
	static uint8_t out[16384];
	uint8_t f[1600], first[64];
	uint32_t lens[64], pk;
	unsigned int i, n, xf;
	bool single = quirks & CH39X_SIM_RNDIS_SINGLE;

	CHECK(d != NULL);
	if (d == NULL)
		return;
	c = init(d, 16384);
	CHECK_EQ(c.max_pkts, single ? 1 : 16);
	CHECK_EQ(c.max_xfer, single ? 1580 : 16384);
	set_u32(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
		CH39X_RNDIS_PKT_PROMISCUOUS);
	/* What the device said, except max_pkts: four in one transfer. */
	tc.max_xfer = 16384;
	tc.max_pkts = 4;
	tc.align_factor = c.align_factor;
	tc.maxp = 512;
	CHECK_EQ(ch39x_rndis_tx_init(&t, &tc), 0);
	ch39x_rndis_tx_begin(&t, out);
	for (i = 0; i < 4; i++) {
		mk(f, foreign, 100 + 200 * i, (uint8_t)(20 + i));
		memcpy(ch39x_rndis_tx_add(&t, 100 + 200 * i), f,
		       100 + 200 * i);
	}
	e = ch39x_rndis_tx_finish(&t);
	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_OUT;
	x.buf = out;
	x.len = e.len;
	CHECK_EQ(d->ops->submit(d, &x), 0);
	CHECK_EQ(d->ops->poll(d, CH39X_EP_BULK_OUT, done, 2), 1);
	n = rx_frames(d, 2, lens, first, 64, &xf, &pk);
	/* f_rndis takes the first message of a transfer only. */
	CHECK_EQ(n, single ? 1 : 4);
	for (i = 0; i < n; i++)
		CHECK(lens[i] == 100 + 200 * i && first[i] == 20 + i);
	CHECK_EQ(counters(d).tx_bad_records, single ? 3 : 0);
	/* A malformed transfer: counted, nothing sent. */
	memset(out, 0x5A, 200);
	x.len = 200;
	d->ops->submit(d, &x);
	d->ops->poll(d, CH39X_EP_BULK_OUT, done, 2);
	CHECK_EQ(counters(d).tx_bad_records, single ? 4 : 1);
	CHECK_EQ(counters(d).tx_frames, n);
	d->ops->close(d);
}

static void
test_tx_multi(void)
{
	test_tx(0);
}

static void
test_tx_single(void)
{
	test_tx(CH39X_SIM_RNDIS_SINGLE);
}

/* Link changes become indications; HALT and RESET stop the data. */
static void
test_link_reset(void)
{
	struct ch39x_usb_dev *d = open_rndis(0, CH39X_WIRE_LOOP);
	struct ch39x_rndis_msg m;
	uint8_t b[64], f[1600], first[4];
	uint32_t lens[4], pk, n;
	unsigned int xf;

	CHECK(d != NULL);
	if (d == NULL)
		return;
	/* Before INITIALIZE: no indication. */
	ch39x_sim_set_cable(d, false);
	CHECK_EQ(notify(d), -1);
	ch39x_sim_set_cable(d, true);
	init(d, 16384);
	CHECK_EQ(notify(d), -1);
	ch39x_sim_set_cable(d, false);
	CHECK_EQ(notify(d), 1);
	CHECK(d->ops->control(d, 0xA1, 1, 0, 0, resp, sizeof(resp), 500) ==
	      20);
	ch39x_rndis_parse_ctrl(resp, 20, &m);
	CHECK_EQ(ch39x_rndis_indicate_link(&m), CH39X_RNDIS_LINK_DOWN);
	CHECK_EQ(notify(d), -1);	/* told once */
	ch39x_sim_set_cable(d, true);
	CHECK_EQ(notify(d), 1);
	d->ops->control(d, 0xA1, 1, 0, 0, resp, sizeof(resp), 500);
	ch39x_rndis_parse_ctrl(resp, 20, &m);
	CHECK_EQ(ch39x_rndis_indicate_link(&m), CH39X_RNDIS_LINK_UP);

	/* RESET: AddressingReset, and the filter must be sent again. */
	set_u32(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
		CH39X_RNDIS_PKT_PROMISCUOUS);
	n = ch39x_rndis_build_reset(b, sizeof(b));
	CHECK(command(d, b, n, &m) == 16);
	CHECK(m.type == CH39X_RNDIS_MSG_RESET_C && m.addressing_reset);
	CHECK(query(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER, &m) > 0);
	CHECK(ch39x_rndis_info_u32(&m, &n) == 0 && n == 0);
	ch39x_sim_inject(d, f, mk(f, foreign, 60, 1));
	CHECK_EQ(rx_frames(d, 1, lens, first, 4, &xf, &pk), 0);
	set_u32(d, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
		CH39X_RNDIS_PKT_PROMISCUOUS);
	CHECK_EQ(rx_frames(d, 1, lens, first, 4, &xf, &pk), 1);
	/* HALT: no answer, and the data stops. */
	n = ch39x_rndis_build_halt(b, sizeof(b), ++req_id);
	CHECK_EQ(d->ops->control(d, 0x21, 0, 0, 0, b, (uint16_t)n, 500),
		 (int)n);
	CHECK_EQ(notify(d), -1);
	ch39x_sim_inject(d, f, mk(f, foreign, 60, 1));
	CHECK_EQ(rx_frames(d, 1, lens, first, 4, &xf, &pk), 0);
	d->ops->close(d);
}

int
main(void)
{
	static const struct check_case cases[] = {
		{ "descriptors", test_descriptors },
		{ "control", test_control },
		{ "data", test_data },
		{ "tx_multi", test_tx_multi },
		{ "tx_single", test_tx_single },
		{ "link_reset", test_link_reset },
	};

	return check_run("test_sim_rndis", cases,
			 sizeof(cases) / sizeof(cases[0]));
}
