/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The kernel's uevent messages (lib/ch39x/ch39x_uevent.h). A message is
 * at most a few kilobytes of NUL-separated strings; nothing here reads
 * past len or assumes a terminating NUL.
 */

#include <string.h>

#include "ch39x_uevent.h"

/* The value of key in the string s of n bytes ("KEY=VALUE"), or NULL. */
static const char *
value_of(const char *s, size_t n, const char *key, size_t *vlen)
{
	size_t k = strlen(key);

	if (n <= k || memcmp(s, key, k) != 0 || s[k] != '=')
		return NULL;
	*vlen = n - k - 1;
	return s + k + 1;
}

static bool
is(const char *v, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(v, word, n) == 0;
}

static enum ch39x_uevent_action
action_of(const char *v, size_t n)
{
	if (is(v, n, "add"))
		return CH39X_UEVENT_ADD;
	if (is(v, n, "remove"))
		return CH39X_UEVENT_REMOVE;
	if (is(v, n, "bind"))
		return CH39X_UEVENT_BIND;
	if (is(v, n, "unbind"))
		return CH39X_UEVENT_UNBIND;
	return CH39X_UEVENT_OTHER;
}

/* A decimal number of at most 5 digits (bus and device numbers), or -1. */
static long
small_number(const char *v, size_t n)
{
	long x = 0;
	size_t i;

	if (n == 0 || n > 5)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	return x;
}

/* DEVPATH's last part, when it fits. */
static void
set_name(struct ch39x_uevent *ev, const char *v, size_t n)
{
	const char *slash = memrchr(v, '/', n);
	size_t off = slash != NULL ? (size_t)(slash - v) + 1 : 0;

	if (n - off >= sizeof(ev->name) || memchr(v + off, '\0', n - off))
		return;
	memcpy(ev->name, v + off, n - off);
	ev->name[n - off] = '\0';
}

/* One KEY=VALUE string. seen: bit 0 ACTION, bit 1 DEVPATH. */
static void
take_key(struct ch39x_uevent *ev, const char *s, size_t n, unsigned int *seen,
	 long *bus, long *dev, bool *usb)
{
	const char *v;
	size_t vn;

	if ((v = value_of(s, n, "ACTION", &vn)) != NULL) {
		ev->action = action_of(v, vn);
		*seen |= 1;
	} else if ((v = value_of(s, n, "DEVPATH", &vn)) != NULL) {
		set_name(ev, v, vn);
		*seen |= 2;
	} else if ((v = value_of(s, n, "SUBSYSTEM", &vn)) != NULL) {
		*usb = is(v, vn, "usb");
	} else if ((v = value_of(s, n, "DEVTYPE", &vn)) != NULL) {
		ev->kind = is(v, vn, "usb_device") ? CH39X_UEVENT_USB_DEVICE :
			is(v, vn, "usb_interface") ?
			CH39X_UEVENT_USB_INTERFACE : CH39X_UEVENT_USB_OTHER;
	} else if ((v = value_of(s, n, "BUSNUM", &vn)) != NULL) {
		*bus = small_number(v, vn);
	} else if ((v = value_of(s, n, "DEVNUM", &vn)) != NULL) {
		*dev = small_number(v, vn);
	}
}

int
ch39x_uevent_parse(const uint8_t *buf, size_t len, struct ch39x_uevent *ev)
{
	const char *p = (const char *)buf, *end = p + len, *z;
	unsigned int seen = 0;
	long bus = -1, dev = -1;
	bool usb = false;

	memset(ev, 0, sizeof(*ev));
	ev->kind = CH39X_UEVENT_USB_OTHER;
	/* The header, "add@/devices/...": a kernel message's first string. */
	z = memchr(p, '\0', len);
	if (z == NULL || memchr(p, '@', (size_t)(z - p)) == NULL)
		return -1;
	for (p = z + 1; p < end; p = z + 1) {
		z = memchr(p, '\0', (size_t)(end - p));
		if (z == NULL)
			z = end;
		take_key(ev, p, (size_t)(z - p), &seen, &bus, &dev, &usb);
	}
	if (seen != 3)
		return -1;
	if (!usb)
		ev->kind = CH39X_UEVENT_NOT_USB;
	if (usb && bus > 0 && bus <= 0xFFFF && dev > 0 && dev <= 0xFFFF)
		ev->busdev = (uint32_t)bus << 16 | (uint32_t)dev;
	return 0;
}
