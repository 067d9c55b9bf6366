#!/usr/bin/env bash
# Integration: a pool of two libvirt hosts on one machine (`lab run --hosts`, `lab hosts`): the
# lab's embedded driver, and a second libvirt daemon reached through a remote URI on loopback
# only (qemu+tcp://127.0.0.1:PORT/session; a session libvirtd of user nobody, nothing shared
# with a system libvirtd: libvirtd2_start in lab/tests/lib.sh).  Guests: 2 vCPUs on 2 nodes,
# the Debian kernel, a small pft, multi-threaded TCG.
#  1. `lab hosts` lists both up, with class and capacity; --json with keys sorted.
#  2. a job of 4 repetitions spreads over both hosts: one report, 4 runs ok, both host names
#     in it, class c2 on each; the kernel reached the second daemon as a volume of the pool
#     "numalab" named by its sha256 (uploaded at most once, a cache hit after: step 5), each run's
#     initramfs as its own volume, deleted after the run; console and results came back
#     through libvirt's streams (the remote runs have their console.log and results).
#  3. the second daemon stopped (SIGTERM) while its guest runs: that attempt is infra-error,
#     end host-lost, kept in the run's "attempts"; the run is retried on the other host and the
#     job completes with 4 runs ok; no QEMU is left of either host (a daemon going down
#     destroys the guests of the lab's connection, or the guest powers off once its job ends).
#  4. a pool of the second host alone, its daemon stopped mid-job, --host-wait 5: a run that
#     gets no host is recorded infra-error "not run: no host up ..."; lab exits 3, promptly.
#  5. classes: with the second host of class "other", an A/B job (two knob sets) runs wholly
#     on the first host's class; --host-class other runs it wholly there; `lab compare` of the
#     two reports together refuses to pool the classes (exit 2, naming them).
#  6. a bad pool file exits 2 naming the JSON path, and writes no report.
#  8. a disk-image job (debian-perf, built by integration-image) that panics, on the second
#     host: the image uploaded by hash, the run's overlay made there over it, copied back after
#     the panic for the libguestfs post-mortem, which finds the agent's log.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
T=$tmp
ld=$tmp/ld2
port=$(free_port)
uri="qemu+tcp://127.0.0.1:$port/session"
# The daemon's directories are nobody's; the scratch directory must let nobody in.
chmod 755 "$tmp"
start_daemon() { libvirtd2_start "$ld" "$port"; }
stop_daemon() { libvirtd2_stop "$ld"; }
# QEMUs of the second daemon (user nobody).
remote_qemus() { pgrep -u nobody -fc "guest=numalab-" || true; }
trap 'libvirtd2_cleanup "$ld"; rm -rf "$tmp"' EXIT
t_start=$(date +%s)

check "the second libvirt daemon (session, user nobody) answers on 127.0.0.1:$port" start_daemon
pool() { # FILE CLASS_OF_SECOND [ONLY_SECOND]
	jq -n --arg uri "$uri" --arg c "$2" --arg dir "$ld/pool" --arg only "${3:-}" \
		'{hosts: ((if $only == "" then [{name: "here", uri: "", class: "c2"}] else [] end)
			  + [{name: "lo2", uri: $uri, class: $c, pool_dir: $dir}])}' >"$1"
}
pool "$tmp/hosts.json" c2
# Two vCPUs on two nodes: what is tested here is where runs go, not how a guest scales, and a
# smaller guest boots in 7 s instead of 10.
topo='{"name": "2s-2c", "sockets": 2, "dies": 1, "cores": 1, "threads": 1,
       "nodes": [{"id": 0, "cpus": "0", "memory_mib": 384}, {"id": 1, "cpus": "1", "memory_mib": 384}],
       "distances": [[10, 20], [20, 10]]}'
jq -n --argjson t "$topo" '{name: "pool4", topology: $t, kernel: {image: "/boot/vmlinuz-*"}, repeats: 4,
	workloads: [{name: "pft", params: {mode: "threads", memory_mib: 16, tasks: "per-cpu"}}]}' \
	>"$tmp/job.json"

# 1. lab hosts.
expect 0 "lab hosts: both up" $lab hosts --hosts "$tmp/hosts.json"
has "$T/out" "lo2" "... names the second host"
has "$T/out" "$uri" "... with its URI"
expect 0 "lab hosts --json" $lab hosts --hosts "$tmp/hosts.json" --json
pyjson '[h["state"] for h in d["hosts"]] == ["up", "up"] and d["hosts"][1]["class"] == "c2" and d["hosts"][1]["cpus"] >= 1 and d["hosts"][1]["memory_mib"] > 0' \
	"... states up, class, CPUs and memory (keys sorted)"

# 2. Four repetitions over both hosts.
expect 0 "a job of 4 repetitions on the pool" $lab run "$tmp/job.json" --hosts "$tmp/hosts.json" \
	--quiet-wait 0 --out "$tmp/r2"
explain_runs "$tmp/r2"
check "one report, 4 runs ok" jq -e '[.runs[] | select(.status == "ok")] | length == 4' "$tmp/r2/report.json"
check "the runs spread over both hosts" jq -e '[.runs[].host.name] | unique == ["here", "lo2"]' "$tmp/r2/report.json"
check "every run names its class, c2" jq -e 'all(.runs[]; .host.class == "c2")' "$tmp/r2/report.json"
check "the kernel reached lo2 as a volume named by its sha256, uploaded at most once" \
	jq -e '[.runs[] | select(.host.name == "lo2") | .host.artifacts.kernel] | (length >= 1) and ([.[] | select(.cached | not)] | length <= 1) and all(.volume | test("^[0-9a-f]{64}-bzImage$"))' "$tmp/r2/report.json"
check "each remote run uploaded its own initramfs" \
	jq -e '[.runs[] | select(.host.name == "lo2") | .host.artifacts.initrd] | all(.cached == false and .bytes > 0)' "$tmp/r2/report.json"
vols=$(virsh -c "$uri" vol-list numalab 2>/dev/null)
echo "$vols" | grep -q -- '-bzImage ' ; ok $? "the kernel stays in the pool \"numalab\" (with its .ok marker)"
! echo "$vols" | grep -q 'initrd' ; ok $? "the runs' initramfs volumes were deleted"
r=$(jq -r '[.runs[] | select(.host.name == "lo2") | .index][0]' "$tmp/r2/report.json")
has "$tmp/r2/run-$r/console.log" "Linux version" "a remote run's console came back through libvirt"
check "... and its results" jq -e ".runs[$r].workloads[0].results | length > 0" "$tmp/r2/report.json"
# 3. The second daemon stopped mid-job.
$lab run "$tmp/job.json" --hosts "$tmp/hosts.json" --quiet-wait 0 --out "$tmp/r3" \
	>"$tmp/r3.out" 2>"$tmp/r3.err" &
pid=$!
for _ in $(seq 1 300); do
	[ "$(remote_qemus)" -gt 0 ] && grep -q "booting.*on lo2" "$tmp/r3.err" && break
	sleep 0.2
done
sleep 2
stop_daemon
wait $pid
rc=$?
ok "$(rc_is $rc 0)" "daemon stopped mid-job: the job completes (exit 0, got $rc)"
explain_runs "$tmp/r3"
check "... 4 runs ok" jq -e '[.runs[] | select(.status == "ok")] | length == 4' "$tmp/r3/report.json"
check "... the lost attempt is kept: infra-error on lo2, host lost" \
	jq -e '[.runs[].attempts // [] | .[]] | length == 1 and .[0].host == "lo2" and .[0].status == "infra-error" and (.[0].reason | test("connection to the guest.s host was lost"))' "$tmp/r3/report.json"
check "... and the run was retried on here" \
	jq -e '[.runs[] | select(.attempts) | .host.name] == ["here"]' "$tmp/r3/report.json"
has "$tmp/r3.err" "host lo2 lost" "... the progress says the host was lost"
# A daemon going down destroys the guests tied to the lab's connection, or, when it closed the
# connection first, leaves the guest to finish its job and power off by itself.  That takes
# as long as a run of this job does on this host, so the bound is measured, not fixed: three
# times the longest run of the same job above (r2), plus a minute.  A fixed 60 s failed once
# on a host running a fresh suite and two contention-model guests beside it (load 4 on 2
# cores): the orphan was still finishing its job.
bound=$(jq '[.runs[].timings.total_s // 0] | max * 3 + 60 | floor' "$tmp/r2/report.json" 2>/dev/null)
[[ $bound =~ ^[0-9]+$ ]] || bound=180
t0=$(date +%s)
while [ "$(remote_qemus)" != 0 ] && [ $(( $(date +%s) - t0 )) -lt "$bound" ]; do sleep 0.5; done
ok "$(rc_is "$(remote_qemus)" 0)" "no QEMU left on the stopped host (within $bound s: 3x the job's longest run + 60 s; $(( $(date +%s) - t0 )) s)"
check "no QEMU left of this state directory" no_qemu

# 4. Only the second host, stopped mid-job: the runs that get no host say so.
check "the second daemon starts again" start_daemon
pool "$tmp/only.json" c2 only
$lab run "$tmp/job.json" --hosts "$tmp/only.json" --host-wait 5 --quiet-wait 0 --out "$tmp/r4" \
	>"$tmp/r4.out" 2>"$tmp/r4.err" &
pid=$!
for _ in $(seq 1 300); do
	[ "$(remote_qemus)" -gt 0 ] && break
	sleep 0.2
done
sleep 2
stop_daemon
t0=$(date +%s)
wait $pid
rc=$? el=$(( $(date +%s) - t0 ))
ok "$(rc_is $rc 3)" "the only host gone: lab exits 3 (got $rc) after $el s"
expect 3 "lab hosts with the second daemon down: exit 3" $lab hosts --hosts "$tmp/hosts.json"
has "$T/out" "down" "... lo2 listed as down, with why"
check "... within 60 s of the host going" test "$el" -le 60
check "... runs without a host: infra-error, not run, the host named" \
	jq -e '[.runs[] | select(.reason | test("^not run: no host up for [0-9]+ s: lo2"))] | length >= 1' "$tmp/r4/report.json"
check "... the run that was on it: lost, retried, not run" \
	jq -e '.runs[0].attempts[0].host == "lo2" and .runs[0].status == "infra-error"' "$tmp/r4/report.json"

# 5. Classes.
check "the second daemon starts again" start_daemon
pool "$tmp/classes.json" other
jq -n --argjson t "$topo" '{name: "pool-ab", topology: $t, repeats: 1,
	kernels: [{name: "thp-never", image: "/boot/vmlinuz-*", knobs: {thp_enabled: "never"}},
		  {name: "thp-always", image: "/boot/vmlinuz-*", knobs: {thp_enabled: "always"}}],
	workloads: [{name: "pft", params: {mode: "threads", memory_mib: 16, tasks: "per-cpu"}}]}' \
	>"$tmp/ab.json"
expect 0 "an A/B job on a pool of two classes" $lab run "$tmp/ab.json" --hosts "$tmp/classes.json" \
	--timing tcg --quiet-wait 0 --out "$tmp/r5/c2"
check "... every run on class c2 (the first host's), none on \"other\"" \
	jq -e '[.runs[].host.class] | length == 2 and all(. == "c2")' "$tmp/r5/c2/report.json"
has "$T/err" "host lo2 not used: class other, the job runs on c2" "... and it says why lo2 was not used"
expect 0 "the A/B job with --host-class other" $lab run "$tmp/ab.json" --hosts "$tmp/classes.json" \
	--host-class other --timing tcg --quiet-wait 0 --out "$tmp/r5/other"
check "... every run on lo2, class other" \
	jq -e '[.runs[] | [.host.name, .host.class]] | length == 2 and all(. == ["lo2", "other"])' "$tmp/r5/other/report.json"
check "... the kernel a cache hit there (uploaded by the first job)" \
	jq -e '[.runs[].host.artifacts.kernel.cached] | length == 2 and all' "$tmp/r5/other/report.json"
expect 2 "lab compare of both reports refuses to pool two classes" $lab compare "$tmp/r5"
has "$T/err" "mixes runs on hosts of different classes" "... naming the mix"
$lab compare "$tmp/r5/c2" --json >"$T/out" 2>"$T/err"
rc=$?
ok "$([ $rc != 2 ] && echo 0 || echo 1)" "lab compare of one class's report compares (exit $rc: 3 is one boot a side)"
pyjson 'd["comparisons"][0]["host_class"] == "c2"' "... with the class in the comparison"

# 6. Bad pool files.
echo '{"hosts": [{"name": "here", "uri": "", "class": "c2", "cpus": 4}]}' >"$tmp/bad.json"
expect 2 "a pool file with an unknown key" $lab run "$tmp/job.json" --hosts "$tmp/bad.json" --out "$tmp/r6"
has "$T/err" "hosts[0].cpus: unknown key" "... names the JSON path"
check "... and writes no report" test ! -e "$tmp/r6"
expect 2 "lab hosts with it" $lab hosts --hosts "$tmp/bad.json"

# 7. labd with the pool: its jobs run there.
labd=${B:-build}/labd
sock=$tmp/labd.sock
"$labd" --state "$tmp/labd-bad" --socket "$sock" --hosts "$tmp/bad.json" 2>"$tmp/labd-bad.err"
ok "$(rc_is $? 2)" "labd with a bad pool file exits 2"
has "$tmp/labd-bad.err" "hosts[0].cpus: unknown key" "... naming the JSON path"
"$labd" --state "$tmp/labd" --socket "$sock" --hosts "$tmp/only.json" 2>"$tmp/labd.log" &
labd_pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
jq '.repeats = 1 | .name = "via-labd"' "$tmp/job.json" >"$tmp/job-labd.json"
expect 0 "a job submitted to labd --hosts (only lo2) runs to the end" \
	$lab submit "$tmp/job-labd.json" --socket "$sock" --wait
rep=$(find "$tmp/labd" -name report.json | head -1)
check "... its run ran on lo2, class c2" jq -e '.runs[0].host.name == "lo2" and .runs[0].host.class == "c2" and .runs[0].status == "ok"' "$rep"
kill -TERM $labd_pid; wait $labd_pid 2>/dev/null

# 8. A disk-booted run on the remote host, post-mortem included.
if ls "${LAB_IMAGE_CACHE:-/var/cache/numalab/images}"/debian-perf-*/disk.qcow2 >/dev/null 2>&1; then
	jq --argjson t "$topo" '.topology = $t' lab/tests/data/jobs/image-panic.json >"$tmp/img.json"
	expect 3 "a disk-image job that panics, on lo2 only" $lab run "$tmp/img.json" \
		--hosts "$tmp/only.json" --quiet-wait 0 --out "$tmp/r8"
	check "... panic, on lo2, the image uploaded to its pool by hash" \
		jq -e '.runs[0].status == "panic" and .runs[0].host.name == "lo2" and (.runs[0].host.artifacts.image.volume | test("^[0-9a-f]{64}-disk.qcow2$"))' "$tmp/r8/report.json"
	check "... the overlay came back for the post-mortem: the agent's log recovered" \
		jq -e '.runs[0].postmortem.ok and ([.runs[0].postmortem.files[].path] | index("/numalab/out/agent.log"))' "$tmp/r8/report.json"
	! virsh -c "$uri" vol-list numalab 2>/dev/null | grep -q overlay
	ok $? "... and the run's overlay volume was deleted there"
else
	ok 1 "the debian-perf image is built (integration-image builds it before this test)"
fi

reports=$(find "$tmp" -name report.json)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "every report of this test validates against reports/report.schema.json"
grep -v '^ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'

echo "# integration-pool: $(( $(date +%s) - t_start )) s"
finish
