/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* What the WAN schedulers (qos_sched.h) show: statistics and JSON. */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "qos_sched.h"

static double
ms_of(uint64_t ticks, uint64_t hz)
{
	return hz ? (double)ticks * 1e3 / (double)hz : 0;
}

/* What the statistics show of a class, or of all (class -1). */
struct qos_fig {
	uint64_t enq, sent, bytes, qmax, drops, bypassed;
	uint64_t codel, ecn, over, new_flows;
	uint32_t sparse, bulk;
	uint64_t hist[CPE_FQ_HIST];
};

static void
fig_add(struct qos_fig *g, const struct cpe_qos_sched *s,
	const struct cpe_qos_class *k)
{
	const struct cpe_fq_stats *st = &k->fq.st;
	unsigned int b;

	g->enq += k->enq;
	g->sent += k->sent;
	g->bypassed += k->bypassed;
	g->bytes += k->bytes;
	g->qmax = RTE_MAX(g->qmax, k->qmax);
	if (!s->fq) {
		g->drops += k->drops;
		return;
	}
	g->codel += st->codel_drops;
	g->ecn += st->ecn_marks;
	g->over += st->overlimit_drops;
	g->drops += st->codel_drops + st->overlimit_drops;
	g->new_flows += st->new_flows;
	g->sparse += cpe_fq_sparse(&k->fq);
	g->bulk += cpe_fq_bulk(&k->fq);
	for (b = 0; b < CPE_FQ_HIST; b++)
		g->hist[b] += st->hist[b];
}

static void
fig_of(struct qos_fig *g, const struct cpe_qos_sched *s, int cls)
{
	uint32_t i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < s->nb; i++)
		if (cls < 0 || (uint32_t)cls == i)
			fig_add(g, s, &s->c[i]);
}

static void
fig_print(FILE *f, const struct cpe_qos_sched *s, const struct qos_fig *g)
{
	fprintf(f, "enqueued %" PRIu64 " sent %" PRIu64 " bypassed %" PRIu64
		" dropped %" PRIu64 " bytes %" PRIu64 " queue_max %" PRIu64,
		g->enq, g->sent, g->bypassed, g->drops, g->bytes, g->qmax);
	if (s->fq)
		fprintf(f, " flows sparse %u bulk %u new %" PRIu64 " codel_drops %"
			PRIu64 " ecn_marks %" PRIu64 " overlimit_drops %" PRIu64
			" delay_us p50 %" PRIu64 " p90 %" PRIu64 " p99 %" PRIu64,
			g->sparse, g->bulk, g->new_flows, g->codel, g->ecn,
			g->over, cpe_fq_hist_pct(g->hist, 50),
			cpe_fq_hist_pct(g->hist, 90),
			cpe_fq_hist_pct(g->hist, 99));
	fputc('\n', f);
}

static void
fig_json(FILE *f, const struct cpe_qos_sched *s, const struct qos_fig *g)
{
	fprintf(f, "\"enqueued\": %" PRIu64 ", \"sent\": %" PRIu64
		", \"bypassed\": %" PRIu64 ", \"dropped\": %" PRIu64
		", \"bytes\": %" PRIu64 ", \"queue_max\": %" PRIu64, g->enq,
		g->sent, g->bypassed, g->drops, g->bytes, g->qmax);
	if (s->fq)
		fprintf(f, ", \"flows_sparse\": %u, \"flows_bulk\": %u"
			", \"new_flows\": %" PRIu64 ", \"codel_drops\": %"
			PRIu64 ", \"ecn_marks\": %" PRIu64
			", \"overlimit_drops\": %" PRIu64 ", \"delay_us\": "
			"{\"p50\": %" PRIu64 ", \"p90\": %" PRIu64
			", \"p99\": %" PRIu64 "}", g->sparse, g->bulk,
			g->new_flows, g->codel, g->ecn, g->over,
			cpe_fq_hist_pct(g->hist, 50),
			cpe_fq_hist_pct(g->hist, 90),
			cpe_fq_hist_pct(g->hist, 99));
}

static const char *
mode_name(const struct cpe_qos_sched *s)
{
	return s->fq ? "fq_codel" : "fifo";
}

static void
sched_print(FILE *f, const struct cpe_qos_sched *s, const char *name,
	    uint64_t hz)
{
	struct qos_fig g;
	uint32_t i;

	if (!s->on)
		return;
	fprintf(f, "  qos %s: rate %" PRIu64 " bit/s overhead %u B %s queue %u "
		"packets/class held %u stalls %" PRIu64 " (%.1f ms, lost %.1f "
		"ms) empty %.1f ms tx_full %" PRIu64 "\n", name, s->sh.rate,
		s->overhead, mode_name(s), s->cap, s->held, s->sh.stalls,
		ms_of(s->sh.stall_ticks, hz), ms_of(s->sh.lost_ticks, hz),
		ms_of(s->sh.empty_ticks, hz), s->tx_full);
	for (i = 0; i < s->nb; i++) {
		fig_of(&g, s, (int)i);
		fprintf(f, "    class %u: ", i);
		fig_print(f, s, &g);
	}
	fig_of(&g, s, -1);
	fprintf(f, "    total: ");
	fig_print(f, s, &g);
}

void
cpe_qos_print(const struct cpe_qos *q, FILE *f)
{
	sched_print(f, &q->up, "wan", q->env->hz);
	sched_print(f, &q->down, "down", q->env->hz);
}

/* "key": {...}, the same figures for either instance (off: rate 0). */
static void
sched_json(FILE *f, const struct cpe_qos_sched *s, const char *key,
	   uint64_t hz)
{
	struct qos_fig g;
	uint32_t i;

	fprintf(f, "  \"%s\": {\"rate_bps\": %" PRIu64 ", \"overhead\": %u, "
		"\"mode\": \"%s\", \"queue\": %u, \"held\": %u, "
		"\"stalls\": %" PRIu64 ", \"stall_ms\": %.1f, \"lost_ms\": "
		"%.1f, \"empty_ms\": %.1f, \"tx_full\": %" PRIu64
		", \"dequeue_cycles\": %" PRIu64, key,
		s->on ? s->sh.rate : 0, s->overhead,
		s->on ? mode_name(s) : "off", s->cap, s->held,
		s->sh.stalls, ms_of(s->sh.stall_ticks, hz),
		ms_of(s->sh.lost_ticks, hz), ms_of(s->sh.empty_ticks, hz),
		s->tx_full, s->deq_cycles);
	if (s->on) {
		fig_of(&g, s, -1);
		fprintf(f, ", \"total\": {");
		fig_json(f, s, &g);
		fprintf(f, "}");
	}
	fprintf(f, ", \"classes\": [");
	for (i = 0; s->on && i < s->nb; i++) {
		fig_of(&g, s, (int)i);
		fprintf(f, "%s\n    {\"class\": %u, ", i ? "," : "", i);
		fig_json(f, s, &g);
		fprintf(f, "}");
	}
	fprintf(f, "%s]},\n", s->on && s->nb ? "\n  " : "");
}

void
cpe_qos_json(const struct cpe_qos *q, FILE *f)
{
	sched_json(f, &q->up, "qos", q->env->hz);
	sched_json(f, &q->down, "qos_down", q->env->hz);
}
