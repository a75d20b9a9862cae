/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

/*
 * Command line of ch39x-perf: the options after EAL's "--". They are parsed
 * before EAL starts, so that --help and bad values need no ports; what
 * depends on the ports (MTU limits, offloads, how many exist) is checked in
 * ports.c. Every error names the option and the values it allows.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static const char * const mode_names[] = {
	[PERF_TXONLY] = "txonly",
	[PERF_RXONLY] = "rxonly",
	[PERF_IO] = "io",
	[PERF_TCP] = "tcp",
};

const char *
perf_mode_name(enum perf_mode m)
{
	return mode_names[m];
}

void
perf_usage(FILE *f, const char *prog)
{
	fprintf(f,
"Usage: %s [EAL options] -- [options]\n"
"\n"
"Measures throughput and efficiency on DPDK ports (any PMD), with the USB\n"
"transfer figures of net_ch39x ports. Example, two simulated CH398s cabled\n"
"together:\n"
"  %s --no-huge --no-pci -m 512 -d /path/librte_net_ch39x.so \\\n"
"    --vdev net_ch39x0,wire=pair:a --vdev net_ch39x1,wire=pair:a \\\n"
"    -- --mode tcp --mtu 9000 --tso-mss 8960 --duration 5 --json\n"
"\n"
"Options:\n"
"  --mode MODE        txonly: send UDP frames on every port;\n"
"                     rxonly: count what every port receives;\n"
"                     io: forward port A <-> port B both ways, started\n"
"                         with --tx-first bursts on each;\n"
"                     tcp: one TCP bulk stream from port A to port B,\n"
"                         TCP payload received on B is the goodput.\n"
"                     Default txonly. io and tcp need two ports.\n"
"  --frame-size N     L2 frame length in bytes, FCS excluded, %u..%u\n"
"                     (default %u; in tcp mode: the full segment, so the\n"
"                     MSS is N - 54). The port must accept it.\n"
"  --mtu N            port MTU (L3 bytes), 68..%u, set on every port with\n"
"                     rte_eth_dev_set_mtu (default 1500, or frame-size - 14\n"
"                     when that is larger). Without --frame-size, frames\n"
"                     are full size: MTU + 14 (tcp: MSS = MTU - 40).\n"
"  --burst N          packets per rx/tx burst, 1..%u (default %u)\n"
"  --duration S       seconds to measure, more than 0, at most %.0f\n"
"                     (default %.0f; %.0f when only --packets is given)\n"
"  --packets N        stop after N packets: sent (txonly, tcp sender) or\n"
"                     received (rxonly, io, tcp), 1..2^63\n"
"  --tso              tcp: hand TSO super-frames to port A\n"
"                     (RTE_MBUF_F_TX_TCP_SEG) with MSS = MTU - 40\n"
"  --tso-mss N        tcp: TSO with tso_segsz N, 1..MTU-40 (1460 at MTU\n"
"                     1500). A port without RTE_ETH_TX_OFFLOAD_TCP_TSO\n"
"                     gets N-byte segments instead, with a warning.\n"
"  --tso-size N       tcp: longest super-frame in bytes, headers included,\n"
"                     54+MSS..%u. Its payload is the largest multiple of\n"
"                     the MSS that fits. Default %u (one 16 KiB CH398 bulk\n"
"                     OUT transfer, which the chip segments itself) for an\n"
"                     MSS up to 2047; above, the chip cannot segment and\n"
"                     the default is the largest.\n"
"  --tcp-window N     tcp: payload bytes in flight at most, 1..1073741824\n"
"                     (default %u). Segments received count as\n"
"                     acknowledged; there are no ACK frames.\n"
"  --tx-first N       io: bursts sent on each port to start, 0..64 (default\n"
"                     %u)\n"
"  --mbuf-size N      mbuf data room, 256..%u (default %u); longer frames\n"
"                     use scattered RX and multi-segment mbufs\n"
"  --ports A,B        port ids to use (default: all; io and tcp: the first\n"
"                     two). In tcp mode A sends and B receives.\n"
"  --latency          io, tcp: stamp each frame with the TSC when it is\n"
"                     queued for TX (io: again when forwarded) and report\n"
"                     the time to rx_burst returning it: min, mean, p50,\n"
"                     p99, max in microseconds (JSON latency_us_*, null\n"
"                     without --latency). Both ports share one TSC.\n"
"  --json             print one JSON object with the results on stdout\n"
"  --help             this text\n"
"\n"
"Figures: l2 = frame bytes without FCS; l1 adds 8 (preamble+SFD) + 4 (FCS)\n"
"+ 12 (inter-frame gap) per frame, runts counted as 60; goodput = TCP/UDP\n"
"payload; efficiency_pct = payload / L1 bytes. They count received frames\n"
"(rxonly, io, tcp) or sent ones (txonly). USB figures come from the ch39x\n"
"xstats of the ports used (JSON null for other PMDs): transfers both ways,\n"
"frames per transfer and USB bytes per frame, TSO super-frames counted as\n"
"the frames they make on the wire. Cycles per packet: the TSC spent in\n"
"rx_burst/tx_burst calls, empty polls included, divided by the packets they\n"
"moved (the *_busy figures count only calls that moved packets). drops:\n"
"tcp: segments sent but not received; other modes: the ports' RX misses,\n"
"RX errors, RX mbuf failures and TX errors. Progress goes to stderr once a\n"
"second; with --json, stdout holds only the JSON object.\n",
		prog, prog, PERF_MIN_FRAME, PERF_MAX_FRAME, PERF_DEF_FRAME,
		PERF_MAX_FRAME - 14, PERF_MAX_BURST, PERF_DEF_BURST,
		PERF_MAX_DURATION, PERF_DEF_DURATION, PERF_MAX_DURATION,
		PERF_TSO_MAX_FRAME, PERF_DEF_TSO_SIZE, PERF_DEF_TCP_WINDOW,
		PERF_DEF_TX_FIRST,
		PERF_MAX_DATA_ROOM, PERF_DEF_DATA_ROOM);
}

static int
bad(const char *opt, const char *val, const char *allowed)
{
	fprintf(stderr, "ch39x-perf: %s %s: allowed values are %s "
		"(see --help)\n", opt, val, allowed);
	return -EINVAL;
}

static int
parse_u64(const char *opt, const char *v, uint64_t min, uint64_t max,
	  uint64_t *out)
{
	char allowed[96];
	unsigned long long n;
	char *end;

	snprintf(allowed, sizeof(allowed), "integers %llu..%llu",
		 (unsigned long long)min, (unsigned long long)max);
	if (v[0] < '0' || v[0] > '9')
		return bad(opt, v, allowed);
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < min || n > max)
		return bad(opt, v, allowed);
	*out = n;
	return 0;
}

static int
parse_u32(const char *opt, const char *v, uint32_t min, uint32_t max,
	  uint32_t *out)
{
	uint64_t n;
	int rc = parse_u64(opt, v, min, max, &n);

	if (rc == 0)
		*out = (uint32_t)n;
	return rc;
}

static int
parse_duration(const char *opt, const char *v, double *out)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno != 0 || end == v || *end != '\0' || !isfinite(d) ||
	    d <= 0 || d > PERF_MAX_DURATION)
		return bad(opt, v, "seconds, more than 0 and at most 3600");
	*out = d;
	return 0;
}

static int
parse_mode(const char *opt, const char *v, enum perf_mode *m)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(mode_names); i++) {
		if (strcmp(v, mode_names[i]) == 0) {
			*m = (enum perf_mode)i;
			return 0;
		}
	}
	return bad(opt, v, "txonly, rxonly, io, tcp");
}

static int
parse_ports(const char *opt, const char *v, struct perf_opts *o)
{
	char allowed[80], *copy, *tok, *end, *save = NULL;
	unsigned long long id;
	bool ok = true;
	uint16_t i;

	snprintf(allowed, sizeof(allowed), "comma-separated port ids "
		 "0..%u, each once", PERF_MAX_PORTS - 1);
	if (v[0] == '\0' || v[strlen(v) - 1] == ',' || strstr(v, ",,") ||
	    v[0] == ',')
		return bad(opt, v, allowed);
	copy = strdup(v);
	if (copy == NULL)
		return -ENOMEM;
	o->nb_ports = 0;
	for (tok = strtok_r(copy, ",", &save); ok && tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		errno = 0;
		id = strtoull(tok, &end, 10);
		ok = tok[0] >= '0' && tok[0] <= '9' && *end == '\0' &&
			errno == 0 && id < PERF_MAX_PORTS;
		for (i = 0; ok && i < o->nb_ports; i++)
			ok = o->ports[i] != id;
		if (ok)
			o->ports[o->nb_ports++] = (uint16_t)id;
	}
	free(copy);
	if (!ok || o->nb_ports == 0)
		return bad(opt, v, allowed);
	return 0;
}

/* Checks between options that need no port. */
static int
cross_check(struct perf_opts *o)
{
	uint32_t mtu, mss;

	if (o->mode != PERF_TCP && (o->tso || o->tso_size || o->tcp_window)) {
		fprintf(stderr, "ch39x-perf: --tso, --tso-mss, --tso-size and "
			"--tcp-window are for --mode tcp only (--mode is %s)\n",
			perf_mode_name(o->mode));
		return -EINVAL;
	}
	if (o->latency && o->mode != PERF_IO && o->mode != PERF_TCP) {
		fprintf(stderr, "ch39x-perf: --latency is for --mode io and "
			"--mode tcp, which receive what they send (--mode is "
			"%s)\n", perf_mode_name(o->mode));
		return -EINVAL;
	}
	if (o->mode != PERF_IO && o->tx_first >= 0) {
		fprintf(stderr, "ch39x-perf: --tx-first is for --mode io only "
			"(--mode is %s)\n", perf_mode_name(o->mode));
		return -EINVAL;
	}
	if (o->mode == PERF_TCP && o->tso_size && !o->tso) {
		fprintf(stderr, "ch39x-perf: --tso-size needs --tso or "
			"--tso-mss\n");
		return -EINVAL;
	}
	if (o->frame_size && o->mtu && o->frame_size > o->mtu + 14) {
		fprintf(stderr, "ch39x-perf: --frame-size %u: longer than "
			"--mtu %u allows; allowed values are %u..%u (MTU + 14 "
			"bytes of Ethernet header)\n", o->frame_size, o->mtu,
			PERF_MIN_FRAME, o->mtu + 14);
		return -EINVAL;
	}
	if (o->mode != PERF_TCP)
		return 0;
	mtu = o->mtu ? o->mtu : PERF_DEF_MTU;
	if (!o->mtu && o->frame_size > PERF_DEF_MTU + 14)
		mtu = o->frame_size - 14;
	if (o->tso_mss && o->tso_mss + PERF_IP_TCP_HDRS > mtu) {
		fprintf(stderr, "ch39x-perf: --tso-mss %u: allowed values are "
			"1..%u (MTU %u - 40 bytes of IPv4 and TCP headers)\n",
			o->tso_mss, mtu - PERF_IP_TCP_HDRS, mtu);
		return -EINVAL;
	}
	mss = o->tso_mss ? o->tso_mss :
		o->frame_size ? o->frame_size - PERF_TCP_HDRS :
		mtu - PERF_IP_TCP_HDRS;
	if (o->latency && mss < PERF_LAT_STAMP_LEN) {
		fprintf(stderr, "ch39x-perf: --latency needs an MSS of at "
			"least %u bytes for its stamp (MSS is %u)\n",
			PERF_LAT_STAMP_LEN, mss);
		return -EINVAL;
	}
	if (o->tso_size && o->tso_size < PERF_TCP_HDRS + mss) {
		fprintf(stderr, "ch39x-perf: --tso-size %u: allowed values are "
			"%u..%u (at least one %u-byte segment and 54 bytes of "
			"headers)\n", o->tso_size, PERF_TCP_HDRS + mss,
			PERF_TSO_MAX_FRAME, mss);
		return -EINVAL;
	}
	return 0;
}

/*
 * Parse the application's options (argv[0] is the program name). Returns
 * 0, 1 after --help, or a negative errno after printing why.
 */
int
perf_opts_parse(int argc, char **argv, struct perf_opts *o)
{
	char opt[32];
	const char *arg, *val, *eq;
	uint32_t u32 = 0;
	uint64_t u64 = 0;
	int i, rc;

	memset(o, 0, sizeof(*o));
	o->mode = PERF_TXONLY;
	o->burst = PERF_DEF_BURST;
	o->tx_first = -1;
	for (i = 1; i < argc; i++) {
		arg = argv[i];
		if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
			return 1;
		if (strcmp(arg, "--json") == 0) {
			o->json = true;
			continue;
		}
		if (strcmp(arg, "--tso") == 0) {
			o->tso = true;
			continue;
		}
		if (strcmp(arg, "--latency") == 0) {
			o->latency = true;
			continue;
		}
		if (strncmp(arg, "--", 2) != 0) {
			fprintf(stderr, "ch39x-perf: unexpected argument '%s' "
				"(options start with --; see --help)\n", arg);
			return -EINVAL;
		}
		eq = strchr(arg, '=');
		if (eq != NULL) {
			snprintf(opt, sizeof(opt), "%.*s", (int)(eq - arg), arg);
			val = eq + 1;
		} else {
			snprintf(opt, sizeof(opt), "%s", arg);
			val = NULL;
		}
#define IS(name) (strcmp(opt, name) == 0)
		if (!(IS("--mode") || IS("--frame-size") || IS("--mtu") ||
		      IS("--burst") || IS("--duration") || IS("--packets") ||
		      IS("--tso-mss") || IS("--tso-size") || IS("--ports") ||
		      IS("--tx-first") || IS("--mbuf-size") ||
		      IS("--tcp-window"))) {
			fprintf(stderr, "ch39x-perf: unknown option '%s'; "
				"options are --mode, --frame-size, --mtu, "
				"--burst, --duration, --packets, --tso, "
				"--tso-mss, --tso-size, --tcp-window, "
				"--tx-first, --mbuf-size, --ports, --latency, "
				"--json, --help\n", arg);
			return -EINVAL;
		}
		if (val == NULL) {
			if (i + 1 >= argc) {
				fprintf(stderr, "ch39x-perf: %s needs a value "
					"(see --help)\n", opt);
				return -EINVAL;
			}
			val = argv[++i];
		}
		if (IS("--mode")) {
			rc = parse_mode(opt, val, &o->mode);
		} else if (IS("--frame-size")) {
			rc = parse_u32(opt, val, PERF_MIN_FRAME,
				       PERF_MAX_FRAME, &o->frame_size);
		} else if (IS("--mtu")) {
			rc = parse_u32(opt, val, RTE_ETHER_MIN_MTU,
				       PERF_MAX_FRAME - 14, &o->mtu);
		} else if (IS("--burst")) {
			rc = parse_u32(opt, val, 1, PERF_MAX_BURST, &u32);
			o->burst = (uint16_t)u32;
		} else if (IS("--duration")) {
			rc = parse_duration(opt, val, &o->duration);
		} else if (IS("--packets")) {
			rc = parse_u64(opt, val, 1, (uint64_t)INT64_MAX,
				       &o->packets);
		} else if (IS("--tso-mss")) {
			rc = parse_u32(opt, val, 1, PERF_MAX_FRAME -
				       PERF_TCP_HDRS, &o->tso_mss);
			o->tso = true;
		} else if (IS("--tso-size")) {
			rc = parse_u32(opt, val, PERF_TCP_HDRS + 1,
				       PERF_TSO_MAX_FRAME, &o->tso_size);
		} else if (IS("--tcp-window")) {
			rc = parse_u32(opt, val, 1, 1u << 30, &o->tcp_window);
		} else if (IS("--tx-first")) {
			rc = parse_u64(opt, val, 0, 64, &u64);
			o->tx_first = (int)u64;
		} else if (IS("--mbuf-size")) {
			rc = parse_u32(opt, val, 256, PERF_MAX_DATA_ROOM,
				       &o->data_room);
		} else {
			rc = parse_ports(opt, val, o);
		}
#undef IS
		if (rc != 0)
			return rc;
	}
	return cross_check(o);
}
