#!/usr/bin/env bash
# suite-order: builds (boots the lab's builds: runs after the tests that do not, run-tests.sh)
# suite-lane: 2 (beside the other builds tests, once the prewarm built QEMU: run-tests.sh)
# Integration (issue 7): a 64-vCPU, 4-socket guest with the lab's baseline kernel boots through
# `lab run` and sees exactly the requested topology.  The kernel comes from the cache outside
# the checkout (integration/kernels.sh builds it; `lab run` builds it when missing).
# TAP; ends with "N passed, N failed".  Timings are printed, never judged.
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
lab=${B:-build}/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
tmp=$(mktemp -d /tmp/numalab-t64.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
jqr() { jq -e "$1" "$tmp/r/report.json"; }

$lab run lab/tests/data/jobs/topo64.json --out "$tmp/r" >"$tmp/out" 2>"$tmp/err"
ok $? "4s-64c job exits 0"
explain_runs "$tmp/r"
check "run ok" jqr '.runs[0].status == "ok"'
check "observed topology == requested" jqr '.runs[0].topology.match == true'
check "64 CPUs in 4 nodes seen by the guest" jqr '([.runs[0].topology.observed.nodes[].cpus[]] | length == 64) and (.runs[0].topology.observed.nodes | length == 4)'
check "lpj= passed, no AP calibration retries" jqr '.runs[0].kernel.cmdline | test("lpj=[0-9]+")'
ok $(grep -q 'calibrate_delay_direct() failed' "$tmp/r/run-0/console.log"; [ $? = 1 ] && echo 0 || echo 1) "console has no calibrate_delay failures"
check "TCG: tsc=reliable on the command line" jqr '.runs[0].kernel.cmdline | test("(^| )tsc=reliable( |$)")'
check "... so the guest keeps the TSC clocksource (no HPET fallback)" bash -c "grep -q 'clocksource: Switched to clocksource tsc' $tmp/r/run-0/console.log && ! grep -q 'Marking TSC unstable' $tmp/r/run-0/console.log"
check "TCG: serial CPU bring-up and maxcpus=2 on the command line" jqr '.runs[0].kernel.cmdline | test("(^| )cpuhp.parallel=0( |$)") and test("(^| )maxcpus=2( |$)")'
check "... the guest booted 2 CPUs and its agent onlined the other 62" jqr '.runs[0].guest.cpus_online | .present == 64 and .requested == 62 and .failed_count == 0 and .wall_s > 0'
check "... with load balancing off in the root cpuset meanwhile: scheduler domains built once" jqr '.runs[0].guest.cpus_online | .domains_batched == true and .rebuild_s >= 0 and .rebuild_s <= .wall_s'
check "the memory plan is in the report" jqr '.runs[0].host.memory | .guest_mib == 4096 and (.nodes | length == 4) and .nodes[0].vcpus == 16 and .need_mib <= .host_available_mib'

echo "# boot_s $(jq .runs[0].timings.boot_s "$tmp/r/report.json") first_workload_s $(jq .runs[0].timings.first_workload_s "$tmp/r/report.json") online_s $(jq .runs[0].guest.cpus_online.wall_s "$tmp/r/report.json") rebuild_s $(jq .runs[0].guest.cpus_online.rebuild_s "$tmp/r/report.json")"
no_qemu() { ! pgrep -f "guest=numalab-.*$LAB_STATE_DIR/libvirt" >/dev/null; }
check "no qemu left" no_qemu
finish
