/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * A main() for the fuzz harnesses without libFuzzer: runs
 * LLVMFuzzerTestOneInput once over every file named on the command line
 * and every regular file of every directory named there (in name order),
 * so that any compiler can replay a corpus as a regression test.
 *
 * Exits 0 when every input ran (an invariant that fails aborts), 1 when
 * nothing was found to run or a file could not be read.
 */

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static unsigned int n_run;
static unsigned int n_err;

static void
run_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t size = 0, got;
	struct stat st;
	FILE *fp;

	fp = fopen(path, "rb");
	if (fp == NULL || fstat(fileno(fp), &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		n_err++;
		if (fp != NULL)
			fclose(fp);
		return;
	}
	size = (size_t)st.st_size;
	/* Exactly sized, as libFuzzer hands inputs over. */
	buf = malloc(size > 0 ? size : 1);
	if (buf == NULL) {
		fprintf(stderr, "%s: out of memory\n", path);
		n_err++;
		fclose(fp);
		return;
	}
	got = size > 0 ? fread(buf, 1, size, fp) : 0;
	fclose(fp);
	if (got != size) {
		fprintf(stderr, "%s: short read\n", path);
		n_err++;
		free(buf);
		return;
	}
	LLVMFuzzerTestOneInput(buf, size);
	n_run++;
	free(buf);
}

static void
run_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	char *sub;
	int i, n;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		n_err++;
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path);
		return;
	}
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		n_err++;
		return;
	}
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' &&
		    asprintf(&sub, "%s/%s", path, names[i]->d_name) >= 0) {
			if (stat(sub, &st) == 0 && S_ISREG(st.st_mode))
				run_file(sub);
			free(sub);
		}
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR|FILE...\n", argv[0]);
		return 1;
	}
	for (i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("%s: %u inputs replayed, %u errors\n", argv[0], n_run, n_err);
	return n_run > 0 && n_err == 0 ? 0 : 1;
}
