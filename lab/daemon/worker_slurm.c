/* labd's worker, Slurm backend: see worker_slurm.h. */
#include "daemon/worker_slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon/slurm.h"
#include "util/clock.h"

/* The new part of the job's output file, line by line. */
struct tail {
	long long off;
	char part[1024];
	size_t plen;
	char last[512];  /* the last non-empty line, for an error */
};

static void __attribute__((format(printf, 2, 3)))
say(const struct worker_slurm_hooks *h, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (h->log)
		h->log(h->ud, msg);
}

static void emit(struct tail *t, const struct worker_slurm_hooks *h)
{
	t->part[t->plen] = '\0';
	if (t->plen) {
		snprintf(t->last, sizeof(t->last), "%s", t->part);
		h->line(h->ud, t->part);
	}
	t->plen = 0;
}

static void tail_read(struct tail *t, const char *path, const struct worker_slurm_hooks *h)
{
	char buf[16384];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return; /* not there until the job starts */
	while ((n = pread(fd, buf, sizeof(buf), (off_t)t->off)) > 0) {
		t->off += n;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				emit(t, h);
				continue;
			}
			if (t->plen < sizeof(t->part) - 1)
				t->part[t->plen++] = buf[i];
		}
	}
	close(fd);
}

/* How the ended job ends labd's job: lab run's exit code by the one table. */
static void ended(const struct slurm_job_info *si, const struct tail *t, int cancelling,
		  struct worker_job_end *end)
{
	end->exit_code = si->phase == SLURM_ENDED && !si->signal ? si->exit_code : -1;
	if (cancelling) {
		end->state = QUEUE_CANCELLED;
		snprintf(end->why, sizeof(end->why), "cancelled");
	} else if (si->phase == SLURM_CANCELLED) {
		end->state = QUEUE_FAILED;
		snprintf(end->why, sizeof(end->why), "cancelled in Slurm, not through labd (%s)",
			 si->reason);
	} else if (si->phase == SLURM_LOST) {
		end->state = QUEUE_FAILED;
		snprintf(end->why, sizeof(end->why), "Slurm ended it: %s (%s)", si->state,
			 si->reason);
	} else if (si->signal) {
		end->state = QUEUE_FAILED;
		snprintf(end->why, sizeof(end->why), "lab run was killed by signal %d", si->signal);
	} else if ((end->state = queue_state_of_exit(si->exit_code)) == QUEUE_FAILED) {
		snprintf(end->why, sizeof(end->why), "%s", t->last[0] ? t->last : "lab run failed");
	}
}

static int submit(const struct worker_slurm_job *j, const struct worker_slurm_hooks *h,
		  long long *sid, struct worker_job_end *end)
{
	char name[64];
	struct slurm_batch b = { .script = j->script, .name = name, .output = j->output,
				 .workdir = j->workdir, .constraint = j->host_class,
				 .partition = j->partition, .time_min = j->time_min, .cmd = j->cmd };
	struct lab_error err = { 0 };

	snprintf(name, sizeof(name), "numalab-%lld", (long long)j->id);
	if (slurm_submit(&b, sid, &err) < 0) {
		end->state = QUEUE_FAILED;
		snprintf(end->why, sizeof(end->why), "%s", err.msg);
		return -EINVAL;
	}
	h->submitted(h->ud, *sid);
	say(h, "job %lld: Slurm job %lld (%u min limit%s%s)", (long long)j->id, *sid, j->time_min,
	    j->host_class ? ", feature " : "", j->host_class ? j->host_class : "");
	return 0;
}

/* The Slurm job of an earlier labd, when Slurm still knows it. */
static long long attach(const struct worker_slurm_job *j, const struct worker_slurm_hooks *h)
{
	struct slurm_job_info si;
	struct lab_error err = { 0 };

	if (j->known <= 0)
		return 0;
	if (slurm_query(j->known, &si, &err) < 0) {
		say(h, "job %lld: Slurm job %lld is gone (%s); submitted again", (long long)j->id,
		    j->known, err.msg[0] ? err.msg : "not known any more");
		return 0;
	}
	say(h, "job %lld: Slurm job %lld again, %s", (long long)j->id, j->known, si.state);
	return j->known;
}

void worker_slurm_run(const struct worker_slurm_job *j, const struct worker_slurm_hooks *h,
		      struct worker_job_end *end)
{
	struct tail t = { 0 };
	struct slurm_job_info si = { 0 };
	long long sid = attach(j, h);
	unsigned restarts = 0;
	double cancel_at = 0, lost_at = 0;

	memset(end, 0, sizeof(*end));
	end->exit_code = -1;
	if (!sid && submit(j, h, &sid, end) < 0)
		return;
	for (;;) {
		struct lab_error err = { 0 };
		int stop = h->stop(h->ud), r;

		tail_read(&t, j->output, h);
		if (stop == 2 && !cancel_at) {
			end->left_running = 1; /* the next labd finds it again */
			return;
		}
		r = slurm_query(sid, &si, &err);
		if (r == -ENOENT) {
			end->state = QUEUE_FAILED;
			snprintf(end->why, sizeof(end->why), "Slurm forgot job %lld", sid);
			return;
		}
		if (r == 0 && si.restarts > restarts) {
			restarts = si.restarts;
			say(h, "job %lld: Slurm requeued job %lld (%s); lab run --resume goes on",
			    (long long)j->id, sid, si.reason);
		}
		if (r == 0 && si.phase == SLURM_LOST && si.requeue && !cancel_at &&
		    (!lost_at || clock_now_s() - lost_at < WORKER_SLURM_REQUEUE_WAIT_S)) {
			if (!lost_at)
				say(h, "job %lld: Slurm job %lld: %s (%s); waiting for Slurm to requeue "
				    "it", (long long)j->id, sid, si.state, si.reason);
			lost_at = lost_at ? lost_at : clock_now_s();
		} else if (r == 0 && si.phase != SLURM_WAITING && si.phase != SLURM_RUNNING) {
			break;
		} else if (r == 0) {
			lost_at = 0;
		}
		if (stop == 1 && !cancel_at) {
			cancel_at = clock_now_s();
			/* a pending job has no script to signal */
			slurm_cancel(sid, r == 0 && si.phase == SLURM_RUNNING, &err);
		} else if (cancel_at && clock_now_s() - cancel_at > WORKER_SLURM_CANCEL_GRACE_S) {
			slurm_cancel(sid, 0, &err);
			cancel_at = clock_now_s();
		}
		clock_sleep_s(WORKER_SLURM_POLL_S);
	}
	tail_read(&t, j->output, h);
	emit(&t, h);
	ended(&si, &t, cancel_at > 0, end);
}
