#!/usr/bin/env bash
# TAP test: `lab rerun` refuses hostile bundles before it runs anything.  lab/tests/make-
# hostile-bundles.py writes one a case (an altered member, one not listed, one listed but
# absent, no manifest, a bad one, path traversal, an absolute name, a symlink, a member over
# the limit, a truncated archive, not gzip, another lab's bundle) and what each error must say.
# Each is re-run into a directory inside a sentinel directory: exit 2, the error says why, the
# output directory is gone and the sentinel holds nothing.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
lab=$B/lab
T=$(mktemp -d /tmp/numalab-test-bundle-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ -x "$lab" ] || { ok 1 "$lab is built (run make first)"; finish; }
sentinel=$T/sentinel
mkdir -p "$T/bundles" "$sentinel"
python3 lab/tests/make-hostile-bundles.py "$T/bundles"
ok $? "the hostile bundles are written"

while IFS=$'\t' read -r name says; do
	LAB_STATE_DIR=$T/state "$lab" rerun "$T/bundles/$name.tar.gz" --out "$sentinel/out" \
		>"$T/out" 2>"$T/err"
	ok "$(rc_is $? 2)" "$name: refused, exit 2"
	has "$T/err" "$says" "$name: the error says: ${says:-(anything)}"
	left=$(find "$sentinel" -mindepth 1 | head -3 | tr '\n' ' ')
	ok "$([ -z "$left" ] && echo 0 || echo 1)" "$name: nothing left${left:+: $left}"
	check "$name: nothing run (no state written)" test ! -e "$T/state/runs"
	rm -rf "$sentinel"
	mkdir "$sentinel"
done <"$T/bundles/cases.tsv"
check "nothing written where the absolute member points" test ! -e /tmp/abs-x
finish
