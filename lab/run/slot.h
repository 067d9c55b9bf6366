/* One run of a job (lab/run/slot.c): a slot of lab/run/engine.c booted on the run's host
 * (run/host.h), watched and recorded; and the time limits a run gets. */
#pragma once
#include "core/job.h"
#include "core/timing.h"

struct run_slot; /* run/context.h */

/* Run slot s on c->h and record it: a lost host makes the run infra-error (end host-lost) and
 * every later run of the job is recorded as not run, at once.  0, or a negative errno for a
 * lab error (the report could not be written). */
int run_one(struct run_slot *s);
/* A run's time limits in seconds: the job's timeouts, else derived from the vCPU count and
 * boot_cpus, the CPUs the kernel brings up while booting (BOOT_EARLY_CPUS when the agent
 * onlines the rest after hello, run/boot.h; else all of them). */
struct run_limits {
	double boot_s;     /* start -> hello */
	double silence_s;  /* console silence before hello that is a boot hang */
	double progress_s; /* after hello, without a heartbeat or result */
	/* ... once the guest also had progress_cpu_s of host CPU in the silence, or it lasted
	 * progress_starved_s (struct guest_watch) */
	double progress_cpu_s, progress_starved_s;
	double total_s;    /* start -> stopped */
	unsigned channel_mib, console_mib; /* what the guest may send (job.h) */
};
void run_limits_get(const struct job *job, unsigned boot_cpus, struct run_limits *l);
/* The limits for a timing model: icount runs every vCPU on one host thread, several times
 * slower than multi-threaded TCG, so the derived limits (not the job's own) are stretched. */
void run_limits_scale(const struct job *job, enum timing_model m, unsigned host_cpus,
		      struct run_limits *l);
