/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Link loss seen fast (issue 14): DPDK's net_bonding in active-backup mode
 * (mode 1) over two net_ch39x ports, as a user would run it. Each slave is
 * cabled to a receiving port of its own; traffic goes out of the bond while
 * the active slave's cable is pulled. Measured: the failover gap (send
 * time of the last frame through the old slave to the first through the
 * new one), the frames lost, and that every lost frame is counted by its
 * cause: sent into a down link (sim_tx_link_down of the old slave) or
 * arrived at a port whose link went down (sim_rx_link_down of its peer).
 *
 * The link drop reaches the PMD by the interrupt endpoint, so the gap is
 * bounded by the chip's interrupt interval (bInterval, 16 ms for the
 * simulated chip) plus the PMD's poll of the completed transfer.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_eth_bond.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_version.h>

#include "rte_pmd_ch39x.h"
#include "pmd_test.h"

/* DPDK 23.11 renamed bonding's slaves members; 24.11 dropped the old names. */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
#define bond_member_add rte_eth_bond_member_add
#define bond_active_members_get rte_eth_bond_active_members_get
#else
#define bond_member_add rte_eth_bond_slave_add
#define bond_active_members_get rte_eth_bond_active_slaves_get
#endif

/* Deadlines only bound a failure (a loaded machine is slow, not wrong). */
#define WAIT_MS 5000
/* Traffic before the pull, and after the backup has taken over. */
#define BEFORE_MS 100
#define AFTER_MS 50
/* The simulated chip's interrupt interval (bInterval). */
#define INTR_MS 16

static struct rte_mempool *mp;
static uint64_t lsc_tsc;	/* when the old slave reported link down */

static int
lsc_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	struct rte_eth_link l;

	(void)type;
	(void)arg;
	(void)ret;
	if (rte_eth_link_get_nowait(port, &l) == 0 && !l.link_status &&
	    lsc_tsc == 0)
		__atomic_store_n(&lsc_tsc, rte_get_timer_cycles(),
				 __ATOMIC_RELAXED);
	return 0;
}

static uint64_t
ms_to_tsc(uint64_t ms)
{
	return rte_get_timer_hz() * ms / 1000;
}

static uint16_t
probe(const char *name, const char *args)
{
	char s[256];
	uint16_t id;

	snprintf(s, sizeof(s), "%s,%s", name, args);
	if (rte_dev_probe(s) != 0 ||
	    rte_eth_dev_get_port_by_name(name, &id) != 0)
		return RTE_MAX_ETHPORTS;
	return id;
}

static int
port_start(uint16_t p)
{
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	rc = rte_eth_dev_configure(p, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p, 0, 256, 0, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p, 0, 256, 0, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(p);
	if (rc == 0)
		rc = rte_eth_promiscuous_enable(p);
	return rc;
}

static bool
wait_link(uint16_t p, int up)
{
	uint64_t end = rte_get_timer_cycles() + ms_to_tsc(WAIT_MS);
	struct rte_eth_link l;

	do {
		if (rte_eth_link_get_nowait(p, &l) == 0 && l.link_status == up)
			return true;
		usleep(1000);
	} while (rte_get_timer_cycles() < end);
	return false;
}

/* A 64-byte broadcast carrying its sequence number and send time. */
static struct rte_mbuf *
frame(uint32_t seq, uint64_t tsc)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, 60);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0xFF, 6);
	memset(p + 6, 0x02, 6);
	p[12] = 0x88;
	p[13] = 0xB5;
	memcpy(p + 14, &seq, 4);
	memcpy(p + 18, &tsc, 8);
	memset(p + 26, 0, 34);
	return m;
}

/* What arrived at one receiving port. */
struct rx_side {
	uint64_t frames;
	uint64_t first_tsc;	/* send time of the first and last frame */
	uint64_t last_tsc;
};

static void
rx_poll(uint16_t p, struct rx_side *r)
{
	struct rte_mbuf *pk[64];
	uint64_t tsc;
	uint16_t n, i;

	n = rte_eth_rx_burst(p, 0, pk, RTE_DIM(pk));
	for (i = 0; i < n; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(pk[i], const uint8_t *);

		if (pk[i]->pkt_len >= 26 && d[12] == 0x88 && d[13] == 0xB5) {
			memcpy(&tsc, d + 18, 8);
			if (r->frames++ == 0)
				r->first_tsc = tsc;
			r->last_tsc = tsc;
		}
	}
	rte_pktmbuf_free_bulk(pk, n);
}

static void
test_failover(void)
{
	uint16_t a0, a1, b0, b1, bond, act[2];
	struct rx_side r0 = { 0 }, r1 = { 0 };
	uint64_t sent = 0, t, t_pull, t_end, quiet, lost, counted, hz;
	uint64_t pull_tsc;
	struct rte_mbuf *pk[32];
	uint32_t seq = 0;
	double gap_ms;
	int bid, n;
	uint16_t k, i;

	a0 = probe("net_ch39x_bond_a0", "wire=pair:bond0");
	b0 = probe("net_ch39x_bond_b0", "wire=pair:bond0");
	a1 = probe("net_ch39x_bond_a1", "wire=pair:bond1");
	b1 = probe("net_ch39x_bond_b1", "wire=pair:bond1");
	CHECK(a0 != RTE_MAX_ETHPORTS && a1 != RTE_MAX_ETHPORTS &&
	      b0 != RTE_MAX_ETHPORTS && b1 != RTE_MAX_ETHPORTS, "probe");
	if (failed)
		return;
	CHECK(port_start(b0) == 0 && port_start(b1) == 0, "receivers start");
	bid = rte_eth_bond_create("net_bonding_ch39x", BONDING_MODE_ACTIVE_BACKUP,
				  (uint8_t)rte_socket_id());
	CHECK(bid >= 0, "bond create: %d", bid);
	if (bid < 0)
		return;
	bond = (uint16_t)bid;
	CHECK(bond_member_add(bond, a0) == 0 &&
	      bond_member_add(bond, a1) == 0 &&
	      rte_eth_bond_primary_set(bond, a0) == 0, "slaves");
	CHECK(port_start(bond) == 0, "bond start");
	CHECK(wait_link(a0, 1) && wait_link(a1, 1) && wait_link(bond, 1),
	      "links up");
	t = rte_get_timer_cycles() + ms_to_tsc(WAIT_MS);
	while ((n = bond_active_members_get(bond, act, 2)) != 2 &&
	       rte_get_timer_cycles() < t)
		usleep(1000);
	CHECK(n == 2, "%d active slaves", n);

	hz = rte_get_timer_hz();
	rte_eth_dev_callback_register(a0, RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL);
	t_pull = rte_get_timer_cycles() + ms_to_tsc(BEFORE_MS);
	pull_tsc = t_pull;
	/* Until the backup carries traffic (an event), then AFTER_MS more. */
	t_end = t_pull + ms_to_tsc(WAIT_MS);
	for (;;) {
		t = rte_get_timer_cycles();
		if (t_pull != 0 && t >= t_pull) {
			/* The active slave's cable is pulled. */
			CHECK(rte_pmd_ch39x_sim_set_cable(a0, 0) == 0, "pull");
			t_pull = 0;
		}
		if (t >= t_end)
			break;
		for (i = 0; i < RTE_DIM(pk); i++) {
			pk[i] = frame(seq + i, t);
			if (pk[i] == NULL)
				break;
		}
		k = rte_eth_tx_burst(bond, 0, pk, i);
		rte_pktmbuf_free_bulk(pk + k, i - k);
		seq += k;
		sent += k;
		rx_poll(b0, &r0);
		if (r1.frames == 0) {
			rx_poll(b1, &r1);
			if (r1.frames != 0)
				t_end = rte_get_timer_cycles() +
					ms_to_tsc(AFTER_MS);
		} else {
			rx_poll(b1, &r1);
		}
		/* The bond's own queues: nothing comes, but they are polled. */
		k = rte_eth_rx_burst(bond, 0, pk, RTE_DIM(pk));
		rte_pktmbuf_free_bulk(pk, k);
	}
	/* Drain: until nothing has come for 100 ms. */
	quiet = rte_get_timer_cycles() + ms_to_tsc(100);
	t_end = rte_get_timer_cycles() + ms_to_tsc(WAIT_MS);
	while (rte_get_timer_cycles() < quiet &&
	       rte_get_timer_cycles() < t_end) {
		uint64_t before = r0.frames + r1.frames;

		rx_poll(b0, &r0);
		rx_poll(b1, &r1);
		if (r0.frames + r1.frames != before)
			quiet = rte_get_timer_cycles() + ms_to_tsc(100);
	}
	CHECK(r1.frames > 0, "nothing came through the backup slave");
	CHECK(r0.frames > 0, "nothing came through the primary slave");
	lost = sent - r0.frames - r1.frames;
	counted = xstat(a0, "sim_tx_link_down") + xstat(b0, "sim_rx_link_down");
	gap_ms = r1.frames && r0.frames ?
		(double)(int64_t)(r1.first_tsc - r0.last_tsc) * 1000.0 / hz :
		-1;
	printf("failover: %" PRIu64 " frames sent, %" PRIu64 " through the "
	       "primary, %" PRIu64 " through the backup, %" PRIu64 " lost "
	       "(%" PRIu64 " sent into the down link, %" PRIu64 " arrived at "
	       "a down link), gap %.2f ms (chip interrupt interval %d ms); "
	       "PMD tx_link_down_frames %" PRIu64 "; link down reported "
	       "%.2f ms after the pull; last frame through the primary sent "
	       "%.2f ms after it\n", sent, r0.frames,
	       r1.frames, lost, xstat(a0, "sim_tx_link_down"),
	       xstat(b0, "sim_rx_link_down"), gap_ms, INTR_MS,
	       xstat(a0, "tx_link_down_frames"),
	       lsc_tsc ? (double)(lsc_tsc - pull_tsc) * 1000.0 / hz : -1.0,
	       (double)(int64_t)(r0.last_tsc - pull_tsc) * 1000.0 / hz);
	/* Every lost frame is counted by its cause. */
	CHECK(lost == counted, "%" PRIu64 " lost, %" PRIu64 " counted", lost,
	      counted);
	/*
	 * The gap: the link drop reaches the PMD at the next interrupt
	 * transfer (one interval) and the bond at the LSC callback. A loaded
	 * machine delays the alarm thread, so the bound is generous; the
	 * figure is printed above.
	 */
	CHECK(gap_ms >= 0 && gap_ms < WAIT_MS, "failover gap %.2f ms", gap_ms);
	rte_eth_dev_stop(bond);
	rte_eth_bond_free("net_bonding_ch39x");
	for (i = 0; i < 4; i++) {
		const char *names[] = { "net_ch39x_bond_a0", "net_ch39x_bond_a1",
					"net_ch39x_bond_b0", "net_ch39x_bond_b1" };
		uint16_t p;

		if (rte_eth_dev_get_port_by_name(names[i], &p) == 0) {
			rte_eth_dev_stop(p);
			rte_eth_dev_close(p);
		}
		rte_vdev_uninit(names[i]);
	}
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "256", "--no-shconf",
		"--log-level=pmd.net.ch39x:warning", prefix,
	};

	(void)argc;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ch39x_bond_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("bond_pool", 8192, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	if (mp == NULL) {
		printf("no mbuf pool\n");
		return 1;
	}
	test_failover();
	rte_mempool_free(mp);
	rte_eal_cleanup();
	printf("test_bond: %u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
