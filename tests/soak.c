/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Soak: mixed traffic both ways between two simulated CH398 adapters
 * (jumbo frames scattered over mbuf chains, zero-copy RX on one side) on a
 * worker lcore, while the main lcore injects a USB fault, a link flap or a
 * failing vendor request every few hundred milliseconds. Bounded by the
 * duration given. Prints packets, faults survived and the mempool count
 * before and after; exits non-zero if mbufs were lost or traffic did not
 * flow at the end.
 *
 * Usage: ch39x-soak [EAL args] -- [seconds]
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "rte_pmd_ch39x.h"

#define NB_MBUFS 16384

static struct rte_mempool *mp;
static volatile bool running = true;
static uint16_t ports[2];
static uint64_t sent[2], received[2];

static struct rte_mbuf *
frame(uint16_t from, uint32_t len, uint32_t seq)
{
	struct rte_ether_addr src, dst;
	struct rte_mbuf *head = NULL, *m;
	uint32_t off = 0, n, i;
	uint8_t *p;

	rte_eth_macaddr_get(ports[from], &src);
	rte_eth_macaddr_get(ports[!from], &dst);
	while (off < len) {
		n = RTE_MIN(len - off, 2000u);
		m = rte_pktmbuf_alloc(mp);
		if (m == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)n);
		for (i = 0; i < n; i++)
			p[i] = (uint8_t)(seq + off + i);
		if (off == 0) {
			memcpy(p, &dst, 6);
			memcpy(p + 6, &src, 6);
			p[12] = 0x88;
			p[13] = 0xB5;
			head = m;
		} else if (rte_pktmbuf_chain(head, m) != 0) {
			rte_pktmbuf_free(m);
			break;
		}
		off += n;
	}
	return head;
}

static int
traffic(void *arg)
{
	static const uint32_t sizes[] = { 60, 64, 128, 512, 1514, 3000, 9018 };
	struct rte_mbuf *pk[32];
	uint32_t seq = 0;
	unsigned int i, n, d;

	(void)arg;
	while (running) {
		for (d = 0; d < 2; d++) {
			for (n = 0; n < 16; n++) {
				pk[n] = frame((uint16_t)d,
					      sizes[(seq + n) % RTE_DIM(sizes)],
					      seq + n);
				if (pk[n] == NULL)
					break;
			}
			seq += n;
			i = rte_eth_tx_burst(ports[d], 0, pk, (uint16_t)n);
			sent[d] += i;
			rte_pktmbuf_free_bulk(pk + i, n - i);
			n = rte_eth_rx_burst(ports[d], 0, pk, 32);
			received[d] += n;
			rte_pktmbuf_free_bulk(pk, n);
		}
	}
	return 0;
}

static int
port_start(uint16_t port)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = RTE_ETH_RX_OFFLOAD_SCATTER;
	conf.txmode.offloads = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_dev_set_mtu(port, 9000) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 256, 0, NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 256, 0, NULL) != 0)
		return -1;
	rte_eth_promiscuous_enable(port);
	return rte_eth_dev_start(port);
}

int
main(int argc, char **argv)
{
	static const enum rte_pmd_ch39x_fault in_faults[] = {
		RTE_PMD_CH39X_FAULT_STALL, RTE_PMD_CH39X_FAULT_TIMEOUT,
		RTE_PMD_CH39X_FAULT_ERROR, RTE_PMD_CH39X_FAULT_OVERFLOW,
		RTE_PMD_CH39X_FAULT_TRUNCATE, RTE_PMD_CH39X_FAULT_GARBAGE,
	};
	uint64_t end, faults = 0, flaps = 0, ctrl_fails = 0, before_rx;
	unsigned int avail_before, avail_after, step = 0, worker;
	int n, secs = 600, rc = 0;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		return 1;
	argc -= n;
	argv += n;
	if (argc > 1)
		secs = atoi(argv[1]);
	if (secs <= 0 || secs > 86400) {
		printf("soak: seconds must be 1..86400\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("soak", NB_MBUFS, 256, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (mp == NULL || rte_eth_dev_count_avail() < 2 ||
	    rte_eth_dev_get_port_by_name("net_ch39x0", &ports[0]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_ch39x1", &ports[1]) != 0) {
		printf("soak: needs --vdev net_ch39x0,... --vdev net_ch39x1,...\n");
		return 1;
	}
	avail_before = rte_mempool_avail_count(mp);
	if (port_start(ports[0]) != 0 || port_start(ports[1]) != 0) {
		printf("soak: port start failed\n");
		return 1;
	}
	worker = rte_get_next_lcore(-1, 1, 0);
	if (worker >= RTE_MAX_LCORE ||
	    rte_eal_remote_launch(traffic, NULL, worker) != 0) {
		printf("soak: needs a worker lcore (-l 0,1)\n");
		return 1;
	}
	end = rte_get_timer_cycles() + (uint64_t)secs * rte_get_timer_hz();
	while (rte_get_timer_cycles() < end) {
		uint16_t p = ports[step & 1];

		switch (step % 5) {
		case 0:
		case 1:
			rte_pmd_ch39x_sim_fault(p, RTE_PMD_CH39X_EP_BULK_IN,
				in_faults[(step / 5) % RTE_DIM(in_faults)], 3);
			faults += 3;
			break;
		case 2:
			rte_pmd_ch39x_sim_fault(p, RTE_PMD_CH39X_EP_BULK_OUT,
				in_faults[(step / 5) % 3], 2);
			faults += 2;
			break;
		case 3:
			rte_pmd_ch39x_sim_set_cable(p, 0);
			usleep(50 * 1000);
			rte_pmd_ch39x_sim_set_cable(p, 1);
			flaps++;
			break;
		default:
			rte_pmd_ch39x_sim_fail_ctrl(p, 1);
			rte_eth_allmulticast_enable(p);
			rte_eth_allmulticast_disable(p);
			ctrl_fails++;
			break;
		}
		step++;
		usleep(200 * 1000);
		if (step % 50 == 0)
			printf("soak: %us sent %lu/%lu received %lu/%lu faults %lu "
			       "flaps %lu\n", (unsigned int)(step / 5),
			       (unsigned long)sent[0], (unsigned long)sent[1],
			       (unsigned long)received[0],
			       (unsigned long)received[1], (unsigned long)faults,
			       (unsigned long)flaps);
	}
	/* Traffic must still flow once the faults stop. */
	sleep(1);
	before_rx = received[0] + received[1];
	sleep(1);
	if (received[0] + received[1] <= before_rx) {
		printf("soak: FAIL: no traffic after the faults\n");
		rc = 1;
	}
	running = false;
	rte_eal_wait_lcore(worker);
	rte_eth_dev_stop(ports[0]);
	rte_eth_dev_stop(ports[1]);
	avail_after = rte_mempool_avail_count(mp);
	printf("soak: %d s, sent %lu, received %lu, transfer faults %lu, link "
	       "flaps %lu, failed requests %lu, mempool %u before, %u after\n",
	       secs, (unsigned long)(sent[0] + sent[1]),
	       (unsigned long)(received[0] + received[1]),
	       (unsigned long)faults, (unsigned long)flaps,
	       (unsigned long)ctrl_fails, avail_before, avail_after);
	if (avail_after != avail_before) {
		printf("soak: FAIL: %d mbufs lost\n",
		       (int)avail_before - (int)avail_after);
		rc = 1;
	}
	rte_eth_dev_close(ports[0]);
	rte_eth_dev_close(ports[1]);
	rte_eal_cleanup();
	printf("soak: %s\n", rc ? "FAIL" : "PASS");
	return rc;
}
