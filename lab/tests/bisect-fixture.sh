# The bisection fixture, sourced by lab/tests/integration/regress-bisect.sh, regress-nightly.sh and
# lab/tests/bench-bisect.sh after `. lab/tests/lib.sh`, from the checkout's root:
#   bisect_fixture DIR JOBNAME
# makes (once per machine) the 16-commit repository of lab/tests/make-bisect-repo.sh beside the
# kernel cache, sets repo, planted, broken, first and last (full commit names), and writes
# DIR/bisect-test.json (a variant of that repository with the lab's lean config, as the
# shipped variants have it) and DIR/job.json: pft on 2 vCPUs in 2 nodes under the deterministic
# timing model, where an icount boot takes ~16 s here and pft's fault rate repeats to ~0.01 %.
# Returns non-zero when the repository cannot be made.
bisect_fixture() {
	local dir=$1 name=$2 cache=${LAB_KERNEL_CACHE:-/var/cache/numalab/kernels}

	repo=${LAB_BISECT_REPO:-$(dirname "$cache")/bisect-repo}
	lab/tests/make-bisect-repo.sh "$repo" --describe >"$dir/describe" || return 1
	planted=$(awk '$1 == "planted" { print $2 }' "$dir/describe")
	broken=$(awk '$1 == "broken" { print $2 }' "$dir/describe")
	first=$(awk '$1 == "first" { print $2 }' "$dir/describe")
	last=$(awk '$1 == "last" { print $2 }' "$dir/describe")
	cat >"$dir/bisect-test.json" <<EOF
{
  "description": "lab/tests/bisect-fixture.sh: the bisection test's repository, the lab's lean config",
  "source": {"git": "$repo", "ref": "HEAD"},
  "patches": ["$PWD/kernels/patches/6.12/0001-mm-Kconfig-prompts-for-split-ptlocks-and-per-VMA-lock.patch"],
  "base": "tinyconfig",
  "config": ["$PWD/kernels/base.config"]
}
EOF
	cat >"$dir/job.json" <<EOF
{
  "name": "$name",
  "topology": {"name": "2s-2c", "sockets": 2, "dies": 1, "cores": 1, "threads": 1,
               "nodes": [{"id": 0, "cpus": "0", "memory_mib": 384},
                         {"id": 1, "cpus": "1", "memory_mib": 384}],
               "distances": [[10, 20], [20, 10]]},
  "kernel": {"variant": "bisect-test.json"},
  "timing": "icount",
  "workloads": [
    {"name": "pft", "params": {"mode": "threads", "memory_mib": 32, "tasks": [2],
                               "repetitions": 3, "warmup": 1}}
  ]
}
EOF
}
