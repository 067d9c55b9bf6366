/* kbuild: seed 001 (Yang Shi's mTHP numbers, Ryan Roberts' questions): a compile, `make -j N
 * TARGET` of a source tree in the guest image, in a cgroup v2 group of its own, so that its
 * CPU time, memory.peak, mean memory and page faults are the build's and nothing else's.
 *
 * The measured window is the make alone.  What comes before it (unpacking a tarball source,
 * the `prepare` target: clean or defconfig) runs in another group and is reported as
 * prepare_s, never hidden and never mixed into the build's figures.  A failing make is a
 * workload failure: exit 1 with the tail of its output on stderr, which the agent forwards
 * (PROTOCOL.md, "workload" line, `stderr`).  Parameters: lab/proto/workload.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>

#include "rt_bench.h"
#include "rt_cgroup.h"
#include "util/fs.h"

#define KB_WORK "/var/tmp/numalab-kbuild"   /* logs, and an unpacked tarball source */
#define KB_GROUP "numalab-kbuild"            /* the measured make */
#define KB_PREP_GROUP "numalab-kbuild-prepare"
#define KB_TAIL 3000                         /* bytes of a failed make's output on stderr */
#define KB_MTHP "/sys/kernel/mm/transparent_hugepage"
#define KB_MAX_SIZES 32
#define KB_MAX_COUNTERS 64

struct kb_opts {
	const char *source, *target, *prepare; /* prepare NULL: none */
	long jobs;
	long sample_ms;
	char dir[512];                          /* the tree make runs in */
	int tarball;
};

/* ---- running make in a group --------------------------------------------------------------- */

/* argv in dir, inside group, stdout and stderr appended to log.  Exit status as waitpid. */
static int kb_run(char *const argv[], const char *dir, const char *group, const char *log,
		  int *status)
{
	static char *const envp[] = {"PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
				     "HOME=/root", "LANG=C", "LC_ALL=C", NULL};
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
		int r = rt_cgroup_enter(group);

		if (fd < 0 || nul < 0 || r < 0 || chdir(dir) < 0) {
			dprintf(STDERR_FILENO, "kbuild: %s: %s\n", r < 0 ? group : dir,
				strerror(r < 0 ? -r : errno));
			_exit(127);
		}
		dup2(nul, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		execvpe(argv[0], argv, envp);
		dprintf(STDERR_FILENO, "kbuild: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* The last KB_TAIL bytes of the log on stderr, after what failed. */
static void kb_fail_tail(const char *what, int status, const char *log)
{
	_cleanup_free_ char *s = NULL;
	size_t n = 0, from;

	fs_read_file(log, 64 << 20, &s, &n);
	from = n > KB_TAIL ? n - KB_TAIL : 0;
	if (WIFEXITED(status))
		fprintf(stderr, "kbuild: %s failed (exit %d)", what, WEXITSTATUS(status));
	else
		fprintf(stderr, "kbuild: %s failed (signal %d)", what, WTERMSIG(status));
	fprintf(stderr, "; the last %zu of %zu bytes of its output (%s):\n%s\n", n - from, n, log,
		s ? s + from : "");
}

static int kb_make(const struct kb_opts *o, const char *target, const char *group,
		   const char *log, int *status)
{
	char jobs[32];
	char *argv[] = {"make", "-j", jobs, (char *)target, NULL};

	snprintf(jobs, sizeof(jobs), "%ld", o->jobs);
	return kb_run(argv, o->dir, group, log, status);
}

/* ---- the sampler of memory.current ---------------------------------------------------------- */

struct kb_sampler {
	pthread_t thread;
	char file[300];
	long interval_ms;
	atomic_int stop;
	double sum;
	long long max;
	long n;
};

static void *kb_sample_loop(void *arg)
{
	struct kb_sampler *s = arg;
	struct timespec ts = {s->interval_ms / 1000, (s->interval_ms % 1000) * 1000000L};
	int fd = open(s->file, O_RDONLY | O_CLOEXEC);
	char buf[64];

	while (fd >= 0 && !atomic_load(&s->stop)) {
		ssize_t k = pread(fd, buf, sizeof(buf) - 1, 0);

		if (k > 0) {
			long long v;

			buf[k] = '\0';
			v = strtoll(buf, NULL, 10);
			s->sum += (double)v;
			s->max = v > s->max ? v : s->max;
			s->n++;
		}
		nanosleep(&ts, NULL);
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* ---- mTHP counters ---------------------------------------------------------------------------- */

/* {"16kB": {"anon_fault_alloc": N, ...}, ...} of every size with a stats/ directory; sizes
 * without one are appended to missing (", "-separated), *sizes counts the hugepages-* ones. */
static json_t *kb_mthp_read(char *missing, size_t len, size_t *sizes)
{
	_cleanup_json_ json_t *all = json_object();
	DIR *d = opendir(KB_MTHP);
	struct dirent *e;

	*sizes = 0;
	if (!all || !d) {
		if (d)
			closedir(d);
		return all ? TAKE_PTR(all) : NULL;
	}
	*sizes = 0;
	while ((e = readdir(d)) && *sizes < KB_MAX_SIZES) {
		char path[512];
		json_t *c;
		DIR *sd;
		struct dirent *f;
		size_t k = 0;

		if (strncmp(e->d_name, "hugepages-", 10))
			continue;
		(*sizes)++;
		snprintf(path, sizeof(path), KB_MTHP "/%s/stats", e->d_name);
		if (!(sd = opendir(path))) {
			size_t used = strlen(missing);

			snprintf(missing + used, len - used, "%s%s", used ? ", " : "", e->d_name + 10);
			continue;
		}
		c = json_object();
		while (c && (f = readdir(sd)) && k < KB_MAX_COUNTERS) {
			long long v;

			if (f->d_name[0] == '.')
				continue;
			if (rt_cgroup_value(path, f->d_name, &v) == 0)
				json_object_set_new(c, f->d_name, json_integer(v));
			k++;
		}
		closedir(sd);
		json_object_set_new(all, e->d_name + 10, c ? c : json_object());
	}
	closedir(d);
	return TAKE_PTR(all);
}

/* after - before, size by size and counter by counter. */
static json_t *kb_mthp_delta(const json_t *before, const json_t *after)
{
	json_t *out = json_object(), *c, *v;
	const char *size, *name;

	json_object_foreach((json_t *)after, size, c) {
		json_t *d = json_object();
		const json_t *b = json_object_get(before, size);

		json_object_foreach(c, name, v)
			json_object_set_new(d, name, json_integer(json_integer_value(v) -
						      json_integer_value(json_object_get(b, name))));
		json_object_set_new(out, size, d);
	}
	return out;
}

/* ---- the phases ------------------------------------------------------------------------------- */

static int kb_is_tarball(const char *s)
{
	static const char *const ext[] = {".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2"};
	size_t n = strlen(s);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (n > strlen(ext[i]) && !strcmp(s + n - strlen(ext[i]), ext[i]))
			return 1;
	return 0;
}

/* Unpack and the prepare target, in their own group: prepare_s (and unpack_s) into info. */
static int kb_prepare(struct kb_opts *o, json_t *info, double *prepare_s)
{
	char group[300], src[600];
	double t0 = rt_now_s();
	int status = 0, r;

	if (!o->tarball && !o->prepare)
		return 0;
	if ((r = rt_cgroup_create(RT_CGROUP_ROOT, KB_PREP_GROUP, group, sizeof(group))) < 0)
		return fprintf(stderr, "kbuild: cgroup %s: %s\n", KB_PREP_GROUP, strerror(-r)), r;
	if (o->tarball) {
		char *argv[] = {"tar", "-xf", src, "-C", o->dir, "--strip-components=1", NULL};

		snprintf(src, sizeof(src), "%s", o->source);
		if (fs_rm_rf(o->dir) < 0 || fs_mkdir_p(o->dir, 0755) < 0)
			return fprintf(stderr, "kbuild: cannot make %s\n", o->dir), -EIO;
		r = kb_run(argv, "/", group, KB_WORK "/prepare.log", &status);
		if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return kb_fail_tail("unpacking the source", status, KB_WORK "/prepare.log"),
			       r < 0 ? r : -EIO;
		json_object_set_new(info, "unpack_s", json_real(rt_now_s() - t0));
	}
	if (o->prepare) {
		r = kb_make(o, o->prepare, group, KB_WORK "/prepare.log", &status);
		if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			return kb_fail_tail("make prepare target", status, KB_WORK "/prepare.log"),
			       r < 0 ? r : -EIO;
	}
	*prepare_s = rt_now_s() - t0;
	rmdir(group);
	return 0;
}

/* The group's counters after the make: metrics, and what the kernel could not say in info. */
static void kb_counters(json_t *res, const char *group, int memory, const char *memwhy)
{
	json_t *unavail = json_object();
	long long v;

	if (rt_cgroup_key(group, "cpu.stat", "user_usec", &v) == 0)
		rt_result_metric(res, "user_s", (double)v / 1e6, "s", "lower");
	if (rt_cgroup_key(group, "cpu.stat", "system_usec", &v) == 0)
		rt_result_metric(res, "sys_s", (double)v / 1e6, "s", "lower");
	if (rt_cgroup_key(group, "cpu.stat", "usage_usec", &v) == 0)
		rt_result_metric(res, "cpu_s", (double)v / 1e6, "s", "lower");
	if (!memory) {
		json_object_set_new(unavail, "memory", json_string(memwhy));
	} else {
		if (rt_cgroup_value(group, "memory.peak", &v) == 0)
			rt_result_metric(res, "memory_peak_mib", (double)v / 1048576.0, "MiB",
					 "lower");
		else
			json_object_set_new(unavail, "memory_peak_mib",
					    json_string("no memory.peak in the cgroup (Linux 5.19 "
							"and later)"));
		if (rt_cgroup_key(group, "memory.stat", "pgfault", &v) == 0)
			rt_result_metric(res, "page_faults", (double)v, "faults", "lower");
		if (rt_cgroup_key(group, "memory.stat", "pgmajfault", &v) == 0)
			rt_result_metric(res, "major_faults", (double)v, "faults", "lower");
	}
	if (json_object_size(unavail))
		rt_result_info(res, "unavailable", unavail);
	else
		json_decref(unavail);
}

static void kb_sampled(json_t *res, const struct kb_sampler *s)
{
	if (!s->n)
		return;
	rt_result_metric(res, "memory_mean_mib", s->sum / (double)s->n / 1048576.0, "MiB", "lower");
	rt_result_info(res, "memory_samples", json_integer(s->n));
	rt_result_info(res, "memory_sampled_max_mib", json_real((double)s->max / 1048576.0));
}

/* The measured make.  *res gets the result entry; a failed make returns -EIO after its tail. */
static int kb_build(const struct kb_opts *o, int memory, const char *memwhy, json_t **res)
{
	char group[300], missing[256] = "", why[320];
	struct kb_sampler s = {.interval_ms = o->sample_ms};
	_cleanup_json_ json_t *m0 = NULL, *m1 = NULL;
	double t0, t1;
	size_t sizes = 0;
	int status = 0, r, sampling = 0;

	if ((r = rt_cgroup_create(RT_CGROUP_ROOT, KB_GROUP, group, sizeof(group))) < 0)
		return fprintf(stderr, "kbuild: cgroup %s: %s\n", KB_GROUP, strerror(-r)), r;
	snprintf(s.file, sizeof(s.file), "%s/memory.current", group);
	m0 = kb_mthp_read(missing, sizeof(missing), &sizes);
	if (memory)
		sampling = pthread_create(&s.thread, NULL, kb_sample_loop, &s) == 0;
	t0 = rt_now_s();
	r = kb_make(o, o->target, group, KB_WORK "/make.log", &status);
	t1 = rt_now_s();
	if (sampling) {
		atomic_store(&s.stop, 1);
		pthread_join(s.thread, NULL);
	}
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		kb_fail_tail("make", status, KB_WORK "/make.log");
		return r < 0 ? r : -EIO;
	}
	missing[0] = '\0';
	m1 = kb_mthp_read(missing, sizeof(missing), &sizes);
	*res = rt_result_new((unsigned)o->jobs, 0);
	if (!*res)
		return -ENOMEM;
	rt_result_metric(*res, "elapsed_s", t1 - t0, "s", "lower");
	kb_counters(*res, group, memory, memwhy);
	kb_sampled(*res, &s);
	rt_result_info(*res, "mthp", kb_mthp_delta(m0, m1));
	if (!sizes)
		snprintf(why, sizeof(why), "no per-size mTHP in this kernel (" KB_MTHP
			 "/hugepages-*: Linux 6.8 and later)");
	else
		snprintf(why, sizeof(why), "no stats/ for %s (per-size mTHP counters: Linux 6.9 "
			 "and later)", missing);
	if (!sizes || missing[0])
		rt_result_info(*res, "mthp_unavailable", json_string(why));
	rmdir(group);
	return 0;
}

/* ---- output --------------------------------------------------------------------------------- */

static void kb_table(FILE *f, const json_t *doc, int style)
{
	json_t *res;
	size_t i;

	(void)style;
	fprintf(f, "%5s %10s %9s %9s %9s %9s %10s %9s\n", "JOBS", "ELAPSED_S", "USER_S", "SYS_S",
		"PEAK_MIB", "MEAN_MIB", "FAULTS", "MAJFLT");
	json_array_foreach(json_object_get(doc, "results"), i, res)
		fprintf(f, "%5lld %10.3f %9.3f %9.3f %9.1f %9.1f %10.0f %9.0f\n",
			rt_res_int(res, "tasks"), rt_res_metric(res, "elapsed_s"),
			rt_res_metric(res, "user_s"), rt_res_metric(res, "sys_s"),
			rt_res_metric(res, "memory_peak_mib"), rt_res_metric(res, "memory_mean_mib"),
			rt_res_metric(res, "page_faults"), rt_res_metric(res, "major_faults"));
}

static json_t *kb_info(const struct kb_opts *o)
{
	struct utsname u;
	_cleanup_free_ char *rva = NULL;
	int pers = personality(0xffffffff);

	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	fs_read_file("/proc/sys/kernel/randomize_va_space", 64, &rva, NULL);
	return json_pack("{s:s, s:s, s:I, s:s, s:s, s:b, s:I, s:o, s:s}", "kernel", u.release,
			 "dir", o->dir, "jobs", (json_int_t)o->jobs, "target", o->target,
			 "cgroup", RT_CGROUP_ROOT "/" KB_GROUP, "aslr",
			 pers >= 0 && !(pers & ADDR_NO_RANDOMIZE), "randomize_va_space",
			 (json_int_t)(rva ? atoi(rva) : -1), "thp_system",
			 rt_sysfs_choice(KB_MTHP "/enabled"), "log", KB_WORK "/make.log");
}

static void kb_options(const json_t *params, struct kb_opts *o)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	o->source = wopts_string(params, "source");
	o->target = wopts_string(params, "target");
	o->prepare = rt_param_enum("kbuild", params, "prepare") > 0
			     ? wopts_string(params, "prepare") : NULL;
	o->jobs = wopts_int(params, "jobs");
	o->jobs = o->jobs ? o->jobs : online > 0 ? online : 1;
	o->sample_ms = wopts_int(params, "sample_ms");
	o->tarball = kb_is_tarball(o->source);
	snprintf(o->dir, sizeof(o->dir), "%s", o->tarball ? KB_WORK "/src" : o->source);
}

int main(int argc, char **argv)
{
	struct kb_opts o = {0};
	struct rt_cli cli;
	struct rt_common c;
	_cleanup_json_ json_t *doc = NULL, *params = NULL;
	_cleanup_json_ json_t *raw = rt_opts_parse("kbuild", NULL, 0, NULL, argc, argv, &cli);
	json_t *info, *res = NULL;
	char why[300] = "";
	double prepare_s = -1;
	int memory = 0, r;

	params = rt_params_check("kbuild", raw, (size_t)sysconf(_SC_NPROCESSORS_ONLN), &cli, &c);
	free(c.tasks.v);
	kb_options(params, &o);
	if (fs_mkdir_p(KB_WORK, 0755) < 0 || (unlink(KB_WORK "/make.log") < 0 && errno != ENOENT))
		return fprintf(stderr, "kbuild: cannot use %s\n", KB_WORK), RT_EXIT_FAIL;
	unlink(KB_WORK "/prepare.log");
	if (rt_cgroup_setup(RT_CGROUP_ROOT, &memory, why, sizeof(why)) < 0)
		return fprintf(stderr, "kbuild: %s\n", why), RT_EXIT_FAIL;
	info = kb_info(&o);
	doc = json_pack("{s:s, s:O, s:o, s:[]}", "workload", "kbuild", "params", params, "info",
			info, "results");
	if (!doc || kb_prepare(&o, info, &prepare_s) < 0 || kb_build(&o, memory, why, &res) < 0)
		return RT_EXIT_FAIL;
	if (prepare_s >= 0)
		rt_result_metric(res, "prepare_s", prepare_s, "s", "lower");
	json_array_append_new(json_object_get(doc, "results"), res);
	r = rt_doc_print(doc, &cli, kb_table);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}
