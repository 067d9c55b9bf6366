#!/usr/bin/env bash
# TAP host test of the agent's guest-job keys for disk-booted runs (runners/PROTOCOL.md):
# "fault_after" and "perf_stat" are accepted when well-formed and refused with the key's name
# otherwise (agent --check-job, side-effect free).  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
AGENT=${B:-build}/runners/agent
T=$(mktemp -d /tmp/numalab-test-image-agent.XXXXXX)
trap 'rm -rf "$T"' EXIT
job() { # job EXTRA-KEYS -> $T/job.json
	printf '{"schema": "numalab.guestjob/1", "run_id": "r", "fault": "panic", "heartbeat_s": 2, "workloads": [{"name": "pft", "params": {"memory_mib": 8}}]%s}\n' "$1" >"$T/job.json"
}
accepts() { job "$1"; "$AGENT" --check-job "$T/job.json" >"$T/out" 2>&1; ok $? "accepted: $2"; }
refuses() { # refuses EXTRA MESSAGE-REGEX DESCRIPTION
	job "$1"
	"$AGENT" --check-job "$T/job.json" >"$T/out" 2>&1
	ok $([ $? = 2 ] && grep -Eq "$2" "$T/out" && echo 0 || echo 1) "refused: $3"
}

accepts '' "no disk-boot keys (the initramfs job)"
accepts ', "fault_after": "workloads"' "fault_after workloads"
accepts ', "fault_after": "hello"' "fault_after hello"
accepts ', "perf_stat": ["task-clock", "page-faults", "cycles:u"]' "perf_stat events"
refuses ', "fault_after": "boot"' 'fault_after: must be "hello" or "workloads"' "an unknown fault_after"
refuses ', "fault_after": 1' 'fault_after: must be' "a fault_after that is not a string"
refuses ', "perf_stat": []' 'perf_stat: must be an array of 1\.\.16' "an empty perf_stat"
refuses ', "perf_stat": ["a b"]' 'perf_stat: must be an array' "an event name with a space"
refuses ', "perf_stat": true' 'perf_stat: must be an array' "perf_stat true (the host expands it)"
refuses ", \"perf_stat\": [$(printf '"e%d",' $(seq 1 17) | sed 's/,$//')]" 'perf_stat: must be' "17 events"
refuses ', "perf_stat": ["-e"]' 'perf_stat: must be' "an event that looks like an option"
refuses ', "perf_stat": ["cpu/cycles/"]' 'perf_stat: must be' "an event with a /"
finish
