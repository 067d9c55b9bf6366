#!/usr/bin/env bash
# Integration: guest disk images (images/debian-perf.json) built with mmdebstrap + libguestfs,
# booted by `lab run` from a throw-away overlay, and the post-mortem of a run that panicked.
# The image is cached outside the checkout ($LAB_IMAGE_CACHE, default
# /var/cache/numalab/images), so only the first run on a host builds it (~2-3 min under TCG);
# later runs take about a minute.  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
lab=${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-it-image.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
jqr() { jq -e "$2" "$1/report.json"; }
# Other labs may share the host: only the guests of one lab process (numalab-PID-N) count.
no_qemu_of() { ! pgrep -f "guest=numalab-$1-" >/dev/null; }
run_lab() { "$lab" run "$@" & lab_pid=$!; wait $lab_pid; }
# Nothing of a build may be left in a cache but the lock file.
cache_clean() { [ -z "$(find "$1" -mindepth 1 -maxdepth 1 ! -name .lock 2>/dev/null)" ]; }

# 1. The image: built once per host, then a cache hit.
$lab image build debian-perf >"$tmp/build.out" 2>"$tmp/build.err"
ok $? "lab image build debian-perf exits 0"
base=$(tail -1 "$tmp/build.out")
check "it prints the cached base image" test -f "$base"
check "the base image is read-only" test ! -w "$base" -o "$(stat -c %a "$base")" = 444
start=$(date +%s.%N)
$lab image build debian-perf >"$tmp/build2.out" 2>"$tmp/build2.err"
rc=$? el=$(echo "$(date +%s.%N) - $start" | bc)
ok $rc "a second build is a cache hit (${el} s)"
check "... with the same image" test "$(tail -1 "$tmp/build2.out")" = "$base"
check "... and builds nothing" bash -c "! grep -q 'building it' $tmp/build2.err"
check "lab image list shows it" bash -c "$lab image list | grep -q '^debian-perf '"
sum_before=$(stat -c '%s %Y' "$base")

# 2. A run from the disk: the agent runs from /dev/vda1, the report is complete.
run_lab lab/tests/data/jobs/image-ok.json --out "$tmp/ok" >"$tmp/ok.out" 2>"$tmp/ok.err"
ok $? "image job exits 0"
r="$tmp/ok"
explain_runs "$r"
check "status ok" jqr "$r" '.status == "ok" and .runs[0].status == "ok"'
check "the agent ran from the image's disk (hello: root /dev/vda1, ext4)" \
	jq -e -s 'map(select(.t == "hello"))[0].root == {"source": "/dev/vda1", "fstype": "ext4"}' "$r/run-0/results.jsonl"
check "stage 1 handed over to the disk's init" grep -aq "running from the image's disk" "$r/run-0/console.log"
check "report names the image" jq -e --arg b "$base" '.runs[0].image | .recipe == "debian-perf" and .base == $b and .root == "/dev/vda1" and (.key | length == 64)' "$r/report.json"
check "observed topology == requested" jqr "$r" '.runs[0].topology.match == true'
check "pft results with faults/s" jqr "$r" '.runs[0].workloads[0].results[0].metrics.faults_per_s.value > 0'
check "perf stat counters next to them (page-faults, task-clock)" jqr "$r" '.runs[0].workloads[0].perf_stat.counters | .["page-faults"].value > 0 and .["task-clock"].unit == "msec"'
check "timings and guest complete" jqr "$r" '.runs[0] | .timings.boot_s > 0 and .timings.first_workload_s >= .timings.boot_s and .timings.total_s > 0 and .guest.done == true'
check "no post-mortem for a run that ended ok" jqr "$r" '.runs[0] | has("postmortem") | not'
check "the run's overlay is thrown away" test ! -e "$r/run-0/overlay.qcow2"
check "the base image did not change" test "$(stat -c '%s %Y' "$base")" = "$sum_before"
check "no qemu left after the image run" no_qemu_of $lab_pid

# 3. A panic after the workloads: the partial results come back through the post-mortem.
# The guest once hung in CI before the fault instead (idle, RCU stall warnings at 1639 s of
# guest uptime where a run panics at 3 s; the test took 1918 s where it takes about 140; not
# reproduced, cause unknown): not the post-mortem, which is what this part tests.  So a run
# that ends in another outcome is said, with its console, and run once more; a second one
# fails the checks below.
panic_run() {
	run_lab lab/tests/data/jobs/image-panic.json --out "$1" >"$1.out" 2>&1
	panic_rc=$?
	[ "$(jq -r '.runs[0].status' "$1/report.json" 2>/dev/null)" = panic ] && return 0
	# Say what it was: a CI log is all there is to go on.
	jq -r '.runs[0] | "# status \(.status): \(.reason // "")"' "$1/report.json" 2>/dev/null
	grep -a -m 20 -E 'stall|unstable|Switched to clocksource|soft lockup|blocked for more' "$1/run-0/console.log" 2>/dev/null |
		sed 's/^/# console: /'
	tail -15 "$1/run-0/console.log" 2>/dev/null | sed 's/^/# console: /'
	return 1
}
p="$tmp/panic"
if ! panic_run "$p"; then
	echo "# the panic job did not panic (above); running it once more"
	p="$tmp/panic-again"
	panic_run "$p"
fi
ok $([ $panic_rc = 3 ] && echo 0 || echo 1) "panic job exits 3"
check "status panic" jqr "$p" '.runs[0].status == "panic"'
check "post-mortem ran and mounted the overlay" jqr "$p" '.runs[0].postmortem.ok == true and .runs[0].postmortem.dir == "run-0/postmortem"'
check "the report lists the agent's log and results" jqr "$p" '[.runs[0].postmortem.files[].path] | contains(["/numalab/out/agent.log", "/numalab/out/results.jsonl"])'
check "... and the files the job listed" jqr "$p" '[.runs[0].postmortem.files[].path] | index("/etc/motd") != null'
check "... and what could not be recovered, with why" jqr "$p" '.runs[0].postmortem.missing == [{"path": "/var/log/numalab-no-such.log", "reason": "no such file"}]'
check "recovered files are in the report directory" test -s "$p/run-0/postmortem/numalab/out/results.jsonl"
check "the recovered results hold the workload's result" \
	jq -e -s 'map(select(.t == "workload"))[0].output.results[0].metrics.faults_per_s.value > 0' "$p/run-0/postmortem/numalab/out/results.jsonl"
check "the recovered log shows the fault" grep -q 'fault=panic' "$p/run-0/postmortem/numalab/out/agent.log"
check "the report summarises the recovered results" jqr "$p" '.runs[0].postmortem.results | .hello == true and .workloads_reported == 1 and .done == false'
check "the overlay is thrown away after the post-mortem" test ! -e "$p/run-0/overlay.qcow2"
check "the base image still did not change" test "$(stat -c '%s %Y' "$base")" = "$sum_before"
check "no qemu left after the panic" no_qemu_of $lab_pid

# 4. Bad recipes: a clear error naming the problem, exit 2, nothing left in the cache.
LAB_IMAGE_CACHE="$tmp/cache1" $lab image build lab/tests/data/images/bad-package.json >/dev/null 2>"$tmp/badpkg.err"
ok $([ $? = 2 ] && echo 0 || echo 1) "unknown package: exit 2"
check "... the error names it and its JSON path" grep -q 'packages\[1\]: unknown package "numalab-no-such-package" in bookworm' "$tmp/badpkg.err"
check "... nothing left in the cache" cache_clean "$tmp/cache1"
LAB_IMAGE_CACHE="$tmp/cache2" $lab image build lab/tests/data/images/missing-file.json >/dev/null 2>"$tmp/nofile.err"
ok $([ $? = 2 ] && echo 0 || echo 1) "missing file: exit 2"
check "... the error names the file and its JSON path" grep -q 'files\[0\].src: cannot read .*no-such-file.txt: No such file or directory' "$tmp/nofile.err"
check "... nothing left in the cache" cache_clean "$tmp/cache2"
LAB_IMAGE_CACHE="$tmp/cache3" $lab run lab/tests/data/jobs/image-bad-recipe.json --out "$tmp/badrun" >/dev/null 2>"$tmp/badrun.err"
ok $([ $? = 2 ] && echo 0 || echo 1) "lab run with that recipe: exit 2"
check "... naming the package" grep -q 'unknown package "numalab-no-such-package"' "$tmp/badrun.err"
check "... writing nothing" test ! -e "$tmp/badrun"
check "... nothing in the cache" cache_clean "$tmp/cache3"

reports=$(find "$tmp" -name report.json | sort)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "the image reports validate against reports/report.schema.json"
grep '^not ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'

finish
