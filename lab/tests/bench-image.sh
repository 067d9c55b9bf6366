#!/usr/bin/env bash
# Benchmarks of guest disk images (not tests: nothing here passes or fails on a timing).
#  1. A cold build of images/debian-perf.json into an empty cache (mmdebstrap + libguestfs).
#  2. The cached lookup: `lab image build` of the same recipe once it is cached (target <= 1 s).
#  3. Boot to first workload from the disk image (stage-1 initramfs, overlay on the cached base)
#     against the initramfs path, same topology, kernel and workload, interleaved A B A B so
#     host drift hits both; the ratio is of medians measured in this one run (target <= 1.3).
# A build or run that failed ends the part: it says which and why, prints no figure, and exits
# 1 (lab/tests/benchlib.sh).
# Usage: lab/tests/bench-image.sh [ROUNDS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
. lab/tests/benchlib.sh
B=${B:-build}
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
export LAB_ROOT="${LAB_ROOT:-$(pwd)}"
rounds=${1:-5}
tmp=$(mktemp -d /tmp/numalab-bench-image.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_IMAGE_CACHE="$tmp/cache"
timed_ok "the cold image build" "$tmp/build" $B/lab image build debian-perf || bench_exit
cold=$secs
: >"$tmp/lookup.t"
for ((r = 1; r <= rounds; r++)); do
	timed_ok "the cached lookup, round $r" "$tmp/lookup" $B/lab image build debian-perf || bench_exit
	echo "$secs" >>"$tmp/lookup.t"
done

# The same job twice: from the initramfs, and from the image.
jq '.name = "bench-initramfs"' configs/quick.json >"$tmp/initramfs.json"
jq '.name = "bench-image" | .image = {"recipe": "debian-perf"}' configs/quick.json >"$tmp/image.json"
mkdir -p "$tmp/topologies"
cp configs/topologies/*.json "$tmp/topologies/"
: >"$tmp/first-i.t"; : >"$tmp/first-d.t"; : >"$tmp/boot-i.t"; : >"$tmp/boot-d.t"
for ((r = 1; r <= rounds; r++)); do
	for kind in i d; do
		job="$tmp/initramfs.json"
		[ "$kind" = d ] && job="$tmp/image.json"
		what="lab run $(basename "$job" .json), round $r"
		lab_run "$tmp/r$r$kind" "$what" "$job" || bench_exit
		first=$(jq -r '.runs[0].timings.first_workload_s' "$tmp/r$r$kind/report.json")
		boot=$(jq -r '.runs[0].timings.boot_s' "$tmp/r$r$kind/report.json")
		bench_num "$what" first_workload_s "$first" && bench_num "$what" boot_s "$boot" || bench_exit
		echo "$first" >>"$tmp/first-$kind.t"
		echo "$boot" >>"$tmp/boot-$kind.t"
	done
	printf 'round %d: first workload after %.2f s (initramfs), %.2f s (disk image)\n' "$r" \
		"$(tail -1 "$tmp/first-i.t")" "$(tail -1 "$tmp/first-d.t")"
done
fi_m=$(median <"$tmp/first-i.t"); fd_m=$(median <"$tmp/first-d.t")
printf '\nimages/debian-perf.json (%s), %d rounds, medians:\n' "$(jq -r .runs[0].host.accel "$tmp/r1d/report.json")" "$rounds"
printf '  cold image build (mmdebstrap + libguestfs)   %7.1f s\n' "$cold"
printf '  cached lookup (lab image build, cached)      %7.3f s   (target <= 1 s)\n' "$(median <"$tmp/lookup.t")"
printf '  boot -> agent hello, initramfs / disk image  %7.2f s / %.2f s\n' "$(median <"$tmp/boot-i.t")" "$(median <"$tmp/boot-d.t")"
printf '  boot -> first workload, initramfs            %7.2f s\n' "$fi_m"
printf '  boot -> first workload, disk image           %7.2f s\n' "$fd_m"
printf '  ratio disk image / initramfs                 %7.3f   (target <= 1.3)\n' "$(echo "$fd_m / $fi_m" | bc -l)"
bench_exit
