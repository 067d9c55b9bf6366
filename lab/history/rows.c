/* One report -> the rows of the history index (rows.h).  Pure. */
#include "history/rows.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/modelfit.h"
#include "analysis/series.h"
#include "analysis/verdict.h"
#include "proto/workload.h"
#include "util/cleanup.h"
#include "util/text.h"

void history_report_free(struct history_report *r)
{
	free(r->path);
	free(r->runs);
	for (size_t i = 0; r->series && i < r->nr_series; i++)
		free(r->series[i].key.params);
	free(r->series);
	memset(r, 0, sizeof(*r));
}

void history_reports_free(struct history_report *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		history_report_free(&r[i]);
	free(r);
}

void history_points_free(struct history_point *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++) {
		free(p[i].s.key.params);
		free(p[i].path);
	}
	free(p);
}

/* A string of o (nested keys: "host", "timing", "model"), cleaned and cut into dst; "" when
 * absent or not a string. */
static void get_str(char *dst, size_t len, const json_t *o, const char *k1, const char *k2)
{
	const json_t *v = json_object_get(o, k1);
	const char *s;

	if (k2)
		v = json_object_get(v, k2);
	s = json_string_value(v);
	text_clean_copy(dst, len, s ? s : "");
}

/* The commit of a "git:COMMIT" source identity (lab/builder/kernel_source.c), else "". */
static void source_commit(char *dst, size_t len, const char *source)
{
	const char *c = source + 4;
	size_t n;

	dst[0] = '\0';
	if (strncmp(source, "git:", 4))
		return;
	n = strspn(c, "0123456789abcdef");
	if (!c[n] && (n == 40 || n == 64) && n < len)
		memcpy(dst, c, n + 1);
}

/* A hex digest (build keys) or "". */
static void get_hex(char *dst, size_t len, const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	dst[0] = '\0';
	if (s && strlen(s) < len && strspn(s, "0123456789abcdef") == strlen(s))
		memcpy(dst, s, strlen(s) + 1);
}

static void read_run(const json_t *run, size_t i, struct history_run *out)
{
	const json_t *kernel = json_object_get(run, "kernel"), *host = json_object_get(run, "host");
	const json_t *build = json_object_get(kernel, "build");
	json_int_t g = json_integer_value(json_object_get(host, "guests_at_once"));
	char label[HISTORY_NAME];

	/* series_add_report checked what it reads (status, kernel, topology, workloads); the
	 * rest is optional and taken only when it has the right type. */
	out->index = (unsigned)i;
	get_str(out->status, sizeof(out->status), run, "status", NULL);
	text_clean_copy(out->kernel, sizeof(out->kernel), series_run_label(run, label, sizeof(label)));
	get_str(out->variant, sizeof(out->variant), kernel, "variant", NULL);
	get_str(out->release, sizeof(out->release), kernel, "release", NULL);
	get_str(out->source, sizeof(out->source), build, "source", NULL);
	source_commit(out->commit, sizeof(out->commit), out->source);
	get_hex(out->build_key, sizeof(out->build_key), build, "key");
	get_hex(out->image_sha256, sizeof(out->image_sha256), kernel, "image_sha256");
	get_hex(out->config_sha256, sizeof(out->config_sha256), kernel, "config_sha256");
	text_clean_copy(out->timing, sizeof(out->timing), series_run_timing(run));
	get_str(out->accel, sizeof(out->accel), host, "accel", NULL);
	get_str(out->uri, sizeof(out->uri), host, "uri", NULL);
	get_str(out->qemu, sizeof(out->qemu), host, "qemu_version", NULL);
	out->contended = json_is_true(json_object_get(json_object_get(host, "noise"), "contended"));
	out->guests_at_once = g > 0 && g <= 65536 ? (unsigned)g : 0;
}

static int read_runs(const json_t *doc, struct history_report *out)
{
	const json_t *runs = json_object_get(doc, "runs"), *run;
	size_t i;

	out->runs = calloc(json_array_size(runs) + 1, sizeof(*out->runs));
	if (!out->runs)
		return -ENOMEM;
	json_array_foreach(runs, i, run)
		read_run(run, i, &out->runs[out->nr_runs++]);
	return 0;
}

static int summarize(const struct series *x, struct history_series *out)
{
	_cleanup_free_ double *means = malloc((x->n ? x->n : 1) * sizeof(*means));
	struct boot_stats bs;
	struct stats_summary sum;
	int r;

	if (!means)
		return -ENOMEM;
	out->mean_kind = boots_mean_kind(out->key.unit, x->v, x->n);
	r = boots_summarize(x->boot, x->v, x->n, out->mean_kind, means, &bs, &sum);
	if (r < 0)
		return r;
	/* Finite values can still add up to infinity: a mean the index cannot hold. */
	if (!isfinite(sum.mean))
		return -EINVAL;
	out->boots = bs.boots;
	out->values = bs.values;
	out->mean = sum.mean;
	out->cv_between = bs.cv_between;
	out->cv_within = bs.cv_within;
	return 0;
}

static int read_series(const struct series_set *s, const struct series *x,
		       struct history_series *out)
{
	const struct series_what *g = &s->groups[s->keys[x->key].group];
	const struct series_variant *v = &s->variants[x->variant];
	const char *timing = series_variant_timing(v);

	/* The set's strings are cleaned already; copying cuts them to the row's sizes. */
	text_clean_copy(out->key.topology, sizeof(out->key.topology), g->topology);
	text_clean_copy(out->key.workload, sizeof(out->key.workload), g->workload);
	text_clean_copy(out->key.metric, sizeof(out->key.metric), g->metric);
	text_clean_copy(out->key.unit, sizeof(out->key.unit), g->unit);
	out->key.params = strdup(g->params_text);
	if (!out->key.params)
		return -ENOMEM;
	out->key.tasks = s->keys[x->key].tasks;
	out->key.higher = g->higher;
	out->key.primary = workload_metric_is_primary(g->workload, g->metric);
	text_clean_copy(out->kernel, sizeof(out->kernel), v->label);
	text_clean_copy(out->timing, sizeof(out->timing), timing ? timing : "mixed");
	return summarize(x, out);
}

/* Every series of the set, in the order of lab compare's tables, then by kernel.  Values
 * each finite can still overflow once summed (1e308 twice): such a report is refused. */
static int read_all_series(const struct series_set *s, struct history_report *out,
			   struct lab_error *err)
{
	_cleanup_free_ size_t *keys = series_sorted_keys(s);
	int r;

	out->series = calloc(s->nr_series + 1, sizeof(*out->series));
	if (!keys || !out->series)
		return -ENOMEM;
	for (size_t k = 0; k < s->nr_keys; k++)
		for (size_t v = 0; v < s->nr_variants; v++) {
			const struct series *x = series_get(s, keys[k], v);

			if (!x)
				continue;
			r = read_series(s, x, &out->series[out->nr_series++]);
			if (r == -EINVAL) {
				char name[300];

				series_key_name(s, keys[k], name, sizeof(name));
				error_set(err, "", "%s (%s): the values cannot be summarised (not "
						   "finite once averaged)", name, s->variants[v].label);
				error_set_file(err, out->path);
			}
			if (r < 0)
				return r;
		}
	return 0;
}

static void read_report(const json_t *doc, struct history_report *out)
{
	get_str(out->id, sizeof(out->id), doc, "id", NULL);
	get_str(out->created, sizeof(out->created), doc, "created", NULL);
	get_str(out->job, sizeof(out->job), doc, "job", "name");
	get_str(out->status, sizeof(out->status), doc, "status", NULL);
	get_str(out->schema, sizeof(out->schema), doc, "schema", NULL);
}

int history_rows_from_report(json_t *doc, const char *path, const char *sha256,
			     struct history_report *out, struct lab_error *err)
{
	struct series_set s;
	int r;

	memset(out, 0, sizeof(*out));
	series_init(&s);
	/* The series reader validates the report (schema, runs, workloads, metrics). */
	r = series_add_report(&s, doc, path, NULL, err);
	if (r == 0) {
		out->path = strdup(path);
		r = out->path ? 0 : -ENOMEM;
	}
	if (r == 0) {
		text_clean_copy(out->sha256, sizeof(out->sha256), sha256);
		read_report(doc, out);
		r = read_runs(doc, out);
	}
	if (r == 0)
		r = read_all_series(&s, out, err);
	series_free(&s);
	if (r < 0)
		history_report_free(out);
	return r;
}

/* ---- JSON ----------------------------------------------------------------------------- */

/* "" is absent: null. */
static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

/* Undefined or unbounded values are null, as in `lab compare --json`. */
static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *history_run_json(const struct history_run *r)
{
	return json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:I,s:o,s:o}",
			 "index",
			 (json_int_t)r->index, "status", str_or_null(r->status), "kernel",
			 str_or_null(r->kernel), "variant", str_or_null(r->variant), "release",
			 str_or_null(r->release), "source", str_or_null(r->source), "commit",
			 str_or_null(r->commit), "build_key", str_or_null(r->build_key), "timing",
			 str_or_null(r->timing), "accel", str_or_null(r->accel), "uri",
			 str_or_null(r->uri), "qemu_version", str_or_null(r->qemu), "contended",
			 r->contended, "guests_at_once", (json_int_t)r->guests_at_once,
			 "image_sha256", str_or_null(r->image_sha256), "config_sha256",
			 str_or_null(r->config_sha256));
}

/* params is canonical JSON text written by the index itself; null should it not parse. */
static json_t *params_json(const char *params)
{
	json_t *p = params ? json_loads(params, JSON_REJECT_DUPLICATES, NULL) : NULL;

	return p ? p : json_null();
}

static json_t *key_json(const struct history_key *k)
{
	return json_pack("{s:o,s:o,s:o,s:I,s:o,s:o,s:s,s:b}", "topology", str_or_null(k->topology),
			 "workload", str_or_null(k->workload), "params", params_json(k->params),
			 "tasks", (json_int_t)k->tasks, "metric", str_or_null(k->metric), "unit",
			 str_or_null(k->unit), "better", k->higher ? "higher" : "lower", "primary",
			 k->primary);
}

/* What one report says about a series: the summary per boot. */
static json_t *summary_json(const struct history_series *s)
{
	return json_pack("{s:o,s:o,s:s,s:I,s:I,s:o,s:o,s:o}", "kernel", str_or_null(s->kernel),
			 "timing", str_or_null(s->timing), "mean_kind",
			 s->mean_kind == STATS_HARMONIC ? "harmonic" : "arithmetic", "boots",
			 (json_int_t)s->boots, "values", (json_int_t)s->values, "mean",
			 num_or_null(s->mean), "cv_between", num_or_null(s->cv_between), "cv_within",
			 num_or_null(s->cv_within));
}

/* o gets the keys of add (consumed); NULL when either is. */
static json_t *merge(json_t *o, json_t *add)
{
	if (o && add && json_object_update(o, add) == 0) {
		json_decref(add);
		return o;
	}
	json_decref(o);
	json_decref(add);
	return NULL;
}

json_t *history_series_json(const struct history_series *s)
{
	return merge(key_json(&s->key), summary_json(s));
}

/* An array of n converted items; NULL when one is. */
#define ARRAY_JSON(arr, n, conv)                                                               \
	({                                                                                     \
		json_t *_a = json_array();                                                     \
		for (size_t _i = 0; _a && _i < (n); _i++)                                      \
			if (json_array_append_new(_a, conv(&(arr)[_i])) < 0) {                 \
				json_decref(_a);                                               \
				_a = NULL;                                                     \
			}                                                                      \
		_a;                                                                            \
	})

json_t *history_report_json(const struct history_report *r)
{
	json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:I}", "path", str_or_null(r->path),
			      "sha256", str_or_null(r->sha256), "id", str_or_null(r->id), "created",
			      str_or_null(r->created), "job", str_or_null(r->job), "status",
			      str_or_null(r->status), "schema", str_or_null(r->schema), "runs",
			      ARRAY_JSON(r->runs, r->nr_runs, history_run_json), "nr_series",
			      (json_int_t)r->nr_series);

	if (o && r->series &&
	    json_object_set_new(o, "series", ARRAY_JSON(r->series, r->nr_series,
							 history_series_json)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *history_list_json(const struct history_report *r, size_t n)
{
	return json_pack("{s:s,s:o}", "schema", HISTORY_LIST_SCHEMA, "reports",
			 ARRAY_JSON(r, n, history_report_json));
}

int history_point_same_series(const struct history_point *a, const struct history_point *b)
{
	const struct history_key *x = &a->s.key, *y = &b->s.key;

	return !strcmp(x->topology, y->topology) && !strcmp(x->workload, y->workload) &&
	       !strcmp(x->params ? x->params : "", y->params ? y->params : "") &&
	       x->tasks == y->tasks && !strcmp(x->metric, y->metric) && !strcmp(x->unit, y->unit) &&
	       x->higher == y->higher && !strcmp(a->s.timing, b->s.timing);
}

enum modelfit history_point_fit(const struct history_point *p, char *why, size_t len)
{
	const struct history_key *k = &p->s.key;
	_cleanup_json_ json_t *params = params_json(k->params);

	return modelfit_series(p->s.timing, 0, k->workload, params, k->metric, k->tasks, why, len);
}

static json_t *point_json(const struct history_point *p)
{
	return merge(summary_json(&p->s),
		     json_pack("{s:o,s:o,s:o,s:o}", "report", str_or_null(p->report_id), "created",
			       str_or_null(p->created), "job", str_or_null(p->job), "path",
			       str_or_null(p->path)));
}

/* One series: its key and timing model, and the points [0..n) of it. */
static json_t *group_json(const struct history_point *p, size_t n)
{
	char why[512];
	enum modelfit fit = history_point_fit(p, why, sizeof(why));
	/* A series the model is blind to says so beside its points: its flat line is no "no
	 * change" (model_fit partly: a change is real, the absence of one is not). */
	json_t *g = merge(key_json(&p->s.key),
			  json_pack("{s:o,s:s,s:o}", "timing", str_or_null(p->s.timing),
				    "model_fit", modelfit_name(fit), "outside_model",
				    why[0] ? json_string(why) : json_null()));

	if (g && json_object_set_new(g, "points", ARRAY_JSON(p, n, point_json)) < 0) {
		json_decref(g);
		return NULL;
	}
	return g;
}

json_t *history_points_json(const struct history_point *p, size_t n)
{
	json_t *groups = json_array();

	for (size_t i = 0, j; groups && i < n; i = j) {
		for (j = i + 1; j < n && history_point_same_series(&p[i], &p[j]); j++)
			;
		if (json_array_append_new(groups, group_json(&p[i], j - i)) < 0) {
			json_decref(groups);
			groups = NULL;
		}
	}
	return json_pack("{s:s,s:o}", "schema", HISTORY_SERIES_SCHEMA, "series", groups);
}
