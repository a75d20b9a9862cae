/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_DEVARGS_H
#define CH39X_DEVARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "ch39x_mbim.h"
#include "ch39x_sim.h"

#define CH39X_ARG_STR_MAX	64
/* MBIM sessions besides session 0 that sessions= may name. */
#define CH39X_MBIM_MORE_SESSIONS	7
/*
 * The most transfers a queue keeps (rx_xfers, tx_xfers). Each is usbfs
 * memory, counted in pages against usbcore.usbfs_memory_mb (16 MiB by
 * default, shared by every usbfs user): 256 of them are 1 MiB of 2 KiB
 * ECM transfers, 8 MiB of 32 KiB CH398 ones.
 */
#define CH39X_MAX_XFERS		256
#define CH39X_MIN_XFER_SIZE	2048
#define CH39X_MAX_XFER_SIZE	(1u << 20)

/* An interface number given by a devarg (0 is one). */
struct ch39x_arg_if {
	bool set;
	uint8_t num;
};

/* Devargs, validated at probe. */
struct ch39x_args {
	struct ch39x_sim_config sim;
	uint16_t rx_xfers;		/* 0: the chip's default */
	uint16_t tx_xfers;
	uint32_t xfer_size;
	bool mac_set;
	struct rte_ether_addr mac;
	bool tso_sw;			/* tso=sw */
	uint32_t rx_copybreak;		/* rx_copybreak=N */
	bool rx_csum_sw;		/* rx_csum=sw */
	/* A real adapter through libusb: dev=, serial=, path=, proto=. */
	bool real;
	uint16_t vid;
	uint16_t pid;
	char serial[CH39X_ARG_STR_MAX];
	char path[CH39X_ARG_STR_MAX];
	unsigned int protos;		/* CH39X_LIBUSB_* mask; 0: any */
	struct ch39x_arg_if function;	/* function=N */
	bool kernel_driver_keep;	/* kernel_driver=keep */
	bool ncm_ndp_end;		/* ncm_tx_ndp=end */
	bool reconnect_off;		/* reconnect=off */
	bool presence_poll;		/* presence=poll */
	/* MBIM modems (sim=mbim, or a real MBIM function). */
	char apn[CH39X_MBIM_APN_MAX + 1];
	char user[CH39X_ARG_STR_MAX];
	char password[CH39X_ARG_STR_MAX];
	uint8_t auth;			/* CH39X_MBIM_AUTH_* + 1; 0: not set */
	uint8_t ip_type;		/* CH39X_MBIM_IP_* + 1; 0: not set */
	bool mbim_manual;		/* connect=manual */
	uint32_t tx_hold_us1;		/* tx_hold_us=N as N + 1; 0: not set */
	/* sessions=N:APN[+N:APN...]: further sessions, VLAN N each. */
	uint8_t nb_sessions;
	uint8_t session_id[CH39X_MBIM_MORE_SESSIONS];
	char session_apn[CH39X_MBIM_MORE_SESSIONS][CH39X_MBIM_APN_MAX + 1];
};

/*
 * The devargs, one row each, in the order the PMD's parameter string lists
 * them. Everything said about a key is said here: the parser, the PMD's
 * parameter string (CH39X_PMD_PARAMS), the validation messages and the
 * README table (build/tests/ch39x-devargs --markdown) are made from it, and
 * the unit test unit_devargs_doc checks both docs against it. Rows are
 * processed in this order; the first refused value fails the parse.
 *
 * X(key, field, parse, lo, hi, flags, values, allowed, default, help)
 *   key      the key, as a C identifier
 *   field    the member of struct ch39x_args the key sets
 *   parse    its parser in ch39x_devargs.c
 *   lo, hi   the range of a number, or of a string's length; 0, 0: none
 *   flags    CH39X_DA_*
 *   values   the allowed values in the parameter string's syntax
 *   allowed  the allowed values in words: errors and docs name them
 *   default  what an absent key means (markdown)
 *   help     what the key does (markdown)
 * SEP goes between rows: the parameter string needs no trailing blank.
 */
#define CH39X_DEVARGS(X, SEP) \
	X(sim, sim.pid, arg_sim, 0, 0, CH39X_DA_SIM, \
	  "ch397|ch398|ncm|ecm|rndis|mbim", \
	  "ch397, ch398, ncm, ecm, rndis, mbim", \
	  "`ch398`", \
	  "Which chip the simulated adapter is; `ncm`/`ecm`: a CH398 posing " \
	  "as a standard CDC-NCM or CDC-ECM adapter; `rndis`: an RNDIS " \
	  "function (a phone's USB tethering, an LTE dongle); `mbim`: an " \
	  "LTE/5G modem's MBIM function whose cable is the operator's " \
	  "network.") SEP \
	X(usb_speed, sim.speed, arg_speed, 0, 0, CH39X_DA_SIM, \
	  "full|high|super", \
	  "full, high, super", \
	  "`super` for ch398, `high` for ch397", \
	  "USB bus speed; `sim=ch397` takes `full` or `high` (USB 2.0 " \
	  "part).") SEP \
	X(wire, sim.wire, arg_wire, 0, 0, CH39X_DA_SIM, \
	  "loop|pair:<name>|pcap:<in.pcap>:<out.pcap>|tap:<ifname>", \
	  "loop, pair:NAME (1..63 characters), pcap:IN.pcap:OUT.pcap " \
	  "(either file may be empty, not both; 255 characters each at " \
	  "most), tap:IFNAME (1..15 characters)", \
	  "`loop`", \
	  "The cable. `loop`: what the port sends comes back. `pair:NAME`: " \
	  "the two ports with the same NAME in one process are cabled " \
	  "together; a third fails to probe. `pcap:IN:OUT`: frames of IN " \
	  "are received, frames sent are written to OUT. `tap:IFNAME`: the " \
	  "far end is a Linux TAP interface (created when absent; needs " \
	  "CAP_NET_ADMIN), so a real Linux host is on the cable.") SEP \
	X(mac, mac, arg_mac, 0, 0, 0, \
	  "<xx:xx:xx:xx:xx:xx>", \
	  "unicast addresses XX:XX:XX:XX:XX:XX, not all zero", \
	  "the adapter's own address", \
	  "Written to the adapter at probe.") SEP \
	X(rx_xfers, rx_xfers, arg_uint, 1, CH39X_MAX_XFERS, 0, \
	  "<1-256>", \
	  "integers 1..256", \
	  "16 (CH398 SuperSpeed, NCM), 10 (CH398 high speed, CH397), " \
	  "128 (ECM)", \
	  "Bulk IN transfers kept in flight (the RX ring).") SEP \
	X(tx_xfers, tx_xfers, arg_uint, 1, CH39X_MAX_XFERS, 0, \
	  "<1-256>", \
	  "integers 1..256", \
	  "10 (CH398, CH397), 32 (NCM), 128 (ECM)", \
	  "Bulk OUT transfers (the TX ring).") SEP \
	X(xfer_size, xfer_size, arg_xfer_size, CH39X_MIN_XFER_SIZE, \
	  CH39X_MAX_XFER_SIZE, 0, \
	  "<2048-1048576, a multiple of 1024>", \
	  "integers 2048..1048576, a multiple of 1024 (the largest bulk " \
	  "packet)", \
	  "RX 32768 / TX 16384 (CH398), RX 16384 / TX 4096 (CH397)", \
	  "Bulk IN transfer size. The TX size becomes the chip's, or less " \
	  "when `xfer_size` is smaller, but never below one longest " \
	  "record.") SEP \
	X(tso, tso_sw, arg_auto_sw, 0, 0, 0, \
	  "auto|sw", \
	  "auto, sw", \
	  "`auto`", \
	  "`sw`: segment every TSO request in software, also on a CH398.") SEP \
	X(rx_csum, rx_csum_sw, arg_auto_sw, 0, 0, 0, \
	  "auto|sw", \
	  "auto, sw", \
	  "`auto`", \
	  "`sw`: check RX checksums in software when an RX checksum offload " \
	  "is on (and offer it on the CH397).") SEP \
	X(link_speed, sim.link_mbps, arg_link_speed, 0, 0, CH39X_DA_SIM, \
	  "10|100|1000", \
	  "10, 100, 1000 (Mbit/s)", \
	  "1000 (CH398), 100 (CH397)", \
	  "Speed of the simulated cable, in Mbit/s (the fastest the far " \
	  "end takes; the link runs at what autonegotiation or the " \
	  "port's `link_speeds` make of it); the CH397 rejects 1000.") SEP \
	X(sim_rate, sim.line_rate, arg_sim_rate, 0, 0, CH39X_DA_SIM, \
	  "line|unlimited", \
	  "line, unlimited", \
	  "`line`", \
	  "`line`: the simulated adapter keeps wire and USB bus timing; " \
	  "`unlimited`: as fast as the CPU goes.") SEP \
	X(sim_rx_hold, sim.rx_hold_bytes, arg_rx_hold, 0, 0, CH39X_DA_SIM, \
	  "immediate|<bytes>:<us>", \
	  "immediate, or BYTES:US with BYTES 64..1048576 and US " \
	  "1..1000000 (decimal), e.g. 12288:200", \
	  "`immediate`", \
	  "RX completion policy of the simulated CH397/CH398: `immediate` " \
	  "ends a bulk IN transfer as soon as no more frames have " \
	  "arrived; `BYTES:US` holds it until it carries BYTES bytes, US " \
	  "microseconds after its first frame, or is full (V1.7's unused " \
	  "defaults are 12288:200).") SEP \
	X(rx_copybreak, rx_copybreak, arg_copybreak, CH39X_MIN_FRAME, \
	  CH39X_V02_MAX_FRAME, 0, \
	  "0|<60-9216>", \
	  "0 (turns zero-copy RX off) or integers 60..9216", \
	  "`0` (off)", \
	  "Zero-copy RX: frames of at least this many bytes are attached to " \
	  "the USB transfer buffer instead of copied; needs `xfer_size` <= " \
	  "65535.") SEP \
	X(sim_ctrl_fail, sim.ctrl_fail_at, arg_uint, 1, 1000, CH39X_DA_SIM, \
	  "<1-1000>", \
	  "integers 1..1000", \
	  "none", \
	  "Test only: the Nth vendor request of the simulated device stalls " \
	  "(fails probe on purpose).") SEP \
	X(dev, vid, arg_dev, 0, 0, CH39X_DA_REAL, \
	  "<vid:pid>", \
	  "VID:PID in hex, e.g. 1a86:5398 (PID may be *)", \
	  "any", \
	  "A real adapter through libusb instead of the simulator.") SEP \
	X(serial, serial, arg_string, 1, CH39X_ARG_STR_MAX - 1, CH39X_DA_REAL, \
	  "<string>", \
	  "1..63 characters", \
	  "any", \
	  "Real adapter: its serial number.") SEP \
	X(path, path, arg_path, 1, CH39X_ARG_STR_MAX - 1, CH39X_DA_REAL, \
	  "<bus-port[.port...]>", \
	  "BUS-PORT[.PORT...] of 1..63 characters, e.g. 2-1.4 (see " \
	  "/sys/bus/usb/devices)", \
	  "any", \
	  "Real adapter: its physical USB port.") SEP \
	X(proto, protos, arg_proto, 0, 0, CH39X_DA_NEEDS_REAL, \
	  "auto|vendor|ncm|ecm|rndis|mbim", \
	  "auto, vendor, ncm, ecm, rndis, mbim", \
	  "`auto`", \
	  "Real adapter: which USB function to drive (`auto`: vendor mode " \
	  "for CH39x IDs, else NCM, else ECM, else RNDIS, else MBIM); the " \
	  "choice where a device offers several, e.g. a modem's NCM and " \
	  "RNDIS configurations.") SEP \
	X(function, function, arg_function, 0, 31, \
	  CH39X_DA_NEEDS_REAL | CH39X_DA_DECIMAL, \
	  "<0-31>", \
	  "decimal integers 0..31 (the bInterfaceNumber of a network " \
	  "function's communication interface)", \
	  "the first network function of the protocol `proto` picks", \
	  "Real adapter with several network functions (a composite device: " \
	  "a modem's or a phone's NCM beside its serial ports, a dock's NCM " \
	  "and ECM): the one whose communication interface has this number " \
	  "(`ch39x-usb status` lists them). Only that function's two " \
	  "interfaces are taken; every other one stays with its kernel " \
	  "driver.") SEP \
	X(kernel_driver, kernel_driver_keep, arg_kernel_driver, 0, 0, \
	  CH39X_DA_NEEDS_REAL, \
	  "restore|keep", \
	  "restore, keep", \
	  "`restore`", \
	  "Real adapter: at close, `restore` puts back the USB configuration " \
	  "the kernel had and re-attaches the kernel drivers the PMD took the " \
	  "interfaces from (the Linux interface comes back); `keep` leaves " \
	  "the device as the PMD used it.") SEP \
	X(ncm_tx_ndp, ncm_ndp_end, arg_ncm_tx_ndp, 0, 0, 0, \
	  "front|end", \
	  "front, end", \
	  "`front`", \
	  "Where NCM TX puts each NTB's NDP (`end`: a modem quirk).") SEP \
	X(sim_quirks, sim.ncm_quirks, arg_sim_quirks, 0, 0, CH39X_DA_SIM, \
	  "ndp_end|ntb32_only|no_max_datagram|rndis_single|rndis_wireless" \
	  "[+...]", \
	  "ndp_end, ntb32_only, no_max_datagram (sim=ncm), rndis_single, " \
	  "rndis_wireless (sim=rndis), or several joined with '+'", \
	  "none", \
	  "Quirks of real adapters. `sim=ncm`: NDP at the end, NTB32 " \
	  "only, no max-datagram requests. `sim=rndis`: `rndis_single` " \
	  "one message per transfer of at most 1580 bytes (Linux f_rndis), " \
	  "`rndis_wireless` Android's class triple E0/01/03.") SEP \
	X(sim_ntb_out_max, sim.ncm_out_max, arg_uint, CH39X_NCM_NTB_MIN_SIZE, \
	  65535, CH39X_DA_SIM | CH39X_DA_DECIMAL, \
	  "<2048-65535>", \
	  "decimal integers 2048..65535", \
	  "16384", \
	  "`sim=ncm`: the model's dwNtbOutMaxSize.") SEP \
	X(sim_ntb_in_max, sim.ncm_in_max, arg_uint, CH39X_NCM_NTB_MIN_SIZE, \
	  65535, CH39X_DA_SIM | CH39X_DA_DECIMAL, \
	  "<2048-65535>", \
	  "decimal integers 2048..65535", \
	  "16384", \
	  "`sim=ncm`: the model's dwNtbInMaxSize (the RX NTB size the " \
	  "host may ask for).") SEP \
	X(sim_max_segment, sim.cdc_max_segment, arg_uint, 1514, 9216, \
	  CH39X_DA_SIM | CH39X_DA_DECIMAL, \
	  "<1514-9216>", \
	  "decimal integers 1514..9216", \
	  "1514", \
	  "`sim=ncm`, `sim=ecm` or `sim=rndis`: the model's wMaxSegmentSize " \
	  "(9014 for jumbo).") SEP \
	X(sim_apn, sim.mbim_apn, arg_string, 1, CH39X_MBIM_APN_MAX, \
	  CH39X_DA_SIM, \
	  "<string>", \
	  "1..100 characters", \
	  "any", \
	  "`sim=mbim`: the only APN the simulated network takes (compared " \
	  "without case); another is refused with InvalidAccessString.") SEP \
	X(sim_user, sim.mbim_user, arg_string, 1, 63, CH39X_DA_SIM, \
	  "<string>", \
	  "1..63 characters", \
	  "none", \
	  "`sim=mbim`: the user name the simulated network asks for (with " \
	  "`sim_password`, and an auth protocol other than none).") SEP \
	X(sim_password, sim.mbim_password, arg_string, 1, 63, CH39X_DA_SIM, \
	  "<string>", \
	  "1..63 characters", \
	  "none", \
	  "`sim=mbim`: the password the simulated network asks for.") SEP \
	X(sim_max_ctrl, sim.mbim_max_ctrl, arg_uint, CH39X_MBIM_CTRL_MIN, \
	  CH39X_MBIM_CTRL_MAX, CH39X_DA_SIM | CH39X_DA_DECIMAL, \
	  "<64-4096>", \
	  "decimal integers 64..4096", \
	  "4096", \
	  "`sim=mbim`: the modem's wMaxControlMessage (small values make " \
	  "MBIM messages travel in fragments).") SEP \
	X(sim_register_ms, sim.mbim_register_ms, arg_uint, 0, 600000, \
	  CH39X_DA_SIM | CH39X_DA_DECIMAL, \
	  "<0-600000>", \
	  "decimal integers 0..600000 (milliseconds)", \
	  "0", \
	  "`sim=mbim`: how long the modem searches for the network after " \
	  "power-up or the radio's return before it registers.") SEP \
	X(apn, apn, arg_string, 1, CH39X_MBIM_APN_MAX, CH39X_DA_MBIM, \
	  "<string>", \
	  "1..100 characters", \
	  "none (the network's default)", \
	  "MBIM: the access point name session 0 connects with.") SEP \
	X(user, user, arg_string, 1, CH39X_ARG_STR_MAX - 1, CH39X_DA_MBIM, \
	  "<string>", \
	  "1..63 characters", \
	  "none", \
	  "MBIM: the user name of the connection (with `password` and " \
	  "`auth`).") SEP \
	X(password, password, arg_string, 1, CH39X_ARG_STR_MAX - 1, \
	  CH39X_DA_MBIM, \
	  "<string>", \
	  "1..63 characters", \
	  "none", \
	  "MBIM: the password of the connection.") SEP \
	X(auth, auth, arg_auth, 0, 0, CH39X_DA_MBIM, \
	  "none|pap|chap|mschapv2", \
	  "none, pap, chap, mschapv2", \
	  "`chap` with `user`, else `none`", \
	  "MBIM: the authentication protocol of the connection.") SEP \
	X(ip_type, ip_type, arg_ip_type, 0, 0, CH39X_DA_MBIM, \
	  "default|ipv4|ipv6|ipv4v6", \
	  "default, ipv4, ipv6, ipv4v6", \
	  "`ipv4v6`", \
	  "MBIM: the IP families asked for (`default`: the network's " \
	  "choice).") SEP \
	X(sessions, nb_sessions, arg_sessions, 0, 0, CH39X_DA_MBIM, \
	  "<n>:<apn>[+<n>:<apn>...]", \
	  "up to 7 items N:APN joined with '+', N a session 1..255 (each " \
	  "once), APN 1..100 characters without '+'", \
	  "none", \
	  "MBIM: further sessions, each connected with its APN and carried " \
	  "as VLAN N on the port (as Linux cdc_mbim maps them); session 0 " \
	  "is untagged.") SEP \
	X(connect, mbim_manual, arg_connect, 0, 0, CH39X_DA_MBIM, \
	  "auto|manual", \
	  "auto, manual", \
	  "`auto`", \
	  "MBIM: `auto` connects the sessions from probe on and again after " \
	  "the network ends them; `manual` waits for " \
	  "rte_pmd_ch39x_mbim_connect().") SEP \
	X(tx_hold_us, tx_hold_us1, arg_tx_hold, 0, 10000, \
	  CH39X_DA_MBIM | CH39X_DA_DECIMAL, \
	  "<0-10000>", \
	  "integers 0..10000 (microseconds)", \
	  "`500`", \
	  "MBIM: how long an NTB stays open for the next bursts' " \
	  "datagrams while earlier ones are still on their way to the " \
	  "modem (as cdc_ncm's TX timer); `0` sends every burst's NTB at " \
	  "once.") SEP \
	X(reconnect, reconnect_off, arg_on_off, 0, 0, 0, \
	  "on|off", \
	  "on, off", \
	  "`on`", \
	  "`on`: the port outlives its device: when the adapter leaves the " \
	  "bus the link goes down (LSC, no RMV), TX frames are dropped and " \
	  "counted, and when the same adapter returns it is re-opened, set " \
	  "up as the application left it and restarted (link up, LSC). " \
	  "`off`: RMV, and the port is dead until removed and probed again.") SEP \
	X(presence, presence_poll, arg_presence, 0, 0, 0, \
	  "events|poll", \
	  "events, poll", \
	  "`events`", \
	  "How the PMD learns that the adapter left the bus (and, with " \
	  "`reconnect=on`, that one came back). `events`: from the kernel's " \
	  "device events, at once in every port state; where the process " \
	  "gets none (a container with its own user namespace) the PMD says " \
	  "so and polls. `poll`: while the port is not started, a GET_STATUS " \
	  "request every 100 ms (while started, the transfers see it).")

/* Flags of a row. */
#define CH39X_DA_SIM		(1u << 0) /* the simulated adapter only */
#define CH39X_DA_REAL		(1u << 1) /* selects a real adapter */
#define CH39X_DA_NEEDS_REAL	(1u << 2) /* only with a real adapter */
#define CH39X_DA_DECIMAL	(1u << 3) /* decimal digits only, no 0x */
#define CH39X_DA_MBIM		(1u << 4) /* an MBIM port's (sim=mbim, or a
					   * real MBIM function) */

#define CH39X_DA_PARAM_(key, field, parse, lo, hi, flags, values, ...) \
	#key "=" values
#define CH39X_DA_KEY_(key, ...) #key
#define CH39X_DA_ENUM_(key, ...) CH39X_DA_ ## key,

/* RTE_PMD_REGISTER_PARAM_STRING: "sim=ch397|ch398|ncm|ecm usb_speed=...". */
#define CH39X_PMD_PARAMS CH39X_DEVARGS(CH39X_DA_PARAM_, " ")
/* "sim, usb_speed, ...": for messages. */
#define CH39X_DEVARGS_KEYS CH39X_DEVARGS(CH39X_DA_KEY_, ", ")

/* CH39X_DA_sim, ...: a row's index in ch39x_devargs[]. */
enum {
	CH39X_DEVARGS(CH39X_DA_ENUM_, )
	CH39X_DA_COUNT
};

struct ch39x_devarg;

/* Parse value v of a row into a; 0, or -EINVAL (the caller logs). */
typedef int (*ch39x_devarg_parse_t)(const struct ch39x_devarg *d,
				    const char *v, struct ch39x_args *a);

/* A row of CH39X_DEVARGS, as the parser and the docs tool use it. */
struct ch39x_devarg {
	const char *key;
	ch39x_devarg_parse_t parse;
	size_t off;			/* of the field in struct ch39x_args */
	size_t size;			/* of the field */
	unsigned long lo;
	unsigned long hi;
	unsigned int flags;
	const char *values;
	const char *allowed;
	const char *def;
	const char *help;
};

extern const struct ch39x_devarg ch39x_devargs[CH39X_DA_COUNT];

/*
 * Parse the devargs string of device name (NULL or empty: defaults).
 * Returns 0, or -EINVAL after logging which key was wrong and what it takes.
 */
int ch39x_parse_devargs(const char *name, const char *params,
			struct ch39x_args *a);

/* Whether a key of an MBIM port (CH39X_DA_MBIM) was given. */
bool ch39x_args_mbim_set(const struct ch39x_args *a);

#endif /* CH39X_DEVARGS_H */
