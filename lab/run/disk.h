/* `lab run` with a job "image": the recipe checked before anything is written, the image built
 * when the cache lacks it, a throw-away overlay of the base per run, and after a run that did
 * not end ok the post-mortem (lab/run/postmortem.h).  The glue between run/engine.c and
 * image/diskboot/postmortem. */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "builder/image.h"
#include "core/job.h"
#include "core/outcome.h"

#define IMGRUN_OVERLAY "overlay.qcow2"

struct imgrun {
	int on;                      /* the job names an image */
	int kvm;
	struct image_opts opts;
	struct image_info info;
	char recipe_path[PATH_MAX];
};

/* Resolve and check the recipe (its files, perf_stat against its packages) with no side
 * effects; errors name the JSON path ("image.recipe: ...", or the recipe file's own). */
int imgrun_resolve(const struct job *job, const char *job_dir, const char *runners_dir,
		   struct imgrun *ir, struct lab_error *err);
/* Build the image unless cached; kvm is the host's verdict. */
int imgrun_build(struct imgrun *ir, int kvm, void (*progress)(void *, const char *), void *ud,
		 struct lab_error *err);
/* Before a run: the overlay run_dir/overlay.qcow2 over the base, its path in overlay[PATH_MAX]
 * (the run's own: runs may overlap, run/engine.c).  Returns overlay, or NULL for an initramfs
 * job or a failure (why says which; overlay is then ""). */
const char *imgrun_before(const struct imgrun *ir, const char *run_dir, char *overlay,
			  char *why, size_t len);
/* After a run: the post-mortem of overlay unless the run ended ok or was interrupted, then the
 * overlay is deleted.  Returns {"image": {...}, "postmortem": {...}} ("postmortem" only when one
 * ran) for the report, or NULL for an initramfs job. */
json_t *imgrun_after(const struct imgrun *ir, const struct job *job, enum outcome outcome,
		     int interrupted, const char *run_dir, const char *run_rel, char *overlay);
