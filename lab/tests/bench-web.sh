#!/usr/bin/env bash
# labd's pages under load: 1000 finished jobs in the queue, one running (its estimate made from
# them), a history of 60 nights and an alert; then 10 clients fetch the pages (the queue, the
# running job's, a finished job's, the trends, the alerts) for BENCH_WEB_S seconds (default 60:
# about 300 submissions, so that their p99 is not simply the slowest of 100),
# each a page every BENCH_WEB_POLL_S seconds (default 0.5: polling, as open pages do; 0: as fast
# as the clients go, a stress test whose figures are mostly 2 cores shared by 10 client loops),
# while a job is submitted every 0.2 s: each page's p50/p99 (target p99 < 50 ms) and the
# submissions' (target p99 < 10 ms), from request sent to answer read over the unix socket, and
# beside them the disk's own fsync, which every submission waits for.
# The jobs run through a stand-in for `lab run` (labd --lab): the queue is measured, not
# guests.  Figures, not verdicts; a page or a submission refused ends the part
# (lab/tests/benchlib.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
secs=${BENCH_WEB_S:-60}
poll=${BENCH_WEB_POLL_S:-0.5}
tmp=$(mktemp -d /tmp/numalab-bench-web.XXXXXX)
sock=$tmp/labd.sock
pid=
trap '[ -n "$pid" ] && kill -9 $pid 2>/dev/null; rm -rf "$tmp"' EXIT
pct() { sort -g | awk -v p="$1" '{a[NR]=$1} END {i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i]}'; }
ms() { echo "$1 * 1000" | bc -l; }

# The stand-in: instant, but a job named "held" runs until $tmp/release exists.
fake=$tmp/fake-lab
cat >"$fake" <<'EOS'
#!/bin/sh
mkdir -p "$4"
echo "lab: run 1/2: booting stand-in, 1 vCPUs, 1 nodes (none)" >&2
if grep -q '"held"' "$2"; then while [ ! -e "$(dirname "$0")/release" ]; do sleep 0.2; done; fi
echo "lab: run 1/2: ok (stand-in) boot 0.0 s, total 0.0 s" >&2
echo "lab: run 2/2: booting stand-in, 1 vCPUs, 1 nodes (none)" >&2
echo "lab: run 2/2: ok (stand-in) boot 0.0 s, total 0.0 s" >&2
EOS
chmod +x "$fake"
state=$tmp/state
mkdir -p "$state"
python3 lab/tests/make-reports.py "$tmp/r" --reports 60 --runs 2 --tasks 1,8 --metrics 2 --seed 5 >/dev/null
$B/lab history index --state "$state" "$tmp"/r/r-*/report.json >/dev/null
$B/tests/test_alerts --seed "$state/history.db" >/dev/null
$B/labd --state "$state" --socket "$sock" --lab "$fake" 2>>"$tmp/labd.log" & pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
jq -c '.name = "bench-web"' configs/quick.json >"$tmp/job.json"
jq -c '.name = "held"' configs/quick.json >"$tmp/held.json"
for _ in $(seq 1000); do
	curl -sf -o /dev/null --unix-socket "$sock" --data-binary @"$tmp/job.json" http://labd/v1/jobs ||
		{ bench_fail "the 1000 submissions" "curl exit $?"; bench_exit; }
done
for _ in $(seq 1200); do
	[ "$(curl -s --unix-socket "$sock" http://labd/v1/health | jq '.counts.queued + .counts.running')" = 0 ] && break
	sleep 0.5
done
held=$(curl -sf --unix-socket "$sock" --data-binary @"$tmp/held.json" http://labd/v1/jobs | jq -r .id)
for _ in $(seq 100); do
	[ "$(curl -s --unix-socket "$sock" "http://labd/v1/jobs/$held" | jq -r .state)" = running ] && break
	sleep 0.1
done

pages=(/ui/ "/ui/jobs/$held" /ui/jobs/1 /ui/trends /ui/alerts)
# The moment pages open all at once, measured once, apart: 10 new connections at one instant.
hs=()
for c in $(seq 0 9); do
	curl -s -o /dev/null -w "%{time_total}\n" --unix-socket "$sock" http://labd/ui/ >"$tmp/herd-$c" & hs+=($!)
done
wait "${hs[@]}"
# A client is a page left open: one kept-alive connection (lab/tests/web-load.py), a fetch
# every $poll s, from its own moment of the first poll period on and starting on its own page,
# as pages opened by people are.  All begin 2 s after launch: none measures another's start-up.
t0=$(($(date +%s) + 2))
client() {
	local k=$(($1 % ${#pages[@]}))
	python3 lab/tests/web-load.py "$sock" "$secs" "$poll" "$(echo "$t0 + $poll * $1 / 10" | bc -l)" \
		get "${pages[@]:k}" "${pages[@]:0:k}" >"$tmp/client-$1"
}
submitter() {
	python3 lab/tests/web-load.py "$sock" "$secs" 0.2 "$(echo "$t0 + 0.025" | bc -l)" \
		post /v1/jobs "$tmp/job.json" >"$tmp/submits"
}
# The disk's floor beside them: an fsync of 4 KiB in the state's directory at the submissions'
# rate, half a period apart from them (labd answers a submission once its commit is on disk).
disk() {
	python3 lab/tests/web-load.py "$state/fsync-probe" "$secs" 0.2 "$(echo "$t0 + 0.125" | bc -l)" \
		fsync >"$tmp/fsyncs"
}
cs=()
for c in $(seq 0 9); do client "$c" & cs+=($!); done
submitter & cs+=($!)
disk & cs+=($!)
wait "${cs[@]}"
: >"$tmp/release"
cat "$tmp"/client-* >"$tmp/all"
bad=$(awk '$2 != 200' "$tmp/all" | wc -l)
[ "$bad" = 0 ] || { bench_fail "the pages" "$bad answers not 200 ($(awk '$2 != 200 {print $1, $2}' "$tmp/all" | sort | uniq -c | head -3 | paste -sd';'))"; bench_exit; }
sbad=$(awk '$2 != 201' "$tmp/submits" | wc -l)
[ "$sbad" = 0 ] || { bench_fail "the submissions" "$sbad not 201"; bench_exit; }
kill -TERM $pid; wait $pid || true; pid=

printf '\nlabd pages (%s): 1000 finished jobs, one running, 60 nights; 10 clients for %s s, each a page every %s s, a submission every 0.2 s\n' "$(uname -n)" "$secs" "$poll"
for p in "${pages[@]}"; do
	awk -v p="$p" '$1 == p {print $3}' "$tmp/all" >"$tmp/one"
	printf '  %-16s %5d fetches  p50 %6.2f ms  p99 %6.2f ms\n' "$(echo "$p" | sed "s|/$held\$|/RUNNING|")" \
		"$(wc -l <"$tmp/one")" "$(ms "$(pct 50 <"$tmp/one")")" "$(ms "$(pct 99 <"$tmp/one")")"
done
awk '{print $3}' "$tmp/all" >"$tmp/one"
printf '  every page       %5d fetches  p50 %6.2f ms  p99 %6.2f ms (target p99 < 50 ms)\n' \
	"$(wc -l <"$tmp/one")" "$(ms "$(pct 50 <"$tmp/one")")" "$(ms "$(pct 99 <"$tmp/one")")"
cat "$tmp"/herd-* >"$tmp/one"
printf '  /ui/ by all 10 at one instant, once: max %6.2f ms\n' "$(ms "$(pct 100 <"$tmp/one")")"
# over10 FILE: how many of FILE's seconds (column 3) exceed 10 ms.
over10() { awk '$3 > 0.010 {n++} END {print n + 0}' "$1"; }
awk '{print $3}' "$tmp/submits" >"$tmp/one"
printf '  submissions      %5d          p50 %6.2f ms  p99 %6.2f ms (target p99 < 10 ms)\n' \
	"$(wc -l <"$tmp/one")" "$(ms "$(pct 50 <"$tmp/one")")" "$(ms "$(pct 99 <"$tmp/one")")"
printf '  submissions over 10 ms: %s\n' "$(over10 "$tmp/submits")"
awk '{print $3}' "$tmp/fsyncs" >"$tmp/one"
printf '  the disk: fsync %5d          p50 %6.2f ms  p99 %6.2f ms, over 10 ms: %s (the floor of a durable submission)\n' \
	"$(wc -l <"$tmp/one")" "$(ms "$(pct 50 <"$tmp/one")")" "$(ms "$(pct 99 <"$tmp/one")")" \
	"$(over10 "$tmp/fsyncs")"
bench_exit
