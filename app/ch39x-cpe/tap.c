/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The exception path: traffic for the router itself that the fast and
 * slow paths do not answer (anything but ARP, neighbour discovery and
 * echo requests to its addresses) goes to the control plane. Without one
 * configured it is dropped and counted (drop_local).
 */

#include "cpe.h"

void
cpe_punt(uint16_t in, struct rte_mbuf *m)
{
	RTE_SET_USED(in);
	cpe.st.drop_local++;
	rte_pktmbuf_free(m);
}
