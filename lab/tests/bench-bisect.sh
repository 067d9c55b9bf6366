#!/usr/bin/env bash
# Benchmark (not a test) of `lab bisect` and `lab nightly` on the 16-commit repository of
# lab/tests/make-bisect-repo.sh (a planted slowdown of the anonymous fault path, a commit that
# does not build), pft under the deterministic timing model, 2 vCPUs, 2 boots a commit:
#  1. a bisection with every artifact of its variant dropped from the cache first (the
#     checkout and the O= tree stay: each step is an incremental build from the step before,
#     what a bisection on a machine that built the tree once pays): builds, build seconds,
#     boots, wall time.  (With every artifact cached, integration-regress-bisect prints the
#     same bisection's boots-only cost.)
#  2. nightly: NIGHTS (default 20) unchanged nights at the commit before the slowdown, then the
#     head: suspicions and confirmed alarms on the unchanged nights (target 0), the night the
#     slowdown is flagged (target: its first night) and what its confirmation and bisection
#     cost.  The simulated histories of lab/tests/test_changepoint.c give the same figures for
#     noisier models (1 % between boots) and a 2 % step; their lines are printed last.
# A bisection that did not run to an answer (exit other than 0 or 3, no bisect.json) or a night
# that failed (exit other than 0 or 3, a failed night in its summary, no nightly.json) is said
# instead of the figures drawn from it; the part exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-bisect.sh    NIGHTS=N for another number of unchanged nights
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/benchlib.sh
B=${B:-build}
lab=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
cache=${LAB_KERNEL_CACHE:-/var/cache/numalab/kernels}
nights=${NIGHTS:-20}
tmp=$(mktemp -d /tmp/numalab-bench-bisect.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# night_ok NIGHT RC: 0 when `lab nightly --night NIGHT` (output in $tmp/NIGHT.out) exited RC 0
# or 1 (a confirmed regression) with no failed night and wrote its nightly.json; else says
# why and returns 1.
night_ok() {
	local night=$1 rc=$2 nfailed
	nfailed=$(sed -n 's/.*: \([0-9]*\) failed night(s).*/\1/p' "$tmp/$night.out")
	if { [ "$rc" = 0 ] || [ "$rc" = 1 ]; } && [ "$nfailed" = 0 ] &&
		[ -s "$tmp/nights/$night/bench-bisect-pft/nightly.json" ]; then
		return 0
	fi
	bench_fail "lab nightly, night $night" "exit $rc, ${nfailed:-?} failed night(s)"
	tail -3 "$tmp/$night.out" | sed 's/^/    /' >&2
	return 1
}

. lab/tests/bisect-fixture.sh
bisect_fixture "$tmp" bench-bisect-pft || exit 1
before=$(git -C "$repo" rev-parse "$planted^")

echo "== lab bisect over 16 commits (pft, icount, 2 vCPUs, 2 boots a commit, threshold 5 %)"
# Drop the variant's artifacts (and their index entries), keep its checkout and O= tree.
for m in "$cache"/artifacts/*/meta.json; do
	[ -f "$m" ] || continue
	if jq -e '.variant == "bisect-test"' "$m" >/dev/null 2>&1; then
		key=$(jq -r .key "$m")
		rm -rf "$(dirname "$m")"
		grep -l "$key" "$cache"/index/*.json 2>/dev/null | xargs -r rm -f
	fi
done
for pass in incremental; do
	t0=$(now)
	$lab bisect start "$tmp/job.json" --good "$first" --bad "$last" --boots 2 --threshold 5 \
		--parallel 2 --out "$tmp/b-$pass" >"$tmp/b-$pass.out" 2>"$tmp/b-$pass.err"
	rc=$?
	t1=$(now)
	j=$tmp/b-$pass/bisect.json
	if { [ "$rc" != 0 ] && [ "$rc" != 3 ]; } || ! jq -e .answer "$j" >/dev/null 2>&1; then
		bench_fail "lab bisect start ($pass)" "exit $rc$([ -s "$j" ] || echo ", no bisect.json")"
		tail -3 "$tmp/b-$pass.err" | sed 's/^/    /' >&2
		continue
	fi
	printf '%-12s exit %d, answer %s, culprit %s (planted %s)\n' "$pass" "$rc" \
		"$(jq -r .answer "$j")" "$(jq -r '.culprit.sha // "-"' "$j" | cut -c1-12)" "${planted:0:12}"
	printf '%-12s %s measurements, %s builds (%s in the bisection proper, %.0f s of make), %s boots, wall %.0f s\n' \
		"" "$(jq '.steps | length' "$j")" "$(jq .cost.builds "$j")" \
		"$(jq '[.steps[] | select(.phase != "verify" and .built)] | length' "$j")" \
		"$(jq .cost.build_s "$j")" "$(jq .cost.boots "$j")" "$(echo "$t1 - $t0" | bc -l)"
	jq -r '.steps[] | select(.built) | "             build of \(.commit.sha[0:12]) \(.role): \(.build_s | floor) s"' "$j"
done

echo
echo "== lab nightly: $nights unchanged nights, then the head (threshold 5 %, window 5)"
cat >"$tmp/nightly.json" <<EOF2
{"name": "bench", "branch": "main", "out": "nights", "threshold_pct": 5, "window": 5,
 "boots": 2, "confirm_boots": 2, "timing": "icount", "parallel": 2,
 "bisect": {"boots": 2, "max_tries": 2, "revert": false},
 "jobs": [{"job": "job.json", "variant": "bisect-test.json"}]}
EOF2
t0=$(now)
alarms=0 bad=0
for i in $(seq -w 1 "$nights"); do
	$lab nightly "$tmp/nightly.json" --at "$before" --night "n$i" >"$tmp/n$i.out" 2>&1
	rc=$?
	night_ok "n$i" "$rc" || { bad=1; continue; }
	[ "$rc" = 1 ] && alarms=$((alarms + 1))
done
t1=$(now)
if [ "$bad" = 0 ]; then
	sus=$(jq -s '[.[] | .suspects | length] | add' "$tmp"/nights/n*/bench-bisect-pft/nightly.json)
	printf 'unchanged nights: %d, suspicions %s, confirmed alarms %d (target 0); %.0f s a night\n' \
		"$nights" "$sus" "$alarms" "$(echo "($t1 - $t0) / $nights" | bc -l)"
else
	echo "unchanged nights: figures left out (a night failed, above)"
fi
t0=$(now)
$lab nightly "$tmp/nightly.json" --night "z-head" >"$tmp/z-head.out" 2>&1
rc=$?
t1=$(now)
r=$tmp/nights/z-head/bench-bisect-pft/nightly.json
night_ok z-head "$rc" && printf 'the head (slowdown): exit %d, alarm on its first night: %s, change %s %%, culprit %s, %.0f s (check, confirmation, bisection)\n' \
	"$rc" "$(jq -r '(.alarms | length) > 0' "$r")" "$(jq -r '.alarms[0].change_pct // "-"' "$r" | cut -c1-6)" \
	"$(jq -r '.alarms[0].bisect.culprit // "-"' "$r" | cut -c1-12)" "$(echo "$t1 - $t0" | bc -l)"
echo
echo "== simulated histories (lab/tests/test_changepoint.c)"
"$B"/tests/test_changepoint | grep -E '^(not )?ok' | sed 's/^[a-z ]*[0-9]* - /  /'
bench_exit
