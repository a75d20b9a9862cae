/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/* The firewall in the graph (fwdp.h). */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

#include "fwdp.h"

static void
unlink_flows(struct cpe_fw *fw, uint32_t idx, const struct cpe_fw_ct *c)
{
	struct cpe_fwdp *f = fw->priv;
	int i;

	for (i = 0; i < 2; i++)
		if (c->flow[i] >= 0)
			cpe_ftab_del_ct(c->k.v6 ? f->ftab6 : f->ftab4,
					c->flow[i], idx);
}

struct cpe_fwdp *
cpe_fwdp_create(struct cpe_opts *o, const struct cpe_env *env,
		const struct cpe_ifaces *ifs, const struct cpe_rt4 *rt4,
		const struct cpe_rt6 *rt6, struct cpe_ftab *ftab4,
		struct cpe_ftab *ftab6)
{
	struct cpe_fw_timeouts to = {
		.tcp_est = o->tcp_timeout, .tcp_trans = o->tcp_trans,
		.tcp_close = o->tcp_close, .udp = o->udp_timeout,
		.icmp = o->icmp_timeout, .tcp_syn = o->tcp_syn,
		.udp_unreplied = o->udp_unreplied,
	};
	struct cpe_fwdp *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	f->env = env;
	f->ifs = ifs;
	f->rt4 = rt4;
	f->rt6 = rt6;
	f->ftab4 = ftab4;
	f->ftab6 = ftab6;
	if (ifs->wan < 0)
		return f;
	/* The guard serves NAT's forwards too, firewall on or off. */
	if (cpe_guard_init(&f->guard, &o->fw.syn, env->hz, env->now) != 0) {
		fprintf(stderr, "ch39x-cpe: --synflood-protect: cannot "
			"allocate its table\n");
		free(f);
		return NULL;
	}
	f->guard_on = true;
	if (!o->fw.on)
		return f;
	if (cpe_fw_init(&f->fw, &o->fw, env->hz, &to, env->now) != 0) {
		fprintf(stderr, "ch39x-cpe: --fw-states %u: cannot allocate "
			"the connection table\n", o->fw.states);
		cpe_guard_free(&f->guard);
		free(f);
		return NULL;
	}
	f->fw.unlink = unlink_flows;
	f->fw.guard = &f->guard;
	f->fw.priv = f;
	f->on = true;
	return f;
}

void
cpe_fwdp_free(struct cpe_fwdp *f)
{
	if (f == NULL)
		return;
	if (f->on)
		cpe_fw_free(&f->fw);
	if (f->guard_on)
		cpe_guard_free(&f->guard);
	free(f);
}

void
cpe_fwdp_age_ms(struct cpe_fwdp *f, uint32_t ms)
{
	if (f->on)
		cpe_fw_age(&f->fw, cpe_age_budget(f->fw.mask + 1, ms),
			   f->env->now);
}

/* The interface an IPv4 source (host order) routes back to, -1: none. */
static int
src_port4(const struct cpe_fwdp *f, uint32_t src)
{
	uint32_t nh;
	uint16_t out;

	return cpe_rt4_lookup(f->rt4, src, &out, &nh) != 0 ? -1 : out;
}

static bool
src_is_mine4(const struct cpe_fwdp *f, uint32_t src_be)
{
	uint16_t i;

	for (i = 0; i < f->ifs->nb; i++)
		if (f->ifs->ifs[i].ip_be == src_be && src_be != 0)
			return true;
	return false;
}

/*
 * BCP 38 and bogons: from the WAN, no bogon, no address of the router,
 * nothing the routes send to a LAN; from a LAN, forwarded packets only
 * from what the routes send back to that LAN (strict reverse path). The
 * unspecified source is the control plane's (DHCP discover), not
 * forwarded. As fw.c's cpe_fw_bogon() on the address mapped to IPv6.
 */
enum cpe_fw_reason
cpe_fwdp_src4(struct cpe_fwdp *f, uint16_t in, bool local, uint32_t src_be)
{
	uint32_t src = rte_be_to_cpu_32(src_be);
	enum cpe_fw_reason r = CPE_FW_ACCEPT;
	bool wan = f->ifs->ifs[in].wan;
	int sp;

	if (!f->on)
		return CPE_FW_ACCEPT;
	if (src == 0) {
		if (!local)
			r = wan ? CPE_FW_DROP_BOGON : CPE_FW_DROP_SPOOF_LAN;
	} else if (wan) {
		if ((src >> 24) == 0 || (src >> 24) == 127 ||
		    (src >> 24) >= 224 || src_is_mine4(f, src_be)) {
			r = CPE_FW_DROP_BOGON;
		} else {
			sp = src_port4(f, src);
			if (sp >= 0 && !f->ifs->ifs[sp].wan)
				r = CPE_FW_DROP_SPOOF_WAN;
		}
	} else if (!local && src_port4(f, src) != (int)in) {
		r = CPE_FW_DROP_SPOOF_LAN;
	}
	if (r != CPE_FW_ACCEPT)
		cpe_fw_drop(&f->fw, r);
	return r;
}

static int
parse(const struct rte_mbuf *m, struct cpe_fw_pkt *p)
{
	return cpe_fw_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    RTE_ETHER_HDR_LEN),
			    rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, p);
}

static bool
src_is_mine6(const struct cpe_fwdp *f, const uint8_t *a)
{
	uint16_t i;

	for (i = 0; i < f->ifs->nb; i++)
		if (cpe_if_mine6(f->ifs, i, a))
			return true;
	return false;
}

/* As cpe_fwdp_src4() for IPv6; link-local sources are the link's. */
enum cpe_fw_reason
cpe_fwdp_src6(struct cpe_fwdp *f, uint16_t in, bool local,
	      const struct rte_mbuf *m)
{
	static const uint8_t unspec6[16];
	enum cpe_fw_reason r = CPE_FW_ACCEPT;
	bool wan = f->ifs->ifs[in].wan;
	struct cpe_fw_pkt p;
	uint8_t nh[16];
	uint16_t out;

	if (!f->on || parse(m, &p) != 0)
		return CPE_FW_ACCEPT;	/* ip6_input's own checks see to it */
	if (memcmp(p.t.src, unspec6, 16) == 0 || cpe_is_ll6(p.t.src)) {
		if (!local)
			r = wan ? CPE_FW_DROP_BOGON : CPE_FW_DROP_SPOOF_LAN;
	} else if (wan) {
		if (cpe_fw_bogon(p.t.src) || src_is_mine6(f, p.t.src))
			r = CPE_FW_DROP_BOGON;
		else if (cpe_rt6_lookup(f->rt6, p.t.src, &out, nh) == 0 &&
			 !f->ifs->ifs[out].wan)
			r = CPE_FW_DROP_SPOOF_WAN;
	} else if (!local && (cpe_rt6_lookup(f->rt6, p.t.src, &out, nh) != 0 ||
			      out != in)) {
		r = CPE_FW_DROP_SPOOF_LAN;
	}
	if (r != CPE_FW_ACCEPT)
		cpe_fw_drop(&f->fw, r);
	return r;
}

bool
cpe_fwdp_pass(struct cpe_fwdp *f, uint16_t in, int out,
	      const struct rte_mbuf *m, uint32_t *ct, bool *cacheable)
{
	const struct cpe_iface *ifs = f->ifs->ifs;
	struct cpe_fw_pkt p;
	enum cpe_fw_dir dir;

	*ct = UINT32_MAX;
	*cacheable = true;
	if (!f->on)
		return true;
	if (!ifs[in].wan) {
		if (out < 0 || !ifs[out].wan)
			return true;	/* LAN to router or to LAN */
		dir = CPE_FW_LAN_WAN;
	} else {
		dir = out < 0 ? CPE_FW_WAN_IN : CPE_FW_WAN_LAN;
	}
	if (parse(m, &p) != 0)
		return true;
	return cpe_fw_check(&f->fw, &p, dir, f->env->now, ct, cacheable) ==
		CPE_FW_ACCEPT;
}

void
cpe_fwdp_out_local(struct cpe_fwdp *f, uint16_t idx, const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	struct cpe_fw_pkt p;
	uint32_t ct;
	bool c;

	if (!f->on || !f->ifs->ifs[idx].wan ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 20)
		return;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return;
	if (parse(m, &p) == 0)
		cpe_fw_check(&f->fw, &p, CPE_FW_OUT, f->env->now, &ct, &c);
}

void
cpe_fwdp_link(struct cpe_fwdp *f, uint32_t ct, uint16_t in, int32_t pos)
{
	if (f->on && ct != UINT32_MAX && pos >= 0)
		cpe_fw_link_flow(&f->fw, ct, f->ifs->ifs[in].wan, pos);
}

int
cpe_fwdp_rule_add(struct cpe_fwdp *f, const struct cpe_fw_rule *r)
{
	return f->on ? cpe_fw_rule_add(f->fw.cfg, r) : -ENOTSUP;
}

int
cpe_fwdp_rule_del(struct cpe_fwdp *f, uint32_t id, uint32_t *closed)
{
	int rc;

	if (!f->on)
		return -ENOTSUP;
	rc = cpe_fw_rule_del(f->fw.cfg, id);
	if (rc == 0)
		*closed = cpe_fw_close_rule(&f->fw, id);
	return rc;
}

uint32_t
cpe_fwdp_close_prefix(struct cpe_fwdp *f, const uint8_t *pfx, uint8_t plen)
{
	return f->on ? cpe_fw_close_prefix(&f->fw, pfx, plen) : 0;
}
