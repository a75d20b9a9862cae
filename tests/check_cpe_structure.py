#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""Check ch39x-cpe's shape: sizes, layers, no circle.

usage: check_cpe_structure.py APP_DIR [--dot | --text | --selftest]

APP_DIR is app/ch39x-cpe. Its files are in layers, each calling and
including only those below it:

  4 main.c
  3 control/    the control plane
  2 datapath/   the nodes (the files that register one)
  1 datapath/   the tables and helpers the nodes share
  0 lib/        the pure modules (no DPDK)

A module is a file's stem (x.c with x.h). Module X depends on module Y
when X includes y.h or calls a function that y.c or y.h defines (found by
name: the functions without "static", and the inline ones of headers;
calls through pointers, such as a node's process(), are not seen).
Checked: no file over 600 lines, no function over 80 (the lines from its
name to its closing brace), no dependency on a higher layer (a call or an
include "back up"), no circle among the modules (Tarjan's strongly
connected components), no global besides those GLOBALS names (a variable
at file scope or a static one in a function, not const; the nodes'
registrations are the graph's), and no allowed one that is gone. Exit 1
naming each fault.

--dot prints the modules' graph as DOT; --text as the layered list that
doc/guides/architecture.rst shows (tests/check_cpe_arch_doc.py).
--selftest also checks the check: a copy of the app with a new global
added (control/, datapath/) must be refused.
"""

import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'scripts'))
from file_graph import Graph  # noqa: E402  (scripts/: the same circles)

MAX_FILE = 600
MAX_FUNC = 80
LAYER_NAMES = {0: 'lib', 1: 'datapath (tables)', 2: 'datapath (nodes)',
               3: 'control', 4: 'main'}

# The globals allowed, each with why: the graph's and the telemetry
# callbacks' ways in (DPDK calls both with no argument), the
# configuration.
GLOBALS = {
    ('datapath/dpconf.c', 'the_dp'):
        'the configuration the nodes take at init() (rte_graph gives '
        'init() no argument)',
    ('main.c', 'opts'): 'the configuration (the options)',
    ('control/ctl.c', 'tel_box'):
        'the telemetry mailbox for the callbacks, which get no argument '
        'before DPDK 24.11 (rte_telemetry_register_cmd()); not in a '
        'memzone: rte_eal_cleanup() unmaps those while telemetry runs',
}

DEF_RE = re.compile(r'^([A-Za-z_]\w*)\(')
NAME_RE = re.compile(r'(\w+)\s*(\[[^]]*\]\s*)*$')
INC_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
CALL_RE = re.compile(r'\b([A-Za-z_]\w*)\s*\(')


def sources(app):
    """The app's .c and .h files, relative to app."""
    out = []
    for d in ('.', 'lib', 'datapath', 'control'):
        for f in sorted(os.listdir(os.path.join(app, d))):
            if f.endswith(('.c', '.h')):
                out.append(os.path.normpath(os.path.join(d, f)))
    return out


def strip_comments(text):
    """Comments and strings blanked, lines kept."""
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    text = re.sub(r'/\*.*?\*/', blank, text, flags=re.S)
    text = re.sub(r'//[^\n]*', blank, text)
    return re.sub(r'"(\\.|[^"\\\n])*"', blank, text)


def functions(lines):
    """(name, first line, last line, static) of each definition: its name
    at column 0 followed by "(", its body from a "{" to a "}" at column
    0 (the DPDK style)."""
    out = []
    i = 0
    while i < len(lines):
        m = DEF_RE.match(lines[i])
        if m is None:
            i += 1
            continue
        j = i
        while j < len(lines) and not lines[j].startswith(('{', ';')) and \
                not lines[j].rstrip().endswith(';'):
            j += 1
        if j >= len(lines) or not lines[j].startswith('{'):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith('}'):
            k += 1
        prev = lines[i - 1] if i > 0 else ''
        static = 'static' in prev.split() or 'static' in lines[i].split()
        out.append((m.group(1), i, k, static))
        i = k + 1
    return out


def globals_of(lines):
    """(name, line) of the mutable variables of static storage: at file
    scope (column 0) or static in a function, not const; a declaration
    ends with ";" or opens an initializer with "= {"."""
    out = []
    depth = 0
    for i, line in enumerate(lines):
        s = line.strip()
        head = s.split('=')[0]
        words = head.replace('*', ' ').split()
        decl = s.endswith(';') or ('=' in s and s.endswith('{'))
        if decl and '(' not in head and words and \
                words[0] not in ('typedef', 'extern', 'return', 'case',
                                 'goto', 'else', 'enum', 'union') and \
                'const' not in words and 'rte_node_register' not in words:
            at_top = depth == 0 and not line[:1].isspace() and \
                not (words[0] == 'struct' and len(words) < 3)
            if at_top or (depth > 0 and words[0] == 'static'):
                m = NAME_RE.search(head.rstrip(' ;'))
                if m:
                    out.append((m.group(1), i + 1))
        depth += line.count('{') - line.count('}')
    return out


def layer(path, text):
    if path.startswith('lib/'):
        return 0
    if path.startswith('datapath/'):
        return 2 if 'RTE_NODE_REGISTER(' in text else 1
    if path.startswith('control/'):
        return 3
    return 4


def stem(path):
    return os.path.splitext(path)[0]


def scan(app):
    files = sources(app)
    raw = {f: open(os.path.join(app, f), encoding='utf-8').read()
           for f in files}
    code = {f: strip_comments(raw[f]) for f in files}
    faults = []
    seen = set()
    mod_layer = {}
    defs = {}		# function name -> module
    bodies = {}		# module -> [(function, body text)]
    for f in files:
        lines = code[f].split('\n')
        n = raw[f].count('\n')
        if n > MAX_FILE:
            faults.append('%s: %d lines (at most %d)' % (f, n, MAX_FILE))
        if f.endswith('.c'):
            for (name, ln) in globals_of(lines):
                seen.add((f, name))
                if (f, name) not in GLOBALS:
                    faults.append('%s:%d: global %s (only those GLOBALS '
                                  'allows: pass state as arguments or '
                                  'keep it in its node)' % (f, ln, name))
        m = stem(f)
        lay = layer(f, raw[f])
        mod_layer[m] = max(mod_layer.get(m, 0), lay)
        for (name, a, b, static) in functions(lines):
            if b - a + 1 > MAX_FUNC:
                faults.append('%s:%d: %s(): %d lines (at most %d)' %
                              (f, a + 1, name, b - a + 1, MAX_FUNC))
            if not static or f.endswith('.h'):
                defs[name] = m
            bodies.setdefault(m, []).append(
                (name, '\n'.join(lines[a + 1:b])))
    for (f, name) in sorted(set(GLOBALS) - seen):
        faults.append('%s: global %s is allowed but gone: drop it from '
                      'GLOBALS' % (f, name))
    # A header without a .c of its own shares its module with the .c
    # files that define its functions: take the layer of the header.
    by_base = {os.path.basename(f): stem(f) for f in files}
    deps = {m: {} for m in mod_layer}
    for f in files:
        m = stem(f)
        for line in raw[f].split('\n'):
            inc = INC_RE.match(line)
            if inc and inc.group(1) in by_base:
                t = by_base[inc.group(1)]
                if t != m:
                    deps[m].setdefault(t, 'includes %s' % inc.group(1))
    for m, fl in bodies.items():
        for (fn, body) in fl:
            for c in CALL_RE.finditer(body):
                t = defs.get(c.group(1))
                if t is not None and t != m:
                    deps[m].setdefault(t, '%s() calls %s()' %
                                       (fn, c.group(1)))
    for m in sorted(deps):
        for t, why in sorted(deps[m].items()):
            if mod_layer[t] > mod_layer[m]:
                faults.append('%s (%s) depends on %s (%s), a higher layer: '
                              '%s' % (m, LAYER_NAMES[mod_layer[m]], t,
                                      LAYER_NAMES[mod_layer[t]], why))
    for scc in Graph.circles(sorted(deps), deps):
        faults.append('circle among %s: %s' % (
            ', '.join(sorted(scc)),
            '; '.join('%s -> %s (%s)' % (m, t, deps[m][t])
                      for m in sorted(scc) for t in sorted(deps[m])
                      if t in scc)))
    return faults, deps, mod_layer


def dot(deps, mod_layer):
    out = ['digraph cpe_modules {', '\trankdir=TB;']
    for lay in sorted(LAYER_NAMES, reverse=True):
        mods = sorted(m for m in mod_layer if mod_layer[m] == lay)
        if mods:
            out.append('\t{ rank=same; %s }' %
                       ' '.join('"%s";' % m for m in mods))
    for m in sorted(deps):
        for t in sorted(deps[m]):
            out.append('\t"%s" -> "%s";' % (m, t))
    out.append('}')
    return '\n'.join(out)


def text(deps, mod_layer):
    out = []
    for lay in sorted(LAYER_NAMES, reverse=True):
        mods = sorted(m for m in mod_layer if mod_layer[m] == lay)
        if not mods:
            continue
        out.append('%s:' % LAYER_NAMES[lay])
        for m in mods:
            out.append('  %-26s -> %s' % (m, ' '.join(
                sorted(os.path.basename(t) for t in deps[m])) or '-'))
    return '\n'.join(out)


def selftest(app):
    """The check must fail on a new global: a copy of the app with one
    added to a file of each folder is refused, naming it."""
    import shutil
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, 'app')
        shutil.copytree(app, copy, ignore=shutil.ignore_patterns(
            '*.o', 'meson.build'))
        out = []
        for (f, decl) in (('control/opts.c', 'static char where[512];'),
                          ('datapath/flow4.c', 'uint64_t flow4_seen;'),
                          ('control/ctl.c', 'static int once = 1;')):
            with open(os.path.join(copy, f), 'a', encoding='utf-8') as fh:
                fh.write('\n%s\n' % decl)
            name = decl.split('=')[0].rstrip(' ;').split()[-1].split('[')[0]
            faults = scan(copy)[0]
            if not any(('%s:' % f) in x and ('global %s ' % name) in x
                       for x in faults):
                out.append('a new global %s in %s passes the check' %
                           (name, f))
        return out


def main(argv):
    if len(argv) < 2 or len(argv) > 3:
        sys.exit(__doc__)
    faults, deps, mod_layer = scan(argv[1])
    if len(argv) == 3 and argv[2] == '--selftest':
        faults += selftest(argv[1])
    if len(argv) == 3 and argv[2] == '--dot':
        print(dot(deps, mod_layer))
    elif len(argv) == 3 and argv[2] == '--text':
        print(text(deps, mod_layer))
    for f in faults:
        print('check_cpe_structure: ' + f, file=sys.stderr)
    return 1 if faults else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
