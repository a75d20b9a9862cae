/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * net_ch39x: what every device type's control shares. The one control
 * request helper (a request is where a gone device is often seen first),
 * the device's identification and init (probe, reset, a device's return)
 * and its receive filters as the port has them. The control thread (the
 * application's, or EAL's interrupt thread for the alarms).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <ethdev_driver.h>

#include "ch39x_adapter.h"
#include "ch39x_ctrl.h"
#include "ch39x_logs.h"

#define CH39X_CTRL_TIMEOUT_MS 500

/*
 * One control request on the default pipe: every request of every device
 * type goes through here, so a gone device, the error counter and the log
 * line are handled once. Returns the bytes of the data stage or a negative
 * errno; quiet keeps an expected refusal (an optional request) out of the
 * log.
 */
static int
ctrl_request(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
	     uint16_t value, uint16_t index, void *data, uint16_t len,
	     const char *what, bool quiet, bool stall_ok)
{
	struct ch39x_usb_dev *u = ad->usb;
	int rc;

	if (ch39x_is_gone(ad))
		return -ENODEV;
	rc = u->ops->control(u, type, req, value, index, data, len,
			     CH39X_CTRL_TIMEOUT_MS);
	if (rc == -ENODEV)
		ch39x_set_gone(ad, true);
	if (rc == -EPIPE && stall_ok)
		return rc;
	if (rc < 0) {
		ad->ctrl_errors++;
		if (!quiet)
			PMD_LOG(ERR, "%s: %s (request 0x%02x, wValue 0x%04x, "
				"wIndex 0x%04x) failed: %s",
				ad->dev->data->name, what, req, value, index,
				strerror(-rc));
	}
	return rc;
}

int
ch39x_control(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
	      uint16_t value, uint16_t index, void *data, uint16_t len,
	      const char *what, bool quiet)
{
	return ctrl_request(ad, type, req, value, index, data, len, what,
			    quiet, false);
}

int
ch39x_control_may_stall(struct ch39x_adapter *ad, uint8_t type, uint8_t req,
			uint16_t value, uint16_t index, void *data,
			uint16_t len, const char *what)
{
	return ctrl_request(ad, type, req, value, index, data, len, what,
			    true, true);
}

int
ch39x_program_rx_mode(struct ch39x_adapter *ad)
{
	const struct rte_eth_dev_data *data = ad->dev->data;

	/* The device is gone: the state is written when it is back. */
	if (ch39x_deferred(ad))
		return 0;

	return ch39x_ops(ad)->rx_mode(ad, data->promiscuous, data->all_multicast);
}

int
ch39x_hw_init(struct ch39x_adapter *ad)
{
	/* The device type, from what the transport says the function is. */
	ad->usb->ops->get_info(ad->usb, &ad->info);
	ad->framing = (enum ch39x_framing)ad->info.framing;
	return ch39x_ops(ad)->init(ad);
}
