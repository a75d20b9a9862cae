/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz ch39x_ncm_parse_ntb_params with GET_NTB_PARAMETERS data stages as an
 * untrusted device may answer (0..64 bytes, the whole input), then build
 * an NTB with the TX builder set up from what was parsed, as a host does:
 * it must never be longer than dwNtbOutMaxSize.
 *
 * The input is the data stage. Bytes past the 28 of the structure (a
 * device may answer with a longer wLength) also steer the TX side; when
 * absent, the defaults below apply:
 *   byte 28  bit 0: NTB32 when the device offers it (always when it offers
 *            only NTB32), bit 1 ndp_at_end, bit 2 zlp, bit 3 raw_remainder,
 *            bits 4-5: wMaxPacketSize 512, 64, 1024, or bytes 29-30;
 *            bit 6: NTB size from bytes 31-34 (else 0, the default);
 *            bit 7: NDP entries from byte 35 (else 0, the default)
 *            (default 0: NTB16, NDP first, pad byte, 512)
 *   29-30    LE wMaxPacketSize
 *   31-34    LE NTB size
 *   35       NDP entries
 *   36..     2 bytes LE per datagram (up to 14): its length, taken modulo
 *            (largest datagram + 2); default 1514, 60, 1514, 14
 *
 * The data stage is an exactly sized heap copy, and so are the TX buffer
 * (ch39x_ncm_tx_buf_size() bytes) and the NTB handed to the RX parser.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_ncm.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends */
#include "fuzz.h"

#define MAX_DGRAMS 14

static bool
pow2_ge4(uint32_t v)
{
	return v >= 4 && (v & (v - 1)) == 0;
}

/* The warnings of ch39x_ncm.h for a structure that parsed. */
static int
expect_warnings(const struct ch39x_ncm_ntb_params *p)
{
	uint32_t w = 0;
	uint32_t in_div = pow2_ge4(p->in_divisor) ? p->in_divisor : 4;
	uint32_t out_div = pow2_ge4(p->out_divisor) ? p->out_divisor : 4;

	if (p->length != CH39X_NCM_NTB_PARAMS_LEN)
		w |= CH39X_NCM_PW_LENGTH;
	if (!(p->formats & CH39X_NCM_FMT_NTB16_BIT))
		w |= CH39X_NCM_PW_NO_NTB16;
	if (p->in_max_size < CH39X_NCM_NTB_MIN_SIZE)
		w |= CH39X_NCM_PW_IN_SIZE;
	if (p->out_max_size < CH39X_NCM_NTB_MIN_SIZE)
		w |= CH39X_NCM_PW_OUT_SIZE;
	if (!pow2_ge4(p->in_divisor))
		w |= CH39X_NCM_PW_IN_DIVISOR;
	if (p->in_remainder >= in_div)
		w |= CH39X_NCM_PW_IN_REM;
	if (!pow2_ge4(p->in_alignment))
		w |= CH39X_NCM_PW_IN_ALIGN;
	if (!pow2_ge4(p->out_divisor))
		w |= CH39X_NCM_PW_OUT_DIVISOR;
	if (p->out_remainder >= out_div)
		w |= CH39X_NCM_PW_OUT_REM;
	if (!pow2_ge4(p->out_alignment))
		w |= CH39X_NCM_PW_OUT_ALIGN;
	return (int)w;
}

static void
check_parse(const uint8_t *b, uint32_t n, const struct ch39x_ncm_ntb_params *p,
	    int r)
{
	static const struct ch39x_ncm_ntb_params zero;

	if (n < CH39X_NCM_NTB_PARAMS_LEN) {
		FUZZ_CHECK(r == -1);
		FUZZ_CHECK(memcmp(p, &zero, sizeof(zero)) == 0);
		return;
	}
	/* Filled whenever 28 bytes came, field by field. */
	FUZZ_CHECK(p->length == ch39x_get_le16(b));
	FUZZ_CHECK(p->formats == ch39x_get_le16(b + 2));
	FUZZ_CHECK(p->in_max_size == ch39x_get_le32(b + 4));
	FUZZ_CHECK(p->in_divisor == ch39x_get_le16(b + 8));
	FUZZ_CHECK(p->in_remainder == ch39x_get_le16(b + 10));
	FUZZ_CHECK(p->in_alignment == ch39x_get_le16(b + 12));
	FUZZ_CHECK(p->out_max_size == ch39x_get_le32(b + 16));
	FUZZ_CHECK(p->out_divisor == ch39x_get_le16(b + 20));
	FUZZ_CHECK(p->out_remainder == ch39x_get_le16(b + 22));
	FUZZ_CHECK(p->out_alignment == ch39x_get_le16(b + 24));
	FUZZ_CHECK(p->out_max_datagrams == ch39x_get_le16(b + 26));
	if (p->length < CH39X_NCM_NTB_PARAMS_LEN ||
	    !(p->formats & (CH39X_NCM_FMT_NTB16_BIT |
			    CH39X_NCM_FMT_NTB32_BIT)))
		FUZZ_CHECK(r == -1);
	else
		FUZZ_CHECK(r == expect_warnings(p));
}

static uint8_t
ctl(const uint8_t *d, size_t n, size_t i)
{
	return i < n ? d[i] : 0;
}

static uint16_t
ctl16(const uint8_t *d, size_t n, size_t i, uint16_t def)
{
	return i + 2 <= n ? ch39x_get_le16(d + i) : def;
}

/* Build an NTB from the parsed parameters and check its size. */
static void
build_ntb(const uint8_t *d, size_t n, const struct ch39x_ncm_ntb_params *p)
{
	static const uint16_t def_lens[] = { 1514, 60, 1514, 14 };
	static const uint16_t maxps[] = { 512, 64, 1024 };
	uint8_t f = ctl(d, n, 28);
	bool n32 = (p->formats & CH39X_NCM_FMT_NTB32_BIT) &&
		   ((f & 1) || !(p->formats & CH39X_NCM_FMT_NTB16_BIT));
	uint32_t out_max, buf_size, max_dgram, len, i, k = 0, added = 0;
	struct ch39x_ncm_rx_cfg rcfg;
	struct ch39x_ncm_tx_cfg c;
	struct ch39x_ncm_tx_end e;
	struct ch39x_ncm_dgram dg;
	struct ch39x_ncm_tx *t;
	struct ch39x_ncm_rx *rx;
	uint32_t lens[MAX_DGRAMS];
	enum ch39x_ncm_fit r;
	uint8_t *buf, *ntb, *dst;
	uint16_t maxp;

	maxp = ((f >> 4) & 3) == 3 ? ctl16(d, n, 29, 512) :
	       maxps[(f >> 4) & 3];
	ch39x_ncm_tx_cfg_from_params(&c, p, n32, maxp);
	FUZZ_CHECK(c.ntb32 == n32 && c.maxp == maxp);
	FUZZ_CHECK(c.dev_max_size == p->out_max_size);
	FUZZ_CHECK(c.divisor == p->out_divisor);
	FUZZ_CHECK(c.remainder == p->out_remainder);
	FUZZ_CHECK(c.ndp_align == p->out_alignment);
	FUZZ_CHECK(c.max_dgrams == p->out_max_datagrams);
	FUZZ_CHECK(c.size == 0 && c.ndp_entries == 0 && !c.ndp_at_end &&
		   !c.zlp && !c.raw_remainder);
	c.ndp_at_end = (f & 2) != 0;
	c.zlp = (f & 4) != 0;
	c.raw_remainder = (f & 8) != 0;
	if ((f & 0x40) && n >= 35)
		c.size = ch39x_get_le32(d + 31);
	if (f & 0x80)
		c.ndp_entries = ctl(d, n, 35);

	/* dwNtbOutMaxSize, or the 2048 every device takes for a bogus 0. */
	out_max = p->out_max_size ? p->out_max_size : CH39X_NCM_NTB_MIN_SIZE;
	if (!n32 && out_max > CH39X_NCM_NTB16_MAX_SIZE)
		out_max = CH39X_NCM_NTB16_MAX_SIZE;

	t = malloc(sizeof(*t));
	FUZZ_CHECK(t != NULL);
	if (ch39x_ncm_tx_init(t, &c) != 0) {
		FUZZ_CHECK(maxp == 0 ||
			   ch39x_ncm_tx_max_dgram(t) < CH39X_NCM_ETH_HLEN);
		free(t);
		return;
	}
	FUZZ_CHECK(maxp != 0);
	FUZZ_CHECK(t->dev_max == out_max && t->limit <= out_max);
	buf_size = ch39x_ncm_tx_buf_size(t);
	/* With the default size the buffer stays small. */
	if (c.size == 0)
		FUZZ_CHECK(buf_size <= CH39X_NCM_TX_DEF_SIZE + 1);
	else if (buf_size > 256u * 1024u) {
		free(t);
		return;
	}
	max_dgram = ch39x_ncm_tx_max_dgram(t);
	FUZZ_CHECK(max_dgram >= CH39X_NCM_ETH_HLEN);
	buf = malloc(buf_size);
	FUZZ_CHECK(buf != NULL);
	memset(buf, 0xEE, buf_size);
	ch39x_ncm_tx_begin(t, buf);

	if (n > 36) {
		for (i = 36; i + 2 <= n && k < MAX_DGRAMS; i += 2)
			lens[k++] = ch39x_get_le16(d + i) % (max_dgram + 2);
	} else {
		for (; k < 4; k++)
			lens[k] = def_lens[k];
	}
	/* Add datagrams until one is refused for lack of room. */
	for (i = 0; i < k; i++) {
		len = lens[i];
		r = ch39x_ncm_tx_check(t, len);
		if (r == CH39X_NCM_FIT_BAD_LEN || r == CH39X_NCM_FIT_TOO_BIG) {
			FUZZ_CHECK(len == 0 || len > max_dgram);
			continue;
		}
		FUZZ_CHECK(len > 0 && len <= max_dgram);
		if (r != CH39X_NCM_FIT_OK) {
			FUZZ_CHECK(added > 0);
			break;
		}
		dst = ch39x_ncm_tx_add(t, len);
		FUZZ_CHECK(dst >= buf && (uint32_t)(dst - buf) <= t->limit &&
			   len <= t->limit - (uint32_t)(dst - buf));
		memset(dst, 0xA5, len);
		added++;
	}
	if (p->out_max_datagrams)
		FUZZ_CHECK(added <= p->out_max_datagrams);
	e = ch39x_ncm_tx_finish(t);
	FUZZ_CHECK(e.dgrams == added);
	if (added == 0) {
		FUZZ_CHECK(e.len == 0);
		goto done;
	}
	/* The rule under test: never longer than dwNtbOutMaxSize. */
	FUZZ_CHECK(e.len <= out_max);
	FUZZ_CHECK(e.len <= buf_size);
	/* Short-packet rule: a ZLP or a pad byte after a multiple. */
	FUZZ_CHECK(!(e.zlp && e.padded));
	if (e.padded)
		FUZZ_CHECK(!c.zlp && (e.len - 1) % maxp == 0);
	else if (!e.zlp)
		FUZZ_CHECK(e.len % maxp != 0 || e.len == out_max);

	/* And a host's RX parser takes it whole. */
	ntb = fuzz_dup(buf, e.len);
	memset(&rcfg, 0, sizeof(rcfg));
	rcfg.ntb32 = n32;
	rcfg.min_dgram = 1;
	rcfg.max_ntb = out_max;
	rx = malloc(sizeof(*rx));
	FUZZ_CHECK(rx != NULL);
	ch39x_ncm_rx_init(rx, &rcfg);
	FUZZ_CHECK(ch39x_ncm_rx_begin(rx, ntb, e.len) == 0);
	for (i = 0; i < added; i++)
		FUZZ_CHECK(ch39x_ncm_rx_next(rx, &dg) == 1 &&
			   dg.data[0] == 0xA5 && dg.data[dg.len - 1] == 0xA5);
	FUZZ_CHECK(ch39x_ncm_rx_next(rx, &dg) == 0);
	FUZZ_CHECK(rx->stats.dgrams == added && rx->stats.bad_dgram == 0 &&
		   rx->stats.bad_ndp_len == 0 && rx->stats.bad_ndp_index == 0);
	free(rx);
	free(ntb);
done:
	free(buf);
	free(t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_ncm_ntb_params p, q;
	uint8_t enc[CH39X_NCM_NTB_PARAMS_LEN];
	uint8_t *b;
	int r, r2;

	if (size > 64)
		return 0;
	if (size == 0) {
		FUZZ_CHECK(ch39x_ncm_parse_ntb_params(data, 0, &p) == -1);
		return 0;
	}
	b = fuzz_dup(data, size);
	memset(&p, 0xA5, sizeof(p));
	r = ch39x_ncm_parse_ntb_params(b, (uint32_t)size, &p);
	check_parse(b, (uint32_t)size, &p, r);
	/* Deterministic. */
	memset(&q, 0x5A, sizeof(q));
	FUZZ_CHECK(ch39x_ncm_parse_ntb_params(b, (uint32_t)size, &q) == r);
	FUZZ_CHECK(memcmp(&p, &q, sizeof(p)) == 0);

	if (size >= CH39X_NCM_NTB_PARAMS_LEN) {
		/*
		 * What a device model encodes from it parses back to the same
		 * values with wLength 28 (and so without that warning).
		 */
		FUZZ_CHECK(ch39x_ncm_build_ntb_params(&p, enc) ==
			   CH39X_NCM_NTB_PARAMS_LEN);
		r2 = ch39x_ncm_parse_ntb_params(enc, sizeof(enc), &q);
		FUZZ_CHECK(q.length == CH39X_NCM_NTB_PARAMS_LEN);
		q.length = p.length;
		FUZZ_CHECK(memcmp(&p, &q, sizeof(p)) == 0);
		if (r >= 0)
			FUZZ_CHECK(r2 == (r & ~(int)CH39X_NCM_PW_LENGTH));
		else if (p.length >= CH39X_NCM_NTB_PARAMS_LEN)
			FUZZ_CHECK(r2 == -1);
	}
	if (r >= 0)
		build_ntb(b, size, &p);
	free(b);
	return 0;
}
