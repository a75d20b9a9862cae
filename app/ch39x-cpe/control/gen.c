/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The benchmark's traffic (--bench-gen TX,RX,FLOWS,SIZE), on the second
 * lcore so that the forwarding lcore does nothing else: UDP frames of
 * FLOWS flows (source ports 10000 + i) from a LAN host (the first LAN
 * address + 100) to 198.19.0.1 (RFC 2544 benchmarking range), addressed
 * to the first LAN port's MAC; port RX counts what comes out of the WAN.
 * Both are meant to be cabled to the router's ports (wire=pair). With a
 * WAN by DHCP or PPPoE it starts when the WAN has its address.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_udp.h>

#include "gen.h"
#include "router.h"

#define GEN_POOL	8191
#define GEN_DST		((198u << 24) | (19u << 16) | 1u)

struct cpe_gen {
	const struct cpe_gen_cfg *g;
	const struct cpe_ifaces *ifs;
	uint64_t tx, rx;		/* the generator's lcore writes them */
	volatile bool quit;
	unsigned int lcore;
	struct rte_mempool *pool;
	uint8_t *tmpl;
};

static void
build(const struct cpe_gen *gen, uint8_t *f, uint32_t len, uint32_t flow)
{
	const struct cpe_ifaces *ifs = gen->ifs;
	const struct cpe_iface *lan = NULL;
	/* f: the start of an mbuf's data or a malloc'ed frame: aligned. */
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)(void *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t i;

	for (i = 0; i < ifs->nb && lan == NULL; i++)
		if (!ifs->ifs[i].wan)
			lan = &ifs->ifs[i];
	memset(f, 0, len);
	rte_ether_addr_copy(&lan->mac, &eh->dst_addr);
	rte_eth_macaddr_get(gen->g->tx_port, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32((lan->ip & lan->mask) |
					((lan->ip + 100) & ~lan->mask));
	ip->dst_addr = rte_cpu_to_be_32(GEN_DST);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(10000 + flow));
	udp->dst_port = rte_cpu_to_be_16(9);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - 34));
	udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
}

static void
wait_wan(struct cpe_gen *gen)
{
	const struct cpe_ifaces *ifs = gen->ifs;

	while (!gen->quit && ifs->wan >= 0 &&
	       *(volatile const uint32_t *)&ifs->ifs[ifs->wan].ip == 0)
		rte_delay_us_sleep(1000);
}

static int
gen_main(void *arg)
{
	struct cpe_gen *gen = arg;
	const struct cpe_gen_cfg *g = gen->g;
	uint32_t len = g->frame_size, flow = 0, i;
	struct rte_mbuf *tx[CPE_BURST], *rx[CPE_BURST];
	uint16_t n, sent;

	/*
	 * A WAN from DHCP or PPPoE has no address until the control plane
	 * hands one over: traffic before that would measure the drop path.
	 * (A plain word read; the forwarding lcore writes it once.)
	 */
	wait_wan(gen);
	while (!gen->quit) {
		if (rte_pktmbuf_alloc_bulk(gen->pool, tx, CPE_BURST) == 0) {
			for (i = 0; i < CPE_BURST; i++) {
				rte_memcpy(rte_pktmbuf_mtod(tx[i], void *),
					   gen->tmpl + (size_t)flow * len, len);
				tx[i]->data_len = (uint16_t)len;
				tx[i]->pkt_len = len;
				flow = flow + 1 == g->flows ? 0 : flow + 1;
			}
			sent = rte_eth_tx_burst(g->tx_port, 0, tx, CPE_BURST);
			gen->tx += sent;
			if (sent < CPE_BURST)
				rte_pktmbuf_free_bulk(tx + sent,
						      CPE_BURST - sent);
		}
		n = rte_eth_rx_burst(g->rx_port, 0, rx, CPE_BURST);
		if (n) {
			gen->rx += n;
			rte_pktmbuf_free_bulk(rx, n);
		}
	}
	return 0;
}

int
cpe_gen_start(struct cpe_router *r)
{
	const struct cpe_gen_cfg *g = &r->o->gen;
	struct cpe_gen *gen;
	uint32_t i;

	if (!g->on)
		return 0;
	gen = r->gen = calloc(1, sizeof(*gen));
	if (gen == NULL)
		return -ENOMEM;
	gen->g = g;
	gen->ifs = &r->dp->ifs;
	gen->lcore = rte_get_next_lcore(rte_lcore_id(), 1, 0);
	if (gen->lcore >= RTE_MAX_LCORE) {
		fprintf(stderr, "ch39x-cpe: --bench-gen needs a second lcore "
			"(EAL -l 0,1)\n");
		return -1;
	}
	gen->pool = rte_pktmbuf_pool_create("gen_pool", GEN_POOL, 256, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE,
					    (int)rte_socket_id());
	gen->tmpl = malloc((size_t)g->flows * g->frame_size);
	if (gen->pool == NULL || gen->tmpl == NULL) {
		fprintf(stderr, "ch39x-cpe: --bench-gen: out of memory\n");
		return -1;
	}
	for (i = 0; i < g->flows; i++)
		build(gen, gen->tmpl + (size_t)i * g->frame_size,
		      g->frame_size, i);
	return rte_eal_remote_launch(gen_main, gen, gen->lcore);
}

void
cpe_gen_stop(struct cpe_router *r)
{
	struct cpe_gen *gen = r->gen;

	if (gen == NULL)
		return;
	if (gen->lcore < RTE_MAX_LCORE) {
		gen->quit = true;
		rte_eal_wait_lcore(gen->lcore);
	}
	free(gen->tmpl);
	/* Its counters stay for the exit statistics. */
	gen->tmpl = NULL;
	gen->lcore = RTE_MAX_LCORE;
}

void
cpe_gen_counts(const struct cpe_router *r, uint64_t *tx, uint64_t *rx)
{
	*tx = r->gen != NULL ? r->gen->tx : 0;
	*rx = r->gen != NULL ? r->gen->rx : 0;
}
