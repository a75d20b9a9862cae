/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * Unit tests for the CDC-NCM codec (lib/ch39x/ch39x_ncm.c) and the CDC
 * descriptor walker (lib/ch39x/ch39x_cdc.c). Every expected NTB is written
 * out by hand from the NCM 1.0 rules as §11-§15
 * and Linux cdc_ncm.c state them (offsets worked out in the comments);
 * none is produced with the code under test. Every input to a parser is
 * copied into a malloc'd buffer of exactly its length, so that a build
 * with -fsanitize=address catches any read past it.
 */

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_cdc.h"
#include "ch39x_ncm.h"

#include "check.h"
#include "cdc_build_check.h"

/* ---- Expected-bytes composer: zeros, explicit bytes, patterns ---- */

static uint8_t exp_buf[70000];

static void
exp_reset(uint32_t len)
{
	memset(exp_buf, 0, len);
}

static void
exp_put(uint32_t off, const uint8_t *b, uint32_t n)
{
	memcpy(exp_buf + off, b, n);
}

#define PUT(off, ...) exp_put((off), (const uint8_t[]){ __VA_ARGS__ },	\
			      sizeof((const uint8_t[]){ __VA_ARGS__ }))

static void
put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

/* ---- TX helpers ---- */

static struct ch39x_ncm_tx_cfg
def_cfg(void)
{
	/* The Linux 6.1 gadget's values (vm-gadget-study/FINDINGS.md). */
	struct ch39x_ncm_tx_cfg c = {
		.ntb32 = false, .dev_max_size = 16384, .size = 0,
		.divisor = 4, .remainder = 0, .ndp_align = 4,
		.max_dgrams = 0, .ndp_entries = 0, .maxp = 512,
	};
	return c;
}

/* A TX buffer of exactly ch39x_ncm_tx_buf_size bytes, pre-poisoned. */
static uint8_t *
tx_buf(const struct ch39x_ncm_tx *t)
{
	uint32_t n = ch39x_ncm_tx_buf_size(t);
	uint8_t *b = malloc(n);

	if (b == NULL)
		exit(2);
	memset(b, 0xEE, n);	/* any gap left unzeroed shows */
	return b;
}

static void
tx_add(struct ch39x_ncm_tx *t, uint32_t len, uint8_t seed)
{
	uint8_t *d;

	CHECK_EQ(ch39x_ncm_tx_check(t, len), CH39X_NCM_FIT_OK);
	d = ch39x_ncm_tx_add(t, len);
	fill_pat(d, len, seed);
}

/* ---- GET_NTB_PARAMETERS ---- */

static const uint8_t gadget_params[28] = {
	0x1C, 0x00,			/* wLength 28 */
	0x03, 0x00,			/* NTB16 | NTB32 */
	0x00, 0x40, 0x00, 0x00,		/* dwNtbInMaxSize 16384 */
	0x04, 0x00,			/* wNdpInDivisor 4 */
	0x00, 0x00,			/* wNdpInPayloadRemainder 0 */
	0x04, 0x00,			/* wNdpInAlignment 4 */
	0x00, 0x00,			/* wReserved */
	0x00, 0x40, 0x00, 0x00,		/* dwNtbOutMaxSize 16384 */
	0x04, 0x00,			/* wNdpOutDivisor 4 */
	0x00, 0x00,			/* wNdpOutPayloadRemainder 0 */
	0x04, 0x00,			/* wNdpOutAlignment 4 */
	0x00, 0x00,			/* wNtbOutMaxDatagrams 0 */
};

static int
parse_params_exact(const uint8_t *v, uint32_t n, struct ch39x_ncm_ntb_params *p)
{
	uint8_t *b = dup_exact(v, n);
	int r = ch39x_ncm_parse_ntb_params(b, n, p);

	free(b);
	return r;
}

static void
test_ntb_params(void)
{
	struct ch39x_ncm_ntb_params p;
	uint8_t v[28], out[28], is[8];

	CHECK_EQ(parse_params_exact(gadget_params, 28, &p), 0);
	CHECK_EQ(p.length, 28);
	CHECK_EQ(p.formats, 3);
	CHECK_EQ(p.in_max_size, 16384);
	CHECK_EQ(p.in_divisor, 4);
	CHECK_EQ(p.in_remainder, 0);
	CHECK_EQ(p.in_alignment, 4);
	CHECK_EQ(p.out_max_size, 16384);
	CHECK_EQ(p.out_divisor, 4);
	CHECK_EQ(p.out_remainder, 0);
	CHECK_EQ(p.out_alignment, 4);
	CHECK_EQ(p.out_max_datagrams, 0);
	CHECK_EQ(ch39x_ncm_build_ntb_params(&p, out), 28);
	CHECK_MEM(out, gadget_params, 28);

	/* Fatal: short, wLength < 28, no format. */
	CHECK_EQ(parse_params_exact(gadget_params, 27, &p), -1);
	memcpy(v, gadget_params, 28);
	v[0] = 0x10;
	CHECK_EQ(parse_params_exact(v, 28, &p), -1);
	memcpy(v, gadget_params, 28);
	v[2] = 0x00;
	CHECK_EQ(parse_params_exact(v, 28, &p), -1);

	/* Warnings, one field at a time. */
	memcpy(v, gadget_params, 28);
	v[0] = 0x20;
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_LENGTH);
	memcpy(v, gadget_params, 28);
	v[2] = 0x02;
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_NO_NTB16);
	memcpy(v, gadget_params, 28);
	v[16] = v[17] = 0;	/* dwNtbOutMaxSize 0 */
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_OUT_SIZE);
	memcpy(v, gadget_params, 28);
	v[5] = 0x07;		/* dwNtbInMaxSize 0x700 = 1792 */
	v[4] = 0x00;
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_IN_SIZE);
	memcpy(v, gadget_params, 28);
	v[20] = 6;		/* wNdpOutDivisor 6: not a power of two */
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_OUT_DIVISOR);
	memcpy(v, gadget_params, 28);
	v[22] = 4;		/* remainder 4 >= divisor 4 */
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_OUT_REM);
	memcpy(v, gadget_params, 28);
	v[20] = 2;		/* divisor 2 < 4, remainder 0 still fine */
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_OUT_DIVISOR);
	memcpy(v, gadget_params, 28);
	v[24] = 2;		/* wNdpOutAlignment 2 */
	CHECK_EQ(parse_params_exact(v, 28, &p), CH39X_NCM_PW_OUT_ALIGN);
	memcpy(v, gadget_params, 28);
	v[8] = 0;		/* wNdpInDivisor 0 */
	v[12] = 12;		/* wNdpInAlignment 12 */
	CHECK_EQ(parse_params_exact(v, 28, &p),
		 CH39X_NCM_PW_IN_DIVISOR | CH39X_NCM_PW_IN_ALIGN);

	/* SET_NTB_INPUT_SIZE data stages. */
	CHECK_EQ(ch39x_ncm_build_ntb_input_size(16384, false, 0, is), 4);
	CHECK_MEM(is, ((const uint8_t[]){ 0x00, 0x40, 0x00, 0x00 }), 4);
	CHECK_EQ(ch39x_ncm_build_ntb_input_size(0x12345, true, 32, is), 8);
	CHECK_MEM(is, ((const uint8_t[]){ 0x45, 0x23, 0x01, 0x00,
					 0x20, 0x00, 0x00, 0x00 }), 8);

	/* Host TX config from the device's parameters. */
	{
		struct ch39x_ncm_tx_cfg c;

		CHECK_EQ(parse_params_exact(gadget_params, 28, &p), 0);
		p.out_max_datagrams = 7;
		ch39x_ncm_tx_cfg_from_params(&c, &p, true, 1024);
		CHECK(c.ntb32);
		CHECK_EQ(c.dev_max_size, 16384);
		CHECK_EQ(c.divisor, 4);
		CHECK_EQ(c.ndp_align, 4);
		CHECK_EQ(c.max_dgrams, 7);
		CHECK_EQ(c.maxp, 1024);
		CHECK(!c.ndp_at_end && !c.zlp && !c.raw_remainder);
	}
}

/* ---- TX NTB16, NDP in front ---- */

static void
test_tx_ntb16_front(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;

	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(ch39x_ncm_tx_buf_size(&t), 16385);
	CHECK_EQ(t.max_entries, 32);
	b = tx_buf(&t);

	/*
	 * One datagram of 60. NTH16 at 0 (12 bytes); NDP at 12 (already
	 * 4-aligned) with room for 32 entries plus the null one:
	 * 8 + 33 * 4 = 140, so datagrams start at 152 or later. Remainder 0
	 * places the payload after the 14-byte Ethernet header on a multiple
	 * of 4: start % 4 == (0 - 14) mod 4 == 2 -> 154. End 154 + 60 = 214.
	 * NDP wLength = 8 + 2 * 4 = 16.
	 */
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 1);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 214);
	CHECK(!e.zlp && !e.padded);
	CHECK_EQ(e.dgrams, 1);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_BURST);
	exp_reset(214);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0xD6, 0x00, 0x0C, 0x00);		/* block 214, NDP at 12 */
	PUT(12, 'N', 'C', 'M', '0', 0x10, 0x00, 0x00, 0x00,
	    0x9A, 0x00, 0x3C, 0x00,		/* (154, 60) */
	    0x00, 0x00, 0x00, 0x00);		/* null entry */
	fill_pat(exp_buf + 154, 60, 1);
	CHECK_MEM(b, exp_buf, 214);

	/*
	 * Three datagrams, 60, 61, 98, second NTB: wSequence 1.
	 * 154..214; 214 % 4 == 2 -> 214..275; 275 -> 278 (278 % 4 == 2)
	 * ..376. NDP wLength = 8 + 4 * 4 = 24.
	 */
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 2);
	tx_add(&t, 61, 3);
	tx_add(&t, 98, 4);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 376);
	CHECK_EQ(e.dgrams, 3);
	exp_reset(376);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x01, 0x00,
	    0x78, 0x01, 0x0C, 0x00);		/* seq 1, block 376 */
	PUT(12, 'N', 'C', 'M', '0', 0x18, 0x00, 0x00, 0x00,
	    0x9A, 0x00, 0x3C, 0x00,		/* (154, 60) */
	    0xD6, 0x00, 0x3D, 0x00,		/* (214, 61) */
	    0x16, 0x01, 0x62, 0x00,		/* (278, 98) */
	    0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 154, 60, 2);
	fill_pat(exp_buf + 214, 61, 3);
	fill_pat(exp_buf + 278, 98, 4);
	CHECK_MEM(b, exp_buf, 376);

	CHECK_EQ(t.stats.ntbs, 2);
	CHECK_EQ(t.stats.dgrams, 4);
	CHECK_EQ(t.stats.dgram_bytes, 279);
	CHECK_EQ(t.stats.overhead, (214 - 60) + (376 - 219));
	CHECK_EQ(t.stats.close_burst, 2);

	/* An empty NTB is not sent and uses no sequence number. */
	ch39x_ncm_tx_begin(&t, b);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 0);
	CHECK_EQ(t.seq, 2);
	CHECK_EQ(t.stats.ntbs, 2);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 0), CH39X_NCM_FIT_BAD_LEN);
	free(b);
}

/* ---- TX: datagram limits ---- */

static void
test_tx_max_dgrams(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;
	uint32_t i;

	/*
	 * Our NDP room full: 32 datagrams of 16. Remainder 2 gives datagram
	 * starts with (start + 14) % 4 == 2, i.e. start % 4 == 0. NDP room
	 * 8 + 33 * 4 = 140 from 12: first datagram at 152, then every 16:
	 * 152 + 16 i, the last ending at 152 + 512 = 664. wLength 140.
	 */
	c.remainder = 2;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	for (i = 0; i < 32; i++)
		tx_add(&t, 16, (uint8_t)i);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 16), CH39X_NCM_FIT_NDP_FULL);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 664);
	CHECK_EQ(e.dgrams, 32);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_NDP_FULL);
	exp_reset(664);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x98, 0x02, 0x0C, 0x00);		/* block 664 */
	PUT(12, 'N', 'C', 'M', '0', 0x8C, 0x00, 0x00, 0x00);
	for (i = 0; i < 32; i++) {
		put_le16(exp_buf + 20 + 4 * i, (uint16_t)(152 + 16 * i));
		put_le16(exp_buf + 22 + 4 * i, 16);
		fill_pat(exp_buf + 152 + 16 * i, 16, (uint8_t)i);
	}
	/* null entry at 20 + 128 = 148..151 stays zero */
	CHECK_MEM(b, exp_buf, 664);
	CHECK_EQ(t.stats.close_ndp_full, 1);
	free(b);

	/*
	 * The device's wNtbOutMaxDatagrams = 2: NDP room 8 + 3 * 4 = 20,
	 * datagrams from 32: 34 (34 % 4 == 2) ..54, 54..84. wLength 20.
	 */
	c = def_cfg();
	c.max_dgrams = 2;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.max_entries, 2);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 20, 5);
	tx_add(&t, 30, 6);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 10), CH39X_NCM_FIT_MAX_DGRAMS);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 84);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_MAX_DGRAMS);
	exp_reset(84);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x54, 0x00, 0x0C, 0x00);
	PUT(12, 'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
	    0x22, 0x00, 0x14, 0x00,		/* (34, 20) */
	    0x36, 0x00, 0x1E, 0x00,		/* (54, 30) */
	    0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 34, 20, 5);
	fill_pat(exp_buf + 54, 30, 6);
	CHECK_MEM(b, exp_buf, 84);

	/* Reaching the limit without a refused check is counted the same. */
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 20, 5);
	tx_add(&t, 30, 6);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_MAX_DGRAMS);
	CHECK_EQ(t.stats.close_max_dgrams, 2);
	/* wSequence went on: 1. */
	CHECK_EQ(b[6], 1);
	free(b);

	/* Device limit above our room: the room closes it (NDP full). */
	c = def_cfg();
	c.max_dgrams = 100;
	c.ndp_entries = 3;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	for (i = 0; i < 3; i++)
		tx_add(&t, 14, 9);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 14), CH39X_NCM_FIT_NDP_FULL);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_NDP_FULL);
	free(b);
}

/* ---- TX: alignment and remainder ---- */

static void
test_tx_align(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;

	/*
	 * Divisor 16, remainder 0, NDP alignment 8. NDP at 16 (12 rounded
	 * up to 8), room 140: datagrams from 156. Payload (start + 14) on a
	 * multiple of 16: start % 16 == 2 -> 162..222, then 226..276.
	 */
	c.divisor = 16;
	c.ndp_align = 8;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 7);
	tx_add(&t, 50, 8);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 276);
	exp_reset(276);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x14, 0x01, 0x10, 0x00);		/* block 276, NDP at 16 */
	PUT(16, 'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
	    0xA2, 0x00, 0x3C, 0x00,		/* (162, 60) */
	    0xE2, 0x00, 0x32, 0x00,		/* (226, 50) */
	    0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 162, 60, 7);
	fill_pat(exp_buf + 226, 50, 8);
	CHECK_MEM(b, exp_buf, 276);
	free(b);

	/*
	 * raw_remainder: divisor 8, remainder 4 on the datagram start
	 * itself, NDP at the end. 12 % 8 == 4 -> 12..42; 44..64; NDP at 64
	 * (4-aligned), wLength 20 -> 84.
	 */
	c = def_cfg();
	c.divisor = 8;
	c.remainder = 4;
	c.raw_remainder = true;
	c.ndp_at_end = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 30, 9);
	tx_add(&t, 20, 10);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 84);
	exp_reset(84);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x54, 0x00, 0x40, 0x00);		/* block 84, NDP at 64 */
	fill_pat(exp_buf + 12, 30, 9);
	fill_pat(exp_buf + 44, 20, 10);
	PUT(64, 'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
	    0x0C, 0x00, 0x1E, 0x00,		/* (12, 30) */
	    0x2C, 0x00, 0x14, 0x00,		/* (44, 20) */
	    0x00, 0x00, 0x00, 0x00);
	CHECK_MEM(b, exp_buf, 84);
	free(b);

	/* Bad values fall back to 4 / 4 / 0 (Linux cdc_ncm_fix_modulus). */
	c = def_cfg();
	c.divisor = 6;
	c.ndp_align = 0;
	c.remainder = 9;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.divisor, 4);
	CHECK_EQ(t.ndp_align, 4);
	CHECK_EQ(t.dgram_rem, 2);	/* (0 - 14) mod 4 */
}

/* ---- TX: NDP in front vs at the end, same datagrams ---- */

static void
test_tx_front_vs_end(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;

	/* Front: 154..214, 214..274; NDP at 12, wLength 20. */
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 11);
	tx_add(&t, 60, 12);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 274);
	exp_reset(274);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x12, 0x01, 0x0C, 0x00);
	PUT(12, 'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
	    0x9A, 0x00, 0x3C, 0x00, 0xD6, 0x00, 0x3C, 0x00,
	    0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 154, 60, 11);
	fill_pat(exp_buf + 214, 60, 12);
	CHECK_MEM(b, exp_buf, 274);
	free(b);

	/*
	 * End: datagrams right after the NTH: 12 -> 14 (14 % 4 == 2)..74,
	 * 74..134; NDP at 136 (4-aligned), wLength 20 -> 156.
	 */
	c.ndp_at_end = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 11);
	tx_add(&t, 60, 12);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 156);
	exp_reset(156);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x9C, 0x00, 0x88, 0x00);		/* block 156, NDP at 136 */
	fill_pat(exp_buf + 14, 60, 11);
	fill_pat(exp_buf + 74, 60, 12);
	PUT(136, 'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
	    0x0E, 0x00, 0x3C, 0x00, 0x4A, 0x00, 0x3C, 0x00,
	    0x00, 0x00, 0x00, 0x00);
	CHECK_MEM(b, exp_buf, 156);
	free(b);

	/*
	 * End, exact fit at dwNtbOutMaxSize 2048: the NDP (8 + 2 * 4 = 16)
	 * must end by 2048, so the datagram ends by 2032: 14 + 2018. One
	 * more byte ends at 2033 -> NDP at 2036 -> 2052: too big.
	 */
	c.dev_max_size = 2048;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(ch39x_ncm_tx_max_dgram(&t), 2018);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 2019), CH39X_NCM_FIT_TOO_BIG);
	tx_add(&t, 2018, 13);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 14), CH39X_NCM_FIT_FULL);
	e = ch39x_ncm_tx_finish(&t);
	/* 2048 is a multiple of 512 but is dwNtbOutMaxSize: no ZLP, no pad */
	CHECK_EQ(e.len, 2048);
	CHECK(!e.zlp && !e.padded);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_FULL);
	CHECK_MEM(b, ((const uint8_t[]){ 'N', 'C', 'M', 'H', 0x0C, 0x00,
		  0x00, 0x00, 0x00, 0x08, 0xF0, 0x07 }), 12); /* NDP 2032 */
	CHECK_MEM(b + 2032, ((const uint8_t[]){ 'N', 'C', 'M', '0',
		  0x10, 0x00, 0x00, 0x00, 0x0E, 0x00, 0xE2, 0x07,
		  0x00, 0x00, 0x00, 0x00 }), 16);
	free(b);
}

/* ---- TX NTB32 ---- */

static void
test_tx_ntb32(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;

	/*
	 * NTH32 16 bytes, NDP32 at 16 with room 16 + 33 * 8 = 280: from 296.
	 * 296 % 4 == 0 -> 298..358; 358 % 4 == 2 -> 358..422.
	 * NDP32 wLength 16 + 3 * 8 = 40.
	 */
	c.ntb32 = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 21);
	tx_add(&t, 64, 22);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 422);
	exp_reset(422);
	PUT(0, 'n', 'c', 'm', 'h', 0x10, 0x00, 0x00, 0x00,
	    0xA6, 0x01, 0x00, 0x00,		/* dwBlockLength 422 */
	    0x10, 0x00, 0x00, 0x00);		/* dwNdpIndex 16 */
	PUT(16, 'n', 'c', 'm', '0', 0x28, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00,		/* dwNextNdpIndex */
	    0x00, 0x00, 0x00, 0x00,		/* dwReserved12 */
	    /* (298, 60), (358, 64) */
	    0x2A, 0x01, 0x00, 0x00, 0x3C, 0x00, 0x00, 0x00,
	    0x66, 0x01, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
	    0, 0, 0, 0, 0, 0, 0, 0);
	fill_pat(exp_buf + 298, 60, 21);
	fill_pat(exp_buf + 358, 64, 22);
	CHECK_MEM(b, exp_buf, 422);
	free(b);

	/* NTB32, NDP at the end: 18..118, NDP at 120, wLength 32 -> 152. */
	c.ndp_at_end = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 100, 23);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 152);
	exp_reset(152);
	PUT(0, 'n', 'c', 'm', 'h', 0x10, 0x00, 0x00, 0x00,
	    0x98, 0x00, 0x00, 0x00, 0x78, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 18, 100, 23);
	PUT(120, 'n', 'c', 'm', '0', 0x20, 0x00, 0x00, 0x00,
	    0, 0, 0, 0, 0, 0, 0, 0,
	    0x12, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00);
	CHECK_MEM(b, exp_buf, 152);
	free(b);

	/*
	 * NDP room shrinks so that a 1514 datagram fits 2048: room
	 * 16 + (E + 1) * 8 from 16, datagram at that + 2 (multiple of 8 plus
	 * the 2 of the payload rule): 32 + 8 (E + 1) + 2 + 1514 <= 2048
	 * -> E + 1 <= 62.5 -> E = 61.
	 */
	c = def_cfg();
	c.ntb32 = true;
	c.dev_max_size = 2048;
	c.ndp_entries = 256;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.max_entries, 61);
	CHECK_EQ(ch39x_ncm_tx_max_dgram(&t), 2048 - 530);
}

/* ---- TX: dwNtbOutMaxSize ---- */

static void
test_tx_size_limit(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;

	/*
	 * dwNtbOutMaxSize 2048, asked for 16384: the limit is 2048.
	 * 154 + 1514 = 1668; a second 1514 from 1670 would end at 3184.
	 */
	c.dev_max_size = 2048;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(ch39x_ncm_tx_buf_size(&t), 2049);
	CHECK_EQ(ch39x_ncm_tx_max_dgram(&t), 2048 - 154);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 1895), CH39X_NCM_FIT_TOO_BIG);
	tx_add(&t, 1514, 31);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 1514), CH39X_NCM_FIT_FULL);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 1895), CH39X_NCM_FIT_TOO_BIG);
	/* 1668 % 4 == 0 -> 1670; 1670 + 378 = 2048 still fits. */
	CHECK_EQ(ch39x_ncm_tx_check(&t, 378), CH39X_NCM_FIT_OK);
	CHECK_EQ(ch39x_ncm_tx_check(&t, 379), CH39X_NCM_FIT_FULL);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 1668);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_FULL);
	CHECK_EQ(t.stats.close_full, 1);
	exp_reset(1668);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x84, 0x06, 0x0C, 0x00);		/* block 1668 */
	PUT(12, 'N', 'C', 'M', '0', 0x10, 0x00, 0x00, 0x00,
	    0x9A, 0x00, 0xEA, 0x05, 0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 154, 1514, 31);
	CHECK_MEM(b, exp_buf, 1668);
	free(b);

	/* A larger wish is clamped; NTB16 never above 65535. */
	c = def_cfg();
	c.size = 65536;
	c.dev_max_size = 4096;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.limit, 4096);
	c.dev_max_size = 100000;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.limit, 65535);
	c.ntb32 = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.limit, 65536);
	/* dwNtbOutMaxSize 0 is bogus: the 2048 minimum is used. */
	c = def_cfg();
	c.dev_max_size = 0;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.limit, 2048);
	/* Too small for one 14-byte datagram: 30 + 14 > 40. */
	c.dev_max_size = 40;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), -1);
	c = def_cfg();
	c.maxp = 0;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), -1);
}

/* ---- TX: short-packet rule ---- */

static void
test_tx_zlp_pad(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_tx_end e;
	uint8_t *b;

	/*
	 * 154 + 358 = 512 = wMaxPacketSize, below dwNtbOutMaxSize: Linux
	 * adds one zero byte and counts it in wBlockLength (513).
	 */
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 358, 41);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 513);
	CHECK(e.padded && !e.zlp);
	exp_reset(513);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0x01, 0x02, 0x0C, 0x00);		/* block 513 */
	PUT(12, 'N', 'C', 'M', '0', 0x10, 0x00, 0x00, 0x00,
	    0x9A, 0x00, 0x66, 0x01, 0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 154, 358, 41);
	CHECK_MEM(b, exp_buf, 513);	/* byte 512 is the zero pad */
	CHECK_EQ(t.stats.pad_bytes, 1);
	free(b);

	/* ZLP quirk: 512 bytes and a ZLP; wBlockLength 512. */
	c.zlp = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 358, 41);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 512);
	CHECK(e.zlp && !e.padded);
	CHECK_MEM(b, ((const uint8_t[]){ 'N', 'C', 'M', 'H', 0x0C, 0x00,
		  0x00, 0x00, 0x00, 0x02, 0x0C, 0x00 }), 12);
	CHECK_EQ(t.stats.zlps, 1);
	free(b);

	/* Exactly dwNtbOutMaxSize (512, honoured though bogus): neither. */
	c = def_cfg();
	c.dev_max_size = 512;
	c.max_dgram_len = 358;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(t.max_entries, 32);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 358, 41);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 512);
	CHECK(!e.zlp && !e.padded);
	free(b);

	/* Our size 512 below dwNtbOutMaxSize: padded to 513, still legal. */
	c = def_cfg();
	c.size = 512;
	c.max_dgram_len = 358;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	CHECK_EQ(ch39x_ncm_tx_buf_size(&t), 513);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 358, 41);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 513);
	CHECK(e.padded);
	free(b);

	/* Full speed, 64-byte packets: 154 + 102 = 256 -> 257. */
	c = def_cfg();
	c.maxp = 64;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 102, 42);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 257);
	CHECK_EQ(b[8], 0x01);
	CHECK_EQ(b[9], 0x01);
	CHECK_EQ(b[256], 0);
	/* Not a multiple: untouched. */
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 103, 42);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 257);
	CHECK(!e.padded);
	free(b);
}

static void
test_tx_seq(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx t;
	uint8_t *b;

	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	t.seq = 0xFFFF;
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 1);
	ch39x_ncm_tx_finish(&t);
	CHECK_EQ(b[6], 0xFF);
	CHECK_EQ(b[7], 0xFF);
	ch39x_ncm_tx_begin(&t, b);
	tx_add(&t, 60, 1);
	ch39x_ncm_tx_finish(&t);
	CHECK_EQ(b[6], 0x00);
	CHECK_EQ(b[7], 0x00);
	free(b);
}

/* ---- RX ---- */

#define MAX_GOT 128

struct got {
	unsigned int n;
	uint32_t off[MAX_GOT];
	uint32_t len[MAX_GOT];
	uint8_t first[MAX_GOT];
};

/*
 * Parse v (copied into an exact-size buffer) and record what comes out.
 * Returns what ch39x_ncm_rx_begin returned.
 */
static int
rx_run(struct ch39x_ncm_rx *rx, const uint8_t *v, uint32_t len, struct got *g)
{
	uint8_t *b = dup_exact(v, len);
	struct ch39x_ncm_dgram d;
	int r;

	memset(g, 0, sizeof(*g));
	r = ch39x_ncm_rx_begin(rx, b, len);
	while (ch39x_ncm_rx_next(rx, &d)) {
		if (d.data != b + d.offset || d.offset + d.len > len) {
			n_fail++;
			printf("%s:%d: datagram outside the buffer\n",
			       __FILE__, __LINE__);
		}
		if (g->n < MAX_GOT) {
			g->off[g->n] = d.offset;
			g->len[g->n] = d.len;
			g->first[g->n] = d.data[0];
		}
		g->n++;
	}
	free(b);
	return r;
}

static struct ch39x_ncm_rx_cfg
rx_cfg16(void)
{
	struct ch39x_ncm_rx_cfg c = { .ntb32 = false };

	return c;
}

/*
 * R1, NTB16 as the Linux gadget builds it (NDP after the datagrams):
 * NTH16 wSequence 5, wBlockLength 68, wNdpIndex 48; datagram A at 12
 * (20 bytes), B at 32 (16 bytes); NDP16 at 48: wLength 20, entries
 * (12, 20), (32, 16), (0, 0).
 */
static uint32_t
mk_r1(uint8_t *v)
{
	static const uint8_t nth[] = {
		'N', 'C', 'M', 'H', 0x0C, 0x00, 0x05, 0x00,
		0x44, 0x00, 0x30, 0x00,
	};
	static const uint8_t ndp[] = {
		'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
		0x0C, 0x00, 0x14, 0x00, 0x20, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};

	memset(v, 0, 68);
	memcpy(v, nth, sizeof(nth));
	fill_pat(v + 12, 20, 0x10);
	fill_pat(v + 32, 16, 0x20);
	memcpy(v + 48, ndp, sizeof(ndp));
	return 68;
}

/*
 * R2, NTB16 with two chained NDPs, both in front: block 100.
 * NDP1 at 12: wLength 16, wNextNdpIndex 28, (48, 14), (0, 0).
 * NDP2 at 28: wLength 20, next 0, (64, 20), (84, 16), (0, 0).
 * Datagrams 48..62, 64..84, 84..100.
 */
static uint32_t
mk_r2(uint8_t *v)
{
	static const uint8_t hdr[] = {
		'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
		0x64, 0x00, 0x0C, 0x00,
		/* 12: NDP1 */
		'N', 'C', 'M', '0', 0x10, 0x00, 0x1C, 0x00,
		0x30, 0x00, 0x0E, 0x00, 0x00, 0x00, 0x00, 0x00,
		/* 28: NDP2 */
		'N', 'C', 'M', '0', 0x14, 0x00, 0x00, 0x00,
		0x40, 0x00, 0x14, 0x00, 0x54, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x00,
	};

	memset(v, 0, 100);
	memcpy(v, hdr, sizeof(hdr));
	fill_pat(v + 48, 14, 0x31);
	fill_pat(v + 64, 20, 0x32);
	fill_pat(v + 84, 16, 0x33);
	return 100;
}

/*
 * R3, NTB32 with two chained NDP32s: block 128, wSequence 7.
 * NDP A at 16: wLength 32, dwNext 48, (80, 14), null.
 * NDP B at 48: wLength 32, dwNext 0, (96, 30), null.
 */
static uint32_t
mk_r3(uint8_t *v)
{
	static const uint8_t hdr[] = {
		'n', 'c', 'm', 'h', 0x10, 0x00, 0x07, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00,
		/* 16: NDP A */
		'n', 'c', 'm', '0', 0x20, 0x00, 0x00, 0x00,
		0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x50, 0x00, 0x00, 0x00, 0x0E, 0x00, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0,
		/* 48: NDP B */
		'n', 'c', 'm', '0', 0x20, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x60, 0x00, 0x00, 0x00, 0x1E, 0x00, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0,
	};

	memset(v, 0, 128);
	memcpy(v, hdr, sizeof(hdr));
	fill_pat(v + 80, 14, 0x41);
	fill_pat(v + 96, 30, 0x42);
	return 128;
}

static void
test_rx_valid(void)
{
	struct ch39x_ncm_rx_cfg c = rx_cfg16();
	struct ch39x_ncm_rx rx;
	struct ch39x_ncm_dgram d;
	struct got g;
	uint8_t v[256], *b;
	uint32_t n;

	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(g.off[0], 12);
	CHECK_EQ(g.len[0], 20);
	CHECK_EQ(g.off[1], 32);
	CHECK_EQ(g.len[1], 16);
	CHECK_EQ(rx.stats.ntbs, 1);
	CHECK_EQ(rx.stats.dgrams, 2);
	CHECK_EQ(rx.stats.dgram_bytes, 36);
	CHECK_EQ(rx.stats.ntb_bytes, 68);

	/* Byte content, through the iterator directly. */
	b = dup_exact(v, n);
	CHECK_EQ(ch39x_ncm_rx_begin(&rx, b, n), 0);
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 1);
	CHECK(pat_ok(d.data, d.len, 0x10));
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 1);
	CHECK(pat_ok(d.data, d.len, 0x20));
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 0);
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 0);
	free(b);

	/* Transfer longer than the block: the tail is ignored. */
	memset(v + n, 0xAA, 10);
	CHECK_EQ(rx_run(&rx, v, n + 10, &g), 0);
	CHECK_EQ(g.n, 2);

	/* Block length 0: the whole transfer is the block. */
	n = mk_r1(v);
	v[8] = 0;
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 2);

	/* Chained NDPs. */
	n = mk_r2(v);
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 3);
	CHECK_EQ(g.off[0], 48);
	CHECK_EQ(g.len[0], 14);
	CHECK_EQ(g.first[0], pat(0x31, 0));
	CHECK_EQ(g.off[1], 64);
	CHECK_EQ(g.len[1], 20);
	CHECK_EQ(g.off[2], 84);
	CHECK_EQ(g.len[2], 16);
	CHECK_EQ(g.first[2], pat(0x33, 0));

	/* NTB32. */
	c.ntb32 = true;
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r3(v);
	b = dup_exact(v, n);
	CHECK_EQ(ch39x_ncm_rx_begin(&rx, b, n), 0);
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 1);
	CHECK_EQ(d.offset, 80);
	CHECK_EQ(d.len, 14);
	CHECK(pat_ok(d.data, d.len, 0x41));
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 1);
	CHECK_EQ(d.offset, 96);
	CHECK_EQ(d.len, 30);
	CHECK(pat_ok(d.data, d.len, 0x42));
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 0);
	free(b);
	CHECK_EQ(rx.stats.dgrams, 2);

	/* An NTB16 given to an NTB32 parser is a bad signature. */
	n = mk_r1(v);
	CHECK_EQ(rx_run(&rx, v, n, &g), -1);
	CHECK_EQ(rx.stats.bad_nth_sig, 1);
}

static void
test_rx_malformed(void)
{
	struct ch39x_ncm_rx_cfg c = rx_cfg16();
	struct ch39x_ncm_rx rx;
	struct got g;
	uint8_t v[1024];
	uint32_t n, i;

	/* NTH problems: the NTB is dropped whole. */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	v[3] = 'X';
	CHECK_EQ(rx_run(&rx, v, n, &g), -1);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.bad_nth_sig, 1);

	n = mk_r1(v);
	v[4] = 0x0D;				/* wHeaderLength 13 */
	CHECK_EQ(rx_run(&rx, v, n, &g), -1);
	CHECK_EQ(rx.stats.bad_hdr_len, 1);

	n = mk_r1(v);
	v[8] = 0x45;				/* block 69 > transfer 68 */
	CHECK_EQ(rx_run(&rx, v, n, &g), -1);
	CHECK_EQ(rx.stats.bad_block_len, 1);
	n = mk_r1(v);
	CHECK_EQ(rx_run(&rx, v, 60, &g), -1);	/* truncated transfer */
	CHECK_EQ(rx.stats.bad_block_len, 2);
	n = mk_r1(v);
	v[8] = 0x0B;				/* block 11 < NTH */
	CHECK_EQ(rx_run(&rx, v, n, &g), -1);
	CHECK_EQ(rx.stats.bad_block_len, 3);
	CHECK_EQ(rx_run(&rx, v, 11, &g), -1);	/* shorter than an NTH */
	CHECK_EQ(rx.stats.short_ntb, 1);
	CHECK_EQ(rx_run(&rx, v, 0, &g), -1);
	CHECK_EQ(rx.stats.short_ntb, 2);
	CHECK_EQ(rx.stats.ntbs, 0);

	c.max_ntb = 64;			/* rx_max below the block */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	CHECK_EQ(rx_run(&rx, v, n, &g), -1);
	CHECK_EQ(rx.stats.bad_block_len, 1);
	c = rx_cfg16();

	/* NDP index problems. */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	v[10] = 0x44;				/* at the block end */
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.bad_ndp_index, 1);
	v[10] = 0x40;				/* 64 + 8 > 68 */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_index, 2);
	v[10] = 0x31;				/* unaligned */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_index, 3);
	v[10] = 0x08;				/* inside the NTH */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_index, 4);
	v[10] = 0x00;				/* no NDP at all */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_index, 5);
	v[10] = 0xFC;				/* far past the block */
	v[11] = 0xFF;
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_index, 6);
	CHECK_EQ(rx.stats.dgrams, 0);

	/* NDP length problems. */
	n = mk_r1(v);
	v[52] = 0x0C;				/* wLength 12 < 16 */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_len, 1);
	v[52] = 0x12;			/* 18: not a multiple of 4 */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_len, 2);
	v[52] = 0x18;				/* 48 + 24 = 72 > 68 */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_len, 3);
	v[52] = 0xFF;
	v[53] = 0xFF;
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.bad_ndp_len, 4);
	CHECK_EQ(g.n, 0);

	/* wLength ends before the null entry: both datagrams, counted. */
	n = mk_r1(v);
	v[52] = 0x10;				/* 8 + 2 entries */
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(rx.stats.ndp_no_null, 1);

	/* Datagram entries: each bad one counted and skipped. */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	v[62] = 0x25;				/* B: 32 + 37 = 69 > 68 */
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.off[0], 12);
	CHECK_EQ(rx.stats.bad_dgram, 1);
	n = mk_r1(v);
	v[56] = 0x00;			/* A at 0x100: past the block */
	v[57] = 0x01;
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 1);			/* B still comes */
	CHECK_EQ(g.off[0], 32);
	CHECK_EQ(rx.stats.bad_dgram, 2);
	n = mk_r1(v);
	v[56] = 0x04;				/* A inside the NTH */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(rx.stats.bad_dgram, 3);
	n = mk_r1(v);
	v[58] = 0x0D;				/* A 13 bytes < 14 */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(rx.stats.bad_dgram, 4);
	n = mk_r1(v);
	v[58] = 0xFF;				/* huge lengths: no wrap */
	v[59] = 0xFF;
	v[60] = 0xFF;
	v[61] = 0xFF;
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.bad_dgram, 6);
	c.max_dgram = 19;			/* A is 20 */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 1);
	CHECK_EQ(g.off[0], 32);
	CHECK_EQ(rx.stats.bad_dgram, 1);
	c = rx_cfg16();

	/* Zero length / zero index end the NDP; the chain goes on. */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	v[58] = 0x00;				/* A: (12, 0) */
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.zero_len_dgram, 1);
	n = mk_r1(v);
	v[56] = 0x00;				/* A: (0, 20) */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.zero_idx_dgram, 1);
	n = mk_r2(v);
	v[22] = 0x00;				/* NDP1's (48, 0) */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 2);			/* NDP2's two */
	CHECK_EQ(g.off[0], 64);
	CHECK_EQ(rx.stats.zero_len_dgram, 2);
	n = mk_r1(v);
	memset(v + 56, 0, 8);			/* first entry null */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.empty_ndp, 1);

	/* NDP signature: skipped, its chain followed. */
	n = mk_r2(v);
	v[15] = '1';				/* NDP1 "NCM1" (CRC) */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(rx.stats.ndp_sig_skipped, 1);
	n = mk_r1(v);
	v[48] = 'X';
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.ndp_sig_skipped, 2);

	/* NDP loops: each NDP is read once. */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	v[54] = 0x30;				/* next = itself */
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 2);
	CHECK_EQ(rx.stats.ndp_loops, 1);
	n = mk_r2(v);
	v[34] = 0x0C;				/* NDP2 -> NDP1 */
	rx_run(&rx, v, n, &g);
	CHECK_EQ(g.n, 3);
	CHECK_EQ(rx.stats.ndp_loops, 2);

	/*
	 * A chain longer than the cap: 51 empty NDPs at 12 + 16 i, each
	 * pointing at the next. 50 are read, the 51st counts as a loop.
	 */
	memset(v, 0, sizeof(v));
	n = 12 + 51 * 16;
	memcpy(v, ((const uint8_t[]){ 'N', 'C', 'M', 'H', 0x0C, 0x00,
	       0x00, 0x00 }), 8);
	put_le16(v + 8, (uint16_t)n);
	put_le16(v + 10, 12);
	for (i = 0; i < 51; i++) {
		uint8_t *p = v + 12 + 16 * i;

		memcpy(p, "NCM0", 4);
		put_le16(p + 4, 16);
		put_le16(p + 6, i < 50 ? (uint16_t)(12 + 16 * (i + 1)) : 0);
	}
	ch39x_ncm_rx_init(&rx, &c);
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.empty_ndp, 50);
	CHECK_EQ(rx.stats.ndp_loops, 1);
}

static void
test_rx_seq(void)
{
	struct ch39x_ncm_rx_cfg c = rx_cfg16();
	struct ch39x_ncm_rx rx;
	struct got g;
	uint8_t v[128];
	uint32_t n;
	static const uint16_t seqs[] = { 3, 4, 5, 9, 10, 0xFFFF, 0, 0, 1 };
	unsigned int i;

	/* Gaps: 5 -> 9, 10 -> 0xFFFF, 0 -> 0 after a nonzero run... */
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	for (i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		put_le16(v + 6, seqs[i]);
		rx_run(&rx, v, n, &g);
	}
	/*
	 * 3 (base), 4, 5, 9 gap, 10, 0xFFFF gap, 0 (wrap), 0 (Linux lets a
	 * 0 follow a 0: devices that never count), 1.
	 */
	CHECK_EQ(rx.stats.seq_gaps, 2);

	/* The Linux gadget always sends 0: no gap. */
	ch39x_ncm_rx_init(&rx, &c);
	put_le16(v + 6, 0);
	for (i = 0; i < 5; i++)
		rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.seq_gaps, 0);

	/* A dropped NTH does not move the base; a reset forgets it. */
	put_le16(v + 6, 1);
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.seq_gaps, 0);
	put_le16(v + 6, 2);
	v[0] = 'X';
	rx_run(&rx, v, n, &g);
	v[0] = 'N';
	put_le16(v + 6, 2);
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.seq_gaps, 0);
	ch39x_ncm_rx_reset_seq(&rx);
	put_le16(v + 6, 77);
	rx_run(&rx, v, n, &g);
	CHECK_EQ(rx.stats.seq_gaps, 0);
}

/*
 * What ch39x_ncm_rx_burst() gives for v, max datagrams at a time, as a
 * struct got, with the parser's stats after it in *st. Returns what
 * ch39x_ncm_rx_begin returned.
 */
static int
rx_run_burst(struct ch39x_ncm_rx *rx, const uint8_t *v, uint32_t len,
	     unsigned int max, struct got *g)
{
	struct ch39x_ncm_dgram d[64];
	uint8_t *b = dup_exact(v, len);
	unsigned int k, i;
	int r;

	memset(g, 0, sizeof(*g));
	r = ch39x_ncm_rx_begin(rx, b, len);
	while ((k = ch39x_ncm_rx_burst(rx, d, max)) != 0) {
		CHECK(k <= max);
		for (i = 0; i < k; i++) {
			CHECK(d[i].data == b + d[i].offset &&
			      d[i].offset + d[i].len <= len);
			if (g->n < MAX_GOT) {
				g->off[g->n] = d[i].offset;
				g->len[g->n] = d[i].len;
				g->first[g->n] = d[i].data[0];
			}
			g->n++;
		}
	}
	/* Used up stays used up. */
	CHECK_EQ(ch39x_ncm_rx_burst(rx, d, max), 0);
	free(b);
	return r;
}

/*
 * R4, NTB16, block 140, two chained NDPs in front:
 * NDP1 at 12: wLength 28, next 40: (64, 14), (80, 20), (512, 16) past the
 * block, (104, 16), (0, 0).
 * NDP2 at 40: wLength 16, next 0: (124, 14), (0, 0).
 */
static uint32_t
mk_r4(uint8_t *v)
{
	static const uint8_t hdr[] = {
		'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
		0x8C, 0x00, 0x0C, 0x00,
		/* 12: NDP1 */
		'N', 'C', 'M', '0', 0x1C, 0x00, 0x28, 0x00,
		0x40, 0x00, 0x0E, 0x00, 0x50, 0x00, 0x14, 0x00,
		0x00, 0x02, 0x10, 0x00, 0x68, 0x00, 0x10, 0x00,
		0x00, 0x00, 0x00, 0x00,
		/* 40: NDP2 */
		'N', 'C', 'M', '0', 0x10, 0x00, 0x00, 0x00,
		0x7C, 0x00, 0x0E, 0x00, 0x00, 0x00, 0x00, 0x00,
	};

	memset(v, 0, 140);
	memcpy(v, hdr, sizeof(hdr));
	fill_pat(v + 64, 14, 0x51);
	fill_pat(v + 80, 20, 0x52);
	fill_pat(v + 104, 16, 0x53);
	fill_pat(v + 124, 14, 0x54);
	return 140;
}

/* The batch parser against the one-by-one parser, on the same NTB. */
static void
burst_vs_next(const struct ch39x_ncm_rx_cfg *c, const uint8_t *v,
	      uint32_t n)
{
	static const unsigned int maxes[] = { 1, 2, 3, 5, 64 };
	struct ch39x_ncm_rx a, b;
	struct got ga, gb;
	unsigned int i;

	for (i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		ch39x_ncm_rx_init(&a, c);
		ch39x_ncm_rx_init(&b, c);
		CHECK_EQ(rx_run(&a, v, n, &ga), rx_run_burst(&b, v, n,
							     maxes[i], &gb));
		CHECK_EQ(ga.n, gb.n);
		CHECK(memcmp(ga.off, gb.off, sizeof(ga.off)) == 0 &&
		      memcmp(ga.len, gb.len, sizeof(ga.len)) == 0 &&
		      memcmp(ga.first, gb.first, sizeof(ga.first)) == 0);
		CHECK(memcmp(&a.stats, &b.stats, sizeof(a.stats)) == 0);
	}
}

static void
test_rx_burst(void)
{
	struct ch39x_ncm_rx_cfg c = rx_cfg16();
	struct ch39x_ncm_rx rx;
	struct got g;
	uint8_t v[256];
	unsigned int max;
	uint32_t n;

	/* Every batch size gives the same datagrams and counters. */
	for (max = 1; max <= 6; max++) {
		ch39x_ncm_rx_init(&rx, &c);
		n = mk_r4(v);
		CHECK_EQ(rx_run_burst(&rx, v, n, max, &g), 0);
		CHECK_EQ(g.n, 4);
		CHECK_EQ(g.off[0], 64);
		CHECK_EQ(g.len[0], 14);
		CHECK_EQ(g.first[0], pat(0x51, 0));
		CHECK_EQ(g.off[1], 80);
		CHECK_EQ(g.len[1], 20);
		CHECK_EQ(g.off[2], 104);
		CHECK_EQ(g.len[2], 16);
		CHECK_EQ(g.first[2], pat(0x53, 0));
		CHECK_EQ(g.off[3], 124);
		CHECK_EQ(g.len[3], 14);
		CHECK_EQ(g.first[3], pat(0x54, 0));
		CHECK_EQ(rx.stats.dgrams, 4);
		CHECK_EQ(rx.stats.dgram_bytes, 64);
		CHECK_EQ(rx.stats.bad_dgram, 1);
		CHECK_EQ(rx.stats.ntbs, 1);
	}

	/*
	 * A batch that ends on the last datagram before a clean null entry
	 * and no next NDP leaves the NTB used up: no call more to learn it
	 * (R1's last, (32, 16), in batches of 1 and of 2).
	 */
	for (max = 1; max <= 2; max++) {
		struct ch39x_ncm_dgram d[2];
		unsigned int k, last = 0;

		ch39x_ncm_rx_init(&rx, &c);
		n = mk_r1(v);
		CHECK_EQ(ch39x_ncm_rx_begin(&rx, v, n), 0);
		while (last != 32 && (k = ch39x_ncm_rx_burst(&rx, d, max)) != 0)
			last = d[k - 1].offset;
		CHECK_EQ(last, 32);
		CHECK(ch39x_ncm_rx_used_up(&rx));
		CHECK_EQ(ch39x_ncm_rx_burst(&rx, d, max), 0);
		CHECK_EQ(rx.stats.dgrams, 2);
		CHECK_EQ(rx.stats.ndp_no_null + rx.stats.empty_ndp, 0);
	}

	/* The same as one datagram at a time, whatever is wrong. */
	n = mk_r4(v);
	burst_vs_next(&c, v, n);
	v[25] = 0x00;		/* NDP1 (80, 20) -> (80, 0): ends NDP1 */
	burst_vs_next(&c, v, n);
	n = mk_r4(v);
	v[16] = 0x18;		/* NDP1 wLength 24: no null entry */
	burst_vs_next(&c, v, n);
	n = mk_r4(v);
	v[22] = 0x0D;		/* (64, 13): under 14 */
	burst_vs_next(&c, v, n);
	c.max_dgram = 15;	/* only the 14-byte ones */
	n = mk_r4(v);
	burst_vs_next(&c, v, n);
	c = rx_cfg16();
	n = mk_r1(v);
	burst_vs_next(&c, v, n);
	n = mk_r2(v);
	burst_vs_next(&c, v, n);
	burst_vs_next(&c, v, 60);	/* truncated */
	c.ntb32 = true;
	n = mk_r3(v);
	burst_vs_next(&c, v, n);
	v[36] = 0x00;		/* NDP A (80, 14) -> (0, 14) */
	burst_vs_next(&c, v, n);
}

/* ---- Round trip TX -> RX ---- */

static uint32_t rng_state = 12345;

static uint32_t
rng(void)
{
	rng_state = (uint32_t)(((uint64_t)rng_state * 1103515245u + 12345u) &
			       0xFFFFFFFFu);
	return rng_state >> 8;
}

static void
round_trip(struct ch39x_ncm_tx_cfg *c, unsigned int ntbs)
{
	struct ch39x_ncm_rx_cfg rc = { .ntb32 = c->ntb32 };
	struct ch39x_ncm_tx t;
	struct ch39x_ncm_rx rx;
	struct ch39x_ncm_dgram d;
	uint32_t lens[CH39X_NCM_TX_MAX_DGRAMS + 1];
	uint8_t seeds[CH39X_NCM_TX_MAX_DGRAMS + 1];
	uint32_t maxd, limit_seen = 0;
	unsigned int k, i, n;
	bool ok = true;

	if (ch39x_ncm_tx_init(&t, c) != 0) {
		CHECK(!"round trip config rejected");
		return;
	}
	ch39x_ncm_rx_init(&rx, &rc);
	maxd = ch39x_ncm_tx_max_dgram(&t);
	for (k = 0; k < ntbs; k++) {
		uint8_t *b = tx_buf(&t), *in, *d8;
		struct ch39x_ncm_tx_end e;
		enum ch39x_ncm_fit f = CH39X_NCM_FIT_OK;

		ch39x_ncm_tx_begin(&t, b);
		n = 0;
		for (;;) {
			uint32_t len = 14 + rng() % 1501;

			if (len > maxd)
				len = maxd;
			if (rng() % 8 == 0)
				break;		/* end of burst */
			f = ch39x_ncm_tx_check(&t, len);
			/*
			 * The inline answer is the full check's, and so is
			 * the refusal it records (the close reason).
			 */
			t.refused = CH39X_NCM_FIT_OK;
			ok &= ch39x_ncm_tx_fits(&t, len) ==
			      (f == CH39X_NCM_FIT_OK);
			ok &= t.refused == f;
			ok &= !ch39x_ncm_tx_fits(&t, 0) &&
			      !ch39x_ncm_tx_fits(&t, maxd + 1);
			ok &= t.refused == f;
			if (f != CH39X_NCM_FIT_OK)
				break;
			lens[n] = len;
			seeds[n] = (uint8_t)rng();
			/* Every other one in one step (NULL: NDP at the end). */
			d8 = (n & 1) ? ch39x_ncm_tx_try_add(&t, len) : NULL;
			ok &= !(n & 1) || (d8 == NULL) == c->ndp_at_end;
			if (d8 == NULL)
				d8 = ch39x_ncm_tx_add(&t, len);
			fill_pat(d8, len, seeds[n]);
			n++;
		}
		e = ch39x_ncm_tx_finish(&t);
		if (n == 0) {
			ok &= e.len == 0;
			free(b);
			continue;
		}
		ok &= e.dgrams == n && e.len <= t.dev_max &&
		      e.len <= ch39x_ncm_tx_buf_size(&t);
		ok &= !(e.len % c->maxp == 0 && e.len < t.dev_max && !e.zlp);
		if (e.len > limit_seen)
			limit_seen = e.len;
		in = dup_exact(b, e.len);
		free(b);
		ok &= ch39x_ncm_rx_begin(&rx, in, e.len) == 0;
		for (i = 0; ch39x_ncm_rx_next(&rx, &d); i++) {
			ok &= i < n && d.len == lens[i] &&
			      pat_ok(d.data, d.len, seeds[i]);
			if (!c->raw_remainder)
				ok &= (d.offset + 14) % t.divisor ==
				      (c->remainder < t.divisor ?
				       c->remainder : 0u);
		}
		ok &= i == n;
		free(in);
	}
	CHECK(ok);
	CHECK_EQ(rx.stats.seq_gaps, 0);
	CHECK_EQ(rx.stats.bad_dgram + rx.stats.bad_ndp_index +
		 rx.stats.bad_ndp_len + rx.stats.ndp_no_null, 0);
	CHECK_EQ(rx.stats.dgrams, t.stats.dgrams);
	CHECK_EQ(t.stats.ntbs, t.stats.close_burst + t.stats.close_full +
		 t.stats.close_max_dgrams + t.stats.close_ndp_full);
	CHECK(limit_seen <= t.dev_max);
}

static void
test_round_trip(void)
{
	struct ch39x_ncm_tx_cfg c;
	unsigned int v;

	for (v = 0; v < 16; v++) {
		c = def_cfg();
		c.ntb32 = v & 1;
		c.ndp_at_end = (v >> 1) & 1;
		c.zlp = (v >> 2) & 1;
		if (v & 8) {
			c.divisor = 32;
			c.remainder = 6;
			c.ndp_align = 16;
			c.dev_max_size = 8192;
			c.max_dgrams = 5;
			c.maxp = 64;
		}
		round_trip(&c, 300);
	}
	/* Small NTBs so that "full" and exact multiples happen often. */
	c = def_cfg();
	c.dev_max_size = 2048;
	c.ndp_entries = 200;
	round_trip(&c, 500);
	c.ndp_at_end = true;
	round_trip(&c, 500);
	c.raw_remainder = true;
	c.divisor = 8;
	c.remainder = 4;
	round_trip(&c, 200);
}

/* Random corruption of valid NTBs: nothing may be read out of bounds. */
static void
test_rx_fuzz(void)
{
	struct ch39x_ncm_rx_cfg c = rx_cfg16();
	struct ch39x_ncm_rx rx;
	struct got g;
	uint8_t v[256];
	unsigned int it, k;
	uint32_t n;

	for (it = 0; it < 20000; it++) {
		c.ntb32 = it & 1;
		ch39x_ncm_rx_init(&rx, &c);
		n = c.ntb32 ? mk_r3(v) : ((it & 2) ? mk_r2(v) : mk_r1(v));
		for (k = 0; k < 1 + rng() % 4; k++)
			v[rng() % n] = (uint8_t)(rng() % 4 == 0 ?
				rng() % 8 : rng());
		if (rng() % 4 == 0)
			n = rng() % (n + 1);
		rx_run(&rx, v, n, &g);
		CHECK_EQ(rx.stats.dgrams, g.n);
		if (it % 8 == 0)
			burst_vs_next(&c, v, n);
	}
}

/* ---- MBIM: IPS NDPs (§21) ---- */

/*
 * TX as an MBIM host builds: raw IP datagrams, the remainder placing the
 * datagram's start (no Ethernet header), the session in the NDP's
 * signature, one session per NTB.
 */
static void
test_mbim_tx(void)
{
	struct ch39x_ncm_tx_cfg c = def_cfg();
	struct ch39x_ncm_tx_end e;
	struct ch39x_ncm_tx t;
	uint8_t *b, *d;

	c.ips = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	/*
	 * NDP at 12 with room for 32 entries and the null: 8 + 33 * 4 =
	 * 140, so datagrams start at 152; remainder 0 applies to the start
	 * itself: 152 % 4 == 0. End 152 + 60 = 212.
	 */
	ch39x_ncm_tx_begin(&t, b);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 60, 0), CH39X_NCM_FIT_OK);
	d = ch39x_ncm_tx_add_ips(&t, 60, 0);
	fill_pat(d, 60, 0x61);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(e.len, 212);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_BURST);
	exp_reset(212);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x00, 0x00,
	    0xD4, 0x00, 0x0C, 0x00);		/* block 212, NDP at 12 */
	PUT(12, 'I', 'P', 'S', 0x00, 0x10, 0x00, 0x00, 0x00,
	    0x98, 0x00, 0x3C, 0x00,		/* (152, 60) */
	    0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 152, 60, 0x61);
	CHECK_MEM(b, exp_buf, 212);

	/* Session 3, then a datagram of session 0 closes the NTB. */
	ch39x_ncm_tx_begin(&t, b);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 41, 3), CH39X_NCM_FIT_OK);
	fill_pat(ch39x_ncm_tx_add_ips(&t, 41, 3), 41, 0x62);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 20, 3), CH39X_NCM_FIT_OK);
	fill_pat(ch39x_ncm_tx_add_ips(&t, 20, 3), 20, 0x63);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 40, 0), CH39X_NCM_FIT_SESSION);
	/* Too big is too big in any session. */
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 20000, 0), CH39X_NCM_FIT_TOO_BIG);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 40, 0), CH39X_NCM_FIT_SESSION);
	e = ch39x_ncm_tx_finish(&t);
	/* 152..193, 196..216: wLength 8 + 3 * 4 = 20. */
	CHECK_EQ(e.len, 216);
	CHECK_EQ(e.dgrams, 2);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_SESSION);
	exp_reset(216);
	PUT(0, 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x01, 0x00,
	    0xD8, 0x00, 0x0C, 0x00);
	PUT(12, 'I', 'P', 'S', 0x03, 0x14, 0x00, 0x00, 0x00,
	    0x98, 0x00, 0x29, 0x00,		/* (152, 41) */
	    0xC4, 0x00, 0x14, 0x00,		/* (196, 20) */
	    0x00, 0x00, 0x00, 0x00);
	fill_pat(exp_buf + 152, 41, 0x62);
	fill_pat(exp_buf + 196, 20, 0x63);
	CHECK_MEM(b, exp_buf, 216);
	CHECK_EQ(t.stats.close_session, 1);
	CHECK_EQ(t.stats.close_burst, 1);

	/* The next NTB is session 0's. */
	ch39x_ncm_tx_begin(&t, b);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 40, 0), CH39X_NCM_FIT_OK);
	fill_pat(ch39x_ncm_tx_add_ips(&t, 40, 0), 40, 0x64);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_EQ(b[15], 0x00);
	CHECK_EQ(e.reason, CH39X_NCM_CLOSE_BURST);
	free(b);

	/* NTB32: "ips" and the session. */
	c.ntb32 = true;
	CHECK_EQ(ch39x_ncm_tx_init(&t, &c), 0);
	b = tx_buf(&t);
	ch39x_ncm_tx_begin(&t, b);
	CHECK_EQ(ch39x_ncm_tx_check_ips(&t, 28, 200), CH39X_NCM_FIT_OK);
	fill_pat(ch39x_ncm_tx_add_ips(&t, 28, 200), 28, 0x65);
	e = ch39x_ncm_tx_finish(&t);
	CHECK_MEM(b + 16, ((const uint8_t[]){ 'i', 'p', 's', 200 }), 4);
	CHECK(e.len > 0);
	free(b);
}

/*
 * An MBIM modem's NTB16: an IPS0 NDP, a DSS NDP (a device service
 * stream, not IP: skipped), an IPS7 NDP whose second datagram is shorter
 * than an IPv4 header.
 *   0  NTH16: block 124, NDP at 12
 *   12 IPS0  wLength 16, next 28: (64, 20)
 *   28 DSS1  wLength 16, next 44: (84, 20)
 *   44 IPS7  wLength 20, next 0:  (84, 20) (104, 19)
 *   64 datagram 0x51, 84 datagram 0x52, 104 datagram 0x53 (19 bytes)
 */
static uint32_t
mk_mbim(uint8_t *v)
{
	memset(v, 0, 124);
	memcpy(v, (const uint8_t[]){ 'N', 'C', 'M', 'H', 0x0C, 0x00, 0x05,
		0x00, 0x7C, 0x00, 0x0C, 0x00 }, 12);
	memcpy(v + 12, (const uint8_t[]){ 'I', 'P', 'S', 0, 0x10, 0, 0x1C, 0,
		0x40, 0, 0x14, 0, 0, 0, 0, 0 }, 16);
	memcpy(v + 28, (const uint8_t[]){ 'D', 'S', 'S', 1, 0x10, 0, 0x2C, 0,
		0x54, 0, 0x14, 0, 0, 0, 0, 0 }, 16);
	memcpy(v + 44, (const uint8_t[]){ 'I', 'P', 'S', 7, 0x14, 0, 0, 0,
		0x54, 0, 0x14, 0, 0x68, 0, 0x13, 0, 0, 0, 0, 0 }, 20);
	fill_pat(v + 64, 20, 0x51);
	fill_pat(v + 84, 20, 0x52);
	fill_pat(v + 104, 19, 0x53);
	return 124;
}

static void
test_mbim_rx(void)
{
	struct ch39x_ncm_rx_cfg c = rx_cfg16();
	struct ch39x_ncm_dgram d;
	struct ch39x_ncm_rx rx;
	struct got g;
	uint8_t v[128], *b;
	uint32_t n;

	c.ips = true;
	ch39x_ncm_rx_init(&rx, &c);
	CHECK_EQ(rx.cfg.min_dgram, CH39X_MBIM_MIN_DGRAM);
	n = mk_mbim(v);
	b = dup_exact(v, n);
	CHECK_EQ(ch39x_ncm_rx_begin(&rx, b, n), 0);
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 1);
	CHECK_EQ(d.offset, 64);
	CHECK_EQ(d.len, 20);
	CHECK_EQ(d.session, 0);
	CHECK(pat_ok(d.data, d.len, 0x51));
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 1);
	CHECK_EQ(d.offset, 84);
	CHECK_EQ(d.session, 7);
	CHECK(pat_ok(d.data, d.len, 0x52));
	CHECK_EQ(ch39x_ncm_rx_next(&rx, &d), 0);
	free(b);
	CHECK_EQ(rx.stats.dgrams, 2);
	CHECK_EQ(rx.stats.ndp_sig_skipped, 1);
	CHECK_EQ(rx.stats.bad_dgram, 1);

	/* An NCM parser reads none of it: three foreign NDPs. */
	c.ips = false;
	ch39x_ncm_rx_init(&rx, &c);
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.ndp_sig_skipped, 3);

	/* And an MBIM parser none of an NCM function's NTB. */
	c.ips = true;
	ch39x_ncm_rx_init(&rx, &c);
	n = mk_r1(v);
	CHECK_EQ(rx_run(&rx, v, n, &g), 0);
	CHECK_EQ(g.n, 0);
	CHECK_EQ(rx.stats.ndp_sig_skipped, 1);
}

/* ---- Descriptors ---- */

/*
 * An NCM function as the Linux gadget describes it (f_ncm.c), high speed:
 * config (wTotalLength 94, 2 interfaces), IAD, comm interface 0 (02/0D),
 * Header 1.10, Union 0 -> 1, Ethernet (iMACAddress 4, wMaxSegmentSize
 * 1514), NCM 1.00 caps 0x11, interrupt IN 0x81 (16 bytes, bInterval 9),
 * data interface 1 alt 0 (no endpoints) and alt 1 (bulk IN 0x82, OUT 0x03,
 * 512 each).
 */
static const uint8_t ncm_cfg[] = {
	0x09, 0x02, 0x5E, 0x00, 0x02, 0x01, 0x00, 0xC0, 0x01,
	0x08, 0x0B, 0x00, 0x02, 0x02, 0x0D, 0x00, 0x00,
	0x09, 0x04, 0x00, 0x00, 0x01, 0x02, 0x0D, 0x00, 0x00,
	0x05, 0x24, 0x00, 0x10, 0x01,
	0x05, 0x24, 0x06, 0x00, 0x01,
	0x0D, 0x24, 0x0F, 0x04, 0x00, 0x00, 0x00, 0x00, 0xEA, 0x05,
	0x00, 0x00, 0x00,
	0x06, 0x24, 0x1A, 0x00, 0x01, 0x11,
	0x07, 0x05, 0x81, 0x03, 0x10, 0x00, 0x09,
	0x09, 0x04, 0x01, 0x00, 0x00, 0x0A, 0x00, 0x01, 0x00,
	0x09, 0x04, 0x01, 0x01, 0x02, 0x0A, 0x00, 0x01, 0x00,
	0x07, 0x05, 0x82, 0x02, 0x00, 0x02, 0x00,
	0x07, 0x05, 0x03, 0x02, 0x00, 0x02, 0x00,
};

static int
parse_cfg_exact(const uint8_t *v, uint32_t n, uint8_t sub,
		struct ch39x_cdc_desc *d)
{
	uint8_t *b = dup_exact(v, n);
	int r = ch39x_cdc_parse_config(b, n, sub, d);

	free(b);
	return r;
}

static void
test_descs(void)
{
	struct ch39x_cdc_desc d;
	uint8_t v[128];
	uint32_t n, cut;

	CHECK_EQ(sizeof(ncm_cfg), 94);
	CHECK_EQ(parse_cfg_exact(ncm_cfg, sizeof(ncm_cfg),
				 CH39X_CDC_SUBCLASS_NCM, &d), 0);
	CHECK_EQ(d.errors, 0);
	CHECK_EQ(d.bad_descs, 0);
	CHECK(d.have_comm);
	CHECK_EQ(d.comm_if, 0);
	CHECK_EQ(d.comm_subclass, 0x0D);
	CHECK_EQ(d.intr_ep, 0x81);
	CHECK_EQ(d.intr_maxp, 16);
	CHECK_EQ(d.intr_interval, 9);
	CHECK(d.have_header);
	CHECK_EQ(d.bcd_cdc, 0x0110);
	CHECK(d.have_union);
	CHECK_EQ(d.union_master, 0);
	CHECK_EQ(d.union_slave, 1);
	CHECK(d.have_ether);
	CHECK_EQ(d.i_mac_address, 4);
	CHECK_EQ(d.eth_stats, 0);
	CHECK_EQ(d.max_segment, 1514);
	CHECK_EQ(d.mc_filters, 0);
	CHECK(d.have_ncm);
	CHECK_EQ(d.bcd_ncm, 0x0100);
	CHECK_EQ(d.ncm_caps, 0x11);
	CHECK(d.have_data);
	CHECK_EQ(d.flags, CH39X_CDC_F_DATA_FROM_UNION);
	CHECK_EQ(d.data_if, 1);
	CHECK(d.have_data_eps);
	CHECK_EQ(d.data_alt, 1);
	CHECK_EQ(d.data_protocol, CH39X_CDC_NCM_PROTO_NTB);
	CHECK_EQ(d.bulk_in, 0x82);
	CHECK_EQ(d.bulk_out, 0x03);
	CHECK_EQ(d.bulk_in_maxp, 512);
	CHECK_EQ(d.bulk_out_maxp, 512);
	CHECK(ch39x_cdc_usable(&d));

	/* Any subclass finds it too; ECM does not. */
	CHECK_EQ(parse_cfg_exact(ncm_cfg, sizeof(ncm_cfg), 0, &d), 0);
	CHECK(d.have_comm);
	CHECK_EQ(parse_cfg_exact(ncm_cfg, sizeof(ncm_cfg),
				 CH39X_CDC_SUBCLASS_ECM, &d), 0);
	CHECK(!d.have_comm);
	CHECK(!ch39x_cdc_usable(&d));

	/*
	 * Every truncation, in an exact buffer. Cuts inside a descriptor
	 * stop the walk (-1); cuts on a boundary walk what is there. All of
	 * them disagree with wTotalLength.
	 */
	for (cut = 0; cut < sizeof(ncm_cfg); cut++) {
		static const uint32_t bounds[] = {
			9, 17, 26, 31, 36, 49, 55, 62, 71, 80, 87,
		};
		bool on_bound = false;
		unsigned int k;
		int r = parse_cfg_exact(ncm_cfg, cut, CH39X_CDC_SUBCLASS_NCM,
					&d);

		for (k = 0; k < sizeof(bounds) / sizeof(bounds[0]); k++)
			on_bound |= cut == bounds[k];
		if (cut == 0) {
			CHECK_EQ(r, 0);
			CHECK(!d.have_comm);
		} else if (cut < 9) {
			/* No config header: walked as a bare list. */
			CHECK(d.errors & CH39X_CDC_E_NO_CONFIG);
		} else {
			CHECK(d.errors & CH39X_CDC_E_TOTAL_LEN);
			CHECK_EQ(r, on_bound ? 0 : -1);
		}
		CHECK(!d.have_data_eps);
	}
	/* Cut before the NCM functional descriptor: not usable. */
	CHECK_EQ(parse_cfg_exact(ncm_cfg, 49, CH39X_CDC_SUBCLASS_NCM, &d), 0);
	CHECK(d.have_ether && !d.have_ncm && !ch39x_cdc_usable(&d));

	/* bLength 0 in the middle: stop there, keep what came before. */
	memcpy(v, ncm_cfg, sizeof(ncm_cfg));
	v[55] = 0x00;			/* the interrupt endpoint */
	CHECK_EQ(parse_cfg_exact(v, sizeof(ncm_cfg), 0, &d), -1);
	CHECK(d.errors & CH39X_CDC_E_MALFORMED);
	CHECK_EQ(d.malformed_at, 55);
	CHECK(d.have_ncm && !d.have_data_eps && d.intr_ep == 0);
	/* bLength past the end. */
	memcpy(v, ncm_cfg, sizeof(ncm_cfg));
	v[87] = 0x08;			/* last endpoint claims 8 */
	CHECK_EQ(parse_cfg_exact(v, sizeof(ncm_cfg), 0, &d), -1);
	CHECK_EQ(d.malformed_at, 87);
	CHECK(!d.have_data_eps);
	/* wTotalLength smaller than the blob: only that much is walked. */
	memcpy(v, ncm_cfg, sizeof(ncm_cfg));
	v[2] = 80;
	CHECK_EQ(parse_cfg_exact(v, sizeof(ncm_cfg), 0, &d), 0);
	CHECK(d.errors & CH39X_CDC_E_TOTAL_LEN);
	CHECK(!d.have_data_eps);		/* endpoints were after 80 */

	/*
	 * A 12-byte Ethernet descriptor (one short): ignored and counted;
	 * the walk goes on. Built by dropping byte 48 and fixing lengths.
	 */
	memcpy(v, ncm_cfg, 48);
	memcpy(v + 48, ncm_cfg + 49, sizeof(ncm_cfg) - 49);
	n = sizeof(ncm_cfg) - 1;
	v[2] = (uint8_t)n;
	v[36] = 0x0C;
	CHECK_EQ(parse_cfg_exact(v, n, 0, &d), 0);
	CHECK_EQ(d.errors, CH39X_CDC_E_SHORT_DESC);
	CHECK_EQ(d.bad_descs, 1);
	CHECK(!d.have_ether && d.have_ncm && d.have_data_eps);
	/* A 5-byte NCM descriptor (bmNetworkCapabilities cut off). */
	memcpy(v, ncm_cfg, 54);
	memcpy(v + 54, ncm_cfg + 55, sizeof(ncm_cfg) - 55);
	n = sizeof(ncm_cfg) - 1;
	v[2] = (uint8_t)n;
	v[49] = 0x05;
	CHECK_EQ(parse_cfg_exact(v, n, 0, &d), 0);
	CHECK_EQ(d.errors, CH39X_CDC_E_SHORT_DESC);
	CHECK(d.have_ether && !d.have_ncm && d.intr_ep == 0x81);
	CHECK(d.have_data_eps && !ch39x_cdc_usable(&d));

	/* Duplicate NCM descriptor: the first is kept. */
	memcpy(v, ncm_cfg, 55);
	memcpy(v + 55, ((const uint8_t[]){ 0x06, 0x24, 0x1A, 0x00, 0x02,
	       0x3F }), 6);
	memcpy(v + 61, ncm_cfg + 55, sizeof(ncm_cfg) - 55);
	n = sizeof(ncm_cfg) + 6;
	v[2] = (uint8_t)n;
	CHECK_EQ(parse_cfg_exact(v, n, 0, &d), 0);
	CHECK_EQ(d.errors, CH39X_CDC_E_DUPLICATE);
	CHECK_EQ(d.bcd_ncm, 0x0100);
	CHECK_EQ(d.ncm_caps, 0x11);

	/* No Union: the IAD's two interfaces give the data interface. */
	memcpy(v, ncm_cfg, 31);
	memcpy(v + 31, ncm_cfg + 36, sizeof(ncm_cfg) - 36);
	n = sizeof(ncm_cfg) - 5;
	v[2] = (uint8_t)n;
	CHECK_EQ(parse_cfg_exact(v, n, 0, &d), 0);
	CHECK(!d.have_union);
	CHECK_EQ(d.flags, CH39X_CDC_F_DATA_FROM_IAD);
	CHECK_EQ(d.data_if, 1);
	CHECK(d.have_data_eps);
	/* ...and without the IAD either: no data interface. */
	memcpy(v, ncm_cfg, 9);
	memcpy(v + 9, ncm_cfg + 17, 14);
	memcpy(v + 23, ncm_cfg + 36, sizeof(ncm_cfg) - 36);
	n = sizeof(ncm_cfg) - 13;
	v[2] = (uint8_t)n;
	CHECK_EQ(parse_cfg_exact(v, n, 0, &d), 0);
	CHECK(d.have_comm && !d.have_data && !d.have_data_eps);

	/* Union master that is not the comm interface: flagged. */
	memcpy(v, ncm_cfg, sizeof(ncm_cfg));
	v[34] = 0x05;
	CHECK_EQ(parse_cfg_exact(v, sizeof(ncm_cfg), 0, &d), 0);
	CHECK(d.errors & CH39X_CDC_E_UNION_MASTER);
	CHECK(d.have_data_eps);
}

static int
mac_exact(const uint8_t *v, uint32_t n, uint8_t mac[6])
{
	uint8_t *b = dup_exact(v, n);
	int r = ch39x_cdc_parse_mac_string(b, n, mac);

	free(b);
	return r;
}

static void
test_mac_string(void)
{
	static const uint8_t s[26] = {
		0x1A, 0x03, '0', 0, '2', 0, '1', 0, 'a', 0, '2', 0, 'B', 0,
		'3', 0, 'c', 0, '4', 0, 'D', 0, 'e', 0, 'F', 0,
	};
	uint8_t v[32], mac[6] = { 0 };

	CHECK_EQ(mac_exact(s, 26, mac), 0);
	CHECK_MEM(mac, ((const uint8_t[]){ 0x02, 0x1A, 0x2B, 0x3C, 0x4D,
		  0xEF }), 6);
	memset(mac, 0x55, 6);
	CHECK_EQ(mac_exact(s, 25, mac), -1);	/* shorter than bLength */
	CHECK_EQ(mac[0], 0x55);			/* untouched on error */
	memcpy(v, s, 26);
	v[0] = 0x18;				/* 11 characters */
	CHECK_EQ(mac_exact(v, 24, mac), -1);
	memcpy(v, s, 26);
	v[0] = 0x1C;				/* 13 characters */
	v[26] = '0';
	v[27] = 0;
	CHECK_EQ(mac_exact(v, 28, mac), -1);
	memcpy(v, s, 26);
	v[1] = 0x02;			/* not a string descriptor */
	CHECK_EQ(mac_exact(v, 26, mac), -1);
	memcpy(v, s, 26);
	v[12] = 'G';
	CHECK_EQ(mac_exact(v, 26, mac), -1);
	memcpy(v, s, 26);
	v[13] = 0x01;				/* U+0130, not ASCII */
	CHECK_EQ(mac_exact(v, 26, mac), -1);
	CHECK_EQ(mac_exact(s, 0, mac), -1);
}

/* The gadget's connect sequence, one notification per transfer. */
static void
test_notify(void)
{
	static const uint8_t speed[16] = {
		0xA1, 0x2A, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00,
		0x00, 0xCA, 0x9A, 0x3B,		/* DL 1,000,000,000 */
		0x00, 0xE1, 0xF5, 0x05,		/* UL 100,000,000 */
	};
	static const uint8_t conn1[8] = {
		0xA1, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
	};
	struct ch39x_cdc_notify_parser ps;
	struct ch39x_cdc_notify n;
	uint8_t *b;

	ch39x_cdc_notify_init(&ps);
	b = dup_exact(speed, 16);
	ch39x_cdc_notify_begin(&ps, b, 16);
	CHECK_EQ(ch39x_cdc_notify_next(&ps, &n), 1);
	CHECK_EQ(n.code, CH39X_CDC_NOTIFY_SPEED_CHANGE);
	CHECK_EQ(n.down_bps, 1000000000);
	CHECK_EQ(n.up_bps, 100000000);
	CHECK_EQ(ch39x_cdc_notify_next(&ps, &n), 0);
	free(b);
	b = dup_exact(conn1, 8);
	ch39x_cdc_notify_begin(&ps, b, 8);
	CHECK_EQ(ch39x_cdc_notify_next(&ps, &n), 1);
	CHECK_EQ(n.code, CH39X_CDC_NOTIFY_NETWORK_CONNECTION);
	CHECK(n.link_up);
	free(b);
	CHECK_EQ(ps.stats.notifications, 2);
}

/*
 * An MBIM function (§22): config (wTotalLength 95, 2 interfaces), IAD,
 * comm interface 0 (02/0E/00), Header 1.10, MBIM 1.00 (wMaxControlMessage
 * 4096, 16 filters of 128 bytes, wMaxSegmentSize 2048, caps 0x20), MBIM
 * extended 1.00 (1 outstanding, wMTU 1500), Union 0 -> 1, interrupt IN
 * 0x81 (64 bytes, bInterval 5), data interface 1 (0A/00/02) alt 0 and alt 1
 * (bulk IN 0x82, OUT 0x03, 512 each).
 */
static const uint8_t mbim_cfg[] = {
	0x09, 0x02, 0x5F, 0x00, 0x02, 0x01, 0x00, 0xC0, 0x01,
	0x08, 0x0B, 0x00, 0x02, 0x02, 0x0E, 0x00, 0x00,
	0x09, 0x04, 0x00, 0x00, 0x01, 0x02, 0x0E, 0x00, 0x00,
	0x05, 0x24, 0x00, 0x10, 0x01,
	0x0C, 0x24, 0x1B, 0x00, 0x01, 0x00, 0x10, 0x10, 0x80, 0x00, 0x08,
	0x20,
	0x08, 0x24, 0x1C, 0x00, 0x01, 0x01, 0xDC, 0x05,
	0x05, 0x24, 0x06, 0x00, 0x01,
	0x07, 0x05, 0x81, 0x03, 0x40, 0x00, 0x05,
	0x09, 0x04, 0x01, 0x00, 0x00, 0x0A, 0x00, 0x02, 0x00,
	0x09, 0x04, 0x01, 0x01, 0x02, 0x0A, 0x00, 0x02, 0x00,
	0x07, 0x05, 0x82, 0x02, 0x00, 0x02, 0x00,
	0x07, 0x05, 0x03, 0x02, 0x00, 0x02, 0x00,
};

static void
test_descs_mbim(void)
{
	struct ch39x_cdc_desc d;
	uint8_t v[sizeof(mbim_cfg)];

	CHECK_EQ(sizeof(mbim_cfg), 95);
	CHECK_EQ(parse_cfg_exact(mbim_cfg, sizeof(mbim_cfg),
				 CH39X_CDC_SUBCLASS_MBIM, &d), 0);
	CHECK_EQ(d.errors, 0);
	CHECK_EQ(d.comm_subclass, CH39X_CDC_SUBCLASS_MBIM);
	CHECK(d.have_mbim);
	CHECK_EQ(d.bcd_mbim, 0x0100);
	CHECK_EQ(d.mbim_max_ctrl, 4096);
	CHECK_EQ(d.mbim_filters, 16);
	CHECK_EQ(d.mbim_filter_size, 128);
	CHECK_EQ(d.mbim_max_segment, 2048);
	CHECK_EQ(d.mbim_caps, 0x20);
	CHECK(d.have_mbim_ext);
	CHECK_EQ(d.mbim_max_outstanding, 1);
	CHECK_EQ(d.mbim_mtu, 1500);
	CHECK(!d.have_ether && !d.have_ncm);
	CHECK_EQ(d.intr_ep, 0x81);
	CHECK_EQ(d.intr_maxp, 64);
	CHECK_EQ(d.data_if, 1);
	CHECK_EQ(d.data_alt, 1);
	CHECK_EQ(d.data_protocol, CH39X_CDC_MBIM_PROTO_NTB);
	CHECK_EQ(d.bulk_in, 0x82);
	CHECK(ch39x_cdc_usable(&d));
	/* Listed as a network function (function=0 names it). */
	{
		struct ch39x_cdc_fn fns[2];
		uint8_t *x = dup_exact(mbim_cfg, sizeof(mbim_cfg));

		CHECK_EQ(ch39x_cdc_list_functions(x, sizeof(mbim_cfg), fns, 2),
			 1);
		CHECK_EQ(fns[0].subclass, CH39X_CDC_SUBCLASS_MBIM);
		CHECK(fns[0].comm_if == 0 && fns[0].have_data &&
		      fns[0].data_if == 1 && fns[0].usable);
		free(x);
	}
	/* Asking for NCM or either finds nothing: MBIM is asked by name. */
	CHECK_EQ(parse_cfg_exact(mbim_cfg, sizeof(mbim_cfg), 0, &d), 0);
	CHECK(!d.have_comm);
	/* Without the interrupt endpoint no response can be read. */
	memcpy(v, mbim_cfg, sizeof(v));
	v[56 + 3] = 0x02;		/* the endpoint turned bulk */
	CHECK_EQ(parse_cfg_exact(v, sizeof(v), CH39X_CDC_SUBCLASS_MBIM, &d),
		 0);
	CHECK(d.have_mbim && d.intr_ep == 0 && !ch39x_cdc_usable(&d));
	/* An MBIM descriptor of 11 bytes is too short, and ignored. */
	memcpy(v, mbim_cfg, sizeof(v));
	v[31] = 0x0B;
	v[42] = 0x01;			/* the lost byte: a 1-byte filler */
	CHECK_EQ(parse_cfg_exact(v, sizeof(v), CH39X_CDC_SUBCLASS_MBIM, &d),
		 -1);
	CHECK(!d.have_mbim);
}

/*
 * The builder, the walker's inverse (cdc_build_check.h); an MBIM function
 * built again walks to the same: its MBIM and extended descriptors after
 * the Union (the order the builder has).
 */
static void
test_build_config(void)
{
	struct ch39x_cdc_desc d, d2;
	uint8_t out[256];
	uint32_t n;

	check_build_config(ncm_cfg, sizeof(ncm_cfg));
	CHECK_EQ(parse_cfg_exact(mbim_cfg, sizeof(mbim_cfg),
				 CH39X_CDC_SUBCLASS_MBIM, &d), 0);
	n = ch39x_cdc_build_config(&d, 1, false, out, sizeof(out));
	CHECK_EQ(n, sizeof(mbim_cfg));
	CHECK_EQ(parse_cfg_exact(out, n, CH39X_CDC_SUBCLASS_MBIM, &d2), 0);
	CHECK_EQ(d2.errors, 0);
	CHECK_MEM(&d2, &d, sizeof(d));
	CHECK_MEM(out + 9 + 8 + 9 + 5 + 5, mbim_cfg + 31, 12 + 8);
}

/*
 * A composite device's configuration, as a modem's: an ACM serial port
 * (interfaces 0 and 1: communication 02/02/01 with its Header, Call
 * Management, ACM and Union descriptors, then its data interface), the
 * gadget's NCM function moved to interfaces 2 and 3 (endpoints 0x84,
 * 0x85, 0x06), and an ECM function at 4 and 5 (no IAD; 0x87, 0x88, 0x09).
 */
static uint32_t
composite_cfg(uint8_t *b)
{
	static const uint8_t acm[] = {
		0x08, 0x0B, 0x00, 0x02, 0x02, 0x02, 0x01, 0x00,
		0x09, 0x04, 0x00, 0x00, 0x01, 0x02, 0x02, 0x01, 0x00,
		0x05, 0x24, 0x00, 0x10, 0x01,
		0x05, 0x24, 0x01, 0x00, 0x01,
		0x04, 0x24, 0x02, 0x02,
		0x05, 0x24, 0x06, 0x00, 0x01,
		0x07, 0x05, 0x81, 0x03, 0x0A, 0x00, 0x09,
		0x09, 0x04, 0x01, 0x00, 0x02, 0x0A, 0x00, 0x00, 0x00,
		0x07, 0x05, 0x82, 0x02, 0x00, 0x02, 0x00,
		0x07, 0x05, 0x03, 0x02, 0x00, 0x02, 0x00,
	};
	static const uint8_t ecm[] = {
		0x09, 0x04, 0x04, 0x00, 0x01, 0x02, 0x06, 0x00, 0x00,
		0x05, 0x24, 0x00, 0x10, 0x01,
		0x05, 0x24, 0x06, 0x04, 0x05,
		0x0D, 0x24, 0x0F, 0x05, 0x00, 0x00, 0x00, 0x00, 0xEA, 0x05,
		0x00, 0x00, 0x00,
		0x07, 0x05, 0x87, 0x03, 0x10, 0x00, 0x09,
		0x09, 0x04, 0x05, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00,
		0x09, 0x04, 0x05, 0x01, 0x02, 0x0A, 0x00, 0x00, 0x00,
		0x07, 0x05, 0x88, 0x02, 0x00, 0x02, 0x00,
		0x07, 0x05, 0x09, 0x02, 0x00, 0x02, 0x00,
	};
	uint32_t n = 9, ncm;

	memcpy(b, ncm_cfg, 9);
	memcpy(b + n, acm, sizeof(acm));
	n += sizeof(acm);
	ncm = n;
	memcpy(b + n, ncm_cfg + 9, sizeof(ncm_cfg) - 9);
	n += sizeof(ncm_cfg) - 9;
	/* The NCM function's interface numbers and endpoints, moved. */
	b[ncm + 2] = 2;			/* IAD bFirstInterface */
	b[ncm + 8 + 2] = 2;		/* communication interface */
	b[ncm + 22 + 3] = 2;		/* Union master, slave */
	b[ncm + 22 + 4] = 3;
	b[ncm + 46 + 2] = 0x84;		/* interrupt IN */
	b[ncm + 53 + 2] = 3;		/* data alt 0, alt 1 */
	b[ncm + 62 + 2] = 3;
	b[ncm + 71 + 2] = 0x85;		/* bulk IN, OUT */
	b[ncm + 78 + 2] = 0x06;
	memcpy(b + n, ecm, sizeof(ecm));
	n += sizeof(ecm);
	b[2] = (uint8_t)n;
	b[3] = (uint8_t)(n >> 8);
	b[4] = 6;
	return n;
}

/* The network functions of a composite configuration, chosen by number. */
static void
test_functions(void)
{
	struct ch39x_cdc_fn fns[4];
	struct ch39x_cdc_desc d;
	uint8_t b[512], *x;
	uint32_t n = composite_cfg(b), cut;

	CHECK_EQ(n, 9 + 66 + 85 + 71);
	/* The first NCM or ECM function: NCM at 2; the ACM port is not one. */
	CHECK_EQ(parse_cfg_exact(b, n, 0, &d), 0);
	CHECK_EQ(d.errors, 0);
	CHECK_EQ(d.comm_if, 2);
	CHECK_EQ(d.comm_subclass, CH39X_CDC_SUBCLASS_NCM);
	CHECK_EQ(d.data_if, 3);
	CHECK_EQ(d.intr_ep, 0x84);
	CHECK_EQ(d.bulk_in, 0x85);
	CHECK_EQ(d.bulk_out, 0x06);
	CHECK(ch39x_cdc_usable(&d));
	/* By the number of its communication interface. */
	x = dup_exact(b, n);
	CHECK_EQ(ch39x_cdc_parse_function(x, n, 0, 4, &d), 0);
	CHECK(ch39x_cdc_usable(&d));
	CHECK_EQ(d.comm_subclass, CH39X_CDC_SUBCLASS_ECM);
	CHECK_EQ(d.data_if, 5);
	CHECK_EQ(d.i_mac_address, 5);
	CHECK_EQ(d.bulk_in, 0x88);
	CHECK_EQ(d.bulk_out, 0x09);
	CHECK_EQ(ch39x_cdc_parse_function(x, n, CH39X_CDC_SUBCLASS_NCM, 4, &d),
		 0);
	CHECK(!d.have_comm);
	/* The ACM port's interface is no network function. */
	CHECK_EQ(ch39x_cdc_parse_function(x, n, 0, 0, &d), 0);
	CHECK(!d.have_comm);
	CHECK_EQ(ch39x_cdc_list_functions(x, n, fns, 4), 2);
	CHECK_EQ(fns[0].comm_if, 2);
	CHECK_EQ(fns[0].subclass, CH39X_CDC_SUBCLASS_NCM);
	CHECK(fns[0].have_data && fns[0].data_if == 3 && fns[0].usable);
	CHECK_EQ(fns[1].comm_if, 4);
	CHECK_EQ(fns[1].subclass, CH39X_CDC_SUBCLASS_ECM);
	CHECK(fns[1].have_data && fns[1].data_if == 5 && fns[1].usable);
	/* Room for one: the count says there are more. */
	CHECK_EQ(ch39x_cdc_list_functions(x, n, fns, 1), 2);
	free(x);
	/* Every truncation, in an exact buffer: never more than two. */
	for (cut = 0; cut < n; cut++) {
		x = dup_exact(b, cut);
		CHECK(ch39x_cdc_list_functions(x, cut, fns, 4) <= 2);
		free(x);
	}
}

int
main(void)
{
	test_ntb_params();
	test_tx_ntb16_front();
	test_tx_max_dgrams();
	test_tx_align();
	test_tx_front_vs_end();
	test_tx_ntb32();
	test_tx_size_limit();
	test_tx_zlp_pad();
	test_tx_seq();
	test_rx_valid();
	test_rx_malformed();
	test_rx_seq();
	test_rx_burst();
	test_round_trip();
	test_rx_fuzz();
	test_mbim_tx();
	test_mbim_rx();
	test_descs();
	test_descs_mbim();
	test_build_config();
	test_functions();
	test_mac_string();
	test_notify();
	printf("test_ncm: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
