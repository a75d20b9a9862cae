/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_OPTS_H
#define CPE_OPTS_H

/*
 * The router's options (after EAL's "--") and config file (--config):
 * one table (opts_table.h) makes the parser, --help, the config keys and
 * the guide's option reference. Parsed before EAL starts, so that --help
 * and bad values need no ports; what depends on the ports (whether one
 * exists, its MTU range) is checked when they are set up. Every error
 * names the option and the values it allows.
 */

#include <stddef.h>
#include <stdio.h>

#include "cpe_conf.h"

/* 0: run; 1: --help given; 2: --options-rst given; 3: --graph-dot
 * given; <0: bad options (already reported). */
int cpe_opts_parse(int argc, char **argv, struct cpe_opts *o);
void cpe_usage(FILE *f, const char *prog);
/* The option reference of the CPE guide (doc/guides/cpe.rst). */
void cpe_opts_rst(FILE *f);
/* The config file's vdev copies freed. */
void cpe_opts_free(struct cpe_opts *o);

/* --- for the option parsers (opts_args.c, opts_check.c) --------------- */

enum cpe_opt_kind { OPT_ON, OPT_OFF, OPT_U32, OPT_SECS, OPT_ONOFF, OPT_FN };

struct cpe_opt_def;

/*
 * Where a value is being read, for its messages, handed down the parser
 * (no file-scope state): the option's name, and the config file and line
 * (file NULL on the command line).
 */
struct cpe_opt_at {
	const char *name;
	const char *file;
	unsigned int line;
	int depth;		/* 0: the command line, 1: a config file */
};

/* An option's value (NULL: none) into o: 0, or <0 (reported). */
typedef int (*cpe_opt_fn)(struct cpe_opts *o, const struct cpe_opt_def *d,
			  const char *val, const struct cpe_opt_at *at);

struct cpe_opt_def {
	const char *name;
	const char *arg;		/* "": takes no value */
	enum cpe_opt_kind kind;
	cpe_opt_fn fn;
	size_t field;			/* offset in struct cpe_opts */
	double lo, hi, dflt;
	const char *allowed;
	const char *dflt_text;
	const char *help;
};

/* The error of a bad value: "[FILE:LINE: ]--NAME VAL: allowed values are
 * ALLOWED", NAME at->name. */
int cpe_opt_bad(const struct cpe_opt_at *at, const char *val,
		const char *allowed);
int cpe_opt_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v);
/* A config file's options (depth 1), as on the command line. */
int cpe_opts_file(struct cpe_opts *o, const char *path, int depth);

/* The parsers of the OPT_FN rows (opts_args.c). */
#define CPE_OPT_FN_DECL(f) \
	int f(struct cpe_opts *o, const struct cpe_opt_def *d, \
	      const char *val, const struct cpe_opt_at *at)
CPE_OPT_FN_DECL(opt_lan);
CPE_OPT_FN_DECL(opt_wan);
CPE_OPT_FN_DECL(opt_route);
CPE_OPT_FN_DECL(opt_neigh);
CPE_OPT_FN_DECL(opt_mtu);
CPE_OPT_FN_DECL(opt_nat_ports);
CPE_OPT_FN_DECL(opt_fw_rule);
CPE_OPT_FN_DECL(opt_fw_forward);
CPE_OPT_FN_DECL(opt_tap);
CPE_OPT_FN_DECL(opt_idle);
CPE_OPT_FN_DECL(opt_gen);
CPE_OPT_FN_DECL(opt_qos);
CPE_OPT_FN_DECL(opt_config);
CPE_OPT_FN_DECL(opt_vdev);

#endif /* CPE_OPTS_H */
