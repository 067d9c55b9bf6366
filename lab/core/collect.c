#include "core/collect.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/cleanup.h"

int collect_init(struct guest_log *g, unsigned nr_workloads)
{
	memset(g, 0, sizeof(*g));
	g->nr_workloads = nr_workloads;
	g->t_hello = g->t_first_start = g->t_last_end = g->t_done = -1;
	g->workloads = json_array();
	if (!g->workloads)
		return -ENOMEM;
	for (unsigned i = 0; i < nr_workloads; i++)
		if (json_array_append_new(g->workloads, json_null()) < 0)
			return -ENOMEM;
	return 0;
}

void collect_free(struct guest_log *g)
{
	json_decref(g->observed);
	json_decref(g->workloads);
	json_decref(g->knobs);
	json_decref(g->online);
	g->observed = g->workloads = g->knobs = g->online = NULL;
}

static int get_int(const json_t *o, const char *k, long lo, long hi, long *out)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return -EINVAL;
	*out = (long)json_integer_value(v);
	return 0;
}

static void copy_str(const json_t *o, const char *k, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(buf, len, "%s", s ? s : "");
}

/* Rebuild the guest's topology from checked fields only, so nothing unvalidated reaches
 * the report. */
static int valid_int_array(const json_t *a, size_t max_len, long lo, long hi)
{
	size_t i;
	json_t *v;

	if (!json_is_array(a) || json_array_size(a) > max_len)
		return 0;
	json_array_foreach(a, i, v)
		if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
			return 0;
	return 1;
}

static json_t *check_topology(const json_t *m)
{
	json_t *nodes = json_object_get(m, "nodes"), *dist = json_object_get(m, "distances");
	_cleanup_json_ json_t *out_nodes = json_array();
	size_t i, n;
	json_t *node, *row;

	if (!json_is_array(nodes) || !json_is_array(dist) || !out_nodes)
		return NULL;
	n = json_array_size(nodes);
	if (n == 0 || n > TOPO_MAX_NODES || json_array_size(dist) != n)
		return NULL;
	json_array_foreach(nodes, i, node) {
		long id, mem, managed = 0;
		json_t *cpus = json_object_get(node, "cpus");

		if (get_int(node, "id", 0, TOPO_MAX_NODES - 1, &id) < 0 ||
		    get_int(node, "memory_mib", 0, 1L << 30, &mem) < 0 ||
		    !valid_int_array(cpus, TOPO_MAX_VCPUS, 0, TOPO_MAX_VCPUS - 1))
			return NULL;
		get_int(node, "managed_mib", 0, 1L << 30, &managed);
		json_array_append_new(out_nodes,
				      json_pack("{s:I,s:O,s:I,s:I}", "id", (json_int_t)id, "cpus",
						cpus, "memory_mib", (json_int_t)mem, "managed_mib",
						(json_int_t)managed));
	}
	json_array_foreach(dist, i, row)
		if (!valid_int_array(row, n, 0, 255) || json_array_size(row) != n)
			return NULL;
	return json_pack("{s:O,s:O}", "nodes", out_nodes, "distances", dist);
}

/* A runner's output: {"results":[{"tasks":N,"metrics":{NAME:{value,unit,better}}}]}. */
static int check_metric(const json_t *m)
{
	const char *unit = json_string_value(json_object_get(m, "unit"));
	const char *better = json_string_value(json_object_get(m, "better"));
	json_t *v = json_object_get(m, "value");

	if (!json_is_number(v) || !isfinite(json_number_value(v)) || !unit || strlen(unit) > 32)
		return 0;
	return better && (!strcmp(better, "higher") || !strcmp(better, "lower"));
}

static int check_output(const json_t *out, char *why, size_t len)
{
	json_t *results = json_object_get(out, "results"), *r;
	size_t i;

	if (!json_is_array(results) || json_array_size(results) > COLLECT_MAX_RESULTS) {
		snprintf(why, len, "output.results: must be an array of at most %d entries",
			 COLLECT_MAX_RESULTS);
		return 0;
	}
	json_array_foreach(results, i, r) {
		json_t *metrics = json_object_get(r, "metrics"), *m;
		const char *k;
		long tasks;

		long rep;

		if (get_int(r, "tasks", 1, TOPO_MAX_VCPUS * 64L, &tasks) < 0 ||
		    !json_is_object(metrics) || json_object_size(metrics) > COLLECT_MAX_METRICS) {
			snprintf(why, len, "output.results[%zu]: needs tasks and metrics", i);
			return 0;
		}
		/* Optional: which kept repetition of this task count (0-based). */
		if (json_object_get(r, "repetition") &&
		    get_int(r, "repetition", 0, COLLECT_MAX_RESULTS, &rep) < 0) {
			snprintf(why, len, "output.results[%zu].repetition: must be an integer "
				 "0..%d", i, COLLECT_MAX_RESULTS);
			return 0;
		}
		json_object_foreach(metrics, k, m)
			if (strlen(k) > 64 || !check_metric(m)) {
				snprintf(why, len, "output.results[%zu].metrics.%.64s: invalid", i, k);
				return 0;
			}
	}
	return 1;
}

static int on_workload(struct guest_log *g, const json_t *m, double t)
{
	long idx, code;
	json_t *out = json_object_get(m, "output");
	json_t *wall = json_object_get(m, "wall_s");
	const char *err = json_string_value(json_object_get(m, "stderr"));
	char why[256] = "";
	json_t *rec;

	if (get_int(m, "index", 0, (long)g->nr_workloads - 1, &idx) < 0 ||
	    get_int(m, "exit", -255, 255, &code) < 0)
		return 0;
	if (json_is_object(out) && !check_output(out, why, sizeof(why)))
		out = NULL;
	else if (!json_is_object(out) && code == 0)
		snprintf(why, sizeof(why), "no valid JSON output");
	rec = json_pack("{s:I,s:f,s:O?,s:s?,s:s}", "exit", (json_int_t)code, "wall_s",
			json_is_number(wall) ? json_number_value(wall) : -1.0,
			"output", json_is_object(out) ? out : NULL, "stderr",
			err && strlen(err) <= 8192 ? err : NULL, "error", why);
	if (!rec)
		return 0;
	json_array_set_new(g->workloads, (size_t)idx, rec);
	g->t_last_end = t;
	return 1;
}

/* A knob value as the agent read it: null, a short string or an integer. */
static int knob_value_ok(const json_t *v)
{
	return !v || json_is_null(v) || json_is_integer(v) ||
	       (json_is_string(v) && json_string_length(v) <= 64);
}

static json_t *knob_entry(const json_t *e)
{
	static const char *const statuses[] = {"ok", "not-requested", "unavailable", "failed",
					       "differs", NULL};
	const char *name = json_string_value(json_object_get(e, "name"));
	const char *path = json_string_value(json_object_get(e, "path"));
	const char *st = json_string_value(json_object_get(e, "status"));
	const char *error = json_string_value(json_object_get(e, "error"));
	json_t *req = json_object_get(e, "requested"), *before = json_object_get(e, "before");
	json_t *after = json_object_get(e, "after"), *out;
	int known = 0;

	for (const char *const *s = statuses; st && *s; s++)
		known |= !strcmp(*s, st);
	if (!name || strlen(name) > 64 || !path || strlen(path) > 200 || !known ||
	    !knob_value_ok(req) || !knob_value_ok(before) || !knob_value_ok(after) ||
	    !json_is_boolean(json_object_get(e, "required")) || (error && strlen(error) > 200))
		return NULL;
	out = json_pack("{s:s,s:s,s:O?,s:O?,s:O?,s:s,s:O}", "name", name, "path", path,
			"requested", req, "before", before, "after", after, "status", st,
			"required", json_object_get(e, "required"));
	if (out && error)
		json_object_set_new(out, "error", json_string(error));
	return out;
}

/* {"t":"knobs","ok":bool,"knobs":[ENTRY...],"error"?}: kernel settings the agent applied. */
static int on_knobs(struct guest_log *g, const json_t *m)
{
	json_t *list = json_object_get(m, "knobs"), *e, *out, *entries;
	const char *error = json_string_value(json_object_get(m, "error"));
	size_t i;

	if (!json_is_array(list) || json_array_size(list) > 256 ||
	    !json_is_boolean(json_object_get(m, "ok")) || (error && strlen(error) > 512))
		return 0;
	entries = json_array();
	json_array_foreach(list, i, e) {
		json_t *k = knob_entry(e);

		if (!k) {
			json_decref(entries);
			return 0;
		}
		json_array_append_new(entries, k);
	}
	out = json_pack("{s:O,s:o}", "ok", json_object_get(m, "ok"), "knobs", entries);
	if (!out)
		return 0;
	if (error)
		json_object_set_new(out, "error", json_string(error));
	json_decref(g->knobs);
	g->knobs = out;
	return 1;
}

/* {"t":"cpus-online", present, requested, failed_count, failed:[{cpu, error}], wall_s,
 * rcu_expedited}: the agent brought the CPUs the lab held back with maxcpus= online. */
static int on_online(struct guest_log *g, const json_t *m)
{
	json_t *list = json_object_get(m, "failed"), *e, *failed, *out;
	double wall = json_number_value(json_object_get(m, "wall_s"));
	long present, requested, nfail, cpu;
	size_t i;

	if (get_int(m, "present", 0, TOPO_MAX_VCPUS, &present) < 0 ||
	    get_int(m, "requested", 0, present, &requested) < 0 ||
	    get_int(m, "failed_count", 0, requested, &nfail) < 0 ||
	    !json_is_number(json_object_get(m, "wall_s")) || !(wall >= 0 && wall < 1e7) ||
	    !json_is_boolean(json_object_get(m, "rcu_expedited")) || !json_is_array(list) ||
	    json_array_size(list) > 16 || !(failed = json_array()))
		return 0;
	json_array_foreach(list, i, e) {
		const char *why = json_string_value(json_object_get(e, "error"));

		if (get_int(e, "cpu", 0, TOPO_MAX_VCPUS - 1, &cpu) < 0 || !why || strlen(why) > 128) {
			json_decref(failed);
			return 0;
		}
		json_array_append_new(failed, json_pack("{s:I,s:s}", "cpu", (json_int_t)cpu,
							"error", why));
	}
	out = json_pack("{s:I,s:I,s:I,s:o,s:f,s:O}", "present", (json_int_t)present, "requested",
			(json_int_t)requested, "failed_count", (json_int_t)nfail, "failed", failed,
			"wall_s", wall, "rcu_expedited", json_object_get(m, "rcu_expedited"));
	if (!out)
		return 0;
	json_decref(g->online);
	g->online = out;
	return 1;
}

static int dispatch(struct guest_log *g, const json_t *m, const char *type, double t)
{
	if (!strcmp(type, "hello")) {
		g->hello = 1;
		g->t_hello = t;
		copy_str(m, "agent", g->agent, sizeof(g->agent));
		copy_str(m, "release", g->release, sizeof(g->release));
		return 1;
	}
	if (!strcmp(type, "topology")) {
		json_t *topo = check_topology(m);

		if (!topo)
			return 0;
		json_decref(g->observed);
		g->observed = topo;
		return 1;
	}
	if (!strcmp(type, "heartbeat"))
		return 1;
	if (!strcmp(type, "workload-start")) {
		if (g->t_first_start < 0)
			g->t_first_start = t;
		return 1;
	}
	if (!strcmp(type, "workload"))
		return on_workload(g, m, t);
	if (!strcmp(type, "knobs"))
		return on_knobs(g, m);
	if (!strcmp(type, "cpus-online"))
		return on_online(g, m);
	if (!strcmp(type, "error")) {
		copy_str(m, "msg", g->last_error, sizeof(g->last_error));
		return 1;
	}
	if (!strcmp(type, "done")) {
		g->done = 1;
		g->done_ok = json_is_true(json_object_get(m, "ok"));
		g->t_done = t;
		return 1;
	}
	return 0; /* unknown types are ignored, not trusted */
}

int collect_line(struct guest_log *g, const char *line, size_t len, double t)
{
	json_error_t je;
	_cleanup_json_ json_t *m = NULL;
	const char *type;

	if (len == 0 || len > COLLECT_MAX_LINE)
		return 0;
	m = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	type = json_string_value(json_object_get(m, "t"));
	if (!type || !dispatch(g, m, type, t)) {
		g->bad_lines++;
		return 0;
	}
	return 1;
}

void collect_count(const struct guest_log *g, int *failed, int *missing)
{
	size_t i;
	json_t *w;

	*failed = *missing = 0;
	json_array_foreach(g->workloads, i, w) {
		const char *err = json_string_value(json_object_get(w, "error"));

		if (json_is_null(w))
			(*missing)++;
		else if (json_integer_value(json_object_get(w, "exit")) != 0 || (err && err[0]))
			(*failed)++;
	}
}

static void add_mismatch(json_t *list, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_mismatch(json_t *list, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(list, json_string(buf));
}

static void compare_node(const struct topo_node *rn, const json_t *on, unsigned i, json_t *list)
{
	json_t *cpus = json_object_get(on, "cpus");
	long mem = (long)json_integer_value(json_object_get(on, "memory_mib"));
	double dev = rn->memory_mib ? ((double)mem - (double)rn->memory_mib) / (double)rn->memory_mib
				    : 0;
	int same = json_array_size(cpus) == rn->nr_cpus;

	for (unsigned c = 0; same && c < rn->nr_cpus; c++)
		same = json_integer_value(json_array_get(cpus, c)) == rn->cpus[c];
	if (!same) {
		_cleanup_free_ char *s = json_dumps(cpus, JSON_COMPACT);
		char want[4096];

		topology_cpulist(rn->cpus, rn->nr_cpus, want, sizeof(want));
		add_mismatch(list, "nodes[%u].cpus: requested %s, observed %.200s", i, want,
			     s ? s : "?");
	}
	if (fabs(dev) > 0.05)
		add_mismatch(list, "nodes[%u].memory_mib: requested %lu, observed %ld (%+.1f%%)", i,
			     rn->memory_mib, mem, dev * 100);
}

int collect_compare_topology(const struct topology *req, const json_t *observed,
			     json_t **mismatches)
{
	json_t *list = json_array();
	json_t *nodes = json_object_get(observed, "nodes");
	json_t *dist = json_object_get(observed, "distances");

	*mismatches = list;
	if (!list)
		return -ENOMEM;
	if (!observed) {
		add_mismatch(list, "the guest reported no topology");
		return 0;
	}
	if (json_array_size(nodes) != req->nr_nodes) {
		add_mismatch(list, "nodes: requested %u, observed %zu", req->nr_nodes,
			     json_array_size(nodes));
		return 0;
	}
	for (unsigned i = 0; i < req->nr_nodes; i++)
		compare_node(&req->nodes[i], json_array_get(nodes, i), i, list);
	for (unsigned i = 0; i < req->nr_nodes; i++)
		for (unsigned k = 0; k < req->nr_nodes; k++) {
			json_int_t got = json_integer_value(json_array_get(json_array_get(dist, i), k));
			unsigned want = req->distances[i * req->nr_nodes + k];

			if (got != (json_int_t)want)
				add_mismatch(list, "distances[%u][%u]: requested %u, observed %lld", i,
					     k, want, (long long)got);
		}
	return json_array_size(list) == 0;
}
