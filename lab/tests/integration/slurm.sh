#!/usr/bin/env bash
# Integration: labd with the Slurm backend on a real one-node Slurm cluster on localhost
# (lab/tests/slurm-cluster.sh: munged, slurmctld and slurmd on 127.0.0.1 and private ports,
# with the lab's epilog and health check).  Real quick guests, through labd's client:
#   - labd --slurm-jobs out of range: exit 2;
#   - a host class no node has is refused at submit, naming the feature and those there are;
#   - two jobs of a class: both handed to Slurm at once, both done, their reports in labd
#     with the class as each run's host.class, each one Slurm job; on the one node
#     (--exclusive) they never ran at once;
#   - a running job cancelled (lab job cancel): scancel, the guest destroyed, state cancelled;
#   - labd stopped while its job runs in Slurm: the job goes on, the next labd finds it by
#     the Slurm job id it kept, and nothing ran twice;
#   - slurmd and the job's processes killed mid-job: Slurm requeues it when the node is back,
#     and `lab run --resume` keeps what finished;
#   - lab hosts --slurm: the node, its state and features; the health check drains an idle
#     node that has a lab guest left, with the reason, and lab hosts --slurm says so (exit 3).
# Slurm holds a requeued job about 2 minutes before it starts it again (seen: 2 min 29 s), so
# this test takes about 4.5 minutes.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.." || exit 1
. lab/tests/lib.sh
. lab/tests/lib-labd.sh
tmp=$(mktemp -d /tmp/numalab-slurm.XXXXXX)
chmod 755 "$tmp"
sock=$tmp/labd.sock
state=$tmp/state
cluster=$tmp/cluster
cleanup() {
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
	lab/tests/slurm-cluster.sh stop "$cluster"
	pkill -9 -f "guest=numalab-.*$state/libvirt" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
start_slurm_labd() {
	start_labd "$state" --backend slurm --slurm-node-state "$state" --grace 0 "$@"
}
submit() { "$lab" job submit "$@" --socket "$sock"; }
slurm_id() { api "http://labd/v1/jobs/$1" | jq -r .backend_id; }
sjob() { squeue --json --states=all --jobs "$1" | jq -c ".jobs[] | select(.job_id == $1)"; }

# --- the cluster --------------------------------------------------------------------------
mkdir -p "$state"
printf '#!/bin/sh\nLAB_STATE_DIR=%s exec %s/lab/slurm/epilog\n' "$state" "$(pwd)" >"$tmp/epilog"
# slurmd runs the health check with an environment of its own: the cluster's configuration
# (scontrol's) and PATH are given here.
printf '#!/bin/sh\nPATH=%s SLURM_CONF=%s LAB_STATE_DIR=%s LAB_MIN_FREE_MIB=64 exec %s/lab/slurm/healthcheck\n' \
	"$PATH" "$cluster/slurm.conf" "$state" "$(pwd)" >"$tmp/healthcheck"
chmod 755 "$tmp/epilog" "$tmp/healthcheck"
t0=$(date +%s.%N)
SLURM_CONF=$(SLURM_EPILOG=$tmp/epilog SLURM_HEALTHCHECK=$tmp/healthcheck \
	lab/tests/slurm-cluster.sh start "$cluster" numalab-test,lab-a 2>"$tmp/cluster.err")
ok $? "a one-node Slurm cluster on localhost ($(echo "$(date +%s.%N) - $t0" | bc) s)"
diag "$tmp/cluster.err"
export SLURM_CONF
check "slurmctld and slurmd listen on 127.0.0.1 only" bash -c \
	"ss -Htlnp | grep -E 'slurmctld|slurmd' | awk '{print \$4}' | grep -v '^127\.0\.0\.1:' | grep -q . && exit 1 || exit 0"
"$labd" --state "$state" --socket "$sock" --backend slurm --slurm-jobs 0 2>"$tmp/err"
ok "$(rc_is $? 2)" "labd --slurm-jobs 0: exit 2"
has "$tmp/err" 'labd: --slurm-jobs must be a number 1..256, not "0"' "... naming the range"
start_slurm_labd
ok $? "labd --backend slurm starts"
has "$tmp/labd.log" "jobs run as Slurm batch jobs, 16 at once at most" "... 16 jobs in Slurm at once by default"

# --- a class no node has ------------------------------------------------------------------
submit configs/quick.json --class gpu >"$tmp/out" 2>"$tmp/err"
ok $([ $? = 2 ] && echo 0 || echo 1) "a class no node has: refused at submit (exit 2)"
has "$tmp/err" 'no Slurm node has the feature "gpu" (features: lab-a, numalab-test)' \
	"... naming the feature and the features there are"
nq=$(api http://labd/v1/jobs | jq '.jobs | length')
check "... and nothing queued ($nq jobs)" test "$nq" = 0

# --- two jobs on one node -----------------------------------------------------------------
t0=$(date +%s.%N)
a=$(submit configs/quick.json --class lab-a) && b=$(submit configs/quick.json --class lab-a)
ok $? "two quick jobs of class lab-a submitted ($a, $b)"
sa=$(wait_job "$a" 600) sb=$(wait_job "$b" 600)
check "both done ($sa, $sb)" test "$sa $sb" = "done done"
echo "# two quick jobs through Slurm: $(echo "$(date +%s.%N) - $t0" | bc) s"
for j in "$a" "$b"; do
	api "http://labd/v1/jobs/$j/report" >"$tmp/r$j.json"
	check "job $j: its report in labd, one ok run" jq -e '.status == "ok" and (.runs | length == 1)' "$tmp/r$j.json"
	check "... its run labelled with the class (lab run --host-class lab-a)" \
		jq -e '.runs[0].host.class == "lab-a"' "$tmp/r$j.json"
done
ia=$(slurm_id "$a") ib=$(slurm_id "$b")
check "each is a Slurm job of its own ($ia, $ib)" bash -c "[ -n '$ia' ] && [ '$ia' != null ] && [ '$ia' != '$ib' ]"
sjob "$ia" >"$tmp/sa.json"; sjob "$ib" >"$tmp/sb.json"
check "... exclusive, of the feature asked for, on localhost" jq -e -s \
	'all(.[]; .features == "lab-a" and .nodes == "localhost" and .shared == "none")' "$tmp/sa.json" "$tmp/sb.json"
check "... both handed to Slurm at once (labd --slurm-jobs: its default 16)" jq -e -s \
	'(.[1].submit_time < .[0].end_time) and (.[0].submit_time < .[1].end_time)' "$tmp/sa.json" "$tmp/sb.json"
check "... and never run at once: Slurm held the node for one, then the other" jq -e -s \
	'(.[0].end_time <= .[1].start_time) or (.[1].end_time <= .[0].start_time)' "$tmp/sa.json" "$tmp/sb.json"
jq -r -s '.[] | "# Slurm job \(.job_id): \(.job_state), submit \(.submit_time), start \(.start_time), end \(.end_time)"' "$tmp/sa.json" "$tmp/sb.json"

# --- cancel -------------------------------------------------------------------------------
jq '.repeats = 2 | .name = "slurm-cancel"' configs/quick.json >"$tmp/cancel.json"
c=$(submit "$tmp/cancel.json")
check "run 0 of the job to cancel under way in Slurm" booting "$c" 0
"$lab" job cancel "$c" --socket "$sock" >/dev/null 2>"$tmp/err"
ok $? "lab job cancel of a running Slurm job"
s=$(wait_job "$c" 120)
check "... then cancelled ($s)" test "$s" = cancelled
# Slurm says CANCELLED when scancel has signalled the job; the lab run in it destroys its guest
# on that signal, and QEMU may still be exiting a moment later (seen once in a fresh clone).
for _ in $(seq 60); do no_qemu_of "$state" && break; sleep 0.5; done
check "... its guest destroyed (within 30 s)" no_qemu_of "$state"
ic=$(slurm_id "$c")
st=$(sjob "$ic" | jq -r .job_state)
check "... and its Slurm job ended ($st)" bash -c "case '$st' in PENDING|RUNNING|COMPLETING|'') exit 1 ;; esac"

# --- labd stops while its job runs in Slurm -------------------------------------------------
jq '.repeats = 2 | .name = "slurm-restart"' configs/quick.json >"$tmp/restart.json"
r=$(submit "$tmp/restart.json")
check "run 0 of a 2-run job under way" booting "$r" 0
ir=$(slurm_id "$r")
kill -TERM "$labd_pid"; wait "$labd_pid"
ok $? "labd stops (SIGTERM, no grace)"
st=$(sjob "$ir" | jq -r .job_state)
check "... the Slurm job goes on ($st)" test "$st" = RUNNING
start_slurm_labd
ok $? "labd starts again"
s=$(wait_job "$r" 600)
check "the job finished ($s)" test "$s" = done
has "$tmp/labd.log" "job $r: Slurm job $ir again" "... the new labd found Slurm job $ir again"
api "http://labd/v1/jobs/$r/report" >"$tmp/rr.json"
check "... two ok runs, none run twice" jq -e '[.runs[].status] == ["ok", "ok"]' "$tmp/rr.json"
check "... one Slurm job for it" test "$(slurm_id "$r")" = "$ir"

# --- the node dies mid-job ----------------------------------------------------------------
jq '.repeats = 3 | .name = "slurm-requeue"' configs/quick.json >"$tmp/requeue.json"
q=$(submit "$tmp/requeue.json")
check "run 1 of a 3-run job under way" booting "$q" 1
iq=$(slurm_id "$q")
kdir=$(api "http://labd/v1/jobs/$q" | jq -r .out_dir)
jq -c '.runs[0]' "$kdir/report.json" >"$tmp/run0.before" 2>/dev/null
# The node's death: slurmd, the job's step daemon and everything under it, and the guest.
kill -9 "$(cat "$cluster/slurmd.pid")"
pkill -9 -f "slurmstepd: \[$iq" ; pkill -9 -f "$tmp/state/labd/jobs/.*/job.json"
pkill -9 -f "guest=numalab-.*$state/libvirt"
for _ in $(seq 60); do [ "$(sinfo -h -N -o %T)" = down ] || [ "$(sinfo -h -N -o %T)" = 'down*' ] && break; sleep 1; done
echo "# node: $(sinfo -h -N -o '%T %E'), job: $(sjob "$iq" | jq -r '.job_state + " " + .state_reason')"
lab/tests/slurm-cluster.sh slurmd "$cluster"
ok $? "slurmd started again"
s=$(wait_job "$q" 900)
check "the job finished after Slurm requeued it ($s)" test "$s" = done
restarts=$(sjob "$iq" | jq -r .restart_cnt)
check "... Slurm restarted it ($restarts restart)" test "${restarts:-0}" -ge 1
api "http://labd/v1/jobs/$q/report" >"$tmp/qr.json"
jq -r '.runs[] | "# run \(.index): \(.status) \(.reason // "")"' "$tmp/qr.json"
check "... three runs in its report, the last two ok" jq -e '(.runs | length) == 3 and .runs[2].status == "ok"' "$tmp/qr.json"
jq -c '.runs[0]' "$tmp/qr.json" >"$tmp/run0.after"
check "... run 0 kept from before the node died (not run twice)" cmp -s "$tmp/run0.before" "$tmp/run0.after"
has "$tmp/labd.log" "Slurm requeued job $iq" "... labd's log says Slurm requeued it"

# --- lab hosts --slurm ----------------------------------------------------------------------
"$lab" hosts --slurm --json >"$tmp/hosts.json"
ok $? "lab hosts --slurm --json: every node up (exit 0)"
check "... the node, idle, its features, its CPUs" jq -e --argjson c "$(nproc)" \
	'.hosts == [.hosts[0]] and .hosts[0].name == "localhost" and .hosts[0].state == "idle" and
	 .hosts[0].features == ["lab-a", "numalab-test"] and .hosts[0].cpus == $c' "$tmp/hosts.json"

# --- the health check ---------------------------------------------------------------------
bash -c "exec -a 'qemu-system-x86_64 -name guest=numalab-0-0,debug-threads=on $state/libvirt' sleep 300" &
fake=$!
pids+=("$fake")
# The health check gives a guest it finds 15 s to go before it drains (lab/slurm/healthcheck).
for _ in $(seq 600); do sinfo -h -N -o %T | grep -q drain && break; sleep 0.1; done
check "an idle node with a lab guest left is drained by the health check" bash -c "sinfo -h -N -o %T | grep -q drain"
has <(sinfo -h -N -o %E) "numalab: a lab guest is left on the idle node" "... with the reason"
"$lab" hosts --slurm >"$tmp/hosts.out"
ok "$(rc_is $? 3)" "lab hosts --slurm with the node drained: exit 3"
has "$tmp/hosts.out" "idle+drain" "... its state idle+drain"
has "$tmp/hosts.out" "numalab: a lab guest is left on the idle node" "... and why"
kill -9 "$fake"; wait "$fake" 2>/dev/null
scontrol update NodeName=localhost State=RESUME

kill -TERM "$labd_pid"; wait "$labd_pid"
check "no guest left" no_qemu_of "$state"
finish
