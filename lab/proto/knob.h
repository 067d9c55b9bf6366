/* The knobs: kernel settings a job may ask for ("knobs", configs/README.md), which the host
 * validates (lab/core/knobs.c) and the guest agent applies and reads back
 * (runners/rt_knobs.c).  One table in knob.c: a knob's name, its file, its value type, the
 * words it allows and how it expands per size or per node.  Adding a knob means adding a row
 * there.  Pure. */
#pragma once
#include <jansson.h>
#include <stddef.h>

#include "util/error.h"

/* The key of the knobs object that lists the knobs which must take (not a knob itself). */
#define KNOB_REQUIRED "required"
/* Bounds of the normalised knobs object the guest receives. */
#define KNOB_MAX_NODES 64    /* per-node counts */
#define KNOB_MAX_SIZES 32    /* per-size settings */
#define KNOB_MAX_REQUIRED 16 /* entries of "required" */

enum knob_type {
	KNOB_WORD,  /* a selector file ("always [madvise] never"): one of words */
	KNOB_COUNT, /* a file holding an integer: 0..max */
};

enum knob_expand {
	KNOB_ONE,      /* one file: path */
	KNOB_PER_SIZE, /* an object SIZE -> value, one file per size, each_dir/each_prefix SIZE/
			* each_file; report entries NAME.SIZE ("mthp_enabled.64kB") */
	KNOB_PER_NODE, /* a total (the file path) or an array with one value per node, the files
			* each_dir/each_prefix N/each_file; report entries NAME.nodeN */
};

struct knob_def {
	const char *name;          /* the job's key; report entries are named after it */
	enum knob_type type;
	enum knob_expand expand;
	const char *const *words;  /* KNOB_WORD: NULL-terminated */
	long long max;             /* KNOB_COUNT: 0..max */
	int job_bool;              /* the job may say false/true for 0/1 (normalised on the host) */
	int written_first;         /* the agent writes (and the report lists) it before the others */
	const char *path;          /* KNOB_ONE: the file; KNOB_PER_NODE: the total's file */
	const char *each_dir;      /* KNOB_PER_SIZE, KNOB_PER_NODE: see enum knob_expand */
	const char *each_prefix;
	const char *each_file;
	const char *hint;          /* what error messages add: an example or the unit */
};

const struct knob_def *knob_find(const char *name);
size_t knob_count(void);
const struct knob_def *knob_at(size_t i);
/* Check one knob's value v at path ("knobs.NAME").  nr_nodes > 0: the job on the host, a
 * per-node array must have one entry per node and job_bool knobs may be booleans; 0: the
 * guest job, normalised by the host, any per-node count up to KNOB_MAX_NODES.  0 or -EINVAL
 * with err set. */
int knob_check(const struct knob_def *k, const json_t *v, const char *path, unsigned nr_nodes,
	       struct lab_error *err);
/* 0 when v is an object whose keys are knob names or "required"; else -EINVAL at prefix
 * ("knobs", or "kernels[1].knobs" for a variant's own). */
int knob_check_keys(const json_t *v, const char *prefix, struct lab_error *err);
/* The guest job's "knobs" (may be NULL: none), as the host normalised it: known keys, values
 * as knob_check(.., 0, ..) says, "required" an array of knob names.  What the agent accepts
 * is all it will ever write into /sys and /proc. */
int knob_check_guest(const json_t *knobs, struct lab_error *err);
