/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Ports: one RX and one TX queue each (a USB adapter has no more), the
 * MTU of --mtu with RX scatter and multi-segment TX when frames outgrow an
 * mbuf, the IPv4 checksum offload for the packets the router makes, and
 * a small TX queue per port that bursts at the end of each loop. VLAN
 * interfaces (vlan.c) share their DPDK port's set-up; cpe_tx() tags.
 * A DPDK port that is down or gone (hotplug.c) sends nothing: what the
 * router would send there is dropped and counted (down_drops), and a
 * re-probed port is set up again here as at start (cpe_port_restart()).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "cpe.h"

#define NB_DESC		512
#define RX_OVERHEAD	(14 + 8 + 4)	/* L2 header, two tags, FCS */
#define RX_STASH	128		/* mbufs a PMD may hold besides its ring */

static uint32_t
segs(uint32_t len, uint32_t room)
{
	return (len + room - 1) / room;
}

static int
port_start(uint16_t id, uint32_t mtu, bool want_csum, bool *csum)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
	uint16_t nb_rxd = NB_DESC, nb_txd = NB_DESC, cur;
	uint32_t room = cpe.o->data_room;
	int rc;

	rc = rte_eth_dev_info_get(id, &info);
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: port %u: no device info: %s\n", id,
			rte_strerror(-rc));
		return rc;
	}
	if (mtu < info.min_mtu || mtu > info.max_mtu) {
		fprintf(stderr, "ch39x-cpe: --mtu %u: port %u (%s) takes "
			"%u..%u; allowed values are %u..%u\n", mtu, id,
			info.driver_name, info.min_mtu, info.max_mtu,
			info.min_mtu, info.max_mtu);
		return -EINVAL;
	}
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = mtu;
	conf.intr_conf.rxq = cpe_idle_want_intr(id);
	/* Link and removal events where the PMD has them (hotplug.c). */
	if (info.dev_flags != NULL) {
		conf.intr_conf.lsc = (*info.dev_flags &
				      RTE_ETH_DEV_INTR_LSC) != 0;
		conf.intr_conf.rmv = (*info.dev_flags &
				      RTE_ETH_DEV_INTR_RMV) != 0;
	}
	if (mtu + RX_OVERHEAD > room) {
		if (!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) ||
		    !(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)) {
			fprintf(stderr, "ch39x-cpe: --mtu %u: port %u (%s) "
				"cannot chain mbufs; give --mbuf-size %u or "
				"more\n", mtu, id, info.driver_name,
				mtu + RX_OVERHEAD);
			return -EINVAL;
		}
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	*csum = want_csum &&
		(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM);
	if (*csum)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	cpe_vlan_port_conf(id, &conf);
	rc = rte_eth_dev_configure(id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rxd, &nb_txd);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(id, 0, nb_rxd,
					    rte_eth_dev_socket_id(id), NULL,
					    cpe.pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(id, 0, nb_txd,
					    rte_eth_dev_socket_id(id), NULL);
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: port %u (%s): setup failed (MTU "
			"%u): %s\n", id, info.driver_name, mtu,
			rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_set_mtu(id, (uint16_t)mtu);
	if (rc == -ENOTSUP && rte_eth_dev_get_mtu(id, &cur) == 0 &&
	    cur == mtu)
		rc = 0;
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: port %u: cannot set MTU %u: %s\n",
			id, mtu, rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_start(id);
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: port %u: start failed: %s\n", id,
			rte_strerror(-rc));
		return rc;
	}
	/* Broadcasts (ARP) and our unicast MAC only: no promiscuous mode. */
	return 0;
}

static int
check_port(uint16_t id, const char *opt)
{
	char avail[256];
	size_t n = 0;
	uint16_t p;

	if (rte_eth_dev_is_valid_port(id))
		return 0;
	avail[0] = '\0';
	RTE_ETH_FOREACH_DEV(p)
		n += (size_t)snprintf(avail + n, sizeof(avail) - n, "%s%u",
				      n ? "," : "", p);
	fprintf(stderr, "ch39x-cpe: %s: port %u does not exist; allowed "
		"values are the available ports: %s\n", opt, id,
		n ? avail : "none (give EAL a device: --vdev, or vdev lines "
		"in --config)");
	return -ENODEV;
}

int
cpe_ports_setup(void)
{
	const struct cpe_opts *o = cpe.o;
	uint32_t per_frame, n;
	uint16_t i, nb_all;
	bool csum;
	int rc;

	memset(cpe.by_id, -1, sizeof(cpe.by_id));
	cpe.wan = -1;
	for (i = 0; i < o->nb_ports; i++) {
		rc = check_port(o->ports[i].id,
				o->ports[i].wan ? "--wan" : "--lan");
		if (rc != 0)
			return rc;
	}
	if (o->gen.on) {
		rc = check_port(o->gen.tx_port, "--bench-gen");
		if (rc == 0)
			rc = check_port(o->gen.rx_port, "--bench-gen");
		if (rc != 0)
			return rc;
	}
	rc = cpe_vlan_setup();
	if (rc != 0)
		return rc;
	nb_all = o->nb_ports + (o->gen.on ? 2 : 0);
	per_frame = segs(o->mtu + RX_OVERHEAD, o->data_room);
	for (i = 0; i < o->nb_ports; i++)	/* --mtu PORT=N */
		per_frame = RTE_MAX(per_frame, segs(o->ports[i].mtu +
					RX_OVERHEAD, o->data_room));
	n = nb_all * (NB_DESC * 2 + RX_STASH + CPE_TXQ + CPE_BURST) *
		per_frame + CPE_NEIGH_ENTRIES + 4096 +
		cpe_qos_mbufs() * per_frame;
	cpe.pool = rte_pktmbuf_pool_create("cpe_pool", n, 256, 0,
		(uint16_t)(o->data_room + RTE_PKTMBUF_HEADROOM),
		(int)rte_socket_id());
	if (cpe.pool == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create %u mbufs of %u "
			"bytes: %s; give EAL more memory (-m)\n", n,
			o->data_room, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	for (i = 0; i < o->nb_ports; i++) {
		struct cpe_port *p = &cpe.ports[i];
		const struct cpe_port_cfg *c = &o->ports[i];

		p->id = c->id;
		p->wan = c->wan;
		p->ip = c->ip;
		p->ip_be = rte_cpu_to_be_32(c->ip);
		/* An IPv6-only port: a /32 of 0.0.0.0 matches nothing. */
		p->mask = c->ip ? ~0u << (32 - c->plen) : ~0u;
		p->link_mtu = (uint16_t)(c->mtu ? c->mtu : o->mtu);
		/* RFC 2516 7: the session header takes 8 of the link's. */
		p->pppoe = c->pppoe;
		p->mtu = p->link_mtu - (p->pppoe ? CPE_PPPOE_OVERHEAD : 0);
		/* Once per DPDK port: its VLAN interfaces share it. */
		if (cpe.by_id[p->id] < 0) {
			rc = port_start(p->id, p->link_mtu, o->tx_csum, &csum);
			if (rc != 0 && cpe_idle_intr_refused(p->id))
				rc = port_start(p->id, p->link_mtu, o->tx_csum,
						&csum);
			if (rc != 0)
				return rc;
			cpe.by_id[p->id] = (int16_t)i;
		} else {
			csum = cpe.ports[cpe.by_id[p->id]].ip_csum_offload;
		}
		p->ip_csum_offload = csum;
		rte_eth_macaddr_get(p->id, &p->mac);
		if (p->wan)
			cpe.wan = (int16_t)i;
		cpe.nb_ports = i + 1;
	}
	if (o->gen.on) {
		rc = port_start(o->gen.tx_port, o->mtu, false, &csum);
		if (rc == 0)
			rc = port_start(o->gen.rx_port, o->mtu, false, &csum);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void
cpe_ports_close(void)
{
	const struct cpe_opts *o = cpe.o;
	uint16_t i;

	cpe_qos_close();
	for (i = 0; i < cpe.nb_ports; i++) {
		struct cpe_port *p = &cpe.ports[i];

		if (p->nb_tx)
			rte_pktmbuf_free_bulk(p->txq, p->nb_tx);
		p->nb_tx = 0;
		if (cpe.by_id[p->id] != (int16_t)i || cpe.phys[p->phys].gone)
			continue;
		rte_eth_dev_stop(p->id);
		rte_eth_dev_close(p->id);
	}
	cpe_vlan_close();
	if (o->gen.on) {
		rte_eth_dev_stop(o->gen.tx_port);
		rte_eth_dev_close(o->gen.tx_port);
		rte_eth_dev_stop(o->gen.rx_port);
		rte_eth_dev_close(o->gen.rx_port);
	}
}

static void
flush_port(struct cpe_port *p, struct cpe_port_stats *s)
{
	uint16_t sent, i;

	sent = rte_eth_tx_burst(p->id, 0, p->txq, p->nb_tx);
	/* Lengths were noted at enqueue: sent mbufs belong to the PMD. */
	for (i = 0; i < sent; i++)
		s->tx_bytes += p->txlen[i];
	s->tx += sent;
	/* The rest waits for the next loop: the queue is our buffer. */
	if (sent && sent < p->nb_tx) {
		memmove(p->txq, p->txq + sent,
			(p->nb_tx - sent) * sizeof(p->txq[0]));
		memmove(p->txlen, p->txlen + sent,
			(p->nb_tx - sent) * sizeof(p->txlen[0]));
	}
	p->nb_tx -= sent;
}

void
cpe_tx(uint16_t idx, struct rte_mbuf *m)
{
	struct cpe_port *p = &cpe.ports[idx];

	/* Its port is down or gone: nothing leaves (hotplug.c). */
	if (unlikely(cpe.phys[p->phys].down)) {
		cpe.st.port[idx].down_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	/* PPPoE: IP into the session (its 8 bytes count for the shaper). */
	if (unlikely(p->pppoe) && cpe_pppoe_tx(m) != 0)
		return;
	/* The WAN scheduler queues by class and lets out at its rate. */
	if (unlikely(cpe_qos_on) && idx == cpe.wan) {
		cpe_qos_enqueue(m);
		return;
	}
	/* And the downlink's: from the WAN to a LAN port (--down-rate). */
	if (unlikely(cpe.down_in) && !p->wan) {
		cpe_qos_down_enqueue(idx, m);
		return;
	}
	if (p->nb_tx == CPE_TXQ) {
		flush_port(p, &cpe.st.port[idx]);
		if (p->nb_tx == CPE_TXQ) {
			cpe.st.port[idx].tx_drops++;
			rte_pktmbuf_free(m);
			return;
		}
	}
	p->txlen[p->nb_tx] = rte_pktmbuf_pkt_len(m);
	/* Bytes are counted without the tag, as on input. */
	if (p->vlan && cpe_vlan_tag(idx, m) != 0)
		return;
	p->txq[p->nb_tx++] = m;
}

void
cpe_tx_flush(void)
{
	uint16_t i;

	if (unlikely(cpe_qos_on || cpe_qos_down_on))
		cpe_qos_dequeue();
	for (i = 0; i < cpe.nb_ports; i++) {
		if (!cpe.ports[i].nb_tx)
			continue;
		/* The scheduler's held packets, drained into a dead port. */
		if (unlikely(cpe.phys[cpe.ports[i].phys].down))
			cpe_tx_drop_phys(cpe.ports[i].phys);
		else
			flush_port(&cpe.ports[i], &cpe.st.port[i]);
	}
}

void
cpe_tx_drop_phys(uint16_t k)
{
	struct cpe_port *p;
	uint16_t i;

	for (i = 0; i < cpe.nb_ports; i++) {
		p = &cpe.ports[i];
		if (p->phys != k || p->nb_tx == 0)
			continue;
		rte_pktmbuf_free_bulk(p->txq, p->nb_tx);
		cpe.st.port[i].down_drops += p->nb_tx;
		p->nb_tx = 0;
	}
}

/*
 * After a re-probe (hotplug.c): cpe.phys[k].id is the port the probe
 * made (the interfaces' ids already follow it). Queues, offloads, MTU
 * and Rx interrupts as cpe_ports_setup() chose them; the address the
 * router had, so that the hosts' ARP and ND caches stay right (a PMD
 * that cannot take it: the new one, with a warning).
 */
int
cpe_port_restart(uint16_t k)
{
	uint16_t id = cpe.phys[k].id, i;
	struct cpe_port *first = &cpe.ports[cpe.by_id[id]];
	struct rte_ether_addr mac;
	bool csum;
	int rc;

	rc = port_start(id, first->link_mtu, cpe.o->tx_csum, &csum);
	if (rc != 0 && cpe_idle_intr_refused(id))
		rc = port_start(id, first->link_mtu, cpe.o->tx_csum, &csum);
	if (rc != 0)
		return rc;
	if (rte_eth_macaddr_get(id, &mac) == 0 &&
	    !rte_is_same_ether_addr(&mac, &first->mac) &&
	    (rc = rte_eth_dev_default_mac_addr_set(id, &first->mac)) != 0) {
		fprintf(stderr, "ch39x-cpe: port %u: cannot take its address "
			"back (%s); the hosts must learn the new one\n", id,
			rte_strerror(-rc));
		for (i = 0; i < cpe.nb_ports; i++)
			if (cpe.ports[i].phys == k)
				cpe.ports[i].mac = mac;
	}
	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe.ports[i].phys == k)
			cpe.ports[i].ip_csum_offload = csum;
	return 0;
}
