/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_USBIP_H
#define CH39X_USBIP_H

/*
 * The USB/IP protocol (version 1.1.1) as Linux's vhci-hcd and its usbip
 * tool speak it, the server's side: the operation requests a client
 * sends when it lists or imports devices (OP_REQ_DEVLIST, OP_REQ_IMPORT)
 * and their replies, then the URB commands of an imported device
 * (CMD_SUBMIT, CMD_UNLINK) and their replies (RET_SUBMIT, RET_UNLINK).
 * Every field is big-endian on the wire. Pure functions over buffers:
 * the peer is untrusted, every length it sends is checked before use,
 * and nothing is read or written past the lengths given.
 *
 * Facts: Linux Documentation/usb/usbip_protocol.rst, drivers/usb/usbip
 * (usbip_common.h, vhci_tx.c, vhci_rx.c, stub_rx.c) and tools/usb/usbip;
 * written down in the NIC guide's protocol reference (§17 of
 * doc/guides/nics/ch39x_protocol.rst).
 */

#include <stdbool.h>
#include <stdint.h>

#define USBIP_VERSION		0x0111
#define USBIP_PORT		3240

/* ---- Operations: before a device is imported ---- */

#define USBIP_OP_REQ_DEVLIST	0x8005
#define USBIP_OP_REP_DEVLIST	0x0005
#define USBIP_OP_REQ_IMPORT	0x8003
#define USBIP_OP_REP_IMPORT	0x0003
#define USBIP_OP_HDR_LEN	8	/* version, code, status */
#define USBIP_BUSID_LEN		32	/* NUL included */
#define USBIP_PATH_LEN		256	/* NUL included */
#define USBIP_OP_REQ_IMPORT_LEN	(USBIP_OP_HDR_LEN + USBIP_BUSID_LEN)
/* struct usbip_usb_device on the wire, and one interface after it. */
#define USBIP_DEV_LEN		312
#define USBIP_IF_LEN		4
/* Status of a reply: the tool knows "OK" and "failed" (ST_NA). */
#define USBIP_ST_OK		0
#define USBIP_ST_NA		1
/* Interfaces a device description carries at most (bNumInterfaces). */
#define USBIP_MAX_IFS		32

struct usbip_op_req {
	uint16_t code;				/* USBIP_OP_REQ_* */
	char busid[USBIP_BUSID_LEN];		/* IMPORT; NUL-terminated */
};

/*
 * An operation request at the start of buf (the len bytes received so
 * far). Returns its length once all of it is there (8 for DEVLIST, 40 for
 * IMPORT), 0 while more bytes are needed, or a negative errno: -EPROTO
 * for another protocol version, -EOPNOTSUPP for another code, -EINVAL for
 * a bus ID that is not a NUL-terminated string.
 */
int usbip_op_parse(const uint8_t *buf, uint32_t len, struct usbip_op_req *r);

/* What a reply says of one exported device (struct usbip_usb_device). */
struct usbip_exported {
	char path[USBIP_PATH_LEN];
	char busid[USBIP_BUSID_LEN];
	uint32_t busnum;
	uint32_t devnum;
	uint32_t speed;		/* enum usb_device_speed: 2 full, 3 high, 5 super */
	uint16_t vid;
	uint16_t pid;
	uint16_t bcd_device;
	uint8_t dev_class;
	uint8_t dev_subclass;
	uint8_t dev_protocol;
	uint8_t config_value;
	uint8_t n_configs;
	uint8_t n_ifs;		/* at most USBIP_MAX_IFS */
	struct {
		uint8_t cls;
		uint8_t sub;
		uint8_t proto;
	} ifs[USBIP_MAX_IFS];
};

/*
 * OP_REP_IMPORT: the device (d), or a failure (d NULL: the header alone,
 * status ST_NA). OP_REP_DEVLIST: n devices, each with its interfaces.
 * Return the reply's length, or 0 when cap is too small.
 */
uint32_t usbip_build_rep_import(const struct usbip_exported *d, uint8_t *buf,
				uint32_t cap);
uint32_t usbip_build_rep_devlist(const struct usbip_exported *d,
				 unsigned int n, uint8_t *buf, uint32_t cap);

/* ---- URBs: after a device is imported ---- */

#define USBIP_CMD_SUBMIT	1
#define USBIP_CMD_UNLINK	2
#define USBIP_RET_SUBMIT	3
#define USBIP_RET_UNLINK	4
#define USBIP_HDR_LEN		48
#define USBIP_DIR_OUT		0
#define USBIP_DIR_IN		1
/* transfer_flags: Linux's URB flags, as vhci-hcd passes them. */
#define USBIP_URB_SHORT_NOT_OK	0x0001
#define USBIP_URB_ZERO_PACKET	0x0040
/* Non-isochronous: number_of_packets is 0 (Linux) or 0xffffffff (spec). */
#define USBIP_NO_ISO		0xffffffffu
/*
 * The longest transfer the server takes: vhci-hcd passes a driver's URB
 * whole, and the NIC drivers' largest are NTBs of 64 KiB; a peer asking
 * for more is refused, not trusted with an allocation.
 */
#define USBIP_MAX_XFER		(1u << 20)

/* Why a command header is refused (the connection is then dropped). */
enum usbip_bad {
	USBIP_BAD_COMMAND = 1,	/* not CMD_SUBMIT or CMD_UNLINK */
	USBIP_BAD_DIRECTION,	/* not 0 or 1 */
	USBIP_BAD_EP,		/* endpoint number above 15 */
	USBIP_BAD_LENGTH,	/* transfer_buffer_length above USBIP_MAX_XFER */
	USBIP_BAD_ISO,		/* isochronous packets: not served */
	USBIP_BAD_COUNT,
};

struct usbip_cmd {
	uint32_t command;		/* USBIP_CMD_* */
	uint32_t seqnum;
	uint32_t devid;
	uint32_t direction;		/* USBIP_DIR_* */
	uint32_t ep;			/* endpoint number, 0..15 */
	/* CMD_SUBMIT */
	uint32_t flags;			/* USBIP_URB_* */
	uint32_t length;		/* transfer_buffer_length */
	uint32_t interval;
	uint8_t setup[8];		/* endpoint 0 */
	/* CMD_UNLINK */
	uint32_t unlink_seqnum;
	/* The bytes that follow the header: OUT data of a CMD_SUBMIT. */
	uint32_t payload;
};

/*
 * A command at the start of buf (the len bytes received so far). Returns
 * the whole message's length (the header and, for an OUT CMD_SUBMIT, its
 * data at buf + USBIP_HDR_LEN) once all of it is there, 0 while more
 * bytes are needed, or -(enum usbip_bad) for a header that cannot be
 * served.
 */
int usbip_cmd_parse(const uint8_t *buf, uint32_t len, struct usbip_cmd *c);
const char *usbip_bad_str(int bad);

/*
 * RET_SUBMIT of URB seqnum: status is Linux's (0, or a negative errno such
 * as -EPIPE for a stall); actual the bytes transferred, followed on the
 * wire by as many IN data bytes. RET_UNLINK: -ECONNRESET when the URB was
 * unlinked, 0 when it had already completed.
 */
void usbip_build_ret_submit(uint8_t hdr[USBIP_HDR_LEN], uint32_t seqnum,
			    int32_t status, uint32_t actual);
void usbip_build_ret_unlink(uint8_t hdr[USBIP_HDR_LEN], uint32_t seqnum,
			    int32_t status);

/* The client's side, for tests: the two commands as vhci-hcd sends them. */
void usbip_build_cmd_submit(uint8_t hdr[USBIP_HDR_LEN],
			    const struct usbip_cmd *c);
void usbip_build_cmd_unlink(uint8_t hdr[USBIP_HDR_LEN], uint32_t seqnum,
			    uint32_t unlink_seqnum);

/* A control transfer's SETUP packet (little-endian, USB 2.0 §9.3). */
struct usbip_setup {
	uint8_t type;		/* bmRequestType */
	uint8_t request;
	uint16_t value;
	uint16_t index;
	uint16_t length;
};

void usbip_setup_parse(const uint8_t s[8], struct usbip_setup *p);

/* Big-endian fields. */
static inline uint32_t
usbip_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
		(uint32_t)p[2] << 8 | p[3];
}

static inline uint16_t
usbip_get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
usbip_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
usbip_put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

#endif /* CH39X_USBIP_H */
