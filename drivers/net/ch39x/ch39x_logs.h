/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_LOGS_H
#define CH39X_LOGS_H

#include <rte_log.h>

extern int ch39x_logtype;

#define PMD_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_ ## level, ch39x_logtype, "ch39x: " fmt "\n", \
		##__VA_ARGS__)

/* Data-path logs cost a branch per frame: compiled out unless asked for. */
#ifdef RTE_ETHDEV_DEBUG_RX
#define PMD_RX_LOG(level, fmt, ...) PMD_LOG(level, "rx: " fmt, ##__VA_ARGS__)
#else
#define PMD_RX_LOG(level, fmt, ...) do { } while (0)
#endif

#ifdef RTE_ETHDEV_DEBUG_TX
#define PMD_TX_LOG(level, fmt, ...) PMD_LOG(level, "tx: " fmt, ##__VA_ARGS__)
#else
#define PMD_TX_LOG(level, fmt, ...) do { } while (0)
#endif

#endif /* CH39X_LOGS_H */
