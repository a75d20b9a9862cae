/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_TEST_CDC_BUILD_CHECK_H
#define CH39X_TEST_CDC_BUILD_CHECK_H

/*
 * The configuration builder (ch39x_cdc_build_config), the walker's
 * inverse, against a function the Linux gadget describes (test_ncm.c's
 * and test_ecm.c's handwritten bytes): walked and built again it is the
 * gadget's bytes after the configuration header (whose attributes and
 * power are the builder's: bus powered, 500 mA), and at SuperSpeed the
 * same walk with a companion after each of its three endpoints.
 */

#include "ch39x_cdc.h"
#include "check.h"

static void
check_build_config(const uint8_t *cfg, uint32_t total)
{
	struct ch39x_cdc_desc d, d2;
	uint8_t out[256], *b;
	uint32_t n, cap;

	b = dup_exact(cfg, total);
	CHECK_EQ(ch39x_cdc_parse_config(b, total, 0, &d), 0);
	free(b);
	n = ch39x_cdc_build_config(&d, 1, false, out, sizeof(out));
	CHECK_EQ(n, total);
	CHECK_MEM(out, cfg, 7);
	CHECK_EQ(out[7], 0x80);
	CHECK_EQ(out[8], 250);
	CHECK_MEM(out + 9, cfg + 9, total - 9);
	/* Too small by one byte, or anything less: nothing. */
	for (cap = 0; cap < n; cap++)
		CHECK_EQ(ch39x_cdc_build_config(&d, 1, false, out, cap), 0);
	/* SuperSpeed: 1024-byte bulk packets, three companions. */
	d.bulk_in_maxp = d.bulk_out_maxp = 1024;
	n = ch39x_cdc_build_config(&d, 1, true, out, sizeof(out));
	CHECK_EQ(n, total + 3 * 6);
	CHECK_EQ(out[8], 112);
	b = dup_exact(out, n);
	CHECK_EQ(ch39x_cdc_parse_config(b, n, 0, &d2), 0);
	free(b);
	CHECK_EQ(d2.errors, 0);
	d.flags = d2.flags;
	CHECK_MEM(&d2, &d, sizeof(d));
}

#endif /* CH39X_TEST_CDC_BUILD_CHECK_H */
