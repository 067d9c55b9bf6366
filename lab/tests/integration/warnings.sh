#!/usr/bin/env bash
# suite-order: builds (boots the lab's builds: runs after the tests that do not, run-tests.sh)
# Integration: kernel warnings as findings of their own (lab/core/kwarn.h, analysis/warndiff.h).
# B is baseline plus a WARN_ON_ONCE() on the anonymous fault path that fires once a boot
# (lab/tests/data/kernels/test-warn-fault.json, one file: built from baseline's ccache); its
# figures do not move (one test of a flag a fault), but it warns.  Through `lab run` under the
# contention model with the instruction profile (lab/plugin/profile.c), 2 boots a side:
#   - every boot of B ends "ok" with its figures and runs[].warnings naming the site
#     (mm/memory.c:LINE, the console excerpt); A's boots have an empty list;
#   - `lab compare` exits 1: a regression by the new warning alone, its first line shown,
#     while the deciding series is no regression; the JSON says 1 new, 0 gone;
#   - `lab show` lists the warning under each of B's runs, the dashboard in its table;
#   - every result has its profile (info.profile: the kept symbols' and the rest's self
#     instructions add up to the window's); `lab compare -v` lists the flag's test as
#     __handle_mm_fault's instructions per fault (do_anonymous_page is inlined there), not
#     deciding; A's first boot again with its seed gives the same profile, byte for byte,
#     and without the plugin the same figures;
#   - no QEMU is left behind.
# TAP; ends with "N passed, N failed".  The kernels come from the caches (lab/tests/prewarm.sh
# builds them ahead in the suite; alone, `lab run` builds them).
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
r="$tmp/ab"

t0=$(date +%s)
$lab run lab/tests/data/jobs/warn-ab.json --seed 11 --parallel 2 --out "$r" >"$tmp/ab.out" 2>"$tmp/ab.err"
ok "$(rc_is $? 1)" "A/B baseline against a kernel that warns: 4 boots end, and the new warning is a regression (exit 1, $(( $(date +%s) - t0 )) s)"
explain_runs "$r"
jr() { jq -e "$1" "$r/report.json" >/dev/null; }
check "every run ends ok, with its figures" jr \
	'[.runs[] | .status == "ok" and (.workloads[0].results | length > 0)] | all'
check "A's runs: scanned, no warning" jr \
	'[.runs[] | select(.kernel.label == "baseline") | .warnings == []] | all and length == 2'
check "B's runs: one warning each, at mm/memory.c, with the excerpt" jr \
	'[.runs[] | select(.kernel.label == "warn-fault") | .warnings | length == 1 and .[0].kind == "warning" and (.[0].where | test("^mm/memory\\.c:[0-9]+$")) and .[0].count == 1 and (.[0].first_line | startswith("WARNING: CPU: ")) and (.[0].excerpt | contains("cut here"))] | all and length == 2'

$lab compare "$r" >"$tmp/cmp.txt" 2>"$tmp/cmp.err"
ok "$(rc_is $? 1)" "lab compare exits 1: a regression"
has "$tmp/cmp.txt" "new in B: warning, B in 2 of 2 boots, A in 0 of 2 boots" "... the new warning, boots per side"
has "$tmp/cmp.txt" "    WARNING: CPU: " "... its first line"
check "... the decision last, with the warning" sh -c "tail -1 '$tmp/cmp.txt' | grep -q '^decision: regression (.*1 new kernel warning)'"
wide=$(awk 'length($0) > 80' "$tmp/cmp.txt" | wc -l)
ok "$wide" "... in 80 columns ($wide lines wider)"
$lab compare "$r" --json >"$tmp/cmp.json" 2>/dev/null
check "JSON: 1 new, 0 gone, the site's kind and boots" jq -e \
	'.comparisons[0].warnings | .new == 1 and .gone == 0 and .sites[0].kind == "warning" and .sites[0].b_boots == 2 and .sites[0].a_boots == 0 and .sites[0].change == "new"' "$tmp/cmp.json"
check "the figures do not move: no deciding series regressed" jq -e \
	'[.comparisons[0].rows[] | select(.primary) | .verdict] | all(. != "regression") and length > 0' "$tmp/cmp.json"

$lab show "$r" >"$tmp/show.txt" 2>&1
ok "$(rc_is $? 1)" "lab show exits 1, the decision it ends with"
check "lab show: the warning under each of B's runs" test \
	"$(grep -c 'kernel warnings: warning mm/memory.c:[0-9]* x1' "$tmp/show.txt")" = 2
check "the dashboard's warnings table names it" grep -q 'Kernel warnings</caption>' "$r/dashboard.html"

# --- the profile ----------------------------------------------------------------------------
check "every result has its profile: kept self + other_self = the window's instructions" jr \
	'[.runs[].workloads[].results[].info.profile | (.symbols | map(.self) | add) + .other_self == .insns and (.symbols | length) > 10] | all and length == 4'
$lab compare "$r" -v >"$tmp/cmpv.txt" 2>&1
has "$tmp/cmpv.txt" "why it moved (not deciding; per fault, boots A 2, B 2):" "lab compare -v: why it moved, not deciding"
check "... __handle_mm_fault, where the warning's test is, +2 to +5 insns/fault" \
	grep -Eq '^    __handle_mm_fault  \+[2-4]\.[0-9] insns/fault' "$tmp/cmpv.txt"
# Not "first": which other function moves most depends on what else B's boots do (its warning
# included); mas_walk came out +21 insns/fault in B with one image and +0 with the next.
check "JSON: the deltas decide nothing, __handle_mm_fault among them, +2 to +5" jq -e \
	'.comparisons[0].workloads[0].deltas | .deciding == false and any(.profile[]; .symbol == "__handle_mm_fault" and .self_delta >= 2 and .self_delta <= 5)' "$tmp/cmp.json"
$lab run lab/tests/data/jobs/warn-a.json --seed 11 --out "$tmp/again" >"$tmp/again.out" 2>&1
ok $? "A's first boot again, with its seed (11)"
check "... the same profile, byte for byte" cmp -s \
	<(jq -S '.runs[0].workloads[0].results[0].info.profile' "$r/report.json") \
	<(jq -S '.runs[0].workloads[0].results[0].info.profile' "$tmp/again/report.json")
check "... and the same figures" cmp -s \
	<(jq -S '.runs[0].workloads[0].results[0].metrics' "$r/report.json") \
	<(jq -S '.runs[0].workloads[0].results[0].metrics' "$tmp/again/report.json")
# The same boot without the plugin (the job's name kept: it reaches the guest): the plugin
# counts, it does not change guest time.
plain=lab/tests/data/jobs/.warn-a-plain.$$.json
jq 'del(.profile) | .kernels[0].cmdline = "nokaslr"' lab/tests/data/jobs/warn-a.json >"$plain"
$lab run "$plain" --seed 11 --out "$tmp/plain" >"$tmp/plain.out" 2>&1
ok $? "... and without the profile (nokaslr, as a profiled boot)"
rm -f "$plain"
check "... the same figures, to the last digit" cmp -s \
	<(jq -S '.runs[0].workloads[0].results[0].metrics' "$r/report.json") \
	<(jq -S '.runs[0].workloads[0].results[0].metrics' "$tmp/plain/report.json")
$lab compare "$tmp/again" "$tmp/plain" >/dev/null 2>"$tmp/pool.err"
check "under quantum a profiled run is compared with a plain one (not refused)" \
	test ! -s "$tmp/pool.err"
check "no qemu left" no_qemu
finish
