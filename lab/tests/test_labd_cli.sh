#!/usr/bin/env bash
# TAP test of labd's clients in `lab` (submit, queue, status, cancel, logs) against
# lab/tests/fake-labd.py, a stand-in for labd's HTTP API on a temporary unix socket: without
# a daemon each command says how to start it and exits 1 at once; a job is queued and its ID
# printed; relative paths in a job are refused before anything is sent (exit 2, JSON path);
# a job labd refuses is said with its path (exit 2); listing, status, cancel and logs as text
# and JSON (keys sorted); --wait follows a job to its end (exit 0, or 3 when a run failed);
# logs --follow ends with the job; an answer too large or not JSON is an error (exit 1).
# The real daemon's tests are lab/tests/integration/.  Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
. lab/tests/lib.sh
T=$(mktemp -d /tmp/numalab-test-labd-cli.XXXXXX)
SOCK=$T/labd.sock
B=${B:-build}
LAB=$(pwd)/$B/lab
PY=/usr/bin/python3
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$T"' EXIT
unset LAB_URL LAB_TOKEN_FILE
export LAB_SOCKET=$SOCK EXPECT_TIMEOUT=60

[ -x "$LAB" ] || { ok 1 "$LAB is built (run make first)"; finish; }

# job FILE NAME TOPOLOGY KERNEL [EXTRA]: a job file (EXTRA: more members, with a comma first).
job() {
	printf '{"name": "%s", "topology": %s, "kernel": %s, "repeats": 2%s,
  "workloads": [{"name": "pft", "params": {"mode": "threads", "memory_mib": 32}}]}\n' \
		"$2" "$3" "$4" "${5:-}" >"$1"
}

# ---- no daemon ---------------------------------------------------------------------------
start=$(date +%s)
for cmd in "submit configs/quick.json" "queue" "status 1" "cancel 1" "logs 1 --follow"; do
	# shellcheck disable=SC2086
	expect 4 "no daemon: lab $cmd" "$LAB" $cmd
	has "$T/err" "labd is not running on $SOCK: start it with \`systemctl start numalab-labd\` or \`labd --socket $SOCK\`" \
		"... says how to start it"
done
ok "$(( $(date +%s) - start <= 10 ? 0 : 1 ))" "no daemon: five commands answer within 10 s"
expect 2 "a job ID that is no number" "$LAB" status 12x
expect 2 "two job IDs" "$LAB" cancel 1 2
expect 2 "--socket and --url together" "$LAB" queue --socket "$SOCK" --url http://127.0.0.1:1
echo tok >"$T/token"; chmod 644 "$T/token"
expect 2 "a token file others can read" "$LAB" queue --url http://127.0.0.1:9 --token-file "$T/token"
has "$T/err" "chmod 600" "... says how to fix it"
chmod 600 "$T/token"
expect 4 "a labd on TCP that is not there" "$LAB" queue --url http://127.0.0.1:9 --token-file "$T/token"
has "$T/err" "labd is not reachable at http://127.0.0.1:9" "... said"

# ---- the fake daemon ---------------------------------------------------------------------
$PY lab/tests/fake-labd.py "$SOCK" &
pid=$!
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
ok "$([ -S "$SOCK" ] && echo 0 || echo 1)" "the fake labd listens on $SOCK"

expect 0 "submit configs/quick.json" "$LAB" submit configs/quick.json
ok "$([ "$(cat "$T/out")" = 1 ] && echo 0 || echo 1)" "... prints its ID, 1"
expect 0 "submit --json" "$LAB" submit configs/ab-vma-lock.json --json
pyjson 'd == {"id": 2, "state": "queued"}' "... labd's answer, keys sorted"

# References labd would resolve elsewhere: refused here, nothing sent.
mkdir -p "$T/jobs/topologies"
job "$T/jobs/rel-topo.json" r '"topologies/mine.json"' '{"image": "/boot/vmlinuz-*"}'
expect 2 "a relative topology path" "$LAB" submit "$T/jobs/rel-topo.json"
has "$T/err" "$T/jobs/rel-topo.json: topology: \"topologies/mine.json\" is a relative path (from the job's directory)" "... file, JSON path, the path"
has "$T/err" "use an absolute path or a name" "... and what to do"
job "$T/jobs/rel-var.json" r '"4s-8c"' '{"variant": "baseline"}'
sed -i 's/"kernel": {"variant": "baseline"}/"kernels": [{"variant": "baseline"}, {"variant": "my\/v.json"}]/' "$T/jobs/rel-var.json"
expect 2 "a relative variant path" "$LAB" submit "$T/jobs/rel-var.json"
has "$T/err" "kernels[1].variant: \"my/v.json\" is a relative path" "... at kernels[1].variant"
job "$T/jobs/rel-img.json" r '"4s-8c"' '{"image": "vmlinuz"}'
expect 2 "a relative kernel image" "$LAB" submit "$T/jobs/rel-img.json"
has "$T/err" "kernel.image: \"vmlinuz\" is a relative path" "... at kernel.image"
job "$T/jobs/rel-rec.json" r '"4s-8c"' '{"variant": "baseline"}' ', "image": {"recipe": "r.json"}'
expect 2 "a relative image recipe" "$LAB" submit "$T/jobs/rel-rec.json"
has "$T/err" "image.recipe: \"r.json\" is a relative path" "... at image.recipe"
job "$T/jobs/rel-numa.json" r '"4s-8c"' '{"variant": "baseline"}' ', "numa_cost": "numa/p.json"'
expect 2 "a relative NUMA preset path" "$LAB" submit "$T/jobs/rel-numa.json"
has "$T/err" "numa_cost: \"numa/p.json\" is a relative path (from the job's directory)" "... at numa_cost"
has "$T/err" "use an absolute path or a preset's name" "... and what to do"
echo '{"sockets": 1}' >"$T/jobs/topologies/4s-8c.json"
job "$T/jobs/shadow.json" s '"4s-8c"' '{"image": "/boot/vmlinuz-*"}'
expect 2 "a topology name that a file beside the job gives another meaning" \
	"$LAB" submit "$T/jobs/shadow.json"
has "$T/err" "topology: \"4s-8c\" is $T/jobs/topologies/4s-8c.json here" "... names the file"
cp configs/topologies/4s-8c.json "$T/jobs/topologies/4s-8c.json"
expect 0 "... the same bytes as labd's: accepted" "$LAB" submit "$T/jobs/shadow.json"
job "$T/jobs/abs.json" a "\"$(pwd)/configs/topologies/4s-8c.json\"" "{\"variant\": \"$(pwd)/kernels/baseline.json\"}"
expect 0 "absolute paths: accepted" "$LAB" submit "$T/jobs/abs.json"
echo '{"name": ' >"$T/jobs/broken.json"
expect 2 "a job file that is not JSON" "$LAB" submit "$T/jobs/broken.json"
has "$T/err" "$T/jobs/broken.json: invalid JSON" "... said as lab run says it"
job "$T/jobs/bad.json" b '"4s-8c"' '{"image": "/boot/vmlinuz-*"}'
sed -i 's/"repeats": 2/"repeats": 0/' "$T/jobs/bad.json"
expect 2 "a job labd refuses" "$LAB" submit "$T/jobs/bad.json"
has "$T/err" "lab job submit: $T/jobs/bad.json: repeats: must be a positive integer" "... its message with the file and JSON path"

expect 0 "queue" "$LAB" queue
has "$T/out" "STATE" "... a table"
ok "$(grep -c queued "$T/out" | grep -qx 4; echo $?)" "... the 4 jobs queued (none refused)"
expect 0 "queue --json --state queued --limit 2" "$LAB" queue --json --state queued --limit 2
pyjson '[j["id"] for j in d["jobs"]] == [4, 3]' "... newest first, at most 2, keys sorted"
expect 2 "queue --state bogus (labd refuses)" "$LAB" queue --state bogus
expect 0 "status 2" "$LAB" status 2
has "$T/out" "job 2 (ab-vma-lock): queued, 0 of 3 run(s) done" "... its state and runs"
expect 0 "status 2 --json" "$LAB" status 2 --json
pyjson 'd["id"] == 2 and d["job"]["name"] == "ab-vma-lock"' "... labd's JSON with the job"
expect 2 "status of no such job" "$LAB" status 42
has "$T/err" "lab job status: no such job" "... labd's words"

expect 0 "cancel 2 (queued)" "$LAB" cancel 2
has "$T/out" "job 2: cancelled" "... cancelled at once"
expect 2 "cancel 2 again: already ended" "$LAB" cancel 2
expect 0 "logs 2 --follow: a job cancelled while queued ends the follow" "$LAB" logs 2 --follow
has "$T/out" "cancel requested" "... the cancel in its log"

# Job 1 runs first: the fake moves it on at each long poll.
expect 0 "submit --wait: followed to its end" "$LAB" submit --wait configs/quick.json
has "$T/err" "lab: run 1/1: booting guest" "... progress as lab run prints it"
has "$T/out" "1 run(s): 1 ok; status ok" "... the summary of lab run"
has "$T/out" "report: /var/lib/numalab/labd/jobs/" "... and the report's path"
expect 0 "logs 1: the first job ran meanwhile" "$LAB" logs 1
has "$T/out" "run-ended    run 1/1: ok" "... its events as text"
has "$T/out" "done         done, exit 0" "... done"
expect 0 "logs 1 --json" "$LAB" logs 1 --json
ok "$($PY -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$T/out" && echo 0 || echo 1)" \
	"... one JSON object a line"
job "$T/jobs/panic.json" panic '"4s-8c"' '{"image": "/boot/vmlinuz-*"}'
expect 3 "submit --wait: a run panics" "$LAB" submit --wait "$T/jobs/panic.json"
has "$T/out" "2 run(s): 1 ok; status panic" "... the summary says so"
expect 0 "submit --wait --json" "$LAB" submit configs/quick.json --wait --json
pyjson 'd["state"] == "done" and "job" in d' "... the ended job as status --json prints it"

expect 4 "an answer larger than 4 MiB" "$LAB" status 999
has "$T/err" "larger than 4 MiB" "... said"
expect 4 "an answer that is not JSON" "$LAB" status 998
has "$T/err" "no JSON" "... said"

kill "$pid"; wait "$pid" 2>/dev/null; pid=
finish
