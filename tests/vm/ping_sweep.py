#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""ICMP echo requests of every payload size from LO to HI (a raw socket
bound to one interface), a few in flight at a time, and the replies
checked byte for byte: each size must come back once with its own
payload. Prints one line,

  sweep LO..HI: sent N, replied N, wrong M, missing K [sizes...]

and exits 0 when every size came back right. Used by tests/vm (rndis.sh)
where a payload's length decides how the transfer ends (a packet
multiple, a pad byte, a ZLP).

Usage: ping_sweep.py IFNAME DST [LO HI [WINDOW [TIMEOUT_S]]]
"""

import os
import select
import socket
import struct
import sys
import time


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def payload(size):
    return bytes((size * 7 + i * 13) & 0xFF for i in range(size))


def request(ident, seq, size):
    data = payload(size)
    h = struct.pack("!BBHHH", 8, 0, 0, ident, seq)
    c = csum(h + data)
    return struct.pack("!BBHHH", 8, 0, c, ident, seq) + data


def main():
    ifname, dst = sys.argv[1], sys.argv[2]
    lo = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    hi = int(sys.argv[4]) if len(sys.argv) > 4 else 1472
    window = int(sys.argv[5]) if len(sys.argv) > 5 else 8
    limit = float(sys.argv[6]) if len(sys.argv) > 6 else 120.0
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE,
                 ifname.encode() + b"\0")
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    ident = os.getpid() & 0xFFFF
    sizes = list(range(lo, hi + 1))
    pending = {}            # seq -> (size, sent_at, tries)
    done = {}
    wrong = 0
    nxt = 0
    end = time.monotonic() + limit
    while (nxt < len(sizes) or pending) and time.monotonic() < end:
        now = time.monotonic()
        while nxt < len(sizes) and len(pending) < window:
            size = sizes[nxt]
            s.sendto(request(ident, nxt, size), (dst, 0))
            pending[nxt] = (size, now, 1)
            nxt += 1
        # A request unanswered after 2 s is sent once more (ARP, a loss
        # the kernel's counters would show anyway), then given up.
        for seq, (size, t, tries) in list(pending.items()):
            if now - t > 2.0:
                if tries < 2:
                    s.sendto(request(ident, seq, size), (dst, 0))
                    pending[seq] = (size, now, tries + 1)
                else:
                    del pending[seq]
        r, _, _ = select.select([s], [], [], 0.2)
        if not r:
            continue
        pkt = s.recv(65535)
        ihl = (pkt[0] & 0xF) * 4
        icmp = pkt[ihl:]
        if len(icmp) < 8 or icmp[0] != 0:
            continue
        _, _, _, rid, seq = struct.unpack("!BBHHH", icmp[:8])
        if rid != ident or seq not in pending:
            continue
        size = pending.pop(seq)[0]
        if icmp[8:] == payload(size) and csum(icmp) == 0:
            done[size] = True
        else:
            wrong += 1
    missing = [z for z in sizes if z not in done]
    print("sweep %d..%d: sent %d, replied %d, wrong %d, missing %d%s" %
          (lo, hi, len(sizes), len(done), wrong, len(missing),
           (" " + ",".join(map(str, missing[:20]))) if missing else ""))
    return 0 if not missing and wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
