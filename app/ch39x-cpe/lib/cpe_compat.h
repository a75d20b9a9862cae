/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_COMPAT_H
#define CPE_COMPAT_H

/*
 * Every difference between the DPDK releases ch39x-cpe builds against
 * (22.11, 23.11, 24.11, 25.11: doc/lts/dpdk-lts.txt), in one place.
 */

#include <string.h>

#include <rte_version.h>

/* DPDK 24.11 renamed the ICMP types and deprecated RTE_IP_ICMP_ECHO_*. */
#include <rte_icmp.h>
#ifndef RTE_ICMP_TYPE_ECHO_REQUEST
#define RTE_ICMP_TYPE_ECHO_REQUEST 8
#define RTE_ICMP_TYPE_ECHO_REPLY 0
#endif

/*
 * DPDK 24.11 made IPv6 addresses a struct rte_ipv6_addr (bytes in .a) in
 * rte_ipv6_hdr and in the rte_lpm6 calls; before, they were uint8_t[16].
 * IP6_SRC/IP6_DST give the header's address bytes, LPM6_ADDR what
 * rte_lpm6 takes, in either release.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define IP6_SRC(ip) ((ip)->src_addr.a)
#define IP6_DST(ip) ((ip)->dst_addr.a)
#define LPM6_ADDR(p) ((const struct rte_ipv6_addr *)(const void *)(p))
#else
#define IP6_SRC(ip) ((ip)->src_addr)
#define IP6_DST(ip) ((ip)->dst_addr)
#define LPM6_ADDR(p) (p)
#endif

/*
 * DPDK 23.03 added rte_tel_data_add_dict_uint, and 23.11 deprecated
 * rte_tel_data_add_dict_u64 for it.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
#define cpe_tel_u64 rte_tel_data_add_dict_uint
#else
#define cpe_tel_u64 rte_tel_data_add_dict_u64
#endif

/*
 * DPDK 24.11 added rte_telemetry_register_cmd_arg() (experimental): a
 * command's callback gets an argument, the router's mailbox
 * (control/ctl.c). Before, a callback gets none, and ctl.c hands it the
 * mailbox from its file-scope pointer.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
#define CPE_TEL_ARG 1
#endif

/*
 * The graph library (rte_graph, rte_node):
 * - 22.11 marks it experimental (meson.build defines
 *   ALLOW_EXPERIMENTAL_API for the app); 23.11 made it stable.
 * - 23.11 added the mcore-dispatch model: rte_graph_walk() then chooses
 *   the model per graph at run time unless RTE_GRAPH_MODEL_SELECT names
 *   one; the router runs one graph on one lcore, run to completion.
 * - A node's context is 16 bytes; 24.03 added ctx_ptr over them. The
 *   router keeps a pointer to its state there, in any release.
 */
#if RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0)
#define RTE_GRAPH_MODEL_SELECT RTE_GRAPH_MODEL_RTC
#endif
#include <rte_graph.h>
#include <rte_graph_worker.h>

static inline void *
cpe_node_ctx(const struct rte_node *node)
{
	void *p;

	memcpy(&p, node->ctx, sizeof(p));
	return p;
}

static inline void
cpe_node_ctx_set(struct rte_node *node, void *p)
{
	memcpy(node->ctx, &p, sizeof(p));
}

#endif /* CPE_COMPAT_H */
