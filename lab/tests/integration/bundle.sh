#!/usr/bin/env bash
# suite-order: builds (boots the lab's builds: runs after the tests that do not, run-tests.sh)
# suite-lane: 2 (beside the other builds tests, once the prewarm built QEMU: run-tests.sh;
# 205 s on a new 2-core machine, 7412f5e: the longest go first)
# Integration: results that travel (`lab bundle`, `lab rerun`, run/bundle.h).
#   - An A/B of a patch under quantum (`lab ab`: the patch is test-fault-mmap-lock.patch on
#     baseline, one boot a side) is bundled: the job as run, both variants with "extends"
#     resolved, the patches and fragments, each build's .config, the topology, the seeds; no
#     path of this machine in the job, no build artifact in the archive.
#   - `lab rerun BUNDLE` runs the same boots again and every figure of every boot comes out
#     equal to the last digit (exit 0), with the original's seeds.
#   - An icount report is re-run straight from its directory (bundled on the way): identical.
#   - `lab mail REPORT --bundle FILE` gives the re-run as its reproduce step.
#   - A fix tried against the finding (`lab rerun BUNDLE --patch FIX`): only the fixed kernel
#     boots, with the original's seeds, judged against the base's original boots; its
#     follow-up mail says "[... on fix]" and threads under the finding's.
# The kernels come from the caches (lab/tests/prewarm.sh builds them; alone, lab builds them).
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../../.."
. lab/tests/lib.sh
it_init
d=lab/tests/data

# --- an A/B of a patch under quantum, bundled ---------------------------------------------------
t0=$(date +%s)
$lab ab $d/kernels/test-fault-mmap-lock.patch --job $d/jobs/quantum-ab.json --boots 1 \
	--out "$tmp/ab" >"$tmp/ab.out" 2>"$tmp/ab.err"
rc=$?
ok "$([ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 3 ] && echo 0 || echo 1)" \
	"lab ab under quantum, one boot a side: a decision (exit $rc, $(( $(date +%s) - t0 )) s)"
explain_runs "$tmp/ab"
check "the report keeps the job as run, its hash the job's" jq -e \
	'.job.as_run.kernels | length == 2' "$tmp/ab/report.json"
$lab bundle "$tmp/ab" -o "$tmp/ab.tar.gz" >"$tmp/bundle.out" 2>"$tmp/bundle.err"
ok $? "lab bundle: exit 0"
has "$tmp/bundle.out" "2 boot(s) under quantum with their seeds" "... it says what it holds"
diag "$tmp/bundle.out"
tar tzf "$tmp/ab.tar.gz" >"$tmp/members" 2>/dev/null
ok $? "the bundle is a gzip-compressed tar (tar tzf lists it)"
for m in MANIFEST.json job.json report.json kernels/baseline.json topologies/4s-8c.json \
	kernels/resolved/baseline.config; do
	check "... member $m" grep -qx "$m" "$tmp/members"
done
check "... the patch under test" grep -q '^kernels/patches/[0-9]*-test-fault-mmap-lock.patch$' "$tmp/members"
check "... no build artifact (bzImage, vmlinux, qcow2, initrd)" \
	bash -c "! grep -E 'bzImage|vmlinux|qcow2|initr' '$tmp/members'"
tar xzf "$tmp/ab.tar.gz" -C "$tmp" job.json MANIFEST.json 2>/dev/null
check "the job names only members: no absolute path in job.json" \
	bash -c "! grep -q '\"/' '$tmp/job.json'"
check "the manifest's seeds are the report's" jq -e -n --slurpfile m "$tmp/MANIFEST.json" \
	--slurpfile r "$tmp/ab/report.json" '$m[0].seeds == [$r[0].runs[].seed]'
echo "# bundle: $(stat -c %s "$tmp/ab.tar.gz") bytes, $(wc -l <"$tmp/members") members"

# --- re-run: every figure equal ----------------------------------------------------------------
t0=$(date +%s)
$lab rerun "$tmp/ab.tar.gz" --out "$tmp/again" >"$tmp/again.out" 2>"$tmp/again.err"
ok "$(rc_is $? 0)" "lab rerun of the bundle: exit 0 ($(( $(date +%s) - t0 )) s)"
has "$tmp/again.out" "identical: " "... every figure of every boot equal to the original's"
grep '^identical\|^DIFFERS\|^what ran' "$tmp/again.out" | sed 's/^/# /'
check "... with the original's seeds" jq -e -n --slurpfile a "$tmp/ab/report.json" \
	--slurpfile b "$tmp/again/report.json" '[$a[0].runs[].seed] == [$b[0].runs[].seed]'
check "... its inputs kept beside its report" test -s "$tmp/again/bundle/job.json"
$lab rerun "$tmp/ab.tar.gz" --out "$tmp/again" >/dev/null 2>"$tmp/used.err"
ok "$(rc_is $? 2)" "a re-run into a directory that is not empty: exit 2"

# --- an icount report re-run from its directory --------------------------------------------------
$lab run $d/jobs/icount-one.json --out "$tmp/ic" >/dev/null 2>"$tmp/ic.err"
ok $? "an icount job, one boot: exit 0"
t0=$(date +%s)
$lab rerun "$tmp/ic" --out "$tmp/ic-again" >"$tmp/ic-again.out" 2>"$tmp/ic-again.err"
ok "$(rc_is $? 0)" "lab rerun REPORT under icount: exit 0 ($(( $(date +%s) - t0 )) s)"
has "$tmp/ic-again.err" "bundled as" "... bundled on the way"
has "$tmp/ic-again.out" "identical: " "... identical to the last digit"

# --- the mail's reproduce step ---------------------------------------------------------------------
$lab mail "$tmp/ab" --bundle ab.tar.gz >"$tmp/mail.txt" 2>"$tmp/mail.err"
rc=$?
ok "$(rc_is $rc 0)" "lab mail REPORT --bundle: exit 0"
has "$tmp/mail.txt" "lab rerun ab.tar.gz" "... its reproduce step re-runs the bundle"
python3 lab/tests/mail-check.py "$tmp/mail.txt" "[numalab] " >"$tmp/mail-check.out" 2>&1
ok $? "... it parses with Python's email package, body lines at most 72 columns"

# --- a fix tried against the finding -----------------------------------------------------------
# The "fix" is the test patch itself put on baseline (--on baseline): the same kernel as the
# A/B's B side, so the cache has it and the trial measures the finding again, seeds and all.
t0=$(date +%s)
$lab rerun "$tmp/ab.tar.gz" --patch $d/kernels/test-fault-mmap-lock.patch --on baseline \
	--out "$tmp/fix" >"$tmp/fix.out" 2>"$tmp/fix.err"
rc=$?
ok "$([ $rc = 0 ] || [ $rc = 1 ] || [ $rc = 3 ] && echo 0 || echo 1)" \
	"lab rerun --patch: a verdict on the fix (exit $rc, $(( $(date +%s) - t0 )) s)"
grep -E '^(STILL REGRESSED|fixed|undecided):' "$tmp/fix.out" | sed 's/^/# /'
check "... fix.json: the finding, the fix's subject, a verdict" jq -e \
	'.schema == "numalab.fix/1" and .finding.a == "baseline" and .finding.b == "baseline" and (.fix.subject | test("per-VMA lock")) and (.verdict | IN("still-regressed", "fixed", "undecided"))' \
	"$tmp/fix/fix/fix.json"
check "... its A/B report: baseline's original boots against baseline-fix's" jq -e \
	'[.runs[].kernel.label] == ["baseline", "baseline-fix"]' "$tmp/fix/fix/report.json"
check "... the fixed kernel booted with baseline's original seed" jq -e -n \
	--slurpfile a "$tmp/ab/report.json" --slurpfile f "$tmp/fix/fix/report.json" \
	'[$a[0].runs[] | select(.kernel.label == "baseline") | .seed] == [$f[0].runs[] | select(.kernel.label == "baseline-fix") | .seed]'
check "... the same kernel as the A/B's patched side (the cache's)" jq -e -n \
	--slurpfile a "$tmp/ab/report.json" --slurpfile f "$tmp/fix/fix/report.json" \
	'([$a[0].runs[] | select(.kernel.label == "patched") | .kernel.image_sha256][0]) == ([$f[0].runs[] | select(.kernel.label == "baseline-fix") | .kernel.image_sha256][0])'
$lab mail "$tmp/fix/fix" --in-reply-to '<ab-finding@numalab>' -o "$tmp/fix.mbox" 2>"$tmp/fixmail.err"
ok $? "lab mail of the fix trial: exit 0"
python3 lab/tests/mail-check.py "$tmp/fix.mbox" "on fix]" >"$tmp/fixmail-check.out" 2>&1
ok $? "... a follow-up whose subject says what became of the fix ($(grep -m1 '^Subject:' "$tmp/fix.mbox" | cut -c1-60))"
has "$tmp/fix.mbox" "In-Reply-To: <ab-finding@numalab>" "... threaded under the finding's mail"
check "no QEMU left behind" no_qemu
finish
