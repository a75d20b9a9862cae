/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the simulated NCM and ECM adapters' bulk OUT side (cdc_tx_parse in
 * ch39x_sim.c: the device parsing NTBs from a possibly buggy or malicious
 * host) and their IN side (NTBs built by the model, parsed by the host's
 * validating parser), through the transport ops only.
 *
 * Input layout:
 *   byte 0   bit 0: ECM (else NCM); bit 1: NTB32 (SET_NTB_FORMAT at alt 0);
 *            bit 2: the model puts the NDP at the end of its NTBs
 *   rest     one bulk OUT transfer, copied into an exactly sized buffer
 *
 * The models are opened once per kind with wire=loop and a promiscuous
 * packet filter, so that every frame they put on the cable comes back.
 * Checked: the OUT transfer completes once and whole, the model's counters
 * add up (frames looped back = frames it sent), and every datagram the host
 * parser finds in the model's NTBs lies inside the transfer and has the
 * length of a frame that was sent.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_ncm.h"
#include "ch39x_sim.h"
#include "ch39x_usb.h"
#include "fuzz.h"

#define IN_SIZE		16384
#define MAX_IN_XFERS	10000

static struct ch39x_usb_dev *devs[8];

static int
class_req(struct ch39x_usb_dev *d, uint8_t type, uint8_t req, uint16_t value,
	  void *data, uint16_t len)
{
	return d->ops->control(d, type, req, value, 0, data, len, 100);
}

static struct ch39x_usb_dev *
dev_for(uint8_t mode)
{
	struct ch39x_sim_config cfg;
	struct ch39x_usb_dev *d;
	char err[256];
	uint8_t b[4];

	mode &= 7;
	if (devs[mode] != NULL)
		return devs[mode];
	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = CH39X_PID_CH398;
	cfg.speed = CH39X_SPEED_SUPER;
	cfg.wire = CH39X_WIRE_LOOP;
	cfg.framing = (mode & 1) ? CH39X_FRAMING_ECM : CH39X_FRAMING_NCM;
	cfg.cdc_max_segment = 9014;
	cfg.ncm_quirks = (mode & 4) ? CH39X_SIM_NCM_NDP_END : 0;
	d = ch39x_sim_open(&cfg, err, sizeof(err));
	FUZZ_CHECK(d != NULL);
	if (!(mode & 1) && (mode & 2))
		FUZZ_CHECK(class_req(d, CH39X_CDC_REQT_OUT,
				     CH39X_CDC_SET_NTB_FORMAT,
				     CH39X_NCM_FORMAT_NTB32, NULL, 0) == 0);
	if (!(mode & 1)) {
		ch39x_put_le32(b, IN_SIZE);
		FUZZ_CHECK(class_req(d, CH39X_CDC_REQT_OUT,
				     CH39X_CDC_SET_NTB_INPUT_SIZE, 0, b, 4) == 4);
	}
	FUZZ_CHECK(class_req(d, CH39X_CDC_REQT_OUT,
			     CH39X_CDC_SET_ETH_PKT_FILTER,
			     CH39X_CDC_PKT_PROMISC, NULL, 0) == 0);
	FUZZ_CHECK(d->ops->set_data_alt(d, 1) == 0);
	devs[mode] = d;
	return d;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t in_buf[IN_SIZE];
	struct ch39x_sim_counters c0, c1;
	struct ch39x_ncm_rx_cfg rc;
	struct ch39x_xfer x, *done[2];
	struct ch39x_ncm_dgram dg;
	struct ch39x_ncm_rx rx;
	struct ch39x_usb_dev *d;
	uint64_t back = 0;
	unsigned int i;
	uint8_t *out;
	bool ecm;

	if (size < 1)
		return 0;
	d = dev_for(data[0]);
	ecm = data[0] & 1;
	ch39x_sim_get_counters(d, &c0);
	out = fuzz_dup(data + 1, size - 1);
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

	/* Whatever went on the cable comes back up bulk IN. */
	memset(&rc, 0, sizeof(rc));
	rc.ntb32 = !ecm && (data[0] & 2);
	rc.max_ntb = IN_SIZE;
	ch39x_ncm_rx_init(&rx, &rc);
	for (i = 0; i < MAX_IN_XFERS; i++) {
		memset(&x, 0, sizeof(x));
		x.ep = CH39X_EP_BULK_IN;
		x.buf = in_buf;
		x.len = IN_SIZE;
		FUZZ_CHECK(d->ops->submit(d, &x) == 0);
		if (d->ops->poll(d, CH39X_EP_BULK_IN, done, 2) == 0) {
			d->ops->cancel_all(d, CH39X_EP_BULK_IN);
			FUZZ_CHECK(d->ops->poll(d, CH39X_EP_BULK_IN, done, 2) ==
				   1 && x.status == CH39X_XFER_CANCELLED);
			break;
		}
		FUZZ_CHECK(x.status == CH39X_XFER_OK && x.actual <= x.len);
		if (ecm) {
			FUZZ_CHECK(x.actual >= 60 && x.actual <= 9014);
			back++;
			continue;
		}
		/* The model's own NTBs always parse. */
		FUZZ_CHECK(ch39x_ncm_rx_begin(&rx, in_buf, x.actual) == 0);
		while (ch39x_ncm_rx_next(&rx, &dg) == 1) {
			FUZZ_CHECK(dg.data >= in_buf &&
				   dg.data + dg.len <= in_buf + x.actual);
			FUZZ_CHECK(dg.len >= 60 && dg.len <= 9014);
			back++;
		}
		FUZZ_CHECK(rx.stats.bad_dgram == 0 && rx.stats.seq_gaps == 0);
	}
	FUZZ_CHECK(i < MAX_IN_XFERS);
	FUZZ_CHECK(back == c1.tx_frames - c0.tx_frames);
	ch39x_sim_get_counters(d, &c1);
	FUZZ_CHECK(c1.rx_delivered - c0.rx_delivered == back);
	return 0;
}
