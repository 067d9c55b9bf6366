#!/usr/bin/env bash
# The per-symbol instruction profile (lab/plugin/profile.c) on a guest whose calls have a known
# structure: lab/tests/synthprof.S, a bare multiboot program that QEMU runs in well under a
# second (no libvirt, no kernel: the plugin is what is tested here).  Every symbol's self and
# inclusive count must be exact (synthprof.S's header computes them), the sum of self a window's
# instructions, and the output the same under -icount and in a second run.  TAP; ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
T=$(mktemp -d /tmp/numalab-test-profile.XXXXXX)
trap 'rm -rf "$T"' EXIT
plugin=$B/plugin/profile.so elf=$B/tests/synthprof.elf

nm -n "$elf" >"$T/map"
# run NAME [QEMU-ARGS...]: the guest with the plugin; its JSON in $T/NAME.json.
run() { plugin_run "$1" "$plugin" "$elf" "${@:2}"; }
w() { jq -e "$2" "$T/$1.json" >/dev/null; }
win() { echo ".windows[] | select(.id == $1)"; }
# syms ID 'NAME SELF INCL ...': the window's symbols are exactly these, in this order.
syms() {
	local want
	want=$(printf '%s %s %s\n' $2 | jq -R 'split(" ") | {incl: (.[2] | tonumber),
		self: (.[1] | tonumber), symbol: .[0]}' | jq -s -c .)
	w tcg "$(win "$1") | .symbols == $want"
}

run tcg
ntext=$(grep -c ' [Tt] ' "$T/map")
check "valid JSON, schema numalab.profile/1, nothing dropped, the map's $ntext text symbols" \
	w tcg ".schema == \"numalab.profile/1\" and .dropped == 0 and .symbols_loaded == $ntext"
check "keys sorted at every level" \
	python3 -c 'import json, sys
def h(p):
    k = [a for a, _ in p]
    assert k == sorted(k), k
    return dict(p)
json.load(open(sys.argv[1]), object_pairs_hook=h)' "$T/tcg.json"
check "five windows in first-seen order (7 to 11): a call outside every window is not counted" \
	w tcg '[.windows[].id] == [7, 8, 9, 10, 11]'
check "every window: one task, on vCPU 0" w tcg 'all(.windows[]; .tasks == 1 and .vcpus == [0])'
check "every window: the sum of self is its instructions, of incl its incl_total" \
	w tcg 'all(.windows[]; ([.symbols[].self] | add) == .insns and
	       ([.symbols[].incl] | add) == .incl_total)'
check "window 7: prof_outer 5300 self / 9500 incl, prof_inner 4200 / 4200, prof_main 303 / 9803" \
	syms 7 'prof_outer 5300 9500 prof_inner 4200 4200 prof_main 303 9803'
check "window 7: 9803 instructions, incl_total 23503, no stack reset" \
	w tcg "$(win 7) | .insns == 9803 and .incl_total == 23503 and .stack_resets == 0"
check "window 8: call *%rax, 5 deep: prof_rec 69 / 69 (once), prof_stop8 9 / 9, prof_main 4 / 82" \
	syms 8 'prof_rec 69 69 prof_stop8 9 9 prof_main 4 82'
check "window 8: 82 instructions, incl_total 160, one reset (stopped inside a call)" \
	w tcg "$(win 8) | .insns == 82 and .incl_total == 160 and .stack_resets == 1"
check "window 9: code outside the map: [unknown] 9 / 9, [user] 9 / 9, prof_main 6 / 15" \
	syms 9 '[unknown] 9 9 [user] 9 9 prof_main 6 15'
check "window 9: 24 instructions, incl_total 33, one reset (the user pc)" \
	w tcg "$(win 9) | .insns == 24 and .incl_total == 33 and .stack_resets == 1"
check "window 10: 70 deep past the 64-frame stack: prof_deep 279 / 279, prof_main 4 / 196" \
	syms 10 'prof_deep 279 279 prof_main 4 196'
check "window 10: 283 instructions, incl_total 475, no reset; 6 stack overflows in all" \
	w tcg ".stack_overflows == 6 and ($(win 10) | .insns == 283 and .incl_total == 475 and
	       .stack_resets == 0)"
check "window 11: a retpoline-like thunk: prof_thunk 3 / 24, prof_main 4 / 28, prof_inner 21 / 21" \
	syms 11 'prof_inner 21 21 prof_main 4 28 prof_thunk 3 24'
check "window 11: 28 instructions, incl_total 73, no reset (the return popped both frames)" \
	w tcg "$(win 11) | .insns == 28 and .incl_total == 73 and .stack_resets == 0"

run icount -icount shift=0,sleep=off
check "under -icount: the same output" cmp -s "$T/tcg.json" "$T/icount.json"
run again
check "a second run: the same output, byte for byte" cmp -s "$T/tcg.json" "$T/again.json"

# Refused arguments: QEMU does not start.
refuse() { plugin_refused "$1" "$plugin" "$elf" "$2" "$3"; }
refuse no-out "map=$T/map" "profile: map=FILE and out=FILE are needed"
refuse no-map "out=$T/x.json" "profile: map=FILE and out=FILE are needed"
refuse bad-map "map=$T/none,out=$T/x.json" "profile: cannot read $T/none"
refuse unknown "map=$T/map,out=$T/x.json,depth=8" "profile: unknown argument depth=8"
finish
