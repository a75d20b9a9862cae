/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_CTRL_H
#define CH39X_CTRL_H

/* Control every device type shares (ch39x_ctrl.c). */

#include <stdbool.h>
#include <stdint.h>

#include "ch39x_adapter.h"

/*
 * One request on the default pipe; the bytes of the data stage or a
 * negative errno (-ENODEV: the device is gone, and marked so).
 */
int ch39x_control(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
		  uint16_t value, uint16_t index, void *data, uint16_t len,
		  const char *what, bool quiet);
/*
 * As ch39x_control, for a request whose stall is an answer, not a
 * failure (RNDIS's GET_ENCAPSULATED_RESPONSE on an empty queue: f_rndis
 * stalls it): -EPIPE is returned, neither counted in ctrl_errors nor
 * logged; every other failure is, quietly.
 */
int ch39x_control_may_stall(struct ch39x_adapter *ad, uint8_t type,
			    uint8_t req, uint16_t value, uint16_t index,
			    void *data, uint16_t len, const char *what);
/* The receive filters as the port has them, into the device. */
int ch39x_program_rx_mode(struct ch39x_adapter *ad);
/* Identify the device type from the transport and run its init. */
int ch39x_hw_init(struct ch39x_adapter *ad);

#endif /* CH39X_CTRL_H */
