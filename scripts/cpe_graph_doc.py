#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The router's drawings in doc/guides/architecture.rst, generated.

usage: cpe_graph_doc.py CH39X_CPE APP_DIR [--doc FILE [--update]]

Two literal blocks of the architecture page are made, never drawn by hand:

- ".. cpe-graph": the graph of nodes as the router registers and wires
  them: ``CH39X_CPE -- --graph-dot`` (control/graph.c: every node
  RTE_NODE_REGISTER made, the per-port clones for one port "K" and the
  drop reasons' clones, the edges added at graph creation), one line a
  node: its name and its next edges in edge order. Only the nodes whose
  RTE_NODE_REGISTER is in APP_DIR's C files (".name = ...") and their
  clones are drawn, so that a DPDK release whose own node library gets
  linked in draws the same.
- ".. cpe-files": the app's modules by layer and what each depends on
  (includes and calls by name), as ``tests/check_cpe_structure.py APP_DIR
  --text`` prints them: no circle, no call back up.

Without --doc it prints both blocks. --doc FILE exits 1 (with a diff) when
FILE's blocks differ from the generated ones; --update rewrites them in
FILE. Each block is the comment line ".. cpe-graph: ..." (or
".. cpe-files: ..."), a blank line, "::", a blank line and the indented
lines, up to the next line that is not indented.

Both come from the sources of the tree under test: a node added, split or
renamed in app/ch39x-cpe/datapath (or another folder the app builds)
changes the binary's --graph-dot and so the expected block.
"""

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys

WIDTH = 78
EDGE_RE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"\s*\[label="(\d+)"\];')
NODE_RE = re.compile(r'^\s*"([^"]+)";')
NAME_RE = re.compile(r'\.name\s*=\s*"([^"]+)"')
MARKS = {
    'cpe-graph': '.. cpe-graph: ch39x-cpe -- --graph-dot '
                 '(scripts/cpe_graph_doc.py)',
    'cpe-files': '.. cpe-files: tests/check_cpe_structure.py '
                 'app/ch39x-cpe --text (scripts/cpe_graph_doc.py)',
}


def wrap(head, words, indent):
    """head then words, folded at WIDTH under column indent."""
    lines = []
    cur = head
    for w in words:
        if len(cur) + 1 + len(w) > WIDTH and cur.strip() != head.strip():
            lines.append(cur)
            cur = ' ' * indent + w
        else:
            cur = cur + ' ' + w if cur != head else head + w
    lines.append(cur)
    return [ln.rstrip() for ln in lines]


def registered(app_dir):
    """The names of the nodes app_dir's C files register."""
    names = set()
    for root, _, files in os.walk(app_dir):
        for f in files:
            if not f.endswith('.c'):
                continue
            with open(os.path.join(root, f), encoding='utf-8') as fh:
                text = fh.read()
            if 'RTE_NODE_REGISTER' in text:
                names.update(NAME_RE.findall(text))
    return names


def graph_lines(app, app_dir):
    """The nodes and their edges, from the router's own --graph-dot:
    those app_dir registers and their clones (NAME-SUFFIX), not nodes a
    DPDK library linked in may register (librte_node's)."""
    # A cross build runs the program under meson's wrapper (qemu-user).
    cmd = shlex.split(os.environ.get('MESON_EXE_WRAPPER', '')) + [app]
    res = subprocess.run(cmd + ['--', '--graph-dot'], capture_output=True,
                         text=True, timeout=60, check=False)
    if res.returncode != 0 or 'digraph' not in res.stdout:
        sys.exit('cpe_graph_doc: %s -- --graph-dot failed (%d): %s' %
                 (app, res.returncode, res.stderr.strip()))
    nodes = {}
    for ln in res.stdout.splitlines():
        m = EDGE_RE.match(ln)
        if m:
            nodes.setdefault(m.group(1), []).append(
                (int(m.group(3)), m.group(2)))
            continue
        m = NODE_RE.match(ln)
        if m:
            nodes.setdefault(m.group(1), [])
    ours = registered(app_dir)
    nodes = {n: e for n, e in nodes.items()
             if n in ours or n.split('-')[0] in ours}
    if not nodes:
        sys.exit('cpe_graph_doc: no node of %s in %s --graph-dot' %
                 (app_dir, app))
    width = max(len(n) for n in nodes if nodes[n]) + 2
    out = []
    for name in sorted(n for n in nodes if nodes[n]):
        head = '   %-*s-> ' % (width, name)
        out += wrap(head, [t for _, t in sorted(nodes[name])], len(head))
    ends = sorted(n for n in nodes if not nodes[n])
    if ends:
        head = '   %-*s   ' % (width, '(no next)')
        out += wrap(head, ends, len(head))
    return out


def files_lines(app_dir):
    """The modules by layer, from check_cpe_structure.py --text."""
    here = os.path.dirname(os.path.abspath(__file__))
    tool = os.path.join(here, '..', 'tests', 'check_cpe_structure.py')
    res = subprocess.run([sys.executable, tool, app_dir, '--text'],
                         capture_output=True, text=True, timeout=120,
                         check=False)
    # Its exit status is its own test's (sizes, circles): the drawing
    # is printed either way.
    if not res.stdout.strip():
        sys.exit('cpe_graph_doc: %s --text printed nothing: %s' %
                 (tool, res.stderr.strip()))
    rows = []
    for ln in res.stdout.splitlines():
        if not ln.strip():
            continue
        if not ln.startswith(' '):
            rows.append((ln.strip(), None))
            continue
        name, _, deps = ln.strip().partition('->')
        rows.append((name.strip(), deps.split()))
    width = max(len(n) for n, d in rows if d is not None) + 2
    out = []
    for name, deps in rows:
        if deps is None:
            out.append('   ' + name)
            continue
        head = '     %-*s-> ' % (width, name)
        out += wrap(head, deps or ['-'], len(head))
    return out


def block(kind, lines):
    return [MARKS[kind], '', '::', ''] + lines


def find(doc, kind):
    """(first, end) of kind's block in doc's lines, or None."""
    tag = '.. %s:' % kind
    for i, ln in enumerate(doc):
        if not ln.startswith(tag):
            continue
        j = i + 1
        while j < len(doc) and doc[j].strip() in ('', '::'):
            j += 1
        while j < len(doc) and (doc[j].startswith(' ') or
                                (not doc[j].strip() and j + 1 < len(doc)
                                 and doc[j + 1].startswith(' '))):
            j += 1
        return i, j
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('app', help='the ch39x-cpe binary')
    ap.add_argument('app_dir', help='app/ch39x-cpe')
    ap.add_argument('--doc', help='the architecture page to check')
    ap.add_argument('--update', action='store_true',
                    help='rewrite the blocks in --doc')
    a = ap.parse_args()
    want = {'cpe-graph': block('cpe-graph', graph_lines(a.app, a.app_dir)),
            'cpe-files': block('cpe-files', files_lines(a.app_dir))}
    if a.doc is None:
        for k in ('cpe-graph', 'cpe-files'):
            print('\n'.join(want[k]) + '\n')
        return 0
    with open(a.doc, encoding='utf-8') as f:
        doc = f.read().split('\n')
    bad = 0
    for k in ('cpe-graph', 'cpe-files'):
        span = find(doc, k)
        if span is None:
            print('cpe_graph_doc: %s has no ".. %s:" block' % (a.doc, k))
            bad += 1
            continue
        have = doc[span[0]:span[1]]
        if have == want[k]:
            continue
        if a.update:
            doc[span[0]:span[1]] = want[k]
            continue
        bad += 1
        print('cpe_graph_doc: %s: the %s block is not the generated one '
              '(scripts/cpe_graph_doc.py %s %s --doc %s --update):' %
              (a.doc, k, a.app, a.app_dir, a.doc))
        sys.stdout.writelines(difflib.unified_diff(
            [x + '\n' for x in have], [x + '\n' for x in want[k]],
            'doc', 'generated'))
    if a.update:
        with open(a.doc, 'w', encoding='utf-8') as f:
            f.write('\n'.join(doc))
    return 1 if bad and not a.update else 0


if __name__ == '__main__':
    sys.exit(main())
