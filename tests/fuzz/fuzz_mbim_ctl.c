/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the host's MBIM control client and dialer (ch39x_mbim_ctl.h)
 * against a lying modem: a transport whose GET_ENCAPSULATED_RESPONSE
 * answers come from the input, while OPEN, the dialer's commands and
 * pumps run as the PMD runs them (every wait 0 ms, so nothing sleeps).
 *
 * Byte 0: wMaxControlMessage, 64 + 16 * byte (capped at 4096); byte 1
 * bits 0-1 the dial's IP type, bit 2 the session 1 instead of 0. Then
 * answers, one per GET_ENCAPSULATED_RESPONSE, each a kind byte and a
 * 2-byte LE length and that many bytes:
 *   kind 0: the awaited answer (OPEN_DONE, CLOSE_DONE or COMMAND_DONE of
 *           the last transaction sent): a status byte, then the
 *           information buffer (cut into fragments of the pipe's size);
 *           while nothing was sent since the last one, polls are empty
 *           and it waits;
 *   kind 1: the bytes as one transfer, whatever they are;
 *   kind 2: an indication: a CID byte, then the information buffer;
 *   kind 3: FUNCTION_ERROR for the last transaction (a code byte), which
 *           waits the same way;
 *   else:   nothing waits (an empty answer).
 * Without input left every poll is empty.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_mbim_ctl.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() */
#include "fuzz.h"

struct fake {
	struct ch39x_usb_dev base;
	const uint8_t *p;
	const uint8_t *end;
	uint32_t max_ctrl;
	uint32_t last_tid;
	uint32_t last_type;
	uint32_t last_cid;
	bool pending;			/* a request not answered yet */
	/* Fragments of a built answer still to hand out. */
	uint8_t msg[CH39X_MBIM_MSG_MAX];
	uint32_t msg_len;
	uint32_t frag_n;
	uint32_t frag_i;
	uint64_t sent;
};

static struct fake *
to_fake(struct ch39x_usb_dev *d)
{
	return (struct fake *)(void *)d;
}

/* Put a whole answer (msg, msg_len) out in fragments. */
static void
stage(struct fake *f)
{
	f->frag_n = ch39x_mbim_frag_count(f->msg, f->msg_len, f->max_ctrl);
	f->frag_i = 0;
}

static int
next_answer(struct fake *f, uint8_t *buf, uint16_t cap)
{
	uint32_t type, len, info_len;
	const uint8_t *d;
	uint8_t kind;

	if (f->frag_i < f->frag_n)
		return (int)ch39x_mbim_frag_build(f->msg, f->msg_len,
						  f->max_ctrl, f->frag_i++,
						  buf, cap);
	if (f->end - f->p < 3)
		return 0;
	kind = f->p[0];
	if ((kind == 0 || kind == 3) && !f->pending)
		return 0;
	len = ch39x_get_le16(f->p + 1);
	f->p += 3;
	if (len > (uint32_t)(f->end - f->p))
		len = (uint32_t)(f->end - f->p);
	d = f->p;
	f->p += len;
	switch (kind) {
	case 0:
		f->pending = false;
		type = f->last_type == CH39X_MBIM_OPEN_MSG ?
			CH39X_MBIM_OPEN_DONE : f->last_type ==
			CH39X_MBIM_CLOSE_MSG ? CH39X_MBIM_CLOSE_DONE :
			CH39X_MBIM_COMMAND_DONE;
		if (type != CH39X_MBIM_COMMAND_DONE) {
			f->msg_len = ch39x_mbim_build_status(
				f->msg, sizeof(f->msg), type, f->last_tid,
				len ? d[0] : 0);
		} else {
			info_len = len ? len - 1 : 0;
			f->msg_len = ch39x_mbim_build_command_done(
				f->msg, sizeof(f->msg), f->last_tid,
				ch39x_mbim_uuid_basic_connect, f->last_cid,
				len ? d[0] : 0, d + 1, info_len);
		}
		break;
	case 1:
		if (len > cap)
			len = cap;
		memcpy(buf, d, len);
		return (int)len;
	case 2:
		f->msg_len = ch39x_mbim_build_indicate(
			f->msg, sizeof(f->msg), ch39x_mbim_uuid_basic_connect,
			len ? d[0] : 0, d + (len ? 1 : 0), len ? len - 1 : 0);
		break;
	case 3:
		f->pending = false;
		f->msg_len = ch39x_mbim_build_status(
			f->msg, sizeof(f->msg), CH39X_MBIM_FUNCTION_ERROR_MSG,
			f->last_tid, len ? d[0] : 0);
		break;
	default:
		return 0;
	}
	stage(f);
	if (f->frag_n == 0)
		return 0;
	return (int)ch39x_mbim_frag_build(f->msg, f->msg_len, f->max_ctrl,
					  f->frag_i++, buf, cap);
}

static int
fake_control(struct ch39x_usb_dev *d, uint8_t req_type, uint8_t request,
	     uint16_t value, uint16_t index, void *data, uint16_t length,
	     unsigned int timeout_ms)
{
	struct fake *f = to_fake(d);
	const uint8_t *b = data;

	(void)value;
	(void)timeout_ms;
	FUZZ_CHECK(index == 0);
	if (req_type == CH39X_CDC_REQT_OUT &&
	    request == CH39X_CDC_SEND_ENCAPSULATED) {
		/* What the host sends is always a well-formed fragment. */
		FUZZ_CHECK(length >= 12 && length <= f->max_ctrl);
		FUZZ_CHECK(ch39x_get_le32(b + 4) == length);
		f->sent++;
		if (ch39x_get_le32(b) == CH39X_MBIM_HOST_ERROR_MSG)
			return length;
		f->last_type = ch39x_get_le32(b);
		f->last_tid = ch39x_get_le32(b + 8);
		f->pending = true;
		if (f->last_type == CH39X_MBIM_COMMAND_MSG && length >= 40)
			f->last_cid = ch39x_get_le32(b + 36);
		return length;
	}
	FUZZ_CHECK(req_type == CH39X_CDC_REQT_IN &&
		   request == CH39X_CDC_GET_ENCAPSULATED);
	FUZZ_CHECK(length == f->max_ctrl);
	return next_answer(f, data, length);
}

static const struct ch39x_usb_ops fake_ops = {
	.name = "fuzz",
	.control = fake_control,
};

static void
str_ok(const char *s, size_t n)
{
	FUZZ_CHECK(memchr(s, '\0', n) != NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_mbim_dial_cfg cfg;
	struct ch39x_mbim_dial_state st;
	struct ch39x_mbim_ctl c;
	struct fake *f;
	uint32_t max;
	int rc;

	if (size < 2)
		return 0;
	f = calloc(1, sizeof(*f));
	FUZZ_CHECK(f != NULL);
	f->base.ops = &fake_ops;
	max = 64u + 16u * data[0];
	f->max_ctrl = max > CH39X_MBIM_CTRL_MAX ? CH39X_MBIM_CTRL_MAX : max;
	f->p = data + 2;
	f->end = data + size;
	FUZZ_CHECK(ch39x_mbim_ctl_init(&c, &f->base, 0, f->max_ctrl) == 0);

	memset(&cfg, 0, sizeof(cfg));
	strcpy(cfg.apn, "internet");
	cfg.ip_type = data[1] & 3;
	cfg.session = (data[1] & 4) ? 1 : 0;
	memset(&st, 0, sizeof(st));
	rc = ch39x_mbim_ctl_open(&c, 0);
	FUZZ_CHECK(rc == 0 || rc == -ETIMEDOUT || rc == -EPROTO);
	str_ok(c.err, sizeof(c.err));
	if (rc == 0) {
		rc = ch39x_mbim_dial(&c, &cfg, &st);
		str_ok(c.err, sizeof(c.err));
		FUZZ_CHECK(rc <= 0);
		if (rc == 0) {
			FUZZ_CHECK(st.activation == CH39X_MBIM_ACTIVATED);
			FUZZ_CHECK(st.ready_state ==
				   CH39X_MBIM_READY_INITIALIZED);
			FUZZ_CHECK(st.ipcfg.n_v4 <= CH39X_MBIM_IPCFG_MAX_ADDR);
		} else {
			FUZZ_CHECK(c.err[0] != '\0');
		}
		str_ok(st.provider, sizeof(st.provider));
		str_ok(st.caps.firmware, sizeof(st.caps.firmware));
	}
	/* Whatever is left: indications and strays, read and counted. */
	while (ch39x_mbim_ctl_pump(&c) > 0)
		;
	FUZZ_CHECK(c.st.done <= c.st.commands);
	FUZZ_CHECK(c.st.fragments_out == f->sent - c.st.host_errors);
	ch39x_mbim_ctl_fini(&c);
	free(f);
	return 0;
}
