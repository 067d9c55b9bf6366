/* The workload registry (lab/proto/workload.c) as the one contract between the lab and the
 * runners, data-driven from the table itself.
 *
 * For every workload and every parameter, values around and beyond its range (each bound and
 * one past it, the default, every enum choice and a wrong one, task lists of each form) go
 * through the lab's check of a job, workload_params() on the JSON value, and through the
 * runner's path, the option argument PROTOCOL.md's convention makes of that value read back
 * with wopts_set() and checked by workload_params_max().  Both must accept or refuse alike;
 * when they accept, the filled-in params (what the lab sends, what the runner echoes) must be
 * equal, and when they refuse, the runner's message must name the parameter's option and say
 * what the lab says.  The rules across parameters get the same treatment from whole params
 * objects.  Also: the primary metrics every workload declares. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "proto/wopts.h"
#include "proto/workload.h"
#include "tap.h"
#include "util/cleanup.h"

#define VCPUS 8

/* The runner's argument for v under PROTOCOL.md's convention (what the agent passes): NULL
 * when the option is left out (false); "" for a bare option (true). */
static char *arg_of(const json_t *v)
{
	char *s = NULL;
	size_t i;
	json_t *e;

	if (json_is_false(v))
		return NULL;
	if (json_is_true(v))
		return strdup("");
	if (json_is_string(v))
		return strdup(json_string_value(v));
	if (json_is_integer(v))
		return asprintf(&s, "%lld", (long long)json_integer_value(v)) < 0 ? NULL : s;
	json_array_foreach(v, i, e) {
		char *t = NULL;

		if (asprintf(&t, "%s%s%lld", s ? s : "", s ? "," : "",
			     (long long)json_integer_value(e)) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	return s;
}

/* The runner's raw params for a job's params object, option by option. */
static int runner_raw(const struct workload_def *w, const json_t *params, json_t **out)
{
	_cleanup_json_ json_t *raw = json_object();
	const char *key;
	json_t *v;

	if (!raw)
		return -ENOMEM;
	json_object_foreach((json_t *)params, key, v) {
		char opt[WOPTS_NAME_LEN];
		const struct workload_param *p;
		_cleanup_free_ char *arg = arg_of(v);

		wopts_name(key, opt, sizeof(opt));
		p = wopts_find(w, opt);
		if (!p)
			return -ENOENT;
		if (arg && wopts_set(raw, p, arg) < 0)
			return -ENOMEM;
	}
	*out = TAKE_PTR(raw);
	return 0;
}

/* One case: params through the lab and through the runner's options must agree. */
static void agree(const struct workload_def *w, const json_t *params, const char *what)
{
	_cleanup_json_ json_t *raw = NULL, *host = NULL, *runner = NULL;
	struct lab_error he = {0}, re = {0};
	char ho[WOPTS_NAME_LEN + 2], ro[WOPTS_NAME_LEN + 2];
	int hr, rr;

	hr = workload_params(w, params, "", VCPUS, &host, &he);
	if (runner_raw(w, params, &raw) < 0) {
		tap_ok(0, "%s %s: no option for a parameter", w->name, what);
		return;
	}
	rr = workload_params_max(w, raw, "", VCPUS, VCPUS, &runner, &re);
	if (hr == 0 && rr == 0) {
		tap_ok(json_equal(host, runner), "%s %s: both accept, same params", w->name, what);
		return;
	}
	if ((hr < 0) != (rr < 0)) {
		tap_ok(0, "%s %s: lab %s (%s: %s), runner %s (%s: %s)", w->name, what,
		       hr ? "refuses" : "accepts", he.path, he.msg, rr ? "refuses" : "accepts",
		       re.path, re.msg);
		return;
	}
	wopts_path_option(he.path, ho, sizeof(ho));
	wopts_path_option(re.path, ro, sizeof(ro));
	tap_ok(!strcmp(ho, ro) && !strcmp(he.msg, re.msg), "%s %s: both refuse, %s: %s", w->name,
	       what, ro, re.msg);
}

static void agree_one(const struct workload_def *w, const struct workload_param *p, json_t *v)
{
	_cleanup_json_ json_t *params = json_object();
	_cleanup_free_ char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
	char what[160];

	json_object_set_new(params, p->name, v);
	snprintf(what, sizeof(what), "%s=%s", p->name, s ? s : "?");
	agree(w, params, what);
}

/* Every parameter of w at and beyond its edges. */
static void agree_params(const struct workload_def *w)
{
	for (size_t i = 0; i < w->nr_params; i++) {
		const struct workload_param *p = &w->params[i];

		switch (p->type) {
		case WORKLOAD_PARAM_INT:
			agree_one(w, p, json_integer(p->min - 1));
			agree_one(w, p, json_integer(p->min));
			agree_one(w, p, json_integer(p->def));
			agree_one(w, p, json_integer(p->max));
			agree_one(w, p, json_integer(p->max + 1));
			agree_one(w, p, json_string("12x"));
			break;
		case WORKLOAD_PARAM_ENUM:
			for (size_t k = 0; p->choices[k]; k++)
				agree_one(w, p, json_string(p->choices[k]));
			agree_one(w, p, json_string("bogus"));
			break;
		case WORKLOAD_PARAM_BOOL:
			agree_one(w, p, json_true());
			agree_one(w, p, json_false());
			break;
		case WORKLOAD_PARAM_STRING:
			agree_one(w, p, json_string(p->def_str));
			agree_one(w, p, json_string("/usr/src/linux-6.1+x_y=z.tar.xz"));
			agree_one(w, p, json_string(""));
			agree_one(w, p, json_string("-k"));
			agree_one(w, p, json_string("a b"));
			agree_one(w, p, json_string("x;reboot"));
			/* A number is refused by the lab only: on argv it is the string "5"
			 * (test_kbuild). */
			break;
		case WORKLOAD_PARAM_TASKS:
			agree_one(w, p, json_string("per-cpu"));
			agree_one(w, p, json_string("pow2"));
			agree_one(w, p, json_string("all"));
			agree_one(w, p, json_pack("[i]", 1));
			agree_one(w, p, json_pack("[i,i,i]", 1, 2, VCPUS));
			agree_one(w, p, json_pack("[i]", 0));
			agree_one(w, p, json_pack("[i,i]", 1, VCPUS + 1));
			agree_one(w, p, json_pack("[i,i]", 2, -1));
			break;
		}
	}
}

/* The rules across parameters (each workload's check), from whole params objects. */
static const struct {
	const char *workload, *params;
} rules[] = {
	{"pft", "{\"shared\": true, \"mode\": \"processes\", \"object\": \"anon\"}"},
	{"pft", "{\"shared\": true, \"mode\": \"processes\", \"object\": \"malloc\"}"},
	{"pft", "{\"shared\": true, \"mode\": \"processes\", \"object\": \"shm\"}"},
	{"pft", "{\"shared\": true, \"mode\": \"threads\", \"object\": \"anon\"}"},
	{"pft", "{\"shm_lock\": true, \"object\": \"zero\"}"},
	{"pft", "{\"shm_lock\": true, \"object\": \"shm\"}"},
	{"pft", "{\"mbind\": true, \"membind\": \"none\"}"},
	{"pft", "{\"mbind\": true, \"membind\": \"interleave\"}"},
	{"pft", "{\"memory_split\": true, \"memory_mib\": 1, \"tasks\": [1, 8]}"},
	{"pft", "{\"memory_split\": true, \"memory_mib\": 1, \"tasks\": [256]}"},
	{"memscale", "{\"huge\": \"hugetlb\", \"memory_mib\": 3}"},
	{"memscale", "{\"huge\": \"hugetlb\", \"memory_mib\": 4}"},
	{"memscale", "{\"huge\": \"thp\", \"memory_mib\": 3}"},
	{"mmap_contention", "{\"mappers\": 0, \"tasks\": \"pow2\", \"map_kib\": 4}"},
	{"kbuild", "{\"source\": \"usr/src/linux\"}"},
	{"kbuild", "{\"source\": \"/usr/src/../../etc\"}"},
	{"kbuild", "{\"source\": \"/usr/src/..\"}"},
	{"kbuild", "{\"source\": \"/usr/src/..x/y\", \"target\": \"bzImage\"}"},
};

static void test_rules(void)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		_cleanup_json_ json_t *params = json_loads(rules[i].params, 0, NULL);

		agree(workload_find(rules[i].workload), params, rules[i].params);
	}
}

/* What the runners do differently on purpose: more tasks than CPUs (up to their own limit),
 * since a guest may have fewer CPUs online than its topology. */
static void test_max_tasks(void)
{
	const struct workload_def *w = workload_find("pft");
	_cleanup_json_ json_t *p = json_pack("{s:[i,i]}", "tasks", 1, 4096), *out = NULL;
	_cleanup_json_ json_t *p2 = json_pack("{s:[i]}", "tasks", 4097), *out2 = NULL;
	_cleanup_json_ json_t *p3 = json_pack("{s:s}", "tasks", "pow2"), *out3 = NULL;
	struct lab_error err = {0};

	tap_ok(workload_params_max(w, p, "", 2, 4096, &out, &err) == 0 &&
		       json_integer_value(json_array_get(json_object_get(out, "tasks"), 1)) == 4096,
	       "task counts up to max_tasks pass");
	tap_ok(workload_params_max(w, p2, "", 2, 4096, &out2, &err) == -EINVAL &&
		       !strcmp(err.path, "tasks[0]") && !strcmp(err.msg, "must be an integer 1..4096"),
	       "above max_tasks: %s: %s", err.path, err.msg);
	tap_ok(workload_params_max(w, p3, "", 6, 4096, &out3, &err) == 0 &&
		       json_array_size(json_object_get(out3, "tasks")) == 4,
	       "pow2 resolves against vcpus, not max_tasks (1, 2, 4, 6)");
}

static void test_primary(void)
{
	static const struct {
		const char *workload, *metric, *better;
	} want[] = {
		{"pft", "faults_per_s", "higher"},
		{"memscale", "run_s", "lower"},
		{"page_fault1", "ops_per_s", "higher"},
		{"page_fault2", "ops_per_s", "higher"},
		{"page_fault3", "ops_per_s", "higher"},
		{"mmap_contention", "faults_per_s", "higher"},
		{"mmap_contention", "fault_latency_p99_ns", "lower"},
		{"kbuild", "elapsed_s", "lower"},
		{"kbuild", "memory_peak_mib", "lower"},
	};
	size_t n;

	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_def *w = workload_at(i);
		int ok = w->nr_primary > 0;

		for (size_t k = 0; k < w->nr_primary; k++)
			ok &= !strcmp(w->primary[k].better, "higher") ||
			      !strcmp(w->primary[k].better, "lower");
		tap_ok(ok && workload_primary(w->name, &n) == w->primary && n == w->nr_primary,
		       "%s: %zu primary metric(s), each higher or lower", w->name, w->nr_primary);
	}
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct workload_metric *m = workload_primary(want[i].workload, &n);
		int found = 0;

		for (size_t k = 0; m && k < n; k++)
			found |= !strcmp(m[k].name, want[i].metric) &&
				 !strcmp(m[k].better, want[i].better);
		tap_ok(found, "%s: primary %s, %s is better", want[i].workload, want[i].metric,
		       want[i].better);
	}
	tap_ok(workload_primary("nope", &n) == NULL && n == 0, "no primary metrics for an unknown "
	       "workload");
}

static void test_wopts(void)
{
	const struct workload_def *w = workload_find("pft");
	char buf[128];

	wopts_path_option("tasks[3]", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "--tasks"), "error path tasks[3] is option %s", buf);
	wopts_path_option("memory_split", buf, sizeof(buf));
	tap_ok(!strcmp(buf, "--memory-split"), "error path memory_split is option %s", buf);
	tap_ok(wopts_find(w, "shm-lock") && !wopts_find(w, "shm_lock") && !wopts_find(w, "json"),
	       "options are the parameters with - for _, nothing else");
	wopts_arg(wopts_find(w, "cachelines"), buf, sizeof(buf));
	tap_ok(!strcmp(buf, "1..64 (default 1)"), "--help range of --cachelines: %s", buf);
	wopts_arg(wopts_find(w, "object"), buf, sizeof(buf));
	tap_ok(!strcmp(buf, "anon|malloc|zero|shm (default anon)"), "--help of --object: %s", buf);
	wopts_arg(wopts_find(workload_find("kbuild"), "target"), buf, sizeof(buf));
	tap_ok(!strcmp(buf, "STRING (default all)"), "--help of kbuild's --target: %s", buf);
}

/* kbuild's parameters as the lab fills them in and refuses them (the messages are what a job
 * author reads: pinned here). */
static void test_kbuild(void)
{
	static const struct {
		const char *params, *path, *msg;
	} bad[] = {
		{"{\"source\": \"src\"}", "source", "must be an absolute path"},
		{"{\"source\": \"/a/../b\"}", "source", "must not contain \"..\" components"},
		{"{\"target\": \"-k\"}", "target",
		 "must be a string of 1..64 characters [A-Za-z0-9._/+=-], not starting with \"-\""},
		{"{\"target\": \"all; reboot\"}", "target",
		 "must be a string of 1..64 characters [A-Za-z0-9._/+=-], not starting with \"-\""},
		{"{\"source\": 7}", "source",
		 "must be a string of 1..255 characters [A-Za-z0-9._/+=-], not starting with \"-\""},
		{"{\"jobs\": -1}", "jobs", "must be an integer 0..4096"},
		{"{\"prepare\": \"mrproper\"}", "prepare",
		 "must be one of \"none\", \"clean\", \"defconfig\""},
		{"{\"sample_ms\": 5}", "sample_ms", "must be an integer 10..10000"},
	};
	const struct workload_def *w = workload_find("kbuild");
	_cleanup_json_ json_t *out = NULL;
	struct lab_error err = {0};
	_cleanup_free_ char *s = NULL;

	if (w && workload_params(w, NULL, "p", VCPUS, &out, &err) == 0)
		s = json_dumps(out, JSON_COMPACT | JSON_SORT_KEYS);
	tap_ok(s && !strcmp(s, "{\"jobs\":0,\"prepare\":\"none\",\"sample_ms\":100,"
				"\"source\":\"/usr/src/kbuild-tiny\",\"target\":\"all\"}"),
	       "kbuild's defaults: %s", s ? s : "(null)");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		_cleanup_json_ json_t *p = json_loads(bad[i].params, 0, NULL), *o = NULL;
		char path[64];

		memset(&err, 0, sizeof(err));
		snprintf(path, sizeof(path), "p.%s", bad[i].path);
		if (!tap_ok(workload_params(w, p, "p", VCPUS, &o, &err) == -EINVAL &&
				    !strcmp(err.path, path) && !strcmp(err.msg, bad[i].msg),
			    "kbuild refuses %s", bad[i].params))
			tap_diag(err.msg);
	}
}

/* Every workload's filled-in defaults are its defaults, member by member; a changed value and
 * an unknown name are not. */
static void test_is_default(void)
{
	for (size_t i = 0; i < workload_count(); i++) {
		const struct workload_def *w = workload_at(i);
		_cleanup_json_ json_t *out = NULL;
		struct lab_error err = {0};
		const char *k;
		json_t *v;
		int all = 1;

		if (workload_params(w, NULL, "p", VCPUS, &out, &err) < 0) {
			tap_ok(0, "%s: defaults fill in", w->name);
			continue;
		}
		json_object_foreach(out, k, v)
			if (strcmp(k, "tasks") && !workload_param_is_default(w, k, v))
				all = 0, tap_diag(k);
		tap_ok(all, "%s: every filled-in default is the default", w->name);
		tap_ok(!workload_param_is_default(w, "no-such-param", json_true()),
		       "%s: no such parameter is not a default", w->name);
	}
	{
		const struct workload_def *w = workload_find("kbuild");
		_cleanup_json_ json_t *j3 = json_integer(3), *s = json_string("clean");

		tap_ok(w && !workload_param_is_default(w, "jobs", j3), "kbuild jobs 3 is not default");
		tap_ok(w && !workload_param_is_default(w, "prepare", s), "kbuild prepare clean is not");
	}
}

int main(void)
{
	for (size_t i = 0; i < workload_count(); i++)
		agree_params(workload_at(i));
	tap_ok(workload_at(workload_count()) == NULL, "workload_at past the end is NULL");
	test_rules();
	test_max_tasks();
	test_primary();
	test_wopts();
	test_kbuild();
	test_is_default();
	return tap_done();
}
