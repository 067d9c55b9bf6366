/* mmap_contention: seed 003 (mmap_sem / VMA lookup).  N threads fault through their own
 * regions page by page, timing every fault, while M other threads of the same process mmap and
 * munmap unrelated regions.  Without per-VMA locks each fault takes mmap_lock for reading and
 * queues behind the writers; with them it does not.  Reported: fault throughput and latency
 * percentiles of the faulting threads, and how many mmap/munmap pairs the mappers managed.
 * Threads only: mmap_lock is per mm, processes would not contend at all. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "rt_bench.h"

#define MMC_STOP_CHECK 64

struct mmc_opts {
	struct rt_common c;
	unsigned long mappers, memory_mib, map_kib, duration_s, precision_bp;
};

struct mmc_ctx {
	const struct mmc_opts *o;
	const struct rt_cpus *cpus;
	unsigned faulters;
	size_t len, map_len, page;
	struct rt_hist *hist; /* one per faulting thread */
};

static uint64_t mmc_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int mmc_prepare(struct rt_team *t, struct rt_task *k, void **state)
{
	struct mmc_ctx *x = t->ctx;
	char *p;

	*state = NULL;
	if (k->idx >= x->faulters)
		return 0;
	p = mmap(NULL, x->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return rt_task_fail(k, "mmap", -errno);
	madvise(p, x->len, MADV_NOHUGEPAGE); /* one fault per page */
	k->region = p;
	*state = p;
	return 0;
}

/* Fault through the region, timing each fault; when it is all present, zap it and go again. */
static int mmc_fault(struct mmc_ctx *x, struct rt_team *t, struct rt_task *k, char *base)
{
	struct rt_hist *h = &x->hist[k->idx];
	uint64_t ops = 0;

	for (;;) {
		volatile char *p = base;
		size_t off = 0;

		for (size_t n = 0; off < x->len; off += x->page, n++) {
			uint64_t a, b;

			if (n % MMC_STOP_CHECK == 0 && rt_team_stopped(t))
				goto out;
			a = mmc_ns();
			p[off] = 1;
			b = mmc_ns();
			rt_hist_add(h, b - a);
			ops++;
		}
		if (madvise(base, x->len, MADV_DONTNEED) < 0)
			return rt_task_fail(k, "madvise(MADV_DONTNEED)", -errno);
		rt_task_cycle_end(t, k, ops);
	}
out:
	k->ops = ops;
	k->region_len = x->len;
	return 0;
}

static int mmc_map(struct mmc_ctx *x, struct rt_team *t, struct rt_task *k)
{
	uint64_t ops = 0;

	while (!rt_team_stopped(t)) {
		void *p = mmap(NULL, x->map_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return rt_task_fail(k, "mmap (mapper)", -errno);
		munmap(p, x->map_len);
		ops++;
	}
	k->ops = ops;
	return 0;
}

static int mmc_measure(struct rt_team *t, struct rt_task *k, void *state)
{
	struct mmc_ctx *x = t->ctx;

	return k->idx < x->faulters ? mmc_fault(x, t, k, state) : mmc_map(x, t, k);
}

static void mmc_cleanup(struct rt_team *t, struct rt_task *k, void *state)
{
	struct mmc_ctx *x = t->ctx;

	(void)k;
	if (state)
		munmap(state, x->len);
}

static const struct rt_team_ops mmc_ops = { mmc_prepare, mmc_measure, mmc_cleanup };

/* What two back-to-back clock reads cost here: it is inside every latency sample. */
static double mmc_clock_overhead(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 1000; i++) {
		uint64_t a = mmc_ns(), b = mmc_ns();

		best = b - a < best ? b - a : best;
	}
	return (double)best;
}

static double mmc_rate(const struct rt_team *t, unsigned from, unsigned to)
{
	double rate = 0;

	for (unsigned i = from; i < to; i++) {
		double w = t->tasks[i].t1 - t->tasks[i].t0;

		rate += w > 0 ? (double)t->tasks[i].ops / w : 0;
	}
	return rate;
}

static json_t *mmc_result(struct mmc_ctx *x, const struct rt_team *t, unsigned n, unsigned rep)
{
	json_t *res = rt_result_new(n, rep);
	struct rt_hist *all = calloc(1, sizeof(*all));
	double rate = mmc_rate(t, 0, n);
	struct rt_sum s;

	if (!res || !all) {
		json_decref(res);
		free(all);
		return NULL;
	}
	for (unsigned i = 0; i < n; i++)
		rt_hist_merge(all, &x->hist[i]);
	rt_team_sum(t, n, t->n, &s);
	rt_result_metric(res, "faults_per_s", rate, "faults/s", "higher");
	rt_result_metric(res, "faults_per_s_per_task", rate / n, "faults/s", "higher");
	rt_result_metric(res, "fault_latency_p50_ns", rt_hist_quantile(all, 0.50), "ns", "lower");
	rt_result_metric(res, "fault_latency_p90_ns", rt_hist_quantile(all, 0.90), "ns", "lower");
	rt_result_metric(res, "fault_latency_p99_ns", rt_hist_quantile(all, 0.99), "ns", "lower");
	rt_result_metric(res, "fault_latency_max_ns", (double)all->max, "ns", "lower");
	if (t->n > n)
		rt_result_metric(res, "mapper_ops_per_s", mmc_rate(t, n, t->n), "mmap+munmap/s",
				 "higher");
	rt_result_info(res, "latency_samples", json_integer((json_int_t)all->count));
	rt_result_info(res, "mappers", json_integer((json_int_t)(t->n - n)));
	rt_result_info(res, "mapper_ops", json_integer((json_int_t)s.ops));
	rt_result_info(res, "perf_scope", json_string("faulting threads only"));
	free(all);
	/* Counters, placement and vmstat of the faulting threads; the mappers only disturb. */
	if (rt_result_common(res, t, 0, n) < 0) {
		json_decref(res);
		return NULL;
	}
	return res;
}

static int mmc_one(void *arg, unsigned n, int rep, json_t **out)
{
	struct mmc_ctx *x = arg;
	const struct mmc_opts *o = x->o;
	struct rt_team t = {
		.ops = &mmc_ops, .ctx = x, .n = n + (unsigned)o->mappers, .processes = 0,
		.pin = !o->c.unpinned, .membind = (enum rt_membind)o->c.membind,
		.duration_s = (double)o->duration_s, .precision_bp = (unsigned)o->precision_bp,
		.sized_n = n, .place_page = x->page, .cpus = x->cpus,
	};
	int r;

	x->faulters = n;
	x->hist = calloc(n, sizeof(*x->hist));
	if (!x->hist)
		return -ENOMEM;
	r = rt_team_run(&t);
	if (r < 0) {
		for (unsigned i = 0; t.tasks && i < t.n; i++)
			if (t.tasks[i].err) {
				fprintf(stderr, "mmap_contention: thread %u: %s: %s\n", i,
					t.tasks[i].step, strerror(-t.tasks[i].err));
				break;
			}
	} else {
		*out = mmc_result(x, &t, n, rep < 0 ? 0 : (unsigned)rep);
		r = *out ? 0 : -ENOMEM;
	}
	rt_team_free(&t);
	free(x->hist);
	x->hist = NULL;
	return r;
}

static void mmc_table(FILE *f, const json_t *doc, int style)
{
	json_t *res;
	size_t i;

	(void)style;
	fprintf(f, "%5s %7s %3s %12s %9s %9s %9s %11s %14s\n", "TASKS", "MAPPERS", "REP",
		"FAULTS/S", "P50_NS", "P90_NS", "P99_NS", "MAX_NS", "MMAP+MUNMAP/S");
	json_array_foreach(json_object_get(doc, "results"), i, res) {
		double m = rt_res_metric(res, "mapper_ops_per_s");

		fprintf(f, "%5lld %7lld %3lld %12.0f %9.0f %9.0f %9.0f %11.0f %14.0f\n",
			rt_res_int(res, "tasks"),
			rt_res_int(json_object_get(res, "info"), "mappers"),
			rt_res_int(res, "repetition"), rt_res_metric(res, "faults_per_s"),
			rt_res_metric(res, "fault_latency_p50_ns"),
			rt_res_metric(res, "fault_latency_p90_ns"),
			rt_res_metric(res, "fault_latency_p99_ns"),
			rt_res_metric(res, "fault_latency_max_ns"), m == m ? m : 0);
	}
}

int main(int argc, char **argv)
{
	struct mmc_opts o = { 0 };
	struct rt_cpus cpus;
	struct rt_cli cli;
	struct mmc_ctx x = { .o = &o, .cpus = &cpus };
	_cleanup_json_ json_t *doc = NULL, *params = NULL;
	_cleanup_json_ json_t *raw = rt_opts_parse("mmap_contention", NULL, 0, NULL, argc, argv,
						   &cli);
	json_t *info;
	int r;

	if (rt_cpus_load(&cpus) < 0)
		return RT_EXIT_FAIL;
	params = rt_params_check("mmap_contention", raw, cpus.n, &cli, &o.c);
	o.mappers = (unsigned long)wopts_int(params, "mappers");
	o.memory_mib = (unsigned long)wopts_int(params, "memory_mib");
	o.map_kib = (unsigned long)wopts_int(params, "map_kib");
	o.duration_s = (unsigned long)wopts_int(params, "duration_s");
	o.precision_bp = (unsigned long)wopts_int(params, "precision_bp");
	x.len = (size_t)o.memory_mib << 20;
	x.map_len = (size_t)o.map_kib << 10;
	x.page = (size_t)sysconf(_SC_PAGESIZE);
	info = rt_machine_info(&cpus);
	json_object_set_new(info, "clock_overhead_ns", json_real(mmc_clock_overhead()));
	json_object_set_new(info, "latency_note",
			    json_string("each sample is one write fault timed with two "
					"CLOCK_MONOTONIC reads; clock_overhead_ns is included"));
	doc = json_pack("{s:s, s:O, s:o, s:[]}", "workload", "mmap_contention", "params", params,
			"info", info, "results");
	if (!doc)
		return RT_EXIT_FAIL;
	r = rt_sweep(&o.c, json_object_get(doc, "results"), mmc_one, &x, "mmap_contention");
	if (r == 0)
		r = rt_doc_print(doc, &cli, mmc_table);
	rt_cpus_free(&cpus);
	free(o.c.tasks.v);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
