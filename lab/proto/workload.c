#include "proto/workload.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/jsonpath.h"

/* The runners (runners/NAME.c) take these as --name value options derived from this table
 * (wopts.h) and print the help and ranges below in their --help.  A boolean reaches a runner
 * only when true (PROTOCOL.md), so every boolean here defaults to false and a default-on
 * behaviour is an enum instead (pin: "cpu").  A runner turns an enum value into the index of
 * its choice here, and its own C enum follows that order: append choices, never reorder. */
static const char *const modes[] = {"threads", "processes", NULL};
static const char *const pins[] = {"cpu", "none", NULL};
const char *const workload_membind_choices[] = {"bind", "local", "interleave", "none", NULL};
static const char *const pft_objects[] = {"anon", "malloc", "zero", "shm", NULL};
static const char *const pft_touches[] = {"write", "memset", "mlock", NULL};
static const char *const memscale_huge[] = {"system", "thp", "nothp", "hugetlb", NULL};
static const char *const pf_huge[] = {"nothp", "system", "thp", NULL};
static const char *const kbuild_prepare[] = {"none", "clean", "defconfig", NULL};

#define P_MODE                                                                                 \
	{.name = "mode", .type = WORKLOAD_PARAM_ENUM, .choices = modes,                        \
	 .help = "threads (one process, shared mm) or processes, one task each"}
#define P_TASKS                                                                                \
	{.name = "tasks", .type = WORKLOAD_PARAM_TASKS,                                        \
	 .help = "task counts to sweep: N[,N...], per-cpu (one per CPU) or pow2 (1,2,4.. up "   \
		 "to the CPUs)"}
#define P_PIN                                                                                  \
	{.name = "pin", .type = WORKLOAD_PARAM_ENUM, .choices = pins,                          \
	 .help = "cpu: task i runs on allowed CPU i (mod count); none: unpinned"}
#define P_MEMBIND                                                                              \
	{.name = "membind", .type = WORKLOAD_PARAM_ENUM, .choices = workload_membind_choices,  \
	 .help = "memory policy per task: bind (MPOL_BIND to the task's node), local "         \
		 "(preferred), interleave (all nodes) or none"}
#define P_REPS                                                                                 \
	{.name = "repetitions", .type = WORKLOAD_PARAM_INT, .min = 1, .max = 100, .def = 1,    \
	 .help = "measured runs per task count, each its own result"}
#define P_WARMUP                                                                               \
	{.name = "warmup", .type = WORKLOAD_PARAM_INT, .min = 0, .max = 10, .def = 0,          \
	 .help = "unreported runs before the measured ones, per task count"}
#define P_MEMORY(d, what)                                                                      \
	{.name = "memory_mib", .type = WORKLOAD_PARAM_INT, .min = 1, .max = 1048576, .def = d, \
	 .help = what}
#define P_DURATION                                                                             \
	{.name = "duration_s", .type = WORKLOAD_PARAM_INT, .min = 1, .max = 3600, .def = 5,    \
	 .help = "seconds each run lasts at most (with precision_bp 0: exactly)"}
/* A duration workload stops once its rate is known this well: runners/rt_team.c,
 * lab/proto/batchci.h.  Why 20 (+-0.2 %): a fifth of the verdicts' 1 % threshold, so that one
 * boot's own noise is small beside it; the boots' spread is what the verdict weighs. */
#define P_PRECISION                                                                            \
	{.name = "precision_bp", .type = WORKLOAD_PARAM_INT, .min = 0, .max = 1000, .def = 20,  \
	 .help = "stop a run once the 95 % interval of its rate (10 batch means) is within "    \
		 "+- this many hundredths of a percent, after at least half of duration_s; 0: " \
		 "always run duration_s"}

/* runners/pft.c: seed 004 (Casavant) and Christoph Lameter's pft. */
static const struct workload_param pft_params[] = {
	P_MODE,
	P_MEMORY(64, "memory each task faults in, MiB (with memory_split: the whole region)"),
	{.name = "memory_split", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "memory_mib is the total, carved among the tasks (Lameter's -m)"},
	P_TASKS,
	{.name = "object", .type = WORKLOAD_PARAM_ENUM, .choices = pft_objects,
	 .help = "memory object: anon (private mmap), malloc, zero (shared /dev/zero mapping, "
		 "Lameter's -Z) or shm (SysV shmget, Lameter's -S)"},
	{.name = "shared", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "preallocate: one object made before the tasks start, a range per task"},
	{.name = "touch", .type = WORKLOAD_PARAM_ENUM, .choices = pft_touches,
	 .help = "write cachelines per page, memset the range (-z) or mlock it (-l)"},
	{.name = "cachelines", .type = WORKLOAD_PARAM_INT, .min = 1, .max = 64, .def = 1,
	 .help = "cache lines written per page with touch write (Lameter's -c)"},
	{.name = "thp", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "MADV_HUGEPAGE on the object (otherwise MADV_NOHUGEPAGE, one fault per page)"},
	P_PIN,
	P_MEMBIND,
	{.name = "mbind", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "apply membind to the object with mbind() (a VMA policy, Lameter's -p) instead "
		 "of set_mempolicy(); on a shared object this splits its VMA per range"},
	{.name = "shm_lock", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "SHM_LOCK the shm segment (Lameter's -L)"},
	{.name = "sched_fifo", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "run the tasks SCHED_FIFO (Lameter's -f)"},
	P_REPS,
	P_WARMUP,
};

/* runners/memscale.c: seed 000 (thp_memscale, `runt -t -c 512 -b 512m`) and seed 002. */
static const struct workload_param memscale_params[] = {
	P_MODE,
	P_TASKS,
	P_MEMORY(64, "memory each task reserves after the release, MiB (runt's -b)"),
	{.name = "huge", .type = WORKLOAD_PARAM_ENUM, .choices = memscale_huge,
	 .help = "system: the THP knob decides, as in the seed; thp: MADV_HUGEPAGE; nothp: "
		 "MADV_NOHUGEPAGE; hugetlb: MAP_HUGETLB, 2 MiB pages, needs nr_hugepages"},
	{.name = "stride_kib", .type = WORKLOAD_PARAM_INT, .min = 1, .max = 2048, .def = 4,
	 .help = "one byte written per this many KiB (the seed: 4)"},
	{.name = "own_pmd_table", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "each task's region starts on a 1 GiB boundary of its own, so no two tasks "
		 "share a PMD table or its split page-table lock (seeds 000/002's A/B: without "
		 "it neighbouring regions share one, and the baseline contends too)"},
	{.name = "read", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "read the bytes instead of writing them: with THP each 2 MiB is then the "
		 "huge zero page, no zeroing, so a fault is short and its PMD lock a large "
		 "share of it (the projection's check against the contention model)"},
	{.name = "map_early", .type = WORKLOAD_PARAM_BOOL, .def = 0,
	 .help = "reserve, advise and bind before the release, outside the timed window: the "
		 "window is the faults alone (in thread mode each task's mmap otherwise takes "
		 "mmap_lock for writing inside it)"},
	{.name = "work_loops", .type = WORKLOAD_PARAM_INT, .min = 0, .max = 100000000, .def = 0,
	 .help = "after each byte, an empty loop of this many iterations in user space: work "
		 "outside any lock, so the job sets the time between faults (the projection's "
		 "check with a hold of known length)"},
	P_PIN,
	P_MEMBIND,
	P_REPS,
	P_WARMUP,
};

/* runners/page_fault{1,2,3}.c: will-it-scale's map/touch/unmap loops. */
static const struct workload_param pf_params[] = {
	P_MODE,
	P_TASKS,
	P_MEMORY(128, "size of each map/touch/unmap cycle, MiB (will-it-scale: 128)"),
	P_DURATION,
	P_PRECISION,
	{.name = "huge", .type = WORKLOAD_PARAM_ENUM, .choices = pf_huge,
	 .help = "MADV_NOHUGEPAGE (one fault per page), the system THP setting, or MADV_HUGEPAGE"},
	P_PIN,
	P_MEMBIND,
	P_REPS,
	P_WARMUP,
};

/* runners/mmap_contention.c: seed 003, faulting threads against mmap/munmap threads. */
static const struct workload_param mmc_params[] = {
	{.name = "tasks", .type = WORKLOAD_PARAM_TASKS,
	 .help = "faulting thread counts to sweep: N[,N...], per-cpu or pow2"},
	{.name = "mappers", .type = WORKLOAD_PARAM_INT, .min = 0, .max = 1024, .def = 1,
	 .help = "threads doing mmap/munmap of unrelated regions meanwhile"},
	P_MEMORY(16, "region each faulting thread faults through, MiB"),
	{.name = "map_kib", .type = WORKLOAD_PARAM_INT, .min = 4, .max = 1048576, .def = 64,
	 .help = "size of each mapper's mmap/munmap, KiB"},
	P_DURATION,
	P_PRECISION,
	P_PIN,
	P_MEMBIND,
	P_REPS,
	P_WARMUP,
};

/* runners/kbuild.c: seed 001, a compile in a cgroup of its own.  The job count is not a task
 * list: make's -j is one number, 0 meaning one per CPU the guest has online. */
static const struct workload_param kbuild_params[] = {
	{.name = "source", .type = WORKLOAD_PARAM_STRING, .max = 255,
	 .def_str = "/usr/src/kbuild-tiny",
	 .help = "the source tree in the guest image (absolute), or a tarball of one (.tar, "
		 ".tar.gz, .tar.xz: unpacked first, outside the measured window)"},
	{.name = "target", .type = WORKLOAD_PARAM_STRING, .max = 64, .def_str = "all",
	 .help = "the make target built in the measured window"},
	{.name = "jobs", .type = WORKLOAD_PARAM_INT, .min = 0, .max = 4096, .def = 0,
	 .help = "make -j: parallel jobs, 0 = one per online CPU"},
	{.name = "prepare", .type = WORKLOAD_PARAM_ENUM, .choices = kbuild_prepare,
	 .help = "make target run before the measured window, timed as prepare_s: none, clean "
		 "or defconfig"},
	{.name = "sample_ms", .type = WORKLOAD_PARAM_INT, .min = 10, .max = 10000, .def = 100,
	 .help = "memory.current of the build's cgroup is sampled this often (the mean memory)"},
};

static int param_is(const json_t *params, const char *name, const char *value)
{
	const char *s = json_string_value(json_object_get(params, name));

	return s && strcmp(s, value) == 0;
}

static int param_fail(struct lab_error *err, const char *path, const char *name,
		      const char *msg)
{
	char p[JSONPATH_LEN];

	jsonpath_key(p, sizeof(p), path, name);
	return error_set(err, p, "%s", msg);
}

static int pft_check(const json_t *params, const char *path, struct lab_error *err)
{
	if (json_is_true(json_object_get(params, "shared")) && param_is(params, "mode", "processes") &&
	    (param_is(params, "object", "anon") || param_is(params, "object", "malloc")))
		return param_fail(err, path, "shared",
				  "a private object (anon, malloc) cannot be shared between "
				  "processes: use object \"zero\" or \"shm\"");
	if (json_is_true(json_object_get(params, "shm_lock")) && !param_is(params, "object", "shm"))
		return param_fail(err, path, "shm_lock", "needs object \"shm\"");
	if (json_is_true(json_object_get(params, "mbind")) && param_is(params, "membind", "none"))
		return param_fail(err, path, "mbind", "needs a membind policy other than \"none\"");
	if (json_is_true(json_object_get(params, "memory_split"))) {
		json_int_t mib = json_integer_value(json_object_get(params, "memory_mib")), maxn = 1;
		size_t i;
		json_t *e;
		char msg[128];

		json_array_foreach(json_object_get(params, "tasks"), i, e)
			maxn = json_integer_value(e) > maxn ? json_integer_value(e) : maxn;
		if ((mib << 20) / maxn < WORKLOAD_PAGE_SIZE) {
			snprintf(msg, sizeof(msg), "%lld MiB split among %lld tasks is less than a "
				 "%d-byte page each", (long long)mib, (long long)maxn,
				 WORKLOAD_PAGE_SIZE);
			return param_fail(err, path, "memory_mib", msg);
		}
	}
	return 0;
}

static int memscale_check(const json_t *params, const char *path, struct lab_error *err)
{
	if (param_is(params, "huge", "hugetlb") &&
	    json_integer_value(json_object_get(params, "memory_mib")) % 2)
		return param_fail(err, path, "memory_mib",
				  "must be a multiple of 2 with huge \"hugetlb\" (2 MiB pages)");
	return 0;
}

static int kbuild_check(const json_t *params, const char *path, struct lab_error *err)
{
	const char *src = json_string_value(json_object_get(params, "source"));

	if (src[0] != '/')
		return param_fail(err, path, "source", "must be an absolute path");
	if (strstr(src, "/../") || (strlen(src) >= 3 && !strcmp(src + strlen(src) - 3, "/..")))
		return param_fail(err, path, "source", "must not contain \"..\" components");
	return 0;
}

/* What an A/B verdict looks at, by the metric names the runners report (configs/README.md),
 * and what each depends on with more than one thread (enum workload_mech).  Fault rates of
 * threads in one address space, or of processes sharing zones and LRUs, move with lock
 * contention and with how many run at once, as well as with the instructions per fault. */
#define MP (WORKLOAD_MECH_CONTENTION | WORKLOAD_MECH_PARALLEL)
static const struct workload_metric pft_primary[] = {{"faults_per_s", "higher", MP, 0}};
/* The seed's figure is `perf stat -r` over whole programs: the whole repetition, unmapping
 * included, not the touching alone (elapsed_s).  Tasks released together wait for one
 * another's locks (split PMD page-table locks, seed 000). */
static const struct workload_metric memscale_primary[] = {{"run_s", "lower", MP, 0}};
static const struct workload_metric pf_primary[] = {{"ops_per_s", "higher", MP, 0}};
/* mmap_contention exists to measure faulting threads against threads that take mmap_lock
 * for writing: without contention its figures mean nothing (seed 003). */
static const struct workload_metric mmc_primary[] = {{"faults_per_s", "higher", MP, 1},
						     {"fault_latency_p99_ns", "lower", MP, 1}};

/* Seed 001's two columns: build time (make -j: parallel) and the cgroup's memory.peak (how
 * much at once, not how fast). */
static const struct workload_metric kbuild_primary[] = {
	{"elapsed_s", "lower", WORKLOAD_MECH_PARALLEL, 0},
	{"memory_peak_mib", "lower", 0, 0}};

/* The mapper threads run beside the faulting tasks. */
static unsigned mmc_threads(const json_t *params, unsigned tasks)
{
	json_int_t m = json_integer_value(json_object_get(params, "mappers"));

	return tasks + (m > 0 && m < 1 << 20 ? (unsigned)m : 0);
}

/* make -j N: N at once whatever "tasks" says; 0 is one per online CPU, more than one on the
 * guests the lab boots. */
static unsigned kbuild_threads(const json_t *params, unsigned tasks)
{
	json_int_t j = json_integer_value(json_object_get(params, "jobs"));

	(void)tasks;
	return j > 0 && j < 1 << 20 ? (unsigned)j : 2;
}

#define TABLE(t) .params = t, .nr_params = sizeof(t) / sizeof(t[0])
#define PRIMARY(m) .primary = m, .nr_primary = sizeof(m) / sizeof(m[0])

static const struct workload_def workloads[] = {
	{.name = "pft", .help = "page-fault scaling: faults/s against the number of tasks",
	 TABLE(pft_params), .check = pft_check, PRIMARY(pft_primary), .other_mechs = MP},
	{.name = "memscale", .help = "tasks released together each reserve and touch node-local "
				     "memory: elapsed time against the number of tasks",
	 TABLE(memscale_params), .check = memscale_check, PRIMARY(memscale_primary), .other_mechs = MP},
	{.name = "page_fault1", .help = "will-it-scale: private anonymous map/touch/unmap, ops/s",
	 TABLE(pf_params), PRIMARY(pf_primary), .other_mechs = MP},
	{.name = "page_fault2", .help = "will-it-scale: private file map/touch/unmap, ops/s",
	 TABLE(pf_params), PRIMARY(pf_primary), .other_mechs = MP},
	{.name = "page_fault3", .help = "will-it-scale: shared file map/touch/unmap, ops/s",
	 TABLE(pf_params), PRIMARY(pf_primary), .other_mechs = MP},
	{.name = "mmap_contention", .help = "fault throughput and latency while other threads "
					    "mmap/munmap (mmap_lock, per-VMA locks)",
	 TABLE(mmc_params), PRIMARY(mmc_primary), .other_mechs = MP, .threads = mmc_threads},
	{.name = "kbuild", .help = "make -j N TARGET of a source tree in a cgroup of its own: "
				   "elapsed, CPU time, memory.peak, page faults, mTHP counters",
	 TABLE(kbuild_params), .check = kbuild_check, PRIMARY(kbuild_primary),
	 .other_mechs = MP, .threads = kbuild_threads},
};

#define NR_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

const struct workload_def *workload_find(const char *name)
{
	for (size_t i = 0; i < NR_WORKLOADS; i++)
		if (strcmp(workloads[i].name, name) == 0)
			return &workloads[i];
	return NULL;
}

size_t workload_count(void)
{
	return NR_WORKLOADS;
}

const struct workload_def *workload_at(size_t i)
{
	return i < NR_WORKLOADS ? &workloads[i] : NULL;
}

const struct workload_metric *workload_primary(const char *name, size_t *n)
{
	const struct workload_def *w = workload_find(name);

	*n = w ? w->nr_primary : 0;
	return w ? w->primary : NULL;
}

unsigned workload_mechs(const char *name, const char *metric, const json_t *params,
			unsigned tasks, int *only)
{
	const struct workload_def *w = workload_find(name);

	*only = 0;
	if (!w || (w->threads ? w->threads(params, tasks) : tasks) < 2)
		return 0;
	for (size_t i = 0; i < w->nr_primary; i++)
		if (!strcmp(w->primary[i].name, metric)) {
			*only = w->primary[i].only_mechs;
			return w->primary[i].mechs;
		}
	return w->other_mechs;
}

int workload_metric_is_primary(const char *name, const char *metric)
{
	size_t n = 0;
	const struct workload_metric *m = workload_primary(name, &n);

	for (size_t i = 0; m && i < n; i++)
		if (!strcmp(m[i].name, metric))
			return 1;
	return 0;
}

void workload_names(char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NR_WORKLOADS && used < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", workloads[i].name);

		if (w < 0)
			return;
		used += (size_t)w;
	}
}

static const struct workload_param *param_find(const struct workload_def *w, const char *name)
{
	for (size_t i = 0; i < w->nr_params; i++)
		if (strcmp(w->params[i].name, name) == 0)
			return &w->params[i];
	return NULL;
}

static int param_enum(const struct workload_param *p, const json_t *v, const char *path,
		      json_t **out, struct lab_error *err)
{
	const char *s = v ? json_string_value(v) : p->choices[0];

	for (const char *const *c = p->choices; s && *c; c++)
		if (strcmp(*c, s) == 0) {
			*out = json_string(*c);
			return *out ? 0 : -ENOMEM;
		}

	char list[256];
	size_t used = 0;

	list[0] = '\0';
	for (const char *const *c = p->choices; *c && used < sizeof(list); c++) {
		int w = snprintf(list + used, sizeof(list) - used, "%s\"%s\"",
				 c == p->choices ? "" : ", ", *c);

		if (w < 0)
			break;
		used += (size_t)w;
	}
	return error_set(err, path, "must be one of %s", list);
}

static int param_int(const struct workload_param *p, const json_t *v, const char *path,
		     json_t **out, struct lab_error *err)
{
	json_int_t x = p->def;

	if (v) {
		if (!json_is_integer(v) || json_integer_value(v) < p->min ||
		    json_integer_value(v) > p->max)
			return error_set(err, path, "must be an integer %lld..%lld", p->min, p->max);
		x = json_integer_value(v);
	}
	*out = json_integer(x);
	return *out ? 0 : -ENOMEM;
}

static int param_bool(const struct workload_param *p, const json_t *v, const char *path,
		      json_t **out, struct lab_error *err)
{
	int b = p->def != 0;

	if (v) {
		if (!json_is_boolean(v))
			return error_set(err, path, "must be true or false");
		b = json_is_true(v);
	}
	*out = json_boolean(b);
	return 0;
}

/* Characters a STRING parameter may hold: it becomes one argument of a guest program. */
#define STRING_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+=-"

static int param_string(const struct workload_param *p, const json_t *v, const char *path,
			json_t **out, struct lab_error *err)
{
	const char *s = v ? json_string_value(v) : p->def_str;
	size_t n = s ? strlen(s) : 0;

	if (!s || n == 0 || n > (size_t)p->max || (v && n != json_string_length(v)) ||
	    s[0] == '-' || strspn(s, STRING_CHARS) != n)
		return error_set(err, path, "must be a string of 1..%lld characters "
				 "[A-Za-z0-9._/+=-], not starting with \"-\"", p->max);
	*out = json_string(s);
	return *out ? 0 : -ENOMEM;
}

static int param_tasks(const json_t *v, const char *path, unsigned vcpus, unsigned max_tasks,
		       json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *arr = json_array();
	size_t i;
	json_t *e;

	if (!arr)
		return -ENOMEM;
	if (!v || (json_is_string(v) && strcmp(json_string_value(v), "per-cpu") == 0)) {
		if (json_array_append_new(arr, json_integer(vcpus)) < 0)
			return -ENOMEM;
		*out = TAKE_PTR(arr);
		return 0;
	}
	if (json_is_string(v) && strcmp(json_string_value(v), "pow2") == 0) {
		/* The seed's sweep: powers of two, then all CPUs (its last row ran on 510). */
		unsigned p = 1;

		for (; p <= vcpus; p *= 2)
			if (json_array_append_new(arr, json_integer(p)) < 0)
				return -ENOMEM;
		if (p / 2 != vcpus && json_array_append_new(arr, json_integer(vcpus)) < 0)
			return -ENOMEM;
		*out = TAKE_PTR(arr);
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) == 0 ||
	    json_array_size(v) > WORKLOAD_MAX_TASK_COUNTS)
		return error_set(err, path,
				 "must be \"per-cpu\", \"pow2\" or an array of 1..%d task counts",
				 WORKLOAD_MAX_TASK_COUNTS);
	json_array_foreach(v, i, e) {
		if (!json_is_integer(e) || json_integer_value(e) < 1 ||
		    json_integer_value(e) > (json_int_t)max_tasks) {
			char p[JSONPATH_LEN];

			jsonpath_index(p, sizeof(p), path, i);
			return error_set(err, p, "must be an integer 1..%u%s", max_tasks,
					 max_tasks == vcpus ? " (the vCPU count)" : "");
		}
		if (json_array_append_new(arr, json_integer(json_integer_value(e))) < 0)
			return -ENOMEM;
	}
	*out = TAKE_PTR(arr);
	return 0;
}

int workload_params(const struct workload_def *w, const json_t *params, const char *path,
		    unsigned vcpus, json_t **out, struct lab_error *err)
{
	return workload_params_max(w, params, path, vcpus, vcpus, out, err);
}

int workload_params_max(const struct workload_def *w, const json_t *params, const char *path,
			unsigned vcpus, unsigned max_tasks, json_t **out, struct lab_error *err)
{
	_cleanup_json_ json_t *res = json_object();
	const char *key;
	json_t *v;

	if (!res)
		return -ENOMEM;
	if (params && !json_is_object(params))
		return error_set(err, path, "must be an object");
	json_object_foreach((json_t *)params, key, v) {
		if (!param_find(w, key)) {
			char p[JSONPATH_LEN];

			jsonpath_key(p, sizeof(p), path, key);
			return error_set(err, p, "unknown parameter");
		}
	}
	for (size_t i = 0; i < w->nr_params; i++) {
		const struct workload_param *p = &w->params[i];
		const json_t *in = params ? json_object_get(params, p->name) : NULL;
		json_t *val = NULL;
		char pp[JSONPATH_LEN];
		int r;

		jsonpath_key(pp, sizeof(pp), path, p->name);
		switch (p->type) {
		case WORKLOAD_PARAM_ENUM:
			r = param_enum(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_INT:
			r = param_int(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_BOOL:
			r = param_bool(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_STRING:
			r = param_string(p, in, pp, &val, err);
			break;
		case WORKLOAD_PARAM_TASKS:
			r = param_tasks(in, pp, vcpus, max_tasks < vcpus ? vcpus : max_tasks, &val,
					err);
			break;
		default:
			r = -EINVAL;
		}
		if (r < 0)
			return r;
		if (json_object_set_new(res, p->name, val) < 0)
			return -ENOMEM;
	}
	if (w->check) {
		int r = w->check(res, path, err);

		if (r < 0)
			return r;
	}
	*out = TAKE_PTR(res);
	return 0;
}

int workload_param_is_default(const struct workload_def *w, const char *name,
			      const json_t *value)
{
	for (size_t i = 0; i < w->nr_params; i++) {
		const struct workload_param *p = &w->params[i];

		if (strcmp(p->name, name))
			continue;
		switch (p->type) {
		case WORKLOAD_PARAM_ENUM:
			return json_is_string(value) && !strcmp(json_string_value(value), p->choices[0]);
		case WORKLOAD_PARAM_INT:
			return json_is_integer(value) && json_integer_value(value) == p->def;
		case WORKLOAD_PARAM_BOOL:
			return json_is_boolean(value) && json_is_true(value) == (p->def != 0);
		case WORKLOAD_PARAM_STRING:
			return json_is_string(value) && !strcmp(json_string_value(value), p->def_str);
		case WORKLOAD_PARAM_TASKS: return 0;
		}
	}
	return 0;
}
