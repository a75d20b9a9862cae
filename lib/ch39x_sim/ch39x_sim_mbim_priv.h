/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_SIM_MBIM_PRIV_H
#define CH39X_SIM_MBIM_PRIV_H

/*
 * The simulated MBIM modem's private parts, shared by its control side
 * (ch39x_sim_mbim.c: messages, the modem's state, set-up) and its data
 * side (ch39x_sim_mbim_wire.c: the sessions' datagrams and the cable to
 * the operator's network). The locking rules are ch39x_sim_mbim.c's.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "ch39x_mbim.h"
#include "ch39x_sim_priv.h"

/* ASSUMPTION (§24): what this modem is and does. */
#define MBIM_SESSIONS		4	/* MaxSessions, each routed */
#define MBIM_QUEUE		32	/* fragments waiting for the host */
#define MBIM_LOCAL		16	/* the modem's own packets waiting */
#define MBIM_LOCAL_LEN		256	/* each at most (RA, NA) */
#define MBIM_MAX_SEGMENT	2048	/* wMaxSegmentSize */
#define MBIM_MTU		1500	/* wMTU, IPv4Mtu, IPv6Mtu */
#define MBIM_RSSI		20	/* -73 dBm */
#define MBIM_ARP_RETRY_NS	500000000ull
#define MBIM_RA_LIFETIME	1800
#define MBIM_PREFIX_VALID	3600
#define MBIM_PREFIX_PREFERRED	1800

/* The operator's side, on the cable (§24). */
static const uint8_t wire_ip4[4] = { 198, 51, 100, 2 };
static const uint8_t wire_gw4[4] = { 198, 51, 100, 1 };
static const uint8_t wire_ip6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0xff,
	[15] = 2 };
static const uint8_t wire_gw6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0xff,
	[15] = 1 };
/* The sessions' gateway, as the host sees it. */
static const uint8_t sess_ll6[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

struct mbim_frag {
	uint16_t len;
	uint8_t b[CH39X_MBIM_CTRL_MAX];
};

struct mbim_local {
	uint8_t session;
	uint16_t len;
	uint8_t b[MBIM_LOCAL_LEN];
};

struct sim_mbim {
	/* Control: under s->lock. */
	bool open;
	uint32_t max_ctrl;		/* our fragments' size */
	struct ch39x_mbim_reasm reasm;
	uint32_t q_head;
	uint32_t q_n;
	uint32_t notify;		/* RESPONSE_AVAILABLE owed */
	uint32_t radio;
	bool coverage;			/* a network to register with */
	uint32_t reg;
	uint64_t reg_at;		/* registered then, while searching */
	uint32_t packet;
	uint32_t rssi;
	uint32_t signal_interval;
	/* Sessions: written under s->lock, read by the data threads. */
	uint32_t active;		/* bit n: session n */
	uint32_t ip_type[MBIM_SESSIONS];	/* granted */
	/* The cable's far end, learnt: its MAC, bit 48 set once known. */
	uint64_t peer;
	uint64_t arp_ns;		/* last ARP for the gateway */
	pthread_mutex_t wire_lock;
	/* The modem's own packets into the sessions. */
	pthread_mutex_t local_lock;
	uint32_t l_head;
	uint32_t l_n;
	struct mbim_local local[MBIM_LOCAL];
	struct ch39x_sim_mbim_state st;
	/* Buffers of the control path (under s->lock). */
	uint8_t in[CH39X_MBIM_MSG_MAX];
	uint8_t out[CH39X_MBIM_MSG_MAX];
	uint8_t info[CH39X_MBIM_MSG_MAX];
	struct mbim_frag q[MBIM_QUEUE];
};

#define ST_ADD(m, f, n) SIM_ADD((m)->st.f, (n))

static inline uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/* ---- The sessions' addresses (§24) ---- */

/* Session n: 100.64.(39 + n).2/30, gateway .1. */
static inline void
sess_ip4(uint32_t n, uint8_t a[4], uint8_t last)
{
	a[0] = 100;
	a[1] = 64;
	a[2] = (uint8_t)(39 + n);
	a[3] = last;
}

/* Session n: 2001:db8:(0x39 + n)::/64, the host's address ::2. */
static inline void
sess_ip6(uint32_t n, uint8_t a[16], uint8_t last)
{
	memset(a, 0, 16);
	a[0] = 0x20;
	a[1] = 0x01;
	a[2] = 0x0d;
	a[3] = 0xb8;
	a[5] = (uint8_t)(0x39 + n);
	a[15] = last;
}

static inline bool
has_v4(uint32_t ip_type)
{
	return ip_type != CH39X_MBIM_IP_V6;
}

static inline bool
has_v6(uint32_t ip_type)
{
	return ip_type != CH39X_MBIM_IP_V4;
}

static inline bool
sess_active(const struct sim_mbim *m, uint32_t n)
{
	return n < MBIM_SESSIONS &&
		(__atomic_load_n(&m->active, __ATOMIC_ACQUIRE) & (1u << n));
}

static inline uint32_t
sess_type(const struct sim_mbim *m, uint32_t n)
{
	return __atomic_load_n(&m->ip_type[n], __ATOMIC_RELAXED);
}

/* Control side (ch39x_sim_mbim.c), for the data side. */
void
sim_mbim_local_push(struct sim_dev *s, uint8_t session, const uint8_t *p,
	   uint32_t len);
uint32_t
sim_mbim_local_pop(struct sim_dev *s, uint8_t *buf, uint8_t *session);
void
sim_mbim_send_ra(struct sim_dev *s, uint32_t n, const uint8_t dst[16]);

/* Data side (ch39x_sim_mbim_wire.c): the model's data-path ops. */
void
sim_mbim_rx_fill(struct sim_dev *s, uint64_t now);
void
sim_mbim_tx_parse(struct sim_dev *s, const struct ch39x_xfer *x);
bool
sim_mbim_rx_accept(struct sim_dev *s, const uint8_t *f);
uint32_t
sim_mbim_rx_max_frame(const struct sim_dev *s);

#endif /* CH39X_SIM_MBIM_PRIV_H */
