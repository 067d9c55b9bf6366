#!/usr/bin/env bash
# Benchmarks (not tests: nothing here passes or fails on a timing).
#  1. `lab run configs/quick.json` end to end, and its boot-to-first-workload seconds.
#  2. The overhead of `lab run` over a bare qemu-system-x86_64 running the same kernel,
#     initramfs (same agent, runners and job) and command line, interleaved A B A B so host
#     drift hits both; the ratio is of medians measured in this one run.
#  3. lab compare of 1000-series reports and lab report of 100 reports rendered in Chromium
#     (lab/tests/bench-compare.sh).
#  4. Kernel builds: cold, a second variant after it, a cache hit (lab/tests/bench-kernel.sh).
#  5. Guest images (lab/tests/bench-image.sh).
#  6. The boot curve: 8 to 512 vCPUs, lab vs bare qemu (lab/tests/bench-boot.sh; the 512-vCPU
#     boots alone take about half an hour on 2 host cores).
#  7. Fuzzing throughput per harness and lab run's peak RSS under a flooding guest
#     (lab/tests/bench-reliability.sh).
#  8. A pool host over a remote URI: artifact uploads, cache hits, the transport's cost per run
#     (lab/tests/bench-pool.sh).
# Usage: lab/tests/bench.sh [ROUNDS]   (default 5)
#        BENCH_PARTS="run compare kernel image boot verdict parallel seeds bisect labd reliability pool" selects parts
#        (default: all)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
rounds=${1:-5}
tmp=$(mktemp -d /tmp/numalab-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }
want() { case " ${BENCH_PARTS:-run compare kernel image boot verdict parallel seeds bisect labd reliability pool} " in *" $1 "*) return 0;; esac; return 1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

if want run; then
# The first run on a fresh host: a state directory of its own (libvirt probes QEMU's
# capabilities, the KVM verdict is decided), timed against the warm runs below.
t0=$(now); LAB_STATE_DIR="$tmp/fresh-state" $B/lab run configs/quick.json --quiet-wait 0 --out "$tmp/first" >/dev/null 2>&1 || echo "warning: the first run did not end ok" >&2; t1=$(now)
first_run=$(echo "$t1 - $t0" | bc -l)
# Warm-up run: the KVM verdict and libvirt's QEMU capability cache are filled once per host,
# not per run; it also gives the initrd that the bare runs replay.
$B/lab run configs/quick.json --out "$tmp/warm" --keep-initrd >/dev/null 2>&1
rep="$tmp/warm/report.json"
accel=$(jq -r '.runs[0].host.accel' "$rep")
vcpus=$(jq -r '.runs[0].topology.requested.vcpus' "$rep")
# The bare reference replays the warm-up run: same kernel, initrd, command line, topology.
bare() { BARE_UNTIL=poweroff lab/tests/bare-qemu.sh "$tmp/warm" 0 600; }

: >"$tmp/lab.t"; : >"$tmp/bare.t"; : >"$tmp/first.t"; : >"$tmp/boot.t"
for ((r = 1; r <= rounds; r++)); do
	# --quiet-wait 0: the wait for a quiet host is not boot overhead; bare QEMU has none.
	t0=$(now); $B/lab run configs/quick.json --quiet-wait 0 --out "$tmp/r$r" >/dev/null 2>&1; t1=$(now)
	echo "$t1 - $t0" | bc -l >>"$tmp/lab.t"
	jq -r '.runs[0].timings.first_workload_s' "$tmp/r$r/report.json" >>"$tmp/first.t"
	jq -r '.runs[0].timings.boot_s' "$tmp/r$r/report.json" >>"$tmp/boot.t"
	bare >>"$tmp/bare.t" || echo "warning: bare run $r did not finish" >&2
	printf 'round %d: lab %.2f s, bare qemu %.2f s\n' "$r" "$(tail -1 "$tmp/lab.t")" "$(tail -1 "$tmp/bare.t")"
done
lab_m=$(median <"$tmp/lab.t"); bare_m=$(median <"$tmp/bare.t")
printf '\nquick.json (%s, %s vCPUs, %s), %d rounds, medians:\n' "$(jq -r .runs[0].kernel.release "$rep")" "$vcpus" "$accel" "$rounds"
printf '  lab run end to end          %6.2f s\n' "$lab_m"
printf '  boot (start -> agent hello) %6.2f s\n' "$(median <"$tmp/boot.t")"
printf '  boot -> first workload      %6.2f s\n' "$(median <"$tmp/first.t")"
printf '  bare qemu, same guest       %6.2f s\n' "$bare_m"
printf '  overhead ratio lab/bare     %6.3f   (target <= 1.10, aim 1.02)\n' "$(echo "$lab_m / $bare_m" | bc -l)"
printf '  first run, fresh state dir  %6.2f s: %+.1f s over a warm one (target <= +20 s)\n' "$first_run" "$(echo "$first_run - $lab_m" | bc -l)"
fi

# lab compare / lab report (lab/tests/bench-compare.sh).
echo
if want compare; then lab/tests/bench-compare.sh "$rounds"; fi

# Kernel variant builds (lab/tests/bench-kernel.sh).
echo
if want kernel; then lab/tests/bench-kernel.sh; fi

# Guest disk images: cold build, cached lookup, disk vs initramfs boot (lab/tests/bench-image.sh).
echo
if want image; then lab/tests/bench-image.sh "$rounds"; fi

# Boot-to-first-workload against the vCPU count, lab vs bare qemu (lab/tests/bench-boot.sh).
echo
if want boot; then lab/tests/bench-boot.sh; fi

# Verdicts that can be believed (lab/tests/bench-verdict.sh).
echo
if want verdict; then lab/tests/bench-verdict.sh; fi

# Guests side by side under icount: verdicts per hour and the A/A alone vs beside
# (lab/tests/bench-parallel.sh).
echo
if want parallel; then lab/tests/bench-parallel.sh; fi

# The seeds' A/B directions under both TCG timing models (lab/tests/bench-seeds.sh).
echo
if want seeds; then lab/tests/bench-seeds.sh; fi

# A bisection over 16 commits (builds, boots, wall time) and nightly false alarms and
# detection delay (lab/tests/bench-bisect.sh).
echo
if want bisect; then lab/tests/bench-bisect.sh; fi

# labd: submission latency, listing, idle CPU, a job through it against lab run
# (lab/tests/bench-labd.sh).
if want labd; then lab/tests/bench-labd.sh; fi
if want reliability; then lab/tests/bench-reliability.sh; fi
# A pool host over a remote URI (lab/tests/bench-pool.sh).
if want pool; then lab/tests/bench-pool.sh; fi
