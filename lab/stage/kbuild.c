/* Running the kernel's make: niced, in its own process group, output to a log, progress from
 * Kbuild's "  CC      mm/memory.o" lines; configuring a variant's O= tree. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "stage/kernel_int.h"
#include "util/cleanup.h"
#include "util/fs.h"

/* Niceness of every program a kernel build spawns: the machine is shared. */
#define KBUILD_NICE 10

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

extern char **environ;

static int overridden(const struct kspawn *s, const char *var)
{
	size_t n = strcspn(var, "=");

	for (const char *const *e = s->env; e && *e; e++)
		if (!strncmp(*e, var, n) && (*e)[n] == '=')
			return 1;
	return 0;
}

/* s->env, then the rest of environ: built before fork(), since between fork and exec only
 * async-signal-safe calls (no malloc, no putenv) are safe in a process with threads. */
static char **make_envp(const struct kspawn *s)
{
	size_t n = 0, k = 0;
	char **envp;

	while (environ[n])
		n++;
	for (const char *const *e = s->env; e && *e; e++)
		k++;
	envp = calloc(n + k + 1, sizeof(*envp));
	if (!envp)
		return NULL;
	for (size_t i = 0; i < k; i++)
		envp[i] = (char *)s->env[i];
	for (size_t i = 0; i < n; i++)
		if (!overridden(s, environ[i]))
			envp[k++] = environ[i];
	return envp;
}

static __attribute__((noreturn)) void child(struct kspawn *s, int out, char **envp)
{
	int nul = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* the lab died: do not build on alone */
	errno = 0;
	if (setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + KBUILD_NICE) < 0)
		_exit(126);
	if (nul >= 0)
		dup2(nul, 0);
	dup2(out, 1);
	dup2(out, 2);
	if (s->cwd && chdir(s->cwd) < 0)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	execvpe(s->argv[0], s->argv, envp);
	dprintf(2, "cannot run %s: %s\n", s->argv[0], strerror(errno));
	_exit(127);
}

static void keep_tail(struct kspawn *s, const char *buf, size_t n)
{
	size_t room = sizeof(s->tail) - 1;

	if (n > room) {
		buf += n - room;
		n = room;
	}
	if (s->tail_len + n > room) {
		size_t drop = s->tail_len + n - room;

		memmove(s->tail, s->tail + drop, s->tail_len - drop);
		s->tail_len -= drop;
	}
	memcpy(s->tail + s->tail_len, buf, n);
	s->tail_len += n;
	s->tail[s->tail_len] = '\0';
}

/* Split output into lines for the callback; a line longer than the buffer is cut. */
static void feed_lines(struct kspawn *s, char *acc, size_t *alen, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n' || *alen == 1023) {
			acc[*alen] = '\0';
			if (s->line)
				s->line(s->ud, acc);
			*alen = 0;
			if (buf[i] == '\n')
				continue;
		}
		acc[(*alen)++] = buf[i];
	}
}

static int pump(struct kspawn *s, int fd, pid_t pid)
{
	char buf[8192], acc[1024];
	size_t alen = 0;
	int killed = 0;
	double kill_at = 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (s->interrupt && *s->interrupt && !killed) {
			kill(-pid, SIGTERM);
			killed = 1;
			kill_at = mono() + 5;
		}
		if (killed && mono() > kill_at)
			kill(-pid, SIGKILL);
		if (poll(&p, 1, 250) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (s->log_fd >= 0 && write(s->log_fd, buf, (size_t)n) < 0) {
			/* A full disk loses log lines, not the build. */
		}
		keep_tail(s, buf, (size_t)n);
		feed_lines(s, acc, &alen, buf, (size_t)n);
	}
	return killed;
}

int kspawn_run(struct kspawn *s, int *status)
{
	char **envp;
	int fds[2], ws = 0, killed;
	pid_t pid;

	s->tail_len = 0;
	s->tail[0] = '\0';
	envp = make_envp(s);
	if (!envp)
		return -ENOMEM;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(envp);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		free(envp);
		return -errno;
	}
	if (pid == 0)
		child(s, fds[1], envp);
	free(envp);
	close(fds[1]);
	setpgid(pid, pid);
	killed = pump(s, fds[0], pid);
	close(fds[0]);
	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
	return killed ? -EINTR : 0;
}

static int nftw_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path) < 0 && errno != ENOENT ? -1 : 0;
}

int kbuild_rm_rf(const char *path)
{
	if (!fs_exists(path))
		return 0;
	return nftw(path, nftw_rm, 64, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}

char *kbuild_log_tail(const char *path, unsigned lines)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	off_t size, from;
	ssize_t n;
	char *p;

	if (fd < 0)
		return NULL;
	size = lseek(fd, 0, SEEK_END);
	from = size > (off_t)KERNEL_TAIL_MAX ? size - (off_t)KERNEL_TAIL_MAX : 0;
	buf = malloc(KERNEL_TAIL_MAX + 1);
	if (!buf || (n = pread(fd, buf, KERNEL_TAIL_MAX, from)) < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	for (size_t i = 0; i < (size_t)n; i++)
		if (buf[i] == '\0' || (unsigned char)buf[i] >= 0x80)
			buf[i] = '?'; /* the report is JSON: keep it plain ASCII */
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	p = buf + n;
	while (p > buf && lines > 0)
		if (*--p == '\n')
			lines--;
	if (*p == '\n')
		p++;
	memmove(buf, p, strlen(p) + 1);
	return buf;
}

/* ---- make --------------------------------------------------------------------------------- */

static const char *const make_env[] = {
	"KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970", /* ccache hits for version.c */
	"KBUILD_BUILD_USER=numalab", "KBUILD_BUILD_HOST=numalab", "LC_ALL=C", NULL,
};

static int run_make(struct kctx *c, const char *target, int log_fd,
		    void (*line)(void *, const char *), void *ud, int *status, char *tail,
		    size_t tail_len)
{
	char o_arg[PATH_MAX + 128], j_arg[32], ccache_env[4][PATH_MAX + 32];
	const char *env[16];
	struct kspawn *s = calloc(1, sizeof(*s));
	unsigned jobs = c->o->jobs ? c->o->jobs : (unsigned)get_nprocs();
	int have_ccache = fs_exists("/usr/bin/ccache"), n = 0, r;
	char *argv[12];

	if (!s)
		return -ENOMEM;
	snprintf(o_arg, sizeof(o_arg), "O=%s", c->obj_dir);
	snprintf(j_arg, sizeof(j_arg), "-j%u", jobs ? jobs : 1);
	argv[n++] = "make", argv[n++] = "-C", argv[n++] = c->src_dir, argv[n++] = o_arg;
	argv[n++] = j_arg;
	if (have_ccache)
		argv[n++] = "CC=ccache gcc";
	argv[n++] = (char *)target;
	argv[n] = NULL;
	n = 0;
	for (const char *const *e = make_env; *e; e++)
		env[n++] = *e;
	/* One store under the cache dir; paths relative to it so that the O= trees of
	 * different variants (all at obj/NAME) share hits. */
	snprintf(ccache_env[0], sizeof(ccache_env[0]), "CCACHE_DIR=%s/ccache", c->cache);
	snprintf(ccache_env[1], sizeof(ccache_env[1]), "CCACHE_BASEDIR=%s", c->cache);
	snprintf(ccache_env[2], sizeof(ccache_env[2]), "CCACHE_NOHASHDIR=1");
	snprintf(ccache_env[3], sizeof(ccache_env[3]), "CCACHE_MAXSIZE=5G");
	for (int i = 0; i < 4; i++)
		env[n++] = ccache_env[i];
	env[n] = NULL;
	*s = (struct kspawn){ .argv = argv, .env = env, .log_fd = log_fd, .line = line, .ud = ud,
			      .interrupt = c->o->interrupt };
	r = kspawn_run(s, status);
	if (tail)
		snprintf(tail, tail_len, "%s", s->tail);
	free(s);
	return r;
}

static int read_config(struct kctx *c, char **text)
{
	_cleanup_free_ char *path = fs_join(c->obj_dir, ".config");

	if (!path)
		return -ENOMEM;
	return fs_read_file(path, KCONFIG_MAX_TEXT, text, NULL);
}

static int make_step(struct kctx *c, const char *target)
{
	char tail[2048];
	int st = 0, r = run_make(c, target, -1, NULL, NULL, &st, tail, sizeof(tail));

	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted during make %s", target);
	if (r < 0 || st != 0) {
		char *nl = strrchr(tail, '\n');

		while (nl && nl > tail && nl[1] == '\0') {
			*nl = '\0';
			nl = strrchr(tail, '\n');
		}
		return kctx_fail(c, KERNEL_FAIL_CONFIG, r < 0 ? r : -EIO, "make %s failed (exit %d): "
				 "%s", target, st, nl ? nl + 1 : tail);
	}
	return 0;
}

int kbuild_configure(struct kctx *c, char **final)
{
	_cleanup_free_ char *base = NULL, *merged = NULL, *cfg_path = fs_join(c->obj_dir, ".config");
	struct kconfig fin;
	struct kmismatch mm[4];
	struct lab_error err = { 0 };
	const char **names = calloc(c->v->nr_fragments, sizeof(*names));
	unsigned bad;
	int r;

	if (!cfg_path || !names) {
		free(names);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < c->v->nr_fragments; i++)
		names[i] = c->v->fragments[i];
	kctx_progress(c, "%s: configuring (%s + %u fragment(s), olddefconfig)", c->v->name,
		      c->v->base, c->v->nr_fragments);
	if ((r = make_step(c, c->v->base)) < 0 || (r = read_config(c, &base)) < 0 ||
	    (r = kconfig_merge(base, c->frags, c->v->nr_fragments, &merged)) < 0 ||
	    (r = fs_write_atomic(cfg_path, merged, strlen(merged))) < 0 ||
	    (r = make_step(c, "olddefconfig")) < 0 || (r = read_config(c, final)) < 0) {
		free(names);
		return c->a->fail ? r : kctx_fail(c, KERNEL_FAIL_LAB, r, "configuring: %s",
						   strerror(-r));
	}
	r = kconfig_parse(*final, 0, &fin, &err);
	bad = r < 0 ? 0 : kconfig_check(c->frags, names, c->v->nr_fragments, &fin, mm, 4);
	free(names);
	kconfig_free(&fin);
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_CONFIG, r, "final .config: %s", err.msg);
	if (bad) {
		char one[PATH_MAX + 512];

		kmismatch_format(&mm[0], one, sizeof(one));
		if (bad > 1)
			return kctx_fail(c, KERNEL_FAIL_CONFIG, -EINVAL, "after olddefconfig %s; and "
					 "%u more option(s) did not stick", one, bad - 1);
		return kctx_fail(c, KERNEL_FAIL_CONFIG, -EINVAL, "after olddefconfig %s", one);
	}
	return 0;
}

/* ---- progress ------------------------------------------------------------------------------ */

struct kprogress {
	struct kctx *c;
	unsigned steps, expected;
	double start, last;
};

static void fmt_dur(char *buf, size_t len, double s)
{
	if (s < 0)
		s = 0;
	snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
}

/* Kbuild's quiet output: two spaces, an upper-case tag, spaces, a target. */
static void on_line(void *ud, const char *l)
{
	struct kprogress *p = ud;
	double now = mono(), el = now - p->start, pct;
	char e[16], eta[16];

	if (strncmp(l, "  ", 2) || l[2] < 'A' || l[2] > 'Z')
		return;
	p->steps++;
	if (p->steps >= p->expected)
		p->expected = p->steps + p->steps / 10; /* an estimate, not a promise */
	if (now - p->last < 5.0)
		return;
	p->last = now;
	pct = p->expected ? 100.0 * p->steps / p->expected : 0;
	if (pct > 99)
		pct = 99;
	fmt_dur(e, sizeof(e), el);
	fmt_dur(eta, sizeof(eta), pct > 0 ? el * (100 - pct) / pct : 0);
	kctx_progress(p->c, "%s: building %3.0f%% (%u/~%u steps), %s elapsed, ETA %s",
		      p->c->v->name, pct, p->steps, p->expected, e, eta);
}

static unsigned long read_steps(struct kctx *c, const char *kind)
{
	_cleanup_free_ char *path = NULL, *s = NULL;
	unsigned long v = 0;

	if (asprintf(&path, "%s/stats-%s", c->cache, kind) >= 0 &&
	    fs_read_file(path, 64, &s, NULL) == 0)
		v = strtoul(s, NULL, 10);
	return v < 1000000 ? v : 0;
}

/* Steps of the last build of this kind from this cache; else, for a full build, the lean
 * config's 1666 (6.12), and for one started from a sibling's tree 2/3 of a full one (what
 * switching PER_VMA_LOCK rebuilds: mm_types.h is everywhere). */
static unsigned expected_steps(struct kctx *c, int full)
{
	unsigned long f = read_steps(c, "full"), v = read_steps(c, full ? "full" : "incremental");

	if (!f)
		f = 1666;
	return (unsigned)(v ? v : full ? f : f * 2 / 3);
}

static void save_steps(struct kctx *c, int full, unsigned steps)
{
	_cleanup_free_ char *path = NULL;
	char s[32];

	if (asprintf(&path, "%s/stats-%s", c->cache, full ? "full" : "incremental") < 0)
		return;
	snprintf(s, sizeof(s), "%u\n", steps);
	fs_write_atomic(path, s, strlen(s));
}

int kbuild_make(struct kctx *c, const char *log_path)
{
	_cleanup_close_ int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	_cleanup_free_ char *vmlinux = fs_join(c->obj_dir, "vmlinux");
	int full = vmlinux && !fs_exists(vmlinux), st = 0, r;
	struct kprogress p = { .c = c, .expected = expected_steps(c, full), .start = mono() };

	if (fd < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, -errno, "cannot create %s: %s", log_path,
				 strerror(errno));
	p.last = p.start;
	kctx_progress(c, "%s: building bzImage (%s build, -j%u, log %s)", c->v->name,
		      full ? "full" : "incremental",
		      c->o->jobs ? c->o->jobs : (unsigned)get_nprocs(), log_path);
	r = run_make(c, "bzImage", fd, on_line, &p, &st, NULL, 0);
	if (r == -EINTR)
		return kctx_fail(c, KERNEL_FAIL_INTERRUPTED, r, "interrupted while building");
	if (r < 0)
		return kctx_fail(c, KERNEL_FAIL_LAB, r, "cannot run make: %s", strerror(-r));
	if (st != 0)
		return kctx_fail(c, KERNEL_FAIL_BUILD, -EIO, "make bzImage failed (exit %d) after "
				 "%u steps; log %s", st, p.steps, log_path);
	save_steps(c, full, p.steps);
	kctx_progress(c, "%s: built in %.0f s (%u steps)", c->v->name, mono() - p.start, p.steps);
	return 0;
}
