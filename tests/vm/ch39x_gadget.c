/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

/*
 * A simulated CH397/CH398 on a real USB bus: a FunctionFS (usb_f_fs)
 * gadget program, run in the VM of tests/vm/run.sh, that puts the
 * library's device model (ch39x_sim.c) behind a vendor-class interface on
 * dummy_hcd. The model is used through its transport ops as a host would
 * use it:
 *
 * - EP0: vendor SETUP requests (FUNCTIONFS_ALL_CTRL_RECIP lets the
 *   device-recipient ones through) go to ops->control; a request the model
 *   refuses is stalled. An OUT request with a data stage is acknowledged by
 *   the bus before the model sees it, so a refusal there cannot be a stall:
 *   it is counted (ctrl_out_refused).
 * - Bulk OUT: read a packet at a time, so that the end of a host transfer
 *   is found the way the chip must find it (§5): a short
 *   packet or ZLP always; at SuperSpeed (no end mark) also when the bytes
 *   read so far end on a record boundary; on a V02 part at high/full speed
 *   after the TX_LS record and its trailer; a V01 part waits for the ZLP.
 *   The collected transfer is submitted to the model as one bulk OUT
 *   transfer, whose frames go out on the model's cable.
 * - Bulk IN: an IN transfer of the chip's size is submitted to the model
 *   and polled; what the model fills is written to the IN endpoint, with a
 *   ZLP when it is a packet multiple short of the transfer size.
 * - Interrupt IN: likewise, one event per transfer.
 *
 * The cable is wire=tap: a TAP interface in the guest, owned by the
 * guest's kernel, so that the guest's own ping reaches the host-side PMD
 * over real USB.
 *
 * With --function rndis it serves the model's RNDIS function instead
 * (§20), as Android's class triple (E0/01/03, which needs no functional
 * descriptor: FunctionFS refuses those): interface 0 with the interrupt
 * endpoint, interface 1 with the bulk pair, in an IAD. Class requests to
 * interface 0 (SEND_ENCAPSULATED_COMMAND, GET_ENCAPSULATED_RESPONSE) go to
 * the model; a transfer ends with a short packet or a ZLP only. Linux's
 * rndis_host binds to it (it hard-wires interfaces 0 and 1 when there is
 * no Union), which checks the model against the real host driver.
 *
 * Usage: ch39x_gadget --ffs DIR --pid 0x5397|0x5398 --speed high|super
 *          --tap IFNAME [--function vendor|rndis] [--mac XX:..]
 *          [--stats FILE] [--ready FILE]
 * SIGUSR1 writes the counters to the stats file; SIGTERM writes them and
 * exits.
 */

#include <endian.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/usb/ch9.h>
#include <linux/usb/functionfs.h>

#include "ch39x_rndis.h"
#include "ch39x_sim.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"

#define OUT_BUF_SIZE	65536
#define IN_XFERS	2
#define INTR_POLL_US	4000
#define CTRL_BUF_SIZE	4096

/* FunctionFS endpoint files, in descriptor order. */
enum { EPF_IN = 0, EPF_OUT, EPF_INTR, EPF_COUNT };

struct counters {
	uint64_t ctrl_setups;
	uint64_t ctrl_vendor;
	uint64_t ctrl_in_bytes;
	uint64_t ctrl_out_bytes;
	uint64_t ctrl_stalled;
	uint64_t ctrl_out_refused;
	uint64_t ctrl_nonvendor;
	uint64_t enables;
	uint64_t disables;
	uint64_t out_packets;
	uint64_t out_bytes;
	uint64_t out_xfers;
	uint64_t out_short_end;		/* ended by a short packet */
	uint64_t out_zlp_end;		/* ended by a ZLP */
	uint64_t out_record_end;	/* ended on a record boundary */
	uint64_t out_stray_zlp;
	uint64_t out_overflow;
	uint64_t out_errors;
	uint64_t in_xfers;
	uint64_t in_bytes;
	uint64_t in_zlps;
	uint64_t in_errors;
	uint64_t intr_events;
	uint64_t intr_errors;
	uint64_t model_errors;
};

static struct counters cnt;
static struct ch39x_usb_dev *model;
static bool rndis;		/* --function rndis */
static struct ch39x_profile prof;
static int ep0 = -1;
static int epf[EPF_COUNT] = { -1, -1, -1 };
static const char *stats_path;
/*
 * --replay DIR (RNDIS): the malformed cases of the fuzz corpus (files
 * bad_* of tests/fuzz/corpus/fuzz_rndis, the harness's layout: 8 bytes
 * of settings, then transfers as LE 16-bit length and bytes) sent on bulk
 * IN before the model's first transfer; what a host's parser must make of
 * them is counted here with the codec (replay_*).
 */
static const char *replay_dir;
static uint64_t replay_xfers, replay_bad, replay_frames;
static bool replay_done;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

#define CNT_ADD(f, v) __atomic_add_fetch(&cnt.f, (v), __ATOMIC_RELAXED)

static void
logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
logmsg(const char *fmt, ...)
{
	va_list ap;

	fputs("[ch39x_gadget] ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
pause_us(unsigned int us)
{
	struct timespec ts = { us / 1000000u, (long)(us % 1000000u) * 1000L };

	nanosleep(&ts, NULL);
}

/* ---- descriptors ---- */

struct ep_ss {
	struct usb_endpoint_descriptor_no_audio ep;
	struct usb_ss_ep_comp_descriptor comp;
} __attribute__((packed));

struct descs_fs_hs {
	struct usb_interface_descriptor intf;
	struct usb_endpoint_descriptor_no_audio ep[EPF_COUNT];
} __attribute__((packed));

struct descs_ss {
	struct usb_interface_descriptor intf;
	struct ep_ss ep[EPF_COUNT];
} __attribute__((packed));

struct descs {
	struct usb_functionfs_descs_head_v2 head;
	uint32_t fs_count;
	uint32_t hs_count;
	uint32_t ss_count;
	struct descs_fs_hs fs;
	struct descs_fs_hs hs;
	struct descs_ss ss;
} __attribute__((packed));

#define STR_INTERFACE "CH39x vendor interface (simulated)"

struct strs {
	struct usb_functionfs_strings_head head;
	uint16_t lang;
	char str[sizeof(STR_INTERFACE)];
} __attribute__((packed));

static void
intf_desc(struct usb_interface_descriptor *d)
{
	d->bLength = sizeof(*d);
	d->bDescriptorType = USB_DT_INTERFACE;
	d->bInterfaceNumber = 0;
	d->bAlternateSetting = 0;
	d->bNumEndpoints = EPF_COUNT;
	d->bInterfaceClass = USB_CLASS_VENDOR_SPEC;
	d->bInterfaceSubClass = 0;
	d->bInterfaceProtocol = 0;
	d->iInterface = 1;
}

/*
 * Bulk IN (1), bulk OUT (2), interrupt IN (3): the order the vendor
 * driver takes them in (§1). The interrupt endpoint carries
 * one event (16 bytes V01, 32 bytes V02) every 16 ms.
 */
static void
ep_descs(struct usb_endpoint_descriptor_no_audio *e, uint16_t bulk_maxp,
	 uint8_t intr_interval)
{
	unsigned int i;

	for (i = 0; i < EPF_COUNT; i++) {
		e[i].bLength = sizeof(e[i]);
		e[i].bDescriptorType = USB_DT_ENDPOINT;
	}
	e[EPF_IN].bEndpointAddress = 1 | USB_DIR_IN;
	e[EPF_IN].bmAttributes = USB_ENDPOINT_XFER_BULK;
	e[EPF_IN].wMaxPacketSize = htole16(bulk_maxp);
	e[EPF_OUT].bEndpointAddress = 2 | USB_DIR_OUT;
	e[EPF_OUT].bmAttributes = USB_ENDPOINT_XFER_BULK;
	e[EPF_OUT].wMaxPacketSize = htole16(bulk_maxp);
	e[EPF_INTR].bEndpointAddress = 3 | USB_DIR_IN;
	e[EPF_INTR].bmAttributes = USB_ENDPOINT_XFER_INT;
	e[EPF_INTR].wMaxPacketSize = htole16(prof.intr_len);
	e[EPF_INTR].bInterval = intr_interval;
}

/*
 * The RNDIS function: IAD, interface 0 (E0/01/03) with the interrupt IN
 * endpoint (8 bytes), interface 1 (0A/00/00) with bulk IN and OUT.
 * FunctionFS names the endpoint files in this order: ep1 interrupt, ep2
 * bulk IN, ep3 bulk OUT.
 */
struct rndis_fs_hs {
	struct usb_interface_assoc_descriptor iad;
	struct usb_interface_descriptor ctrl;
	struct usb_endpoint_descriptor_no_audio intr;
	struct usb_interface_descriptor data;
	struct usb_endpoint_descriptor_no_audio in;
	struct usb_endpoint_descriptor_no_audio out;
} __attribute__((packed));

struct rndis_ss {
	struct usb_interface_assoc_descriptor iad;
	struct usb_interface_descriptor ctrl;
	struct ep_ss intr;
	struct usb_interface_descriptor data;
	struct ep_ss in;
	struct ep_ss out;
} __attribute__((packed));

struct rndis_descs {
	struct usb_functionfs_descs_head_v2 head;
	uint32_t fs_count;
	uint32_t hs_count;
	uint32_t ss_count;
	struct rndis_fs_hs fs;
	struct rndis_fs_hs hs;
	struct rndis_ss ss;
} __attribute__((packed));

static void
rndis_ep(struct usb_endpoint_descriptor_no_audio *e, uint8_t addr,
	 uint8_t type, uint16_t maxp, uint8_t interval)
{
	e->bLength = sizeof(*e);
	e->bDescriptorType = USB_DT_ENDPOINT;
	e->bEndpointAddress = addr;
	e->bmAttributes = type;
	e->wMaxPacketSize = htole16(maxp);
	e->bInterval = interval;
}

static void
rndis_intfs(struct usb_interface_assoc_descriptor *iad,
	    struct usb_interface_descriptor *c,
	    struct usb_interface_descriptor *d)
{
	iad->bLength = sizeof(*iad);
	iad->bDescriptorType = USB_DT_INTERFACE_ASSOCIATION;
	iad->bFirstInterface = 0;
	iad->bInterfaceCount = 2;
	iad->bFunctionClass = 0xE0;
	iad->bFunctionSubClass = 0x01;
	iad->bFunctionProtocol = 0x03;
	c->bLength = sizeof(*c);
	c->bDescriptorType = USB_DT_INTERFACE;
	c->bInterfaceNumber = 0;
	c->bNumEndpoints = 1;
	c->bInterfaceClass = 0xE0;
	c->bInterfaceSubClass = 0x01;
	c->bInterfaceProtocol = 0x03;
	c->iInterface = 1;
	d->bLength = sizeof(*d);
	d->bDescriptorType = USB_DT_INTERFACE;
	d->bInterfaceNumber = 1;
	d->bNumEndpoints = 2;
	d->bInterfaceClass = 0x0A;
}

static int
write_rndis_descriptors(void)
{
	struct rndis_descs d;

	memset(&d, 0, sizeof(d));
	d.head.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	d.head.length = htole32(sizeof(d));
	d.head.flags = htole32(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC |
			       FUNCTIONFS_HAS_SS_DESC);
	d.fs_count = htole32(6);
	d.hs_count = htole32(6);
	d.ss_count = htole32(9);
	rndis_intfs(&d.fs.iad, &d.fs.ctrl, &d.fs.data);
	rndis_intfs(&d.hs.iad, &d.hs.ctrl, &d.hs.data);
	rndis_intfs(&d.ss.iad, &d.ss.ctrl, &d.ss.data);
	rndis_ep(&d.fs.intr, 3 | USB_DIR_IN, USB_ENDPOINT_XFER_INT, 8, 16);
	rndis_ep(&d.fs.in, 1 | USB_DIR_IN, USB_ENDPOINT_XFER_BULK, 64, 0);
	rndis_ep(&d.fs.out, 2 | USB_DIR_OUT, USB_ENDPOINT_XFER_BULK, 64, 0);
	rndis_ep(&d.hs.intr, 3 | USB_DIR_IN, USB_ENDPOINT_XFER_INT, 8, 8);
	rndis_ep(&d.hs.in, 1 | USB_DIR_IN, USB_ENDPOINT_XFER_BULK, 512, 0);
	rndis_ep(&d.hs.out, 2 | USB_DIR_OUT, USB_ENDPOINT_XFER_BULK, 512, 0);
	rndis_ep(&d.ss.intr.ep, 3 | USB_DIR_IN, USB_ENDPOINT_XFER_INT, 8, 8);
	rndis_ep(&d.ss.in.ep, 1 | USB_DIR_IN, USB_ENDPOINT_XFER_BULK, 1024, 0);
	rndis_ep(&d.ss.out.ep, 2 | USB_DIR_OUT, USB_ENDPOINT_XFER_BULK, 1024,
		 0);
	d.ss.intr.comp.bLength = USB_DT_SS_EP_COMP_SIZE;
	d.ss.intr.comp.bDescriptorType = USB_DT_SS_ENDPOINT_COMP;
	d.ss.intr.comp.wBytesPerInterval = htole16(8);
	d.ss.in.comp = d.ss.intr.comp;
	d.ss.in.comp.wBytesPerInterval = 0;
	d.ss.out.comp = d.ss.in.comp;
	if (write(ep0, &d, sizeof(d)) != (ssize_t)sizeof(d)) {
		logmsg("writing RNDIS descriptors: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int
write_strings(void);

static int
write_descriptors(void)
{
	struct usb_endpoint_descriptor_no_audio tmp[EPF_COUNT];
	struct descs d;
	unsigned int i;

	memset(&d, 0, sizeof(d));
	d.head.magic = htole32(FUNCTIONFS_DESCRIPTORS_MAGIC_V2);
	d.head.length = htole32(sizeof(d));
	d.head.flags = htole32(FUNCTIONFS_HAS_FS_DESC | FUNCTIONFS_HAS_HS_DESC |
			       FUNCTIONFS_HAS_SS_DESC |
			       FUNCTIONFS_ALL_CTRL_RECIP);
	d.fs_count = htole32(1 + EPF_COUNT);
	d.hs_count = htole32(1 + EPF_COUNT);
	d.ss_count = htole32(1 + 2 * EPF_COUNT);
	intf_desc(&d.fs.intf);
	intf_desc(&d.hs.intf);
	intf_desc(&d.ss.intf);
	/* Full speed: bInterval in frames; high/super: 2^(n-1) microframes. */
	ep_descs(d.fs.ep, 64, 16);
	ep_descs(d.hs.ep, 512, 8);
	ep_descs(tmp, 1024, 8);
	for (i = 0; i < EPF_COUNT; i++) {
		d.ss.ep[i].ep = tmp[i];
		d.ss.ep[i].comp.bLength = USB_DT_SS_EP_COMP_SIZE;
		d.ss.ep[i].comp.bDescriptorType = USB_DT_SS_ENDPOINT_COMP;
	}
	d.ss.ep[EPF_INTR].comp.wBytesPerInterval = htole16(prof.intr_len);
	if (write(ep0, &d, sizeof(d)) != (ssize_t)sizeof(d)) {
		logmsg("writing descriptors: %s", strerror(errno));
		return -1;
	}
	return write_strings();
}

static int
write_strings(void)
{
	struct strs s;

	memset(&s, 0, sizeof(s));
	s.head.magic = htole32(FUNCTIONFS_STRINGS_MAGIC);
	s.head.length = htole32(sizeof(s));
	s.head.str_count = htole32(1);
	s.head.lang_count = htole32(1);
	s.lang = htole16(0x0409);
	memcpy(s.str, STR_INTERFACE, sizeof(STR_INTERFACE));
	if (write(ep0, &s, sizeof(s)) != (ssize_t)sizeof(s)) {
		logmsg("writing strings: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- counters ---- */

static void
write_stats(void)
{
	struct ch39x_sim_counters mc;
	uint64_t *c = (uint64_t *)&cnt;
	static const char *const names[] = {
		"ctrl_setups", "ctrl_vendor", "ctrl_in_bytes",
		"ctrl_out_bytes", "ctrl_stalled", "ctrl_out_refused",
		"ctrl_nonvendor", "enables", "disables", "out_packets",
		"out_bytes", "out_xfers", "out_short_end", "out_zlp_end",
		"out_record_end", "out_stray_zlp", "out_overflow",
		"out_errors", "in_xfers", "in_bytes", "in_zlps", "in_errors",
		"intr_events", "intr_errors", "model_errors",
	};
	char tmp[512];
	unsigned int i;
	FILE *f;

	_Static_assert(sizeof(names) / sizeof(names[0]) ==
		       sizeof(struct counters) / sizeof(uint64_t),
		       "a name per counter");
	if (stats_path == NULL)
		return;
	pthread_mutex_lock(&stats_lock);
	snprintf(tmp, sizeof(tmp), "%s.tmp", stats_path);
	f = fopen(tmp, "w");
	if (f == NULL) {
		pthread_mutex_unlock(&stats_lock);
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		fprintf(f, "%s=%" PRIu64 "\n", names[i],
			__atomic_load_n(&c[i], __ATOMIC_RELAXED));
	ch39x_sim_get_counters(model, &mc);
	fprintf(f, "model_wire_rx_frames=%" PRIu64 "\n"
		"model_rx_filtered=%" PRIu64 "\n"
		"model_rx_oversize=%" PRIu64 "\n"
		"model_rx_overflow=%" PRIu64 "\n"
		"model_rx_delivered=%" PRIu64 "\n"
		"model_tx_frames=%" PRIu64 "\n"
		"model_tx_bad_records=%" PRIu64 "\n"
		"model_tx_unterminated=%" PRIu64 "\n"
		"model_tx_ls_seen=%" PRIu64 "\n"
		"model_tx_zlp_seen=%" PRIu64 "\n"
		"model_tx_wire_dropped=%" PRIu64 "\n"
		"model_events_sent=%" PRIu64 "\n"
		"model_ctrl_requests=%" PRIu64 "\n"
		"model_ctrl_stalls=%" PRIu64 "\n"
		"model_rndis_responses=%" PRIu64 "\n"
		"model_rndis_resp_dropped=%" PRIu64 "\n"
		"model_rndis_bad_msgs=%" PRIu64 "\n"
		"model_link=%d\n"
		"replay_done=%d\n"
		"replay_xfers=%" PRIu64 "\n"
		"replay_bad=%" PRIu64 "\n"
		"replay_frames=%" PRIu64 "\n",
		mc.wire_rx_frames, mc.rx_filtered, mc.rx_oversize,
		mc.rx_overflow, mc.rx_delivered, mc.tx_frames,
		mc.tx_bad_records, mc.tx_unterminated, mc.tx_ls_seen,
		mc.tx_zlp_seen, mc.tx_wire_dropped, mc.events_sent,
		mc.ctrl_requests, mc.ctrl_stalls, mc.rndis_responses,
		mc.rndis_resp_dropped, mc.rndis_bad_msgs,
		ch39x_sim_link(model), __atomic_load_n(&replay_done,
						       __ATOMIC_RELAXED),
		replay_xfers, replay_bad, replay_frames);
	fclose(f);
	rename(tmp, stats_path);
	pthread_mutex_unlock(&stats_lock);
}

static void *
signal_thread(void *arg)
{
	sigset_t *set = arg;
	int sig;

	for (;;) {
		if (sigwait(set, &sig) != 0)
			continue;
		write_stats();
		if (sig != SIGUSR1)
			_exit(0);
	}
	return NULL;
}

/* ---- EP0 ---- */

static void
ep0_stall(const struct usb_ctrlrequest *c)
{
	ssize_t r;

	CNT_ADD(ctrl_stalled, 1);
	/* FunctionFS stalls when asked for the opposite direction. */
	if (c->bRequestType & USB_DIR_IN)
		r = read(ep0, NULL, 0);
	else
		r = write(ep0, NULL, 0);
	(void)r;
}

static void
ep0_setup(const struct usb_ctrlrequest *c)
{
	static uint8_t buf[CTRL_BUF_SIZE];
	uint16_t value = le16toh(c->wValue), index = le16toh(c->wIndex);
	uint16_t len = le16toh(c->wLength);
	ssize_t n;
	int rc;

	CNT_ADD(ctrl_setups, 1);
	if ((c->bRequestType & USB_TYPE_MASK) !=
	    (rndis ? USB_TYPE_CLASS : USB_TYPE_VENDOR) || len > sizeof(buf)) {
		CNT_ADD(ctrl_nonvendor, 1);
		ep0_stall(c);
		return;
	}
	CNT_ADD(ctrl_vendor, 1);
	if (c->bRequestType & USB_DIR_IN) {
		memset(buf, 0, len);
		rc = model->ops->control(model, c->bRequestType, c->bRequest,
					 value, index, buf, len, 500);
		if (rc < 0) {
			ep0_stall(c);
			return;
		}
		n = write(ep0, buf, (size_t)rc);
		if (n == rc)
			CNT_ADD(ctrl_in_bytes, (uint64_t)rc);
		else
			logmsg("ep0 IN data (req 0x%02x): %s", c->bRequest,
			       n < 0 ? strerror(errno) : "short");
		return;
	}
	if (len == 0) {
		rc = model->ops->control(model, c->bRequestType, c->bRequest,
					 value, index, NULL, 0, 500);
		if (rc < 0) {
			ep0_stall(c);
			return;
		}
		/* A zero-length read completes the status stage. */
		if (read(ep0, NULL, 0) < 0)
			logmsg("ep0 status (req 0x%02x): %s", c->bRequest,
			       strerror(errno));
		return;
	}
	n = read(ep0, buf, len);
	if (n != len) {
		logmsg("ep0 OUT data (req 0x%02x): %s", c->bRequest,
		       n < 0 ? strerror(errno) : "short");
		return;
	}
	CNT_ADD(ctrl_out_bytes, len);
	rc = model->ops->control(model, c->bRequestType, c->bRequest, value,
				 index, buf, len, 500);
	if (rc < 0) {
		CNT_ADD(ctrl_out_refused, 1);
		logmsg("model refused OUT request 0x%02x wValue 0x%04x "
		       "wIndex 0x%04x (already acknowledged on the bus)",
		       c->bRequest, value, index);
	}
}

/* ---- bulk OUT ---- */

/*
 * Whether the bytes so far end a transfer on their own (no short packet):
 * they hold whole records, and the profile's end rule says so.
 */
static bool
out_ends_on_record(const uint8_t *b, uint32_t len)
{
	uint32_t off = 0, cmd0, flen;

	while (off + CH39X_HDR_LEN <= len) {
		cmd0 = (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 |
			(uint32_t)b[off + 2] << 16 | (uint32_t)b[off + 3] << 24;
		flen = cmd0 & CH39X_TX_LEN_MASK;
		if (flen == 0)
			return false;
		off += (CH39X_HDR_LEN + flen + 3) & ~3u;
		if (prof.tx_ls && (cmd0 & CH39X_TX_LS))
			return off + CH39X_TX_TRAILER == len;
	}
	/* V01 always ends with a ZLP; V02 at high speed with TX_LS. */
	return off == len && !prof.tx_zlp && !prof.tx_ls;
}

static void
out_submit(uint8_t *buf, uint32_t len, bool zlp)
{
	struct ch39x_xfer x, *done;
	int tries;

	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_BULK_OUT;
	x.buf = buf;
	x.len = len;
	x.zlp = zlp;
	if (model->ops->submit(model, &x) != 0) {
		CNT_ADD(model_errors, 1);
		return;
	}
	for (tries = 0; tries < 100000; tries++) {
		if (model->ops->poll(model, CH39X_EP_BULK_OUT, &done, 1) == 1)
			break;
		pause_us(10);
	}
	if (x.in_flight || x.status != CH39X_XFER_OK)
		CNT_ADD(model_errors, 1);
	CNT_ADD(out_xfers, 1);
}

static void *
out_thread(void *arg)
{
	static uint8_t buf[OUT_BUF_SIZE];
	uint32_t maxp = prof.bulk_maxp, len = 0;
	ssize_t n;

	(void)arg;
	for (;;) {
		/*
		 * RNDIS: a transfer ends with a short packet or a ZLP only,
		 * which ends a FunctionFS read too: one read per transfer.
		 */
		if (rndis) {
			n = read(epf[EPF_OUT], buf, sizeof(buf));
			if (n < 0) {
				if (errno != EINTR)
					CNT_ADD(out_errors, 1);
				pause_us(20000);
				continue;
			}
			CNT_ADD(out_bytes, (uint64_t)n);
			if (n == 0) {
				CNT_ADD(out_stray_zlp, 1);
				continue;
			}
			if (n % maxp == 0)
				CNT_ADD(out_zlp_end, 1);
			else
				CNT_ADD(out_short_end, 1);
			out_submit(buf, (uint32_t)n, n % maxp == 0);
			continue;
		}
		n = read(epf[EPF_OUT], buf + len, maxp);
		if (n < 0) {
			/* Disabled (reset, unconfigured): the transfer is lost. */
			if (errno != EINTR)
				CNT_ADD(out_errors, 1);
			len = 0;
			pause_us(20000);
			continue;
		}
		CNT_ADD(out_packets, 1);
		CNT_ADD(out_bytes, (uint64_t)n);
		len += (uint32_t)n;
		if ((uint32_t)n < maxp) {
			if (len == 0) {
				CNT_ADD(out_stray_zlp, 1);
				continue;
			}
			if (n == 0)
				CNT_ADD(out_zlp_end, 1);
			else
				CNT_ADD(out_short_end, 1);
			out_submit(buf, len, n == 0);
			len = 0;
		} else if (!rndis && out_ends_on_record(buf, len)) {
			CNT_ADD(out_record_end, 1);
			out_submit(buf, len, false);
			len = 0;
		} else if (len + maxp > sizeof(buf)) {
			CNT_ADD(out_overflow, 1);
			out_submit(buf, len, false);
			len = 0;
		}
	}
	return NULL;
}

/* ---- bulk IN and interrupt IN ---- */

static void
in_write(int fd, const uint8_t *buf, uint32_t len, bool zlp)
{
	ssize_t n = write(fd, buf, len);

	if (n != (ssize_t)len) {
		CNT_ADD(in_errors, 1);
		return;
	}
	CNT_ADD(in_xfers, 1);
	CNT_ADD(in_bytes, len);
	if (zlp) {
		if (write(fd, buf, 0) == 0)
			CNT_ADD(in_zlps, 1);
		else
			CNT_ADD(in_errors, 1);
	}
}

static int
name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
bad_case(const struct dirent *d)
{
	return strncmp(d->d_name, "bad_", 4) == 0;
}

/* One corpus file's transfers onto bulk IN, and what a host must count. */
static void
replay_file(const char *path, struct ch39x_rndis_rx *rx)
{
	static uint8_t f[65536];
	struct ch39x_rndis_frame fr;
	uint64_t bad0 = ch39x_rndis_rx_bad(&rx->stats);
	size_t n, off = 8;
	uint32_t len;
	FILE *fp;

	fp = fopen(path, "rb");
	if (fp == NULL)
		return;
	n = fread(f, 1, sizeof(f), fp);
	fclose(fp);
	while (off < n) {
		len = n - off >= 2 ? (uint32_t)f[off] | (uint32_t)f[off + 1] << 8
			: 0;
		off += n - off >= 2 ? 2 : n - off;
		if (len > n - off)
			len = (uint32_t)(n - off);
		ch39x_rndis_rx_begin(rx, f + off, len);
		while (ch39x_rndis_rx_next(rx, &fr) == 1)
			replay_frames++;
		/* An empty transfer is a ZLP of its own. */
		in_write(epf[EPF_IN], f + off, len,
			 len != 0 && len % prof.bulk_maxp == 0);
		replay_xfers++;
		off += len;
	}
	replay_bad += ch39x_rndis_rx_bad(&rx->stats) - bad0;
}

static void
replay(void)
{
	struct ch39x_rndis_rx_cfg c = { .max_frame = 9018 };
	struct ch39x_rndis_rx rx;
	struct dirent **names;
	char path[512];
	int n, i;

	ch39x_rndis_rx_init(&rx, &c);
	n = scandir(replay_dir, &names, bad_case, name_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", replay_dir,
			 names[i]->d_name);
		replay_file(path, &rx);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	logmsg("replayed %d corpus files: %" PRIu64 " transfers, %" PRIu64
	       " bad messages, %" PRIu64 " frames", n, replay_xfers, replay_bad,
	       replay_frames);
	__atomic_store_n(&replay_done, true, __ATOMIC_RELEASE);
	write_stats();
}

static void *
in_thread(void *arg)
{
	static struct ch39x_xfer xs[IN_XFERS];
	struct ch39x_xfer *done[IN_XFERS], *x;
	unsigned int i, n, idle = 0;
	uint32_t size = prof.rx_xfer_size;

	(void)arg;
	for (i = 0; i < IN_XFERS; i++) {
		xs[i].ep = CH39X_EP_BULK_IN;
		xs[i].len = size;
		xs[i].buf = malloc(size);
		if (xs[i].buf == NULL ||
		    model->ops->submit(model, &xs[i]) != 0) {
			logmsg("bulk IN: cannot start");
			exit(2);
		}
	}
	for (;;) {
		n = model->ops->poll(model, CH39X_EP_BULK_IN, done, IN_XFERS);
		for (i = 0; i < n; i++) {
			x = done[i];
			/*
			 * RNDIS: the model pads a packet multiple and says
			 * when a ZLP must follow (x->zlp), as it knows the
			 * host's MaxTransferSize.
			 */
			/* The host takes data now: the replay goes first. */
			if (replay_dir != NULL && !replay_done &&
			    x->status == CH39X_XFER_OK && x->actual > 0)
				replay();
			if (x->status == CH39X_XFER_OK && x->actual > 0)
				in_write(epf[EPF_IN], x->buf, x->actual,
					 rndis ? x->zlp :
					 x->actual < x->len &&
					 x->actual % prof.bulk_maxp == 0);
			else if (x->status != CH39X_XFER_OK)
				CNT_ADD(model_errors, 1);
			if (model->ops->submit(model, x) != 0)
				CNT_ADD(model_errors, 1);
		}
		/* Idle: back off from 20 us to 1 ms. */
		if (n > 0) {
			idle = 0;
		} else {
			if (idle < 50)
				idle++;
			pause_us(idle * 20);
		}
	}
	return NULL;
}

static void *
intr_thread(void *arg)
{
	static uint8_t buf[64];
	struct ch39x_xfer x, *done;
	ssize_t n;

	(void)arg;
	memset(&x, 0, sizeof(x));
	x.ep = CH39X_EP_INTR_IN;
	x.buf = buf;
	x.len = rndis ? CH39X_RNDIS_NOTIFY_LEN : prof.intr_len;
	if (model->ops->submit(model, &x) != 0) {
		logmsg("interrupt IN: cannot start");
		exit(2);
	}
	for (;;) {
		if (model->ops->poll(model, CH39X_EP_INTR_IN, &done, 1) == 0) {
			pause_us(INTR_POLL_US);
			continue;
		}
		if (x.status == CH39X_XFER_OK) {
			n = write(epf[EPF_INTR], x.buf, x.actual);
			if (n == (ssize_t)x.actual)
				CNT_ADD(intr_events, 1);
			else
				CNT_ADD(intr_errors, 1);
		} else {
			CNT_ADD(model_errors, 1);
		}
		if (model->ops->submit(model, &x) != 0) {
			CNT_ADD(model_errors, 1);
			pause_us(INTR_POLL_US);
		}
	}
	return NULL;
}

/* ---- main ---- */

static int
parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6], i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -1;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -1;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: ch39x_gadget --ffs DIR --pid 0x5397|0x5398 "
		"--speed high|super --tap IFNAME [--function vendor|rndis] "
		"[--mac MAC] [--stats FILE] [--ready FILE] [--replay DIR]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	static const char *const ep_names[EPF_COUNT] = { "ep1", "ep2", "ep3" };
	/* RNDIS: the interrupt endpoint comes first (interface 0). */
	static const char *const rndis_ep_names[EPF_COUNT] = {
		[EPF_IN] = "ep2", [EPF_OUT] = "ep3", [EPF_INTR] = "ep1",
	};
	struct usb_functionfs_event ev[4];
	struct ch39x_sim_config cfg;
	const char *ffs = NULL, *tap = NULL, *ready = NULL;
	pthread_t th[4];
	sigset_t set;
	char path[512], err[256];
	bool started = false;
	unsigned int i, n;
	ssize_t r;
	int k;
	FILE *f;

	memset(&cfg, 0, sizeof(cfg));
	cfg.pid = CH39X_PID_CH398;
	cfg.speed = CH39X_SPEED_HIGH;
	for (k = 1; k + 1 < argc; k += 2) {
		if (strcmp(argv[k], "--ffs") == 0)
			ffs = argv[k + 1];
		else if (strcmp(argv[k], "--pid") == 0)
			cfg.pid = (uint16_t)strtoul(argv[k + 1], NULL, 0);
		else if (strcmp(argv[k], "--speed") == 0)
			cfg.speed = strcmp(argv[k + 1], "super") == 0 ?
				CH39X_SPEED_SUPER : strcmp(argv[k + 1],
				"full") == 0 ? CH39X_SPEED_FULL :
				CH39X_SPEED_HIGH;
		else if (strcmp(argv[k], "--tap") == 0)
			tap = argv[k + 1];
		else if (strcmp(argv[k], "--function") == 0) {
			if (strcmp(argv[k + 1], "rndis") == 0)
				rndis = true;
			else if (strcmp(argv[k + 1], "vendor") != 0)
				usage();
		}
		else if (strcmp(argv[k], "--mac") == 0) {
			if (parse_mac(argv[k + 1], cfg.mac) != 0)
				usage();
		} else if (strcmp(argv[k], "--stats") == 0)
			stats_path = argv[k + 1];
		else if (strcmp(argv[k], "--replay") == 0)
			replay_dir = argv[k + 1];
		else if (strcmp(argv[k], "--ready") == 0)
			ready = argv[k + 1];
		else
			usage();
	}
	if (k != argc || ffs == NULL || tap == NULL ||
	    strlen(tap) >= sizeof(cfg.tap_name))
		usage();
	/*
	 * RNDIS: --pid is the gadget's (configfs) product ID; the model is
	 * a CH398's, for its bus timing and buffer sizes.
	 */
	if (rndis)
		cfg.pid = CH39X_PID_CH398;
	if (ch39x_profile_init(&prof, cfg.pid, cfg.speed) != 0) {
		logmsg("no profile for pid 0x%04x at that speed", cfg.pid);
		return 2;
	}
	cfg.wire = CH39X_WIRE_TAP;
	if (rndis) {
		cfg.framing = CH39X_FRAMING_RNDIS;
		cfg.ncm_quirks = CH39X_SIM_RNDIS_WIRELESS;
	}
	snprintf(cfg.tap_name, sizeof(cfg.tap_name), "%s", tap);
	/* The real bus sets the pace; the model adds no timing of its own. */
	cfg.line_rate = false;
	model = ch39x_sim_open(&cfg, err, sizeof(err));
	if (model == NULL) {
		logmsg("model: %s", err);
		return 2;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pthread_create(&th[3], NULL, signal_thread, &set) != 0)
		return 2;

	snprintf(path, sizeof(path), "%s/ep0", ffs);
	ep0 = open(path, O_RDWR);
	if (ep0 < 0) {
		logmsg("%s: %s", path, strerror(errno));
		return 2;
	}
	if ((rndis ? write_rndis_descriptors() != 0 || write_strings() != 0 :
	     write_descriptors() != 0))
		return 2;
	for (i = 0; i < EPF_COUNT; i++) {
		snprintf(path, sizeof(path), "%s/%s", ffs,
			 rndis ? rndis_ep_names[i] : ep_names[i]);
		epf[i] = open(path, O_RDWR);
		if (epf[i] < 0) {
			logmsg("%s: %s", path, strerror(errno));
			return 2;
		}
	}
	if (ready != NULL) {
		f = fopen(ready, "w");
		if (f != NULL) {
			fprintf(f, "%d\n", (int)getpid());
			fclose(f);
		}
	}
	logmsg("%s model (pid 0x%04x, %s speed, bulk maxp %u, intr %u bytes) "
	       "on %s, cable tap:%s", rndis ? "RNDIS" :
	       ch39x_chip_name(cfg.pid), cfg.pid,
	       cfg.speed == CH39X_SPEED_SUPER ? "super" : "high",
	       prof.bulk_maxp, prof.intr_len, ffs, tap);

	for (;;) {
		r = read(ep0, ev, sizeof(ev));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			logmsg("ep0 read: %s", strerror(errno));
			pause_us(10000);
			continue;
		}
		n = (unsigned int)r / sizeof(ev[0]);
		for (i = 0; i < n; i++) {
			switch (ev[i].type) {
			case FUNCTIONFS_ENABLE:
				CNT_ADD(enables, 1);
				if (started)
					break;
				/* Endpoint I/O blocks until enabled anyway. */
				started = true;
				if (pthread_create(&th[0], NULL, out_thread,
						   NULL) != 0 ||
				    pthread_create(&th[1], NULL, in_thread,
						   NULL) != 0 ||
				    pthread_create(&th[2], NULL, intr_thread,
						   NULL) != 0) {
					logmsg("cannot start threads");
					return 2;
				}
				break;
			case FUNCTIONFS_DISABLE:
				CNT_ADD(disables, 1);
				break;
			case FUNCTIONFS_SETUP:
				ep0_setup(&ev[i].u.setup);
				break;
			default:
				break;
			}
		}
	}
	return 0;
}
