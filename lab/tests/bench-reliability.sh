#!/usr/bin/env bash
# Benchmark (not a test): issue 18's figures, measured in one run.
#  1. Fuzzing throughput: every libFuzzer harness (lab/fuzz/) for BENCH_FUZZ_S seconds
#     (default 30) on a fresh corpus seeded from the test data: executions per second and
#     coverage, as lab/tests/fuzz.sh prints them.
#  2. Peak RSS of `lab run` (VmHWM of the lab process, sampled every 0.2 s) for a normal run
#     and for guests that flood the results channel (8 MiB, the channel's bound lowered with
#     debug.channel_max_mib so that it ends in about a minute under TCG's serial speed: the
#     same code path as the 64 MiB default), send one 2 MiB line, or flood the console (2 MiB:
#     at the serial port's ~130 KB/s a bigger flood keeps the agent from its heartbeats
#     until the progress timeout calls the run a hang first); each as a ratio to the normal
#     run's.
# A harness that crashed, a normal run that did not end ok, or a flood that did not end as the
# lab ends it (exit 3, workload-failure, the flood's end: lab/tests/integration/faults.sh) is
# said instead of its figure; the part exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-reliability.sh   (BENCH_PARTS=reliability lab/tests/bench.sh)
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/benchlib.sh
B=${B:-build}
lab=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
tmp=$(mktemp -d /tmp/numalab-bench-rel.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "== fuzzing throughput (${BENCH_FUZZ_S:-30} s a harness, fresh corpus)"
make -s fuzz-build >/dev/null || { bench_fail "make fuzz-build" "see its errors above"; bench_exit; }
FUZZ_SECONDS=${BENCH_FUZZ_S:-30} FUZZ_CORPUS="$tmp/corpus" bash lab/tests/fuzz.sh >"$tmp/fuzz.out" 2>&1
# A harness's stats line, "# fuzz_NAME ...", then its check; a harness whose check failed
# (a crash, a leak, a timeout: its run stopped early) gets no throughput figure.
: >"$tmp/fuzz.failed"
for h in $(sed -n 's/^not ok [0-9]* - \(fuzz_[a-z0-9_]*\):.*/\1/p' "$tmp/fuzz.out"); do
	bench_fail "$h" "$(grep -m1 -E "^not ok [0-9]* - $h:" "$tmp/fuzz.out" | sed 's/^not ok [0-9]* - //')"
	grep -A3 -E "^not ok [0-9]* - $h:" "$tmp/fuzz.out" | grep '^# ' | sed 's/^# /    /' >&2
	echo "$h" >>"$tmp/fuzz.failed"
done
grep -E '^# fuzz_' "$tmp/fuzz.out" | grep -vwF -f "$tmp/fuzz.failed" | sed 's/^# //'

echo "== peak RSS of lab run: a normal guest against guests that flood"
job() {
	jq -n --arg n "$1" --arg f "$2" \
		'{name: $n, topology: "4s-8c", kernel: {image: "/boot/vmlinuz-*"},
		  workloads: [{name: "pft", params: {memory_mib: 8}}],
		  debug: {fault: $f, channel_max_mib: 8, console_max_mib: 2}}' >"$tmp/$1.json"
}
# peak NAME END: lab run of $tmp/NAME.json, its peak RSS in $hwm (KiB), its outcome in
# $outcome.  Returns 1 (said) unless it ended as it must: END "ok" for the normal run, else
# exit 3, workload-failure and that end.
peak() {
	local pid rc=0 t0 d=$tmp/out-$1
	t0=$(now)
	$lab run "$tmp/$1.json" --quiet-wait 0 --out "$d" >"$d.out" 2>"$d.err" &
	pid=$!
	hwm=$(peak_rss $pid)
	wait $pid || rc=$?
	if [ "$2" = ok ]; then
		lab_ok "$rc" "$d" "the $1 run" "$d.err" || return 1
	elif [ "$rc" != 3 ] || ! jq -e --arg e "$2" '.runs[0].status == "workload-failure" and .runs[0].end == $e' \
		"$d/report.json" >/dev/null 2>&1; then
		bench_fail "the $1 run" "lab exited $rc, not 3 with workload-failure ($2): $(jq -r \
			'.runs[0] | "\(.status) (\(.end)): \(.reason)"' "$d/report.json" 2>/dev/null || echo 'no report')"
		return 1
	fi
	bench_num "the $1 run" "peak RSS" "$hwm" || return 1
	outcome=$(printf '%s %.1f' "$(jq -r '.runs[0].status + ": " + .runs[0].reason' "$d/report.json" | cut -c1-90)" \
		"$(echo "$(now) - $t0" | bc -l)")
}
job normal none
peak normal ok || bench_exit
base=$hwm
printf '%-14s %8s KiB  1.00  (%s)\n' normal "$base" "the reference"
for f in flood-channel:channel-overflow long-line:stopped flood-console:console-overflow; do
	job "${f%%:*}" "${f%%:*}"
	peak "${f%%:*}" "${f#*:}" || continue
	printf '%-14s %8s KiB  %.2f  (%s)\n' "${f%%:*}" "$hwm" "$(echo "$hwm / $base" | bc -l)" "$outcome"
done
bench_exit
