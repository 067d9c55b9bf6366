#!/usr/bin/env bash
# TAP test of `lab export` on reports of lab run kept as test data: KCIDB v5.3 validates
# against KCIDB's own schema (vendored in lab/tests/data/kcidb, with how it was made), with a
# build a kernel label, a boot test a run and a DONE test a primary series; a bisection's
# culprit is an issue with its incident; the LKP map's keys are WORKLOAD.METRIC with the
# per-boot values; CSV has a row a boot; bad arguments exit 2; -o writes the file.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
T=$(mktemp -d /tmp/numalab-test-export.XXXXXX)
trap 'rm -rf "$T"' EXIT
B=${B:-build}
LAB=$(pwd)/$B/lab
PY=/usr/bin/python3
AB=lab/tests/data/compare/real-ab.json
SCHEMA=lab/tests/data/kcidb/kcidb.v5.3.schema.json

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }

# kcidb_valid FILE DESCRIPTION: FILE validates against KCIDB v5.3 (draft 7, formats checked).
kcidb_valid() {
	"$PY" - "$SCHEMA" "$1" <<'PY' >"$T/valid.err" 2>&1
import json, sys, jsonschema
schema, doc = (json.load(open(p)) for p in sys.argv[1:3])
v = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
errs = sorted(v.iter_errors(doc), key=str)
for e in errs[:3]:
    print(list(e.absolute_path), e.message[:200])
sys.exit(1 if errs else 0)
PY
	ok $? "$2"
	diag "$T/valid.err" | head -3
}

expect 0 "export --format kcidb" "$LAB" export "$AB" --format kcidb
cp "$T/out" "$T/kcidb.json"
kcidb_valid "$T/kcidb.json" "... validates against KCIDB v5.3"
pyjson 'len(d["checkouts"]) == 1 and sorted(b["config_name"] for b in d["builds"]) == ["deb-a", "deb-b"]' \
	"... one checkout, a build for each kernel label"
pyjson 'sum(t["path"] == "numalab.boot" for t in d["tests"]) == 4 and all(t["status"] == "PASS" for t in d["tests"] if t["path"] == "numalab.boot")' \
	"... a boot test a run, PASS for each ok run"
pyjson 'all(t["status"] == "DONE" and t["number"]["value"] > 0 and t["misc"]["primary"] for t in d["tests"] if t["path"] != "numalab.boot") and any(t["path"] == "numalab.pft.faults_per_s" for t in d["tests"])' \
	"... a DONE test with its number for the primary series"

mkdir "$T/bis"
cp lab/tests/golden/bisect-found.json "$T/bis/bisect.json"
cp lab/tests/golden/bisect-params.json "$T/bis/params.json"
expect 0 "export of a bisection" "$LAB" export "$T/bis" --format kcidb -o "$T/bis.json"
kcidb_valid "$T/bis.json" "... -o writes KCIDB v5.3 that validates"
cp "$T/bis.json" "$T/out"
pyjson 'd["issues"][0]["culprit"] == {"code": True} and d["incidents"][0]["issue_id"] == d["issues"][0]["id"] and d["incidents"][0]["present"] and d["checkouts"][0]["git_commit_hash"] == "c5" * 20' \
	"... the culprit commit is an issue with its incident"
cp lab/tests/golden/bisect-only-skipped.json "$T/bis/bisect.json"
expect 2 "a bisection without a culprit" "$LAB" export "$T/bis" --format kcidb
has "$T/err" "found no culprit" "... says so"

expect 0 "export --format lkp" "$LAB" export "$AB" --format lkp
pyjson 'all(all(k.startswith(r["testcase"] + ".") and isinstance(v, list) and len(v) == 2 for k, v in r["stats"].items()) for r in d["results"]) and {r["kernel"] for r in d["results"]} == {"deb-a", "deb-b"}' \
	"... WORKLOAD.METRIC keys, the 2 boots' values, both kernels"

expect 0 "export --format csv" "$LAB" export "$AB" --format csv
"$PY" -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(0 if r and {x["kernel"] for x in r} == {"deb-a","deb-b"} and {x["boot"] for x in r} == {"0","1"} else 1)' "$T/out"
ok $? "... a row a boot that Python's csv module reads"

expect 2 "no --format" "$LAB" export "$AB"
has "$T/err" "lab export: --format is needed: kcidb, lkp or csv (see 'lab export --help')" "... says so"
expect 2 "--format xml" "$LAB" export "$AB" --format xml
expect 2 "no report" "$LAB" export "$T/nothing" --format csv
expect 2 "a bisection as csv" "$LAB" export "$T/bis" --format csv
finish
