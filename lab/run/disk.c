#include "run/disk.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/diskplan.h"
#include "run/diskboot.h"
#include "run/postmortem.h"
#include "util/cleanup.h"
#include "util/fs.h"

int imgrun_resolve(const struct job *job, const char *job_dir, const char *runners_dir,
		   struct imgrun *ir, struct lab_error *err)
{
	char saved[sizeof(err->file)];
	int r;

	memset(ir, 0, sizeof(*ir));
	if (!job->image.recipe[0])
		return 0;
	ir->on = 1;
	ir->opts.runners_dir = runners_dir;
	snprintf(saved, sizeof(saved), "%s", err->file);
	r = image_recipe_path(job->image.recipe, job_dir, ir->recipe_path, sizeof(ir->recipe_path),
			      err);
	if (r < 0) {
		char msg[sizeof(err->msg)];

		snprintf(msg, sizeof(msg), "%s", err->msg);
		return error_set(err, "image.recipe", "%s", msg);
	}
	r = image_precheck(ir->recipe_path, &ir->opts, &ir->info, err);
	if (r < 0)
		return r;
	error_set_file(err, saved);
	if (job->image.nr_perf_events && !ir->info.has_perf)
		return error_set(err, "image.perf_stat", "recipe %s does not install linux-perf",
				 ir->recipe_path);
	return 0;
}

int imgrun_build(struct imgrun *ir, int kvm, void (*progress)(void *, const char *), void *ud,
		 struct lab_error *err)
{
	if (!ir->on)
		return 0;
	ir->kvm = kvm;
	ir->opts.kvm = kvm;
	ir->opts.progress = progress;
	ir->opts.progress_ud = ud;
	return image_ensure(ir->recipe_path, &ir->opts, &ir->info, err);
}

const char *imgrun_before(const struct imgrun *ir, const char *run_dir, char *overlay,
			  char *why, size_t len)
{
	_cleanup_free_ char *abs = NULL;
	int r;

	overlay[0] = '\0';
	if (!ir->on)
		return NULL;
	r = fs_mkdir_p(run_dir, 0755);
	abs = r == 0 ? realpath(run_dir, NULL) : NULL;
	if (!abs) {
		snprintf(why, len, "cannot create %s: %s", run_dir, strerror(r < 0 ? -r : errno));
		return NULL;
	}
	snprintf(overlay, PATH_MAX, "%s/%s", abs, IMGRUN_OVERLAY);
	if (diskboot_overlay_create(ir->info.disk, overlay, why, len) < 0) {
		overlay[0] = '\0';
		return NULL;
	}
	return overlay;
}

json_t *imgrun_after(const struct imgrun *ir, const struct job *job, enum outcome outcome,
		     int interrupted, const char *run_dir, const char *run_rel, char *overlay)
{
	const char *collect[JOB_MAX_COLLECT];
	json_t *pm = NULL;

	if (!ir->on)
		return NULL;
	for (unsigned i = 0; i < job->image.nr_collect; i++)
		collect[i] = job->image.collect[i];
	/* Only failures pay for an appliance launch; an interrupted lab should stop quickly. */
	if (outcome != OUTCOME_OK && !interrupted && overlay[0]) {
		struct postmortem_opts po = {
			.overlay = overlay, .run_dir = run_dir, .run_rel = run_rel,
			.kvm = ir->kvm, .collect = collect, .nr_collect = job->image.nr_collect,
			.nr_workloads = job->nr_workloads,
		};

		pm = postmortem_collect(&po);
	}
	if (overlay[0])
		unlink(overlay);
	overlay[0] = '\0';
	/* "postmortem" only when one ran. */
	return json_pack("{s:{s:s,s:s,s:s,s:s,s:b},s:o*}", "image", "recipe", ir->info.name,
			 "key", ir->info.key, "base", ir->info.disk, "root", DISKPLAN_ROOT_DEVICE,
			 "built", ir->info.built, "postmortem", pm);
}
