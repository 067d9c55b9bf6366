/* A job file (configs/NAME.json) -> validated struct.  Pure: no I/O except through the loader
 * callback that resolves topology names to files. */
#pragma once
#include <jansson.h>
#include <limits.h>
#include <stdbool.h>

#include "core/collect.h"
#include "core/numapreset.h"
#include "core/timing.h"
#include "core/topology.h"
#include "proto/fault.h"
#include "proto/guestjob.h"
#include "util/error.h"

#define JOB_MAX_WORKLOADS GUESTJOB_MAX_WORKLOADS
/* How long the agent lets a workload run when the job gives no timeout_s. */
#define JOB_DEFAULT_WORKLOAD_TIMEOUT_S 1800.0
#define JOB_MAX_REPEATS 1000
/* What the host takes from a guest (core/collect.h), in MiB: a job's debug may only lower it. */
#define JOB_CHANNEL_MAX_MIB (COLLECT_MAX_TOTAL >> 20)
#define JOB_CONSOLE_MAX_MIB (COLLECT_MAX_CONSOLE >> 20)
/* "parallel": at most this many guests at once. */
#define JOB_MAX_PARALLEL 64

struct job_workload {
	char name[32];
	json_t *params;    /* validated, defaults filled in; what the guest runner receives */
	double timeout_s;  /* per-workload timeout inside the guest; 0 = none */
	int no_aslr;       /* "aslr": false: run without address-space randomisation */
};

#define JOB_MAX_KERNELS 16

/* One kernel a job boots: a prebuilt image or a kernel variant (kernels/NAME.json) that the
 * lab builds.  A job with "kernels": [...] has several, run interleaved A B A B. */
struct job_kernel {
	char label[64];          /* "name", else the variant name, else the image's base name */
	char image[PATH_MAX];    /* as written (may be a glob); "" for a variant */
	char variant[PATH_MAX];  /* a variant name or path, as written; "" for an image */
	char cmdline[1024];      /* extra kernel command-line arguments */
	char path[32];           /* its JSON path, "kernel" or "kernels[i]", for errors */
	/* "knobs" of this entry (normalised; NULL: none), and the knobs its runs get: the job's
	 * with these over them (knobs_merge; NULL: none, or the job's when knobs is NULL but
	 * the job has some).  Entries of one kernel with different knobs make knob sets an A/B
	 * axis: each its own label, runs interleaved as for kernels. */
	json_t *own_knobs;
	json_t *knobs;
};

#define JOB_MAX_COLLECT 32
#define JOB_MAX_PERF_EVENTS GUESTJOB_MAX_PERF_EVENTS

/* "image": boot from a disk image built from a recipe (images/, lab/builder/image.h) instead of
 * the initramfs (lab/core/job_image.c). */
struct job_image {
	char recipe[256];                          /* name or path as written; "" = initramfs */
	unsigned nr_collect;
	char collect[JOB_MAX_COLLECT][256];        /* guest files/globs the post-mortem copies */
	unsigned nr_perf_events;                   /* > 0: each workload runs under perf stat */
	char perf_events[JOB_MAX_PERF_EVENTS][64];
};

/* "precision": boot rounds (every kernel once, A B A B) until the 95 % interval of every
 * primary metric's mean over boots is at most ci_pct % wide on either side, for every kernel
 * (lab/analysis/precision.h); at least min_boots, at most max_boots rounds, and no new round
 * after max_s seconds (0: no time cap).  Instead of "repeats". */
struct job_precision {
	double ci_pct;
	int until_decided;     /* "until": "decided": rounds stop once every deciding series
				* of the A/B is decided (analysis/sequential.h) */
	unsigned min_boots, max_boots;
	double max_s;
};

struct job {
	char name[64];
	char topology_ref[PATH_MAX]; /* name or path as written in the job; "" when inline */
	struct topology topo;
	/* Every kernel of the job ("kernel" gives one). */
	unsigned nr_kernels;
	struct job_kernel *kernels;
	unsigned repeats;
	unsigned nr_workloads;
	struct job_workload *workloads;
	double boot_timeout_s;       /* 0 = derive from vCPU count */
	double boot_silence_s;       /* 0 = derive: a console silent this long before hello */
	double progress_timeout_s;   /* 0 = default: silence this long after boot is a hang */
	enum fault fault;            /* debug.fault: what the agent provokes (tests) */
	int fault_after_workloads;   /* debug.fault_after "workloads" (default: after hello) */
	unsigned channel_max_mib;    /* debug.channel_max_mib: the results channel's bound */
	unsigned console_max_mib;    /* debug.console_max_mib: the console file's bound */
	struct job_image image;
	json_t *knobs;               /* normalised "knobs" (lab/core/knobs.c), NULL = none */
	enum timing_model timing;    /* "timing": kvm, tcg, icount, quantum or auto (the
				      * default) */
	unsigned quantum;            /* "quantum": the contention model's round, 0 = default */
	struct job_precision precision; /* "precision": adaptive repetitions; ci_pct 0 = off */
	unsigned parallel;           /* "parallel": guests at once, 0 = "auto" (the default) */
	int lock_insns;              /* "lock_insns": the TCG plugin counts instructions inside
				      * and outside spinlocks (core/lockinsn.h) */
	int profile;                 /* "profile": the TCG plugin's instruction profile per
				      * kernel symbol (core/profile.h) */
	/* "numa_cost": the NUMA cost model's charges (core/numacost.h) paid in the contention
	 * model's rounds by the TCG plugin lab/plugin/numacost.c.  The preset's name or path as
	 * written, "" for none; the preset itself once the caller has read its file
	 * (job_set_numa_preset(), lab/run/jobload.c): until then numa.name is "". */
	char numa_cost[PATH_MAX];
	struct numa_preset numa;
	char numa_sha256[65];        /* numapreset_sha256() of numa */
	double threshold_pct;        /* "threshold": a number, the A/B's fixed minimum effect
				      * in %; 0: the default */
	int threshold_learned;       /* "threshold": "learned" (analysis/noise.h) */
};

/* A "numa_cost" that names a file (a '/' in it, or ending in .json: relative to the job's
 * directory) rather than a preset of configs/numa/. */
int job_numa_is_path(const char *ref);
/* The preset job's "numa_cost" names, from its file's JSON (file: its name): parsed, errors
 * inside it at numa_cost.… in that file; then checked against job's topology, a misfit at
 * numa_cost in the job's file naming both (err->file as it was); into job->numa with its key.
 * Pure: the caller found and read the file. */
int job_set_numa_preset(struct job *job, const json_t *preset, const char *file,
			struct lab_error *err);

/* Resolves a topology reference (name like "4s-8c" or a path) to parsed JSON.  Returns 0 or a
 * negative errno and fills err.  The CLI supplies one that reads configs/topologies/. */
typedef int (*job_topology_loader)(const char *ref, void *userdata, json_t **out,
				   struct lab_error *err);

int job_from_json(const json_t *j, job_topology_loader load, void *userdata, struct job *job,
		  struct lab_error *err);
void job_free(struct job *job);
/* The most tasks any workload of job runs at once (the largest of its "tasks" sweeps). */
unsigned job_max_tasks(const struct job *job);
/* Parse "kernel" (one) or "kernels" (an A/B list) into job->kernels (lab/core/job_kernel.c);
 * needs job->topo (an entry's "knobs" are checked against it). */
int job_parse_kernels(const json_t *j, struct job *job, struct lab_error *err);
/* Each kernel's knobs: job->knobs with its own over them (after both were parsed);
 * all_required: the job's knobs said "required": true (knobs_merge). */
int job_merge_knobs(struct job *job, bool all_required);
/* The knobs the runs of kernel k get (may be NULL: none). */
const json_t *job_kernel_knobs(const struct job *job, const struct job_kernel *k);
/* Which of job->kernels run `index` boots: runs go A B A B (drift of a shared machine hits
 * every variant alike), so index % nr_kernels. */
unsigned job_run_kernel(const struct job *job, unsigned index);
/* The runs of job in order (repeats rounds of every kernel): [{"index", "repeat", "label",
 * "variant" | "image", "cmdline"?, "knobs"?}] with the knobs each run's guest gets.  A new
 * reference, NULL when out of memory.  (A "precision" job may stop after fewer rounds.) */
json_t *job_plan_json(const struct job *job);
/* The guest job of one run of job on kernel k (lab/proto/guestjob.h; k NULL: the job's knobs
 * alone): its workloads (timeout_s given or JOB_DEFAULT_WORKLOAD_TIMEOUT_S), k's knobs
 * (job_kernel_knobs), debug fault and perf events; online_after_boot as
 * boot_online_after() decided.  A new reference, or NULL when out of memory. */
json_t *job_guestjob(const struct job *job, const struct job_kernel *k, const char *run_id,
		     int online_after_boot);
/* Parse "image" (optional) into job->image (lab/core/job_image.c). */
int job_parse_image(const json_t *j, struct job *job, struct lab_error *err);

/* Whether the job's boots run in rounds that decide when to stop ("precision"). */
static inline int job_rounds(const struct job *job)
{
	return job->precision.ci_pct > 0 || job->precision.until_decided;
}
