#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The access concentrator's side of a PPPoE session, for tests/cpe/cpe_pppoe.sh.

This host's kernel has no PPP, so here the ISP end of the session is this
script: the session's data plane between a raw socket on the WAN host's
Ethernet interface and a TUN interface that carries the ISP's IP side.
(Discovery, LCP, authentication and IPCP by real pppd and pppoe-server
run in the QEMU guest: tests/cpe/cpe_pppoe_real.sh.)

  bridge IFACE TUN ROUTER_MAC LOG SECS
      Session frames from ROUTER_MAC carrying IPv4 (0x0021) or IPv6
      (0x0057) go to TUN as IP packets; TUN's packets go back in the
      session the router last used (its session id is learned from its
      frames, as an AC knows the one it gave), to ROUTER_MAC. Every TCP
      SYN's MSS option seen in the router's frames, and the session ids,
      are written to LOG; frames with PPP control or of other types are
      counted. Ends after SECS, or on SIGTERM.
  send IFACE DST_MAC KIND SID COUNT
      COUNT frames of one KIND to DST_MAC: lcp (an LCP echo request in
      session SID), ipcp, padt, data_other (IPv4 in session SID from this
      interface: the router drops it when SID is not its session), and
      malformed ones: bad_ver, bad_code, bad_len (PPPoE's length past the
      frame), short (cut inside the PPPoE header); and echo_out, what
      pppd's kernel socket would write on the router's TAP: an ICMP echo
      request from 100.64.0.10 to 100.64.0.1 in session SID, to DST_MAC.
  sniff IFACE LOG SECS
      What a TAP shows: one line per frame (ethertype, and for PPPoE
      session frames the session id and the PPP protocol in hex, and the
      ICMP type of an IPv4 ICMP packet in it or the destination port of
      an IPv6 UDP one (without extension headers); for TCP SYNs, the MSS) until
      SECS, or SIGTERM.
"""
import fcntl
import os
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
TUNSETIFF = 0x400454ca
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def mac_bytes(s):
    return bytes(int(x, 16) for x in s.split(":"))


def raw(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    return s


def tcp_syn_mss(ip):
    """The MSS option of a TCP SYN in IPv4 or IPv6 packet ip, or None."""
    if len(ip) < 20:
        return None
    if ip[0] >> 4 == 4:
        ihl = (ip[0] & 15) * 4
        if ip[9] != 6:
            return None
        tcp = ip[ihl:]
    elif ip[0] >> 4 == 6 and len(ip) >= 40 and ip[6] == 6:
        tcp = ip[40:]
    else:
        return None
    if len(tcp) < 20 or not tcp[13] & 0x02:
        return None
    off, end = 20, min(len(tcp), (tcp[12] >> 4) * 4)
    while off + 1 < end:
        kind = tcp[off]
        if kind == 0:
            break
        if kind == 1:
            off += 1
            continue
        ln = tcp[off + 1]
        if kind == 2 and ln == 4 and off + 4 <= end:
            return struct.unpack("!H", tcp[off + 2:off + 4])[0]
        if ln < 2:
            break
        off += ln
    return None


def session_frame(dst, src, sid, proto, payload):
    return dst + src + struct.pack("!HBBHHH", 0x8864, 0x11, 0, sid,
                                   len(payload) + 2, proto) + payload


def bridge(iface, tun_name, router_mac, log_path, secs):
    rmac = mac_bytes(router_mac)
    s = raw(iface)
    own = s.getsockname()[4][:6]
    t = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(t, TUNSETIFF, struct.pack("16sH", tun_name.encode(),
                                          IFF_TUN | IFF_NO_PI))
    log = open(log_path, "a", buffering=1)
    log.write("ready\n")
    sid = 0
    ctl = other = 0
    end = time.monotonic() + secs
    while time.monotonic() < end:
        r, _, _ = select.select([s, t], [], [], 0.5)
        if s in r:
            try:
                f = s.recv(65535)
            except OSError:     # the interface went with the router
                break
            if len(f) >= 22 and f[6:12] == rmac and f[12:14] == b"\x88\x64":
                fsid, plen, proto = struct.unpack("!HHH", f[16:22])
                if fsid != sid:
                    log.write("sid %d\n" % fsid)
                    sid = fsid
                ip = f[22:20 + plen]
                if proto in (0x0021, 0x0057):
                    mss = tcp_syn_mss(ip)
                    if mss is not None:
                        log.write("syn_mss %d\n" % mss)
                    os.write(t, ip)
                else:
                    ctl += 1
            elif f[6:12] == rmac:
                other += 1
        if t in r:
            ip = os.read(t, 65535)
            if sid and ip:
                proto = 0x0021 if ip[0] >> 4 == 4 else 0x0057
                s.send(session_frame(rmac, own, sid, proto, ip))
    log.write("end ctl %d other %d\n" % (ctl, other))


def ip4_csum(h):
    c = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    c = (c & 0xffff) + (c >> 16)
    c = (c & 0xffff) + (c >> 16)
    return ~c & 0xffff


def echo_request(src, dst):
    icmp = bytearray([8, 0, 0, 0, 0x12, 0x34, 0, 1]) + b"ch39x-pppoe"
    struct.pack_into("!H", icmp, 2, ip4_csum(bytes(icmp) + b"\0"))
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 7,
                               0, 64, 1, 0, socket.inet_aton(src),
                               socket.inet_aton(dst)))
    struct.pack_into("!H", ip, 10, ip4_csum(bytes(ip)))
    return bytes(ip) + bytes(icmp)


def send(iface, dst_mac, kind, sid, count):
    s = raw(iface)
    own = s.getsockname()[4][:6]
    dst = mac_bytes(dst_mac)
    ip = bytes([0x45, 0, 0, 28, 0, 1, 0, 0, 64, 17, 0, 0, 100, 64, 0, 1,
                100, 64, 0, 10, 0x30, 0x39, 0x30, 0x39, 0, 8, 0, 0])
    ip = ip[:10] + struct.pack("!H", ip4_csum(ip[:20])) + ip[12:]
    frames = {
        "lcp": session_frame(dst, own, sid, 0xc021,
                             bytes([9, 7, 0, 8, 0x12, 0x34, 0x56, 0x78])),
        "ipcp": session_frame(dst, own, sid, 0x8021,
                              bytes([1, 3, 0, 10, 3, 6, 100, 64, 0, 1])),
        "padt": dst + own + struct.pack("!HBBHH", 0x8863, 0x11, 0xa7, sid, 0),
        "data_other": session_frame(dst, own, sid, 0x0021, ip),
        "plain_ip": dst + own + struct.pack("!H", 0x0800) + ip,
        "bad_ver": dst + own + struct.pack("!HBBHHH", 0x8864, 0x21, 0, sid,
                                           len(ip) + 2, 0x21) + ip,
        "bad_code": dst + own + struct.pack("!HBBHHH", 0x8864, 0x11, 9, sid,
                                            len(ip) + 2, 0x21) + ip,
        "bad_len": dst + own + struct.pack("!HBBHHH", 0x8864, 0x11, 0, sid,
                                           1400, 0x21) + ip,
        "short": dst + own + struct.pack("!HBB", 0x8864, 0x11, 0),
        "echo_out": session_frame(dst, own, sid, 0x0021,
                                  echo_request("100.64.0.10", "100.64.0.1")),
    }
    f = frames[kind]
    for _ in range(count):
        s.send(f + bytes(max(0, 60 - len(f))) if kind != "bad_len" else f)
        time.sleep(0.002)


def sniff(iface, log_path, secs):
    s = raw(iface)
    log = open(log_path, "a", buffering=1)
    log.write("ready\n")
    end = time.monotonic() + secs
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], 0.5)
        if not r:
            continue
        try:
            f = s.recv(65535)
        except OSError:         # the TAP went with the router
            break
        if len(f) < 14:
            continue
        et = struct.unpack("!H", f[12:14])[0]
        line = "type %04x" % et
        if et == 0x8864 and len(f) >= 22:
            fsid, plen, proto = struct.unpack("!HHH", f[16:22])
            line += " sid %d proto %04x" % (fsid, proto)
            if proto == 0x0021 and len(f) >= 43 and f[31] == 1:
                line += " icmp %d" % f[22 + (f[22] & 15) * 4]
            elif proto == 0x0057 and len(f) >= 66 and f[28] == 17:
                line += " udp6 %d" % struct.unpack("!H", f[64:66])[0]
        elif et == 0x0800:
            mss = tcp_syn_mss(f[14:])
            if mss is not None:
                line += " syn_mss %d" % mss
        log.write(line + "\n")


def main(a):
    signal.signal(signal.SIGTERM, lambda *x: sys.exit(0))
    if a[0] == "bridge":
        bridge(a[1], a[2], a[3], a[4], float(a[5]))
    elif a[0] == "send":
        send(a[1], a[2], a[3], int(a[4], 0), int(a[5]))
    elif a[0] == "sniff":
        sniff(a[1], a[2], float(a[3]))
    else:
        sys.exit("usage: see the docstring")


if __name__ == "__main__":
    main(sys.argv[1:])
