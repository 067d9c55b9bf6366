#!/usr/bin/env bash
# A one-node Slurm cluster on localhost for the tests: munged with its own key and socket,
# slurmctld and slurmd (`slurmd -N localhost`) on two free private ports, bound to 127.0.0.1
# only (CommunicationParameters=NoCtldInAddrAny,NoInAddrAny), everything under DIR.  Runs as
# root (slurmd starts jobs as their user).  No accounting database: squeue keeps ended jobs
# for MinJobAge, which is all labd reads.
#   slurm-cluster.sh start DIR [FEATURES]   FEATURES: the node's, comma-separated
#                                           (default numalab-test); prints SLURM_CONF's value
#   slurm-cluster.sh stop DIR               stops all three, waits for them
#   slurm-cluster.sh slurmd DIR             starts slurmd again (after a test killed it)
# SLURM_EPILOG and SLURM_HEALTHCHECK, when set, are the node's Epilog and HealthCheckProgram
# (run every 5 s on an idle node).  cred_expire=30: Slurm holds a requeued job that long before
# it starts it again (the default, 120 s, is a test's idle time).
set -u
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|slurmd DIR [FEATURES]" >&2; exit 2; }

free_port() { # two free TCP ports in a row on 127.0.0.1, the first printed
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 30000))
		ss -Htln "( sport = :$p or sport = :$((p + 1)) )" | grep -q . || { echo "$p"; return 0; }
	done
	return 1
}

wait_for() { # wait_for SECONDS CMD...: until CMD succeeds
	local t=$1; shift
	for _ in $(seq $((t * 10))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
	return 1
}

start_slurmd() {
	slurmd -f "$dir/slurm.conf" -N localhost || return 1
	wait_for 30 bash -c "sinfo -h -N -o %T | grep -Eq '^(idle|allocated|mixed|completing)'"
}

case $cmd in
start)
	features=${3:-numalab-test}
	[ "$(id -u)" = 0 ] || { echo "$0: needs root (slurmd starts jobs as their user)" >&2; exit 1; }
	for b in munged slurmctld slurmd sbatch; do
		command -v "$b" >/dev/null || { echo "$0: $b is not installed (make deps)" >&2; exit 1; }
	done
	mkdir -p "$dir/state" "$dir/spool" && chmod 700 "$dir" || exit 1
	dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none && chmod 400 "$dir/munge.key"
	munged -f --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
		--log-file="$dir/munged.log" --seed-file="$dir/munged.seed" || exit 1
	port=$(free_port) || { echo "$0: no free port" >&2; exit 1; }
	mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
	cat >"$dir/slurm.conf" <<CONF
ClusterName=numalabtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock,cred_expire=30
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
PlugStackConfig=/dev/null
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/linear
ReturnToService=2
MinJobAge=3600
SlurmdTimeout=10
KillWait=10
${SLURM_EPILOG:+Epilog=$SLURM_EPILOG}
${SLURM_HEALTHCHECK:+HealthCheckProgram=$SLURM_HEALTHCHECK}
${SLURM_HEALTHCHECK:+HealthCheckInterval=5}
${SLURM_HEALTHCHECK:+HealthCheckNodeState=IDLE}
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem Features=$features State=UNKNOWN
PartitionName=lab Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
	export SLURM_CONF=$dir/slurm.conf
	slurmctld -f "$dir/slurm.conf" || exit 1
	wait_for 30 scontrol ping || { echo "$0: slurmctld does not answer" >&2; exit 1; }
	start_slurmd || { echo "$0: slurmd did not register" >&2; exit 1; }
	echo "$dir/slurm.conf"
	;;
slurmd)
	export SLURM_CONF=$dir/slurm.conf
	start_slurmd
	;;
stop)
	for p in slurmd slurmctld munged; do
		[ -s "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null
	done
	for p in slurmd slurmctld munged; do
		[ -s "$dir/$p.pid" ] && wait_for 20 bash -c "! kill -0 $(cat "$dir/$p.pid")"
		[ -s "$dir/$p.pid" ] && kill -9 "$(cat "$dir/$p.pid")" 2>/dev/null
	done
	exit 0
	;;
*) echo "usage: $0 start|stop|slurmd DIR [FEATURES]" >&2; exit 2 ;;
esac
