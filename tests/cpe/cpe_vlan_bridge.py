#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# A user-space 802.1Q access port for the VLAN tests (this kernel has no
# 8021q, so no "ip link add ... type vlan"): frames of VLAN VID on the
# trunk (the router's TAP, read with AF_PACKET: the kernel hands the tag
# over as auxdata) go untagged to a new TAP, the VLAN host's interface;
# what the host sends gets the tag and goes out on the trunk. It also
# counts what it saw on the trunk per VLAN id (the tags on the wire).
#
# Usage: cpe_vlan_bridge.py TRUNK VID TAPNAME READYFILE COUNTSFILE SECONDS
# Writes READYFILE once both ends are open; COUNTSFILE ("vid:frames ...",
# untagged as vid 0) on exit (SIGTERM, or after SECONDS).
import fcntl
import os
import select
import signal
import socket
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TAP, IFF_NO_PI = 0x0002, 0x1000
SOL_PACKET, PACKET_AUXDATA = 263, 8
TP_STATUS_VLAN_VALID = 0x10
PACKET_OUTGOING = 4

trunk, vid, tapname, ready, countsfile, secs = sys.argv[1:7]
vid = int(vid)
counts = {}
stop = False


def on_term(sig, frm):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
tap = os.open("/dev/net/tun", os.O_RDWR)
fcntl.ioctl(tap, TUNSETIFF, struct.pack("16sH", tapname.encode(),
                                        IFF_TAP | IFF_NO_PI))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
s.bind((trunk, 0))
open(ready, "w").close()
tag = struct.pack("!HH", 0x8100, vid)


def trunk_frame():
    """One frame from the trunk: counted by VLAN id, VID's to the TAP."""
    f, anc, _, addr = s.recvmsg(65536, socket.CMSG_SPACE(20))
    if addr[2] == PACKET_OUTGOING or len(f) < 14:
        return
    v = None
    for lvl, typ, data in anc:
        if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
            st, _, _, _, _, tci, _ = struct.unpack("IIIHHHH", data[:20])
            if st & TP_STATUS_VLAN_VALID:
                v = tci & 0xfff
    if v is None and f[12:14] == b"\x81\x00" and len(f) >= 18:
        v = int.from_bytes(f[14:16], "big") & 0xfff
        f = f[:12] + f[16:]
    v = v or 0
    counts[v] = counts.get(v, 0) + 1
    if v == vid:
        try:
            os.write(tap, f)
        except OSError:
            pass  # the host's TAP is not up yet


end = time.time() + float(secs)
while not stop and time.time() < end:
    try:
        r, _, _ = select.select([s, tap], [], [], 0.2)
        if tap in r:
            f = os.read(tap, 65536)
            if len(f) >= 14:
                s.send(f[:12] + tag + f[12:])
        if s in r:
            trunk_frame()
    except InterruptedError:
        continue
    except OSError:
        break  # the router stopped: its TAP went away
with open(countsfile, "w") as out:
    out.write(" ".join("%d:%d" % kv for kv in sorted(counts.items())) + "\n")
