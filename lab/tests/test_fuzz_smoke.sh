#!/usr/bin/env bash
# TAP test: the libFuzzer harnesses (lab/fuzz/, one per parser of outside input) build with
# clang into their own directory (build-fuzz, `make fuzz-build`) and each runs over its seed
# corpus (fresh, from the test data) plus 1 s of fuzzing without a crash, a leak, a timeout or
# a broken assertion (lab/tests/fuzz.sh; `make fuzz` runs them longer).  Cost on 2 busy cores:
# about 150 s from an empty build-fuzz/ (the build of liblab with ASan/UBSan/libFuzzer about 2
# minutes), 31 s when only the run is left (about 3 s a harness: its seeds, 1 s of fuzzing,
# the leak check).  The smoke test is for harnesses that broke; finding bugs is `make fuzz`'s.
set -u
cd "$(dirname "$0")/../.."
. lab/tests/fuzz.sh
T=$(mktemp -d /tmp/numalab-fuzz-smoke.XXXXXX)
trap 'rm -rf "$T"' EXIT

# Not the caller's make's flags (`make unit B=... SANITIZE=...`): the fuzz build sets its own.
MAKEFLAGS= MFLAGS= MAKELEVEL= make -j"$(nproc)" --no-print-directory fuzz-build \
	FUZZ_B="$FUZZ_B" >"$T/build" 2>&1
ok $? "the fuzz build: liblab and every harness with clang, libFuzzer, ASan and UBSan"
[ "$failed" -eq 0 ] || tail -20 "$T/build" | diag /dev/stdin
fuzz_all "${FUZZ_SMOKE_SECONDS:-1}" "$T/corpus"
finish
