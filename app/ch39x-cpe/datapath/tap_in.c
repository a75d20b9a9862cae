/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * tap_in: the exception path's way down, a source. What Linux (the
 * control plane: DHCP and DNS servers, pppd, SSH) writes on an
 * interface's TAP goes out of that interface: read every 100 us at most,
 * a burst per TAP and poll, so that Linux cannot starve the forwarding.
 * The router's own connections to the WAN are tracked by the firewall
 * (their replies may come in); on a PPPoE WAN Linux speaks only PPPoE
 * (pppd's kernel socket), and the session's IP comes out of its frames
 * as the WAN's does, so that pppoe_out puts it back.
 */

#include <errno.h>
#include <unistd.h>

#include "dpconf.h"
#include "fwdp.h"
#include "port.h"
#include "pppoe_dp.h"

#define TAP_POLL_US	100		/* Linux's frames wait at most this */
#define TAP_VLAN	4		/* a tag Linux may add (802.1Q) */

enum {
	TAP_IN_OUT,
	TAP_IN_NB
};

/* A frame from Linux into an mbuf (chained when it outgrows one). */
static struct rte_mbuf *
frame_to_mbuf(struct rte_mempool *pool, const uint8_t *buf, uint32_t len)
{
	struct rte_mbuf *head, *seg, *last;
	uint32_t off = 0, chunk;

	head = rte_pktmbuf_alloc(pool);
	if (head == NULL)
		return NULL;
	seg = head;
	for (;;) {
		chunk = RTE_MIN(len - off, (uint32_t)rte_pktmbuf_tailroom(seg));
		memcpy(rte_pktmbuf_mtod(seg, uint8_t *), buf + off, chunk);
		seg->data_len = (uint16_t)chunk;
		off += chunk;
		if (off == len)
			break;
		last = seg;
		seg = rte_pktmbuf_alloc(pool);
		if (seg == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		last->next = seg;
		head->nb_segs++;
	}
	head->pkt_len = len;
	return head;
}

/* On a PPPoE WAN Linux speaks only PPPoE: other frames would leave as
 * IP in the session (pppoe_out encapsulates IP). */
static bool
pppoe_frame(const uint8_t *f)
{
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);

	return type == CPE_ETH_PPPOE_SESS || type == CPE_ETH_PPPOE_DISC;
}

/* Interface idx's frames, at most max - *n, into pkts. */
static void
tap_rx(struct cpe_tap_in *c, uint16_t idx, struct rte_mbuf **pkts,
       uint16_t *n, uint16_t max)
{
	const struct cpe_iface *p = &c->ifs->ifs[idx];
	uint32_t lim = p->link_mtu + RTE_ETHER_HDR_LEN + TAP_VLAN;
	struct rte_mbuf *m;
	ssize_t len;
	uint16_t k;

	for (k = 0; k < CPE_BURST && *n < max; k++) {
		len = read(c->fd[idx], c->buf, sizeof(c->buf));
		if (len < 0)
			return;		/* EAGAIN: nothing more */
		c->rx++;
		if (len < RTE_ETHER_HDR_LEN || (uint32_t)len > lim ||
		    (p->pppoe && !pppoe_frame(c->buf))) {
			c->drops++;
			continue;
		}
		m = frame_to_mbuf(c->env->pool, c->buf, (uint32_t)len);
		if (m == NULL) {
			c->drops++;
			c->nomem++;
			continue;
		}
		c->tx++;
		if (p->pppoe)
			cpe_pppoe_from_tap(c->pppoe, m);
		cpe_fwdp_out_local(c->fw, idx, m);	/* its replies come in */
		m->port = CPE_NO_IF;
		cpe_set_out(m, idx);
		pkts[(*n)++] = m;
	}
}

static uint16_t
tap_in_process(struct rte_graph *g, struct rte_node *node, void **objs,
	       uint16_t cnt)
{
	struct cpe_tap_in *c = CPE_CTX(node);
	uint16_t next[CPE_BURST * 8], i, n = 0;

	RTE_SET_USED(objs);
	RTE_SET_USED(cnt);
	/* Lower priority than the ports: a read per TAP every 100 us. */
	if (!c->any || c->env->now < c->next_poll)
		return 0;
	c->next_poll = c->env->now + c->env->hz / (1000000 / TAP_POLL_US);
	for (i = 0; i < c->ifs->nb; i++)
		if (c->fd[i] >= 0)
			tap_rx(c, i, (struct rte_mbuf **)node->objs, &n,
			       CPE_BURST * 8);
	for (i = 0; i < n; i++)
		next[i] = TAP_IN_OUT;
	node->idx = n;
	cpe_enqueue(g, node, c->env, node->objs, next, n);
	return n;
}

static int
tap_in_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_tap_in *c;
	uint16_t i;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->pppoe = &dp->ifs.pppoe;
	c->fw = dp->fw;
	c->fd = dp->tap_fd;
	for (i = 0; i < dp->ifs.nb; i++)
		c->any |= dp->tap_fd[i] >= 0;
	return 0;
}

static struct rte_node_register tap_in_node = {
	.name = "tap_in",
	.flags = RTE_NODE_SOURCE_F,
	.process = tap_in_process,
	.init = tap_in_init,
	.fini = cpe_node_fini,
	.nb_edges = TAP_IN_NB,
	.next_nodes = {
		[TAP_IN_OUT] = "port_out",
	},
};

RTE_NODE_REGISTER(tap_in_node);
