#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The measuring ends of tests/cpe/cpe_flood.sh, every wait bounded:
#   stream HOST PORT SECS LOG   one TCP connection to cpe_fw_tool.py's
#       "tcpk" listener, a message every 50 ms, the wall-clock time of
#       each answer a line of LOG (LOG.ready once connected); ends after
#       SECS or when the connection fails
#   tries N GAP WAIT OUT HOST PORT [HOST PORT...]   N connections, one
#       started every GAP seconds (they overlap), to the targets in turn,
#       each "connect, send, read pong" within WAIT seconds (the kernel's
#       SYN retransmissions included): the number that worked into OUT,
#       and each one's time and verdict
#   flood6 IFACE DSTMAC DST PROTO DPORT SECS   an IPv6 flood from random
#       sources of 2001:db8:f000::/36 (never the LAN's): TCP SYNs or UDP
#       datagrams to DST's DPORT, as fast as one core sends them for
#       SECS seconds (hping3 has no IPv6); prints the number sent
#   window LOG T0 T1   of a stream's LOG: answers in [T0, T1] and the
#       longest gap (s) between answers there (the edges included)
import os
import random
import socket
import struct
import sys
import threading
import time


def stream(host, port, secs, log):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect((host, int(port)))
    out = open(log, "a", buffering=1)
    open(log + ".ready", "w").close()
    end = time.time() + float(secs)
    s.settimeout(0.05)
    buf = b""
    n = 0
    while time.time() < end:
        try:
            s.sendall(b"s%d;" % n)
            n += 1
        except OSError:
            return 1
        t = time.time() + 0.05
        while time.time() < t:
            try:
                d = s.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                return 1
            if not d:
                return 1
            buf += d
            # One line per answer ("pong ..." chunks may coalesce).
            k = buf.count(b"pong")
            if k:
                now = time.time()
                for _ in range(k):
                    out.write("%.3f\n" % now)
                buf = b""
    return 0


def tries(n, gap, wait, out, targets):
    res = [None] * int(n)

    def one(i):
        host, port = targets[2 * (i % (len(targets) // 2)):][:2]
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        t0 = time.time()
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(float(wait))
        try:
            s.connect((host, int(port)))
            s.sendall(b"try%d" % i)
            ok = s.recv(200).startswith(b"pong")
        except OSError:
            ok = False
        s.close()
        res[i] = (t0, time.time() - t0, ok)

    th = []
    for i in range(int(n)):
        t = threading.Thread(target=one, args=(i,), daemon=True)
        t.start()
        th.append(t)
        time.sleep(float(gap))
    for t in th:
        t.join(float(wait) + 5)
    good = sum(1 for r in res if r and r[2])
    with open(out, "w") as f:
        f.write("%d\n" % good)
        for r in res:
            if r:
                f.write("%.3f %.2f %s\n" % (r[0], r[1],
                                            "ok" if r[2] else "fail"))
    return 0


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def flood6(iface, dmac, dst, proto, dport, secs):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((iface, 0))
    smac = open("/sys/class/net/%s/address" % iface).read().strip()
    eth = bytes.fromhex(dmac.replace(":", "")) + \
        bytes.fromhex(smac.replace(":", "")) + b"\x86\xdd"
    d = socket.inet_pton(socket.AF_INET6, dst)
    nh = 6 if proto == "tcp" else 17
    frames = []
    rnd = random.Random(os.getpid())
    # A pool of frames (random sources and ports, checksums right), and
    # each one's source bytes 12..15 changed at every send so that the
    # sum stays (a + b constant in one's complement): no tuple repeats,
    # as none of hping3's --rand-source does, at a send's cost.
    for _ in range(1024):
        src = bytes([0x20, 0x01, 0x0d, 0xb8, 0xf0 | rnd.randrange(16)]) + \
            rnd.randbytes(11)
        sp = rnd.randrange(1024, 65536)
        if nh == 6:
            l4 = struct.pack("!HHIIBBHHH", sp, int(dport),
                             rnd.randrange(1 << 32), 0, 5 << 4, 0x02,
                             64240, 0, 0)
        else:
            l4 = struct.pack("!HHHH", sp, int(dport), 8 + 16, 0) + \
                b"flood6 datagram".ljust(16, b".")
        ph = src + d + struct.pack("!IxxxB", len(l4), nh)
        c = csum(ph + l4)
        off = 16 if nh == 6 else 6
        l4 = l4[:off] + struct.pack("!H", c) + l4[off + 2:]
        ip = struct.pack("!IHBB", 6 << 28, len(l4), nh, 64) + src + d
        a, b = struct.unpack("!HH", src[12:16])
        frames.append((bytearray(eth + ip + l4), (a + b) % 0xffff))
    at = 14 + 8 + 12            # the source's bytes 12..15
    end = time.time() + float(secs)
    n = 0
    while time.time() < end:
        for f, total in frames:
            a = rnd.getrandbits(16) % 0xffff
            f[at:at + 4] = struct.pack("!HH", a, (total - a) % 0xffff)
            try:
                s.send(f)
                n += 1
            except OSError:
                pass
    print(n)
    return 0


def window(log, t0, t1):
    t0, t1 = float(t0), float(t1)
    ts = []
    try:
        for line in open(log):
            t = float(line)
            if t0 <= t <= t1:
                ts.append(t)
    except OSError:
        pass
    edges = [t0] + ts + [t1]
    gap = max(b - a for a, b in zip(edges, edges[1:]))
    print("%d %.2f" % (len(ts), gap))
    return 0


def main():
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == "stream":
        return stream(*a[:4])
    if cmd == "tries":
        return tries(a[0], a[1], a[2], a[3], a[4:])
    if cmd == "flood6":
        return flood6(*a[:6])
    if cmd == "window":
        return window(*a[:3])
    return 2


if __name__ == "__main__":
    sys.exit(main())
