/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit tests for the libusb backend's pure helpers (lib/ch39x), without a
 * device: the devargs' VID:PID and protocol parsers, and the serial
 * number as libusb reads it, which a device's return compares with
 * sysfs's (ch39x_libusb_return.c), and the kernel's device events as the
 * bus watch reads them (ch39x_uevent.c) and where they reach
 * (ch39x_libusb_uevents_reach(), against the kernel's own delivery).
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/nsfs.h>

#include "ch39x_libusb.h"
#include "ch39x_uevent.h"

#include "check.h"

static void
test_vid_pid(void)
{
	uint16_t v = 0, p = 0;

	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86:5398", &v, &p), 0);
	CHECK_EQ(v, 0x1a86);
	CHECK_EQ(p, 0x5398);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1A86:*", &v, &p), 0);
	CHECK_EQ(p, 0);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("0:5398", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86:0", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1a86:12345", &v, &p), -1);
	CHECK_EQ(ch39x_libusb_parse_vid_pid("1g86:5398", &v, &p), -1);
}

static void
test_protos(void)
{
	unsigned int m = 0;

	CHECK_EQ(ch39x_libusb_parse_protos("vendor", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_VENDOR);
	CHECK_EQ(ch39x_libusb_parse_protos("ncm+ecm", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_CDC);
	CHECK_EQ(ch39x_libusb_parse_protos("mbim", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_MBIM);
	CHECK_EQ(ch39x_libusb_parse_protos("ncm+mbim", &m), 0);
	CHECK_EQ(m, (unsigned int)(CH39X_LIBUSB_NCM | CH39X_LIBUSB_MBIM));
	CHECK_EQ(ch39x_libusb_parse_protos("any", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_ANY);
	/* proto=auto drives RNDIS too, after vendor, NCM and ECM. */
	CHECK(CH39X_LIBUSB_ANY & CH39X_LIBUSB_RNDIS);
	CHECK_EQ(ch39x_libusb_parse_protos("ncm+", &m), -1);
	CHECK_EQ(ch39x_libusb_parse_protos("", &m), -1);
	CHECK_EQ(ch39x_libusb_parse_protos("rndis", &m), 0);
	CHECK_EQ(m, (unsigned int)CH39X_LIBUSB_RNDIS);
	CHECK_EQ(ch39x_libusb_parse_protos("ncm+rndis", &m), 0);
	CHECK_EQ(m, (unsigned int)(CH39X_LIBUSB_NCM | CH39X_LIBUSB_RNDIS));
	CHECK(!(CH39X_LIBUSB_CDC & CH39X_LIBUSB_RNDIS));
	CHECK_EQ(ch39x_libusb_parse_protos("rndis+x", &m), -1);
}

static void
test_serial_ascii(void)
{
	static const struct {
		const char *in;
		const char *out;
	} c[] = {
		{ "ncm-0001", "ncm-0001" },
		{ "", "" },
		{ "n\xc3\xa9-1", "n?-1" },		/* 2 bytes, 1 unit */
		{ "\xe2\x82\xac" "5", "?5" },		/* 3 bytes, 1 unit */
		{ "x\xf0\x9f\x98\x80y", "x??y" },	/* 4 bytes, 2 units */
		{ "\xf0\x9f\x98\x80", "??" },		/* at the start */
		{ "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", "????" },
	};
	char b[64];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		snprintf(b, sizeof(b), "%s", c[i].in);
		ch39x_libusb_serial_ascii(b);
		CHECK(strcmp(b, c[i].out) == 0);
	}
}

/* A message as the kernel sends it: strings joined by NULs, one at the end. */
static size_t
msg(uint8_t *buf, size_t cap, const char *const *parts, size_t n, bool end)
{
	size_t len = 0, i, k;

	for (i = 0; i < n; i++) {
		k = strlen(parts[i]);
		if (len + k + 1 > cap)
			break;
		memcpy(buf + len, parts[i], k);
		len += k;
		buf[len++] = '\0';
	}
	return end ? len : len - 1;
}

#define DEV "/devices/platform/dummy_hcd.0/usb1/1-1"

static void
test_uevent(void)
{
	static const char *const removal[] = {
		"remove@" DEV, "ACTION=remove", "DEVPATH=" DEV,
		"SUBSYSTEM=usb", "DEVNAME=bus/usb/001/002",
		"DEVTYPE=usb_device", "BUSNUM=001", "DEVNUM=002", "SEQNUM=7",
	};
	static const char *const unbind[] = {
		"unbind@" DEV "/1-1:1.0", "ACTION=unbind",
		"DEVPATH=" DEV "/1-1:1.0", "SUBSYSTEM=usb",
		"DEVTYPE=usb_interface", "INTERFACE=2/13/0",
	};
	static const char *const net[] = {
		"add@/devices/virtual/net/v0", "ACTION=add",
		"DEVPATH=/devices/virtual/net/v0", "SUBSYSTEM=net",
		"BUSNUM=001", "DEVNUM=002",
	};
	static const char *const bad_num[] = {
		"add@" DEV, "ACTION=add", "DEVPATH=" DEV, "SUBSYSTEM=usb",
		"DEVTYPE=usb_device", "BUSNUM=1x", "DEVNUM=999999",
	};
	static const char *const no_path[] = {
		"add@" DEV, "ACTION=add", "SUBSYSTEM=usb",
	};
	static const char *const long_name[] = {
		"add@/x", "ACTION=change", "DEVPATH=/devices/"
		"0123456789012345678901234567890123456789"
		"0123456789012345678901234567890123456789",
		"SUBSYSTEM=usb",
	};
	struct ch39x_uevent ev;
	uint8_t b[512];
	size_t n;

	n = msg(b, sizeof(b), removal, 9, true);
	CHECK_EQ(ch39x_uevent_parse(b, n, &ev), 0);
	CHECK_EQ(ev.action, CH39X_UEVENT_REMOVE);
	CHECK_EQ(ev.kind, CH39X_UEVENT_USB_DEVICE);
	CHECK(strcmp(ev.name, "1-1") == 0);
	CHECK_EQ(ev.busdev, 1u << 16 | 2u);
	/* The same without its last NUL, and cut before DEVNUM's digits. */
	CHECK_EQ(ch39x_uevent_parse(b, n - 1, &ev), 0);
	CHECK_EQ(ev.busdev, 1u << 16 | 2u);
	n = msg(b, sizeof(b), removal, 8, true);
	CHECK_EQ(ch39x_uevent_parse(b, n - 4, &ev), 0);
	CHECK_EQ(ev.busdev, 0u);
	/* Every truncation parses or is refused, never read past. */
	for (; n > 0; n--)
		(void)ch39x_uevent_parse(b, n - 1, &ev);

	n = msg(b, sizeof(b), unbind, 6, true);
	CHECK_EQ(ch39x_uevent_parse(b, n, &ev), 0);
	CHECK_EQ(ev.action, CH39X_UEVENT_UNBIND);
	CHECK_EQ(ev.kind, CH39X_UEVENT_USB_INTERFACE);
	CHECK(strcmp(ev.name, "1-1:1.0") == 0);
	CHECK_EQ(ev.busdev, 0u);

	n = msg(b, sizeof(b), net, 6, true);
	CHECK_EQ(ch39x_uevent_parse(b, n, &ev), 0);
	CHECK_EQ(ev.kind, CH39X_UEVENT_NOT_USB);
	CHECK_EQ(ev.busdev, 0u);		/* not a USB device's */

	n = msg(b, sizeof(b), bad_num, 7, true);
	CHECK_EQ(ch39x_uevent_parse(b, n, &ev), 0);
	CHECK_EQ(ev.action, CH39X_UEVENT_ADD);
	CHECK_EQ(ev.busdev, 0u);

	n = msg(b, sizeof(b), no_path, 3, true);
	CHECK_EQ(ch39x_uevent_parse(b, n, &ev), -1);
	n = msg(b, sizeof(b), long_name, 4, true);
	CHECK_EQ(ch39x_uevent_parse(b, n, &ev), 0);
	CHECK_EQ(ev.action, CH39X_UEVENT_OTHER);
	CHECK(ev.name[0] == '\0');		/* too long: no name */
	/* libudev's re-sent events (group 2) have no '@' header. */
	memcpy(b, "libudev\0\xfe\xed", 10);
	CHECK_EQ(ch39x_uevent_parse(b, 10, &ev), -1);
	CHECK_EQ(ch39x_uevent_parse(b, 0, &ev), -1);
}

/* An untagged device (as a USB device is): its "change" goes to all. */
#define UEV_DEV "/sys/devices/virtual/mem/full/uevent"

static int
uevent_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
			NETLINK_KOBJECT_UEVENT);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether the change event of UEV_DEV arrives within ms (bounded). */
static bool
got_change(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct ch39x_uevent ev;
	uint8_t buf[4096];
	ssize_t n;
	int k;

	for (k = 0; k < 256 && poll(&p, 1, ms) == 1; k++) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n > 0 && ch39x_uevent_parse(buf, (size_t)n, &ev) == 0 &&
		    ev.action == CH39X_UEVENT_OTHER &&
		    strcmp(ev.name, "full") == 0)
			return true;
	}
	return false;
}

static bool
trigger(void)
{
	int fd = open(UEV_DEV, O_WRONLY | O_CLOEXEC);
	bool ok = fd >= 0 && write(fd, "change", 6) == 6;

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * Whether the kernel answers NS_GET_USERNS here (4.9 and later; not under
 * an emulator that does not know the ioctl). Without it the function can
 * only err on the safe side: never say events come that do not.
 */
static bool
ns_ioctl_works(void)
{
	int ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int r = ns < 0 ? -1 : ioctl(ns, NS_GET_USERNS);
	bool works = r >= 0 || errno == EPERM;

	if (r >= 0)
		close(r);
	if (ns >= 0)
		close(ns);
	return works;
}

/* What arrived (got) against what ch39x_libusb_uevents_reach() says. */
static bool
reach_agrees(bool got)
{
	bool reach = ch39x_libusb_uevents_reach();

	return ns_ioctl_works() ? reach == got : !reach || got;
}

/*
 * A child in new namespaces (flags): 0 when what it receives is want and
 * agrees with ch39x_libusb_uevents_reach(), 1 when not, 77 when the
 * namespaces cannot be made here.
 */
static int
child_sees(int flags, bool want)
{
	int ready[2], go[2], st = 0, fd;
	char c = 0;
	bool got;
	pid_t pid;

	if (pipe(ready) != 0 || pipe(go) != 0)
		return 77;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (unshare(flags) != 0)
			_exit(77);
		fd = uevent_socket();
		if (fd < 0 || write(ready[1], "r", 1) != 1 ||
		    read(go[0], &c, 1) != 1)
			_exit(77);
		/* Waiting for what should not come: 1 s is plenty. */
		got = got_change(fd, want ? 5000 : 1000);
		_exit(got == want && reach_agrees(got) ? 0 : 1);
	}
	/* The child's ends closed here: its exit is an end of file. */
	close(ready[1]);
	close(go[0]);
	if (pid < 0 || read(ready[0], &c, 1) != 1 || !trigger() ||
	    write(go[1], "g", 1) != 1)
		st = -1;
	close(ready[0]);
	close(go[1]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	return st < 0 ? 1 : WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static void
test_uevents_reach(void)
{
	int fd, r;

	fd = uevent_socket();
	if (geteuid() != 0 || fd < 0 || access(UEV_DEV, W_OK) != 0) {
		printf("test_usb: uevent delivery not checked (needs root)\n");
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Here: what arrives is what the function says. */
	CHECK(trigger());
	CHECK(reach_agrees(got_change(fd, 5000)));
	close(fd);
	/* Another user namespace owning another network namespace: none. */
	r = child_sees(CLONE_NEWUSER | CLONE_NEWNET, false);
	if (r != 77)
		CHECK_EQ(r, 0);
	/* Another user namespace in this network namespace: they come. */
	r = child_sees(CLONE_NEWUSER, true);
	if (r != 77)
		CHECK_EQ(r, 0);
	if (r == 77)
		printf("test_usb: no user namespaces here: not checked\n");
}

int
main(void)
{
	test_vid_pid();
	test_protos();
	test_serial_ascii();
	test_uevent();
	test_uevents_reach();
	printf("test_usb: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
