#include "core/workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"

static const char *const pft_modes[] = {"threads", "processes", NULL};

/* runners/pft.c: anonymous page-fault scaling over a sweep of task counts. */
static const struct workload_param pft_params[] = {
	{.name = "mode", .type = WORKLOAD_PARAM_ENUM, .choices = pft_modes,
	 .help = "tasks are threads of one process (shared mm) or separate processes"},
	{.name = "memory_mib", .type = WORKLOAD_PARAM_INT, .min = 1, .max = 1048576, .def = 64,
	 .help = "memory each task maps and faults in, in MiB"},
	{.name = "tasks", .type = WORKLOAD_PARAM_TASKS,
	 .help = "task counts to sweep; \"per-cpu\" means one task per vCPU"},
	{.name = "thp", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "allow transparent huge pages (MADV_HUGEPAGE) instead of forbidding them"},
};

static const struct workload_def workloads[] = {
	{.name = "pft", .help = "page-fault scaling: faults/s against the number of tasks",
	 .params = pft_params, .nr_params = sizeof(pft_params) / sizeof(pft_params[0])},
};

#define NR_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

const struct workload_def *workload_find(const char *name)
{
	for (size_t i = 0; i < NR_WORKLOADS; i++)
		if (strcmp(workloads[i].name, name) == 0)
			return &workloads[i];
	return NULL;
}

size_t workload_count(void)
{
	return NR_WORKLOADS;
}

const struct workload_def *workload_at(size_t i)
{
	return i < NR_WORKLOADS ? &workloads[i] : NULL;
}

void workload_names(char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NR_WORKLOADS && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", workloads[i].name);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

static const struct workload_param *param_find(const struct workload_def *w, const char *name)
{
	for (size_t i = 0; i < w->nr_params; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return &w->params[i];
	return NULL;
}

static int param_enum(const struct workload_param *p, const json_t *v, const char *path,
		      json_t **out, struct lab_error *err)
{
	const char *s = v ? json_string_value(v) : p->choices[0];

	for (const char *const *c = p->choices; s && *c; c++)
		if (strcmp(*c, s) == 0) {
			*out = json_string(*c);
			return *out ? 0 : -ENOMEM;
		}

	char list[256];
	size_t used = 0;

	list[0] = '\0';
	for (const char *const *c = p->choices; *c && used < sizeof(list); c++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s\"%s\"",
				 c == p->choices ? "" : ", ", *c);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return error_set(err, path, "must be one of %s", list);
}

static int param_int(const struct workload_param *p, const json_t *v, const char *path,
		     json_t **out, struct lab_error *err)
{
	json_int_t x = p->def;

	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < p->min ||
		    json_integer_value(v) > p->max)
			return error_set(err, path, "must be an integer %lld..%lld", p->min, p->max);
		x = json_integer_value(v);
	}
	*out = json_integer(x);
	return *out ? 0 : -ENOMEM;
}

static int param_bool(const struct workload_param *p, const json_t *v, const char *path,
		      json_t **out, struct lab_error *err)
{
	int b = p->def != 0;

	if (v) {
		if (!json_is_boolean(v))
			return error_set(err, path, "must be true or false");
		b = json_is_true(v);
	}
	*out = json_boolean(b);
	return 0;
}

static int param_tasks(const json_t *v, const char *path, unsigned vcpus, json_t **out,
		       struct lab_error *err)
{
	_cleanup_json_ json_t *arr = json_array();
	size_t i;
	json_t *e;

	if (!arr)
		return -ENOMEM;
	if (!v || (json_is_string(v) && strcmp(json_string_value(v), "per-cpu") == 0)) {
		if (json_array_append_new(arr, json_integer(vcpus)) < 0)
			return -ENOMEM;
		*out = TAKE_PTR(arr);
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > WORKLOAD_MAX_TASK_COUNTS)
		return error_set(err, path,
				 "must be \"per-cpu\" or an array of 1..%d task counts",
				 WORKLOAD_MAX_TASK_COUNTS);
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 1 ||
		    json_integer_value(e) > (json_int_t)vcpus) {
			char p[JSONPATH_LEN];

			jsonpath_index(p, sizeof(p), path, i);
			return error_set(err, p, "must be an integer 1..%u (the vCPU count)", vcpus);
		}
		if (json_array_append_new(arr, json_integer(json_integer_value(e))) < 0)
			return -ENOMEM;
	}
	*out = TAKE_PTR(arr);
	return 0;
}

int workload_params(const struct workload_def *w, const json_t *params, const char *path,
		    unsigned vcpus, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *res = json_object();
	const char *key;
	json_t *v;

	if (!res)
		return -ENOMEM;
	if (params && !json_is_object(params))
		return error_set(err, path, "must be an object");
	json_object_foreach((json_t *)params, key, v) {
		if (!param_find(w, key)) {
			char p[JSONPATH_LEN];

			jsonpath_key(p, sizeof(p), path, key);
			return error_set(err, p, "unknown parameter");
		}
	}
	for (size_t i = 0; i < w->nr_params; i++) {
		const struct workload_param *p = &w->params[i];
		const json_t *in = params ? json_object_get(params, p->name) : NULL;
		json_t *val = NULL;
		char pp[JSONPATH_LEN];
		int r;

		jsonpath_key(pp, sizeof(pp), path, p->name);
		switch (p->type) {
		case WORKLOAD_PARAM_ENUM:
			r = param_enum(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_INT:
			r = param_int(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_BOOL:
			r = param_bool(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_TASKS:
			r = param_tasks(in, pp, vcpus, &val, err);
			break;
		default:
			r = -EINVAL;
		}
		if (r < 0)
			return r;
		if (json_object_set_new(res, p->name, val) < 0)
			return -ENOMEM;
	}
	*out = TAKE_PTR(res);
	return 0;
}
