/* Runner output capture for the agent (moved out of agent.c to keep it small). */
#include "rt_capture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void rt_keep_stderr(struct rt_capture *c, const char *buf, size_t n)
{
	if (n >= RT_STDERR_TAIL) {
		memcpy(c->err, buf + n - RT_STDERR_TAIL, RT_STDERR_TAIL);
		c->err_len = RT_STDERR_TAIL;
		return;
	}
	if (c->err_len + n > RT_STDERR_TAIL) {
		size_t drop = c->err_len + n - RT_STDERR_TAIL;

		memmove(c->err, c->err + drop, c->err_len - drop);
		c->err_len -= drop;
	}
	memcpy(c->err + c->err_len, buf, n);
	c->err_len += n;
}

static void rt_keep_stdout(struct rt_capture *c, const char *buf, size_t n)
{
	if (c->out_over || c->out_len + n > RT_STDOUT_MAX) {
		c->out_over = 1; /* keep draining so the runner never blocks on a full pipe */
		return;
	}
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 65536;
		char *p;

		while (cap < c->out_len + n)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p) {
			c->out_over = 1;
			return;
		}
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, buf, n);
	c->out_len += n;
}

void rt_capture_drain(int *fd, struct rt_capture *c, int is_stdout)
{
	char buf[65536];
	ssize_t r = read(*fd, buf, sizeof(buf));

	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (r <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (is_stdout)
		rt_keep_stdout(c, buf, (size_t)r);
	else
		rt_keep_stderr(c, buf, (size_t)r);
}
