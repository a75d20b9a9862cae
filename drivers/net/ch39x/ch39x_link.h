/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_LINK_H
#define CH39X_LINK_H

/* The link as the application sees it (ch39x_link.c). */

#include <stdbool.h>
#include <stdint.h>

#include "ch39x_adapter.h"

/* The port's link, without an event (start, stop, a device type's ask). */
void ch39x_set_link(struct ch39x_adapter *ad, bool up, uint32_t speed);
void ch39x_link_report(struct ch39x_adapter *ad, bool up, uint32_t speed);

#endif /* CH39X_LINK_H */
