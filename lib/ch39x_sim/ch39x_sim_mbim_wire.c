/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated MBIM modem's data side: the sessions' datagrams from the
 * host (NTBs of IPS NDPs), routed to the cable or taken by the modem
 * itself (its neighbour discovery), and the cable's frames into the
 * sessions. Threads and locks: ch39x_sim_mbim.c's header comment.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_mbim.h"
#include "ch39x_nd.h"
#include "ch39x_net.h"
#include "ch39x_sim_mbim_priv.h"

/* ---- The cable: the operator's network ---- */

static void
wire_send(struct sim_dev *s, const uint8_t *f, uint32_t len)
{
	pthread_mutex_lock(&s->mbim->wire_lock);
	sim_wire_send(s, f, len);
	pthread_mutex_unlock(&s->mbim->wire_lock);
}

static void
learn_peer(struct sim_mbim *m, const uint8_t *mac)
{
	uint64_t v = 1ull << 48;
	int i;

	if (mac[0] & 1)
		return;
	for (i = 0; i < 6; i++)
		v |= (uint64_t)mac[i] << (8 * i);
	__atomic_store_n(&m->peer, v, __ATOMIC_RELAXED);
}

/*
 * The MAC uplink frames go to: the far end's, once heard from; until
 * then broadcast, and an ARP request for the gateway now and then.
 */
static void
peer_mac(struct sim_dev *s, uint8_t mac[6])
{
	struct sim_mbim *m = s->mbim;
	uint64_t v = __atomic_load_n(&m->peer, __ATOMIC_RELAXED);
	uint64_t now, last;
	struct ch39x_arp a;
	uint8_t f[CH39X_ARP_FRAME_LEN];
	int i;

	if (v >> 48) {
		for (i = 0; i < 6; i++)
			mac[i] = (uint8_t)(v >> (8 * i));
		return;
	}
	memcpy(mac, bcast, 6);
	now = now_ns();
	last = __atomic_load_n(&m->arp_ns, __ATOMIC_RELAXED);
	if (last && now - last < MBIM_ARP_RETRY_NS)
		return;
	__atomic_store_n(&m->arp_ns, now, __ATOMIC_RELAXED);
	memset(&a, 0, sizeof(a));
	a.op = CH39X_ARP_REQUEST;
	memcpy(a.sha, s->mac, 6);
	memcpy(a.spa, wire_ip4, 4);
	memcpy(a.tpa, wire_gw4, 4);
	ch39x_arp_build(f, sizeof(f), bcast, &a);
	wire_send(s, f, sizeof(f));
}

/* The session an IPv4 or IPv6 address of ours belongs to, or -1. */
static int
owner4(const struct sim_mbim *m, const uint8_t a[4])
{
	uint8_t mine[4];
	uint32_t n;

	for (n = 0; n < MBIM_SESSIONS; n++) {
		if (!sess_active(m, n) || !has_v4(sess_type(m, n)))
			continue;
		sess_ip4(n, mine, 2);
		if (memcmp(a, mine, 4) == 0)
			return (int)n;
	}
	return -1;
}

static int
owner6(const struct sim_mbim *m, const uint8_t a[16])
{
	uint8_t pfx[16];
	uint32_t n;

	for (n = 0; n < MBIM_SESSIONS; n++) {
		if (!sess_active(m, n) || !has_v6(sess_type(m, n)))
			continue;
		sess_ip6(n, pfx, 0);
		if (memcmp(a, pfx, 8) == 0)
			return (int)n;
	}
	return -1;
}

/* ARP on the cable for our address or a session's: answered. */
static void
wire_arp(struct sim_dev *s, const uint8_t *f, uint32_t len)
{
	struct sim_mbim *m = s->mbim;
	uint8_t out[CH39X_ARP_FRAME_LEN];
	struct ch39x_arp a;

	if (ch39x_arp_parse(f + CH39X_ETH_HLEN, len - CH39X_ETH_HLEN, &a) != 0)
		return;
	learn_peer(m, a.sha);
	if (!ch39x_arp_wants_answer(&a) ||
	    (memcmp(a.tpa, wire_ip4, 4) != 0 && owner4(m, a.tpa) < 0))
		return;
	if (ch39x_arp_answer(out, sizeof(out), &a, s->mac)) {
		wire_send(s, out, sizeof(out));
		ST_ADD(m, wire_answers, 1);
	}
}

/* A neighbour solicitation on the cable: ours or a session's answered. */
static bool
wire_nd(struct sim_dev *s, const uint8_t *f, uint32_t len)
{
	struct sim_mbim *m = s->mbim;
	uint8_t out[CH39X_ETH_HLEN + 128];
	struct ch39x_nd n;
	uint32_t nl;

	if (ch39x_nd_parse(f + CH39X_ETH_HLEN, len - CH39X_ETH_HLEN, &n) != 0)
		return false;
	if (n.type != CH39X_ND_NS)
		return true;
	if (!ch39x_nd_ns_wants_answer(&n) ||
	    (memcmp(n.target, wire_ip6, 16) != 0 && owner6(m, n.target) < 0))
		return true;
	nl = ch39x_nd_build_na(out + CH39X_ETH_HLEN, sizeof(out) -
			       CH39X_ETH_HLEN, &n, s->mac, CH39X_NA_ROUTER |
			       CH39X_NA_SOLICITED | CH39X_NA_OVERRIDE);
	if (nl == 0)
		return true;
	memcpy(out, f + 6, 6);
	memcpy(out + 6, s->mac, 6);
	out[12] = 0x86;
	out[13] = 0xDD;
	wire_send(s, out, CH39X_ETH_HLEN + nl);
	ST_ADD(m, wire_answers, 1);
	return true;
}

/*
 * The downlink's datagrams: the modem's own packets first, then the
 * cable's frames routed to the session whose address they are for (ARP
 * and solicitations on the cable are answered there and then).
 */
static uint32_t
mbim_take(struct sim_dev *s, uint8_t *buf, uint8_t *session)
{
	struct sim_mbim *m = s->mbim;
	uint32_t len, iplen;
	uint16_t type;
	int n;

	len = sim_mbim_local_pop(s, buf, session);
	if (len != 0)
		return len;
	while ((len = sim_frame_take(s, buf)) != 0) {
		type = be16(buf + 12);
		if (type == CH39X_ETHERTYPE_ARP) {
			wire_arp(s, buf, len);
			continue;
		}
		n = -1;
		if (type == CH39X_ETHERTYPE_IPV4 && len >= CH39X_ETH_HLEN + 20 &&
		    (buf[14] >> 4) == 4) {
			iplen = be16(buf + 16);
			learn_peer(m, buf + 6);
			n = owner4(m, buf + 30);
		} else if (type == CH39X_ETHERTYPE_IPV6 &&
			   len >= CH39X_ETH_HLEN + CH39X_IP6_HLEN &&
			   (buf[14] >> 4) == 6) {
			iplen = CH39X_IP6_HLEN + be16(buf + 18);
			learn_peer(m, buf + 6);
			if (wire_nd(s, buf, len))
				continue;
			n = owner6(m, buf + 38);
		} else {
			continue;
		}
		/* The IP length, not the cable's padding. */
		if (n < 0 || iplen > len - CH39X_ETH_HLEN || iplen < 20) {
			ST_ADD(m, down_dropped, 1);
			continue;
		}
		ST_ADD(m, down_packets, 1);
		*session = (uint8_t)n;
		memmove(buf, buf + CH39X_ETH_HLEN, iplen);
		return iplen;
	}
	return 0;
}

void
sim_mbim_rx_fill(struct sim_dev *s, uint64_t now)
{
	sim_ntb_fill(s, now, mbim_take);
}

/*
 * Neighbour discovery from the host on session n, for the modem itself:
 * a router solicitation gets an advertisement, a solicitation (not
 * duplicate address detection) an advertisement without link-layer
 * option (there is no link). Returns whether the packet was one.
 */
static bool
host_nd(struct sim_dev *s, const uint8_t *d, uint32_t len, uint8_t n)
{
	uint8_t b[MBIM_LOCAL_LEN];
	struct ch39x_nd nd;
	uint32_t nl;

	if (len < CH39X_IP6_HLEN || d[6] != CH39X_IPPROTO_ICMPV6 ||
	    ch39x_nd_parse(d, len, &nd) != 0)
		return false;
	if (nd.type == CH39X_ND_RS) {
		sim_mbim_send_ra(s, n, ch39x_ip6_all_nodes);
	} else if (ch39x_nd_ns_wants_answer(&nd)) {
		nl = ch39x_nd_build_na(b, sizeof(b), &nd, NULL,
				       CH39X_NA_ROUTER | CH39X_NA_SOLICITED);
		sim_mbim_local_push(s, n, b, nl);
	}
	return true;
}

/*
 * One uplink datagram of session n: the modem's own business, or routed
 * to the cable from an address the session was given. ASSUMPTION: other
 * sources are dropped, as an operator's gateway does; the TTL is not
 * decremented.
 */
static void
mbim_out(struct sim_dev *s, const uint8_t *d, uint32_t len, uint8_t n)
{
	struct sim_mbim *m = s->mbim;
	uint8_t f[CH39X_ETH_HLEN + MBIM_MAX_SEGMENT], mine[16];
	bool ok = false;

	if (!sess_active(m, n)) {
		ST_ADD(m, up_dropped, 1);
		return;
	}
	if ((d[0] >> 4) == 4 && len >= 20 && has_v4(sess_type(m, n))) {
		sess_ip4(n, mine, 2);
		ok = memcmp(d + 12, mine, 4) == 0;
	} else if ((d[0] >> 4) == 6 && len >= CH39X_IP6_HLEN &&
		   has_v6(sess_type(m, n))) {
		if (host_nd(s, d, len, n))
			return;
		sess_ip6(n, mine, 0);
		ok = memcmp(d + 8, mine, 8) == 0;
	}
	if (!ok) {
		ST_ADD(m, up_dropped, 1);
		return;
	}
	peer_mac(s, f);
	memcpy(f + 6, s->mac, 6);
	f[12] = (d[0] >> 4) == 4 ? 0x08 : 0x86;
	f[13] = (d[0] >> 4) == 4 ? 0x00 : 0xDD;
	memcpy(f + CH39X_ETH_HLEN, d, len);
	wire_send(s, f, CH39X_ETH_HLEN + len);
	ST_ADD(m, up_packets, 1);
}

void
sim_mbim_tx_parse(struct sim_dev *s, const struct ch39x_xfer *x)
{
	sim_ntb_parse(s, x, MBIM_MAX_SEGMENT, mbim_out);
}

/*
 * The cable's frames the modem takes: to its address, broadcast (ARP)
 * and multicast (solicitations to solicited-node groups).
 */
bool
sim_mbim_rx_accept(struct sim_dev *s, const uint8_t *f)
{
	return (f[0] & 1) != 0 || memcmp(f, s->mac, 6) == 0;
}

uint32_t
sim_mbim_rx_max_frame(const struct sim_dev *s)
{
	(void)s;
	return CH39X_ETH_HLEN + MBIM_MAX_SEGMENT;
}
