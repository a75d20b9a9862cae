# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Feeding dpdk-testpmd's interactive mode from a script, event-based: the
# feeder's stdout is testpmd's stdin and testpmd's stdout goes to LOG; a
# command's answer is awaited in LOG (with a deadline), never slept for. A
# sleep that is long enough on an idle machine is too short on CI's busy
# ones (testpmd_speed read a link that had not renegotiated yet, and
# testpmd_tso stopped forwarding before the eighth frame, under a load
# of 12 on two cores). testpmd must write LOG line by line for that:
# run it as "$TP_LINEBUF dpdk-testpmd ..." (stdio buffers a file's output
# in blocks).
TP_LINEBUF="stdbuf -oL -eL"

# tp_lines LOG: how many lines LOG has now (0 before testpmd made it).
tp_lines() {
	local n
	n=$(wc -l 2>/dev/null < "$1") || n=0
	echo "${n:-0}"
}

# tp_prompts LOG N [SECS]: waits until testpmd has shown N prompts in LOG,
# at most SECS (default 60); status 1 if it did not. testpmd prompts once
# when its ports are up, then once after each command it has run: N =
# commands written + 1 means all of them are done. A timed "start ...
# sleep N ... stop" must count from there, not from when the commands
# were written (testpmd reads them late on a busy machine).
tp_prompts() {
	local end=$((SECONDS + ${3:-60}))
	until [ "$(grep -o "testpmd> " "$1" 2>/dev/null | wc -l)" -ge "$2" ]; do
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# tp_ask LOG CMD AWKPROG [SECS]: sends CMD, then runs AWKPROG over what LOG
# got since, every 0.1 s, until it prints something (left in TP_OUT, status
# 0) or SECS (default 30) pass (TP_OUT empty, status 1).
tp_ask() {
	local log=$1 cmd=$2 prog=$3 secs=${4:-30} from end
	from=$(tp_lines "$log")
	echo "$cmd"
	end=$((SECONDS + secs))
	while :; do
		TP_OUT=$(tail -n +"$((from + 1))" "$log" 2>/dev/null | awk "$prog")
		[ -n "$TP_OUT" ] && return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.1
	done
}

# tp_until LOG CMD AWKPROG WANT [SECS]: tp_ask until TP_OUT is WANT or SECS
# (default 30) pass; TP_OUT keeps the last answer either way.
tp_until() {
	local log=$1 cmd=$2 prog=$3 want=$4 secs=${5:-30} end
	end=$((SECONDS + secs))
	while :; do
		tp_ask "$log" "$cmd" "$prog" "$secs" && [ "$TP_OUT" = "$want" ] &&
			return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}

# The answer of "show port info N" as "N, SPEED, DUPLEX, autoneg On|Off".
TP_PORT_INFO='/Infos for port/ { p = $5 } /Link speed:/ { s = $3 " " $4 }
	/Link duplex:/ { d = $3 }
	/Autoneg status:/ { print p ", " s ", " d ", autoneg " $3; exit }'
