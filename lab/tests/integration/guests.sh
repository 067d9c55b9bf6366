#!/usr/bin/env bash
# Integration: real libvirt guests (embedded driver, TCG on this host class) through `lab run`.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
jqr() { jq -e "$2" "$1/report.json"; }

# A fresh state directory: libvirt probes QEMU's capabilities on the first connection, and the
# lab, as subreaper, must reap the probe processes at once (lab/virt/reap.h); left as zombies
# each held the connection for 40 s (2 min 43 s in all, libvirt logging "Failed to terminate").
t0=$(date +%s.%N)
$lab doctor --state "$tmp/fresh" >"$tmp/fresh.out" 2>&1
t1=$(date +%s.%N)
echo "# lab doctor on a fresh state directory: $(echo "$t1 - $t0" | bc -l | cut -c1-5) s"
probes_reaped() { [ -d "$tmp/fresh/libvirt" ] && ! grep -q 'Failed to terminate process' "$tmp/fresh/libvirt.log"; }
# ... but never before libvirt waited for its own child: that fails the probe (ECHILD).
probes_ok() { ! grep -q 'Failed to probe capabilities' "$tmp/fresh/libvirt.log"; }
no_zombie() { ! ps -eo stat,comm | grep -q '^Z.*qemu'; }
no_probe_left() { ! pgrep -f "qemu-system.*$tmp/fresh" >/dev/null; }
check "fresh state dir: libvirt's capability probes are reaped (no 'Failed to terminate' in its log)" probes_reaped
check "fresh state dir: every capability probe succeeded (no 'Failed to probe' in its log)" probes_ok
check "fresh state dir: no zombie QEMU left behind" no_zombie
check "fresh state dir: no probe QEMU left running" no_probe_left
# A kvm-pvm host (doctor says so, from /sys/module): KVM runs PVM guests only, so the lab's
# kernels run under TCG, decided without the 12 s KVM probe (lab/run/accel.c).
pvm=0
grep -qE '^ok +kvm +KVM via kvm-pvm' "$tmp/fresh.out" && pvm=1
if [ $pvm = 1 ]; then
	has "$tmp/fresh.out" "CONFIG_PVM_GUEST=y" "kvm-pvm host: doctor says what a guest kernel would need"
	$lab doctor --probe --state "$tmp/fresh" >"$tmp/pvm.out" 2>&1
	ok $? "kvm-pvm host: doctor --probe passes (TCG here is no problem)"
	has "$tmp/pvm.out" "--probe boots none" "... says it boots no probe"
	check "... and boots none (no kvm-probe directory)" test ! -e "$tmp/fresh/kvm-probe"
fi

$lab doctor --state "$tmp/fresh" --json >"$tmp/doctor.json" 2>"$tmp/doctor.err"
check "lab doctor --json: every check an object with check, ok, says, and the whole ok" \
	jq -e '(.checks | length > 5) and all(.checks[]; has("check") and (.ok | type) == "boolean" and has("says")) and (.ok | type) == "boolean"' "$tmp/doctor.json"

# quick.json: ok, and the guest sees what was asked for.
$lab run configs/quick.json --out "$tmp/quick" --json >"$tmp/quick.out" 2>"$tmp/quick.err"
ok $? "quick.json exits 0"
r="$tmp/quick"
explain_runs "$r"
check "report schema numalab.report/1, status ok" jqr "$r" '.schema == "numalab.report/1" and .status == "ok"'
check "run status ok with a reason" jqr "$r" '.runs[0].status == "ok" and (.runs[0].reason | length > 0)'
check "observed topology == requested" jqr "$r" '.runs[0].topology.match == true and (.runs[0].topology.mismatches | length == 0)'
check "4 nodes, 8 CPUs seen by the guest" jqr "$r" '[.runs[0].topology.observed.nodes[].cpus[]] | length == 8'
check "distances seen by the guest" jqr "$r" '.runs[0].topology.observed.distances == .runs[0].topology.requested.distances'
check "memory within 5% per node" jqr "$r" '[.runs[0].topology as $t | range(4) as $i | (($t.observed.nodes[$i].memory_mib - $t.requested.nodes[$i].memory_mib) | fabs) / $t.requested.nodes[$i].memory_mib <= 0.05] | all'
check "host accel and versions recorded" jqr "$r" '.runs[0].host | (.accel == "tcg" or .accel == "kvm") and (.accel_reason | length > 0) and (.qemu_version | test("^[0-9]+\\.")) and (.libvirt_version | test("^[0-9]+\\."))'
[ $pvm = 1 ] && check "kvm-pvm host: tcg, the reason names /sys/module/kvm_pvm and CONFIG_PVM_GUEST" jqr "$r" '.runs[0].host | .accel == "tcg" and (.accel_reason | test("/sys/module/kvm_pvm.*CONFIG_PVM_GUEST=y"))'
check "kernel release from the guest" jqr "$r" '.runs[0].kernel.release | length > 0'
# Every results line of a healthy run is one the host knows and accepts (lab/proto/channel.c).
check "no results line ignored (guest.bad_lines 0)" jqr "$r" '.runs[0].guest.bad_lines == 0'
check "pft faults/s per task count, with unit and direction" jqr "$r" '.runs[0].workloads[0].results[0] | .tasks == 8 and .metrics.faults_per_s.value > 0 and .metrics.faults_per_s.unit == "faults/s" and .metrics.faults_per_s.better == "higher"'
check "timings recorded" jqr "$r" '.runs[0].timings | .boot_s > 0 and .total_s >= .boot_s and .workload_s >= 0'
check "console log kept" test -s "$r/run-0/console.log"
check "--json: the summary as JSON naming the report, 1 run of 1 ok" \
	jq -e --arg r "$r/report.json" '.report == $r and .runs == 1 and .ok == 1 and .planned == 1 and .status == "ok"' "$tmp/quick.out"
check "the report names the lab that wrote it (lab --version)" jqr "$r" \
	".lab.version == \"$($lab --version | sed -E 's/^lab ([^ ]+) .*/\1/')\" and (.lab.commit | length > 6)"
check "no qemu left after quick" no_qemu

# A guest that panics.
$lab run lab/tests/data/jobs/panic.json --out "$tmp/panic" >/dev/null 2>&1
ok $([ $? = 3 ] && echo 0 || echo 1) "panic job exits 3"
check "status panic" jqr "$tmp/panic" '.status == "panic" and .runs[0].status == "panic"'
check "panic lines in the report" jqr "$tmp/panic" '.runs[0].console_excerpt | test("Kernel panic - not syncing")'
check "no qemu left after panic" no_qemu

# A guest that hangs after the agent started: caught by the progress timeout (5 s).  This and
# the kill tests time the lab itself: --quiet-wait 0, no waiting for a quiet host first.
start=$(date +%s)
$lab run lab/tests/data/jobs/hang.json --quiet-wait 0 --out "$tmp/hang" >/dev/null 2>&1
rc=$? el=$(( $(date +%s) - start ))
ok $([ $rc = 3 ] && echo 0 || echo 1) "hang job exits 3"
check "status hang" jqr "$tmp/hang" '.runs[0].status == "hang" and .runs[0].end == "progress-timeout"'
# An idle hung guest uses little host CPU, so it is ended by the starved cap, 3 timeouts.
check "the silence and the guest's CPU in it are reported" jqr "$tmp/hang" '.runs[0].timings | .silence_s >= 5 and .silence_s < 17 and .silence_cpu_s >= 0'
check "... and named in the reason" jqr "$tmp/hang" '.runs[0].reason | test("no progress from the guest for [0-9]+ s \\(timeout 5 s; the guest had [0-9.]+ s of host CPU in it\\)")'
ok $([ $el -lt 90 ] && echo 0 || echo 1) "hang caught in ${el}s (< 90 s)"
check "no qemu left after hang" no_qemu

# A guest that does not reach the agent within its boot timeout.
$lab run lab/tests/data/jobs/noboot.json --out "$tmp/noboot" >/dev/null 2>&1
ok $([ $? = 3 ] && echo 0 || echo 1) "no-boot job exits 3"
check "status boot-failure" jqr "$tmp/noboot" '.runs[0].status == "boot-failure" and .runs[0].end == "boot-timeout"'
check "no qemu left after boot-failure" no_qemu

# A kernel that prints nothing (loglevel=0) looks like a hung boot to the console watch.
$lab run lab/tests/data/jobs/silent.json --out "$tmp/silent" >/dev/null 2>&1
ok $([ $? = 3 ] && echo 0 || echo 1) "silent-console job exits 3"
check "status boot-failure, end boot-silent" jqr "$tmp/silent" '.runs[0].status == "boot-failure" and .runs[0].end == "boot-silent" and (.runs[0].reason | test("console was silent for 2 s"))'
check "... caught long before the boot timeout" jqr "$tmp/silent" '.runs[0].timings.total_s < 30'
check "no qemu left after a silent boot" no_qemu

# A bad job: exit 2, the JSON path in the message, nothing written.
$lab run lab/tests/data/jobs/bad-memory.json --out "$tmp/bad" >/dev/null 2>"$tmp/bad.err"
ok $([ $? = 2 ] && echo 0 || echo 1) "bad job exits 2"
check "error names the JSON path" grep -q 'topology.nodes\[1\].memory_mib: must be a positive integer' "$tmp/bad.err"
check "bad job writes nothing" test ! -e "$tmp/bad"
# The memory plan: a guest bigger than the host is a job error before anything boots.
$lab run lab/tests/data/jobs/too-big.json --out "$tmp/big" >/dev/null 2>"$tmp/big.err"
ok $([ $? = 2 ] && echo 0 || echo 1) "a guest bigger than the host's memory exits 2"
check "... naming the topology and the numbers" grep -q "topology: the guest does not fit in this host's memory: it needs [0-9]* MiB (guest RAM 8388608 MiB on 2 nodes" "$tmp/big.err"
check "... writing nothing" test ! -e "$tmp/big"

# The lab killed with SIGKILL mid-run: the guard process takes the guest down.
$lab run configs/quick.json --quiet-wait 0 --out "$tmp/killed" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do pgrep -f "guest=numalab-$pid-" >/dev/null && break; sleep 0.1; done
check "guest running before the kill" pgrep -f "guest=numalab-$pid-"
kill -9 $pid; wait $pid 2>/dev/null
for _ in $(seq 1 50); do pgrep -f "guest=numalab-$pid-" >/dev/null || break; sleep 0.1; done
check "no qemu left after SIGKILL of lab" no_qemu

# SIGINT mid-run: the guest is destroyed and the report says so.
$lab run configs/quick.json --quiet-wait 0 --out "$tmp/int" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do pgrep -f "guest=numalab-$pid-" >/dev/null && break; sleep 0.1; done
kill -INT $pid; wait $pid
ok $([ $? = 3 ] && echo 0 || echo 1) "SIGINT: lab exits 3"
check "SIGINT: run recorded as infra-error" jqr "$tmp/int" '.runs[0].status == "infra-error" and (.runs[0].reason | test("signal"))'
check "no qemu left after SIGINT" no_qemu

# Every report written above validates against reports/report.schema.json.
reports=$(find "$tmp" -name report.json | sort)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "all $(echo "$reports" | wc -l) reports validate against reports/report.schema.json"
grep '^not ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'
# One boot a side cannot decide anything: undecided (exit 3), never a silent pass.
$lab compare "$tmp/quick" "$tmp/quick" >"$tmp/cmp.out" 2>&1
ok $([ $? = 3 ] && echo 0 || echo 1) "lab compare reads a real report (quick against itself, one boot a side: undecided, exit 3)"
has "$tmp/cmp.out" "insufficient-data" "... and says the data is insufficient"
check "lab report makes a dashboard of all of them" $lab report $reports -o "$tmp/dashboard.html"

finish
