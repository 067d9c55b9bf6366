/* numalab guest agent: PID 1 of the guest initramfs (PROTOCOL.md).
 *
 * Mounts the API file systems, reports what the kernel sees, runs the job's workloads and
 * reports each on the results channel (/dev/ttyS1), then powers off.  As PID 1 it must never
 * return: if anything goes wrong it says so on the channel and powers off anyway.
 *
 * Run as anything but PID 1 (on the host, in tests) it only offers side-effect-free modes:
 * --check-job FILE (validate a job, print each runner's argv) and --topology [ROOT]. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>

#include "proto/guestjob.h"
#include "rt.h"
#include "rt_bench.h"
#include "rt_capture.h"
#include "rt_disk.h"
#include "rt_fault.h"
#include "rt_kconfig.h"
#include "rt_kmsg.h"
#include "rt_knobs.h"
#include "rt_online.h"
#include "rt_perfstat.h"
#include "util/fs.h"

#define AGENT_ID "numalab-agent/1"
#define JOB_PATH "/numalab/job.json"
#define BIN_DIR "/numalab/bin"
#define RESULTS_TTY "/dev/ttyS1"
#define AGENT_CPUSET "/dev/cpuset" /* cgroup v1 cpuset hierarchy while onlining (rt_online.c) */
#define DRAIN_GRACE_S 2.0 /* after the runner exits, how long its pipes may stay open */

/* The guest job (lab/proto/guestjob.h), validated; gj points into root. */
struct agent_job {
	json_t *root;
	struct guestjob gj;
};

static int agent_console = STDERR_FILENO;
static int agent_results = -1;

__attribute__((format(printf, 1, 2))) static void agent_log(const char *fmt, ...)
{
	char buf[1024];
	struct timespec ts;
	va_list ap;
	int n;

	/* Stamped with the guest's uptime as printk.time stamps kernel lines: a console log
	 * then tells where a boot or a stall spent its time. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = snprintf(buf, sizeof(buf), "[%5lld.%06ld] numalab-agent: ", (long long)ts.tv_sec,
		     ts.tv_nsec / 1000);

	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	rt_write_full(agent_console, buf, (size_t)n);
	rt_disk_log(buf, (size_t)n);
}

/* Emit one results line and drop the reference.  A failed write cannot be reported on the
 * channel it failed on, so it goes to the console. */
static int agent_emit(json_t *j)
{
	int r;

	if (!j) {
		agent_log("cannot build a result line: out of memory");
		return -ENOMEM;
	}
	if (agent_results < 0) {
		json_decref(j);
		return -EBADF;
	}
	/* The channel first: the host watches it; the disk copy is for a post-mortem. */
	r = rt_emit_line(agent_results, j);
	if (r < 0)
		agent_log("results channel: %s", strerror(-r));
	rt_disk_result(j);
	json_decref(j);
	return r;
}

/* A heartbeat goes to the channel only: it means nothing to a post-mortem, and the disk copy's
 * fdatasync would make it wait on the guest's journal and the host's disk. */
static void agent_beat(json_t *j)
{
	int r;

	if (!j || agent_results < 0) {
		json_decref(j);
		return;
	}
	r = rt_emit_line(agent_results, j);
	if (r < 0)
		agent_log("results channel: %s", strerror(-r));
	json_decref(j);
}

/* The heartbeat path must outrank the workload it watches: with a task on every CPU (and
 * workloads that may ask for SCHED_FIFO themselves) an agent of ordinary priority waited
 * tens of seconds for a CPU on a busy host and was called hung.  The highest FIFO
 * priority runs it at once when its timer fires; it sleeps in poll() otherwise, so it costs
 * the workload a few microseconds per heartbeat.  SCHED_RESET_ON_FORK starts the runners as
 * ordinary tasks, and mlockall keeps its pages out of reclaim while a workload fills memory
 * (memory locks are not inherited by a child). */
static void agent_outrank(void)
{
	struct sched_param sp = { .sched_priority = sched_get_priority_max(SCHED_FIFO) };

	int r = sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);

	if (r < 0)
		agent_log("cannot run at SCHED_FIFO: %s; heartbeats may lag", strerror(errno));
	if (mlockall(MCL_CURRENT | MCL_FUTURE) < 0)
		agent_log("mlockall: %s; heartbeats may wait on reclaim", strerror(errno));
	else if (r == 0)
		agent_log("heartbeats at SCHED_FIFO %d, memory locked; runners start as SCHED_OTHER",
			  sp.sched_priority);
}

static double agent_uptime(void)
{
	_cleanup_free_ char *s = NULL;

	if (fs_read_file("/proc/uptime", 4096, &s, NULL) < 0)
		return 0;
	return strtod(s, NULL);
}

static __attribute__((noreturn)) void agent_poweroff(int ok)
{
	if (getpid() != 1)
		exit(ok ? RT_EXIT_OK : RT_EXIT_FAIL);
	agent_emit(rt_vmstat_line("")); /* vma_lock_* counters after the workloads */
	agent_emit(json_pack("{s:s, s:b}", CHANNEL_KEY_TYPE, CHANNEL_T_DONE, "ok", ok));
	agent_log("done (ok=%s), powering off", ok ? "true" : "false");
	/* Lines sit in the tty buffer after write() returns; power-off would lose them. */
	if (agent_results >= 0)
		tcdrain(agent_results);
	sync();
	reboot(RB_POWER_OFF);
	agent_log("reboot(RB_POWER_OFF): %s", strerror(errno));
	for (;;)
		pause();
}

__attribute__((format(printf, 1, 2), noreturn)) static void agent_fatal(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	agent_log("error: %s", msg);
	rt_utf8_sanitize(msg, strlen(msg));
	agent_emit(json_pack("{s:s, s:s}", CHANNEL_KEY_TYPE, CHANNEL_T_ERROR, "msg", msg));
	agent_poweroff(0);
}

/* ---- boot plumbing ---------------------------------------------------------------------- */

static int agent_mount(const char *src, const char *dir, const char *type, unsigned long fl)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, fl, NULL) < 0 && errno != EBUSY)
		return -errno;
	return 0;
}

static int agent_mount_all(char *err, size_t len)
{
	static const struct {
		const char *src, *dir, *type;
		unsigned long flags;
	} m[] = {
		{ "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC },
		{ "devtmpfs", "/dev", "devtmpfs", MS_NOSUID },
	};

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		int r = agent_mount(m[i].src, m[i].dir, m[i].type, m[i].flags);

		if (r < 0) {
			snprintf(err, len, "mount %s on %s: %s", m[i].type, m[i].dir, strerror(-r));
			return r;
		}
	}
	return 0;
}

/* The kernel only opens fds 0-2 for init when /dev/console exists in the initramfs.  Make
 * sure they are open, or pipe2() could hand out fd 1 and the runner's dup2() would break. */
static void agent_fix_stdio(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		int n = open("/dev/null", O_RDWR);

		if (n >= 0 && n != fd) {
			dup2(n, fd);
			close(n);
		}
	}
}

static int agent_open_results(const char *path)
{
	struct termios t;
	/* O_NONBLOCK so that open() does not wait for carrier before CLOCAL is set. */
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t); /* no "\n" -> "\r\n", no echo: bytes out as written */
		t.c_cflag |= CLOCAL;
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

static json_t *agent_hello(void)
{
	struct utsname u;

	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	/* root says where the agent runs from: the initramfs, or an image's disk (/dev/vda1). */
	return json_pack("{s:s, s:s, s:s, s:f, s:o?}", CHANNEL_KEY_TYPE, CHANNEL_T_HELLO, "agent",
			 AGENT_ID, "release", u.release, "uptime_s", agent_uptime(), "root",
			 rt_root_json());
}

/* ---- job ---------------------------------------------------------------------------------- */

static int agent_job_load(const char *path, struct agent_job *job, char *err, size_t len)
{
	_cleanup_free_ char *buf = NULL;
	struct lab_error why = { 0 };
	json_error_t jerr;
	size_t n;
	int r = fs_read_file(path, GUESTJOB_MAX_BYTES, &buf, &n);

	if (r < 0) {
		snprintf(err, len, "%s: %s", path, strerror(-r));
		return r;
	}
	job->root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!job->root) {
		snprintf(err, len, "%s: line %d column %d: %s", path, jerr.line, jerr.column,
			 jerr.text);
		return -EINVAL;
	}
	r = guestjob_validate(job->root, &job->gj, &why);
	if (r < 0) {
		error_set_file(&why, path);
		error_format(&why, err, len);
		json_decref(job->root);
		job->root = NULL;
	}
	return r;
}

/* ---- running a workload ------------------------------------------------------------------- */

static int agent_spawn(char **argv, int no_aslr, pid_t *pid_out, int *out_fd, int *err_fd)
{
	static char *const envp[] = { "PATH=" BIN_DIR ":/bin:/sbin", "HOME=/", "LANG=C", NULL };
	int o[2], e[2];
	pid_t pid;

	if (pipe2(o, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(e, O_CLOEXEC) < 0) {
		int r = -errno;

		close(o[0]);
		close(o[1]);
		return r;
	}
	pid = fork();
	if (pid == 0) {
		sigset_t none;
		int nul = open("/dev/null", O_RDONLY);

		/* Own process group, so a timeout kills the runner and anything it forked. */
		setpgid(0, 0);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (nul >= 0)
			dup2(nul, STDIN_FILENO);
		dup2(o[1], STDOUT_FILENO);
		dup2(e[1], STDERR_FILENO);
		/* The job's "aslr": false; inherited by everything the runner starts. */
		if (no_aslr && personality(ADDR_NO_RANDOMIZE) < 0)
			dprintf(STDERR_FILENO, "numalab-agent: personality: %s\n", strerror(errno));
		execve(argv[0], argv, envp);
		dprintf(STDERR_FILENO, "numalab-agent: execve %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(o[1]);
	close(e[1]);
	if (pid < 0) {
		int r = -errno;

		close(o[0]);
		close(e[0]);
		return r;
	}
	setpgid(pid, pid); /* also from here: whichever runs first wins the race */
	*pid_out = pid;
	*out_fd = o[0];
	*err_fd = e[0];
	return 0;
}

/* Reap every zombie (orphans reparent to PID 1); report the runner's status when it is one. */
static int agent_reap(pid_t runner, int *status)
{
	int st, found = 0;
	pid_t p;

	while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
		if (p == runner) {
			*status = st;
			found = 1;
		}
	}
	return found;
}

static int agent_ms_until(double t, double now)
{
	double ms = (t - now) * 1000.0;

	return ms <= 0 ? 0 : ms > 60000 ? 60000 : (int)ceil(ms);
}

/* Wait for the runner while capturing its output, sending heartbeats and enforcing the
 * timeout.  Returns 1 when the runner was killed for its timeout. */
static int agent_supervise(pid_t pid, int out_fd, int err_fd, const struct agent_job *job,
			   double timeout_s, struct rt_capture *c, int *status, double *wall)
{
	double hb = job->gj.heartbeat_s, start = rt_now_s(), next_hb = start + hb, reaped_at = 0;
	double deadline = timeout_s > 0 ? start + timeout_s : 0;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* wakes poll() on exit; 5.3+ */
	int reaped = 0, killed = 0;
	struct pollfd pfd[3] = { { out_fd, POLLIN, 0 }, { err_fd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };

	for (;;) {
		double now = rt_now_s(), wake = next_hb;

		if (!reaped && agent_reap(pid, status)) {
			reaped = 1;
			reaped_at = now;
			*wall = now - start;
			kill(-pid, SIGKILL); /* leftovers of the runner's group */
			pfd[2].fd = -1;
		}
		if (reaped && ((pfd[0].fd < 0 && pfd[1].fd < 0) || now - reaped_at > DRAIN_GRACE_S))
			break;
		if (!reaped && !killed && deadline && now >= deadline) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			killed = 1;
		}
		if (now >= next_hb) {
			agent_beat(json_pack("{s:s, s:f}", CHANNEL_KEY_TYPE, CHANNEL_T_HEARTBEAT,
					     "uptime_s", agent_uptime()));
			next_hb += hb;
			if (next_hb <= now)
				next_hb = now + hb;
			wake = next_hb;
		}
		if (deadline && !killed && deadline < wake)
			wake = deadline;
		if (reaped && reaped_at + DRAIN_GRACE_S < wake)
			wake = reaped_at + DRAIN_GRACE_S;
		if (!reaped && pidfd < 0 && now + 0.05 < wake)
			wake = now + 0.05; /* no pidfd: poll for the exit */
		if (poll(pfd, 3, agent_ms_until(wake, now)) < 0 && errno != EINTR)
			agent_log("poll: %s", strerror(errno));
		for (int i = 0; i < 2; i++)
			if (pfd[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				rt_capture_drain(&pfd[i].fd, c, i == 0);
	}
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	if (pidfd >= 0)
		close(pidfd);
	return killed;
}

/* The runner's stdout as a JSON object, or NULL with *why set. */
static json_t *agent_parse_output(const struct rt_capture *c, const char **why)
{
	json_error_t jerr;
	json_t *j;

	if (c->out_over)
		return *why = "stdout exceeded 4 MiB", NULL;
	if (c->out_len == 0)
		return *why = "no output on stdout", NULL;
	j = json_loadb(c->out ? c->out : "", c->out_len, JSON_REJECT_DUPLICATES, &jerr);
	if (!j)
		return *why = "stdout is not valid JSON", NULL;
	if (!json_is_object(j)) {
		json_decref(j);
		return *why = "stdout is not a JSON object", NULL;
	}
	return j;
}

static int agent_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return -1;
}

/* perf: the "perf_stat" object for the output, oom: the OOM killer's lines while it ran
 * (rt_kmsg.h); both taken over, may be NULL. */
static int agent_report(size_t idx, const char *name, int status, double wall,
			struct rt_capture *c, const char *why, json_t *perf, json_t *oom)
{
	json_t *output = why ? NULL : agent_parse_output(c, &why);
	json_t *msg;
	int r;

	if (output && perf)
		json_object_set(output, "perf_stat", perf);
	json_decref(perf);
	rt_utf8_sanitize(c->err, c->err_len);
	msg = json_pack("{s:s, s:I, s:s, s:i, s:f, s:o, s:s%}", CHANNEL_KEY_TYPE,
			CHANNEL_T_WORKLOAD, "index", (json_int_t)idx, "name", name, "exit",
			agent_exit_code(status), "wall_s", wall, "output",
			output ? output : json_null(), "stderr", c->err, c->err_len);
	if (!msg)
		return agent_emit(NULL), 0;
	if (why)
		json_object_set_new(msg, "error", json_string(why));
	if (WIFSIGNALED(status))
		json_object_set_new(msg, "signal", json_integer(WTERMSIG(status)));
	if (oom)
		json_object_set_new(msg, "oom", oom);
	r = rt_emit_line(agent_results, msg);
	if (r == -EMSGSIZE) {
		/* stderr is bounded, so only the runner's output can make the line too long. */
		why = "output too large for a result line";
		json_object_set_new(msg, "output", json_null());
		json_object_set_new(msg, "error", json_string(why));
		r = rt_emit_line(agent_results, msg);
	}
	if (r < 0)
		agent_log("results channel: %s", strerror(-r));
	rt_disk_result(msg);
	json_decref(msg);
	agent_log("workload %zu (%s): exit %d, %.2f s%s%s%s", idx, name, agent_exit_code(status),
		  wall, why ? ": " : "", why ? why : "", oom ? "; the OOM killer killed" : "");
	return !why && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* "workload-start", with each node's memory as the workload finds it: what the guest itself
 * holds there, which lab/core/memfit.c reserves for it (its calibration data come from these
 * lines).  A node list that cannot be read is left out, the workload run all the same. */
static json_t *agent_start_line(size_t idx, const char *name)
{
	json_t *nodes = NULL;
	int r = rt_node_memory_json("", &nodes);

	if (r < 0)
		agent_log("workload %zu (%s): cannot read the nodes' memory: %s", idx, name,
			  strerror(-r));
	agent_log("workload %zu (%s): starting", idx, name);
	return json_pack("{s:s, s:I, s:s, s:o*}", CHANNEL_KEY_TYPE, CHANNEL_T_WORKLOAD_START,
			 "index", (json_int_t)idx, "name", name, "nodes", nodes);
}

/* Runs workload idx; returns 1 when it succeeded with a JSON result. */
static int agent_run_workload(const struct agent_job *job, size_t idx)
{
	const struct guestjob_workload *w = &job->gj.workloads[idx];
	struct rt_capture c = { 0 };
	char **argv = NULL, perf_out[64];
	int out_fd = -1, err_fd = -1, status = 0, ok = 0, perf = 0, kmsg, r;
	double wall = 0;
	pid_t pid = -1;

	agent_emit(agent_start_line(idx, w->name));
	r = rt_argv_build(BIN_DIR, w->name, w->params, &argv);
	snprintf(perf_out, sizeof(perf_out), RT_DISK_OUT "/perf-stat-%zu.csv", idx);
	kmsg = rt_kmsg_open(); /* what the kernel says from here on: the OOM killer's lines */
	if (r == 0 && job->gj.perf_stat)
		r = perf = rt_perfstat_wrap(&argv, job->gj.perf_stat, perf_out);
	if (r >= 0)
		r = agent_spawn(argv, w->no_aslr, &pid, &out_fd, &err_fd);
	if (r < 0) {
		char why[256];

		snprintf(why, sizeof(why), "cannot start runner: %s", strerror(-r));
		status = 127 << 8;
		agent_report(idx, w->name, status, 0, &c, why, NULL, NULL);
	} else {
		int killed = agent_supervise(pid, out_fd, err_fd, job, w->timeout_s, &c,
					     &status, &wall);
		int sigkill = !killed && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
		char why[128];

		snprintf(why, sizeof(why), "timed out after %g s", w->timeout_s);
		ok = agent_report(idx, w->name, status, wall, &c, killed ? why : NULL,
				  job->gj.perf_stat ? rt_perfstat_result(perf, perf_out) : NULL,
				  kmsg >= 0 ? rt_kmsg_oom(kmsg, sigkill ? 1.0 : 0) : NULL);
	}
	if (kmsg >= 0)
		close(kmsg);
	rt_argv_free(argv);
	free(c.out);
	return ok;
}

/* ---- faults, main ------------------------------------------------------------------------- */

static void agent_fault(enum fault f)
{
	if (f == FAULT_NONE)
		return;
	tcdrain(agent_results); /* what was sent so far must reach the host */
	agent_log("fault=%s", fault_name(f));
	if (rt_fault_hostile(f, agent_results, agent_console)) {
		agent_log("fault=%s: sent; going on with the job", fault_name(f));
		return;
	}
	if (f == FAULT_HANG) {
		agent_log("fault=hang: going silent forever");
		for (;;)
			pause();
	}
	agent_log("fault=panic: crashing the kernel via sysrq");
	rt_write_file("/proc/sys/kernel/sysrq", "1");
	rt_write_file("/proc/sysrq-trigger", "c");
	agent_fatal("fault=panic: sysrq-trigger did not crash the kernel");
}

static void agent_online_beat(void *ud, unsigned done, unsigned total)
{
	(void)ud;
	agent_beat(json_pack("{s:s, s:f, s:{s:I, s:I}}", CHANNEL_KEY_TYPE, CHANNEL_T_HEARTBEAT,
			     "uptime_s", agent_uptime(), "online", "done", (json_int_t)done, "total",
			     (json_int_t)total));
}

/* A cgroup v1 cpuset hierarchy for the onlining only (rt_online.c: domains built once), or
 * NULL when the kernel has none (no CONFIG_CPUSETS_V1): then one rebuild per CPU.  Unmounted
 * right after: without children the hierarchy goes away and the cpuset controller returns
 * to cgroup v2, where it was before. */
static const char *agent_cpuset_mount(void)
{
	mkdir(AGENT_CPUSET, 0755);
	if (mount("cgroup", AGENT_CPUSET, "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC, "cpuset") == 0)
		return AGENT_CPUSET;
	rmdir(AGENT_CPUSET);
	return NULL;
}

/* The lab booted with maxcpus= and asks for the rest of the CPUs now (rt_online.c says why).
 * A CPU that stays offline is not fatal here: the topology line shows it and the host
 * compares the observed topology with the requested one. */
static void agent_online(const struct agent_job *job)
{
	const char *cpuset = agent_cpuset_mount();
	json_t *line;
	int r = rt_online_all("", cpuset, job->gj.heartbeat_s, agent_online_beat, NULL, &line);

	if (cpuset && (umount(cpuset) < 0 || rmdir(cpuset) < 0))
		agent_log("%s: %s", cpuset, strerror(errno));
	if (r < 0)
		agent_fatal("onlining the CPUs: %s (cannot read the present and online CPUs from "
			    "/sys, or cannot turn the scheduler's load balancing back on)",
			    strerror(-r));
	agent_log("%lld CPU(s) brought online in %.1f s (%lld failed), scheduler domains %s",
		  json_integer_value(json_object_get(line, "requested")),
		  json_real_value(json_object_get(line, "wall_s")),
		  json_integer_value(json_object_get(line, "failed_count")),
		  json_is_true(json_object_get(line, "domains_batched"))
			  ? "built once at the end" : "rebuilt per CPU");
	agent_emit(line);
}

static __attribute__((noreturn)) void agent_pid1(void)
{
	struct agent_job job = { 0 };
	char err[768];
	json_t *topo;
	int mounted, con, disk, ok = 1, r;

	mounted = agent_mount_all(err, sizeof(err));
	con = open("/dev/console", O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (con >= 0)
		agent_console = con;
	agent_fix_stdio();
	agent_log("started");
	agent_results = agent_open_results(RESULTS_TTY);
	if (agent_results < 0) {
		agent_log("cannot open %s: %s; nothing can be reported", RESULTS_TTY,
			  strerror(-agent_results));
		agent_poweroff(0);
	}
	/* Stage 1 of a disk boot switches to the image's root and never comes back. */
	if (mounted == 0 && rt_stage1(err, sizeof(err)) < 0)
		agent_fatal("stage 1 of the disk boot: %s", err);
	disk = rt_disk_booted();
	if (disk && (r = rt_disk_open()) < 0)
		agent_log("cannot keep a log on the disk (%s): %s", RT_DISK_OUT, strerror(-r));
	else if (disk)
		agent_log("running from the image's disk; log and results also in %s", RT_DISK_OUT);
	/* hello first, so that even a broken job shows the guest booted and which kernel. */
	agent_emit(agent_hello());
	if (mounted < 0)
		agent_fatal("%s", err);
	if (agent_job_load(disk ? RT_DISK_JOB : JOB_PATH, &job, err, sizeof(err)) < 0)
		agent_fatal("%s", err);
	agent_outrank();
	/* Before any workload: their counters' setup must not turn the perf hooks on (rt_perf.c). */
	if ((r = rt_perf_hold()) < 0)
		agent_log("perf_event_open: %s (the workloads' counters may be unavailable too)",
			  strerror(-r));
	if (job.gj.online_after_boot)
		agent_online(&job);
	if (rt_topology_json("", &topo) < 0)
		agent_fatal("cannot read the NUMA topology from /sys and /proc/zoneinfo");
	agent_emit(topo);
	agent_emit(rt_kernel_line("")); /* its .config proves which kernel variant runs */
	/* Knobs before the workloads; recorded even when none are asked for (rt_knobs.c). */
	r = rt_knobs_apply("", job.gj.knobs, &topo, err, sizeof(err));
	agent_emit(topo);
	if (r < 0)
		agent_fatal("knobs: %s", err);
	agent_log("job %s: %zu workload(s)", job.gj.run_id, job.gj.nr_workloads);
	if (job.gj.fault_after == FAULT_AFTER_HELLO)
		agent_fault(job.gj.fault);
	for (size_t i = 0; i < job.gj.nr_workloads; i++)
		ok &= agent_run_workload(&job, i);
	if (job.gj.fault_after == FAULT_AFTER_WORKLOADS)
		agent_fault(job.gj.fault); /* with results to recover */
	agent_poweroff(ok);
}

static int agent_check_job(const char *path)
{
	struct agent_job job = { 0 };
	char err[768];

	if (agent_job_load(path, &job, err, sizeof(err)) < 0) {
		fprintf(stderr, "agent: %s\n", err);
		return RT_EXIT_USAGE;
	}
	for (size_t i = 0; i < job.gj.nr_workloads; i++) {
		const struct guestjob_workload *w = &job.gj.workloads[i];
		_cleanup_json_ json_t *line = NULL;
		char **argv = NULL;
		json_t *a;

		if (rt_argv_build(BIN_DIR, w->name, w->params, &argv) < 0)
			return RT_EXIT_FAIL;
		a = json_array();
		for (char **p = argv; a && *p; p++)
			json_array_append_new(a, json_string(*p));
		rt_argv_free(argv);
		line = json_pack("{s:I, s:s, s:o}", "index", (json_int_t)i, "name", w->name, "argv",
				 a);
		if (!line || rt_emit_line(STDOUT_FILENO, line) < 0)
			return RT_EXIT_FAIL;
	}
	json_decref(job.root);
	return RT_EXIT_OK;
}

/* The test modes: print one results line on stdout; NULL (it could not be built) fails. */
static int agent_print(json_t *line)
{
	int r = line ? rt_emit_line(STDOUT_FILENO, line) : -ENOMEM;

	json_decref(line);
	return r < 0 ? RT_EXIT_FAIL : RT_EXIT_OK;
}

int main(int argc, char **argv)
{
	json_t *line = NULL;

	if (getpid() == 1)
		agent_pid1();
	/* Not PID 1: never mount, spawn or power off here, it might be the host. */
	if (argc == 3 && !strcmp(argv[1], "--check-job"))
		return agent_check_job(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "--knobs"))
		return rt_knobs_main(argv[2], argv[3]);
	/* Tests only: a fake tree; the guest's own tree is onlined from agent_pid1(). */
	if (argc == 3 && !strcmp(argv[1], "--online"))
		return agent_print(argv[2][0] && rt_online_all(argv[2], AGENT_CPUSET, 3600, NULL,
							       NULL, &line) == 0
					   ? line : NULL);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--kernel"))
		return agent_print(rt_kernel_line(argc == 3 ? argv[2] : ""));
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--memory"))
		return agent_print(rt_node_memory_json(argc == 3 ? argv[2] : "", &line) == 0 ? line
											    : NULL);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--topology"))
		return agent_print(rt_topology_json(argc == 3 ? argv[2] : "", &line) == 0 ? line
											 : NULL);
	fprintf(argc == 2 && !strcmp(argv[1], "--help") ? stdout : stderr,
		"usage: agent --check-job FILE   validate a guest job, print each runner's argv\n"
		"       agent --topology [ROOT]  print the topology line for this machine (or for\n"
		"                                a fake tree ROOT/sys, ROOT/proc)\n"
		"       agent --memory [ROOT]    print the nodes' memory as a workload-start line\n"
		"                                carries it (free, used, kept from a bound task)\n"
		"       agent --kernel [ROOT]    print the kernel line (.config, vma_lock counters)\n"
		"       agent --knobs ROOT FILE  apply FILE's knobs under a fake tree ROOT (never /)\n"
		"       agent --online ROOT      online ROOT's offline CPUs (a fake tree, never /)\n"
		"As PID 1 (the guest's /init) it runs %s and reports on %s.\n", JOB_PATH,
		RESULTS_TTY);
	return argc == 2 && !strcmp(argv[1], "--help") ? RT_EXIT_OK : RT_EXIT_USAGE;
}
