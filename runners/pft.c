/* pft: page-fault scaling (seed 004, Brent Casavant's test, and Christoph Lameter's pft).
 *
 * For each task count N, N threads (or processes) each get a memory object -- malloc, an
 * anonymous mmap, a shared mapping of /dev/zero or a SysV shm segment -- and write one byte
 * (or `cachelines` lines, or memset it, or mlock it) per page while timing themselves.  In the
 * "shared" (preallocate) variant the coordinator creates one object and each task faults in
 * its own range of it, which is where the shmem i_lock (2004) and mmap_lock contention show.
 * Rates use the pages touched, as both originals do; the measured faults are reported too. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>

#include "rt_bench.h"

#define PFT_ALIGN (2UL << 20) /* so that THP can map whole PMDs */

/* In the order of the registry's choices (lab/proto/workload.c). */
enum pft_object { OBJ_ANON, OBJ_MALLOC, OBJ_ZERO, OBJ_SHM };
enum pft_touch { TOUCH_WRITE, TOUCH_MEMSET, TOUCH_MLOCK };
static const char *const pft_styles[] = { "seed", "lameter", NULL };
/* The seed table's TYPE suffix per object ("fork:zero", "fork:shmem"; malloc is plain). */
static const char *const pft_type_suffix[] = { ":anon", "", ":zero", ":shmem" };

struct pft_opts {
	struct rt_common c;
	unsigned long memory_mib, cachelines;
	int memory_split, object, shared, touch, thp, mbind, shm_lock, sched_fifo;
	const char *object_name; /* for messages */
};

/* One memory object: what the task touches (p, len) and how to give it back. */
struct pft_obj {
	char *p;
	size_t len;
	void *malloced;
};

struct pft_ctx {
	const struct pft_opts *o;
	const struct rt_cpus *cpus;
	size_t len, page, cline;
	struct pft_obj shared;
};

/* Reserve len bytes of address space aligned to PFT_ALIGN; the object is then mapped over it
 * with MAP_FIXED / SHM_REMAP, which replace the reservation atomically (other tasks map
 * concurrently in thread mode, so never leave a hole in between). */
static char *pft_reserve(size_t len)
{
	size_t span = len + PFT_ALIGN;
	char *base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *p;

	if (base == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)base + PFT_ALIGN - 1) & ~(PFT_ALIGN - 1));
	if (p > base)
		munmap(base, (size_t)(p - base));
	if (base + span > p + len)
		munmap(p + len, (size_t)(base + span - (p + len)));
	return p;
}

static int pft_map_fixed(char *at, size_t len, int flags, int fd)
{
	void *p = mmap(at, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0);

	return p == MAP_FAILED ? -errno : 0;
}

static int pft_shm(const struct pft_opts *o, char *at, size_t len)
{
	int id = shmget(IPC_PRIVATE, len, IPC_CREAT | 0600), r = 0;

	if (id < 0)
		return -errno;
	if (o->shm_lock && shmctl(id, SHM_LOCK, NULL) < 0)
		r = -errno;
	if (r == 0 && shmat(id, at, SHM_REMAP) == (void *)-1)
		r = -errno;
	/* Removed now, destroyed at the last detach: nothing leaks if we are killed. */
	shmctl(id, IPC_RMID, NULL);
	return r;
}

static int pft_obj_alloc(const struct pft_opts *o, size_t len, struct pft_obj *ob)
{
	int r = 0, fd;
	char *at;

	memset(ob, 0, sizeof(*ob));
	ob->len = len;
	if (o->object == OBJ_MALLOC) {
		r = -posix_memalign(&ob->malloced, PFT_ALIGN, len);
		ob->p = ob->malloced;
		return r;
	}
	at = pft_reserve(len);
	if (!at)
		return -errno;
	switch (o->object) {
	case OBJ_ANON:
		r = pft_map_fixed(at, len, MAP_PRIVATE | MAP_ANONYMOUS, -1);
		break;
	case OBJ_ZERO:
		/* A shared mapping of /dev/zero is shmem underneath (the 2004 thread's subject). */
		fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
		r = fd < 0 ? -errno : pft_map_fixed(at, len, MAP_SHARED, fd);
		if (fd >= 0)
			close(fd);
		break;
	default:
		r = pft_shm(o, at, len);
	}
	if (r < 0) {
		munmap(at, len);
		return r;
	}
	ob->p = at;
	return 0;
}

static void pft_obj_free(const struct pft_opts *o, struct pft_obj *ob)
{
	if (!ob->p)
		return;
	if (o->object == OBJ_MALLOC)
		free(ob->malloced);
	else if (o->object == OBJ_SHM)
		shmdt(ob->p);
	else
		munmap(ob->p, ob->len);
	ob->p = NULL;
}

/* Huge pages turn 512 faults into one and measure something else, so they are kept out
 * unless asked for.  A kernel without THP refuses MADV_NOHUGEPAGE: nothing to keep out then. */
static int pft_advise(const struct pft_opts *o, char *p, size_t len)
{
	if (madvise(p, len, o->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0 && o->thp)
		return -errno;
	return 0;
}

static int pft_prepare(struct rt_team *t, struct rt_task *k, void **state)
{
	struct pft_ctx *x = t->ctx;
	const struct pft_opts *o = x->o;
	struct pft_obj *ob = NULL;
	char *p;
	int r;

	if (x->shared.p) {
		p = x->shared.p + (size_t)k->idx * x->len;
	} else {
		ob = calloc(1, sizeof(*ob));
		if (!ob)
			return rt_task_fail(k, "calloc", -ENOMEM);
		r = pft_obj_alloc(o, x->len, ob);
		if (r == 0 && (r = pft_advise(o, ob->p, x->len)) < 0)
			pft_obj_free(o, ob);
		if (r < 0) {
			free(ob);
			return rt_task_fail(k, o->object_name, r);
		}
		p = ob->p;
	}
	/* Lameter's -p: the policy on the object (a VMA policy) rather than on the task. */
	if (o->mbind) {
		r = rt_membind_range(p, x->len, o->c.membind, k->node, x->cpus->mem_nodes);
		if (r < 0) {
			if (ob)
				pft_obj_free(o, ob);
			free(ob);
			return rt_task_fail(k, "mbind", r);
		}
	}
	k->region = p;
	k->region_len = x->len;
	*state = ob;
	return 0;
}

static int pft_measure(struct rt_team *t, struct rt_task *k, void *state)
{
	struct pft_ctx *x = t->ctx;
	volatile char *p = k->region;
	size_t lines = x->o->cachelines;

	(void)state;
	switch (x->o->touch) {
	case TOUCH_MLOCK:
		return mlock(k->region, x->len) < 0 ? rt_task_fail(k, "mlock", -errno) : 0;
	case TOUCH_MEMSET:
		memset(k->region, 0, x->len);
		break;
	default:
		for (size_t off = 0; off < x->len; off += x->page)
			for (size_t l = 0; l < lines; l++)
				p[off + l * x->cline] = 1;
	}
	return 0;
}

static void pft_cleanup(struct rt_team *t, struct rt_task *k, void *state)
{
	struct pft_ctx *x = t->ctx;
	struct pft_obj *ob = state;

	(void)k;
	if (ob)
		pft_obj_free(x->o, ob);
	free(ob);
}

static const struct rt_team_ops pft_ops = { pft_prepare, pft_measure, pft_cleanup };

static unsigned pft_nodes_used(const struct rt_team *t)
{
	uint64_t seen = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < t->n; i++) {
		int nd = t->tasks[i].node;

		if (nd >= 0 && nd < RT_MAX_NODES && !(seen & (1ULL << nd))) {
			seen |= 1ULL << nd;
			n++;
		}
	}
	return n;
}

static json_t *pft_result(struct pft_ctx *x, const struct rt_team *t, unsigned n, unsigned rep)
{
	json_t *res = rt_result_new(n, rep);
	double pages = (double)n * (double)(x->len / x->page);
	struct rt_sum s;

	rt_team_sum(t, 0, n, &s);
	if (!res)
		return NULL;
	/* The seed table's columns, then Lameter's flt/cpu/s. */
	rt_result_metric(res, "wall_max_s", s.wall_max, "s", "lower");
	rt_result_metric(res, "wall_min_s", s.wall_min, "s", "lower");
	rt_result_metric(res, "sys_s", s.sys, "s", "lower");
	rt_result_metric(res, "user_s", s.user, "s", "lower");
	rt_result_metric(res, "cpu_s", s.sys + s.user, "s", "lower");
	rt_result_metric(res, "cpu_per_task_s", (s.sys + s.user) / n, "s", "lower");
	rt_result_metric(res, "faults_per_s", pages / s.wall_max, "faults/s", "higher");
	rt_result_metric(res, "faults_per_sys_s", pages / s.sys, "faults/s", "higher");
	rt_result_metric(res, "faults_per_s_per_cpu", pages / s.wall_max / n, "faults/s",
			 "higher");
	rt_result_metric(res, "faults_per_cpu_s", pages / (s.sys + s.user), "faults/s", "higher");
	rt_result_metric(res, "page_faults", (double)(s.minflt + s.majflt), "faults", "lower");
	rt_result_info(res, "pages", json_integer((json_int_t)pages));
	rt_result_info(res, "bytes_per_task", json_integer((json_int_t)x->len));
	rt_result_info(res, "nodes", json_integer(pft_nodes_used(t)));
	if (rt_result_common(res, t, 0, n) < 0) {
		json_decref(res);
		return NULL;
	}
	return res;
}

static int pft_one(void *arg, unsigned n, int rep, json_t **out)
{
	struct pft_ctx *x = arg;
	const struct pft_opts *o = x->o;
	struct rt_team t = {
		.ops = &pft_ops, .ctx = x, .n = n, .processes = o->c.processes,
		.pin = !o->c.unpinned, .membind = (enum rt_membind)o->c.membind,
		.membind_by_workload = o->mbind, .sched_fifo = o->sched_fifo,
		.place_page = x->page, .cpus = x->cpus,
	};
	int r;

	x->len = (size_t)o->memory_mib << 20;
	if (o->memory_split)
		x->len = x->len / n / x->page * x->page;
	if (x->len == 0)
		return -EINVAL; /* the registry refuses splits below a 4 KiB page */
	if (o->shared) {
		r = pft_obj_alloc(o, x->len * n, &x->shared);
		if (r == 0 && (r = pft_advise(o, x->shared.p, x->len * n)) < 0)
			pft_obj_free(o, &x->shared);
		if (r < 0)
			return r;
	}
	r = rt_team_run(&t);
	if (r < 0) {
		for (unsigned i = 0; i < n; i++)
			if (t.tasks && t.tasks[i].err) {
				fprintf(stderr, "pft: task %u: %s: %s\n", i, t.tasks[i].step,
					strerror(-t.tasks[i].err));
				break;
			}
	} else {
		*out = pft_result(x, &t, n, rep < 0 ? 0 : (unsigned)rep);
		r = *out ? 0 : -ENOMEM;
	}
	rt_team_free(&t);
	pft_obj_free(o, &x->shared);
	return r;
}

static void pft_type(const json_t *params, char *buf, size_t len)
{
	const char *mode = json_string_value(json_object_get(params, "mode"));
	const char *touch = json_string_value(json_object_get(params, "touch"));
	int k = rt_param_enum("pft", params, "object");

	if (k < 0)
		k = OBJ_ANON;
	snprintf(buf, len, "%s%s%s%s%s%s", mode && !strcmp(mode, "processes") ? "fork" : "thread",
		 pft_type_suffix[k], json_is_true(json_object_get(params, "shared")) ? ":shared" : "",
		 touch && strcmp(touch, "write") ? ":" : "", touch && strcmp(touch, "write") ? touch : "",
		 json_is_true(json_object_get(params, "thp")) ? ":thp" : "");
}

/* Shaped like the seed's table (Brent Casavant, 2004), one row per result. */
static void pft_table_seed(FILE *f, const json_t *doc)
{
	json_t *params = json_object_get(doc, "params"), *res;
	char type[64];
	size_t i;

	pft_type(params, type, sizeof(type));
	fprintf(f, "%-22s %4s %3s %7s %7s %8s %7s %8s %7s %10s %10s %8s %5s\n", "", "", "", "MAX",
		"MIN", "", "", "", "TOTCPU/", "TOT_PF/", "TOT_PF/", "PF/WSEC/", "");
	fprintf(f, "%-22s %4s %3s %7s %7s %8s %7s %8s %7s %10s %10s %8s %5s\n", "TYPE:", "CPUS",
		"REP", "WALL", "WALL", "SYS", "USER", "TOTCPU", "CPU", "WALL_SEC", "SYS_SEC", "CPU",
		"NODES");
	json_array_foreach(json_object_get(doc, "results"), i, res) {
		fprintf(f, "%-22s %4lld %3lld %7.3f %7.3f %8.3f %7.3f %8.3f %7.3f %10.0f %10.0f %8.0f "
			"%5lld\n", type, rt_res_int(res, "tasks"), rt_res_int(res, "repetition"),
			rt_res_metric(res, "wall_max_s"), rt_res_metric(res, "wall_min_s"),
			rt_res_metric(res, "sys_s"), rt_res_metric(res, "user_s"),
			rt_res_metric(res, "cpu_s"), rt_res_metric(res, "cpu_per_task_s"),
			rt_res_metric(res, "faults_per_s"), rt_res_metric(res, "faults_per_sys_s"),
			rt_res_metric(res, "faults_per_s_per_cpu"),
			rt_res_int(json_object_get(res, "info"), "nodes"));
	}
}

/* Shaped like Lameter's pft (mmtests' version): Gb is the whole region over all tasks. */
static void pft_table_lameter(FILE *f, const json_t *doc)
{
	json_t *params = json_object_get(doc, "params"), *res;
	size_t i;

	fprintf(f, "  %6s %4s %5s %9s %9s %9s  %10s %10s\n", "Gb", "Thr", "CLine", "User",
		"System", "Wall", "flt/cpu/s", "fault/wsec");
	json_array_foreach(json_object_get(doc, "results"), i, res) {
		json_t *info = json_object_get(res, "info");
		double gb = (double)rt_res_int(info, "bytes_per_task") * (double)rt_res_int(res, "tasks") /
			    (1024.0 * 1024 * 1024);

		fprintf(f, "  %6.3f %4lld %5lld %8.2fs %8.2fs %8.2fs  %10.3f %10.3f\n", gb,
			rt_res_int(res, "tasks"),
			(long long)json_integer_value(json_object_get(params, "cachelines")),
			rt_res_metric(res, "user_s"), rt_res_metric(res, "sys_s"),
			rt_res_metric(res, "wall_max_s"), rt_res_metric(res, "faults_per_cpu_s"),
			rt_res_metric(res, "faults_per_s"));
	}
}

static void pft_table(FILE *f, const json_t *doc, int style)
{
	if (style == 1)
		pft_table_lameter(f, doc);
	else
		pft_table_seed(f, doc);
}

/* The parameter rules are the registry's (lab/proto/workload.c, checked by rt_params_check);
 * this is a fact of the machine instead: with 64-byte lines and 4 KiB pages (x86-64 guests)
 * the registry's 1..64 lines always fit, elsewhere they might not. */
static void pft_check_machine(const struct pft_opts *o, size_t page, size_t cline)
{
	if (o->cachelines * cline > page)
		rt_usage_error("pft", "--cachelines", "%lu lines of %zu bytes do not fit a %zu-byte "
			       "page", o->cachelines, cline, page);
}

int main(int argc, char **argv)
{
	struct pft_opts o = { 0 };
	struct rt_cpus cpus;
	struct rt_cli cli;
	struct pft_ctx x = { .o = &o, .cpus = &cpus, .page = (size_t)sysconf(_SC_PAGESIZE) };
	_cleanup_json_ json_t *doc = NULL, *params = NULL;
	_cleanup_json_ json_t *raw = rt_opts_parse("pft", NULL, 0, pft_styles, argc, argv, &cli);
	long cl = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	int r;

	x.cline = cl > 0 ? (size_t)cl : 64;
	if (rt_cpus_load(&cpus) < 0)
		return RT_EXIT_FAIL;
	params = rt_params_check("pft", raw, cpus.n, &cli, &o.c);
	o.memory_mib = (unsigned long)wopts_int(params, "memory_mib");
	o.cachelines = (unsigned long)wopts_int(params, "cachelines");
	o.memory_split = wopts_bool(params, "memory_split");
	o.object = rt_param_enum("pft", params, "object");
	o.object_name = json_string_value(json_object_get(params, "object"));
	o.shared = wopts_bool(params, "shared");
	o.touch = rt_param_enum("pft", params, "touch");
	o.thp = wopts_bool(params, "thp");
	o.mbind = wopts_bool(params, "mbind");
	o.shm_lock = wopts_bool(params, "shm_lock");
	o.sched_fifo = wopts_bool(params, "sched_fifo");
	pft_check_machine(&o, x.page, x.cline);
	doc = json_pack("{s:s, s:O, s:o, s:[]}", "workload", "pft", "params", params, "info",
			rt_machine_info(&cpus), "results");
	if (!doc)
		return RT_EXIT_FAIL;
	r = rt_sweep(&o.c, json_object_get(doc, "results"), pft_one, &x, "pft");
	if (r == 0)
		r = rt_doc_print(doc, &cli, pft_table);
	rt_cpus_free(&cpus);
	free(o.c.tasks.v);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
