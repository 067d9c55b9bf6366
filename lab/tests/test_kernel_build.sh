#!/usr/bin/env bash
# Host test of the kernel build pipeline (lab/builder/kernel.c, builder/kernel_source.c, builder/kernel_make.c) on a fake
# kernel tree (lab/tests/data/fakekernel: a Makefile with tinyconfig/olddefconfig/bzImage), so
# that every path runs in seconds: tarball over file:// with sha256 (libcurl), a local git
# tree, patches that apply or not, the option check, cache hits and keys, a cached image
# truncated or altered (found by its sha256, rebuilt), seeding a variant's
# O= tree from a sibling, a failing build (log tail, no artifact), an interrupted build, and
# `lab run` recording a build-failure without booting anything; a git source built from one
# checkout per variant, incrementally across commits (lab/tests/data/fakekernel-c: real C, an
# ELF vmlinux whose .text sha256 the artifact records).
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. lab/tests/lib.sh
root=$(pwd)
lab=$root/${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-kb.XXXXXX)
trap "rm -rf $tmp" EXIT; [ -n "${KEEP:-}" ] && trap - EXIT
export LAB_KERNEL_CACHE="$tmp/cache"
build() { "$lab" kernel build "$tmp/v/$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"; }

# The fake source as a tarball (top directory stripped like Debian's) and as a git tree.
mkdir -p "$tmp/v" "$tmp/src"
cp -r lab/tests/data/fakekernel "$tmp/src/linux-fake"
tar -C "$tmp/src" -cJf "$tmp/linux-fake.tar.xz" linux-fake
sha=$(sha256sum "$tmp/linux-fake.tar.xz" | cut -d' ' -f1)
git -C "$tmp/src/linux-fake" init -q && git -C "$tmp/src/linux-fake" add -A &&
	git -C "$tmp/src/linux-fake" -c user.name=t -c user.email=t@t commit -qm fake &&
	git -C "$tmp/src/linux-fake" tag v-fake
cat >"$tmp/v/good.patch" <<'EOF'
--- a/mm/Kconfig
+++ b/mm/Kconfig
@@ -1,5 +1,6 @@
 config SPLIT_PTE_PTLOCKS
-	def_bool y
+	bool "Split PTE locks"
+	default y
 	depends on MMU
 
 config PER_VMA_LOCK
EOF
cat >"$tmp/v/bad.patch" <<'EOF'
--- a/mm/Kconfig
+++ b/mm/Kconfig
@@ -1,3 +1,3 @@
 context that
-is not
+will never be
 there
EOF
cat >"$tmp/v/missing.patch" <<'EOF'
--- a/mm/nothere.c
+++ b/mm/nothere.c
@@ -1,1 +1,1 @@
-a
+b
EOF
printf 'CONFIG_A=y\n' >"$tmp/v/a.config"
printf 'CONFIG_A=y\n# CONFIG_BASE is not set\n' >"$tmp/v/b.config"
printf '# a comment\nCONFIG_NOT_STICKY=y\n' >"$tmp/v/sticky.config"
printf 'CONFIG_FAIL_BUILD=y\n' >"$tmp/v/fail.config"
printf 'CONFIG_SLOW_BUILD=y\n' >"$tmp/v/slow.config"
printf 'CONFIG_A=y\nnonsense\n' >"$tmp/v/malformed.config"
url() { printf '{"url": "file://%s", "sha256": "%s"}' "$tmp/linux-fake.tar.xz" "${1:-$sha}"; }
variant() { # NAME SOURCE PATCHES(json list) FRAGMENTS(json list)
	printf '{"description": "fake %s", "source": %s, "patches": %s, "config": %s}\n' \
		"$1" "$2" "$3" "$4" >"$tmp/v/$1.json"
}
variant one "$(url)" '["good.patch"]' '["a.config"]'
variant two "$(url)" '["good.patch"]' '["a.config", "b.config"]'
variant sticky "$(url)" '["good.patch"]' '["sticky.config"]'
variant broken "$(url)" '["good.patch"]' '["a.config", "fail.config"]'
variant slow "$(url)" '["good.patch"]' '["slow.config"]'
variant badpatch "$(url)" '["good.patch", "bad.patch"]' '["a.config"]'
variant nofile "$(url)" '["missing.patch"]' '["a.config"]'
variant badsha "$(url 0000000000000000000000000000000000000000000000000000000000000000)" '[]' '["a.config"]'
variant malformed "$(url)" '[]' '["malformed.config"]'
variant fromgit "{\"git\": \"$tmp/src/linux-fake\", \"ref\": \"v-fake\"}" '["good.patch"]' '["a.config"]'
variant badref "{\"git\": \"$tmp/src/linux-fake\", \"ref\": \"no-such-ref\"}" '[]' '["a.config"]'
variant nofrag "$(url)" '[]' '["does-not-exist.config"]'
psha=$(sha256sum "$tmp/v/good.patch" | cut -d' ' -f1)
variant urlpatch "$(url)" "[{\"url\": \"file://$tmp/v/good.patch\", \"sha256\": \"$psha\"}]" '["a.config"]'
printf -- '--- a/mm/Kconfig\n+++ b/mm/Kconfig\n@@ -5,2 +5,3 @@\n config PER_VMA_LOCK\n \tdef_bool y\n+\tdepends on MMU\n' >"$tmp/v/second.patch"
# An mbox holding a series of two patches (as git format-patch --stdout writes it).
{ printf 'From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\nFrom: t <t@t>\nSubject: [PATCH 1/2] one\n\n---\n'
  cat "$tmp/v/good.patch"; printf -- '-- \n2.39.5\n\n'
  printf 'From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\nFrom: t <t@t>\nSubject: [PATCH 2/2] two\n\n---\n'
  cat "$tmp/v/second.patch"; printf -- '-- \n2.39.5\n'; } >"$tmp/v/series.mbox"
variant mbox "$(url)" '["series.mbox"]' '["b.config"]'
printf 'CONFIG_A=y\nCONFIG_PVH=y\n' >"$tmp/v/pvh.config"
variant pvh "$(url)" '["good.patch"]' '["pvh.config"]'
# The URL patch second: a series that starts with good.patch would start from one's tree, where
# that patch is already in, and need no fetch.
variant urlpatch2 "$(url)" "[\"second.patch\", {\"url\": \"file://$tmp/v/good.patch\", \"sha256\": \"$psha\"}]" '["a.config"]'

build one; ok "$(rc_is $? 0)" "build from a file:// tarball with a patch: exit 0"
img=$(sed -n 's/^image: //p' "$tmp/one.out")
check "the image is in an artifact directory of the cache" test -f "$img" -a "$(dirname "$(dirname "$img")")" = "$tmp/cache/artifacts"
check "the fragment reached the build" grep -qx 'CONFIG_A=y' "$img"
check "artifact has config, build.log, meta.json" test -s "$(dirname "$img")/config" -a -s "$(dirname "$img")/build.log" -a -s "$(dirname "$img")/meta.json"
check "meta.json names source, patch and compiler" jq -e '.variant == "one" and (.source | startswith("tarball:sha256:")) and (.patches | length == 1) and (.compiler | test("gcc"))' "$(dirname "$img")/meta.json"
check "an empty vmlinux: no .text sha256, and the build still succeeds" bash -c "jq -e 'has(\"text_sha256\") | not' '$(dirname "$img")/meta.json' && grep -q 'no .text hash' '$tmp/one.err' && ! grep -q '^text:' '$tmp/one.out'"
check "the download is kept by its sha256" test -f "$tmp/cache/downloads/$sha"
check "the patch was applied" bash -c "grep -q 'bool \"Split PTE locks\"' $tmp/cache/src/*/mm/Kconfig"
# The image a build boots (kconfig_boot_image): its vmlinux with the PVH entry point, else
# its bzImage; the artifact keeps that one, and `lab kernel path` names it.
check "without CONFIG_PVH the artifact's image is the bzImage" bash -c "[ '${img##*/}' = bzImage ] && [ ! -e '$(dirname "$img")/vmlinux' ]"
build pvh; ok "$(rc_is $? 0)" "a variant with CONFIG_PVH=y builds"
pimg=$(sed -n 's/^image: //p' "$tmp/pvh.out")
check "with CONFIG_PVH=y the artifact's image is the vmlinux, and no bzImage" bash -c "[ '${pimg##*/}' = vmlinux ] && [ -f '$pimg' ] && [ ! -e '$(dirname "$pimg")/bzImage' ]"
check "meta.json records the vmlinux's sha256" bash -c "[ \"\$(jq -r .image_sha256 '$(dirname "$pimg")/meta.json')\" = \"\$(sha256sum '$pimg' | cut -d' ' -f1)\" ]"
check "lab kernel path names the vmlinux (a cache hit)" bash -c "[ \"\$('$lab' kernel path '$tmp/v/pvh.json' 2>/dev/null)\" = '$pimg' ]"
check "progress: fetching, applying, configuring, building" bash -c "grep -q fetching $tmp/one.err && grep -q 'applying.*good.patch' $tmp/one.err && grep -q configuring $tmp/one.err && grep -q 'building bzImage' $tmp/one.err"
check "the steps make -n counted before the build are the 3 it ran" grep -Eq 'one: built in [0-9]+ s \(3 steps; make -n counted 3\)' "$tmp/one.err"
build one; ok "$(rc_is $? 0)" "second build: exit 0"
check "second build is a cache hit" grep -q '^one: cached ' "$tmp/one.out"
check "same image" test "$(sed -n 's/^image: //p' "$tmp/one.out")" = "$img"
check "lab kernel path" test "$("$lab" kernel path "$tmp/v/one.json")" = "$img"
check "--force rebuilds" bash -c "'$lab' kernel build --force '$tmp/v/one.json' 2>/dev/null | grep -q '^one: built '"
# A cached bzImage truncated or altered: found by the sha256 stored with it, never handed out,
# rebuilt.  The same check guards every kernel a `lab run` boots (kernel.c: lookup).
meta=$(dirname "$img")/meta.json
intact() { test "$(jq -r .image_sha256 "$meta")" = "$(sha256sum <"$img" | cut -c1-64)"; }
check "meta.json records the bzImage's sha256" intact
truncate -s 5 "$img"
"$lab" kernel path "$tmp/v/one.json" >"$tmp/path.out" 2>&1
ok "$([ $? != 0 ] && ! grep -qx "$img" "$tmp/path.out" && echo 0 || echo 1)" "a truncated cached bzImage is not handed out (lab kernel path fails)"
build one; ok "$(rc_is $? 0)" "... the build exits 0"
has "$tmp/one.err" "does not match its recorded sha256 (truncated or altered); rebuilding it" "... saying the cached image does not match its sha256"
check "... and builds it again (not a cache hit)" grep -q '^one: built ' "$tmp/one.out"
check "... in the same place, whole" bash -c "test \"\$(sed -n 's/^image: //p' '$tmp/one.out')\" = '$img'"
check "... matching its sha256 again" intact
printf 'X' | dd of="$img" bs=1 seek=3 conv=notrunc status=none
build one; ok "$(rc_is $? 0)" "a cached bzImage altered in place (same size): the build exits 0"
check "... detected and built again" bash -c "grep -q 'does not match its recorded sha256' '$tmp/one.err' && grep -q '^one: built ' '$tmp/one.out'"
check "... matching its sha256 again" intact

build two; ok "$(rc_is $? 0)" "a second variant of the same source: exit 0"
check "it starts from the first one's O= tree" grep -q "starting from one's build tree" "$tmp/two.err"
check "a different config gives a different artifact" test "$(sed -n 's/^image: //p' "$tmp/two.out")" != "$img"
check "its fragment wins over the earlier one" bash -c "grep -qx '# CONFIG_BASE is not set' \"\$(sed -n 's/^image: //p' $tmp/two.out)\""

build sticky; ok "$(rc_is $? 2)" "an option that does not stick: exit 2"
check "names option, wanted, got and fragment line" grep -q "CONFIG_NOT_STICKY: wanted y, got n (absent: dependencies not met) ($tmp/v/sticky.config:2)" "$tmp/sticky.err"

arts=$(ls "$tmp/cache/artifacts" | wc -l)
build broken; ok "$(rc_is $? 3)" "a failing build: exit 3"
check "the log tail is shown" grep -q 'error: CONFIG_FAIL_BUILD is set' "$tmp/broken.err"
check "the failed log is kept in logs/" bash -c "grep -q 'CONFIG_FAIL_BUILD is set' $tmp/cache/logs/broken-*.log"
check "no artifact for it" test "$(ls "$tmp/cache/artifacts" | wc -l)" = "$arts"
check "no half artifact" bash -c "! ls -d $tmp/cache/artifacts/.tmp-* 2>/dev/null"

build badpatch; ok "$(rc_is $? 2)" "a patch that does not apply: exit 2"
check "names the patch and the failing file" grep -q "patches\[1\] $tmp/v/bad.patch does not apply: mm/Kconfig fails" "$tmp/badpatch.err"
build nofile; ok "$(rc_is $? 2)" "a patch for a missing file: exit 2"
check "names that file" grep -q "missing.patch does not apply: mm/nothere.c fails" "$tmp/nofile.err"
check "no half-patched source left" bash -c "! ls -d $tmp/cache/src/.tmp-* 2>/dev/null"

build badsha; ok "$(rc_is $? 2)" "a tarball with the wrong sha256: exit 2"
check "says which sha256 it got and wanted" grep -q "sha256 is $sha, expected 0000" "$tmp/badsha.err"
build malformed; ok "$(rc_is $? 2)" "a malformed fragment: exit 2"
check "names fragment and line" grep -q "malformed.config: line 2: expected CONFIG_NAME=VALUE" "$tmp/malformed.err"
build nofrag; ok "$(rc_is $? 2)" "a fragment that does not exist: exit 2"
check "names the variant file and JSON path" grep -q "nofrag.json: config\[0\]: cannot read" "$tmp/nofrag.err"

# A patch by URL is known by its sha256: same bytes as good.patch, so the same recipe as
# "one": a cache hit that never needs to fetch it.
build urlpatch; ok "$(rc_is $? 0)" "a patch given by file:// URL and sha256: exit 0"
check "same bytes as the local patch: the artifact is shared" grep -q '^urlpatch: cached ' "$tmp/urlpatch.out"
check "a cache hit does not fetch the patch" test ! -e "$tmp/cache/downloads/$psha"
build urlpatch2; ok "$(rc_is $? 0)" "a new series with a URL patch: exit 0"
check "the URL patch was fetched and kept by its sha256" test -f "$tmp/cache/downloads/$psha"
check "both patches applied" bash -c "grep -l 'Split PTE locks' $tmp/cache/src/*/mm/Kconfig | xargs grep -l 'depends on MMU' | xargs grep -c 'depends on MMU' | grep -q 2"
build mbox; ok "$(rc_is $? 0)" "a series given as one mbox: exit 0"
check "both of its patches applied" bash -c "grep -l 'Split PTE locks' $tmp/cache/src/*/mm/Kconfig | xargs grep -c 'depends on MMU' | grep -q 2"
build fromgit; ok "$(rc_is $? 0)" "build from a local git tree at a tag: exit 0"
check "the source identity is the commit" bash -c "jq -e '.source == \"git:$(git -C "$tmp/src/linux-fake" rev-parse HEAD)\"' \"\$(dirname \"\$(sed -n 's/^image: //p' $tmp/fromgit.out)\")/meta.json\""
build badref; ok "$(rc_is $? 2)" "a git ref that does not exist: exit 2"
check "names the ref" grep -q 'has no commit "no-such-ref"' "$tmp/badref.err"

# A git source builds in one checkout per variant (src/git-HEX), and the variant's O= tree
# keeps its objects from commit to commit: lab/tests/data/fakekernel-c compiles two C files
# like Kbuild (an object only when its source is newer, logged in O/rebuilt.log) into an ELF
# vmlinux whose .text the lab hashes.  c2 changes the code of mm/b.c, c3 only its comment, c4 a
# Kconfig file.
repo=$tmp/src/linux-c
cp -r lab/tests/data/fakekernel-c "$repo"
g() { git -C "$repo" -c user.name=t -c user.email=t@t "$@"; }
g init -q && g add -A && g commit -qm c1 && g tag c1 &&
	sed -i 's/return x + 1;/return x * 3;/' "$repo/mm/b.c" && g commit -qam c2 && g tag c2 &&
	sed -i 's|^/\* b \*/$|/* b, reworded */|' "$repo/mm/b.c" && g commit -qam c3 && g tag c3 &&
	printf '\thelp\n\t  The base.\n' >>"$repo/mm/Kconfig" && g commit -qam c4 && g tag c4
refs_before=$(g show-ref)
untouched() { test -z "$(g status --porcelain)" && test "$(g worktree list | wc -l)" = 1 &&
	test "$(g show-ref)" = "$refs_before"; }
# build_at VARIANT REF [PATCHES]: the variant at that ref; its output also kept as VARIANT-REF.*
build_at() {
	variant "$1" "{\"git\": \"$repo\", \"ref\": \"$2\"}" "${3:-[]}" '["a.config"]'
	build "$1"; local rc=$?
	cp "$tmp/$1.out" "$tmp/$1-$2.out"; cp "$tmp/$1.err" "$tmp/$1-$2.err"
	return $rc
}
image_of() { sed -n 's/^image: //p' "$tmp/$1.out"; }
meta_of() { jq -r ".$2 // \"\"" "$(dirname "$(image_of "$1")")/meta.json"; }
checkout_of() { printf '%s/src/git-%s' "$tmp/cache" "$(printf 'git-checkout\n%s\n%s' "$(realpath "$repo")" "$1" | sha256sum | cut -c1-16)"; }
co=$(checkout_of track)
obj=$co/O-track

build_at track c1; ok "$(rc_is $? 0)" "git source at c1: exit 0"
check "its checkout is src/git-<sha256 of repository and variant>" test -f "$co/.git/HEAD"
check "the checkout is at c1" test "$(git -C "$co" rev-parse HEAD)" = "$(g rev-parse c1)"
check "it shares the repository's objects" grep -qx "$(realpath "$repo")/.git/objects" "$co/.git/objects/info/alternates"
check "progress: cloning once, checking out the commit" bash -c "grep -q 'cloning .*once per variant' '$tmp/track-c1.err' && grep -q 'checking out [0-9a-f]\{12\}' '$tmp/track-c1.err'"
check "a full build compiled both files" test "$(sort "$obj/rebuilt.log" | tr '\n' ' ')" = "mm/a.o mm/b.o "
check "the O= tree's marker is the checkout's key" test "$(cat "$obj/.numalab-src")" = "$(basename "$co")"
check "configured once: tinyconfig, then olddefconfig" test "$(tr '\n' ' ' <"$obj/configured.log")" = "tinyconfig olddefconfig "
t1=$(meta_of track-c1 text_sha256)
check "meta.json has the sha256 of vmlinux's .text" bash -c "[[ '$t1' =~ ^[0-9a-f]{64}$ ]]"
check "lab kernel build prints it" grep -qx "text: $t1" "$tmp/track-c1.out"
objcopy -O binary --only-section=.text "$obj/vmlinux" "$tmp/text.bin"
check "it is the sha256 of the .text that objcopy dumps" test "$(sha256sum <"$tmp/text.bin" | cut -c1-64)" = "$t1"
a_mtime=$(stat -c %y "$obj/mm/a.o")

build_at track c2; ok "$(rc_is $? 0)" "the same variant at c2: exit 0"
check "the same checkout, not cloned again" bash -c "! grep -q cloning '$tmp/track-c2.err'"
check "the checkout is at c2" test "$(git -C "$co" rev-parse HEAD)" = "$(g rev-parse c2)"
check "the O= tree was kept: an incremental build" grep -q 'incremental build' "$tmp/track-c2.err"
check "only the changed file was compiled again" test "$(tail -n +3 "$obj/rebuilt.log" | tr '\n' ' ')" = "mm/b.o "
check "no Kconfig file changed: the .config was kept, not configured again" bash -c "grep -q 'configuration kept' '$tmp/track-c2.err' && test \$(wc -l <'$obj/configured.log') = 2"
check "the untouched file's object kept its mtime" test "$(stat -c %y "$obj/mm/a.o")" = "$a_mtime"
check "two artifacts with different images" bash -c "test -f '$(image_of track-c1)' -a -f '$(image_of track-c2)' && ! cmp -s '$(image_of track-c1)' '$(image_of track-c2)'"
check "each names its commit as the source" test "$(meta_of track-c1 source) $(meta_of track-c2 source)" = "git:$(g rev-parse c1) git:$(g rev-parse c2)"
t2=$(meta_of track-c2 text_sha256)
check "different code, a different .text sha256" bash -c "[[ '$t2' =~ ^[0-9a-f]{64}$ ]] && test '$t2' != '$t1'"
check "the repository is untouched: clean, one worktree, the same refs" untouched

cp "$tmp/track-c1.out" "$tmp/track-c1-first.out"
build_at track c1; ok "$(rc_is $? 0)" "c1 again: exit 0"
check "c1 again is a cache hit with the same image" bash -c "grep -q '^track: cached ' '$tmp/track-c1.out' && test '$(image_of track-c1-first)' = '$(image_of track-c1)'"
check "a cache hit reads the .text sha256 back from meta.json" grep -qx "text: $t1" "$tmp/track-c1.out"
build_at track c3; ok "$(rc_is $? 0)" "c3, a comment-only change: exit 0"
check "another artifact, the same .text sha256 as c2" bash -c "test '$(image_of track-c3)' != '$(image_of track-c2)' -a '$(meta_of track-c3 text_sha256)' = '$t2'"
build_at track c4; ok "$(rc_is $? 0)" "c4, a change to mm/Kconfig: exit 0"
check "a changed Kconfig file is configured again" bash -c "grep -q 'configuring (' '$tmp/track-c4.err' && test \$(wc -l <'$obj/configured.log') = 4"
check "... and its .config is the artifact's" cmp -s "$obj/.config" "$(dirname "$(image_of track-c4)")/config"
rm "$obj/include/config/auto.conf.cmd"
"$lab" kernel build --force "$tmp/v/track.json" >"$tmp/nocmd.out" 2>"$tmp/nocmd.err"
check "without auto.conf.cmd (what Kconfig read unknown) it is configured" bash -c "grep -q 'configuring (' '$tmp/nocmd.err' && test \$(wc -l <'$obj/configured.log') = 6"
variant track "{\"git\": \"$repo\", \"ref\": \"c3\"}" '[]' '["a.config"]'

# A patch (mm/a.c edited, a file created) must not leak from one commit's build into the next.
cat >"$tmp/v/a.patch" <<'PATCH'
--- a/mm/a.c
+++ b/mm/a.c
@@ -3,5 +3,5 @@
 
 int fake_a(int x)
 {
-	return x - 1;
+	return x - 2; /* PATCHED */
 }
--- /dev/null
+++ b/mm/created-by-patch.txt
@@ -0,0 +1 @@
+created
PATCH
co2=$(checkout_of tpatch)
build_at tpatch c2 '["a.patch"]'; ok "$(rc_is $? 0)" "a patched git variant at c2: exit 0"
check "a checkout of its own, not started from another variant's objects" bash -c "test -f '$co2/.git/HEAD' -a '$co2' != '$co' && ! grep -q 'starting from' '$tmp/tpatch-c2.err'"
build_at tpatch c1 '["a.patch"]'; ok "$(rc_is $? 0)" "the same patch at c1 applies again: exit 0"
check "the patch is in once, its new file once, no .orig or .rej" bash -c "test \"\$(grep -c PATCHED '$co2/mm/a.c')\" = 1 && test \"\$(git -C '$co2' status --porcelain | grep -v ' O-' | tr '\n' ' ')\" = ' M mm/a.c ?? mm/created-by-patch.txt ' && test -z \"\$(find '$co2' -name '*.orig' -o -name '*.rej')\""
check "c1's code under the patch" bash -c "test \"\$(git -C '$co2' rev-parse HEAD)\" = '$(g rev-parse c1)' && grep -q 'return x + 1' '$co2/mm/b.c'"
# Without the patch it is track's recipe at c1, a cache hit: --force makes it check out.
variant tpatch "{\"git\": \"$repo\", \"ref\": \"c1\"}" '[]' '["a.config"]'
"$lab" kernel build --force "$tmp/v/tpatch.json" >"$tmp/tpatch.out" 2>"$tmp/tpatch.err"
ok "$(rc_is $? 0)" "the variant without its patch, built again: exit 0"
# (O-tpatch/, its O= tree, lives in the checkout and stays.)
check "nothing of the patch is left in the checkout" test -z "$(git -C "$co2" status --porcelain --ignored | grep -v ' O-tpatch/$')"

# A checkout left broken: a stale index.lock (git killed mid-checkout) is cleared; one whose
# objects git cannot reach is cloned again.
touch "$co/.git/index.lock"
"$lab" kernel build --force "$tmp/v/track.json" >"$tmp/lock.out" 2>"$tmp/lock.err"
ok "$(rc_is $? 0)" "a stale index.lock in the checkout: exit 0"
mv "$co/.git/objects/info/alternates" "$tmp/alternates"
"$lab" kernel build --force "$tmp/v/track.json" >"$tmp/reclone.out" 2>"$tmp/reclone.err"
ok "$(rc_is $? 0)" "a checkout that lost its objects: exit 0"
check "it says so and clones again" grep -q 'git checkout .* failed (.*); cloning again' "$tmp/reclone.err"
check "the new checkout is at c3 and shares the objects again" bash -c "test \"\$(git -C '$co' rev-parse HEAD)\" = '$(g rev-parse c3)' && test -s '$co/.git/objects/info/alternates'"
head_before=$(git -C "$co" rev-parse HEAD)
build_at track no-such-ref; ok "$(rc_is $? 2)" "an unknown ref: exit 2"
check "names the repository and the ref" grep -q "source: $repo has no commit \"no-such-ref\"" "$tmp/track.err"
check "the checkout was not touched" test "$(git -C "$co" rev-parse HEAD)" = "$head_before"
check "the repository is still untouched" untouched
check "no half clone left" bash -c "! ls -d '$tmp'/cache/src/.tmp-* 2>/dev/null"

# Interrupted mid-build: the make process group goes, nothing half-written stays.
"$lab" kernel build "$tmp/v/slow.json" >"$tmp/slow.out" 2>"$tmp/slow.err" &
pid=$!
for _ in $(seq 1 100); do grep -q ' building .*%.*ETA' "$tmp/slow.err" && break; sleep 0.2; done
check "a progress line with percent and ETA, of the 23 steps make -n counted" grep -Eq 'slow: building +[0-9]+% \([0-9]+/23 steps\), [0-9]+m[0-9]+s elapsed, ETA [0-9]+m[0-9]+s' "$tmp/slow.err"
kill -INT $pid; wait $pid
ok "$(rc_is $? 4)" "SIGINT: exit 4 (the lab did not finish)"
check "says it was interrupted" grep -q interrupted "$tmp/slow.err"
check "no make left behind" bash -c "! pgrep -f '[m]ake -C $tmp/cache/src' >/dev/null"
check "no artifact, no half artifact" bash -c "! grep -l '\"variant\": \"slow\"' $tmp/cache/artifacts/*/meta.json 2>/dev/null && ! ls -d $tmp/cache/artifacts/.tmp-* 2>/dev/null"

# lab run with a variant that fails to build: recorded, not booted, no host needed.
cat >"$tmp/v/job.json" <<'EOF'
{"name": "kb-fail", "topology": "4s-8c", "kernels": [{"variant": "broken.json"}, {"variant": "sticky.json"}],
 "repeats": 2, "workloads": [{"name": "pft", "params": {"tasks": [1]}}]}
EOF
"$lab" run "$tmp/v/job.json" --out "$tmp/run" >"$tmp/run.out" 2>"$tmp/run.err"
ok "$(rc_is $? 3)" "lab run of variants that fail: exit 3"
r=$tmp/run/report.json
check "4 runs, A B A B, all build-failure" jq -e '[.runs[] | .kernel.label + ":" + .status] == ["broken:build-failure", "sticky:build-failure", "broken:build-failure", "sticky:build-failure"]' "$r"
check "the build failure carries the log tail" jq -e '.runs[0].kernel.build.failed == "build" and (.runs[0].kernel.build.log_tail | test("CONFIG_FAIL_BUILD is set"))' "$r"
check "the config failure names the option" jq -e '.runs[1].kernel.build.failed == "config" and (.runs[1].reason | test("CONFIG_NOT_STICKY: wanted y"))' "$r"
check "nothing was booted" jq -e '[.runs[] | .guest == null and .timings.boot_s == null] | all' "$r"
check "report status build-failure" jq -e '.status == "build-failure"' "$r"
check "progress says why each run was not booted" grep -q 'not booted' "$tmp/run.err"
/usr/bin/python3 lab/tests/validate-reports.py "$r" >"$tmp/schema.out" 2>&1
ok $? "the report validates against reports/report.schema.json"

# ---- a variant that is another's patches plus one (what `lab ab PATCH` builds) ----------------
# Its source tree is hard links to the other's plus its own patch, its O= tree starts from the
# other's objects, and only what its patch touched is compiled: the same .text as a build from
# nothing.  The files its patch changed are made newer than the copied objects even when those
# were built after the tree was made.
mkdir -p "$tmp/srcc" && cp -r lab/tests/data/fakekernel-c "$tmp/srcc/linux-fake-c"
tar -C "$tmp/srcc" -cJf "$tmp/linux-fake-c.tar.xz" linux-fake-c
csrc=$(printf '{"url": "file://%s", "sha256": "%s"}' "$tmp/linux-fake-c.tar.xz" \
	"$(sha256sum "$tmp/linux-fake-c.tar.xz" | cut -d' ' -f1)")
printf -- '--- a/mm/b.c\n+++ b/mm/b.c\n@@ -5,3 +5,3 @@\n {\n-\treturn x + 1;\n+\treturn x + 3; /* B */\n }\n' >"$tmp/v/b.patch"
variant cbase "$csrc" '["a.patch"]' '["a.config"]'
variant cchild "$csrc" '["a.patch", "b.patch"]' '["a.config"]'
build cbase; ok "$(rc_is $? 0)" "a patched tarball variant: exit 0"
build cchild; ok "$(rc_is $? 0)" "the same patch plus one more: exit 0"
has "$tmp/cchild.err" "cchild: linking the source tree of its first 1 patch(es)" "... its tree made from the first one's, not extracted again"
check "... no extraction" bash -c "! grep -q 'cchild: extracting' '$tmp/cchild.err'"
has "$tmp/cchild.err" "starting from cbase's build tree (its source without this variant's last patches" "... its O= tree from the first one's objects"
ptree=$(dirname "$(grep -l 'PATCHED' "$tmp"/cache/src/*/mm/a.c | xargs -n1 dirname | xargs -I{} sh -c 'test -e {}/../.numalab-parent || echo {}' | head -1)")
ctree=$(dirname "$(dirname "$(grep -l '/\* B \*/' "$tmp"/cache/src/*/mm/b.c | head -1)")")
check "... an unchanged file is the same inode in both trees" test "$(stat -c %i "$ptree/mm/a.c")" = "$(stat -c %i "$ctree/mm/a.c")"
check "... the changed one is not, and the first tree keeps its own" bash -c "test '$(stat -c %i "$ptree/mm/b.c")' != '$(stat -c %i "$ctree/mm/b.c")' && grep -q 'return x + 1' '$ptree/mm/b.c'"
check "... the same config as the copied objects: no counting, 2 steps (b.o and the link)" bash -c "grep -Eq 'cchild: built in [0-9]+ s \(2 steps\)' '$tmp/cchild.err' && ! grep -q 'counting the steps' '$tmp/cchild.err'"
check "... only mm/b.o compiled after the copy" test "$(tail -1 "$ctree/O-cchild/rebuilt.log") $(wc -l <"$ctree/O-cchild/rebuilt.log")" = "mm/b.o 3"
LAB_KERNEL_CACHE="$tmp/cache-alone" "$lab" kernel build "$tmp/v/cchild.json" >"$tmp/alone.out" 2>"$tmp/alone.err"
ok "$(rc_is $? 0)" "the second variant built from nothing in another cache: exit 0"
alone=$(sed -n 's/^text: //p' "$tmp/alone.out")
check "... the same .text sha256 as the incremental build" bash -c "[[ '$alone' =~ ^[0-9a-f]{64}$ ]] && test '$alone' = '$(meta_of cchild text_sha256)'"
# The first variant's objects rebuilt after the second's tree was made (here: made newer), the
# second's O= tree gone: seeded again, its patched file must still be compiled.
rm -rf "$ctree/O-cchild"
sleep 2 # now is then past the objects' new time: later than the tree, earlier than the build
touch -d "@$(( $(stat -c %Y "$ctree/mm/b.c") + 1 ))" "$ptree"/O-cbase/mm/*.o
"$lab" kernel build --force "$tmp/v/cchild.json" >"$tmp/cchild.out" 2>"$tmp/cchild.err"
ok "$(rc_is $? 0)" "seeded again from objects newer than its tree: exit 0"
check "... seeded from the first one's objects, mm/b.o compiled again, mm/a.o not" bash -c \
	"grep -q \"starting from cbase's build tree\" '$tmp/cchild.err' && test \"\$(tail -1 '$ctree/O-cchild/rebuilt.log') \$(wc -l <'$ctree/O-cchild/rebuilt.log')\" = 'mm/b.o 3'"
check "... the same .text sha256" test "$(meta_of cchild text_sha256)" = "$alone"
check "... the first tree's files untouched" bash -c "grep -q 'return x + 1' '$ptree/mm/b.c' && ! find '$ptree/mm' -newer '$ctree/mm/b.c' -name '*.c' | grep -q ."

# ---- lab ab of a patch that is not one, or does not apply to the base: bad input -------------
# lab/tests/data/ab-refused/NAME.patch, NAME.expected (what the error says).  Refused in
# --dry-run and in a real run alike, in seconds (the base's tree is there: "one"), exit 2,
# no report directory, nothing built or booted.
for f in lab/tests/data/ab-refused/*.patch; do
	case_=$(basename "$f" .patch)
	for mode in --dry-run run; do
		t0=$(date +%s%N)
		dry=(); [ $mode = --dry-run ] && dry=(--dry-run)
		LAB_STATE_DIR="$tmp/state" "$lab" ab "$f" --base "$tmp/v/one.json" "${dry[@]}" \
			-o "$tmp/ab-$case_" >"$tmp/ab.out" 2>"$tmp/ab.err"
		rc=$?
		ms=$(( ($(date +%s%N) - t0) / 1000000 ))
		ok "$(rc_is $rc 2)" "lab ab $case_.patch ($mode): exit 2 in $ms ms"
		has "$tmp/ab.err" "$(cat "lab/tests/data/ab-refused/$case_.expected")" "... says why"
		check "... under 10 s, no report directory, nothing built" bash -c \
			"[ $ms -lt 10000 ] && [ ! -e '$tmp/ab-$case_' ] && ! grep -q 'building\|booting' '$tmp/ab.err'"
	done
done

finish
