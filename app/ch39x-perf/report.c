/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Results: a table on stdout, or with --json exactly one JSON object on
 * stdout and the table on stderr, next to the progress lines.
 *
 * Wire figures count, per frame, the L2 bytes (FCS excluded; runts as 60)
 * plus 24 bytes: preamble and SFD 8, FCS 4, inter-frame gap 12.
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "perf.h"

struct figures {
	uint64_t pkts, l2, wire, payload;
	double pps, l1_mbps, l2_mbps, goodput_mbps;
	double eff_pct, hdr_per_payload;	/* NAN: undefined */
	/* USB, over the ports with ch39x xstats. */
	bool usb;
	uint64_t rx_xfers, rx_ubytes, rx_frames;
	uint64_t tx_xfers, tx_ubytes, tx_frames, tx_records;
	uint64_t tso_hw, tso_sw, tso_sw_segs, ring_full;
	double xfers_per_s, frames_per_xfer, bytes_per_frame;
	/* CPU. */
	uint64_t rx_cycles, rx_pkts, tx_cycles, tx_pkts, tx_wire_frames;
	uint64_t rx_busy, tx_busy;
	double cyc_rx, cyc_tx, cyc_tx_frame, cyc_rx_busy, cyc_tx_busy;
	/*
	 * Both bursts per counted packet, and the simulated device's share
	 * (xstat sim_device_cycles, over the ports that have it): a
	 * simulated port's bursts run the device model too, so the PMD's
	 * own cost is what is left. NAN when no port has the xstat.
	 */
	bool dev;
	uint64_t dev_cycles;
	double cyc_rxtx, cyc_dev, cyc_pmd_own;
	/* Traffic both ways. */
	uint64_t tx_l2, tx_wire, tx_payload, rx_l2, rx_wire, rx_payload;
	/* Losses. */
	uint64_t imissed, ierrors, nombuf, oerrors, tcp_lost, drops;
	/* --latency, microseconds; NAN without samples. */
	uint64_t lat_n;
	double lat_min, lat_mean, lat_p50, lat_p90, lat_p99, lat_max;
};

static double
ratio(double num, double den)
{
	return den > 0 ? num / den : NAN;
}

/*
 * The latency at quantile q: the middle of the bucket holding the
 * ceil(q * n)-th sample, kept within the exact min and max.
 */
static uint64_t
lat_quantile(const struct perf_lat *l, double q)
{
	uint64_t rank = (uint64_t)ceil(q * (double)l->n), seen = 0, v;
	uint32_t i;

	if (rank == 0)
		rank = 1;
	for (i = 0; i < PERF_LAT_BUCKETS; i++) {
		seen += l->hist[i];
		if (seen >= rank)
			break;
	}
	v = perf_lat_bucket_mid(i < PERF_LAT_BUCKETS ? i :
				PERF_LAT_BUCKETS - 1);
	return RTE_MIN(RTE_MAX(v, l->min), l->max);
}

static void
compute_lat(const struct perf_run *r, struct figures *f)
{
	const struct perf_lat *l = r->lat;
	/* Measured ticks per second: EAL's figure may be nominal. */
	double us = (isfinite(r->tsc_measured_hz) && r->tsc_measured_hz > 0 ?
		     r->tsc_measured_hz : (double)r->tsc_hz) / 1e6;

	f->lat_min = f->lat_mean = f->lat_p50 = f->lat_p90 = f->lat_p99 =
		f->lat_max = NAN;
	if (l == NULL || l->n == 0)
		return;
	f->lat_n = l->n;
	f->lat_min = (double)l->min / us;
	f->lat_max = (double)l->max / us;
	f->lat_mean = (double)l->sum / (double)l->n / us;
	f->lat_p50 = (double)lat_quantile(l, 0.50) / us;
	f->lat_p90 = (double)lat_quantile(l, 0.90) / us;
	f->lat_p99 = (double)lat_quantile(l, 0.99) / us;
}

/*
 * The PMD's own cycles per packet: rx_burst and tx_burst together per
 * counted packet, less the simulated device's time spent inside them.
 */
static void
compute_own(struct figures *f)
{
	f->cyc_rxtx = ratio((double)(f->rx_cycles + f->tx_cycles),
			    (double)f->pkts);
	f->cyc_dev = f->cyc_pmd_own = NAN;
	if (!f->dev)
		return;
	f->cyc_dev = ratio((double)f->dev_cycles, (double)f->pkts);
	f->cyc_pmd_own = f->cyc_rxtx - f->cyc_dev;
}

#define D(s, f) ((s)->s2.st.f - (s)->s0.st.f)
#define X1(p, k) ((p)->s1.xs[k] - (p)->s0.xs[k])

static void
compute(const struct perf_run *r, struct figures *f)
{
	double t = r->elapsed;
	uint16_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_port *p = &r->ports[i];
		const struct perf_ctr *c = &p->c;

		f->rx_pkts += c->rx_pkts;
		f->rx_cycles += c->rx_cycles;
		f->rx_busy += c->rx_busy_cycles;
		f->rx_l2 += c->rx_bytes;
		f->rx_wire += c->rx_wire;
		f->rx_payload += c->rx_payload;
		f->tx_pkts += c->tx_pkts;
		f->tx_cycles += c->tx_cycles;
		f->tx_busy += c->tx_busy_cycles;
		f->tx_wire_frames += c->tx_frames;
		f->tx_l2 += c->tx_bytes;
		f->tx_wire += c->tx_wire;
		f->tx_payload += c->tx_payload;
		if (p->rx_role) {
			f->imissed += D(p, imissed);
			f->ierrors += D(p, ierrors);
			f->nombuf += D(p, rx_nombuf);
		}
		if (p->tx_role)
			f->oerrors += D(p, oerrors);
		if (p->xs_found[XS_SIM_DEVICE_CYCLES]) {
			f->dev = true;
			f->dev_cycles += X1(p, XS_SIM_DEVICE_CYCLES);
		}
		if (!p->has_usb)
			continue;
		f->usb = true;
		f->rx_xfers += X1(p, XS_RX_USB_XFERS);
		f->rx_ubytes += X1(p, XS_RX_USB_BYTES);
		f->rx_frames += X1(p, XS_RX_FRAMES);
		f->tx_xfers += X1(p, XS_TX_USB_XFERS);
		f->tx_ubytes += X1(p, XS_TX_USB_BYTES);
		/* Frames on the wire: TSO super-frames count per segment. */
		f->tx_frames += c->tx_frames;
		f->tx_records += X1(p, XS_TX_GOOD_PACKETS);
		f->tso_hw += X1(p, XS_TX_TSO_HW);
		f->tso_sw += X1(p, XS_TX_TSO_SW);
		f->tso_sw_segs += X1(p, XS_TX_TSO_SW_SEGS);
		f->ring_full += X1(p, XS_TX_RING_FULL);
	}
	if (r->cfg.mode == PERF_TXONLY) {
		f->pkts = f->tx_wire_frames;
		f->l2 = f->tx_l2;
		f->wire = f->tx_wire;
		f->payload = f->tx_payload;
	} else {
		f->pkts = f->rx_pkts;
		f->l2 = f->rx_l2;
		f->wire = f->rx_wire;
		f->payload = f->rx_payload;
	}
	f->pps = ratio((double)f->pkts, t);
	f->l1_mbps = ratio((double)f->wire * 8, t) / 1e6;
	f->l2_mbps = ratio((double)f->l2 * 8, t) / 1e6;
	f->goodput_mbps = ratio((double)f->payload * 8, t) / 1e6;
	f->eff_pct = f->payload ? 100.0 * (double)f->payload /
		(double)f->wire : NAN;
	f->hdr_per_payload = ratio((double)(f->wire - f->payload),
				   (double)f->payload);
	if (f->usb) {
		uint64_t x = f->rx_xfers + f->tx_xfers;
		uint64_t fr = f->rx_frames + f->tx_frames;

		f->xfers_per_s = ratio((double)x, t);
		f->frames_per_xfer = ratio((double)fr, (double)x);
		f->bytes_per_frame = ratio((double)(f->rx_ubytes +
						    f->tx_ubytes), (double)fr);
	}
	f->cyc_rx = ratio((double)f->rx_cycles, (double)f->rx_pkts);
	f->cyc_tx = ratio((double)f->tx_cycles, (double)f->tx_pkts);
	f->cyc_tx_frame = ratio((double)f->tx_cycles,
				(double)f->tx_wire_frames);
	f->cyc_rx_busy = ratio((double)f->rx_busy, (double)f->rx_pkts);
	f->cyc_tx_busy = ratio((double)f->tx_busy, (double)f->tx_pkts);
	compute_own(f);
	compute_lat(r, f);
	if (r->cfg.mode == PERF_TCP) {
		uint64_t got = r->tcp.rx_segs + r->tcp.rx_late_segs;

		f->tcp_lost = r->tcp.tx_segs > got ? r->tcp.tx_segs - got : 0;
		f->drops = f->tcp_lost;
	} else {
		f->drops = f->imissed + f->ierrors + f->nombuf + f->oerrors;
	}
}

/* ---- JSON ---- */

struct json {
	FILE *f;
	int depth;
	bool first[8];
};

static void
j_key(struct json *j, const char *k)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (k != NULL)
		fprintf(j->f, "\"%s\":", k);
}

static void
j_open(struct json *j, const char *k, char c)
{
	if (j->depth >= 0)
		j_key(j, k);
	fputc(c, j->f);
	j->depth++;
	j->first[j->depth] = true;
}

static void
j_close(struct json *j, char c)
{
	fputc(c, j->f);
	j->depth--;
}

static void
j_str(struct json *j, const char *k, const char *v)
{
	j_key(j, k);
	fputc('"', j->f);
	for (; *v; v++) {
		if (*v == '"' || *v == '\\')
			fprintf(j->f, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			fprintf(j->f, "\\u%04x", (unsigned char)*v);
		else
			fputc(*v, j->f);
	}
	fputc('"', j->f);
}

static void
j_u64(struct json *j, const char *k, uint64_t v)
{
	j_key(j, k);
	fprintf(j->f, "%" PRIu64, v);
}

static void
j_dbl(struct json *j, const char *k, double v, int prec)
{
	j_key(j, k);
	if (isfinite(v))
		fprintf(j->f, "%.*f", prec, v);
	else
		fputs("null", j->f);
}

static void
j_bool(struct json *j, const char *k, bool v)
{
	j_key(j, k);
	fputs(v ? "true" : "false", j->f);
}

static void
j_null(struct json *j, const char *k)
{
	j_key(j, k);
	fputs("null", j->f);
}

static void
json_out(const struct perf_run *r, const struct figures *f)
{
	const struct perf_cfg *c = &r->cfg;
	struct json js = { .f = stdout, .depth = -1 }, *j = &js;
	uint16_t i;

	j_open(j, NULL, '{');
	j_str(j, "mode", perf_mode_name(c->mode));
	j_open(j, "ports", '[');
	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_port *p = &r->ports[i];

		j_open(j, NULL, '{');
		j_u64(j, "port", p->id);
		j_str(j, "name", p->name);
		j_str(j, "driver", p->driver);
		j_str(j, "role", p->tx_role && p->rx_role ? "rx+tx" :
		      p->tx_role ? "tx" : "rx");
		j_bool(j, "usb_xstats", p->has_usb);
		j_close(j, '}');
	}
	j_close(j, ']');
	j_u64(j, "mtu", c->mtu);
	j_u64(j, "frame_size", c->frame_size);
	j_u64(j, "burst", c->burst);
	j_u64(j, "mbuf_data_room", c->data_room);
	j_bool(j, "rx_scatter", c->rx_scatter);
	j_bool(j, "tx_multi_seg", c->tx_multi_seg);
	j_dbl(j, "duration_s", c->duration, 3);
	j_dbl(j, "elapsed_s", r->elapsed, 6);
	j_bool(j, "interrupted", r->interrupted);
	j_str(j, "counted", c->mode == PERF_TXONLY ? "tx" : "rx");
	j_u64(j, "packets", f->pkts);
	j_u64(j, "l2_bytes", f->l2);
	j_u64(j, "wire_bytes", f->wire);
	j_u64(j, "payload_bytes", f->payload);
	j_dbl(j, "pps", f->pps, 1);
	j_dbl(j, "l1_mbps", f->l1_mbps, 3);
	j_dbl(j, "l2_mbps", f->l2_mbps, 3);
	j_dbl(j, "goodput_mbps", f->goodput_mbps, 3);
	j_dbl(j, "efficiency_pct", f->eff_pct, 3);
	j_dbl(j, "header_bytes_per_payload_byte", f->hdr_per_payload, 5);
	if (f->usb) {
		j_dbl(j, "usb_xfers_per_s", f->xfers_per_s, 1);
		j_dbl(j, "frames_per_xfer", f->frames_per_xfer, 3);
		j_dbl(j, "usb_bytes_per_frame", f->bytes_per_frame, 2);
		j_open(j, "usb", '{');
		j_open(j, "rx", '{');
		j_u64(j, "xfers", f->rx_xfers);
		j_u64(j, "bytes", f->rx_ubytes);
		j_u64(j, "frames", f->rx_frames);
		j_dbl(j, "xfers_per_s", ratio((double)f->rx_xfers, r->elapsed),
		      1);
		j_dbl(j, "frames_per_xfer", ratio((double)f->rx_frames,
						  (double)f->rx_xfers), 3);
		j_dbl(j, "bytes_per_frame", ratio((double)f->rx_ubytes,
						  (double)f->rx_frames), 2);
		j_close(j, '}');
		j_open(j, "tx", '{');
		j_u64(j, "xfers", f->tx_xfers);
		j_u64(j, "bytes", f->tx_ubytes);
		j_u64(j, "frames", f->tx_frames);
		j_u64(j, "records", f->tx_records);
		j_dbl(j, "xfers_per_s", ratio((double)f->tx_xfers, r->elapsed),
		      1);
		j_dbl(j, "frames_per_xfer", ratio((double)f->tx_frames,
						  (double)f->tx_xfers), 3);
		j_dbl(j, "bytes_per_frame", ratio((double)f->tx_ubytes,
						  (double)f->tx_frames), 2);
		j_u64(j, "tso_hw_frames", f->tso_hw);
		j_u64(j, "tso_sw_frames", f->tso_sw);
		j_u64(j, "tso_sw_segments", f->tso_sw_segs);
		j_u64(j, "ring_full", f->ring_full);
		j_close(j, '}');
		j_close(j, '}');
	} else {
		j_null(j, "usb_xfers_per_s");
		j_null(j, "frames_per_xfer");
		j_null(j, "usb_bytes_per_frame");
		j_null(j, "usb");
	}
	j_dbl(j, "cycles_per_pkt_rx", f->cyc_rx, 1);
	j_dbl(j, "cycles_per_pkt_tx", f->cyc_tx, 1);
	j_dbl(j, "cycles_per_frame_tx", f->cyc_tx_frame, 1);
	j_dbl(j, "cycles_per_pkt_rx_busy", f->cyc_rx_busy, 1);
	j_dbl(j, "cycles_per_pkt_tx_busy", f->cyc_tx_busy, 1);
	j_dbl(j, "cycles_per_pkt_rxtx", f->cyc_rxtx, 1);
	if (f->dev)
		j_u64(j, "sim_device_cycles", f->dev_cycles);
	else
		j_null(j, "sim_device_cycles");
	j_dbl(j, "sim_device_cycles_per_pkt", f->cyc_dev, 1);
	j_dbl(j, "pmd_own_cycles_per_pkt", f->cyc_pmd_own, 1);
	j_u64(j, "tsc_hz", r->tsc_hz);
	j_dbl(j, "tsc_hz_measured", r->tsc_measured_hz, 0);
	if (r->lat != NULL)
		j_u64(j, "latency_samples", f->lat_n);
	else
		j_null(j, "latency_samples");
	j_dbl(j, "latency_us_min", f->lat_min, 3);
	j_dbl(j, "latency_us_mean", f->lat_mean, 3);
	j_dbl(j, "latency_us_p50", f->lat_p50, 3);
	j_dbl(j, "latency_us_p90", f->lat_p90, 3);
	j_dbl(j, "latency_us_p99", f->lat_p99, 3);
	j_dbl(j, "latency_us_max", f->lat_max, 3);
	j_u64(j, "drops", f->drops);
	j_open(j, "drop_detail", '{');
	j_u64(j, "rx_missed", f->imissed);
	j_u64(j, "rx_errors", f->ierrors);
	j_u64(j, "rx_nombuf", f->nombuf);
	j_u64(j, "tx_errors", f->oerrors);
	if (c->mode == PERF_TCP)
		j_u64(j, "tcp_lost_segments", f->tcp_lost);
	j_close(j, '}');
	j_open(j, "tx", '{');
	j_u64(j, "packets", f->tx_pkts);
	j_u64(j, "frames", f->tx_wire_frames);
	j_u64(j, "l2_bytes", f->tx_l2);
	j_u64(j, "payload_bytes", f->tx_payload);
	j_dbl(j, "pps", ratio((double)f->tx_wire_frames, r->elapsed), 1);
	j_dbl(j, "l1_mbps", ratio((double)f->tx_wire * 8, r->elapsed) / 1e6,
	      3);
	j_u64(j, "unsent_at_end", r->tx_unsent);
	j_close(j, '}');
	j_open(j, "rx", '{');
	j_u64(j, "packets", f->rx_pkts);
	j_u64(j, "l2_bytes", f->rx_l2);
	j_u64(j, "payload_bytes", f->rx_payload);
	j_dbl(j, "pps", ratio((double)f->rx_pkts, r->elapsed), 1);
	j_dbl(j, "l1_mbps", ratio((double)f->rx_wire * 8, r->elapsed) / 1e6,
	      3);
	j_u64(j, "drained_after_window", r->rx_drained);
	j_close(j, '}');
	if (c->mode == PERF_TCP) {
		j_open(j, "tcp", '{');
		j_u64(j, "mss", c->mss);
		j_bool(j, "tso_requested", c->tso_asked);
		j_bool(j, "tso", c->tso);
		j_u64(j, "payload_per_mbuf", c->msg_payload);
		j_u64(j, "segments_per_mbuf", r->tcp.segs_per_msg);
		j_bool(j, "tx_csum_offload", c->tx_csum_offload);
		j_u64(j, "segments_sent", r->tcp.tx_segs);
		j_u64(j, "segments_received", r->tcp.rx_segs);
		j_u64(j, "segments_received_late", r->tcp.rx_late_segs);
		j_u64(j, "seq_gaps", r->tcp.rx_gaps);
		j_u64(j, "seq_gap_bytes", r->tcp.rx_gap_bytes);
		j_u64(j, "seq_old", r->tcp.rx_old);
		j_close(j, '}');
	}
	j_close(j, '}');
	fputc('\n', stdout);
	fflush(stdout);
}

/* ---- table ---- */

static void
row(FILE *o, const char *name, double v, int prec, const char *unit)
{
	if (isfinite(v))
		fprintf(o, "  %-34s %16.*f %s\n", name, prec, v, unit);
	else
		fprintf(o, "  %-34s %16s %s\n", name, "-", unit);
}

static void
row_u(FILE *o, const char *name, uint64_t v, const char *unit)
{
	fprintf(o, "  %-34s %16" PRIu64 " %s\n", name, v, unit);
}

static void
table(FILE *o, const struct perf_run *r, const struct figures *f)
{
	const struct perf_cfg *c = &r->cfg;
	uint16_t i;

	fprintf(o, "\nch39x-perf: mode %s, MTU %u, frame %u bytes, burst %u, "
		"%.3f s%s\n", perf_mode_name(c->mode), c->mtu, c->frame_size,
		c->burst, r->elapsed, r->interrupted ? " (interrupted)" : "");
	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_port *p = &r->ports[i];

		fprintf(o, "  port %u: %s (%s), %s%s\n", p->id, p->name,
			p->driver, p->tx_role && p->rx_role ? "rx+tx" :
			p->tx_role ? "tx" : "rx",
			p->has_usb ? ", USB xstats" : "");
	}
	if (c->mode == PERF_TCP)
		fprintf(o, "  tcp: MSS %u, %s, %u payload bytes per mbuf "
			"(%u segments), checksums %s\n", c->mss,
			c->tso ? "TSO" : c->tso_asked ?
			"TSO not offered by the port" : "no TSO",
			c->msg_payload, r->tcp.segs_per_msg,
			c->tx_csum_offload ? "offloaded" : "in software");
	fprintf(o, " %s side:\n", c->mode == PERF_TXONLY ? "sent" : "received");
	row_u(o, "packets", f->pkts, "");
	row(o, "packet rate", f->pps, 0, "pps");
	row(o, "L1 rate (+24 B/frame)", f->l1_mbps, 3, "Mbit/s");
	row(o, "L2 rate (no FCS)", f->l2_mbps, 3, "Mbit/s");
	row(o, "goodput (L4 payload)", f->goodput_mbps, 3, "Mbit/s");
	row(o, "efficiency (payload / wire)", f->eff_pct, 3, "%");
	row(o, "header bytes per payload byte", f->hdr_per_payload, 5, "");
	fprintf(o, " USB (%s):\n", f->usb ? "ch39x xstats" :
		"no port has USB xstats");
	if (f->usb) {
		row(o, "transfers", f->xfers_per_s, 1, "/s");
		row(o, "frames per transfer", f->frames_per_xfer, 3, "");
		row(o, "USB bytes per frame", f->bytes_per_frame, 2, "B");
		row(o, "  rx frames per transfer", ratio((double)f->rx_frames,
			(double)f->rx_xfers), 3, "");
		row(o, "  tx frames per transfer", ratio((double)f->tx_frames,
			(double)f->tx_xfers), 3, "");
		if (c->mode == PERF_TCP && c->tso)
			fprintf(o, "  %-34s %16" PRIu64 " hw, %" PRIu64
				" sw\n", "TSO super-frames", f->tso_hw,
				f->tso_sw);
	}
	fprintf(o, " CPU (TSC %.3f GHz by EAL, %.3f GHz measured):\n",
		(double)r->tsc_hz / 1e9, r->tsc_measured_hz / 1e9);
	row(o, "cycles per packet, rx_burst", f->cyc_rx, 1, "");
	row(o, "cycles per packet, tx_burst", f->cyc_tx, 1, "");
	row(o, "  rx, calls that returned packets", f->cyc_rx_busy, 1, "");
	row(o, "  tx, calls that took packets", f->cyc_tx_busy, 1, "");
	if (c->mode == PERF_TCP && c->tso)
		row(o, "cycles per wire frame, tx_burst", f->cyc_tx_frame, 1,
		    "");
	row(o, "cycles per packet, rx+tx bursts", f->cyc_rxtx, 1, "");
	if (f->dev) {
		row(o, "  of them the simulated device's", f->cyc_dev, 1, "");
		row(o, "  the PMD's own (device's out)", f->cyc_pmd_own, 1,
		    "");
	} else {
		fprintf(o, "  %-34s %16s\n", "the PMD's own (device's out)",
			"unavailable (no sim_device_cycles xstat)");
	}
	if (r->lat != NULL) {
		fprintf(o, " latency (queued for TX to rx_burst):\n");
		row_u(o, "stamped frames received", f->lat_n, "");
		row(o, "min", f->lat_min, 3, "us");
		row(o, "mean", f->lat_mean, 3, "us");
		row(o, "p50", f->lat_p50, 3, "us");
		row(o, "p90", f->lat_p90, 3, "us");
		row(o, "p99", f->lat_p99, 3, "us");
		row(o, "max", f->lat_max, 3, "us");
	}
	fprintf(o, " losses:\n");
	row_u(o, "drops", f->drops, "");
	row_u(o, "  rx missed", f->imissed, "");
	row_u(o, "  rx errors", f->ierrors, "");
	row_u(o, "  rx no mbuf", f->nombuf, "");
	row_u(o, "  tx errors", f->oerrors, "");
	if (c->mode == PERF_TCP) {
		row_u(o, "  tcp segments lost", f->tcp_lost, "");
		row_u(o, "  tcp sequence gaps", r->tcp.rx_gaps, "");
	}
}

void
perf_report(const struct perf_run *r)
{
	struct figures f;

	compute(r, &f);
	if (r->cfg.json) {
		table(stderr, r, &f);
		json_out(r, &f);
	} else {
		table(stdout, r, &f);
	}
}
