/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The firewall in the router (fw.c is its pure part): the zone of each
 * packet from the ports' WAN flag, source validation (BCP 38) against the
 * route tables, the router's own packets to the WAN (from the TAP) as
 * tracked connections, the flow-cache entries of a tracked connection
 * deleted with it, and the counters.
 *
 * Where NAT is on, IPv4 forwarding between LAN and WAN keeps using NAT's
 * sessions as its state (nat.c: a WAN packet without a session is never
 * forwarded); the table here tracks the IPv6 flows, the router's own
 * connections and, with --no-nat, routed IPv4.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_telemetry.h>

#include "cpe.h"

struct cpe_fw cpe_fw;
bool cpe_fw_on;
struct cpe_guard cpe_guard;

static void
unlink_flows(uint32_t idx, const struct cpe_fw_ct *c)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (c->flow[i] < 0)
			continue;
		if (c->k.v6)
			cpe_flow6_del_ct(c->flow[i], idx);
		else
			cpe_flow_del_ct(c->flow[i], idx);
	}
}

int
cpe_fw_setup(void)
{
	const struct cpe_opts *o = cpe.o;
	struct cpe_fw_timeouts to = {
		.tcp_est = o->tcp_timeout, .tcp_trans = o->tcp_trans,
		.tcp_close = o->tcp_close, .udp = o->udp_timeout,
		.icmp = o->icmp_timeout, .tcp_syn = o->tcp_syn,
		.udp_unreplied = o->udp_unreplied,
	};

	if (cpe.wan < 0)
		return 0;
	/* The guard serves NAT's forwards too, firewall on or off. */
	if (cpe_guard_init(&cpe_guard, &o->fw.syn, cpe.hz, cpe.now) != 0) {
		fprintf(stderr, "ch39x-cpe: --synflood-protect: cannot "
			"allocate its table\n");
		return -1;
	}
	if (!o->fw.on)
		return 0;
	if (cpe_fw_init(&cpe_fw, &cpe.o->fw, cpe.hz, &to, cpe.now) != 0) {
		fprintf(stderr, "ch39x-cpe: --fw-states %u: cannot allocate "
			"the connection table\n", o->fw.states);
		return -1;
	}
	cpe_fw.unlink = unlink_flows;
	cpe_fw.guard = &cpe_guard;
	cpe_fw_on = true;
	return 0;
}

void
cpe_fw_close(void)
{
	cpe_fw_on = false;
	cpe_fw_free(&cpe_fw);
	cpe_guard_free(&cpe_guard);
}

void
cpe_fw_age_ms(uint32_t ms)
{
	if (cpe_fw_on)
		cpe_fw_age(&cpe_fw, cpe_age_budget(cpe_fw.mask + 1, ms),
			   cpe.now);
}

static bool
is_ll6(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* The router port a source routes back to, -1: none. */
static int
src_port(const struct cpe_fw_pkt *p)
{
	uint8_t nh6[16];
	uint32_t src, nh;
	uint16_t out;

	if (p->t.v6) {
		if (cpe_route6_lookup(p->t.src, &out, nh6) != 0)
			return -1;
		return out;
	}
	memcpy(&src, p->t.src + 12, 4);
	if (cpe_route_lookup(rte_be_to_cpu_32(src), &out, &nh) != 0)
		return -1;
	return out;
}

static bool
src_is_mine(const struct cpe_fw_pkt *p)
{
	uint32_t a;
	uint16_t i;

	if (!p->t.v6) {
		memcpy(&a, p->t.src + 12, 4);
		for (i = 0; i < cpe.nb_ports; i++)
			if (cpe.ports[i].ip_be == a && a != 0)
				return true;
		return false;
	}
	for (i = 0; i < cpe.nb_ports; i++)
		if (cpe_ip6_is_mine(i, p->t.src))
			return true;
	return false;
}

/*
 * BCP 38 and bogons: from the WAN, no bogon, no address of the router,
 * nothing the routes send to a LAN; from a LAN, forwarded packets only
 * from what the routes send back to that LAN (strict reverse path).
 * Unspecified and link-local sources are the control plane's (DHCP
 * discover, DAD, ND), not forwarded (fwd.c, fwd6.c see to that).
 */
static enum cpe_fw_reason
src_check(uint16_t in, const struct cpe_fw_pkt *p, bool local)
{
	static const uint8_t unspec4[16] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t unspec6[16];
	int sp;

	if (memcmp(p->t.src, p->t.v6 ? unspec6 : unspec4, 16) == 0 ||
	    (p->t.v6 && is_ll6(p->t.src)))
		return local ? CPE_FW_ACCEPT :
			cpe.ports[in].wan ? CPE_FW_DROP_BOGON :
			CPE_FW_DROP_SPOOF_LAN;
	if (cpe.ports[in].wan) {
		if (cpe_fw_bogon(p->t.src) || src_is_mine(p))
			return CPE_FW_DROP_BOGON;
		sp = src_port(p);
		if (sp >= 0 && !cpe.ports[sp].wan)
			return CPE_FW_DROP_SPOOF_WAN;
		return CPE_FW_ACCEPT;
	}
	if (local)
		return CPE_FW_ACCEPT;	/* LAN to the router: accepted */
	return src_port(p) == (int)in ? CPE_FW_ACCEPT : CPE_FW_DROP_SPOOF_LAN;
}

static int
parse(const struct rte_mbuf *m, struct cpe_fw_pkt *p)
{
	return cpe_fw_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    RTE_ETHER_HDR_LEN),
			    rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, p);
}

bool
cpe_fw_src_ok(uint16_t in, bool local, const struct rte_mbuf *m)
{
	struct cpe_fw_pkt p;
	enum cpe_fw_reason r;

	if (!cpe_fw_on || parse(m, &p) != 0)
		return true;	/* the slow path's own checks see to it */
	r = src_check(in, &p, local);
	if (r == CPE_FW_ACCEPT)
		return true;
	cpe_fw_drop(&cpe_fw, r);
	return false;
}

bool
cpe_fw_pass(uint16_t in, int out, const struct rte_mbuf *m, uint32_t *ct,
	    bool *cacheable)
{
	struct cpe_fw_pkt p;
	enum cpe_fw_dir dir;

	*ct = UINT32_MAX;
	*cacheable = true;
	if (!cpe_fw_on)
		return true;
	if (!cpe.ports[in].wan) {
		if (out < 0 || !cpe.ports[out].wan)
			return true;	/* LAN to router or to LAN */
		dir = CPE_FW_LAN_WAN;
	} else {
		dir = out < 0 ? CPE_FW_WAN_IN : CPE_FW_WAN_LAN;
	}
	if (parse(m, &p) != 0)
		return true;
	return cpe_fw_check(&cpe_fw, &p, dir, cpe.now, ct, cacheable) ==
		CPE_FW_ACCEPT;
}

/*
 * A TCP SYN (no ACK, no RST) by its first bytes: IPv4 (not a later
 * fragment) or IPv6 without extension headers; the callers checked
 * the IP header's length.
 */
static bool
is_syn(const struct rte_mbuf *m)
{
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *,
						    RTE_ETHER_HDR_LEN);
	uint32_t len = rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, off;

	if ((l3[0] >> 4) == 4) {
		off = (uint32_t)(l3[0] & 0xf) * 4;
		if (l3[9] != IPPROTO_TCP || (l3[6] & 0x1f) != 0 || l3[7] != 0)
			return false;
	} else {
		off = 40;
		if (l3[6] != IPPROTO_TCP)
			return false;
	}
	return off + 14 <= len && (l3[off + 13] & (RTE_TCP_SYN_FLAG |
		RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG)) == RTE_TCP_SYN_FLAG;
}

/* m's tuple as the firewall's (guard.h: the key both stages agree on). */
static int
tuple_of(const struct rte_mbuf *m, struct cpe_fw_tuple *t)
{
	return cpe_fw_tuple_of(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						       RTE_ETHER_HDR_LEN),
			       rte_pktmbuf_data_len(m) - RTE_ETHER_HDR_LEN, t);
}

bool
cpe_guard_syn_ok(const struct rte_mbuf *m)
{
	struct cpe_fw_tuple t;

	if (!is_syn(m) || cpe_guard_budget_take(&cpe_guard, cpe.now) ||
	    tuple_of(m, &t) != 0)
		return true;
	return cpe_guard_budget_over(&cpe_guard, &t, sizeof(t), cpe.now);
}

bool
cpe_guard_new(const struct rte_mbuf *m)
{
	struct cpe_fw_tuple t;

	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m,
		const struct rte_ipv4_hdr *, RTE_ETHER_HDR_LEN);

	/* IPv4: nat.c's forwards (the firewall's own call is in fw.c). */
	if (cpe_guard_admit_take(&cpe_guard, ip->next_proto_id, cpe.now) ||
	    tuple_of(m, &t) != 0)
		return true;
	return cpe_guard_admit_over(&cpe_guard, t.proto, &t, sizeof(t),
				    cpe.now) != CPE_GUARD_DROP;
}

void
cpe_fw_out_local(uint16_t idx, const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	struct cpe_fw_pkt p;
	uint32_t ct;
	bool c;

	if (!cpe_fw_on || !cpe.ports[idx].wan ||
	    rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + 20)
		return;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
	    eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return;
	if (parse(m, &p) == 0)
		cpe_fw_check(&cpe_fw, &p, CPE_FW_OUT, cpe.now, &ct, &c);
}

void
cpe_fw_link(uint32_t ct, uint16_t in, int32_t pos)
{
	if (cpe_fw_on && ct != UINT32_MAX && pos >= 0)
		cpe_fw_link_flow(&cpe_fw, ct, cpe.ports[in].wan, pos);
}

void
cpe_evict_print(FILE *f, const uint64_t *v, bool json)
{
	unsigned int c;

	fprintf(f, json ? ", \"evicted_by_class\": {" : "");
	for (c = 0; c < CPE_EV_NB; c++)
		fprintf(f, json ? "%s\"%s\": %" PRIu64 :
			"%s evicted_%s %" PRIu64,
			json && c ? ", " : "", cpe_ev_class_name(c), v[c]);
	fprintf(f, json ? "}" : "");
}

void
cpe_evict_tel(struct rte_tel_data *d, const char *prefix, const uint64_t *v)
{
	char name[64];
	unsigned int c;

	for (c = 0; c < CPE_EV_NB; c++) {
		snprintf(name, sizeof(name), "%s_evicted_%s", prefix,
			 cpe_ev_class_name(c));
		cpe_tel_u64(d, name, v[c]);
	}
}

static void
guard_print(FILE *f, bool json)
{
	const struct cpe_guard *g = &cpe_guard;

	fprintf(f, json ? "  \"synflood\": {\"on\": %s, \"rate\": %u, "
		"\"burst\": %u, \"budget\": %u, \"admitted\": %" PRIu64
		", \"retried\": %" PRIu64 ", \"limited_tcp\": %" PRIu64
		", \"limited_udp\": %" PRIu64 ", \"budget_drops\": %" PRIu64
		"},\n" : "  synflood: %s rate %u burst %u budget %u admitted %"
		PRIu64 " retried %" PRIu64 " limited_tcp %" PRIu64
		" limited_udp %" PRIu64 " budget_drops %" PRIu64 "\n",
		g->cfg.on ? (json ? "true" : "on") : (json ? "false" : "off"),
		g->cfg.rate, g->cfg.burst, g->cfg.budget, g->st.admitted,
		g->st.retried, g->st.limited_tcp, g->st.limited_udp,
		g->st.budget_drops);
}

void
cpe_fw_print(FILE *f)
{
	const struct cpe_fw_stats *s = &cpe_fw.st;
	const struct cpe_fw_cfg *c = &cpe.o->fw;
	int r;
	uint16_t i;

	guard_print(f, false);
	for (i = 0; i < c->nb_fwd; i++)
		fprintf(f, "  port forward %s: hits %" PRIu64 " hairpin %"
			PRIu64 " limited %" PRIu64 "\n", c->fwd[i].text,
			c->fwd[i].hits, c->fwd[i].hairpin, c->fwd[i].limited);
	if (!cpe_fw_on) {
		fprintf(f, "  firewall: off\n");
		return;
	}
	fprintf(f, "  firewall: states %u of %u created %" PRIu64
		" expired %" PRIu64 " evicted %" PRIu64 " accepted_state %"
		PRIu64 " accepted_icmp %" PRIu64 " full_refused %" PRIu64,
		cpe_fw.in_use, cpe_fw.mask + 1, s->created, s->expired,
		s->evicted, s->accepted_state, s->accepted_icmp,
		s->full_refused);
	cpe_evict_print(f, s->evicted_cls, false);
	fprintf(f, "\n");
	fprintf(f, "  firewall drops:");
	for (r = 1; r < CPE_FW_NB_REASONS; r++)
		fprintf(f, " %s %" PRIu64, cpe_fw_reason_name(r),
			s->drops[r]);
	fprintf(f, "\n");
	for (i = 0; i < c->nb_rules; i++)
		fprintf(f, "  firewall rule %u %s %s: hits %" PRIu64
			" limited %" PRIu64 "\n", c->rules[i].id,
			cpe_fw_rule_kind(&c->rules[i]), c->rules[i].text,
			c->rules[i].hits, c->rules[i].limited);
}

void
cpe_fw_json(FILE *f)
{
	const struct cpe_fw_stats *s = &cpe_fw.st;
	const struct cpe_fw_cfg *c = &cpe.o->fw;
	int r;
	uint16_t i;

	guard_print(f, true);
	fprintf(f, "  \"firewall\": {\"on\": %s, \"forwards\": [",
		cpe_fw_on ? "true" : "false");
	for (i = 0; i < c->nb_fwd; i++)
		fprintf(f, "%s{\"rule\": \"%s\", \"hits\": %" PRIu64
			", \"hairpin\": %" PRIu64 ", \"limited\": %" PRIu64 "}",
			i ? ", " : "", c->fwd[i].text, c->fwd[i].hits,
			c->fwd[i].hairpin, c->fwd[i].limited);
	fprintf(f, "]");
	if (cpe_fw_on) {
		fprintf(f, ", \"states\": %u, \"capacity\": %u, \"created\": %"
			PRIu64 ", \"expired\": %" PRIu64 ", \"evicted\": %"
			PRIu64 ", \"accepted_state\": %" PRIu64
			", \"accepted_icmp\": %" PRIu64 ", \"full_refused\": %"
			PRIu64, cpe_fw.in_use, cpe_fw.mask + 1, s->created,
			s->expired, s->evicted, s->accepted_state,
			s->accepted_icmp, s->full_refused);
		cpe_evict_print(f, s->evicted_cls, true);
		fprintf(f, ", \"drops\": {");
		for (r = 1; r < CPE_FW_NB_REASONS; r++)
			fprintf(f, "%s\"%s\": %" PRIu64, r > 1 ? ", " : "",
				cpe_fw_reason_name(r), s->drops[r]);
		fprintf(f, "}, \"rules\": [");
		for (i = 0; i < c->nb_rules; i++)
			fprintf(f, "%s{\"id\": %u, \"kind\": \"%s\", "
				"\"rule\": \"%s\", \"hits\": %" PRIu64
				", \"limited\": %" PRIu64 "}", i ? ", " : "",
				c->rules[i].id, cpe_fw_rule_kind(&c->rules[i]),
				c->rules[i].text, c->rules[i].hits,
				c->rules[i].limited);
		fprintf(f, "]");
	}
	fprintf(f, "},\n");
}

void
cpe_fw_tel(struct rte_tel_data *d)
{
	char name[64];
	int r;

	cpe_tel_u64(d, "fw_on", cpe_fw_on);
	cpe_tel_u64(d, "synflood_on", cpe_guard.cfg.on);
	cpe_tel_u64(d, "synflood_admitted", cpe_guard.st.admitted);
	cpe_tel_u64(d, "synflood_retried", cpe_guard.st.retried);
	cpe_tel_u64(d, "synflood_limited_tcp", cpe_guard.st.limited_tcp);
	cpe_tel_u64(d, "synflood_limited_udp", cpe_guard.st.limited_udp);
	cpe_tel_u64(d, "synflood_budget_drops", cpe_guard.st.budget_drops);
	for (r = 0; r < cpe.o->fw.nb_fwd; r++) {
		snprintf(name, sizeof(name), "fw_forward_%d_hits", r + 1);
		cpe_tel_u64(d, name, cpe.o->fw.fwd[r].hits);
		snprintf(name, sizeof(name), "fw_forward_%d_hairpin", r + 1);
		cpe_tel_u64(d, name, cpe.o->fw.fwd[r].hairpin);
		snprintf(name, sizeof(name), "fw_forward_%d_limited", r + 1);
		cpe_tel_u64(d, name, cpe.o->fw.fwd[r].limited);
	}
	if (!cpe_fw_on)
		return;
	cpe_tel_u64(d, "fw_states", cpe_fw.in_use);
	cpe_tel_u64(d, "fw_created", cpe_fw.st.created);
	cpe_tel_u64(d, "fw_expired", cpe_fw.st.expired);
	cpe_tel_u64(d, "fw_evicted", cpe_fw.st.evicted);
	cpe_tel_u64(d, "fw_full_refused", cpe_fw.st.full_refused);
	cpe_evict_tel(d, "fw", cpe_fw.st.evicted_cls);
	for (r = 1; r < CPE_FW_NB_REASONS; r++) {
		snprintf(name, sizeof(name), "fw_drop_%s",
			 cpe_fw_reason_name(r));
		cpe_tel_u64(d, name, cpe_fw.st.drops[r]);
	}
	/* A rule's limited count: /cpe/fw/rules (a telemetry dict holds 256
	 * entries: 64 rules, 32 forwards and the rest fill most of it). */
	for (r = 0; r < cpe.o->fw.nb_rules; r++) {
		snprintf(name, sizeof(name), "fw_rule_%u_hits",
			 cpe.o->fw.rules[r].id);
		cpe_tel_u64(d, name, cpe.o->fw.rules[r].hits);
	}
}
