#!/usr/bin/env bash
# TAP test of the workload runners on the host (issue 3): pft, memscale, page_fault1/2/3 and
# mmap_contention at small sizes.  Checks the protocol shape of their JSON, that touching N
# pages costs N faults (within 2%), that THP on a 2 MiB-aligned region costs about N/512,
# that memory bound to a node lands there (>= 95%; this host's tasks run on node 0 when it has
# one node), that perf counters the machine cannot count are listed as unavailable (never 0),
# repetitions/warm-up, the task sweeps, the tables, that bad parameters exit 2 with a
# message, and that the runners' options and checks are the registry's, as the lab's are.
# Needs build/runners/* and python3.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
R=$B/runners
T=$(mktemp -d /tmp/numalab-test-workloads.XXXXXX)
trap 'rm -rf "$T"' EXIT

for w in pft memscale page_fault1 page_fault2 page_fault3 mmap_contention; do
	if [ ! -x "$R/$w" ]; then
		ok 1 "$R/$w is built (run make first)"
		finish
	fi
done
if ! command -v python3 >/dev/null; then
	ok 1 "python3 is available"
	finish
fi

# check FILE WORKLOAD [PYTHON-ASSERTIONS]: the protocol shape (PROTOCOL.md) plus the given
# checks; `doc` is the document, `res` its results, `err(msg)` records a failure.
check() {
	local file=$1 workload=$2 extra=${3:-}
	python3 - "$file" "$workload" >"$T/why" 2>&1 <<PY
import json, math, os, sys
doc = json.load(open(sys.argv[1]))
res = doc.get("results", [])
errs = []
def err(m): errs.append(m)
def sized_agrees(z, cap, target):
    """A sized run's reason agrees with its interval and span: by its interval within the
    target after half the cap, or at the cap with a wider one."""
    return z.get("target_pct") == target and (
        (z.get("by") == "precision" and cap / 2 <= z.get("span_s", 0) < cap and
         z.get("ci_pct", 99) <= target) or
        (z.get("by") == "duration" and z.get("span_s", 0) >= cap and z.get("ci_pct", 99) > target))
if doc.get("workload") != sys.argv[2]:
    err("workload is %r" % doc.get("workload"))
if not isinstance(doc.get("params"), dict) or not isinstance(doc.get("info"), dict):
    err("params/info missing")
if not res:
    err("no results")
HW = ["perf_cycles", "perf_instructions", "perf_stalled_cycles_frontend",
      "perf_stalled_cycles_backend"]
for r in res:
    if not isinstance(r.get("tasks"), int) or not isinstance(r.get("repetition"), int):
        err("result without tasks/repetition: %r" % sorted(r))
    for name, m in r.get("metrics", {}).items():
        if not isinstance(m.get("value"), (int, float)) or not math.isfinite(m["value"]) \
           or not isinstance(m.get("unit"), str) or m.get("better") not in ("higher", "lower"):
            err("metric %s malformed: %r" % (name, m))
    perf = r.get("info", {}).get("perf", {})
    for c in HW:
        if (c in r["metrics"]) == (c in perf.get("unavailable", [])):
            err("%s must be either a metric or listed unavailable, not %s" %
                (c, "both" if c in r["metrics"] else "neither"))
        if c in perf.get("unavailable", []) and not perf.get("reasons", {}).get(c):
            err("%s unavailable without a reason" % c)
    for c in ["perf_task_clock_s", "perf_page_faults", "perf_context_switches"]:
        if c not in r["metrics"] and c not in perf.get("unavailable", []):
            err("%s neither measured nor unavailable" % c)
    if "pgfault" not in r.get("info", {}).get("vmstat", {}):
        err("info.vmstat.pgfault missing")
    if not isinstance(r.get("info", {}).get("pinned"), bool):
        err("info.pinned missing")
$extra
for e in errs:
    print(e)
sys.exit(1 if errs else 0)
PY
}

# faults FIELD: page faults within 2% of the pages touched, by rusage and by perf.
FAULTS='
for r in res:
    pages = r["info"]["pages"]
    for m in ("page_faults", "perf_page_faults"):
        if m in r["metrics"] and abs(r["metrics"][m]["value"] - pages) > 0.02 * pages:
            err("tasks=%s %s: %s faults for %s pages" % (r["tasks"], m, r["metrics"][m]["value"], pages))
'
LOCAL='
for r in res:
    p = r["info"]["placement"]
    if not p.get("local_fraction") or p["local_fraction"] < 0.95:
        err("tasks=%s: local fraction %s < 0.95: %r" % (r["tasks"], p.get("local_fraction"), p))
    if [x["node"] for x in p.get("per_node", [])] != sorted({x["node"] for x in p.get("per_node", [])}):
        err("per_node not one entry per node")
'

# --- pft: every object, threads and processes, private and shared ------------------------
for mode in threads processes; do
	for obj in anon malloc zero shm; do
		shared=""
		for sh in "" --shared; do
			[ -n "$sh" ] && [ $mode = processes ] && { [ $obj = anon ] || [ $obj = malloc ]; } && continue
			"$R/pft" --mode $mode --object $obj $sh --tasks 1,2 --memory-mib 8 --json \
				>"$T/pft.json" 2>"$T/err"
			st=$?
			check "$T/pft.json" pft "$FAULTS$LOCAL"
			ok $(( st | $? )) "pft $mode $obj ${sh:-private}: N pages -> N faults (2%), memory bound >= 95% local"
			diag "$T/why" "$T/err"
		done
	done
done

"$R/pft" --tasks 1,2 --memory-mib 8 --json >"$T/pft.json" 2>&1
check "$T/pft.json" pft '
want = {"wall_max_s", "wall_min_s", "sys_s", "user_s", "cpu_s", "cpu_per_task_s", "faults_per_s",
        "faults_per_sys_s", "faults_per_s_per_cpu", "faults_per_cpu_s", "page_faults"}
for r in res:
    missing = want - set(r["metrics"])
    if missing:
        err("missing seed columns %s" % sorted(missing))
    if not isinstance(r["info"].get("nodes"), int) or r["info"]["nodes"] < 1:
        err("info.nodes: %r" % r["info"].get("nodes"))
    m = r["metrics"]
    if abs(m["faults_per_s_per_cpu"]["value"] * r["tasks"] - m["faults_per_s"]["value"]) > 1e-6 * m["faults_per_s"]["value"]:
        err("faults_per_s_per_cpu * tasks != faults_per_s")
    if m["wall_min_s"]["value"] > m["wall_max_s"]["value"]:
        err("wall_min > wall_max")
'
ok $? "pft: the seed table's columns as metrics, units and directions"
diag "$T/why"

for touch in memset mlock; do
	"$R/pft" --touch $touch --tasks 2 --memory-mib 8 --json >"$T/pft.json" 2>"$T/err"
	check "$T/pft.json" pft '
for r in res:
    pages = r["info"]["pages"]
    if abs(r["metrics"]["page_faults"]["value"] - pages) > 0.02 * pages:
        err("%s faults for %s pages" % (r["metrics"]["page_faults"]["value"], pages))
'
	ok $? "pft --touch $touch: N pages -> N faults (2%)"
	diag "$T/why" "$T/err"
done

"$R/pft" --memory-split --memory-mib 16 --tasks 1,2 --cachelines 4 --mbind --json >"$T/pft.json" 2>"$T/err"
check "$T/pft.json" pft '
if [r["info"]["pages"] for r in res] != [4096, 4096] or [r["info"]["bytes_per_task"] for r in res] != [16 << 20, 8 << 20]:
    err("memory_split: pages %r" % [(r["info"]["pages"], r["info"]["bytes_per_task"]) for r in res])
'"$FAULTS$LOCAL"
ok $? "pft --memory-split: the region is carved among the tasks (Lameter's -m), --mbind lands local"
diag "$T/why" "$T/err"

# THP: MADV_HUGEPAGE on a 2 MiB-aligned region.  The host may run THP "madvise" or "always";
# "never" (or no THP at all) makes this a failure with the reason, never a silent skip.
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if [ "$thp" = always ] || [ "$thp" = madvise ]; then
	"$R/pft" --thp --tasks 1,2 --memory-mib 16 --json >"$T/pft.json" 2>"$T/err"
	check "$T/pft.json" pft '
for r in res:
    pages, f = r["info"]["pages"], r["metrics"]["page_faults"]["value"]
    v = r["info"]["vmstat"]
    want = pages / 512
    if not (want * 0.9 <= f <= want * 1.1 + 2):
        err("tasks=%s: %s faults for %s pages, want about %s (thp_fault_alloc %s, fallback %s)"
            % (r["tasks"], f, pages, want, v.get("thp_fault_alloc"), v.get("thp_fault_fallback")))
'
	ok $? "pft --thp: a 2 MiB-aligned region of N pages takes about N/512 faults"
	diag "$T/why" "$T/err"
	"$R/memscale" --huge thp --tasks 2 --memory-mib 16 --json >"$T/ms.json" 2>"$T/err"
	check "$T/ms.json" memscale '
for r in res:
    f, want = r["metrics"]["page_faults"]["value"], r["tasks"] * 16 / 2
    if not (want * 0.9 <= f <= want * 1.1 + 2):
        err("%s faults, want about %s" % (f, want))
'
	ok $? "memscale --huge thp: about one fault per 2 MiB"
	diag "$T/why" "$T/err"
	# read, map_early: the huge zero page maps each 2 MiB (a fault, nothing allocated), and the
	# region is mapped before the release; work_loops runs its loop after each byte (counted
	# where the host has perf: at least 2 instructions an iteration).
	# Not every host kernel maps the huge zero page on a read: one seen here (6.18, use_zero_page
	# 1) allocates a huge page for each read fault of a MADV_HUGEPAGE region.  A probe of 16
	# reads says which this host does; memscale's reads must then do the same.
	read_allocs=$(python3 - <<'PY'
import mmap
def thp():
    for line in open("/proc/vmstat"):
        k, v = line.split()
        if k == "thp_fault_alloc":
            return int(v)
    return 0
m = mmap.mmap(-1, 40 << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
m.madvise(mmap.MADV_HUGEPAGE)
before = thp()
s = sum(m[off] for off in range(4 << 20, 36 << 20, 2 << 20))
print(1 if thp() - before >= 8 else 0)
PY
)
	[ "$read_allocs" = 1 ] && echo "# this host's kernel ($(uname -r)) allocates a huge page on a THP read fault (a probe of 16 reads): memscale's reads are checked to do the same"
	"$R/memscale" --huge thp --tasks 2 --memory-mib 16 --stride-kib 2048 --read --map-early \
		--work-loops 1000 --json >"$T/ms.json" 2>"$T/err"
	READ_ALLOCS=$read_allocs check "$T/ms.json" memscale '
if doc["params"].get("work_loops") != 1000:
    err("params.work_loops %r, want 1000" % doc["params"].get("work_loops"))
for r in res:
    f, want = r["metrics"]["page_faults"]["value"], r["tasks"] * 16 / 2
    if not (want * 0.9 <= f <= want * 1.1 + 2):
        err("%s faults, want about %s" % (f, want))
    # /proc/vmstat is the host'"'"'s, not the process'"'"'s: a guest booting beside the test once
    # added 1.  Reads that allocated would add one a fault (16 here).
    alloc = r["info"]["vmstat"].get("thp_fault_alloc", 0)
    if os.environ.get("READ_ALLOCS") != "1" and alloc >= f / 2:
        err("thp_fault_alloc %s for %s faults: a read allocated huge pages" % (alloc, f))
    if os.environ.get("READ_ALLOCS") == "1" and alloc < f * 0.9:
        err("thp_fault_alloc %s for %s faults: this host allocates on a read" % (alloc, f))
    ins = r["metrics"].get("perf_instructions", {}).get("value")
    if ins is not None and ins < 2 * 1000 * 8:
        err("%s instructions for 8 bytes of 1000 loops each" % ins)
'
	ok $? "memscale --read --map-early --work-loops: one fault per 2 MiB, a huge page allocated only where the host kernel allocates on a read"
	diag "$T/why" "$T/err"
else
	ok 1 "THP unavailable on this host (transparent_hugepage/enabled: '${thp:-missing}'): the N/512 assertion cannot run"
fi

# --- memscale ---------------------------------------------------------------------------
for mode in threads processes; do
	"$R/memscale" --mode $mode --huge nothp --tasks 1,2 --memory-mib 8 --json >"$T/ms.json" 2>"$T/err"
	st=$?
	check "$T/ms.json" memscale '
for r in res:
    t = r["info"]["touches"]
    if t != r["tasks"] * 8 * 256:
        err("touches %s" % t)
    if abs(r["metrics"]["page_faults"]["value"] - t) > 0.02 * t:
        err("tasks=%s: %s faults for %s 4 KiB touches" % (r["tasks"], r["metrics"]["page_faults"]["value"], t))
    for m in ("elapsed_s", "mib_per_s", "wall_max_s"):
        if m not in r["metrics"]:
            err("no %s" % m)
'"$LOCAL"
	ok $(( st | $? )) "memscale $mode: one fault per 4 KiB touched (2%), bound memory >= 95% local"
	diag "$T/why" "$T/err"
done

# --- page_fault1/2/3 --------------------------------------------------------------------
for i in 1 2 3; do
	"$R/page_fault$i" --tasks 1,2 --duration-s 1 --memory-mib 8 --dir "$T" --json \
		>"$T/pf.json" 2>"$T/err"
	st=$?
	extra='
for r in res:
    if r["metrics"]["ops_per_s"]["value"] <= 0 or r["info"]["ops"] <= 0:
        err("no operations: %r" % r["metrics"]["ops_per_s"])
    if r["metrics"]["ops_per_s"]["unit"] != "ops/s" or r["metrics"]["ops_per_s"]["better"] != "higher":
        err("ops_per_s unit/direction")
'
	# Anonymous and private-file faults are one per page; shared file mappings may map
	# several pages of a large folio per fault, so only 1 and 2 are held to 2%.
	[ $i != 3 ] && extra+='
for r in res:
    f = r["metrics"]["page_faults_per_op"]["value"]
    if abs(f - 1) > 0.02:
        err("tasks=%s: %s faults per page touched" % (r["tasks"], f))
'
	check "$T/pf.json" page_fault$i "$extra"
	ok $(( st | $? )) "page_fault$i: ops/s per task count$([ $i != 3 ] && echo ', one fault per page (2%)')"
	diag "$T/why" "$T/err"
	ls "$T" | grep -q numalab-page_fault && ok 1 "page_fault$i left files in --dir" || true
done
"$R/page_fault1" --mode processes --tasks 2 --duration-s 1 --memory-mib 4 --json >"$T/pf.json" 2>"$T/err"
check "$T/pf.json" page_fault1
ok $? "page_fault1 --mode processes"
diag "$T/why" "$T/err"

# A sized run (precision_bp, lab/proto/batchci.h) ends when its rate is known to the target and
# half the cap is measured, else at the cap; precision_bp 0 runs the cap and says nothing of
# sizing.  On a host the rate swings with its load (a cold check beside the builds saw +-11 %
# at 10 % targets), so these check that the reason agrees with the interval and the span; that
# a run does end early is checked under quantum, where it is a function of the seed
# (integration/quantum.sh).
"$R/page_fault1" --tasks 1,2 --duration-s 4 --precision-bp 1000 --memory-mib 1 --json \
	>"$T/pf.json" 2>"$T/err"
st=$?
check "$T/pf.json" page_fault1 '
for r in res:
    z = r["info"].get("sized", {})
    if not sized_agrees(z, 4, 10):
        err("tasks=%s: sizing disagrees with itself: %r" % (r["tasks"], z))
'
ok $(( st | $? )) "page_fault1 --precision-bp 1000: a run ends by its interval after half its 4 s, or at 4 s with a wider one"
diag "$T/why" "$T/err"
"$R/mmap_contention" --tasks 2 --mappers 1 --duration-s 2 --precision-bp 1000 --memory-mib 1 \
	--json >"$T/mmc.json" 2>"$T/err"
st=$?
check "$T/mmc.json" mmap_contention '
z = res[0]["info"].get("sized", {})
# Its rate swings with the mapper against a busy host (seen: +-11 % in a cold check beside the
# builds): either reason may come, but it must agree with the interval and the span.
if not sized_agrees(z, 2, 10):
    err("sizing disagrees with itself: %r" % z)
'
ok $(( st | $? )) "mmap_contention --precision-bp 1000: sized on its faulting threads' passes, its reason agreeing with its interval and span"
diag "$T/why" "$T/err"
"$R/page_fault3" --tasks 1 --duration-s 1 --precision-bp 0 --memory-mib 1 --dir "$T" --json \
	>"$T/pf.json" 2>"$T/err"
st=$?
check "$T/pf.json" page_fault3 '
if "sized" in res[0]["info"] or not 1 <= res[0]["info"]["wall_max_s"] < 1.5:
    err("precision_bp 0 is not a fixed 1 s run: %r, %r" % (res[0]["info"].get("sized"),
                                                         res[0]["info"]["wall_max_s"]))
'
ok $(( st | $? )) "page_fault3 --precision-bp 0: runs its duration_s, no sizing"
diag "$T/why" "$T/err"

# --- mmap_contention --------------------------------------------------------------------
"$R/mmap_contention" --tasks 1,2 --mappers 1 --duration-s 1 --memory-mib 4 --json >"$T/mmc.json" 2>"$T/err"
st=$?
check "$T/mmc.json" mmap_contention '
for r in res:
    m = r["metrics"]
    q = [m["fault_latency_%s_ns" % p]["value"] for p in ("p50", "p90", "p99", "max")]
    if q != sorted(q) or q[0] <= 0:
        err("percentiles not ordered: %r" % q)
    for p in ("p50", "p90", "p99", "max"):
        if m["fault_latency_%s_ns" % p]["unit"] != "ns" or m["fault_latency_%s_ns" % p]["better"] != "lower":
            err("latency unit/direction")
    if m["faults_per_s"]["value"] <= 0 or m.get("mapper_ops_per_s", {}).get("value", 0) <= 0:
        err("no faults or no mapper operations")
    if r["info"]["latency_samples"] <= 0:
        err("no latency samples")
'
ok $(( st | $? )) "mmap_contention: fault rate, p50 <= p90 <= p99 <= max in ns, mapper ops/s"
diag "$T/why" "$T/err"

# --- sweeps, repetitions, warm-up, tables ------------------------------------------------
ncpu=$(nproc)
"$R/pft" --tasks pow2 --repetitions 2 --warmup 1 --memory-mib 4 --json >"$T/pft.json" 2>"$T/err"
python3 - "$T/pft.json" "$ncpu" >"$T/why" 2>&1 <<'PY'
import json, sys
res = json.load(open(sys.argv[1]))["results"]
n, counts, p = int(sys.argv[2]), [], 1
while p <= n:
    counts.append(p); p *= 2
if counts[-1] != n:
    counts.append(n)
want = [(c, k) for c in counts for k in (0, 1)]
got = [(r["tasks"], r["repetition"]) for r in res]
if got != want:
    print("got %r want %r" % (got, want)); sys.exit(1)
PY
ok $? "pft --tasks pow2 --repetitions 2 --warmup 1: (tasks, repetition) per kept run, warm-up dropped"
diag "$T/why"

"$R/pft" --tasks per-cpu --memory-mib 4 --json >"$T/pft.json" 2>"$T/err"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; sys.exit([x["tasks"] for x in r] != [int(sys.argv[2])])' "$T/pft.json" "$ncpu"
ok $? "pft --tasks per-cpu runs one task per allowed CPU"

"$R/pft" --mode processes --object zero --shared --tasks 1,2 --memory-mib 4 --table >"$T/table" 2>&1
grep -q 'TOT_PF/' "$T/table" && grep -q 'PF/WSEC/' "$T/table" && grep -Eq '^fork:zero:shared +2 ' "$T/table"
ok $? "pft --table: the seed's header and TYPE rows (fork:zero:shared)"
diag "$T/table"
"$R/pft" --tasks 2 --memory-mib 4 --table=lameter >"$T/table" 2>&1
grep -Eq 'Gb +Thr +CLine +User +System +Wall +flt/cpu/s +fault/wsec' "$T/table"
ok $? "pft --table=lameter: Lameter's Gb Thr CLine User System Wall flt/cpu/s fault/wsec"
diag "$T/table"
for w in memscale page_fault1 mmap_contention; do
	"$R/$w" --tasks 1 --duration-s 1 --memory-mib 4 --table >"$T/table" 2>&1 ||
		"$R/$w" --tasks 1 --memory-mib 4 --table >"$T/table" 2>&1
	[ "$(wc -l <"$T/table")" -eq 2 ]
	ok $? "$w --table prints a header and one row"
	diag "$T/table"
done

# --- bad parameters: exit 2 and a message naming the option ------------------------------
bad() { # bad RUNNER OPTION-NAMED ARGS...
	local w=$1 want=$2
	shift 2
	"$R/$w" "$@" >/dev/null 2>"$T/err"
	local st=$?
	[ $st -eq 2 ] && grep -q -- "$want" "$T/err"
	ok $? "$w $* exits 2 naming $want (status $st: $(head -c 120 "$T/err"))"
}
bad pft --tasks --tasks 0
bad pft --object --object heap
bad pft --shared --shared --mode processes --object anon
bad pft --shm-lock --shm-lock --object zero
bad pft --cachelines --cachelines 65
bad pft --memory-mib --memory-split --memory-mib 1 --tasks 4096
bad pft --table --table=wide
bad pft --repetitions --repetitions 0
bad memscale --huge --huge always
bad memscale --memory-mib --huge hugetlb --memory-mib 3
bad memscale --stride-kib --stride-kib 0
bad page_fault1 --duration-s --duration-s 0
bad page_fault2 --mode --mode fibers
bad page_fault3 --warmup --warmup 11
bad mmap_contention --mappers --mappers 2000
bad mmap_contention --mode --mode processes
bad mmap_contention --bogus --bogus
for w in pft memscale page_fault1 page_fault2 page_fault3 mmap_contention; do
	"$R/$w" --help >"$T/help" 2>&1 && grep -q -- '--tasks' "$T/help" && grep -q -- '--membind' "$T/help"
	ok $? "$w --help exits 0 and documents --tasks and --membind"
done

# --- options from the registry: runner and lab agree ------------------------------------
# The runners take their options from the registry (lab/proto/workload.c) and check them as
# the lab checks a job (test_workload.c compares the two checks in C; this runs the real
# binaries), data-driven from the runners' own --help, which the registry writes: every
# parameter at its bounds, defaults and choices is accepted (--dry-run echoes it), one past a
# bound or an unknown choice exits 2 naming the option.  Then every workload params object
# the lab filled in for lab/tests/data/job-ok/ goes through the agent's argv (agent
# --check-job) into the runner, whose params echo must be the lab's object exactly.  Last, the
# primary metrics each --help names are in the runner's output, with the same direction.
WORKLOADS="pft memscale page_fault1 page_fault2 page_fault3 mmap_contention"
# Options a flag needs besides itself to pass the registry's rules across parameters.
declare -A CONTEXT=([pft:shm-lock]="--object shm")

# has FILE KEY WANT: the one-line, compact, sorted JSON object in FILE has "KEY":WANT.
has() {
	grep -qF "\"$2\":$3," "$1" || grep -qF "\"$2\":$3}" "$1"
}
# echoed RUNNER KEY WANT ARGS...: runner --dry-run ARGS exits 0 and echoes KEY as WANT
# (compact JSON).
echoed() {
	local w=$1 key=$2 want=$3
	shift 3
	"$R/$w" --dry-run "$@" >"$T/out" 2>"$T/err"
	local st=$?
	[ $st -eq 0 ] && has "$T/out" "$key" "$want"
	ok $? "$w $* accepted, params.$key = $want (status $st: $(head -c 120 "$T/err"))"
}
# refused RUNNER OPTION ARGS...: exit 2 and a message naming OPTION.
refused() {
	local w=$1 want=$2
	shift 2
	"$R/$w" --dry-run "$@" >/dev/null 2>"$T/err"
	local st=$?
	[ $st -eq 2 ] && grep -q -- "^$w: $want: " "$T/err"
	ok $? "$w $* refused naming $want (status $st: $(head -c 120 "$T/err"))"
}

for w in $WORKLOADS; do
	"$R/$w" --help >"$T/help" 2>&1
	ok $? "$w --help exits 0"
	# "  --NAME ARG" lines of the parameters (runner-local options have no range or choices).
	python3 - "$T/help" >"$T/params" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"  --([a-z0-9-]+)(?: (.*))?$", line.rstrip("\n"))
    if not m or m.group(1) in ("json", "dry-run", "table", "help"):
        continue
    arg = m.group(2) or ""
    r = re.match(r"(-?\d+)\.\.(\d+) \(default (-?\d+)\)$", arg)
    c = re.match(r"([a-z0-9|-]+) \(default ([a-z0-9-]+)\)$", arg)
    if arg == "":
        print("flag", m.group(1))
    elif r:
        print("int", m.group(1), *r.groups())
    elif arg.startswith("N[,N...]"):
        print("tasks", m.group(1))
    elif c:
        print("enum", m.group(1), c.group(1).replace("|", ","), c.group(2))
PY
	grep -q '^tasks tasks$' "$T/params" && grep -q '^enum membind ' "$T/params"
	ok $? "$w --help lists its parameters with ranges and choices"
	"$R/$w" --dry-run >"$T/defaults" 2>"$T/err"
	ok $? "$w --dry-run with no options prints the defaults"
	while read -r kind opt a b c; do
		key=${opt//-/_}
		case $kind in
		int)
			has "$T/defaults" "$key" "$c"
			ok $? "$w: --$opt defaults to $c as --help says"
			echoed "$w" "$key" "$a" "--$opt" "$a"
			echoed "$w" "$key" "$b" "--$opt" "$b"
			refused "$w" "--$opt" "--$opt" $((a - 1))
			refused "$w" "--$opt" "--$opt" $((b + 1))
			refused "$w" "--$opt" "--$opt" 1x
			;;
		enum)
			has "$T/defaults" "$key" "\"$b\""
			ok $? "$w: --$opt defaults to $b as --help says"
			for v in ${a//,/ }; do
				echoed "$w" "$key" "\"$v\"" "--$opt" "$v"
			done
			refused "$w" "--$opt" "--$opt" bogus
			;;
		flag)
			# shellcheck disable=SC2086
			echoed "$w" "$key" true "--$opt" ${CONTEXT[$w:$opt]:-}
			;;
		tasks)
			echoed "$w" tasks '[1,2]' --tasks 1,2
			echoed "$w" tasks "[$(nproc)]" --tasks per-cpu
			refused "$w" --tasks --tasks 0
			refused "$w" --tasks --tasks 1,,2
			refused "$w" --tasks --tasks 4097
			;;
		esac
	done <"$T/params"
done

# The lab's filled-in params of every job-ok case -> the agent's argv -> the runner's echo.
python3 - "$T" lab/tests/data/job-ok/*.expected <<'PY'
import json, sys
out, cases = sys.argv[1], []
for f in sys.argv[2:]:
    for w in json.load(open(f)).get("workloads", []):
        cases.append({"name": w["name"], "params": w["params"]})
json.dump({"schema": "numalab.guestjob/1", "run_id": "t", "workloads": cases},
          open(out + "/job.json", "w"))
json.dump(cases, open(out + "/cases.json", "w"))
PY
"$R/agent" --check-job "$T/job.json" >"$T/argv" 2>"$T/err"
ok $? "agent --check-job accepts the lab's params of every job-ok case ($(head -c 100 "$T/err"))"
python3 - "$T/cases.json" "$T/argv" "$R" >"$T/why" 2>&1 <<'PY'
import json, subprocess, sys
cases = json.load(open(sys.argv[1]))
argvs = [json.loads(l)["argv"] for l in open(sys.argv[2])]
bad = 0 if len(cases) == len(argvs) else print("%d cases, %d argv" % (len(cases), len(argvs))) or 1
for case, argv in zip(cases, argvs):
    args = [a for a in argv[1:] if a != "--json"]
    p = subprocess.run([sys.argv[3] + "/" + case["name"], "--dry-run"] + args,
                       capture_output=True, text=True)
    if p.returncode != 0 or json.loads(p.stdout) != case["params"]:
        bad += 1
        print("%s %s: status %d %s\n  got  %s\n  want %s" % (case["name"], " ".join(args),
              p.returncode, p.stderr.strip(), p.stdout.strip(), json.dumps(case["params"])))
print("%d cases" % len(cases))
sys.exit(1 if bad or not cases else 0)
PY
ok $? "the runners echo the lab's filled-in params of every job-ok workload exactly ($(tail -1 "$T/why"))"
diag "$T/why"

# Primary metrics named in --help are in the runner's results, with the same direction.
for w in $WORKLOADS; do
	extra=""
	grep -q -- '--duration-s' <("$R/$w" --help) && extra="--duration-s 1"
	# shellcheck disable=SC2086
	"$R/$w" --tasks 1 --memory-mib 4 $extra --json >"$T/out.json" 2>"$T/err"
	st=$?
	"$R/$w" --help | python3 -c '
import json, re, sys
line = [l for l in sys.stdin if l.startswith("Primary metrics")][0]
want = re.findall(r"([a-z0-9_]+) \((higher|lower) is better\)", line)
doc = json.load(open(sys.argv[1]))
got = [(k, m["better"]) for r in doc["results"] for k, m in r["metrics"].items()]
missing = [w for w in want if w not in got]
print("want %s; missing %s" % (want, missing))
sys.exit(1 if missing or not want else 0)' "$T/out.json" >"$T/why" 2>&1
	ok $(( st | $? )) "$w: primary metrics of --help in its results ($(head -c 150 "$T/why"))"
done


# --- knobs, applied by the agent (runners/rt_knobs.c) on a fake /sys and /proc tree --------
K=$T/root
THP=$K/sys/kernel/mm/transparent_hugepage
mkdir -p "$THP/hugepages-64kB" "$THP/hugepages-2048kB" "$K/proc/sys/kernel" "$K/proc/sys/vm"
for nd in 0 1; do
	mkdir -p "$K/sys/devices/system/node/node$nd/hugepages/hugepages-2048kB"
	echo 0 >"$K/sys/devices/system/node/node$nd/hugepages/hugepages-2048kB/nr_hugepages"
done
echo 'always [madvise] never' >"$THP/enabled"
echo 'always defer defer+madvise [madvise] never' >"$THP/defrag"
echo 'always inherit [never] madvise' >"$THP/hugepages-64kB/enabled"
echo 'always [inherit] never madvise' >"$THP/hugepages-2048kB/enabled"
echo 1 >"$K/proc/sys/kernel/numa_balancing"
knobjob() { # knobjob KNOBS-JSON
	printf '{"schema": "numalab.guestjob/1", "run_id": "k", "workloads": [], "knobs": %s}\n' "$1" >"$T/kjob.json"
}
knobjob '{"thp_enabled": "always", "mthp_enabled": {"64kB": "always"}, "nr_hugepages": [4, 2],
          "numa_balancing": 0, "required": ["thp_enabled", "nr_hugepages"]}'
"$R/agent" --knobs "$K" "$T/kjob.json" >"$T/knobs" 2>"$T/err"
st=$?
python3 - "$T/knobs" >"$T/why" 2>&1 <<'PY'
import json, sys
l = json.loads(open(sys.argv[1]).read())
k = {e["name"]: e for e in l["knobs"]}
want = {"thp_enabled": ("madvise", "always", "ok", True),
        "thp_defrag": ("madvise", "madvise", "not-requested", False),
        "thp_shmem_enabled": (None, None, "unavailable", False),
        "mthp_enabled.64kB": ("never", "always", "ok", False),
        "mthp_enabled.2048kB": ("inherit", "inherit", "not-requested", False),
        "nr_hugepages.node0": (0, 4, "ok", True), "nr_hugepages.node1": (0, 2, "ok", True),
        "numa_balancing": (1, 0, "ok", False)}
errs = [] if l["t"] == "knobs" and l["ok"] is True else ["line: %r" % l]
for name, (before, after, status, req) in want.items():
    e = k.get(name)
    if not e or (e["before"], e["after"], e["status"], e["required"]) != (before, after, status, req):
        errs.append("%s: %r" % (name, e))
print("\n".join(errs)); sys.exit(1 if errs else 0)
PY
ok $(( st | $? )) "agent --knobs: knobs written, every knob read before and after, statuses"
diag "$T/why" "$T/err"
grep -q '^always$' "$THP/enabled"
ok $? "agent --knobs wrote thp_enabled under the fake root"

knobjob '{"mthp_enabled": {"32kB": "always"}, "required": ["mthp_enabled"]}'
"$R/agent" --knobs "$K" "$T/kjob.json" >"$T/knobs" 2>"$T/err"
st=$?
[ $st -eq 1 ] && grep -q 'required knob mthp_enabled.32kB.*unavailable' "$T/err" &&
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); sys.exit(not (l["ok"] is False and "32kB" in l["error"]))' "$T/knobs"
ok $? "a required knob the kernel lacks fails the knobs (status $st: $(head -c 150 "$T/err"))"
knobjob '{"mthp_enabled": {"32kB": "always"}}'
"$R/agent" --knobs "$K" "$T/kjob.json" >"$T/knobs" 2>"$T/err"
st=$?
[ $st -eq 0 ] && python3 -c 'import json,sys; l=json.load(open(sys.argv[1])); k={e["name"]: e for e in l["knobs"]}; sys.exit(not (l["ok"] and k["mthp_enabled.32kB"]["status"] == "unavailable"))' "$T/knobs"
ok $? "a knob the kernel lacks that is not required is recorded as unavailable, nothing fails"
knobjob '{"thp_enabled": "always; reboot"}'
"$R/agent" --knobs "$K" "$T/kjob.json" >/dev/null 2>"$T/err"
ok $([ $? -eq 2 ]; echo $?) "agent --knobs refuses a value that is not a plain word ($(head -c 80 "$T/err"))"
"$R/agent" --knobs / "$T/kjob.json" >/dev/null 2>&1
ok $([ $? -eq 2 ]; echo $?) "agent --knobs never writes under /"
knobjob '{"thp_enabled": "never"}'
"$R/agent" --check-job "$T/kjob.json" >/dev/null 2>"$T/err"
ok $? "agent --check-job accepts a job with knobs"
knobjob '{"thp": "never"}'
"$R/agent" --check-job "$T/kjob.json" >/dev/null 2>"$T/err"
ok $([ $? -eq 2 ]; echo $?) "agent --check-job rejects an unknown knob ($(head -c 80 "$T/err"))"

finish
