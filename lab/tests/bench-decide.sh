#!/usr/bin/env bash
# Time to a decision (not a test: nothing passes or fails here): make bench's part "decide".
# `lab ab` of COUNT planted patches and COUNT comment-only patches against the cached baseline,
# with the default job (configs/ab.json: boots in rounds until decided, workloads sized by
# measurement), one after another:
#   planted   the bench-anon-fault-cost loop at the top of do_anonymous_page(), 8 to 12
#             iterations, of an int or a long: about 1.6 to 2.6 % of the anonymous fault rate
#   comment   a comment line at the same place, its own text each time
# Each is a new kernel, so each `lab ab` builds it (incrementally, on baseline's objects): the
# wall time counts that build; "not building" is the wall time less that build's seconds.  Then
# BEFORE patches of each kind the way `lab ab` decided before sizing and rounds: the same job
# with 5 boots a side and every run its whole duration_s (precision_bp 0), in the same run.
# Printed: per patch its seconds, rounds and exit status (planted: 1 = found; comment: 0 = no
# change, 1 = a false alarm, 3 = undecided), then the medians and counts.
# Each patch's kernel build tree (about 1 GB) is removed after its run: the bench made it.
# Usage: lab/tests/bench-decide.sh   (COUNT=10 BEFORE=2)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
LAB=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
kc=${LAB_KERNEL_CACHE:-/var/cache/numalab/kernels}
count=${COUNT:-10} before=${BEFORE:-2}
tmp=$(mktemp -d /tmp/numalab-bench-decide.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
planted=kernels/patches/6.12/bench-anon-fault-cost.patch

# make_patch KIND I: the i-th patch of a kind on stdout, from the planted patch's hunk (so its
# context is the shipped source's, wherever the source is).
make_patch() {
	local kind=$1 i=$2 n type
	n=$((8 + i % 5)) type=$([ $((i / 5 % 2)) = 0 ] && echo int || echo long)
	if [ "$kind" = planted ]; then
		sed -e "s/numalab_i < 10;/numalab_i < $n;/" -e "s/volatile unsigned int/volatile unsigned $type/" \
			-e "s/^Subject: .*/Subject: [PATCH] mm: bench, $n iterations (unsigned $type) on every anonymous fault/" \
			"$planted"
	else
		awk -v i="$i" '
			/^Subject:/ { print "Subject: [PATCH] mm: bench, a comment (" i ")"; next }
			/^@@ / { print "@@ -4742,6 +4742,7 @@"; next }
			/^\+/ && !/^\+\+\+/ { if (!done) print "+\t/* numalab bench: a comment-only change, number " i ". */"; done = 1; next }
			{ print }' "$planted"
	fi
}

# The O= trees under the kernel cache's sources, one a line.
trees() { find "$kc/src" -mindepth 2 -maxdepth 2 -type d -name 'O-*' 2>/dev/null | sort; }

# one KIND I JOB-ARGS...: `lab ab` of that patch; prints its line and adds to the lists.
one() {
	local kind=$1 i=$2 label=$3 dir rc t0 secs run rounds
	shift 3
	make_patch "$kind" "$i" >"$tmp/$kind-$i.patch"
	dir=$tmp/ab-$label-$kind-$i
	trees >"$tmp/trees.before"
	rc=0 t0=$(now)
	"$LAB" ab "$tmp/$kind-$i.patch" -o "$dir" "$@" >"$dir.log" 2>&1 || rc=$?
	secs=$(echo "$(now) - $t0" | bc -l)
	trees | comm -13 "$tmp/trees.before" - | while read -r t; do rm -rf "$t"; done
	if [ ! -s "$dir/report.json" ] || ! jq -e 'all(.runs[]; .status == "ok")' "$dir/report.json" >/dev/null; then
		bench_fail "lab ab of $kind patch $i ($label)" "exit $rc, runs not all ok"
		tail -5 "$dir.log" | sed 's/^/    /' >&2
		return 0
	fi
	# The seconds not spent building the patched kernel ("built in N s" in lab's progress).
	run=$(echo "$secs - $(grep -oE 'built in [0-9.]+ s' "$dir.log" | awk '{s += $3} END {print s + 0}')" | bc -l)
	rounds=$(jq -r '.stop.rounds // ((.runs | length) / 2)' "$dir/report.json")
	printf '  %-6s %-7s %2d  %6.1f s in all  %6.1f s not building  %s rounds  exit %d\n' \
		"$label" "$kind" "$i" "$secs" "$run" "$rounds" "$rc"
	echo "$secs $run $rc" >>"$tmp/$label-$kind"
}

# The job as before: 5 boots a side, every run its whole duration_s.
jq '.repeats = 5 | del(.precision) | .workloads |= map(if .params.duration_s then .params.precision_bp = 0 else . end)' \
	configs/ab.json >"$tmp/before.json"

echo "time to a decision: lab ab of $count planted and $count comment-only patches (configs/ab.json),"
echo "then $before of each the way before (5 boots a side, precision_bp 0); builds of baseline cached"
echo
for i in $(seq 0 $((count - 1))); do
	one planted "$i" now
	one comment "$i" now
done
for i in $(seq 0 $((before - 1))); do
	one planted "$i" before --job "$tmp/before.json"
	one comment "$i" before --job "$tmp/before.json"
done

# summary LABEL KIND: median seconds in all and not building, and the exit statuses counted.
summary() {
	local f=$tmp/$1-$2
	[ -s "$f" ] || return 0
	printf '  %-6s %-7s n %2d  median %6.1f s in all, %6.1f s not building;  exit 0: %d, 1: %d, 3: %d, other: %d\n' \
		"$1" "$2" "$(wc -l <"$f")" "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" \
		"$(awk '$3 == 0' "$f" | wc -l)" "$(awk '$3 == 1' "$f" | wc -l)" "$(awk '$3 == 3' "$f" | wc -l)" \
		"$(awk '$3 != 0 && $3 != 1 && $3 != 3' "$f" | wc -l)"
}
echo
echo "summary (planted: exit 1 = found; comment: exit 0 = no change, 1 = false alarm, 3 = undecided):"
for label in now before; do
	summary "$label" planted
	summary "$label" comment
done
if [ -s "$tmp/now-planted" ] || [ -s "$tmp/now-comment" ]; then
	printf '  median over all %d patches now: %.1f s in all\n' "$(cat "$tmp"/now-* | wc -l)" \
		"$(cat "$tmp"/now-* | cut -d' ' -f1 | median)"
fi
bench_exit
