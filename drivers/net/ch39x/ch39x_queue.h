/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_QUEUE_H
#define CH39X_QUEUE_H

/*
 * What the RX and TX queues share: the frame bytes beyond the MTU, the
 * burst's entry and exit against a gone device (reconnect=on), and how
 * descriptors map to transfers.
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "ch39x_adapter.h"

/* Frame bytes beyond the MTU: Ethernet header and one VLAN tag. */
#define CH39X_L2_OVERHEAD	(RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)

/*
 * A burst begins: false when the device is gone (reconnect=on) and the
 * burst must not touch it. The store of busy and the load of absent are
 * ordered by a full fence, as the control thread's store of absent and
 * its load of busy are (ch39x_reconnect.c): one of them sees the other.
 */
static __rte_always_inline bool
ch39x_burst_enter(bool *busy, const struct ch39x_adapter *ad)
{
	__atomic_store_n(busy, true, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (likely(!__atomic_load_n(&ad->absent, __ATOMIC_RELAXED)))
		return true;
	__atomic_store_n(busy, false, __ATOMIC_RELEASE);
	return false;
}

static __rte_always_inline void
ch39x_burst_leave(bool *busy)
{
	__atomic_store_n(busy, false, __ATOMIC_RELEASE);
}

/*
 * Descriptors and transfers. A USB adapter has no descriptor ring: what
 * holds frames between the wire and the application is the bulk transfer
 * buffers kept in flight. One descriptor is one full-size frame's room
 * (CH39X_DESC_BYTES) in them, so nb_desc frames need
 * ceil(nb_desc / frames per transfer) transfers, 1 to CH39X_MAX_XFERS. A
 * device that moves a frame per transfer (ECM) has one per transfer. The
 * rx_xfers and tx_xfers devargs, when given, win.
 *
 * Applications ask for 1024 to 4096 descriptors without looking, and each
 * transfer is usbfs memory, which all ports and processes share (16 MiB by
 * default): what nb_desc sets up is also capped at CH39X_DESC_MAX_BYTES of
 * buffers (buf_size bytes each, in whole pages as usbfs counts them) per
 * queue, never below
 * the default count. 2 MiB: 64 of a CH398's 32 KiB RX transfers, as
 * before the cap on transfers grew, and four ports' worth of both queues
 * in the default 16 MiB.
 */
#define CH39X_DESC_BYTES	1536
#define CH39X_DESC_MAX_BYTES	(2u << 20)
#define CH39X_XFER_PAGE		4096u

static inline uint16_t
ch39x_desc_per_xfer(uint32_t xfer_size)
{
	return (uint16_t)RTE_MAX(xfer_size / CH39X_DESC_BYTES, 1u);
}

static inline uint16_t
ch39x_nb_xfers(uint16_t forced, uint16_t nb_desc, uint16_t dflt,
	       uint32_t xfer_size, uint32_t buf_size)
{
	uint16_t per = ch39x_desc_per_xfer(xfer_size);
	uint32_t cap = CH39X_DESC_MAX_BYTES /
		RTE_ALIGN_CEIL(RTE_MAX(buf_size, 1u), CH39X_XFER_PAGE);

	if (forced)
		return forced;
	if (nb_desc == 0)
		return dflt;
	cap = RTE_MIN(RTE_MAX(cap, (uint32_t)dflt), (uint32_t)CH39X_MAX_XFERS);
	return (uint16_t)RTE_MIN((nb_desc + per - 1u) / per, cap);
}

#endif /* CH39X_QUEUE_H */
