# shellcheck shell=bash disable=SC2034
# The benchmarks' library, sourced (`. lab/tests/benchlib.sh`) by lab/tests/bench*.sh after
# they cd to the checkout's root.  A benchmark prints figures and never passes or fails on a
# timing; but a run it measures that failed (lab's exit status, a run of the report not ok, a
# bare-QEMU guest that did not finish its job, a number missing) makes every figure drawn from
# it meaningless.  Then the part says which run failed and why (on stderr, "bench: WHAT
# failed: WHY"), prints no figure from that run, and ends with bench_exit, which exits 1.
. lab/tests/lib.sh # explain_runs
bench_failed=0

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

# bench_fail WHAT WHY...: says that WHAT failed and why, and marks the part failed.
bench_fail() {
	local what=$1
	shift
	echo "bench: $what failed: $*" >&2
	bench_failed=1
}

# lab_ok RC DIR WHAT [LOG]: 0 when `lab run` (or `lab submit --wait`), which exited RC, wrote
# DIR/report.json with every run ok.  Otherwise says which runs failed and why (status, end,
# reason, console tail: explain_runs), or that no report was written (LOG's last lines), and
# returns 1.
lab_ok() {
	local rc=$1 dir=$2 what=$3 log=${4:-}
	if [ ! -s "$dir/report.json" ]; then
		bench_fail "$what" "lab exited $rc without a report ($dir/report.json)"
	elif [ "$rc" != 0 ] || ! jq -e '(.runs | length) > 0 and all(.runs[]; .status == "ok")' \
		"$dir/report.json" >/dev/null 2>&1; then
		bench_fail "$what" "lab exited $rc, report status $(jq -r '.status // "?"' "$dir/report.json" 2>/dev/null)"
		explain_runs "$dir" | sed 's/^# /    /' >&2
	else
		return 0
	fi
	[ -n "$log" ] && [ -s "$log" ] && tail -3 "$log" | sed 's/^/    /' >&2
	return 1
}

# timed OUT CMD...: runs CMD, its output in OUT.out and OUT.err; its wall seconds in $secs,
# its exit status in $cmd_rc.
timed() {
	local out=$1 t0
	shift
	cmd_rc=0
	t0=$(now)
	"$@" >"$out.out" 2>"$out.err" || cmd_rc=$?
	secs=$(echo "$(now) - $t0" | bc -l)
}

# timed_ok WHAT OUT CMD...: timed; when CMD exited non-zero, says that WHAT failed (its exit
# status, the last lines of its stderr) and returns 1.
timed_ok() {
	local what=$1
	shift
	timed "$@"
	[ "$cmd_rc" = 0 ] && return 0
	bench_fail "$what" "exit $cmd_rc"
	tail -3 "$1.err" | sed 's/^/    /' >&2
	return 1
}

# lab_run DIR WHAT ARGS...: `$B/lab run ARGS --out DIR` timed (its output in DIR.out and
# DIR.err).  Returns 1 (and says why: lab_ok) when it failed.  Its status is the runs' alone
# (--runs-status): a bench judges an A/B's decision itself.
lab_run() {
	local dir=$1 what=$2
	shift 2
	timed "$dir" "${B:-build}"/lab run "$@" --runs-status --out "$dir"
	lab_ok "$cmd_rc" "$dir" "$what" "$dir.err"
}

# bench_num WHAT NAME VALUE: 0 when VALUE is a number (what jq printed of a report, a time);
# otherwise says that WHAT gave no NAME and returns 1.
bench_num() {
	[[ $3 =~ ^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$ ]] && return 0
	bench_fail "$1" "no $2 (got '$3')"
	return 1
}

# bench_exit: the part's end: exits 1 when a run failed (and says that its figures were left
# out), else 0.
bench_exit() {
	if [ "$bench_failed" != 0 ]; then
		echo "bench: $(basename "$0" .sh): a run failed; no figure was printed from it" >&2
		exit 1
	fi
	exit 0
}
