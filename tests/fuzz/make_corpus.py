#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Write the seed corpora of tests/fuzz/corpus/<harness>/.

Deterministic: running it again rewrites the same files. Each seed follows
the input layout documented at the top of its harness. Valid inputs are
built here from the protocol sheet (records, events, TCP/UDP frames with
correct checksums); edge cases are made by hand next to them.

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


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    corpora = {
        "fuzz_vendor_rx": vendor_rx(),
        "fuzz_event": event_seeds(),
        "fuzz_net": net_seeds(),
        "fuzz_tso": tso_seeds(),
        "fuzz_sim_out": sim_out_seeds(),
    }
    total = 0
    for name, seeds in corpora.items():
        d = os.path.join(out, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for seed, data in sorted(seeds.items()):
            with open(os.path.join(d, seed), "wb") as fp:
                fp.write(data)
            total += len(data)
        print(f"{name}: {len(seeds)} seeds")
    print(f"total {total} bytes")


if __name__ == "__main__":
    main()
