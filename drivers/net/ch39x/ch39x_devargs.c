/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Devargs of net_ch39x: every key and value checked, and every error names
 * the key and the values it takes. Needs rte_kvargs and rte_log only, so
 * that a fuzzer can drive it without EAL.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "ch39x_devargs.h"
#include "ch39x_libusb.h"
#include "ch39x_logs.h"
#include "ch39x_ncm.h"

#define ARG_SIM		"sim"
#define ARG_USB_SPEED	"usb_speed"
#define ARG_WIRE	"wire"
#define ARG_MAC		"mac"
#define ARG_RX_XFERS	"rx_xfers"
#define ARG_TX_XFERS	"tx_xfers"
#define ARG_XFER_SIZE	"xfer_size"
#define ARG_TSO		"tso"
#define ARG_RX_CSUM	"rx_csum"
#define ARG_LINK_SPEED	"link_speed"
#define ARG_SIM_RATE	"sim_rate"
#define ARG_RX_COPYBREAK "rx_copybreak"
#define ARG_SIM_CTRL_FAIL "sim_ctrl_fail"
#define ARG_DEV		"dev"
#define ARG_SERIAL	"serial"
#define ARG_PATH	"path"
#define ARG_PROTO	"proto"
#define ARG_NCM_TX_NDP	"ncm_tx_ndp"
#define ARG_SIM_QUIRKS	"sim_quirks"
#define ARG_SIM_NTB_OUT_MAX "sim_ntb_out_max"
#define ARG_SIM_MAX_SEGMENT "sim_max_segment"

/* Keys that describe the simulated adapter, meaningless for a real one. */
static const char * const sim_only_args[] = {
	ARG_SIM, ARG_USB_SPEED, ARG_WIRE, ARG_LINK_SPEED, ARG_SIM_RATE,
	ARG_SIM_CTRL_FAIL, ARG_SIM_QUIRKS, ARG_SIM_NTB_OUT_MAX,
	ARG_SIM_MAX_SEGMENT, NULL
};

static const char * const valid_args[] = {
	ARG_SIM, ARG_USB_SPEED, ARG_WIRE, ARG_MAC, ARG_RX_XFERS, ARG_TX_XFERS,
	ARG_XFER_SIZE, ARG_TSO, ARG_RX_CSUM, ARG_LINK_SPEED, ARG_SIM_RATE,
	ARG_RX_COPYBREAK, ARG_SIM_CTRL_FAIL, ARG_DEV, ARG_SERIAL, ARG_PATH,
	ARG_PROTO, ARG_NCM_TX_NDP, ARG_SIM_QUIRKS, ARG_SIM_NTB_OUT_MAX,
	ARG_SIM_MAX_SEGMENT, NULL
};


static int
arg_sim(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	/* The CDC models are a CH398 in its NCM or ECM configuration. */
	if (strcmp(v, "ch398") == 0)
		a->sim.pid = CH39X_PID_CH398;
	else if (strcmp(v, "ch397") == 0)
		a->sim.pid = CH39X_PID_CH397;
	else if (strcmp(v, "ncm") == 0)
		a->sim.framing = CH39X_FRAMING_NCM;
	else if (strcmp(v, "ecm") == 0)
		a->sim.framing = CH39X_FRAMING_ECM;
	else {
		PMD_LOG(ERR, "%s=%s: allowed values are ch397, ch398, ncm, ecm",
			key, v);
		return -EINVAL;
	}
	return 0;
}

static int
arg_ncm_tx_ndp(const char *key, const char *v, void *opaque)
{
	bool *end = opaque;

	if (strcmp(v, "front") == 0)
		*end = false;
	else if (strcmp(v, "end") == 0)
		*end = true;
	else {
		PMD_LOG(ERR, "%s=%s: allowed values are front, end", key, v);
		return -EINVAL;
	}
	return 0;
}

/* ndp_end, ntb32_only, no_max_datagram, joined with '+'. */
static int
arg_sim_quirks(const char *key, const char *v, void *opaque)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} q[] = {
		{ "ndp_end", CH39X_SIM_NCM_NDP_END },
		{ "ntb32_only", CH39X_SIM_NCM_NTB32_ONLY },
		{ "no_max_datagram", CH39X_SIM_NCM_NO_MAX_DGRAM },
	};
	uint32_t *mask = opaque;
	const char *p = v;
	size_t n, i;

	*mask = 0;
	while (*p != '\0') {
		n = strcspn(p, "+");
		for (i = 0; i < RTE_DIM(q); i++)
			if (strlen(q[i].name) == n &&
			    strncmp(p, q[i].name, n) == 0)
				break;
		if (i == RTE_DIM(q) || n == 0)
			goto bad;
		*mask |= q[i].bit;
		p += n;
		if (*p == '+' && *++p == '\0')
			goto bad;
	}
	if (*mask != 0)
		return 0;
bad:
	PMD_LOG(ERR, "%s=%s: allowed values are ndp_end, ntb32_only, "
		"no_max_datagram, or several joined with '+'", key, v);
	return -EINVAL;
}

/* A decimal in [lo, hi]; the range is in the error message. */
static int
arg_range(const char *key, const char *v, uint32_t lo, uint32_t hi,
	  uint32_t *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || !isdigit((unsigned char)*v) ||
	    x < lo || x > hi) {
		PMD_LOG(ERR, "%s=%s: allowed values are %u..%u", key, v, lo, hi);
		return -EINVAL;
	}
	*out = (uint32_t)x;
	return 0;
}

static int
arg_ntb_out_max(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	return arg_range(key, v, CH39X_NCM_NTB_MIN_SIZE, 65535, &a->sim.ncm_out_max);
}

static int
arg_max_segment(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;
	uint32_t x;
	int rc = arg_range(key, v, 1514, 9216, &x);

	a->sim.cdc_max_segment = (uint16_t)x;
	return rc;
}

static int
arg_speed(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	if (strcmp(v, "full") == 0)
		a->sim.speed = CH39X_SPEED_FULL;
	else if (strcmp(v, "high") == 0)
		a->sim.speed = CH39X_SPEED_HIGH;
	else if (strcmp(v, "super") == 0)
		a->sim.speed = CH39X_SPEED_SUPER;
	else {
		PMD_LOG(ERR, "%s=%s: allowed values are full, high, super",
			key, v);
		return -EINVAL;
	}
	return 0;
}

static int
arg_wire(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;
	struct ch39x_sim_config *c = &a->sim;
	size_t len = strlen(v), in_len, out_len;
	const char *colon;

	if (strcmp(v, "loop") == 0) {
		c->wire = CH39X_WIRE_LOOP;
		return 0;
	}
	if (strncmp(v, "pair:", 5) == 0 && len > 5 &&
	    len - 5 < sizeof(c->pair_name)) {
		c->wire = CH39X_WIRE_PAIR;
		memcpy(c->pair_name, v + 5, len - 5 + 1);
		return 0;
	}
	if (strncmp(v, "tap:", 4) == 0 && len > 4 &&
	    len - 4 < sizeof(c->tap_name)) {
		c->wire = CH39X_WIRE_TAP;
		memcpy(c->tap_name, v + 4, len - 4 + 1);
		return 0;
	}
	colon = strncmp(v, "pcap:", 5) == 0 ? strchr(v + 5, ':') : NULL;
	if (colon != NULL) {
		in_len = (size_t)(colon - (v + 5));
		out_len = len - 5 - in_len - 1;
		if (in_len < sizeof(c->pcap_in) &&
		    out_len < sizeof(c->pcap_out) && in_len + out_len > 0) {
			c->wire = CH39X_WIRE_PCAP;
			memcpy(c->pcap_in, v + 5, in_len);
			c->pcap_in[in_len] = '\0';
			memcpy(c->pcap_out, colon + 1, out_len + 1);
			return 0;
		}
	}
	PMD_LOG(ERR, "%s=%s: allowed values are loop, pair:NAME, "
		"pcap:IN.pcap:OUT.pcap (either file may be empty, not both), "
		"tap:IFNAME (1..15 characters)", key, v);
	return -EINVAL;
}

static int
parse_uint(const char *key, const char *v, unsigned long min,
	   unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(v, &end, 0);
	if (errno != 0 || end == v || *end != '\0' || v[0] == '-' ||
	    n < min || n > max) {
		PMD_LOG(ERR, "%s=%s: allowed values are integers %lu..%lu",
			key, v, min, max);
		return -EINVAL;
	}
	*out = n;
	return 0;
}

static int
arg_xfers(const char *key, const char *v, void *opaque)
{
	uint16_t *dst = opaque;
	unsigned long n;

	if (parse_uint(key, v, 1, CH39X_MAX_XFERS, &n) != 0)
		return -EINVAL;
	*dst = (uint16_t)n;
	return 0;
}

static int
arg_xfer_size(const char *key, const char *v, void *opaque)
{
	uint32_t *dst = opaque;
	unsigned long n;

	if (parse_uint(key, v, CH39X_MIN_XFER_SIZE, CH39X_MAX_XFER_SIZE,
		       &n) != 0)
		return -EINVAL;
	if (n % 1024 != 0) {
		PMD_LOG(ERR, "%s=%s: must be a multiple of 1024 (the largest "
			"bulk packet)", key, v);
		return -EINVAL;
	}
	*dst = (uint32_t)n;
	return 0;
}

static int
arg_copybreak(const char *key, const char *v, void *opaque)
{
	uint32_t *dst = opaque;
	unsigned long n;

	if (strcmp(v, "0") == 0) {
		*dst = 0;
		return 0;
	}
	if (parse_uint(key, v, CH39X_MIN_FRAME, CH39X_V02_MAX_FRAME, &n) != 0) {
		PMD_LOG(ERR, "%s=%s: 0 turns zero-copy RX off", key, v);
		return -EINVAL;
	}
	*dst = (uint32_t)n;
	return 0;
}

static int
arg_ctrl_fail(const char *key, const char *v, void *opaque)
{
	uint32_t *dst = opaque;
	unsigned long n;

	if (parse_uint(key, v, 1, 1000, &n) != 0)
		return -EINVAL;
	*dst = (uint32_t)n;
	return 0;
}

static int
arg_mac(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	if (rte_ether_unformat_addr(v, &a->mac) != 0 ||
	    !rte_is_unicast_ether_addr(&a->mac) ||
	    rte_is_zero_ether_addr(&a->mac)) {
		PMD_LOG(ERR, "%s=%s: allowed values are unicast addresses "
			"XX:XX:XX:XX:XX:XX", key, v);
		return -EINVAL;
	}
	a->mac_set = true;
	return 0;
}

static int
arg_link_speed(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	if (strcmp(v, "10") == 0 || strcmp(v, "100") == 0 ||
	    strcmp(v, "1000") == 0) {
		a->sim.link_mbps = (uint32_t)atoi(v);
		return 0;
	}
	PMD_LOG(ERR, "%s=%s: allowed values are 10, 100, 1000 (Mbit/s)",
		key, v);
	return -EINVAL;
}

static int
arg_sim_rate(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	if (strcmp(v, "line") == 0)
		a->sim.line_rate = true;
	else if (strcmp(v, "unlimited") == 0)
		a->sim.line_rate = false;
	else {
		PMD_LOG(ERR, "%s=%s: allowed values are line, unlimited",
			key, v);
		return -EINVAL;
	}
	return 0;
}

static int
arg_dev(const char *key, const char *v, void *opaque)
{
	struct ch39x_args *a = opaque;

	if (ch39x_libusb_parse_vid_pid(v, &a->vid, &a->pid) != 0 ||
	    a->vid == 0) {
		PMD_LOG(ERR, "%s=%s: allowed values are VID:PID in hex, e.g. "
			"1a86:5398 (PID may be *)", key, v);
		return -EINVAL;
	}
	return 0;
}

static int
arg_string(const char *key, const char *v, void *opaque)
{
	char *dst = opaque;

	if (v[0] == '\0' || strlen(v) >= CH39X_ARG_STR_MAX) {
		PMD_LOG(ERR, "%s=%s: allowed values are 1..%u characters",
			key, v, CH39X_ARG_STR_MAX - 1);
		return -EINVAL;
	}
	strcpy(dst, v);
	return 0;
}

static int
arg_path(const char *key, const char *v, void *opaque)
{
	const char *c = v;

	/* bus-port[.port...]: digits, one '-', then dots between ports. */
	if (!isdigit((unsigned char)*c))
		goto bad;
	while (isdigit((unsigned char)*c))
		c++;
	if (*c++ != '-' || !isdigit((unsigned char)*c))
		goto bad;
	while (*c) {
		if (*c == '.' && isdigit((unsigned char)c[1]))
			c++;
		else if (!isdigit((unsigned char)*c))
			goto bad;
		c++;
	}
	return arg_string(key, v, opaque);
bad:
	PMD_LOG(ERR, "%s=%s: allowed values are BUS-PORT[.PORT...], e.g. 2-1.4 "
		"(see /sys/bus/usb/devices)", key, v);
	return -EINVAL;
}

static int
arg_proto(const char *key, const char *v, void *opaque)
{
	unsigned int *mask = opaque;

	if (strcmp(v, "auto") == 0) {
		*mask = CH39X_LIBUSB_ANY;
		return 0;
	}
	if (strcmp(v, "vendor") == 0 || strcmp(v, "ncm") == 0 ||
	    strcmp(v, "ecm") == 0)
		return ch39x_libusb_parse_protos(v, mask) == 0 ? 0 : -EINVAL;
	PMD_LOG(ERR, "%s=%s: allowed values are auto, vendor, ncm, ecm", key, v);
	return -EINVAL;
}

/* auto|sw: true for sw. */
static int
arg_auto_sw(const char *key, const char *v, void *opaque)
{
	bool *sw = opaque;

	if (strcmp(v, "auto") == 0)
		*sw = false;
	else if (strcmp(v, "sw") == 0)
		*sw = true;
	else {
		PMD_LOG(ERR, "%s=%s: allowed values are auto, sw", key, v);
		return -EINVAL;
	}
	return 0;
}

int
ch39x_parse_devargs(const char *name, const char *params, struct ch39x_args *a)
{
	struct rte_kvargs *kv;
	unsigned int i;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	a->sim.pid = CH39X_PID_CH398;
	a->sim.wire = CH39X_WIRE_LOOP;
	/* Realistic timing by default: the simulated adapter is a product. */
	a->sim.line_rate = true;
	if (params == NULL || params[0] == '\0')
		goto defaults;
	kv = rte_kvargs_parse(params, valid_args);
	if (kv == NULL) {
		PMD_LOG(ERR, "%s: cannot parse devargs \"%s\"; known keys: "
			"sim, usb_speed, wire, mac, rx_xfers, tx_xfers, "
			"xfer_size, tso, rx_csum, link_speed, sim_rate, "
			"rx_copybreak, sim_ctrl_fail, dev, serial, path, proto, "
			"ncm_tx_ndp, sim_quirks, sim_ntb_out_max, "
			"sim_max_segment",
			name, params);
		return -EINVAL;
	}
	/* DPDK takes "key" alone as a key with no value: refuse it here. */
	for (i = 0; i < kv->count; i++) {
		if (kv->pairs[i].value == NULL) {
			PMD_LOG(ERR, "%s: devarg %s needs a value (%s=...)",
				name, kv->pairs[i].key, kv->pairs[i].key);
			rte_kvargs_free(kv);
			return -EINVAL;
		}
	}
	a->real = rte_kvargs_count(kv, ARG_DEV) + rte_kvargs_count(kv, ARG_SERIAL) +
		rte_kvargs_count(kv, ARG_PATH) > 0;
	for (i = 0; a->real && sim_only_args[i] != NULL; i++) {
		if (rte_kvargs_count(kv, sim_only_args[i]) > 0) {
			PMD_LOG(ERR, "%s: %s describes the simulated adapter and "
				"cannot go with dev, serial or path (a real "
				"device)", name, sim_only_args[i]);
			rte_kvargs_free(kv);
			return -EINVAL;
		}
	}
	if (!a->real && rte_kvargs_count(kv, ARG_PROTO) > 0) {
		PMD_LOG(ERR, "%s: proto chooses what to drive on a real device "
			"and needs dev, serial or path; the simulated adapter "
			"takes sim=ch397, ch398, ncm or ecm", name);
		rte_kvargs_free(kv);
		return -EINVAL;
	}
	if (rte_kvargs_process(kv, ARG_DEV, arg_dev, a) < 0 ||
	    rte_kvargs_process(kv, ARG_SERIAL, arg_string, a->serial) < 0 ||
	    rte_kvargs_process(kv, ARG_PATH, arg_path, a->path) < 0 ||
	    rte_kvargs_process(kv, ARG_PROTO, arg_proto, &a->protos) < 0 ||
	    rte_kvargs_process(kv, ARG_SIM, arg_sim, a) < 0 ||
	    rte_kvargs_process(kv, ARG_USB_SPEED, arg_speed, a) < 0 ||
	    rte_kvargs_process(kv, ARG_WIRE, arg_wire, a) < 0 ||
	    rte_kvargs_process(kv, ARG_MAC, arg_mac, a) < 0 ||
	    rte_kvargs_process(kv, ARG_RX_XFERS, arg_xfers, &a->rx_xfers) < 0 ||
	    rte_kvargs_process(kv, ARG_TX_XFERS, arg_xfers, &a->tx_xfers) < 0 ||
	    rte_kvargs_process(kv, ARG_XFER_SIZE, arg_xfer_size,
			       &a->xfer_size) < 0 ||
	    rte_kvargs_process(kv, ARG_TSO, arg_auto_sw, &a->tso_sw) < 0 ||
	    rte_kvargs_process(kv, ARG_RX_CSUM, arg_auto_sw, &a->rx_csum_sw) < 0 ||
	    rte_kvargs_process(kv, ARG_LINK_SPEED, arg_link_speed, a) < 0 ||
	    rte_kvargs_process(kv, ARG_SIM_RATE, arg_sim_rate, a) < 0 ||
	    rte_kvargs_process(kv, ARG_RX_COPYBREAK, arg_copybreak,
			       &a->rx_copybreak) < 0 ||
	    rte_kvargs_process(kv, ARG_SIM_CTRL_FAIL, arg_ctrl_fail,
			       &a->sim.ctrl_fail_at) < 0 ||
	    rte_kvargs_process(kv, ARG_NCM_TX_NDP, arg_ncm_tx_ndp,
			       &a->ncm_ndp_end) < 0 ||
	    rte_kvargs_process(kv, ARG_SIM_QUIRKS, arg_sim_quirks,
			       &a->sim.ncm_quirks) < 0 ||
	    rte_kvargs_process(kv, ARG_SIM_NTB_OUT_MAX, arg_ntb_out_max, a) < 0 ||
	    rte_kvargs_process(kv, ARG_SIM_MAX_SEGMENT, arg_max_segment, a) < 0)
		rc = -EINVAL;
	rte_kvargs_free(kv);
	if (rc != 0)
		return rc;
defaults:
	if (a->sim.speed == 0)
		a->sim.speed = a->sim.pid == CH39X_PID_CH398 ?
			CH39X_SPEED_SUPER : CH39X_SPEED_HIGH;
	if (a->sim.framing != CH39X_FRAMING_NCM &&
	    (a->sim.ncm_quirks || a->sim.ncm_out_max)) {
		PMD_LOG(ERR, "%s and %s describe the simulated NCM adapter; "
			"they need sim=ncm", ARG_SIM_QUIRKS, ARG_SIM_NTB_OUT_MAX);
		return -EINVAL;
	}
	if (a->sim.framing == CH39X_FRAMING_VENDOR && a->sim.cdc_max_segment) {
		PMD_LOG(ERR, "%s describes a simulated CDC adapter; it needs "
			"sim=ncm or sim=ecm", ARG_SIM_MAX_SEGMENT);
		return -EINVAL;
	}
	if (a->sim.pid == CH39X_PID_CH397 && a->sim.speed == CH39X_SPEED_SUPER) {
		PMD_LOG(ERR, "usb_speed=super: the CH397 is a USB 2.0 device; "
			"allowed value for sim=ch397 is high");
		return -EINVAL;
	}
	return 0;
}
