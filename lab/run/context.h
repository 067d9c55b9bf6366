/* The state of one `lab run` in the engine, shared by its parts: lab/run/engine.c (the job:
 * kernels, the host decided on, runs scheduled), run/slot.c (one run), resume.c (--resume) and
 * run/context.c (progress lines and the report, which they all write).  Calls go down only: run/engine.c
 * into run/slot.c and resume.c, those into run/context.c and run/host.c (where guests run).  No
 * other module reaches into it. */
#pragma once
#include <limits.h>
#include <pthread.h>

#include "core/runreport.h"
#include "run/disk.h"
#include "run/host.h"
#include "run/kernels.h"
#include "run/request.h"
#include "virt/virt.h"

/* One run of the job, possibly beside others (run/engine.c runs up to c->parallel at once). */
struct run_slot {
	struct run_ctx *c;
	unsigned index, repeat;
	struct krun_kernel *k;
	pthread_t thread;
	int started, booting, finished, joined;
	int r;                /* one_run's result */
	unsigned at_once;     /* the most of the job's guests running while this one ran */
};

struct run_ctx {
	const struct run_opts *o;
	const struct job *job;
	struct host h;       /* where guests run (run/host.h) */
	struct run_host host; /* h's, as the job decided on it (KVM or TCG, timing model) */
	char kernel[PATH_MAX];
	char *runners;
	char id[128];
	char created[32];
	json_t *runs;
	struct run_summary *sum;
	struct krun kr;      /* the job's kernels (A/B: several, run interleaved) */
	struct imgrun img;   /* the job's disk image, when it names one */
	json_t *stop;        /* the report's "stop": why a "precision" job stopped */
	unsigned parallel;   /* guests at once (timing_parallel) */
	char parallel_why[256];
	/* Guarded by lock: runs, sum, stop, slots' state and booting; the report file. */
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a slot finished */
	pthread_mutex_t plock; /* progress lines whole */
	struct run_slot *slots;
	unsigned nslots, booting;
};

/* A progress line for people, whole among the threads' lines. */
void run_ctx_progress(const struct run_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The report as it stands (runs so far, c->stop) written to c->sum->report; under c->lock. */
int run_ctx_write_report(struct run_ctx *c);
/* Takes c->lock: the run's JSON rj (taken over) into the report in index order, the summary
 * counted, the report rewritten. */
int run_ctx_record(struct run_ctx *c, const struct run_record *rec, json_t *rj);
