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

bad() { # DESC WANT ARGS...: exit 2, stderr has WANT
	local desc=$1 want=$2
	shift 2
	$LAB project "$@" >"$T/out" 2>"$T/err"
	ok "$(rc_is $? 2)" "$desc: exit 2"
	has "$T/err" "$want" "... $want"
	check "... nothing on stdout" test ! -s "$T/out"
}
bad "no --outside" "--inside and --outside are both needed" --inside 1
bad "--inside 0" "--inside must be a number" --inside 0 --outside 1
bad "--draws 5000" "--draws must be a number 1..4000" --inside 1 --outside 1 --draws 5000
bad "--lock mcs" "--lock must be queued or ticket" --inside 1 --outside 1 --lock mcs
bad "--to past the target" "--to 65: 4s-64c has 64 CPUs" --inside 1 --outside 1 --topology 4s-64c --to 65
bad "an unknown topology" 'did you mean "4s-8c"?; known: ' --inside 1 --outside 1 --topology 4s-9c
D=lab/tests/data/projinput/lock-insns-ab.json
bad "--from: the split locks of baseline" "not projected: at 4 tasks do_huge_pmd_anonymous_page+0x18f took 4 lock(s), the busiest by 1 vCPU(s)" \
	--from "$D" --label baseline --site do_huge_pmd_anonymous_page+
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
finish
