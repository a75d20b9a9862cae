/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Fuzz the PMD's devargs parser (ch39x_parse_devargs of
 * drivers/net/ch39x/ch39x_devargs.c) with the devargs string a user or an
 * application passes after the device name. Needs rte_kvargs and rte_log
 * only, no EAL.
 *
 * The input, with a NUL appended (an exactly sized heap copy), is the
 * devargs string. On success every value must be within the ranges of
 * doc/guides/nics/ch39x.rst, a key absent from the string must leave its
 * default, and parsing must be deterministic. A result written back as a
 * canonical devargs string must parse to the same result (as far as the
 * PMD and the simulated adapter use it).
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_log.h>

#include "ch39x_devargs.h"
#include "ch39x_libusb.h"
#include "fuzz.h"

/* The PMD registers it; here every log is silenced. */
int ch39x_logtype;

#define NAME "net_ch39x0"

static bool
nul_within(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

static void
check_args(const struct ch39x_args *a)
{
	const struct ch39x_sim_config *c = &a->sim;
	static const uint8_t zero6[6];
	uint8_t zero_serial[sizeof(c->serial)];

	FUZZ_CHECK(a->rx_xfers <= CH39X_MAX_XFERS);
	FUZZ_CHECK(a->tx_xfers <= CH39X_MAX_XFERS);
	FUZZ_CHECK(a->xfer_size == 0 ||
		   (a->xfer_size >= CH39X_MIN_XFER_SIZE &&
		    a->xfer_size <= CH39X_MAX_XFER_SIZE &&
		    a->xfer_size % 1024 == 0));
	FUZZ_CHECK(c->link_mbps == 0 || c->link_mbps == 10 ||
		   c->link_mbps == 100 || c->link_mbps == 1000);
	FUZZ_CHECK(c->pid == CH39X_PID_CH397 || c->pid == CH39X_PID_CH398);
	FUZZ_CHECK(c->speed == CH39X_SPEED_FULL ||
		   c->speed == CH39X_SPEED_HIGH ||
		   c->speed == CH39X_SPEED_SUPER);
	/* The CH397 is a USB 2.0 device. */
	if (c->pid == CH39X_PID_CH397)
		FUZZ_CHECK(c->speed != CH39X_SPEED_SUPER);
	FUZZ_CHECK(nul_within(c->pair_name, sizeof(c->pair_name)));
	FUZZ_CHECK(nul_within(c->pcap_in, sizeof(c->pcap_in)));
	FUZZ_CHECK(nul_within(c->pcap_out, sizeof(c->pcap_out)));
	FUZZ_CHECK(nul_within(c->tap_name, sizeof(c->tap_name)));
	/* The simulated CDC adapters' keys only go with their framing. */
	FUZZ_CHECK(c->framing == CH39X_FRAMING_VENDOR ||
		   c->framing == CH39X_FRAMING_NCM ||
		   c->framing == CH39X_FRAMING_ECM ||
		   c->framing == CH39X_FRAMING_RNDIS ||
		   c->framing == CH39X_FRAMING_MBIM);
	FUZZ_CHECK((c->ncm_quirks & ~(7u | CH39X_SIM_RNDIS_SINGLE |
				      CH39X_SIM_RNDIS_WIRELESS)) == 0);
	if ((c->ncm_quirks & 7u) || c->ncm_out_max || c->ncm_in_max)
		FUZZ_CHECK(c->framing == CH39X_FRAMING_NCM);
	if (c->ncm_quirks & (CH39X_SIM_RNDIS_SINGLE | CH39X_SIM_RNDIS_WIRELESS))
		FUZZ_CHECK(c->framing == CH39X_FRAMING_RNDIS);
	FUZZ_CHECK(c->ncm_out_max == 0 ||
		   (c->ncm_out_max >= 2048 && c->ncm_out_max <= 65535));
	FUZZ_CHECK(c->ncm_in_max == 0 ||
		   (c->ncm_in_max >= 2048 && c->ncm_in_max <= 65535));
	FUZZ_CHECK(c->cdc_max_segment == 0 ||
		   (c->framing != CH39X_FRAMING_VENDOR &&
		    c->framing != CH39X_FRAMING_MBIM &&
		    c->cdc_max_segment >= 1514 && c->cdc_max_segment <= 9216));
	/* The simulated modem's keys: with sim=mbim, in their ranges. */
	FUZZ_CHECK(nul_within(c->mbim_apn, sizeof(c->mbim_apn)));
	FUZZ_CHECK(nul_within(c->mbim_user, sizeof(c->mbim_user)));
	FUZZ_CHECK(nul_within(c->mbim_password, sizeof(c->mbim_password)));
	if (c->mbim_apn[0] || c->mbim_user[0] || c->mbim_password[0] ||
	    c->mbim_max_ctrl || c->mbim_register_ms)
		FUZZ_CHECK(c->framing == CH39X_FRAMING_MBIM);
	FUZZ_CHECK(c->mbim_max_ctrl == 0 ||
		   (c->mbim_max_ctrl >= 64 && c->mbim_max_ctrl <= 4096));
	FUZZ_CHECK(c->mbim_register_ms <= 600000);
	/* An MBIM port's keys: a real device, or sim=mbim. */
	FUZZ_CHECK(nul_within(a->apn, sizeof(a->apn)));
	FUZZ_CHECK(nul_within(a->user, sizeof(a->user)));
	FUZZ_CHECK(nul_within(a->password, sizeof(a->password)));
	FUZZ_CHECK(a->auth <= 4 && a->ip_type <= 4);
	FUZZ_CHECK(a->nb_sessions <= CH39X_MBIM_MORE_SESSIONS);
	for (unsigned int i = 0; i < a->nb_sessions; i++) {
		size_t l = strnlen(a->session_apn[i],
				   sizeof(a->session_apn[i]));

		FUZZ_CHECK(a->session_id[i] >= 1);
		FUZZ_CHECK(l >= 1 && l <= CH39X_MBIM_APN_MAX);
		FUZZ_CHECK(strchr(a->session_apn[i], '+') == NULL);
		for (unsigned int j = 0; j < i; j++)
			FUZZ_CHECK(a->session_id[j] != a->session_id[i]);
	}
	if (ch39x_args_mbim_set(a) && !a->real)
		FUZZ_CHECK(c->framing == CH39X_FRAMING_MBIM);
	switch (c->wire) {
	case CH39X_WIRE_LOOP:
		break;
	case CH39X_WIRE_PAIR:
		/* 1..63 characters. */
		FUZZ_CHECK(c->pair_name[0] != '\0');
		break;
	case CH39X_WIRE_PCAP:
		/* Either file may be empty, not both. */
		FUZZ_CHECK(c->pcap_in[0] != '\0' || c->pcap_out[0] != '\0');
		break;
	case CH39X_WIRE_TAP:
		/* 1..15 characters. */
		FUZZ_CHECK(c->tap_name[0] != '\0');
		break;
	default:
		FUZZ_CHECK(false);
	}
	FUZZ_CHECK(a->rx_copybreak == 0 ||
		   (a->rx_copybreak >= CH39X_MIN_FRAME &&
		    a->rx_copybreak <= CH39X_V02_MAX_FRAME));
	FUZZ_CHECK(c->ctrl_fail_at <= 1000);
	if (a->mac_set)
		FUZZ_CHECK(rte_is_unicast_ether_addr(&a->mac) &&
			   !rte_is_zero_ether_addr(&a->mac));
	else
		FUZZ_CHECK(rte_is_zero_ether_addr(&a->mac));
	/* Not devargs: left zero. */
	FUZZ_CHECK(memcmp(c->mac, zero6, 6) == 0);
	memset(zero_serial, 0, sizeof(zero_serial));
	FUZZ_CHECK(memcmp(c->serial, zero_serial, sizeof(zero_serial)) == 0);
}

/* A key that does not occur in the string leaves its default. */
static void
check_absent(const char *s, const struct ch39x_args *a)
{
	if (strstr(s, "sim") == NULL)
		FUZZ_CHECK(a->sim.pid == CH39X_PID_CH398);
	if (strstr(s, "usb_speed") == NULL)
		FUZZ_CHECK(a->sim.speed == (a->sim.pid == CH39X_PID_CH398 ?
					    CH39X_SPEED_SUPER :
					    CH39X_SPEED_HIGH));
	if (strstr(s, "wire") == NULL)
		FUZZ_CHECK(a->sim.wire == CH39X_WIRE_LOOP &&
			   a->sim.pair_name[0] == '\0' &&
			   a->sim.pcap_in[0] == '\0' &&
			   a->sim.pcap_out[0] == '\0');
	if (strstr(s, "mac") == NULL)
		FUZZ_CHECK(!a->mac_set);
	if (strstr(s, "rx_xfers") == NULL)
		FUZZ_CHECK(a->rx_xfers == 0);
	if (strstr(s, "tx_xfers") == NULL)
		FUZZ_CHECK(a->tx_xfers == 0);
	if (strstr(s, "xfer_size") == NULL)
		FUZZ_CHECK(a->xfer_size == 0);
	if (strstr(s, "tso") == NULL)
		FUZZ_CHECK(!a->tso_sw);
	if (strstr(s, "rx_csum") == NULL)
		FUZZ_CHECK(!a->rx_csum_sw);
	if (strstr(s, "link_speed") == NULL)
		FUZZ_CHECK(a->sim.link_mbps == 0);
	if (strstr(s, "sim_rate") == NULL)
		FUZZ_CHECK(a->sim.line_rate);
	if (strstr(s, "rx_copybreak") == NULL)
		FUZZ_CHECK(a->rx_copybreak == 0);
	if (strstr(s, "sim_ctrl_fail") == NULL)
		FUZZ_CHECK(a->sim.ctrl_fail_at == 0);
	if (strstr(s, "sim_quirks") == NULL)
		FUZZ_CHECK(a->sim.ncm_quirks == 0);
	if (strstr(s, "sim_ntb_out_max") == NULL)
		FUZZ_CHECK(a->sim.ncm_out_max == 0);
	if (strstr(s, "sim_ntb_in_max") == NULL)
		FUZZ_CHECK(a->sim.ncm_in_max == 0);
	if (strstr(s, "sim_max_segment") == NULL)
		FUZZ_CHECK(a->sim.cdc_max_segment == 0);
	if (strstr(s, "ncm_tx_ndp") == NULL)
		FUZZ_CHECK(!a->ncm_ndp_end);
	if (strstr(s, "sim") == NULL)
		FUZZ_CHECK(a->sim.framing == CH39X_FRAMING_VENDOR);
}

/*
 * The same from the devargs table, so that a key added to it is covered:
 * the field a key sets keeps the value of a parse without devargs while the
 * key does not occur. usb_speed's default follows sim.
 */
static void
check_absent_table(const char *s, const struct ch39x_args *a,
		   const struct ch39x_args *defaults)
{
	const struct ch39x_devarg *d;
	unsigned int i;

	for (i = 0; i < CH39X_DA_COUNT; i++) {
		d = &ch39x_devargs[i];
		if (i == CH39X_DA_usb_speed || strstr(s, d->key) != NULL)
			continue;
		FUZZ_CHECK(memcmp((const char *)a + d->off,
				  (const char *)defaults + d->off,
				  d->size) == 0);
	}
}

/*
 * What the driver uses of a result: strings up to their NUL, and the name
 * of the wire kind chosen. A repeated key leaves bytes past the NUL, and
 * a repeated wire= key the names of an earlier kind, behind, unused.
 */
static void
normalise(struct ch39x_args *a)
{
	struct ch39x_sim_config *c = &a->sim;
	size_t n;

	n = strnlen(c->pair_name, sizeof(c->pair_name));
	memset(c->pair_name + n, 0, sizeof(c->pair_name) - n);
	n = strnlen(c->pcap_in, sizeof(c->pcap_in));
	memset(c->pcap_in + n, 0, sizeof(c->pcap_in) - n);
	n = strnlen(c->pcap_out, sizeof(c->pcap_out));
	memset(c->pcap_out + n, 0, sizeof(c->pcap_out) - n);
	n = strnlen(c->tap_name, sizeof(c->tap_name));
	memset(c->tap_name + n, 0, sizeof(c->tap_name) - n);
	n = strnlen(a->serial, sizeof(a->serial));
	memset(a->serial + n, 0, sizeof(a->serial) - n);
	n = strnlen(a->path, sizeof(a->path));
	memset(a->path + n, 0, sizeof(a->path) - n);
	n = strnlen(c->mbim_apn, sizeof(c->mbim_apn));
	memset(c->mbim_apn + n, 0, sizeof(c->mbim_apn) - n);
	n = strnlen(c->mbim_user, sizeof(c->mbim_user));
	memset(c->mbim_user + n, 0, sizeof(c->mbim_user) - n);
	n = strnlen(c->mbim_password, sizeof(c->mbim_password));
	memset(c->mbim_password + n, 0, sizeof(c->mbim_password) - n);
	n = strnlen(a->apn, sizeof(a->apn));
	memset(a->apn + n, 0, sizeof(a->apn) - n);
	n = strnlen(a->user, sizeof(a->user));
	memset(a->user + n, 0, sizeof(a->user) - n);
	n = strnlen(a->password, sizeof(a->password));
	memset(a->password + n, 0, sizeof(a->password) - n);
	for (unsigned int i = 0; i < CH39X_MBIM_MORE_SESSIONS; i++) {
		n = i < a->nb_sessions ? strnlen(a->session_apn[i],
						 sizeof(a->session_apn[i])) : 0;
		memset(a->session_apn[i] + n, 0, sizeof(a->session_apn[i]) - n);
		if (i >= a->nb_sessions)
			a->session_id[i] = 0;
	}
	if (c->wire != CH39X_WIRE_PAIR)
		memset(c->pair_name, 0, sizeof(c->pair_name));
	if (c->wire != CH39X_WIRE_PCAP) {
		memset(c->pcap_in, 0, sizeof(c->pcap_in));
		memset(c->pcap_out, 0, sizeof(c->pcap_out));
	}
	if (c->wire != CH39X_WIRE_TAP)
		memset(c->tap_name, 0, sizeof(c->tap_name));
}

/* Characters rte_kvargs treats specially in a value. */
static bool
plain(const char *s)
{
	return strpbrk(s, ",=[]") == NULL;
}

/* The MBIM port's keys, as format_args() writes them back. */
static int
format_mbim(const struct ch39x_args *a, char *buf, size_t cap)
{
	static const char * const auth[] = { "", "none", "pap", "chap",
					     "mschapv2" };
	static const char * const ipt[] = { "", "default", "ipv4", "ipv6",
					    "ipv4v6" };
	int n = 0;
	unsigned int i;

	if (a->apn[0])
		n += snprintf(buf + n, cap - n, ",apn=%s", a->apn);
	if (a->user[0])
		n += snprintf(buf + n, cap - n, ",user=%s", a->user);
	if (a->password[0])
		n += snprintf(buf + n, cap - n, ",password=%s", a->password);
	if (a->auth)
		n += snprintf(buf + n, cap - n, ",auth=%s", auth[a->auth]);
	if (a->ip_type)
		n += snprintf(buf + n, cap - n, ",ip_type=%s", ipt[a->ip_type]);
	if (a->mbim_manual)
		n += snprintf(buf + n, cap - n, ",connect=manual");
	for (i = 0; i < a->nb_sessions; i++)
		n += snprintf(buf + n, cap - n, "%s%u:%s",
			      i ? "+" : ",sessions=", a->session_id[i],
			      a->session_apn[i]);
	return n;
}

static bool
plain_sessions(const struct ch39x_args *a)
{
	unsigned int i;

	for (i = 0; i < a->nb_sessions; i++)
		if (!plain(a->session_apn[i]))
			return false;
	return true;
}

/* The keys a real and a simulated adapter both take. */
static int
format_common(const struct ch39x_args *a, char *buf, size_t cap)
{
	return snprintf(buf, cap, "%s%s", a->reconnect_off ? ",reconnect=off" :
			"", a->presence_poll ? ",presence=poll" : "");
}

/* Write a result back as a devargs string with every key. */
static int
format_args(const struct ch39x_args *a, char *buf, size_t cap)
{
	const struct ch39x_sim_config *c = &a->sim;
	static const char * const speeds[] = { "?", "full", "high", "super" };
	char wire[8 + 2 * CH39X_SIM_PATH_MAX], mac[32] = "";
	int n;

	if (c->wire == CH39X_WIRE_PAIR)
		snprintf(wire, sizeof(wire), "pair:%s", c->pair_name);
	else if (c->wire == CH39X_WIRE_PCAP)
		snprintf(wire, sizeof(wire), "pcap:%s:%s", c->pcap_in,
			 c->pcap_out);
	else if (c->wire == CH39X_WIRE_TAP)
		snprintf(wire, sizeof(wire), "tap:%s", c->tap_name);
	else
		snprintf(wire, sizeof(wire), "loop");
	if (a->mac_set)
		snprintf(mac, sizeof(mac), ",mac=" RTE_ETHER_ADDR_PRT_FMT,
			 RTE_ETHER_ADDR_BYTES(&a->mac));
	if (a->real) {
		/* A real device: its selectors instead of the simulator's keys. */
		n = snprintf(buf, cap, "tso=%s,rx_csum=%s,rx_copybreak=%u%s",
			     a->tso_sw ? "sw" : "auto",
			     a->rx_csum_sw ? "sw" : "auto", a->rx_copybreak,
			     mac);
		if (a->vid && a->pid)
			n += snprintf(buf + n, cap - n, ",dev=%04x:%04x",
				      a->vid, a->pid);
		else if (a->vid)
			n += snprintf(buf + n, cap - n, ",dev=%04x:*", a->vid);
		if (a->serial[0])
			n += snprintf(buf + n, cap - n, ",serial=%s", a->serial);
		if (a->path[0])
			n += snprintf(buf + n, cap - n, ",path=%s", a->path);
		if (a->protos == CH39X_LIBUSB_ANY)
			n += snprintf(buf + n, cap - n, ",proto=auto");
		else if (a->protos == CH39X_LIBUSB_VENDOR)
			n += snprintf(buf + n, cap - n, ",proto=vendor");
		else if (a->protos == CH39X_LIBUSB_NCM)
			n += snprintf(buf + n, cap - n, ",proto=ncm");
		else if (a->protos == CH39X_LIBUSB_ECM)
			n += snprintf(buf + n, cap - n, ",proto=ecm");
		else if (a->protos == CH39X_LIBUSB_MBIM)
			n += snprintf(buf + n, cap - n, ",proto=mbim");
		if (a->rx_xfers)
			n += snprintf(buf + n, cap - n, ",rx_xfers=%u",
				      a->rx_xfers);
		if (a->tx_xfers)
			n += snprintf(buf + n, cap - n, ",tx_xfers=%u",
				      a->tx_xfers);
		if (a->xfer_size)
			n += snprintf(buf + n, cap - n, ",xfer_size=%u",
				      a->xfer_size);
		if (a->ncm_ndp_end)
			n += snprintf(buf + n, cap - n, ",ncm_tx_ndp=end");
		if (a->function.set)
			n += snprintf(buf + n, cap - n, ",function=%u",
				      a->function.num);
		if (a->kernel_driver_keep)
			n += snprintf(buf + n, cap - n, ",kernel_driver=keep");
		n += format_mbim(a, buf + n, cap - n);
		return n + format_common(a, buf + n, cap - n);
	}
	n = snprintf(buf, cap, "sim=%s,usb_speed=%s,wire=%s%s,tso=%s,"
		     "rx_csum=%s,sim_rate=%s,rx_copybreak=%u",
		     c->pid == CH39X_PID_CH397 ? "ch397" : "ch398",
		     speeds[c->speed], wire, mac, a->tso_sw ? "sw" : "auto",
		     a->rx_csum_sw ? "sw" : "auto",
		     c->line_rate ? "line" : "unlimited", a->rx_copybreak);
	if (a->rx_xfers)
		n += snprintf(buf + n, cap - n, ",rx_xfers=%u", a->rx_xfers);
	if (a->tx_xfers)
		n += snprintf(buf + n, cap - n, ",tx_xfers=0x%x", a->tx_xfers);
	if (a->xfer_size)
		n += snprintf(buf + n, cap - n, ",xfer_size=%u", a->xfer_size);
	if (c->link_mbps)
		n += snprintf(buf + n, cap - n, ",link_speed=%u", c->link_mbps);
	if (c->ctrl_fail_at)
		n += snprintf(buf + n, cap - n, ",sim_ctrl_fail=%u",
			      c->ctrl_fail_at);
	/* After sim=ch39X, which leaves the framing as it is. */
	if (c->framing != CH39X_FRAMING_VENDOR)
		n += snprintf(buf + n, cap - n, ",sim=%s",
			      c->framing == CH39X_FRAMING_NCM ? "ncm" :
			      c->framing == CH39X_FRAMING_MBIM ? "mbim" :
			      c->framing == CH39X_FRAMING_RNDIS ? "rndis" :
			      "ecm");
	if (c->mbim_apn[0])
		n += snprintf(buf + n, cap - n, ",sim_apn=%s", c->mbim_apn);
	if (c->mbim_user[0])
		n += snprintf(buf + n, cap - n, ",sim_user=%s", c->mbim_user);
	if (c->mbim_password[0])
		n += snprintf(buf + n, cap - n, ",sim_password=%s",
			      c->mbim_password);
	if (c->mbim_max_ctrl)
		n += snprintf(buf + n, cap - n, ",sim_max_ctrl=%u",
			      c->mbim_max_ctrl);
	if (c->mbim_register_ms)
		n += snprintf(buf + n, cap - n, ",sim_register_ms=%u",
			      c->mbim_register_ms);
	if (c->ncm_quirks) {
		static const struct {
			uint32_t bit;
			const char *name;
		} q[] = {
			{ CH39X_SIM_NCM_NDP_END, "ndp_end" },
			{ CH39X_SIM_NCM_NTB32_ONLY, "ntb32_only" },
			{ CH39X_SIM_NCM_NO_MAX_DGRAM, "no_max_datagram" },
			{ CH39X_SIM_RNDIS_SINGLE, "rndis_single" },
			{ CH39X_SIM_RNDIS_WIRELESS, "rndis_wireless" },
		};
		const char *sep = ",sim_quirks=";
		unsigned int i;

		for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			if (!(c->ncm_quirks & q[i].bit))
				continue;
			n += snprintf(buf + n, cap - n, "%s%s", sep,
				      q[i].name);
			sep = "+";
		}
	}
	if (c->ncm_out_max)
		n += snprintf(buf + n, cap - n, ",sim_ntb_out_max=%u",
			      c->ncm_out_max);
	if (c->ncm_in_max)
		n += snprintf(buf + n, cap - n, ",sim_ntb_in_max=%u",
			      c->ncm_in_max);
	if (c->cdc_max_segment)
		n += snprintf(buf + n, cap - n, ",sim_max_segment=%u",
			      c->cdc_max_segment);
	if (c->rx_hold_bytes)
		n += snprintf(buf + n, cap - n, ",sim_rx_hold=%u:%u",
			      c->rx_hold_bytes, c->rx_hold_us);
	if (a->ncm_ndp_end)
		n += snprintf(buf + n, cap - n, ",ncm_tx_ndp=end");
	n += format_mbim(a, buf + n, cap - n);
	return n + format_common(a, buf + n, cap - n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ch39x_args defaults;
	static bool init;
	struct ch39x_args *a, *b;
	char *s, *canon;
	size_t cap;
	int r;

	if (!init) {
		rte_log_set_global_level(RTE_LOG_EMERG);
		FUZZ_CHECK(ch39x_parse_devargs(NAME, NULL, &defaults) == 0);
		init = true;
	}
	s = malloc(size + 1);
	a = malloc(sizeof(*a));
	b = malloc(sizeof(*b));
	FUZZ_CHECK(s != NULL && a != NULL && b != NULL);
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';

	memset(a, 0xA5, sizeof(*a));
	r = ch39x_parse_devargs(NAME, s, a);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	/* Deterministic, whatever the struct held before. */
	memset(b, 0x5A, sizeof(*b));
	FUZZ_CHECK(ch39x_parse_devargs(NAME, s, b) == r);
	if (r == 0) {
		FUZZ_CHECK(memcmp(a, b, sizeof(*a)) == 0);
		check_args(a);
		check_absent(s, a);
		check_absent_table(s, a, &defaults);
		/* Written back, it parses to the same. */
		if (plain(a->sim.pair_name) && plain(a->sim.pcap_in) &&
		    plain(a->sim.pcap_out) && plain(a->sim.tap_name) &&
		    plain(a->serial) && plain(a->sim.mbim_apn) &&
		    plain(a->sim.mbim_user) && plain(a->sim.mbim_password) &&
		    plain(a->apn) && plain(a->user) && plain(a->password) &&
		    plain_sessions(a)) {
			cap = 2048 + 2 * CH39X_SIM_PATH_MAX;
			canon = malloc(cap);
			FUZZ_CHECK(canon != NULL);
			FUZZ_CHECK(format_args(a, canon, cap) < (int)cap);
			memset(b, 0x5A, sizeof(*b));
			FUZZ_CHECK(ch39x_parse_devargs(NAME, canon, b) == 0);
			normalise(a);
			normalise(b);
			FUZZ_CHECK(memcmp(a, b, sizeof(*a)) == 0);
			free(canon);
		}
	}
	/* No devargs at all: the defaults. */
	if (size == 0) {
		FUZZ_CHECK(r == 0);
		FUZZ_CHECK(ch39x_parse_devargs(NAME, NULL, b) == 0);
		FUZZ_CHECK(memcmp(a, b, sizeof(*a)) == 0);
		FUZZ_CHECK(b->sim.pid == CH39X_PID_CH398 &&
			   b->sim.speed == CH39X_SPEED_SUPER &&
			   b->sim.wire == CH39X_WIRE_LOOP && b->sim.line_rate);
	}
	free(b);
	free(a);
	free(s);
	return 0;
}
