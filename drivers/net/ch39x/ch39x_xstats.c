/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Basic and extended statistics: the queues' counters, the framing
 * parsers' and builders', the device's own (interrupt events) and, on a
 * simulated adapter, the model's. Read on the control thread while the
 * lcores count: each counter is a single writer's uint64_t.
 */

#include <string.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"
#include "ch39x_mbim_port.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"
#include "ch39x_xstats.h"

int
ch39x_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st
		CH39X_QSTATS_PARAM)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	const struct ch39x_rxq *rq = ad->rxq;
	const struct ch39x_txq *tq = ad->txq;
	ch39x_qstats *qs = CH39X_QSTATS(st);

	if (rq != NULL) {
		struct ch39x_rx_parsed p;

		ch39x_ops(ad)->rx_parsed(rq, &p);
		st->ipackets = rq->c.packets;
		st->ibytes = rq->c.bytes;
		st->ierrors = p.malformed + rq->c.mtu_drops +
			rq->c.mbuf_drops + rq->c.usb_errors + rq->c.usb_stalls +
			rq->c.usb_timeouts + rq->c.usb_overflows;
		st->rx_nombuf = rq->c.nombuf;
		if (qs != NULL) {
			qs->q_ipackets[0] = st->ipackets;
			qs->q_ibytes[0] = st->ibytes;
		}
	}
	if (tq != NULL) {
		st->opackets = tq->c.packets;
		st->obytes = tq->c.bytes;
		st->oerrors = tq->c.invalid + tq->c.usb_errors +
			tq->c.usb_stalls + tq->c.usb_timeouts + tq->c.absent;
		if (qs != NULL) {
			qs->q_opackets[0] = st->opackets;
			qs->q_obytes[0] = st->obytes;
		}
	}
	/* Frames the chip's FIFO could not hold, from its own events. */
	st->imissed = (uint16_t)(ad->last_event.rx_overflow -
				 ad->evt_base.rx_overflow);
	return 0;
}

int
ch39x_stats_reset(struct rte_eth_dev *dev)
{
	struct ch39x_adapter *ad = dev->data->dev_private;

	if (ad->rxq != NULL) {
		memset(&ad->rxq->c, 0, sizeof(ad->rxq->c));
		memset(&ad->rxq->parser.stats, 0,
		       sizeof(ad->rxq->parser.stats));
		memset(&ad->rxq->ncm.stats, 0, sizeof(ad->rxq->ncm.stats));
		memset(&ad->rxq->ecm, 0, sizeof(ad->rxq->ecm));
		memset(&ad->rxq->rndis.stats, 0, sizeof(ad->rxq->rndis.stats));
		ad->rxq->rndis_filtered = 0;
	}
	if (ad->txq != NULL) {
		memset(&ad->txq->c, 0, sizeof(ad->txq->c));
		if (ad->txq->ncm != NULL)
			memset(&ad->txq->ncm->stats, 0,
			       sizeof(ad->txq->ncm->stats));
		if (ad->txq->rndis != NULL)
			memset(&ad->txq->rndis->stats, 0,
			       sizeof(ad->txq->rndis->stats));
	}
	memset(&ad->rndis.st, 0, sizeof(ad->rndis.st));
	ad->cdc_notifications = 0;
	ad->link_events = 0;
	ad->ctrl_errors = 0;
	ad->evt_base = ad->last_event;
	return 0;
}

/* ---- xstats ---- */

#define XS(n, s, t, f) { n, CH39X_ ## s, offsetof(t, f) }
static const struct ch39x_xs_def xs_defs[] = {
	XS("rx_usb_xfers", XS_RX, struct ch39x_rx_counters, usb_xfers),
	XS("rx_usb_bytes", XS_RX, struct ch39x_rx_counters, usb_bytes),
	XS("rx_usb_errors", XS_RX, struct ch39x_rx_counters, usb_errors),
	XS("rx_usb_stalls", XS_RX, struct ch39x_rx_counters, usb_stalls),
	XS("rx_usb_timeouts", XS_RX, struct ch39x_rx_counters, usb_timeouts),
	XS("rx_usb_overflows", XS_RX, struct ch39x_rx_counters, usb_overflows),
	{ "rx_frames", CH39X_XS_CALC, 11 },
	{ "rx_frame_bytes", CH39X_XS_CALC, 12 },
	XS("rx_bad_headers", XS_PARSER, struct ch39x_rx_stats, bad_headers),
	XS("rx_straddled_records", XS_PARSER, struct ch39x_rx_stats, straddled),
	XS("rx_lost_partial_records", XS_PARSER, struct ch39x_rx_stats,
	   carry_lost),
	XS("rx_short_xfers", XS_PARSER, struct ch39x_rx_stats, short_xfers),
	XS("rx_truncated_records", XS_PARSER, struct ch39x_rx_stats, truncated),
	XS("rx_oversize_mtu_drops", XS_RX, struct ch39x_rx_counters, mtu_drops),
	XS("rx_oversize_mbuf_drops", XS_RX, struct ch39x_rx_counters,
	   mbuf_drops),
	XS("tx_usb_xfers", XS_TX, struct ch39x_tx_counters, usb_xfers),
	XS("tx_usb_bytes", XS_TX, struct ch39x_tx_counters, usb_bytes),
	XS("tx_usb_errors", XS_TX, struct ch39x_tx_counters, usb_errors),
	XS("tx_usb_stalls", XS_TX, struct ch39x_tx_counters, usb_stalls),
	XS("tx_usb_timeouts", XS_TX, struct ch39x_tx_counters, usb_timeouts),
	XS("tx_zlps", XS_TX, struct ch39x_tx_counters, zlps),
	XS("tx_ls_trailers", XS_TX, struct ch39x_tx_counters, tx_ls),
	XS("tx_invalid_length_drops", XS_TX, struct ch39x_tx_counters, invalid),
	XS("tx_ring_full", XS_TX, struct ch39x_tx_counters, full),
	XS("tx_tso_hw_frames", XS_TX, struct ch39x_tx_counters, tso_hw),
	XS("tx_tso_sw_frames", XS_TX, struct ch39x_tx_counters, tso_sw_pkts),
	XS("tx_tso_sw_segments", XS_TX, struct ch39x_tx_counters, tso_sw_segs),
	XS("tx_tso_segment_drops", XS_TX, struct ch39x_tx_counters,
	   tso_seg_drops),
	XS("tx_tso_waits", XS_TX, struct ch39x_tx_counters, tso_waits),
	XS("tx_link_down_frames", XS_TX, struct ch39x_tx_counters, link_down),
	XS("tx_csum_sw", XS_TX, struct ch39x_tx_counters, csum_sw),
	XS("tx_vlan_insert_sw", XS_TX, struct ch39x_tx_counters, vlan_sw),
	XS("rx_vlan_strip_sw", XS_RX, struct ch39x_rx_counters, vlan_sw),
	XS("rx_csum_sw", XS_RX, struct ch39x_rx_counters, csum_sw),
	XS("rx_chained_frames", XS_RX, struct ch39x_rx_counters, chained),
	XS("rx_zerocopy_frames", XS_RX, struct ch39x_rx_counters, zerocopy),
	XS("rx_usb_submit_errors", XS_RX, struct ch39x_rx_counters,
	   submit_errors),
	XS("link_events", XS_AD, struct ch39x_adapter, link_events),
	XS("ctrl_errors", XS_AD, struct ch39x_adapter, ctrl_errors),
	XS("intr_usb_errors", XS_AD, struct ch39x_adapter, intr_errors),
	XS("intr_polls", XS_AD, struct ch39x_adapter, intr_polls),
	XS("reconnects", XS_AD, struct ch39x_adapter, reconnects),
	XS("reconnect_last_us", XS_AD, struct ch39x_adapter, reconnect_last_us),
	XS("reconnect_refused", XS_AD, struct ch39x_adapter, reconnect_refused),
	XS("bus_events", XS_AD, struct ch39x_adapter, bus_events),
	XS("presence_polls", XS_AD, struct ch39x_adapter, presence_polls),
	XS("tx_device_gone_drops", XS_TX, struct ch39x_tx_counters, absent),
	{ "rx_framing_bytes", CH39X_XS_CALC, 0 },
	{ "tx_framing_bytes", CH39X_XS_CALC, 1 },
	{ "rx_frames_per_xfer_x1000", CH39X_XS_CALC, 2 },
	{ "tx_frames_per_xfer_x1000", CH39X_XS_CALC, 3 },
	{ "rx_usb_efficiency_permille", CH39X_XS_CALC, 4 },
	{ "tx_usb_efficiency_permille", CH39X_XS_CALC, 5 },
	{ "dev_rx_packets", CH39X_XS_CALC, 6 },
	{ "dev_rx_overflow", CH39X_XS_CALC, 7 },
	{ "dev_rx_crc_errors", CH39X_XS_CALC, 8 },
	{ "dev_tx_packets", CH39X_XS_CALC, 9 },
	{ "rx_xfers_lent", CH39X_XS_CALC, 10 },
};

static const struct ch39x_xs_def xs_sim_defs[] = {
	XS("sim_rx_filtered", XS_SIM, struct ch39x_sim_counters, rx_filtered),
	XS("sim_rx_oversize", XS_SIM, struct ch39x_sim_counters, rx_oversize),
	XS("sim_rx_link_down", XS_SIM, struct ch39x_sim_counters, rx_link_down),
	XS("sim_rx_overflow", XS_SIM, struct ch39x_sim_counters, rx_overflow),
	XS("sim_tx_bad_records", XS_SIM, struct ch39x_sim_counters,
	   tx_bad_records),
	XS("sim_tx_unterminated", XS_SIM, struct ch39x_sim_counters,
	   tx_unterminated),
	XS("sim_tx_link_down", XS_SIM, struct ch39x_sim_counters, tx_link_down),
	XS("sim_tx_wire_dropped", XS_SIM, struct ch39x_sim_counters,
	   tx_wire_dropped),
	XS("sim_tx_oversize", XS_SIM, struct ch39x_sim_counters, tx_oversize),
	XS("sim_cdc_notifications", XS_SIM, struct ch39x_sim_counters,
	   cdc_notifications),
	XS("sim_tx_tso_segments", XS_SIM, struct ch39x_sim_counters,
	   tx_tso_segments),
	XS("sim_tx_wire_frames", XS_SIM, struct ch39x_sim_counters, tx_frames),
	XS("sim_faults_injected", XS_SIM, struct ch39x_sim_counters,
	   faults_injected),
	XS("sim_device_cycles", XS_SIM, struct ch39x_sim_counters,
	   device_cycles),
};

/* CDC-NCM: the NTB parser's and builder's counters (Linux cdc_ncm's). */
static const struct ch39x_xs_def xs_ncm_defs[] = {
	XS("rx_ncm_ntbs", XS_NCM_RX, struct ch39x_ncm_rx_stats, ntbs),
	XS("rx_ncm_short_ntbs", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   short_ntb),
	XS("rx_ncm_bad_nth_signatures", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_nth_sig),
	XS("rx_ncm_bad_header_lengths", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_hdr_len),
	XS("rx_ncm_bad_block_lengths", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_block_len),
	XS("rx_ncm_bad_ndp_indexes", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_ndp_index),
	XS("rx_ncm_bad_ndp_lengths", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_ndp_len),
	XS("rx_ncm_ndps_skipped", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   ndp_sig_skipped),
	XS("rx_ncm_ndp_loops", XS_NCM_RX, struct ch39x_ncm_rx_stats, ndp_loops),
	XS("rx_ncm_ndps_unterminated", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   ndp_no_null),
	XS("rx_ncm_empty_ndps", XS_NCM_RX, struct ch39x_ncm_rx_stats, empty_ndp),
	XS("rx_ncm_bad_datagrams", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   bad_dgram),
	XS("rx_ncm_zero_length_datagrams", XS_NCM_RX,
	   struct ch39x_ncm_rx_stats, zero_len_dgram),
	XS("rx_ncm_zero_index_datagrams", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   zero_idx_dgram),
	XS("rx_ncm_sequence_gaps", XS_NCM_RX, struct ch39x_ncm_rx_stats,
	   seq_gaps),
	XS("tx_ncm_ntbs", XS_NCM_TX, struct ch39x_ncm_tx_stats, ntbs),
	XS("tx_ncm_datagrams", XS_NCM_TX, struct ch39x_ncm_tx_stats, dgrams),
	XS("tx_ncm_overhead_bytes", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   overhead),
	XS("tx_ncm_pad_bytes", XS_NCM_TX, struct ch39x_ncm_tx_stats, pad_bytes),
	XS("tx_ncm_close_full", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_full),
	XS("tx_ncm_close_max_datagrams", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_max_dgrams),
	XS("tx_ncm_close_ndp_full", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_ndp_full),
	XS("tx_ncm_close_burst_end", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_burst),
	XS("cdc_notifications", XS_AD, struct ch39x_adapter, cdc_notifications),
};

static const struct ch39x_xs_def xs_ecm_defs[] = {
	XS("rx_ecm_runts", XS_ECM_RX, struct ch39x_ecm_rx_stats, runts),
	XS("rx_ecm_oversize", XS_ECM_RX, struct ch39x_ecm_rx_stats, oversize),
	XS("rx_ecm_zero_length", XS_ECM_RX, struct ch39x_ecm_rx_stats,
	   zero_len),
	XS("rx_ecm_pad_trimmed", XS_ECM_RX, struct ch39x_ecm_rx_stats,
	   pad_trimmed),
	XS("cdc_notifications", XS_AD, struct ch39x_adapter, cdc_notifications),
};

/* RNDIS: the data messages' parser and builder, the control channel. */
#define XS_RN(n, f) XS("rndis_" n, XS_AD, struct ch39x_adapter, rndis.st.f)
static const struct ch39x_xs_def xs_rndis_defs[] = {
	XS("rx_rndis_xfers", XS_RNDIS_RX, struct ch39x_rndis_rx_stats, xfers),
	XS("rx_rndis_bad_types", XS_RNDIS_RX, struct ch39x_rndis_rx_stats,
	   bad_type),
	XS("rx_rndis_bad_lengths", XS_RNDIS_RX, struct ch39x_rndis_rx_stats,
	   bad_len),
	XS("rx_rndis_bad_data", XS_RNDIS_RX, struct ch39x_rndis_rx_stats,
	   bad_data),
	XS("rx_rndis_runts", XS_RNDIS_RX, struct ch39x_rndis_rx_stats, runts),
	XS("rx_rndis_oversize", XS_RNDIS_RX, struct ch39x_rndis_rx_stats,
	   oversize),
	XS("rx_rndis_pad_bytes", XS_RNDIS_RX, struct ch39x_rndis_rx_stats,
	   pad_bytes),
	XS("rx_rndis_ppi", XS_RNDIS_RX, struct ch39x_rndis_rx_stats, ppi),
	XS("rx_rndis_filtered", XS_RNDIS_Q, struct ch39x_rxq, rndis_filtered),
	XS("tx_rndis_xfers", XS_RNDIS_TX, struct ch39x_rndis_tx_stats, xfers),
	XS("tx_rndis_packets", XS_RNDIS_TX, struct ch39x_rndis_tx_stats, pkts),
	XS("tx_rndis_overhead_bytes", XS_RNDIS_TX, struct ch39x_rndis_tx_stats,
	   overhead),
	XS("tx_rndis_pad_bytes", XS_RNDIS_TX, struct ch39x_rndis_tx_stats,
	   pad_bytes),
	XS("tx_rndis_zlps", XS_RNDIS_TX, struct ch39x_rndis_tx_stats, zlps),
	XS("tx_rndis_close_full", XS_RNDIS_TX, struct ch39x_rndis_tx_stats,
	   close_full),
	XS("tx_rndis_close_max_packets", XS_RNDIS_TX,
	   struct ch39x_rndis_tx_stats, close_max_pkts),
	XS("tx_rndis_close_burst_end", XS_RNDIS_TX, struct ch39x_rndis_tx_stats,
	   close_burst),
	XS_RN("responses", responses),
	XS_RN("bad_responses", bad_responses),
	XS_RN("indications", indications),
	XS_RN("device_keepalives", dev_keepalives),
	XS_RN("stale_responses", stale),
	XS_RN("failed_requests", failed),
	XS_RN("timeouts", timeouts),
	XS_RN("notifications", notifications),
	XS_RN("bad_notifications", bad_notifications),
	XS_RN("keepalives", keepalives),
	XS_RN("resets", resets),
	XS_RN("empty_stalls", empty_stalls),
};

/*
 * MBIM: the NTBs' counters (NCM's table) and these: what the Ethernet
 * view dropped or answered, and the control path's (the dialer's).
 */
static const struct ch39x_xs_def xs_mbim_defs[] = {
	XS("rx_mbim_not_ip", XS_RX, struct ch39x_rx_counters, mbim_not_ip),
	XS("rx_mbim_answers", XS_RX, struct ch39x_rx_counters, mbim_answers),
	XS("tx_mbim_not_ip_drops", XS_TX, struct ch39x_tx_counters,
	   mbim_not_ip),
	XS("tx_mbim_bad_vlan_drops", XS_TX, struct ch39x_tx_counters,
	   mbim_bad_vlan),
	XS("tx_mbim_runt_drops", XS_TX, struct ch39x_tx_counters, mbim_runt),
	XS("tx_mbim_answered", XS_TX, struct ch39x_tx_counters, mbim_answered),
	XS("tx_mbim_answer_drops", XS_TX, struct ch39x_tx_counters,
	   mbim_answer_drops),
	XS("tx_mbim_ntb_held", XS_TX, struct ch39x_tx_counters, mbim_held),
	XS("tx_mbim_hold_sent", XS_TX, struct ch39x_tx_counters,
	   mbim_hold_sent),
	XS("tx_ncm_close_session", XS_NCM_TX, struct ch39x_ncm_tx_stats,
	   close_session),
	XS("mbim_opens", XS_MBIM, struct ch39x_mbim_counters, opens),
	XS("mbim_open_failures", XS_MBIM, struct ch39x_mbim_counters,
	   open_failures),
	XS("mbim_notifications", XS_MBIM, struct ch39x_mbim_counters,
	   notifications),
	XS("mbim_commands", XS_MBIM, struct ch39x_mbim_counters, commands),
	XS("mbim_commands_failed", XS_MBIM, struct ch39x_mbim_counters,
	   commands_failed),
	XS("mbim_indications", XS_MBIM, struct ch39x_mbim_counters,
	   indications),
	XS("mbim_timeouts", XS_MBIM, struct ch39x_mbim_counters, timeouts),
	XS("mbim_function_errors", XS_MBIM, struct ch39x_mbim_counters,
	   function_errors),
	XS("mbim_fragments_in", XS_MBIM, struct ch39x_mbim_counters,
	   fragments_in),
	XS("mbim_fragments_out", XS_MBIM, struct ch39x_mbim_counters,
	   fragments_out),
	XS("mbim_dials", XS_MBIM, struct ch39x_mbim_counters, dials),
	XS("mbim_dial_failures", XS_MBIM, struct ch39x_mbim_counters,
	   dial_failures),
	XS("mbim_session_drops", XS_MBIM, struct ch39x_mbim_counters,
	   session_drops),
};

const struct ch39x_xs_table ch39x_xs_ncm = {
	xs_ncm_defs, RTE_DIM(xs_ncm_defs)
};
const struct ch39x_xs_table ch39x_xs_mbim = {
	xs_mbim_defs, RTE_DIM(xs_mbim_defs)
};
const struct ch39x_xs_table ch39x_xs_ecm = {
	xs_ecm_defs, RTE_DIM(xs_ecm_defs)
};
const struct ch39x_xs_table ch39x_xs_rndis = {
	xs_rndis_defs, RTE_DIM(xs_rndis_defs)
};

/*
 * The tables this port shows, in order: common, framing (MBIM: NCM's NTB
 * counters, then its own), device model.
 */
#define XS_TABLES 4
static unsigned int
xs_tables(const struct ch39x_adapter *ad, struct ch39x_xs_table t[XS_TABLES])
{
	unsigned int k = 0;

	t[k].d = xs_defs;
	t[k++].n = RTE_DIM(xs_defs);
	if (ad->framing == CH39X_FRAMING_MBIM)
		t[k++] = ch39x_xs_ncm;
	if (ch39x_ops(ad)->xstats != NULL)
		t[k++] = *ch39x_ops(ad)->xstats;
	if (ad->is_sim) {
		t[k].d = xs_sim_defs;
		t[k++].n = RTE_DIM(xs_sim_defs);
	}
	return k;
}

static unsigned int
xs_count(const struct ch39x_adapter *ad)
{
	struct ch39x_xs_table t[XS_TABLES];
	unsigned int k = xs_tables(ad, t), n = 0, i;

	for (i = 0; i < k; i++)
		n += t[i].n;
	return n;
}

static uint64_t
ratio(uint64_t num, uint64_t den, uint64_t scale)
{
	return den ? num * scale / den : 0;
}

static uint64_t
xs_calc(const struct ch39x_adapter *ad, size_t which)
{
	const struct ch39x_rx_counters *r = &ad->rxq->c;
	const struct ch39x_tx_counters *t = &ad->txq->c;
	const struct ch39x_event *e = &ad->last_event, *b = &ad->evt_base;
	struct ch39x_rx_parsed p;
	uint64_t frames, fbytes;

	ch39x_ops(ad)->rx_parsed(ad->rxq, &p);
	frames = p.frames;
	fbytes = p.bytes;
	switch (which) {
	case 0: return r->usb_bytes - fbytes;
	case 1: return t->usb_bytes - t->rec_bytes;
	case 2: return ratio(frames, r->usb_xfers, 1000);
	case 3: return ratio(t->records, t->usb_xfers, 1000);
	case 4: return ratio(fbytes, r->usb_bytes, 1000);
	case 5: return ratio(t->rec_bytes, t->usb_bytes, 1000);
	case 6: return (uint32_t)(e->rx_packets - b->rx_packets);
	case 7: return (uint16_t)(e->rx_overflow - b->rx_overflow);
	case 8: return (uint16_t)(e->rx_crc_errors - b->rx_crc_errors);
	case 9: return (uint32_t)(e->tx_packets - b->tx_packets);
	case 11: return frames;
	case 12: return fbytes;
	default: return ad->rxq->lent;
	}
}

int
ch39x_xstats_get_names(struct rte_eth_dev *dev,
		       struct rte_eth_xstat_name *names, unsigned int size)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	unsigned int n = xs_count(ad), i, j, k, at = 0;
	struct ch39x_xs_table t[XS_TABLES];

	if (names == NULL || size < n)
		return (int)n;
	k = xs_tables(ad, t);
	for (i = 0; i < k; i++)
		for (j = 0; j < t[i].n; j++, at++)
			strlcpy(names[at].name, t[i].d[j].name,
				sizeof(names[at].name));
	return (int)n;
}

int
ch39x_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		 unsigned int size)
{
	struct ch39x_adapter *ad = dev->data->dev_private;
	struct ch39x_sim_counters sc;
	unsigned int n = xs_count(ad), i, j, k, at = 0;
	struct ch39x_xs_table t[XS_TABLES];
	const struct ch39x_xs_def *d;
	bool queues = ad->rxq != NULL && ad->txq != NULL;
	const void *base;

	if (xs == NULL || size < n)
		return (int)n;
	/* The device model lives in the primary: secondaries see a copy. */
	if (ad->is_sim && rte_eal_process_type() == RTE_PROC_PRIMARY)
		ch39x_sim_get_counters(ad->usb, &ad->sim_snap);
	sc = ad->sim_snap;
	k = xs_tables(ad, t);
	for (i = 0; i < k; i++)
	for (j = 0; j < t[i].n; j++, at++) {
		d = &t[i].d[j];
		xs[at].id = at;
		/*
		 * Before the queues are set up their counters are 0: the
		 * port's own (removal, reconnects) count from probe on.
		 */
		if (!queues && d->src != CH39X_XS_AD &&
		    d->src != CH39X_XS_SIM && d->src != CH39X_XS_MBIM) {
			xs[at].value = 0;
			continue;
		}
		switch (d->src) {
		case CH39X_XS_RX: base = &ad->rxq->c; break;
		case CH39X_XS_PARSER: base = &ad->rxq->parser.stats; break;
		case CH39X_XS_TX: base = &ad->txq->c; break;
		case CH39X_XS_AD: base = ad; break;
		case CH39X_XS_SIM: base = &sc; break;
		case CH39X_XS_NCM_RX: base = &ad->rxq->ncm.stats; break;
		case CH39X_XS_NCM_TX: base = &ad->txq->ncm->stats; break;
		case CH39X_XS_ECM_RX: base = &ad->rxq->ecm; break;
		case CH39X_XS_RNDIS_RX: base = &ad->rxq->rndis.stats; break;
		case CH39X_XS_RNDIS_TX: base = &ad->txq->rndis->stats; break;
		case CH39X_XS_RNDIS_Q: base = ad->rxq; break;
		case CH39X_XS_MBIM:
			if (ad->mbim == NULL) {
				xs[at].value = 0;
				continue;
			}
			base = &ad->mbim->c;
			break;
		default: base = NULL; break;
		}
		/* d->off is a uint64_t counter's offsetof (aligned), which
		 * the lcore owning it updates while this thread reads.
		 */
		xs[at].value = base ? __atomic_load_n((const uint64_t *)
			(const void *)((const uint8_t *)base + d->off),
			__ATOMIC_RELAXED) : xs_calc(ad, d->off);
	}
	return (int)n;
}

