/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The WAN over PPPoE (--wan PORT=pppoe): Linux's pppd with its rp-pppoe
 * plugin on the WAN's TAP does discovery, LCP, authentication and IPCP;
 * its ip-up hook (usertools/ch39x-cpe-pppoe) hands the session (id, the
 * concentrator's MAC) and the addresses to the router over telemetry
 * (wan.c: /cpe/wan/pppoe). From then on the session's IPv4 and IPv6
 * packets never see Linux:
 *
 *   in   a session frame of ours carrying IPv4/IPv6 loses its 8 bytes
 *        (the MAC addresses move over them, the type becomes the IP
 *        one's) and goes to the flow cache and the slow path like any
 *        Ethernet frame of the WAN interface;
 *   out  cpe_tx() puts them back on every IPv4/IPv6 frame to the WAN:
 *        to the concentrator's MAC, in the session (the next hop needs
 *        no ARP or ND: cpe_pppoe_resolve);
 *   up   what the router does not route (PPP control: LCP echoes, IPCP,
 *        PADT; discovery; other sessions; and IP for the router itself)
 *        goes to the TAP as it came, with its session header back on,
 *        so that the kernel's PPPoE socket under pppd sees the session
 *        as if it owned the port.
 *
 * The interface's IP MTU is the link's less 8 (1492 on a 1500 link, RFC
 * 2516 7); the slow path clamps TCP MSS to it both ways and answers DF
 * packets that do not fit with ICMP fragmentation needed.
 */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "cpe.h"
#include "pppoe.h"

struct cpe_pppoe_state cpe_pppoe;

/*
 * Session frame m (an IPv4 or IPv6 kind, ip_len bytes of IP) as a plain
 * Ethernet frame: the addresses move over the 8 bytes, the IP type in
 * PPPoE's place, the padding after PPPoE's length cut.
 */
static void
decap(struct rte_mbuf *m, enum cpe_pppoe_kind k, uint32_t ip_len)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);

	memmove(f + CPE_PPPOE_OVERHEAD, f, 2 * RTE_ETHER_ADDR_LEN);
	f += CPE_PPPOE_OVERHEAD;
	*(uint16_t *)(void *)(f + 12) = rte_cpu_to_be_16(k == CPE_PPPOE_IPV4 ?
		RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6);
	rte_pktmbuf_adj(m, CPE_PPPOE_OVERHEAD);
	if (rte_pktmbuf_pkt_len(m) > RTE_ETHER_HDR_LEN + ip_len)
		rte_pktmbuf_trim(m, rte_pktmbuf_pkt_len(m) -
				 RTE_ETHER_HDR_LEN - ip_len);
	/* What the PMD read of the frame was not about the inner IP. */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK |
			 RTE_MBUF_F_RX_L4_CKSUM_MASK);
	m->packet_type = 0;
}

/* Frame m of WAN interface idx, untagged: false when it was consumed. */
bool
cpe_pppoe_rx(uint16_t idx, struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t len = rte_pktmbuf_pkt_len(m), ip_len = 0;
	enum cpe_pppoe_kind k;

	/* The headers must be in the first segment to be read in place. */
	if (rte_pktmbuf_data_len(m) < 22 && len > rte_pktmbuf_data_len(m))
		len = rte_pktmbuf_data_len(m);
	k = cpe_pppoe_parse(f, len, cpe_pppoe.up ? &cpe_pppoe.sess : NULL,
			    false, &ip_len);
	switch (k) {
	case CPE_PPPOE_IPV4:
	case CPE_PPPOE_IPV6:
		break;
	case CPE_PPPOE_BAD:
		cpe_pppoe.rx_bad++;
		rte_pktmbuf_free(m);
		return false;
	case CPE_PPPOE_CTL:
		cpe_pppoe.rx_ctl++;
		cpe_punt_raw(idx, m);
		return false;
	case CPE_PPPOE_NONE:
		/*
		 * Not PPPoE: nobody's on this link. Linux's TAP must not
		 * get it: its IPv6 link-local address would answer the WAN
		 * past the firewall.
		 */
		cpe_pppoe.rx_not_pppoe++;
		rte_pktmbuf_free(m);
		return false;
	default:
		/* Discovery, other sessions: pppd's. */
		cpe_pppoe.rx_other++;
		cpe_punt_raw(idx, m);
		return false;
	}
	decap(m, k, ip_len);
	cpe_pppoe.rx_data++;
	return true;
}

/*
 * A frame pppd's kernel socket wrote on the TAP: the session's IP comes
 * out of it like the WAN's, so that the firewall sees the router's own
 * connections (their replies come in) and cpe_tx() puts it back.
 */
void
cpe_pppoe_from_tap(struct rte_mbuf *m)
{
	uint32_t ip_len = 0;
	enum cpe_pppoe_kind k;

	if (!cpe_pppoe.up || rte_pktmbuf_data_len(m) < 22)
		return;
	k = cpe_pppoe_parse(rte_pktmbuf_mtod(m, uint8_t *),
			    rte_pktmbuf_pkt_len(m), &cpe_pppoe.sess, true,
			    &ip_len);
	if (k == CPE_PPPOE_IPV4 || k == CPE_PPPOE_IPV6)
		decap(m, k, ip_len);
}

/* The session header on IP frame m, in its headroom: 0, or -1 (freed). */
static int
encap(struct rte_mbuf *m, uint16_t type_be)
{
	uint8_t *f;
	uint32_t ip_len = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;

	f = (uint8_t *)rte_pktmbuf_prepend(m, CPE_PPPOE_OVERHEAD);
	if (f == NULL || ip_len > 65533) {
		cpe_pppoe.tx_drops++;
		rte_pktmbuf_free(m);
		return -1;
	}
	memmove(f, f + CPE_PPPOE_OVERHEAD, 2 * RTE_ETHER_ADDR_LEN);
	cpe_pppoe_hdr(f + 12, cpe_pppoe.sess.sid,
		      type_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ?
		      CPE_PPP_IPV4 : CPE_PPP_IPV6, ip_len);
	/*
	 * Adapters insert IPv4 checksums in frames they parse, and few
	 * parse PPPoE (the simulated CH398 does not): the sum is made here.
	 */
	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(void *)
			(f + RTE_ETHER_HDR_LEN + CPE_PPPOE_OVERHEAD);

		m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_IPV4);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	return 0;
}

static bool
is_ip(const struct rte_mbuf *m, uint16_t *type_be)
{
	const struct rte_ether_hdr *eh =
		rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

	*type_be = eh->ether_type;
	return *type_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		*type_be == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
}

/*
 * An IP frame into the session (other frames, pppd's already PPPoE, as
 * they are): 0, m goes on; -1, dropped without a session (counted). To
 * the concentrator from cpe_tx(); from cpe_punt(), for the kernel's
 * socket, with the addresses as received.
 */
static int
into_session(struct rte_mbuf *m, bool to_ac)
{
	struct rte_ether_hdr *eh;
	uint16_t type_be;

	if (!is_ip(m, &type_be))
		return 0;
	if (!cpe_pppoe.up) {
		/* (A punted one: decapsulated, then the session went.) */
		cpe_pppoe.tx_no_session++;
		rte_pktmbuf_free(m);
		return -1;
	}
	if (encap(m, type_be) != 0)
		return -1;
	if (to_ac) {
		eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		memcpy(eh->dst_addr.addr_bytes, cpe_pppoe.sess.ac,
		       RTE_ETHER_ADDR_LEN);
		cpe_pppoe.tx_data++;
	}
	return 0;
}

int
cpe_pppoe_tx_slow(struct rte_mbuf *m)
{
	return into_session(m, true);
}

int
cpe_pppoe_punt(struct rte_mbuf *m)
{
	return into_session(m, false);
}

/* The next hop of the PPPoE WAN: the concentrator, or no session. */
int
cpe_pppoe_resolve(struct rte_mbuf *m, struct rte_ether_addr *mac)
{
	if (!cpe_pppoe.up) {
		cpe_pppoe.tx_no_session++;
		rte_pktmbuf_free(m);
		return -1;
	}
	memcpy(mac->addr_bytes, cpe_pppoe.sess.ac, RTE_ETHER_ADDR_LEN);
	return 0;
}

void
cpe_pppoe_up(uint16_t sid, const uint8_t ac[6])
{
	if (cpe_pppoe.up && cpe_pppoe.sess.sid == sid &&
	    memcmp(cpe_pppoe.sess.ac, ac, 6) == 0)
		return;
	cpe_pppoe.sess.sid = sid;
	memcpy(cpe_pppoe.sess.ac, ac, 6);
	cpe_pppoe_tmpl(cpe_pppoe.tmpl, ac, sid);
	cpe_pppoe.up = true;
	cpe_pppoe.sessions++;
	/* Cached flows hold the old concentrator's MAC. */
	cpe.gen++;
}

void
cpe_pppoe_down(void)
{
	if (!cpe_pppoe.up)
		return;
	cpe_pppoe.up = false;
	cpe_pppoe.sess.sid = 0;
	cpe_wan6_session_down();
	cpe.gen++;
}

/* --- what it shows: /cpe/wan, the stats lines and the exit JSON ------ */

static void
fmt_ac(char *b, size_t n)
{
	const uint8_t *a = cpe_pppoe.sess.ac;

	if (!cpe_pppoe.up)
		snprintf(b, n, "none");
	else
		snprintf(b, n, "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1],
			 a[2], a[3], a[4], a[5]);
}

void
cpe_pppoe_tel(struct rte_tel_data *d)
{
	char ac[20];

	fmt_ac(ac, sizeof(ac));
	cpe_tel_u64(d, "pppoe_session_id", cpe_pppoe.up ?
		    cpe_pppoe.sess.sid : 0);
	rte_tel_data_add_dict_string(d, "pppoe_concentrator", ac);
	cpe_tel_u64(d, "pppoe_sessions", cpe_pppoe.sessions);
	cpe_tel_u64(d, "pppoe_rx_data", cpe_pppoe.rx_data);
	cpe_tel_u64(d, "pppoe_tx_data", cpe_pppoe.tx_data);
	cpe_tel_u64(d, "pppoe_rx_ctl", cpe_pppoe.rx_ctl);
	cpe_tel_u64(d, "pppoe_rx_other", cpe_pppoe.rx_other);
	cpe_tel_u64(d, "pppoe_rx_not_pppoe", cpe_pppoe.rx_not_pppoe);
	cpe_tel_u64(d, "pppoe_rx_bad", cpe_pppoe.rx_bad);
	cpe_tel_u64(d, "pppoe_tx_no_session", cpe_pppoe.tx_no_session);
	cpe_tel_u64(d, "pppoe_tx_drops", cpe_pppoe.tx_drops);
}

void
cpe_pppoe_print(FILE *f)
{
	char ac[20];

	fmt_ac(ac, sizeof(ac));
	fprintf(f, "  pppoe: session %u concentrator %s sessions %" PRIu64
		" rx_data %" PRIu64 " tx_data %" PRIu64 " rx_ctl %" PRIu64
		" rx_other %" PRIu64 " rx_not_pppoe %" PRIu64 " rx_bad %"
		PRIu64 " tx_no_session %"
		PRIu64 " tx_drops %" PRIu64 "\n",
		cpe_pppoe.up ? cpe_pppoe.sess.sid : 0, ac, cpe_pppoe.sessions,
		cpe_pppoe.rx_data, cpe_pppoe.tx_data, cpe_pppoe.rx_ctl,
		cpe_pppoe.rx_other, cpe_pppoe.rx_not_pppoe, cpe_pppoe.rx_bad,
		cpe_pppoe.tx_no_session,
		cpe_pppoe.tx_drops);
}

void
cpe_pppoe_json(FILE *f)
{
	char ac[20];

	fmt_ac(ac, sizeof(ac));
	fprintf(f, "  \"pppoe\": {\"session_id\": %u, \"concentrator\": "
		"\"%s\", \"sessions\": %" PRIu64 ", \"rx_data\": %" PRIu64
		", \"tx_data\": %" PRIu64 ", \"rx_ctl\": %" PRIu64
		", \"rx_other\": %" PRIu64 ", \"rx_not_pppoe\": %" PRIu64
		", \"rx_bad\": %" PRIu64
		", \"tx_no_session\": %" PRIu64 ", \"tx_drops\": %" PRIu64
		"},\n", cpe_pppoe.up ? cpe_pppoe.sess.sid : 0,
		cpe_pppoe.up ? ac : "", cpe_pppoe.sessions, cpe_pppoe.rx_data,
		cpe_pppoe.tx_data, cpe_pppoe.rx_ctl, cpe_pppoe.rx_other,
		cpe_pppoe.rx_not_pppoe,
		cpe_pppoe.rx_bad, cpe_pppoe.tx_no_session, cpe_pppoe.tx_drops);
}
