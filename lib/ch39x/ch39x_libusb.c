/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The libusb backend: the transport ops, usbfs memory. "§N" cites section N of
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

#include <poll.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "ch39x_libusb_priv.h"

void
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
int
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

enum ch39x_xfer_status
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

uint8_t
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

const char *
speed_name(uint8_t s)
{
	switch (s) {
	case CH39X_SPEED_FULL: return "full";
	case CH39X_SPEED_HIGH: return "high";
	case CH39X_SPEED_SUPER: return "super";
	default: return "unknown";
	}
}

const char *
proto_name(unsigned int p)
{
	switch (p) {
	case CH39X_LIBUSB_VENDOR: return "vendor";
	case CH39X_LIBUSB_NCM: return "ncm";
	case CH39X_LIBUSB_ECM: return "ecm";
	case CH39X_LIBUSB_RNDIS: return "rndis";
	case CH39X_LIBUSB_MBIM: return "mbim";
	default: return "?";
	}
}

/*
 * Interrupt bInterval in milliseconds: frames at full/low speed, 2^(n-1)
 * microframes of 125 us at high speed and SuperSpeed (USB 2.0 9.6.6).
 */
uint8_t
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

void
sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The cap on usbfs memory in bytes, 0 when none or unknown. */
uint64_t
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

void
ch39x_libusb_event_stats(struct ch39x_usb_dev *d,
			 struct ch39x_libusb_events *e)
{
	struct lu_dev *u = to_lu(d);

	e->rounds = __atomic_load_n(&u->rounds, __ATOMIC_RELAXED);
	e->spared = __atomic_load_n(&u->spared, __ATOMIC_RELAXED);
	e->completed = __atomic_load_n(&u->completed, __ATOMIC_RELAXED);
}

static uint8_t *
buf_alloc(struct ch39x_usb_dev *d, size_t size, enum ch39x_buf_kind *kind)
{
	struct lu_dev *u = to_lu(d);
	long pg = sysconf(_SC_PAGESIZE);
	size_t acct = (size + (size_t)pg - 1) & ~((size_t)pg - 1);
	struct lu_buf *b = NULL;
	const char *why = "";
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
	if (u->devmem_failed)
		why = "the kernel gave none before";
	else if (u->limit != 0 && u->devmem_bytes + acct > u->limit)
		why = "usbcore.usbfs_memory_mb would be passed";
	else {
		p = libusb_dev_mem_alloc(u->h, size);
		/* Refused with none held: the kernel or HCD has none to give. */
		if (p == NULL && u->devmem_bufs == 0)
			u->devmem_failed = true;
		if (p == NULL)
			why = "the kernel refused it";
	}
	/*
	 * Heap buffers work, but usbfs copies each transfer once more: worth
	 * one line, the first time only.
	 */
	if (p == NULL && !u->heap_logged) {
		u->heap_logged = true;
		lu_log(u, "transfer buffers from the heap, not usbfs memory "
		       "(%s): the kernel copies every transfer", why);
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
	*kind = b->devmem ? CH39X_BUF_USBFS : CH39X_BUF_HEAP;
	return p;
}

uint8_t *
ch39x_libusb_buf_alloc(struct ch39x_usb_dev *d, size_t size)
{
	enum ch39x_buf_kind kind;

	return buf_alloc(d, size, &kind);
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

/*
 * The first asked protocol a device offers, in bit order: vendor, NCM,
 * ECM, RNDIS, MBIM; 0: none.
 */
unsigned int
lu_first_proto(unsigned int asked, unsigned int offers)
{
	unsigned int b;

	for (b = 0; b < CH39X_LIBUSB_PROTOS; b++)
		if (asked & offers & (1u << b))
			return 1u << b;
	return 0;
}

/* How frames travel for a protocol bit (0: CH39X_FRAMING_NONE). */
uint8_t
lu_framing(unsigned int proto)
{
	return proto == CH39X_LIBUSB_VENDOR ? CH39X_FRAMING_VENDOR :
		proto == CH39X_LIBUSB_NCM ? CH39X_FRAMING_NCM :
		proto == CH39X_LIBUSB_ECM ? CH39X_FRAMING_ECM :
		proto == CH39X_LIBUSB_RNDIS ? CH39X_FRAMING_RNDIS :
		proto == CH39X_LIBUSB_MBIM ? CH39X_FRAMING_MBIM :
		CH39X_FRAMING_NONE;
}

static int
lu_get_info(struct ch39x_usb_dev *d, struct ch39x_usb_info *info)
{
	struct lu_dev *u = to_lu(d);

	*info = u->info;
	info->framing = lu_framing(u->proto);
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
	struct lu_dev *u = w->u;
	struct lu_ep *ep = w->ep;
	struct ch39x_xfer *x = w->x;

	__atomic_fetch_add(&u->completed, 1, __ATOMIC_RELAXED);
	x->actual = (uint32_t)t->actual_length;
	x->status = lu_status(t->status);
	if (x->status == CH39X_XFER_NO_DEVICE)
		__atomic_store_n(&u->gone, true, __ATOMIC_RELAXED);
	if (w->heap_bytes)
		__atomic_fetch_sub(&u->in_flight, w->heap_bytes,
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
	/* A link event waits in the queue: its owner may be asleep. */
	if (ep == &u->ep[CH39X_EP_INTR_IN] && u->intr_fn != NULL)
		u->intr_fn(u->intr_arg);
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
			(b == NULL || !b->devmem || b->stale ? x->len : 0);
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

/*
 * Whether an event round could find anything: a descriptor of the ready
 * set is ready. Asked only when the last round completed nothing of this
 * device (quiet): an epoll_wait that finds the set empty costs less than
 * libusb's round, which polls every descriptor and, finding none ready,
 * reads the clock for its transfer timeouts (io.c handle_timeouts: a
 * system call where the clocksource has no vDSO, as hpet). Under load the
 * last round found something, and a look first would be a call more.
 */
static bool
lu_ready(struct lu_dev *u)
{
	struct epoll_event ev;

	if (u->wake_ep < 0 || !__atomic_load_n(&u->quiet, __ATOMIC_RELAXED))
		return true;
	/*
	 * A round at least every LU_SPARE_MAX looks all the same: what
	 * libusb would find without a ready descriptor (nothing, on Linux)
	 * waits at most that many looks.
	 */
	if (__atomic_load_n(&u->spared_run, __ATOMIC_RELAXED) >= LU_SPARE_MAX)
		return true;
	return epoll_wait(u->wake_ep, &ev, 1, 0) != 0;	/* -1: go round */
}

/*
 * One event round on this thread: libusb polls its descriptors and reaps
 * every URB the kernel has finished, for every endpoint (the callbacks
 * sort them into their endpoints' queues). None when nothing is ready
 * (lu_ready()): that counts as a round, which found nothing. None when
 * another thread is in one (the EAL thread looking at the interrupt
 * endpoint): that round reaps for both, and waiting for it would cost this
 * thread a futex and a clock read. Returns whether this thread made the
 * round or found it unnecessary.
 */
static bool
lu_sweep(struct lu_dev *u)
{
	struct timeval zero = { 0, 0 };
	uint64_t done;

	if (!lu_ready(u)) {
		__atomic_fetch_add(&u->spared_run, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&u->spared, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&u->sweeps, 1, __ATOMIC_RELEASE);
		return true;
	}
	if (libusb_try_lock_events(u->ctx) != 0)
		return false;
	done = __atomic_load_n(&u->completed, __ATOMIC_RELAXED);
	libusb_handle_events_locked(u->ctx, &zero);
	__atomic_store_n(&u->quiet, done ==
			 __atomic_load_n(&u->completed, __ATOMIC_RELAXED),
			 __ATOMIC_RELAXED);
	libusb_unlock_events(u->ctx);
	__atomic_store_n(&u->spared_run, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&u->rounds, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&u->sweeps, 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * The interrupt endpoint's poller (EAL's alarm thread, every 2 ms while
 * the port runs): an event round by another thread since its last look
 * (the application's RX bursts) reaped its transfer too, so it only takes
 * what is queued: no system call, and no contention for libusb's event
 * lock with the RX lcore. It makes the round itself when nobody else did
 * (an idle or sleeping application).
 */
static bool
lu_intr_swept(struct lu_dev *u, enum ch39x_ep ep_id)
{
	uint64_t seq;

	if (ep_id != CH39X_EP_INTR_IN)
		return false;
	seq = __atomic_load_n(&u->sweeps, __ATOMIC_ACQUIRE);
	if (seq == u->intr_seen)
		return false;
	u->intr_seen = seq;
	return true;
}

/*
 * The first bulk IN poll after arming, which an application makes in case
 * a frame came between its last poll and the arming (l3fwd-power's
 * pattern): rx_arm reaped just before, or a poll did since the disarm,
 * and whatever finishes after that makes the wake-up descriptor readable,
 * so that poll has nothing to reap; skipping its event round saves a
 * system call per port each time the application goes to sleep. One-shot:
 * an application that keeps polling while armed reaps from the next poll.
 */
static bool
lu_armed_repoll(struct lu_dev *u, enum ch39x_ep ep_id)
{
	if (ep_id != CH39X_EP_BULK_IN || !u->armed_fresh)
		return false;
	u->armed_fresh = false;
	return true;
}

/* Up to max of ep's collected transfers, in completion order. */
static unsigned int
lu_take(struct lu_ep *ep, struct ch39x_xfer **done, unsigned int max)
{
	struct ch39x_xfer *x;
	unsigned int n = 0;

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

static unsigned int
lu_poll(struct ch39x_usb_dev *d, enum ch39x_ep ep_id, struct ch39x_xfer **done,
	unsigned int max)
{
	struct lu_dev *u = to_lu(d);
	struct ch39x_xfer *x;
	struct lu_ep *ep;

	if (ep_id >= CH39X_EP_COUNT)
		return 0;
	ep = &u->ep[ep_id];
	/*
	 * Reap whatever the kernel has finished. Skipped while this endpoint
	 * still has completions queued: one reap collects every finished
	 * URB, and a burst that takes them one at a time (ECM: a frame per
	 * transfer) would otherwise pay the poll and reap system calls once
	 * per frame.
	 */
	pthread_mutex_lock(&ep->lock);
	x = ep->done_head;
	pthread_mutex_unlock(&ep->lock);
	if (x == NULL && !lu_armed_repoll(u, ep_id) &&
	    !lu_intr_swept(u, ep_id) && lu_sweep(u)) {
		if (ep_id == CH39X_EP_BULK_IN)
			u->swept = true;	/* rx_arm's thread */
		else if (ep_id == CH39X_EP_INTR_IN)
			u->intr_seen = __atomic_load_n(&u->sweeps,
						       __ATOMIC_ACQUIRE);
	}
	return lu_take(ep, done, max);
}

static unsigned int
lu_collect(struct ch39x_usb_dev *d, enum ch39x_ep ep_id,
	   struct ch39x_xfer **done, unsigned int max)
{
	struct lu_dev *u = to_lu(d);

	if (ep_id >= CH39X_EP_COUNT)
		return 0;
	return lu_take(&u->ep[ep_id], done, max);
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

/* ---- RX wake-ups (Rx interrupts) and the ready set ---- */

/*
 * usbfs reports a finished URB by making the device's file descriptor
 * writable (POLLOUT: devio.c usbdev_poll), and libusb's own descriptors
 * (its event and timer fds) readable. An epoll set holding all of them, as
 * libusb lists them, and an eventfd for the PMD's own signal becomes
 * readable (EPOLLIN) when any is ready: epoll sets nest. Made once, at
 * open: libusb on Linux does not change its descriptors while a device is
 * open. Two uses: the Rx interrupts' wake-up descriptor, and the look
 * that spares an event round when nothing is ready (lu_ready()).
 */
/*
 * libusb's descriptors into the set: at open, and after a reattach, whose
 * new context and device node have new ones (the old ones left the set
 * as they were closed). Returns 0 or a negative errno.
 */
int
lu_ready_add(struct lu_dev *u)
{
	const struct libusb_pollfd **pfds;
	struct epoll_event ev;
	int i, rc = 0;

	pfds = libusb_get_pollfds(u->ctx);
	if (pfds == NULL)
		return -ENOMEM;
	memset(&ev, 0, sizeof(ev));
	for (i = 0; rc == 0 && pfds[i] != NULL; i++) {
		ev.events = ((pfds[i]->events & POLLIN) ? EPOLLIN : 0) |
			((pfds[i]->events & POLLOUT) ? EPOLLOUT : 0);
		ev.data.fd = pfds[i]->fd;
		if (epoll_ctl(u->wake_ep, EPOLL_CTL_ADD, pfds[i]->fd, &ev) != 0 &&
		    errno != EEXIST)
			rc = -errno;
	}
	libusb_free_pollfds(pfds);
	return rc;
}

int
lu_ready_set(struct lu_dev *u)
{
	struct epoll_event ev;
	int rc = 0;

	u->wake_ev = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	u->wake_ep = epoll_create1(EPOLL_CLOEXEC);
	if (u->wake_ev < 0 || u->wake_ep < 0) {
		rc = -ENOMEM;
		goto out;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = u->wake_ev;
	if (epoll_ctl(u->wake_ep, EPOLL_CTL_ADD, u->wake_ev, &ev) != 0)
		rc = -errno;
	if (rc == 0)
		rc = lu_ready_add(u);
out:
	if (rc != 0) {
		lu_log(u, "no ready set for libusb's descriptors (%s): every "
		       "look is a libusb event round, and Rx interrupts are "
		       "off", strerror(-rc));
		lu_wake_close(u);
	}
	return rc;
}

static int
lu_rx_wake_fd(struct ch39x_usb_dev *d)
{
	struct lu_dev *u = to_lu(d);

	return u->wake_ep >= 0 ? u->wake_ep : -ENOMEM;
}

/*
 * Arm: reap what the kernel has finished, unless a bulk IN poll did since
 * the disarm (the application's epoll is edge-triggered on the set: a URB
 * that finished before its last wake-up and is still unreaped would make
 * no new edge), and signal at once when bulk IN data is already waiting.
 * Disarm: clear the signal.
 */
static void
lu_rx_arm(struct ch39x_usb_dev *d, bool on)
{
	struct lu_dev *u = to_lu(d);
	struct lu_ep *ep = &u->ep[CH39X_EP_BULK_IN];
	bool waiting;
	eventfd_t v;

	if (u->wake_ev < 0)
		return;
	if (!on) {
		u->armed_fresh = false;
		u->swept = false;
		/* Only this thread writes it: no read when nothing was. */
		if (!u->wake_written)
			return;
		u->wake_written = false;
		if (eventfd_read(u->wake_ev, &v) != 0)
			return;	/* EAGAIN: nothing was signalled */
		return;
	}
	/*
	 * A bulk IN poll since the disarm reaped what had finished before the
	 * wait's wake-up was taken; anything after it is a new edge on the
	 * descriptor, so a second round here would find nothing new.
	 */
	if (!u->swept)
		lu_sweep(u);
	pthread_mutex_lock(&ep->lock);
	waiting = ep->done_head != NULL;
	pthread_mutex_unlock(&ep->lock);
	if (waiting || __atomic_load_n(&u->gone, __ATOMIC_RELAXED)) {
		u->wake_written = true;
		(void)eventfd_write(u->wake_ev, 1);
	}
	u->armed_fresh = true;
}

static void
lu_intr_hook(struct ch39x_usb_dev *d, void (*fn)(void *arg), void *arg)
{
	struct lu_dev *u = to_lu(d);

	u->intr_fn = fn;
	u->intr_arg = arg;
}

static uint64_t
lu_event_rounds(struct ch39x_usb_dev *d)
{
	return __atomic_load_n(&to_lu(d)->sweeps, __ATOMIC_ACQUIRE);
}

void
lu_wake_close(struct lu_dev *u)
{
	if (u->wake_ep >= 0)
		close(u->wake_ep);
	if (u->wake_ev >= 0)
		close(u->wake_ev);
	u->wake_ep = -1;
	u->wake_ev = -1;
}

const struct ch39x_usb_ops lu_ops = {
	.name = "libusb",
	.get_info = lu_get_info,
	.control = lu_control,
	.submit = lu_submit,
	.cancel_all = lu_cancel_all,
	.poll = lu_poll,
	.collect = lu_collect,
	.clear_halt = lu_clear_halt,
	.close = lu_close,
	.get_cdc = ch39x_libusb_get_cdc,
	.set_data_alt = ch39x_libusb_set_data_alt,
	.rx_wake_fd = lu_rx_wake_fd,
	.rx_arm = lu_rx_arm,
	.intr_hook = lu_intr_hook,
	.event_rounds = lu_event_rounds,
	.buf_alloc = buf_alloc,
	.buf_free = ch39x_libusb_buf_free,
	.lookup = lu_lookup,
	.reattach = lu_reattach,
	.bus_fd = lu_bus_fd,
	.bus_read = lu_bus_read,
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
	/* RNDIS has one alt setting, the bulk pair in it: nothing to do. */
	if (u->proto == CH39X_LIBUSB_RNDIS)
		return 0;
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
