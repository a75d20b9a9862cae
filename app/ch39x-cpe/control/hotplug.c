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
 *   on the bus); then sets the port up as at start (cpe_port_restart(), ports.c)
 *   and carries on. Counted: port_reprobes, port_reprobe_errors,
 *   port_reprobe_gave_up.
 *
 * The callbacks run on EAL's interrupt thread while the forwarding lcore
 * owns every table and the ports' queues: they only set a bit per port
 * and wake the loop (cpe_idle_kick()); cpe_hotplug_poll(), in the loop's
 * housekeeping, does the work through the nodes' and tables' control
 * functions. Removal and probe run there too (never in the RMV callback,
 * where the PMD's interrupt thread holds the device).
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

#include "ftab.h"
#include "hotplug.h"
#include "idle.h"
#include "nat.h"
#include "ntab.h"
#include "port.h"
#include "ports.h"
#include "router.h"

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

struct hp_port {
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
};

struct cpe_hotplug {
	struct cpe_router *r;
	struct hp_port hp[CPE_MAX_PHYS];
	/* Events per port id (EAL's interrupt thread sets, the lcore
	 * takes). */
	uint32_t ev[RTE_MAX_ETHPORTS];
	uint32_t ev_any;
	bool busy;			/* a re-probe is pending */
	uint64_t down_events, up_events, rmv_events;
	uint64_t reprobes, reprobe_errors, gave_up;
};

static int
on_event(uint16_t port_id, enum rte_eth_event_type type, void *cb_arg,
	 void *ret_param)
{
	struct cpe_hotplug *h = cb_arg;

	RTE_SET_USED(ret_param);
	if (port_id >= RTE_MAX_ETHPORTS)
		return 0;
	__atomic_fetch_or(&h->ev[port_id], type == RTE_ETH_EVENT_INTR_RMV ?
			  EV_RMV : EV_LSC, __ATOMIC_RELEASE);
	__atomic_store_n(&h->ev_any, 1, __ATOMIC_RELEASE);
	cpe_idle_kick(h->r);
	return 0;
}

static int
callbacks(struct cpe_hotplug *h, uint16_t id, bool on)
{
	static const enum rte_eth_event_type types[] = {
		RTE_ETH_EVENT_INTR_LSC, RTE_ETH_EVENT_INTR_RMV,
	};
	unsigned int i, tries;
	int rc = 0, r;

	for (i = 0; i < RTE_DIM(types); i++) {
		if (on) {
			r = rte_eth_dev_callback_register(id, types[i],
							  on_event, h);
		} else {
			/* -EAGAIN: running on the interrupt thread now. */
			tries = 0;
			while ((r = rte_eth_dev_callback_unregister(id,
					types[i], on_event, h)) == -EAGAIN &&
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
remember(struct hp_port *hp, uint16_t id)
{
	const struct rte_devargs *da;
	struct rte_eth_dev_info info;
	int rc;

	rc = rte_eth_dev_info_get(id, &info);
	if (rc == 0)
		rc = rte_eth_dev_get_name_by_port(id, hp->port);
	if (rc != 0 || info.device == NULL) {
		fprintf(stderr, "ch39x-cpe: port %u: no device information "
			"(%s)\n", id, rte_strerror(rc ? -rc : ENODEV));
		return rc ? rc : -ENODEV;
	}
	snprintf(hp->bus, sizeof(hp->bus), "%s",
		 rte_bus_name(rte_dev_bus(info.device)));
	snprintf(hp->dev, sizeof(hp->dev), "%s", rte_dev_name(info.device));
	da = rte_dev_devargs(info.device);
	hp->args[0] = '\0';
	if (da != NULL && da->args != NULL &&
	    (size_t)snprintf(hp->args, sizeof(hp->args), "%s",
			     da->args) >= sizeof(hp->args)) {
		fprintf(stderr, "ch39x-cpe: port %u: device arguments longer "
			"than %u bytes; allowed are shorter ones\n", id,
			ARGS_MAX - 1);
		return -E2BIG;
	}
	return 0;
}

int
cpe_hotplug_init(struct cpe_router *r)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	struct cpe_hotplug *h = calloc(1, sizeof(*h));
	uint16_t k;
	int rc;

	if (h == NULL)
		return -ENOMEM;
	h->r = r;
	r->hp = h;
	for (k = 0; k < ifs->nb_phys; k++) {
		h->hp[k].state = HP_RUNNING;
		rc = remember(&h->hp[k], ifs->phys[k].id);
		if (rc == 0)
			rc = callbacks(h, ifs->phys[k].id, true);
		if (rc != 0) {
			fprintf(stderr, "ch39x-cpe: port %u: cannot follow its "
				"link and removal events: %s\n",
				ifs->phys[k].id, rte_strerror(-rc));
			return rc;
		}
	}
	return 0;
}

void
cpe_hotplug_close(struct cpe_router *r)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t k;

	int rc = 0;

	if (r->hp == NULL)
		return;
	for (k = 0; k < ifs->nb_phys; k++)
		if (!ifs->phys[k].gone && callbacks(r->hp, ifs->phys[k].id,
						    false) != 0)
			rc = -1;
	/* A callback still registered may yet run on the interrupt
	 * thread: then its state stays (and says so). */
	if (rc != 0) {
		fprintf(stderr, "ch39x-cpe: a port's event callback could not "
			"be removed; its state is kept until the exit\n");
		return;
	}
	free(r->hp);
	r->hp = NULL;
}

static bool
is_wan(const struct cpe_ifaces *ifs, uint16_t k)
{
	return ifs->wan >= 0 && ifs->ifs[ifs->wan].phys == k;
}

static void
port_down(struct cpe_hotplug *h, uint16_t k, const char *why)
{
	struct cpe_dp *dp = h->r->dp;
	struct cpe_phys *ph = &dp->ifs.phys[k];
	uint32_t n;

	if (ph->down)
		return;
	ph->down = true;
	h->hp[k].down_since = dp->env.now;
	h->down_events++;
	cpe_port_tx_drop(h->r->tx[k]);
	n = cpe_ftab_drop_phys(dp->ftab4, k) + cpe_ftab_drop_phys(dp->ftab6, k);
	fprintf(stderr, "ch39x-cpe: port %u: %s; routes, neighbours and NAT "
		"sessions kept, %u cached flows out of it dropped\n", ph->id,
		why, n);
}

static void
port_up(struct cpe_hotplug *h, uint16_t k)
{
	struct cpe_dp *dp = h->r->dp;
	struct cpe_phys *ph = &dp->ifs.phys[k];
	uint64_t shift;

	if (!ph->down || ph->gone)
		return;
	shift = dp->env.now - h->hp[k].down_since;
	ph->down = false;
	cpe_arp_resume(dp->arp, k, shift);
	cpe_nd6_resume(dp->nd6, k, shift);
	if (is_wan(&dp->ifs, k))
		cpe_nat_resume(dp->nat, shift);
	h->up_events++;
	fprintf(stderr, "ch39x-cpe: port %u: link up after %.1f s down; "
		"forwarding\n", ph->id, (double)shift / (double)dp->env.hz);
}

static void
on_lsc(struct cpe_hotplug *h, uint16_t k)
{
	const struct cpe_phys *ph = &h->r->dp->ifs.phys[k];
	struct rte_eth_link link;

	if (ph->gone || rte_eth_link_get_nowait(ph->id, &link) != 0)
		return;
	if (link.link_status == RTE_ETH_LINK_DOWN)
		port_down(h, k, "link down");
	else
		port_up(h, k);
}

static void
on_rmv(struct cpe_hotplug *h, uint16_t k)
{
	struct cpe_phys *ph = &h->r->dp->ifs.phys[k];
	struct hp_port *hp = &h->hp[k];

	h->rmv_events++;
	if (ph->gone)
		return;
	port_down(h, k, "device removed");
	ph->gone = true;
	hp->state = HP_REPROBE;
	hp->tries = 0;
	hp->backoff_ms = REPROBE_FIRST_MS;
	hp->next_try = h->r->dp->env.now;
	hp->removed = false;
}

/* The port and its device let go of; true once the device is gone. */
static bool
detach(struct cpe_hotplug *h, uint16_t k)
{
	uint16_t id = h->r->dp->ifs.phys[k].id, cur = id;
	struct hp_port *hp = &h->hp[k];
	int rc;

	if (rte_eth_dev_is_valid_port(id) &&
	    rte_eth_dev_get_port_by_name(hp->port, &cur) == 0 && cur == id) {
		cpe_idle_port_detach(h->r, k);
		callbacks(h, id, false);
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
	}
	rc = rte_eal_hotplug_remove(hp->bus, hp->dev);
	if (rc != 0 && rc != -ENOENT) {
		fprintf(stderr, "ch39x-cpe: port %u: cannot remove device %s: "
			"%s\n", id, hp->dev, rte_strerror(-rc));
		return false;
	}
	return true;
}

/* The probe made a port: the router's ids follow it if it moved. */
static void
follow_id(struct cpe_router *r, uint16_t k, uint16_t id)
{
	struct cpe_ifaces *ifs = &r->dp->ifs;
	uint16_t old = ifs->phys[k].id, i;

	if (id == old)
		return;
	fprintf(stderr, "ch39x-cpe: port %u came back as port %u\n", old, id);
	ifs->phys[k].id = id;
	for (i = 0; i < ifs->nb; i++) {
		if (ifs->ifs[i].id != old)
			continue;
		ifs->ifs[i].id = id;
		r->o->ports[i].id = id;
	}
	ifs->by_id[id] = ifs->by_id[old];
	ifs->by_id[old] = -1;
}

/* Probed again: the port set up as at start. 0 or a negative errno. */
static int
attach(struct cpe_hotplug *h, uint16_t k)
{
	struct rte_eth_link link;
	uint16_t id;
	int rc;

	rc = rte_eth_dev_get_port_by_name(h->hp[k].port, &id);
	if (rc != 0)
		return rc;
	follow_id(h->r, k, id);
	rc = callbacks(h, id, true);
	if (rc == 0)
		rc = cpe_port_restart(h->r, k);
	if (rc != 0) {
		callbacks(h, id, false);
		rte_eth_dev_stop(id);
		rte_eth_dev_close(id);
		return rc;
	}
	h->r->dp->ifs.phys[k].gone = false;
	cpe_idle_port_attach(h->r, k);
	/* Up now, or its LSC event says so later. */
	if (rte_eth_link_get_nowait(id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP)
		port_up(h, k);
	return 0;
}

/* A try failed: the next after the back-off, or given up. */
static void
reprobe_failed(struct cpe_hotplug *h, uint16_t k, int rc)
{
	struct hp_port *hp = &h->hp[k];
	uint16_t id = h->r->dp->ifs.phys[k].id;

	h->reprobe_errors++;
	if (++hp->tries >= REPROBE_TRIES) {
		hp->state = HP_FAILED;
		h->gave_up++;
		fprintf(stderr, "ch39x-cpe: port %u: device %s not back after "
			"%u probes (%s); the port stays down until the router "
			"restarts\n", id, hp->dev, hp->tries,
			rte_strerror(-rc));
		return;
	}
	fprintf(stderr, "ch39x-cpe: port %u: probe %u of %u of device %s "
		"failed (%s); next in %u ms\n", id, hp->tries, REPROBE_TRIES,
		hp->dev, rte_strerror(-rc), hp->backoff_ms);
	hp->next_try = h->r->dp->env.now + h->r->dp->env.hz *
		hp->backoff_ms / 1000;
	hp->backoff_ms = RTE_MIN(hp->backoff_ms * 2, REPROBE_MAX_MS);
}

static void
reprobe(struct cpe_hotplug *h, uint16_t k)
{
	struct hp_port *hp = &h->hp[k];
	int rc;

	if (h->r->dp->env.now < hp->next_try)
		return;
	if (!hp->removed)
		hp->removed = detach(h, k);
	rc = hp->removed ? rte_eal_hotplug_add(hp->bus, hp->dev, hp->args) :
		-EBUSY;
	/* Removal and probe take time: what follows sees it. */
	h->r->dp->env.now = rte_rdtsc();
	if (rc == 0) {
		rc = attach(h, k);
		/* Set-up failed: the device goes again before a new try. */
		if (rc != 0)
			hp->removed = detach(h, k);
	}
	if (rc != 0) {
		reprobe_failed(h, k, rc);
		return;
	}
	hp->state = HP_RUNNING;
	hp->reprobes++;
	h->reprobes++;
	fprintf(stderr, "ch39x-cpe: port %u: device %s probed again (try %u) "
		"and set up\n", h->r->dp->ifs.phys[k].id, hp->dev,
		hp->tries + 1);
}

void
cpe_hotplug_poll(struct cpe_router *r)
{
	struct cpe_hotplug *h = r->hp;
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	uint32_t e;
	uint16_t k;

	if (!h->busy && __atomic_load_n(&h->ev_any, __ATOMIC_RELAXED) == 0)
		return;
	/* Cleared before the bits are taken: a later event sets it again. */
	__atomic_exchange_n(&h->ev_any, 0, __ATOMIC_ACQ_REL);
	h->busy = false;
	for (k = 0; k < ifs->nb_phys; k++) {
		e = __atomic_exchange_n(&h->ev[ifs->phys[k].id], 0,
					__ATOMIC_ACQ_REL);
		if (e & EV_RMV)
			on_rmv(h, k);
		if (e & EV_LSC)
			on_lsc(h, k);
		if (h->hp[k].state == HP_REPROBE)
			reprobe(h, k);
		if (h->hp[k].state == HP_REPROBE) {
			h->busy = true;
			cpe_idle_wake_by(r, h->hp[k].next_try);
		}
	}
}

const char *
cpe_hotplug_state(const struct cpe_router *r, uint16_t k)
{
	if (r->hp->hp[k].state == HP_REPROBE)
		return "reprobing";
	if (r->hp->hp[k].state == HP_FAILED)
		return "failed";
	return r->dp->ifs.phys[k].down ? "down" : "up";
}

uint64_t
cpe_hotplug_reprobes(const struct cpe_router *r, uint16_t k)
{
	return r->hp->hp[k].reprobes;
}

void
cpe_hotplug_counts(const struct cpe_router *r, uint64_t *down, uint64_t *up,
		   uint64_t *rmv, uint64_t *reprobes, uint64_t *errors,
		   uint64_t *gave_up)
{
	const struct cpe_hotplug *h = r->hp;

	*down = h->down_events;
	*up = h->up_events;
	*rmv = h->rmv_events;
	*reprobes = h->reprobes;
	*errors = h->reprobe_errors;
	*gave_up = h->gave_up;
}
