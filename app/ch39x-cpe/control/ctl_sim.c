/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated adapter's unplug and replug, for the tests:
 *
 *   /cpe/sim/unplug,PORT   takes a simulated net_ch39x adapter off its bus
 *   /cpe/sim/replug,PORT   puts it back
 *
 * The PMD's functions (rte_pmd_ch39x.h) are looked up at run time, so
 * any PMD (or none of ours) is fine.
 */

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "rte_pmd_ch39x.h"

#define SO_NAMES_MAX		256

static const char *const sim_allowed =
	"PORT, a DPDK port id of the router, e.g. 1";

struct sim_cmd {
	uint16_t port;			/* DPDK port id */
	bool up;			/* replug */
};

struct so_names {
	char *name[SO_NAMES_MAX];
	unsigned int n;
};

static int
so_name(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct so_names *s = arg;

	RTE_SET_USED(size);
	if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0' &&
	    s->n < SO_NAMES_MAX)
		s->name[s->n++] = strdup(info->dlpi_name);
	return 0;
}

/*
 * A function of the loaded net_ch39x PMD, or NULL. EAL opens plugins
 * without RTLD_GLOBAL: each loaded object is asked (after the walk, which
 * holds the loader's lock).
 */
static void *
pmd_sym(const char *fn)
{
	struct so_names s = { .n = 0 };
	void *sym = dlsym(RTLD_DEFAULT, fn), *h;
	unsigned int i;

	if (sym != NULL)
		return sym;
	dl_iterate_phdr(so_name, &s);
	for (i = 0; i < s.n; i++) {
		h = s.name[i] != NULL && sym == NULL ?
			dlopen(s.name[i], RTLD_NOW | RTLD_NOLOAD) : NULL;
		if (h != NULL) {
			/* EAL's own handle keeps the object loaded. */
			sym = dlsym(h, fn);
			dlclose(h);
		}
		free(s.name[i]);
	}
	return sym;
}

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

/* The PMD's unplug or replug of port id: 0 or a negative errno. */
static int
plug(uint16_t id, bool up)
{
	static int (*unplug)(uint16_t);
	static int (*replug)(uint16_t, enum rte_pmd_ch39x_replug);

	if (unplug == NULL)
		unplug = (int (*)(uint16_t))pmd_sym("rte_pmd_ch39x_sim_unplug");
	if (replug == NULL)
		replug = (int (*)(uint16_t, enum rte_pmd_ch39x_replug))
			pmd_sym("rte_pmd_ch39x_sim_replug");
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
	rc = r->dp->ifs.phys[k].gone ? -ENODEV : plug(c->port, c->up);
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
	rte_tel_data_add_dict_string(d, c->up ? "replugged" : "unplugged",
				     "simulated adapter");
}

/* /cpe/sim/unplug,PORT and /cpe/sim/replug,PORT */
static int
tel_sim(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct sim_cmd c = { 0 };
	char buf[16], *f[1], *end;
	unsigned long id;

	if (cpe_ctl_split(params, buf, sizeof(buf), f, 1) != 1 ||
	    f[0][0] < '0' || f[0][0] > '9')
		return cpe_ctl_bad(d, cmd, params, sim_allowed);
	id = strtoul(f[0], &end, 10);
	if (*end != '\0' || id >= RTE_MAX_ETHPORTS)
		return cpe_ctl_bad(d, cmd, params, sim_allowed);
	c.port = (uint16_t)id;
	c.up = strcmp(cmd, "/cpe/sim/replug") == 0;
	return cpe_ctl_call(sim, &c, sizeof(c), d);
}

int
cpe_ctl_sim_init(void)
{
	static const struct cpe_ctl_cmd cmds[] = {
		{ "/cpe/sim/unplug", tel_sim, "Takes a simulated net_ch39x "
		  "adapter off its USB bus. Parameters: PORT" },
		{ "/cpe/sim/replug", tel_sim, "Puts an unplugged simulated "
		  "net_ch39x adapter back. Parameters: PORT" },
	};

	return cpe_ctl_register(cmds, RTE_DIM(cmds));
}
