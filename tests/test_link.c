/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Link speed, duplex and autonegotiation of the net_ch39x PMD
 * (rte_eth_conf.link_speeds), in-process: EAL with --no-huge --no-pci,
 * pairs of simulated adapters probed for each case and cabled together,
 * driven through the public ethdev API. Each case checks what both ends
 * report (rte_eth_link_get_nowait), that frames pass or not, and the
 * cable's speed; the model's rules are those of §9.2 of
 * doc/guides/nics/ch39x_protocol.rst (autonegotiation, parallel
 * detection to half duplex, no link between mismatched forced ends).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "rte_pmd_ch39x.h"
#include "pmd_test.h"

#define NB_MBUFS 4096
/* Generous: the machine running the tests may be loaded. */
#define DEADLINE_S 10

static struct rte_mempool *mp;
static int lsc_count[RTE_MAX_ETHPORTS];
static unsigned int pair_no;

/* Configure and start a port with link_speeds; the errno of the step. */
static int
port_start(uint16_t port, uint32_t speeds)
{
	struct rte_eth_conf conf;
	int rc;

	rte_eth_dev_stop(port);
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	conf.link_speeds = speeds;
	rc = rte_eth_dev_configure(port, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(port, 0, 256, 0, NULL, mp);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(port, 0, 256, 0, NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(port);
	return rc;
}

/* Two adapters on one cable: devargs of each end (after the wire). */
struct pair {
	uint16_t a;
	uint16_t b;
};

static bool
pair_probe(struct pair *p, const char *args_a, const char *args_b)
{
	char da[256], db[256], na[32], nb[32];

	pair_no++;
	snprintf(na, sizeof(na), "net_ch39x_l%ua", pair_no);
	snprintf(nb, sizeof(nb), "net_ch39x_l%ub", pair_no);
	snprintf(da, sizeof(da), "%s,wire=pair:lk%u%s%s", na, pair_no,
		 *args_a ? "," : "", args_a);
	snprintf(db, sizeof(db), "%s,wire=pair:lk%u%s%s", nb, pair_no,
		 *args_b ? "," : "", args_b);
	CHECK(rte_dev_probe(da) == 0, "probe %s", da);
	CHECK(rte_dev_probe(db) == 0, "probe %s", db);
	p->a = port_of(na);
	p->b = port_of(nb);
	if (p->a == RTE_MAX_ETHPORTS || p->b == RTE_MAX_ETHPORTS)
		return false;
	rte_eth_dev_callback_register(p->a, RTE_ETH_EVENT_INTR_LSC, event_cb,
				      lsc_count);
	rte_eth_dev_callback_register(p->b, RTE_ETH_EVENT_INTR_LSC, event_cb,
				      lsc_count);
	return true;
}

static void
port_remove(uint16_t port)
{
	struct rte_eth_dev_info di;

	if (port == RTE_MAX_ETHPORTS || rte_eth_dev_info_get(port, &di) != 0)
		return;
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_dev_remove(di.device);
}

static void
pair_remove(struct pair *p)
{
	port_remove(p->a);
	port_remove(p->b);
}

/*
 * Wait until the port reports this link (status, and when up the speed,
 * duplex and autonegotiation), or the deadline; the last link in *l.
 */
static bool
wait_link_is(uint16_t port, int up, uint32_t speed, int duplex, int autoneg,
	     struct rte_eth_link *l)
{
	uint64_t end = rte_get_timer_cycles() + DEADLINE_S * rte_get_timer_hz();

	do {
		memset(l, 0, sizeof(*l));
		if (rte_eth_link_get_nowait(port, l) == 0 &&
		    l->link_status == up &&
		    (!up || (l->link_speed == speed &&
			     l->link_duplex == duplex &&
			     l->link_autoneg == autoneg)))
			return true;
		usleep(2000);
	} while (rte_get_timer_cycles() < end);
	return false;
}

/*
 * Wait until port's LSC callbacks number at least want, or the deadline.
 * They run on EAL's interrupt thread, which a busy machine may run after
 * the link state that raised them is already visible.
 */
static bool
wait_lsc(uint16_t port, int want)
{
	uint64_t end = rte_get_timer_cycles() + DEADLINE_S * rte_get_timer_hz();

	while (__atomic_load_n(&lsc_count[port], __ATOMIC_RELAXED) < want &&
	       rte_get_timer_cycles() < end)
		usleep(2000);
	return __atomic_load_n(&lsc_count[port], __ATOMIC_RELAXED) >= want;
}

#define HALF RTE_ETH_LINK_HALF_DUPLEX
#define FULL RTE_ETH_LINK_FULL_DUPLEX
#define AN RTE_ETH_LINK_AUTONEG
#define FIX RTE_ETH_LINK_FIXED

#define CHECK_LINK(port, up, speed, duplex, an, what) do { \
	struct rte_eth_link l_; \
	CHECK(wait_link_is(port, up, speed, duplex, an, &l_), \
	      "%s: port %u link %u %u Mbit/s duplex %u autoneg %u, want " \
	      "%u %u %u %u", what, port, l_.link_status, l_.link_speed, \
	      l_.link_duplex, l_.link_autoneg, up, speed, duplex, an); \
} while (0)

static struct rte_mbuf *
make_frame(uint16_t from, uint16_t to, uint32_t len, uint8_t seed)
{
	struct rte_ether_addr src, dst;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint8_t *p;
	uint32_t i;

	if (m == NULL)
		return NULL;
	rte_eth_macaddr_get(from, &src);
	rte_eth_macaddr_get(to, &dst);
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, &dst, 6);
	memcpy(p + 6, &src, 6);
	p[12] = 0x88;
	p[13] = 0xB5;
	for (i = 14; i < len; i++)
		p[i] = (uint8_t)(seed + i * 7);
	return m;
}

/*
 * Send n frames of len bytes from one port to the other; returns how many
 * arrived intact within the deadline, the time from the first send to the
 * last arrival in *ns.
 */
static unsigned int
send_recv(uint16_t from, uint16_t to, unsigned int n, uint32_t len,
	  uint64_t *ns)
{
	uint64_t hz = rte_get_timer_hz(), t0, end, last = 0;
	struct rte_mbuf *rx[32], *m, *ref;
	unsigned int sent = 0, got = 0, i, k;

	t0 = rte_get_timer_cycles();
	end = t0 + DEADLINE_S * hz;
	while ((sent < n || got < n) && rte_get_timer_cycles() < end) {
		if (sent < n) {
			m = make_frame(from, to, len, (uint8_t)sent);
			if (m != NULL && rte_eth_tx_burst(from, 0, &m, 1) == 1)
				sent++;
			else
				rte_pktmbuf_free(m);
		}
		k = rte_eth_rx_burst(to, 0, rx, 32);
		for (i = 0; i < k; i++) {
			ref = make_frame(from, to, len, (uint8_t)got);
			if (ref != NULL && rx[i]->pkt_len == len &&
			    memcmp(rte_pktmbuf_mtod(rx[i], void *),
				   rte_pktmbuf_mtod(ref, void *), len) == 0)
				got++;
			rte_pktmbuf_free(ref);
			rte_pktmbuf_free(rx[i]);
			last = rte_get_timer_cycles();
		}
		if (sent == n && got < n && k == 0)
			usleep(100);
	}
	if (ns != NULL)
		*ns = last > t0 ? (last - t0) * 1000000000ull / hz : 0;
	return got;
}

/*
 * Without a link the cable drops what is sent (the model's counter says
 * so) and nothing arrives.
 */
static void
send_dead(const struct pair *p, const char *what)
{
	uint64_t down = xstat(p->a, "sim_tx_link_down"), end;
	unsigned int sent = 0, got = 0;
	struct rte_mbuf *m, *rx[32];

	end = rte_get_timer_cycles() + DEADLINE_S * rte_get_timer_hz();
	while (sent < 8 && rte_get_timer_cycles() < end) {
		m = make_frame(p->a, p->b, 100, (uint8_t)sent);
		if (m != NULL && rte_eth_tx_burst(p->a, 0, &m, 1) == 1)
			sent++;
		else
			rte_pktmbuf_free(m);
	}
	/* Every frame reaches the cable once its transfer completes. */
	while (xstat(p->a, "sim_tx_link_down") - down < 8 &&
	       rte_get_timer_cycles() < end) {
		rte_eth_tx_burst(p->a, 0, NULL, 0);
		usleep(1000);
	}
	CHECK(xstat(p->a, "sim_tx_link_down") - down == 8,
	      "%s: frames dropped for want of a link: %" PRIu64, what,
	      xstat(p->a, "sim_tx_link_down") - down);
	usleep(20000);
	got = rte_eth_rx_burst(p->b, 0, rx, 32);
	rte_pktmbuf_free_bulk(rx, got);
	CHECK(got == 0, "%s: no link, yet %u frames passed", what, got);
}

/* Frames pass both ways, byte for byte. */
static void
check_traffic(const struct pair *p, const char *what)
{
	unsigned int got;

	got = send_recv(p->a, p->b, 64, 300, NULL);
	CHECK(got == 64, "%s: a to b: %u of 64 frames", what, got);
	got = send_recv(p->b, p->a, 64, 1000, NULL);
	CHECK(got == 64, "%s: b to a: %u of 64 frames", what, got);
}

/*
 * One case: start both ends with their link_speeds, then check what each
 * reports and whether frames pass.
 */
struct link_case {
	const char *what;
	const char *args_a;
	const char *args_b;
	uint32_t speeds_a;
	uint32_t speeds_b;
	int up;
	uint32_t speed;
	int duplex_a, an_a;
	int duplex_b, an_b;
};

static void
run_case(const struct link_case *c)
{
	struct pair p;
	int ra, rb;

	if (!pair_probe(&p, c->args_a, c->args_b)) {
		CHECK(0, "%s: probe", c->what);
		return;
	}
	ra = port_start(p.a, c->speeds_a);
	rb = port_start(p.b, c->speeds_b);
	CHECK(ra == 0 && rb == 0, "%s: start %d %d", c->what, ra, rb);
	CHECK_LINK(p.a, c->up, c->speed, c->duplex_a, c->an_a, c->what);
	CHECK_LINK(p.b, c->up, c->speed, c->duplex_b, c->an_b, c->what);
	if (c->up) {
		check_traffic(&p, c->what);
	} else {
		send_dead(&p, c->what);
	}
	pair_remove(&p);
}

#define S_FIXED RTE_ETH_LINK_SPEED_FIXED
#define S_10H RTE_ETH_LINK_SPEED_10M_HD
#define S_10 RTE_ETH_LINK_SPEED_10M
#define S_100H RTE_ETH_LINK_SPEED_100M_HD
#define S_100 RTE_ETH_LINK_SPEED_100M
#define S_1G RTE_ETH_LINK_SPEED_1G

static const struct link_case cases[] = {
	{ "ch398 both autoneg", "", "", 0, 0,
	  1, 1000, FULL, AN, FULL, AN },
	{ "ch398 fixed 100 full, both", "", "", S_FIXED | S_100,
	  S_FIXED | S_100, 1, 100, FULL, FIX, FULL, FIX },
	{ "ch398 fixed 10 full, both", "", "", S_FIXED | S_10,
	  S_FIXED | S_10, 1, 10, FULL, FIX, FULL, FIX },
	/* Parallel detection: the autonegotiating end runs half duplex. */
	{ "ch398 fixed 100 full against autoneg", "", "", S_FIXED | S_100,
	  0, 1, 100, FULL, FIX, HALF, AN },
	{ "ch398 autoneg against fixed 10 full", "", "", 0,
	  S_FIXED | S_10, 1, 10, HALF, AN, FULL, FIX },
	/* 1000BASE-T cannot be forced: FIXED | 1G advertises 1G alone. */
	{ "ch398 fixed 1G", "", "", S_FIXED | S_1G, 0,
	  1, 1000, FULL, AN, FULL, AN },
	/* Advertised subsets: the highest common mode. */
	{ "ch398 advertise 10+100 against all", "", "", S_10 | S_100, 0,
	  1, 100, FULL, AN, FULL, AN },
	{ "ch398 advertise 10 against 10+1G", "", "", S_10, S_10 | S_1G,
	  1, 10, FULL, AN, FULL, AN },
	{ "ch398 advertise 1G against 100+1G", "", "", S_1G, S_100 | S_1G,
	  1, 1000, FULL, AN, FULL, AN },
	/* Mismatches: no link. */
	{ "ch398 advertise 10 against 100", "", "", S_10, S_100,
	  0, 0, 0, 0, 0, 0 },
	{ "ch398 fixed 10 against fixed 100", "", "", S_FIXED | S_10,
	  S_FIXED | S_100, 0, 0, 0, 0, 0, 0 },
	{ "ch398 fixed 1G against fixed 100", "", "", S_FIXED | S_1G,
	  S_FIXED | S_100, 0, 0, 0, 0, 0, 0 },
	/* The cable (link_speed devarg) caps what autonegotiation finds. */
	{ "ch398 on a 100M cable", "link_speed=100", "", 0, 0,
	  1, 100, FULL, AN, FULL, AN },
	/* CH397: 10/100, half duplex too. */
	{ "ch397 both autoneg", "sim=ch397", "sim=ch397", 0, 0,
	  1, 100, FULL, AN, FULL, AN },
	{ "ch397 fixed 10 half, both", "sim=ch397", "sim=ch397",
	  S_FIXED | S_10H, S_FIXED | S_10H, 1, 10, HALF, FIX, HALF, FIX },
	{ "ch397 fixed 100 half against autoneg", "sim=ch397", "sim=ch397",
	  S_FIXED | S_100H, 0, 1, 100, HALF, FIX, HALF, AN },
	{ "ch397 advertise 100 half against all", "sim=ch397", "sim=ch397",
	  S_100H, 0, 1, 100, HALF, AN, HALF, AN },
	{ "ch397 against ch398", "sim=ch397", "", 0, 0,
	  1, 100, FULL, AN, FULL, AN },
	/*
	 * A CDC adapter autonegotiates only; its notifications carry the
	 * speed (not the duplex) the far end's setting leaves it.
	 */
	{ "ncm against ch398 fixed 100", "sim=ncm", "", 0, S_FIXED | S_100,
	  1, 100, FULL, AN, FULL, FIX },
	{ "ecm against ch398 advertising 10", "sim=ecm", "", 0, S_10,
	  1, 10, FULL, AN, FULL, AN },
	/* A duplex mismatch links; each end keeps its own duplex. */
	{ "ch397 fixed 100 full against fixed 100 half", "sim=ch397",
	  "sim=ch397", S_FIXED | S_100, S_FIXED | S_100H,
	  1, 100, FULL, FIX, HALF, FIX },
};

/* What a chip does not have is refused at start, with -EINVAL. */
static void
test_refused(void)
{
	static const struct {
		const char *args;
		uint32_t speeds;
	} bad[] = {
		{ "", S_FIXED | S_100H },	/* CH398: full duplex only */
		{ "", S_FIXED | S_10 | S_100 },	/* fixed: one speed */
		{ "", S_FIXED },
		{ "", RTE_ETH_LINK_SPEED_10G },
		{ "sim=ch397", S_1G },
		{ "sim=ch397", S_FIXED | S_1G },
		/* CDC devices have no PHY the host programs. */
		{ "sim=ncm", S_FIXED | S_100 },
		{ "sim=ecm", S_100 },
	};
	unsigned int i;
	struct pair p;
	int rc;

	for (i = 0; i < RTE_DIM(bad); i++) {
		if (!pair_probe(&p, bad[i].args, bad[i].args)) {
			CHECK(0, "probe %s", bad[i].args);
			continue;
		}
		rc = port_start(p.a, bad[i].speeds);
		CHECK(rc == -EINVAL, "%s link_speeds 0x%x: start gave %d",
		      bad[i].args, bad[i].speeds, rc);
		/* The port still starts with AUTONEG. */
		rc = port_start(p.a, 0);
		CHECK(rc == 0, "%s: start with AUTONEG gave %d", bad[i].args,
		      rc);
		pair_remove(&p);
	}
}

/*
 * A restart with another link_speeds renegotiates: forced, then back to
 * autonegotiation; the application hears each change (LSC).
 */
static void
test_restart(void)
{
	struct pair p;
	int lsc;

	if (!pair_probe(&p, "", "")) {
		CHECK(0, "probe");
		return;
	}
	CHECK(port_start(p.a, 0) == 0 && port_start(p.b, 0) == 0, "start");
	CHECK_LINK(p.a, 1, 1000, FULL, AN, "restart: first");
	CHECK_LINK(p.b, 1, 1000, FULL, AN, "restart: first");
	lsc = __atomic_load_n(&lsc_count[p.b], __ATOMIC_RELAXED);
	/* b keeps running and hears a's new setting from its PHY. */
	CHECK(port_start(p.a, S_FIXED | S_100) == 0, "restart a fixed");
	CHECK_LINK(p.a, 1, 100, FULL, FIX, "restart: a fixed 100");
	CHECK_LINK(p.b, 1, 100, HALF, AN, "restart: b detects 100");
	CHECK(wait_lsc(p.b, lsc + 1), "b: LSC on the new speed");
	check_traffic(&p, "restart: fixed 100");
	CHECK(port_start(p.a, 0) == 0, "restart a autoneg");
	CHECK_LINK(p.a, 1, 1000, FULL, AN, "restart: a autoneg again");
	CHECK_LINK(p.b, 1, 1000, FULL, AN, "restart: b autoneg again");
	check_traffic(&p, "restart: autoneg");
	pair_remove(&p);
}

/*
 * A link flap (the far end's cable pulled and plugged back) keeps the
 * setting: the CH397 has its PHY setting written again after the drop.
 */
static void
test_flap(const char *sim, uint32_t speeds, uint32_t speed, int duplex,
	  int an)
{
	char args[32];
	struct pair p;
	int lsc;

	snprintf(args, sizeof(args), "%s", sim);
	if (!pair_probe(&p, args, args)) {
		CHECK(0, "probe");
		return;
	}
	CHECK(port_start(p.a, speeds) == 0 && port_start(p.b, speeds) == 0,
	      "start");
	CHECK_LINK(p.a, 1, speed, duplex, an, "flap: before");
	lsc = __atomic_load_n(&lsc_count[p.a], __ATOMIC_RELAXED);
	CHECK(rte_pmd_ch39x_sim_set_cable(p.b, 0) == 0, "unplug b");
	CHECK_LINK(p.a, 0, 0, 0, 0, "flap: down");
	CHECK_LINK(p.b, 0, 0, 0, 0, "flap: down");
	CHECK(rte_pmd_ch39x_sim_set_cable(p.b, 1) == 0, "plug b");
	CHECK_LINK(p.a, 1, speed, duplex, an, "flap: after");
	CHECK_LINK(p.b, 1, speed, duplex, an, "flap: after");
	CHECK(wait_lsc(p.a, lsc + 2), "flap: LSC down and up");
	check_traffic(&p, "flap");
	pair_remove(&p);
}

/*
 * The cable runs at the negotiated speed: 400 frames of 1514 bytes take
 * at least 400 x 1538 x 8 bits / 100 Mbit/s = 49 ms on a 100M link, which
 * a 1G link carries in 5 ms.
 */
static void
test_wire_speed(void)
{
	const unsigned int n = 400;
	const uint64_t min_ns = (uint64_t)n * (1514 + 24) * 8 * 1000 / 100;
	unsigned int got;
	struct pair p;
	uint64_t ns;

	if (!pair_probe(&p, "", "")) {
		CHECK(0, "probe");
		return;
	}
	CHECK(port_start(p.a, S_FIXED | S_100) == 0 &&
	      port_start(p.b, S_FIXED | S_100) == 0, "start");
	CHECK_LINK(p.a, 1, 100, FULL, FIX, "wire speed");
	CHECK_LINK(p.b, 1, 100, FULL, FIX, "wire speed");
	got = send_recv(p.a, p.b, n, 1514, &ns);
	CHECK(got == n, "wire speed: %u of %u frames", got, n);
	/* 2% for the clocks; only a lower bound holds on a loaded machine. */
	CHECK(ns >= min_ns * 98 / 100, "100M link carried %u frames in "
	      "%" PRIu64 " ns, below the %" PRIu64 " ns it needs", n, ns,
	      min_ns);
	printf("wire speed: %u x 1514 bytes in %" PRIu64 " us on a 100M link "
	       "(%.1f Mbit/s on the wire)\n", n, ns / 1000,
	       ns ? (double)n * (1514 + 24) * 8 * 1000 / (double)ns : 0);
	pair_remove(&p);
}

/*
 * MISC_CFG bit 13 (RX VLAN strip) powers up set in the model (§9.2): the
 * PMD writes it at every start, so a port without VLAN_STRIP gets its
 * tags in the frame, and one with it gets them in the mbuf.
 */
static void
test_vlan_strip_bit(void)
{
	struct rte_eth_conf conf;
	struct rte_mbuf *m, *rx[4];
	unsigned int got = 0, i;
	uint64_t end;
	struct pair p;
	uint8_t *d;
	int strip;

	if (!pair_probe(&p, "", "")) {
		CHECK(0, "probe");
		return;
	}
	for (strip = 0; strip < 2; strip++) {
		rte_eth_dev_stop(p.b);
		memset(&conf, 0, sizeof(conf));
		conf.rxmode.offloads = strip ? RTE_ETH_RX_OFFLOAD_VLAN_STRIP : 0;
		CHECK(rte_eth_dev_configure(p.b, 1, 1, &conf) == 0 &&
		      rte_eth_rx_queue_setup(p.b, 0, 256, 0, NULL, mp) == 0 &&
		      rte_eth_tx_queue_setup(p.b, 0, 256, 0, NULL) == 0 &&
		      rte_eth_dev_start(p.b) == 0, "start b, strip %d", strip);
		if (strip == 0)
			CHECK(port_start(p.a, 0) == 0, "start a");
		CHECK_LINK(p.a, 1, 1000, FULL, AN, "vlan");
		CHECK_LINK(p.b, 1, 1000, FULL, AN, "vlan");
		/* A tagged frame: TPID 0x8100, TCI 0x0123, then 0x88B5. */
		m = make_frame(p.a, p.b, 100, 9);
		if (m == NULL) {
			CHECK(0, "mbuf");
			break;
		}
		d = rte_pktmbuf_mtod(m, uint8_t *);
		memmove(d + 16, d + 12, 100 - 16);
		d[12] = 0x81;
		d[13] = 0x00;
		d[14] = 0x01;
		d[15] = 0x23;
		d[16] = 0x88;
		d[17] = 0xB5;
		CHECK(rte_eth_tx_burst(p.a, 0, &m, 1) == 1, "send");
		end = rte_get_timer_cycles() + DEADLINE_S * rte_get_timer_hz();
		got = 0;
		while (got == 0 && rte_get_timer_cycles() < end)
			got = rte_eth_rx_burst(p.b, 0, rx, 4);
		CHECK(got == 1, "strip %d: %u frames", strip, got);
		if (got == 1) {
			d = rte_pktmbuf_mtod(rx[0], uint8_t *);
			if (strip)
				CHECK(rx[0]->pkt_len == 96 && d[12] == 0x88 &&
				      (rx[0]->ol_flags &
				       RTE_MBUF_F_RX_VLAN_STRIPPED) &&
				      rx[0]->vlan_tci == 0x0123,
				      "stripped: len %u tci 0x%x",
				      rx[0]->pkt_len, rx[0]->vlan_tci);
			else
				CHECK(rx[0]->pkt_len == 100 && d[12] == 0x81 &&
				      d[15] == 0x23 &&
				      !(rx[0]->ol_flags &
					RTE_MBUF_F_RX_VLAN_STRIPPED),
				      "kept: len %u", rx[0]->pkt_len);
		}
		for (i = 0; i < got; i++)
			rte_pktmbuf_free(rx[i]);
	}
	pair_remove(&p);
}

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "256", "--no-shconf",
		"--log-level=pmd.net.ch39x:warning", "--log-level=lib.ethdev:error",
		prefix,
	};
	unsigned int i;

	(void)argc;
	snprintf(prefix, sizeof(prefix), "--file-prefix=ch39x_link_%d",
		 (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("EAL init failed\n");
		return 1;
	}
	mp = rte_pktmbuf_pool_create("link", NB_MBUFS, 0, 0,
				     RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	CHECK(mp != NULL, "mempool");
	if (mp == NULL)
		goto out;
	for (i = 0; i < RTE_DIM(cases); i++)
		run_case(&cases[i]);
	test_refused();
	test_restart();
	test_flap("", S_FIXED | S_100, 100, FULL, FIX);
	test_flap("sim=ch397", S_FIXED | S_10, 10, FULL, FIX);
	test_flap("sim=ch397", S_100H, 100, HALF, AN);
	test_wire_speed();
	test_vlan_strip_bit();
out:
	printf("test_link: %u passed, %u failed\n", passed, failed);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
