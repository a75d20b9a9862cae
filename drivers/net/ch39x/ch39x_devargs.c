/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Devargs of net_ch39x: every key and value checked, and every error names
 * the key and the values it takes. The keys, their parsers and their texts
 * are the rows of CH39X_DEVARGS (ch39x_devargs.h); a parser here only says
 * yes or no, and devarg_one() logs the row's allowed values. Needs
 * rte_kvargs and rte_log only, so that a fuzzer can drive it without EAL.
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

/* A value of a field of struct ch39x_args, at the row's offset. */
static void *
field_of(const struct ch39x_devarg *d, struct ch39x_args *a)
{
	return (char *)a + d->off;
}

static int
arg_sim(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	RTE_SET_USED(d);
	/* The CDC models are a CH398 in its NCM or ECM configuration. */
	if (strcmp(v, "ch398") == 0)
		a->sim.pid = CH39X_PID_CH398;
	else if (strcmp(v, "ch397") == 0)
		a->sim.pid = CH39X_PID_CH397;
	else if (strcmp(v, "ncm") == 0)
		a->sim.framing = CH39X_FRAMING_NCM;
	else if (strcmp(v, "ecm") == 0)
		a->sim.framing = CH39X_FRAMING_ECM;
	else if (strcmp(v, "rndis") == 0)
		a->sim.framing = CH39X_FRAMING_RNDIS;
	else if (strcmp(v, "mbim") == 0)
		a->sim.framing = CH39X_FRAMING_MBIM;
	else
		return -EINVAL;
	return 0;
}

/* Two words for a bool field: the first is false, the second true. */
static int
arg_bool(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a,
	 const char *no, const char *yes)
{
	bool *dst = field_of(d, a);

	if (strcmp(v, no) == 0)
		*dst = false;
	else if (strcmp(v, yes) == 0)
		*dst = true;
	else
		return -EINVAL;
	return 0;
}

static int
arg_ncm_tx_ndp(const struct ch39x_devarg *d, const char *v,
	       struct ch39x_args *a)
{
	return arg_bool(d, v, a, "front", "end");
}

/* auto|sw: true for sw. */
static int
arg_presence(const struct ch39x_devarg *d, const char *v,
	     struct ch39x_args *a)
{
	return arg_bool(d, v, a, "events", "poll");
}

static int
arg_auto_sw(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	return arg_bool(d, v, a, "auto", "sw");
}

static int
arg_sim_rate(const struct ch39x_devarg *d, const char *v,
	     struct ch39x_args *a)
{
	return arg_bool(d, v, a, "unlimited", "line");
}

/* ndp_end, ntb32_only, no_max_datagram, joined with '+'. */
/* The quirks of sim=rndis, the rest are sim=ncm's. */
#define RNDIS_QUIRKS (CH39X_SIM_RNDIS_SINGLE | CH39X_SIM_RNDIS_WIRELESS)

static int
arg_sim_quirks(const struct ch39x_devarg *d, const char *v,
	       struct ch39x_args *a)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} q[] = {
		{ "ndp_end", CH39X_SIM_NCM_NDP_END },
		{ "ntb32_only", CH39X_SIM_NCM_NTB32_ONLY },
		{ "no_max_datagram", CH39X_SIM_NCM_NO_MAX_DGRAM },
		{ "rndis_single", CH39X_SIM_RNDIS_SINGLE },
		{ "rndis_wireless", CH39X_SIM_RNDIS_WIRELESS },
	};
	uint32_t *mask = &a->sim.ncm_quirks;
	const char *p = v;
	size_t n, i;

	RTE_SET_USED(d);
	*mask = 0;
	while (*p != '\0') {
		n = strcspn(p, "+");
		for (i = 0; i < RTE_DIM(q); i++)
			if (strlen(q[i].name) == n &&
			    strncmp(p, q[i].name, n) == 0)
				break;
		if (i == RTE_DIM(q) || n == 0)
			return -EINVAL;
		*mask |= q[i].bit;
		p += n;
		if (*p == '+' && *++p == '\0')
			return -EINVAL;
	}
	return *mask != 0 ? 0 : -EINVAL;
}

/*
 * An integer in [lo, hi] into a 16- or 32-bit field: strtoul's base 0
 * (0x prefixes work), or decimal digits only for CH39X_DA_DECIMAL.
 */
static int
arg_uint(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	bool dec = (d->flags & CH39X_DA_DECIMAL) != 0;
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(v, &end, dec ? 10 : 0);
	if (errno != 0 || end == v || *end != '\0' ||
	    (dec ? !isdigit((unsigned char)v[0]) : v[0] == '-') ||
	    n < d->lo || n > d->hi)
		return -EINVAL;
	if (d->size == sizeof(uint16_t))
		*(uint16_t *)field_of(d, a) = (uint16_t)n;
	else
		*(uint32_t *)field_of(d, a) = (uint32_t)n;
	return 0;
}

/* A decimal number in [lo, hi] that ends at *end; -1 when not. */
static long
dec_in(const char *v, char **end, unsigned long lo, unsigned long hi)
{
	unsigned long n;

	if (!isdigit((unsigned char)v[0]))
		return -1;
	errno = 0;
	n = strtoul(v, end, 10);
	if (errno != 0 || n < lo || n > hi)
		return -1;
	return (long)n;
}

/* immediate, or BYTES:US: the simulated chip's RX completion policy. */
static int
arg_rx_hold(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	long bytes, us;
	char *end;

	RTE_SET_USED(d);
	if (strcmp(v, "immediate") == 0) {
		a->sim.rx_hold_bytes = 0;
		a->sim.rx_hold_us = 0;
		return 0;
	}
	bytes = dec_in(v, &end, 64, CH39X_MAX_XFER_SIZE);
	if (bytes < 0 || *end != ':')
		return -EINVAL;
	us = dec_in(end + 1, &end, 1, 1000000);
	if (us < 0 || *end != '\0')
		return -EINVAL;
	a->sim.rx_hold_bytes = (uint32_t)bytes;
	a->sim.rx_hold_us = (uint32_t)us;
	return 0;
}

static int
arg_speed(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	RTE_SET_USED(d);
	if (strcmp(v, "full") == 0)
		a->sim.speed = CH39X_SPEED_FULL;
	else if (strcmp(v, "high") == 0)
		a->sim.speed = CH39X_SPEED_HIGH;
	else if (strcmp(v, "super") == 0)
		a->sim.speed = CH39X_SPEED_SUPER;
	else
		return -EINVAL;
	return 0;
}

static int
arg_wire(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	struct ch39x_sim_config *c = &a->sim;
	size_t len = strlen(v), in_len, out_len;
	const char *colon;

	RTE_SET_USED(d);
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
	if (colon == NULL)
		return -EINVAL;
	in_len = (size_t)(colon - (v + 5));
	out_len = len - 5 - in_len - 1;
	if (in_len >= sizeof(c->pcap_in) || out_len >= sizeof(c->pcap_out) ||
	    in_len + out_len == 0)
		return -EINVAL;
	c->wire = CH39X_WIRE_PCAP;
	memcpy(c->pcap_in, v + 5, in_len);
	c->pcap_in[in_len] = '\0';
	memcpy(c->pcap_out, colon + 1, out_len + 1);
	return 0;
}

/* A multiple of the largest bulk packet. */
static int
arg_xfer_size(const struct ch39x_devarg *d, const char *v,
	      struct ch39x_args *a)
{
	if (arg_uint(d, v, a) != 0 || a->xfer_size % 1024 != 0)
		return -EINVAL;
	return 0;
}

/* 0 turns zero-copy RX off. */
static int
arg_copybreak(const struct ch39x_devarg *d, const char *v,
	      struct ch39x_args *a)
{
	if (strcmp(v, "0") == 0) {
		a->rx_copybreak = 0;
		return 0;
	}
	return arg_uint(d, v, a);
}

static int
arg_mac(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	RTE_SET_USED(d);
	if (rte_ether_unformat_addr(v, &a->mac) != 0 ||
	    !rte_is_unicast_ether_addr(&a->mac) ||
	    rte_is_zero_ether_addr(&a->mac))
		return -EINVAL;
	a->mac_set = true;
	return 0;
}

static int
arg_link_speed(const struct ch39x_devarg *d, const char *v,
	       struct ch39x_args *a)
{
	RTE_SET_USED(d);
	if (strcmp(v, "10") != 0 && strcmp(v, "100") != 0 &&
	    strcmp(v, "1000") != 0)
		return -EINVAL;
	a->sim.link_mbps = (uint32_t)atoi(v);
	return 0;
}

static int
arg_dev(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	RTE_SET_USED(d);
	if (ch39x_libusb_parse_vid_pid(v, &a->vid, &a->pid) != 0 ||
	    a->vid == 0)
		return -EINVAL;
	return 0;
}

/* A string of lo..hi characters into a char array field. */
static int
arg_string(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	size_t len = strlen(v);

	if (len < d->lo || len > d->hi || len >= d->size)
		return -EINVAL;
	memcpy(field_of(d, a), v, len + 1);
	return 0;
}

static int
arg_path(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	const char *c = v;

	/* bus-port[.port...]: digits, one '-', then dots between ports. */
	if (!isdigit((unsigned char)*c))
		return -EINVAL;
	while (isdigit((unsigned char)*c))
		c++;
	if (*c++ != '-' || !isdigit((unsigned char)*c))
		return -EINVAL;
	while (*c) {
		if (*c == '.' && isdigit((unsigned char)c[1]))
			c++;
		else if (!isdigit((unsigned char)*c))
			return -EINVAL;
		c++;
	}
	return arg_string(d, v, a);
}

static int
arg_proto(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	RTE_SET_USED(d);
	if (strcmp(v, "auto") == 0) {
		a->protos = CH39X_LIBUSB_ANY;
		return 0;
	}
	/* ch39x_libusb_parse_protos takes more (cdc, any, a+b) than we offer. */
	if (strcmp(v, "vendor") != 0 && strcmp(v, "ncm") != 0 &&
	    strcmp(v, "ecm") != 0 && strcmp(v, "rndis") != 0 &&
	    strcmp(v, "mbim") != 0)
		return -EINVAL;
	return ch39x_libusb_parse_protos(v, &a->protos) == 0 ? 0 : -EINVAL;
}

/* A word of a list: its index + 1 into a uint8_t field (0: not set). */
static int
arg_word(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a,
	 const char *const *words, unsigned int n)
{
	uint8_t *dst = field_of(d, a);
	unsigned int i;

	for (i = 0; i < n; i++)
		if (strcmp(v, words[i]) == 0) {
			*dst = (uint8_t)(i + 1);
			return 0;
		}
	return -EINVAL;
}

/* In CH39X_MBIM_AUTH_* order. */
static int
arg_auth(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	static const char *const w[] = { "none", "pap", "chap", "mschapv2" };

	return arg_word(d, v, a, w, RTE_DIM(w));
}

/* In CH39X_MBIM_IP_* order. */
static int
arg_ip_type(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	static const char *const w[] = { "default", "ipv4", "ipv6", "ipv4v6" };

	return arg_word(d, v, a, w, RTE_DIM(w));
}

static int
arg_connect(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	return arg_bool(d, v, a, "auto", "manual");
}

/* Kept as N + 1: 0 is "not given" (the default), tx_hold_us=0 is off. */
static int
arg_tx_hold(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	int rc = arg_uint(d, v, a);

	if (rc == 0)
		a->tx_hold_us1++;
	return rc;
}

/* N:APN[+N:APN...]: N 1..255 in decimal, each once; APN 1..100. */
static int
arg_sessions(const struct ch39x_devarg *d, const char *v,
	     struct ch39x_args *a)
{
	const char *p = v, *colon;
	size_t n, alen;
	unsigned long id;
	unsigned int i;
	char *end;

	RTE_SET_USED(d);
	a->nb_sessions = 0;
	for (;;) {
		if (a->nb_sessions == CH39X_MBIM_MORE_SESSIONS ||
		    !isdigit((unsigned char)*p))
			return -EINVAL;
		n = strcspn(p, "+");
		colon = memchr(p, ':', n);
		if (colon == NULL)
			return -EINVAL;
		errno = 0;
		id = strtoul(p, &end, 10);
		if (errno != 0 || end != colon || id < 1 || id > 255 ||
		    (colon - p > 1 && *p == '0'))
			return -EINVAL;
		alen = n - (size_t)(colon + 1 - p);
		if (alen < 1 || alen > CH39X_MBIM_APN_MAX)
			return -EINVAL;
		for (i = 0; i < a->nb_sessions; i++)
			if (a->session_id[i] == id)
				return -EINVAL;
		a->session_id[a->nb_sessions] = (uint8_t)id;
		memcpy(a->session_apn[a->nb_sessions], colon + 1, alen);
		a->session_apn[a->nb_sessions][alen] = '\0';
		a->nb_sessions++;
		p += n;
		if (*p == '\0')
			return 0;
		p++;	/* '+', then another item */
	}
}

/* An interface number: decimal, in the row's range; 0 is one. */
static int
arg_function(const struct ch39x_devarg *d, const char *v,
	     struct ch39x_args *a)
{
	long n;
	char *end;

	n = dec_in(v, &end, d->lo, d->hi);
	if (n < 0 || *end != '\0')
		return -EINVAL;
	a->function.set = true;
	a->function.num = (uint8_t)n;
	return 0;
}

/* restore|keep: true for keep. */
static int
arg_kernel_driver(const struct ch39x_devarg *d, const char *v,
		  struct ch39x_args *a)
{
	return arg_bool(d, v, a, "restore", "keep");
}

/* on|off: true for off (the zeroed default is on). */
static int
arg_on_off(const struct ch39x_devarg *d, const char *v, struct ch39x_args *a)
{
	return arg_bool(d, v, a, "on", "off");
}

#define ROW_(k, f, fn, min, max, fl, val, allow, dflt, hlp) { \
	.key = #k, \
	.parse = fn, \
	.off = offsetof(struct ch39x_args, f), \
	.size = sizeof(((struct ch39x_args *)NULL)->f), \
	.lo = (min), \
	.hi = (max), \
	.flags = (fl), \
	.values = val, \
	.allowed = allow, \
	.def = dflt, \
	.help = hlp, \
},

const struct ch39x_devarg ch39x_devargs[CH39X_DA_COUNT] = {
	CH39X_DEVARGS(ROW_, )
};

/* For rte_kvargs_parse. */
#define VALID_KEY_(key, ...) #key,
static const char * const valid_keys[] = {
	CH39X_DEVARGS(VALID_KEY_, ) NULL
};

/* A row and the result it fills, for rte_kvargs_process. */
struct devarg_ctx {
	const struct ch39x_devarg *d;
	struct ch39x_args *a;
};

/* Every refused value is logged with the values its key allows. */
static int
devarg_one(const char *key, const char *v, void *opaque)
{
	const struct devarg_ctx *c = opaque;

	if (c->d->parse(c->d, v, c->a) == 0)
		return 0;
	PMD_LOG(ERR, "%s=%s: allowed values are %s", key, v, c->d->allowed);
	return -EINVAL;
}

/* Keys that cannot go together, by the flags of their rows. */
static int
check_combination(const char *name, struct rte_kvargs *kv,
		  struct ch39x_args *a)
{
	const struct ch39x_devarg *d;
	unsigned int i, n = 0;

	for (i = 0; i < RTE_DIM(ch39x_devargs); i++)
		if (ch39x_devargs[i].flags & CH39X_DA_REAL)
			n += rte_kvargs_count(kv, ch39x_devargs[i].key);
	a->real = n > 0;
	for (i = 0; i < RTE_DIM(ch39x_devargs); i++) {
		d = &ch39x_devargs[i];
		if (rte_kvargs_count(kv, d->key) == 0)
			continue;
		if (a->real && (d->flags & CH39X_DA_SIM)) {
			PMD_LOG(ERR, "%s: %s describes the simulated adapter "
				"and cannot go with dev, serial or path (a real "
				"device)", name, d->key);
			return -EINVAL;
		}
		if (!a->real && (d->flags & CH39X_DA_NEEDS_REAL)) {
			PMD_LOG(ERR, "%s: %s chooses what to drive on a real "
				"device and needs dev, serial or path; the "
				"simulated adapter takes sim=ch397, ch398, ncm, "
				"ecm or mbim", name, d->key);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Every comma-separated item names a known key before its '='. rte_kvargs
 * alone is not enough: DPDK 22.11's parser takes "colour=x:y=sim_rx_hold=
 * 901:03" as sim_rx_hold=901:03 (found by tests/fuzz/fuzz_devargs.c), so a
 * typo before a valid key would be dropped without a word.
 */
/* The end of the item at s: the next ',' outside a [list], as rte_kvargs. */
static const char *
item_end(const char *s)
{
	unsigned int depth = 0;

	for (; *s != '\0'; s++) {
		if (*s == '[')
			depth++;
		else if (*s == ']' && depth > 0)
			depth--;
		else if (*s == ',' && depth == 0)
			break;
	}
	return s;
}

static int
check_keys(const char *name, const char *params)
{
	const char *item = params, *end, *eq;
	size_t len;
	unsigned int i;

	for (; *item != '\0'; item = *end ? end + 1 : end) {
		end = item_end(item);
		eq = memchr(item, '=', (size_t)(end - item));
		len = (size_t)((eq != NULL ? eq : end) - item);
		if (end == item)
			continue;	/* an empty item, as rte_kvargs skips */
		for (i = 0; valid_keys[i] != NULL; i++)
			if (strlen(valid_keys[i]) == len &&
			    strncmp(valid_keys[i], item, len) == 0)
				break;
		if (valid_keys[i] == NULL) {
			PMD_LOG(ERR, "%s: unknown devarg \"%.*s\" in \"%s\"; "
				"known keys: " CH39X_DEVARGS_KEYS, name,
				(int)len, item, params);
			return -EINVAL;
		}
	}
	return 0;
}

int
ch39x_parse_devargs(const char *name, const char *params, struct ch39x_args *a)
{
	struct devarg_ctx ctx = { .a = a };
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
	if (check_keys(name, params) != 0)
		return -EINVAL;
	kv = rte_kvargs_parse(params, valid_keys);
	if (kv == NULL) {
		PMD_LOG(ERR, "%s: cannot parse devargs \"%s\"; known keys: "
			CH39X_DEVARGS_KEYS, name, params);
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
	rc = check_combination(name, kv, a);
	/* In the table's order; the first refused value stops the parse. */
	for (i = 0; rc == 0 && i < RTE_DIM(ch39x_devargs); i++) {
		ctx.d = &ch39x_devargs[i];
		if (rte_kvargs_process(kv, ctx.d->key, devarg_one, &ctx) < 0)
			rc = -EINVAL;
	}
	rte_kvargs_free(kv);
	if (rc != 0)
		return rc;
defaults:
	if (a->sim.speed == 0)
		a->sim.speed = a->sim.pid == CH39X_PID_CH398 ?
			CH39X_SPEED_SUPER : CH39X_SPEED_HIGH;
	if ((a->sim.framing != CH39X_FRAMING_NCM &&
	     ((a->sim.ncm_quirks & ~RNDIS_QUIRKS) || a->sim.ncm_out_max ||
	      a->sim.ncm_in_max)) ||
	    (a->sim.framing != CH39X_FRAMING_RNDIS &&
	     (a->sim.ncm_quirks & RNDIS_QUIRKS))) {
		PMD_LOG(ERR, "%s describes the simulated NCM adapter (ndp_end, "
			"ntb32_only, no_max_datagram; with %s and %s: "
			"sim=ncm) or the RNDIS one (rndis_single, "
			"rndis_wireless: sim=rndis)",
			ch39x_devargs[CH39X_DA_sim_quirks].key,
			ch39x_devargs[CH39X_DA_sim_ntb_out_max].key,
			ch39x_devargs[CH39X_DA_sim_ntb_in_max].key);
		return -EINVAL;
	}
	if (!a->real && a->sim.framing != CH39X_FRAMING_MBIM &&
	    ch39x_args_mbim_set(a)) {
		PMD_LOG(ERR, "%s: apn, user, password, auth, ip_type, sessions "
			"and connect are an MBIM modem's; the simulated adapter "
			"is one with sim=mbim", name);
		return -EINVAL;
	}
	if (a->sim.framing != CH39X_FRAMING_MBIM &&
	    (a->sim.mbim_apn[0] || a->sim.mbim_user[0] ||
	     a->sim.mbim_password[0] || a->sim.mbim_max_ctrl ||
	     a->sim.mbim_register_ms)) {
		PMD_LOG(ERR, "%s, %s, %s, %s and %s describe the simulated MBIM "
			"modem; they need sim=mbim",
			ch39x_devargs[CH39X_DA_sim_apn].key,
			ch39x_devargs[CH39X_DA_sim_user].key,
			ch39x_devargs[CH39X_DA_sim_password].key,
			ch39x_devargs[CH39X_DA_sim_max_ctrl].key,
			ch39x_devargs[CH39X_DA_sim_register_ms].key);
		return -EINVAL;
	}
	if ((a->sim.framing == CH39X_FRAMING_VENDOR ||
	     a->sim.framing == CH39X_FRAMING_MBIM) && a->sim.cdc_max_segment) {
		PMD_LOG(ERR, "%s describes a simulated CDC adapter; it needs "
			"sim=ncm, sim=ecm or sim=rndis",
			ch39x_devargs[CH39X_DA_sim_max_segment].key);
		return -EINVAL;
	}
	if (a->sim.pid == CH39X_PID_CH397 && a->sim.speed == CH39X_SPEED_SUPER) {
		PMD_LOG(ERR, "usb_speed=super: the CH397 is a USB 2.0 device; "
			"allowed value for sim=ch397 is high");
		return -EINVAL;
	}
	return 0;
}

bool
ch39x_args_mbim_set(const struct ch39x_args *a)
{
	return a->apn[0] || a->user[0] || a->password[0] || a->auth ||
		a->ip_type || a->nb_sessions || a->mbim_manual ||
		a->tx_hold_us1;
}
