#!/usr/bin/env bash
# Integration: the kbuild workload (seed 001, runners/kbuild.c) in real guests booted from the
# debian-kbuild image (images/README.md) with the host's Debian kernel: a tiny compile in a
# cgroup of its own with its metrics, ASLR off; a knob-set A/B (THP never against always,
# interleaved) and what `lab compare` makes of it; a compile that fails (its log tail in the
# report); and a required mTHP size that the 6.1 kernel lacks (named in the report).
#
# Wall time: 6 boots (the A/B's 4 run two at a time under icount) plus the image.  The image
# is cached under /var/cache/numalab/images after the first build: cold, mmdebstrap of a
# compiler and the libguestfs appliance take about 4-5 minutes here.  TAP; ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
jqr() { jq -e "$2" "$1/report.json"; }
run_lab() { timeout 3600 "$lab" run "$@"; }
start=$(date +%s)

# 0. The image: built once per host, then a cache hit.
$lab image build debian-kbuild >"$tmp/build.out" 2>"$tmp/build.err"
ok $? "lab image build debian-kbuild exits 0 ($(( $(date +%s) - start )) s)"
diag "$tmp/build.err" | tail -3

# 1. A/B of knob sets on the tiny tree: every run a compile in its own cgroup, with metrics.
run_lab lab/tests/data/jobs/kbuild-ab.json --out "$tmp/ab" >"$tmp/ab.out" 2>"$tmp/ab.err"
ok $? "the kbuild A/B job exits 0"
r="$tmp/ab"
explain_runs "$r"
check "4 runs, labels interleaved thp-never thp-always thp-never thp-always" \
	jqr "$r" '[.runs[].kernel.label] == ["thp-never", "thp-always", "thp-never", "thp-always"]'
check "... each with its own THP knob applied and read back" \
	jqr "$r" '[.runs[] | (.knobs.knobs[] | select(.name == "thp_enabled") | .after) == (.kernel.label | ltrimstr("thp-"))] | all'
m='.runs[].workloads[0].results[0].metrics'
check "every run: elapsed, user and sys time > 0 (the cgroup's cpu.stat)" \
	jqr "$r" "[$m | .elapsed_s.value > 0 and .user_s.value > 0 and .sys_s.value > 0] | all"
check "every run: memory.peak > 0 MiB and the sampled mean memory > 0" \
	jqr "$r" "[$m | .memory_peak_mib.value > 0 and .memory_peak_mib.unit == \"MiB\" and .memory_mean_mib.value > 0] | all"
check "every run: the cgroup's page faults (memory.stat pgfault) reported" \
	jqr "$r" "[$m | .page_faults.value > 0 and has(\"major_faults\")] | all"
check "every run: the prepare step (defconfig) timed apart from the build" \
	jqr "$r" "[$m | .prepare_s.value > 0] | all"
i='.runs[].workloads[0].results[0].info'
check "ASLR was off for the build (the personality the runner saw), one make job per vCPU" \
	jqr "$r" '([.runs[].workloads[0].info | .aslr == false and .jobs == 2] | all) and ([.runs[].workloads[0].results[0].tasks] | unique == [2])'
check "memory.current was sampled during each build" jqr "$r" "[$i | .memory_samples > 0] | all"
check "the 6.1 kernel's missing per-size mTHP counters are listed as unavailable" \
	jqr "$r" "[$i | (.mthp_unavailable | test(\"no per-size mTHP in this kernel\")) and .mthp == {}] | all"
jq -r '.runs[0].workloads[0].results[0] | "# run 0: \(.metrics | to_entries | map("\(.key)=\(.value.value)") | join(" "))"' "$r/report.json" 2>/dev/null
"$lab" compare "$r" >"$tmp/compare.out" 2>"$tmp/compare.err"
rc=$?
ok $([ $rc != 2 ] && [ -s "$tmp/compare.out" ] && echo 0 || echo 1) "lab compare on the A/B decides or asks for boots (exit $rc)"
diag "$tmp/compare.out"
has "$tmp/compare.out" "A: thp-never" "... thp-never is A, the baseline"
has "$tmp/compare.out" "B: thp-always" "... thp-always is B"
check "... elapsed_s and memory_peak_mib, each with a 95% CI of the change" \
	bash -c "grep -E '^ +2 +elapsed_s .*\[[-+][0-9.]+%, [-+][0-9.]+%\]' '$tmp/compare.out' && grep -E '^ +2 +memory_peak_mib .*\[[-+][0-9.]+%, [-+][0-9.]+%\]' '$tmp/compare.out'"

# 2. A compile that fails: a workload failure whose report carries the compiler's error.
run_lab lab/tests/data/jobs/kbuild-fail.json --out "$tmp/fail" >"$tmp/fail.out" 2>"$tmp/fail.err"
ok "$(rc_is $? 3)" "a failing compile: lab run exits 3"
f="$tmp/fail"
check "status workload-failure, the workload failed" \
	jqr "$f" '.runs[0].status == "workload-failure" and .runs[0].workloads[0].status == "failed"'
jq -r '.runs[0].workloads[0].stderr' "$f/report.json" >"$tmp/fail.stderr" 2>/dev/null
has "$tmp/fail.stderr" "kbuild: make failed (exit 2)" "... its stderr says make failed, with make's exit status"
has "$tmp/fail.stderr" "tiny_no_such_symbol" "... and holds the tail of the compile log (the compiler's error)"
check "... bounded: the stderr kept is at most 4 KiB" test "$(wc -c <"$tmp/fail.stderr")" -le 4200
check "... the runner's own exit status (1: a failure, not bad parameters)" jqr "$f" '.runs[0].workloads[0].exit == 1'

# 3. A required mTHP size the guest kernel lacks (Debian's 6.1 has no hugepages-64kB).
run_lab lab/tests/data/jobs/kbuild-mthp-missing.json --out "$tmp/mthp" >"$tmp/mthp.out" 2>"$tmp/mthp.err"
ok "$(rc_is $? 3)" "a required mTHP size the kernel lacks: lab run exits 3"
k="$tmp/mthp"
check "status workload-failure, no workload run" \
	jqr "$k" '.runs[0].status == "workload-failure" and ([.runs[0].workloads[] | select(.status == "ok")] | length == 0)'
check "guest.error names the size" jqr "$k" '.runs[0].guest.error | test("mthp_enabled.64kB")'
check "the knob's status is unavailable" \
	jqr "$k" '.runs[0].knobs.knobs[] | select(.name == "mthp_enabled.64kB") | .status == "unavailable" and .required == true'
jq -r '"# guest.error: \(.runs[0].guest.error)"' "$k/report.json" 2>/dev/null

reports=$(find "$tmp" -name report.json | sort)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "the kbuild reports validate against reports/report.schema.json"
grep '^not ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'
check "no qemu left" no_qemu
echo "# wall time: $(( $(date +%s) - start )) s"
finish
