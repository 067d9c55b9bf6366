#!/usr/bin/env bash
# Kernel-build benchmark (not a test: nothing passes or fails on a timing).  In a fresh,
# empty cache directory (source extraction, ccache and O= trees all cold):
#  1. cold build of `baseline` (extract + patch + configure + make), niced, -j$(nproc);
#  2. `no-per-vma-lock` after it (one Kconfig switch apart: starts from baseline's O= tree);
#  3. a cache hit (`lab kernel build baseline` again).
# Targets (issue): cold <= 8 min, second <= 25% of cold, hit <= 1 s.  Prints the figures and
# the ratios measured in this run.  Needs ~2.5 GB in $TMPDIR (default /var/tmp).  A build that
# failed, or a third build that was not a cache hit, ends the part: it says which and why,
# prints no figure, and exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-kernel.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
lab=$B/lab
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/numalab-bench-kernel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export LAB_KERNEL_CACHE="$tmp/cache"
# "built in 600 s (1633 steps; make -n counted 1640)" or "... (60 steps)"
made() { grep -oE 'built in [0-9]+ s \([0-9]+ steps(; make -n counted [0-9]+)?\)' "$1" | tail -1; }
steps() { made "$1" | sed -E 's/.*\(([0-9]+) steps.*/\1/'; }

echo "kernel builds on $(nproc) CPU(s), cache $LAB_KERNEL_CACHE (empty), $(gcc --version | head -1)"
timed_ok "the cold build of baseline" "$tmp/cold" $lab kernel build baseline || bench_exit
cold=$secs
timed_ok "the build of no-per-vma-lock after it" "$tmp/second" $lab kernel build no-per-vma-lock || bench_exit
second=$secs
timed_ok "the third build of baseline" "$tmp/hit" $lab kernel build baseline || bench_exit
hit=$secs
grep -q '^baseline: cached ' "$tmp/hit.out" ||
	{ bench_fail "the third build of baseline" "not a cache hit: $(head -1 "$tmp/hit.out")"; bench_exit; }
for b in cold second; do bench_num "the $b build" "Kbuild step count" "$(steps "$tmp/$b.err")" || bench_exit; done

printf '\n'
printf '  cold build, baseline          %7.1f s  (make: %s)   target <= 480 s\n' "$cold" "$(made "$tmp/cold.err")"
printf '  second variant, no-per-vma-lock %5.1f s  (make: %s)\n' "$second" "$(made "$tmp/second.err")"
printf '  ratio second/cold             %7.3f    target <= 0.25\n' "$(echo "$second / $cold" | bc -l)"
printf '  Kbuild steps second/cold      %7.3f    (the share of the work; wall time also moves\n' \
	"$(echo "$(steps "$tmp/second.err") / $(steps "$tmp/cold.err")" | bc -l)"
printf '                                           with what else runs on this shared machine)\n'
printf '  load average now: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  cache hit                     %7.3f s  target <= 1 s\n' "$hit"
printf '  ccache after both: %s\n' "$(CCACHE_DIR=$LAB_KERNEL_CACHE/ccache ccache -s 2>/dev/null | grep -E '^ *(Hits|Misses):' | tr -s ' ' | paste -sd' ')"
bench_exit
