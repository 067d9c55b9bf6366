#!/usr/bin/env bash
# Integration: kernel variants built from Debian's linux-source-6.12 and booted through
# `lab run` (A/B: baseline vs no-per-vma-lock on 4s-8c), the difference read back from the
# guest (its /proc/config.gz, /proc/vmstat vma_lock_*); a variant naming an option that does
# not stick on the real Kconfig.  Builds go to the kernel cache outside the checkout
# ($LAB_KERNEL_CACHE, default /var/cache/numalab/kernels), so after the first run on a machine
# they are cache hits.  Patch, source and build failures are tested on a fake kernel tree in
# lab/tests/test_kernel_build.sh (seconds instead of minutes).
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
lab=${B:-build}/lab
cache=${LAB_KERNEL_CACHE:-/var/cache/numalab/kernels}
data=lab/tests/data/kernels
tmp=$(mktemp -d /tmp/numalab-kit.XXXXXX)
cleanup() {
	rm -rf "$tmp"
	# Test variants leave their O= trees behind (a copy of baseline's): not worth keeping.
	rm -rf "$cache"/src/*/O-test-nr-cpus-8192 "$cache/locks/obj-test-nr-cpus-8192.lock"
}
trap cleanup EXIT
jqr() { jq -e "$2" "$1/report.json"; }

# Build both variants (cache hits after the first run on this machine).
start=$(date +%s)
$lab kernel build baseline no-per-vma-lock >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
echo "# lab kernel build baseline no-per-vma-lock: $(( $(date +%s) - start )) s"
grep -v ' building ' "$tmp/build.err" | sed 's/^/# /'
ok "$(rc_is $rc 0)" "lab kernel build baseline no-per-vma-lock exits 0"
check "both images reported" test "$(grep -c '^image: .*/bzImage$' "$tmp/build.out")" = 2
$lab kernel build baseline >"$tmp/hit.out" 2>&1
check "a second build of baseline is a cache hit" grep -q '^baseline: cached ' "$tmp/hit.out"
$lab kernel list >"$tmp/list.out" 2>&1
check "lab kernel list shows both built" bash -c "grep -Eq '^baseline +built' $tmp/list.out && grep -Eq '^no-per-vma-lock +built' $tmp/list.out"
check "lab kernel path prints the image" bash -c "test -s \"\$($lab kernel path no-per-vma-lock)\""
check "lab kernel --help" $lab kernel --help

# A/B through lab run: A B, and the guest proves which kernel each run had.
$lab run $data/ab-vma-lock.json --out "$tmp/ab" >"$tmp/ab.out" 2>"$tmp/ab.err"
ok "$(rc_is $? 0)" "A/B job exits 0"
r="$tmp/ab"
check "two runs, A then B" jqr "$r" '[.runs[].kernel.variant] == ["baseline", "no-per-vma-lock"] and [.runs[].kernel.label] == ["baseline", "no-per-vma-lock"]'
check "job lists its kernels" jqr "$r" '[.job.kernels[].label] == ["baseline", "no-per-vma-lock"]'
check "both runs ok" jqr "$r" '[.runs[].status] == ["ok", "ok"]'
check "each run booted its own image" jqr "$r" '.runs[0].kernel.image != .runs[1].kernel.image and (.runs[0].kernel.image | endswith("/bzImage"))'
check "config came from the guest and equals the build's" jqr "$r" '[.runs[].kernel.config | .source == "guest" and .verified == true] | all'
check "guest config: PER_VMA_LOCK y on A, n on B" jqr "$r" '.runs[0].kernel.config.options.CONFIG_PER_VMA_LOCK == "y" and .runs[1].kernel.config.options.CONFIG_PER_VMA_LOCK == "n"'
check "A: vma_lock_* counters in /proc/vmstat, faults handled under per-VMA locks" jqr "$r" '.runs[0].kernel.vma_lock.delta.vma_lock_success > 0 and (.runs[0].kernel.vma_lock.end | has("vma_lock_retry") and has("vma_lock_abort") and has("vma_lock_miss"))'
check "B: no vma_lock_* counters at all" jqr "$r" '.runs[1].kernel.vma_lock == null'
check "B: the PER_VMA_LOCK_STATS confound recorded" jqr "$r" '.runs[1].kernel.confounds | map(.option) | index("CONFIG_PER_VMA_LOCK") != null'
check "A: no confounds" jqr "$r" '.runs[0].kernel.confounds == []'
check "builds recorded as cache hits with their keys" jqr "$r" '[.runs[].kernel.build | .cached == true and (.key | length == 64)] | all'
check "pft ran on both" jqr "$r" '[.runs[].workloads[0].results[0].metrics.faults_per_s.value > 0] | all'
check "progress names the kernel of each run" grep -q 'booting no-per-vma-lock' "$tmp/ab.err"
/usr/bin/python3 lab/tests/validate-reports.py "$r/report.json" >"$tmp/schema.out" 2>&1
ok $? "the A/B report validates against reports/report.schema.json"

# A job naming a variant that does not exist: exit 2, nothing written.
$lab run $data/unknown-variant.json --out "$tmp/unknown" >/dev/null 2>"$tmp/unknown.err"
ok "$(rc_is $? 2)" "unknown variant: exit 2"
check "unknown variant: error names the JSON path" grep -q 'kernels\[1\].variant: no kernel variant "no-such-variant"' "$tmp/unknown.err"
check "unknown variant: nothing written" test ! -e "$tmp/unknown"

# An option that does not stick after olddefconfig.
$lab kernel build $data/test-nr-cpus-8192.json >/dev/null 2>"$tmp/nrcpus.err"
ok "$(rc_is $? 2)" "option that does not stick: exit 2"
check "names the option, wanted and got" grep -q 'CONFIG_NR_CPUS: wanted 8192, got 512 (.*nr-cpus-8192.config:2)' "$tmp/nrcpus.err"

finish
