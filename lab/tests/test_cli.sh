#!/usr/bin/env bash
# TAP test of lab's command-line conventions (lab(1)): every failure mode in
# lab/tests/data/cli/errors.txt exits as its line says with its message in the one shape,
# "lab CMD: ... (see 'lab CMD --help')"; every command's --help exits 0, has EXAMPLES, fits
# 80 columns and ends with the exit-code table; 'lab help CMD' is 'lab CMD --help'; the old
# names of the job verbs are aliases; -h is --help's usage and EXAMPLES; --version names the version and the commit.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
T=$(mktemp -d /tmp/numalab-test-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
B=${B:-build}
LAB=$(pwd)/$B/lab
# No labd, state or cache of this machine's may answer: every case fails before them.
export LAB_SOCKET=$T/no-labd.sock LAB_STATE_DIR=$T/state
unset LAB_URL LAB_TOKEN_FILE

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }

# ---- failure modes, from the table ------------------------------------------------------
while IFS='|' read -r want args text; do
	case $want in '#'* | '') continue ;; esac
	want=${want// /} args=$(echo "$args" | xargs) text=${text# }
	# shellcheck disable=SC2086
	expect "$want" "lab $args" "$LAB" $args
	[ -z "$text" ] || has "$T/err" "$text" "... says: $text"
	[ -s "$T/out" ] && ok 1 "... prints nothing on stdout" && diag "$T/out" | head -3
done <lab/tests/data/cli/errors.txt

# ---- every command's help ---------------------------------------------------------------
cmds=$("$LAB" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 && $1 != "commands:" {print $1}')
ok "$([ "$(echo "$cmds" | wc -l)" -ge 14 ] && echo 0 || echo 1)" "lab --help lists the commands"
for c in $cmds "job submit" "job list" "job status" "job logs" "job cancel"; do
	# shellcheck disable=SC2086
	expect 0 "lab $c --help" "$LAB" $c --help
	cp "$T/out" "$T/help"
	head -1 "$T/help" | grep -q "^usage: lab $c\b"; ok $? "... starts with its usage line"
	wide=$(awk 'length($0) > 80' "$T/help" | wc -l)
	ok "$wide" "... fits 80 columns ($wide lines wider)"
	grep -q "^EXAMPLES" "$T/help"; ok $? "... has EXAMPLES"
	has "$T/help" "Exit status, every lab command: 0 ok or no regression" "... ends with the exit-code table"
	# shellcheck disable=SC2086
	expect 0 "lab $c -h" "$LAB" $c -h
	head -1 "$T/out" | grep -q "^usage: lab $c\b"; ok $? "... its usage line"
	grep -q "^EXAMPLES" "$T/out"; ok $? "... and EXAMPLES"
	ok "$([ "$(wc -l <"$T/out")" -lt "$(wc -l <"$T/help")" ] && echo 0 || echo 1)" \
		"... shorter than --help"
	has "$T/out" "'lab $c --help' says all of it." "... points to --help"
	# shellcheck disable=SC2086
	"$LAB" help $c >"$T/help2" 2>&1
	cmp -s "$T/help" "$T/help2"; ok $? "... the same as 'lab help $c'"
done
expect 0 "lab help" "$LAB" help
has "$T/out" "usage: lab <command>" "... the list of commands"
expect 0 "lab --help" "$LAB" --help
has "$T/out" "old names, kept for one release: submit, queue, status, cancel, logs" \
	"... names the job verbs' old names"

# ---- the job verbs' old names -----------------------------------------------------------
for pair in "submit:submit" "queue:list" "status:status" "cancel:cancel" "logs:logs"; do
	old=${pair%%:*} new=${pair#*:}
	"$LAB" "$old" --help >"$T/a" 2>&1
	"$LAB" job "$new" --help >"$T/b" 2>&1
	cmp -s "$T/a" "$T/b"; ok $? "lab $old is lab job $new"
done

# ---- lab show: one report as text, its decision last when it has two labels --------------
expect 3 "lab show of a real A/B report: the status of the decision it ends with (undecided)" \
	"$LAB" show lab/tests/data/compare/real-ab.json
has "$T/out" "deb-a                ok" "... a line a run"
tail -1 "$T/out" | grep -q "^decision: "; ok $? "... the decision last"
wide=$(awk 'length($0) > 80' "$T/out" | wc -l)
ok "$wide" "... in 80 columns ($wide lines wider)"

# ---- lab run --dry-run: the plan, nothing written --------------------------------------
expect 0 "lab run --dry-run configs/ab-vma-lock.json" "$LAB" run configs/ab-vma-lock.json \
	--dry-run --out "$T/never"
has "$T/out" "run order (6 runs, interleaved): baseline no-per-vma-lock baseline" "... the run order"
has "$T/out" "kernel no-per-vma-lock: variant no-per-vma-lock, " "... each kernel, cached or to build"
has "$T/out" "timing model " "... the timing model"
grep -q "^estimate: " "$T/out"; ok $? "... an estimate, or says there is none"
[ ! -e "$T/never" ] && [ ! -e "$LAB_STATE_DIR/libvirt" ]; ok $? "... wrote no report and opened no libvirt"
# Options that pair with another read in the same table: --pool-dir goes with a remote
# --connect, in whichever order they come (the plan connects to nothing).
expect 0 "lab run --pool-dir DIR --connect REMOTE --dry-run" "$LAB" run configs/quick.json \
	--pool-dir /srv/pool --connect qemu+tcp://127.0.0.1:9/system --dry-run --out "$T/never"
# LAB_QUIET_WAIT: --quiet-wait's default (the test suite sets it to 0); a bad one is bad input.
expect 2 "LAB_QUIET_WAIT=soon lab run" env LAB_QUIET_WAIT=soon "$LAB" run configs/quick.json \
	--dry-run --out "$T/never"
has "$T/err" 'LAB_QUIET_WAIT must be a number 0..3600, not "soon"' "... says why"
expect 2 "LAB_QUIET_WAIT=-1 lab bisect start" env LAB_QUIET_WAIT=-1 "$LAB" bisect start x
expect 0 "LAB_QUIET_WAIT=5 lab run --dry-run" env LAB_QUIET_WAIT=5 "$LAB" run configs/quick.json \
	--dry-run --out "$T/never"

expect 0 "lab run --kernel baseline --kernel fix=baseline+PATCH --dry-run" "$LAB" run \
	configs/ab-vma-lock.json --kernel baseline \
	--kernel fix=baseline+kernels/patches/6.12/bench-anon-fault-cost.patch --dry-run
has "$T/out" "run order (6 runs, interleaved): baseline fix baseline fix" "... the job's kernels replaced"
has "$T/out" "kernel fix: variant fix, " "... the patched one a variant of its own"
f=$(ls "$LAB_STATE_DIR"/variants/*/fix.json 2>/dev/null | head -1)
[ -n "$f" ] && jq -e '.extends == "baseline" and (.patches[0] | endswith("/bench-anon-fault-cost.patch"))' "$f" >/dev/null
ok $? "... written under STATE/variants/, extending baseline with the patch"
expect 0 "lab ab PATCH --dry-run: the default job with base and patched kernels" "$LAB" ab \
	kernels/patches/6.12/bench-anon-fault-cost.patch --boots 3 --dry-run
has "$T/out" "run order (6 runs, interleaved): baseline patched baseline patched" "... 3 boots a side"
has "$T/out" "timing model quantum" "... under the contention model"
has "$T/out" "workloads: pft page_fault1 page_fault2 page_fault3 memscale mmap_contention" \
	"... the documented workloads"
# A git range: one patch from the merge base, a dirty tree's changes as a snapshot.
g() { git -C "$T/tree" -c user.name=t -c user.email=t@localhost "$@"; }
mkdir -p "$T/tree/mm" && git init -q "$T/tree" && echo 'int x;' >"$T/tree/mm/memory.c" &&
	g add . && g commit -qm base && g tag v1 && echo '/* one */' >>"$T/tree/mm/memory.c" &&
	g commit -qam 'mm: one' && echo '/* two */' >>"$T/tree/mm/memory.c"
# The fake tree's patch is not one of Debian's source: with an empty kernel cache, --dry-run
# has no base tree to check it against (test_kernel_build.sh checks patches against one).
mkdir -p "$T/kcache-empty"
LAB_KERNEL_CACHE="$T/kcache-empty" expect 0 \
	"lab ab v1.. --tree T --dry-run: a range with uncommitted changes" "$LAB" ab v1.. \
	--tree "$T/tree" --dry-run
has "$T/err" "lab ab: v1.. of $T/tree: the diff " "... says the range it measures"
has "$T/err" "plus the tree's uncommitted changes, as snapshot " "... and the snapshot, aloud"
has "$T/out" "run order (16 runs, interleaved): baseline patched baseline patched" "... an A/B, at most 8 boots a side (the default job's)"
has "$T/out" "sequential: rounds of one boot a side until every deciding series is decided, at least 2, at most 8" "... in rounds until decided"
p=$(ls "$LAB_STATE_DIR"/ab/*-snapshot-*.patch 2>/dev/null | head -1)
[ -n "$p" ] && grep -q '^+/\* one \*/' "$p" && grep -q '^+/\* two \*/' "$p"
ok $? "... one patch under STATE/ab/ with the commit's and the tree's changes"
snap=$(basename "$p" .patch | sed 's/.*-snapshot-//')
[ "$(g cat-file -t "$snap" 2>/dev/null)" = commit ]; ok $? "... the snapshot is a commit of the tree"
g diff --quiet HEAD; ok $(( $? == 1 ? 0 : 1 )) "... the tree is left as it was (still dirty)"
LAB_KERNEL_CACHE="$T/kcache-empty" expect 0 "lab ab v1..HEAD~0: a range that ends at a ref" \
	"$LAB" ab v1..HEAD~0 --tree "$T/tree" --dry-run
has "$T/err" "so they are not measured" "... says the uncommitted changes are left out"
g stash -q
expect 2 "lab ab HEAD.. on a clean tree" "$LAB" ab HEAD.. --tree "$T/tree" --dry-run
has "$T/err" "HEAD.. changes nothing in $T/tree (no commits and no uncommitted changes)" "... says so"
expect 2 "lab ab nosuch..HEAD" "$LAB" ab nosuch..HEAD --tree "$T/tree" --dry-run
has "$T/err" "has no commit \"nosuch\"" "... names the ref"
expect 0 "lab run --dry-run configs/quick.json (a kernel given as a glob)" "$LAB" run \
	configs/quick.json --dry-run
grep -Eq '^kernel vmlinuz-[^*?]+: the image /boot/vmlinuz-' "$T/out"
ok $? "... labelled by the image it resolved to, never the glob"

# ---- --version --------------------------------------------------------------------------
expect 0 "lab --version" "$LAB" --version
grep -Eq '^lab [0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$' "$T/out"
ok $? "... prints the version and the commit ($(cat "$T/out"))"
"$LAB" version >"$T/v2"
cmp -s "$T/out" "$T/v2"; ok $? "... the same as lab version"
if git rev-parse --short=12 HEAD >"$T/head" 2>/dev/null; then
	has "$T/out" "$(cat "$T/head")" "... the commit is this checkout's HEAD"
fi

# ---- bash completion (lab/completion/lab.bash: it asks lab itself) ----------------------
comp() {
	bash -c '. lab/completion/lab.bash
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _lab; echo "${COMPREPLY[*]}"' \
		_ "$LAB" "$@"
}
[ "$(comp comp)" = compare ]; ok $? "completion: lab comp<TAB> is compare"
[ "$(comp job st)" = status ]; ok $? "completion: lab job st<TAB> is status"
[ "$(comp compare --fo)" = --format ]; ok $? "completion: lab compare --fo<TAB> is --format"
[ "$(comp job status --so)" = --socket ]; ok $? "completion: lab job status --so<TAB> is --socket"
finish
