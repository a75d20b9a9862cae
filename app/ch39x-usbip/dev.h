/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_USBIP_DEV_H
#define CH39X_USBIP_DEV_H

/*
 * One exported device: a simulated adapter (lib/ch39x_sim) behind the
 * transport ops of ch39x_usb.h, served as a USB device to a USB/IP client.
 * It plays the device side of USB 2.0 chapter 9 that the transport does
 * not model (configuration, interface settings, status) and passes the
 * rest to the model as a host would: GET_DESCRIPTOR and every class or
 * vendor request to its control op, SET_INTERFACE of the data interface
 * to set_data_alt, CLEAR_FEATURE(ENDPOINT_HALT) to clear_halt, and each
 * bulk or interrupt URB to submit, its completion from poll back as
 * RET_SUBMIT. Nothing here knows a personality: the endpoints are the
 * first bulk IN, bulk OUT and interrupt IN of the model's configuration
 * descriptor, the data interface the one with the bulk pair.
 *
 * One thread owns a device and everything it calls.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ch39x_sim.h"
#include "usbip.h"

struct uip_dev;

/*
 * Where a device's replies go: one message, a header and data (len bytes,
 * or none). Returns 0, or -1 when the client is gone.
 */
typedef int (*uip_send_fn)(void *arg, const uint8_t hdr[USBIP_HDR_LEN],
			   const uint8_t *data, uint32_t len);

/*
 * Open the model cfg describes and read who it is (descriptors through its
 * own GET_DESCRIPTOR). NULL with the reason in err.
 */
struct uip_dev *uip_dev_open(const char *busid,
			     const struct ch39x_sim_config *cfg, char *err,
			     size_t errlen);
void uip_dev_close(struct uip_dev *d);

const char *uip_dev_busid(const struct uip_dev *d);
/* The model's transport handle (its counters, faults, cable). */
struct ch39x_usb_dev *uip_dev_model(struct uip_dev *d);
/* The device as OP_REP_DEVLIST and OP_REP_IMPORT describe it. */
void uip_dev_exported(const struct uip_dev *d, struct usbip_exported *e);

/* A client imported it: its replies go to send(arg) from now on. */
void uip_dev_attach(struct uip_dev *d, uip_send_fn send, void *arg);
/*
 * The client is gone (its connection closed, or it detached the port):
 * every URB in flight is cancelled without a reply and the function reset,
 * as when the device leaves a host's port.
 */
void uip_dev_detach(struct uip_dev *d);
bool uip_dev_attached(const struct uip_dev *d);

/*
 * One command of the client, parsed (usbip_cmd_parse), with its OUT data.
 * Returns 0, or -1 when a reply could not be sent.
 */
int uip_dev_command(struct uip_dev *d, const struct usbip_cmd *c,
		    const uint8_t *payload);
/*
 * Take the model's finished transfers and send their replies. Returns the
 * number of URBs given back, or -1 when a reply could not be sent.
 */
int uip_dev_service(struct uip_dev *d);

/*
 * The wait between services. uip_dev_wake_fd: a descriptor that becomes
 * readable (edge) when an IN transfer may have news, once armed, or -1.
 * uip_dev_arm: arm it before the wait (when IN URBs are in flight),
 * disarm after. uip_dev_timeout_ms: how long the wait may last at most
 * (-1: until the client or the wake-up says something).
 */
int uip_dev_wake_fd(struct uip_dev *d);
void uip_dev_arm(struct uip_dev *d, bool on);
int uip_dev_timeout_ms(const struct uip_dev *d);

/*
 * Counters as "BUSID.name=value" lines: the URBs and requests served, and
 * the model's own counters (prefix model_).
 */
void uip_dev_stats(struct uip_dev *d, FILE *f);

#endif /* CH39X_USBIP_DEV_H */
