/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef RTE_PMD_CH39X_H
#define RTE_PMD_CH39X_H

/**
 * @file
 * Extra API of the net_ch39x PMD.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Plug or pull the cable of a simulated adapter (sim=...), as a person
 * would at the RJ45 jack. The link goes down on both ends of a pair and an
 * RTE_ETH_EVENT_INTR_LSC follows from the interrupt endpoint.
 *
 * @param port_id
 *   A net_ch39x port.
 * @param plugged
 *   Non-zero to plug the cable in, zero to pull it.
 * @return
 *   0 on success, -ENODEV for a bad port, -ENOTSUP when the port is not a
 *   simulated ch39x adapter.
 */
int rte_pmd_ch39x_sim_set_cable(uint16_t port_id, int plugged);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_CH39X_H */
