#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The test command: installs what is missing, builds, runs the whole meson
# test suite, then the suites of our own programs again in an
# AddressSanitizer + UndefinedBehaviorSanitizer build, and ends with one
# line "N passed, N failed" over both, plus the unit and pmd suites against
# DPDK 23.11, 24.11 and 25.11 (scripts/dpdk-lts.sh), a short libFuzzer run of every
# parser (scripts/fuzz.sh) and the libusb transport against real USB
# gadgets in a QEMU guest (tests/vm/run.sh), and the arm64 cross build's
# suites under qemu-aarch64 (scripts/test-arm64.sh; CH39X_ARM64=0: not).
#
# The Debian packages too (scripts/deb.sh for amd64 and arm64,
# tests/deb_install.sh, tests/deb_arm64.sh), as one more step; DEB=0: not.
#
# The guests (then the first LTS leg) run beside the main pass, the arm64
# suites and the packages beside the sanitizer pass and the other LTS legs
# (see "two stages" below); each step says how
# long it took ("test.sh: ... took N s").
#
# scripts/test.sh --under-load (or STRESS=N scripts/test.sh): instead, every
# meson suite RUNS times (default 5) with N busy processes beside them
# (default: one per CPU), see scripts/under_load.sh.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
builddir=${BUILDDIR:-$top/build}
asandir=${ASAN_BUILDDIR:-$top/build-asan}
# ccache (scripts/setup.sh installs it; meson uses it when it is there)
# keyed on paths relative to the checkout, so that the nine builds of the
# tree hit the machine's cache from any clone: CI's fresh clone compiles
# only what changed since the machine's last run.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
# Each meson test's timeout is a bound for a hung test, set near 2.5x its
# time on a quiet machine; CI's shared machines have run at a load of 20
# on two cores (cpe_qos 125 s idle, over 300 s there): twice the bound,
# here and in the arm64 and LTS legs' runs.
export TIMEOUT_MULTIPLIER=${TIMEOUT_MULTIPLIER:-2}
tmult=(--timeout-multiplier "$TIMEOUT_MULTIPLIER")

# The test suites' tools too (and the package tools, with DEB=1): all
# that apt must install comes now, before steps run side by side; build.sh
# then installs only what is missing.
setup_args=(--tests)
[ "${DEB:-1}" = 1 ] && setup_args+=(--deb)
bash "$top/scripts/setup.sh" "${setup_args[@]}" >/dev/null ||
	{ echo "0 passed, 1 failed"; exit 1; }

under_load=0
if [ "${1:-}" = "--under-load" ]; then
	under_load=1
	shift
fi
[ -n "${STRESS:-}" ] && under_load=1

bash "$top/scripts/build.sh" || { echo "0 passed, 1 failed"; exit 1; }
if [ "$under_load" -eq 1 ]; then
	exec bash "$top/scripts/under_load.sh" "$@"
fi
rc=0
t0=$SECONDS
# took WHAT: how long the step took, for the CI log (the 45-minute budget).
took() { echo "test.sh: $1 took $((SECONDS - t0)) s"; t0=$SECONDS; }

# The run is two stages of two steps side by side: a step that mostly
# waits (for packets, timers, Linux peers: the meson passes) beside one
# that mostly computes (the guests' TCG, the cross and package builds).
# Every suite is built to pass on a busy machine, and CI's are busy
# anyway. A background step's output follows when it ends; its verdict
# is a file of "NAME 1|0" lines.
bg_log=$(mktemp) bg_status=$(mktemp) bg_fails=$(mktemp)
trap 'rm -f "$bg_log" "$bg_status" "$bg_fails"' EXIT
# bg_took WHAT START: inside a background step, how long WHAT took since
# START (a $SECONDS), printed with the step's output.
bg_took() { echo "test.sh: $1 took $((SECONDS - $2)) s (in the background)"; }
# bg_wait PID WHAT: the background step's end, its output and verdicts;
# "waiting for WHAT" is the time it ran on after the foreground step.
bg_wait() {
	wait "$1" || rc=1
	cat "$bg_log"
	grep -E '^(FAIL|not ok)' "$bg_log" >> "$bg_fails" || true
	: > "$bg_log"
	took "waiting for $2"
}
# bg_ok NAME: 1 when every verdict line of NAME says 1 (and one does).
bg_ok() {
	awk -v n="$1" '$1 == n { seen = 1; if ($2 != 1) bad = 1 }
		END { print (seen && !bad) ? 1 : 0 }' "$bg_status"
}

# The DPDK LTS releases after the system's 22.11 (scripts/dpdk-lts.sh): the
# PMD and its apps built against each, its unit and pmd suites run. The
# minimal DPDK is cached per machine; its source comes from DPDK's release
# tarballs in DPDK_TARBALLS (.ci/run sets it to ../shared/dpdk when that
# exists), else DPDK_TARBALL, DPDK_SRC, DPDK_GIT or Debian's archive. A
# release whose source cannot be had is reported as a skip with the reason
# (exit 3); a build or test failure counts as a failure. Each leg's output
# is kept in .cache/lts/VERSION.log too, for scripts/lts_report.py
# (doc/lts/dpdk-lts.txt).
lts_versions=(${LTS_VERSIONS:-23.11 24.11 25.11})
mkdir -p "$top/.cache/lts"
# lts_leg VERSION: one leg; "lts VERSION 0" in the status file on failure.
lts_leg() {
	local v=$1 s=$SECONDS lrc
	rm -f "$top/build-lts-$v/meson-logs/testlog.json"
	LTS_SUITES="unit pmd" bash "$top/scripts/dpdk-lts.sh" "$v" 2>&1 |
		tee "$top/.cache/lts/$v.log"
	lrc=${PIPESTATUS[0]}
	echo "test.sh: dpdk-lts $v took $((SECONDS - s)) s" |
		tee -a "$top/.cache/lts/$v.log"
	case $lrc in
	0) ;;
	3) echo "dpdk-lts $v: SKIP, no DPDK $v source on this machine (see above)" ;;
	*) echo "dpdk-lts $v: FAIL (exit $lrc)"; echo "lts $v 0" >> "$bg_status" ;;
	esac
}

# Stage 1, in the background: the libusb transport on a real Linux USB
# stack: NCM and ECM gadgets in a QEMU guest (tests/vm/run.sh), at high
# speed and SuperSpeed; then the router's PPPoE WAN against pppoe-server
# and pppd in a guest of its own (PPPOE=1: this host's kernel has no PPP;
# about 4 minutes; after a failure of the first too, so that one run
# shows every verdict).
(
	st=1 s=$SECONDS
	bash "$top/tests/vm/run.sh" || st=0
	PPPOE=1 bash "$top/tests/vm/run.sh" || st=0
	echo "vm $st" >> "$bg_status"
	bg_took "the guests" "$s"
	# The guests end some minutes before the main pass: the first LTS
	# leg takes that core (about 3 minutes with its DPDK cached), one
	# compile job at a time so that the main pass keeps the other.
	[ ${#lts_versions[@]} -eq 0 ] || LTS_PMD_JOBS=1 lts_leg "${lts_versions[0]}"
) > "$bg_log" 2>&1 &
bg_pid=$!
meson test -C "$builddir" --print-errorlogs --num-processes 1 "${tmult[@]}" ||
	rc=1
took "the main pass"
bg_wait "$bg_pid" "the guests"
vm_ok=$(bg_ok vm)
[ "$vm_ok" = 1 ] || rc=1

# Stage 2, in the background: the arm64 cross build's suites under
# qemu-aarch64 (scripts/test-arm64.sh, about 8 minutes with the sysroot
# cached, 12 without; CH39X_ARM64=0 leaves them out; their tests are
# counted like the others), then the Debian packages (DEB=0 leaves them
# out; about 9 to 13 minutes on a fresh machine, less once the machine's
# cache holds the clean Debian tree and its dependencies' layer): built for amd64 and arm64,
# installed into a clean Debian 12 tree, arm64 checked. The packages
# come second: the arm64 one uses the sysroot the cross build makes.
(
	if [ "${CH39X_ARM64:-1}" = 1 ]; then
		st=0 s=$SECONDS
		bash "$top/scripts/test-arm64.sh" && st=1
		echo "arm64 $st" >> "$bg_status"
		bg_took "the arm64 suites" "$s"
	fi
	if [ "${DEB:-1}" = 1 ]; then
		st=0 s=$SECONDS
		bash "$top/scripts/deb.sh" && bash "$top/tests/deb_install.sh" &&
			bash "$top/scripts/deb.sh" --arch arm64 &&
			bash "$top/tests/deb_arm64.sh" && st=1
		echo "deb $st" >> "$bg_status"
		bg_took "the Debian packages" "$s"
	fi
) > "$bg_log" 2>&1 &
bg_pid=$!

# External programs (dpdk-testpmd) cannot load an ASan-built plugin, so the
# sanitizer pass covers the suites whose programs we build ourselves; of
# the router's, those of the data path (the suite cpe less cpe_long: QoS
# timing, telemetry, idle, DHCP, replug and MBIM run in the main pass
# only, for CI's time budget).
if [ ! -f "$asandir/build.ninja" ]; then
	meson setup "$asandir" "$top" -Dsanitize=true >/dev/null || rc=1
fi
asan_ok=1
if ninja -C "$asandir" >/dev/null; then
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ASAN_OPTIONS=detect_leaks=1 \
	meson test -C "$asandir" --print-errorlogs --num-processes 1 "${tmult[@]}" \
		--suite unit --suite pmd --suite fuzz --suite app --suite cpe \
		--no-suite cpe_long ||
		rc=1
else
	echo "sanitizer build failed"; rc=1; asan_ok=0
fi

# The other LTS legs (the first ran after the guests).
for v in "${lts_versions[@]:1}"; do
	lts_leg "$v"
done
lts_dirs=()
for v in "${lts_versions[@]}"; do
	[ -f "$top/build-lts-$v/meson-logs/testlog.json" ] &&
		lts_dirs+=("$top/build-lts-$v")
done
grep -q '^lts ' "$bg_status" && rc=1

logdirs=("$builddir" "$asandir" "${lts_dirs[@]}")
took "the sanitizer pass and the LTS builds"

# A short fuzzing budget per parser (the long runs are in doc/).
fuzz_ok=0
if bash "$top/scripts/fuzz.sh" "${FUZZ_SECONDS:-5}"; then
	fuzz_ok=1
else
	rc=1
fi
took "fuzzing"

bg_wait "$bg_pid" "the arm64 suites and the Debian packages"
if [ "${CH39X_ARM64:-1}" = 1 ]; then
	logdirs+=("${ARM64_BUILDDIR:-$top/build-arm64}")
	[ "$(bg_ok arm64)" = 1 ] || rc=1
fi
deb_ok=1
if [ "${DEB:-1}" = 1 ]; then
	deb_ok=$(bg_ok deb)
	[ "$deb_ok" = 1 ] || rc=1
fi

# What a failed step said, again at the end: the fuzzers' harness and
# sanitizer lines, the background steps' FAIL lines (guests, packages).
step_why() {
	case $1 in
	fuzz) sed 's/^/  /' "${FUZZ_BUILDDIR:-$top/build-fuzz}/failures.txt" 2>/dev/null ;;
	guests|packages) head -20 "$bg_fails" | sed 's/^/  /' ;;
	esac
	return 0
}

# The end of the log names every failure (CI shows only the end): the
# meson tests' by name with their last lines (testlog_count.py, on
# stderr), the steps' by name.
read -r ok bad < <(python3 "$top/scripts/testlog_count.py" "${logdirs[@]}")
steps=("fuzz $fuzz_ok" "guests $vm_ok")
[ "${DEB:-1}" = 1 ] && steps+=("packages $deb_ok")
for step in "${steps[@]}"; do
	if [ "${step##* }" -eq 1 ]; then
		ok=$((ok + 1))
	else
		bad=$((bad + 1))
		echo "FAILED: step ${step% *} (its output is above)"
		step_why "${step% *}"
	fi
done
grep '^lts ' "$bg_status" | while read -r _ v _; do
	echo "FAILED: the DPDK $v leg (.cache/lts/$v.log)"
done
[ "${CH39X_ARM64:-1}" = 1 ] && [ "$(bg_ok arm64)" != 1 ] &&
	echo "FAILED: the arm64 suites (scripts/test-arm64.sh, output above)"
[ "$asan_ok" = 1 ] || echo "FAILED: the sanitizer build (output above)"
[ "$rc" -ne 0 ] && [ "$bad" -eq 0 ] && bad=1
echo "$ok passed, $bad failed"
[ "$bad" -eq 0 ]
