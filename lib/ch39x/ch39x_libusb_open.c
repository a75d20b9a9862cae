/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend: taking a device from the kernel and giving it back
 * (configuration, interfaces, drivers). "§N" cites section N of
 * doc/guides/nics/ch39x_protocol.rst; CDC facts come from
 * §11-§15. Linux usbfs behaviour cited here is
 * from drivers/usb/core/devio.c.
 */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ch39x_libusb_priv.h"

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

int
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

/* Network functions a log line names at most. */
#define LU_MAX_FNS 8

/*
 * Which network function of the configuration open takes, and what stays
 * with the kernel: the configuration's other interfaces (a modem's serial
 * ports stay with cdc_acm or option) and its other network functions,
 * with the devarg that would pick each.
 */
void
lu_log_function(struct lu_dev *u, const uint8_t *blob, uint32_t len)
{
	const struct ch39x_cdc_desc *d = &u->cdc;
	struct libusb_config_descriptor *c;
	struct ch39x_cdc_fn fns[LU_MAX_FNS];
	char others[192] = "", kept[320] = "", owner[LU_OWNER_MAX];
	size_t o = 0, k = 0;
	unsigned int n, i;
	uint8_t num;
	int j;

	n = ch39x_cdc_list_functions(blob, len, fns, LU_MAX_FNS);
	for (i = 0; i < n && i < LU_MAX_FNS && o < sizeof(others); i++)
		if (fns[i].comm_if != d->comm_if)
			o += (size_t)snprintf(others + o, sizeof(others) - o,
				"%s%s at interface %u (function=%u)",
				o ? ", " : "; other network functions: ",
				fns[i].subclass == CH39X_CDC_SUBCLASS_NCM ?
				"NCM" : "ECM", fns[i].comm_if, fns[i].comm_if);
	if (libusb_get_config_descriptor_by_value(libusb_get_device(u->h),
		u->info.config_value, &c) == 0) {
		for (j = 0; j < c->bNumInterfaces && k < sizeof(kept); j++) {
			if (c->interface[j].num_altsetting < 1)
				continue;
			num = c->interface[j].altsetting[0].bInterfaceNumber;
			if (num == d->comm_if || num == d->data_if)
				continue;
			if (libusb_kernel_driver_active(u->h, num) == 1)
				if_owner(u, u->info.config_value, num, owner,
					 sizeof(owner));
			else
				snprintf(owner, sizeof(owner), "no driver");
			k += (size_t)snprintf(kept + k, sizeof(kept) - k,
				"%s%s:%u.%u %s", k ? ", " : "; left as they are: ",
				u->path, u->info.config_value, num, owner);
		}
		libusb_free_config_descriptor(c);
	}
	if (u->has_function)
		snprintf(owner, sizeof(owner), "chosen by function=%u",
			 u->function);
	else
		snprintf(owner, sizeof(owner), "the first of its kind");
	lu_log(u, "%s: %s function at interfaces %u (communication) and %u "
	       "(data) of configuration %u, %s%s", u->path,
	       proto_name(u->proto), d->comm_if, d->data_if,
	       u->info.config_value, owner, kept);
	if (others[0] != '\0')
		lu_log(u, "%s: the device has more%s", u->path, others);
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
	ch39x_cdc_parse_function(blob, len, sub,
				 u->has_function ? u->function : -1, d);
	if (ch39x_cdc_usable(d))
		lu_log_function(u, blob, len);
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
void
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

/*
 * The endpoints' idle transfer wrappers. A libusb transfer holds a
 * reference to the device it was last submitted to until it is submitted
 * again or freed: freed before that device's context is (a reattach, or
 * close), or the last reference would be dropped into a freed context.
 */
void
lu_pools_free(struct lu_dev *u)
{
	struct lu_xfer *w;
	int k;

	for (k = 0; k < CH39X_EP_COUNT; k++) {
		pthread_mutex_lock(&u->ep[k].lock);
		while ((w = u->ep[k].pool) != NULL) {
			u->ep[k].pool = w->next;
			libusb_free_transfer(w->t);
			free(w);
		}
		pthread_mutex_unlock(&u->ep[k].lock);
	}
}

void
lu_free(struct lu_dev *u)
{
	uint32_t n_left = 0;
	uint32_t i;
	int k;

	/*
	 * Buffers not given back stay: an application may still hold mbufs
	 * attached to one (zero-copy RX), and reading a freed or unmapped
	 * buffer would crash it. A usbfs mapping outlives the descriptor.
	 */
	for (i = 0; i < u->n_bufs; i++)
		if (u->bufs[i].p != NULL)
			n_left++;
	if (n_left != 0)
		lu_log(u, "close: %u transfer buffers not given back are left "
		       "allocated", n_left);
	lu_pools_free(u);
	for (k = 0; k < CH39X_EP_COUNT; k++)
		pthread_mutex_destroy(&u->ep[k].lock);
	lu_wake_close(u);
	lu_bus_close(u);
	lu_seen_drop(u);
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

/*
 * Take the one device sel picks from u->ctx's bus into u, as open and a
 * reattach do: open it, switch to the configuration of the first asked
 * protocol it offers (vendor, NCM, ECM), read who it is, claim its
 * interfaces. 0, or -1 and why in err; u->h may then be open, for the
 * caller's hand_back().
 */
int
lu_attach(struct lu_dev *u, const struct ch39x_libusb_sel *sel, char *err,
	size_t errlen)
{
	unsigned int protos = u->protos;
	struct libusb_config_descriptor *c = NULL;
	struct lu_cand cand;
	libusb_device *dev;
	unsigned int want_proto;
	uint8_t want_cfg;
	int r, k, cur = -1;

	memset(&cand, 0, sizeof(cand));
	dev = pick(u->ctx, sel, protos, &cand, err, errlen);
	if (dev == NULL)
		return -1;
	want_proto = lu_first_proto(protos, cand.offers);
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
		return -1;
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
			return -1;
		}
		u->switched = true;
		u->orig_cfg = cur > 0 ? (uint8_t)cur : 0;
		/* V1.7 sleeps 5 ms after the switch (§1). */
		libusb_close(u->h);
		u->h = NULL;
		sleep_ms(5);
		if (refind(u, cand.path, cand.dd.idVendor, cand.dd.idProduct,
			   want_cfg, u->reenum_ms, err, errlen) != 0)
			return -1;
	} else {
		libusb_unref_device(dev);
	}
	dev = libusb_get_device(u->h);
	u->busdev = (uint32_t)libusb_get_bus_number(dev) << 16 |
		libusb_get_device_address(dev);
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
	if (u->proto != CH39X_LIBUSB_VENDOR)
		return setup_cdc(u, want_cfg, err, errlen);
	r = libusb_get_active_config_descriptor(dev, &c);
	if (r != 0) {
		snprintf(err, errlen, "configuration descriptor: %s",
			 libusb_error_name(r));
		return -1;
	}
	r = setup_vendor(u, c, err, errlen);
	libusb_free_config_descriptor(c);
	return r;
}

struct ch39x_usb_dev *
ch39x_libusb_open(const struct ch39x_libusb_sel *sel, char *err,
		  size_t errlen)
{
	unsigned int protos = sel->protos ? sel->protos : CH39X_LIBUSB_ANY;
	struct lu_dev *u;
	int r, k;

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
	u->has_function = sel->has_function;
	u->function = sel->function;
	u->protos = protos;
	u->reenum_ms = sel->reenum_ms ? sel->reenum_ms : CH39X_LIBUSB_REENUM_MS;
	snprintf(u->sel_serial, sizeof(u->sel_serial), "%s",
		 sel->serial != NULL ? sel->serial : "");
	snprintf(u->sel_path, sizeof(u->sel_path), "%s",
		 sel->path != NULL ? sel->path : "");
	for (k = 0; k < CH39X_EP_COUNT; k++)
		pthread_mutex_init(&u->ep[k].lock, NULL);
	u->limit = usbfs_limit();
	u->wake_ep = -1;
	u->wake_ev = -1;
	u->bus_fd = -1;
	r = libusb_init(&u->ctx);
	if (r != 0) {
		snprintf(err, errlen, "libusb_init: %s", libusb_error_name(r));
		goto fail;
	}
	if (lu_attach(u, sel, err, errlen) != 0)
		goto fail;
	/*
	 * The port's place, should the device leave and return: as the
	 * selection named it, else by the serial number it has, else at the
	 * path it is at (ch39x_libusb_return.c).
	 */
	if (u->sel_serial[0] == '\0' && u->sel_path[0] == '\0') {
		if (u->info.serial[0] != '\0')
			snprintf(u->sel_serial, sizeof(u->sel_serial), "%s",
				 u->info.serial);
		else
			snprintf(u->sel_path, sizeof(u->sel_path), "%s",
				 u->path);
	}
	/* Failing, it logs and leaves Rx interrupts off: not fatal. */
	(void)lu_ready_set(u);
	return &u->base;
fail:
	/* A failed open leaves nothing taken, whatever keep says. */
	if (u->h != NULL)
		hand_back(u, false);
	lu_free(u);
	return NULL;
}
