/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The DPDK ports: one RX and one TX queue each (a USB adapter has no
 * more), the MTU of --mtu with RX scatter and multi-segment TX when
 * frames outgrow an mbuf, the IPv4 checksum offload for the packets the
 * router makes, VLAN strip/insert where the PMD offers them for a port
 * with VLAN interfaces; the interfaces on them (datapath/iface.h); the
 * mbuf pool, with room in each mbuf for the slow path's metadata
 * (datapath/dp.h). A port that is re-probed (hotplug.c) is set up here
 * again as at start (cpe_port_restart()).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include "idle.h"
#include "ports.h"
#include "qos_sched.h"
#include "router.h"

#define NB_DESC		512
#define RX_OVERHEAD	(14 + 8 + 4)	/* L2 header, two tags, FCS */
#define RX_STASH	128		/* mbufs a PMD may hold besides its ring */

static uint32_t
segs(uint32_t len, uint32_t room)
{
	return (len + room - 1) / room;
}

/* The offloads the port takes, for its MTU and its VLAN interfaces. */
static int
port_conf(struct cpe_router *r, uint16_t id, uint32_t mtu,
	  const struct rte_eth_dev_info *info, struct rte_eth_conf *conf)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t k;

	memset(conf, 0, sizeof(*conf));
	conf->rxmode.mtu = mtu;
	conf->intr_conf.rxq = cpe_idle_want_intr(r, id);
	/* Link and removal events where the PMD has them (hotplug.c). */
	if (info->dev_flags != NULL) {
		conf->intr_conf.lsc = (*info->dev_flags &
				       RTE_ETH_DEV_INTR_LSC) != 0;
		conf->intr_conf.rmv = (*info->dev_flags &
				       RTE_ETH_DEV_INTR_RMV) != 0;
	}
	if (mtu + RX_OVERHEAD > r->o->data_room) {
		if (!(info->rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) ||
		    !(info->tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)) {
			fprintf(stderr, "ch39x-cpe: --mtu %u: port %u (%s) "
				"cannot chain mbufs; give --mbuf-size %u or "
				"more\n", mtu, id, info->driver_name,
				mtu + RX_OVERHEAD);
			return -EINVAL;
		}
		conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
		conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	for (k = 0; k < ifs->nb_phys; k++) {
		if (ifs->phys[k].id != id)
			continue;
		if (ifs->phys[k].rx_offload)
			conf->rxmode.offloads |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
		if (ifs->phys[k].tx_offload)
			conf->txmode.offloads |= RTE_ETH_TX_OFFLOAD_VLAN_INSERT;
	}
	return 0;
}

static int
port_queues(struct cpe_router *r, uint16_t id, uint32_t mtu,
	    const struct rte_eth_dev_info *info, struct rte_eth_conf *conf)
{
	uint16_t nb_rxd = NB_DESC, nb_txd = NB_DESC, cur;
	int rc;

	rc = rte_eth_dev_configure(id, 1, 1, conf);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(id, &nb_rxd, &nb_txd);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(id, 0, nb_rxd,
					    rte_eth_dev_socket_id(id), NULL,
					    r->dp->env.pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(id, 0, nb_txd,
					    rte_eth_dev_socket_id(id), NULL);
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: port %u (%s): setup failed (MTU "
			"%u): %s\n", id, info->driver_name, mtu,
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
	return 0;
}

static int
port_start(struct cpe_router *r, uint16_t id, uint32_t mtu, bool want_csum,
	   bool *csum)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf;
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
	rc = port_conf(r, id, mtu, &info, &conf);
	if (rc != 0)
		return rc;
	*csum = want_csum &&
		(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM);
	if (*csum)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	rc = port_queues(r, id, mtu, &info, &conf);
	if (rc == 0 && (rc = rte_eth_dev_start(id)) != 0)
		fprintf(stderr, "ch39x-cpe: port %u: start failed: %s\n", id,
			rte_strerror(-rc));
	/* Broadcasts (ARP) and our unicast MAC only: no promiscuous mode. */
	return rc;
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

static uint16_t
phys_add(struct cpe_ifaces *ifs, uint16_t id)
{
	struct cpe_phys *ph;
	uint16_t k;

	for (k = 0; k < ifs->nb_phys; k++)
		if (ifs->phys[k].id == id)
			return k;
	ph = &ifs->phys[ifs->nb_phys];
	memset(ph, 0, sizeof(*ph));
	ph->id = id;
	memset(ph->vid_if, CPE_VLAN_NONE, sizeof(ph->vid_if));
	return ifs->nb_phys++;
}

/*
 * The DPDK ports under the interfaces, their VLAN maps, and which tag work
 * their PMDs take (decided before the ports are configured).
 */
static int
vlan_setup(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	struct cpe_ifaces *ifs = &r->dp->ifs;
	struct rte_eth_dev_info info;
	struct cpe_phys *ph;
	uint16_t i, k;
	int rc;

	ifs->nb_phys = 0;
	for (i = 0; i < o->nb_ports; i++) {
		k = phys_add(ifs, o->ports[i].id);
		ph = &ifs->phys[k];
		ph->vid_if[o->ports[i].vlan] = (uint8_t)i;
		ph->tagged |= o->ports[i].vlan != 0;
		ifs->ifs[i].vlan = o->ports[i].vlan;
		ifs->ifs[i].phys = k;
	}
	for (k = 0; k < ifs->nb_phys; k++) {
		ph = &ifs->phys[k];
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

/*
 * rte_pktmbuf_pool_create's pool, its objects packed end to end. Without
 * hugepages (--no-huge) a mempool keeps each object inside one 4 KB page;
 * an mbuf of 2 KB data room (2.5 KB with its private area) then takes a
 * page of its own, and every mbuf, its private area and its frame's
 * first line fall in the same three L1 sets: a 12-way L1 keeps only 12
 * bursts' packets there, and each node of the graph, visiting the burst's
 * 32 after the node before it, found them evicted (doc/perf/cpe_graph.txt
 * section 7: 18 L1 misses a packet on the slow path, 4 in the pre-graph
 * router, which visits a packet once). The pages only matter for an
 * object's IOVA; with IOVA as VA an object across two pages is contiguous
 * there too, so the pool is made without that constraint
 * (RTE_MEMPOOL_F_NO_IOVA_CONTIG), as rte_pktmbuf_pool_create_by_ops does
 * it otherwise. With hugepages or physical addresses: unchanged.
 */
static struct rte_mempool *
pool_create(const char *name, unsigned int n, unsigned int cache,
	    uint16_t priv, uint16_t room, int socket)
{
	struct rte_pktmbuf_pool_private mbp = {
		.mbuf_data_room_size = room,
		.mbuf_priv_size = priv,
	};
	struct rte_mempool *mp;
	int ret;

	if (rte_eal_has_hugepages() || rte_eal_iova_mode() != RTE_IOVA_VA)
		return rte_pktmbuf_pool_create(name, n, cache, priv, room,
					       socket);
	mp = rte_mempool_create_empty(name, n, sizeof(struct rte_mbuf) +
		(unsigned int)priv + room, cache, sizeof(mbp), socket,
		RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (mp == NULL)
		return NULL;
	ret = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(),
					 NULL);
	if (ret == 0) {
		rte_pktmbuf_pool_init(mp, &mbp);
		ret = rte_mempool_populate_default(mp);
	}
	if (ret < 0) {
		rte_mempool_free(mp);
		rte_errno = -ret;
		return NULL;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
}

/* The mbufs: the rings and backlogs of every port, the schedulers',
 * the neighbour queues', in frames of the largest MTU. */
static int
make_pool(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	uint32_t per_frame, n;
	uint16_t i, nb_all = o->nb_ports + (o->gen.on ? 2 : 0);

	per_frame = segs(o->mtu + RX_OVERHEAD, o->data_room);
	for (i = 0; i < o->nb_ports; i++)	/* --mtu PORT=N */
		per_frame = RTE_MAX(per_frame, segs(o->ports[i].mtu +
					RX_OVERHEAD, o->data_room));
	n = nb_all * (NB_DESC * 2 + RX_STASH + CPE_TXQ + CPE_BURST) *
		per_frame + CPE_NEIGH_ENTRIES * (1 + CPE_NEIGH_QUEUE) + 4096 +
		cpe_qos_mbufs(&o->qos) * per_frame;
	r->dp->env.pool = pool_create("cpe_pool", n, 256,
		CPE_MB_PRIV_SIZE,
		(uint16_t)(o->data_room + RTE_PKTMBUF_HEADROOM),
		(int)rte_socket_id());
	if (r->dp->env.pool == NULL) {
		fprintf(stderr, "ch39x-cpe: cannot create %u mbufs of %u "
			"bytes: %s; give EAL more memory (-m)\n", n,
			o->data_room, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

/* Interface i as configured, its port started once for all of them. */
static int
iface_setup(struct cpe_router *r, uint16_t i)
{
	const struct cpe_opts *o = r->o;
	const struct cpe_port_cfg *c = &o->ports[i];
	struct cpe_ifaces *ifs = &r->dp->ifs;
	struct cpe_iface *p = &ifs->ifs[i];
	bool csum;
	int rc;

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
	if (ifs->by_id[p->id] < 0) {
		rc = port_start(r, p->id, p->link_mtu, o->tx_csum, &csum);
		if (rc != 0 && cpe_idle_intr_refused(r, p->id))
			rc = port_start(r, p->id, p->link_mtu, o->tx_csum,
					&csum);
		if (rc != 0)
			return rc;
		ifs->by_id[p->id] = (int16_t)i;
	} else {
		csum = ifs->ifs[ifs->by_id[p->id]].ip_csum_offload;
	}
	p->ip_csum_offload = csum;
	rte_eth_macaddr_get(p->id, &p->mac);
	if (p->wan)
		ifs->wan = (int16_t)i;
	ifs->nb = i + 1;
	return 0;
}

int
cpe_ports_setup(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t i;
	bool csum;
	int rc = 0;

	memset(ifs->by_id, -1, sizeof(ifs->by_id));
	ifs->wan = -1;
	for (i = 0; rc == 0 && i < o->nb_ports; i++)
		rc = check_port(o->ports[i].id,
				o->ports[i].wan ? "--wan" : "--lan");
	if (rc == 0 && o->gen.on) {
		rc = check_port(o->gen.tx_port, "--bench-gen");
		if (rc == 0)
			rc = check_port(o->gen.rx_port, "--bench-gen");
	}
	if (rc == 0)
		rc = vlan_setup(r);
	if (rc == 0)
		rc = make_pool(r);
	for (i = 0; rc == 0 && i < o->nb_ports; i++)
		rc = iface_setup(r, i);
	r->dp->env.wan = ifs->wan >= 0 ? (uint16_t)ifs->wan : CPE_NO_IF;
	if (rc == 0 && o->gen.on) {
		rc = port_start(r, o->gen.tx_port, o->mtu, false, &csum);
		if (rc == 0)
			rc = port_start(r, o->gen.rx_port, o->mtu, false,
					&csum);
	}
	return rc;
}

void
cpe_ports_close(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	const struct cpe_iface *p;
	uint16_t i;

	for (i = 0; i < ifs->nb; i++) {
		p = &ifs->ifs[i];
		if (ifs->by_id[p->id] != (int16_t)i || ifs->phys[p->phys].gone)
			continue;
		rte_eth_dev_stop(p->id);
		rte_eth_dev_close(p->id);
	}
	if (o->gen.on) {
		rte_eth_dev_stop(o->gen.tx_port);
		rte_eth_dev_close(o->gen.tx_port);
		rte_eth_dev_stop(o->gen.rx_port);
		rte_eth_dev_close(o->gen.rx_port);
	}
}

/*
 * After a re-probe (hotplug.c): phys[k].id is the port the probe made
 * (the interfaces' ids already follow it). Queues, offloads, MTU and Rx
 * interrupts as at start; the address the router had, so that the hosts'
 * ARP and ND caches stay right (a PMD that cannot take it: the new one,
 * with a warning).
 */
int
cpe_port_restart(struct cpe_router *r, uint16_t k)
{
	struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t id = ifs->phys[k].id, i;
	struct cpe_iface *first = &ifs->ifs[ifs->by_id[id]];
	struct rte_ether_addr mac;
	bool csum;
	int rc;

	rc = port_start(r, id, first->link_mtu, r->o->tx_csum, &csum);
	if (rc != 0 && cpe_idle_intr_refused(r, id))
		rc = port_start(r, id, first->link_mtu, r->o->tx_csum, &csum);
	if (rc != 0)
		return rc;
	if (rte_eth_macaddr_get(id, &mac) == 0 &&
	    !rte_is_same_ether_addr(&mac, &first->mac) &&
	    (rc = rte_eth_dev_default_mac_addr_set(id, &first->mac)) != 0) {
		fprintf(stderr, "ch39x-cpe: port %u: cannot take its address "
			"back (%s); the hosts must learn the new one\n", id,
			rte_strerror(-rc));
		for (i = 0; i < ifs->nb; i++)
			if (ifs->ifs[i].phys == k)
				ifs->ifs[i].mac = mac;
	}
	for (i = 0; i < ifs->nb; i++)
		if (ifs->ifs[i].phys == k)
			ifs->ifs[i].ip_csum_offload = csum;
	return 0;
}
