/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* §N: section N of doc/guides/nics/ch39x_protocol.rst */

#ifndef CH39X_SIM_PRIV_H
#define CH39X_SIM_PRIV_H

/*
 * The simulated adapter's insides, shared by its parts:
 *   ch39x_sim.c         the transport ops, fault injection, open and close;
 *   ch39x_sim_wire.c    the cable (loop, pair, pcap, TAP), its frame ring,
 *                       and the timing of the cable and of the USB bus;
 *   ch39x_sim_vendor.c  the chip in vendor mode: registers, PHY window,
 *                       vendor requests, RX records and the receive engine,
 *                       TX records, hardware TSO, interrupt events;
 *   ch39x_sim_phy.c     the PHY: MII registers, the MMD and extended
 *                       windows, autonegotiation between the cable's ends;
 *   ch39x_sim_cdc.c     the chip (or any NIC) as a CDC-NCM/ECM function:
 *                       class requests, descriptors, NTBs, notifications;
 *   ch39x_sim_rndis.c   an RNDIS function: encapsulated control messages,
 *                       indications, data messages;
 *   ch39x_sim_mbim.c    an LTE/5G modem as an MBIM function: its control
 *                       messages, the network it registers with, and IP
 *                       sessions routed to the cable (§24);
 *   ch39x_sim_desc.c    the standard descriptors a host enumerates with.
 * The USB function (vendor, NCM, ECM or RNDIS) is chosen at open as a
 * struct sim_model, so that the core does not branch on the framing per
 * frame.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "ch39x_ncm.h"
#include "ch39x_sim.h"

/* Functions shared between the parts: not exported from a shared object. */
#define SIM_INTERNAL __attribute__((visibility("hidden")))

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
 * to 2058 bytes. The driver leaves the bit clear up to MTU 2040 (§7),
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
/* The CDC models' configuration value (the chip's is unknown, §9). */
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
	/* Consumer's RX wake-up (ch39x_sim_wake.c): an eventfd, or -1. */
	int wake_fd;
	uint32_t armed;
};

/* ---- the PHY and the link ---- */

/* Link modes, in the order of autonegotiation priority (lowest first). */
#define SIM_M10H	(1u << 0)
#define SIM_M10F	(1u << 1)
#define SIM_M100H	(1u << 2)
#define SIM_M100F	(1u << 3)
#define SIM_M1000H	(1u << 4)
#define SIM_M1000F	(1u << 5)

/* What one end of the cable offers the other (sim_phy_adv()). */
struct sim_phy_adv {
	bool on;		/* cable plugged, PHY powered, not isolated */
	bool an;		/* autonegotiation enabled */
	uint8_t modes;		/* SIM_M*: advertised, or the one forced */
	uint8_t pause;		/* bit 0 pause, bit 1 asymmetric pause */
	uint8_t eee;		/* CH39X_EEE_* advertised */
	uint16_t cap_mbps;	/* fastest the cable takes at this end */
};

/*
 * The resolved link of one end, one word so that the data path reads it
 * with one load: s->link.
 */
#define SIM_LK_UP	(1u << 0)
#define SIM_LK_FULL	(1u << 1)
#define SIM_LK_ANC	(1u << 2)	/* BMSR: autonegotiation complete */
#define SIM_LK_LP_AN	(1u << 3)	/* the partner autonegotiated */
#define SIM_LK_MASTER	(1u << 4)	/* 1000BASE-T master */
#define SIM_LK_LP_PAUSE_SHIFT 5		/* 2 bits: partner's pause bits */
#define SIM_LK_LP_EEE_SHIFT 7		/* 3 bits: partner's CH39X_EEE_* */
#define SIM_LK_LP_MODES_SHIFT 10	/* 6 bits: partner's SIM_M* */
#define SIM_LK_SPEED_SHIFT 16		/* Mbit/s; 0 while down */

/* ---- pairs: two adapters cabled together by name ---- */

struct sim_dev;
struct sim_rndis;

struct sim_pair {
	struct sim_pair *next;
	char name[CH39X_SIM_NAME_MAX];
	struct sim_ring *ring[2];	/* ring[s] feeds side s */
	bool present[2];
	/* Under pairs_lock: each side's offer, and the side itself. */
	struct sim_phy_adv adv[2];
	struct sim_dev *dev[2];
};

/*
 * One USB function of the model: what differs between the chip's vendor
 * mode and a CDC-NCM/ECM function. Chosen once, at open.
 */
struct sim_model {
	/* A control request (under s->lock); -EPIPE stalls it. */
	int (*control)(struct sim_dev *s, uint8_t req_type, uint8_t request,
		       uint16_t value, uint16_t index, uint8_t *buf,
		       uint16_t length);
	/* The address filter: whether a frame from the cable is taken. */
	bool (*rx_accept)(struct sim_dev *s, const uint8_t *f);
	/* The longest frame the device receives now. */
	uint32_t (*rx_max_frame)(const struct sim_dev *s);
	/* Fill in-flight bulk IN transfers (RX thread; bus free at now). */
	void (*rx_fill)(struct sim_dev *s, uint64_t now);
	/* Parse one bulk OUT transfer onto the cable (TX thread). */
	void (*tx_parse)(struct sim_dev *s, const struct ch39x_xfer *x);
	/* Complete the head interrupt transfer x when there is news. */
	void (*intr_fill)(struct sim_dev *s, struct ch39x_xfer *x);
	/*
	 * The function's configuration descriptor, as GET_DESCRIPTOR
	 * (CONFIGURATION) returns it (ch39x_sim_desc.c answers the rest of
	 * the standard descriptors): its length, or 0 when cap is too small.
	 * The bulk IN, bulk OUT and interrupt IN endpoints it lists first are
	 * the transport's three (enum ch39x_ep).
	 */
	uint32_t (*config_desc)(struct sim_dev *s, uint8_t *buf, uint32_t cap);
	/* The device descriptor's class, subclass, protocol (0: per interface). */
	uint8_t dev_class;
	uint8_t dev_subclass;
	uint8_t dev_protocol;
	/* What the function is, in the product string ("CDC-NCM"). */
	const char *(*name)(const struct sim_dev *s);
};

/* Cycles one endpoint's thread spent in the model, on its own cache line. */
struct sim_cycles {
	uint64_t v;
} __attribute__((aligned(64)));

/* ---- the device ---- */

struct sim_dev {
	struct ch39x_usb_dev base;
	const struct sim_model *model;
	struct ch39x_sim_config cfg;
	struct ch39x_profile prof;
	pthread_mutex_t lock;		/* control requests and events */

	/* Register file (§3), written by control, read by the data path. */
	uint32_t mac_cfg;
	uint8_t mac[6];
	uint32_t hash_hi;
	uint32_t hash_lo;
	uint32_t macier;
	uint32_t misc_cfg;
	uint32_t misc_config;		/* command 0x21 flags */
	uint16_t phy[32];
	/* ANAR and GBCR as of the last autonegotiation (re)start. */
	uint16_t an_anar;
	uint16_t an_gbcr;
	uint16_t phy_page;		/* CH397 register 0x1F */
	uint16_t mmd_ctrl;		/* register 13 */
	uint16_t mmd_addr[32];		/* per MMD, set through register 14 */
	uint16_t mmd_eee_adv;		/* MMD 7.60 (CH397) */
	uint16_t ext_addr;		/* CH398 extended window address */

	/* The RX completion policy (§9.2): hold a transfer this long. */
	uint64_t rx_hold_start_ns;	/* first record of the head transfer */

	/* Wire. */
	bool cable;
	uint32_t link;			/* SIM_LK_*, set by sim_update_up() */
	struct sim_pair *pair;
	int side;
	struct sim_ring *rx_ring;
	struct sim_ring *tx_ring;	/* NULL: sent frames go to pcap or nowhere */
	struct sim_ring *own_ring;
	/* pcap_t and pcap_dumper_t: libpcap stays inside the cable's file. */
	struct pcap *pcap_in;
	struct pcap *pcap_dead;
	struct pcap_dumper *pcap_out;
	int tap_fd;			/* -1: no TAP */
	int wake_ep;			/* epoll fd of the RX wake-up, or -1 */
	int wake_ev;			/* its eventfd, or -1 */

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
	uint32_t last_evt_link;		/* vendor: up, duplex, speed reported */
	uint64_t last_evt_ns;
	uint64_t last_evt_rx;
	uint64_t last_evt_tx;

	/* Faults: kind and remaining count per endpoint, halted endpoints. */
	uint32_t fault_kind[CH39X_EP_COUNT];
	uint32_t fault_left[CH39X_EP_COUNT];
	bool halted[CH39X_EP_COUNT];
	bool unplugged;
	bool cable_at_unplug;		/* the cable as it was, for the replug */
	/* The bus's news (bus_fd, bus_read): an eventfd or -1, and its bits. */
	int bus_fd;
	uint32_t bus_news;
	uint8_t factory_mac[6];		/* what a power-on restores */
	/* Identity it enumerates with (replug as another device). */
	uint16_t id_pid;
	uint8_t id_framing;
	char id_serial[64];
	uint32_t unplug_after;		/* leaves again at this request; 0: no */
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
	uint8_t held_session;		/* MBIM: its IP session */
	uint32_t held_len;
	bool conn_pending;		/* CONNECTION(1) follows SPEED_CHANGE */
	struct ch39x_ncm_tx ntx;	/* builds bulk IN NTBs */
	struct ch39x_ncm_rx nrx;	/* parses bulk OUT NTBs */
	struct sim_rndis *rndis;	/* RNDIS function's state, or NULL */
	/* The MBIM modem (ch39x_sim_mbim.c); NULL for other functions. */
	struct sim_mbim *mbim;
	/*
	 * Datagrams the model made itself wait for bulk IN (any writer;
	 * the RX wake-up looks at it).
	 */
	uint32_t local_pending;

	/*
	 * Event rounds (ch39x_sim_set_rounds()): a bulk IN poll that finds
	 * no finished transfer queued is a round (counted, atomic), which
	 * also serves the interrupt endpoint and calls intr_fn(intr_arg)
	 * when that completed its transfer, as libusb's rounds do.
	 */
	bool rounds_on;
	uint64_t rounds;
	void (*intr_fn)(void *arg);
	void *intr_arg;

	/*
	 * Cycles spent inside the transport ops, per endpoint: each
	 * endpoint has one thread, so each counter has one writer.
	 */
	struct sim_cycles cycles[CH39X_EP_COUNT];
	struct ch39x_sim_counters cnt;
	uint8_t frame[CH39X_V02_MAX_FRAME + 64];
	uint8_t stage[SIM_REC_ROOM];
	uint8_t txf[16384 + 64];		/* a TSO record's frame */
	uint8_t seg[CH39X_V02_MAX_FRAME + 64];	/* one TSO segment */
};

static inline struct sim_dev *
to_sim(struct ch39x_usb_dev *d)
{
	/* d is the first member of the struct sim_dev that was allocated. */
	return (struct sim_dev *)(void *)d;
}

static inline uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A time stamp for the model's own time (device_cycles): the TSC on x86
 * and the generic timer on Arm, which DPDK's rte_rdtsc() reads as well,
 * so the PMD can subtract the figure from its own cycle counts; else
 * nanoseconds.
 */
static inline uint64_t
sim_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r" (v));
	return v;
#else
	return now_ns();
#endif
}

static inline void
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

static inline struct ch39x_xfer *
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

static inline void
complete(struct sim_dev *s, struct ch39x_xfer *x, enum ch39x_xfer_status st)
{
	x->status = st;
	q_push(&s->done_head[x->ep], &s->done_tail[x->ep], x);
}

/* PHY powered and on the cable: BMCR power down and isolate clear. */
static inline bool
phy_on(const struct sim_dev *s)
{
	return (__atomic_load_n(&s->phy[CH39X_PHY_BMCR], __ATOMIC_RELAXED) &
		(CH39X_BMCR_PDOWN | CH39X_BMCR_ISOLATE)) == 0;
}

/* The link as autonegotiation (or the forced setting) resolved it. */
static inline uint32_t
link_word(const struct sim_dev *s)
{
	return __atomic_load_n(&s->link, __ATOMIC_RELAXED);
}

static inline bool
link_up(const struct sim_dev *s)
{
	return (link_word(s) & SIM_LK_UP) != 0;
}

/*
 * The speed the cable runs at: the negotiated one, or while down the
 * fastest the cable takes (the timing needs one).
 */
static inline uint32_t
link_speed(const struct sim_dev *s)
{
	uint32_t mbps = link_word(s) >> SIM_LK_SPEED_SHIFT;

	return mbps ? mbps : s->cfg.link_mbps;
}

/* ---- shared between the parts ---- */

extern const struct sim_model sim_vendor_model SIM_INTERNAL;
extern const struct sim_model sim_cdc_model SIM_INTERNAL;
extern const struct sim_model sim_rndis_model SIM_INTERNAL;
extern const struct sim_model sim_mbim_model SIM_INTERNAL;

/* ch39x_sim.c: the core. */
void sim_in_done(struct sim_dev *s, struct ch39x_xfer *x, uint64_t now)
	SIM_INTERNAL;

/* ch39x_sim_wire.c: the cable and the timing. */
int sim_wire_open(struct sim_dev *s, char *err, size_t errlen) SIM_INTERNAL;
void sim_wire_close(struct sim_dev *s) SIM_INTERNAL;
uint32_t sim_frame_take(struct sim_dev *s, uint8_t *buf) SIM_INTERNAL;
void sim_update_up(struct sim_dev *s) SIM_INTERNAL;
void sim_wire_send(struct sim_dev *s, const uint8_t *f, uint32_t len)
	SIM_INTERNAL;
uint64_t sim_usb_ns(const struct sim_dev *s, uint32_t bytes) SIM_INTERNAL;
uint64_t sim_bus_reserve(uint64_t *free_ns, uint64_t now, uint64_t dur)
	SIM_INTERNAL;
void sim_out_timing(struct sim_dev *s, struct ch39x_xfer *x) SIM_INTERNAL;

/*
 * The CDC and RNDIS models' next frame from the cable, held in s->frame
 * until a bulk IN transfer takes it: whether one is held.
 */
static inline bool
sim_hold_frame(struct sim_dev *s)
{
	uint32_t len;

	if (s->frame_held)
		return true;
	len = sim_frame_take(s, s->frame);
	if (len == 0)
		return false;
	s->held_len = len;
	s->frame_held = true;
	return true;
}

/* A bulk IN buffer shorter than what the device sends takes babble. */
static inline void
sim_in_babble(struct sim_dev *s, struct ch39x_xfer *x)
{
	x->actual = x->len;
	memset(x->buf, 0, x->len);
	q_pop(&s->pend_head[x->ep], &s->pend_tail[x->ep]);
	complete(s, x, CH39X_XFER_OVERFLOW);
}

/* ch39x_sim_vendor.c: the registers and the PHY at power-up. */
void sim_vendor_init(struct sim_dev *s) SIM_INTERNAL;

/* ch39x_sim_phy.c: the PHY (under s->lock but sim_link_resolve()). */
void sim_phy_init(struct sim_dev *s) SIM_INTERNAL;
int sim_phy_reg(uint16_t windex) SIM_INTERNAL;
uint16_t sim_phy_read(struct sim_dev *s, unsigned int reg) SIM_INTERNAL;
void sim_phy_write(struct sim_dev *s, unsigned int reg, uint16_t v)
	SIM_INTERNAL;
void sim_phy_adv(const struct sim_dev *s, struct sim_phy_adv *a)
	SIM_INTERNAL;
void sim_phy_an_restart(struct sim_dev *s) SIM_INTERNAL;
void sim_phy_generic_partner(uint16_t cap_mbps, struct sim_phy_adv *a)
	SIM_INTERNAL;
uint32_t sim_link_resolve(const struct sim_phy_adv *a,
			  const struct sim_phy_adv *b, bool master)
	SIM_INTERNAL;

/*
 * ch39x_sim_desc.c: the standard descriptors (device, configuration, BOS,
 * strings 0-3) a host reads with GET_DESCRIPTOR, the model's identity on a
 * real bus. Returns what a control request returns, or -ENOENT when the
 * request is not one of these (the model's own, then).
 */
int sim_std_descriptor(struct sim_dev *s, uint8_t req_type, uint8_t request,
		       uint16_t value, uint16_t index, uint8_t *buf,
		       uint16_t length) SIM_INTERNAL;
/* The strings' indexes: manufacturer, product, serial number. */
#define SIM_STR_MANUFACTURER	1
#define SIM_STR_PRODUCT		2
#define SIM_STR_SERIAL		3

/* ch39x_sim_cdc.c: the CDC function's descriptors and state. */
void sim_cdc_init(struct sim_dev *s) SIM_INTERNAL;
/*
 * The NTB engines (NCM and MBIM): a datagram source for bulk IN NTBs
 * (its length, 0: none; the session in *session), and where each
 * datagram of a bulk OUT NTB goes.
 */
typedef uint32_t (*sim_take_fn)(struct sim_dev *s, uint8_t *buf,
				uint8_t *session);
typedef void (*sim_out_fn)(struct sim_dev *s, const uint8_t *d,
			   uint32_t len, uint8_t session);
void sim_ntb_fill(struct sim_dev *s, uint64_t now, sim_take_fn take)
	SIM_INTERNAL;
void sim_ntb_parse(struct sim_dev *s, const struct ch39x_xfer *x,
		   uint32_t max, sim_out_fn out) SIM_INTERNAL;
/* The NTB class requests (§12); -EPIPE for another request. */
int sim_ntb_request(struct sim_dev *s, uint8_t req_type, uint8_t request,
		    uint16_t value, uint8_t *buf, uint16_t length) SIM_INTERNAL;
/* The transport ops get_cdc and set_data_alt. */
int sim_get_cdc(struct ch39x_usb_dev *d, struct ch39x_cdc_desc *cdc)
	SIM_INTERNAL;
int sim_set_data_alt(struct ch39x_usb_dev *d, uint8_t alt) SIM_INTERNAL;

/* ch39x_sim_rndis.c: the RNDIS function (its state allocated at open). */
int sim_rndis_alloc(struct sim_dev *s) SIM_INTERNAL;
void sim_rndis_free(struct sim_dev *s) SIM_INTERNAL;
void sim_rndis_init(struct sim_dev *s) SIM_INTERNAL;
/*
 * ch39x_sim_mbim.c: the modem. open: its state at power-up (0, or -1 out
 * of memory); desc: the MBIM descriptors into s->cdc (from
 * sim_cdc_init); close frees it.
 */
int sim_mbim_open(struct sim_dev *s) SIM_INTERNAL;
void sim_mbim_power_on(struct sim_dev *s) SIM_INTERNAL;
void sim_mbim_desc(struct sim_dev *s) SIM_INTERNAL;
void sim_mbim_close(struct sim_dev *s) SIM_INTERNAL;

/* ch39x_sim_wake.c: RX wake-ups (the transport ops rx_wake_fd, rx_arm). */
void sim_wake_pushed(struct sim_ring *r) SIM_INTERNAL;
int sim_rx_wake_fd(struct ch39x_usb_dev *d) SIM_INTERNAL;
void sim_rx_arm(struct ch39x_usb_dev *d, bool on) SIM_INTERNAL;
void sim_wake_close(struct sim_dev *s) SIM_INTERNAL;

#endif /* CH39X_SIM_PRIV_H */
