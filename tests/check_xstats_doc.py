#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
"""The NIC guide's tables of extended statistics against the PMD's own
lists in drivers/net/ch39x/ch39x_xstats.c: the same names in the same
order, as the guide promises ("in this order"). Each table of the code
and the line of the guide its table follows:

  xs_defs        "Besides ethdev's generic names"   (every port)
  xs_rndis_defs  "RNDIS adds these extended statistics"

Usage: check_xstats_doc.py XSTATS.C CH39X.RST
"""

import re
import sys

TABLES = (
    ("xs_defs", "Besides ethdev's generic names"),
    ("xs_rndis_defs", "RNDIS adds these extended statistics"),
)


def code_names(path, table):
    src = open(path, encoding="utf-8").read()
    m = re.search(r"static const struct ch39x_xs_def " + table +
                  r"\[\] = \{(.*?)\n\};", src, re.S)
    if not m:
        sys.exit(f"{path}: no {table} table")
    # XS("name", ...), { "name", ... }, and wrappers such as XS_RN("n", f)
    # (ch39x_xstats.c: "rndis_" n)
    names = []
    for w, n in re.findall(r'(XS_RN\(|XS\(|\{ )"([a-z0-9_]+)"', m.group(1)):
        names.append("rndis_" + n if w == "XS_RN(" else n)
    return names


def doc_names(path, marker):
    lines = open(path, encoding="utf-8").read().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(marker):
            break
    else:
        sys.exit(f"{path}: no extended statistics table after "
                 f"\"{marker}\"")
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


def compare(table, code, doc, src, guide):
    if code == doc:
        print(f"{table}: {len(code)} names, in the PMD's order")
        return 0
    missing = [n for n in code if n not in doc]
    extra = [n for n in doc if n not in code]
    print(f"{guide}: the extended statistics table differs from "
          f"{table} in {src}")
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


def main():
    src, guide = sys.argv[1], sys.argv[2]
    bad = 0
    for table, marker in TABLES:
        bad |= compare(table, code_names(src, table),
                       doc_names(guide, marker), src, guide)
    return bad


if __name__ == "__main__":
    sys.exit(main())
