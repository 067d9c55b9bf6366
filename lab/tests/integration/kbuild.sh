#!/usr/bin/env bash
# Integration: the kbuild workload (seed 001, runners/kbuild.c) in real guests booted from the
# debian-perf image (images/README.md: it carries a compiler and a tiny C tree) with the
# host's Debian kernel.  One job, two boots under tcg (lab/tests/data/jobs/kbuild.json): the
# knob set `thp-never` compiles the tiny tree in a cgroup of its own with ASLR off and reports
# its metrics, then compiles a target that fails (its log tail in the report); the knob set
# `mthp-64k` requires an mTHP size the 6.1 kernel lacks (named in the report, nothing run).
# The metrics need one boot a side, not a statistics test: `lab compare` of knob-set labels
# is a unit test (test_compare_cli) and the seed's table is in configs/seeds/README.md.
#
# Wall time: 2 boots of about a minute, plus the image when the cache lacks it (shared with
# integration-image, which runs first).  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
jqr() { jq -e "$2" "$1/report.json"; }
start=$(date +%s)

# 0. The image: built once per host (integration-image built it already), then a cache hit.
$lab image build debian-perf >"$tmp/build.out" 2>"$tmp/build.err"
ok $? "lab image build debian-perf exits 0 ($(( $(date +%s) - start )) s)"
diag "$tmp/build.err" | tail -3

timeout 3600 "$lab" run lab/tests/data/jobs/kbuild.json --out "$tmp/k" >"$tmp/k.out" 2>"$tmp/k.err"
ok "$(rc_is $? 3)" "the kbuild job exits 3 (it holds a failing compile and a missing mTHP size)"
r="$tmp/k"
explain_runs "$r"
check "2 runs, knob sets in order thp-never, mthp-64k" \
	jqr "$r" '[.runs[].kernel.label] == ["thp-never", "mthp-64k"]'

# 1. The compile in a cgroup of its own, with its metrics.
w='.runs[0].workloads[0]'
check "run 0: thp_enabled never applied and read back" \
	jqr "$r" '.runs[0].knobs.knobs[] | select(.name == "thp_enabled") | .after == "never"'
check "run 0: the tiny compile ran ok" jqr "$r" "$w.status == \"ok\""
m="$w.results[0].metrics"
check "elapsed, user and sys time > 0 (the cgroup's cpu.stat)" \
	jqr "$r" "$m | .elapsed_s.value > 0 and .user_s.value > 0 and .sys_s.value > 0"
check "memory.peak > 0 MiB and the sampled mean memory > 0" \
	jqr "$r" "$m | .memory_peak_mib.value > 0 and .memory_peak_mib.unit == \"MiB\" and .memory_mean_mib.value > 0"
check "the cgroup's page faults (memory.stat pgfault) reported" \
	jqr "$r" "$m | .page_faults.value > 0 and has(\"major_faults\")"
check "the prepare step (defconfig) timed apart from the build" jqr "$r" "$m | .prepare_s.value > 0"
i="$w.results[0].info"
check "ASLR was off for the build (the personality the runner saw), one make job per vCPU" \
	jqr "$r" "($w.info | .aslr == false and .jobs == 2) and $w.results[0].tasks == 2"
check "memory.current was sampled during the build" jqr "$r" "$i | .memory_samples > 0"
check "the 6.1 kernel's missing per-size mTHP counters are listed as unavailable" \
	jqr "$r" "$i | (.mthp_unavailable | test(\"no per-size mTHP in this kernel\")) and .mthp == {}"
jq -r "$w.results[0] | \"# run 0: \\(.metrics | to_entries | map(\"\\(.key)=\\(.value.value)\") | join(\" \"))\"" "$r/report.json" 2>/dev/null

# 2. A compile that fails: a workload failure whose report carries the compiler's error.
f='.runs[0].workloads[1]'
check "run 0: status workload-failure, its second workload (target broken) failed" \
	jqr "$r" ".runs[0].status == \"workload-failure\" and $f.status == \"failed\""
jq -r "$f.stderr" "$r/report.json" >"$tmp/fail.stderr" 2>/dev/null
has "$tmp/fail.stderr" "kbuild: make failed (exit 2)" "... its stderr says make failed, with make's exit status"
has "$tmp/fail.stderr" "tiny_no_such_symbol" "... and holds the tail of the compile log (the compiler's error)"
check "... bounded: the stderr kept is at most 4 KiB" test "$(wc -c <"$tmp/fail.stderr")" -le 4200
check "... the runner's own exit status (1: a failure, not bad parameters)" jqr "$r" "$f.exit == 1"

# 3. A required mTHP size the guest kernel lacks (Debian's 6.1 has no hugepages-64kB).
check "run 1: status workload-failure, no workload run" \
	jqr "$r" '.runs[1].status == "workload-failure" and ([.runs[1].workloads[] | select(.status == "ok")] | length == 0)'
check "... guest.error names the size" jqr "$r" '.runs[1].guest.error | test("mthp_enabled.64kB")'
check "... the knob's status is unavailable" \
	jqr "$r" '.runs[1].knobs.knobs[] | select(.name == "mthp_enabled.64kB") | .status == "unavailable" and .required == true'
jq -r '"# guest.error: \(.runs[1].guest.error)"' "$r/report.json" 2>/dev/null

# 4. An mTHP size no kernel has: refused before anything boots.
jq '.kernels[1].knobs.mthp_enabled = {"48kB": "always"}' lab/tests/data/jobs/kbuild.json >"$tmp/bad.json"
"$lab" run "$tmp/bad.json" --out "$tmp/bad" >"$tmp/bad.out" 2>"$tmp/bad.err"
ok "$(rc_is $? 2)" "an unknown mTHP size (48kB): exit 2"
has "$tmp/bad.err" "kernels[1].knobs.mthp_enabled" "... the error names the JSON path"
check "... nothing written" test ! -e "$tmp/bad"

reports=$(find "$tmp" -name report.json | sort)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "the kbuild reports validate against reports/report.schema.json"
grep '^not ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'
check "no qemu left" no_qemu
echo "# wall time: $(( $(date +%s) - start )) s"
finish
