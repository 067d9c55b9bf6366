/* A workload under `perf stat` (PROTOCOL.md, "perf stat"): when the guest job lists perf_stat
 * events and the image has perf, the agent runs the runner as
 *   perf stat -x , -o FILE -e EV1,EV2 -- RUNNER ARGS...
 * (perf passes the runner's stdout, stderr and exit status through) and adds the counters it
 * wrote to FILE to the runner's output as "perf_stat". */
#pragma once
#include <jansson.h>

#include "proto/guestjob.h"

#define RT_PERF_BIN "/usr/bin/perf"
#define RT_PERF_MAX_EVENTS GUESTJOB_MAX_PERF_EVENTS
#define RT_PERF_OUT_MAX (64 * 1024)

/* Prefix *argv with perf stat writing to out_file.  1 when wrapped, 0 when perf is missing
 * (the workload then runs bare), negative errno on failure (argv unchanged). */
int rt_perfstat_wrap(char ***argv, const json_t *events, const char *out_file);
/* perf stat -x, output -> {"counters": {EVENT: {"value": N, "unit": U}}, "unsupported":
 * [EVENT...]}; NULL when out of memory.  Comment and blank lines are skipped. */
json_t *rt_perfstat_parse(const char *text);
/* The "perf_stat" object for the runner's output: the parsed counters of out_file, or
 * {"error": why} when wrapped is 0 (perf missing) or the file is missing or unreadable. */
json_t *rt_perfstat_result(int wrapped, const char *out_file);
