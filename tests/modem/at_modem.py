#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""at_modem.py: the AT side of a 4G/5G module, for the tests.

  at_modem.py (--tty DEV | --pty LINK) [--ctl SOCK] [--log FILE] [options]
  at_modem.py ctl SOCK COMMAND [ARG...]

Serves AT commands on a tty: the gadget side of a USB serial function
(/dev/ttyGSn, the host's cdc_acm sees /dev/ttyACMn) or one end of a
pseudo-terminal (--pty: the other end's name linked at LINK). It models
what a dialer meets on a module's AT port: the SIM and its PIN, the
registration and its URCs, PDP contexts, the data-call commands of the
families named by --families, the signal, and the network dropping the
call. What it assumes, and from where: doc/guides/testing/at_modem.rst.

The data path is not its: --on-up and --on-down are shell commands run
when the call comes up and when it goes (the test brings the gadget's
network interface and the operator's DHCP up and down with them), before
the modem reports the new state.

The control socket (--ctl) takes one command per connection and answers
one JSON line: state, drop [CAUSE], detach, attach, reg STAT, sim
ready|pin|puk|absent, csq RSSI, refuse N [ERROR], mute on|off, urc LINE.
"""

import argparse
import heapq
import json
import os
import pty
import re
import select
import socket
import subprocess
import sys
import time
import tty

# 27.007 §9.2 texts for +CMEE=2
CME_TEXT = {
    3: 'operation not allowed', 4: 'operation not supported',
    10: 'SIM not inserted', 11: 'SIM PIN required', 12: 'SIM PUK required',
    13: 'SIM failure', 14: 'SIM busy', 16: 'incorrect password',
    30: 'no network service', 50: 'incorrect parameters',
    100: 'unknown', 133: 'requested service option not subscribed',
    148: 'unspecified GPRS error',
}
FAMILIES = ('qnetdevctl', 'qcrmcall', 'gtrndis', 'xdatachannel', 'cgact')
PDP_TYPES = ('IP', 'IPV6', 'IPV4V6')
REG_CMDS = ('+CREG', '+CGREG', '+CEREG', '+C5GREG')
TAC, CI = '1A2B', '01A2D001'


class Err(Exception):
    """A command's error: a +CME ERROR number, or None for plain ERROR."""

    def __init__(self, cme=None, final=None):
        super().__init__(final or str(cme))
        self.cme = cme
        self.final = final


class Pending(Exception):
    """The command answers later (a call that takes time to connect)."""

    def __init__(self, secs, fn):
        super().__init__('pending')
        self.secs = secs
        self.fn = fn


def params(s):
    """AT parameters: comma-separated, strings in quotes (kept as str),
    numbers as int, empty as None."""
    out, cur, quoted, was_quoted = [], '', False, False
    for ch in s:
        if ch == '"':
            quoted = not quoted
            was_quoted = True
        elif ch == ',' and not quoted:
            out.append(cur if was_quoted else (int(cur) if
                       cur.strip().lstrip('-').isdigit() else
                       (cur.strip() or None)))
            cur, was_quoted = '', False
        else:
            cur += ch
    if quoted:
        raise Err(50)
    out.append(cur if was_quoted else (int(cur) if
               cur.strip().lstrip('-').isdigit() else (cur.strip() or None)))
    return out


def split_cmds(body):
    """'+CSQ;+CREG?' -> ['+CSQ', '+CREG?'] (';' outside quotes)."""
    out, cur, quoted = [], '', False
    for ch in body:
        if ch == '"':
            quoted = not quoted
        if ch == ';' and not quoted:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    out.append(cur)
    return [c for c in out if c != '']


class Modem:
    def __init__(self, a, write, log):
        self.a = a
        self.write = write
        self.log = log
        self.timers = []
        self.seq = 0
        self.inbuf = b''
        self.queue = []			# lines received while a command waits
        self.pending = False
        self.muted = False
        self.echo = True
        self.cmee = 0
        self.sim = a.sim
        self.pin_tries = 3
        self.cfun = 1
        self.reg = 0 if self.sim != 'ready' else 2
        self.reg_n = {c: 0 for c in REG_CMDS}
        self.cgerep = 0
        self.ctx = {1: ['IPV4V6', '']}	# cid: [type, apn], a module's default
        self.auth = {}
        self.qicsgp = {}
        self.active = set()		# cids whose PDP context is active
        self.call = None		# {'cid', 'family', 'types'}
        self.qnet_urc = 0
        self.xdata = set()
        self.csq = a.csq
        self.refuse = 0
        self.refuse_with = None
        self.families = set(a.families.split(',')) if a.families else set()
        self.last_cause = 'No cause information available'
        self.counts = {'commands': 0, 'errors': 0, 'unknown': 0, 'calls': 0,
                       'drops': 0, 'refused': 0, 'hangups': 0,
                       'urcs': 0, 'dropped_output': 0}
        if self.sim == 'ready':
            self.at(a.reg_delay, self.registered)

    # ---- time ----

    def at(self, secs, fn):
        self.seq += 1
        heapq.heappush(self.timers, (time.monotonic() + secs, self.seq, fn))

    def next_timer(self):
        return self.timers[0][0] if self.timers else None

    def run_timers(self):
        while self.timers and self.timers[0][0] <= time.monotonic():
            _, _, fn = heapq.heappop(self.timers)
            fn()

    # ---- output ----

    def line(self, s):
        self.log('> %s' % s)
        self.write(('\r\n%s\r\n' % s).encode())

    def urc(self, s):
        self.counts['urcs'] += 1
        self.line(s)

    def final_error(self, e):
        self.counts['errors'] += 1
        if e.final:
            self.line(e.final)
        elif e.cme is None or self.cmee == 0:
            self.line('ERROR')
        elif self.cmee == 1:
            self.line('+CME ERROR: %d' % e.cme)
        else:
            self.line('+CME ERROR: %s' % CME_TEXT.get(e.cme, 'unknown'))

    # ---- input ----

    def feed(self, data):
        if self.muted:
            self.log('< (muted) %r' % data)
            return
        for b in data:
            ch = bytes([b])
            if self.echo and not self.pending:
                self.write(ch)
            if ch == b'\r':
                line = self.inbuf.decode('utf-8', 'replace').strip()
                self.inbuf = b''
                if line:
                    if self.pending:
                        self.queue.append(line)
                    else:
                        self.command_line(line)
            elif ch == b'\n':
                continue
            elif ch in (b'\x08', b'\x7f'):
                self.inbuf = self.inbuf[:-1]
            elif len(self.inbuf) < 1024:
                self.inbuf += ch

    def command_line(self, line):
        self.log('< %s' % line)
        if not line.upper().startswith('AT'):
            return		# V.250: a line without the AT prefix is ignored
        body = line[2:]
        self.run(split_cmds(body) if body else [], [])

    def run(self, cmds, info):
        """Runs the commands of one line in order; the first error ends
        the line. A pending command resumes here when it answers."""
        while cmds:
            c = cmds.pop(0)
            self.counts['commands'] += 1
            try:
                info += self.execute(c)
            except Pending as p:
                self.pending = True

                def resume(p=p, cmds=cmds, info=info):
                    try:
                        more = p.fn()
                    except Err as e:
                        self.finish(info, e)
                        return
                    self.run(cmds, info + (more or []))
                self.at(p.secs, resume)
                return
            except Err as e:
                self.finish(info, e)
                return
        self.finish(info, None)

    def finish(self, info, err):
        for s in info:
            self.line(s)
        if err:
            self.final_error(err)
        else:
            self.line('OK')
        self.pending = False
        while self.queue and not self.pending:
            self.command_line(self.queue.pop(0))

    def execute(self, c):
        u = c.upper()
        if not u or u[0] not in '+$^':
            return self.basic(u)
        m = re.match(r'([+$^][A-Z0-9]+)(=\?|\?|=)?(.*)$', c, re.S)
        name, op, rest = m.group(1).upper(), m.group(2) or '', m.group(3)
        if op == '' and rest:
            raise Err()
        fn = getattr(self, 'x_' + name[1:].lower(), None)
        fam = FAMILY_OF.get(name)
        if fn is None or (fam and fam not in self.families) or \
                (name == '+C5GREG' and not self.a.nr) or \
                (name == '+QENG' and 'qnetdevctl' not in self.families):
            self.counts['unknown'] += 1
            raise Err()		# an unknown command: plain ERROR
        return fn(op, params(rest) if op == '=' else []) or []

    def basic(self, u):
        """Basic commands (V.250), possibly several: E0V1."""
        out = []
        while u:
            m = re.match(r'(&?[A-Z])(\d*)', u)
            if not m:
                raise Err()
            cmd, n = m.group(1), m.group(2)
            u = u[m.end():]
            if cmd == 'E':
                self.echo = n != '0'
            elif cmd == 'V' and n in ('', '1'):
                pass
            elif cmd == 'Q' and n in ('', '0'):
                pass
            elif cmd in ('Z', '&F'):
                self.echo = True
                self.cmee = 0
            elif cmd == 'I':
                out += [self.a.manufacturer, self.a.model,
                        'Revision: %s' % self.a.revision]
            else:
                raise Err()
        return out

    # ---- state changes ----

    def sim_ok(self):
        if self.sim == 'absent':
            raise Err(10)
        if self.sim == 'pin':
            raise Err(11)
        if self.sim == 'puk':
            raise Err(12)

    def set_reg(self, stat):
        if stat == self.reg:
            return
        before = {c: self.stat_of(c) for c in REG_CMDS}
        self.reg = stat
        for c in REG_CMDS:
            s = self.stat_of(c)
            n = self.reg_n[c]
            if (c == '+C5GREG' and not self.a.nr) or s == before[c] or \
                    n == 0:
                continue	# a URC only for a change, when enabled
            if n == 2 and s in (1, 5):
                self.urc('%s: %d,"%s","%s",%d' % (c, s, TAC, CI,
                                                   self.act_of(c)))
            else:
                self.urc('%s: %d' % (c, s))
        if stat not in (1, 5) and self.call:
            self.drop('NW DETACH', detach=True)

    def stat_of(self, c):
        """The model: the network is E-UTRAN (LTE) or, with --nr, NR
        (5G SA): CREG (circuit-switched, combined attach) and the RAT's
        own command report it; CGREG (2G/3G packet) says 0."""
        own = '+C5GREG' if self.a.nr else '+CEREG'
        return self.reg if c in ('+CREG', own) else 0

    def act_of(self, c):
        return 11 if self.a.nr else 7	# 27.007 <AcT>: 7 E-UTRAN, 11 NR

    def registered(self):
        if self.sim == 'ready' and self.cfun == 1:
            self.set_reg(self.a.reg_stat)

    def connected(self):
        return self.reg in (1, 5)

    def addr4(self):
        """The IPv4 address of the current (or next) call: --addr4's
        Nth for the Nth call, the last one after (a network that gives
        another address after a redial)."""
        a = self.a.addr4.split(',')
        return a[min(max(self.counts['calls'], 1), len(a)) - 1]

    def hook(self, cmd, event, cid, reason=''):
        if not cmd:
            return
        env = dict(os.environ, MODEM_EVENT=event, MODEM_CID=str(cid),
                   MODEM_FAMILY=self.call['family'] if self.call else '',
                   MODEM_REASON=reason, MODEM_CALL=str(self.counts['calls']),
                   MODEM_ADDR4=self.addr4(), MODEM_ADDR6=self.a.addr6)
        t = time.monotonic()
        try:
            r = subprocess.run(['/bin/sh', '-c', cmd], env=env, timeout=60)
            self.log('hook %s exit %d in %.2f s' % (
                event, r.returncode, time.monotonic() - t))
        except subprocess.TimeoutExpired:
            self.log('hook %s killed after 60 s' % event)

    def call_check(self, cid, family):
        """What a call needs; raises the modem's error."""
        self.sim_ok()
        if not self.connected():
            self.last_cause = 'No network service'
            raise Err(30)
        if self.call and self.call['cid'] != cid:
            raise Err(3)		# one network function: one call
        c = self.ctx.get(cid)
        if c is None:
            raise Err(50)
        if self.refuse:
            self.refuse -= 1
            self.counts['refused'] += 1
            self.last_cause = 'Service option temporarily out of order'
            if self.refuse_with:
                raise Err(final=self.refuse_with)
            raise Err(134)
        if self.a.apn is not None and c[1].lower() != self.a.apn.lower():
            self.last_cause = 'Missing or unknown APN'
            raise Err(133)

    def connect(self, cid, family):
        """The call up: the data path (--on-up), then the state."""
        if self.call:
            return
        types = self.ctx[cid][0]
        self.call = {'cid': cid, 'family': family, 'types': types}
        self.counts['calls'] += 1
        self.hook(self.a.on_up, 'up', cid)
        self.active.add(cid)
        if self.cgerep:
            self.urc('+CGEV: ME PDN ACT %d' % cid)
        if family == 'qnetdevctl' and self.qnet_urc:
            self.urc('+QNETDEVSTATUS: 1')

    def drop(self, cause='NW PDN DEACT', detach=False):
        """The network ends the call (or the host hangs up: ME)."""
        if not self.call:
            return False
        cid, family = self.call['cid'], self.call['family']
        self.hook(self.a.on_down, 'down', cid, cause)
        self.call = None
        self.active.discard(cid)
        self.xdata.discard(cid)
        if cause.startswith('ME'):
            self.counts['hangups'] += 1
        else:
            self.counts['drops'] += 1
            self.last_cause = 'Regular deactivation'
        if self.cgerep:
            self.urc('+CGEV: NW DETACH' if detach else
                     '+CGEV: %s %d' % (cause, cid))
        if family == 'qnetdevctl' and self.qnet_urc:
            self.urc('+QNETDEVSTATUS: 0')
        return True

    # ---- the commands: x_NAME(op, params) returns information lines ----

    def x_cmee(self, op, p):
        if op == '=?':
            return ['+CMEE: (0-2)']
        if op == '?':
            return ['+CMEE: %d' % self.cmee]
        if op != '=' or p[0] not in (0, 1, 2):
            raise Err(50)
        self.cmee = p[0]

    def ident(self, value):
        def fn(op, p):
            if op == '=?':
                return []
            if op:
                raise Err(50)
            return [value]
        return fn

    def x_cgmi(self, op, p):
        return self.ident(self.a.manufacturer)(op, p)

    def x_cgmm(self, op, p):
        return self.ident(self.a.model)(op, p)

    def x_cgmr(self, op, p):
        return self.ident(self.a.revision)(op, p)

    def x_cgsn(self, op, p):
        return self.ident('867400000000001')(op, p)

    x_gsn = x_cgsn

    def x_cimi(self, op, p):
        self.sim_ok()
        return self.ident('001010123456789')(op, p)

    def x_cfun(self, op, p):
        if op == '=?':
            return ['+CFUN: (0,1,4),(0,1)']
        if op == '?':
            return ['+CFUN: %d' % self.cfun]
        if op != '=' or p[0] not in (0, 1, 4):
            raise Err(50)
        self.cfun = p[0]
        if self.cfun != 1:
            self.set_reg(0)
        else:
            self.set_reg(2)
            self.at(self.a.reg_delay, self.registered)

    def x_cpin(self, op, p):
        if op == '=?':
            return []
        if self.sim == 'absent':
            raise Err(10)
        if op == '?':
            return ['+CPIN: %s' % {'ready': 'READY', 'pin': 'SIM PIN',
                                   'puk': 'SIM PUK'}[self.sim]]
        if op != '=' or not p or not isinstance(p[0], str):
            raise Err(50)
        if self.sim == 'ready':
            raise Err(3)
        if self.sim == 'puk':
            if len(p) < 2 or p[0] != self.a.sim_puk:
                raise Err(16)
            self.a.sim_pin = p[1]
        elif p[0] != self.a.sim_pin:
            self.pin_tries -= 1
            if self.pin_tries == 0:
                self.sim = 'puk'
            raise Err(16)
        self.sim = 'ready'
        self.pin_tries = 3
        self.set_reg(2)
        self.at(self.a.reg_delay, self.registered)

    def reg_cmd(self, c, op, p):
        if op == '=?':
            return ['%s: (0-2)' % c]
        if op == '?':
            s = self.stat_of(c)
            n = self.reg_n[c]
            if n == 2 and s in (1, 5):
                return ['%s: %d,%d,"%s","%s",%d' % (
                    c, n, s, TAC, CI, self.act_of(c))]
            return ['%s: %d,%d' % (c, n, s)]
        if op != '=' or p[0] not in (0, 1, 2):
            raise Err(50)
        self.reg_n[c] = p[0]

    def x_creg(self, op, p):
        return self.reg_cmd('+CREG', op, p)

    def x_cgreg(self, op, p):
        return self.reg_cmd('+CGREG', op, p)

    def x_cereg(self, op, p):
        return self.reg_cmd('+CEREG', op, p)

    def x_c5greg(self, op, p):
        return self.reg_cmd('+C5GREG', op, p)

    def x_cops(self, op, p):
        if op == '=?':
            return ['+COPS: (2,"CH39X TEST","CH39X","00101",%d),,(0-4),'
                    '(0-2)' % self.act_of('')]
        if op == '?':
            if not self.connected():
                return ['+COPS: 0']
            return ['+COPS: 0,0,"CH39X TEST",%d' % self.act_of('')]
        if op == '=' and p[0] in (0, 2):
            return []
        raise Err(50)

    def x_csq(self, op, p):
        if op == '=?':
            return ['+CSQ: (0-31,99),(0-7,99)']
        if op:
            raise Err(50)
        return ['+CSQ: %d,99' % (self.csq if self.connected() else 99)]

    def x_cesq(self, op, p):
        if op:
            raise Err(50)
        if not self.connected():
            return ['+CESQ: 99,99,255,255,255,255']
        rsrp = max(0, min(97, self.a.rsrp + 141))
        rsrq = max(0, min(34, int((self.a.rsrq + 20) * 2)))
        if self.a.nr:
            return ['+CESQ: 99,99,255,255,255,255,%d,%d,%d' % (
                max(0, min(127, int((self.a.rsrq + 43.5) * 2))),
                max(0, min(127, self.a.rsrp + 157)), 60)]
        return ['+CESQ: 99,99,255,255,%d,%d' % (rsrq, rsrp)]

    def x_qeng(self, op, p):
        if op != '=' or p != ['servingcell']:
            raise Err(50)
        if not self.connected():
            return ['+QENG: "servingcell","SEARCH"']
        st = 'CONNECT' if self.call else 'NOCONN'
        if self.a.nr:
            return ['+QENG: "servingcell","%s","NR5G-SA","TDD",001,01,'
                    '1A2D0010,120,1A2B,627264,78,12,%d,%d,20,-' % (
                        st, self.a.rsrp, self.a.rsrq)]
        return ['+QENG: "servingcell","%s","LTE","FDD",001,01,1A2D001,120,'
                '1300,3,5,5,1A2B,%d,%d,-65,14,9,20,-' % (
                    st, self.a.rsrp, self.a.rsrq)]

    def x_cgdcont(self, op, p):
        if op == '=?':
            return ['+CGDCONT: (1-15),"%s",,,(0-2),(0-4)' % t
                    for t in PDP_TYPES]
        if op == '?':
            return ['+CGDCONT: %d,"%s","%s","0.0.0.0",0,0' % (c, t, a)
                    for c, (t, a) in sorted(self.ctx.items())]
        if op != '=' or not isinstance(p[0], int) or not 1 <= p[0] <= 15:
            raise Err(50)
        cid = p[0]
        if cid in self.active:
            raise Err(3)	# a context in use is not changed
        if len(p) == 1:
            self.ctx.pop(cid, None)
            return
        t = (p[1] or 'IP').upper()
        if t not in PDP_TYPES:
            raise Err(50)
        self.ctx[cid] = [t, p[2] if len(p) > 2 and p[2] else '']

    def x_cgauth(self, op, p):
        if op == '=?':
            return ['+CGAUTH: (1-15),(0-2),,']
        if op == '?':
            return ['+CGAUTH: %d,%d,"%s"' % (c, a[0], a[1])
                    for c, a in sorted(self.auth.items())]
        if op != '=' or not isinstance(p[0], int) or \
                (len(p) > 1 and p[1] not in (0, 1, 2)):
            raise Err(50)
        self.auth[p[0]] = (p[1] if len(p) > 1 else 0,
                           p[2] if len(p) > 2 else '',
                           p[3] if len(p) > 3 else '')

    def x_cgerep(self, op, p):
        if self.a.no_cgerep:
            raise Err()		# a firmware without packet domain events
        if op == '=?':
            return ['+CGEREP: (0-2),(0,1)']
        if op == '?':
            return ['+CGEREP: %d,0' % self.cgerep]
        if op != '=' or p[0] not in (0, 1, 2):
            raise Err(50)
        self.cgerep = p[0]

    def x_cgatt(self, op, p):
        if op == '=?':
            return ['+CGATT: (0,1)']
        if op == '?':
            return ['+CGATT: %d' % (1 if self.connected() else 0)]
        if op != '=' or p[0] not in (0, 1):
            raise Err(50)
        if p[0] == 0:
            self.drop('ME DETACH', detach=True)
            self.set_reg(0)
        elif not self.connected():
            self.registered()

    def x_cgact(self, op, p):
        if op == '=?':
            return ['+CGACT: (0,1)']
        if op == '?':
            return ['+CGACT: %d,%d' % (c, 1 if c in self.active else 0)
                    for c in sorted(self.ctx)]
        if op != '=' or p[0] not in (0, 1) or len(p) < 2 or \
                not isinstance(p[1], int):
            raise Err(50)
        cid = p[1]
        if p[0] == 0:
            if self.call and self.call['cid'] == cid:
                self.drop('ME PDN DEACT')
            self.active.discard(cid)
            return
        if cid in self.active:
            return
        self.call_check(cid, 'cgact')

        def done():
            if 'cgact' in self.families:
                # A firmware whose network function follows the context.
                self.connect(cid, 'cgact')
            else:
                self.active.add(cid)
        raise Pending(self.a.call_delay, done)

    def x_cgpaddr(self, op, p):
        if op == '=?':
            return ['+CGPADDR: (%s)' % ','.join(str(c) for c in self.ctx)]
        cids = p if op == '=' else sorted(self.ctx)
        out = []
        for cid in cids:
            if cid not in self.ctx:
                raise Err(50)
            if cid not in self.active:
                out.append('+CGPADDR: %d' % cid)
                continue
            t = self.ctx[cid][0]
            a = []
            if t in ('IP', 'IPV4V6'):
                a.append('"%s"' % self.addr4())
            if t in ('IPV6', 'IPV4V6'):
                a.append('"%s"' % self.a.addr6)
            out.append('+CGPADDR: %d,%s' % (cid, ','.join(a)))
        return out

    def x_ceer(self, op, p):
        if op:
            raise Err(50)
        return ['+CEER: "%s"' % self.last_cause]

    # Quectel
    def x_qicsgp(self, op, p):
        if op == '=?':
            return ['+QICSGP: (1-15),(1-3),<APN>,<username>,<password>,'
                    '(0-3)']
        if op != '=' or not isinstance(p[0], int) or not 1 <= p[0] <= 15:
            raise Err(50)
        cid = p[0]
        if len(p) == 1:
            t, apn, u, pw, au = self.qicsgp.get(
                cid, (1, self.ctx.get(cid, ['', ''])[1], '', '', 0))
            return ['+QICSGP: %d,"%s","%s","%s",%d' % (t, apn, u, pw, au)]
        if len(p) < 3 or p[1] not in (1, 2, 3) or \
                (len(p) > 5 and p[5] not in (0, 1, 2, 3)):
            raise Err(50)
        if cid in self.active:
            raise Err(3)
        v = (p[1], p[2] or '', p[3] if len(p) > 3 else '',
             p[4] if len(p) > 4 else '', p[5] if len(p) > 5 else 0)
        self.qicsgp[cid] = v
        # the same context as +CGDCONT's
        self.ctx[cid] = [{1: 'IP', 2: 'IPV6', 3: 'IPV4V6'}[v[0]], v[1]]

    def x_qnetdevctl(self, op, p):
        if op == '=?':
            return ['+QNETDEVCTL: (0,1,3),(1-15),(0,1)']
        if op == '?':
            cid = self.call['cid'] if self.call else 1
            st = 1 if self.call and self.call['family'] == 'qnetdevctl' \
                else 0
            return ['+QNETDEVCTL: %d,%d,%d,%d' % (
                1 if self.call else 0, cid, self.qnet_urc, st)]
        if op != '=' or len(p) < 2 or p[0] not in (0, 1, 3) or \
                not isinstance(p[1], int) or \
                (len(p) > 2 and p[2] not in (0, 1)):
            raise Err(50)
        self.qnet_urc = p[2] if len(p) > 2 and p[2] is not None else 0
        cid = p[1]
        if p[0] == 0:
            if self.call and self.call['cid'] == cid:
                self.drop('ME PDN DEACT')
            return
        self.call_check(cid, 'qnetdevctl')
        # OK at once; the call comes up later (+QNETDEVSTATUS).
        self.at(self.a.call_delay, lambda: self.connect(cid, 'qnetdevctl'))

    # Qualcomm
    def x_qcrmcall(self, op, p):
        if op == '=?':
            return ['$QCRMCALL: (0,1),(1),(1-3),(1-2),(1-15)']
        if op == '?':
            if not self.call or self.call['family'] != 'qcrmcall':
                return []
            t = self.call['types']
            return (['$QCRMCALL: 1,V4'] if t in ('IP', 'IPV4V6') else []) + \
                (['$QCRMCALL: 1,V6'] if t in ('IPV6', 'IPV4V6') else [])
        if op != '=' or len(p) < 2 or p[0] not in (0, 1) or p[1] != 1:
            raise Err(50)
        if p[0] == 0:
            if self.call and self.call['family'] == 'qcrmcall':
                self.drop('ME PDN DEACT')
            return
        cid = p[4] if len(p) > 4 and isinstance(p[4], int) else 1
        try:
            self.call_check(cid, 'qcrmcall')
        except Err as e:
            if e.cme in (30, 133, 134):
                raise Err(final='NO CARRIER')	# as the field sees it
            raise
        if len(p) > 2 and p[2] in (1, 2, 3):
            self.ctx[cid][0] = {1: 'IP', 2: 'IPV6', 3: 'IPV4V6'}[p[2]]

        def done():
            self.connect(cid, 'qcrmcall')
            return self.x_qcrmcall('?', [])
        raise Pending(self.a.call_delay, done)

    # Fibocom
    def x_gtrndis(self, op, p):
        if op == '=?':
            return ['+GTRNDIS: (0,1),(1-15)']
        if op == '?':
            if self.call and self.call['family'] == 'gtrndis':
                return ['+GTRNDIS: 1,%d,"%s","%s","%s"' % (
                    self.call['cid'], self.addr4(), self.a.dns, self.a.dns)]
            return ['+GTRNDIS: 0']
        if op != '=' or len(p) < 2 or p[0] not in (0, 1) or \
                not isinstance(p[1], int):
            raise Err(50)
        cid = p[1]
        if p[0] == 0:
            if self.call and self.call['cid'] == cid:
                self.drop('ME PDN DEACT')
            return
        self.call_check(cid, 'gtrndis')
        raise Pending(self.a.call_delay, lambda: self.connect(cid, 'gtrndis'))

    # Intel XMM
    def x_xdatachannel(self, op, p):
        if op == '=?':
            return ['+XDATACHANNEL: (0,1),(0,1),,,(0-2),(1-15)']
        if op != '=' or len(p) < 6 or p[0] != 1 or \
                not isinstance(p[5], int):
            raise Err(50)
        if p[5] not in self.active:
            raise Err(3)
        self.xdata.add(p[5])

    def x_cgdata(self, op, p):
        if op == '=?':
            return ['+CGDATA: ("M-RAW_IP","PPP")']
        if op != '=' or len(p) < 2 or p[0] != 'M-RAW_IP' or \
                not isinstance(p[1], int):
            raise Err(50)
        cid = p[1]
        if cid not in self.active or cid not in self.xdata:
            raise Err(3)
        self.connect(cid, 'xdatachannel')

    # ---- the control socket ----

    def control(self, words):
        c = words[0] if words else ''
        if c == 'state':
            pass
        elif c == 'drop':
            if not self.drop(words[1] if len(words) > 1 else 'NW PDN DEACT'):
                return {'error': 'no call'}
        elif c == 'detach':
            self.set_reg(2)
        elif c == 'attach':
            self.registered()
        elif c == 'reg' and len(words) == 2:
            self.set_reg(int(words[1]))
        elif c == 'sim' and len(words) == 2 and \
                words[1] in ('ready', 'pin', 'puk', 'absent'):
            self.sim = words[1]
            if self.sim != 'ready':
                self.set_reg(0)
            if self.sim == 'absent':
                self.urc('+CPIN: NOT READY')
        elif c == 'csq' and len(words) == 2:
            self.csq = int(words[1])
        elif c == 'refuse' and len(words) >= 2:
            self.refuse = int(words[1])
            self.refuse_with = ' '.join(words[2:]) or None
        elif c == 'mute' and len(words) == 2:
            self.muted = words[1] == 'on'
        elif c == 'urc' and len(words) >= 2:
            self.urc(' '.join(words[1:]))
        else:
            return {'error': 'unknown control command: %s' % ' '.join(words)}
        return {'call': dict(self.call) if self.call else None,
                'reg': self.reg, 'sim': self.sim, 'cfun': self.cfun,
                'contexts': {str(k): v for k, v in self.ctx.items()},
                'auth': {str(k): list(v) for k, v in self.auth.items()},
                'qicsgp': {str(k): list(v) for k, v in self.qicsgp.items()},
                'active': sorted(self.active), 'cgerep': self.cgerep,
                'reg_n': self.reg_n, 'echo': self.echo, 'cmee': self.cmee,
                'counts': self.counts}


FAMILY_OF = {'+QNETDEVCTL': 'qnetdevctl', '+QICSGP': 'qnetdevctl',
             '$QCRMCALL': 'qcrmcall', '+GTRNDIS': 'gtrndis',
             '+XDATACHANNEL': 'xdatachannel', '+CGDATA': 'xdatachannel'}


def open_tty(a):
    """(fd to serve, fd kept open or None, the name to report)."""
    if a.pty:
        master, slave = pty.openpty()
        tty.setraw(slave)
        name = os.ttyname(slave)
        try:
            os.unlink(a.pty)
        except FileNotFoundError:
            pass
        os.symlink(name, a.pty)
        os.set_blocking(master, False)
        # The slave stays open here: without a reader on it the master
        # reads EIO whenever the dialer has closed its end.
        return master, slave, name
    fd = os.open(a.tty, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd)
    return fd, None, a.tty


def serve(a):
    logf = open(a.log, 'a', buffering=1) if a.log else None
    t0 = time.monotonic()

    def log(s):
        if logf:
            logf.write('%.3f %s\n' % (time.monotonic() - t0, s))

    fd, keep, name = open_tty(a)

    def write(data):
        try:
            os.write(fd, data)
        except (BlockingIOError, OSError):
            # Nobody reads (the host's tty closed): a modem's output is
            # lost then too.
            m.counts['dropped_output'] += len(data)

    m = Modem(a, write, log)
    ctl = None
    if a.ctl:
        try:
            os.unlink(a.ctl)
        except FileNotFoundError:
            pass
        ctl = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ctl.bind(a.ctl)
        ctl.listen(4)
    log('serving %s (families %s)' % (name, a.families))
    if a.ready:
        with open(a.ready, 'w') as f:
            f.write('%s\n' % name)
    end = time.monotonic() + a.lifetime
    while time.monotonic() < end:
        nt = m.next_timer()
        wait = 0.5 if nt is None else max(0.0, min(0.5, nt - time.monotonic()))
        rl = [fd] + ([ctl] if ctl else [])
        r, _, _ = select.select(rl, [], [], wait)
        if fd in r:
            try:
                d = os.read(fd, 4096)
            except (BlockingIOError, InterruptedError):
                d = None
            except OSError:
                d = b''
            if d:
                m.feed(d)
            elif d == b'':
                time.sleep(0.05)	# the other end is closed
        if ctl and ctl in r:
            c, _ = ctl.accept()
            c.settimeout(5)
            try:
                req = b''
                while not req.endswith(b'\n') and len(req) < 4096:
                    b = c.recv(4096)
                    if not b:
                        break
                    req += b
                words = req.decode().split()
                log('ctl: %s' % ' '.join(words))
                c.sendall((json.dumps(m.control(words)) + '\n').encode())
            except (OSError, ValueError) as e:
                log('ctl error: %s' % e)
            finally:
                c.close()
        m.run_timers()
    log('lifetime over')


def ctl_request(sock, words):
    """One command line to the control socket SOCK; its one-line JSON
    answer as bytes (tests/modem/test_dial.py uses it too)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect(sock)
        s.sendall((' '.join(words) + '\n').encode())
        r = b''
        while not r.endswith(b'\n'):
            b = s.recv(65536)
            if not b:
                break
            r += b
    finally:
        s.close()
    return r


def ctl_client(argv):
    if len(argv) < 2:
        print('usage: at_modem.py ctl SOCK COMMAND [ARG...]', file=sys.stderr)
        return 2
    r = ctl_request(argv[0], argv[1:])
    print(r.decode().strip())
    return 1 if b'"error"' in r else 0


def main(argv):
    if argv and argv[0] == 'ctl':
        return ctl_client(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument('--tty', help='serve this tty (e.g. /dev/ttyGS0)')
    g.add_argument('--pty', help='make a pseudo-terminal, its name linked '
                   'here')
    p.add_argument('--ctl', help='the control socket')
    p.add_argument('--log', help='a transcript: what came in, what went out')
    p.add_argument('--ready', help='written (the tty\'s name) once serving')
    p.add_argument('--families', default=','.join(FAMILIES),
                   help='the call commands the firmware has (%s)' %
                   ','.join(FAMILIES))
    p.add_argument('--manufacturer', default='CH39X')
    p.add_argument('--model', default='AT-MODEL')
    p.add_argument('--revision', default='CH39XTEST01')
    p.add_argument('--sim', default='ready',
                   choices=('ready', 'pin', 'puk', 'absent'))
    p.add_argument('--sim-pin', default='1234')
    p.add_argument('--sim-puk', default='12345678')
    p.add_argument('--reg-delay', type=float, default=0.3,
                   help='s from SIM ready to the registration')
    p.add_argument('--reg-stat', type=int, default=1, choices=(1, 3, 5),
                   help='what the registration ends in: 1 home, 5 '
                   'roaming, 3 denied')
    p.add_argument('--nr', action='store_true',
                   help='5G SA (+C5GREG) instead of LTE (+CEREG)')
    p.add_argument('--no-cgerep', action='store_true',
                   help='no +CGEREP (no +CGEV events): drops are seen '
                   'by polling only')
    p.add_argument('--call-delay', type=float, default=0.5,
                   help='s a call takes to come up')
    p.add_argument('--apn', help='the only APN the network accepts '
                   '(default: any)')
    p.add_argument('--addr4', default='10.64.0.2',
                   help='the calls\' IPv4 addresses, A[,B...]: the Nth '
                   'call gets the Nth, the last one after')
    p.add_argument('--addr6', default='2001:db8:64::2')
    p.add_argument('--dns', default='10.64.0.1')
    p.add_argument('--csq', type=int, default=24)
    p.add_argument('--rsrp', type=int, default=-95)
    p.add_argument('--rsrq', type=float, default=-11)
    p.add_argument('--on-up', help='shell command: the data path up '
                   '(MODEM_EVENT, MODEM_CID, MODEM_FAMILY, MODEM_CALL: the '
                   'call\'s number, MODEM_ADDR4, MODEM_ADDR6)')
    p.add_argument('--on-down', help='shell command: the data path down '
                   '(MODEM_REASON: the cause too)')
    p.add_argument('--lifetime', type=float, default=600,
                   help='s it serves at most')
    a = p.parse_args(argv)
    if not a.sim_pin:
        a.sim_pin = '1234'
    for f in a.families.split(','):
        if f and f not in FAMILIES:
            p.error('--families: %s is none of %s' % (f, ', '.join(FAMILIES)))
    serve(a)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
