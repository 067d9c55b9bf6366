#!/usr/bin/env bash
# The bare-qemu reference of the benchmarks: replay a `lab run --keep-initrd` run with a hand-run
# qemu-system-x86_64 (same kernel, initramfs, command line, topology, and the IOMMU/x2APIC
# devices the lab adds above 255 APIC IDs, lab/core/domain.c), and print the seconds from
# start to the agent's first "workload-start" line on the results port, then stop QEMU
# (BARE_UNTIL=poweroff: to QEMU's exit after the agent's "done").  Prints the seconds only
# when the guest got there (for poweroff: its "done" says ok); else says why on stderr, with
# the console's last lines, and exits 1.  QEMU is killed on every way out.
# Benchmarks only: the product never runs qemu by hand.
# Usage: lab/tests/bare-qemu.sh REPORT_DIR [RUN_INDEX] [TIMEOUT_S]
#        BARE_ACCEL_OPTS=",thread=single" appends to -accel tcg|kvm, BARE_APPEND to the kernel
#        command line, BARE_EXTRA to QEMU's arguments (experiments); BARE_CONSOLE=FILE keeps
#        the console log, BARE_RESULTS=FILE the results port's lines.
set -euo pipefail
dir=$1 idx=${2:-0} limit=${3:-3600}
rep="$dir/report.json"
q() { jq -r ".runs[$idx]$1" "$rep"; }
accel=$(q .host.accel) kernel=$(q .kernel.image) cmdline=$(q .kernel.cmdline)
initrd="$dir/run-$idx/initrd.cpio"
[ -f "$initrd" ] || { echo "bare-qemu: $initrd missing (run lab with --keep-initrd)" >&2; exit 2; }
read -r sockets dies cores threads vcpus < <(q '.topology.requested | "\(.sockets) \(.dies) \(.cores) \(.threads) \(.vcpus)"')
# What the lab's domain.xml chose beyond the topology (lab/core/domain.c): no SMM, the TCG
# translation buffer's size, the firmware (qboot where the lab uses it).
xml="$dir/run-$idx/domain.xml"
tb=$(sed -n "s/.*<tb-cache unit='MiB'>\([0-9]*\)<.*/\1/p" "$xml" 2>/dev/null)
fw=$(sed -n "s/.*<loader type='rom'>\(.*\)<\/loader>.*/\1/p" "$xml" 2>/dev/null)
args=(-machine q35,smm=off -accel "$accel${tb:+,tb-size=$tb}${BARE_ACCEL_OPTS:-}" ${fw:+-bios "$fw"})
mem=0
while read -r id cpus mib; do
	args+=(-object "memory-backend-ram,id=ram-node$id,size=${mib}M"
	       -numa "node,nodeid=$id,cpus=$cpus,memdev=ram-node$id")
	mem=$((mem + mib))
done < <(q '.topology.requested.nodes[] | "\(.id) \(.cpus | min)-\(.cpus | max) \(.memory_mib)"')
n=$(q '.topology.requested.nodes | length')
for ((i = 0; i < n; i++)); do for ((k = 0; k < n; k++)); do
	[ "$i" != "$k" ] && args+=(-numa "dist,src=$i,dst=$k,val=$(q ".topology.requested.distances[$i][$k]")")
done; done
# The lab's rule (domain_wants_iommu): max APIC ID >= 255 needs x2APIC + interrupt remapping.
bits() { local b=0; while ((1 << b < $1)); do b=$((b + 1)); done; echo $b; }
tb=$(bits "$threads") cb=$(bits "$cores") db=$(bits "$dies")
maxid=$(( ((sockets - 1) << (db + cb + tb)) | ((dies - 1) << (cb + tb)) | ((cores - 1) << tb) | (threads - 1) ))
cpu=qemu64
if ((vcpus > 255 || maxid >= 255)); then
	cpu=qemu64,+x2apic
	args+=(-machine kernel-irqchip=split -device intel-iommu,intremap=on,eim=on)
fi
tmp=$(mktemp -d /tmp/numalab-bare.XXXXXX)
results="$tmp/results.jsonl"
: >"$results"
# Until the first workload the results port is a FIFO read by this shell with blocking reads
# stamped with $EPOCHREALTIME: the reference boot shares the 2 host cores with nothing but
# QEMU (an earlier version polled with grep, bc and date every 50 ms, and that polling made
# the bare boot of 8 vCPUs 0.3-0.9 s slower than the lab's on this kind of host).  QEMU's
# pipe:P opens P.in and P.out; this shell holds both open read-write first, so neither side's
# open blocks.  The console stays a file: a shell reading it line by line held back a 512-vCPU
# guest's console writes.  BARE_TRACE polls it (host seconds and line count:
# where the boot's time goes), which costs the boot some host CPU: diagnostics, not timings.
serial=(-serial "file:$tmp/console.log" -serial "file:$results")
if [ "${BARE_UNTIL:-}" != poweroff ]; then
	mkfifo "$tmp/res.in" "$tmp/res.out"
	exec 5<>"$tmp/res.in" 6<>"$tmp/res.out"
	serial=(-serial "file:$tmp/console.log" -serial "pipe:$tmp/res")
fi
start=$EPOCHREALTIME
qemu-system-x86_64 "${args[@]}" -cpu "$cpu" -m "$mem" \
	-smp "$vcpus,sockets=$sockets,dies=$dies,cores=$cores,threads=$threads" \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline${BARE_APPEND:+ $BARE_APPEND}" \
	"${serial[@]}" -display none -nodefaults -no-user-config -no-reboot ${BARE_EXTRA:-} &
pid=$!
conpid= watchdog=
# The way out, whatever it is.  Without errexit: under `set -e` the first command that failed
# here (kill of a QEMU that had already powered off) ended the trap with status 1, so every
# finished poweroff replay exited 1 ("did not finish") and left its directory and its
# watchdog's sleep behind.
cleanup() {
	set +e
	kill -9 "$pid" ${conpid:+"$conpid"} ${watchdog:+"$watchdog"} 2>/dev/null
	wait "$pid" ${conpid:+"$conpid"} ${watchdog:+"$watchdog"} 2>/dev/null
	[ -n "${BARE_CONSOLE:-}" ] && cp "$tmp/console.log" "$BARE_CONSOLE"
	[ -n "${BARE_RESULTS:-}" ] && cp "$results" "$BARE_RESULTS"
	rm -rf "$tmp"
}
trap cleanup EXIT
# why MESSAGE: says why the replay did not get there, with the console's last lines; exit 1.
why() {
	echo "bare-qemu: $*" >&2
	tail -5 "$tmp/console.log" 2>/dev/null | tr -cd '[:print:]\n' | sed 's/^/console: /' >&2
	exit 1
}
# BARE_UNTIL=poweroff: block until QEMU exits (the agent powers off after its job) or the time
# limit, whichever comes first, and print that time; no polling, so the reference costs the
# host nothing extra (bench-run.sh's ratio).
if [ "${BARE_UNTIL:-}" = poweroff ]; then
	sleep "$limit" &
	watchdog=$!
	rc=0 who=
	wait -n -p who "$pid" "$watchdog" || rc=$?
	t=$(echo "$EPOCHREALTIME - $start" | bc -l)
	[ "$who" = "$pid" ] || why "the guest did not power off within $limit s (QEMU killed)"
	ok=$(jq -Rrn '[inputs | fromjson? | select(.t == "done") | .ok] | .[0] | select(. != null)' "$results")
	[ -n "$ok" ] || why "QEMU exited (status $rc) and the agent never reported done"
	[ "$ok" = true ] || why "the agent reported done with ok=$ok (a workload failed)"
	echo "$t"
	exit 0
fi
if [ -n "${BARE_TRACE:-}" ]; then
	(
		first= last=
		while sleep 0.05; do
			n=0
			[ -f "$tmp/console.log" ] && n=$(wc -l <"$tmp/console.log")
			[ "$n" = 0 ] && continue
			t=$EPOCHREALTIME
			[ -n "${BARE_TRACE:-}" ] && [ "$n" != "$last" ] && echo "$t $n" >>"$BARE_TRACE"
			last=$n
			[ -z "$first" ] && first=$t && [ -n "${BARE_VERBOSE:-}" ] &&
				echo "bare-qemu: first console output at $(echo "$t - $start" | bc -l) s" >&2
		done
	) &
	conpid=$!
fi
# Each line of the results port, until the agent's first "workload-start"; read -t bounds it.
deadline=$(echo "$start + $limit" | bc -l)
while :; do
	if (($(echo "$EPOCHREALTIME > $deadline" | bc))); then
		why "no workload started within $limit s"
	fi
	# A second at a time: this shell holds the FIFO's write end too, so a QEMU that died
	# would not end the read.
	if IFS= read -r -t 1 -u 6 line; then
		t=$EPOCHREALTIME
		printf '%s\n' "$line" >>"$results"
		case $line in *'"t":"workload-start"'*)
			echo "$t - $start" | bc -l
			# QEMU's own memory next to the guest's (the lab's memory plan): BARE_VERBOSE=1.
			[ -n "${BARE_VERBOSE:-}" ] && echo "bare-qemu: QEMU peak RSS $(awk '/VmHWM/ {print int($2 / 1024)}' /proc/$pid/status) MiB" >&2
			exit 0
		esac
	elif ! kill -0 $pid 2>/dev/null; then
		break
	fi
done
sleep 0.2
why "QEMU exited before the first workload"
