/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_INFO_H
#define CH39X_INFO_H

/* What the port tells, primary and secondary processes (ch39x_info.c). */

#include <stdint.h>
#include <stdio.h>

#include <ethdev_driver.h>

#include "ch39x_compat.h"

int ch39x_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info);
int ch39x_fw_version_get(struct rte_eth_dev *dev, char *fw, size_t size);
void ch39x_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_rxq_info *qi);
void ch39x_txq_info_get(struct rte_eth_dev *dev, uint16_t qid,
			struct rte_eth_txq_info *qi);
int ch39x_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			    struct rte_eth_burst_mode *mode);
int ch39x_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			    struct rte_eth_burst_mode *mode);
const uint32_t *ch39x_dev_supported_ptypes_get(struct rte_eth_dev *dev
					       CH39X_PTYPES_PARAM);
int ch39x_dev_ptypes_set(struct rte_eth_dev *dev, uint32_t ptype_mask);
int ch39x_flow_ctrl_get(struct rte_eth_dev *dev, struct rte_eth_fc_conf *fc);
int ch39x_flow_ctrl_set(struct rte_eth_dev *dev, struct rte_eth_fc_conf *fc);
int ch39x_priv_dump(struct rte_eth_dev *dev, FILE *f);

#endif /* CH39X_INFO_H */
