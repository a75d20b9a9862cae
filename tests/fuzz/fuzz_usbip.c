/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz app/ch39x-usbip with what a USB/IP peer sends: the codec (usbip.c)
 * and one exported device (dev.c) over a simulated adapter, the way the
 * server's connection loop feeds them. The peer is untrusted: any command
 * stream must leave the server's replies consistent and nothing leaked.
 *
 * Input layout:
 *   byte 0   bit 7: operation requests (usbip_op_parse over the rest);
 *            else bits 0-1 the model (0 NCM at SuperSpeed, 1 ECM at high
 *            speed, 2 CH397 vendor mode, 3 NCM at high speed with the
 *            quirks of bits 2-4: ndp_end, ntb32_only, no_max_datagram)
 *   rest     the peer's bytes after the import: CMD_SUBMIT and CMD_UNLINK
 *            messages, parsed as the server does (a refused header ends
 *            the connection); the model is served after each
 *
 * A fresh model per input (wire=loop). Checked, of every reply: a
 * RET_SUBMIT answers a URB submitted and not yet answered, once, with
 * actual at most its length and data (IN) of exactly actual bytes; a
 * RET_UNLINK answers an unlink, -ECONNRESET only for a URB then in flight,
 * which gets no RET_SUBMIT after. The device is closed at the end with
 * URBs in flight (LeakSanitizer sees any left).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_sim.h"
#include "dev.h"
#include "fuzz.h"
#include "usbip.h"

#define MAX_CMDS	2048

/* What the peer has asked for, as the sink checks the replies. */
struct sent {
	uint32_t seqnum;
	uint32_t length;
	bool in;
	bool unlink;		/* a CMD_UNLINK; else a CMD_SUBMIT */
	bool live;		/* no reply yet */
	bool cut;		/* unlinked with -ECONNRESET */
	int32_t status;		/* of the reply */
};

static struct sent cmds[MAX_CMDS];
static unsigned int n_cmds;

/* A command with no reply yet (not one unlinked with -ECONNRESET). */
static struct sent *
live_cmd(uint32_t seqnum, bool unlink)
{
	unsigned int i;

	for (i = 0; i < n_cmds; i++)
		if (cmds[i].live && !cmds[i].cut &&
		    cmds[i].seqnum == seqnum && cmds[i].unlink == unlink)
			return &cmds[i];
	return NULL;
}

static int
sink(void *arg, const uint8_t hdr[USBIP_HDR_LEN], const uint8_t *data,
     uint32_t len)
{
	uint32_t cmd = usbip_get_be32(hdr), seq = usbip_get_be32(hdr + 4);
	int32_t status = (int32_t)usbip_get_be32(hdr + 20);
	uint32_t actual = usbip_get_be32(hdr + 24);
	struct sent *s;

	(void)arg;
	FUZZ_CHECK(cmd == USBIP_RET_SUBMIT || cmd == USBIP_RET_UNLINK);
	if (cmd == USBIP_RET_UNLINK) {
		s = live_cmd(seq, true);
		FUZZ_CHECK(s != NULL && len == 0);
		FUZZ_CHECK(status == 0 || status == -ECONNRESET);
		s->live = false;
		s->status = status;
		return 0;
	}
	s = live_cmd(seq, false);
	FUZZ_CHECK(s != NULL);
	FUZZ_CHECK(actual <= s->length);
	FUZZ_CHECK(len == (s->in && data != NULL ? actual : 0));
	if (len != 0)
		FUZZ_CHECK(data[len - 1] == data[len - 1]);	/* readable */
	s->live = false;
	return 0;
}

/*
 * An unlink answered (u, its entry): -ECONNRESET only for a URB then in
 * flight, which gets no RET_SUBMIT after.
 */
static void
unlinked(const struct sent *u, uint32_t target, bool was_live)
{
	struct sent *t;

	FUZZ_CHECK(!u->live);
	if (u->status != -ECONNRESET)
		return;
	FUZZ_CHECK(was_live);
	t = live_cmd(target, false);
	FUZZ_CHECK(t != NULL);
	t->cut = true;
}

static void
run_ops(const uint8_t *d, size_t n)
{
	struct usbip_op_req r;
	uint8_t *b = fuzz_dup(d, n);
	uint32_t off = 0;
	int k;

	while (off < n) {
		k = usbip_op_parse(b + off, (uint32_t)(n - off), &r);
		if (k <= 0)
			break;
		FUZZ_CHECK((uint32_t)k <= n - off);
		FUZZ_CHECK(k == USBIP_OP_HDR_LEN ||
			   k == USBIP_OP_REQ_IMPORT_LEN);
		if (k == USBIP_OP_REQ_IMPORT_LEN)
			FUZZ_CHECK(memchr(r.busid, '\0', sizeof(r.busid)));
		off += (uint32_t)k;
	}
	free(b);
}

static struct uip_dev *
open_model(uint8_t mode)
{
	struct ch39x_sim_config c;
	char err[256];

	memset(&c, 0, sizeof(c));
	c.wire = CH39X_WIRE_LOOP;
	c.pid = CH39X_PID_CH398;
	switch (mode & 3) {
	case 0:
		c.framing = CH39X_FRAMING_NCM;
		c.speed = CH39X_SPEED_SUPER;
		break;
	case 1:
		c.framing = CH39X_FRAMING_ECM;
		c.speed = CH39X_SPEED_HIGH;
		break;
	case 2:
		c.pid = CH39X_PID_CH397;
		c.speed = CH39X_SPEED_HIGH;
		break;
	default:
		c.framing = CH39X_FRAMING_NCM;
		c.speed = CH39X_SPEED_HIGH;
		c.ncm_quirks = (mode >> 2) & 7;
		break;
	}
	return uip_dev_open("1-1", &c, err, sizeof(err));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usbip_cmd c;
	struct uip_dev *d;
	uint8_t *b;
	uint32_t off = 0, len;
	bool was_live;
	int k;

	if (size < 1)
		return 0;
	if (data[0] & 0x80) {
		run_ops(data + 1, size - 1);
		return 0;
	}
	d = open_model(data[0]);
	FUZZ_CHECK(d != NULL);
	n_cmds = 0;
	uip_dev_attach(d, sink, NULL);
	len = (uint32_t)(size - 1);
	b = fuzz_dup(data + 1, len);
	while (off < len && n_cmds < MAX_CMDS) {
		k = usbip_cmd_parse(b + off, len - off, &c);
		if (k <= 0)
			break;	/* a refused header: the server drops the peer */
		FUZZ_CHECK((uint32_t)k == USBIP_HDR_LEN + c.payload &&
			   (uint32_t)k <= len - off);
		cmds[n_cmds].seqnum = c.seqnum;
		cmds[n_cmds].length = c.length;
		/* Endpoint 0: the SETUP packet says which way data goes. */
		cmds[n_cmds].in = c.ep == 0 ? (c.setup[0] & 0x80) != 0 :
			c.direction == USBIP_DIR_IN;
		cmds[n_cmds].unlink = c.command == USBIP_CMD_UNLINK;
		cmds[n_cmds].live = true;
		cmds[n_cmds].cut = false;
		n_cmds++;
		was_live = c.command == USBIP_CMD_UNLINK &&
			live_cmd(c.unlink_seqnum, false) != NULL;
		FUZZ_CHECK(uip_dev_command(d, &c, b + off + USBIP_HDR_LEN) == 0);
		if (c.command == USBIP_CMD_UNLINK)
			unlinked(&cmds[n_cmds - 1], c.unlink_seqnum, was_live);
		FUZZ_CHECK(uip_dev_service(d) >= 0);
		off += (uint32_t)k;
	}
	FUZZ_CHECK(uip_dev_service(d) >= 0);
	free(b);
	/* The peer goes with URBs in flight: dropped, no reply, no leak. */
	uip_dev_close(d);
	return 0;
}
