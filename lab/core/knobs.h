/* The job's "knobs": kernel settings the guest agent applies before the workloads (THP modes,
 * per-size mTHP, huge pages, NUMA balancing) and reads back for the report.  Pure: validation
 * and normalisation only, against the knob table (lab/proto/knob.c); runners/rt_knobs.c
 * applies them. */
#pragma once
#include <stdbool.h>

#include <jansson.h>

#include "core/topology.h"
#include "util/error.h"

/* Validate the job's "knobs" object (v may be NULL: no knobs) against the topology (per-node
 * huge page counts need one entry per node) and return in *out the normalised object the
 * guest receives (numa_balancing as an integer, "required" as an array of knob names), or
 * NULL when there are no knobs.  Errors name the JSON path ("knobs.thp_enabled: ..."). */
int knobs_parse(const json_t *v, const struct topology *topo, json_t **out,
		struct lab_error *err);
/* The same with errors named under prefix ("kernels[1].knobs.thp_enabled: ..."). */
int knobs_parse_at(const json_t *v, const struct topology *topo, const char *prefix,
		   json_t **out, struct lab_error *err);
/* The knobs of one of a job's variants: the job's normalised knobs (may be NULL) with the
 * variant's own (normalised, may be NULL) over them: a knob the variant sets replaces the
 * job's, per size or per node where the knob has sizes or nodes; "required" holds the names
 * of both, or, with all_required (the job said "required": true), every knob of the result:
 * a job that requires its knobs requires those its knob sets add too.  *out: a new
 * reference, NULL when neither has knobs. */
int knobs_merge(const json_t *job_knobs, const json_t *own, bool all_required, json_t **out);
