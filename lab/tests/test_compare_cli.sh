#!/usr/bin/env bash
# TAP test of `lab compare` on synthetic report sets (lab/tests/make-reports.py): a 10%
# regression exits 1, identical sets exit 0 when equivalence is shown and 3 when it cannot be
# yet, thresholds, one report holding both variants, three labels (knob sets) each against
# the first, an outcome regression, mixed timing
# models, and bad input exiting 2 with a message naming what differs.  Every
# synthetic report is also validated against reports/report.schema.json, so the generator
# cannot drift from what `lab run` writes.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
LAB=$B/lab
PY=/usr/bin/python3   # Debian's, with python3-jsonschema; another python3 may be first on PATH
GEN="$PY lab/tests/make-reports.py"
T=$(mktemp -d /tmp/numalab-test-compare.XXXXXX)
trap 'rm -rf "$T"' EXIT

# expect STATUS DESCRIPTION CMD...: the command exits STATUS (output in $T/out, $T/err).
expect() {
	local want=$1 desc=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"
	local got=$?
	ok $([ "$got" = "$want" ] && echo 0 || echo 1) "$desc (exit $want)"
	[ "$got" = "$want" ] || { echo "# exit $got"; sed 's/^/# /' "$T/err" | head -5; }
}
# pyjson EXPR: evaluates EXPR with d = the JSON in $T/out; ok when true.
pyjson() { $PY -c "import json,sys; d=json.load(open('$T/out')); sys.exit(0 if ($1) else 1)"; ok $? "$2"; }

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }

# Two sets of 2 reports x 3 runs; B's faults_per_s is 10% lower.
$GEN "$T/A" --reports 2 --runs 3 --seed 1
$GEN "$T/B" --reports 2 --runs 3 --seed 2 --factor faults_per_s=0.9
$GEN "$T/ab" --runs 4 --variant base,patched --factor faults_per_s=0.9 --factor-on patched --seed 3
$GEN "$T/single" --runs 2 --variant base --seed 4
$GEN "$T/sets" --runs 6 --variant 4K,16K,64K --factor faults_per_s=0.9 --factor-on 64K --seed 6
$GEN "$T/oneboot" --runs 1 --repetitions 5 --seed 5
$GEN "$T/panic" --reports 2 --runs 3 --seed 1 --fail-run panic
$GEN "$T/v2" --schema numalab.report/2
$GEN "$T/mem128" --workload-param memory_mib=128
$GEN "$T/t16" --tasks 16 --topology 4,1,4,1
$GEN "$T/t16same" --tasks 16
$PY lab/tests/validate-reports.py $(find "$T" -name report.json ! -path '*/v2/*') >"$T/val" 2>&1
ok $? "every synthetic report validates against reports/report.schema.json"
grep '^not ok' "$T/val" | head -5 | sed 's/^/# /'

expect 1 "10% lower faults/s: regression" $LAB compare "$T/A" "$T/B"
has "$T/out" "regression" "text table names the verdict"
has "$T/out" "decision: regression" "text says the decision"
has "$T/out" "decision: regression (4 regressions)" "text summary counts the 4 task counts"
last=$(tail -1 "$T/out")
ok "$([ "${last#decision: }" != "$last" ] && echo 0 || echo 1)" "... the decision is the last line"
wide=$(awk 'length($0) > 80' "$T/out" | wc -l)
ok "$wide" "... the short form fits 80 columns ($wide lines wider)"
expect 1 "-v: the full table" $LAB compare "$T/A" "$T/B" -v
has "$T/out" "deciding metrics: 4 regressions, 0 improvements" "... counts the 4 task counts"
has "$T/out" "95% CI of change" "... with every column"
expect 1 "--format markdown" $LAB compare "$T/A" "$T/B" --format markdown
has "$T/out" "| tasks | metric | A mean | B mean | change | 95% CI | verdict |" "... a markdown table"
tail -1 "$T/out" | grep -q "^decision: regression"; ok $? "... the decision last"
expect 1 "--format csv" $LAB compare "$T/A" "$T/B" --format csv
head -1 "$T/out" | grep -q "^a,b,timing,topology,workload,params,tasks,metric,unit,primary,"
ok $? "... a header line"
"${PY:-python3}" -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(0 if r and all(x["verdict"] for x in r) and any(x["primary"]=="1" for x in r) else 1)' "$T/out"
ok $? "... rows Python's csv module reads, every one with a verdict"
expect 2 "--format bogus" $LAB compare "$T/A" "$T/B" --format bogus
has "$T/err" "lab compare: --format must be text, markdown, csv or json" "... says the choices"
expect 1 "--json: regression" $LAB compare "$T/A" "$T/B" --json
pyjson "d['schema'] == 'numalab.compare/2' and d['regression'] is True and d['decision'] == 'regression'" "JSON: schema, regression flag and decision"
pyjson "all((r['verdict'] == 'regression') == (r['metric'] == 'faults_per_s') for r in d['comparisons'][0]['rows'])" \
	"JSON: exactly the faults_per_s rows regressed"
pyjson "all(r['mean'] == 'harmonic' and r['a']['n'] == 6 and r['ci95_pct'][0] < -10 < r['ci95_pct'][1] + 3 for r in d['comparisons'][0]['rows'] if r['metric'] == 'faults_per_s')" \
	"JSON: harmonic means over 2 reports x 3 runs (6 boots), CI around -10%"
pyjson "all(r['primary'] == (r['metric'] == 'faults_per_s') for r in d['comparisons'][0]['rows'])" \
	"JSON: faults_per_s is pft's primary metric, the others are not"
$PY -c "
import json, sys
bad = []
def hook(pairs):
    keys = [k for k, _ in pairs]
    if keys != sorted(keys): bad.append(keys)
    return dict(pairs)
json.load(open('$T/out'), object_pairs_hook=hook)
sys.exit(1 if bad else 0)"
ok $? "JSON keys are sorted"

expect 0 "identical sets, --threshold 10: no change" $LAB compare "$T/A" "$T/A" --json --threshold 10
pyjson "all(r['verdict'] == 'no-change' and r['p'] == 1 for r in d['comparisons'][0]['rows']) and not d['regression'] and d['decision'] == 'ok'" \
	"identical sets: every row no-change, p = 1"
expect 3 "identical sets, 2 % noise, threshold 1 %: undecided, not a pass" $LAB compare "$T/A" "$T/A"
has "$T/out" "boots a side would decide it." "... and says how many boots would decide"
expect 0 "--threshold 25: a 10% change inside +-25% is no change" $LAB compare "$T/A" "$T/B" --threshold 25
expect 1 "--threshold 5: it fails" $LAB compare "$T/A" "$T/B" --threshold 5
expect 1 "one report holding both variants (interleaved)" $LAB compare "$T/ab"
has "$T/out" "B: patched" "variants labelled by kernel.label"
# Three labels in one report (knob sets, as seed 001's 4K / 16K / 64K): each compared with
# the first, one table a label: the seed's table.
expect 1 "three labels in one report: 64K's 10 % loss is a regression" $LAB compare "$T/sets" --json
pyjson "[(c['a']['variant'], c['b']['variant']) for c in d['comparisons']] == [('4K', '16K'), ('4K', '64K')]" \
	"... 16K and 64K each compared with 4K, the first label"
pyjson "all(r['verdict'] != 'regression' for r in d['comparisons'][0]['rows']) and all(r['verdict'] == 'regression' for r in d['comparisons'][1]['rows'] if r['metric'] == 'faults_per_s')" \
	"... 16K unchanged, 64K's faults_per_s rows regressed"
expect 1 "--labels 16K,64K: 64K against 16K, not the first label" $LAB compare "$T/sets" --labels 16K,64K --json
pyjson "[(c['a']['variant'], c['b']['variant']) for c in d['comparisons']] == [('16K', '64K')]" "... one comparison, 64K against 16K"
expect 2 "--labels naming a label the reports lack" $LAB compare "$T/sets" --labels 4K,32K
has "$T/err" 'no runs labelled "32K" (the reports hold: 4K, 16K, 64K)' "... names it and the labels there are"
expect 2 "--labels with one label" $LAB compare "$T/sets" --labels 4K
expect 2 "--labels with A and B" $LAB compare "$T/A" "$T/B" --labels 4K,16K
expect 1 "B panicked where A did not: outcome regression" $LAB compare "$T/A" "$T/panic"
has "$T/out" "2 of B's 6 runs failed, none of A's" "the outcome regression is said"
expect 3 "a real A/B report of lab run (two labelled kernels, 2 boots each): undecided" \
	$LAB compare lab/tests/data/compare/real-ab.json
has "$T/out" "B: deb-b 2 runs, 0 failed, 1 report" "... compares deb-b against deb-a"
wide=$(awk 'length($0) > 80' "$T/out" | wc -l)
ok "$wide" "... fits 80 columns ($wide lines wider)"
expect 0 "A/B of report files, not directories" $LAB compare "$T/A/r-000/report.json" "$T/A/r-001/report.json" --threshold 50
expect 3 "one boot (of 5 repetitions) a side: insufficient data, undecided (exit 3)" $LAB compare "$T/oneboot" "$T/oneboot"
has "$T/out" "insufficient-data" "... says insufficient-data"
# Timing models: B's runs under icount (host.timing.model) cannot be compared with A's tcg.
for f in "$T"/B/r-*/report.json; do
	mkdir -p "$T/icount/$(basename "$(dirname "$f")")"
	jq '.runs[].host.timing = {"model": "icount"}' "$f" >"$T/icount/$(basename "$(dirname "$f")")/report.json"
done
expect 2 "A under tcg, B under icount: refused" $LAB compare "$T/A" "$T/icount"
has "$T/err" "ran under the tcg timing model and B (B (6.12.0-synthetic)) under icount" "... names both models"
expect 0 "--help" $LAB compare --help

# Bad input: exit 2 and a message naming what differs.
expect 2 "one report, one variant" $LAB compare "$T/single"
has "$T/err" "holds one kernel variant (base)" "... says so"
expect 2 "another schema version" $LAB compare "$T/A" "$T/v2"
has "$T/err" 'schema: is "numalab.report/2"; this lab reads "numalab.report/1"' "... names the schema"
expect 2 "different workload params" $LAB compare "$T/A" "$T/mem128"
has "$T/err" 'ran different workloads: only A ran 8 vCPUs (4s x 1d x 2c x 1t), 4 nodes / pft {"memory_mib":64' "... names the workloads"
expect 2 "different topology" $LAB compare "$T/A" "$T/t16"
has "$T/err" "only B ran 16 vCPUs (4s x 1d x 4c x 1t), 4 nodes" "... names the topology"
expect 2 "no series in common" $LAB compare "$T/A" "$T/t16same"
has "$T/err" "share no series: A has 16 (first: pft" "... says so"
expect 2 "missing file" $LAB compare "$T/A" "$T/nope"
has "$T/err" "$T/nope: no such file or directory" "... names it"
mkdir -p "$T/empty/sub"
expect 2 "directory without reports" $LAB compare "$T/A" "$T/empty"
has "$T/err" "no report.json in it or in its subdirectories" "... says so"
printf '{"schema": "numalab.report/1", "runs": [' >"$T/trunc.json"
expect 2 "invalid JSON" $LAB compare "$T/A" "$T/trunc.json"
printf '{"schema": "numalab.report/1", "runs": [], "runs": []}' >"$T/dup.json"
expect 2 "duplicate keys" $LAB compare "$T/A" "$T/dup.json"
jq '.runs[1].workloads[0].results[2].metrics.sys_s.better = "up"' "$T/B/r-000/report.json" >"$T/badmetric.json"
expect 2 "invalid metric" $LAB compare "$T/A" "$T/badmetric.json"
has "$T/err" 'badmetric.json: runs[1].workloads[0].results[2].metrics.sys_s.better: must be "higher" or "lower"' "... names file and JSON path"
expect 2 "negative threshold" $LAB compare "$T/A" "$T/B" --threshold -1
expect 1 "--all-metrics: every metric decides" $LAB compare "$T/A" "$T/B" --all-metrics --json
pyjson "d['comparisons'][0]['all_metrics'] is True" "... and the JSON says so"
expect 2 "no arguments" $LAB compare
expect 2 "three arguments" $LAB compare "$T/A" "$T/B" "$T/A"

# --git-bisect: the codes `git bisect run` reads (util/exitcode.h).
expect 1 "--git-bisect, a regression: bad" $LAB compare "$T/A" "$T/B" --git-bisect
expect 0 "--git-bisect, identical sets at --threshold 10: good" $LAB compare "$T/A" "$T/A" --threshold 10 --git-bisect
expect 125 "--git-bisect, undecided: skip" $LAB compare "$T/A" "$T/A" --git-bisect
expect 128 "--git-bisect, bad input: stop the bisection" $LAB compare "$T/A" "$T/nope" --git-bisect
expect 128 "--git-bisect, a bad option: stop" $LAB compare "$T/A" "$T/B" --git-bisect --threshold -1
expect 128 "lab run --git-bisect of a job file that is not there: stop" $LAB run "$T/nope.json" --git-bisect
expect 2 "lab run of a job file that is not there: 2" $LAB run "$T/nope.json"
# One table in every command's help.
for c in run compare nightly bisect kernel qemu image report history hosts doctor submit queue status cancel logs; do
	$LAB $c --help >"$T/h" 2>&1
	grep -q "0 ok or no regression, 1 a regression, 2 usage" "$T/h" && grep -q "or bad input, 3 undecided or runs failed, 4 the lab itself failed" "$T/h"
	ok $? "lab $c --help ends with the exit-code table"
done

# A model blind to what a series depends on (analysis/modelfit.h): under icount, pft with
# more than one thread depends on lock contention and parallel speed-up, which cannot happen
# there.  Identical sets: one task decides "no change", more are outside the model, never
# "no change", and the decision waits for another model (exit 3).
$GEN "$T/icA" --runs 4 --seed 11 --timing icount --noise 0.0005
$GEN "$T/icB" --runs 4 --seed 12 --timing icount --noise 0.0005
expect 3 "icount A/A of pft threads: undecided" $LAB compare "$T/icA" "$T/icB" --json
pyjson "all((r['verdict'] == 'no-change') == (r['tasks'] == 1) and (r['verdict'] == 'outside-model') == (r['tasks'] > 1) for r in d['comparisons'][0]['rows'] if r['primary'])" \
	"... 1 task: no change; 2..8 tasks: outside-model"
pyjson "all((r['outside_model'] is None) == (r['tasks'] == 1) for r in d['comparisons'][0]['rows'] if r['primary'])" \
	"... each outside row says why"
expect 3 "... the text says so" $LAB compare "$T/icA" "$T/icB"
has "$T/out" "outside this model: 3 deciding series depend on what icount cannot show" "... once, with the reason"
# A change the model does see (instructions) is still found: a 10 % slower fault path.
$GEN "$T/icC" --runs 4 --seed 13 --timing icount --noise 0.0005 --factor faults_per_s=0.9
expect 1 "icount, B 10 % slower: a regression at every task count" $LAB compare "$T/icA" "$T/icC" --json
pyjson "all(r['verdict'] == 'regression' for r in d['comparisons'][0]['rows'] if r['primary'])" \
	"... outside rows keep a change the model finds"
# Under tcg with no host CPU count recorded (reports before host.noise): nothing outside.
$GEN "$T/qA" --runs 4 --seed 11 --timing tcg --noise 0.0005
$GEN "$T/qB" --runs 4 --seed 12 --timing tcg --noise 0.0005
expect 0 "tcg without the host's CPU count: no change everywhere" $LAB compare "$T/qA" "$T/qB"

# ---- a threshold learned from the history (analysis/noise.h) ----------------------------------
# The history: one kernel (one image) measured again in 10 reports of 3 boots, 2 % noise a boot.
$GEN "$T/hist" --reports 10 --runs 3 --seed 21 \
	--image-sha256 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
export LAB_STATE_DIR=$T/state
$LAB history index "$T/hist" >/dev/null 2>&1
ok $? "a history of one kernel measured 10 times"
$GEN "$T/A2" --reports 2 --runs 3 --seed 22
expect 3 "an A/A at the fixed 1 %: undecided" $LAB compare "$T/A" "$T/A2" --json
row1="[r for r in d['comparisons'][0]['rows'] if r['primary'] and r['tasks'] == 1][0]"
pyjson "$row1['verdict'] == 'inconclusive' and $row1['threshold_pct'] == 1 and not $row1['threshold_learned']['used']" \
	"... its 1-task row inconclusive at +-1 %, the learned threshold beside it, unused"
expect 3 "... the text" $LAB compare "$T/A" "$T/A2"
has "$T/out" "- learned threshold of pft faults_per_s at 1 task: +-" "... the learned threshold shown beside the fixed one"
has "$T/out" "from 9 changes of 1 kernel measured again; --threshold learned decides" "... from what, and how to use it"
expect 3 "the same A/A by its learned thresholds" $LAB compare "$T/A" "$T/A2" --threshold learned --json
pyjson "d['threshold'] == 'learned' and all(r['threshold_learned']['used'] and r['threshold_learned']['changes'] == 9 and r['threshold_pct'] == r['threshold_learned']['threshold_pct'] > 1 for r in d['comparisons'][0]['rows'] if r['primary'])" \
	"... JSON: every deciding row judged by its own, learned from 9 changes"
pyjson "$row1['verdict'] == 'no-change'" "... the 1-task row: no change within its noise (+-2.4 %)"
expect 1 "a 10 % regression by its learned threshold: still a regression" $LAB compare "$T/A" "$T/B" --threshold learned
# A report whose job asked for it ("threshold": "learned") decides so without the option.
$GEN "$T/A3" --reports 2 --runs 3 --seed 22 --job-threshold learned
expect 3 "a job's \"threshold\": \"learned\" decides by it" $LAB compare "$T/A" "$T/A3" --json
pyjson "d['threshold'] == 'learned' and $row1['verdict'] == 'no-change'" "... as --threshold learned does"
expect 3 "... --threshold 1 overrules it" $LAB compare "$T/A" "$T/A3" --threshold 1
expect 2 "--threshold of a word: refused" $LAB compare "$T/A" "$T/A2" --threshold fixed
has "$T/err" '--threshold must be "learned" or a number >= 0' "... saying what it takes"
# A history too short to learn from: the fixed threshold, said when asked for the learned one.
export LAB_STATE_DIR=$T/state-empty
expect 3 "no history: --threshold learned keeps the fixed one" $LAB compare "$T/A" "$T/A2" --threshold learned
has "$T/err" "no history index at" "... and says why"
unset LAB_STATE_DIR

finish
