#!/usr/bin/env bash
# The lock-instruction counter (lab/plugin/lockinsn.c) on a guest whose locks have a known
# length: lab/tests/synthlock.S, a bare multiboot program that QEMU runs in well under a
# second (no libvirt, no kernel: the plugin is what is tested here; integration-lockinsn runs
# it in the lab's guests).  Every count must be exact, and the same under -icount and in a
# second run.  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
T=$(mktemp -d /tmp/numalab-test-lockinsn.XXXXXX)
trap 'rm -rf "$T"' EXIT
plugin=$B/plugin/lockinsn.so elf=$B/tests/synthlock.elf

nm -n "$elf" >"$T/map"
# run NAME [QEMU-ARGS...]: the guest with the plugin; its JSON in $T/NAME.json.
run() { plugin_run "$1" "$plugin" "$elf" "${@:2}"; }
w() { jq -e "$2" "$T/$1.json" >/dev/null; }
site() { echo ".windows[] | select(.id == $1) | .sites[] | select(.site | startswith(\"$2+\"))"; }

run tcg
check "valid JSON, schema numalab.lockinsn/1, nothing dropped, the entry point found" \
	w tcg '.schema == "numalab.lockinsn/1" and .dropped == 0 and .entries_found == 1'
check "a section outside every window is not counted (three windows, 7 8 9)" \
	w tcg '[.windows[].id] == [7, 8, 9]'
check "window 7: 1000 acquisitions at one site, 103 instructions inside each" \
	w tcg "[$(site 7 synth_single)] | length == 1 and .[0].acquisitions == 1000 and
	       .[0].inside_insns == 103000 and .[0].inside_min == 103 and .[0].inside_max == 103"
check "window 7: the window is 107004 instructions, one task, nothing left open" \
	w tcg '.windows[] | select(.id == 7) | .insns == 107004 and .tasks == 1 and .open_at_stop == 0'
check "window 7: one lock, one vCPU" \
	w tcg "$(site 7 synth_single) | .locks == 1 and .max_cpus_per_lock == 1"
check "window 8: nested, the outer section 79 instructions (the inner one within it)" \
	w tcg "[$(site 8 synth_nested)] | map(select(.inside_min == 79)) | length == 1 and .[0].acquisitions == 10"
check "window 8: nested, the inner section 23" \
	w tcg "[$(site 8 synth_nested)] | map(select(.inside_min == 23 and .inside_max == 23)) | length == 1"
check "window 8: 834 instructions" w tcg '.windows[] | select(.id == 8) | .insns == 834'
check "window 9: a zero store to another byte is not a release (104, not 3)" \
	w tcg "$(site 9 synth_other_store) | .acquisitions == 1 and .inside_insns == 104"

run icount -icount shift=0,sleep=off
check "under -icount: the same counts" cmp -s "$T/tcg.json" "$T/icount.json"
run again
check "a second run: the same counts" cmp -s "$T/tcg.json" "$T/again.json"

# Refused arguments: QEMU does not start.
plugin_refused no-out "$plugin" "$elf" "map=$T/map" "lockinsn: map=FILE and out=FILE are needed"
plugin_refused bad-map "$plugin" "$elf" "map=$T/none,out=$T/x.json" "lockinsn: cannot read $T/none"
finish
