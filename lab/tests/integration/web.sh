#!/usr/bin/env bash
# Integration: labd's pages (lab/daemon/API.md, "Pages") over its unix socket, its TCP listener
# and `lab web`'s forwarder.  Four jobs of configs/quick.json (the cheapest job labd.sh runs)
# go through a stand-in for `lab run` (labd --lab), as labd.sh's queue test does: what is
# tested is what the pages say of the queue, a job's progress and its log, not the guests;
# the stand-in holds each run until the test lets it go, so that the progress the pages show
# is known, and writes a console line with markup, quotes, '&', a control byte and a byte that
# is not UTF-8 into the log.  A seeded history (lab/tests/make-reports.py: 8 nights, then 6 at
# 0.7x) for the trends, a seeded alert (test_alerts --seed) triaged with the page's form.  With
# Chromium installed, each page is loaded headless through `lab web` and a screenshot kept in
# $B/test-artifacts/web-*.png (the queue twice: the running job's progress between them), and
# an open page follows the job live (lab/tests/web-live-check.py: the DevTools protocol).  As
# root with Slurm installed, labd --backend slurm on integration-slurm's one-node cluster: the
# queue shows a job's class, its Slurm job id and its progress.  About 40 s.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
. lab/tests/lib-labd.sh
tmp=$(mktemp -d /tmp/numalab-web.XXXXXX)
sock=$tmp/labd.sock
ART=$B/test-artifacts
mkdir -p "$ART"
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	[ -d "$tmp/cluster" ] && lab/tests/slurm-cluster.sh stop "$tmp/cluster" >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
# page PATH [curl args]: the page over the unix socket into $tmp/page; prints the status.
page() { local p=$1; shift; curl -s -o "$tmp/page" -w '%{http_code}' --max-time 70 \
	--unix-socket "$sock" "http://labd$p" "$@"; }
# events_of ID TYPE: how many events of that type job ID has.
events_of() { api "http://labd/v1/events?job=$1" | jq --arg t "$2" '[.events[] | select(.type == $t)] | length'; }
# until_n SECONDS CMD...: until CMD succeeds, at most SECONDS.
until_n() { local s=$1; shift; for _ in $(seq $((s * 10))); do "$@" && return 0; sleep 0.1; done; return 1; }
# state_is ID STATE, ended_runs ID N, started_runs ID N: what the conditions of until_n ask.
state_is() { test "$(api "http://labd/v1/jobs/$1" | jq -r .state)" = "$2"; }
ended_runs() { test "$(events_of "$1" run-ended)" = "$2"; }
started_runs() { test "$(events_of "$1" run-started)" = "$2"; }
# go NAME RUN: the stand-in's run RUN of job NAME may end.
go() { : >"$tmp/go-$1-$2"; }

fake=$tmp/fake-lab
cat >"$fake" <<'EOS'
#!/usr/bin/env bash
# labd's stand-in for `lab run JOB --out DIR ...`: three runs; when $dir/gate-NAME exists each
# run ends only once $dir/go-NAME-RUN does.
[ "$1" = run ] || exit 1
dir=$(dirname "$0") out=$4 name=$(jq -r .name "$2")
mkdir -p "$out"
for i in 1 2 3; do
	echo "lab: run $i/3: booting stand-in, 1 vCPUs, 1 nodes (none)" >&2
	printf 'lab: console: <script>alert("%s")</script> & it'"'"'s \001 \377 done\n' "$name" >&2
	if [ -e "$dir/gate-$name" ]; then
		while [ ! -e "$dir/go-$name-$i" ]; do sleep 0.1; done
	fi
	echo "lab: run $i/3: ok (stand-in) boot 0.0 s, total 0.0 s" >&2
done
printf '{"status": "ok", "runs": [{"index": 0, "status": "ok"}]}\n' >"$out/report.json"
EOS
chmod +x "$fake"

# 1. A history to draw and an alert to triage, then labd.
state=$tmp/state
mkdir -p "$state"
python3 lab/tests/make-reports.py "$tmp/r/a" --reports 8 --runs 2 --tasks 8 --metrics 1 --seed 3 \
	--start 2026-11-01T00:00:00Z >/dev/null
python3 lab/tests/make-reports.py "$tmp/r/b" --reports 6 --runs 2 --tasks 8 --metrics 1 --seed 4 \
	--start 2026-11-09T00:00:00Z --factor faults_per_s=0.7 >/dev/null
check "a history of 14 nights indexed" "$lab" history index --state "$state" "$tmp"/r/*/r-*/report.json
aid=$("$B/tests/test_alerts" --seed "$state/history.db")
start_labd "$state" --lab "$fake"
ok $? "labd with a stand-in lab starts"

# 2. Four jobs: web-a once to the end (what an estimate is made from), then web-a again held
# at each run, web-b and web-c queued behind it.
submit() { jq --arg n "$1" '.name = $n' configs/quick.json | api --data-binary @- http://labd/v1/jobs | jq -r .id; }
j1=$(submit web-a)
check "job $j1 runs to its end" until_n 30 state_is "$j1" done
: >"$tmp/gate-web-a"
j2=$(submit web-a)
j3=$(submit web-b)
j4=$(submit web-c)
check "job $j2 runs, held in its first run" until_n 30 started_runs "$j2" 1

c=$(page /ui/)
check "the queue: 200 ($c)" test "$c" = 200
has "$tmp/page" "job <a href=\"/ui/jobs/$j2\">$j2</a> web-a" "... names the running job"
has "$tmp/page" 'runs done: <b class="done">0</b>, to go: <b class="togo">3</b> of 3' "... its runs done and to go"
has "$tmp/page" "from 1 finished job of this name" "... an estimate from the finished web-a"
has "$tmp/page" 'now: <span class="step">console: &lt;script&gt;alert(&quot;web-a&quot;)&lt;/script&gt; &amp; it&#39;s' "... the step, the console line as text"
has "$tmp/page" "&#39;s � ? done</span>" "... its control byte as U+FFFD, its byte that is not UTF-8 as '?' (labd's worker)"
check "... no markup of the console's" bash -c "! grep -q '<script>alert' $tmp/page"
me=$(id -un)
has "$tmp/page" "jobs/$j3\">$j3</a></td><td>web-b</td><td>$me</td><td>-</td><td>queued</td><td>1</td>" "... web-b queued next (1), submitted by $me (the socket's peer)"
has "$tmp/page" "jobs/$j4\">$j4</a></td><td>web-c</td><td>$me</td><td>-</td><td>queued</td><td>2</td>" "... web-c after it (2)"
check "... valid UTF-8" iconv -f UTF-8 -t UTF-8 "$tmp/page"
c=$(page /)
check "/ is the queue too ($c)" bash -c "test $c = 200 && grep -q '<h1>queue</h1>' $tmp/page"

c=$(page "/ui/jobs/$j2")
check "a running job's page: 200 ($c)" test "$c" = 200
has "$tmp/page" "run-started  run 1 of 3" "... its log tail"
has "$tmp/page" "data-job=\"$j2\"" "... follows its events (web.js)"
check "... no dashboard link yet" bash -c "! grep -q '/v1/jobs/$j2/dashboard' $tmp/page"
c=$(page "/ui/jobs/$j1")
check "a finished job's page links its dashboard ($c)" bash -c "test $c = 200 && grep -q 'href=\"/v1/jobs/$j1/dashboard\"' $tmp/page && ! grep -q web.js $tmp/page"

# 3. Trends: every point drawn, the step at night 9 a change point.
c=$(page /ui/trends)
check "the trends: 200 ($c)" test "$c" = 200
check "... 14 points drawn in an inline SVG" test "$(grep -c '<circle class="point"' "$tmp/page")" = 14
check "... the change point of the step, about -30 %" grep -q 'class="change".*-3[0-9]\.[0-9] %' "$tmp/page"
check "... the JSON API says the same (/v1/trends)" bash -c "api http://labd/v1/trends | jq -e '.series[0].points | length == 14' && api http://labd/v1/trends | jq -e '.series[0].changes[0].at == 8'"

# 4. Alerts: the form goes through POST /v1/alerts/ID's checks and call.
c=$(page /ui/alerts)
check "the alerts: 200, the seeded one with its form ($c)" bash -c "test $c = 200 && grep -q 'action=\"/ui/alerts/$aid\"' $tmp/page"
c=$(page "/ui/alerts/$aid" -H 'Origin: http://evil.example' --data 'state=invalid')
check "a form from another origin: 403 ($c)" test "$c" = 403
c=$(page "/ui/alerts/$aid" -H 'Origin: http://labd' --data 'state=fixed')
check "fixed without its commit: 400, as the API ($c)" bash -c "test $c = 400 && grep -q commit $tmp/page"
c=$(page "/ui/alerts/$aid" --data 'state=acknowledged&bogus=1&note=a%0Ab')
check "a note with a line break: 400 ($c)" test "$c" = 400
c=$(curl -s -o /dev/null -w '%{http_code} %{redirect_url}' --unix-socket "$sock" -H 'Origin: http://labd' \
	--data 'state=acknowledged&by=jane&show=all&note=%3Cscript%3Ex%3C%2Fscript%3E+%26+seen' "http://labd/ui/alerts/$aid")
check "acknowledged with the form: 303 back to the list ($c)" bash -c "echo '$c' | grep -q '^303 http://labd/ui/alerts?show=all&set=$aid#alert-$aid\$'"
check "... lab history alerts says so, by jane, the note as typed" bash -c "$lab history alerts --state $state --show acknowledged --json | jq -e '.alerts[0].id == $aid and .alerts[0].who == \"jane\" and .alerts[0].note == \"<script>x</script> & seen\"'"
c=$(page "/ui/alerts?show=all&set=$aid")
has "$tmp/page" '<td>&lt;script&gt;x&lt;/script&gt; &amp; seen</td>' "... and the page shows the note as text"
has "$tmp/page" "<p class=\"said\">alert $aid was set</p>" "... and which alert was set (by its number: no text of a request is said back)"
c=$(page "/ui/alerts?set=%3Cb%3Ex")
check "a set= that is not a number says nothing ($c)" bash -c "test $c = 200 && ! grep -q 'class=\"said\"' $tmp/page"
c=$(page "/ui/alerts/$aid" --data 'state=invalid')
check "a form that names no one: set by the socket's user ($c)" bash -c "test $c = 303 && $lab history alerts --state $state --show invalid --json | jq -e '.alerts[0].who == \"$me\"'"
c=$(page "/ui/alerts/$aid" --data 'state=invalid&note=%FF')
check "a field that is not UTF-8: 400 ($c)" test "$c" = 400
head -c 20000 /dev/zero | tr '\0' a >"$tmp/bigform"
c=$(page "/ui/alerts/$aid" --data-binary @"$tmp/bigform")
check "a form too large: 413 ($c)" test "$c" = 413

# 5. What is not a page.
c=$(page /ui/jobs/999999)
check "an unknown job: 404 ($c)" test "$c" = 404
c=$(page /ui/jobs/../../etc/passwd --path-as-is)
check "a path in place of an id: 404 ($c)" test "$c" = 404
c=$(page /ui/nothing)
check "no such page: 404 ($c)" test "$c" = 404
c=$(page /ui/ -X DELETE)
check "a wrong method: 405 ($c)" test "$c" = 405
c=$(page /ui/web.js)
check "the script ships with the lab: 200 ($c)" bash -c "test $c = 200 && grep -q 'v1/events' $tmp/page"

# 6. The progress advances: run 1 ends, run 2 starts.
go web-a 1
check "run 1 of job $j2 ended" until_n 30 ended_runs "$j2" 1
page /ui/ >/dev/null
has "$tmp/page" 'runs done: <b class="done">1</b>, to go: <b class="togo">2</b> of 3' "the queue: one run done, two to go"

# 7. lab web: a loopback port forwarded to the socket, behind this run's key.
"$lab" web --socket "$sock" >"$tmp/url" 2>"$tmp/web.err" &
web_pid=$!
pids+=("$web_pid")
check "lab web prints its URL" until_n 10 grep -q '^http://127.0.0.1:[0-9]*/ui/?key=[0-9a-f]\{32\}$' "$tmp/url"
url=$(head -1 "$tmp/url")
base=${url%%/ui/*} key=${url##*key=}
c=$(curl -s -o /dev/null -w '%{http_code}' "$base/ui/")
check "without its key: 403 ($c)" test "$c" = 403
c=$(curl -s -o /dev/null -w '%{http_code}' -b "labweb=0123456789abcdef0123456789abcdef" "$base/ui/")
check "with a wrong key: 403 ($c)" test "$c" = 403
c=$(curl -s -D "$tmp/hdr" -o /dev/null -w '%{http_code}' "$url")
check "the URL printed: 303 with the key as a cookie ($c)" bash -c "test $c = 303 && grep -qi '^set-cookie: labweb=$key; Path=/; HttpOnly; SameSite=Strict' $tmp/hdr"
c=$(curl -s -D "$tmp/hdr" -o /dev/null -w '%{http_code}' --path-as-is "$base//evil.example/?key=$key")
check "the key on //HOST/...: back to /ui/, not to HOST ($c)" bash -c "test $c = 303 && grep -qi '^location: /ui/.\$' $tmp/hdr"
c=$(curl -s -o "$tmp/fw" -w '%{http_code}' -b "labweb=$key" "$base/ui/")
check "with the cookie: the queue ($c)" bash -c "test $c = 200 && grep -q '<h1>queue</h1>' $tmp/fw"
c=$(curl -s -o /dev/null -w '%{http_code}' -b "labweb=$key" -H 'Origin: http://evil.example' --data-binary @configs/quick.json "$base/v1/jobs")
check "a POST from another origin, with the cookie: 403 ($c)" test "$c" = 403

# 8. Chromium: each page loaded through lab web, a screenshot each; the queue twice.
if command -v chromium >/dev/null; then
	chrome() {
		local profile
		profile=$(mktemp -d "$tmp/profile.XXXXXX")
		timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$profile" --window-size=1200,900 "$@" 2>>"$tmp/chromium.log"
	}
	shot() {
		local sep='?'
		[[ $2 == *\?* ]] && sep='&'
		chrome --screenshot="$ART/web-$1.png" "$base$2${sep}key=$key" >/dev/null && test -s "$ART/web-$1.png"
	}
	check "chromium: the queue, one run done (web-queue-1.png)" shot queue-1 /ui/
	chrome --dump-dom "$base/ui/?key=$key" >"$tmp/dom1"
	# Live: the open queue page, its run 2 let go, shows 2 runs done without a reload.
	python3 lab/tests/web-live-check.py "$base/ui/?key=$key" '#running .done' "$tmp/go-web-a-2" 2 >"$tmp/live1"
	ok $? "chromium: the open queue page follows the job live (web.js): $(cat "$tmp/live1")"
	until_n 30 ended_runs "$j2" 2
	check "chromium: the queue, two runs done (web-queue-2.png)" shot queue-2 /ui/
	chrome --dump-dom "$base/ui/?key=$key" >"$tmp/dom2"
	check "... the progress advanced between the two: 1 done, then 2" bash -c "grep -q 'class=\"done\">1</b>' $tmp/dom1 && grep -q 'class=\"done\">2</b>' $tmp/dom2"
	check "chromium: the running job (web-job.png)" shot job "/ui/jobs/$j2"
	check "chromium: the trends (web-trends.png)" shot trends /ui/trends
	chrome --dump-dom "$base/ui/trends?key=$key" >"$tmp/dom3"
	check "... 14 points drawn" test "$(grep -o '<circle class="point"' "$tmp/dom3" | wc -l)" = 14
	# The alert triaged on the page as a person would: its form filled in and its button
	# clicked in Chromium, then read back with lab history alerts.
	python3 lab/tests/web-form-check.py "$base/ui/alerts?show=all&key=$key" "$aid" acknowledged \
		"seen in chromium" "chromium-user" >"$tmp/form1" 2>&1
	ok $? "chromium: alert $aid acknowledged with its form on the page: $(cat "$tmp/form1")"
	check "... lab history alerts says acknowledged, by chromium-user, the note as typed" bash -c \
		"$lab history alerts --state $state --show acknowledged --json | jq -e '.alerts[0].id == $aid and .alerts[0].who == \"chromium-user\" and .alerts[0].note == \"seen in chromium\"'"
	check "chromium: the alerts (web-alerts.png)" shot alerts "/ui/alerts?show=all"
	# Live: the open job page, its last run let go, shows the job done.
	python3 lab/tests/web-live-check.py "$base/ui/jobs/$j2?key=$key" '#facts tr:nth-child(2) td' \
		"$tmp/go-web-a-3" done >"$tmp/live2"
	ok $? "chromium: the open job page follows it to its end: $(cat "$tmp/live2")"
	echo "# screenshots: $(cd "$ART" && ls web-*.png | tr '\n' ' ')"
else
	ok 1 "chromium is installed (make deps installs it): the pages in a browser"
	go web-a 2
fi
go web-a 3
check "job $j2 ends, then web-b and web-c" until_n 60 state_is "$j4" done
c=$(page "/ui/jobs/$j2")
check "job $j2's page links its dashboard now ($c)" grep -q "href=\"/v1/jobs/$j2/dashboard\"" "$tmp/page"
kill -TERM "$labd_pid" "$web_pid"
wait "$labd_pid"
wait "$web_pid" 2>/dev/null

# 9. TCP with a token: the page keeps it in a cookie, which opens pages, not the JSON API's
# POSTs.
port=$((20000 + RANDOM % 20000))
printf 'numalab-web-token-0123456789\n' >"$tmp/token"
chmod 0600 "$tmp/token"
start_labd "$state" --lab "$fake" --listen "127.0.0.1:$port" --token-file "$tmp/token"
ok $? "labd with a TCP listener starts"
t=http://127.0.0.1:$port
c=$(curl -s -o /dev/null -w '%{http_code}' "$t/ui/")
check "a page without the token: 401 ($c)" test "$c" = 401
c=$(curl -s -D "$tmp/hdr" -o /dev/null -w '%{http_code}' "$t/ui/alerts?token=numalab-web-token-0123456789")
check "?token=: 303, the token kept as a cookie ($c)" bash -c "test $c = 303 && grep -qi '^set-cookie: labd_token=numalab-web-token-0123456789; Path=/; HttpOnly; SameSite=Strict' $tmp/hdr"
ck="labd_token=numalab-web-token-0123456789"
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$ck" "$t/ui/alerts")
check "a page with the cookie: 200 ($c)" test "$c" = 200
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$ck" --data-binary @configs/quick.json "$t/v1/jobs")
check "the JSON API's POST with the cookie alone: 401 ($c)" test "$c" = 401
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$ck" -H 'Origin: http://evil.example' --data 'state=invalid' "$t/ui/alerts/$aid")
check "a form from another origin with the cookie: 403 ($c)" test "$c" = 403
c=$(curl -s -o /dev/null -w '%{http_code}' -b "$ck" -H "Origin: $t" --data 'state=new' "$t/ui/alerts/$aid")
check "the page's own form with the cookie: 303 ($c)" test "$c" = 303
kill -TERM "$labd_pid"
wait "$labd_pid"

# 10. With Slurm (the one-node cluster of integration-slurm, lab/tests/slurm-cluster.sh; root
# only): the queue shows a job's class and its Slurm job id.
if command -v slurmctld >/dev/null && [ "$(id -u)" = 0 ]; then
	cluster=$tmp/cluster
	chmod 755 "$tmp"
	SLURM_CONF=$(lab/tests/slurm-cluster.sh start "$cluster" numalab-test 2>"$tmp/cluster.err")
	ok $? "a one-node Slurm cluster on localhost"
	export SLURM_CONF
	state4=$tmp/state4
	mkdir -p "$state4"
	: >"$tmp/gate-web-s"
	start_labd "$state4" --lab "$fake" --backend slurm --slurm-node-state "$state4" --grace 0
	ok $? "labd --backend slurm starts"
	s1=$(jq '.name = "web-s"' configs/quick.json | api --data-binary @- 'http://labd/v1/jobs?class=numalab-test' | jq -r .id)
	check "job $s1 runs in Slurm, held in its first run" until_n 60 started_runs "$s1" 1
	sid=$(api "http://labd/v1/jobs/$s1" | jq -r .backend_id)
	page /ui/ >/dev/null
	has "$tmp/page" "jobs/$s1\">$s1</a></td><td>web-s</td><td>$me</td><td>numalab-test</td><td>running</td><td>-</td><td>$sid</td>" "the queue: its class and its Slurm job id ($sid)"
	has "$tmp/page" 'runs done: <b class="done">0</b>, to go: <b class="togo">3</b> of 3' "... its progress, as with the local worker"
	go web-s 1; go web-s 2; go web-s 3
	check "... and it ends" until_n 120 state_is "$s1" done
	kill -TERM "$labd_pid"
	wait "$labd_pid"
	lab/tests/slurm-cluster.sh stop "$cluster" >/dev/null 2>&1
else
	echo "# no Slurm here (or not root): the Slurm part left out"
fi
diag "$tmp/labd.log" | tail -3
finish
