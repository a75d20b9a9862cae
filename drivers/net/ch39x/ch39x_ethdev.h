/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_ETHDEV_H
#define CH39X_ETHDEV_H

/* ch39x_ethdev.c: what the port offers the files beside it. */

#include <stdbool.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"

bool ch39x_eth_dev_is_ours(const struct rte_eth_dev *dev);

#endif /* CH39X_ETHDEV_H */
