/* The job's "image" section (configs/README.md):
 *   "image": {"recipe": "debian-perf", "collect": ["/etc/motd"], "perf_stat": true}
 * Pure: the recipe itself is read and checked by lab/builder/image.c. */
#include <stdio.h>
#include <string.h>

#include "core/job.h"
#include "util/jsonpath.h"
#include "util/text.h"

static const char *const image_keys[] = {"recipe", "collect", "perf_stat", NULL};

/* What `perf_stat: true` counts: the software events work under TCG too; the hardware ones
 * are recorded as unsupported where the guest has no PMU. */
static const char *const default_events[] = {
	"task-clock", "page-faults", "minor-faults", "major-faults", "context-switches",
	"cpu-migrations", "cycles", "instructions",
};

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

static int parse_recipe(const json_t *img, struct job_image *ji, struct lab_error *err)
{
	const json_t *v = json_object_get(img, "recipe");
	const char *s = json_string_value(v);
	size_t n = s ? strlen(s) : 0;
	int path = s && (strchr(s, '/') || (n > 5 && !strcmp(s + n - 5, ".json")));

	if (!v)
		return error_set(err, "image.recipe", "required (a recipe name such as "
				 "\"debian-perf\", see images/)");
	if (!s || !n || n >= sizeof(ji->recipe) || text_has_control_chars(s) ||
	    (!path && (n > 63 || strspn(s, NAME_CHARS) != n)))
		return error_set(err, "image.recipe", "must be a recipe name [A-Za-z0-9._-]{1,63} "
				 "or a path to a .json file, shorter than %zu bytes",
				 sizeof(ji->recipe));
	snprintf(ji->recipe, sizeof(ji->recipe), "%s", s);
	return 0;
}

/* An absolute guest path, globs allowed, without "." or ".." components. */
static int guest_path_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || s[0] != '/' || strstr(s, "//") || text_has_control_chars(s))
		return 0;
	for (const char *c = s; c; c = strchr(c + 1, '/'))
		if (!strncmp(c, "/./", 3) || !strcmp(c, "/.") || !strncmp(c, "/../", 4) ||
		    !strcmp(c, "/..") || !strcmp(c, "/"))
			return 0;
	return 1;
}

static int parse_collect(const json_t *img, struct job_image *ji, struct lab_error *err)
{
	const json_t *a = json_object_get(img, "collect");
	char p[JSONPATH_LEN];
	size_t i;
	json_t *v;

	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > JOB_MAX_COLLECT)
		return error_set(err, "image.collect", "must be an array of at most %d guest paths",
				 JOB_MAX_COLLECT);
	json_array_foreach(a, i, v) {
		const char *s = json_string_value(v);

		jsonpath_index(p, sizeof(p), "image.collect", i);
		if (!s || strlen(s) >= sizeof(ji->collect[0]) || !guest_path_ok(s))
			return error_set(err, p, "must be an absolute guest path (globs allowed) "
					 "without \".\" or \"..\" components, shorter than %zu bytes",
					 sizeof(ji->collect[0]));
		snprintf(ji->collect[ji->nr_collect++], sizeof(ji->collect[0]), "%s", s);
	}
	return 0;
}

static int parse_perf(const json_t *img, struct job_image *ji, struct lab_error *err)
{
	const json_t *v = json_object_get(img, "perf_stat");
	char p[JSONPATH_LEN];
	size_t i, n = json_array_size(v);
	json_t *e;

	if (!v || json_is_false(v))
		return 0;
	if (json_is_true(v)) {
		for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]); i++)
			snprintf(ji->perf_events[ji->nr_perf_events++], sizeof(ji->perf_events[0]),
				 "%s", default_events[i]);
		return 0;
	}
	if (!json_is_array(v) || n < 1 || n > JOB_MAX_PERF_EVENTS)
		return error_set(err, "image.perf_stat", "must be true, false or an array of "
				 "1..%d perf event names", JOB_MAX_PERF_EVENTS);
	json_array_foreach(v, i, e) {
		const char *s = json_string_value(e);

		jsonpath_index(p, sizeof(p), "image.perf_stat", i);
		if (!guestjob_perf_event_ok(s))
			return error_set(err, p, "must be a perf event name "
					 "[A-Za-z0-9][A-Za-z0-9_.:-]{0,62}");
		snprintf(ji->perf_events[ji->nr_perf_events++], sizeof(ji->perf_events[0]), "%s", s);
	}
	return 0;
}

int job_parse_image(const json_t *j, struct job *job, struct lab_error *err)
{
	const json_t *img = json_object_get(j, "image");
	int r;

	memset(&job->image, 0, sizeof(job->image));
	if (!img)
		return 0;
	if ((r = jsonpath_check_object(img, "image", image_keys, err)) < 0 ||
	    (r = parse_recipe(img, &job->image, err)) < 0 ||
	    (r = parse_collect(img, &job->image, err)) < 0 ||
	    (r = parse_perf(img, &job->image, err)) < 0)
		return r;
	return 0;
}
