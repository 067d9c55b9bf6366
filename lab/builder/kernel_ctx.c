/* The kernel build's context (builder/kernel_ctx.h). */
#include "builder/kernel_ctx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/progress.h"

int kctx_fail(struct kctx *c, enum kernel_fail f, int r, const char *fmt, ...)
{
	va_list ap;

	c->a->fail = f;
	va_start(ap, fmt);
	vsnprintf(c->a->error, sizeof(c->a->error), fmt, ap);
	va_end(ap);
	return r < 0 ? r : -EINVAL;
}

void kctx_progress(struct kctx *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	progress_vemit(c->o->progress, c->o->progress_ud, fmt, ap);
	va_end(ap);
}

int kctx_spawn(struct kctx *c, struct spawn_job *j, int *status)
{
	j->nice = KERNEL_BUILD_NICE;
	j->interrupt = c->o->interrupt;
	return spawn_run(j, status);
}

int kctx_run(struct kctx *c, char *const argv[], const char *cwd, char *out, size_t len)
{
	/* The job holds a 16 KiB tail: not for the stack of a caller that is deep already. */
	struct spawn_job *s = calloc(1, sizeof(*s));
	int st = 0, r;

	if (!s)
		return -ENOMEM;
	*s = (struct spawn_job){ .argv = argv, .cwd = cwd, .log_fd = -1 };
	r = kctx_spawn(c, s, &st);
	if (out)
		snprintf(out, len, "%s", s->tail);
	free(s);
	if (r < 0)
		return r;
	return st == 0 ? 0 : -EIO;
}

void kctx_free(struct kctx *c)
{
	for (unsigned i = 0; c->frag_text && i < c->v->nr_fragments; i++)
		free(c->frag_text[i]);
	for (unsigned i = 0; c->frags && i < c->v->nr_fragments; i++)
		kconfig_free(&c->frags[i]);
	free(c->frag_text);
	free(c->frags);
	free(c->frag_sha);
	free(c->patch_file);
	free(c->patch_sha);
}
