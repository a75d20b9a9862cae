/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * The flow caches' tables (ftab.h): one copy, so that both families age,
 * count and evict alike.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "ftab.h"

/* --flow-entries keys (CRC hash: the keys are short and fixed). */
struct cpe_ftab *
cpe_ftab_create(bool v6, uint32_t entries, uint32_t timeout_s,
		const struct cpe_env *env, const struct cpe_ifaces *ifs)
{
	struct rte_hash_parameters hp = {
		.name = v6 ? "cpe_flows6" : "cpe_flows",
		.entries = entries,
		.key_len = v6 ? sizeof(struct cpe_flow6_key) :
			sizeof(struct cpe_flow4_key),
		.hash_func = rte_hash_crc,
		.socket_id = SOCKET_ID_ANY,
	};
	struct cpe_ftab *t = calloc(1, sizeof(*t));

	RTE_BUILD_BUG_ON(sizeof(struct cpe_flow4_key) != 16);
	RTE_BUILD_BUG_ON(sizeof(struct cpe_flow6_key) != 40);
	if (t == NULL)
		return NULL;
	t->h = rte_hash_create(&hp);
	t->esz = v6 ? sizeof(struct cpe_flow6) : sizeof(struct cpe_flow4);
	t->key_off = v6 ? offsetof(struct cpe_flow6, key) :
		offsetof(struct cpe_flow4, key);
	t->key_len = hp.key_len;
	t->env = env;
	t->ifs = ifs;
	t->timeout = (uint64_t)timeout_s * env->hz;
	if (t->h != NULL) {
		t->nb = (uint32_t)rte_hash_max_key_id(t->h) + 1;
		t->ents = calloc(t->nb, t->esz);
	}
	if (t->h == NULL || t->ents == NULL) {
		cpe_ftab_free(t);
		return NULL;
	}
	return t;
}

void
cpe_ftab_free(struct cpe_ftab *t)
{
	if (t == NULL)
		return;
	rte_hash_free(t->h);
	free(t->ents);
	free(t);
}

uint32_t
cpe_ftab_count(const struct cpe_ftab *t)
{
	return t == NULL ? 0 : (uint32_t)rte_hash_count(t->h);
}

void
cpe_ftab_del(struct cpe_ftab *t, uint32_t pos)
{
	struct cpe_fent *f = cpe_ftab_at(t, pos);
	/* The key on 8 bytes: rte_hash's CRC reads it 8 bytes at a time. */
	uint64_t k[(sizeof(struct cpe_flow6_key) + 7) / 8];

	if (!f->used)
		return;
	memcpy(k, (char *)f + t->key_off, t->key_len);
	rte_hash_del_key(t->h, k);
	f->used = false;
}

void
cpe_ftab_del_sess(struct cpe_ftab *t, int32_t pos, uint32_t sess)
{
	struct cpe_fent *f;

	if (t == NULL)
		return;
	/* The slot may hold another flow by now. */
	f = cpe_ftab_at(t, (uint32_t)pos);
	if (f->used && f->x.sess == sess) {
		cpe_ftab_del(t, (uint32_t)pos);
		t->st.invalidated++;
	}
}

void
cpe_ftab_del_ct(struct cpe_ftab *t, int32_t pos, uint32_t ct)
{
	struct cpe_fent *f;

	if (t == NULL)
		return;
	f = cpe_ftab_at(t, (uint32_t)pos);
	if (f->used && f->x.ct == ct) {
		cpe_ftab_del(t, (uint32_t)pos);
		t->st.invalidated++;
	}
}

int32_t
cpe_ftab_learn(struct cpe_ftab *t, const void *key, const struct cpe_xlate *x)
{
	struct cpe_fent *f;
	int32_t pos;

	/* Nothing leaves a port that is down: no flow out of it either. */
	if (unlikely(t->ifs->phys[t->ifs->ifs[x->out].phys].down))
		return -ENETDOWN;
	pos = rte_hash_add_key(t->h, key);
	if (pos < 0) {
		t->st.full++;
		return pos;
	}
	f = cpe_ftab_at(t, (uint32_t)pos);
	f->x = *x;
	memcpy((char *)f + t->key_off, key, t->key_len);
	f->gen = t->env->gen;
	f->last = t->env->now;
	f->used = true;
	t->st.installs++;
	return pos;
}

/*
 * The slice of the table for ms milliseconds (cpe_age_budget()), so that
 * housekeeping stays short: idle and stale entries go. The number evicted.
 */
uint32_t
cpe_ftab_age(struct cpe_ftab *t, uint32_t ms)
{
	uint32_t budget, n = 0;
	struct cpe_fent *f;

	if (t == NULL)
		return 0;
	budget = cpe_age_budget(t->nb, ms);
	while (budget--) {
		if (++t->cursor >= t->nb)
			t->cursor = 0;
		f = cpe_ftab_at(t, t->cursor);
		if (!f->used)
			continue;
		if (t->env->now - f->last > t->timeout ||
		    f->gen != t->env->gen) {
			cpe_ftab_del(t, t->cursor);
			t->st.evictions++;
			n++;
		}
	}
	return n;
}

/*
 * Deletes the entries out of DPDK port phys[k] (any of its interfaces),
 * once, when it goes down (control/hotplug.c): their packets take the
 * slow path, which keeps routes, neighbours and NAT sessions.
 */
uint32_t
cpe_ftab_drop_phys(struct cpe_ftab *t, uint16_t k)
{
	struct cpe_fent *f;
	uint32_t pos, n = 0;

	if (t == NULL)
		return 0;
	for (pos = 0; pos < t->nb; pos++) {
		f = cpe_ftab_at(t, pos);
		if (f->used && t->ifs->ifs[f->x.out].phys == k) {
			cpe_ftab_del(t, pos);
			n++;
		}
	}
	t->st.down_invalidated += n;
	return n;
}

int
cpe_flow6_key(const struct rte_mbuf *m, struct cpe_flow6_key *k)
{
	const struct rte_ether_hdr *eh;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *l4;

	/* The first segment holds the headers (and 8 bytes of L4). */
	if (rte_pktmbuf_data_len(m) < 14 + 40 + 8)
		return -1;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6))
		return -1;
	ip = (const struct rte_ipv6_hdr *)(eh + 1);
	if ((ip->vtc_flow & rte_cpu_to_be_32(0xf0000000)) !=
	    rte_cpu_to_be_32(0x60000000) || ip->hop_limits <= 1 ||
	    rte_be_to_cpu_16(ip->payload_len) < 8 ||
	    rte_pktmbuf_pkt_len(m) != 14 + 40 +
	    (uint32_t)rte_be_to_cpu_16(ip->payload_len))
		return -1;
	l4 = (const uint8_t *)(ip + 1);
	memcpy(k->sip, IP6_SRC(ip), 16);
	memcpy(k->dip, IP6_DST(ip), 16);
	k->proto = ip->proto;
	k->port = (uint8_t)cpe_in(m);
	k->pad = 0;
	k->icmp_type = 0;
	return cpe_flow_l4_key(ip->proto, l4,
			       RTE_MIN((uint32_t)rte_be_to_cpu_16(ip->payload_len),
				       rte_pktmbuf_data_len(m) - 14u - 40u),
			       IPPROTO_ICMPV6, 128, 129, &k->sport, &k->dport,
			       &k->icmp_type);
}
