#!/usr/bin/env bash
# TAP test of `lab history` on synthetic reports (lab/tests/make-reports.py) and bad ones: a
# rebuild indexes the good reports and names each bad one on stderr with its reason, skipped
# and counted; listing and series as text and JSON (keys sorted), with filters; `index` skips
# unchanged files and reads changed ones again; a rebuild gives the same answers; bad
# arguments exit 2; an index of a newer lab, or a file that is no index, exits 1 and is left
# as it was.  The index lives in a temporary state directory.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
LAB=$(pwd)/$B/lab
PY=/usr/bin/python3
T=$(mktemp -d /tmp/numalab-test-history.XXXXXX)
trap 'rm -rf "$T"' EXIT
export LAB_STATE_DIR=$T/state
DB=$T/state/history.db

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }

mkdir -p "$T/w"
$PY lab/tests/make-reports.py "$T/w/reports" --reports 3 --runs 2 --seed 1 >/dev/null
$PY lab/tests/make-reports.py "$T/w/ab" --reports 1 --runs 4 --variant base,patched --seed 2 \
	--start 2026-12-01T00:00:00Z >/dev/null
mv "$T/w/ab/r-000" "$T/w/reports/ab"
mkdir -p "$T/w/reports/corrupt" "$T/w/reports/foreign" "$T/w/reports/empty"
printf '{"schema": "numalab.report/1", "runs": [' >"$T/w/reports/corrupt/report.json"
printf '{"schema": "someone.else/7", "runs": []}' >"$T/w/reports/foreign/report.json"
: >"$T/w/reports/empty/report.json"
cd "$T/w" || exit 1

expect 0 "no index yet: an empty list" "$LAB" history
has "$T/err" "no history index yet" "... said on stderr"
expect 2 "an unknown verb" "$LAB" history frob
expect 2 "--limit 0" "$LAB" history --limit 0
expect 2 "--workload only for series" "$LAB" history list --workload pft
expect 2 "index without files" "$LAB" history index
expect 2 "rebuild of a path that does not exist" "$LAB" history rebuild nowhere
ok "$([ ! -e "$DB" ] && echo 0 || echo 1)" "... and no index was made"

expect 0 "rebuild from reports/ (the default)" "$LAB" history rebuild
has "$T/out" "rebuilt, 4 reports indexed, 3 skipped" "rebuild counts 4 indexed, 3 skipped"
has "$T/err" "skipped reports/corrupt/report.json: invalid JSON" "the truncated report is named with its reason"
has "$T/err" "reports/foreign/report.json: schema: is \"someone.else/7\"" "the foreign report: its schema"
has "$T/err" "skipped reports/empty/report.json" "the empty report is named"

expect 0 "list" "$LAB" history
ok "$([ "$(wc -l <"$T/out")" = 5 ] && echo 0 || echo 1)" "list: a header and 4 reports"
has "$T/out" "base,patched" "list names the kernels of the A/B report"
expect 0 "list --json" "$LAB" history --json
pyjson "d['schema'] == 'numalab.history/1' and len(d['reports']) == 4" "list JSON: schema, 4 reports"
pyjson "[r['created'] for r in d['reports']] == sorted([r['created'] for r in d['reports']], reverse=True)" \
	"list JSON: newest first"
pyjson "all(u['timing'] == 'tcg' and u['kernel'] for r in d['reports'] for u in r['runs'])" \
	"list JSON: every run has its kernel and timing model"
expect 0 "list --kernel patched --limit 1" "$LAB" history --kernel patched --limit 1 --json
pyjson "len(d['reports']) == 1 and d['reports'][0]['runs'][1]['kernel'] == 'patched'" \
	"--kernel: the A/B report only"
expect 0 "list --timing icount" "$LAB" history --timing icount --json
pyjson "d['reports'] == []" "--timing icount: none"

expect 0 "series --primary --json" "$LAB" history series --primary --json
pyjson "d['schema'] == 'numalab.history-series/1' and all(s['primary'] and s['metric'] == 'faults_per_s' for s in d['series'])" \
	"series --primary: pft's faults_per_s only"
pyjson "all(p['boots'] == (4 if p['kernel'] in ('base', 'patched') else 2) and p['mean'] > 0 and p['mean_kind'] == 'harmonic' for s in d['series'] for p in s['points'])" \
	"series: the boots of each report and kernel (2; 4 a side of the A/B), harmonic means"
pyjson "all([p['created'] for p in s['points']] == sorted(p['created'] for p in s['points']) for s in d['series'])" \
	"series: each over time, oldest first"
expect 0 "series --workload pft --metric sys_s (text)" "$LAB" history series --workload pft --metric sys_s
has "$T/out" "sys_s (s, lower is better)" "series text: a heading per series"
has "$T/out" "cv between" "series text: the columns"

expect 0 "index again" "$LAB" history index reports
has "$T/out" "0 added, 0 replaced, 4 unchanged, 3 skipped" "index: unchanged files are not read again"
sed -i 's/"created": "2026-11-01T00:00:00Z"/"created": "2026-11-01T01:00:00Z"/' reports/r-000/report.json
expect 0 "index after a report changed" "$LAB" history index reports/r-000
has "$T/out" "0 added, 1 replaced, 0 unchanged, 0 skipped" "index: the changed report is replaced"

"$LAB" history --json >"$T/before.json"
"$LAB" history series --json >"$T/before-series.json"
expect 0 "rebuild again" "$LAB" history rebuild reports
"$LAB" history --json >"$T/after.json"
"$LAB" history series --json >"$T/after-series.json"
cmp -s "$T/before.json" "$T/after.json"; ok $? "rebuild: the same list"
cmp -s "$T/before-series.json" "$T/after-series.json"; ok $? "rebuild: the same series"
expect 0 "another index with --db, from the same files" "$LAB" history rebuild reports --db "$T/other.db"
"$LAB" history series --json --db "$T/other.db" >"$T/other-series.json"
cmp -s "$T/before-series.json" "$T/other-series.json"; ok $? "a second index answers the same"

$PY -c "import sqlite3; c = sqlite3.connect('$T/other.db'); c.execute('PRAGMA user_version = 99'); c.commit()"
expect 4 "an index of a newer lab" "$LAB" history --db "$T/other.db"
has "$T/err" "newer than this lab's" "... says it is newer"
expect 4 "... and a rebuild leaves it alone" "$LAB" history rebuild reports --db "$T/other.db"
ok "$($PY -c "import sqlite3; print(sqlite3.connect('$T/other.db').execute('PRAGMA user_version').fetchone()[0])" | grep -qx 99; echo $?)" \
	"... still at its version"
cp reports/r-001/report.json "$T/not.db"
expect 4 "a file that is no index" "$LAB" history --db "$T/not.db"
cmp -s "$T/not.db" reports/r-001/report.json; ok $? "... is left as it was"
finish
