/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Ports: which ones, what the run does on them (MTU, frame and segment
 * sizes, TSO, mbuf layout), their setup with one RX and one TX queue,
 * counter snapshots, and teardown.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "perf.h"

#define PERF_NB_DESC		512
/* RX frame bytes beyond the MTU a port may deliver: L2 header, 2 tags, FCS. */
#define PERF_RX_OVERHEAD	(14 + 8 + 4)
/* Mbufs a PMD may keep aside besides its ring (net_ch39x: a 64-mbuf stash). */
#define PERF_RX_STASH		128

static const char * const xs_names[XS_COUNT] = {
	[XS_RX_USB_XFERS] = "rx_usb_xfers",
	[XS_RX_USB_BYTES] = "rx_usb_bytes",
	[XS_RX_FRAMES] = "rx_frames",
	[XS_TX_USB_XFERS] = "tx_usb_xfers",
	[XS_TX_USB_BYTES] = "tx_usb_bytes",
	[XS_TX_GOOD_PACKETS] = "tx_good_packets",
	[XS_TX_TSO_HW] = "tx_tso_hw_frames",
	[XS_TX_TSO_SW] = "tx_tso_sw_frames",
	[XS_TX_TSO_SW_SEGS] = "tx_tso_sw_segments",
	[XS_TX_RING_FULL] = "tx_ring_full",
	[XS_SIM_DEVICE_CYCLES] = "sim_device_cycles",
};

static void
list_ports(char *buf, size_t size)
{
	uint16_t id;
	size_t n = 0;

	buf[0] = '\0';
	RTE_ETH_FOREACH_DEV(id) {
		n += (size_t)snprintf(buf + n, size - n, "%s%u",
				      n ? "," : "", id);
		if (n >= size)
			break;
	}
	if (buf[0] == '\0')
		snprintf(buf, size, "none");
}

/* Which ports, in which role. */
static int
pick_ports(struct perf_run *r, const struct perf_opts *o)
{
	bool two = o->mode == PERF_IO || o->mode == PERF_TCP;
	uint16_t ids[PERF_MAX_PORTS], n = 0, id, i;
	char avail[256];

	list_ports(avail, sizeof(avail));
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "ch39x-perf: no ports: give EAL a device, for "
			"example -d librte_net_ch39x.so --vdev net_ch39x0 (or "
			"--vdev net_null0)\n");
		return -ENODEV;
	}
	if (o->nb_ports) {
		for (i = 0; i < o->nb_ports; i++) {
			if (!rte_eth_dev_is_valid_port(o->ports[i])) {
				fprintf(stderr, "ch39x-perf: --ports: port %u "
					"does not exist; allowed values are "
					"the available ports: %s\n",
					o->ports[i], avail);
				return -ENODEV;
			}
			ids[n++] = o->ports[i];
		}
	} else {
		RTE_ETH_FOREACH_DEV(id) {
			if (two && n == 2)
				break;
			ids[n++] = id;
		}
	}
	if (two && n != 2) {
		fprintf(stderr, "ch39x-perf: --mode %s needs exactly 2 ports "
			"(--ports A,B), but %u %s; available ports: %s\n",
			perf_mode_name(o->mode), n,
			o->nb_ports ? (n == 1 ? "was given" : "were given") :
			(n == 1 ? "is available" : "are available"), avail);
		return -EINVAL;
	}
	r->ports = rte_zmalloc("perf_ports", sizeof(*r->ports) * n, 0);
	if (r->ports == NULL)
		return -ENOMEM;
	r->nb_ports = n;
	for (i = 0; i < n; i++) {
		struct perf_port *p = &r->ports[i];

		p->id = ids[i];
		p->peer = i ^ 1;
		switch (o->mode) {
		case PERF_TXONLY:
			p->tx_role = true;
			break;
		case PERF_RXONLY:
			p->rx_role = true;
			break;
		case PERF_IO:
			p->tx_role = p->rx_role = true;
			break;
		case PERF_TCP:
			p->tx_role = i == 0;
			p->rx_role = i == 1;
			break;
		}
	}
	return 0;
}

static int
port_info(struct perf_port *p)
{
	int rc;

	rc = rte_eth_dev_info_get(p->id, &p->info);
	if (rc != 0) {
		fprintf(stderr, "ch39x-perf: port %u: cannot get device info: "
			"%s\n", p->id, rte_strerror(-rc));
		return rc;
	}
	if (rte_eth_dev_get_name_by_port(p->id, p->name) != 0)
		snprintf(p->name, sizeof(p->name), "port%u", p->id);
	snprintf(p->driver, sizeof(p->driver), "%s",
		 p->info.driver_name ? p->info.driver_name : "?");
	rc = rte_eth_macaddr_get(p->id, &p->mac);
	if (rc != 0)
		memset(&p->mac, 0, sizeof(p->mac));
	return 0;
}

/* MTU, frame and segment sizes; checked against every port. */
static int
derive_cfg(struct perf_run *r, const struct perf_opts *o)
{
	struct perf_cfg *c = &r->cfg;
	const char *why;
	uint32_t tso_size, i;

	c->mode = o->mode;
	c->burst = o->burst;
	c->json = o->json;
	c->latency = o->latency;
	c->packets = o->packets;
	c->duration = o->duration ? o->duration :
		o->packets ? PERF_MAX_DURATION : PERF_DEF_DURATION;
	c->tx_first = o->tx_first >= 0 ? (uint16_t)o->tx_first :
		PERF_DEF_TX_FIRST;
	c->tcp_window = o->tcp_window ? o->tcp_window : PERF_DEF_TCP_WINDOW;
	c->mtu = (uint16_t)(o->mtu ? o->mtu :
		 o->frame_size > PERF_DEF_MTU + 14 ? o->frame_size - 14 :
		 PERF_DEF_MTU);
	if (o->mode == PERF_TCP) {
		c->mss = o->tso_mss ? o->tso_mss :
			o->frame_size ? o->frame_size - PERF_TCP_HDRS :
			(uint32_t)c->mtu - PERF_IP_TCP_HDRS;
		c->frame_size = c->mss + PERF_TCP_HDRS;
	} else {
		c->frame_size = o->frame_size ? o->frame_size :
			o->mtu ? o->mtu + 14 : PERF_DEF_FRAME;
	}
	why = o->frame_size && !o->mtu ? "--frame-size" : "--mtu";
	for (i = 0; i < r->nb_ports; i++) {
		struct perf_port *p = &r->ports[i];

		if (c->mtu < p->info.min_mtu || c->mtu > p->info.max_mtu) {
			fprintf(stderr, "ch39x-perf: %s %u: port %u (%s) takes "
				"an MTU of %u..%u; allowed values are %u..%u%s\n",
				why, o->mtu ? o->mtu : o->frame_size ?
				o->frame_size : c->mtu, p->id,
				p->name, p->info.min_mtu, p->info.max_mtu,
				strcmp(why, "--mtu") == 0 ? p->info.min_mtu :
				PERF_MIN_FRAME,
				strcmp(why, "--mtu") == 0 ? p->info.max_mtu :
				(uint32_t)p->info.max_mtu + 14,
				strcmp(why, "--mtu") == 0 ? "" :
				" (MTU + 14)");
			return -EINVAL;
		}
		if (p->rx_role && c->frame_size > p->info.max_rx_pktlen) {
			fprintf(stderr, "ch39x-perf: --frame-size %u: port %u "
				"(%s) receives frames of up to %u bytes\n",
				c->frame_size, p->id, p->name,
				p->info.max_rx_pktlen);
			return -EINVAL;
		}
	}
	if (o->mode != PERF_TCP)
		return 0;
	/* TSO and checksums are asked of the sending port. */
	c->tso_asked = o->tso;
	c->tso = o->tso && (r->ports[0].info.tx_offload_capa &
			    RTE_ETH_TX_OFFLOAD_TCP_TSO);
	if (o->tso && !c->tso)
		fprintf(stderr, "ch39x-perf: warning: port %u (%s) does not "
			"advertise RTE_ETH_TX_OFFLOAD_TCP_TSO: sending %u-byte "
			"segments without TSO\n", r->ports[0].id,
			r->ports[0].name, c->mss);
	c->tx_csum_offload = (r->ports[0].info.tx_offload_capa &
			      (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
			       RTE_ETH_TX_OFFLOAD_TCP_CKSUM)) ==
		(RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
	c->msg_payload = c->mss;
	if (c->tso) {
		tso_size = o->tso_size ? o->tso_size :
			c->mss <= PERF_HW_TSO_MSS_MAX ? PERF_DEF_TSO_SIZE :
			PERF_TSO_MAX_FRAME;
		if (tso_size >= PERF_TCP_HDRS + c->mss)
			c->msg_payload = (tso_size - PERF_TCP_HDRS) /
				c->mss * c->mss;
	}
	c->msg_len = c->msg_payload + PERF_TCP_HDRS;
	return 0;
}

/* Mbuf data room, scatter and multi-segment TX. */
static int
derive_layout(struct perf_run *r, const struct perf_opts *o)
{
	struct perf_cfg *c = &r->cfg;
	uint32_t rx_max = c->mtu + PERF_RX_OVERHEAD;
	/* io sends what it receives: chains when RX scatters. */
	uint32_t tx_max = c->mode == PERF_TCP ? c->msg_len :
		c->mode == PERF_IO ? RTE_MAX(c->frame_size, rx_max) :
		c->frame_size;
	bool no_scatter = false, no_mseg = false;
	uint32_t i, room = o->data_room ? o->data_room : PERF_DEF_DATA_ROOM;

	/*
	 * Every port has an RX queue, and PMDs check its mbufs against the
	 * MTU whether or not the mode receives there.
	 */
	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_port *p = &r->ports[i];

		if (!(p->info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
			no_scatter = true;
		if (p->tx_role && !(p->info.tx_offload_capa &
				    RTE_ETH_TX_OFFLOAD_MULTI_SEGS))
			no_mseg = true;
	}
	/* Ports that cannot chain get one mbuf per frame instead. */
	if (rx_max > room && no_scatter)
		room = RTE_MIN(rx_max, (uint32_t)PERF_MAX_DATA_ROOM);
	if (tx_max > room && no_mseg) {
		if (tx_max > PERF_MAX_DATA_ROOM) {
			fprintf(stderr, "ch39x-perf: --tso-size: %u-byte "
				"super-frames need multi-segment mbufs, which "
				"a port lacks; allowed values are up to %u\n",
				tx_max, PERF_MAX_DATA_ROOM);
			return -EINVAL;
		}
		room = tx_max;
	}
	if (o->data_room && room != o->data_room)
		fprintf(stderr, "ch39x-perf: warning: --mbuf-size %u raised to "
			"%u: a port can neither scatter nor chain\n",
			o->data_room, room);
	c->data_room = room;
	c->rx_scatter = rx_max > room;
	c->tx_multi_seg = tx_max > room;
	return 0;
}

static int
make_pool(struct perf_run *r)
{
	const struct perf_cfg *c = &r->cfg;
	uint32_t rx_segs = perf_segs(c->mtu + PERF_RX_OVERHEAD, c->data_room);
	uint32_t tx_segs = perf_segs(c->mode == PERF_TCP ? c->msg_len :
				     c->frame_size, c->data_room);
	uint32_t pend = 4u * c->burst, i;
	uint64_t n = 1024;

	for (i = 0; i < r->nb_ports; i++) {
		const struct perf_port *p = &r->ports[i];

		n += (uint64_t)(PERF_NB_DESC + PERF_RX_STASH) * rx_segs;
		if (p->rx_role)
			n += (uint64_t)(c->burst + pend) * rx_segs;
		if (p->tx_role)
			n += (uint64_t)(PERF_NB_DESC + pend + c->burst +
					(c->mode == PERF_IO ?
					 c->tx_first * c->burst : 0)) * tx_segs;
	}
	n = RTE_MAX(n, (uint64_t)8191);
	r->pool = rte_pktmbuf_pool_create("perf_pool", (unsigned int)n, 256,
					  0, (uint16_t)(c->data_room +
							RTE_PKTMBUF_HEADROOM),
					  (int)rte_socket_id());
	if (r->pool == NULL) {
		fprintf(stderr, "ch39x-perf: cannot create a pool of %" PRIu64
			" mbufs of %u bytes: %s; give EAL more memory (-m) or "
			"use a smaller --mbuf-size, --burst or --tso-size\n",
			n, c->data_room, rte_strerror(rte_errno));
		return -ENOMEM;
	}
	return 0;
}

static int
port_start(struct perf_run *r, struct perf_port *p)
{
	const struct perf_cfg *c = &r->cfg;
	uint64_t txo = p->info.tx_offload_capa;
	uint16_t nb_rxd = PERF_NB_DESC, nb_txd = PERF_NB_DESC, mtu = 0;
	struct rte_eth_conf conf;
	int rc;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = c->mtu;
	if (c->rx_scatter)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (c->tx_multi_seg && p->tx_role)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (c->mode == PERF_TCP && p->tx_role) {
		if (c->tso)
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_TCP_TSO;
		if (c->tx_csum_offload)
			conf.txmode.offloads |= txo &
				(RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
				 RTE_ETH_TX_OFFLOAD_TCP_CKSUM);
	}
	rc = rte_eth_dev_configure(p->id, 1, 1, &conf);
	if (rc != 0) {
		fprintf(stderr, "ch39x-perf: port %u (%s): configure failed "
			"(MTU %u, rx offloads 0x%" PRIx64 ", tx offloads 0x%"
			PRIx64 "): %s\n", p->id, p->name, c->mtu,
			conf.rxmode.offloads, conf.txmode.offloads,
			rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(p->id, &nb_rxd, &nb_txd);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(p->id, 0, nb_rxd,
					    rte_eth_dev_socket_id(p->id), NULL,
					    r->pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(p->id, 0, nb_txd,
					    rte_eth_dev_socket_id(p->id), NULL);
	if (rc != 0) {
		fprintf(stderr, "ch39x-perf: port %u (%s): queue setup failed: "
			"%s\n", p->id, p->name, rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_dev_set_mtu(p->id, c->mtu);
	if (rc == -ENOTSUP && rte_eth_dev_get_mtu(p->id, &mtu) == 0 &&
	    mtu == c->mtu)
		rc = 0;
	if (rc != 0) {
		fprintf(stderr, "ch39x-perf: port %u (%s): cannot set MTU %u: "
			"%s\n", p->id, p->name, c->mtu, rte_strerror(-rc));
		return rc;
	}
	rc = rte_eth_promiscuous_enable(p->id);
	if (rc != 0 && rc != -ENOTSUP)
		fprintf(stderr, "ch39x-perf: warning: port %u (%s): "
			"promiscuous mode: %s\n", p->id, p->name,
			rte_strerror(-rc));
	rc = rte_eth_dev_start(p->id);
	if (rc != 0) {
		fprintf(stderr, "ch39x-perf: port %u (%s): start failed: %s\n",
			p->id, p->name, rte_strerror(-rc));
		return rc;
	}
	p->started = true;
	return 0;
}

static void
find_xstats(struct perf_port *p)
{
	unsigned int k;

	for (k = 0; k < XS_COUNT; k++)
		p->xs_found[k] = rte_eth_xstats_get_id_by_name(p->id,
			xs_names[k], &p->xs_id[k]) == 0;
	p->has_usb = p->xs_found[XS_RX_USB_XFERS] &&
		p->xs_found[XS_RX_USB_BYTES] && p->xs_found[XS_RX_FRAMES] &&
		p->xs_found[XS_TX_USB_XFERS] && p->xs_found[XS_TX_USB_BYTES];
}

static void
wait_links(const struct perf_run *r)
{
	uint64_t deadline = rte_get_timer_cycles() + 3 * rte_get_timer_hz();
	struct rte_eth_link link;
	uint16_t i, up;

	do {
		up = 0;
		for (i = 0; i < r->nb_ports; i++)
			if (rte_eth_link_get_nowait(r->ports[i].id,
						    &link) == 0 &&
			    link.link_status == RTE_ETH_LINK_UP)
				up++;
		if (up == r->nb_ports)
			return;
		rte_delay_ms(10);
	} while (rte_get_timer_cycles() < deadline);
	for (i = 0; i < r->nb_ports; i++)
		if (rte_eth_link_get_nowait(r->ports[i].id, &link) != 0 ||
		    link.link_status != RTE_ETH_LINK_UP)
			fprintf(stderr, "ch39x-perf: warning: port %u (%s): "
				"link down after 3 s; measuring anyway\n",
				r->ports[i].id, r->ports[i].name);
}

static int
make_templates(struct perf_run *r)
{
	static const struct rte_ether_addr other = {
		.addr_bytes = { 0x02, 0, 0, 0, 0, 0x02 } };
	const struct perf_cfg *c = &r->cfg;
	uint16_t i;

	for (i = 0; i < r->nb_ports; i++) {
		struct perf_port *p = &r->ports[i];
		const struct rte_ether_addr *dst = r->nb_ports == 2 ?
			&r->ports[p->peer].mac : &other;

		p->pend_cap = (uint16_t)(4 * c->burst);
		if (!p->tx_role)
			continue;
		p->tmpl_len = c->frame_size;
		p->tmpl = rte_zmalloc("perf_tmpl", c->frame_size, 64);
		if (p->tmpl == NULL)
			return -ENOMEM;
		if (c->mode != PERF_TCP)
			perf_build_udp(p->tmpl, c->frame_size, &p->mac, dst);
	}
	if (c->mode == PERF_TCP) {
		struct perf_port *p = &r->ports[0];

		r->scratch = rte_zmalloc("perf_msg", c->msg_len, 64);
		if (r->scratch == NULL)
			return -ENOMEM;
		perf_build_tcp_hdr(r->scratch, &p->mac, &r->ports[1].mac);
		for (i = PERF_TCP_HDRS; i < c->msg_len; i++)
			r->scratch[i] = (uint8_t)i;
	}
	return 0;
}

int
perf_ports_setup(struct perf_run *r, const struct perf_opts *o)
{
	uint16_t i;
	int rc;

	rc = pick_ports(r, o);
	for (i = 0; rc == 0 && i < r->nb_ports; i++)
		rc = port_info(&r->ports[i]);
	if (rc == 0)
		rc = derive_cfg(r, o);
	if (rc == 0)
		rc = derive_layout(r, o);
	if (rc == 0)
		rc = make_pool(r);
	for (i = 0; rc == 0 && i < r->nb_ports; i++)
		rc = port_start(r, &r->ports[i]);
	if (rc != 0)
		return rc;
	for (i = 0; i < r->nb_ports; i++)
		find_xstats(&r->ports[i]);
	rc = make_templates(r);
	if (rc != 0) {
		fprintf(stderr, "ch39x-perf: out of memory for templates\n");
		return rc;
	}
	wait_links(r);
	return 0;
}

void
perf_snapshot(struct perf_run *r, int which)
{
	uint64_t ids[XS_COUNT], vals[XS_COUNT];
	unsigned int k, n;
	uint16_t i;

	for (i = 0; i < r->nb_ports; i++) {
		struct perf_port *p = &r->ports[i];
		struct perf_snap *s = which == 0 ? &p->s0 :
			which == 1 ? &p->s1 : &p->s2;

		memset(s, 0, sizeof(*s));
		rte_eth_stats_get(p->id, &s->st);
		for (k = 0, n = 0; k < XS_COUNT; k++)
			if (p->xs_found[k])
				ids[n++] = p->xs_id[k];
		if (n == 0 ||
		    rte_eth_xstats_get_by_id(p->id, ids, vals, n) != (int)n)
			continue;
		for (k = 0, n = 0; k < XS_COUNT; k++)
			if (p->xs_found[k])
				s->xs[k] = vals[n++];
	}
}

void
perf_ports_close(struct perf_run *r)
{
	uint16_t i;
	int rc;

	for (i = 0; r->ports != NULL && i < r->nb_ports; i++) {
		struct perf_port *p = &r->ports[i];

		if (p->nb_pend) {
			rte_pktmbuf_free_bulk(p->pend, p->nb_pend);
			p->nb_pend = 0;
		}
		if (p->started) {
			rc = rte_eth_dev_stop(p->id);
			if (rc != 0)
				fprintf(stderr, "ch39x-perf: port %u: stop: "
					"%s\n", p->id, rte_strerror(-rc));
			p->started = false;
		}
		rte_eth_dev_close(p->id);
		rte_free(p->tmpl);
		p->tmpl = NULL;
	}
	rte_free(r->ports);
	r->ports = NULL;
	rte_free(r->scratch);
	r->scratch = NULL;
	free(r->lat);
	r->lat = NULL;
	if (r->pool != NULL) {
		/* Mbufs not back now leaked in the application or a PMD. */
		if (rte_mempool_in_use_count(r->pool) != 0)
			fprintf(stderr, "ch39x-perf: warning: %u mbufs not "
				"returned to the pool after the ports closed\n",
				rte_mempool_in_use_count(r->pool));
		rte_mempool_free(r->pool);
		r->pool = NULL;
	}
}
