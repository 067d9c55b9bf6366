#!/usr/bin/env bash
# TAP test: hostile text from a guest in the dashboard.  A report written by `lab run`
# (lab/tests/data/compare/real-quick.json) whose guest-controlled strings (console excerpt,
# reason, a workload's stderr and error, the kernel label, an OOM-kill line, the guest's error)
# hold `</script>`, an `<img onerror>`, an `<svg onload>` and quotes of both kinds goes through
# `lab report`, and the page is loaded in headless Chromium.  Each payload would do something
# visible had it become markup or run: set document.title, set data-xss on <body>, add an
# element with id "xss".  The DOM Chromium dumps must show none of it, and the page must still
# draw (the report's JSON, embedded in a <script>, not cut short by a `</script>` inside it).
# labd's dashboard route (GET /jobs/ID/dashboard) serves the page `lab report` writes for the
# job's report as it is, so this test covers it too.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
LAB=$B/lab
T=$(mktemp -d /tmp/numalab-test-xss.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }
command -v chromium >/dev/null || { ok 1 "chromium is installed (make deps)"; finish; }

# Chromium with nothing from the network and a fresh profile (as test_dashboard.sh).
chrome() {
	local profile
	profile=$(mktemp -d "$T/profile.XXXXXX")
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@"
}

# The payloads: each breaks out of a different context (a text node, an attribute in single
# or double quotes, the <script> holding the report's JSON, an HTML comment).
p1='</script><script>document.title="XSS-script";document.body.setAttribute("data-xss","1")</script>'
p2="\"'><img src=x id=xss onerror=\"document.title='XSS-img'\">"
p3="'\"><svg id=xss onload=document.title='XSS-svg'></svg><!--"
evil="$p1 $p2 $p3 --> ]]> \\u003c/script>"
oom="Out of memory: Killed process 149 (page_fault2) $p2 total-vm:270000kB, anon-rss:203880kB"

mkdir -p "$T/r"
jq --arg e "$evil" --arg oom "$oom" '
	.runs[0] |= (
		.status = "workload-failure" |
		.reason = "guest said: " + $e |
		.console_excerpt = ($oom + "\n" + $e + "\n") |
		.kernel.label = $e |
		.guest.error = $e |
		.workloads[0].status = "failed" |
		.workloads[0].exit = -9 |
		.workloads[0].stderr = $e + "\n" + $oom |
		.workloads[0].error = $e |
		.workloads[0].params.mode = $e) |
	.status = "workload-failure"' lab/tests/data/compare/real-quick.json >"$T/r/report.json"
ok $? "a hostile report is made from a real one"
check "... and holds every payload" grep -qF 'onerror=' "$T/r/report.json"

page=$T/dashboard.html
$LAB report "$T/r" lab/tests/data/compare/real-ab.json -o "$page" >"$T/out" 2>"$T/err"
ok $? "lab report writes the page (exit 0)"
diag "$T/err" | head -5

# In the file: the payloads only as text.
! grep -qiE '<(img|svg)[ >]' "$page"
ok $? "no <img> or <svg> markup in the page"
! grep -q '<script>document' "$page"
ok $? "no injected <script> in the page"
has "$page" '&lt;img src=x id=xss onerror=' "the <img> payload is shown as text"
has "$page" 'Out of memory: Killed process 149 (page_fault2)' "the OOM line is shown"

chrome --virtual-time-budget=10000 --dump-dom "file://$(realpath "$page")#all" >"$T/dom" \
	2>"$T/chrome.err"
ok $? "chromium loads the page"
check "... and dumps its DOM" test -s "$T/dom"
title=$(sed -n 's:.*<title>\(.*\)</title>.*:\1:p' "$T/dom" | head -1)
echo "# title: $title"
ok "$(case $title in *XSS*) echo 1 ;; *) echo 0 ;; esac)" "no payload set the title"
body=$(grep -o '<body[^>]*>' "$T/dom" | head -1)
echo "# $body"
ok "$(case $body in *data-xss*) echo 1 ;; *) echo 0 ;; esac)" "no payload set data-xss on <body>"
! grep -q 'id="xss"' "$T/dom"
ok $? "no element with id xss in the DOM"
! grep -qiE '<(img|svg)[ >]' "$T/dom"
ok $? "no <img> or <svg> element in the DOM"
scripts_page=$(grep -o '<script' "$page" | wc -l)
scripts_dom=$(grep -o '<script' "$T/dom" | wc -l)
ok "$(rc_is "$scripts_dom" "$scripts_page")" "as many <script> elements in the DOM as the page has ($scripts_dom)"
charts=$(sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p' <<<"$body")
drawn=$(sed -n 's/.*data-charts-drawn="\([0-9]*\)".*/\1/p' <<<"$body")
[[ $body == *'data-status="ok"'* ]] && [ "${charts:-0}" -gt 0 ] && [ "$charts" = "$drawn" ]
ok $? "the page still draws its charts (${drawn:-?} of ${charts:-?}, data-status=ok): the embedded report JSON was not cut short"
has "$T/dom" 'guest said: &lt;/script&gt;&lt;script&gt;document.title=' "the reason is shown as text"

finish
