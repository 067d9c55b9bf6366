#!/usr/bin/env bash
# suite-order: builds (boots the lab's builds: runs after the tests that do not, run-tests.sh)
# Integration: `lab bisect` on a real kernel git tree.  lab/tests/make-bisect-repo.sh makes a
# repository of 16 commits on Debian's linux-source-6.12 (kept beside the kernel cache, so it is
# made once per machine); one commit plants a slowdown in the anonymous page-fault path, another
# does not build.  The bisection (pft under the deterministic timing model, 2 vCPUs, 2 boots a
# commit) must name exactly the planted commit, verified by its parent, itself and the bad end
# with it reverted, skipping the broken one, in at most log2(16) + 3 builds of the bisection
# proper; ends that do not differ stop with the numbers; bad repositories, refs and ends in
# the wrong order are refused before anything is written; an interrupted bisection resumes.
# Builds are cached by commit in the kernel cache: after the first run on a machine only the
# boots remain.  Named regress-* to run after integration-kernels: on a machine without a
# cache, baseline's build has by then put the files of this repository's first commit in
# ccache (kernels/README.md, "Cache"), so its first build is mostly hits.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
. lab/tests/bisect-fixture.sh
lab=${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-bis.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export LAB_STATE_DIR="${LAB_STATE_DIR:-/var/tmp/numalab-test-state}"
no_qemu() { ! pgrep -f "guest=numalab-.*$LAB_STATE_DIR/libvirt" >/dev/null; }
jb() { jq -e "$2" "$1/bisect.json" >/dev/null; }

t0=$(date +%s)
bisect_fixture "$tmp" bisect-pft 2>"$tmp/repo.err"
ok $? "the test repository: 16 commits on linux-source-6.12 ($(( $(date +%s) - t0 )) s)"
echo "# planted $planted, broken $broken"
# The commit before the planted one: a range without the slowdown.
before=$(git -C "$repo" rev-parse "$planted^")

# ---- refused before anything is written ---------------------------------------------------
refused() { # DESC EXPECTED-TEXT ARGS...
	local desc=$1 text=$2
	shift 2
	$lab bisect start "$@" --out "$tmp/refused" >"$tmp/r.out" 2>"$tmp/r.err"
	local rc=$?
	ok "$(rc_is $rc 2)" "$desc: exit 2"
	has "$tmp/r.err" "$text" "$desc: says why"
	check "$desc: nothing written" test ! -e "$tmp/refused"
}
refused "an unknown good ref" 'has no commit "no-such-ref"' "$tmp/job.json" --good no-such-ref --bad "$last"
refused "ends in the wrong order" "is not an ancestor of --bad" "$tmp/job.json" --good "$last" --bad "$first"
refused "the same commit twice" "are the same commit" "$tmp/job.json" --good "$last" --bad "$last"
sed "s|\"git\": \"$repo\"|\"git\": \"$tmp\"|" "$tmp/bisect-test.json" >"$tmp/not-a-repo.json"
refused "a source that is not a git repository" "is not a git repository" "$tmp/job.json" \
	--variant "$tmp/not-a-repo.json" --good "$first" --bad "$last"
refused "a variant that is not from git" "a git source ({\"git\": REPO}) is needed" "$tmp/job.json" --variant baseline \
	--good "$first" --bad "$last"
refused "a metric of a workload the job lacks" "has no workload memscale" "$tmp/job.json" \
	--metric memscale.run_s --good "$first" --bad "$last"
$lab bisect start "$tmp/job.json" --bad "$last" >/dev/null 2>"$tmp/r.err"
ok "$(rc_is $? 2)" "--good missing: exit 2"
check "lab bisect --help" $lab bisect --help

# ---- ends that do not differ --------------------------------------------------------------
t=$(date +%s)
$lab bisect start "$tmp/job.json" --good "$first" --bad "$before" --boots 2 --threshold 5 \
	--parallel 2 --out "$tmp/same" >"$tmp/same.out" 2>"$tmp/same.err"
rc=$?
echo "# ends alike: $(( $(date +%s) - t )) s"
ok "$(rc_is $rc 3)" "ends that do not differ: exit 3"
has "$tmp/same.out" "answer: no-difference" "ends that do not differ: answer no-difference"
# Two boots a side may leave the bad end inconclusive (icount's boots of one kernel fall in
# modes ~1 % apart, and 2 + 2 boots give a wide interval): both ends are then measured again,
# pooled.  With the bad end alone measured again, CI once saw it inconclusive three times.
check "ends that do not differ: only the ends measured, no commit between" jb "$tmp/same" \
	'.answer == "no-difference" and ([.steps[].role] | all(. == "good-end" or . == "bad-end")) and .culprit == null'
check "ends that do not differ: the reason gives the numbers" jb "$tmp/same" \
	'.steps[-1].change_pct != null and (.steps[-1].reason | test("like the good end"))'
[ $rc = 3 ] || diag "$tmp/same.err"
jq -r '.steps[] | "# \(.role) try \(.try): \(.n) boots, mean \(.mean), \(.reason)"' \
	"$tmp/same/bisect.json" 2>/dev/null

# ---- the bisection ---------------------------------------------------------------------------
t=$(date +%s)
$lab bisect start "$tmp/job.json" --good "$first" --bad "$last" --boots 2 --threshold 5 \
	--parallel 2 --out "$tmp/b" >"$tmp/b.out" 2>"$tmp/b.err"
rc=$?
wall=$(( $(date +%s) - t ))
ok "$(rc_is $rc 0)" "bisection over 16 commits: exit 0 (culprit found)"
[ $rc = 0 ] || { diag "$tmp/b.out"; tail -30 "$tmp/b.err" | diag /dev/stdin; }
sed 's/^/# /' "$tmp/b.out"
check "the culprit is the planted commit" jb "$tmp/b" ".answer == \"found\" and .culprit.sha == \"$planted\""
check "verified: its parent good and itself bad, measured again" jb "$tmp/b" \
	'[.steps[] | select(.phase == "verify" and .role == "parent")][-1].verdict == "good" and
	 [.steps[] | select(.phase == "verify" and .role == "culprit")][-1].verdict == "bad"'
check "verified: the bad end with the culprit reverted is good again" jb "$tmp/b" \
	'.revert == "good" and ([.steps[] | select(.role == "revert")][-1].verdict == "good")'
check "the broken commit was skipped as a build failure" jb "$tmp/b" \
	"[.steps[] | select(.commit.sha == \"$broken\")] | length >= 1 and all(.outcome == \"build-failure\" and .verdict == \"skip\")"
builds=$(jq '[.steps[] | select(.phase != "verify" and .built)] | length' "$tmp/b/bisect.json")
allb=$(jq '.cost.builds' "$tmp/b/bisect.json")
echo "# $builds build(s) in the bisection proper, $allb in all (the revert's included), wall $wall s"
echo "# cost: $(jq -c .cost "$tmp/b/bisect.json")"
check "at most log2(16) + 3 = 7 kernel builds before verifying" test "$builds" -le 7
check "every step says how it was measured and where its report is" jb "$tmp/b" \
	'[.steps[] | select(.outcome == "ok") | .timing == "icount" and (.dir | test("^steps/"))] | all'
check "each step's per-boot samples and interval" jb "$tmp/b" \
	'[.steps[] | select(.outcome == "ok") | ((.samples | length) == .n) and .n >= 2 and .ci_lo != null] | all'
check "the series followed is named" jb "$tmp/b" '.series | test("pft") and test("faults_per_s")'
check "the culprit's .text differs from its parent's" jb "$tmp/b" \
	'[.steps[] | select(.role == "culprit")][-1] | .text_sha256 != null and .text_identical == false'
check "the step reports are lab run reports" test -s "$tmp/b/steps/001-${first:0:12}-good-end/report.json"
check "the culprit says why it moved: culprit_deltas against its parent, or why not" jb "$tmp/b" \
	'(.culprit_deltas.against == "the culprit'"'"'s parent" and .culprit_deltas.deciding == false) or (.culprit_deltas_absent | type == "string")'
$lab bisect log "$tmp/b" >"$tmp/log.txt" 2>&1
check "lab bisect log prints the replayable log" grep -q "^bisect bad $planted" "$tmp/log.txt"
$lab bisect log "$tmp/b" --json >"$tmp/log.json" 2>&1
check "lab bisect log --json prints the result" jq -e '.schema == "numalab.bisect/1" and .culprit.sha != null' "$tmp/log.json"
check "no qemu left after the bisection" no_qemu
# The culprit as a mail: Python's email package reads it, 72 columns, and its reproduce
# command, read back by bash, is this bisection's.
$lab mail "$tmp/b" --to "A Developer <dev@example.org>" --closes 'https://example.org/r/{msgid}' \
	>"$tmp/mail.txt" 2>"$tmp/mail.err"
ok "$(rc_is $? 0)" "lab mail of the bisection: exit 0"
check "... a mail naming the culprit, 72 columns, its reproduce command whole" \
	python3 lab/tests/mail-check.py "$tmp/mail.txt" "${planted:0:12}: pft.faults_per_s" "$tmp/b/bisect.json"
sed -n '/^Subject/p; /^The culprit against/,/^$/p' "$tmp/mail.txt" | diag /dev/stdin

# ---- resume -----------------------------------------------------------------------------------
# The log cut before its last step (the revert check), as if the lab had been stopped there:
# resume measures only what is missing and comes to the same answer.
cp -a "$tmp/b" "$tmp/c"
nb=$(( $(jq '.steps | length' "$tmp/b/bisect.json") - 1 ))
awk -v keep="$nb" '/^bisect / && !/^bisect start/ { if (++k > keep) exit } { print }' "$tmp/b/bisect.log" >"$tmp/c/bisect.log"
$lab bisect resume "$tmp/c" >"$tmp/c.out" 2>"$tmp/c.err"
ok "$(rc_is $? 0)" "an interrupted bisection resumes: exit 0"
has "$tmp/c.err" "resuming: $nb step(s) replayed" "resume replays the recorded steps"
check "resumed: the same culprit, verified again" jb "$tmp/c" \
	".answer == \"found\" and .culprit.sha == \"$planted\" and .revert == \"good\" and (.steps | length) == $((nb + 1))"
same_steps() {
	for d in $(jq -r ".steps[:$nb][] | .dir" "$tmp/b/bisect.json"); do
		cmp -s "$tmp/b/$d/report.json" "$tmp/c/$d/report.json" || return 1
	done
}
check "resumed: the recorded steps were kept, not measured again" same_steps
$lab bisect resume "$tmp/b" >"$tmp/d.out" 2>"$tmp/d.err"
ok "$(rc_is $? 0)" "resuming a finished bisection replays it and measures nothing"
has "$tmp/d.out" "culprit: $planted" "the replayed answer is the same"
check "no qemu left" no_qemu
finish
