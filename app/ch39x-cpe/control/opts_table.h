/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The ch39x authors
 */

#ifndef CPE_OPTS_TABLE_H
#define CPE_OPTS_TABLE_H

/*
 * The router's options, one row each, in the order --help, the guide and
 * the error messages list them. Everything said about an option is said
 * here: the command-line parser and the config file's keys (the same
 * names, without the dashes), --help, the defaults and the guide's option
 * reference (`ch39x-cpe -- --options-rst`, which tests/check_cpe_opts_doc.py
 * compares with doc/guides/cpe.rst) are made from it.
 *
 * X(name, arg, kind, fn, field, lo, hi, dflt, allowed, dflt_text, help)
 *   name       the option (--name) and config key
 *   arg        its value's form in --help, "" when it takes none
 *   kind       OPT_ON, OPT_OFF: sets, clears the bool field (no value);
 *              OPT_U32: a number lo..hi into the uint32_t field;
 *              OPT_SECS: seconds lo..hi (a fraction allowed) into the
 *              double field; OPT_ONOFF: on|off into the bool field;
 *              OPT_FN: fn parses it (opts_args.c)
 *   fn         OPT_FN's parser, else NULL
 *   field      OPT_F(member of struct cpe_opts), 0 for OPT_FN
 *   lo, hi     the range of OPT_U32 and OPT_SECS
 *   dflt       the default of OPT_U32, OPT_SECS and OPT_ONOFF (1: on)
 *   allowed    what a bad value's error names as allowed (OPT_U32,
 *              OPT_SECS, OPT_ONOFF); NULL: fn says it
 *   dflt_text  the default as the docs show it; NULL: dflt for OPT_U32,
 *              OPT_SECS and OPT_ONOFF, none for the others
 *   help       what the option does
 */
#define CPE_OPTIONS(X) \
	X("lan", "PORT=ADDR/LEN|PORT=pd[:ID]", OPT_FN, opt_lan, 0, 0, 0, 0, \
	  NULL, NULL, \
	  "A LAN port (a DPDK port id) and its IPv4 address or IPv6 prefix " \
	  "(e.g. 0=192.168.1.1/24 or 0=fd00:1::1/64); repeat for more LAN " \
	  "ports, or with the same PORT for more addresses (one IPv4, up " \
	  "to 4 IPv6 a port). PORT=pd[:ID]: the port's IPv6 prefix is /64 " \
	  "number ID (default: 0, 1, ... in the order given) of the prefix " \
	  "the WAN's DHCPv6 client is delegated, router address ::1 " \
	  "(/cpe/wan/prefix6; needs the port's --tap). PORT may be " \
	  "PORT.VLAN (VLAN 1..4094): an 802.1Q sub-interface, e.g. " \
	  "0.10=192.168.10.1/24; plain PORT is the port's untagged " \
	  "interface. 16 interfaces on at most 8 DPDK ports") \
	X("wan", "PORT=ADDR/LEN|PORT=dhcp|PORT=pppoe|PORT=mbim", OPT_FN, opt_wan, 0, 0, \
	  0, 0, NULL, NULL, \
	  "The WAN port; NAPT translates LAN sources to ADDR; repeatable as " \
	  "--lan (IPv6 is routed, not NATed). PORT=dhcp: its IPv4 address " \
	  "from a DHCP lease at run time, which a DHCP client on the port's " \
	  "--tap reports over telemetry (/cpe/wan/set). PORT=pppoe: a PPPoE " \
	  "session; pppd on the port's --tap dials, its ip-up hook hands " \
	  "the session and addresses over (/cpe/wan/pppoe); IP MTU the " \
	  "link's - 8. PORT=mbim: a net_ch39x MBIM modem's session 0, " \
	  "point to point (no ARP), its IPv4 address, gateway and IPv6 /64 " \
	  "(onto the pd LANs) from the session's IP configuration, " \
	  "following its connect state. PORT.VLAN as for --lan") \
	X("route", "PREFIX/LEN,GW", OPT_FN, opt_route, 0, 0, 0, 0, NULL, NULL, \
	  "A static route (PREFIX/LEN may be 'default'); GW must be on a " \
	  "connected subnet. Connected routes come from the port addresses. " \
	  "IPv6 too, e.g. ::/0,2001:db8:1::1 ('default' is IPv4's). Routes " \
	  "and neighbours change at run time through the telemetry commands " \
	  "/cpe/route/add, /cpe/routes, /cpe/neigh/add and the others") \
	X("neigh", "ADDR,MAC", OPT_FN, opt_neigh, 0, 0, 0, 0, NULL, NULL, \
	  "A static ARP entry (never aged)") \
	X("mtu", "N|PORT=N", OPT_FN, opt_mtu, 0, 0, 0, 0, NULL, "1500", \
	  "The MTU of every port, 68..9198 (the port must accept it); " \
	  "PORT=N: the MTU of one router port (repeatable)") \
	X("no-flow-cache", "", OPT_OFF, NULL, OPT_F(flow_cache), 0, 0, 1, \
	  NULL, NULL, \
	  "Slow path only: every packet is routed and NATed") \
	X("flow-entries", "N", OPT_U32, NULL, OPT_F(flow_entries), 1024, \
	  4194304, 65536, "1024..4194304", NULL, \
	  "The flow cache's size, 1024..4194304") \
	X("flow-timeout", "S", OPT_U32, NULL, OPT_F(flow_timeout), 1, 3600, \
	  30, "1..3600 (seconds)", NULL, \
	  "Idle seconds before a cached flow ages out, 1..3600") \
	X("no-nat", "", OPT_OFF, NULL, OPT_F(nat), 0, 0, 1, NULL, NULL, \
	  "Route LAN <-> WAN without address translation") \
	X("nat-ports", "LO-HI", OPT_FN, opt_nat_ports, 0, 0, 0, 0, NULL, \
	  "1024-65535", \
	  "The external ports (and ICMP ids) NAPT allocates, 1..65535") \
	X("nat-sessions", "N", OPT_U32, NULL, OPT_F(nat_sessions), 1024, \
	  1048576, 65536, "1024..1048576", NULL, \
	  "NAT sessions, 1024..1048576") \
	X("tcp-timeout", "S", OPT_U32, NULL, OPT_F(tcp_timeout), 1, 86400, \
	  7440, "1..86400 (seconds)", NULL, \
	  "An established TCP session's idle timeout, 1..86400 seconds (as " \
	  "Linux's: 2 h 4 min)") \
	X("tcp-trans-timeout", "S", OPT_U32, NULL, OPT_F(tcp_trans), 1, 86400, \
	  120, "1..86400 (seconds)", NULL, \
	  "A TCP session's timeout in its handshake and while closing") \
	X("tcp-close-timeout", "S", OPT_U32, NULL, OPT_F(tcp_close), 1, 86400, \
	  10, "1..86400 (seconds)", NULL, \
	  "A TCP session's timeout after a RST or both FINs") \
	X("tcp-syn-timeout", "S", OPT_U32, NULL, OPT_F(tcp_syn), 1, 86400, \
	  30, "1..86400 (seconds)", NULL, \
	  "A handshake not completed (SYN sent, SYN+ACK seen): its " \
	  "session's and firewall state's timeout") \
	X("udp-timeout", "S", OPT_U32, NULL, OPT_F(udp_timeout), 1, 86400, \
	  120, "1..86400 (seconds)", NULL, \
	  "A UDP session's idle timeout") \
	X("udp-unreplied-timeout", "S", OPT_U32, NULL, OPT_F(udp_unreplied), \
	  1, 86400, 30, "1..86400 (seconds)", NULL, \
	  "A UDP session never answered: its timeout") \
	X("icmp-timeout", "S", OPT_U32, NULL, OPT_F(icmp_timeout), 1, 86400, \
	  30, "1..86400 (seconds)", NULL, \
	  "An ICMP echo session's idle timeout") \
	X("firewall", "on|off", OPT_ONOFF, NULL, OPT_F(fw.on), 0, 0, 1, \
	  "on, off", NULL, \
	  "The stateful firewall: LAN -> WAN accepted, WAN -> LAN and WAN -> " \
	  "router only replies, rules and essential ICMP") \
	X("fw-open", "PROTO/PORT[-PORT]", OPT_FN, opt_fw_rule, 0, 0, 0, 0, \
	  NULL, NULL, \
	  "Opens a router port on the WAN, PROTO tcp or udp, e.g. tcp/22 " \
	  "(repeatable, 64 rules in all)") \
	X("fw-pinhole", "PROTO/[IPV6[/PLEN]]:PORT[-PORT]", OPT_FN, \
	  opt_fw_rule, 0, 0, 0, 0, NULL, NULL, \
	  "Lets the WAN open connections to a LAN host's port, e.g. " \
	  "tcp/[2001:db8:1::10]:443 (IPv4 ADDR:PORT with --no-nat)") \
	X("fw-states", "N", OPT_U32, NULL, OPT_F(fw.states), 1024, 4194304, \
	  65536, "1024..4194304", NULL, \
	  "The firewall's tracked connections, 1024..4194304") \
	X("synflood-protect", "on|off", OPT_ONOFF, NULL, OPT_F(fw.syn.on), 0, \
	  0, 1, "on, off", NULL, \
	  "Limits new connections from the WAN (forwarded ports, open " \
	  "router ports, pinholes) per second; those over it are dropped " \
	  "before any state is made") \
	X("synflood-rate", "N", OPT_U32, NULL, OPT_F(fw.syn.rate), 1, 1000000, \
	  CPE_GUARD_DEF_RATE, "1..1000000 (a second)", NULL, \
	  "New connections from the WAN a second, per protocol (as OpenWrt " \
	  "fw4), 1..1000000") \
	X("synflood-burst", "N", OPT_U32, NULL, OPT_F(fw.syn.burst), 1, \
	  1000000, CPE_GUARD_DEF_BURST, "1..1000000", NULL, \
	  "... of them in one burst, 1..1000000") \
	X("synflood-budget", "N", OPT_U32, NULL, OPT_F(fw.syn.budget), 0, \
	  10000000, CPE_GUARD_DEF_BUDGET, "0 (no budget)..10000000 (a second)", \
	  NULL, \
	  "TCP SYNs from the WAN a second the router looks at, 0 (all)" \
	  "..10000000; beyond, dropped on arrival") \
	X("fw-forward", "PROTO/PORT[-PORT]=IPV4[:PORT]", OPT_FN, \
	  opt_fw_forward, 0, 0, 0, 0, NULL, NULL, \
	  "Forwards a WAN port (range) to a LAN host (DNAT, with hairpin " \
	  "NAT), e.g. tcp/8080=192.168.1.10:80 (repeatable, 32 in all)") \
	X("frag-max", "N", OPT_U32, NULL, OPT_F(frag_max), 0, 1048576, 1024, \
	  "0 (off)..1048576", NULL, \
	  "Fragmented datagrams followed at once, 0 (off: fragments dropped " \
	  "where NAT or the firewall needs ports)..1048576") \
	X("frag-timeout", "S", OPT_U32, NULL, OPT_F(frag_timeout), 1, 120, 30, \
	  "1..120 seconds", NULL, \
	  "A datagram's fragments are followed for S seconds after the last " \
	  "one, 1..120") \
	X("arp-timeout", "S", OPT_U32, NULL, OPT_F(arp_timeout), 1, 86400, 60, \
	  "1..86400 (seconds)", NULL, \
	  "ARP (and IPv6 neighbour) entries' lifetime without confirmation, " \
	  "1..86400 seconds; halfway the entry is probed") \
	X("stats-interval", "S", OPT_SECS, NULL, OPT_F(stats_interval), 0, \
	  3600, 0, "0..3600 (seconds, 0: only at exit)", NULL, \
	  "Prints statistics every S seconds, 0 (only at exit)..3600") \
	X("duration", "S", OPT_SECS, NULL, OPT_F(duration), 0, 86400, 0, \
	  "0..86400 (seconds, 0: until SIGINT or SIGTERM)", NULL, \
	  "Runs S seconds then exits, 0 (until SIGINT or SIGTERM)..86400") \
	X("json", "", OPT_ON, NULL, OPT_F(json), 0, 0, 0, NULL, NULL, \
	  "The exit statistics as JSON on stdout") \
	X("tap", "PORT=IFNAME", OPT_FN, opt_tap, 0, 0, 0, 0, NULL, NULL, \
	  "The control plane of router port PORT (or PORT.VLAN, as " \
	  "--lan/--wan): a Linux TAP IFNAME (1..15 characters) with the " \
	  "port's MAC, MTU and address; traffic for the router that it " \
	  "does not answer itself (DHCP, DNS, SSH, ...) goes there, and " \
	  "what Linux sends there goes out of the port; repeat per port " \
	  "(default: none, such traffic is dropped)") \
	X("idle", "MODE", OPT_FN, opt_idle, 0, 0, 0, 0, NULL, "interrupt", \
	  "What the forwarding loop does without packets: poll (busy " \
	  "polling: one core at 100 % always), adaptive (after --idle-spin " \
	  "without a packet, sleeps growing to 1 ms), interrupt (after " \
	  "--idle-spin, waits for the ports' Rx interrupts; ports without " \
	  "them are polled every 1 ms at most)") \
	X("idle-spin", "US", OPT_U32, NULL, OPT_F(idle_spin_us), 0, 100000, \
	  50, "0..100000 (microseconds)", NULL, \
	  "Microseconds without a packet before adaptive or interrupt " \
	  "sleeps, 0..100000") \
	X("no-tx-csum", "", OPT_OFF, NULL, OPT_F(tx_csum), 0, 0, 1, NULL, \
	  NULL, \
	  "Computes the IPv4 header checksum of the packets the router " \
	  "makes in software even where the port offers the offload") \
	X("no-vlan-offload", "", OPT_OFF, NULL, OPT_F(vlan_offload), 0, 0, 1, \
	  NULL, NULL, \
	  "Adds and removes 802.1Q tags in the router even where the port " \
	  "offers VLAN insert/strip offloads") \
	X("mbuf-size", "N", OPT_U32, NULL, OPT_F(data_room), 1024, 65407, \
	  2048, "1024..65407", NULL, \
	  "The mbufs' data room, 1024..65407; larger frames are chained " \
	  "(scatter)") \
	X("bench-gen", "TX,RX[,FLOWS[,SIZE]]", OPT_FN, opt_gen, 0, 0, 0, 0, \
	  NULL, NULL, \
	  "Benchmark: a second lcore sends FLOWS (1..65536, default 256) " \
	  "UDP flows of SIZE-byte frames (60..1514, default 64) on port TX " \
	  "towards the first LAN port and counts what arrives on port RX") \
	X("wan-rate", "RATE", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "off", \
	  "Shapes the WAN uplink to RATE bits/s (64k..10G, suffixes k, M, " \
	  "G, e.g. 20M) and schedules its packets by class, strict " \
	  "priority") \
	X("down-rate", "RATE", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "off", \
	  "Shapes the downlink, what came in on the WAN and leaves by a LAN " \
	  "port, to RATE (as --wan-rate; a little below the line's rate) " \
	  "with the same scheduler and --qos-* options") \
	X("wan-overhead", "B", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "24", \
	  "Bytes the shaper adds to each frame, 0..256 (24: preamble, FCS, " \
	  "inter-frame gap)") \
	X("qos-classes", "N", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "4", \
	  "Classes, 1..8, 0 the highest") \
	X("qos-queue", "N", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, \
	  "1024 with --qos-fq on, 64 off", \
	  "Packets held per class, 1..16384; beyond it the flow holding " \
	  "most bytes (FIFO: the newcomer) is dropped") \
	X("qos-map", "DSCP=CLASS[,...]", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, \
	  "cs6, cs7, ef, va 0; cs3..cs5, af3x, af4x 1; le, cs1 3; the rest 2", \
	  "DSCP 0..63 or be, le, cs0..cs7, af11..af43, va, ef to a class " \
	  "(classes beyond --qos-classes merge into the last)") \
	X("qos-pcp-map", "PCP=CLASS[,...]", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, \
	  "5..7 0, 3..4 1, 2 2, 1 3", \
	  "802.1p PCP 0..7 of VLAN-tagged frames to a class (PCP 0: by DSCP " \
	  "unless mapped here)") \
	X("qos-fq", "on|off", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "on", \
	  "In each class, flow queues with CoDel (FQ-CoDel, RFC 8290) or " \
	  "one FIFO (off)") \
	X("qos-target", "T", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "5ms", \
	  "CoDel's target delay, 100us..1s") \
	X("qos-interval", "T", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "100ms", \
	  "CoDel's interval, 1ms..10s") \
	X("qos-ecn", "on|off", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "on", \
	  "CoDel marks ECN-capable packets CE instead of dropping them") \
	X("qos-flows", "N", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "1024", \
	  "Flow queues per class, 1..65536") \
	X("qos-quantum", "B", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "1514", \
	  "Bytes per flow and round, 64..65535") \
	X("qos-catchup", "T", OPT_FN, opt_qos, 0, 0, 0, 0, NULL, "20ms", \
	  "The most of a stall of the forwarding loop, with packets " \
	  "waiting, that the shaper makes up after it in one burst, 0..1s") \
	X("config", "FILE", OPT_FN, opt_config, 0, 0, 0, 0, NULL, NULL, \
	  "Reads options from FILE: one a line, 'KEY VALUE', '#' starts a " \
	  "comment; 'vdev DEVARGS' lines are handed to EAL as --vdev") \
	X("vdev", "DEVARGS", OPT_FN, opt_vdev, 0, 0, 0, 0, NULL, NULL, \
	  "In a --config file only: a device for EAL, as its --vdev") \
	X("help", "", OPT_FN, NULL, 0, 0, 0, 0, NULL, NULL, \
	  "This text") \
	X("options-rst", "", OPT_FN, NULL, 0, 0, 0, 0, NULL, NULL, \
	  "These options as the CPE guide's option reference " \
	  "(reStructuredText)") \
	X("graph-dot", "", OPT_FN, NULL, 0, 0, 0, 0, NULL, NULL, \
	  "The router's graph of nodes, as registered, in Graphviz's DOT " \
	  "(the architecture guide's drawing)")

#endif /* CPE_OPTS_TABLE_H */
