/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_XSTATS_H
#define CH39X_XSTATS_H

/* Basic and extended statistics (ch39x_xstats.c). */

#include <stddef.h>
#include <stdint.h>

#include <ethdev_driver.h>

#include "ch39x_compat.h"

/* One extended statistic: a counter at off in its source, or computed. */
enum ch39x_xs_src {
	CH39X_XS_RX, CH39X_XS_PARSER, CH39X_XS_TX, CH39X_XS_AD, CH39X_XS_SIM,
	CH39X_XS_CALC, CH39X_XS_NCM_RX, CH39X_XS_NCM_TX, CH39X_XS_ECM_RX,
};

struct ch39x_xs_def {
	char name[RTE_ETH_XSTATS_NAME_SIZE];
	enum ch39x_xs_src src;
	size_t off;
};

struct ch39x_xs_table {
	const struct ch39x_xs_def *d;
	unsigned int n;
};

/* ch39x_xstats.c */
int ch39x_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *st
		    CH39X_QSTATS_PARAM);
int ch39x_stats_reset(struct rte_eth_dev *dev);
int ch39x_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		     unsigned int size);
int ch39x_xstats_get_names(struct rte_eth_dev *dev,
			   struct rte_eth_xstat_name *names,
			   unsigned int size);
extern const struct ch39x_xs_table ch39x_xs_ncm;
extern const struct ch39x_xs_table ch39x_xs_ecm;

#endif /* CH39X_XSTATS_H */
