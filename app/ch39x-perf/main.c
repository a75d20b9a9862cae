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

#include "perf.h"

static void
on_signal(int sig)
{
	(void)sig;
	perf_stop();
}

int
main(int argc, char **argv)
{
	struct perf_opts opts;
	struct perf_run run;
	char *dashes;
	int sep, rc;

	for (sep = 1; sep < argc; sep++)
		if (strcmp(argv[sep], "--") == 0)
			break;
	if (sep == argc && argc > 1 && (strcmp(argv[1], "--help") == 0 ||
					strcmp(argv[1], "-h") == 0)) {
		perf_usage(stdout, argv[0]);
		return 0;
	}
	/* The application's options, with the program name in front. */
	if (sep < argc) {
		dashes = argv[sep];
		argv[sep] = argv[0];
		rc = perf_opts_parse(argc - sep, argv + sep, &opts);
		argv[sep] = dashes;
	} else {
		rc = perf_opts_parse(1, argv, &opts);
	}
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
	perf_ports_close(&run);
	rte_eal_cleanup();
	return rc == 0 ? 0 : 1;
}
