/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_DEVARGS_H
#define CH39X_DEVARGS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>

#include "ch39x_sim.h"

#define CH39X_ARG_STR_MAX	64
#define CH39X_MAX_XFERS		64
#define CH39X_MIN_XFER_SIZE	2048
#define CH39X_MAX_XFER_SIZE	(1u << 20)

/* Devargs, validated at probe. */
struct ch39x_args {
	struct ch39x_sim_config sim;
	uint16_t rx_xfers;		/* 0: the chip's default */
	uint16_t tx_xfers;
	uint32_t xfer_size;
	bool mac_set;
	struct rte_ether_addr mac;
	bool tso_sw;			/* tso=sw */
	uint32_t rx_copybreak;		/* rx_copybreak=N */
	bool rx_csum_sw;		/* rx_csum=sw */
	/* A real adapter through libusb: dev=, serial=, path=, proto=. */
	bool real;
	uint16_t vid;
	uint16_t pid;
	char serial[CH39X_ARG_STR_MAX];
	char path[CH39X_ARG_STR_MAX];
	unsigned int protos;		/* CH39X_LIBUSB_* mask; 0: any */
	bool ncm_ndp_end;		/* ncm_tx_ndp=end */
};

/*
 * Parse the devargs string of device name (NULL or empty: defaults).
 * Returns 0, or -EINVAL after logging which key was wrong and what it takes.
 */
int ch39x_parse_devargs(const char *name, const char *params,
			struct ch39x_args *a);

#endif /* CH39X_DEVARGS_H */
