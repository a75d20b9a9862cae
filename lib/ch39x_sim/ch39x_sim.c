/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated CH397/CH398: the transport ops, fault injection, open and
 * close. The USB function (vendor mode, NCM or ECM) is a struct sim_model
 * (ch39x_sim_vendor.c, ch39x_sim_cdc.c), the cable is ch39x_sim_wire.c.
 * "§N" cites section N of doc/guides/nics/ch39x_protocol.rst.
 * ASSUMPTION marks behaviour §9 lists as unknown;
 * each is documented in doc/guides/nics/ch39x.rst as well.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include "ch39x_sim_priv.h"

static uint32_t sim_instances;

/* ---- control requests (§2) ---- */

static int
sim_control(struct ch39x_usb_dev *d, uint8_t req_type, uint8_t request,
	    uint16_t value, uint16_t index, void *data, uint16_t length,
	    unsigned int timeout_ms)
{
	struct sim_dev *s = to_sim(d);
	uint8_t *buf = data;
	int rc;

	(void)timeout_ms;
	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
	pthread_mutex_lock(&s->lock);
	SIM_ADD(s->cnt.ctrl_requests, 1);
	if (s->unplug_after != 0 && --s->unplug_after == 0) {
		pthread_mutex_unlock(&s->lock);
		ch39x_sim_unplug(d);
		return -ENODEV;
	}
	if (s->ctrl_fail ||
	    s->cnt.ctrl_requests == (uint64_t)s->cfg.ctrl_fail_at) {
		if (s->ctrl_fail)
			s->ctrl_fail--;
		SIM_ADD(s->cnt.ctrl_stalls, 1);
		SIM_ADD(s->cnt.faults_injected, 1);
		pthread_mutex_unlock(&s->lock);
		return -EPIPE;
	}
	rc = sim_std_descriptor(s, req_type, request, value, index, buf,
				length);
	if (rc == -ENOENT)
		rc = s->model->control(s, req_type, request, value, index,
				       buf, length);
	if (rc == -EPIPE)
		SIM_ADD(s->cnt.ctrl_stalls, 1);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

static int
sim_get_info(struct ch39x_usb_dev *d, struct ch39x_usb_info *info)
{
	struct sim_dev *s = to_sim(d);

	memset(info, 0, sizeof(*info));
	info->vid = CH39X_VID;
	info->pid = s->id_pid;
	info->bcd_device = 0x0100;
	/*
	 * ASSUMPTION: the model enumerates in the vendor configuration, so the
	 * configuration switch of §1 is the libusb backend's business.
	 */
	info->config_value = s->prof.config_value;
	info->speed = (uint8_t)s->prof.speed;
	info->maxp[CH39X_EP_BULK_IN] = s->prof.bulk_maxp;
	info->maxp[CH39X_EP_BULK_OUT] = s->prof.bulk_maxp;
	/* ASSUMPTION: the interrupt endpoint's wMaxPacketSize is one event. */
	info->maxp[CH39X_EP_INTR_IN] = s->prof.intr_len;
	info->intr_interval_ms = SIM_INTR_INTERVAL_MS;
	info->framing = s->id_framing;
	if (s->cfg.framing != CH39X_FRAMING_VENDOR) {
		info->config_value = SIM_CDC_CONFIG;
		info->maxp[CH39X_EP_INTR_IN] = s->cdc.intr_maxp;
	}
	snprintf(info->serial, sizeof(info->serial), "%s", s->id_serial);
	return 0;
}

/* ---- faults ---- */

/*
 * Take one pending fault of ep, or 0 (the endpoint's own thread): a
 * refused submission (at_submit) or one a transfer ends with.
 */
static uint32_t
fault_take_at(struct sim_dev *s, enum ch39x_ep ep, bool at_submit)
{
	uint32_t left = __atomic_load_n(&s->fault_left[ep], __ATOMIC_ACQUIRE);

	if ((__atomic_load_n(&s->fault_kind[ep], __ATOMIC_ACQUIRE) ==
	     CH39X_SIM_FAULT_SUBMIT) != at_submit)
		return 0;
	while (left != 0) {
		if (__atomic_compare_exchange_n(&s->fault_left[ep], &left,
						left - 1, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			SIM_ADD(s->cnt.faults_injected, 1);
			return __atomic_load_n(&s->fault_kind[ep],
					       __ATOMIC_ACQUIRE);
		}
	}
	return 0;
}

static uint32_t
fault_take(struct sim_dev *s, enum ch39x_ep ep)
{
	return fault_take_at(s, ep, false);
}

/* The status a faulty transfer ends with; STALL also halts the endpoint. */
static enum ch39x_xfer_status
fault_status(struct sim_dev *s, enum ch39x_ep ep, uint32_t kind)
{
	switch (kind) {
	case CH39X_SIM_FAULT_STALL:
		s->halted[ep] = true;
		return CH39X_XFER_STALL;
	case CH39X_SIM_FAULT_TIMEOUT:
		return CH39X_XFER_TIMEOUT;
	case CH39X_SIM_FAULT_OVERFLOW:
		return CH39X_XFER_OVERFLOW;
	default:
		return CH39X_XFER_ERROR;
	}
}

static uint8_t
rng_byte(struct sim_dev *s)
{
	/* xorshift64: reproducible garbage, seeded per device. */
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return (uint8_t)s->rng;
}

/*
 * Faults on the head bulk IN transfer, before it is filled. Returns true
 * when the transfer was completed by the fault.
 */
static bool
in_fault(struct sim_dev *s, struct ch39x_xfer *x, uint32_t kind)
{
	uint32_t i;

	switch (kind) {
	case CH39X_SIM_FAULT_GARBAGE:
		/* A lying device: random bytes of a random length. */
		x->actual = (uint32_t)(rng_byte(s) | rng_byte(s) << 8) % x->len + 1;
		for (i = 0; i < x->actual; i++)
			x->buf[i] = rng_byte(s);
		/* Sometimes make the first length plausible to go deeper. */
		if (x->actual >= 8 && (rng_byte(s) & 1))
			ch39x_put_le32(x->buf, 60 + rng_byte(s) * 8u);
		q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
		complete(s, x, CH39X_XFER_OK);
		return true;
	case CH39X_SIM_FAULT_TRUNCATE:
		return false;	/* applied when the transfer completes */
	case CH39X_SIM_FAULT_OVERFLOW:
		/* Babble: the buffer is full of whatever the device sent. */
		x->actual = x->len;
		/* fall through */
	default:
		q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
		complete(s, x, fault_status(s, x->ep, kind));
		return true;
	}
}

/* Complete every in-flight transfer of ep with st. */
static void
flush_ep(struct sim_dev *s, enum ch39x_ep ep, enum ch39x_xfer_status st)
{
	struct ch39x_xfer *x;

	while ((x = q_pop(&s->pend_head[ep], &s->pend_tail[ep])) != NULL)
		complete(s, x, st);
}

/* ---- bulk IN and interrupt IN ---- */

/* Complete the head bulk IN transfer; at line rate it occupies the bus. */
void
sim_in_done(struct sim_dev *s, struct ch39x_xfer *x, uint64_t now)
{
	if (s->truncate_next) {
		/* The tail of the transfer is lost on the bus. */
		s->truncate_next = false;
		x->actual = x->actual > 16 ? x->actual / 2 + 1 : 1;
	}
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	complete(s, x, CH39X_XFER_OK);
	s->rx_hold_start_ns = 0;
	if (s->cfg.line_rate)
		sim_bus_reserve(s->in_free, now, sim_usb_ns(s, x->actual));
}

/*
 * Serve the in-flight bulk IN transfers (RX thread): halts and faults
 * here, the records, frames or NTBs in the model's rx_fill.
 */
static void
sim_rx_service(struct sim_dev *s)
{
	struct ch39x_xfer *x;
	uint32_t kind;
	uint64_t now = 0;

	if (s->halted[CH39X_EP_BULK_IN]) {
		flush_ep(s, CH39X_EP_BULK_IN, CH39X_XFER_STALL);
		return;
	}
	x = s->pend_head[CH39X_EP_BULK_IN];
	if (x != NULL && x->actual == 0 &&
	    (kind = fault_take(s, CH39X_EP_BULK_IN)) != 0) {
		if (in_fault(s, x, kind))
			return;
		s->truncate_next = true;
	}
	if (s->cfg.line_rate) {
		now = now_ns();
		if (__atomic_load_n(s->in_free, __ATOMIC_RELAXED) > now)
			return;		/* the bus is still busy */
	}
	s->model->rx_fill(s, now);
}

/* Serve the head interrupt transfer (under s->lock). */
static void
sim_intr_service(struct sim_dev *s)
{
	struct ch39x_xfer *x = s->pend_head[CH39X_EP_INTR_IN];
	uint32_t kind;

	if (x == NULL)
		return;
	kind = fault_take(s, CH39X_EP_INTR_IN);
	if (s->halted[CH39X_EP_INTR_IN] || kind != 0) {
		q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
		complete(s, x, kind ? fault_status(s, x->ep, kind) :
			 CH39X_XFER_STALL);
		return;
	}
	s->model->intr_fill(s, x);
}

/* ---- transport ops ---- */

static int
submit(struct sim_dev *s, struct ch39x_xfer *x)
{
	uint32_t kind;

	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
	/* usbfs at its memory cap refuses an URB this way. */
	if (fault_take_at(s, x->ep, true) != 0)
		return -ENOMEM;
	/* CDC: the bulk endpoints exist only at data alt setting 1. */
	if (x->ep != CH39X_EP_INTR_IN && s->cfg.framing !=
	    CH39X_FRAMING_VENDOR && s->data_alt == 0)
		return -ENOTCONN;
	x->actual = 0;
	x->status = CH39X_XFER_OK;
	x->in_flight = true;
	if (x->ep == CH39X_EP_BULK_OUT) {
		/* A halted endpoint fails every transfer until cleared. */
		if (s->halted[x->ep]) {
			complete(s, x, CH39X_XFER_STALL);
			return 0;
		}
		kind = fault_take(s, x->ep);
		if (kind != 0) {
			complete(s, x, fault_status(s, x->ep, kind));
			return 0;
		}
		x->actual = x->len;
		if (!s->cfg.line_rate) {
			/* Unlimited rate: the device drains bulk OUT at once. */
			s->model->tx_parse(s, x);
			complete(s, x, CH39X_XFER_OK);
			return 0;
		}
		sim_out_timing(s, x);
		s->model->tx_parse(s, x);
		q_push(&s->pend_head[x->ep], &s->pend_tail[x->ep], x);
		return 0;
	}
	if (x->ep == CH39X_EP_INTR_IN)
		pthread_mutex_lock(&s->lock);
	q_push(&s->pend_head[x->ep], &s->pend_tail[x->ep], x);
	if (x->ep == CH39X_EP_INTR_IN)
		pthread_mutex_unlock(&s->lock);
	return 0;
}

static void
cancel_all(struct sim_dev *s, enum ch39x_ep ep)
{
	struct ch39x_xfer *x;

	pthread_mutex_lock(&s->lock);
	while ((x = q_pop(&s->pend_head[ep], &s->pend_tail[ep])) != NULL)
		complete(s, x, CH39X_XFER_CANCELLED);
	if (ep == CH39X_EP_BULK_IN) {
		/* A record split over transfers is lost with them. */
		if (s->stage_len && s->stage_off)
			s->stage_len = 0;
		s->rx_hold_start_ns = 0;
	}
	pthread_mutex_unlock(&s->lock);
}

/*
 * An event round (rounds_on), on the bulk IN poller's thread: what a
 * libusb round reaps, the bulk IN transfers and the interrupt transfer,
 * whose completion is announced through intr_hook.
 */
static void
sim_round(struct sim_dev *s)
{
	struct ch39x_xfer *x;
	bool reaped = false;

	sim_rx_service(s);
	__atomic_fetch_add(&s->rounds, 1, __ATOMIC_RELEASE);
	if (s->intr_fn == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	x = s->pend_head[CH39X_EP_INTR_IN];
	if (x != NULL) {
		sim_intr_service(s);
		reaped = s->pend_head[CH39X_EP_INTR_IN] != x;
	}
	pthread_mutex_unlock(&s->lock);
	if (reaped)
		s->intr_fn(s->intr_arg);
}

static unsigned int
poll_ep(struct sim_dev *s, enum ch39x_ep ep, struct ch39x_xfer **done,
	unsigned int max)
{
	/* With rounds, another thread completes interrupt transfers too. */
	bool locked = ep == CH39X_EP_INTR_IN && s->rounds_on;
	struct ch39x_xfer *x;
	unsigned int n = 0;

	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE)) {
		if (ep == CH39X_EP_INTR_IN)
			pthread_mutex_lock(&s->lock);
		flush_ep(s, ep, CH39X_XFER_NO_DEVICE);
		if (ep == CH39X_EP_INTR_IN)
			pthread_mutex_unlock(&s->lock);
	} else if (ep == CH39X_EP_BULK_IN) {
		if (!s->rounds_on)
			sim_rx_service(s);
		else if (s->done_head[ep] == NULL)
			sim_round(s);
	} else if (ep == CH39X_EP_BULK_OUT) {
		uint64_t now = s->pend_head[ep] ? now_ns() : 0;

		while ((x = s->pend_head[ep]) != NULL && x->backend_ns <= now) {
			q_pop(&s->pend_head[ep], &s->pend_tail[ep]);
			complete(s, x, CH39X_XFER_OK);
		}
	} else if (ep == CH39X_EP_INTR_IN) {
		pthread_mutex_lock(&s->lock);
		sim_intr_service(s);
		pthread_mutex_unlock(&s->lock);
	}
	if (locked)
		pthread_mutex_lock(&s->lock);
	while (n < max && (x = q_pop(&s->done_head[ep], &s->done_tail[ep]))) {
		x->in_flight = false;
		done[n++] = x;
	}
	if (locked)
		pthread_mutex_unlock(&s->lock);
	return n;
}

/*
 * The model's own time (device_cycles): what the transport ops spend,
 * frame building and parsing included, so that a benchmark can take it
 * out of the PMD's cycles. Two time stamps per call.
 */
static inline void
cycles_add(struct sim_dev *s, enum ch39x_ep ep, uint64_t t0)
{
	SIM_ADD(s->cycles[ep].v, sim_tsc() - t0);
}

static int
sim_submit(struct ch39x_usb_dev *d, struct ch39x_xfer *x)
{
	struct sim_dev *s = to_sim(d);
	uint64_t t0 = sim_tsc();
	int rc;

	if (x->ep >= CH39X_EP_COUNT || x->in_flight)
		return -EINVAL;
	rc = submit(s, x);
	cycles_add(s, x->ep, t0);
	return rc;
}

static void
sim_cancel_all(struct ch39x_usb_dev *d, enum ch39x_ep ep)
{
	struct sim_dev *s = to_sim(d);
	uint64_t t0 = sim_tsc();

	cancel_all(s, ep);
	cycles_add(s, ep, t0);
}

static unsigned int
sim_poll(struct ch39x_usb_dev *d, enum ch39x_ep ep, struct ch39x_xfer **done,
	 unsigned int max)
{
	struct sim_dev *s = to_sim(d);
	uint64_t t0 = sim_tsc();
	unsigned int n;

	n = poll_ep(s, ep, done, max);
	cycles_add(s, ep, t0);
	return n;
}

static int
sim_clear_halt(struct ch39x_usb_dev *d, enum ch39x_ep ep)
{
	struct sim_dev *s = to_sim(d);

	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
	if (ep >= CH39X_EP_COUNT)
		return -EINVAL;
	s->halted[ep] = false;
	return 0;
}

int
ch39x_sim_fault(struct ch39x_usb_dev *d, enum ch39x_ep ep,
		enum ch39x_sim_fault f, uint32_t count)
{
	struct sim_dev *s = to_sim(d);

	if (ep >= CH39X_EP_COUNT || f < CH39X_SIM_FAULT_STALL ||
	    f > CH39X_SIM_FAULT_SUBMIT)
		return -1;
	if (ep != CH39X_EP_BULK_IN && f >= CH39X_SIM_FAULT_OVERFLOW &&
	    f <= CH39X_SIM_FAULT_GARBAGE)
		return -1;
	__atomic_store_n(&s->fault_left[ep], 0, __ATOMIC_RELEASE);
	__atomic_store_n(&s->fault_kind[ep], (uint32_t)f, __ATOMIC_RELEASE);
	__atomic_store_n(&s->fault_left[ep], count, __ATOMIC_RELEASE);
	return 0;
}

void
ch39x_sim_fail_ctrl(struct ch39x_usb_dev *d, uint32_t count)
{
	struct sim_dev *s = to_sim(d);

	pthread_mutex_lock(&s->lock);
	s->ctrl_fail = count;
	pthread_mutex_unlock(&s->lock);
}

/* News for the bus's watcher: the bits, then the descriptor's signal. */
static void
sim_bus_news(struct sim_dev *s, uint32_t news)
{
	uint64_t one = 1;
	int fd = __atomic_load_n(&s->bus_fd, __ATOMIC_ACQUIRE);

	__atomic_fetch_or(&s->bus_news, news, __ATOMIC_SEQ_CST);
	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* Full (2^64 - 2 signals unread): readable anyway. */
	}
}

void
ch39x_sim_unplug(struct ch39x_usb_dev *d)
{
	struct sim_dev *s = to_sim(d);

	__atomic_store_n(&s->unplugged, true, __ATOMIC_RELEASE);
	sim_bus_news(s, CH39X_BUS_GONE);
	/* The far end of the cable loses its link partner. */
	pthread_mutex_lock(&s->lock);
	s->cable_at_unplug = s->cable_at_unplug || s->cable;
	s->cable = false;
	sim_update_up(s);
	pthread_mutex_unlock(&s->lock);
}

bool
ch39x_sim_unplugged(struct ch39x_usb_dev *d)
{
	return __atomic_load_n(&to_sim(d)->unplugged, __ATOMIC_ACQUIRE);
}

/* The USB function's power-on state: CDC-NCM/ECM/MBIM or RNDIS descriptors. */
static void
sim_function_init(struct sim_dev *s)
{
	if (s->cfg.framing == CH39X_FRAMING_RNDIS)
		sim_rndis_init(s);
	else if (s->cfg.framing != CH39X_FRAMING_VENDOR)
		sim_cdc_init(s);
}

/* Who the device says it is on the bus: its own identity, or another's. */
static void
sim_set_identity(struct sim_dev *s, enum ch39x_sim_replug how)
{
	s->id_pid = s->prof.pid;
	s->id_framing = (uint8_t)s->cfg.framing;
	snprintf(s->id_serial, sizeof(s->id_serial), "%s", s->cfg.serial);
	if (how == CH39X_SIM_REPLUG_OTHER_SERIAL) {
		snprintf(s->id_serial, sizeof(s->id_serial), "%.40s-OTHER",
			 s->cfg.serial);
	} else if (how == CH39X_SIM_REPLUG_OTHER_CHIP) {
		s->id_pid = s->prof.pid == CH39X_PID_CH397 ? CH39X_PID_CH398 :
			CH39X_PID_CH397;
		s->id_framing = (uint8_t)CH39X_FRAMING_VENDOR;
	}
}

int
ch39x_sim_replug(struct ch39x_usb_dev *d, enum ch39x_sim_replug how)
{
	struct sim_dev *s = to_sim(d);
	int ep;

	if (!__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE) ||
	    how < CH39X_SIM_REPLUG_SAME || how > CH39X_SIM_REPLUG_FLAKY)
		return -1;
	pthread_mutex_lock(&s->lock);
	/* Power-on: what the host programmed is gone with the power. */
	memcpy(s->mac, s->factory_mac, sizeof(s->mac));
	s->hash_hi = 0;
	s->hash_lo = 0;
	sim_vendor_init(s);
	sim_function_init(s);
	if (s->mbim != NULL)
		sim_mbim_power_on(s);
	for (ep = 0; ep < CH39X_EP_COUNT; ep++) {
		__atomic_store_n(&s->fault_left[ep], 0, __ATOMIC_RELEASE);
		s->halted[ep] = false;
	}
	s->ctrl_fail = 0;
	s->stage_len = 0;
	s->stage_off = 0;
	s->last_link = -1;
	s->last_evt_link = 0;
	sim_set_identity(s, how);
	s->unplug_after = how == CH39X_SIM_REPLUG_FLAKY ? 3 : 0;
	s->cable = s->cable_at_unplug;
	s->cable_at_unplug = false;
	__atomic_store_n(&s->unplugged, false, __ATOMIC_RELEASE);
	sim_update_up(s);
	pthread_mutex_unlock(&s->lock);
	sim_bus_news(s, CH39X_BUS_ARRIVED);
	return 0;
}

static void
sim_close(struct ch39x_usb_dev *d)
{
	struct sim_dev *s = to_sim(d);

	if (s == NULL)
		return;
	sim_wake_close(s);
	sim_wire_close(s);
	sim_rndis_free(s);
	sim_mbim_close(s);
	if (s->bus_fd >= 0)
		close(s->bus_fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/*
 * Transfer buffers: plain heap, as an application's own. The model
 * copies into and out of them as a host controller would.
 */
static uint8_t *
sim_buf_alloc(struct ch39x_usb_dev *d, size_t size, enum ch39x_buf_kind *kind)
{
	void *p = NULL;

	(void)d;
	if (size == 0 || posix_memalign(&p, 64, size) != 0)
		return NULL;
	*kind = CH39X_BUF_HEAP;
	return p;
}

static void
sim_buf_free(struct ch39x_usb_dev *d, uint8_t *buf)
{
	(void)d;
	free(buf);
}

/* Back on the bus once replugged; as whom it then says (sim_set_identity). */
static int
sim_lookup(struct ch39x_usb_dev *d, struct ch39x_usb_info *info)
{
	if (ch39x_sim_unplugged(d))
		return -ENODEV;
	return sim_get_info(d, info);
}

/*
 * The model's device object outlives its unplug: nothing to take again.
 * A removal the watcher has not read yet was the device's before this
 * return: dropped, not reported after it (a host's removal event names
 * the old device number, which the libusb backend no longer matches by
 * then). Cleared before the look, so that an unplug after it stays news.
 */
static int
sim_reattach(struct ch39x_usb_dev *d, char *err, size_t errlen)
{
	struct sim_dev *s = to_sim(d);

	(void)err;
	(void)errlen;
	__atomic_fetch_and(&s->bus_news, ~(uint32_t)CH39X_BUS_GONE,
			   __ATOMIC_SEQ_CST);
	return ch39x_sim_unplugged(d) ? -ENODEV : 0;
}

/*
 * The bus's news, as a host with device events has it: the unplug and the
 * replug signal an eventfd (not the GET_STATUS a real port asks without).
 */
static int
sim_bus_fd(struct ch39x_usb_dev *d, char *err, size_t errlen)
{
	struct sim_dev *s = to_sim(d);
	int fd;

	if (s->bus_fd >= 0)
		return s->bus_fd;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -errno;
	}
	__atomic_store_n(&s->bus_fd, fd, __ATOMIC_RELEASE);
	return fd;
}

static unsigned int
sim_bus_read(struct ch39x_usb_dev *d)
{
	struct sim_dev *s = to_sim(d);
	uint64_t n;

	if (s->bus_fd >= 0 && read(s->bus_fd, &n, sizeof(n)) < 0) {
		/* EAGAIN: the bits below may still hold news. */
	}
	return __atomic_exchange_n(&s->bus_news, 0, __ATOMIC_SEQ_CST);
}

static void
sim_intr_hook(struct ch39x_usb_dev *d, void (*fn)(void *arg), void *arg)
{
	struct sim_dev *s = to_sim(d);

	s->intr_fn = fn;
	s->intr_arg = arg;
}

static uint64_t
sim_event_rounds(struct ch39x_usb_dev *d)
{
	return __atomic_load_n(&to_sim(d)->rounds, __ATOMIC_ACQUIRE);
}

#define SIM_OPS \
	.name = "sim", \
	.get_info = sim_get_info, \
	.control = sim_control, \
	.submit = sim_submit, \
	.cancel_all = sim_cancel_all, \
	.poll = sim_poll, \
	.clear_halt = sim_clear_halt, \
	.close = sim_close, \
	.get_cdc = sim_get_cdc, \
	.set_data_alt = sim_set_data_alt, \
	.rx_wake_fd = sim_rx_wake_fd, \
	.rx_arm = sim_rx_arm, \
	.buf_alloc = sim_buf_alloc, \
	.buf_free = sim_buf_free, \
	.lookup = sim_lookup, \
	.reattach = sim_reattach, \
	.bus_fd = sim_bus_fd, \
	.bus_read = sim_bus_read

static const struct ch39x_usb_ops sim_ops = {
	SIM_OPS,
};

/* The same with event rounds (ch39x_sim_set_rounds()). */
static const struct ch39x_usb_ops sim_rounds_ops = {
	SIM_OPS,
	.intr_hook = sim_intr_hook,
	.event_rounds = sim_event_rounds,
};

bool
ch39x_sim_is_sim(const struct ch39x_usb_dev *d)
{
	return d != NULL && (d->ops == &sim_ops || d->ops == &sim_rounds_ops);
}

void
ch39x_sim_set_rounds(struct ch39x_usb_dev *d, bool on)
{
	struct sim_dev *s = to_sim(d);

	pthread_mutex_lock(&s->lock);
	s->rounds_on = on;
	if (!on) {
		s->intr_fn = NULL;
		s->intr_arg = NULL;
	}
	d->ops = on ? &sim_rounds_ops : &sim_ops;
	pthread_mutex_unlock(&s->lock);
}

/* The chip profile for the configuration; 0, or -1 with a message. */
static int
sim_profile(struct sim_dev *s, char *err, size_t errlen)
{
	const struct ch39x_sim_config *cfg = &s->cfg;

	if (ch39x_profile_init(&s->prof, cfg->pid, cfg->speed) != 0) {
		snprintf(err, errlen, "%s cannot run at %s speed",
			 ch39x_chip_name(cfg->pid) ? ch39x_chip_name(cfg->pid) :
			 "this device",
			 cfg->speed == CH39X_SPEED_SUPER ? "super" :
			 cfg->speed == CH39X_SPEED_HIGH ? "high" : "full");
		return -1;
	}
	if (s->cfg.link_mbps == 0)
		s->cfg.link_mbps = s->prof.gigabit ? 1000 : 100;
	if (s->cfg.link_mbps != 10 && s->cfg.link_mbps != 100 &&
	    (s->cfg.link_mbps != 1000 || !s->prof.gigabit)) {
		snprintf(err, errlen, "link_speed=%u: allowed values for %s "
			 "are %s", s->cfg.link_mbps,
			 ch39x_chip_name(cfg->pid),
			 s->prof.gigabit ? "10, 100, 1000" : "10, 100");
		return -1;
	}
	return 0;
}

/* The factory address and serial number, unique per process. */
static void
sim_identity(struct sim_dev *s)
{
	uint16_t pid = s->cfg.pid;
	uint32_t n;

	n = __atomic_add_fetch(&sim_instances, 1, __ATOMIC_RELAXED);
	if (memcmp(s->cfg.mac, "\0\0\0\0\0\0", 6) == 0) {
		/* A locally administered factory address. */
		s->mac[0] = 0x02;
		s->mac[1] = 0x1A;
		s->mac[2] = 0x86;
		s->mac[3] = (uint8_t)pid;
		s->mac[4] = (uint8_t)(n >> 8);
		s->mac[5] = (uint8_t)n;
	} else {
		memcpy(s->mac, s->cfg.mac, 6);
	}
	if (s->cfg.serial[0] == '\0')
		snprintf(s->cfg.serial, sizeof(s->cfg.serial), "SIM%04X%04u",
			 pid, n);
}

struct ch39x_usb_dev *
ch39x_sim_open(const struct ch39x_sim_config *cfg, char *err, size_t errlen)
{
	struct sim_dev *s;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &sim_ops;
	s->model = cfg->framing == CH39X_FRAMING_VENDOR ? &sim_vendor_model :
		cfg->framing == CH39X_FRAMING_RNDIS ? &sim_rndis_model :
		cfg->framing == CH39X_FRAMING_MBIM ? &sim_mbim_model :
		&sim_cdc_model;
	s->base.ctrl_delay_us = 0;
	s->tap_fd = -1;
	s->bus_fd = -1;
	s->wake_ep = -1;
	s->wake_ev = -1;
	s->cfg = *cfg;
	pthread_mutex_init(&s->lock, NULL);
	s->last_link = -1;
	s->rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)s;
	if (sim_profile(s, err, errlen) != 0)
		goto fail;
	s->in_free = &s->in_bus_ns;
	s->out_free = cfg->speed == CH39X_SPEED_SUPER ? &s->out_bus_ns :
		&s->in_bus_ns;
	s->usb_bps = cfg->speed == CH39X_SPEED_SUPER ? CH39X_USB_SS_BULK_BPS :
		cfg->speed == CH39X_SPEED_HIGH ? CH39X_USB_HS_BULK_BPS :
		CH39X_USB_FS_BULK_BPS;
	sim_identity(s);
	memcpy(s->factory_mac, s->mac, sizeof(s->mac));
	sim_set_identity(s, CH39X_SIM_REPLUG_SAME);
	sim_vendor_init(s);
	s->cable = true;
	if (cfg->framing == CH39X_FRAMING_RNDIS && sim_rndis_alloc(s) != 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (cfg->framing == CH39X_FRAMING_MBIM && sim_mbim_open(s) != 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	sim_function_init(s);
	if (sim_wire_open(s, err, errlen) != 0)
		goto fail;
	/* The PHY negotiates with the far end as soon as it is cabled. */
	pthread_mutex_lock(&s->lock);
	sim_update_up(s);
	pthread_mutex_unlock(&s->lock);
	return &s->base;
fail:
	sim_close(&s->base);
	return NULL;
}

void
ch39x_sim_get_counters(struct ch39x_usb_dev *d, struct ch39x_sim_counters *c)
{
	struct sim_dev *s = to_sim(d);
	const uint64_t *src = (const uint64_t *)&s->cnt;
	uint64_t *dst = (uint64_t *)c;
	size_t i;

	for (i = 0; i < sizeof(*c) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	c->rx_overflow = SIM_GET(s->rx_ring->drops);
	c->device_cycles = 0;
	for (i = 0; i < CH39X_EP_COUNT; i++)
		c->device_cycles += SIM_GET(s->cycles[i].v);
}
