/* A team of N tasks (threads of one process, or processes) that start measuring together.
 *
 * Every task: pin -> memory policy -> open counters -> prepare -> READY ... GO -> measure ->
 * DONE -> placement query -> LEAVE -> cleanup.  The coordinator (the runner's main thread, not
 * a task) reads /proc/vmstat between READY and GO and again after DONE, so the deltas cover
 * the measured part only, and in duration mode raises the stop flag in between.  Nobody
 * cleans up before everyone is done: munmap takes mmap_lock and would disturb the others. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>

#include "proto/batchci.h"
#include "rt_bench.h"

#define RT_THREAD_STACK (256 * 1024)
#define RT_PLACE_SAMPLES 4096

enum { GATE_READY, GATE_GO, GATE_DONE, GATE_LEAVE, GATE_NR };

/* Threads meet at barriers of n + 1 (the coordinator too).  Processes use pipes: a task writes
 * one byte to an arrival pipe (READY, DONE) and then closes it, so a task that dies shows up as
 * EOF; the coordinator releases (GO, LEAVE) by closing a pipe everyone is reading. */
struct rt_gates {
	int processes;
	pthread_barrier_t bar[GATE_NR];
	int pipe[GATE_NR][2];
	/* Threads share one mm: their placement queries take its page-table locks, and with THP
	 * on a kernel without split PMD locks all of them spin on mm->page_table_lock (seen under
	 * TCG: move_pages -> do_pages_stat -> folio_walk_start -> queued_spin_lock_slowpath, RCU
	 * stalls, minutes per run).  They query one at a time; processes have an mm each. */
	pthread_mutex_t place;
};

struct rt_thread_arg {
	struct rt_team *t;
	struct rt_gates *g;
	unsigned idx;
};

int rt_task_fail(struct rt_task *k, const char *step, int err)
{
	if (k->err == 0) {
		k->err = err ? err : -EIO;
		snprintf(k->step, sizeof(k->step), "%s", step);
	}
	return k->err;
}

static void rt_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void rt_gate_task(struct rt_gates *g, int gate)
{
	char c = 1;

	if (!g->processes) {
		pthread_barrier_wait(&g->bar[gate]);
		return;
	}
	if (gate == GATE_READY || gate == GATE_DONE) {
		rt_write_full(g->pipe[gate][1], &c, 1);
		rt_close(&g->pipe[gate][1]);
		return;
	}
	while (read(g->pipe[gate][0], &c, 1) < 0 && errno == EINTR)
		;
}

/* Coordinator side.  Processes: read n arrival bytes; fewer means a task died (EOF). */
static int rt_gate_coord(struct rt_gates *g, int gate, unsigned n)
{
	char buf[256];
	unsigned got = 0;

	if (!g->processes) {
		pthread_barrier_wait(&g->bar[gate]);
		return 0;
	}
	if (gate == GATE_GO || gate == GATE_LEAVE) {
		rt_close(&g->pipe[gate][1]);
		return 0;
	}
	while (got < n) {
		ssize_t r = read(g->pipe[gate][0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -ECHILD;
		got += (unsigned)r;
	}
	return 0;
}

static int rt_cpu_node(const struct rt_cpus *c, int cpu)
{
	for (size_t i = 0; i < c->n; i++)
		if ((int)c->cpu[i] == cpu)
			return c->node[i];
	return -1;
}

/* Pin, memory policy, scheduling class: everything before the workload's prepare. */
static int rt_task_setup(struct rt_team *t, struct rt_task *k)
{
	const struct rt_cpus *c = t->cpus;
	int r;

	k->cpu = k->node = -1;
	if (t->pin && c->n) {
		cpu_set_t set;
		size_t i = k->idx % c->n;

		CPU_ZERO(&set);
		CPU_SET(c->cpu[i], &set);
		/* 0 = the calling thread, so in thread mode this pins just this task. */
		if (sched_setaffinity(0, sizeof(set), &set) < 0)
			return rt_task_fail(k, "sched_setaffinity", -errno);
		k->pinned = 1;
		k->cpu = (int)c->cpu[i];
		k->node = c->node[i];
	} else {
		k->cpu = sched_getcpu();
		k->node = rt_cpu_node(c, k->cpu);
	}
	if (!t->membind_by_workload) {
		r = rt_membind_task(t->membind, k->node, c->mem_nodes);
		if (r < 0)
			return rt_task_fail(k, "set_mempolicy", r);
	}
	if (t->sched_fifo) {
		struct sched_param sp = { 0 };

		sp.sched_priority = (sched_get_priority_min(SCHED_FIFO) +
				     sched_get_priority_max(SCHED_FIFO)) / 2;
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			return rt_task_fail(k, "sched_setscheduler(SCHED_FIFO)", -errno);
	}
	return 0;
}

static double rt_tv(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* The lock-instruction counter's window marks (lab/plugin/lockinsn.c): CPUID with a leaf in
 * the hypervisor range that no CPU or hypervisor answers, ECX the window's id.  Under TCG the
 * plugin sees them; elsewhere a CPUID costs one VM exit (about a microsecond) per task and
 * repetition, outside the timed part.  Each task marks its own vCPU's window. */
#define RT_WINDOW_START 0x4c414231u
#define RT_WINDOW_STOP 0x4c414230u

static void rt_window_mark(uint32_t leaf, uint32_t id)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t a = leaf, b, c = id, d;

	__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
#else
	(void)leaf;
	(void)id;
#endif
}

static void rt_task_measure(struct rt_team *t, struct rt_task *k, struct rt_perf *perf,
			    void *state, int who)
{
	struct rusage ru0, ru1;
	int r;

	(void)rt_now_s(); /* warm the vDSO clock outside the window */
	rt_perf_start(perf);
	getrusage(who, &ru0);
	rt_window_mark(RT_WINDOW_START, t->window_id);
	k->t0 = rt_now_s();
	r = t->ops->measure(t, k, state);
	k->t1 = rt_now_s();
	rt_window_mark(RT_WINDOW_STOP, t->window_id);
	getrusage(who, &ru1);
	rt_perf_stop(perf, &k->perf);
	k->user_s = rt_tv(&ru1.ru_utime) - rt_tv(&ru0.ru_utime);
	k->sys_s = rt_tv(&ru1.ru_stime) - rt_tv(&ru0.ru_stime);
	k->minflt = ru1.ru_minflt - ru0.ru_minflt;
	k->majflt = ru1.ru_majflt - ru0.ru_majflt;
	if (r < 0)
		rt_task_fail(k, "measure", r);
}

/* Every task passes every gate, even after a failure, or the others would wait forever. */
static void rt_task_main(struct rt_team *t, struct rt_gates *g, unsigned idx, int who)
{
	struct rt_task *k = &t->tasks[idx];
	struct rt_perf perf;
	void *state = NULL;
	int r;

	k->idx = idx;
	memset(&perf, 0, sizeof(perf));
	for (int i = 0; i < RT_PERF_NR; i++)
		perf.fd[i] = -1;
	perf.sw_leader = perf.hw_leader = -1;
	r = rt_task_setup(t, k);
	if (r == 0) {
		rt_perf_open(&perf, &k->perf);
		if (t->ops->prepare && (r = t->ops->prepare(t, k, &state)) < 0)
			rt_task_fail(k, "prepare", r);
	}
	rt_gate_task(g, GATE_READY);
	rt_gate_task(g, GATE_GO);
	if (r == 0)
		rt_task_measure(t, k, &perf, state, who);
	rt_gate_task(g, GATE_DONE);
	if (r == 0 && k->err == 0) {
		double t0 = rt_now_s();

		if (!g->processes)
			pthread_mutex_lock(&g->place);
		rt_place_query(k->region, k->region_len, t->place_page, RT_PLACE_SAMPLES, k->node,
			       &k->place);
		if (!g->processes)
			pthread_mutex_unlock(&g->place);
		k->place_s = rt_now_s() - t0;
	}
	rt_gate_task(g, GATE_LEAVE);
	if (t->ops->cleanup && r == 0)
		t->ops->cleanup(t, k, state);
	rt_perf_close(&perf);
}

static void *rt_thread_main(void *arg)
{
	struct rt_thread_arg *a = arg;

	rt_task_main(a->t, a->g, a->idx, RUSAGE_THREAD);
	return NULL;
}

static void rt_sleep_until(double when)
{
	for (double now = rt_now_s(); now < when; now = rt_now_s()) {
		double d = when - now;
		struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };

		nanosleep(&ts, NULL);
	}
}

/* A sized run measures at least half its duration_s: a rate can drift after a steady start,
 * which no interval of the start can show.  Seen under quantum (configs/ab.json): page_fault1
 * (16 MiB, one task, after pft) ran 258.6k ops/s over its first 0.108 s, steady to +-0.2 %,
 * where whole 1 s runs gave 251.1k; stopped at 0.51 s, 250.6k.  So sizing can halve a run,
 * never more.  It first looks every RT_SIZED_EVERY_S (lab/proto/batchci.h). */
#define RT_SIZED_MIN_SHARE 0.5
#define RT_SIZED_EVERY_S 0.01

/* Task k's newest cycle end, read whole while the task may be writing it (a seqlock); t 0
 * when no consistent read came in 1000 tries (a process task that died while writing leaves
 * the count odd for good: the look goes on without it). */
static void rt_cycle_read(const struct rt_task *k, double *t, uint64_t *ops)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s0 = __atomic_load_n(&k->cycle.seq, __ATOMIC_ACQUIRE), s1;

		*ops = __atomic_load_n(&k->cycle.ops, __ATOMIC_RELAXED);
		__atomic_load(&k->cycle.t, t, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s1 = __atomic_load_n(&k->cycle.seq, __ATOMIC_RELAXED);
		if (!(s0 & 1) && s0 == s1)
			return;
		sched_yield();
	}
	*t = 0;
	*ops = 0;
}

/* One look of a sized run at time now: each task's newest cycle end into its series; whether
 * the team's rate is now known to the target. */
static int rt_sized_look(struct rt_team *t, struct batchci_samples *s, unsigned n, double now)
{
	double rate, hw;

	for (unsigned i = 0; i < n; i++) {
		double ct;
		uint64_t ops;

		rt_cycle_read(&t->tasks[i], &ct, &ops);
		if (ct > s[i].t[s[i].n - 1])
			batchci_add(&s[i], ct, ops);
	}
	/* Before the floor no interval can stop the run: none is computed (the final look, at
	 * the cap, is past it and records the width). */
	if (now - t->t_release < RT_SIZED_MIN_SHARE * t->duration_s ||
	    batchci_rate(s, n, &rate, &hw) < 0)
		return 0;
	t->sized.ci_pct = hw * 100;
	return hw * 1e4 <= t->precision_bp;
}

/* Until the rate is known to +-precision_bp or the cap, duration_s, is reached. */
static void rt_coord_sized(struct rt_team *t)
{
	unsigned n = t->sized_n ? t->sized_n : t->n;
	_cleanup_free_ struct batchci_samples *s = calloc(n, sizeof(*s));
	double cap = t->t_release + t->duration_s, every = RT_SIZED_EVERY_S;

	t->sized.by = "duration";
	t->sized.ci_pct = -1;
	if (!s) {
		rt_sleep_until(cap);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		batchci_init(&s[i], t->t_release, every);
	for (double next = t->t_release + every;; next += every) {
		double now;

		rt_sleep_until(next < cap ? next : cap);
		now = rt_now_s();
		t->sized.span_s = now - t->t_release;
		if (rt_sized_look(t, s, n, now) && now < cap) {
			t->sized.by = "precision";
			return;
		}
		if (now >= cap)
			return;
		/* Look no more often than the series are sampled, after their compactions. */
		for (unsigned i = 0; i < n; i++)
			every = s[i].every > every ? s[i].every : every;
	}
}

/* Between GO and DONE: in duration mode, let the tasks run that long (or, sized, until their
 * rate is known well enough), then stop them. */
static void rt_coord_run(struct rt_team *t)
{
	if (t->duration_s <= 0)
		return;
	if (t->precision_bp)
		rt_coord_sized(t);
	else
		rt_sleep_until(t->t_release + t->duration_s);
	__atomic_store_n(t->stop, 1, __ATOMIC_RELAXED);
}

static int rt_run_threads(struct rt_team *t, struct rt_gates *g)
{
	_cleanup_free_ pthread_t *tid = calloc(t->n, sizeof(*tid));
	_cleanup_free_ struct rt_thread_arg *args = calloc(t->n, sizeof(*args));
	pthread_attr_t attr;
	int r;

	if (!tid || !args)
		return -ENOMEM;
	for (int i = 0; i < GATE_NR; i++)
		if (pthread_barrier_init(&g->bar[i], NULL, t->n + 1))
			return -ENOMEM;
	pthread_mutex_init(&g->place, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, RT_THREAD_STACK);
	for (unsigned i = 0; i < t->n; i++) {
		args[i] = (struct rt_thread_arg){ t, g, i };
		r = pthread_create(&tid[i], &attr, rt_thread_main, &args[i]);
		if (r) {
			/* The started threads wait at a barrier sized for all of them: nothing to
			 * do but leave, and exiting takes them along. */
			fprintf(stderr, "pthread_create (task %u of %u): %s\n", i, t->n, strerror(r));
			exit(RT_EXIT_FAIL);
		}
	}
	pthread_attr_destroy(&attr);
	rt_gate_coord(g, GATE_READY, t->n);
	rt_vmstat_read(&t->vm0);
	t->t_release = rt_now_s();
	rt_gate_coord(g, GATE_GO, t->n);
	rt_coord_run(t);
	rt_gate_coord(g, GATE_DONE, t->n);
	t->t_done = rt_now_s();
	rt_vmstat_read(&t->vm1);
	t->t_leave = rt_now_s();
	rt_gate_coord(g, GATE_LEAVE, t->n);
	for (unsigned i = 0; i < t->n; i++)
		pthread_join(tid[i], NULL);
	t->t_end = rt_now_s();
	for (int i = 0; i < GATE_NR; i++)
		pthread_barrier_destroy(&g->bar[i]);
	pthread_mutex_destroy(&g->place);
	return 0;
}

static __attribute__((noreturn)) void rt_child(struct rt_team *t, struct rt_gates *g,
					       unsigned idx)
{
	rt_close(&g->pipe[GATE_READY][0]);
	rt_close(&g->pipe[GATE_DONE][0]);
	rt_close(&g->pipe[GATE_GO][1]);
	rt_close(&g->pipe[GATE_LEAVE][1]);
	rt_task_main(t, g, idx, RUSAGE_SELF);
	_exit(t->tasks[idx].err ? RT_EXIT_FAIL : RT_EXIT_OK);
}

static int rt_reap(struct rt_team *t, const pid_t *pids, unsigned started)
{
	int r = 0;

	for (unsigned i = 0; i < started; i++) {
		int st = 0;

		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		/* A task killed mid-run left a zeroed record: never report it as a measurement. */
		if (WIFSIGNALED(st)) {
			fprintf(stderr, "task %u (pid %d) killed by signal %d (%s)\n", i,
				(int)pids[i], WTERMSIG(st), strsignal(WTERMSIG(st)));
			rt_task_fail(&t->tasks[i], "killed", -ECHILD);
			r = -ECHILD;
		}
	}
	return r;
}

static int rt_run_processes(struct rt_team *t, struct rt_gates *g)
{
	_cleanup_free_ pid_t *pids = calloc(t->n, sizeof(*pids));
	unsigned started = 0;
	int r = 0, r2;

	if (!pids)
		return -ENOMEM;
	for (int i = 0; i < GATE_NR; i++)
		if (pipe2(g->pipe[i], O_CLOEXEC) < 0)
			return -errno;
	fflush(NULL); /* children must not flush a copy of our stdio buffers */
	for (; started < t->n; started++) {
		pid_t pid = fork();

		if (pid < 0) {
			r = -errno;
			break;
		}
		if (pid == 0)
			rt_child(t, g, started);
		pids[started] = pid;
	}
	rt_close(&g->pipe[GATE_READY][1]);
	rt_close(&g->pipe[GATE_DONE][1]);
	if (r == 0)
		r = rt_gate_coord(g, GATE_READY, t->n);
	rt_vmstat_read(&t->vm0);
	t->t_release = rt_now_s();
	rt_gate_coord(g, GATE_GO, t->n);
	if (r == 0)
		rt_coord_run(t);
	if (r == 0)
		r = rt_gate_coord(g, GATE_DONE, t->n);
	t->t_done = rt_now_s();
	rt_vmstat_read(&t->vm1);
	t->t_leave = rt_now_s();
	rt_gate_coord(g, GATE_LEAVE, t->n);
	r2 = rt_reap(t, pids, started);
	t->t_end = rt_now_s();
	return r ? r : r2;
}

int rt_team_run(struct rt_team *t)
{
	static uint32_t seq;
	struct rt_gates g;
	size_t bytes = t->n * sizeof(*t->tasks);
	int r;

	/* One fd per counter per task, all open at once in thread mode. */
	rt_raise_nofile((unsigned long)t->n * RT_PERF_NR + 64);
	memset(&g, 0, sizeof(g));
	g.processes = t->processes;
	for (int i = 0; i < GATE_NR; i++)
		g.pipe[i][0] = g.pipe[i][1] = -1;
	/* Shared so that forked tasks can report; harmless for threads. */
	t->tasks = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t->stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (t->tasks == MAP_FAILED || t->stop == MAP_FAILED) {
		r = -errno;
		t->tasks = t->tasks == MAP_FAILED ? NULL : t->tasks;
		t->stop = t->stop == MAP_FAILED ? NULL : t->stop;
		return r;
	}
	/* pid_max is at most 2^22: the id is unique in the boot for 1024 teams a process. */
	t->window_id = (uint32_t)getpid() << 10 | (seq++ & 1023);
	t->t_start = rt_now_s();
	r = t->processes ? rt_run_processes(t, &g) : rt_run_threads(t, &g);
	for (int i = 0; i < GATE_NR; i++) {
		rt_close(&g.pipe[i][0]);
		rt_close(&g.pipe[i][1]);
	}
	for (unsigned i = 0; r == 0 && i < t->n; i++)
		r = t->tasks[i].err;
	return r;
}

void rt_team_free(struct rt_team *t)
{
	if (t->tasks)
		munmap(t->tasks, t->n * sizeof(*t->tasks));
	if (t->stop)
		munmap((void *)t->stop, 4096);
	t->tasks = NULL;
	t->stop = NULL;
}
