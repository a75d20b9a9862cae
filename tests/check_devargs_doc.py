#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Check the docs against the PMD's devargs table.

usage: check_devargs_doc.py CH39X_DEVARGS_TOOL README.md ch39x.rst

The keys come from the table itself (ch39x-devargs --keys, built from
drivers/net/ch39x/ch39x_devargs.h). README.md's "Device arguments" table
must be the one `ch39x-devargs --markdown` prints; the NIC guide's
"Runtime configuration" section must describe every key in a bullet
("- ``key`` ...") and no other, and each bullet must name every word its
key takes (the literal alternatives of `ch39x-devargs --params`, e.g.
``rndis`` of sim=ch397|ch398|ncm|ecm|rndis) as ``word``. Exit 1 naming
what is missing or extra.
"""

import difflib
import os
import re
import shlex
import subprocess
import sys


def section(text, start, end):
    """The lines from the one matching start to the next matching end."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(start, line):
            out = []
            for j in range(i + 1, len(lines)):
                nxt = lines[j + 1] if j + 1 < len(lines) else ''
                if end(lines[j], nxt):
                    break
                out.append(lines[j])
            return out
    return None


def compare(what, listed, keys):
    """Report keys missing from a doc, or listed there but not in the table."""
    ok = True
    missing = [k for k in keys if k not in listed]
    extra = [k for k in listed if k not in keys]
    dup = sorted({k for k in listed if listed.count(k) > 1})
    if missing:
        print('%s misses devargs: %s' % (what, ', '.join(missing)))
        ok = False
    if extra:
        print('%s lists devargs the PMD does not have: %s' %
              (what, ', '.join(extra)))
        ok = False
    if dup:
        print('%s lists devargs twice: %s' % (what, ', '.join(dup)))
        ok = False
    return ok


def check_readme(path, tool, keys):
    with open(path, encoding='utf-8') as f:
        sec = section(f.read(), r'## Device arguments\s*$',
                      lambda line, nxt: line.startswith('## '))
    if sec is None:
        print('%s: no "## Device arguments" section' % path)
        return False
    table = [line for line in sec if line.startswith('|')]
    listed = [m.group(1) for m in
              (re.match(r'\|\s*`([^`]+)`\s*\|', line) for line in table) if m]
    ok = compare('%s (Device arguments table)' % path, listed, keys)
    want = subprocess.run(tool + ['--markdown'], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    if table != want:
        print('%s: the Device arguments table is not the one the devargs '
              'table makes; replace it with the output of '
              '`ch39x-devargs --markdown` (build/tests/):' % path)
        sys.stdout.writelines(difflib.unified_diff(
            [line + '\n' for line in table], [line + '\n' for line in want],
            'README.md', 'ch39x-devargs --markdown'))
        ok = False
    return ok


def words(syntax):
    """The literal values of a key's syntax: "auto|sw" -> auto, sw; the
    placeholders (<1-256>, pair:<name>) and "[+...]" are no word."""
    syntax = syntax.replace('[+...]', '')
    return [w for w in syntax.split('|') if re.fullmatch(r'[a-z0-9_]+', w)]


def bullets(sec):
    """Each "- ``key``" bullet's text, up to the next line that is not
    indented (the next bullet, a paragraph)."""
    out, key = {}, None
    for line in sec:
        m = re.match(r'- ``([a-z0-9_]+)``', line)
        if m:
            key = m.group(1)
            out[key] = line
        elif key is not None and line.startswith('  '):
            out[key] += ' ' + line.strip()
        else:
            key = None
    return out


def check_guide(path, keys, params):
    with open(path, encoding='utf-8') as f:
        sec = section(f.read(), r'Runtime configuration\s*$',
                      lambda line, nxt: re.fullmatch(r'-{3,}|={3,}|~{3,}',
                                                     nxt) is not None
                      and line.strip() != '')
    if sec is None:
        print('%s: no "Runtime configuration" section' % path)
        return False
    # The section's own underline comes first.
    listed = [m.group(1) for m in
              (re.match(r'- ``([a-z0-9_]+)``', line) for line in sec) if m]
    ok = compare('%s (Runtime configuration)' % path, listed, keys)
    text = bullets(sec)
    for key, syntax in params.items():
        miss = [w for w in words(syntax)
                if key in text and '``%s``' % w not in text[key]]
        if miss:
            print('%s: the bullet of ``%s`` does not name %s (it takes %s)'
                  % (path, key, ', '.join('``%s``' % w for w in miss),
                     syntax))
            ok = False
    return ok


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    tool, readme, guide = sys.argv[1:]
    # A cross build's tool runs under meson's exe_wrapper (qemu-user).
    tool = shlex.split(os.environ.get('MESON_EXE_WRAPPER', '')) + [tool]
    keys = subprocess.run(tool + ['--keys'], check=True, capture_output=True,
                          text=True).stdout.split()
    if not keys:
        print('%s --keys printed no keys' % ' '.join(tool))
        return 1
    # "key=syntax key=syntax ..."; a syntax may hold spaces.
    params = dict(kv.split('=', 1) for kv in re.split(
        r' (?=[a-z0-9_]+=)', subprocess.run(
            tool + ['--params'], check=True, capture_output=True,
            text=True).stdout.strip()))
    ok = check_readme(readme, tool, keys)
    ok = check_guide(guide, keys, params) and ok
    if ok:
        print('README.md and the NIC guide describe the %d devargs' %
              len(keys))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
