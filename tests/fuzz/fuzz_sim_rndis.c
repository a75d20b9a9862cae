/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Fuzz the simulated RNDIS function (ch39x_sim_rndis.c) with what a buggy
 * or malicious host sends it, through the transport ops only: encapsulated
 * commands on EP0 and data transfers on bulk OUT (§20).
 *
 * Input layout:
 *   byte 0   bit 0: the rndis_single quirk (one message per transfer);
 *            bit 1: the rest is one SEND_ENCAPSULATED_COMMAND, else one
 *            bulk OUT transfer
 *   rest     its bytes, in an exactly sized buffer
 *
 * The model is opened once per quirk with wire=loop, initialised and
 * promiscuous. Checked: a command is taken whole; every response it
 * queues parses (ch39x_rndis_parse_ctrl) and is a completion or an
 * indication, each announced by one RESPONSE_AVAILABLE; after a command
 * the host initialises it again. A bulk OUT transfer completes once and
 * whole, and what the model put on the cable comes back up bulk IN in
 * transfers the host's parser takes without a single bad message, as many
 * frames as went out.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_rndis.h"
#include "ch39x_sim.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"
#include "fuzz.h"

#define HOST_XFER	16384
#define MAX_IN_XFERS	10000

static struct ch39x_usb_dev *devs[2];
static uint32_t req_id = 1;

static int
send_cmd(struct ch39x_usb_dev *d, const uint8_t *m, uint32_t len)
{
	return d->ops->control(d, 0x21, CH39X_RNDIS_SEND_ENCAPSULATED, 0, 0,
			       (void *)(uintptr_t)m, (uint16_t)len, 100);
}

/* Take every queued response: each one announced, each one parses. */
static unsigned int
drain(struct ch39x_usb_dev *d)
{
	static uint8_t b[CH39X_RNDIS_RESP_MAX], nb[8];
	struct ch39x_xfer x, *done[2];
	struct ch39x_rndis_msg m;
	unsigned int n = 0, notes = 0;
	int rc;

	for (;;) {
		memset(&x, 0, sizeof(x));
		x.ep = CH39X_EP_INTR_IN;
		x.buf = nb;
		x.len = sizeof(nb);
		FUZZ_CHECK(d->ops->submit(d, &x) == 0);
		if (d->ops->poll(d, CH39X_EP_INTR_IN, done, 2) == 1) {
			FUZZ_CHECK(x.status == CH39X_XFER_OK && x.actual == 8 &&
				   ch39x_get_le32(nb) == 1);
			notes++;
		} else {
			d->ops->cancel_all(d, CH39X_EP_INTR_IN);
			FUZZ_CHECK(d->ops->poll(d, CH39X_EP_INTR_IN, done, 2)
				   == 1);
		}
		rc = d->ops->control(d, 0xA1, CH39X_RNDIS_GET_ENCAPSULATED, 0,
				     0, b, sizeof(b), 100);
		if (rc == -EPIPE)
			break;
		FUZZ_CHECK(rc > 0 && rc <= (int)sizeof(b));
		FUZZ_CHECK(ch39x_rndis_parse_ctrl(b, (uint32_t)rc, &m) ==
			   CH39X_RNDIS_OK);
		FUZZ_CHECK(ch39x_rndis_request_of(m.type) != 0 ||
			   m.type == CH39X_RNDIS_MSG_INDICATE);
		n++;
	}
	FUZZ_CHECK(notes == n);
	return n;
}

/* INITIALIZE and a promiscuous filter, as a host brings the model up. */
static void
bring_up(struct ch39x_usb_dev *d)
{
	uint8_t b[64], f[4];
	uint32_t n;

	n = ch39x_rndis_build_init(b, sizeof(b), ++req_id, HOST_XFER);
	FUZZ_CHECK(send_cmd(d, b, n) == (int)n);
	ch39x_put_le32(f, CH39X_RNDIS_PKT_PROMISCUOUS);
	n = ch39x_rndis_build_set(b, sizeof(b), ++req_id,
				  CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
				  f, 4);
	FUZZ_CHECK(send_cmd(d, b, n) == (int)n);
	FUZZ_CHECK(drain(d) == 2);
}

static struct ch39x_usb_dev *
dev_for(uint8_t mode)
{
	struct ch39x_sim_config cfg;
	struct ch39x_usb_dev *d;
	char err[256];

	mode &= 1;
	if (devs[mode] != NULL)
		return devs[mode];
	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = CH39X_PID_CH398;
	cfg.speed = CH39X_SPEED_SUPER;
	cfg.wire = CH39X_WIRE_LOOP;
	cfg.framing = CH39X_FRAMING_RNDIS;
	cfg.cdc_max_segment = 9014;
	cfg.ncm_quirks = mode ? CH39X_SIM_RNDIS_SINGLE : 0;
	d = ch39x_sim_open(&cfg, err, sizeof(err));
	FUZZ_CHECK(d != NULL);
	bring_up(d);
	devs[mode] = d;
	return d;
}

/* Bulk IN until nothing is left: the frames the host's parser finds. */
static uint64_t
loop_back(struct ch39x_usb_dev *d)
{
	static uint8_t in_buf[HOST_XFER];
	struct ch39x_rndis_rx_cfg rc = { .max_frame = 9014 };
	struct ch39x_xfer x, *done[2];
	struct ch39x_rndis_frame f;
	struct ch39x_rndis_rx rx;
	uint64_t back = 0;
	unsigned int i;

	ch39x_rndis_rx_init(&rx, &rc);
	for (i = 0; i < MAX_IN_XFERS; i++) {
		memset(&x, 0, sizeof(x));
		x.ep = CH39X_EP_BULK_IN;
		x.buf = in_buf;
		x.len = HOST_XFER;
		FUZZ_CHECK(d->ops->submit(d, &x) == 0);
		if (d->ops->poll(d, CH39X_EP_BULK_IN, done, 2) == 0) {
			d->ops->cancel_all(d, CH39X_EP_BULK_IN);
			FUZZ_CHECK(d->ops->poll(d, CH39X_EP_BULK_IN, done, 2) ==
				   1 && x.status == CH39X_XFER_CANCELLED);
			break;
		}
		FUZZ_CHECK(x.status == CH39X_XFER_OK && x.actual <= x.len);
		ch39x_rndis_rx_begin(&rx, in_buf, x.actual);
		while (ch39x_rndis_rx_next(&rx, &f) == 1) {
			FUZZ_CHECK(f.len >= 60 && f.len <= 9014);
			back++;
		}
	}
	FUZZ_CHECK(i < MAX_IN_XFERS);
	FUZZ_CHECK(ch39x_rndis_rx_bad(&rx.stats) == 0);
	return back;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_sim_counters c0, c1;
	struct ch39x_xfer x, *done[2];
	struct ch39x_usb_dev *d;
	uint8_t *out;
	uint64_t back;

	if (size < 1)
		return 0;
	d = dev_for(data[0]);
	out = fuzz_dup(data + 1, size - 1);
	if (data[0] & 2) {
		if (size - 1 <= 0xFFFF) {
			FUZZ_CHECK(send_cmd(d, out, (uint32_t)(size - 1)) ==
				   (int)(size - 1));
			drain(d);
			bring_up(d);
		}
		free(out);
		return 0;
	}
	ch39x_sim_get_counters(d, &c0);
	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_OUT;
	x.buf = out;
	x.len = (uint32_t)(size - 1);
	FUZZ_CHECK(d->ops->submit(d, &x) == 0);
	FUZZ_CHECK(d->ops->poll(d, CH39X_EP_BULK_OUT, done, 2) == 1);
	FUZZ_CHECK(done[0] == &x && x.status == CH39X_XFER_OK &&
		   x.actual == x.len);
	free(out);
	ch39x_sim_get_counters(d, &c1);
	back = loop_back(d);
	FUZZ_CHECK(back == c1.tx_frames - c0.tx_frames);
	ch39x_sim_get_counters(d, &c1);
	FUZZ_CHECK(c1.rx_delivered - c0.rx_delivered == back);
	return 0;
}
