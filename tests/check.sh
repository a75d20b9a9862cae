# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# check EXPR TEXT: the shell tests' one assertion. Prints "ok: TEXT" when
# EXPR (eval'd) is true, else "FAIL: TEXT" and sets fail=1.
#
# EXPR runs without pipefail, whatever the script set: an expression like
# 'echo "$out" | head -1 | grep -q x' is decided by its last command, and
# under pipefail the reader that stops early (head -1, grep -q) can kill
# the writer with SIGPIPE and turn a match into a failure, now and then,
# more often on a loaded machine (cpe_ctl failed so once in CI).
check() {
	local -
	set +o pipefail
	if eval "$1"; then echo "ok: $2"; else echo "FAIL: $2"; fail=1; fi
}
