#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The include and call graph of a folder's C files, and its circles.

usage: file_graph.py [--check] [--rst] [--doc FILE] DIR [DIR...]

Reads every .c and .h file under each DIR (recursively; names are shown
relative to the first DIR's parent when several are given, else to DIR)
and derives two graphs between them:

- includes: A -> B when A has #include "B" and B is one of the files
  (looked up beside A, then by its name anywhere in the folders);
- uses, between modules (a .c file and the .h of the same name are one
  module, shown as name.[ch]): A -> B when code in A (a function body, or
  a file-scope initializer such as an ops table) names a function with
  external linkage that B defines: a call by name, or its name taken as a
  value (a callback, a table entry). A header's static inline functions
  belong to its module: a file that calls one uses that module, and the
  module uses what they call. A call through a pointer (an ops table, a
  callback) is not named and is no edge: that is how a lower layer
  reaches an upper one without depending on it. Variables are not
  followed; macros are not expanded.

Either graph must have no circle (a cycle of two or more files or
modules).

Without options it prints the report: each file, what it includes and what
it uses (with the functions named), then the circles. --check exits 1 when
there is a circle. --rst prints the graph as the reStructuredText literal
block the architecture page shows; --doc FILE checks that FILE holds that
block (between the ".. file-graph: DIR" marker and the next blank line
after the block) and that FILE's table of files names exactly the folder's
files (``name`` in the first column), and exits 1 naming what differs.
"""

import argparse
import difflib
import os
import re
import sys

IDENT = re.compile(r'[A-Za-z_]\w*')
KEYWORDS = {
    'if', 'for', 'while', 'switch', 'return', 'sizeof', 'do', 'else',
    'case', 'goto', 'typeof', '__typeof__', 'defined', '__attribute__',
    'alignof', '_Alignof', '__alignof__', '_Static_assert',
}


def strip_code(text):
    """Text without comments, string and character literals, and with
    preprocessor lines blanked (line count kept); the #include "x" names."""
    out = []
    includes = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    code = ''.join(out)
    lines = code.split('\n')
    raw = text.split('\n')
    k = 0
    while k < len(lines):
        if lines[k].lstrip().startswith('#'):
            m = re.match(r'\s*#\s*include\s*"([^"]+)"', raw[k]) \
                if k < len(raw) else None
            if m:
                includes.append(m.group(1))
            while lines[k].rstrip().endswith('\\') and k + 1 < len(lines):
                lines[k] = ''
                k += 1
            lines[k] = ''
        k += 1
    return '\n'.join(lines), includes


def tokens(code):
    """Identifiers and the punctuation that matters: ( ) { } [ ] ; = ,
    (== and the like are not an =); a member's name (after . or ->) is
    no identifier of the file scope and is left out."""
    member = False
    for m in re.finditer(r'[A-Za-z_]\w*|->|[=!<>+\-*/%&|^]=|==|[(){};=,\[\].]',
                         code):
        t = m.group(0)
        if t in ('.', '->'):
            member = True
            continue
        if IDENT.fullmatch(t) and member:
            member = False
            continue
        member = False
        if len(t) == 2 and t.endswith('='):
            continue
        yield t


def parse(code):
    """Function definitions at file scope (name -> static?) and the
    identifiers named by each (function bodies) or by file-scope
    initializers (attributed to None)."""
    toks = list(tokens(code))
    defs = {}
    uses = {}          # function name or None -> set of identifiers
    decl = []          # tokens of the current file-scope declaration
    i, n = 0, len(toks)
    while i < n:
        t = toks[i]
        if t == ';':
            decl = []
            i += 1
            continue
        if t == '=':
            # A file-scope initializer: up to the ; at depth 0.
            depth = 0
            j = i + 1
            while j < n and not (toks[j] == ';' and depth == 0):
                if toks[j] in '({[':
                    depth += 1
                elif toks[j] in ')}]':
                    depth -= 1
                elif IDENT.fullmatch(toks[j]):
                    uses.setdefault(None, set()).add(toks[j])
                j += 1
            decl = []
            i = j + 1
            continue
        if t == '{':
            # A function body when the declaration ends in name ( ... ).
            name = None
            if decl and decl[-1] == ')':
                depth = 0
                for k in range(len(decl) - 1, -1, -1):
                    if decl[k] == ')':
                        depth += 1
                    elif decl[k] == '(':
                        depth -= 1
                        if depth == 0:
                            if k > 0 and IDENT.fullmatch(decl[k - 1]) and \
                                    decl[k - 1] not in KEYWORDS:
                                name = decl[k - 1]
                            break
            depth = 1
            j = i + 1
            body = set()
            while j < n and depth:
                if toks[j] == '{':
                    depth += 1
                elif toks[j] == '}':
                    depth -= 1
                elif IDENT.fullmatch(toks[j]):
                    body.add(toks[j])
                j += 1
            if name is not None:
                defs[name] = 'static' in decl
                uses.setdefault(name, set()).update(body)
            # A struct or enum body: part of the declaration that goes on.
            decl = [] if name is not None else decl + ['{}']
            i = j
            continue
        decl.append(t)
        i += 1
    return defs, uses


class Graph:
    def __init__(self, dirs):
        self.root = os.path.dirname(os.path.abspath(dirs[0])) \
            if len(dirs) > 1 else os.path.abspath(dirs[0])
        self.files = {}
        for d in dirs:
            for top, subdirs, names in os.walk(d):
                subdirs.sort()
                for nm in sorted(names):
                    if nm.endswith(('.c', '.h')):
                        path = os.path.join(top, nm)
                        rel = os.path.relpath(os.path.abspath(path),
                                              self.root)
                        self.files[rel] = path
        self.names = sorted(self.files)
        # Modules: name.c and name.h together, shown as name.[ch].
        stems = {}
        for f in self.names:
            stems.setdefault(os.path.splitext(f)[0], []).append(f)
        self.module_of = {}
        for stem, fs in stems.items():
            shown = stem + '.[ch]' if len(fs) == 2 else fs[0]
            for f in fs:
                self.module_of[f] = shown
        self.modules = sorted(set(self.module_of.values()))
        self.incl = {f: set() for f in self.names}
        self.use = {m: {} for m in self.modules}   # m -> {m2: functions}
        by_base = {}
        for f in self.names:
            by_base.setdefault(os.path.basename(f), []).append(f)
        owner = {}       # function -> module that defines it
        parsed = {}
        for f in self.names:
            with open(self.files[f], encoding='utf-8') as fh:
                code, includes = strip_code(fh.read())
            for inc in includes:
                beside = os.path.normpath(os.path.join(os.path.dirname(f),
                                                       inc))
                if beside in self.files:
                    self.incl[f].add(beside)
                elif len(by_base.get(os.path.basename(inc), [])) == 1:
                    self.incl[f].add(by_base[os.path.basename(inc)][0])
            defs, uses = parse(code)
            parsed[f] = (defs, uses)
            for fn, static in defs.items():
                # A .c file's statics are its own; a header's inline
                # functions are its module's, whoever includes it.
                if static and f.endswith('.c'):
                    continue
                owner.setdefault(fn, self.module_of[f])
        for f in self.names:
            m = self.module_of[f]
            defs, uses = parsed[f]
            for ids in uses.values():
                for ident in ids:
                    g = owner.get(ident)
                    if g is None or g == m or ident in defs:
                        continue
                    self.use[m].setdefault(g, set()).add(ident)

    @staticmethod
    def circles(nodes, edges):
        """Each strongly connected component of two or more nodes."""
        index, low, on, stack, out = {}, {}, set(), [], []
        counter = [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in sorted(edges[v]):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

        sys.setrecursionlimit(10000)
        for v in nodes:
            if v not in index:
                visit(v)
        return out

    def levels(self):
        """Each module's layer in the uses graph: 0 uses no module, else
        one more than the highest it uses (in or under a circle: -1)."""
        lv = {}

        def level(v, seen):
            if v in lv:
                return lv[v]
            if v in seen:
                return -1
            seen.add(v)
            sub = [level(w, seen) for w in self.use[v]]
            seen.discard(v)
            if any(x < 0 for x in sub):
                lv[v] = -1
            else:
                lv[v] = 1 + max(sub) if sub else 0
            return lv[v]

        for v in self.modules:
            level(v, set())
        return lv

    def circle_lines(self):
        out = []
        for c in self.circles(self.names, self.incl):
            out.append('CIRCLE (includes): ' + ' <-> '.join(c))
        for c in self.circles(self.modules,
                              {m: set(self.use[m]) for m in self.modules}):
            out.append('CIRCLE (uses): ' + ' <-> '.join(c))
        return out

    def report(self):
        out = []
        for f in self.names:
            if self.incl[f]:
                out.append('%s includes %s' %
                           (f, ' '.join(sorted(self.incl[f]))))
        for m in self.modules:
            for g in sorted(self.use[m]):
                out.append('%s uses %s: %s' %
                           (m, g, ', '.join(sorted(self.use[m][g]))))
        return out + self.circle_lines()

    def rst(self):
        """The uses graph by layer, for the architecture page: a module
        uses only modules of lower layers."""
        lv = self.levels()
        width = max(len(m) for m in self.modules) + 2
        out = []
        for m in sorted(self.modules, key=lambda m: (-lv[m], m)):
            line = '   %s%s' % (str(lv[m]).ljust(3), m.ljust(width))
            lead = len(line) + 3
            if self.use[m]:
                line += '->'
            # Wrapped at 79 columns, continued under the first name.
            for u in sorted(self.use[m]):
                if len(line) + 1 + len(u) > 79 and len(line) > lead:
                    out.append(line)
                    line = ' ' * (lead - 1)
                line += ' ' + u
            out.append(line.rstrip())
        return out


def check_doc(g, path, dirarg):
    with open(path, encoding='utf-8') as fh:
        lines = fh.read().split('\n')
    ok = True
    marker = '.. file-graph: %s' % dirarg
    try:
        at = [line.strip() for line in lines].index(marker)
    except ValueError:
        print('%s: no "%s" marker before the graph' % (path, marker))
        return False
    # The literal block: from the first indented line after the marker
    # to the blank line that ends it.
    k = at + 1
    while k < len(lines) and not lines[k].startswith('   '):
        k += 1
    block = []
    while k < len(lines) and lines[k].strip():
        block.append(lines[k].rstrip())
        k += 1
    want = g.rst()
    if block != want:
        print('%s: the graph of %s is not the one scripts/file_graph.py '
              '--rst %s prints; replace it:' % (path, dirarg, dirarg))
        sys.stdout.writelines(difflib.unified_diff(
            [x + '\n' for x in block], [x + '\n' for x in want],
            path, 'file_graph.py --rst'))
        ok = False
    # The table of files before the marker: ``name`` first in a row.
    listed = []
    k = at - 1
    while k >= 0 and not lines[k].startswith('File '):
        m = re.match(r'``([^`]+\.(?:c|h|\[ch\]))``', lines[k])
        if m:
            listed.append(m.group(1))
        k -= 1
    names = [os.path.basename(f) for f in g.names]
    # A module listed as name.[ch] names both files.
    listed = [x for nm in listed for x in
              ([nm[:-5] + '.c', nm[:-5] + '.h'] if nm.endswith('.[ch]')
               else [nm])]
    for nm in sorted(set(names) - set(listed)):
        print('%s: the table of files above the graph misses %s' % (path, nm))
        ok = False
    for nm in sorted(set(listed) - set(names)):
        print('%s: the table of files names %s, which is not in %s' %
              (path, nm, dirarg))
        ok = False
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--check', action='store_true',
                    help='exit 1 when the files make a circle')
    ap.add_argument('--rst', action='store_true',
                    help='print the graph for the architecture page')
    ap.add_argument('--doc', metavar='FILE',
                    help='check that FILE shows this graph and these files')
    ap.add_argument('--name', metavar='DIR',
                    help='the folder as the doc\'s marker names it')
    ap.add_argument('dirs', nargs='+', metavar='DIR')
    a = ap.parse_args()
    for d in a.dirs:
        if not os.path.isdir(d):
            ap.error('%s: not a folder' % d)
    g = Graph(a.dirs)
    if a.rst:
        print('\n'.join(g.rst()))
        return 0
    report = g.report()
    bad = g.circle_lines()
    rc = 0
    if a.doc:
        if not check_doc(g, a.doc, a.name or a.dirs[0]):
            rc = 1
    if a.check:
        for line in bad:
            print(line)
        if bad:
            rc = 1
        else:
            print('%s: %d files, %d modules, no circle' %
                  (' '.join(a.dirs), len(g.names), len(g.modules)))
    elif not a.doc:
        print('\n'.join(report))
    return rc


if __name__ == '__main__':
    sys.exit(main())
