/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <string.h>

#include "ch39x_ecm.h"

int
ch39x_ecm_cfg_init(struct ch39x_ecm_cfg *c, const struct ch39x_cdc_desc *d,
		   bool zlp)
{
	memset(c, 0, sizeof(*c));
	c->max_frame = CH39X_ECM_MIN_SEGMENT;
	if (d->have_ether && d->max_segment > CH39X_ECM_MIN_SEGMENT)
		c->max_frame = d->max_segment;
	c->zlp = zlp;
	if (!d->have_data_eps || d->bulk_in_maxp == 0 || d->bulk_out_maxp == 0)
		return -1;
	c->in_maxp = d->bulk_in_maxp;
	c->out_maxp = d->bulk_out_maxp;
	return 0;
}

int
ch39x_ecm_rx_check(const struct ch39x_ecm_cfg *c, struct ch39x_ecm_rx_stats *st,
		   uint32_t xfer_len, uint32_t *frame_len)
{
	if (xfer_len == 0) {
		st->zero_len++;
		return 0;
	}
	if (xfer_len < CH39X_ECM_MIN_FRAME) {
		st->runts++;
		return 0;
	}
	if (xfer_len > c->max_frame) {
		if (xfer_len == c->max_frame + 1 && c->in_maxp &&
		    c->max_frame % c->in_maxp == 0) {
			st->pad_trimmed++;
			xfer_len--;
		} else {
			st->oversize++;
			return 0;
		}
	}
	st->frames++;
	st->frame_bytes += xfer_len;
	*frame_len = xfer_len;
	return 1;
}

bool
ch39x_ecm_tx_len_ok(const struct ch39x_ecm_cfg *c, uint32_t len)
{
	return len >= CH39X_ECM_MIN_FRAME && len <= c->max_frame;
}

uint32_t
ch39x_ecm_tx_buf_size(const struct ch39x_ecm_cfg *c)
{
	return c->max_frame + 1;
}

struct ch39x_ecm_tx_end
ch39x_ecm_tx_finish(const struct ch39x_ecm_cfg *c, uint8_t *buf, uint32_t len)
{
	struct ch39x_ecm_tx_end e = { .len = len };

	if (len == 0 || c->out_maxp == 0 || len % c->out_maxp != 0)
		return e;
	/*
	 * usbnet_start_xmit: "length % dev->maxpacket == 0" -> FLAG_SEND_ZLP
	 * devices get URB_ZERO_PACKET, the others one extra zero byte, which
	 * the device must tolerate.
	 */
	if (c->zlp) {
		e.zlp = true;
	} else {
		buf[len] = 0;
		e.len = len + 1;
		e.padded = true;
	}
	return e;
}
