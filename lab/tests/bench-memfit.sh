#!/usr/bin/env bash
# Measurement (not a test): what the guest itself holds of each NUMA node when a workload
# starts, the data lab/core/memfit.c's reserve for the guest is checked against
# (lab/tests/test_memfit.c reads what this writes, lab/tests/data/memfit/measured/).
# For each topology it boots the guest several times (KASLR puts the kernel image on another
# node each boot) and once with "nokaslr" (the image on node 0) through `lab run`, with two
# small workloads: pft, one task per CPU, then pft with one task.  At each start the agent
# reads every node's meminfo and zoneinfo (runners/PROTOCOL.md, "workload-start"); the report
# keeps them (reports/SCHEMA.md, "start_memory").  Per boot and node this writes the topology's memory, MemTotal
# (managed_mib) and, at each start, MemFree, MemUsed, the free pages on the CPUs' lists and
# what the kernel keeps of the free memory from an allocation bound to the node; and which
# node held the kernel image (reports/SCHEMA.md, "kernel_node").
# Usage: lab/tests/bench-memfit.sh OUT.json
#   MEMFIT_BOOTS="4s-8c:8 1n-1c-256:5 2n-2c-384:4 4s-64c:3 4s-128c:3 4s-256c:2 4s-512c:2"
#   (topology:boots; 1n-1c-256 and 2n-2c-384 are lab/tests/data/memfit/topologies/, the
#   others configs/topologies/)
#   MEMFIT_KERNEL='{"image": "/boot/vmlinuz-*"}' or '{"variant": "baseline"}'
#   BENCH_KEEP=DIR keeps the reports there
# lab/tests/bench-memfit.sh --from DIR OUT.json writes OUT.json from the reports in DIR
# (BENCH_KEEP's, of one or more runs), booting nothing.
# A boot counts when its guest ran every workload and said done: a soft lockup warning on a
# busy host marks the run a panic (reports/SCHEMA.md) but leaves its figures as they are;
# each boot's status is kept.
set -uo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
from=
if [ "${1:-}" = --from ]; then
	from=${2:?usage: lab/tests/bench-memfit.sh --from DIR OUT.json}
	shift 2
fi
out=${1:?usage: lab/tests/bench-memfit.sh [--from DIR] OUT.json}
kernel=${MEMFIT_KERNEL:-'{"image": "/boot/vmlinuz-*"}'}
boots_of=${MEMFIT_BOOTS:-4s-8c:8 1n-1c-256:5 2n-2c-384:4 4s-64c:3 4s-128c:3 4s-256c:2 4s-512c:2}
tmp=$(mktemp -d /tmp/numalab-bench-memfit.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# extract TOPO REPORT...: one entry per boot whose guest reported the nodes' memory at every
# workload's start and said done.
extract() {
	local topo=$1
	shift
	jq -s --arg topo "$topo" '{topology: $topo, boots: [.[].runs[]
		| select(.guest.done == true and all(.workloads[]; .start_memory != null))
		| .topology.observed.nodes as $obs
		| {status, release: .kernel.release,
		   kaslr: (.kernel.cmdline | test("(^| )nokaslr( |$)") | not),
		   kernel_node: .topology.observed.kernel_node,
		   nodes: [$obs[] | {id, memory_mib, managed_mib}],
		   starts: [.workloads[].start_memory]}]}' "$@"
}
if [ -n "$from" ]; then
	for d in "$from"/r-*/; do
		t=$(basename "$d")
		t=${t#r-}
		[ "${t%-nokaslr}" = "$t" ] || continue
		extract "$t" "$d/report.json" $(ls "$from/r-$t-nokaslr/report.json" 2>/dev/null) \
			>"$tmp/m-$t.json"
	done
	jq -s --arg how "BENCH_KEEP=DIR [MEMFIT_BOOTS=...] lab/tests/bench-memfit.sh OUT.json, once or more (each boot below says its status, kernel release and whether KASLR was on), then lab/tests/bench-memfit.sh --from DIR OUT.json" \
		'{how: $how, topologies: .}' "$tmp"/m-*.json >"$out"
	exit
fi
# run TOPO NAME BOOTS KERNEL: BOOTS boots of the job on TOPO with kernel object KERNEL.
run() {
	local t="\"$1\"" start
	[ -f "lab/tests/data/memfit/topologies/$1.json" ] &&
		t=$(cat "lab/tests/data/memfit/topologies/$1.json")
	cat >"$tmp/$2.json" <<EOF
{"name": "memfit-$2", "topology": $t, "kernel": $4, "repeats": $3,
 "workloads": [{"name": "pft", "params": {"memory_mib": 1, "tasks": "per-cpu"}},
               {"name": "pft", "params": {"memory_mib": 1, "tasks": [1]}}]}
EOF
	start=$(date +%s)
	$B/lab run "$tmp/$2.json" --quiet-wait 0 --out "$tmp/r-$2" >"$tmp/$2.out" 2>&1
	echo "$2: $3 boot(s), exit $?, $(( $(date +%s) - start )) s" >&2
	# The reports, consoles included, when asked to keep them.
	[ -n "${BENCH_KEEP:-}" ] && mkdir -p "$BENCH_KEEP" && cp -r "$tmp/r-$2" "$BENCH_KEEP/"
}
# Each topology: its boots with KASLR, then one with "nokaslr", the kernel image at its
# default place, on node 0 with the initramfs's files: the worst node, measured every time.
for spec in $boots_of; do
	topo=${spec%:*} boots=${spec#*:}
	run "$topo" "$topo" "$boots" "$kernel"
	run "$topo" "$topo-nokaslr" 1 "$(jq -c '.cmdline = ((.cmdline // "") + " nokaslr" | ltrimstr(" "))' <<<"$kernel")"
	extract "$topo" "$tmp/r-$topo/report.json" "$tmp/r-$topo-nokaslr/report.json" \
		>"$tmp/m-$topo.json" || echo "$topo: no data" >&2
done
jq -s --arg kernel "$kernel" --arg how "MEMFIT_BOOTS=\"$boots_of\" MEMFIT_KERNEL='$kernel' lab/tests/bench-memfit.sh OUT.json" \
	'{kernel: ($kernel | fromjson), how: $how, topologies: .}' "$tmp"/m-*.json >"$out"
