#!/usr/bin/env bash
# Integration: a pool of two libvirt hosts on one machine (`lab run --hosts`, `lab hosts`): the
# lab's embedded driver, and a second libvirt daemon reached through a remote URI on loopback
# only (qemu+tcp://127.0.0.1:PORT/session).  The second daemon is a session libvirtd of user
# nobody with its own configuration, run and cache directories under the test's scratch
# directory: nothing of it is shared with a system libvirtd (a root daemon would read and
# write /etc/libvirt and /run/libvirt), and its QEMUs run as nobody.  Guests: 4s-8c, the Debian
# kernel, a small pft, multi-threaded TCG.
#  1. `lab hosts` lists both up, with class and capacity; --json with keys sorted.
#  2. a job of 4 repetitions spreads over both hosts: one report, 4 runs ok, both host names
#     in it, class c2 on each; the kernel reached the second daemon as a volume of the pool
#     "numalab" named by its sha256 (uploaded at most once, a cache hit after), each run's
#     initramfs as its own volume, deleted after the run; console and results came back
#     through libvirt's streams (the remote runs have their console.log and results).
#  3. the second daemon stopped (SIGTERM) while its guest runs: that attempt is infra-error,
#     end host-lost, kept in the run's "attempts"; the run is retried on the other host and the
#     job completes with 4 runs ok; no QEMU is left of either host.
#  4. a pool of the second host alone, its daemon stopped mid-job, --host-wait 5: a run that
#     gets no host is recorded infra-error "not run: no host up ..."; lab exits 3, promptly.
#  5. classes: with the second host of class "other", an A/B job (two knob sets) runs wholly
#     on the first host's class; --host-class other runs it wholly there; `lab compare` of the
#     two reports together refuses to pool the classes (exit 2, naming them).
#  6. a bad pool file exits 2 naming the JSON path, and writes no report.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
T=$tmp
ld=$tmp/ld2
port=$((20000 + RANDOM % 20000))
while ss -ltn | grep -q ":$port "; do port=$((port + 1)); done
uri="qemu+tcp://127.0.0.1:$port/session"
# The daemon's directories are nobody's; the scratch directory must let nobody in.
chmod 755 "$tmp"

start_daemon() {
	mkdir -p "$ld/cfg/libvirt" "$ld/run" "$ld/cache" "$ld/data" "$ld/pool"
	cat >"$ld/cfg/libvirt/libvirtd.conf" <<EOF
listen_tls = 0
listen_tcp = 1
listen_addr = "127.0.0.1"
tcp_port = "$port"
auth_tcp = "none"
log_outputs = "3:file:$ld/libvirtd.log"
EOF
	chown -R nobody:nogroup "$ld"
	(cd "$ld" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env -i PATH="$PATH" HOME="$ld" XDG_CONFIG_HOME="$ld/cfg" XDG_RUNTIME_DIR="$ld/run" \
		XDG_CACHE_HOME="$ld/cache" XDG_DATA_HOME="$ld/data" \
		libvirtd --listen --pid-file "$ld/pid" >"$ld/out" 2>&1 &)
	for _ in $(seq 1 100); do
		virsh -c "$uri" version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	diag "$ld/out"
	return 1
}
stop_daemon() { [ -s "$ld/pid" ] && kill -TERM "$(cat "$ld/pid")" 2>/dev/null; sleep 1; }
# QEMUs of the second daemon (user nobody) and of this state directory.
remote_qemus() { pgrep -u nobody -fc "guest=numalab-" || true; }
cleanup() {
	stop_daemon
	pkill -u nobody -f "guest=numalab-" 2>/dev/null
	pkill -u nobody -x virtlogd 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
t_start=$(date +%s)

check "the second libvirt daemon (session, user nobody) answers on 127.0.0.1:$port" start_daemon
pool() { # FILE CLASS_OF_SECOND [ONLY_SECOND]
	jq -n --arg uri "$uri" --arg c "$2" --arg dir "$ld/pool" --arg only "${3:-}" \
		'{hosts: ((if $only == "" then [{name: "here", uri: "", class: "c2"}] else [] end)
			  + [{name: "lo2", uri: $uri, class: $c, pool_dir: $dir}])}' >"$1"
}
pool "$tmp/hosts.json" c2
jq -n '{name: "pool4", topology: "4s-8c", kernel: {image: "/boot/vmlinuz-*"}, repeats: 4,
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
# A second job: the kernel is a cache hit on lo2.
jq '.repeats = 2' "$tmp/job.json" >"$tmp/job2.json"
expect 0 "the job again, 2 repetitions" $lab run "$tmp/job2.json" --hosts "$tmp/hosts.json" \
	--quiet-wait 0 --out "$tmp/r2b"
check "... the kernel was a cache hit on lo2" \
	jq -e '[.runs[] | select(.host.name == "lo2") | .host.artifacts.kernel.cached] | length >= 1 and all' "$tmp/r2b/report.json"

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
for _ in $(seq 1 50); do [ "$(remote_qemus)" = 0 ] && break; sleep 0.2; done
ok "$(rc_is "$(remote_qemus)" 0)" "no QEMU left on the stopped host"
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
check "... within 60 s of the host going" test "$el" -le 60
check "... runs without a host: infra-error, not run, the host named" \
	jq -e '[.runs[] | select(.reason | test("^not run: no host up for [0-9]+ s: lo2"))] | length >= 1' "$tmp/r4/report.json"
check "... the run that was on it: lost, retried, not run" \
	jq -e '.runs[0].attempts[0].host == "lo2" and .runs[0].status == "infra-error"' "$tmp/r4/report.json"

# 5. Classes.
check "the second daemon starts again" start_daemon
pool "$tmp/classes.json" other
jq -n '{name: "pool-ab", topology: "4s-8c", repeats: 1,
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

reports=$(find "$tmp" -name report.json)
/usr/bin/python3 lab/tests/validate-reports.py $reports >"$tmp/schema.out" 2>&1
ok $? "every report of this test validates against reports/report.schema.json"
grep -v '^ok' "$tmp/schema.out" | head -5 | sed 's/^/# /'

echo "# integration-pool: $(( $(date +%s) - t_start )) s"
finish
