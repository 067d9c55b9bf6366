#!/usr/bin/env bash
# The builds the integration tests need, made ahead of them in the background, niced
# (lab/tests/run-tests.sh starts this first and adds up its TAP at the end as "prewarm").
#
# Why: on a machine without caches the suite's time is mostly these builds, and the unit tests
# and the early integration tests (one guest, the image build, labd's waits) leave one of two
# cores idle for many minutes.  Built here at nice 19, they use that idle time and give way to
# everything else; a test that needs an artifact before it is ready waits on the build's lock
# (the kernel and QEMU caches take one per key), so nothing is built twice and nothing is used
# half-built.  With warm caches every step is a cache hit (seconds).
#
# In the order the tests need them: baseline and test-fault-mmap-lock (integration-kernels'
# A/B, integration-quantum's), the contention model's QEMU (integration-quantum), the
# bisection's repository and its head's build (integration-regress-*: a bisection's steps then
# rebuild only what a commit changed, in the same checkout), test-warn-fault
# (integration-warnings, last in the suite).  Each is a real cold build on a
# new machine: its progress lines are kept here as TAP comments, and a failed build fails the
# suite.
# TAP; ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.."
. lab/tests/lib.sh
. lab/tests/bisect-fixture.sh
lab=${B:-build}/lab
tmp=$(mktemp -d /tmp/numalab-prewarm.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
# step DESC CMD...: run CMD, its stderr's progress summary as comments, ok on exit 0; the
# seconds it took, and when it was ready counted from the suite's start.
step() {
	local desc=$1 t0 rc
	shift
	t0=$(date +%s)
	"$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	grep -v ' building ' "$tmp/err" | tail -20 | diag /dev/stdin
	ok "$rc" "$desc ($(( $(date +%s) - t0 )) s, ready at $(( $(date +%s) - start )) s)"
	[ "$rc" = 0 ] || tail -5 "$tmp/out" | diag /dev/stdin
}

step "lab kernel build baseline" $lab kernel build baseline
step "lab kernel build test-fault-mmap-lock" \
	$lab kernel build lab/tests/data/kernels/test-fault-mmap-lock.json
step "lab qemu build" $lab qemu build
step "the bisection's repository" bisect_fixture "$tmp" prewarm
step "lab kernel build bisect-test (that repository at its head)" \
	$lab kernel build "$tmp/bisect-test.json"
step "lab kernel build test-warn-fault" \
	$lab kernel build lab/tests/data/kernels/test-warn-fault.json
finish
