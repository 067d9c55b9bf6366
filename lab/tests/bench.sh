#!/usr/bin/env bash
# Benchmarks (not tests: nothing here passes or fails on a timing).  The parts, in the order
# they run, each its own script lab/tests/bench-PART.sh:
#   run          `lab run configs/quick.json` end to end, its boot-to-first-workload seconds,
#                and its overhead over a bare qemu-system-x86_64 running the same guest
#   compare      lab compare of 1000-series reports, lab report of 100 reports in Chromium
#   kernel       kernel builds: cold, a second variant after it, a cache hit
#   image        guest images: cold build, cached lookup, disk vs initramfs boot
#   boot         the boot curve: 8 to 512 vCPUs, lab vs bare qemu (the 512-vCPU boots alone
#                take about half an hour on 2 host cores)
#   verdict      A/A false alarms per timing model, detection of a known fault-path cost
#   decide       time to a decision of `lab ab` over planted and comment-only patches, now and
#                the way before sizing and rounds (COUNT=10 BEFORE=2: about two hours here)
#   parallel     guests side by side under icount against one at a time
#   seeds        the seed A/B jobs under icount, tcg and quantum (the contention model)
#   model        one guest's host time a boot under tcg, icount, quantum (the contention
#                model's cost) and quantum with NUMA costs, and each model's faults/s
#   bisect       a bisection over 16 commits, nightly false alarms and detection delay
#   labd         submission latency, listing, idle CPU, a job through labd against lab run
#   web          labd's pages' p50/p99 under 10 polling clients, 1000 jobs, submissions beside
#   reliability  fuzzing throughput per harness, lab run's peak RSS under a flooding guest
#   pool         one remote libvirt host (lab run --connect URI): uploads, cache hits, the
#                transport's cost
#   slurm        a quick job through labd and Slurm against the local worker and lab run
# A part whose run failed says which and why, prints no figure from it and exits non-zero
# (lab/tests/benchlib.sh); the other parts still run, and this script then names the failed
# parts and exits 1.
# Usage: lab/tests/bench.sh [ROUNDS]   (default 5: the rounds of run, compare, image, model and slurm)
#        BENCH_PARTS="run compare kernel image boot verdict decide parallel seeds model bisect labd web reliability pool slurm" selects parts
#        (default: all)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
rounds=${1:-5}
all="run compare kernel image boot verdict decide parallel seeds model bisect labd web reliability pool slurm"
for p in ${BENCH_PARTS:-$all}; do
	case " $all " in *" $p "*) ;; *) echo "bench: no part '$p' (parts: $all)" >&2; exit 2 ;; esac
done
want() { case " ${BENCH_PARTS:-$all} " in *" $1 "*) return 0;; esac; return 1; }

# Each part's output also goes into BENCHMARKS.md (BENCH_OUT), its own section stamped with
# this run's date, commit, host and load (lab/tests/bench-record.py).
out=${BENCH_OUT:-BENCHMARKS.md}
log=$(mktemp /tmp/numalab-bench.XXXXXX)
trap 'rm -f "$log"' EXIT
host_line() {
	local cpu mem
	cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
	mem=$(awk '/^MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
	printf '%s, %s CPUs (%s), %s, Linux %s' "$(hostname)" "$(nproc)" "${cpu:-?}" "$mem" \
		"$(uname -r)"
}
stamp() {
	printf -- '- date: %s (%s s)\n- lab: %s\n- host: %s\n- load before: %s\n- rounds: %s' \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$1" "$(build/lab --version 2>/dev/null || echo '?')" \
		"$(host_line)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$rounds"
}

failed=()
for p in $all; do
	want "$p" || continue
	args=()
	case $p in run | compare | image | model | slurm) args=("$rounds") ;; esac
	rc=0 load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$(date +%s)
	lab/tests/bench-"$p".sh "${args[@]}" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	st=$(stamp "$(( $(date +%s) - t0 ))" | sed "s|^- load before: .*|- load before: $load0|")
	[ "$rc" = 0 ] || { echo "bench: part $p failed (exit $rc)" >&2; failed+=("$p"); }
	python3 lab/tests/bench-record.py "$out" "$p" "$st" "$log" "$([ "$rc" = 0 ] || echo failed)" ||
		echo "bench: could not write $out" >&2
	# The seed experiments' table lives with the seeds, generated the same way.
	if [ "$p" = seeds ] && [ -z "${BENCH_OUT:-}" ]; then
		python3 lab/tests/bench-record.py --block configs/seeds/README.md seeds "$st" "$log" \
			"$([ "$rc" = 0 ] || echo failed)" || echo "bench: could not write configs/seeds/README.md" >&2
	fi
	echo
done
echo "bench: the figures are in $out"
if [ ${#failed[@]} -gt 0 ]; then
	echo "bench: failed parts: ${failed[*]} (their figures left out: see the lines above)" >&2
	exit 1
fi
