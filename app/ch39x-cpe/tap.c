/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The exception path: traffic for the router itself that the fast and
 * slow paths do not answer (anything but ARP requests for its addresses
 * and echo requests to them: DHCP, DNS, SSH, ARP replies and requests for
 * other hosts, broadcasts, multicasts) goes to the control plane, a Linux
 * TAP interface per router port (--tap PORT=IFNAME), and what Linux sends
 * on that TAP goes out of the port. Without a TAP the packet is dropped
 * and counted (drop_local).
 *
 * A plain kernel TAP (/dev/net/tun, IFF_TAP | IFF_NO_PI), read and written
 * with non-blocking I/O, rather than DPDK's net_tap PMD: the control plane
 * carries a few packets per second, so a copy and a syscall per packet
 * cost nothing, while net_tap would be a DPDK port of its own (queues,
 * mbufs, a port id that --lan/--wan could collide with), is there only
 * when EAL finds it in its plugin directory, and wants tc qdiscs that a
 * container may lack. The TAP gets the port's MAC (Linux's replies leave
 * with the router's MAC; its IPv6 link-local is the router's EUI-64 one),
 * the port's MTU and its IPv4 address, and is brought up. Closing the fd
 * at exit removes it.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "cpe.h"

#define TAP_POLL_US	100		/* Linux's frames wait at most this */
#define TAP_MAX_SEGS	64		/* mbuf segments one write takes */
#define TAP_VLAN	4		/* a tag Linux may add (802.1Q) */

struct tap {
	bool on;
	int fd;
	const char *name;		/* in cpe.o->taps[] */
};

static struct tap taps[CPE_MAX_PORTS];	/* by router port index */
static uint16_t nb_on;
static uint64_t next_poll;
/* One frame from Linux, up to the largest MTU the TAP takes. */
static uint8_t rxbuf[65536];

static int
tap_ioctl(int s, unsigned long req, struct ifreq *ifr, const struct tap *t,
	  const char *what)
{
	if (ioctl(s, req, ifr) == 0)
		return 0;
	fprintf(stderr, "ch39x-cpe: --tap %s: cannot set %s: %s\n", t->name,
		what, strerror(errno));
	return -errno;
}

static void
sysctl_set(const char *name, const char *key, const char *val)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", name,
		 key);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		fprintf(stderr, "ch39x-cpe: --tap %s: cannot set %s: %s\n",
			name, key, strerror(errno));
	close(fd);
}

/* MAC, MTU, IPv4 address and mask of router port idx, then up. */
static int
tap_configure(const struct tap *t, uint16_t idx)
{
	const struct cpe_port *p = &cpe.ports[idx];
	struct ifreq ifr;
	/* ifr_addr is in a union with members as aligned as sockaddr_in. */
	struct sockaddr_in *sin = (struct sockaddr_in *)(void *)&ifr.ifr_addr;
	int s, rc;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->name);
	ifr.ifr_hwaddr.sa_family = 1;	/* ARPHRD_ETHER */
	memcpy(ifr.ifr_hwaddr.sa_data, p->mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	rc = tap_ioctl(s, SIOCSIFHWADDR, &ifr, t, "the port's MAC");
	if (rc == 0) {
		/* PPPoE: the link's; pppd's interface gets 8 bytes less. */
		ifr.ifr_mtu = p->link_mtu;
		rc = tap_ioctl(s, SIOCSIFMTU, &ifr, t, "the MTU");
	}
	/* No IPv4 yet (IPv6 only, or --wan PORT=dhcp: the client sets it). */
	if (rc == 0 && p->ip_be != 0) {
		sin = (struct sockaddr_in *)(void *)&ifr.ifr_addr;
		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = p->ip_be;
		rc = tap_ioctl(s, SIOCSIFADDR, &ifr, t, "the IPv4 address");
		if (rc == 0) {
			sin->sin_addr.s_addr = rte_cpu_to_be_32(p->mask);
			rc = tap_ioctl(s, SIOCSIFNETMASK, &ifr, t,
				       "the netmask");
		}
	}
	if (rc == 0)
		rc = tap_ioctl(s, SIOCGIFFLAGS, &ifr, t, "(read) the flags");
	if (rc == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = tap_ioctl(s, SIOCSIFFLAGS, &ifr, t, "the interface up");
	}
	close(s);
	/*
	 * The router answers ARP for the port's address itself; Linux must
	 * not answer on this port for its other addresses (the WAN address
	 * asked on the LAN), and asks with this port's address as sender.
	 */
	if (rc == 0) {
		sysctl_set(t->name, "arp_ignore", "1");
		sysctl_set(t->name, "arp_announce", "2");
	}
	return rc;
}

static int
tap_open(struct tap *t, uint16_t idx)
{
	struct ifreq ifr;
	int rc;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		fprintf(stderr, "ch39x-cpe: --tap %u=%s: cannot open "
			"/dev/net/tun: %s (needs CAP_NET_ADMIN and the tun "
			"driver)\n", cpe.ports[idx].id, t->name, strerror(-rc));
		return rc;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->name);
	if (ioctl(t->fd, TUNSETIFF, &ifr) != 0) {
		rc = -errno;
		fprintf(stderr, "ch39x-cpe: --tap %u=%s: cannot create the "
			"TAP: %s; allowed values are names of no interface or "
			"of a TAP this user may attach to\n", cpe.ports[idx].id,
			t->name, strerror(-rc));
		close(t->fd);
		return rc;
	}
	t->on = true;
	nb_on++;
	return tap_configure(t, idx);
}

int
cpe_tap_init(void)
{
	const struct cpe_opts *o = cpe.o;
	uint16_t i, idx;
	int rc;

	for (i = 0; i < o->nb_taps; i++) {
		for (idx = 0; idx < cpe.nb_ports; idx++)
			if (cpe.ports[idx].id == o->taps[i].port &&
			    cpe.ports[idx].vlan == o->taps[i].vlan)
				break;
		if (idx == cpe.nb_ports)
			return -EINVAL;	/* opts.c checked: cannot happen */
		taps[idx].name = o->taps[i].name;
		rc = tap_open(&taps[idx], idx);
		if (rc != 0)
			return rc;
		fprintf(stderr, "ch39x-cpe: port %u: control plane on TAP %s\n",
			cpe.ports[idx].id, taps[idx].name);
	}
	next_poll = cpe.now;
	return 0;
}

void
cpe_tap_close(void)
{
	uint16_t i;

	for (i = 0; i < CPE_MAX_PORTS; i++) {
		if (!taps[i].on)
			continue;
		close(taps[i].fd);
		taps[i].on = false;
	}
	nb_on = 0;
}

void
cpe_punt(uint16_t in, struct rte_mbuf *m)
{
	/* Decapsulated PPPoE (for the router): the session header back. */
	if (unlikely(in < CPE_MAX_PORTS && cpe.ports[in].pppoe) &&
	    cpe_pppoe_punt(m) != 0)
		return;
	cpe_punt_raw(in, m);
}

void
cpe_punt_raw(uint16_t in, struct rte_mbuf *m)
{
	struct iovec iov[TAP_MAX_SEGS];
	struct rte_mbuf *s;
	ssize_t n;
	int k = 0;

	if (in >= CPE_MAX_PORTS || !taps[in].on) {
		cpe.st.drop_local++;
		rte_pktmbuf_free(m);
		return;
	}
	for (s = m; s != NULL && k < TAP_MAX_SEGS; s = s->next, k++) {
		iov[k].iov_base = rte_pktmbuf_mtod(s, void *);
		iov[k].iov_len = rte_pktmbuf_data_len(s);
	}
	/* One write is one frame; a full or downed TAP refuses it. */
	n = s == NULL ? writev(taps[in].fd, iov, k) : -1;
	if (n == (ssize_t)rte_pktmbuf_pkt_len(m))
		cpe.st.punted++;
	else
		cpe.st.punt_drops++;
	rte_pktmbuf_free(m);
}

/* A frame from Linux into an mbuf (chained when it outgrows one). */
static struct rte_mbuf *
frame_to_mbuf(const uint8_t *buf, uint32_t len)
{
	struct rte_mbuf *head, *seg, *last;
	uint32_t off = 0, chunk;

	head = rte_pktmbuf_alloc(cpe.pool);
	if (head == NULL)
		return NULL;
	seg = head;
	for (;;) {
		chunk = RTE_MIN(len - off, (uint32_t)rte_pktmbuf_tailroom(seg));
		memcpy(rte_pktmbuf_mtod(seg, uint8_t *), buf + off, chunk);
		seg->data_len = (uint16_t)chunk;
		off += chunk;
		if (off == len)
			break;
		last = seg;
		seg = rte_pktmbuf_alloc(cpe.pool);
		if (seg == NULL) {
			rte_pktmbuf_free(head);
			return NULL;
		}
		last->next = seg;
		head->nb_segs++;
	}
	head->pkt_len = len;
	return head;
}

/*
 * On a PPPoE WAN Linux speaks only PPPoE (pppd's kernel socket): other
 * frames would leave as IP in the session (cpe_tx() encapsulates IP).
 */
static bool
pppoe_frame(const uint8_t *f)
{
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);

	return type == CPE_ETH_PPPOE_SESS || type == CPE_ETH_PPPOE_DISC;
}

static void
tap_rx(uint16_t idx)
{
	struct tap *t = &taps[idx];
	uint32_t max = cpe.ports[idx].link_mtu + RTE_ETHER_HDR_LEN + TAP_VLAN;
	struct rte_mbuf *m;
	ssize_t n;
	uint16_t k;

	/* A burst per poll: Linux cannot starve the forwarding. */
	for (k = 0; k < CPE_BURST; k++) {
		n = read(t->fd, rxbuf, sizeof(rxbuf));
		if (n < 0)
			return;		/* EAGAIN: nothing more */
		cpe.st.tap_rx++;
		if (n < RTE_ETHER_HDR_LEN || (uint32_t)n > max ||
		    (cpe.ports[idx].pppoe && !pppoe_frame(rxbuf))) {
			cpe.st.tap_drops++;
			continue;
		}
		m = frame_to_mbuf(rxbuf, (uint32_t)n);
		if (m == NULL) {
			cpe.st.tap_drops++;
			cpe.st.drop_nomem++;
			continue;
		}
		cpe.st.tap_tx++;
		if (cpe.ports[idx].pppoe)
			cpe_pppoe_from_tap(m);
		cpe_fw_out_local(idx, m);	/* its replies may come in */
		cpe_tx(idx, m);
	}
}

void
cpe_tap_poll(void)
{
	uint16_t i;

	/* Lower priority than the ports: a read per TAP every 100 us. */
	if (nb_on == 0 || cpe.now < next_poll)
		return;
	next_poll = cpe.now + cpe.hz / (1000000 / TAP_POLL_US);
	for (i = 0; i < cpe.nb_ports; i++)
		if (taps[i].on)
			tap_rx(i);
}

int
cpe_tap_fd(uint16_t idx)
{
	return idx < CPE_MAX_PORTS && taps[idx].on ? taps[idx].fd : -1;
}
