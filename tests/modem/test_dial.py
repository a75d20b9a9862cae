#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""usertools/ch39x-dial against tests/modem/at_modem.py over a real
pseudo-terminal pair (no kernel module, no USB): the dialer opens the
pty's slave as it opens /dev/ttyACM0, the responder serves the master.

usage: test_dial.py path/to/ch39x-dial path/to/at_modem.py
                    path/to/doc/guides/modem.rst

Each case starts a responder of its own (the modem's firmware chosen by
its options), runs the dialer, and checks its exit status and output,
and what the modem received (its transcript) and holds (its control
socket's state). Prints one line per check; exits 1 on any failure.
"""

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

DIAL, MODEM, GUIDE = sys.argv[1:4]
# The responder's control socket client, from the responder itself.
_spec = importlib.util.spec_from_file_location('at_modem', MODEM)
AT_MODEM = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(AT_MODEM)
# Both programs use the standard library only: without site's start-up
# (-S: hundreds of ms of CPU a run on a busy machine) the ~90 runs cost
# less; what they do is the same.
PY = sys.executable
PYS = [PY, '-S']
FAILED = []
EX = {}		# exit code names, from the dialer's own table


OUT = threading.local()		# each case's lines, printed in order


def check(cond, what):
    line = '%s %s' % ('ok  ' if cond else 'FAIL', what)
    if getattr(OUT, 'lines', None) is None:
        print(line, flush=True)
    else:
        OUT.lines.append(line)
    if not cond:
        FAILED.append(what)


def unplug(m):
    """The modem's tty name goes first, as udev removes /dev/ttyACM0 with
    the device: a link left to the pty's /dev/pts/N would lead a dialer
    that reopens it (watch) to whichever case's modem Linux gives that
    number next (the cases run side by side): unit_dial once found
    another case's pty locked by a watch that way."""
    try:
        os.unlink(m.tty)
    except FileNotFoundError:
        pass


class Modem:
    """A responder on a fresh pty; its link is .tty."""

    def __init__(self, *opts):
        self.dir = tempfile.mkdtemp(prefix='ch39x-dial-test.')
        self.tty = os.path.join(self.dir, 'ttyACM')
        self.sock = os.path.join(self.dir, 'ctl')
        self.log = os.path.join(self.dir, 'log')
        ready = os.path.join(self.dir, 'ready')
        self.p = subprocess.Popen(
            PYS + [MODEM, '--pty', self.tty, '--ctl', self.sock, '--log',
             self.log, '--ready', ready, '--lifetime', '300'] + list(opts))
        t = time.monotonic() + 30
        while not os.path.exists(ready) and time.monotonic() < t and \
                self.p.poll() is None:
            time.sleep(0.05)
        if not os.path.exists(ready):
            raise RuntimeError('the responder did not start')

    def ctl(self, *words):
        return json.loads(AT_MODEM.ctl_request(self.sock, words))

    def wait_registered(self, secs=30):
        """Until the responder has registered (--reg-delay after its
        start: on a loaded machine later than a dialer's first query)."""
        t = time.monotonic() + secs
        while self.ctl('state').get('reg') not in (1, 5) and \
                time.monotonic() < t:
            time.sleep(0.05)

    def received(self):
        """The command lines the modem got, in order."""
        with open(self.log) as f:
            return [l.split(' < ', 1)[1].rstrip('\n') for l in f
                    if ' < ' in l]

    def sent(self):
        with open(self.log) as f:
            return [l.split(' > ', 1)[1].rstrip('\n') for l in f
                    if ' > ' in l]

    def stop(self):
        unplug(self)
        self.p.terminate()
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        for f in os.listdir(self.dir):
            os.unlink(os.path.join(self.dir, f))
        os.rmdir(self.dir)

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


class Run:
    def __init__(self, args, timeout=90):
        t = time.monotonic()
        r = subprocess.run(PYS + [DIAL] + args, capture_output=True,
                           text=True, timeout=timeout)
        self.secs = time.monotonic() - t
        self.rc, self.out, self.err = r.returncode, r.stdout, r.stderr
        self.kv = {}
        for line in self.out.splitlines():
            if '=' in line:
                k, v = line.split('=', 1)
                self.kv[k] = v.strip("'")

    def __str__(self):
        return 'exit %d in %.1f s; out %r; err %r' % (
            self.rc, self.secs, self.out.strip()[-300:],
            self.err.strip()[-300:])


def dial(m, *args, **kw):
    return Run(['-d', m.tty] + list(args), **kw)


def in_order(lines, wanted):
    """Every line of WANTED appears in LINES, in that order."""
    i = 0
    for line in lines:
        if i < len(wanted) and line == wanted[i]:
            i += 1
    return i == len(wanted)


# ---- the exit code table: the dialer's and the guide's ----

def t_exit_codes():
    r = Run(['exit-codes'])
    table = {}
    for line in r.out.splitlines():
        code, name = line.split()[:2]
        table[name] = int(code)
    EX.update(table)
    check(r.rc == 0 and len(table) >= 12 and table['ok'] == 0,
          'exit-codes prints the table (%d codes)' % len(table))
    with open(GUIDE) as f:
        doc = f.read()
    # rows of the guide's table: "``N``  ``name``  text"
    rows = {n: int(c) for c, n in re.findall(r'^``(\d+)``\s+``([a-z-]+)``',
                                             doc, re.M)}
    check(rows == table, 'the guide\'s exit code table is the dialer\'s '
          '(guide %s, dialer %s)' % (sorted(rows.items(), key=lambda x:
                                            x[1]),
                                     sorted(table.items(),
                                            key=lambda x: x[1])))


# ---- one call family at a time ----

SEQ = {
    'qnetdevctl': ['AT+QICSGP=1,3,"internet","","",0', 'AT+QNETDEVCTL=1,1,1',
                   'AT+QNETDEVCTL?'],
    'qcrmcall': ['AT+CGDCONT=1,"IPV4V6","internet"',
                 'AT$QCRMCALL=1,1,3,2,1', 'AT$QCRMCALL?'],
    'gtrndis': ['AT+CGDCONT=1,"IPV4V6","internet"', 'AT+GTRNDIS=1,1',
                'AT+GTRNDIS?'],
    'xdatachannel': ['AT+CGDCONT=1,"IPV4V6","internet"', 'AT+CGACT=1,1',
                     'AT+XDATACHANNEL=1,1,"/USBCDC/0","/USBHS/NCM/0",2,1',
                     'AT+CGDATA="M-RAW_IP",1', 'AT+CGACT?'],
    'cgact': ['AT+CGDCONT=1,"IPV4V6","internet"', 'AT+CGACT=1,1',
              'AT+CGACT?'],
}
DOWN = {'qnetdevctl': 'AT+QNETDEVCTL=0,1,0', 'qcrmcall': 'AT$QCRMCALL=0,1',
        'gtrndis': 'AT+GTRNDIS=0,1', 'xdatachannel': 'AT+CGACT=0,1',
        'cgact': 'AT+CGACT=0,1'}


def t_family(fam):
    with Modem('--families', fam) as m:
        r = dial(m, 'up', '--apn', 'internet')
        st = m.ctl('state')
        rx = m.received()
        check(r.rc == 0 and r.kv.get('state') == 'up' and
              r.kv.get('family') == fam and st['call'] and
              st['call']['family'] == fam,
              '%s: up: %s; the modem\'s call %s' % (fam, r, st['call']))
        check(in_order(rx, ['AT+CPIN?', 'AT+CEREG?'] + SEQ[fam]),
              '%s: SIM, registration, then %s' % (fam, ' ; '.join(SEQ[fam])))
        check('10.64.0.2' in r.kv.get('addresses', ''),
              '%s: the call\'s address from AT+CGPADDR (%s)' %
              (fam, r.kv.get('addresses')))
        r2 = dial(m, 'up', '--apn', 'internet')
        n = sum(1 for l in m.received() if l.startswith(
            ('AT+CGDCONT=', 'AT+QICSGP=1,')))
        check(r2.rc == 0 and r2.kv.get('already') == 'yes' and
              n == 1, '%s: up again: already up, nothing written again '
              '(%d context writes; %s)' % (fam, n, r2))
        r = dial(m, 'state')
        check(r.rc == EX['ok'] and r.kv.get('state') == 'up',
              '%s: state exits 0 with the call up (%s)' % (fam, r))
        r = dial(m, 'down')
        st = m.ctl('state')
        check(r.rc == 0 and st['call'] is None and
              DOWN[fam] in m.received(),
              '%s: down: %s (%s); the modem\'s call %s' % (
                  fam, DOWN[fam], r, st['call']))
        r = dial(m, 'state')
        check(r.rc == EX['down'] and r.kv.get('state') == 'down',
              '%s: state exits %d with the call down (%s)' %
              (fam, EX['down'], r))
        r = dial(m, 'down')
        check(r.rc == 0 and r.kv.get('already') == 'yes',
              '%s: down when down: 0, already (%s)' % (fam, r))


def t_auto():
    with Modem() as m:
        r = dial(m, 'info')
        check(r.rc == 0 and r.kv.get('families') ==
              'qnetdevctl gtrndis xdatachannel qcrmcall cgact' and
              r.kv.get('manufacturer') == 'CH39X',
              'info: identity and every family the modem knows (%s)' % r)
        r = dial(m, 'up', '--apn', 'internet')
        check(r.rc == 0 and r.kv.get('family') == 'qnetdevctl',
              'auto: a modem with every family gets the vendor\'s own '
              'first: %s' % r.kv.get('family'))
    with Modem('--families', 'qcrmcall,cgact') as m:
        r = dial(m, 'up', '--apn', 'internet', '--pdp', 'ip')
        st = m.ctl('state')
        check(r.rc == 0 and r.kv.get('family') == 'qcrmcall' and
              'AT$QCRMCALL=1,1,1,2,1' in m.received() and
              st['contexts']['1'] == ['IP', 'internet'],
              'auto: $QCRMCALL before the bare CGACT; --pdp ip as type 1 '
              '(%s; context %s)' % (r, st['contexts']))
    with Modem('--families', 'cgact') as m:
        r = dial(m, 'up', '--apn', 'internet', '--family', 'quectel')
        check(r.rc == EX['family'] and 'QNETDEVCTL' in r.err,
              '--family quectel on a modem without it: exit %d (%s)' %
              (EX['family'], r))
        check(not any(l.startswith('AT+QNETDEVCTL=1') for l in
                      m.received()), '... and no call command sent')


def t_context():
    with Modem('--families', 'gtrndis') as m:
        m.ctl('state')
        r = dial(m, 'at', 'AT+CGDCONT=1,"IP","iot.example"')
        r = dial(m, 'up', '--apn', 'iot.example', '--pdp', 'IP')
        w = [l for l in m.received() if l.startswith('AT+CGDCONT=')]
        check(r.rc == 0 and w == ['AT+CGDCONT=1,"IP","iot.example"'],
              'a context already as wanted is not written again '
              '(writes: %s)' % w)
        dial(m, 'down')
        r = dial(m, 'up', '--apn', 'internet', '--cid', '2', '--user', 'u1',
                 '--password', 'p1', '--auth', 'chap')
        st = m.ctl('state')
        check(r.rc == 0 and st['contexts'].get('2') == ['IPV4V6', 'internet']
              and st['auth'].get('2') == [2, 'u1', 'p1'] and
              'AT+GTRNDIS=1,2' in m.received(),
              '--cid 2 with CHAP credentials: AT+CGDCONT=2, AT+CGAUTH=2,2,'
              '"u1","p1", AT+GTRNDIS=1,2 (%s)' % r)
    with Modem('--families', 'qnetdevctl') as m:
        r = dial(m, 'up', '--apn', 'internet', '--user', 'u', '--password',
                 'p')
        st = m.ctl('state')
        check(r.rc == 0 and st['qicsgp'].get('1') == [3, 'internet', 'u',
                                                       'p', 1],
              'quectel: the credentials in AT+QICSGP, PAP by default with '
              'a user (%s)' % st['qicsgp'])


def t_sim():
    with Modem('--sim', 'absent') as m:
        r = dial(m, 'up', '--apn', 'internet')
        check(r.rc == EX['sim'] and 'no SIM' in r.err,
              'no SIM: exit %d, says so (%s)' % (EX['sim'], r.err.strip()))
    with Modem('--sim', 'pin') as m:
        r = dial(m, 'up', '--apn', 'internet')
        check(r.rc == EX['sim'] and '--pin' in r.err and
              not any(l.startswith('AT+CPIN=') for l in m.received()),
              'SIM PIN without --pin: exit %d, names --pin, sends no '
              'PIN (%s)' % (EX['sim'], r.err.strip()))
        r = dial(m, 'up', '--apn', 'internet', '--pin', '9999')
        n = sum(1 for l in m.received() if l.startswith('AT+CPIN='))
        check(r.rc == EX['sim'] and 'not retried' in r.err and n == 1,
              'a wrong --pin: exit %d, sent once (%d), not retried (%s)' %
              (EX['sim'], n, r.err.strip()))
        r = dial(m, 'up', '--apn', 'internet', '--pin', '1234',
                 '--reg-timeout', '20')
        check(r.rc == 0 and m.ctl('state')['sim'] == 'ready',
              'the right --pin: the SIM ready, registered, the call up '
              '(%s)' % r)
    with Modem('--sim', 'puk') as m:
        r = dial(m, 'up', '--apn', 'internet', '--pin', '1234')
        check(r.rc == EX['sim'] and 'PUK' in r.err and
              not any(l.startswith('AT+CPIN=') for l in m.received()),
              'a blocked SIM: exit %d, PUK named, nothing sent to it (%s)'
              % (EX['sim'], r.err.strip()))


def t_registration():
    with Modem('--reg-delay', '1000') as m:
        r = dial(m, 'up', '--apn', 'internet', '--reg-timeout', '2')
        check(r.rc == EX['unregistered'] and 'searching' in r.err and
              2 <= r.secs < 20,
              'no registration within --reg-timeout 2: exit %d after '
              '%.1f s, the state named (%s)' % (EX['unregistered'], r.secs,
                                                 r.err.strip()))
    with Modem('--reg-stat', '3') as m:
        r = dial(m, 'up', '--apn', 'internet', '--reg-timeout', '2')
        check(r.rc == EX['denied'] and 'denied' in r.err,
              'registration denied: exit %d (%s)' % (EX['denied'],
                                                     r.err.strip()))
    with Modem('--reg-delay', '2', '--families', 'qcrmcall') as m:
        r = dial(m, 'up', '--apn', 'internet', '--reg-timeout', '30')
        urc = [l for l in m.sent() if l.startswith('+CEREG: 1')]
        check(r.rc == 0 and r.secs >= 1.5 and urc,
              'registered 2 s after start: the dialer waited for it '
              '(%.1f s; URC %s) and dialed' % (r.secs, urc))
    with Modem('--nr', '--reg-stat', '5') as m:
        r = dial(m, 'up', '--apn', 'internet')
        check(r.rc == 0 and r.kv.get('reg_c5greg') == '5',
              '5G SA, roaming: registered by +C5GREG (%s)' % r.kv)
        r = dial(m, '--json', 'signal')
        s = json.loads(r.out)
        check(s.get('ss_rsrp') == '-95 dBm' and s.get('rat') ==
              'NR5G-SA', 'NR signal: AT+CESQ\'s ss_rsrp %s, AT+QENG\'s '
              'RAT %s' % (s.get('ss_rsrp'), s.get('rat')))


def t_signal_status():
    with Modem('--csq', '20', '--rsrp', '-101', '--rsrq', '-12.5') as m:
        m.wait_registered()
        r = dial(m, '--json', 'status')
        s = json.loads(r.out)
        check(r.rc == 0 and s['sim'] == 'ready' and s['registered'] and
              s['csq'] == 20 and s['rssi'] == '-73 dBm' and
              s['rsrp'] == '-101 dBm' and s['rsrq'] == '-12.5 dB' and
              s['operator'] == 'CH39X TEST' and s['call'] == 'down' and
              s['rat'] == 'LTE',
              'status --json: SIM, registration, operator, CSQ 20 = -73 '
              'dBm, RSRP, RSRQ, RAT, call (%s)' % s)
        m.ctl('detach')
        r = dial(m, 'signal')
        check(r.kv.get('rssi') == 'unknown' and 'rsrp' not in r.kv,
              'not registered: CSQ 99 is "unknown", no RSRP (%s)' % r.kv)


def t_errors():
    with Modem('--families', 'qnetdevctl', '--apn', 'operator') as m:
        r = dial(m, 'up', '--apn', 'internet')
        check(r.rc == EX['call'] and '+CME ERROR: 133' in r.err and
              'unknown APN' in r.err,
              'an APN the network refuses: exit %d, the modem\'s error '
              'and its AT+CEER reason (%s)' % (EX['call'], r.err.strip()))
    with Modem('--families', 'qcrmcall') as m:
        m.ctl('refuse', '1')
        r = dial(m, 'up', '--apn', 'internet')
        check(r.rc == EX['call'] and 'NO CARRIER' in r.err,
              'a refused $QCRMCALL: NO CARRIER, exit %d (%s)' %
              (EX['call'], r.err.strip()))
    with Modem('--families', 'qcrmcall', '--call-delay', '8') as m:
        r = dial(m, 'up', '--apn', 'internet', '--call-timeout', '1')
        check(r.rc == EX['timeout'] and 'no final result' in r.err and
              r.secs < 8, 'a call command unanswered within '
              '--call-timeout 1: exit %d after %.1f s (%s)' %
              (EX['timeout'], r.secs, r.err.strip()))
    with Modem() as m:
        m.ctl('mute', 'on')
        r = dial(m, '-t', '1', 'status')
        check(r.rc == EX['port'] and 'AT port' in r.err and r.secs < 15,
              'a tty that answers nothing: exit %d after %.1f s (%s)' %
              (EX['port'], r.secs, r.err.strip()))
        m.ctl('mute', 'off')
        r = dial(m, 'at', 'AT+CSQ', '+CGMI', 'AT+NOSUCH')
        check(r.rc == EX['call'] and '+CSQ: 24,99' in r.out and
              'CH39X' in r.out and r.out.strip().endswith('ERROR'),
              'at: the answers printed, an unknown command\'s ERROR, exit '
              '%d (%s)' % (EX['call'], r.out.strip().replace('\n', ' | ')))
        fd = os.open(m.tty, os.O_RDWR | os.O_NOCTTY)
        import fcntl
        fcntl.flock(fd, fcntl.LOCK_EX)
        r = dial(m, 'status')
        os.close(fd)
        check(r.rc == EX['port'] and 'in use' in r.err,
              'a port another dialer holds: exit %d (%s)' %
              (EX['port'], r.err.strip()))
    r = Run(['-d', '/nonexistent/ttyACM9', 'status'])
    check(r.rc == EX['port'] and 'plugged in' in r.err,
          'no such tty: exit %d (%s)' % (EX['port'], r.err.strip()))
    r = Run(['-d', '/dev/null', 'status'])
    check(r.rc == EX['port'] and 'not a tty' in r.err,
          '/dev/null: not a tty, exit %d (%s)' % (EX['port'], r.err.strip()))
    with Modem() as m:
        r = dial(m, 'up', '--apn', 'internet', '--cid', '20',
                 '--family', 'qcrmcall')
        check(r.rc == EX['setup'] and 'AT+CGDCONT=20' in r.err,
              'a context the modem refuses (cid 20 of 1-15): exit %d, the '
              'command named (%s)' % (EX['setup'], r.err.strip()))
    r = Run(['up'])
    check(r.rc == EX['usage'] and '--apn' in r.err,
          'up without --apn: exit %d' % EX['usage'])
    r = Run(['up', '--apn', 'a"b'])
    check(r.rc == EX['usage'] and 'quotes' in r.err,
          'a quote in --apn refused: exit %d' % EX['usage'])


# ---- watch ----

class Watch:
    def __init__(self, m, *args):
        self.dir = m.dir
        self.out = open(os.path.join(m.dir, 'watch.out'), 'w+')
        self.err = open(os.path.join(m.dir, 'watch.err'), 'w+')
        self.hooks = os.path.join(m.dir, 'hooks')
        self.p = subprocess.Popen(
            PYS + [DIAL, '-d', m.tty, 'watch', '--apn', 'internet',
             '--on-up', 'echo "up $CH39X_DIAL_FAMILY $CH39X_DIAL_ADDRESSES"'
             ' >> %s' % self.hooks, '--on-down',
             'echo "down $CH39X_DIAL_REASON" >> %s' % self.hooks] +
            list(args), stdout=self.out, stderr=self.err)

    def lines(self):
        with open(self.out.name) as f:
            return f.read().splitlines()

    def wait(self, pattern, count=1, secs=30):
        t = time.monotonic() + secs
        while time.monotonic() < t:
            n = sum(1 for l in self.lines() if re.search(pattern, l))
            if n >= count:
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.1)
        return False

    def hook_lines(self, count=0, secs=30):
        """The hooks' lines, once there are COUNT (the event line comes
        before its hook runs)."""
        t = time.monotonic() + secs
        while count and len(self._hooks()) < count and \
                time.monotonic() < t:
            time.sleep(0.1)
        return self._hooks()

    def _hooks(self):
        try:
            with open(self.hooks) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None


def t_watch_urc():
    with Modem('--families', 'qnetdevctl') as m:
        w = Watch(m, '--poll', '30', '--backoff', '0.5,4')
        ok = w.wait('call up')
        t = time.monotonic()
        m.ctl('drop')
        up2 = w.wait('call up', 2)
        dt = time.monotonic() - t
        lines = w.lines()
        down = [l for l in lines if 'call down' in l]
        check(ok and up2 and dt < 15 and down and 'QNETDEVSTATUS' in down[0],
              'watch: the network drops the call; the URC seen at once '
              '(--poll 30), redialed in %.1f s: %s' % (dt, down))
        st = m.ctl('state')
        check(st['call'] and st['counts']['drops'] == 1 and
              st['counts']['calls'] == 2, 'the modem: 1 drop, 2 calls, '
              'the call up again (%s)' % st['counts'])
        h = w.hook_lines(3)
        check(h[:3] == ['up qnetdevctl 10.64.0.2 2001:db8:64::2',
                        h[1] if len(h) > 1 and h[1].startswith('down ')
                        else 'down ...',
                        'up qnetdevctl 10.64.0.2 2001:db8:64::2'],
              '--on-up, --on-down, --on-up ran with the family, addresses '
              'and reason (%s)' % h)
        t = time.monotonic()
        m.ctl('detach')
        time.sleep(1.5)
        m.ctl('attach')
        up3 = w.wait('call up', 3)
        rc = w.stop()
        st = m.ctl('state')
        check(up3 and rc == 0 and st['call'],
              'detach, attach 1.5 s later: redialed after the registration '
              'came back (%.1f s); SIGTERM: exit 0, the call left up' %
              (time.monotonic() - t))


def t_watch_poll():
    with Modem('--families', 'gtrndis', '--no-cgerep') as m:
        w = Watch(m, '--poll', '1', '--backoff', '0.5,4', '--down-on-exit')
        ok = w.wait('call up')
        t = time.monotonic()
        m.ctl('drop')
        up2 = w.wait('call up', 2)
        dt = time.monotonic() - t
        down = [l for l in w.lines() if 'call down' in l]
        check(ok and up2 and down and 'polled' in down[0] and dt < 15,
              'watch, no URC for the drop (no +CGEREP, +GTRNDIS has none): '
              'found by --poll 1, redialed in %.1f s: %s' % (dt, down))
        rc = w.stop()
        st = m.ctl('state')
        check(rc == 0 and st['call'] is None and 'AT+GTRNDIS=0,1' in
              m.received(), '--down-on-exit: SIGTERM hangs up (exit %s, '
              'call %s)' % (rc, st['call']))


def t_watch_backoff():
    with Modem('--families', 'qcrmcall') as m:
        m.ctl('refuse', '3')
        w = Watch(m, '--poll', '30', '--backoff', '0.5,1.5')
        ok = w.wait('call up', secs=40)
        lines = w.lines()
        nxt = [re.search(r'next dial in ([\d.]+) s', l).group(1)
               for l in lines if 'next dial in' in l]
        fails = [l for l in lines if 'dial failed' in l]
        check(ok and nxt[:3] == ['0.5', '1', '1.5'] and len(fails) == 3,
              'three refused calls: redialed after 0.5, 1, 1.5 s (doubling,'
              ' capped), then up (%s)' % nxt)
        w.stop()
    with Modem('--families', 'qcrmcall') as m:
        m.ctl('refuse', '10')
        w = Watch(m, '--backoff', '0.2,0.2', '--max-redials', '3')
        try:
            rc = w.p.wait(60)
        except subprocess.TimeoutExpired:
            rc = w.stop()
        check(rc == EX['gave-up'] and m.ctl('state')['counts']['refused']
              == 3, '--max-redials 3: exit %d after 3 refusals (exit %s)' %
              (EX['gave-up'], rc))
    with Modem('--sim', 'pin') as m:
        w = Watch(m, '--backoff', '0.2,0.2')
        try:
            rc = w.p.wait(60)
        except subprocess.TimeoutExpired:
            rc = w.stop()
        check(rc == EX['sim'], 'watch with a SIM that wants a PIN: stops '
              'with exit %d, waiting does not mend it (exit %s)' %
              (EX['sim'], rc))


def t_watch_replug():
    """The modem goes away and comes back (a new pty at the same name, as
    a re-enumerated ttyACM0)."""
    m = Modem('--families', 'qnetdevctl')
    w = Watch(m, '--poll', '1', '--backoff', '0.5,2')
    ok = w.wait('call up')
    unplug(m)
    m.p.terminate()
    m.p.wait(10)
    time.sleep(0.5)
    m2 = Modem.__new__(Modem)
    m2.dir, m2.tty, m2.sock, m2.log = m.dir, m.tty, m.sock + '2', \
        m.log + '2'
    ready = os.path.join(m.dir, 'ready2')
    m2.p = subprocess.Popen(
        PYS + [MODEM, '--pty', m.tty, '--ctl', m2.sock, '--log', m2.log,
         '--ready', ready, '--families', 'qnetdevctl', '--lifetime', '300'])
    up2 = w.wait('call up', 2, secs=40)
    t = time.monotonic() + 30
    while not os.path.exists(ready) and time.monotonic() < t:
        time.sleep(0.05)
    st = m2.ctl('state')
    lines = w.lines()
    gone = [l for l in lines if 'call down' in l]
    failed = [l for l in lines if 'dial failed' in l]
    h = w.hook_lines(3)
    check(ok and up2 and st['call'] and gone and 'hung up' in gone[0] and
          len(h) == 3 and h[1].startswith('down ') and
          all(f.split('(')[1].startswith('port') for f in failed),
          'the modem gone and back: the call down (%s; --on-down ran), '
          'reopened once back (%d port failures meanwhile) and redialed' %
          (gone[:1], len(failed)))
    w.stop()
    m2.stop()


def case(fn, *args):
    """One case, its lines kept for printing in order."""
    OUT.lines = []
    t = time.monotonic()
    try:
        fn(*args)
    except Exception as e:	# a broken case is a failure, not a hang
        check(False, '%s%s raised %r' % (fn.__name__, args, e))
    OUT.lines.append('-- %s%s: %.1f s' % (fn.__name__, args or '',
                                          time.monotonic() - t))
    lines, OUT.lines = OUT.lines, None
    return lines


def main():
    t_exit_codes()
    if not EX:
        return 1
    cases = [(t_family, f) for f in SEQ] + [
        (t,) for t in (t_auto, t_context, t_sim, t_registration,
                       t_signal_status, t_errors, t_watch_urc, t_watch_poll,
                       t_watch_backoff, t_watch_replug)]
    # The cases wait (for timeouts, back-offs, the modem) far more than
    # they compute: four at a time, each with its own modem and pty.
    with ThreadPoolExecutor(4) as ex:
        for lines in ex.map(lambda c: case(*c), cases):
            for line in lines:
                print(line, flush=True)
    print('%d failed' % len(FAILED))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
