/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend: a device's return to the bus (the transport's
 * lookup and reattach ops, for the PMD's reconnect=on).
 *
 * A device that leaves the bus and comes back is a new device to the
 * kernel: a new device number, maybe another bus path, its configuration
 * chosen afresh and the kernel's drivers bound to it again. The handle
 * open made is dead for good. So the port's place is remembered as open
 * chose the device (the serial= or path= of the selection; without
 * either, the serial number the device had, else the path it was at),
 * sysfs is read for a device in that place (a bounded scan: one
 * directory and a few small files per device, no request to any device,
 * so it may run every few tens of milliseconds while a port waits), and
 * a fresh libusb context lists it: an existing context learns of new
 * devices only from udev's events, which a minimal system (an OpenWrt-like
 * image, a container, the test guest) does not send. The device is then
 * taken into the same handle, so that the PMD's queues, transfers and
 * RX wake-up descriptor stay as they were.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ch39x_libusb_priv.h"

/* How long a device that offers nothing of ours is not looked at again. */
#define LU_FOREIGN_RECHECK_MS 1000
/*
 * How long the gone enumeration's own sysfs entry is taken for a leftover:
 * a disconnected device's entry goes within milliseconds; one that stays
 * longer with its number is the same device made usable again in place
 * (authorized 0 then 1, a port reset by another program), to be taken.
 */
#define LU_LINGER_MS 1000

/* One attribute of a device's sysfs directory, without its newline. */
bool
lu_read_attr(const char *dev, const char *attr, char *buf, size_t len)
{
	char p[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(p, sizeof(p), LU_SYSFS_USB "/%s/%s", dev, attr);
	f = fopen(p, "r");
	if (f == NULL)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

void
ch39x_libusb_serial_ascii(char *s)
{
	const unsigned char *r = (const unsigned char *)s;
	bool pair = false;	/* a 4-byte sequence: its second '?' due */
	char *w = s;

	unsigned char c;

	/*
	 * Never more written than read: w stays at or behind r, and each
	 * byte is read before its place may be written.
	 */
	for (; (c = *r) != '\0'; r++) {
		if (c < 0x80) {
			*w++ = (char)c;
		} else if (c >= 0xC0) {
			*w++ = '?';
			pair = c >= 0xF0;
		} else if (pair) {
			*w++ = '?';
			pair = false;
		}
	}
	*w = '\0';
}

bool
lu_read_sysdev(const char *name, struct lu_sysdev *d)
{
	char v[16], p[16], b[16], n[16];

	if (strlen(name) >= sizeof(d->name) ||
	    !lu_read_attr(name, "idVendor", v, sizeof(v)) ||
	    !lu_read_attr(name, "idProduct", p, sizeof(p)) ||
	    !lu_read_attr(name, "busnum", b, sizeof(b)) ||
	    !lu_read_attr(name, "devnum", n, sizeof(n)))
		return false;
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->vid = (uint16_t)strtoul(v, NULL, 16);
	d->pid = (uint16_t)strtoul(p, NULL, 16);
	d->busdev = (uint32_t)strtoul(b, NULL, 10) << 16 |
		(uint32_t)(strtoul(n, NULL, 10) & 0xFFFF);
	if (!lu_read_attr(name, "serial", d->serial, sizeof(d->serial)))
		d->serial[0] = '\0';
	ch39x_libusb_serial_ascii(d->serial);
	return true;
}

/*
 * The device in the port's place: the one with this serial number (any
 * path) when serial is set, else the one at path; not the enumeration
 * gone (busnum << 16 | devnum; 0: none), whose entry lingers a moment
 * after its requests fail (a returning device is numbered anew).
 * Interfaces ("1-2:1.0") and root hubs ("usb1") are not devices of a
 * place. 0 or -ENODEV.
 */
static int
sys_find(const char *serial, const char *path, uint32_t gone,
	 struct lu_sysdev *out)
{
	struct dirent *e;
	DIR *dir;
	int rc = -ENODEV;

	if (serial[0] == '\0')
		return lu_read_sysdev(path, out) && out->busdev != gone ? 0 : -ENODEV;
	dir = opendir(LU_SYSFS_USB);
	if (dir == NULL)
		return -ENODEV;
	while (rc != 0 && (e = readdir(dir)) != NULL) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
		    strchr(e->d_name, ':') != NULL)
			continue;
		if (lu_read_sysdev(e->d_name, out) && out->busdev != gone &&
		    strcmp(out->serial, serial) == 0)
			rc = 0;
	}
	closedir(dir);
	return rc;
}

void
lu_seen_drop(struct lu_dev *u)
{
	if (u->seen.ctx != NULL)
		libusb_exit(u->seen.ctx);
	memset(&u->seen, 0, sizeof(u->seen));
}

/*
 * Who the device in the place is: from sysfs, and what it offers from a
 * fresh context's listing (kept for reattach). A device that offers
 * nothing of ours (or is not listed yet: it may still be enumerating) is
 * looked at again only after LU_FOREIGN_RECHECK_MS.
 */
static void
see(struct lu_dev *u, const struct lu_sysdev *sd)
{
	struct ch39x_libusb_sel sel = {
		.path = sd->name,
		.has_function = u->has_function,
		.function = u->function,
	};
	struct ch39x_usb_info *id = &u->seen.info;
	struct lu_cand cand;
	libusb_device *dev = NULL;
	char err[256];

	lu_seen_drop(u);
	snprintf(u->seen.path, sizeof(u->seen.path), "%s", sd->name);
	u->seen.busdev = sd->busdev;
	id->vid = sd->vid;
	id->pid = sd->pid;
	snprintf(id->serial, sizeof(id->serial), "%s", sd->serial);
	id->framing = CH39X_FRAMING_NONE;
	if (libusb_init(&u->seen.ctx) != 0) {
		u->seen.ctx = NULL;
	} else {
		memset(&cand, 0, sizeof(cand));
		dev = pick(u->seen.ctx, &sel, CH39X_LIBUSB_ANY, &cand, err,
			   sizeof(err));
	}
	if (dev != NULL) {
		id->framing = lu_framing(lu_first_proto(u->protos, cand.offers));
		libusb_unref_device(dev);
	}
	u->seen.until_ms = id->framing == CH39X_FRAMING_NONE ?
		mono_ms() + LU_FOREIGN_RECHECK_MS : UINT64_MAX;
}

int
lu_lookup(struct ch39x_usb_dev *d, struct ch39x_usb_info *info)
{
	struct lu_dev *u = to_lu(d);
	struct lu_sysdev sd;

	if (u->lookup_since_ms == 0)
		u->lookup_since_ms = mono_ms();
	if (sys_find(u->sel_serial, u->sel_path,
		     mono_ms() < u->lookup_since_ms + LU_LINGER_MS ?
		     u->busdev : 0, &sd) != 0) {
		lu_seen_drop(u);
		return -ENODEV;
	}
	if (sd.busdev != u->seen.busdev || mono_ms() >= u->seen.until_ms)
		see(u, &sd);
	*info = u->seen.info;
	return 0;
}

/* The state one take() of a device leaves in u, back to before it. */
static void
forget_device(struct lu_dev *u)
{
	int k;

	if (u->h != NULL) {
		__atomic_store_n(&u->gone, true, __ATOMIC_RELAXED);
		hand_back(u, true);	/* gone: releases only */
		libusb_close(u->h);
		u->h = NULL;
	}
	u->n_ifs = 0;
	memset(u->detached, 0, sizeof(u->detached));
	u->switched = false;
	u->orig_cfg = 0;
	u->data_alt = 0;
	u->bulk_in = 0;
	u->bulk_out = 0;
	memset(&u->cdc, 0, sizeof(u->cdc));
	memset(&u->info, 0, sizeof(u->info));
	for (k = 0; k < CH39X_EP_COUNT; k++)
		u->ep[k].addr = 0;
}

/* usbfs memory of the gone node: copied by the kernel from now on. */
static uint32_t
bufs_go_stale(struct lu_dev *u)
{
	uint32_t i, n = 0;

	for (i = 0; i < u->n_bufs; i++) {
		if (u->bufs[i].p != NULL && u->bufs[i].devmem &&
		    !u->bufs[i].stale) {
			u->bufs[i].stale = true;
			n++;
		}
	}
	return n;
}

int
lu_reattach(struct ch39x_usb_dev *d, char *err, size_t errlen)
{
	struct lu_dev *u = to_lu(d);
	struct ch39x_libusb_sel sel;
	uint32_t stale;

	if (u->seen.ctx == NULL || u->seen.info.framing == CH39X_FRAMING_NONE) {
		snprintf(err, errlen, "no device of ours in the port's place");
		return -ENODEV;
	}
	forget_device(u);
	lu_pools_free(u);	/* their references to the gone device */
	libusb_exit(u->ctx);
	u->ctx = u->seen.ctx;
	u->seen.ctx = NULL;
	memset(&sel, 0, sizeof(sel));
	sel.path = u->seen.path;
	sel.has_function = u->has_function;
	sel.function = u->function;
	/* Taken or not, the next look starts afresh. */
	u->seen.busdev = 0;
	u->lookup_since_ms = 0;
	/* Present: a failed take gives the kernel its drivers back. */
	__atomic_store_n(&u->gone, false, __ATOMIC_RELAXED);
	if (lu_attach(u, &sel, err, errlen) != 0) {
		if (u->h != NULL) {
			hand_back(u, false);
			libusb_close(u->h);
			u->h = NULL;
		}
		__atomic_store_n(&u->gone, true, __ATOMIC_RELAXED);
		return -EIO;
	}
	if (u->wake_ep >= 0 && lu_ready_add(u) != 0)
		lu_log(u, "%s: libusb's new descriptors are not in the RX "
		       "wake-up set: Rx interrupts may sleep through data",
		       u->path);
	u->reattaches++;
	stale = bufs_go_stale(u);
	lu_log(u, "%s: the device is back (%04x:%04x serial \"%s\"), taken "
	       "again%s", u->path, u->info.vid, u->info.pid, u->info.serial,
	       stale ? "; the transfer buffers made before are the old "
	       "node's usbfs memory, which the kernel now copies (a queue "
	       "set-up makes new ones)" : "");
	return 0;
}
