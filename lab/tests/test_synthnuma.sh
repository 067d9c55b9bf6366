#!/usr/bin/env bash
# The 4-vCPU guest whose cache-line traffic is known (lab/tests/synthnuma.S), on its own for now:
# it must wake its APs, run every scenario and agree with itself (the counters it prints), the
# same, byte for byte, in two runs under -icount; with no cost plugin the stall leaf is a plain
# CPUID, so windows 1 and 2 take the same time.  Two NUMA nodes of two vCPUs each, as the
# ping-pongs of windows 4 (within a node) and 5 (across) expect.  TAP; ends with "N passed,
# N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
T=$(mktemp -d /tmp/numalab-test-synthnuma.XXXXXX)
trap 'rm -rf "$T"' EXIT
elf=$B/tests/synthnuma.elf

# run NAME [QEMU-ARGS...]: the guest, its debug console (port 0xe9) in $T/NAME.txt.
run() {
	synthnuma_run qemu-system-x86_64 "$elf" "$T/$1.txt" "${@:2}" >"$T/$1.out" 2>&1
	# isa-debug-exit: QEMU exits (0 << 1) | 1 when the guest wrote 0 (3: an AP did not start).
	# QEMU also exits 1 when it cannot start at all: the guest's last line must be there too.
	local rc=$? end=1
	[ "$rc" = 1 ] && grep -q '^counters ' "$T/$1.txt" && end=0
	ok $end "$1: the guest ran to its end (its last line, then QEMU exit 1 from isa-debug-exit)"
	[ $end = 0 ] || { echo "# exit $rc"; diag "$T/$1.out" "$T/$1.txt" 2>/dev/null; }
}
# same A B: A is not empty and B is the same, byte for byte.
same() { [ -s "$1" ] && cmp -s "$1" "$2"; }
# tsc NAME N: window N's TSC delta as vCPU 0 printed it.
tsc() { sed -n "s/^w$2 tsc=\([0-9][0-9]*\)\$/\1/p" "$T/$1.txt"; }

run icount -icount shift=0,sleep=off
check "the eight windows, each reported once, in order" \
	test "$(grep -o '^w[0-9]* tsc=[0-9][0-9]*$' "$T/icount.txt" | cut -d' ' -f1 | paste -sd' ')" \
	= "w1 w2 w3 w4 w5 w6 w7 w8"
has "$T/icount.txt" "counters p=4000 k=4000 d=800" \
	"the padded and packed counters and the lock-protected data: 4000, 4000, 800"
run again -icount shift=0,sleep=off
check "a second run under -icount: the same output, byte for byte" \
	same "$T/icount.txt" "$T/again.txt"
w1=$(tsc icount 1) w2=$(tsc icount 2)
# |w1 - w2| < 5 % of w2, in integers.
check "no plugin: the stall leaf costs what a plain CPUID does (w1 $w1, w2 $w2: within 5 %)" \
	test -n "$w1" -a -n "$w2" -a $((20 * (w1 > w2 ? w1 - w2 : w2 - w1))) -lt "${w2:-0}"
finish
