#!/usr/bin/env bash
# suite-order: builds (boots the lab's builds: runs after the tests that do not, run-tests.sh)
# Integration: kernel variants built from Debian's linux-source-6.12 and booted through
# `lab run` (A/B on 4s-8c: baseline vs test-fault-mmap-lock, a patch series on top of it),
# the difference read back from the guest (its /proc/config.gz, /proc/vmstat vma_lock_*) and
# from the builds (the patches, the code hash of .text); a variant naming an option that does
# not stick on the real Kconfig.  Builds go to the kernel cache outside the checkout
# ($LAB_KERNEL_CACHE, default /var/cache/numalab/kernels), so after the first run on a machine
# they are cache hits.
#
# Why B is a patch and not a config variant: on a machine without a cache, B is built after
# baseline and is mostly ccache hits (its patch touches one file, arch/x86/mm/fault.c), about
# two minutes; integration-quantum boots the same B.  A variant that switches an MM option
# (no-per-vma-lock: CONFIG_PER_VMA_LOCK is read in mm_types.h) recompiles two thirds of the
# kernel, over fifteen minutes of a 2-core machine.
# What such a variant adds (the option's value and its confounds read back, vma_lock counters
# absent) is checked on the pure code with golden files (lab/tests/test_kvariant.c,
# test_collect.c).  Patch, source and build failures are tested on a fake kernel tree in
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
$lab kernel build baseline "$data/test-fault-mmap-lock.json" >"$tmp/build.out" 2>"$tmp/build.err"
rc=$?
echo "# lab kernel build baseline test-fault-mmap-lock: $(( $(date +%s) - start )) s"
grep -v ' building ' "$tmp/build.err" | sed 's/^/# /'
ok "$(rc_is $rc 0)" "lab kernel build baseline test-fault-mmap-lock exits 0"
check "both images reported, each the build's PVH vmlinux (base.config)" test "$(grep -c '^image: .*/vmlinux$' "$tmp/build.out")" = 2
$lab kernel build baseline >"$tmp/hit.out" 2>&1
check "a second build of baseline is a cache hit" grep -q '^baseline: cached ' "$tmp/hit.out"
$lab kernel list >"$tmp/list.out" 2>&1
check "lab kernel list shows baseline built" grep -Eq '^baseline +built' "$tmp/list.out"
$lab kernel list --json >"$tmp/list.json" 2>&1
check "lab kernel list --json: baseline built, with its image and key" \
	jq -e '[.[] | select(.name == "baseline")][0] | .state == "built" and (.image | length > 0) and (.key | length == 64)' "$tmp/list.json"
check "lab kernel path prints the image of a variant named by its file" \
	bash -c "test -s \"\$($lab kernel path $data/test-fault-mmap-lock.json)\""
check "lab kernel --help" $lab kernel --help

# A/B through lab run: A B, and the guest and the builds prove which kernel each run had.
$lab run $data/ab-patch.json --out "$tmp/ab" >"$tmp/ab.out" 2>"$tmp/ab.err"
as_compare $? "$tmp/ab" "A/B job: its status is its decision's"
r="$tmp/ab"
explain_runs "$r"
check "two runs, A then B" jqr "$r" '[.runs[].kernel.variant] == ["baseline", "test-fault-mmap-lock"] and [.runs[].kernel.label] == ["baseline", "test-fault-mmap-lock"]'
check "job lists its kernels" jqr "$r" '[.job.kernels[].label] == ["baseline", "test-fault-mmap-lock"]'
check "both runs ok" jqr "$r" '[.runs[].status] == ["ok", "ok"]'
check "each run booted its own image" jqr "$r" '.runs[0].kernel.image != .runs[1].kernel.image and (.runs[0].kernel.image | endswith("/vmlinux"))'
check "the builds differ: keys differ, and the code (.text hash) where both builds recorded it" jqr "$r" '.runs[0].kernel.build.key != .runs[1].kernel.build.key and ([.runs[].kernel.build.text_sha256] | (map(. == null) | any) or .[0] != .[1])'
check "config came from the guest and equals the build's" jqr "$r" '[.runs[].kernel.config | .source == "guest" and .verified == true] | all'
has "$r/run-0/results.jsonl" '"config_same":true' "... said as config_same (the build's .config was in the initramfs)"
! grep -q '"config":"' "$r/run-0/results.jsonl"
ok $? "... and the .config not sent whole"
check "guest config: PER_VMA_LOCK y on both (the patch changes code, not config)" jqr "$r" '[.runs[].kernel.config.options.CONFIG_PER_VMA_LOCK] == ["y", "y"]'
check "vma_lock_* counters in /proc/vmstat on both" jqr "$r" '[.runs[].kernel.vma_lock.end | has("vma_lock_success") and has("vma_lock_retry") and has("vma_lock_abort") and has("vma_lock_miss")] | all'
# The patch read back from the guest: baseline's faults take the per-VMA lock, B's never try.
check "... baseline's faults handled under per-VMA locks, B's never under one" jqr "$r" \
	'.runs[0].kernel.vma_lock.delta.vma_lock_success > 0 and .runs[1].kernel.vma_lock.delta.vma_lock_success == 0'
check "no confounds" jqr "$r" '[.runs[].kernel.confounds == []] | all'
check "builds recorded as cache hits with their keys" jqr "$r" '[.runs[].kernel.build | .cached == true and (.key | length == 64)] | all'
check "pft ran on both" jqr "$r" '[.runs[].workloads[0].results[0].metrics.faults_per_s.value > 0] | all'
check "progress names the kernel of each run" grep -q 'booting test-fault-mmap-lock' "$tmp/ab.err"
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
