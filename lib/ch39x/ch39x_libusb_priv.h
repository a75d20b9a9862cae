/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend's internals, shared by its three files:
 * ch39x_libusb_select.c (which device: enumeration, classification,
 * devargs parsing), ch39x_libusb_open.c (taking it from the kernel and
 * giving it back: configuration, interfaces, drivers) and ch39x_libusb.c
 * (the transport ops, usbfs memory, RX wake-ups).
 */

#ifndef CH39X_LIBUSB_PRIV_H
#define CH39X_LIBUSB_PRIV_H

#include <libusb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ch39x_libusb.h"
#include "ch39x_vendor.h"

/* Not exported from the PMD's shared object. */
#define LU_INTERNAL __attribute__((visibility("hidden")))

/* Buffers one device can have from ch39x_libusb_buf_alloc at once. */
#define LU_MAX_BUFS	1024
/* Interfaces one device may claim: vendor endpoints may spread. */
#define LU_MAX_IFS	8
/* Devices listed in a selection error. */
#define LU_LIST_MAX	32
#define LU_SERIAL_MAX	64
/* Looks the ready set may spare in a row before a round is made anyway. */
#define LU_SPARE_MAX	64
/* Close: how long cancelled transfers may take to come back. */
#define LU_DRAIN_MS	1000
/* Poll period while waiting for a device after a configuration switch. */
#define LU_REFIND_STEP_MS 20
#define LU_USBFS_MB_PATH "/sys/module/usbcore/parameters/usbfs_memory_mb"
/* Where Linux names devices and interfaces ("1-2.4", "1-2.4:3.0"). */
#define LU_SYSFS_USB "/sys/bus/usb/devices"
/* usertools/, installed by meson: a group gets access to the nodes. */
#define LU_UDEV_RULE "70-ch39x-usb.rules"
/* A kernel driver's name and its netdev, for the hand-over log lines. */
#define LU_OWNER_MAX 64

/* One libusb transfer, lent to one struct ch39x_xfer while in flight. */
struct lu_xfer {
	struct libusb_transfer *t;
	struct ch39x_xfer *x;
	struct lu_ep *ep;
	struct lu_dev *u;
	struct lu_xfer *prev;	/* in-flight list */
	struct lu_xfer *next;	/* in-flight list, or the free pool */
	uint32_t heap_bytes;	/* counted in in_flight while in flight */
};

/*
 * One endpoint. The lock serialises the owning thread with callbacks,
 * which run on whichever thread handles libusb events.
 */
struct lu_ep {
	pthread_mutex_t lock;
	uint8_t addr;		/* 0: none (CDC data alt 0, no interrupt ep) */
	uint8_t type;		/* LIBUSB_TRANSFER_TYPE_* */
	struct lu_xfer *inflight;
	struct lu_xfer *pool;
	struct ch39x_xfer *done_head;
	struct ch39x_xfer *done_tail;
	uint32_t n_inflight;
};

struct lu_buf {
	uint8_t *p;
	size_t size;		/* as asked */
	size_t acct;		/* as counted: page-rounded for usbfs memory */
	bool devmem;
	/*
	 * usbfs memory of the device node before a reattach: still mapped,
	 * but the new node's usbfs does not know it, so the kernel copies
	 * it per transfer as it does heap memory (devio.c find_memory_area).
	 */
	bool stale;
};

/* A device in the port's place on the bus, as a lookup saw it. */
struct lu_seen {
	char path[CH39X_LIBUSB_PATH_MAX];
	uint32_t busdev;	/* busnum << 16 | devnum: one enumeration */
	struct ch39x_usb_info info;
	libusb_context *ctx;	/* a fresh context listing it, for reattach */
	uint64_t until_ms;	/* looked at again after this (mono_ms) */
};

struct lu_dev {
	struct ch39x_usb_dev base;
	libusb_context *ctx;
	libusb_device_handle *h;
	enum ch39x_libusb_proto proto;
	struct ch39x_usb_info info;
	struct ch39x_cdc_desc cdc;
	char path[CH39X_LIBUSB_PATH_MAX];
	uint8_t data_alt;
	uint8_t bulk_in;	/* CDC: endpoint addresses once alt 1 */
	uint8_t bulk_out;
	uint8_t n_ifs;
	uint8_t ifs[LU_MAX_IFS];	/* claimed */
	bool detached[LU_MAX_IFS];	/* a kernel driver was let go */
	char owner[LU_MAX_IFS][LU_OWNER_MAX];	/* ... which one */
	bool gone;
	/*
	 * The configuration switch open made, undone at close: the kernel
	 * binds its drivers to the restored configuration by itself.
	 */
	bool switched;
	uint8_t orig_cfg;		/* 0: the device was unconfigured */
	bool keep;			/* keep_kernel_driver: undo nothing */
	bool has_function;		/* the selection's function= */
	uint8_t function;
	/* The selection open was given, kept for the device's return. */
	unsigned int protos;		/* never 0 */
	unsigned int reenum_ms;
	char sel_serial[LU_SERIAL_MAX];
	char sel_path[CH39X_LIBUSB_PATH_MAX];
	struct lu_seen seen;		/* lookup's last find; busdev 0: none */
	uint32_t busdev;		/* the device taken (as lu_seen's) */
	uint64_t lookup_since_ms;	/* the first lookup since; 0: none */
	uint64_t reattaches;
	/* The kernel's uevents (ch39x_libusb_bus.c), or -1. */
	int bus_fd;
	struct lu_ep ep[CH39X_EP_COUNT];
	void (*log)(void *arg, const char *msg);
	void *log_arg;

	/* usbfs memory. */
	uint64_t limit;
	uint64_t devmem_bytes;
	uint64_t heap_bytes;
	uint64_t devmem_bufs;
	uint64_t heap_bufs;
	uint64_t in_flight;	/* atomic */
	uint64_t refused;	/* atomic */
	bool devmem_failed;	/* the kernel refused once: heap from then on */
	bool heap_logged;	/* the first heap buffer was logged */
	uint32_t n_bufs;	/* atomic store, for submit's lock-free scan */
	/* RX wake-ups: epoll of libusb's descriptors and an eventfd, or -1. */
	int wake_ep;
	int wake_ev;
	bool wake_written;	/* rx_arm wrote wake_ev since the last disarm */
	bool armed_fresh;	/* rx_arm reaped; no bulk IN poll since */
	bool swept;		/* a bulk IN poll reaped since the disarm */
	uint64_t sweeps;	/* atomic: rounds made or spared, any thread */
	uint64_t rounds;	/* atomic: libusb event rounds made */
	uint64_t spared;	/* atomic: looks that found nothing ready */
	uint64_t completed;	/* atomic: transfers completed (callbacks) */
	bool quiet;		/* the last round completed none of them */
	uint32_t spared_run;	/* atomic: looks spared since the last round */
	uint64_t intr_seen;	/* sweeps at the interrupt poller's last look */
	/* Called when an interrupt transfer completes (intr_hook). */
	void (*intr_fn)(void *arg);
	void *intr_arg;
	struct lu_buf bufs[LU_MAX_BUFS];
};

/* One USB device as sysfs lists it. */
struct lu_sysdev {
	char name[CH39X_LIBUSB_PATH_MAX];	/* "1-2.4", as dev_path() */
	uint32_t busdev;
	uint16_t vid;
	uint16_t pid;
	char serial[LU_SERIAL_MAX];
};

/* What one device on the bus offers, for matching and for the error list. */
struct lu_cand {
	libusb_device *dev;
	struct libusb_device_descriptor dd;
	char path[CH39X_LIBUSB_PATH_MAX];
	unsigned int offers;		/* CH39X_LIBUSB_* */
	uint8_t cfg_for[3];		/* configuration value per proto bit */
	uint8_t active;			/* 0: unconfigured or unknown */
	char classes[128];
	char serial[LU_SERIAL_MAX];
	bool serial_read;
};

extern const struct ch39x_usb_ops lu_ops LU_INTERNAL;

static inline struct lu_dev *
to_lu(struct ch39x_usb_dev *d)
{
	return (struct lu_dev *)d;
}

void lu_log(struct lu_dev *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3))) LU_INTERNAL;
int lu_errno(int r) LU_INTERNAL;
enum ch39x_xfer_status lu_status(enum libusb_transfer_status s) LU_INTERNAL;
uint8_t lu_speed(int s) LU_INTERNAL;
const char * speed_name(uint8_t s) LU_INTERNAL;
const char * proto_name(unsigned int p) LU_INTERNAL;
uint8_t intr_ms(uint8_t binterval, uint8_t speed) LU_INTERNAL;
void sleep_ms(unsigned int ms) LU_INTERNAL;
uint64_t mono_ms(void) LU_INTERNAL;
uint64_t usbfs_limit(void) LU_INTERNAL;
int proto_bit(unsigned int p) LU_INTERNAL;
void dev_path(libusb_device *dev, char *buf, size_t len) LU_INTERNAL;
libusb_device * pick(libusb_context *ctx, const struct ch39x_libusb_sel *sel, unsigned int protos, struct lu_cand *out, char *err, size_t errlen) LU_INTERNAL;
void lu_log_function(struct lu_dev *u, const uint8_t *blob, uint32_t len) LU_INTERNAL;
int claim(struct lu_dev *u, uint8_t ifn, char *err, size_t errlen) LU_INTERNAL;
void hand_back(struct lu_dev *u, bool keep) LU_INTERNAL;
void lu_free(struct lu_dev *u) LU_INTERNAL;
void lu_pools_free(struct lu_dev *u) LU_INTERNAL;
int lu_attach(struct lu_dev *u, const struct ch39x_libusb_sel *sel, char *err, size_t errlen) LU_INTERNAL;
void lu_seen_drop(struct lu_dev *u) LU_INTERNAL;
int lu_lookup(struct ch39x_usb_dev *d, struct ch39x_usb_info *info) LU_INTERNAL;
int lu_reattach(struct ch39x_usb_dev *d, char *err, size_t errlen) LU_INTERNAL;
int lu_ready_add(struct lu_dev *u) LU_INTERNAL;
bool lu_read_attr(const char *dev, const char *attr, char *buf, size_t len) LU_INTERNAL;
bool lu_read_sysdev(const char *name, struct lu_sysdev *d) LU_INTERNAL;
int lu_bus_fd(struct ch39x_usb_dev *d, char *err, size_t errlen) LU_INTERNAL;
unsigned int lu_bus_read(struct ch39x_usb_dev *d) LU_INTERNAL;
void lu_bus_close(struct lu_dev *u) LU_INTERNAL;
unsigned int lu_first_proto(unsigned int asked, unsigned int offers) LU_INTERNAL;
uint8_t lu_framing(unsigned int proto) LU_INTERNAL;

int lu_ready_set(struct lu_dev *u) LU_INTERNAL;
void lu_wake_close(struct lu_dev *u) LU_INTERNAL;

#endif /* CH39X_LIBUSB_PRIV_H */
