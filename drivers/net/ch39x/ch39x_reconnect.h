/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_RECONNECT_H
#define CH39X_RECONNECT_H

/* reconnect=on: the wait for the device's return (ch39x_reconnect.c). */

#include <stdbool.h>

#include "ch39x_adapter.h"

bool ch39x_reconnect_on(const struct ch39x_adapter *ad);
/* The device is gone: the port waits for it (once per absence). */
void ch39x_reconnect_begin(struct ch39x_adapter *ad);
/* A device arrived: look now. */
void ch39x_reconnect_kick(struct ch39x_adapter *ad);
void ch39x_reconnect_cancel(struct ch39x_adapter *ad);

#endif /* CH39X_RECONNECT_H */
