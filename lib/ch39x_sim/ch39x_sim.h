/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CH39X_SIM_H
#define CH39X_SIM_H

/*
 * The simulated adapter: a model of a CH397 or CH398 in vendor mode behind
 * the transport ops of ch39x_usb.h. It answers the vendor control requests
 * from a register file and a PHY, aggregates received frames into bulk IN
 * transfers, parses bulk OUT transfers with the end-of-transfer rules, sends
 * interrupt events on link changes, and filters addresses as the MAC_CFG
 * bits say. Every behaviour cites its section
 * (§N of doc/guides/nics/ch39x_protocol.rst); the ones §9 lists
 * as unknown are marked ASSUMPTION where they are modelled.
 *
 * The wire side ("the cable"): loop (what it sends comes back), pair:NAME
 * (two adapters with the same NAME in one process are cabled together),
 * pcap:IN:OUT (frames of IN are received, everything sent is written to OUT),
 * tap:IFNAME (the far end is a Linux TAP interface: frames the kernel sends
 * on it are received, frames sent arrive at the kernel's stack).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ch39x_cdc.h"
#include "ch39x_usb.h"
#include "ch39x_vendor.h"

enum ch39x_wire_kind {
	CH39X_WIRE_LOOP = 0,
	CH39X_WIRE_PAIR,
	CH39X_WIRE_PCAP,
	CH39X_WIRE_TAP,
};

#define CH39X_SIM_NAME_MAX 64
#define CH39X_SIM_PATH_MAX 256

struct ch39x_sim_config {
	uint16_t pid;			/* CH39X_PID_* */
	enum ch39x_usb_speed speed;
	enum ch39x_wire_kind wire;
	char pair_name[CH39X_SIM_NAME_MAX];
	char pcap_in[CH39X_SIM_PATH_MAX];	/* empty: nothing received */
	char pcap_out[CH39X_SIM_PATH_MAX];	/* empty: sent frames dropped */
	char tap_name[16];		/* IFNAMSIZ: created, or attached if it exists */
	uint8_t mac[6];			/* factory address; all zero: derived */
	char serial[32];
	uint32_t link_mbps;		/* 10, 100 or 1000; 0: the chip's best */
	bool line_rate;			/* model wire and USB timing */
	uint32_t ctrl_fail_at;		/* fail the Nth control request; 0: none */
	/*
	 * RX completion policy of the vendor chip (§9.2): 0 ends a bulk IN
	 * transfer as soon as no more frames have arrived; else a transfer
	 * is held until it carries rx_hold_bytes, rx_hold_us have passed
	 * since its first record, or the next record does not fit.
	 */
	uint32_t rx_hold_bytes;
	uint32_t rx_hold_us;
	/*
	 * The USB function: the chip's vendor mode (default), or the chip
	 * posing as a standard CDC-NCM or CDC-ECM adapter (a CH398 in its
	 * NCM configuration, or any NCM/ECM NIC) or as an RNDIS function
	 * (a phone's tethering, an LTE dongle) with the fields below.
	 */
	enum ch39x_framing framing;
	uint16_t cdc_max_segment;	/* wMaxSegmentSize; 0: 1514 */
	uint32_t ncm_out_max;		/* dwNtbOutMaxSize; 0: 16384 */
	uint32_t ncm_in_max;		/* dwNtbInMaxSize; 0: 16384 */
	uint32_t ncm_quirks;		/* CH39X_SIM_NCM_*, CH39X_SIM_RNDIS_* */
	/*
	 * CH39X_FRAMING_MBIM: an LTE/5G modem (§24) whose cable is the
	 * operator's network. The APN it accepts ("": any) and the user
	 * name and password it asks for ("": none); wMaxControlMessage (0:
	 * 4096; 64 and up); how long it searches for the network after
	 * power-up or the radio's return (0: registered at once).
	 */
	char mbim_apn[101];
	char mbim_user[64];
	char mbim_password[64];
	uint16_t mbim_max_ctrl;
	uint32_t mbim_register_ms;
};

/* Quirks of the simulated NCM adapter, as real ones have them. */
#define CH39X_SIM_NCM_NDP_END	(1u << 0)	/* IN NTBs: NDP after the data */
#define CH39X_SIM_NCM_NTB32_ONLY (1u << 1)	/* formats: NTB32 alone */
#define CH39X_SIM_NCM_NO_MAX_DGRAM (1u << 2)	/* no Get/SetMaxDatagramSize */
/* Quirks of the simulated RNDIS function (§20). */
/* Linux f_rndis's data path: one packet per transfer, 1580 bytes. */
#define CH39X_SIM_RNDIS_SINGLE	(1u << 8)
/* Android tethering's class triple E0/01/03, not f_rndis's 02/02/FF. */
#define CH39X_SIM_RNDIS_WIRELESS (1u << 9)
/* The simulated CDC adapters' interrupt endpoint and MAC string index. */
#define CH39X_SIM_CDC_INTR_MAXP	16
#define CH39X_SIM_CDC_MAC_STRING 4

/* Faults the simulated adapter can inject on an endpoint (tests, soak). */
enum ch39x_sim_fault {
	CH39X_SIM_FAULT_STALL = 1,	/* the endpoint halts until cleared */
	CH39X_SIM_FAULT_TIMEOUT,
	CH39X_SIM_FAULT_ERROR,		/* e.g. EPROTO, a CRC or bit-stuff error */
	CH39X_SIM_FAULT_OVERFLOW,	/* babble: IN only */
	CH39X_SIM_FAULT_TRUNCATE,	/* IN: the transfer loses its tail */
	CH39X_SIM_FAULT_GARBAGE,	/* IN: random bytes instead of records */
	/*
	 * The submission itself is refused with -ENOMEM, as usbfs refuses
	 * an URB beyond its memory cap (usbfs_memory_mb).
	 */
	CH39X_SIM_FAULT_SUBMIT,
};

/*
 * Bulk payload a USB bus carries at most, in Mbit/s: high speed moves 13
 * 512-byte packets per 125 us microframe (USB 2.0 table 5-10); full speed
 * 19 64-byte packets per 1 ms frame; SuperSpeed signals at 5 Gbit/s, 8b/10b
 * coding leaves 4 Gbit/s, and packet headers, link commands and flow
 * control leave about 3.6 Gbit/s of bulk payload (ASSUMPTION: a commonly
 * measured figure, not a spec number).
 */
#define CH39X_USB_HS_BULK_BPS	(13ull * 512 * 8 * 8000)
#define CH39X_USB_FS_BULK_BPS	(19ull * 64 * 8 * 1000)
#define CH39X_USB_SS_BULK_BPS	3600000000ull
/* Ethernet bytes on the wire besides the frame: preamble+SFD, FCS, IFG. */
#define CH39X_WIRE_OVERHEAD	(8 + 4 + 12)

/* What the device model counted; read by tests and by the PMD's xstats. */
struct ch39x_sim_counters {
	uint64_t wire_rx_frames;	/* arrived from the cable */
	uint64_t rx_filtered;		/* dropped by the address filter */
	uint64_t rx_oversize;		/* longer than the jumbo bit allows */
	uint64_t rx_link_down;		/* arrived while the link was down */
	uint64_t rx_overflow;		/* the cable delivered, the FIFO was full */
	uint64_t rx_delivered;		/* put into bulk IN transfers */
	uint64_t rx_straddled;		/* records split over transfers */
	uint64_t tx_frames;		/* put on the cable */
	uint64_t tx_tso_segments;	/* of them, cut by hardware TSO */
	uint64_t tx_bad_records;	/* malformed bulk OUT records */
	uint64_t tx_unterminated;	/* maxp-multiple transfer, no end mark */
	uint64_t tx_ls_seen;
	uint64_t tx_zlp_seen;
	uint64_t tx_link_down;		/* dropped: no link */
	uint64_t tx_wire_dropped;	/* the far end (TAP) refused it */
	uint64_t tx_oversize;		/* CDC: longer than the device takes */
	uint64_t cdc_notifications;	/* CDC: notifications sent */
	uint64_t rndis_responses;	/* RNDIS: responses the host took */
	uint64_t rndis_resp_dropped;	/* RNDIS: queue full, or babble */
	uint64_t rndis_bad_msgs;	/* RNDIS: commands it could not parse */
	uint64_t events_sent;
	uint64_t ctrl_requests;
	uint64_t ctrl_stalls;
	uint64_t faults_injected;	/* transfers that suffered a fault */
	/*
	 * Time the model spent in its transport ops (submit, poll,
	 * cancel_all, the frames and records they build and parse), in
	 * the TSC cycles rte_rdtsc() counts (x86 TSC, Arm generic timer;
	 * nanoseconds elsewhere): the share of a benchmark's cycles that
	 * is the simulated device's, not the PMD's.
	 */
	uint64_t device_cycles;
};

/*
 * Control thread. Creates a simulated device and returns its transport
 * handle, or NULL with a message in err.
 */
struct ch39x_usb_dev *ch39x_sim_open(const struct ch39x_sim_config *cfg,
				     char *err, size_t errlen);

/* Whether a transport handle is a simulated device. */
bool ch39x_sim_is_sim(const struct ch39x_usb_dev *d);

/*
 * Control thread: plug or pull the cable of the device. The link is up when
 * the device's own cable is plugged, its PHY is powered (BMCR) and, on a
 * pair, the same holds for the peer.
 */
void ch39x_sim_set_cable(struct ch39x_usb_dev *d, bool plugged);

void ch39x_sim_get_counters(struct ch39x_usb_dev *d,
			    struct ch39x_sim_counters *c);
/* The current value of a device register, for tests. */
uint32_t ch39x_sim_reg(struct ch39x_usb_dev *d, uint32_t addr);
bool ch39x_sim_link(struct ch39x_usb_dev *d);

/*
 * Inject a frame on the device's cable as if the far end had sent it
 * (tests; any thread that is the only injector). Returns 0, or -1 when the
 * device's receive FIFO is full.
 */
int ch39x_sim_inject(struct ch39x_usb_dev *d, const uint8_t *frame,
		     uint32_t len);

/*
 * Any thread. The next count transfers on ep suffer fault f. Returns 0, or
 * -1 when f does not apply to ep.
 */
int ch39x_sim_fault(struct ch39x_usb_dev *d, enum ch39x_ep ep,
		    enum ch39x_sim_fault f, uint32_t count);
/* Any thread. The next count control requests stall. */
void ch39x_sim_fail_ctrl(struct ch39x_usb_dev *d, uint32_t count);

/*
 * Control thread, the port stopped: the transport's event rounds as the
 * libusb backend has them (on), or none (off, the default). On, a bulk
 * IN poll that finds no finished transfer queued makes a round: it serves
 * the bulk IN and interrupt endpoints and counts (event_rounds), and a
 * completed interrupt transfer is announced through intr_hook; a poll
 * that finds some queued only takes them. The PMD's interrupt alarm then
 * backs off while the application reads (ch39x_intr.c), as with a real
 * adapter.
 */
void ch39x_sim_set_rounds(struct ch39x_usb_dev *d, bool on);
/*
 * Any thread. The device vanishes from the bus: every transfer in flight
 * completes with CH39X_XFER_NO_DEVICE and every request fails with -ENODEV.
 */
void ch39x_sim_unplug(struct ch39x_usb_dev *d);
/* Any thread. Whether ch39x_sim_unplug() took the device off the bus. */
bool ch39x_sim_unplugged(struct ch39x_usb_dev *d);

/* How an unplugged simulated device comes back (ch39x_sim_replug()). */
enum ch39x_sim_replug {
	CH39X_SIM_REPLUG_SAME = 0,	/* the same adapter */
	CH39X_SIM_REPLUG_OTHER_SERIAL,	/* same model, other serial number */
	CH39X_SIM_REPLUG_OTHER_CHIP,	/* another chip (other PID) */
	/* The same adapter, gone again at its third control request. */
	CH39X_SIM_REPLUG_FLAKY,
};

/* Network events of a simulated MBIM modem (tests). */
enum ch39x_sim_mbim_event {
	/* Lost coverage: deregistered, detached, every session down. */
	CH39X_SIM_MBIM_LOSE_NETWORK = 1,
	/* Coverage back: registered (and attached) after the search time. */
	CH39X_SIM_MBIM_FIND_NETWORK,
	/* The network deactivates session arg (a CONNECT indication). */
	CH39X_SIM_MBIM_DROP_SESSION,
	/* The signal is arg (RSSI 0..31, 99 unknown): an indication. */
	CH39X_SIM_MBIM_SIGNAL,
};

/* What a simulated MBIM modem did, for tests. */
struct ch39x_sim_mbim_state {
	bool open;			/* OPEN taken, no CLOSE since */
	uint32_t radio;			/* CH39X_MBIM_RADIO_* (software) */
	uint32_t register_state;	/* CH39X_MBIM_REGISTER_* */
	uint32_t packet_state;		/* CH39X_MBIM_PACKET_* */
	uint32_t active;		/* bit n: session n activated */
	uint32_t max_ctrl;		/* fragment size to the host */
	uint64_t messages_in;		/* whole messages from the host */
	uint64_t fragments_in;
	uint64_t fragments_out;
	uint64_t commands;
	uint64_t indications;
	uint64_t function_errors;	/* FUNCTION_ERROR sent */
	uint64_t host_errors;		/* HOST_ERROR received */
	uint64_t queue_drops;		/* responses lost to a full queue */
	uint64_t up_packets;		/* sessions to the cable */
	uint64_t up_dropped;		/* no such session, spoofed source */
	uint64_t down_packets;		/* cable to the sessions */
	uint64_t down_dropped;		/* for no active session */
	uint64_t local_packets;		/* RAs and NAs of the modem itself */
	uint64_t wire_answers;		/* ARP and NS answered on the cable */
};

/*
 * Any thread. A network event on a simulated MBIM modem. Returns 0, or
 * -1 when the device is no MBIM modem or arg is out of range.
 */
int ch39x_sim_mbim_event(struct ch39x_usb_dev *d,
			 enum ch39x_sim_mbim_event ev, uint32_t arg);
/* Any thread; -1 when the device is no MBIM modem. */
int ch39x_sim_mbim_state(struct ch39x_usb_dev *d,
			 struct ch39x_sim_mbim_state *st);

/*
 * Any thread, the device unplugged. It enumerates again in its power-on
 * state (registers, PHY, CDC function, its factory address; faults and
 * halts cleared), with the cable as it was at the unplug, and with the
 * identity how says. Returns 0, or -1 when it is not unplugged or how is
 * not one of enum ch39x_sim_replug.
 */
int ch39x_sim_replug(struct ch39x_usb_dev *d, enum ch39x_sim_replug how);

#endif /* CH39X_SIM_H */
