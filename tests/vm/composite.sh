# SPDX-License-Identifier: BSD-3-Clause
# Copyright(c) 2026 The ch39x authors
#
# Composite devices (issue 42): a modem's shape, a serial (ACM) function
# beside the network function in one configuration, on a real USB stack.
# The PMD must take only the network function's two interfaces and leave
# the serial port with the kernel's cdc_acm, whose tty keeps working while
# the PMD forwards. The PMD test "composite" (pmd.sh, high speed):
#
#   cmpn 1209:000a  acm.cn ncm.0   interfaces 0+1 ACM, 2+3 NCM or ECM;
#   cmpe 1209:000b  acm.ce ecm.0   one testpmd in icmpecho mode on both,
#                                  cmpe named by function=2 (the devarg)
#                                  and kept at close (kernel_driver=keep),
#                                  a third port asking for function=0 (the
#                                  serial port: refused at probe);
#
# each gadget pinged from its netdev with pmd.sh's sizes while 64 KiB go
# each way over each serial port (the gadget's /dev/ttyGSn and the host's
# /dev/ttyACMn, raw, 4 KiB every 0.4 s). Checked: the PMD's log names the
# function it took and the cdc_acm interfaces it left; cdc_acm held the
# serial interfaces throughout (their exchanges complete and intact); the
# NCM function's cdc_ncm is back after testpmd, and ch39x-usb unbind gives
# the kept ECM function back to cdc_ether without touching the serial
# port. ch39x-cpe's test "cpereplug" runs on composite gadgets too
# (cpe_replug.sh, with the serial helpers below).
#
# The function lists are parameters (COMPOSITE_N_FUNCS, COMPOSITE_E_FUNCS,
# cpe_gadgets' two arguments): another serial-beside-network pair (ACM +
# RNDIS) is one more gadget with its list.
#
# Sourced by pmd.sh (tp_start, ping_sizes, kdrv_back, usbtool, ...).

COMPOSITE_N_FUNCS="acm.cn ncm.0"
COMPOSITE_E_FUNCS="acm.ce ecm.0"
ACM_BYTES=65536

# ---- the serial ports ----

# host_tty PATH IFNUM: the host's tty of the ACM interface (bounded wait)
host_tty() {
	ht_i=0
	while [ $ht_i -lt 100 ]; do
		ht_t=$(ls "/sys/bus/usb/devices/$1:1.$2/tty" 2>/dev/null |
			head -n 1)
		[ -n "$ht_t" ] && [ -c "/dev/$ht_t" ] && echo "/dev/$ht_t" &&
			return 0
		sleep 0.1
		ht_i=$((ht_i + 1))
	done
	return 1
}

# acm_start TAG HOST_TTY GADGET_TTY: ACM_BYTES of random bytes each way,
# in the background, 4 KiB every 0.4 s (about 6 s: they cross while the
# network function forwards); the ttys raw (no echo, no line editing) and
# held open, so that nothing but the bytes crosses
acm_start() {
	d=/tmp/acm-$1
	rm -rf "$d"
	mkdir -p "$d"
	head -c $ACM_BYTES /dev/urandom > "$d/up"	# host -> gadget
	head -c $ACM_BYTES /dev/urandom > "$d/down"	# gadget -> host
	sleep 120 <> "$2" > /dev/null 2>&1 &
	echo $! > "$d/hold"
	sleep 120 <> "$3" > /dev/null 2>&1 &
	echo $! >> "$d/hold"
	stty -F "$2" raw -echo
	stty -F "$3" raw -echo
	timeout 60 head -c $ACM_BYTES < "$3" > "$d/up.rx" &
	echo $! > "$d/read"
	timeout 60 head -c $ACM_BYTES < "$2" > "$d/down.rx" &
	echo $! >> "$d/read"
	acm_paced "$d/up" > "$2" &
	acm_paced "$d/down" > "$3" &
}

# acm_paced FILE: FILE to stdout, 4 KiB at a time, 0.4 s apart
acm_paced() {
	ap_i=0
	while [ $ap_i -lt $((ACM_BYTES / 4096)) ]; do
		dd if="$1" bs=4096 skip=$ap_i count=1 2>/dev/null
		sleep 0.4
		ap_i=$((ap_i + 1))
	done
}

# acm_check TAG: both directions complete and intact (waits, bounded);
# sets ACM_MSG
acm_check() {
	d=/tmp/acm-$1
	for p in $(cat "$d/read"); do
		wait "$p" 2>/dev/null
	done
	kill $(cat "$d/hold") 2>/dev/null
	u=$(wc -c < "$d/up.rx")
	w=$(wc -c < "$d/down.rx")
	ACM_MSG="host -> gadget $u of $ACM_BYTES bytes, gadget -> host $w of $ACM_BYTES"
	cmp -s "$d/up" "$d/up.rx" && cmp -s "$d/down" "$d/down.rx"
}

# if_drivers PATH: "IF=DRIVER ..." of the device's interfaces
if_drivers() {
	for id_d in /sys/bus/usb/devices/$1:1.*; do
		id_v=none
		[ -e "$id_d/driver" ] &&
			id_v=$(basename "$(readlink "$id_d/driver")")
		printf '%s=%s ' "${id_d##*:}" "$id_v"
	done
}

# ---- testpmd on two composite gadgets ----

# composite_gadget NAME PID XX UDC FUNC...: the gadget, bound; sets
# CG_PATH, CG_NET (gadget netdev), CG_GS (gadget tty)
composite_gadget() {
	cg_n=$1
	cg_p=$2
	cg_x=$3
	cg_u=$4
	shift 4
	gadget_rm "$cg_n"
	gadget "$cg_n" 0x1209 "$cg_p" || return 1
	gfuncs "$cg_n" "$cg_x" "$@" && config "$cg_n" c.1 "$@" || return 1
	echo "$cg_u" > "$G/$cg_n/UDC" || return 1
	CG_NET=$(gnet "$cg_n" "$@")
	CG_GS=$(gtty "$cg_n" "$@")
	CG_PATH=$(devpath_wait 1209 "${cg_p#0x}")
}

pmd_composite() {
	# The serial side: cdc_acm (with KDRV=0 too).
	[ -d /sys/module/cdc_acm ] || insmod /modules/cdc-acm.ko
	NP=""
	EP=""
	# shellcheck disable=SC2086
	if composite_gadget cmpn 0x000a 0c dummy_udc.8 $COMPOSITE_N_FUNCS; then
		NP=$CG_PATH NN=$CG_NET NG=$CG_GS
	fi
	# shellcheck disable=SC2086
	if composite_gadget cmpe 0x000b 0d dummy_udc.9 $COMPOSITE_E_FUNCS; then
		EP=$CG_PATH EN=$CG_NET EG=$CG_GS
	fi
	if [ -z "$NP" ] || [ -z "$EP" ]; then
		result FAIL composite-gadgets "ACM+NCM at '$NP', ACM+ECM at '$EP'"
		return
	fi
	ip link set "$NN" up
	ip addr add 169.254.85.1/24 dev "$NN"
	ip link set "$EN" up
	ip addr add 169.254.86.1/24 dev "$EN"
	NT=$(host_tty "$NP" 0)
	ET=$(host_tty "$EP" 0)
	# (not kn: kdrv_back's)
	cn_drv=cdc_ncm
	ce_drv=cdc_ether
	[ "$KDRV" = 1 ] || { cn_drv=none; ce_drv=none; }
	# The kernel's drivers bind as they enumerate.
	i=0
	while [ $i -lt 50 ]; do
		case "$(if_drivers "$NP")$(if_drivers "$EP")" in
		*"1.2=$cn_drv"*"1.2=$ce_drv"*) break ;;
		esac
		sleep 0.2
		i=$((i + 1))
	done
	bn=$(if_drivers "$NP")
	be=$(if_drivers "$EP")
	case "$bn $be" in
	"1.0=cdc_acm 1.1=cdc_acm 1.2=$cn_drv 1.3=$cn_drv  1.0=cdc_acm 1.1=cdc_acm 1.2=$ce_drv 1.3=$ce_drv ")
		result PASS composite-gadgets "ACM+NCM at $NP ($bn, $NT), ACM+ECM at $EP ($be, $ET)" ;;
	*)	result FAIL composite-gadgets "ACM+NCM at $NP: $bn ('$NT'); ACM+ECM at $EP: $be ('$ET')" ;;
	esac
	# Port 1, cmpe's ECM function chosen by function=2, kept at close
	# (ch39x-usb unbind hands it back); a third port names the serial
	# port (function=0): its probe must fail, the others' go on.
	TP_EAL="--vdev net_ch39x1,dev=1209:000b,path=$EP,function=2,kernel_driver=keep --vdev net_ch39x2,dev=1209:000b,path=$EP,function=0"
	if tp_start composite "dev=1209:000a,path=$NP" --port-topology=loop; then
		acm_start n "$NT" "$NG"
		acm_start e "$ET" "$EG"
		during="$(if_drivers "$NP")$(if_drivers "$EP")"
		ping_sizes composite-ncm "$NN" 169.254.85.2
		ping_sizes composite-ecm "$EN" 169.254.86.2
		tp_finish
		ln=$(grep -c "net_ch39x0.*$NP: ncm function at interfaces 2 (communication) and 3 (data) of configuration 1, the first of its kind; left as they are: $NP:1.0 cdc_acm.*$NP:1.1 cdc_acm" "$TP_LOG")
		le=$(grep -c "net_ch39x1.*$EP: ecm function at interfaces 2 (communication) and 3 (data) of configuration 1, chosen by function=2; left as they are: $EP:1.0 cdc_acm" "$TP_LOG")
		case "$during" in
		*"1.0=cdc_acm 1.1=cdc_acm 1.2=usbfs 1.3=usbfs "*"1.0=cdc_acm 1.1=cdc_acm 1.2=usbfs 1.3=usbfs "*) dok=1 ;;
		*) dok=0 ;;
		esac
		if [ "$ln" = 1 ] && [ "$le" = 1 ] && [ $dok = 1 ]; then
			result PASS composite-probe "testpmd took interfaces 2+3 of each (NCM: the first of its kind; ECM: function=2) and said so, the ACM ports stayed with cdc_acm: $during"
		else
			result FAIL composite-probe "log lines NCM $ln, ECM $le (1 each expected); interfaces while testpmd ran: $during"
		fi
		m=$(grep -m 1 "net_ch39x2.*no USB device matches.*function=0" "$TP_LOG")
		if [ -n "$m" ] && ! grep -q "^Port 2: " "$TP_LOG"; then
			result PASS composite-function0 "function=0 (the ACM port) refused at probe: ${m#*net_ch39x2: }"
		else
			result FAIL composite-function0 "function=0 of $EP: '$m'; $(grep -c "^Port 2: " "$TP_LOG") port 2 line(s)"
		fi
	else
		result FAIL composite-probe "$TP_ERR"
		tp_finish
		acm_start n "$NT" "$NG"
		acm_start e "$ET" "$EG"
	fi
	TP_EAL=""
	# Restored by the PMD: cdc_ncm on the NCM function, the ACM untouched.
	kdrv_back composite-ncm "$NP" "$NN" 169.254.85 cdc_ncm 1 2
	# kernel_driver=keep left cmpe's ECM interfaces without a driver;
	# ch39x-usb unbind probes only those (no authorized cycle, which would
	# take the serial port away).
	k=$(if_drivers "$EP")
	o=$(usbtool unbind "$EP" 2>&1)
	echo "[pmd] ch39x-usb unbind $EP (kept: $k): $(echo "$o" | tr '\n' ' ')"
	case "$o" in
	*drivers_probe*) ;;
	*) result FAIL composite-unbind "ch39x-usb unbind $EP did not probe the kept interfaces: $(echo "$o" | tr '\n' ' ')" ;;
	esac
	kdrv_back composite-ecm "$EP" "$EN" 169.254.86 cdc_ether 1 2
	if acm_check n; then
		result PASS composite-acm-ncm "$NT <-> $NG through cdc_acm while testpmd forwarded on the NCM function and gave it back: $ACM_MSG, intact"
	else
		result FAIL composite-acm-ncm "$NT <-> $NG: $ACM_MSG"
	fi
	if acm_check e; then
		result PASS composite-acm-ecm "$ET <-> $EG through cdc_acm while testpmd forwarded on the ECM function (kept) and ch39x-usb unbind gave it back: $ACM_MSG, intact"
	else
		result FAIL composite-acm-ecm "$ET <-> $EG: $ACM_MSG"
	fi
	a1="$(if_drivers "$NP")$(if_drivers "$EP")"
	case "$a1" in
	"1.0=cdc_acm 1.1=cdc_acm 1.2=$cn_drv 1.3=$cn_drv 1.0=cdc_acm 1.1=cdc_acm 1.2=$ce_drv 1.3=$ce_drv ")
		result PASS composite-after "after testpmd and ch39x-usb unbind: $NP and $EP $a1" ;;
	*) result FAIL composite-after "after testpmd and ch39x-usb unbind: $NP and $EP $a1" ;;
	esac
	echo "" > "$G/cmpn/UDC" 2>/dev/null
	echo "" > "$G/cmpe/UDC" 2>/dev/null
}
