#!/usr/bin/env bash
# Benchmark of verdicts (not a test: nothing passes or fails here).  Prints, per timing model:
#  1. A/A false alarms: N boots of one kernel (configs/bench/verdict-aa.json, the baseline
#     variant, pft 32 MiB x {1, 8} tasks) in one `lab run` (under icount as many guests at once
#     as free host cores allow), split into one report per boot; COMPARISONS random A/A splits
#     of M boots against M others, each judged by `lab compare` (default threshold); counted
#     by exit status (1 = a false regression, 3 = undecided, 0 = decided: no change).  Under
#     tcg the boots run beside a kernel build (`make -j2` of the 6.12 tree into a scratch
#     directory), under icount too, to show it does not matter there.
#  2. Detection power (icount and quantum, the deterministic models): the bench-anon-fault-cost variant (kernels/: ~50 instructions
#     added to every anonymous fault) against the A/A pool; COMPARISONS random splits of
#     M_DETECT boots a side, counted by exit status, and the effect measured.
#  3. Boots and wall time per verdict: the boots `lab compare` says a decision needs at the
#     between-boot spread measured, and the seconds a boot took.
# The splits are drawn from one pool per model, so comparisons share boots: they are not
# independent trials, and the rates are estimates from this one run.  A boot that did not end
# ok, or a comparison `lab compare` calls bad input (exit 2), fails the model: it says which and
# why, prints none of that model's figures, and the part exits 1 after the other models
# (lab/tests/benchlib.sh).
# "numa" is quantum with the NUMA cost model (numa_cost wsm-ex-4s: configs/numa/).
# Under quantum (the contention model: lab/qemu/) each boot has its own seed as under icount;
# its figures do not move with host load, so its boots run beside the kernel build too.
# Usage: lab/tests/bench-verdict.sh   (BOOTS=12 M=3 M_DETECT=5 COMPARISONS=20
#                                      MODELS="icount quantum numa tcg")
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
LAB=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
boots=${BOOTS:-12} m=${M:-3} md=${M_DETECT:-5} nc=${COMPARISONS:-20} models=${MODELS:-icount quantum numa tcg}
tmp=$(mktemp -d /tmp/numalab-bench-verdict.XXXXXX)
load_pid=
cleanup() { [ -n "$load_pid" ] && kill -- -"$load_pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
PY=/usr/bin/python3

# A kernel build on both host cores, in its own process group, until stopped.
start_load() {
	local src
	src=$(ls -d /usr/src/linux-source-6.12 2>/dev/null || true)
	[ -n "$src" ] || { src=$tmp/src; mkdir -p "$src"; tar -xaf /usr/src/linux-source-6.12.tar.xz -C "$src" --strip-components=1; }
	set -m
	( make -s -C "$src" O="$tmp/load" defconfig >/dev/null 2>&1
	  while :; do make -s -C "$src" O="$tmp/load" -j2 vmlinux >/dev/null 2>&1; make -s -C "$src" O="$tmp/load" clean >/dev/null 2>&1; done ) &
	load_pid=$!
	set +m
	sleep 20 # let it get going
}
stop_load() { [ -n "$load_pid" ] && kill -- -"$load_pid" 2>/dev/null; wait "$load_pid" 2>/dev/null || true; load_pid=; }

# pool JOB MODEL N DIR: N boots of JOB in one `lab run` (under icount several at once, as many
# as the host's free cores allow), split into one single-boot report per boot, DIR/r-i; the
# wall seconds per boot in $per.  Returns 1 (said: which boots failed and why) unless every
# boot ended ok.
pool() {
	local job=$1 model=$2 n=$3 dir=$4 i
	mkdir -p "$dir"
	# "numa" is the contention model with the NUMA costs of the 4-socket preset the job's
	# topology (4 nodes, 2 vCPUs each) fits: quantum plus "numa_cost".
	if [ "$model" = numa ]; then
		jq --argjson n "$n" '.repeats = $n | .numa_cost = "wsm-ex-4s"' "$job" >"$dir/job.json"
	else
		jq --argjson n "$n" '.repeats = $n' "$job" >"$dir/job.json"
	fi
	lab_run "$dir/all" "$n boots of $job under $model" "$dir/job.json" --timing "${model/numa/quantum}" --quiet-wait 0 ||
		return 1
	for ((i = 0; i < n; i++)); do
		mkdir -p "$dir/r-$i"
		jq --argjson i "$i" '.runs |= map(select(.index == $i))' "$dir/all/report.json" >"$dir/r-$i/report.json"
	done
	per=$(echo "$secs / $n" | bc -l)
}

# splits SEED NA NB K M: K lines "a1 a2 ..|b1 b2 .." of M distinct indexes from each pool (the
# same pool when NB is 0: disjoint halves).
splits() {
	$PY - "$@" <<'PYEOF'
import random, sys
seed, na, nb, k, m = map(int, sys.argv[1:])
rng = random.Random(seed)
for _ in range(k):
    if nb == 0:
        s = rng.sample(range(na), 2 * m)
        a, b = s[:m], s[m:]
    else:
        a, b = rng.sample(range(na), m), rng.sample(range(nb), m)
    print(" ".join(map(str, a)) + "|" + " ".join(map(str, b)))
PYEOF
}

# judge DIR_A DIR_B SPLITS OUT: runs lab compare per split; the counts of its exit statuses in
# n0, n1 and n3.  Returns 1 (said: which split and why) when a comparison was bad input (2).
judge() {
	local da=$1 db=$2 sp=$3 out=$4 line a b i rc k=0 bad=0
	n0=0 n1=0 n3=0
	while IFS= read -r line; do
		a=${line%|*} b=${line#*|}
		rm -rf "$tmp/A" "$tmp/B"; mkdir -p "$tmp/A" "$tmp/B"
		for i in $a; do ln -s "$da/r-$i" "$tmp/A/r-$i"; done
		for i in $b; do ln -s "$db/r-$i" "$tmp/B/r-$i"; done
		rc=0
		$LAB compare "$tmp/A" "$tmp/B" --json >"$out.$k.json" 2>"$out.$k.err" || rc=$?
		case $rc in
		0) n0=$((n0 + 1)) ;;
		1) n1=$((n1 + 1)) ;;
		3) n3=$((n3 + 1)) ;;
		*) bench_fail "lab compare of split $k ($a against $b)" "exit $rc: $(head -1 "$out.$k.err")"; bad=1 ;;
		esac
		k=$((k + 1))
	done <"$sp"
	return "$bad"
}

# The primary rows of the comparisons in OUT.*.json: mean change and between-boot CV (A side).
effect() {
	$PY - "$@" <<'PYEOF'
import glob, json, statistics, sys
rows = {}
for f in glob.glob(sys.argv[1] + ".*.json"):
    try:
        d = json.load(open(f))
    except Exception:
        continue
    for c in d["comparisons"]:
        for r in c["rows"]:
            if r["primary"]:
                rows.setdefault(r["tasks"], []).append((r["change_pct"], r["a"]["cv_between"],
                                                          r["b"]["cv_between"], r["boots_needed"]))
for t, v in sorted(rows.items()):
    ch = statistics.mean(x[0] for x in v)
    cva = statistics.mean(x[1] for x in v if x[1] is not None) * 100
    cvb = statistics.mean(x[2] for x in v if x[2] is not None) * 100
    need = [x[3] for x in v if x[3]]
    print("    %d task(s): change %+.2f %%, between-boot CV %.2f %% / %.2f %%, boots a side "
          "lab compare asks for when undecided: %s" % (t, ch, cva, cvb,
          ("median %d" % statistics.median(need)) if need else "-"))
PYEOF
}

echo "verdict benchmark: $boots boots a model, $nc A/A comparisons of $m+$m boots, $nc detection comparisons of $md+$md"
# The builds' progress goes to a log, not into the figures (BENCHMARKS.md); its end on failure.
$LAB kernel build baseline bench-anon-fault-cost >"$tmp/kbuild.log" 2>&1 ||
	{ bench_fail "lab kernel build baseline bench-anon-fault-cost" "$(tail -3 "$tmp/kbuild.log")"; bench_exit; }
# model MODEL: the A/A (and under icount the detection) figures of MODEL; returns 1 at the
# first failed boot or bad comparison, its figures left out.
model() {
	local model=$1 t0
	# The contention model's QEMU is built (or found) first, so its time is no boot's.
	if { [ "$model" = quantum ] || [ "$model" = numa ]; } && ! $LAB qemu build >"$tmp/qbuild.log" 2>&1; then
		bench_fail "lab qemu build" "$(tail -3 "$tmp/qbuild.log")"
		return 1
	fi
	t0=$(date +%s)
	pool configs/bench/verdict-aa.json "$model" "$boots" "$tmp/$model-aa" || return 1
	splits 1 "$boots" 0 "$nc" "$m" >"$tmp/$model-aa.splits"
	judge "$tmp/$model-aa" "$tmp/$model-aa" "$tmp/$model-aa.splits" "$tmp/$model-aa.cmp" || return 1
	printf '%s A/A (%d boots, %.1f s a boot, %d s in all):\n' "$model" "$boots" "$per" $(( $(date +%s) - t0 ))
	printf '  %d comparisons: %d false regressions (exit 1), %d undecided (exit 3), %d no change (exit 0)\n' "$nc" "$n1" "$n3" "$n0"
	effect "$tmp/$model-aa.cmp"
	[ "$model" = tcg ] && return 0
	t0=$(date +%s)
	pool configs/bench/verdict-cost.json "$model" "$boots" "$tmp/$model-cost" || return 1
	splits 2 "$boots" "$boots" "$nc" "$md" >"$tmp/$model-cost.splits"
	judge "$tmp/$model-aa" "$tmp/$model-cost" "$tmp/$model-cost.splits" "$tmp/$model-cost.cmp" || return 1
	printf '%s detection, bench-anon-fault-cost vs baseline (%d boots, %.1f s a boot, %d s):\n' "$model" "$boots" "$per" $(( $(date +%s) - t0 ))
	printf '  %d comparisons of %d+%d boots: %d detected (exit 1), %d undecided, %d no change\n' "$nc" "$md" "$md" "$n1" "$n3" "$n0"
	effect "$tmp/$model-cost.cmp"
}
for model in $models; do
	echo
	[ "$model" = tcg ] && { echo "tcg: starting a kernel build beside the guests"; start_load; }
	# ICOUNT_LOAD= (empty) runs the deterministic models' boots without the build beside.
	case $model in icount|quantum|numa) [ -n "${ICOUNT_LOAD-1}" ] && { echo "$model: starting a kernel build beside the guests"; start_load; } ;; esac
	model "$model" || echo "$model: figures left out (a run failed, above)"
	stop_load
done
bench_exit
