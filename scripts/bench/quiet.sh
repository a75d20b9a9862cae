# SPDX-License-Identifier: BSD-3-Clause
# Sourced by seed_table.sh and xfer_sweep.sh: run one measurement while the
# machine is quiet and say how quiet it was. At sim_rate=line the simulated
# adapter keeps wall-clock time, so every millisecond the polling thread is
# descheduled is a millisecond of idle link: other processes on a 2-core
# machine cost throughput directly.
#
# quiet_run OUT CMD...
#   Waits (from a budget of $wait_budget seconds for the whole script) for
#   the 1-minute load to drop under 1.5, runs CMD with stdout to OUT and
#   stderr to OUT.err, and measures the CPU other processes used meanwhile
#   (/proc/stat busy time minus CMD's own user+system time, in cores). A run
#   during which others used more than $quiet_max cores is done again, at
#   most $retry_budget times for the whole script. Sets $load (1-minute load
#   before the run), $others (cores used by others) and $retried (0/1).

# load, others and retried are read by the scripts that source this.
# shellcheck disable=SC2034
wait_budget=${WAIT_BUDGET:-120}
retry_budget=${RETRY_BUDGET:-10}
quiet_max=${QUIET_MAX:-0.25}
quiet_retries=0

# Busy time, niced processes included: even nice-19 jobs take time slices
# that leave the simulated link idle (measured: -5 % goodput at MTU 9000
# next to two nice-19 fuzzers).
_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8 + $9; exit}' /proc/stat; }

_quiet_once() {
	local out=$1 b0 b1 t hz rc=0
	shift
	while ! awk '{exit !($1 < 1.5)}' /proc/loadavg && [ "$wait_budget" -gt 0 ]; do
		sleep 2
		wait_budget=$((wait_budget - 2))
	done
	load=$(cut -d' ' -f1 /proc/loadavg)
	hz=$(getconf CLK_TCK)
	b0=$(_busy)
	t=$( { TIMEFORMAT='%R %U %S'; time "$@" > "$out" 2> "$out.err"; } 2>&1 ) || rc=$?
	b1=$(_busy)
	others=$(echo "$t" | awk -v b="$((b1 - b0))" -v hz="$hz" \
		'{o = (b / hz - $2 - $3) / $1; printf "%.2f", o < 0 ? 0 : o}')
	return $rc
}

quiet_run() {
	retried=0
	_quiet_once "$@" || return $?
	if awk -v o="$others" -v m="$quiet_max" 'BEGIN {exit !(o > m)}' &&
	   [ "$retry_budget" -gt 0 ]; then
		retry_budget=$((retry_budget - 1))
		quiet_retries=$((quiet_retries + 1))
		retried=1
		_quiet_once "$@" || return $?
	fi
	return 0
}
