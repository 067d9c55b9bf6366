#!/usr/bin/env bash
# Integration: faults injected into real `lab run`s (libvirt's embedded driver, TCG, 4s-8c with
# a small pft), each ending as a clear outcome with the report kept:
#  - QEMU killed with SIGKILL mid-workload: that run infra-error (end qemu-failed) with the
#    console's last lines, the next repetition runs and is ok, no domain or QEMU left;
#  - a guest flooding or garbling what the host reads (debug faults flood-channel, long-line,
#    bad-utf8, deep-json, flood-console; lab/proto/fault.h): the lab lives, its peak RSS stays
#    within a bound a normal run justifies, the run is marked naming what the guest did;
#  - the disk filling up (a small tmpfs under --out): a clear error, the previous report.json
#    intact, exit 1;
#  - two `lab run`s on one state directory: the second refuses, naming the first one's pid.
# Covered elsewhere: `lab run` killed with SIGKILL (guests.sh, resume.sh); panic, hang, silent
# and no-boot guests (guests.sh); a cached kernel truncated or altered, found by its sha256
# and rebuilt, never booted (lab/tests/test_kernel_build.sh, on the fake kernel tree: the
# check is the same code path for every kernel `lab run` boots).
# The libvirt connection lost mid-run is provoked in pool.sh, where a second libvirt daemon is
# stopped under a running guest.  Here the lab opens libvirt's embedded driver (qemu:///embed,
# checked below): the driver runs inside the lab process, there is no daemon or socket whose
# loss the lab could outlive; QEMU going away is the loss that can happen, the SIGKILL case.
# The serial ports under TCG carry ~130 KB/s (measured: 64 MiB of channel flood took 8.6 min),
# so the flood jobs lower the host's bounds with debug.channel_max_mib/console_max_mib to
# 2 MiB (the same code path as the defaults, 64 and 32 MiB), and the long line is 2 MiB (over
# the 1 MiB a line may have; the host drops the rest byte by byte whatever its length).
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
jqr() { jq -e "$2" "$1/report.json"; }
mnt=$tmp/full
trap 'mountpoint -q "$mnt" && umount "$mnt"; rm -rf "$tmp"' EXIT
t_start=$(date +%s)

# A small job; with a fault and the host's bounds lowered (see above) when asked.
job() { # NAME [FAULT [CHANNEL_MIB CONSOLE_MIB]]
	jq -n --arg n "$1" --arg f "${2:-none}" --argjson c "${3:-64}" --argjson k "${4:-32}" \
		'{name: $n, topology: "4s-8c", kernel: {image: "/boot/vmlinuz-*"},
		  workloads: [{name: "pft", params: {memory_mib: 8}}],
		  debug: {fault: $f, channel_max_mib: $c, console_max_mib: $k}}' >"$tmp/$1.json"
}
# run_rss NAME OUT [ARGS...]: lab run of $tmp/NAME.json into OUT in the background, its pid
# in $tmp/NAME.pid, its peak RSS (VmHWM of the lab process, in KiB, sampled until it exits) in
# $hwm, exit status in $rc, wall seconds in $el.
run_rss() {
	local name=$1 out=$2 t0 pid
	shift 2
	t0=$(date +%s)
	$lab run "$tmp/$name.json" --quiet-wait 0 --out "$out" "$@" >"$tmp/$name.out" \
		2>"$tmp/$name.err" &
	pid=$!
	echo "$pid" >"$tmp/$name.pid"
	hwm=$(peak_rss $pid)
	wait $pid
	rc=$? el=$(( $(date +%s) - t0 ))
}
# Domains of this state directory libvirt still knows (none when the lab cleaned up).
domains() { virsh -c "qemu:///embed?root=$LAB_STATE_DIR/libvirt" list --all --name 2>/dev/null | grep -c .; }

# 1. A normal run onto a small tmpfs, with a second `lab run` on the same state directory
#    started while its guest runs; its peak RSS is the baseline of the flood runs'.
mkdir -p "$mnt"
mount -t tmpfs -o size=16m numalab-faults "$mnt"
ok $? "a 16 MiB tmpfs for the report"
# The helper knows the first run by the pid run_rss records, not by its command line: the
# lab's guard (lab/virt/guard.c) is a fork of it with the same command line, and once the pid
# counter wraps between the two (32768 pids on a 2-CPU machine; a cold suite wraps it many
# times) the guard has the lower pid, so `pgrep -f "lab run JOB" | head -1` named the guard,
# never saw a guest of that pid and started the second run after the first had ended.
job normal
job second
(
	seen=no
	for _ in $(seq 1 1200); do
		pid=$(cat "$tmp/normal.pid" 2>/dev/null)
		[ -n "$pid" ] && [ "$(guests_of "$pid")" -gt 0 ] && { seen=yes; break; }
		sleep 0.1
	done
	echo "$seen $pid" >"$tmp/first.pid"
	$lab run "$tmp/second.json" --quiet-wait 0 --out "$tmp/second" >"$tmp/second.out" \
		2>"$tmp/second.err"
	echo $? >"$tmp/second.rc"
) &
helper=$!
run_rss normal "$mnt/r"
wait $helper
normal_hwm=$hwm
echo "# normal run: ${el} s, peak RSS of lab run ${hwm} KiB"
ok "$(rc_is $rc 0)" "a normal run exits 0"
explain_runs "$mnt/r"
check "... its report on the tmpfs: ok" jqr "$mnt/r" '.status == "ok"'
check "... through libvirt's embedded driver (no connection to lose)" jqr "$mnt/r" '.runs[0].host.uri | startswith("qemu:///embed")'
read -r seen first <"$tmp/first.pid"
ok "$(rc_is "$seen" yes)" "the second lab run started while the first one's guest ran (pid $first)"
ok "$(rc_is "$(cat "$tmp/second.rc")" 4)" "a second lab run on the same state directory exits 4"
has "$tmp/second.err" "is in use by another lab process (pid $first)" "... naming the first one's pid ($first)"
diag "$tmp/second.err" | tail -1
check "... and writes no report" test ! -e "$tmp/second/report.json"

# 2. The disk fills up: the next report cannot be written.  The run's old console and channel
#    files go first: a new run removes them, which would free room for the report.
cp "$mnt/r/report.json" "$tmp/before.json"
rm -f "$mnt/r/run-0/console.log" "$mnt/r/run-0/results.jsonl"
dd if=/dev/zero of="$mnt/fill" bs=64k status=none 2>/dev/null
check "the tmpfs is full" test "$(df --output=avail "$mnt" | tail -1)" -lt 64
run_rss normal "$mnt/r"
ok "$(rc_is $rc 4)" "lab run onto a full disk exits 4"
has "$tmp/normal.err" "cannot write $mnt/r/report.json: No space left on device" "... saying it cannot write the report and why"
diag "$tmp/normal.err" | tail -2
check "... the previous report.json intact" cmp "$mnt/r/report.json" "$tmp/before.json"
check "... no temporary file left beside it" sh -c "! ls '$mnt/r' | grep -q tmp"
check "no qemu left after the full disk" no_qemu
umount "$mnt"

# 3. QEMU killed with SIGKILL while the workload runs, in run 1 of 2.
jq '.repeats = 2 | .workloads[0].params.memory_mib = 64' "$tmp/normal.json" >"$tmp/kill.json"
$lab run "$tmp/kill.json" --quiet-wait 0 --out "$tmp/kill" >"$tmp/kill.out" 2>"$tmp/kill.err" &
pid=$!
qpid=
for _ in $(seq 1 3000); do
	if grep -q '"t":"workload-start"' "$tmp/kill/run-0/results.jsonl" 2>/dev/null; then
		qpid=$(pgrep -f "guest=numalab-$pid-0" | head -1)
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.05
done
ok "$([ -n "$qpid" ] && echo 0 || echo 1)" "run 1's QEMU found by its domain name (numalab-$pid-0) while the workload runs"
[ -n "$qpid" ] && kill -9 "$qpid"
wait $pid
ok "$(rc_is $? 3)" "lab run exits 3 (a run failed)"
check "run 1: infra-error, end qemu-failed" jqr "$tmp/kill" '.runs[0].status == "infra-error" and .runs[0].end == "qemu-failed"'
jq -r '"# run 1: " + .runs[0].reason' "$tmp/kill/report.json"
check "... the reason says QEMU exited while the guest ran" jqr "$tmp/kill" '.runs[0].reason | test("QEMU exited while the guest ran")'
check "... the console's last lines in the report" jqr "$tmp/kill" '.runs[0].console_excerpt | test("numalab-agent: workload 0 \\(pft\\): starting")'
check "run 2 ran and is ok" jqr "$tmp/kill" '.runs[1].status == "ok"'
explain_runs "$tmp/kill"
check "no qemu left after QEMU was killed" no_qemu
ok "$(rc_is "$(domains)" 0)" "no domain left in the state directory's libvirt (virsh list --all)"

# 4. Hostile guests: each sends its flood, then goes on with its job.
bound=$((normal_hwm + 20 * 1024))
echo "# RSS bound for the floods: the normal run's ${normal_hwm} KiB + 20 MiB (a 1 MiB line buffer, the console's read tail, allocator slack)"
hostile() { # FAULT END REASON-REGEX [CHANNEL_MIB CONSOLE_MIB]
	local f=$1 end=$2 re=$3
	job "$f" "$f" "${4:-64}" "${5:-32}"
	run_rss "$f" "$tmp/$f"
	echo "# $f: ${el} s, peak RSS of lab run ${hwm} KiB (normal ${normal_hwm} KiB)"
	ok "$(rc_is $rc 3)" "$f: the lab lives and exits 3"
	check "$f: report written, run workload-failure, end $end" jqr "$tmp/$f" ".runs[0].status == \"workload-failure\" and .runs[0].end == \"$end\""
	jq -r '"# " + .runs[0].reason' "$tmp/$f/report.json" 2>/dev/null
	check "$f: the reason names what the guest did" jqr "$tmp/$f" ".runs[0].reason | test(\"$re\")"
	ok "$([ "$hwm" -gt 0 ] && [ "$hwm" -le "$bound" ] && echo 0 || echo 1)" "$f: peak RSS ${hwm} KiB within the bound ${bound} KiB"
	check "$f: no qemu left" no_qemu
}
hostile flood-channel channel-overflow "more than 2 MiB on the results channel" 2 32
hostile long-line stopped "0 invalid line\\\\(s\\\\) and 1 line\\\\(s\\\\) over 1024 KiB"
check "long-line: the rest of the job still reported (pft ran)" jqr "$tmp/long-line" '.runs[0].workloads[0].exit == 0 and .runs[0].guest.done'
hostile bad-utf8 stopped "[1-9][0-9]* invalid line\\\\(s\\\\)"
check "bad-utf8: counted in guest.bad_lines" jqr "$tmp/bad-utf8" '.runs[0].guest.bad_lines > 0'
hostile deep-json stopped "16 invalid line\\\\(s\\\\)"
hostile flood-console console-overflow "more than 2 MiB to its console" 64 2
check "flood-console: the console file stopped near its bound" test "$(stat -c %s "$tmp/flood-console/run-0/console.log")" -lt $((3 << 20))

reports=$(find "$tmp" -name report.json | sort)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "all $(echo "$reports" | wc -l) reports validate against reports/report.schema.json"
grep '^not ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'
echo "# faults.sh wall time: $(( $(date +%s) - t_start )) s"
finish
