#!/usr/bin/env bash
# TAP test of `lab report`: a dashboard of synthetic dated A/B report sets, a report with a
# panicked run and real reports written by `lab run` (lab/tests/data/compare/real-*.json),
# opened in headless Chromium (Debian's chromium): the page must report every chart drawn
# (body data-status="ok", data-charts == data-charts-drawn, set by lab/report/dashboard.js),
# print nothing on the console (the page logs nothing; script errors, CSP violations and
# Chart.js warnings would show there), and a screenshot is kept in $B/test-artifacts/.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
LAB=$B/lab
PY=/usr/bin/python3
GEN="$PY lab/tests/make-reports.py"
ART=$B/test-artifacts
T=$(mktemp -d /tmp/numalab-test-dashboard.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$ART"

hasnt() { ! grep -qF -- "$2" "$1"; ok $? "$3"; }
# Chromium as the brief of this test says: no sandbox (root), no GPU, nothing from the network,
# a fresh profile each time.
chrome() {
	local profile
	profile=$(mktemp -d "$T/profile.XXXXXX")
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--enable-logging=stderr --v=0 "$@"
}

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }
command -v chromium >/dev/null || { ok 1 "chromium is installed (make deps)"; finish; }

$GEN "$T/A" --reports 3 --runs 3 --variant base --seed 1 --start 2026-11-01T00:00:00Z
$GEN "$T/B" --reports 3 --runs 3 --variant patched --seed 2 --factor faults_per_s=0.9 \
	--start 2026-11-01T06:00:00Z
$GEN "$T/P" --reports 1 --runs 2 --variant patched --seed 3 --fail-run panic \
	--start 2026-11-04T06:00:00Z
page=$ART/dashboard.html
$LAB report "$T/A" "$T/B" "$T/P" lab/tests/data/compare/real-quick.json \
	lab/tests/data/compare/real-ab.json lab/tests/data/scalefit/usl.json -o "$page" \
	--title 'A/B <test>' >"$T/out" 2>"$T/err"
ok $? "lab report writes the page (exit 0)"
sed 's/^/# /' "$T/err" | head -5
has "$T/out" "dashboard: $page (10 reports, 6 kernel variants" "it says what it wrote"

has "$page" '<tr class="v-regression">' "A/B table with verdict classes"
has "$page" '6.1.0-57-amd64: no variant before it ran the same workloads; not compared.' \
	"a kernel of unrelated reports is not compared, and the page says why"
has "$page" '<h3>B: deb-b against A: deb-a</h3>' "the real A/B pair is compared"
has "$page" '<h3>B: patched against A: base</h3>' "the synthetic A/B pair is compared"
has "$page" '<section id="trend">' "several dated reports: a trend section"
has "$page" '<details class="run" open>' "failed runs are shown open"
has "$page" 'Kernel panic - not syncing: synthetic &lt;script&gt;alert(1)&lt;/script&gt;' "console excerpt of the failed run, escaped"
hasnt "$page" '<script>alert(1)' "no markup from report data"
has "$page" 'A/B &lt;test&gt;' "title escaped"
has "$page" 'Content-Security-Policy' "a CSP forbids loading anything"
! grep -qiE '<(link|img|iframe)|src="(https?:)?//' "$page"
ok $? "nothing outside the page is referenced"

# The first screen: the decision, then the primary metrics' curves; the rest below or folded.
at() { grep -bo -- "$1" "$page" | head -1 | cut -d: -f1; }
ok $([ "$(at '<section id="ab">')" -lt "$(at '<section id="scaling">')" ] &&
	[ "$(at '<section id="scaling">')" -lt "$(at '<section id="reports">')" ] && echo 0 || echo 1) \
	"first the A/B decision, then the scaling curves, then the reports"
has "$page" '<details class="other-charts"><summary>Other metrics (' "other metrics folded"
has "$page" '<span class="params" title="every parameter: {' \
	"each chart's legend: the parameters that differ from the defaults (all on hover)"
has "$page" '<table class="one">' "a series of one task count is a table, not a chart"
has "$page" 'USL fit, sigma 0.05' "a curve of 1, 2, 4 and 8 tasks carries its scalability-law fit (drawn below)"
first=$(grep -o '<figure class="chart"><figcaption><b>[^<]*' "$page" | head -1)
[[ $first == *faults_per_s* ]]; ok $? "the first chart is a primary metric (${first##*<b>})"

# body's data-* attributes, as the page's script left them
attr() { sed -n "s/.*<body[^>]* $1=\"\([^\"]*\)\".*/\1/p" "$2" | head -1; }
chrome --window-size=1400,2400 --virtual-time-budget=10000 --dump-dom \
	"file://$(realpath "$page")" >"$T/dom" 2>"$T/chrome.err"
ok $? "chromium loads the page"
echo "# $(grep -o '<body[^>]*>' "$T/dom" | head -1)"
[ "$(attr data-status "$T/dom")" = ok ]
ok $? "the page says every chart shown was drawn without error (data-status=ok)"
charts=$(attr data-charts "$T/dom") drawn=$(attr data-charts-drawn "$T/dom")
folded=$(attr data-charts-folded "$T/dom")
ok $([ "${folded:-0}" -gt 0 ] && [ $((drawn + folded)) = "$charts" ] && echo 0 || echo 1) \
	"the first screen's charts drawn (${drawn:-?}), the folded ones wait (${folded:-?} of ${charts:-?})"
ok $([ "$(attr data-overflow "$T/dom")" = 0 ] && echo 0 || echo 1) \
	"at 1400 px no element is wider than its box ($(attr data-overflow-what "$T/dom"))"
! grep -q 'CONSOLE' "$T/chrome.err"
ok $? "no console messages"
grep 'CONSOLE' "$T/chrome.err" | head -5 | sed 's/^/# /'

chrome --window-size=1400,2400 --virtual-time-budget=10000 --dump-dom \
	"file://$(realpath "$page")#all" >"$T/dom" 2>"$T/chrome.err"
charts=$(attr data-charts "$T/dom") drawn=$(attr data-charts-drawn "$T/dom")
ok $([ "$(attr data-status "$T/dom")" = ok ] && [ -n "$charts" ] && [ "$charts" -gt 0 ] &&
	[ "$charts" = "$drawn" ] && echo 0 || echo 1) \
	"#all opens every folded section: charts drawn: ${drawn:-?} of ${charts:-?}"
tables=$(grep -c '<table class="one">' "$page")
canvases=$(grep -o '<canvas id=' "$page" | wc -l)
ok $([ "$canvases" = "$charts" ] && echo 0 || echo 1) \
	"one chart per canvas ($canvases; $tables series of one task count as tables)"
ok $([ "$(attr data-overflow "$T/dom")" = 0 ] && echo 0 || echo 1) \
	"... and with every section open no element is wider than its box at 1400 px ($(attr data-overflow-what "$T/dom"))"
! grep -q 'CONSOLE' "$T/chrome.err"
ok $? "... no console messages"

# A projection (lab report --project-from): its own dotted line on a log axis of CPUs, drawn.
# usl.json's pft curve relabelled, the counted report's workload renamed to meet it.
jq '.runs[].kernel.label = "no-split-pmd-ptlock"' lab/tests/data/scalefit/usl.json >"$T/m.json"
jq '.runs[].workloads[].name = "pft"' lab/tests/data/projinput/lock-insns-ab.json >"$T/c.json"
$LAB report "$T/m.json" -o "$T/proj.html" --project-from "$T/c.json" \
	--site do_huge_pmd_anonymous_page+ >/dev/null 2>"$T/err"
ok $? "a page with a projection written"
has "$T/proj.html" '"projected":true' "... its throughput chart marked projected"
has "$T/proj.html" 'with a PROJECTION (dotted, not measured)' "... and captioned so"
check "... unfolded, beside the primary metrics' charts (it decides nothing, but is the one place the projection is drawn)" bash -c \
	"sed -n '/<section id=\"scaling\">/,/<details class=\"other-charts\">/p' '$T/proj.html' | grep -q 'with a PROJECTION'"
chrome --window-size=1400,2400 --virtual-time-budget=10000 --dump-dom \
	"file://$(realpath "$T/proj.html")#all" >"$T/dom" 2>"$T/chrome.err"
charts=$(attr data-charts "$T/dom") drawn=$(attr data-charts-drawn "$T/dom")
ok $([ "$(attr data-status "$T/dom")" = ok ] && [ -n "$charts" ] && [ "$charts" -gt 0 ] &&
	[ "$charts" = "$drawn" ] && [ "$(attr data-overflow "$T/dom")" = 0 ] && echo 0 || echo 1) \
	"... every chart drawn, the projection's too (${drawn:-?} of ${charts:-?}), nothing overflows"

# Why it moved: a real profiled A/B (configs/ab-profile.json --seed 7100, its profiles cut to
# 12 symbols a result): the deltas table under the verdicts, drawn in Chromium.
prof=$ART/dashboard-profile.html
$LAB report lab/tests/data/compare/real-profile.json -o "$prof" >/dev/null 2>"$T/err"
ok $? "a profiled A/B's page written"
has "$prof" '<table class="deltas"><caption>Why it moved (not deciding' "... its deltas table, not deciding"
check "... __handle_mm_fault's row: 334 -> 399 instructions a fault, +65" grep -q '__handle_mm_fault</td><td>334.000</td><td>399.000</td><td>+65.000</td>' "$prof"
chrome --window-size=1400,2400 --virtual-time-budget=10000 --dump-dom \
	"file://$(realpath "$prof")#all" >"$T/dom" 2>"$T/chrome.err"
ok $([ "$(attr data-status "$T/dom")" = ok ] && [ "$(attr data-overflow "$T/dom")" = 0 ] &&
	grep -q 'class="deltas"' "$T/dom" && echo 0 || echo 1) \
	"... drawn in Chromium: the table in the DOM, every chart drawn, nothing overflows ($(attr data-overflow-what "$T/dom"))"
! grep -q 'CONSOLE' "$T/chrome.err"
ok $? "... no console messages"

rm -f "$ART/dashboard.png"
chrome --hide-scrollbars --window-size=1400,2400 --virtual-time-budget=10000 \
	--screenshot="$(realpath "$ART")/dashboard.png" "file://$(realpath "$page")" >/dev/null 2>&1
head -c 8 "$ART/dashboard.png" 2>/dev/null | grep -q 'PNG'
ok $? "screenshot saved as $ART/dashboard.png"

$LAB report "$T/nope" -o "$T/x.html" >/dev/null 2>"$T/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "a missing input exits 2"
has "$T/err" "$T/nope: no such file or directory" "... and names it"
printf '{"schema": "numalab.report/1", "runs": {}}' >"$T/bad.json"
$LAB report "$T/bad.json" -o "$T/x.html" >/dev/null 2>"$T/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "an invalid report exits 2"
has "$T/err" "bad.json: runs: must be an array" "... naming file and JSON path"
ok $([ ! -e "$T/x.html" ] && echo 0 || echo 1) "nothing written on bad input"
# Two arguments are two sides, as in `lab compare A B`: both reports are of one kernel release
# here, so the sides are "A (...)" and "B (...)", B compared against A.
$LAB report lab/tests/data/compare/a.json lab/tests/data/compare/b.json -o "$T/sides.html" >/dev/null
ok $? "lab report A B"
has "$T/sides.html" '"label":"B (6.12.0-synthetic)"' "... B's runs are side B"
has "$T/sides.html" 'B (6.12.0-synthetic) against A: A (6.12.0-synthetic)' "... compared against side A"
$LAB report --help >/dev/null
ok $? "--help"
finish
