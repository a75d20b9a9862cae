#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what ch39x needs on Debian 12 and fetches the DPDK driver-SDK
# headers that Debian's libdpdk-dev does not ship. Idempotent: every step
# checks first and does nothing when its result is already there.
#
#   scripts/setup.sh           what building and running the PMD needs
#   scripts/setup.sh --tests   that, plus what the test suites need
#                              (scripts/test.sh asks for it)
#   scripts/setup.sh --deb     that, plus what building the Debian packages
#                              and their install test need (scripts/deb.sh)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
sdk_cache="$top/.cache/dpdk-sdk"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
tests=0
deb=0
for a in "$@"; do
	case $a in
	--tests) tests=1 ;;
	--deb) deb=1 ;;
	-h|--help) sed -n '3,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "setup: unknown argument $a (--tests, --deb, --help)" >&2; exit 2 ;;
	esac
done

# Building and running: DPDK (libraries, dpdk-testpmd in dpdk-dev), libusb,
# libpcap, the build tools; dpkg-dev unpacks the SDK headers' source;
# python3 runs ch39x-usb; pyelftools is for DPDK's pmdinfogen (PMD_INFO_STRING).
pkgs=(libdpdk-dev dpdk dpdk-dev libusb-1.0-0-dev libpcap-dev meson ninja-build
      pkg-config gcc dpkg-dev python3 python3-pyelftools)
# The tests: tshark reads captures (tests/tcp_pcap.py), iproute2,
# iputils-ping and iperf3 are the Linux peers of the CPE test (tests/cpe),
# udev's systemd-udevd applies the udev rule in the VM test (tests/vm, which
# installs QEMU and the rest of its own needs); dnsmasq-base and
# busybox-static (udhcpc, nslookup) are the DHCP/DNS server and client of
# the CPE control-plane test (tests/cpe/cpe_dhcp.sh); nftables' nft is the
# Linux router's masquerade in the VM's router comparison (tests/vm/cpe.sh)
# and the firewall oracle of tests/cpe/cpe_fw.sh, whose WAN host scans and
# crafts with nmap, hping3 and scapy; ppp (pppd) and pppoe (pppoe-server)
# are the router's PPPoE client and the ISP's concentrator
# (tests/cpe/cpe_pppoe_real.sh, in the VM: this host's kernel has no PPP);
# isc-dhcp-server (dhcpd -6) delegates the ISP's prefixes to the router's
# DHCPv6 client, isc-dhcp-client's dhclient -6 -P (tests/cpe/
# cpe_dhcpv6_pd.sh); over a PPPoE session, whose interface has no MAC
# address for ISC's to take, kea-dhcp6-server and dhcpcd-base's dhcpcd
# (cpe_pppoe_real.sh). The steps of scripts/test.sh after its main pass
# need clang's libFuzzer (scripts/fuzz.sh), valgrind (the instruction
# guards) and the arm64 cross tools (scripts/sysroot-arm64.sh); they are
# installed here, before those steps run side by side and would race for
# apt's lock. ccache: scripts/test.sh builds the tree nine times (main,
# sanitizer, fuzzers, three LTS legs, arm64, two packages); meson uses
# ccache when it is there, and test.sh makes its cache shared between
# checkouts (CCACHE_BASEDIR), so a machine's second run compiles little.
test_pkgs=(tshark iproute2 iputils-ping iperf3 udev dnsmasq-base busybox-static
	nftables nmap hping3 python3-scapy ppp pppoe isc-dhcp-server
	isc-dhcp-client kea-dhcp6-server dhcpcd-base
	clang libclang-rt-14-dev valgrind ccache
	gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user-static)
[ "$tests" = 1 ] && pkgs+=("${test_pkgs[@]}")
# The Debian packages (scripts/deb.sh): dpkg-buildpackage's build-essential
# and debhelper, lintian; debootstrap makes the clean Debian 12 tree the
# install test (tests/deb_install.sh) installs them into.
deb_pkgs=(build-essential debhelper lintian debootstrap)
[ "$deb" = 1 ] && pkgs+=("${deb_pkgs[@]}")

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer no, quietly.
	printf '%s\n' \
		"wireshark-common wireshark-common/install-setuid boolean false" \
		"iperf3 iperf3/start_daemon boolean false" |
		$SUDO debconf-set-selections 2>/dev/null || true
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The driver SDK headers must come from exactly the installed DPDK version:
# ethdev and bus structures are laid out in them, and a mismatch corrupts
# memory silently at run time.
ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
sdk_headers=(ethdev_driver.h ethdev_vdev.h bus_vdev_driver.h dev_driver.h bus_driver.h)
# DPDK's pmdinfogen (and what it imports), which embeds the PMD_INFO_STRING
# that dpdk-pmdinfo.py reads; Debian does not install it either.
sdk_tools=(pmdinfogen.py gen-pmdinfo-cfile.py coff.py)
inc=/usr/include/dpdk
all_installed=1
for h in "${sdk_headers[@]}"; do [ -f "$inc/$h" ] || all_installed=0; done
have_tools() {
	local t
	for t in "${sdk_tools[@]}"; do
		[ -f "$sdk_cache/buildtools/$t" ] || return 1
	done
}
if [ $all_installed -eq 1 ] && have_tools &&
   [ "$(cat "$sdk_cache/VERSION" 2>/dev/null)" = "system $ver" ]; then
	echo "setup: the installed DPDK ships the driver SDK headers"
	exit 0
fi
if [ -f "$sdk_cache/VERSION" ] && [ "$(cat "$sdk_cache/VERSION")" = "$ver" ] &&
   have_tools; then
	echo "setup: driver SDK headers and pmdinfogen for DPDK $ver are cached"
	exit 0
fi

echo "setup: fetching the Debian source of dpdk $ver for its driver SDK headers"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A deb-src list derived from the system's own apt sources, used only for
# this one fetch: no mirror is named here.
mkdir -p "$work/sources.list.d" "$work/lists/partial"
: > "$work/sources.list"
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	sed -e 's/^Types:.*/Types: deb-src/' "$f" > "$work/sources.list.d/$(basename "$f")"
done
if [ -f /etc/apt/sources.list ]; then
	grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' >> "$work/sources.list" || true
fi
aptopts=(-o APT::Sandbox::User=root -o "Dir::Etc::SourceList=$work/sources.list"
	 -o "Dir::Etc::SourceParts=$work/sources.list.d"
	 -o "Dir::State::Lists=$work/lists")
apt-get "${aptopts[@]}" update -qq
(cd "$work" && apt-get "${aptopts[@]}" source --download-only -qq "dpdk=$ver")
dsc=$(ls "$work"/dpdk_*.dsc 2>/dev/null | head -n 1)
if [ -z "$dsc" ]; then
	echo "setup: error: could not fetch the source of dpdk $ver" >&2
	exit 1
fi
(cd "$work" && dpkg-source --no-check -x "$(basename "$dsc")" src >/dev/null)
srcver=$(dpkg-parsechangelog -l "$work/src/debian/changelog" -S Version)
if [ "$srcver" != "$ver" ]; then
	echo "setup: error: fetched dpdk source $srcver, installed libdpdk-dev is $ver" >&2
	exit 1
fi
rm -rf "$sdk_cache"
mkdir -p "$sdk_cache/buildtools"
if [ $all_installed -eq 0 ]; then
	for h in "${sdk_headers[@]}"; do
		p=$(find "$work/src/lib" "$work/src/drivers/bus" -name "$h" | head -n 1)
		[ -n "$p" ] || { echo "setup: error: $h not in dpdk $ver source" >&2; exit 1; }
		cp "$p" "$sdk_cache/"
	done
fi
for t in "${sdk_tools[@]}"; do
	[ -f "$work/src/buildtools/$t" ] ||
		{ echo "setup: error: buildtools/$t not in dpdk $ver source" >&2; exit 1; }
	cp "$work/src/buildtools/$t" "$sdk_cache/buildtools/"
done
if [ $all_installed -eq 1 ]; then
	echo "system $ver" > "$sdk_cache/VERSION"
else
	echo "$ver" > "$sdk_cache/VERSION"
fi
echo "setup: driver SDK headers and pmdinfogen for DPDK $ver in $sdk_cache"
