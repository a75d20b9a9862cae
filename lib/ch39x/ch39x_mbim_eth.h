/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_MBIM_ETH_H
#define CH39X_MBIM_ETH_H

/*
 * An MBIM port as Ethernet (§21): what the PMD does per packet so that an
 * application sees an Ethernet port with a fixed peer, as Linux cdc_mbim
 * presents its netdev. Pure functions over flat buffers, no EAL.
 *
 * RX (modem to application): an IP datagram of session s becomes a frame
 * from the peer's fixed MAC to the port's MAC (or the group address of a
 * multicast or broadcast destination), session s > 0 tagged with VLAN ID
 * s (and session 0 with 4094 when the application asked for it, as
 * cdc_mbim's MBIM_IPS0_VID).
 *
 * TX (application to modem): an untagged or tagged IPv4/IPv6 frame goes
 * to its session without the Ethernet header; ARP requests and IPv6
 * neighbour solicitations for the peer are answered here (the session has
 * no link to resolve on: the answer is always the peer's MAC); anything
 * else is dropped and counted by why.
 */

#include <stdbool.h>
#include <stdint.h>

#define CH39X_MBIM_IPS0_VID	4094	/* session 0 tagged (cdc_mbim) */
#define CH39X_MBIM_MAX_VID	255	/* VLAN IDs 1..255: sessions 1..255 */

struct ch39x_mbim_eth {
	uint8_t port_mac[6];	/* the application's side */
	uint8_t peer_mac[6];	/* the modem's side, fixed */
	bool ips0_vlan;		/* session 0 tagged with VLAN 4094 */
};

/* What one TX frame is. */
enum ch39x_mbim_tx_kind {
	CH39X_MBIM_TX_IP = 0,		/* an IP datagram for a session */
	CH39X_MBIM_TX_ANSWER,		/* ARP/NS: answer it, send nothing */
	CH39X_MBIM_TX_NOT_IP,		/* another EtherType: dropped */
	CH39X_MBIM_TX_BAD_VLAN,		/* a tag of no session: dropped */
	CH39X_MBIM_TX_RUNT,		/* no room for its headers: dropped */
};

struct ch39x_mbim_tx {
	enum ch39x_mbim_tx_kind kind;
	uint8_t session;
	uint32_t ip_off;		/* where the IP datagram starts */
	uint32_t ip_len;		/* its length (to the frame's end) */
};

/*
 * Classify one frame of len bytes the application sends. tci is its tag
 * when the application asked for VLAN insertion (the mbuf's), -1 when the
 * tag, if any, is in the frame. ARP requests (Ethernet, IPv4) and ICMPv6
 * neighbour solicitations to be answered are TX_ANSWER; other ARP is
 * TX_NOT_IP; IPv6 ND that needs no answer goes to the modem as IP.
 */
void ch39x_mbim_eth_tx(const struct ch39x_mbim_eth *e, const uint8_t *f,
		       uint32_t len, int32_t tci, struct ch39x_mbim_tx *out);

/*
 * The answer to a TX_ANSWER frame, as the peer sends it, into out (cap
 * bytes): an ARP reply or a neighbour advertisement (router, solicited,
 * override, with the peer's MAC), untagged; *out_tci is the VLAN ID the
 * request had (0: none), for the RX path to tag it as it tags the
 * session's frames. Returns its length, or 0 when none is due after all
 * or it does not fit.
 */
uint32_t ch39x_mbim_eth_answer(const struct ch39x_mbim_eth *e,
			       const uint8_t *f, uint32_t len, int32_t tci,
			       uint8_t *out, uint32_t cap, uint16_t *out_tci);

/*
 * The Ethernet header (14 bytes) to put before an IP datagram of session
 * s. Returns 14, or 0 when the datagram is neither IPv4 nor IPv6 (or too
 * short for its header), which the PMD drops. *tci: the VLAN ID to tag
 * it with, 0 for none.
 */
uint32_t ch39x_mbim_eth_rx(const struct ch39x_mbim_eth *e, uint8_t session,
			   const uint8_t *ip, uint32_t len, uint8_t hdr[14],
			   uint16_t *tci);

#endif /* CH39X_MBIM_ETH_H */
