/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The simulated CH397/CH398. "Sheet N" cites a section of
 * ../shared/reference/ch39x-vendor-protocol.md. ASSUMPTION marks behaviour
 * the sheet lists as unknown (its section 9); each is documented in
 * doc/guides/nics/ch39x.rst as well.
 */

#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <pcap/pcap.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ch39x_ncm.h"
#include "ch39x_net.h"
#include "ch39x_sim.h"
#include "ch39x_tso.h"

#define ALIGN4(x) (((x) + 3u) & ~3u)

/* Single-writer counters read from other threads: no torn or racy access. */
#define SIM_ADD(c, n) __atomic_store_n(&(c), \
	__atomic_load_n(&(c), __ATOMIC_RELAXED) + (n), __ATOMIC_RELAXED)
#define SIM_GET(c) __atomic_load_n(&(c), __ATOMIC_RELAXED)

/*
 * ASSUMPTION: the receive FIFO between the cable and the USB side. The
 * chip's own buffer size is unknown (GET_INFO bytes 4-5 are unexplained);
 * 2 MiB holds about 1,300 full-size frames.
 */
#define SIM_RING_SIZE (2u << 20)
/* ASSUMPTION: interrupt endpoint bInterval, and counter events at most that often. */
#define SIM_INTR_INTERVAL_MS 16
/*
 * ASSUMPTION: with the jumbo bit (RWTE) clear, a V02 receives frames of up
 * to 2058 bytes. The driver leaves the bit clear up to MTU 2040 (sheet 7),
 * so the chip must then take an MTU-2040 frame with a VLAN tag: 2040 + 18.
 */
#define SIM_V02_NOJUMBO_MAX (2040 + 18)
/* ASSUMPTION: GET_INFO val_l; CH397 below 0x37 so it takes the WR_REG path. */
#define SIM_INFO_VAL_L_CH397 0x36
#define SIM_INFO_VAL_L_CH398 0x38
/* CDC models: perfect multicast filters (wNumberMCFilters). */
#define CH39X_SIM_CDC_MC_FILTERS 16
/* ASSUMPTION: the CDC models' NTB parameters, those of the Linux gadget. */
#define SIM_NCM_NTB_MAX	16384
/* The CDC models' configuration value (the chip's is not in the sheet). */
#define SIM_CDC_CONFIG	1
/*
 * Room a bulk IN record may need while it is built (record_build()): its
 * header, the longest frame the cable hands over plus one byte (a TAP
 * read that shows a frame too long), and padding.
 */
#define SIM_REC_ROOM (CH39X_HDR_LEN + CH39X_V02_MAX_FRAME + 64)

/* ---- the cable: a single-producer single-consumer frame ring ---- */

struct sim_ring {
	uint8_t *buf;
	uint32_t size;
	uint64_t head __attribute__((aligned(64)));	/* producer */
	uint64_t tail __attribute__((aligned(64)));	/* consumer */
	uint64_t drops;					/* producer */
};

static struct sim_ring *
ring_new(void)
{
	struct sim_ring *r = calloc(1, sizeof(*r));

	if (r == NULL)
		return NULL;
	r->buf = malloc(SIM_RING_SIZE);
	if (r->buf == NULL) {
		free(r);
		return NULL;
	}
	r->size = SIM_RING_SIZE;
	return r;
}

static void
ring_free(struct sim_ring *r)
{
	if (r != NULL)
		free(r->buf);
	free(r);
}

static void
ring_write(struct sim_ring *r, uint64_t pos, const void *src, uint32_t n)
{
	uint32_t at = (uint32_t)(pos & (r->size - 1));
	uint32_t first = r->size - at < n ? r->size - at : n;

	memcpy(r->buf + at, src, first);
	memcpy(r->buf, (const uint8_t *)src + first, n - first);
}

static void
ring_read(const struct sim_ring *r, uint64_t pos, void *dst, uint32_t n)
{
	uint32_t at = (uint32_t)(pos & (r->size - 1));
	uint32_t first = r->size - at < n ? r->size - at : n;

	memcpy(dst, r->buf + at, first);
	memcpy((uint8_t *)dst + first, r->buf, n - first);
}

/* A ring record: length, arrival time, then the frame padded to 4. */
#define RING_HDR 12

static int
ring_push(struct sim_ring *r, const uint8_t *f, uint32_t len, uint64_t ts)
{
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	uint32_t need = RING_HDR + ALIGN4(len);
	uint32_t at = (uint32_t)(head & (r->size - 1));

	if (r->size - (head - tail) < need) {
		SIM_ADD(r->drops, 1);
		return -1;
	}
	if (at + need <= r->size) {
		/*
		 * The usual case, a record that does not wrap: fixed-size
		 * header stores and one copy, instead of two copies per
		 * field (this runs once per frame at unlimited rate).
		 */
		memcpy(r->buf + at, &len, 4);
		memcpy(r->buf + at + 4, &ts, 8);
		memcpy(r->buf + at + RING_HDR, f, len);
	} else {
		ring_write(r, head, &len, 4);
		ring_write(r, head + 4, &ts, 8);
		ring_write(r, head + RING_HDR, f, len);
	}
	__atomic_store_n(&r->head, head + need, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Pop one frame that has arrived by now_ns into dst (cap bytes); returns
 * its length, 0 when none has. A frame longer than cap is consumed but not
 * copied: the caller sees its length and drops it as oversize.
 */
static uint32_t
ring_pop(struct sim_ring *r, uint8_t *dst, uint32_t cap, uint64_t now_ns)
{
	uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_RELAXED);
	uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	uint32_t at = (uint32_t)(tail & (r->size - 1));
	uint64_t ts;
	uint32_t len;

	if (head == tail)
		return 0;
	/* As in ring_push: fixed-size reads unless the record wraps. */
	if (at + RING_HDR <= r->size) {
		memcpy(&ts, r->buf + at + 4, 8);
		if (ts > now_ns)
			return 0;
		memcpy(&len, r->buf + at, 4);
	} else {
		ring_read(r, tail + 4, &ts, 8);
		if (ts > now_ns)
			return 0;
		ring_read(r, tail, &len, 4);
	}
	if (len <= cap) {
		if (at + RING_HDR + len <= r->size)
			memcpy(dst, r->buf + at + RING_HDR, len);
		else
			ring_read(r, tail + RING_HDR, dst, len);
	}
	__atomic_store_n(&r->tail, tail + RING_HDR + ALIGN4(len),
			 __ATOMIC_RELEASE);
	return len;
}

/* ---- pairs: two adapters cabled together by name ---- */

struct sim_pair {
	struct sim_pair *next;
	char name[CH39X_SIM_NAME_MAX];
	struct sim_ring *ring[2];	/* ring[s] feeds side s */
	bool present[2];
	bool up[2];			/* side's cable plugged and PHY on */
};

static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_pair *pairs;
static uint32_t sim_instances;

/* ---- the device ---- */

struct sim_dev {
	struct ch39x_usb_dev base;
	struct ch39x_sim_config cfg;
	struct ch39x_profile prof;
	pthread_mutex_t lock;		/* control requests and events */

	/* Register file (sheet 3), written by control, read by the data path. */
	uint32_t mac_cfg;
	uint8_t mac[6];
	uint32_t hash_hi;
	uint32_t hash_lo;
	uint32_t macier;
	uint32_t misc_cfg;
	uint32_t misc_config;		/* command 0x21 flags */
	uint16_t phy[32];

	/* Wire. */
	bool cable;
	bool own_up;			/* cable && PHY powered, for no pair */
	struct sim_pair *pair;
	int side;
	struct sim_ring *rx_ring;
	struct sim_ring *tx_ring;	/* NULL: sent frames go to pcap or nowhere */
	struct sim_ring *own_ring;
	pcap_t *pcap_in;
	pcap_t *pcap_dead;
	pcap_dumper_t *pcap_out;
	int tap_fd;			/* -1: no TAP */

	/* Endpoints: in-flight and completed queues, one thread each. */
	struct ch39x_xfer *pend_head[CH39X_EP_COUNT];
	struct ch39x_xfer *pend_tail[CH39X_EP_COUNT];
	struct ch39x_xfer *done_head[CH39X_EP_COUNT];
	struct ch39x_xfer *done_tail[CH39X_EP_COUNT];

	/* RX staging: one record being moved into IN transfers. */
	uint32_t stage_len;
	uint32_t stage_off;

	/* Timing (line rate): when the cable and the bus are free again. */
	uint64_t usb_bps;
	uint64_t wire_free_ns;		/* TX side of the cable */
	/*
	 * When each direction of the bus is free again. SuperSpeed has a
	 * lane each way; USB 2.0 shares one between IN and OUT, so there
	 * both point at the same time stamp.
	 */
	uint64_t out_bus_ns;
	uint64_t in_bus_ns;
	uint64_t *out_free;
	uint64_t *in_free;
	uint64_t tx_start_ns;		/* earliest wire start of this transfer */

	/* Events. */
	int last_link;			/* -1: none reported yet */
	uint64_t last_evt_ns;
	uint64_t last_evt_rx;
	uint64_t last_evt_tx;

	/* Faults: kind and remaining count per endpoint, halted endpoints. */
	uint32_t fault_kind[CH39X_EP_COUNT];
	uint32_t fault_left[CH39X_EP_COUNT];
	bool halted[CH39X_EP_COUNT];
	bool unplugged;
	bool truncate_next;
	uint32_t ctrl_fail;
	uint64_t rng;

	/*
	 * CDC models: the function's descriptors and the state the class
	 * requests set. data_alt 0 means no bulk endpoints (CDC 1.2: the
	 * function is reset, NTB format and input size back to defaults).
	 */
	struct ch39x_cdc_desc cdc;
	struct ch39x_ncm_ntb_params ntbp;
	uint8_t data_alt;
	bool ntb32;
	uint32_t ntb_in_size;		/* SET_NTB_INPUT_SIZE */
	uint16_t max_dgram;		/* SET_MAX_DATAGRAM_SIZE */
	uint16_t pkt_filter;		/* SET_ETHERNET_PACKET_FILTER */
	uint16_t n_mc;
	uint8_t mc[CH39X_SIM_CDC_MC_FILTERS][6];
	bool frame_held;		/* s->frame did not fit the last NTB */
	uint32_t held_len;
	bool conn_pending;		/* CONNECTION(1) follows SPEED_CHANGE */
	struct ch39x_ncm_tx ntx;	/* builds bulk IN NTBs */
	struct ch39x_ncm_rx nrx;	/* parses bulk OUT NTBs */

	struct ch39x_sim_counters cnt;
	uint8_t frame[CH39X_V02_MAX_FRAME + 64];
	uint8_t stage[SIM_REC_ROOM];
	uint8_t txf[16384 + 64];		/* a TSO record's frame */
	uint8_t seg[CH39X_V02_MAX_FRAME + 64];	/* one TSO segment */
};

static const struct ch39x_usb_ops sim_ops;

static struct sim_dev *
to_sim(struct ch39x_usb_dev *d)
{
	return (struct sim_dev *)d;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
q_push(struct ch39x_xfer **head, struct ch39x_xfer **tail,
       struct ch39x_xfer *x)
{
	x->next = NULL;
	if (*tail)
		(*tail)->next = x;
	else
		*head = x;
	*tail = x;
}

static struct ch39x_xfer *
q_pop(struct ch39x_xfer **head, struct ch39x_xfer **tail)
{
	struct ch39x_xfer *x = *head;

	if (x) {
		*head = x->next;
		if (*head == NULL)
			*tail = NULL;
		x->next = NULL;
	}
	return x;
}

static void
complete(struct sim_dev *s, struct ch39x_xfer *x, enum ch39x_xfer_status st)
{
	x->status = st;
	q_push(&s->done_head[x->ep], &s->done_tail[x->ep], x);
}

/* PHY powered: BMCR bit 11 (power down) clear. */
static bool
phy_on(const struct sim_dev *s)
{
	return (__atomic_load_n(&s->phy[CH39X_PHY_BMCR], __ATOMIC_RELAXED) &
		0x0800) == 0;
}

/* Recompute this side's "up" after a cable or PHY change. */
static void
update_up(struct sim_dev *s)
{
	bool up = s->cable && phy_on(s);

	if (s->pair) {
		pthread_mutex_lock(&pairs_lock);
		__atomic_store_n(&s->pair->up[s->side], up, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&pairs_lock);
	}
	__atomic_store_n(&s->own_up, up, __ATOMIC_RELAXED);
}

static bool
link_up(const struct sim_dev *s)
{
	const struct sim_pair *p = s->pair;

	if (!__atomic_load_n(&s->own_up, __ATOMIC_RELAXED))
		return false;
	if (p == NULL)
		return true;
	return __atomic_load_n(&p->present[1 - s->side], __ATOMIC_RELAXED) &&
		__atomic_load_n(&p->up[1 - s->side], __ATOMIC_RELAXED);
}

bool
ch39x_sim_link(struct ch39x_usb_dev *d)
{
	return link_up(to_sim(d));
}

static uint32_t
link_speed(const struct sim_dev *s)
{
	return s->cfg.link_mbps;
}

/* ---- control requests (sheet 2) ---- */

static uint32_t *
reg_ptr(struct sim_dev *s, uint32_t addr)
{
	const struct ch39x_regs *r = &s->prof.regs;

	if (addr == r->mac_cfg)
		return &s->mac_cfg;
	if (addr == r->hash_hi)
		return &s->hash_hi;
	if (addr == r->hash_lo)
		return &s->hash_lo;
	if (addr == r->macier)
		return &s->macier;
	if (r->misc_cfg && addr == r->misc_cfg)
		return &s->misc_cfg;
	return NULL;
}

static int
rd_reg(struct sim_dev *s, uint32_t addr, uint8_t *data, uint16_t len)
{
	const struct ch39x_regs *r = &s->prof.regs;
	uint32_t *p;
	uint8_t v[4];

	if (len != 2 && len != 4)
		return -EPIPE;
	if (addr == r->mac_l) {
		memcpy(v, s->mac, 4);
	} else if (addr == r->mac_h) {
		v[0] = s->mac[4];
		v[1] = s->mac[5];
		v[2] = 0;
		v[3] = 0;
	} else {
		p = reg_ptr(s, addr);
		if (p == NULL)
			return -EPIPE;
		ch39x_put_le32(v, __atomic_load_n(p, __ATOMIC_RELAXED));
	}
	memcpy(data, v, len);
	return len;
}

static int
wr_reg(struct sim_dev *s, uint32_t addr, const uint8_t *data, uint16_t len)
{
	const struct ch39x_regs *r = &s->prof.regs;
	uint32_t *p, v;

	if (len != 2 && len != 4)
		return -EPIPE;
	v = len == 4 ? ch39x_get_le32(data) : ch39x_get_le16(data);
	if (addr == r->mac_l) {
		if (len != 4)
			return -EPIPE;
		memcpy(s->mac, data, 4);
		return len;
	}
	if (addr == r->mac_h) {
		/* V1.7 writes 4 bytes (a4, a5, 0, 0), V1.3 writes 2 (sheet 3). */
		s->mac[4] = data[0];
		s->mac[5] = data[1];
		return len;
	}
	p = reg_ptr(s, addr);
	if (p == NULL)
		return -EPIPE;
	/* V01 MACIER is 16 bits wide (sheet 3). */
	if (addr == r->macier && s->prof.family == CH39X_V01)
		v &= 0xFFFF;
	else if (len == 2)
		v = (__atomic_load_n(p, __ATOMIC_RELAXED) & 0xFFFF0000u) | v;
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
	return len;
}

static uint16_t
phy_read(struct sim_dev *s, unsigned int reg)
{
	uint16_t v = s->phy[reg];
	bool up = link_up(s);

	if (reg == CH39X_PHY_BMSR)
		v = up ? (v | CH39X_BMSR_LINK) : (v & ~CH39X_BMSR_LINK);
	else if (reg == CH39X_PHY_LPA)
		v = up ? 0x45E1 : 0;	/* partner: 10/100 FD/HD + pause */
	return v;
}

static void
phy_write(struct sim_dev *s, unsigned int reg, uint16_t v)
{
	if (reg == CH39X_PHY_BMSR || reg == CH39X_PHY_LPA)
		return;		/* read-only */
	if (reg == CH39X_PHY_BMCR)
		v &= 0x7FFF;	/* the reset bit self-clears */
	__atomic_store_n(&s->phy[reg], v, __ATOMIC_RELAXED);
	if (reg == CH39X_PHY_BMCR)
		update_up(s);
}

static uint8_t
info_val_l(const struct sim_dev *s)
{
	return s->prof.family == CH39X_V02 ?
		SIM_INFO_VAL_L_CH398 : SIM_INFO_VAL_L_CH397;
}

/* ---- CDC class requests (CDC 1.2, NCM 1.0; ../shared/reference/cdc-ncm-ecm.md) ---- */

/* GET_DESCRIPTOR(STRING): language IDs, and the iMACAddress string. */
static int
cdc_string(struct sim_dev *s, uint8_t idx, uint8_t *buf, uint16_t length)
{
	static const char hex[] = "0123456789ABCDEF";
	uint8_t d[2 + 24];
	uint32_t n, i;

	if (idx == 0) {
		d[0] = 4;
		d[1] = CH39X_USB_DT_STRING;
		d[2] = 0x09;	/* en-US */
		d[3] = 0x04;
		n = 4;
	} else if (idx == CH39X_SIM_CDC_MAC_STRING) {
		d[0] = sizeof(d);
		d[1] = CH39X_USB_DT_STRING;
		for (i = 0; i < 12; i++) {
			d[2 + 2 * i] = (uint8_t)hex[(s->mac[i / 2] >>
						     (i & 1 ? 0 : 4)) & 0xF];
			d[3 + 2 * i] = 0;
		}
		n = sizeof(d);
	} else {
		return -EPIPE;
	}
	n = n < length ? n : length;
	memcpy(buf, d, n);
	return (int)n;
}

/* The CDC model's NCM IN builder, after the host chose format and size. */
static void
cdc_ntx_setup(struct sim_dev *s)
{
	struct ch39x_ncm_tx_cfg c;

	memset(&c, 0, sizeof(c));
	c.ntb32 = s->ntb32;
	c.dev_max_size = s->ntb_in_size;
	c.size = s->ntb_in_size;
	c.divisor = s->ntbp.in_divisor;
	c.remainder = s->ntbp.in_remainder;
	c.ndp_align = s->ntbp.in_alignment;
	c.ndp_entries = 64;
	c.maxp = s->prof.bulk_maxp;
	c.max_dgram_len = s->cdc.max_segment > s->max_dgram ?
		s->cdc.max_segment : s->max_dgram;
	c.ndp_at_end = (s->cfg.ncm_quirks & CH39X_SIM_NCM_NDP_END) != 0;
	ch39x_ncm_tx_init(&s->ntx, &c);
}

/* Back to the power-up state: alt 0 and the default NTB settings. */
static void
cdc_reset_function(struct sim_dev *s)
{
	struct ch39x_ncm_rx_cfg rc;

	s->data_alt = 0;
	s->ntb32 = (s->ntbp.formats & CH39X_NCM_FMT_NTB16_BIT) == 0;
	s->ntb_in_size = s->ntbp.in_max_size;
	s->frame_held = false;
	s->conn_pending = false;
	s->last_link = -1;
	memset(&rc, 0, sizeof(rc));
	rc.ntb32 = s->ntb32;
	rc.max_ntb = s->ntbp.out_max_size;
	ch39x_ncm_rx_init(&s->nrx, &rc);
	cdc_ntx_setup(s);
}

static bool
is_ncm(const struct sim_dev *s)
{
	return s->cfg.framing == CH39X_FRAMING_NCM;
}

static int
cdc_control(struct sim_dev *s, uint8_t req_type, uint8_t request,
	    uint16_t value, uint16_t index, uint8_t *buf, uint16_t length)
{
	uint8_t p[CH39X_NCM_NTB_PARAMS_LEN];
	uint32_t v;

	/* Standard GET_DESCRIPTOR(STRING), device recipient. */
	if (req_type == 0x80 && request == 0x06 && (value >> 8) == 0x03)
		return cdc_string(s, (uint8_t)value, buf, length);
	if ((req_type != CH39X_CDC_REQT_IN && req_type != CH39X_CDC_REQT_OUT) ||
	    index != s->cdc.comm_if)
		return -EPIPE;
	switch (request) {
	case CH39X_CDC_SET_ETH_PKT_FILTER:
		if (length != 0)
			return -EPIPE;
		__atomic_store_n(&s->pkt_filter, value, __ATOMIC_RELAXED);
		return 0;
	case CH39X_CDC_SET_ETH_MC_FILTERS:
		if (value > CH39X_SIM_CDC_MC_FILTERS || length != value * 6u)
			return -EPIPE;
		memcpy(s->mc, buf, length);
		__atomic_store_n(&s->n_mc, value, __ATOMIC_RELAXED);
		return length;
	default:
		break;
	}
	if (!is_ncm(s))
		return -EPIPE;
	switch (request) {
	case CH39X_CDC_GET_NTB_PARAMETERS:
		if (req_type != CH39X_CDC_REQT_IN)
			return -EPIPE;
		ch39x_ncm_build_ntb_params(&s->ntbp, p);
		v = length < sizeof(p) ? length : sizeof(p);
		memcpy(buf, p, v);
		return (int)v;
	case CH39X_CDC_GET_NTB_FORMAT:
		if (length != 2)
			return -EPIPE;
		ch39x_put_le16(buf, s->ntb32);
		return 2;
	case CH39X_CDC_SET_NTB_FORMAT:
		/* Only while the data interface is at alt 0 (NCM 6.2.5). */
		if (length != 0 || value > 1 || s->data_alt != 0 ||
		    !(s->ntbp.formats & (value ? CH39X_NCM_FMT_NTB32_BIT :
					 CH39X_NCM_FMT_NTB16_BIT)))
			return -EPIPE;
		s->ntb32 = value == 1;
		s->nrx.cfg.ntb32 = s->ntb32;
		cdc_ntx_setup(s);
		return 0;
	case CH39X_CDC_GET_NTB_INPUT_SIZE:
		if (length != 4)
			return -EPIPE;
		ch39x_put_le32(buf, s->ntb_in_size);
		return 4;
	case CH39X_CDC_SET_NTB_INPUT_SIZE:
		/* 4 bytes, or 8 with wNtbInMaxDatagrams (not offered here). */
		if (length != 4)
			return -EPIPE;
		v = ch39x_get_le32(buf);
		if (v < CH39X_NCM_NTB_MIN_SIZE || v > s->ntbp.in_max_size)
			return -EPIPE;
		s->ntb_in_size = v;
		cdc_ntx_setup(s);
		return 4;
	case CH39X_CDC_GET_MAX_DATAGRAM:
	case CH39X_CDC_SET_MAX_DATAGRAM:
		if (!(s->cdc.ncm_caps & CH39X_NCM_CAP_MAX_DATAGRAM) ||
		    length != 2)
			return -EPIPE;
		if (request == CH39X_CDC_GET_MAX_DATAGRAM) {
			ch39x_put_le16(buf, s->max_dgram);
			return 2;
		}
		v = ch39x_get_le16(buf);
		if (v < CH39X_NCM_ETH_HLEN || v > s->cdc.max_segment)
			return -EPIPE;
		__atomic_store_n(&s->max_dgram, (uint16_t)v, __ATOMIC_RELAXED);
		cdc_ntx_setup(s);
		return 2;
	default:
		return -EPIPE;
	}
}

static int
sim_control(struct ch39x_usb_dev *d, uint8_t req_type, uint8_t request,
	    uint16_t value, uint16_t index, void *data, uint16_t length,
	    unsigned int timeout_ms)
{
	struct sim_dev *s = to_sim(d);
	uint32_t arg = (uint32_t)value | ((uint32_t)index << 16);
	uint8_t *buf = data;
	int rc = -EPIPE;

	(void)timeout_ms;
	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
	pthread_mutex_lock(&s->lock);
	SIM_ADD(s->cnt.ctrl_requests, 1);
	if (s->ctrl_fail ||
	    s->cnt.ctrl_requests == (uint64_t)s->cfg.ctrl_fail_at) {
		if (s->ctrl_fail)
			s->ctrl_fail--;
		SIM_ADD(s->cnt.ctrl_stalls, 1);
		SIM_ADD(s->cnt.faults_injected, 1);
		pthread_mutex_unlock(&s->lock);
		return -EPIPE;
	}
	if (s->cfg.framing != CH39X_FRAMING_VENDOR) {
		rc = cdc_control(s, req_type, request, value, index, buf,
				 length);
	} else if (req_type == CH39X_REQT_IN) {
		switch (request) {
		case CH39X_REQ_GET_INFO:
			if (length != CH39X_GET_INFO_LEN)
				break;
			memset(buf, 0, CH39X_GET_INFO_LEN);
			/* ASSUMPTION: bytes other than 2 are unexplained (sheet 9). */
			buf[0] = s->prof.family == CH39X_V02 ? 0x98 : 0x97;
			buf[1] = 0x01;
			buf[2] = info_val_l(s);
			rc = CH39X_GET_INFO_LEN;
			break;
		case CH39X_REQ_RD_REG:
			rc = rd_reg(s, arg, buf, length);
			break;
		case CH39X_REQ_RD_PHY:
			/* V1.7 PHY window: wValue 0x0740, wIndex = register. */
			if (value != CH39X_PHY_WVALUE || index > 31 || length != 2)
				break;
			ch39x_put_le16(buf, phy_read(s, index));
			rc = 2;
			break;
		default:
			break;
		}
	} else if (req_type == CH39X_REQT_OUT) {
		switch (request) {
		case CH39X_REQ_WR_REG:
			rc = wr_reg(s, arg, buf, length);
			break;
		case CH39X_REQ_WR_PHY:
			if (value != CH39X_PHY_WVALUE || index > 31 || length != 2)
				break;
			phy_write(s, index, ch39x_get_le16(buf));
			rc = 2;
			break;
		case CH39X_REQ_WR_MACCFG:
			/*
			 * ASSUMPTION: only firmware whose GET_INFO byte 2 is at
			 * least 0x37 knows command 0x1E; older firmware stalls,
			 * which catches a host that picks the wrong path.
			 */
			if (length != 0 ||
			    info_val_l(s) < CH39X_INFO_MACCFG_CMD_MIN)
				break;
			__atomic_store_n(&s->mac_cfg, arg, __ATOMIC_RELAXED);
			rc = 0;
			break;
		case CH39X_REQ_MISC_CONFIG:
			if (length != 0)
				break;
			s->misc_config = value;
			rc = 0;
			break;
		default:
			break;
		}
	}
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
	info->pid = s->prof.pid;
	info->bcd_device = 0x0100;
	/*
	 * ASSUMPTION: the model enumerates in the vendor configuration, so the
	 * configuration switch of sheet 1 is the libusb backend's business.
	 */
	info->config_value = s->prof.config_value;
	info->speed = (uint8_t)s->prof.speed;
	info->maxp[CH39X_EP_BULK_IN] = s->prof.bulk_maxp;
	info->maxp[CH39X_EP_BULK_OUT] = s->prof.bulk_maxp;
	/* ASSUMPTION: the interrupt endpoint's wMaxPacketSize is one event. */
	info->maxp[CH39X_EP_INTR_IN] = s->prof.intr_len;
	info->intr_interval_ms = SIM_INTR_INTERVAL_MS;
	info->framing = (uint8_t)s->cfg.framing;
	if (s->cfg.framing != CH39X_FRAMING_VENDOR) {
		info->config_value = SIM_CDC_CONFIG;
		info->maxp[CH39X_EP_INTR_IN] = CH39X_SIM_CDC_INTR_MAXP;
	}
	snprintf(info->serial, sizeof(info->serial), "%s", s->cfg.serial);
	return 0;
}

/* ---- the cable side ---- */

/* Time a frame takes on the cable, preamble, FCS and gap included. */
static uint64_t
wire_ns(const struct sim_dev *s, uint32_t len)
{
	return (uint64_t)(len + CH39X_WIRE_OVERHEAD) * 8000u /
		s->cfg.link_mbps;
}

/* Time the bus needs for a transfer's payload. */
static uint64_t
usb_ns(const struct sim_dev *s, uint32_t bytes)
{
	return (uint64_t)bytes * 8 * 1000000000ull / s->usb_bps;
}

/*
 * Occupy the bus for dur from max(now, when it is free); returns when the
 * transfer is done. The RX and TX lcores may share a USB 2.0 bus, so the
 * time stamp moves with compare-and-swap.
 */
static uint64_t
bus_reserve(uint64_t *free_ns, uint64_t now, uint64_t dur)
{
	uint64_t cur = __atomic_load_n(free_ns, __ATOMIC_RELAXED), done;

	do {
		done = (cur > now ? cur : now) + dur;
	} while (!__atomic_compare_exchange_n(free_ns, &cur, done, false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return done;
}

/*
 * Put a frame on the cable. f is only read: it may be the host's bulk OUT
 * buffer itself, which the device must not write.
 */
static void
wire_send(struct sim_dev *s, const uint8_t *f, uint32_t len)
{
	uint8_t runt[CH39X_MIN_FRAME];
	uint64_t ts = 0;

	/* A MAC pads runts to the 60-byte minimum on the wire. */
	if (len < CH39X_MIN_FRAME) {
		memcpy(runt, f, len);
		memset(runt + len, 0, CH39X_MIN_FRAME - len);
		f = runt;
		len = CH39X_MIN_FRAME;
	}
	if (!link_up(s)) {
		SIM_ADD(s->cnt.tx_link_down, 1);
		return;
	}
	SIM_ADD(s->cnt.tx_frames, 1);
	if (s->cfg.line_rate) {
		uint64_t start = s->tx_start_ns > s->wire_free_ns ?
			s->tx_start_ns : s->wire_free_ns;

		ts = start + wire_ns(s, len);
		s->wire_free_ns = ts;
	}
	if (s->tx_ring != NULL) {
		ring_push(s->tx_ring, f, len, ts);
	} else if (s->pcap_out != NULL) {
		struct pcap_pkthdr h;

		gettimeofday(&h.ts, NULL);
		h.caplen = len;
		h.len = len;
		pcap_dump((u_char *)s->pcap_out, &h, f);
	} else if (s->tap_fd >= 0) {
		/*
		 * The kernel takes the frame at once or drops it (its queue
		 * full): that is the far end's loss, as on a real cable.
		 */
		if (write(s->tap_fd, f, len) != (ssize_t)len)
			SIM_ADD(s->cnt.tx_wire_dropped, 1);
	}
}

/*
 * Next frame from the cable into buf (room for CH39X_V02_MAX_FRAME + 1
 * bytes); returns its length or 0.
 */
static uint32_t
wire_recv(struct sim_dev *s, uint8_t *buf)
{
	uint32_t len = ring_pop(s->rx_ring, buf, CH39X_V02_MAX_FRAME,
				s->cfg.line_rate ? now_ns() : UINT64_MAX);

	if (len == 0 && s->pcap_in != NULL) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = pcap_next_ex(s->pcap_in, &h, &data);

		if (rc == 1 && h->caplen > 0) {
			len = h->caplen > CH39X_V02_MAX_FRAME ?
				CH39X_V02_MAX_FRAME + 1 : h->caplen;
			memcpy(buf, data, len > CH39X_V02_MAX_FRAME ? 0 : len);
		} else if (rc != 1) {
			pcap_close(s->pcap_in);
			s->pcap_in = NULL;
		}
	} else if (len == 0 && s->tap_fd >= 0) {
		ssize_t n = read(s->tap_fd, buf, CH39X_V02_MAX_FRAME + 1);

		/* A frame longer than the buffer arrives cut: it is oversize. */
		len = n > 0 ? (uint32_t)n : 0;
	}
	return len;
}

int
ch39x_sim_inject(struct ch39x_usb_dev *d, const uint8_t *frame, uint32_t len)
{
	return ring_push(to_sim(d)->rx_ring, frame, len, 0);
}

/* The CDC models' filter: SET_ETHERNET_PACKET_FILTER and the MC list. */
static bool
rx_accept_cdc(struct sim_dev *s, const uint8_t *f)
{
	uint16_t flt = __atomic_load_n(&s->pkt_filter, __ATOMIC_RELAXED);
	uint16_t i, n;

	if (flt & CH39X_CDC_PKT_PROMISC)
		return true;
	if ((f[0] & 1) == 0)
		return (flt & CH39X_CDC_PKT_DIRECTED) &&
			memcmp(f, s->mac, 6) == 0;
	if (memcmp(f, "\xff\xff\xff\xff\xff\xff", 6) == 0)
		return (flt & CH39X_CDC_PKT_BROADCAST) != 0;
	if (flt & CH39X_CDC_PKT_ALL_MULTICAST)
		return true;
	if ((flt & CH39X_CDC_PKT_MULTICAST) == 0)
		return false;
	n = __atomic_load_n(&s->n_mc, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		if (memcmp(f, s->mc[i], 6) == 0)
			return true;
	return false;
}

/* The address filter of the MAC_CFG receive bits (sheet 3). */
static bool
rx_accept(struct sim_dev *s, const uint8_t *f)
{
	uint32_t cfg = __atomic_load_n(&s->mac_cfg, __ATOMIC_RELAXED);
	unsigned int idx;
	uint32_t word;

	if (cfg & CH39X_MACCFG_RX_RA)
		return true;
	if ((f[0] & 1) == 0) {
		/* ASSUMPTION: PUF passes unicast to the station address. */
		return (cfg & CH39X_MACCFG_RX_PUF) && memcmp(f, s->mac, 6) == 0;
	}
	if (memcmp(f, "\xff\xff\xff\xff\xff\xff", 6) == 0)
		return (cfg & CH39X_MACCFG_RX_PBD) != 0;
	if (cfg & CH39X_MACCFG_RX_PAM)
		return true;
	if ((cfg & CH39X_MACCFG_RX_PLM) == 0)
		return false;
	idx = ch39x_mc_hash_index(f);
	word = __atomic_load_n(idx >= 32 ? &s->hash_hi : &s->hash_lo,
			       __ATOMIC_RELAXED);
	/* V01 stores each hash word with its 16-bit halves swapped. */
	if (s->prof.family == CH39X_V01)
		word = (word << 16) | (word >> 16);
	return (word >> (idx & 31)) & 1;
}

static uint32_t
rx_max_frame(const struct sim_dev *s)
{
	/*
	 * ASSUMPTION: a CDC adapter receives frames up to wMaxSegmentSize
	 * or the negotiated datagram size, whichever is larger.
	 */
	if (s->cfg.framing != CH39X_FRAMING_VENDOR)
		return s->cdc.max_segment > s->max_dgram ?
			s->cdc.max_segment : s->max_dgram;
	if (s->prof.family == CH39X_V01)
		return CH39X_V01_MAX_FRAME;
	if (__atomic_load_n(&s->mac_cfg, __ATOMIC_RELAXED) &
	    CH39X_MACCFG_RWTE)
		return s->prof.max_frame;
	return SIM_V02_NOJUMBO_MAX;
}

/*
 * ch39x_csum_fold(ch39x_csum_add(0, p, len)), 4 bytes at a time: the RX
 * engine checks every frame, and the byte-pair loop was a tenth of the
 * model's cost at unlimited rate (64-byte frames). The sum is taken in
 * host byte order and swapped once: one's-complement sums are byte-order
 * independent (RFC 1071, 2.B), and the fold gives 0 only for all-zero
 * data either way, so the result is the same 16-bit value.
 */
static uint16_t
sim_csum(const uint8_t *p, size_t len)
{
	uint64_t sum = 0;
	uint32_t w;
	uint16_t h;

	for (; len >= 4; p += 4, len -= 4) {
		memcpy(&w, p, 4);
		sum += w;
	}
	if (len >= 2) {
		memcpy(&h, p, 2);
		sum += h;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* The last byte is the first of a word padded with zero. */
		h = 0;
		memcpy(&h, p, 1);
		sum += h;
	}
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint16_t)((sum >> 8) | (sum << 8));
#else
	return (uint16_t)sum;
#endif
}

/* ch39x_ip4_csum_ok() and ch39x_l4_csum_ok(), over sim_csum(). */
static bool
sim_ip4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h)
{
	return sim_csum(f + h->l2_len, h->l3_len) == 0xFFFF;
}

static bool
sim_l4_csum_ok(const uint8_t *f, const struct ch39x_hdrs *h)
{
	const uint8_t *ip = f + h->l2_len;
	const uint8_t *l4 = ip + h->l3_len;
	uint32_t sum;

	if (h->l4_proto == CH39X_IPPROTO_UDP && h->ipv4 &&
	    l4[6] == 0 && l4[7] == 0)
		return true;
	/* The pseudo-header: addresses, protocol, L4 length. */
	sum = h->ipv4 ? sim_csum(ip + 12, 8) : sim_csum(ip + 8, 32);
	sum += h->l4_proto;
	sum += h->l4_total & 0xFFFF;
	sum += h->l4_total >> 16;
	sum += sim_csum(l4, h->l4_total);
	return ch39x_csum_fold(sum) == 0xFFFF;
}

/* The V02 receive engine: VLAN strip and checksum check (sheet 4). */
static uint32_t
rx_v02_engine(struct sim_dev *s, uint8_t *f, uint32_t *len)
{
	struct ch39x_hdrs h;
	uint32_t info = 0;

	if ((__atomic_load_n(&s->misc_cfg, __ATOMIC_RELAXED) &
	     CH39X_MISCCFG_VLAN_STRIP) && *len >= 18 &&
	    f[12] == 0x81 && f[13] == 0x00) {
		uint16_t tci = (uint16_t)((f[14] << 8) | f[15]);

		memmove(f + 12, f + 16, *len - 16);
		*len -= 4;
		info |= CH39X_RX_VLAN | ((uint32_t)tci << 16);
	}
	if (ch39x_parse_hdrs(f, *len, &h) != 0)
		return info;
	/*
	 * ASSUMPTION: the engine checks TCP and UDP over IPv4 and IPv6 without
	 * extension headers or fragments, the cases the flags can express.
	 */
	if (h.l4_proto == CH39X_IPPROTO_TCP)
		info |= h.ipv4 ? CH39X_RX_TCP4_CHK : CH39X_RX_TCP6_CHK;
	else if (h.l4_proto == CH39X_IPPROTO_UDP)
		info |= h.ipv4 ? CH39X_RX_UDP4_CHK : CH39X_RX_UDP6_CHK;
	else
		return info;
	if (h.ipv4 && !sim_ip4_csum_ok(f, &h))
		info |= CH39X_RX_IP_ERR;
	if (!sim_l4_csum_ok(f, &h))
		info |= h.l4_proto == CH39X_IPPROTO_TCP ?
			CH39X_RX_TCP_ERR : CH39X_RX_UDP_ERR;
	return info;
}

/*
 * Take the next accepted frame from the cable into buf (room for
 * CH39X_V02_MAX_FRAME + 1 bytes); returns its length, 0 when none has
 * arrived.
 */
static uint32_t
frame_take(struct sim_dev *s, uint8_t *buf)
{
	uint32_t len;
	bool up;

	for (;;) {
		len = wire_recv(s, buf);
		if (len == 0)
			return 0;
		SIM_ADD(s->cnt.wire_rx_frames, 1);
		up = link_up(s);
		if (!up) {
			SIM_ADD(s->cnt.rx_link_down, 1);
			continue;
		}
		/* The cable carries no runts: the sender's MAC pads them. */
		if (len < CH39X_MIN_FRAME) {
			memset(buf + len, 0, CH39X_MIN_FRAME - len);
			len = CH39X_MIN_FRAME;
		}
		if (len > rx_max_frame(s)) {
			SIM_ADD(s->cnt.rx_oversize, 1);
			continue;
		}
		if (s->cfg.framing != CH39X_FRAMING_VENDOR ?
		    !rx_accept_cdc(s, buf) : !rx_accept(s, buf)) {
			SIM_ADD(s->cnt.rx_filtered, 1);
			continue;
		}
		return len;
	}
}

/*
 * Build the record of the next accepted frame from the cable at rec
 * (SIM_REC_ROOM bytes); returns its length, 0 when none has arrived. The
 * frame is read in place behind the header, so that a record lands in
 * its transfer with one copy, off the cable.
 */
static uint32_t
record_build(struct sim_dev *s, uint8_t *rec)
{
	uint8_t *f = rec + CH39X_HDR_LEN;
	uint32_t len, info;

	len = frame_take(s, f);
	if (len == 0)
		return 0;
	info = s->prof.family == CH39X_V02 ? rx_v02_engine(s, f, &len) : 0;
	/* A stripped tag must not leave a runt record behind. */
	if (len < CH39X_MIN_FRAME) {
		memset(f + len, 0, CH39X_MIN_FRAME - len);
		len = CH39X_MIN_FRAME;
	}
	/* Record: header, frame, zero padding to 4 (sheet 4). */
	ch39x_put_le32(rec, len);
	ch39x_put_le32(rec + 4, info);
	memset(f + len, 0, ALIGN4(CH39X_HDR_LEN + len) - CH39X_HDR_LEN - len);
	SIM_ADD(s->cnt.rx_delivered, 1);
	return ALIGN4(CH39X_HDR_LEN + len);
}

/* Take the next accepted frame from the cable into the staging record. */
static bool
stage_next(struct sim_dev *s)
{
	s->stage_len = record_build(s, s->stage);
	s->stage_off = 0;
	return s->stage_len != 0;
}

/* Take one pending fault of ep, or 0 (the endpoint's own thread). */
static uint32_t
fault_take(struct sim_dev *s, enum ch39x_ep ep)
{
	uint32_t left = __atomic_load_n(&s->fault_left[ep], __ATOMIC_ACQUIRE);

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

/* Complete the head bulk IN transfer; at line rate it occupies the bus. */
static void
in_done(struct sim_dev *s, struct ch39x_xfer *x, uint64_t now)
{
	if (s->truncate_next) {
		/* The tail of the transfer is lost on the bus. */
		s->truncate_next = false;
		x->actual = x->actual > 16 ? x->actual / 2 + 1 : 1;
	}
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	complete(s, x, CH39X_XFER_OK);
	if (s->cfg.line_rate)
		bus_reserve(s->in_free, now, usb_ns(s, x->actual));
}

/*
 * CDC models: each bulk IN transfer carries one NTB (NCM) or one frame
 * (ECM). An NTB closes when the next frame does not fit or nothing more
 * has arrived; a frame that did not fit waits in s->frame for the next.
 * A buffer shorter than what the device sends is babble (overflow).
 */
static void
cdc_rx_fill(struct sim_dev *s, uint64_t now)
{
	struct ch39x_ncm_tx_end e;
	enum ch39x_ncm_fit fit;
	struct ch39x_xfer *x;
	uint32_t len;

	while ((x = s->pend_head[CH39X_EP_BULK_IN]) != NULL) {
		if (s->cfg.line_rate &&
		    __atomic_load_n(s->in_free, __ATOMIC_RELAXED) > now)
			return;
		if (!s->frame_held) {
			len = frame_take(s, s->frame);
			if (len == 0)
				return;
			s->held_len = len;
			s->frame_held = true;
		}
		if (!is_ncm(s)) {
			if (x->len < s->held_len) {
				memcpy(x->buf, s->frame, x->len);
				x->actual = x->len;
				s->frame_held = false;
				q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
				complete(s, x, CH39X_XFER_OVERFLOW);
				continue;
			}
			memcpy(x->buf, s->frame, s->held_len);
			x->actual = s->held_len;
			s->frame_held = false;
			SIM_ADD(s->cnt.rx_delivered, 1);
			in_done(s, x, now);
			continue;
		}
		/*
		 * An NTB, its pad byte included, never exceeds the input
		 * size the host set; a smaller buffer would take babble.
		 */
		if (x->len < s->ntb_in_size) {
			x->actual = x->len;
			memset(x->buf, 0, x->len);
			q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
			complete(s, x, CH39X_XFER_OVERFLOW);
			continue;
		}
		ch39x_ncm_tx_begin(&s->ntx, x->buf);
		while (s->frame_held) {
			fit = ch39x_ncm_tx_check(&s->ntx, s->held_len);
			if (fit == CH39X_NCM_FIT_TOO_BIG ||
			    fit == CH39X_NCM_FIT_BAD_LEN) {
				SIM_ADD(s->cnt.rx_oversize, 1);
			} else if (fit != CH39X_NCM_FIT_OK) {
				break;
			} else {
				memcpy(ch39x_ncm_tx_add(&s->ntx, s->held_len),
				       s->frame, s->held_len);
				SIM_ADD(s->cnt.rx_delivered, 1);
			}
			s->frame_held = false;
			len = frame_take(s, s->frame);
			if (len != 0) {
				s->held_len = len;
				s->frame_held = true;
			}
		}
		e = ch39x_ncm_tx_finish(&s->ntx);
		if (e.len == 0)
			return;
		x->actual = e.len;
		in_done(s, x, now);
	}
}

/*
 * Fill in-flight bulk IN transfers from the cable (RX thread). Records are
 * packed while they fit; a transfer ends short when the next record does
 * not fit or nothing more has arrived. ASSUMPTION: a record larger than a
 * whole empty transfer is split over transfers, as V1.3 saw with 2 KiB
 * buffers (sheet 4); with the driver's 16-32 KiB buffers this never happens.
 */
static void
rx_fill(struct sim_dev *s)
{
	struct ch39x_xfer *x;
	uint32_t room, rem, kind;
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
	if (s->cfg.framing != CH39X_FRAMING_VENDOR) {
		cdc_rx_fill(s, now);
		return;
	}
	while ((x = s->pend_head[CH39X_EP_BULK_IN]) != NULL) {
		if (s->cfg.line_rate &&
		    __atomic_load_n(s->in_free, __ATOMIC_RELAXED) > now)
			return;
		room = x->len - x->actual;
		if (s->stage_len == 0 && room >= SIM_REC_ROOM) {
			/*
			 * Room for any record: build it in the transfer
			 * itself. It fits, as it would from the stage.
			 */
			rem = record_build(s, x->buf + x->actual);
			if (rem == 0)
				break;
			x->actual += rem;
			continue;
		}
		if (s->stage_len == 0 && !stage_next(s))
			break;
		rem = s->stage_len - s->stage_off;
		if (rem <= room) {
			memcpy(x->buf + x->actual, s->stage + s->stage_off, rem);
			x->actual += rem;
			s->stage_len = 0;
			continue;
		}
		if (x->actual == 0) {
			memcpy(x->buf, s->stage + s->stage_off, room);
			x->actual = room;
			s->stage_off += room;
			if (s->stage_off == room)
				SIM_ADD(s->cnt.rx_straddled, 1);
		}
		in_done(s, x, now);
	}
	x = s->pend_head[CH39X_EP_BULK_IN];
	if (x != NULL && x->actual > 0)
		in_done(s, x, now);
}

/* The cmd_1 bits that make the V02 transmit engine change a frame. */
#define SIM_TX_ENGINE_BITS (CH39X_TX_CSUM_IP4 | CH39X_TX_CSUM_TCP | \
			    CH39X_TX_CSUM_UDP | CH39X_TX_VLAN)

/* The V02 transmit engine: checksum and VLAN insertion (sheet 5). */
static uint32_t
tx_v02_engine(uint8_t *f, uint32_t len, uint32_t cmd1)
{
	struct ch39x_hdrs h;

	if (cmd1 & (CH39X_TX_CSUM_IP4 | CH39X_TX_CSUM_TCP | CH39X_TX_CSUM_UDP)) {
		if (ch39x_parse_hdrs(f, len, &h) == 0) {
			if ((cmd1 & CH39X_TX_CSUM_IP4) && h.ipv4)
				ch39x_ip4_csum_set(f, &h);
			if (((cmd1 & CH39X_TX_CSUM_TCP) &&
			     h.l4_proto == CH39X_IPPROTO_TCP) ||
			    ((cmd1 & CH39X_TX_CSUM_UDP) &&
			     h.l4_proto == CH39X_IPPROTO_UDP))
				ch39x_l4_csum_set(f, &h);
		}
	}
	if (cmd1 & CH39X_TX_VLAN) {
		uint16_t tci = (uint16_t)(cmd1 >> CH39X_TX_TCI_SHIFT);

		memmove(f + 16, f + 12, len - 12);
		f[12] = 0x81;
		f[13] = 0x00;
		f[14] = (uint8_t)(tci >> 8);
		f[15] = (uint8_t)tci;
		len += 4;
	}
	return len;
}

/*
 * Hardware TSO of a V02 record (sheet 5): TCPHO is the offset of the first
 * payload byte and MSS is in cmd_1. The headers are found the way the
 * frame itself says (VLAN tag, IPv4 IHL); the IP length fields are not
 * trusted, since the driver zeroes the IPv6 payload length.
 * ASSUMPTION: the chip recomputes both checksums from scratch and sends
 * segments that satisfy ch39x_tso.h, the same code as software TSO.
 */
static void
tx_v02_tso(struct sim_dev *s, uint32_t flen, uint32_t cmd0, uint32_t cmd1)
{
	uint32_t tcpho = cmd0 >> CH39X_TX_TCPHO_SHIFT, l2 = CH39X_ETH_HLEN, l3;
	uint16_t mss = (uint16_t)(cmd1 & CH39X_TX_MSS_MASK);
	struct ch39x_tso t;
	uint32_t len;

	if (flen > l2 + 4 && s->txf[12] == 0x81 && s->txf[13] == 0x00)
		l2 += CH39X_VLAN_HLEN;
	if (flen <= l2)
		goto bad;
	l3 = (cmd0 & CH39X_TX_TSO4) ? (uint32_t)(s->txf[l2] & 0xF) * 4 : 40;
	if (tcpho <= l2 + l3 ||
	    ch39x_tso_init(&t, s->txf, flen, (uint16_t)l2, (uint16_t)l3,
			   (uint16_t)(tcpho - l2 - l3), mss) < 0 ||
	    (bool)(cmd0 & CH39X_TX_TSO4) != t.ipv4)
		goto bad;
	while ((len = ch39x_tso_next_len(&t)) != 0) {
		if (len > CH39X_V02_MAX_FRAME)
			goto bad;
		ch39x_tso_emit(&t, s->seg);
		len = tx_v02_engine(s->seg, len, cmd1 & CH39X_TX_VLAN ?
				    (cmd1 & 0xFFFF8000u) : 0);
		SIM_ADD(s->cnt.tx_tso_segments, 1);
		wire_send(s, s->seg, len);
	}
	return;
bad:
	SIM_ADD(s->cnt.tx_bad_records, 1);
}

/* The NCM parser's counters of bad NTBs, NDPs and entries. */
static uint64_t
ncm_bad(const struct ch39x_ncm_rx_stats *st)
{
	return st->short_ntb + st->bad_nth_sig + st->bad_hdr_len +
		st->bad_block_len + st->bad_ndp_index + st->bad_ndp_len +
		st->ndp_loops + st->ndp_no_null + st->bad_dgram;
}

/*
 * CDC models' bulk OUT: an NTB of datagrams (NCM) or one frame (ECM).
 * Datagrams longer than the device takes are dropped, as the Linux NCM
 * gadget does ("Bad dgram length"), and counted.
 */
static void
cdc_tx_parse(struct sim_dev *s, const struct ch39x_xfer *x)
{
	uint32_t max = is_ncm(s) ? __atomic_load_n(&s->max_dgram,
						   __ATOMIC_RELAXED) :
		s->cdc.max_segment;
	struct ch39x_ncm_dgram d;
	uint64_t bad;

	if (!is_ncm(s)) {
		if (x->len < CH39X_ETH_HLEN)
			SIM_ADD(s->cnt.tx_bad_records, 1);
		else if (x->len > max)
			SIM_ADD(s->cnt.tx_oversize, 1);
		else
			wire_send(s, x->buf, x->len);
		return;
	}
	bad = ncm_bad(&s->nrx.stats);
	if (ch39x_ncm_rx_begin(&s->nrx, x->buf, x->len) == 0) {
		while (ch39x_ncm_rx_next(&s->nrx, &d) == 1) {
			if (d.len > max) {
				SIM_ADD(s->cnt.tx_oversize, 1);
				continue;
			}
			wire_send(s, d.data, d.len);
		}
	}
	SIM_ADD(s->cnt.tx_bad_records, ncm_bad(&s->nrx.stats) - bad);
	if (x->zlp)
		SIM_ADD(s->cnt.tx_zlp_seen, 1);
}

/* Parse one bulk OUT transfer and put its frames on the cable (TX thread). */
static void
tx_parse(struct sim_dev *s, const struct ch39x_xfer *x)
{
	const struct ch39x_profile *p = &s->prof;
	uint32_t off = 0, cmd0, cmd1, flen, max;
	const uint8_t *rec;
	bool ls = false, tso;

	if (s->cfg.framing != CH39X_FRAMING_VENDOR) {
		cdc_tx_parse(s, x);
		return;
	}
	/*
	 * Oversize records are the host's bug: the device drops them. A TSO
	 * record may fill the whole transfer (sheet 5).
	 */
	max = p->family == CH39X_V02 ? p->max_frame : CH39X_V01_MAX_FRAME;
	while (off + CH39X_HDR_LEN <= x->len) {
		cmd0 = ch39x_get_le32(x->buf + off);
		cmd1 = ch39x_get_le32(x->buf + off + 4);
		flen = cmd0 & CH39X_TX_LEN_MASK;
		tso = p->family == CH39X_V02 &&
			(cmd0 & (CH39X_TX_TSO4 | CH39X_TX_TSO6));
		if (flen < CH39X_ETH_HLEN ||
		    flen > (tso ? p->tx_xfer_size - CH39X_HDR_LEN : max) ||
		    flen > x->len - off - CH39X_HDR_LEN) {
			SIM_ADD(s->cnt.tx_bad_records, 1);
			return;
		}
		rec = x->buf + off + CH39X_HDR_LEN;
		off += ALIGN4(CH39X_HDR_LEN + flen);
		if (tso) {
			memcpy(s->txf, rec, flen);
			tx_v02_tso(s, flen, cmd0, cmd1);
		} else if (p->family == CH39X_V02 &&
			   (cmd1 & SIM_TX_ENGINE_BITS)) {
			/* The engine writes: work on a copy, not the host's. */
			memcpy(s->txf, rec, flen);
			flen = tx_v02_engine(s->txf, flen, cmd1);
			wire_send(s, s->txf, flen);
		} else {
			wire_send(s, rec, flen);
		}
		if (p->tx_ls && (cmd0 & CH39X_TX_LS)) {
			/* TX_LS: the last record, then a 4-byte trailer. */
			SIM_ADD(s->cnt.tx_ls_seen, 1);
			ls = true;
			if (off + CH39X_TX_TRAILER != x->len)
				SIM_ADD(s->cnt.tx_bad_records, 1);
			break;
		}
	}
	if (!ls && off != x->len)
		SIM_ADD(s->cnt.tx_bad_records, 1);
	if (x->zlp)
		SIM_ADD(s->cnt.tx_zlp_seen, 1);
	/*
	 * A transfer that ends on a packet boundary needs an end mark: a ZLP
	 * on V01, TX_LS at high/full speed on V02; none at SuperSpeed (sheet
	 * 5). Without one the device cannot tell where the transfer ended.
	 */
	if (x->len % p->bulk_maxp == 0 &&
	    ((p->tx_ls && !ls) || (p->tx_zlp && !x->zlp)))
		SIM_ADD(s->cnt.tx_unterminated, 1);
}

/* ---- interrupt events (sheet 6) ---- */

/*
 * CDC notifications on link changes, while the data interface is at alt
 * 1: going up, SPEED_CHANGE then NETWORK_CONNECTION(1), as the Linux
 * gadget sends them; going down, NETWORK_CONNECTION(0).
 */
static void
cdc_intr_poll(struct sim_dev *s, struct ch39x_xfer *x)
{
	int link = link_up(s);
	uint32_t n, bps;

	if (s->data_alt == 0)
		return;
	if (s->conn_pending) {
		n = ch39x_cdc_notify_build_connection(x->buf, x->len,
						      s->cdc.comm_if, true);
		s->conn_pending = false;
		s->last_link = 1;
	} else if (link != s->last_link) {
		bps = link_speed(s) * 1000000u;
		if (link) {
			n = ch39x_cdc_notify_build_speed(x->buf, x->len,
							 s->cdc.comm_if, bps,
							 bps);
			s->conn_pending = true;
		} else {
			n = ch39x_cdc_notify_build_connection(x->buf, x->len,
							      s->cdc.comm_if,
							      false);
			s->last_link = 0;
		}
	} else {
		return;
	}
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	if (n == 0) {
		x->actual = x->len;
		complete(s, x, CH39X_XFER_OVERFLOW);
		return;
	}
	x->actual = n;
	complete(s, x, CH39X_XFER_OK);
	SIM_ADD(s->cnt.cdc_notifications, 1);
}

static void
intr_poll(struct sim_dev *s)
{
	struct ch39x_xfer *x = s->pend_head[CH39X_EP_INTR_IN];
	struct ch39x_event ev;
	uint64_t now, rx, tx;
	uint32_t kind;
	int link;

	if (x == NULL)
		return;
	kind = fault_take(s, CH39X_EP_INTR_IN);
	if (s->halted[CH39X_EP_INTR_IN] || kind != 0) {
		q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
		complete(s, x, kind ? fault_status(s, x->ep, kind) :
			 CH39X_XFER_STALL);
		return;
	}
	if (s->cfg.framing != CH39X_FRAMING_VENDOR) {
		cdc_intr_poll(s, x);
		return;
	}
	link = link_up(s);
	rx = SIM_GET(s->cnt.rx_delivered);
	tx = SIM_GET(s->cnt.tx_frames);
	now = now_ns();
	/*
	 * ASSUMPTION: events on every link change, and when the counters
	 * moved, at most once per bInterval (sheet 9: unknown whether periodic).
	 * The counters are cumulative and wrap at their field widths.
	 */
	if (link == s->last_link &&
	    ((rx == s->last_evt_rx && tx == s->last_evt_tx) ||
	     now - s->last_evt_ns < SIM_INTR_INTERVAL_MS * 1000000ull))
		return;
	memset(&ev, 0, sizeof(ev));
	ev.link_up = link;
	ev.full_duplex = true;
	ev.speed_mbps = link_speed(s);
	ev.rx_packets = (uint32_t)rx;
	ev.rx_overflow = (uint16_t)SIM_GET(s->rx_ring->drops);
	ev.rx_crc_errors = 0;
	ev.tx_packets = (uint32_t)tx;
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	if (x->len < s->prof.intr_len) {
		x->actual = x->len;
		complete(s, x, CH39X_XFER_OVERFLOW);
		return;
	}
	x->actual = ch39x_event_build(&s->prof, &ev, x->buf, x->len);
	complete(s, x, CH39X_XFER_OK);
	s->last_link = link;
	s->last_evt_ns = now;
	s->last_evt_rx = rx;
	s->last_evt_tx = tx;
	SIM_ADD(s->cnt.events_sent, 1);
}

/* ---- transport ops ---- */

/*
 * When a bulk OUT transfer completes at line rate: after the bus has
 * carried it, and not before the chip's TX FIFO has room for it.
 * ASSUMPTION: a 64 KiB TX FIFO (the chip's is unknown).
 */
static void
out_timing(struct sim_dev *s, struct ch39x_xfer *x)
{
	uint64_t now = now_ns(), fifo_ns = wire_ns(s, 65536) -
		wire_ns(s, 0);
	uint64_t done = bus_reserve(s->out_free, now, usb_ns(s, x->len));

	if (s->wire_free_ns > done + fifo_ns)
		done = s->wire_free_ns - fifo_ns;
	if (done > __atomic_load_n(s->out_free, __ATOMIC_RELAXED))
		__atomic_store_n(s->out_free, done, __ATOMIC_RELAXED);
	s->tx_start_ns = done;
	x->backend_ns = done;
}

static int
sim_submit(struct ch39x_usb_dev *d, struct ch39x_xfer *x)
{
	struct sim_dev *s = to_sim(d);
	uint32_t kind;

	if (x->ep >= CH39X_EP_COUNT || x->in_flight)
		return -EINVAL;
	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
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
			tx_parse(s, x);
			complete(s, x, CH39X_XFER_OK);
			return 0;
		}
		out_timing(s, x);
		tx_parse(s, x);
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
sim_cancel_all(struct ch39x_usb_dev *d, enum ch39x_ep ep)
{
	struct sim_dev *s = to_sim(d);
	struct ch39x_xfer *x;

	pthread_mutex_lock(&s->lock);
	while ((x = q_pop(&s->pend_head[ep], &s->pend_tail[ep])) != NULL)
		complete(s, x, CH39X_XFER_CANCELLED);
	if (ep == CH39X_EP_BULK_IN) {
		/* A record split over transfers is lost with them. */
		if (s->stage_len && s->stage_off)
			s->stage_len = 0;
	}
	pthread_mutex_unlock(&s->lock);
}

static unsigned int
sim_poll(struct ch39x_usb_dev *d, enum ch39x_ep ep, struct ch39x_xfer **done,
	 unsigned int max)
{
	struct sim_dev *s = to_sim(d);
	struct ch39x_xfer *x;
	unsigned int n = 0;

	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE)) {
		if (ep == CH39X_EP_INTR_IN)
			pthread_mutex_lock(&s->lock);
		flush_ep(s, ep, CH39X_XFER_NO_DEVICE);
		if (ep == CH39X_EP_INTR_IN)
			pthread_mutex_unlock(&s->lock);
	} else if (ep == CH39X_EP_BULK_IN) {
		rx_fill(s);
	} else if (ep == CH39X_EP_BULK_OUT) {
		uint64_t now = s->pend_head[ep] ? now_ns() : 0;

		while ((x = s->pend_head[ep]) != NULL && x->backend_ns <= now) {
			q_pop(&s->pend_head[ep], &s->pend_tail[ep]);
			complete(s, x, CH39X_XFER_OK);
		}
	} else if (ep == CH39X_EP_INTR_IN) {
		pthread_mutex_lock(&s->lock);
		intr_poll(s);
		pthread_mutex_unlock(&s->lock);
	}
	while (n < max && (x = q_pop(&s->done_head[ep], &s->done_tail[ep]))) {
		x->in_flight = false;
		done[n++] = x;
	}
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
	    f > CH39X_SIM_FAULT_GARBAGE)
		return -1;
	if (ep != CH39X_EP_BULK_IN && f >= CH39X_SIM_FAULT_OVERFLOW)
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

void
ch39x_sim_unplug(struct ch39x_usb_dev *d)
{
	struct sim_dev *s = to_sim(d);

	__atomic_store_n(&s->unplugged, true, __ATOMIC_RELEASE);
	/* The far end of the cable loses its link partner. */
	pthread_mutex_lock(&s->lock);
	s->cable = false;
	update_up(s);
	pthread_mutex_unlock(&s->lock);
}

static void
pair_detach(struct sim_dev *s)
{
	struct sim_pair *p = s->pair, **pp;

	if (p == NULL)
		return;
	pthread_mutex_lock(&pairs_lock);
	__atomic_store_n(&p->present[s->side], false, __ATOMIC_RELAXED);
	__atomic_store_n(&p->up[s->side], false, __ATOMIC_RELAXED);
	if (!p->present[0] && !p->present[1]) {
		for (pp = &pairs; *pp; pp = &(*pp)->next) {
			if (*pp == p) {
				*pp = p->next;
				break;
			}
		}
		ring_free(p->ring[0]);
		ring_free(p->ring[1]);
		free(p);
	}
	pthread_mutex_unlock(&pairs_lock);
	s->pair = NULL;
}

static void
sim_close(struct ch39x_usb_dev *d)
{
	struct sim_dev *s = to_sim(d);

	if (s == NULL)
		return;
	pair_detach(s);
	ring_free(s->own_ring);
	if (s->pcap_in)
		pcap_close(s->pcap_in);
	if (s->pcap_out)
		pcap_dump_close(s->pcap_out);
	if (s->pcap_dead)
		pcap_close(s->pcap_dead);
	if (s->tap_fd >= 0)
		close(s->tap_fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

static int
sim_get_cdc(struct ch39x_usb_dev *d, struct ch39x_cdc_desc *cdc)
{
	struct sim_dev *s = to_sim(d);

	if (s->cfg.framing == CH39X_FRAMING_VENDOR)
		return -ENOTSUP;
	*cdc = s->cdc;
	return 0;
}

static int
sim_set_data_alt(struct ch39x_usb_dev *d, uint8_t alt)
{
	struct sim_dev *s = to_sim(d);

	if (s->cfg.framing == CH39X_FRAMING_VENDOR)
		return -ENOTSUP;
	if (__atomic_load_n(&s->unplugged, __ATOMIC_ACQUIRE))
		return -ENODEV;
	if (alt > 1)
		return -EINVAL;
	if (s->pend_head[CH39X_EP_BULK_IN] || s->pend_head[CH39X_EP_BULK_OUT])
		return -EBUSY;
	pthread_mutex_lock(&s->lock);
	if (alt == 0) {
		cdc_reset_function(s);
	} else if (s->data_alt == 0) {
		s->data_alt = 1;
		s->last_link = -1;	/* tell the host the link state */
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static const struct ch39x_usb_ops sim_ops = {
	.name = "sim",
	.get_info = sim_get_info,
	.control = sim_control,
	.submit = sim_submit,
	.cancel_all = sim_cancel_all,
	.poll = sim_poll,
	.clear_halt = sim_clear_halt,
	.close = sim_close,
	.get_cdc = sim_get_cdc,
	.set_data_alt = sim_set_data_alt,
};

bool
ch39x_sim_is_sim(const struct ch39x_usb_dev *d)
{
	return d != NULL && d->ops == &sim_ops;
}

static int
pair_attach(struct sim_dev *s, char *err, size_t errlen)
{
	struct sim_pair *p;
	int rc = 0;

	pthread_mutex_lock(&pairs_lock);
	for (p = pairs; p; p = p->next)
		if (strcmp(p->name, s->cfg.pair_name) == 0)
			break;
	if (p == NULL) {
		p = calloc(1, sizeof(*p));
		if (p == NULL || (p->ring[0] = ring_new()) == NULL ||
		    (p->ring[1] = ring_new()) == NULL) {
			if (p)
				ring_free(p->ring[0]);
			free(p);
			snprintf(err, errlen, "out of memory for pair %s",
				 s->cfg.pair_name);
			rc = -1;
			goto out;
		}
		snprintf(p->name, sizeof(p->name), "%s", s->cfg.pair_name);
		p->next = pairs;
		pairs = p;
	}
	if (p->present[0] && p->present[1]) {
		snprintf(err, errlen,
			 "wire=pair:%s already cables two adapters together",
			 s->cfg.pair_name);
		rc = -1;
		goto out;
	}
	s->side = p->present[0] ? 1 : 0;
	p->present[s->side] = true;
	p->up[s->side] = true;
	s->pair = p;
	s->rx_ring = p->ring[s->side];
	s->tx_ring = p->ring[1 - s->side];
out:
	pthread_mutex_unlock(&pairs_lock);
	return rc;
}

/*
 * The CDC models' descriptors and NTB parameters. ASSUMPTION: the values
 * of the Linux 6.1 NCM/ECM gadget (../shared/reference/vm-gadget-study),
 * except the multicast filters (16 perfect ones) and, unless the quirk
 * says otherwise, the max-datagram capability.
 */
static void
cdc_model_init(struct sim_dev *s)
{
	struct ch39x_cdc_desc *c = &s->cdc;
	bool ncm = is_ncm(s);

	memset(c, 0, sizeof(*c));
	c->have_comm = true;
	c->comm_if = 0;
	c->comm_subclass = ncm ? CH39X_CDC_SUBCLASS_NCM : CH39X_CDC_SUBCLASS_ECM;
	c->intr_ep = 0x83;
	c->intr_maxp = CH39X_SIM_CDC_INTR_MAXP;
	c->intr_interval = 4;
	c->have_header = true;
	c->bcd_cdc = 0x0110;
	c->have_union = true;
	c->union_master = 0;
	c->union_slave = 1;
	c->have_ether = true;
	c->i_mac_address = CH39X_SIM_CDC_MAC_STRING;
	c->max_segment = s->cfg.cdc_max_segment ? s->cfg.cdc_max_segment :
		1514;
	c->mc_filters = CH39X_SIM_CDC_MC_FILTERS;
	c->have_ncm = ncm;
	c->bcd_ncm = 0x0100;
	c->ncm_caps = CH39X_NCM_CAP_ETH_FILTER |
		((s->cfg.ncm_quirks & CH39X_SIM_NCM_NO_MAX_DGRAM) ? 0 :
		 CH39X_NCM_CAP_MAX_DATAGRAM);
	c->have_data = true;
	c->data_if = 1;
	c->have_data_eps = true;
	c->data_alt = 1;
	c->data_protocol = ncm ? CH39X_CDC_NCM_PROTO_NTB : 0;
	c->bulk_in = 0x81;
	c->bulk_out = 0x02;
	c->bulk_in_maxp = s->prof.bulk_maxp;
	c->bulk_out_maxp = s->prof.bulk_maxp;
	c->flags = CH39X_CDC_F_DATA_FROM_UNION;

	memset(&s->ntbp, 0, sizeof(s->ntbp));
	s->ntbp.length = CH39X_NCM_NTB_PARAMS_LEN;
	s->ntbp.formats = (s->cfg.ncm_quirks & CH39X_SIM_NCM_NTB32_ONLY) ?
		CH39X_NCM_FMT_NTB32_BIT :
		(CH39X_NCM_FMT_NTB16_BIT | CH39X_NCM_FMT_NTB32_BIT);
	s->ntbp.in_max_size = SIM_NCM_NTB_MAX;
	s->ntbp.in_divisor = 4;
	s->ntbp.in_alignment = 4;
	s->ntbp.out_max_size = s->cfg.ncm_out_max ? s->cfg.ncm_out_max :
		SIM_NCM_NTB_MAX;
	s->ntbp.out_divisor = 4;
	s->ntbp.out_alignment = 4;
	s->max_dgram = c->max_segment;
	/* ASSUMPTION: power-up filter passes directed, broadcast, multicast. */
	s->pkt_filter = CH39X_CDC_PKT_DIRECTED | CH39X_CDC_PKT_BROADCAST |
		CH39X_CDC_PKT_ALL_MULTICAST;
	cdc_reset_function(s);
}

/*
 * Open (creating when absent) the TAP interface name, without packet
 * information headers and non-blocking, so that the RX thread's poll never
 * waits. The interface lives while the descriptor is open unless it was
 * made persistent beforehand (ip tuntap add).
 */
static int
tap_open(const char *name, char *err, size_t errlen)
{
	struct ifreq ifr;
	int fd;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "wire=tap:%s: cannot open /dev/net/tun: %s",
			 name, strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		snprintf(err, errlen, "wire=tap:%s: TUNSETIFF failed: %s%s",
			 name, strerror(errno), errno == EPERM ?
			 " (needs CAP_NET_ADMIN)" : "");
		close(fd);
		return -1;
	}
	return fd;
}

struct ch39x_usb_dev *
ch39x_sim_open(const struct ch39x_sim_config *cfg, char *err, size_t errlen)
{
	struct sim_dev *s;
	char pe[PCAP_ERRBUF_SIZE];
	uint32_t n;

	s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->base.ops = &sim_ops;
	s->base.ctrl_delay_us = 0;
	s->tap_fd = -1;
	s->cfg = *cfg;
	pthread_mutex_init(&s->lock, NULL);
	s->last_link = -1;
	s->rng = 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)s;
	if (ch39x_profile_init(&s->prof, cfg->pid, cfg->speed) != 0) {
		snprintf(err, errlen, "%s cannot run at %s speed",
			 ch39x_chip_name(cfg->pid) ? ch39x_chip_name(cfg->pid) :
			 "this device",
			 cfg->speed == CH39X_SPEED_SUPER ? "super" :
			 cfg->speed == CH39X_SPEED_HIGH ? "high" : "full");
		goto fail;
	}
	if (s->cfg.link_mbps == 0)
		s->cfg.link_mbps = s->prof.gigabit ? 1000 : 100;
	if (s->cfg.link_mbps != 10 && s->cfg.link_mbps != 100 &&
	    (s->cfg.link_mbps != 1000 || !s->prof.gigabit)) {
		snprintf(err, errlen, "link_speed=%u: allowed values for %s "
			 "are %s", s->cfg.link_mbps,
			 ch39x_chip_name(cfg->pid),
			 s->prof.gigabit ? "10, 100, 1000" : "10, 100");
		goto fail;
	}
	s->in_free = &s->in_bus_ns;
	s->out_free = cfg->speed == CH39X_SPEED_SUPER ? &s->out_bus_ns :
		&s->in_bus_ns;
	s->usb_bps = cfg->speed == CH39X_SPEED_SUPER ? CH39X_USB_SS_BULK_BPS :
		cfg->speed == CH39X_SPEED_HIGH ? CH39X_USB_HS_BULK_BPS :
		CH39X_USB_FS_BULK_BPS;
	n = __atomic_add_fetch(&sim_instances, 1, __ATOMIC_RELAXED);
	if (memcmp(cfg->mac, "\0\0\0\0\0\0", 6) == 0) {
		/* A locally administered factory address, unique per process. */
		s->mac[0] = 0x02;
		s->mac[1] = 0x1A;
		s->mac[2] = 0x86;
		s->mac[3] = (uint8_t)cfg->pid;
		s->mac[4] = (uint8_t)(n >> 8);
		s->mac[5] = (uint8_t)n;
	} else {
		memcpy(s->mac, cfg->mac, 6);
	}
	if (s->cfg.serial[0] == '\0')
		snprintf(s->cfg.serial, sizeof(s->cfg.serial), "SIM%04X%04u",
			 cfg->pid, n);
	/*
	 * ASSUMPTION: power-up MAC_CFG has TX_EN and RX_EN set (sheet 9: the
	 * driver never sets them) and passes unicast and broadcast.
	 */
	s->mac_cfg = (1u << 13) | (1u << 14) | CH39X_MACCFG_RX_PUF |
		CH39X_MACCFG_RX_PBD;
	s->phy[CH39X_PHY_BMCR] = s->prof.gigabit ? 0x1140 : 0x3100;
	s->phy[CH39X_PHY_BMSR] = 0x796D;
	s->phy[CH39X_PHY_ANAR] = 0x01E1;
	s->phy[CH39X_PHY_GBCR] = s->prof.gigabit ? 0x0200 : 0;
	s->cable = true;
	s->own_up = true;
	if (cfg->framing != CH39X_FRAMING_VENDOR)
		cdc_model_init(s);

	switch (cfg->wire) {
	case CH39X_WIRE_LOOP:
		s->own_ring = ring_new();
		s->rx_ring = s->own_ring;
		s->tx_ring = s->own_ring;
		break;
	case CH39X_WIRE_PAIR:
		if (pair_attach(s, err, errlen) != 0)
			goto fail;
		break;
	case CH39X_WIRE_PCAP:
		s->own_ring = ring_new();
		s->rx_ring = s->own_ring;
		if (cfg->pcap_in[0]) {
			s->pcap_in = pcap_open_offline(cfg->pcap_in, pe);
			if (s->pcap_in == NULL) {
				snprintf(err, errlen, "wire=pcap: cannot read %s: %s",
					 cfg->pcap_in, pe);
				goto fail;
			}
		}
		if (cfg->pcap_out[0]) {
			s->pcap_dead = pcap_open_dead(DLT_EN10MB, 65535);
			if (s->pcap_dead)
				s->pcap_out = pcap_dump_open(s->pcap_dead,
							     cfg->pcap_out);
			if (s->pcap_out == NULL) {
				snprintf(err, errlen, "wire=pcap: cannot write %s: %s",
					 cfg->pcap_out, s->pcap_dead ?
					 pcap_geterr(s->pcap_dead) : "no memory");
				goto fail;
			}
		}
		break;
	case CH39X_WIRE_TAP:
		s->own_ring = ring_new();
		s->rx_ring = s->own_ring;
		s->tap_fd = tap_open(cfg->tap_name, err, errlen);
		if (s->tap_fd < 0)
			goto fail;
		break;
	}
	if (s->rx_ring == NULL) {
		snprintf(err, errlen, "out of memory for the cable");
		goto fail;
	}
	return &s->base;
fail:
	sim_close(&s->base);
	return NULL;
}

void
ch39x_sim_set_cable(struct ch39x_usb_dev *d, bool plugged)
{
	struct sim_dev *s = to_sim(d);

	pthread_mutex_lock(&s->lock);
	s->cable = plugged;
	update_up(s);
	pthread_mutex_unlock(&s->lock);
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
}

uint32_t
ch39x_sim_reg(struct ch39x_usb_dev *d, uint32_t addr)
{
	struct sim_dev *s = to_sim(d);
	uint8_t v[4];

	if (rd_reg(s, addr, v, 4) != 4)
		return 0xFFFFFFFFu;
	return ch39x_get_le32(v);
}
