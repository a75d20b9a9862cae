/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Unit test of ch39x-cpe's firewall (app/ch39x-cpe/fw.c) over packets
 * written out byte by byte, without EAL: the TCP state machine and its
 * timeouts, UDP and ICMP state, replies against unsolicited packets,
 * ICMP/ICMPv6 errors accepted only when they quote a tracked flow, the
 * rules (--fw-open, --fw-pinhole) and their counters, neighbour discovery
 * and the hop limit, the echo request rate, the bounded table and its
 * evictions, bogon sources, and the rules' parser and its messages.
 */

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fw.h"

#include "check.h"

#define HZ	1000u		/* ticks per second in this test */
#define SYN	0x02
#define ACK	0x10
#define FIN	0x01
#define RST	0x04

static const char *lan6 = "2001:db8:1::10", *wan6 = "2001:db8:ff::1";
static const char *lan4 = "192.168.1.10", *wan4 = "198.51.100.1";

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* An IPv6 or IPv4 header and 8..20 bytes of L4 into b; its length. */
static uint32_t
ip_hdr(uint8_t *b, const char *src, const char *dst, uint8_t proto,
       uint8_t hop, uint32_t l4_len)
{
	if (strchr(src, ':') != NULL) {
		memset(b, 0, 40);
		b[0] = 0x60;
		put16(b + 4, (uint16_t)l4_len);
		b[6] = proto;
		b[7] = hop;
		inet_pton(AF_INET6, src, b + 8);
		inet_pton(AF_INET6, dst, b + 24);
		return 40;
	}
	memset(b, 0, 20);
	b[0] = 0x45;
	put16(b + 2, (uint16_t)(20 + l4_len));
	b[8] = hop;
	b[9] = proto;
	inet_pton(AF_INET, src, b + 12);
	inet_pton(AF_INET, dst, b + 16);
	return 20;
}

static uint32_t
tcp(uint8_t *b, const char *src, const char *dst, uint16_t sp, uint16_t dp,
    uint8_t flags)
{
	uint32_t h = ip_hdr(b, src, dst, 6, 64, 20);

	memset(b + h, 0, 20);
	put16(b + h, sp);
	put16(b + h + 2, dp);
	b[h + 12] = 0x50;
	b[h + 13] = flags;
	return h + 20;
}

static uint32_t
udp(uint8_t *b, const char *src, const char *dst, uint16_t sp, uint16_t dp)
{
	uint32_t h = ip_hdr(b, src, dst, 17, 64, 8);

	memset(b + h, 0, 8);
	put16(b + h, sp);
	put16(b + h + 2, dp);
	put16(b + h + 4, 8);
	return h + 8;
}

static uint32_t
icmp(uint8_t *b, const char *src, const char *dst, uint8_t type,
     uint16_t id, uint8_t hop)
{
	bool v6 = strchr(src, ':') != NULL;
	uint32_t h = ip_hdr(b, src, dst, v6 ? 58 : 1, hop, 8);

	memset(b + h, 0, 8);
	b[h] = type;
	put16(b + h + 4, id);
	return h + 8;
}

/* An ICMP(v6) error of type from src to dst quoting packet q. */
static uint32_t
icmp_err(uint8_t *b, const char *src, const char *dst, uint8_t type,
	 const uint8_t *q, uint32_t qlen)
{
	bool v6 = strchr(src, ':') != NULL;
	uint32_t h = ip_hdr(b, src, dst, v6 ? 58 : 1, 64, 8 + qlen);

	memset(b + h, 0, 8);
	b[h] = type;
	memcpy(b + h + 8, q, qlen);
	return h + 8 + qlen;
}

static struct cpe_fw_cfg cfg;
static struct cpe_fw fw;
static uint64_t now;

static void
setup(uint32_t states)
{
	struct cpe_fw_timeouts to = {
		.tcp_est = 7440, .tcp_trans = 120, .tcp_close = 10,
		.udp = 120, .icmp = 30, .tcp_syn = 30, .udp_unreplied = 30,
	};

	cpe_fw_free(&fw);
	memset(&cfg, 0, sizeof(cfg));
	cfg.on = true;
	cfg.states = states;
	cfg.echo_rate = CPE_FW_ECHO_RATE;
	now = 1000000;
	CHECK_EQ(cpe_fw_init(&fw, &cfg, HZ, &to, now), 0);
}

static int
verdict_ct(const uint8_t *b, uint32_t len, enum cpe_fw_dir dir,
	   uint32_t *ct, bool *cacheable)
{
	struct cpe_fw_pkt p;

	if (cpe_fw_parse(b, len, &p) != 0)
		return -1;
	return cpe_fw_check(&fw, &p, dir, now, ct, cacheable);
}

static int
verdict(const uint8_t *b, uint32_t len, enum cpe_fw_dir dir)
{
	uint32_t ct;
	bool c;

	return verdict_ct(b, len, dir, &ct, &c);
}

static void
test_tcp(const char *lan, const char *wan)
{
	uint8_t b[256];
	uint32_t n, ct;
	bool c;

	setup(4096);
	/* Unsolicited from the WAN: a SYN, an ACK. */
	n = tcp(b, wan, lan, 80, 40000, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	n = tcp(b, wan, lan, 80, 40000, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_TCP_INVALID);
	/* The handshake from the LAN; not cacheable before established. */
	n = tcp(b, lan, wan, 40000, 80, SYN);
	CHECK_EQ(verdict_ct(b, n, CPE_FW_LAN_WAN, &ct, &c), CPE_FW_ACCEPT);
	CHECK(ct != UINT32_MAX && !c);
	CHECK_EQ(fw.st.created, 1);
	n = tcp(b, wan, lan, 80, 40000, SYN | ACK);
	CHECK_EQ(verdict_ct(b, n, CPE_FW_WAN_LAN, &ct, &c), CPE_FW_ACCEPT);
	CHECK(!c);
	n = tcp(b, lan, wan, 40000, 80, ACK);
	CHECK_EQ(verdict_ct(b, n, CPE_FW_LAN_WAN, &ct, &c), CPE_FW_ACCEPT);
	CHECK(c);
	/* Established: replies pass, another port does not. */
	n = tcp(b, wan, lan, 80, 40000, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	n = tcp(b, wan, lan, 81, 40000, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_TCP_INVALID);
	/* Established lives 7440 s idle, then goes. */
	now += 7000 * (uint64_t)HZ;
	n = tcp(b, wan, lan, 80, 40000, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	/* A RST: 10 s more, then the reply is unsolicited. */
	n = tcp(b, lan, wan, 40000, 80, RST | ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	now += 5 * (uint64_t)HZ;
	n = tcp(b, wan, lan, 80, 40000, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	now += 11 * (uint64_t)HZ;
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_TCP_INVALID);
	CHECK_EQ(fw.st.expired, 1);
	CHECK_EQ(fw.in_use, 0);
	/* A SYN waiting for its SYN+ACK: 30 s (--tcp-syn-timeout). */
	n = tcp(b, lan, wan, 40001, 80, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	now += 29 * (uint64_t)HZ;
	n = tcp(b, wan, lan, 80, 40001, SYN | ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	/* SYN_RECV (answered, no ACK yet): 30 s too. */
	now += 31 * (uint64_t)HZ;
	n = tcp(b, lan, wan, 40001, 80, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	CHECK_EQ(fw.st.created, 3);	/* picked up again, as established */
	n = tcp(b, lan, wan, 40003, 80, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	now += 31 * (uint64_t)HZ;
	n = tcp(b, wan, lan, 80, 40003, SYN | ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_TCP_INVALID);
	/* Both FINs close: 10 s. */
	n = tcp(b, lan, wan, 40002, 80, SYN);
	verdict(b, n, CPE_FW_LAN_WAN);
	n = tcp(b, wan, lan, 80, 40002, SYN | ACK);
	verdict(b, n, CPE_FW_WAN_LAN);
	n = tcp(b, lan, wan, 40002, 80, FIN | ACK);
	verdict(b, n, CPE_FW_LAN_WAN);
	n = tcp(b, wan, lan, 80, 40002, FIN | ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	now += 11 * (uint64_t)HZ;
	n = tcp(b, wan, lan, 80, 40002, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_TCP_INVALID);
}

static void
test_udp_icmp(const char *lan, const char *wan)
{
	bool v6 = strchr(lan, ':') != NULL;
	uint8_t b[256], q[64];
	uint32_t n, qn;

	setup(4096);
	n = udp(b, wan, lan, 53, 5000);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	n = udp(b, lan, wan, 5000, 53);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	n = udp(b, wan, lan, 53, 5000);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	CHECK_EQ(fw.st.accepted_state, 1);
	/* An error quoting the tracked datagram passes; quoting another
	 * port, or sent to another host, does not.
	 */
	qn = udp(q, lan, wan, 5000, 53);
	n = icmp_err(b, wan, lan, v6 ? 1 : 3, q, qn);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	qn = udp(q, lan, wan, 5001, 53);
	n = icmp_err(b, wan, lan, v6 ? 2 : 11, q, qn);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_ICMP_ERR);
	qn = udp(q, lan, wan, 5000, 53);
	n = icmp_err(b, wan, v6 ? "2001:db8:1::11" : "192.168.1.11",
		     v6 ? 3 : 12, q, qn);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_ICMP_ERR);
	/* UDP: 120 s idle. */
	now += 121 * (uint64_t)HZ;
	n = udp(b, wan, lan, 53, 5000);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	/* Echo: the reply of a tracked request, 30 s. */
	n = icmp(b, wan, lan, v6 ? 129 : 0, 77, 64);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	n = icmp(b, lan, wan, v6 ? 128 : 8, 77, 64);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	n = icmp(b, wan, lan, v6 ? 129 : 0, 77, 64);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	n = icmp(b, wan, lan, v6 ? 129 : 0, 78, 64);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	now += 31 * (uint64_t)HZ;
	n = icmp(b, wan, lan, v6 ? 129 : 0, 77, 64);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	/* Other ICMP types from the WAN: dropped (redirect, timestamp). */
	n = icmp(b, wan, lan, v6 ? 137 : 13, 1, 255);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_ICMP_TYPE);
}

static void
test_router(void)
{
	uint8_t b[256], q[64];
	uint32_t n, qn, i, ok = 0;
	const char *me4 = "198.51.100.2", *me6 = "2001:db8:ff::2";

	setup(4096);
	CHECK(cpe_fw_rule_parse("tcp/22", false,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	CHECK(cpe_fw_rule_parse("udp/5000-5010", false,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	/* Opened ports, both families; the rest closed. */
	n = tcp(b, wan4, me4, 50000, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = tcp(b, wan6, me6, 50000, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	CHECK_EQ(cfg.rules[0].hits, 2);
	n = udp(b, wan6, me6, 1, 5010);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	CHECK_EQ(cfg.rules[1].hits, 1);
	n = udp(b, wan6, me6, 1, 5011);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
	n = tcp(b, wan4, me4, 50000, 23, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
	/* A forwarded packet does not match an input rule. */
	n = tcp(b, wan6, lan6, 50000, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	/* The router's own connection: its replies come in. */
	n = udp(b, me4, wan4, 33000, 53);
	CHECK_EQ(verdict(b, n, CPE_FW_OUT), CPE_FW_ACCEPT);
	n = udp(b, wan4, me4, 53, 33000);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = udp(b, wan4, me4, 53, 33001);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
	/* DHCP client replies (IPv4 67 -> 68, DHCPv6 from link-local). */
	n = udp(b, wan4, me4, 67, 68);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = udp(b, "fe80::1", "fe80::2", 547, 546);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = udp(b, wan6, me6, 547, 546);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
	/* ND: hop limit 255 only (RFC 4861), MLD from link-local. */
	n = icmp(b, "fe80::1", me6, 135, 0, 255);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = icmp(b, "fe80::1", me6, 135, 0, 64);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_ND_HOP);
	n = icmp(b, "fe80::1", "ff02::1", 134, 0, 254);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_ND_HOP);
	n = icmp(b, "fe80::1", "ff02::16", 143, 0, 1);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = icmp(b, wan6, "ff02::16", 143, 0, 1);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_ICMP_TYPE);
	/* An error about the router's own datagram; one about nothing. */
	qn = udp(q, me6, wan6, 33000, 53);
	n = icmp_err(b, wan6, me6, 1, q, qn);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_ICMP_ERR);
	n = udp(b, me6, wan6, 33000, 53);
	CHECK_EQ(verdict(b, n, CPE_FW_OUT), CPE_FW_ACCEPT);
	n = icmp_err(b, wan6, me6, 1, q, qn);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	/* Echo requests: a burst of 100, then 1000 a second. */
	for (i = 0; i < 150; i++) {
		n = icmp(b, wan4, me4, 8, (uint16_t)i, 64);
		ok += verdict(b, n, CPE_FW_WAN_IN) == CPE_FW_ACCEPT;
	}
	CHECK_EQ(ok, CPE_FW_ECHO_BURST);
	CHECK_EQ(fw.st.drops[CPE_FW_DROP_ICMP_RATE], 50);
	now += HZ / 100;	/* 10 ms: 10 more */
	for (i = 0, ok = 0; i < 20; i++) {
		n = icmp(b, wan6, me6, 128, (uint16_t)i, 64);
		ok += verdict(b, n, CPE_FW_WAN_IN) == CPE_FW_ACCEPT;
	}
	CHECK_EQ(ok, 10);
	/* Other protocols to the router: dropped; IGMP accepted. */
	n = ip_hdr(b, wan4, me4, 47, 64, 8);
	CHECK_EQ(verdict(b, n + 8, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
	n = ip_hdr(b, wan4, "224.0.0.1", 2, 1, 8);
	CHECK_EQ(verdict(b, n + 8, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
}

static void
test_pinhole(void)
{
	uint8_t b[256];
	uint32_t n, ct;
	bool c;

	setup(4096);
	CHECK(cpe_fw_rule_parse("tcp/[2001:db8:1::10]:443", true,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	CHECK(cpe_fw_rule_parse("udp/[2001:db8:1::/64]:1000-2000", true,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	CHECK(cpe_fw_rule_parse("tcp/192.168.1.10:8080", true,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	n = tcp(b, wan6, lan6, 50000, 443, SYN);
	CHECK_EQ(verdict_ct(b, n, CPE_FW_WAN_LAN, &ct, &c), CPE_FW_ACCEPT);
	CHECK(ct != UINT32_MAX);
	CHECK_EQ(cfg.rules[0].hits, 1);
	/* Its replies from the LAN and the rest of the handshake. */
	n = tcp(b, lan6, wan6, 443, 50000, SYN | ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	n = tcp(b, wan6, lan6, 50000, 443, ACK);
	CHECK_EQ(verdict_ct(b, n, CPE_FW_WAN_LAN, &ct, &c), CPE_FW_ACCEPT);
	CHECK(c);
	CHECK_EQ(fw.st.created, 1);
	/* Another host, another port: closed. */
	n = tcp(b, wan6, "2001:db8:1::11", 50000, 443, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	n = tcp(b, wan6, lan6, 50000, 444, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	/* A prefix and a range; IPv4 (routed, --no-nat). */
	n = udp(b, wan6, "2001:db8:1::99", 1, 1500);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	n = udp(b, wan6, "2001:db8:2::99", 1, 1500);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	n = tcp(b, wan4, lan4, 1, 8080, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	n = tcp(b, wan4, "192.168.1.11", 1, 8080, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	/* A pinhole is not a router port. */
	n = tcp(b, wan6, lan6, 50001, 443, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
}

static void
test_bounded(void)
{
	uint8_t b[256];
	uint32_t n, i;
	char a[64];

	setup(1024);
	CHECK_EQ(fw.mask + 1, 1024);
	for (i = 0; i < 5000; i++) {
		snprintf(a, sizeof(a), "2001:db8:1::%x", i + 1);
		n = udp(b, a, wan6, (uint16_t)(1000 + i), 53);
		CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
		now++;
	}
	CHECK(fw.in_use <= 1024);
	CHECK(fw.in_use > 900);
	CHECK_EQ(fw.st.created, 5000);
	CHECK_EQ(fw.st.evicted, 5000 - fw.in_use);
	/* The newest survive: the last flow's reply passes. */
	n = udp(b, wan6, a, 53, (uint16_t)(1000 + 4999));
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	/* Aging frees them all once idle past the timeout. */
	now += 200 * (uint64_t)HZ;
	cpe_fw_age(&fw, fw.mask + 1, now);
	CHECK_EQ(fw.in_use, 0);
}

/* A connection from lan: handshake (TCP) or an answered datagram (UDP). */
static void
lan_conn(const char *lan, const char *wan, uint8_t proto, uint16_t sp)
{
	uint8_t b[256];
	uint32_t n;

	if (proto == 17) {
		n = udp(b, lan, wan, sp, 53);
		CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
		n = udp(b, wan, lan, 53, sp);
		CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
		return;
	}
	n = tcp(b, lan, wan, sp, 80, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	n = tcp(b, wan, lan, 80, sp, SYN | ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	n = tcp(b, lan, wan, sp, 80, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
}

/* Whether the reply of lan_conn()'s connection still passes. */
static bool
lan_conn_alive(const char *lan, const char *wan, uint8_t proto, uint16_t sp)
{
	uint8_t b[256];
	uint32_t n = proto == 17 ? udp(b, wan, lan, 53, sp) :
		tcp(b, wan, lan, 80, sp, ACK);

	return verdict(b, n, CPE_FW_WAN_LAN) == CPE_FW_ACCEPT;
}

/*
 * Early drop (evict.h): a random-source SYN flood at a pinhole with the
 * guard off (every SYN makes a state, the LAN host answers each) in a
 * table of 1024: the flood's handshakes push each other out, never a LAN
 * connection, and the LAN still opens new ones. A table full of assured
 * connections refuses the WAN's new one, not the LAN's.
 */
static void
test_early_drop(void)
{
	uint8_t b[256];
	uint32_t n, i, alive = 0, refused = 0;
	enum cpe_fw_reason r;
	char a[64];

	setup(1024);
	CHECK(cpe_fw_rule_parse("tcp/[2001:db8:1::10]:443", true,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	for (i = 0; i < 100; i++) {
		lan_conn(lan6, wan6, 6, (uint16_t)(40000 + i));
		lan_conn(lan6, wan6, 17, (uint16_t)(50000 + i));
	}
	for (i = 0; i < 20000; i++) {
		snprintf(a, sizeof(a), "2001:db8:f0:%x::%x", i >> 12,
			 (i & 0xfff) + 1);
		n = tcp(b, a, lan6, (uint16_t)(1024 + i), 443, SYN);
		r = verdict(b, n, CPE_FW_WAN_LAN);
		CHECK(r == CPE_FW_ACCEPT || r == CPE_FW_DROP_FULL);
		if (r == CPE_FW_ACCEPT) {
			n = tcp(b, lan6, a, 443, (uint16_t)(1024 + i),
				SYN | ACK);
			CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN),
				 CPE_FW_ACCEPT);
		}
		now++;
	}
	CHECK(fw.in_use <= 1024);
	CHECK(fw.st.evicted_cls[CPE_EV_EMBRYONIC_WAN] > 15000);
	CHECK_EQ(fw.st.evicted_cls[CPE_EV_EMBRYONIC_LAN] +
		 fw.st.evicted_cls[CPE_EV_ASSURED_LAN] +
		 fw.st.evicted_cls[CPE_EV_ASSURED_WAN], 0);
	CHECK_EQ(fw.st.full_refused, fw.st.drops[CPE_FW_DROP_FULL]);
	for (i = 0; i < 100; i++) {
		alive += lan_conn_alive(lan6, wan6, 6, (uint16_t)(40000 + i));
		alive += lan_conn_alive(lan6, wan6, 17, (uint16_t)(50000 + i));
	}
	CHECK_EQ(alive, 200);
	/* New LAN connections during the flood: every one made. */
	for (i = 0; i < 300; i++) {
		lan_conn(lan6, wan6, (uint8_t)(i & 1 ? 6 : 17),
			 (uint16_t)(20000 + i));
		snprintf(a, sizeof(a), "2001:db8:f1::%x", i + 1);
		n = tcp(b, a, lan6, (uint16_t)(1024 + i), 443, SYN);
		verdict(b, n, CPE_FW_WAN_LAN);
	}
	for (i = 0, alive = 0; i < 300; i++)
		alive += lan_conn_alive(lan6, wan6, (uint8_t)(i & 1 ? 6 : 17),
					(uint16_t)(20000 + i));
	CHECK_EQ(alive, 300);
	CHECK_EQ(fw.st.evicted_cls[CPE_EV_ASSURED_LAN], 0);

	/* All assured, all the LAN's: the WAN is refused, the LAN not. */
	setup(1024);
	CHECK(cpe_fw_rule_parse("tcp/[2001:db8:1::10]:443", true,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	for (i = 0; i < 4000; i++) {
		snprintf(a, sizeof(a), "2001:db8:1::%x", i + 100);
		lan_conn(a, wan6, 17, 5000);
	}
	CHECK_EQ(fw.in_use, 1024);
	for (i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "2001:db8:f2::%x", i + 1);
		n = tcp(b, a, lan6, 1024, 443, SYN);
		refused += verdict(b, n, CPE_FW_WAN_LAN) == CPE_FW_DROP_FULL;
	}
	CHECK_EQ(refused, 100);
	CHECK_EQ(fw.st.full_refused, 100);
	CHECK_EQ(cfg.rules[0].hits, 0);
	n = udp(b, lan6, wan6, 7000, 53);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	CHECK(fw.st.evicted_cls[CPE_EV_ASSURED_LAN] > 0);
	/* Unanswered UDP goes in 30 s (--udp-unreplied-timeout). */
	now += 31 * (uint64_t)HZ;
	n = udp(b, wan6, lan6, 53, 7000);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
}

/*
 * The guard in the firewall: a flood at a pinhole and at an open router
 * port, 25 a second with bursts of 50 (fw4's); the drops counted by
 * reason and by rule, a retransmitted SYN let in, the LAN untouched.
 */
static void
test_synflood(void)
{
	struct cpe_guard_cfg gc = { .on = true, .rate = 25, .burst = 50 };
	struct cpe_guard g;
	uint8_t b[256];
	uint32_t n, i, ok = 0, ok_in = 0;
	char a[64];

	setup(4096);
	CHECK_EQ(cpe_guard_init(&g, &gc, HZ, now), 0);
	fw.guard = &g;
	CHECK(cpe_fw_rule_parse("tcp/[2001:db8:1::10]:443", true,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	CHECK(cpe_fw_rule_parse("tcp/22", false,
				&cfg.rules[cfg.nb_rules++]) == NULL);
	cfg.rules[0].id = 1;
	cfg.rules[1].id = 2;
	/* 1000 SYNs in 1 s (random sources) at the pinhole. */
	for (i = 0; i < 1000; i++) {
		snprintf(a, sizeof(a), "2001:db8:f0::%x", i + 1);
		n = tcp(b, a, lan6, 40000, 443, SYN);
		ok += verdict(b, n, CPE_FW_WAN_LAN) == CPE_FW_ACCEPT;
		now++;
	}
	CHECK(ok >= 50 + 24 && ok <= 50 + 26);
	CHECK_EQ(cfg.rules[0].hits, ok);
	CHECK_EQ(cfg.rules[0].limited, 1000 - ok);
	CHECK_EQ(fw.st.drops[CPE_FW_DROP_SYNFLOOD], 1000 - ok);
	CHECK_EQ(fw.st.created, ok);
	/* The router's open port shares the bucket (the same protocol). */
	for (i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "198.51.%u.%u", 100 + i / 200,
			 i % 200 + 1);
		n = tcp(b, a, "198.51.100.2", 40000, 22, SYN);
		ok_in += verdict(b, n, CPE_FW_WAN_IN) == CPE_FW_ACCEPT;
	}
	CHECK(ok_in <= 1);
	CHECK_EQ(cfg.rules[1].limited, 100 - ok_in);
	/* A client's SYN dropped, sent again 1 s later: in. */
	n = tcp(b, wan6, lan6, 41000, 443, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_SYNFLOOD);
	now += HZ;
	for (i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "2001:db8:f1::%x", i + 1);
		n = tcp(b, a, lan6, 40000, 443, SYN);
		ok += verdict(b, n, CPE_FW_WAN_LAN) == CPE_FW_ACCEPT;
	}
	n = tcp(b, wan6, lan6, 41000, 443, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	CHECK_EQ(g.st.retried, 1);
	/* The LAN's connections are not the guard's. */
	for (i = 0; i < 200; i++)
		lan_conn(lan6, wan6, 6, (uint16_t)(30000 + i));
	/* Answers to the LAN's are not new connections either. */
	CHECK_EQ(g.st.admitted + g.st.retried, (uint64_t)ok + ok_in + 1);
	/* The guard's key from the raw packet (the budget's, fw_glue.c) is
	 * the firewall's tuple (the admission's): the same SYN to both. */
	{
		struct cpe_fw_tuple t;
		struct cpe_fw_pkt p;

		n = tcp(b, wan6, lan6, 41000, 443, SYN);
		CHECK_EQ(cpe_fw_tuple_of(b, n, &t), 0);
		CHECK_EQ(cpe_fw_parse(b, n, &p), 0);
		CHECK(memcmp(&t, &p.t, sizeof(t)) == 0);
		n = udp(b, wan4, lan4, 53, 5000);
		CHECK_EQ(cpe_fw_tuple_of(b, n, &t), 0);
		CHECK_EQ(cpe_fw_parse(b, n, &p), 0);
		CHECK(memcmp(&t, &p.t, sizeof(t)) == 0);
		CHECK_EQ(cpe_fw_tuple_of(b, 10, &t), -1);
	}
	fw.guard = NULL;
	cpe_guard_free(&g);
}

static bool
bogon(const char *s)
{
	uint8_t a[16] = { 0 };

	if (strchr(s, ':') != NULL) {
		inet_pton(AF_INET6, s, a);
	} else {
		a[10] = a[11] = 0xff;
		inet_pton(AF_INET, s, a + 12);
	}
	return cpe_fw_bogon(a);
}

static void
test_bogons(void)
{
	CHECK(bogon("127.0.0.1") && bogon("0.1.2.3") && bogon("224.0.0.5"));
	CHECK(bogon("255.255.255.255") && bogon("240.0.0.1"));
	CHECK(!bogon("198.51.100.1") && !bogon("10.0.0.1"));
	CHECK(bogon("::1") && bogon("::") && bogon("ff02::1"));
	CHECK(bogon("fec0::1") && bogon("::10.0.0.1"));
	CHECK(!bogon("2001:db8::1") && !bogon("fe80::1"));
}

static void
test_parse(void)
{
	struct cpe_fw_rule r;
	const char *bad_open[] = { "tcp/0", "tcp/70000", "icmp/1", "tcp/",
		"tcp/22-21", "tcp/22x", "22", "tcp/2-" };
	const char *bad_pin[] = { "tcp/[2001:db8::1]", "tcp/2001:db8::1:80",
		"tcp/[2001:db8::1/129]:80", "tcp/[nothing]:80",
		"udp/10.0.0.1/33:80", "tcp/[10.0.0.1]:80", "sctp/[::1]:1" };
	size_t i;

	CHECK(cpe_fw_rule_parse("tcp/22", false, &r) == NULL);
	CHECK_EQ(r.proto, 6);
	CHECK(r.lo == 22 && r.hi == 22 && !r.pinhole);
	CHECK(cpe_fw_rule_parse("udp/1-65535", false, &r) == NULL);
	CHECK(r.lo == 1 && r.hi == 65535 && r.proto == 17);
	for (i = 0; i < sizeof(bad_open) / sizeof(bad_open[0]); i++)
		CHECK(cpe_fw_rule_parse(bad_open[i], false, &r) != NULL);
	CHECK(strstr(cpe_fw_rule_parse("x", false, &r), "tcp or udp") !=
	      NULL);
	CHECK(cpe_fw_rule_parse("udp/[2001:db8::/48]:53", true, &r) ==
	      NULL);
	CHECK(r.v6 && r.plen == 48 && r.lo == 53);
	CHECK(cpe_fw_rule_parse("tcp/10.0.0.0/8:80", true, &r) == NULL);
	CHECK(!r.v6 && r.plen == 96 + 8);
	for (i = 0; i < sizeof(bad_pin) / sizeof(bad_pin[0]); i++)
		CHECK(cpe_fw_rule_parse(bad_pin[i], true, &r) != NULL);
	CHECK(strstr(cpe_fw_rule_parse("x", true, &r), "[2001:db8::10]") !=
	      NULL);
}

/* A later IPv6 fragment from the WAN has no ports: dropped, even of a
 * tracked flow (the first fragment, with the ports, passes).
 */
static void
test_fragments(void)
{
	uint8_t b[256];
	uint32_t n;

	setup(4096);
	n = udp(b, lan6, wan6, 5000, 53);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	n = ip_hdr(b, wan6, lan6, 44, 64, 16);
	memset(b + n, 0, 16);
	b[n] = 17;			/* next header: UDP */
	put16(b + n + 2, 185 << 3);	/* offset 1480, last */
	CHECK_EQ(verdict(b, n + 16, CPE_FW_WAN_LAN), CPE_FW_DROP_FRAG);
	/* The first fragment: offset 0, more follow, ports there. */
	put16(b + n + 2, 1);
	put16(b + n + 8, 53);
	put16(b + n + 10, 5000);
	CHECK_EQ(verdict(b, n + 16, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
}

static uint32_t unlinked;

static void
count_unlink(uint32_t idx, const struct cpe_fw_ct *c)
{
	(void)idx;
	(void)c;
	unlinked++;
}

static void
add_rule(const char *text, bool pinhole, int want)
{
	struct cpe_fw_rule r;

	CHECK(cpe_fw_rule_parse(text, pinhole, &r) == NULL);
	CHECK_EQ(cpe_fw_rule_add(&cfg, &r), want);
}

/*
 * Rules at run time: ids stable and never reused, duplicates and a full
 * table refused, a deleted rule's connections closed (and only those),
 * the remaining rules still matched in order.
 */
static void
test_rule_changes(void)
{
	uint8_t b[256];
	uint32_t n, in_use, i;
	const char *me6 = "2001:db8:ff::2";
	char text[32];

	setup(4096);
	fw.unlink = count_unlink;
	unlinked = 0;
	add_rule("tcp/22", false, 1);
	add_rule("tcp/[2001:db8:1::/64]:443", true, 2);
	add_rule("udp/53", false, 3);
	add_rule("tcp/22", false, -EEXIST);
	CHECK_EQ(cfg.nb_rules, 3);
	/* Two connections through rule 1, one through rule 2, one out. */
	n = tcp(b, wan6, me6, 40001, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = tcp(b, wan4, "198.51.100.2", 40002, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	n = tcp(b, wan6, lan6, 40003, 443, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	n = udp(b, lan6, wan6, 5000, 53);
	CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	CHECK_EQ(cfg.rules[0].hits, 2);
	in_use = fw.in_use;
	CHECK_EQ(in_use, 4);
	/* Deleting rule 1 closes its two connections, nothing else. */
	CHECK_EQ(cpe_fw_rule_del(&cfg, 1), 0);
	CHECK_EQ(cpe_fw_close_rule(&fw, 1), 2);
	CHECK_EQ(fw.in_use, in_use - 2);
	CHECK_EQ(unlinked, 2);
	CHECK_EQ(cpe_fw_rule_del(&cfg, 1), -ENOENT);
	CHECK_EQ(cpe_fw_rule_del(&cfg, 0), -ENOENT);
	CHECK_EQ(cfg.nb_rules, 2);
	CHECK_EQ(cfg.rules[0].id, 2);
	CHECK_EQ(cfg.rules[1].id, 3);
	/* Its port is closed again; the pinhole's flow still passes. */
	n = tcp(b, wan6, me6, 40001, 22, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_TCP_INVALID);
	n = tcp(b, wan6, me6, 40009, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_DROP_INPUT);
	n = tcp(b, wan6, lan6, 40003, 443, ACK);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	/* The same rule again: a new id, not the old one. */
	add_rule("tcp/22", false, 4);
	n = tcp(b, wan6, me6, 40009, 22, SYN);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_IN), CPE_FW_ACCEPT);
	CHECK_EQ(cfg.rules[2].hits, 1);
	/* The table holds CPE_FW_MAX_RULES. */
	for (i = cfg.nb_rules; i < CPE_FW_MAX_RULES; i++) {
		snprintf(text, sizeof(text), "udp/%u", 1000 + i);
		add_rule(text, false, (int)(cfg.next_id + 1));
	}
	add_rule("udp/999", false, -ENOSPC);
	CHECK_EQ(cfg.nb_rules, CPE_FW_MAX_RULES);
	fw.unlink = NULL;
}

/*
 * A delegated prefix withdrawn: the IPv6 connections from or to it
 * closed (their flow-cache links too), none else; the old source is a
 * stranger afterwards (a reply to it finds no state).
 */
static void
test_close_prefix(void)
{
	const char *old = "2001:db8:100::10", *new = "2001:db8:200::10";
	const char *src[] = { old, old, new, lan4 };
	const char *dst[] = { wan6, wan6, wan6, wan4 };
	uint8_t b[256], pfx[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x01, 0x00 };
	uint32_t n, i;

	setup(4096);
	fw.unlink = count_unlink;
	unlinked = 0;
	/* TCP and UDP from the old prefix, UDP from the new and IPv4. */
	for (i = 0; i < 4; i++) {
		n = i == 0 ? tcp(b, src[i], dst[i], 40001, 443, SYN) :
			udp(b, src[i], dst[i], (uint16_t)(40001 + i), 53);
		CHECK_EQ(verdict(b, n, CPE_FW_LAN_WAN), CPE_FW_ACCEPT);
	}
	CHECK_EQ(fw.in_use, 4);
	/* The /56 around the old hosts, IPv4's ::ffff: neither. */
	CHECK_EQ(cpe_fw_close_prefix(&fw, pfx, 56), 2);
	CHECK_EQ(fw.in_use, 2);
	CHECK_EQ(unlinked, 2);
	CHECK_EQ(cpe_fw_close_prefix(&fw, pfx, 56), 0);
	n = udp(b, wan6, old, 53, 40002);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_DROP_FWD_NEW);
	n = udp(b, wan6, new, 53, 40003);
	CHECK_EQ(verdict(b, n, CPE_FW_WAN_LAN), CPE_FW_ACCEPT);
	fw.unlink = NULL;
}

/* --fw-forward's parser and table: forms, ranges, overlaps, the limit. */
static void
test_forward_parse(void)
{
	struct cpe_fw_forward f;
	struct cpe_fw_cfg c;
	const char *bad[] = { "tcp/0=10.0.0.1", "tcp/80", "icmp/1=10.0.0.1",
		"tcp/80=10.0.0.1:0", "tcp/80=10.0.0.1:", "tcp/80=10.0.0",
		"tcp/80-90=10.0.0.1:65530", "tcp/80=127.0.0.1",
		"tcp/80=224.0.0.1", "tcp/80=0.0.0.1", "tcp/80=10.0.0.1:8x",
		"udp/90-80=10.0.0.1", "tcp/80=[2001:db8::1]:80",
		"tcp/80=10.0.0.1:80:81" };
	char text[32];
	size_t i;

	CHECK(cpe_fw_forward_parse("tcp/8080=192.168.1.10:80", &f) == NULL);
	CHECK(f.proto == 6 && f.lo == 8080 && f.hi == 8080 && f.to == 80);
	CHECK_EQ(f.addr, 0xc0a8010a);
	CHECK(strcmp(f.text, "tcp/8080=192.168.1.10:80") == 0);
	CHECK(cpe_fw_forward_parse("udp/5000-5010=10.0.0.2", &f) == NULL);
	CHECK(f.proto == 17 && f.lo == 5000 && f.hi == 5010 && f.to == 5000);
	CHECK(cpe_fw_forward_parse("tcp/1-10=10.0.0.2:65526", &f) == NULL);
	CHECK_EQ(f.to, 65526);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(cpe_fw_forward_parse(bad[i], &f) != NULL);
	CHECK(strstr(cpe_fw_forward_parse("x", &f), "tcp/8080=") != NULL);

	memset(&c, 0, sizeof(c));
	CHECK(cpe_fw_forward_parse("tcp/80-90=10.0.0.2", &f) == NULL);
	CHECK_EQ(cpe_fw_forward_add(&c, &f), 0);
	CHECK(cpe_fw_forward_parse("tcp/90=10.0.0.3", &f) == NULL);
	CHECK_EQ(cpe_fw_forward_add(&c, &f), -EEXIST);
	CHECK(cpe_fw_forward_parse("udp/90=10.0.0.3", &f) == NULL);
	CHECK_EQ(cpe_fw_forward_add(&c, &f), 0);
	for (i = c.nb_fwd; i < CPE_FW_MAX_FORWARDS; i++) {
		snprintf(text, sizeof(text), "tcp/%zu=10.0.0.4", 1000 + i);
		CHECK(cpe_fw_forward_parse(text, &f) == NULL);
		CHECK_EQ(cpe_fw_forward_add(&c, &f), 0);
	}
	CHECK(cpe_fw_forward_parse("tcp/2000=10.0.0.4", &f) == NULL);
	CHECK_EQ(cpe_fw_forward_add(&c, &f), -ENOSPC);
}

/* Every truncation of an ICMPv6 error parses without overreading. */
static void
test_truncated(void)
{
	uint8_t b[256], q[64];
	struct cpe_fw_pkt p;
	uint32_t n, qn, len;

	qn = tcp(q, lan6, wan6, 1, 2, SYN);
	n = icmp_err(b, wan6, lan6, 1, q, qn);
	for (len = 0; len <= n; len++) {
		uint8_t *c = dup_exact(b, len);

		if (cpe_fw_parse(c, len, &p) == 0 && p.icmp_err)
			CHECK(len >= 40 + 8 + 40 + 4);
		free(c);
	}
}

int
main(void)
{
	test_tcp(lan6, wan6);
	test_tcp(lan4, wan4);
	test_udp_icmp(lan6, wan6);
	test_udp_icmp(lan4, wan4);
	test_router();
	test_pinhole();
	test_bounded();
	test_early_drop();
	test_synflood();
	test_bogons();
	test_fragments();
	test_parse();
	test_truncated();
	test_rule_changes();
	test_close_prefix();
	test_forward_parse();
	cpe_fw_free(&fw);
	printf("test_fw: %u passed, %u failed\n", n_pass, n_fail);
	return n_fail ? 1 : 0;
}
