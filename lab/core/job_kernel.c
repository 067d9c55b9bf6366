/* The kernels of a job: "kernel": {...} (one) or "kernels": [{...}, ...] (A/B, run
 * interleaved).  Each is {"image": PATH} (prebuilt) or {"variant": NAME} (kernels/NAME.json,
 * built by the lab), with optional "cmdline", "name" (the label reports use) and "knobs"
 * (over the job's: the same kernel twice with different knobs is a knob-set A/B).  Pure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/job.h"
#include "core/knobs.h"
#include "core/kvariant.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/text.h"

static const char *const kernel_keys[] = {"image", "variant", "cmdline", "name", "knobs", NULL};

/* An optional string member: non-empty, no control characters, shorter than len. */
static int opt_str(const json_t *k, const char *key, const char *prefix, char *out, size_t len,
		   struct lab_error *err)
{
	const json_t *v = json_object_get(k, key);
	const char *s = json_string_value(v);
	char p[JSONPATH_LEN];

	if (!v)
		return 0;
	jsonpath_key(p, sizeof(p), prefix, key);
	if (!s || !s[0])
		return error_set(err, p, "must be a non-empty string");
	if (strlen(s) >= len)
		return error_set(err, p, "must be shorter than %zu bytes", len);
	if (text_has_control_chars(s))
		return error_set(err, p, "must not contain control characters");
	snprintf(out, len, "%s", s);
	return 0;
}

static int parse_cmdline(const json_t *k, const char *prefix, struct job_kernel *out,
			 struct lab_error *err)
{
	const json_t *v = json_object_get(k, "cmdline");
	const char *s = json_string_value(v);
	char p[JSONPATH_LEN];

	if (!v)
		return 0;
	jsonpath_key(p, sizeof(p), prefix, "cmdline");
	if (!s)
		return error_set(err, p, "must be a string");
	if (strchr(s, '\n') || strchr(s, '\r'))
		return error_set(err, p, "must not contain newlines");
	if (text_has_control_chars(s))
		return error_set(err, p, "must not contain control characters");
	if (strlen(s) >= sizeof(out->cmdline))
		return error_set(err, p, "must be shorter than %zu bytes", sizeof(out->cmdline));
	snprintf(out->cmdline, sizeof(out->cmdline), "%s", s);
	return 0;
}

/* A variant is a name (kernels/NAME.json) or a path (holds '/' or ends in .json). */
static int variant_ref_ok(const char *s)
{
	size_t n = strlen(s);

	return strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json")) || kvariant_name_ok(s);
}

static void default_label(struct job_kernel *k)
{
	const char *ref = k->variant[0] ? k->variant : k->image;
	const char *base = strrchr(ref, '/');
	size_t n;

	base = base ? base + 1 : ref;
	n = strlen(base);
	if (k->variant[0] && n > 5 && !strcmp(base + n - 5, ".json"))
		n -= 5;
	snprintf(k->label, sizeof(k->label), "%.*s", (int)(n < 63 ? n : 63), base);
}

static int parse_one(const json_t *k, const char *path, const struct topology *topo,
		     struct job_kernel *out, struct lab_error *err)
{
	char p[JSONPATH_LEN];
	int r;

	snprintf(out->path, sizeof(out->path), "%s", path);
	if ((r = jsonpath_check_object(k, path, kernel_keys, err)) < 0)
		return r;
	if (json_object_get(k, "image") && json_object_get(k, "variant"))
		return error_set(err, path, "\"image\" and \"variant\" exclude each other");
	if (!json_object_get(k, "image") && !json_object_get(k, "variant"))
		return error_set(err, path, "needs \"image\" (a prebuilt kernel) or \"variant\" "
				 "(kernels/NAME.json)");
	if ((r = opt_str(k, "image", path, out->image, sizeof(out->image), err)) < 0 ||
	    (r = opt_str(k, "variant", path, out->variant, sizeof(out->variant), err)) < 0 ||
	    (r = opt_str(k, "name", path, out->label, sizeof(out->label), err)) < 0 ||
	    (r = parse_cmdline(k, path, out, err)) < 0)
		return r;
	jsonpath_key(p, sizeof(p), path, "knobs");
	if ((r = knobs_parse_at(json_object_get(k, "knobs"), topo, p, &out->own_knobs, err)) < 0)
		return r;
	if (out->variant[0] && !variant_ref_ok(out->variant)) {
		jsonpath_key(p, sizeof(p), path, "variant");
		return error_set(err, p, "\"%.64s\" is neither a variant name "
				 "([a-z0-9][a-z0-9._-]*) nor a path", out->variant);
	}
	if (out->label[0] && strspn(out->label, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuv"
				    "wxyz0123456789._-") != strlen(out->label)) {
		jsonpath_key(p, sizeof(p), path, "name");
		return error_set(err, p, "must match [A-Za-z0-9._-]{1,63}");
	}
	if (!out->label[0])
		default_label(out);
	return 0;
}

static int parse_list(const json_t *a, struct job *job, struct lab_error *err)
{
	size_t n = json_array_size(a);

	if (!json_is_array(a) || n < 1 || n > JOB_MAX_KERNELS)
		return error_set(err, "kernels", "must be an array of 1..%d kernels",
				 JOB_MAX_KERNELS);
	job->kernels = calloc(n, sizeof(*job->kernels));
	if (!job->kernels)
		return -ENOMEM;
	job->nr_kernels = (unsigned)n;
	for (size_t i = 0; i < n; i++) {
		char path[JSONPATH_LEN];
		int r;

		jsonpath_index(path, sizeof(path), "kernels", i);
		if ((r = parse_one(json_array_get(a, i), path, &job->topo, &job->kernels[i],
				   err)) < 0)
			return r;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(job->kernels[k].label, job->kernels[i].label))
				return error_set(err, path, "label \"%s\" is already used by "
						 "kernels[%zu] (give each a different \"name\")",
						 job->kernels[i].label, k);
	}
	return 0;
}

int job_parse_kernels(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *k = json_object_get(j, "kernel"), *ks = json_object_get(j, "kernels");

	if (k && ks)
		return error_set(err, "kernels", "use either \"kernel\" or \"kernels\", not both");
	if (ks)
		return parse_list(ks, job, err);
	if (!k)
		return error_set(err, "kernel", "required");
	job->kernels = calloc(1, sizeof(*job->kernels));
	if (!job->kernels)
		return -ENOMEM;
	job->nr_kernels = 1;
	return parse_one(k, "kernel", &job->topo, &job->kernels[0], err);
}

int job_merge_knobs(struct job *job, bool all_required)
{
	for (unsigned i = 0; i < job->nr_kernels; i++) {
		struct job_kernel *k = &job->kernels[i];
		int r;

		json_decref(k->knobs);
		k->knobs = NULL;
		if (k->own_knobs && (r = knobs_merge(job->knobs, k->own_knobs, all_required, &k->knobs)) < 0)
			return r;
	}
	return 0;
}

const json_t *job_kernel_knobs(const struct job *job, const struct job_kernel *k)
{
	return k && k->knobs ? k->knobs : job->knobs;
}

unsigned job_run_kernel(const struct job *job, unsigned index)
{
	return job->nr_kernels ? index % job->nr_kernels : 0;
}

json_t *job_plan_json(const struct job *job)
{
	_cleanup_json_ json_t *plan = json_array();
	unsigned n = job->repeats * job->nr_kernels;

	for (unsigned i = 0; plan && i < n; i++) {
		const struct job_kernel *k = &job->kernels[job_run_kernel(job, i)];
		json_t *e = json_pack("{s:I,s:I,s:s,s:s*,s:s*,s:s*,s:O*}", "index", (json_int_t)i,
				      "repeat", (json_int_t)(i / job->nr_kernels), "label",
				      k->label, "variant", k->variant[0] ? k->variant : NULL,
				      "image", k->image[0] ? k->image : NULL, "cmdline",
				      k->cmdline[0] ? k->cmdline : NULL, "knobs",
				      job_kernel_knobs(job, k));

		if (json_array_append_new(plan, e) < 0)
			return NULL;
	}
	return TAKE_PTR(plan);
}
