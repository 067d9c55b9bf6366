/* The instruction profile's output (lab/plugin/profile.c, schema numalab.profile/1) joined to
 * a run's results: each result whose info.lock_insn_window (runners/rt_team.c: the measured
 * window the guest marks, shared with the lock counter) names one of the plugin's windows gets
 * info.profile: the window's instructions and, per kernel symbol, those executed in it (self)
 * and while it was on the call stack (incl).  Pure: no I/O.
 *
 * What a result keeps: the PROFILE_REPORT_SYMBOLS symbols with the most self instructions and
 * as many with the most inclusive ones (a caller whose work is its callees'), the rest summed
 * in other_self, so that the symbols' self plus other_self is the window's instructions, and
 * self_cutoff is the most self instructions a symbol it does not list can have (0: it lists
 * every symbol). */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

#define PROFILE_SCHEMA "numalab.profile/1"
#define PROFILE_MAX_BYTES (64u << 20) /* the plugin's file, read whole */
#define PROFILE_MAX_WINDOWS 64        /* the plugin's bounds (lab/plugin/profile.c) */
#define PROFILE_MAX_SYMBOLS 4096
#define PROFILE_MAX_NAME 127          /* a symbol's name, bytes */
#define PROFILE_REPORT_SYMBOLS 128    /* per ranking a result keeps */

/* Parse and check the plugin's file (text of len bytes): *out a new reference.  -EINVAL with
 * err naming the JSON path. */
int profile_parse(const char *text, size_t len, json_t **out, struct lab_error *err);

/* Give each result of run (a report's run object: workloads[].results[]) its window's
 * profile.  Returns the number of results given one, or -ENOMEM. */
int profile_attach(json_t *run, const json_t *plugin);
