#!/usr/bin/env bash
# Benchmark of guests side by side under the deterministic model (not a test: nothing passes
# or fails here).  One A/B job (configs/bench/parallel-ab.json: baseline against the
# bench-anon-fault-cost variant, 4 boots a side, pft 32 MiB x {1, 8} tasks, icount) run twice:
#   alone:  --parallel 1, one guest at a time;
#   beside: --parallel N (default: the host's online CPUs), N guests at once.
# Prints the wall time of each and their ratio (verdicts per hour side by side over alone),
# each run's verdict from `lab compare`, and the A/A of each kernel's boots alone against its
# boots beside others (`lab compare` of the two, per kernel): under icount the figures must not
# depend on what ran beside a guest.  Numbers from this one run.  A run with a boot that did
# not end ok ends the part, and a comparison `lab compare` calls bad input (exit 2) fails it: it
# says which and why, prints no figure from it, and exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-parallel.sh   (PARALLEL=2)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
LAB=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
job=configs/bench/parallel-ab.json
par=${PARALLEL:-$(nproc)}
tmp=$(mktemp -d /tmp/numalab-bench-parallel.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# run NAME N: the job with N guests at once into $tmp/NAME; its wall seconds in $secs.  A run
# that failed ends the part.
run() { lab_run "$tmp/$1" "the $1 run ($2 guests at once)" "$job" --parallel "$2" --quiet-wait 0 || bench_exit; }

# split NAME: one report per kernel label, $tmp/NAME-LABEL/report.json.
split() {
	local label
	for label in $(jq -r '[.runs[].kernel.label] | unique | .[]' "$tmp/$1/report.json"); do
		mkdir -p "$tmp/$1-$label"
		jq --arg l "$label" '.runs |= map(select(.kernel.label == $l))' "$tmp/$1/report.json" \
			>"$tmp/$1-$label/report.json"
	done
}

# verdict A [B]: `lab compare` exit status and the primary rows; bad input fails the part.
verdict() {
	local rc=0
	$LAB compare "$@" --json >"$tmp/cmp.json" 2>"$tmp/cmp.err" || rc=$?
	case $rc in 0 | 1 | 3) ;; *) bench_fail "lab compare $*" "exit $rc: $(head -1 "$tmp/cmp.err")"; return ;; esac
	printf '    exit %d (%s)\n' "$rc" "$(case $rc in 0) echo decided, no regression;; 1) echo regression;; 3) echo undecided;; esac)"
	jq -r 'def r2: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
		.comparisons[].rows[] | select(.primary) |
		"    \(.workload) \(.tasks) task(s) \(.metric): \(.change_pct | r2) % [\(.ci95_pct[0] | r2), \(.ci95_pct[1] | r2)], between-boot CV \(.a.cv_between * 100 | r2) % / \(.b.cv_between * 100 | r2) %, \(.verdict)"' \
		"$tmp/cmp.json" 2>/dev/null || cat "$tmp/cmp.err"
}

boots=$(jq '.repeats * (.kernels | length)' "$job")
echo "guests side by side (icount): $job, $boots boots, alone vs $par at once"
run alone 1
alone=$secs
run beside "$par"
beside=$secs
printf '  alone:   %7.1f s (%.1f s a boot)\n' "$alone" "$(echo "$alone / $boots" | bc -l)"
printf '  beside:  %7.1f s (%.1f s a boot), %s guests at once at most\n' "$beside" \
	"$(echo "$beside / $boots" | bc -l)" "$(jq '[.runs[].host.guests_at_once] | max' "$tmp/beside/report.json")"
printf '  verdicts per hour, beside / alone: %.2f\n' "$(echo "$alone / $beside" | bc -l)"
echo "  A/B verdict, alone:"
verdict "$tmp/alone"
echo "  A/B verdict, beside:"
verdict "$tmp/beside"
split alone
split beside
for label in $(jq -r '[.runs[].kernel.label] | unique | .[]' "$tmp/alone/report.json"); do
	echo "  A/A $label: its boots alone (A) against its boots beside others (B):"
	verdict "$tmp/alone-$label" "$tmp/beside-$label"
done
bench_exit
