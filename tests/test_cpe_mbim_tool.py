#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""usertools/ch39x-cpe-mbim against a fake router: a telemetry socket (as
EAL's, SOCK_SEQPACKET, the hello then one JSON reply a command) that
answers /ch39x/mbim with the states given and records what the tool sends.
The PMD's own answers are checked end to end by tests/cpe/cpe_mbim.sh;
with --wan PORT=mbim (/cpe/wan's mode) only the Linux side is the tool's.

Usage: test_cpe_mbim_tool.py TOOL
"""
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading

FAILS = 0


def check(cond, what):
    global FAILS
    if not cond:
        FAILS += 1
    print("%s: %s" % ("ok" if cond else "FAILED", what))


# As the PMD's /ch39x/mbim,PORT answers (ch39x_mbim_api.c): no "ipv4"
# while not connected; the DNS servers beside each family.
UP = {"port": 1, "session": 0, "vlan": 0, "state": "connected",
      "last_error": "", "register": "home",
      "ipv4": {"address": "100.64.39.2/30", "gateway": "100.64.39.1",
               "mtu": 1500},
      "ipv4_dns": ["198.51.100.1"],
      "ipv6": {"address": "2001:db8:39::2/64", "gateway": "fe80::1",
               "mtu": 1500},
      "ipv6_dns": ["2001:db8:ff::1"]}
DOWN = {"port": 1, "session": 0, "vlan": 0, "state": "dialing",
        "last_error": "", "register": "searching"}


class FakeRouter(threading.Thread):
    """Serves one client: /ch39x/mbim lists ports, /ch39x/mbim,N answers
    the next of states (the last one again once used up), /cpe/wan/* ok.
    """

    def __init__(self, path, states, ports=(1,), wan=None):
        super().__init__(daemon=True)
        self.sent = []
        self.wan = wan
        self.states = list(states)
        self.ports = list(ports)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.srv.bind(path)
        self.srv.listen(1)
        self.start()

    def reply(self, c):
        name = c.split(",")[0]
        if c == "/ch39x/mbim":
            return {name: {"ports": self.ports}}
        if name == "/ch39x/mbim":
            st = self.states.pop(0) if len(self.states) > 1 else \
                self.states[0]
            return {name: st}
        if c == "/cpe/wan":
            return {name: self.wan}
        if name.startswith("/cpe/wan/"):
            return {name: {"ok": True}}
        return {name: None}

    def run(self):
        conn, _ = self.srv.accept()
        conn.send(json.dumps({"version": "DPDK 22.11", "pid": 1,
                              "max_output_len": 16384}).encode())
        while True:
            try:
                c = conn.recv(1024).decode()
            except OSError:
                return
            if not c:
                return
            self.sent.append(c)
            conn.send(json.dumps(self.reply(c)).encode())


def run(tool, d, states, *args, ports=(1,), wan=None):
    path = os.path.join(d, "sock%d" % len(os.listdir(d)))
    fr = FakeRouter(path, states, ports, wan)
    resolv = os.path.join(d, "resolv.conf")
    p = subprocess.run([sys.executable, tool, "-s", path, "--resolv", resolv]
                       + list(args), capture_output=True, text=True,
                       timeout=60)
    fr.join(timeout=5)
    return p, fr.sent, resolv


def main():
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        p, sent, resolv = run(tool, d, [UP], "--once")
        check(p.returncode == 0 and sent == [
            "/ch39x/mbim", "/cpe/wan", "/ch39x/mbim,1",
            "/cpe/wan/set,100.64.39.2/30,100.64.39.1"],
            "once, connected: the one MBIM port, the session's address "
            "and gateway to the WAN: %s %s" % (p.returncode, sent))
        with open(resolv) as f:
            check(f.read() == "nameserver 198.51.100.1\n"
                  "nameserver 2001:db8:ff::1\n",
                  "the session's DNS servers, IPv4 first, for dnsmasq")
        os.remove(resolv)

        p, sent, _ = run(tool, d, [DOWN], "--once", "--port", "1")
        check(p.returncode == 1 and sent == ["/cpe/wan", "/ch39x/mbim,1",
                                             "/cpe/wan/clear"],
              "once, not connected: the WAN cleared, exit 1: %s" % sent)
        check(not os.path.exists(resolv), "no DNS servers written then")

        changed = json.loads(json.dumps(UP))
        changed["ipv4"]["address"] = "100.64.39.6/30"
        changed["ipv4"]["gateway"] = "100.64.39.5"
        gone = None	# what EAL answers when the callback fails
        p, sent, _ = run(tool, d, [DOWN, UP, UP, changed, DOWN, gone],
                         "--interval", "0.01")
        wan = [c for c in sent if c.startswith("/cpe/wan/")]
        check(p.returncode == 1 and wan == [
            "/cpe/wan/clear", "/cpe/wan/set,100.64.39.2/30,100.64.39.1",
            "/cpe/wan/set,100.64.39.6/30,100.64.39.5", "/cpe/wan/clear"],
            "watching: cleared, set, the same state not sent again, a new "
            "address set, the session's loss cleared; an error ends it: %s"
            % wan)

        p, sent, _ = run(tool, d, [DOWN], "--timeout", "0.2", "--interval",
                         "0.05", "--dry-run")
        check(p.returncode == 1 and "no session after" in p.stderr and
              not any(c.startswith("/cpe/wan/") for c in sent) and
              "/cpe/wan/clear" in p.stdout,
              "--timeout gives up; --dry-run prints, sends nothing")

        # --wan PORT=mbim: the router follows the session itself; the
        # tool puts the LAN's /64 on its TAP and writes the DNS only.
        mw = {"mode": "mbim", "lan6": ["tapl=2001:db8:39::1/64"]}
        p, sent, _ = run(tool, d, [UP], "--once", "--dry-run", wan=mw)
        check(p.returncode == 0 and
              not any(c.startswith("/cpe/wan/") for c in sent) and
              "ip -6 addr replace 2001:db8:39::1/64 dev tapl nodad" in
              p.stdout, "mode mbim: no /cpe/wan/set, the LAN /64 onto the "
              "TAP: %s %s %r" % (p.returncode, sent, p.stdout))

        p, sent, _ = run(tool, d, [UP], "--once", ports=(0, 1))
        check(p.returncode == 1 and "name one with --port" in p.stderr,
              "two MBIM ports and no --port: which one, asked")

        p = subprocess.run([sys.executable, tool, "--interval", "x"],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 2, "bad usage: exit 2")
        p = subprocess.run([sys.executable, tool, "-s",
                            os.path.join(d, "none"), "--once"],
                           capture_output=True, text=True, timeout=30)
        check(p.returncode == 1 and "is ch39x-cpe running" in p.stderr,
              "no router: exit 1, and says what to check")
    print("test_cpe_mbim_tool: %d failed" % FAILS)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
