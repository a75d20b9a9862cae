/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The net_ch39x PMD in-process: EAL with --no-huge --no-pci, simulated
 * adapters cabled together, driven through the public ethdev API only.
 *
 * Named cases in the shape of DPDK's unit_test_suite (app/test/test.h):
 * each case probes its own ports under its own names (a pair cabled as
 * "wire=pair:<case>"), and its tear-down closes them and checks that every
 * mbuf is back in the pool. `test_pmd --list` prints the names,
 * `test_pmd NAME...` runs only those, no argument runs them all.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_epoll.h>
#include <rte_interrupts.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_string_fns.h>
#include <rte_udp.h>

#include "rte_pmd_ch39x.h"
#include "pmd_test.h"

/*
 * Waits end on an event (a frame, a counter, a link state); the deadline
 * only bounds a failure, so it is generous for a loaded machine.
 */
#define WAIT_MS 5000

static uint64_t
deadline_ms(unsigned int ms)
{
	return rte_get_timer_cycles() + rte_get_timer_hz() * ms / 1000;
}

static bool
expired(uint64_t end)
{
	return rte_get_timer_cycles() >= end;
}

#define NB_MBUFS 4096
static struct rte_mempool *mp;

/* A case, in the shape of DPDK's struct unit_test_case (app/test/test.h). */
struct unit_test_case {
	const char *name;
	int (*setup)(void);	/* probes the case's ports; 0: go on */
	void (*teardown)(void);
	void (*testcase)(void);
	const void *data;	/* the case's parameters, for its functions */
};

/* The suite: set-up and tear-down around all the cases. */
struct unit_test_suite {
	const char *suite_name;
	int (*setup)(void);
	void (*teardown)(void);
	const struct unit_test_case *cases;
	unsigned int nb_cases;
};

#define CASE_MAX_DEVS 4

/* The running case and the devices it probed, for its tear-down. */
static struct {
	const struct unit_test_case *c;
	unsigned int pool0;		/* free mbufs before its set-up */
	unsigned int nb_devs;
	char dev[CASE_MAX_DEVS][RTE_DEV_NAME_MAX_LEN];
	char devargs[CASE_MAX_DEVS][256];
	uint16_t port[CASE_MAX_DEVS];
} tc;

static int lsc_count[RTE_MAX_ETHPORTS];
static int rmv_count[RTE_MAX_ETHPORTS];

static int
port_up2(uint16_t port, uint64_t offloads, uint64_t tx_offloads, uint16_t mtu)
{
	struct rte_eth_conf conf;
	int rc;

	rte_eth_dev_stop(port);
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	conf.rxmode.offloads = offloads;
	conf.txmode.offloads = tx_offloads;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0 && mtu)
		rc = rte_eth_dev_set_mtu(port, mtu);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 256, 0, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 256, 0, NULL);
	if (rc == 0)
		rc = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC,
						   event_cb, lsc_count);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

static int
port_up(uint16_t port, uint64_t offloads, uint16_t mtu)
{
	return port_up2(port, offloads, 0, mtu);
}

static bool
wait_link(uint16_t port, int up)
{
	uint64_t end = deadline_ms(WAIT_MS);
	struct rte_eth_link l;

	do {
		if (rte_eth_link_get_nowait(port, &l) == 0 &&
		    l.link_status == up)
			return true;
		usleep(1000);
	} while (!expired(end));
	return false;
}

static struct rte_mbuf *
make_frame(const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	   uint32_t len, uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;
	uint32_t i;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, dst, 6);
	memcpy(p + 6, src, 6);
	p[12] = 0x88;
	p[13] = 0xB5;	/* local experimental EtherType */
	for (i = 14; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
	return m;
}

/* Receive up to want frames, waiting at most ms for them. */
static unsigned int
rx_wait_ms(uint16_t port, struct rte_mbuf **out, unsigned int want,
	   unsigned int ms)
{
	uint64_t end = deadline_ms(ms);
	unsigned int n = 0;

	while (n < want && !expired(end))
		n += rte_eth_rx_burst(port, 0, out + n,
				      (uint16_t)RTE_MIN(want - n, 32u));
	return n;
}

/* Receive want frames that are due: returns as soon as they are in. */
static unsigned int
rx_wait(uint16_t port, struct rte_mbuf **out, unsigned int want)
{
	return rx_wait_ms(port, out, want, WAIT_MS);
}

/* The non-zero extended statistics of a port, to explain a failure. */
static void
dump_xstats(uint16_t port)
{
	struct rte_eth_xstat_name names[160];
	struct rte_eth_xstat vals[160];
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

/*
 * Poll port rx until counter name of port cnt reaches v, the event that
 * says a frame was dropped; returns how many frames arrived meanwhile.
 */
static unsigned int
rx_until_xstat(uint16_t rx, uint16_t cnt, const char *name, uint64_t v)
{
	uint64_t end = deadline_ms(WAIT_MS);
	struct rte_mbuf *pk[32];
	unsigned int n = 0;
	uint16_t k;

	do {
		k = rte_eth_rx_burst(rx, 0, pk, 32);
		rte_pktmbuf_free_bulk(pk, k);
		n += k;
	} while (xstat(cnt, name) < v && !expired(end));
	/* Whatever shared the dropped frame's transfer. */
	k = rte_eth_rx_burst(rx, 0, pk, 32);
	rte_pktmbuf_free_bulk(pk, k);
	return n + k;
}

/*
 * Frames of every size 60..1514 from a to b, byte-exact, counters exact.
 * div: bursts must take fewer than frames / div transfers (aggregation);
 * 0: exactly a transfer per frame (ECM).
 */
static void
test_all_sizes_as(uint16_t a, uint16_t b, unsigned int div)
{
	struct rte_ether_addr ma, mb;
	struct rte_mbuf *tx[32], *rx[64];
	struct rte_eth_stats sa, sb;
	uint64_t bytes = 0, frames = 0;
	uint32_t len, i, k, bad = 0, got_total = 0;

	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	rte_eth_stats_reset(a);
	rte_eth_stats_reset(b);
	for (len = 60; len <= 1514; len += k) {
		unsigned int n = 0, sent = 0, got;

		for (k = 0; k < 32 && len + k <= 1514; k++)
			tx[n++] = make_frame(&mb, &ma, len + k, (uint8_t)(len + k));
		while (sent < n)
			sent += rte_eth_tx_burst(a, 0, tx + sent,
						 (uint16_t)(n - sent));
		got = rx_wait(b, rx, n);
		got_total += got;
		for (i = 0; i < got; i++) {
			struct rte_mbuf *ref = make_frame(&mb, &ma, len + i,
							  (uint8_t)(len + i));

			if (rx[i]->pkt_len != len + i ||
			    memcmp(rte_pktmbuf_mtod(rx[i], void *),
				   rte_pktmbuf_mtod(ref, void *), len + i) != 0)
				bad++;
			rte_pktmbuf_free(ref);
			rte_pktmbuf_free(rx[i]);
		}
		frames += n;
		for (i = 0; i < n; i++)
			bytes += len + i;
	}
	CHECK(got_total == frames, "%u of %lu frames arrived", got_total,
	      (unsigned long)frames);
	CHECK(bad == 0, "%u frames differ", bad);
	rte_eth_stats_get(a, &sa);
	rte_eth_stats_get(b, &sb);
	CHECK(sa.opackets == frames && sa.obytes == bytes,
	      "tx %lu/%lu, want %lu/%lu", (unsigned long)sa.opackets,
	      (unsigned long)sa.obytes, (unsigned long)frames,
	      (unsigned long)bytes);
	CHECK(sb.ipackets == frames && sb.ibytes == bytes,
	      "rx %lu/%lu, want %lu/%lu", (unsigned long)sb.ipackets,
	      (unsigned long)sb.ibytes, (unsigned long)frames,
	      (unsigned long)bytes);
	CHECK(sa.oerrors == 0 && sb.ierrors == 0 && sb.rx_nombuf == 0,
	      "errors %lu %lu %lu", (unsigned long)sa.oerrors,
	      (unsigned long)sb.ierrors, (unsigned long)sb.rx_nombuf);
	/*
	 * Bursts of 32 aggregate (vendor records, NCM NTBs): fewer
	 * transfers than frames each way. ECM sends one frame each.
	 */
	CHECK(div ? xstat(a, "tx_usb_xfers") < frames / div :
	      xstat(a, "tx_usb_xfers") == frames,
	      "%lu tx transfers for %lu frames",
	      (unsigned long)xstat(a, "tx_usb_xfers"), (unsigned long)frames);
	CHECK(xstat(b, "rx_frames") == frames, "rx_frames %lu",
	      (unsigned long)xstat(b, "rx_frames"));
	CHECK(xstat(b, "rx_framing_bytes") ==
	      xstat(b, "rx_usb_bytes") - bytes, "framing bytes");
}

static void
test_all_sizes(uint16_t a, uint16_t b)
{
	test_all_sizes_as(a, b, 8);
}

/*
 * The marker that closes one_frame(): a broadcast of its own EtherType
 * and sequence byte. Frames keep their order from cable to application,
 * so once it is in, a frame sent before it that is not is dropped.
 */
#define MARKER_TYPE_LO 0xB6
#define MARKER_LEN 60

static struct rte_mbuf *
make_marker(const struct rte_ether_addr *src, uint8_t seq)
{
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff,
						      0xff, 0xff }};
	struct rte_mbuf *m = make_frame(&bcast, src, MARKER_LEN, 0);
	uint8_t *p;

	if (m != NULL) {
		p = rte_pktmbuf_mtod(m, uint8_t *);
		p[13] = MARKER_TYPE_LO;
		p[14] = seq;
	}
	return m;
}

/* Returns the sequence byte of a marker, -1 for any other frame. */
static int
marker_seq(struct rte_mbuf *m)
{
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->pkt_len != MARKER_LEN || m->data_len < 15 || p[12] != 0x88 ||
	    p[13] != MARKER_TYPE_LO)
		return -1;
	return p[14];
}

/*
 * Send one frame a -> b, then a marker; returns whether the frame arrived
 * (alone) before the marker. ms bounds the wait when the marker is lost.
 */
static bool
one_frame_ms(uint16_t a, uint16_t b, const struct rte_ether_addr *dst,
	     unsigned int ms)
{
	static uint8_t seq;
	struct rte_ether_addr ma;
	struct rte_mbuf *m, *rx[4];
	unsigned int got = 0, i, k;
	bool marked = false;
	uint64_t end;

	rte_eth_macaddr_get(a, &ma);
	m = make_frame(dst, &ma, 100, 0x5A);
	if (rte_eth_tx_burst(a, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return false;
	}
	seq++;
	end = deadline_ms(ms);
	m = make_marker(&ma, seq);
	while (m != NULL && rte_eth_tx_burst(a, 0, &m, 1) != 1)
		if (expired(end)) {
			rte_pktmbuf_free(m);
			break;
		}
	while (!marked && !expired(end)) {
		k = rte_eth_rx_burst(b, 0, rx, 4);
		for (i = 0; i < k; i++) {
			int mseq = marker_seq(rx[i]);

			/* A late marker of an earlier call is not a frame. */
			if (mseq == seq)
				marked = true;
			else if (mseq < 0 && !marked)
				got++;
			rte_pktmbuf_free(rx[i]);
		}
	}
	return got == 1;
}

/* Send one frame a -> b; returns whether it arrived. */
static bool
one_frame(uint16_t a, uint16_t b, const struct rte_ether_addr *dst)
{
	return one_frame_ms(a, b, dst, WAIT_MS);
}

/*
 * Receive filters of port b, fed from port a. takes_mac: the device
 * filters for any address the port sets (the vendor chips); a CDC device
 * without SET_NET_ADDRESS keeps its own and the PMD receives
 * promiscuously instead, so only the new address is checked then.
 */
static void
test_filters_as(uint16_t a, uint16_t b, bool takes_mac)
{
	struct rte_ether_addr mb, foreign = {{ 0x02, 0x99, 0, 0, 0, 1 }};
	struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }};
	struct rte_ether_addr mc1 = {{ 0x01, 0x00, 0x5e, 0, 0, 1 }};
	struct rte_ether_addr mc2 = {{ 0x01, 0x00, 0x5e, 0, 0, 2 }};
	struct rte_ether_addr newmac = {{ 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 }};
	uint64_t filtered;

	rte_eth_macaddr_get(b, &mb);
	CHECK(rte_eth_promiscuous_disable(b) == 0, "promisc off");
	CHECK(rte_eth_allmulticast_disable(b) == 0, "allmulti off");
	filtered = xstat(b, "sim_rx_filtered");
	CHECK(!one_frame(a, b, &foreign), "foreign unicast passed");
	CHECK(xstat(b, "sim_rx_filtered") == filtered + 1, "not counted");
	CHECK(one_frame(a, b, &mb), "own unicast dropped");
	CHECK(one_frame(a, b, &bcast), "broadcast dropped");
	CHECK(!one_frame(a, b, &mc1), "multicast passed with no list");
	CHECK(rte_eth_dev_set_mc_addr_list(b, &mc1, 1) == 0, "mc list");
	CHECK(one_frame(a, b, &mc1), "listed multicast dropped");
	CHECK(!one_frame(a, b, &mc2), "unlisted multicast passed");
	CHECK(rte_eth_allmulticast_enable(b) == 0, "allmulti on");
	CHECK(one_frame(a, b, &mc2), "allmulti dropped multicast");
	CHECK(rte_eth_allmulticast_disable(b) == 0, "allmulti off");
	CHECK(rte_eth_dev_set_mc_addr_list(b, NULL, 0) == 0, "mc list clear");
	CHECK(!one_frame(a, b, &mc1), "cleared multicast passed");
	CHECK(rte_eth_dev_default_mac_addr_set(b, &newmac) == 0, "mac set");
	CHECK(one_frame(a, b, &newmac), "new MAC not programmed");
	if (takes_mac)
		CHECK(!one_frame(a, b, &mb), "old MAC still passes");
	CHECK(rte_eth_dev_default_mac_addr_set(b, &mb) == 0, "mac restore");
	CHECK(!one_frame(a, b, &foreign), "foreign unicast passed again");
	CHECK(rte_eth_promiscuous_enable(b) == 0, "promisc on");
	CHECK(one_frame(a, b, &foreign), "promiscuous dropped unicast");
}

static void
test_filters(uint16_t a, uint16_t b)
{
	test_filters_as(a, b, true);
}

static bool
wait_lsc(uint16_t port, int before)
{
	uint64_t end = deadline_ms(WAIT_MS);

	while (!expired(end)) {
		if (__atomic_load_n(&lsc_count[port], __ATOMIC_RELAXED) > before)
			return true;
		usleep(1000);
	}
	return false;
}

static void
test_link(uint16_t a, uint16_t b)
{
	struct rte_eth_link l;
	int ca = lsc_count[a], cb = lsc_count[b];

	CHECK(rte_pmd_ch39x_sim_set_cable(a, 0) == 0, "pull cable");
	CHECK(wait_lsc(a, ca) && wait_lsc(b, cb), "no LSC on cable pull");
	CHECK(wait_link(a, 0) && wait_link(b, 0), "link still up");
	ca = lsc_count[a];
	cb = lsc_count[b];
	CHECK(rte_pmd_ch39x_sim_set_cable(a, 1) == 0, "plug cable");
	CHECK(wait_lsc(a, ca) && wait_lsc(b, cb), "no LSC on cable plug");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link not back");
	CHECK(rte_eth_link_get_nowait(a, &l) == 0, "link get");
	CHECK(l.link_speed == RTE_ETH_SPEED_NUM_1G, "speed %u", l.link_speed);

	ca = lsc_count[a];
	CHECK(rte_eth_dev_set_link_down(b) == 0, "set_link_down");
	CHECK(wait_lsc(a, ca) && wait_link(a, 0), "peer PHY down not seen");
	CHECK(rte_eth_dev_set_link_up(b) == 0, "set_link_up");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link not back after up");
	CHECK(xstat(a, "link_events") >= 4, "link_events %lu",
	      (unsigned long)xstat(a, "link_events"));
	CHECK(one_frame(b, a, &(struct rte_ether_addr){{ 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff }}), "traffic after link flap");
}

/* A loop adapter: end-of-transfer marks at a packet-size multiple. */
static void
test_end_marks(uint16_t p, const char *args, const char *counter)
{
	struct rte_ether_addr me;
	struct rte_mbuf *m, *rx[2];

	CHECK(port_up(p, 0, 0) == 0, "start %s", args);
	CHECK(wait_link(p, 1), "link");
	rte_eth_macaddr_get(p, &me);
	/* 8-byte header + 504 bytes = one 512-byte record. */
	m = make_frame(&me, &me, 504, 1);
	CHECK(rte_eth_tx_burst(p, 0, &m, 1) == 1, "tx");
	CHECK(rx_wait(p, rx, 1) == 1 && rx[0]->pkt_len == 504, "loop rx");
	rte_pktmbuf_free(rx[0]);
	CHECK(xstat(p, counter) == 1, "%s: %s = %lu", args, counter,
	      (unsigned long)xstat(p, counter));
	CHECK(xstat(p, "sim_tx_unterminated") == 0, "%s: unterminated", args);
	CHECK(xstat(p, "sim_tx_bad_records") == 0, "%s: bad records", args);
	rte_eth_dev_stop(p);
	rte_eth_dev_close(p);
}

static void
test_info(uint16_t a, uint16_t ch397)
{
	struct rte_eth_dev_info di;
	char fw[64];

	CHECK(rte_eth_dev_info_get(a, &di) == 0, "info");
	CHECK(di.max_mtu == 9198 && di.min_mtu == 68, "ch398 mtu %u..%u",
	      di.min_mtu, di.max_mtu);
	CHECK(di.max_rx_queues == 1 && di.max_tx_queues == 1, "queues");
	CHECK(rte_eth_dev_fw_version_get(a, fw, sizeof(fw)) == 0 &&
	      strstr(fw, "CH398") != NULL, "fw %s", fw);
	CHECK(rte_eth_dev_info_get(ch397, &di) == 0 && di.max_mtu == 1500 &&
	      di.max_rx_pktlen == 1518, "ch397 mtu %u", di.max_mtu);
	CHECK(rte_eth_dev_fw_version_get(ch397, fw, sizeof(fw)) == 0 &&
	      strstr(fw, "CH397") != NULL, "fw %s", fw);
	CHECK(rte_eth_dev_set_mtu(ch397, 1501) != 0, "ch397 took MTU 1501");
	CHECK(rte_eth_dev_set_mtu(a, 9199) != 0, "ch398 took MTU 9199");
}

/* A chain of segments of at most seg bytes holding len frame bytes. */
static struct rte_mbuf *
make_chain(const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	   uint32_t len, uint8_t seed, uint32_t seg)
{
	struct rte_mbuf *flat = make_frame(dst, src, RTE_MIN(len, 2000u), seed);
	struct rte_mbuf *head = NULL, *m;
	uint8_t buf[9300];
	uint32_t off, n, i;

	if (flat == NULL)
		return NULL;
	memcpy(buf, rte_pktmbuf_mtod(flat, void *), 14);
	rte_pktmbuf_free(flat);
	for (i = 14; i < len; i++)
		buf[i] = (uint8_t)(seed + i * 7);
	for (off = 0; off < len; off += n) {
		uint8_t *d;

		n = RTE_MIN(seg, len - off);
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL)
			break;
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		if (d == NULL) {
			rte_pktmbuf_free(m);
			break;
		}
		memcpy(d, buf + off, n);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			rte_pktmbuf_free(m);
	}
	return head;
}

static bool
same_bytes(const struct rte_mbuf *a, const struct rte_mbuf *b)
{
	static uint8_t x[9300], y[9300];
	const void *px, *py;

	if (a->pkt_len != b->pkt_len || a->pkt_len > sizeof(x))
		return false;
	px = rte_pktmbuf_read(a, 0, a->pkt_len, x);
	py = rte_pktmbuf_read(b, 0, b->pkt_len, y);
	return memcmp(px, py, a->pkt_len) == 0;
}

/* 9 KB frames as mbuf chains both ways, and MTU mismatch drops. */
static void
test_jumbo(uint16_t a, uint16_t b)
{
	static const uint32_t lens[] = { 1515, 2041, 4000, 8000, 9014, 9018 };
	struct rte_ether_addr ma, mb;
	struct rte_mbuf *m, *ref, *rx[4];
	uint64_t chained, mtu_drops, dev_drops;
	unsigned int i, dir, ok = 0, multi = 0, want_chains;
	struct rte_eth_dev_info di;

	CHECK(port_up(a, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0 &&
	      port_up(b, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0,
	      "start with MTU 9000 and scatter");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link");
	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	chained = xstat(b, "rx_chained_frames") + xstat(a, "rx_chained_frames");
	for (dir = 0; dir < 2; dir++) {
		uint16_t from = dir ? b : a, to = dir ? a : b;

		for (i = 0; i < RTE_DIM(lens); i++) {
			m = make_chain(dir ? &ma : &mb, dir ? &mb : &ma, lens[i],
				       (uint8_t)i, 1000);
			ref = make_chain(dir ? &ma : &mb, dir ? &mb : &ma,
					 lens[i], (uint8_t)i, 2000);
			CHECK(m != NULL && m->nb_segs > 1 &&
			      rte_eth_tx_burst(from, 0, &m, 1) == 1, "tx %u",
			      lens[i]);
			if (rx_wait(to, rx, 1) == 1) {
				ok += same_bytes(rx[0], ref);
				multi += rx[0]->nb_segs > 1;
				rte_pktmbuf_free(rx[0]);
			}
			rte_pktmbuf_free(ref);
		}
	}
	CHECK(ok == 2 * RTE_DIM(lens), "%u of %u jumbo frames intact", ok,
	      (unsigned int)(2 * RTE_DIM(lens)));
	/* Frames longer than the 2048-byte data room arrive as chains. */
	for (i = 0, want_chains = 0; i < RTE_DIM(lens); i++)
		want_chains += 2 * (lens[i] > 2048);
	CHECK(multi == want_chains, "%u chains, want %u", multi, want_chains);
	CHECK(xstat(b, "rx_chained_frames") + xstat(a, "rx_chained_frames") ==
	      chained + want_chains, "chained frames not counted");

	/* MTU mismatch: b at 1500 while a sends jumbo. */
	CHECK(port_up(b, RTE_ETH_RX_OFFLOAD_SCATTER, 1500) == 0, "b MTU 1500");
	CHECK(wait_link(b, 1) && wait_link(a, 1), "link");
	mtu_drops = xstat(b, "rx_oversize_mtu_drops");
	dev_drops = xstat(b, "sim_rx_oversize");
	/* 1600 passes the chip (jumbo bit off: 2040) and the PMD drops it. */
	m = make_chain(&mb, &ma, 1600, 1, 1000);
	CHECK(rte_eth_tx_burst(a, 0, &m, 1) == 1, "tx 1600");
	CHECK(rx_until_xstat(b, b, "rx_oversize_mtu_drops", mtu_drops + 1) == 0,
	      "1600-byte frame passed MTU 1500");
	CHECK(xstat(b, "rx_oversize_mtu_drops") == mtu_drops + 1,
	      "MTU drop not counted");
	/* 3000 is over the chip's own limit with the jumbo bit off. */
	m = make_chain(&mb, &ma, 3000, 1, 1000);
	CHECK(rte_eth_tx_burst(a, 0, &m, 1) == 1, "tx 3000");
	CHECK(rx_until_xstat(b, b, "sim_rx_oversize", dev_drops + 1) == 0,
	      "3000-byte frame passed");
	CHECK(xstat(b, "sim_rx_oversize") == dev_drops + 1,
	      "chip drop not counted");
	/* 1518 (MTU 1500 + VLAN tag room) is accepted. */
	m = make_chain(&mb, &ma, 1518, 1, 1000);
	CHECK(rte_eth_tx_burst(a, 0, &m, 1) == 1 && rx_wait(b, rx, 1) == 1,
	      "1518-byte frame dropped at MTU 1500");
	rte_pktmbuf_free(rx[0]);

	/* Without scatter, a frame longer than one mbuf cannot be set up. */
	rte_eth_dev_stop(b);
	{
		struct rte_eth_conf conf;

		memset(&conf, 0, sizeof(conf));
		CHECK(rte_eth_dev_configure(b, 1, 1, &conf) == 0 &&
		      rte_eth_dev_set_mtu(b, 9000) == 0, "mtu 9000");
		CHECK(rte_eth_rx_queue_setup(b, 0, 256, 0, NULL, mp) != 0,
		      "9000 MTU without scatter accepted 2 KiB mbufs");
	}
	CHECK(rte_eth_dev_info_get(b, &di) == 0 &&
	      di.max_rx_pktlen == 9216, "max_rx_pktlen %u", di.max_rx_pktlen);
	CHECK(port_up(a, 0, 1500) == 0 && port_up(b, 0, 1500) == 0,
	      "back to MTU 1500");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link");
}

static struct rte_mbuf *
make_udp(const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	 uint16_t payload)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint16_t i;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	/* A new mbuf's data starts at its headroom: aligned. */
	eh = (struct rte_ether_hdr *)(void *)rte_pktmbuf_append(m,
		(uint16_t)(sizeof(*eh) + sizeof(*ip) + sizeof(*udp) + payload));
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eh->dst_addr = *dst;
	eh->src_addr = *src;
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) +
					    sizeof(*udp) + payload));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(0x0A000001);
	ip->dst_addr = rte_cpu_to_be_32(0x0A000002);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(1000);
	udp->dst_port = rte_cpu_to_be_16(2000);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*udp) + payload));
	udp->dgram_cksum = 0;
	p = (uint8_t *)(udp + 1);
	for (i = 0; i < payload; i++)
		p[i] = (uint8_t)(i * 13);
	m->l2_len = sizeof(*eh);
	m->l3_len = sizeof(*ip);
	return m;
}

/*
 * TX checksum + VLAN insert, RX VLAN strip + checksum flags, from port tx
 * to port rx: in hardware on a CH398, in software on a CH397.
 */
static void
test_offloads(uint16_t tx, uint16_t rx, bool hw)
{
	struct rte_ether_addr mt, mr;
	struct rte_mbuf *m, *got[2];
	struct rte_ipv4_hdr *ip;
	uint64_t csum_sw, vlan_sw, strip_sw;
	uint64_t rxol = RTE_ETH_RX_OFFLOAD_VLAN_STRIP |
		RTE_ETH_RX_OFFLOAD_CHECKSUM;
	uint64_t txol = RTE_ETH_TX_OFFLOAD_VLAN_INSERT |
		RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;

	CHECK(port_up2(tx, rxol, txol, 0) == 0, "tx port offloads");
	if (rx != tx)
		CHECK(port_up2(rx, rxol, txol, 0) == 0, "rx port offloads");
	CHECK(wait_link(tx, 1) && wait_link(rx, 1), "link %d %d", tx, rx);
	rte_eth_macaddr_get(tx, &mt);
	rte_eth_macaddr_get(rx, &mr);
	csum_sw = xstat(tx, "tx_csum_sw");
	vlan_sw = xstat(tx, "tx_vlan_insert_sw");
	strip_sw = xstat(rx, "rx_vlan_strip_sw");

	m = make_udp(&mr, &mt, 301);
	m->ol_flags = RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
		RTE_MBUF_F_TX_UDP_CKSUM | RTE_MBUF_F_TX_VLAN;
	m->vlan_tci = 0x0123;
	CHECK(rte_eth_tx_prepare(tx, 0, &m, 1) == 1, "tx_prepare");
	CHECK(rte_eth_tx_burst(tx, 0, &m, 1) == 1, "tx");
	if (rx_wait(rx, got, 1) == 1) {
		struct rte_mbuf *r = got[0];

		CHECK((r->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) &&
		      r->vlan_tci == 0x0123, "vlan flags 0x%lx tci 0x%x",
		      (unsigned long)r->ol_flags, r->vlan_tci);
		CHECK((r->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		      RTE_MBUF_F_RX_IP_CKSUM_GOOD, "ip csum flags");
		CHECK((r->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		      RTE_MBUF_F_RX_L4_CKSUM_GOOD, "l4 csum flags");
		ip = rte_pktmbuf_mtod_offset(r, struct rte_ipv4_hdr *, 14);
		CHECK(r->pkt_len == 14 + 20 + 8 + 301 &&
		      rte_ipv4_cksum(ip) == 0 && ip->hdr_checksum != 0 &&
		      rte_ipv4_udptcp_cksum_verify(ip, ip + 1) == 0,
		      "checksums on the wire");
		rte_pktmbuf_free(r);
	} else {
		CHECK(0, "offload frame lost");
	}
	/* A corrupted UDP checksum is reported bad. */
	m = make_udp(&mr, &mt, 100);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	((struct rte_udp_hdr *)(ip + 1))->dgram_cksum = rte_cpu_to_be_16(0x1234);
	CHECK(rte_eth_tx_burst(tx, 0, &m, 1) == 1, "tx bad");
	if (rx_wait(rx, got, 1) == 1) {
		CHECK((got[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
		      RTE_MBUF_F_RX_L4_CKSUM_BAD, "bad l4 not flagged");
		CHECK((got[0]->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) ==
		      RTE_MBUF_F_RX_IP_CKSUM_GOOD, "ip flagged");
		rte_pktmbuf_free(got[0]);
	} else {
		CHECK(0, "bad-checksum frame lost");
	}
	CHECK(xstat(tx, "tx_csum_sw") == csum_sw + (hw ? 0 : 1),
	      "tx_csum_sw %lu", (unsigned long)xstat(tx, "tx_csum_sw"));
	CHECK(xstat(tx, "tx_vlan_insert_sw") == vlan_sw + (hw ? 0 : 1),
	      "tx_vlan_insert_sw");
	CHECK(xstat(rx, "rx_vlan_strip_sw") == strip_sw + (hw ? 0 : 1),
	      "rx_vlan_strip_sw");
	CHECK(port_up(tx, 0, 0) == 0 && (tx == rx || port_up(rx, 0, 0) == 0),
	      "offloads off");
}

/*
 * Send n frames of len bytes a -> b and receive them into out, waiting at
 * most ms for the last ones.
 */
static unsigned int
send_recv_ms(uint16_t a, uint16_t b, uint32_t len, unsigned int n,
	     struct rte_mbuf **out, unsigned int *bad, unsigned int ms)
{
	struct rte_ether_addr ma, mb;
	struct rte_mbuf *m, *ref;
	unsigned int i, got;

	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	got = 0;
	for (i = 0; i < n; i++) {
		uint64_t end = deadline_ms(WAIT_MS);

		m = make_frame(&mb, &ma, len, (uint8_t)i);
		/* At line rate the transfers run out: that is backpressure. */
		while (m != NULL && rte_eth_tx_burst(a, 0, &m, 1) != 1) {
			got += rte_eth_rx_burst(b, 0, out + got,
						(uint16_t)(n - got));
			if (expired(end)) {
				rte_pktmbuf_free(m);
				break;
			}
		}
	}
	got += rx_wait_ms(b, out + got, n - got, ms);
	for (i = 0; i < got; i++) {
		ref = make_frame(&mb, &ma, len, (uint8_t)i);
		*bad += !same_bytes(out[i], ref);
		rte_pktmbuf_free(ref);
	}
	return got;
}

/* Send n frames that are all due a -> b and receive them into out. */
static unsigned int
send_recv(uint16_t a, uint16_t b, uint32_t len, unsigned int n,
	  struct rte_mbuf **out, unsigned int *bad)
{
	return send_recv_ms(a, b, len, n, out, bad, WAIT_MS);
}

/*
 * An attached mbuf's buf_iova against the memory its buf_addr lies in:
 * EAL memory (rte_malloc) has its own IOVA; the transport's buffers
 * (process or usbfs memory) are lent only in IOVA-as-VA mode, where the
 * IOVA is the address. *eal says which memory it was.
 */
static bool
ext_iova_ok(const struct rte_mbuf *m, bool *eal)
{
	*eal = rte_mem_virt2memseg(m->buf_addr, NULL) != NULL;
	if (*eal)
		return m->buf_iova == rte_mem_virt2iova(m->buf_addr);
	return rte_eal_iova_mode() == RTE_IOVA_VA &&
		m->buf_iova == (rte_iova_t)(uintptr_t)m->buf_addr;
}

/*
 * Zero-copy RX: frames attached to transfer buffers lent to the app; a
 * pair started by setup_pair_quiet() with the case's devargs.
 */
static void
test_zerocopy(uint16_t a, uint16_t b)
{
	/* Counted before the ports were probed. */
	unsigned int pool0 = tc.pool0;
	struct rte_mbuf *held[16], *rx[256];
	unsigned int bad = 0, got, i, round;

	rte_eth_promiscuous_enable(b);

	/*
	 * Hold 16 attached frames: their transfer stays lent. At unlimited
	 * rate the 16 arrive in one transfer whatever the machine load.
	 */
	got = send_recv(a, b, 1000, 16, held, &bad);
	CHECK(got == 16 && bad == 0, "held frames: %u, %u bad", got, bad);
	/* One more poll lets the parser finish the transfer and lend it. */
	rte_eth_rx_burst(b, 0, rx, 1);
	CHECK(xstat(b, "rx_xfers_lent") >= 1, "lent %lu",
	      (unsigned long)xstat(b, "rx_xfers_lent"));
	CHECK(xstat(b, "rx_zerocopy_frames") == 16, "zero-copy %lu",
	      (unsigned long)xstat(b, "rx_zerocopy_frames"));
	CHECK(got && RTE_MBUF_HAS_EXTBUF(held[0]), "not an external buffer");
	for (i = 0; i < got; i++) {
		bool eal;

		CHECK(ext_iova_ok(held[i], &eal), "frame %u: buf_iova 0x%"
		      PRIx64 " for buf_addr %p in %s memory, IOVA mode %d", i,
		      held[i]->buf_iova, held[i]->buf_addr,
		      eal ? "EAL" : "transport", (int)rte_eal_iova_mode());
		/* The simulator lends its own buffers under IOVA-as-VA. */
		CHECK(!eal || rte_eal_iova_mode() != RTE_IOVA_VA,
		      "frame %u in EAL memory, not the transport's", i);
	}
	/* Short frames are still copied. */
	got = send_recv(a, b, 100, 8, rx, &bad);
	CHECK(got == 8 && !RTE_MBUF_HAS_EXTBUF(rx[0]), "short frame attached");
	rte_pktmbuf_free_bulk(rx, got);
	/* Traffic goes on with the other transfers while 16 frames are held. */
	for (round = 0; round < 20; round++) {
		got = send_recv(a, b, 1200, 64, rx, &bad);
		CHECK(got == 64, "round %u: %u of 64", round, got);
		rte_pktmbuf_free_bulk(rx, got);
	}
	CHECK(bad == 0, "%u frames differ", bad);
	/* Across a restart, the held frames keep their bytes. */
	CHECK(rte_eth_dev_stop(b) == 0 && rte_eth_dev_start(b) == 0, "restart");
	CHECK(wait_link(b, 1), "link after restart");
	got = send_recv(a, b, 1400, 32, rx, &bad);
	CHECK(got == 32 && bad == 0, "after restart %u, %u bad", got, bad);
	rte_pktmbuf_free_bulk(rx, got);
	{
		struct rte_ether_addr ma, mb;
		struct rte_mbuf *ref;

		rte_eth_macaddr_get(a, &ma);
		rte_eth_macaddr_get(b, &mb);
		for (i = 0; i < 16; i++) {
			ref = make_frame(&mb, &ma, 1000, (uint8_t)i);
			bad += !same_bytes(held[i], ref);
			rte_pktmbuf_free(ref);
		}
	}
	CHECK(bad == 0, "held frames changed under the application");
	rte_pktmbuf_free_bulk(held, 16);
	/* The lent transfer came back and is used again. */
	got = send_recv(a, b, 100, 1, rx, &bad);
	rte_pktmbuf_free_bulk(rx, got);
	CHECK(xstat(b, "rx_xfers_lent") == 0, "still lent %lu",
	      (unsigned long)xstat(b, "rx_xfers_lent"));
	for (round = 0; round < 8; round++) {
		got = send_recv(a, b, 1000, 200, rx, &bad);
		CHECK(got == 200, "after return %u", got);
		rte_pktmbuf_free_bulk(rx, got);
	}
	CHECK(bad == 0, "%u frames differ", bad);
	CHECK(rte_eth_dev_stop(a) == 0 && rte_eth_dev_stop(b) == 0, "stop");
	CHECK(rte_mempool_avail_count(mp) == pool0, "%u of %u mbufs back",
	      rte_mempool_avail_count(mp), pool0);
}

/* Receive and free whatever arrives within 50 ms. */
static void
drain(uint16_t port)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() / 20;
	struct rte_mbuf *rx[32];
	uint16_t n;

	while (rte_get_timer_cycles() < end) {
		n = rte_eth_rx_burst(port, 0, rx, 32);
		rte_pktmbuf_free_bulk(rx, n);
	}
}

/* Frames flow a -> b again: 40 frames sent, 40 received intact. */
static bool
flows(uint16_t a, uint16_t b)
{
	struct rte_mbuf *rx[64];
	unsigned int bad = 0, got, i;
	bool ok = false;

	/* Whatever is still on the way from earlier traffic goes first. */
	drain(a);
	drain(b);
	/*
	 * A fault may take a few transfers to work through: retry, waiting
	 * longer each time (frames lost to a fault cost the whole wait).
	 */
	for (i = 0; i < 5 && !ok; i++) {
		got = send_recv_ms(a, b, 700, 40, rx, &bad, 1000 * (i + 1));
		rte_pktmbuf_free_bulk(rx, got);
		ok = got == 40 && bad == 0;
		bad = 0;
	}
	return ok;
}

struct fault_case {
	enum rte_pmd_ch39x_ep ep;
	enum rte_pmd_ch39x_fault fault;
	const char *counter;		/* on the faulty port */
};

static volatile bool load_run;

/* A worker lcore keeps traffic going both ways while faults happen. */
static int
load_worker(void *arg)
{
	uint16_t *ports = arg;
	struct rte_ether_addr m0, m1;
	struct rte_mbuf *pk[32];
	unsigned int i, n;

	rte_eth_macaddr_get(ports[0], &m0);
	rte_eth_macaddr_get(ports[1], &m1);
	while (load_run) {
		for (i = 0; i < 16; i++) {
			pk[i] = make_frame(i & 1 ? &m0 : &m1, i & 1 ? &m1 : &m0,
					   64 + i * 90, (uint8_t)i);
			if (pk[i] == NULL)
				break;
		}
		n = i;
		for (i = 0; i < n; i++)
			if (rte_eth_tx_burst(ports[i & 1], 0, &pk[i], 1) != 1)
				rte_pktmbuf_free(pk[i]);
		for (i = 0; i < 2; i++) {
			n = rte_eth_rx_burst(ports[i], 0, pk, 32);
			rte_pktmbuf_free_bulk(pk, n);
		}
	}
	return 0;
}

/*
 * Unplug port b's simulated device while b keeps bursting: exactly one
 * RMV event, the peer a loses its link, requests to b fail. The count
 * starts again at zero after, since later probes reuse port ids.
 */
static void
unplug_mid_traffic(uint16_t a, uint16_t b, const char *tag)
{
	struct rte_ether_addr ma;
	struct rte_mbuf *m, *rx[32];
	uint64_t end;
	uint16_t n;

	rte_eth_macaddr_get(a, &ma);
	/* On, so that turning it off below is a request to the device. */
	rte_eth_promiscuous_enable(b);
	rmv_count[b] = 0;
	CHECK(rte_eth_dev_callback_register(b, RTE_ETH_EVENT_INTR_RMV, event_cb,
					    rmv_count) == 0, "%s rmv callback", tag);
	CHECK(rte_pmd_ch39x_sim_unplug(b) == 0, "%s unplug", tag);
	end = deadline_ms(WAIT_MS);
	while (__atomic_load_n(&rmv_count[b], __ATOMIC_RELAXED) == 0 &&
	       !expired(end)) {
		n = rte_eth_rx_burst(b, 0, rx, 32);
		rte_pktmbuf_free_bulk(rx, n);
		m = make_frame(&ma, &ma, 100, 1);
		if (m != NULL && rte_eth_tx_burst(b, 0, &m, 1) != 1)
			rte_pktmbuf_free(m);
		usleep(1000);
	}
	CHECK(rmv_count[b] == 1, "%s: %d RMV events", tag, rmv_count[b]);
	CHECK(wait_link(a, 0), "%s peer kept its link", tag);
	CHECK(rte_eth_promiscuous_disable(b) != 0,
	      "%s request to a gone device", tag);
	rmv_count[b] = 0;
}

/*
 * Issue 14: a failed bulk OUT transfer of N records is N frames lost, in
 * oerrors and in the xstat of its cause. 30 short frames in one burst go
 * in one transfer; the transfer fails; both counters grow by 30.
 */
static void
test_tx_error_frames(uint16_t a, uint16_t b)
{
	static const struct fault_case cases[] = {
		{ RTE_PMD_CH39X_EP_BULK_OUT, RTE_PMD_CH39X_FAULT_ERROR,
		  "tx_usb_errors" },
		{ RTE_PMD_CH39X_EP_BULK_OUT, RTE_PMD_CH39X_FAULT_STALL,
		  "tx_usb_stalls" },
		{ RTE_PMD_CH39X_EP_BULK_OUT, RTE_PMD_CH39X_FAULT_TIMEOUT,
		  "tx_usb_timeouts" },
	};
	struct rte_ether_addr ma, mb;
	struct rte_eth_stats st;
	struct rte_mbuf *m[30];
	uint64_t oerr0, c0, x0, end;
	unsigned int i, j, k;

	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	CHECK(flows(a, b), "no traffic before faults");
	for (i = 0; i < RTE_DIM(cases); i++) {
		rte_eth_stats_get(a, &st);
		oerr0 = st.oerrors;
		c0 = xstat(a, cases[i].counter);
		x0 = xstat(a, "tx_usb_xfers");
		for (j = 0, k = 0; j < RTE_DIM(m); j++) {
			m[j] = make_frame(&mb, &ma, 64, (uint8_t)j);
			k += m[j] != NULL;
		}
		CHECK(k == RTE_DIM(m), "%s: mbufs", cases[i].counter);
		if (k != RTE_DIM(m)) {
			rte_pktmbuf_free_bulk(m, RTE_DIM(m));
			continue;
		}
		CHECK(rte_pmd_ch39x_sim_fault(a, cases[i].ep, cases[i].fault,
					      1) == 0,
		      "inject %s", cases[i].counter);
		k = rte_eth_tx_burst(a, 0, m, RTE_DIM(m));
		CHECK(k == RTE_DIM(m), "%s: burst took %u", cases[i].counter,
		      k);
		rte_pktmbuf_free_bulk(m + k, RTE_DIM(m) - k);
		CHECK(xstat(a, "tx_usb_xfers") == x0 + 1,
		      "%s: 30 frames in %" PRIu64 " transfers",
		      cases[i].counter, xstat(a, "tx_usb_xfers") - x0);
		/* The failure is counted when a burst reaps the transfer. */
		end = deadline_ms(WAIT_MS);
		while (xstat(a, cases[i].counter) == c0 && !expired(end)) {
			rte_eth_tx_burst(a, 0, NULL, 0);
			usleep(100);
		}
		rte_eth_stats_get(a, &st);
		CHECK(xstat(a, cases[i].counter) == c0 + RTE_DIM(m),
		      "%s grew by %" PRIu64 ", not by the 30 frames",
		      cases[i].counter, xstat(a, cases[i].counter) - c0);
		CHECK(st.oerrors == oerr0 + RTE_DIM(m),
		      "%s: oerrors grew by %" PRIu64 ", not by 30",
		      cases[i].counter, st.oerrors - oerr0);
		CHECK(flows(a, b), "traffic did not resume after %s",
		      cases[i].counter);
	}
}

/*
 * Issue 14: removal seen in every port state. Port p is not started
 * (never, or stopped), so no interrupt transfer is in flight: unplugging
 * its device still raises RMV, once; the link is down (the peer's too);
 * start fails with -ENODEV; close frees the port (the tear-down checks
 * that every mbuf came back).
 */
static void
unplug_not_started(uint16_t p, uint16_t peer, const char *tag)
{
	struct rte_eth_link l;
	uint64_t end;
	int rc;

	rmv_count[p] = 0;
	CHECK(rte_eth_dev_callback_register(p, RTE_ETH_EVENT_INTR_RMV,
					    event_cb, rmv_count) == 0,
	      "%s rmv callback", tag);
	CHECK(rte_pmd_ch39x_sim_unplug(p) == 0, "%s unplug", tag);
	end = deadline_ms(WAIT_MS);
	while (__atomic_load_n(&rmv_count[p], __ATOMIC_RELAXED) == 0 &&
	       !expired(end))
		usleep(1000);
	CHECK(rmv_count[p] == 1, "%s: %d RMV events", tag, rmv_count[p]);
	/*
	 * Once: no second event in five rounds of the presence poll (100 ms
	 * each). Waiting for something not to happen needs time.
	 */
	usleep(500 * 1000);
	CHECK(rmv_count[p] == 1, "%s: %d RMV events later", tag,
	      rmv_count[p]);
	CHECK(rte_eth_link_get_nowait(p, &l) == 0 &&
	      l.link_status == RTE_ETH_LINK_DOWN, "%s: link up when gone", tag);
	/* Who saw it: the bus's event, or (presence=poll) the alarm. */
	if (tc.c->data != NULL && strstr(tc.c->data, "presence=poll"))
		CHECK(xstat(p, "presence_polls") > 0 &&
		      xstat(p, "bus_events") == 0, "%s: polls %" PRIu64
		      ", bus events %" PRIu64 " with presence=poll", tag,
		      xstat(p, "presence_polls"), xstat(p, "bus_events"));
	else
		CHECK(xstat(p, "presence_polls") == 0 &&
		      xstat(p, "bus_events") >= 1, "%s: polls %" PRIu64
		      ", bus events %" PRIu64 " with presence=events", tag,
		      xstat(p, "presence_polls"), xstat(p, "bus_events"));
	if (peer != RTE_MAX_ETHPORTS)
		CHECK(wait_link(peer, 0), "%s: peer kept its link", tag);
	rc = port_up(p, 0, 0);
	CHECK(rc == -ENODEV, "%s: start of a gone device: %d", tag, rc);
	CHECK(rmv_count[p] == 1, "%s: %d RMV events after start", tag,
	      rmv_count[p]);
	CHECK(rte_eth_dev_close(p) == 0, "%s: close", tag);
	CHECK(!rte_eth_dev_is_valid_port(p), "%s: port left after close",
	      tag);
	rmv_count[p] = 0;
}

/*
 * usbfs out of memory: b's bulk IN resubmissions are refused more times
 * than its ring has transfers (at most CH39X_MAX_XFERS, 256). Each refused
 * transfer is kept and tried again at the next burst: every refusal is
 * counted, and none of the transfers is lost (a lost one would never
 * complete again, and after the ring's worth RX would stop for good).
 */
static void
submit_refused(uint16_t a, uint16_t b)
{
	const uint64_t refusals = 600;
	struct rte_ether_addr ma, mb;
	struct rte_mbuf *rx[32], *m;
	uint64_t before, errs, end;
	unsigned int k;
	uint8_t seed = 0;

	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	before = xstat(b, "sim_faults_injected");
	errs = xstat(b, "rx_usb_submit_errors");
	CHECK(rte_pmd_ch39x_sim_fault(b, RTE_PMD_CH39X_EP_BULK_IN,
				      RTE_PMD_CH39X_FAULT_SUBMIT,
				      (uint32_t)refusals) == 0,
	      "inject refused submissions");
	/* Frames complete transfers; bursts resubmit them. */
	end = deadline_ms(WAIT_MS);
	while (xstat(b, "sim_faults_injected") < before + refusals &&
	       !expired(end)) {
		m = make_frame(&mb, &ma, 64, seed++);
		if (m != NULL && rte_eth_tx_burst(a, 0, &m, 1) == 0)
			rte_pktmbuf_free(m);
		k = rte_eth_rx_burst(b, 0, rx, RTE_DIM(rx));
		rte_pktmbuf_free_bulk(rx, k);
		usleep(200);
	}
	CHECK(xstat(b, "rx_usb_submit_errors") - errs == refusals,
	      "refused submissions counted: %" PRIu64 " of %" PRIu64,
	      xstat(b, "rx_usb_submit_errors") - errs, refusals);
	CHECK(flows(a, b), "traffic after %" PRIu64 " refused submissions",
	      refusals);
}

/* Faults of the USB endpoints: counted, survived, traffic resumes. */
static void
test_usb_faults(uint16_t a, uint16_t b)
{
	static const struct fault_case cases[] = {
		{ RTE_PMD_CH39X_EP_BULK_IN, RTE_PMD_CH39X_FAULT_STALL,
		  "rx_usb_stalls" },
		{ RTE_PMD_CH39X_EP_BULK_IN, RTE_PMD_CH39X_FAULT_TIMEOUT,
		  "rx_usb_timeouts" },
		{ RTE_PMD_CH39X_EP_BULK_IN, RTE_PMD_CH39X_FAULT_ERROR,
		  "rx_usb_errors" },
		{ RTE_PMD_CH39X_EP_BULK_IN, RTE_PMD_CH39X_FAULT_OVERFLOW,
		  "rx_usb_overflows" },
		{ RTE_PMD_CH39X_EP_BULK_IN, RTE_PMD_CH39X_FAULT_TRUNCATE,
		  "rx_truncated_records" },
		{ RTE_PMD_CH39X_EP_BULK_OUT, RTE_PMD_CH39X_FAULT_STALL,
		  "tx_usb_stalls" },
		{ RTE_PMD_CH39X_EP_BULK_OUT, RTE_PMD_CH39X_FAULT_TIMEOUT,
		  "tx_usb_timeouts" },
		{ RTE_PMD_CH39X_EP_BULK_OUT, RTE_PMD_CH39X_FAULT_ERROR,
		  "tx_usb_errors" },
		{ RTE_PMD_CH39X_EP_INTR_IN, RTE_PMD_CH39X_FAULT_STALL,
		  "intr_usb_errors" },
		{ RTE_PMD_CH39X_EP_INTR_IN, RTE_PMD_CH39X_FAULT_TIMEOUT,
		  "intr_usb_errors" },
	};
	uint64_t before, garbage, end;
	unsigned int i, n;
	uint16_t faulty;

	CHECK(flows(a, b), "no traffic before faults");
	for (i = 0; i < RTE_DIM(cases); i++) {
		faulty = cases[i].ep == RTE_PMD_CH39X_EP_BULK_OUT ? a : b;
		before = xstat(faulty, cases[i].counter);
		CHECK(rte_pmd_ch39x_sim_fault(faulty, cases[i].ep,
					      cases[i].fault, 3) == 0,
		      "inject %s", cases[i].counter);
		(void)flows(a, b);
		CHECK(xstat(faulty, cases[i].counter) > before,
		      "%s did not count", cases[i].counter);
		CHECK(flows(a, b), "traffic did not resume after %s",
		      cases[i].counter);
	}
	/* A fault that does not exist on an endpoint is refused. */
	CHECK(rte_pmd_ch39x_sim_fault(a, RTE_PMD_CH39X_EP_BULK_OUT,
				      RTE_PMD_CH39X_FAULT_GARBAGE, 1) == -EINVAL,
	      "garbage on bulk OUT accepted");
	submit_refused(a, b);

	/* A lying device: random bytes instead of records, many times. */
	garbage = xstat(b, "rx_bad_headers") + xstat(b, "rx_frames");
	before = xstat(b, "sim_faults_injected");
	CHECK(rte_pmd_ch39x_sim_fault(b, RTE_PMD_CH39X_EP_BULK_IN,
				      RTE_PMD_CH39X_FAULT_GARBAGE, 500) == 0,
	      "garbage");
	end = deadline_ms(WAIT_MS);
	while (xstat(b, "sim_faults_injected") < before + 500 &&
	       !expired(end)) {
		struct rte_mbuf *rx[32];
		unsigned int k = rte_eth_rx_burst(b, 0, rx, 32);

		rte_pktmbuf_free_bulk(rx, k);
		usleep(100);
	}
	CHECK(xstat(b, "rx_bad_headers") + xstat(b, "rx_frames") > garbage,
	      "garbage was not parsed");
	CHECK(flows(a, b), "no traffic after garbage");

	/* An error storm on bulk IN. */
	CHECK(rte_pmd_ch39x_sim_fault(b, RTE_PMD_CH39X_EP_BULK_IN,
				      RTE_PMD_CH39X_FAULT_ERROR, 2000) == 0,
	      "storm");
	for (n = 0; n < 2000; n++) {
		struct rte_mbuf *rx[32];
		unsigned int k = rte_eth_rx_burst(b, 0, rx, 32);

		rte_pktmbuf_free_bulk(rx, k);
	}
	CHECK(flows(a, b), "no traffic after an error storm");
}

/* A vendor request that fails at run time is a clear error. */
static void
test_ctrl_fail(uint16_t b)
{
	uint64_t before = xstat(b, "ctrl_errors");

	CHECK(rte_eth_promiscuous_get(b) == 0, "promiscuous before");
	CHECK(rte_pmd_ch39x_sim_fail_ctrl(b, 1) == 0, "fail ctrl");
	CHECK(rte_eth_promiscuous_enable(b) != 0 &&
	      rte_eth_promiscuous_get(b) == 0, "failed request changed state");
	CHECK(xstat(b, "ctrl_errors") == before + 1, "ctrl_errors");
	CHECK(rte_eth_promiscuous_enable(b) == 0 &&
	      rte_eth_promiscuous_get(b) == 1, "request after a failure");
}

/* Link flapping under load from another lcore: no stuck TX. */
static void
test_link_flap_load(uint16_t a, uint16_t b)
{
	uint16_t ports[2], f;
	unsigned int i;
	int lsc;

	f = (uint16_t)rte_get_next_lcore(-1, 1, 0);
	if (f >= RTE_MAX_LCORE) {
		printf("case %s: one lcore, no load to flap under\n",
		       tc.c->name);
		return;
	}
	ports[0] = a;
	ports[1] = b;
	load_run = true;
	lsc = lsc_count[a];
	CHECK(rte_eal_remote_launch(load_worker, ports, f) == 0, "launch");
	for (i = 0; i < 10; i++) {
		rte_pmd_ch39x_sim_set_cable(b, (int)(i & 1));
		usleep(60 * 1000);
	}
	rte_pmd_ch39x_sim_set_cable(b, 1);
	usleep(60 * 1000);
	load_run = false;
	rte_eal_wait_lcore(f);
	CHECK(lsc_count[a] - lsc >= 8, "%d LSC events while flapping",
	      lsc_count[a] - lsc);
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link after flapping");
	CHECK(flows(a, b) && flows(b, a), "traffic after flapping");
}

/*
 * Unplugged mid-traffic: RMV once, stop and close still work; plugged
 * back, the application probes the device again (b's devargs are tc's
 * second device's).
 */
static void
test_unplug_replug(uint16_t a, uint16_t b)
{
	/* Counted before the ports were probed. */
	unsigned int pool0 = tc.pool0;

	unplug_mid_traffic(a, b, "vendor");
	{
		struct rte_eth_dev_info di;

		CHECK(rte_eth_dev_info_get(b, &di) == 0, "info");
		CHECK(rte_eth_dev_stop(b) == 0 && rte_eth_dev_close(b) == 0,
		      "stop/close after unplug");
		/* The application lets go of the device before a re-probe. */
		CHECK(rte_dev_remove(di.device) == 0, "remove");
	}
	CHECK(rte_eth_dev_stop(a) == 0, "stop a");
	CHECK(rte_mempool_avail_count(mp) == pool0, "%u of %u mbufs back",
	      rte_mempool_avail_count(mp), pool0);
	CHECK(rte_dev_probe(tc.devargs[1]) == 0, "re-probe");
	b = port_of(tc.dev[1]);
	if (b == RTE_MAX_ETHPORTS) {
		CHECK(0, "no port after re-probe");
		return;
	}
	CHECK(port_up(b, 0, 0) == 0 && rte_eth_dev_start(a) == 0,
	      "restart after replug");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link after replug");
	CHECK(flows(a, b), "traffic after replug");
	rte_eth_dev_stop(a);
	rte_eth_dev_stop(b);
	rte_eth_dev_close(a);
	rte_eth_dev_close(b);
	CHECK(rte_mempool_avail_count(mp) == pool0, "mbufs after faults");
}

/*
 * Link speeds and bus speeds other than the defaults: one loop device
 * after the other, under the name given.
 */
static void
test_speeds(const char *name)
{
	static const struct {
		const char *args;
		uint32_t speed;
	} cases[] = {
		{ "sim=ch398,link_speed=100", RTE_ETH_SPEED_NUM_100M },
		{ "sim=ch398,link_speed=10", RTE_ETH_SPEED_NUM_10M },
		{ "sim=ch397,link_speed=10", RTE_ETH_SPEED_NUM_10M },
		{ "sim=ch398,usb_speed=full", RTE_ETH_SPEED_NUM_1G },
		{ "sim=ch398,usb_speed=high", RTE_ETH_SPEED_NUM_1G },
	};
	struct rte_eth_link l;
	struct rte_mbuf *rx[64];
	unsigned int i, bad, got;
	char args[128];
	uint16_t p;

	for (i = 0; i < RTE_DIM(cases); i++) {
		snprintf(args, sizeof(args), "%s,wire=loop,%s", name,
			 cases[i].args);
		CHECK(rte_dev_probe(args) == 0, "probe %s", args);
		p = port_of(name);
		if (p == RTE_MAX_ETHPORTS)
			continue;
		CHECK(port_up(p, 0, 0) == 0 && wait_link(p, 1), "start %s",
		      args);
		CHECK(rte_eth_link_get_nowait(p, &l) == 0, "%s: link get", args);
		CHECK(l.link_speed == cases[i].speed, "%s: %u Mbit/s", args,
		      l.link_speed);
		bad = 0;
		got = send_recv(p, p, 1000, 40, rx, &bad);
		rte_pktmbuf_free_bulk(rx, got);
		CHECK(got == 40 && bad == 0, "%s: %u frames, %u bad", args,
		      got, bad);
		rte_eth_dev_stop(p);
		{
			struct rte_eth_dev_info di;

			CHECK(rte_eth_dev_info_get(p, &di) == 0, "%s: info",
			      args);
			rte_eth_dev_close(p);
			rte_dev_remove(di.device);
		}
	}
}

/*
 * A TCP/IPv4 super-frame of pay payload bytes as a chain of 2000-byte
 * segments, with TSO requested at mss (pseudo-header left by tx_prepare).
 */
static struct rte_mbuf *
make_tso(const struct rte_ether_addr *dst, const struct rte_ether_addr *src,
	 uint32_t pay, uint16_t mss)
{
	static uint8_t buf[70000];
	uint32_t len = 14 + 20 + 20 + pay, off, n, i;
	struct rte_mbuf *head = NULL, *m;
	uint8_t *d;

	memset(buf, 0, 54);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	buf[12] = 0x08;
	buf[14] = 0x45;
	buf[16] = (uint8_t)((len - 14) >> 8);
	buf[17] = (uint8_t)(len - 14);
	buf[18] = 0x12;
	buf[22] = 64;
	buf[23] = 6;
	buf[26] = 10; buf[29] = 1; buf[30] = 10; buf[33] = 2;
	buf[34] = 0x9C; buf[35] = 0x40;		/* port 40000 */
	buf[36] = 0x14; buf[37] = 0x51;		/* port 5201 */
	buf[41] = 100;				/* seq 100 */
	buf[46] = 0x50;
	buf[47] = 0x18;				/* ACK PSH */
	buf[48] = 0xFF; buf[49] = 0xFF;
	for (i = 54; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + (i >> 10));
	for (off = 0; off < len; off += n) {
		n = RTE_MIN(2000u, len - off);
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL)
			break;
		d = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		if (d == NULL) {
			rte_pktmbuf_free(m);
			break;
		}
		memcpy(d, buf + off, n);
		if (head == NULL)
			head = m;
		else if (rte_pktmbuf_chain(head, m) != 0)
			rte_pktmbuf_free(m);
	}
	if (head == NULL)
		return NULL;
	head->l2_len = 14;
	head->l3_len = 20;
	head->l4_len = 20;
	head->tso_segsz = mss;
	head->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
		RTE_MBUF_F_TX_IP_CKSUM;
	return head;
}

/* TSO through a port pair: segments count, bytes and checksums. */
static void
tso_case(uint16_t tx, uint16_t rx, uint32_t pay, uint16_t mss, bool hw)
{
	static uint8_t got[70000];
	uint32_t want = (pay + mss - 1) / mss, n = 0, bytes = 0, bad = 0;
	uint64_t hw0 = xstat(tx, "tx_tso_hw_frames");
	uint64_t sw0 = xstat(tx, "tx_tso_sw_frames");
	struct rte_ether_addr mt, mr;
	struct rte_mbuf *m, *r[64];
	uint64_t end;
	unsigned int k, i;

	rte_eth_macaddr_get(tx, &mt);
	rte_eth_macaddr_get(rx, &mr);
	m = make_tso(&mr, &mt, pay, mss);
	CHECK(m != NULL && rte_eth_tx_prepare(tx, 0, &m, 1) == 1,
	      "tx_prepare %u", pay);
	end = deadline_ms(WAIT_MS);
	while (m != NULL && rte_eth_tx_burst(tx, 0, &m, 1) != 1 &&
	       !expired(end))
		;
	end = deadline_ms(WAIT_MS);
	while (n < want && !expired(end)) {
		k = rte_eth_rx_burst(rx, 0, r, 64);
		for (i = 0; i < k; i++, n++) {
			struct rte_ipv4_hdr *ip;
			uint32_t seq, sl;
			uint8_t *tcp;

			ip = rte_pktmbuf_mtod_offset(r[i], struct rte_ipv4_hdr *,
						     14);
			tcp = (uint8_t *)(ip + 1);
			sl = r[i]->pkt_len - 54;
			seq = ((uint32_t)tcp[4] << 24 | (uint32_t)tcp[5] << 16 |
			       (uint32_t)tcp[6] << 8 | tcp[7]) - 100;
			bad += sl > mss || seq + sl > pay ||
				rte_ipv4_cksum(ip) != 0 ||
				rte_ipv4_udptcp_cksum_verify(ip, tcp) != 0;
			if (seq + sl <= pay)
				memcpy(got + seq, tcp + 20, sl);
			bytes += sl;
			rte_pktmbuf_free(r[i]);
		}
	}
	CHECK(n == want && bytes == pay && bad == 0,
	      "TSO %u/%u: %u of %u segments, %u bytes, %u bad", pay, mss, n,
	      want, bytes, bad);
	if (n != want) {
		dump_xstats(tx);
		if (rx != tx)
			dump_xstats(rx);
	}
	for (i = 0, k = 0; i < pay; i++)
		k += got[i] != (uint8_t)((i + 54) * 7 + ((i + 54) >> 10));
	CHECK(k == 0, "TSO %u/%u: %u payload bytes differ", pay, mss, k);
	CHECK(xstat(tx, hw ? "tx_tso_hw_frames" : "tx_tso_sw_frames") ==
	      (hw ? hw0 : sw0) + 1, "TSO %u/%u not done in %s", pay, mss,
	      hw ? "hardware" : "software");
}

static void
test_tso_pmd(uint16_t a, uint16_t b, uint16_t ch397)
{
	CHECK(port_up(ch397, 0, 0) == 0 && wait_link(ch397, 1), "ch397 up");
	rte_eth_promiscuous_enable(ch397);
	/* Within the chip's limits: the CH398 segments. */
	tso_case(a, b, 12000, 1448, true);
	tso_case(a, b, 1448 * 5, 1448, true);
	/* 64 KB super-frames exceed one transfer: software, chained. */
	tso_case(a, b, 65000 - 54, 1448, false);
	tso_case(b, a, 60000, 1000, false);
	/* Segments longer than the MTU allows are refused by tx_prepare. */
	{
		struct rte_ether_addr ma, mb;
		struct rte_mbuf *m;

		rte_eth_macaddr_get(a, &ma);
		rte_eth_macaddr_get(b, &mb);
		m = make_tso(&mb, &ma, 12000, 2060);
		CHECK(m != NULL && rte_eth_tx_prepare(a, 0, &m, 1) == 0 &&
		      rte_errno == EINVAL, "MSS 2060 at MTU 1500 prepared");
		rte_pktmbuf_free(m);
	}
	/* A CH397 has no TSO: software, through its loop. */
	tso_case(ch397, ch397, 30000, 1448, false);
	rte_eth_dev_stop(ch397);
}

/*
 * Issue 14: a software-TSO super-frame that needs more transfers than the
 * TX queue has goes out as the device completes them. A CH397 at USB full
 * speed with two transfers forces that boundary on every run: 30000/1448
 * is 21 segments, 11 transfers, and one 4 KiB transfer takes 2.7 ms on a
 * 12 Mbit/s bus, far longer than building the next. Every segment must
 * arrive (segment drops were the loss of the last one), and none dropped.
 */
static void
test_tso_small_queue(uint16_t p)
{
	uint64_t drops0;

	CHECK(port_up(p, 0, 0) == 0 && wait_link(p, 1), "ch397 up");
	rte_eth_promiscuous_enable(p);
	drops0 = xstat(p, "tx_tso_segment_drops");
	tso_case(p, p, 30000, 1448, false);
	tso_case(p, p, 65000 - 54, 1448, false);
	CHECK(xstat(p, "tx_tso_segment_drops") == drops0,
	      "%" PRIu64 " segments dropped",
	      xstat(p, "tx_tso_segment_drops") - drops0);
	CHECK(xstat(p, "tx_tso_waits") > 0, "no wait for a transfer");
}

/* A frame of len bytes a -> b through chains; whether it came intact. */
static bool
chain_trip(uint16_t a, uint16_t b, uint32_t len)
{
	struct rte_ether_addr ma, mb;
	struct rte_mbuf *m, *ref, *rx[2];
	bool ok = false;

	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	m = make_chain(&mb, &ma, len, (uint8_t)len, 1000);
	ref = make_chain(&mb, &ma, len, (uint8_t)len, 1500);
	if (m != NULL && ref != NULL && rte_eth_tx_burst(a, 0, &m, 1) == 1 &&
	    rx_wait(b, rx, 1) == 1) {
		ok = same_bytes(rx[0], ref);
		rte_pktmbuf_free(rx[0]);
	}
	rte_pktmbuf_free(ref);
	return ok;
}

/*
 * A frame of len bytes a -> b that a drops, counting it in its counter
 * name (reaching v): whether no frame came.
 */
static bool
chain_lost(uint16_t a, uint16_t b, uint32_t len, const char *name,
	   uint64_t v)
{
	struct rte_ether_addr ma, mb;
	struct rte_mbuf *m;

	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	m = make_chain(&mb, &ma, len, (uint8_t)len, 1000);
	if (m != NULL && rte_eth_tx_burst(a, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
	return rx_until_xstat(b, a, name, v) == 0;
}

/*
 * A pair of simulated CDC adapters (sim=ncm or sim=ecm and quirks), at
 * unlimited rate: a super-frame needing more transfers than the queue has
 * goes out only as fast as transfers complete, which at line rate depends
 * on how busy the machine is (the vendor tests cover line rate).
 */
struct cdc_case {
	const char *args;
	unsigned int div;	/* see test_all_sizes_as() */
	bool jumbo;		/* the device takes 9014-byte frames */
	bool rndis;		/* link from queries and indications */
};

/* Start a CDC pair: link up from the device's notifications. */
static void
cdc_up(uint16_t a, uint16_t b, const char *tag)
{
	CHECK(port_up(a, 0, 0) == 0 && port_up(b, 0, 0) == 0, "%s start", tag);
	CHECK(wait_link(a, 1) && wait_link(b, 1), "%s link up", tag);
}

/*
 * Traffic through a CDC pair: every size byte-exact both ways, filters,
 * link notifications, jumbo, software offloads and TSO.
 */
static void
test_cdc(uint16_t a, uint16_t b, const char *tag, const struct cdc_case *cc)
{
	unsigned int div = cc->div;
	bool agg = div != 0;
	struct rte_ether_addr ma;
	struct rte_eth_link l;
	int ca;

	cdc_up(a, b, tag);
	if (cc->rndis) {
		char fw[32];	/* testpmd's ETHDEV_FWVERS_LEN */
		/* The limits INITIALIZE gave (§20; f_rndis's with the quirk). */
		const char *want = strstr(cc->args, "rndis_single") ?
			"RNDIS 1.0 1 pkts/1580 B" : "RNDIS 1.0 16 pkts/16384 B";

		/* INITIALIZE, the address, the list size, the link: 5. */
		CHECK(xstat(a, "rndis_responses") >= 5, "%s responses %lu",
		      tag, (unsigned long)xstat(a, "rndis_responses"));
		CHECK(rte_eth_dev_fw_version_get(a, fw, sizeof(fw)) == 0 &&
		      strcmp(fw, want) == 0, "%s fw_version '%s', want '%s'",
		      tag, fw, want);
	} else
		CHECK(xstat(a, "cdc_notifications") >= 2,
		      "%s notifications %lu", tag,
		      (unsigned long)xstat(a, "cdc_notifications"));
	CHECK(rte_eth_link_get_nowait(a, &l) == 0, "%s link get", tag);
	CHECK(l.link_speed == RTE_ETH_SPEED_NUM_1G, "%s speed %u", tag,
	      l.link_speed);
	rte_eth_promiscuous_enable(a);
	rte_eth_promiscuous_enable(b);
	test_all_sizes_as(a, b, div);
	test_all_sizes_as(b, a, div);
	CHECK(xstat(a, "sim_tx_bad_records") == 0 &&
	      xstat(b, "sim_tx_bad_records") == 0, "%s device refused data",
	      tag);
	test_filters_as(a, b, false);

	/* Cable pull and plug: notifications, LSC, traffic after. */
	ca = lsc_count[a];
	CHECK(rte_pmd_ch39x_sim_set_cable(b, 0) == 0, "pull cable");
	CHECK(wait_lsc(a, ca) && wait_link(a, 0) && wait_link(b, 0),
	      "%s link down not seen", tag);
	CHECK(rte_pmd_ch39x_sim_set_cable(b, 1) == 0, "plug cable");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "%s link not back", tag);
	CHECK(rte_eth_dev_set_link_down(a) == -ENOTSUP,
	      "%s set_link_down without a PHY request", tag);
	rte_eth_macaddr_get(b, &ma);
	CHECK(one_frame(a, b, &ma), "%s traffic after link flap", tag);

	/* Software checksums, VLAN insertion and TSO. */
	test_offloads(a, b, false);
	tso_case(a, b, 30000, 1448, false);
	tso_case(b, a, 60000, 1000, false);

	if (cc->jumbo) {
		CHECK(port_up(a, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0 &&
		      port_up(b, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0,
		      "%s MTU 9000", tag);
		CHECK(wait_link(a, 1) && wait_link(b, 1), "link");
		CHECK(chain_trip(a, b, 9014) && chain_trip(b, a, 9014) &&
		      chain_trip(a, b, 4001), "%s jumbo frames", tag);
		if (!agg) {
			/*
			 * ECM sizes its RX transfers for the MTU at queue
			 * set-up; an MTU raised later grows them at start.
			 */
			CHECK(port_up(a, RTE_ETH_RX_OFFLOAD_SCATTER, 1500) == 0 &&
			      port_up(b, RTE_ETH_RX_OFFLOAD_SCATTER, 1500) == 0,
			      "%s MTU 1500", tag);
			CHECK(rte_eth_dev_stop(a) == 0 && rte_eth_dev_stop(b) == 0 &&
			      rte_eth_dev_set_mtu(a, 9000) == 0 &&
			      rte_eth_dev_set_mtu(b, 9000) == 0 &&
			      rte_eth_dev_start(a) == 0 &&
			      rte_eth_dev_start(b) == 0, "%s MTU 9000 restart",
			      tag);
			CHECK(wait_link(a, 1) && wait_link(b, 1), "link");
			CHECK(chain_trip(a, b, 9014) && chain_trip(b, a, 9014),
			      "%s jumbo after an MTU change", tag);
			CHECK(xstat(a, "rx_usb_overflows") == 0 &&
			      xstat(b, "rx_usb_overflows") == 0,
			      "%s RX transfers too small", tag);
		}
	} else if (agg) {
		/* A device that takes 1514-byte datagrams at most. */
		uint64_t inv = xstat(a, "tx_invalid_length_drops");

		CHECK(port_up(a, RTE_ETH_RX_OFFLOAD_SCATTER, 9000) == 0,
		      "%s MTU 9000", tag);
		CHECK(wait_link(a, 1), "link");
		CHECK(chain_lost(a, b, 4000, "tx_invalid_length_drops",
				 inv + 1), "%s 4000 bytes over a 1514 device",
		      tag);
		CHECK(xstat(a, "tx_invalid_length_drops") == inv + 1,
		      "%s over-long datagram not counted", tag);
		CHECK(chain_trip(a, b, 1514), "%s 1514 after", tag);
	}
}

/* The bytes a frame of make_chain()'s has on the wire, tag inserted. */
static uint32_t
wire_bytes(const struct rte_mbuf *m, uint8_t *out)
{
	const uint8_t *p = rte_pktmbuf_read(m, 0, m->pkt_len, out);
	uint32_t len = m->pkt_len;

	if (p != out)
		memcpy(out, p, len);
	if (m->ol_flags & RTE_MBUF_F_TX_VLAN) {
		memmove(out + 16, out + 12, len - 12);
		out[12] = 0x81;
		out[13] = 0x00;
		out[14] = (uint8_t)(m->vlan_tci >> 8);
		out[15] = (uint8_t)m->vlan_tci;
		len += 4;
	}
	return len;
}

/*
 * The CDC fast paths (issue 44): one burst whose frames the fast paths
 * take and hand on in turn arrives whole, in order, byte for byte, and
 * counted. In it: plain frames; frames with a tag to insert in software
 * and chained ones (the TX general path: ECM submits the fast path's
 * transfers between them); with NCM, frames over the receiver's MTU (in
 * the NTB with the others: dropped and counted by RX); with rx_copybreak
 * (the case's devargs), frames that long, attached among copied ones.
 * Then, for ECM, a receive call that takes more transfers than one of
 * its batches polls (64).
 */
static void
test_cdc_fast(uint16_t a, uint16_t b, const char *tag,
	      const struct cdc_case *cc)
{
	static const uint32_t lens[] = {
		60, 1514, 100, 3000, 512, 1024, 200, 1201, 3000, 1000,
		64, 1513, 1500, 999, 2048, 72,
	};
	static uint8_t want[RTE_DIM(lens)][9300], got_b[9300];
	const bool ncm = cc->div != 0;
	const uint32_t cb = strstr(cc->args, "rx_copybreak=1000") ? 1000 : 0;
	uint32_t wlen[RTE_DIM(lens)], i, k, n = 0, bad = 0, attached = 0;
	uint64_t drops0, zc0, wbytes = 0, dropped = 0, obytes = 0;
	struct rte_mbuf *tx[RTE_DIM(lens)], *rx[128];
	unsigned int exp[RTE_DIM(lens)], nexp = 0, got, sent;
	struct rte_ether_addr ma, mb;
	struct rte_eth_stats sa, sb;

	/* The sender takes 3000-byte frames; the receiver's MTU is 1500. */
	CHECK(port_up2(a, RTE_ETH_RX_OFFLOAD_SCATTER,
		       RTE_ETH_TX_OFFLOAD_VLAN_INSERT |
		       RTE_ETH_TX_OFFLOAD_MULTI_SEGS, ncm ? 3000 : 1500) == 0 &&
	      port_up(b, 0, 1500) == 0, "%s ports up", tag);
	CHECK(wait_link(a, 1) && wait_link(b, 1), "%s link", tag);
	rte_eth_promiscuous_enable(a);
	rte_eth_promiscuous_enable(b);
	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	rte_eth_stats_reset(a);
	rte_eth_stats_reset(b);
	drops0 = xstat(b, "rx_oversize_mtu_drops");
	zc0 = xstat(b, "rx_zerocopy_frames");
	for (i = 0; i < RTE_DIM(lens); i++) {
		if (!ncm && lens[i] > 1514)
			continue;
		/* Every third frame chained, every fourth tagged. */
		tx[n] = make_chain(&mb, &ma, lens[i], (uint8_t)(i * 17),
				   i % 3 == 1 ? 700 : 2000);
		if (tx[n] == NULL)
			break;
		if (i % 4 == 3 && lens[i] + 4 <= 1518) {
			tx[n]->ol_flags |= RTE_MBUF_F_TX_VLAN;
			tx[n]->vlan_tci = (uint16_t)(0x100 + i);
		}
		wlen[n] = wire_bytes(tx[n], want[n]);
		obytes += wlen[n];
		if (wlen[n] > 1518) {
			dropped++;
		} else {
			exp[nexp++] = n;
			wbytes += wlen[n];
		}
		n++;
	}
	for (sent = 0, k = 0; sent < n && k < 100; k++)
		sent += rte_eth_tx_burst(a, 0, tx + sent, (uint16_t)(n - sent));
	CHECK(sent == n, "%s sent %u of %u", tag, sent, n);
	got = rx_wait(b, rx, nexp);
	CHECK(got == nexp, "%s received %u of %u", tag, got, nexp);
	for (i = 0; i < got && i < nexp; i++) {
		uint32_t j = exp[i];

		if (rx[i]->pkt_len != wlen[j] ||
		    memcmp(rte_pktmbuf_read(rx[i], 0, wlen[j], got_b),
			   want[j], wlen[j]) != 0)
			bad++;
		if (RTE_MBUF_HAS_EXTBUF(rx[i])) {
			attached++;
			if (cb == 0 || wlen[j] < cb)
				bad++;
		} else if (cb && wlen[j] >= cb) {
			bad++;
		}
	}
	CHECK(bad == 0, "%s: %u frames differ, out of order or wrongly "
	      "attached", tag, bad);
	if (got)
		rte_pktmbuf_free_bulk(rx, got);
	CHECK(xstat(b, "rx_oversize_mtu_drops") == drops0 + dropped,
	      "%s rx_oversize_mtu_drops %lu, want %lu", tag,
	      (unsigned long)(xstat(b, "rx_oversize_mtu_drops") - drops0),
	      (unsigned long)dropped);
	CHECK(xstat(b, "rx_zerocopy_frames") - zc0 == attached,
	      "%s rx_zerocopy_frames %lu, %u attached", tag,
	      (unsigned long)(xstat(b, "rx_zerocopy_frames") - zc0), attached);
	CHECK(cb == 0 || attached > 0, "%s nothing attached", tag);
	rte_eth_stats_get(a, &sa);
	rte_eth_stats_get(b, &sb);
	CHECK(sa.opackets == n && sa.obytes == obytes,
	      "%s tx %lu/%lu, want %u/%lu", tag, (unsigned long)sa.opackets,
	      (unsigned long)sa.obytes, n, (unsigned long)obytes);
	CHECK(sb.ipackets == nexp && sb.ibytes == wbytes &&
	      sb.ierrors == dropped, "%s rx %lu/%lu/%lu, want %u/%lu/%lu", tag,
	      (unsigned long)sb.ipackets, (unsigned long)sb.ibytes,
	      (unsigned long)sb.ierrors, nexp, (unsigned long)wbytes,
	      (unsigned long)dropped);
	CHECK(xstat(b, "rx_frames") == nexp + dropped, "%s rx_frames %lu",
	      tag, (unsigned long)xstat(b, "rx_frames"));
	if (!ncm) {
		CHECK(xstat(a, "tx_usb_xfers") == n &&
		      xstat(b, "rx_usb_xfers") == n, "%s transfers %lu %lu",
		      tag, (unsigned long)xstat(a, "tx_usb_xfers"),
		      (unsigned long)xstat(b, "rx_usb_xfers"));
		/* 100 frames, then one receive call takes them all. */
		for (i = 0; i < 100; i++)
			rx[i] = make_frame(&mb, &ma, 60, (uint8_t)i);
		for (sent = 0, k = 0; sent < 100 && k < 100; k++)
			sent += rte_eth_tx_burst(a, 0, rx + sent,
						 (uint16_t)(100 - sent));
		CHECK(sent == 100, "%s 100 sent: %u", tag, sent);
		got = rte_eth_rx_burst(b, 0, rx, 128);
		got += rx_wait(b, rx + got, 100 - got);
		CHECK(got == 100, "%s 100 received: %u", tag, got);
		for (i = 0, bad = 0; i < got; i++)
			bad += rx[i]->pkt_len != 60 ||
				rte_pktmbuf_mtod(rx[i], uint8_t *)[14] !=
				(uint8_t)(i + 14 * 7);
		CHECK(bad == 0, "%s %u of 100 out of order or wrong", tag, bad);
		rte_pktmbuf_free_bulk(rx, got);
	}
	CHECK(port_up(a, 0, 0) == 0 && port_up(b, 0, 0) == 0, "%s ports back",
	      tag);
}

/*
 * Faults of a CDC pair: garbage from the device (counted, dropped,
 * traffic goes on), stalls on each bulk endpoint, and an unplug
 * mid-traffic; then the port's counters say what happened, no leak.
 */
static void
test_cdc_faults(uint16_t a, uint16_t b, const char *tag,
		const struct cdc_case *cc)
{
	static const struct rte_ether_addr bcast = {{ 0xff, 0xff, 0xff, 0xff,
						      0xff, 0xff }};
	bool agg = cc->div != 0;
	struct rte_ether_addr ma;
	uint16_t p[2] = { a, b };
	uint64_t bad;
	int i;

	cdc_up(a, b, tag);
	rte_eth_promiscuous_enable(a);
	rte_eth_promiscuous_enable(b);

	/* Garbage from the device: counted, dropped, traffic goes on. */
	bad = xstat(b, "rx_usb_overflows");
	CHECK(rte_pmd_ch39x_sim_fault(b, RTE_PMD_CH39X_EP_BULK_IN,
				      RTE_PMD_CH39X_FAULT_GARBAGE, 16) == 0,
	      "garbage fault");
	/* Frames that garbage replaces are lost: a short wait each. */
	for (i = 0; i < 40; i++)
		one_frame_ms(a, b, &bcast, 100);
	{
		struct rte_eth_stats st;

		rte_eth_stats_get(b, &st);
		CHECK(agg ? st.ierrors > 0 : xstat(b, "rx_frames") > 0,
		      "%s garbage not counted", tag);
	}
	CHECK(xstat(b, "rx_usb_overflows") == bad, "overflow from garbage");
	rte_eth_macaddr_get(b, &ma);
	CHECK(one_frame(a, b, &ma), "%s traffic after garbage", tag);

	/* A stall on each bulk endpoint: cleared, traffic resumes. */
	CHECK(rte_pmd_ch39x_sim_fault(b, RTE_PMD_CH39X_EP_BULK_IN,
				      RTE_PMD_CH39X_FAULT_STALL, 1) == 0 &&
	      rte_pmd_ch39x_sim_fault(a, RTE_PMD_CH39X_EP_BULK_OUT,
				      RTE_PMD_CH39X_FAULT_STALL, 1) == 0,
	      "stall faults");
	one_frame_ms(a, b, &ma, 100);
	for (i = 0; i < 10 && !one_frame_ms(a, b, &ma, 1000); i++)
		;
	CHECK(i < 10, "%s no traffic after stalls", tag);
	CHECK(xstat(b, "rx_usb_stalls") >= 1 && xstat(a, "tx_usb_stalls") >= 1,
	      "%s stalls not counted", tag);

	/* Unplugged mid-traffic: one RMV, the peer loses its link, no leak. */
	unplug_mid_traffic(a, b, tag);
	for (i = 0; i < 2; i++) {
		struct rte_eth_dev_info di;

		CHECK(rte_eth_dev_stop(p[i]) == 0, "stop");
		CHECK(rte_eth_dev_info_get(p[i], &di) == 0 &&
		      rte_dev_remove(di.device) == 0, "remove");
	}
	CHECK(rte_mempool_avail_count(mp) == tc.pool0, "%s: %u of %u mbufs "
	      "back", tag, rte_mempool_avail_count(mp), tc.pool0);
}

/*
 * A vendor request failing anywhere in probe fails probe cleanly; the
 * device is probed under the name given.
 */
static void
test_probe_faults(const char *name)
{
	uint16_t before = rte_eth_dev_count_avail();
	char args[160];
	unsigned int n, failed_probes = 0;

	for (n = 1; n <= 40; n++) {
		snprintf(args, sizeof(args), "%s,wire=loop,sim_ctrl_fail=%u",
			 name, n);
		if (rte_dev_probe(args) != 0) {
			failed_probes++;
			CHECK(port_of(name) == RTE_MAX_ETHPORTS,
			      "half-probed port after request %u failed", n);
			continue;
		}
		/* Probe did fewer requests than n: the failure comes later. */
		rte_eth_dev_close(port_of(name));
		break;
	}
	CHECK(failed_probes >= 8 && n <= 40, "%u probes failed", failed_probes);
	CHECK(rte_eth_dev_count_avail() == before, "ports leaked");
}

static void
test_bad_devargs(void)
{
	static const char * const bad[] = {
		"net_ch39x_b,sim=ch999",
		"net_ch39x_b,colour=blue",
		/* rte_kvargs alone takes this as sim_rx_hold=901:03 */
		"net_ch39x_b,colour=x:y=sim_rx_hold=901:03",
		"net_ch39x_b,usb_speed=warp",
		"net_ch39x_b,sim=ch397,usb_speed=super",
		"net_ch39x_b,wire=serial",
		"net_ch39x_b,wire=pair:",
		"net_ch39x_b,wire=pcap::",
		"net_ch39x_b,wire=pcap:/nonexistent/in.pcap:",
		"net_ch39x_b,mac=01:00:5e:00:00:01",
		"net_ch39x_b,mac=zz",
		"net_ch39x_b,rx_xfers=0",
		"net_ch39x_b,tx_xfers=257",
		"net_ch39x_b,rx_xfers=-1",
		"net_ch39x_b,xfer_size=1000",
		"net_ch39x_b,xfer_size=3000",
		"net_ch39x_b,tso=hw",
		"net_ch39x_b,rx_csum=yes",
		"net_ch39x_b,rx_copybreak=59",
		"net_ch39x_b,link_speed=1000,sim=ch397",
		"net_ch39x_b,link_speed=25",
		"net_ch39x_b,sim_rate=fast",
		"net_ch39x_b,sim_ctrl_fail=0",
		"net_ch39x_b,usb_speed=low",
		"net_ch39x_b,tso",
		"net_ch39x_b,dev=zz",
		"net_ch39x_b,dev=1a86:5398,wire=loop",
		"net_ch39x_b,path=2-x",
		"net_ch39x_b,dev=1a86:5398,proto=usb4",
		"net_ch39x_b,proto=ncm",	/* proto without a real device */
		"net_ch39x_b,sim=ch397,sim_quirks=ndp_end",
		"net_ch39x_b,sim=ncm,sim_quirks=ndp_end+",
		"net_ch39x_b,sim=ncm,sim_ntb_out_max=1024",
		"net_ch39x_b,sim=ncm,sim_ntb_in_max=65536",
		"net_ch39x_b,sim=ecm,sim_ntb_in_max=32768",
		"net_ch39x_b,sim=ecm,sim_max_segment=9217",
		"net_ch39x_b,sim=ncm,ncm_tx_ndp=middle",
		"net_ch39x_b,wire=tap:",
		"net_ch39x_b,wire=tap:abcdefghijklmnop",
		"net_ch39x_b,dev=1a86:5398,proto=vendor",	/* none here */
		"net_ch39x_b,serial=nosuchserial",
		"net_ch39x_b,wire=loop,mac",
		/* The pair of case bad_devargs has two already. */
		"net_ch39x_b,wire=pair:bad_devargs",
	};
	uint16_t before = rte_eth_dev_count_avail();
	unsigned int i;

	for (i = 0; i < RTE_DIM(bad); i++) {
		CHECK(rte_dev_probe(bad[i]) != 0, "probe accepted %s", bad[i]);
		CHECK(port_of("net_ch39x_b") == RTE_MAX_ETHPORTS,
		      "port left behind by %s", bad[i]);
	}
	CHECK(rte_eth_dev_count_avail() == before, "ports leaked");
}

/* ---- the cases: set-up, tear-down, table ---- */

/*
 * Probe net_ch39x_<case><n> with args, the case's nth device; returns its
 * port.
 */
static uint16_t
case_probe(const char *args)
{
	char name[RTE_DEV_NAME_MAX_LEN];
	unsigned int i = tc.nb_devs;

	if (i == CASE_MAX_DEVS) {
		CHECK(0, "more than %d devices", CASE_MAX_DEVS);
		return RTE_MAX_ETHPORTS;
	}
	tc.nb_devs++;
	snprintf(name, sizeof(name), "net_ch39x_%s%u", tc.c->name, i);
	rte_strlcpy(tc.dev[i], name, sizeof(tc.dev[i]));
	snprintf(tc.devargs[i], sizeof(tc.devargs[i]), "%s,%s", name, args);
	CHECK(rte_dev_probe(tc.devargs[i]) == 0, "probe %s", tc.devargs[i]);
	tc.port[i] = port_of(tc.dev[i]);
	return tc.port[i];
}

/* A device the case probes itself: its tear-down removes it too. */
static const char *
case_track(const char *name)
{
	unsigned int i = tc.nb_devs;

	if (i == CASE_MAX_DEVS) {
		CHECK(0, "more than %d devices", CASE_MAX_DEVS);
		return name;
	}
	tc.nb_devs++;
	rte_strlcpy(tc.dev[i], name, sizeof(tc.dev[i]));
	tc.port[i] = RTE_MAX_ETHPORTS;
	return tc.dev[i];
}

/* Two devices cabled to each other as "wire=pair:<case>", plus extra. */
static int
probe_pair(const char *extra)
{
	char args[200];

	snprintf(args, sizeof(args), "wire=pair:%s%s%s", tc.c->name,
		 extra != NULL ? "," : "", extra != NULL ? extra : "");
	if (case_probe(args) == RTE_MAX_ETHPORTS ||
	    case_probe(args) == RTE_MAX_ETHPORTS)
		return -1;
	return 0;
}

/* A vendor pair (extra devargs: the case's data) started, link up. */
static int
setup_pair_quiet(void)
{
	uint16_t a, b;

	if (probe_pair(tc.c->data) != 0)
		return -1;
	a = tc.port[0];
	b = tc.port[1];
	CHECK(port_up(a, 0, 0) == 0 && port_up(b, 0, 0) == 0, "start");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link up");
	return 0;
}

/* The same, both ports promiscuous. */
static int
setup_pair(void)
{
	if (setup_pair_quiet() != 0)
		return -1;
	rte_eth_promiscuous_enable(tc.port[0]);
	rte_eth_promiscuous_enable(tc.port[1]);
	return 0;
}

/* A promiscuous pair and a CH397 on a loop, probed, not started. */
static int
setup_pair_ch397(void)
{
	if (setup_pair() != 0 ||
	    case_probe("sim=ch397,wire=loop") == RTE_MAX_ETHPORTS)
		return -1;
	return 0;
}

/* One device with the case's devargs, probed. */
static int
setup_one(void)
{
	return case_probe(tc.c->data) == RTE_MAX_ETHPORTS ? -1 : 0;
}

/* A CDC pair of the case's cdc_case, probed. */
static int
setup_cdc(void)
{
	const struct cdc_case *cc = tc.c->data;

	return probe_pair(cc->args);
}

/*
 * Stop and close every port the case probed, remove its devices (those
 * left), and check that every mbuf is back in the pool.
 */
static void
teardown_ports(void)
{
	unsigned int i = tc.nb_devs, avail;
	uint16_t p;

	while (i-- > 0) {
		p = port_of(tc.dev[i]);
		if (p != RTE_MAX_ETHPORTS) {
			CHECK(rte_eth_dev_stop(p) == 0, "stop %s", tc.dev[i]);
			CHECK(rte_eth_dev_close(p) == 0, "close %s", tc.dev[i]);
		}
		/* Fails when the case removed the device itself. */
		(void)rte_vdev_uninit(tc.dev[i]);
	}
	avail = rte_mempool_avail_count(mp);
	CHECK(avail == tc.pool0, "%s: %u of %u mbufs back", tc.c->name, avail,
	      tc.pool0);
}

static void
tc_info(void)
{
	test_info(tc.port[0], tc.port[2]);
}

static void
tc_all_sizes(void)
{
	test_all_sizes(tc.port[0], tc.port[1]);
	test_all_sizes(tc.port[1], tc.port[0]);
}

static void
tc_filters(void)
{
	test_filters(tc.port[0], tc.port[1]);
}

static void
tc_link(void)
{
	test_link(tc.port[0], tc.port[1]);
}

static void
tc_jumbo(void)
{
	test_jumbo(tc.port[0], tc.port[1]);
}

static void
tc_offloads_hw(void)
{
	test_offloads(tc.port[0], tc.port[1], true);
}

static void
tc_tso_small_queue(void)
{
	test_tso_small_queue(tc.port[0]);
}

static void
tc_tso_pmd(void)
{
	test_tso_pmd(tc.port[0], tc.port[1], tc.port[2]);
}

/* A CH397 on a loop with rx_csum=sw: every offload in software. */
static void
tc_offloads_sw(void)
{
	test_offloads(tc.port[0], tc.port[0], false);
}

static void
tc_bad_devargs(void)
{
	case_track("net_ch39x_b");
	test_bad_devargs();
}

static void
tc_cdc(void)
{
	test_cdc(tc.port[0], tc.port[1], tc.c->name, tc.c->data);
}

static void
tc_cdc_fast(void)
{
	test_cdc_fast(tc.port[0], tc.port[1], tc.c->name, tc.c->data);
}

static void
tc_cdc_faults(void)
{
	test_cdc_faults(tc.port[0], tc.port[1], tc.c->name, tc.c->data);
}

static void
tc_zerocopy(void)
{
	test_zerocopy(tc.port[0], tc.port[1]);
}

static void
tc_usb_faults(void)
{
	test_usb_faults(tc.port[0], tc.port[1]);
}

static void
tc_tx_error_frames(void)
{
	test_tx_error_frames(tc.port[0], tc.port[1]);
}

static void
tc_unplug_before_start(void)
{
	unplug_not_started(tc.port[0], RTE_MAX_ETHPORTS, "before start");
}

static void
tc_unplug_stopped(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];

	CHECK(wait_link(a, 1) && wait_link(b, 1), "link up");
	CHECK(rte_eth_dev_stop(b) == 0, "stop");
	unplug_not_started(b, a, "stopped");
}

static void
tc_ctrl_fail(void)
{
	test_ctrl_fail(tc.port[1]);
}

static void
tc_link_flap_load(void)
{
	test_link_flap_load(tc.port[0], tc.port[1]);
}

static void
tc_unplug_replug(void)
{
	test_unplug_replug(tc.port[0], tc.port[1]);
}


/* ---- reconnect=on (issue 25): the port outlives its device ---- */

/* Wait until xstat name of port reaches at least v. */
static bool
wait_xstat(uint16_t port, const char *name, uint64_t v)
{
	uint64_t end = deadline_ms(WAIT_MS);

	while (xstat(port, name) < v && !expired(end))
		usleep(1000);
	return xstat(port, name) >= v;
}

/*
 * Unplug p's device: link down with an LSC event, no RMV; RX empty; TX
 * taken, dropped and counted (tx_device_gone_drops and oerrors).
 */
static void
reconnect_gone(uint16_t p, bool started, const char *tag)
{
	struct rte_ether_addr ma;
	struct rte_eth_stats st0, st1;
	struct rte_mbuf *m[10], *rx[8];
	uint64_t d0 = xstat(p, "tx_device_gone_drops");
	int lsc = lsc_count[p];
	unsigned int i, k = 0;

	rmv_count[p] = 0;
	CHECK(rte_eth_dev_callback_register(p, RTE_ETH_EVENT_INTR_RMV, event_cb,
					    rmv_count) == 0, "%s rmv cb", tag);
	CHECK(rte_eth_dev_callback_register(p, RTE_ETH_EVENT_INTR_LSC, event_cb,
					    lsc_count) == 0 || true, "lsc cb");
	CHECK(rte_pmd_ch39x_sim_unplug(p) == 0, "%s unplug", tag);
	if (started) {
		CHECK(wait_lsc(p, lsc), "%s: no LSC at removal", tag);
		CHECK(wait_link(p, 0), "%s: link up while gone", tag);
		/* A burst now finds the device gone (bounded by the wait). */
		rte_eth_macaddr_get(p, &ma);
		rte_eth_stats_get(p, &st0);
		for (i = 0; i < RTE_DIM(m); i++) {
			m[i] = make_frame(&ma, &ma, 100, (uint8_t)i);
			k += m[i] != NULL;
		}
		CHECK(k == RTE_DIM(m), "%s mbufs", tag);
		if (k == RTE_DIM(m)) {
			/* The first burst may still meet the device leaving. */
			uint64_t end = deadline_ms(WAIT_MS);

			while (xstat(p, "tx_device_gone_drops") == d0 &&
			       !expired(end)) {
				struct rte_mbuf *one = make_frame(&ma, &ma, 60,
								  0);

				if (one != NULL &&
				    rte_eth_tx_burst(p, 0, &one, 1) != 1)
					rte_pktmbuf_free(one);
				usleep(1000);
			}
			d0 = xstat(p, "tx_device_gone_drops");
			rte_eth_stats_get(p, &st0);
			CHECK(rte_eth_tx_burst(p, 0, m, RTE_DIM(m)) ==
			      RTE_DIM(m), "%s: TX refused frames while gone",
			      tag);
			CHECK(xstat(p, "tx_device_gone_drops") == d0 + 10,
			      "%s: %" PRIu64 " frames counted as dropped, not "
			      "10", tag, xstat(p, "tx_device_gone_drops") - d0);
			rte_eth_stats_get(p, &st1);
			CHECK(st1.oerrors == st0.oerrors + 10 &&
			      st1.opackets == st0.opackets,
			      "%s: oerrors +%" PRIu64 ", opackets +%" PRIu64,
			      tag, st1.oerrors - st0.oerrors,
			      st1.opackets - st0.opackets);
		} else {
			rte_pktmbuf_free_bulk(m, RTE_DIM(m));
		}
		CHECK(rte_eth_rx_burst(p, 0, rx, RTE_DIM(rx)) == 0,
		      "%s: RX while gone", tag);
	}
	/* No RMV in a few reconnect rounds (waiting for nothing takes time). */
	usleep(300 * 1000);
	CHECK(rmv_count[p] == 0, "%s: %d RMV events with reconnect=on", tag,
	      rmv_count[p]);
	if (started)
		CHECK(xstat(p, "reconnects") == 0, "%s: reconnected while gone",
		      tag);
}

/* Back: counted, time recorded, link up when started. */
static void
reconnect_back(uint16_t p, uint64_t n, bool started, const char *tag)
{
	CHECK(wait_xstat(p, "reconnects", n), "%s: %" PRIu64 " reconnects, "
	      "not %" PRIu64, tag, xstat(p, "reconnects"), n);
	CHECK(xstat(p, "reconnect_last_us") > 0, "%s: no reconnect time", tag);
	if (started)
		CHECK(wait_link(p, 1), "%s: link not back", tag);
	CHECK(rmv_count[p] == 0, "%s: RMV", tag);
}

/*
 * Started, unplugged mid-traffic, back: the port as the application set
 * it (address, promiscuous) though the device came back in its power-on
 * state; frames to the set address and to a foreign address
 * (promiscuous) arrive; LSC at the removal and at the return.
 */
static void
tc_reconnect_started(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	struct rte_ether_addr set = {{ 0x02, 0x25, 0x00, 0x00, 0x00, 0x01 }};
	struct rte_ether_addr foreign = {{ 0x02, 0x25, 0, 0, 0, 0x99 }};
	int lsc;

	CHECK(rte_eth_dev_default_mac_addr_set(b, &set) == 0, "set mac");
	CHECK(rte_eth_promiscuous_enable(b) == 0, "promisc");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link");
	CHECK(flows(a, b), "no traffic before");
	reconnect_gone(b, true, "started");
	CHECK(wait_link(a, 0), "peer kept its link");
	lsc = lsc_count[b];
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replug");
	reconnect_back(b, 1, true, "started");
	CHECK(wait_lsc(b, lsc), "no LSC at return");
	CHECK(flows(a, b), "traffic to the set address did not resume");
	CHECK(one_frame_ms(a, b, &foreign, 1000),
	      "promiscuous mode not restored");
}

/*
 * Unplugged while stopped, back while stopped, then started. How the
 * stopped port learnt of both, by its xstats: presence=events from the
 * bus's events alone (the removal and the return: two at least, no
 * GET_STATUS ever), presence=poll from the presence alarm's requests.
 */
static void
reconnect_stopped(bool events)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	uint64_t polls;

	CHECK(wait_link(b, 1), "link");
	CHECK(rte_eth_dev_stop(b) == 0, "stop");
	polls = xstat(b, "presence_polls");
	reconnect_gone(b, false, "stopped");
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replug");
	reconnect_back(b, 1, false, "stopped");
	if (events) {
		CHECK(xstat(b, "presence_polls") == 0, "%" PRIu64 " GET_STATUS "
		      "asked with presence=events", xstat(b, "presence_polls"));
		CHECK(xstat(b, "bus_events") >= 2, "%" PRIu64 " bus events, "
		      "not 2 or more", xstat(b, "bus_events"));
	} else {
		CHECK(xstat(b, "presence_polls") > polls, "no GET_STATUS asked "
		      "with presence=poll");
		CHECK(xstat(b, "bus_events") == 0, "%" PRIu64 " bus events "
		      "with presence=poll", xstat(b, "bus_events"));
	}
	CHECK(rte_eth_dev_start(b) == 0, "start after return");
	CHECK(wait_link(b, 1) && flows(a, b), "no traffic after start");
}

static void
tc_reconnect_stopped(void)
{
	reconnect_stopped(true);
}

static void
tc_reconnect_stopped_poll(void)
{
	reconnect_stopped(false);
}

/*
 * Unplugged before the first start; started while gone (remembered, not
 * refused); back: the port starts by itself and a loop carries frames.
 */
static void
tc_reconnect_before_start(void)
{
	uint16_t p = tc.port[0];

	reconnect_gone(p, false, "before start");
	CHECK(port_up(p, 0, 0) == 0, "start while gone");
	CHECK(rte_pmd_ch39x_sim_replug(p, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replug");
	reconnect_back(p, 1, true, "before start");
	rte_eth_promiscuous_enable(p);
	CHECK(flows(p, p), "no traffic on the loop");
}

/* Unplugged while started, stopped while gone, back: stays stopped. */
static void
tc_reconnect_back_stopped(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];

	CHECK(wait_link(b, 1), "link");
	reconnect_gone(b, true, "back stopped");
	CHECK(rte_eth_dev_stop(b) == 0, "stop while gone");
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replug");
	reconnect_back(b, 1, false, "back stopped");
	{
		/* Not restarted: the interrupt endpoint is not polled. */
		uint64_t polls = xstat(b, "intr_polls");

		usleep(100 * 1000);
		CHECK(xstat(b, "intr_polls") == polls,
		      "stopped port restarted at the return");
	}
	CHECK(rte_eth_dev_start(b) == 0, "start");
	CHECK(wait_link(b, 1) && flows(a, b), "no traffic after start");
}

/*
 * Another chip, then the same chip with another serial number, come back
 * in the port's place: both refused (counted), the port keeps waiting;
 * then its own device returns and the port is back.
 */
static void
tc_reconnect_other(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];

	CHECK(wait_link(b, 1), "link");
	reconnect_gone(b, true, "other");
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_OTHER_CHIP) == 0,
	      "replug other chip");
	CHECK(wait_xstat(b, "reconnect_refused", 1), "other chip not refused");
	CHECK(rte_pmd_ch39x_sim_unplug(b) == 0, "unplug");
	CHECK(rte_pmd_ch39x_sim_replug(b,
				       RTE_PMD_CH39X_REPLUG_OTHER_SERIAL) == 0,
	      "replug other serial");
	CHECK(wait_xstat(b, "reconnect_refused", 2), "other serial not refused");
	CHECK(xstat(b, "reconnects") == 0, "another device taken");
	CHECK(wait_link(b, 0), "link up on another device");
	CHECK(rte_pmd_ch39x_sim_unplug(b) == 0, "unplug");
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replug");
	reconnect_back(b, 1, true, "other");
	CHECK(flows(a, b), "no traffic after the own device returned");
}

/* Never back: the port waits, drops, and closes cleanly (no leak). */
static void
tc_reconnect_never(void)
{
	uint16_t b = tc.port[1];

	CHECK(wait_link(b, 1), "link");
	reconnect_gone(b, true, "never");
	CHECK(rte_eth_dev_stop(b) == 0, "stop while gone");
	CHECK(rte_eth_dev_close(b) == 0, "close while gone");
}

/*
 * The device leaves again in the middle of its re-initialisation (at its
 * third request): the port keeps waiting; the next return recovers it.
 */
static void
tc_reconnect_flaky(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	uint64_t end;

	CHECK(wait_link(b, 1), "link");
	reconnect_gone(b, true, "flaky");
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_FLAKY) == 0,
	      "replug flaky");
	/* Replugging works once the device has left again. */
	end = deadline_ms(WAIT_MS);
	while (rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) != 0 &&
	       !expired(end))
		usleep(1000);
	CHECK(!expired(end), "the flaky device never left again");
	reconnect_back(b, 1, true, "flaky");
	CHECK(flows(a, b), "no traffic after the second return");
}


static int
cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * RECONNECT_CYCLES unplug/replug cycles of a started port with traffic
 * between them: every one recovered (reconnects counts them all), frames
 * flow after each, no mbuf kept (tear-down). Prints the time from removal
 * to the restored port (reconnect_last_us): median, min, max; under a
 * simulated device with the CH398's probe delays, not a performance
 * figure.
 */
#define RECONNECT_CYCLES 20
static void
tc_reconnect_cycles(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	uint64_t us[RECONNECT_CYCLES];
	unsigned int i, ok = 0;

	CHECK(wait_link(b, 1), "link");
	for (i = 0; i < RECONNECT_CYCLES; i++) {
		int lsc = lsc_count[b];

		if (rte_pmd_ch39x_sim_unplug(b) != 0 || !wait_lsc(b, lsc))
			break;
		/* TX while gone: taken and dropped. */
		rte_eth_tx_burst(b, 0, NULL, 0);
		if (rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) != 0 ||
		    !wait_xstat(b, "reconnects", i + 1) || !wait_link(b, 1) ||
		    !flows(a, b))
			break;
		us[i] = xstat(b, "reconnect_last_us");
		ok++;
	}
	CHECK(ok == RECONNECT_CYCLES, "%u of %u cycles recovered", ok,
	      RECONNECT_CYCLES);
	/*
	 * At least one per cycle. One more was counted once (DPDK 24.11
	 * build, CI at load 3): a second removal and return of one cycle's
	 * device, not yet explained; printed when it happens.
	 */
	CHECK(xstat(b, "reconnects") >= ok, "reconnects %" PRIu64 ", cycles %u",
	      xstat(b, "reconnects"), ok);
	if (xstat(b, "reconnects") != ok)
		printf("reconnect_cycles: %" PRIu64 " reconnects in %u cycles\n",
		       xstat(b, "reconnects"), ok);
	if (ok != 0) {
		qsort(us, ok, sizeof(us[0]), cmp_u64);
		printf("reconnect_cycles: %u of %u recovered; removal to "
		       "restored port: median %" PRIu64 " us, min %" PRIu64
		       ", max %" PRIu64 "\n", ok, RECONNECT_CYCLES, us[ok / 2],
		       us[0], us[ok - 1]);
	}
}

/* The device name of a case that probes its own: net_ch39x_<case>. */
static const char *
case_own_name(void)
{
	char name[RTE_DEV_NAME_MAX_LEN];

	snprintf(name, sizeof(name), "net_ch39x_%s", tc.c->name);
	return case_track(name);
}

static void
tc_probe_faults(void)
{
	test_probe_faults(case_own_name());
}

static void
tc_speeds(void)
{
	test_speeds(case_own_name());
}

struct end_marks_case {
	const char *args;
	const char *counter;
};

static int
setup_end_marks(void)
{
	const struct end_marks_case *em = tc.c->data;

	return case_probe(em->args) == RTE_MAX_ETHPORTS ? -1 : 0;
}

static void
tc_end_marks(void)
{
	const struct end_marks_case *em = tc.c->data;

	test_end_marks(tc.port[0], em->args, em->counter);
}

static const struct cdc_case cdc_ncm = {
	"sim=ncm,sim_max_segment=9014,rx_csum=sw,sim_rate=unlimited,"
	"reconnect=off", 8, true, false,
};
static const struct cdc_case cdc_ncm_quirks = {
	"sim=ncm,sim_quirks=ndp_end+ntb32_only+no_max_datagram,"
	"sim_ntb_out_max=2048,ncm_tx_ndp=end,rx_csum=sw,sim_rate=unlimited,"
	"reconnect=off",
	1, false, false,
};
static const struct cdc_case cdc_ecm = {
	"sim=ecm,sim_max_segment=9014,rx_csum=sw,sim_rate=unlimited,"
	"reconnect=off", 0, true, false,
};
static const struct cdc_case cdc_rndis = {
	"sim=rndis,sim_max_segment=9014,rx_csum=sw,sim_rate=unlimited,"
	"reconnect=off", 4, true, true,
};
static const struct cdc_case cdc_rndis_single = {
	"sim=rndis,sim_quirks=rndis_single,rx_csum=sw,sim_rate=unlimited,"
	"reconnect=off", 0, false, true,
};
/*
 * RNDIS's control channel on a started port: a KEEPALIVE after 5 s of
 * silence; one the device does not complete brings a RESET, and the
 * filter it forgot is sent again (the model forgets it, §20).
 */
static bool
xstat_within(uint16_t port, const char *name, uint64_t v, unsigned int ms)
{
	uint64_t end = deadline_ms(ms);

	while (xstat(port, name) < v && !expired(end))
		usleep(10000);
	return xstat(port, name) >= v;
}

static void
tc_rndis_keepalive(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	struct rte_ether_addr ma;
	unsigned int i;

	cdc_up(a, b, "rndis");
	rte_eth_macaddr_get(a, &ma);
	CHECK(one_frame(b, a, &ma), "traffic");
	CHECK(xstat_within(a, "rndis_keepalives", 1, 15000),
	      "no keepalive after 15 s: %" PRIu64,
	      xstat(a, "rndis_keepalives"));
	CHECK(xstat(a, "rndis_resets") == 0 &&
	      xstat(a, "rndis_timeouts") == 0, "reset %" PRIu64,
	      xstat(a, "rndis_resets"));
	/*
	 * Each notification is read until the device's queue is empty, and
	 * the model stalls that read as f_rndis does: an answer, not a
	 * failed request.
	 */
	CHECK(xstat(a, "rndis_empty_stalls") >= 1 &&
	      xstat(a, "ctrl_errors") == 0,
	      "empty-queue stalls %" PRIu64 ", ctrl_errors %" PRIu64,
	      xstat(a, "rndis_empty_stalls"), xstat(a, "ctrl_errors"));
	/*
	 * The next control request is refused on the bus: meant for the
	 * next KEEPALIVE, but another request (an indication's read, a
	 * link query) may come first and take the failure on a loaded
	 * machine; then the keepalive after it is refused again (3 tries).
	 */
	for (i = 0; i < 3 && xstat(a, "rndis_resets") == 0; i++) {
		CHECK(rte_pmd_ch39x_sim_fail_ctrl(a, 1) == 0, "fail_ctrl");
		xstat_within(a, "rndis_resets", 1, 15000);
	}
	CHECK(xstat(a, "rndis_resets") >= 1, "no reset after %u refused "
	      "requests", i);
	CHECK(one_frame(b, a, &ma), "no traffic after the reset");
}

/*
 * The interrupt alarm's back-off (ch39x_intr.c) with event rounds as the
 * libusb transport has them (rte_pmd_ch39x_sim_event_rounds()). An RNDIS
 * device that puts one frame in each transfer, as f_rndis does, flooded
 * while b reads one frame every 5 ms, behind: a round reaps all of its 32
 * finished transfers and the bursts after it take them without a round of
 * their own, for 160 ms, so rounds alone would leave the alarm at its 2 ms
 * period most of the time (150 looks/s measured so); the bursts that take
 * transfers count as the application's looks (f68136c), and the alarm
 * looks every 100 ms (10/s). Nobody reading, it looks every 2 ms again.
 * Rates of looks (xstat intr_polls) over spans timed here, compared:
 * reading at most a quarter of not reading. Up to 3 tries, for a loaded
 * machine that stalls the reader for long.
 */
static const struct cdc_case cdc_rndis_behind = {
	"sim=rndis,sim_quirks=rndis_single,rx_csum=sw,sim_rate=unlimited,"
	"reconnect=off,rx_xfers=32", 0, false, true,
};

static bool
backoff_try(uint16_t a, uint16_t b, unsigned int try)
{
	const uint64_t hz = rte_get_timer_hz();
	struct rte_ether_addr mb;
	struct rte_mbuf *m, *rx[4];
	uint64_t looks, t0, t_read, t_idle, end, x0, x1;
	unsigned int i, k, got = 0;
	double read_rate, idle_rate;

	rte_eth_macaddr_get(b, &mb);
	x0 = xstat(b, "rx_usb_xfers");
	looks = xstat(b, "intr_polls");
	t0 = rte_get_timer_cycles();
	end = t0 + hz * 3 / 2;
	for (i = 0; i < 1000 && !expired(end); i++) {
		for (k = 0; k < 4; k++) {
			m = make_frame(&mb, &mb, 60, (uint8_t)k);
			if (m != NULL && rte_eth_tx_burst(a, 0, &m, 1) != 1)
				rte_pktmbuf_free(m);
		}
		k = rte_eth_rx_burst(b, 0, rx, 1);
		rte_pktmbuf_free_bulk(rx, k);
		got += k;
		rte_delay_us_sleep(5000);
	}
	t_read = rte_get_timer_cycles() - t0;
	looks = xstat(b, "intr_polls") - looks;
	x1 = xstat(b, "rx_usb_xfers");
	read_rate = (double)looks * hz / t_read;
	drain(a);
	/* Nobody reads b: 50 looks, timed (at most 10 s). */
	k = 0;
	looks = xstat(b, "intr_polls");
	t0 = rte_get_timer_cycles();
	end = deadline_ms(10000);
	while (xstat(b, "intr_polls") < looks + 50 && !expired(end) &&
	       k++ < 10000)
		usleep(1000);
	t_idle = rte_get_timer_cycles() - t0;
	looks = xstat(b, "intr_polls") - looks;
	idle_rate = (double)looks * hz / t_idle;
	printf("  intr back-off try %u: reading (%u frames in %" PRIu64
	       " transfers) %.1f looks/s, not reading %.1f looks/s\n", try,
	       got, x1 - x0, read_rate, idle_rate);
	drain(b);
	return got >= 50 && looks >= 50 && read_rate * 4 <= idle_rate;
}

static void
tc_intr_backoff(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	unsigned int i;
	bool ok = false;

	CHECK(rte_pmd_ch39x_sim_event_rounds(b, 1) == 0, "event rounds");
	cdc_up(a, b, "rndis event rounds");
	CHECK(rte_pmd_ch39x_sim_event_rounds(b, 0) == -EBUSY,
	      "event rounds changed on a started port");
	for (i = 1; i <= 3 && !ok; i++)
		ok = backoff_try(a, b, i);
	CHECK(ok, "the alarm did not back off while b was read (above)");
}

/* The CDC fast paths with zero-copy RX (test_cdc_fast()). */
static const struct cdc_case cdc_ncm_zc = {
	"sim=ncm,sim_max_segment=9014,sim_rate=unlimited,reconnect=off,"
	"rx_copybreak=1000", 8, true, false,
};
static const struct cdc_case cdc_ecm_zc = {
	"sim=ecm,sim_max_segment=9014,sim_rate=unlimited,reconnect=off,"
	"rx_copybreak=1000", 0, true, false,
};
/*
 * A device announcing 64 KiB NTBs both ways (sim_ntb_in_max and
 * sim_ntb_out_max) and a host asking for 63 KiB ones (xfer_size): a burst
 * of 32 frames of 1514 bytes goes in one TX NTB, and the model's IN NTBs
 * take more than the 10 such frames a 16 KiB one holds.
 */
static const struct cdc_case cdc_ncm_big_ntb = {
	"sim=ncm,sim_ntb_in_max=65535,sim_ntb_out_max=65535,xfer_size=64512,"
	"sim_rate=unlimited,reconnect=off", 0, false, false,
};

static void
tc_ncm_big_ntb(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	struct rte_mbuf *tx[32], *rx[32];
	struct rte_ether_addr ma, mb;
	uint64_t tx0, rx0;
	unsigned int i, n, sent;

	cdc_up(a, b, "ncm big NTBs");
	rte_eth_macaddr_get(a, &ma);
	rte_eth_macaddr_get(b, &mb);
	for (i = 0; i < RTE_DIM(tx); i++) {
		tx[i] = make_frame(&mb, &ma, 1514, (uint8_t)i);
		CHECK(tx[i] != NULL, "frame %u", i);
	}
	tx0 = xstat(a, "tx_ncm_ntbs");
	rx0 = xstat(b, "rx_ncm_ntbs");
	sent = rte_eth_tx_burst(a, 0, tx, RTE_DIM(tx));
	rte_pktmbuf_free_bulk(tx + sent, RTE_DIM(tx) - sent);
	CHECK(sent == RTE_DIM(tx), "sent %u of %u", sent,
	      (unsigned int)RTE_DIM(tx));
	n = rx_wait(b, rx, RTE_DIM(rx));
	for (i = 0; i < n; i++) {
		CHECK(rx[i]->pkt_len == 1514 && marker_seq(rx[i]) < 0 &&
		      rte_pktmbuf_mtod(rx[i], const uint8_t *)[1513] ==
		      (uint8_t)(i + 1513 * 7), "frame %u: %u bytes", i,
		      rx[i]->pkt_len);
	}
	rte_pktmbuf_free_bulk(rx, n);
	CHECK(n == RTE_DIM(rx), "received %u of %u", n,
	      (unsigned int)RTE_DIM(rx));
	CHECK(xstat(a, "tx_ncm_ntbs") - tx0 == 1, "TX NTBs %" PRIu64
	      " for the burst, want 1", xstat(a, "tx_ncm_ntbs") - tx0);
	CHECK(xstat(b, "rx_ncm_ntbs") - rx0 < 4, "RX NTBs %" PRIu64
	      " for 32 frames of 1514 B: 16 KiB ones (4 or more)",
	      xstat(b, "rx_ncm_ntbs") - rx0);
}

static const struct end_marks_case end_zlp = {
	"sim=ch397,wire=loop", "tx_zlps",
};
static const struct end_marks_case end_ls = {
	"sim=ch398,usb_speed=high,wire=loop", "tx_ls_trailers",
};

/* ---- descriptors, packet types, flow control, dump, Rx interrupts ---- */

/* One descriptor per 1536-byte frame slot of transfer buffer (ethdev.h). */
static void
tc_queue_info(void)
{
	uint16_t a = tc.port[0];
	struct rte_eth_dev_info di;
	struct rte_eth_rxq_info ri;
	struct rte_eth_txq_info ti;
	struct rte_eth_burst_mode bm;

	CHECK(rte_eth_dev_info_get(a, &di) == 0 &&
	      di.default_rxportconf.ring_size == 16 * 21 &&
	      di.default_txportconf.ring_size == 10 * 10 &&
	      di.rx_desc_lim.nb_min == 1 && di.tx_desc_lim.nb_min == 1,
	      "defaults rx %u tx %u", di.default_rxportconf.ring_size,
	      di.default_txportconf.ring_size);
	/* Set up with 256 each: 13 IN transfers of 21, 26 OUT of 10. */
	CHECK(rte_eth_rx_queue_info_get(a, 0, &ri) == 0 && ri.nb_desc == 273 &&
	      ri.mp == mp && ri.rx_buf_size == 2048,
	      "rxq nb_desc %u buf %u", ri.nb_desc, ri.rx_buf_size);
	CHECK(rte_eth_tx_queue_info_get(a, 0, &ti) == 0 && ti.nb_desc == 260,
	      "txq nb_desc %u", ti.nb_desc);
	CHECK(rte_eth_rx_burst_mode_get(a, 0, &bm) == 0 &&
	      strstr(bm.info, "13 bulk IN transfers of 32768") != NULL,
	      "rx burst mode '%s'", bm.info);
	CHECK(rte_eth_tx_burst_mode_get(a, 0, &bm) == 0 &&
	      strstr(bm.info, "26 bulk OUT transfers of 16384") != NULL,
	      "tx burst mode '%s'", bm.info);
	/*
	 * More than 2 MiB of transfers (ethdev.h): 64 IN of 32 KiB, 102 OUT
	 * of 16 KiB and a 4-byte trailer (5 pages each).
	 */
	CHECK(rte_eth_dev_stop(a) == 0 &&
	      rte_eth_rx_queue_setup(a, 0, 4096, 0, NULL, mp) == 0 &&
	      rte_eth_tx_queue_setup(a, 0, 4096, 0, NULL) == 0 &&
	      rte_eth_dev_start(a) == 0, "queues of 4096");
	CHECK(rte_eth_rx_queue_info_get(a, 0, &ri) == 0 &&
	      ri.nb_desc == 64 * 21 &&
	      rte_eth_tx_queue_info_get(a, 0, &ti) == 0 &&
	      ti.nb_desc == 102 * 10, "capped rx %u tx %u", ri.nb_desc,
	      ti.nb_desc);
	CHECK(wait_link(a, 1) && wait_link(tc.port[1], 1), "link");
	{
		struct rte_ether_addr mb;

		rte_eth_macaddr_get(tc.port[1], &mb);
		CHECK(one_frame(a, tc.port[1], &mb), "traffic on 64 transfers");
	}
}

/* A frame of the given bytes from a to b; its packet type, or ~0. */
static uint32_t
ptype_of(uint16_t a, uint16_t b, const uint8_t *f, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *rx[4];
	uint32_t pt = ~0u;
	unsigned int n, i;

	if (m == NULL)
		return pt;
	memcpy(rte_pktmbuf_append(m, len), f, len);
	if (rte_eth_tx_burst(a, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return pt;
	}
	n = rx_wait(b, rx, 1);
	for (i = 0; i < n; i++) {
		pt = rx[i]->packet_type;
		rte_pktmbuf_free(rx[i]);
	}
	return pt;
}

static void
tc_ptypes(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	uint32_t pts[32];
	uint8_t f[128];
	int n, i, v4 = 0, v6 = 0;

	n = rte_eth_dev_get_supported_ptypes(b, RTE_PTYPE_ALL_MASK, pts, 32);
	for (i = 0; i < n; i++) {
		v4 |= (pts[i] & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV4;
		v6 |= (pts[i] & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV6;
	}
	CHECK(n > 0 && v4 && v6, "%d supported ptypes, IPv4 %d IPv6 %d", n,
	      v4, v6);
	memset(f, 0, sizeof(f));
	memset(f, 0xFF, 6);
	f[6] = 0x02;
	/* IPv4 (IHL 5) UDP. */
	f[12] = 0x08; f[13] = 0x00; f[14] = 0x45; f[23] = 17;
	CHECK(ptype_of(a, b, f, 64) == (RTE_PTYPE_L2_ETHER |
	      RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP), "IPv4 UDP");
	/* IPv4 with options, TCP; then a fragment. */
	f[14] = 0x46; f[23] = 6;
	CHECK(ptype_of(a, b, f, 64) == (RTE_PTYPE_L2_ETHER |
	      RTE_PTYPE_L3_IPV4_EXT | RTE_PTYPE_L4_TCP), "IPv4 options TCP");
	f[14] = 0x45; f[20] = 0x20;
	CHECK(ptype_of(a, b, f, 64) == (RTE_PTYPE_L2_ETHER |
	      RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG), "IPv4 fragment");
	/* A tag, then IPv6 ICMPv6. */
	memset(f + 12, 0, sizeof(f) - 12);
	f[12] = 0x81; f[13] = 0x00; f[14] = 0x00; f[15] = 0x0A;
	f[16] = 0x86; f[17] = 0xDD; f[18] = 0x60; f[24] = 58;
	CHECK(ptype_of(a, b, f, 80) == (RTE_PTYPE_L2_ETHER_VLAN |
	      RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_ICMP), "VLAN IPv6 ICMPv6");
	/* ARP, and an EtherType the PMD does not know. */
	memset(f + 12, 0, sizeof(f) - 12);
	f[12] = 0x08; f[13] = 0x06;
	CHECK(ptype_of(a, b, f, 64) == RTE_PTYPE_L2_ETHER_ARP, "ARP");
	f[12] = 0x88; f[13] = 0xB5;
	CHECK(ptype_of(a, b, f, 64) == RTE_PTYPE_L2_ETHER, "other EtherType");
}

/*
 * rte_eth_dev_set_ptypes(): RTE_PTYPE_UNKNOWN switches the parse off (the
 * mbufs' packet_type is 0), a mask turns it back on, while the port runs.
 */
static void
tc_ptypes_set(void)
{
	const uint32_t want = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
		RTE_PTYPE_L4_UDP;
	uint16_t a = tc.port[0], b = tc.port[1];
	uint32_t set[8];
	uint8_t f[64];

	memset(f, 0, sizeof(f));
	memset(f, 0xFF, 6);
	f[6] = 0x02;
	f[12] = 0x08; f[13] = 0x00; f[14] = 0x45; f[23] = 17;
	CHECK(ptype_of(a, b, f, 64) == want, "parsed by default");
	CHECK(rte_eth_dev_set_ptypes(b, RTE_PTYPE_UNKNOWN, NULL, 0) == 0,
	      "set_ptypes UNKNOWN");
	CHECK(ptype_of(a, b, f, 64) == 0, "not parsed after UNKNOWN");
	CHECK(ptype_of(a, b, f, 64) == 0, "still not parsed");
	CHECK(rte_eth_dev_set_ptypes(b, RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK,
				     set, RTE_DIM(set)) == 0 && set[0] != 0,
	      "set_ptypes L3 L4");
	CHECK(ptype_of(a, b, f, 64) == want, "parsed again");
	/* The other port was never told: it parses all along. */
	CHECK(ptype_of(b, a, f, 64) == want, "other port parsed");
}

/* The dump names the device type and lists the xstats. */
static bool
dump_has(uint16_t port, const char *what)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool found;

	if (f == NULL)
		return false;
	rte_eth_dev_priv_dump(port, f);
	fclose(f);
	found = buf != NULL && strstr(buf, what) != NULL;
	free(buf);
	return found;
}

static void
tc_flow_ctrl(void)
{
	uint16_t a = tc.port[0], n = tc.port[2];
	struct rte_eth_fc_conf fc;

	CHECK(rte_eth_dev_flow_ctrl_get(a, &fc) == 0 &&
	      fc.mode == RTE_ETH_FC_FULL && fc.autoneg == 1, "default full");
	fc.mode = RTE_ETH_FC_RX_PAUSE;
	CHECK(rte_eth_dev_flow_ctrl_set(a, &fc) == -ENOTSUP,
	      "one direction refused");
	fc.mode = RTE_ETH_FC_NONE;
	CHECK(rte_eth_dev_flow_ctrl_set(a, &fc) == 0 &&
	      rte_eth_dev_flow_ctrl_get(a, &fc) == 0 &&
	      fc.mode == RTE_ETH_FC_NONE && dump_has(a, "pause off"),
	      "off");
	{
		struct rte_ether_addr mb;

		rte_eth_macaddr_get(tc.port[1], &mb);
		CHECK(one_frame(a, tc.port[1], &mb), "traffic with pause off");
	}
	fc.mode = RTE_ETH_FC_FULL;
	CHECK(rte_eth_dev_flow_ctrl_set(a, &fc) == 0 && !dump_has(a,
	      "pause off"), "on again");
	CHECK(rte_eth_dev_flow_ctrl_get(n, &fc) == -ENOTSUP,
	      "CDC device: no pause control");
	CHECK(dump_has(a, "vendor over the simulated adapter") &&
	      dump_has(a, "rx_usb_xfers: ") && dump_has(n, "CDC-NCM"),
	      "dump");
}

/* A promiscuous pair and an NCM device on a loop. */
static int
setup_pair_ncm(void)
{
	if (setup_pair() != 0 ||
	    case_probe("sim=ncm,wire=loop") == RTE_MAX_ETHPORTS)
		return -1;
	return 0;
}

/* Wait for b's RX wake-up; 1: woken, 0: timed out. */
static int
intr_wait(int ms)
{
	struct rte_epoll_event ev[1];

	return rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 1, ms);
}

/* b armed: a 100-byte frame from a wakes the sleeper and is received. */
static void
woken_by_frame(uint16_t a, uint16_t b, const char *what)
{
	struct rte_ether_addr mb;
	struct rte_mbuf *m, *rx[1];
	unsigned int n;

	rte_eth_macaddr_get(b, &mb);
	m = make_frame(&mb, &mb, 100, 1);
	CHECK(m != NULL && rte_eth_tx_burst(a, 0, &m, 1) == 1, "send");
	CHECK(intr_wait(5000) == 1, "%s", what);
	CHECK(rte_eth_dev_rx_intr_disable(b, 0) == 0, "disarm");
	n = rx_wait(b, rx, 1);
	CHECK(n == 1 && rx[0]->pkt_len == 100, "the frame, %u", n);
	if (n)
		rte_pktmbuf_free_bulk(rx, n);
}

/*
 * b restarted with its Rx interrupt (promiscuous), its event fd in this
 * thread's epoll; link up at both ends.
 */
static void
rx_intr_up(uint16_t a, uint16_t b)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.rxq = 1;
	CHECK(rte_eth_dev_stop(b) == 0 &&
	      rte_eth_dev_configure(b, 1, 1, &conf) == 0 &&
	      rte_eth_rx_queue_setup(b, 0, 0, 0, NULL, mp) == 0 &&
	      rte_eth_tx_queue_setup(b, 0, 0, 0, NULL) == 0 &&
	      rte_eth_dev_start(b) == 0, "start with intr_conf.rxq");
	rte_eth_promiscuous_enable(b);
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link");
	CHECK(rte_eth_dev_rx_intr_ctl_q(b, 0, RTE_EPOLL_PER_THREAD,
					RTE_INTR_EVENT_ADD, NULL) == 0,
	      "queue's event fd in the thread's epoll");
}

static void
tc_rx_intr(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];
	struct rte_mbuf *rx[8];
	unsigned int n;
	uint64_t looks;

	rx_intr_up(a, b);
	/* Idle: armed, nothing comes, nothing wakes. */
	drain(b);
	CHECK(rte_eth_dev_rx_intr_enable(b, 0) == 0, "arm");
	CHECK(intr_wait(200) == 0, "idle: no wake-up in 200 ms");
	/* A frame from the peer wakes the sleeper. */
	woken_by_frame(a, b, "woken by the frame");
	/* Disarmed, a frame wakes nobody; arming with it waiting does. */
	{
		struct rte_ether_addr mb;
		struct rte_mbuf *m;

		rte_eth_macaddr_get(b, &mb);
		m = make_frame(&mb, &mb, 200, 2);
		CHECK(m != NULL && rte_eth_tx_burst(a, 0, &m, 1) == 1, "send");
	}
	CHECK(intr_wait(100) == 0, "disarmed: no wake-up");
	CHECK(rte_eth_dev_rx_intr_enable(b, 0) == 0 && intr_wait(5000) == 1,
	      "armed with a frame waiting: woken at once");
	rte_eth_dev_rx_intr_disable(b, 0);
	n = rx_wait(b, rx, 1);
	CHECK(n == 1 && rx[0]->pkt_len == 200, "the waiting frame, %u", n);
	if (n)
		rte_pktmbuf_free_bulk(rx, n);
	/*
	 * Armed and idle, nothing looks at the interrupt endpoint but a
	 * once-a-second safety net; a link change wakes the sleeper, and
	 * the disarm that follows brings the report.
	 */
	drain(b);
	CHECK(rte_eth_dev_rx_intr_enable(b, 0) == 0, "arm for the link");
	looks = xstat(b, "intr_polls");
	CHECK(intr_wait(300) == 0, "armed, idle: no wake-up");
	looks = xstat(b, "intr_polls") - looks;
	CHECK(looks <= 3, "armed and idle for 300 ms: %" PRIu64 " looks at "
	      "the interrupt endpoint (at most 3)", looks);
	CHECK(rte_pmd_ch39x_sim_set_cable(a, 0) == 0, "pull the peer's cable");
	CHECK(intr_wait(5000) == 1, "woken by the link drop");
	rte_eth_dev_rx_intr_disable(b, 0);
	CHECK(wait_link(b, 0), "link down reported after the wake-up");
	CHECK(rte_pmd_ch39x_sim_set_cable(a, 1) == 0, "plug the cable back");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link back");
	CHECK(rte_eth_dev_rx_intr_ctl_q(b, 0, RTE_EPOLL_PER_THREAD,
					RTE_INTR_EVENT_DEL, NULL) == 0,
	      "out of the epoll");
}

/*
 * The application armed the Rx interrupt while the device was gone; back,
 * the port is armed again: a frame from the peer wakes the sleeper.
 */
static void
tc_reconnect_rx_intr(void)
{
	uint16_t a = tc.port[0], b = tc.port[1];

	rx_intr_up(a, b);
	reconnect_gone(b, true, "rx_intr");
	drain(b);
	CHECK(rte_eth_dev_rx_intr_enable(b, 0) == 0, "arm while gone");
	CHECK(rte_pmd_ch39x_sim_replug(b, RTE_PMD_CH39X_REPLUG_SAME) == 0,
	      "replug");
	reconnect_back(b, 1, true, "rx_intr");
	CHECK(wait_link(a, 1), "peer link");
	woken_by_frame(a, b, "woken after the return (armed again)");
	rte_eth_dev_rx_intr_ctl_q(b, 0, RTE_EPOLL_PER_THREAD,
				  RTE_INTR_EVENT_DEL, NULL);
}

#define CASE(n, s, t, fn, d) \
	{ .name = n, .setup = s, .teardown = t, .testcase = fn, .data = d }

static const struct unit_test_case pmd_cases[] = {
	CASE("info", setup_pair_ch397, teardown_ports, tc_info, NULL),
	CASE("all_sizes", setup_pair, teardown_ports, tc_all_sizes, NULL),
	CASE("filters", setup_pair, teardown_ports, tc_filters, NULL),
	CASE("link", setup_pair, teardown_ports, tc_link, NULL),
	CASE("jumbo", setup_pair, teardown_ports, tc_jumbo, NULL),
	CASE("offloads_hw", setup_pair, teardown_ports, tc_offloads_hw, NULL),
	CASE("tso_pmd", setup_pair_ch397, teardown_ports, tc_tso_pmd, NULL),
	CASE("tso_small_queue", setup_one, teardown_ports, tc_tso_small_queue,
	     "sim=ch397,wire=loop,usb_speed=full,tx_xfers=2"),
	CASE("offloads_sw", setup_one, teardown_ports, tc_offloads_sw,
	     "sim=ch397,wire=loop,rx_csum=sw"),
	CASE("bad_devargs", setup_pair_quiet, teardown_ports, tc_bad_devargs,
	     NULL),
	CASE("cdc_ncm", setup_cdc, teardown_ports, tc_cdc, &cdc_ncm),
	CASE("cdc_ncm_faults", setup_cdc, teardown_ports, tc_cdc_faults,
	     &cdc_ncm),
	CASE("cdc_ncm_quirks", setup_cdc, teardown_ports, tc_cdc,
	     &cdc_ncm_quirks),
	CASE("cdc_ncm_quirks_faults", setup_cdc, teardown_ports, tc_cdc_faults,
	     &cdc_ncm_quirks),
	CASE("cdc_rndis", setup_cdc, teardown_ports, tc_cdc, &cdc_rndis),
	CASE("cdc_rndis_faults", setup_cdc, teardown_ports, tc_cdc_faults,
	     &cdc_rndis),
	CASE("cdc_rndis_single", setup_cdc, teardown_ports, tc_cdc,
	     &cdc_rndis_single),
	CASE("rndis_keepalive", setup_cdc, teardown_ports, tc_rndis_keepalive,
	     &cdc_rndis),
	CASE("intr_backoff", setup_cdc, teardown_ports, tc_intr_backoff,
	     &cdc_rndis_behind),
	CASE("cdc_ecm", setup_cdc, teardown_ports, tc_cdc, &cdc_ecm),
	CASE("cdc_ecm_faults", setup_cdc, teardown_ports, tc_cdc_faults,
	     &cdc_ecm),
	CASE("cdc_ncm_fast", setup_cdc, teardown_ports, tc_cdc_fast, &cdc_ncm),
	CASE("ncm_big_ntb", setup_cdc, teardown_ports, tc_ncm_big_ntb,
	     &cdc_ncm_big_ntb),
	CASE("cdc_ncm_fast_zc", setup_cdc, teardown_ports, tc_cdc_fast,
	     &cdc_ncm_zc),
	CASE("cdc_ecm_fast", setup_cdc, teardown_ports, tc_cdc_fast, &cdc_ecm),
	CASE("cdc_ecm_fast_zc", setup_cdc, teardown_ports, tc_cdc_fast,
	     &cdc_ecm_zc),
	CASE("zerocopy", setup_pair_quiet, teardown_ports, tc_zerocopy,
	     "sim_rate=unlimited,rx_copybreak=256,rx_xfers=16"),
	CASE("usb_faults", setup_pair_quiet, teardown_ports, tc_usb_faults,
	     NULL),
	CASE("tx_error_frames", setup_pair_quiet, teardown_ports,
	     tc_tx_error_frames, NULL),
	CASE("unplug_before_start", setup_one, teardown_ports,
	     tc_unplug_before_start, "sim=ch398,wire=loop,reconnect=off"),
	/* RMV from the bus's event (before start), the alarm's (stopped). */
	CASE("unplug_stopped", setup_pair_quiet, teardown_ports,
	     tc_unplug_stopped, "reconnect=off,presence=poll"),
	CASE("ctrl_fail", setup_pair_quiet, teardown_ports, tc_ctrl_fail, NULL),
	CASE("link_flap_load", setup_pair_quiet, teardown_ports,
	     tc_link_flap_load, NULL),
	CASE("unplug_replug", setup_pair_quiet, teardown_ports,
	     tc_unplug_replug, "reconnect=off"),
	CASE("reconnect_started", setup_pair_quiet, teardown_ports,
	     tc_reconnect_started, NULL),
	CASE("reconnect_stopped", setup_pair_quiet, teardown_ports,
	     tc_reconnect_stopped, NULL),
	CASE("reconnect_stopped_poll", setup_pair_quiet, teardown_ports,
	     tc_reconnect_stopped_poll, "presence=poll"),
	CASE("reconnect_before_start", setup_one, teardown_ports,
	     tc_reconnect_before_start, "sim=ch398,wire=loop"),
	CASE("reconnect_back_stopped", setup_pair_quiet, teardown_ports,
	     tc_reconnect_back_stopped, NULL),
	CASE("reconnect_other", setup_pair_quiet, teardown_ports,
	     tc_reconnect_other, NULL),
	CASE("reconnect_never", setup_pair_quiet, teardown_ports,
	     tc_reconnect_never, NULL),
	CASE("reconnect_flaky", setup_pair_quiet, teardown_ports,
	     tc_reconnect_flaky, NULL),
	CASE("reconnect_cycles", setup_pair_quiet, teardown_ports,
	     tc_reconnect_cycles, NULL),
	CASE("reconnect_rx_intr", setup_pair_quiet, teardown_ports,
	     tc_reconnect_rx_intr, NULL),
	CASE("probe_faults", NULL, teardown_ports, tc_probe_faults, NULL),
	CASE("speeds", NULL, teardown_ports, tc_speeds, NULL),
	CASE("end_marks_zlp", setup_end_marks, teardown_ports, tc_end_marks,
	     &end_zlp),
	CASE("end_marks_ls", setup_end_marks, teardown_ports, tc_end_marks,
	     &end_ls),
	CASE("queue_info", setup_pair, teardown_ports, tc_queue_info, NULL),
	CASE("ptypes", setup_pair, teardown_ports, tc_ptypes, NULL),
	CASE("ptypes_set", setup_pair, teardown_ports, tc_ptypes_set, NULL),
	CASE("flow_ctrl", setup_pair_ncm, teardown_ports, tc_flow_ctrl, NULL),
	CASE("rx_intr", setup_pair, teardown_ports, tc_rx_intr, NULL),
};

/* The suite's set-up: the mbuf pool every case draws from. */
static int
suite_setup(void)
{
	mp = rte_pktmbuf_pool_create("test", NB_MBUFS, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(mp != NULL, "setup");
	return mp != NULL ? 0 : -1;
}

static void
suite_teardown(void)
{
	CHECK(rte_eth_dev_count_avail() == 0, "%u ports left behind",
	      rte_eth_dev_count_avail());
	CHECK(rte_mempool_avail_count(mp) == NB_MBUFS, "mbufs after all cases");
	rte_mempool_free(mp);
}

static const struct unit_test_suite pmd_suite = {
	.suite_name = "test_pmd",
	.setup = suite_setup,
	.teardown = suite_teardown,
	.cases = pmd_cases,
	.nb_cases = RTE_DIM(pmd_cases),
};

/* Set-up, case, tear-down; returns whether every check of it passed. */
static bool
run_case(const struct unit_test_case *c)
{
	unsigned int p0 = passed, f0 = failed;
	bool ready;

	memset(&tc, 0, sizeof(tc));
	tc.c = c;
	tc.pool0 = rte_mempool_avail_count(mp);
	ready = c->setup == NULL || (c->setup() == 0 && failed == f0);
	if (ready)
		c->testcase();
	else
		printf("case %s: set-up failed, case not run\n", c->name);
	if (c->teardown != NULL)
		c->teardown();
	if (failed == f0)
		printf("case %s: OK (%u checks)\n", c->name, passed - p0);
	else
		printf("case %s: FAIL (%u checks, %u failed)\n", c->name,
		       passed - p0 + failed - f0, failed - f0);
	fflush(stdout);
	return failed == f0;
}

static const struct unit_test_case *
find_case(const struct unit_test_suite *ts, const char *name)
{
	unsigned int i;

	for (i = 0; i < ts->nb_cases; i++)
		if (strcmp(ts->cases[i].name, name) == 0)
			return &ts->cases[i];
	return NULL;
}

static void
list_cases(const struct unit_test_suite *ts, FILE *f)
{
	unsigned int i;

	for (i = 0; i < ts->nb_cases; i++)
		fprintf(f, "%s\n", ts->cases[i].name);
}

static void
usage(const char *prog, FILE *f)
{
	fprintf(f, "usage: %s [--list | NAME...]\n"
		"  no NAME: run every case; NAME...: run those, in suite "
		"order\n  --list: print the case names\n", prog);
}

/*
 * Which cases the command line selects (each at most once, in the
 * suite's order); -1 on an unknown name, which lists the valid ones.
 */
static int
select_cases(const struct unit_test_suite *ts, int argc, char **argv,
	     bool *sel)
{
	const struct unit_test_case *c;
	unsigned int i;
	int k;

	for (i = 0; i < ts->nb_cases; i++)
		sel[i] = argc < 2;
	for (k = 1; k < argc; k++) {
		c = find_case(ts, argv[k]);
		if (c == NULL) {
			fprintf(stderr, "%s: no case named '%s'; the cases "
				"are:\n", argv[0], argv[k]);
			list_cases(ts, stderr);
			return -1;
		}
		sel[c - ts->cases] = true;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const struct unit_test_suite *ts = &pmd_suite;
	bool sel[RTE_DIM(pmd_cases)];
	unsigned int i, ok = 0, ko = 0;
	char prefix[64];
	char *eal[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "256", "--no-shconf",
		"--log-level=pmd.net.ch39x:warning", prefix,
	};

	if (argc == 2 && strcmp(argv[1], "--list") == 0) {
		list_cases(ts, stdout);
		return 0;
	}
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 ||
			  strcmp(argv[1], "-h") == 0)) {
		usage(argv[0], stdout);
		return 0;
	}
	if (select_cases(ts, argc, argv, sel) != 0)
		return 2;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ch39x_pmd_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	if (ts->setup() == 0) {
		for (i = 0; i < ts->nb_cases; i++) {
			if (!sel[i])
				continue;
			if (run_case(&ts->cases[i]))
				ok++;
			else
				ko++;
		}
		ts->teardown();
	}
	rte_eal_cleanup();
	printf("%s: cases: %u OK, %u FAIL\n", ts->suite_name, ok, ko);
	printf("test_pmd: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
