/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ch39x-perf: EAL options, "--", then the application's (see opts.c).
 *
 * A run: parse the options (before EAL, so that --help and bad values need
 * no device); start EAL with its log on stderr, so that stdout carries only
 * the results; pick and set up the ports (ports.c); measure (run.c);
 * report (report.c); stop and close the ports.
 */

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include "perf.h"

static void
on_signal(int sig)
{
	(void)sig;
	perf_stop();
}

/* Mbufs not back in the pool: a leak in the application or a PMD. */
static void
check_pool(const struct perf_run *r)
{
	unsigned int in_use;

	if (r->pool == NULL)
		return;
	in_use = rte_mempool_in_use_count(r->pool);
	if (in_use != 0)
		fprintf(stderr, "ch39x-perf: warning: %u mbufs not returned to "
			"the pool after the ports stopped\n", in_use);
}

int
main(int argc, char **argv)
{
	struct perf_opts opts;
	struct perf_run run;
	int sep, rc, i;

	for (sep = 1; sep < argc; sep++)
		if (strcmp(argv[sep], "--") == 0)
			break;
	if (sep == argc && argc > 1 && (strcmp(argv[1], "--help") == 0 ||
					strcmp(argv[1], "-h") == 0)) {
		perf_usage(stdout, argv[0]);
		return 0;
	}
	/* The application's options, with the program name in front. */
	if (sep < argc)
		argv[sep] = argv[0];
	rc = perf_opts_parse(sep < argc ? argc - sep : 1,
			     sep < argc ? argv + sep : argv, &opts);
	if (sep < argc)
		argv[sep] = (char *)(uintptr_t)"--";
	if (rc == 1) {
		perf_usage(stdout, argv[0]);
		return 0;
	}
	if (rc != 0)
		return 2;

	rte_openlog_stream(stderr);
	rc = rte_eal_init(sep, argv);
	if (rc < 0) {
		fprintf(stderr, "ch39x-perf: EAL initialisation failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	memset(&run, 0, sizeof(run));
	rc = perf_ports_setup(&run, &opts);
	if (rc == 0) {
		rc = perf_run(&run);
		perf_report(&run);
	}
	/* Close stops the ports: their queues give their mbufs back. */
	for (i = 0; run.ports != NULL && i < run.nb_ports; i++) {
		if (run.ports[i].started) {
			rte_eth_dev_stop(run.ports[i].id);
			run.ports[i].started = false;
		}
	}
	check_pool(&run);
	perf_ports_close(&run);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
