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

/* One entry of the matrix: kernel entry k (at path) with knob set `set` called name over its
 * own knobs, labelled LABEL-NAME (LABEL: its "name" or default label). */
static int matrix_one(const json_t *k, const char *path, const char *name, const json_t *set,
		      const struct topology *topo, struct job_kernel *out, struct lab_error *err)
{
	struct job_kernel base = { 0 };
	_cleanup_json_ json_t *e = NULL;
	json_t *knobs;
	char label[160];
	int r = parse_one(k, path, topo, &base, err);

	json_decref(base.own_knobs);
	if (r < 0)
		return r;
	if ((size_t)snprintf(label, sizeof(label), "%s-%s", base.label, name) >= sizeof(out->label))
		return error_set(err, path, "label \"%s\" is longer than 63 characters", label);
	e = json_deep_copy(k);
	knobs = e ? json_object_get(e, "knobs") : NULL;
	if (!e || (!knobs && json_object_set_new(e, "knobs", json_object()) < 0))
		return -ENOMEM;
	knobs = json_object_get(e, "knobs");
	if (!json_is_object(knobs) || json_object_update(knobs, (json_t *)set) < 0 ||
	    json_object_set_new(e, "name", json_string(label)) < 0)
		return json_is_object(knobs) ? -ENOMEM
					     : error_set(err, path, "knobs: must be an object");
	return parse_one(e, path, topo, out, err);
}

/* "matrix": {"kernels": [...], "knobs": {"NAME": {knobs}, ...}}: every kernel under every
 * knob set, labelled KERNEL-NAME, in that order (then run interleaved as "kernels"). */
static int parse_matrix(const json_t *m, struct job *job, struct lab_error *err)
{
	static const char *const keys[] = {"kernels", "knobs", NULL};
	const json_t *ks = json_object_get(m, "kernels"), *sets = json_object_get(m, "knobs"), *set;
	size_t nk = json_array_size(ks), ns = json_object_size(sets), n = 0;
	const char *name;
	int r;

	if ((r = jsonpath_check_object(m, "matrix", keys, err)) < 0)
		return r;
	if (!json_is_array(ks) || nk < 1)
		return error_set(err, "matrix.kernels", "must be an array of kernels");
	if (!json_is_object(sets) || ns < 1)
		return error_set(err, "matrix.knobs", "must be an object of named knob sets");
	if (nk * ns > JOB_MAX_KERNELS)
		return error_set(err, "matrix", "%zu kernels x %zu knob sets is more than %d", nk, ns,
				 JOB_MAX_KERNELS);
	json_object_foreach((json_t *)sets, name, set) {
		char p[JSONPATH_LEN];
		json_t *norm = NULL;

		jsonpath_key(p, sizeof(p), "matrix.knobs", name);
		if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
			    strlen(name) || !name[0])
			return error_set(err, p, "a knob set's name must match [A-Za-z0-9._-]+");
		if ((r = knobs_parse_at(set, &job->topo, p, &norm, err)) < 0)
			return r;
		json_decref(norm);
	}
	job->kernels = calloc(nk * ns, sizeof(*job->kernels));
	if (!job->kernels)
		return -ENOMEM;
	for (size_t i = 0; i < nk; i++) {
		char path[JSONPATH_LEN];

		jsonpath_index(path, sizeof(path), "matrix.kernels", i);
		json_object_foreach((json_t *)sets, name, set) {
			/* Counted before it is parsed: job_free then frees what a parse that
			 * failed half-way left in it (its own knobs; found by fuzz_api). */
			job->nr_kernels = (unsigned)(n + 1);
			if ((r = matrix_one(json_array_get(ks, i), path, name, set, &job->topo,
					    &job->kernels[n], err)) < 0)
				return r;
			n++;
			for (size_t k = 0; k + 1 < n; k++)
				if (!strcmp(job->kernels[k].label, job->kernels[n - 1].label))
					return error_set(err, path, "label \"%s\" is used twice (give the "
							 "kernels different \"name\"s)",
							 job->kernels[k].label);
		}
	}
	return 0;
}

int job_parse_kernels(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *k = json_object_get(j, "kernel"), *ks = json_object_get(j, "kernels");
	const json_t *m = json_object_get(j, "matrix");

	if (!!k + !!ks + !!m > 1)
		return error_set(err, m ? "matrix" : "kernels", "use one of \"kernel\", \"kernels\" "
				 "and \"matrix\"");
	if (m)
		return parse_matrix(m, job, err);
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
