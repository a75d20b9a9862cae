/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_LIBUSB_H
#define CH39X_LIBUSB_H

/*
 * The libusb backend of the transport ops (ch39x_usb.h): a real adapter on
 * a Linux USB stack, through usbfs. It opens one device chosen by a
 * selector, switches a CH39x to its vendor configuration when needed (§1),
 * finds the endpoints of the protocol it was opened for
 * (vendor: the first bulk IN, bulk OUT and interrupt IN of alt setting 0;
 * CDC-NCM/ECM: walked with ch39x_cdc_parse_config from the raw
 * configuration descriptor), and takes the interfaces from any kernel
 * driver, logging each one it takes. At close (and when open fails) it
 * hands the device back as it found it: the configuration the kernel had
 * is set again, which makes the kernel bind its drivers to it, or, with no
 * switch, the drivers it took interfaces from are re-attached; unless
 * keep_kernel_driver asks to leave the device as it was used.
 *
 * Transfers are libusb asynchronous transfers. Their callbacks run inside
 * libusb_handle_events on whichever thread happens to handle events (any
 * poll, or the control thread inside a synchronous control request), so
 * each endpoint keeps its in-flight list and completion queue under its
 * own small lock; an endpoint's owning thread (ch39x_usb.h) only ever
 * contends with a callback, never with another endpoint's thread.
 *
 * Who calls what:
 * - control thread: ch39x_libusb_open, every ops except submit, cancel_all,
 *   poll and clear_halt, ch39x_libusb_set_data_alt, ch39x_libusb_get_cdc,
 *   ch39x_libusb_describe, ch39x_libusb_buf_alloc/_buf_free (while no
 *   transfer of any endpoint is in flight: they change the table submit
 *   reads), ch39x_libusb_mem_check, and ops->close after every endpoint is
 *   idle;
 * - an endpoint's owning thread (bulk IN: RX lcore, bulk OUT: TX lcore,
 *   interrupt IN: control thread): ops submit, cancel_all, poll and
 *   clear_halt for that endpoint;
 * - any thread: ch39x_libusb_mem_stats, the parse helpers,
 *   ch39x_libusb_is_libusb, ch39x_libusb_proto. The log callback is called
 *   from whichever thread meets the problem.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ch39x_cdc.h"
#include "ch39x_usb.h"

/* Protocols a device can be opened for; a selector takes a mask of them. */
enum ch39x_libusb_proto {
	CH39X_LIBUSB_VENDOR = 1u << 0,	/* CH39x vendor mode, VID 0x1A86 */
	CH39X_LIBUSB_NCM = 1u << 1,	/* comm 0x02/0x0D + data 0x0A */
	CH39X_LIBUSB_ECM = 1u << 2,	/* comm 0x02/0x06 + data 0x0A */
};
#define CH39X_LIBUSB_CDC (CH39X_LIBUSB_NCM | CH39X_LIBUSB_ECM)
#define CH39X_LIBUSB_ANY (CH39X_LIBUSB_VENDOR | CH39X_LIBUSB_CDC)

/* Default bound on the wait for a device after a configuration switch. */
#define CH39X_LIBUSB_REENUM_MS	5000
/* Longest path: bus, '-', then up to 7 ports (USB 3.0 tier limit). */
#define CH39X_LIBUSB_PATH_MAX	32

/*
 * Which device to open. Every criterion that is set must hold, and exactly
 * one device (hubs never count) must pass them all; otherwise the open
 * fails and the message lists what was found. A device that offers several
 * of the asked protocols (in its configurations) is opened for the first of
 * vendor, NCM, ECM, switching configuration when that one is not active.
 * Of a CDC function only its two interfaces are taken; open logs which
 * function it took and what stays with the kernel.
 */
struct ch39x_libusb_sel {
	uint16_t vid;		/* 0: any (then pid must be 0 too) */
	uint16_t pid;		/* 0: any */
	const char *serial;	/* iSerialNumber; NULL or "": any */
	const char *path;	/* "bus-port[.port...]" as sysfs names it */
	unsigned int protos;	/* CH39X_LIBUSB_* mask; 0: any */
	unsigned int reenum_ms;	/* 0: CH39X_LIBUSB_REENUM_MS */
	/*
	 * false (default): close restores the configuration and the kernel
	 * drivers; true: close leaves the device in the configuration the
	 * backend used and the interfaces without their kernel drivers
	 * (the devarg kernel_driver=keep).
	 */
	bool keep_kernel_driver;
	/*
	 * A composite device (a modem's serial ports and network function, a
	 * phone's, a dock's NCM beside its ECM): has_function picks the
	 * network function whose communication interface is function (its
	 * bInterfaceNumber); without it, the first function of the protocol
	 * chosen. Only that function's interfaces are claimed: every other
	 * one stays with its kernel driver (the devarg function=).
	 */
	bool has_function;
	uint8_t function;
	/*
	 * Problems after open (usbfs memory, failed submits) and each hand-over
	 * between a kernel driver and the backend, one line without a newline;
	 * NULL: written to stderr.
	 */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

/*
 * Control thread. Opens the one device the selector picks and returns its
 * transport handle, or NULL with a message in err. A CDC device is left
 * with its data interface at alt setting 0; call ch39x_libusb_set_data_alt
 * for alt 1 once the alt-0 requests (NCM SET_NTB_FORMAT) are done. The
 * device's ctrl_delay_us is the vendor chip's 3 ms, 0 for CDC.
 */
struct ch39x_usb_dev *ch39x_libusb_open(const struct ch39x_libusb_sel *sel,
					char *err, size_t errlen);

/* Any thread. Whether a transport handle is a libusb device. */
bool ch39x_libusb_is_libusb(const struct ch39x_usb_dev *d);

/* Any thread. The protocol the device was opened for. */
enum ch39x_libusb_proto ch39x_libusb_proto(const struct ch39x_usb_dev *d);

/*
 * Control thread. The walked CDC descriptors (interfaces, endpoints,
 * functional descriptors). Returns 0, or -ENOTSUP for a vendor device.
 */
int ch39x_libusb_get_cdc(struct ch39x_usb_dev *d, struct ch39x_cdc_desc *cdc);

/*
 * Control thread, with the bulk endpoints idle (nothing in flight). Selects
 * the CDC data interface's alt setting: 1 (meaning the one with the bulk
 * endpoints, cdc.data_alt, which is 1 on every known device) creates the
 * bulk endpoints and brings the link up, 0 resets the function. Bulk
 * submits fail with -ENOTCONN while it is 0. Returns 0 or a negative
 * errno (-EBUSY with bulk transfers in flight); -ENOTSUP for a vendor
 * device.
 */
int ch39x_libusb_set_data_alt(struct ch39x_usb_dev *d, uint8_t alt);

/*
 * Control thread. One line about the open device, such as
 * "1209:0001 serial=ncm-0001 path=1-1 ncm config=1 speed=high".
 */
void ch39x_libusb_describe(struct ch39x_usb_dev *d, char *buf, size_t len);

/*
 * Control thread, while no transfer is in flight. A transfer buffer: usbfs
 * memory (libusb_dev_mem_alloc: the kernel moves data straight from it, no
 * copy per transfer) when the kernel offers it, else page-aligned heap.
 * NULL when out of memory; the first heap buffer is logged (usbfs copies
 * each of its transfers). Buffers not freed stay allocated after close (an
 * application may still hold mbufs attached to one). The same as the
 * transport ops buf_alloc and buf_free, which also give the kind.
 */
uint8_t *ch39x_libusb_buf_alloc(struct ch39x_usb_dev *d, size_t size);
void ch39x_libusb_buf_free(struct ch39x_usb_dev *d, uint8_t *buf);

/*
 * What the device holds of the kernel's usbfs memory, which
 * /sys/module/usbcore/parameters/usbfs_memory_mb caps for all processes
 * together (default 16 MiB; 0 there: no cap).
 */
struct ch39x_libusb_mem {
	uint64_t limit;		/* bytes; 0: no cap, or unknown */
	uint64_t devmem;	/* usbfs buffers allocated (page-rounded) */
	uint64_t heap;		/* heap buffers allocated */
	/*
	 * Bytes usbfs counts for the transfers in flight: heap buffers and
	 * every transfer's kernel bookkeeping (counted only under a cap).
	 */
	uint64_t in_flight;
	uint64_t devmem_bufs;
	uint64_t heap_bufs;
	uint64_t mem_refused;	/* submits refused by the cap */
};

/* Any thread. */
void ch39x_libusb_mem_stats(struct ch39x_usb_dev *d,
			    struct ch39x_libusb_mem *m);

/*
 * How the device's finished transfers were collected: libusb event rounds
 * (a poll of its descriptors and a reap of each finished URB), and the
 * looks that found none of its descriptors ready and so made none (after
 * a round that completed nothing, a look costs one epoll_wait).
 */
struct ch39x_libusb_events {
	uint64_t rounds;
	uint64_t spared;
	uint64_t completed;	/* transfers completed (any status) */
};

/* Any thread. */
void ch39x_libusb_event_stats(struct ch39x_usb_dev *d,
			      struct ch39x_libusb_events *e);

/*
 * Control thread. Whether extra more bytes of heap-buffer transfers can be
 * in flight at once under the cap (usbfs buffers are counted when
 * allocated). Returns 0, or -ENOMEM with the reason and the remedy in err.
 */
int ch39x_libusb_mem_check(struct ch39x_usb_dev *d, uint64_t extra,
			   char *err, size_t errlen);

/*
 * Parse helpers for device arguments. "vvvv:pppp" in hex (pid may be
 * "*"); returns 0 or -1.
 */
int ch39x_libusb_parse_vid_pid(const char *s, uint16_t *vid, uint16_t *pid);
/*
 * "vendor", "ncm", "ecm", "cdc" (NCM or ECM) or "any", or several joined
 * with '+'; returns 0 with the mask, or -1.
 */
int ch39x_libusb_parse_protos(const char *s, unsigned int *mask);
/*
 * A serial number as sysfs has it (UTF-8) made as libusb's
 * libusb_get_string_descriptor_ascii() reads it from the device, which
 * puts a '?' for each UTF-16 unit beyond ASCII ("??" for a character
 * beyond the BMP): in place, never longer. So a device's serial from
 * sysfs compares with the one read at open (a device's return).
 */
void ch39x_libusb_serial_ascii(char *s);

/*
 * Whether the kernel's USB device events reach this process: its network
 * namespace is one the first user namespace owns (not a rootless
 * container's). Without them the PMD polls for removal (presence=).
 */
bool ch39x_libusb_uevents_reach(void);

#endif /* CH39X_LIBUSB_H */
