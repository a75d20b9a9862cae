/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The net_ch39x PMD's MBIM ports in-process (issue 43): a simulated MBIM
 * modem (sim=mbim) whose cable is paired with a simulated NCM port, the
 * operator's far host at 198.51.100.1 (protocol reference, section 24).
 * The PMD dials the modem itself; the tests check the session's IP
 * configuration through the private API, the Ethernet view (ARP and ND
 * answered by the PMD, a fixed peer, datagrams of every size both ways,
 * VLAN n for session n, non-IP frames dropped and counted), indications
 * as link changes, manual connect and disconnect, refusals, fragments,
 * close during a dial and a replug. `test_pmd_mbim NAME...` runs only
 * the named cases, `--list` names them.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "rte_pmd_ch39x.h"
#include "pmd_test.h"

#define WAIT_MS 10000
#define NB_MBUFS 4096

static struct rte_mempool *mp;
static int lsc[RTE_MAX_ETHPORTS];

static const uint8_t peer_mac[6] = { 0x02, 0x4d, 0x42, 0x49, 0x4d, 0x00 };
static const uint8_t ue4[4] = { 100, 64, 39, 2 };
static const uint8_t far4[4] = { 198, 51, 100, 1 };

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* Probe a port of the case; its id, or RTE_MAX_ETHPORTS. */
static uint16_t
probe(const char *name, const char *args)
{
	if (rte_vdev_init(name, args) != 0)
		return RTE_MAX_ETHPORTS;
	return port_of(name);
}

/* The non-zero extended statistics of a port, to explain a failure. */
static void
dump_xstats(uint16_t port)
{
	struct rte_eth_xstat_name names[200];
	struct rte_eth_xstat vals[200];
	int n, i;

	n = rte_eth_xstats_get_names(port, names, RTE_DIM(names));
	if (n <= 0 || n > (int)RTE_DIM(names) ||
	    rte_eth_xstats_get(port, vals, (unsigned int)n) != n)
		return;
	printf("  port %u xstats:", port);
	for (i = 0; i < n; i++)
		if (vals[i].value != 0)
			printf(" %s=%" PRIu64, names[vals[i].id].name,
			       vals[i].value);
	printf("\n");
}

static void
remove_port(const char *name)
{
	uint16_t p = port_of(name);

	if (p != RTE_MAX_ETHPORTS) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_vdev_uninit(name);
}

static int
port_up(uint16_t port, uint64_t rx_offloads)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	conf.rxmode.offloads = rx_offloads;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 256, 0, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 256, 0, NULL);
	if (rc == 0)
		rc = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC,
						   event_cb, lsc);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

static bool
wait_link(uint16_t port, int up, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	struct rte_eth_link l;

	do {
		if (rte_eth_link_get_nowait(port, &l) == 0 &&
		    l.link_status == up)
			return true;
		usleep(1000);
	} while (now_ms() < end);
	return false;
}

static struct rte_pmd_ch39x_mbim_info
info_of(uint16_t port, uint32_t session)
{
	struct rte_pmd_ch39x_mbim_info in;

	memset(&in, 0, sizeof(in));
	CHECK(rte_pmd_ch39x_mbim_info_get(port, session, &in) == 0,
	      "info of session %u", session);
	return in;
}

/* A frame of len bytes: Ethernet (tagged with vid when not 0), then ip. */
static struct rte_mbuf *
eth_frame(const uint8_t *dst, const uint8_t *src, uint16_t vid,
	  uint16_t type, const uint8_t *l3, uint32_t l3len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint32_t hl = vid ? 18 : 14;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(hl + l3len));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	if (vid) {
		p[12] = 0x81;
		p[13] = 0x00;
		p[14] = (uint8_t)(vid >> 8);
		p[15] = (uint8_t)vid;
	}
	p[hl - 2] = (uint8_t)(type >> 8);
	p[hl - 1] = (uint8_t)type;
	memcpy(p + hl, l3, l3len);
	return m;
}

/* An IPv4/UDP datagram of len bytes (at least 28) into b. */
static void
udp4(uint8_t *b, uint32_t len, const uint8_t *src, const uint8_t *dst,
     uint8_t seed)
{
	struct rte_ipv4_hdr ip;
	uint32_t i;

	memset(b, 0, 28);
	memset(&ip, 0, sizeof(ip));
	ip.version_ihl = 0x45;
	ip.total_length = rte_cpu_to_be_16((uint16_t)len);
	ip.time_to_live = 64;
	ip.next_proto_id = 17;
	memcpy(&ip.src_addr, src, 4);
	memcpy(&ip.dst_addr, dst, 4);
	ip.hdr_checksum = rte_ipv4_cksum(&ip);
	memcpy(b, &ip, sizeof(ip));
	b[20] = 0x30;
	b[21] = 0x39;	/* source port 12345 */
	b[23] = 9;	/* discard */
	b[24] = (uint8_t)((len - 20) >> 8);
	b[25] = (uint8_t)(len - 20);
	for (i = 28; i < len; i++)
		b[i] = (uint8_t)(seed + i * 13);
}

static bool
send1(uint16_t port, struct rte_mbuf *m)
{
	if (m == NULL)
		return false;
	if (rte_eth_tx_burst(port, 0, &m, 1) == 1)
		return true;
	rte_pktmbuf_free(m);
	return false;
}

/*
 * The next frame on port whose EtherType (after any tag) is type and,
 * for IPv4, whose destination is dst4 (NULL: any); others are freed.
 */
static struct rte_mbuf *
recv_match(uint16_t port, uint16_t type, const uint8_t *dst4, unsigned int ms)
{
	uint64_t end = now_ms() + ms;
	struct rte_mbuf *pk[32];
	struct rte_mbuf *got = NULL;
	uint16_t n, i, t;
	uint32_t off;
	uint8_t *d;

	while (got == NULL && now_ms() < end) {
		n = rte_eth_rx_burst(port, 0, pk, 32);
		for (i = 0; i < n; i++) {
			d = rte_pktmbuf_mtod(pk[i], uint8_t *);
			t = (uint16_t)(d[12] << 8 | d[13]);
			off = 14;
			if (t == 0x8100) {
				t = (uint16_t)(d[16] << 8 | d[17]);
				off = 18;
			}
			if (got == NULL && t == type &&
			    (dst4 == NULL || (pk[i]->data_len >= off + 20 &&
					      memcmp(d + off + 16, dst4, 4) == 0)))
				got = pk[i];
			else
				rte_pktmbuf_free(pk[i]);
		}
	}
	return got;
}

/* The case's two ports: the modem and the far host on its cable. */
struct pair {
	uint16_t mb;
	uint16_t far;
	struct rte_ether_addr mb_mac;
	struct rte_ether_addr far_mac;
	uint8_t model_mac[6];	/* the modem's side on the cable */
};

static bool
pair_up(struct pair *p, const char *tag, const char *mbim_args,
	uint64_t rx_offloads)
{
	char a[512], name[64];

	snprintf(name, sizeof(name), "net_ch39x_%s_m", tag);
	snprintf(a, sizeof(a), "sim=mbim,%s%swire=pair:%s%s%s",
		 strstr(mbim_args, "usb_speed=") ? "" : "usb_speed=high,",
		 strstr(mbim_args, "sim_rate=") ? "" : "sim_rate=unlimited,",
		 tag, mbim_args[0] ? "," : "", mbim_args);
	p->mb = probe(name, a);
	snprintf(name, sizeof(name), "net_ch39x_%s_f", tag);
	snprintf(a, sizeof(a), "sim=ncm,sim_rate=unlimited,wire=pair:%s", tag);
	p->far = probe(name, a);
	if (p->mb == RTE_MAX_ETHPORTS || p->far == RTE_MAX_ETHPORTS)
		return false;
	rte_eth_macaddr_get(p->mb, &p->mb_mac);
	rte_eth_macaddr_get(p->far, &p->far_mac);
	return port_up(p->mb, rx_offloads) == 0 && port_up(p->far, 0) == 0 &&
		rte_eth_promiscuous_enable(p->far) == 0;
}

static void
pair_down(const char *tag)
{
	char name[64];

	snprintf(name, sizeof(name), "net_ch39x_%s_m", tag);
	remove_port(name);
	snprintf(name, sizeof(name), "net_ch39x_%s_f", tag);
	remove_port(name);
}

/*
 * The far host announces 198.51.100.1 (so that the modem learns its MAC)
 * and an uplink datagram tells the modem's MAC on the cable.
 */
static bool
learn_cable(struct pair *p)
{
	uint8_t arp[28] = { 0, 1, 8, 0, 6, 4, 0, 2 };
	uint8_t b[64];
	struct rte_mbuf *m;

	memcpy(arp + 8, p->far_mac.addr_bytes, 6);
	memcpy(arp + 14, far4, 4);
	memcpy(arp + 18, "\xff\xff\xff\xff\xff\xff", 6);
	memcpy(arp + 24, far4, 4);
	send1(p->far, eth_frame((const uint8_t *)"\xff\xff\xff\xff\xff\xff",
				p->far_mac.addr_bytes, 0, 0x0806, arp,
				sizeof(arp)));
	/* The model reads its cable as the host polls it (section 24). */
	m = recv_match(p->mb, 0x0806, NULL, 100);
	rte_pktmbuf_free(m);
	udp4(b, 64, ue4, far4, 1);
	if (!send1(p->mb, eth_frame(peer_mac, p->mb_mac.addr_bytes, 0, 0x0800,
				    b, 64)))
		return false;
	m = recv_match(p->far, 0x0800, far4, WAIT_MS);
	if (m == NULL)
		return false;
	memcpy(p->model_mac, rte_pktmbuf_mtod(m, uint8_t *) + 6, 6);
	rte_pktmbuf_free(m);
	return true;
}

/* ---- cases ---- */

/*
 * Probe dials (connect=auto): link up, the IP configuration of §24; ARP
 * and ND answered with the peer's MAC; datagrams of every size both ways.
 */
/*
 * A UDP datagram of LEN bytes from the far host down to the modem's user:
 * 1 when it arrives exact (the MAC pair, every byte, an IPv4 packet type)
 * and, with COPY_ONLY, copied rather than attached to its transfer.
 */
static int
down_exact(struct pair *p, uint32_t len, uint8_t tag, int copy_only)
{
	uint8_t b[1600];
	struct rte_mbuf *m;
	const uint8_t *d;
	int ok;

	udp4(b, len, far4, ue4, tag);
	send1(p->far, eth_frame(p->model_mac, p->far_mac.addr_bytes, 0,
				0x0800, b, len));
	m = recv_match(p->mb, 0x0800, ue4, WAIT_MS);
	if (m == NULL)
		return 0;
	d = rte_pktmbuf_mtod(m, const uint8_t *);
	ok = m->pkt_len == len + 14 &&
		memcmp(d, p->mb_mac.addr_bytes, 6) == 0 &&
		memcmp(d + 6, peer_mac, 6) == 0 &&
		memcmp(d + 14, b, len) == 0 &&
		(m->packet_type & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV4 &&
		!(copy_only && RTE_MBUF_HAS_EXTBUF(m));
	rte_pktmbuf_free(m);
	return ok;
}

static void
tc_dial_data(void)
{
	struct rte_pmd_ch39x_mbim_info in;
	uint8_t b[1600], arp[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };
	struct pair p;
	struct rte_mbuf *m;
	uint32_t len, ok = 0, sizes = 0;
	uint8_t *d;
	char fw[64];

	CHECK(pair_up(&p, "dial", "apn=internet,sim_apn=internet", 0),
	      "ports up");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "link up once connected");
	in = info_of(p.mb, 0);
	CHECK(in.phase == RTE_PMD_CH39X_MBIM_CONNECTED, "phase %u", in.phase);
	CHECK(strcmp(in.apn, "internet") == 0, "apn %s", in.apn);
	CHECK(in.ipv4.valid && memcmp(in.ipv4.addr, ue4, 4) == 0 &&
	      in.ipv4.prefix_len == 30 && in.ipv4.has_gateway &&
	      memcmp(in.ipv4.gateway, "\x64\x40\x27\x01", 4) == 0 &&
	      in.ipv4.nb_dns == 1 && memcmp(in.ipv4.dns[0], far4, 4) == 0 &&
	      in.ipv4.mtu == 1500, "IPv4 configuration");
	CHECK(in.ipv6.valid && in.ipv6.prefix_len == 64 &&
	      in.ipv6.addr[0] == 0x20 && in.ipv6.addr[3] == 0xb8 &&
	      in.ipv6.addr[5] == 0x39 && in.ipv6.addr[15] == 2 &&
	      in.ipv6.gateway[0] == 0xfe, "IPv6 configuration");
	CHECK(in.register_state == 3 && in.packet_state == 2 &&
	      strcmp(in.provider, "ch39x sim") == 0 && in.max_sessions == 4 &&
	      in.dials == 1 && in.down_bps == 150000000,
	      "registered home, attached, 4 sessions, 1 dial");
	CHECK(rte_eth_dev_fw_version_get(p.mb, fw, sizeof(fw)) == 0 &&
	      strncmp(fw, "MBIM 1.00, ch39x-sim", 20) == 0, "fw %s", fw);
	CHECK(rte_pmd_ch39x_mbim_info_get(p.mb, 1, &in) == -EINVAL,
	      "session 1 not driven");
	CHECK(rte_pmd_ch39x_mbim_info_get(p.far, 0, &in) == -ENOTSUP,
	      "an NCM port is not MBIM");

	/* ARP for the gateway: answered by the PMD, the peer's MAC. */
	memcpy(arp + 8, p.mb_mac.addr_bytes, 6);
	memcpy(arp + 14, ue4, 4);
	memcpy(arp + 24, "\x64\x40\x27\x01", 4);
	CHECK(send1(p.mb, eth_frame((const uint8_t *)"\xff\xff\xff\xff\xff\xff",
				    p.mb_mac.addr_bytes, 0, 0x0806, arp,
				    sizeof(arp))), "ARP request sent");
	m = recv_match(p.mb, 0x0806, NULL, WAIT_MS);
	CHECK(m != NULL, "ARP reply");
	if (m != NULL) {
		d = rte_pktmbuf_mtod(m, uint8_t *);
		CHECK(memcmp(d, p.mb_mac.addr_bytes, 6) == 0 &&
		      memcmp(d + 6, peer_mac, 6) == 0 && d[21] == 2 &&
		      memcmp(d + 22, peer_mac, 6) == 0 &&
		      memcmp(d + 28, "\x64\x40\x27\x01", 4) == 0 &&
		      m->packet_type == RTE_PTYPE_L2_ETHER_ARP,
		      "ARP reply from the peer: gateway is-at peer");
		rte_pktmbuf_free(m);
	}
	CHECK(xstat(p.mb, "tx_mbim_answered") == 1 &&
	      xstat(p.mb, "rx_mbim_answers") == 1, "answer counted");

	/* A neighbour solicitation for the gateway fe80::1: an NA. */
	{
		static const uint8_t sn[6] = { 0x33, 0x33, 0xff, 0, 0, 1 };
		uint8_t ns[72];
		struct rte_ipv6_hdr ip6;
		uint16_t ck;

		memset(ns, 0, sizeof(ns));
		memset(&ip6, 0, sizeof(ip6));
		ip6.vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6.payload_len = rte_cpu_to_be_16(32);
		ip6.proto = 58;
		ip6.hop_limits = 255;
		memcpy(ns, &ip6, 8);
		ns[8] = 0xfe;
		ns[9] = 0x80;
		ns[23] = 0x42;			/* fe80::42 */
		memcpy(ns + 24, "\xff\x02\0\0\0\0\0\0\0\0\0\x01\xff\0\0\x01",
		       16);
		ns[40] = 135;			/* NS */
		ns[48] = 0xfe;
		ns[49] = 0x80;
		ns[63] = 1;			/* target fe80::1 */
		ns[64] = 1;			/* source link-layer address */
		ns[65] = 1;
		memcpy(ns + 66, p.mb_mac.addr_bytes, 6);
		/* As rte_net stores it: the sum's bytes in memory order. */
		memcpy(&ip6, ns, sizeof(ip6));
		ck = rte_ipv6_udptcp_cksum(&ip6, ns + 40);
		memcpy(ns + 42, &ck, 2);
		CHECK(send1(p.mb, eth_frame(sn, p.mb_mac.addr_bytes, 0, 0x86dd,
					    ns, sizeof(ns))), "NS sent");
		m = recv_match(p.mb, 0x86dd, NULL, WAIT_MS);
		/* The session's RA may come first: skip it. */
		while (m != NULL && rte_pktmbuf_mtod(m, uint8_t *)[54] != 136) {
			rte_pktmbuf_free(m);
			m = recv_match(p.mb, 0x86dd, NULL, WAIT_MS);
		}
		CHECK(m != NULL, "neighbour advertisement");
		if (m != NULL) {
			d = rte_pktmbuf_mtod(m, uint8_t *);
			CHECK(memcmp(d, p.mb_mac.addr_bytes, 6) == 0 &&
			      memcmp(d + 6, peer_mac, 6) == 0 &&
			      memcmp(d + 62, ns + 48, 16) == 0 &&
			      memcmp(d + 14 + 40 + 26, peer_mac, 6) == 0,
			      "fe80::1 is at the peer");
			rte_pktmbuf_free(m);
		}
		CHECK(xstat(p.mb, "tx_mbim_answered") == 2, "NS answered");
	}

	/* Not IP: dropped and counted, nothing reaches the modem. */
	memset(b, 0x5a, 64);
	CHECK(send1(p.mb, eth_frame(peer_mac, p.mb_mac.addr_bytes, 0, 0x88b5,
				    b, 64)), "non-IP frame taken");
	CHECK(xstat(p.mb, "tx_mbim_not_ip_drops") == 1, "non-IP dropped");

	CHECK(learn_cable(&p), "uplink reaches the far host");
	/* Every datagram size 28..1500 (step 17) up and down, exact. */
	for (len = 28; len <= 1500 && ok == 2 * sizes;
	     len = len + 17 <= 1500 ? len + 17 : len < 1500 ? 1500 : 1501) {
		sizes++;
		udp4(b, len, ue4, far4, (uint8_t)len);
		send1(p.mb, eth_frame(peer_mac, p.mb_mac.addr_bytes, 0, 0x0800,
				      b, len));
		m = recv_match(p.far, 0x0800, far4, WAIT_MS);
		if (m != NULL) {
			d = rte_pktmbuf_mtod(m, uint8_t *);
			/* On the cable, padded to 60 bytes. */
			ok += m->pkt_len == RTE_MAX(len + 14, 60u) &&
				memcmp(d, p.far_mac.addr_bytes, 6) == 0 &&
				memcmp(d + 14, b, len) == 0;
			rte_pktmbuf_free(m);
		}
		ok += down_exact(&p, len, (uint8_t)(len + 1), 0);
	}
	CHECK(ok == 2 * sizes, "%u of %u datagrams exact both ways (last "
	      "size %u)", ok, 2 * sizes, len);
	if (ok != 2 * sizes) {
		dump_xstats(p.mb);
		dump_xstats(p.far);
	}
	CHECK(xstat(p.mb, "rx_ncm_bad_datagrams") == 0 &&
	      xstat(p.mb, "rx_mbim_not_ip") == 0 &&
	      xstat(p.mb, "sim_tx_bad_records") == 0, "no bad NTB");
	pair_down("dial");
}

/*
 * rx_copybreak on an MBIM port: its frames get an Ethernet header in the
 * headroom, which for a frame attached to its transfer would be the bytes
 * before the datagram in the NTB (the NDP, or the datagram before): MBIM
 * frames are copied, every size exact, the NTBs read clean.
 */
static void
tc_copybreak(void)
{
	struct pair p;
	uint32_t len, ok = 0, sizes = 0;

	CHECK(pair_up(&p, "zc", "rx_copybreak=60", 0), "ports up");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "link up once connected");
	CHECK(learn_cable(&p), "uplink reaches the far host");
	for (len = 60; len <= 1500; len += 90) {
		sizes++;
		ok += down_exact(&p, len, (uint8_t)(len + 3), 1);
	}
	CHECK(ok == sizes, "%u of %u datagrams exact and copied", ok, sizes);
	CHECK(xstat(p.mb, "rx_zerocopy_frames") == 0 &&
	      xstat(p.mb, "rx_ncm_bad_datagrams") == 0 &&
	      xstat(p.mb, "rx_mbim_not_ip") == 0, "none attached, no bad NTB");
	pair_down("zc");
}

/*
 * n single-frame bursts of 64-byte datagrams up to the far host, then
 * nothing but RX polls of both ports: how many reached it, in order and
 * exact.
 */
static uint32_t
hold_run(struct pair *p, uint32_t n)
{
	uint64_t end = now_ms() + WAIT_MS;
	struct rte_mbuf *pk[32];
	uint32_t i, got = 0;
	uint8_t b[64], w[64];
	const uint8_t *d;
	uint16_t k, j;

	for (i = 0; i < n && now_ms() < end; ) {
		udp4(b, sizeof(b), ue4, far4, (uint8_t)i);
		if (send1(p->mb, eth_frame(peer_mac, p->mb_mac.addr_bytes, 0,
					   0x0800, b, sizeof(b))))
			i++;
		else	/* every transfer in flight: the RX poll reaps */
			rte_pktmbuf_free_bulk(pk, rte_eth_rx_burst(p->mb, 0,
								   pk, 32));
	}
	while (got < n && now_ms() < end) {
		k = rte_eth_rx_burst(p->mb, 0, pk, 32);
		rte_pktmbuf_free_bulk(pk, k);
		k = rte_eth_rx_burst(p->far, 0, pk, 32);
		for (j = 0; j < k; j++) {
			d = rte_pktmbuf_mtod(pk[j], const uint8_t *);
			if (pk[j]->data_len >= 14 + sizeof(w) &&
			    d[12] == 0x08 && d[13] == 0x00 &&
			    memcmp(d + 14 + 16, far4, 4) == 0) {
				udp4(w, sizeof(w), ue4, far4, (uint8_t)got);
				if (memcmp(d + 14, w, sizeof(w)) == 0)
					got++;
				else
					end = 0;	/* lost or reordered */
			}
			rte_pktmbuf_free(pk[j]);
		}
		if (k == 0)
			usleep(100);
	}
	return got;
}

/*
 * tx_hold_us: on a full-speed bus kept at its rate (sim_rate=line) a
 * transfer is still with the modem
 * when the next single-frame burst comes, so the bursts share NTBs; the
 * last held one leaves through the RX poll alone; nothing is lost or
 * reordered. tx_hold_us=0: an NTB per burst.
 */
static void
tc_tx_hold(void)
{
	static const char *const args[2] = {
		"usb_speed=full,sim_rate=line,tx_hold_us=10000",
		"usb_speed=full,sim_rate=line,tx_hold_us=0",
	};
	const uint32_t n = 200;
	uint64_t ntbs, held;
	struct pair p;
	uint32_t got;
	int k;

	for (k = 0; k < 2; k++) {
		CHECK(pair_up(&p, "hold", args[k], 0), "ports up (%s)",
		      args[k]);
		CHECK(wait_link(p.mb, 1, WAIT_MS), "connected");
		CHECK(learn_cable(&p), "uplink reaches the far host");
		ntbs = xstat(p.mb, "tx_ncm_ntbs");
		got = hold_run(&p, n);
		ntbs = xstat(p.mb, "tx_ncm_ntbs") - ntbs;
		held = xstat(p.mb, "tx_mbim_ntb_held");
		CHECK(got == n, "%s: %u of %u datagrams at the far host, in "
		      "order, exact", args[k], got, n);
		if (k == 0)
			CHECK(held > 0 && ntbs < n / 2 &&
			      xstat(p.mb, "tx_mbim_hold_sent") >= 1,
			      "bursts held open: %" PRIu64 " times, %" PRIu64
			      " NTBs for %u datagrams, the last one sent by "
			      "the RX poll", held, ntbs, n);
		else
			CHECK(held == 0 && ntbs == n, "no hold: %" PRIu64
			      " NTBs for %u datagrams, held %" PRIu64, ntbs,
			      n, held);
		printf("  %s: %" PRIu64 " NTBs for %u single-frame bursts, "
		       "held %" PRIu64 " times, %" PRIu64 " sent by the RX "
		       "poll\n", args[k], ntbs, n, held,
		       xstat(p.mb, "tx_mbim_hold_sent"));
		pair_down("hold");
	}
}

/* Indications: the network lost and found, a session ended, the signal. */
static void
tc_indications(void)
{
	struct rte_pmd_ch39x_mbim_info in;
	struct pair p;
	int l0;

	CHECK(pair_up(&p, "ind", "", 0), "ports up");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "connected (any APN)");
	l0 = lsc[p.mb];
	CHECK(rte_pmd_ch39x_sim_mbim_event(p.mb,
		RTE_PMD_CH39X_SIM_MBIM_LOSE_NETWORK, 0) == 0, "coverage off");
	CHECK(wait_link(p.mb, 0, WAIT_MS), "link down with the network");
	in = info_of(p.mb, 0);
	CHECK(in.drops == 1 && in.phase != RTE_PMD_CH39X_MBIM_CONNECTED,
	      "a drop: phase %u, %s", in.phase, in.error);
	CHECK(rte_pmd_ch39x_sim_mbim_event(p.mb,
		RTE_PMD_CH39X_SIM_MBIM_FIND_NETWORK, 0) == 0, "coverage on");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "link up again after redial");
	in = info_of(p.mb, 0);
	CHECK(in.dials == 2 && in.phase == RTE_PMD_CH39X_MBIM_CONNECTED,
	      "dialled again: %" PRIu64, in.dials);
	CHECK(lsc[p.mb] >= l0 + 2, "LSC down and up");
	CHECK(rte_pmd_ch39x_sim_mbim_event(p.mb,
		RTE_PMD_CH39X_SIM_MBIM_DROP_SESSION, 0) == 0, "session ended");
	CHECK(wait_link(p.mb, 0, WAIT_MS), "link down with the session");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "and up after the redial");
	CHECK(info_of(p.mb, 0).drops == 2, "two drops");
	CHECK(rte_pmd_ch39x_sim_mbim_event(p.mb, RTE_PMD_CH39X_SIM_MBIM_SIGNAL,
					   7) == 0, "signal 7");
	{
		uint64_t end = now_ms() + WAIT_MS;

		while (info_of(p.mb, 0).rssi != 7 && now_ms() < end)
			usleep(10000);
	}
	CHECK(info_of(p.mb, 0).rssi == 7, "RSSI from the indication");
	CHECK(xstat(p.mb, "mbim_indications") >= 4 &&
	      xstat(p.mb, "mbim_session_drops") == 2 &&
	      xstat(p.mb, "mbim_notifications") >= 1, "control counters");
	/* Stopped, the port has no link; started again, it has. */
	CHECK(rte_eth_dev_stop(p.mb) == 0, "stop");
	CHECK(wait_link(p.mb, 0, 100), "no link while stopped");
	CHECK(info_of(p.mb, 0).phase == RTE_PMD_CH39X_MBIM_CONNECTED,
	      "the session stays");
	CHECK(rte_eth_dev_start(p.mb) == 0 && wait_link(p.mb, 1, WAIT_MS),
	      "link at start");
	pair_down("ind");
}

/*
 * Coverage gone for a while, then back: the redial started during the
 * loss waits for registration (up to 60 s) rather than failing into a
 * growing back-off, so the session is back within a bound once the
 * network is found.
 */
static void
tc_lose_find(void)
{
	uint64_t t0, f0;
	struct pair p;

	CHECK(pair_up(&p, "lf", "", 0), "ports up");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "connected");
	f0 = info_of(p.mb, 0).dial_failures;
	CHECK(rte_pmd_ch39x_sim_mbim_event(p.mb,
		RTE_PMD_CH39X_SIM_MBIM_LOSE_NETWORK, 0) == 0, "coverage off");
	CHECK(wait_link(p.mb, 0, WAIT_MS), "link down with the network");
	/* Past the first redial (1 s) and what a 2 s back-off would be. */
	usleep(4000 * 1000);
	t0 = now_ms();
	CHECK(rte_pmd_ch39x_sim_mbim_event(p.mb,
		RTE_PMD_CH39X_SIM_MBIM_FIND_NETWORK, 0) == 0, "coverage on");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "link up again");
	printf("  lose/find: connected %" PRIu64 " ms after the network came "
	       "back (4 s without it)\n", now_ms() - t0);
	CHECK(now_ms() - t0 < 2500 &&
	      info_of(p.mb, 0).dial_failures == f0,
	      "connected %" PRIu64 " ms after the network came back, %"
	      PRIu64 " failed redials", now_ms() - t0,
	      info_of(p.mb, 0).dial_failures - f0);
	pair_down("lf");
}

/* connect=manual: nothing until asked; a wrong APN; disconnect. */
static void
tc_manual(void)
{
	struct rte_pmd_ch39x_mbim_info in;
	struct pair p;

	CHECK(pair_up(&p, "man", "connect=manual,apn=wrong,"
		      "sim_apn=internet,sim_max_ctrl=64", 0), "ports up");
	usleep(300000);
	in = info_of(p.mb, 0);
	CHECK(in.phase == RTE_PMD_CH39X_MBIM_IDLE && in.dials == 0,
	      "no dial: phase %u", in.phase);
	CHECK(wait_link(p.mb, 0, 10), "no link");
	CHECK(rte_pmd_ch39x_mbim_connect(p.mb, 0, 1500) == -ETIMEDOUT,
	      "the wrong APN does not connect");
	in = info_of(p.mb, 0);
	CHECK(in.phase == RTE_PMD_CH39X_MBIM_FAILED &&
	      strstr(in.error, "InvalidAccessString") != NULL &&
	      in.dial_failures >= 1, "refused: %s", in.error);
	CHECK(rte_pmd_ch39x_mbim_disconnect(p.mb, 0, WAIT_MS) == 0,
	      "give up");
	CHECK(rte_pmd_ch39x_mbim_connect(p.mb, 7, 0) == -EINVAL,
	      "no session 7");
	pair_down("man");

	CHECK(pair_up(&p, "man2", "connect=manual,sim_max_ctrl=64", 0),
	      "ports up");
	CHECK(rte_pmd_ch39x_mbim_connect(p.mb, 0, WAIT_MS) == 0,
	      "connected on request");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "link up");
	CHECK(xstat(p.mb, "mbim_fragments_in") > xstat(p.mb, "mbim_commands"),
	      "answers in 64-byte fragments");
	CHECK(rte_pmd_ch39x_mbim_disconnect(p.mb, 0, WAIT_MS) == 0,
	      "disconnected");
	CHECK(wait_link(p.mb, 0, WAIT_MS), "link down");
	in = info_of(p.mb, 0);
	CHECK(in.phase == RTE_PMD_CH39X_MBIM_IDLE && !in.ipv4.valid,
	      "idle, no address");
	usleep(1500000);
	CHECK(info_of(p.mb, 0).dials == 1, "no redial after a disconnect");
	pair_down("man2");
}

/* sessions=1:ims: VLAN 1 is session 1, inline or stripped. */
static void
tc_sessions(void)
{
	static const uint8_t ue41[4] = { 100, 64, 40, 2 };
	struct rte_pmd_ch39x_mbim_info in;
	struct pair p;
	struct rte_mbuf *m;
	uint8_t b[200];
	uint8_t *d;
	int round;

	for (round = 0; round < 2; round++) {
		const char *tag = round ? "ses_s" : "ses";

		CHECK(pair_up(&p, tag, "sessions=1:ims", round ?
			      RTE_ETH_RX_OFFLOAD_VLAN_STRIP : 0), "ports up");
		CHECK(wait_link(p.mb, 1, WAIT_MS), "session 0 up");
		{
			uint64_t end = now_ms() + WAIT_MS;

			while (info_of(p.mb, 1).phase !=
			       RTE_PMD_CH39X_MBIM_CONNECTED && now_ms() < end)
				usleep(10000);
		}
		in = info_of(p.mb, 1);
		CHECK(in.phase == RTE_PMD_CH39X_MBIM_CONNECTED &&
		      in.vlan_id == 1 && strcmp(in.apn, "ims") == 0 &&
		      memcmp(in.ipv4.addr, ue41, 4) == 0, "session 1: %s",
		      in.error);
		CHECK(learn_cable(&p), "cable learnt");
		/* Up, tagged VLAN 1: leaves from session 1's address. */
		udp4(b, 200, ue41, far4, 3);
		CHECK(send1(p.mb, eth_frame(peer_mac, p.mb_mac.addr_bytes, 1,
					    0x0800, b, 200)), "sent on VLAN 1");
		m = recv_match(p.far, 0x0800, far4, WAIT_MS);
		CHECK(m != NULL && memcmp(rte_pktmbuf_mtod(m, uint8_t *) + 14,
					  b, 200) == 0, "session 1 uplink");
		rte_pktmbuf_free(m);
		/* Down: tagged VLAN 1, inline or in the mbuf. */
		udp4(b, 200, far4, ue41, 4);
		send1(p.far, eth_frame(p.model_mac, p.far_mac.addr_bytes, 0,
				       0x0800, b, 200));
		m = recv_match(p.mb, 0x0800, ue41, WAIT_MS);
		CHECK(m != NULL, "session 1 downlink");
		if (m != NULL) {
			d = rte_pktmbuf_mtod(m, uint8_t *);
			if (round)
				CHECK((m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
				      m->vlan_tci == 1 && m->pkt_len == 214 &&
				      memcmp(d + 14, b, 200) == 0,
				      "VLAN 1 stripped");
			else
				CHECK(d[12] == 0x81 && d[15] == 1 &&
				      m->pkt_len == 218 &&
				      memcmp(d + 18, b, 200) == 0,
				      "VLAN 1 inline");
			rte_pktmbuf_free(m);
		}
		/* A tag of no session: dropped. */
		send1(p.mb, eth_frame(peer_mac, p.mb_mac.addr_bytes, 300,
				      0x0800, b, 200));
		CHECK(xstat(p.mb, "tx_mbim_bad_vlan_drops") == 1,
		      "VLAN 300 dropped");
		pair_down(tag);
	}
}

/* Close while the dialer waits for the network: at once. */
static void
tc_close_dialing(void)
{
	struct pair p;
	uint64_t t0;

	CHECK(pair_up(&p, "cls", "sim_register_ms=60000", 0), "ports up");
	usleep(300000);
	CHECK(info_of(p.mb, 0).phase == RTE_PMD_CH39X_MBIM_DIALING,
	      "dialing (searching)");
	t0 = now_ms();
	pair_down("cls");
	CHECK(now_ms() - t0 < 3000, "closed in %" PRIu64 " ms",
	      now_ms() - t0);
}

/* The modem leaves the bus and comes back: gone, then connected again. */
static void
tc_replug(void)
{
	struct pair p;
	uint64_t end;

	CHECK(pair_up(&p, "rpl", "", 0), "ports up");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "connected");
	CHECK(rte_pmd_ch39x_sim_unplug(p.mb) == 0, "unplugged");
	CHECK(wait_link(p.mb, 0, WAIT_MS), "link down");
	end = now_ms() + WAIT_MS;
	while (info_of(p.mb, 0).phase != RTE_PMD_CH39X_MBIM_GONE &&
	       now_ms() < end)
		usleep(10000);
	CHECK(info_of(p.mb, 0).phase == RTE_PMD_CH39X_MBIM_GONE, "gone");
	CHECK(rte_pmd_ch39x_sim_replug(p.mb, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replugged");
	CHECK(wait_link(p.mb, 1, WAIT_MS), "link up after the return");
	CHECK(info_of(p.mb, 0).dials == 2 && xstat(p.mb, "mbim_opens") == 2,
	      "opened and dialled again");
	pair_down("rpl");
}

/* MBIM devargs on other ports: refused. */
static void
tc_devargs(void)
{
	CHECK(rte_vdev_init("net_ch39x_da0", "sim=ncm,apn=x") != 0,
	      "apn with sim=ncm");
	CHECK(rte_vdev_init("net_ch39x_da1", "sim=mbim,sessions=0:x") != 0,
	      "session 0 in sessions=");
	CHECK(rte_vdev_init("net_ch39x_da2", "sim=mbim,sessions=1:a+1:b") != 0,
	      "a session twice");
	CHECK(rte_vdev_init("net_ch39x_da3", "sim=mbim,auth=kerberos") != 0,
	      "unknown auth");
	CHECK(port_of("net_ch39x_da0") == RTE_MAX_ETHPORTS, "no port left");
}

static const struct {
	const char *name;
	void (*fn)(void);
} cases[] = {
	{ "mbim_dial_data", tc_dial_data },
	{ "mbim_indications", tc_indications },
	{ "mbim_manual", tc_manual },
	{ "mbim_sessions", tc_sessions },
	{ "mbim_close_dialing", tc_close_dialing },
	{ "mbim_replug", tc_replug },
	{ "mbim_devargs", tc_devargs },
	{ "mbim_copybreak", tc_copybreak },
	{ "mbim_tx_hold", tc_tx_hold },
	{ "mbim_lose_find", tc_lose_find },
};

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "256", "--no-shconf",
		"--log-level=pmd.net.ch39x:notice", prefix,
	};
	unsigned int i, f0, avail;
	int k;
	bool run;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		for (i = 0; i < RTE_DIM(cases); i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=ch39x_mbim_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("mbim", NB_MBUFS, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(mp != NULL, "pool");
	for (i = 0; mp != NULL && i < RTE_DIM(cases); i++) {
		run = argc < 2;
		for (k = 1; k < argc; k++)
			run |= strcmp(argv[k], cases[i].name) == 0;
		if (!run)
			continue;
		f0 = failed;
		cases[i].fn();
		avail = rte_mempool_avail_count(mp);
		CHECK(avail == NB_MBUFS, "%s: %u mbufs not back",
		      cases[i].name, NB_MBUFS - avail);
		printf("case %s: %s\n", cases[i].name,
		       failed == f0 ? "OK" : "FAIL");
		fflush(stdout);
	}
	CHECK(rte_eth_dev_count_avail() == 0, "ports left behind");
	rte_mempool_free(mp);
	rte_eal_cleanup();
	printf("test_pmd_mbim: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
