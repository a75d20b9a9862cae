/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the header walker and checksum helpers of ch39x_net.h with frames
 * as they arrive from the cable (through the device) or from an
 * application. The whole input is one frame, copied into an exactly sized
 * buffer.
 *
 * Besides "no out-of-bounds access", checks that every header the parser
 * reports lies inside the frame, and that a checksum the library sets is
 * one the library then accepts.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_net.h"
#include "fuzz.h"

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static bool
hdrs_eq(const struct ch39x_hdrs *a, const struct ch39x_hdrs *b)
{
	return a->ethertype == b->ethertype && a->l2_len == b->l2_len &&
		a->l3_len == b->l3_len && a->l4_len == b->l4_len &&
		a->l4_proto == b->l4_proto && a->ipv4 == b->ipv4 &&
		a->ipv6 == b->ipv6 && a->fragment == b->fragment &&
		a->l4_total == b->l4_total;
}

static void
check_hdrs(const uint8_t *f, uint32_t len, const struct ch39x_hdrs *h)
{
	FUZZ_CHECK(h->l2_len == CH39X_ETH_HLEN ||
		   h->l2_len == CH39X_ETH_HLEN + CH39X_VLAN_HLEN);
	FUZZ_CHECK(h->l2_len <= len);
	if (h->l2_len == CH39X_ETH_HLEN + CH39X_VLAN_HLEN)
		FUZZ_CHECK(be16(f + 12) == CH39X_ETHERTYPE_VLAN);
	FUZZ_CHECK(!(h->ipv4 && h->ipv6));
	if (h->ipv4) {
		FUZZ_CHECK(h->ethertype == CH39X_ETHERTYPE_IPV4);
		FUZZ_CHECK(h->l3_len >= 20 && h->l3_len <= 60 &&
			   h->l3_len % 4 == 0);
	} else if (h->ipv6) {
		FUZZ_CHECK(h->ethertype == CH39X_ETHERTYPE_IPV6);
		FUZZ_CHECK(h->l3_len == 40);
		FUZZ_CHECK(!h->fragment);
	} else {
		FUZZ_CHECK(h->l3_len == 0 && h->l4_len == 0);
		FUZZ_CHECK(h->l4_proto == 0 && !h->fragment);
		return;
	}
	/* L3 and everything the IP length covers lie inside the frame. */
	FUZZ_CHECK((uint32_t)h->l2_len + h->l3_len <= len);
	FUZZ_CHECK((uint64_t)h->l2_len + h->l3_len + h->l4_total <= len);
	if (h->l4_proto == 0) {
		FUZZ_CHECK(h->l4_len == 0);
		return;
	}
	FUZZ_CHECK(h->l4_proto == CH39X_IPPROTO_TCP ||
		   h->l4_proto == CH39X_IPPROTO_UDP);
	FUZZ_CHECK(!h->fragment);
	if (h->l4_proto == CH39X_IPPROTO_UDP)
		FUZZ_CHECK(h->l4_len == 8);
	else
		FUZZ_CHECK(h->l4_len >= 20 && h->l4_len <= 60);
	FUZZ_CHECK(h->l4_len <= h->l4_total);
	FUZZ_CHECK((uint32_t)h->l2_len + h->l3_len + h->l4_len <= len);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_hdrs h, h2;
	uint32_t len;
	uint8_t *f, *w;
	int rc;

	if (size > UINT32_MAX)
		return 0;
	len = (uint32_t)size;
	f = fuzz_dup(data, len);
	rc = ch39x_parse_hdrs(f, len, &h);
	if (rc != 0) {
		FUZZ_CHECK(rc == -1);
		FUZZ_CHECK(len < CH39X_ETH_HLEN ||
			   (len < CH39X_ETH_HLEN + CH39X_VLAN_HLEN &&
			    be16(f + 12) == CH39X_ETHERTYPE_VLAN));
		free(f);
		return 0;
	}
	check_hdrs(f, len, &h);
	if (h.ipv4)
		(void)ch39x_ip4_csum_ok(f, &h);
	if (h.l4_proto != 0)
		(void)ch39x_l4_csum_ok(f, &h);

	/* What the library sets, it accepts; headers are left as they were. */
	if (h.ipv4 || h.l4_proto != 0) {
		w = fuzz_dup(f, len);
		if (h.ipv4)
			ch39x_ip4_csum_set(w, &h);
		if (h.l4_proto != 0)
			ch39x_l4_csum_set(w, &h);
		FUZZ_CHECK(ch39x_parse_hdrs(w, len, &h2) == 0);
		FUZZ_CHECK(hdrs_eq(&h, &h2));
		if (h.ipv4)
			FUZZ_CHECK(ch39x_ip4_csum_ok(w, &h));
		if (h.l4_proto != 0)
			FUZZ_CHECK(ch39x_l4_csum_ok(w, &h));
		free(w);
	}
	free(f);
	return 0;
}
