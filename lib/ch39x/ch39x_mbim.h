/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_MBIM_H
#define CH39X_MBIM_H

/*
 * MBIM control messages (USB-IF MBIM 1.0, §22-§23): the message and
 * fragment headers, fragmenting a message into control transfers and
 * putting fragments back together, and the information buffers of the
 * Basic Connect service's commands a WAN port needs (device caps,
 * subscriber ready status, radio, register state, packet service, signal,
 * connect, IP configuration, device services). Pure functions over caller
 * buffers, for the host (the PMD) and for the device (the simulated
 * modem) alike, like ch39x_ncm.h. Every offset and length a peer sends is
 * checked before it is used; nothing is read past the length given.
 *
 * All fields are little-endian. Strings are UTF-16LE in the information
 * buffer's data part, referred to by an (offset, size in bytes) pair
 * whose offset counts from the start of the information buffer; here
 * they are UTF-8, NUL-terminated.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Messages (§22) ---- */

#define CH39X_MBIM_OPEN_MSG		0x00000001u
#define CH39X_MBIM_CLOSE_MSG		0x00000002u
#define CH39X_MBIM_COMMAND_MSG		0x00000003u
#define CH39X_MBIM_HOST_ERROR_MSG	0x00000004u
#define CH39X_MBIM_OPEN_DONE		0x80000001u
#define CH39X_MBIM_CLOSE_DONE		0x80000002u
#define CH39X_MBIM_COMMAND_DONE		0x80000003u
#define CH39X_MBIM_FUNCTION_ERROR_MSG	0x80000004u
#define CH39X_MBIM_INDICATE_STATUS_MSG	0x80000007u

#define CH39X_MBIM_HDR_LEN	12	/* type, length, transaction id */
#define CH39X_MBIM_FRAG_HDR_LEN	20	/* + total, current */
#define CH39X_MBIM_OPEN_LEN	16	/* + MaxControlTransfer */
#define CH39X_MBIM_CLOSE_LEN	12
#define CH39X_MBIM_STATUS_LEN	16	/* OPEN_DONE, CLOSE_DONE, errors */
#define CH39X_MBIM_COMMAND_LEN	48	/* + uuid, cid, type, buffer len */
#define CH39X_MBIM_DONE_LEN	48	/* + uuid, cid, status, buffer len */
#define CH39X_MBIM_INDICATE_LEN	44	/* + uuid, cid, buffer len */

/*
 * wMaxControlMessage of the MBIM functional descriptor: at least 64, at
 * most 4096 (MBIM 1.0 6.4). The host's OPEN says what it takes; a message
 * longer than that travels in fragments.
 */
#define CH39X_MBIM_CTRL_MIN	64
#define CH39X_MBIM_CTRL_MAX	4096
/* Longest reassembled message the codec takes (our limit, §23). */
#define CH39X_MBIM_MSG_MAX	16384

/* CommandType. */
#define CH39X_MBIM_QUERY	0u
#define CH39X_MBIM_SET		1u

/* Status codes of COMMAND_DONE and OPEN_DONE (MBIM 1.0 9.4.5). */
#define CH39X_MBIM_STATUS_SUCCESS		0u
#define CH39X_MBIM_STATUS_BUSY			1u
#define CH39X_MBIM_STATUS_FAILURE		2u
#define CH39X_MBIM_STATUS_SIM_NOT_INSERTED	3u
#define CH39X_MBIM_STATUS_BAD_SIM		4u
#define CH39X_MBIM_STATUS_PIN_REQUIRED		5u
#define CH39X_MBIM_STATUS_NOT_REGISTERED	7u
#define CH39X_MBIM_STATUS_NO_DEVICE_SUPPORT	9u
#define CH39X_MBIM_STATUS_PACKET_SERVICE_DETACHED 12u
#define CH39X_MBIM_STATUS_MAX_ACTIVATED_CONTEXTS 13u
#define CH39X_MBIM_STATUS_NOT_INITIALIZED	14u
#define CH39X_MBIM_STATUS_CONTEXT_NOT_ACTIVATED	16u
#define CH39X_MBIM_STATUS_INVALID_ACCESS_STRING	18u
#define CH39X_MBIM_STATUS_INVALID_USER_NAME_PWD	19u
#define CH39X_MBIM_STATUS_RADIO_POWER_OFF	20u
#define CH39X_MBIM_STATUS_INVALID_PARAMETERS	21u

/* Error codes of HOST_ERROR and FUNCTION_ERROR (MBIM 1.0 9.3.4). */
#define CH39X_MBIM_ERR_TIMEOUT_FRAGMENT		1u
#define CH39X_MBIM_ERR_FRAGMENT_OUT_OF_SEQUENCE	2u
#define CH39X_MBIM_ERR_LENGTH_MISMATCH		3u
#define CH39X_MBIM_ERR_DUPLICATED_TID		4u
#define CH39X_MBIM_ERR_NOT_OPENED		5u
#define CH39X_MBIM_ERR_UNKNOWN			6u
#define CH39X_MBIM_ERR_CANCEL			7u
#define CH39X_MBIM_ERR_MAX_TRANSFER		8u

/* Whether messages of this type travel in fragments. */
static inline bool
ch39x_mbim_fragmented(uint32_t type)
{
	return type == CH39X_MBIM_COMMAND_MSG ||
		type == CH39X_MBIM_COMMAND_DONE ||
		type == CH39X_MBIM_INDICATE_STATUS_MSG;
}

/* ---- Services and their commands (§23) ---- */

#define CH39X_MBIM_UUID_LEN	16
/* a289cc33-bcbb-8b4f-b6b0-133ec2aae6df: Basic Connect. */
extern const uint8_t ch39x_mbim_uuid_basic_connect[CH39X_MBIM_UUID_LEN];
/* 7e5e2a7e-4e6f-7272-736b-656e7e5e2a7e: context type Internet. */
extern const uint8_t ch39x_mbim_uuid_context_internet[CH39X_MBIM_UUID_LEN];

/* Basic Connect CIDs. */
#define CH39X_MBIM_CID_DEVICE_CAPS		1u
#define CH39X_MBIM_CID_SUBSCRIBER_READY_STATUS	2u
#define CH39X_MBIM_CID_RADIO_STATE		3u
#define CH39X_MBIM_CID_PIN			4u
#define CH39X_MBIM_CID_HOME_PROVIDER		6u
#define CH39X_MBIM_CID_REGISTER_STATE		9u
#define CH39X_MBIM_CID_PACKET_SERVICE		10u
#define CH39X_MBIM_CID_SIGNAL_STATE		11u
#define CH39X_MBIM_CID_CONNECT			12u
#define CH39X_MBIM_CID_IP_CONFIGURATION		15u
#define CH39X_MBIM_CID_DEVICE_SERVICES		16u

/* Values of the fields below (MBIM 1.0 section 10.5). */
#define CH39X_MBIM_DEVICE_TYPE_REMOVABLE	2u
#define CH39X_MBIM_CELLULAR_CLASS_GSM		(1u << 0)
#define CH39X_MBIM_SIM_CLASS_REMOVABLE		(1u << 1)
#define CH39X_MBIM_DATA_CLASS_UMTS		(1u << 2)
#define CH39X_MBIM_DATA_CLASS_HSDPA		(1u << 3)
#define CH39X_MBIM_DATA_CLASS_HSUPA		(1u << 4)
#define CH39X_MBIM_DATA_CLASS_LTE		(1u << 5)
#define CH39X_MBIM_DATA_CLASS_5G_NSA		(1u << 6)
#define CH39X_MBIM_DATA_CLASS_5G_SA		(1u << 7)

#define CH39X_MBIM_READY_NOT_INITIALIZED	0u
#define CH39X_MBIM_READY_INITIALIZED		1u
#define CH39X_MBIM_READY_SIM_NOT_INSERTED	2u
#define CH39X_MBIM_READY_BAD_SIM		3u
#define CH39X_MBIM_READY_FAILURE		4u
#define CH39X_MBIM_READY_NOT_ACTIVATED		5u
#define CH39X_MBIM_READY_DEVICE_LOCKED		6u

#define CH39X_MBIM_RADIO_OFF			0u
#define CH39X_MBIM_RADIO_ON			1u

#define CH39X_MBIM_REGISTER_UNKNOWN		0u
#define CH39X_MBIM_REGISTER_DEREGISTERED	1u
#define CH39X_MBIM_REGISTER_SEARCHING		2u
#define CH39X_MBIM_REGISTER_HOME		3u
#define CH39X_MBIM_REGISTER_ROAMING		4u
#define CH39X_MBIM_REGISTER_PARTNER		5u
#define CH39X_MBIM_REGISTER_DENIED		6u
#define CH39X_MBIM_REGISTER_MODE_AUTOMATIC	1u
#define CH39X_MBIM_REGISTER_ACTION_AUTOMATIC	0u

#define CH39X_MBIM_PACKET_ATTACH		0u
#define CH39X_MBIM_PACKET_DETACH		1u
#define CH39X_MBIM_PACKET_UNKNOWN		0u
#define CH39X_MBIM_PACKET_ATTACHING		1u
#define CH39X_MBIM_PACKET_ATTACHED		2u
#define CH39X_MBIM_PACKET_DETACHING		3u
#define CH39X_MBIM_PACKET_DETACHED		4u

#define CH39X_MBIM_DEACTIVATE			0u
#define CH39X_MBIM_ACTIVATE			1u
#define CH39X_MBIM_ACTIVATION_UNKNOWN		0u
#define CH39X_MBIM_ACTIVATED			1u
#define CH39X_MBIM_ACTIVATING			2u
#define CH39X_MBIM_DEACTIVATED			3u
#define CH39X_MBIM_DEACTIVATING			4u

#define CH39X_MBIM_AUTH_NONE			0u
#define CH39X_MBIM_AUTH_PAP			1u
#define CH39X_MBIM_AUTH_CHAP			2u
#define CH39X_MBIM_AUTH_MSCHAPV2		3u

#define CH39X_MBIM_IP_DEFAULT			0u
#define CH39X_MBIM_IP_V4			1u
#define CH39X_MBIM_IP_V6			2u
#define CH39X_MBIM_IP_V4V6			3u
#define CH39X_MBIM_IP_V4_AND_V6			4u

/* IPv4/IPv6ConfigurationAvailable bits. */
#define CH39X_MBIM_IPCFG_ADDRESS		(1u << 0)
#define CH39X_MBIM_IPCFG_GATEWAY		(1u << 1)
#define CH39X_MBIM_IPCFG_DNS			(1u << 2)
#define CH39X_MBIM_IPCFG_MTU			(1u << 3)

/* ---- Whole messages ---- */

/* Why ch39x_mbim_parse refused a message. */
#define CH39X_MBIM_E_SHORT	(-1)	/* shorter than its type's fields */
#define CH39X_MBIM_E_LENGTH	(-2)	/* MessageLength is not the length */
#define CH39X_MBIM_E_TYPE	(-3)	/* unknown MessageType */
#define CH39X_MBIM_E_INFO_LEN	(-4)	/* InformationBufferLength too long */
#define CH39X_MBIM_E_FRAGMENT	(-5)	/* a fragment, not a whole message */

struct ch39x_mbim_msg {
	uint32_t type;
	uint32_t length;
	uint32_t tid;
	/* COMMAND, COMMAND_DONE, INDICATE_STATUS. */
	uint8_t uuid[CH39X_MBIM_UUID_LEN];
	uint32_t cid;
	uint32_t cmd_type;	/* COMMAND: query or set */
	/*
	 * COMMAND_DONE, OPEN_DONE, CLOSE_DONE: the status; HOST_ERROR,
	 * FUNCTION_ERROR: the error code.
	 */
	uint32_t status;
	uint32_t max_ctrl;	/* OPEN: MaxControlTransfer */
	const uint8_t *info;	/* inside buf; NULL when empty */
	uint32_t info_len;
};

/*
 * Parse a whole message (unfragmented, or put back together by
 * ch39x_mbim_reasm_add): MessageLength must be len, a fragmented type
 * must say one fragment of one, and the information buffer must lie
 * inside (bytes after it are ignored). Returns 0 or CH39X_MBIM_E_*.
 */
int ch39x_mbim_parse(const uint8_t *buf, uint32_t len,
		     struct ch39x_mbim_msg *m);

/*
 * Builders: each writes a whole message into buf and returns its length,
 * or 0 when cap is too small.
 */
uint32_t ch39x_mbim_build_open(uint8_t *buf, uint32_t cap, uint32_t tid,
			       uint32_t max_ctrl);
uint32_t ch39x_mbim_build_close(uint8_t *buf, uint32_t cap, uint32_t tid);
/* OPEN_DONE or CLOSE_DONE, or HOST_ERROR / FUNCTION_ERROR with a code. */
uint32_t ch39x_mbim_build_status(uint8_t *buf, uint32_t cap, uint32_t type,
				 uint32_t tid, uint32_t status);
uint32_t ch39x_mbim_build_command(uint8_t *buf, uint32_t cap, uint32_t tid,
				  const uint8_t *uuid, uint32_t cid,
				  uint32_t cmd_type, const uint8_t *info,
				  uint32_t info_len);
uint32_t ch39x_mbim_build_command_done(uint8_t *buf, uint32_t cap,
				       uint32_t tid, const uint8_t *uuid,
				       uint32_t cid, uint32_t status,
				       const uint8_t *info,
				       uint32_t info_len);
/* Indications have transaction id 0. */
uint32_t ch39x_mbim_build_indicate(uint8_t *buf, uint32_t cap,
				   const uint8_t *uuid, uint32_t cid,
				   const uint8_t *info, uint32_t info_len);

/* ---- Fragments (§22) ---- */

/*
 * A whole message of a fragmented type longer than max_ctrl travels as
 * n fragments: each has the 12-byte header (MessageLength its own
 * length, the same transaction id), TotalFragments n and CurrentFragment
 * i, and carries the next bytes of what followed the fragment header in
 * the whole message (max_ctrl - 20 bytes each but the last).
 * ch39x_mbim_frag_count returns n (1 for a message that fits or is of
 * another type, 0 for a max_ctrl below 64 or a message that is not
 * whole); ch39x_mbim_frag_build writes fragment i into out and returns
 * its length (0: no such fragment, or cap too small).
 */
uint32_t ch39x_mbim_frag_count(const uint8_t *msg, uint32_t len,
			       uint32_t max_ctrl);
uint32_t ch39x_mbim_frag_build(const uint8_t *msg, uint32_t len,
			       uint32_t max_ctrl, uint32_t i, uint8_t *out,
			       uint32_t cap);

/* What ch39x_mbim_reasm_add says of one control transfer. */
enum ch39x_mbim_reasm_rc {
	CH39X_MBIM_REASM_DONE = 0,	/* a whole message is in the buffer */
	CH39X_MBIM_REASM_MORE,		/* a fragment kept, more to come */
	CH39X_MBIM_REASM_BAD,		/* dropped; *err says why */
};

struct ch39x_mbim_reasm_stats {
	uint64_t messages;	/* whole messages yielded */
	uint64_t fragmented;	/* of them, in more than one fragment */
	uint64_t fragments;	/* fragments taken */
	uint64_t bad_header;	/* short, or MessageLength not the length */
	uint64_t out_of_seq;	/* wrong CurrentFragment, tid or total */
	uint64_t too_long;	/* would pass the buffer or the limit */
	uint64_t abandoned;	/* partial message dropped for a new one */
};

/*
 * Putting fragments back together, for one direction of one function:
 * the host's for COMMAND_DONE and INDICATE_STATUS, the device's for
 * COMMAND. Messages of other types pass through whole. MBIM 1.0 9.2:
 * fragments of a message come in order and are not interleaved with
 * those of another; a first fragment (CurrentFragment 0) of another
 * message drops the partial one (counted), any other fragment out of
 * sequence drops it with CH39X_MBIM_ERR_FRAGMENT_OUT_OF_SEQUENCE, which
 * the receiver reports to its peer (HOST_ERROR / FUNCTION_ERROR).
 */
struct ch39x_mbim_reasm {
	uint8_t *buf;		/* the caller's, cap bytes */
	uint32_t cap;
	uint32_t len;		/* bytes of the message so far */
	bool active;		/* a fragmented message is under way */
	uint32_t type;
	uint32_t tid;
	uint32_t total;
	uint32_t next;		/* CurrentFragment expected next */
	struct ch39x_mbim_reasm_stats stats;
};

void ch39x_mbim_reasm_init(struct ch39x_mbim_reasm *r, uint8_t *buf,
			   uint32_t cap);
/*
 * Take one control transfer of len bytes. DONE: the whole message is in
 * r->buf, r->len bytes, MessageLength patched to its whole length and the
 * fragment header to 1 of 1 (ch39x_mbim_parse takes it); its transaction
 * id in *tid. BAD: *err is a CH39X_MBIM_ERR_* code and *tid the
 * transaction the peer's error concerns (0 when not known).
 */
enum ch39x_mbim_reasm_rc ch39x_mbim_reasm_add(struct ch39x_mbim_reasm *r,
					      const uint8_t *frag,
					      uint32_t len, uint32_t *tid,
					      uint32_t *err);
/* Drop a partial message (a timeout, a stop). */
void ch39x_mbim_reasm_reset(struct ch39x_mbim_reasm *r);

/* ---- Information buffers ---- */

/*
 * A writer: the fixed part, zeroed, then the data part that strings and
 * arrays are appended to, each at a 4-byte boundary. Fields of the fixed
 * part are written at their offsets. ch39x_mbim_wr_end returns the
 * buffer's length, 0 when anything did not fit.
 */
struct ch39x_mbim_wr {
	uint8_t *buf;
	uint32_t cap;
	uint32_t fixed;
	uint32_t len;
	bool overflow;
};

void ch39x_mbim_wr_init(struct ch39x_mbim_wr *w, uint8_t *buf, uint32_t cap,
			uint32_t fixed);
void ch39x_mbim_wr_u32(struct ch39x_mbim_wr *w, uint32_t off, uint32_t v);
void ch39x_mbim_wr_u64(struct ch39x_mbim_wr *w, uint32_t off, uint64_t v);
void ch39x_mbim_wr_bytes(struct ch39x_mbim_wr *w, uint32_t off,
			 const void *p, uint32_t n);
/*
 * Append n bytes to the data part; returns their offset (0 with n 0 or
 * on overflow).
 */
uint32_t ch39x_mbim_wr_append(struct ch39x_mbim_wr *w, const void *p,
			      uint32_t n);
/*
 * A string at off: its (offset, size) pair, and its UTF-16LE form in the
 * data part; NULL or "" writes (0, 0). Invalid UTF-8 is an overflow too.
 */
void ch39x_mbim_wr_string(struct ch39x_mbim_wr *w, uint32_t off,
			  const char *utf8);
uint32_t ch39x_mbim_wr_end(const struct ch39x_mbim_wr *w);

/*
 * Read the string whose (offset, size) pair is at off of an information
 * buffer of len bytes into out (UTF-8, NUL-terminated). Returns 0, or -1
 * when the pair or the string is outside the buffer, the size is odd,
 * the UTF-16 is broken (an unpaired surrogate) or out is too small (out
 * then holds "").
 */
int ch39x_mbim_rd_string(const uint8_t *info, uint32_t len, uint32_t off,
			 char *out, size_t cap);

/*
 * UTF-8 to UTF-16LE: the number of bytes written, or -1 for invalid
 * UTF-8 (overlong forms, surrogates, beyond U+10FFFF) or too little room.
 */
int ch39x_mbim_utf8_to_utf16(const char *s, uint8_t *out, uint32_t cap);

/* ---- Basic Connect information buffers ---- */

/*
 * Every _parse returns 0, or -1 when a field or a string it refers to is
 * outside the buffer (the struct is then zeroed). Every _build returns
 * the buffer's length, or 0 when it does not fit or a string is not
 * valid UTF-8. Strings longer than the fields below are refused when
 * parsed (-1): the limits are those of MBIM 1.0 (100 characters of
 * access string, 255 of user name and password) or above what devices
 * send.
 */

#define CH39X_MBIM_STR_SHORT	64
#define CH39X_MBIM_STR_LONG	256
#define CH39X_MBIM_APN_MAX	100	/* characters, MBIM 1.0 10.5.12 */
#define CH39X_MBIM_CRED_MAX	255

/* DEVICE_CAPS response: 32 bytes of fields and four strings. */
struct ch39x_mbim_caps {
	uint32_t device_type;
	uint32_t cellular_class;
	uint32_t voice_class;
	uint32_t sim_class;
	uint32_t data_class;
	uint32_t sms_caps;
	uint32_t ctrl_caps;
	uint32_t max_sessions;
	char custom_data_class[CH39X_MBIM_STR_SHORT];
	char device_id[CH39X_MBIM_STR_SHORT];
	char firmware[CH39X_MBIM_STR_SHORT];
	char hardware[CH39X_MBIM_STR_SHORT];
};
int ch39x_mbim_caps_parse(const uint8_t *info, uint32_t len,
			  struct ch39x_mbim_caps *c);
uint32_t ch39x_mbim_caps_build(uint8_t *buf, uint32_t cap,
			       const struct ch39x_mbim_caps *c);

/*
 * SUBSCRIBER_READY_STATUS response and indication. Of the telephone
 * numbers the first is kept; all are checked.
 */
struct ch39x_mbim_subscriber {
	uint32_t ready_state;
	uint32_t ready_info;
	uint32_t n_numbers;
	char subscriber_id[CH39X_MBIM_STR_SHORT];
	char sim_iccid[CH39X_MBIM_STR_SHORT];
	char number[CH39X_MBIM_STR_SHORT];	/* the first */
};
int ch39x_mbim_subscriber_parse(const uint8_t *info, uint32_t len,
				struct ch39x_mbim_subscriber *s);
/* Builds n_numbers 0 or 1 (number). */
uint32_t ch39x_mbim_subscriber_build(uint8_t *buf, uint32_t cap,
				     const struct ch39x_mbim_subscriber *s);

/* RADIO_STATE response (hardware, software); set: the software one. */
struct ch39x_mbim_radio {
	uint32_t hw;
	uint32_t sw;
};
int ch39x_mbim_radio_parse(const uint8_t *info, uint32_t len,
			   struct ch39x_mbim_radio *r);
uint32_t ch39x_mbim_radio_build(uint8_t *buf, uint32_t cap,
				const struct ch39x_mbim_radio *r);

/* REGISTER_STATE response and indication. */
struct ch39x_mbim_register {
	uint32_t nw_error;
	uint32_t state;
	uint32_t mode;
	uint32_t available_data_classes;
	uint32_t cellular_class;
	uint32_t flags;			/* RegistrationFlag */
	char provider_id[CH39X_MBIM_STR_SHORT];
	char provider_name[CH39X_MBIM_STR_SHORT];
	char roaming_text[CH39X_MBIM_STR_SHORT];
};
int ch39x_mbim_register_parse(const uint8_t *info, uint32_t len,
			      struct ch39x_mbim_register *r);
uint32_t ch39x_mbim_register_build(uint8_t *buf, uint32_t cap,
				   const struct ch39x_mbim_register *r);
/* REGISTER_STATE set: provider (empty: automatic), action, data class. */
struct ch39x_mbim_register_set {
	char provider_id[CH39X_MBIM_STR_SHORT];
	uint32_t action;
	uint32_t data_class;
};
int ch39x_mbim_register_set_parse(const uint8_t *info, uint32_t len,
				  struct ch39x_mbim_register_set *r);
uint32_t ch39x_mbim_register_set_build(uint8_t *buf, uint32_t cap,
				       const struct ch39x_mbim_register_set *r);

/* PACKET_SERVICE response and indication; set: one u32, the action. */
struct ch39x_mbim_packet {
	uint32_t nw_error;
	uint32_t state;
	uint32_t data_class;		/* HighestAvailableDataClass */
	uint64_t up_bps;
	uint64_t down_bps;
};
int ch39x_mbim_packet_parse(const uint8_t *info, uint32_t len,
			    struct ch39x_mbim_packet *p);
uint32_t ch39x_mbim_packet_build(uint8_t *buf, uint32_t cap,
				 const struct ch39x_mbim_packet *p);

/* SIGNAL_STATE response and indication (and its set, the last three). */
struct ch39x_mbim_signal {
	uint32_t rssi;		/* 0..31 (-113..-51 dBm), 99 unknown */
	uint32_t error_rate;	/* 0..7, 99 unknown */
	uint32_t interval;	/* SignalStrengthInterval, seconds */
	uint32_t rssi_threshold;
	uint32_t error_rate_threshold;
};
int ch39x_mbim_signal_parse(const uint8_t *info, uint32_t len,
			    struct ch39x_mbim_signal *s);
uint32_t ch39x_mbim_signal_build(uint8_t *buf, uint32_t cap,
				 const struct ch39x_mbim_signal *s);

/* CONNECT set: activate or deactivate a session's context. */
struct ch39x_mbim_connect_set {
	uint32_t session_id;
	uint32_t command;		/* ActivationCommand */
	uint32_t compression;
	uint32_t auth;			/* AuthProtocol */
	uint32_t ip_type;
	uint8_t context_type[CH39X_MBIM_UUID_LEN];
	char apn[CH39X_MBIM_STR_LONG];		/* AccessString */
	char user[CH39X_MBIM_STR_LONG];
	char password[CH39X_MBIM_STR_LONG];
};
int ch39x_mbim_connect_set_parse(const uint8_t *info, uint32_t len,
				 struct ch39x_mbim_connect_set *c);
uint32_t ch39x_mbim_connect_set_build(uint8_t *buf, uint32_t cap,
				      const struct ch39x_mbim_connect_set *c);

/* CONNECT query, response and indication: 36 bytes. */
#define CH39X_MBIM_CONNECT_INFO_LEN 36
struct ch39x_mbim_connect {
	uint32_t session_id;
	uint32_t state;			/* ActivationState */
	uint32_t voice_call_state;
	uint32_t ip_type;
	uint8_t context_type[CH39X_MBIM_UUID_LEN];
	uint32_t nw_error;
};
int ch39x_mbim_connect_parse(const uint8_t *info, uint32_t len,
			     struct ch39x_mbim_connect *c);
uint32_t ch39x_mbim_connect_build(uint8_t *buf, uint32_t cap,
				  const struct ch39x_mbim_connect *c);

/*
 * IP_CONFIGURATION query (the session id and zeroes, 60 bytes), response
 * and indication. Of longer arrays the first elements are kept (n_* is
 * what was kept); every element is checked to lie inside the buffer.
 */
#define CH39X_MBIM_IPCFG_FIXED_LEN 60
#define CH39X_MBIM_IPCFG_MAX_ADDR 4
#define CH39X_MBIM_IPCFG_MAX_DNS 4
struct ch39x_mbim_ip4 {
	uint32_t prefix_len;		/* OnLinkPrefixLength */
	uint8_t addr[4];
};
struct ch39x_mbim_ip6 {
	uint32_t prefix_len;
	uint8_t addr[16];
};
struct ch39x_mbim_ipcfg {
	uint32_t session_id;
	uint32_t v4_avail;		/* CH39X_MBIM_IPCFG_* */
	uint32_t v6_avail;
	uint32_t n_v4;
	struct ch39x_mbim_ip4 v4[CH39X_MBIM_IPCFG_MAX_ADDR];
	uint32_t n_v6;
	struct ch39x_mbim_ip6 v6[CH39X_MBIM_IPCFG_MAX_ADDR];
	bool have_v4_gw;		/* IPv4Gateway offset not 0 */
	uint8_t v4_gw[4];
	bool have_v6_gw;
	uint8_t v6_gw[16];
	uint32_t n_v4_dns;
	uint8_t v4_dns[CH39X_MBIM_IPCFG_MAX_DNS][4];
	uint32_t n_v6_dns;
	uint8_t v6_dns[CH39X_MBIM_IPCFG_MAX_DNS][16];
	uint32_t v4_mtu;
	uint32_t v6_mtu;
};
int ch39x_mbim_ipcfg_parse(const uint8_t *info, uint32_t len,
			   struct ch39x_mbim_ipcfg *c);
uint32_t ch39x_mbim_ipcfg_build(uint8_t *buf, uint32_t cap,
				const struct ch39x_mbim_ipcfg *c);

/*
 * DEVICE_SERVICES response (device side only): the services and their
 * CIDs, each element an (offset, size) pair.
 */
struct ch39x_mbim_service {
	const uint8_t *uuid;
	uint32_t dss_payload;
	uint32_t max_dss_instances;
	const uint32_t *cids;
	uint32_t n_cids;
};
uint32_t ch39x_mbim_services_build(uint8_t *buf, uint32_t cap,
				   const struct ch39x_mbim_service *s,
				   uint32_t n, uint32_t max_dss_sessions);

/* A query's (or set's) single u32 (PACKET_SERVICE, RADIO_STATE set). */
uint32_t ch39x_mbim_u32_build(uint8_t *buf, uint32_t cap, uint32_t v);
int ch39x_mbim_u32_parse(const uint8_t *info, uint32_t len, uint32_t *v);

/* Names for logs: "home", "attached", "activated", "NotRegistered"... */
const char *ch39x_mbim_status_name(uint32_t status);
const char *ch39x_mbim_register_name(uint32_t state);
const char *ch39x_mbim_packet_name(uint32_t state);
const char *ch39x_mbim_activation_name(uint32_t state);
const char *ch39x_mbim_ready_name(uint32_t state);

#endif /* CH39X_MBIM_H */
