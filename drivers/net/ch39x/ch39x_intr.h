/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_INTR_H
#define CH39X_INTR_H

/* The interrupt IN endpoint and its alarm (ch39x_intr.c). */

#include <stdbool.h>

#include "ch39x_adapter.h"

int ch39x_intr_submit(struct ch39x_adapter *ad);
/* Completed interrupt transfers to the device type, resubmitted. */
void ch39x_intr_poll(struct ch39x_adapter *ad);
void ch39x_intr_alarm_start(struct ch39x_adapter *ad);
/* Back to the short period (a disarm without the transport's hook). */
void ch39x_intr_alarm_fast(struct ch39x_adapter *ad);
void ch39x_intr_stop(struct ch39x_adapter *ad);

#endif /* CH39X_INTR_H */
