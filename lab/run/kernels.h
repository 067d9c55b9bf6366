/* The kernels of one `lab run`: resolved and validated before anything is written, built when
 * missing (variants), and described in each run's report ("kernel": label, variant, the
 * guest's config proving it, confounds, vma_lock counters). */
#pragma once
#include <jansson.h>
#include <limits.h>

#include "builder/kernel.h"
#include "core/collect.h"
#include "core/job.h"
#include "core/kvariant.h"
#include "core/outcome.h"

struct krun_kernel {
	const struct job_kernel *jk;
	int is_variant;
	struct kvariant v;
	struct kernel_artifact art;
	char image[PATH_MAX];    /* what boots; "" when it could not be built */
	enum outcome fail;       /* OUTCOME_OK, or why runs of this kernel cannot boot */
	char reason[1200];
	char *build_config;      /* the build's final .config text (variants), or NULL */
	char image_sha256[65];   /* of the bytes that boot, "" unknown (for history, bisection) */
	char config_sha256[65];  /* of the build's final .config (variants), "" unknown */
	struct kconfig *frags;   /* the variant's fragments, for the report's config subset */
	int patches_checked;     /* krun_check_patches found they apply (or it was built) */
	json_t *patches;         /* the report's kernel.patches: each patch's file, sha256 and
				  * mail subject, in order (variants; NULL for an image) */
};

struct krun {
	unsigned n;
	struct krun_kernel *k;
};

/* Validate every kernel of the job: images exist, variant files parse and name files that
 * exist.  job_dir resolves relative variant paths.  err names the JSON path (and the variant
 * file for errors inside it). */
int krun_resolve(const struct job *job, const char *job_dir, struct krun *kr,
		 struct lab_error *err);
/* Every variant's patches applied to its source before anything is built or booted
 * (kernel_check_patches): one that does not apply is bad input, -EINVAL with err naming
 * kernels[N].variant, the patch, the file and the hunk. */
int krun_check_patches(struct krun *kr, const struct kernel_build_opts *o, int may_extract,
		       struct lab_error *err);
/* Build (or find in the cache) every variant; a failure is recorded on that kernel, not
 * returned.  Returns -EINTR when interrupted. */
int krun_build(struct krun *kr, const struct kernel_build_opts *o);
/* The first kernel that can boot (for the KVM probe), or NULL. */
const char *krun_first_image(const struct krun *kr);
/* Fields for a run's "kernel" object; log is what the guest said on the results channel (may
 * be NULL: the run never booted). */
json_t *krun_report(const struct krun_kernel *k, const struct guest_log *log);
void krun_free(struct krun *kr);
