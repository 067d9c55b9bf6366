/* What a runner left behind on its pipes: the agent keeps all of stdout (bounded) and the
 * tail of stderr while it supervises the runner (agent.c). */
#pragma once
#include <stddef.h>

#define RT_STDOUT_MAX (4 * 1024 * 1024)
#define RT_STDERR_TAIL 4096

struct rt_capture {
	char *out;
	size_t out_len, out_cap;
	int out_over; /* more than RT_STDOUT_MAX: the rest was read and dropped */
	char err[RT_STDERR_TAIL];
	size_t err_len;
};

/* Read what is available on *fd into c (stdout or stderr); close it and set -1 at EOF. */
void rt_capture_drain(int *fd, struct rt_capture *c, int is_stdout);
