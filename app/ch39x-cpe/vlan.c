/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * 802.1Q sub-interfaces. A router interface (cpe.ports[]) is a DPDK port
 * and a VLAN id (0: the port's untagged frames), so that routing, ARP,
 * NAT and the flow cache, which all work on interface indexes, need no
 * change. Each DPDK port is polled once per loop, by its first interface
 * (the lowest index); its frames are sorted by VLAN into per-interface
 * bursts, the other interfaces taking theirs later in the same loop. Tags
 * are removed on input and added in cpe_tx(): by the PMD where it offers
 * VLAN_STRIP / VLAN_INSERT (and --no-vlan-offload is not given), else
 * here. An interface's IP MTU excludes the tag: frames are 4 bytes longer
 * on the cable (the ch39x PMD's MTU leaves room for one tag).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "cpe.h"

#define VID_MASK	0x0fff

/* Frames an earlier interface's poll sorted out for an interface. */
static struct rte_mbuf *held[CPE_MAX_PORTS][CPE_BURST];
static uint16_t nb_held[CPE_MAX_PORTS];

const char *
cpe_port_name(uint16_t idx, char *buf, size_t size)
{
	const struct cpe_port *p = &cpe.ports[idx];

	if (p->vlan)
		snprintf(buf, size, "%u.%u", p->id, p->vlan);
	else
		snprintf(buf, size, "%u", p->id);
	return buf;
}

static uint16_t
phys_add(uint16_t id)
{
	struct cpe_phys *ph;
	uint16_t k;

	for (k = 0; k < cpe.nb_phys; k++)
		if (cpe.phys[k].id == id)
			return k;
	ph = &cpe.phys[cpe.nb_phys];
	memset(ph, 0, sizeof(*ph));
	ph->id = id;
	memset(ph->vid_if, CPE_VLAN_NONE, sizeof(ph->vid_if));
	return cpe.nb_phys++;
}

/*
 * The DPDK ports under the interfaces, their VLAN maps, and which tag work
 * their PMDs take (decided before the ports are configured).
 */
int
cpe_vlan_setup(void)
{
	const struct cpe_opts *o = cpe.o;
	struct rte_eth_dev_info info;
	struct cpe_phys *ph;
	uint16_t i, k;
	int rc;

	cpe.nb_phys = 0;
	memset(nb_held, 0, sizeof(nb_held));
	for (i = 0; i < o->nb_ports; i++) {
		k = phys_add(o->ports[i].id);
		ph = &cpe.phys[k];
		ph->vid_if[o->ports[i].vlan] = (uint8_t)i;
		ph->tagged |= o->ports[i].vlan != 0;
		cpe.ports[i].vlan = o->ports[i].vlan;
		cpe.ports[i].phys = k;
	}
	for (k = 0; k < cpe.nb_phys; k++) {
		ph = &cpe.phys[k];
		if (!ph->tagged || !o->vlan_offload)
			continue;
		rc = rte_eth_dev_info_get(ph->id, &info);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: port %u: no device info: "
				"%s\n", ph->id, rte_strerror(-rc));
			return rc;
		}
		ph->rx_offload = (info.rx_offload_capa &
				  RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
		ph->tx_offload = (info.tx_offload_capa &
				  RTE_ETH_TX_OFFLOAD_VLAN_INSERT) != 0;
	}
	return 0;
}

/* The port's configuration asks for the offloads setup chose. */
void
cpe_vlan_port_conf(uint16_t id, struct rte_eth_conf *conf)
{
	uint16_t k;

	for (k = 0; k < cpe.nb_phys; k++) {
		if (cpe.phys[k].id != id)
			continue;
		if (cpe.phys[k].rx_offload)
			conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
		if (cpe.phys[k].tx_offload)
			conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	}
}

/*
 * The interface of a received frame, its tag removed; CPE_VLAN_NONE when
 * no interface takes it (then counted and freed). A tag the PMD did not
 * strip (no offload, or not asked for) is parsed and removed here.
 */
static uint16_t
classify(uint16_t k, struct rte_mbuf *m)
{
	struct cpe_phys *ph = &cpe.phys[k];
	const struct rte_vlan_hdr *vh;
	struct rte_ether_hdr *eh;
	uint16_t vid = 0, to;

	if (m->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED) {
		vid = m->vlan_tci & VID_MASK;
		to = ph->vid_if[vid];
		if (to != CPE_VLAN_NONE)
			cpe.st.vlan_rx_offload++;
	} else {
		eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN ||
		    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_VLAN)) {
			to = ph->vid_if[0];
		} else if (rte_pktmbuf_data_len(m) <
			   RTE_ETHER_HDR_LEN + sizeof(*vh)) {
			cpe.st.drop_bad++;
			rte_pktmbuf_free(m);
			return CPE_VLAN_NONE;
		} else {
			vh = (const struct rte_vlan_hdr *)(eh + 1);
			vid = rte_be_to_cpu_16(vh->vlan_tci) & VID_MASK;
			to = ph->vid_if[vid];
			if (to != CPE_VLAN_NONE) {
				/* The addresses move over the tag. */
				memmove((uint8_t *)eh + sizeof(*vh), eh,
					2 * RTE_ETHER_ADDR_LEN);
				rte_pktmbuf_adj(m, sizeof(*vh));
				cpe.st.vlan_rx_sw++;
			}
		}
	}
	if (to == CPE_VLAN_NONE) {
		/* VLAN 0 (priority tag) belongs to the untagged interface. */
		if (vid != 0)
			cpe.st.phys[k].vlan_unknown++;
		else
			cpe.st.phys[k].untagged_drops++;
		rte_pktmbuf_free(m);
	}
	return to;
}

/* Sorts a poll's frames: idx's stay in pkts (returned count), the
 * others wait in their interfaces' held bursts.
 */
static uint16_t
demux(uint16_t idx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k = cpe.ports[idx].phys, i, to, kept = 0;
	struct rte_mbuf *m;

	cpe.st.phys[k].rx += n;
	for (i = 0; i < n; i++) {
		m = pkts[i];
		to = classify(k, m);
		if (to == CPE_VLAN_NONE)
			continue;
		/* PPPoE: the session's IP decapsulated, the rest to pppd. */
		if (unlikely(cpe.ports[to].pppoe) && !cpe_pppoe_rx(to, m))
			continue;
		if (to == idx) {
			pkts[kept++] = m;
		} else if (nb_held[to] < CPE_BURST) {
			held[to][nb_held[to]++] = m;
		} else {
			/* Not reached: every interface drains each loop. */
			cpe.st.drop_nomem++;
			rte_pktmbuf_free(m);
		}
	}
	return kept;
}

/*
 * An interface's received frames of this loop, untagged: its DPDK port's
 * first interface polls the port; the others take what it sorted out for
 * them (their indexes are higher: the same loop gets to them).
 */
uint16_t
cpe_vlan_rx(uint16_t idx, struct rte_mbuf **pkts, uint16_t cap)
{
	const struct cpe_port *p = &cpe.ports[idx];
	uint64_t t;
	uint16_t n;

	if (cpe.by_id[p->id] != (int16_t)idx) {
		n = RTE_MIN(nb_held[idx], cap);
		if (n == 0)
			return 0;
		memcpy(pkts, held[idx], n * sizeof(pkts[0]));
		nb_held[idx] -= n;
		memmove(held[idx], held[idx] + n, nb_held[idx] * sizeof(pkts[0]));
		return n;
	}
	/* Removed (RMV): its port id is no port until the re-probe. */
	if (unlikely(cpe.phys[p->phys].gone))
		return 0;
	if (!cpe_idle_poll_port(p->phys)) {
		cpe.st.idle_polls_skipped++;
		return 0;
	}
	n = rte_eth_rx_burst(p->id, 0, pkts, RTE_MIN(cap, CPE_BURST));
	if (n == 0)
		return 0;
	/* Sorting is the router's work: counted with it, not the PMD's. */
	t = rte_rdtsc();
	n = demux(idx, pkts, n);
	cpe.st.app_cycles += rte_rdtsc() - t;
	return n;
}

/*
 * Tags a frame for interface idx (a VLAN one): the PMD inserts the tag
 * where it can, else it goes in here. 0, or <0 when m was dropped.
 */
int
cpe_vlan_tag(uint16_t idx, struct rte_mbuf *m)
{
	const struct cpe_port *p = &cpe.ports[idx];

	m->vlan_tci = p->vlan;
	if (cpe.phys[p->phys].tx_offload) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		cpe.st.vlan_tx_offload++;
		return 0;
	}
	/* In the headroom; it also adds 4 to l2_len for the IPv4 checksum
	 * offload of the packets the router makes.
	 */
	if (rte_vlan_insert(&m) != 0) {
		cpe.st.port[idx].tx_drops++;
		rte_pktmbuf_free(m);
		return -ENOSPC;
	}
	cpe.st.vlan_tx_sw++;
	return 0;
}

void
cpe_vlan_close(void)
{
	uint16_t i;

	for (i = 0; i < CPE_MAX_PORTS; i++) {
		if (nb_held[i])
			rte_pktmbuf_free_bulk(held[i], nb_held[i]);
		nb_held[i] = 0;
	}
}
