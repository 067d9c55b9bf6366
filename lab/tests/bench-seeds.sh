#!/usr/bin/env bash
# The seeds' A/B directions (not a test: nothing passes or fails here).  Runs the small seed
# A/B jobs under the three TCG timing models (plain icount, tcg, and quantum, the contention
# model) and prints, per primary series, B's change against A
# with its 95 % interval and `lab compare`'s verdict, beside what the seed reported:
#   000 configs/seeds/000-memscale-4s-8c.json        baseline vs no-split-pmd-ptlock
#   002 configs/seeds/002-thp-hugetlb-4s-8c.json     baseline vs no-split-pmd-ptlock
#   003 configs/seeds/003-mmap-contention-4s-8c.json baseline vs no-per-vma-lock
# For memscale it also prints where each side's time went (setup, the touching, teardown), so
# that time spent outside the measured window shows.  Needs the three variants built (the
# first run builds what the cache lacks: ~20 min each on 2 cores).  A seed's run with a boot
# that did not end ok, or its comparison called bad input (exit 2), is said instead of its
# figures; the part goes on with the others and exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-seeds.sh   (MODELS="icount tcg quantum" SEEDS="000 002 003" OUT=DIR keeps reports)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
LAB=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
models=${MODELS:-icount tcg quantum} seeds=${SEEDS:-000 002 003}
out=${OUT:-}
tmp=$(mktemp -d /tmp/numalab-bench-seeds.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
[ -n "$out" ] || out=$tmp
mkdir -p "$out"

claim() {
	case $1 in
	000) echo "seed: without split PMD locks memscale THP is slower (512 threads: 1138.8 s against 56.1 s, ~20x)";;
	002) echo "seed: split PMD locks help THP most (42.2 -> 8.4 s on 512 CPUs; 8 % with 4 threads on 80), hugetlb (47.6 -> 19.4 s), THP off a little (18.1 -> 16.8 s)";;
	003) echo "seed: faults beside mmap/munmap serialise on mmap_sem; per-VMA locking (the RCU VMA lookup's descendant) lets them run (a design thread: no figures)";;
	esac
}

for s in $seeds; do
	# The seed's A/B of two kernels (002 also has a knob-set job, 002-thp-knobsets).
	case $s in
	000) job=configs/seeds/000-memscale-4s-8c.json ;;
	002) job=configs/seeds/002-thp-hugetlb-4s-8c.json ;;
	003) job=configs/seeds/003-mmap-contention-4s-8c.json ;;
	*) echo "bench-seeds: no seed '$s' (000 002 003)" >&2; exit 2 ;;
	esac
	echo "seed $s: $job"
	echo "  $(claim "$s")"
	for m in $models; do
		d="$out/$s-$m"
		rm -rf "$d"
		# Only tcg's figures move with the host's load; the deterministic models need no quiet.
		wait_s=0
		[ "$m" != tcg ] || wait_s=60
		if ! lab_run "$d" "seed $s under $m" "$job" --timing "$m" --quiet-wait "$wait_s"; then
			echo "  $m: figures left out (a run failed, above)"
			continue
		fi
		rc=0
		$LAB compare "$d" --json >"$d.cmp.json" 2>"$d.cmp.err" || rc=$?
		case $rc in 0 | 1 | 3) ;; *)
			bench_fail "lab compare of seed $s under $m" "exit $rc: $(head -1 "$d.cmp.err")"
			echo "  $m: figures left out (the comparison failed, above)"
			continue ;;
		esac
		printf '  %s: %.0f s, %s boots, %s contended; lab compare exit %d\n' "$m" "$secs" \
			"$(jq '.runs | length' "$d/report.json")" \
			"$(jq '[.runs[] | select(.host.noise.contended)] | length' "$d/report.json" 2>/dev/null || echo '?')" "$rc"
		jq -r 'def r2: if . == null then "-" else (. * 100 | round / 100 | tostring) end;
			.comparisons[].rows[] | select(.primary) |
			"    \(.workload) \(.params | to_entries | map(select(.key == "huge" or .key == "mappers")) | map("\(.key)=\(.value)") | join(" ")) \(.tasks) task(s) \(.metric): B \(.change_pct | r2) % [\(.ci95_pct[0] | r2), \(.ci95_pct[1] | r2)] (+ is better), \(.verdict)"' \
			"$d.cmp.json" 2>/dev/null || sed 's/^/    /' "$d.cmp.err"
		# Where memscale's time went, per side: mean over boots of the per-boot means.
		jq -r '[.runs[] | select(.status == "ok") | .kernel.label as $k | .workloads[] | select(.name == "memscale") |
			.params.huge as $h | .results[] | {k: $k, h: $h, s: .metrics.setup_s.value, e: .metrics.elapsed_s.value,
			t: .metrics.teardown_s.value, r: .metrics.run_s.value}] | group_by([.k, .h])[] |
			"    memscale \(.[0].k) huge=\(.[0].h): run \(map(.r) | add / length * 1000 | round / 1000) s = setup \(map(.s) | add / length * 1000 | round / 1000) + touching \(map(.e) | add / length * 1000 | round / 1000) + teardown \(map(.t) | add / length * 1000 | round / 1000) (mean of \(length) repetitions)"' \
			"$d/report.json" 2>/dev/null || true
	done
done
bench_exit
