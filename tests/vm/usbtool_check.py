#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""One device of a `ch39x-usb --json status` output against expectations,
for tests/vm (guest.sh, pmd.sh).

usage: usbtool_check.py STATUS.json PATH [KEY=VALUE ...]
       usbtool_check.py STATUS.json PATH --get KEY

KEY is a field of the device (proto, proto_config, active_config,
switch_needed, kernel_drivers, netdevs, state, serial, vdev, vdev_serial,
chip, ...) or held_dpdk (whether a DPDK process holds it). Lists compare
joined with ','; true/false for booleans; '-' stands for empty or null and
'+' for anything not empty. Prints one line describing the device and any
mismatch; exits 1 on a mismatch or when the device is not listed.
"""

import json
import sys


def text(v):
    if v is None or v == [] or v == '':
        return '-'
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, list):
        return ','.join(str(x) for x in v)
    return str(v)


def main():
    with open(sys.argv[1], encoding='utf-8') as f:
        status = json.load(f)
    path = sys.argv[2]
    devs = [d for d in status.get('devices', []) if d['path'] == path]
    if not devs:
        print('%s not listed (listed: %s%s)' % (
            path, ' '.join(d['path'] for d in status.get('devices', [])),
            '; error: ' + status['error'] if 'error' in status else ''))
        return 1
    d = devs[0]
    d['held_dpdk'] = any(h['dpdk'] for h in d['held_by'])
    d['holders'] = ['%s:%d' % (h['comm'], h['pid']) for h in d['held_by']]
    if sys.argv[3:4] == ['--get']:
        print(text(d.get(sys.argv[4])))
        return 0
    bad = []
    for kv in sys.argv[3:]:
        k, want = kv.split('=', 1)
        got = text(d.get(k))
        if want == '+' and got != '-':
            continue
        if got != want:
            bad.append('%s is %s, expected %s' % (k, got, want))
    print('%s %s %s: proto %s (%s), configuration %s, drivers %s, '
          'netdevs %s, state %s, held by %s, --vdev %s%s' % (
              path, d['id'], d['serial'] or '(no serial)', d['proto'],
              d['proto_reason'], d['active_config'],
              text(d['kernel_drivers']), text(d['netdevs']), d['state'],
              text(d['holders']), d['vdev'],
              '; MISMATCH: ' + '; '.join(bad) if bad else ''))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
