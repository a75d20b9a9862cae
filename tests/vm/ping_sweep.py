#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""ICMP echo requests of every payload size from LO to HI (STEP apart)
out of IFACE to DST, with the don't-fragment bit set (as ping -M do), a
window of them in flight; each must come back once with its own payload.
A request unanswered after --timeout seconds is sent again, up to
--tries times in all. One line of result:

  sizes 0..1472: 1473 answered intact, 0 lost, 0 corrupted, 2 resent, 3.1 s

and exit status 0 when every size was answered intact (1 otherwise, 2 on
a usage or socket error). Needs root (a raw socket).

  ping_sweep.py IFACE DST LO HI [--step N] [--window N] [--timeout S]
                [--tries N] [--deadline S]
"""

import argparse
import os
import select
import socket
import struct
import sys
import time

IP_MTU_DISCOVER = 10
IP_PMTUDISC_DO = 2
SO_BINDTODEVICE = 25


def checksum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xFFFF)
    s += s >> 16
    return ~s & 0xFFFF


PATTERN = bytes(((i * 7 + (i >> 8)) & 0xFF) for i in range(65536 + 256))


def payload(size, seq):
    """Bytes that differ per position, starting per request elsewhere."""
    off = (seq * 31) % 251
    return PATTERN[off:off + size]


def echo(ident, seq, data):
    hdr = struct.pack('!BBHHH', 8, 0, 0, ident, seq)
    return struct.pack('!BBHHH', 8, 0, checksum(hdr + data), ident,
                       seq) + data


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('iface')
    ap.add_argument('dst')
    ap.add_argument('lo', type=int)
    ap.add_argument('hi', type=int)
    ap.add_argument('--step', type=int, default=1)
    ap.add_argument('--window', type=int, default=16)
    ap.add_argument('--timeout', type=float, default=2.0)
    ap.add_argument('--tries', type=int, default=3)
    ap.add_argument('--deadline', type=float, default=180.0)
    a = ap.parse_args()
    if not 0 <= a.lo <= a.hi <= 65507 or a.step < 1 or a.window < 1:
        print('usage: sizes 0 <= LO <= HI <= 65507, STEP and WINDOW >= 1')
        return 2
    try:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                          socket.IPPROTO_ICMP)
        s.setsockopt(socket.SOL_SOCKET, SO_BINDTODEVICE,
                     a.iface.encode() + b'\0')
        s.setsockopt(socket.IPPROTO_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO)
        s.setblocking(False)
    except OSError as e:
        print('socket on %s: %s' % (a.iface, e))
        return 2
    ident = os.getpid() & 0xFFFF
    todo = list(range(a.lo, a.hi + 1, a.step))
    # seq (16 bits) -> [size, sent at, tries]
    flying = {}
    done = set()
    corrupt = []
    resent = 0
    lost = []
    send_errs = 0
    t0 = time.monotonic()
    nxt = 0
    while (nxt < len(todo) or flying) and \
            time.monotonic() - t0 < a.deadline:
        now = time.monotonic()
        for seq, f in list(flying.items()):
            if now - f[1] < a.timeout:
                continue
            if f[2] >= a.tries:
                lost.append(f[0])
                del flying[seq]
                continue
            f[1] = now
            f[2] += 1
            resent += 1
            try:
                s.sendto(echo(ident, seq, payload(f[0], seq)), (a.dst, 0))
            except OSError:
                send_errs += 1
        while nxt < len(todo) and len(flying) < a.window:
            size = todo[nxt]
            seq = nxt & 0xFFFF
            nxt += 1
            flying[seq] = [size, time.monotonic(), 1]
            try:
                s.sendto(echo(ident, seq, payload(size, seq)), (a.dst, 0))
            except OSError:
                send_errs += 1
        r, _, _ = select.select([s], [], [], 0.05)
        if not r:
            continue
        while True:
            try:
                pkt, src = s.recvfrom(70000)
            except BlockingIOError:
                break
            ihl = (pkt[0] & 0x0F) * 4
            icmp = pkt[ihl:]
            if len(icmp) < 8 or src[0] != a.dst:
                continue
            typ, _, _, rid, seq = struct.unpack('!BBHHH', icmp[:8])
            if typ != 0 or rid != ident or seq not in flying:
                continue
            size = flying.pop(seq)[0]
            if icmp[8:] == payload(size, seq):
                done.add(size)
            else:
                corrupt.append(size)
    lost += [f[0] for f in flying.values()] + todo[nxt:]
    lost.sort()
    el = time.monotonic() - t0
    text = lambda v: ','.join(str(x) for x in v[:12]) + \
        (',...' if len(v) > 12 else '')
    print('sizes %d..%d%s: %d answered intact, %d lost%s, %d corrupted%s, '
          '%d resent, %d send errors, %.1f s'
          % (a.lo, a.hi, ' step %d' % a.step if a.step > 1 else '',
             len(done), len(lost), ' (%s)' % text(lost) if lost else '',
             len(corrupt), ' (%s)' % text(corrupt) if corrupt else '',
             resent, send_errs, el))
    return 0 if len(done) == len(todo) and not corrupt else 1


if __name__ == '__main__':
    sys.exit(main())
