# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
# shellcheck shell=bash
#
# ARCH=arm64 for tests/vm/run.sh (sourced by it): the guest is
# qemu-system-aarch64 -M virt under TCG with Debian's arm64 kernel, and it
# cannot run this machine's amd64 programs, so its root over 9p is an
# arm64 Debian tree made here instead of this machine's /:
# - arm64_apt: apt-get and apt-cache on Debian's arm64 indices in a
#   private state directory ($CACHE/apt), nothing changed on this machine
#   (no dpkg --add-architecture), for the kernel package;
# - arm64_root: debootstrap --download-only (its dependency resolution and
#   signature checks) of the packages the guest scripts run, extracted
#   into $CACHE/root with /bin, /sbin, /lib merged into /usr as on Debian
#   12, passwd/group from base-passwd, and ld.so.cache made by the tree's
#   own (static) ldconfig under qemu-aarch64-static. No maintainer script
#   runs: the guest needs the programs, not a configured system (this
#   machine has no binfmt_misc for a debootstrap second stage);
# - the test programs and, unless PMD_SO names one, the PMD are built with
#   aarch64-linux-gnu-gcc against that tree (arm64_cc, arm64_pmd).
# The checkout is shared as a second 9p share and mounted at its own path
# in the guest's chroot (tests/vm/init, vmt_tree), so that every path
# guest.sh and pmd.sh use is the same as on the amd64 run.

# What the guest's chroot runs: dpdk-testpmd (dpdk-dev) and its plugins,
# libusb and libpcap (the test programs), busybox-static (the initramfs),
# iproute2, iputils-ping, python3 (ch39x-usb), udev (the twins' rule);
# the -dev packages are the headers and libraries the cross builds link.
ARM64_PKGS="busybox-static,dpdk,dpdk-dev,libdpdk-dev,libusb-1.0-0,libusb-1.0-0-dev,libpcap0.8,libpcap0.8-dev,iproute2,iputils-ping,python3,udev"
AROOT=$CACHE/root

arm64_apt_opts() {
	echo "-o APT::Architecture=arm64 -o APT::Architectures::=arm64" \
	     "-o Dir::State=$CACHE/apt -o Dir::State::Lists=$CACHE/apt/lists" \
	     "-o Dir::State::status=$CACHE/apt/status" \
	     "-o Dir::Cache=$CACHE/apt/cache -o APT::Sandbox::User=root"
}
# shellcheck disable=SC2046
arm64_apt() {	# apt-get|apt-cache args...
	local tool=$1
	shift
	mkdir -p "$CACHE/apt/lists/partial" "$CACHE/apt/cache/archives/partial"
	touch "$CACHE/apt/status"
	"$tool" $(arm64_apt_opts) "$@"
}

# The first Debian archive of this machine's apt sources (deb822 or
# one-line format) and its release: where debootstrap fetches from.
arm64_mirror() {
	local m
	m=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources \
		2>/dev/null | grep -v -- '-security' | head -n 1)
	[ -n "$m" ] || m=$(awk '$1 == "deb" && $2 !~ /^\[/ && $2 !~ /-security/ {
		print $2; exit }' /etc/apt/sources.list 2>/dev/null)
	echo "$m"
}

arm64_root() {
	local stamp mirror suite r d
	suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
	stamp=$(echo "$suite $ARM64_PKGS $(dpkg-query -W -f='${Version}' debootstrap)" |
		sha256sum | cut -c1-16)
	[ "$(cat "$AROOT/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	mirror=$(arm64_mirror)
	[ -n "$mirror" ] || die "no Debian archive in this machine's apt sources"
	log "arm64 root: debootstrap --download-only ($suite, $ARM64_PKGS)"
	rm -rf "$CACHE/dl.tmp" "$AROOT.new"
	timeout 1800 debootstrap --arch=arm64 --download-only --variant=minbase \
		--include="$ARM64_PKGS" "$suite" "$CACHE/dl.tmp" "$mirror" \
		> "$CACHE/debootstrap.log" 2>&1 ||
		die "debootstrap --arch=arm64 --download-only failed (see $CACHE/debootstrap.log)"
	r=$AROOT.new
	mkdir -p "$r/usr/bin" "$r/usr/sbin" "$r/usr/lib"
	ln -s usr/bin "$r/bin"
	ln -s usr/sbin "$r/sbin"
	ln -s usr/lib "$r/lib"
	for d in "$CACHE"/dl.tmp/var/cache/apt/archives/*.deb; do
		dpkg-deb --fsys-tarfile "$d" |
			tar -x --keep-directory-symlink -C "$r" ||
			die "extracting $(basename "$d") failed"
	done
	log "arm64 root: $(ls "$CACHE"/dl.tmp/var/cache/apt/archives/*.deb | wc -l) packages extracted"
	cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
	cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
	mkdir -p "$r/tmp" "$r/run"
	chmod 1777 "$r/tmp"
	timeout 120 qemu-aarch64-static "$r/sbin/ldconfig" -r "$r" ||
		die "ldconfig in the arm64 root failed"
	for d in usr/bin/dpdk-testpmd usr/bin/ping usr/bin/python3 bin/busybox \
		 lib/systemd/systemd-udevd; do
		[ -e "$r/$d" ] || die "the arm64 root has no /$d"
	done
	rm -rf "$CACHE/dl.tmp" "$AROOT"
	echo "$stamp" > "$r/.stamp"
	mv "$r" "$AROOT"
}

# arm64_cc: the cross compiler and pkg-config on the arm64 tree
arm64_cc() {
	CC=(aarch64-linux-gnu-gcc "--sysroot=$AROOT")
	export PKG_CONFIG_SYSROOT_DIR=$AROOT
	export PKG_CONFIG_LIBDIR=$AROOT/usr/lib/aarch64-linux-gnu/pkgconfig:$AROOT/usr/share/pkgconfig
}

# arm64_pmd OUT: the PMD's sources built in one step with the flags of
# drivers/net/ch39x/meson.build (no PMD_INFO_STRING: pmdinfogen is not
# needed to load it with -d), for when no arm64 build of the PMD is given.
# shellcheck disable=SC2046
arm64_pmd() {
	local sdk=$ROOT/.cache/dpdk-sdk
	[ -f "$sdk/ethdev_driver.h" ] ||
		die "no driver-SDK headers in $sdk (run scripts/setup.sh)"
	"${CC[@]}" -std=gnu11 -Wall -Wextra -Werror -O2 -g -fPIC -shared \
		-D_GNU_SOURCE -DALLOW_INTERNAL_API -DALLOW_EXPERIMENTAL_API \
		-DRTE_LOG_DEFAULT_LOGTYPE=pmd.net.ch39x -isystem "$sdk" \
		-I"$ROOT/lib/ch39x" -I"$ROOT/lib/ch39x_sim" \
		-I"$ROOT/drivers/net/ch39x" \
		$(pkg-config --cflags libdpdk libusb-1.0 libpcap) \
		-o "$1.tmp" "$ROOT"/drivers/net/ch39x/*.c "$ROOT"/lib/ch39x/*.c \
		"$ROOT"/lib/ch39x_sim/*.c \
		"-Wl,--version-script=$ROOT/drivers/net/ch39x/version.map" \
		$(pkg-config --libs libdpdk libusb-1.0 libpcap) -lrte_bus_vdev \
		-lpthread || die "building the arm64 PMD failed"
	mv "$1.tmp" "$1"
}
