/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated adapter's unplug and replug, for the tests:
 *
 *   /cpe/sim/unplug,PORT   takes a simulated net_ch39x adapter off its bus
 *   /cpe/sim/replug,PORT   puts it back
 *   /cpe/sim/mbim,PORT,EVENT[,ARG]   an event of a simulated MBIM modem's
 *                          network (sim=mbim): lose (coverage gone), find
 *                          (back), drop (the network ends session ARG),
 *                          signal (RSSI ARG)
 *
 * The PMD's functions (rte_pmd_ch39x.h) are looked up at run time, so
 * any PMD (or none of ours) is fine.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "pmd_sym.h"
#include "rte_pmd_ch39x.h"

static const char *const sim_allowed =
	"PORT, a DPDK port id of the router, e.g. 1";

static const char *const mbim_allowed =
	"PORT,EVENT[,ARG]: PORT a DPDK port id of the router, EVENT lose, "
	"find, drop (ARG the session, 0 by default) or signal (ARG the "
	"RSSI 0..31), e.g. 1,drop";

struct sim_cmd {
	uint16_t port;			/* DPDK port id */
	bool up;			/* replug */
	int mbim_ev;			/* /cpe/sim/mbim: the event, else 0 */
	uint32_t arg;
};

static const char *const mbim_events[] = {
	[RTE_PMD_CH39X_SIM_MBIM_LOSE_NETWORK] = "lose",
	[RTE_PMD_CH39X_SIM_MBIM_FIND_NETWORK] = "find",
	[RTE_PMD_CH39X_SIM_MBIM_DROP_SESSION] = "drop",
	[RTE_PMD_CH39X_SIM_MBIM_SIGNAL] = "signal",
};

/* The phys index of DPDK port id, or nb_phys (the error's reply made). */
static uint16_t
phys_of(struct cpe_router *r, uint16_t id, struct rte_tel_data *d)
{
	const struct cpe_ifaces *ifs = &r->dp->ifs;
	char err[RTE_TEL_MAX_STRING_LEN], buf[8];
	struct rte_tel_data *a;
	uint16_t k;

	for (k = 0; k < ifs->nb_phys; k++)
		if (ifs->phys[k].id == id)
			return k;
	snprintf(err, sizeof(err), "port %u is not one of the router's", id);
	a = cpe_ctl_error_list(r, d, err);
	for (k = 0; a != NULL && k < ifs->nb_phys; k++) {
		snprintf(buf, sizeof(buf), "%u", ifs->phys[k].id);
		rte_tel_data_add_array_string(a, buf);
	}
	return ifs->nb_phys;
}

/* The PMD's MBIM network event on port id: 0 or a negative errno. */
static int
mbim_event(uint16_t id, int ev, uint32_t arg)
{
	static int (*fn)(uint16_t, enum rte_pmd_ch39x_sim_mbim_event,
			 uint32_t);

	if (fn == NULL)
		fn = (int (*)(uint16_t, enum rte_pmd_ch39x_sim_mbim_event,
			      uint32_t))cpe_pmd_sym("rte_pmd_ch39x_sim_mbim_event");
	if (fn == NULL)
		return -ENOTSUP;
	return fn(id, (enum rte_pmd_ch39x_sim_mbim_event)ev, arg);
}

/* The PMD's unplug or replug of port id: 0 or a negative errno. */
static int
plug(uint16_t id, bool up)
{
	static int (*unplug)(uint16_t);
	static int (*replug)(uint16_t, enum rte_pmd_ch39x_replug);

	if (unplug == NULL)
		unplug = (int (*)(uint16_t))cpe_pmd_sym("rte_pmd_ch39x_sim_unplug");
	if (replug == NULL)
		replug = (int (*)(uint16_t, enum rte_pmd_ch39x_replug))
			cpe_pmd_sym("rte_pmd_ch39x_sim_replug");
	if ((up ? (void *)replug : (void *)unplug) == NULL)
		return -ENOTSUP;
	return up ? replug(id, RTE_PMD_CH39X_REPLUG_SAME) : unplug(id);
}

static void
sim(struct cpe_router *r, const void *arg, struct rte_tel_data *d)
{
	const struct sim_cmd *c = arg;
	char err[RTE_TEL_MAX_STRING_LEN];
	uint16_t k = phys_of(r, c->port, d);
	int rc;

	if (k == r->dp->ifs.nb_phys)
		return;
	rc = r->dp->ifs.phys[k].gone ? -ENODEV : c->mbim_ev ?
		mbim_event(c->port, c->mbim_ev, c->arg) : plug(c->port, c->up);
	if (rc != 0 && c->mbim_ev) {
		snprintf(err, sizeof(err), "port %u: MBIM event %s failed: "
			 "%s (%d)%s", c->port, mbim_events[c->mbim_ev],
			 strerror(-rc), rc, rc == -ENOTSUP ? ": not a "
			 "simulated MBIM modem (sim=mbim)" : "");
		cpe_ctl_error(r, d, err, NULL);
		return;
	}
	if (rc != 0) {
		snprintf(err, sizeof(err), "port %u: %s failed: %s (%d)%s",
			 c->port, c->up ? "replug" : "unplug", strerror(-rc),
			 rc, rc == -ENOTSUP ? ": not a simulated net_ch39x "
			 "adapter (or no net_ch39x PMD loaded)" :
			 rc == -ENODEV ? ": the port is removed, being probed "
			 "again" :
			 rc == -EINVAL && c->up ? ": not unplugged" : "");
		cpe_ctl_error(r, d, err, rc == -EINVAL && c->up ?
			      "/cpe/sim/unplug,PORT first" : NULL);
		return;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "port", c->port);
	if (c->mbim_ev)
		rte_tel_data_add_dict_string(d, "mbim_event",
					     mbim_events[c->mbim_ev]);
	else
		rte_tel_data_add_dict_string(d, c->up ? "replugged" :
					     "unplugged", "simulated adapter");
}

/* /cpe/sim/mbim,PORT,EVENT[,ARG] */
static int
tel_mbim(const char *cmd, const char *params, void *box,
	 struct rte_tel_data *d)
{
	struct sim_cmd c = { 0 };
	char buf[48], *f[3], *end;
	unsigned long v;
	int n, e;

	n = cpe_ctl_split(params, buf, sizeof(buf), f, 3);
	if (n < 2 || f[0][0] < '0' || f[0][0] > '9')
		return cpe_ctl_bad(box, d, cmd, params, mbim_allowed);
	v = strtoul(f[0], &end, 10);
	if (*end != '\0' || v >= RTE_MAX_ETHPORTS)
		return cpe_ctl_bad(box, d, cmd, params, mbim_allowed);
	c.port = (uint16_t)v;
	for (e = 1; e < (int)RTE_DIM(mbim_events); e++)
		if (strcmp(f[1], mbim_events[e]) == 0)
			c.mbim_ev = e;
	if (c.mbim_ev == 0 || (n == 3 && (f[2][0] < '0' || f[2][0] > '9')))
		return cpe_ctl_bad(box, d, cmd, params, mbim_allowed);
	if (n == 3) {
		v = strtoul(f[2], &end, 10);
		if (*end != '\0' || v > 31)
			return cpe_ctl_bad(box, d, cmd, params, mbim_allowed);
		c.arg = (uint32_t)v;
	}
	return cpe_ctl_call(box, sim, &c, sizeof(c), d);
}

/* /cpe/sim/unplug,PORT and /cpe/sim/replug,PORT */
static int
tel_sim(const char *cmd, const char *params, void *box,
	struct rte_tel_data *d)
{
	struct sim_cmd c = { 0 };
	char buf[16], *f[1], *end;
	unsigned long id;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    f[0][0] < '0' || f[0][0] > '9')
		return cpe_ctl_bad(box, d, cmd, params, sim_allowed);
	id = strtoul(f[0], &end, 10);
	if (*end != '\0' || id >= RTE_MAX_ETHPORTS)
		return cpe_ctl_bad(box, d, cmd, params, sim_allowed);
	c.port = (uint16_t)id;
	c.up = strcmp(cmd, "/cpe/sim/replug") == 0;
	return cpe_ctl_call(box, sim, &c, sizeof(c), d);
}

int
cpe_ctl_sim_init(struct cpe_ctl *c)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/sim/unplug", tel_sim, "Takes a simulated net_ch39x "
		  "adapter off its USB bus. Parameters: PORT" },
		{ "/cpe/sim/replug", tel_sim, "Puts an unplugged simulated "
		  "net_ch39x adapter back. Parameters: PORT" },
		{ "/cpe/sim/mbim", tel_mbim, "An event of a simulated MBIM "
		  "modem's network. Parameters: PORT,EVENT[,ARG] (lose, find, "
		  "drop, signal)" },
	};

	return cpe_ctl_register(c, cmds, RTE_DIM(cmds));
}
