/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the router's pure parsers of packets from the WAN
 * (app/ch39x-cpe): the fragment tracker (frag.c), the firewall's packet
 * view (fw.c) and the PPPoE session codec (pppoe.c). The input is one IP
 * packet, copied into an exactly sized buffer; every fragment it is goes
 * through one persistent table (first or later), so sequences of inputs
 * exercise overlaps, eviction and completion too. The same bytes are
 * also an Ethernet frame for the PPPoE parser, whose session is the one
 * the frame names (so that its data path is reached), and the IP packet
 * a session frame carries goes through the IP parsers too.
 *
 * Besides "no out-of-bounds access": a fragment's payload offset lies
 * inside the packet's stated length, its range inside 64 KiB, the table
 * never holds more than its slots; a PPPoE session's IP packet lies
 * inside the frame.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"
#include "fw.h"
#include "fuzz.h"
#include "pppoe.h"

static struct cpe_frag tab;
static uint64_t now;

/* As a frame from a PPPoE WAN, in the session it names. */
static void
pppoe(const uint8_t *f, uint32_t len)
{
	struct cpe_pppoe_sess s = { 0 };
	enum cpe_pppoe_kind k;
	struct cpe_fw_pkt p;
	uint32_t ip_len = 0;

	/* Either direction (the length's parity), the peer the frame's. */
	if (len >= 18) {
		s.sid = (uint16_t)(f[16] << 8 | f[17]);
		memcpy(s.ac, f + (len & 1 ? 0 : 6), 6);
	}
	k = cpe_pppoe_parse(f, len, &s, len & 1, &ip_len);
	FUZZ_CHECK(k >= CPE_PPPOE_NONE && k <= CPE_PPPOE_BAD);
	if (k != CPE_PPPOE_IPV4 && k != CPE_PPPOE_IPV6)
		return;
	FUZZ_CHECK(22 + (uint64_t)ip_len <= len);
	(void)cpe_fw_parse(f + 22, ip_len, &p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpe_frag_info fi;
	enum cpe_frag_reason why;
	struct cpe_fw_tuple t;
	struct cpe_fw_pkt p;
	uint8_t *b;
	int rc;

	if (tab.e == NULL && cpe_frag_init(&tab, 16, 1000, 30) != 0)
		abort();
	b = malloc(size ? size : 1);
	if (b == NULL)
		return 0;
	memcpy(b, data, size);
	now += 7;
	rc = cpe_frag_parse(b, (uint32_t)size, &fi);
	FUZZ_CHECK(rc >= -CPE_FRAG_DROP_MALFORMED && rc <= 1);
	if (rc == 1) {
		FUZZ_CHECK(fi.off + fi.len <= 65535);
		FUZZ_CHECK(fi.l4_off <= size);
		if (fi.off == 0)
			(void)cpe_frag_first(&tab, &fi, now);
		else
			(void)cpe_frag_later(&tab, &fi, now, &why);
	}
	FUZZ_CHECK(tab.in_use <= tab.mask + 1);
	if (size > 0 && data[0] == 0)
		cpe_frag_age(&tab, 4, now + 100000);
	(void)cpe_fw_parse(b, (uint32_t)size, &p);
	/* The guard's key (fw_glue.c) is the parse's tuple, byte for byte. */
	if (cpe_fw_tuple_of(b, (uint32_t)size, &t) == 0)
		FUZZ_CHECK(memcmp(&t, &p.t, sizeof(t)) == 0);
	pppoe(b, (uint32_t)size);
	free(b);
	return 0;
}
