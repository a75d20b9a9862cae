/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * port_tx-K: what leaves by DPDK port K (one TX queue: a USB adapter has
 * no more). A VLAN interface's frames are tagged here, by the PMD where
 * it offers VLAN_INSERT (and --no-vlan-offload is not given), else in the
 * headroom; bytes are counted without the tag, as on input. What the PMD
 * does not take waits in the node's backlog (CPE_TXQ packets, beyond it
 * dropped and counted) and goes first at the next burst, which the loop
 * asks for every time round (cpe_port_tx_retry()) whether packets came
 * or not; while it has no room for a burst, the ports whose frames wait
 * in it are not read (port_rx). A port that is down or gone (control/hotplug.c) sends nothing:
 * what the router would send there is dropped and counted (down_drops).
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "dpconf.h"
#include "port.h"

enum {
	PORT_TX_NB
};

/* The tag of interface idx on m; false when it was dropped (no room). */
static bool
tag(struct cpe_port_tx *c, uint16_t idx, struct rte_mbuf *m)
{
	const struct cpe_iface *p = &c->ifs->ifs[idx];

	if (p->vlan == 0)
		return true;
	m->vlan_tci = p->vlan;
	if (c->ifs->phys[c->k].tx_offload) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		c->vlan_offload++;
		return true;
	}
	/* In the headroom; it also adds 4 to l2_len for the IPv4 checksum
	 * offload of the packets the router makes.
	 */
	if (rte_vlan_insert(&m) != 0) {
		c->if_tx_drops[idx]++;
		rte_pktmbuf_free(m);
		return false;
	}
	c->vlan_sw++;
	return true;
}

/* pkts[0..n) (their lengths and interfaces at len, ifx) to the PMD: how
 * many it took, counted. */
/* The PMD's TX burst, timed on a sampled walk (mb.h's pmd_cycles). */
static __rte_always_inline uint16_t
tx_burst(struct cpe_port_tx *c, struct rte_mbuf **pkts, uint16_t n)
{
	uint64_t t0;
	uint16_t sent;

	if (likely(!c->env->sample))
		return rte_eth_tx_burst(c->ifs->phys[c->k].id, 0, pkts, n);
	t0 = rte_rdtsc();
	sent = rte_eth_tx_burst(c->ifs->phys[c->k].id, 0, pkts, n);
	c->env->pmd_cycles += (rte_rdtsc() - t0) * CPE_WALK_SAMPLE;
	return sent;
}

static uint16_t
burst(struct cpe_port_tx *c, struct rte_mbuf **pkts, const uint32_t *len,
      const uint8_t *ifx, uint16_t n)
{
	uint16_t sent, i;

	sent = tx_burst(c, pkts, n);
	/* Lengths were noted before: sent mbufs belong to the PMD. */
	for (i = 0; i < sent; i++) {
		c->if_tx[ifx[i]]++;
		c->if_tx_bytes[ifx[i]] += len[i];
	}
	return sent;
}

/* The backlog's size for the others (idle, qos, port_rx's hold); empty,
 * it holds nobody's frames. */
static void
backlog_set(struct cpe_port_tx *c)
{
	struct cpe_phys *ph = &c->ifs->phys[c->k];

	ph->tx_backlog = c->nb;
	if (c->nb == 0)
		ph->tx_from = 0;
}

/* The backlog from its start, what the PMD leaves kept in order. */
static void
flush(struct cpe_port_tx *c)
{
	uint16_t sent = burst(c, c->q, c->len, c->ifx, c->nb);

	if (sent && sent < c->nb) {
		memmove(c->q, c->q + sent, (c->nb - sent) * sizeof(c->q[0]));
		memmove(c->len, c->len + sent,
			(c->nb - sent) * sizeof(c->len[0]));
		memmove(c->ifx, c->ifx + sent,
			(c->nb - sent) * sizeof(c->ifx[0]));
	}
	c->nb -= sent;
	backlog_set(c);
}

/* pkts to the end of the backlog; beyond its room dropped, counted. */
static void
keep(struct cpe_port_tx *c, const struct rte_node *node,
     struct rte_mbuf **pkts, const uint32_t *len, const uint8_t *ifx,
     uint16_t n)
{
	uint32_t from = 0;
	uint16_t i, in;

	for (i = 0; i < n; i++) {
		in = cpe_in(pkts[i]);
		if (in < c->ifs->nb)
			from |= 1u << c->ifs->ifs[in].phys;
		if (c->nb == CPE_TXQ) {
			c->if_tx_drops[ifx[i]]++;
			cpe_kept(c->env, node, pkts[i], CPE_KEPT_DROPPED);
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		c->q[c->nb] = pkts[i];
		c->len[c->nb] = len[i];
		c->ifx[c->nb++] = ifx[i];
	}
	c->ifs->phys[c->k].tx_from |= from;
	backlog_set(c);
}

/* Its port away: the packets dropped, counted per interface. */
static void
drop_down(struct cpe_port_tx *c, const struct rte_node *node, void **objs,
	  uint16_t n)
{
	struct rte_mbuf *m;
	uint16_t i;

	for (i = 0; i < n; i++) {
		m = objs[i];
		c->if_down_drops[cpe_out(m)]++;
		cpe_kept(c->env, node, m, CPE_KEPT_DROPPED);
		rte_pktmbuf_free(m);
	}
	cpe_port_tx_drop(c);
}

/*
 * A port of one untagged interface (c->only) with nothing waiting and no
 * trace: the batch to the PMD as it is, counted by the burst. How many
 * were handled: all, or up to a burst the PMD did not take whole (the
 * rest of that burst waits; the others go the general way, after it).
 */
static uint16_t
send_plain(struct cpe_port_tx *c, const struct rte_node *node, void **objs,
	   uint16_t cnt)
{
	struct rte_mbuf **pkts = (struct rte_mbuf **)objs;
	uint8_t ifx[CPE_TXQ];
	uint32_t len[CPE_TXQ];
	uint64_t bytes = 0;
	uint16_t i, sent, base, k;

	for (base = 0; base < cnt; base += k) {
		k = RTE_MIN((uint16_t)(cnt - base), (uint16_t)CPE_TXQ);
		for (i = 0; i < k; i++)
			len[i] = rte_pktmbuf_pkt_len(pkts[base + i]);
		sent = tx_burst(c, pkts + base, k);
		for (i = 0; i < sent; i++)
			bytes += len[i];
		c->if_tx[c->only] += sent;
		c->if_tx_bytes[c->only] += bytes;
		bytes = 0;
		if (sent < k) {
			memset(ifx, c->only, k - sent);
			keep(c, node, pkts + base + sent, len + sent, ifx,
			     k - sent);
			return base + k;
		}
	}
	return cnt;
}

static uint16_t
port_tx_process(struct rte_graph *g, struct rte_node *node, void **objs,
		uint16_t cnt)
{
	struct cpe_port_tx *c = CPE_CTX(node);
	struct rte_mbuf *pkts[CPE_TXQ], *m;
	uint32_t len[CPE_TXQ];
	uint8_t ifx[CPE_TXQ];
	uint16_t i, n = 0, sent, base, k, done = 0;

	RTE_SET_USED(g);
	if (unlikely(c->ifs->phys[c->k].down)) {
		drop_down(c, node, objs, cnt);
		return cnt;
	}
	if (likely(c->only != CPE_NO_IF && c->nb == 0 &&
		   c->env->trace == NULL)) {
		done = send_plain(c, node, objs, cnt);
		if (likely(done == cnt))
			return cnt;
	}
	for (base = done; base < cnt; base += k, n = 0) {
		k = RTE_MIN((uint16_t)(cnt - base), (uint16_t)CPE_TXQ);
		for (i = 0; i < k; i++) {
			m = objs[base + i];
			cpe_kept(c->env, node, m, CPE_KEPT_SENT);
			len[n] = rte_pktmbuf_pkt_len(m);
			ifx[n] = (uint8_t)cpe_out(m);
			if (unlikely(c->tag) && !tag(c, ifx[n], m))
				continue;
			pkts[n++] = m;
		}
		if (c->nb == 0) {
			sent = burst(c, pkts, len, ifx, n);
			keep(c, node, pkts + sent, len + sent, ifx + sent,
			     n - sent);
		} else {
			/* What waits goes first. */
			keep(c, node, pkts, len, ifx, n);
			flush(c);
		}
	}
	return cnt;
}

void
cpe_port_tx_retry(struct cpe_port_tx *c)
{
	if (c->nb == 0)
		return;
	/* The scheduler's held packets, drained into a dead port. */
	if (unlikely(c->ifs->phys[c->k].down))
		cpe_port_tx_drop(c);
	else
		flush(c);
}

void
cpe_port_tx_drop(struct cpe_port_tx *c)
{
	uint16_t i;

	for (i = 0; i < c->nb; i++)
		c->if_down_drops[c->ifx[i]]++;
	if (c->nb)
		rte_pktmbuf_free_bulk(c->q, c->nb);
	c->nb = 0;
	backlog_set(c);
}

static int
port_tx_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_port_tx *c;
	uint16_t k, i;
	int rc;

	RTE_SET_USED(g);
	rc = cpe_dp_phys_of(dp, dp->tx_node, node->id);
	if (rc < 0)
		return rc;
	k = (uint16_t)rc;
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->k = k;
	for (i = 0; i < dp->ifs.nb; i++)
		if (dp->ifs.ifs[i].phys == k && dp->ifs.ifs[i].vlan)
			c->tag = true;
	c->only = cpe_phys_only_if(&dp->ifs, k);
	return 0;
}

static void
port_tx_fini(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_port_tx *c = CPE_CTX(node);

	RTE_SET_USED(g);
	if (c != NULL && c->nb)
		rte_pktmbuf_free_bulk(c->q, c->nb);
	cpe_node_state_free(node);
}

static struct rte_node_register port_tx_node = {
	.name = "port_tx",
	.process = port_tx_process,
	.init = port_tx_init,
	.fini = port_tx_fini,
	.nb_edges = PORT_TX_NB,
};

RTE_NODE_REGISTER(port_tx_node);
