/* The state of one `lab run` shared by the engine's parts: its progress lines and its report
 * (see run/context.h). */
#include "run/context.h"

#include <errno.h>
#include <stdarg.h>

#include "util/cleanup.h"
#include "util/jsonio.h"
#include "util/progress.h"

void run_ctx_progress(const struct run_ctx *c, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock((pthread_mutex_t *)&c->plock);
	va_start(ap, fmt);
	progress_vemit(c->o->env.progress, c->o->env.progress_ud, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock((pthread_mutex_t *)&c->plock);
}

int run_ctx_write_report(struct run_ctx *c)
{
	_cleanup_json_ json_t *rep = runreport_json(c->id, c->created, c->job, c->o->job_file,
						     c->runs, c->sum->status);

	if (!rep || (c->stop && json_object_set(rep, "stop", c->stop) < 0))
		return -ENOMEM;
	/* What `lab run --resume` checks a report against. */
	if (c->o->job_sha256 && json_object_set_new(json_object_get(rep, "job"), "sha256",
						    json_string(c->o->job_sha256)) < 0)
		return -ENOMEM;
	/* ... and what `lab bundle` carries: the job as run, and where its names resolved. */
	if (c->o->job_as_run && (json_object_set_new(json_object_get(rep, "job"), "as_run",
						     json_deep_copy(c->o->job_as_run)) < 0 ||
				 json_object_set_new(json_object_get(rep, "job"), "dir",
						     json_string(c->o->job_dir ? c->o->job_dir
									       : "")) < 0))
		return -ENOMEM;
	return jsonio_write_file(c->sum->report, rep);
}

/* Under c->lock: the run's JSON into c->runs in index order (runs side by side end in any
 * order), the summary counted, the report rewritten. */
static int record_add(struct run_ctx *c, const struct run_record *rec, json_t *rj)
{
	size_t i, n = json_array_size(c->runs);

	for (i = n; i > 0; i--)
		if (json_integer_value(json_object_get(json_array_get(c->runs, i - 1), "index")) <
		    (json_int_t)rec->index)
			break;
	if (json_array_insert_new(c->runs, i, rj) < 0)
		return -ENOMEM;
	c->sum->status = outcome_worst(c->sum->status, rec->outcome);
	c->sum->runs++;
	c->sum->ok += rec->outcome == OUTCOME_OK;
	return run_ctx_write_report(c);
}

int run_ctx_record(struct run_ctx *c, const struct run_record *rec, json_t *rj)
{
	int r;

	pthread_mutex_lock(&c->lock);
	r = record_add(c, rec, rj);
	pthread_mutex_unlock(&c->lock);
	return r;
}

