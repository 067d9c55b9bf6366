#!/usr/bin/env bash
# Benchmarks of `lab compare` and `lab report` (figures, not pass/fail):
#  1. lab compare of two reports with 1000 metric series each (125 metrics x 8 task counts,
#     5 runs a side): median wall time of text and --json output (target <= 0.5 s), and its
#     ratio to `jq empty` merely parsing the same two files, measured in this run.
#  2. lab report of 100 dated reports (2 variants, 17 metrics x 4 task counts, 3 runs each):
#     generation time, file size, and the time headless Chromium takes to load and draw it
#     (--dump-dom wall time; ratio to the same Chromium loading an empty page, this run) and
#     the page's own script time (data-render-ms).
# A command that failed (lab compare's bad input, lab report's or Chromium's error, a page
# whose script did not finish) ends the part: it says which and why, prints no figure, and
# exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-compare.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
LAB=$B/lab
PY=/usr/bin/python3
GEN="$PY lab/tests/make-reports.py"
rounds=${1:-5}
tmp=$(mktemp -d /tmp/numalab-bench-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# verdict A B [ARGS]: lab compare, its verdicts (exit 0, 1 or 3) as 0; bad input (2) and errors
# kept.
verdict() {
	local rc=0
	"$LAB" compare "$@" || rc=$?
	case $rc in 0 | 1 | 3) return 0 ;; esac
	return "$rc"
}
chrome() {
	local profile
	profile=$(mktemp -d "$tmp/profile.XXXXXX")
	chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
		--virtual-time-budget=30000 "$@"
}

# 1. compare, 1000 series a side.
big=(--runs 5 --metrics 125 --tasks 1,2,4,8,16,32,64,128 --topology 4,1,32,1)
$GEN "$tmp/A" "${big[@]}" --seed 1
$GEN "$tmp/B" "${big[@]}" --seed 2 --factor faults_per_s=0.95
a=$tmp/A/r-000/report.json b=$tmp/B/r-000/report.json
: >"$tmp/text.t"; : >"$tmp/json.t"; : >"$tmp/jq.t"
timed_ok "lab compare --json" "$tmp/cmp" verdict "$a" "$b" --json || bench_exit
series=$(jq '.comparisons[0].rows | length' "$tmp/cmp.out")
for ((r = 1; r <= rounds; r++)); do
	timed_ok "lab compare, round $r" "$tmp/cmp" verdict "$a" "$b" || bench_exit
	echo "$secs" >>"$tmp/text.t"
	timed_ok "lab compare --json, round $r" "$tmp/cmp" verdict "$a" "$b" --json || bench_exit
	echo "$secs" >>"$tmp/json.t"
	timed_ok "jq empty, round $r" "$tmp/cmp" jq empty "$a" "$b" || bench_exit
	echo "$secs" >>"$tmp/jq.t"
done
text_m=$(median <"$tmp/text.t"); json_m=$(median <"$tmp/json.t"); jq_m=$(median <"$tmp/jq.t")
printf 'lab compare, 2 reports x %s series (%s + %s bytes), %d rounds, medians:\n' "$series" \
	"$(stat -c %s "$a")" "$(stat -c %s "$b")" "$rounds"
printf '  text table                  %6.3f s   (target <= 0.5 s)\n' "$text_m"
printf '  --json                      %6.3f s\n' "$json_m"
printf '  jq empty (parse only)       %6.3f s\n' "$jq_m"
printf '  ratio compare/parse         %6.2f\n' "$(echo "$text_m / $jq_m" | bc -l)"

# 2. dashboard of 100 reports.
$GEN "$tmp/D" --reports 50 --runs 3 --metrics 17 --variant base --seed 3 \
	--start 2026-09-01T00:00:00Z --step-hours 24
$GEN "$tmp/E" --reports 50 --runs 3 --metrics 17 --variant patched --seed 4 \
	--start 2026-09-01T12:00:00Z --step-hours 24 --factor faults_per_s=0.97
page=$tmp/dashboard.html
: >"$tmp/gen.t"
for ((r = 1; r <= rounds; r++)); do
	timed_ok "lab report, round $r" "$tmp/gen" "$LAB" report "$tmp/D" "$tmp/E" -o "$page" || bench_exit
	echo "$secs" >>"$tmp/gen.t"
done
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>e</title></head><body></body></html>\n' \
	>"$tmp/empty.html"
: >"$tmp/page.t"; : >"$tmp/empty.t"; : >"$tmp/ms.t"
for ((r = 1; r <= rounds; r++)); do
	what="Chromium drawing the dashboard, round $r"
	timed_ok "$what" "$tmp/dom" chrome --dump-dom "file://$page#all" || bench_exit
	echo "$secs" >>"$tmp/page.t"
	# The page's script stamps data-render-ms on <body> when it has drawn every chart.
	ms=$(grep -o 'data-render-ms="[0-9.]*"' "$tmp/dom.out" | tr -dc '0-9.')
	bench_num "$what" data-render-ms "$ms" || bench_exit
	echo "$ms" >>"$tmp/ms.t"
	body=$(grep -o '<body[^>]*>' "$tmp/dom.out" | head -1)
	timed_ok "Chromium loading an empty page, round $r" "$tmp/empty" chrome --dump-dom "file://$tmp/empty.html" || bench_exit
	echo "$secs" >>"$tmp/empty.t"
done
page_m=$(median <"$tmp/page.t"); empty_m=$(median <"$tmp/empty.t")
printf '\nlab report, 100 reports (%s), %d rounds, medians:\n' \
	"$(grep -o '<canvas id=' "$page" | wc -l) charts" "$rounds"
printf '  generate the page           %6.3f s\n' "$(median <"$tmp/gen.t")"
printf '  page size                   %6.2f MiB (%s bytes; chart library %s bytes of it)\n' \
	"$(echo "$(stat -c %s "$page") / 1048576" | bc -l)" "$(stat -c %s "$page")" \
	"$(cat lab/report/vendor/*.js | wc -c)"
printf '  chromium load + draw        %6.3f s   (%s)\n' "$page_m" "$body"
printf '  chromium, empty page        %6.3f s\n' "$empty_m"
printf '  ratio dashboard/empty page  %6.2f\n' "$(echo "$page_m / $empty_m" | bc -l)"
printf '  page script (render-ms)     %6.0f ms\n' "$(median <"$tmp/ms.t")"
bench_exit
