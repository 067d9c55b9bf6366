# The shell tests' TAP library, sourced (`. lab/tests/lib.sh`) by lab/tests/test_*.sh and
# lab/tests/integration/*.sh after they cd to the checkout's root.  Output is TAP: one
# "ok N - DESC" / "not ok N - DESC" line per check, then finish prints the plan "1..N" and the
# closing "N passed, N failed" line that lab/tests/run-tests.sh adds up.
n=0 failed=0

# ok STATUS DESCRIPTION: a check that passed when STATUS is 0 (usually $?).
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ] 2>/dev/null; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=$((failed + 1))
	fi
}

# check DESCRIPTION CMD...: ok when CMD exits 0 (its output is dropped).
check() { local desc=$1; shift; "$@" >/dev/null 2>&1; ok $? "$desc"; }
# has FILE TEXT DESCRIPTION: ok when FILE contains TEXT (a fixed string).
has() { grep -qF -- "$2" "$1"; ok $? "$3"; }
# rc_is GOT WANT: prints 0 when the exit statuses match, else 1 (for ok).
rc_is() { [ "$1" = "$2" ] && echo 0 || echo 1; }
# as_compare GOT DIR DESCRIPTION: ok when an A/B command's exit status GOT is `lab compare
# DIR`'s (the decision's, util/exitcode.h), its runs all ok.
as_compare() {
	local want
	"${lab:-$LAB}" compare "$2" >/dev/null 2>&1
	want=$?
	ok "$(rc_is "$1" "$want")" "$3 (exit $1; lab compare's $want)"
}
# diag FILE...: the files as TAP comments.
diag() { sed 's/^/# /' "$@"; }

# expect STATUS DESCRIPTION CMD...: ok when the program CMD exits STATUS within
# $EXPECT_TIMEOUT seconds (default 600); its output goes to $T/out and $T/err (T: the test's
# scratch directory), and on a mismatch its exit status and stderr become comments.
expect() {
	local want=$1 desc=$2; shift 2
	timeout "${EXPECT_TIMEOUT:-600}" "$@" >"$T/out" 2>"$T/err"
	local got=$?
	ok "$(rc_is "$got" "$want")" "$desc (exit $want)"
	[ "$got" = "$want" ] || { echo "# exit $got"; diag "$T/err" | head -5; }
}
# pyjson EXPR DESCRIPTION: ok when the Python expression EXPR holds, d being the JSON in
# $T/out, whose keys must be sorted at every level (the house rule for --json).
pyjson() {
	"${PY:-python3}" - "$T/out" "$1" <<'PY'
import json, sys
def sorted_pairs(pairs):
    keys = [k for k, _ in pairs]
    if keys != sorted(keys):
        sys.exit("keys not sorted: %s" % keys)
    return dict(pairs)
d = json.load(open(sys.argv[1]), object_pairs_hook=sorted_pairs)
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
	ok $? "$2"
}

# explain_runs DIR [WANT]: for each run of DIR/report.json whose status is not WANT (default
# ok), its outcome, reason, longest silence and console tail as TAP comments: a CI log is all
# there is to go on when a guest misbehaves on someone else's host.
explain_runs() {
	local dir=$1 want=${2:-ok} i
	for i in $(jq -r --arg w "$want" '.runs | to_entries[] | select(.value.status != $w) | .key' \
		"$dir/report.json" 2>/dev/null); do
		jq -r ".runs[$i] | \"# run $i: \\(.status) (\\(.end)): \\(.reason); longest silence \\(.timings.silence_s // \"?\") s with \\(.timings.silence_cpu_s // \"?\") s of host CPU; host noise \\(.host.noise.others_share // \"?\")\"" \
			"$dir/report.json"
		tail -12 "$dir/run-$i/console.log" 2>/dev/null | tr -cd '[:print:]\n' | sed 's/^/# console: /'
	done
}

# it_init: what an integration test (lab/tests/integration/*.sh) starts with: $lab (the build's,
# B=build-x picks another), $tmp (removed on exit) and LAB_STATE_DIR (default: the tests'
# shared one).
it_init() {
	lab=${B:-build}/lab
	tmp=$(mktemp -d /tmp/numalab-it.XXXXXX)
	trap 'rm -rf "$tmp"' EXIT
	export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
}
# no_qemu: no guest of this state dir is running (QEMU's command line names the embedded root):
# other labs on the same host are not ours to judge.
no_qemu() { ! pgrep -f "guest=numalab-.*$LAB_STATE_DIR/libvirt" >/dev/null; }
# guests_of PID: how many guests the lab process PID runs now (its domains are numalab-PID-N).
guests_of() { pgrep -fc "guest=numalab-$1-"; }

# finish [STATUS]: the plan and the closing line, then exit: with STATUS when given, else 0
# when every check passed and 1 otherwise.
finish() {
	echo "1..$n"
	echo "$((n - failed)) passed, $failed failed"
	[ $# -gt 0 ] && exit "$1"
	[ "$failed" -eq 0 ]
	exit
}

# peak_rss PID: the peak resident memory (VmHWM, KiB) of PID, sampled every 0.2 s until it
# exits; prints it (0 when never read).  The caller still waits for PID.
peak_rss() {
	local hwm=0 v
	while kill -0 "$1" 2>/dev/null; do
		v=$(awk '/^VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null)
		[ -n "$v" ] && hwm=$v
		sleep 0.2
	done
	echo "$hwm"
}

# A second libvirt daemon on this machine, a "remote host" reached over loopback only (the pool
# tests, lab/tests/integration/remote.sh, and its benchmark): a session libvirtd of user nobody
# with its configuration, run and cache directories in DIR (made nobody's; its parent must let
# nobody through), listening on 127.0.0.1:PORT without auth.  Nothing of it is shared with a
# system libvirtd (a root one reads and writes /etc/libvirt and /run/libvirt), and its QEMUs
# run as nobody.  Its URI: qemu+tcp://127.0.0.1:PORT/session.
# libvirtd2_start DIR PORT: started, and answering (else 1, its output as comments).
libvirtd2_start() {
	local d=$1 port=$2
	mkdir -p "$d/cfg/libvirt" "$d/run" "$d/cache" "$d/data" "$d/pool"
	cat >"$d/cfg/libvirt/libvirtd.conf" <<EOF
listen_tls = 0
listen_tcp = 1
listen_addr = "127.0.0.1"
tcp_port = "$port"
auth_tcp = "none"
log_outputs = "3:file:$d/libvirtd.log"
EOF
	chown -R nobody:nogroup "$d"
	# A daemon that exits at once (its pid file or port still held by the one stopped just
	# before, seen once in CI) is started again; the loop gives it 60 s in all.
	local i
	for i in $(seq 1 300); do
		if [ $((i % 50)) = 1 ] && ! pgrep -u nobody -f "libvirtd --listen --pid-file $d/pid" >/dev/null; then
			(cd "$d" && setpriv --reuid=nobody --regid=nogroup --clear-groups \
				env -i PATH="$PATH" HOME="$d" XDG_CONFIG_HOME="$d/cfg" XDG_RUNTIME_DIR="$d/run" \
				XDG_CACHE_HOME="$d/cache" XDG_DATA_HOME="$d/data" \
				libvirtd --listen --pid-file "$d/pid" >>"$d/out" 2>&1 &)
		fi
		virsh -c "qemu+tcp://127.0.0.1:$port/session" version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	diag "$d/out"
	diag "$d/libvirtd.log"
	return 1
}
# libvirtd2_stop DIR: SIGTERM (it destroys the guests tied to its closed connections), and wait
# until it is gone: a daemon still shutting down holds its pid file and port, and the next
# libvirtd2_start would fail on them.  SIGKILL after 30 s.
libvirtd2_stop() {
	local pid i
	[ -s "$1/pid" ] || return 0
	pid=$(cat "$1/pid")
	kill -TERM "$pid" 2>/dev/null || return 0
	for i in $(seq 1 150); do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "# libvirtd $pid gone $((i / 5)) s after SIGTERM"
			return 0
		fi
		sleep 0.2
	done
	echo "# libvirtd $pid still there 30 s after SIGTERM: SIGKILL"
	kill -KILL "$pid" 2>/dev/null
	sleep 0.5
}
# libvirtd2_cleanup DIR: stopped, with whatever of nobody's it left (QEMUs, its virtlogd).
libvirtd2_cleanup() {
	libvirtd2_stop "$1"
	pkill -u nobody -f "guest=numalab-" 2>/dev/null
	pkill -u nobody -x virtlogd 2>/dev/null
}
# free_port: a TCP port nothing listens on, from 20000 up.
free_port() {
	local p=$((20000 + RANDOM % 20000))
	while ss -ltn | grep -q ":$p "; do p=$((p + 1)); done
	echo "$p"
}

# plugin_run NAME PLUGIN ELF [QEMU-ARGS...]: the bare guest ELF (lab/tests/synth*.S) under TCG
# with the TCG plugin PLUGIN, given map=$T/map (the caller's `nm -n` of ELF) and out=$T/NAME.json;
# ok when the guest ran to its end (isa-debug-exit at 0xf4: QEMU exits (0 << 1) | 1 when the
# guest wrote 0), QEMU's output as comments when it wrote no JSON.
plugin_run() {
	timeout 60 qemu-system-x86_64 -machine q35 -accel tcg "${@:4}" -display none -nodefaults \
		-no-reboot -kernel "$3" -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-plugin "$2,map=$T/map,out=$T/$1.json" >"$T/$1.out" 2>&1
	ok "$(rc_is $? 1)" "$1: the guest ran to its end (QEMU exit 1 from isa-debug-exit)"
	[ -s "$T/$1.json" ] || diag "$T/$1.out"
}
# plugin_refused NAME PLUGIN ELF ARGS TEXT: QEMU does not start with PLUGIN given ARGS, and says
# TEXT (two checks).
plugin_refused() {
	timeout 20 qemu-system-x86_64 -machine q35 -accel tcg -display none -nodefaults \
		-kernel "$3" -plugin "$2,$4" >"$T/$1.out" 2>&1
	ok "$(rc_is $? 1)" "$1: QEMU refuses to start"
	has "$T/$1.out" "$5" "... saying \"$5\""
}

# synthnuma_run QEMU ELF CONSOLE [QEMU-ARGS...]: the bare 4-vCPU guest lab/tests/synthnuma.S on
# its machine: two NUMA nodes of two vCPUs (0-1, 2-3: its ping-pongs expect that), 128 MiB
# each, the debug console (port 0xe9) in CONSOLE, isa-debug-exit at 0xf4 (QEMU exits 1 when
# the guest wrote 0).  -rtc clock=vm, as the lab's domains: with the host's clock behind the
# RTC, SeaBIOS's reads of it made 1 run in 3 on a loaded host interleave differently.
synthnuma_run() {
	timeout 120 "$1" -machine q35 -accel tcg "${@:4}" -smp 4,sockets=2,cores=2 \
		-rtc base=2026-01-01T00:00:00,clock=vm -m 256 \
		-object memory-backend-ram,id=m0,size=128M -object memory-backend-ram,id=m1,size=128M \
		-numa node,nodeid=0,cpus=0-1,memdev=m0 -numa node,nodeid=1,cpus=2-3,memdev=m1 \
		-display none -nodefaults -no-reboot -kernel "$2" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 -debugcon "file:$3"
}
