/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_XFER_BUF_H
#define CH39X_XFER_BUF_H

/*
 * Transfer buffers of a queue, control thread, queue stopped (nothing in
 * flight). From the transport when it has buf_alloc, one per transfer:
 * usbfs memory on the libusb backend, which the host controller reads and
 * writes in place, where a heap buffer costs the kernel a copy of every
 * transfer (and an allocation). Otherwise one rte_malloc block, q->bufs.
 *
 * IOVA of a frame attached to a buffer (zero-copy RX): in an rte_malloc
 * block, its rte_malloc_virt2iova; in a transport buffer (process or
 * usbfs memory, outside EAL's), its virtual address, which is its IOVA
 * only when EAL runs IOVA-as-VA. Under IOVA-as-PA such memory has no IOVA
 * a PMD could state (not pinned, not physically contiguous), so with
 * zero-copy RX the RX buffers come from rte_malloc there.
 */

#include <errno.h>
#include <stdbool.h>

#include <rte_eal.h>

#include "ch39x_usb.h"

/* Whether transport buffers may be lent to mbufs under this IOVA mode. */
static inline bool
ch39x_xfer_buf_iova_va(void)
{
	return rte_eal_iova_mode() == RTE_IOVA_VA;
}

/* Give back the transport buffers of xfers[0..n) (NULL ones: none). */
static inline void
ch39x_xfer_bufs_free(struct ch39x_usb_dev *u, struct ch39x_xfer *xfers,
		     uint16_t n)
{
	uint16_t i;

	if (u == NULL || u->ops->buf_free == NULL || xfers == NULL)
		return;
	for (i = 0; i < n; i++) {
		u->ops->buf_free(u, xfers[i].buf);
		xfers[i].buf = NULL;
	}
}

/*
 * One transport buffer of size bytes per transfer of xfers[0..n); the
 * number in usbfs memory in *n_usbfs. Returns 0, -ENOTSUP when the
 * transport has no buffers of its own, or -ENOMEM (none kept).
 */
static inline int
ch39x_xfer_bufs_alloc(struct ch39x_usb_dev *u, struct ch39x_xfer *xfers,
		      uint16_t n, size_t size, uint16_t *n_usbfs)
{
	enum ch39x_buf_kind kind;
	uint16_t i;

	*n_usbfs = 0;
	if (u == NULL || u->ops->buf_alloc == NULL || u->ops->buf_free == NULL)
		return -ENOTSUP;
	for (i = 0; i < n; i++) {
		kind = CH39X_BUF_HEAP;
		xfers[i].buf = u->ops->buf_alloc(u, size, &kind);
		if (xfers[i].buf == NULL) {
			ch39x_xfer_bufs_free(u, xfers, i);
			return -ENOMEM;
		}
		if (kind == CH39X_BUF_USBFS)
			(*n_usbfs)++;
	}
	return 0;
}

#endif /* CH39X_XFER_BUF_H */
