#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Check the CPE option reference (doc/guides/cpe_options.rst) against
the router's option table.

usage: check_cpe_opts_doc.py CH39X_CPE cpe_options.rst

The reference is made from app/ch39x-cpe/control/opts_table.h:
`ch39x-cpe -- --options-rst` prints it. The guide holds it between the
comment lines ".. options-begin" and ".. options-end"; it must be that
output exactly, so that no option is missing, extra or described
otherwise than --help describes it. Exit 1 with a diff naming the fix.
"""

import difflib
import os
import shlex
import subprocess
import sys

BEGIN = '.. options-begin'
END = '.. options-end'


def guide_block(path):
    """The lines between the markers, or None."""
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    try:
        a = next(i for i, l in enumerate(lines) if l.startswith(BEGIN))
        b = next(i for i, l in enumerate(lines) if l.startswith(END))
    except StopIteration:
        return None
    return lines[a + 1:b] if a < b else None


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    cpe, guide = argv[1:]
    # A cross build runs the program under meson's wrapper (qemu-user).
    cmd = shlex.split(os.environ.get('MESON_EXE_WRAPPER', '')) + [cpe]
    want = subprocess.run(cmd + ['--', '--options-rst'], check=True,
                          capture_output=True, text=True).stdout
    want = [''] + want.splitlines()
    have = guide_block(guide)
    if have is None:
        print('%s: no "%s" ... "%s" block' % (guide, BEGIN, END))
        return 1
    # The block starts after a blank line; trailing blanks do not count.
    while have and have[-1] == '':
        have.pop()
    while want and want[-1] == '':
        want.pop()
    if have == want:
        print('ok: %s: the option reference is the option table\'s '
              '(%d lines)' % (guide, len(want)))
        return 0
    print('%s: the option reference is not the one the option table '
          'makes; replace the lines between "%s" and "%s" with the output '
          'of `ch39x-cpe -- --options-rst`:' % (guide, BEGIN, END))
    sys.stdout.writelines(difflib.unified_diff(
        [l + '\n' for l in have], [l + '\n' for l in want],
        os.path.basename(guide), 'ch39x-cpe -- --options-rst'))
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
