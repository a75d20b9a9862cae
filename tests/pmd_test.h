/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * What the in-process PMD test programs (test_pmd.c, test_link.c,
 * test_bond.c) share: the check counters and macro, the port lookup by
 * device name, an xstat by name and the event counter callback.
 */

#ifndef CH39X_PMD_TEST_H
#define CH39X_PMD_TEST_H

#include <stdio.h>

#include <rte_ethdev.h>

static unsigned int passed, failed;

#define CHECK(cond, ...) do { \
	if (cond) { \
		passed++; \
	} else { \
		failed++; \
		printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__); \
		printf("\n"); \
	} \
} while (0)

/* The port of a device name, or RTE_MAX_ETHPORTS. */
static inline uint16_t
port_of(const char *name)
{
	uint16_t id = RTE_MAX_ETHPORTS;

	if (rte_eth_dev_get_port_by_name(name, &id) != 0)
		return RTE_MAX_ETHPORTS;
	return id;
}

/* An xstat of a port by name, or UINT64_MAX. */
static inline uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0 ||
	    rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* Counts the events of a port in the per-port array given as arg. */
static inline int
event_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	int *count = arg;

	(void)type;
	(void)ret;
	__atomic_fetch_add(&count[port], 1, __ATOMIC_RELAXED);
	return 0;
}

#endif /* CH39X_PMD_TEST_H */
