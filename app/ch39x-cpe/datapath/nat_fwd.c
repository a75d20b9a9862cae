/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Port forwards (--fw-forward, DNAT) and hairpin NAT on the sessions'
 * table (nat.h): a WAN packet to a forwarded port opens a session as if
 * the LAN host had connected out; a LAN host that uses the WAN address
 * and a forwarded port reaches the host behind it through the router.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ip.h>
#include <rte_tcp.h>

#include "guard_dp.h"
#include "nat.h"

int
cpe_nat_forward_setup(struct cpe_nat *n, bool nat_on)
{
	const struct cpe_fw_cfg *c = n->fwd;
	uint32_t p;
	uint16_t i;

	if (c->nb_fwd == 0)
		return 0;
	if (!nat_on || n->ifs->wan < 0) {
		fprintf(stderr, "ch39x-cpe: --fw-forward %s: port forwards "
			"need NAT on a --wan port (not --no-nat)\n",
			c->fwd[0].text);
		return -EINVAL;
	}
	for (i = 0; i < c->nb_fwd; i++) {
		if (cpe_if_lan_of(n->ifs, c->fwd[i].addr) < 0) {
			fprintf(stderr, "ch39x-cpe: --fw-forward %s: the "
				"address is on no --lan subnet (or is the "
				"router's); allowed: a LAN host's address\n",
				c->fwd[i].text);
			return -EINVAL;
		}
		for (p = c->fwd[i].lo; p <= c->fwd[i].hi; p++)
			cpe_nat_port_set(n, cpe_nat_proto_idx(c->fwd[i].proto),
					 (uint16_t)p, true);
	}
	return 0;
}

static struct cpe_fw_forward *
forward_of(struct cpe_nat *n, uint8_t proto, uint16_t port)
{
	struct cpe_fw_cfg *c = n->fwd;
	uint16_t i;

	for (i = 0; i < c->nb_fwd; i++)
		if (c->fwd[i].proto == proto && port >= c->fwd[i].lo &&
		    port <= c->fwd[i].hi)
			return &c->fwd[i];
	return NULL;
}

/* A TCP or UDP packet's ports, when there are forwards: 0 or -ENOENT. */
static int
forward_ports(const struct cpe_nat *n, const struct rte_ipv4_hdr *ip,
	      const uint8_t *l4, uint32_t l4_len, uint16_t *sp, uint16_t *dp)
{
	if (n->fwd->nb_fwd == 0 || (ip->next_proto_id != IPPROTO_TCP &&
				    ip->next_proto_id != IPPROTO_UDP))
		return -ENOENT;
	return cpe_nat_l4_ports(ip->next_proto_id, l4, l4_len, sp, dp,
				false) != 0 ? -ENOENT : 0;
}

/* The LAN host and its port for WAN port dp (network order) of f. */
static void
forward_target(const struct cpe_fw_forward *f, uint16_t dp, uint32_t *a,
	       uint16_t *p)
{
	*a = rte_cpu_to_be_32(f->addr);
	*p = rte_cpu_to_be_16((uint16_t)(f->to + rte_be_to_cpu_16(dp) -
					 f->lo));
}

int
cpe_nat_forward_in(struct cpe_nat *n, struct rte_mbuf *m, struct cpe_mb *mb,
		   const uint8_t *l4, uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_nat_key out, in;
	struct cpe_fw_forward *f;
	uint16_t sp, dp;
	int32_t pos;

	if (forward_ports(n, ip, l4, l4_len, &sp, &dp) != 0)
		return -ENOENT;
	f = forward_of(n, ip->next_proto_id, rte_be_to_cpu_16(dp));
	if (f == NULL)
		return -ENOENT;
	/* Only a TCP SYN opens a forwarded connection. */
	if (ip->next_proto_id == IPPROTO_TCP &&
	    (l4[13] & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG))
	    != RTE_TCP_SYN_FLAG)
		return -ENOENT;
	memset(&out, 0, sizeof(out));
	memset(&in, 0, sizeof(in));
	forward_target(f, dp, &out.a, &out.pa);
	out.b = ip->src_addr;
	out.pb = sp;
	out.proto = ip->next_proto_id;
	in.a = ip->src_addr;
	in.b = ip->dst_addr;
	in.pa = sp;
	in.pb = dp;
	in.proto = out.proto;
	/* Made only when the guard admits it, and room made for it. */
	if (n->guard != NULL && !cpe_guard_new(n->guard, m, n->env->now)) {
		f->limited++;
		return -EBUSY;
	}
	if (cpe_nat_make_room(n, true) != 0) {
		n->st.full++;
		return -EBUSY;
	}
	pos = cpe_nat_sess_add(n, &out, &in, dp, l4);
	if (pos < 0) {
		n->st.full++;
		return -EBUSY;
	}
	n->sess[pos].fwd = true;
	f->hits++;
	return cpe_nat_in_lookup(n, m, mb, l4, l4_len);
}

/* A hairpin session for out (to forward f): its index, or <0. */
static int32_t
hairpin_new(struct cpe_nat *n, const struct cpe_nat_key *out,
	    struct cpe_fw_forward *f, const uint8_t *l4)
{
	struct cpe_nat_key in;
	int pi = cpe_nat_proto_idx(out->proto), lan;
	uint16_t ext;
	int32_t pos;

	lan = cpe_if_lan_of(n->ifs, f->addr);
	if (lan < 0)
		return -ENOENT;
	if (cpe_nat_make_room(n, false) != 0) {
		n->st.full++;
		return -ENOSPC;
	}
	/* Its own port: no mapping (the source is rewritten to the router's
	 * LAN address, not the WAN's).
	 */
	ext = cpe_nat_port_alloc(n, pi, rte_be_to_cpu_16(out->pa));
	if (ext == 0) {
		n->st.full++;
		return -ENOSPC;
	}
	n->port_refs[pi][ext] = 1;
	memset(&in, 0, sizeof(in));
	forward_target(f, out->pb, &in.a, &in.pa);
	in.b = n->ifs->ifs[lan].ip_be;
	in.pb = rte_cpu_to_be_16(ext);
	in.proto = out->proto;
	pos = cpe_nat_sess_add(n, out, &in, in.pb, l4);
	if (pos < 0) {
		n->port_refs[pi][ext] = 0;
		cpe_nat_port_set(n, pi, ext, false);
		n->st.full++;
		return -ENOSPC;
	}
	n->sess[pos].hairpin = true;
	f->hits++;
	f->hairpin++;
	return pos;
}

int
cpe_nat_hairpin(struct cpe_nat *n, struct rte_mbuf *m, struct cpe_mb *mb,
		const uint8_t *l4, uint32_t l4_len)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, sizeof(struct rte_ether_hdr));
	struct cpe_fw_forward *f;
	struct cpe_nat_sess *s;
	struct cpe_nat_key out;
	uint16_t sp, dp;
	int32_t pos;

	if (forward_ports(n, ip, l4, l4_len, &sp, &dp) != 0)
		return -ENOENT;
	memset(&out, 0, sizeof(out));
	out.a = ip->src_addr;
	out.b = ip->dst_addr;
	out.pa = sp;
	out.pb = dp;
	out.proto = ip->next_proto_id;
	pos = rte_hash_lookup(n->h_out, &out);
	if (pos < 0) {
		f = forward_of(n, out.proto, rte_be_to_cpu_16(dp));
		if (f == NULL)
			return -ENOENT;
		pos = hairpin_new(n, &out, f, l4);
		if (pos < 0)
			return pos;
	}
	s = &n->sess[pos];
	if (!s->hairpin)
		return -ENOENT;
	if (out.proto == IPPROTO_TCP)
		cpe_nat_tcp_track(s, l4[13], 0);
	s->last = n->env->now;
	s->seen |= 1;
	mb->flags |= CPE_MB_NAT;
	mb->sip = s->in.b;
	mb->sport = s->ext;
	mb->dip = s->in.a;
	mb->dport = s->in.pa;
	mb->sess = (uint32_t)pos;
	return 0;
}
