/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The control plane's TAPs (--tap PORT=IFNAME): a Linux TAP interface per
 * router interface, which the graph's exception path writes what is for
 * Linux to (datapath/tap_out.c) and reads what Linux sends out of the
 * interface from (datapath/tap_in.c).
 *
 * A plain kernel TAP (/dev/net/tun, IFF_TAP | IFF_NO_PI), read and written
 * with non-blocking I/O, rather than DPDK's net_tap PMD: the control plane
 * carries a few packets per second, so a copy and a syscall per packet
 * cost nothing, while net_tap would be a DPDK port of its own (queues,
 * mbufs, a port id that --lan/--wan could collide with), is there only
 * when EAL finds it in its plugin directory, and wants tc qdiscs that a
 * container may lack. The TAP gets the interface's MAC (Linux's replies
 * leave with the router's MAC; its IPv6 link-local is the router's
 * EUI-64 one), its MTU and its IPv4 address, and is brought up. Closing
 * the fd at exit removes it.
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

#include "router.h"
#include "tap.h"

struct tap {
	int fd;
	const char *name;		/* in the options' taps[] */
};

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

/* MAC, MTU, IPv4 address and mask of interface p, then up. */
static int
tap_configure(const struct tap *t, const struct cpe_iface *p)
{
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
tap_open(struct tap *t, const struct cpe_iface *p)
{
	struct ifreq ifr;
	int rc;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		fprintf(stderr, "ch39x-cpe: --tap %u=%s: cannot open "
			"/dev/net/tun: %s (needs CAP_NET_ADMIN and the tun "
			"driver)\n", p->id, t->name, strerror(-rc));
		return rc;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->name);
	if (ioctl(t->fd, TUNSETIFF, &ifr) != 0) {
		rc = -errno;
		fprintf(stderr, "ch39x-cpe: --tap %u=%s: cannot create the "
			"TAP: %s; allowed values are names of no interface or "
			"of a TAP this user may attach to\n", p->id,
			t->name, strerror(-rc));
		close(t->fd);
		t->fd = -1;
		return rc;
	}
	return tap_configure(t, p);
}

int
cpe_tap_setup(struct cpe_router *r)
{
	const struct cpe_opts *o = r->o;
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	struct tap t;
	uint16_t i, idx;
	int rc;

	for (i = 0; i < o->nb_taps; i++) {
		for (idx = 0; idx < ifs->nb; idx++)
			if (ifs->ifs[idx].id == o->taps[i].port &&
			    ifs->ifs[idx].vlan == o->taps[i].vlan)
				break;
		if (idx == ifs->nb)
			return -EINVAL;	/* the options checked: cannot be */
		t.name = o->taps[i].name;
		t.fd = -1;
		rc = tap_open(&t, &ifs->ifs[idx]);
		r->dp->tap_fd[idx] = t.fd;
		if (rc != 0)
			return rc;
		fprintf(stderr, "ch39x-cpe: port %u: control plane on TAP %s\n",
			ifs->ifs[idx].id, t.name);
	}
	return 0;
}

void
cpe_tap_close(struct cpe_router *r)
{
	uint16_t i;

	for (i = 0; i < CPE_MAX_PORTS; i++) {
		if (r->dp->tap_fd[i] < 0)
			continue;
		close(r->dp->tap_fd[i]);
		r->dp->tap_fd[i] = -1;
	}
}
