/* Post-mortem of a disk-booted run that did not end ok: libguestfs opens the run's overlay
 * read-only (the journal is replayed in libguestfs' own throw-away layer, the overlay itself is
 * never written) and copies what the agent left on the disk (its log, the results it had
 * written, perf stat files: /numalab/out/) and the files the job lists into the run directory.
 * Launching the appliance takes ~20 s under TCG, which is why this runs only after failures. */
#pragma once
#include <jansson.h>

#define POSTMORTEM_DIR "postmortem"
#define POSTMORTEM_MAX_FILES 256
#define POSTMORTEM_MAX_FILE (64u << 20)
#define POSTMORTEM_MAX_TOTAL (256u << 20)

struct postmortem_opts {
	const char *overlay;            /* the run's qcow2 */
	const char *run_dir;            /* files go to run_dir/postmortem/<guest path> */
	const char *run_rel;            /* run_dir as the report names it ("run-0") */
	int kvm;                        /* the host's KVM verdict (force_tcg otherwise) */
	const char *const *collect;     /* guest paths or globs the job lists */
	unsigned nr_collect;
	unsigned nr_workloads;          /* to read the recovered results */
};

/* Always returns the report's "postmortem" object (NULL only when out of memory):
 * {"ok", "error", "launch_s", "total_s", "dir", "files": [{"path", "file", "bytes"}],
 *  "missing": [{"path", "reason"}], "results": {...} | null}. */
json_t *postmortem_collect(const struct postmortem_opts *o);
