#!/usr/bin/env bash
# Benchmark of `lab run` (not a test: nothing here passes or fails on a timing):
#  1. `lab run configs/quick.json` end to end, and its boot-to-first-workload seconds.
#  2. The overhead of `lab run` over a bare qemu-system-x86_64 running the same kernel,
#     initramfs (same agent, runners and job) and command line (lab/tests/bare-qemu.sh
#     replaying the warm-up run to the guest's power-off), interleaved A B A B so host drift
#     hits both; the ratio is of medians measured in this one run.  Beside it, the spread of
#     each side (a tcg boot of 8 vCPUs on 2 cores takes 6 to 10 s, whoever starts it) and the
#     lab's own seconds outside the guest's: the wall time less the run's total_s (which counts
#     from the libvirt call that starts QEMU to the guest's power-off).
#  3. The first run on a fresh host (a state directory of its own) against a warm one.
# A run that failed, the lab's or the bare guest's, ends the part: it says which and why,
# prints no figure, and exits 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-run.sh [ROUNDS]   (default 5; BARE_TIMEOUT=S bounds a bare run, 600)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
rounds=${1:-5}
tmp=$(mktemp -d /tmp/numalab-bench-run.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# The first run on a fresh host: a state directory of its own (libvirt probes QEMU's
# capabilities, the KVM verdict is decided), timed against the warm runs below.
LAB_STATE_DIR="$tmp/fresh-state" lab_run "$tmp/first" "the first run (fresh state directory)" \
	configs/quick.json --quiet-wait 0 || bench_exit
first_run=$secs
# Warm-up run: the KVM verdict and libvirt's QEMU capability cache are filled once per host,
# not per run; it also gives the initrd that the bare runs replay.
lab_run "$tmp/warm" "the warm-up run" configs/quick.json --keep-initrd || bench_exit
rep="$tmp/warm/report.json"
accel=$(jq -r '.runs[0].host.accel' "$rep")
vcpus=$(jq -r '.runs[0].topology.requested.vcpus' "$rep")

: >"$tmp/lab.t"; : >"$tmp/bare.t"; : >"$tmp/first.t"; : >"$tmp/boot.t"; : >"$tmp/own.t"; : >"$tmp/start.t"
for ((r = 1; r <= rounds; r++)); do
	# --quiet-wait 0: the wait for a quiet host is not boot overhead; bare QEMU has none.
	what="lab run, round $r"
	lab_run "$tmp/r$r" "$what" configs/quick.json --quiet-wait 0 || bench_exit
	# One read of the report's timings (start_s is absent from a run libvirt did not start).
	read -r first boot total start < <(jq -r '.runs[0].timings |
		"\(.first_workload_s) \(.boot_s) \(.total_s) \(.start_s // "")"' "$tmp/r$r/report.json")
	bench_num "$what" first_workload_s "$first" && bench_num "$what" boot_s "$boot" &&
		bench_num "$what" total_s "$total" || bench_exit
	echo "$secs" >>"$tmp/lab.t"; echo "$first" >>"$tmp/first.t"; echo "$boot" >>"$tmp/boot.t"
	echo "$secs - $total" | bc -l >>"$tmp/own.t"
	[ -z "$start" ] || echo "$start" >>"$tmp/start.t"
	# The bare reference replays the warm-up run: same kernel, initrd, command line, topology;
	# it prints its seconds only when the guest powered off after its job's "done" (ok).
	what="bare run $r (the warm-up run replayed with bare QEMU)"
	if ! bare=$(BARE_UNTIL=poweroff lab/tests/bare-qemu.sh "$tmp/warm" 0 "${BARE_TIMEOUT:-600}" \
		2>"$tmp/bare-$r.err"); then
		bench_fail "$what" "$(head -1 "$tmp/bare-$r.err")"
		tail -n +2 "$tmp/bare-$r.err" | sed 's/^/    /' >&2
		bench_exit
	fi
	bench_num "$what" seconds "$bare" || bench_exit
	echo "$bare" >>"$tmp/bare.t"
	printf 'round %d: lab %.2f s, bare qemu %.2f s\n' "$r" "$secs" "$bare"
done
lab_m=$(median <"$tmp/lab.t"); bare_m=$(median <"$tmp/bare.t")
printf '\nquick.json (%s, %s vCPUs, %s), %d rounds, medians:\n' "$(jq -r .runs[0].kernel.release "$rep")" "$vcpus" "$accel" "$rounds"
printf '  lab run end to end          %6.2f s\n' "$lab_m"
printf '  boot (start -> agent hello) %6.2f s\n' "$(median <"$tmp/boot.t")"
printf '  boot -> first workload      %6.2f s\n' "$(median <"$tmp/first.t")"
printf '  bare qemu, same guest       %6.2f s\n' "$bare_m"
spread() { sort -g "$1" | sed -n '1p;$p' | paste -sd' '; }
printf '  spread, lab run             %6.2f to %.2f s\n' $(spread "$tmp/lab.t")
printf '  spread, bare qemu           %6.2f to %.2f s\n' $(spread "$tmp/bare.t")
printf '  lab outside the guest       %6.2f s   (wall less total_s: start-up, report)\n' "$(median <"$tmp/own.t")"
printf '  libvirt starting QEMU       %6.2f s   (start_s, inside boot; bare QEMU has none)\n' "$(median <"$tmp/start.t")"
printf '  overhead ratio lab/bare     %6.3f   (target <= 1.10, aim 1.02)\n' "$(echo "$lab_m / $bare_m" | bc -l)"
printf '  first run, fresh state dir  %6.2f s: %+.1f s over a warm one (target <= +20 s)\n' "$first_run" "$(echo "$first_run - $lab_m" | bc -l)"
bench_exit
