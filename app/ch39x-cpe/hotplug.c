/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Ports that go and return: a USB adapter or modem that re-enumerates, a
 * cable pulled. The router keeps forwarding on its other ports and keeps
 * what it knows about the missing one:
 *
 *   link down (RTE_ETH_EVENT_INTR_LSC; net_ch39x's reconnect=on, the
 *   default, reports a removed device so and restores the port itself at
 *   its return): the DPDK port is "down". Routes, neighbours and NAT
 *   sessions stay; cached flows out of it are deleted (counted,
 *   flow_down_invalidated) and none is learnt out of it while it is down;
 *   what the router would send out of it is dropped and counted
 *   (down_drops, per interface); its neighbours' and, for the WAN, the
 *   NAT sessions' clocks stop. Link up: the clocks resume, the slow path
 *   learns the flows again.
 *
 *   removal (RTE_ETH_EVENT_INTR_RMV: net_ch39x with reconnect=off, or a
 *   real adapter): down as above and "gone"; the router stops and closes
 *   the port, removes the device (rte_eal_hotplug_remove) and probes it
 *   again with the same device arguments (rte_eal_hotplug_add), up to
 *   REPROBE_TRIES times with a back-off from REPROBE_FIRST_MS doubling to
 *   REPROBE_MAX_MS (a device that re-enumerates takes a while to be back
 *   on the bus); then sets the port up as at start (cpe_port_restart())
 *   and carries on. Counted: port_reprobes, port_reprobe_errors,
 *   port_reprobe_gave_up.
 *
 * The callbacks run on EAL's interrupt thread while the forwarding lcore
 * owns every table and the ports' queues: they only set a bit per port
 * and wake the loop (cpe_idle_kick()); cpe_hotplug_poll(), in the loop's
 * housekeeping, does the work. Removal and probe run there too (never in
 * the RMV callback, where the PMD's interrupt thread holds the device).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>

#include "cpe.h"

/*
 * A USB device that re-enumerates is back within seconds (a modem's
 * firmware reset: tens of seconds); 20 tries from 100 ms doubling to 5 s
 * wait about 75 s in all, and the loop never blocks longer than a probe.
 */
#define REPROBE_TRIES		20
#define REPROBE_FIRST_MS	100u
#define REPROBE_MAX_MS		5000u
#define ARGS_MAX		1024

enum { EV_LSC = 1, EV_RMV = 2 };

enum hp_state { HP_RUNNING, HP_REPROBE, HP_FAILED };

static struct {
	enum hp_state state;
	uint64_t down_since;		/* TSC */
	uint64_t next_try;		/* TSC */
	uint32_t tries, backoff_ms;
	uint64_t reprobes;
	bool removed;			/* closed and removed, to probe */
	char bus[32];
	char dev[RTE_DEV_NAME_MAX_LEN];	/* the device's name */
	char port[RTE_ETH_NAME_MAX_LEN];	/* its ethdev's */
	char args[ARGS_MAX];		/* its device arguments */
} hp[CPE_MAX_PHYS];

/* Events per port id (EAL's interrupt thread sets, the lcore takes). */
static uint32_t ev[RTE_MAX_ETHPORTS];
static uint32_t ev_any;
static bool busy;			/* a re-probe is pending */

static int
on_event(uint16_t port_id, enum rte_eth_event_type type, void *cb_arg,
	 void *ret_param)
{
	RTE_SET_USED(cb_arg);
	RTE_SET_USED(ret_param);
	if (port_id >= RTE_MAX_ETHPORTS)
		return 0;
	__atomic_fetch_or(&ev[port_id], type == RTE_ETH_EVENT_INTR_RMV ?
			  EV_RMV : EV_LSC, __ATOMIC_RELEASE);
	__atomic_store_n(&ev_any, 1, __ATOMIC_RELEASE);
	cpe_idle_kick();
	return 0;
}

static int
callbacks(uint16_t id, bool on)
{
	static const enum rte_eth_event_type types[] = {
		RTE_ETH_EVENT_INTR_LSC, RTE_ETH_EVENT_INTR_RMV,
	};
	unsigned int i, tries;
	int rc = 0, r;

	for (i = 0; i < RTE_DIM(types); i++) {
		if (on) {
			r = rte_eth_dev_callback_register(id, types[i],
							  on_event, NULL);
		} else {
			/* -EAGAIN: running on the interrupt thread now. */
			tries = 0;
			while ((r = rte_eth_dev_callback_unregister(id,
					types[i], on_event, NULL)) == -EAGAIN &&
			       ++tries < 1000)
				rte_delay_us_sleep(100);
		}
		if (r != 0 && rc == 0)
			rc = r;
	}
	return rc;
}

/* What a re-probe needs, taken while the device is there. */
static int
remember(uint16_t k)
{
	const struct rte_devargs *da;
	struct rte_eth_dev_info info;
	uint16_t id = cpe.phys[k].id;
	int rc;

	rc = rte_eth_dev_info_get(id, &info);
	if (rc == 0)
		rc = rte_eth_dev_get_name_by_port(id, hp[k].port);
	if (rc != 0 || info.device == NULL) {
		fprintf(stderr, "ch39x-cpe: port %u: no device information "
			"(%s)\n", id, rte_strerror(rc ? -rc : ENODEV));
		return rc ? rc : -ENODEV;
	}
	snprintf(hp[k].bus, sizeof(hp[k].bus), "%s",
		 rte_bus_name(rte_dev_bus(info.device)));
	snprintf(hp[k].dev, sizeof(hp[k].dev), "%s",
		 rte_dev_name(info.device));
	da = rte_dev_devargs(info.device);
	hp[k].args[0] = '\0';
	if (da != NULL && da->args != NULL &&
	    (size_t)snprintf(hp[k].args, sizeof(hp[k].args), "%s",
			     da->args) >= sizeof(hp[k].args)) {
		fprintf(stderr, "ch39x-cpe: port %u: device arguments longer "
			"than %u bytes; allowed are shorter ones\n", id,
			ARGS_MAX - 1);
		return -E2BIG;
	}
	return 0;
}

int
cpe_hotplug_init(void)
{
	uint16_t k;
	int rc;

	for (k = 0; k < cpe.nb_phys; k++) {
		hp[k].state = HP_RUNNING;
		rc = remember(k);
		if (rc == 0)
			rc = callbacks(cpe.phys[k].id, true);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: port %u: cannot follow its "
				"link and removal events: %s\n",
				cpe.phys[k].id, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void
cpe_hotplug_close(void)
{
	uint16_t k;

	for (k = 0; k < cpe.nb_phys; k++)
		if (!cpe.phys[k].gone)
			callbacks(cpe.phys[k].id, false);
}

static bool
is_wan(uint16_t k)
{
	return cpe.wan >= 0 && cpe.ports[cpe.wan].phys == k;
}

static void
port_down(uint16_t k, const char *why)
{
	uint32_t n;

	if (cpe.phys[k].down)
		return;
	cpe.phys[k].down = true;
	hp[k].down_since = cpe.now;
	cpe.st.port_down_events++;
	cpe_tx_drop_phys(k);
	n = cpe_flow_drop_phys(k) + cpe_flow6_drop_phys(k);
	cpe.st.flow_down_invalidated += n;
	fprintf(stderr, "ch39x-cpe: port %u: %s; routes, neighbours and NAT "
		"sessions kept, %u cached flows out of it dropped\n",
		cpe.phys[k].id, why, n);
}

static void
port_up(uint16_t k)
{
	uint64_t shift;

	if (!cpe.phys[k].down || cpe.phys[k].gone)
		return;
	shift = cpe.now - hp[k].down_since;
	cpe.phys[k].down = false;
	cpe_neigh_resume(k, shift);
	cpe_nd6_resume(k, shift);
	if (is_wan(k))
		cpe_nat_resume(shift);
	cpe.st.port_up_events++;
	fprintf(stderr, "ch39x-cpe: port %u: link up after %.1f s down; "
		"forwarding\n", cpe.phys[k].id,
		(double)shift / (double)cpe.hz);
}

static void
on_lsc(uint16_t k)
{
	struct rte_eth_link link;

	if (cpe.phys[k].gone ||
	    rte_eth_link_get_nowait(cpe.phys[k].id, &link) != 0)
		return;
	if (link.link_status == RTE_ETH_LINK_DOWN)
		port_down(k, "link down");
	else
		port_up(k);
}

static void
on_rmv(uint16_t k)
{
	cpe.st.port_rmv_events++;
	if (cpe.phys[k].gone)
		return;
	port_down(k, "device removed");
	cpe.phys[k].gone = true;
	hp[k].state = HP_REPROBE;
	hp[k].tries = 0;
	hp[k].backoff_ms = REPROBE_FIRST_MS;
	hp[k].next_try = cpe.now;
	hp[k].removed = false;
}

/* The port and its device let go of; true once the device is gone. */
static bool
detach(uint16_t k)
{
	uint16_t id = cpe.phys[k].id;
	int rc;

	if (rte_eth_dev_is_valid_port(id) &&
	    rte_eth_dev_get_port_by_name(hp[k].port, &id) == 0 &&
	    id == cpe.phys[k].id) {
		cpe_idle_port_detach(k);
		callbacks(id, false);
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
	}
	rc = rte_eal_hotplug_remove(hp[k].bus, hp[k].dev);
	if (rc != 0 && rc != -ENOENT) {
		fprintf(stderr, "ch39x-cpe: port %u: cannot remove device %s: "
			"%s\n", cpe.phys[k].id, hp[k].dev, rte_strerror(-rc));
		return false;
	}
	return true;
}

/* The probe made a port: the router's ids follow it if it moved. */
static void
follow_id(uint16_t k, uint16_t id)
{
	uint16_t old = cpe.phys[k].id, i;

	if (id == old)
		return;
	fprintf(stderr, "ch39x-cpe: port %u came back as port %u\n", old, id);
	cpe.phys[k].id = id;
	for (i = 0; i < cpe.nb_ports; i++) {
		if (cpe.ports[i].id != old)
			continue;
		cpe.ports[i].id = id;
		cpe.o->ports[i].id = id;
	}
	cpe.by_id[id] = cpe.by_id[old];
	cpe.by_id[old] = -1;
}

/* Probed again: the port set up as at start. 0 or a negative errno. */
static int
attach(uint16_t k)
{
	struct rte_eth_link link;
	uint16_t id;
	int rc;

	rc = rte_eth_dev_get_port_by_name(hp[k].port, &id);
	if (rc != 0)
		return rc;
	follow_id(k, id);
	rc = callbacks(id, true);
	if (rc == 0)
		rc = cpe_port_restart(k);
	if (rc != 0) {
		callbacks(id, false);
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
		return rc;
	}
	cpe.phys[k].gone = false;
	cpe_idle_port_attach(k);
	/* Up now, or its LSC event says so later. */
	if (rte_eth_link_get_nowait(id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP)
		port_up(k);
	return 0;
}

static void
reprobe(uint16_t k)
{
	int rc;

	if (cpe.now < hp[k].next_try)
		return;
	if (!hp[k].removed)
		hp[k].removed = detach(k);
	rc = hp[k].removed ? rte_eal_hotplug_add(hp[k].bus, hp[k].dev,
						 hp[k].args) : -EBUSY;
	/* Removal and probe take time: what follows sees it. */
	cpe.now = rte_rdtsc();
	if (rc == 0) {
		rc = attach(k);
		/* Set-up failed: the device goes again before a new try. */
		if (rc != 0)
			hp[k].removed = detach(k);
	}
	if (rc == 0) {
		hp[k].state = HP_RUNNING;
		hp[k].reprobes++;
		cpe.st.port_reprobes++;
		fprintf(stderr, "ch39x-cpe: port %u: device %s probed again "
			"(try %u) and set up\n", cpe.phys[k].id, hp[k].dev,
			hp[k].tries + 1);
		return;
	}
	cpe.st.port_reprobe_errors++;
	if (++hp[k].tries >= REPROBE_TRIES) {
		hp[k].state = HP_FAILED;
		cpe.st.port_reprobe_gave_up++;
		fprintf(stderr, "ch39x-cpe: port %u: device %s not back after "
			"%u probes (%s); the port stays down until the router "
			"restarts\n", cpe.phys[k].id, hp[k].dev, hp[k].tries,
			rte_strerror(-rc));
		return;
	}
	fprintf(stderr, "ch39x-cpe: port %u: probe %u of %u of device %s "
		"failed (%s); next in %u ms\n", cpe.phys[k].id, hp[k].tries,
		REPROBE_TRIES, hp[k].dev, rte_strerror(-rc),
		hp[k].backoff_ms);
	hp[k].next_try = cpe.now + cpe.hz * hp[k].backoff_ms / 1000;
	hp[k].backoff_ms = RTE_MIN(hp[k].backoff_ms * 2, REPROBE_MAX_MS);
}

void
cpe_hotplug_poll(void)
{
	uint32_t e;
	uint16_t k;

	if (!busy && __atomic_load_n(&ev_any, __ATOMIC_RELAXED) == 0)
		return;
	/* Cleared before the bits are taken: a later event sets it again. */
	__atomic_exchange_n(&ev_any, 0, __ATOMIC_ACQ_REL);
	busy = false;
	for (k = 0; k < cpe.nb_phys; k++) {
		e = __atomic_exchange_n(&ev[cpe.phys[k].id], 0,
					__ATOMIC_ACQ_REL);
		if (e & EV_RMV)
			on_rmv(k);
		if (e & EV_LSC)
			on_lsc(k);
		if (hp[k].state == HP_REPROBE)
			reprobe(k);
		if (hp[k].state == HP_REPROBE) {
			busy = true;
			cpe_idle_wake_by(hp[k].next_try);
		}
	}
}

const char *
cpe_hotplug_state(uint16_t k)
{
	if (hp[k].state == HP_REPROBE)
		return "reprobing";
	if (hp[k].state == HP_FAILED)
		return "failed";
	return cpe.phys[k].down ? "down" : "up";
}

uint64_t
cpe_hotplug_reprobes(uint16_t k)
{
	return hp[k].reprobes;
}
