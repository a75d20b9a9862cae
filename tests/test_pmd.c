/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The net_ch39x PMD in-process: EAL with --no-huge --no-pci, simulated
 * adapters cabled together, driven through the public ethdev API only.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rte_pmd_ch39x.h"

static unsigned int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) { \
		passed++; \
	} else { \
		failed++; \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

#define NB_MBUFS 4096
static struct rte_mempool *mp;

static int lsc_count[RTE_MAX_ETHPORTS];

static int
lsc_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	(void)arg;
	(void)ret;
	if (type == RTE_ETH_EVENT_INTR_LSC)
		__atomic_fetch_add(&lsc_count[port], 1, __ATOMIC_RELAXED);
	return 0;
}

static uint16_t
port_of(const char *name)
{
	uint16_t id = RTE_MAX_ETHPORTS;

	if (rte_eth_dev_get_port_by_name(name, &id) != 0)
		return RTE_MAX_ETHPORTS;
	return id;
}

static int
port_up(uint16_t port, uint64_t offloads, uint16_t mtu)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	conf.rxmode.offloads = offloads;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0 && mtu)
		rc = rte_eth_dev_set_mtu(port, mtu);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 256, 0, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 256, 0, NULL);
	if (rc == 0)
		rc = rte_eth_dev_callback_register(port, RTE_ETH_EVENT_INTR_LSC,
						   lsc_cb, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

static bool
wait_link(uint16_t port, int up)
{
	uint64_t end = rte_get_timer_cycles() + 2 * rte_get_timer_hz();
	struct rte_eth_link l;

	do {
		rte_eth_link_get_nowait(port, &l);
		if (l.link_status == up)
			return true;
		usleep(1000);
	} while (rte_get_timer_cycles() < end);
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

/* Receive up to want frames within a bounded time. */
static unsigned int
rx_wait(uint16_t port, struct rte_mbuf **out, unsigned int want)
{
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz();
	unsigned int n = 0;

	while (n < want && rte_get_timer_cycles() < end)
		n += rte_eth_rx_burst(port, 0, out + n,
				      (uint16_t)RTE_MIN(want - n, 32u));
	return n;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* Frames of every size 60..1514 from a to b, byte-exact, counters exact. */
static void
test_all_sizes(uint16_t a, uint16_t b)
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
	/* Bursts of 32 aggregate: fewer transfers than frames each way. */
	CHECK(xstat(a, "tx_usb_xfers") < frames / 8,
	      "%lu tx transfers for %lu frames",
	      (unsigned long)xstat(a, "tx_usb_xfers"), (unsigned long)frames);
	CHECK(xstat(b, "rx_frames") == frames, "rx_frames %lu",
	      (unsigned long)xstat(b, "rx_frames"));
	CHECK(xstat(b, "rx_framing_bytes") ==
	      xstat(b, "rx_usb_bytes") - bytes, "framing bytes");
}

/* Send one frame a -> b; returns whether it arrived. */
static bool
one_frame(uint16_t a, uint16_t b, const struct rte_ether_addr *dst)
{
	struct rte_ether_addr ma;
	struct rte_mbuf *m, *rx[4];
	unsigned int got, i;
	uint64_t end;

	rte_eth_macaddr_get(a, &ma);
	m = make_frame(dst, &ma, 100, 0x5A);
	if (rte_eth_tx_burst(a, 0, &m, 1) != 1) {
		rte_pktmbuf_free(m);
		return false;
	}
	got = 0;
	end = rte_get_timer_cycles() + rte_get_timer_hz() / 10;
	while (got == 0 && rte_get_timer_cycles() < end)
		got = rte_eth_rx_burst(b, 0, rx, 4);
	for (i = 0; i < got; i++)
		rte_pktmbuf_free(rx[i]);
	return got == 1;
}

static void
test_filters(uint16_t a, uint16_t b)
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
	CHECK(!one_frame(a, b, &mb), "old MAC still passes");
	CHECK(rte_eth_dev_default_mac_addr_set(b, &mb) == 0, "mac restore");
	CHECK(rte_eth_promiscuous_enable(b) == 0, "promisc on");
	CHECK(one_frame(a, b, &foreign), "promiscuous dropped unicast");
}

static bool
wait_lsc(uint16_t port, int before)
{
	uint64_t end = rte_get_timer_cycles() + 2 * rte_get_timer_hz();

	while (rte_get_timer_cycles() < end) {
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
	rte_eth_link_get_nowait(a, &l);
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
test_end_marks(const char *args, const char *counter)
{
	struct rte_ether_addr me;
	struct rte_mbuf *m, *rx[2];
	uint16_t p;
	char name[64];

	snprintf(name, sizeof(name), "net_ch39x_m%s", counter);
	{
		char devargs[160];

		snprintf(devargs, sizeof(devargs), "%s,%s", name, args);
		CHECK(rte_dev_probe(devargs) == 0, "probe %s", devargs);
	}
	p = port_of(name);
	if (p == RTE_MAX_ETHPORTS)
		return;
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

static void
test_bad_devargs(void)
{
	static const char * const bad[] = {
		"net_ch39x_b,sim=ch999",
		"net_ch39x_b,colour=blue",
		"net_ch39x_b,usb_speed=warp",
		"net_ch39x_b,sim=ch397,usb_speed=super",
		"net_ch39x_b,wire=serial",
		"net_ch39x_b,wire=pair:",
		"net_ch39x_b,wire=pcap::",
		"net_ch39x_b,wire=pcap:/nonexistent/in.pcap:",
		"net_ch39x_b,mac=01:00:5e:00:00:01",
		"net_ch39x_b,mac=zz",
		"net_ch39x_b,rx_xfers=0",
		"net_ch39x_b,tx_xfers=65",
		"net_ch39x_b,rx_xfers=-1",
		"net_ch39x_b,xfer_size=1000",
		"net_ch39x_b,xfer_size=3000",
		"net_ch39x_b,wire=pair:t",	/* the pair has two already */
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

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "256", "--no-shconf",
		"--log-level=pmd.net.ch39x:warning",
		"--vdev=net_ch39x0,wire=pair:t",
		"--vdev=net_ch39x1,wire=pair:t",
		"--vdev=net_ch39x2,sim=ch397,wire=loop",
		prefix,
	};
	uint16_t a, b, c;

	(void)argc;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ch39x_pmd_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("test", NB_MBUFS, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	a = port_of("net_ch39x0");
	b = port_of("net_ch39x1");
	c = port_of("net_ch39x2");
	CHECK(mp != NULL && a != RTE_MAX_ETHPORTS && b != RTE_MAX_ETHPORTS &&
	      c != RTE_MAX_ETHPORTS, "setup");
	if (failed)
		goto out;
	CHECK(port_up(a, 0, 0) == 0 && port_up(b, 0, 0) == 0, "start");
	CHECK(wait_link(a, 1) && wait_link(b, 1), "link up");
	rte_eth_promiscuous_enable(a);
	rte_eth_promiscuous_enable(b);

	test_info(a, c);
	test_all_sizes(a, b);
	test_all_sizes(b, a);
	test_filters(a, b);
	test_link(a, b);
	test_bad_devargs();
	test_end_marks("sim=ch397,wire=loop", "tx_zlps");
	test_end_marks("sim=ch398,usb_speed=high,wire=loop", "tx_ls_trailers");

	/* Every mbuf is back in the pool once the ports stop. */
	CHECK(rte_eth_dev_stop(a) == 0 && rte_eth_dev_stop(b) == 0, "stop");
	CHECK(rte_mempool_avail_count(mp) == NB_MBUFS, "%u of %u mbufs back",
	      rte_mempool_avail_count(mp), NB_MBUFS);
	CHECK(rte_eth_dev_close(a) == 0 && rte_eth_dev_close(b) == 0 &&
	      rte_eth_dev_close(c) == 0, "close");
	CHECK(rte_mempool_avail_count(mp) == NB_MBUFS, "mbufs after close");
out:
	rte_mempool_free(mp);
	rte_eal_cleanup();
	printf("test_pmd: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
