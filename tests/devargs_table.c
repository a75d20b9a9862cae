/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * ch39x-devargs: the PMD's devargs table (CH39X_DEVARGS in
 * drivers/net/ch39x/ch39x_devargs.h) printed, and checked against its own
 * parsers. Built in from ch39x_devargs.c as the devargs fuzzer is: it needs
 * rte_kvargs and rte_log only, no EAL.
 *
 *   --keys      one key a line (tests/check_devargs_doc.py reads them)
 *   --markdown  the table of README.md's "Device arguments" section
 *   --params    the PMD's parameter string
 *   --check     every number range of the table is the one its parser
 *               takes and the one its texts name; exit 1 otherwise
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "ch39x_devargs.h"

/* The PMD registers it; here the parser's messages are silenced. */
int ch39x_logtype;

static int failures;

static void
fail(const struct ch39x_devarg *d, const char *what)
{
	fprintf(stderr, "ch39x-devargs: %s: %s\n", d->key, what);
	failures++;
}

/* A markdown table cell: a '|' would end it. */
static void
cell(const char *s)
{
	putchar(' ');
	for (; *s != '\0'; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
	fputs(" |", stdout);
}

static void
print_markdown(void)
{
	unsigned int i;

	puts("| Key | Values | Default | Meaning |");
	puts("|---|---|---|---|");
	for (i = 0; i < CH39X_DA_COUNT; i++) {
		printf("| `%s` |", ch39x_devargs[i].key);
		cell(ch39x_devargs[i].allowed);
		cell(ch39x_devargs[i].def);
		cell(ch39x_devargs[i].help);
		putchar('\n');
	}
}

/* The row's own parser, on a fresh result. */
static int
parse_one(const struct ch39x_devarg *d, unsigned long n)
{
	struct ch39x_args a;
	char v[32];

	memset(&a, 0, sizeof(a));
	snprintf(v, sizeof(v), "%lu", n);
	return d->parse(d, v, &a);
}

/*
 * A number row (its parameter string syntax starts "<LO-" or "0|<LO-"):
 * LO and HI are taken, LO - 1 and HI + 1 are not, the field holds HI, and
 * both texts name the range.
 */
static void
check_range(const struct ch39x_devarg *d)
{
	char words[64], syntax[64];

	snprintf(words, sizeof(words), "%lu..%lu", d->lo, d->hi);
	snprintf(syntax, sizeof(syntax), "<%lu-%lu", d->lo, d->hi);
	if (strstr(d->allowed, words) == NULL)
		fail(d, "its allowed values do not name its range");
	if (strncmp(d->values, syntax, strlen(syntax)) != 0 &&
	    !(strncmp(d->values, "0|", 2) == 0 &&
	      strncmp(d->values + 2, syntax, strlen(syntax)) == 0))
		fail(d, "its parameter string does not name its range");
	if (d->size < sizeof(uint32_t) && d->hi >> (8 * d->size) != 0)
		fail(d, "its largest value does not fit its field");
	if (parse_one(d, d->lo) != 0 || parse_one(d, d->hi) != 0)
		fail(d, "its parser refuses an end of its range");
	if ((d->lo > 0 && parse_one(d, d->lo - 1) == 0) ||
	    parse_one(d, d->hi + 1) == 0)
		fail(d, "its parser takes a value out of its range");
}

static int
check(void)
{
	static const char params[] = CH39X_PMD_PARAMS;
	char built[sizeof(params) + 1] = "";
	const struct ch39x_devarg *d;
	unsigned int i, j;

	for (i = 0; i < CH39X_DA_COUNT; i++) {
		d = &ch39x_devargs[i];
		for (j = 0; j < i; j++)
			if (strcmp(d->key, ch39x_devargs[j].key) == 0)
				fail(d, "listed twice");
		if (d->parse == NULL || d->values[0] == '\0' ||
		    d->allowed[0] == '\0' || d->def[0] == '\0' ||
		    d->help[0] == '\0')
			fail(d, "a column is empty");
		if ((d->values[0] == '<' && d->values[1] >= '0' &&
		     d->values[1] <= '9') || strncmp(d->values, "0|<", 3) == 0)
			check_range(d);
		if (strlen(built) + strlen(d->key) + strlen(d->values) + 2 <
		    sizeof(built))
			snprintf(built + strlen(built),
				 sizeof(built) - strlen(built), "%s%s=%s",
				 i > 0 ? " " : "", d->key, d->values);
	}
	if (strcmp(built, params) != 0) {
		fprintf(stderr, "ch39x-devargs: CH39X_PMD_PARAMS is not the "
			"table's keys and values\n");
		failures++;
	}
	return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
main(int argc, char **argv)
{
	unsigned int i;

	rte_log_set_global_level(RTE_LOG_EMERG);
	if (argc == 2 && strcmp(argv[1], "--keys") == 0) {
		for (i = 0; i < CH39X_DA_COUNT; i++)
			puts(ch39x_devargs[i].key);
	} else if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
		print_markdown();
	} else if (argc == 2 && strcmp(argv[1], "--params") == 0) {
		puts(CH39X_PMD_PARAMS);
	} else if (argc == 2 && strcmp(argv[1], "--check") == 0) {
		return check();
	} else {
		fprintf(stderr, "usage: %s --keys|--markdown|--params|--check\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
