/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the interrupt event parser (ch39x_event_parse) with what an
 * untrusted device may send on its interrupt endpoint.
 *
 * Input layout:
 *   byte 0   bit 0: 0 = V01 (CH397, 16-byte events), 1 = V02 (CH398,
 *            32-byte events)
 *   rest     the event transfer, copied into an exactly sized buffer
 *
 * Checks that parse(build(parse(x))) == parse(x), that build keeps every
 * byte parse understands, and that build writes exactly one event.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_vendor.h"
#include "fuzz.h"

#define KNOWN_ST (CH39X_EVT_LINK_UP | CH39X_EVT_FULL_DUPLEX | \
		  CH39X_EVT_SPEED_10 | CH39X_EVT_SPEED_1000)

static bool
event_eq(const struct ch39x_event *a, const struct ch39x_event *b)
{
	return a->link_up == b->link_up &&
		a->speed_mbps == b->speed_mbps &&
		a->full_duplex == b->full_duplex &&
		a->rx_packets == b->rx_packets &&
		a->rx_overflow == b->rx_overflow &&
		a->rx_crc_errors == b->rx_crc_errors &&
		a->tx_packets == b->tx_packets;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_profile prof;
	struct ch39x_event ev, ev2;
	uint32_t len, n, st, st2, i;
	uint8_t *buf, *out;
	int rc;

	if (size < 1 || size - 1 > UINT32_MAX)
		return 0;
	if (data[0] & 1)
		FUZZ_CHECK(ch39x_profile_init(&prof, CH39X_PID_CH398,
					      CH39X_SPEED_SUPER) == 0);
	else
		FUZZ_CHECK(ch39x_profile_init(&prof, CH39X_PID_CH397,
					      CH39X_SPEED_HIGH) == 0);
	FUZZ_CHECK(prof.intr_len >= 16);
	len = (uint32_t)(size - 1);
	buf = fuzz_dup(data + 1, len);

	memset(&ev, 0xA5, sizeof(ev));
	rc = ch39x_event_parse(&prof, buf, len, &ev);
	if (len < prof.intr_len) {
		FUZZ_CHECK(rc == -1);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(ev.speed_mbps == 10 || ev.speed_mbps == 100 ||
		   ev.speed_mbps == 1000);
	if (prof.family == CH39X_V01)
		FUZZ_CHECK(ev.speed_mbps != 1000);

	out = malloc(prof.intr_len);
	FUZZ_CHECK(out != NULL);
	/* Too small a buffer: nothing built. */
	FUZZ_CHECK(ch39x_event_build(&prof, &ev, out, prof.intr_len - 1) == 0);
	n = ch39x_event_build(&prof, &ev, out, prof.intr_len);
	FUZZ_CHECK(n == prof.intr_len);

	/* The fields parse knows survive a build. */
	memset(&ev2, 0x5A, sizeof(ev2));
	FUZZ_CHECK(ch39x_event_parse(&prof, out, n, &ev2) == 0);
	FUZZ_CHECK(event_eq(&ev, &ev2));

	/* Byte level: the counters are copied, the status keeps its bits. */
	FUZZ_CHECK(memcmp(out + 4, buf + 4, 12) == 0);
	st = ch39x_get_le32(buf);
	st2 = ch39x_get_le32(out);
	FUZZ_CHECK((st2 & ~KNOWN_ST) == 0);
	FUZZ_CHECK((st2 & (CH39X_EVT_LINK_UP | CH39X_EVT_FULL_DUPLEX)) ==
		   (st & (CH39X_EVT_LINK_UP | CH39X_EVT_FULL_DUPLEX)));
	for (i = 16; i < n; i++)
		FUZZ_CHECK(out[i] == 0);

	free(out);
	free(buf);
	return 0;
}
