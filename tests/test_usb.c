/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests for the libusb backend's pure helpers (lib/ch39x), without a
 * device: the devargs' VID:PID and protocol parsers, and the serial
 * number as libusb reads it, which a device's return compares with
 * sysfs's (ch39x_libusb_return.c).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ch39x_libusb.h"

#include "check.h"

static void
test_vid_pid(void)
{
	uint16_t v = 0, p = 0;

	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86:5398", &v, &p), 0);
	CHECK_EQ(v, 0x1a86);
	CHECK_EQ(p, 0x5398);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1A86:*", &v, &p), 0);
	CHECK_EQ(p, 0);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("0:5398", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86:0", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86:12345", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1g86:5398", &v, &p), -1);
}

static void
test_protos(void)
{
	unsigned int m = 0;

	CHECK_EQ(ch39x_libusb_parse_protos("vendor", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_VENDOR);
	CHECK_EQ(ch39x_libusb_parse_protos("ncm+ecm", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_CDC);
	CHECK_EQ(ch39x_libusb_parse_protos("any", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_ANY);
	CHECK_EQ(ch39x_libusb_parse_protos("ncm+", &m), -1);
	CHECK_EQ(ch39x_libusb_parse_protos("", &m), -1);
	CHECK_EQ(ch39x_libusb_parse_protos("rndis", &m), -1);
}

static void
test_serial_ascii(void)
{
	static const struct {
		const char *in;
		const char *out;
	} c[] = {
		{ "ncm-0001", "ncm-0001" },
		{ "", "" },
		{ "n\xc3\xa9-1", "n?-1" },		/* 2 bytes, 1 unit */
		{ "\xe2\x82\xac" "5", "?5" },		/* 3 bytes, 1 unit */
		{ "x\xf0\x9f\x98\x80y", "x??y" },	/* 4 bytes, 2 units */
		{ "\xf0\x9f\x98\x80", "??" },		/* at the start */
		{ "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", "????" },
	};
	char b[64];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(b, sizeof(b), "%s", c[i].in);
		ch39x_libusb_serial_ascii(b);
		CHECK(strcmp(b, c[i].out) == 0);
	}
}

int
main(void)
{
	test_vid_pid();
	test_protos();
	test_serial_ascii();
	printf("test_usb: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
