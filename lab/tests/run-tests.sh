#!/usr/bin/env bash
# Runs the test suite: unit tests (build/tests/test_*), host tests (lab/tests/test_*.sh) and
# integration tests that boot real libvirt guests (lab/tests/integration/*.sh).
# Every test prints TAP ending in "N passed, N failed"; this adds them up and ends the same way.
#   --unit / --integration   run only that part
#   --fresh                  as a new machine sees it (`make check-fresh`): empty state, kernel,
#                            image and QEMU caches in a new directory under FRESH_ROOT (default
#                            /var/tmp), the page cache dropped first when root; the directory
#                            is removed after a green run and kept, with its logs, after a red one
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
export LAB_ROOT="$root"
mode=all fresh=
for a in "$@"; do
	case "$a" in
	--unit|--integration) mode=$a ;;
	--fresh) fresh=1 ;;
	*) echo "usage: $0 [--unit|--integration] [--fresh]" >&2; exit 2 ;;
	esac
done
if [ -n "$fresh" ]; then
	fresh=$(mktemp -d "${FRESH_ROOT:-/var/tmp}/numalab-fresh.XXXXXX") || exit 1
	export LAB_STATE_DIR=$fresh/state LAB_KERNEL_CACHE=$fresh/kernels \
		LAB_IMAGE_CACHE=$fresh/images LAB_QEMU_CACHE=$fresh/qemu
	mkdir -p "$LAB_STATE_DIR"
	sync
	[ "$(id -u)" = 0 ] && echo 3 >/proc/sys/vm/drop_caches
	echo "fresh caches in $fresh (state, kernels, images, qemu), page cache dropped: $([ "$(id -u)" = 0 ] && echo yes || echo no)"
fi
# Tests share a state dir outside the checkout so the KVM verdict and libvirt's capability
# cache survive between runs (CI clones afresh each time).
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
t_suite=$(date +%s)
B=${B:-build}
logdir=$B/test-logs
mkdir -p "$logdir"

# Seconds per test file, for comparing a cold run with a warm one (the closing notes quote it).
times=$logdir/times.tsv
printf 'test\tseconds\tpassed\tfailed\n' >"$times"
run_one() {
	local name=$1; shift
	local log="$logdir/$name.log" start end p f
	start=$(date +%s)
	"$@" >"$log" 2>&1
	local rc=$?
	end=$(date +%s)
	p=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | awk '{print $1}')
	f=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1 | awk '{print $3}')
	if [ -z "$p" ]; then p=0; f=1; fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	# One write each, so two lanes' lines never mix; the sums come from $times at the end
	# (a lane is a subshell: its counters would not reach this shell).
	printf '%s\t%d\t%d\t%d\n' "$name" $((end - start)) "$p" "$f" >>"$times"
	local detail=
	[ "$f" -ne 0 ] && detail=$(grep -aE '^not ok|^#' "$log" | head -40 | sed 's/^/    /')
	printf '%-40s %3d passed, %d failed  (%ds)\n%s' "$name" "$p" "$f" $((end - start)) \
		"${detail:+$detail
}"
}
# run_lane STATE_DIR FILE...: the integration tests FILE... one after another, with their own
# state directory (their own embedded libvirt, so one lane's "no QEMU left" checks never see
# the other lane's guests).  The caches are shared: their builds take one lock per key.
run_lane() {
	local state=$1 t
	shift
	mkdir -p "$state"
	for t; do
		LAB_STATE_DIR=$state run_one "integration-$(basename "$t" .sh)" bash "$t"
	done
}

# No test waits for a quiet host before a tcg run (lab run's --quiet-wait): the prewarm's builds
# keep it busy at nice 19, and no test reads a tcg figure closely enough to need one.  The one
# that looks at tcg's spread asks for its own wait (integration-timing).
export LAB_QUIET_WAIT=${LAB_QUIET_WAIT:-0}
# The integration tests' builds, ahead of them at nice 19 in the cores the tests leave idle
# (lab/tests/prewarm.sh); a test that needs one first waits on its lock.  Collected at the end.
if [ "$mode" != "--unit" ]; then
	nice -n 19 bash lab/tests/prewarm.sh >"$logdir/prewarm.out" 2>&1 &
	prewarm_pid=$!
fi
prewarm_collect() { wait "$prewarm_pid"; local rc=$?; cat "$logdir/prewarm.out"; return $rc; }
if [ "$mode" != "--integration" ]; then
	for t in "$B"/tests/test_*; do
		[ -x "$t" ] && run_one "$(basename "$t")" "$t"
	done
	for t in lab/tests/test_*.sh; do
		[ -f "$t" ] && run_one "$(basename "$t" .sh)" bash "$t"
	done
fi
if [ "$mode" != "--unit" ]; then
	# Those that boot the lab's own builds (a "# suite-order: builds" line) last, so the
	# prewarm has the others' idle time to make them; each group in name order.
	its=$(grep -L '^# suite-order: builds' lab/tests/integration/*.sh)
	for t in $its; do
		run_one "integration-$(basename "$t" .sh)" bash "$t"
	done
	# The builds group in two lanes side by side ("# suite-lane: 2" marks the second), then
	# those marked "# suite-lane: alone" by themselves.  Why: most of these boot one guest
	# under the single-threaded models (quantum, icount), whose figures do not depend on the
	# host's load, and one at a time they left a core idle for the suite's last quarter hour.
	# The second lane holds the tests that need the prewarm's QEMU build: on a new machine,
	# with the bisection's kernel builds (nice 10) beside it, that build (nice 19) was ready
	# at 2097 s, against 1816 s with one lane.
	# A test that reads tcg figures closely is "alone".
	#
	# The second lane's tests are a queue both lanes take from, the longest first (by the
	# seconds their "# suite-lane: 2" comment gives, else last, in name order): lane 2 from
	# the prewarm's QEMU build on, lane 1 once its own tests are done.  Why: which lane ends
	# first depends on the machine (how long the prewarm takes against lane 1's bisection),
	# and a test waiting for a lane that is still busy while the other is idle was minutes of
	# the suite's end.
	builds=$(grep -l '^# suite-order: builds' lab/tests/integration/*.sh)
	alone=$(grep -l '^# suite-lane: alone' $builds)
	queue=$logdir/lane2.queue
	for t in $(grep -l '^# suite-lane: 2' $builds); do
		printf '%s\t%s\n' "$(grep -m1 -A1 '^# suite-lane: 2' "$t" | tr '\n' ' ' |
			grep -oE '[0-9]+ s on a new' | grep -oE '^[0-9]+' || echo 0)" "$t"
	done | sort -t$'\t' -k1,1nr -k2,2 | cut -f2 >"$queue"
	# run_queue STATE_DIR: run_lane the queue's first test until the queue is empty.
	run_queue() {
		local t
		while t=$(flock "$queue.lock" sh -c 'head -n 1 "$1"; sed -i 1d "$1"' _ "$queue") &&
			[ -n "$t" ]; do
			run_lane "$1" "$t"
		done
	}
	# Lane 2 starts when the prewarm has built QEMU: its tests need that and baseline's
	# kernels, not the bisection's, whose builds (3-4 minutes, partly one core) left a core
	# idle while both lanes waited (measured at 94cb8f0: 27-29 % idle for those minutes).
	lane2_start() {
		until grep -aqE '^(ok|not ok) [0-9]+ - lab qemu build|^[0-9]+ passed, [0-9]+ failed' \
			"$logdir/prewarm.out" || ! kill -0 "$prewarm_pid" 2>/dev/null; do sleep 5; done
		run_queue "$LAB_STATE_DIR.lane2"
	}
	lane1=$(grep -L '^# suite-lane: ' $builds)
	lane2_start &
	lane2_pid=$!
	run_lane "$LAB_STATE_DIR" $lane1
	run_queue "$LAB_STATE_DIR"
	wait "$lane2_pid"
	run_lane "$LAB_STATE_DIR" $alone
	# Its seconds here are the wait for it at the end; its log says when each build was ready.
	run_one prewarm prewarm_collect
	# No test may leave a guest behind.
	if pgrep -f "guest=numalab-.*$LAB_STATE_DIR(.lane2)?/libvirt" >/dev/null; then
		echo "leftover qemu processes:"
		pgrep -af "guest=numalab-.*$LAB_STATE_DIR(.lane2)?/libvirt"
		printf 'leftover-qemu\t0\t0\t1\n' >>"$times"
	fi
fi
passed=$(awk -F'\t' 'NR > 1 { s += $3 } END { print s + 0 }' "$times")
failed=$(awk -F'\t' 'NR > 1 { s += $4 } END { print s + 0 }' "$times")
mapfile -t broken < <(awk -F'\t' 'NR > 1 && $4 > 0 { print $1 }' "$times")
[ ${#broken[@]} -gt 0 ] && echo "failing: ${broken[*]} (logs in $logdir/)"
echo "suite wall time: $(( $(date +%s) - t_suite )) s"
if [ -n "$fresh" ]; then
	# A cold suite's kernel cache and ccache are some hundred thousand files: minutes to remove.
	if [ "$failed" -eq 0 ]; then echo "removing the fresh caches in $fresh"; rm -rf "$fresh"
	else echo "fresh caches kept in $fresh"; fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
