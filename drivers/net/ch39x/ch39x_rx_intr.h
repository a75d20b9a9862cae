/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_RX_INTR_H
#define CH39X_RX_INTR_H

/* Rx interrupts (ch39x_rx_intr.c). */

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>

int ch39x_rx_intr_init(struct rte_eth_dev *dev);
void ch39x_rx_intr_uninit(struct rte_eth_dev *dev);
/* At start: the wake-up descriptor as the queue's event fd, if asked. */
int ch39x_rx_intr_setup(struct rte_eth_dev *dev);
int ch39x_rx_arm(struct rte_eth_dev *dev, bool on);
int ch39x_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t qid);
int ch39x_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t qid);

#endif /* CH39X_RX_INTR_H */
