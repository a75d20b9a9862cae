/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_PPPOE_DP_H
#define CPE_PPPOE_DP_H

/*
 * The WAN over PPPoE (--wan PORT=pppoe): Linux's pppd with its rp-pppoe
 * plugin on the WAN's TAP does discovery, LCP, authentication and IPCP;
 * its ip-up hook (usertools/ch39x-cpe-pppoe) hands the session (id, the
 * concentrator's MAC) and the addresses to the router over telemetry
 * (control/wan.c: /cpe/wan/pppoe). From then on the session's IPv4 and
 * IPv6 packets never see Linux:
 *
 *   in   pppoe_in: a session frame of ours carrying IPv4/IPv6 loses its 8
 *        bytes (the MAC addresses move over them, the type becomes the IP
 *        one's) and goes on like any Ethernet frame of the WAN;
 *   out  pppoe_out: puts them back on every IPv4/IPv6 frame to the WAN:
 *        to the concentrator's MAC, in the session (the next hop needs no
 *        ARP or ND: neigh4 and nd6 take the concentrator's MAC);
 *   up   what the router does not route (PPP control: LCP echoes, IPCP,
 *        PADT; discovery; other sessions; and IP for the router itself)
 *        goes to the TAP as it came, with its session header back on
 *        (tap_out), so that the kernel's PPPoE socket under pppd sees the
 *        session as if it owned the port.
 *
 * The interface's IP MTU is the link's less 8 (1492 on a 1500 link, RFC
 * 2516 7); the slow path clamps TCP MSS to it both ways and answers DF
 * packets that do not fit with ICMP fragmentation needed.
 *
 * These are the framing's functions over mbufs (pppoe_dp.c), for the
 * framing nodes and the TAP's; lib/pppoe.c has the pure codec.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "iface.h"
#include "pppoe.h"

/*
 * Frame m of the PPPoE interface, untagged: its kind (lib/pppoe.h);
 * for CPE_PPPOE_IPV4/IPV6 it is now a plain Ethernet IP frame.
 */
enum cpe_pppoe_kind cpe_pppoe_decap(struct cpe_pppoe_state *s,
				    struct rte_mbuf *m);
/* A frame pppd's kernel socket wrote on the TAP: its session's IP comes
 * out of it, as the WAN's does. */
void cpe_pppoe_from_tap(struct cpe_pppoe_state *s, struct rte_mbuf *m);
/*
 * An IP frame into the session (other frames, pppd's already PPPoE, as
 * they are): 0, m goes on; -1, dropped (counted). to_ac: to the
 * concentrator (pppoe_out), else with the addresses as received (back to
 * the TAP).
 */
int cpe_pppoe_into(struct cpe_pppoe_state *s, struct rte_mbuf *m,
		   bool to_ac);

/*
 * pppoe_out's common case inline (a forwarded IP frame in one segment,
 * room before it, no checksum offload asked for): 8 bytes of the
 * headroom, our address moved ahead of them, the concentrator's in
 * front, the session header (the session's constant bytes made when it
 * came up, copied). Every other case in cpe_pppoe_into().
 */
static __rte_always_inline int
cpe_pppoe_encap(struct cpe_pppoe_state *s, struct rte_mbuf *m, uint8_t *f,
		uint16_t proto)
{
	uint32_t ip_len = m->pkt_len - RTE_ETHER_HDR_LEN;

	if (unlikely(!s->up || m->nb_segs != 1 ||
		     rte_pktmbuf_headroom(m) < CPE_PPPOE_OVERHEAD ||
		     (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) ||
		     ip_len > 65533))
		return cpe_pppoe_into(s, m, true);
	f -= CPE_PPPOE_OVERHEAD;
	m->data_off -= CPE_PPPOE_OVERHEAD;
	m->data_len += CPE_PPPOE_OVERHEAD;
	m->pkt_len += CPE_PPPOE_OVERHEAD;
	cpe_pppoe_hdr_tmpl(f, s->tmpl, f + 14, proto, ip_len);
	s->tx_data++;
	return 0;
}

static __rte_always_inline int
cpe_pppoe_tx(struct cpe_pppoe_state *s, struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t type;

	/* One copy of the encapsulation per protocol, its PPP one constant. */
	memcpy(&type, f + 12, 2);
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return cpe_pppoe_encap(s, m, f, CPE_PPP_IPV4);
	if (type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return cpe_pppoe_encap(s, m, f, CPE_PPP_IPV6);
	return 0;
}

/* The next hop on the PPPoE interface (no ARP/ND): 0, or -1 (counted,
 * the caller frees m). */
/*
 * A batch for the session, encapsulated in place while the frames need
 * no more than their headroom (cpe_pppoe_encap()'s checks, the session's
 * once): how many were, in order; objs[return] (when < n) is the first
 * that needs cpe_pppoe_tx(). Counted as sent here.
 */
static __rte_always_inline uint16_t
cpe_pppoe_encap_burst(struct cpe_pppoe_state *s, void **objs, uint16_t n)
{
	const uint16_t v4 = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	const uint16_t v6 = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
	struct rte_mbuf *m;
	uint16_t i, type, proto;
	uint8_t *f;

	if (unlikely(!s->up))
		return 0;
	for (i = 0; i < n; i++) {
		m = objs[i];
		f = rte_pktmbuf_mtod(m, uint8_t *);
		memcpy(&type, f + 12, 2);
		proto = type == v4 ? CPE_PPP_IPV4 :
			type == v6 ? CPE_PPP_IPV6 : 0;
		/* One segment: its length fits the header's 16 bits. */
		if (unlikely(proto == 0) || unlikely(m->nb_segs != 1) ||
		    unlikely(m->data_off < CPE_PPPOE_OVERHEAD) ||
		    unlikely(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM))
			break;
		cpe_pppoe_hdr_tmpl(f - CPE_PPPOE_OVERHEAD, s->tmpl, f + 6,
				   proto, m->data_len - RTE_ETHER_HDR_LEN);
		m->data_off -= CPE_PPPOE_OVERHEAD;
		m->data_len += CPE_PPPOE_OVERHEAD;
		m->pkt_len += CPE_PPPOE_OVERHEAD;
	}
	s->tx_data += i;
	return i;
}

static inline int
cpe_pppoe_nexthop(struct cpe_pppoe_state *s, struct rte_ether_addr *mac)
{
	if (!s->up) {
		s->tx_no_session++;
		return -1;
	}
	memcpy(mac->addr_bytes, s->sess.ac, RTE_ETHER_ADDR_LEN);
	return 0;
}

#endif /* CPE_PPPOE_DP_H */
