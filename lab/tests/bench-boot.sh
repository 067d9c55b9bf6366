#!/usr/bin/env bash
# Benchmark (a curve, not a test): boot-to-first-workload of the lab kernel (variant
# "baseline") on the 4-socket topologies of configs/topologies/, through `lab run`, next to
# a bare qemu-system-x86_64 replaying the same kernel, initramfs, command line and topology
# (lab/tests/bare-qemu.sh) measured right after it, in this one run.
# Usage: lab/tests/bench-boot.sh            BOOT_VCPUS="8 64 128 256 512" selects the sizes
# A 512-vCPU boot takes many minutes under TCG on 2 host cores; the 512 row is last.  A size
# whose lab or bare run failed is said instead of its row; the part then exits 1
# (lab/tests/benchlib.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
tmp=$(mktemp -d /tmp/numalab-bench-boot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# Warm-up: the KVM verdict and libvirt's capability cache are per host, not per run.
printf '{"name": "boot-warm", "topology": "4s-8c", "kernel": {"variant": "baseline"},\n "workloads": [{"name": "pft", "params": {"memory_mib": 1, "tasks": [1]}}]}\n' >"$tmp/warm.json"
lab_run "$tmp/warm" "the warm-up run" "$tmp/warm.json" || bench_exit
printf 'boot to first workload, lab kernel (baseline), %s, %s host CPUs\n' "$(uname -m)" "$(nproc)"
# lab_boot_s: to the agent's hello; online_s: the agent bringing the CPUs held back by
# maxcpus= online (configs/topologies/README.md, "Big guests"), part of lab_first_s;
# online%: its share of lab_first_s; sd: "once" when the scheduler domains were built once
# after the last CPU (guest.cpus_online.domains_batched), "each" when once per CPU.
# A size whose lab run or bare run failed gets no row: what failed and why instead.
printf '%6s %10s %9s %7s %4s %10s %10s %10s %8s %10s %9s %s\n' vCPUs lab_boot_s online_s online% sd lab_first_s lab_total_s bare_first_s lab/bare qemu_rss max_gap_s outcome
for v in ${BOOT_VCPUS:-8 64 128 256 512}; do
	topo="4s-${v}c"
	[ -f "configs/topologies/$topo.json" ] || { bench_fail "the $v-vCPU boot" "no topology $topo"; continue; }
	printf '{"name": "boot-%s", "topology": "%s", "kernel": {"variant": "baseline"},\n "workloads": [{"name": "pft", "params": {"memory_mib": 1, "tasks": [1]}}]}\n' \
		"$v" "$topo" >"$tmp/job-$v.json"
	what="lab run of $topo"
	lab_run "$tmp/r$v" "$what" "$tmp/job-$v.json" --keep-initrd || continue
	total=$secs
	rep="$tmp/r$v/report.json"
	match=$(jq -r '.runs[0].topology.match // false' "$rep")
	boot=$(jq -r '.runs[0].timings.boot_s' "$rep")
	first=$(jq -r '.runs[0].timings.first_workload_s' "$rep")
	bench_num "$what" boot_s "$boot" && bench_num "$what" first_workload_s "$first" || continue
	online=$(jq -r '.runs[0].guest.cpus_online.wall_s // "-"' "$rep")
	sd=$(jq -r '.runs[0].guest.cpus_online | if . == null then "-" elif .domains_batched then "once" else "each" end' "$rep")
	share=-
	[ "$online" != - ] && share=$(printf '%.0f%%' "$(echo "100 * $online / $first" | bc -l)") &&
		online=$(printf '%.1f' "$online")
	# The timing without the console polling of BARE_TRACE (it costs the boot host CPU); the
	# longest console silence from a second, traced boot of the same guest.
	what="bare run of $topo (its lab run replayed with bare QEMU)"
	if ! bare=$(BARE_VERBOSE=1 lab/tests/bare-qemu.sh "$tmp/r$v" 0 3600 2>"$tmp/bare-$v.err"); then
		bench_fail "$what" "$(grep -v '^bare-qemu: QEMU peak RSS' "$tmp/bare-$v.err" | head -1)"
		continue
	fi
	rss=$(sed -n 's/.*peak RSS \([0-9]*\) MiB/\1/p' "$tmp/bare-$v.err")
	bench_num "$what" seconds "$bare" && bench_num "$what" "QEMU peak RSS" "$rss" || continue
	what="traced bare run of $topo"
	if ! BARE_TRACE="$tmp/trace-$v" lab/tests/bare-qemu.sh "$tmp/r$v" 0 3600 >/dev/null 2>"$tmp/trace-$v.err"; then
		bench_fail "$what" "$(head -1 "$tmp/trace-$v.err")"
		continue
	fi
	# The longest console silence of the bare boot: what the boot-silence watch must allow.
	gap=$(awk 'NR > 1 && $1 - p > g {g = $1 - p} {p = $1} END {printf "%.1f", g}' "$tmp/trace-$v")
	printf '%6s %10.1f %9s %7s %4s %10.1f %10.1f %10.1f %8.2f %10s %9s %s%s\n' "$v" "$boot" "$online" "$share" "$sd" "$first" \
		"$total" "$bare" "$(echo "$first / $bare" | bc -l)" "${rss}MiB" "$gap" ok \
		"$([ "$match" = true ] && echo ', observed == requested' || echo ', TOPOLOGY MISMATCH')"
	# Keep the evidence of the big boots: the console shows where the time went.
	[ -n "${BENCH_KEEP:-}" ] && mkdir -p "$BENCH_KEEP" && cp -r "$tmp/r$v" "$BENCH_KEEP/" 2>/dev/null
done
bench_exit
