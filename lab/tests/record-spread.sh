#!/usr/bin/env bash
# Records how far boots of one guest spread under a timing model, as the data a test's limit
# is derived from (lab/tests/integration/timing.sh reads lab/tests/data/timing/):
#   lab/tests/record-spread.sh JOB N OUT.tsv
# runs JOB's guest N times one after another (`repeats`, one guest at a time, so every boot
# starts in a second of its own and gets its own layout) and writes one line per boot: the
# boot, the kernel's cache key (16 digits), and for each task count of the first workload the
# boot's mean over its repetitions of METRIC (default faults_per_s).  Exits non-zero, writing
# nothing, when a run did not end ok.
set -u
cd "$(dirname "$0")/../.."
[ $# -eq 3 ] || { echo "usage: $0 JOB N OUT.tsv" >&2; exit 2; }
job=$1 n=$2 out=$3
lab=${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-spread.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
jq --argjson n "$n" '.repeats = $n | .parallel = 1 | del(.precision)' "$job" >"$tmp/job.json" || exit 2
$lab run "$tmp/job.json" --out "$tmp/r" >"$tmp/out" 2>"$tmp/err" || {
	echo "lab run failed (exit $?):" >&2; tail -5 "$tmp/err" >&2; exit 1; }
jq -e '[.runs[].status == "ok"] | all' "$tmp/r/report.json" >/dev/null || {
	echo "a run did not end ok:" >&2
	jq -r '.runs[] | select(.status != "ok") | "run \(.index): \(.status): \(.reason)"' \
		"$tmp/r/report.json" >&2
	exit 1; }
m=${METRIC:-faults_per_s}
{
	printf '# %s under %s, %s; recorded %s by lab/tests/record-spread.sh %s\n' "$(basename "$job")" \
		"$(jq -r '.runs[0].host.timing.model' "$tmp/r/report.json")" "$(uname -n)" "$(date -u +%F)" "$*"
	jq -r --arg m "$m" '.runs[0].workloads[0] as $w |
		(["boot", "kernel"] + ([$w.results[].tasks] | unique | map("\($w.name)_\(.)t_\($m)"))) | @tsv' \
		"$tmp/r/report.json"
	jq -r --arg m "$m" '.runs[] | . as $r | [.workloads[0].results[] | {t: .tasks, v: .metrics[$m].value}] |
		group_by(.t) | map(map(.v) | add / length) as $means |
		[$r.index, ($r.kernel.build.key // $r.kernel.image_sha256 // "")[0:16]] + $means | @tsv' \
		"$tmp/r/report.json"
} >"$tmp/tsv"
mv "$tmp/tsv" "$out"
echo "wrote $n boots to $out"
