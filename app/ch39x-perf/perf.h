/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_PERF_H
#define CH39X_PERF_H

/*
 * ch39x-perf: a throughput and efficiency meter for DPDK ports, with the
 * USB transfer figures of net_ch39x when the port has them. One lcore
 * drives every port; see main.c for the flow of a run.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#define PERF_MAX_PORTS		RTE_MAX_ETHPORTS
#define PERF_MAX_BURST		512
#define PERF_DEF_BURST		32
#define PERF_DEF_DURATION	5.0
#define PERF_MAX_DURATION	3600.0
#define PERF_DEF_MTU		1500
#define PERF_MIN_FRAME		60	/* Ethernet minimum, FCS excluded */
#define PERF_MAX_FRAME		16128	/* static bound; ports check theirs */
#define PERF_DEF_FRAME		60
#define PERF_DEF_DATA_ROOM	RTE_MBUF_DEFAULT_DATAROOM
#define PERF_MAX_DATA_ROOM	(UINT16_MAX - RTE_PKTMBUF_HEADROOM)
/* Wire overhead per frame: preamble+SFD 8, FCS 4, inter-frame gap 12. */
#define PERF_L1_OVERHEAD	24
/* Headers of the generated frames. */
#define PERF_UDP_HDRS		(14 + 20 + 8)
#define PERF_TCP_HDRS		(14 + 20 + 20)
#define PERF_IP_TCP_HDRS	(20 + 20)
/* Largest TSO super-frame: a 65535-byte IPv4 packet and its Ethernet header. */
#define PERF_TSO_MAX_FRAME	(65535 + 14)
/*
 * Default super-frame limit: one 16 KiB CH398 bulk OUT transfer less its
 * 8-byte record header, so that the chip (not the PMD) segments it. The
 * chip's MSS field has 11 bits: above that MSS the PMD segments in software
 * whatever the size, and the default is the largest super-frame instead.
 */
#define PERF_DEF_TSO_SIZE	16376
#define PERF_HW_TSO_MSS_MAX	2047
#define PERF_DEF_TX_FIRST	4
#define PERF_DEF_TCP_WINDOW	(512u * 1024)
#define PERF_TCP_SPORT		40000
#define PERF_TCP_DPORT		5201
#define PERF_UDP_SPORT		1024
#define PERF_UDP_DPORT		9
/*
 * --latency: a stamp at the start of the L4 payload, a magic word then
 * the TSC when the frame was queued for TX (see run.c). The histogram is
 * log-linear in TSC cycles: exact below 2 x PERF_LAT_SUB, then
 * PERF_LAT_SUB buckets per power of two (error under 1/256 = 0.4 %), so
 * its memory is fixed (58 KiB) whatever the run's length.
 */
#define PERF_LAT_MAGIC		0x4c617443u	/* "CtaL" in memory */
#define PERF_LAT_STAMP_LEN	12
#define PERF_LAT_SUB_BITS	7
#define PERF_LAT_SUB		(1u << PERF_LAT_SUB_BITS)
#define PERF_LAT_BUCKETS	(2 * PERF_LAT_SUB + \
				 (64 - PERF_LAT_SUB_BITS - 1) * PERF_LAT_SUB)

enum perf_mode {
	PERF_TXONLY,
	PERF_RXONLY,
	PERF_IO,
	PERF_TCP,
};

/* What the command line asked for; checked against the ports later. */
struct perf_opts {
	enum perf_mode mode;
	uint32_t frame_size;		/* 0: not given */
	uint32_t mtu;			/* 0: not given */
	uint16_t burst;
	double duration;		/* 0: not given */
	uint64_t packets;		/* 0: not given */
	uint32_t tso_mss;		/* 0: not given */
	bool tso;			/* --tso or --tso-mss */
	uint32_t tso_size;		/* 0: not given */
	uint32_t data_room;		/* 0: not given */
	int tx_first;			/* -1: not given */
	uint32_t tcp_window;		/* 0: not given */
	uint16_t nb_ports;		/* 0: --ports not given */
	uint16_t ports[PERF_MAX_PORTS];
	bool json;
	bool latency;			/* --latency */
};

/* What the run does, once the options met the ports. */
struct perf_cfg {
	enum perf_mode mode;
	uint16_t mtu;
	uint32_t frame_size;		/* generated frames; tcp: full segment */
	uint32_t mss;			/* tcp: payload per wire segment */
	bool tso_asked;
	bool tso;			/* super-frames handed to the port */
	bool tx_csum_offload;		/* tcp: IPv4 and TCP checksum offload */
	uint32_t msg_payload;		/* tcp: payload per mbuf handed over */
	uint32_t msg_len;		/* tcp: length of that mbuf */
	uint32_t data_room;
	bool rx_scatter;
	bool tx_multi_seg;
	uint16_t burst;
	double duration;
	uint64_t packets;		/* 0: unbounded by count */
	uint16_t tx_first;
	uint32_t tcp_window;		/* bytes in flight, at most */
	bool json;
	bool latency;			/* stamp frames, histogram at RX */
};

/* What one mbuf puts on the wire. */
struct perf_acct {
	uint32_t frames;		/* > 1 for a TSO super-frame */
	uint32_t l2;
	uint32_t wire;
	uint32_t payload;
};

/* Counters of one port over the measurement window. */
struct perf_ctr {
	uint64_t rx_pkts;		/* frames received */
	uint64_t rx_bytes;		/* their L2 bytes, FCS excluded */
	uint64_t rx_wire;		/* their L1 bytes */
	uint64_t rx_payload;		/* their TCP/UDP payload bytes */
	uint64_t rx_cycles;		/* TSC spent inside rx_burst */
	uint64_t rx_busy_cycles;	/* ... in calls that returned packets */
	uint64_t rx_calls;
	uint64_t tx_pkts;		/* mbufs the port accepted */
	uint64_t tx_frames;		/* frames they make on the wire */
	uint64_t tx_bytes;
	uint64_t tx_wire;
	uint64_t tx_payload;
	uint64_t tx_cycles;		/* TSC spent inside tx_burst */
	uint64_t tx_busy_cycles;	/* ... in calls that took packets */
	uint64_t tx_calls;
};

/* ch39x extended statistics read by id; absent ones stay unused. */
enum perf_xs {
	XS_RX_USB_XFERS,
	XS_RX_USB_BYTES,
	XS_RX_FRAMES,
	XS_TX_USB_XFERS,
	XS_TX_USB_BYTES,
	XS_TX_GOOD_PACKETS,
	XS_TX_TSO_HW,
	XS_TX_TSO_SW,
	XS_TX_TSO_SW_SEGS,
	XS_TX_RING_FULL,
	XS_SIM_DEVICE_CYCLES,		/* the simulated device's own time */
	XS_COUNT
};

/* A snapshot of the port's own counters. */
struct perf_snap {
	struct rte_eth_stats st;
	uint64_t xs[XS_COUNT];
};

struct perf_port {
	uint16_t id;
	char name[RTE_ETH_NAME_MAX_LEN];
	char driver[64];
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	bool started;
	bool has_usb;			/* the ch39x USB xstats exist */
	bool xs_found[XS_COUNT];
	uint64_t xs_id[XS_COUNT];
	bool tx_role;			/* the mode transmits on it */
	bool rx_role;			/* the mode receives on it */
	uint16_t peer;			/* index of the other port (io, tcp) */
	uint8_t *tmpl;			/* frame template (txonly, io, tcp) */
	uint32_t tmpl_len;
	/* Mbufs waiting for room in the TX queue, and what each carries. */
	struct rte_mbuf *pend[4 * PERF_MAX_BURST];
	struct perf_acct pend_acct[4 * PERF_MAX_BURST];
	uint16_t nb_pend;
	uint16_t pend_cap;
	struct perf_ctr c;
	struct perf_snap s0, s1, s2;	/* start, window end, after drain */
};

/* Latency of stamped frames received in the window, in TSC cycles. */
struct perf_lat {
	uint64_t n;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t hist[PERF_LAT_BUCKETS];
};

/* The TCP stream's state on both ends. */
struct perf_tcp {
	uint32_t seq;			/* sender: next sequence number */
	uint16_t ip_id;
	uint64_t msgs;			/* super-frames or segments built */
	uint32_t segs_per_msg;
	uint64_t msg_l2, msg_wire;	/* per message, over its segments */
	uint32_t rx_next;		/* receiver: expected sequence */
	bool rx_synced;
	uint64_t rx_segs;		/* segments of the stream received */
	uint64_t rx_late_segs;		/* received after the window */
	uint64_t rx_gaps;		/* sequence jumps forward */
	uint64_t rx_gap_bytes;
	uint64_t rx_old;		/* segments before the expected seq */
	uint64_t tx_segs;		/* wire segments accepted by the port */
};

struct perf_run {
	struct perf_cfg cfg;
	uint16_t nb_ports;
	struct perf_port *ports;
	struct rte_mempool *pool;
	uint64_t tsc_hz;
	uint64_t t_start;		/* TSC */
	uint64_t t_end;
	uint64_t ns_start;		/* CLOCK_MONOTONIC */
	double elapsed;			/* seconds in the window, wall time */
	double tsc_measured_hz;		/* TSC ticks per wall second */
	bool interrupted;
	bool failed;
	struct perf_tcp tcp;
	uint8_t *scratch;		/* tcp: one flat message */
	uint64_t tx_unsent;		/* mbufs freed unsent at the end */
	uint64_t rx_drained;		/* frames freed after the window */
	struct perf_lat *lat;		/* --latency only */
};

/* opts.c */
int perf_opts_parse(int argc, char **argv, struct perf_opts *o);
void perf_usage(FILE *f, const char *prog);
const char *perf_mode_name(enum perf_mode m);

/* pkt.c */
void perf_build_udp(uint8_t *f, uint32_t len, const struct rte_ether_addr *src,
		    const struct rte_ether_addr *dst);
void perf_build_tcp_hdr(uint8_t *f, const struct rte_ether_addr *src,
			const struct rte_ether_addr *dst);
void perf_tcp_set(uint8_t *f, uint32_t payload, uint32_t seq, uint16_t ip_id,
		  bool sw_csum);
struct rte_mbuf *perf_mbuf_from(struct rte_mempool *mp, const uint8_t *data,
				uint32_t len, uint32_t room);

/* Headers of a received frame, as far as the payload count needs. */
struct perf_rx_info {
	uint32_t payload;		/* L4 payload bytes, 0 if not TCP/UDP */
	uint32_t payload_off;		/* where they start in the frame */
	bool tcp;
	uint16_t dport;
	uint32_t seq;
};
void perf_parse(const struct rte_mbuf *m, struct perf_rx_info *ri);
uint32_t perf_wire_len(uint32_t l2_len);
uint32_t perf_segs(uint32_t len, uint32_t room);
void perf_lat_stamp(uint8_t *payload, uint64_t tsc);
bool perf_lat_put(struct rte_mbuf *m, const struct perf_rx_info *ri,
		  uint64_t tsc);
bool perf_lat_get(const struct rte_mbuf *m, const struct perf_rx_info *ri,
		  uint64_t *tsc);
uint32_t perf_lat_bucket(uint64_t cycles);
uint64_t perf_lat_bucket_mid(uint32_t idx);

/* ports.c */
int perf_ports_setup(struct perf_run *r, const struct perf_opts *o);
void perf_ports_close(struct perf_run *r);
void perf_snapshot(struct perf_run *r, int which);

/* run.c */
void perf_stop(void);
int perf_run(struct perf_run *r);

/* report.c */
void perf_report(const struct perf_run *r);

#endif /* CH39X_PERF_H */
