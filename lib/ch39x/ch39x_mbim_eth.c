/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#include <string.h>

#include "ch39x_mbim_eth.h"
#include "ch39x_nd.h"
#include "ch39x_net.h"

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* The frame's L2: EtherType, where L3 starts and its VLAN ID (0: none). */
static bool
l2(const uint8_t *f, uint32_t len, int32_t tci, uint16_t *type,
   uint32_t *off, uint16_t *vid)
{
	if (len < CH39X_ETH_HLEN)
		return false;
	*type = be16(f + 12);
	*off = CH39X_ETH_HLEN;
	*vid = tci >= 0 ? (uint16_t)(tci & 0xFFF) : 0;
	if (*type == CH39X_ETHERTYPE_VLAN) {
		if (len < CH39X_ETH_HLEN + CH39X_VLAN_HLEN)
			return false;
		*vid = be16(f + 14) & 0xFFF;
		*type = be16(f + 16);
		*off += CH39X_VLAN_HLEN;
	}
	return true;
}

/* The session a VLAN ID stands for, -1 for none (cdc_mbim's mapping). */
static int
vid_session(const struct ch39x_mbim_eth *e, uint16_t vid)
{
	if (vid == 0)
		return e->ips0_vlan ? -1 : 0;
	if (vid == CH39X_MBIM_IPS0_VID && e->ips0_vlan)
		return 0;
	return vid <= CH39X_MBIM_MAX_VID ? vid : -1;
}

/* An ICMPv6 neighbour solicitation someone must answer. */
static bool
ns_to_answer(const uint8_t *ip, uint32_t len, struct ch39x_nd *nd)
{
	if (len < CH39X_IP6_HLEN + 1 || ip[6] != CH39X_IPPROTO_ICMPV6 ||
	    ip[CH39X_IP6_HLEN] != CH39X_ND_NS)
		return false;
	return ch39x_nd_parse(ip, len, nd) == 0 &&
		ch39x_nd_ns_wants_answer(nd);
}

void
ch39x_mbim_eth_tx(const struct ch39x_mbim_eth *e, const uint8_t *f,
		  uint32_t len, int32_t tci, struct ch39x_mbim_tx *out)
{
	const uint8_t *ip;
	struct ch39x_arp a;
	struct ch39x_nd nd;
	uint32_t off, iplen;
	uint16_t type, vid;
	int s;

	memset(out, 0, sizeof(*out));
	if (!l2(f, len, tci, &type, &off, &vid)) {
		out->kind = CH39X_MBIM_TX_RUNT;
		return;
	}
	s = vid_session(e, vid);
	if (s < 0) {
		out->kind = CH39X_MBIM_TX_BAD_VLAN;
		return;
	}
	out->session = (uint8_t)s;
	ip = f + off;
	switch (type) {
	case CH39X_ETHERTYPE_ARP:
		out->kind = ch39x_arp_parse(ip, len - off, &a) == 0 &&
			ch39x_arp_wants_answer(&a) ? CH39X_MBIM_TX_ANSWER :
			CH39X_MBIM_TX_NOT_IP;
		return;
	case CH39X_ETHERTYPE_IPV4:
		if (len - off < 20 || (ip[0] >> 4) != 4) {
			out->kind = CH39X_MBIM_TX_RUNT;
			return;
		}
		iplen = be16(ip + 2);
		break;
	case CH39X_ETHERTYPE_IPV6:
		if (len - off < CH39X_IP6_HLEN || (ip[0] >> 4) != 6) {
			out->kind = CH39X_MBIM_TX_RUNT;
			return;
		}
		iplen = CH39X_IP6_HLEN + be16(ip + 4);
		if (iplen <= len - off && ns_to_answer(ip, iplen, &nd)) {
			out->kind = CH39X_MBIM_TX_ANSWER;
			return;
		}
		break;
	default:
		out->kind = CH39X_MBIM_TX_NOT_IP;
		return;
	}
	/* The datagram, not the padding some senders add to frames. */
	if (iplen > len - off || iplen < 20) {
		out->kind = CH39X_MBIM_TX_RUNT;
		return;
	}
	out->kind = CH39X_MBIM_TX_IP;
	out->ip_off = off;
	out->ip_len = iplen;
}

uint32_t
ch39x_mbim_eth_answer(const struct ch39x_mbim_eth *e, const uint8_t *f,
		      uint32_t len, int32_t tci, uint8_t *out, uint32_t cap,
		      uint16_t *out_tci)
{
	const uint8_t *ip;
	struct ch39x_arp a;
	struct ch39x_nd nd;
	uint32_t off, n, iplen;
	uint16_t type, vid;

	*out_tci = 0;
	if (!l2(f, len, tci, &type, &off, &vid) || vid_session(e, vid) < 0)
		return 0;
	*out_tci = vid;
	ip = f + off;
	if (type == CH39X_ETHERTYPE_ARP) {
		if (ch39x_arp_parse(ip, len - off, &a) != 0 ||
		    !ch39x_arp_wants_answer(&a))
			return 0;
		return ch39x_arp_answer(out, cap, &a, e->peer_mac);
	}
	if (type != CH39X_ETHERTYPE_IPV6 || len - off < CH39X_IP6_HLEN)
		return 0;
	iplen = CH39X_IP6_HLEN + be16(ip + 4);
	if (iplen > len - off || !ns_to_answer(ip, iplen, &nd) ||
	    cap < CH39X_ETH_HLEN)
		return 0;
	n = ch39x_nd_build_na(out + CH39X_ETH_HLEN, cap - CH39X_ETH_HLEN, &nd,
			      e->peer_mac, CH39X_NA_ROUTER |
			      CH39X_NA_SOLICITED | CH39X_NA_OVERRIDE);
	if (n == 0)
		return 0;
	memcpy(out, nd.have_lla ? nd.lla : f + 6, 6);
	memcpy(out + 6, e->peer_mac, 6);
	out[12] = 0x86;
	out[13] = 0xDD;
	return CH39X_ETH_HLEN + n;
}

uint32_t
ch39x_mbim_eth_rx(const struct ch39x_mbim_eth *e, uint8_t session,
		  const uint8_t *ip, uint32_t len, uint8_t hdr[14],
		  uint16_t *tci)
{
	static const uint8_t bcast4[4] = { 255, 255, 255, 255 };

	*tci = session ? session : e->ips0_vlan ? CH39X_MBIM_IPS0_VID : 0;
	if (len >= 20 && (ip[0] >> 4) == 4) {
		if (memcmp(ip + 16, bcast4, 4) == 0)
			memset(hdr, 0xff, 6);
		else if ((ip[16] & 0xF0) == 0xE0)
			ch39x_ip4_mcast_mac(ip + 16, hdr);
		else
			memcpy(hdr, e->port_mac, 6);
		hdr[12] = 0x08;
		hdr[13] = 0x00;
	} else if (len >= CH39X_IP6_HLEN && (ip[0] >> 4) == 6) {
		if (ip[24] == 0xff)
			ch39x_ip6_mcast_mac(ip + 24, hdr);
		else
			memcpy(hdr, e->port_mac, 6);
		hdr[12] = 0x86;
		hdr[13] = 0xDD;
	} else {
		*tci = 0;
		return 0;
	}
	memcpy(hdr + 6, e->peer_mac, 6);
	return CH39X_ETH_HLEN;
}
