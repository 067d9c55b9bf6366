# What the tests that drive a real labd share (integration/labd.sh, integration/slurm.sh).
# Source after lib.sh.  The functions use sock (labd's socket), tmp (the test's scratch
# directory) and pids (an array the test's cleanup kills), set by the test.
B=${B:-build}
labd=$B/labd
lab=$B/lab
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
pids=()

# api [curl args] URL: labd's API over its unix socket.
api() { curl -s --max-time 70 --unix-socket "$sock" "$@"; }
# start_labd STATE [args]: labd in the background (its pid in labd_pid, its stderr appended to
# $tmp/labd.log); waits until its API answers.
start_labd() {
	local st=$1; shift
	"$labd" --state "$st" --socket "$sock" "$@" 2>>"$tmp/labd.log" &
	labd_pid=$!
	pids+=("$labd_pid")
	for _ in $(seq 100); do [ -S "$sock" ] && api http://labd/v1/health >/dev/null && return 0; sleep 0.1; done
	return 1
}
# wait_job ID SECONDS: until the job ended (done, failed, cancelled); prints its state.
wait_job() {
	local s
	for _ in $(seq "$2"); do
		s=$(api "http://labd/v1/jobs/$1" | jq -r .state)
		case "$s" in done|failed|cancelled) echo "$s"; return 0 ;; esac
		sleep 1
	done
	echo "$s"; return 1
}
# booting ID INDEX: until run INDEX of job ID started and its guest runs (a QEMU of the state
# directory $state named numalab-PID-INDEX).  A fixed wait after run-started was a race: a
# quick.json run can end within it on a quiet host, and a kill then cut the next run short
# instead.  A run ends only after its domain is destroyed, so while its QEMU is there it is
# mid-run.  The bound, wait_limit seconds, only keeps a broken labd from hanging the test: a
# fixed 60 s failed in a cold suite on a loaded host, so integration/labd.sh sets it from the
# wall time of a run of the same guest on this host, times three, plus two minutes.
wait_limit=${wait_limit:-600}
booting() {
	local end=$((SECONDS + wait_limit))

	while ((SECONDS < end)); do
		api "http://labd/v1/events?job=$1" | jq -e --argjson i "$2" \
			'[.events[] | select(.type == "run-started" and .data.index == $i)] | length > 0' \
			>/dev/null && pgrep -f "guest=numalab-[0-9]*-$2,.*$state/libvirt" >/dev/null &&
			return 0
		sleep 0.1
	done
	echo "# run $2 of job $1: no guest seen within $wait_limit s"
	return 1
}
# no_qemu_of STATE: no QEMU of that state directory is left.
no_qemu_of() { ! pgrep -f "guest=numalab-.*$1/libvirt" >/dev/null; }
