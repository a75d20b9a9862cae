/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Where the driver API moved between the DPDK LTS releases the PMD builds
 * against (22.11, 23.11, 24.11, 25.11; scripts/dpdk-lts.sh). Each entry
 * names the release that changed it; the code uses the newest form.
 */

#ifndef CH39X_COMPAT_H
#define CH39X_COMPAT_H

#include <rte_version.h>

#include <ethdev_driver.h>

/*
 * stats_get. DPDK 25.11 took the per-queue counters (q_ipackets, ...) out
 * of struct rte_eth_stats into struct eth_queue_stats, passed as a third
 * argument that is NULL when the caller (rte_eth_stats_get) wants none.
 * Before, they were in struct rte_eth_stats itself. Define the function as
 *
 *	int
 *	ch39x_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st
 *			CH39X_QSTATS_PARAM)
 *	{
 *		ch39x_qstats *qs = CH39X_QSTATS(st);
 *
 *		if (qs != NULL)
 *			qs->q_ipackets[0] = ...;
 */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
typedef struct eth_queue_stats ch39x_qstats;
#define CH39X_QSTATS_PARAM , struct eth_queue_stats *ch39x_qstats_arg
#define CH39X_QSTATS(st) ((void)(st), ch39x_qstats_arg)
#else
typedef struct rte_eth_stats ch39x_qstats;
#define CH39X_QSTATS_PARAM
#define CH39X_QSTATS(st) (st)
#endif

/*
 * dev_supported_ptypes_get. DPDK 24.03 added a second argument through
 * which the driver says how many entries its array has; ethdev then reads
 * that many and no longer looks for the RTE_PTYPE_UNKNOWN end mark, which
 * 22.11 and 23.11 need. Define the function as
 *
 *	const uint32_t *
 *	ch39x_dev_supported_ptypes_get(struct rte_eth_dev *dev
 *				       CH39X_PTYPES_PARAM)
 *	{
 *		CH39X_PTYPES_COUNT(n);	(n: entries before the end mark)
 *		return list;		(ending with RTE_PTYPE_UNKNOWN)
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 3, 0, 0)
#define CH39X_PTYPES_PARAM , size_t *ch39x_ptypes_n
#define CH39X_PTYPES_COUNT(n) (*ch39x_ptypes_n = (n))
#else
#define CH39X_PTYPES_PARAM
#define CH39X_PTYPES_COUNT(n) ((void)(n))
#endif

/*
 * Telemetry. DPDK 23.03 added rte_tel_data_add_dict_uint, and 23.11
 * deprecated rte_tel_data_add_dict_u64 for it (25.11 has only the first).
 */
#include <rte_telemetry.h>
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define CH39X_TEL_U64 rte_tel_data_add_dict_uint
#else
#define CH39X_TEL_U64 rte_tel_data_add_dict_u64
#endif

/*
 * Control threads. DPDK 23.11 added rte_thread_create_control() (an
 * rte_thread_t, a function returning uint32_t) and 24.11 removed
 * rte_ctrl_thread_create() (a pthread_t). Both place the thread on the
 * CPUs EAL gave no lcore. Define the function as
 *
 *	static CH39X_THREAD_RET fn(void *arg) { ...; return 0; }
 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
#include <rte_thread.h>
typedef rte_thread_t ch39x_thread_t;
#define CH39X_THREAD_RET uint32_t
static inline int
ch39x_ctrl_thread(ch39x_thread_t *t, const char *name,
		  uint32_t (*fn)(void *), void *arg)
{
	return rte_thread_create_control(t, name, fn, arg);
}
static inline void
ch39x_thread_join(ch39x_thread_t t)
{
	rte_thread_join(t, NULL);
}
#else
#include <pthread.h>
#include <rte_lcore.h>
typedef pthread_t ch39x_thread_t;
#define CH39X_THREAD_RET void *
static inline int
ch39x_ctrl_thread(ch39x_thread_t *t, const char *name,
		  void *(*fn)(void *), void *arg)
{
	return rte_ctrl_thread_create(t, name, NULL, fn, arg);
}
static inline void
ch39x_thread_join(ch39x_thread_t t)
{
	pthread_join(t, NULL);
}
#endif

#endif /* CH39X_COMPAT_H */
