/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The RX queue's life cycle (ch39x_rxq.c), control thread. */

#ifndef CH39X_RXQ_H
#define CH39X_RXQ_H

#include <stdint.h>

#include <ethdev_driver.h>

#include "ch39x_rx.h"
#include "ch39x_usb.h"

int ch39x_rxq_alloc(struct ch39x_adapter *ad, struct ch39x_rxq *q,
		    uint16_t nb_desc);
int ch39x_rxq_bind(struct rte_eth_dev *dev, struct ch39x_rxq *q);
void ch39x_rxq_free(struct ch39x_rxq *q);
int ch39x_rxq_resize(struct ch39x_adapter *ad, uint32_t size);
void ch39x_rxq_stop(struct ch39x_rxq *q);
int ch39x_rxq_start(struct ch39x_rxq *q);
/* Cancel every transfer of ep and wait (bounded) until all are back. */
void ch39x_drain_ep(struct ch39x_usb_dev *u, enum ch39x_ep ep,
		    struct ch39x_xfer *xs, uint16_t n);

#endif /* CH39X_RXQ_H */
