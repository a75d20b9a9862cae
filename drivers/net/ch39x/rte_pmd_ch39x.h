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

/** USB endpoints of a ch39x adapter. */
enum rte_pmd_ch39x_ep {
	RTE_PMD_CH39X_EP_BULK_IN = 0,
	RTE_PMD_CH39X_EP_BULK_OUT = 1,
	RTE_PMD_CH39X_EP_INTR_IN = 2,
};

/** Faults a simulated adapter can inject (for tests and soak runs). */
enum rte_pmd_ch39x_fault {
	RTE_PMD_CH39X_FAULT_STALL = 1,	/**< endpoint halts until cleared */
	RTE_PMD_CH39X_FAULT_TIMEOUT,
	RTE_PMD_CH39X_FAULT_ERROR,	/**< protocol error on the bus */
	RTE_PMD_CH39X_FAULT_OVERFLOW,	/**< babble (bulk IN only) */
	RTE_PMD_CH39X_FAULT_TRUNCATE,	/**< transfer loses its tail (IN) */
	RTE_PMD_CH39X_FAULT_GARBAGE,	/**< random bytes instead of records (IN) */
	RTE_PMD_CH39X_FAULT_SUBMIT,	/**< submission refused (-ENOMEM) */
};

/**
 * Make the next transfers on an endpoint of a simulated adapter fail.
 *
 * @return
 *   0, -ENODEV (bad port), -ENOTSUP (not a simulated ch39x port) or
 *   -EINVAL (the fault does not apply to that endpoint).
 */
int rte_pmd_ch39x_sim_fault(uint16_t port_id, enum rte_pmd_ch39x_ep ep,
			    enum rte_pmd_ch39x_fault fault, uint32_t count);

/** Make the next count vendor requests of a simulated adapter stall. */
int rte_pmd_ch39x_sim_fail_ctrl(uint16_t port_id, uint32_t count);

/**
 * Unplug a simulated adapter from the USB bus: transfers end with "no
 * device". With reconnect=on (the default) the port's link goes down
 * (RTE_ETH_EVENT_INTR_LSC), TX frames are dropped and counted and the
 * port waits for the device (rte_pmd_ch39x_sim_replug()). With
 * reconnect=off the port reports RTE_ETH_EVENT_INTR_RMV once, stop and
 * close still work, and to use the adapter again the application removes
 * the device (rte_dev_remove) and probes it again (rte_dev_probe).
 */
int rte_pmd_ch39x_sim_unplug(uint16_t port_id);

/** How an unplugged simulated adapter comes back. */
enum rte_pmd_ch39x_replug {
	RTE_PMD_CH39X_REPLUG_SAME = 0,	/**< the same adapter */
	RTE_PMD_CH39X_REPLUG_OTHER_SERIAL, /**< same chip, other serial */
	RTE_PMD_CH39X_REPLUG_OTHER_CHIP, /**< another chip (other PID) */
	/** The same adapter, gone again at its third control request. */
	RTE_PMD_CH39X_REPLUG_FLAKY,
};

/**
 * Put an unplugged simulated adapter back on the bus, in its power-on
 * state (what the PMD programmed is lost, as with a real re-enumeration),
 * with the identity how says. A reconnect=on port finds its own device
 * again and restores itself; another device is refused (a log line says
 * why) and the port keeps waiting.
 *
 * @return
 *   0, -ENODEV (bad port), -ENOTSUP (not a simulated ch39x port) or
 *   -EINVAL (not unplugged, or how unknown).
 */
int rte_pmd_ch39x_sim_replug(uint16_t port_id, enum rte_pmd_ch39x_replug how);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_CH39X_H */
