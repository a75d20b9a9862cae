#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
# §N: section N of doc/guides/nics/ch39x_protocol.rst
"""Write the seed corpora of tests/fuzz/corpus/<harness>/.

Deterministic: running it again rewrites the same files. Each seed follows
the input layout documented at the top of its harness. Valid inputs are
built here from the protocol reference (records, events, TCP/UDP frames
with correct checksums) and, for CDC-NCM/ECM, from what the Linux 6.1
gadget sends (§16: NTB16, the NDP after the datagrams, wSequence 0;
f_ncm/f_ecm descriptors); edge cases are made by hand next to them. Inputs found by fuzzing and kept as regression tests
(named <harness>-...) are left in place.

Usage: tests/fuzz/make_corpus.py [OUTDIR]   (default: tests/fuzz/corpus)
"""

import os
import shutil
import struct
import sys

HDR = 8
TX_LS = 1 << 20
TX_TSO6 = 1 << 22
TX_TSO4 = 1 << 23
TX_CSUM_TCP = 1 << 11
TX_CSUM_UDP = 1 << 12
TX_CSUM_IP4 = 1 << 13
TX_VLAN = 1 << 15
RX_UDP4_CHK = 1 << 0
RX_UDP6_CHK = 1 << 1
RX_TCP4_CHK = 1 << 2
RX_TCP6_CHK = 1 << 3
RX_IP_ERR = 1 << 7
RX_TCP_ERR = 1 << 8
RX_UDP_ERR = 1 << 9
RX_VLAN = 1 << 15

DST = bytes.fromhex("021a86539701")
SRC = bytes.fromhex("021a86539802")
IP4_SRC = bytes([192, 168, 39, 1])
IP4_DST = bytes([192, 168, 39, 2])
IP6_SRC = bytes.fromhex("fd000000000000000000000000000001")
IP6_DST = bytes.fromhex("fd000000000000000000000000000002")


# ---- frames ----

def csum(data, start=0):
    if len(data) % 2:
        data += b"\0"
    s = start
    for i in range(0, len(data), 2):
        s += (data[i] << 8) | data[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def finish(s):
    return (~s) & 0xFFFF


def payload(n, seed=0):
    return bytes((i * 7 + seed) & 0xFF for i in range(n))


def eth(etype, vlan=None):
    h = DST + SRC
    if vlan is not None:
        h += struct.pack(">HH", 0x8100, vlan)
    return h + struct.pack(">H", etype)


def tcp_hdr(seq, flags, opts=b""):
    doff = (20 + len(opts)) // 4
    return struct.pack(">HHIIBBHHH", 40000, 80, seq, 1, doff << 4, flags,
                       65535, 0, 0) + opts


def udp_hdr(plen):
    return struct.pack(">HHHH", 53000, 53, 8 + plen, 0)


def l4_fill(l4, proto, pseudo):
    """Set the TCP/UDP checksum of l4 given the pseudo header sum."""
    s = csum(l4, pseudo + proto + len(l4))
    c = finish(s)
    if proto == 17 and c == 0:
        c = 0xFFFF
    off = 6 if proto == 17 else 16
    return l4[:off] + struct.pack(">H", c) + l4[off + 2:]


def ipv4(l4, proto, ident=0x1234, frag=0x4000, opts=b"", good=True):
    ihl = (20 + len(opts)) // 4
    h = struct.pack(">BBHHHBBH4s4s", 0x40 | ihl, 0, 20 + len(opts) + len(l4),
                    ident, frag, 64, proto, 0, IP4_SRC, IP4_DST) + opts
    c = finish(csum(h)) if good else 0xBEEF
    h = h[:10] + struct.pack(">H", c) + h[12:]
    l4 = l4_fill(l4, proto, csum(IP4_SRC + IP4_DST))
    return h + l4


def ipv6(l4, proto):
    h = struct.pack(">IHBB16s16s", 0x60000000, len(l4), proto, 64,
                    IP6_SRC, IP6_DST)
    return h + l4_fill(l4, proto, csum(IP6_SRC + IP6_DST))


def tcp4(n, vlan=None, flags=0x18, opts=b"", seed=0):
    return eth(0x0800, vlan) + ipv4(tcp_hdr(1000, flags, opts) +
                                    payload(n, seed), 6)


def udp4(n, vlan=None, seed=1):
    return eth(0x0800, vlan) + ipv4(udp_hdr(n) + payload(n, seed), 17)


def tcp6(n, vlan=None, flags=0x18, seed=2):
    return eth(0x86DD, vlan) + ipv6(tcp_hdr(7000, flags) + payload(n, seed), 6)


def udp6(n, seed=3):
    return eth(0x86DD) + ipv6(udp_hdr(n) + payload(n, seed), 17)


def pad60(f):
    return f + b"\0" * max(0, 60 - len(f))


# ---- vendor records ----

def pad4(b):
    return b + b"\0" * (-len(b) % 4)


def rx_rec(frame, info=0, hdr_len=None):
    n = len(frame) if hdr_len is None else hdr_len
    return pad4(struct.pack("<II", n, info) + frame)


def tx_rec(frame, cmd0=0, cmd1=0):
    return pad4(struct.pack("<II", len(frame) | cmd0, cmd1) + frame)


def vendor_rx_input(profile, xfers, flags=0, reset_at=0):
    """Profile 0..3, a list of transfers (bytes); see fuzz_vendor_rx.c."""
    assert 1 <= len(xfers) <= 8
    b = bytes([profile | flags, (len(xfers) - 1) | (reset_at << 4)])
    for x in xfers[:-1]:
        b += struct.pack("<H", len(x))
    return b + b"".join(xfers)


def wf_input(profile, lens, infos, cuts, seed=0x5A):
    """Well-formed mode: record lengths, cmd_1 values (V02), transfer
    lengths in 4-byte units for all transfers but the last."""
    v02 = profile != 0
    lo, hi = 60, (9216 if v02 else 1518)
    b = bytes([profile | 8, len(cuts), len(lens) - 1, seed])
    for n, info in zip(lens, infos):
        b += struct.pack("<H", (n - lo) % (hi - lo + 1))
        if v02:
            b += struct.pack("<I", info)
    for c in cuts:
        b += struct.pack("<H", c)
    return b


def split(stream, *cuts):
    out, last = [], 0
    for c in cuts:
        out.append(stream[last:c])
        last = c
    out.append(stream[last:])
    return out


def tso_input(frame, l2, l3, l4, mss, mode=0):
    return struct.pack("<BBBBH", mode, l2, l3, l4, mss) + frame


def event(status, rx=0, ovf=0, crc=0, tx=0, size=16):
    e = struct.pack("<IIHHI", status, rx, ovf, crc, tx)
    return e + b"\0" * (size - len(e))


# ---- corpora ----

def vendor_rx():
    s = {}
    f60, f100, f1514 = pad60(udp4(10)), tcp4(32), tcp4(1446)
    s["v01_three_records"] = vendor_rx_input(
        0, [rx_rec(f60) + rx_rec(f100) + rx_rec(f1514)])
    s["v02_info_flags"] = vendor_rx_input(1, [
        rx_rec(tcp4(200), RX_TCP4_CHK) +
        rx_rec(tcp4(64), RX_TCP4_CHK | RX_IP_ERR) +
        rx_rec(tcp4(65), RX_TCP4_CHK | RX_TCP_ERR) +
        rx_rec(udp6(99), RX_UDP6_CHK) +
        rx_rec(udp4(50), RX_UDP4_CHK | RX_UDP_ERR) +
        rx_rec(tcp6(70), RX_TCP6_CHK) +
        rx_rec(tcp4(80), RX_VLAN | (0x2064 << 16))])
    stream = rx_rec(f100) + rx_rec(f1514) + rx_rec(f60)
    a = len(rx_rec(f100))
    s["straddle_pair"] = vendor_rx_input(2, split(stream, a + 700))
    s["straddle_in_header"] = vendor_rx_input(2, split(stream, a + 3))
    s["straddle_three_xfers"] = vendor_rx_input(
        1, split(stream, a + 100, a + 900))
    s["header_over_three_xfers"] = vendor_rx_input(
        2, split(stream, a + 3, a + 5))
    s["bad_header_in_carry"] = vendor_rx_input(
        2, [rx_rec(f60) + b"\xff\xff\0\0", b"\0\0\0\0" + rx_rec(f60)])
    s["unpadded_last_record"] = vendor_rx_input(
        0, [rx_rec(f100) + struct.pack("<II", 61, 0) + payload(61, 3)])
    s["straddle_then_reset"] = vendor_rx_input(
        2, split(stream, a + 700), flags=4, reset_at=1)
    jumbo = tcp4(9000)
    s["jumbo_fullspeed_straddle"] = vendor_rx_input(
        3, split(rx_rec(jumbo) + rx_rec(f60), 8192))
    s["max_frame_9216"] = vendor_rx_input(
        1, [rx_rec(payload(9216, 5))])
    s["over_max_9217_v02"] = vendor_rx_input(
        1, [rx_rec(payload(200, 6), hdr_len=9217)])
    s["over_max_1519_v01"] = vendor_rx_input(
        0, [rx_rec(payload(1519, 7)) + rx_rec(f60)])
    s["hdr_len_zero"] = vendor_rx_input(
        0, [rx_rec(f100, hdr_len=0) + rx_rec(f60)])
    s["hdr_len_ffff"] = vendor_rx_input(
        1, [rx_rec(f100, hdr_len=0xFFFF), rx_rec(f60)])
    s["hdr_len_59"] = vendor_rx_input(
        0, [rx_rec(payload(59, 8)) + rx_rec(f60)])
    s["hdr_len_60"] = vendor_rx_input(0, [rx_rec(payload(60, 9))])
    s["hdr_high_bits"] = vendor_rx_input(
        2, [rx_rec(f100, hdr_len=len(f100) | 0xABCD0000)])
    s["truncated_header"] = vendor_rx_input(
        2, [rx_rec(f60) + rx_rec(f100)[:5], rx_rec(f100)[5:]])
    s["short_xfers"] = vendor_rx_input(
        0, [b"\x40\0\0\0", b"", rx_rec(f60)[:67], rx_rec(f60)])
    s["zero_padding_tail"] = vendor_rx_input(
        1, [rx_rec(f60) + b"\0" * 7, rx_rec(f100)])
    s["wf_v01_cuts"] = wf_input(0, [60, 1518, 61, 333], [0] * 4,
                                [20, 300, 1, 0, 100])
    s["wf_v02_fs_jumbo"] = wf_input(3, [9216, 9000, 64], [
        RX_TCP4_CHK, RX_VLAN | (7 << 16), RX_UDP6_CHK | RX_UDP_ERR],
        [2048, 2048, 1, 17])
    s["wf_v02_hs_mark_short"] = wf_input(2 | 0x10, [100, 2000, 60, 700],
                                         [0, RX_VLAN, 0, RX_TCP4_CHK],
                                         [27, 0, 300])
    s["short_xfer_truncated"] = vendor_rx_input(
        2 | 0x10, split(stream, a + 700))
    s["wf_v02_ss_many"] = wf_input(1, list(range(60, 60 + 16 * 97, 97)),
                                   [i * 0x01010101 for i in range(16)],
                                   [50, 7, 400, 3, 1000, 0, 2])
    s["record_longer_than_xfer"] = vendor_rx_input(
        0, [rx_rec(f1514)[:600]])
    return s


def event_seeds():
    return {
        "v01_link_up_100fd": b"\0" + event(0x41, 5, 0, 0, 7),
        "v01_link_down": b"\0" + event(0x00, 0xFFFFFFFF, 0xFFFF, 3, 1),
        "v01_10m": b"\0" + event(0xC0, 1, 2, 3, 4),
        "v02_link_up_1000fd": b"\x01" + event(0x51, 9, 1, 0, 9, size=32),
        "v02_10_and_1000": b"\x01" + event(0xD1, 9, 1, 0, 9, size=32),
        "v02_all_ones": b"\x01" + b"\xff" * 32,
        "v02_long": b"\x01" + event(0x40, size=64),
        "v02_short_16": b"\x01" + event(0x51),
        "v01_short_15": b"\0" + event(0x41)[:15],
        "empty": b"\0",
    }


def net_seeds():
    frag = eth(0x0800) + ipv4(tcp_hdr(1, 0x10) + payload(16), 6, frag=0x2000)
    udp0 = bytearray(udp4(30))
    udp0[14 + 20 + 6:14 + 20 + 8] = b"\0\0"
    bad_ck = bytearray(tcp4(40))
    bad_ck[-1] ^= 0xFF
    arp = eth(0x0806) + payload(28, 4)
    ihl4 = bytearray(tcp4(10))
    ihl4[14] = 0x44
    ip_len_big = bytearray(tcp4(10))
    ip_len_big[16:18] = b"\xff\xff"
    doff_big = bytearray(tcp4(10))
    doff_big[14 + 20 + 12] = 0xF0
    return {
        "ipv4_tcp": tcp4(100),
        "ipv4_udp": udp4(50),
        "ipv4_udp_zero_csum": bytes(udp0),
        "ipv4_tcp_options": tcp4(20, opts=b"\x01\x01\x08\x0a" + b"\0" * 8),
        "ipv4_ip_options": eth(0x0800) + ipv4(udp_hdr(4) + payload(4), 17,
                                              opts=b"\x01" * 8),
        "ipv4_fragment": frag,
        "ipv4_bad_l4_csum": bytes(bad_ck),
        "ipv4_bad_ip_csum": eth(0x0800) + ipv4(udp_hdr(8) + payload(8), 17,
                                               good=False),
        "ipv4_ihl_16": bytes(ihl4),
        "ipv4_len_ffff": bytes(ip_len_big),
        "ipv4_doff_60_short": bytes(doff_big),
        "ipv6_tcp": tcp6(300),
        "ipv6_udp": udp6(77),
        "vlan_ipv4_tcp": tcp4(60, vlan=0x0064),
        "vlan_ipv6_tcp": tcp6(10, vlan=0x2001),
        "padded_runt": pad60(udp4(2)),
        "arp": arp,
        "len_13": tcp4(0)[:13],
        "len_14": tcp4(0)[:14],
        "vlan_len_17": tcp4(0, vlan=1)[:17],
        "ipv4_trunc_33": tcp4(0)[:33],
        "ipv6_trunc_53": tcp6(0)[:53],
    }


def tso_seeds():
    opts = b"\x01\x01\x08\x0a" + payload(8, 9)
    return {
        "ipv4_3000_mss1448": tso_input(tcp4(3000, flags=0x99), 14, 20, 20,
                                       1448),
        "ipv6_2500_mss1000": tso_input(tcp6(2500, flags=0x19), 14, 40, 20,
                                       1000),
        "vlan_ipv4_opts_mss536": tso_input(
            tcp4(1500, vlan=7, opts=opts), 18, 20, 32, 536),
        "parse_mode_ipv4": tso_input(tcp4(1000), 0, 0, 0, 300, mode=1),
        "parse_mode_ipv6": tso_input(tcp6(700), 0, 0, 0, 256, mode=1),
        "no_payload": tso_input(tcp4(0), 14, 20, 20, 1448),
        "exact_multiple": tso_input(tcp4(1000), 14, 20, 20, 500),
        "mss_1": tso_input(tcp4(40), 14, 20, 20, 1),
        "mss_0": tso_input(tcp4(100), 14, 20, 20, 0),
        "mss_ffff": tso_input(tcp4(100), 14, 20, 20, 0xFFFF),
        "l3_mismatch": tso_input(tcp4(100), 14, 24, 20, 64),
        "hdrs_too_long": tso_input(tcp4(100), 200, 60, 60, 64),
        "udp_not_tcp": tso_input(udp4(100), 14, 20, 20, 64),
    }


def sim_out_seeds():
    s = {}
    v01 = (tx_rec(tcp4(100)) + tx_rec(udp4(10)) + tx_rec(tcp4(1446)))
    s["ch397_aggregate"] = b"\x00" + v01
    # A 512-byte multiple ends with a ZLP on V01.
    f = tcp4(512 - HDR - 54)
    s["ch397_maxp_zlp"] = b"\x04" + tx_rec(f)
    s["ch397_maxp_no_zlp"] = b"\x00" + tx_rec(f)
    # CH398 high speed: offloads, VLAN insert, TX_LS and trailer.
    recs = (tx_rec(tcp4(200), 0, TX_CSUM_IP4 | TX_CSUM_TCP) +
            tx_rec(udp4(100), 0, TX_CSUM_IP4 | TX_CSUM_UDP) +
            tx_rec(tcp6(60), 0, TX_CSUM_TCP | TX_VLAN | (0x0123 << 16)))
    end = (len(recs) + HDR + 54 + 511) // 512 * 512
    last = tcp4(end - len(recs) - HDR - 54)
    agg = recs + tx_rec(last, TX_LS, TX_CSUM_IP4 | TX_CSUM_TCP)
    s["ch398_hs_offloads_tx_ls"] = b"\x02" + agg + b"\0" * 4
    s["ch398_ss_offloads"] = b"\x01" + recs
    # Hardware TSO: TCPHO is the payload offset, MSS in cmd_1.
    f4 = tcp4(4000, flags=0x99)
    s["ch398_ss_tso4"] = b"\x01" + tx_rec(f4, TX_TSO4 | (54 << 24), 1448)
    f6 = tcp6(3000, vlan=5)
    s["ch398_hs_tso6_vlan_in"] = b"\x12" + tx_rec(
        f6, TX_TSO6 | (78 << 24), 1200 | TX_VLAN | (0x0FFF << 16))
    s["ch398_fs_tso4_vlan_insert"] = b"\x1b" + tx_rec(
        tcp4(2000), TX_TSO4 | (54 << 24), 700 | TX_VLAN | (0x0042 << 16))
    s["ch398_ss_jumbo_vlan_strip"] = b"\x19" + tx_rec(
        tcp4(3000, vlan=0x0064), 0, TX_CSUM_IP4 | TX_CSUM_TCP)
    s["ch398_ss_vlan_strip_runt"] = b"\x09" + tx_rec(
        eth(0x0800, vlan=3) + payload(46, 1))
    s["v02_max_9216_vlan"] = b"\x11" + tx_rec(payload(9216, 2), 0,
                                               TX_VLAN | (9 << 16))
    # Full speed, jumbo: a record larger than a whole 8 KiB IN transfer.
    s["ch398_fs_jumbo_split_in"] = b"\x13" + tx_rec(tcp4(9000 - 54))
    s["tx_ls_bad_trailer"] = b"\x02" + tx_rec(tcp4(100), TX_LS) + b"\0" * 9
    s["tso_eth_only"] = b"\x01" + tx_rec(eth(0x0800), TX_TSO4 | (54 << 24),
                                        64)
    s["len_13"] = b"\x01" + tx_rec(payload(13))
    s["len_3ffff"] = b"\x02" + struct.pack("<II", 0x3FFFF, 0) + payload(64)
    s["len_past_end"] = b"\x00" + struct.pack("<II", 200, 0) + payload(100)
    s["truncated_header"] = b"\x02" + tx_rec(tcp4(20)) + b"\x40\0\0"
    s["tso_mss_0"] = b"\x01" + tx_rec(tcp4(100), TX_TSO4 | (54 << 24), 0)
    s["tso_tcpho_small"] = b"\x01" + tx_rec(tcp4(100), TX_TSO4 | (20 << 24),
                                            64)
    s["empty"] = b"\x02"
    return s



# ---- CDC-NCM ----

NTH16_SIGN = 0x484D434E
NTH32_SIGN = 0x686D636E
NDP16_SIGN = 0x304D434E
NDP16_CRC_SIGN = 0x314D434E
NDP32_SIGN = 0x306D636E


def align(x, a):
    return (x + a - 1) // a * a


def nth16(block, ndp, seq=0):
    return struct.pack("<IHHHH", NTH16_SIGN, 12, seq, block, ndp)


def nth32(block, ndp, seq=0):
    return struct.pack("<IHHII", NTH32_SIGN, 16, seq, block, ndp)


def ndp16(entries, nxt=0, sign=NDP16_SIGN, null=True):
    ents = list(entries) + ([(0, 0)] if null else [])
    return struct.pack("<IHH", sign, 8 + 4 * len(ents), nxt) + b"".join(
        struct.pack("<HH", i, n) for i, n in ents)


def ndp32(entries, nxt=0):
    ents = list(entries) + [(0, 0)]
    return struct.pack("<IHHII", NDP32_SIGN, 16 + 8 * len(ents), 0, nxt,
                       0) + b"".join(struct.pack("<II", i, n)
                                     for i, n in ents)


def put(buf, off, data):
    if len(buf) < off + len(data):
        buf.extend(b"\0" * (off + len(data) - len(buf)))
    buf[off:off + len(data)] = data


def gadget_ntb16(frames, seq=0):
    """As the Linux 6.1 f_ncm sends (FINDINGS.md): NTB16, datagrams from
    offset 12 aligned to 4, the NDP after them, wSequence 0."""
    b = bytearray(12)
    ents = []
    for f in frames:
        off = align(len(b), 4)
        put(b, off, f)
        ents.append((off, len(f)))
    ndp = align(len(b), 4)
    put(b, ndp, ndp16(ents))
    b[0:12] = nth16(len(b), ndp, seq)
    return bytes(b)


def host_ntb16(frames, seq=0):
    """As a Linux host sends: NDP right after the NTH, datagram payloads
    aligned to 4 (wNdpOutDivisor 4, remainder 0)."""
    ndp_len = 8 + 4 * (len(frames) + 1)
    b = bytearray(12 + ndp_len)
    ents = []
    for f in frames:
        off = len(b) + (2 - len(b)) % 4
        put(b, off, f)
        ents.append((off, len(f)))
    put(b, 12, ndp16(ents))
    b[0:12] = nth16(len(b), 12, seq)
    return bytes(b)


def ntb32(frames, seq=0):
    ndp_len = 16 + 8 * (len(frames) + 1)
    b = bytearray(16 + ndp_len)
    ents = []
    for f in frames:
        off = align(len(b), 4)
        put(b, off, f)
        ents.append((off, len(f)))
    put(b, 16, ndp32(ents))
    b[0:16] = nth32(len(b), 16, seq)
    return bytes(b)


def ncm_raw(xfers, ntb32_=False, max_ntb=0, min_dgram=0, max_dgram=0,
            reset_at=None):
    """Raw mode of fuzz_ncm_rx.c."""
    assert 1 <= len(xfers) <= 4
    flags = (1 if ntb32_ else 0) | (4 if reset_at is not None else 0)
    b = bytes([flags, (len(xfers) - 1) | ((reset_at or 0) << 4)])
    b += struct.pack("<HBH", max_ntb, min_dgram, max_dgram)
    for x in xfers[:-1]:
        b += struct.pack("<H", len(x))
    return b + b"".join(xfers)


def ncm_rt(lens, ntb32_=False, ndp_at_end=False, zlp=False, raw_rem=False,
           rx_max=False, modulo=False, clamp=False, dev_max=16384, size=0,
           div=4, rem=0, ndp_align=4, max_dgrams=0, entries=0, maxp=512,
           max_dgram_len=0, seed=0x33):
    """Round-trip mode of fuzz_ncm_rx.c; a length of 0xFFFF flushes."""
    f = (2 | (1 if ntb32_ else 0) | (4 if ndp_at_end else 0) |
         (8 if zlp else 0) | (0x10 if raw_rem else 0) |
         (0x20 if rx_max else 0) | (0x40 if modulo else 0) |
         (0x80 if clamp else 0))
    b = bytes([f]) + struct.pack("<IIHHHHHHHB", dev_max, size, div, rem,
                                 ndp_align, max_dgrams, entries, maxp,
                                 max_dgram_len, seed)
    return b + b"".join(struct.pack("<H", n) for n in lens)


def ncm_rx_seeds():
    s = {}
    arp = eth(0x0806) + payload(28, 4)
    f60, f100, f1514 = pad60(udp4(10)), tcp4(32), tcp4(1446)
    s["gadget_one"] = ncm_raw([gadget_ntb16([arp])])
    s["gadget_three_two_xfers"] = ncm_raw(
        [gadget_ntb16([f60, f100]), gadget_ntb16([f1514])])
    s["host_ndp_first"] = ncm_raw([host_ntb16([f100, f60, f1514], seq=7)])
    s["ntb32_two"] = ncm_raw([ntb32([f60, f1514])], ntb32_=True)
    # Two chained NDPs, the second one after the datagrams.
    b = bytearray(12)
    put(b, 12, ndp16([(44, len(f60))], nxt=0))
    put(b, 44, f60)
    n2 = align(len(b), 4)
    put(b, n2, ndp16([(n2 + 16, len(f100))]))
    put(b, n2 + 16, f100)
    b[16:18] = b"\0\0"
    b[12:12 + 16] = ndp16([(44, len(f60))], nxt=n2)
    b[0:12] = nth16(len(b), 12)
    s["chained_ndps"] = ncm_raw([bytes(b)])
    # An NDP that names itself as the next one.
    b = bytearray(gadget_ntb16([f60]))
    ndp = struct.unpack_from("<H", b, 10)[0]
    struct.pack_into("<H", b, ndp + 6, ndp)
    s["ndp_loop_self"] = ncm_raw([bytes(b)])
    # A CRC NDP (skipped) chained to a plain one.
    b = bytearray(12)
    put(b, 12, ndp16([(60, len(f60))], nxt=28, sign=NDP16_CRC_SIGN))
    put(b, 28, ndp16([(60, len(f60))]))
    put(b, 60, f60)
    b[0:12] = nth16(len(b), 12)
    s["crc_ndp_skipped"] = ncm_raw([bytes(b)])
    # 52 NDPs in a chain: only 50 are read.
    b = bytearray(12)
    for i in range(52):
        off = 12 + 16 * i
        put(b, off, ndp16([(12 + 16 * 52, 60)],
                          nxt=off + 16 if i < 51 else 0))
    put(b, len(b), f60)
    b[0:12] = nth16(len(b), 12)
    s["ndp_chain_52"] = ncm_raw([bytes(b)])
    g = bytearray(gadget_ntb16([f100]))
    g[8:10] = b"\0\0"
    s["block_len_zero"] = ncm_raw([bytes(g) + b"\0" * 9])
    s["block_past_xfer"] = ncm_raw([gadget_ntb16([f1514])[:1000]])
    g = bytearray(gadget_ntb16([f60]))
    g[4] = 16
    s["bad_hdr_len"] = ncm_raw([bytes(g)])
    s["short_xfer"] = ncm_raw([b"NCMH\x0c\0"])
    # Entries: past the block, zero length (ends the NDP), in the NTH,
    # too long for max_dgram, and a good one.
    b = bytearray(12)
    put(b, 12, ndp16([(4000, 60), (8, 60), (64, 1400), (64, 60), (64, 0),
                      (64, 60)]))
    put(b, 64, payload(120, 9))
    b[0:12] = nth16(len(b), 12)
    s["bad_entries"] = ncm_raw([bytes(b)], max_dgram=1000)
    b = bytearray(12)
    put(b, 12, ndp16([(0, 60), (32, 60)]))
    put(b, 32, payload(60, 2))
    b[0:12] = nth16(len(b), 12)
    s["zero_index_entry"] = ncm_raw([bytes(b)])
    s["empty_ndp"] = ncm_raw([nth16(28, 12) + ndp16([(0, 0)])])
    s["no_ndp"] = ncm_raw([nth16(12, 0)])
    s["ndp_unaligned"] = ncm_raw(
        [nth16(32, 14) + b"\0\0" + ndp16([(0, 0)]) + b"\0\0"])
    s["ndp_wlength_12"] = ncm_raw([nth16(24, 12) + ndp16([])])
    b = bytearray(12)
    put(b, 12, ndp16([(28, 60), (28, 60)], null=False))
    put(b, 28, payload(60, 3))
    b[0:12] = nth16(len(b), 12)
    s["ndp_no_null"] = ncm_raw([bytes(b)])
    s["seq_gap_then_reset"] = ncm_raw(
        [host_ntb16([f60], seq=1), host_ntb16([f60], seq=2),
         host_ntb16([f60], seq=9), host_ntb16([f60], seq=3)], reset_at=3)
    s["gadget_seq_zero_x3"] = ncm_raw(
        [gadget_ntb16([f60]), gadget_ntb16([f100]), gadget_ntb16([arp])])
    s["max_ntb_small"] = ncm_raw([gadget_ntb16([f1514, f60])], max_ntb=1024)
    s["min_dgram_60"] = ncm_raw([gadget_ntb16([arp, f60, eth(0x0800)])],
                                min_dgram=60)
    s["ntb16_sig_in_ntb32"] = ncm_raw([gadget_ntb16([f60])], ntb32_=True)
    # Round trip: the gadget's parameters, host style and Huawei style.
    s["rt_gadget_full"] = ncm_rt([1514] * 12 + [60, 0xFFFF, 14, 1514])
    s["rt_pad_512"] = ncm_rt([358])
    s["rt_zlp_512"] = ncm_rt([358], zlp=True)
    s["rt_ndp_end_ntb32"] = ncm_rt([60, 1514, 9014, 100] * 3, ntb32_=True,
                                   ndp_at_end=True, dev_max=32768,
                                   size=32768, max_dgram_len=9014)
    s["rt_max_dgrams_2"] = ncm_rt([100] * 7, max_dgrams=2)
    s["rt_max_dgrams_burst"] = ncm_rt([100, 100, 0xFFFF, 100],
                                      max_dgrams=2)
    s["rt_entries_3"] = ncm_rt([200] * 7, entries=3)
    s["rt_div64_rem10"] = ncm_rt([61, 1514, 77, 1000], div=64, rem=10,
                                 ndp_align=16, raw_rem=True, rx_max=True)
    s["rt_dev_max_2048"] = ncm_rt([1514, 600, 1514, 30], dev_max=2048,
                                  ndp_align=1024)
    s["rt_ntb16_64k"] = ncm_rt([9000] * 9, dev_max=100000, size=130000,
                               max_dgram_len=9014, clamp=True)
    s["rt_256_entries"] = ncm_rt([14] * 300, ntb32_=True, dev_max=65536,
                                 size=65536, entries=300)
    s["rt_modulo_fs"] = ncm_rt(list(range(0, 60000, 997)), modulo=True,
                               maxp=64, ndp_at_end=True)
    s["rt_bogus_params"] = ncm_rt([60, 1514], dev_max=0, div=3, rem=9,
                                  ndp_align=0, maxp=1)
    s["rt_init_fails"] = ncm_rt([60], dev_max=20)
    s["rt_maxp_0"] = ncm_rt([60], maxp=0)
    return s


GADGET_NTB_PARAMS = struct.pack("<HHIHHHHIHHHH", 28, 3, 16384, 4, 0, 4, 0,
                                16384, 4, 0, 4, 0)


def ntb_params(length=28, formats=3, in_max=16384, in_div=4, in_rem=0,
               in_align=4, out_max=16384, out_div=4, out_rem=0,
               out_align=4, out_dgrams=0):
    return struct.pack("<HHIHHHHIHHHH", length, formats, in_max, in_div,
                       in_rem, in_align, 0, out_max, out_div, out_rem,
                       out_align, out_dgrams)


def params_ctl(flags=0, maxp=512, size=0, entries=0, lens=()):
    """Bytes 28.. of fuzz_ncm_params.c."""
    return struct.pack("<BHIB", flags, maxp, size, entries) + b"".join(
        struct.pack("<H", n) for n in lens)


def ncm_params_seeds():
    return {
        "gadget": GADGET_NTB_PARAMS,
        "gadget_ntb32_ndp_end": ntb_params(length=64) + params_ctl(
            0x03, lens=(1514, 1514, 60, 9000)),
        "gadget_zlp_raw_maxp": ntb_params(length=64) + params_ctl(
            0x34 | 0x08, maxp=64, lens=(358, 1514)),
        "only_ntb32": ntb_params(formats=2),
        "no_format": ntb_params(formats=0),
        "short_27": GADGET_NTB_PARAMS[:27],
        "wlength_27": ntb_params(length=27),
        "out_max_0": ntb_params(out_max=0),
        "out_max_1000": ntb_params(out_max=1000),
        "out_max_10": ntb_params(out_max=10),
        "in_max_100": ntb_params(in_max=100),
        "out_max_huge_ntb32": ntb_params(formats=2, out_max=0xFFFFFFFF,
                                         length=64) + params_ctl(
            0x41, size=0x30000, lens=(60000, 60000, 1514)),
        "out_max_65536_ntb16": ntb_params(out_max=65536, length=64) +
        params_ctl(0x40, size=65536, lens=(65000, 1514)),
        "bad_div_rem_align": ntb_params(in_div=3, in_rem=7, in_align=0,
                                        out_div=6, out_rem=9, out_align=2),
        "div_rem_ok_16": ntb_params(out_div=16, out_rem=15, out_align=16),
        "out_dgrams_1": ntb_params(out_dgrams=1),
        "small_max_big_align": ntb_params(out_max=2048, out_align=1024,
                                          length=64) + params_ctl(
            0x80, entries=200, lens=(1514, 14, 14)),
        "maxp_1": ntb_params(length=64) + params_ctl(0x30, maxp=1),
        "maxp_0": ntb_params(length=64) + params_ctl(0x30, maxp=0),
        "empty": b"",
    }


# ---- CDC descriptors and notifications ----

def config_desc(body, total=None, n_if=2):
    t = 9 + len(body) if total is None else total
    return struct.pack("<BBHBBBBB", 9, 2, t, n_if, 1, 0, 0xC0, 1) + body


def iad(first, count, sub):
    return bytes([8, 0x0B, first, count, 2, sub, 0, 0])


def intf(num, alt, n_ep, cls, sub, proto):
    return bytes([9, 4, num, alt, n_ep, cls, sub, proto, 0])


def ep(addr, attr, maxp, interval=0):
    return struct.pack("<BBBBHB", 7, 5, addr, attr, maxp, interval)


def ss_comp():
    return bytes([6, 0x30, 0, 0, 0, 0])


def fd_header():
    return bytes([5, 0x24, 0, 0x10, 0x01])


def fd_union(master, slave):
    return bytes([5, 0x24, 6, master, slave])


def fd_ether(imac=4, max_seg=1514, mc=0):
    return struct.pack("<BBBBIHHB", 13, 0x24, 0x0F, imac, 0, max_seg, mc, 0)


def fd_ncm(caps=0x11):
    return bytes([6, 0x24, 0x1A, 0x00, 0x01, caps])


def f_ncm(first=0, maxp=512, ss=False):
    """The Linux 6.1 f_ncm function (FINDINGS.md): IAD, communication
    interface with Header, Union, Ethernet (1514) and NCM (0x11)
    descriptors and a 16-byte interrupt endpoint, data interface alt 0
    empty and alt 1 with the bulk pair, protocol NTB."""
    c = ss_comp() if ss else b""
    return (iad(first, 2, 0x0D) + intf(first, 0, 1, 2, 0x0D, 0) +
            fd_header() + fd_union(first, first + 1) + fd_ether() +
            fd_ncm() + ep(0x81, 3, 16, 9) + c +
            intf(first + 1, 0, 0, 0x0A, 0, 1) +
            intf(first + 1, 1, 2, 0x0A, 0, 1) +
            ep(0x82, 2, maxp) + c + ep(0x03, 2, maxp) + c)


def f_ecm(first=0, maxp=512, ep_base=0x84):
    return (iad(first, 2, 0x06) + intf(first, 0, 1, 2, 0x06, 0) +
            fd_header() + fd_union(first, first + 1) + fd_ether() +
            ep(ep_base | 0x80, 3, 16, 9) +
            intf(first + 1, 0, 0, 0x0A, 0, 0) +
            intf(first + 1, 1, 2, 0x0A, 0, 0) +
            ep((ep_base + 1) | 0x80, 2, maxp) + ep(ep_base + 2, 2, maxp))


def mac_string(text="021A86539701", blen=26):
    return bytes([blen, 3]) + text.encode("utf-16-le")


def notify(code, value=0, index=0, data=b""):
    return struct.pack("<BBHHH", 0xA1, code, value, index,
                       len(data)) + data


def speed(down, up, index=0):
    return notify(0x2A, 0, index, struct.pack("<II", down, up))


def notify_raw(xfers, reset_at=None):
    assert 1 <= len(xfers) <= 8
    b = bytes([2, (len(xfers) - 1) |
               ((0x80 | (reset_at << 4)) if reset_at is not None else 0)])
    for x in xfers[:-1]:
        b += struct.pack("<H", len(x))
    return b + b"".join(xfers)


def notify_wf(notes, cuts):
    """notes: (kind byte, 8 value bytes); cuts: places in the stream."""
    b = bytes([3, (len(notes) - 1) | (len(cuts) << 4)])
    for kind, v in notes:
        b += bytes([kind]) + v
    prev = 0
    for c in cuts:
        b += struct.pack("<H", c - prev)
        prev = c
    return b


def cdc_seeds():
    s = {}
    ncm = config_desc(f_ncm())
    s["cfg_gadget_ncm_hs"] = b"\0\1" + ncm
    s["cfg_gadget_ncm_ss"] = b"\0\1" + config_desc(f_ncm(maxp=1024, ss=True))
    s["cfg_gadget_ecm_hs"] = b"\0\2" + config_desc(f_ecm())
    s["cfg_ncm_and_ecm_want_ecm"] = b"\0\2" + config_desc(
        f_ncm() + f_ecm(2), n_if=4)
    # A modem: an ACM serial port (Header, Call Management, ACM, Union)
    # before its NCM and ECM functions; the walks skip it.
    acm = (iad(0, 2, 0x02)[:5] + bytes([0x02, 0x01, 0]) +
           intf(0, 0, 1, 2, 0x02, 0x01) + fd_header() +
           bytes([5, 0x24, 1, 0, 1, 4, 0x24, 2, 2]) + fd_union(0, 1) +
           ep(0x8A, 3, 10, 9) + intf(1, 0, 2, 0x0A, 0, 0) +
           ep(0x8B, 2, 512) + ep(0x0C, 2, 512))
    s["cfg_acm_ncm_ecm"] = b"\0\0" + config_desc(
        acm + f_ncm(2) + f_ecm(4), n_if=6)
    s["cfg_any_first_wins"] = b"\0\0" + config_desc(f_ecm() + f_ncm(2),
                                                    n_if=4)
    no_union = (iad(0, 2, 0x0D) + intf(0, 0, 1, 2, 0x0D, 0) + fd_header() +
                fd_ether() + fd_ncm() + ep(0x81, 3, 16, 9) +
                intf(1, 1, 2, 0x0A, 0, 1) + ep(0x82, 2, 512) +
                ep(0x03, 2, 512))
    s["cfg_no_union_iad"] = b"\0\1" + config_desc(no_union)
    s["cfg_total_len_short"] = b"\0\1" + config_desc(f_ncm(), total=40)
    s["cfg_total_len_long"] = b"\0\1" + config_desc(f_ncm(), total=999)
    s["cfg_blength_zero"] = b"\0\1" + ncm[:60] + b"\0\x24" + ncm[60:]
    s["cfg_blength_past_end"] = b"\0\1" + ncm[:-7] + b"\x09\x05\x03"
    dup = (intf(0, 0, 1, 2, 0x06, 0) + fd_header() + bytes([3, 0x24, 6]) +
           fd_union(5, 1) + fd_union(0, 1) + fd_ether(max_seg=9014) +
           fd_ether() + ep(0x81, 3, 8) + intf(1, 0, 2, 0x0A, 0, 0) +
           ep(0x82, 2, 64) + ep(0x02, 2, 64))
    s["cfg_dup_short_master"] = b"\0\2" + config_desc(dup)
    s["cfg_no_config_header"] = b"\0\0" + f_ecm()
    s["cfg_ecm_want_ncm"] = b"\0\1" + config_desc(f_ecm())
    s["cfg_mbim_want_raw_0e"] = b"\0\x0e" + config_desc(f_ncm())
    s["cfg_empty"] = b"\0\0"
    s["mac_ok"] = b"\1" + mac_string()
    s["mac_lower"] = b"\1" + mac_string("0a1b2c3d4e5f")
    s["mac_bad_digit"] = b"\1" + mac_string("0a1b2c3d4e5g")
    s["mac_blength_24"] = b"\1" + mac_string(blen=24)
    s["mac_high_byte"] = b"\1" + mac_string()[:5] + b"\1" + mac_string()[6:]
    s["mac_short"] = b"\1" + mac_string()[:25]
    # The gadget's connect sequence, 16-byte interrupt transfers.
    s["notify_gadget_connect"] = notify_raw(
        [speed(1000000000, 1000000000), notify(0, 0),
         speed(1000000000, 1000000000), notify(0, 1)])
    sp = speed(100000000, 100000000)
    s["notify_split_8"] = notify_raw([sp[:8], sp[8:], notify(0, 1)])
    s["notify_split_3_xfers"] = notify_raw([sp[:9], sp[9:12], sp[12:]])
    s["notify_split_then_reset"] = notify_raw(
        [sp[:8], sp[8:] + notify(0, 1)], reset_at=1)
    s["notify_merged"] = notify_raw([notify(0, 1) + sp + notify(1)])
    s["notify_bad_reqtype"] = notify_raw([b"\x21" + notify(0, 1)[1:]])
    s["notify_speed_short_wlength"] = notify_raw(
        [notify(0x2A, 0, 0, b"\1\2\3\4") + notify(0, 1)])
    s["notify_long_truncated"] = notify_raw([notify(0x40, 0, 0,
                                                    payload(100))[:64]])
    s["notify_short_5"] = notify_raw([notify(0, 1)[:5]])
    s["wf_gadget"] = notify_wf(
        [(1, struct.pack("<II", 10**9, 10**9)), (0, b"\0" * 8),
         (1, struct.pack("<II", 10**9, 10**9)), (0, b"\1" + b"\0" * 7)],
        [8, 16, 24, 32, 40, 48])
    s["wf_other_codes"] = notify_wf(
        [(2, b"\0" * 8), (3 | (0x20 << 2), payload(8)), (0xFF, payload(8)),
         (0, b"\1\0\3\0\0\0\0\0")], [9, 9, 30])
    return s


def ecm_desc_input(max_seg=1514, in_maxp=512, out_maxp=512, have=3,
                   zlp=False, lens=()):
    b = bytes([1 | (2 if zlp else 0), have]) + struct.pack(
        "<HHHB", max_seg, in_maxp, out_maxp, 0)
    return b + b"".join(struct.pack("<I", n) for n in lens)


def ecm_raw_input(max_frame, in_maxp, out_maxp, zlp=False, lens=()):
    b = bytes([2 if zlp else 0]) + struct.pack("<IHH", max_frame, in_maxp,
                                               out_maxp)
    return b + b"".join(struct.pack("<I", n) for n in lens)


def rel(delta):
    """A length of max_frame + delta."""
    return (2 << 30) | (delta & 0xFF)


def mult(k, delta=0):
    """A length of k * out_maxp + delta."""
    return (3 << 30) | (k << 8) | (delta & 0xFF)


def ecm_seeds():
    common = (1514, 60, 14, 13, 0, 1, rel(0), rel(1), rel(2), rel(-1),
              mult(1), mult(2), mult(2, 1), mult(3, -1), 9014)
    return {
        "gadget_hs": ecm_desc_input(lens=common),
        "gadget_hs_zlp": ecm_desc_input(zlp=True, lens=common),
        "gadget_ss": ecm_desc_input(in_maxp=1024, out_maxp=1024,
                                    lens=common),
        "gadget_fs": ecm_desc_input(in_maxp=64, out_maxp=64, lens=common),
        "max_seg_1500": ecm_desc_input(max_seg=1500, lens=(1514, rel(1))),
        "max_seg_9014": ecm_desc_input(max_seg=9014, lens=(9014, rel(1))),
        "max_seg_1536_pad": ecm_desc_input(max_seg=1536, lens=(
            1536, 1537, 1024, 1025)),
        "no_data_eps": ecm_desc_input(have=1, lens=(60,)),
        "maxp_0": ecm_desc_input(in_maxp=0, lens=(60,)),
        "raw_jumbo_9216": ecm_raw_input(9216, 512, 512, lens=common),
        "raw_maxp_0": ecm_raw_input(1514, 0, 0, lens=common),
        "raw_maxp_1": ecm_raw_input(1514, 1, 1, zlp=True, lens=common),
        "raw_max_frame_12": ecm_raw_input(12, 4, 4, lens=(12, 13, 14)),
        "raw_max_frame_big": ecm_raw_input(0xFFFFFFFF, 512, 512,
                                           lens=(rel(0), rel(-1), 70000)),
    }


# ---- devargs ----

def devargs_seeds():
    s = {
        # doc/guides/nics/ch39x.rst examples.
        "doc_ch397_loop": "sim=ch397,wire=loop",
        "doc_pair": "wire=pair:j",
        "doc_pcap": "wire=pcap:in.pcap:out.pcap",
        "doc_ch397_pair": "sim=ch397,wire=pair:b",
        "doc_ch397_super": "sim=ch397,usb_speed=super",
        # Every key.
        "sim_ch398": "sim=ch398",
        "usb_speed_full": "usb_speed=full",
        "usb_speed_high": "sim=ch397,usb_speed=high",
        "mac": "mac=02:1A:86:53:97:01",
        "mac_multicast": "mac=01:00:5E:00:00:01",
        "mac_zero": "mac=00:00:00:00:00:00",
        "rx_xfers": "rx_xfers=1,tx_xfers=64",
        "rx_xfers_65": "rx_xfers=65",
        "tx_xfers_hex": "tx_xfers=0x10",
        "xfer_size": "xfer_size=65536",
        "xfer_size_max_hex": "xfer_size=0x100000",
        "xfer_size_not_1k": "xfer_size=3000",
        "xfer_size_neg": "xfer_size=-2048",
        "tso_sw": "tso=sw",
        "rx_csum_sw": "rx_csum=sw,tso=auto",
        "link_speed_10": "link_speed=10",
        "link_speed_1000_ch397": "sim=ch397,link_speed=1000",
        "link_speed_bad": "link_speed=010",
        "sim_rate": "sim_rate=unlimited",
        "rx_copybreak_0": "rx_copybreak=0",
        "rx_copybreak_60": "rx_copybreak=60",
        "rx_copybreak_9217": "rx_copybreak=9217",
        "sim_ctrl_fail": "sim_ctrl_fail=1000",
        "sim_ctrl_fail_0": "sim_ctrl_fail=0",
        "all_keys": ("sim=ch398,usb_speed=high,wire=pair:x,"
                     "mac=02:00:00:00:00:01,rx_xfers=16,tx_xfers=10,"
                     "xfer_size=32768,tso=sw,rx_csum=sw,link_speed=100,"
                     "sim_rate=line,rx_copybreak=1024,sim_ctrl_fail=3"),
        "pair_63": "wire=pair:" + "n" * 63,
        "pair_64": "wire=pair:" + "n" * 64,
        "pcap_in_only": "wire=pcap:in.pcap:",
        "pcap_out_only": "wire=pcap::out.pcap",
        "pcap_both_empty": "wire=pcap::",
        "pcap_255": "wire=pcap:" + "i" * 255 + ":" + "o" * 255,
        "pcap_256": "wire=pcap:" + "i" * 256 + ":o",
        "pair_list": "wire=pair:[a,b]",
        "repeated_key": "sim=ch397,sim=ch398,wire=loop,wire=pair:z",
        "unknown_key": "speed=1000",
        "empty": "",
    }
    return {k: v.encode() for k, v in s.items()}


def uevent(head, *keys, end=True):
    """A kernel uevent: "ACTION@DEVPATH", then KEY=VALUE strings."""
    msg = b"\0".join([head.encode()] + [k.encode() for k in keys])
    return msg + (b"\0" if end else b"")


def uevent_seeds():
    dev = "/devices/platform/dummy_hcd.0/usb1/1-1"
    return {
        "usb_remove": uevent("remove@" + dev, "ACTION=remove",
                             "DEVPATH=" + dev, "SUBSYSTEM=usb",
                             "DEVNAME=bus/usb/001/002",
                             "DEVTYPE=usb_device", "PRODUCT=1209/1/510",
                             "TYPE=239/2/1", "BUSNUM=001", "DEVNUM=002",
                             "SEQNUM=2011"),
        "usb_add": uevent("add@" + dev, "ACTION=add", "DEVPATH=" + dev,
                          "SUBSYSTEM=usb", "DEVTYPE=usb_device",
                          "BUSNUM=001", "DEVNUM=003", "SEQNUM=2020"),
        "if_unbind": uevent("unbind@" + dev + "/1-1:1.0", "ACTION=unbind",
                            "DEVPATH=" + dev + "/1-1:1.0", "SUBSYSTEM=usb",
                            "DEVTYPE=usb_interface",
                            "INTERFACE=2/13/0", "SEQNUM=2030"),
        "net_add": uevent("add@/devices/virtual/net/veth0", "ACTION=add",
                          "DEVPATH=/devices/virtual/net/veth0",
                          "SUBSYSTEM=net", "INTERFACE=veth0", "IFINDEX=9"),
        "unterminated": uevent("remove@" + dev, "ACTION=remove",
                               "DEVPATH=" + dev, "SUBSYSTEM=usb",
                               "BUSNUM=1", "DEVNUM=65535", end=False),
        "libudev": b"libudev\0\xfe\xed\xca\xfe" + bytes(32),
        "empty": b"",
    }


# ---- the router's /cpe/wan/prefix6 parameters ----

def cpe_prefix6_seeds():
    # As usertools/ch39x-cpe-dhclient6 writes them, each check's
    # refusal, and the length bounds (95 characters, 63 for clear).
    s = {
        "deleg_56": "2001:db8:100::/56,3600,7200",
        "deleg_60_host_bits": "2001:db8:1:2ff::1/60,0,1",
        "deleg_64_infinite": "2001:db8::/64,4294967295,4294967295",
        "deleg_3": "3fff:ffff::/3,1,2",
        "deleg_dotted": "2001:db8::10.0.0.1/64,1,2",
        "clear_prefix": "2001:db8:100::/56",
        "two_fields": "2001:db8::/56,1",
        "four_fields": "2001:db8::/56,1,2,3",
        "empty_field": "2001:db8::/56,,1,2",
        "trailing_comma": "2001:db8::/56,1,2,",
        "no_len": "2001:db8::,1,2",
        "bad_len": "2001:db8::/56x,1,2",
        "len_0": "2001:db8::/0,1,2",
        "len_65": "2001:db8::/65,1,2",
        "len_huge": "2001:db8::/99999999999999999999999,1,2",
        "ipv4": "10.0.0.0/8,1,2",
        "link_local": "fe80::/64,1,2",
        "ula": "fd00::/48,1,2",
        "life_sign": "2001:db8::/56,+1,2",
        "life_2_32": "2001:db8::/56,1,4294967296",
        "life_order": "2001:db8::/56,7201,7200",
        "valid_0": "2001:db8::/56,0,0",
        "longest": "2001:db8::/56,3600," + "0" * 72 + "7200",
        "too_long": "2001:db8::/56,3600," + "0" * 73 + "7200",
        "clear_longest": "2001:db8::/" + "0" * 50 + "48",
        "clear_too_long": "2001:db8::/" + "0" * 51 + "48",
        "empty": "",
    }
    return {k: v.encode() for k, v in s.items()}


# ---- app/ch39x-usbip: a USB/IP peer's commands ----

def uip_setup(rtype, req, value=0, index=0, length=0):
    return struct.pack("<BBHHH", rtype, req, value, index, length)


def uip_submit(seq, ep, d_in, length, setup=bytes(8), flags=0, data=b"",
               npackets=0):
    """CMD_SUBMIT as vhci-hcd sends it (devid 1-1, big-endian)."""
    return struct.pack(">IIIIIIIiII", 1, seq, 0x10001, 1 if d_in else 0,
                       ep, flags, length, 0, npackets, 0) + setup + data


def uip_unlink(seq, target):
    return struct.pack(">IIIIII", 2, seq, 0x10001, 0, 0, target) + bytes(24)


def uip_ctrl(seq, rtype, req, value=0, index=0, length=0, data=b""):
    return uip_submit(seq, 0, bool(rtype & 0x80), max(length, len(data)),
                      uip_setup(rtype, req, value, index, length), data=data)


def uip_enumerate(total):
    """What Linux's hub sends before a driver binds."""
    return (uip_ctrl(1, 0x80, 6, 0x0100, 0, 64) +
            uip_ctrl(2, 0x80, 6, 0x0100, 0, 18) +
            uip_ctrl(3, 0x80, 6, 0x0200, 0, 9) +
            uip_ctrl(4, 0x80, 6, 0x0200, 0, total) +
            uip_ctrl(5, 0x80, 6, 0x0300, 0, 255) +
            uip_ctrl(6, 0x80, 6, 0x0303, 0x0409, 255) +
            uip_ctrl(7, 0x00, 9, 1))


def usbip_seeds():
    frame = eth(0x0806) + bytes(28)
    ncm = (uip_enumerate(94 + 18) +
           uip_ctrl(10, 0xA1, 0x80, 0, 0, 28) +
           uip_ctrl(11, 0x21, 0x84, 0, 0) +
           uip_ctrl(12, 0xA1, 0x87, 0, 0, 2) +
           uip_ctrl(13, 0x01, 11, 1, 1) +
           uip_submit(14, 3, True, 16) +
           uip_submit(15, 1, True, 16384) +
           uip_submit(16, 1, True, 16384) +
           uip_submit(17, 2, False, len(host_ntb16([frame])),
                      data=host_ntb16([frame])) +
           uip_submit(18, 3, True, 16) +
           uip_unlink(19, 16) + uip_unlink(20, 999) +
           uip_ctrl(21, 0x02, 1, 0, 0x81) +
           uip_ctrl(22, 0x01, 11, 0, 1))
    ecm = (uip_enumerate(88) +
           uip_ctrl(10, 0x21, 0x43, 0x0C, 0) +
           uip_ctrl(11, 0x21, 0x40, 1, 0, 6, DST) +
           uip_ctrl(12, 0x01, 11, 1, 1) +
           uip_submit(13, 3, True, 16) +
           uip_submit(14, 1, True, 1514, flags=1) +
           uip_submit(15, 2, False, 60, flags=0x40, data=pad60(frame)) +
           uip_submit(16, 1, True, 1514) +
           uip_unlink(17, 16) + uip_unlink(18, 15) +
           uip_ctrl(19, 0x81, 10, 0, 1, 1) +
           uip_ctrl(20, 0x80, 0, 0, 0, 2))
    vendor = (uip_enumerate(39) +
              uip_ctrl(10, 0xC0, 0x5F, 0, 0, 8) +
              uip_submit(11, 3, True, 16) +
              uip_submit(12, 1, True, 16384) +
              uip_submit(13, 2, False, len(tx_rec(pad60(frame))),
                         data=tx_rec(pad60(frame))) +
              uip_unlink(14, 12))
    return {
        "ncm": bytes([0]) + ncm,
        "ecm": bytes([1]) + ecm,
        "vendor_ch397": bytes([2]) + vendor,
        "ncm_quirks": bytes([3 | 7 << 2]) + ncm,
        # A header that says IN with an OUT SETUP and 1 MiB: no data.
        "ctrl_dir_lie": bytes([0]) + uip_submit(1, 0, True, 1 << 20,
                                                uip_setup(0x21, 0x40, 16, 0,
                                                          96)),
        "iso": bytes([0]) + uip_submit(1, 1, True, 64, npackets=3),
        "too_long": bytes([1]) + uip_submit(1, 1, True, (1 << 20) + 1),
        "bad_command": bytes([1]) + struct.pack(">I", 5) + bytes(44),
        "ops": bytes([0x80]) + struct.pack(">HHI", 0x0111, 0x8005, 0) +
        struct.pack(">HHI", 0x0111, 0x8003, 0) + b"1-1".ljust(32, b"\0"),
        "ops_no_nul": bytes([0x80]) + struct.pack(">HHI", 0x0111, 0x8003,
                                                  0) + b"1" * 32,
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    corpora = {
        "fuzz_vendor_rx": vendor_rx(),
        "fuzz_event": event_seeds(),
        "fuzz_net": net_seeds(),
        "fuzz_tso": tso_seeds(),
        "fuzz_sim_out": sim_out_seeds(),
        "fuzz_ncm_rx": ncm_rx_seeds(),
        "fuzz_ncm_params": ncm_params_seeds(),
        "fuzz_cdc": cdc_seeds(),
        "fuzz_ecm": ecm_seeds(),
        "fuzz_devargs": devargs_seeds(),
        "fuzz_uevent": uevent_seeds(),
        "fuzz_cpe_prefix6": cpe_prefix6_seeds(),
        "fuzz_usbip": usbip_seeds(),
    }
    total = 0
    for name, seeds in corpora.items():
        d = os.path.join(out, name)
        # Inputs found by fuzzing and kept as regression tests are named
        # after their harness (fuzz_vendor_rx-...): kept. The rest is
        # rewritten.
        if os.path.isdir(d):
            for f in os.listdir(d):
                p = os.path.join(d, f)
                if f.startswith(name + "-"):
                    continue
                if os.path.isdir(p):
                    shutil.rmtree(p)
                else:
                    os.remove(p)
        os.makedirs(d, exist_ok=True)
        for seed, data in sorted(seeds.items()):
            with open(os.path.join(d, seed), "wb") as fp:
                fp.write(data)
            total += len(data)
        print(f"{name}: {len(seeds)} seeds")
    print(f"total {total} bytes")


if __name__ == "__main__":
    main()
