/* The lock-instruction counter's output (lab/plugin/lockinsn.c, schema numalab.lockinsn/1)
 * joined to a run's results: each result whose info.lock_insn_window (runners/rt_team.c)
 * names one of the plugin's windows gets info.lock_insns, the instructions its tasks executed
 * in the measured window and, per lock call site, the acquisitions and the instructions inside
 * the lock.  Pure: no I/O. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

#define LOCKINSN_SCHEMA "numalab.lockinsn/1"
#define LOCKINSN_MAX_BYTES (64u << 20) /* the plugin's file, read whole */
#define LOCKINSN_MAX_WINDOWS 64        /* the plugin's bounds (lab/plugin/lockinsn.c) */
#define LOCKINSN_MAX_SITES 4096
#define LOCKINSN_REPORT_SITES 24       /* sites a result keeps, most instructions inside first */

/* Parse and check the plugin's file (text of len bytes): *out a new reference.  -EINVAL with
 * err naming the JSON path. */
int lockinsn_parse(const char *text, size_t len, json_t **out, struct lab_error *err);

/* Give each result of run (a report's run object: workloads[].results[]) its window's counts.
 * Returns the number of results given them, or -ENOMEM. */
int lockinsn_attach(json_t *run, const json_t *plugin);
