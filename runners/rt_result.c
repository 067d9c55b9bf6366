/* Result entries (PROTOCOL.md "Runner output"): the harness's share of each entry (perf
 * counters, placement, vmstat), the sweep over task counts and repetitions, and printing. */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/utsname.h>

#include "rt_bench.h"
#include "util/fs.h"

void rt_team_sum(const struct rt_team *t, unsigned from, unsigned to, struct rt_sum *s)
{
	memset(s, 0, sizeof(*s));
	s->wall_min = -1;
	double first = 0, last = 0;

	for (unsigned i = from; i < to && i < t->n; i++) {
		const struct rt_task *k = &t->tasks[i];
		double w = k->t1 - k->t0;

		s->wall_max = w > s->wall_max ? w : s->wall_max;
		s->wall_min = (s->wall_min < 0 || w < s->wall_min) ? w : s->wall_min;
		first = (s->n == 0 || k->t0 < first) ? k->t0 : first;
		last = k->t1 > last ? k->t1 : last;
		s->user += k->user_s;
		s->sys += k->sys_s;
		s->minflt += k->minflt;
		s->majflt += k->majflt;
		s->ops += k->ops;
		s->n++;
	}
	s->span = s->n ? last - first : 0;
	if (s->wall_min < 0)
		s->wall_min = 0;
}

json_t *rt_result_new(unsigned tasks, unsigned rep)
{
	return json_pack("{s:I, s:I, s:{}, s:{}}", "tasks", (json_int_t)tasks, "repetition",
			 (json_int_t)rep, "metrics", "info");
}

int rt_result_metric(json_t *res, const char *name, double v, const char *unit,
		     const char *better)
{
	json_t *m = json_object_get(res, "metrics");

	/* A rate over a zero-length window is not a number: report 0 rather than inf/nan, which
	 * JSON cannot carry (the host rejects non-finite metrics). */
	if (!isfinite(v))
		v = 0;
	return m ? json_object_set_new(m, name, rt_metric(v, unit, better)) : -ENOMEM;
}

int rt_result_info(json_t *res, const char *name, json_t *v)
{
	json_t *i = json_object_get(res, "info");

	if (!i) {
		json_decref(v);
		return -ENOMEM;
	}
	return json_object_set_new(i, name, v);
}

static const char *rt_perf_unit(enum rt_perf_id id)
{
	switch (id) {
	case RT_PERF_TASK_CLOCK: return "s";
	case RT_PERF_PAGE_FAULTS:
	case RT_PERF_MINOR_FAULTS:
	case RT_PERF_MAJOR_FAULTS: return "faults";
	case RT_PERF_CONTEXT_SWITCHES: return "switches";
	case RT_PERF_CPU_MIGRATIONS: return "migrations";
	case RT_PERF_INSTRUCTIONS: return "instructions";
	default: return "cycles";
	}
}

/* A counter is reported only when every task counted it; otherwise it is unavailable, with
 * the first task's reason. */
static int rt_result_perf(json_t *res, const struct rt_team *t, unsigned from, unsigned to)
{
	json_t *unavail = json_array(), *why = json_object(), *mux = json_array();

	for (int i = 0; i < RT_PERF_NR; i++) {
		double sum = 0;
		int err = 0, muxed = 0;

		for (unsigned k = from; k < to && !err; k++) {
			err = t->tasks[k].perf.err[i];
			muxed |= !!(t->tasks[k].perf.multiplexed & (1u << i));
			sum += (double)t->tasks[k].perf.v[i];
		}
		if (err) {
			json_array_append_new(unavail, json_string(rt_perf_name(i)));
			json_object_set_new(why, rt_perf_name(i),
					    json_string(err == -ENOENT
							? "not supported here (no PMU?): ENOENT"
							: strerror(-err)));
			continue;
		}
		if (muxed)
			json_array_append_new(mux, json_string(rt_perf_name(i)));
		if (i == RT_PERF_TASK_CLOCK)
			sum /= 1e9;
		rt_result_metric(res, rt_perf_name(i), sum, rt_perf_unit(i), "lower");
	}
	return rt_result_info(res, "perf",
			      json_pack("{s:o, s:o, s:o, s:s}", "unavailable", unavail, "reasons",
					why, "multiplexed", mux, "scope",
					"per task, its measured window, summed over tasks"));
}

/* Local fraction of the sampled pages, per node the tasks ran on and overall. */
static int rt_result_place(json_t *res, const struct rt_team *t, unsigned from, unsigned to)
{
	unsigned long s[RT_MAX_NODES] = { 0 }, l[RT_MAX_NODES] = { 0 }, tasks[RT_MAX_NODES] = { 0 };
	unsigned long all_s = 0, all_l = 0, absent = 0, unknown = 0;
	json_t *per = json_array();
	int err = 0;

	for (unsigned i = from; i < to; i++) {
		const struct rt_task *k = &t->tasks[i];

		if (k->place.err && !err)
			err = k->place.err;
		absent += k->place.absent;
		if (k->node < 0 || k->node >= RT_MAX_NODES) {
			unknown += k->place.sampled;
			continue;
		}
		s[k->node] += k->place.sampled;
		l[k->node] += k->place.local;
		tasks[k->node]++;
	}
	if (err) {
		json_decref(per);
		return rt_result_info(res, "placement",
				      json_pack("{s:s}", "unavailable", strerror(-err)));
	}
	for (unsigned nd = 0; per && nd < RT_MAX_NODES; nd++) {
		if (!tasks[nd])
			continue;
		all_s += s[nd];
		all_l += l[nd];
		json_array_append_new(per, json_pack("{s:I, s:I, s:I, s:I, s:f}", "node",
						     (json_int_t)nd, "tasks", (json_int_t)tasks[nd],
						     "sampled_pages", (json_int_t)s[nd],
						     "local_pages", (json_int_t)l[nd],
						     "local_fraction",
						     s[nd] ? (double)l[nd] / (double)s[nd] : 0.0));
	}
	return rt_result_info(res, "placement",
			      json_pack("{s:o, s:I, s:I, s:I, s:I, s:o}", "per_node", per,
					"sampled_pages", (json_int_t)all_s, "local_pages",
					(json_int_t)all_l, "absent_pages", (json_int_t)absent,
					"unknown_node_pages", (json_int_t)unknown, "local_fraction",
					all_s ? json_real((double)all_l / (double)all_s)
					      : json_null()));
}

/* The whole repetition beside its measured window, so that no time a workload spends is
 * hidden: setup_s (tasks created, pinned, counters opened, prepared), teardown_s (after the
 * measured window: unmapping, exiting, joining) and run_s, all of it, as the seeds'
 * `perf stat -r` timed whole programs.  The placement query (the lab's own check between the
 * two) is left out of them and reported as place_check_s: its slowest task's time, exactly
 * the time lost for threads, which wait for each other after it; processes run on into
 * their cleanup. */
static int rt_result_phases(json_t *res, const struct rt_team *t)
{
	double place = 0;

	if (!(t->t_end > t->t_start) || !(t->t_release >= t->t_start) ||
	    !(t->t_done >= t->t_release))
		return 0;
	for (unsigned i = 0; i < t->n; i++)
		place = t->tasks[i].place_s > place ? t->tasks[i].place_s : place;
	if (place > t->t_end - t->t_done)
		place = t->t_end - t->t_done;
	/* Reported too, so that no time is hidden: with THP the query takes the PMD lock per
	 * huge page; under TCG, with threads querying at once on a kernel without split PMD
	 * locks, it was the minutes memscale spent outside its measured repetitions (rt_team.c
	 * now has threads query one at a time). */
	if (rt_result_metric(res, "place_check_s", place, "s", "lower") < 0 ||
	    rt_result_metric(res, "setup_s", t->t_release - t->t_start, "s", "lower") < 0 ||
	    rt_result_metric(res, "teardown_s", t->t_end - t->t_done - place, "s", "lower") < 0 ||
	    rt_result_metric(res, "run_s", t->t_end - t->t_start - place, "s", "lower") < 0)
		return -ENOMEM;
	return 0;
}

/* Each lock class's acquisitions and contentions per page fault of the window, as metrics
 * (lower is better) that lab compare and the dashboard show beside the timings: counts, which
 * a deterministic model repeats boot to boot (lockdep's times are not comparable). */
static int rt_lock_metrics(json_t *res, const json_t *ls, const json_t *pgfault)
{
	double faults = json_is_integer(pgfault) ? (double)json_integer_value(pgfault) : 0;
	const char *key;
	json_t *c;

	if (!(faults > 0))
		return 0;
	json_object_foreach((json_t *)ls, key, c) {
		char name[96];
		double acq = (double)json_integer_value(json_object_get(c, "acquisitions"));
		double con = (double)json_integer_value(json_object_get(c, "contentions"));

		snprintf(name, sizeof(name), "lock_%s_acq_per_fault", key);
		if (rt_result_metric(res, name, acq / faults, "acq/fault", "lower") < 0)
			return -ENOMEM;
		snprintf(name, sizeof(name), "lock_%s_contended_per_fault", key);
		if (rt_result_metric(res, name, con / faults, "contentions/fault", "lower") < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A sized run's info.sized: why it stopped, after how long, how narrow its interval was. */
static int rt_result_sized(json_t *res, const struct rt_team *t)
{
	json_t *o;

	if (!t->precision_bp || !t->sized.by)
		return 0;
	o = json_pack("{s:s, s:f, s:f}", "by", t->sized.by, "span_s", t->sized.span_s,
		      "target_pct", t->precision_bp / 100.0);
	if (!o || (t->sized.ci_pct >= 0 && json_object_set_new(o, "ci_pct",
							       json_real(t->sized.ci_pct)) < 0)) {
		json_decref(o);
		return -ENOMEM;
	}
	return rt_result_info(res, "sized", o);
}

int rt_result_common(json_t *res, const struct rt_team *t, unsigned from, unsigned to)
{
	json_t *absent = NULL, *delta, *ls;
	int pinned = t->pin;

	for (unsigned i = from; i < to; i++)
		pinned = pinned && t->tasks[i].pinned;
	delta = rt_vmstat_delta_json(&t->vm0, &t->vm1, &absent);
	if (rt_result_perf(res, t, from, to) < 0 || rt_result_place(res, t, from, to) < 0 ||
	    rt_result_phases(res, t) < 0 || rt_result_sized(res, t) < 0 ||
	    rt_result_info(res, "vmstat", delta) < 0 ||
	    rt_result_info(res, "vmstat_absent", absent) < 0 ||
	    rt_result_info(res, "pinned", json_boolean(pinned)) < 0 ||
	    rt_result_info(res, "membind", json_string(workload_membind_choices[t->membind])) < 0 ||
	    rt_result_info(res, "lock_insn_window", json_integer(t->window_id)) < 0)
		return -ENOMEM;
	/* Only a lock-counting twin has /proc/lock_stat: elsewhere the key is left out. */
	ls = rt_lockstat_delta_json(&t->vm0, &t->vm1);
	if (ls && rt_lock_metrics(res, ls, json_object_get(delta, "pgfault")) < 0) {
		json_decref(ls);
		return -ENOMEM;
	}
	return ls && rt_result_info(res, "lock_stat", ls) < 0 ? -ENOMEM : 0;
}

json_t *rt_sysfs_choice(const char *path)
{
	_cleanup_free_ char *s = NULL;
	char *a, *b;

	if (fs_read_file(path, 4096, &s, NULL) < 0)
		return json_null();
	a = strchr(s, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b)
		return json_null();
	return json_stringn(a + 1, (size_t)(b - a - 1));
}

json_t *rt_machine_info(const struct rt_cpus *cpus)
{
	struct utsname u;
	long cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	unsigned nodes = 0;
	uint64_t seen = 0;

	for (size_t i = 0; i < cpus->n; i++)
		if (cpus->node[i] >= 0 && cpus->node[i] < RT_MAX_NODES &&
		    !(seen & (1ULL << cpus->node[i]))) {
			seen |= 1ULL << cpus->node[i];
			nodes++;
		}
	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	return json_pack("{s:I, s:I, s:I, s:I, s:s, s:o, s:o, s:o}", "page_size",
			 (json_int_t)sysconf(_SC_PAGESIZE), "cacheline",
			 (json_int_t)(cl > 0 ? cl : 64), "cpus_allowed", (json_int_t)cpus->n,
			 "nodes", (json_int_t)nodes, "kernel", u.release, "thp_system",
			 rt_sysfs_choice("/sys/kernel/mm/transparent_hugepage/enabled"),
			 "thp_defrag", rt_sysfs_choice("/sys/kernel/mm/transparent_hugepage/defrag"),
			 "thp_shmem",
			 rt_sysfs_choice("/sys/kernel/mm/transparent_hugepage/shmem_enabled"));
}

int rt_sweep(const struct rt_common *c, json_t *results, rt_one_fn one, void *ctx,
	     const char *prog)
{
	for (size_t i = 0; i < c->tasks.n; i++) {
		unsigned n = (unsigned)c->tasks.v[i];

		for (long rep = -(long)c->warmup; rep < (long)c->repetitions; rep++) {
			json_t *res = NULL;
			int r = one(ctx, n, (int)rep, &res);

			if (r < 0) {
				fprintf(stderr, "%s: tasks=%u%s: %s\n", prog, n,
					rep < 0 ? " (warm-up)" : "", strerror(-r));
				json_decref(res);
				return r;
			}
			if (rep < 0)
				json_decref(res);
			else if (json_array_append_new(results, res) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int rt_doc_print(const json_t *doc, const struct rt_cli *cli,
		 void (*table)(FILE *f, const json_t *doc, int style))
{
	if (cli->table || !cli->json) {
		table(cli->json ? stderr : stdout, doc, cli->table_style);
		fflush(cli->json ? stderr : stdout);
	}
	if (cli->json && (json_dumpf(doc, stdout, JSON_INDENT(1) | JSON_SORT_KEYS |
					       JSON_REAL_PRECISION(12)) < 0 ||
			  fputc('\n', stdout) == EOF))
		return -EIO;
	return fflush(stdout) == 0 ? 0 : -EIO;
}

double rt_res_metric(const json_t *res, const char *name)
{
	json_t *v = json_object_get(json_object_get(json_object_get(res, "metrics"), name),
				    "value");

	return json_is_number(v) ? json_number_value(v) : NAN;
}

long long rt_res_int(const json_t *res, const char *key)
{
	return (long long)json_integer_value(json_object_get(res, key));
}
