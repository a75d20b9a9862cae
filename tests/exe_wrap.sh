# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Sourced by the test scripts that run a program of the build. In a cross
# build, meson test sets MESON_EXE_WRAPPER (config/arm64-linux-gnu.ini:
# qemu-aarch64-static -L SYSROOT) and the program cannot run by itself.
#
# exe_wrap PROGRAM DIR: prints what runs PROGRAM: PROGRAM itself, or in a
# cross build DIR/<its name>, a script that execs it under the wrapper
# (exec: the pid a test starts is the program's, its command line names
# the program).
exe_wrap() {
	if [ -z "${MESON_EXE_WRAPPER:-}" ]; then
		echo "$1"
		return
	fi
	local w
	w=$2/$(basename "$1")
	printf '#!/bin/sh\nexec %s %q "$@"\n' "$MESON_EXE_WRAPPER" "$1" > "$w"
	chmod 755 "$w"
	echo "$w"
}
