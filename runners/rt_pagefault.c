/* page_fault1/2/3 in the will-it-scale sense, one implementation for the three runners:
 *   1: private anonymous mapping      (anonymous fault: allocate + zero)
 *   2: private mapping of a file      (read from the page cache, copy on write)
 *   3: shared mapping of a file       (page cache page mapped writable, dirtied)
 * Each task loops map -> write one byte per page -> unmap for duration_s; an operation is one
 * page touched, as in will-it-scale.  Files live in --dir (default /tmp: tmpfs in the guest),
 * one per task, unlinked at once, kept across iterations so that 2 and 3 fault on cached pages. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>

#include "rt_bench.h"
#include "rt_pagefault.h"

#define PF_STOP_CHECK 64 /* pages between looks at the stop flag */

/* In the order of the registry's choices for huge (lab/proto/workload.c). */
enum pf_huge { PF_NOTHP, PF_SYSTEM, PF_THP };

struct pf_opts {
	struct rt_common c;
	unsigned long memory_mib, duration_s, precision_bp;
	int huge;
	const char *dir;
};

struct pf_ctx {
	const struct pf_opts *o;
	const struct rt_cpus *cpus;
	int variant;
	size_t len, page;
};

struct pf_state {
	int fd;
	char *cur; /* the mapping left in place when stopped, for the placement query */
};

/* Write the file once before the measured window, so that its pages are in the page cache
 * and every cycle measures the same faults.  Otherwise the first cycle also allocates them,
 * and a run's rate depends on how long it ran, which a sized run (precision_bp) chooses.  Seen
 * under quantum, 16 MiB, one task, 1 s runs: the 95 % interval of the rate from 10 batches
 * was +-2.8 % (page_fault3) and +-2.3 % (page_fault2) with that first allocation in the
 * window, +-0.58 % and under +-0.2 % without it. */
static int pf_fill(int fd, size_t len)
{
	static const char zero[65536];

	for (size_t off = 0; off < len;) {
		size_t n = len - off < sizeof(zero) ? len - off : sizeof(zero);
		ssize_t w = pwrite(fd, zero, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		off += (size_t)w;
	}
	return 0;
}

static int pf_prepare(struct rt_team *t, struct rt_task *k, void **state)
{
	struct pf_ctx *x = t->ctx;
	struct pf_state *s = calloc(1, sizeof(*s));
	char path[1200];

	if (!s)
		return rt_task_fail(k, "calloc", -ENOMEM);
	s->fd = -1;
	*state = s;
	if (x->variant == 1)
		return 0;
	snprintf(path, sizeof(path), "%s/numalab-page_fault%d-XXXXXX", x->o->dir, x->variant);
	s->fd = mkostemp(path, O_CLOEXEC);
	if (s->fd < 0) {
		int e = -errno;

		free(s);
		*state = NULL;
		return rt_task_fail(k, "mkstemp in --dir", e);
	}
	unlink(path);
	if (ftruncate(s->fd, (off_t)x->len) < 0 || pf_fill(s->fd, x->len) < 0) {
		int e = -errno;

		close(s->fd);
		free(s);
		*state = NULL;
		return rt_task_fail(k, "ftruncate and fill", e);
	}
	return 0;
}

static char *pf_map(const struct pf_ctx *x, const struct pf_state *s)
{
	int flags = x->variant == 1 ? MAP_PRIVATE | MAP_ANONYMOUS
				    : x->variant == 2 ? MAP_PRIVATE : MAP_SHARED;
	char *p = mmap(NULL, x->len, PROT_READ | PROT_WRITE, flags, x->variant == 1 ? -1 : s->fd,
		       0);

	if (p == MAP_FAILED)
		return NULL;
	if (x->o->huge != PF_SYSTEM)
		madvise(p, x->len, x->o->huge == PF_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return p;
}

static int pf_measure(struct rt_team *t, struct rt_task *k, void *state)
{
	struct pf_ctx *x = t->ctx;
	struct pf_state *s = state;
	uint64_t ops = 0;

	while (!rt_team_stopped(t)) {
		volatile char *p = pf_map(x, s);
		size_t off = 0;

		if (!p) {
			k->ops = ops;
			return rt_task_fail(k, "mmap", -errno);
		}
		for (size_t n = 0; off < x->len; off += x->page, n++) {
			if (n % PF_STOP_CHECK == 0 && rt_team_stopped(t))
				break;
			p[off] = 0;
			ops++;
		}
		if (off < x->len) {
			s->cur = (char *)p;
			k->region = s->cur;
			k->region_len = off;
			break;
		}
		munmap((void *)p, x->len);
		rt_task_cycle_end(t, k, ops);
	}
	k->ops = ops;
	return 0;
}

static void pf_cleanup(struct rt_team *t, struct rt_task *k, void *state)
{
	struct pf_ctx *x = t->ctx;
	struct pf_state *s = state;

	(void)k;
	if (!s)
		return;
	if (s->cur)
		munmap(s->cur, x->len);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}

static const struct rt_team_ops pf_ops = { pf_prepare, pf_measure, pf_cleanup };

static json_t *pf_result(const struct pf_ctx *x, const struct rt_team *t, unsigned n,
			 unsigned rep)
{
	json_t *res = rt_result_new(n, rep);
	double rate = 0;
	struct rt_sum s;

	if (!res)
		return NULL;
	rt_team_sum(t, 0, n, &s);
	/* Each task's own rate over its own window: the stop flag reaches them at slightly
	 * different moments. */
	for (unsigned i = 0; i < n; i++) {
		double w = t->tasks[i].t1 - t->tasks[i].t0;

		rate += w > 0 ? (double)t->tasks[i].ops / w : 0;
	}
	rt_result_metric(res, "ops_per_s", rate, "ops/s", "higher");
	rt_result_metric(res, "ops_per_s_per_task", rate / n, "ops/s", "higher");
	rt_result_metric(res, "page_faults_per_op", s.ops ? (double)(s.minflt + s.majflt) / (double)s.ops
							   : 0, "faults/op", "lower");
	rt_result_info(res, "ops", json_integer((json_int_t)s.ops));
	rt_result_info(res, "page_faults", json_integer((json_int_t)(s.minflt + s.majflt)));
	rt_result_info(res, "wall_max_s", json_real(s.wall_max));
	rt_result_info(res, "bytes_per_cycle", json_integer((json_int_t)x->len));
	if (rt_result_common(res, t, 0, n) < 0) {
		json_decref(res);
		return NULL;
	}
	return res;
}

static int pf_one(void *arg, unsigned n, int rep, json_t **out)
{
	struct pf_ctx *x = arg;
	const struct pf_opts *o = x->o;
	struct rt_team t = {
		.ops = &pf_ops, .ctx = x, .n = n, .processes = o->c.processes,
		.pin = !o->c.unpinned, .membind = (enum rt_membind)o->c.membind,
		.duration_s = (double)o->duration_s, .precision_bp = (unsigned)o->precision_bp,
		.place_page = x->page, .cpus = x->cpus,
	};
	char prog[32];
	int r;

	snprintf(prog, sizeof(prog), "page_fault%d", x->variant);
	r = rt_team_run(&t);
	if (r < 0) {
		for (unsigned i = 0; t.tasks && i < n; i++)
			if (t.tasks[i].err) {
				fprintf(stderr, "%s: task %u: %s: %s\n", prog, i, t.tasks[i].step,
					strerror(-t.tasks[i].err));
				break;
			}
	} else {
		*out = pf_result(x, &t, n, rep < 0 ? 0 : (unsigned)rep);
		r = *out ? 0 : -ENOMEM;
	}
	rt_team_free(&t);
	return r;
}

static void pf_table(FILE *f, const json_t *doc, int style)
{
	json_t *res;
	size_t i;

	(void)style;
	fprintf(f, "%-12s %5s %3s %14s %14s %12s %10s\n", "TEST", "TASKS", "REP", "OPS/S",
		"OPS/S/TASK", "FAULTS/OP", "CTX_SW");
	json_array_foreach(json_object_get(doc, "results"), i, res)
		fprintf(f, "%-12s %5lld %3lld %14.0f %14.0f %12.4f %10.0f\n",
			json_string_value(json_object_get(doc, "workload")), rt_res_int(res, "tasks"),
			rt_res_int(res, "repetition"), rt_res_metric(res, "ops_per_s"),
			rt_res_metric(res, "ops_per_s_per_task"),
			rt_res_metric(res, "page_faults_per_op"),
			rt_res_metric(res, "perf_context_switches"));
}

int rt_pagefault_main(int argc, char **argv, int variant)
{
	struct pf_opts o = { .dir = "/tmp" };
	const struct rt_opt opts[] = {
		{ "dir", "PATH", &o.dir, "directory for the files of page_fault2/3 (default /tmp)" },
	};
	struct rt_cpus cpus;
	struct pf_ctx x = { .o = &o, .cpus = &cpus, .variant = variant };
	struct rt_cli cli;
	char prog[32];
	_cleanup_json_ json_t *doc = NULL, *params = NULL, *raw = NULL;
	int r;

	snprintf(prog, sizeof(prog), "page_fault%d", variant);
	raw = rt_opts_parse(prog, opts, sizeof(opts) / sizeof(opts[0]), NULL, argc, argv, &cli);
	if (rt_cpus_load(&cpus) < 0)
		return RT_EXIT_FAIL;
	params = rt_params_check(prog, raw, cpus.n, &cli, &o.c);
	o.memory_mib = (unsigned long)wopts_int(params, "memory_mib");
	o.duration_s = (unsigned long)wopts_int(params, "duration_s");
	o.precision_bp = (unsigned long)wopts_int(params, "precision_bp");
	o.huge = rt_param_enum(prog, params, "huge");
	x.len = (size_t)o.memory_mib << 20;
	x.page = (size_t)sysconf(_SC_PAGESIZE);
	doc = json_pack("{s:s, s:O, s:o, s:[]}", "workload", prog, "params", params, "info",
			rt_machine_info(&cpus), "results");
	if (!doc)
		return RT_EXIT_FAIL;
	r = rt_sweep(&o.c, json_object_get(doc, "results"), pf_one, &x, prog);
	if (r == 0)
		r = rt_doc_print(doc, &cli, pf_table);
	rt_cpus_free(&cpus);
	free(o.c.tasks.v);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
