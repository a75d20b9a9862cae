/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CDC_CTRL_H
#define CH39X_CDC_CTRL_H

/*
 * What the MBIM device type (ch39x_mbim_ctrl.c) takes from the CDC ones
 * (ch39x_cdc_ctrl.c): the function brought up as cdc_ncm does (data
 * interface, NTB parameters and sizes, the datagram size), and the NTB
 * parser and builder of its queues (IP session NDPs for MBIM).
 */

#include "ch39x_adapter.h"
#include "ch39x_rx.h"
#include "ch39x_tx.h"

int ch39x_cdc_init(struct ch39x_adapter *ad);
void ch39x_ncm_rxq_init(struct ch39x_adapter *ad, struct ch39x_rxq *q);
int ch39x_ncm_txq_init(struct ch39x_adapter *ad, struct ch39x_txq *q);

#endif /* CH39X_CDC_CTRL_H */
