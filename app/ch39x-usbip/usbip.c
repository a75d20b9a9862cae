/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The USB/IP codec (usbip.h). Offsets are those of
 * Documentation/usb/usbip_protocol.rst; the checks are the server's own:
 * a peer that sends something a Linux client never would is refused,
 * never trusted with a length.
 */

#include <errno.h>
#include <string.h>

#include "usbip.h"

/* Offsets in a 48-byte command or reply header. */
#define H_COMMAND	0
#define H_SEQNUM	4
#define H_DEVID		8
#define H_DIRECTION	12
#define H_EP		16
#define H_FLAGS		20	/* CMD_SUBMIT; RET_*: status */
#define H_LENGTH	24	/* CMD_SUBMIT; RET_SUBMIT: actual_length */
#define H_START_FRAME	28
#define H_NPACKETS	32
#define H_INTERVAL	36	/* RET_SUBMIT: error_count */
#define H_SETUP		40
#define H_UNLINK_SEQ	20	/* CMD_UNLINK */
#define H_STATUS	20	/* RET_SUBMIT, RET_UNLINK */
#define H_ACTUAL	24

/* Offsets in struct usbip_usb_device. */
#define D_PATH		0
#define D_BUSID		256
#define D_BUSNUM	288
#define D_DEVNUM	292
#define D_SPEED		296
#define D_VID		300
#define D_PID		302
#define D_BCD		304
#define D_CLASS		306
#define D_CONFIG	309
#define D_NCONFIGS	310
#define D_NIFS		311

int
usbip_op_parse(const uint8_t *buf, uint32_t len, struct usbip_op_req *r)
{
	uint16_t code;

	if (len < USBIP_OP_HDR_LEN)
		return 0;
	if (usbip_get_be16(buf) != USBIP_VERSION)
		return -EPROTO;
	code = usbip_get_be16(buf + 2);
	memset(r, 0, sizeof(*r));
	r->code = code;
	if (code == USBIP_OP_REQ_DEVLIST)
		return USBIP_OP_HDR_LEN;
	if (code != USBIP_OP_REQ_IMPORT)
		return -EOPNOTSUPP;
	if (len < USBIP_OP_REQ_IMPORT_LEN)
		return 0;
	if (memchr(buf + USBIP_OP_HDR_LEN, '\0', USBIP_BUSID_LEN) == NULL)
		return -EINVAL;
	memcpy(r->busid, buf + USBIP_OP_HDR_LEN, USBIP_BUSID_LEN);
	return USBIP_OP_REQ_IMPORT_LEN;
}

static void
op_header(uint8_t *p, uint16_t code, uint32_t status)
{
	usbip_put_be16(p, USBIP_VERSION);
	usbip_put_be16(p + 2, code);
	usbip_put_be32(p + 4, status);
}

/* A string field of n bytes: the text cut to n - 1, NUL-padded. */
static void
put_str(uint8_t *p, const char *s, uint32_t n)
{
	size_t k = strnlen(s, n - 1);

	memset(p, 0, n);
	memcpy(p, s, k);
}

static void
put_device(uint8_t *p, const struct usbip_exported *d)
{
	put_str(p + D_PATH, d->path, USBIP_PATH_LEN);
	put_str(p + D_BUSID, d->busid, USBIP_BUSID_LEN);
	usbip_put_be32(p + D_BUSNUM, d->busnum);
	usbip_put_be32(p + D_DEVNUM, d->devnum);
	usbip_put_be32(p + D_SPEED, d->speed);
	usbip_put_be16(p + D_VID, d->vid);
	usbip_put_be16(p + D_PID, d->pid);
	usbip_put_be16(p + D_BCD, d->bcd_device);
	p[D_CLASS] = d->dev_class;
	p[D_CLASS + 1] = d->dev_subclass;
	p[D_CLASS + 2] = d->dev_protocol;
	p[D_CONFIG] = d->config_value;
	p[D_NCONFIGS] = d->n_configs;
	p[D_NIFS] = d->n_ifs;
}

uint32_t
usbip_build_rep_import(const struct usbip_exported *d, uint8_t *buf,
		       uint32_t cap)
{
	if (d == NULL) {
		if (cap < USBIP_OP_HDR_LEN)
			return 0;
		op_header(buf, USBIP_OP_REP_IMPORT, USBIP_ST_NA);
		return USBIP_OP_HDR_LEN;
	}
	if (cap < USBIP_OP_HDR_LEN + USBIP_DEV_LEN)
		return 0;
	op_header(buf, USBIP_OP_REP_IMPORT, USBIP_ST_OK);
	put_device(buf + USBIP_OP_HDR_LEN, d);
	return USBIP_OP_HDR_LEN + USBIP_DEV_LEN;
}

uint32_t
usbip_build_rep_devlist(const struct usbip_exported *d, unsigned int n,
			uint8_t *buf, uint32_t cap)
{
	uint32_t off = USBIP_OP_HDR_LEN + 4, need;
	unsigned int i, k, nifs;

	if (cap < off)
		return 0;
	op_header(buf, USBIP_OP_REP_DEVLIST, USBIP_ST_OK);
	usbip_put_be32(buf + USBIP_OP_HDR_LEN, n);
	for (i = 0; i < n; i++) {
		nifs = d[i].n_ifs < USBIP_MAX_IFS ? d[i].n_ifs : USBIP_MAX_IFS;
		need = USBIP_DEV_LEN + nifs * USBIP_IF_LEN;
		if (need > cap - off)
			return 0;
		put_device(buf + off, &d[i]);
		buf[off + D_NIFS] = (uint8_t)nifs;
		off += USBIP_DEV_LEN;
		for (k = 0; k < nifs; k++, off += USBIP_IF_LEN) {
			buf[off] = d[i].ifs[k].cls;
			buf[off + 1] = d[i].ifs[k].sub;
			buf[off + 2] = d[i].ifs[k].proto;
			buf[off + 3] = 0;	/* padding */
		}
	}
	return off;
}

int
usbip_cmd_parse(const uint8_t *buf, uint32_t len, struct usbip_cmd *c)
{
	uint32_t np;

	if (len < USBIP_HDR_LEN)
		return 0;
	memset(c, 0, sizeof(*c));
	c->command = usbip_get_be32(buf + H_COMMAND);
	c->seqnum = usbip_get_be32(buf + H_SEQNUM);
	c->devid = usbip_get_be32(buf + H_DEVID);
	c->direction = usbip_get_be32(buf + H_DIRECTION);
	c->ep = usbip_get_be32(buf + H_EP);
	if (c->command == USBIP_CMD_UNLINK) {
		c->unlink_seqnum = usbip_get_be32(buf + H_UNLINK_SEQ);
		return USBIP_HDR_LEN;
	}
	if (c->command != USBIP_CMD_SUBMIT)
		return -USBIP_BAD_COMMAND;
	if (c->direction != USBIP_DIR_OUT && c->direction != USBIP_DIR_IN)
		return -USBIP_BAD_DIRECTION;
	if (c->ep > 15)
		return -USBIP_BAD_EP;
	c->flags = usbip_get_be32(buf + H_FLAGS);
	c->length = usbip_get_be32(buf + H_LENGTH);
	c->interval = usbip_get_be32(buf + H_INTERVAL);
	np = usbip_get_be32(buf + H_NPACKETS);
	if (np != 0 && np != USBIP_NO_ISO)
		return -USBIP_BAD_ISO;
	if (c->length > USBIP_MAX_XFER)
		return -USBIP_BAD_LENGTH;
	memcpy(c->setup, buf + H_SETUP, sizeof(c->setup));
	c->payload = c->direction == USBIP_DIR_OUT ? c->length : 0;
	/* USBIP_MAX_XFER keeps the sum far from overflowing. */
	if (len - USBIP_HDR_LEN < c->payload)
		return 0;
	return (int)(USBIP_HDR_LEN + c->payload);
}

const char *
usbip_bad_str(int bad)
{
	static const char *const s[USBIP_BAD_COUNT] = {
		[USBIP_BAD_COMMAND] = "unknown command",
		[USBIP_BAD_DIRECTION] = "direction neither IN nor OUT",
		[USBIP_BAD_EP] = "endpoint number above 15",
		[USBIP_BAD_LENGTH] = "transfer longer than 1 MiB",
		[USBIP_BAD_ISO] = "isochronous transfer (not served)",
	};

	if (bad < 0)
		bad = -bad;
	return bad > 0 && bad < USBIP_BAD_COUNT ? s[bad] : "?";
}

/* A reply's header: the command, seqnum and status; the rest 0. */
static void
ret_header(uint8_t hdr[USBIP_HDR_LEN], uint32_t cmd, uint32_t seqnum,
	   int32_t status)
{
	memset(hdr, 0, USBIP_HDR_LEN);
	usbip_put_be32(hdr + H_COMMAND, cmd);
	usbip_put_be32(hdr + H_SEQNUM, seqnum);
	usbip_put_be32(hdr + H_STATUS, (uint32_t)status);
}

void
usbip_build_ret_submit(uint8_t hdr[USBIP_HDR_LEN], uint32_t seqnum,
		       int32_t status, uint32_t actual)
{
	/* start_frame, number_of_packets, error_count: 0, as Linux's stub. */
	ret_header(hdr, USBIP_RET_SUBMIT, seqnum, status);
	usbip_put_be32(hdr + H_ACTUAL, actual);
}

void
usbip_build_ret_unlink(uint8_t hdr[USBIP_HDR_LEN], uint32_t seqnum,
		       int32_t status)
{
	ret_header(hdr, USBIP_RET_UNLINK, seqnum, status);
}

void
usbip_build_cmd_submit(uint8_t hdr[USBIP_HDR_LEN], const struct usbip_cmd *c)
{
	memset(hdr, 0, USBIP_HDR_LEN);
	usbip_put_be32(hdr + H_COMMAND, USBIP_CMD_SUBMIT);
	usbip_put_be32(hdr + H_SEQNUM, c->seqnum);
	usbip_put_be32(hdr + H_DEVID, c->devid);
	usbip_put_be32(hdr + H_DIRECTION, c->direction);
	usbip_put_be32(hdr + H_EP, c->ep);
	usbip_put_be32(hdr + H_FLAGS, c->flags);
	usbip_put_be32(hdr + H_LENGTH, c->length);
	usbip_put_be32(hdr + H_NPACKETS, 0);
	usbip_put_be32(hdr + H_INTERVAL, c->interval);
	memcpy(hdr + H_SETUP, c->setup, sizeof(c->setup));
}

void
usbip_build_cmd_unlink(uint8_t hdr[USBIP_HDR_LEN], uint32_t seqnum,
		       uint32_t unlink_seqnum)
{
	memset(hdr, 0, USBIP_HDR_LEN);
	usbip_put_be32(hdr + H_COMMAND, USBIP_CMD_UNLINK);
	usbip_put_be32(hdr + H_SEQNUM, seqnum);
	usbip_put_be32(hdr + H_UNLINK_SEQ, unlink_seqnum);
}

void
usbip_setup_parse(const uint8_t s[8], struct usbip_setup *p)
{
	p->type = s[0];
	p->request = s[1];
	p->value = (uint16_t)(s[2] | s[3] << 8);
	p->index = (uint16_t)(s[4] | s[5] << 8);
	p->length = (uint16_t)(s[6] | s[7] << 8);
}
