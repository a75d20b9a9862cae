/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend. "§N" cites section N of
 * doc/guides/nics/ch39x_protocol.rst; CDC facts come from
 * §11-§15. Linux usbfs behaviour cited here is
 * from drivers/usb/core/devio.c.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libusb.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch39x_libusb.h"
#include "ch39x_vendor.h"

/* Buffers one device can have from ch39x_libusb_buf_alloc at once. */
#define LU_MAX_BUFS	1024
/* Interfaces one device may claim: vendor endpoints may spread. */
#define LU_MAX_IFS	8
/* Devices listed in a selection error. */
#define LU_LIST_MAX	32
#define LU_SERIAL_MAX	64
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
	uint32_t n_bufs;	/* atomic store, for submit's lock-free scan */
	struct lu_buf bufs[LU_MAX_BUFS];
};

static const struct ch39x_usb_ops lu_ops;

static struct lu_dev *
to_lu(struct ch39x_usb_dev *d)
{
	return (struct lu_dev *)d;
}

static void
lu_log(struct lu_dev *u, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
lu_log(struct lu_dev *u, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (u->log != NULL)
		u->log(u->log_arg, msg);
	else
		fprintf(stderr, "ch39x_libusb: %s\n", msg);
}

/* libusb error codes as the negative errno values of ch39x_usb.h. */
static int
lu_errno(int r)
{
	switch (r) {
	case LIBUSB_SUCCESS: return 0;
	case LIBUSB_ERROR_IO: return -EIO;
	case LIBUSB_ERROR_INVALID_PARAM: return -EINVAL;
	case LIBUSB_ERROR_ACCESS: return -EACCES;
	case LIBUSB_ERROR_NO_DEVICE: return -ENODEV;
	case LIBUSB_ERROR_NOT_FOUND: return -ENOENT;
	case LIBUSB_ERROR_BUSY: return -EBUSY;
	case LIBUSB_ERROR_TIMEOUT: return -ETIMEDOUT;
	case LIBUSB_ERROR_OVERFLOW: return -EOVERFLOW;
	case LIBUSB_ERROR_PIPE: return -EPIPE;	/* a stall, as the sim says */
	case LIBUSB_ERROR_INTERRUPTED: return -EINTR;
	case LIBUSB_ERROR_NO_MEM: return -ENOMEM;
	case LIBUSB_ERROR_NOT_SUPPORTED: return -ENOTSUP;
	default: return -EIO;
	}
}

static enum ch39x_xfer_status
lu_status(enum libusb_transfer_status s)
{
	switch (s) {
	case LIBUSB_TRANSFER_COMPLETED: return CH39X_XFER_OK;
	case LIBUSB_TRANSFER_STALL: return CH39X_XFER_STALL;
	case LIBUSB_TRANSFER_TIMED_OUT: return CH39X_XFER_TIMEOUT;
	case LIBUSB_TRANSFER_OVERFLOW: return CH39X_XFER_OVERFLOW;
	case LIBUSB_TRANSFER_CANCELLED: return CH39X_XFER_CANCELLED;
	case LIBUSB_TRANSFER_NO_DEVICE: return CH39X_XFER_NO_DEVICE;
	default: return CH39X_XFER_ERROR;
	}
}

static uint8_t
lu_speed(int s)
{
	switch (s) {
	case LIBUSB_SPEED_LOW:
	case LIBUSB_SPEED_FULL:
		return CH39X_SPEED_FULL;
	case LIBUSB_SPEED_HIGH:
		return CH39X_SPEED_HIGH;
	case LIBUSB_SPEED_SUPER:
	case LIBUSB_SPEED_SUPER_PLUS:
		/* Gen 2 signalling runs the same SuperSpeed protocol. */
		return CH39X_SPEED_SUPER;
	default:
		return 0;
	}
}

static const char *
speed_name(uint8_t s)
{
	switch (s) {
	case CH39X_SPEED_FULL: return "full";
	case CH39X_SPEED_HIGH: return "high";
	case CH39X_SPEED_SUPER: return "super";
	default: return "unknown";
	}
}

static const char *
proto_name(unsigned int p)
{
	switch (p) {
	case CH39X_LIBUSB_VENDOR: return "vendor";
	case CH39X_LIBUSB_NCM: return "ncm";
	case CH39X_LIBUSB_ECM: return "ecm";
	default: return "?";
	}
}

/*
 * Interrupt bInterval in milliseconds: frames at full/low speed, 2^(n-1)
 * microframes of 125 us at high speed and SuperSpeed (USB 2.0 9.6.6).
 */
static uint8_t
intr_ms(uint8_t binterval, uint8_t speed)
{
	uint32_t us;

	if (speed == CH39X_SPEED_FULL)
		return binterval ? binterval : 1;
	if (binterval < 1)
		binterval = 1;
	if (binterval > 16)
		binterval = 16;
	us = 125u << (binterval - 1);
	if (us < 1000)
		return 1;
	return us / 1000 > 255 ? 255 : (uint8_t)(us / 1000);
}

static void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The cap on usbfs memory in bytes, 0 when none or unknown. */
static uint64_t
usbfs_limit(void)
{
	unsigned long long mb = 0;
	FILE *f = fopen(LU_USBFS_MB_PATH, "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &mb) != 1)
		mb = 0;
	fclose(f);
	return (uint64_t)mb << 20;
}

/* ---- selection ---- */

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

static int
proto_bit(unsigned int p)
{
	return p == CH39X_LIBUSB_VENDOR ? 0 : p == CH39X_LIBUSB_NCM ? 1 : 2;
}

static void
dev_path(libusb_device *dev, char *buf, size_t len)
{
	uint8_t ports[8];
	int n = libusb_get_port_numbers(dev, ports, sizeof(ports));
	size_t off;
	int i;

	off = (size_t)snprintf(buf, len, "%u", libusb_get_bus_number(dev));
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%c%u",
					i == 0 ? '-' : '.', ports[i]);
}

/* NCM and ECM functions of one configuration, from the parsed tree. */
static unsigned int
cdc_offers(const struct libusb_config_descriptor *c)
{
	bool ncm = false, ecm = false, data = false;
	const struct libusb_interface_descriptor *a;
	int i, j;

	for (i = 0; i < c->bNumInterfaces; i++) {
		for (j = 0; j < c->interface[i].num_altsetting; j++) {
			a = &c->interface[i].altsetting[j];
			if (a->bInterfaceClass == CH39X_CDC_CLASS_COMM &&
			    a->bInterfaceSubClass == CH39X_CDC_SUBCLASS_NCM)
				ncm = true;
			if (a->bInterfaceClass == CH39X_CDC_CLASS_COMM &&
			    a->bInterfaceSubClass == CH39X_CDC_SUBCLASS_ECM)
				ecm = true;
			if (a->bInterfaceClass == CH39X_CDC_CLASS_DATA)
				data = true;
		}
	}
	if (!data)
		return 0;
	return (ncm ? CH39X_LIBUSB_NCM : 0) | (ecm ? CH39X_LIBUSB_ECM : 0);
}

/* The vendor configuration of a CH39x part (§1), 0 for others. */
static uint8_t
vendor_config(const struct libusb_device_descriptor *dd)
{
	struct ch39x_profile p;

	if (dd->idVendor != CH39X_VID ||
	    ch39x_profile_init(&p, dd->idProduct, CH39X_SPEED_HIGH) != 0)
		return 0;
	return p.config_value;
}

static void
classify(struct lu_cand *c)
{
	struct libusb_config_descriptor *cfg;
	uint8_t vcfg = vendor_config(&c->dd);
	size_t off = 0;
	unsigned int m, b;
	int i, j;

	if (libusb_get_active_config_descriptor(c->dev, &cfg) == 0) {
		c->active = cfg->bConfigurationValue;
		libusb_free_config_descriptor(cfg);
	}
	for (i = 0; i < c->dd.bNumConfigurations; i++) {
		if (libusb_get_config_descriptor(c->dev, (uint8_t)i, &cfg) != 0)
			continue;
		m = cdc_offers(cfg);
		if (vcfg != 0 && cfg->bConfigurationValue == vcfg)
			m |= CH39X_LIBUSB_VENDOR;
		for (b = 0; b < 3; b++) {
			if (!(m & (1u << b)))
				continue;
			/* Several configurations: the active one wins. */
			if (c->cfg_for[b] == 0 ||
			    cfg->bConfigurationValue == c->active)
				c->cfg_for[b] = cfg->bConfigurationValue;
		}
		c->offers |= m;
		if (off < sizeof(c->classes))
			off += (size_t)snprintf(c->classes + off,
				sizeof(c->classes) - off, "%scfg%u%s:",
				i ? "," : "", cfg->bConfigurationValue,
				cfg->bConfigurationValue == c->active ?
				"*" : "");
		if (m != 0) {
			for (b = 0; b < 3 && off < sizeof(c->classes); b++)
				if (m & (1u << b))
					off += (size_t)snprintf(c->classes +
						off, sizeof(c->classes) - off,
						"%s%s", (m & ((1u << b) - 1)) ?
						"+" : "", proto_name(1u << b));
		} else {
			/* Nothing we drive: say what the interfaces are. */
			for (j = 0; j < cfg->bNumInterfaces &&
			     off < sizeof(c->classes); j++) {
				const struct libusb_interface_descriptor *a;

				if (cfg->interface[j].num_altsetting < 1)
					continue;
				a = &cfg->interface[j].altsetting[0];
				off += (size_t)snprintf(c->classes + off,
					sizeof(c->classes) - off, "%s%02x/%02x",
					j ? "," : "", a->bInterfaceClass,
					a->bInterfaceSubClass);
			}
		}
		libusb_free_config_descriptor(cfg);
	}
	if (c->classes[0] == '\0')
		snprintf(c->classes, sizeof(c->classes), "no configuration");
}

/* iSerialNumber, read once; "?" when the device cannot be opened. */
static const char *
cand_serial(struct lu_cand *c)
{
	libusb_device_handle *h;
	int r;

	if (c->serial_read)
		return c->serial;
	c->serial_read = true;
	if (c->dd.iSerialNumber == 0)
		return c->serial;
	r = libusb_open(c->dev, &h);
	if (r != 0) {
		snprintf(c->serial, sizeof(c->serial), "?(%s)",
			 libusb_error_name(r));
		return c->serial;
	}
	r = libusb_get_string_descriptor_ascii(h, c->dd.iSerialNumber,
		(unsigned char *)c->serial, sizeof(c->serial));
	if (r < 0)
		snprintf(c->serial, sizeof(c->serial), "?(%s)",
			 libusb_error_name(r));
	libusb_close(h);
	return c->serial;
}

static bool
cand_match(struct lu_cand *c, const struct ch39x_libusb_sel *sel,
	   unsigned int protos)
{
	if (sel->vid != 0 && c->dd.idVendor != sel->vid)
		return false;
	if (sel->pid != 0 && c->dd.idProduct != sel->pid)
		return false;
	if (sel->path != NULL && sel->path[0] != '\0' &&
	    strcmp(sel->path, c->path) != 0)
		return false;
	if ((c->offers & protos) == 0)
		return false;
	if (sel->serial != NULL && sel->serial[0] != '\0' &&
	    strcmp(sel->serial, cand_serial(c)) != 0)
		return false;
	return true;
}

static size_t
cand_line(struct lu_cand *c, char *buf, size_t len)
{
	return (size_t)snprintf(buf, len, "\n  %04x:%04x serial=%s path=%s %s",
				c->dd.idVendor, c->dd.idProduct,
				cand_serial(c)[0] ? cand_serial(c) : "(none)",
				c->path, c->classes);
}

static void
sel_text(const struct ch39x_libusb_sel *sel, unsigned int protos, char *buf,
	 size_t len)
{
	size_t off = 0;
	unsigned int b;

	buf[0] = '\0';
	if (sel->vid != 0)
		off += (size_t)snprintf(buf + off, len - off, "%04x:", sel->vid);
	if (sel->vid != 0 && sel->pid != 0)
		off += (size_t)snprintf(buf + off, len - off, "%04x ", sel->pid);
	else if (sel->vid != 0)
		off += (size_t)snprintf(buf + off, len - off, "* ");
	if (sel->serial != NULL && sel->serial[0] && off < len)
		off += (size_t)snprintf(buf + off, len - off, "serial=%s ",
					sel->serial);
	if (sel->path != NULL && sel->path[0] && off < len)
		off += (size_t)snprintf(buf + off, len - off, "path=%s ",
					sel->path);
	if (protos == CH39X_LIBUSB_ANY && off < len)
		snprintf(buf + off, len - off, "class=any");
	for (b = 0; b < 3 && off < len && protos != CH39X_LIBUSB_ANY; b++)
		if (protos & (1u << b))
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
				(protos & ((1u << b) - 1)) ? "+" : "class=",
				proto_name(1u << b));
}

/*
 * Why no device at all is seen, when USB is not visible here (containers
 * without the host's /sys/bus/usb or /dev/bus/usb); "" otherwise.
 */
static const char *
usb_invisible(void)
{
	if (access(LU_SYSFS_USB, F_OK) != 0)
		return " (no USB visible here: " LU_SYSFS_USB " does not exist; "
			"in a container, give it the host's /sys/bus/usb and "
			"/dev/bus/usb)";
	if (access("/dev/bus/usb", F_OK) != 0)
		return " (/dev/bus/usb does not exist: libusb cannot open "
			"devices; in a container, pass --device /dev/bus/usb)";
	return "";
}

/*
 * Find the one device of ctx that sel picks. Returns a referenced device
 * and its descriptor, path, protocol and wanted configuration, or NULL with
 * the list of what was found in err.
 */
static libusb_device *
pick(libusb_context *ctx, const struct ch39x_libusb_sel *sel,
     unsigned int protos, struct lu_cand *out, char *err, size_t errlen)
{
	libusb_device **list;
	struct lu_cand *cands;
	ssize_t n, i;
	size_t nc = 0, nm = 0, off;
	libusb_device *found = NULL;
	char what[160];

	n = libusb_get_device_list(ctx, &list);
	if (n < 0) {
		snprintf(err, errlen, "cannot list USB devices: %s",
			 libusb_error_name((int)n));
		return NULL;
	}
	cands = calloc((size_t)n + 1, sizeof(*cands));
	if (cands == NULL) {
		libusb_free_device_list(list, 1);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (i = 0; i < n; i++) {
		struct lu_cand *c = &cands[nc];

		c->dev = list[i];
		if (libusb_get_device_descriptor(c->dev, &c->dd) != 0 ||
		    c->dd.bDeviceClass == LIBUSB_CLASS_HUB)
			continue;
		dev_path(c->dev, c->path, sizeof(c->path));
		classify(c);
		nc++;
	}
	for (i = 0; i < (ssize_t)nc; i++) {
		if (!cand_match(&cands[i], sel, protos))
			continue;
		if (nm++ == 0)
			*out = cands[i];
	}
	sel_text(sel, protos, what, sizeof(what));
	if (nm == 1) {
		found = libusb_ref_device(out->dev);
	} else {
		if (nm == 0)
			off = (size_t)snprintf(err, errlen, "no USB device "
				"matches %s; found %zu%s%s", what, nc,
				nc ? ":" : "", nc ? "" : usb_invisible());
		else
			off = (size_t)snprintf(err, errlen, "%zu USB devices "
				"match %s; pick one by serial= or path=:", nm,
				what);
		for (i = 0; i < (ssize_t)nc && off < errlen; i++) {
			if (nm > 0 && !cand_match(&cands[i], sel, protos))
				continue;
			if (i >= LU_LIST_MAX) {
				snprintf(err + off, errlen - off, "\n  ...");
				break;
			}
			off += cand_line(&cands[i], err + off, errlen - off);
		}
	}
	free(cands);
	libusb_free_device_list(list, 1);
	return found;
}

/* ---- opening ---- */

/*
 * The kernel driver bound to interface ifn of configuration cfg and the
 * netdev it made, as in "cdc_ncm (netdev usb0)", from sysfs: libusb only
 * says whether there is one. "a kernel driver" when sysfs is not there.
 */
static void
if_owner(const struct lu_dev *u, uint8_t cfg, uint8_t ifn, char *buf,
	 size_t len)
{
	char p[PATH_MAX], link[PATH_MAX];
	const char *drv = "a kernel driver";
	struct dirent *e;
	DIR *dir;
	ssize_t n;
	int off;

	snprintf(p, sizeof(p), LU_SYSFS_USB "/%s:%u.%u/driver", u->path, cfg,
		 ifn);
	n = readlink(p, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		drv = strrchr(link, '/') != NULL ? strrchr(link, '/') + 1 : link;
	}
	off = snprintf(buf, len, "%.40s", drv);
	snprintf(p, sizeof(p), LU_SYSFS_USB "/%s:%u.%u/net", u->path, cfg,
		 ifn);
	dir = opendir(p);
	if (dir == NULL)
		return;
	while ((e = readdir(dir)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if (off > 0 && (size_t)off < len)
			snprintf(buf + off, len - (size_t)off, " (netdev %.15s)",
				 e->d_name);
		break;
	}
	closedir(dir);
}

/*
 * Let kernel drivers go from every interface of the active configuration:
 * usbfs refuses SET_CONFIGURATION while a driver holds one (-EBUSY). These
 * interfaces vanish with the switch, so they are given back only when the
 * switch fails. why says what for, in the log line of each. Returns the
 * interfaces let go, as a mask.
 */
static uint32_t
detach_all(struct lu_dev *u, const char *why)
{
	libusb_device *dev = libusb_get_device(u->h);
	struct libusb_config_descriptor *c;
	char owner[LU_OWNER_MAX];
	uint32_t mask = 0;
	int i, n;

	if (libusb_get_active_config_descriptor(dev, &c) != 0)
		return 0;
	for (i = 0; i < c->bNumInterfaces; i++) {
		if (c->interface[i].num_altsetting < 1)
			continue;
		n = c->interface[i].altsetting[0].bInterfaceNumber;
		if (n >= 32 || libusb_kernel_driver_active(u->h, n) != 1)
			continue;
		if_owner(u, c->bConfigurationValue, (uint8_t)n, owner,
			 sizeof(owner));
		if (libusb_detach_kernel_driver(u->h, n) != 0)
			continue;
		mask |= 1u << n;
		lu_log(u, "%s: interface %s:%u.%d taken from kernel driver %s "
		       "%s", u->path, u->path, c->bConfigurationValue, n, owner,
		       why);
	}
	libusb_free_config_descriptor(c);
	return mask;
}

/*
 * The device at path with vid:pid in a fresh context, once its active
 * configuration is want. A fresh context lists the bus from sysfs: the
 * device list of an existing one only learns of a re-enumerated device
 * from udev events, which a minimal system (a container, an initramfs)
 * does not have.
 */
static int
refind(struct lu_dev *u, const char *path, uint16_t vid, uint16_t pid,
       uint8_t want, unsigned int ms, char *err, size_t errlen)
{
	uint64_t deadline = mono_ms() + ms;
	libusb_context *ctx = NULL;
	libusb_device **list;
	struct libusb_device_descriptor dd;
	struct libusb_config_descriptor *c;
	char p[CH39X_LIBUSB_PATH_MAX];
	uint8_t active = 0;
	ssize_t n, i;
	int r = LIBUSB_ERROR_NOT_FOUND;

	for (;;) {
		if (libusb_init(&ctx) != 0) {
			snprintf(err, errlen, "libusb_init failed");
			return -1;
		}
		n = libusb_get_device_list(ctx, &list);
		for (i = 0; i < n; i++) {
			dev_path(list[i], p, sizeof(p));
			if (strcmp(p, path) != 0 ||
			    libusb_get_device_descriptor(list[i], &dd) != 0 ||
			    dd.idVendor != vid || dd.idProduct != pid)
				continue;
			active = 0;
			if (libusb_get_active_config_descriptor(list[i],
								&c) == 0) {
				active = c->bConfigurationValue;
				libusb_free_config_descriptor(c);
			}
			if (active == want)
				r = libusb_open(list[i], &u->h);
			break;
		}
		if (n >= 0)
			libusb_free_device_list(list, 1);
		if (u->h != NULL) {
			libusb_exit(u->ctx);
			u->ctx = ctx;
			return 0;
		}
		libusb_exit(ctx);
		if (mono_ms() >= deadline)
			break;
		sleep_ms(LU_REFIND_STEP_MS);
	}
	snprintf(err, errlen, "after SET_CONFIGURATION %u, %04x:%04x did not "
		 "come back at path %s with configuration %u within %u ms "
		 "(last seen: %s)", want, vid, pid, path, want, ms,
		 active ? "other configuration" : r == LIBUSB_ERROR_NOT_FOUND ?
		 "absent or unconfigured" : libusb_error_name(r));
	return -1;
}

static int
claim(struct lu_dev *u, uint8_t ifn, char *err, size_t errlen)
{
	int r, i;

	for (i = 0; i < u->n_ifs; i++)
		if (u->ifs[i] == ifn)
			return 0;
	if (u->n_ifs == LU_MAX_IFS) {
		snprintf(err, errlen, "endpoints spread over more than %d "
			 "interfaces", LU_MAX_IFS);
		return -1;
	}
	i = u->n_ifs;
	r = libusb_kernel_driver_active(u->h, ifn);
	if (r == 1) {
		if_owner(u, u->info.config_value, ifn, u->owner[i],
			 sizeof(u->owner[i]));
		r = libusb_detach_kernel_driver(u->h, ifn);
		if (r != 0) {
			snprintf(err, errlen, "cannot take interface %u from "
				 "kernel driver %s: %s", ifn, u->owner[i],
				 libusb_error_name(r));
			return -1;
		}
		u->detached[i] = true;
		lu_log(u, "%s: interface %s:%u.%u taken from kernel driver %s%s",
		       u->path, u->path, u->info.config_value, ifn, u->owner[i],
		       u->keep ? " (kernel_driver=keep: not given back at "
		       "close)" : "");
	}
	r = libusb_claim_interface(u->h, ifn);
	if (r != 0) {
		snprintf(err, errlen, "cannot claim interface %u: %s%s", ifn,
			 libusb_error_name(r), r == LIBUSB_ERROR_BUSY ?
			 " (another program has it)" : "");
		if (u->detached[i])
			libusb_attach_kernel_driver(u->h, ifn);
		u->detached[i] = false;
		return -1;
	}
	u->ifs[i] = ifn;
	u->n_ifs++;
	return 0;
}

/*
 * Vendor mode (§1, ch397_check_endpoints): in descriptor order, the
 * first bulk IN, bulk OUT and interrupt IN of alt setting 0; no SET_INTERFACE.
 */
static int
setup_vendor(struct lu_dev *u, const struct libusb_config_descriptor *c,
	     char *err, size_t errlen)
{
	const struct libusb_endpoint_descriptor *e;
	const struct libusb_interface_descriptor *a;
	uint8_t ifn[CH39X_EP_COUNT] = { 0 };
	uint8_t ival = 0, type;
	enum ch39x_ep k;
	bool in;
	int i, j;

	for (i = 0; i < c->bNumInterfaces; i++) {
		if (c->interface[i].num_altsetting < 1)
			continue;
		a = &c->interface[i].altsetting[0];
		for (j = 0; j < a->bNumEndpoints; j++) {
			e = &a->endpoint[j];
			type = e->bmAttributes & LIBUSB_TRANSFER_TYPE_MASK;
			in = (e->bEndpointAddress & LIBUSB_ENDPOINT_IN) != 0;
			if (type == LIBUSB_TRANSFER_TYPE_BULK)
				k = in ? CH39X_EP_BULK_IN : CH39X_EP_BULK_OUT;
			else if (type == LIBUSB_TRANSFER_TYPE_INTERRUPT && in)
				k = CH39X_EP_INTR_IN;
			else
				continue;
			if (u->ep[k].addr != 0)
				continue;
			u->ep[k].addr = e->bEndpointAddress;
			u->ep[k].type = type;
			/* Bits 12..11 are a high-bandwidth multiplier. */
			u->info.maxp[k] = e->wMaxPacketSize & 0x7FF;
			ifn[k] = a->bInterfaceNumber;
			if (k == CH39X_EP_INTR_IN)
				ival = e->bInterval;
		}
	}
	if (!u->ep[CH39X_EP_BULK_IN].addr || !u->ep[CH39X_EP_BULK_OUT].addr ||
	    !u->ep[CH39X_EP_INTR_IN].addr) {
		snprintf(err, errlen, "configuration %u lacks an endpoint the "
			 "vendor protocol needs:%s%s%s", c->bConfigurationValue,
			 u->ep[CH39X_EP_BULK_IN].addr ? "" : " bulk IN",
			 u->ep[CH39X_EP_BULK_OUT].addr ? "" : " bulk OUT",
			 u->ep[CH39X_EP_INTR_IN].addr ? "" : " interrupt IN");
		return -1;
	}
	u->info.intr_interval_ms = intr_ms(ival, u->info.speed);
	for (k = 0; k < CH39X_EP_COUNT; k++)
		if (claim(u, ifn[k], err, errlen) != 0)
			return -1;
	/* V1.7 waits 3 ms after each vendor request; the PMD sleeps it. */
	u->base.ctrl_delay_us = 3000;
	return 0;
}

/* The raw configuration descriptor, as the device sends it. */
static uint8_t *
read_config(struct lu_dev *u, uint8_t value, uint32_t *len, char *err,
	    size_t errlen)
{
	libusb_device *dev = libusb_get_device(u->h);
	struct libusb_device_descriptor dd;
	struct libusb_config_descriptor *c;
	uint8_t hdr[9], *blob;
	int idx = -1, i, r;
	uint16_t total;

	if (libusb_get_device_descriptor(dev, &dd) != 0)
		dd.bNumConfigurations = 0;
	/* GET_DESCRIPTOR takes the configuration's index, not its value. */
	for (i = 0; i < dd.bNumConfigurations && idx < 0; i++) {
		if (libusb_get_config_descriptor(dev, (uint8_t)i, &c) != 0)
			continue;
		if (c->bConfigurationValue == value)
			idx = i;
		libusb_free_config_descriptor(c);
	}
	if (idx < 0) {
		snprintf(err, errlen, "no configuration %u", value);
		return NULL;
	}
	r = libusb_get_descriptor(u->h, LIBUSB_DT_CONFIG, (uint8_t)idx, hdr,
				  sizeof(hdr));
	if (r < (int)sizeof(hdr)) {
		snprintf(err, errlen, "GET_DESCRIPTOR(configuration %d): %s",
			 idx, r < 0 ? libusb_error_name(r) : "short");
		return NULL;
	}
	total = (uint16_t)(hdr[2] | hdr[3] << 8);
	if (total < sizeof(hdr)) {
		snprintf(err, errlen, "configuration %d: wTotalLength %u", idx,
			 total);
		return NULL;
	}
	blob = malloc(total);
	if (blob == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r = libusb_get_descriptor(u->h, LIBUSB_DT_CONFIG, (uint8_t)idx, blob,
				  total);
	if (r < 0) {
		snprintf(err, errlen, "GET_DESCRIPTOR(configuration %d): %s",
			 idx, libusb_error_name(r));
		free(blob);
		return NULL;
	}
	/* A short answer is the walker's to judge (E_TOTAL_LEN). */
	*len = (uint32_t)r;
	return blob;
}

static int
setup_cdc(struct lu_dev *u, uint8_t cfg_value, char *err, size_t errlen)
{
	uint8_t sub = u->proto == CH39X_LIBUSB_NCM ? CH39X_CDC_SUBCLASS_NCM :
		CH39X_CDC_SUBCLASS_ECM;
	struct ch39x_cdc_desc *d = &u->cdc;
	uint32_t len = 0;
	uint8_t *blob;
	int r;

	blob = read_config(u, cfg_value, &len, err, errlen);
	if (blob == NULL)
		return -1;
	ch39x_cdc_parse_config(blob, len, sub, d);
	free(blob);
	if (!ch39x_cdc_usable(d)) {
		snprintf(err, errlen, "the %s function is unusable:%s%s%s%s "
			 "(descriptor errors 0x%x)", proto_name(u->proto),
			 d->have_comm ? "" : " no communication interface",
			 d->have_data_eps ? "" : " no data alt setting with "
			 "bulk IN and OUT",
			 d->have_ether ? "" : " no Ethernet descriptor",
			 sub == CH39X_CDC_SUBCLASS_NCM && !d->have_ncm ?
			 " no NCM descriptor" : "", d->errors);
		return -1;
	}
	u->bulk_in = d->bulk_in;
	u->bulk_out = d->bulk_out;
	u->ep[CH39X_EP_BULK_IN].type = LIBUSB_TRANSFER_TYPE_BULK;
	u->ep[CH39X_EP_BULK_OUT].type = LIBUSB_TRANSFER_TYPE_BULK;
	u->ep[CH39X_EP_INTR_IN].type = LIBUSB_TRANSFER_TYPE_INTERRUPT;
	/* No interrupt endpoint: the link is never notified, submits fail. */
	u->ep[CH39X_EP_INTR_IN].addr = d->intr_ep;
	u->info.maxp[CH39X_EP_BULK_IN] = d->bulk_in_maxp & 0x7FF;
	u->info.maxp[CH39X_EP_BULK_OUT] = d->bulk_out_maxp & 0x7FF;
	u->info.maxp[CH39X_EP_INTR_IN] = d->intr_maxp & 0x7FF;
	u->info.intr_interval_ms = intr_ms(d->intr_interval, u->info.speed);
	if (claim(u, d->comm_if, err, errlen) != 0 ||
	    claim(u, d->data_if, err, errlen) != 0)
		return -1;
	/*
	 * Start from a reset function whatever a previous owner left: alt 0
	 * is where NCM takes SET_NTB_FORMAT (cdc_ncm_bind_common does the
	 * same).
	 */
	r = libusb_set_interface_alt_setting(u->h, d->data_if, 0);
	if (r != 0) {
		snprintf(err, errlen, "SET_INTERFACE(%u, 0): %s", d->data_if,
			 libusb_error_name(r));
		return -1;
	}
	u->data_alt = 0;
	return 0;
}

/*
 * Release the claimed interfaces; with reattach, give each back to the
 * kernel driver it was taken from.
 */
static void
release_all(struct lu_dev *u, bool reattach)
{
	int i, r;

	for (i = u->n_ifs - 1; i >= 0; i--) {
		libusb_release_interface(u->h, u->ifs[i]);
		if (!u->detached[i] || !reattach)
			continue;
		r = libusb_attach_kernel_driver(u->h, u->ifs[i]);
		if (r == 0)
			lu_log(u, "%s: interface %s:%u.%u given back to kernel "
			       "driver %s", u->path, u->path,
			       u->info.config_value, u->ifs[i], u->owner[i]);
		else if (r != LIBUSB_ERROR_NO_DEVICE)
			lu_log(u, "%s: interface %s:%u.%u: kernel driver %s "
			       "did not take it back: %s", u->path, u->path,
			       u->info.config_value, u->ifs[i], u->owner[i],
			       libusb_error_name(r));
	}
	u->n_ifs = 0;
}

/*
 * Put the configuration open switched from back. usbfs refuses
 * SET_CONFIGURATION while any interface is claimed, by us or a kernel
 * driver that bound to the rest of this configuration meanwhile; the
 * interfaces of this configuration vanish with it, so nothing is
 * re-attached here: the kernel binds its drivers to the restored
 * configuration's interfaces as it did before.
 */
static void
restore_config(struct lu_dev *u)
{
	uint8_t now = u->info.config_value;
	uint32_t let_go;
	int r, k;

	release_all(u, false);
	let_go = detach_all(u, "to restore the configuration");
	r = libusb_set_configuration(u->h, u->orig_cfg ? u->orig_cfg : -1);
	if (r == 0) {
		lu_log(u, "%s: configuration %u restored (the backend had "
		       "switched to %u); the kernel binds its drivers to it",
		       u->path, u->orig_cfg, now);
		return;
	}
	if (r == LIBUSB_ERROR_NO_DEVICE)
		return;
	lu_log(u, "%s: cannot restore configuration %u (SET_CONFIGURATION "
	       "from %u: %s)%s; ch39x-usb unbind %s hands the device back",
	       u->path, u->orig_cfg, now, libusb_error_name(r),
	       r == LIBUSB_ERROR_BUSY ? ", another program holds an "
	       "interface" : "", u->path);
	for (k = 0; k < 32; k++)
		if (let_go & (1u << k))
			libusb_attach_kernel_driver(u->h, k);
}

/*
 * The device back to the kernel as open found it, unless the user asked to
 * keep it. A device that left the bus needs nothing: when it comes back,
 * the kernel enumerates it afresh.
 */
static void
hand_back(struct lu_dev *u, bool keep)
{
	bool taken = false;
	int i;

	for (i = 0; i < u->n_ifs; i++)
		taken |= u->detached[i];
	if (u->gone || keep) {
		release_all(u, false);
		if (keep && !u->gone && (u->switched || taken))
			lu_log(u, "%s: kernel_driver=keep: left in configuration "
			       "%u without its kernel drivers (ch39x-usb unbind "
			       "%s hands it back)", u->path,
			       u->info.config_value, u->path);
		return;
	}
	if (u->switched)
		restore_config(u);
	else
		release_all(u, true);
}

static void
lu_free(struct lu_dev *u)
{
	struct lu_xfer *w;
	uint32_t i;
	int k;

	for (i = 0; i < u->n_bufs; i++) {
		if (u->bufs[i].p == NULL)
			continue;
		if (u->bufs[i].devmem)
			libusb_dev_mem_free(u->h, u->bufs[i].p, u->bufs[i].size);
		else
			free(u->bufs[i].p);
	}
	for (k = 0; k < CH39X_EP_COUNT; k++) {
		while ((w = u->ep[k].pool) != NULL) {
			u->ep[k].pool = w->next;
			libusb_free_transfer(w->t);
			free(w);
		}
		pthread_mutex_destroy(&u->ep[k].lock);
	}
	if (u->h != NULL)
		libusb_close(u->h);
	if (u->ctx != NULL)
		libusb_exit(u->ctx);
	free(u);
}

static bool
path_ok(const char *p)
{
	bool digit = false, dash = false;

	for (; *p; p++) {
		if (*p >= '0' && *p <= '9') {
			digit = true;
		} else if ((*p == '-' && !dash) || (*p == '.' && dash)) {
			if (!digit)
				return false;
			dash = true;
			digit = false;
		} else {
			return false;
		}
	}
	return digit && dash;
}

struct ch39x_usb_dev *
ch39x_libusb_open(const struct ch39x_libusb_sel *sel, char *err,
		  size_t errlen)
{
	unsigned int protos = sel->protos ? sel->protos : CH39X_LIBUSB_ANY;
	struct libusb_config_descriptor *c = NULL;
	struct lu_cand cand;
	libusb_device *dev;
	unsigned int want_proto = 0, b;
	uint8_t want_cfg;
	int r, k, cur = -1;
	struct lu_dev *u;

	if (sel->vid == 0 && sel->pid != 0) {
		snprintf(err, errlen, "a product ID needs a vendor ID");
		return NULL;
	}
	if (protos & ~(unsigned int)CH39X_LIBUSB_ANY) {
		snprintf(err, errlen, "unknown protocol bits 0x%x", protos);
		return NULL;
	}
	if (sel->path != NULL && sel->path[0] != '\0' && !path_ok(sel->path)) {
		snprintf(err, errlen, "path %s: expected bus-port[.port...], "
			 "such as 1-2.4", sel->path);
		return NULL;
	}
	u = calloc(1, sizeof(*u));
	if (u == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	u->base.ops = &lu_ops;
	u->log = sel->log;
	u->log_arg = sel->log_arg;
	u->keep = sel->keep_kernel_driver;
	for (k = 0; k < CH39X_EP_COUNT; k++)
		pthread_mutex_init(&u->ep[k].lock, NULL);
	u->limit = usbfs_limit();
	r = libusb_init(&u->ctx);
	if (r != 0) {
		snprintf(err, errlen, "libusb_init: %s", libusb_error_name(r));
		goto fail;
	}
	memset(&cand, 0, sizeof(cand));
	dev = pick(u->ctx, sel, protos, &cand, err, errlen);
	if (dev == NULL)
		goto fail;
	/* The first asked protocol the device offers: vendor, NCM, ECM. */
	for (b = 0; b < 3 && want_proto == 0; b++)
		if (protos & cand.offers & (1u << b))
			want_proto = 1u << b;
	u->proto = (enum ch39x_libusb_proto)want_proto;
	want_cfg = cand.cfg_for[proto_bit(want_proto)];
	snprintf(u->path, sizeof(u->path), "%s", cand.path);
	r = libusb_open(dev, &u->h);
	if (r != 0) {
		snprintf(err, errlen, "cannot open %04x:%04x at %s: %s%s",
			 cand.dd.idVendor, cand.dd.idProduct, cand.path,
			 libusb_error_name(r), r == LIBUSB_ERROR_ACCESS ?
			 " (no permission on its node in /dev/bus/usb: run as "
			 "root, or install the udev rule " LU_UDEV_RULE " and "
			 "join its group; ch39x-usb status shows access)" : "");
		libusb_unref_device(dev);
		goto fail;
	}
	if (libusb_get_configuration(u->h, &cur) != 0)
		cur = -1;
	if (cur != want_cfg) {
		char why[64];
		uint32_t let_go;

		snprintf(why, sizeof(why), "to switch to configuration %u (%s)",
			 want_cfg, proto_name(want_proto));
		let_go = detach_all(u, why);
		r = libusb_set_configuration(u->h, want_cfg);
		libusb_unref_device(dev);
		if (r != 0) {
			for (k = 0; k < 32; k++)
				if (let_go & (1u << k))
					libusb_attach_kernel_driver(u->h, k);
			snprintf(err, errlen, "%04x:%04x at %s: "
				 "SET_CONFIGURATION %u (from %d) for %s: %s",
				 cand.dd.idVendor, cand.dd.idProduct,
				 cand.path, want_cfg, cur,
				 proto_name(want_proto), libusb_error_name(r));
			goto fail;
		}
		u->switched = true;
		u->orig_cfg = cur > 0 ? (uint8_t)cur : 0;
		/* V1.7 sleeps 5 ms after the switch (§1). */
		libusb_close(u->h);
		u->h = NULL;
		sleep_ms(5);
		if (refind(u, cand.path, cand.dd.idVendor, cand.dd.idProduct,
			   want_cfg, sel->reenum_ms ? sel->reenum_ms :
			   CH39X_LIBUSB_REENUM_MS, err, errlen) != 0)
			goto fail;
	} else {
		libusb_unref_device(dev);
	}
	dev = libusb_get_device(u->h);
	u->info.vid = cand.dd.idVendor;
	u->info.pid = cand.dd.idProduct;
	u->info.bcd_device = cand.dd.bcdDevice;
	u->info.config_value = want_cfg;
	if (u->switched)
		lu_log(u, "%s: switched from configuration %u to %u for %s%s",
		       u->path, u->orig_cfg, want_cfg, proto_name(u->proto),
		       u->keep ? " (kernel_driver=keep: not restored at close)" :
		       "; restored at close");
	u->info.speed = lu_speed(libusb_get_device_speed(dev));
	if (cand.dd.iSerialNumber != 0 &&
	    libusb_get_string_descriptor_ascii(u->h, cand.dd.iSerialNumber,
		(unsigned char *)u->info.serial, sizeof(u->info.serial)) < 0)
		u->info.serial[0] = '\0';
	if (u->proto == CH39X_LIBUSB_VENDOR) {
		r = libusb_get_active_config_descriptor(dev, &c);
		if (r != 0) {
			snprintf(err, errlen, "configuration descriptor: %s",
				 libusb_error_name(r));
			goto fail;
		}
		r = setup_vendor(u, c, err, errlen);
		libusb_free_config_descriptor(c);
	} else {
		r = setup_cdc(u, want_cfg, err, errlen);
	}
	if (r != 0)
		goto fail;
	return &u->base;
fail:
	/* A failed open leaves nothing taken, whatever keep says. */
	if (u->h != NULL)
		hand_back(u, false);
	lu_free(u);
	return NULL;
}

/* ---- usbfs memory ---- */

/*
 * Kernel memory usbfs counts for a transfer besides a heap buffer: its
 * struct async and URB, and a scatterlist entry per 16 KiB piece (devio.c;
 * sizes of 6.1 on 64-bit, rounded up).
 */
static uint32_t
xfer_overhead(uint32_t len)
{
	return 512 + 64 * ((len + 16383) / 16384);
}

/* The allocated buffer holding [p, p + len), NULL when none does. */
static const struct lu_buf *
find_buf(struct lu_dev *u, const uint8_t *p, uint32_t len)
{
	uint32_t i, n = __atomic_load_n(&u->n_bufs, __ATOMIC_ACQUIRE);

	for (i = 0; i < n; i++) {
		const struct lu_buf *b = &u->bufs[i];

		if (b->p != NULL && p >= b->p && p + len <= b->p + b->size)
			return b;
	}
	return NULL;
}

static void
mem_hint(char *buf, size_t len, uint64_t limit, uint64_t used, uint64_t want)
{
	snprintf(buf, len, "usbfs memory: %" PRIu64 " bytes held + %" PRIu64
		 " more would pass usbcore.usbfs_memory_mb=%" PRIu64
		 " (a cap shared by every process using usbfs); raise it, "
		 "e.g. echo 256 > " LU_USBFS_MB_PATH ", or use fewer or "
		 "smaller transfers", used, want, limit >> 20);
}

int
ch39x_libusb_mem_check(struct ch39x_usb_dev *d, uint64_t extra, char *err,
		       size_t errlen)
{
	struct lu_dev *u = to_lu(d);
	uint64_t used = u->devmem_bytes +
		__atomic_load_n(&u->in_flight, __ATOMIC_RELAXED);

	if (u->limit == 0 || used + extra <= u->limit)
		return 0;
	mem_hint(err, errlen, u->limit, used, extra);
	return -ENOMEM;
}

void
ch39x_libusb_mem_stats(struct ch39x_usb_dev *d, struct ch39x_libusb_mem *m)
{
	struct lu_dev *u = to_lu(d);

	m->limit = u->limit;
	m->devmem = __atomic_load_n(&u->devmem_bytes, __ATOMIC_RELAXED);
	m->heap = __atomic_load_n(&u->heap_bytes, __ATOMIC_RELAXED);
	m->devmem_bufs = __atomic_load_n(&u->devmem_bufs, __ATOMIC_RELAXED);
	m->heap_bufs = __atomic_load_n(&u->heap_bufs, __ATOMIC_RELAXED);
	m->in_flight = __atomic_load_n(&u->in_flight, __ATOMIC_RELAXED);
	m->mem_refused = __atomic_load_n(&u->refused, __ATOMIC_RELAXED);
}

uint8_t *
ch39x_libusb_buf_alloc(struct ch39x_usb_dev *d, size_t size)
{
	struct lu_dev *u = to_lu(d);
	long pg = sysconf(_SC_PAGESIZE);
	size_t acct = (size + (size_t)pg - 1) & ~((size_t)pg - 1);
	struct lu_buf *b = NULL;
	void *p = NULL;
	uint32_t i;

	if (size == 0)
		return NULL;
	for (i = 0; i < u->n_bufs; i++)
		if (u->bufs[i].p == NULL) {
			b = &u->bufs[i];
			break;
		}
	if (b == NULL) {
		if (u->n_bufs == LU_MAX_BUFS)
			return NULL;
		b = &u->bufs[u->n_bufs];
	}
	/*
	 * usbfs memory counts against the cap from mmap on; past the cap the
	 * kernel refuses it and heap buffers are counted per transfer.
	 */
	if (!u->devmem_failed &&
	    (u->limit == 0 || u->devmem_bytes + acct <= u->limit)) {
		p = libusb_dev_mem_alloc(u->h, size);
		/* Refused with none held: the kernel or HCD has none to give. */
		if (p == NULL && u->devmem_bufs == 0)
			u->devmem_failed = true;
	}
	if (p != NULL) {
		b->devmem = true;
		b->acct = acct;
		u->devmem_bytes += acct;
		u->devmem_bufs++;
	} else {
		if (posix_memalign(&p, (size_t)pg, size) != 0)
			return NULL;
		b->devmem = false;
		b->acct = size;
		u->heap_bytes += size;
		u->heap_bufs++;
	}
	b->size = size;
	b->p = p;
	if (b == &u->bufs[u->n_bufs])
		__atomic_store_n(&u->n_bufs, u->n_bufs + 1, __ATOMIC_RELEASE);
	return p;
}

void
ch39x_libusb_buf_free(struct ch39x_usb_dev *d, uint8_t *buf)
{
	struct lu_dev *u = to_lu(d);
	uint32_t i;

	if (buf == NULL)
		return;
	for (i = 0; i < u->n_bufs; i++) {
		struct lu_buf *b = &u->bufs[i];

		if (b->p != buf)
			continue;
		if (b->devmem) {
			libusb_dev_mem_free(u->h, b->p, b->size);
			u->devmem_bytes -= b->acct;
			u->devmem_bufs--;
		} else {
			free(b->p);
			u->heap_bytes -= b->acct;
			u->heap_bufs--;
		}
		b->p = NULL;
		return;
	}
}

/* ---- transport ops ---- */

static int
lu_get_info(struct ch39x_usb_dev *d, struct ch39x_usb_info *info)
{
	struct lu_dev *u = to_lu(d);

	*info = u->info;
	info->framing = u->proto == CH39X_LIBUSB_NCM ? CH39X_FRAMING_NCM :
		u->proto == CH39X_LIBUSB_ECM ? CH39X_FRAMING_ECM :
		CH39X_FRAMING_VENDOR;
	return 0;
}

static int
lu_control(struct ch39x_usb_dev *d, uint8_t req_type, uint8_t request,
	   uint16_t value, uint16_t index, void *data, uint16_t length,
	   unsigned int timeout_ms)
{
	struct lu_dev *u = to_lu(d);
	int r;

	if (__atomic_load_n(&u->gone, __ATOMIC_RELAXED))
		return -ENODEV;
	r = libusb_control_transfer(u->h, req_type, request, value, index,
				    data, length, timeout_ms);
	if (r == LIBUSB_ERROR_NO_DEVICE)
		__atomic_store_n(&u->gone, true, __ATOMIC_RELAXED);
	return r < 0 ? lu_errno(r) : r;
}

/*
 * Unlink a wrapper from its endpoint's in-flight list and put it back in
 * the endpoint's pool; the caller holds ep->lock.
 */
static void
ep_release(struct lu_ep *ep, struct lu_xfer *w)
{
	if (w->prev != NULL)
		w->prev->next = w->next;
	else
		ep->inflight = w->next;
	if (w->next != NULL)
		w->next->prev = w->prev;
	ep->n_inflight--;
	w->next = ep->pool;
	ep->pool = w;
}

/* Runs inside libusb_handle_events, on whichever thread handles events. */
static void LIBUSB_CALL
lu_callback(struct libusb_transfer *t)
{
	struct lu_xfer *w = t->user_data;
	struct lu_ep *ep = w->ep;
	struct ch39x_xfer *x = w->x;

	x->actual = (uint32_t)t->actual_length;
	x->status = lu_status(t->status);
	if (x->status == CH39X_XFER_NO_DEVICE)
		__atomic_store_n(&w->u->gone, true, __ATOMIC_RELAXED);
	if (w->heap_bytes)
		__atomic_fetch_sub(&w->u->in_flight, w->heap_bytes,
				   __ATOMIC_RELAXED);
	pthread_mutex_lock(&ep->lock);
	/*
	 * The wrapper is free again at once: libusb does not touch a transfer
	 * after its callback, and only the owning thread takes from the pool.
	 */
	ep_release(ep, w);
	x->next = NULL;
	if (ep->done_tail != NULL)
		ep->done_tail->next = x;
	else
		ep->done_head = x;
	ep->done_tail = x;
	pthread_mutex_unlock(&ep->lock);
}

static int
lu_submit(struct ch39x_usb_dev *d, struct ch39x_xfer *x)
{
	struct lu_dev *u = to_lu(d);
	struct lu_ep *ep;
	struct lu_xfer *w;
	uint32_t heap = 0;
	uint64_t used;
	char msg[400];
	int r;

	if (x->ep >= CH39X_EP_COUNT || x->in_flight || x->buf == NULL)
		return -EINVAL;
	ep = &u->ep[x->ep];
	if (ep->addr == 0)
		return -ENOTCONN;
	if (__atomic_load_n(&u->gone, __ATOMIC_RELAXED))
		return -ENODEV;
	/*
	 * usbfs copies a heap buffer into kernel memory counted against the
	 * cap for as long as the transfer is in flight, with the URB and its
	 * bookkeeping (devio.c proc_do_submiturb); a usbfs buffer was counted
	 * when allocated. Refusing here, a little early, names the cap; the
	 * kernel's own refusal is a bare ENOMEM.
	 */
	if (u->limit != 0) {
		const struct lu_buf *b = find_buf(u, x->buf, x->len);

		heap = xfer_overhead(x->len) +
			(b == NULL || !b->devmem ? x->len : 0);
		used = u->devmem_bytes + __atomic_fetch_add(&u->in_flight,
			heap, __ATOMIC_RELAXED);
		if (used + heap > u->limit) {
			__atomic_fetch_sub(&u->in_flight, heap,
					   __ATOMIC_RELAXED);
			if (__atomic_fetch_add(&u->refused, 1,
					       __ATOMIC_RELAXED) == 0) {
				mem_hint(msg, sizeof(msg), u->limit, used,
					 heap);
				lu_log(u, "%s", msg);
			}
			return -ENOMEM;
		}
	}
	pthread_mutex_lock(&ep->lock);
	w = ep->pool;
	if (w != NULL)
		ep->pool = w->next;
	pthread_mutex_unlock(&ep->lock);
	if (w == NULL) {
		w = calloc(1, sizeof(*w));
		if (w != NULL)
			w->t = libusb_alloc_transfer(0);
		if (w == NULL || w->t == NULL) {
			free(w);
			r = -ENOMEM;
			goto undo_mem;
		}
		w->ep = ep;
		w->u = u;
	}
	w->x = x;
	w->heap_bytes = heap;
	if (ep->type == LIBUSB_TRANSFER_TYPE_INTERRUPT)
		libusb_fill_interrupt_transfer(w->t, u->h, ep->addr, x->buf,
					       (int)x->len, lu_callback, w, 0);
	else
		libusb_fill_bulk_transfer(w->t, u->h, ep->addr, x->buf,
					  (int)x->len, lu_callback, w, 0);
	w->t->flags = x->zlp && x->ep == CH39X_EP_BULK_OUT ?
		LIBUSB_TRANSFER_ADD_ZERO_PACKET : 0;
	x->actual = 0;
	x->status = CH39X_XFER_OK;
	x->next = NULL;
	x->in_flight = true;
	/*
	 * On the list before it is submitted: another thread handling events
	 * may complete it before libusb_submit_transfer returns.
	 */
	pthread_mutex_lock(&ep->lock);
	w->prev = NULL;
	w->next = ep->inflight;
	if (ep->inflight != NULL)
		ep->inflight->prev = w;
	ep->inflight = w;
	ep->n_inflight++;
	pthread_mutex_unlock(&ep->lock);
	r = libusb_submit_transfer(w->t);
	if (r == 0)
		return 0;
	pthread_mutex_lock(&ep->lock);
	ep_release(ep, w);
	pthread_mutex_unlock(&ep->lock);
	x->in_flight = false;
	if (r == LIBUSB_ERROR_NO_DEVICE)
		__atomic_store_n(&u->gone, true, __ATOMIC_RELAXED);
	if (r == LIBUSB_ERROR_NO_MEM) {
		mem_hint(msg, sizeof(msg), u->limit, u->devmem_bytes +
			 __atomic_load_n(&u->in_flight, __ATOMIC_RELAXED), 0);
		lu_log(u, "the kernel refused a %u-byte transfer: %s", x->len,
		       msg);
	}
	r = lu_errno(r);
undo_mem:
	if (heap)
		__atomic_fetch_sub(&u->in_flight, heap, __ATOMIC_RELAXED);
	return r;
}

static void
lu_cancel_all(struct ch39x_usb_dev *d, enum ch39x_ep ep_id)
{
	struct lu_dev *u = to_lu(d);
	struct lu_ep *ep;
	struct lu_xfer *w;

	if (ep_id >= CH39X_EP_COUNT)
		return;
	ep = &u->ep[ep_id];
	/*
	 * libusb_cancel_transfer only asks the kernel to discard the URBs and
	 * never calls back from here, so holding the lock is safe; the
	 * callbacks come at a later poll with LIBUSB_TRANSFER_CANCELLED. A
	 * transfer that completes meanwhile just answers NOT_FOUND.
	 */
	pthread_mutex_lock(&ep->lock);
	for (w = ep->inflight; w != NULL; w = w->next)
		libusb_cancel_transfer(w->t);
	pthread_mutex_unlock(&ep->lock);
}

static unsigned int
lu_poll(struct ch39x_usb_dev *d, enum ch39x_ep ep_id, struct ch39x_xfer **done,
	unsigned int max)
{
	struct lu_dev *u = to_lu(d);
	struct timeval zero = { 0, 0 };
	struct ch39x_xfer *x;
	struct lu_ep *ep;
	unsigned int n = 0;

	if (ep_id >= CH39X_EP_COUNT)
		return 0;
	ep = &u->ep[ep_id];
	/*
	 * Reap whatever the kernel has finished, for every endpoint: the
	 * callbacks sort the transfers into their endpoints' queues. With
	 * another thread already handling events this returns at once.
	 * Skipped while this endpoint still has completions queued: one
	 * reap collects every finished URB, and a burst that takes them one
	 * at a time (ECM: a frame per transfer) would otherwise pay the
	 * poll and reap system calls once per frame.
	 */
	pthread_mutex_lock(&ep->lock);
	x = ep->done_head;
	pthread_mutex_unlock(&ep->lock);
	if (x == NULL)
		libusb_handle_events_timeout_completed(u->ctx, &zero, NULL);
	pthread_mutex_lock(&ep->lock);
	while (n < max && (x = ep->done_head) != NULL) {
		ep->done_head = x->next;
		if (ep->done_head == NULL)
			ep->done_tail = NULL;
		x->next = NULL;
		x->in_flight = false;
		done[n++] = x;
	}
	pthread_mutex_unlock(&ep->lock);
	return n;
}

static int
lu_clear_halt(struct ch39x_usb_dev *d, enum ch39x_ep ep_id)
{
	struct lu_dev *u = to_lu(d);
	int r;

	if (ep_id >= CH39X_EP_COUNT)
		return -EINVAL;
	if (u->ep[ep_id].addr == 0)
		return -ENOTCONN;
	if (__atomic_load_n(&u->gone, __ATOMIC_RELAXED))
		return -ENODEV;
	/* Also resets the host's data toggle (usbfs usb_clear_halt). */
	r = libusb_clear_halt(u->h, u->ep[ep_id].addr);
	if (r == LIBUSB_ERROR_NO_DEVICE)
		__atomic_store_n(&u->gone, true, __ATOMIC_RELAXED);
	return lu_errno(r);
}

static uint32_t
ep_busy(struct lu_ep *ep)
{
	uint32_t n;

	pthread_mutex_lock(&ep->lock);
	n = ep->n_inflight;
	pthread_mutex_unlock(&ep->lock);
	return n;
}

static uint32_t
inflight_total(struct lu_dev *u)
{
	uint32_t n = 0;
	int k;

	for (k = 0; k < CH39X_EP_COUNT; k++)
		n += ep_busy(&u->ep[k]);
	return n;
}

static void
lu_close(struct ch39x_usb_dev *d)
{
	struct lu_dev *u = to_lu(d);
	struct timeval tv = { 0, 10000 };
	uint64_t deadline;
	int k;

	if (u == NULL)
		return;
	/*
	 * Every endpoint should be idle; if not, cancel and reap here, since
	 * closing a handle with transfers in flight leaves libusb pointing at
	 * freed wrappers. Their ch39x_xfer complete into queues nobody polls.
	 */
	if (inflight_total(u) != 0) {
		lu_log(u, "close: %u transfers still in flight, cancelling",
		       inflight_total(u));
		for (k = 0; k < CH39X_EP_COUNT; k++)
			lu_cancel_all(d, (enum ch39x_ep)k);
		deadline = mono_ms() + LU_DRAIN_MS;
		while (inflight_total(u) != 0 && mono_ms() < deadline)
			libusb_handle_events_timeout_completed(u->ctx, &tv,
							       NULL);
	}
	if (inflight_total(u) != 0) {
		/* Freeing now would let libusb write into freed memory. */
		lu_log(u, "close: %u transfers never came back; leaking the "
		       "device handle", inflight_total(u));
		return;
	}
	/* Reset the CDC function: the far end sees the link go down. */
	if (u->proto != CH39X_LIBUSB_VENDOR && u->data_alt != 0 && !u->gone)
		libusb_set_interface_alt_setting(u->h, u->cdc.data_if, 0);
	hand_back(u, u->keep);
	lu_free(u);
}

static const struct ch39x_usb_ops lu_ops = {
	.name = "libusb",
	.get_info = lu_get_info,
	.control = lu_control,
	.submit = lu_submit,
	.cancel_all = lu_cancel_all,
	.poll = lu_poll,
	.clear_halt = lu_clear_halt,
	.close = lu_close,
	.get_cdc = ch39x_libusb_get_cdc,
	.set_data_alt = ch39x_libusb_set_data_alt,
};

bool
ch39x_libusb_is_libusb(const struct ch39x_usb_dev *d)
{
	return d != NULL && d->ops == &lu_ops;
}

enum ch39x_libusb_proto
ch39x_libusb_proto(const struct ch39x_usb_dev *d)
{
	return ((const struct lu_dev *)d)->proto;
}

int
ch39x_libusb_get_cdc(struct ch39x_usb_dev *d, struct ch39x_cdc_desc *cdc)
{
	struct lu_dev *u = to_lu(d);

	if (u->proto == CH39X_LIBUSB_VENDOR)
		return -ENOTSUP;
	*cdc = u->cdc;
	return 0;
}

int
ch39x_libusb_set_data_alt(struct ch39x_usb_dev *d, uint8_t alt)
{
	struct lu_dev *u = to_lu(d);
	int r;

	if (u->proto == CH39X_LIBUSB_VENDOR)
		return -ENOTSUP;
	/* 1 stands for the alt setting with the bulk endpoints. */
	if (alt > 1)
		return -EINVAL;
	if (alt == 1)
		alt = u->cdc.data_alt;
	if (ep_busy(&u->ep[CH39X_EP_BULK_IN]) ||
	    ep_busy(&u->ep[CH39X_EP_BULK_OUT]))
		return -EBUSY;
	if (__atomic_load_n(&u->gone, __ATOMIC_RELAXED))
		return -ENODEV;
	r = libusb_set_interface_alt_setting(u->h, u->cdc.data_if, alt);
	if (r != 0)
		return lu_errno(r);
	u->data_alt = alt;
	/* The bulk endpoints exist only in that alt setting. */
	u->ep[CH39X_EP_BULK_IN].addr = alt ? u->bulk_in : 0;
	u->ep[CH39X_EP_BULK_OUT].addr = alt ? u->bulk_out : 0;
	return 0;
}

void
ch39x_libusb_describe(struct ch39x_usb_dev *d, char *buf, size_t len)
{
	struct lu_dev *u = to_lu(d);

	snprintf(buf, len, "%04x:%04x serial=%s path=%s %s config=%u "
		 "speed=%s", u->info.vid, u->info.pid,
		 u->info.serial[0] ? u->info.serial : "(none)", u->path,
		 proto_name(u->proto), u->info.config_value,
		 speed_name(u->info.speed));
}

static int
hex16(const char *s, size_t n, uint16_t *v)
{
	uint32_t x = 0;
	size_t i;

	if (n == 0 || n > 4)
		return -1;
	for (i = 0; i < n; i++) {
		char c = s[i];

		x <<= 4;
		if (c >= '0' && c <= '9')
			x |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*v = (uint16_t)x;
	return 0;
}

int
ch39x_libusb_parse_vid_pid(const char *s, uint16_t *vid, uint16_t *pid)
{
	const char *colon = strchr(s, ':');
	uint16_t v, p = 0;

	if (colon == NULL || hex16(s, (size_t)(colon - s), &v) != 0 || v == 0)
		return -1;
	if (strcmp(colon + 1, "*") != 0 &&
	    (hex16(colon + 1, strlen(colon + 1), &p) != 0 || p == 0))
		return -1;
	*vid = v;
	*pid = p;
	return 0;
}

int
ch39x_libusb_parse_protos(const char *s, unsigned int *mask)
{
	static const struct {
		const char *name;
		unsigned int mask;
	} names[] = {
		{ "vendor", CH39X_LIBUSB_VENDOR },
		{ "ncm", CH39X_LIBUSB_NCM },
		{ "ecm", CH39X_LIBUSB_ECM },
		{ "cdc", CH39X_LIBUSB_CDC },
		{ "any", CH39X_LIBUSB_ANY },
	};
	unsigned int m = 0;
	size_t n, i;

	while (*s) {
		n = strcspn(s, "+");
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n &&
			    strncmp(names[i].name, s, n) == 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		m |= names[i].mask;
		s += n;
		if (*s == '+' && *++s == '\0')
			return -1;
	}
	if (m == 0)
		return -1;
	*mask = m;
	return 0;
}
