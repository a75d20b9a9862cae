/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_RNDIS_H
#define CH39X_RNDIS_H

/*
 * RNDIS (Remote NDIS over USB): the control messages that travel in
 * SEND_ENCAPSULATED_COMMAND / GET_ENCAPSULATED_RESPONSE on EP0, the
 * RESPONSE_AVAILABLE notification of the interrupt endpoint, and the data
 * messages (REMOTE_NDIS_PACKET_MSG, several per bulk transfer). Pure
 * functions over caller buffers, shaped like ch39x_ncm.h; every length
 * and offset a peer sends is checked before use.
 *
 * The same code serves a host and a device model: a host builds requests
 * and parses completions, a device model parses requests and builds
 * completions and indications; either side builds data transfers with the
 * TX builder and parses them with the RX parser.
 *
 * Facts: §18-§19, as Linux drivers/net/usb/rndis_host.c, usbnet.c and the
 * gadget's f_rndis.c, rndis.c and u_ether.c implement them.
 */

#include <stdbool.h>
#include <stdint.h>

/* ---- Identification (§18.1) ---- */

/* Control interface: Linux f_rndis (Communications, ACM, vendor). */
#define CH39X_RNDIS_CLASS_COMM		0x02
#define CH39X_RNDIS_SUBCLASS_ACM	0x02
#define CH39X_RNDIS_PROTO_VENDOR	0xFF
/* Control interface: Android tethering (Wireless controller, RF, RNDIS). */
#define CH39X_RNDIS_CLASS_WIRELESS	0xE0
#define CH39X_RNDIS_SUBCLASS_RF		0x01
#define CH39X_RNDIS_PROTO_RNDIS		0x03

/* Whether an interface's class triple is an RNDIS control interface. */
bool ch39x_rndis_is_control(uint8_t cls, uint8_t subclass, uint8_t proto);

/* Class requests on EP0, interface recipient, wIndex = control interface. */
#define CH39X_RNDIS_SEND_ENCAPSULATED	0x00	/* bmRequestType 0x21 */
#define CH39X_RNDIS_GET_ENCAPSULATED	0x01	/* bmRequestType 0xA1 */
/*
 * A response is at most this long (the RNDIS specification's 1 KiB, plus
 * the byte Linux rndis_host adds to its CONTROL_BUFFER_SIZE): the host
 * asks GET_ENCAPSULATED_RESPONSE for this many bytes.
 */
#define CH39X_RNDIS_RESP_MAX		1025
/* The interrupt endpoint's notification: 8 bytes, le32 1 then le32 0. */
#define CH39X_RNDIS_NOTIFY_LEN		8
#define CH39X_RNDIS_NOTIFY_RESPONSE	1

/* ---- Messages (§18.2) ---- */

#define CH39X_RNDIS_MSG_PACKET		0x00000001u
#define CH39X_RNDIS_MSG_INIT		0x00000002u
#define CH39X_RNDIS_MSG_HALT		0x00000003u
#define CH39X_RNDIS_MSG_QUERY		0x00000004u
#define CH39X_RNDIS_MSG_SET		0x00000005u
#define CH39X_RNDIS_MSG_RESET		0x00000006u
#define CH39X_RNDIS_MSG_INDICATE	0x00000007u
#define CH39X_RNDIS_MSG_KEEPALIVE	0x00000008u
#define CH39X_RNDIS_MSG_CMPLT		0x80000000u
#define CH39X_RNDIS_MSG_INIT_C		(CH39X_RNDIS_MSG_INIT | CH39X_RNDIS_MSG_CMPLT)
#define CH39X_RNDIS_MSG_QUERY_C		(CH39X_RNDIS_MSG_QUERY | CH39X_RNDIS_MSG_CMPLT)
#define CH39X_RNDIS_MSG_SET_C		(CH39X_RNDIS_MSG_SET | CH39X_RNDIS_MSG_CMPLT)
#define CH39X_RNDIS_MSG_RESET_C		(CH39X_RNDIS_MSG_RESET | CH39X_RNDIS_MSG_CMPLT)
#define CH39X_RNDIS_MSG_KEEPALIVE_C	(CH39X_RNDIS_MSG_KEEPALIVE | CH39X_RNDIS_MSG_CMPLT)

/* Fixed lengths: headers before a variable part, or whole messages. */
#define CH39X_RNDIS_INIT_LEN		24
#define CH39X_RNDIS_INIT_C_LEN		52
#define CH39X_RNDIS_QUERY_LEN		28	/* + information buffer */
#define CH39X_RNDIS_QUERY_C_LEN		24	/* + information buffer */
#define CH39X_RNDIS_SET_LEN		28	/* + information buffer */
#define CH39X_RNDIS_SET_C_LEN		16
#define CH39X_RNDIS_RESET_LEN		12
#define CH39X_RNDIS_RESET_C_LEN		16
#define CH39X_RNDIS_HALT_LEN		12
#define CH39X_RNDIS_KEEPALIVE_LEN	12
#define CH39X_RNDIS_KEEPALIVE_C_LEN	16
#define CH39X_RNDIS_INDICATE_LEN	20	/* + status buffer */
#define CH39X_RNDIS_PACKET_LEN		44	/* + data */
/* Offsets in the messages are counted from byte 8 (RequestId/DataOffset). */
#define CH39X_RNDIS_OFF_BASE		8

#define CH39X_RNDIS_MAJOR		1
#define CH39X_RNDIS_MINOR		0
#define CH39X_RNDIS_DF_CONNECTIONLESS	0x00000001u
#define CH39X_RNDIS_MEDIUM_802_3	0x00000000u

/* Status codes. */
#define CH39X_RNDIS_STATUS_SUCCESS	0x00000000u
#define CH39X_RNDIS_STATUS_FAILURE	0xC0000001u
#define CH39X_RNDIS_STATUS_INVALID_DATA	0xC0010015u
#define CH39X_RNDIS_STATUS_NOT_SUPPORTED 0xC00000BBu
#define CH39X_RNDIS_STATUS_MEDIA_CONNECT 0x4001000Bu
#define CH39X_RNDIS_STATUS_MEDIA_DISCONNECT 0x4001000Cu
#define CH39X_RNDIS_STATUS_LINK_SPEED_CHANGE 0x40010013u

/* Object identifiers the project uses (§18.3). */
#define CH39X_RNDIS_OID_GEN_SUPPORTED_LIST	0x00010101u
#define CH39X_RNDIS_OID_GEN_MAXIMUM_FRAME_SIZE	0x00010106u
#define CH39X_RNDIS_OID_GEN_LINK_SPEED		0x00010107u
#define CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER 0x0001010Eu
#define CH39X_RNDIS_OID_GEN_MAXIMUM_TOTAL_SIZE	0x00010111u
#define CH39X_RNDIS_OID_GEN_MEDIA_CONNECT_STATUS 0x00010114u
#define CH39X_RNDIS_OID_GEN_PHYSICAL_MEDIUM	0x00010202u
#define CH39X_RNDIS_OID_GEN_XMIT_OK		0x00020101u
#define CH39X_RNDIS_OID_GEN_RCV_OK		0x00020102u
#define CH39X_RNDIS_OID_802_3_PERMANENT_ADDRESS	0x01010101u
#define CH39X_RNDIS_OID_802_3_CURRENT_ADDRESS	0x01010102u
#define CH39X_RNDIS_OID_802_3_MULTICAST_LIST	0x01010103u
#define CH39X_RNDIS_OID_802_3_MAXIMUM_LIST_SIZE	0x01010104u

/* OID_GEN_MEDIA_CONNECT_STATUS values. */
#define CH39X_RNDIS_MEDIA_CONNECTED	0
#define CH39X_RNDIS_MEDIA_DISCONNECTED	1

/* OID_GEN_CURRENT_PACKET_FILTER bits (NDIS_PACKET_TYPE_*). */
#define CH39X_RNDIS_PKT_DIRECTED	0x00000001u
#define CH39X_RNDIS_PKT_MULTICAST	0x00000002u	/* by the list */
#define CH39X_RNDIS_PKT_ALL_MULTICAST	0x00000004u
#define CH39X_RNDIS_PKT_BROADCAST	0x00000008u
#define CH39X_RNDIS_PKT_PROMISCUOUS	0x00000020u

/* Longest list the host sends in OID_802_3_MULTICAST_LIST. */
#define CH39X_RNDIS_MC_MAX		64

/* ---- Building control messages (§18.2) ---- */

/*
 * Each writes one message into buf and returns its length, or 0 when cap
 * is too small. Lengths over what a request may carry are refused too.
 */
uint32_t ch39x_rndis_build_init(uint8_t *buf, uint32_t cap, uint32_t req_id,
				uint32_t max_xfer);
/*
 * QUERY with in_len zero bytes of information buffer (Linux sends 48 for
 * the permanent address, as some devices want a buffer the size of the
 * answer), and SET with len bytes of data.
 */
uint32_t ch39x_rndis_build_query(uint8_t *buf, uint32_t cap, uint32_t req_id,
				 uint32_t oid, uint32_t in_len);
uint32_t ch39x_rndis_build_set(uint8_t *buf, uint32_t cap, uint32_t req_id,
			       uint32_t oid, const void *data, uint32_t len);
/* KEEPALIVE and HALT carry a request id; RESET has a reserved word. */
uint32_t ch39x_rndis_build_keepalive(uint8_t *buf, uint32_t cap,
				     uint32_t req_id);
uint32_t ch39x_rndis_build_halt(uint8_t *buf, uint32_t cap, uint32_t req_id);
uint32_t ch39x_rndis_build_reset(uint8_t *buf, uint32_t cap);

/* Completions and indications, as a device sends them. */
struct ch39x_rndis_init_c {
	uint32_t status;
	uint32_t major;
	uint32_t minor;
	uint32_t device_flags;
	uint32_t medium;
	uint32_t max_pkts;	/* MaxPacketsPerTransfer */
	uint32_t max_xfer;	/* MaxTransferSize */
	uint32_t align_factor;	/* PacketAlignmentFactor: 2^n bytes */
};

uint32_t ch39x_rndis_build_init_c(uint8_t *buf, uint32_t cap, uint32_t req_id,
				  const struct ch39x_rndis_init_c *c);
/* QUERY_C with len bytes of information (none when status is not 0). */
uint32_t ch39x_rndis_build_query_c(uint8_t *buf, uint32_t cap,
				   uint32_t req_id, uint32_t status,
				   const void *info, uint32_t len);
/* SET_C and KEEPALIVE_C (type one of the two). */
uint32_t ch39x_rndis_build_status_c(uint8_t *buf, uint32_t cap, uint32_t type,
				    uint32_t req_id, uint32_t status);
uint32_t ch39x_rndis_build_reset_c(uint8_t *buf, uint32_t cap, uint32_t status,
				   bool addressing_reset);
/* INDICATE_STATUS with len bytes of status buffer. */
uint32_t ch39x_rndis_build_indicate(uint8_t *buf, uint32_t cap,
				    uint32_t status, const void *sbuf,
				    uint32_t len);
/* The interrupt endpoint's RESPONSE_AVAILABLE: 8 bytes. */
uint32_t ch39x_rndis_build_notify(uint8_t *buf, uint32_t cap);

/* ---- Parsing control messages (§18.2) ---- */

/* Why a control message was refused. */
enum ch39x_rndis_bad {
	CH39X_RNDIS_OK = 0,
	CH39X_RNDIS_BAD_SHORT,		/* fewer than 8 bytes */
	CH39X_RNDIS_BAD_LENGTH,		/* MessageLength past the transfer,
					 * or short of its type's fixed part */
	CH39X_RNDIS_BAD_BUFFER,		/* information/status buffer outside
					 * the message */
	CH39X_RNDIS_BAD_TYPE,		/* not a control message */
};

/*
 * One control message, either direction. buf/buf_len: the information
 * buffer of QUERY, QUERY_C and SET, the status buffer of INDICATE (NULL
 * and 0 when empty), inside the transfer.
 */
struct ch39x_rndis_msg {
	uint32_t type;
	uint32_t length;	/* MessageLength */
	uint32_t req_id;	/* 0 for RESET, RESET_C and INDICATE */
	uint32_t status;	/* completions and INDICATE */
	uint32_t oid;		/* QUERY and SET */
	bool addressing_reset;	/* RESET_C */
	struct ch39x_rndis_init_c init;	/* INIT_C; INIT: max_xfer, versions */
	const uint8_t *buf;
	uint32_t buf_len;
};

/*
 * Parse the control message at the start of a transfer of len bytes.
 * MessageLength may be shorter than the transfer (a device may pad its
 * response), never longer; each type's fixed part must fit in it and a
 * buffer's offset and length must lie inside it. Returns CH39X_RNDIS_OK
 * with *m filled, or why not (then only type and length may be set).
 */
enum ch39x_rndis_bad ch39x_rndis_parse_ctrl(const uint8_t *p, uint32_t len,
					    struct ch39x_rndis_msg *m);

/*
 * The message a completion answers (CH39X_RNDIS_MSG_INIT for INIT_C...),
 * 0 when type is not a completion.
 */
uint32_t ch39x_rndis_request_of(uint32_t type);

/*
 * A host's view of one GET_ENCAPSULATED_RESPONSE answer while it waits for
 * the completion of request (type, req_id): the answer itself, something
 * else that needs handling (an indication, the device's keepalive), or
 * something to drop (a completion of another or an older request).
 */
enum ch39x_rndis_match {
	CH39X_RNDIS_MATCH = 0,
	CH39X_RNDIS_INDICATION,
	CH39X_RNDIS_DEV_KEEPALIVE,	/* answer with KEEPALIVE_C */
	CH39X_RNDIS_STALE,		/* another request's completion */
	CH39X_RNDIS_UNEXPECTED,		/* any other message */
};

/* RESET_C carries no request id: it matches a RESET by type alone. */
enum ch39x_rndis_match ch39x_rndis_match(const struct ch39x_rndis_msg *m,
					 uint32_t req_type, uint32_t req_id);

/*
 * A 4-byte little-endian value of an information buffer (QUERY_C of
 * OID_GEN_LINK_SPEED, _MEDIA_CONNECT_STATUS...): 0, or -1 when the buffer
 * holds fewer than 4 bytes.
 */
int ch39x_rndis_info_u32(const struct ch39x_rndis_msg *m, uint32_t *v);

/* ---- Link (§18.4) ---- */

/* What an INDICATE_STATUS says about the link. */
enum ch39x_rndis_link_ev {
	CH39X_RNDIS_LINK_NONE = 0,	/* another status */
	CH39X_RNDIS_LINK_UP,		/* MEDIA_CONNECT */
	CH39X_RNDIS_LINK_DOWN,		/* MEDIA_DISCONNECT */
	/*
	 * LINK_SPEED_CHANGE: its status buffer's layout is not specified
	 * for RNDIS 1.0, so the host asks OID_GEN_LINK_SPEED again.
	 */
	CH39X_RNDIS_LINK_SPEED,
};

enum ch39x_rndis_link_ev ch39x_rndis_indicate_link(
	const struct ch39x_rndis_msg *m);
/* OID_GEN_LINK_SPEED (units of 100 bit/s) in Mbit/s, rounded; 0: unknown. */
uint32_t ch39x_rndis_speed_mbps(uint32_t speed_100bps);

/* ---- Receive filter (§18.5) ---- */

/*
 * OID_GEN_CURRENT_PACKET_FILTER for a port's state: directed and broadcast
 * always; the multicast list when the device's list (max_list from
 * OID_802_3_MAXIMUM_LIST_SIZE) holds n_mc addresses, else all multicast.
 */
uint32_t ch39x_rndis_packet_filter(bool promisc, bool allmulti,
				   unsigned int n_mc, uint32_t max_list);
/*
 * Whether a frame's destination passes filter flt with the list mc (n
 * addresses) for own address mac: the device model's filter, and the
 * PMD's where the device does not filter (§18.5).
 */
bool ch39x_rndis_filter_pass(uint32_t flt, const uint8_t *dst,
			     const uint8_t mac[6], const uint8_t (*mc)[6],
			     unsigned int n);

/* ---- Data messages (§18.6) ---- */

/* PacketAlignmentFactor beyond this (4 KiB) is not believed. */
#define CH39X_RNDIS_MAX_ALIGN_FACTOR	12
/* Packets per transfer the TX builder keeps room for at most. */
#define CH39X_RNDIS_TX_MAX_PKTS		256

struct ch39x_rndis_tx_cfg {
	uint32_t max_xfer;	/* the peer's MaxTransferSize; 0: bogus */
	uint32_t max_pkts;	/* the peer's MaxPacketsPerTransfer; 0: 1 */
	uint32_t align_factor;	/* the peer's PacketAlignmentFactor */
	uint32_t size;		/* our transfer size, 0: max_xfer */
	uint16_t maxp;		/* bulk wMaxPacketSize, not 0 */
	bool zlp;		/* a ZLP, not a pad byte, after multiples */
};

/* Why a transfer was closed; what ch39x_rndis_tx_check says. */
enum ch39x_rndis_fit {
	CH39X_RNDIS_FIT_OK = 0,
	CH39X_RNDIS_FIT_FULL,		/* close, retry in the next transfer */
	CH39X_RNDIS_FIT_MAX_PKTS,	/* same */
	CH39X_RNDIS_FIT_TOO_BIG,	/* never fits, even alone: drop */
	CH39X_RNDIS_FIT_BAD_LEN,	/* zero length: drop */
};

struct ch39x_rndis_tx_stats {
	uint64_t xfers;
	uint64_t pkts;
	uint64_t pkt_bytes;
	uint64_t overhead;	/* headers, alignment and pad bytes */
	uint64_t pad_bytes;	/* short-packet pad bytes */
	uint64_t zlps;
	uint64_t close_full;
	uint64_t close_max_pkts;
	uint64_t close_burst;
};

/*
 * The TX builder: several REMOTE_NDIS_PACKET_MSG in one transfer, each
 * starting on the peer's alignment (at least 4 bytes), at most max_pkts,
 * never more than max_xfer bytes (the short-packet pad byte included).
 */
struct ch39x_rndis_tx {
	uint32_t limit;		/* transfer bytes, pad byte included */
	uint32_t max_pkts;
	uint32_t align;
	uint16_t maxp;
	bool zlp;
	struct ch39x_rndis_tx_stats stats;
	/* Current transfer. */
	uint8_t *buf;
	uint32_t len;		/* bytes used so far */
	uint32_t last;		/* offset of the last message */
	uint32_t payload;
	uint32_t n;
	enum ch39x_rndis_fit refused;
};

/*
 * Sanitise c into t and reset the stats. Returns 0, or -1 when not even a
 * 14-byte frame fits (maxp 0, a tiny max_xfer).
 */
int ch39x_rndis_tx_init(struct ch39x_rndis_tx *t,
			const struct ch39x_rndis_tx_cfg *c);
/* Bytes a transfer buffer needs. */
uint32_t ch39x_rndis_tx_buf_size(const struct ch39x_rndis_tx *t);
/* Longest frame an empty transfer holds. */
uint32_t ch39x_rndis_tx_max_frame(const struct ch39x_rndis_tx *t);
void ch39x_rndis_tx_begin(struct ch39x_rndis_tx *t, uint8_t *buf);
enum ch39x_rndis_fit ch39x_rndis_tx_check(struct ch39x_rndis_tx *t,
					  uint32_t len);
/* Reserve a frame of len bytes (after a successful check): its bytes. */
uint8_t *ch39x_rndis_tx_add(struct ch39x_rndis_tx *t, uint32_t len);

struct ch39x_rndis_tx_end {
	uint32_t len;		/* bytes to send, 0: nothing */
	bool zlp;
	bool padded;
	uint32_t pkts;
	enum ch39x_rndis_fit reason;	/* OK: end of burst */
};

/* Close the transfer and apply the short-packet rule. */
struct ch39x_rndis_tx_end ch39x_rndis_tx_finish(struct ch39x_rndis_tx *t);

struct ch39x_rndis_rx_cfg {
	uint32_t max_frame;	/* longest frame taken, 0: no limit */
	uint32_t max_pkts;	/* messages per transfer, 0: no limit */
};

struct ch39x_rndis_rx_stats {
	uint64_t xfers;		/* transfers parsed */
	uint64_t pkts;		/* frames yielded */
	uint64_t pkt_bytes;
	uint64_t pad_bytes;	/* zero bytes after the last message */
	uint64_t ppi;		/* messages with OOB or per-packet info */
	/* Messages dropped; the rest of the transfer goes with them. */
	uint64_t bad_type;	/* not PACKET_MSG (nor zero padding) */
	uint64_t bad_len;	/* MessageLength < 44 or past the transfer,
				 * or a tail shorter than a header */
	/* Messages dropped, the transfer goes on. */
	uint64_t bad_data;	/* data outside its message */
	uint64_t runts;		/* DataLength < 14 */
	uint64_t oversize;	/* DataLength > max_frame */
	uint64_t too_many;	/* past max_pkts */
};

/* A frame, inside the transfer buffer. */
struct ch39x_rndis_frame {
	const uint8_t *data;
	uint32_t len;
	uint32_t offset;	/* from the start of the transfer */
};

/*
 * The RX parser over one completed transfer: begin, then next until it
 * returns 0. Decisions (§18.6):
 * - each message's MessageLength must be at least 44 and lie inside the
 *   transfer; the next message starts MessageLength bytes later;
 * - its data (8 + DataOffset, DataLength) must lie inside the message
 *   and after its 44-byte header; else it is counted and skipped, and
 *   the transfer goes on (its length can still be trusted);
 * - a message of another type, or a MessageLength that cannot be
 *   followed, ends the transfer (counted): lengths are no longer
 *   trustworthy, there is no resynchronisation (Linux drops the rest too);
 * - bytes after the last message that are all zero are padding (a device
 *   may pad to its packet size; Linux's gadget adds a byte): counted, not
 *   an error;
 * - OOB data and per-packet info are ignored, as Linux does (counted).
 */
struct ch39x_rndis_rx {
	struct ch39x_rndis_rx_cfg cfg;
	struct ch39x_rndis_rx_stats stats;
	const uint8_t *buf;
	uint32_t len;
	uint32_t off;
	uint32_t n;
};

void ch39x_rndis_rx_init(struct ch39x_rndis_rx *rx,
			 const struct ch39x_rndis_rx_cfg *cfg);
void ch39x_rndis_rx_begin(struct ch39x_rndis_rx *rx, const uint8_t *buf,
			  uint32_t len);
/* Returns 1 and fills *f, or 0 when the transfer is used up. */
int ch39x_rndis_rx_next(struct ch39x_rndis_rx *rx,
			struct ch39x_rndis_frame *f);
/* Messages dropped, all causes. */
uint64_t ch39x_rndis_rx_bad(const struct ch39x_rndis_rx_stats *st);

#endif /* CH39X_RNDIS_H */
