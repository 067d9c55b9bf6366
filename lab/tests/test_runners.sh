#!/usr/bin/env bash
# TAP test of the guest programs run on the host: the pft runner (JSON shape, one fault per
# page, parameter errors) and the agent's side-effect-free modes (job validation, the
# params -> argv convention, topology parsing on a fake sysfs tree).
# Needs build/runners/{pft,agent} and python3.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
PFT=$B/runners/pft
AGENT=$B/runners/agent
T=$(mktemp -d /tmp/numalab-test-runners.XXXXXX)
trap 'rm -rf "$T"' EXIT

for bin in "$PFT" "$AGENT"; do
	if [ ! -x "$bin" ]; then
		ok 1 "$bin is built (run make first)"
		finish
	fi
done
if ! command -v python3 >/dev/null; then
	ok 1 "python3 is available"
	finish
fi

# The guest programs' bytes do not depend on the checkout's directory: they go into the
# initramfs, whose length moves a guest's timing (Makefile, -ffile-prefix-map).
for bin in "$B"/runners/*; do
	! grep -qaF "$PWD" "$bin"
	ok $? "$(basename "$bin") holds no path of the checkout ($PWD)"
done

# check_pft FILE MODE: shape per PROTOCOL.md, page_faults within 2% of pages for each N.
check_pft() {
	python3 - "$1" "$2" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
errs = []
if doc.get("workload") != "pft":
    errs.append("workload is not pft")
params = doc.get("params", {})
if {k: params.get(k) for k in ("mode", "memory_mib", "tasks")} != \
        {"mode": sys.argv[2], "memory_mib": 16, "tasks": [1, 2]}:
    errs.append("params: %r" % (params,))
res = doc.get("results", [])
if [r.get("tasks") for r in res] != [1, 2]:
    errs.append("results tasks: %r" % ([r.get("tasks") for r in res],))
for r in res:
    for name, m in r.get("metrics", {}).items():
        if not isinstance(m.get("value"), (int, float)) or not isinstance(m.get("unit"), str) \
           or m.get("better") not in ("higher", "lower"):
            errs.append("metric %s malformed: %r" % (name, m))
    # The seed table's columns (runners/pft.c); perf counters come on top when available.
    want = {"faults_per_s", "faults_per_s_per_cpu", "faults_per_sys_s", "faults_per_cpu_s",
            "wall_max_s", "wall_min_s", "sys_s", "user_s", "cpu_s", "cpu_per_task_s",
            "page_faults"}
    if not want <= set(r.get("metrics", {})):
        errs.append("tasks=%s metrics: %s" % (r.get("tasks"), sorted(r.get("metrics", {}))))
        continue
    pages = r.get("info", {}).get("pages")
    faults = r["metrics"]["page_faults"]["value"]
    if pages != r["tasks"] * 16 * 1048576 // os.sysconf("SC_PAGESIZE"):
        errs.append("tasks=%s: info.pages %s" % (r["tasks"], pages))
    if not pages or abs(faults - pages) > 0.02 * pages:
        errs.append("tasks=%s: page_faults %s vs pages %s" % (r["tasks"], faults, pages))
    if not isinstance(r.get("info", {}).get("pinned"), bool):
        errs.append("tasks=%s: info.pinned missing" % r["tasks"])
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
}

for mode in threads processes; do
	"$PFT" --mode $mode --tasks 1,2 --memory-mib 16 --json >"$T/pft-$mode.json" 2>"$T/err"
	ok $? "pft --mode $mode --tasks 1,2 --memory-mib 16 --json exits 0"
	check_pft "$T/pft-$mode.json" $mode >"$T/why" 2>&1
	ok $? "pft $mode: JSON per protocol, page_faults within 2% of pages"
	diag "$T/why"
done

"$PFT" --tasks 1 --memory-mib 4 --table >"$T/table" 2>&1
grep -q 'TOT_PF/' "$T/table"
ok $? "pft --table prints a table"
"$PFT" --help >"$T/help" 2>&1 && grep -q -- '--memory-mib' "$T/help"
ok $? "pft --help exits 0 and documents --memory-mib"

# Bad parameters: exit 2 and a message naming the option.
bad() { # bad OPTION-NAMED-IN-MESSAGE ARGS...
	local want=$1
	shift
	"$PFT" "$@" >/dev/null 2>"$T/err"
	local st=$?
	[ $st -eq 2 ] && grep -q -- "$want" "$T/err"
	ok $? "pft $* exits 2 naming $want (status $st: $(head -c 120 "$T/err"))"
}
bad --tasks --tasks 0
bad --tasks --tasks 1,,2
bad --tasks --tasks abc
bad --tasks --tasks 5000
bad --memory-mib --memory-mib 0
bad --memory-mib --memory-mib -1
bad --mode --mode fibers
bad --mode --mode
bad --bogus --bogus
bad stray stray

# Agent: refuses to act as init when it is not PID 1.
"$AGENT" >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "agent run as a normal process exits 2 without doing anything"

cat >"$T/job.json" <<'EOF'
{"schema": "numalab.guestjob/1", "run_id": "t-1", "fault": "none", "heartbeat_s": 2,
 "workloads": [{"name": "pft", "timeout_s": 600,
   "params": {"mode": "threads", "memory_mib": 64, "tasks": [1, 2, 4], "thp": false,
              "table": true, "ratio": 0.25, "whole": 3.0, "names": ["a", 7]}},
  {"name": "pft"}]}
EOF
"$AGENT" --check-job "$T/job.json" >"$T/argv" 2>"$T/err"
ok $? "agent --check-job accepts a valid job"
python3 - "$T/argv" >"$T/why" 2>&1 <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
want = [["/numalab/bin/pft", "--json", "--memory-mib", "64", "--mode", "threads",
         "--names", "a,7", "--ratio", "0.25", "--table", "--tasks", "1,2,4", "--whole", "3"],
        ["/numalab/bin/pft", "--json"]]
got = [l["argv"] for l in lines]
if got != want:
    print("got  %r\nwant %r" % (got, want))
    sys.exit(1)
PY
ok $? "runner argv: sorted keys, _ -> -, arrays comma-joined, true bare, false omitted"
diag "$T/why"

badjob() { # badjob DESCRIPTION JSON
	printf '%s' "$2" >"$T/bad.json"
	"$AGENT" --check-job "$T/bad.json" >/dev/null 2>"$T/err"
	ok $([ $? -eq 2 ]; echo $?) "agent --check-job rejects $1 ($(head -c 100 "$T/err"))"
}
H='"schema": "numalab.guestjob/1", "run_id": "x"'
badjob "duplicate keys" "{$H, \"run_id\": \"y\", \"workloads\": []}"
badjob "a wrong schema" '{"schema": "numalab.guestjob/2", "run_id": "x", "workloads": []}'
badjob "an unknown fault" "{$H, \"fault\": \"boom\", \"workloads\": []}"
badjob "a path in a runner name" "{$H, \"workloads\": [{\"name\": \"../bin/sh\"}]}"
badjob "a runner that is not a registered workload" "{$H, \"workloads\": [{\"name\": \"sh\"}]}"
badjob "a knob word the knob table does not allow" "{$H, \"workloads\": [], \"knobs\": {\"thp_enabled\": \"sometimes\"}}"
badjob "nested object params" "{$H, \"workloads\": [{\"name\": \"pft\", \"params\": {\"a\": {}}}]}"
badjob "a negative timeout" "{$H, \"workloads\": [{\"name\": \"pft\", \"timeout_s\": -1}]}"
badjob "unknown keys" "{$H, \"workloads\": [], \"extra\": 1}"
badjob "a non-boolean online_after_boot" "{$H, \"online_after_boot\": 1, \"workloads\": []}"
badjob "invalid JSON" "{$H, "

# Topology on a fake tree: present pages round to nearest MiB, MemTotal kB to MiB.
F=$T/root
PS=$(getconf PAGESIZE)
mkdir -p "$F/proc" "$F/sys/devices/system/cpu" "$F/sys/devices/system/node/node0" \
	"$F/sys/devices/system/node/node1" "$F/sys/devices/system/node/possible-not-a-node"
echo "0-2,4" >"$F/sys/devices/system/cpu/online"
echo "0-1" >"$F/sys/devices/system/node/node0/cpulist"
echo "2,4" >"$F/sys/devices/system/node/node1/cpulist"
echo "10 21" >"$F/sys/devices/system/node/node0/distance"
echo "21 10" >"$F/sys/devices/system/node/node1/distance"
printf 'Node 0 MemTotal:        1047000 kB\nNode 0 MemFree:  1 kB\n' \
	>"$F/sys/devices/system/node/node0/meminfo"
printf 'Node 1 MemTotal:         524800 kB\n' >"$F/sys/devices/system/node/node1/meminfo"
# node0: 1 GiB + 0.4 MiB of pages (rounds down); node1: 256 MiB + 0.5 MiB (rounds up).
p0a=$((512 * 1048576 / PS)); p0b=$((512 * 1048576 / PS + 419430 / PS))
p1=$((256 * 1048576 / PS + 524288 / PS))
cat >"$F/proc/zoneinfo" <<EOF
Node 0, zone      DMA32
  pages free     1
        present  $p0a
        present_early_pages 99999
        spanned  1000
        managed  1
  start_pfn:           1
Node 0, zone   Normal
        present  $p0b
        spanned  1000
  start_pfn:           1001
Node 1, zone   Normal
        present  $p1
        spanned  1000
        managed  1
  start_pfn:           2001
EOF
# The kernel image in page frame 2500: node 1's (2001..3000).
printf '00001000-0009fbff : System RAM\n%x-%x : System RAM\n  %x-%x : Kernel code\n' \
	$((PS * 1001)) $((PS * 3001 - 1)) $((PS * 2500)) $((PS * 2600 - 1)) >"$F/proc/iomem"
"$AGENT" --topology "$F" >"$T/topo" 2>"$T/err"
ok $? "agent --topology on a fake tree exits 0"
python3 - "$T/topo" >"$T/why" 2>&1 <<'PY'
import json, sys
t = json.loads(open(sys.argv[1]).read())
want = {"t": "topology", "online_cpus": [0, 1, 2, 4], "distances": [[10, 21], [21, 10]],
        "nodes": [{"id": 0, "cpus": [0, 1], "memory_mib": 1024, "managed_mib": 1022},
                  {"id": 1, "cpus": [2, 4], "memory_mib": 257, "managed_mib": 513}],
        "kernel_node": 1}
if t != want:
    print("got  %s\nwant %s" % (json.dumps(t, sort_keys=True), json.dumps(want, sort_keys=True)))
    sys.exit(1)
PY
ok $? "topology: cpulists, distances, present MiB rounded to nearest, MemTotal in MiB, the kernel's node"
diag "$T/why"
# Addresses hidden (a reader without CAP_SYS_ADMIN sees zeros): no kernel_node.
sed -i 's/^ *[0-9a-f]*-[0-9a-f]* : Kernel code/  00000000-00000000 : Kernel code/' "$F/proc/iomem"
"$AGENT" --topology "$F" >"$T/topo" 2>"$T/err" &&
	python3 -c 'import json,sys; sys.exit("kernel_node" in json.load(open(sys.argv[1])))' "$T/topo"
ok $? "topology: no kernel_node when /proc/iomem hides the addresses"

# The nodes' memory at a workload's start on a fake tree: MemFree and MemUsed as they are;
# pcp, the counts of the CPUs' pagesets (52 + 11 pages); kept, per zone its min watermark plus
# its largest lowmem reserve, at most its free pages (node 0's DMA zone all of its 3840 free,
# DMA32 8017 + 3328; node 1's empty Movable nothing).
M=$T/mroot
mkdir -p "$M/proc" "$M/sys/devices/system/node/node0" "$M/sys/devices/system/node/node1"
printf 'Node 0 MemTotal:  3200000 kB\nNode 0 MemFree:   3105928 kB\nNode 0 MemUsed:    94072 kB\n' \
	>"$M/sys/devices/system/node/node0/meminfo"
printf 'Node 1 MemTotal:     1000 kB\nNode 1 MemFree:        400 kB\nNode 1 MemUsed:        600 kB\n' \
	>"$M/sys/devices/system/node/node1/meminfo"
cat >"$M/proc/zoneinfo" <<EOF
Node 0, zone      DMA
  pages free     3840
        boost    0
        min      39
        low      48
        present  3998
        protection: (0, 3018, 6346, 6346, 6346)
Node 0, zone    DMA32
  pages free     772692
        min      8017
        protection: (0, 0, 3328, 3328, 3328)
      nr_free_pages 772692
  pagesets
    cpu: 0
              count: 52
              high:  378
              batch: 63
  vm stats threshold: 24
    cpu: 1
              count: 11
              high:  378
              batch: 63
Node 1, zone   Normal
  per-node stats
      nr_inactive_anon 5
  pages free     100
        min      30
        protection: (0, 0, 0, 0, 0)
Node 1, zone  Movable
  pages free     0
        min      32
        protection: (0, 0, 0, 0, 0)
EOF
"$AGENT" --memory "$M" >"$T/mem" 2>"$T/err"
ok $? "agent --memory on a fake tree exits 0"
python3 - "$T/mem" "$PS" >"$T/why" 2>&1 <<'PY'
import json, sys
got, kib = json.loads(open(sys.argv[1]).read()), int(sys.argv[2]) // 1024
want = [{"id": 0, "free_kib": 3105928, "used_kib": 94072, "pcp_kib": 63 * kib,
         "kept_kib": (3840 + 8017 + 3328) * kib},
        {"id": 1, "free_kib": 400, "used_kib": 600, "pcp_kib": 0, "kept_kib": 30 * kib}]
if got != want:
    print("got  %s\nwant %s" % (json.dumps(got, sort_keys=True), json.dumps(want, sort_keys=True)))
    sys.exit(1)
PY
ok $? "memory: MemFree, MemUsed, the CPUs' lists; kept = min + lowmem reserve per zone, at most its free pages"
diag "$T/why"
"$AGENT" --memory "$F" >"$T/mem" 2>"$T/err"
[ $? -ne 0 ] && [ ! -s "$T/mem" ]
ok $? "memory: a node without MemUsed in its meminfo fails and prints nothing"

# Onlining on a fake tree: every present CPU not online gets "1" in its online file, in
# order; one without an online file is a recorded failure; rcu_expedited is restored.
O=$T/oroot
C=$O/sys/devices/system/cpu
mkdir -p "$O/sys/kernel" "$C/cpu2" "$C/cpu3" "$C/cpu5" "$C/cpu7"
echo "0-3,5-7" >"$C/present"
echo "0-1,6" >"$C/online"
for c in 2 3 5 7; do echo 0 >"$C/cpu$c/online"; done
rm "$C/cpu5/online"
echo 0 >"$O/sys/kernel/rcu_expedited"
"$AGENT" --online "$O" >"$T/online" 2>"$T/err"
ok $? "agent --online on a fake tree exits 0"
python3 - "$T/online" "$C" "$O/sys/kernel/rcu_expedited" >"$T/why" 2>&1 <<'PY'
import json, sys
t = json.loads(open(sys.argv[1]).read())
bad = []
for k, v in {"t": "cpus-online", "present": 7, "requested": 4, "failed_count": 1,
             "rcu_expedited": True, "domains_batched": False, "rebuild_s": 0}.items():
    if t.get(k) != v:
        bad.append("%s: got %r, want %r" % (k, t.get(k), v))
if [f["cpu"] for f in t.get("failed", [])] != [5] or not t["failed"][0].get("error"):
    bad.append("failed: %r" % t.get("failed"))
if not (isinstance(t.get("wall_s"), float) and t["wall_s"] >= 0):
    bad.append("wall_s: %r" % t.get("wall_s"))
for c in (2, 3, 7):
    if open("%s/cpu%d/online" % (sys.argv[2], c)).read().strip() != "1":
        bad.append("cpu%d not written" % c)
if open(sys.argv[3]).read().strip() != "0":
    bad.append("rcu_expedited not restored")
print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
ok $? "online: offline present CPUs written, a missing one recorded, rcu_expedited restored"
diag "$T/why"
# With a cgroup v1 cpuset hierarchy (the agent's /dev/cpuset; a plain file here) the root's
# sched_load_balance is 0 while the CPUs come up and 1 again after: domains built once.
# cpu2's online file is a FIFO: its reader looks at the balance while the agent onlines, and
# holds the agent at cpu3 (another FIFO) until it has looked.
O=$T/broot
C=$O/sys/devices/system/cpu
mkdir -p "$O/sys/kernel" "$O/dev/cpuset" "$C/cpu2" "$C/cpu3"
echo "0-3" >"$C/present"
echo "0-1" >"$C/online"
mkfifo "$C/cpu2/online" "$C/cpu3/online"
echo 1 >"$O/dev/cpuset/cpuset.sched_load_balance"
{ read -r _ <"$C/cpu2/online"; cat "$O/dev/cpuset/cpuset.sched_load_balance" >"$T/during"
  read -r _ <"$C/cpu3/online"; } &
reader=$!
timeout 30 "$AGENT" --online "$O" >"$T/online" 2>"$T/err"
rc=$?
wait $reader
[ $rc = 0 ] && [ "$(cat "$T/during")" = 0 ] &&
	[ "$(cat "$O/dev/cpuset/cpuset.sched_load_balance")" = 1 ] &&
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))
sys.exit(not (t["domains_batched"] is True and t["rebuild_s"] >= 0 and t["requested"] == 2
              and t["failed_count"] == 0))' "$T/online"
ok $? "online: load balancing off in the root cpuset while onlining, back on after"
# Balancing that was already off (someone's setting) is left alone: nothing to batch.
echo 0 >"$O/dev/cpuset/cpuset.sched_load_balance"
rm "$C/cpu2/online" "$C/cpu3/online"
echo 0 >"$C/cpu2/online"
echo 0 >"$C/cpu3/online"
"$AGENT" --online "$O" >"$T/online" 2>"$T/err" &&
	[ "$(cat "$O/dev/cpuset/cpuset.sched_load_balance")" = 0 ] &&
	python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))
sys.exit(not (t["domains_batched"] is False and t["requested"] == 2))' "$T/online"
ok $? "online: a root cpuset without load balancing is left as it was"
"$AGENT" --online "$T/nothing-here" >"$T/online" 2>"$T/err"
[ $? -ne 0 ] && [ ! -s "$T/online" ]
ok $? "online: a tree without present/online lists fails and prints nothing"

if [ -d /sys/devices/system/node/node0 ]; then
	"$AGENT" --topology >"$T/topo" 2>"$T/err" &&
		python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); sys.exit(not t["nodes"])' "$T/topo"
	ok $? "agent --topology reads this host's sysfs"
fi

finish
