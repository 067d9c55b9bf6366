#!/usr/bin/env bash
# Slurm: what handing a job to Slurm costs (labd --backend slurm on a one-node cluster on
# localhost, lab/tests/slurm-cluster.sh) against labd's local worker and against `lab run`:
# configs/quick.json ROUNDS times each way, alternated, each through `lab job submit --wait`
# (or `lab run`), and Slurm's own submit -> start latency from squeue (whole seconds).  The
# node's state directory is the lab's own (--slurm-node-state), so the three ways share the KVM
# verdict and the kernel cache and differ only in how the job reaches `lab run`.
# Figures, not verdicts: a job that failed any way ends the part (lab/tests/benchlib.sh).
# Needs root and Slurm (make deps installs slurmctld, slurmd, slurm-client and munge).
# Usage: lab/tests/bench-slurm.sh [ROUNDS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
rounds=${1:-3}
tmp=$(mktemp -d /tmp/numalab-bench-slurm.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	lab/tests/slurm-cluster.sh stop "$tmp/cluster"
	rm -rf "$tmp"
}
trap cleanup EXIT
labd_on() { # labd_on NAME ARGS...: a labd on $tmp/NAME.sock, waits for its API
	$B/labd --state "$tmp/$1" --socket "$tmp/$1.sock" "${@:2}" 2>>"$tmp/$1.log" &
	pids+=($!)
	for _ in $(seq 100); do
		curl -s --unix-socket "$tmp/$1.sock" http://labd/v1/health >/dev/null && return 0
		sleep 0.1
	done
	bench_fail "labd ($1)" "did not answer"; bench_exit
}

SLURM_CONF=$(lab/tests/slurm-cluster.sh start "$tmp/cluster" numalab-bench 2>"$tmp/cluster.err") ||
	{ bench_fail "the one-node Slurm cluster" "$(tail -1 "$tmp/cluster.err")"; bench_exit; }
export SLURM_CONF
labd_on local
labd_on slurm --backend slurm --slurm-node-state "$LAB_STATE_DIR"
: >"$tmp/t-direct"; : >"$tmp/t-local"; : >"$tmp/t-slurm"
for r in $(seq "$rounds"); do
	lab_run "$tmp/d$r" "lab run of quick.json, round $r" configs/quick.json || bench_exit
	echo "$secs" >>"$tmp/t-direct"
	timed_ok "quick.json through labd's local worker, round $r" "$tmp/l$r" \
		$B/lab job submit configs/quick.json --wait --socket "$tmp/local.sock" || bench_exit
	echo "$secs" >>"$tmp/t-local"
	timed_ok "quick.json through labd and Slurm, round $r" "$tmp/s$r" \
		$B/lab job submit configs/quick.json --wait --socket "$tmp/slurm.sock" || bench_exit
	echo "$secs" >>"$tmp/t-slurm"
done
# Slurm's submit -> start of each job, and its start -> end beside lab run's own wall time.
squeue --json --states=all --me | jq -r '.jobs[] | "\(.start_time - .submit_time) \(.end_time - .start_time)"' >"$tmp/sq"
d=$(median <"$tmp/t-direct") l=$(median <"$tmp/t-local") s=$(median <"$tmp/t-slurm")
wait_s=$(cut -d' ' -f1 "$tmp/sq" | median)
printf '\nquick.json three ways (%s, Slurm %s, one node on localhost), medians of %d, alternated:\n' \
	"$(uname -n)" "$(sinfo --version | awk '{print $2}')" "$rounds"
printf '  lab run                               %6.2f s\n' "$d"
printf '  labd, local worker (submit --wait)    %6.2f s   ratio to lab run %.3f\n' "$l" "$(echo "$l / $d" | bc -l)"
printf '  labd, Slurm backend (submit --wait)   %6.2f s   ratio to lab run %.3f\n' "$s" "$(echo "$s / $d" | bc -l)"
printf '  Slurm adds to a quick job             %+6.2f s   (goal <= 2 s; against the local worker %+.2f s)\n' \
	"$(echo "$s - $d" | bc -l)" "$(echo "$s - $l" | bc -l)"
printf '  Slurm submit -> start (squeue)        median %s s over %d jobs (whole seconds)\n' "$wait_s" "$rounds"
bench_exit
