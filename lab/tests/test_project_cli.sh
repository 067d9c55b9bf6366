#!/usr/bin/env bash
# TAP test of `lab project`: labelled a projection in text and JSON (schema, every CPU count,
# the priors with their basis, "projection": true); deterministic for a seed; a ticket lock's
# plateau under a queued one's; and bad input exits 2 naming what is wrong (a missing input,
# a number out of range, an unknown topology with the known ones listed, a priors file with
# the JSON path).  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
LAB=$(pwd)/$B/lab
T=$(mktemp -d /tmp/numalab-test-project.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }

check "--help" "$LAB" project --help
$LAB project --inside 300 --outside 6000 --topology 4s-64c >"$T/text" 2>"$T/err"
ok $? "a projection to 4s-64c: exit 0"
ok "$([ "$(head -1 "$T/text")" = "PROJECTION, not a measurement: never part of a verdict." ] && echo 0 || echo 1)" \
	"... its first line says it is a projection"
has "$T/text" "band: 5-95 % over 1000 draws of configs/projection/priors.json (seed 1)" "... and what the band is"
has "$T/text" "    64  " "... down to the target's 64 CPUs"

$LAB project --inside 300 --outside 6000 --json >"$T/a.json"
ok $? "--json to the default target: exit 0"
cp "$T/a.json" "$T/out" # pyjson reads $T/out, and checks the keys are sorted
pyjson "d['schema'] == 'numalab.projection/1' and d['projection'] is True and len(d['points']) == 512 and d['inputs']['target'] == '4s-512c'" \
	"... schema, projection: true, 512 CPU counts of 4s-512c"
pyjson "all(d['priors'][k]['basis'] for k in ('cpi', 'clock_ghz', 'line_local_ns', 'line_remote_ns'))" \
	"... each prior with its basis"
pyjson "all(p['ops_per_s']['p5'] <= p['ops_per_s']['p50'] <= p['ops_per_s']['p95'] for p in d['points'])" \
	"... 5 % <= 50 % <= 95 % at every CPU count"
$LAB project --inside 300 --outside 6000 --json >"$T/b.json"
check "the same seed: the same output" cmp "$T/a.json" "$T/b.json"
$LAB project --inside 300 --outside 6000 --json --lock ticket >"$T/t.json"
python3 - "$T/a.json" "$T/t.json" <<'PY'
import json, sys
q, t = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if t['points'][-1]['ops_per_s']['p50'] < q['points'][-1]['ops_per_s']['p50'] else 1)
PY
ok $? "a ticket lock's 512-CPU median under a queued one's"

cbad() { # DESC WANT CMD ARGS...: exit 2, stderr has WANT
	local desc=$1 want=$2
	shift 2
	$LAB "$@" >"$T/out" 2>"$T/err"
	ok "$(rc_is $? 2)" "$desc: exit 2"
	has "$T/err" "$want" "... $want"
}
bad() { # DESC WANT ARGS...: lab project ARGS exits 2, stderr has WANT, nothing on stdout
	cbad "$1" "$2" project "${@:3}"
	check "... nothing on stdout" test ! -s "$T/out"
}
bad "no --outside" "--inside and --outside are both needed" --inside 1
bad "--inside 0" "--inside must be a number" --inside 0 --outside 1
bad "--draws 5000" "--draws must be a number 1..4000" --inside 1 --outside 1 --draws 5000
bad "--lock mcs" "--lock must be queued or ticket" --inside 1 --outside 1 --lock mcs
bad "--to past the target" "--to 65: 4s-64c has 64 CPUs" --inside 1 --outside 1 --topology 4s-64c --to 65
bad "an unknown topology" 'did you mean "4s-8c"?; known: ' --inside 1 --outside 1 --topology 4s-9c
D=lab/tests/data/projinput/lock-insns-ab.json
SITE=do_huge_pmd_anonymous_page+
$LAB project --from "$D" --label baseline --site "$SITE" >"$T/base.out" 2>"$T/base.err"
ok "$(rc_is $? 0)" "--from: baseline's split locks, a lock per task: exit 0"
has "$T/base.out" "at 4 tasks 4 lock(s), the busiest taken by 1 vCPU(s): a lock per task, nobody waits at it" "... said so"
has "$T/base.out" "knee: none (a lock per CPU" "... projected as private locks: no knee"
# Two locks of two vCPUs each at 4 tasks: neither one shared lock nor one per task.
jq '(.runs[] | select(.kernel.label == "baseline") | .workloads[].results[] | select(.tasks == 4) |
	.info.lock_insns.sites[]) |= (.locks = 2 | .max_cpus_per_lock = 2)' "$D" >"$T/two.json"
bad "--from: two locks of two vCPUs" "not projected: at 4 tasks do_huge_pmd_anonymous_page+0x18f took 2 lock(s), the busiest by 2 vCPU(s): neither" \
	--from "$T/two.json" --label baseline --site "$SITE"
# --outside-from: Z from a deterministic run's 1-task window (seed 000 under quantum, reduced).
W=lab/tests/data/projinput/window-quantum.json
$LAB project --from "$D" --label no-split-pmd-ptlock --site "$SITE" --outside-from "$W" >"$T/win.out" 2>"$T/win.err"
ok "$(rc_is $? 0)" "--from --outside-from: exit 0"
has "$T/win.out" "1026.0 instructions inside, 294414.4 outside (from the 1-task window of $W, every instruction counted)" "... Z from the window, said"
has "$T/win.out" "inputs: 1025.97 instructions inside the lock and 294414 outside it" "... and projected from it"
bad "--outside-from without --from" "--outside-from goes with --from" --inside 1 --outside 1 --outside-from "$W"
jq '.runs[].workloads[].params.memory_mib = 64' "$W" >"$T/w64.json"
bad "--outside-from a run of other operations" "--outside-from $T/w64.json: no-split-pmd-ptlock's memscale param memory_mib differs from the counted run's" \
	--from "$D" --label no-split-pmd-ptlock --site "$SITE" --outside-from "$T/w64.json"
bad "--from beside --inside" "--from takes the place of --inside and --outside" --from "$D" --site x --inside 1
bad "--from without --site" "--from needs --site NAME+" --from "$D"
bad "--site without --from" "--site, --label, --workload and --tasks go with --from" --inside 1 --outside 1 --site x
$LAB project --from "$D" --label no-split-pmd-ptlock --site do_huge_pmd_anonymous_page+ >"$T/from.out" 2>"$T/from.err"
ok "$(rc_is $? 0)" "--from a report with lock counts: exit 0"
has "$T/from.out" "per acquisition 1026.0 instructions inside, 36667.4 outside" "... S and Z per acquisition, said first"
has "$T/from.out" "at 4 tasks 1 lock(s), the busiest taken by 4 vCPU(s): one lock all CPUs share" "... and that the lock is shared"
has "$T/from.out" "inputs: 1025.97 instructions inside the lock and 36667.4 outside it" "... then the projection of them"
$LAB project --from "$D" --label no-split-pmd-ptlock --site do_huge_pmd_anonymous_page+ --json >"$T/from.json" 2>"$T/from.jerr"
check "--from --json: the JSON alone on stdout, the measurement on stderr" \
	jq -e '.schema == "numalab.projection/1"' "$T/from.json"
printf '{"schema": "numalab.projection-priors/1", "cpi": {"lo": 1, "hi": 2, "shape": "normal", "basis": "b"}}' >"$T/p.json"
bad "a bad priors file" "p.json: cpi.shape: must be \"uniform\" or \"log-uniform\"" --inside 1 --outside 1 --priors "$T/p.json"

# lab compare and lab report --project-from: the projection beside the measurements, under its
# own key, never in the verdict (the exit status and the comparisons are those without it).
A=lab/tests/data/compare/a.json
Bf=lab/tests/data/compare/b.json
$LAB compare "$A" "$Bf" --json >"$T/plain.json" 2>/dev/null
plain=$?
$LAB compare "$A" "$Bf" --json --project-from "$D" --site "$SITE" --project-to 64 >"$T/proj.json" 2>"$T/proj.err"
ok "$(rc_is $? "$plain")" "compare --project-from: the exit status without it ($plain)"
check "... the comparisons unchanged" bash -c "diff <(jq -S . '$T/plain.json') <(jq -S 'del(.projections)' '$T/proj.json')"
check "... \"projections\": its schema, marked, from the report and site" jq -e \
	--arg d "$D" --arg s "$SITE" '.projections | .schema == "numalab.projections/1" and .projection == true and .from == $d and .site == $s' "$T/proj.json"
check "... baseline projected as private locks (no knee); no-split to 64 CPUs of 4s-512c" jq -e \
	'.projections.series | (.[0].projected == true and .[0].projection.model.lock == "private" and .[0].projection.knee == null) and (.[1].projection.points | length == 64) and .[1].projection.inputs.target == "4s-512c"' "$T/proj.json"
$LAB compare "$A" "$Bf" --project-from "$D" --site "$SITE" >"$T/proj.txt" 2>&1
check "... text: the projection first, marked" grep -q '^PROJECTION, not measured, never in a verdict' "$T/proj.txt"
check "... and the decision still the last line" bash -c "tail -1 '$T/proj.txt' | grep -q '^decision: '"
cbad "compare --project-from without --site" "--project-from needs --site NAME+" compare "$A" "$Bf" --project-from "$D"
cbad "compare --site alone" "--site, --project-to and --outside-from go with --project-from" compare "$A" "$Bf" --site x
$LAB compare "$A" "$Bf" --json --project-from "$D" --site "$SITE" --outside-from "$W" >"$T/projw.json" 2>"$T/projw.err"
ok "$(rc_is $? "$plain")" "compare --outside-from: the exit status without it ($plain)"
check "... both series' Z from the window, said" jq -e \
	'[.projections.series[].measured.outside_from | test("1-task window of")] | all and length == 2' "$T/projw.json"
cbad "compare --project-to 0" '--project-to must be a number 1..1024, not "0"' compare "$A" "$Bf" --project-from "$D" --site x --project-to 0
cbad "report --project-to past the target" "--project-to 600: 4s-512c has 512 CPUs" report "$A" -o "$T/d.html" --project-from "$D" --site "$SITE" --project-to 600
cbad "compare --project-from a report without counts" "no result has lock counts" compare "$A" "$Bf" --project-from "$A" --site "$SITE"
check "... no page written" test ! -e "$T/d.html"
$LAB report "$A" "$Bf" -o "$T/d.html" --project-from "$D" --site "$SITE" >/dev/null 2>"$T/rerr"
ok $? "report --project-from: the page written"
has "$T/d.html" '<section id="projection"><h2>Projection</h2>' "... with a Projection section"
has "$T/d.html" "PROJECTIONS, not measurements; they never enter a verdict" "... that says what it is"
has "$T/d.html" "none: a lock per task, nobody waits at it" "... baseline's row: no knee, a lock per task"
$LAB report "$A" "$Bf" -o "$T/d2.html" --project-from "$T/two.json" --site "$SITE" >/dev/null 2>"$T/rerr"
has "$T/d2.html" "not projected: at 4 tasks do_huge_pmd_anonymous_page+0x18f took 2 lock(s)" "... and, with two locks of two vCPUs, why baseline is not projected"
finish
