/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_PMD_SYM_H
#define CPE_PMD_SYM_H

/*
 * A function of the loaded net_ch39x PMD (rte_pmd_ch39x.h), looked up
 * at run time so that the router runs with any PMD (or none of ours):
 * NULL when none is loaded.
 */
void *cpe_pmd_sym(const char *fn);

#endif /* CPE_PMD_SYM_H */
