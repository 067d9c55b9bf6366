#!/usr/bin/env bash
# TAP test of the benchmarks' checks (lab/tests/benchlib.sh): a lab run counts only when it
# exited 0 and wrote a report whose runs are all ok, a failed one is named with its status and
# reason, a figure must be a number, and a part with a failed run exits 1.  No guest is booted.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/benchlib.sh
T=$(mktemp -d /tmp/numalab-test-benchlib.XXXXXX)
trap 'rm -rf "$T"' EXIT

# report DIR STATUS...: DIR/report.json with one run per STATUS.
report() {
	local d=$1
	shift
	mkdir -p "$d"
	jq -n '$ARGS.positional | {status: (if all(. == "ok") then "ok" else (map(select(. != "ok")) | .[0]) end),
		runs: (to_entries | map({index: .key, status: .value, end: "stopped",
			reason: (if .value == "ok" then "all workloads completed" else "no heartbeat for 60 s" end)}))}' \
		--args "$@" >"$d/report.json"
}
# lab_ok_is WANT DESC ARGS...: lab_ok ARGS returns WANT; its stderr in $T/err.
lab_ok_is() {
	local want=$1 desc=$2 got=0
	shift 2
	lab_ok "$@" 2>"$T/err" || got=$?
	ok "$(rc_is "$got" "$want")" "$desc"
}

report "$T/good" ok ok
lab_ok_is 0 "lab_ok: exit 0, every run ok" 0 "$T/good" "good run"
check "... nothing said" test ! -s "$T/err"
lab_ok_is 1 "lab_ok: exit 3 with runs ok is still a failure" 3 "$T/good" "odd run"
has "$T/err" "bench: odd run failed: lab exited 3" "... says the exit status"
report "$T/hang" ok hang
lab_ok_is 1 "lab_ok: a run not ok" 3 "$T/hang" "lab run, round 2"
has "$T/err" "bench: lab run, round 2 failed: lab exited 3, report status hang" "... says what failed"
has "$T/err" "run 1: hang (stopped): no heartbeat for 60 s" "... names the run and why"
echo "lab: run 2/2: hang (no heartbeat)" >"$T/none.log"
lab_ok_is 1 "lab_ok: no report" 1 "$T/none" "the warm-up run" "$T/none.log"
has "$T/err" "lab exited 1 without a report" "... says there is no report"
has "$T/err" "lab: run 2/2: hang" "... with the log's last lines"
report "$T/empty"
lab_ok_is 1 "lab_ok: a report without runs" 0 "$T/empty" "empty"

for v in 1 0.5 .50000 12.345 -1 1e3; do check "bench_num: '$v' is a number" bench_num x y "$v"; done
for v in "" null "?" abc 1.2.3 "1 2"; do
	bench_num x y "$v" 2>"$T/err"
	ok "$(rc_is $? 1)" "bench_num: '$v' is not"
done
has "$T/err" "bench: x failed: no y (got '1 2')" "... and says so"

bench_failed=0
(bench_exit) 2>"$T/err"
ok "$(rc_is $? 0)" "bench_exit: 0 when no run failed"
(bench_fail "bare run 1" "the guest did not power off within 3 s" 2>/dev/null; bench_exit) 2>"$T/err"
ok "$(rc_is $? 1)" "bench_exit: 1 after bench_fail"
has "$T/err" "a run failed; no figure was printed from it" "... and says so"

# BENCHMARKS.md (lab/tests/bench-record.py): a section a part, each with its own stamp; a part
# run again replaces its own section only; a failed part says so.
md=$T/BENCHMARKS.md
echo "model figures 1" >"$T/p1"; echo "compare figures" >"$T/p2"; echo "model figures 2" >"$T/p3"
python3 lab/tests/bench-record.py "$md" model "- date: one" "$T/p1"
python3 lab/tests/bench-record.py "$md" compare "- date: two" "$T/p2"
python3 lab/tests/bench-record.py "$md" model "- date: three" "$T/p3" failed
[ "$(grep '^## ' "$md" | tr '\n' ' ')" = "## compare ## model " ]
ok $? "bench-record: one section a part, in bench.sh's order"
has "$md" "model figures 2" "... a part run again replaces its section"
! grep -q "model figures 1" "$md"; ok $? "... its old figures gone"
has "$md" "- date: two" "... the other part's section and stamp kept"
has "$md" "**This part failed**" "... a failed part says so"
head -1 "$md" | grep -q "^# Benchmarks$"; ok $? "... under the file's heading"
printf 'intro\n<!-- bench:seeds -->\nold\n<!-- /bench:seeds -->\noutro\n' >"$T/doc.md"
python3 lab/tests/bench-record.py --block "$T/doc.md" seeds "- date: four" "$T/p2"
grep -q "compare figures" "$T/doc.md" && ! grep -q "^old$" "$T/doc.md" &&
	[ "$(head -1 "$T/doc.md")" = intro ] && [ "$(tail -1 "$T/doc.md")" = outro ]
ok $? "bench-record --block: the generated block of another document replaced, the rest kept"
has "$T/doc.md" "- date: four" "... with its stamp"
python3 lab/tests/bench-record.py --block "$T/BENCHMARKS.md" seeds "- date: x" "$T/p2" 2>"$T/err"
ok "$(rc_is $? 1)" "... a document without the block is refused"
finish
