/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend: the bus's news (the transport's bus_fd and
 * bus_read ops), from the kernel's own device events.
 *
 * Why not libusb's hotplug callbacks: on Linux, libusb learns of devices
 * from udev's re-sent events, which need a running udevd; minimal systems
 * (OpenWrt-like images, the test guest) have none, and there libusb's
 * callbacks never come. The kernel sends the same events itself to
 * netlink group 1 (NETLINK_KOBJECT_UEVENT, readable without privileges),
 * which is what udevd and a libusb built without udev listen to. The
 * kernel sends them only to network namespaces the first user namespace
 * owns: a process in another (a rootless container) gets none, and
 * bus_fd says so, so that the PMD asks the device instead.
 *
 * A message is input this library did not write: the parser
 * (ch39x_uevent.c) bounds-checks it, and only the kernel's are taken.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/nsfs.h>

#include "ch39x_libusb_priv.h"
#include "ch39x_uevent.h"

/* The first user namespace's inode number (PROC_USER_INIT_INO), fixed. */
#define LU_INIT_USERNS_INO	0xEFFFFFFDu
#define LU_INIT_USERNS		"user:[4026531837]"
/* A kernel uevent is at most UEVENT_BUFFER_SIZE (2048) bytes. */
#define LU_UEVENT_MAX		4096
/* Messages one bus_read takes; the rest keep the descriptor readable. */
#define LU_UEVENT_BATCH		64
/* A hub with many devices sends hundreds at once: room for them. */
#define LU_UEVENT_RCVBUF	(1 << 20)

/* The process's own user namespace is the first one. */
static bool
first_user_ns(void)
{
	char link[64];
	ssize_t n = readlink("/proc/self/ns/user", link, sizeof(link) - 1);

	/* No such link: a kernel without user namespaces, so the first. */
	if (n < 0)
		return errno == ENOENT;
	link[n] = '\0';
	return strcmp(link, LU_INIT_USERNS) == 0;
}

/*
 * The kernel sends a USB device's events to the network namespaces that
 * the first user namespace owns (kobject_uevent.c), so what counts is the
 * owner of this process's network namespace.
 */
bool
ch39x_libusb_uevents_reach(void)
{
	struct stat st;
	int ns, owner, e;
	bool first;

	ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return first_user_ns();
	owner = ioctl(ns, NS_GET_USERNS);
	e = errno;
	close(ns);
	if (owner < 0)
		/*
		 * EPERM: owned by a user namespace above this process's
		 * (unshare -U without -n), the first one as a rule. Else a
		 * kernel before 4.9: the process's own tells what it can.
		 */
		return e == EPERM || first_user_ns();
	first = fstat(owner, &st) == 0 && st.st_ino == LU_INIT_USERNS_INO;
	close(owner);
	return first;
}

int
lu_bus_fd(struct ch39x_usb_dev *d, char *err, size_t errlen)
{
	struct lu_dev *u = to_lu(d);
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd, sz = LU_UEVENT_RCVBUF, e;

	if (u->bus_fd >= 0)
		return u->bus_fd;
	if (!ch39x_libusb_uevents_reach()) {
		snprintf(err, errlen, "the process's network namespace belongs "
			 "to another user namespace than the first (a rootless "
			 "container?), and the kernel sends device events only "
			 "to those of the first");
		return -ENOTSUP;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    NETLINK_KOBJECT_UEVENT);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		e = errno;
		snprintf(err, errlen, "the kernel's device events: %s",
			 strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	/* Root may go past net.core.rmem_max; others get what they get. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	u->bus_fd = fd;
	return fd;
}

void
lu_bus_close(struct lu_dev *u)
{
	if (u->bus_fd >= 0)
		close(u->bus_fd);
	u->bus_fd = -1;
}

/* The handle's device ("1-2.4") or one of its interfaces ("1-2.4:1.0"). */
static bool
is_ours(const struct lu_dev *u, const char *name)
{
	size_t n = strlen(u->path);

	return n != 0 && strncmp(name, u->path, n) == 0 &&
		(name[n] == '\0' || name[n] == ':');
}

/* An interface of ours still held by usbfs for us. */
static bool
if_held(const struct lu_dev *u, uint8_t ifn)
{
	char p[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(p, sizeof(p), LU_SYSFS_USB "/%s:%u.%u/driver", u->path,
		 u->info.config_value, ifn);
	n = readlink(p, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	base = strrchr(link, '/');
	return strcmp(base != NULL ? base + 1 : link, "usbfs") == 0;
}

/*
 * Whether the handle's device is still its own, from sysfs: the same
 * enumeration at its path, authorized, its interfaces claimed by usbfs.
 * An event about it may be of the backend's own making (a configuration
 * switch, a kernel driver let go); what sysfs shows after it tells.
 * A deauthorized device or one reset by another program (its claims
 * dropped) is as good as gone: the port waits for it as for a return.
 */
static bool
in_place(const struct lu_dev *u)
{
	struct lu_sysdev sd;
	char v[8];
	uint8_t i;

	if (__atomic_load_n(&u->gone, __ATOMIC_RELAXED) || u->h == NULL)
		return false;
	if (!lu_read_sysdev(u->path, &sd) || sd.busdev != u->busdev)
		return false;
	if (lu_read_attr(u->path, "authorized", v, sizeof(v)) &&
	    strcmp(v, "1") != 0)
		return false;
	for (i = 0; i < u->n_ifs; i++)
		if (!if_held(u, u->ifs[i]))
			return false;
	return true;
}

/* What one USB event says to this handle; *ours: it was about its device. */
static unsigned int
news_of(const struct lu_dev *u, const struct ch39x_uevent *ev, bool *ours)
{
	if (ev->kind == CH39X_UEVENT_USB_DEVICE &&
	    ev->action == CH39X_UEVENT_REMOVE && ev->busdev == u->busdev)
		return CH39X_BUS_GONE;
	if (is_ours(u, ev->name))
		*ours = true;
	if ((ev->kind == CH39X_UEVENT_USB_DEVICE ||
	     ev->kind == CH39X_UEVENT_USB_INTERFACE) &&
	    (ev->action == CH39X_UEVENT_ADD || ev->action == CH39X_UEVENT_BIND))
		return CH39X_BUS_ARRIVED;
	return 0;
}

/* One message from the socket: 1 taken, 0 none waits, -1 lost ones. */
static int
recv_one(int fd, uint8_t *buf, size_t cap, size_t *len)
{
	struct sockaddr_nl sa;
	struct iovec iov = { .iov_base = buf, .iov_len = cap };
	struct msghdr mh = {
		.msg_name = &sa, .msg_namelen = sizeof(sa),
		.msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);

	if (n < 0)
		return errno == ENOBUFS ? -1 : 0;
	*len = 0;
	/* The kernel's only (port id 0), whole. */
	if (mh.msg_namelen == sizeof(sa) && sa.nl_pid == 0 &&
	    !(mh.msg_flags & MSG_TRUNC))
		*len = (size_t)n;
	return 1;
}

unsigned int
lu_bus_read(struct ch39x_usb_dev *d)
{
	struct lu_dev *u = to_lu(d);
	uint8_t msg[LU_UEVENT_MAX];
	struct ch39x_uevent ev;
	unsigned int news = 0, i;
	bool ours = false;
	size_t len;
	int r;

	if (u->bus_fd < 0)
		return 0;
	for (i = 0; i < LU_UEVENT_BATCH; i++) {
		r = recv_one(u->bus_fd, msg, sizeof(msg), &len);
		if (r == 0)
			break;
		if (r < 0) {
			news |= CH39X_BUS_LOST | CH39X_BUS_ARRIVED;
			ours = true;
			continue;
		}
		if (len != 0 && ch39x_uevent_parse(msg, len, &ev) == 0 &&
		    ev.kind != CH39X_UEVENT_NOT_USB)
			news |= news_of(u, &ev, &ours);
	}
	if (ours && !(news & CH39X_BUS_GONE) && !in_place(u))
		news |= CH39X_BUS_GONE;
	return news;
}
