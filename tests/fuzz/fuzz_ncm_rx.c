/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the CDC-NCM RX NTB parser (ch39x_ncm_rx_* of ch39x_ncm.h) with bulk
 * IN transfers as an untrusted device may send them, and the TX NTB
 * builder (ch39x_ncm_tx_*) against that parser; both as NCM (Ethernet
 * datagrams, NCM0 NDPs) and as MBIM (IP datagrams in IPS NDPs, each with
 * its session).
 *
 * Byte 0 bit 0 chooses NTB32 (set) or NTB16; bit 1 the mode.
 *
 * Raw mode (bit 1 clear): arbitrary device bytes.
 *   byte 0   bit 2: forget the sequence number (ch39x_ncm_rx_reset_seq)
 *            before transfer byte 1 bits 4-5; bit 3: MBIM (ips)
 *   byte 1   bits 0-1: number of transfers - 1 (1..4); bits 6-7: the
 *            batch of a second parser fed the same transfers through
 *            ch39x_ncm_rx_burst (1, 2, 7 or 64 datagrams), which must
 *            give the same datagrams and counters
 *   byte 2-3 LE max_ntb (0 = any)
 *   byte 4   min_dgram (0 = 14)
 *   byte 5-6 LE max_dgram (0 = no limit)
 *   then     2 bytes LE per transfer but the last: its length, taken
 *            modulo (bytes left + 1)
 *   rest     the transfers' bytes, one after the other; the last transfer
 *            gets whatever is left
 *
 * Round-trip mode (bit 1 set): NTBs built by the TX builder from
 * fuzz-chosen parameters and datagram sizes must come out of the RX parser
 * as exactly those datagrams, byte for byte, in order.
 *   byte 0   bit 2 ndp_at_end, bit 3 zlp, bit 4 raw_remainder, bit 5 RX
 *            max_ntb = dwNtbOutMaxSize as used, bit 6 datagram sizes are
 *            taken modulo (largest datagram + 2), bit 7 dev_max_size and
 *            size are taken modulo 131072
 *   1-4      LE dev_max_size      5-8   LE size
 *   9-10     LE divisor           11-12 LE remainder
 *   13-14    LE ndp_align         15-16 LE max_dgrams
 *   17-18    LE ndp_entries       19-20 LE maxp
 *   21-22    LE max_dgram_len     23    seed of the datagram bytes
 *   24       bit 0: MBIM (ips)    25    session of the first datagrams
 *   then     2 bytes LE per datagram: its length (at most 600 datagrams
 *            and 512 KiB), 0xFFFF ends a burst (the NTB is closed); with
 *            MBIM, 0xFF00-0xFFFE make the low byte the session of the
 *            datagrams that follow
 *
 * Every transfer and every NTB is copied into its own exactly sized heap
 * buffer, and the TX buffer is exactly ch39x_ncm_tx_buf_size() bytes, so
 * ASan sees any access past them.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_ncm.h"
#include "ch39x_vendor.h"	/* ch39x_get_le16() and friends */
#include "fuzz.h"

#define MAX_XFERS 4
#define RT_HDR 26
#define RT_MAX_DGRAMS 600
/* Largest TX buffer the round trip allocates. */
#define RT_MAX_BUF (256u * 1024u)
/* Datagram bytes one round-trip input may add (keeps each run short). */
#define RT_MAX_BYTES (512u * 1024u)

static bool
inside(const uint8_t *p, uint32_t n, const uint8_t *base, size_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;

	return a >= b && a <= b + size && n <= b + size - a;
}

static uint32_t
nth_len(bool n32)
{
	return n32 ? CH39X_NCM_NTH32_LEN : CH39X_NCM_NTH16_LEN;
}

static uint32_t
dpe_len(bool n32)
{
	return n32 ? CH39X_NCM_DPE32_LEN : CH39X_NCM_DPE16_LEN;
}

static uint32_t
ndp_hdr_len(bool n32)
{
	return n32 ? CH39X_NCM_NDP32_HDR_LEN : CH39X_NCM_NDP16_HDR_LEN;
}

/* ---- Raw mode ---- */

/* What the harness expects the parser's stats to be. */
struct tally {
	uint64_t ntbs, ntb_bytes, dgrams, dgram_bytes;
	uint64_t short_ntb, bad_nth_sig, bad_hdr_len, bad_block_len;
	uint64_t seq_gaps, nth_no_ndp;
	uint16_t last_seq;
	bool seq_valid;
};

static void
check_stats(const struct ch39x_ncm_rx *rx, const struct tally *t)
{
	const struct ch39x_ncm_rx_stats *s = &rx->stats;

	FUZZ_CHECK(s->ntbs == t->ntbs);
	FUZZ_CHECK(s->ntb_bytes == t->ntb_bytes);
	FUZZ_CHECK(s->dgrams == t->dgrams);
	FUZZ_CHECK(s->dgram_bytes == t->dgram_bytes);
	FUZZ_CHECK(s->short_ntb == t->short_ntb);
	FUZZ_CHECK(s->bad_nth_sig == t->bad_nth_sig);
	FUZZ_CHECK(s->bad_hdr_len == t->bad_hdr_len);
	FUZZ_CHECK(s->bad_block_len == t->bad_block_len);
	FUZZ_CHECK(s->seq_gaps == t->seq_gaps);
	/* An NTH without an NDP is counted there; bad NDP indexes add up. */
	FUZZ_CHECK(s->bad_ndp_index >= t->nth_no_ndp);
}

/*
 * What ch39x_ncm_rx_begin must do with this NTH, from the rules in
 * ch39x_ncm.h; updates the tally and returns the block length, or 0 when
 * the NTB is dropped whole.
 */
static uint32_t
expect_begin(const struct ch39x_ncm_rx_cfg *cfg, const uint8_t *b,
	     uint32_t len, struct tally *t)
{
	bool n32 = cfg->ntb32;
	uint32_t nth = nth_len(n32), block, ndp;
	uint16_t seq;

	if (len < nth) {
		t->short_ntb++;
		return 0;
	}
	if (ch39x_get_le32(b) != (n32 ? CH39X_NCM_NTH32_SIGN :
					CH39X_NCM_NTH16_SIGN)) {
		t->bad_nth_sig++;
		return 0;
	}
	if (ch39x_get_le16(b + 4) != nth) {
		t->bad_hdr_len++;
		return 0;
	}
	seq = ch39x_get_le16(b + 6);
	block = n32 ? ch39x_get_le32(b + 8) : ch39x_get_le16(b + 8);
	ndp = n32 ? ch39x_get_le32(b + 12) : ch39x_get_le16(b + 10);
	if (block == 0)
		block = len;
	if (block > len || block < nth ||
	    (cfg->max_ntb != 0 && block > cfg->max_ntb)) {
		t->bad_block_len++;
		return 0;
	}
	if (t->seq_valid && seq != (uint16_t)(t->last_seq + 1) &&
	    !(t->last_seq == 0 && seq == 0))
		t->seq_gaps++;
	t->last_seq = seq;
	t->seq_valid = true;
	t->ntbs++;
	t->ntb_bytes += block;
	if (ndp == 0)
		t->nth_no_ndp++;
	return block;
}

/*
 * A datagram the parser yielded: inside the block, after the NTH, within
 * the configured lengths, and described by the entry just read from the
 * NDP the parser has open, which itself lies inside the block.
 */
static void
check_dgram(const struct ch39x_ncm_rx *rx, const uint8_t *xb, uint32_t xl,
	    uint32_t block, const struct ch39x_ncm_dgram *d)
{
	bool n32 = rx->cfg.ntb32;
	uint32_t nth = nth_len(n32), dpe = dpe_len(n32);
	uint32_t hdr = ndp_hdr_len(n32), ndp, wlen, ent;

	FUZZ_CHECK(block <= xl);
	FUZZ_CHECK(d->data == xb + d->offset);
	FUZZ_CHECK(d->offset >= nth);
	FUZZ_CHECK(d->offset <= block && d->len <= block - d->offset);
	FUZZ_CHECK(inside(d->data, d->len, xb, block));
	FUZZ_CHECK(d->len >= rx->cfg.min_dgram && d->len > 0);
	if (rx->cfg.max_dgram)
		FUZZ_CHECK(d->len <= rx->cfg.max_dgram);

	FUZZ_CHECK(rx->in_ndp);
	FUZZ_CHECK(rx->n_ndps >= 1 && rx->n_ndps <= CH39X_NCM_RX_MAX_NDPS);
	ndp = rx->ndps[rx->n_ndps - 1];
	FUZZ_CHECK(ndp % 4 == 0 && ndp >= nth && ndp <= block &&
		   hdr <= block - ndp);
	if (rx->cfg.ips) {
		FUZZ_CHECK((ch39x_get_le32(xb + ndp) & CH39X_MBIM_NDP_SIGN_MASK) ==
			   (n32 ? CH39X_MBIM_NDP32_IPS_SIGN :
			    CH39X_MBIM_NDP16_IPS_SIGN));
		FUZZ_CHECK(d->session == xb[ndp + 3]);
	} else {
		FUZZ_CHECK(ch39x_get_le32(xb + ndp) ==
			   (n32 ? CH39X_NCM_NDP32_SIGN : CH39X_NCM_NDP16_SIGN));
		FUZZ_CHECK(d->session == 0);
	}
	wlen = ch39x_get_le16(xb + ndp + 4);
	FUZZ_CHECK(wlen >= (n32 ? CH39X_NCM_NDP32_MIN_LEN :
				  CH39X_NCM_NDP16_MIN_LEN));
	FUZZ_CHECK(wlen % dpe == 0 && wlen <= block - ndp);
	FUZZ_CHECK(rx->entry_end == ndp + wlen);
	FUZZ_CHECK(rx->entry >= ndp + hdr + dpe && rx->entry <= ndp + wlen);
	ent = rx->entry - dpe;
	FUZZ_CHECK((ent - ndp - hdr) % dpe == 0);
	if (n32) {
		FUZZ_CHECK(ch39x_get_le32(xb + ent) == d->offset);
		FUZZ_CHECK(ch39x_get_le32(xb + ent + 4) == d->len);
	} else {
		FUZZ_CHECK(ch39x_get_le16(xb + ent) == d->offset);
		FUZZ_CHECK(ch39x_get_le16(xb + ent + 2) == d->len);
	}
}

/* Each NDP was opened once; the walk kept to the cap. */
static void
check_ndps(const struct ch39x_ncm_rx *rx)
{
	uint32_t i, j;

	FUZZ_CHECK(rx->n_ndps <= CH39X_NCM_RX_MAX_NDPS);
	for (i = 0; i < rx->n_ndps; i++)
		for (j = i + 1; j < rx->n_ndps; j++)
			FUZZ_CHECK(rx->ndps[i] != rx->ndps[j]);
}

/*
 * The batch parser (ch39x_ncm_rx_burst) beside the one-by-one one: each
 * datagram the latter yields must be the next of the former's batches.
 */
struct batch {
	struct ch39x_ncm_rx *rx;
	struct ch39x_ncm_dgram d[64];
	unsigned int max, n, i;
};

static void
batch_expect(struct batch *b, const struct ch39x_ncm_dgram *d)
{
	if (b->i == b->n) {
		b->n = ch39x_ncm_rx_burst(b->rx, b->d, b->max);
		b->i = 0;
		FUZZ_CHECK(b->n >= 1 && b->n <= b->max);
	}
	FUZZ_CHECK(b->d[b->i].data == d->data && b->d[b->i].len == d->len &&
		   b->d[b->i].offset == d->offset &&
		   b->d[b->i].session == d->session);
	b->i++;
}

/* The one-by-one parser is done with the NTB: so is the batch one. */
static void
batch_end(struct batch *b, const struct ch39x_ncm_rx *rx)
{
	FUZZ_CHECK(b->i == b->n);
	FUZZ_CHECK(ch39x_ncm_rx_burst(b->rx, b->d, b->max) == 0);
	FUZZ_CHECK(memcmp(&rx->stats, &b->rx->stats, sizeof(rx->stats)) == 0);
	b->n = 0;
	b->i = 0;
}

static void
run_raw(const uint8_t *data, size_t size)
{
	static const unsigned int batch_max[] = { 1, 2, 7, 64 };
	struct batch bt;
	const uint8_t *p = data + 7, *end = data + size;
	unsigned int nx, reset_at, i, k;
	uint32_t lens[MAX_XFERS], block, xl, got, bound;
	struct ch39x_ncm_rx_stats before;
	struct ch39x_ncm_rx_cfg cfg;
	struct ch39x_ncm_rx *rx;
	struct ch39x_ncm_dgram d;
	struct tally t;
	size_t left;
	uint8_t *xb;
	int r;

	if (size < 7)
		return;
	nx = (data[1] & 3u) + 1;
	if ((size_t)(end - p) < 2u * (nx - 1))
		return;
	memset(&cfg, 0, sizeof(cfg));
	cfg.ntb32 = data[0] & 1;
	cfg.ips = (data[0] & 8) != 0;
	cfg.max_ntb = ch39x_get_le16(data + 2);
	cfg.min_dgram = data[4];
	cfg.max_dgram = ch39x_get_le16(data + 5);
	reset_at = (data[0] & 4u) ? (data[1] >> 4) & 3u : MAX_XFERS;
	left = (size_t)(end - p) - 2u * (nx - 1);
	for (i = 0; i + 1 < nx; i++) {
		lens[i] = (uint32_t)(ch39x_get_le16(p) % (left + 1));
		left -= lens[i];
		p += 2;
	}
	lens[nx - 1] = (uint32_t)left;

	rx = malloc(sizeof(*rx));
	bt.rx = malloc(sizeof(*bt.rx));
	FUZZ_CHECK(rx != NULL && bt.rx != NULL);
	ch39x_ncm_rx_init(rx, &cfg);
	ch39x_ncm_rx_init(bt.rx, &cfg);
	bt.max = batch_max[data[1] >> 6];
	bt.n = 0;
	bt.i = 0;
	FUZZ_CHECK(rx->cfg.min_dgram == (cfg.min_dgram ? cfg.min_dgram :
					 cfg.ips ? CH39X_MBIM_MIN_DGRAM :
					 CH39X_NCM_ETH_HLEN));
	memset(&t, 0, sizeof(t));
	check_stats(rx, &t);

	for (i = 0; i < nx; i++) {
		xl = lens[i];
		xb = fuzz_dup(p, xl);
		p += xl;
		if (i == reset_at) {
			ch39x_ncm_rx_reset_seq(rx);
			ch39x_ncm_rx_reset_seq(bt.rx);
			t.seq_valid = false;
		}
		block = expect_begin(&rx->cfg, xb, xl, &t);
		r = ch39x_ncm_rx_begin(rx, xb, xl);
		FUZZ_CHECK(ch39x_ncm_rx_begin(bt.rx, xb, xl) == r);
		FUZZ_CHECK(r == (block ? 0 : -1));
		check_stats(rx, &t);
		if (r == 0)
			FUZZ_CHECK(rx->block == block);
		/*
		 * Every datagram uses up one entry of an NDP inside the block,
		 * and at most 50 NDPs are read: the walk ends.
		 */
		bound = CH39X_NCM_RX_MAX_NDPS * (block / 4 + 1);
		got = 0;
		while (ch39x_ncm_rx_next(rx, &d) == 1) {
			FUZZ_CHECK(r == 0);
			check_dgram(rx, xb, xl, block, &d);
			batch_expect(&bt, &d);
			t.dgrams++;
			t.dgram_bytes += d.len;
			/* The rest of the stats is checked per transfer. */
			FUZZ_CHECK(rx->stats.dgrams == t.dgrams &&
				   rx->stats.dgram_bytes == t.dgram_bytes);
			FUZZ_CHECK(++got <= bound);
		}
		check_ndps(rx);
		batch_end(&bt, rx);
		FUZZ_CHECK(!rx->in_ndp && rx->next_ndp == 0);
		/* Once used up, the NTB stays used up. */
		before = rx->stats;
		for (k = 0; k < 3; k++)
			FUZZ_CHECK(ch39x_ncm_rx_next(rx, &d) == 0);
		FUZZ_CHECK(memcmp(&before, &rx->stats, sizeof(before)) == 0);
		check_stats(rx, &t);
		free(xb);
	}
	FUZZ_CHECK(p == end);
	free(bt.rx);
	free(rx);
}

/* ---- Round-trip mode ---- */

struct rt_dgram {
	uint32_t len;
	uint32_t off;		/* in the NTB, as the builder placed it */
	uint8_t seed;
	uint8_t session;	/* MBIM */
};

struct rt {
	struct ch39x_ncm_tx *t;
	struct ch39x_ncm_tx *t_before;	/* a copy, to see what changed */
	struct ch39x_ncm_tx_cfg cfg;
	struct ch39x_ncm_rx *rx;
	struct ch39x_ncm_tx_stats want;	/* what the TX stats must be */
	uint64_t sent;			/* NTB bytes sent */
	uint8_t *buf;
	uint32_t buf_size;
	uint32_t dirty;			/* bytes of buf used since poisoned */
	uint32_t max_dgram;
	struct rt_dgram cur[CH39X_NCM_TX_MAX_DGRAMS];
	unsigned int n;
	uint16_t seq;
	uint8_t session;	/* MBIM: of the next datagrams */
};

/* The builder's check and add, NCM's or MBIM's. */
static enum ch39x_ncm_fit
rt_check(struct rt *s, uint32_t len)
{
	return s->cfg.ips ? ch39x_ncm_tx_check_ips(s->t, len, s->session) :
		ch39x_ncm_tx_check(s->t, len);
}

static uint8_t *
rt_add(struct rt *s, uint32_t len)
{
	return s->cfg.ips ? ch39x_ncm_tx_add_ips(s->t, len, s->session) :
		ch39x_ncm_tx_add(s->t, len);
}

/*
 * Datagram bytes: datagram k holds the table from offset seed_k, so that
 * datagrams differ, and a shift, swap or overwrite shows.
 */
static uint8_t pat_table[65536 + 256];

static const uint8_t *
pat(uint8_t seed)
{
	static bool init;
	uint32_t i;

	if (!init) {
		for (i = 0; i < sizeof(pat_table); i++)
			pat_table[i] = (uint8_t)(i * 13u + (i >> 8) * 7u +
						 (i >> 11) + 1u);
		init = true;
	}
	return pat_table + seed;
}

static bool
pow2_ge4(uint32_t v)
{
	return v >= 4 && (v & (v - 1)) == 0;
}

struct span {
	uint32_t off, len;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static bool
all_zero(const uint8_t *p, uint32_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/*
 * Close the NTB and check it: the NTH, the short-packet rule, the size
 * limits, zeroed gaps, and that the RX parser returns exactly the
 * datagrams added, in order and byte for byte.
 */
static void
rt_finish(struct rt *s, enum ch39x_ncm_close want_reason)
{
	struct ch39x_ncm_tx *t = s->t;
	bool n32 = t->ntb32;
	uint32_t nth = nth_len(n32), dpe = dpe_len(n32), ndp, wlen, i, len;
	struct ch39x_ncm_rx_stats rs;
	struct span sp[CH39X_NCM_TX_MAX_DGRAMS + 2];
	struct ch39x_ncm_tx_end e;
	struct ch39x_ncm_dgram d;
	uint32_t cur;
	uint8_t *ntb;

	e = ch39x_ncm_tx_finish(t);
	if (t->len > s->dirty)
		s->dirty = t->len;
	if (e.len > s->dirty)
		s->dirty = e.len;
	FUZZ_CHECK(e.dgrams == s->n);
	if (s->n == 0) {
		FUZZ_CHECK(e.len == 0 && !e.zlp && !e.padded);
		FUZZ_CHECK(t->seq == s->seq);
		return;
	}
	FUZZ_CHECK(e.reason == want_reason);
	/* Never past the buffer, dwNtbOutMaxSize or the NTB16 range. */
	FUZZ_CHECK(e.len >= nth && e.len <= s->buf_size);
	FUZZ_CHECK(e.len <= t->dev_max);
	if (s->cfg.dev_max_size)
		FUZZ_CHECK(e.len <= s->cfg.dev_max_size);
	if (!n32)
		FUZZ_CHECK(e.len <= CH39X_NCM_NTB16_MAX_SIZE);
	/* Short-packet rule: a ZLP or one pad byte, never both. */
	FUZZ_CHECK(!(e.zlp && e.padded));
	if (e.zlp)
		FUZZ_CHECK(s->cfg.zlp && e.len % t->maxp == 0 &&
			   e.len < t->dev_max);
	else if (e.padded)
		FUZZ_CHECK(!s->cfg.zlp && (e.len - 1) % t->maxp == 0 &&
			   s->buf[e.len - 1] == 0);
	else
		FUZZ_CHECK(e.len % t->maxp != 0 || e.len == t->dev_max);
	/* Without the pad byte the NTB keeps to the limit. */
	len = e.padded ? e.len - 1 : e.len;
	FUZZ_CHECK(len <= t->limit);

	/* NTH. */
	ntb = fuzz_dup(s->buf, e.len);
	FUZZ_CHECK(ch39x_get_le32(ntb) == (n32 ? CH39X_NCM_NTH32_SIGN :
						 CH39X_NCM_NTH16_SIGN));
	FUZZ_CHECK(ch39x_get_le16(ntb + 4) == nth);
	FUZZ_CHECK(ch39x_get_le16(ntb + 6) == s->seq);
	FUZZ_CHECK((n32 ? ch39x_get_le32(ntb + 8) :
		    ch39x_get_le16(ntb + 8)) == e.len);
	ndp = n32 ? ch39x_get_le32(ntb + 12) : ch39x_get_le16(ntb + 10);
	FUZZ_CHECK(ndp % t->ndp_align == 0 && ndp >= nth && ndp < len);
	FUZZ_CHECK(ndp_hdr_len(n32) <= len - ndp);
	wlen = ch39x_get_le16(ntb + ndp + 4);
	FUZZ_CHECK(wlen == ndp_hdr_len(n32) + (s->n + 1) * dpe);
	FUZZ_CHECK(wlen <= len - ndp);
	if (s->cfg.ndp_at_end)
		FUZZ_CHECK(ndp + wlen == len);
	/* One NDP, of the NTB's session (MBIM), all of whose datagrams. */
	if (s->cfg.ips) {
		FUZZ_CHECK(ch39x_get_le32(ntb + ndp) ==
			   ((n32 ? CH39X_MBIM_NDP32_IPS_SIGN :
			     CH39X_MBIM_NDP16_IPS_SIGN) |
			    (uint32_t)s->cur[0].session << 24));
		for (i = 1; i < s->n; i++)
			FUZZ_CHECK(s->cur[i].session == s->cur[0].session);
	} else {
		FUZZ_CHECK(ch39x_get_le32(ntb + ndp) ==
			   (n32 ? CH39X_NCM_NDP32_SIGN : CH39X_NCM_NDP16_SIGN));
	}
	FUZZ_CHECK((n32 ? ch39x_get_le32(ntb + ndp + 8) :
		    ch39x_get_le16(ntb + ndp + 6)) == 0);

	/*
	 * NTH, NDP and datagrams do not overlap, and every other byte (gaps,
	 * unused NDP room, the pad byte) is zero.
	 */
	sp[0].off = 0;
	sp[0].len = nth;
	sp[1].off = ndp;
	sp[1].len = wlen;
	for (i = 0; i < s->n; i++) {
		sp[i + 2].off = s->cur[i].off;
		sp[i + 2].len = s->cur[i].len;
	}
	qsort(sp, s->n + 2, sizeof(sp[0]), span_cmp);
	cur = 0;
	for (i = 0; i < s->n + 2; i++) {
		FUZZ_CHECK(sp[i].off >= cur);
		FUZZ_CHECK(sp[i].len <= len - sp[i].off);
		FUZZ_CHECK(all_zero(ntb + cur, sp[i].off - cur));
		cur = sp[i].off + sp[i].len;
	}
	FUZZ_CHECK(all_zero(ntb + cur, e.len - cur));

	/* The RX parser gives back exactly what went in, unharmed. */
	rs = s->rx->stats;
	FUZZ_CHECK(ch39x_ncm_rx_begin(s->rx, ntb, e.len) == 0);
	for (i = 0; i < s->n; i++) {
		FUZZ_CHECK(ch39x_ncm_rx_next(s->rx, &d) == 1);
		FUZZ_CHECK(d.len == s->cur[i].len);
		FUZZ_CHECK(d.offset == s->cur[i].off);
		FUZZ_CHECK(d.data == ntb + d.offset);
		FUZZ_CHECK(d.session == (s->cfg.ips ? s->cur[i].session : 0));
		FUZZ_CHECK(memcmp(d.data, pat(s->cur[i].seed), d.len) == 0);
	}
	FUZZ_CHECK(ch39x_ncm_rx_next(s->rx, &d) == 0);
	rs.ntbs++;
	rs.ntb_bytes += e.len;
	for (i = 0; i < s->n; i++) {
		rs.dgrams++;
		rs.dgram_bytes += s->cur[i].len;
	}
	/* Nothing bad counted, not even a sequence gap. */
	FUZZ_CHECK(memcmp(&rs, &s->rx->stats, sizeof(rs)) == 0);
	free(ntb);

	/* TX stats. */
	s->sent += e.len;
	s->want.ntbs++;
	s->want.dgrams += s->n;
	for (i = 0; i < s->n; i++)
		s->want.dgram_bytes += s->cur[i].len;
	s->want.overhead = s->sent - s->want.dgram_bytes;
	s->want.pad_bytes += e.padded;
	s->want.zlps += e.zlp;
	s->want.close_full += e.reason == CH39X_NCM_CLOSE_FULL;
	s->want.close_max_dgrams += e.reason == CH39X_NCM_CLOSE_MAX_DGRAMS;
	s->want.close_ndp_full += e.reason == CH39X_NCM_CLOSE_NDP_FULL;
	s->want.close_burst += e.reason == CH39X_NCM_CLOSE_BURST;
	s->want.close_session += e.reason == CH39X_NCM_CLOSE_SESSION;
	FUZZ_CHECK(memcmp(&s->want, &t->stats, sizeof(s->want)) == 0);
	s->seq = (uint16_t)(s->seq + 1u);
	FUZZ_CHECK(t->seq == s->seq);
	s->n = 0;
}

/* Why the builder closes an NTB at the end of a burst. */
static enum ch39x_ncm_close
burst_reason(const struct rt *s)
{
	if (s->t->dev_max_dgrams && s->n >= s->t->dev_max_dgrams)
		return CH39X_NCM_CLOSE_MAX_DGRAMS;
	if (s->n >= s->t->max_entries)
		return CH39X_NCM_CLOSE_NDP_FULL;
	return CH39X_NCM_CLOSE_BURST;
}

/*
 * Start an NTB in a buffer poisoned (again) where the last one wrote, so
 * that a gap the builder leaves unzeroed shows, without rewriting the
 * whole buffer for every small NTB.
 */
static void
rt_begin(struct rt *s)
{
	memset(s->buf, 0xEE, s->dirty);
	s->dirty = 0;
	ch39x_ncm_tx_begin(s->t, s->buf);
	if (s->t->len > s->dirty)
		s->dirty = s->t->len;
	s->n = 0;
}

/* The sanitised configuration follows the rules of ch39x_ncm.h. */
static void
check_init(const struct ch39x_ncm_tx *t, const struct ch39x_ncm_tx_cfg *c)
{
	uint32_t dev_max, limit, rem, entries;

	dev_max = c->dev_max_size ? c->dev_max_size : CH39X_NCM_NTB_MIN_SIZE;
	if (!c->ntb32 && dev_max > CH39X_NCM_NTB16_MAX_SIZE)
		dev_max = CH39X_NCM_NTB16_MAX_SIZE;
	FUZZ_CHECK(t->dev_max == dev_max);
	limit = c->size ? c->size : CH39X_NCM_TX_DEF_SIZE;
	if (limit > dev_max)
		limit = dev_max;
	FUZZ_CHECK(t->limit == limit || (limit == UINT32_MAX &&
					 t->limit == limit - 1));
	FUZZ_CHECK(t->divisor == (pow2_ge4(c->divisor) &&
				  c->divisor < t->limit ? c->divisor : 4));
	FUZZ_CHECK(t->ndp_align == (pow2_ge4(c->ndp_align) &&
				    c->ndp_align < t->limit ? c->ndp_align : 4));
	rem = c->remainder < t->divisor ? c->remainder : 0;
	if (!c->raw_remainder && !c->ips)
		rem = (rem + t->divisor - CH39X_NCM_ETH_HLEN % t->divisor) %
		      t->divisor;
	FUZZ_CHECK(t->dgram_rem == rem);
	entries = c->ndp_entries ? c->ndp_entries : CH39X_NCM_TX_DEF_DGRAMS;
	if (entries > CH39X_NCM_TX_MAX_DGRAMS)
		entries = CH39X_NCM_TX_MAX_DGRAMS;
	if (c->max_dgrams && c->max_dgrams < entries)
		entries = c->max_dgrams;
	FUZZ_CHECK(t->max_entries >= 1 && t->max_entries <= entries);
	if (c->ndp_at_end)
		FUZZ_CHECK(t->max_entries == entries);
	FUZZ_CHECK(ch39x_ncm_tx_buf_size(t) == t->limit + 1);
}

static void
run_round_trip(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + RT_HDR, *end = data + size;
	struct ch39x_ncm_rx_cfg rcfg;
	struct ch39x_ncm_tx_cfg *c;
	enum ch39x_ncm_fit r;
	unsigned int k = 0;
	uint64_t bytes = 0;
	struct rt s;
	uint32_t len, off;
	uint16_t w;
	uint8_t *dst;

	if (size < RT_HDR)
		return;
	memset(&s, 0, sizeof(s));
	c = &s.cfg;
	c->ntb32 = data[0] & 1;
	c->ndp_at_end = (data[0] & 4) != 0;
	c->zlp = (data[0] & 8) != 0;
	c->raw_remainder = (data[0] & 0x10) != 0;
	c->dev_max_size = ch39x_get_le32(data + 1);
	c->size = ch39x_get_le32(data + 5);
	if (data[0] & 0x80) {
		c->dev_max_size %= 131072;
		c->size %= 131072;
	}
	c->divisor = ch39x_get_le16(data + 9);
	c->remainder = ch39x_get_le16(data + 11);
	c->ndp_align = ch39x_get_le16(data + 13);
	c->max_dgrams = ch39x_get_le16(data + 15);
	c->ndp_entries = ch39x_get_le16(data + 17);
	c->maxp = ch39x_get_le16(data + 19);
	c->max_dgram_len = ch39x_get_le16(data + 21);
	c->ips = (data[24] & 1) != 0;
	s.session = data[25];

	s.t = malloc(sizeof(*s.t));
	s.t_before = malloc(sizeof(*s.t));
	s.rx = malloc(sizeof(*s.rx));
	FUZZ_CHECK(s.t != NULL && s.t_before != NULL && s.rx != NULL);
	if (ch39x_ncm_tx_init(s.t, c) != 0) {
		/* Only when not even an Ethernet header fits. */
		FUZZ_CHECK(c->maxp == 0 ||
			   ch39x_ncm_tx_max_dgram(s.t) < CH39X_NCM_ETH_HLEN);
		goto out;
	}
	FUZZ_CHECK(c->maxp != 0);
	check_init(s.t, c);
	s.max_dgram = ch39x_ncm_tx_max_dgram(s.t);
	FUZZ_CHECK(s.max_dgram >= CH39X_NCM_ETH_HLEN);
	FUZZ_CHECK(ch39x_ncm_tx_check(s.t, s.max_dgram) == CH39X_NCM_FIT_OK);
	if (s.max_dgram < UINT32_MAX)
		FUZZ_CHECK(ch39x_ncm_tx_check(s.t, s.max_dgram + 1) ==
			   CH39X_NCM_FIT_TOO_BIG);
	/* A front NDP leaves room for one longest datagram if it can. */
	if (!c->ndp_at_end && s.t->max_entries > 1)
		FUZZ_CHECK(s.max_dgram >= (c->max_dgram_len ?
					   c->max_dgram_len : 1514u));
	s.buf_size = ch39x_ncm_tx_buf_size(s.t);
	if (s.buf_size > RT_MAX_BUF)
		goto out;
	s.buf = malloc(s.buf_size);
	FUZZ_CHECK(s.buf != NULL);
	s.dirty = s.buf_size;

	memset(&rcfg, 0, sizeof(rcfg));
	rcfg.ntb32 = c->ntb32;
	rcfg.ips = c->ips;
	rcfg.min_dgram = 1;
	rcfg.max_ntb = (data[0] & 0x20) ? s.t->dev_max : 0;
	ch39x_ncm_rx_init(s.rx, &rcfg);

	rt_begin(&s);
	for (; end - p >= 2 && k < RT_MAX_DGRAMS; p += 2, k++) {
		w = ch39x_get_le16(p);
		if (w == 0xFFFF) {
			/* End of a burst: flush. */
			rt_finish(&s, burst_reason(&s));
			rt_begin(&s);
			continue;
		}
		if (c->ips && w >= 0xFF00) {
			s.session = (uint8_t)w;
			continue;
		}
		len = w;
		if (data[0] & 0x40)
			len %= s.max_dgram + 2;
		/* Before asking: a refusal counts for the close reason. */
		if (bytes + len > RT_MAX_BYTES)
			break;
		bytes += len;
		r = rt_check(&s, len);
		/*
		 * The inline fast answer is the full check's (NCM: it knows
		 * nothing of MBIM's sessions).
		 */
		if (!s.cfg.ips) {
			enum ch39x_ncm_fit was = s.t->refused;

			/*
			 * And it records a refusal as the check does (the
			 * close reason): the record cleared before, put back
			 * after.
			 */
			s.t->refused = CH39X_NCM_FIT_OK;
			FUZZ_CHECK(ch39x_ncm_tx_fits(s.t, len) ==
				   (r == CH39X_NCM_FIT_OK));
			FUZZ_CHECK(s.t->refused ==
				   (r == CH39X_NCM_FIT_BAD_LEN ||
				    r == CH39X_NCM_FIT_TOO_BIG ?
				    CH39X_NCM_FIT_OK : r));
			s.t->refused = was;
		}
		if (r == CH39X_NCM_FIT_BAD_LEN) {
			FUZZ_CHECK(len == 0);
			continue;
		}
		FUZZ_CHECK(len != 0);
		if (r == CH39X_NCM_FIT_TOO_BIG) {
			FUZZ_CHECK(len > s.max_dgram);
			continue;
		}
		FUZZ_CHECK(len <= s.max_dgram);
		FUZZ_CHECK(s.n <= s.t->max_entries);
		if (r != CH39X_NCM_FIT_OK) {
			enum ch39x_ncm_close why = CH39X_NCM_CLOSE_FULL;

			/* An empty NTB takes any datagram not too big. */
			FUZZ_CHECK(s.n > 0);
			if (r == CH39X_NCM_FIT_MAX_DGRAMS) {
				FUZZ_CHECK(s.t->dev_max_dgrams != 0 &&
					   s.n >= s.t->dev_max_dgrams);
				why = CH39X_NCM_CLOSE_MAX_DGRAMS;
			} else if (r == CH39X_NCM_FIT_NDP_FULL) {
				FUZZ_CHECK(s.n >= s.t->max_entries);
				why = CH39X_NCM_CLOSE_NDP_FULL;
			} else if (r == CH39X_NCM_FIT_SESSION) {
				FUZZ_CHECK(c->ips &&
					   s.cur[0].session != s.session);
				why = CH39X_NCM_CLOSE_SESSION;
			} else {
				FUZZ_CHECK(r == CH39X_NCM_FIT_FULL);
			}
			/* Asking again changes nothing. */
			FUZZ_CHECK(rt_check(&s, len) == r);
			rt_finish(&s, why);
			rt_begin(&s);
			FUZZ_CHECK(rt_check(&s, len) == CH39X_NCM_FIT_OK);
		}
		FUZZ_CHECK(s.n < CH39X_NCM_TX_MAX_DGRAMS);
		/*
		 * Every other NCM datagram through the one-step add, which
		 * takes what the check passed unless the NDP goes at the end,
		 * and then changes nothing (session-blind: not for MBIM).
		 */
		dst = NULL;
		if ((k & 1) && !s.cfg.ips) {
			*s.t_before = *s.t;
			dst = ch39x_ncm_tx_try_add(s.t, len);
			FUZZ_CHECK((dst == NULL) == c->ndp_at_end);
			if (dst == NULL)
				FUZZ_CHECK(memcmp(s.t_before, s.t,
						  sizeof(*s.t)) == 0);
		}
		if (dst == NULL)
			dst = rt_add(&s, len);
		FUZZ_CHECK(inside(dst, len, s.buf, s.t->limit));
		off = (uint32_t)(dst - s.buf);
		/* The datagram starts where the divisor and remainder say. */
		FUZZ_CHECK(off % s.t->divisor == s.t->dgram_rem);
		if (s.n > 0)
			FUZZ_CHECK(off >= s.cur[s.n - 1].off +
				   s.cur[s.n - 1].len);
		s.cur[s.n].len = len;
		s.cur[s.n].off = off;
		s.cur[s.n].seed = (uint8_t)(data[23] + k);
		s.cur[s.n].session = s.session;
		memcpy(dst, pat(s.cur[s.n].seed), len);
		s.n++;
	}
	rt_finish(&s, burst_reason(&s));
	free(s.buf);
out:
	free(s.rx);
	free(s.t_before);
	free(s.t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 2)
		run_round_trip(data, size);
	else
		run_raw(data, size);
	return 0;
}
