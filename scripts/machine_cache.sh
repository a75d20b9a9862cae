# SPDX-License-Identifier: BSD-3-Clause
# Sourced: the machine's cache of what takes minutes to make and does not
# depend on the checkout (the arm64 sysroot and its packages, the clean
# Debian tree of the package test and its dependencies' layer), shared by
# every checkout on the machine as the LTS legs' DPDK builds are
# (scripts/dpdk-lts.sh). CH39X_CACHE moves it; it must not be under a
# world-writable directory such as /tmp (EAL refuses plugins there).
ch39x_cache=${CH39X_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ch39x}
mkdir -p "$ch39x_cache"

# machine_cache_lock NAME: waits (up to an hour) until no other run of the
# machine holds NAME's lock, and holds it until the calling script ends,
# so two checkouts' runs do not make or replace the same tree at once.
machine_cache_lock() {
	exec {ch39x_cache_fd}>"$ch39x_cache/$1.lock"
	if ! flock -w 3600 "$ch39x_cache_fd"; then
		echo "machine cache: $ch39x_cache/$1 stayed locked for an hour" >&2
		return 1
	fi
}
