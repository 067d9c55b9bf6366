#!/usr/bin/env bash
# Integration: `lab run --connect URI` and `lab hosts --connect URI` with one remote libvirt
# host: a second libvirt daemon on this machine reached through a remote URI on loopback only
# (qemu+tcp://127.0.0.1:PORT/session; a session libvirtd of user nobody, nothing shared with a
# system libvirtd: libvirtd2_start in lab/tests/lib.sh).  Guests: 2 vCPUs on 2 nodes, the
# Debian kernel, a small pft, multi-threaded TCG.  Many hosts are Slurm's (labd --backend
# slurm, lab/tests/wip/slurm.sh); the lab itself never waits for a host or moves a run.
#  1. `lab hosts --connect URI`: up, with capacity; --json with keys sorted.
#  2. a job of 3 repetitions on the remote host (--pool-dir): one report, 3 runs ok there; the
#     kernel reached it as a volume of the pool "numalab" named by its sha256 (uploaded once,
#     cache hits after), each run's initramfs as its own volume, deleted after the run;
#     console and results came back through libvirt's streams.
#  3. the daemon stopped (SIGTERM) while a guest runs: that run is infra-error, end host-lost;
#     the runs after it are recorded at once as not run, naming the host; lab exits 3
#     promptly; `lab hosts --connect` exits 3 (down); no QEMU is left.
#  4. the daemon back: `lab run --resume` runs what was lost, the kernel a cache hit from
#     the first job, and the job ends with 3 runs ok.
#  5. a URI nothing answers: lab run fails at once naming it; lab hosts exits 3.
#  6. classes, labels only (--host-class): an A/B job recorded as class c2 and again as
#     "other" on the embedded driver; `lab compare` of the two reports together refuses to
#     pool the classes (exit 2, naming them); one class's report compares.
#  7. a disk-image job (debian-perf, built by integration-image) that panics, on the remote
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
remote=(--connect "$uri" --pool-dir "$ld/pool")

check "the second libvirt daemon (session, user nobody) answers on 127.0.0.1:$port" start_daemon
# Two vCPUs on two nodes: what is tested here is the transport, not how a guest scales, and a
# smaller guest boots in 7 s instead of 10.
topo='{"name": "2s-2c", "sockets": 2, "dies": 1, "cores": 1, "threads": 1,
       "nodes": [{"id": 0, "cpus": "0", "memory_mib": 384}, {"id": 1, "cpus": "1", "memory_mib": 384}],
       "distances": [[10, 20], [20, 10]]}'
jq -n --argjson t "$topo" '{name: "remote3", topology: $t, kernel: {image: "/boot/vmlinuz-*"}, repeats: 3,
	workloads: [{name: "pft", params: {mode: "threads", memory_mib: 16, tasks: "per-cpu"}}]}' \
	>"$tmp/job.json"

# 1. lab hosts.
expect 0 "lab hosts --connect URI: up" $lab hosts --connect "$uri"
has "$T/out" "$uri" "... names the URI"
expect 0 "lab hosts --connect URI --json" $lab hosts --connect "$uri" --json
pyjson '[h["state"] for h in d["hosts"]] == ["up"] and d["hosts"][0]["remote"] and d["hosts"][0]["cpus"] >= 1 and d["hosts"][0]["memory_mib"] > 0' \
	"... state up, remote, CPUs and memory (keys sorted)"

# 2. Three repetitions on the remote host.
expect 0 "a job of 3 repetitions on the remote host" $lab run "$tmp/job.json" "${remote[@]}" \
	--quiet-wait 0 --out "$tmp/r2"
explain_runs "$tmp/r2"
check "one report, 3 runs ok, all on the URI" \
	jq -e --arg u "$uri" '[.runs[] | select(.status == "ok" and .host.uri == $u)] | length == 3' "$tmp/r2/report.json"
check "the kernel reached it as a volume named by its sha256, uploaded once, then cache hits" \
	jq -e '[.runs[].host.artifacts.kernel] | length == 3 and ([.[] | select(.cached | not)] | length == 1) and all(.volume | test("^[0-9a-f]{64}-bzImage$"))' "$tmp/r2/report.json"
check "each run uploaded its own initramfs" \
	jq -e '[.runs[].host.artifacts.initrd] | all(.cached == false and .bytes > 0)' "$tmp/r2/report.json"
vols=$(virsh -c "$uri" vol-list numalab 2>/dev/null)
echo "$vols" | grep -q -- '-bzImage ' ; ok $? "the kernel stays in the pool \"numalab\" (with its .ok marker)"
! echo "$vols" | grep -q 'initrd' ; ok $? "the runs' initramfs volumes were deleted"
virsh -c "$uri" pool-dumpxml numalab 2>/dev/null | grep -qF "<path>$ld/pool</path>"
ok $? "the pool is at --pool-dir"
has "$tmp/r2/run-0/console.log" "Linux version" "a remote run's console came back through libvirt"
check "... and its results" jq -e ".runs[0].workloads[0].results | length > 0" "$tmp/r2/report.json"

# 3. The daemon stopped mid-job.
$lab run "$tmp/job.json" "${remote[@]}" --quiet-wait 0 --out "$tmp/r3" \
	>"$tmp/r3.out" 2>"$tmp/r3.err" &
pid=$!
for _ in $(seq 1 300); do
	[ "$(remote_qemus)" -gt 0 ] && grep -q "booting.*on $uri" "$tmp/r3.err" && break
	sleep 0.2
done
sleep 2
stop_daemon
t0=$(date +%s)
wait $pid
rc=$? el=$(( $(date +%s) - t0 ))
ok "$(rc_is $rc 3)" "daemon stopped mid-job: lab exits 3 (got $rc) after $el s"
check "... within 60 s of the host going" test "$el" -le 60
explain_runs "$tmp/r3"
check "... the run under way: infra-error, end host-lost" \
	jq -e '.runs[0].status == "infra-error" and .runs[0].end == "host-lost" and (.runs[0].reason | test("connection to the guest.s host was lost"))' "$tmp/r3/report.json"
check "... the runs after it: recorded at once as not run, naming the host" \
	jq -e --arg u "$uri" '[.runs[1:][] | select(.status == "infra-error" and .end == "host-lost" and (.reason | startswith("not run: the host " + $u + " was lost")))] | length == 2' "$tmp/r3/report.json"
check "... nothing tried elsewhere: no attempts" jq -e '[.runs[] | select(.attempts)] | length == 0' "$tmp/r3/report.json"
has "$tmp/r3.err" "host $uri lost" "... the progress says the host was lost"
expect 3 "lab hosts --connect with the daemon down: exit 3" $lab hosts --connect "$uri"
has "$T/out" "down" "... down, with why"
# A daemon going down destroys the guests tied to the lab's connection, or, when it closed the
# connection first, leaves the guest to finish its job and power off by itself.  That takes
# as long as a run of this job does on this host, so the bound is measured, not fixed: three
# times the longest run of the same job above (r2), plus a minute.
bound=$(jq '[.runs[].timings.total_s // 0] | max * 3 + 60 | floor' "$tmp/r2/report.json" 2>/dev/null)
[[ $bound =~ ^[0-9]+$ ]] || bound=180
t0=$(date +%s)
while [ "$(remote_qemus)" != 0 ] && [ $(( $(date +%s) - t0 )) -lt "$bound" ]; do sleep 0.5; done
ok "$(rc_is "$(remote_qemus)" 0)" "no QEMU left on the stopped host (within $bound s: 3x the job's longest run + 60 s; $(( $(date +%s) - t0 )) s)"
check "no QEMU left of this state directory" no_qemu

# 4. The daemon back: --resume completes the job.
check "the second daemon starts again" start_daemon
expect 0 "lab run --resume after the host is back completes the job" $lab run "$tmp/job.json" \
	"${remote[@]}" --quiet-wait 0 --out "$tmp/r3" --resume
explain_runs "$tmp/r3"
check "... 3 runs ok" jq -e '[.runs[] | select(.status == "ok")] | length == 3' "$tmp/r3/report.json"
check "... the kernel a cache hit (uploaded by the first job)" \
	jq -e '[.runs[].host.artifacts.kernel.cached] | length == 3 and all' "$tmp/r3/report.json"

# 5. A URI nothing answers.
dead="qemu+tcp://127.0.0.1:$(free_port)/session"
t0=$(date +%s)
expect 4 "lab run --connect to a URI nothing answers: a lab error" $lab run "$tmp/job.json" \
	--connect "$dead" --quiet-wait 0 --out "$tmp/r5"
has "$T/err" "$dead" "... naming the URI"
check "... at once (within 30 s)" test $(( $(date +%s) - t0 )) -le 30
expect 3 "lab hosts --connect to it: exit 3" $lab hosts --connect "$dead"

# 6. Classes: labels recorded, compared apart.
jq -n --argjson t "$topo" '{name: "remote-ab", topology: $t, repeats: 1,
	kernels: [{name: "thp-never", image: "/boot/vmlinuz-*", knobs: {thp_enabled: "never"}},
		  {name: "thp-always", image: "/boot/vmlinuz-*", knobs: {thp_enabled: "always"}}],
	workloads: [{name: "pft", params: {mode: "threads", memory_mib: 16, tasks: "per-cpu"}}]}' \
	>"$tmp/ab.json"
$lab run "$tmp/ab.json" --host-class c2 --timing tcg --quiet-wait 0 --out "$tmp/r6/c2" \
	>"$T/out" 2>"$T/err"
as_compare $? "$tmp/r6/c2" "an A/B job with --host-class c2: its decision's status"
check "... every run labelled class c2" \
	jq -e '[.runs[].host.class] | length == 2 and all(. == "c2")' "$tmp/r6/c2/report.json"
$lab run "$tmp/ab.json" --host-class other --timing tcg --quiet-wait 0 \
	--out "$tmp/r6/other" >"$T/out" 2>"$T/err"
as_compare $? "$tmp/r6/other" "the A/B job again with --host-class other: its decision's status"
check "... every run labelled class other" \
	jq -e '[.runs[].host.class] | length == 2 and all(. == "other")' "$tmp/r6/other/report.json"
expect 2 "lab compare of both reports refuses to pool two classes" $lab compare "$tmp/r6"
has "$T/err" "mixes runs on hosts of different classes" "... naming the mix"
$lab compare "$tmp/r6/c2" --json >"$T/out" 2>"$T/err"
rc=$?
ok "$([ $rc != 2 ] && echo 0 || echo 1)" "lab compare of one class's report compares (exit $rc: 3 is one boot a side)"
pyjson 'd["comparisons"][0]["host_class"] == "c2"' "... with the class in the comparison"

# 7. A disk-booted run on the remote host, post-mortem included.
if ls "${LAB_IMAGE_CACHE:-/var/cache/numalab/images}"/debian-perf-*/disk.qcow2 >/dev/null 2>&1; then
	jq --argjson t "$topo" '.topology = $t' lab/tests/data/jobs/image-panic.json >"$tmp/img.json"
	expect 3 "a disk-image job that panics, on the remote host" $lab run "$tmp/img.json" \
		--connect "$uri" --pool-dir "$ld/pool" --quiet-wait 0 --out "$tmp/r8"
	check "... panic, there, the image uploaded to its pool by hash" \
		jq -e --arg u "$uri" '.runs[0].status == "panic" and .runs[0].host.uri == $u and (.runs[0].host.artifacts.image.volume | test("^[0-9a-f]{64}-disk.qcow2$"))' "$tmp/r8/report.json"
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

echo "# integration-remote: $(( $(date +%s) - t_start )) s"
finish
