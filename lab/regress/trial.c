/* A job run with a git variant at chosen commits: see regress/trial.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder/kernel.h"
#include "regress/trial.h"
#include "run/engine.h"
#include "util/cleanup.h"
#include "util/jsonio.h"

int ktry_template(const char *variant_file, const char *repo, const char *ref, json_t **out,
		  char *msg, size_t len)
{
	struct kvariant v;
	struct lab_error err = { 0 };
	json_t *patches, *config;
	char abs[PATH_MAX];
	int r;

	*out = NULL;
	if ((r = kernel_variant_load(variant_file, "/", &v, &err)) < 0) {
		error_format(&err, msg, len);
		return r;
	}
	patches = json_array();
	config = json_array();
	*out = json_pack("{s:s, s:o, s:o, s:s, s:{s:s, s:s}}", "description", v.description,
			 "patches", patches, "config", config, "base", v.base, "source", "git",
			 repo, "ref", ref);
	for (unsigned i = 0; *out && i < v.nr_patches; i++) {
		const struct kpatch *kp = &v.patches[i];

		if (kp->url[0])
			json_array_append_new(patches, json_pack("{s:s, s:s}", "url", kp->url,
								 "sha256", kp->sha256));
		else
			json_array_append_new(patches, json_string(realpath(kp->path, abs)
								   ? abs : kp->path));
	}
	for (unsigned i = 0; *out && i < v.nr_fragments; i++)
		json_array_append_new(config, json_string(realpath(v.fragments[i], abs)
							  ? abs : v.fragments[i]));
	kvariant_free(&v);
	if (!*out) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int ktry_write(const json_t *tmpl, const char *commit, const char *extra_patch, const char *dir,
	       const char *name, char *path, size_t len)
{
	_cleanup_json_ json_t *v = json_deep_copy(tmpl);
	json_t *src = v ? json_object_get(v, "source") : NULL;

	if (!v || !src || json_object_set_new(src, "ref", json_string(commit)) < 0)
		return -ENOMEM;
	if (extra_patch &&
	    json_array_append_new(json_object_get(v, "patches"), json_string(extra_patch)) < 0)
		return -ENOMEM;
	snprintf(path, len, "%s/%s.json", dir, name);
	return jsonio_write_file(path, v);
}

int ktry_run(const struct ktry_opts *o, const struct job *job, const char *const *variants,
	     const char *const *labels, unsigned nk, unsigned boots, const char *out_dir,
	     char *msg, size_t len)
{
	_cleanup_free_ struct job_kernel *jk = calloc(nk ? nk : 1, sizeof(*jk));
	struct job j = *job;
	struct run_summary rs;
	enum timing_model tm = TIMING_AUTO;
	struct run_opts ro;
	int r;

	if (!jk || nk == 0 || nk > JOB_MAX_KERNELS)
		return -EINVAL;
	for (unsigned i = 0; i < nk; i++) {
		snprintf(jk[i].label, sizeof(jk[i].label), "%s", labels[i]);
		snprintf(jk[i].variant, sizeof(jk[i].variant), "%s", variants[i]);
		snprintf(jk[i].path, sizeof(jk[i].path), nk == 1 ? "kernel" : "kernels[%u]", i);
		/* The job's extra kernel arguments stay: they are part of what is measured. */
		if (job->nr_kernels)
			snprintf(jk[i].cmdline, sizeof(jk[i].cmdline), "%s",
				 job->kernels[0].cmdline);
	}
	j.nr_kernels = nk;
	j.kernels = jk;
	j.repeats = boots;
	j.precision.ci_pct = 0;
	j.precision.until_decided = 0;
	timing_parse(o->timing, &tm);
	ro = (struct run_opts){ .env = o->env, .job_file = o->job_file, .out_dir = out_dir,
				.timing = tm, .parallel = o->parallel, .comparison = 1 };
	msg[0] = '\0';
	r = run_job(&ro, &j, &rs, msg, len);
	if (r < 0) {
		if (!msg[0])
			snprintf(msg, len, "%s", strerror(-r));
		return r;
	}
	if (o->env.interrupt && *o->env.interrupt)
		return -EINTR;
	return 0;
}
