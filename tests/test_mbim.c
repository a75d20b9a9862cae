/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Unit tests for the MBIM control message codec (lib/ch39x/ch39x_mbim.c).
 * The expected messages are written out by hand from the layouts of
 * §22-§23 (offsets worked out in the comments), never produced by the code
 * under test; every input to a parser is an exactly sized heap copy, so
 * that the sanitizer build catches a read past it.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_mbim.h"
#include "ch39x_mbim_eth.h"
#include "ch39x_nd.h"

#include "check.h"

#define BYTES(...) ((const uint8_t[]){ __VA_ARGS__ })
#define NBYTES(...) sizeof((const uint8_t[]){ __VA_ARGS__ })

/* Basic Connect, as it appears on the wire. */
#define BC_UUID 0xa2, 0x89, 0xcc, 0x33, 0xbc, 0xbb, 0x8b, 0x4f, \
	0xb6, 0xb0, 0x13, 0x3e, 0xc2, 0xaa, 0xe6, 0xdf
#define INTERNET_UUID 0x7e, 0x5e, 0x2a, 0x7e, 0x4e, 0x6f, 0x72, 0x72, \
	0x73, 0x6b, 0x65, 0x6e, 0x7e, 0x5e, 0x2a, 0x7e

static int
parse_exact(const uint8_t *v, uint32_t n, struct ch39x_mbim_msg *m,
	    uint8_t **keep)
{
	uint8_t *b = dup_exact(v, n);
	int r = ch39x_mbim_parse(b, n, m);

	*keep = b;
	return r;
}

/* ---- OPEN, CLOSE, their answers ---- */

static void
test_open_close(void)
{
	static const uint8_t open[] = {
		0x01, 0x00, 0x00, 0x00,		/* OPEN_MSG */
		0x10, 0x00, 0x00, 0x00,		/* 16 bytes */
		0x07, 0x00, 0x00, 0x00,		/* transaction 7 */
		0x00, 0x10, 0x00, 0x00,		/* MaxControlTransfer 4096 */
	};
	static const uint8_t done[] = {
		0x01, 0x00, 0x00, 0x80, 0x10, 0x00, 0x00, 0x00,
		0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t close_msg[] = {
		0x02, 0x00, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x00,
		0x08, 0x00, 0x00, 0x00,
	};
	struct ch39x_mbim_msg m;
	uint8_t b[64], *k;

	CHECK_EQ(ch39x_mbim_build_open(b, sizeof(b), 7, 4096), 16);
	CHECK_MEM(b, open, 16);
	CHECK_EQ(ch39x_mbim_build_open(b, 15, 7, 4096), 0);
	CHECK_EQ(ch39x_mbim_build_status(b, sizeof(b), CH39X_MBIM_OPEN_DONE,
					 7, 0), 16);
	CHECK_MEM(b, done, 16);
	CHECK_EQ(ch39x_mbim_build_close(b, sizeof(b), 8), 12);
	CHECK_MEM(b, close_msg, 12);

	CHECK_EQ(parse_exact(open, 16, &m, &k), 0);
	CHECK_EQ(m.type, CH39X_MBIM_OPEN_MSG);
	CHECK_EQ(m.tid, 7);
	CHECK_EQ(m.max_ctrl, 4096);
	free(k);
	CHECK_EQ(parse_exact(done, 16, &m, &k), 0);
	CHECK_EQ(m.type, CH39X_MBIM_OPEN_DONE);
	CHECK_EQ(m.status, 0);
	free(k);
	/* Too short for its type, a wrong length, an unknown type. */
	CHECK_EQ(parse_exact(open, 12, &m, &k), CH39X_MBIM_E_LENGTH);
	free(k);
	CHECK_EQ(parse_exact(open, 11, &m, &k), CH39X_MBIM_E_SHORT);
	free(k);
	memcpy(b, open, 16);
	b[4] = 12;
	CHECK_EQ(parse_exact(b, 12, &m, &k), CH39X_MBIM_E_SHORT);
	free(k);
	b[0] = 0x09;
	b[4] = 16;
	CHECK_EQ(parse_exact(b, 16, &m, &k), CH39X_MBIM_E_TYPE);
	free(k);
}

/* ---- COMMAND: CONNECT set ---- */

/*
 * CONNECT set, session 1, activate, APN "internet", PAP, IPv4, Internet
 * context: 60 bytes of fields, then "internet" in UTF-16LE (16 bytes) at
 * 60; user and password empty: (0, 0). Information buffer 76 bytes,
 * message 48 + 76 = 124.
 */
static const uint8_t connect_set_msg[] = {
	0x03, 0x00, 0x00, 0x00, 0x7C, 0x00, 0x00, 0x00,	/* COMMAND, 124 */
	0x05, 0x00, 0x00, 0x00,				/* transaction 5 */
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* fragment 0 of 1 */
	BC_UUID,
	0x0C, 0x00, 0x00, 0x00,				/* CONNECT */
	0x01, 0x00, 0x00, 0x00,				/* set */
	0x4C, 0x00, 0x00, 0x00,				/* 76 bytes */
	0x01, 0x00, 0x00, 0x00,				/* session 1 */
	0x01, 0x00, 0x00, 0x00,				/* activate */
	0x3C, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,	/* APN (60, 16) */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* user */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* password */
	0x00, 0x00, 0x00, 0x00,				/* no compression */
	0x01, 0x00, 0x00, 0x00,				/* PAP */
	0x01, 0x00, 0x00, 0x00,				/* IPv4 */
	INTERNET_UUID,
	'i', 0, 'n', 0, 't', 0, 'e', 0, 'r', 0, 'n', 0, 'e', 0, 't', 0,
};

static void
test_connect_set(void)
{
	struct ch39x_mbim_connect_set c, p;
	struct ch39x_mbim_msg m;
	uint8_t info[512], msg[600], *k;
	uint32_t n, len;

	memset(&c, 0, sizeof(c));
	c.session_id = 1;
	c.command = CH39X_MBIM_ACTIVATE;
	c.auth = CH39X_MBIM_AUTH_PAP;
	c.ip_type = CH39X_MBIM_IP_V4;
	memcpy(c.context_type, ch39x_mbim_uuid_context_internet, 16);
	strcpy(c.apn, "internet");
	n = ch39x_mbim_connect_set_build(info, sizeof(info), &c);
	CHECK_EQ(n, 76);
	len = ch39x_mbim_build_command(msg, sizeof(msg), 5,
				       ch39x_mbim_uuid_basic_connect,
				       CH39X_MBIM_CID_CONNECT, CH39X_MBIM_SET,
				       info, n);
	CHECK_EQ(len, sizeof(connect_set_msg));
	CHECK_MEM(msg, connect_set_msg, sizeof(connect_set_msg));
	/* One byte short: no message. */
	CHECK_EQ(ch39x_mbim_build_command(msg, 123, 5,
					  ch39x_mbim_uuid_basic_connect, 12, 1,
					  info, n), 0);
	CHECK_EQ(ch39x_mbim_connect_set_build(info, 75, &c), 0);

	CHECK_EQ(parse_exact(connect_set_msg, sizeof(connect_set_msg), &m, &k),
		 0);
	CHECK_EQ(m.type, CH39X_MBIM_COMMAND_MSG);
	CHECK_EQ(m.cid, CH39X_MBIM_CID_CONNECT);
	CHECK_EQ(m.cmd_type, CH39X_MBIM_SET);
	CHECK_EQ(m.info_len, 76);
	CHECK(m.info == k + 48);
	CHECK_MEM(m.uuid, ch39x_mbim_uuid_basic_connect, 16);
	CHECK_EQ(ch39x_mbim_connect_set_parse(m.info, m.info_len, &p), 0);
	CHECK_EQ(p.session_id, 1);
	CHECK_EQ(p.auth, CH39X_MBIM_AUTH_PAP);
	CHECK(strcmp(p.apn, "internet") == 0);
	CHECK(p.user[0] == '\0' && p.password[0] == '\0');
	CHECK_MEM(p.context_type, ch39x_mbim_uuid_context_internet, 16);
	/* The APN's size one past the buffer. */
	memcpy(msg, connect_set_msg, sizeof(connect_set_msg));
	msg[48 + 12] = 0x11;
	CHECK_EQ(ch39x_mbim_connect_set_parse(msg + 48, 76, &p), -1);
	CHECK(p.apn[0] == '\0' && p.session_id == 0);
	/* The information buffer one byte longer than the message. */
	msg[48 + 12] = 0x10;
	msg[44] = 77;
	free(k);
	CHECK_EQ(parse_exact(msg, sizeof(connect_set_msg), &m, &k),
		 CH39X_MBIM_E_INFO_LEN);
	free(k);
	/* A fragment is not a whole message. */
	msg[44] = 76;
	msg[12] = 2;
	CHECK_EQ(parse_exact(msg, sizeof(connect_set_msg), &m, &k),
		 CH39X_MBIM_E_FRAGMENT);
	free(k);

	/* User and password, and a name one character past the field. */
	strcpy(c.user, "user");
	strcpy(c.password, "p\xc3\xa4ss");	/* "päss" */
	n = ch39x_mbim_connect_set_build(info, sizeof(info), &c);
	/* APN at 60 (16), user at 76 (8), password at 84 (8): 92. */
	CHECK_EQ(n, 92);
	CHECK_MEM(info + 16, BYTES(0x4C, 0, 0, 0, 8, 0, 0, 0,
				   0x54, 0, 0, 0, 8, 0, 0, 0), 16);
	CHECK_MEM(info + 84, BYTES('p', 0, 0xE4, 0, 's', 0, 's', 0), 8);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_connect_set_parse(k, n, &p), 0);
	CHECK(strcmp(p.password, "p\xc3\xa4ss") == 0);
	CHECK(strcmp(p.user, "user") == 0);
	free(k);
	memset(c.apn, 'a', CH39X_MBIM_STR_LONG - 1);
	c.apn[CH39X_MBIM_STR_LONG - 1] = '\0';
	n = ch39x_mbim_connect_set_build(info, sizeof(info), &c);
	CHECK_EQ(n, 0);		/* 510 bytes of APN do not fit in 512 */
}

/* ---- COMMAND_DONE and INDICATE_STATUS ---- */

static void
test_done_indicate(void)
{
	/* CONNECT's answer: session 0 activated, IPv4v6, Internet. */
	static const uint8_t done[] = {
		0x03, 0x00, 0x00, 0x80, 0x54, 0x00, 0x00, 0x00,	/* 84 */
		0x09, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, BC_UUID,
		0x0C, 0x00, 0x00, 0x00,				/* CONNECT */
		0x00, 0x00, 0x00, 0x00,				/* Success */
		0x24, 0x00, 0x00, 0x00,				/* 36 */
		0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00,
		INTERNET_UUID,
		0x00, 0x00, 0x00, 0x00,
	};
	/* SIGNAL_STATE indication: rssi 20, error rate 99, 5 s. */
	static const uint8_t ind[] = {
		0x07, 0x00, 0x00, 0x80, 0x40, 0x00, 0x00, 0x00,	/* 64 */
		0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, BC_UUID,
		0x0B, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,	/* 20 bytes */
		0x14, 0x00, 0x00, 0x00, 0x63, 0x00, 0x00, 0x00,
		0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};
	struct ch39x_mbim_connect c;
	struct ch39x_mbim_signal s;
	struct ch39x_mbim_msg m;
	uint8_t info[64], b[128], *k;
	uint32_t n;

	memset(&c, 0, sizeof(c));
	c.state = CH39X_MBIM_ACTIVATED;
	c.ip_type = CH39X_MBIM_IP_V4V6;
	memcpy(c.context_type, ch39x_mbim_uuid_context_internet, 16);
	n = ch39x_mbim_connect_build(info, sizeof(info), &c);
	CHECK_EQ(n, 36);
	CHECK_EQ(ch39x_mbim_build_command_done(b, sizeof(b), 9,
					       ch39x_mbim_uuid_basic_connect,
					       CH39X_MBIM_CID_CONNECT, 0, info,
					       n), sizeof(done));
	CHECK_MEM(b, done, sizeof(done));
	CHECK_EQ(parse_exact(done, sizeof(done), &m, &k), 0);
	CHECK_EQ(m.status, 0);
	CHECK_EQ(m.tid, 9);
	CHECK_EQ(ch39x_mbim_connect_parse(m.info, m.info_len, &c), 0);
	CHECK_EQ(c.state, CH39X_MBIM_ACTIVATED);
	CHECK_EQ(c.ip_type, CH39X_MBIM_IP_V4V6);
	CHECK_EQ(ch39x_mbim_connect_parse(m.info, 35, &c), -1);
	free(k);

	memset(&s, 0, sizeof(s));
	s.rssi = 20;
	s.error_rate = 99;
	s.interval = 5;
	n = ch39x_mbim_signal_build(info, sizeof(info), &s);
	CHECK_EQ(ch39x_mbim_build_indicate(b, sizeof(b),
					   ch39x_mbim_uuid_basic_connect,
					   CH39X_MBIM_CID_SIGNAL_STATE, info,
					   n), sizeof(ind));
	CHECK_MEM(b, ind, sizeof(ind));
	CHECK_EQ(parse_exact(ind, sizeof(ind), &m, &k), 0);
	CHECK_EQ(m.type, CH39X_MBIM_INDICATE_STATUS_MSG);
	CHECK_EQ(m.cid, CH39X_MBIM_CID_SIGNAL_STATE);
	CHECK_EQ(ch39x_mbim_signal_parse(m.info, m.info_len, &s), 0);
	CHECK_EQ(s.rssi, 20);
	CHECK_EQ(s.error_rate, 99);
	free(k);
}

/* ---- Fragments ---- */

/*
 * A 200-byte COMMAND with a 64-byte MaxControlTransfer: 180 bytes after
 * the fragment header, 44 per fragment: 44, 44, 44, 44, 4 -> 5
 * fragments; fragment 1 is 20 header bytes and bytes 64..107.
 */
static void
test_fragments(void)
{
	uint8_t info[152], msg[256], f[5][64], buf[256], *k;
	uint32_t flen[5], i, n, tid, err;
	struct ch39x_mbim_reasm r;
	struct ch39x_mbim_msg m;

	for (i = 0; i < sizeof(info); i++)
		info[i] = (uint8_t)(i * 3 + 1);
	n = ch39x_mbim_build_command(msg, sizeof(msg), 0x1234,
				     ch39x_mbim_uuid_basic_connect, 99, 0,
				     info, sizeof(info));
	CHECK_EQ(n, 200);
	CHECK_EQ(ch39x_mbim_frag_count(msg, n, 64), 5);
	CHECK_EQ(ch39x_mbim_frag_count(msg, n, 200), 1);
	CHECK_EQ(ch39x_mbim_frag_count(msg, n, 63), 0);
	CHECK_EQ(ch39x_mbim_frag_count(msg, n - 1, 64), 0);
	for (i = 0; i < 5; i++) {
		flen[i] = ch39x_mbim_frag_build(msg, n, 64, i, f[i], 64);
		CHECK_EQ(flen[i], i < 4 ? 64 : 24);
	}
	CHECK_EQ(ch39x_mbim_frag_build(msg, n, 64, 5, f[0], 64), 0);
	CHECK_EQ(ch39x_mbim_frag_build(msg, n, 64, 0, buf, 63), 0);
	CHECK_MEM(f[1], BYTES(0x03, 0, 0, 0, 0x40, 0, 0, 0, 0x34, 0x12, 0, 0,
			      5, 0, 0, 0, 1, 0, 0, 0), 20);
	CHECK_MEM(f[1] + 20, msg + 64, 44);
	CHECK_MEM(f[4], BYTES(0x03, 0, 0, 0, 0x18, 0, 0, 0, 0x34, 0x12, 0, 0,
			      5, 0, 0, 0, 4, 0, 0, 0), 20);
	CHECK_MEM(f[4] + 20, msg + 196, 4);

	ch39x_mbim_reasm_init(&r, buf, sizeof(buf));
	for (i = 0; i < 5; i++) {
		k = dup_exact(f[i], flen[i]);
		CHECK_EQ(ch39x_mbim_reasm_add(&r, k, flen[i], &tid, &err),
			 i < 4 ? CH39X_MBIM_REASM_MORE : CH39X_MBIM_REASM_DONE);
		free(k);
	}
	CHECK_EQ(r.len, 200);
	CHECK_EQ(tid, 0x1234);
	CHECK_MEM(buf, msg, 200);
	CHECK_EQ(ch39x_mbim_parse(buf, r.len, &m), 0);
	CHECK_EQ(m.info_len, 152);
	CHECK_EQ(r.stats.fragmented, 1);
	CHECK_EQ(r.stats.fragments, 5);

	/* Out of sequence: 0, 2. */
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[0], 64, &tid, &err),
		 CH39X_MBIM_REASM_MORE);
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[2], 64, &tid, &err),
		 CH39X_MBIM_REASM_BAD);
	CHECK_EQ(err, CH39X_MBIM_ERR_FRAGMENT_OUT_OF_SEQUENCE);
	CHECK_EQ(tid, 0x1234);
	CHECK(!r.active);
	/* A later fragment with nothing under way. */
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[1], 64, &tid, &err),
		 CH39X_MBIM_REASM_BAD);
	/* Another transaction's fragment 1 in the middle. */
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[0], 64, &tid, &err),
		 CH39X_MBIM_REASM_MORE);
	memcpy(buf + 128, f[1], 64);
	buf[128 + 8] = 0x35;
	CHECK_EQ(ch39x_mbim_reasm_add(&r, buf + 128, 64, &tid, &err),
		 CH39X_MBIM_REASM_BAD);
	/* A new first fragment drops the partial message. */
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[0], 64, &tid, &err),
		 CH39X_MBIM_REASM_MORE);
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[0], 64, &tid, &err),
		 CH39X_MBIM_REASM_MORE);
	CHECK_EQ(r.stats.abandoned, 1);
	CHECK_EQ(r.stats.out_of_seq, 3);
	/* MessageLength that is not the transfer's. */
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[1], 63, &tid, &err),
		 CH39X_MBIM_REASM_BAD);
	CHECK_EQ(err, CH39X_MBIM_ERR_LENGTH_MISMATCH);
	/* A message longer than the buffer. */
	ch39x_mbim_reasm_init(&r, buf, 160);	/* 152 fit, 196 do not */
	for (i = 0; i < 3; i++)
		CHECK_EQ(ch39x_mbim_reasm_add(&r, f[i], 64, &tid, &err),
			 CH39X_MBIM_REASM_MORE);
	CHECK_EQ(ch39x_mbim_reasm_add(&r, f[3], 64, &tid, &err),
		 CH39X_MBIM_REASM_BAD);
	CHECK_EQ(err, CH39X_MBIM_ERR_MAX_TRANSFER);
	CHECK_EQ(r.stats.too_long, 1);
	/* Unfragmented types pass whole. */
	n = ch39x_mbim_build_status(msg, sizeof(msg),
				    CH39X_MBIM_FUNCTION_ERROR_MSG, 3,
				    CH39X_MBIM_ERR_NOT_OPENED);
	CHECK_EQ(ch39x_mbim_reasm_add(&r, msg, n, &tid, &err),
		 CH39X_MBIM_REASM_DONE);
	CHECK_EQ(ch39x_mbim_parse(buf, r.len, &m), 0);
	CHECK_EQ(m.status, CH39X_MBIM_ERR_NOT_OPENED);
	CHECK_EQ(tid, 3);
}

/* ---- Strings ---- */

static void
test_strings(void)
{
	uint8_t u[32], info[64], *k;
	char out[16];

	CHECK_EQ(ch39x_mbim_utf8_to_utf16("ab", u, sizeof(u)), 4);
	CHECK_MEM(u, BYTES('a', 0, 'b', 0), 4);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xc3\xa9", u, sizeof(u)), 2);
	CHECK_MEM(u, BYTES(0xE9, 0x00), 2);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xe2\x82\xac", u, sizeof(u)), 2);
	CHECK_MEM(u, BYTES(0xAC, 0x20), 2);		/* U+20AC */
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xf0\x9f\x98\x80", u, sizeof(u)),
		 4);
	CHECK_MEM(u, BYTES(0x3D, 0xD8, 0x00, 0xDE), 4);	/* U+1F600 */
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xc0\x80", u, sizeof(u)), -1);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xed\xa0\x80", u, sizeof(u)), -1);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xf4\x90\x80\x80", u, sizeof(u)),
		 -1);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("a\x80", u, sizeof(u)), -1);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("\xe2\x82", u, sizeof(u)), -1);
	CHECK_EQ(ch39x_mbim_utf8_to_utf16("abc", u, 5), -1);

	/* (offset 8, size 6) at 0: "a", U+1F600 at 8. */
	memset(info, 0, sizeof(info));
	memcpy(info, BYTES(8, 0, 0, 0, 6, 0, 0, 0, 'a', 0, 0x3D, 0xD8,
			   0x00, 0xDE), 14);
	k = dup_exact(info, 14);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "a\xf0\x9f\x98\x80") == 0);
	CHECK_EQ(ch39x_mbim_rd_string(k, 13, 0, out, sizeof(out)), -1);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, 5), -1);
	CHECK(out[0] == '\0');
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, 6), 0);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 7, out, sizeof(out)), -1);
	free(k);
	/* An unpaired high surrogate, an odd size, a lone low one. */
	info[4] = 4;
	k = dup_exact(info, 14);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, sizeof(out)), -1);
	free(k);
	info[4] = 5;
	k = dup_exact(info, 14);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, sizeof(out)), -1);
	free(k);
	info[4] = 2;
	info[0] = 12;
	k = dup_exact(info, 14);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, sizeof(out)), -1);
	free(k);
	/* A NUL ends it; size 0 is empty wherever it points. */
	memcpy(info, BYTES(8, 0, 0, 0, 6, 0, 0, 0, 'x', 0, 0, 0, 'y', 0), 14);
	k = dup_exact(info, 14);
	CHECK_EQ(ch39x_mbim_rd_string(k, 14, 0, out, sizeof(out)), 0);
	CHECK(strcmp(out, "x") == 0);
	free(k);
	memcpy(info, BYTES(0xff, 0xff, 0, 0, 0, 0, 0, 0), 8);
	k = dup_exact(info, 8);
	CHECK_EQ(ch39x_mbim_rd_string(k, 8, 0, out, sizeof(out)), 0);
	CHECK(out[0] == '\0');
	free(k);
}

/* ---- IP configuration ---- */

/*
 * 10.0.0.2/30 via 10.0.0.1, DNS 192.0.2.53, MTU 1500; 2001:db8:1::2/64
 * via fe80::1, DNS 2001:db8::53, MTU 1280. After the 60-byte fixed part:
 * IPv4 element at 60 (8), IPv6 element at 68 (20), IPv4 gateway at 88,
 * IPv6 gateway at 92, IPv4 DNS at 108, IPv6 DNS at 112: 128 bytes.
 */
static void
test_ipcfg(void)
{
	static const uint8_t v6a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 1,
		[15] = 2 };
	static const uint8_t v6gw[16] = { 0xfe, 0x80, [15] = 1 };
	static const uint8_t v6dns[16] = { 0x20, 0x01, 0x0d, 0xb8,
		[15] = 0x53 };
	struct ch39x_mbim_ipcfg c, p;
	uint8_t info[256], *k;
	uint32_t n, i;

	memset(&c, 0, sizeof(c));
	c.session_id = 0;
	c.v4_avail = c.v6_avail = CH39X_MBIM_IPCFG_ADDRESS |
		CH39X_MBIM_IPCFG_GATEWAY | CH39X_MBIM_IPCFG_DNS |
		CH39X_MBIM_IPCFG_MTU;
	c.n_v4 = 1;
	c.v4[0].prefix_len = 30;
	memcpy(c.v4[0].addr, BYTES(10, 0, 0, 2), 4);
	c.have_v4_gw = true;
	memcpy(c.v4_gw, BYTES(10, 0, 0, 1), 4);
	c.n_v4_dns = 1;
	memcpy(c.v4_dns[0], BYTES(192, 0, 2, 53), 4);
	c.v4_mtu = 1500;
	c.n_v6 = 1;
	c.v6[0].prefix_len = 64;
	memcpy(c.v6[0].addr, v6a, 16);
	c.have_v6_gw = true;
	memcpy(c.v6_gw, v6gw, 16);
	c.n_v6_dns = 1;
	memcpy(c.v6_dns[0], v6dns, 16);
	c.v6_mtu = 1280;
	n = ch39x_mbim_ipcfg_build(info, sizeof(info), &c);
	CHECK_EQ(n, 128);
	CHECK_MEM(info, BYTES(0, 0, 0, 0, 0x0F, 0, 0, 0, 0x0F, 0, 0, 0,
			      1, 0, 0, 0, 60, 0, 0, 0,		/* v4 */
			      1, 0, 0, 0, 68, 0, 0, 0,		/* v6 */
			      88, 0, 0, 0, 92, 0, 0, 0,		/* gws */
			      1, 0, 0, 0, 108, 0, 0, 0,		/* v4 DNS */
			      1, 0, 0, 0, 112, 0, 0, 0,		/* v6 DNS */
			      0xDC, 0x05, 0, 0, 0x00, 0x05, 0, 0), 60);
	CHECK_MEM(info + 60, BYTES(30, 0, 0, 0, 10, 0, 0, 2), 8);
	CHECK_MEM(info + 68, BYTES(64, 0, 0, 0), 4);
	CHECK_MEM(info + 72, v6a, 16);
	CHECK_MEM(info + 88, BYTES(10, 0, 0, 1), 4);
	CHECK_MEM(info + 92, v6gw, 16);
	CHECK_MEM(info + 108, BYTES(192, 0, 2, 53), 4);
	CHECK_MEM(info + 112, v6dns, 16);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_ipcfg_parse(k, n, &p), 0);
	CHECK(memcmp(&p, &c, sizeof(c)) == 0);
	CHECK_EQ(ch39x_mbim_ipcfg_parse(k, 127, &p), -1);
	CHECK_EQ(p.n_v4, 0);
	free(k);

	/* The query: the session and zeroes. */
	memset(&c, 0, sizeof(c));
	c.session_id = 3;
	n = ch39x_mbim_ipcfg_build(info, sizeof(info), &c);
	CHECK_EQ(n, 60);
	CHECK_MEM(info, BYTES(3, 0, 0, 0), 4);
	for (i = 4; i < 60; i++)
		CHECK_EQ(info[i], 0);

	/* Six DNS servers: four kept, all six checked. */
	memset(info, 0, sizeof(info));
	info[36] = 6;
	info[40] = 60;
	for (i = 0; i < 6; i++)
		info[60 + 4 * i] = (uint8_t)(i + 1);
	k = dup_exact(info, 84);
	CHECK_EQ(ch39x_mbim_ipcfg_parse(k, 84, &p), 0);
	CHECK_EQ(p.n_v4_dns, 4);
	CHECK_EQ(p.v4_dns[3][0], 4);
	CHECK_EQ(ch39x_mbim_ipcfg_parse(k, 83, &p), -1);
	free(k);
	/* A gateway offset past the end; a huge count. */
	memset(info, 0, sizeof(info));
	info[28] = 57;
	k = dup_exact(info, 60);
	CHECK_EQ(ch39x_mbim_ipcfg_parse(k, 60, &p), -1);
	free(k);
	memset(info, 0, sizeof(info));
	memcpy(info + 20, BYTES(0xff, 0xff, 0xff, 0xff, 60, 0, 0, 0), 8);
	k = dup_exact(info, 60);
	CHECK_EQ(ch39x_mbim_ipcfg_parse(k, 60, &p), -1);
	free(k);
}

/* ---- The other information buffers ---- */

static void
test_infos(void)
{
	struct ch39x_mbim_subscriber s, s2;
	struct ch39x_mbim_register r, r2;
	struct ch39x_mbim_register_set rs;
	struct ch39x_mbim_packet pk;
	struct ch39x_mbim_caps c, c2;
	uint8_t info[512], *k;
	uint32_t n, v;

	memset(&c, 0, sizeof(c));
	c.device_type = CH39X_MBIM_DEVICE_TYPE_REMOVABLE;
	c.cellular_class = CH39X_MBIM_CELLULAR_CLASS_GSM;
	c.data_class = CH39X_MBIM_DATA_CLASS_LTE;
	c.max_sessions = 8;
	strcpy(c.device_id, "35");
	strcpy(c.firmware, "fw");
	n = ch39x_mbim_caps_build(info, sizeof(info), &c);
	/* Fixed 64; "35" at 64 (4), "fw" at 68 (4). */
	CHECK_EQ(n, 72);
	CHECK_MEM(info + 28, BYTES(8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
				   64, 0, 0, 0, 4, 0, 0, 0,
				   68, 0, 0, 0, 4, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 0,
				   '3', 0, '5', 0, 'f', 0, 'w', 0), 44);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_caps_parse(k, n, &c2), 0);
	CHECK(memcmp(&c, &c2, sizeof(c)) == 0);
	CHECK_EQ(ch39x_mbim_caps_parse(k, 63, &c2), -1);
	free(k);

	memset(&s, 0, sizeof(s));
	s.ready_state = CH39X_MBIM_READY_INITIALIZED;
	strcpy(s.subscriber_id, "001010123456789");
	strcpy(s.sim_iccid, "8901");
	strcpy(s.number, "+15550100");
	n = ch39x_mbim_subscriber_build(info, sizeof(info), &s);
	/*
	 * Fixed 28 + one pair: 36; the id's 30 bytes at 36 (to 68 with
	 * the pad), the ICCID's 8 at 68, the number's 18 at 76: 94.
	 */
	CHECK_EQ(n, 94);
	CHECK_MEM(info + 24, BYTES(1, 0, 0, 0, 76, 0, 0, 0, 18, 0, 0, 0), 12);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_subscriber_parse(k, n, &s2), 0);
	CHECK_EQ(s2.n_numbers, 1);
	s.n_numbers = 1;
	CHECK(memcmp(&s, &s2, sizeof(s)) == 0);
	CHECK(strcmp(s2.number, "+15550100") == 0);
	free(k);
	/* A count the buffer cannot hold. */
	info[24] = 2;
	k = dup_exact(info, 40);
	CHECK_EQ(ch39x_mbim_subscriber_parse(k, 40, &s2), -1);
	free(k);

	memset(&r, 0, sizeof(r));
	r.state = CH39X_MBIM_REGISTER_HOME;
	r.mode = CH39X_MBIM_REGISTER_MODE_AUTOMATIC;
	r.available_data_classes = CH39X_MBIM_DATA_CLASS_LTE;
	r.cellular_class = CH39X_MBIM_CELLULAR_CLASS_GSM;
	strcpy(r.provider_id, "00101");
	strcpy(r.provider_name, "ch39x");
	n = ch39x_mbim_register_build(info, sizeof(info), &r);
	/* "00101" at 48 (10, to 60 with the pad), "ch39x" at 60: 70. */
	CHECK_EQ(n, 70);
	CHECK_MEM(info + 20, BYTES(48, 0, 0, 0, 10, 0, 0, 0,
				   60, 0, 0, 0, 10, 0, 0, 0), 16);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_register_parse(k, n, &r2), 0);
	CHECK(memcmp(&r, &r2, sizeof(r)) == 0);
	free(k);

	memset(&rs, 0, sizeof(rs));
	n = ch39x_mbim_register_set_build(info, sizeof(info), &rs);
	CHECK_EQ(n, 16);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_register_set_parse(k, n, &rs), 0);
	CHECK_EQ(rs.action, CH39X_MBIM_REGISTER_ACTION_AUTOMATIC);
	free(k);

	memset(&pk, 0, sizeof(pk));
	pk.state = CH39X_MBIM_PACKET_ATTACHED;
	pk.up_bps = 50000000000ull;
	pk.down_bps = 1;
	n = ch39x_mbim_packet_build(info, sizeof(info), &pk);
	CHECK_EQ(n, 28);
	/* 50,000,000,000 = 0x0B_A43B_7400 */
	CHECK_MEM(info + 12, BYTES(0x00, 0x74, 0x3B, 0xA4, 0x0B, 0, 0, 0,
				   1, 0, 0, 0, 0, 0, 0, 0), 16);
	k = dup_exact(info, n);
	CHECK_EQ(ch39x_mbim_packet_parse(k, n, &pk), 0);
	CHECK_EQ(pk.up_bps, 50000000000ull);
	CHECK_EQ(ch39x_mbim_u32_parse(k, 4, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(ch39x_mbim_u32_parse(k, 3, &v), -1);
	free(k);
	CHECK(strcmp(ch39x_mbim_register_name(3), "home") == 0);
	CHECK(strcmp(ch39x_mbim_status_name(7), "NotRegistered") == 0);
	CHECK(strcmp(ch39x_mbim_packet_name(99), "unknown") == 0);
}

/* DEVICE_SERVICES: one service with two CIDs, by hand. */
static void
test_services(void)
{
	static const uint32_t cids[2] = { 1, 12 };
	struct ch39x_mbim_service s = {
		.uuid = ch39x_mbim_uuid_basic_connect, .cids = cids,
		.n_cids = 2,
	};
	uint8_t info[128];

	/* 8 + 8 fixed; the element at 16: 16 + 4 + 4 + 4 + 2 * 4 = 36. */
	CHECK_EQ(ch39x_mbim_services_build(info, sizeof(info), &s, 1, 0), 52);
	CHECK_MEM(info, BYTES(1, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 36, 0, 0, 0,
			      BC_UUID, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
			      1, 0, 0, 0, 12, 0, 0, 0), 52);
	CHECK_EQ(ch39x_mbim_services_build(info, 51, &s, 1, 0), 0);
}

/* ---- The port as Ethernet (ch39x_mbim_eth.h) ---- */

static const struct ch39x_mbim_eth eth_cfg = {
	.port_mac = { 0x02, 0, 0, 0, 0, 0x02 },
	.peer_mac = { 0x02, 0, 0, 0, 0, 0x01 },
};

/* IPv4/UDP 100.64.39.2 -> 198.51.100.1, total length 28, in 60 bytes. */
static uint32_t
eth_ip4(uint8_t *f, bool tag, uint16_t vid)
{
	uint32_t o = tag ? 18 : 14;

	memset(f, 0, 64);
	memcpy(f, eth_cfg.peer_mac, 6);
	memcpy(f + 6, eth_cfg.port_mac, 6);
	if (tag) {
		f[12] = 0x81;
		f[14] = (uint8_t)(vid >> 8);
		f[15] = (uint8_t)vid;
	}
	f[o - 2] = 0x08;
	memcpy(f + o, BYTES(0x45, 0, 0, 28, 0, 0, 0x40, 0, 64, 17, 0, 0,
			    100, 64, 39, 2, 198, 51, 100, 1), 20);
	return 60 + (tag ? 4 : 0);
}

static void
test_eth_tx(void)
{
	struct ch39x_mbim_eth ips0 = eth_cfg;
	struct ch39x_mbim_tx t;
	uint8_t f[128], out[128];
	uint16_t tci;
	uint32_t n;

	/* Untagged IPv4: session 0, the datagram without the padding. */
	n = eth_ip4(f, false, 0);
	ch39x_mbim_eth_tx(&eth_cfg, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_IP);
	CHECK_EQ(t.session, 0);
	CHECK_EQ(t.ip_off, 14);
	CHECK_EQ(t.ip_len, 28);
	/* Tagged in the frame, or by the mbuf: that session. */
	n = eth_ip4(f, true, 5);
	ch39x_mbim_eth_tx(&eth_cfg, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_IP);
	CHECK_EQ(t.session, 5);
	CHECK_EQ(t.ip_off, 18);
	n = eth_ip4(f, false, 0);
	ch39x_mbim_eth_tx(&eth_cfg, f, n, 0x2007, &t);	/* PCP 1, VID 7 */
	CHECK_EQ(t.session, 7);
	/* VLAN 256 and up is no IP session; 4094 is session 0 if asked. */
	n = eth_ip4(f, true, 256);
	ch39x_mbim_eth_tx(&eth_cfg, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_BAD_VLAN);
	n = eth_ip4(f, true, 4094);
	ch39x_mbim_eth_tx(&eth_cfg, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_BAD_VLAN);
	ips0.ips0_vlan = true;
	ch39x_mbim_eth_tx(&ips0, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_IP);
	CHECK_EQ(t.session, 0);
	n = eth_ip4(f, false, 0);
	ch39x_mbim_eth_tx(&ips0, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_BAD_VLAN);
	/* A total length past the frame, a runt, another EtherType. */
	f[17] = 200;
	ch39x_mbim_eth_tx(&eth_cfg, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_RUNT);
	ch39x_mbim_eth_tx(&eth_cfg, f, 13, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_RUNT);
	f[12] = 0x88;
	f[13] = 0xcc;
	ch39x_mbim_eth_tx(&eth_cfg, f, n, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_NOT_IP);

	/* ARP: who has 100.64.39.1 (the gateway)? The peer answers. */
	memset(f, 0, sizeof(f));
	memset(f, 0xff, 6);
	memcpy(f + 6, eth_cfg.port_mac, 6);
	memcpy(f + 12, BYTES(0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1,
			     2, 0, 0, 0, 0, 2, 100, 64, 39, 2,
			     0, 0, 0, 0, 0, 0, 100, 64, 39, 1), 30);
	ch39x_mbim_eth_tx(&eth_cfg, f, 42, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_ANSWER);
	CHECK_EQ(ch39x_mbim_eth_answer(&eth_cfg, f, 42, -1, out, sizeof(out),
				       &tci), 60);
	CHECK_EQ(tci, 0);
	CHECK_MEM(out, BYTES(2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x06,
			     0, 1, 8, 0, 6, 4, 0, 2, 2, 0, 0, 0, 0, 1,
			     100, 64, 39, 1, 2, 0, 0, 0, 0, 2,
			     100, 64, 39, 2), 42);
	/* A probe is not answered: not IP, dropped. */
	memset(f + 28, 0, 4);
	ch39x_mbim_eth_tx(&eth_cfg, f, 42, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_NOT_IP);
	CHECK_EQ(ch39x_mbim_eth_answer(&eth_cfg, f, 42, -1, out, sizeof(out),
				       &tci), 0);
}

/*
 * A neighbour solicitation for fe80::1 from fe80::2 (02:..:02), as
 * test_nd.c has it from scapy, in a frame tagged VLAN 3.
 */
static void
test_eth_nd(void)
{
	static const char ns[] =
		"6000000000203afffe800000000000000000000000000002ff02000000"
		"00000000000001ff00000187007a9700000000fe800000000000000000"
		"0000000000010101020000000002";
	struct ch39x_mbim_tx t;
	struct ch39x_nd nd;
	uint8_t f[128], out[128];
	uint32_t i;
	uint16_t tci;

	memset(f, 0, sizeof(f));
	memcpy(f, BYTES(0x33, 0x33, 0xff, 0, 0, 1), 6);
	memcpy(f + 6, eth_cfg.port_mac, 6);
	memcpy(f + 12, BYTES(0x81, 0x00, 0x00, 0x03, 0x86, 0xDD), 6);
	for (i = 0; i < 72; i++)
		f[18 + i] = (uint8_t)strtoul((char[]){ ns[2 * i],
					     ns[2 * i + 1], 0 }, NULL, 16);
	ch39x_mbim_eth_tx(&eth_cfg, f, 90, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_ANSWER);
	CHECK_EQ(t.session, 3);
	CHECK_EQ(ch39x_mbim_eth_answer(&eth_cfg, f, 90, -1, out, sizeof(out),
				       &tci), 14 + 72);
	CHECK_EQ(tci, 3);
	CHECK_MEM(out, BYTES(2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x86, 0xDD),
		  14);
	CHECK_EQ(ch39x_nd_parse(out + 14, 72, &nd), 0);
	CHECK_EQ(nd.type, CH39X_ND_NA);
	CHECK_EQ(nd.flags, 0xE0);
	CHECK_MEM(nd.lla, eth_cfg.peer_mac, 6);
	/* Duplicate address detection (from ::) goes to the modem. */
	memset(f + 18 + 8, 0, 16);
	ch39x_mbim_eth_tx(&eth_cfg, f, 90, -1, &t);
	CHECK_EQ(t.kind, CH39X_MBIM_TX_IP);	/* checksum now wrong: IP */
	CHECK_EQ(ch39x_mbim_eth_answer(&eth_cfg, f, 90, -1, out, sizeof(out),
				       &tci), 0);
}

static void
test_eth_rx(void)
{
	struct ch39x_mbim_eth ips0 = eth_cfg;
	uint8_t ip[64], h[14];
	uint16_t tci;

	memset(ip, 0, sizeof(ip));
	memcpy(ip, BYTES(0x45, 0, 0, 20, 0, 0, 0, 0, 64, 17, 0, 0,
			 198, 51, 100, 1, 100, 64, 39, 2), 20);
	CHECK_EQ(ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 20, h, &tci), 14);
	CHECK_MEM(h, BYTES(2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x08, 0x00),
		  14);
	CHECK_EQ(tci, 0);
	CHECK_EQ(ch39x_mbim_eth_rx(&eth_cfg, 9, ip, 20, h, &tci), 14);
	CHECK_EQ(tci, 9);
	ips0.ips0_vlan = true;
	CHECK_EQ(ch39x_mbim_eth_rx(&ips0, 0, ip, 20, h, &tci), 14);
	CHECK_EQ(tci, 4094);
	memcpy(ip + 16, BYTES(255, 255, 255, 255), 4);
	ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 20, h, &tci);
	CHECK_MEM(h, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff), 6);
	memcpy(ip + 16, BYTES(224, 0, 0, 251), 4);
	ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 20, h, &tci);
	CHECK_MEM(h, BYTES(0x01, 0x00, 0x5e, 0, 0, 251), 6);
	/* IPv6 to ff02::1 and to the port. */
	memset(ip, 0, sizeof(ip));
	ip[0] = 0x60;
	ip[24] = 0xff;
	ip[25] = 0x02;
	ip[39] = 1;
	CHECK_EQ(ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 40, h, &tci), 14);
	CHECK_MEM(h, BYTES(0x33, 0x33, 0, 0, 0, 1, 2, 0, 0, 0, 0, 1,
			   0x86, 0xDD), 14);
	ip[24] = 0x20;
	ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 40, h, &tci);
	CHECK_MEM(h, eth_cfg.port_mac, 6);
	/* Short, or neither IPv4 nor IPv6: nothing. */
	CHECK_EQ(ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 39, h, &tci), 0);
	ip[0] = 0x50;
	CHECK_EQ(ch39x_mbim_eth_rx(&eth_cfg, 0, ip, 40, h, &tci), 0);
}

int
main(void)
{
	static const struct check_case cases[] = {
		{ "open_close", test_open_close },
		{ "connect_set", test_connect_set },
		{ "done_indicate", test_done_indicate },
		{ "fragments", test_fragments },
		{ "strings", test_strings },
		{ "ipcfg", test_ipcfg },
		{ "infos", test_infos },
		{ "services", test_services },
		{ "eth_tx", test_eth_tx },
		{ "eth_nd", test_eth_nd },
		{ "eth_rx", test_eth_rx },
	};

	return check_run("test_mbim", cases, sizeof(cases) / sizeof(cases[0]));
}
