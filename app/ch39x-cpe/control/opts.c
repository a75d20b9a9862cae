/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The option table's machinery: the command line and the config file
 * (one option a line, its name without the dashes, then its value, so
 * that both take exactly the same keys and give the same errors), the
 * defaults, --help and the guide's option reference, all from
 * opts_table.h.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "num.h"
#include "opts.h"
#include "opts_check.h"
#include "opts_table.h"

#define PROG "ch39x-cpe"
#define OPT_F(m) offsetof(struct cpe_opts, m)
#define HELP_WIDTH 76
#define HELP_INDENT 8

#define ROW(n, a, k, f, fld, l, h, d, al, dt, hp) \
	{ .name = n, .arg = a, .kind = k, .fn = f, .field = fld, .lo = l, \
	  .hi = h, .dflt = d, .allowed = al, .dflt_text = dt, .help = hp },
static const struct cpe_opt_def opt_defs[] = { CPE_OPTIONS(ROW) };
#undef ROW

/* "FILE:LINE: " of a config file's line, "" on the command line. */
static const char *
where(const struct cpe_opt_at *at, char *buf, size_t size)
{
	if (at->file == NULL)
		return "";
	snprintf(buf, size, "%s:%u: ", at->file, at->line);
	return buf;
}

int
cpe_opt_bad(const struct cpe_opt_at *at, const char *val,
	    const char *allowed)
{
	char buf[512];

	fprintf(stderr, PROG ": %s--%s%s%s: allowed values are %s\n",
		where(at, buf, sizeof(buf)), at->name, val ? " " : "",
		val ? val : "", allowed);
	return -EINVAL;
}

int
cpe_opt_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *v)
{
	uint64_t x;

	if (cpe_parse_u64(s, lo, hi, &x) != 0)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

static int
parse_secs(const char *s, double lo, double hi, double *v)
{
	char *end;

	if (s == NULL || !(isdigit((unsigned char)s[0]) || s[0] == '.'))
		return -EINVAL;
	errno = 0;
	*v = strtod(s, &end);
	if (errno != 0 || *end != '\0' || *v < lo || *v > hi)
		return -EINVAL;
	return 0;
}

static void *
field_of(struct cpe_opts *o, const struct cpe_opt_def *d)
{
	return (char *)o + d->field;
}

/* One option's value (NULL: none) into o, as its row says. */
static int
handle(struct cpe_opts *o, const struct cpe_opt_def *d, const char *val,
       const struct cpe_opt_at *at)
{
	bool *flag = field_of(o, d);

	switch (d->kind) {
	case OPT_ON:
	case OPT_OFF:
		*flag = d->kind == OPT_ON;
		return 0;
	case OPT_U32:
		if (cpe_opt_u32(val, (uint32_t)d->lo, (uint32_t)d->hi,
				field_of(o, d)) != 0)
			return cpe_opt_bad(at, val, d->allowed);
		return 0;
	case OPT_SECS:
		if (parse_secs(val, d->lo, d->hi, field_of(o, d)) != 0)
			return cpe_opt_bad(at, val, d->allowed);
		return 0;
	case OPT_ONOFF:
		if (strcmp(val, "on") != 0 && strcmp(val, "off") != 0)
			return cpe_opt_bad(at, val, d->allowed);
		*flag = strcmp(val, "on") == 0;
		return 0;
	case OPT_FN:
		break;
	}
	return d->fn(o, d, val, at);
}

static const struct cpe_opt_def *
find_opt(const char *name)
{
	size_t i;

	for (i = 0; i < RTE_DIM(opt_defs); i++)
		if (strcmp(opt_defs[i].name, name) == 0)
			return &opt_defs[i];
	return NULL;
}

static void
list_opts(char *buf, size_t size, const char *dashes)
{
	size_t i, n = 0;

	for (i = 0; i < RTE_DIM(opt_defs) && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s%s",
				      i ? ", " : "", dashes, opt_defs[i].name);
}

/* A config line's key and value, comments and blanks cut: false if empty. */
static bool
split_line(char *line, char **key, char **val)
{
	char *p = strchr(line, '#'), *e;

	if (p != NULL)
		*p = '\0';
	for (*key = line; isspace((unsigned char)**key); (*key)++)
		;
	e = *key + strlen(*key);
	while (e > *key && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if (**key == '\0')
		return false;
	for (*val = *key; **val && !isspace((unsigned char)**val); (*val)++)
		;
	if (**val) {
		*(*val)++ = '\0';
		while (isspace((unsigned char)**val))
			(*val)++;
	}
	return true;
}

/* One line's option (at: its file and line): 0 or <0 (reported). */
static int
file_opt(struct cpe_opts *o, const char *key, const char *val,
	 struct cpe_opt_at *at)
{
	const struct cpe_opt_def *d = find_opt(key);
	char keys[1024], buf[512];
	const char *w = where(at, buf, sizeof(buf));

	if (d == NULL || (d->kind == OPT_FN && d->fn == NULL)) {
		list_opts(keys, sizeof(keys), "");
		fprintf(stderr, PROG ": %sunknown key '%s'; allowed keys are: "
			"%s\n", w, key, keys);
		return -EINVAL;
	}
	if (d->arg[0] != '\0' && *val == '\0') {
		fprintf(stderr, PROG ": %s'%s' needs a value\n", w, key);
		return -EINVAL;
	}
	if (d->arg[0] == '\0' && *val != '\0') {
		fprintf(stderr, PROG ": %s'%s' takes no value\n", w, key);
		return -EINVAL;
	}
	at->name = d->name;
	/* The handlers copy what must outlive the line (vdev lines). */
	return handle(o, d, d->arg[0] ? val : NULL, at);
}

int
cpe_opts_file(struct cpe_opts *o, const char *path, int depth)
{
	struct cpe_opt_at at = { .file = path, .depth = depth };
	char line[512], *key, *val;
	FILE *f;
	int rc = 0;

	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, PROG ": --config %s: cannot open: %s\n", path,
			strerror(errno));
		return -errno;
	}
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		at.line++;
		if (!split_line(line, &key, &val))
			continue;
		rc = file_opt(o, key, val, &at);
	}
	fclose(f);
	return rc;
}

/* Every row's default, then what the rows cannot say. */
static void
defaults(struct cpe_opts *o)
{
	const struct cpe_opt_def *d;
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < RTE_DIM(opt_defs); i++) {
		d = &opt_defs[i];
		if (d->kind == OPT_OFF || d->kind == OPT_ONOFF)
			*(bool *)field_of(o, d) = d->dflt != 0;
		else if (d->kind == OPT_U32)
			*(uint32_t *)field_of(o, d) = (uint32_t)d->dflt;
		else if (d->kind == OPT_SECS)
			*(double *)field_of(o, d) = d->dflt;
	}
	o->mtu = CPE_DEF_MTU;
	o->nat_lo = 1024;
	o->nat_hi = 65535;
	o->fw.echo_rate = CPE_FW_ECHO_RATE;
	o->idle = CPE_IDLE_INTERRUPT;
	cpe_qos_cfg_defaults(&o->qos);
}

/* "--key=value": a copy split at '=' (kept for the run: options point
 * into it). */
static int
split_eq(const char **name, const char **val)
{
	const char *eq = strchr(*name, '=');
	char *copy;

	if (eq == NULL)
		return 0;
	copy = strdup(*name);
	if (copy == NULL)
		return -ENOMEM;
	copy[eq - *name] = '\0';
	*val = copy + (eq - *name) + 1;
	*name = copy;
	return 0;
}

/* argv[*i]'s option: 0 (*i past its value), 1 --help, 2 --options-rst,
 * 3 --graph-dot, or <0 (reported). */
static int
argv_opt(struct cpe_opts *o, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *val = NULL;
	struct cpe_opt_at at = { .depth = 0 };
	const struct cpe_opt_def *d;
	char keys[1024];

	if (strncmp(argv[*i], "--", 2) != 0) {
		fprintf(stderr, PROG ": unexpected argument '%s'; options start "
			"with --, see --help\n", argv[*i]);
		return -EINVAL;
	}
	if (split_eq(&name, &val) != 0)
		return -ENOMEM;
	d = find_opt(name);
	if (d == NULL) {
		list_opts(keys, sizeof(keys), "--");
		fprintf(stderr, PROG ": unknown option '--%s'; allowed options "
			"are %s (see --help)\n", name, keys);
		return -EINVAL;
	}
	if (d->kind == OPT_FN && d->fn == NULL)
		return strcmp(name, "help") == 0 ? 1 :
			strcmp(name, "options-rst") == 0 ? 2 : 3;
	if (d->arg[0] != '\0' && val == NULL) {
		if (*i + 1 >= argc) {
			fprintf(stderr, PROG ": --%s needs a value\n", name);
			return -EINVAL;
		}
		val = argv[++*i];
	} else if (d->arg[0] == '\0' && val != NULL) {
		fprintf(stderr, PROG ": --%s takes no value\n", name);
		return -EINVAL;
	}
	at.name = d->name;
	return handle(o, d, val, &at);
}

int
cpe_opts_parse(int argc, char **argv, struct cpe_opts *o)
{
	int i, rc;

	defaults(o);
	for (i = 1; i < argc; i++) {
		rc = argv_opt(o, argc, argv, &i);
		if (rc != 0)
			return rc;
	}
	return cpe_opts_check(o);
}

void
cpe_opts_free(struct cpe_opts *o)
{
	uint16_t i;

	for (i = 0; i < o->nb_vdevs; i++)
		free(o->vdevs[i]);
	o->nb_vdevs = 0;
}

/* --- what the table says, for --help and the guide ------------------- */

/* The default of row d as the docs show it, "" when none. */
static const char *
dflt_of(const struct cpe_opt_def *d, char *buf, size_t size)
{
	if (d->dflt_text != NULL)
		return d->dflt_text;
	if (d->kind == OPT_ONOFF)
		return d->dflt != 0 ? "on" : "off";
	if (d->kind == OPT_U32 || d->kind == OPT_SECS) {
		snprintf(buf, size, "%g", d->dflt);
		return buf;
	}
	return "";
}

/* text from column col to HELP_WIDTH, continued at column indent. */
static void
wrap(FILE *f, const char *text, int col, int indent)
{
	const char *w = text, *e;
	int len;

	while (*w != '\0') {
		e = strchr(w, ' ');
		len = e != NULL ? (int)(e - w) : (int)strlen(w);
		if (col + 1 + len > HELP_WIDTH && col > indent) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		col += fprintf(f, "%s%.*s", col > indent ? " " : "", len, w);
		w += len;
		while (*w == ' ')
			w++;
	}
	fputc('\n', f);
}

void
cpe_usage(FILE *f, const char *prog)
{
	const struct cpe_opt_def *d;
	char text[1024], b[32];
	size_t i;

	fprintf(f, "Usage: %s [EAL options] -- [options]\n\n"
		"A dual-stack CPE router on DPDK ports: one WAN interface with "
		"NAPT for\nIPv4, one or more LAN interfaces, 802.1Q "
		"sub-interfaces, a flow-cache fast\npath in front of routing "
		"(LPM), ARP/ND and NAT; IPv6 routed (no NAT)\nwhen interfaces "
		"have prefixes; an optional WAN shaper with priority\nclasses, "
		"a Linux control plane on TAPs, idle modes that follow the "
		"load,\nand run-time routes over DPDK telemetry.\nExample, two "
		"simulated CH398s whose cables end at Linux TAP interfaces:\n"
		"  %s --no-huge --no-pci -m 512 -d /path/librte_net_ch39x.so \\"
		"\n    --vdev net_ch39x0,wire=tap:lan0 --vdev "
		"net_ch39x1,wire=tap:wan0 -- \\\n    --lan 0=192.168.1.1/24 "
		"--wan 1=203.0.113.2/24 \\\n    --route default,203.0.113.1\n\n"
		"Options (also the keys of a --config file, without the "
		"dashes):\n", prog, prog);
	for (i = 0; i < RTE_DIM(opt_defs); i++) {
		d = &opt_defs[i];
		fprintf(f, "  --%s%s%s\n%*s", d->name, d->arg[0] ? " " : "",
			d->arg, HELP_INDENT, "");
		snprintf(text, sizeof(text), "%s%s%s%s", d->help,
			 *dflt_of(d, b, sizeof(b)) ? " (default: " : "",
			 dflt_of(d, b, sizeof(b)),
			 *dflt_of(d, b, sizeof(b)) ? ")" : "");
		wrap(f, text, HELP_INDENT, HELP_INDENT);
	}
}

void
cpe_opts_rst(FILE *f)
{
	const struct cpe_opt_def *d;
	char text[1024], key[64], b[32];
	size_t i;

	for (i = 0; i < RTE_DIM(opt_defs); i++) {
		d = &opt_defs[i];
		fprintf(f, "``--%s%s%s``\n   ", d->name, d->arg[0] ? " " : "",
			d->arg);
		snprintf(key, sizeof(key), " Config key: ``%s``.", d->name);
		snprintf(text, sizeof(text), "%s.%s%s%s%s", d->help,
			 *dflt_of(d, b, sizeof(b)) ? " Default: " : "",
			 dflt_of(d, b, sizeof(b)),
			 *dflt_of(d, b, sizeof(b)) ? "." : "",
			 /* What the command line alone takes: no key. */
			 d->kind == OPT_FN && d->fn == NULL ?
			 " Command line only." : key);
		wrap(f, text, 3, 3);
		fputc('\n', f);
	}
}
