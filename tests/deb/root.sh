#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A clean Debian 12 (bookworm) tree for tests/deb_install.sh, made once by
# debootstrap (--variant=minbase) and kept in DIR (deb_install.sh: deb-root
# in the machine's cache, scripts/machine_cache.sh); every test
# run works on an overlay of it, so the tree itself stays as debootstrap
# left it (plus apt's index files) and is reused.
#
# The archive is the one this machine's apt uses, read at run time from
# /etc/apt/sources.list(.d), so no host name is written here; the tree's
# apt gets the same sources and the host's Acquire:: settings.
#
# usage: root.sh DIR     (prints DIR when it is ready)
set -euo pipefail
root=$1
stamp=$root/.ch39x-deb-root
[ -f "$stamp" ] && { echo "$root"; exit 0; }

# The first bookworm (not -security/-updates) archive of the host's sources.
mirror=$(
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		     /(^|\n)Types:[^\n]*deb([ \t\n]|$)/ && /(^|\n)Suites:[^\n]*bookworm([ \t\n]|$)/ {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^URIs:/) { sub(/^URIs:[ \t]*/, "", $i); split($i, u, /[ \t]+/); print u[1] }
		     }' "$f"
	done
	[ -f /etc/apt/sources.list ] &&
		awk '$1 == "deb" && $3 == "bookworm" { print $2 }' /etc/apt/sources.list
	true
)
# The first line, by expansion: "echo | head -n 1" under pipefail can
# fail when head exits before echo has written every line.
mirror=${mirror%%$'\n'*}
[ -n "$mirror" ] || { echo "deb-root: no bookworm archive in /etc/apt/sources.list*" >&2; exit 1; }
command -v debootstrap >/dev/null || {
	echo "deb-root: debootstrap missing (scripts/setup.sh --deb installs it)" >&2; exit 1; }

rm -rf "$root"
mkdir -p "$(dirname "$root")"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || {
	tail -n 20 "$root.log" >&2; exit 1; }
# The host's sources and fetch settings (e.g. a snapshot archive's
# Check-Valid-Until), not debootstrap's one-line sources.list.
rm -f "$root/etc/apt/sources.list"
cp /etc/apt/sources.list.d/*.sources "$root/etc/apt/sources.list.d/" 2>/dev/null || true
[ -f /etc/apt/sources.list ] && cp /etc/apt/sources.list "$root/etc/apt/"
for f in /etc/apt/apt.conf.d/*; do
	grep -q '^Acquire::' "$f" 2>/dev/null && cp "$f" "$root/etc/apt/apt.conf.d/"
done
chroot "$root" apt-get update -qq >>"$root.log" 2>&1
date -u +%FT%TZ > "$stamp"
echo "$root"
