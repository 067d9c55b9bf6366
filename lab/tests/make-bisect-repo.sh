#!/usr/bin/env bash
# Makes the kernel git repository `lab bisect`'s integration test bisects: Debian's
# linux-source-6.12 as the first commit, then 15 small commits (comments and documentation)
# among which one plants a slowdown in the anonymous page-fault path (a busy loop of 200
# iterations at the top of do_anonymous_page(): pft's fault rate drops by far more than the
# test's threshold) and one does not build (fixed by the next).  Authors and dates are fixed, so
# the commit names are the same on every machine and the kernel cache's artifacts, keyed by
# commit, are reused from one run to the next.
#
# usage: make-bisect-repo.sh DIR     (prints nothing; DIR is made once, atomically)
# Prints the planted commit's and the broken commit's names on request:
#        make-bisect-repo.sh DIR --describe
set -euo pipefail
dest=$1
tarball=/usr/src/linux-source-6.12.tar.xz
# Bump when the commits below change, so that an old repository is not mistaken for this one.
version=1

describe() {
	git -C "$dest" log --format='%H %s' | awk '
		/numalab bisect test: slow down anonymous faults/ { print "planted " $1 }
		/numalab bisect test: does not build$/ { print "broken " $1 }
		/numalab bisect test: import/ { print "first " $1 }'
	echo "last $(git -C "$dest" rev-parse HEAD)"
}

# made [--describe]: exits when the repository is there (describing it on request).
made() {
	[ -f "$dest/.git/numalab-bisect-repo-$version" ] || return 0
	[ "${1:-}" = --describe ] && describe
	exit 0
}
made "${2:-}"
# One maker at a time (lab/tests/prewarm.sh may be making it while a test asks for it): the
# second waits, then finds it made.
mkdir -p "$(dirname "$dest")"
exec 9>"$dest.lock"
flock 9
made "${2:-}"
[ -f "$tarball" ] || { echo "make-bisect-repo: $tarball missing (apt-get install linux-source-6.12)" >&2; exit 1; }
tmp="$dest.tmp-$$"
rm -rf "$tmp" "$dest"
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
tar -xf "$tarball" -C "$tmp" --strip-components=1
export GIT_AUTHOR_NAME=numalab GIT_AUTHOR_EMAIL=numalab@localhost
export GIT_COMMITTER_NAME=numalab GIT_COMMITTER_EMAIL=numalab@localhost
n=0
commit() {
	n=$((n + 1))
	export GIT_AUTHOR_DATE="2026-01-01T00:$(printf %02d "$n"):00Z" GIT_COMMITTER_DATE="2026-01-01T00:$(printf %02d "$n"):00Z"
	# -f: Debian's top-level .gitignore ignores everything (/* with !/debian/)
	git -C "$tmp" add -A -f
	git -C "$tmp" -c core.autocrlf=false commit -q --no-verify -m "$1"
}
note() { printf '\n/* numalab bisect test: %s */\n' "$2" >>"$tmp/$1"; }
git -C "$tmp" init -q -b main
git -C "$tmp" config core.autocrlf false
git -C "$tmp" config gc.auto 0
# zlib's fastest level for the 80,000 loose objects of the import: object names do not depend
# on it, and the repository is a fixture, never sent anywhere.
git -C "$tmp" config core.compression 1
commit "numalab bisect test: import Debian's linux-source-6.12"
note mm/mmap.c "a comment in mm/mmap.c"; commit "mm: a comment (numalab bisect test)"
mkdir -p "$tmp/Documentation/numalab"
echo "A note for numalab's bisection test." >"$tmp/Documentation/numalab/note-1.txt"
commit "Documentation: a note (numalab bisect test)"
note lib/string.c "a comment in lib/string.c"; commit "lib: a comment (numalab bisect test)"
python3 - "$tmp/mm/memory.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
fn = s.index("static vm_fault_t do_anonymous_page(")
mark = "\t/* File mapping without ->vm_ops ? */\n"
at = s.index(mark, fn)
slow = ("\t/* numalab bisect test: a planted slowdown of every anonymous fault. */\n"
        "\t{\n\t\tvolatile unsigned int numalab_i;\n\n"
        "\t\tfor (numalab_i = 0; numalab_i < 200; numalab_i++)\n\t\t\t;\n\t}\n\n")
open(p, "w").write(s[:at] + slow + s[at:])
PY
commit "numalab bisect test: slow down anonymous faults"
note kernel/exit.c "a comment in kernel/exit.c"; commit "exit: a comment (numalab bisect test)"
echo "Another note." >"$tmp/Documentation/numalab/note-2.txt"; commit "Documentation: another note (numalab bisect test)"
printf '\nint numalab_bisect_test_broken = ;\n' >>"$tmp/kernel/fork.c"
commit "numalab bisect test: does not build"
python3 - "$tmp/kernel/fork.c" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
open(p, "w").write(s.replace("\nint numalab_bisect_test_broken = ;\n", ""))
PY
commit "fork: build again (numalab bisect test)"
for i in 9 10 11 12 13 14 15; do
	case $((i % 3)) in
	0) note mm/mmap.c "comment $i"; commit "mm: comment $i (numalab bisect test)" ;;
	1) echo "note $i" >"$tmp/Documentation/numalab/note-$i.txt"; commit "Documentation: note $i (numalab bisect test)" ;;
	2) note lib/string.c "comment $i"; commit "lib: comment $i (numalab bisect test)" ;;
	esac
done
touch "$tmp/.git/numalab-bisect-repo-$version"
mv "$tmp" "$dest"
trap - EXIT
[ "${2:-}" = --describe ] && describe
exit 0
