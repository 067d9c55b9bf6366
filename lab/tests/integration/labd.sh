#!/usr/bin/env bash
# Integration: labd on a temporary socket and state directory.  A real job (configs/quick.json,
# a real guest) submitted and finished; labd SIGKILLed while a 3-run job boots its second
# guest, then started again: no guest left, the cut-short run recorded as interrupted, the job
# finished with its next run, no run lost or run twice; a running job cancelled; SIGTERM mid-run
# and a restart; malformed and oversized requests; the socket's mode; TCP with a token.  The
# 50 concurrent submissions run through a stand-in for `lab run` (labd --lab): what is tested
# there is the queue (all accepted, each run exactly once), not the guests, and 50 real guests
# would take 15 minutes.  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
. lab/tests/lib-labd.sh
tmp=$(mktemp -d /tmp/numalab-labd.XXXXXX)
sock=$tmp/labd.sock
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
# code METHOD PATH [curl args]: the HTTP status only.
code() { local m=$1 p=$2; shift 2; curl -s -o "$tmp/body" -w '%{http_code}' --max-time 70 \
	--unix-socket "$sock" -X "$m" "http://labd$p" "$@"; }

# 1. Start, health, the socket's mode.
state=$tmp/state
mkdir -p "$state"
start_labd "$state"
ok $? "labd starts and answers /v1/health"
check "health says ok and its state dir" bash -c "curl -s --unix-socket $sock http://labd/v1/health | jq -e '.ok == true and .state_dir == \"$state\"'"
check "the socket is mode 0660" test "$(stat -c %a "$sock")" = 660
timeout 10 "$labd" --state "$state" --socket "$tmp/other.sock" 2>"$tmp/second.err"
rc=$?
check "a second labd on the same state directory refuses (exit 1, got $rc)" test "$rc" = 1
check "... saying why" grep -q "another labd runs on $state" "$tmp/second.err"

# 2. Bad requests: 4xx with a message, and the daemon lives on.
c=$(code POST /v1/jobs --data-binary '{"name": "x", "topology": ')
check "not JSON: 400 ($c)" test "$c" = 400
check "... with a message" jq -e '.error | test("not valid JSON")' "$tmp/body"
c=$(code POST /v1/jobs --data-binary '{"name": "x", "topology": "4s-8c", "kernel": {"image": "/boot/vmlinuz-*"}, "workloads": [{"name": "no-such-workload"}]}')
check "an invalid job: 400 ($c)" test "$c" = 400
check "... with lab run's words and the JSON path" jq -e '.path == "workloads[0].name" and (.error | startswith("job: workloads[0].name: "))' "$tmp/body"
c=$(code POST /v1/jobs --data-binary '{"a": 1, "a": 2}')
check "duplicate keys: 400 ($c)" test "$c" = 400
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/big"
c=$(code POST /v1/jobs --data-binary @"$tmp/big")
check "an oversized body: 413 ($c)" test "$c" = 413
check "... with a message" jq -e '.error | test("larger than")' "$tmp/body"
c=$(code GET /v1/jobs/../../etc/passwd)
check "a path in place of an id: 404 ($c)" test "$c" = 404
c=$(code GET /v1/jobs/12abc)
check "a malformed id: 404 ($c)" test "$c" = 404
c=$(code GET /v1/jobs/999999)
check "an unknown job: 404 ($c)" test "$c" = 404
c=$(code DELETE /v1/jobs)
check "a wrong method: 405 ($c)" test "$c" = 405
c=$(code GET "/v1/events?since=-1")
check "a bad query argument: 400 ($c)" test "$c" = 400
check "the daemon lives on" bash -c "curl -s --unix-socket $sock http://labd/v1/health | jq -e .ok"

# 2b. Alerts: the API and `lab history alerts` share the history index (lab/history/alerts.h).
c=$(code GET /v1/alerts)
check "no index yet: no alerts ($c)" jq -e '.schema == "numalab.alerts/1" and (.alerts | length) == 0' "$tmp/body"
aid=$(${B:-build}/tests/test_alerts --seed "$state/history.db")
c=$(code GET /v1/alerts)
check "an alert raised: listed, new ($c)" jq -e --argjson id "${aid:-0}" '[.alerts[] | select(.id == $id and .state == "new")] | length == 1' "$tmp/body"
c=$(code POST "/v1/alerts/$aid" --data-binary '{"state": "acknowledged", "by": "<script>x</script>", "note": "seen"}')
check "acknowledged through the API: 200 ($c)" test "$c" = 200
check "... and lab history alerts says so, by whom" bash -c "$lab history alerts --state '$state' --show acknowledged --json | jq -e '.alerts[0].who == \"<script>x</script>\" and .alerts[0].note == \"seen\"'"
c=$(code POST "/v1/alerts/$aid" --data-binary '{"state": "fixed"}')
check "fixed without its commit: 400 ($c)" bash -c "test $c = 400 && jq -e '.error | test(\"commit\")' $tmp/body"
c=$(code POST /v1/alerts/424242 --data-binary '{"state": "invalid"}')
check "an unknown alert: 404 ($c)" test "$c" = 404
c=$(code GET "/v1/alerts?show=bogus")
check "a bad show=: 400 ($c)" test "$c" = 400

# 3. A real job, submitted and finished.
c=$(code POST /v1/jobs --data-binary @configs/quick.json)
check "quick.json accepted: 201 ($c)" test "$c" = 201
id=$(jq -r .id "$tmp/body")
s=$(wait_job "$id" 300)
check "it ran to the end: done ($s)" test "$s" = done
api "http://labd/v1/jobs/$id/report" >"$tmp/quick.json"
check "its report through the API: status ok, one run" jq -e '.status == "ok" and (.runs | length == 1)' "$tmp/quick.json"
jq -r '"# its run took \(.runs[0].timings.total_s) s (the kills below wait for a guest, not a delay)"' "$tmp/quick.json"
wait_limit=$(jq '(.runs[0].timings.total_s // 200) * 3 + 120 | floor' "$tmp/quick.json")
api "http://labd/v1/events?job=$id" >"$tmp/ev.json"
check "events: accepted, started, run-started, run-ended ok, done" jq -e '[.events[].type] as $t | ($t | index("accepted")) < ($t | index("started")) and ($t | index("run-started")) < ($t | index("run-ended")) and $t[-1] == "done" and ([.events[] | select(.type == "run-ended")][0].data.status == "ok")' "$tmp/ev.json"
last=$(jq .last "$tmp/ev.json")
t0=$(date +%s.%N)
api "http://labd/v1/events?since=$last&timeout=2" >"$tmp/lp.json"
el=$(echo "$(date +%s.%N) - $t0" | bc)
check "a long poll with nothing new returns empty after its timeout (${el} s)" bash -c "jq -e '.events == []' $tmp/lp.json && echo '$el >= 1.9 && $el < 5' | bc | grep -q 1"
c=$(code GET "/v1/jobs/$id/dashboard")
check "its dashboard: 200 HTML ($c)" bash -c "test $c = 200 && grep -qi '<html' $tmp/body"

# 4. SIGKILL mid-run and a restart: the job continues with its next run.
jq '.repeats = 3 | .name = "labd-kill"' configs/quick.json >"$tmp/three.json"
c=$(code POST /v1/jobs --data-binary @"$tmp/three.json")
kid=$(jq -r .id "$tmp/body")
check "a 3-run job accepted ($c)" test "$c" = 201
check "run 1 of the 3-run job under way: its run-started event and its guest (< $wait_limit s)" \
	booting "$kid" 1
kdir=$(api "http://labd/v1/jobs/$kid" | jq -r .out_dir)
kill -9 "$labd_pid"
wait "$labd_pid" 2>/dev/null
sleep 3
check "SIGKILL: no guest of the killed labd left" no_qemu_of "$state"
jq -c '.runs[0]' "$kdir/report.json" >"$tmp/run0.before" 2>/dev/null
start_labd "$state"
ok $? "labd starts again"
check "... and says it queued the cut-short job again" grep -q "cut short by the last labd" "$tmp/labd.log"
s=$(wait_job "$kid" 400)
check "the job finished after the restart ($s)" test "$s" = done
api "http://labd/v1/jobs/$kid/report" >"$tmp/kill.json"
check "three runs: 0 ok, 1 interrupted (not run again), 2 ok" jq -e '[.runs[] | .status] == ["ok", "infra-error", "ok"] and (.runs[1].reason | test("interrupted"))' "$tmp/kill.json"
jq -r '.runs[] | "# run \(.index): \(.status): \(.reason)"' "$tmp/kill.json" | grep -v '^# run [02]: ok:'
jq -c '.runs[0]' "$tmp/kill.json" >"$tmp/run0.after"
check "run 0 kept as it was (not run twice)" cmp -s "$tmp/run0.before" "$tmp/run0.after"
cmp -s "$tmp/run0.before" "$tmp/run0.after" || diff <(jq . "$tmp/run0.before") <(jq . "$tmp/run0.after") | head -10 | sed 's/^/# /' 
api "http://labd/v1/events?job=$kid" >"$tmp/kev.json"
check "the event log: the interruption with run 1, each run started once after it" jq -e '([.events[] | select(.type == "interrupted")][0].data.runs == [1]) and ([.events[] | select(.type == "run-started") | .data.index] | group_by(.) | map(length) | max == 1)' "$tmp/kev.json"

# 5. Cancel a running job: its guest is destroyed, the job ends cancelled.
jq '.repeats = 2 | .name = "labd-cancel"' configs/quick.json >"$tmp/cancel.json"
c=$(code POST /v1/jobs --data-binary @"$tmp/cancel.json")
cid=$(jq -r .id "$tmp/body")
check "run 0 of the job to cancel under way (< $wait_limit s)" booting "$cid" 0
c=$(code POST "/v1/jobs/$cid/cancel")
check "cancel of a running job: 200, still running until its guest is gone ($c)" bash -c "test $c = 200 && jq -e '.state == \"running\" and .cancel_requested' $tmp/body"
s=$(wait_job "$cid" 60)
check "... then cancelled ($s)" test "$s" = cancelled
check "... no guest left" no_qemu_of "$state"
c=$(code POST "/v1/jobs/$cid/cancel")
check "cancel of an ended job: 409 ($c)" test "$c" = 409

# 6. SIGTERM mid-run with no grace: the run is interrupted, labd exits 0, and the job goes on
# with its next run when labd starts again.
kill -TERM "$labd_pid"
wait "$labd_pid"
start_labd "$state" --grace 0
jq '.repeats = 2 | .name = "labd-term"' configs/quick.json >"$tmp/term.json"
c=$(code POST /v1/jobs --data-binary @"$tmp/term.json")
tid=$(jq -r .id "$tmp/body")
check "run 0 of the job to stop under way (< $wait_limit s)" booting "$tid" 0
kill -TERM "$labd_pid"
wait "$labd_pid"
ok $? "SIGTERM mid-run (--grace 0): labd exits 0"
check "... no guest left" no_qemu_of "$state"
start_labd "$state"
s=$(wait_job "$tid" 300)
check "the job went on after the restart: done ($s)" test "$s" = done
api "http://labd/v1/jobs/$tid/report" >"$tmp/term-r.json"
check "run 0 interrupted by the signal, run 1 ok" jq -e '[.runs[] | .status] == ["infra-error", "ok"] and (.runs[0].reason | test("interrupted"))' "$tmp/term-r.json"
jq -r '.runs[] | "# run \(.index): \(.status): \(.reason)"' "$tmp/term-r.json" | grep -v '^# run 1: ok:'

# 7. SIGTERM: stops accepting, exits 0, removes its socket.
kill -TERM "$labd_pid"
wait "$labd_pid"
ok $? "SIGTERM: labd exits 0"
check "... and its socket is gone" test ! -e "$sock"
$lab queue --socket "$sock" >"$tmp/q.out" 2>"$tmp/q.err"
rc=$?
check "lab queue against a stopped daemon: exit 4 ($rc), at once" test "$rc" = 4
check "... saying labd is not running" grep -q "not running" "$tmp/q.err"

# 8. TCP only with a bearer token from a 0600 file.
state3=$tmp/state3
mkdir -p "$state3"
port=$((20000 + RANDOM % 20000))
printf 'numalab-test-token-0123456789\n' >"$tmp/token"
chmod 0644 "$tmp/token"
timeout 10 "$labd" --state "$state3" --socket "$sock" --listen "127.0.0.1:$port" --token-file "$tmp/token" 2>"$tmp/tok.err"
rc=$?
check "a token file others can read is refused (exit 1, got $rc)" bash -c "test $rc = 1 && grep -q 'mode 0600' $tmp/tok.err"
chmod 0600 "$tmp/token"
start_labd "$state3" --listen "127.0.0.1:$port" --token-file "$tmp/token"
ok $? "labd with a TCP listener starts"
c=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/v1/health")
check "TCP without the token: 401 ($c)" test "$c" = 401
c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer numalab-test-token-0123456788' "http://127.0.0.1:$port/v1/health")
check "TCP with a wrong token: 401 ($c)" test "$c" = 401
c=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer numalab-test-token-0123456789' "http://127.0.0.1:$port/v1/health")
check "TCP with the token: 200 ($c)" test "$c" = 200
kill -TERM "$labd_pid"
wait "$labd_pid"

# 9. 50 concurrent submissions through a stand-in `lab run` (see the top).
fake=$tmp/fake-lab
cat >"$fake" <<'EOF'
#!/usr/bin/env bash
# labd's stand-in for `lab run JOB --out DIR ...`: one quick "run", a report, a count.
[ "$1" = run ] || exit 1
out=$4
mkdir -p "$out"
echo "lab: run 1/1: booting stand-in, 1 vCPUs, 1 nodes (none)" >&2
echo "$(jq -r .name "$2")" >>"$(dirname "$0")/ran.txt"
printf '{"status": "ok", "runs": [{"index": 0, "status": "ok"}]}\n' >"$out/report.json"
echo "lab: run 1/1: ok (stand-in) boot 0.0 s, total 0.0 s" >&2
EOF
chmod +x "$fake"
state2=$tmp/state2
mkdir -p "$state2"
start_labd "$state2" --lab "$fake"
ok $? "labd with a stand-in lab starts"
subs=()
for i in $(seq 50); do
	jq --arg n "c$i" '.name = $n' configs/quick.json |
		curl -s -o "$tmp/sub-$i.json" -w '%{http_code}\n' --unix-socket "$sock" \
			--data-binary @- http://labd/v1/jobs >"$tmp/code-$i" &
	subs+=($!)
done
wait "${subs[@]}" # not labd, which runs in the background too
check "50 concurrent submissions: all 201" bash -c "cat $tmp/code-* | sort -u | tr -d '\n' | grep -qx 201"
check "... 50 distinct ids" test "$(cat "$tmp"/sub-*.json | jq -r .id | sort -u | wc -l)" = 50
for _ in $(seq 120); do
	[ "$(api 'http://labd/v1/jobs?state=done' | jq '.jobs | length')" = 50 ] && break
	sleep 0.5
done
check "all 50 done" test "$(api 'http://labd/v1/jobs?state=done' | jq '.jobs | length')" = 50
check "each ran exactly once" test "$(sort "$tmp/ran.txt" | uniq -c | awk '$1 != 1' | wc -l)$(wc -l <"$tmp/ran.txt")" = 050
kill -TERM "$labd_pid"
wait "$labd_pid"
check "no guest of any labd left" no_qemu_of "$state"
diag "$tmp/labd.log" | tail -5
finish
