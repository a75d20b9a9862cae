/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* IPv6 neighbour discovery's message checks (nd6.h). */

#include <rte_ip.h>

#include "cpe_compat.h"
#include "csum.h"
#include "nd6_msg.h"

int
cpe_nd6_opts(const uint8_t *ic, uint32_t len, uint8_t want,
	     const struct rte_ether_addr **lla)
{
	uint32_t off = 24, olen;

	*lla = NULL;
	while (off < len) {
		if (len - off < 2)
			return -1;
		olen = ic[off + 1] * 8u;
		if (olen == 0 || olen > len - off)
			return -1;
		if (ic[off] == want && olen >= 8)
			/* As 2-aligned as the frame's own Ethernet addresses
			 * (options are 8-byte units after a 24-byte header).
			 */
			*lla = (const struct rte_ether_addr *)(const void *)
				(ic + off + 2);
		off += olen;
	}
	return 0;
}

/* The ICMPv6 checksum over the pseudo-header and the message. */
static bool
cksum_ok(const struct rte_ipv6_hdr *ip, const uint8_t *ic, uint32_t len)
{
	uint32_t sum = rte_ipv6_phdr_cksum(ip, 0);

	sum += rte_raw_cksum(ic, len);
	return cpe_csum_fold(sum) == 0xffff;
}

int
cpe_nd6_validate(struct rte_mbuf *m, struct rte_ipv6_hdr *ip, uint8_t **icp,
		 uint32_t *lenp)
{
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	uint8_t *ic = (uint8_t *)(ip + 1);

	/* Only the first segment is read: ND messages are small. */
	if (ip->hop_limits != 255 || ip->proto != IPPROTO_ICMPV6 ||
	    len < 24 || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN +
	    sizeof(*ip) + len || ic[1] != 0 || ic[8] == 0xff ||
	    !cksum_ok(ip, ic, len))
		return -1;
	*icp = ic;
	*lenp = len;
	return 0;
}

int
cpe_nd6_ra_check(const struct rte_mbuf *m, uint16_t *lifetime)
{
	const struct rte_ipv6_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv6_hdr *, RTE_ETHER_HDR_LEN);
	uint32_t len = rte_be_to_cpu_16(ip->payload_len);
	const uint8_t *ic = (const uint8_t *)(ip + 1);

	/* 16 bytes of message; only the first segment is read. */
	if (ip->hop_limits != 255 || ip->proto != IPPROTO_ICMPV6 ||
	    len < 16 || rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN +
	    sizeof(*ip) + len || ic[1] != 0 || IP6_SRC(ip)[0] != 0xfe ||
	    (IP6_SRC(ip)[1] & 0xc0) != 0x80 || !cksum_ok(ip, ic, len))
		return -1;
	*lifetime = rte_be_to_cpu_16(cpe_get16(ic + 6));
	return 0;
}
