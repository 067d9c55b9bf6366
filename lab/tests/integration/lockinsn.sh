#!/usr/bin/env bash
# suite-order: builds (boots the lab's builds: runs after the tests that do not, run-tests.sh)
# suite-lane: 2 (beside the other builds tests, once the prewarm built QEMU: run-tests.sh)
# Integration: "lock_insns" (the QEMU TCG plugin lab/plugin/lockinsn.c) in a real guest.  One
# tcg boot of baseline, memscale with THP, each task's region under a PMD table of its own, at
# 1 and 4 tasks: every THP fault takes its PMD table's split lock once, about a thousand
# instructions inside (measured: 1032-1036, their interrupts aside), the 4 tasks four locks
# each taken by one vCPU.  The plugin itself is checked against locks of known length in
# test_lockinsn, its output's checks and join in test_lockinsn_join; here, that the lab runs
# it in a guest and joins its windows to the results.  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
lab=${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-li.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
no_qemu() { ! pgrep -f "guest=numalab-.*$LAB_STATE_DIR/libvirt" >/dev/null; }

job() { # TIMING
	cat <<EOF
{"name": "lockinsn", "topology": "4s-8c", "timing": "$1", "lock_insns": true,
 "kernels": [{"variant": "baseline"}], "repeats": 1,
 "knobs": {"thp_enabled": "always", "required": ["thp_enabled"]},
 "workloads": [{"name": "memscale", "params": {"own_pmd_table": true, "mode": "threads",
   "tasks": [1, 4], "memory_mib": 32, "huge": "system", "repetitions": 1, "warmup": 0},
   "timeout_s": 600}]}
EOF
}
job icount >"$tmp/icount.json"
$lab run "$tmp/icount.json" -o "$tmp/no" >/dev/null 2>"$tmp/icount.err"
ok "$(rc_is $? 2)" "lock_insns under icount: exit 2"
has "$tmp/icount.err" 'lock_insns: needs "timing": "tcg" or "quantum"' "... naming the key and the models"
check "... and nothing written" test ! -e "$tmp/no"

job tcg >"$tmp/job.json"
t=$(date +%s)
$lab run "$tmp/job.json" -o "$tmp/r" >"$tmp/out" 2>"$tmp/err"
rc=$?
echo "# one tcg boot with the counter: $(( $(date +%s) - t )) s"
ok "$(rc_is $rc 0)" "lab run with lock_insns: exit 0"
[ $rc = 0 ] || tail -20 "$tmp/err" | diag /dev/stdin
has "$tmp/err" "lock instructions counted for 2 result(s)" "progress says the counts were joined"
rep="$tmp/r/report.json"
res() { echo ".runs[0].workloads[0].results[] | select(.tasks == $1)"; }
site() { echo "$(res "$1") | .info.lock_insns.sites[] | select(.site | startswith(\"do_huge_pmd_anonymous_page+\"))"; }
check "the kernel was booted without KASLR (call sites are the vmlinux's addresses)" \
	jq -e '.runs[0].kernel.cmdline | test("(^| )nokaslr( |$)")' "$rep"
check "the map was removed after the boot" test ! -e "$tmp/r/run-0/lockinsn.map"
check "1 task: the window is one task's, nothing left open, nothing dropped" jq -e \
	"$(res 1) | .info.lock_insns | .tasks == 1 and .open_at_stop == 0 and .dropped == 0 and .insns > 0" "$rep"
check "1 task: one PMD lock acquisition per THP fault (vmstat thp_fault_alloc), one lock" jq -e \
	"$(res 1) | .info.vmstat.thp_fault_alloc as \$thp | [.info.lock_insns.sites[] |
	 select(.site | startswith(\"do_huge_pmd_anonymous_page+\"))] |
	 length == 1 and .[0].acquisitions == \$thp and .[0].locks == 1" "$rep"
jq -r "$(res 1) | \"# 1 task: \(.metrics.page_faults.value) faults, \(.info.vmstat.thp_fault_alloc) THP\"" "$rep"
check "1 task: 500..5000 instructions inside each (measured 1032-1036)" jq -e \
	"$(site 1) | .inside_min >= 500 and .inside_min <= 5000" "$rep"
check "4 tasks: four windows, four split PMD locks, each taken by one vCPU" jq -e \
	"($(res 4) | .info.lock_insns.tasks == 4) and ($(site 4) | .locks == 4 and .max_cpus_per_lock == 1)" "$rep"
jq -r "$(res 1) | .info.lock_insns | \"# 1 task: \(.insns) instructions in the window\"" "$rep"
jq -r "$(site 1) | \"# 1 task: \(.acquisitions) PMD lock sections, \(.inside_min)-\(.inside_max) instructions inside\"" "$rep"

check "no qemu left" no_qemu
finish
