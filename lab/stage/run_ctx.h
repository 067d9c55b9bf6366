/* The state of one `lab run` in the engine (lab/stage/run.c), shared with lab/stage/resume.c
 * only: no other module reaches into it. */
#pragma once
#include <limits.h>
#include <pthread.h>

#include "core/runreport.h"
#include "stage/hosts.h"
#include "stage/imgrun.h"
#include "stage/krun.h"
#include "stage/run.h"
#include "virt/virt.h"

/* One run of the job, possibly beside others (stage/run.c runs up to c->parallel at once). */
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
	struct hosts hosts;  /* where guests run (stage/hosts.h) */
	struct run_host host; /* the first usable host's, for what the job decides once */
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

/* Run slot s on a host of c->hosts and record it (lab/stage/run_one.c). */
int run_one(struct run_slot *s);
/* A progress line for people, whole among the threads' lines. */
void run_progress(const struct run_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Takes c->lock: the run's JSON rj (taken over) into the report in index order, the summary
 * counted, the report rewritten. */
int run_record(struct run_ctx *c, const struct run_record *rec, json_t *rj);
