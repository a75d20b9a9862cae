# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""A callgrind profile's counts, read by the instruction benchmarks
(scripts/bench/pmd_instr.sh, scripts/bench/cpe_instr.sh) and through them
their guards in CI. One reader, so the two cannot come to disagree on the
format."""
import collections
import re

# Which name table each position key uses: callgrind's name compression
# numbers objects, files and functions separately ("(3) name" defines
# number 3, "(3)" refers to it).
_SPACE = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl",
          "cfi": "fl", "cfl": "fl", "fn": "fn", "cfn": "fn"}
_POS = re.compile(r"^(ob|cob|fl|fi|fe|cfi|cfl|fn|cfn)=(.*)$")
_REF = re.compile(r"^\((\d+)\)(?: (.*))?$")


def parse(path, inlined=None):
    """(self, arcs, files) of the profile at PATH, its first event
    (instructions) only:
    self   Counter of self counts by (object, function);
    arcs   Counter of inclusive counts of call arcs by
           ((object, function) of the caller, (object, function) of the
           callee);
    files  the source file of each (object, function), as first seen.
    inlined, a Counter when given, gets the self counts by (object,
    function, source file of the line): a function's lines that came
    from another file (an inline function of a header: rte_memcpy.h
    in a burst function, say) under that file."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    selfc = collections.Counter()
    arcs = collections.Counter()
    files = {}
    ob = fl = fi = fn = cob = cfn = None
    in_call = False
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = _POS.match(line)
            if m:
                key, val = m.groups()
                mm = _REF.match(val)
                tab = names[_SPACE[key]]
                if mm:
                    if mm.group(2) is not None:
                        tab[mm.group(1)] = mm.group(2)
                    val = tab.get(mm.group(1), "?")
                if key == "ob":
                    ob = val
                elif key == "fl":
                    fl = fi = val
                elif key in ("fi", "fe"):
                    fi = val
                elif key == "fn":
                    fn = val
                    fi = fl
                    files.setdefault((ob, fn), fl)
                elif key == "cob":
                    cob = val
                elif key == "cfn":
                    cfn = val
                continue
            # "calls=N TARGET": the next cost line is the call's
            # inclusive cost, not the caller's own.
            if line.startswith("calls="):
                in_call = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            cost = int(parts[1]) if len(parts) > 1 else 0
            if in_call:
                arcs[(ob, fn), (cob or ob, cfn)] += cost
                in_call = False
                cob = cfn = None
            else:
                selfc[(ob, fn)] += cost
                if inlined is not None:
                    inlined[(ob, fn, fi)] += cost
    return selfc, arcs, files
