/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The kernel's device events (uevents, netlink NETLINK_KOBJECT_UEVENT
 * group 1), as far as a USB transport needs them: a pure parser over one
 * message, bounds-checked like every other parser here (a message is
 * input this library did not write).
 */

#ifndef CH39X_UEVENT_H
#define CH39X_UEVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What happened (ACTION=). */
enum ch39x_uevent_action {
	CH39X_UEVENT_OTHER = 0,	/* change, move, online, ... */
	CH39X_UEVENT_ADD,
	CH39X_UEVENT_REMOVE,
	CH39X_UEVENT_BIND,
	CH39X_UEVENT_UNBIND,
};

/* What the object is (SUBSYSTEM=usb with DEVTYPE=). */
enum ch39x_uevent_kind {
	CH39X_UEVENT_NOT_USB = 0,	/* another subsystem */
	CH39X_UEVENT_USB_DEVICE,	/* "1-2.4" */
	CH39X_UEVENT_USB_INTERFACE,	/* "1-2.4:1.0" */
	CH39X_UEVENT_USB_OTHER,		/* an endpoint, a port, ... */
};

#define CH39X_UEVENT_NAME_MAX 64

struct ch39x_uevent {
	enum ch39x_uevent_action action;
	enum ch39x_uevent_kind kind;
	/* The last part of DEVPATH: the sysfs name ("" when too long). */
	char name[CH39X_UEVENT_NAME_MAX];
	/* BUSNUM << 16 | DEVNUM of a USB device; 0 when not given. */
	uint32_t busdev;
};

/*
 * One message as the kernel sends it: "ACTION@DEVPATH", then KEY=VALUE
 * strings, each NUL-terminated (the last one may not be). 0 and *ev, or
 * -1 for what is not a kernel uevent (no '@' header, no ACTION or
 * DEVPATH key).
 */
int ch39x_uevent_parse(const uint8_t *buf, size_t len,
		       struct ch39x_uevent *ev);

#endif /* CH39X_UEVENT_H */
