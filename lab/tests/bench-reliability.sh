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
# Usage: lab/tests/bench-reliability.sh   (BENCH_PARTS=reliability lab/tests/bench.sh)
set -u
cd "$(dirname "$0")/../.."
. lab/tests/lib.sh
B=${B:-build}
lab=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
tmp=$(mktemp -d /tmp/numalab-bench-rel.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "== fuzzing throughput (${BENCH_FUZZ_S:-30} s a harness, fresh corpus)"
make -s fuzz-build >/dev/null || { echo "make fuzz-build failed" >&2; exit 1; }
FUZZ_SECONDS=${BENCH_FUZZ_S:-30} FUZZ_CORPUS="$tmp/corpus" bash lab/tests/fuzz.sh 2>&1 |
	grep -E '^#|^not ok' | sed 's/^# //'

echo "== peak RSS of lab run: a normal guest against guests that flood"
job() {
	jq -n --arg n "$1" --arg f "$2" \
		'{name: $n, topology: "4s-8c", kernel: {image: "/boot/vmlinuz-*"},
		  workloads: [{name: "pft", params: {memory_mib: 8}}],
		  debug: {fault: $f, channel_max_mib: 8, console_max_mib: 2}}' >"$tmp/$1.json"
}
peak() {
	local pid hwm t0
	t0=$(date +%s.%N)
	$lab run "$tmp/$1.json" --quiet-wait 0 --out "$tmp/out-$1" >/dev/null 2>&1 &
	pid=$!
	hwm=$(peak_rss $pid)
	wait $pid
	printf '%s %s %.1f\n' "$hwm" "$(jq -r '.runs[0].status + ": " + .runs[0].reason' \
		"$tmp/out-$1/report.json" 2>/dev/null | cut -c1-90)" \
		"$(echo "$(date +%s.%N) - $t0" | bc -l)"
}
job normal none
read -r base _ <<<"$(peak normal)"
printf '%-14s %8s KiB  1.00  (%s)\n' normal "$base" "the reference"
for f in flood-channel long-line flood-console; do
	job "$f" "$f"
	out=$(peak "$f")
	hwm=${out%% *}
	printf '%-14s %8s KiB  %.2f  (%s)\n' "$f" "$hwm" "$(echo "$hwm / $base" | bc -l)" "${out#* }"
done
