#include "util/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int read_all(int fd, size_t max, double deadline, char *buf, size_t *len)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char tmp[4096];
		int ms = deadline > 0 ? (int)((deadline - mono()) * 1000) : -1;
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
	int pipefd[2], r, ws;
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
	r = -posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pipefd[1]);
	if (r == 0) {
		r = read_all(pipefd[0], max, timeout_s > 0 ? mono() + timeout_s : 0, buf, &len);
		if (r == -ETIMEDOUT)
			kill(pid, SIGKILL);
		while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
			;
		*status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
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
