/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the simulated MBIM modem (ch39x_sim_mbim.c) driven by a buggy or
 * malicious host, through the transport ops only: control transfers of
 * any bytes and size, bulk OUT NTBs of any bytes, network events, and
 * the reads of what it answers.
 *
 * Byte 0: wMaxControlMessage 64, 512 or 4096 (byte % 3). The modems are
 * opened once each and put back to their power-on state for each input
 * (unplugged and plugged in again). Then operations, each
 * an op byte, a 2-byte LE length and that many bytes:
 *   op 0: SEND_ENCAPSULATED_COMMAND with the bytes;
 *   op 1: a whole, well-formed COMMAND of Basic Connect: CID byte 0,
 *         type byte 1, the rest its information buffer (what a buggy host
 *         gets right), cut into fragments;
 *   op 2: GET_ENCAPSULATED_RESPONSE with wLength the length;
 *   op 3: one bulk OUT transfer of the bytes (the modem's cable is a loop:
 *         what it routes out comes back to its sessions);
 *   op 4: a network event (byte 0) with an argument (byte 1);
 *   op 5: one bulk IN transfer; op 6: one interrupt IN transfer.
 * Every transfer's bytes are an exactly sized heap copy. Checked: every
 * answer is one whole fragment no longer than the pipe, a whole message
 * parses, notifications are RESPONSE_AVAILABLE, bulk IN NTBs parse with
 * IP datagrams of active sessions, and the counters add up.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_mbim.h"
#include "ch39x_ncm.h"
#include "ch39x_sim.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() */
#include "fuzz.h"

#define IN_SIZE 16384

static int
ctl(struct ch39x_usb_dev *d, uint8_t type, uint8_t req, void *data,
    uint16_t len)
{
	return d->ops->control(d, type, req, 0, 0, data, len, 100);
}

static void
get_response(struct ch39x_usb_dev *d, uint32_t max_ctrl, uint16_t len)
{
	struct ch39x_mbim_msg m;
	uint8_t *b = malloc(len ? len : 1);
	int n;

	FUZZ_CHECK(b != NULL);
	n = ctl(d, CH39X_CDC_REQT_IN, CH39X_CDC_GET_ENCAPSULATED, b, len);
	FUZZ_CHECK(n == -EPIPE || (n >= 0 && n <= len));
	if (n > 0) {
		FUZZ_CHECK(n >= CH39X_MBIM_HDR_LEN && (uint32_t)n <= max_ctrl);
		FUZZ_CHECK(ch39x_get_le32(b + 4) == (uint32_t)n);
		if (!ch39x_mbim_fragmented(ch39x_get_le32(b)) ||
		    ch39x_get_le32(b + 12) == 1)
			FUZZ_CHECK(ch39x_mbim_parse(b, (uint32_t)n, &m) == 0);
	}
	free(b);
}

static void
command(struct ch39x_usb_dev *d, uint32_t max_ctrl, const uint8_t *p,
	uint32_t len)
{
	uint8_t *msg = malloc(CH39X_MBIM_MSG_MAX), frag[CH39X_MBIM_CTRL_MAX];
	uint32_t n, i, k, tid = 7;

	FUZZ_CHECK(msg != NULL);
	if (len < 2)
		goto out;
	n = ch39x_mbim_build_command(msg, CH39X_MBIM_MSG_MAX, tid,
				     ch39x_mbim_uuid_basic_connect, p[0],
				     p[1] & 1, p + 2, len - 2);
	if (n == 0)
		goto out;
	k = ch39x_mbim_frag_count(msg, n, max_ctrl);
	for (i = 0; i < k; i++) {
		uint32_t fl = ch39x_mbim_frag_build(msg, n, max_ctrl, i, frag,
						    sizeof(frag));

		FUZZ_CHECK(ctl(d, CH39X_CDC_REQT_OUT,
			       CH39X_CDC_SEND_ENCAPSULATED, frag,
			       (uint16_t)fl) == (int)fl);
	}
out:
	free(msg);
}

static void
bulk(struct ch39x_usb_dev *d, enum ch39x_ep ep, uint8_t *b, uint32_t len,
     uint32_t size)
{
	struct ch39x_ncm_rx_cfg rc = { .ips = true };
	struct ch39x_xfer x, *done[1];
	struct ch39x_ncm_dgram dg;
	struct ch39x_ncm_rx rx;
	unsigned int n;

	memset(&x, 0, sizeof(x));
	x.ep = ep;
	x.buf = b;
	x.len = ep == CH39X_EP_BULK_OUT ? len : size;
	if (d->ops->submit(d, &x) != 0)
		return;
	n = d->ops->poll(d, ep, done, 1);
	if (n == 0) {
		d->ops->cancel_all(d, ep);
		FUZZ_CHECK(d->ops->poll(d, ep, done, 1) == 1);
		return;
	}
	FUZZ_CHECK(done[0] == &x && !x.in_flight);
	if (ep == CH39X_EP_INTR_IN && x.status == CH39X_XFER_OK) {
		FUZZ_CHECK(x.actual == 8 && b[0] == 0xA1 &&
			   b[1] == CH39X_CDC_NOTIFY_RESPONSE_AVAILABLE);
		return;
	}
	if (ep != CH39X_EP_BULK_IN || x.status != CH39X_XFER_OK)
		return;
	/* The modem's own NTBs parse, with IP in them. */
	ch39x_ncm_rx_init(&rx, &rc);
	FUZZ_CHECK(ch39x_ncm_rx_begin(&rx, b, x.actual) == 0);
	while (ch39x_ncm_rx_next(&rx, &dg) == 1)
		FUZZ_CHECK((dg.data[0] >> 4) == 4 || (dg.data[0] >> 4) == 6);
	FUZZ_CHECK(rx.stats.bad_dgram == 0 && rx.stats.ndp_sig_skipped == 0);
}

static struct ch39x_usb_dev *
modem(uint32_t max_ctrl, unsigned int k)
{
	static struct ch39x_usb_dev *devs[3];
	struct ch39x_sim_config cfg;
	char err[256];

	if (devs[k] == NULL) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.pid = CH39X_PID_CH398;
		cfg.speed = CH39X_SPEED_HIGH;
		cfg.framing = CH39X_FRAMING_MBIM;
		cfg.wire = CH39X_WIRE_LOOP;
		cfg.mbim_max_ctrl = (uint16_t)max_ctrl;
		devs[k] = ch39x_sim_open(&cfg, err, sizeof(err));
		FUZZ_CHECK(devs[k] != NULL);
	} else {
		ch39x_sim_unplug(devs[k]);
		FUZZ_CHECK(ch39x_sim_replug(devs[k], CH39X_SIM_REPLUG_SAME) ==
			   0);
	}
	return devs[k];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t sizes[3] = { 64, 512, 4096 };
	const uint8_t *p = data + 1, *end = data + size;
	struct ch39x_sim_mbim_state st;
	struct ch39x_usb_dev *d;
	uint32_t max_ctrl, len;
	uint8_t op, *b, *in;

	if (size < 1)
		return 0;
	max_ctrl = sizes[data[0] % 3];
	d = modem(max_ctrl, data[0] % 3u);
	FUZZ_CHECK(d->ops->set_data_alt(d, 1) == 0);
	in = malloc(IN_SIZE);
	FUZZ_CHECK(in != NULL);
	while (end - p >= 3) {
		op = p[0];
		len = ch39x_get_le16(p + 1);
		p += 3;
		if (len > (uint32_t)(end - p))
			len = (uint32_t)(end - p);
		b = fuzz_dup(p, len);
		p += len;
		switch (op % 7) {
		case 0:
			FUZZ_CHECK(ctl(d, CH39X_CDC_REQT_OUT,
				       CH39X_CDC_SEND_ENCAPSULATED, b,
				       (uint16_t)len) ==
				   (len <= max_ctrl ? (int)len : -EPIPE));
			break;
		case 1:
			command(d, max_ctrl, b, len);
			break;
		case 2:
			get_response(d, max_ctrl, (uint16_t)len);
			break;
		case 3:
			if (len > 0)
				bulk(d, CH39X_EP_BULK_OUT, b, len, 0);
			break;
		case 4:
			ch39x_sim_mbim_event(d, (enum ch39x_sim_mbim_event)
					     (len ? b[0] % 6 : 0),
					     len > 1 ? b[1] : 0);
			break;
		case 5:
			bulk(d, CH39X_EP_BULK_IN, in, 0, IN_SIZE);
			break;
		default:
			bulk(d, CH39X_EP_INTR_IN, in, 0, 16);
			break;
		}
		free(b);
	}
	FUZZ_CHECK(ch39x_sim_mbim_state(d, &st) == 0);
	FUZZ_CHECK(st.active < (1u << 4));
	FUZZ_CHECK(st.max_ctrl >= CH39X_MBIM_CTRL_MIN &&
		   st.max_ctrl <= max_ctrl);
	FUZZ_CHECK(st.messages_in <= st.fragments_in);
	free(in);
	return 0;
}
