/* `lab run`: a parsed job -> guests booted (one after the other, or several at once under the
 * deterministic timing model) -> report.json. */
#pragma once
#include <limits.h>
#include <signal.h>

#include "core/job.h"
#include "core/timing.h"
#include "core/outcome.h"
#include "stage/accel.h"
#include "util/progress.h"

struct runresume; /* core/runresume.h */
struct hostpool;  /* core/hostpool.h */

#define RUN_SEED_MAX ((1ULL << 53) - 1) /* exact in any JSON reader (doubles) */

struct run_opts {
	const char *job_file;
	const char *out_dir;      /* NULL: reports/<id> */
	const char *uri;          /* NULL: embedded driver under state_dir */
	const struct hostpool *pool; /* NULL: the one host uri names; else these hosts
				   * (core/hostpool.h), and uri is not used */
	const char *host_class;   /* with a pool: run on hosts of this class only; NULL: the
				   * first usable host's class */
	double host_wait_s;       /* how long a run waits while no host of its class is up
				   * before it is recorded as not run; 0: HOSTS_WAIT_MAX_S */
	const char *state_dir;
	enum accel_mode accel;
	enum timing_model timing; /* TIMING_AUTO: the job's "timing" */
	unsigned quantum;         /* the contention model's round; 0: the job's "quantum", else
				   * TIMING_QUANTUM_DEFAULT */
	double quiet_wait_s;      /* under a host-clock model, wait up to this long for a quiet
				   * host before each run; 0 = do not wait */
	int parallel;             /* guests at once: 0 the job's "parallel", -1 auto, N > 0 */
	int keep_initrd;
	/* Under icount every boot gets its own seed (QEMU's -seed, recorded as runs[].seed):
	 * random, or with seed_set run i gets seed + i, so a recorded seed reproduces its boot. */
	int seed_set;
	unsigned long long seed;  /* 0..RUN_SEED_MAX */
	int comparison;           /* the runs are one side of a comparison made elsewhere (a
				   * bisection step): the timing model is chosen as for an A/B job */
	volatile sig_atomic_t *interrupt;
	/* `lab run --resume`: what becomes of each run (core/runresume.h): the earlier report's
	 * runs kept as they are and never run again, the ones under way when the lab was stopped
	 * recorded as interrupted, the others run; its id and created time kept.  NULL: a
	 * fresh run. */
	const struct runresume *resume;
	const char *job_sha256;   /* the report's job.sha256 (runresume_job_sha256); NULL: none */
	/* Progress for people; the module itself never prints. */
	progress_fn *progress;
	void *progress_ud;
};

struct run_summary {
	char out_dir[PATH_MAX];
	char report[PATH_MAX];
	enum outcome status;
	unsigned runs, ok;
	unsigned planned;         /* runs the job called for: repeats x kernels, or the rounds a
				   * "precision" job ran x kernels */
};

/* The memory plan (core/memplan.h) against this host's MemAvailable: -EINVAL with err naming
 * the JSON path and the numbers when a node is too small for its vCPUs or the whole guest
 * and QEMU do not fit. */
int run_check_memory(const struct job *job, struct lab_error *err);
/* MemTotal and MemAvailable from /proc/meminfo, in MiB. */
int run_host_memory(unsigned long *total_mib, unsigned long *available_mib);
/* Default state directory: $LAB_STATE_DIR, $XDG_STATE_HOME/numalab, ~/.local/state/numalab,
 * else /var/lib/numalab. */
int run_state_dir(char *buf, size_t len);
/* A run's time limits in seconds: the job's timeouts, else derived from the vCPU count and
 * boot_cpus, the CPUs the kernel brings up while booting (BOOT_EARLY_CPUS when the agent
 * onlines the rest after hello, stage/boot.h; else all of them). */
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
/* Default for run_opts.quiet_wait_s. */
#define RUN_QUIET_WAIT_S 60.0

/* Returns 0 when a report was written (whatever the outcomes; see sum->status), or a
 * negative errno when the lab itself could not proceed; msg then says why. */
int run_job(const struct run_opts *o, const struct job *job, struct run_summary *sum,
	    char *msg, size_t msglen);
