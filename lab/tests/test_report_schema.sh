#!/usr/bin/env bash
# TAP test of reports/report.schema.json (JSON Schema of numalab.report/1): the schema itself
# is valid draft 2020-12, the run golden of lab/core/runreport.c and the committed reports (a real
# one written by `lab run`, synthetic ones) validate, and reports broken in typical ways do not,
# so the schema is not vacuous.  Reports that `lab run` writes in the integration tests are
# validated there (lab/tests/integration/guests.sh).  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
PY=/usr/bin/python3   # Debian's, with python3-jsonschema
V="$PY lab/tests/validate-reports.py"
T=$(mktemp -d /tmp/numalab-test-schema.XXXXXX)
trap 'rm -rf "$T"' EXIT

valid() { local d=$1; shift; "$@" >"$T/out" 2>&1; local r=$?; ok $r "$d"; [ $r = 0 ] || sed 's/^/# /' "$T/out" | head -5; }
# invalid DESCRIPTION JQ-FILTER PATTERN: the real report changed by the filter must fail
# validation with an error matching PATTERN.
real=lab/tests/data/compare/real-quick.json
invalid() {
	jq "$2" "$real" >"$T/bad.json" || { ok 1 "$1: jq"; return; }
	$V "$T/bad.json" >"$T/out" 2>&1
	local r=$?
	ok $([ $r = 1 ] && grep -qE -- "$3" "$T/out" && echo 0 || echo 1) "$1 is refused"
	[ $r = 1 ] || sed 's/^/# /' "$T/out" | head -3
}

valid "schema is valid draft 2020-12 and the run goldens validate" \
	$V --run lab/tests/golden/report-run-*.json
valid "committed reports validate (real and synthetic)" $V lab/tests/data/compare/*.json

# The nodes' memory at a workload's start and the kernel image's node (agents since them).
jq '.runs[0].workloads[0].start_memory = [{"id": 0, "free_kib": 477776, "used_kib": 36612,
	"pcp_kib": 1180, "kept_kib": 27540}] | .runs[0].topology.observed.kernel_node = 0' "$real" \
	>"$T/mem.json"
valid "a report with start_memory and kernel_node validates" $V "$T/mem.json"
invalid "start_memory without pcp_kib" \
	'.runs[0].workloads[0].start_memory = [{"id": 0, "free_kib": 1, "used_kib": 1, "kept_kib": 0}]' \
	"'pcp_kib' is a required property"
invalid "a negative kernel_node" '.runs[0].topology.observed.kernel_node = -1' "observed: .*\\(oneOf\\)"
# The kernel's warnings (lab/core/kwarn.h) as the lab writes them: 16 distinct, 2 more dropped.
jq '.runs[0].warnings = [range(16) | {"count": 3, "first_line":
	"WARNING: CPU: 0 PID: 1 at kernel/numa_probe.c:\(88 + .) f+0x1/0x2", "kind": "warning",
	"where": "kernel/numa_probe.c:\(88 + .)", "excerpt": "[    5.1] ------------[ cut here ]------------"}]
	| .runs[0].warnings_dropped = 2' "$real" >"$T/warn.json"
valid "a report with warnings and warnings_dropped validates" $V "$T/warn.json"
valid "a report with the warnings kwarn_list_to_json wrote validates" \
	$V lab/tests/data/kwarn/report-warned.json
invalid "a warning of an unknown kind" '.runs[0].warnings = [{"count": 1, "excerpt": "x",
	"first_line": "x", "kind": "oops", "where": "w"}]' "warnings\\[0\\]\\.kind: 'oops' is not one of"
invalid "a warning without where" '.runs[0].warnings = [{"count": 1, "excerpt": "x",
	"first_line": "x", "kind": "kasan"}]' "'where' is a required property"
invalid "warnings_dropped 0" '.runs[0].warnings = [] | .runs[0].warnings_dropped = 0' \
	"warnings_dropped: 0 is less than the minimum"
invalid "warnings_dropped with room left" '.runs[0].warnings = [] | .runs[0].warnings_dropped = 1' \
	"warnings: \\[\\] should be non-empty|warnings: \\[\\] is too short"
invalid "another schema version" '.schema = "numalab.report/2"' 'schema: .* was expected'
invalid "an unknown run key" '.runs[0].color = "red"' "Additional properties are not allowed \\('color'"
invalid "an unknown status" '.runs[0].status = "fine"' "runs\\[0\\]\\.status: 'fine' is not one of"
invalid "a metric without direction" 'del(.runs[0].workloads[0].results[0].metrics.sys_s.better)' \
	"metrics\\.sys_s: 'better' is a required property"
invalid "a metric value as a string" '.runs[0].workloads[0].results[0].metrics.sys_s.value = "1"' \
	"metrics\\.sys_s\\.value: '1' is not of type 'number'"
invalid "tasks 0" '.runs[0].workloads[0].results[0].tasks = 0' "tasks: 0 is less than the minimum"
invalid "a negative repetition" '.runs[0].workloads[0].results[0].repetition = -1' "repetition: -1"
invalid "a missing topology" 'del(.runs[0].topology)' "'topology' is a required property"
invalid "distances above 255" '.runs[0].topology.requested.distances[0][1] = 300' "distances\\[0\\]\\[1\\]: 300"
invalid "a bad created time" '.created = "yesterday"' "created: 'yesterday' does not match"
invalid "results of a missing workload" \
	'.runs[0].workloads[0].status = "missing"' "results: .*\\(maxItems\\)"
invalid "a build's text_sha256 that is not 64 hex" \
	'.runs[0].kernel.build = {"key": "k", "text_sha256": "xyz"}' "kernel\\.build\\.text_sha256: 'xyz' does not match"

finish
