#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The amd64 Debian packages (scripts/deb.sh) installed into a clean Debian
# 12 tree (tests/deb/root.sh: debootstrap, cached in the machine's cache; each
# run works on an overlay of it, thrown away at the end), as a user would:
# apt-get install of the .deb files, dependencies from the archive.
#   files     the PMD in DPDK's plugin directory, the udev rule (the same
#             bytes as usertools/70-ch39x-usb.rules, and Debian 12's udevd
#             parses it), sysusers.d/ch39x.conf, the tools, the unit and
#             /etc/ch39x-cpe.conf as a conffile
#   autoload  dpdk-testpmd WITHOUT -d probes --vdev net_ch39x0 (the port's
#             driver is net_ch39x)
#   group     the group ch39x exists; a device node with the installed
#             rule's MODE and GROUP opens read-write for a uid in that
#             group and not for one outside it (setpriv, no capabilities)
#   tools     ch39x-usb, ch39x-perf and ch39x-dial run
#   cpe       the unit's command line with the shipped /etc/ch39x-cpe.conf,
#             in a private network namespace: the router answers a ping on
#             its LAN TAP
#   purge     apt-get purge removes every file dpkg -L listed and leaves
#             the tree as it was before the install (every file's type,
#             mode, owner and SHA-256 outside dpkg's and apt's own state)
# Needs root (chroot, mounts, network namespace) and overlayfs; exits 77
# (skip) without them.
#
# usage: tests/deb_install.sh [DEBDIR]   (default build-deb/amd64, made by
#        scripts/deb.sh when it holds no packages)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
debs=${1:-$top/build-deb/amd64}
pkgs=(librte-net-ch39x librte-net-ch39x-dev ch39x-tools ch39x-cpe)

if [ "$(id -u)" -ne 0 ] || ! unshare -m -n true 2>/dev/null ||
   ! grep -qw overlay /proc/filesystems; then
	echo "SKIP: needs root, unshare -m -n and overlayfs"
	exit 77
fi
if ! ls "$debs"/librte-net-ch39x_*_amd64.deb >/dev/null 2>&1; then
	DEBOUT=$debs bash "$top/scripts/deb.sh" --arch amd64 >/dev/null
fi
t0=$(date +%s)
. "$top/scripts/machine_cache.sh"
# The tree and its dependencies' layer are the machine's (shared by
# checkouts): one install test at a time uses them.
machine_cache_lock deb-root
base=$(bash "$top/tests/deb/root.sh" "$ch39x_cache/deb-root")
t1=$(date +%s)
echo "deb-root: $base ($((t1 - t0)) s)"

work=$(mktemp -d "$top/.cache/deb-run.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/upper" "$work/work" "$work/mnt" "$work/debs"
for p in "${pkgs[@]}"; do
	cp "$debs/${p}_"*_amd64.deb "$work/debs/"
done
cp "$top/usertools/70-ch39x-usb.rules" "$work/rule.expected"

# Everything below runs in a private mount namespace: the overlay and the
# chroot's /proc, /sys and /dev vanish with it, whatever happens.
check_sh=$(cd "$(dirname "$0")" && pwd)/check.sh
export base work check_sh
unshare -m --propagation private bash -s <<'EOS'
set -uo pipefail
r=$work/mnt
fail=0
. "$check_sh"
# The tree at $r: an overlay of LOWER (colon-separated) with UPPER on top,
# and the chroot's /proc, /sys, /dev (the few nodes it needs), /run, /tmp.
mount_root() {	# LOWER UPPER WORKDIR
	mkdir -p "$2" "$3"
	mount -t overlay overlay -o "lowerdir=$1,upperdir=$2,workdir=$3" "$r" &&
	mount -t proc proc "$r/proc" &&
	mount --rbind /sys "$r/sys" &&
	mount -t tmpfs -o mode=755 dev "$r/dev" || return 1
	mknod -m 666 "$r/dev/null" c 1 3
	mknod -m 666 "$r/dev/zero" c 1 5
	mknod -m 666 "$r/dev/urandom" c 1 9
	mknod -m 666 "$r/dev/random" c 1 8
	mkdir -p "$r/dev/net" "$r/dev/shm" "$r/dev/pts"
	mknod -m 666 "$r/dev/net/tun" c 10 200
	mount -t tmpfs tmpfs "$r/run"
	mount -t tmpfs tmpfs "$r/tmp"
	mkdir -p "$r/tmp/debs"
	cp "$work"/debs/*.deb "$r/tmp/debs/"
}
umount_root() { umount -R "$r"; }
debs_in=$(cd "$work/debs" && ls *.deb | sed 's|^|/tmp/debs/|')
inr() { chroot "$r" /usr/bin/env DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
apt_q() { inr apt-get -y -q -o Dpkg::Use-Pty=0 "$@" >>"$work/apt.log" 2>&1; }

# The dependencies (what apt would install with the packages, and udev
# to parse the rule below; no package of ours depends on it) go into a
# second layer, cached in deb-deps/KEY beside the tree, KEY naming the exact
# package versions: the tree before the install already has them, and
# the purge must bring it back to exactly that.
mount_root "$base" "$work/probe/upper" "$work/probe/work" ||
	{ echo "FAIL: overlay mount of $base"; exit 1; }
apt_q update
plan=$( (inr apt-get -s -q install $debs_in udev 2>>"$work/apt.log"; echo) |
	awk '$1 == "Inst" { print $2, $3 }' |
	grep -vE '^(librte-net-ch39x|librte-net-ch39x-dev|ch39x-tools|ch39x-cpe) ' | sort)
deps=$(echo "$plan" | awk '{ print $1 }' | tr '\n' ' ')
key=$( (cat "$base/.ch39x-deb-root"; echo "$plan") | sha256sum | cut -c1-16)
layers=$(dirname "$base")/deb-deps
if [ ! -f "$layers/$key/ok" ]; then
	umount_root
	rm -rf "$layers"
	mount_root "$base" "$layers/$key/upper" "$layers/$key/work" ||
		{ echo "FAIL: overlay mount for the dependencies"; exit 1; }
	apt_q update
	apt_q install $deps ||
		{ echo "FAIL: apt-get install of the dependencies"; tail -n 20 "$work/apt.log"; exit 1; }
	inr apt-get clean
	: > "$layers/$key/ok"
	echo "dependencies: $(echo $deps | wc -w) packages installed into $layers/$key"
else
	echo "dependencies: $(echo $deps | wc -w) packages, cached in $layers/$key"
fi
umount_root
mount_root "$layers/$key/upper:$base" "$work/upper" "$work/work" ||
	{ echo "FAIL: overlay mount of the dependencies' layer"; exit 1; }

# What the tree looks like: every path with its type, mode and owner, and
# a file's SHA-256; dpkg's and apt's own state, logs and the backups shadow
# keeps of /etc/group (group-, gshadow-) are not the package's files.
snapshot() {
	(cd "$r" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./run -o -path ./tmp -o -path ./var/lib/dpkg \
		-o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \
		-o -path ./etc/group- -o -path ./etc/gshadow- \) -prune -o \
		-printf '%p %y %m %u:%g %l\n' | sort > "$1.meta"
	 find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev \
		-o -path ./run -o -path ./tmp -o -path ./var/lib/dpkg \
		-o -path ./var/lib/apt -o -path ./var/cache -o -path ./var/log \
		-o -path ./etc/group- -o -path ./etc/gshadow- \) -prune -o \
		-type f -print0 | sort -z | xargs -0 -r sha256sum) > "$1.sum"
}

snapshot "$work/before"

# ---- install ----
if ! apt_q install $debs_in; then
	echo "FAIL: apt-get install of the packages"; tail -n 30 "$work/apt.log"; exit 1
fi
inr dpkg-query -W -f='${Package} ${Version} ${Status}\n' librte-net-ch39x librte-net-ch39x-dev ch39x-tools ch39x-cpe
inr dpkg -L librte-net-ch39x librte-net-ch39x-dev ch39x-tools ch39x-cpe | sort -u > "$work/listed"

# ---- files ----
pmdir=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
check '[ -f "$r$pmdir/librte_net_ch39x.so" ]' "PMD in DPDK's plugin directory $pmdir"
check '[ -f "$r/usr/include/dpdk/rte_pmd_ch39x.h" ] && [ "$(inr pkg-config --variable=pmd_dir rte_net_ch39x 2>/dev/null || sed -n "s/^pmd_dir=//p" "$r/usr/lib/x86_64-linux-gnu/pkgconfig/rte_net_ch39x.pc")" = "$pmdir" ]' \
	"rte_pmd_ch39x.h in /usr/include/dpdk, rte_net_ch39x.pc naming $pmdir"
check 'cmp -s "$r/usr/lib/udev/rules.d/70-ch39x-usb.rules" "$work/rule.expected"' \
	"/usr/lib/udev/rules.d/70-ch39x-usb.rules is usertools/70-ch39x-usb.rules"
check 'grep -qx "g ch39x -" "$r/usr/lib/sysusers.d/ch39x.conf"' "/usr/lib/sysusers.d/ch39x.conf declares the group"
for b in ch39x-usb ch39x-perf ch39x-cpe ch39x-dial; do
	check '[ -x "$r/usr/bin/$b" ]' "/usr/bin/$b"
done
check 'inr dpkg-query -W -f="\${Conffiles}" ch39x-cpe | grep -q "^ /etc/ch39x-cpe.conf "' \
	"/etc/ch39x-cpe.conf is a conffile of ch39x-cpe"
# The WAN's clients the router's hooks drive (usertools/: DHCPv4,
# PPPoE, DHCPv6-PD over Ethernet and over PPP) and the LAN's dnsmasq.
sg=$(inr dpkg-query -W -f='${Suggests}' ch39x-cpe)
check '[ "$sg" = "dnsmasq, ppp, isc-dhcp-client, dhcpcd-base" ]' \
	"ch39x-cpe suggests the control plane's programs: $sg"
unit=$r/lib/systemd/system/ch39x-cpe.service
check 'grep -q "^ExecStart=/usr/bin/ch39x-cpe .*--config /etc/ch39x-cpe.conf" "$unit"' \
	"ch39x-cpe.service runs ch39x-cpe --config /etc/ch39x-cpe.conf"
# Debian 12's udevd reads the rule without complaint.
ut=$(inr env SYSTEMD_IGNORE_CHROOT=1 SYSTEMD_LOG_LEVEL=debug udevadm test --action=add /devices/virtual/mem/null 2>&1)
check 'echo "$ut" | grep -q "70-ch39x-usb.rules" && ! echo "$ut" | grep -i "70-ch39x-usb.rules" | grep -qiE "invalid|error|unknown|ignor"' \
	"udevadm test (Debian 12's udev) reads 70-ch39x-usb.rules without errors"
[ $fail -eq 0 ] || echo "$ut" | grep -i ch39x

# ---- autoload: testpmd without -d ----
tp=$(printf 'show port info 0\nquit\n' | timeout 120 chroot "$r" dpdk-testpmd \
	--no-huge --no-pci -m 256 --no-shconf --vdev net_ch39x0 -- -i \
	--total-num-mbufs=2048 2>&1)
check 'echo "$tp" | grep -qE "^Driver name: +net_ch39x"' \
	"dpdk-testpmd without -d probes --vdev net_ch39x0 (port 0's driver is net_ch39x)"
[ $fail -eq 0 ] || echo "$tp" | tail -n 20

# ---- group: a device node as the rule makes it ----
gid=$(inr getent group ch39x | cut -d: -f3)
check '[ -n "$gid" ] && [ "$gid" -lt 1000 ]' "system group ch39x exists (gid ${gid:-none})"
mode=$(grep -m 1 -o 'MODE="[0-7]*"' "$r/usr/lib/udev/rules.d/70-ch39x-usb.rules" | tr -dc 0-7)
group=$(grep -m 1 -o 'GROUP="[^"]*"' "$r/usr/lib/udev/rules.d/70-ch39x-usb.rules" | cut -d'"' -f2)
# A stand-in for /dev/bus/usb/BBB/DDD with the rule's mode and group (no
# USB on this host: the rule applied to real devices is tests/vm's check).
mkdir -p "$r/dev/bus/usb/001"
mknod "$r/dev/bus/usb/001/002" c 1 3
chown "root:$gid" "$r/dev/bus/usb/001/002"
chmod "$mode" "$r/dev/bus/usb/001/002"
open_rw() { chroot "$r" setpriv --reuid=4242 --regid=4242 "$@" \
	sh -c 'exec 3<>/dev/bus/usb/001/002' 2>/dev/null; }
check '[ "$group" = ch39x ] && [ "$mode" = 0664 ] && open_rw --groups="$gid" && ! open_rw --clear-groups' \
	"a node with the rule's MODE=$mode GROUP=$group opens read-write for uid 4242 in ch39x, not without it"

# ---- tools ----
check 'inr ch39x-usb --help >/dev/null 2>&1' "ch39x-usb --help"
check 'inr ch39x-perf --help >/dev/null 2>&1' "ch39x-perf --help (its libraries resolve)"
check 'inr ch39x-dial exit-codes | grep -q "^11 *gave-up"' "ch39x-dial exit-codes (python3 from the package's dependencies)"

# ---- the shipped router: the unit's command line, /etc/ch39x-cpe.conf ----
eal=$(sed -n 's/^Environment="CH39X_CPE_EAL=\(.*\)"$/\1/p' "$unit")
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
cmd=${cmd//\$CH39X_CPE_EAL/$eal}
pong=$(unshare -n bash -c '
	ip link set lo up
	chroot "$1" $2 --duration 60 > "$3/cpe.log" 2>&1 &
	pid=$!
	for i in $(seq 1 300); do ip link show ch39x-lan >/dev/null 2>&1 && break; sleep 0.1; done
	ip addr add 192.168.50.2/24 dev ch39x-lan 2>/dev/null
	ip link set ch39x-lan up 2>/dev/null
	ping -c 3 -i 0.5 -W 5 192.168.50.1 | grep -c "bytes from"
	kill -TERM $pid; wait $pid' sh "$r" "$cmd" "$work")
check '[ "${pong:-0}" -ge 1 ]' "ch39x-cpe.service's command with the shipped config answers ${pong:-0} of 3 pings on ch39x-lan"
[ "${pong:-0}" -ge 1 ] || tail -n 20 "$work/cpe.log"

# ---- purge ----
apt_q purge librte-net-ch39x librte-net-ch39x-dev ch39x-tools ch39x-cpe ||
	{ echo "FAIL: apt-get purge"; tail -n 20 "$work/apt.log"; }
left=$(while read -r f; do [ -e "$r$f" ] && [ ! -d "$r$f" ] && echo "$f"; done < "$work/listed")
check '[ -z "$left" ]' "purge removed every file dpkg -L listed ($(grep -c . "$work/listed") paths)"
[ -z "$left" ] || echo "$left"
snapshot "$work/after"
check 'cmp -s "$work/before.meta" "$work/after.meta" && cmp -s "$work/before.sum" "$work/after.sum"' \
	"after purge the tree is as before the install (paths, modes, owners, contents)"
if ! cmp -s "$work/before.meta" "$work/after.meta" || ! cmp -s "$work/before.sum" "$work/after.sum"; then
	diff "$work/before.meta" "$work/after.meta" | head -n 20
	diff "$work/before.sum" "$work/after.sum" | head -n 20
fi
check '! inr getent group ch39x >/dev/null' "the group ch39x is gone with the package that made it"
exit $fail
EOS
rc=$?
echo "deb_install: $(($(date +%s) - t0)) s"
exit $rc
