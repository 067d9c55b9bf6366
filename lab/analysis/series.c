#include "analysis/series.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/runreport.h"
#include "util/cleanup.h"
#include "util/jsonpath.h"
#include "util/text.h"

/* Lookup strings join their parts with a character no report string is likely to hold, and
 * which jansson accepts in keys (valid UTF-8). */
#define SEP "\x1f"

/* Longest unit and metric name the results channel lets through (lab/proto/channel.c,
 * check_metric and check_output). */
#define MAX_UNIT 32
#define MAX_METRIC 64

void series_init(struct series_set *s)
{
	memset(s, 0, sizeof(*s));
}

static void what_free(struct series_what *w)
{
	free(w->topology);
	free(w->workload);
	json_decref(w->params);
	free(w->params_text);
	free(w->metric);
	free(w->unit);
}

void series_free(struct series_set *s)
{
	for (size_t i = 0; i < s->nr_reports; i++) {
		free(s->reports[i].file);
		json_decref(s->reports[i].doc);
	}
	for (size_t i = 0; i < s->nr_variants; i++) {
		free(s->variants[i].label);
		json_decref(s->variants[i].statuses);
		json_decref(s->variants[i].workloads);
		json_decref(s->variants[i].timings);
		json_decref(s->variants[i].classes);
		warn_tally_free(&s->variants[i].warn);
		deltas_tally_free(&s->variants[i].deltas);
	}
	for (size_t i = 0; i < s->nr_groups; i++)
		what_free(&s->groups[i]);
	for (size_t i = 0; i < s->nr_series; i++) {
		free(s->series[i].v);
		free(s->series[i].report);
		free(s->series[i].boot);
	}
	free(s->learned);
	free(s->reports);
	free(s->variants);
	free(s->groups);
	free(s->keys);
	free(s->series);
	json_decref(s->index);
	series_init(s);
}

/* Room for one more element in a growable array. */
static int grow(void *arrp, size_t *cap, size_t n, size_t elem)
{
	void **arr = arrp;
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	if (ncap > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* The index maps lookup strings to array indexes; -1 when absent. */
static long index_get(const struct series_set *s, const char *k)
{
	json_t *v = json_object_get(s->index, k);

	return v ? (long)json_integer_value(v) : -1;
}

static int index_put(struct series_set *s, const char *k, size_t i)
{
	if (!s->index && !(s->index = json_object()))
		return -ENOMEM;
	return json_object_set_new(s->index, k, json_integer((json_int_t)i)) < 0 ? -ENOMEM : 0;
}

int series_unit_is_rate(const char *unit)
{
	size_t n = strlen(unit);

	return n > 2 && !strcmp(unit + n - 2, "/s");
}

const char *series_run_label(const json_t *run, char *buf, size_t len)
{
	static const char *const keys[] = { "label", "variant", "release" };
	const json_t *k = json_object_get(run, "kernel");
	const char *image;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *v = json_string_value(json_object_get(k, keys[i]));

		if (v && v[0]) {
			text_clean_copy(buf, len, v);
			return buf;
		}
	}
	image = json_string_value(json_object_get(k, "image"));
	if (image && image[0]) {
		const char *slash = strrchr(image, '/');

		text_clean_copy(buf, len, slash && slash[1] ? slash + 1 : image);
		return buf;
	}
	return "unknown kernel";
}

void series_labels(json_t *const *docs, size_t n, char *buf, size_t len, unsigned *count)
{
	_cleanup_json_ json_t *seen = json_object();
	size_t used = 0;

	buf[0] = '\0';
	*count = 0;
	for (size_t i = 0; seen && i < n; i++) {
		json_t *runs = json_object_get(docs[i], "runs"), *run;
		size_t k;

		json_array_foreach(runs, k, run) {
			char tmp[256];
			const char *l = series_run_label(run, tmp, sizeof(tmp));

			if (json_object_get(seen, l) || json_object_set_new(seen, l, json_true()) < 0)
				continue;
			(*count)++;
			if (used < len)
				used += (size_t)snprintf(buf + used, len - used, "%s%s",
							 *count > 1 ? ", " : "", l);
		}
	}
}

const struct series *series_get(const struct series_set *s, size_t key, size_t variant)
{
	char k[64];
	long i;

	snprintf(k, sizeof(k), "s" SEP "%zu" SEP "%zu", key, variant);
	i = index_get(s, k);
	return i < 0 ? NULL : &s->series[i];
}

/* ---- reading one report -------------------------------------------------------------- */

struct reader {
	struct series_set *s;
	size_t report;
	const char *variant;     /* override, or NULL */
	struct lab_error *err;
};

static int bad(struct reader *r, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct reader *r, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_setv(r->err, path, fmt, ap);
	va_end(ap);
	error_set_file(r->err, r->s->reports[r->report].file);
	return -EINVAL;
}

static int get_object(struct reader *r, const json_t *o, const char *prefix, const char *key,
		      json_t **out)
{
	char p[JSONPATH_LEN];

	*out = json_object_get(o, key);
	if (json_is_object(*out))
		return 0;
	jsonpath_key(p, sizeof(p), prefix, key);
	return bad(r, p, *out ? "must be an object" : "required");
}

static int get_array(struct reader *r, const json_t *o, const char *prefix, const char *key,
		     json_t **out)
{
	char p[JSONPATH_LEN];

	*out = json_object_get(o, key);
	if (json_is_array(*out))
		return 0;
	jsonpath_key(p, sizeof(p), prefix, key);
	return bad(r, p, *out ? "must be an array" : "required");
}

static int get_string(struct reader *r, const json_t *o, const char *prefix, const char *key,
		      const char **out)
{
	char p[JSONPATH_LEN];
	json_t *v = json_object_get(o, key);

	*out = json_string_value(v);
	if (*out)
		return 0;
	jsonpath_key(p, sizeof(p), prefix, key);
	return bad(r, p, v ? "must be a string" : "required");
}

static int get_int(struct reader *r, const json_t *o, const char *prefix, const char *key,
		   long long lo, long long hi, long long *out)
{
	char p[JSONPATH_LEN];
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi) {
		*out = json_integer_value(v);
		return 0;
	}
	jsonpath_key(p, sizeof(p), prefix, key);
	return bad(r, p, v ? "must be an integer %lld..%lld" : "required", lo, hi);
}

/* "8 vCPUs (4s x 1d x 2c x 1t), 4 nodes" from topology.requested. */
static int topology_name(struct reader *r, const json_t *run, const char *prefix, char *buf,
			 size_t len)
{
	static const char *const f[] = { "vcpus", "sockets", "dies", "cores", "threads" };
	char p[JSONPATH_LEN], q[JSONPATH_LEN];
	json_t *topo, *req, *nodes;
	long long v[5];

	jsonpath_key(p, sizeof(p), prefix, "topology");
	if (get_object(r, run, prefix, "topology", &topo) < 0 ||
	    get_object(r, topo, p, "requested", &req) < 0)
		return -EINVAL;
	jsonpath_key(q, sizeof(q), p, "requested");
	for (int i = 0; i < 5; i++)
		if (get_int(r, req, q, f[i], 1, 1 << 20, &v[i]) < 0)
			return -EINVAL;
	if (get_array(r, req, q, "nodes", &nodes) < 0)
		return -EINVAL;
	snprintf(buf, len, "%lld vCPUs (%llds x %lldd x %lldc x %lldt), %zu node%s", v[0], v[1],
		 v[2], v[3], v[4], json_array_size(nodes), json_array_size(nodes) == 1 ? "" : "s");
	return 0;
}

static long add_variant(struct series_set *s, const char *label)
{
	_cleanup_free_ char *k = NULL;
	struct series_variant *v;
	long i;

	if (asprintf(&k, "v" SEP "%s", label) < 0)
		return -ENOMEM;
	i = index_get(s, k);
	if (i >= 0)
		return i;
	if (grow(&s->variants, &s->cap_variants, s->nr_variants, sizeof(*v)) < 0)
		return -ENOMEM;
	v = &s->variants[s->nr_variants];
	memset(v, 0, sizeof(*v));
	v->last_report = SIZE_MAX;
	v->label = strdup(label);
	v->statuses = json_object();
	v->workloads = json_object();
	v->timings = json_object();
	v->classes = json_object();
	if (!v->label || !v->statuses || !v->workloads || !v->timings || !v->classes) {
		free(v->label);
		json_decref(v->statuses);
		json_decref(v->workloads);
		json_decref(v->timings);
		json_decref(v->classes);
		return -ENOMEM;
	}
	if (index_put(s, k, s->nr_variants) < 0)
		return -ENOMEM;
	return (long)s->nr_variants++;
}

/* Whether a result of the run has info.KEY (lock_stat: a lockdep twin; lock_insns: the
 * lock-instruction counter). */
static int run_has_info(const json_t *run, const char *key)
{
	const json_t *w, *res;
	size_t i, k;

	json_array_foreach(json_object_get(run, "workloads"), i, w)
		json_array_foreach(json_object_get(w, "results"), k, res)
			if (json_object_get(json_object_get(res, "info"), key))
				return 1;
	return 0;
}

static int run_has_results(const json_t *run)
{
	const json_t *w;
	size_t i;

	json_array_foreach(json_object_get(run, "workloads"), i, w)
		if (json_array_size(json_object_get(w, "results")))
			return 1;
	return 0;
}

static int count_run(struct series_set *s, size_t variant, size_t report, const json_t *run,
		     const char *status)
{
	struct series_variant *v = &s->variants[variant];
	json_int_t c = json_integer_value(json_object_get(v->statuses, status));
	const char *timing = series_run_timing(run);
	json_int_t tc = json_integer_value(json_object_get(v->timings, timing));

	const char *klass = series_run_class(run);
	json_int_t cc = json_integer_value(json_object_get(v->classes, klass));

	if (json_object_set_new(v->timings, timing, json_integer(tc + 1)) < 0 ||
	    json_object_set_new(v->classes, klass, json_integer(cc + 1)) < 0)
		return -ENOMEM;
	const json_t *noise = json_object_get(json_object_get(run, "host"), "noise");
	json_int_t cpus = json_integer_value(json_object_get(json_object_get(noise, "before"),
							     "cpus"));

	v->contended += json_is_true(json_object_get(noise, "contended"));
	v->lockdep += run_has_info(run, "lock_stat");
	v->lock_insns += run_has_info(run, "lock_insns");
	/* Only under a host-clock model does the profile's plugin move a figure (it slows the
	 * guest); under a deterministic one the same seed gives the same figures with and without
	 * it.  A run that failed before its results says nothing either way. */
	if (!json_is_true(json_object_get(json_object_get(json_object_get(run, "host"), "timing"),
					  "deterministic"))) {
		if (run_has_info(run, "profile") || json_object_get(run, "profile_error"))
			v->profiled++;
		else if (run_has_results(run))
			v->unprofiled++;
	}
	if (cpus > 0 && cpus < 1 << 20 && (!v->host_cpus || (unsigned)cpus < v->host_cpus))
		v->host_cpus = (unsigned)cpus;
	v->runs++;
	if (strcmp(status, "ok"))
		v->failed++;
	if (v->last_report != report) {
		v->reports++;
		v->last_report = report;
	}
	return json_object_set_new(v->statuses, status, json_integer(c + 1)) < 0 ? -ENOMEM : 0;
}

/* What one workload entry of one run contributes to: its params and names. */
struct wl {
	const char *topology;
	char name[128];            /* text_clean_copy of the workload's name */
	json_t *params;            /* without tasks */
	char *params_text;
	size_t variant;
	size_t boot;               /* the run's boot identifier */
};

static long add_group(struct series_set *s, const struct wl *w, const char *metric,
		      const char *unit, int higher)
{
	_cleanup_free_ char *k = NULL;
	struct series_what *g;
	long i;

	if (asprintf(&k, "g" SEP "%s" SEP "%s" SEP "%s" SEP "%s", w->topology, w->name,
		     w->params_text, metric) < 0)
		return -ENOMEM;
	i = index_get(s, k);
	if (i >= 0)
		return i;
	if (grow(&s->groups, &s->cap_groups, s->nr_groups, sizeof(*g)) < 0)
		return -ENOMEM;
	g = &s->groups[s->nr_groups];
	*g = (struct series_what){ .topology = strdup(w->topology), .workload = strdup(w->name),
				   .params = json_incref(w->params),
				   .params_text = strdup(w->params_text), .metric = strdup(metric),
				   .unit = strdup(unit), .higher = higher };
	if (!g->topology || !g->workload || !g->params_text || !g->metric || !g->unit) {
		what_free(g);
		return -ENOMEM;
	}
	if (index_put(s, k, s->nr_groups) < 0)
		return -ENOMEM;
	return (long)s->nr_groups++;
}

static long add_key(struct series_set *s, size_t group, unsigned tasks)
{
	char k[64];
	long i;

	snprintf(k, sizeof(k), "k" SEP "%zu" SEP "%u", group, tasks);
	i = index_get(s, k);
	if (i >= 0)
		return i;
	if (grow(&s->keys, &s->cap_keys, s->nr_keys, sizeof(*s->keys)) < 0 ||
	    index_put(s, k, s->nr_keys) < 0)
		return -ENOMEM;
	s->keys[s->nr_keys] = (struct series_key){ .group = group, .tasks = tasks };
	return (long)s->nr_keys++;
}

static int add_sample(struct series_set *s, size_t key, const struct wl *w, size_t report,
		      double v)
{
	char k[64];
	long i;
	struct series *se;

	snprintf(k, sizeof(k), "s" SEP "%zu" SEP "%zu", key, w->variant);
	i = index_get(s, k);
	if (i < 0) {
		if (grow(&s->series, &s->cap_series, s->nr_series, sizeof(*se)) < 0 ||
		    index_put(s, k, s->nr_series) < 0)
			return -ENOMEM;
		i = (long)s->nr_series++;
		s->series[i] = (struct series){ .key = key, .variant = w->variant };
	}
	se = &s->series[i];
	if (se->n == se->cap) {
		size_t ncap = se->cap ? se->cap * 2 : 8;
		double *nv = realloc(se->v, ncap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		se->v = nv;
		size_t *nr = realloc(se->report, ncap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		se->report = nr;
		size_t *nb = realloc(se->boot, ncap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		se->boot = nb;
		se->cap = ncap;
	}
	se->v[se->n] = v;
	se->boot[se->n] = w->boot;
	se->report[se->n++] = report;
	return 0;
}

static int read_metric(struct reader *r, const struct wl *w, unsigned tasks, const char *name,
		       const json_t *m, const char *prefix)
{
	struct series_set *s = r->s;
	char p[JSONPATH_LEN], q[JSONPATH_LEN], metric[MAX_METRIC + 1], unit_c[MAX_UNIT + 1];
	const char *unit, *better;
	json_t *value;
	long g, k;

	jsonpath_key(p, sizeof(p), prefix, name);
	if (!json_is_object(m))
		return bad(r, p, "must be an object");
	if (strlen(name) > MAX_METRIC)
		return bad(r, p, "metric name longer than %d bytes", MAX_METRIC);
	if (get_string(r, m, p, "unit", &unit) < 0 || get_string(r, m, p, "better", &better) < 0)
		return -EINVAL;
	jsonpath_key(q, sizeof(q), p, "unit");
	if (strlen(unit) > MAX_UNIT)
		return bad(r, q, "longer than %d bytes", MAX_UNIT);
	jsonpath_key(q, sizeof(q), p, "better");
	if (strcmp(better, "higher") && strcmp(better, "lower"))
		return bad(r, q, "must be \"higher\" or \"lower\"");
	value = json_object_get(m, "value");
	jsonpath_key(q, sizeof(q), p, "value");
	if (!json_is_number(value) || !isfinite(json_number_value(value)))
		return bad(r, q, value ? "must be a finite number" : "required");
	text_clean_copy(metric, sizeof(metric), name);
	text_clean_copy(unit_c, sizeof(unit_c), unit);
	g = add_group(s, w, metric, unit_c, !strcmp(better, "higher"));
	if (g < 0)
		return (int)g;
	if (strcmp(s->groups[g].unit, unit_c) || s->groups[g].higher != !strcmp(better, "higher"))
		return bad(r, p, "unit \"%s\", better \"%s\" differ from \"%s\", \"%s\" of the "
				 "same metric in an earlier run or report",
			   unit_c, better, s->groups[g].unit, s->groups[g].higher ? "higher" : "lower");
	k = add_key(s, (size_t)g, tasks);
	if (k < 0)
		return (int)k;
	return add_sample(s, (size_t)k, w, r->report, json_number_value(value));
}

static int read_result(struct reader *r, const struct wl *w, const json_t *res,
		       const char *prefix)
{
	char p[JSONPATH_LEN];
	long long tasks, rep;
	json_t *metrics, *m;
	const char *name;

	if (!json_is_object(res))
		return bad(r, prefix, "must be an object");
	if (get_int(r, res, prefix, "tasks", 1, 1 << 24, &tasks) < 0 ||
	    (json_object_get(res, "repetition") &&
	     get_int(r, res, prefix, "repetition", 0, 1 << 24, &rep) < 0) ||
	    get_object(r, res, prefix, "metrics", &metrics) < 0)
		return -EINVAL;
	jsonpath_key(p, sizeof(p), prefix, "metrics");
	json_object_foreach(metrics, name, m) {
		int e = read_metric(r, w, (unsigned)tasks, name, m, p);

		if (e < 0)
			return e;
	}
	return 0;
}

static int read_workload(struct reader *r, struct wl *w, const json_t *wj, const char *prefix)
{
	char p[JSONPATH_LEN];
	const char *status, *name;
	json_t *params, *results, *res;
	_cleanup_free_ char *k = NULL;
	size_t i;
	int e;

	if (!json_is_object(wj))
		return bad(r, prefix, "must be an object");
	if (get_string(r, wj, prefix, "name", &name) < 0 ||
	    get_object(r, wj, prefix, "params", &params) < 0 ||
	    get_string(r, wj, prefix, "status", &status) < 0 ||
	    get_array(r, wj, prefix, "results", &results) < 0)
		return -EINVAL;
	text_clean_copy(w->name, sizeof(w->name), name);
	w->params = json_deep_copy(params);
	if (!w->params)
		return -ENOMEM;
	/* The task list is the x axis of a series and repetitions only says how many samples
	 * there are: neither changes what is measured, so A and B may differ in them. */
	json_object_del(w->params, "tasks");
	json_object_del(w->params, "repetitions");
	w->params_text = json_dumps(w->params, JSON_COMPACT | JSON_SORT_KEYS);
	if (!w->params_text ||
	    asprintf(&k, "%s / %s %s", w->topology, w->name, w->params_text) < 0 ||
	    json_object_set_new(r->s->variants[w->variant].workloads, k, json_true()) < 0)
		return -ENOMEM;
	if (strcmp(status, "ok"))
		return 0;
	if ((e = deltas_tally_add(&r->s->variants[w->variant].deltas, k, wj, w->boot)) < 0)
		return e;
	jsonpath_key(p, sizeof(p), prefix, "results");
	json_array_foreach(results, i, res) {
		char q[JSONPATH_LEN];

		jsonpath_index(q, sizeof(q), p, i);
		if ((e = read_result(r, w, res, q)) < 0)
			return e;
	}
	return 0;
}

/* The run's kernel warnings (runs[].warnings, core/kwarn.h), when its report has them:
 * checked as strictly as the rest, a bad one named by its path. */
static int read_warnings(struct reader *r, struct warn_tally *t, const json_t *run,
			 const char *prefix)
{
	struct kwarn_list l;
	int e;

	if (!json_object_get(run, "warnings"))
		return 0;
	e = kwarn_list_from_json(run, prefix, &l, r->err);
	if (e == 0)
		e = warn_tally_add(t, &l);
	else if (e == -EINVAL)
		error_set_file(r->err, r->s->reports[r->report].file);
	kwarn_list_free(&l);
	return e;
}

static int read_run(struct reader *r, const json_t *run, const char *prefix)
{
	char topo[128], buf[256], p[JSONPATH_LEN];
	const char *status, *label;
	json_t *kernel, *workloads, *wj;
	long variant;
	size_t i, boot;
	int e;

	if (!json_is_object(run))
		return bad(r, prefix, "must be an object");
	if (get_string(r, run, prefix, "status", &status) < 0 ||
	    get_object(r, run, prefix, "kernel", &kernel) < 0 ||
	    get_array(r, run, prefix, "workloads", &workloads) < 0 ||
	    topology_name(r, run, prefix, topo, sizeof(topo)) < 0)
		return -EINVAL;
	label = r->variant ? r->variant : series_run_label(run, buf, sizeof(buf));
	variant = add_variant(r->s, label);
	if (variant < 0 || count_run(r->s, (size_t)variant, r->report, run, status) < 0)
		return -ENOMEM;
	if ((e = read_warnings(r, &r->s->variants[variant].warn, run, prefix)) < 0)
		return e;
	boot = r->s->nr_boots++;
	jsonpath_key(p, sizeof(p), prefix, "workloads");
	json_array_foreach(workloads, i, wj) {
		struct wl w = { .topology = topo, .variant = (size_t)variant, .boot = boot };
		char q[JSONPATH_LEN];

		jsonpath_index(q, sizeof(q), p, i);
		e = read_workload(r, &w, wj, q);
		json_decref(w.params);
		free(w.params_text);
		if (e < 0)
			return e;
	}
	return 0;
}

const char *series_run_timing(const json_t *run)
{
	const json_t *host = json_object_get(run, "host");
	const json_t *t = json_object_get(host, "timing");
	/* The key pools (the model with its quantum); reports before keys have the model. */
	const char *m = json_string_value(json_object_get(t, "key"));

	if (!m)
		m = json_string_value(json_object_get(t, "model"));
	if (!m)
		m = json_string_value(json_object_get(host, "accel"));
	/* Only plain names: the value becomes a key and is printed. */
	if (!m || !m[0] || strlen(m) >= TIMING_KEY_MAX ||
	    strspn(m, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(m))
		return "unknown";
	return m;
}

const char *series_run_class(const json_t *run)
{
	const char *c = json_string_value(json_object_get(json_object_get(run, "host"), "class"));

	/* Only names `lab run --host-class` allows (a Slurm node feature, core/slurmfmt.h): the
	 * value becomes a key, is printed. */
	if (!c || !c[0] || strlen(c) > 63 ||
	    strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
		    strlen(c))
		return "";
	return c;
}

const char *series_variant_class(const struct series_variant *v)
{
	const char *k;
	json_t *c;

	if (json_object_size(v->classes) > 1)
		return NULL;
	json_object_foreach(v->classes, k, c)
		return k;
	return "";
}

const char *series_variant_timing(const struct series_variant *v)
{
	const char *k;
	json_t *c;

	if (json_object_size(v->timings) != 1)
		return NULL;
	json_object_foreach(v->timings, k, c)
		return k;
	return NULL;
}

/* "YYYY-MM-DDTHH:MM:SSZ" -> seconds since the epoch, or -1. */
static long long parse_created(const char *c)
{
	struct tm tm = { 0 };
	int n = 0;

	if (sscanf(c, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 20 || c[n])
		return -1;
	if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
	    tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

static const char *str_or_empty(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "";
}

static int add_report_entry(struct series_set *s, json_t *doc, const char *file)
{
	struct series_report *rep;

	if (grow(&s->reports, &s->cap_reports, s->nr_reports, sizeof(*rep)) < 0)
		return -ENOMEM;
	rep = &s->reports[s->nr_reports];
	rep->file = strdup(file ? file : "");
	if (!rep->file)
		return -ENOMEM;
	rep->doc = json_incref(doc);
	rep->id = str_or_empty(doc, "id");
	rep->created = str_or_empty(doc, "created");
	rep->job = str_or_empty(json_object_get(doc, "job"), "name");
	rep->created_t = parse_created(rep->created);
	s->nr_reports++;
	return 0;
}

int series_add_report(struct series_set *s, json_t *doc, const char *file, const char *variant,
		      struct lab_error *err)
{
	struct reader r = { .s = s, .report = s->nr_reports, .variant = variant, .err = err };
	const char *schema;
	json_t *runs, *run;
	size_t i;
	int e;

	if (add_report_entry(s, doc, file) < 0)
		return -ENOMEM;
	if (!json_is_object(doc))
		return bad(&r, "", "a report must be a JSON object");
	if (get_string(&r, doc, "", "schema", &schema) < 0)
		return -EINVAL;
	if (strcmp(schema, RUNREPORT_SCHEMA))
		return bad(&r, "schema", "is \"%s\"; this lab reads \"%s\"", schema,
			   RUNREPORT_SCHEMA);
	if (get_array(&r, doc, "", "runs", &runs) < 0)
		return -EINVAL;
	json_array_foreach(runs, i, run) {
		char p[JSONPATH_LEN];

		jsonpath_index(p, sizeof(p), "runs", i);
		if ((e = read_run(&r, run, p)) < 0)
			return e;
	}
	return 0;
}

/* ---- ordering and naming ------------------------------------------------------------- */

static int key_cmp(const void *x, const void *y, void *ud)
{
	const struct series_set *s = ud;
	const struct series_key *a = &s->keys[*(const size_t *)x], *b = &s->keys[*(const size_t *)y];
	const struct series_what *ga = &s->groups[a->group], *gb = &s->groups[b->group];
	int c;

	if ((c = strcmp(ga->topology, gb->topology)) || (c = strcmp(ga->workload, gb->workload)) ||
	    (c = strcmp(ga->params_text, gb->params_text)))
		return c;
	if (a->tasks != b->tasks)
		return a->tasks < b->tasks ? -1 : 1;
	return strcmp(ga->metric, gb->metric);
}

size_t *series_sorted_keys(const struct series_set *s)
{
	size_t *k = malloc((s->nr_keys ? s->nr_keys : 1) * sizeof(*k));

	if (!k)
		return NULL;
	for (size_t i = 0; i < s->nr_keys; i++)
		k[i] = i;
	qsort_r(k, s->nr_keys, sizeof(*k), key_cmp, (void *)s);
	return k;
}

void series_key_name(const struct series_set *s, size_t key, char *buf, size_t len)
{
	const struct series_key *k = &s->keys[key];
	const struct series_what *g = &s->groups[k->group];

	snprintf(buf, len, "%s %s on %s, %u tasks, %s", g->workload, g->params_text, g->topology,
		 k->tasks, g->metric);
}
