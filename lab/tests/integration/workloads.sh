#!/usr/bin/env bash
# Integration (issue 3): every workload in one real guest (4s-8c, TCG here) through `lab run`,
# at small sizes, with knobs; then the report is checked: knobs applied and read back, each
# workload's results with units and directions, faults = pages in the guest, memory bound to
# each task's node, perf counters TCG cannot count listed as unavailable, repetitions kept.
# One boot, about 25 s under TCG.  TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
lab=${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-it-workloads.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
rep="$tmp/out/report.json"
# jqr DESCRIPTION FILTER: the filter over .runs[0] of the report must be true.
jqr() { jq -e ".runs[0] | $2" "$rep" >/dev/null 2>&1; ok $? "$1"; }
w() { echo ".workloads[$1]"; }

# In the background only to learn its pid: its guest is named numalab-PID-0, so the check at
# the end is about this test's guest, not those of other tests running on the same host.
$lab run lab/tests/data/jobs/workloads-all.json --out "$tmp/out" >"$tmp/out.txt" 2>"$tmp/err.txt" &
pid=$!
wait $pid
ok $? "lab run workloads-all.json exits 0 ($(tail -1 "$tmp/err.txt"))"
explain_runs "$tmp/out"
[ -s "$rep" ] || finish 1
jqr "run ok, every workload ok with results" \
	'.status == "ok" and (.workloads | length == 8) and all(.workloads[]; .status == "ok" and (.results | length > 0))'

# Knobs: applied before the workloads and read back.
jqr "knobs reported ok" '.knobs.ok == true'
jqr "thp_enabled: requested never, read back never, required" \
	'.knobs.knobs[] | select(.name == "thp_enabled") | .requested == "never" and .after == "never" and .status == "ok" and .required'
jqr "nr_hugepages: 4 per node on all 4 nodes" \
	'[.knobs.knobs[] | select(.name | startswith("nr_hugepages.node")) | select(.after == 4 and .status == "ok")] | length == 4'
jqr "numa_balancing: 0 read back; unrequested knobs recorded as not-requested" \
	'(.knobs.knobs[] | select(.name == "numa_balancing") | .after == 0) and any(.knobs.knobs[]; .status == "not-requested" and .requested == null)'

# Every metric has a finite value, a unit and a direction; every result its task count,
# repetition and the harness's info.
jqr "metrics carry value, unit and better" \
	'all(.workloads[].results[].metrics[]; (.value | type == "number") and (.unit | length > 0) and (.better == "higher" or .better == "lower"))'
jqr "results carry tasks, repetition, perf, placement and vmstat info" \
	'all(.workloads[].results[]; (.tasks | type == "number") and (.repetition | type == "number") and (.info.perf | type == "object") and (.info.placement | type == "object") and (.info.vmstat.pgfault | type == "number"))'

# pft: the pow2 sweep with one warm-up dropped and two repetitions kept.
jqr "pft: tasks pow2 x repetitions 2, warm-up dropped" \
	"[$(w 0).results[] | [.tasks, .repetition]] == [[1,0],[1,1],[2,0],[2,1],[4,0],[4,1],[8,0],[8,1]]"
jqr "pft: faults = pages touched (2%), threads and processes on a shared /dev/zero object" \
	"all($(w 0).results[], $(w 1).results[]; (.metrics.page_faults.value - .info.pages | fabs) <= 0.02 * .info.pages)"
jqr "pft: the seed table's columns" \
	"$(w 0).results[0].metrics | has(\"wall_max_s\") and has(\"wall_min_s\") and has(\"sys_s\") and has(\"user_s\") and has(\"cpu_s\") and has(\"faults_per_s\") and has(\"faults_per_sys_s\") and has(\"faults_per_s_per_cpu\")"
jqr "pft: 8 tasks spread over the 4 nodes, memory >= 95% local on each" \
	"$(w 0).results[-1].info.placement | (.per_node | length == 4) and all(.per_node[]; .local_fraction >= 0.95)"

# memscale: HUGETLB from the knobs' pools, and 4 KiB pages under THP "never".
jqr "memscale hugetlb: one fault per 2 MiB page (8 tasks x 2), local on every node" \
	"$(w 2).results[0] | (.metrics.page_faults.value == 16) and all(.info.placement.per_node[]; .local_fraction >= 0.95)"
jqr "memscale processes, THP never: one fault per 4 KiB (2%), elapsed and MiB/s" \
	"$(w 3).results[0] | ((.metrics.page_faults.value - .info.touches | fabs) <= 0.02 * .info.touches) and .metrics.elapsed_s.unit == \"s\" and .metrics.mib_per_s.better == \"higher\""

# page_fault1/2/3 and mmap_contention.
jqr "page_fault1/2/3: ops/s > 0 with unit ops/s" \
	"all($(w 4).results[], $(w 5).results[], $(w 6).results[]; .metrics.ops_per_s.value > 0 and .metrics.ops_per_s.unit == \"ops/s\")"
jqr "page_fault1: one fault per page touched (2%)" \
	"$(w 4).results[0].metrics.page_faults_per_op.value | . >= 0.98 and . <= 1.02"
jqr "mmap_contention: p50 <= p90 <= p99 <= max (ns, lower), mappers ran" \
	"$(w 7).results[0].metrics | .fault_latency_p50_ns.value <= .fault_latency_p90_ns.value and .fault_latency_p90_ns.value <= .fault_latency_p99_ns.value and .fault_latency_p99_ns.value <= .fault_latency_max_ns.value and .fault_latency_p99_ns.unit == \"ns\" and .fault_latency_p99_ns.better == \"lower\" and .mapper_ops_per_s.value > 0"

# perf: software counters counted; hardware ones unavailable under TCG (no PMU), never 0.
jqr "perf: page faults counted by perf_event_open equal the touches (pft)" \
	"all($(w 0).results[]; .metrics.perf_page_faults.value == .info.pages)"
if jq -e '.runs[0].host.accel == "tcg"' "$rep" >/dev/null; then
	jqr "perf under TCG: cycles/instructions/stalled cycles listed unavailable, not metrics" \
		'all(.workloads[].results[]; (.info.perf.unavailable | index("perf_cycles")) and (.metrics | has("perf_cycles") | not) and (.info.perf.reasons.perf_cycles | length > 0))'
else
	jqr "perf under KVM: each hardware counter is a metric or listed unavailable, not both" \
		'all(.workloads[].results[]; (.metrics | has("perf_cycles")) != (.info.perf.unavailable | index("perf_cycles") != null))'
fi
/usr/bin/python3 lab/tests/validate-reports.py "$rep" >"$tmp/schema.txt" 2>&1
ok $? "the report validates against reports/report.schema.json ($(head -c 200 "$tmp/schema.txt"))"
jqr "params with defaults filled in" "$(w 0).params.membind == \"bind\" and $(w 7).params.mappers == 1"
pgrep -f "guest=numalab-$pid-" >/dev/null
ok $([ $? != 0 ] && echo 0 || echo 1) "no qemu of this run left"

finish
