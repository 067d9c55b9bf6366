#!/usr/bin/env bash
# Integration: `lab run --resume` continues a job after `lab run` was killed, as labd does after a
# restart: quick.json x 3 killed (SIGKILL) while run 2 boots, then resumed with that run
# interrupted.  Run 1 kept byte for byte, run 2 recorded as interrupted and not run again, run 3
# run; another job's report refused.  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
jqr() { jq -e "$2" "$1/report.json"; }
# runs[i] of a report as the lab wrote it (keys sorted, 2-space indent): its lines, byte for
# byte, but for the comma after it (there when another run follows).
run_text() { awk -v want="$2" '
	/^  "runs": \[/ { inside = 1; next }
	inside && /^  \]/ { exit }
	inside && /^    \{$/ { i++ }
	inside && i - 1 == want { sub(/^    \},$/, "    }"); print }' "$1"; }

r=$tmp/rep
jq '.repeats = 3' configs/quick.json >"$tmp/job.json"
jq '.workloads[0].params.memory_mib = 64' "$tmp/job.json" >"$tmp/other.json"

# The first lab run, killed while run 2 of 3 boots.
$lab run "$tmp/job.json" --quiet-wait 0 --out "$r" >"$tmp/first.out" 2>"$tmp/first.err" &
pid=$!
for _ in $(seq 1 1800); do
	grep -q 'run 2/3: booting' "$tmp/first.err" && pgrep -f "guest=numalab-$pid-1" >/dev/null &&
		break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
check "run 2 is booting (its guest up) before the kill" pgrep -f "guest=numalab-$pid-1"
kill -9 $pid
wait $pid 2>/dev/null
for _ in $(seq 1 50); do pgrep -f "guest=numalab-$pid-" >/dev/null || break; sleep 0.1; done
check "no qemu left after SIGKILL of lab run" no_qemu
check "the killed run's report holds run 1 only, ok" jqr "$r" '[.runs[].index] == [0] and .runs[0].status == "ok"'
explain_runs "$r"
check "the report records the job's sha256" jqr "$r" '.job.sha256 | test("^[0-9a-f]{64}$")'
cp "$r/report.json" "$tmp/before.json"
run_text "$tmp/before.json" 0 >"$tmp/run0.before"

# Another job into that directory: refused, the report untouched.
$lab run "$tmp/other.json" --quiet-wait 0 --out "$r" --resume >/dev/null 2>"$tmp/other.err"
ok $(rc_is $? 2) "resuming another job's report exits 2"
has "$tmp/other.err" "job.sha256: the report is of another job" "... saying the report is of another job"
check "... and leaves the report as it was" cmp "$r/report.json" "$tmp/before.json"

# Resumed: run 1 kept, run 2 interrupted (not run again), run 3 run.
$lab run "$tmp/job.json" --quiet-wait 0 --out "$r" --resume --interrupted 1 >"$tmp/resume.out" \
	2>"$tmp/resume.err"
ok $(rc_is $? 3) "the resumed run exits 3 (a run was interrupted)"
check "runs 0, 1, 2 in order" jqr "$r" '[.runs[].index] == [0, 1, 2]'
jqr "$r" '.runs[0].status == "ok" and .runs[2].status == "ok"' >/dev/null
rc=$?
ok $rc "runs 0 and 2 ok"
[ $rc = 0 ] || explain_runs "$r"
check "run 1: infra-error, end interrupted, the reason" jqr "$r" '.runs[1] | .status == "infra-error" and .end == "interrupted" and .reason == "interrupted: the lab was stopped while this run was under way; not run again"'
run_text "$r/report.json" 0 >"$tmp/run0.after"
check "run 0's record byte-identical to before" cmp "$tmp/run0.before" "$tmp/run0.after"
check "run 0's record not empty" test -s "$tmp/run0.after"
check "the same report: id and created kept" jq -e --slurpfile b "$tmp/before.json" '.id == $b[0].id and .created == $b[0].created' "$r/report.json"
check "status infra-error" jqr "$r" '.status == "infra-error"'
if [ -e "$r/run-1/console.log" ]; then
	check "run 1's console.log, left by the killed run, is named" jqr "$r" '.runs[1].console == "run-1/console.log"'
else
	check "run 1 left no console.log: none named" jqr "$r" '.runs[1].console == ""'
fi
has "$tmp/resume.out" "3 run(s): 2 ok; status infra-error" "the summary counts the kept run"
has "$tmp/resume.err" "run 1/3: kept from the earlier report" "progress: run 1 kept"
has "$tmp/resume.err" "run 2/3: infra-error, not run again: interrupted" "progress: run 2 not run again"
check "only run 3 booted" test "$(grep -c ': booting' "$tmp/resume.err")" = 1
has "$tmp/resume.err" "run 3/3: booting" "... run 3"
check "no qemu left after the resumed run" no_qemu

# Resumed once more, from the job laid out otherwise: the same job; nothing is left to run.
jq -c . "$tmp/job.json" >"$tmp/job-compact.json"
cp "$r/report.json" "$tmp/done.json"
$lab run "$tmp/job-compact.json" --quiet-wait 0 --out "$r" --resume --interrupted 2 \
	>"$tmp/again.out" 2>"$tmp/again.err"
ok $(rc_is $? 3) "resuming a finished report (the job reformatted) exits 3 as before"
check "... boots nothing" sh -c "! grep -q ': booting' '$tmp/again.err'"
check "... and keeps every run, run 2 too although listed as interrupted" cmp <(jq -S .runs "$tmp/done.json") <(jq -S .runs "$r/report.json")
has "$tmp/again.out" "3 run(s): 2 ok; status infra-error" "... counting them all"

/usr/bin/python3 lab/tests/validate-reports.py "$r/report.json" "$tmp/before.json" >"$tmp/schema.out" 2>&1
ok $? "the resumed report validates against reports/report.schema.json"
grep '^not ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'

finish
