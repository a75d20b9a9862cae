#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# The peers of tests/cpe/cpe_fw.sh, every wait bounded:
#   serve LOG SECS PROTO:PORT...   dual-stack listeners on the wildcard
#       address; TCP answers "pong " + what it read, UDP echoes; each
#       arrival logged to LOG; LOG.ready once listening
#   client tcp|udp HOST PORT MSG   exit 0 when the reply came (5 s)
#   sniff IFACE MARKER SECS READY  exit 0 when a frame holding MARKER came
#       in on IFACE within SECS; READY created once the socket is bound
#   craft KIND IFACE DSTMAC ...    scapy: a crafted packet (see craft())
#   tel SOCKET CMD                 one telemetry command: its value (JSON)
# craft needs scapy (python3-scapy: /usr/bin/python3).
import os
import select
import socket
import sys
import threading
import time


def keep(c, secs):
    c.settimeout(secs)
    try:
        while True:
            d = c.recv(200)
            if not d:
                break
            c.sendall(b"pong " + d)
    except OSError:
        pass
    c.close()


def serve(log, secs, specs):
    out = open(log, "a", buffering=1)
    socks = []
    for spec in specs:
        proto, port = spec.split(":")
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM
                          if proto == "udp" else socket.SOCK_STREAM)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("::", int(port)))
        if proto != "udp":
            s.listen(64)
        socks.append((proto, int(port), s))
    open(log + ".ready", "w").close()
    end = time.time() + secs
    while time.time() < end:
        r, _, _ = select.select([s for _, _, s in socks], [], [], 1)
        for proto, port, s in socks:
            if s not in r:
                continue
            try:
                if proto == "tcpk":
                    # Kept open: answers every message until the peer
                    # closes (hold's second ping uses it).
                    c, a = s.accept()
                    threading.Thread(target=keep, args=(c, secs),
                                     daemon=True).start()
                    d = b"accepted"
                elif proto == "tcp":
                    c, a = s.accept()
                    c.settimeout(2)
                    try:
                        d = c.recv(200)
                        c.sendall(b"pong " + d)
                    except OSError:
                        d = b""
                    c.close()
                else:
                    d, a = s.recvfrom(2000)
                    s.sendto(b"pong " + d, a)
                out.write("%s %d %s %r\n" % (proto, port, a[0], d))
            except OSError:
                pass


def client(proto, host, port, msg):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM if proto == "tcp"
                      else socket.SOCK_DGRAM)
    s.settimeout(5)
    try:
        if proto == "tcp":
            s.connect((host, int(port)))
            s.sendall(msg.encode())
            d = s.recv(200)
        else:
            s.sendto(msg.encode(), (host, int(port)))
            d = s.recv(2000)
    except OSError as e:
        print("no reply: %s" % e)
        return 1
    print(d.decode(errors="replace"))
    return 0 if d.startswith(b"pong") else 1


def hold(host, port, go, out):
    """A TCP connection that pings once, waits for the file go (30 s),
    then pings again over the same connection: "first second" verdicts
    (pass or drop) into out, to see a connection closed under it."""
    import os
    import time
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.settimeout(5)
    res = []
    try:
        s.connect((host, int(port)))
        s.sendall(b"hold1")
        res.append("pass" if s.recv(200).startswith(b"pong") else "drop")
    except OSError:
        res.append("drop")
    with open(out + ".ready", "w") as f:
        f.write(res[0] + "\n")
    deadline = time.monotonic() + 30
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        s.sendall(b"hold2")
        res.append("pass" if s.recv(200).startswith(b"pong") else "drop")
    except OSError:
        res.append("drop")
    with open(out, "w") as f:
        f.write(" ".join(res) + "\n")
    return 0


def sniff(iface, marker, secs, ready):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    s.bind((iface, 0))
    open(ready, "w").close()
    end = time.time() + float(secs)
    m = marker.encode()
    while time.time() < end:
        r, _, _ = select.select([s], [], [], 0.2)
        if r:
            d = s.recv(65535)
            if m in d:
                return 0
    return 1


def craft(kind, iface, dmac, args):
    """Crafted packets from the WAN host; exit 0 when the one answer
    that would show the packet passed came back (ack: a RST), else 0
    after sending (the verdict is the receiver's sniff)."""
    from scapy.all import (Ether, IP, IPv6, TCP, UDP, ICMP, ICMPv6DestUnreach,
                           Raw, sendp, conf, AsyncSniffer)
    conf.verb = 0
    if kind == "ack":            # ack SRC DST DPORT: a TCP ACK, no state
        src, dst, dport = args
        l3 = IPv6(src=src, dst=dst) if ":" in dst else IP(src=src, dst=dst)
        p = Ether(dst=dmac) / l3 / TCP(sport=40999, dport=int(dport),
                                       flags="A", seq=1000, ack=2000)
        # The receiver is open before the ACK goes (srp1 could open its
        # socket only after a fast answer came: seen once in CI, the
        # control run's RST missed), so one ACK and one 4 s wait decide.
        ready = threading.Event()
        sn = AsyncSniffer(iface=iface, count=1, timeout=4,
                          started_callback=ready.set,
                          lfilter=lambda a: TCP in a and
                          a[TCP].dport == 40999 and a[TCP].flags & 4)
        sn.start()
        if not ready.wait(10):
            return 2
        sendp(p, iface=iface)
        sn.join()
        return 0 if sn.results else 1
    if kind == "udp":            # udp SRC DST DPORT MARKER (spoof, bogon)
        src, dst, dport, marker = args
        l3 = IPv6(src=src, dst=dst) if ":" in dst else IP(src=src, dst=dst)
        sendp(Ether(dst=dmac) / l3 / UDP(sport=4444, dport=int(dport)) /
              Raw(marker.encode()), iface=iface)
        return 0
    if kind == "err6":           # err6 SRC DST QSRC QDST MARKER: unreach
        src, dst, qsrc, qdst, marker = args
        q = IPv6(src=qsrc, dst=qdst) / UDP(sport=5555, dport=9999) / \
            Raw(marker.encode())
        sendp(Ether(dst=dmac) / IPv6(src=src, dst=dst) /
              ICMPv6DestUnreach(code=1) / q, iface=iface)
        return 0
    if kind == "err4":           # err4 SRC DST QSRC QDST MARKER
        src, dst, qsrc, qdst, marker = args
        q = IP(src=qsrc, dst=qdst) / UDP(sport=5555, dport=9999) / \
            Raw(marker.encode())
        sendp(Ether(dst=dmac) / IP(src=src, dst=dst) /
              ICMP(type=3, code=3) / q, iface=iface)
        return 0
    if kind == "frag6":          # frag6 SRC DST SPORT DPORT MARKER HOW
        # A UDP datagram in two fragments, the marker in the second;
        # HOW ok, overlap (the second overlaps the first, RFC 5722) or
        # tiny (TCP, a first fragment of 16 bytes, then the rest).
        from scapy.all import IPv6ExtHdrFragment
        src, dst, sport, dport, marker, how = args
        pay = b"P" * 40 + marker.encode()
        if how == "tiny":
            # TCP (a SYN to an open pinhole): a first fragment of 16
            # bytes does not hold its 20-byte header (RFC 7112).
            l4 = TCP(sport=int(sport), dport=int(dport), flags="S")
        else:
            l4 = UDP(sport=int(sport), dport=int(dport))
        # The checksum over the pseudo-header, as the kernel sends it.
        udp = bytes(IPv6(src=src, dst=dst) / l4 / Raw(pay))[40:]
        cut = 16 if how == "tiny" else 24
        again = 16 if how == "overlap" else cut
        fid = 4242 + len(how)
        f1 = IPv6(src=src, dst=dst) / IPv6ExtHdrFragment(
            nh=6 if how == "tiny" else 17, offset=0, m=1, id=fid) / \
            Raw(udp[:cut])
        f2 = IPv6(src=src, dst=dst) / IPv6ExtHdrFragment(
            nh=6 if how == "tiny" else 17, offset=again // 8, m=0,
            id=fid) / Raw(udp[again:])
        sendp([Ether(dst=dmac) / f1, Ether(dst=dmac) / f2], iface=iface)
        return 0
    return 2


def main():
    cmd = sys.argv[1]
    if cmd == "serve":
        serve(sys.argv[2], float(sys.argv[3]), sys.argv[4:])
        return 0
    if cmd == "client":
        return client(*sys.argv[2:6])
    if cmd == "hold":
        return hold(*sys.argv[2:6])
    if cmd == "sniff":
        return sniff(*sys.argv[2:6])
    if cmd == "tel":
        import json
        t = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        t.settimeout(20)
        t.connect(sys.argv[2])
        hello = json.loads(t.recv(1024).decode())
        t.send(sys.argv[3].encode())
        r = json.loads(t.recv(hello["max_output_len"]).decode())
        # The reply's key is the command without its parameters.
        print(json.dumps(r[sys.argv[3].split(",")[0]]))
        return 0
    if cmd == "craft":
        return craft(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    return 2


if __name__ == "__main__":
    sys.exit(main())
