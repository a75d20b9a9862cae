#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The NIC guide's table of extended statistics against the PMD's own
list (xs_defs in drivers/net/ch39x/ch39x_xstats.c): the same names in the
same order, as the guide promises ("in this order").

Usage: check_xstats_doc.py XSTATS.C CH39X.RST
"""

import re
import sys


def code_names(path):
    src = open(path, encoding="utf-8").read()
    m = re.search(r"static const struct ch39x_xs_def xs_defs\[\] = \{(.*?)\n\};",
                  src, re.S)
    if not m:
        sys.exit(f"{path}: no xs_defs table")
    return re.findall(r'(?:XS\(|\{ )"([a-z0-9_]+)"', m.group(1))


def doc_names(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Besides ethdev's generic names"):
            break
    else:
        sys.exit(f"{path}: no extended statistics table")
    names, rules = [], 0
    for line in lines[i:]:
        if re.match(r"^=+ +=+$", line):
            rules += 1
            if rules == 3:
                break
            continue
        if rules == 2 and line and not line.startswith(" "):
            names.append(line.split()[0])
    return names


def main():
    code = code_names(sys.argv[1])
    doc = doc_names(sys.argv[2])
    if code == doc:
        print(f"xstats table: {len(code)} names, in the PMD's order")
        return 0
    missing = [n for n in code if n not in doc]
    extra = [n for n in doc if n not in code]
    print(f"{sys.argv[2]}: the extended statistics table differs from "
          f"xs_defs in {sys.argv[1]}")
    if missing:
        print("  not in the guide: " + ", ".join(missing))
    if extra:
        print("  not in the PMD: " + ", ".join(extra))
    if not missing and not extra:
        for k, (a, b) in enumerate(zip(code, doc)):
            if a != b:
                print(f"  order: row {k + 1} is {b}, the PMD's is {a}")
                break
    return 1


if __name__ == "__main__":
    sys.exit(main())
