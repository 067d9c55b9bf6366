#!/usr/bin/env bash
# TAP test: hostile bundle archives through util/archive's reader.  lab/tests/make-hostile-
# archives.py writes one archive a case (path traversal, absolute names, symlinks, hard links,
# devices, a fifo, a member over the limit, too many members, a duplicate, truncation, a corrupt
# gzip stream, control characters in a name, ...) and in cases.tsv the exit status each must
# give and what its error must say.  Each is extracted by `test_archive --extract` into a
# directory inside a sentinel directory: a refused one exits 2 with an error that names the
# member and why, the target directory is gone and the sentinel holds nothing (no file written
# beside the target, whatever the archive names); the good one is extracted.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
B=${B:-build}
bin=$B/tests/test_archive
T=$(mktemp -d /tmp/numalab-test-archive-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ -x "$bin" ] || { ok 1 "$bin is built (run make first)"; finish; }
sentinel=$T/sentinel target=$T/sentinel/target
mkdir -p "$T/archives" "$sentinel"
python3 lab/tests/make-hostile-archives.py "$T/archives" --max-member 4096 --abs "$sentinel/abs-x"
ok $? "the hostile archives are written"

while IFS=$'\t' read -r name want says args; do
	# shellcheck disable=SC2086  # args are options: split on purpose
	expect "$want" "$name: $([ "$want" = 2 ] && echo refused || echo extracted)" \
		"$bin" --extract "$T/archives/$name.tar.gz" "$target" $args
	if [ "$want" = 2 ]; then
		has "$T/err" "$says" "$name: the error says: $says"
		check "$name: no target directory left" test ! -e "$target"
	else
		check "$name: the members' bytes" cmp "$target/run-0/console.log" <(printf 'boot\n')
		rm -rf "$target"
	fi
	left=$(find "$sentinel" -mindepth 1 | head -3 | tr '\n' ' ')
	ok "$([ -z "$left" ] && echo 0 || echo 1)" "$name: nothing beside the target${left:+: $left}"
	rm -rf "$sentinel"
	mkdir "$sentinel"
done <"$T/archives/cases.tsv"
finish
