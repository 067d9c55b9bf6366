#!/usr/bin/env bash
# Benchmarks of `lab compare` and `lab report` (figures, not pass/fail):
#  1. lab compare of two reports with 1000 metric series each (125 metrics x 8 task counts,
#     5 runs a side): median wall time of text and --json output (target <= 0.5 s), and its
#     ratio to `jq empty` merely parsing the same two files, measured in this run.
#  2. lab report of 100 dated reports (2 variants, 17 metrics x 4 task counts, 3 runs each):
#     generation time, file size, and the time headless Chromium takes to load and draw it
#     (--dump-dom wall time; ratio to the same Chromium loading an empty page, this run) and
#     the page's own script time (data-render-ms).
# Usage: lab/tests/bench-compare.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
LAB=$B/lab
PY=/usr/bin/python3
GEN="$PY lab/tests/make-reports.py"
rounds=${1:-5}
tmp=$(mktemp -d /tmp/numalab-bench-compare.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# timeit FILE CMD...: appends the wall seconds of CMD (output discarded) to FILE.
timeit() {
	local f=$1 t0 t1; shift
	t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
	echo "$t1 - $t0" | bc -l >>"$f"
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
series=$({ $LAB compare "$a" "$b" --json || true; } | jq '.comparisons[0].rows | length')
: >"$tmp/text.t"; : >"$tmp/json.t"; : >"$tmp/jq.t"
for ((r = 1; r <= rounds; r++)); do
	timeit "$tmp/text.t" "$LAB" compare "$a" "$b"
	timeit "$tmp/json.t" "$LAB" compare "$a" "$b" --json
	timeit "$tmp/jq.t" jq empty "$a" "$b"
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
for ((r = 1; r <= rounds; r++)); do timeit "$tmp/gen.t" "$LAB" report "$tmp/D" "$tmp/E" -o "$page"; done
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>e</title></head><body></body></html>\n' \
	>"$tmp/empty.html"
: >"$tmp/page.t"; : >"$tmp/empty.t"; : >"$tmp/ms.t"
for ((r = 1; r <= rounds; r++)); do
	t0=$(now); chrome --dump-dom "file://$page" >"$tmp/dom" 2>/dev/null || true; t1=$(now)
	echo "$t1 - $t0" | bc -l >>"$tmp/page.t"
	grep -o 'data-render-ms="[0-9.]*"' "$tmp/dom" | tr -dc '0-9.\n' >>"$tmp/ms.t" || true
	body=$(grep -o '<body[^>]*>' "$tmp/dom" | head -1)
	timeit "$tmp/empty.t" chrome --dump-dom "file://$tmp/empty.html"
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
