/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend: which device (enumeration, classification, the
 * devargs' VID:PID and protocols). "§N" cites section N of
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

/* ---- selection ---- */


int
proto_bit(unsigned int p)
{
	return p == CH39X_LIBUSB_VENDOR ? 0 : p == CH39X_LIBUSB_NCM ? 1 : 2;
}

void
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

/*
 * NCM and ECM functions of one configuration, from the parsed tree; with
 * function >= 0, only the one whose communication interface has that
 * number.
 */
static unsigned int
cdc_offers(const struct libusb_config_descriptor *c, int function)
{
	bool ncm = false, ecm = false, data = false;
	const struct libusb_interface_descriptor *a;
	int i, j;

	for (i = 0; i < c->bNumInterfaces; i++) {
		for (j = 0; j < c->interface[i].num_altsetting; j++) {
			a = &c->interface[i].altsetting[j];
			if (function >= 0 &&
			    a->bInterfaceClass == CH39X_CDC_CLASS_COMM &&
			    a->bInterfaceNumber != function)
				continue;
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
classify(struct lu_cand *c, int function)
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
		m = cdc_offers(cfg, function);
		/* A function number names a CDC function, no vendor one. */
		if (vcfg != 0 && cfg->bConfigurationValue == vcfg &&
		    function < 0)
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
	if (sel->has_function && off < len)
		off += (size_t)snprintf(buf + off, len - off, "function=%u ",
					sel->function);
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
libusb_device *
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
		classify(c, sel->has_function ? sel->function : -1);
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
