/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * tap_out: the exception path's way up. Traffic for the router that the
 * graph does not answer itself (anything but ARP requests for its
 * addresses, echo requests to them and neighbour discovery: DHCP, DNS,
 * SSH, ARP replies and requests for other hosts, broadcasts, multicasts,
 * PPP control) goes to the control plane, the Linux TAP of the interface
 * it came in on (--tap PORT=IFNAME; control/tap.c), one write a frame.
 * Without a TAP it is dropped and counted (drop_local). A PPPoE
 * interface's IP goes back into its session first, so that the kernel's
 * PPPoE socket under pppd sees the session as it came (not what pppoe_in
 * passed up raw: that is PPPoE already).
 */

#include <errno.h>
#include <unistd.h>

#include <sys/uio.h>

#include "dpconf.h"
#include "port.h"
#include "pppoe_dp.h"

#define TAP_MAX_SEGS	64		/* mbuf segments one write takes */

enum {
	TAP_OUT_NB
};

/* m to interface in's TAP, as it is; freed. */
static void
punt(struct cpe_tap_out *c, uint16_t in, struct rte_mbuf *m)
{
	struct iovec iov[TAP_MAX_SEGS];
	struct rte_mbuf *s;
	ssize_t n;
	int k = 0;

	if (in >= CPE_MAX_PORTS || c->fd[in] < 0) {
		c->no_tap++;
		rte_pktmbuf_free(m);
		return;
	}
	for (s = m; s != NULL && k < TAP_MAX_SEGS; s = s->next, k++) {
		iov[k].iov_base = rte_pktmbuf_mtod(s, void *);
		iov[k].iov_len = rte_pktmbuf_data_len(s);
	}
	/* One write is one frame; a full or downed TAP refuses it. */
	n = s == NULL ? writev(c->fd[in], iov, k) : -1;
	if (n == (ssize_t)rte_pktmbuf_pkt_len(m))
		c->punted++;
	else
		c->punt_drops++;
	rte_pktmbuf_free(m);
}

static uint16_t
tap_out_process(struct rte_graph *g, struct rte_node *node, void **objs,
		uint16_t cnt)
{
	struct cpe_tap_out *c = CPE_CTX(node);
	struct rte_mbuf *m;
	uint16_t i, in;

	RTE_SET_USED(g);
	for (i = 0; i < cnt; i++) {
		m = objs[i];
		in = cpe_in(m);
		cpe_kept(c->env, node, m, CPE_KEPT_PUNTED);
		/* Decapsulated PPPoE (for the router): the header back. */
		if (in < CPE_MAX_PORTS && unlikely(c->ifs->ifs[in].pppoe) &&
		    !(cpe_mb(m)->flags & CPE_MB_RAW) &&
		    cpe_pppoe_into(c->pppoe, m, false) != 0)
			continue;
		punt(c, in, m);
	}
	return cnt;
}

static int
tap_out_init(const struct rte_graph *g, struct rte_node *node)
{
	struct cpe_dp *dp = cpe_dp_conf();
	struct cpe_tap_out *c;

	RTE_SET_USED(g);
	c = cpe_node_state(node, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->env = &dp->env;
	c->ifs = &dp->ifs;
	c->pppoe = &dp->ifs.pppoe;
	c->fd = dp->tap_fd;
	return 0;
}

static struct rte_node_register tap_out_node = {
	.name = "tap_out",
	.process = tap_out_process,
	.init = tap_out_init,
	.fini = cpe_node_fini,
	.nb_edges = TAP_OUT_NB,
};

RTE_NODE_REGISTER(tap_out_node);
