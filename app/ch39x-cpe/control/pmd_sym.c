/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The PMD's functions by name (pmd_sym.h). */

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>

#include "pmd_sym.h"

#define SO_NAMES_MAX		256

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
void *
cpe_pmd_sym(const char *fn)
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

