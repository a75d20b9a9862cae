/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ch39x-cpe: EAL options, "--", then the router's (control/opts.c).
 *
 * The options are parsed before EAL, so that --help and bad values need
 * no device, and so that a config file's vdev lines become EAL --vdev
 * arguments. Then the router (control/loop.c): its ports, the graph of
 * its nodes (datapath/), the loop that walks it on the main lcore until
 * a signal or --duration, the statistics at exit.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "ctl.h"
#include "graph.h"
#include "loop.h"
#include "opts.h"

/*
 * The router's options (after "--", or none): 0 to run, 1 when done
 * (--help, --options-rst, --graph-dot), <0 on a bad option.
 */
static int
options(int argc, char **argv, int sep, struct cpe_opts *o)
{
	char *dashes;
	int rc;

	if (sep == argc && argc > 1 && (strcmp(argv[1], "--help") == 0 ||
					strcmp(argv[1], "-h") == 0)) {
		cpe_usage(stdout, argv[0]);
		return 1;
	}
	if (sep < argc) {
		dashes = argv[sep];
		argv[sep] = argv[0];
		rc = cpe_opts_parse(argc - sep, argv + sep, o);
		argv[sep] = dashes;
	} else {
		rc = cpe_opts_parse(1, argv, o);
	}
	if (rc == 1)
		cpe_usage(stdout, argv[0]);
	else if (rc == 2)
		cpe_opts_rst(stdout);
	else if (rc == 3)
		cpe_graph_dot(stdout);
	return rc > 0 ? 1 : rc;
}

/* EAL's arguments, then the config file's vdev lines; NULL: no memory. */
static char **
eal_args(char **argv, int sep, const struct cpe_opts *o, int *eal_argc)
{
	char **eal_argv = calloc((size_t)sep + 2u * o->nb_vdevs + 1,
				 sizeof(char *));
	int n, i;

	if (eal_argv == NULL)
		return NULL;
	for (n = 0; n < sep; n++)
		eal_argv[n] = argv[n];
	for (i = 0; i < o->nb_vdevs; i++) {
		eal_argv[n++] = (char *)(uintptr_t)"--vdev";
		eal_argv[n++] = o->vdevs[i];
	}
	*eal_argc = n;
	return eal_argv;
}

int
main(int argc, char **argv)
{
	static struct cpe_opts opts;
	char **eal_argv;
	int sep, rc, eal_argc;

	for (sep = 1; sep < argc; sep++)
		if (strcmp(argv[sep], "--") == 0)
			break;
	rc = options(argc, argv, sep, &opts);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	eal_argv = eal_args(argv, sep, &opts, &eal_argc);
	if (eal_argv == NULL)
		return 1;
	rte_openlog_stream(stderr);
	/* Before EAL's threads start: they inherit the mask, and a signal
	 * waits in the loop's signalfd (control/ctl.c) whatever its time. */
	rc = cpe_ctl_block_signals();
	if (rc == 0)
		rc = rte_eal_init(eal_argc, eal_argv);
	if (rc < 0) {
		fprintf(stderr, "ch39x-cpe: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
	} else {
		rc = cpe_router_run(&opts);
		rte_eal_cleanup();
	}
	cpe_opts_free(&opts);
	free(eal_argv);
	return rc == 0 ? 0 : 1;
}
