/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Frames: the UDP frames of txonly and io, the TCP segments and
 * super-frames of tcp mode, copying a flat frame into an mbuf chain, and
 * the header walk that counts the payload of received frames.
 */

#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "perf.h"

/*
 * RFC 2544 benchmarking addresses: 198.18.0.1 -> 198.19.0.1 (not with
 * RTE_IPV4(), which shifts 198 into the sign bit of an int).
 */
#define PERF_IP_SRC ((198u << 24) | (18u << 16) | 1u)
#define PERF_IP_DST ((198u << 24) | (19u << 16) | 1u)

uint32_t
perf_wire_len(uint32_t l2_len)
{
	/* The sender's MAC pads runts to 60 bytes. */
	return RTE_MAX(l2_len, (uint32_t)PERF_MIN_FRAME) + PERF_L1_OVERHEAD;
}

uint32_t
perf_segs(uint32_t len, uint32_t room)
{
	return len == 0 ? 1 : (len + room - 1) / room;
}

static void
build_eth_ip(uint8_t *f, const struct rte_ether_addr *src,
	     const struct rte_ether_addr *dst, uint8_t proto, uint16_t ip_len)
{
	/* f: the start of a malloc'ed template, aligned for any type. */
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)(void *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);

	rte_ether_addr_copy(dst, &eh->dst_addr);
	rte_ether_addr_copy(src, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(ip_len);
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(PERF_IP_SRC);
	ip->dst_addr = rte_cpu_to_be_32(PERF_IP_DST);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* A UDP frame of len bytes (at least 42) with a byte pattern as payload. */
void
perf_build_udp(uint8_t *f, uint32_t len, const struct rte_ether_addr *src,
	       const struct rte_ether_addr *dst)
{
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(f + 14 + 20);
	uint32_t i;

	build_eth_ip(f, src, dst, IPPROTO_UDP, (uint16_t)(len - 14));
	udp->src_port = rte_cpu_to_be_16(PERF_UDP_SPORT);
	udp->dst_port = rte_cpu_to_be_16(PERF_UDP_DPORT);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - 14 - 20));
	udp->dgram_cksum = 0;	/* none, as IPv4 allows */
	for (i = PERF_UDP_HDRS; i < len; i++)
		f[i] = (uint8_t)i;
}

/* The constant part of the stream's Ethernet, IPv4 and TCP headers. */
void
perf_build_tcp_hdr(uint8_t *f, const struct rte_ether_addr *src,
		   const struct rte_ether_addr *dst)
{
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(f + 14 + 20);

	build_eth_ip(f, src, dst, IPPROTO_TCP, PERF_IP_TCP_HDRS);
	memset(tcp, 0, sizeof(*tcp));
	tcp->src_port = rte_cpu_to_be_16(PERF_TCP_SPORT);
	tcp->dst_port = rte_cpu_to_be_16(PERF_TCP_DPORT);
	tcp->recv_ack = rte_cpu_to_be_32(1);
	tcp->data_off = (sizeof(*tcp) / 4) << 4;
	tcp->tcp_flags = RTE_TCP_ACK_FLAG;
	tcp->rx_win = rte_cpu_to_be_16(UINT16_MAX);
}

/*
 * Per message: lengths, sequence number and IP ID. With sw_csum the
 * checksums are computed here over the flat frame; otherwise they are left
 * to the port (offload flags and rte_eth_tx_prepare).
 */
void
perf_tcp_set(uint8_t *f, uint32_t payload, uint32_t seq, uint16_t ip_id,
	     bool sw_csum)
{
	/* f: a frame's start (mbuf data or the template), 2-aligned. */
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(void *)(f + 14);
	struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(ip + 1);

	ip->total_length = rte_cpu_to_be_16((uint16_t)(PERF_IP_TCP_HDRS +
						       payload));
	ip->packet_id = rte_cpu_to_be_16(ip_id);
	tcp->sent_seq = rte_cpu_to_be_32(seq);
	ip->hdr_checksum = 0;
	tcp->cksum = 0;
	if (sw_csum) {
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		tcp->cksum = rte_ipv4_udptcp_cksum(ip, tcp);
	}
}

#define PERF_MAX_SEGS (PERF_TSO_MAX_FRAME / 256 + 2)

/* Copy a flat frame into a fresh mbuf, chained when longer than room. */
struct rte_mbuf *
perf_mbuf_from(struct rte_mempool *mp, const uint8_t *data, uint32_t len,
	       uint32_t room)
{
	struct rte_mbuf *segs[PERF_MAX_SEGS];
	uint32_t nseg = perf_segs(len, room), i, off = 0, n;

	if (nseg > PERF_MAX_SEGS ||
	    rte_pktmbuf_alloc_bulk(mp, segs, nseg) != 0)
		return NULL;
	for (i = 0; i < nseg; i++) {
		n = RTE_MIN(room, len - off);
		rte_memcpy(rte_pktmbuf_mtod(segs[i], void *), data + off, n);
		segs[i]->data_len = (uint16_t)n;
		off += n;
		if (i > 0)
			segs[i - 1]->next = segs[i];
	}
	segs[0]->nb_segs = (uint16_t)nseg;
	segs[0]->pkt_len = len;
	return segs[0];
}

/*
 * The L4 payload of a received frame: Ethernet, up to two VLAN tags, IPv4
 * or IPv6 (no extension headers), TCP or UDP. The IP length is trusted
 * over the frame length, which may include padding.
 */
void
perf_parse(const struct rte_mbuf *m, struct perf_rx_info *ri)
{
	uint8_t buf[14 + 8 + 60 + 60];
	const uint8_t *p;
	uint32_t len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
	uint32_t off = 12, l3len, hl, l4off, l4len;
	uint16_t et;
	uint8_t proto;
	int tags;

	memset(ri, 0, sizeof(*ri));
	p = rte_pktmbuf_read(m, 0, len, buf);
	if (p == NULL || len < 14)
		return;
	et = (uint16_t)(p[off] << 8 | p[off + 1]);
	for (tags = 0; tags < 2 && (et == RTE_ETHER_TYPE_VLAN ||
				    et == RTE_ETHER_TYPE_QINQ); tags++) {
		off += 4;
		if (off + 2 > len)
			return;
		et = (uint16_t)(p[off] << 8 | p[off + 1]);
	}
	off += 2;
	if (et == RTE_ETHER_TYPE_IPV4) {
		if (off + 20 > len || (p[off] >> 4) != 4)
			return;
		hl = (uint32_t)(p[off] & 0xF) * 4;
		l3len = (uint32_t)(p[off + 2] << 8 | p[off + 3]);
		proto = p[off + 9];
		/* Fragments other than the first carry no L4 header. */
		if ((p[off + 6] & 0x1F) || p[off + 7])
			return;
		if (hl < 20 || l3len < hl)
			return;
		l4off = off + hl;
		l4len = l3len - hl;
	} else if (et == RTE_ETHER_TYPE_IPV6) {
		if (off + 40 > len)
			return;
		proto = p[off + 6];
		l4off = off + 40;
		l4len = (uint32_t)(p[off + 4] << 8 | p[off + 5]);
	} else {
		return;
	}
	if (proto == IPPROTO_UDP) {
		if (l4len >= 8) {
			ri->payload = l4len - 8;
			ri->payload_off = l4off + 8;
		}
	} else if (proto == IPPROTO_TCP) {
		if (l4off + 20 > len)
			return;
		hl = (uint32_t)(p[l4off + 12] >> 4) * 4;
		if (hl < 20 || l4len < hl)
			return;
		ri->payload = l4len - hl;
		ri->payload_off = l4off + hl;
		ri->tcp = true;
		ri->dport = (uint16_t)(p[l4off + 2] << 8 | p[l4off + 3]);
		ri->seq = (uint32_t)p[l4off + 4] << 24 |
			(uint32_t)p[l4off + 5] << 16 |
			(uint32_t)p[l4off + 6] << 8 | p[l4off + 7];
	}
}

/* The latency stamp: magic, then the TSC, both little-endian. */
void
perf_lat_stamp(uint8_t *payload, uint64_t tsc)
{
	uint32_t magic = rte_cpu_to_le_32(PERF_LAT_MAGIC);

	tsc = rte_cpu_to_le_64(tsc);
	memcpy(payload, &magic, sizeof(magic));
	memcpy(payload + sizeof(magic), &tsc, sizeof(tsc));
}

/*
 * Stamp a received frame again before forwarding it (io). Only where the
 * stamp lies in the first segment: the frames are ours, and their headers
 * and stamp fit in any data room ch39x-perf allows.
 */
bool
perf_lat_put(struct rte_mbuf *m, const struct perf_rx_info *ri, uint64_t tsc)
{
	if (ri->payload < PERF_LAT_STAMP_LEN ||
	    ri->payload_off + PERF_LAT_STAMP_LEN > m->data_len)
		return false;
	perf_lat_stamp(rte_pktmbuf_mtod_offset(m, uint8_t *,
					       ri->payload_off), tsc);
	return true;
}

/* The TSC of a stamped frame; false for frames without the magic. */
bool
perf_lat_get(const struct rte_mbuf *m, const struct perf_rx_info *ri,
	     uint64_t *tsc)
{
	uint8_t buf[PERF_LAT_STAMP_LEN];
	const uint8_t *p;
	uint32_t magic;
	uint64_t t;

	if (ri->payload < PERF_LAT_STAMP_LEN)
		return false;
	p = rte_pktmbuf_read(m, ri->payload_off, sizeof(buf), buf);
	if (p == NULL)
		return false;
	memcpy(&magic, p, sizeof(magic));
	if (rte_le_to_cpu_32(magic) != PERF_LAT_MAGIC)
		return false;
	memcpy(&t, p + sizeof(magic), sizeof(t));
	*tsc = rte_le_to_cpu_64(t);
	return true;
}

/* Histogram bucket of a latency in cycles (see PERF_LAT_BUCKETS). */
uint32_t
perf_lat_bucket(uint64_t cycles)
{
	uint32_t e;

	if (cycles < 2 * PERF_LAT_SUB)
		return (uint32_t)cycles;
	e = 63 - (uint32_t)__builtin_clzll(cycles);	/* >= SUB_BITS + 1 */
	return 2 * PERF_LAT_SUB +
		(e - PERF_LAT_SUB_BITS - 1) * PERF_LAT_SUB +
		(uint32_t)((cycles >> (e - PERF_LAT_SUB_BITS)) - PERF_LAT_SUB);
}

/* The middle of a bucket's range of cycles. */
uint64_t
perf_lat_bucket_mid(uint32_t idx)
{
	uint32_t k, e;
	uint64_t lo;

	if (idx < 2 * PERF_LAT_SUB)
		return idx;
	k = idx - 2 * PERF_LAT_SUB;
	e = k / PERF_LAT_SUB + PERF_LAT_SUB_BITS + 1;
	lo = (uint64_t)(PERF_LAT_SUB + k % PERF_LAT_SUB) <<
		(e - PERF_LAT_SUB_BITS);
	return lo + ((1ull << (e - PERF_LAT_SUB_BITS)) >> 1);
}
