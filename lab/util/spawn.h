/* Run a program from an argv array (never a shell string): spawn_capture() for short commands
 * whose output is wanted, spawn_run() for long ones (builds) whose output streams to a log and
 * a line callback and that the caller can interrupt. */
#pragma once
#include <signal.h>
#include <stddef.h>

/* Runs argv[0] (PATH lookup), stdin from /dev/null, stdout+stderr captured (at most max
 * bytes kept, the rest drained).  *status gets the exit code, or 128+signal.  Kills the
 * child after timeout_s seconds (0 = no limit) and returns -ETIMEDOUT. */
int spawn_capture(char *const argv[], size_t max, double timeout_s, char **out, int *status);

#define SPAWN_TAIL_MAX (16u * 1024) /* output spawn_run keeps in memory */

struct spawn_job {
	char *const *argv;
	const char *const *env;    /* extra NAME=VALUE entries, NULL-terminated; may be NULL */
	const char *cwd;           /* NULL: inherit */
	int nice;                  /* added to the lab's niceness */
	int log_fd;                /* output also appended here; -1: not */
	void (*line)(void *ud, const char *line); /* each line of output (cut at 1023 bytes) */
	void *ud;
	volatile sig_atomic_t *interrupt; /* set: SIGTERM to the group, SIGKILL 5 s later */
	char tail[SPAWN_TAIL_MAX]; /* the output's last bytes, NUL-terminated */
	size_t tail_len;
};
/* Runs j->argv (PATH lookup) in its own process group, killed with the lab (PDEATHSIG),
 * stdin from /dev/null, stdout+stderr to the log/tail/line callback.  *status is the exit
 * code or 128+signal.  -EINTR when interrupted (the group is killed). */
int spawn_run(struct spawn_job *j, int *status);
