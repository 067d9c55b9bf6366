#!/usr/bin/env bash
# labd: submit-to-queued latency p50/p99 over 1000 submissions (target p99 <= 10 ms), listing
# 1000 jobs (target <= 50 ms), labd's idle CPU over a minute (target ~0), and a job through
# labd against `lab run` of the same job (target <= 1.02x).  The 1000 submissions run through
# a stand-in for `lab run` (labd --lab), so that the queue, not the guests, is measured.
# Figures, not verdicts: nothing here passes or fails.  But a request labd refused, stand-in
# jobs that never drained, or a real job that failed (through labd or lab run) ends the part:
# it says which and why, prints no figure, and exits 1 (lab/tests/benchlib.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
tmp=$(mktemp -d /tmp/numalab-bench-labd.XXXXXX)
sock=$tmp/labd.sock
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
start_labd() {
	$B/labd --socket "$sock" "$@" 2>>"$tmp/labd.log" & pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && return 0; sleep 0.1; done
	echo "labd did not start" >&2; exit 1
}
stop_labd() { kill -TERM $pid; wait $pid || true; pid=; }
pct() { sort -g | awk -v p="$1" '{a[NR]=$1} END {i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i]}'; }

fake=$tmp/fake-lab
printf '#!/bin/sh\nmkdir -p "$4"; echo "lab: run 1/1: ok (stand-in) boot 0.0 s, total 0.0 s" >&2\n' >"$fake"
chmod +x "$fake"
mkdir -p "$tmp/s1"
start_labd --state "$tmp/s1" --lab "$fake"
jq -c . configs/quick.json >"$tmp/job.json"
: >"$tmp/lat"
for i in $(seq 1000); do
	curl -s -o /dev/null -w '%{http_code} %{time_total}\n' --unix-socket "$sock" --data-binary @"$tmp/job.json" \
		http://labd/v1/jobs >>"$tmp/lat" || true
done
# Every submission answered 201 (queued), else no latency figure.
refused=$(awk '$1 != 201' "$tmp/lat" | wc -l)
if [ "$refused" != 0 ]; then
	bench_fail "the 1000 submissions" \
		"$refused not queued (HTTP status $(awk '$1 != 201 {print $1}' "$tmp/lat" | sort -u | paste -sd' '))"
	bench_exit
fi
cut -d' ' -f2 "$tmp/lat" >"$tmp/lat.s"
mv "$tmp/lat.s" "$tmp/lat"
p50=$(pct 50 <"$tmp/lat"); p99=$(pct 99 <"$tmp/lat")
: >"$tmp/list"
for i in $(seq 20); do
	curl -sf -o "$tmp/list.json" -w '%{time_total}\n' --unix-socket "$sock" 'http://labd/v1/jobs?limit=1000' >>"$tmp/list" ||
		{ bench_fail "listing the jobs" "curl exit $?"; bench_exit; }
done
listed=$(jq '.jobs | length' "$tmp/list.json")
list_m=$(pct 50 <"$tmp/list")
# Idle: every job done, nothing queued; labd's CPU time over 60 s from /proc.
t0=$(now)
left='?'
for _ in $(seq 1200); do
	left=$(curl -s --unix-socket "$sock" http://labd/v1/health | jq '.counts.queued + .counts.running' || echo '?')
	[ "$left" = 0 ] && break
	sleep 0.5
done
drain=$(echo "$(now) - $t0" | bc -l)
[ "$left" = 0 ] || { bench_fail "the stand-in jobs" "$left still queued or running after 600 s"; bench_exit; }
tck=$(getconf CLK_TCK)
c0=$(awk '{print $14 + $15}' /proc/$pid/stat); sleep 60; c1=$(awk '{print $14 + $15}' /proc/$pid/stat)
idle=$(echo "($c1 - $c0) / $tck" | bc -l)
stop_labd

# A real job through labd against lab run, alternated.
start_labd --state "$LAB_STATE_DIR"
: >"$tmp/direct"; : >"$tmp/viad"
for r in 1 2 3; do
	lab_run "$tmp/d$r" "lab run of quick.json, round $r" configs/quick.json || bench_exit
	echo "$secs" >>"$tmp/direct"
	# lab submit --wait long-polls the events: polling in a loop would load the host it
	# measures on (13 % of it with curl and jq every 0.2 s).  Exit 0: every run ok.
	timed_ok "quick.json through labd (lab submit --wait), round $r" "$tmp/s$r" \
		$B/lab submit configs/quick.json --wait --socket "$sock" || bench_exit
	echo "$secs" >>"$tmp/viad"
done
stop_labd
d=$(pct 50 <"$tmp/direct"); v=$(pct 50 <"$tmp/viad")
printf '\nlabd (%s):\n' "$(uname -n)"
printf '  submit -> queued, 1000 submissions   p50 %.2f ms, p99 %.2f ms (target p99 <= 10 ms; curl included)\n' "$(echo "$p50 * 1000" | bc -l)" "$(echo "$p99 * 1000" | bc -l)"
printf '  list %s jobs                       median %.2f ms (target <= 50 ms)\n' "$listed" "$(echo "$list_m * 1000" | bc -l)"
printf '  1000 stand-in jobs run to the end %.1f s after the last submission\n' "$drain"
printf '  idle CPU over 60 s                    %.3f s\n' "$idle"
printf '  quick.json: lab run %.2f s, via labd %.2f s (medians of 3, alternated): ratio %.3f (target <= 1.02)\n' "$d" "$v" "$(echo "$v / $d" | bc -l)"
bench_exit
