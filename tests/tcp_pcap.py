#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Make and check pcaps of TCP bulk streams, with no third-party modules.

gen OUT.pcap --ip 4|6 --frames N --frame-len L [--vlan TCI]
    N TCP frames of L bytes each (no FCS), one stream, consecutive sequence
    numbers, every checksum right, PSH on the last frame.
same A.pcap B.pcap
    The two captures hold the same frames, byte for byte.
check IN.pcap OUT.pcap --max-frame M [--mss S]
    The frames of OUT are segments of the stream in IN: every one at most
    M bytes (and carries at most S payload bytes), checksums right, IPv4
    IDs incrementing, FIN/PSH only where the input had them at the end of a
    frame, and the payload reassembled by sequence number equals IN's byte
    for byte. Prints a summary; exits non-zero on any mismatch.
"""
import argparse
import struct
import sys

SRC_MAC = bytes.fromhex("021a86000001")
DST_MAC = bytes.fromhex("021a86000002")


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i // 1000,
                                (i % 1000) * 1000, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    off, frames = 24, []
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + "IIII", data[off:off + 16])
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def tcp_frame(ipv, seq, payload, flags, ident, vlan):
    tcp = struct.pack("!HHIIBBHHH", 40000, 5201, seq, 1, 5 << 4, flags,
                      65535, 0, 0) + payload
    if ipv == 4:
        src, dst = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), ident,
                         0x4000, 64, 6, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", 0xFFFF - csum(ip)) + ip[12:]
        pseudo = src + dst + struct.pack("!BBH", 0, 6, len(tcp))
        etype = 0x0800
    else:
        src = bytes.fromhex("fd000000000000000000000000000001")
        dst = bytes.fromhex("fd000000000000000000000000000002")
        ip = struct.pack("!IHBB16s16s", 6 << 28, len(tcp), 6, 64, src, dst)
        pseudo = src + dst + struct.pack("!IxxxB", len(tcp), 6)
        etype = 0x86DD
    c = 0xFFFF - csum(pseudo + tcp)
    tcp = tcp[:16] + struct.pack("!H", c) + tcp[18:]
    l2 = DST_MAC + SRC_MAC
    if vlan is not None:
        l2 += struct.pack("!HH", 0x8100, vlan)
    return l2 + struct.pack("!H", etype) + ip + tcp


def gen(a):
    hdr = 14 + (4 if a.vlan is not None else 0) + (20 if a.ip == 4 else 40) + 20
    plen = a.frame_len - hdr
    frames, seq = [], 1000
    for i in range(a.frames):
        payload = bytes((seq + j * 31 + (j >> 8)) & 0xFF for j in range(plen))
        flags = 0x10 | (0x08 if i == a.frames - 1 else 0)
        frames.append(tcp_frame(a.ip, seq, payload, flags, 100 + i, a.vlan))
        seq += plen
    write_pcap(a.out, frames)


def parse(fr):
    """(ip version, ip header, tcp header, payload, ip-ok, tcp-ok) or None."""
    off = 12
    etype = struct.unpack("!H", fr[off:off + 2])[0]
    if etype == 0x8100:
        off += 4
        etype = struct.unpack("!H", fr[off:off + 2])[0]
    off += 2
    if etype == 0x0800:
        ihl = (fr[off] & 0xF) * 4
        tot = struct.unpack("!H", fr[off + 2:off + 4])[0]
        ip = fr[off:off + ihl]
        tcp_all = fr[off + ihl:off + tot]
        ip_ok = csum(ip) == 0xFFFF
        pseudo = ip[12:20] + struct.pack("!BBH", 0, 6, len(tcp_all))
        v = 4
    elif etype == 0x86DD:
        plen = struct.unpack("!H", fr[off + 4:off + 6])[0]
        ip = fr[off:off + 40]
        tcp_all = fr[off + 40:off + 40 + plen]
        ip_ok = True
        pseudo = ip[8:40] + struct.pack("!IxxxB", len(tcp_all), 6)
        v = 6
    else:
        return None
    doff = (tcp_all[12] >> 4) * 4
    tcp_ok = csum(pseudo + tcp_all) == 0xFFFF
    return v, ip, tcp_all[:doff], tcp_all[doff:], ip_ok, tcp_ok


def check(a):
    inp, out = read_pcap(a.inp), read_pcap(a.out)
    stream, origin = {}, []
    for fr in inp:
        v, ip, tcp, pay, _, _ = parse(fr)
        seq = struct.unpack("!I", tcp[4:8])[0]
        stream[seq] = pay
        ident = struct.unpack("!H", ip[4:6])[0] if v == 4 else None
        origin.append((seq, seq + len(pay), ident, tcp[13]))
    want = b"".join(stream[k] for k in sorted(stream))
    errors, got = [], {}
    for i, fr in enumerate(out):
        p = parse(fr)
        if p is None:
            errors.append("frame %d: not IP" % i)
            continue
        v, ip, tcp, pay, ip_ok, tcp_ok = p
        if len(fr) > a.max_frame:
            errors.append("frame %d: %d bytes > %d" % (i, len(fr), a.max_frame))
        if a.mss and len(pay) > a.mss:
            errors.append("frame %d: payload %d > mss %d" % (i, len(pay), a.mss))
        if not ip_ok or not tcp_ok:
            errors.append("frame %d: bad checksum ip=%s tcp=%s" % (i, ip_ok, tcp_ok))
        seq = struct.unpack("!I", tcp[4:8])[0]
        got[seq] = pay
        src = [o for o in origin if o[0] <= seq < o[1]]
        if not src:
            errors.append("frame %d: seq %d is in no input frame" % (i, seq))
            continue
        start, end, in_id, in_flags = src[0]
        ends_input = seq + len(pay) == end
        # PSH and FIN only on the segment that ends a frame that had them.
        if tcp[13] & 0x09 != (in_flags & 0x09 if ends_input else 0):
            errors.append("frame %d: flags 0x%02x" % (i, tcp[13]))
        if v == 4 and a.mss:
            want_id = (in_id + (seq - start) // a.mss) & 0xFFFF
            ident = struct.unpack("!H", ip[4:6])[0]
            if ident != want_id:
                errors.append("frame %d: IPv4 ID %d, want %d" % (i, ident, want_id))
    data = b"".join(got[k] for k in sorted(got))
    if data != want:
        errors.append("payload differs: %d bytes out, %d in" % (len(data), len(want)))
    print("check: %d frames in, %d frames out, %d payload bytes, largest frame %d, %d errors"
          % (len(inp), len(out), len(data), max((len(f) for f in out), default=0), len(errors)))
    for e in errors[:20]:
        print("  " + e)
    return 1 if errors or not out else 0


def same(a):
    x, y = read_pcap(a.a), read_pcap(a.b)
    diff = sum(1 for f, g in zip(x, y) if f != g) + abs(len(x) - len(y))
    print("same: %d and %d frames, %d differ" % (len(x), len(y), diff))
    return 1 if diff or not x else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("out")
    g.add_argument("--ip", type=int, choices=(4, 6), default=4)
    g.add_argument("--frames", type=int, default=8)
    g.add_argument("--frame-len", type=int, default=9014)
    g.add_argument("--vlan", type=int)
    c = sub.add_parser("check")
    c.add_argument("inp")
    c.add_argument("out")
    c.add_argument("--max-frame", type=int, required=True)
    c.add_argument("--mss", type=int, default=0)
    d = sub.add_parser("same")
    d.add_argument("a")
    d.add_argument("b")
    a = ap.parse_args()
    if a.cmd == "gen":
        gen(a)
        return 0
    if a.cmd == "same":
        return same(a)
    return check(a)


if __name__ == "__main__":
    sys.exit(main())
