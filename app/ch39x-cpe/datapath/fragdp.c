/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* Fragments and MSS in the graph (fragdp.h). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_tcp.h>

#include "fragdp.h"

struct cpe_fragdp *
cpe_fragdp_create(uint32_t max, uint32_t timeout_s, const struct cpe_env *env)
{
	struct cpe_fragdp *f = calloc(1, sizeof(*f));

	RTE_BUILD_BUG_ON(sizeof(struct cpe_frag_dec) > CPE_FRAG_DATA);
	if (f == NULL)
		return NULL;
	f->env = env;
	if (max == 0)
		return f;
	if (cpe_frag_init(&f->tab, max, env->hz, timeout_s) != 0) {
		fprintf(stderr, "ch39x-cpe: --frag-max %u: cannot allocate "
			"the fragment table\n", max);
		free(f);
		return NULL;
	}
	f->on = true;
	return f;
}

void
cpe_fragdp_free(struct cpe_fragdp *f)
{
	int v;

	if (f == NULL)
		return;
	for (v = 0; v < 2; v++)
		if (f->nb_held[v])
			rte_pktmbuf_free_bulk(f->held[v], f->nb_held[v]);
	if (f->on)
		cpe_frag_free(&f->tab);
	free(f);
}

bool
cpe_fragdp_hold(struct cpe_fragdp *f, struct rte_mbuf *m, bool v6)
{
	struct cpe_mb *mb = cpe_mb(m);

	if (!f->on || (mb->flags & CPE_MB_HELD) ||
	    f->nb_held[v6] == CPE_FRAG_HOLD)
		return false;
	mb->flags |= CPE_MB_HELD;
	f->held[v6][f->nb_held[v6]++] = m;
	return true;
}

uint16_t
cpe_fragdp_take(struct cpe_fragdp *f, bool v6, struct rte_mbuf **pkts,
		uint16_t max)
{
	uint16_t n = RTE_MIN(max, f->nb_held[v6]);

	memcpy(pkts, f->held[v6], n * sizeof(pkts[0]));
	f->nb_held[v6] -= n;
	memmove(f->held[v6], f->held[v6] + n,
		f->nb_held[v6] * sizeof(pkts[0]));
	return n;
}

void
cpe_fragdp_age_ms(struct cpe_fragdp *f, uint32_t ms)
{
	if (f->on)
		cpe_frag_age(&f->tab, cpe_age_budget(f->tab.mask + 1, ms),
			     f->env->now);
}

int
cpe_fragdp_info(struct cpe_fragdp *f, const struct rte_mbuf *m,
		struct cpe_frag_info *fi)
{
	int rc = cpe_frag_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
							 RTE_ETHER_HDR_LEN),
				rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN,
				fi);

	if (rc < 0 && f->on)
		cpe_frag_drop(&f->tab, (enum cpe_frag_reason)-rc);
	else if (rc < 0)
		f->st.bad_off++;
	return rc;
}

void
cpe_fragdp_first4(struct cpe_fragdp *f, const struct cpe_frag_info *fi,
		  bool local, uint16_t out, uint32_t nh,
		  const struct cpe_mb *mb)
{
	struct cpe_frag_dec *d;

	if (!f->on || (d = cpe_frag_first(&f->tab, fi, f->env->now)) == NULL)
		return;
	memset(d, 0, sizeof(*d));
	d->kind = local ? CPE_FRAG_DEC_LOCAL : CPE_FRAG_DEC_FWD;
	d->out = local ? 0 : out;
	d->nh = nh;
	d->nat = mb != NULL && (mb->flags & CPE_MB_NAT);
	if (d->nat) {
		d->sip = mb->sip;
		d->dip = mb->dip;
	}
}

void
cpe_fragdp_first6(struct cpe_fragdp *f, const struct cpe_frag_info *fi,
		  bool local)
{
	struct cpe_frag_dec *d;

	if (!f->on || (d = cpe_frag_first(&f->tab, fi, f->env->now)) == NULL)
		return;
	memset(d, 0, sizeof(*d));
	d->kind = local ? CPE_FRAG_DEC_LOCAL : CPE_FRAG_DEC_FWD;
}

int
cpe_fragdp_later(struct cpe_fragdp *f, const struct cpe_frag_info *fi,
		 const struct cpe_frag_dec **d)
{
	enum cpe_frag_reason why;

	if (!f->on)
		return 0;
	*d = cpe_frag_later(&f->tab, fi, f->env->now, &why);
	if (*d != NULL)
		return 1;
	return why == CPE_FRAG_DROP_NO_FIRST ? 0 : -1;
}

void
cpe_fragdp_no_first(struct cpe_fragdp *f)
{
	if (f->on)
		cpe_frag_drop(&f->tab, CPE_FRAG_DROP_NO_FIRST);
}

/* The MSS option at i of a SYN (len bytes at tcp) set to limit: false
 * when its bytes are not all there. */
static bool
mss_set(uint8_t *tcp, uint32_t len, uint32_t i, uint32_t limit)
{
	uint16_t *ck = (uint16_t *)(void *)(tcp + 16), before[2], after[2];
	uint32_t a, nw, k, adj = 0;

	/* The 16-bit words holding the two bytes (one or two: the option
	 * may sit at an odd offset).
	 */
	a = (i + 2) & ~1u;
	nw = a == ((i + 3) & ~1u) ? 1 : 2;
	if (a + 2 * nw > len)
		return false;
	memcpy(before, tcp + a, 2 * nw);
	tcp[i + 2] = (uint8_t)(limit >> 8);
	tcp[i + 3] = (uint8_t)limit;
	memcpy(after, tcp + a, 2 * nw);
	for (k = 0; k < nw; k++)
		adj = cpe_adj16(adj, before[k], after[k]);
	*ck = cpe_csum_update(*ck, adj);
	return true;
}

/*
 * TCP MSS option of a SYN clamped to limit (the MTU - 40 or 60 of the
 * smaller of the two interfaces), the checksum updated in place.
 */
void
cpe_fragdp_mss(struct cpe_fragdp *f, uint8_t *tcp, uint32_t len,
	       uint32_t limit)
{
	uint32_t doff, i, mss;

	if (len < 20 || !(tcp[13] & RTE_TCP_SYN_FLAG))
		return;
	doff = (uint32_t)(tcp[12] >> 4) * 4;
	if (doff < 20 || doff > len)
		return;
	for (i = 20; i < doff;) {
		if (tcp[i] == 0)
			break;			/* end of options */
		if (tcp[i] == 1) {
			i++;			/* no-op */
			continue;
		}
		if (i + 1 >= doff || tcp[i + 1] < 2 || i + tcp[i + 1] > doff)
			break;			/* malformed: left as it is */
		if (tcp[i] == 2 && tcp[i + 1] == 4) {
			mss = (uint32_t)tcp[i + 2] << 8 | tcp[i + 3];
			if (mss <= limit)
				return;
			if (mss_set(tcp, len, i, limit))
				f->st.mss_clamped++;
			return;
		}
		i += tcp[i + 1];
	}
}
