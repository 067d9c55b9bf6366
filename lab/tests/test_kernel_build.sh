#!/usr/bin/env bash
# Host test of the kernel build pipeline (lab/stage/kernel.c, ksource.c, kbuild.c) on a fake
# kernel tree (lab/tests/data/fakekernel: a Makefile with tinyconfig/olddefconfig/bzImage), so
# that every path runs in seconds: tarball over file:// with sha256 (libcurl), a local git
# tree, patches that apply or not, the option check, cache hits and keys, seeding a variant's
# O= tree from a sibling, a failing build (log tail, no artifact), an interrupted build, and
# `lab run` recording a build-failure without booting anything.
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
variant urlpatch2 "$(url)" "[{\"url\": \"file://$tmp/v/good.patch\", \"sha256\": \"$psha\"}, \"second.patch\"]" '["a.config"]'

build one; ok "$(rc_is $? 0)" "build from a file:// tarball with a patch: exit 0"
img=$(sed -n 's/^image: //p' "$tmp/one.out")
check "the image is in an artifact directory of the cache" test -f "$img" -a "$(dirname "$(dirname "$img")")" = "$tmp/cache/artifacts"
check "the fragment reached the build" grep -qx 'CONFIG_A=y' "$img"
check "artifact has config, build.log, meta.json" test -s "$(dirname "$img")/config" -a -s "$(dirname "$img")/build.log" -a -s "$(dirname "$img")/meta.json"
check "meta.json names source, patch and compiler" jq -e '.variant == "one" and (.source | startswith("tarball:sha256:")) and (.patches | length == 1) and (.compiler | test("gcc"))' "$(dirname "$img")/meta.json"
check "the download is kept by its sha256" test -f "$tmp/cache/downloads/$sha"
check "the patch was applied" bash -c "grep -q 'bool \"Split PTE locks\"' $tmp/cache/src/*/mm/Kconfig"
check "progress: fetching, applying, configuring, building" bash -c "grep -q fetching $tmp/one.err && grep -q 'applying.*good.patch' $tmp/one.err && grep -q configuring $tmp/one.err && grep -q 'building bzImage' $tmp/one.err"
build one; ok "$(rc_is $? 0)" "second build: exit 0"
check "second build is a cache hit" grep -q '^one: cached ' "$tmp/one.out"
check "same image" test "$(sed -n 's/^image: //p' "$tmp/one.out")" = "$img"
check "lab kernel path" test "$("$lab" kernel path "$tmp/v/one.json")" = "$img"
check "--force rebuilds" bash -c "'$lab' kernel build --force '$tmp/v/one.json' 2>/dev/null | grep -q '^one: built '"

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

# Interrupted mid-build: the make process group goes, nothing half-written stays.
"$lab" kernel build "$tmp/v/slow.json" >"$tmp/slow.out" 2>"$tmp/slow.err" &
pid=$!
for _ in $(seq 1 100); do grep -q ' building .*%.*ETA' "$tmp/slow.err" && break; sleep 0.2; done
check "a progress line with percent and ETA" grep -Eq 'slow: building +[0-9]+% \([0-9]+/~[0-9]+ steps\), [0-9]+m[0-9]+s elapsed, ETA [0-9]+m[0-9]+s' "$tmp/slow.err"
kill -INT $pid; wait $pid
ok "$(rc_is $? 1)" "SIGINT: exit 1"
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

finish
