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


def _sub(tok, last):
    """A subposition: absolute (decimal or 0x hex), +N/-N relative to the
    last one, or * the same."""
    if tok == "*":
        return last
    if tok[0] in "+-":
        return last + int(tok, 0)
    return int(tok, 0)


def parse(path, inlined=None, instrs=None, calls=None):
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
    in a burst function, say) under that file.
    instrs, a Counter when given, gets the self counts by (object,
    function, instruction address) of a profile made with
    --dump-instr=yes (positions "instr line"; the address as in the
    object's file, as objdump shows it).
    calls, a Counter when given, gets the number of calls of each call
    arc, by the arcs' key."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    selfc = collections.Counter()
    arcs = collections.Counter()
    files = {}
    ob = fl = fi = fn = cob = cfn = None
    in_call = False
    npos = 1		# subpositions before the costs: "positions:" says
    has_instr = False
    pos = [0, 0]
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("positions:"):
                kinds = line.split()[1:]
                npos = len(kinds)
                has_instr = kinds[0] == "instr"
                continue
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
                if calls is not None:
                    calls[(ob, fn), (cob or ob, cfn)] += \
                        int(line[6:].split()[0])
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            parts = line.split()
            for i in range(min(npos, len(parts), 2)):
                pos[i] = _sub(parts[i], pos[i])
            cost = int(parts[npos]) if len(parts) > npos else 0
            if in_call:
                arcs[(ob, fn), (cob or ob, cfn)] += cost
                in_call = False
                cob = cfn = None
            else:
                selfc[(ob, fn)] += cost
                if inlined is not None:
                    inlined[(ob, fn, fi)] += cost
                if instrs is not None and has_instr:
                    instrs[(ob, fn, pos[0])] += cost
    return selfc, arcs, files


def parse_fwd(prefix, inlined=None, instrs=None, calls=None):
    """parse() of a testpmd run's forwarding lcore, whose profiles
    (--separate-threads=yes) are PREFIX.out-NN: of the threads other
    than the main one (-01, EAL's initialisation), the one that ran the
    most; the others wait in system calls."""
    import glob
    files = [f for f in glob.glob(f"{prefix}.out-*")
             if not f.endswith("-01")]

    def total(f):
        for line in open(f):
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
        return 0
    return parse(max(files, key=total), inlined, instrs, calls)


def model_share(arcw, lay):
    """The device model's share of each PMD function (benchmarks of the
    simulated device): lib/ch39x serves the model too (the NCM
    personality builds and parses NTBs with ch39x_ncm.c), so such a
    function's self count and calls are the model's in the share of its
    inclusive count that the model's calls into it make, the calls of a
    function partly the model's counting in that part, down the call
    graph (to a fixed point: the graph may have cycles). arcw: the call
    arcs' inclusive counts, lay: each function's layer ("pmd", "model",
    ...). Returns {function: share} for the functions with one."""
    share = {}
    for _ in range(100):
        tot = collections.Counter()
        mod = collections.Counter()
        for (caller, callee), w in arcw.items():
            if lay[callee] != "pmd" or w <= 0 or caller == callee:
                continue
            tot[callee] += w
            mod[callee] += w * (1.0 if lay[caller] == "model" else
                                share.get(caller, 0.0))
        new = {k: mod[k] / tot[k] for k in tot if mod[k] > 0}
        done = set(new) == set(share) and all(
            abs(new[k] - share[k]) < 1e-9 for k in new)
        share = new
        if done:
            break
    return share


_INSN = re.compile(r"^\s+([0-9a-f]+):\t(\S+)\s*(.*)$")
_HEAD = re.compile(r"^(\S+)\(\):$")
_OUTER = re.compile(r"^inlined by .* \((\S+)\)$")
_SYM = re.compile(r"^[0-9a-f]+ <(.*)>:$")
_LOC = re.compile(r"^(\S+):\d+(?: \(discriminator \d+\))?$")
_TARGET = re.compile(r"^([0-9a-f]+) <")


def _disasm(obj, pattern, files):
    """OBJ's instructions by function, from objdump --inlines: for each,
    (address, mnemonic, direct target or None, inside): inside when the
    debug information puts it in an inlined call of a function whose
    name matches PATTERN, at any depth, or gives it a line of a file
    whose base name is in FILES. objdump prints each instruction's
    inline chain: the innermost function's name when it changes, its
    file:line when that does, and "inlined by FILE:LINE (CALLER)" for
    each scope out."""
    import subprocess
    pat = re.compile(pattern)
    out = subprocess.run(["objdump", "-d", "-l", "--inlines",
                          "--no-show-raw-insn", obj], capture_output=True,
                         text=True, check=True).stdout
    fns = {}
    cur = None
    fn_in = chain_in = file_in = in_block = False
    for line in out.splitlines():
        m = _INSN.match(line)
        if m:
            t = _TARGET.match(m.group(3)) if m.group(2).startswith("j") \
                else None
            if cur is not None:
                cur.append((int(m.group(1), 16), m.group(2),
                            int(t.group(1), 16) if t else None,
                            fn_in or chain_in or file_in))
            in_block = False
            continue
        if not in_block:
            in_block, chain_in = True, False
        m = _HEAD.match(line)
        if m:
            fn_in = bool(pat.match(m.group(1)))
            continue
        m = _OUTER.match(line)
        if m:
            chain_in = chain_in or bool(pat.match(m.group(1)))
            continue
        m = _LOC.match(line)
        if m:
            file_in = m.group(1).rsplit("/", 1)[-1] in files
            continue
        m = _SYM.match(line)
        if m:
            cur = fns.setdefault(m.group(1), [])
            fn_in = chain_in = file_in = False
    return fns


def inlined_addrs(obj, pattern, files=()):
    """The addresses of OBJ's instructions that belong to the inlined
    calls of the functions whose names match PATTERN (an inlined
    rte_memcpy(), say): those that its debug information puts inside
    such a call (its inline scope or a line of one of FILES), and the
    code that runs only inside one: the rest of a basic block that is
    entered only from those instructions (or from other such blocks)
    and leaves only into them (a loop's set-up that the compiler
    hoisted out of the inlined body carries the caller's line and
    scope). Control flow from objdump's direct jumps; a block that an
    indirect jump may enter, or that ends in one or in a return, is not
    such code."""
    addrs = set()
    for insns in _disasm(obj, pattern, set(files)).values():
        if not insns:
            continue
        idx = {a: i for i, (a, _, _, _) in enumerate(insns)}
        targets = {t for (_, _, t, _) in insns if t is not None}
        # Basic blocks: starts at jump targets and after jumps/returns.
        starts = [0]
        for i, (a, mn, t, _) in enumerate(insns):
            if i and (a in targets or insns[i - 1][1].startswith(("j", "ret"))):
                starts.append(i)
        starts = sorted(set(starts))
        blocks = [(b, e) for b, e in zip(starts, starts[1:] + [len(insns)])]
        block_of = {}
        for k, (b, e) in enumerate(blocks):
            for i in range(b, e):
                block_of[i] = k
        inside = [x[3] for x in insns]

        def uncond(mn):
            return mn in ("jmp", "jmpq", "ret", "retq", "ud2") or \
                mn.startswith(("ret", "bnd"))

        preds = collections.defaultdict(list)	# block -> instr indexes
        succs = collections.defaultdict(list)	# block -> instr indexes
        open_ended = set()
        for k, (b, e) in enumerate(blocks):
            last = e - 1
            a, mn, t, _ = insns[last]
            if mn.startswith("j") and t is None:
                open_ended.add(k)	# an indirect jump
            if mn.startswith("ret"):
                open_ended.add(k)
            if t is not None:
                if t in idx:
                    succs[k].append(idx[t])
                    preds[block_of[idx[t]]].append(last)
                else:
                    open_ended.add(k)	# into another function
            if not uncond(mn) and e < len(insns):
                succs[k].append(e)
                preds[block_of[e]].append(last)
        cand = {k for k, (b, e) in enumerate(blocks)
                if not all(inside[b:e]) and preds[k] and
                k not in open_ended}
        # Blocks after an unconditional jump that no direct jump enters
        # may be an indirect jump's target: they have no preds here.
        changed = True
        while changed:
            changed = False
            for k in list(cand):
                ok = all(inside[i] or block_of[i] in cand for i in preds[k]) \
                    and all(inside[i] or block_of[i] in cand
                            for i in succs[k])
                if not ok:
                    cand.discard(k)
                    changed = True
        for k in cand:
            b, e = blocks[k]
            for i in range(b, e):
                inside[i] = True
        addrs.update(a for (a, _, _, _), x in zip(insns, inside) if x)
    return addrs


SUBMIT = ("sim_submit", "lu_submit")


def xfers_per_packet(calls_a, calls_b, lay, files, dp):
    """(tx, rx): the bulk OUT and bulk IN transfers the PMD submits per
    forwarded packet, from the call counts (parse(calls=)) of a short
    and a long run: calls of the transport's submit op (SUBMIT) from
    ch39x_tx.c and from ch39x_rx.c, over dp, the packets more."""
    tx = rx = 0.0
    for (caller, callee) in set(calls_a) | set(calls_b):
        if callee[1] not in SUBMIT or lay.get(caller) != "pmd":
            continue
        n = (calls_b[caller, callee] - calls_a[caller, callee]) / dp
        src = (files.get(caller) or "").rsplit("/", 1)[-1]
        if src == "ch39x_tx.c":
            tx += n
        elif src == "ch39x_rx.c":
            rx += n
    return tx, rx


def xfer_split(small, large):
    """The per-transfer share of the PMD's work beside the copies, at two
    frame sizes whose transfers per packet differ. small and large:
    (cost, rate, n) of each size: cost {key: instructions per packet},
    rate {key: executions per packet} (an instruction address's count,
    or a call arc's calls: of the PMD's work beside the copies, the keys
    summing to work_made), n the transfers per packet, (TX, RX), counted.
    A key is the transfers' when its executions per packet grow from
    one size to the other as the transfers do, not as the packets (1x)
    nor as the bytes: its rate ratio lies between halfway from 1 to R
    and 1.5 R, R the transfers' ratio (TX's and RX's apart: the smaller
    gives the lower bound, the larger the upper); or it runs
    at one size only, at most twice per transfer there (an NTB's close
    on a refusal, which only full NTBs make). Returns (share_small,
    share_large): the per-transfer keys' cost at each size; None when
    the transfers' ratio is within 10 % of 1 (ECM's frame a transfer,
    a burst an NTB at both sizes: nothing tells a transfer's work from
    a packet's, and it is the same at both sizes)."""
    (c0, r0, n0), (c1, r1, n1) = small, large
    ratios = [b / a for a, b in zip(n0, n1) if a > 0 and b > 0]
    if not ratios or sum(n0) <= 0 or abs(sum(n1) / sum(n0) - 1) < 0.1:
        return None
    lo = (1 + min(ratios)) / 2
    hi = 1.5 * max(ratios)
    s0 = s1 = 0.0
    for k in set(c0) | set(c1):
        a, b = r0.get(k, 0.0), r1.get(k, 0.0)
        if a > 0 and b > 0:
            per = lo <= b / a <= hi
        elif b > 0:
            per = b <= 2 * sum(n1)
        elif a > 0:
            per = a <= 2 * sum(n0)
        else:
            per = False
        if per:
            s0 += c0.get(k, 0.0)
            s1 += c1.get(k, 0.0)
    return s0, s1
