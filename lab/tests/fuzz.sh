#!/usr/bin/env bash
# Runs the libFuzzer harnesses (lab/fuzz/fuzz_*.c) of the fuzz build (`make fuzz-build`):
#   lab/tests/fuzz.sh [HARNESS...]     (`make fuzz`; default: every harness)
# each for FUZZ_SECONDS (default 60) on a corpus seeded from the test data (below), kept
# between runs in FUZZ_CORPUS (default $FUZZ_B/corpus, FUZZ_B default build-fuzz: outside what
# git tracks), with a dictionary (lab/fuzz/*.dict plus the keys and short strings of the
# harness's JSON seeds).  Prints per harness the executions, exec/s, coverage (libFuzzer's
# cov: and ft:) and the crashes; a crashing input is kept in $FUZZ_B/findings/.
# Output is TAP: one check per harness (no crash, leak or timeout), then "N passed, N failed".
# lab/tests/test_fuzz_smoke.sh sources this file and runs fuzz_all with a fresh corpus.
set -u
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
. lab/tests/lib.sh
FUZZ_B=${FUZZ_B:-build-fuzz}
# Per input: ASan builds on a busy 2-core host are slow, a real hang is far slower.
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-20}

# fuzz_seeds NAME: the test data a harness starts from.
fuzz_seeds() {
	local d=lab/tests/data
	case $1 in
	job|api) ls configs/*.json $d/job-ok/*.json $d/jobs/*.json $d/job-errors/*.json ;;
	topology) ls configs/topologies/*.json $d/topology/*.json ;;
	kvariant) ls kernels/*.json $d/kvariant/*.json $d/kernels/*.json ;;
	kconfig) ls kernels/*.config kernels/fragments/*.config $d/kconfig/*.config \
		 $d/kernels/*.config ;;
	imgrecipe) ls images/*.json $d/images/*.json $d/image-recipes/*/*.json ;;
	patch) ls $d/patch-output/*.txt ;;
	results) ls $d/results/*.jsonl $d/kguest/*.jsonl ;;
	console) ls $d/console/*.log ;;
	kwarn) ls $d/kwarn/*.log $d/console/*.log ;;
	guestjob) ls $d/guestjob/*.json ;;
	report) ls $d/compare/*.json $d/history/*.json $d/series-errors/*.json $d/kwarn/*.json ;;
	numacost) ls configs/numa/*.json $d/numarun/* ;;
	bundle) ls $d/bundle/manifest-*.json ;;
	esac 2>/dev/null
}

# fuzz_corpus NAME DIR: DIR holds the seeds (kept when already there).  labd's requests
# are a URL, a query value, two headers, then a job as the body (lab/fuzz/fuzz_api.c).
fuzz_corpus() {
	local name=$1 dir=$2 f i=0
	mkdir -p "$dir"
	# Bundle archives are binary: made, not kept (the hostile ones and a good one, framed as
	# lab/fuzz/fuzz_archive.c reads its input).
	if [ "$name" = archive ]; then
		[ -e "$dir/seed-good-gz" ] || python3 lab/tests/make-hostile-archives.py --fuzz-seeds "$dir"
		return
	fi
	for f in $(fuzz_seeds "$name"); do
		i=$((i + 1))
		if [ "$name" = api ]; then
			[ -e "$dir/seed-$i" ] ||
				{ printf '/v1/jobs/%d/cancel\n%d\nBearer secret-token\n%d\n' \
					"$i" "$i" "$(wc -c <"$f")"; cat "$f"; } >"$dir/seed-$i"
		else
			[ -e "$dir/seed-$i-$(basename "$f")" ] || cp "$f" "$dir/seed-$i-$(basename "$f")"
		fi
	done
}

# fuzz_dict NAME OUT: the harness's dictionary.
fuzz_dict() {
	local name=$1 out=$2
	case $name in
	archive|console|kconfig|patch) cat "lab/fuzz/$name.dict" >"$out"; return ;;
	kwarn) cat lab/fuzz/console.dict >"$out"; return ;;
	api) cat lab/fuzz/api.dict lab/fuzz/json.dict >"$out" ;;
	*) cat lab/fuzz/json.dict >"$out" ;;
	esac
	# Every key and short string of the JSON seeds (JSON lines for the results channel).
	fuzz_seeds "$name" | python3 -c '
import json, sys
words = set()
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            words.add(k); walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
    elif isinstance(v, str) and len(v) <= 24:
        words.add(v)
for path in sys.stdin.read().split():
    for text in [open(path, errors="replace").read()] + open(path, errors="replace").read().splitlines():
        try: walk(json.loads(text))
        except ValueError: pass
for w in sorted(words):
    print("\"" + "".join(c if c.isalnum() or c in " _-./:" else "\\x%02x" % ord(c) for c in json.dumps(w)) + "\"")
' >>"$out"
}

# fuzz_max_len NAME: the longest input to try, when not the longest seed.  Whole .config
# seeds are 53 KB: mutating those runs the parser 150 times a second, its first 16 KB (some
# 600 options) 10 times more often, with the same lines to break.
fuzz_max_len() {
	case $1 in
	kconfig) echo 16384 ;;
	# The seeds that spread a member over 64 KiB are for the cut and corrupt cases: the first
	# 16 KiB of them are cut archives too.
	archive) echo 16384 ;;
	*) echo 0 ;;
	esac
}

# fuzz_stat LOG KEY: a number from libFuzzer's final stats (stat::KEY).
fuzz_stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -1; }

# fuzz_one NAME SECONDS CORPUS: one harness, its stats line and its TAP check.
fuzz_one() {
	local name=$1 secs=$2 corpus=$3 bin="$FUZZ_B/fuzz/fuzz_$1" work="$FUZZ_B/fuzz-work/$1"
	local rc execs rate cov ft units crashes
	rm -rf "$work"; mkdir -p "$work/artifacts"
	if [ ! -x "$bin" ]; then
		ok 1 "fuzz_$name: $bin is built (make fuzz-build)"
		return
	fi
	fuzz_corpus "$name" "$corpus"
	fuzz_dict "$name" "$work/dict"
	"$bin" -max_total_time="$secs" -print_final_stats=1 -timeout="$FUZZ_TIMEOUT" \
		-rss_limit_mb=2048 -max_len="$(fuzz_max_len "$name")" -dict="$work/dict" \
		-artifact_prefix="$work/artifacts/" \
		"$corpus" >"$work/log" 2>&1
	rc=$?
	execs=$(fuzz_stat "$work/log" number_of_executed_units)
	rate=$(fuzz_stat "$work/log" average_exec_per_sec)
	units=$(fuzz_stat "$work/log" new_units_added)
	cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$work/log" | tail -1)
	ft=${cov##* }; cov=${cov#cov: }; cov=${cov%% *}
	crashes=$(find "$work/artifacts" -type f | wc -l)
	printf '# %-16s %9s execs %7s exec/s  cov %5s  ft %6s  new units %5s  crashes %s\n' \
		"fuzz_$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" "${units:-?}" "$crashes"
	ok "$([ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] && echo 0 || echo 1)" \
		"fuzz_$name: seeds and ${secs} s of fuzzing: no crash, leak or timeout"
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		mkdir -p "$FUZZ_B/findings"
		cp "$work"/artifacts/* "$FUZZ_B/findings/" 2>/dev/null
		grep -aE 'ERROR: |SUMMARY: |runtime error|fuzz: |#[0-9]+ 0x.* in ' "$work/log" |
			head -20 | sed 's/^/# /'
		echo "# input kept in $FUZZ_B/findings/; log: $work/log"
	fi
}

# fuzz_all SECONDS CORPUS_ROOT [NAME...]
fuzz_all() {
	local secs=$1 root=$2 name; shift 2
	local names=("$@")
	if [ ${#names[@]} -eq 0 ]; then
		for f in lab/fuzz/fuzz_*.c; do names+=("$(basename "$f" .c | sed 's/^fuzz_//')"); done
	fi
	for name in "${names[@]}"; do
		fuzz_one "$name" "$secs" "$root/$name"
	done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	fuzz_all "${FUZZ_SECONDS:-60}" "${FUZZ_CORPUS:-$FUZZ_B/corpus}" "$@"
	finish
fi
