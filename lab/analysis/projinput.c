/* The projection's inputs from a measured report (analysis/projinput.h). */
#include "analysis/projinput.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/strbuf.h"

static json_int_t ival(const json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

static const char *label_of(const json_t *run)
{
	const char *l = json_string_value(json_object_get(json_object_get(run, "kernel"), "label"));

	return l ? l : "";
}

/* The one label of the report's runs with lock counts, or pick's; -EINVAL when ambiguous. */
static int pick_label(const json_t *runs, const char *want, char *out, size_t len,
		      struct lab_error *err)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const json_t *run;
	size_t i;

	out[0] = '\0';
	json_array_foreach(runs, i, run) {
		const char *l = label_of(run);

		if (!l[0] || (want && strcmp(l, want)))
			continue;
		if (!out[0])
			snprintf(out, len, "%s", l);
		else if (strcmp(out, l) && !strstr(sb.buf ? sb.buf : "", l))
			strbuf_appendf(&sb, "%s%s", sb.len ? ", " : "", l);
	}
	if (!out[0])
		return error_set(err, "", want ? "no run of kernel %s" : "no run with a kernel label",
				 want);
	if (sb.len)
		return error_set(err, "", "runs of more than one kernel (%s, %s): say which with "
				 "--label", out, sb.buf);
	return 0;
}

static int site_matches(const json_t *s, const char *prefix)
{
	const char *name = json_string_value(json_object_get(s, "site"));

	return name && !strncmp(name, prefix, strlen(prefix));
}

/* One result's counts of the picked site into out; 1 when it had them. */
static int add_result(const json_t *res, const struct projinput_pick *p, struct projinput *out)
{
	const json_t *li = json_object_get(json_object_get(res, "info"), "lock_insns"), *s;
	size_t i, matched = 0;

	if (!li || (unsigned)ival(res, "tasks") != out->tasks)
		return 0;
	json_array_foreach(json_object_get(li, "sites"), i, s) {
		if (!site_matches(s, p->site))
			continue;
		if (!matched++ && !out->site[0])
			snprintf(out->site, sizeof(out->site), "%s",
				 json_string_value(json_object_get(s, "site")));
		out->acquisitions += (double)ival(s, "acquisitions");
		out->inside_insns += (double)ival(s, "inside_insns");
		if ((unsigned)ival(s, "max_cpus_per_lock") > out->max_cpus_per_lock)
			out->max_cpus_per_lock = (unsigned)ival(s, "max_cpus_per_lock");
		if ((unsigned)ival(s, "locks") > out->locks)
			out->locks = (unsigned)ival(s, "locks");
	}
	if (!matched)
		return 0;
	out->sites = matched > out->sites ? matched : out->sites;
	out->window_insns += (double)ival(li, "insns");
	return 1;
}

/* The first few sites of a result, each named once, for an error that says what there is. */
static void append_site(struct strbuf *sb, const char *name, size_t n)
{
	if (!name || n >= 4 || sb->len >= 400 || (sb->buf && strstr(sb->buf, name)))
		return;
	strbuf_appendf(sb, "%s%s", sb->len ? ", " : "", name);
}

/* The sites the label's results have, for an error that says what there is. */
static void list_sites(const json_t *runs, const char *label, struct strbuf *sb)
{
	const json_t *run, *wl, *res, *s;
	size_t i, k, m, n;

	json_array_foreach(runs, i, run) {
		if (strcmp(label_of(run), label))
			continue;
		json_array_foreach(json_object_get(run, "workloads"), k, wl)
			json_array_foreach(json_object_get(wl, "results"), m, res)
				json_array_foreach(json_object_get(json_object_get(json_object_get(
					res, "info"), "lock_insns"), "sites"), n, s)
					append_site(sb, json_string_value(json_object_get(s,
											   "site")),
						    n);
		return;
	}
}

/* The result at more tasks than measured with the site: how shared its lock is. */
static void add_sharing(const json_t *res, const char *prefix, struct projinput *out)
{
	const json_t *li = json_object_get(json_object_get(res, "info"), "lock_insns"), *s;
	unsigned tasks = (unsigned)ival(res, "tasks");
	size_t i;

	if (!li || tasks <= out->tasks || tasks < out->shared_tasks)
		return;
	json_array_foreach(json_object_get(li, "sites"), i, s) {
		if (!site_matches(s, prefix))
			continue;
		if (tasks > out->shared_tasks)
			out->shared_locks = out->shared_max_cpus = 0;
		out->shared_tasks = tasks;
		if ((unsigned)ival(s, "locks") > out->shared_locks)
			out->shared_locks = (unsigned)ival(s, "locks");
		if ((unsigned)ival(s, "max_cpus_per_lock") > out->shared_max_cpus)
			out->shared_max_cpus = (unsigned)ival(s, "max_cpus_per_lock");
	}
}

static int has_counts(const json_t *wl)
{
	const json_t *res;
	size_t i;

	json_array_foreach(json_object_get(wl, "results"), i, res)
		if (json_object_get(json_object_get(res, "info"), "lock_insns"))
			return 1;
	return 0;
}

static int seen(const json_t *pairs, const char *label, const char *workload)
{
	const json_t *p;
	size_t i;

	json_array_foreach(pairs, i, p)
		if (!strcmp(json_string_value(json_array_get(p, 0)), label) &&
		    !strcmp(json_string_value(json_array_get(p, 1)), workload))
			return 1;
	return 0;
}

json_t *projinput_series(const json_t *report)
{
	const json_t *run, *wl;
	json_t *pairs = json_array();
	size_t i, k;

	json_array_foreach(json_object_get(report, "runs"), i, run) {
		const char *label = label_of(run);

		json_array_foreach(json_object_get(run, "workloads"), k, wl) {
			const char *name = json_string_value(json_object_get(wl, "name"));

			if (!pairs || !label[0] || !name || !has_counts(wl) ||
			    seen(pairs, label, name))
				continue;
			if (json_array_append_new(pairs, json_pack("[s,s]", label, name)) < 0) {
				json_decref(pairs);
				return NULL;
			}
		}
	}
	return pairs;
}

int projinput_private(const struct projinput *p)
{
	return p->shared_tasks > p->tasks && p->shared_max_cpus == 1 &&
	       p->shared_locks >= p->shared_tasks;
}

int projinput_not_shared(const struct projinput *p)
{
	return p->shared_tasks > p->tasks && p->shared_max_cpus < p->shared_tasks &&
	       !projinput_private(p);
}

const char *projinput_why_not(const struct projinput *p, char *buf, size_t len)
{
	if (projinput_not_shared(p)) {
		snprintf(buf, len, "at %u tasks %s took %u lock(s), the busiest by %u vCPU(s): "
			 "neither one lock all CPUs share nor one per task, which is all the model "
			 "knows", p->shared_tasks,
			 p->site, p->shared_locks, p->shared_max_cpus);
		return buf;
	}
	if (!(p->inside > 0))
		return "no instructions inside the lock at the site";
	return NULL;
}

int projinput_from_report(const json_t *report, const struct projinput_pick *pick,
			  struct projinput *out, struct lab_error *err)
{
	const json_t *runs = json_object_get(report, "runs"), *run, *wl, *res;
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	size_t i, k, m;
	int r;

	memset(out, 0, sizeof(*out));
	out->tasks = pick->tasks ? pick->tasks : 1;
	if (!pick->site || !pick->site[0])
		return error_set(err, "", "a call site is needed (--site NAME+)");
	if ((r = pick_label(runs, pick->label, out->label, sizeof(out->label), err)) < 0)
		return r;
	json_array_foreach(runs, i, run) {
		if (strcmp(label_of(run), out->label))
			continue;
		json_array_foreach(json_object_get(run, "workloads"), k, wl) {
			const char *name = json_string_value(json_object_get(wl, "name"));

			if (!name || (pick->workload && strcmp(name, pick->workload)) ||
			    (out->workload[0] && strcmp(name, out->workload)))
				continue;
			json_array_foreach(json_object_get(wl, "results"), m, res) {
				add_sharing(res, pick->site, out);
				if (add_result(res, pick, out)) {
					snprintf(out->workload, sizeof(out->workload), "%s", name);
					out->boots++;
				}
			}
		}
	}
	if (!out->boots || !(out->acquisitions > 0)) {
		list_sites(runs, out->label, &sb);
		return error_set(err, "", "%s has no result at %u task(s) with lock counts "
				 "(\"lock_insns\") at a site %s...%s%s", out->label, out->tasks,
				 pick->site, sb.len ? "; its sites include " : "",
				 sb.len ? sb.buf : "");
	}
	out->inside = out->inside_insns / out->acquisitions;
	out->outside = out->window_insns / out->acquisitions - out->inside;
	if (out->outside < 0)
		out->outside = 0;
	return 0;
}

/* The params of label's first workload called name in report, or NULL. */
static const json_t *params_of(const json_t *report, const char *label, const char *name)
{
	const json_t *run, *wl;
	size_t i, k;

	json_array_foreach(json_object_get(report, "runs"), i, run) {
		if (strcmp(label_of(run), label))
			continue;
		json_array_foreach(json_object_get(run, "workloads"), k, wl)
			if (!strcmp(json_string_value(json_object_get(wl, "name")) ?: "", name))
				return json_object_get(wl, "params");
	}
	return NULL;
}

/* The first param (but the sweep's and the repetitions') whose value differs, or NULL. */
static const char *param_differs(const json_t *a, const json_t *b)
{
	static const char *const free_keys[] = {"tasks", "repetitions", "warmup", NULL};
	const char *key;
	const json_t *v;

	json_object_foreach((json_t *)a, key, v) {
		int skip = 0;

		for (size_t i = 0; free_keys[i]; i++)
			skip |= !strcmp(key, free_keys[i]);
		if (!skip && !json_equal(v, json_object_get(b, key)))
			return key;
	}
	return NULL;
}

/* Whether run's guest nanosecond is one instruction of a lone vCPU: the deterministic models
 * with shift=0 (the lab's "-icount shift=0,..."). */
static int one_insn_a_ns(const json_t *run)
{
	const json_t *t = json_object_get(json_object_get(run, "host"), "timing"), *a;
	size_t i;

	if (!json_is_true(json_object_get(t, "deterministic")))
		return 0;
	json_array_foreach(json_object_get(t, "qemu_args"), i, a)
		if (!strncmp(json_string_value(a) ?: "", "shift=0,", 8))
			return 1;
	return 0;
}

int projinput_window(const json_t *counted, const json_t *window, struct projinput *pi,
		     struct lab_error *err)
{
	const json_t *want = params_of(counted, pi->label, pi->workload), *run, *wl, *res;
	const char *differs = NULL;
	double sum = 0, per_window = pi->boots ? pi->acquisitions / (double)pi->boots : 0;
	size_t n = 0, i, k, m;

	json_array_foreach(json_object_get(window, "runs"), i, run) {
		if (strcmp(label_of(run), pi->label) ||
		    strcmp(json_string_value(json_object_get(run, "status")) ?: "", "ok"))
			continue;
		if (!one_insn_a_ns(run))
			return error_set(err, "", "%s's runs are not under a deterministic model with "
					 "shift=0 (quantum, icount): their time is not instructions",
					 pi->label);
		json_array_foreach(json_object_get(run, "workloads"), k, wl) {
			if (strcmp(json_string_value(json_object_get(wl, "name")) ?: "", pi->workload))
				continue;
			if ((differs = param_differs(want, json_object_get(wl, "params"))))
				return error_set(err, "", "%s's %s param %s differs from the counted "
						 "run's: its windows are not the same operations",
						 pi->label, pi->workload, differs);
			json_array_foreach(json_object_get(wl, "results"), m, res) {
				const json_t *e = json_object_get(json_object_get(json_object_get(
					res, "metrics"), "elapsed_s"), "value");

				if (ival(res, "tasks") != 1 || !json_is_number(e))
					continue;
				sum += json_number_value(e);
				n++;
			}
		}
	}
	if (!n || !(per_window > 0))
		return error_set(err, "", "no ok run of %s with %s's elapsed_s at 1 task",
				 pi->label, pi->workload);
	pi->window_t1 = sum / (double)n * 1e9 / per_window;
	if (!(pi->window_t1 > pi->inside))
		return error_set(err, "", "%s's 1-task window, %.0f instructions an acquisition, is "
				 "not longer than the %.0f inside the lock", pi->label,
				 pi->window_t1, pi->inside);
	pi->outside = pi->window_t1 - pi->inside;
	return 0;
}
