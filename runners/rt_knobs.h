/* Kernel knobs the agent applies before the workloads (the job's "knobs", PROTOCOL.md), as the
 * knob table says (lab/proto/knob.c: THP enabled/defrag/shmem_enabled, per-size mTHP enabled,
 * nr_hugepages (total or per node) and numa_balancing); the guest job's validator
 * (lab/proto/guestjob.h) has checked their values.  Every known knob is read before and after, requested or not, so the report
 * shows what the workloads ran under. */
#pragma once
#include <jansson.h>
#include <stddef.h>

/* Apply knobs (may be NULL: only record) under root ("" for the real /sys and /proc; tests
 * pass a fake tree) and build the {"t":"knobs"} line in *line.  Returns 0, or -EINVAL when a
 * knob the job marked required is unavailable, failed or read back differently (err says
 * which); *line is set either way when memory allows. */
int rt_knobs_apply(const char *root, const json_t *knobs, json_t **line, char *err, size_t len);

/* `agent --knobs ROOT FILE` on the host: apply the knobs of guest job FILE under the fake tree
 * ROOT (refused when ROOT is empty or "/") and print the knobs line.  Exit status 0, 1 when a
 * required knob failed, 2 for a bad job. */
int rt_knobs_main(const char *root, const char *job_file);
