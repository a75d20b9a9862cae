#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""scripts/testlog_count.py, as scripts/test.sh ends with it: the counts
on stdout; on stderr a FAILED line naming each failed test with its last
lines, and one for a build directory without a meson log.

usage: check_testlog_count.py scripts/testlog_count.py
"""

import json
import os
import subprocess
import sys
import tempfile


def main():
    tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        logs = os.path.join(d, 'build', 'meson-logs')
        os.makedirs(logs)
        out = '\n'.join('line %d' % i for i in range(40)) + '\nFAIL: why'
        recs = [{'name': 'ch39x:a / good', 'result': 'OK', 'duration': 1},
                {'name': 'ch39x:b / skipped', 'result': 'SKIP'},
                {'name': 'ch39x:c / bad', 'result': 'TIMEOUT',
                 'duration': 61.4, 'stdout': out}]
        with open(os.path.join(logs, 'testlog.json'), 'w') as f:
            for r in recs:
                f.write(json.dumps(r) + '\n')
        p = subprocess.run([sys.executable, tool, os.path.join(d, 'build'),
                            os.path.join(d, 'nobuild')],
                           capture_output=True, text=True, check=True)
    err = p.stderr.splitlines()
    want = [
        (p.stdout.split() == ['1', '2'], 'counts "1 2" (%r)' % p.stdout),
        ('FAILED: build: ch39x:c / bad (TIMEOUT after 61 s)' in err,
         'the failed test named with its result and time'),
        (err.count('    | FAIL: why') == 1 and
         '    | line 16' in err and '    | line 15' not in err,
         'its last 25 lines, no more'),
        (any(l.startswith('FAILED: ') and l.endswith('nobuild: no meson '
             'test log (the build or its setup failed: see above)')
             for l in err), 'a build without a log named'),
        (not any('good' in l or 'skipped' in l for l in err),
         'nothing said of a passed or skipped test'),
    ]
    bad = 0
    for ok, what in want:
        print('%s %s' % ('ok  ' if ok else 'FAIL', what))
        bad += not ok
    if bad:
        print(p.stderr)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
