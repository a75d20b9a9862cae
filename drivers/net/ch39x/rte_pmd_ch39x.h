/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef RTE_PMD_CH39X_H
#define RTE_PMD_CH39X_H

/**
 * @file
 * Extra API of the net_ch39x PMD.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Plug or pull the cable of a simulated adapter (sim=...), as a person
 * would at the RJ45 jack. The link goes down on both ends of a pair and an
 * RTE_ETH_EVENT_INTR_LSC follows from the interrupt endpoint.
 *
 * @param port_id
 *   A net_ch39x port.
 * @param plugged
 *   Non-zero to plug the cable in, zero to pull it.
 * @return
 *   0 on success, -ENODEV for a bad port, -ENOTSUP when the port is not a
 *   simulated ch39x adapter.
 */
int rte_pmd_ch39x_sim_set_cable(uint16_t port_id, int plugged);

/** USB endpoints of a ch39x adapter. */
enum rte_pmd_ch39x_ep {
	RTE_PMD_CH39X_EP_BULK_IN = 0,
	RTE_PMD_CH39X_EP_BULK_OUT = 1,
	RTE_PMD_CH39X_EP_INTR_IN = 2,
};

/** Faults a simulated adapter can inject (for tests and soak runs). */
enum rte_pmd_ch39x_fault {
	RTE_PMD_CH39X_FAULT_STALL = 1,	/**< endpoint halts until cleared */
	RTE_PMD_CH39X_FAULT_TIMEOUT,
	RTE_PMD_CH39X_FAULT_ERROR,	/**< protocol error on the bus */
	RTE_PMD_CH39X_FAULT_OVERFLOW,	/**< babble (bulk IN only) */
	RTE_PMD_CH39X_FAULT_TRUNCATE,	/**< transfer loses its tail (IN) */
	RTE_PMD_CH39X_FAULT_GARBAGE,	/**< random bytes instead of records (IN) */
	RTE_PMD_CH39X_FAULT_SUBMIT,	/**< submission refused (-ENOMEM) */
};

/**
 * Make the next transfers on an endpoint of a simulated adapter fail.
 *
 * @return
 *   0, -ENODEV (bad port), -ENOTSUP (not a simulated ch39x port) or
 *   -EINVAL (the fault does not apply to that endpoint).
 */
int rte_pmd_ch39x_sim_fault(uint16_t port_id, enum rte_pmd_ch39x_ep ep,
			    enum rte_pmd_ch39x_fault fault, uint32_t count);

/** Make the next count vendor requests of a simulated adapter stall. */
int rte_pmd_ch39x_sim_fail_ctrl(uint16_t port_id, uint32_t count);

/**
 * Unplug a simulated adapter from the USB bus: transfers end with "no
 * device". With reconnect=on (the default) the port's link goes down
 * (RTE_ETH_EVENT_INTR_LSC), TX frames are dropped and counted and the
 * port waits for the device (rte_pmd_ch39x_sim_replug()). With
 * reconnect=off the port reports RTE_ETH_EVENT_INTR_RMV once, stop and
 * close still work, and to use the adapter again the application removes
 * the device (rte_dev_remove) and probes it again (rte_dev_probe).
 */
int rte_pmd_ch39x_sim_unplug(uint16_t port_id);

/** How an unplugged simulated adapter comes back. */
enum rte_pmd_ch39x_replug {
	RTE_PMD_CH39X_REPLUG_SAME = 0,	/**< the same adapter */
	RTE_PMD_CH39X_REPLUG_OTHER_SERIAL, /**< same chip, other serial */
	RTE_PMD_CH39X_REPLUG_OTHER_CHIP, /**< another chip (other PID) */
	/** The same adapter, gone again at its third control request. */
	RTE_PMD_CH39X_REPLUG_FLAKY,
};

/**
 * Put an unplugged simulated adapter back on the bus, in its power-on
 * state (what the PMD programmed is lost, as with a real re-enumeration),
 * with the identity how says. A reconnect=on port finds its own device
 * again and restores itself; another device is refused (a log line says
 * why) and the port keeps waiting.
 *
 * @return
 *   0, -ENODEV (bad port), -ENOTSUP (not a simulated ch39x port) or
 *   -EINVAL (not unplugged, or how unknown).
 */
int rte_pmd_ch39x_sim_replug(uint16_t port_id, enum rte_pmd_ch39x_replug how);

/**
 * Give a stopped simulated adapter's transport event rounds as the libusb
 * one has them (on), or none (off, the default): on, an RX poll that
 * finds no finished transfer queued reaps the interrupt endpoint's too,
 * so while the application reads the port the PMD looks at that endpoint
 * seldom (xstat intr_polls), as with a real adapter. For tests of that
 * back-off.
 *
 * @return
 *   0, -ENODEV (bad port), -ENOTSUP (not a simulated ch39x port) or
 *   -EBUSY (the port is started).
 */
int rte_pmd_ch39x_sim_event_rounds(uint16_t port_id, int on);

/* ---- MBIM modems ---- */

/** Sessions a port drives: session 0 and up to 7 more (sessions=). */
#define RTE_PMD_CH39X_MBIM_SESSIONS	8

/** Where an MBIM session is. */
enum rte_pmd_ch39x_mbim_phase {
	RTE_PMD_CH39X_MBIM_IDLE = 0,	/**< not asked to connect */
	RTE_PMD_CH39X_MBIM_OPENING,	/**< MBIM OPEN of the function */
	RTE_PMD_CH39X_MBIM_DIALING,	/**< registering, attaching, CONNECT */
	RTE_PMD_CH39X_MBIM_CONNECTED,	/**< activated, IP configuration read */
	RTE_PMD_CH39X_MBIM_FAILED,	/**< the last try failed (error says
					 *   why); tried again after a wait */
	RTE_PMD_CH39X_MBIM_GONE,	/**< the modem left the bus */
};

/** An IP family of a session's IP configuration (addresses in network order). */
struct rte_pmd_ch39x_mbim_ip {
	uint8_t valid;		/**< 1: the modem gave an address */
	uint8_t prefix_len;
	uint8_t has_gateway;
	uint8_t nb_dns;		/**< entries of dns[] */
	uint8_t addr[16];	/**< IPv4: the first 4 bytes */
	uint8_t gateway[16];
	uint8_t dns[4][16];
	uint32_t mtu;		/**< 0: none given */
};

/** An MBIM session as the PMD last learnt it. */
struct rte_pmd_ch39x_mbim_info {
	uint32_t session;	/**< MBIM IP session id */
	uint16_t vlan_id;	/**< its VLAN on the port, 0: untagged */
	uint16_t phase;		/**< enum rte_pmd_ch39x_mbim_phase */
	char apn[101];
	char error[160];	/**< why the last try failed, "" if none */
	char provider[64];	/**< the network's name */
	char device_id[64];	/**< IMEI (DEVICE_CAPS) */
	char firmware[64];
	uint32_t max_sessions;	/**< the modem's MaxSessions */
	uint32_t register_state;	/**< MBIM_REGISTER_STATE */
	uint32_t packet_state;	/**< MBIM_PACKET_SERVICE_STATE */
	uint32_t activation;	/**< MBIM_ACTIVATION_STATE */
	uint32_t ip_type;	/**< MBIM_CONTEXT_IP_TYPE granted */
	uint32_t rssi;		/**< 0..31, 99 unknown */
	uint32_t nw_error;	/**< the network's last error code */
	uint64_t up_bps;	/**< packet service's announced speeds */
	uint64_t down_bps;
	uint64_t dials;		/**< successful connects */
	uint64_t dial_failures;
	uint64_t drops;		/**< connected sessions the network ended */
	struct rte_pmd_ch39x_mbim_ip ipv4;
	struct rte_pmd_ch39x_mbim_ip ipv6;
	/**
	 * The fixed MAC the port's frames come from and go to (the modem's
	 * side of the Ethernet view): a router sends to it without ARP or
	 * neighbour discovery, the link being point to point.
	 */
	uint8_t peer_mac[6];
};

/**
 * A session of an MBIM port (a modem's MBIM function, or sim=mbim), as the
 * PMD's dialer last saw it: phase, registration, the IP configuration
 * once connected. Any thread.
 *
 * @param port_id
 *   A net_ch39x port.
 * @param session
 *   0 (the port's untagged session) or one given with sessions=.
 * @param info
 *   Filled in.
 * @return
 *   0, -ENODEV for a bad port, -ENOTSUP when the port is not MBIM, -EINVAL
 *   for a session the port does not drive.
 */
int rte_pmd_ch39x_mbim_info_get(uint16_t port_id, uint32_t session,
				struct rte_pmd_ch39x_mbim_info *info);

/**
 * Ask the PMD to connect a session (connect=manual, or again after
 * rte_pmd_ch39x_mbim_disconnect()) and wait for it. The dialer keeps
 * trying (1 s, doubling up to 30 s) until disconnected.
 *
 * @param timeout_ms
 *   How long to wait for CONNECTED: 0 returns at once.
 * @return
 *   0 when connected (or asked, with timeout_ms 0), -ETIMEDOUT (the last
 *   error in rte_pmd_ch39x_mbim_info.error), -ENODEV, -ENOTSUP, -EINVAL.
 */
int rte_pmd_ch39x_mbim_connect(uint16_t port_id, uint32_t session,
			       uint32_t timeout_ms);

/**
 * Deactivate a session (MBIM CONNECT, deactivate) and keep it down until
 * rte_pmd_ch39x_mbim_connect(). Session 0's link goes down (LSC). Waits
 * for the modem's answer, at most timeout_ms.
 *
 * @return
 *   0, -ETIMEDOUT, -ENODEV, -ENOTSUP, -EINVAL.
 */
int rte_pmd_ch39x_mbim_disconnect(uint16_t port_id, uint32_t session,
				  uint32_t timeout_ms);

/** What happens to the simulated modem's network (sim=mbim). */
enum rte_pmd_ch39x_sim_mbim_event {
	RTE_PMD_CH39X_SIM_MBIM_LOSE_NETWORK = 1,	/**< coverage gone */
	RTE_PMD_CH39X_SIM_MBIM_FIND_NETWORK,	/**< coverage back */
	RTE_PMD_CH39X_SIM_MBIM_DROP_SESSION,	/**< arg: session the network ends */
	RTE_PMD_CH39X_SIM_MBIM_SIGNAL,		/**< arg: RSSI 0..31 */
};

/**
 * An event of the simulated modem's network; the modem tells the host
 * with indications (protocol reference, section 24).
 *
 * @return
 *   0, -ENODEV, -ENOTSUP (not a simulated MBIM port), -EINVAL (arg).
 */
int rte_pmd_ch39x_sim_mbim_event(uint16_t port_id,
				 enum rte_pmd_ch39x_sim_mbim_event ev,
				 uint32_t arg);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_CH39X_H */
