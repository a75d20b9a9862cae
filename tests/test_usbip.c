/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests of app/ch39x-usbip: the USB/IP codec (usbip.c) against the
 * byte offsets of Linux's Documentation/usb/usbip_protocol.rst, written
 * out here by hand, and one exported device (dev.c) driven as vhci-hcd
 * drives it when cdc_ether or cdc_ncm binds: enumeration, the class
 * requests, the settings, URBs both ways through the simulated adapter's
 * cable (wire=loop), unlinks, a bad endpoint, the client going away.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_ncm.h"
#include "ch39x_sim.h"
#include "dev.h"
#include "usbip.h"

#include "check.h"

#define DIM(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the codec ---- */

static void
test_op_parse(void)
{
	uint8_t req[40] = { 0x01, 0x11, 0x80, 0x03, 0, 0, 0, 0, '1', '-', '1' };
	struct usbip_op_req r;
	uint8_t *b;
	uint32_t n;

	/* IMPORT: 8 + 32 bytes, nothing decided before all are there. */
	for (n = 0; n < sizeof(req); n++) {
		b = dup_exact(req, n);
		CHECK_EQ(usbip_op_parse(b, n, &r), 0);
		free(b);
	}
	b = dup_exact(req, sizeof(req));
	CHECK_EQ(usbip_op_parse(b, sizeof(req), &r), 40);
	CHECK_EQ(r.code, USBIP_OP_REQ_IMPORT);
	CHECK(strcmp(r.busid, "1-1") == 0);
	free(b);
	/* A bus ID that fills all 32 bytes has no NUL: refused. */
	memset(req + 8, '1', 32);
	b = dup_exact(req, sizeof(req));
	CHECK_EQ(usbip_op_parse(b, sizeof(req), &r), -EINVAL);
	free(b);
	/* DEVLIST: the header alone. */
	req[3] = 0x05;
	b = dup_exact(req, 8);
	CHECK_EQ(usbip_op_parse(b, 8, &r), 8);
	CHECK_EQ(r.code, USBIP_OP_REQ_DEVLIST);
	free(b);
	req[3] = 0x04;
	CHECK_EQ(usbip_op_parse(req, 8, &r), -EOPNOTSUPP);
	req[3] = 0x05;
	req[1] = 0x06;	/* version 1.0.6 */
	CHECK_EQ(usbip_op_parse(req, 8, &r), -EPROTO);
}

static struct usbip_exported
exported(void)
{
	struct usbip_exported e;

	memset(&e, 0, sizeof(e));
	snprintf(e.path, sizeof(e.path), "/ch39x-usbip/1-1");
	snprintf(e.busid, sizeof(e.busid), "1-1");
	e.busnum = 1;
	e.devnum = 2;
	e.speed = 5;
	e.vid = 0x1A86;
	e.pid = 0x5398;
	e.bcd_device = 0x0100;
	e.dev_class = 0xEF;
	e.dev_subclass = 2;
	e.dev_protocol = 1;
	e.config_value = 1;
	e.n_configs = 1;
	e.n_ifs = 2;
	e.ifs[0].cls = 2;
	e.ifs[0].sub = 0x0D;
	e.ifs[1].cls = 0x0A;
	e.ifs[1].proto = 1;
	return e;
}

static void
test_rep(void)
{
	static const uint8_t dev_tail[] = {
		0, 0, 0, 1,		/* 0x128 busnum */
		0, 0, 0, 2,		/* 0x12C devnum */
		0, 0, 0, 5,		/* 0x130 speed */
		0x1A, 0x86, 0x53, 0x98,	/* 0x134 idVendor, idProduct */
		0x01, 0x00,		/* 0x138 bcdDevice */
		0xEF, 0x02, 0x01,	/* 0x13A class, subclass, protocol */
		0x01, 0x01, 0x02,	/* 0x13D config, configs, interfaces */
	};
	struct usbip_exported e = exported();
	uint8_t b[1024];
	uint32_t n, cap;

	n = usbip_build_rep_import(&e, b, sizeof(b));
	CHECK_EQ(n, 8 + 312);
	CHECK_MEM(b, ((const uint8_t[]){ 0x01, 0x11, 0x00, 0x03, 0, 0, 0, 0 }),
		  8);
	CHECK(memcmp(b + 8, "/ch39x-usbip/1-1", 17) == 0);
	CHECK_EQ(b[8 + 255], 0);
	CHECK(memcmp(b + 8 + 0x100, "1-1", 4) == 0);
	CHECK_MEM(b + 8 + 0x120, dev_tail, sizeof(dev_tail));
	for (cap = 0; cap < n; cap++)
		CHECK_EQ(usbip_build_rep_import(&e, b, cap), 0);
	/* A refusal: the header, status 1. */
	CHECK_EQ(usbip_build_rep_import(NULL, b, sizeof(b)), 8);
	CHECK_MEM(b, ((const uint8_t[]){ 0x01, 0x11, 0x00, 0x03, 0, 0, 0, 1 }),
		  8);
	/* DEVLIST: the count, each device and its interfaces. */
	n = usbip_build_rep_devlist(&e, 1, b, sizeof(b));
	CHECK_EQ(n, 12 + 312 + 2 * 4);
	CHECK_MEM(b, ((const uint8_t[]){ 0x01, 0x11, 0x00, 0x05, 0, 0, 0, 0,
					 0, 0, 0, 1 }), 12);
	CHECK_MEM(b + 12 + 0x120, dev_tail, sizeof(dev_tail));
	CHECK_MEM(b + 12 + 312, ((const uint8_t[]){ 2, 0x0D, 0, 0,
						    0x0A, 0, 1, 0 }), 8);
	for (cap = 0; cap < n; cap++)
		CHECK_EQ(usbip_build_rep_devlist(&e, 1, b, cap), 0);
	CHECK_EQ(usbip_build_rep_devlist(&e, 0, b, sizeof(b)), 12);
}

static void
test_cmd_parse(void)
{
	/* CMD_SUBMIT, seqnum 7, devid 0x10002, OUT, ep 2, ZERO_PACKET, 5 bytes. */
	static const uint8_t sub[48 + 5] = {
		0, 0, 0, 1, 0, 0, 0, 7, 0, 1, 0, 2, 0, 0, 0, 0,
		0, 0, 0, 2, 0, 0, 0, 0x40, 0, 0, 0, 5, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		'h', 'e', 'l', 'l', 'o',
	};
	struct usbip_cmd c, c2;
	uint8_t *b, hdr[48];
	uint32_t n;

	for (n = 0; n < sizeof(sub); n++) {
		b = dup_exact(sub, n);
		CHECK_EQ(usbip_cmd_parse(b, n, &c), 0);
		free(b);
	}
	b = dup_exact(sub, sizeof(sub));
	CHECK_EQ(usbip_cmd_parse(b, sizeof(sub), &c), 53);
	free(b);
	CHECK_EQ(c.command, USBIP_CMD_SUBMIT);
	CHECK_EQ(c.seqnum, 7);
	CHECK_EQ(c.devid, 0x10002);
	CHECK_EQ(c.direction, USBIP_DIR_OUT);
	CHECK_EQ(c.ep, 2);
	CHECK_EQ(c.flags, USBIP_URB_ZERO_PACKET);
	CHECK_EQ(c.length, 5);
	CHECK_EQ(c.payload, 5);
	/* The client's builder writes the same header. */
	usbip_build_cmd_submit(hdr, &c);
	CHECK_MEM(hdr, sub, 48);
	/* IN: no data follows. */
	memcpy(hdr, sub, 48);
	hdr[15] = 1;
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), 48);
	CHECK_EQ(c2.payload, 0);
	/* What a server refuses. */
	hdr[3] = 3;
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), -USBIP_BAD_COMMAND);
	hdr[3] = 1;
	hdr[15] = 2;
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), -USBIP_BAD_DIRECTION);
	hdr[15] = 1;
	hdr[19] = 16;
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), -USBIP_BAD_EP);
	hdr[19] = 2;
	hdr[35] = 3;	/* number_of_packets */
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), -USBIP_BAD_ISO);
	memset(hdr + 32, 0xFF, 4);
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), 48);
	hdr[25] = 0x10;	/* 1 MiB + 5 */
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), -USBIP_BAD_LENGTH);
	CHECK(strcmp(usbip_bad_str(-USBIP_BAD_ISO),
		     "isochronous transfer (not served)") == 0);
	/* CMD_UNLINK of seqnum 7 as seqnum 8. */
	usbip_build_cmd_unlink(hdr, 8, 7);
	CHECK_MEM(hdr, ((const uint8_t[]){ 0, 0, 0, 2, 0, 0, 0, 8, 0, 0, 0, 0,
					   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7 }),
		  24);
	CHECK_EQ(usbip_cmd_parse(hdr, 48, &c2), 48);
	CHECK_EQ(c2.command, USBIP_CMD_UNLINK);
	CHECK_EQ(c2.unlink_seqnum, 7);
}

static void
test_ret(void)
{
	uint8_t h[48], z[24];

	memset(z, 0, sizeof(z));
	usbip_build_ret_submit(h, 0x01020304, -EPIPE, 0x40);
	CHECK_MEM(h, ((const uint8_t[]){ 0, 0, 0, 3, 1, 2, 3, 4, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 0, 0, 0,
					 0xFF, 0xFF, 0xFF, 0xE0, 0, 0, 0, 0x40 }),
		  28);
	CHECK_MEM(h + 28, z, 20);
	usbip_build_ret_unlink(h, 9, -ECONNRESET);
	CHECK_MEM(h, ((const uint8_t[]){ 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 0,
					 0, 0, 0, 0, 0, 0, 0, 0,
					 0xFF, 0xFF, 0xFF, 0x98 }), 24);
	CHECK_MEM(h + 24, z, 24);
}

/* ---- one exported device, driven as vhci-hcd does ---- */

/* A reply the device sent. */
struct rep {
	uint32_t command;
	uint32_t seqnum;
	int32_t status;
	uint32_t actual;
	uint8_t data[20000];
	uint32_t len;
};

static struct rep reps[64];
static unsigned int n_reps;

static int
collect(void *arg, const uint8_t hdr[USBIP_HDR_LEN], const uint8_t *data,
	uint32_t len)
{
	struct rep *r;

	(void)arg;
	if (n_reps == DIM(reps) || len > sizeof(r->data))
		return -1;
	r = &reps[n_reps++];
	r->command = usbip_get_be32(hdr);
	r->seqnum = usbip_get_be32(hdr + 4);
	r->status = (int32_t)usbip_get_be32(hdr + 20);
	r->actual = usbip_get_be32(hdr + 24);
	r->len = len;
	if (len)
		memcpy(r->data, data, len);
	return 0;
}

/* The reply to seqnum, or NULL. */
static const struct rep *
rep_of(uint32_t seqnum)
{
	unsigned int i;

	for (i = 0; i < n_reps; i++)
		if (reps[i].seqnum == seqnum)
			return &reps[i];
	return NULL;
}

static uint32_t seq;

/* A control transfer; returns its reply (status, data). */
static const struct rep *
ctrl(struct uip_dev *d, uint8_t type, uint8_t req, uint16_t value,
     uint16_t index, uint16_t length, const uint8_t *out)
{
	struct usbip_cmd c;

	memset(&c, 0, sizeof(c));
	c.command = USBIP_CMD_SUBMIT;
	c.seqnum = ++seq;
	c.direction = (type & 0x80) ? USBIP_DIR_IN : USBIP_DIR_OUT;
	c.length = length;
	c.setup[0] = type;
	c.setup[1] = req;
	c.setup[2] = (uint8_t)value;
	c.setup[3] = (uint8_t)(value >> 8);
	c.setup[4] = (uint8_t)index;
	c.setup[5] = (uint8_t)(index >> 8);
	c.setup[6] = (uint8_t)length;
	c.setup[7] = (uint8_t)(length >> 8);
	CHECK_EQ(uip_dev_command(d, &c, out), 0);
	return rep_of(c.seqnum);
}

/* A bulk or interrupt URB; returns its seqnum. */
static uint32_t
urb(struct uip_dev *d, uint8_t addr, uint32_t len, const uint8_t *out,
    uint32_t flags)
{
	struct usbip_cmd c;

	memset(&c, 0, sizeof(c));
	c.command = USBIP_CMD_SUBMIT;
	c.seqnum = ++seq;
	c.direction = (addr & 0x80) ? USBIP_DIR_IN : USBIP_DIR_OUT;
	c.ep = addr & 0x0F;
	c.length = len;
	c.flags = flags;
	CHECK_EQ(uip_dev_command(d, &c, out), 0);
	return c.seqnum;
}

static int
unlink_seq(struct uip_dev *d, uint32_t target)
{
	struct usbip_cmd c;

	memset(&c, 0, sizeof(c));
	c.command = USBIP_CMD_UNLINK;
	c.seqnum = ++seq;
	c.unlink_seqnum = target;
	CHECK_EQ(uip_dev_command(d, &c, NULL), 0);
	return (int)c.seqnum;
}

/* Serve until seqnum has its reply (a few rounds of the model's polls). */
static const struct rep *
wait_rep(struct uip_dev *d, uint32_t seqnum)
{
	int i;

	for (i = 0; i < 1000 && rep_of(seqnum) == NULL; i++)
		CHECK(uip_dev_service(d) >= 0);
	return rep_of(seqnum);
}

static struct uip_dev *
open_model(enum ch39x_framing f, enum ch39x_usb_speed sp)
{
	struct ch39x_sim_config c;
	char err[256] = "";
	struct uip_dev *d;

	memset(&c, 0, sizeof(c));
	c.pid = 0x5398;
	c.speed = sp;
	c.framing = f;
	c.wire = CH39X_WIRE_LOOP;
	d = uip_dev_open("1-1", &c, err, sizeof(err));
	if (d == NULL)
		printf("uip_dev_open: %s\n", err);
	n_reps = 0;
	return d;
}

/* What Linux's hub does before any driver: the descriptors, the config. */
static void
enumerate(struct uip_dev *d, uint16_t want_total)
{
	const struct rep *r;

	r = ctrl(d, 0x80, 6, 0x0100, 0, 64, NULL);
	CHECK(r != NULL && r->status == 0 && r->actual == 18 && r->len == 18);
	r = ctrl(d, 0x80, 6, 0x0200, 0, 9, NULL);
	CHECK(r != NULL && r->actual == 9);
	if (r != NULL)
		CHECK_EQ(ch39x_get_le16(r->data + 2), want_total);
	r = ctrl(d, 0x80, 6, 0x0200, 0, want_total, NULL);
	CHECK(r != NULL && r->actual == want_total);
	r = ctrl(d, 0x80, 6, 0x0303, 0x0409, 255, NULL);
	CHECK(r != NULL && r->status == 0 && r->actual > 2);
	/* Not configured yet: no bulk endpoint. */
	r = rep_of(urb(d, 0x81, 2048, NULL, 0));
	CHECK(r != NULL && r->status == -EPIPE);
	r = ctrl(d, 0x00, 9, 2, 0, 0, NULL);		/* no configuration 2 */
	CHECK(r != NULL && r->status == -EPIPE);
	r = ctrl(d, 0x00, 9, 1, 0, 0, NULL);
	CHECK(r != NULL && r->status == 0);
	r = ctrl(d, 0x80, 8, 0, 0, 1, NULL);
	CHECK(r != NULL && r->actual == 1 && r->data[0] == 1);
}

/*
 * ECM as cdc_ether binds: data alt 1, the interrupt URB's notifications,
 * frames both ways over the cable's loop, a short-not-ok refusal, the
 * packet filter counted by request code.
 */
static void
test_dev_ecm(void)
{
	struct usbip_exported e;
	const struct rep *r;
	struct uip_dev *d;
	uint8_t f[1514], buf[8192];
	uint32_t s_in, s_in2, s_intr;
	FILE *mf;
	size_t mlen;
	char *m = NULL;

	d = open_model(CH39X_FRAMING_ECM, CH39X_SPEED_HIGH);
	CHECK(d != NULL);
	if (d == NULL)
		return;
	uip_dev_exported(d, &e);
	CHECK_EQ(e.speed, 3);
	CHECK_EQ(e.n_ifs, 2);
	CHECK_EQ(e.ifs[0].sub, CH39X_CDC_SUBCLASS_ECM);
	uip_dev_attach(d, collect, NULL);
	enumerate(d, 88);
	r = ctrl(d, 0x21, CH39X_CDC_SET_ETH_PKT_FILTER, 0x0C, 0, 0, NULL);
	CHECK(r != NULL && r->status == 0);
	/* alt 2 does not exist; alt 1 does; GET_INTERFACE says it. */
	r = ctrl(d, 0x01, 11, 2, 1, 0, NULL);
	CHECK(r != NULL && r->status == -EPIPE);
	r = ctrl(d, 0x01, 11, 1, 1, 0, NULL);
	CHECK(r != NULL && r->status == 0);
	r = ctrl(d, 0x81, 10, 0, 1, 1, NULL);
	CHECK(r != NULL && r->actual == 1 && r->data[0] == 1);
	/* SPEED_CHANGE, then NETWORK_CONNECTION(1), one URB each. */
	s_intr = urb(d, 0x83, 16, NULL, 0);
	r = wait_rep(d, s_intr);
	CHECK(r != NULL && r->status == 0 && r->actual == 16 &&
	      r->data[1] == CH39X_CDC_NOTIFY_SPEED_CHANGE);
	s_intr = urb(d, 0x83, 16, NULL, 0);
	r = wait_rep(d, s_intr);
	CHECK(r != NULL && r->actual == 8 &&
	      r->data[1] == CH39X_CDC_NOTIFY_NETWORK_CONNECTION &&
	      r->data[2] == 1);
	/* A frame out, back in through the loop, byte for byte. */
	s_in = urb(d, 0x81, 1514, NULL, 0);
	memset(f, 0xFF, 6);
	memset(f + 6, 0x02, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	fill_pat(f + 14, 1500, 3);
	r = wait_rep(d, urb(d, 0x02, 1514, f, 0));
	CHECK(r != NULL && r->status == 0 && r->actual == 1514 && r->len == 0);
	r = wait_rep(d, s_in);
	CHECK(r != NULL && r->status == 0 && r->actual == 1514 &&
	      r->len == 1514);
	if (r != NULL)
		CHECK_MEM(r->data, f, 1514);
	/* URB_SHORT_NOT_OK: a 60-byte frame in a 1514-byte URB. */
	s_in = urb(d, 0x81, 1514, NULL, 0x0001);
	CHECK(wait_rep(d, urb(d, 0x02, 60, f, 0)) != NULL);
	r = wait_rep(d, s_in);
	CHECK(r != NULL && r->status == -EREMOTEIO && r->actual == 60);
	/*
	 * Unlinks: one of two pending IN URBs (the other stays, in its
	 * place), one already given back, one never seen.
	 */
	s_in = urb(d, 0x81, 1514, NULL, 0);
	s_in2 = urb(d, 0x81, 1514, NULL, 0);
	r = rep_of((uint32_t)unlink_seq(d, s_in));
	CHECK(r != NULL && r->command == USBIP_RET_UNLINK &&
	      r->status == -ECONNRESET);
	CHECK(rep_of(s_in) == NULL);
	CHECK(wait_rep(d, urb(d, 0x02, 100, f, 0)) != NULL);
	r = wait_rep(d, s_in2);
	CHECK(r != NULL && r->status == 0 && r->actual == 100);
	r = rep_of((uint32_t)unlink_seq(d, s_in2));
	CHECK(r != NULL && r->command == USBIP_RET_UNLINK && r->status == 0);
	r = rep_of((uint32_t)unlink_seq(d, 12345));
	CHECK(r != NULL && r->status == 0);
	/* No endpoint 5; the interrupt endpoint is IN only. */
	r = rep_of(urb(d, 0x85, 64, NULL, 0));
	CHECK(r != NULL && r->status == -EPIPE);
	r = rep_of(urb(d, 0x03, 64, buf, 0));
	CHECK(r != NULL && r->status == -EPIPE);
	/* Alt 0: the bulk endpoints are gone. */
	r = ctrl(d, 0x01, 11, 0, 1, 0, NULL);
	CHECK(r != NULL && r->status == 0);
	r = rep_of(urb(d, 0x81, 1514, NULL, 0));
	CHECK(r != NULL && r->status == -EPIPE);
	/* The counters name the class request by its code. */
	mf = open_memstream(&m, &mlen);
	if (mf != NULL) {
		uip_dev_stats(d, mf);
		fclose(mf);
		CHECK(strstr(m, "1-1.class_req_0x43=1\n") != NULL);
		CHECK(strstr(m, "1-1.bulk_out_submitted=3\n") != NULL);
		CHECK(strstr(m, "1-1.bad_ep=4\n") != NULL);
		CHECK(strstr(m, "1-1.unlinks=3\n") != NULL);
		CHECK(strstr(m, "1-1.model_tx_frames=3\n") != NULL);
		free(m);
	}
	/* A pending URB when the client goes: dropped, no reply. */
	CHECK(ctrl(d, 0x01, 11, 1, 1, 0, NULL) != NULL);
	s_in = urb(d, 0x81, 1514, NULL, 0);
	uip_dev_detach(d);
	CHECK(!uip_dev_attached(d));
	CHECK(uip_dev_service(d) == 0);
	CHECK(rep_of(s_in) == NULL);
	uip_dev_close(d);
}

/*
 * NCM as cdc_ncm binds: GET_NTB_PARAMETERS at alt 0, an NTB out and back.
 * At SuperSpeed: the BOS, the endpoint companions in the configuration.
 */
static void
test_dev_ncm(void)
{
	struct ch39x_ncm_tx_cfg tc;
	struct ch39x_ncm_rx_cfg rc;
	struct ch39x_ncm_dgram dg;
	struct ch39x_ncm_tx tx;
	struct ch39x_ncm_rx rx;
	struct ch39x_ncm_tx_end end;
	const struct rep *r;
	struct uip_dev *d;
	static uint8_t ntb[16384];
	uint8_t f[200];
	uint32_t s_in;

	d = open_model(CH39X_FRAMING_NCM, CH39X_SPEED_SUPER);
	CHECK(d != NULL);
	if (d == NULL)
		return;
	uip_dev_attach(d, collect, NULL);
	enumerate(d, 94 + 3 * 6);
	r = ctrl(d, 0x80, 6, 0x0F00, 0, 5, NULL);
	CHECK(r != NULL && r->actual == 5 && r->data[1] == 0x0F);
	r = ctrl(d, 0xA1, CH39X_CDC_GET_NTB_PARAMETERS, 0, 0, 28, NULL);
	CHECK(r != NULL && r->status == 0 && r->actual == 28);
	r = ctrl(d, 0x01, 11, 1, 1, 0, NULL);
	CHECK(r != NULL && r->status == 0);
	s_in = urb(d, 0x81, 16384, NULL, 0);
	memset(&tc, 0, sizeof(tc));
	tc.size = 16384;
	tc.dev_max_size = 16384;
	tc.divisor = 4;
	tc.ndp_align = 4;
	tc.ndp_entries = 16;
	tc.maxp = 1024;
	tc.max_dgram_len = 1514;
	ch39x_ncm_tx_init(&tx, &tc);
	ch39x_ncm_tx_begin(&tx, ntb);
	memset(f, 0xFF, 12);
	f[12] = 0x08;
	f[13] = 0x06;
	fill_pat(f + 14, sizeof(f) - 14, 9);
	CHECK_EQ(ch39x_ncm_tx_check(&tx, sizeof(f)), CH39X_NCM_FIT_OK);
	memcpy(ch39x_ncm_tx_add(&tx, sizeof(f)), f, sizeof(f));
	end = ch39x_ncm_tx_finish(&tx);
	r = wait_rep(d, urb(d, 0x02, end.len, ntb, 0));
	CHECK(r != NULL && r->status == 0 && r->actual == end.len);
	r = wait_rep(d, s_in);
	CHECK(r != NULL && r->status == 0 && r->actual > sizeof(f));
	if (r != NULL) {
		memset(&rc, 0, sizeof(rc));
		rc.max_ntb = 16384;
		ch39x_ncm_rx_init(&rx, &rc);
		CHECK_EQ(ch39x_ncm_rx_begin(&rx, r->data, r->actual), 0);
		CHECK_EQ(ch39x_ncm_rx_next(&rx, &dg), 1);
		CHECK_EQ(dg.len, sizeof(f));
		CHECK_MEM(dg.data, f, sizeof(f));
	}
	/* SET_CONFIGURATION again resets the function: alt 0, no bulk. */
	CHECK(ctrl(d, 0x00, 9, 1, 0, 0, NULL) != NULL);
	r = rep_of(urb(d, 0x81, 16384, NULL, 0));
	CHECK(r != NULL && r->status == -EPIPE);
	uip_dev_close(d);
}

int
main(void)
{
	static const struct check_case cases[] = {
		{ "op_parse", test_op_parse },
		{ "rep", test_rep },
		{ "cmd_parse", test_cmd_parse },
		{ "ret", test_ret },
		{ "dev_ecm", test_dev_ecm },
		{ "dev_ncm", test_dev_ncm },
	};

	return check_run("test_usbip", cases, DIM(cases));
}
