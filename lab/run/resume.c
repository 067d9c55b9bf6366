#include "run/resume.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/runresume.h"
#include "run/boot.h"
#include "run/context.h"
#include "util/cleanup.h"

static json_t *resume_interrupted_run(struct run_record *rec, const struct krun_kernel *k,
				      const char *out_dir)
{
	/* The kernel and command line the run had, as run/engine.c one_run makes them. */
	int kvm = !strcmp(rec->host.accel, "kvm");
	int online = boot_online_after(kvm, rec->job->topo.vcpus, k->jk->cmdline);
	_cleanup_free_ char *cmdline = boot_cmdline(k->image, kvm, online, k->jk->cmdline);
	_cleanup_json_ json_t *kextra = krun_report(k, NULL);
	char console[PATH_MAX + 64];

	if (!cmdline || !kextra)
		return NULL;
	snprintf(console, sizeof(console), "%s/run-%u/console.log", out_dir, rec->index);
	snprintf(rec->kernel_image, sizeof(rec->kernel_image), "%s", k->image);
	snprintf(rec->kernel_cmdline, sizeof(rec->kernel_cmdline), "%s", cmdline);
	rec->kernel_extra = kextra;
	return runresume_interrupted_json(rec, access(console, F_OK) == 0);
}

/* A run that was under way when the lab was stopped (lab run --resume --interrupted): recorded
 * as interrupted, not run again. */
static int record_interrupted(struct run_ctx *c, const struct run_slot *s)
{
	struct run_record rec = { .index = s->index, .repeat = s->repeat, .job = c->job,
				  .host = c->host };
	json_t *rj = resume_interrupted_run(&rec, s->k, c->sum->out_dir);

	if (!rj)
		return -ENOMEM;
	run_ctx_progress(c, "run %u/%u: %s, not run again: %s", rec.index + 1, c->nslots,
		     outcome_name(rec.outcome), rec.reason);
	return run_ctx_record(c, &rec, rj);
}

int resume_slots(struct run_ctx *c)
{
	const struct runresume *res = c->o->resume;
	int r;

	for (unsigned i = 0; res && i < c->nslots; i++) {
		struct run_slot *s = &c->slots[i];

		if (res->action[i] == RUNRESUME_RUN)
			continue;
		s->started = s->finished = s->joined = 1;
		if (res->action[i] == RUNRESUME_KEEP)
			run_ctx_progress(c, "run %u/%u: kept from the earlier report", i + 1,
				     c->nslots);
		else if ((r = record_interrupted(c, s)) < 0)
			return r;
	}
	return 0;
}
