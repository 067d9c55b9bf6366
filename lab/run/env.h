/* Where and how a job's guests run: the host (this machine's embedded libvirt, or one
 * --connect URI), the state directory, KVM or TCG, the quiet-host wait, and whom to tell of
 * progress and interruption.  The one form of it that every engine takes: `lab run`'s
 * (run/engine.h), a trial of commits (regress/trial.h), `lab bisect`'s and `lab nightly`'s,
 * copied whole from one to the next, never field by field. */
#pragma once
#include <signal.h>

#include "run/accel.h"
#include "util/progress.h"

struct run_env {
	const char *uri;          /* NULL: embedded driver under state_dir; else one libvirt host,
				   * local or remote (run/host.h) */
	const char *pool_dir;     /* a remote host's storage pool directory; NULL:
				   * HOSTS_DEFAULT_POOL_DIR */
	const char *host_class;   /* a label recorded as each run's host.class (lab compare keeps
				   * classes apart); NULL: none.  It chooses nothing: Slurm does */
	const char *state_dir;
	enum accel_mode accel;
	double quiet_wait_s;      /* under a host-clock model, wait up to this long for a quiet
				   * host before each run; 0 = do not wait */
	volatile sig_atomic_t *interrupt;
	/* Progress for people; the engines themselves never print. */
	progress_fn *progress;
	void *progress_ud;
};

/* Default for run_env.quiet_wait_s. */
#define RUN_QUIET_WAIT_S 60.0
