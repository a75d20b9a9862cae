/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * wire=tap: the simulated adapter's cable ends at a Linux TAP interface.
 * The test runs in a network namespace of its own (so it never touches
 * the machine's interfaces), brings the TAP up and talks to the model from
 * the kernel's side through a packet socket bound to the interface:
 * frames the socket sends must arrive in bulk IN records byte for byte,
 * and frames the host sends in bulk OUT records must reach the socket.
 * Without CAP_NET_ADMIN it reports "skipped" (meson exit code 77).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/if_ether.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ch39x_sim.h"
#include "ch39x_vendor.h"
#include "check.h"

#define TAP_NAME "ch39xt0"
/* An IEEE local experimental EtherType: the kernel sends none of its own. */
#define TEST_ETHERTYPE 0x88B5

static int
tap_socket(int *ifindex)
{
	struct sockaddr_ll sll;
	struct ifreq ifr;
	int fd;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(TEST_ETHERTYPE));
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", TAP_NAME);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0 ||
	    ioctl(fd, SIOCGIFINDEX, &ifr) < 0)
		goto fail;
	*ifindex = ifr.ifr_ifindex;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(TEST_ETHERTYPE);
	sll.sll_ifindex = ifr.ifr_ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

static void
make_frame(uint8_t *f, uint32_t len, const uint8_t *dst, uint8_t seed)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0x7A, 0x01 };

	fill_pat(f, len, seed);
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = TEST_ETHERTYPE >> 8;
	f[13] = TEST_ETHERTYPE & 0xFF;
}

/* Poll bulk IN until a record carries the test EtherType; returns its length. */
static uint32_t
rx_one(struct ch39x_usb_dev *d, uint8_t *out, uint32_t cap)
{
	static uint8_t buf[32768];
	struct ch39x_xfer x, *done[1];
	struct timespec ts = { 0, 1000000 };
	uint32_t off, len, i;

	for (i = 0; i < 2000; i++) {
		memset(&x, 0, sizeof(x));
		x.ep = CH39X_EP_BULK_IN;
		x.buf = buf;
		x.len = sizeof(buf);
		if (d->ops->submit(d, &x) != 0)
			return 0;
		if (d->ops->poll(d, CH39X_EP_BULK_IN, done, 1) == 1) {
			for (off = 0; off + CH39X_HDR_LEN <= x.actual;
			     off += (CH39X_HDR_LEN + len + 3) & ~3u) {
				len = ch39x_get_le32(buf + off) & 0xFFFF;
				if (len < 14 || off + CH39X_HDR_LEN + len > x.actual)
					break;
				if (buf[off + CH39X_HDR_LEN + 12] == 0x88 &&
				    buf[off + CH39X_HDR_LEN + 13] == 0xB5 &&
				    len <= cap) {
					memcpy(out, buf + off + CH39X_HDR_LEN,
					       len);
					return len;
				}
			}
			continue;
		}
		d->ops->cancel_all(d, CH39X_EP_BULK_IN);
		d->ops->poll(d, CH39X_EP_BULK_IN, done, 1);
		nanosleep(&ts, NULL);
	}
	return 0;
}

static void
tx_one(struct ch39x_usb_dev *d, const uint8_t *f, uint32_t len)
{
	static uint8_t buf[16384];
	struct ch39x_xfer x, *done[1];

	ch39x_put_le32(buf, len);
	ch39x_put_le32(buf + 4, 0);
	memcpy(buf + CH39X_HDR_LEN, f, len);
	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_OUT;
	x.buf = buf;
	x.len = (CH39X_HDR_LEN + len + 3) & ~3u;
	x.zlp = x.len % 512 == 0;
	CHECK_EQ(d->ops->submit(d, &x), 0);
	CHECK_EQ(d->ops->poll(d, CH39X_EP_BULK_OUT, done, 1), 1);
	CHECK_EQ(x.status, CH39X_XFER_OK);
}

int
main(void)
{
	static const uint8_t dev_mac[6] = { 0x02, 0x1A, 0x86, 0x98, 0, 0x42 };
	static uint8_t f[2048], g[2048];
	static const uint32_t sizes[] = { 60, 64, 333, 1000, 1514 };
	struct ch39x_sim_config c;
	struct ch39x_sim_counters cnt;
	struct ch39x_usb_dev *d;
	char err[256] = "";
	struct pollfd pfd;
	int fd, ifindex = 0;
	unsigned int i;
	ssize_t n;

	if (unshare(CLONE_NEWNET) != 0) {
		printf("test_tap: skipped: no network namespace (%s)\n",
		       strerror(errno));
		return 77;
	}
	memset(&c, 0, sizeof(c));
	c.pid = CH39X_PID_CH398;
	c.speed = CH39X_SPEED_HIGH;
	c.wire = CH39X_WIRE_TAP;
	memcpy(c.mac, dev_mac, 6);
	snprintf(c.tap_name, sizeof(c.tap_name), "%s", TAP_NAME);
	d = ch39x_sim_open(&c, err, sizeof(err));
	if (d == NULL) {
		printf("test_tap: skipped: %s\n", err);
		return 77;
	}
	fd = tap_socket(&ifindex);
	CHECK(fd >= 0);
	if (fd < 0)
		goto out;

	/* The kernel's side sends; each frame must come up bulk IN intact. */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		make_frame(f, sizes[i], dev_mac, (uint8_t)(i + 1));
		CHECK_EQ(send(fd, f, sizes[i], 0), sizes[i]);
		memset(g, 0, sizeof(g));
		CHECK_EQ(rx_one(d, g, sizeof(g)), sizes[i]);
		CHECK_MEM(g, f, sizes[i]);
	}
	/* Not for the station address: the model's filter drops it. */
	make_frame(f, 100, (const uint8_t *)"\x02\x00\x00\x00\x00\x99", 9);
	CHECK_EQ(send(fd, f, 100, 0), 100);
	CHECK_EQ(rx_one(d, g, sizeof(g)), 0);

	/* The host sends bulk OUT; the kernel must receive the same bytes. */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		make_frame(f, sizes[i], (const uint8_t *)"\xff\xff\xff\xff\xff\xff",
			   (uint8_t)(0x40 + i));
		tx_one(d, f, sizes[i]);
		pfd.fd = fd;
		pfd.events = POLLIN;
		CHECK_EQ(poll(&pfd, 1, 2000), 1);
		n = recv(fd, g, sizeof(g), MSG_DONTWAIT);
		CHECK_EQ(n, sizes[i]);
		CHECK_MEM(g, f, sizes[i]);
	}
	ch39x_sim_get_counters(d, &cnt);
	CHECK_EQ(cnt.tx_frames, 5);
	CHECK_EQ(cnt.tx_wire_dropped, 0);
	CHECK_EQ(cnt.rx_filtered >= 1, 1);
	close(fd);
out:
	d->ops->close(d);
	/* Closing the device removes the TAP it created. */
	CHECK_EQ(if_nametoindex(TAP_NAME), 0);
	printf("test_tap: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
