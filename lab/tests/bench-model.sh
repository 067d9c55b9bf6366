#!/usr/bin/env bash
# Benchmark of the contention model's cost (not a test: nothing passes or fails here).  One
# guest (lab/tests/data/jobs/quantum-one.json: 4s-8c, mmap_contention 4 tasks + 1 mapper, 1 s)
# booted ROUNDS times under each timing model, tcg, icount, quantum (Q = QUANTUM, default
# the lab's) and quantum with the NUMA cost model (the job plus "numa_cost": "wsm-ex-4s", the
# plugin's default tier) and quantum with the instruction profile (the job plus "profile": true),
# each boot alone with its own seed.  Prints the median wall seconds a boot, the ratios quantum /
# icount, quantum / tcg, numa / quantum and profile / quantum, and each model's
# faults/s (the model changes the figure: under icount the threads take turns).  Numbers from this one run; the QEMU build is
# not timed (`lab qemu build` first, or the first quantum boot pays for it: said when it did).
# A boot that did not end ok fails the part: it says which and why, prints no figure from it
# and exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-model.sh [ROUNDS]   (default 3; QUANTUM=Q)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
job=lab/tests/data/jobs/quantum-one.json
rounds=${1:-3}
tmp=$(mktemp -d /tmp/numalab-bench-model.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "timing models' cost: $job, $rounds boot(s) each, one at a time"
if ! "$B"/lab qemu path >/dev/null 2>&1; then
	echo "  (the lab's QEMU is not built: the first quantum boot builds it; that boot's time is left out)"
	lab_run "$tmp/warm" "the quantum boot that builds QEMU" "$job" --timing quantum --quiet-wait 0 || bench_exit
fi
# The same job with the NUMA cost model, beside the original so that its topology name resolves
# the same way.
numa_job=lab/tests/data/jobs/.quantum-one-numa.$$.json
jq '. + {"numa_cost": "wsm-ex-4s"}' "$job" >"$numa_job"
prof_job=lab/tests/data/jobs/.quantum-one-profile.$$.json
jq '. + {"profile": true}' "$job" >"$prof_job"
trap 'rm -rf "$tmp" "$numa_job" "$prof_job"' EXIT
declare -A wall fps
for m in tcg icount quantum numa profile; do
	j=$job t=$m
	[ "$m" = numa ] && j=$numa_job t=quantum
	[ "$m" = profile ] && j=$prof_job t=quantum
	args=(--timing "$t" --quiet-wait 0)
	[ "$t" = quantum ] && [ -n "${QUANTUM:-}" ] && args+=(--quantum "$QUANTUM")
	ws=() fs=()
	for r in $(seq 1 "$rounds"); do
		lab_run "$tmp/$m-$r" "the $m boot $r" "$j" "${args[@]}" --seed "$((1000 + r))" || bench_exit
		f=$(jq -r '.runs[0].workloads[0].results[0].metrics.faults_per_s.value' "$tmp/$m-$r/report.json")
		bench_num "the $m boot $r" faults/s "$f" || bench_exit
		ws+=("$secs") fs+=("$f")
	done
	wall[$m]=$(printf '%s\n' "${ws[@]}" | median)
	fps[$m]=$(printf '%s\n' "${fs[@]}" | median)
	printf '  %-8s %7.1f s a boot (median of %d), faults/s %.4g (median)\n' "$m" "${wall[$m]}" \
		"$rounds" "${fps[$m]}"
done
printf '  host time a boot, quantum / icount: %.2f; quantum / tcg: %.2f; numa / quantum: %.2f; profile / quantum: %.2f\n' \
	"$(echo "${wall[quantum]} / ${wall[icount]}" | bc -l)" "$(echo "${wall[quantum]} / ${wall[tcg]}" | bc -l)" \
	"$(echo "${wall[numa]} / ${wall[quantum]}" | bc -l)" "$(echo "${wall[profile]} / ${wall[quantum]}" | bc -l)"
printf '  host: %s CPUs, load %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
bench_exit
