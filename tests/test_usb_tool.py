#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""usertools/ch39x-usb on a fake sysfs, /dev and /proc made in a temp dir.

usage: test_usb_tool.py path/to/ch39x-usb

The devices, as sysfs shows them: raw descriptors of every configuration,
the active one's interfaces with drivers and netdevs, device nodes, a
process holding one. Checks what status reports for each (protocol and
why, drivers, netdevs, holders, --vdev strings), the plans of bind and
unbind (--dry-run), a real bind on the fake tree and the unbind plan made
from the state it saved, and the messages for no USB, no /dev/bus/usb, a
busy device and an ambiguous name. Prints one line per check; exits 1 on
any failure.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile

TOOL = sys.argv[1]
FAILED = []


def check(cond, what):
    print('%s %s' % ('ok  ' if cond else 'FAIL', what))
    if not cond:
        FAILED.append(what)


def dev_desc(vid, pid, n_cfg, dev_class=0):
    return struct.pack('<BBHBBBBHHHBBBB', 18, 1, 0x0200, dev_class, 0, 0, 64,
                       vid, pid, 0x0100, 1, 2, 3, n_cfg)


def config(value, ifaces):
    """ifaces: (number, alt, class, subclass) tuples. A communication
    interface (class 2) at alt 0 gets a Union naming the next interface as
    its data interface, as every CDC function has."""
    body = b''.join(struct.pack('<BBBBBBBBB', 9, 4, n, a, 0, c, s, 0, 0) +
                    (struct.pack('<BBBBB', 5, 0x24, 6, n, n + 1)
                     if c == 2 and a == 0 else b'')
                    for n, a, c, s in ifaces)
    n_if = len({i[0] for i in ifaces})
    return struct.pack('<BBHBBBBB', 9, 2, 9 + len(body), n_if, value, 0,
                       0x80, 50) + body


NCM = [(0, 0, 2, 0x0D), (1, 0, 0x0A, 0), (1, 1, 0x0A, 0)]
ECM = [(0, 0, 2, 0x06), (1, 0, 0x0A, 0), (1, 1, 0x0A, 0)]
VENDOR = [(0, 0, 0xFF, 0)]
# A modem: an ACM serial port (0, 1) beside its NCM function (2, 3).
ACM_NCM = [(0, 0, 2, 0x02), (1, 0, 0x0A, 0), (2, 0, 2, 0x0D),
           (3, 0, 0x0A, 0), (3, 1, 0x0A, 0)]
# A dock: NCM (0, 1) and ECM (2, 3) side by side.
NCM_ECM = NCM + [(2, 0, 2, 0x06), (3, 0, 0x0A, 0), (3, 1, 0x0A, 0)]


class Tree:
    def __init__(self, root):
        self.root = root
        self.sys = os.path.join(root, 'sys')
        self.dev = os.path.join(root, 'dev')
        self.proc = os.path.join(root, 'proc')
        self.state = os.path.join(root, 'run', 'ch39x-usb')
        self.devices = os.path.join(self.sys, 'bus', 'usb', 'devices')
        os.makedirs(self.devices)
        os.makedirs(self.proc)
        self.devnum = 1

    def put(self, path, name, text):
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, name), 'w') as f:
            f.write(text + '\n')

    def driver(self, name):
        d = os.path.join(self.sys, 'bus', 'usb', 'drivers', name)
        os.makedirs(d, exist_ok=True)
        for f in ('bind', 'unbind'):
            open(os.path.join(d, f), 'a').close()
        return d

    def device(self, path, vid, pid, configs, active, serial='',
               product='', speed='480', drivers=None, nets=None,
               dev_class=0, bus=1):
        """configs: [(value, ifaces)]; drivers: {ifnum: driver} of the
        active configuration; nets: {ifnum: netdev}."""
        d = os.path.join(self.devices, path)
        self.devnum += 1
        attrs = {'idVendor': '%04x' % vid, 'idProduct': '%04x' % pid,
                 'bConfigurationValue': str(active) if active else '',
                 'busnum': str(bus), 'devnum': str(self.devnum),
                 'speed': speed, 'product': product}
        if serial:
            attrs['serial'] = serial
        for k, v in attrs.items():
            self.put(d, k, v)
        blob = dev_desc(vid, pid, len(configs), dev_class) + b''.join(
            config(v, i) for v, i in configs)
        with open(os.path.join(d, 'descriptors'), 'wb') as f:
            f.write(blob)
        for value, ifaces in configs:
            if value != active:
                continue
            for n in sorted({i[0] for i in ifaces}):
                first = next(i for i in ifaces if i[0] == n)
                ifd = os.path.join(self.devices, '%s:%d.%d' % (path, value,
                                                               n))
                self.put(ifd, 'bInterfaceNumber', '%02x' % n)
                self.put(ifd, 'bInterfaceClass', '%02x' % first[2])
                self.put(ifd, 'bInterfaceSubClass', '%02x' % first[3])
                drv = (drivers or {}).get(n)
                if drv:
                    os.symlink(self.driver(drv), os.path.join(ifd,
                                                              'driver'))
                net = (nets or {}).get(n)
                if net:
                    os.makedirs(os.path.join(ifd, 'net', net))
        node = os.path.join(self.dev, 'bus', 'usb', '%03d' % bus,
                            '%03d' % self.devnum)
        os.makedirs(os.path.dirname(node), exist_ok=True)
        open(node, 'w').close()
        return node

    def process(self, pid, comm, node, dpdk):
        p = os.path.join(self.proc, str(pid))
        os.makedirs(os.path.join(p, 'fd'))
        self.put(p, 'comm', comm)
        self.put(p, 'maps', '7f00 r-xp /usr/lib/librte_eal.so.23'
                 if dpdk else '7f00 r-xp /usr/lib/libc.so.6')
        os.symlink(node, os.path.join(p, 'fd', '7'))


def run(tree, *args, sysfs=None, dev=None):
    cmd = [sys.executable, TOOL, '--sysfs-root', sysfs or tree.sys,
           '--dev-root', dev or tree.dev, '--proc-root', tree.proc,
           '--state-dir', tree.state] + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def run_json(tree, *args, **kw):
    rc, out, err = run(tree, '--json', *args, **kw)
    try:
        return rc, json.loads(out)
    except ValueError:
        print('not JSON: %r %r' % (out, err))
        return rc, {}


def build(tree):
    # A root hub and a hub: never listed.
    tree.device('usb1', 0x1D6B, 0x0002, [(1, [(0, 0, 9, 0)])], 1,
                dev_class=9)
    os.rename(os.path.join(tree.devices, 'usb1'),
              os.path.join(tree.devices, 'usb1'))
    tree.device('1-6', 0x05E3, 0x0610, [(1, [(0, 0, 9, 0)])], 1,
                dev_class=9)
    tree.device('1-1', 0x1209, 0x0001, [(1, NCM)], 1, serial='ncm-0001',
                product='ncm test gadget', drivers={0: 'cdc_ncm',
                                                    1: 'cdc_ncm'},
                nets={0: 'usb0'})
    tree.device('1-2', 0x1209, 0x0003, [(1, ECM), (2, NCM)], 1,
                serial='multi-0001', drivers={0: 'cdc_ether',
                                              1: 'cdc_ether'},
                nets={0: 'usb1'})
    tree.device('1-3', 0x1A86, 0x5398, [(1, NCM), (3, VENDOR)], 1,
                serial='398', speed='5000', drivers={0: 'cdc_ncm',
                                                     1: 'cdc_ncm'},
                nets={0: 'usb2'})
    tree.device('1-4.1', 0x1209, 0x0004, [(1, ECM)], 1, serial='twin-a')
    tree.device('1-4.2', 0x1209, 0x0004, [(1, ECM)], 1, serial='twin-b')
    tree.device('1-4.3', 0x1209, 0x0004, [(1, ECM)], 1, serial='twin-b')
    tree.device('1-5', 0x0781, 0x5567, [(1, [(0, 0, 8, 6)])], 1,
                serial='disk', drivers={0: 'usb-storage'})
    tree.device('1-7', 0x1209, 0x0007, [(1, ACM_NCM)], 1, serial='modem',
                drivers={0: 'cdc_acm', 1: 'cdc_acm', 2: 'cdc_ncm',
                         3: 'cdc_ncm'}, nets={2: 'usb7'})
    tree.device('1-8', 0x1209, 0x0008, [(1, NCM_ECM)], 1, serial='dock',
                drivers={0: 'cdc_ncm', 1: 'cdc_ncm', 2: 'cdc_ether',
                         3: 'cdc_ether'}, nets={0: 'usb8', 2: 'usb9'})
    tree.device('1-9', 0x1209, 0x0009, [(1, ACM_NCM)], 1, serial='kept',
                drivers={0: 'cdc_acm', 1: 'cdc_acm'})
    node = tree.device('2-1', 0x1A86, 0x5397, [(1, VENDOR)], 1, bus=2,
                       drivers={0: 'usbfs'})
    tree.process(4242, 'dpdk-testpmd', node, True)


def test_status(tree):
    rc, j = run_json(tree, 'status')
    devs = {d['path']: d for d in j.get('devices', [])}
    check(rc == 0 and list(devs) == ['1-1', '1-2', '1-3', '1-4.1', '1-4.2',
                                     '1-4.3', '1-7', '1-8', '1-9', '2-1'],
          'status lists the network functions in bus order, no hubs, no '
          'disk: %s' % list(devs))
    d = devs.get('1-1', {})
    check(d.get('proto') == 'ncm' and d.get('proto_config') == 1 and
          not d.get('switch_needed') and d.get('kernel_drivers') ==
          ['cdc_ncm'] and d.get('netdevs') == ['usb0'] and
          d.get('state') == 'kernel' and d.get('speed') == 'high' and
          d.get('serial') == 'ncm-0001' and
          d.get('product') == 'ncm test gadget' and
          d.get('vdev') == 'net_ch39x0,dev=1209:0001,path=1-1' and
          d.get('vdev_serial') == 'net_ch39x0,dev=1209:0001,serial=ncm-0001',
          'NCM gadget: ncm in configuration 1, cdc_ncm with usb0, both '
          '--vdev strings')
    d = devs.get('1-2', {})
    check(d.get('proto') == 'ncm' and d.get('proto_config') == 2 and
          d.get('switch_needed') and d.get('active_config') == 1 and
          'NCM is preferred' in d.get('proto_reason', '') and
          'the PMD switches' in d.get('proto_reason', '') and
          d.get('kernel_drivers') == ['cdc_ether'] and
          [c['offers'] for c in d.get('configs', [])] == [['ecm'], ['ncm']],
          'two configurations: NCM (2) over the active ECM (1): %s'
          % d.get('proto_reason'))
    d = devs.get('1-3', {})
    check(d.get('proto') == 'vendor' and d.get('chip') == 'CH398' and
          d.get('proto_config') == 3 and d.get('switch_needed') and
          d.get('speed') == 'super' and
          d.get('proto_reason', '').startswith('CH398 ID 1a86:5398'),
          'CH398 in its CDC configuration: vendor, configuration 3: %s'
          % d.get('proto_reason'))
    d = devs.get('2-1', {})
    check(d.get('proto') == 'vendor' and d.get('chip') == 'CH397' and
          d.get('proto_config') == 1 and d.get('state') == 'userspace' and
          d.get('held_by') == [{'pid': 4242, 'comm': 'dpdk-testpmd',
                                'dpdk': True}],
          'CH397 held by a DPDK process: %s' % d.get('held_by'))
    t = [devs.get(p, {}) for p in ('1-4.1', '1-4.2', '1-4.3')]
    check(len({x.get('vdev') for x in t}) == 3 and
          t[0].get('vdev_serial') == 'net_ch39x0,dev=1209:0004,serial=twin-a'
          and t[1].get('vdev_serial') is None and
          t[2].get('vdev_serial') is None and
          all(x.get('proto') == 'ecm' for x in t),
          'identical adapters: each named by its path; by serial only when '
          'the serial is unique')
    d = devs.get('1-7', {})
    f = d.get('functions', [])
    check(d.get('proto') == 'ncm' and d.get('composite') and len(f) == 1 and
          f[0]['comm'] == 2 and f[0]['data'] == 3 and f[0]['default'] and
          f[0]['drivers'] == ['cdc_ncm'] and
          d.get('kernel_drivers') == ['cdc_acm', 'cdc_ncm'],
          'a modem: its NCM function at 2+3 beside the ACM port, '
          'composite: %s' % f)
    d = devs.get('1-8', {})
    f = d.get('functions', [])
    check(d.get('proto') == 'ncm' and len(f) == 2 and
          [(x['proto'], x['comm'], x['data'], x['default']) for x in f] ==
          [('ncm', 0, 1, True), ('ecm', 2, 3, False)] and
          f[1]['vdev'] == 'net_ch39x0,dev=1209:0008,path=1-8,function=2',
          'a dock: NCM (default) and ECM, a --vdev with function= each')
    check(not devs.get('1-1', {}).get('composite'),
          'a single NCM function is not composite')
    rc, out, _ = run(tree, 'list')
    check(rc == 0 and '--vdev net_ch39x0,dev=1209:0001,path=1-1' in out and
          'protocol: vendor -- CH398 ID' in out and
          '1-1:1.0 cdc_ncm (usb0)' in out and
          'pid 4242 (dpdk-testpmd, DPDK)' in out and
          'network functions (configuration 1): ncm at 0+1 (default), '
          'ecm at 2+3 (function=2)' in out and
          '--vdev net_ch39x0,dev=1209:0008,path=1-8\n' in out,
          'text status shows protocol, drivers, netdev, holder, --vdev, '
          'a composite device\'s functions')
    rc, j = run_json(tree, 'status', '--all')
    check(rc == 0 and '1-5' in [d['path'] for d in j.get('devices', [])] and
          [d['proto'] for d in j['devices'] if d['path'] == '1-5'] == [None],
          '--all adds the other devices, without a protocol')


def test_plans(tree):
    rc, j = run_json(tree, 'bind', '1-1', '--dry-run')
    drv = os.path.join(tree.sys, 'bus', 'usb', 'drivers')
    check(rc == 0 and [(s['write'], s['value']) for s in j.get('steps', [])]
          == [(os.path.join(drv, 'cdc_ncm', 'unbind'), '1-1:1.0'),
              (os.path.join(drv, 'cdc_ncm', 'unbind'), '1-1:1.1')],
          'bind NCM gadget: both interfaces let go by cdc_ncm, no switch')
    rc, j = run_json(tree, 'bind', 'serial=398', '--dry-run')
    check(rc == 0 and [s['value'] for s in j.get('steps', [])] ==
          ['1-3:1.0', '1-3:1.1', '3'] and j['steps'][2]['write'].endswith(
              '1-3/bConfigurationValue'),
          'bind CH398 by serial: drivers let go, configuration 3')
    rc, j = run_json(tree, 'bind', '1-2', '--proto', 'ecm', '--dry-run')
    check(rc == 0 and len(j.get('steps', [])) == 2 and
          all(s['write'].endswith('cdc_ether/unbind') for s in j['steps']),
          'bind --proto ecm keeps the active ECM configuration')
    rc, j = run_json(tree, 'bind', '2-1', '--dry-run')
    check(rc == 4 and 'device busy' in j.get('error', '') and
          'pid 4242' in j.get('error', ''),
          'bind refuses a device a process holds: %s' % j.get('error'))
    rc, j = run_json(tree, 'bind', '1209:0004', '--dry-run')
    check(rc == 1 and '3 USB devices match' in j.get('error', '') and
          '1-4.3' in j.get('error', ''),
          'an ambiguous VID:PID lists the candidates')
    rc, j = run_json(tree, 'bind', '1-19', '--dry-run')
    check(rc == 1 and 'no USB device matches 1-19' in j.get('error', ''),
          'an unknown path is refused with the list')
    drv = os.path.join(tree.sys, 'bus', 'usb', 'drivers')
    rc, j = run_json(tree, 'bind', '1-7', '--dry-run')
    check(rc == 0 and [(s['write'], s['value']) for s in j.get('steps', [])]
          == [(os.path.join(drv, 'cdc_ncm', 'unbind'), '1-7:1.2'),
              (os.path.join(drv, 'cdc_ncm', 'unbind'), '1-7:1.3')],
          'bind a modem: only its NCM interfaces let go, cdc_acm keeps '
          'the serial port')
    rc, j = run_json(tree, 'bind', '1-8', '--function', '2', '--dry-run')
    check(rc == 0 and [(s['write'], s['value']) for s in j.get('steps', [])]
          == [(os.path.join(drv, 'cdc_ether', 'unbind'), '1-8:1.2'),
              (os.path.join(drv, 'cdc_ether', 'unbind'), '1-8:1.3')],
          'bind --function 2: the dock\'s ECM function only')
    rc, j = run_json(tree, 'bind', '1-8', '--function', '1', '--dry-run')
    check(rc == 1 and 'no network function at interface 1' in
          j.get('error', ''),
          'bind --function 1 (a data interface): refused: %s'
          % j.get('error'))
    rc, j = run_json(tree, 'unbind', '1-9', '--dry-run')
    check(rc == 0 and [(os.path.basename(s['write']), s['value'])
                       for s in j.get('steps', [])] ==
          [('drivers_probe', '1-9:1.2'), ('drivers_probe', '1-9:1.3')],
          'unbind of a modem the PMD kept: only its network interfaces '
          'probed again, the serial port left bound')
    rc, j = run_json(tree, 'unbind', '1-1', '--dry-run')
    check(rc == 0 and j.get('steps') == [],
          'unbind of a device the kernel has: nothing to do')
    rc, j = run_json(tree, 'unbind', 'twin-a', '--dry-run')
    check(rc == 0 and [(os.path.basename(s['write']), s['value'])
                       for s in j.get('steps', [])] ==
          [('authorized', '0'), ('authorized', '1')],
          'unbind of a device bind did not take: the kernel\'s own choice '
          '(authorized 0, 1)')


def test_round_trip(tree):
    """A real bind on the fake tree writes sysfs and saves the state that
    unbind restores from."""
    rc, j = run_json(tree, 'bind', '1-2', '--wait', '0')
    cfg = os.path.join(tree.devices, '1-2', 'bConfigurationValue')
    unb = os.path.join(tree.sys, 'bus', 'usb', 'drivers', 'cdc_ether',
                       'unbind')
    with open(cfg) as f:
        cfg_now = f.read().strip()
    with open(unb) as f:
        last = f.read()
    st = os.path.join(tree.state, '1-2.json')
    check(rc == 1 and not j.get('ok') and cfg_now == '2' and
          last == '1-2:1.1' and os.path.exists(st),
          'bind on the fake tree: wrote configuration 2 and the unbinds, '
          'saved the state, and says the (fake) kernel did not follow')
    # What the kernel would have done: configuration 2, no drivers.
    for n in ('1-2:1.0', '1-2:1.1'):
        os.unlink(os.path.join(tree.devices, n, 'driver'))
        os.rename(os.path.join(tree.devices, n),
                  os.path.join(tree.devices, n.replace(':1.', ':2.')))
    rc, j = run_json(tree, 'status')
    d = [x for x in j.get('devices', []) if x['path'] == '1-2']
    check(d and d[0]['bound_by_tool'] and d[0]['state'] == 'free' and
          not d[0]['switch_needed'],
          'status after bind: configuration 2, no driver, bound by '
          'ch39x-usb')
    rc, j = run_json(tree, 'unbind', '1-2', '--dry-run')
    check(rc == 0 and [(os.path.basename(s['write']), s['value'])
                       for s in j.get('steps', [])] ==
          [('bConfigurationValue', '1')],
          'unbind restores the configuration bind saved (1)')


def test_invisible(tree):
    rc, j = run_json(tree, 'status', sysfs=os.path.join(tree.root, 'none'))
    check(rc == 2 and 'no USB visible here' in j.get('error', ''),
          'no /sys/bus/usb: says USB is not visible (containers)')
    rc, j = run_json(tree, 'status', dev=os.path.join(tree.root, 'nodev'))
    check(rc == 0 and any('bus/usb does not exist: the PMD' in w
                          for w in j.get('warnings', [])),
          'no /dev/bus/usb: warns that the PMD cannot open devices')


def main():
    with tempfile.TemporaryDirectory() as root:
        tree = Tree(root)
        build(tree)
        test_status(tree)
        test_plans(tree)
        test_round_trip(tree)
        test_invisible(tree)
    print('%d failed' % len(FAILED))
    return 1 if FAILED else 0


if __name__ == '__main__':
    sys.exit(main())
