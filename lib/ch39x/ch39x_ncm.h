/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_NCM_H
#define CH39X_NCM_H

/*
 * CDC-NCM framing: GET_NTB_PARAMETERS, the TX NTB builder and the RX NTB
 * parser, NTB16 and NTB32. Pure functions over caller buffers, shaped like
 * the vendor codec (ch39x_vendor.h) and Linux usbnet's tx_fixup/rx_fixup.
 * Descriptors, the MAC string, the packet filter and notifications are
 * shared with ECM in ch39x_cdc.h.
 *
 * Facts: §11-§15, checked against Linux
 * drivers/net/usb/cdc_ncm.c, include/uapi/linux/usb/cdc.h and FreeBSD
 * sys/dev/usb/net/if_cdce.c. Where they differ from those
 * sections it is said next to the code.
 *
 * The same code serves a host and a device model: a device builds IN NTBs
 * with the TX builder (from the wNdpIn* values) and parses OUT NTBs with
 * the RX parser.
 *
 * MBIM (§21) carries its data in the same NTBs, with other NDPs: an IPS
 * NDP holds raw IPv4/IPv6 datagrams (no Ethernet header) of one IP
 * session, whose number is the signature's fourth byte. The ips flag of
 * the TX and RX configurations selects them; everything else (NTH, NDP
 * layout, alignment, limits, bounds checks) is the same code.
 */

#include <stdbool.h>
#include <stdint.h>

#include "ch39x_cdc.h"
#include "ch39x_le.h"

/* Signatures, as the little-endian dwSignature reads. */
#define CH39X_NCM_NTH16_SIGN	0x484D434Eu	/* "NCMH" */
#define CH39X_NCM_NTH32_SIGN	0x686D636Eu	/* "ncmh" */
#define CH39X_NCM_NDP16_SIGN	0x304D434Eu	/* "NCM0", no CRC */
#define CH39X_NCM_NDP16_CRC_SIGN 0x314D434Eu	/* "NCM1" */
#define CH39X_NCM_NDP32_SIGN	0x306D636Eu	/* "ncm0", no CRC */
#define CH39X_NCM_NDP32_CRC_SIGN 0x316D636Eu	/* "ncm1" */
/*
 * MBIM NDPs (§21): the low three bytes, the fourth is the session (IPS)
 * or the device service stream (DSS) number.
 */
#define CH39X_MBIM_NDP16_IPS_SIGN 0x00535049u	/* "IPS" + session */
#define CH39X_MBIM_NDP32_IPS_SIGN 0x00737069u	/* "ips" + session */
#define CH39X_MBIM_NDP16_DSS_SIGN 0x00535344u	/* "DSS" + stream */
#define CH39X_MBIM_NDP32_DSS_SIGN 0x00737364u	/* "dss" + stream */
#define CH39X_MBIM_NDP_SIGN_MASK 0x00FFFFFFu
#define CH39X_MBIM_MIN_DGRAM	20	/* an IPv4 header (Linux cdc_mbim) */

#define CH39X_NCM_NTH16_LEN	12
#define CH39X_NCM_NTH32_LEN	16
#define CH39X_NCM_NDP16_HDR_LEN	8	/* sig, wLength, wNext */
#define CH39X_NCM_NDP32_HDR_LEN	16	/* sig, len, -, dwNext, - */
#define CH39X_NCM_DPE16_LEN	4
#define CH39X_NCM_DPE32_LEN	8
#define CH39X_NCM_NDP16_MIN_LEN	16	/* an entry and the null */
#define CH39X_NCM_NDP32_MIN_LEN	32
#define CH39X_NCM_NTB_MIN_SIZE	2048	/* least dwNtb*MaxSize */
#define CH39X_NCM_NTB16_MAX_SIZE 65535
#define CH39X_NCM_ETH_HLEN	14
#define CH39X_NCM_MIN_ALIGN	4	/* least divisor, alignment */

/* SET_NTB_FORMAT wValue, bmNtbFormatsSupported bits. */
#define CH39X_NCM_FORMAT_NTB16	0
#define CH39X_NCM_FORMAT_NTB32	1
#define CH39X_NCM_FMT_NTB16_BIT	(1u << 0)
#define CH39X_NCM_FMT_NTB32_BIT	(1u << 1)

/* ---- GET_NTB_PARAMETERS ---- */

#define CH39X_NCM_NTB_PARAMS_LEN 28

struct ch39x_ncm_ntb_params {
	uint16_t length;		/* wLength */
	uint16_t formats;		/* bmNtbFormatsSupported */
	uint32_t in_max_size;		/* dwNtbInMaxSize */
	uint16_t in_divisor;
	uint16_t in_remainder;
	uint16_t in_alignment;
	uint32_t out_max_size;		/* dwNtbOutMaxSize */
	uint16_t out_divisor;
	uint16_t out_remainder;
	uint16_t out_alignment;
	uint16_t out_max_datagrams;	/* 0 = no limit */
};

/*
 * Warnings from ch39x_ncm_parse_ntb_params: values a host must not use as
 * they are. The TX builder corrects them the way Linux cdc_ncm_fix_modulus
 * and FreeBSD cdce_ncm_init do (divisor/alignment 4, remainder 0).
 */
#define CH39X_NCM_PW_NO_NTB16	 (1u << 0)	/* NTB16 absent */
#define CH39X_NCM_PW_IN_SIZE	 (1u << 1)	/* < 2048 */
#define CH39X_NCM_PW_OUT_SIZE	 (1u << 2)	/* < 2048 */
#define CH39X_NCM_PW_IN_DIVISOR	 (1u << 3)	/* not 2^n >= 4 */
#define CH39X_NCM_PW_IN_REM	 (1u << 4)	/* remainder >= divisor */
#define CH39X_NCM_PW_IN_ALIGN	 (1u << 5)
#define CH39X_NCM_PW_OUT_DIVISOR (1u << 6)
#define CH39X_NCM_PW_OUT_REM	 (1u << 7)
#define CH39X_NCM_PW_OUT_ALIGN	 (1u << 8)
#define CH39X_NCM_PW_LENGTH	 (1u << 9)	/* wLength > 28 */

/*
 * Parse the GET_NTB_PARAMETERS data stage. Returns -1 when it is unusable
 * (fewer than 28 bytes received, wLength < 28, neither NTB format), else a
 * mask of CH39X_NCM_PW_* (0 = all values sane). *p is filled whenever 28
 * bytes came, zeroed otherwise.
 */
int ch39x_ncm_parse_ntb_params(const uint8_t *buf, uint32_t len,
			       struct ch39x_ncm_ntb_params *p);
/* Encode it as a device answers (wLength is written as 28). */
uint32_t ch39x_ncm_build_ntb_params(const struct ch39x_ncm_ntb_params *p,
				    uint8_t buf[CH39X_NCM_NTB_PARAMS_LEN]);
/*
 * SET_NTB_INPUT_SIZE data stage: 4 bytes, or 8 with wNtbInMaxDatagrams
 * when the device has CH39X_NCM_CAP_NTB_INPUT_8. Returns its length.
 */
uint32_t ch39x_ncm_build_ntb_input_size(uint32_t in_max, bool eight,
					uint16_t max_datagrams,
					uint8_t buf[8]);

/* ---- TX (bulk OUT on a host, bulk IN on a device model) ---- */

/* Datagrams per NTB when the device sets no limit, and the hard cap. */
#define CH39X_NCM_TX_DEF_DGRAMS	32
#define CH39X_NCM_TX_MAX_DGRAMS	256
/* NTB size when the caller asks for none (Linux CDC_NCM_NTB_DEF_SIZE_TX). */
#define CH39X_NCM_TX_DEF_SIZE	16384

struct ch39x_ncm_tx_cfg {
	bool ntb32;		/* selected with SET_NTB_FORMAT */
	uint32_t dev_max_size;	/* dwNtbOutMaxSize; 0 (bogus) = 2048 */
	uint32_t size;		/* NTB size, 0 = 16384, <= the above */
	uint16_t divisor;	/* wNdpOutDivisor */
	uint16_t remainder;	/* wNdpOutPayloadRemainder */
	uint16_t ndp_align;	/* wNdpOutAlignment */
	uint16_t max_dgrams;	/* wNtbOutMaxDatagrams, 0 = no limit */
	uint16_t ndp_entries;	/* NDP room, 0 = 32; capped at 256 */
	uint16_t maxp;		/* bulk OUT wMaxPacketSize, not 0 */
	/*
	 * Longest datagram to be sent, 0 = 1514. With the NDP in front, its
	 * room shrinks until one such datagram fits in an empty NTB.
	 */
	uint32_t max_dgram_len;
	/* Quirks. */
	bool ndp_at_end;	/* NDP after the datagrams (Huawei) */
	bool zlp;		/* ZLP, not a pad byte, after multiples */
	bool raw_remainder;	/* align datagram start, not payload */
	/*
	 * MBIM: IPS NDPs of raw IP datagrams (ch39x_ncm_tx_check_ips and
	 * ch39x_ncm_tx_add_ips). Datagrams have no Ethernet header, so the
	 * remainder places the datagram's start, as Linux cdc_ncm does for
	 * MBIM functions (cdc_ncm_eth_hlen() is 0 there).
	 */
	bool ips;
};

/*
 * Fill a TX config from the device's NTB parameters (host side, wNdpOut*)
 * with the defaults: NDP first, pad byte, payload alignment.
 */
void ch39x_ncm_tx_cfg_from_params(struct ch39x_ncm_tx_cfg *c,
				  const struct ch39x_ncm_ntb_params *p,
				  bool ntb32, uint16_t maxp);

/* Why an NTB was closed. */
enum ch39x_ncm_close {
	CH39X_NCM_CLOSE_BURST = 0,	/* no more datagrams (flush) */
	CH39X_NCM_CLOSE_FULL,		/* next datagram did not fit */
	CH39X_NCM_CLOSE_MAX_DGRAMS,	/* wNtbOutMaxDatagrams reached */
	CH39X_NCM_CLOSE_NDP_FULL,	/* our NDP room reached */
	CH39X_NCM_CLOSE_SESSION,	/* MBIM: the next is another session's */
};

/* What ch39x_ncm_tx_check says about one more datagram. */
enum ch39x_ncm_fit {
	CH39X_NCM_FIT_OK = 0,
	CH39X_NCM_FIT_FULL,		/* close this NTB, retry in next */
	CH39X_NCM_FIT_MAX_DGRAMS,	/* same */
	CH39X_NCM_FIT_NDP_FULL,		/* same */
	CH39X_NCM_FIT_TOO_BIG,		/* never fits, even alone: drop */
	CH39X_NCM_FIT_BAD_LEN,		/* zero length: drop */
	CH39X_NCM_FIT_SESSION,		/* MBIM: another session; close, retry */
};

struct ch39x_ncm_tx_stats {
	uint64_t ntbs;
	uint64_t dgrams;
	uint64_t dgram_bytes;
	uint64_t overhead;	/* NTB bytes that are not datagram bytes */
	uint64_t pad_bytes;	/* short-packet pad bytes (in overhead) */
	uint64_t zlps;
	uint64_t close_full;		/* Linux tx_reason_ntb_full */
	uint64_t close_max_dgrams;	/* tx_reason_max_datagram */
	uint64_t close_ndp_full;	/* tx_reason_ndp_full */
	uint64_t close_burst;		/* as tx_reason_timeout */
	uint64_t close_session;		/* MBIM: session changed */
};

/*
 * The TX builder: a persistent context (sanitised config, wSequence,
 * stats) and the NTB being filled in a caller buffer of
 * ch39x_ncm_tx_buf_size() bytes.
 */
struct ch39x_ncm_tx {
	/* Sanitised configuration. */
	bool ntb32;
	bool ndp_at_end;
	bool zlp;
	bool ips;
	uint8_t session;	/* MBIM: the current NTB's IP session */
	uint32_t limit;		/* NTB bytes before a short-packet pad */
	uint32_t dev_max;	/* dwNtbOutMaxSize as used */
	uint16_t divisor;
	uint16_t dgram_rem;	/* datagram start offset modulo divisor */
	uint16_t ndp_align;
	uint16_t dev_max_dgrams;	/* 0 = none */
	uint16_t max_entries;	/* datagrams per NDP (our room) */
	uint16_t maxp;
	uint16_t seq;		/* wSequence of the next NTB */
	/* Derived at init, for the per-datagram path. */
	uint32_t empty;		/* bytes of an NTB with no datagram yet */
	uint32_t first;		/* where its first datagram starts */
	uint32_t max_dgram;	/* ch39x_ncm_tx_max_dgram() */
	uint32_t ent_off;	/* front NDP: offset of its first entry */
	/*
	 * Front NDP: datagrams at least this long zero the alignment gap
	 * before them with one 8-byte store (8 with a divisor of at most 8,
	 * whose gaps are at most 7 bytes; UINT32_MAX, never, above).
	 */
	uint32_t gap_store_min;
	/* divisor - 1 and dgram_rem + divisor, for dgram_start(). */
	uint32_t div_mask;
	uint32_t rem_div;
	/*
	 * Written once at init, for the close of each NTB: the NTH's first
	 * 6 bytes (signature, wHeaderLength), the NDP's signature (an ips
	 * builder's takes the session at close), the NTH, NDP header and
	 * entry lengths, and the front NDP's room (all entries and the null).
	 */
	uint64_t nth_tpl;
	uint32_t ndp_sign;
	uint8_t nth_len;
	uint8_t ndp_hdr;
	uint8_t dpe;
	uint32_t ndp_room;
	struct ch39x_ncm_tx_stats stats;
	/* Current NTB. */
	uint8_t *buf;
	uint32_t len;		/* bytes used so far */
	uint64_t next;		/* where a datagram added now would start */
	uint8_t *ent;		/* front NDP: where the next entry goes */
	uint32_t ndp_off;	/* NDP offset when placed in front */
	uint32_t payload;	/* datagram bytes */
	uint16_t n;		/* datagrams */
	enum ch39x_ncm_fit refused;	/* last refusal since the last add */
	/*
	 * NDP at the end: the entries wait here for finish, which alone
	 * knows where the NDP goes. A front NDP's entries are written in
	 * place as each datagram is added.
	 */
	uint32_t ent_idx[CH39X_NCM_TX_MAX_DGRAMS];
	uint32_t ent_len[CH39X_NCM_TX_MAX_DGRAMS];
};

/*
 * Sanitise c into t and reset the sequence number and stats. Returns 0, or
 * -1 when even one 14-byte datagram cannot fit (maxp 0, tiny size).
 */
int ch39x_ncm_tx_init(struct ch39x_ncm_tx *t, const struct ch39x_ncm_tx_cfg *c);
/* Bytes a buffer needs: the NTB limit plus a possible pad byte. */
uint32_t ch39x_ncm_tx_buf_size(const struct ch39x_ncm_tx *t);
/* Largest datagram an empty NTB holds. */
uint32_t ch39x_ncm_tx_max_dgram(const struct ch39x_ncm_tx *t);
/*
 * Start an NTB in buf. Nothing is written until the datagrams come: the
 * NTH and the NDP's header and room are written (and zeroed) at finish.
 */
void ch39x_ncm_tx_begin(struct ch39x_ncm_tx *t, uint8_t *buf);
/* Whether a datagram of len bytes may be added now, and if not why. */
enum ch39x_ncm_fit ch39x_ncm_tx_check(struct ch39x_ncm_tx *t, uint32_t len);

/*
 * First offset at or after cur where a datagram may start: the smallest
 * s >= cur with s % divisor == dgram_rem.
 */
static inline uint64_t
ch39x_ncm_tx_dgram_start(const struct ch39x_ncm_tx *t, uint64_t cur)
{
	uint32_t mask = t->div_mask;

	return cur + ((t->rem_div - (cur & mask)) & mask);
}

/*
 * Whether a datagram of len bytes goes after the last one in the common
 * case: a front NDP with room, the datagram within the NTB. False says
 * nothing more (ch39x_ncm_tx_check() tells).
 */
static inline bool
ch39x_ncm_tx_fits_fast(const struct ch39x_ncm_tx *t, uint32_t len)
{
	return !t->ndp_at_end && len != 0 && t->n < t->max_entries &&
		t->next + len <= t->limit;
}

/*
 * ch39x_ncm_tx_check() == CH39X_NCM_FIT_OK, with the common case
 * answered inline, and the refusal that closes a full NTB too (once per
 * NTB when frames are long: 4 in a burst of 32 x 1514 bytes in 16 KiB);
 * anything else by the full check. That refusal: a front NDP with room
 * and a datagram of a size an empty NTB takes (1..max_dgram), so that
 * the fast answer's no can only be its last test, the NTB's end: the
 * full check's FIT_FULL (its FIT_MAX_DGRAMS cannot be, as max_entries
 * is at most dev_max_dgrams when the device sets one; init), recorded
 * as it would.
 */
static inline bool
ch39x_ncm_tx_fits(struct ch39x_ncm_tx *t, uint32_t len)
{
	if (__builtin_expect(ch39x_ncm_tx_fits_fast(t, len), 1))
		return true;
	if (!t->ndp_at_end && len - 1u < t->max_dgram &&
	    t->n < t->max_entries) {
		t->refused = CH39X_NCM_FIT_FULL;
		return false;
	}
	return ch39x_ncm_tx_check(t, len) == CH39X_NCM_FIT_OK;
}

/* ch39x_ncm_tx_add() of an NTB whose NDP goes at the end. */
uint8_t *ch39x_ncm_tx_add_end(struct ch39x_ncm_tx *t, uint32_t len);

/*
 * A datagram of len bytes into a front NDP's NTB, where it fits: the
 * alignment gap zeroed, its entry written at once (the table is written
 * in one pass, never read back).
 */
static inline uint8_t *
ch39x_ncm_tx_add_front(struct ch39x_ncm_tx *t, uint32_t len)
{
	uint32_t s = (uint32_t)t->next;

	/*
	 * The alignment gap, shorter than the divisor: one 8-byte store
	 * when the divisor is at most 8 and the datagram that follows
	 * (whose bytes the caller writes over the store's rest) at least 8
	 * bytes long, else memset. The store is made whether there is a
	 * gap or not (with none, the datagram covers it all: len + the gap
	 * >= 8 keeps it inside the NTB), so that a 1514-byte frame's 2-byte
	 * gap (divisor 4) costs what a 64-byte frame's none does: one
	 * compare against a bound set at init and the store.
	 */
	if (__builtin_expect(len >= t->gap_store_min, 1)) {
		uint64_t z = 0;

		memcpy(t->buf + t->len, &z, sizeof(z));
	} else if (s != t->len) {
		memset(t->buf + t->len, 0, s - t->len);
	}
	if (t->ntb32) {
		ch39x_put_le32(t->ent, s);
		ch39x_put_le32(t->ent + 4, len);
		t->ent += CH39X_NCM_DPE32_LEN;
	} else {
		/* wDatagramIndex and wDatagramLength in one store. */
		ch39x_put_le32(t->ent, s | len << 16);
		t->ent += CH39X_NCM_DPE16_LEN;
	}
	t->n++;
	t->len = s + len;
	t->next = ch39x_ncm_tx_dgram_start(t, t->len);
	t->payload += len;
	t->refused = CH39X_NCM_FIT_OK;
	return t->buf + s;
}

/*
 * Reserve a datagram of len bytes (after a successful check) and return
 * where its bytes go; the caller copies them. Alignment gaps are zeroed.
 */
static inline uint8_t *
ch39x_ncm_tx_add(struct ch39x_ncm_tx *t, uint32_t len)
{
	if (__builtin_expect(t->ndp_at_end, 0))
		return ch39x_ncm_tx_add_end(t, len);
	return ch39x_ncm_tx_add_front(t, len);
}

/*
 * Check and add in one, for the common case: where the datagram goes, or
 * NULL, having changed nothing, when ch39x_ncm_tx_fits_fast() says no
 * (then ch39x_ncm_tx_check() and ch39x_ncm_tx_add() as ever).
 */
static inline uint8_t *
ch39x_ncm_tx_try_add(struct ch39x_ncm_tx *t, uint32_t len)
{
	if (__builtin_expect(!ch39x_ncm_tx_fits_fast(t, len), 0))
		return NULL;
	return ch39x_ncm_tx_add_front(t, len);
}

/*
 * MBIM (an ips builder): as ch39x_ncm_tx_check() and ch39x_ncm_tx_add() for a datagram of IP session
 * session. One NTB carries one session's NDP: a datagram of another
 * session than the NTB's first is refused with CH39X_NCM_FIT_SESSION (the
 * caller closes the NTB and adds it to the next one). The session-blind
 * ch39x_ncm_tx_try_add() is not for an ips builder.
 */
enum ch39x_ncm_fit ch39x_ncm_tx_check_ips(struct ch39x_ncm_tx *t,
					  uint32_t len, uint8_t session);
uint8_t *ch39x_ncm_tx_add_ips(struct ch39x_ncm_tx *t, uint32_t len,
			      uint8_t session);

struct ch39x_ncm_tx_end {
	uint32_t len;		/* bytes to send, 0 = nothing (empty) */
	bool zlp;		/* send a zero-length packet after them */
	bool padded;		/* one zero byte added to avoid the ZLP */
	uint16_t dgrams;
	enum ch39x_ncm_close reason;
};

/*
 * Close the NTB: write the NDP and the NTH (wSequence, wBlockLength) and
 * apply the short-packet rule. The close reason is the last refusal of
 * ch39x_ncm_tx_check since the last add, else the datagram limits when
 * reached, else end of burst. An empty NTB gives len 0 and uses no
 * sequence number.
 */
struct ch39x_ncm_tx_end ch39x_ncm_tx_finish(struct ch39x_ncm_tx *t);

/* ---- RX (bulk IN on a host, bulk OUT on a device model) ---- */

/* NDPs followed per NTB (Linux cdc_ncm_rx_fixup: loopcount 50). */
#define CH39X_NCM_RX_MAX_NDPS	50

struct ch39x_ncm_rx_cfg {
	bool ntb32;		/* the format selected with SET_NTB_FORMAT */
	/*
	 * MBIM: IPS NDPs are read (each datagram with its session) and NCM
	 * and DSS ones skipped; else the reverse.
	 */
	bool ips;
	uint32_t max_ntb;	/* longest block accepted (rx_max), 0 = any */
	uint32_t min_dgram;	/* 0 = 14 (ETH_HLEN, as Linux); ips: 20 */
	uint32_t max_dgram;	/* 0 = no limit besides the block */
};

struct ch39x_ncm_rx_stats {
	uint64_t ntbs;		/* NTBs with a valid NTH */
	uint64_t ntb_bytes;	/* their block bytes */
	uint64_t dgrams;
	uint64_t dgram_bytes;
	/* NTBs dropped whole. */
	uint64_t short_ntb;	/* shorter than an NTH */
	uint64_t bad_nth_sig;
	uint64_t bad_hdr_len;	/* wHeaderLength not 12/16 */
	uint64_t bad_block_len;	/* > transfer, > max_ntb or < NTH */
	/* NDPs. */
	uint64_t bad_ndp_index;	/* unaligned, in the NTH, past block */
	uint64_t bad_ndp_len;	/* wLength short, ragged, past block */
	uint64_t ndp_sig_skipped; /* not NCM0/ncm0 (CRC, MBIM...) or, ips,
				   * not IPS/ips (DSS, NCM): skipped */
	uint64_t ndp_loops;	/* chain revisits an NDP or > cap */
	uint64_t ndp_no_null;	/* no null entry within wLength */
	uint64_t empty_ndp;	/* first entry null (Linux: "empty NTB") */
	/* Datagram entries, each counted and skipped. */
	uint64_t bad_dgram;	/* off block, in NTH, too long/short */
	uint64_t zero_len_dgram; /* index set, length 0: ends the NDP */
	uint64_t zero_idx_dgram; /* length set, index 0: ends the NDP */
	uint64_t seq_gaps;	/* wSequence not previous + 1 */
};

struct ch39x_ncm_dgram {
	const uint8_t *data;	/* inside the transfer buffer */
	uint32_t len;
	uint32_t offset;	/* from the start of the NTB */
	uint8_t session;	/* MBIM: the NDP's IP session; NCM: 0 */
};

/*
 * The RX parser: ch39x_ncm_rx_begin() checks the NTH of one completed
 * transfer, ch39x_ncm_rx_next() walks the NDP chain and yields each valid
 * datagram (pointing into the buffer, valid while it is). Every index and
 * length is checked against the block before it is used. Decisions:
 * - a bad entry is counted and skipped and the NDP goes on (Linux stops
 *   the NDP there); an entry with a zero index or length ends the NDP;
 * - a bad NDP (index or wLength) ends the chain; an NDP with another
 *   signature is skipped and its wNextNdpIndex followed (as Linux);
 * - each NDP is read at most once and at most 50 per NTB (loops);
 * - datagrams may overlap each other or an NDP: allowed and not counted,
 *   as in Linux and FreeBSD. They are read-only views inside the block,
 *   and checking every pair would cost O(n^2) per NTB;
 * - an NTB must arrive in one transfer (the buffer at least the
 *   dwNtbInMaxSize set with SET_NTB_INPUT_SIZE); a block longer than the
 *   transfer is counted in bad_block_len and dropped.
 */
struct ch39x_ncm_rx {
	struct ch39x_ncm_rx_cfg cfg;
	struct ch39x_ncm_rx_stats stats;
	uint16_t last_seq;
	bool seq_valid;
	/* Current NTB. */
	const uint8_t *buf;
	uint32_t block;		/* bytes of the NTB being parsed */
	uint32_t hdr_len;
	uint32_t next_ndp;	/* next NDP offset, 0 = none */
	uint32_t entry;		/* next entry in the current NDP */
	uint32_t entry_end;	/* end of the current NDP (wLength) */
	bool in_ndp;
	bool first_entry;
	uint8_t session;	/* of the open NDP (ips) */
	uint32_t n_ndps;
	uint32_t ndps[CH39X_NCM_RX_MAX_NDPS];
};

void ch39x_ncm_rx_init(struct ch39x_ncm_rx *rx,
		       const struct ch39x_ncm_rx_cfg *cfg);
/*
 * Start on one bulk transfer of len bytes. Returns 0, or -1 when the NTB
 * is dropped whole (counted); ch39x_ncm_rx_next then yields nothing.
 */
int ch39x_ncm_rx_begin(struct ch39x_ncm_rx *rx, const uint8_t *buf,
		       uint32_t len);
/* Returns 1 and fills *d, or 0 when the NTB is used up. */
int ch39x_ncm_rx_next(struct ch39x_ncm_rx *rx, struct ch39x_ncm_dgram *d);
/*
 * Up to max datagrams at once into d[]: what as many calls of
 * ch39x_ncm_rx_next() would yield, with the same checks and counters.
 * The entries of an open NDP that describe good datagrams are read in
 * one loop, each field once, the counters added once per call; the
 * others (a null entry, a bad one) go through ch39x_ncm_rx_next(); the
 * next NDP is opened in the batch. Returns how many, 0 when the NTB is
 * used up.
 */
unsigned int ch39x_ncm_rx_burst(struct ch39x_ncm_rx *rx,
				struct ch39x_ncm_dgram *d, unsigned int max);
/*
 * Whether the NTB has nothing more to yield: no NDP open and none next
 * (the next ch39x_ncm_rx_next() or ch39x_ncm_rx_burst() would return 0),
 * so that a caller that got a short batch need not ask again.
 */
static inline bool
ch39x_ncm_rx_used_up(const struct ch39x_ncm_rx *rx)
{
	return !rx->in_ndp && rx->next_ndp == 0;
}
/* Forget the sequence number (after a stop or a data interface reset). */
void ch39x_ncm_rx_reset_seq(struct ch39x_ncm_rx *rx);

#endif /* CH39X_NCM_H */
