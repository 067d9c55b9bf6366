/* A job run with kernels of a git variant at chosen commits: what `lab bisect` (one commit a
 * step) and `lab nightly` (tonight's head; tonight against the last good night side by side)
 * do with a job.  The variant is kept as a template with every local path absolute, and
 * written once per run with its source at the commit (and optional extra patches, e.g. the
 * reverse diff of a culprit); the job runs through `lab run`'s pipeline with those kernels
 * instead of its own, interleaved A B A B, precision off, `boots` rounds. */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "core/job.h"
#include "run/env.h"

/* The variant file as a template: patches and fragments absolute, source {"git": repo, "ref":
 * ref}.  -EINVAL with msg (file, JSON path, reason) for a bad variant. */
int ktry_template(const char *variant_file, const char *repo, const char *ref, json_t **out,
		  char *msg, size_t len);
/* DIR/NAME.json: the template at commit, extra_patch (absolute, or NULL) appended to its
 * patches; *path gets the file.  0 or a negative errno. */
int ktry_write(const json_t *tmpl, const char *commit, const char *extra_patch, const char *dir,
	       const char *name, char *path, size_t len);

struct ktry_opts {
	const char *job_file;     /* for the report and relative paths */
	struct run_env env;       /* where and how the guests run */
	const char *timing;       /* "auto", "kvm", "tcg", "icount" */
	int parallel;
};

/* Run job with nk kernels (variant files, labels) for `boots` rounds into out_dir.  0 when a
 * report was written (outcomes in it), -EINTR when interrupted, another negative errno with msg
 * when the lab could not proceed. */
int ktry_run(const struct ktry_opts *o, const struct job *job, const char *const *variants,
	     const char *const *labels, unsigned nk, unsigned boots, const char *out_dir,
	     char *msg, size_t len);
