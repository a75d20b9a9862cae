/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The packet trace over telemetry:
 *
 *   /cpe/trace,N   marks the next N packets the ports receive (1..64),
 *                  forgetting the last trace
 *   /cpe/trace     what became of them: per packet (by its number) the
 *                  nodes it went through, in order, and its end: sent,
 *                  dropped, held (waits for a neighbour), queued (in a
 *                  scheduler), punted (to the TAP), answered; "count",
 *                  "wanted" (still to be marked), "lost" (steps past the
 *                  records' room)
 *
 * port_rx marks a packet (an mbuf flag and its number in the metadata);
 * the nodes record the edges their marked packets take (cpe_enqueue())
 * and what they did with those they kept (cpe_kept()); a packet made of
 * another (an ICMP error, a fragment) carries its number on. The trace
 * costs the nodes one test per batch while it is off.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const char *const trace_allowed =
	"nothing (the last trace) or N, the packets to trace (1..64)";

static const char *
kept_name(uint16_t what)
{
	switch (what) {
	case CPE_KEPT_SENT:
		return "sent";
	case CPE_KEPT_DROPPED:
		return "dropped";
	case CPE_KEPT_HELD:
		return "held";
	case CPE_KEPT_QUEUED:
		return "queued";
	case CPE_KEPT_PUNTED:
		return "punted";
	case CPE_KEPT_ANSWERED:
		return "answered";
	default:
		return "?";
	}
}

/* Where edge e of node id leads, its name. */
static const char *
edge_name(rte_node_t id, uint16_t e)
{
	char *next[RTE_GRAPH_BURST_SIZE];
	rte_edge_t nb = (rte_edge_t)(rte_node_edge_get(id, NULL) /
				     sizeof(char *));

	if (nb > RTE_DIM(next) || e >= nb)
		return "?";
	rte_node_edge_get(id, next);
	return next[e];
}

/* Packet id's steps as an array: its first node, then each step's end. */
static void
path(const struct cpe_trace *t, uint16_t id, struct rte_tel_data *a)
{
	const struct cpe_trace_rec *r;
	bool first = true;
	uint32_t i;

	for (i = 0; i < t->nb; i++) {
		r = &t->rec[i];
		if (r->id != id)
			continue;
		if (first)
			rte_tel_data_add_array_string(a,
				rte_node_id_to_name(r->node));
		first = false;
		rte_tel_data_add_array_string(a, r->edge >= CPE_KEPT_SENT ?
			kept_name(r->edge) : edge_name(r->node, r->edge));
	}
}

static void
dump(struct cpe_router *r, struct rte_tel_data *d)
{
	const struct cpe_trace *t = r->trace;
	struct rte_tel_data *a;
	char key[8];
	uint16_t id;

	rte_tel_data_start_dict(d);
	cpe_tel_u64(d, "count", t->next_id);
	cpe_tel_u64(d, "wanted", r->dp->env.trace != NULL ? t->want : 0);
	cpe_tel_u64(d, "lost", t->lost);
	for (id = 1; id <= t->next_id; id++) {
		a = rte_tel_data_alloc();
		if (a == NULL)
			return;
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		path(t, id, a);
		snprintf(key, sizeof(key), "%u", id);
		if (rte_tel_data_add_dict_container(d, key, a, 0) != 0)
			rte_tel_data_free(a);
	}
}

static void
trace(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	uint16_t n = *(const uint16_t *)arg;
	struct cpe_trace *t = r->trace;

	if (n == 0) {
		dump(r, d);
		return;
	}
	t->want = n;
	t->next_id = 0;
	t->nb = 0;
	t->lost = 0;
	r->dp->env.trace = t;
	rte_tel_data_start_dict(d);
	cpe_tel_u64(d, "tracing", n);
}

/* /cpe/trace[,N] */
static int
tel_trace(const char *cmd, const char *params, void *box,
	  struct rte_tel_data *d)
{
	char buf[16], *f[1], *end;
	unsigned long n = 0;
	uint16_t n16;

	if (params != NULL && params[0] != '\0') {
		if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
		    f[0][0] < '1' || f[0][0] > '9')
			return cpe_ctl_bad(box, d, cmd, params, trace_allowed);
		n = strtoul(f[0], &end, 10);
		if (*end != '\0' || n > CPE_TRACE_MAX_PKTS)
			return cpe_ctl_bad(box, d, cmd, params, trace_allowed);
	}
	n16 = (uint16_t)n;
	return cpe_ctl_call(box, trace, &n16, sizeof(n16), d);
}

int
cpe_ctl_trace_init(struct cpe_ctl *c)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/trace", tel_trace, "Traces the next N packets through "
		  "the nodes, or shows the last trace. Parameters: none or N" },
	};

	return cpe_ctl_register(c, cmds, RTE_DIM(cmds));
}
