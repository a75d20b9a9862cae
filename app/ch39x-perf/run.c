/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The measurement: one loop on the main lcore polls every port. Packets
 * the TX queue does not take stay pending and are offered again, and a
 * port receives only as much as its forwarding target has room for, so
 * the application itself never drops: what is lost is lost in a port.
 *
 * The window runs from the first packet sent (or the first poll) to the
 * stop condition; after it, receive queues are drained for up to 200 ms,
 * which counts in-flight TCP segments for the loss figure but not for the
 * rates, and every mbuf goes back to the pool.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "perf.h"

static volatile bool force_quit;

/*
 * Wall time for the rates: the TSC frequency EAL reports may be a nominal
 * one (2.1 GHz reported for a TSC measured at 2.096 GHz is a 0.2 % error).
 */
static uint64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
perf_stop(void)
{
	force_quit = true;
}

static inline uint16_t
rx_burst(struct perf_port *p, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t0 = rte_rdtsc(), dt;
	uint16_t k = rte_eth_rx_burst(p->id, 0, pkts, n);

	dt = rte_rdtsc() - t0;
	p->c.rx_cycles += dt;
	if (k)
		p->c.rx_busy_cycles += dt;
	p->c.rx_calls++;
	return k;
}

/* Offer the pending mbufs to the TX queue; count what it took. */
static inline void
tx_flush(struct perf_port *p)
{
	uint64_t t0, dt;
	uint16_t k, i;

	if (p->nb_pend == 0)
		return;
	t0 = rte_rdtsc();
	k = rte_eth_tx_burst(p->id, 0, p->pend, p->nb_pend);
	dt = rte_rdtsc() - t0;
	p->c.tx_cycles += dt;
	if (k)
		p->c.tx_busy_cycles += dt;
	p->c.tx_calls++;
	for (i = 0; i < k; i++) {
		const struct perf_acct *a = &p->pend_acct[i];

		p->c.tx_frames += a->frames;
		p->c.tx_bytes += a->l2;
		p->c.tx_wire += a->wire;
		p->c.tx_payload += a->payload;
	}
	p->c.tx_pkts += k;
	if (k < p->nb_pend) {
		memmove(p->pend, p->pend + k,
			(p->nb_pend - k) * sizeof(p->pend[0]));
		memmove(p->pend_acct, p->pend_acct + k,
			(p->nb_pend - k) * sizeof(p->pend_acct[0]));
	}
	p->nb_pend -= k;
}

static inline void
pend_push(struct perf_port *p, struct rte_mbuf *m, const struct perf_acct *a)
{
	p->pend[p->nb_pend] = m;
	p->pend_acct[p->nb_pend] = *a;
	p->nb_pend++;
}

/* The TCP receiver: sequence tracking of the stream. */
static inline void
tcp_rx(struct perf_tcp *t, const struct perf_rx_info *ri, bool late)
{
	int32_t d;

	if (!ri->tcp || ri->dport != PERF_TCP_DPORT)
		return;
	if (late)
		t->rx_late_segs++;
	else
		t->rx_segs++;
	if (!t->rx_synced) {
		t->rx_synced = true;
		t->rx_next = ri->seq;
	}
	d = (int32_t)(ri->seq - t->rx_next);
	if (d > 0) {
		t->rx_gaps++;
		t->rx_gap_bytes += (uint32_t)d;
	} else if (d < 0) {
		t->rx_old++;
		return;
	}
	t->rx_next = ri->seq + ri->payload;
}

static inline void
lat_add(struct perf_lat *l, uint64_t cycles)
{
	l->n++;
	l->sum += cycles;
	if (cycles < l->min)
		l->min = cycles;
	if (cycles > l->max)
		l->max = cycles;
	l->hist[perf_lat_bucket(cycles)]++;
}

/*
 * --latency at RX: one TSC read per burst (the frames of a burst arrived
 * together), the stamp of each frame read into the histogram; a frame
 * about to be forwarded (io) is stamped again, so that every hop counts
 * from the moment the frame is queued for TX.
 */
static inline void
lat_rx(struct perf_run *r, struct rte_mbuf *m, const struct perf_rx_info *ri,
       uint64_t now, bool forward)
{
	uint64_t t;

	if (perf_lat_get(m, ri, &t) && now >= t)
		lat_add(r->lat, now - t);
	if (forward)
		perf_lat_put(m, ri, now);
}

static inline void
count_rx(struct perf_run *r, struct perf_port *p, struct rte_mbuf **pkts,
	 uint16_t n, struct perf_acct *acct)
{
	uint64_t now = r->lat != NULL && n ? rte_rdtsc() : 0;
	struct perf_rx_info ri;
	uint16_t i;

	for (i = 0; i < n; i++) {
		perf_parse(pkts[i], &ri);
		if (r->lat != NULL)
			lat_rx(r, pkts[i], &ri, now, acct != NULL);
		p->c.rx_bytes += pkts[i]->pkt_len;
		p->c.rx_wire += perf_wire_len(pkts[i]->pkt_len);
		p->c.rx_payload += ri.payload;
		if (r->cfg.mode == PERF_TCP)
			tcp_rx(&r->tcp, &ri, false);
		if (acct != NULL) {
			acct[i].frames = 1;
			acct[i].l2 = pkts[i]->pkt_len;
			acct[i].wire = perf_wire_len(pkts[i]->pkt_len);
			acct[i].payload = ri.payload;
		}
	}
	p->c.rx_pkts += n;
}

/* Up to n copies of the port's frame template into its pending list. */
static uint16_t
gen_udp(struct perf_run *r, struct perf_port *p, uint16_t n)
{
	const struct perf_cfg *c = &r->cfg;
	struct rte_mbuf *pkts[PERF_MAX_BURST];
	struct perf_acct a = {
		.frames = 1,
		.l2 = p->tmpl_len,
		.wire = perf_wire_len(p->tmpl_len),
		.payload = p->tmpl_len - PERF_UDP_HDRS,
	};
	uint16_t i;

	if (n == 0)
		return 0;
	/* --latency: the template carries the stamp, frames copy it. */
	if (c->latency)
		perf_lat_stamp(p->tmpl + PERF_UDP_HDRS, rte_rdtsc());
	if (!c->tx_multi_seg) {
		if (rte_pktmbuf_alloc_bulk(r->pool, pkts, n) != 0)
			return 0;
		for (i = 0; i < n; i++) {
			rte_memcpy(rte_pktmbuf_mtod(pkts[i], void *), p->tmpl,
				   p->tmpl_len);
			pkts[i]->data_len = (uint16_t)p->tmpl_len;
			pkts[i]->pkt_len = p->tmpl_len;
			pend_push(p, pkts[i], &a);
		}
		return n;
	}
	for (i = 0; i < n; i++) {
		pkts[0] = perf_mbuf_from(r->pool, p->tmpl, p->tmpl_len,
					 c->data_room);
		if (pkts[0] == NULL)
			break;
		pend_push(p, pkts[0], &a);
	}
	return i;
}

/* Up to n messages of the TCP stream (segments or super-frames). */
static uint16_t
gen_tcp(struct perf_run *r, struct perf_port *p, uint16_t n)
{
	const struct perf_cfg *c = &r->cfg;
	struct perf_tcp *t = &r->tcp;
	struct rte_mbuf *pkts[PERF_MAX_BURST];
	struct perf_acct a = {
		.frames = t->segs_per_msg,
		.l2 = (uint32_t)t->msg_l2,
		.wire = (uint32_t)t->msg_wire,
		.payload = c->msg_payload,
	};
	uint16_t i, k;

	/* --latency: the first segment of each message has the stamp. */
	if (c->latency && n)
		perf_lat_stamp(r->scratch + PERF_TCP_HDRS, rte_rdtsc());
	for (i = 0; i < n; i++) {
		perf_tcp_set(r->scratch, c->msg_payload, t->seq, t->ip_id,
			     !c->tso && !c->tx_csum_offload);
		pkts[i] = perf_mbuf_from(r->pool, r->scratch, c->msg_len,
					 c->data_room);
		if (pkts[i] == NULL)
			break;
		pkts[i]->l2_len = RTE_ETHER_HDR_LEN;
		pkts[i]->l3_len = sizeof(struct rte_ipv4_hdr);
		pkts[i]->l4_len = sizeof(struct rte_tcp_hdr);
		if (c->tso) {
			pkts[i]->ol_flags = RTE_MBUF_F_TX_TCP_SEG |
				RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
			pkts[i]->tso_segsz = (uint16_t)c->mss;
		} else if (c->tx_csum_offload) {
			pkts[i]->ol_flags = RTE_MBUF_F_TX_IPV4 |
				RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM;
		}
		t->seq += c->msg_payload;
		t->ip_id = (uint16_t)(t->ip_id + t->segs_per_msg);
		t->msgs++;
	}
	if (i == 0)
		return 0;
	k = rte_eth_tx_prepare(p->id, 0, pkts, i);
	if (k != i) {
		fprintf(stderr, "ch39x-perf: port %u (%s) refused to prepare a "
			"%u-byte %s: %s\n", p->id, p->name, c->msg_len,
			c->tso ? "TSO super-frame" : "segment",
			rte_strerror(rte_errno));
		rte_pktmbuf_free_bulk(pkts, i);
		r->failed = true;
		return 0;
	}
	for (k = 0; k < i; k++)
		pend_push(p, pkts[k], &a);
	return i;
}

/*
 * Messages the sender's window has room for. Received segments count as
 * acknowledged, up to the receiver's next expected sequence number; data
 * that never arrives is given up after 100 ms without receiving (there is
 * no retransmission).
 */
static inline uint32_t
tcp_window_room(struct perf_run *r, uint64_t last_rx)
{
	const struct perf_cfg *c = &r->cfg;
	struct perf_tcp *t = &r->tcp;
	uint32_t inflight = t->seq - (t->rx_synced ? t->rx_next : 1);

	if (inflight == 0)
		return RTE_MAX(c->tcp_window / c->msg_payload, 1u);
	if (inflight < c->tcp_window &&
	    c->tcp_window - inflight >= c->msg_payload)
		return (c->tcp_window - inflight) / c->msg_payload;
	if (rte_rdtsc() - last_rx > r->tsc_hz / 10) {
		t->rx_synced = true;
		t->rx_next = t->seq;
		return RTE_MAX(c->tcp_window / c->msg_payload, 1u);
	}
	return 0;
}

/* Frames of the counted side so far: sent (txonly) or received. */
static void
counted(const struct perf_run *r, uint64_t *pkts, uint64_t *l2,
	uint64_t *payload)
{
	uint16_t i;

	*pkts = *l2 = *payload = 0;
	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_ctr *c = &r->ports[i].c;

		if (r->cfg.mode == PERF_TXONLY) {
			*pkts += c->tx_frames;
			*l2 += c->tx_bytes;
			*payload += c->tx_payload;
		} else {
			*pkts += c->rx_pkts;
			*l2 += c->rx_bytes;
			*payload += c->rx_payload;
		}
	}
}

/* Port-reported losses since the start: RX misses and errors, TX errors. */
static uint64_t
port_drops(const struct perf_run *r)
{
	struct rte_eth_stats st;
	uint64_t d = 0;
	uint16_t i;

	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_port *p = &r->ports[i];

		if (rte_eth_stats_get(p->id, &st) != 0)
			continue;
		if (p->rx_role)
			d += (st.imissed - p->s0.st.imissed) +
				(st.ierrors - p->s0.st.ierrors) +
				(st.rx_nombuf - p->s0.st.rx_nombuf);
		if (p->tx_role)
			d += st.oerrors - p->s0.st.oerrors;
	}
	return d;
}

struct progress {
	uint64_t next;
	uint64_t last_ns;
	uint64_t last_pkts;
	uint64_t last_l2;
	uint64_t last_payload;
};

static void
progress_line(struct perf_run *r, struct progress *pg)
{
	uint64_t pkts, l2, payload, ns = mono_ns();
	double dt = (double)(ns - pg->last_ns) / 1e9;

	counted(r, &pkts, &l2, &payload);
	if (dt <= 0)
		dt = 1e-9;
	fprintf(stderr, "ch39x-perf: %6.1f s  %s %12.0f pps  %9.1f Mbit/s "
		"(L2)  %9.1f Mbit/s goodput  drops %" PRIu64 "\n",
		(double)(ns - r->ns_start) / 1e9,
		r->cfg.mode == PERF_TXONLY ? "tx" : "rx",
		(double)(pkts - pg->last_pkts) / dt,
		(double)(l2 - pg->last_l2) * 8 / dt / 1e6,
		(double)(payload - pg->last_payload) * 8 / dt / 1e6,
		port_drops(r));
	pg->last_ns = ns;
	pg->last_pkts = pkts;
	pg->last_l2 = l2;
	pg->last_payload = payload;
	pg->next += r->tsc_hz;
}

/* io: the first bursts on each port start the circulation. */
static void
tx_first(struct perf_run *r)
{
	uint64_t deadline = rte_rdtsc() + r->tsc_hz / 10;
	uint16_t i, b;

	for (i = 0; i < r->nb_ports; i++) {
		struct perf_port *p = &r->ports[i];

		for (b = 0; b < r->cfg.tx_first; b++) {
			if (p->pend_cap - p->nb_pend < r->cfg.burst)
				break;
			gen_udp(r, p, r->cfg.burst);
			while (p->nb_pend && rte_rdtsc() < deadline)
				tx_flush(p);
		}
	}
}

/* txonly: frames to add to a port's pending list, within --packets. */
static uint16_t
txonly_room(const struct perf_run *r, const struct perf_port *p)
{
	uint64_t n = r->cfg.burst > p->nb_pend ? r->cfg.burst - p->nb_pend : 0;
	uint64_t sent = 0;
	uint16_t i;

	if (r->cfg.packets == 0)
		return (uint16_t)n;
	for (i = 0; i < r->nb_ports; i++)
		sent += r->ports[i].c.tx_frames + r->ports[i].nb_pend;
	return (uint16_t)RTE_MIN(n, r->cfg.packets > sent ?
				 r->cfg.packets - sent : 0);
}

static bool
done_by_count(const struct perf_run *r, bool *send_done)
{
	uint64_t pkts, l2, payload;

	if (r->cfg.packets == 0)
		return false;
	counted(r, &pkts, &l2, &payload);
	if (r->cfg.mode == PERF_TCP)
		*send_done = r->tcp.msgs * r->tcp.segs_per_msg >=
			r->cfg.packets;
	return pkts >= r->cfg.packets;
}

static void
loop(struct perf_run *r)
{
	const struct perf_cfg *c = &r->cfg;
	struct rte_mbuf *pkts[PERF_MAX_BURST];
	uint64_t deadline, now, last_rx;
	uint64_t idle = r->tsc_hz / 10;
	struct progress pg;
	bool send_done = false;
	uint16_t i, n, room;
	uint32_t left;

	r->ns_start = mono_ns();
	r->t_start = rte_rdtsc();
	deadline = r->t_start + (uint64_t)(c->duration * (double)r->tsc_hz);
	memset(&pg, 0, sizeof(pg));
	pg.next = r->t_start + r->tsc_hz;
	pg.last_ns = r->ns_start;
	last_rx = r->t_start;
	if (c->mode == PERF_IO)
		tx_first(r);
	while (!force_quit && !r->failed) {
		switch (c->mode) {
		case PERF_TXONLY:
			for (i = 0; i < r->nb_ports; i++) {
				struct perf_port *p = &r->ports[i];

				gen_udp(r, p, txonly_room(r, p));
				tx_flush(p);
			}
			break;
		case PERF_RXONLY:
			for (i = 0; i < r->nb_ports; i++) {
				n = rx_burst(&r->ports[i], pkts, c->burst);
				if (n == 0)
					continue;
				count_rx(r, &r->ports[i], pkts, n, NULL);
				rte_pktmbuf_free_bulk(pkts, n);
			}
			break;
		case PERF_IO:
			for (i = 0; i < 2; i++) {
				struct perf_port *src = &r->ports[i];
				struct perf_port *dst = &r->ports[src->peer];

				room = dst->pend_cap - dst->nb_pend;
				n = RTE_MIN(room, c->burst);
				if (n) {
					n = rx_burst(src, pkts, n);
					count_rx(r, src, pkts, n,
						 dst->pend_acct + dst->nb_pend);
					memcpy(dst->pend + dst->nb_pend, pkts,
					       n * sizeof(pkts[0]));
					dst->nb_pend += n;
				}
				tx_flush(dst);
			}
			break;
		case PERF_TCP: {
			struct perf_port *tx = &r->ports[0], *rx = &r->ports[1];

			if (!send_done && tx->nb_pend < c->burst) {
				left = RTE_MIN(tcp_window_room(r, last_rx),
					       (uint32_t)c->burst - tx->nb_pend);
				if (left)
					gen_tcp(r, tx, (uint16_t)left);
			}
			tx_flush(tx);
			n = rx_burst(rx, pkts, c->burst);
			if (n) {
				count_rx(r, rx, pkts, n, NULL);
				rte_pktmbuf_free_bulk(pkts, n);
				last_rx = rte_rdtsc();
			}
			break;
		}
		}
		now = rte_rdtsc();
		if (now >= pg.next)
			progress_line(r, &pg);
		if (now >= deadline || done_by_count(r, &send_done))
			break;
		/* tcp --packets: everything sent, the rest is not coming. */
		if (send_done && r->ports[0].nb_pend == 0 &&
		    now - last_rx > idle)
			break;
	}
	r->t_end = rte_rdtsc();
	r->elapsed = (double)(mono_ns() - r->ns_start) / 1e9;
	r->interrupted = force_quit;
	r->tsc_measured_hz = (double)(r->t_end - r->t_start) / r->elapsed;
	for (i = 0; i < r->nb_ports; i++)
		if (r->ports[i].tx_role && c->mode == PERF_TCP)
			r->tcp.tx_segs = r->ports[i].c.tx_frames;
}

/* After the window: in-flight frames, then every pending mbuf. */
static void
drain(struct perf_run *r)
{
	struct rte_mbuf *pkts[PERF_MAX_BURST];
	uint64_t hz = r->tsc_hz, now = rte_rdtsc();
	uint64_t end = now + hz / 5, last = now;
	struct perf_rx_info ri;
	uint16_t i, n, j;

	for (i = 0; i < r->nb_ports; i++) {
		struct perf_port *p = &r->ports[i];

		if (p->nb_pend) {
			r->tx_unsent += p->nb_pend;
			rte_pktmbuf_free_bulk(p->pend, p->nb_pend);
			p->nb_pend = 0;
		}
	}
	while (now < end && now - last < hz / 50) {
		for (i = 0; i < r->nb_ports; i++) {
			if (!r->ports[i].rx_role)
				continue;
			n = rte_eth_rx_burst(r->ports[i].id, 0, pkts,
					     PERF_MAX_BURST);
			if (n == 0)
				continue;
			last = rte_rdtsc();
			r->rx_drained += n;
			if (r->cfg.mode == PERF_TCP) {
				for (j = 0; j < n; j++) {
					perf_parse(pkts[j], &ri);
					tcp_rx(&r->tcp, &ri, true);
				}
			}
			rte_pktmbuf_free_bulk(pkts, n);
		}
		now = rte_rdtsc();
	}
}

int
perf_run(struct perf_run *r)
{
	const struct perf_cfg *c = &r->cfg;
	struct perf_tcp *t = &r->tcp;
	uint32_t seg, rest;

	r->tsc_hz = rte_get_tsc_hz();
	memset(t, 0, sizeof(*t));
	t->seq = 1;
	if (c->mode == PERF_TCP) {
		t->segs_per_msg = (c->msg_payload + c->mss - 1) / c->mss;
		for (rest = c->msg_payload; rest; rest -= seg) {
			seg = RTE_MIN(rest, c->mss);
			t->msg_l2 += seg + PERF_TCP_HDRS;
			t->msg_wire += perf_wire_len(seg + PERF_TCP_HDRS);
		}
	}
	if (c->latency) {
		r->lat = calloc(1, sizeof(*r->lat));
		if (r->lat == NULL) {
			fprintf(stderr, "ch39x-perf: no memory for the latency "
				"histogram\n");
			return -1;
		}
		r->lat->min = UINT64_MAX;
	}
	perf_snapshot(r, 0);
	loop(r);
	perf_snapshot(r, 1);
	drain(r);
	/* net_ch39x: device counters arrive on the interrupt endpoint. */
	rte_delay_ms(50);
	perf_snapshot(r, 2);
	return r->failed ? -1 : 0;
}
