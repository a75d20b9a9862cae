/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * The RNDIS codec (lib/ch39x/ch39x_rndis.[ch]) without EAL: control
 * messages byte for byte as Linux rndis_host and the f_rndis gadget write
 * them (§18, §19), the data messages' builder and parser against each
 * other and against hand-made malformed transfers, and the filter.
 */

#include <stdio.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_rndis.h"
#include "ch39x_vendor.h"
#include "check.h"

static void
put32(uint8_t *p, uint32_t v)
{
	ch39x_put_le32(p, v);
}

static uint32_t
get32(const uint8_t *p)
{
	return ch39x_get_le32(p);
}

static void
test_ident(void)
{
	CHECK(ch39x_rndis_is_control(0x02, 0x02, 0xFF));
	CHECK(ch39x_rndis_is_control(0xE0, 0x01, 0x03));
	/* An ACM serial port (AT commands) is not RNDIS. */
	CHECK(!ch39x_rndis_is_control(0x02, 0x02, 0x01));
	CHECK(!ch39x_rndis_is_control(0x02, 0x06, 0x00));
	CHECK(!ch39x_rndis_is_control(0xE0, 0x01, 0x01));	/* Bluetooth */
}

/*
 * ACM + RNDIS as a composite gadget has them (interfaces 0-1 an AT port,
 * 2-3 f_rndis with IAD, Header, Call Management, ACM, Union).
 */
static const uint8_t acm_rndis[] = {
	9, 2, 141, 0, 4, 1, 0, 0xC0, 1,
	8, 0x0B, 0, 2, 2, 2, 1, 0,
	9, 4, 0, 0, 1, 2, 2, 1, 0,
	5, 0x24, 0, 0x10, 1, 5, 0x24, 1, 0, 1, 4, 0x24, 2, 2, 5, 0x24, 6, 0, 1,
	7, 5, 0x84, 3, 10, 0, 9,
	9, 4, 1, 0, 2, 0x0A, 0, 0, 0,
	7, 5, 0x85, 2, 0, 2, 0, 7, 5, 0x06, 2, 0, 2, 0,
	8, 0x0B, 2, 2, 2, 2, 0xFF, 0,
	9, 4, 2, 0, 1, 2, 2, 0xFF, 0,
	5, 0x24, 0, 0x10, 1, 5, 0x24, 1, 0, 3, 4, 0x24, 2, 0, 5, 0x24, 6, 2, 3,
	7, 5, 0x81, 3, 8, 0, 9,
	9, 4, 3, 0, 2, 0x0A, 0, 0, 0,
	7, 5, 0x82, 2, 0, 2, 0, 7, 5, 0x03, 2, 0, 2, 0,
};

/* The function found by its descriptors (§18.1). */
static void
test_descs(void)
{
	uint8_t b[sizeof(acm_rndis)];
	struct ch39x_cdc_desc d;

	CHECK_EQ(sizeof(acm_rndis), 141);
	CHECK_EQ(ch39x_cdc_parse_config(acm_rndis, sizeof(acm_rndis),
					CH39X_CDC_WANT_RNDIS, &d), 0);
	CHECK_EQ(d.errors, 0);
	CHECK(d.have_comm);
	CHECK_EQ(d.comm_if, 2);		/* not the ACM port */
	CHECK_EQ(d.intr_ep, 0x81);
	CHECK_EQ(d.intr_maxp, 8);
	CHECK_EQ(d.data_if, 3);
	CHECK_EQ(d.flags, CH39X_CDC_F_DATA_FROM_UNION);
	CHECK(d.have_data_eps);
	CHECK_EQ(d.data_alt, 0);
	CHECK_EQ(d.bulk_in, 0x82);
	CHECK_EQ(d.bulk_out, 0x03);
	CHECK_EQ(d.bulk_in_maxp, 512);
	CHECK(ch39x_cdc_usable(&d));
	/* NCM/ECM asked for: nothing here. */
	CHECK_EQ(ch39x_cdc_parse_config(acm_rndis, sizeof(acm_rndis), 0, &d),
		 0);
	CHECK(!d.have_comm);
	/* The listing of network functions: the RNDIS one, not the ACM. */
	{
		struct ch39x_cdc_fn fns[2];

		CHECK_EQ(ch39x_cdc_list_functions(acm_rndis, sizeof(acm_rndis),
						  fns, 2), 1);
		CHECK_EQ(fns[0].comm_if, 2);
		CHECK_EQ(fns[0].subclass, CH39X_CDC_WANT_RNDIS);
		CHECK(fns[0].have_data && fns[0].data_if == 3 &&
		      fns[0].usable);
	}
	/* A Union naming interface 9: the next interface instead. */
	memcpy(b, acm_rndis, sizeof(b));
	b[110] = 9;
	CHECK_EQ(ch39x_cdc_parse_config(b, sizeof(b), CH39X_CDC_WANT_RNDIS,
					&d), 0);
	CHECK_EQ(d.flags, CH39X_CDC_F_DATA_NEXT);
	CHECK_EQ(d.data_if, 3);
	CHECK(ch39x_cdc_usable(&d));
	/* Android's class triple. */
	b[110] = 3;
	b[88] = 0xE0;
	b[89] = 0x01;
	b[90] = 0x03;
	CHECK_EQ(ch39x_cdc_parse_config(b, sizeof(b), CH39X_CDC_WANT_RNDIS,
					&d), 0);
	CHECK_EQ(d.comm_class, 0xE0);
	CHECK_EQ(d.comm_if, 2);
	CHECK(ch39x_cdc_usable(&d));
}

/* Requests, as rndis_host sends them (generic_rndis_bind). */
static void
test_build_requests(void)
{
	uint8_t b[128], filt[4];
	uint32_t n;

	n = ch39x_rndis_build_init(b, sizeof(b), 7, 0x4000);
	CHECK_EQ(n, 24);
	CHECK_EQ(get32(b), 2);
	CHECK_EQ(get32(b + 4), 24);
	CHECK_EQ(get32(b + 8), 7);
	CHECK_EQ(get32(b + 12), 1);
	CHECK_EQ(get32(b + 16), 0);
	CHECK_EQ(get32(b + 20), 0x4000);
	CHECK_EQ(ch39x_rndis_build_init(b, 23, 7, 0x4000), 0);

	/* The permanent address with a 48-byte buffer, offset 20. */
	memset(b, 0xEE, sizeof(b));
	n = ch39x_rndis_build_query(b, sizeof(b), 9,
				    CH39X_RNDIS_OID_802_3_PERMANENT_ADDRESS, 48);
	CHECK_EQ(n, 28 + 48);
	CHECK_EQ(get32(b), 4);
	CHECK_EQ(get32(b + 4), 76);
	CHECK_EQ(get32(b + 12), 0x01010101);
	CHECK_EQ(get32(b + 16), 48);
	CHECK_EQ(get32(b + 20), 20);
	CHECK_EQ(get32(b + 24), 0);
	CHECK_EQ(b[28 + 47], 0);
	CHECK_EQ(b[76], 0xEE);		/* nothing past the message */
	n = ch39x_rndis_build_query(b, sizeof(b), 9,
				    CH39X_RNDIS_OID_GEN_LINK_SPEED, 0);
	CHECK_EQ(n, 28);
	CHECK_EQ(get32(b + 20), 0);

	put32(filt, 0x2D);
	n = ch39x_rndis_build_set(b, sizeof(b), 10,
				  CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
				  filt, 4);
	CHECK_EQ(n, 32);
	CHECK_EQ(get32(b), 5);
	CHECK_EQ(get32(b + 16), 4);
	CHECK_EQ(get32(b + 20), 20);
	CHECK_EQ(get32(b + 28), 0x2D);
	CHECK_EQ(ch39x_rndis_build_set(b, 31, 10, 1, filt, 4), 0);

	CHECK_EQ(ch39x_rndis_build_keepalive(b, sizeof(b), 11), 12);
	CHECK_EQ(get32(b), 8);
	CHECK_EQ(get32(b + 8), 11);
	CHECK_EQ(ch39x_rndis_build_halt(b, sizeof(b), 12), 12);
	CHECK_EQ(get32(b), 3);
	CHECK_EQ(ch39x_rndis_build_reset(b, sizeof(b)), 12);
	CHECK_EQ(get32(b), 6);
	CHECK_EQ(get32(b + 8), 0);
}

/* f_rndis's INIT_C at MTU 1500, byte for byte (rndis_init_response). */
static void
test_init_c(void)
{
	static const uint8_t want[52] = {
		0x02, 0, 0, 0x80, 52, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0,
		1, 0, 0, 0, 0x2C, 0x06, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0,
	};
	struct ch39x_rndis_init_c c = {
		.status = 0, .major = 1, .minor = 0, .device_flags = 1,
		.medium = 0, .max_pkts = 1, .max_xfer = 1580,
		.align_factor = 0,
	};
	struct ch39x_rndis_msg m;
	uint8_t b[64];

	CHECK_EQ(ch39x_rndis_build_init_c(b, sizeof(b), 7, &c), 52);
	CHECK_MEM(b, want, 52);
	CHECK_EQ(ch39x_rndis_parse_ctrl(want, 52, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.type, CH39X_RNDIS_MSG_INIT_C);
	CHECK_EQ(m.req_id, 7);
	CHECK_EQ(m.init.max_pkts, 1);
	CHECK_EQ(m.init.max_xfer, 1580);
	CHECK_EQ(m.init.device_flags, 1);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_INIT, 7),
		 CH39X_RNDIS_MATCH);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_INIT, 8),
		 CH39X_RNDIS_STALE);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_QUERY, 7),
		 CH39X_RNDIS_STALE);
	/* A transfer longer than MessageLength: the device padded it. */
	memcpy(b, want, 52);
	memset(b + 52, 0, 12);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, 64, &m), CH39X_RNDIS_OK);
	/* Shorter than its type's fixed part, or than MessageLength. */
	CHECK_EQ(ch39x_rndis_parse_ctrl(want, 51, &m), CH39X_RNDIS_BAD_LENGTH);
	put32(b + 4, 48);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, 64, &m), CH39X_RNDIS_BAD_LENGTH);
	CHECK_EQ(ch39x_rndis_parse_ctrl(want, 7, &m), CH39X_RNDIS_BAD_SHORT);
	put32(b, CH39X_RNDIS_MSG_PACKET);
	put32(b + 4, 52);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, 64, &m), CH39X_RNDIS_BAD_TYPE);
}

/* QUERY_C as f_rndis answers (offset 16), and its bounds. */
static void
test_query_c(void)
{
	uint8_t b[64], mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct ch39x_rndis_msg m;
	uint32_t v = 0;
	uint32_t n;

	n = ch39x_rndis_build_query_c(b, sizeof(b), 3, 0, mac, 6);
	CHECK_EQ(n, 30);
	CHECK_EQ(get32(b + 16), 6);
	CHECK_EQ(get32(b + 20), 16);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.buf_len, 6);
	CHECK(m.buf == b + 24);
	CHECK_MEM(m.buf, mac, 6);
	CHECK_EQ(ch39x_rndis_info_u32(&m, &v), 0);
	/* The buffer one byte past MessageLength. */
	put32(b + 16, 7);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_BAD_BUFFER);
	/* An offset that wraps 32 bits. */
	put32(b + 16, 6);
	put32(b + 20, 0xFFFFFFFCu);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_BAD_BUFFER);
	/* Not supported: no buffer, and no u32 in it. */
	n = ch39x_rndis_build_query_c(b, sizeof(b), 4,
				      CH39X_RNDIS_STATUS_NOT_SUPPORTED, mac, 6);
	CHECK_EQ(n, 24);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.status, CH39X_RNDIS_STATUS_NOT_SUPPORTED);
	CHECK(m.buf == NULL);
	CHECK_EQ(ch39x_rndis_info_u32(&m, &v), -1);
	/* A 2-byte answer is no u32. */
	n = ch39x_rndis_build_query_c(b, sizeof(b), 4, 0, mac, 2);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(ch39x_rndis_info_u32(&m, &v), -1);
}

/* Indications, the device's keepalive, RESET_C and the other completions. */
static void
test_indications(void)
{
	struct ch39x_rndis_msg m;
	uint8_t b[64], sb[4];
	uint32_t n;

	n = ch39x_rndis_build_indicate(b, sizeof(b),
				       CH39X_RNDIS_STATUS_MEDIA_CONNECT,
				       NULL, 0);
	CHECK_EQ(n, 20);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_QUERY, 5),
		 CH39X_RNDIS_INDICATION);
	CHECK_EQ(ch39x_rndis_indicate_link(&m), CH39X_RNDIS_LINK_UP);
	ch39x_rndis_build_indicate(b, sizeof(b),
				   CH39X_RNDIS_STATUS_MEDIA_DISCONNECT, NULL, 0);
	ch39x_rndis_parse_ctrl(b, 20, &m);
	CHECK_EQ(ch39x_rndis_indicate_link(&m), CH39X_RNDIS_LINK_DOWN);
	put32(sb, 1000000);
	n = ch39x_rndis_build_indicate(b, sizeof(b),
				       CH39X_RNDIS_STATUS_LINK_SPEED_CHANGE,
				       sb, 4);
	CHECK_EQ(n, 24);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.buf_len, 4);
	CHECK_EQ(ch39x_rndis_indicate_link(&m), CH39X_RNDIS_LINK_SPEED);
	/* A status buffer past the message. */
	put32(b + 12, 5);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_BAD_BUFFER);

	ch39x_rndis_build_keepalive(b, sizeof(b), 0x55);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, 12, &m), CH39X_RNDIS_OK);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_SET, 5),
		 CH39X_RNDIS_DEV_KEEPALIVE);
	CHECK_EQ(m.req_id, 0x55);

	n = ch39x_rndis_build_reset_c(b, sizeof(b), 0, true);
	CHECK_EQ(n, 16);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK(m.addressing_reset);
	/* RESET_C has no request id: it answers any RESET. */
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_RESET, 99),
		 CH39X_RNDIS_MATCH);

	n = ch39x_rndis_build_status_c(b, sizeof(b), CH39X_RNDIS_MSG_SET_C, 6,
				       CH39X_RNDIS_STATUS_NOT_SUPPORTED);
	CHECK_EQ(n, 16);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.status, CH39X_RNDIS_STATUS_NOT_SUPPORTED);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_SET, 6),
		 CH39X_RNDIS_MATCH);
	CHECK_EQ(ch39x_rndis_build_status_c(b, sizeof(b), CH39X_RNDIS_MSG_INIT_C,
					    6, 0), 0);
	/* A HALT from the device is neither a completion nor news. */
	ch39x_rndis_build_halt(b, sizeof(b), 1);
	ch39x_rndis_parse_ctrl(b, 12, &m);
	CHECK_EQ(ch39x_rndis_match(&m, CH39X_RNDIS_MSG_SET, 1),
		 CH39X_RNDIS_UNEXPECTED);

	CHECK_EQ(ch39x_rndis_build_notify(b, sizeof(b)), 8);
	CHECK_EQ(get32(b), 1);
	CHECK_EQ(get32(b + 4), 0);
	/* f_rndis at high speed: 13 * 512 * 8 * 8000 bit/s in 100s. */
	CHECK_EQ(ch39x_rndis_speed_mbps(4259840), 426);
	CHECK_EQ(ch39x_rndis_speed_mbps(0), 0);
	CHECK_EQ(ch39x_rndis_speed_mbps(0xFFFFFFFFu), 429497);
}

/* The device's side: requests parsed as a model reads them. */
static void
test_parse_requests(void)
{
	struct ch39x_rndis_msg m;
	uint8_t b[64], d[4] = { 0x2D, 0, 0, 0 };
	uint32_t n;

	n = ch39x_rndis_build_set(b, sizeof(b), 21,
				  CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER,
				  d, 4);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.type, CH39X_RNDIS_MSG_SET);
	CHECK_EQ(m.oid, CH39X_RNDIS_OID_GEN_CURRENT_PACKET_FILTER);
	CHECK_EQ(m.buf_len, 4);
	CHECK_EQ(get32(m.buf), 0x2D);
	n = ch39x_rndis_build_init(b, sizeof(b), 1, 16384);
	CHECK_EQ(ch39x_rndis_parse_ctrl(b, n, &m), CH39X_RNDIS_OK);
	CHECK_EQ(m.init.max_xfer, 16384);
	CHECK_EQ(m.init.major, 1);
	CHECK_EQ(ch39x_rndis_request_of(CH39X_RNDIS_MSG_QUERY_C),
		 CH39X_RNDIS_MSG_QUERY);
	CHECK_EQ(ch39x_rndis_request_of(CH39X_RNDIS_MSG_QUERY), 0);
}

static void
test_filter(void)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0, 1 };
	static const uint8_t other[6] = { 2, 0, 0, 0, 0, 2 };
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mc[2][6] = {
		{ 0x01, 0x00, 0x5e, 0, 0, 1 }, { 0x33, 0x33, 0, 0, 0, 1 },
	};
	static const uint8_t mc_other[6] = { 0x01, 0x00, 0x5e, 0, 0, 9 };
	uint32_t f;

	f = ch39x_rndis_packet_filter(false, false, 0, 1);
	CHECK_EQ(f, CH39X_RNDIS_PKT_DIRECTED | CH39X_RNDIS_PKT_BROADCAST);
	f = ch39x_rndis_packet_filter(true, false, 0, 1);
	CHECK(f & CH39X_RNDIS_PKT_PROMISCUOUS);
	/* Two addresses, a list of one (f_rndis's): all multicast. */
	f = ch39x_rndis_packet_filter(false, false, 2, 1);
	CHECK(f & CH39X_RNDIS_PKT_ALL_MULTICAST);
	CHECK(!(f & CH39X_RNDIS_PKT_MULTICAST));
	f = ch39x_rndis_packet_filter(false, false, 2, 32);
	CHECK(f & CH39X_RNDIS_PKT_MULTICAST);
	CHECK(!(f & CH39X_RNDIS_PKT_ALL_MULTICAST));

	CHECK(ch39x_rndis_filter_pass(f, mac, mac, mc, 2));
	CHECK(!ch39x_rndis_filter_pass(f, other, mac, mc, 2));
	CHECK(ch39x_rndis_filter_pass(f, bc, mac, mc, 2));
	CHECK(ch39x_rndis_filter_pass(f, mc[1], mac, mc, 2));
	CHECK(!ch39x_rndis_filter_pass(f, mc_other, mac, mc, 2));
	f |= CH39X_RNDIS_PKT_ALL_MULTICAST;
	CHECK(ch39x_rndis_filter_pass(f, mc_other, mac, mc, 2));
	CHECK(!ch39x_rndis_filter_pass(f, other, mac, mc, 2));
	CHECK(ch39x_rndis_filter_pass(CH39X_RNDIS_PKT_PROMISCUOUS, other, mac,
				      mc, 2));
	/* Filter 0 (data stopped): nothing. */
	CHECK(!ch39x_rndis_filter_pass(0, mac, mac, mc, 2));
	CHECK(!ch39x_rndis_filter_pass(0, bc, mac, mc, 2));
}

/* A message as f_rndis sends it: rndis_add_hdr, DataOffset 36. */
static uint32_t
gadget_msg(uint8_t *p, uint32_t flen, uint8_t seed)
{
	memset(p, 0, 44);
	put32(p, 1);
	put32(p + 4, 44 + flen);
	put32(p + 8, 36);
	put32(p + 12, flen);
	fill_pat(p + 44, flen, seed);
	return 44 + flen;
}

static void
test_rx(void)
{
	struct ch39x_rndis_rx_cfg c = { .max_frame = 1514 };
	struct ch39x_rndis_frame f;
	struct ch39x_rndis_rx rx;
	uint8_t b[8192];
	uint32_t n, off;

	ch39x_rndis_rx_init(&rx, &c);
	/* One 1514-byte frame and the gadget's pad byte (1558 + 1). */
	n = gadget_msg(b, 1514, 3);
	b[n++] = 0;
	ch39x_rndis_rx_begin(&rx, b, n);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(f.len, 1514);
	CHECK_EQ(f.offset, 44);
	CHECK(pat_ok(f.data, 1514, 3));
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.pad_bytes, 1);
	CHECK_EQ(ch39x_rndis_rx_bad(&rx.stats), 0);

	/* Three batched, the second with its data moved back by 8. */
	off = gadget_msg(b, 60, 1);
	n = gadget_msg(b + off, 100, 2);
	put32(b + off + 4, n + 8);
	memmove(b + off + 52, b + off + 44, 100);
	put32(b + off + 8, 44);
	off += n + 8;
	off += gadget_msg(b + off, 14, 4);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK(f.len == 60 && pat_ok(f.data, 60, 1));
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK(f.len == 100 && pat_ok(f.data, 100, 2));
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK(f.len == 14 && pat_ok(f.data, 14, 4));
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.pkts, 4);

	/* Data past its message: that one skipped, the next taken. */
	memset(&rx.stats, 0, sizeof(rx.stats));
	off = gadget_msg(b, 60, 1);
	put32(b + 12, 61);
	off += gadget_msg(b + off, 70, 5);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(f.len, 70);
	CHECK_EQ(rx.stats.bad_data, 1);
	/* DataOffset that wraps 32 bits. */
	put32(b + 12, 60);
	put32(b + 8, 0xFFFFFFF8u);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(f.len, 70);
	CHECK_EQ(rx.stats.bad_data, 2);

	/* Runt and oversize frames, each skipped. */
	memset(&rx.stats, 0, sizeof(rx.stats));
	off = gadget_msg(b, 13, 1);
	off += gadget_msg(b + off, 1515, 1);
	off += gadget_msg(b + off, 64, 6);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(f.len, 64);
	CHECK_EQ(rx.stats.runts, 1);
	CHECK_EQ(rx.stats.oversize, 1);

	/* MessageLength past the transfer, and below a header: the rest
	 * of the transfer goes.
	 */
	memset(&rx.stats, 0, sizeof(rx.stats));
	off = gadget_msg(b, 60, 1);
	off += gadget_msg(b + off, 60, 1);
	put32(b + 4, off + 1);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.bad_len, 1);
	put32(b + 4, 43);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.bad_len, 2);
	/* A control message in the data stream; a short non-zero tail. */
	put32(b + 4, 104);
	put32(b + 104, CH39X_RNDIS_MSG_INDICATE);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.bad_type, 1);
	ch39x_rndis_rx_begin(&rx, b, 104 + 10);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.bad_len, 3);
	/* A zero tail of a whole header's length is padding too. */
	memset(b + 104, 0, 100);
	ch39x_rndis_rx_begin(&rx, b, 204);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.pad_bytes, 100);
	/* An empty transfer. */
	ch39x_rndis_rx_begin(&rx, b, 0);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);

	/* At most max_pkts per transfer (a device model's limit). */
	c.max_pkts = 1;
	ch39x_rndis_rx_init(&rx, &c);
	off = gadget_msg(b, 60, 1);
	off += gadget_msg(b + off, 60, 2);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	CHECK_EQ(rx.stats.too_many, 1);
	/* OOB data is ignored, the frame taken. */
	put32(b + 20, 8);
	ch39x_rndis_rx_begin(&rx, b, off);
	CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 1);
	CHECK_EQ(rx.stats.ppi, 1);
}

/* Build with cfg, parse back: every frame, in order, byte for byte. */
static void
roundtrip(const struct ch39x_rndis_tx_cfg *cfg, const uint32_t *lens,
	  unsigned int n, unsigned int want_xfers)
{
	static uint8_t buf[70000];
	struct ch39x_rndis_rx_cfg rc = { 0 };
	struct ch39x_rndis_tx_end e;
	struct ch39x_rndis_frame f;
	struct ch39x_rndis_rx rx;
	struct ch39x_rndis_tx t;
	unsigned int i = 0, got = 0, xfers = 0;
	enum ch39x_rndis_fit fit;
	uint32_t k;

	CHECK_EQ(ch39x_rndis_tx_init(&t, cfg), 0);
	rc.max_pkts = cfg->max_pkts;
	ch39x_rndis_rx_init(&rx, &rc);
	while (i < n) {
		ch39x_rndis_tx_begin(&t, buf);
		while (i < n && (fit = ch39x_rndis_tx_check(&t, lens[i])) ==
		       CH39X_RNDIS_FIT_OK) {
			fill_pat(ch39x_rndis_tx_add(&t, lens[i]), lens[i],
				 (uint8_t)i);
			i++;
		}
		e = ch39x_rndis_tx_finish(&t);
		CHECK(e.len > 0);
		CHECK(e.len <= ch39x_rndis_tx_buf_size(&t));
		/* Never a packet multiple without its end mark. */
		CHECK(e.zlp || e.len % cfg->maxp != 0);
		CHECK(e.pkts <= (cfg->max_pkts ? cfg->max_pkts : 1));
		xfers++;
		ch39x_rndis_rx_begin(&rx, buf, e.len);
		for (k = 0; k < e.pkts; k++) {
			if (ch39x_rndis_rx_next(&rx, &f) != 1) {
				CHECK(0);
				break;
			}
			CHECK_EQ(f.len, lens[got]);
			CHECK(pat_ok(f.data, f.len, (uint8_t)got));
			CHECK_EQ(f.offset % t.align, CH39X_RNDIS_PACKET_LEN %
				 t.align);
			got++;
		}
		CHECK_EQ(ch39x_rndis_rx_next(&rx, &f), 0);
	}
	CHECK_EQ(got, n);
	CHECK_EQ(ch39x_rndis_rx_bad(&rx.stats), 0);
	CHECK_EQ(xfers, want_xfers);
	CHECK_EQ(t.stats.pkts, n);
}

static void
test_tx(void)
{
	struct ch39x_rndis_tx_cfg c = {
		.max_xfer = 1580, .max_pkts = 1, .maxp = 512,
	};
	uint32_t lens[64];
	struct ch39x_rndis_tx t;
	struct ch39x_rndis_tx_end e;
	uint8_t buf[16384];
	unsigned int i;

	/* f_rndis: one message per transfer, 1514-byte frames fit. */
	CHECK_EQ(ch39x_rndis_tx_init(&t, &c), 0);
	CHECK_EQ(ch39x_rndis_tx_max_frame(&t), 1536);
	CHECK_EQ(ch39x_rndis_tx_buf_size(&t), 1580);
	ch39x_rndis_tx_begin(&t, buf);
	CHECK_EQ(ch39x_rndis_tx_check(&t, 1514), CH39X_RNDIS_FIT_OK);
	ch39x_rndis_tx_add(&t, 1514);
	CHECK_EQ(ch39x_rndis_tx_check(&t, 60), CH39X_RNDIS_FIT_MAX_PKTS);
	e = ch39x_rndis_tx_finish(&t);
	CHECK_EQ(e.len, 1558);
	CHECK(!e.padded && !e.zlp);
	CHECK_EQ(e.reason, CH39X_RNDIS_FIT_MAX_PKTS);
	CHECK_EQ(get32(buf + 4), 1558);
	CHECK_EQ(get32(buf + 8), 36);
	CHECK_EQ(get32(buf + 12), 1514);
	/* 1536 - 44 = 1492 bytes: a multiple of 512, one pad byte. */
	ch39x_rndis_tx_begin(&t, buf);
	ch39x_rndis_tx_add(&t, 1492);
	e = ch39x_rndis_tx_finish(&t);
	CHECK_EQ(e.len, 1537);
	CHECK(e.padded);
	CHECK_EQ(buf[1536], 0);
	CHECK_EQ(get32(buf + 4), 1536);		/* the pad is not counted */
	CHECK_EQ(ch39x_rndis_tx_check(&t, 1537), CH39X_RNDIS_FIT_TOO_BIG);
	CHECK_EQ(ch39x_rndis_tx_check(&t, 0), CH39X_RNDIS_FIT_BAD_LEN);
	/* With the zlp quirk, a ZLP instead. */
	c.zlp = true;
	ch39x_rndis_tx_init(&t, &c);
	ch39x_rndis_tx_begin(&t, buf);
	ch39x_rndis_tx_add(&t, 1492);
	e = ch39x_rndis_tx_finish(&t);
	CHECK(e.zlp && !e.padded && e.len == 1536);
	c.zlp = false;
	/* A transfer of exactly the limit, a multiple: a ZLP, no room. */
	c.max_xfer = 2048;
	ch39x_rndis_tx_init(&t, &c);
	ch39x_rndis_tx_begin(&t, buf);
	ch39x_rndis_tx_add(&t, 2048 - 44);
	e = ch39x_rndis_tx_finish(&t);
	CHECK(e.zlp && e.len == 2048);
	/* Nothing added: nothing to send. */
	ch39x_rndis_tx_begin(&t, buf);
	e = ch39x_rndis_tx_finish(&t);
	CHECK_EQ(e.len, 0);
	CHECK_EQ(t.stats.xfers, 1);

	/* Bogus configurations. */
	c.maxp = 0;
	CHECK_EQ(ch39x_rndis_tx_init(&t, &c), -1);
	c.maxp = 512;
	c.max_xfer = 57;
	CHECK_EQ(ch39x_rndis_tx_init(&t, &c), -1);
	c.max_xfer = 58;
	CHECK_EQ(ch39x_rndis_tx_init(&t, &c), 0);
	c.max_xfer = 0;			/* said nothing: f_rndis's 1580 */
	ch39x_rndis_tx_init(&t, &c);
	CHECK_EQ(ch39x_rndis_tx_buf_size(&t), 1580);
	c.align_factor = 31;		/* capped at 4 KiB */
	c.max_xfer = 16384;
	ch39x_rndis_tx_init(&t, &c);
	CHECK_EQ(t.align, 4096);

	/* Batches: 16 KiB, 8 packets, 8-byte alignment. */
	c.max_xfer = 16384;
	c.max_pkts = 8;
	c.align_factor = 3;
	for (i = 0; i < 64; i++)
		lens[i] = 60 + (i * 37) % 1455;
	roundtrip(&c, lens, 64, 8);
	/* Size-bound: full-size frames, 10 per 16 KiB. */
	c.max_pkts = 64;
	for (i = 0; i < 64; i++)
		lens[i] = 1514;
	roundtrip(&c, lens, 64, 7);
	/* Our transfer size below the device's. */
	c.size = 4096;
	roundtrip(&c, lens, 64, 32);
	c.size = 0;
	/* Jumbo frames in a 64 KiB transfer, alignment 1 (taken as 4). */
	c.max_xfer = 65536;
	c.align_factor = 0;
	for (i = 0; i < 16; i++)
		lens[i] = 9014 - i;
	roundtrip(&c, lens, 16, 3);
}

int
main(void)
{
	static const struct check_case cases[] = {
		{ "ident", test_ident },
		{ "descs", test_descs },
		{ "build_requests", test_build_requests },
		{ "init_c", test_init_c },
		{ "query_c", test_query_c },
		{ "indications", test_indications },
		{ "parse_requests", test_parse_requests },
		{ "filter", test_filter },
		{ "rx", test_rx },
		{ "tx", test_tx },
	};

	return check_run("test_rndis", cases, sizeof(cases) / sizeof(cases[0]));
}
