#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/clock.h"

extern char **environ;

/* Reap pid: its exit code, or 128+signal as a shell says it. */
static int wait_exit(pid_t pid)
{
	int ws = 0;

	while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static int read_all(int fd, size_t max, double deadline, char *buf, size_t *len)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char tmp[4096];
		int ms = deadline > 0 ? (int)((deadline - clock_now_s()) * 1000) : -1;
		ssize_t n;

		if (deadline > 0 && ms <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, ms) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		size_t take = (size_t)n < max - *len ? (size_t)n : max - *len;

		memcpy(buf + *len, tmp, take);
		*len += take;
	}
}

int spawn_capture(char *const argv[], size_t max, double timeout_s, char **out, int *status)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2], r;
	pid_t pid;
	size_t len = 0;
	char *buf = malloc(max + 1);

	if (!buf)
		return -ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		free(buf);
		return -errno;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
	/* No signal blocked in the child, whatever the caller blocks (labd, see child()). */
	posix_spawnattr_t at;
	sigset_t none;
	sigemptyset(&none);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
	r = -posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r == 0) {
		r = read_all(pipefd[0], max, timeout_s > 0 ? clock_now_s() + timeout_s : 0, buf, &len);
		if (r == -ETIMEDOUT)
			kill(pid, SIGKILL);
		*status = wait_exit(pid);
	}
	close(pipefd[0]);
	buf[len] = '\0';
	if (r < 0) {
		free(buf);
		return r;
	}
	*out = buf;
	return 0;
}

/* ---- spawn_run: long programs, output streamed ---------------------------------------- */

static int overridden(const struct spawn_job *s, const char *var)
{
	size_t n = strcspn(var, "=");

	for (const char *const *e = s->env; e && *e; e++)
		if (!strncmp(*e, var, n) && (*e)[n] == '=')
			return 1;
	return 0;
}

/* s->env, then the rest of environ: built before fork(), since between fork and exec only
 * async-signal-safe calls (no malloc, no putenv) are safe in a process with threads. */
static char **make_envp(const struct spawn_job *s)
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

static __attribute__((noreturn)) void child(struct spawn_job *s, int out, char **envp)
{
	int nul = open("/dev/null", O_RDONLY);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL); /* the lab died: its work dies with it */
	errno = 0;
	if (setpriority(PRIO_PROCESS, 0, getpriority(PRIO_PROCESS, 0) + s->nice) < 0)
		_exit(126);
	if (nul >= 0)
		dup2(nul, 0);
	dup2(out, 1);
	dup2(out, 2);
	if (s->cwd && chdir(s->cwd) < 0)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	/* A caller that takes its signals with sigwait (labd) blocks them in every thread; the
	 * child must get SIGTERM to be interruptible. */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvpe(s->argv[0], s->argv, envp);
	dprintf(2, "cannot run %s: %s\n", s->argv[0], strerror(errno));
	_exit(127);
}

static void keep_tail(struct spawn_job *s, const char *buf, size_t n)
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
static void feed_lines(struct spawn_job *s, char *acc, size_t *alen, const char *buf, size_t n)
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

static int pump(struct spawn_job *s, int fd, pid_t pid)
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
			kill_at = clock_now_s() + 5;
		}
		if (killed && clock_now_s() > kill_at)
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

int spawn_run(struct spawn_job *s, int *status)
{
	char **envp;
	int fds[2], killed;
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
	*status = wait_exit(pid);
	return killed ? -EINTR : 0;
}
