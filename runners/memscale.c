/* memscale: seed 000 (Alex Thorlton's thp_memscale, `runt -t -c 512 -b 512m`) and seed 002
 * (THP off / THP on / HUGETLB).
 *
 * All tasks get ready and are released together; each then reserves -b bytes local to its
 * CPU's node (mmap + mbind, inside the timed window as in the original, so mmap_lock is part
 * of what is measured in thread mode) and writes the first byte of every 4 KiB of it.  The
 * seed's figure is `perf stat -r`'s elapsed time of the whole program: run_s (the harness's,
 * rt_result.c: tasks created to tasks gone, unmapping included); elapsed_s is the touching
 * alone.  Perf counters come from the harness.  own_pmd_table puts each task's region on a
 * 1 GiB boundary of its own, so that tasks do not share a PMD table and its split lock: the
 * A/B of split PMD locks then contends only where the patch makes it.  read reads instead of
 * writing: an anonymous THP region is then mapped by the huge zero page, a fault without the
 * 2 MiB of zeroing, so the PMD lock is a large share of it.  map_early reserves, advises and
 * binds before the release: the window is then the faults alone, without the mmap_lock
 * writers that thread mode otherwise serialises in it.  work_loops runs an empty loop after
 * each byte: work outside any lock, so the job sets the time between faults. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_bench.h"
#include "util/fs.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
#define MS_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#define MS_HPAGE (2UL << 20)
/* What one PMD table maps on x86-64 (512 entries of 2 MiB): regions in one such range share
 * the table's split lock. */
#define MS_PMD_TABLE_SPAN (1UL << 30)

/* In the order of the registry's choices for huge (lab/proto/workload.c). */
enum ms_huge { HUGE_SYSTEM, HUGE_THP, HUGE_NOTHP, HUGE_HUGETLB };

struct ms_opts {
	struct rt_common c;
	unsigned long memory_mib, stride_kib;
	int huge;
	int own_pmd_table;
	int read;
	int map_early;
	long work_loops;
};

struct ms_ctx {
	const struct ms_opts *o;
	const struct rt_cpus *cpus;
	size_t len, stride, page;
};

/* Where read's loop leaves its sum (p is volatile already: this keeps the sum, too). */
static volatile char ms_sink;

/* work_loops: instructions outside any lock, no memory traffic; the asm keeps the loop. */
static void ms_work(long n)
{
	for (long i = 0; i < n; i++)
		__asm__ volatile("" ::: "memory");
}

/* What a task mapped, for cleanup. */
struct ms_map {
	void *base;
	size_t len;
	char *start; /* the region itself, inside base */
};

/* own_pmd_table: address space of len + one PMD table's span, without memory
 * (PROT_NONE, MAP_NORESERVE: nothing is charged, hugetlb reserves no pages for it), then the
 * region itself at its first 1 GiB boundary.  m gets the whole reservation for munmap. */
static int ms_reserve_own_table(struct ms_map *m, size_t len, int flags, char **out)
{
	uintptr_t at;
	void *p;

	m->len = len + MS_PMD_TABLE_SPAN;
	m->base = mmap(NULL, m->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		       0);
	if (m->base == MAP_FAILED) {
		m->base = NULL;
		return -errno;
	}
	at = ((uintptr_t)m->base + MS_PMD_TABLE_SPAN - 1) & ~(MS_PMD_TABLE_SPAN - 1);
	p = mmap((void *)at, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	*out = p;
	return 0;
}

/* Reserve, advise and bind the task's region: m->base for munmap, *out where it starts. */
static int ms_map(const struct ms_ctx *x, struct rt_task *k, struct ms_map *m, char **out)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS, r;
	char *base = NULL;

	m->len = x->len;
	if (x->o->huge == HUGE_HUGETLB)
		flags |= MAP_HUGETLB | MS_HUGE_2MB;
	else if (!x->o->own_pmd_table)
		m->len += MS_HPAGE; /* room to start on a PMD boundary, so THP can map it all */
	if (x->o->own_pmd_table) {
		r = ms_reserve_own_table(m, x->len, flags, &base);
	} else {
		base = mmap(NULL, m->len, PROT_READ | PROT_WRITE, flags, -1, 0);
		r = base == MAP_FAILED ? -errno : 0;
		m->base = r < 0 ? NULL : base;
	}
	if (r < 0)
		return rt_task_fail(k, x->o->huge == HUGE_HUGETLB
				       ? "mmap(MAP_HUGETLB) (knobs.nr_hugepages set?)" : "mmap", r);
	if (x->o->huge != HUGE_HUGETLB)
		base = (char *)(((uintptr_t)base + MS_HPAGE - 1) & ~(MS_HPAGE - 1));
	if (x->o->huge == HUGE_THP || x->o->huge == HUGE_NOTHP) {
		if (madvise(base, x->len, x->o->huge == HUGE_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0 &&
		    x->o->huge == HUGE_THP)
			return rt_task_fail(k, "madvise(MADV_HUGEPAGE)", -errno);
	}
	r = rt_membind_range(base, x->len, (enum rt_membind)x->o->c.membind, k->node,
			     x->cpus->mem_nodes);
	if (r < 0)
		return rt_task_fail(k, "mbind", r);
	m->start = base;
	*out = base;
	return 0;
}

static int ms_prepare(struct rt_team *t, struct rt_task *k, void **state)
{
	struct ms_ctx *x = t->ctx;
	struct ms_map *m = calloc(1, sizeof(*m));
	char *base;

	*state = m;
	if (!m)
		return rt_task_fail(k, "calloc", -ENOMEM);
	return x->o->map_early ? ms_map(x, k, m, &base) : 0;
}

/* Timed from here: reserve, bind (unless map_early did it before the release), touch. */
static int ms_measure(struct rt_team *t, struct rt_task *k, void *state)
{
	struct ms_ctx *x = t->ctx;
	struct ms_map *m = state;
	volatile char *p;
	char *base = m->start;
	int r;

	if (!x->o->map_early && (r = ms_map(x, k, m, &base)) < 0)
		return r;
	p = base;
	if (x->o->read) {
		char sum = 0;

		for (size_t off = 0; off < x->len; off += x->stride) {
			sum += p[off];
			ms_work(x->o->work_loops);
		}
		ms_sink = sum;
	} else {
		for (size_t off = 0; off < x->len; off += x->stride) {
			p[off] = 1;
			ms_work(x->o->work_loops);
		}
	}
	k->region = base;
	k->region_len = x->len;
	k->ops = (x->len + x->stride - 1) / x->stride;
	return 0;
}

static void ms_cleanup(struct rt_team *t, struct rt_task *k, void *state)
{
	struct ms_map *m = state;

	(void)t;
	(void)k;
	if (m && m->base)
		munmap(m->base, m->len);
	free(m);
}

static const struct rt_team_ops ms_ops = { ms_prepare, ms_measure, ms_cleanup };

/* With MPOL_BIND a node whose pool is empty turns a hugetlb fault into SIGBUS, which would
 * kill the whole runner: check the free huge pages per node first and say what is missing. */
static int ms_hugetlb_check(const struct ms_ctx *x, unsigned n)
{
	unsigned long need[RT_MAX_NODES] = { 0 };

	if (x->o->c.membind != RT_MEMBIND_BIND || x->o->c.unpinned)
		return 0;
	for (unsigned i = 0; i < n && x->cpus->n; i++) {
		int nd = x->cpus->node[i % x->cpus->n];

		if (nd >= 0 && nd < RT_MAX_NODES)
			need[nd] += x->len / MS_HPAGE;
	}
	for (unsigned nd = 0; nd < RT_MAX_NODES; nd++) {
		char path[160];
		_cleanup_free_ char *s = NULL;
		unsigned long have;

		if (!need[nd])
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%u/hugepages/"
			 "hugepages-2048kB/free_hugepages", nd);
		have = fs_read_file(path, 64, &s, NULL) < 0 ? 0 : strtoul(s, NULL, 10);
		if (have < need[nd]) {
			fprintf(stderr, "memscale: node %u has %lu free 2 MiB huge pages, %u tasks "
				"need %lu: set knobs.nr_hugepages\n", nd, have, n, need[nd]);
			return -ENOMEM;
		}
	}
	return 0;
}

static json_t *ms_result(const struct ms_ctx *x, const struct rt_team *t, unsigned n,
			 unsigned rep)
{
	json_t *res = rt_result_new(n, rep);
	double mib = (double)n * (double)x->len / 1048576.0;
	struct rt_sum s;

	if (!res)
		return NULL;
	rt_team_sum(t, 0, n, &s);
	rt_result_metric(res, "elapsed_s", s.span, "s", "lower");
	rt_result_metric(res, "wall_max_s", s.wall_max, "s", "lower");
	rt_result_metric(res, "wall_min_s", s.wall_min, "s", "lower");
	rt_result_metric(res, "mib_per_s", mib / s.span, "MiB/s", "higher");
	rt_result_metric(res, "sys_s", s.sys, "s", "lower");
	rt_result_metric(res, "user_s", s.user, "s", "lower");
	rt_result_metric(res, "cpu_s", s.sys + s.user, "s", "lower");
	rt_result_metric(res, "page_faults", (double)(s.minflt + s.majflt), "faults", "lower");
	rt_result_info(res, "bytes_per_task", json_integer((json_int_t)x->len));
	rt_result_info(res, "touches", json_integer((json_int_t)s.ops));
	if (rt_result_common(res, t, 0, n) < 0) {
		json_decref(res);
		return NULL;
	}
	return res;
}

static int ms_one(void *arg, unsigned n, int rep, json_t **out)
{
	struct ms_ctx *x = arg;
	const struct ms_opts *o = x->o;
	struct rt_team t = {
		.ops = &ms_ops, .ctx = x, .n = n, .processes = o->c.processes,
		.pin = !o->c.unpinned, .membind = (enum rt_membind)o->c.membind,
		.membind_by_workload = 1, .place_page = x->page, .cpus = x->cpus,
	};
	int r = o->huge == HUGE_HUGETLB ? ms_hugetlb_check(x, n) : 0;

	if (r < 0)
		return r;
	r = rt_team_run(&t);
	if (r < 0) {
		for (unsigned i = 0; t.tasks && i < n; i++)
			if (t.tasks[i].err) {
				fprintf(stderr, "memscale: task %u: %s: %s\n", i, t.tasks[i].step,
					strerror(-t.tasks[i].err));
				break;
			}
	} else {
		*out = ms_result(x, &t, n, rep < 0 ? 0 : (unsigned)rep);
		r = *out ? 0 : -ENOMEM;
	}
	rt_team_free(&t);
	return r;
}

/* Like `perf stat` of the seed: the whole run's time first, then the counters. */
static void ms_table(FILE *f, const json_t *doc, int style)
{
	json_t *res;
	size_t i;

	(void)style;
	fprintf(f, "%5s %3s %9s %10s %9s %9s %9s %9s %10s %10s %12s %9s %8s\n", "TASKS", "REP",
		"RUN_S", "ELAPSED_S", "WALL_MAX", "WALL_MIN", "SYS_S", "USER_S", "FAULTS", "MIB/S",
		"TASK_CLOCK_S", "CTX_SW", "MIGR");
	json_array_foreach(json_object_get(doc, "results"), i, res) {
		fprintf(f, "%5lld %3lld %9.3f %10.3f %9.3f %9.3f %9.3f %9.3f %10.0f %10.1f %12.3f "
			"%9.0f %8.0f\n", rt_res_int(res, "tasks"), rt_res_int(res, "repetition"),
			rt_res_metric(res, "run_s"), rt_res_metric(res, "elapsed_s"), rt_res_metric(res, "wall_max_s"),
			rt_res_metric(res, "wall_min_s"), rt_res_metric(res, "sys_s"),
			rt_res_metric(res, "user_s"), rt_res_metric(res, "page_faults"),
			rt_res_metric(res, "mib_per_s"), rt_res_metric(res, "perf_task_clock_s"),
			rt_res_metric(res, "perf_context_switches"),
			rt_res_metric(res, "perf_cpu_migrations"));
	}
}

int main(int argc, char **argv)
{
	struct ms_opts o = { 0 };
	struct rt_cpus cpus;
	struct rt_cli cli;
	struct ms_ctx x = { .o = &o, .cpus = &cpus };
	_cleanup_json_ json_t *doc = NULL, *params = NULL;
	_cleanup_json_ json_t *raw = rt_opts_parse("memscale", NULL, 0, NULL, argc, argv, &cli);
	json_t *info;
	int r;

	if (rt_cpus_load(&cpus) < 0)
		return RT_EXIT_FAIL;
	/* The registry also refuses an odd memory_mib with hugetlb (2 MiB pages). */
	params = rt_params_check("memscale", raw, cpus.n, &cli, &o.c);
	o.memory_mib = (unsigned long)wopts_int(params, "memory_mib");
	o.stride_kib = (unsigned long)wopts_int(params, "stride_kib");
	o.huge = rt_param_enum("memscale", params, "huge");
	o.own_pmd_table = wopts_bool(params, "own_pmd_table");
	o.read = wopts_bool(params, "read");
	o.map_early = wopts_bool(params, "map_early");
	o.work_loops = (long)wopts_int(params, "work_loops");
	x.len = (size_t)o.memory_mib << 20;
	x.stride = (size_t)o.stride_kib << 10;
	x.page = o.huge == HUGE_HUGETLB ? MS_HPAGE : (size_t)sysconf(_SC_PAGESIZE);
	info = rt_machine_info(&cpus);
	json_object_set_new(info, "hugetlb_page_kib", json_integer(MS_HPAGE >> 10));
	doc = json_pack("{s:s, s:O, s:o, s:[]}", "workload", "memscale", "params", params, "info",
			info, "results");
	if (!doc)
		return RT_EXIT_FAIL;
	r = rt_sweep(&o.c, json_object_get(doc, "results"), ms_one, &x, "memscale");
	if (r == 0)
		r = rt_doc_print(doc, &cli, ms_table);
	rt_cpus_free(&cpus);
	free(o.c.tasks.v);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
