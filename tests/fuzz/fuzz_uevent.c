/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the kernel uevent parser (ch39x_uevent_parse), which the libusb
 * backend runs on every device event of the host while a port watches
 * the bus (lib/ch39x/ch39x_libusb_bus.c).
 *
 * Input layout: the message as recv() returns it, copied into an
 * exactly sized buffer (so that ASan sees a read past its end).
 *
 * Checks: a parsed event's name is a terminated string shorter than its
 * field, without '/'; a bus/device number only for a USB object, both
 * halves non-zero; an event is parsed the same from a longer buffer with
 * a NUL after it (the parser stops at len, whatever follows).
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_uevent.h"
#include "fuzz.h"

static void
check_event(const struct ch39x_uevent *ev)
{
	size_t n = strnlen(ev->name, sizeof(ev->name));

	FUZZ_CHECK(n < sizeof(ev->name));
	FUZZ_CHECK(strchr(ev->name, '/') == NULL);
	FUZZ_CHECK(ev->action <= CH39X_UEVENT_UNBIND);
	FUZZ_CHECK(ev->kind <= CH39X_UEVENT_USB_OTHER);
	if (ev->busdev != 0) {
		FUZZ_CHECK(ev->kind != CH39X_UEVENT_NOT_USB);
		FUZZ_CHECK((ev->busdev >> 16) != 0 &&
			   (ev->busdev & 0xFFFF) != 0);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ch39x_uevent a, b;
	uint8_t *buf = malloc(size ? size : 1);
	uint8_t *longer = malloc(size + 1);
	int ra, rb;

	if (buf == NULL || longer == NULL) {
		free(buf);
		free(longer);
		return 0;
	}
	memcpy(buf, data, size);
	ra = ch39x_uevent_parse(buf, size, &a);
	FUZZ_CHECK(ra == 0 || ra == -1);
	if (ra == 0)
		check_event(&a);
	/* A terminating NUL after the message changes nothing. */
	memcpy(longer, data, size);
	longer[size] = '\0';
	rb = ch39x_uevent_parse(longer, size + 1, &b);
	if (ra == 0 && size > 0 && data[size - 1] == '\0') {
		FUZZ_CHECK(rb == 0);
		FUZZ_CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	}
	free(buf);
	free(longer);
	return 0;
}
