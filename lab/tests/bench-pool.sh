#!/usr/bin/env bash
# Benchmark (not a test): one remote libvirt host through `lab run --connect URI`, here a
# second libvirt daemon on loopback (libvirtd2_start, lab/tests/lib.sh).  Prints, measured in this run:
#  - the kernel's upload through libvirt's storage API into an empty pool (bytes, seconds,
#    MiB/s), then the lookup of the cache hit on the next runs, and the ratio;
#  - the initramfs uploaded for every run (it carries the run's guest job);
#  - wall time and the lab process's own CPU per run, remote host against the embedded driver,
#    as a ratio (same job, same machine: the difference is what the transport costs).
# POOL_REPS (default 3) runs each way.  Over loopback the upload is bounded by the daemon and
# the disk, not a network: a real remote host's upload is the kernel's size over its link.
# Runs that did not all end ok end the part: it says which and why, prints no figure, and
# exits 1 (lab/tests/benchlib.sh).
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/benchlib.sh
lab=${B:-build}/lab
reps=${POOL_REPS:-3}
tmp=$(mktemp -d /tmp/numalab-bench-pool.XXXXXX)
chmod 755 "$tmp"
export LAB_STATE_DIR=$tmp/state
ld=$tmp/ld2
port=$(free_port)
uri="qemu+tcp://127.0.0.1:$port/session"
trap 'libvirtd2_cleanup "$ld"; [ -n "${BENCH_KEEP:-}" ] || rm -rf "$tmp"' EXIT
libvirtd2_start "$ld" "$port" || { bench_fail "the second libvirt daemon" "it did not start"; bench_exit; }
jq -n --argjson r "$reps" '{name: "bench-pool", topology: "4s-8c",
	kernel: {image: "/boot/vmlinuz-*"}, repeats: $r,
	workloads: [{name: "pft", params: {mode: "threads", memory_mib: 16, tasks: "per-cpu"}}]}' \
	>"$tmp/job.json"
# Both drivers' QEMU capability probes happen here, outside the timings.
$lab hosts >/dev/null 2>&1
$lab hosts --connect "$uri" >/dev/null 2>&1

# run_cpu NAME ARGS...: lab run ARGS --out $tmp/NAME; "WALL_S CPU_S" into $tmp/t.NAME, CPU_S
# the lab process's own (utime+stime from /proc, last read before it exited; its QEMUs,
# children of the lab under the embedded driver, are not counted).  Runs that failed end the
# part.
run_cpu() {
	local name=$1 t0 pid cpu=0 v tck rc=0
	shift
	tck=$(getconf CLK_TCK)
	t0=$(date +%s.%N)
	$lab run "$@" --runs-status --out "$tmp/$name" >"$tmp/$name.log" 2>&1 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		v=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) && [ -n "$v" ] && cpu=$v
		sleep 0.2
	done
	wait $pid || rc=$?
	lab_ok "$rc" "$tmp/$name" "the $name runs" "$tmp/$name.log" || bench_exit
	echo "$(echo "$(date +%s.%N) - $t0" | bc) $(echo "scale=2; $cpu / $tck" | bc)" >"$tmp/t.$name"
}
run_cpu remote "$tmp/job.json" --connect "$uri" --pool-dir "$ld/pool" --quiet-wait 0
run_cpu local "$tmp/job.json" --quiet-wait 0
jq -r --slurpfile tr <(tr ' ' '\n' <"$tmp/t.remote" | jq -s .) \
	--slurpfile tl <(tr ' ' '\n' <"$tmp/t.local" | jq -s .) --argjson n "$reps" '
	[.runs[].host.artifacts] as $a
	| ($a | map(.kernel) | map(select(.cached | not))) as $up
	| ($a | map(.kernel) | map(select(.cached))) as $hit
	| ($a | map(.initrd)) as $ird
	| def mib: . / 1048576 * 10 | round / 10;
	  def r3: . * 1000 | round / 1000;
	  def mean: add / length;
	"pool: kernel upload into an empty pool: \($up[0].bytes | mib) MiB in \($up[0].seconds | r3) s (\($up[0].bytes / $up[0].seconds / 1048576 | round) MiB/s over loopback)",
	"pool: kernel cache hit (lookup of the sha256-named volume and its .ok marker): \($hit | map(.seconds) | mean | r3) s mean over \($hit | length) runs; upload/hit = \($up[0].seconds / ($hit | map(.seconds) | mean) | round)x",
	"pool: initramfs per run (carries the guest job, uploaded each run): \($ird[0].bytes | mib) MiB in \($ird | map(.seconds) | mean | r3) s mean",
	"pool: wall per run, remote host \($tr[0][0] / $n * 10 | round / 10) s, embedded driver \($tl[0][0] / $n * 10 | round / 10) s: remote/local = \($tr[0][0] / $tl[0][0] * 100 | round / 100)",
	"pool: the lab process'"'"'s own CPU per run (its QEMUs not counted), remote \($tr[0][1] / $n * 100 | round / 100) s, local \($tl[0][1] / $n * 100 | round / 100) s"
	' "$tmp/remote/report.json"
bench_exit
