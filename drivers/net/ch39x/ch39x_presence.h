/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_PRESENCE_H
#define CH39X_PRESENCE_H

/* The device's presence and removal (ch39x_presence.c). */

#include <stdbool.h>

#include "ch39x_adapter.h"

/* The device is gone (gone set): RMV, or the wait for its return. */
void ch39x_rmv_notify(struct ch39x_adapter *ad);
/* The presence alarm, while not started (none with the bus's events). */
void ch39x_presence_watch(struct ch39x_adapter *ad);
void ch39x_presence_unwatch(struct ch39x_adapter *ad);
/* The bus's events (presence=events), probe to close. */
void ch39x_bus_watch(struct ch39x_adapter *ad);
void ch39x_bus_unwatch(struct ch39x_adapter *ad);

#endif /* CH39X_PRESENCE_H */
