/* pft: anonymous page-fault scaling.  For each task count N, N threads (or processes) each
 * map a private anonymous region, wait for each other, then write one byte per page while
 * timing themselves.  The interesting number is how the fault rate scales with N: per-VMA
 * locks, split PTE/PMD locks and the zone lock all show up here.
 *
 * The per-task work is split into prepare (pin + map, untimed) and measure (touch, timed) so
 * that further access patterns (read faults, shared or file-backed mappings) slot in there. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "rt.h"
#include "util/fs.h"

#define PFT_MAX_TASKS 4096UL
#define PFT_MAX_COUNTS 64
#define PFT_MAX_MEMORY_MIB (1024UL * 1024) /* per task */
#define PFT_THREAD_STACK (256 * 1024)

struct pft_opts {
	int processes;
	unsigned long memory_mib;
	unsigned long *tasks;
	size_t nr_tasks;
	int json, table, thp;
};

/* One task's measurement.  Lives in a MAP_SHARED array in process mode. */
struct pft_result {
	double wall_s, sys_s, user_s;
	long minflt;
	int err; /* 0 or negative errno of the step that failed */
	int pinned;
};

/* One task count N. */
struct pft_run {
	const struct pft_opts *o;
	unsigned n;
	size_t len;       /* bytes per task */
	size_t page_size;
	const unsigned *cpus;
	size_t nr_cpus;
	struct pft_result *res;
	pthread_barrier_t start, end; /* thread mode */
};

struct pft_thread {
	struct pft_run *run;
	unsigned idx;
};

static void pft_usage(FILE *f)
{
	fprintf(f,
		"usage: pft [--json] [--table] [--mode threads|processes] [--memory-mib N]\n"
		"           [--tasks N[,N...]] [--thp]\n"
		"  --mode        threads (default) or processes, one task each\n"
		"  --memory-mib  anonymous memory each task faults in (default 64)\n"
		"  --tasks       task counts to run, in order (default: number of online CPUs)\n"
		"  --thp         allow transparent huge pages (default: MADV_NOHUGEPAGE, so\n"
		"                that one fault = one page)\n"
		"  --json        JSON result on stdout (numalab runner protocol)\n"
		"  --table       human table (on stderr when --json is also given)\n");
}

__attribute__((format(printf, 2, 3), noreturn)) static void pft_bad(const char *opt,
								   const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pft: %s: ", opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(RT_EXIT_USAGE);
}

static void pft_parse(int argc, char **argv, struct pft_opts *o)
{
	enum { OPT_JSON = 1, OPT_TABLE, OPT_MODE, OPT_MEM, OPT_TASKS, OPT_THP, OPT_HELP };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, OPT_JSON },
		{ "table", no_argument, NULL, OPT_TABLE },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "memory-mib", required_argument, NULL, OPT_MEM },
		{ "tasks", required_argument, NULL, OPT_TASKS },
		{ "thp", no_argument, NULL, OPT_THP },
		{ "help", no_argument, NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_JSON:
			o->json = 1;
			break;
		case OPT_TABLE:
			o->table = 1;
			break;
		case OPT_THP:
			o->thp = 1;
			break;
		case OPT_HELP:
			pft_usage(stdout);
			exit(RT_EXIT_OK);
		case OPT_MODE:
			if (!strcmp(optarg, "threads"))
				o->processes = 0;
			else if (!strcmp(optarg, "processes"))
				o->processes = 1;
			else
				pft_bad("--mode", "'%s' is not threads or processes", optarg);
			break;
		case OPT_MEM:
			if (rt_parse_ulong(optarg, 1, PFT_MAX_MEMORY_MIB, &o->memory_mib) < 0)
				pft_bad("--memory-mib", "'%s' is not an integer in 1..%lu", optarg,
					PFT_MAX_MEMORY_MIB);
			break;
		case OPT_TASKS:
			free(o->tasks);
			o->tasks = NULL;
			if (rt_parse_ulong_list(optarg, 1, PFT_MAX_TASKS, PFT_MAX_COUNTS, &o->tasks,
						&o->nr_tasks) < 0)
				pft_bad("--tasks", "'%s' is not a comma list of at most %d integers in 1..%lu",
					optarg, PFT_MAX_COUNTS, PFT_MAX_TASKS);
			break;
		case ':':
			pft_bad(argv[optind - 1], "needs a value");
		default:
			pft_bad(argv[optind - 1], "unknown option (see --help)");
		}
	}
	if (optind < argc)
		pft_bad(argv[optind], "unexpected argument");
}

/* CPUs this process may run on, in ascending order: task i is pinned to cpus[i % n]. */
static int pft_allowed_cpus(unsigned **out, size_t *n)
{
	cpu_set_t set;
	unsigned *v;
	size_t cnt = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	v = calloc(CPU_SETSIZE, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (unsigned c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			v[cnt++] = c;
	*out = v;
	*n = cnt;
	return 0;
}

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* Untimed part: pin, map, keep THP out unless asked. */
static int pft_task_prepare(const struct pft_run *run, unsigned idx, char **region)
{
	struct pft_result *r = &run->res[idx];
	char *p;

	r->pinned = 0;
	if (run->nr_cpus) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(run->cpus[idx % run->nr_cpus], &set);
		/* 0 = the calling thread, so this pins just this task in thread mode. */
		r->pinned = sched_setaffinity(0, sizeof(set), &set) == 0;
	}
	p = mmap(NULL, run->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	/* Huge pages would turn 512 faults into one and measure something else entirely. */
	if (madvise(p, run->len, run->o->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) < 0 &&
	    !run->o->thp) {
		int e = -errno;

		munmap(p, run->len);
		return e;
	}
	*region = p;
	/* Warm the vDSO clock before the timed window so its first call is not counted. */
	(void)rt_now_s();
	return 0;
}

/* Timed part: one write per page. */
static void pft_task_measure(const struct pft_run *run, unsigned idx, char *region, int who)
{
	struct pft_result *r = &run->res[idx];
	volatile char *p = region;
	struct rusage ru0, ru1;
	double t0, t1;

	getrusage(who, &ru0);
	t0 = rt_now_s();
	for (size_t off = 0; off < run->len; off += run->page_size)
		p[off] = 1;
	t1 = rt_now_s();
	getrusage(who, &ru1);
	r->wall_s = t1 - t0;
	r->minflt = ru1.ru_minflt - ru0.ru_minflt;
	r->user_s = tv_s(&ru1.ru_utime) - tv_s(&ru0.ru_utime);
	r->sys_s = tv_s(&ru1.ru_stime) - tv_s(&ru0.ru_stime);
}

static void *pft_thread_main(void *arg)
{
	struct pft_thread *t = arg;
	struct pft_run *run = t->run;
	char *region = NULL;
	int r = pft_task_prepare(run, t->idx, &region);

	/* Every thread reaches both barriers even after a failure, or the others deadlock. */
	run->res[t->idx].err = r;
	pthread_barrier_wait(&run->start);
	if (r == 0)
		pft_task_measure(run, t->idx, region, RUSAGE_THREAD);
	/* Unmap only when everyone is done: munmap takes mmap_lock and would disturb others. */
	pthread_barrier_wait(&run->end);
	if (region)
		munmap(region, run->len);
	return NULL;
}

static int pft_run_threads(struct pft_run *run)
{
	_cleanup_free_ pthread_t *tid = calloc(run->n, sizeof(*tid));
	_cleanup_free_ struct pft_thread *args = calloc(run->n, sizeof(*args));
	pthread_attr_t attr;
	int r = 0;

	if (!tid || !args)
		return -ENOMEM;
	if (pthread_barrier_init(&run->start, NULL, run->n) ||
	    pthread_barrier_init(&run->end, NULL, run->n))
		return -ENOMEM;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PFT_THREAD_STACK);
	for (unsigned i = 0; i < run->n; i++) {
		args[i].run = run;
		args[i].idx = i;
		r = -pthread_create(&tid[i], &attr, pft_thread_main, &args[i]);
		if (r < 0) {
			/* Threads already started wait on the barrier forever; nothing to do but
			 * leave.  Exiting the process takes them with it. */
			fprintf(stderr, "pft: pthread_create: %s\n", strerror(-r));
			exit(RT_EXIT_FAIL);
		}
	}
	pthread_attr_destroy(&attr);
	for (unsigned i = 0; i < run->n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&run->start);
	pthread_barrier_destroy(&run->end);
	return 0;
}

/* Pipe gates for process mode: children each write one byte when they reach a gate; the
 * parent opens it by closing the write end of the matching release pipe (all readers get EOF
 * at once, the closest thing to a barrier across processes without shared futexes). */
struct pft_gates {
	int ready[2], go[2], done[2], leave[2];
};

static void pft_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void pft_gates_close(struct pft_gates *g)
{
	int *all[] = { &g->ready[0], &g->ready[1], &g->go[0], &g->go[1],
		       &g->done[0], &g->done[1], &g->leave[0], &g->leave[1] };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		pft_close(all[i]);
}

static void pft_gate_wait(int fd)
{
	char c;

	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
}

/* Read n arrival bytes; fewer means children died (EOF once all write ends are closed). */
static int pft_gate_collect(int fd, unsigned n)
{
	char buf[256];
	unsigned got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -ECHILD;
		got += (unsigned)r;
	}
	return 0;
}

static __attribute__((noreturn)) void pft_child(struct pft_run *run, unsigned idx,
						 struct pft_gates *g)
{
	char *region = NULL;
	char c = 1;
	int r;

	pft_close(&g->go[1]);
	pft_close(&g->leave[1]);
	pft_close(&g->ready[0]);
	pft_close(&g->done[0]);
	r = pft_task_prepare(run, idx, &region);
	run->res[idx].err = r;
	/* Close each arrival pipe once arrived: then the parent sees EOF instead of waiting
	 * forever if a sibling dies (OOM killer) before arriving. */
	rt_write_full(g->ready[1], &c, 1);
	pft_close(&g->ready[1]);
	pft_gate_wait(g->go[0]);
	if (r == 0)
		pft_task_measure(run, idx, region, RUSAGE_SELF);
	rt_write_full(g->done[1], &c, 1);
	pft_close(&g->done[1]);
	pft_gate_wait(g->leave[0]);
	_exit(r == 0 ? 0 : RT_EXIT_FAIL);
}

static int pft_run_processes(struct pft_run *run)
{
	struct pft_gates g = { { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 } };
	_cleanup_free_ pid_t *pids = calloc(run->n, sizeof(*pids));
	unsigned started = 0;
	int r = 0;

	if (!pids)
		return -ENOMEM;
	if (pipe2(g.ready, O_CLOEXEC) || pipe2(g.go, O_CLOEXEC) || pipe2(g.done, O_CLOEXEC) ||
	    pipe2(g.leave, O_CLOEXEC)) {
		r = -errno;
		pft_gates_close(&g);
		return r;
	}
	fflush(NULL); /* children must not flush a copy of our stdio buffers */
	for (; started < run->n; started++) {
		pid_t pid = fork();

		if (pid < 0) {
			r = -errno;
			break;
		}
		if (pid == 0)
			pft_child(run, started, &g);
		pids[started] = pid;
	}
	/* Close our copies of the arrival pipes' write ends so dead children show as EOF. */
	pft_close(&g.ready[1]);
	pft_close(&g.done[1]);
	if (r == 0)
		r = pft_gate_collect(g.ready[0], run->n);
	pft_close(&g.go[1]);
	if (r == 0)
		r = pft_gate_collect(g.done[0], run->n);
	pft_close(&g.leave[1]);
	for (unsigned i = 0; i < started; i++) {
		int st = 0;

		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		/* A child killed mid-run left a zeroed result; never report it as a measurement. */
		if (WIFSIGNALED(st)) {
			fprintf(stderr, "pft: task %u (pid %d) killed by signal %d (%s)\n", i,
				(int)pids[i], WTERMSIG(st), strsignal(WTERMSIG(st)));
			r = r ? r : -ECHILD;
		}
	}
	pft_gates_close(&g);
	return r;
}

static json_t *pft_metrics(const struct pft_run *run, size_t *pages_out, int *pinned_out)
{
	size_t pages = run->len / run->page_size * run->n;
	double wmax = 0, wmin = -1, sys = 0, user = 0, faults = 0, rate;
	int pinned = run->nr_cpus > 0;

	for (unsigned i = 0; i < run->n; i++) {
		const struct pft_result *r = &run->res[i];

		wmax = r->wall_s > wmax ? r->wall_s : wmax;
		wmin = (wmin < 0 || r->wall_s < wmin) ? r->wall_s : wmin;
		sys += r->sys_s;
		user += r->user_s;
		faults += (double)r->minflt;
		pinned = pinned && r->pinned;
	}
	rate = wmax > 0 ? (double)pages / wmax : 0;
	*pages_out = pages;
	*pinned_out = pinned;
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "faults_per_s", rt_metric(rate, "faults/s", "higher"),
			 "faults_per_s_per_task", rt_metric(rate / run->n, "faults/s", "higher"),
			 "wall_max_s", rt_metric(wmax, "s", "lower"),
			 "wall_min_s", rt_metric(wmin, "s", "lower"),
			 "sys_s", rt_metric(sys, "s", "lower"),
			 "user_s", rt_metric(user, "s", "lower"),
			 "page_faults", rt_metric(faults, "faults", "lower"));
}

static int pft_one(const struct pft_opts *o, const unsigned *cpus, size_t nr_cpus, unsigned n,
		   json_t **out)
{
	struct pft_run run = {
		.o = o, .n = n, .cpus = cpus, .nr_cpus = nr_cpus,
		.page_size = (size_t)sysconf(_SC_PAGESIZE),
		.len = (size_t)o->memory_mib << 20,
	};
	size_t bytes = n * sizeof(*run.res);
	size_t pages;
	int pinned, r;
	json_t *metrics;

	/* Shared so that forked children can report; harmless for threads. */
	run.res = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (run.res == MAP_FAILED)
		return -errno;
	r = o->processes ? pft_run_processes(&run) : pft_run_threads(&run);
	for (unsigned i = 0; r == 0 && i < n; i++)
		r = run.res[i].err;
	if (r == 0) {
		metrics = pft_metrics(&run, &pages, &pinned);
		*out = json_pack("{s:I, s:o, s:{s:I, s:b}}", "tasks", (json_int_t)n, "metrics",
				 metrics, "info", "pages", (json_int_t)pages, "pinned", pinned);
		if (!*out)
			r = -ENOMEM;
	}
	munmap(run.res, bytes);
	return r;
}

/* The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled, or NULL. */
static json_t *pft_thp_system(void)
{
	_cleanup_free_ char *s = NULL;
	char *a, *b;

	if (fs_read_file("/sys/kernel/mm/transparent_hugepage/enabled", 4096, &s, NULL) < 0)
		return json_null();
	a = strchr(s, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b)
		return json_null();
	return json_stringn(a + 1, (size_t)(b - a - 1));
}

static json_t *pft_doc(const struct pft_opts *o, size_t nr_cpus)
{
	json_t *tasks = json_array();

	for (size_t i = 0; tasks && i < o->nr_tasks; i++)
		json_array_append_new(tasks, json_integer((json_int_t)o->tasks[i]));
	return json_pack("{s:s, s:{s:s, s:I, s:o}, s:{s:I, s:b, s:o, s:I}, s:[]}",
			 "workload", "pft",
			 "params", "mode", o->processes ? "processes" : "threads",
			 "memory_mib", (json_int_t)o->memory_mib, "tasks", tasks,
			 "info", "page_size", (json_int_t)sysconf(_SC_PAGESIZE), "thp", o->thp,
			 "thp_system", pft_thp_system(), "cpus_allowed", (json_int_t)nr_cpus,
			 "results");
}

static double pft_val(const json_t *res, const char *metric)
{
	return json_real_value(json_object_get(json_object_get(json_object_get(res, "metrics"),
							       metric), "value"));
}

static void pft_table(FILE *f, const json_t *results)
{
	size_t i;
	json_t *res;

	fprintf(f, "%6s %14s %14s %10s %10s %9s %9s %12s %12s\n", "tasks", "faults/s",
		"faults/s/task", "wall_max", "wall_min", "sys", "user", "faults", "pages");
	json_array_foreach(results, i, res) {
		fprintf(f, "%6lld %14.0f %14.0f %10.4f %10.4f %9.3f %9.3f %12.0f %12lld\n",
			(long long)json_integer_value(json_object_get(res, "tasks")),
			pft_val(res, "faults_per_s"), pft_val(res, "faults_per_s_per_task"),
			pft_val(res, "wall_max_s"), pft_val(res, "wall_min_s"),
			pft_val(res, "sys_s"), pft_val(res, "user_s"), pft_val(res, "page_faults"),
			(long long)json_integer_value(
				json_object_get(json_object_get(res, "info"), "pages")));
	}
}

int main(int argc, char **argv)
{
	struct pft_opts o = { .memory_mib = 64 };
	_cleanup_free_ unsigned *cpus = NULL;
	_cleanup_json_ json_t *doc = NULL;
	size_t nr_cpus = 0;
	json_t *results;

	pft_parse(argc, argv, &o);
	if (!o.tasks) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		o.tasks = calloc(1, sizeof(*o.tasks));
		if (!o.tasks)
			return RT_EXIT_FAIL;
		o.tasks[0] = n > 0 ? (unsigned long)n : 1;
		o.nr_tasks = 1;
	}
	if (pft_allowed_cpus(&cpus, &nr_cpus) < 0)
		nr_cpus = 0; /* run unpinned; info.pinned says so */
	doc = pft_doc(&o, nr_cpus);
	results = json_object_get(doc, "results");
	if (!doc || !results)
		return RT_EXIT_FAIL;
	for (size_t i = 0; i < o.nr_tasks; i++) {
		json_t *res = NULL;
		int r = pft_one(&o, cpus, nr_cpus, (unsigned)o.tasks[i], &res);

		if (r < 0) {
			fprintf(stderr, "pft: tasks=%lu: %s\n", o.tasks[i], strerror(-r));
			return RT_EXIT_FAIL;
		}
		json_array_append_new(results, res);
	}
	if (o.table || !o.json)
		pft_table(o.json ? stderr : stdout, results);
	if (o.json) {
		if (json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_SORT_KEYS) < 0 ||
		    fputc('\n', stdout) == EOF)
			return RT_EXIT_FAIL;
	}
	free(o.tasks);
	return fflush(stdout) == 0 ? RT_EXIT_OK : RT_EXIT_FAIL;
}
