/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the MBIM control message codec (ch39x_mbim.h) with what an
 * untrusted modem (or, for the simulated modem, an untrusted host) sends
 * over the control pipe.
 *
 * Byte 0 bits 0-1 choose the mode.
 *
 * 0, one message: the rest is a control transfer. ch39x_mbim_parse must
 *    keep everything it reports inside the bytes; the information buffer
 *    of a COMMAND, COMMAND_DONE or INDICATE_STATUS goes through every
 *    information buffer parser, whatever its CID.
 * 1, fragments: byte 1 bits 0-3: transfers - 1 (1..16); bytes 2-3 LE the
 *    reassembly buffer's size (taken modulo 16385); then 2 bytes LE per
 *    transfer but the last: its length, modulo (bytes left + 1); the rest
 *    the transfers. Each goes through ch39x_mbim_reasm_add; a message it
 *    yields is checked and parsed as in mode 0.
 * 2, round trip: byte 1 the structure, bytes 2-3 LE MaxControlTransfer,
 *    the rest its fields (4 bytes LE each) and strings (NUL-separated,
 *    taken as UTF-8) or, for the IP configuration, its counts (one
 *    4-byte word, a count a byte), fields and addresses in order. The
 *    structure built into an information buffer must parse back
 *    identical; its COMMAND, cut into fragments and put back together,
 *    must give the same message.
 * 3, information buffers: byte 1 the parser, the rest its buffer.
 *
 * Every transfer and buffer is an exactly sized heap copy.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_mbim.h"
#include "ch39x_vendor.h"	/* ch39x_get_le32() */
#include "fuzz.h"

#define MAX_XFERS 16

/* A parsed string: NUL-terminated inside its field. */
#define STR_OK(s) FUZZ_CHECK(memchr((s), '\0', sizeof(s)) != NULL)

/* ---- Information buffer parsers ---- */

/* A refused buffer leaves the struct zeroed. */
static void
check_zero(int r, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	FUZZ_CHECK(r == 0 || r == -1);
	if (r == 0)
		return;
	for (i = 0; i < n; i++)
		FUZZ_CHECK(b[i] == 0);
}

static void
parse_info(unsigned int which, const uint8_t *info, uint32_t len)
{
	union {
		struct ch39x_mbim_caps caps;
		struct ch39x_mbim_subscriber sub;
		struct ch39x_mbim_radio radio;
		struct ch39x_mbim_register reg;
		struct ch39x_mbim_register_set rset;
		struct ch39x_mbim_packet pk;
		struct ch39x_mbim_signal sig;
		struct ch39x_mbim_connect_set cs;
		struct ch39x_mbim_connect conn;
		struct ch39x_mbim_ipcfg ip;
	} u;
	uint32_t v;
	int r;

	memset(&u, 0xA5, sizeof(u));
	switch (which % 11) {
	case 0:
		r = ch39x_mbim_caps_parse(info, len, &u.caps);
		check_zero(r, &u.caps, sizeof(u.caps));
		STR_OK(u.caps.custom_data_class);
		STR_OK(u.caps.device_id);
		STR_OK(u.caps.firmware);
		STR_OK(u.caps.hardware);
		break;
	case 1:
		r = ch39x_mbim_subscriber_parse(info, len, &u.sub);
		check_zero(r, &u.sub, sizeof(u.sub));
		STR_OK(u.sub.subscriber_id);
		STR_OK(u.sub.sim_iccid);
		STR_OK(u.sub.number);
		/* Every number's pair was inside the buffer. */
		if (r == 0)
			FUZZ_CHECK(28 + 8ull * u.sub.n_numbers <= len);
		break;
	case 2:
		r = ch39x_mbim_radio_parse(info, len, &u.radio);
		check_zero(r, &u.radio, sizeof(u.radio));
		FUZZ_CHECK(r == (len >= 8 ? 0 : -1));
		break;
	case 3:
		r = ch39x_mbim_register_parse(info, len, &u.reg);
		check_zero(r, &u.reg, sizeof(u.reg));
		STR_OK(u.reg.provider_id);
		STR_OK(u.reg.provider_name);
		STR_OK(u.reg.roaming_text);
		break;
	case 4:
		r = ch39x_mbim_register_set_parse(info, len, &u.rset);
		check_zero(r, &u.rset, sizeof(u.rset));
		STR_OK(u.rset.provider_id);
		break;
	case 5:
		r = ch39x_mbim_packet_parse(info, len, &u.pk);
		check_zero(r, &u.pk, sizeof(u.pk));
		FUZZ_CHECK(r == (len >= 28 ? 0 : -1));
		break;
	case 6:
		r = ch39x_mbim_signal_parse(info, len, &u.sig);
		check_zero(r, &u.sig, sizeof(u.sig));
		break;
	case 7:
		r = ch39x_mbim_connect_set_parse(info, len, &u.cs);
		check_zero(r, &u.cs, sizeof(u.cs));
		STR_OK(u.cs.apn);
		STR_OK(u.cs.user);
		STR_OK(u.cs.password);
		break;
	case 8:
		r = ch39x_mbim_connect_parse(info, len, &u.conn);
		check_zero(r, &u.conn, sizeof(u.conn));
		FUZZ_CHECK(r == (len >= CH39X_MBIM_CONNECT_INFO_LEN ? 0 : -1));
		break;
	case 9:
		r = ch39x_mbim_ipcfg_parse(info, len, &u.ip);
		check_zero(r, &u.ip, sizeof(u.ip));
		FUZZ_CHECK(u.ip.n_v4 <= CH39X_MBIM_IPCFG_MAX_ADDR &&
			   u.ip.n_v6 <= CH39X_MBIM_IPCFG_MAX_ADDR &&
			   u.ip.n_v4_dns <= CH39X_MBIM_IPCFG_MAX_DNS &&
			   u.ip.n_v6_dns <= CH39X_MBIM_IPCFG_MAX_DNS);
		if (r == 0) {
			/* What was kept came from inside: same bytes. */
			if (u.ip.have_v4_gw)
				FUZZ_CHECK(memcmp(u.ip.v4_gw, info +
						  ch39x_get_le32(info + 28),
						  4) == 0);
			if (u.ip.n_v4_dns)
				FUZZ_CHECK(memcmp(u.ip.v4_dns[0], info +
						  ch39x_get_le32(info + 40),
						  4) == 0);
		}
		break;
	default:
		r = ch39x_mbim_u32_parse(info, len, &v);
		FUZZ_CHECK(r == (len >= 4 ? 0 : -1));
		break;
	}
}

/* ---- Messages ---- */

static void
check_msg(const uint8_t *b, uint32_t len)
{
	struct ch39x_mbim_msg m;
	unsigned int k;
	int r;

	r = ch39x_mbim_parse(b, len, &m);
	FUZZ_CHECK(r <= 0 && r >= CH39X_MBIM_E_FRAGMENT);
	if (r != 0) {
		FUZZ_CHECK(m.info == NULL && m.info_len == 0);
		return;
	}
	FUZZ_CHECK(m.length == len);
	if (m.info_len == 0) {
		FUZZ_CHECK(m.info == NULL);
		return;
	}
	FUZZ_CHECK(ch39x_mbim_fragmented(m.type));
	FUZZ_CHECK(m.info >= b && m.info_len <= len &&
		   (uint32_t)(m.info - b) <= len - m.info_len);
	for (k = 0; k < 11; k++)
		parse_info(k, m.info, m.info_len);
}

static void
run_one(const uint8_t *data, size_t size)
{
	uint8_t *b = fuzz_dup(data + 1, size - 1);

	check_msg(b, (uint32_t)(size - 1));
	free(b);
}

static void
run_frags(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 4, *end = data + size;
	uint32_t lens[MAX_XFERS], cap, tid, err, i, n;
	struct ch39x_mbim_reasm r;
	enum ch39x_mbim_reasm_rc rc;
	uint8_t *buf, *x;
	size_t left;

	if (size < 4)
		return;
	n = (data[1] & 15u) + 1;
	cap = ch39x_get_le16(data + 2) % 16385u;
	if ((size_t)(end - p) < 2u * (n - 1))
		return;
	left = (size_t)(end - p) - 2u * (n - 1);
	for (i = 0; i + 1 < n; i++) {
		lens[i] = (uint32_t)(ch39x_get_le16(p) % (left + 1));
		left -= lens[i];
		p += 2;
	}
	lens[n - 1] = (uint32_t)left;
	buf = malloc(cap ? cap : 1);
	FUZZ_CHECK(buf != NULL);
	ch39x_mbim_reasm_init(&r, buf, cap);
	for (i = 0; i < n; i++) {
		x = fuzz_dup(p, lens[i]);
		p += lens[i];
		rc = ch39x_mbim_reasm_add(&r, x, lens[i], &tid, &err);
		FUZZ_CHECK(r.len <= r.cap && r.cap <= cap);
		switch (rc) {
		case CH39X_MBIM_REASM_DONE:
			FUZZ_CHECK(!r.active && err == 0);
			FUZZ_CHECK(ch39x_get_le32(buf + 4) == r.len);
			FUZZ_CHECK(tid == ch39x_get_le32(buf + 8));
			if (ch39x_mbim_fragmented(ch39x_get_le32(buf)))
				FUZZ_CHECK(ch39x_get_le32(buf + 12) == 1 &&
					   ch39x_get_le32(buf + 16) == 0);
			check_msg(buf, r.len);
			break;
		case CH39X_MBIM_REASM_MORE:
			FUZZ_CHECK(r.active && err == 0);
			FUZZ_CHECK(r.next >= 1 && r.next < r.total);
			break;
		case CH39X_MBIM_REASM_BAD:
			FUZZ_CHECK(err >= CH39X_MBIM_ERR_TIMEOUT_FRAGMENT &&
				   err <= CH39X_MBIM_ERR_MAX_TRANSFER);
			break;
		default:
			FUZZ_CHECK(0);
		}
		free(x);
	}
	FUZZ_CHECK(r.stats.messages >= r.stats.fragmented);
	free(buf);
}

/* ---- Round trip ---- */

/* The next NUL-separated string of the input, cut to fit out. */
static void
take_str(const uint8_t **p, const uint8_t *end, char *out, size_t cap)
{
	size_t n = 0;

	while (*p < end && **p != 0) {
		if (n + 1 < cap)
			out[n++] = (char)**p;
		(*p)++;
	}
	if (*p < end)
		(*p)++;
	out[n] = '\0';
}

static uint32_t
take_u32(const uint8_t **p, const uint8_t *end)
{
	uint32_t v = 0;
	int k;

	for (k = 0; k < 4 && *p < end; k++, (*p)++)
		v |= (uint32_t)**p << (8 * k);
	return v;
}

/* Whether every string of a structure is valid UTF-8 (and fits). */
static bool
utf8_ok(const char *const *strs, unsigned int n)
{
	static uint8_t u[2048];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ch39x_mbim_utf8_to_utf16(strs[i], u, sizeof(u)) < 0)
			return false;
	return true;
}

/*
 * Build the structure a (n: the length, 0 when not built), parse it from
 * an exactly sized copy into b, and build b again: the same bytes.
 */
#define RT(build, parse, a, b)						\
	do {								\
		n = build(info, sizeof(info), &(a));			\
		if (n == 0)						\
			break;						\
		x = fuzz_dup(info, n);					\
		FUZZ_CHECK(parse(x, n, &(b)) == 0);			\
		FUZZ_CHECK(build(again, sizeof(again), &(b)) == n);	\
		FUZZ_CHECK(memcmp(again, info, n) == 0);		\
		free(x);						\
	} while (0)

static void
run_round_trip(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 4, *end = data + size;
	static uint8_t info[4096], again[4096], msg[4200], frag[4200];
	static uint8_t back[8192];
	struct ch39x_mbim_connect_set cs, cs2;
	struct ch39x_mbim_register reg, reg2;
	struct ch39x_mbim_caps caps, caps2;
	struct ch39x_mbim_ipcfg ip, ip2;
	uint32_t n = 0, len, nf, i, k, max_ctrl, tid, err;
	enum ch39x_mbim_reasm_rc rc = CH39X_MBIM_REASM_BAD;
	struct ch39x_mbim_reasm r;
	uint8_t *x;

	if (size < 4)
		return;
	max_ctrl = ch39x_get_le16(data + 2);
	switch (data[1] % 4) {
	case 0:
		memset(&cs, 0, sizeof(cs));
		memset(&cs2, 0, sizeof(cs2));
		cs.session_id = take_u32(&p, end);
		cs.auth = take_u32(&p, end);
		take_str(&p, end, cs.apn, sizeof(cs.apn));
		take_str(&p, end, cs.user, sizeof(cs.user));
		take_str(&p, end, cs.password, sizeof(cs.password));
		RT(ch39x_mbim_connect_set_build, ch39x_mbim_connect_set_parse,
		   cs, cs2);
		FUZZ_CHECK((n != 0) == utf8_ok((const char *const[]){
			cs.apn, cs.user, cs.password }, 3));
		if (n)
			FUZZ_CHECK(strcmp(cs.apn, cs2.apn) == 0 &&
				   strcmp(cs.password, cs2.password) == 0 &&
				   cs.session_id == cs2.session_id);
		break;
	case 1:
		memset(&reg, 0, sizeof(reg));
		reg.state = take_u32(&p, end);
		take_str(&p, end, reg.provider_id, sizeof(reg.provider_id));
		take_str(&p, end, reg.provider_name, sizeof(reg.provider_name));
		take_str(&p, end, reg.roaming_text, sizeof(reg.roaming_text));
		RT(ch39x_mbim_register_build, ch39x_mbim_register_parse, reg,
		   reg2);
		FUZZ_CHECK((n != 0) == utf8_ok((const char *const[]){
			reg.provider_id, reg.provider_name, reg.roaming_text },
			3));
		break;
	case 2:
		memset(&caps, 0, sizeof(caps));
		caps.data_class = take_u32(&p, end);
		take_str(&p, end, caps.device_id, sizeof(caps.device_id));
		take_str(&p, end, caps.firmware, sizeof(caps.firmware));
		take_str(&p, end, caps.hardware, sizeof(caps.hardware));
		take_str(&p, end, caps.custom_data_class,
			 sizeof(caps.custom_data_class));
		RT(ch39x_mbim_caps_build, ch39x_mbim_caps_parse, caps, caps2);
		FUZZ_CHECK((n != 0) == utf8_ok((const char *const[]){
			caps.device_id, caps.firmware, caps.hardware,
			caps.custom_data_class }, 4));
		break;
	default:
		memset(&ip, 0, sizeof(ip));
		ip.session_id = take_u32(&p, end);
		ip.v4_avail = take_u32(&p, end);
		ip.v6_avail = take_u32(&p, end);
		k = take_u32(&p, end);
		ip.n_v4 = k % (CH39X_MBIM_IPCFG_MAX_ADDR + 1);
		ip.n_v6 = (k >> 8) % (CH39X_MBIM_IPCFG_MAX_ADDR + 1);
		ip.n_v4_dns = (k >> 16) % (CH39X_MBIM_IPCFG_MAX_DNS + 1);
		ip.n_v6_dns = (k >> 24) % (CH39X_MBIM_IPCFG_MAX_DNS + 1);
		ip.have_v4_gw = (ip.v4_avail & CH39X_MBIM_IPCFG_GATEWAY) != 0;
		ip.have_v6_gw = (ip.v6_avail & CH39X_MBIM_IPCFG_GATEWAY) != 0;
		ip.v4_mtu = take_u32(&p, end);
		ip.v6_mtu = take_u32(&p, end);
		/* Addresses from the rest; what no element uses stays 0. */
		for (i = 0; i < ip.n_v4; i++) {
			ip.v4[i].prefix_len = take_u32(&p, end);
			k = take_u32(&p, end);
			memcpy(ip.v4[i].addr, &k, 4);
		}
		for (i = 0; i < ip.n_v6; i++) {
			ip.v6[i].prefix_len = take_u32(&p, end);
			for (k = 0; k < 16 && p < end; k++)
				ip.v6[i].addr[k] = *p++;
		}
		for (i = 0; i < ip.n_v4_dns; i++)
			for (k = 0; k < 4 && p < end; k++)
				ip.v4_dns[i][k] = *p++;
		for (i = 0; i < ip.n_v6_dns; i++)
			for (k = 0; k < 16 && p < end; k++)
				ip.v6_dns[i][k] = *p++;
		for (k = 0; ip.have_v4_gw && k < 4 && p < end; k++)
			ip.v4_gw[k] = *p++;
		for (k = 0; ip.have_v6_gw && k < 16 && p < end; k++)
			ip.v6_gw[k] = *p++;
		RT(ch39x_mbim_ipcfg_build, ch39x_mbim_ipcfg_parse, ip, ip2);
		FUZZ_CHECK(n != 0);
		FUZZ_CHECK(memcmp(&ip, &ip2, sizeof(ip)) == 0);
		break;
	}
	if (n == 0)
		return;

	/* As a COMMAND, through fragments and back. */
	len = ch39x_mbim_build_command(msg, sizeof(msg), 77,
				       ch39x_mbim_uuid_basic_connect, data[1],
				       CH39X_MBIM_SET, info, n);
	FUZZ_CHECK(len == CH39X_MBIM_COMMAND_LEN + n);
	nf = ch39x_mbim_frag_count(msg, len, max_ctrl);
	if (max_ctrl < CH39X_MBIM_CTRL_MIN) {
		FUZZ_CHECK(nf == 0);
		return;
	}
	FUZZ_CHECK(nf >= 1);
	FUZZ_CHECK(nf == (len <= max_ctrl ? 1 : (len - 20 + max_ctrl - 21) /
			  (max_ctrl - 20)));
	ch39x_mbim_reasm_init(&r, back, sizeof(back));
	for (i = 0; i < nf; i++) {
		k = ch39x_mbim_frag_build(msg, len, max_ctrl, i, frag,
					  sizeof(frag));
		FUZZ_CHECK(k >= CH39X_MBIM_FRAG_HDR_LEN && k <= max_ctrl);
		if (i + 1 < nf)
			FUZZ_CHECK(k == max_ctrl);
		x = fuzz_dup(frag, k);
		rc = ch39x_mbim_reasm_add(&r, x, k, &tid, &err);
		free(x);
		FUZZ_CHECK(rc == (i + 1 < nf ? CH39X_MBIM_REASM_MORE :
				  CH39X_MBIM_REASM_DONE));
	}
	FUZZ_CHECK(tid == 77 && r.len == len);
	FUZZ_CHECK(memcmp(back, msg, len) == 0);
	FUZZ_CHECK(ch39x_mbim_frag_build(msg, len, max_ctrl, nf, frag,
					 sizeof(frag)) == 0);
}

static void
run_infos(const uint8_t *data, size_t size)
{
	uint8_t *b;

	if (size < 2)
		return;
	b = fuzz_dup(data + 2, size - 2);
	parse_info(data[1], b, (uint32_t)(size - 2));
	free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	switch (data[0] & 3) {
	case 0:
		run_one(data, size);
		break;
	case 1:
		run_frags(data, size);
		break;
	case 2:
		run_round_trip(data, size);
		break;
	default:
		run_infos(data, size);
		break;
	}
	return 0;
}
