/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_USB_H
#define CH39X_USB_H

/*
 * The USB transport: an ops table with one implementation per backend, as
 * virtio_user has pluggable vhost backends. It knows endpoints and
 * transfers, never framing. Backends: the simulated adapter (ch39x_sim.h);
 * libusb comes behind the same ops.
 *
 * Threads: the control thread opens, closes and sends control requests.
 * Each endpoint's transfers are submitted, cancelled and polled by exactly
 * one thread at a time: bulk IN by the RX lcore, bulk OUT by the TX lcore,
 * interrupt IN by the control thread (an EAL alarm). A backend keeps one
 * completion queue per endpoint so that these threads never share one.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ch39x_ep {
	CH39X_EP_BULK_IN = 0,
	CH39X_EP_BULK_OUT = 1,
	CH39X_EP_INTR_IN = 2,
	CH39X_EP_COUNT = 3,
};

/* How Ethernet frames travel in bulk transfers. */
enum ch39x_framing {
	CH39X_FRAMING_VENDOR = 0,	/* CH39x records (ch39x_vendor.h) */
	CH39X_FRAMING_NCM,		/* CDC-NCM NTBs (ch39x_ncm.h) */
	CH39X_FRAMING_ECM,		/* CDC-ECM, a frame per transfer */
	CH39X_FRAMING_RNDIS,		/* RNDIS messages (ch39x_rndis.h) */
	CH39X_FRAMING_MBIM,		/* MBIM: IP sessions in NTBs (§21) */
};
/* In a looked-up identity: the device offers none of the asked ones. */
#define CH39X_FRAMING_NONE	0xff

struct ch39x_cdc_desc;

enum ch39x_xfer_status {
	CH39X_XFER_OK = 0,
	CH39X_XFER_ERROR,	/* any other failure */
	CH39X_XFER_STALL,
	CH39X_XFER_TIMEOUT,
	CH39X_XFER_OVERFLOW,	/* babble: more data than the buffer */
	CH39X_XFER_CANCELLED,
	CH39X_XFER_NO_DEVICE,	/* the device is gone */
};

struct ch39x_usb_dev;

/* One transfer; owned by the caller, lent to the backend while in flight. */
struct ch39x_xfer {
	enum ch39x_ep ep;
	uint8_t *buf;
	uint32_t len;		/* bytes to send, or buffer size for IN */
	uint32_t actual;	/* bytes transferred, set at completion */
	enum ch39x_xfer_status status;
	bool zlp;		/* OUT: end with a zero-length packet */
	bool in_flight;
	void *user;		/* the caller's */
	struct ch39x_xfer *next; /* backend's queue link while in flight */
	uint64_t backend_ns;	/* backend's own time stamp while in flight */
};

/* What the enumerated device says about itself. */
struct ch39x_usb_info {
	uint16_t vid;
	uint16_t pid;
	uint16_t bcd_device;
	uint8_t config_value;	/* active bConfigurationValue */
	uint8_t speed;		/* enum ch39x_usb_speed */
	uint16_t maxp[CH39X_EP_COUNT];
	uint8_t intr_interval_ms;
	uint8_t framing;	/* enum ch39x_framing */
	char serial[64];
};

/*
 * What a transfer buffer from a backend's buf_alloc is. Neither kind is
 * EAL memory and neither is physically contiguous or pinned for another
 * device's DMA: an application running EAL in IOVA-as-VA mode may take the
 * buffer's virtual address as its IOVA; under IOVA-as-PA it has none that
 * a driver could give to an mbuf (the PMD then attaches no mbuf to it).
 */
enum ch39x_buf_kind {
	/* Process heap: the kernel copies it per transfer. */
	CH39X_BUF_HEAP = 0,
	/*
	 * usbfs memory mapped from the kernel: the host controller moves
	 * data straight from and into it, no copy per transfer.
	 */
	CH39X_BUF_USBFS,
};

struct ch39x_usb_ops {
	const char *name;
	/* Control thread. Returns 0 or a negative errno. */
	int (*get_info)(struct ch39x_usb_dev *d, struct ch39x_usb_info *info);
	/*
	 * Control thread. A control transfer on EP0; returns the number of
	 * data bytes transferred or a negative errno (-ENODEV once gone).
	 */
	int (*control)(struct ch39x_usb_dev *d, uint8_t req_type,
		       uint8_t request, uint16_t value, uint16_t index,
		       void *data, uint16_t length, unsigned int timeout_ms);
	/* The endpoint's owning thread. Returns 0 or a negative errno. */
	int (*submit)(struct ch39x_usb_dev *d, struct ch39x_xfer *x);
	/*
	 * The endpoint's owning thread. Cancels every transfer in flight on
	 * ep; they complete with CH39X_XFER_CANCELLED at a later poll.
	 */
	void (*cancel_all)(struct ch39x_usb_dev *d, enum ch39x_ep ep);
	/*
	 * The endpoint's owning thread. Never blocks: returns up to max
	 * completed transfers of ep in *done, in completion order.
	 */
	unsigned int (*poll)(struct ch39x_usb_dev *d, enum ch39x_ep ep,
			     struct ch39x_xfer **done, unsigned int max);
	/*
	 * The endpoint's owning thread; NULL where the backend has no
	 * cheaper way than poll. As poll, but only the transfers an earlier
	 * poll (of any endpoint of the device) has already collected: it
	 * never asks the kernel, so it costs no system call. For bulk OUT,
	 * whose completions the bulk IN poll collects anyway: TX asks the
	 * kernel only when it has no free transfer.
	 */
	unsigned int (*collect)(struct ch39x_usb_dev *d, enum ch39x_ep ep,
				struct ch39x_xfer **done, unsigned int max);
	/*
	 * The endpoint's owning thread: CLEAR_FEATURE(ENDPOINT_HALT) after a
	 * stall, so that transfers can flow again. Returns 0 or a negative
	 * errno.
	 */
	int (*clear_halt)(struct ch39x_usb_dev *d, enum ch39x_ep ep);
	/* Control thread: after every endpoint is idle. */
	void (*close)(struct ch39x_usb_dev *d);
	/*
	 * Control thread. CDC devices: the walked descriptors (interfaces,
	 * endpoints, functional descriptors). -ENOTSUP for vendor framing.
	 */
	int (*get_cdc)(struct ch39x_usb_dev *d, struct ch39x_cdc_desc *cdc);
	/*
	 * Control thread, with nothing in flight on the bulk endpoints. CDC
	 * devices: select the data interface's alt setting, 1 (the one with
	 * the bulk endpoints: data flows) or 0 (the function is reset, the
	 * bulk endpoints vanish). Returns 0 or a negative errno; -ENOTSUP
	 * for vendor framing. RNDIS: a no-op returning 0 (one alt setting,
	 * the bulk pair in it; its reset is a message, §18.1).
	 */
	int (*set_data_alt)(struct ch39x_usb_dev *d, uint8_t alt);
	/*
	 * RX wake-ups, for Rx interrupts; both NULL where the backend has
	 * none. rx_wake_fd, control thread: a file descriptor that becomes
	 * readable (EPOLLIN, edge) while armed when bulk IN data may be
	 * waiting, and when the interrupt endpoint may have news (a link
	 * change: the PMD then looks for link events only after the disarm
	 * that follows); the backend owns it (closed at close), or a
	 * negative errno.
	 */
	int (*rx_wake_fd)(struct ch39x_usb_dev *d);
	/*
	 * rx_arm, the bulk IN endpoint's owning thread: arm (on) or disarm
	 * the wake-up. Arming while data is already waiting signals at once,
	 * so none is lost between the last poll and the sleep; disarming
	 * clears the signal. The caller disarms after each wait, before it
	 * polls again (as l3fwd-power does): the backend may rely on the
	 * polls made since the disarm (the libusb backend skips its own look
	 * at arming when a bulk IN poll made one since).
	 */
	void (*rx_arm)(struct ch39x_usb_dev *d, bool on);
	/*
	 * intr_hook, control thread, before the interrupt transfer is
	 * submitted: fn(arg) is called, on whichever thread reaps it, each
	 * time a transfer on the interrupt endpoint completes (it must not
	 * call back into the transport). NULL where the backend completes
	 * them only in poll of that endpoint (the simulated adapter).
	 */
	void (*intr_hook)(struct ch39x_usb_dev *d, void (*fn)(void *arg),
			  void *arg);
	/*
	 * event_rounds, any thread; NULL where the backend has no
	 * intr_hook. How many times any thread has looked for the device's
	 * finished transfers (libusb: event rounds, made or spared). The
	 * interrupt endpoint's poller compares it across its own looks: when
	 * another thread's looks moved it (the application's bursts), those
	 * reap the interrupt transfer too and intr_hook brings the news, so
	 * the poller need not look often.
	 */
	uint64_t (*event_rounds)(struct ch39x_usb_dev *d);
	/*
	 * Transfer buffers, both NULL where the caller allocates its own.
	 * Control thread, with no bulk transfer in flight (queue set-up,
	 * resize and release). buf_alloc: a buffer of size bytes for bulk IN
	 * or OUT transfers, at least 64-byte aligned, and its kind in *kind;
	 * NULL when out of memory. buf_free: gives back a buffer of buf_alloc
	 * (NULL: nothing). Buffers not given back are freed by close.
	 */
	uint8_t *(*buf_alloc)(struct ch39x_usb_dev *d, size_t size,
			      enum ch39x_buf_kind *kind);
	void (*buf_free)(struct ch39x_usb_dev *d, uint8_t *buf);
	/*
	 * A device's return, both NULL where the backend cannot see one.
	 * Control thread, after the device left the bus (-ENODEV) and with
	 * nothing in flight. lookup: whether a device is in the port's place
	 * on the bus again (the place as the backend chose the device at
	 * open: its serial number or its bus path) and who it says it is,
	 * without taking it; 0 and *info (framing CH39X_FRAMING_NONE when it
	 * offers none that was asked for), or -ENODEV. reattach: take the
	 * device lookup saw, as open took the first one, into the same
	 * handle: endpoints, transfer pools, buffers and the RX wake-up
	 * descriptor stay valid. 0, or a negative errno and why in err (the
	 * handle then stays as gone as before).
	 */
	int (*lookup)(struct ch39x_usb_dev *d, struct ch39x_usb_info *info);
	int (*reattach)(struct ch39x_usb_dev *d, char *err, size_t errlen);
	/*
	 * The bus's news, both NULL where the backend has none (the PMD then
	 * asks a port's device whether it is there, with a request, while
	 * nothing else would notice its removal). Control thread. bus_fd: a
	 * descriptor that is readable (level) while news waits, the
	 * backend's (closed at close); or a negative errno, and why in err.
	 * bus_read: takes what waits, as CH39X_BUS_* bits.
	 */
	int (*bus_fd)(struct ch39x_usb_dev *d, char *err, size_t errlen);
	unsigned int (*bus_read)(struct ch39x_usb_dev *d);
};

/* bus_read's news. */
/* The handle's device left the bus, or is no longer the handle's. */
#define CH39X_BUS_GONE		(1u << 0)
/* A device arrived or changed: one in the port's place may be back. */
#define CH39X_BUS_ARRIVED	(1u << 1)
/* News was lost (a full socket buffer): look for yourself. */
#define CH39X_BUS_LOST		(1u << 2)

/* Every backend's device handle starts with this. */
struct ch39x_usb_dev {
	const struct ch39x_usb_ops *ops;
	/* Pause the chip needs after a vendor request (V1.7: 3 ms). */
	unsigned int ctrl_delay_us;
};

#endif /* CH39X_USB_H */
